-- The main job on built-in sample data (`make demo`): an OISST-like dataset
-- published through two local gateways, one honest and one that tampers with
-- blocks and sends wrong ones; the benchmark scenarios read it verified under
-- the `trust` policy, beside plain HTTP and the local folder; the liar is
-- caught and every value read equals the folder's; then a short analysis and
-- pictures: the day's SST as a PNG colour map, the time series and the
-- benchmark as SVG; the same answers from the same data as NOAA publishes it
-- (a NetCDF-4 file a day, read through kerchunk references); then xarray
-- reading it through `ipfsrt serve --upstream` in front of both gateways, the
-- liar's blocks refused. Last, the dataset grows by a day as a publisher
-- grows it: NOAA's next file appended as a new version, whose delta CAR is
-- served beside the old CAR and published under an IPNS name; the new day read
-- verified through that name; what changed named.
-- Usage: ipfsrt scripts/demo.lua [--days T=60] [--runs N=3] [--dir build/demo]
-- (IPFSRT_EXE names the executable that generates the sample, default build/ipfsrt)
local ipfsrt = require "ipfsrt"
-- the benchmarks' helpers and charts (scripts/bench/lib), not part of the library
package.path = (arg[0]:match("^(.*)/") or ".") .. "/bench/lib/?.lua;" .. package.path
local bench = require "bench"
local svg = require "svg"

local o = { days = "60", runs = "3", dir = "build/demo" }
for i = 1, #arg, 2 do o[(arg[i]:gsub("^%-%-", ""))] = arg[i + 1] end
local exe = os.getenv("IPFSRT_EXE") or "build/ipfsrt"
local sample = string.format("%s/oisst-%s", o.dir, o.days)
local car = sample .. ".car"

local function say(fmt, ...) io.stdout:write(string.format(fmt, ...), "\n") end

-- 1. the sample, made once and kept
if not io.open(sample .. ".root") then
  say("making the OISST-like sample (%s days) in %s ...", o.days, sample)
  bench.sh(string.format("mkdir -p '%s'", o.dir))
  local root = bench.sh(string.format("%s scripts/sample/oisst.lua '%s' --days %s --car '%s' --netcdf '%s-nc' 2>/dev/null",
    exe, sample, o.days, car, sample)):match("(%S+)%s*$")
  local f = assert(io.open(sample .. ".root", "w"))
  f:write(root)
  f:close()
end
local root = io.open(sample .. ".root"):read("l")
say("dataset ipfs://%s (%s days of sst, anom, err, ice; %s)", root, o.days, car)
local _, nc_car, nc_root = bench.netcdf_sample(exe, sample)
say("the same as daily NetCDF-4 files with their references: ipfs://%s (%s)", nc_root, nc_car)

-- 2. two gateways on 127.0.0.1: one honest, one lying
local honest <close> = ipfsrt.serve { cars = { car, nc_car } }
local liar <close> = ipfsrt.serve { cars = { car, nc_car }, faults = { tamper = 0.3, wrong_block = 0.2, seed = 7 } }
say("gateways: %s (honest), %s (tampers with 30 %% of answers, sends wrong blocks in 20 %%)", honest:url(), liar:url())

-- 3. the scenarios: verified through both gateways under `trust` (the Zarr form,
-- and the NetCDF form through its references), plain HTTP, the folder
local caught, log = 0, {}
local function trusted_client()
  return ipfsrt.client { gateways = { liar:url(), honest:url() }, policy = "trust", concurrency = 16,
    log = function(line) log[#log + 1] = line end }
end
local backends = {
  { name = "ipfs-verified", context = function()
      local c = trusted_client()
      return { open = function() return ipfsrt.dataset.open("ipfs://" .. root, { client = c }) end,
        close = function()
          caught = caught + c:stats()[1].verify_failures
          c:close()
        end }
    end },
  { name = "refs-verified", context = function() -- the NetCDF form through its references
      local c = trusted_client()
      return { open = function() return ipfsrt.dataset.open("ipfs://" .. nc_root .. "/refs.json", { client = c }) end,
        close = function()
          caught = caught + c:stats()[1].verify_failures
          c:close()
        end }
    end },
  { name = "http-plain", context = function()
      return { open = function() return ipfsrt.dataset.open(honest:url() .. "/ipfs/" .. root) end }
    end },
  { name = "folder", context = function() return { open = function() return ipfsrt.dataset.open(sample) end } end },
}
local scenarios = bench.load_scenarios("scripts/bench/scenarios")
say("\nrunning %d scenarios x %d backends, %s cold runs each ...", #scenarios, #backends, o.runs)
local results = bench.run_scenarios(scenarios, backends, { runs = tonumber(o.runs) })
bench.print_results(scenarios, backends, results)
local same = true
for _, s in ipairs(scenarios) do
  for _, b in ipairs(backends) do same = same and results[s.name][b.name].digest == results[s.name].folder.digest end
end
say("\nthe liar was caught: %d of its blocks failed verification and were fetched again from the honest one",
  caught)
local quarantined = 0
for _, line in ipairs(log) do if line:find(liar:url(), 1, true) then quarantined = quarantined + 1 end end
say("the trust policy reported it %d times (first: %s)", quarantined, log[1] or "-")
say("every value read through the gateways equals the local folder's: %s", same and "yes" or "NO")
if caught == 0 or not same then error("the demo did not go as it must: liar not caught or values differ", 0) end

-- 4. an analysis, read verified through the same two gateways
local c <close> = trusted_client()
local ds = ipfsrt.dataset.open("ipfs://" .. root, { client = c })
local sst = ds.sst:isel { zlev = 0 } -- NOAA's layout has a depth dimension of one (the surface): taken away
local dates = ds.time:dates()
local day = dates[math.min(60, #dates)]
local date = day:sub(1, 10) -- the day, its time of day (noon, as NOAA's) left out of the text
local box = sst:sel { time = day, lat = { 20, 60 }, lon = { 270, 310 } }
say("\nmean SST of the Gulf Stream box (20-60 N, 270-310 E) on %s: %.2f %s", date, box:mean(), sst.attrs.units)
local field = sst:sel { time = day }:values()
local at = field:argmax()
local lats, lons = ds.lat:values():tolist(), ds.lon:values():tolist()
local i, j = at // #lons, at % #lons
-- A place as people write it: 0.375 S, 74.875 W (longitudes stored 0..360).
local function place(lat, lon)
  lon = (lon + 180) % 360 - 180
  return string.format("%.3f %s, %.3f %s", math.abs(lat), lat < 0 and "S" or "N", math.abs(lon), lon < 0 and "W" or "E")
end
say("warmest point that day: %.2f %s at %s", field:max(), sst.attrs.units, place(lats[i + 1], lons[j + 1]))
local series = sst:sel { lat = 35, lon = 285, method = "nearest" }:values()
local list = series:tolist()
local lo, hi = series:argmin(), series:argmax()
say("time series at 35 N, 285 E over %d days: %.2f on %s to %.2f on %s (annual cycle, weather on top)", #list,
  list[lo + 1], dates[lo + 1]:sub(1, 10), list[hi + 1], dates[hi + 1]:sub(1, 10))

-- The same answers from the NetCDF form: the daily files' chunks read through
-- the references made by `ipfsrt refs --concat time`, verified through the same
-- two gateways.
local nc_sst = ipfsrt.dataset.open("ipfs://" .. nc_root .. "/refs.json", { client = c }).sst:isel { zlev = 0 }
local nc_box = nc_sst:sel { time = day, lat = { 20, 60 }, lon = { 270, 310 } }
local nc_list = nc_sst:sel { lat = 35, lon = 285, method = "nearest" }:values():tolist()
local same_nc = nc_box:mean() == box:mean() and nc_sst:sel { time = day }:values():max() == field:max() and
  #nc_list == #list
for k = 1, #list do same_nc = same_nc and (nc_list[k] == list[k] or (nc_list[k] ~= nc_list[k] and list[k] ~= list[k])) end
say("from the %d daily NetCDF-4 files through refs.json: box mean %.2f, warmest %.2f, the time series: the same "
  .. "answers: %s", #nc_list, nc_box:mean(), nc_sst:sel { time = day }:values():max(), same_nc and "yes" or "NO")
if not same_nc then error("the demo did not go as it must: the NetCDF form's answers differ from the Zarr form's", 0) end

-- 5. pictures
local png = o.dir .. "/sst-" .. date .. ".png"
ipfsrt.plot.map(sst:sel { time = day }, { path = png, vmin = -2, vmax = 32, cmap = "ocean",
  title = "Sea surface temperature, " .. date .. " (read verified from IPFS)" })
local ts_svg, bench_svg = o.dir .. "/timeseries.svg", o.dir .. "/benchmark.svg"
local point = sst:sel { lat = 35, lon = 285, method = "nearest" }
ipfsrt.plot.line({ point, point:rolling({ time = 7, center = true }):mean() }, { path = ts_svg,
  title = "SST at 35 N, 285 E (read verified from IPFS)", labels = { "daily", "7-day mean" } })
local groups, series_names = {}, {}
for _, s in ipairs(scenarios) do groups[#groups + 1] = s.name end
for _, b in ipairs(backends) do series_names[#series_names + 1] = b.name end
local f = assert(io.open(bench_svg, "w"))
f:write(svg.bars { title = "scenarios, median ms (log scale), " .. o.days .. " days", unit = "ms", log = true,
  groups = groups, series = series_names, value = function(g, s) return results[g][s].median * 1000 end })
f:close()
say("\npictures: %s (SST colour map, land grey), %s, %s", png, ts_svg, bench_svg)

-- 6. any tool, verified: xarray (unchanged) through `ipfsrt serve --upstream` in
-- front of the liar and the honest gateway
say("\nxarray + fsspec through ipfsrt serve --upstream (the liar first, then the honest one) ...")
local proxy, stop_proxy = bench.start_serve(exe, { "--upstream", liar:url(), "--upstream", honest:url(),
  "--policy", "failover", "-v" })
local py = bench.sh(string.format("/usr/bin/python3 scripts/examples/xarray_through_proxy.py %s %s '%s' 2>&1",
  proxy, root, sample))
local report = stop_proxy()
local r = ipfsrt.json.decode(py:match("{.*}") or "{}")
local refused = tonumber(report:match(liar:url():gsub("%p", "%%%0") .. ": .-(%d+) verification failures")) or 0
say("xarray read %d values through the proxy, each equal to the folder's: %s; the proxy refused %d of the liar's blocks",
  r.values or 0, r.same and "yes" or "NO", refused)
if not r.same or refused == 0 then error("the demo did not go as it must: through the proxy " .. py .. report, 0) end

-- 7. the next day, published as a delta: NOAA's file for it appended to the
-- CAR (with the settings the sample was packed with: ipfs-car's, the default),
-- the delta served beside the old CAR, the new root published under an IPNS
-- name and read through it, verified
local n = math.tointeger(tonumber(o.days))
local next_dir = sample .. "-next"
say("\nthe next day: NOAA's file for day %d appended as a new version ...", n + 1)
bench.sh(string.format("%s scripts/sample/oisst.lua '%s' --days 1 --from %d --netcdf '%s-nc' 2>/dev/null", exe,
  next_dir, n, next_dir))
local next_nc = bench.sh(string.format("ls '%s-nc'/*.nc", next_dir)):match("(%S+)")
local delta = sample .. "-next.delta.car"
-- the publisher's key (made once): the new version is published under its IPNS name
local keystore, key = o.dir .. "/keys", "oisst-daily"
if not pcall(ipfsrt.name.key, key, { keystore = keystore }) then ipfsrt.name.keygen(key, { keystore = keystore }) end
local ipns_name = ipfsrt.name.key(key, { keystore = keystore }):name()
local t_append = ipfsrt.clock()
local new_root = bench.sh(string.format("%s zarr append '%s' '%s' --dim time -o '%s' --force --publish %s " ..
  "--keystore '%s' -q", exe, car, next_nc, delta, key, keystore)):match("(%S+)%s*$")
t_append = ipfsrt.clock() - t_append
local function size(path) local f <close> = assert(io.open(path, "rb")); return f:seek("end") end
say("new root ipfs://%s in %.1f s: the delta %s holds %.2f MB (the old CAR %.0f MB)", new_root, t_append, delta,
  size(delta) / 1e6, size(car) / 1e6)
-- the gateway serves both CARs and the records beside them; the reader knows only the name
local both = ipfsrt.serve { cars = { car, delta }, ipns_records = o.dir }
local grown = ipfsrt.dataset.open("ipns://" .. ipns_name, { gateways = { both:url() } })
local dates = grown.time:dates()
local new_day = grown.sst:isel { time = n, zlev = 0 }
local from_nc = ipfsrt.dataset.open(next_dir .. "-nc/refs.json").sst:isel { time = 0, zlev = 0 }
local equal = new_day:values():eq(from_nc:values()) | new_day:values():isnan()
say("published as ipns://%s; opened by that name (its signed record verified, then every block) from the " ..
  "gateway serving both CARs: %d days, the last %s, its mean SST %.2f %s; equal to NOAA's file: %s", ipns_name,
  #dates, dates[#dates], new_day:mean(), grown.sst.attrs.units, equal:all() and "yes" or "NO")
both:stop()
if not equal:all() or #dates ~= n + 1 then error("the demo did not go as it must: the new day", 0) end
say("ipfsrt diff %s %s:", car, delta)
io.stdout:write(bench.sh(string.format("%s diff '%s' '%s'", exe, car, delta)))

-- 8. what to try next, with this sample's root (README.md, "The first five minutes")
local gw = "http://127.0.0.1:8473"
say("\nnext, explore the sample yourself:")
say("  %s serve %s %s --listen 127.0.0.1:8473 &", exe, car, nc_car)
say("  %s zarr info ipfs://%s --gateway %s", exe, root, gw)
say("  %s zarr get ipfs://%s sst --sel time=2024-02-29,lat=35.125,lon=285.125 --gateway %s", exe, root, gw)
say("  %s zarr info ipfs://%s/refs.json --gateway %s   (the daily NetCDF-4 files)", exe, nc_root, gw)
say("  and from Lua: ipfsrt.dataset.open(\"ipfs://%s\", { gateways = { \"%s\" } })", root, gw)
say("  and from Python (xarray, verified in process): PYTHONPATH=%spython /usr/bin/python3 " ..
  "scripts/examples/xarray_in_process.py %s %s %s", exe:gsub("ipfsrt$", ""), root, gw, sample)
say("  the grown version: %s serve %s %s --ipns-records %s --listen 127.0.0.1:8474 &, then ipns://%s (or ipfs://%s)",
  exe, car, delta, o.dir, ipns_name, new_root)
