-- The analysis toolkit's second pass against Debian's xarray
-- (tests/dataset/toolkit.py): every case described alike (dims, shape,
-- dtype, values, coordinates) or refused where xarray refuses.
-- Usage: ipfsrt toolkit_check.lua DIR XARRAY.json
local ipfsrt = require "ipfsrt"
local full = ipfsrt.dataset.open(arg[1])
local ds = full:isel { zlev = 0 }
local want = ipfsrt.json.decode(assert(io.open(arg[2])):read("a"))
local sst = ds.sst
local compare = dofile((arg[0]:match("^(.*)/") or ".") .. "/compare.lua")
local list, points = ipfsrt.list, ipfsrt.points

-- Values as xarray's describe gives them: dates for times, else numbers.
local function values_of(v)
  if v.attrs.units and tostring(v.attrs.units):find(" since ") and v.ndim <= 1 then return v:dates() end
  return compare.numbers(v:_values_array())
end

local function describe(v)
  if type(v) == "number" then return { values = { v == v and v or ipfsrt.null } } end
  if ipfsrt.ndarray.isarray(v) then return { values = compare.numbers(v) } end
  if type(v) == "string" then return { label = v } end
  if getmetatable(v) ~= require("ipfsrt.dataset").Variable then
    local out = {}
    for k, x in pairs(v) do out[k] = describe(x) end
    return { dict = out }
  end
  local coords = {}
  for name, c in pairs(v.coords) do coords[name] = { dims = c.dims, values = values_of(c) } end
  return { dims = v.dims, shape = v.shape, dtype = v.dtype, values = values_of(v), coords = coords }
end

local box = sst:isel { time = { 0, 6 }, lat = { 100, 106 }, lon = { 0, 5 } }
local computed = box:mean("time")
local CASES = {
  list_nearest = function() return sst:sel { lat = list { 35, 0, -60 }, lon = list { 285, 200, 30 }, method = "nearest" } end,
  points_nearest = function()
    return sst:sel { lat = points { 35, 0, -60 }, lon = points { 285, 200, 30 }, method = "nearest" }
  end,
  isel_lists = function() return sst:isel { time = list { 3, 1, 3 }, lat = list { 500, 100 }, lon = 7 } end,
  isel_points_named = function()
    return sst:isel { lat = points({ 500, 100, 20 }, "station"), lon = points({ 7, 900, 1400 }, "station"),
      time = { 2, 5 } }
  end,
  scalar_nearest = function() return sst:sel { lat = 35, lon = 285, method = "nearest" } end,
  tolerance_met = function() return sst:sel { lat = 35.3, method = "nearest", tolerance = 0.2 }:isel { lon = { 0, 3 } } end,
  tolerance_missed = function() return sst:sel { lat = 35.3, method = "nearest", tolerance = 0.01 } end,
  time_list_nearest = function()
    return sst:sel { time = list { "2024-01-03", "2024-01-01" }, method = "nearest", tolerance = "1D" }
      :isel { lat = 300, lon = { 0, 2 } }
  end,
  time_list_exact_missing = function() return sst:sel { time = list { "2024-01-03", "2024-01-01" } } end,
  list_then_label = function()
    return sst:sel { lat = list { 35, 0 }, method = "nearest" }:sel { lat = 0.125 }:isel { lon = { 0, 3 } }
  end,
  list_then_range = function()
    return sst:sel { lat = list { -60, 0, 35 }, method = "nearest" }:sel { lat = { -10, 40 } }:isel { lon = 0 }
  end,
  computed_list = function() return computed:isel { lat = list { 5, 0, 5 } } end,
  computed_points = function() return computed:isel { lat = points { 1, 2 }, lon = points { 4, 0 } } end,
  points_mismatched = function() return sst:sel { lat = points { 0.125, 0.375 }, lon = points { 0.125, 0.375, 0.625 } } end,
  points_on_a_dimension = function() return sst:isel { lat = points({ 1, 2 }, "time") } end,
  method_with_range = function() return sst:sel { lat = { 0, 10 }, method = "nearest" } end,
  dataset_points = function()
    return ds:sel { lat = points { 35, 0 }, lon = points { 285, 200 }, method = "nearest" }.anom
  end,
}

local METHODS = { "linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf", "averaged_inverted_cdf",
  "closest_observation", "interpolated_inverted_cdf", "hazen", "weibull", "median_unbiased", "normal_unbiased" }
local ordered = require "ipfsrt.dataset.ordered"
local grid = sst:isel { lat = { 0, 720, 7 }, lon = { 0, 1440, 9 } }
local series = sst:sel { lat = 35, lon = 285, method = "nearest" }
-- a column of a few MB: the time reductions read column after column
local function in_columns(f)
  return function()
    local was = ordered.ORDER_BYTES
    ordered.ORDER_BYTES = 1 << 20
    local ok, r = pcall(f)
    ordered.ORDER_BYTES = was
    if not ok then error(r, 0) end
    return r
  end
end
CASES.quantile_time = function() return grid:quantile(0.9, "time") end
CASES.quantile_time_columns = in_columns(function() return grid:quantile(0.9, "time"):isel {} end)
CASES.quantile_all = function() return box:quantile(0.3) end
CASES.quantile_lat_lon = function() return box:quantile({ 0.25, 0.75 }, { "lat", "lon" }) end
CASES.quantile_no_skipna = function() return box:quantile(0.5, "time", { skipna = false }) end
CASES.quantile_bad_q = function() return box:quantile(1.5, "time") end
CASES.quantile_bad_method = function() return box:quantile(0.5, "time", { method = "average" }) end
CASES.median_time = function() return grid:median("time") end
CASES.median_time_columns = in_columns(function() return grid:median("time") end)
CASES.sort_series = function() return series:sort() end
CASES.argsort_box = function() return box:argsort("lon") end
for _, m in ipairs(METHODS) do
  CASES["quantile_" .. m] = function() return box:quantile({ 0.1, 0.5, 0.95 }, "time", { method = m }) end
end

local dataset = require "ipfsrt.dataset"
CASES.argmax_all = function() return sst:argmax { "time", "lat", "lon" } end
CASES.argmax_all_folded = function()
  local was = dataset.FOLD_BYTES
  dataset.FOLD_BYTES = 1 << 20 -- located chunk by chunk as read
  local ok, r = pcall(sst.argmax, sst, { "lon", "time", "lat" })
  dataset.FOLD_BYTES = was
  if not ok then error(r, 0) end
  return r
end
CASES.argmin_all = function() return sst:argmin { "time", "lat", "lon" } end
CASES.argmax_lat_lon = function() return sst:argmax { "lat", "lon" } end
CASES.argmin_time_lon = function() return box:argmin { "time", "lon" } end
CASES.idxmax_all = function() return sst:idxmax { "time", "lat", "lon" } end
CASES.idxmin_lat_lon = function() return sst:idxmin { "lat", "lon" } end
CASES.argmax_land = function() return sst:isel { lat = 0, lon = 0 }:argmax() end

local ocean = sst:isel { lat = { 500, 512 }, lon = { 40, 52 } }
local olat, olon = ocean.lat:values(), ocean.lon:values()
CASES.squeeze_all = function() return sst:sel { time = "2024-01-05" }:isel { lat = { 0, 2 }, lon = { 0, 3 } }:squeeze() end
CASES.squeeze_named = function() return sst:isel { time = { 0, 1 }, lat = { 0, 2 }, lon = { 5, 6 } }:squeeze("lon") end
CASES.squeeze_refused = function() return sst:squeeze("lat") end
CASES.diff_time = function() return series:diff("time") end
CASES.diff_twice_lower = function() return box:diff("lon", 2, { label = "lower" }) end
CASES.cumsum_time = function() return box:cumsum("time") end
CASES.cumsum_no_skipna = function() return box:cumsum("lat", { skipna = false }) end
CASES.cumsum_int = function() -- int16 as stored: int64 sums
  local stored = ipfsrt.dataset.open(arg[1], { decode = false })
  return stored.sst:isel { zlev = 0, time = 0, lat = { 500, 503 }, lon = { 0, 4 } }:cumsum("lon")
end
CASES.shift_time = function() return box:shift { time = 2 } end
CASES.shift_back = function() return box:shift { lat = -1, lon = 3 } end
CASES.interp_linear = function()
  return ocean:isel { time = 0 }:interp { lat = olat:get(3) + 0.1, lon = { olon:get(2) + 0.05, olon:get(7) - 0.2 } }
end
CASES.interp_outside = function() return ocean:isel { time = 0 }:interp { lat = list { -95.0, olat:get(1) } } end
CASES.interp_nearest_time = function()
  return ocean:isel { lat = 3, lon = 4 }:interp { time = list { "2024-01-02T06:00", "2024-01-05" }, method = "nearest" }
end
CASES.interp_time_linear = function()
  return ocean:isel { lat = 3, lon = { 0, 3 } }:interp { time = list { "2024-01-02T06:00", "2024-01-09T18:00" } }
end
CASES.coarsen_mean = function() return ocean:coarsen { lat = 4, lon = 3 }:mean() end
CASES.coarsen_trim_max = function() return series:coarsen { time = 3, boundary = "trim" }:max() end
CASES.coarsen_pad_sum = function() return ocean:isel { time = 0 }:coarsen { lat = 5, boundary = "pad" }:sum() end
CASES.coarsen_std = function() return ocean:coarsen { time = 2, lat = 2 }:std() end
CASES.coarsen_median = function() return ocean:coarsen { lon = 4 }:median() end
CASES.coarsen_not_whole = function() return series:coarsen { time = 3 }:mean() end

local spread_lats, spread_lons = {}, {}
for i = 1, 40 do spread_lats[i], spread_lons[i] = -80 + 4 * i, (37 * i) % 360 end
local function spread() return sst:sel { lat = points(spread_lats), lon = points(spread_lons), method = "nearest" } end
CASES.points_spread = spread
CASES.points_spread_batched = function() -- read a few boxes at a time
  local gather = require "ipfsrt.dataset.gather"
  local was = gather.BYTES_PER_READ
  gather.BYTES_PER_READ = 1 << 16
  local ok, r = pcall(function()
    local v = spread()
    v:_values_array() -- read now, in boxes of at most 64 KiB a call
    return v
  end)
  gather.BYTES_PER_READ = was
  if not ok then error(r, 0) end
  return r
end

local warm = ocean:where(ocean:gt(ocean:isel { time = 0, lat = 0, lon = 0 }:item()))
local land = sst:isel { lat = { 0, 3 }, lon = { 0, 2 } }
CASES.polyfit_time = function() return box:polyfit("time", 1, { full = true }) end
CASES.polyfit_deg2 = function() return ocean:polyfit("time", 2) end
CASES.polyfit_gaps = function() return warm:polyfit("time", 1, { full = true }) end
CASES.polyfit_land = function() return land:polyfit("time", 1, { full = true }) end
CASES.polyfit_lon = function() return ocean:isel { time = 0 }:polyfit("lon", 3, { full = true }) end
CASES.time_in_days = function() return ds.time:values { units = "days since 2024-01-01" } end
CASES.time_in_hours = function() return ds.time:values { units = "hours since 1970-01-01" } end

local failures, names = 0, {}
for name in pairs(want) do names[#names + 1] = name end
table.sort(names)
for name, _ in pairs(CASES) do
  if want[name] == nil then failures = failures + 1; print("not in xarray's answers: " .. name) end
end
for _, name in ipairs(names) do
  local case, w = CASES[name], want[name]
  local problem
  if not case then problem = "no such case here"
  else
    local ok, got = pcall(function() return describe(case()) end)
    if w.error then
      if ok then problem = "xarray refuses (" .. w.error .. ": " .. w.message .. "), ipfsrt did not"
      elseif not (ipfsrt.error.is(got) and (got.code == "bad_argument" or got.code == "not_found")) then
        problem = "refused with no error value (a bug, not a refusal): " .. tostring(got)
      elseif os.getenv("TOOLKIT_VERBOSE") then print(name .. ": " .. tostring(got)) end
    elseif not ok then problem = "ipfsrt refused: " .. tostring(got)
    else problem = compare.same(got, w, name, 1e-6) end
  end
  if problem then failures = failures + 1; print("DIFFERS " .. name .. ": " .. problem) end
end
print(string.format("toolkit: %d of %d cases as xarray's", #names - failures, #names))
os.exit(failures == 0 and 0 or 1)
