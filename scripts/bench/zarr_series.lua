-- Benchmark: a time series of 366 chunks (int16 360 x 360, about 70 KB each
-- with zstd, in a HAMT-sharded directory, as an OISST-like year) read whole by
-- ipfsrt.zarr from a local `ipfsrt serve` process, side by side in one run:
--   fetch alone   client:get_many of the 366 chunk paths, verified (cold cache)
--   decode alone  the same read from the chunks in memory (a Lua store), one thread
--   zarr verified ipfsrt.zarr.open("ipfs://..."):read(), every block verified
--   zarr http     the same through the plain, unverified HTTP store
-- Target: zarr verified within 1.2x of fetch + decode / 2 (two cores), that is,
-- fetching and decoding overlap.
-- Usage: ipfsrt scripts/bench/zarr_series.lua [RUNS=5] [DIR=build/bench]
-- (IPFSRT_EXE names the executable that serves, default build/ipfsrt)
local ipfsrt = require "ipfsrt"
-- the benchmarks' helpers beside this script (scripts/bench/lib), not part of the library
package.path = (arg[0]:match("^(.*)/") or ".") .. "/lib/?.lua;" .. package.path
local bench = require "bench"
local sh, median = bench.sh, bench.median

local runs = tonumber(arg[1]) or 5
local dir = (arg[2] or "build/bench") .. "/zarr_series"
local exe = os.getenv("IPFSRT_EXE") or "build/ipfsrt"
local days, side = 366, 360

local root_file = dir .. "/root"
if not io.open(root_file) then
  io.stderr:write("generating ", dir, " ...\n")
  sh(string.format("rm -rf '%s' && mkdir -p '%s'", dir, dir))
  local nd = ipfsrt.ndarray
  local store = ipfsrt.zarr.store(dir .. "/oisst", { writable = true })
  store:put(".zgroup", '{"zarr_format": 2}')
  store:put("sst/.zarray", string.format('{"zarr_format": 2, "shape": [%d, %d, %d], "chunks": [1, %d, %d], ' ..
    '"dtype": "<i2", "compressor": {"id": "zstd", "level": 3}, "fill_value": -999, "order": "C", ' ..
    '"filters": null}', days, side, side, side, side))
  local zstd = ipfsrt.codec.new("zstd", { level = 3 })
  local field = ((nd.linspace(0, 90, side * side) % 30) - 15):abs() * 100 -- a smooth field
  local rnd = assert(io.open("/dev/urandom", "rb"))
  for day = 0, days - 1 do
    local noise = nd.frombytes(rnd:read(side * side), "uint8", { side * side }):astype("float64") % 2
    local chunk = (field + noise + day):astype("int16")
    store:put(string.format("sst/%d.0.0", day), zstd:encode(chunk:tobytes("<")))
  end
  rnd:close()
  local root = ipfsrt.pack(dir .. "/oisst", { output = dir .. "/oisst.car", hamt = "entries:256", hidden = true })
  local f = io.open(root_file, "w")
  f:write(tostring(root))
  f:close()
end
local root = io.open(root_file):read("l")
local gateway = bench.serve(exe, { dir .. "/oisst.car" }, dir)

local paths, chunks, stored = {}, {}, 0
local local_store = ipfsrt.zarr.store(dir .. "/oisst")
for day = 0, days - 1 do
  paths[#paths + 1] = string.format("ipfs://%s/sst/%d.0.0", root, day)
  local key = string.format("sst/%d.0.0", day)
  chunks[key] = local_store:get(key)
  stored = stored + #chunks[key]
end
chunks["sst/.zarray"] = local_store:get("sst/.zarray")
local memory = ipfsrt.zarr.open({ get = function(_, key) return chunks[key] end }, { path = "sst" })

local function client() return ipfsrt.client { gateways = { gateway }, concurrency = 16 } end
local ways = {
  { "fetch alone", function()
      local c <close> = client()
      c:get_many(paths, function() end)
    end },
  { "decode alone", function() memory:read(nil, { threads = 1 }) end },
  { "zarr verified", function()
      local c <close> = client()
      local x = ipfsrt.zarr.open("ipfs://" .. root .. "/sst", { client = c }):read()
      assert(x.shape[1] == days)
    end },
  { "zarr http", function()
      ipfsrt.zarr.open(gateway .. "/ipfs/" .. root .. "/sst"):read()
    end },
}

local times = {}
for _ = 1, runs do
  for _, w in ipairs(ways) do
    collectgarbage()
    local t0 = ipfsrt.clock()
    w[2]()
    times[w[1]] = times[w[1]] or {}
    table.insert(times[w[1]], ipfsrt.clock() - t0)
  end
end
sh(string.format("kill $(cat %s/serve.pid)", dir))

print(string.format("%d chunks of int16 %dx%d (%.0f KB each with zstd) from ipfsrt serve, cold cache, " ..
  "median of %d runs", days, side, side, stored / days / 1000, runs))
for _, w in ipairs(ways) do print(string.format("  %-14s %8.1f ms", w[1], median(times[w[1]]) * 1000)) end
local bound = median(times["fetch alone"]) + median(times["decode alone"]) / 2
local ratio = median(times["zarr verified"]) / bound
print(string.format("  zarr verified / (fetch + decode / 2) = %.2f  (target <= 1.2: %s)", ratio,
  ratio <= 1.2 and "ok" or "MISSED"))
print(string.format("  zarr http / zarr verified = %.2f", median(times["zarr http"]) / median(times["zarr verified"])))
