-- ipfsrt.dataset against Debian's xarray (tests/dataset/xarray.py) on the
-- same sample: the same labels, selections, CF-decoded values and reductions.
-- Usage: ipfsrt check.lua DIR XARRAY.json
local ipfsrt = require "ipfsrt"
local full = ipfsrt.dataset.open(arg[1])
local ds = full:isel { zlev = 0 } -- NOAA's layout: one depth, the surface
local want = ipfsrt.json.decode(assert(io.open(arg[2])):read("a"))
local sst = ds.sst
local nd = ipfsrt.ndarray

local compare = dofile((arg[0]:match("^(.*)/") or ".") .. "/compare.lua")
local numbers = compare.numbers

local box = sst:sel { time = "2024-01-05", lat = { 20, 60 }, lon = { 270, 310 } }
local names = {}
for name in pairs(ds.vars) do names[#names + 1] = name end
table.sort(names)
local got = {
  dims = full.dims, vars = names,
  full_box_shape = full.sst:sel { time = "2024-01-05", lat = { 20, 60 }, lon = { 270, 310 } }.shape, dtype = sst:isel { time = 0, lat = 0, lon = 0 }.dtype,
  first_time = ds.time:dates()[1], last_time = ds.time:dates()[ds.dims.time],
  box_shape = box.shape, box_mean = box:mean(), box_sum = box:sum(),
  series = numbers(sst:sel { lat = 35, lon = 285, method = "nearest" }),
  corner = numbers(sst:isel { time = 0, lat = { 100, 103 }, lon = { 0, 4 } }),
  strided = numbers(sst:isel { time = -1, lat = { 600, 700, 25 }, lon = { nil, nil, 360 } }),
  time_mean_sum = sst:isel { time = { 0, 4 } }:mean("time"):values():sum(),
  lat_max = numbers(ds.ice:isel { time = 2 }:max("lon"):values():slice { { 0, 720, 60 } }),
  anom_std = ds.anom:isel { time = 1 }:std(),
  land_fraction = sst:isel { time = 0 }:values():isnan():astype("float64"):mean(),
  attrs_units = sst.attrs.units,
}

local series = sst:sel { lat = 35, lon = 285, method = "nearest" }
local globe = sst:isel { lat = { 0, 720, 90 }, lon = { 0, 1440, 180 } }
got.argmax_series, got.argmin_series = series:argmax(), series:argmin()
got.idxmax_series, got.idxmin_series = series:idxmax(), series:idxmin("time")
got.argmax_box = sst:isel { lat = { 100, 104 }, lon = { 0, 3 } }:argmax("time"):values():reshape { -1 }:tolist()
got.idxmax_globe = globe:idxmax("time"):dates()
got.idxmin_lat = numbers(sst:isel { time = 0, lon = { 0, 1440, 240 } }:idxmin("lat"))

-- v:to_csv's text, for comparing with pandas' byte for byte
local function csv(v)
  local path = os.tmpname()
  v:to_csv(path)
  local text = assert(io.open(path)):read("a")
  os.remove(path)
  return text
end
got.csv_series = csv(sst:sel { lat = 35, lon = 285, method = "nearest" }:isel { time = { 0, 6 } })
got.csv_cube = csv(sst:isel { time = { 0, 3 }, lat = { 100, 103 }, lon = { 0, 2 } })
got.csv_globe = csv(sst:isel { time = 0, lat = { 0, 720, 90 }, lon = { 0, 1440, 180 } })

-- lazy arithmetic, evaluated a slab at a time
local anom = ds.anom
local cell = { lat = { 100, 103 }, lon = { 0, 4 } }
local function with_cell(t)
  for k, v in pairs(cell) do t[k] = v end
  return t
end
local coslat = ds.lat:deg2rad():cos()
got.diff_mean = (sst - anom):mean()
got.fahrenheit_cell = numbers((sst * 1.8 + 32):isel(with_cell { time = 2 }))
local by_name = sst:isel(with_cell { time = { 0, 2 } }) - ds.lat:isel { lat = { 100, 103 } }
local lat_first = ds.lat:isel { lat = { 100, 103 } } + sst:isel(with_cell { time = { 0, 2 } })
got.by_name, got.by_name_dims = numbers(by_name), by_name.dims
got.lat_first, got.lat_first_dims = numbers(lat_first), lat_first.dims
got.sin_lon = numbers(ds.lon:isel { lon = { 0, 1440, 97 } }:deg2rad():sin())
got.weighted_daily = numbers(sst:mean({ "lat", "lon" }, { weights = coslat }))
got.weighted_daily_f64 = got.weighted_daily
got.weighted_sum_lat = numbers(sst:isel { time = 0, lon = { 0, 1440, 120 } }:sum("lat", { weights = coslat }))
got.weighted_land = numbers(sst:isel { time = 0, lat = { 0, 3 }, lon = { 0, 8 } }:mean("lon", { weights = coslat }))
got.median_time = numbers(sst:isel(cell):median("time"))
got.median_day = sst:isel { time = 0 }:median()
got.where_warm = sst:where(sst:gt(25)):mean()
local day_cell = sst:isel(with_cell { time = 0 })
got.where_other = numbers(day_cell:where(day_cell:gt(16), -1))
got.fillna_mean = sst:isel { time = 0 }:fillna(0):mean()
got.expr_std_time_sum = (sst - anom):std("time"):values():sum()
got.expr_sel = (sst - anom):sel { time = "2024-01-03", lat = 35, lon = 285, method = "nearest" }:values()
got.expr_mean_time = numbers((sst * 2 - anom):mean("time"):isel { lat = { 0, 720, 45 }, lon = { 0, 1440, 90 } })
got.no_skipna = numbers(sst:isel { time = 0, lat = { 0, 720, 90 }, lon = { 0, 1440, 180 } }:mean("lon", { skipna = false }))

-- Answers where xarray's order of operations differs from numpy's: its
-- weighted reductions are einsum's dot products, in float32 along a million
-- values (ours are within 1e-6 of the float64 answer: weighted_daily_f64),
-- numpy's float32 sin its own SIMD one.
local APPROX = { weighted_daily = 1e-5, weighted_daily_f64 = 1e-6, weighted_sum_lat = 1e-6, weighted_land = 1e-6,
  expr_std_time_sum = 1e-6, sin_lon = 1e-6 }

local function tolerance(path) return APPROX[path:match("^[^.]+")] or 1e-9 end

-- Lazy expressions evaluated at once, in slabs of one day and of three:
-- the same bits (per-slab reductions, sums accumulated along the slab
-- dimension, extremes, counts, values, and those taken from full values).
local dataset = require "ipfsrt.dataset"
local slab_cases = {
  mean_time = function() return (sst - anom):mean("time") end,
  weighted = function() return sst:mean({ "lat", "lon" }, { weights = coslat }) end,
  sum_time = function() return (sst * 2 - anom):sum("time") end,
  max_time = function() return (sst - anom):max("time") end,
  count_time = function() return (sst - anom):count("time") end,
  mean_time_nan = function() return (sst - anom):mean("time", { skipna = false }) end,
  min_lat = function() return sst:where(sst:gt(20)):min("lat") end,
  median_lon = function() return (sst - anom):median("lon") end,
  values = function() return (sst - anom):values() end,
  mean_all = function() return (sst - anom):mean() end,
  std_time = function() return (sst - anom):std("time") end,
  ice_mean_time = function() return (ds.ice * 1):mean("time") end,
  month_mean = function() return sst:groupby("time.month"):mean():isel { month = 0 } end,
  month_max = function() return sst:groupby("time.month"):max():isel { month = 0 } end,
  anomaly = function() return (sst:groupby("time.month") - sst:groupby("time.month"):mean()):values() end,
}
local function digest(r)
  if type(r) == "number" then return string.format("%a", r) end
  if nd.isarray(r) then return r.dtype .. r:tobytes() end
  local x = r:values()
  return x.dtype .. x:tobytes()
end
local once = {}
local day = 720 * 1440 * 8
for _, size in ipairs { 1 << 50, day, 3 * day + 5 } do
  dataset.SLAB_BYTES = size
  for name, fn in pairs(slab_cases) do
    local d = digest(fn())
    once[name] = once[name] or d
    got["slabs_" .. name] = d == once[name]
  end
end
-- weighted sums in one pass (n-d array weighted_sums) or through the
-- expression where(isnan(x), 0, x * w): the same bits
local arithmetic = require "ipfsrt.dataset.arithmetic"
for _, size in ipairs { 1 << 50, day } do
  dataset.SLAB_BYTES = size
  local one_pass = digest(sst:mean({ "lat", "lon" }, { weights = coslat }))
  local one_pass_sum = digest(sst:sum("lon", { weights = ds.lon * 0 + 1 }))
  arithmetic.generic_weights = true
  local generic = digest(sst:mean({ "lat", "lon" }, { weights = coslat }))
  local generic_sum = digest(sst:sum("lon", { weights = ds.lon * 0 + 1 }))
  arithmetic.generic_weights = false
  got["weights_one_pass_" .. size] = one_pass == generic and one_pass_sum == generic_sum
  want["weights_one_pass_" .. size] = true
end

-- a group's mean, its rows added as the reduction of the whole adds them
got.month_is_time_mean = digest(slab_cases.month_mean()) == digest(sst:mean("time"))
want.month_is_time_mean = true
dataset.SLAB_BYTES = 32 << 20
for name in pairs(slab_cases) do want["slabs_" .. name] = true end

-- results written as Zarr for tests/dataset/readback.py to open with xarray
if arg[3] then -- each result as Zarr and as NetCDF-4, read back by xarray (readback.py)
  os.execute("rm -rf '" .. arg[3] .. "' && mkdir -p '" .. arg[3] .. "'")
  local difference = sst - anom
  local results = {
    { "clim", sst:groupby("time.month"):mean() },
    { "daily", sst:mean({ "lat", "lon" }, { weights = coslat }), { name = "global_mean" } },
    { "pentads", sst:isel { lat = { 300, 310 }, lon = { 0, 6 } }:resample({ time = "5d" }):max() },
    { "difference", difference:isel { time = { 0, 3 } }, { chunks = { 1, 360, 720 } } },
    { "seasons", sst:isel { lat = { 300, 310 }, lon = { 0, 6 } }:groupby("time.season"):mean() },
  }
  for _, r in ipairs(results) do
    local o = r[3] or {}
    r[2]:to_zarr(arg[3] .. "/" .. r[1] .. ".zarr", o)
    r[2]:to_netcdf(arg[3] .. "/" .. r[1] .. ".nc", { name = o.name })
  end
  -- the coordinates a selection leaves: scalar ones, and those along points
  sst:sel { lat = 35, lon = 285, method = "nearest" }:to_netcdf(arg[3] .. "/point.nc")
  sst:sel { lat = ipfsrt.points { 35, 0, -60 }, lon = ipfsrt.points { 285, 200, 30 }, method = "nearest" }
    :to_netcdf(arg[3] .. "/points.nc")
end

local bad, total = 0, 0
for k, v in pairs(want) do
  total = total + 1
  local problem = compare.same(got[k], v, k, tolerance)
  if problem then
    bad = bad + 1
    print("differs from xarray: " .. problem)
  end
end
print(string.format("ipfsrt.dataset agrees with xarray on %d of %d answers", total - bad, total))
os.exit(bad == 0 and 0 or 1)
