-- Benchmark: the dataset scenarios of scripts/bench/scenarios/ (open, spatial,
-- time series, full field, bulk: the patterns of the published OISST-on-IPFS
-- benchmark) over three backends against one local `ipfsrt serve` of the
-- OISST-like sample: verified ipfs://, unverified plain gateway HTTP, and the
-- local folder as the floor. Each repetition opens afresh with a cold default
-- client; medians, with a check that every backend read the same values. The
-- gateway answers after each delay listed (`serve --delay MS`: public gateways
-- are 10 to 100 ms away); the JSON and SVG show the first delay's.
-- Usage: ipfsrt scripts/bench/datasets.lua [--days T=366] [--format 2|3] [--runs N=5]
--        [--json FILE] [--svg FILE] [--dir build/bench] [--scenarios DIR] [--delays 0,10,50]
-- (IPFSRT_EXE names the executable that serves and generates, default build/ipfsrt)
local ipfsrt = require "ipfsrt"
-- the benchmarks' helpers beside this script (scripts/bench/lib), not part of the library
package.path = (arg[0]:match("^(.*)/") or ".") .. "/lib/?.lua;" .. package.path
local bench = require "bench"
local svg = require "svg"

local o = { days = "366", format = "2", runs = "5", dir = "build/bench", scenarios = "scripts/bench/scenarios",
  delays = "0,10,50" }
for i = 1, #arg, 2 do o[(arg[i]:gsub("^%-%-", ""))] = arg[i + 1] end
local exe = os.getenv("IPFSRT_EXE") or "build/ipfsrt"
local sample, car, root = bench.sample(exe, o.dir, o.days, o.format)
local scenarios = bench.load_scenarios(o.scenarios)

-- The backends, against the gateway at that URL.
local function backends_for(gateway)
  return {
    { name = "ipfs-verified", context = function()
        local c = ipfsrt.client { gateways = { gateway } }
        return { open = function() return ipfsrt.dataset.open("ipfs://" .. root, { client = c }) end,
          close = function() c:close() end }
      end },
    { name = "http-plain", context = function()
        return { open = function() return ipfsrt.dataset.open(gateway .. "/ipfs/" .. root) end }
      end },
    { name = "folder", context = function()
        return { open = function() return ipfsrt.dataset.open(sample) end }
      end },
  }
end

local first, backends
for d in o.delays:gmatch("%d+") do
  local delay = tonumber(d)
  local gateway = bench.serve(exe, { car }, o.dir, delay > 0 and "--delay " .. delay or "")
  backends = backends_for(gateway)
  local ok, results = pcall(bench.run_scenarios, scenarios, backends, { runs = tonumber(o.runs) })
  bench.sh(string.format("kill $(cat %s/serve.pid)", o.dir))
  if not ok then error(results, 0) end
  print(string.format("\nOISST-like sample, %s days, Zarr v%s, from ipfsrt serve on 127.0.0.1 answering after %d ms; "
    .. "medians of %s cold runs", o.days, o.format, delay, o.runs))
  bench.print_results(scenarios, backends, results)
  for _, s in ipairs(scenarios) do
    local r = results[s.name]
    print(string.format("  %-12s verified / plain = %.2f", s.name, r["ipfs-verified"].median / r["http-plain"].median))
  end
  first = first or { delay = delay, results = results }
end
local results = first.results
bench.write_json(o.json, results)
if o.svg then
  local groups, series = {}, {}
  for _, s in ipairs(scenarios) do groups[#groups + 1] = s.name end
  for _, b in ipairs(backends) do series[#series + 1] = b.name end
  local f = assert(io.open(o.svg, "w"))
  f:write(svg.bars { title = string.format("ipfsrt: OISST-like sample, %s days, gateway %d ms away (median ms, log scale)",
      o.days, first.delay), unit = "ms",
    groups = groups, series = series, log = true,
    value = function(g, s) return results[g][s].median * 1000 end })
  f:close()
end
