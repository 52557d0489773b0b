-- Benchmark: a dataset that grows by a day (issue 46's targets), on the
-- 366-day sample in NOAA's layout (its CAR packed as ipfs-car packs it, with
-- --hidden) and NOAA's NetCDF-4 file of day 367, all measured in one run:
--   1. the append of the day in-process (the old CAR opened, NOAA's file
--      read, checks, the new version's blocks made and written), beside the
--      day's 32 chunks made from NOAA's file at the least: read, encoded
--      (zstd, as the sample's are) and hashed (SHA-256): target <= 2x; and
--      `ipfsrt zarr append` as a process, and packing the whole grown folder;
--   2. the delta CAR beside what it must hold (the new chunks' bytes, the
--      changed directory and metadata blocks): target <= 1.05x;
--   3. the new day read through a gateway serving both CARs by a client whose
--      block cache holds the old version (its last day read before): bytes
--      moved beside the delta's: target <= 1.1x;
--   4. the append's peak memory on the 60-day and the 366-day sample: bounded
--      by the data appended, not by the dataset.
-- Usage: ipfsrt scripts/bench/versions.lua [RUNS=5] [DIR=build/bench]
local ipfsrt = require "ipfsrt"
package.path = (arg[0]:match("^(.*)/") or ".") .. "/lib/?.lua;" .. package.path
local bench = require "bench"
local sh, median, quote = bench.sh, bench.median, bench.quote

local runs = tonumber(arg[1]) or 5
local dir = arg[2] or "build/bench"
local exe = os.getenv("IPFSRT_EXE") or "build/ipfsrt"

local function size(path)
  local f <close> = assert(io.open(path, "rb"))
  return f:seek("end")
end

-- The day after a sample of n days, as NOAA publishes it (made once).
local function next_day(n)
  local out = string.format("%s/oisst-day%d", dir, n + 1)
  if not io.open(out .. "-nc/refs.json") then
    sh(string.format("%s scripts/sample/oisst.lua %s --days 1 --from %d --netcdf %s 2>/dev/null", exe, quote(out), n,
      quote(out .. "-nc")))
  end
  return sh(string.format("ls %s/*.nc", quote(out .. "-nc"))):match("(%S+)")
end

-- `ipfsrt zarr append` as a process: seconds, its peak resident KiB (the old
-- CAR's pages it mapped count there), the anonymous KiB it holds at the end
-- (its own memory), the new root.
local function append(car, nc, delta)
  local code = string.format("require('ipfsrt.cli.zarr').run { 'append', %q, %q, '--dim', 'time', '--hidden', " ..
    "'-o', %q, '--force' }; local s = io.open('/proc/self/status'):read('a'); " ..
    "io.stderr:write('MEM ', s:match('VmHWM:%%s*(%%d+)'), ' ', s:match('RssAnon:%%s*(%%d+)'), '\\n')", car, nc, delta)
  local t0 = ipfsrt.clock()
  local out = sh(string.format("%s -e %s 2>&1", exe, quote(code)))
  local dt = ipfsrt.clock() - t0
  local peak, anon = out:match("MEM (%d+) (%d+)")
  return dt, tonumber(peak), tonumber(anon), out:match("(baf%w+)")
end

-- What the append must do at the least: the day's chunks read from NOAA's
-- file, encoded as the sample's are (zstd level 3 over (1, 1, 360, 360)
-- int16) and hashed.
local function encode_and_hash(nc)
  local t0 = ipfsrt.clock()
  local day = ipfsrt.dataset.open(nc:gsub("[^/]+$", "refs.json"), { decode = false })
  local fields = {}
  for _, name in ipairs { "sst", "anom", "err", "ice" } do fields[name] = day[name]:values() end
  local zstd = ipfsrt.codec.new("zstd", { level = 3 })
  local bytes = 0
  for _, name in ipairs { "sst", "anom", "err", "ice" } do
    local x = fields[name]
    for i = 0, 1 do
      for j = 0, 3 do
        local chunk = x:slice { nil, nil, { i * 360, i * 360 + 360 }, { j * 360, j * 360 + 360 } }:tobytes()
        local encoded = zstd:encode(chunk)
        ipfsrt.multihash.sum("sha2-256", encoded)
        bytes = bytes + #encoded
      end
    end
  end
  return ipfsrt.clock() - t0, bytes
end

-- The delta's blocks: how many and their bytes (what a CAR must hold at least).
local function block_bytes(car)
  local c <close> = ipfsrt.car.open(car)
  local n, bytes = 0, 0
  for _, data in c:blocks() do
    n, bytes = n + 1, bytes + #data
  end
  return n, bytes
end

-- Bytes a gateway over both CARs sends for the new day, to a client whose
-- cache holds the old version's last day (and so its directories).
local function warm_read(car, delta, old_root, new_root, days)
  local cache = dir .. "/versions-cache"
  sh("rm -rf " .. quote(cache))
  local gw = ipfsrt.serve { cars = { car, delta } }
  local function read_day(root, t)
    local client = ipfsrt.client { gateways = { gw:url() }, cache = { dir = cache } }
    local ds = ipfsrt.dataset.open("ipfs://" .. root, { client = client, decode = false })
    for _, name in ipairs { "sst", "anom", "err", "ice" } do ds[name]:isel { time = t }:values() end
    client:close()
  end
  read_day(old_root, days - 1)
  local before = gw:stats()
  read_day(new_root, days)
  local after = gw:stats()
  gw:stop()
  return after.bytes - before.bytes, after.requests - before.requests
end

local folder, car, old_root = bench.sample(exe, dir, 366, 2)

local nc = next_day(366)
local delta = dir .. "/oisst-366-day367.delta.car"
sh(string.format("cat %s > /dev/null", quote(car))) -- the page cache warm for every run alike

-- The append in-process: the old version and the day opened, the delta made.
local function append_here(nc_refs)
  local t0 = ipfsrt.clock()
  local old = ipfsrt.dataset.open(car)
  local root = old:append(nc_refs, { dim = "time", output = delta, pack = { hidden = true } })
  return ipfsrt.clock() - t0, tostring(root)
end

local t_here, t_process, t_base, peak, anon, new_root, encoded = {}, {}, {}, {}, {}, nil, 0
local refs = nc:gsub("[^/]+$", "refs.json")
for _ = 1, runs do -- side by side, alternating
  local dt, root = append_here(refs)
  t_here[#t_here + 1], new_root = dt, root
  local kib, anon_kib
  dt, kib, anon_kib = append(car, nc, delta)
  t_process[#t_process + 1], peak[#peak + 1], anon[#anon + 1] = dt, kib, anon_kib
  dt, encoded = encode_and_hash(nc)
  t_base[#t_base + 1] = dt
end
local th, tp, tb = median(t_here), median(t_process), median(t_base)
print(string.format("append of day 367 to the 366-day sample: %.3f s in-process (the CAR opened, NOAA's file read, " ..
  "checks, blocks made, the delta written), %.3f s as `ipfsrt zarr append` (medians of %d)", th, tp, runs))
print(string.format("the day's 32 chunks made from NOAA's file (read, zstd %d bytes, SHA-256): %.3f s: the append " ..
  "takes %.2fx that (target <= 2x)", encoded, tb, th / tb))

local n_blocks, needed = block_bytes(delta)
local delta_bytes = size(delta)
print(string.format("delta CAR %d bytes for %d blocks of %d bytes (new chunks, metadata, directories): %.3fx " ..
  "(target <= 1.05x); the whole CAR is %d bytes", delta_bytes, n_blocks, needed, delta_bytes / needed, size(car)))

local moved, requests = warm_read(car, delta, old_root, new_root, 366)
print(string.format("the new day through a warm cache: %d bytes in %d requests, %.3fx the delta's %d (target <= 1.1x)",
  moved, requests, moved / delta_bytes, delta_bytes))

local _, car60 = bench.sample(exe, dir, 60, 2)
local nc61 = next_day(60)
local peak60, anon60 = {}, {}
for _ = 1, runs do
  local _, kib, anon_kib = append(car60, nc61, dir .. "/oisst-60-day61.delta.car")
  peak60[#peak60 + 1], anon60[#anon60 + 1] = kib, anon_kib
end
print(string.format("memory of `zarr append`: its own (anonymous) %.1f MiB on the 60-day sample (%d MB CAR), %.1f MiB " ..
  "on the 366-day (%d MB CAR): the appended day, not the dataset; peak resident %.0f and %.0f MiB, the old CAR's " ..
  "mapped pages included (medians)", median(anon60) / 1024, size(car60) // 1000000, median(anon) / 1024,
  size(car) // 1000000, median(peak60) / 1024, median(peak) / 1024))

-- what an append spares: packing the whole folder again (once)
local t0 = ipfsrt.clock()
sh(string.format("%s pack %s -o %s --hidden --force", exe, quote(folder), quote(dir .. "/versions-repack.car")))
print(string.format("packing the whole 366-day folder again instead: %.2f s, a %d-byte CAR", ipfsrt.clock() - t0,
  size(dir .. "/versions-repack.car")))
os.remove(dir .. "/versions-repack.car")
