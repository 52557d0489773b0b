-- Benchmark: the dataset scenarios over S3, as the published benchmark had it
-- (plain s3://) and verified (the sample as a CARv2 on S3, read through its
-- index), beside verified ipfs:// from `ipfsrt serve`, all on 127.0.0.1; the
-- local S3 is s3rver behind tests/s3/front.js (which checks every signature).
-- The floor: `curl --parallel` fetching the time series' 366 chunks from the
-- same S3 (signed too). Targets: s3:// within 1.1x of that floor on the time
-- series; S3-CAR within 1.2x of plain s3://.
-- Usage: ipfsrt scripts/bench/s3.lua [--days T=366] [--runs N=5] [--dir build/bench]
--        [--scenarios DIR] [--json FILE]
local ipfsrt = require "ipfsrt"
-- the benchmarks' helpers beside this script (scripts/bench/lib), not part of the library
package.path = (arg[0]:match("^(.*)/") or ".") .. "/lib/?.lua;" .. package.path
local bench = require "bench"

local o = { days = "366", runs = "5", dir = "build/bench", scenarios = "scripts/bench/scenarios" }
for i = 1, #arg, 2 do o[(arg[i]:gsub("^%-%-", ""))] = arg[i + 1] end
local exe = os.getenv("IPFSRT_EXE") or "build/ipfsrt"

local sample, car, root = bench.sample(exe, o.dir, o.days, "2")
local s3, stop_s3 = bench.s3_sample(exe, o.dir, sample)
local endpoint = s3.endpoint
local function stop_all()
  stop_s3()
  bench.sh(string.format("kill $(cat '%s/serve.pid') 2>/dev/null || true", o.dir))
end
local gateway = bench.serve(exe, { car }, o.dir)

local backends = {
  { name = "s3-plain", context = function()
      return { open = function() return ipfsrt.dataset.open("s3://data/oisst", { s3 = s3 }) end }
    end },
  { name = "s3-car-verified", context = function()
      return { open = function() return ipfsrt.dataset.open("s3://data/cars/oisst.car", { s3 = s3 }) end }
    end },
  { name = "ipfs-verified", context = function()
      local c = ipfsrt.client { gateways = { gateway }, concurrency = 16 }
      return { open = function() return ipfsrt.dataset.open("ipfs://" .. root, { client = c }) end,
        close = function() c:close() end }
    end },
}

-- The floor: the time series' chunks (35N 285E lies in chunk row 1, column 3
-- of every day) fetched by curl, 16 at a time, signed as ipfsrt signs.
local function curl_floor(runs)
  local list = o.dir .. "/s3/curl.cfg"
  local f = assert(io.open(list, "w"))
  for t = 0, tonumber(o.days) - 1 do
    f:write(string.format('url = "%s/data/oisst/sst/%d.0.1.3"\noutput = "/dev/null"\n', endpoint, t))
  end
  f:close()
  local times = {}
  for _ = 0, runs do
    local t0 = ipfsrt.clock()
    bench.sh(string.format("curl -s --no-progress-meter --parallel --parallel-max 16 --aws-sigv4 aws:amz:us-east-1:s3 -u %s:%s "
      .. "-H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' -K '%s'", s3.access_key, s3.secret_key, list))
    times[#times + 1] = ipfsrt.clock() - t0
  end
  table.remove(times, 1) -- the warm-up
  return bench.median(times)
end

local scenarios = bench.load_scenarios(o.scenarios)
local ok, results = pcall(bench.run_scenarios, scenarios, backends, { runs = tonumber(o.runs) })
local floor_ok, floor = pcall(curl_floor, tonumber(o.runs))
stop_all()
if not ok then error(results, 0) end
if not floor_ok then error(floor, 0) end

print(string.format("OISST-like sample, %s days, Zarr v2, on a local S3 (s3rver behind a signature-checking "
  .. "front) and ipfsrt serve, 127.0.0.1; medians of %s cold runs", o.days, o.runs))
bench.print_results(scenarios, backends, results)
local ts = results.timeseries
print(string.format("curl --parallel (16), the time series' %s chunks, signed: %.1f ms", o.days, floor * 1000))
if ts then
  print(string.format("  time series: s3:// / curl = %.2f (target <= 1.1); S3-CAR verified / s3:// = %.2f "
    .. "(target <= 1.2)", ts["s3-plain"].median / floor, ts["s3-car-verified"].median / ts["s3-plain"].median))
end
for _, s in ipairs(scenarios) do
  local r = results[s.name]
  print(string.format("  %-12s S3-CAR verified / s3:// = %.2f", s.name, r["s3-car-verified"].median / r["s3-plain"].median))
end
bench.write_json(o.json, results)
