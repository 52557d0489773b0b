-- Benchmark: reading the 366 daily chunks of one variable of an OISST-like Zarr
-- (70 KB each, in a HAMT-sharded directory) through one local `ipfsrt serve`,
-- verified, cold cache, side by side in one run:
--   get_many   client:get_many(paths): directory in one request, chunks by CID at once
--   ls+blocks  the same by hand: client:ls of the directory, then client:blocks
--   one by one client:get of each path in turn
-- Usage: ipfsrt scripts/bench/many.lua [RUNS=5] [DIR=build/bench]
-- (IPFSRT_EXE names the executable that serves, default build/ipfsrt)
local ipfsrt = require "ipfsrt"
-- the benchmarks' helpers beside this script (scripts/bench/lib), not part of the library
package.path = (arg[0]:match("^(.*)/") or ".") .. "/lib/?.lua;" .. package.path
local bench = require "bench"
local sh, median = bench.sh, bench.median

local runs = tonumber(arg[1]) or 5
local dir = (arg[2] or "build/bench") .. "/many"
local exe = os.getenv("IPFSRT_EXE") or "build/ipfsrt"
local chunks, chunk_size = 366, 70000

local root_file = dir .. "/root"
if not io.open(root_file) then
  io.stderr:write("generating ", dir, " ...\n")
  sh(string.format("rm -rf '%s' && mkdir -p '%s/zarr/sst'", dir, dir))
  local rnd = io.open("/dev/urandom", "rb")
  for day = 0, chunks - 1 do
    local f = io.open(string.format("%s/zarr/sst/%d.0.0", dir, day), "wb")
    f:write(rnd:read(chunk_size))
    f:close()
  end
  for _, meta in ipairs({ "/zarr/.zgroup", "/zarr/sst/.zarray" }) do
    local f = io.open(dir .. meta, "w")
    f:write('{"zarr_format": 2}\n')
    f:close()
  end
  -- ipfs-car's layout, but sharded from 256 entries so that this directory is a HAMT
  local root = ipfsrt.pack(dir .. "/zarr", { output = dir .. "/zarr.car", hamt = "entries:256", hidden = true })
  local f = io.open(root_file, "w")
  f:write(tostring(root))
  f:close()
end
local root = io.open(root_file):read("l")

local gateway = bench.serve(exe, { dir .. "/zarr.car" }, dir)

local paths = {}
for day = 0, chunks - 1 do paths[#paths + 1] = string.format("ipfs://%s/sst/%d.0.0", root, day) end

local ways = {
  { "get_many", function(c)
      local bytes = 0
      c:get_many(paths, function(_, _, data) bytes = bytes + #data end)
      return bytes
    end },
  { "ls+blocks", function(c)
      local cids, bytes = {}, 0
      for _, e in ipairs(c:ls("ipfs://" .. root .. "/sst", { types = false })) do
        if e.name ~= ".zarray" then cids[#cids + 1] = e.cid end
      end
      c:blocks(cids, function(_, _, data) bytes = bytes + #data end)
      return bytes
    end },
  { "one by one", function(c)
      local bytes = 0
      for _, p in ipairs(paths) do bytes = bytes + #c:get(p) end
      return bytes
    end },
}

local times, requests = {}, {}
for _ = 1, runs do
  for _, w in ipairs(ways) do
    local c = ipfsrt.client { gateways = { gateway }, concurrency = 16 } -- a cold cache each time
    local t0 = ipfsrt.clock()
    local bytes = w[2](c)
    local secs = ipfsrt.clock() - t0
    assert(bytes == chunks * chunk_size, w[1] .. " read " .. bytes .. " bytes")
    times[w[1]] = times[w[1]] or {}
    table.insert(times[w[1]], secs)
    requests[w[1]] = c:stats()[1].requests
    c:close()
  end
end
sh(string.format("kill $(cat %s/serve.pid)", dir))

print(string.format("%d chunks of %d bytes in a HAMT directory, verified, cold cache (median of %d runs)",
  chunks, chunk_size, runs))
local base = median(times["get_many"])
for _, w in ipairs(ways) do
  local m = median(times[w[1]])
  print(string.format("  %-11s %7.1f ms  %4d requests  %.2fx get_many's time", w[1], m * 1000, requests[w[1]],
    m / base))
end
