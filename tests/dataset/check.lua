-- ipfsrt.dataset against Debian's xarray (tests/dataset/xarray.py) on the
-- same sample: the same labels, selections, CF-decoded values and reductions.
-- Usage: ipfsrt check.lua DIR XARRAY.json
local ipfsrt = require "ipfsrt"
local ds = ipfsrt.dataset.open(arg[1])
local want = ipfsrt.json.decode(assert(io.open(arg[2])):read("a"))
local sst = ds.sst

local function list(a)
  local out = {}
  for i, x in ipairs(a:astype("float64"):reshape { -1 }:tolist()) do out[i] = x == x and x or ipfsrt.null end
  return out
end
local function values(v) return list(v:values()) end

local box = sst:sel { time = "2024-01-05", lat = { 20, 60 }, lon = { 270, 310 } }
local names = {}
for name in pairs(ds.vars) do names[#names + 1] = name end
table.sort(names)
local got = {
  dims = ds.dims, vars = names, dtype = sst:isel { time = 0, lat = 0, lon = 0 }:values().dtype,
  first_time = ds.time:dates()[1], last_time = ds.time:dates()[ds.dims.time],
  box_shape = box.shape, box_mean = box:mean(), box_sum = box:sum(),
  series = values(sst:sel { lat = 35, lon = 285, method = "nearest" }),
  corner = values(sst:isel { time = 0, lat = { 100, 103 }, lon = { 0, 4 } }),
  strided = values(sst:isel { time = -1, lat = { 600, 700, 25 }, lon = { nil, nil, 360 } }),
  time_mean_sum = sst:isel { time = { 0, 4 } }:mean("time"):values():sum(),
  lat_max = list(ds.ice:isel { time = 2 }:max("lon"):values():slice { { 0, 720, 60 } }),
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
got.idxmin_lat = values(sst:isel { time = 0, lon = { 0, 1440, 240 } }:idxmin("lat"))

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

local function same(a, b, path)
  if type(a) == "number" and type(b) == "number" then
    if a ~= b and math.abs(a - b) > 1e-9 * math.max(1, math.abs(b)) then return path .. ": " .. a .. " vs " .. b end
    return nil
  end
  if type(a) == "table" and type(b) == "table" then
    for k, v in pairs(b) do
      local p = same(a[k], v, path .. "." .. tostring(k))
      if p then return p end
    end
    for k in pairs(a) do if b[k] == nil then return path .. "." .. tostring(k) .. ": not in xarray's" end end
    return nil
  end
  if a ~= b then return path .. ": " .. tostring(a) .. " vs " .. tostring(b) end
end

local bad, total = 0, 0
for k, v in pairs(want) do
  total = total + 1
  local problem = same(got[k], v, k)
  if problem then
    bad = bad + 1
    print("differs from xarray: " .. problem)
  end
end
print(string.format("ipfsrt.dataset agrees with xarray on %d of %d answers", total - bad, total))
os.exit(bad == 0 and 0 or 1)
