-- A deterministic sample shaped like NOAA OISST v2.1 as published on IPFS: a
-- Zarr group with sst, anom, err and ice, each int16 (time, lat, lon) =
-- (T, 720, 1440) in chunks of (1, 360, 360) with zstd, CF attributes
-- (scale_factor 0.01, add_offset 0, _FillValue -999, units, long_name), the
-- coordinates time (days since 1978-01-01, from 2024-01-01), lat and lon, land
-- (about 26 % of the cells) filled, ice only poleward of 55 degrees, fields
-- smooth enough to compress about 7x. Made with n-d array operations, a batch
-- of days at a time.
-- Usage: ipfsrt scripts/sample/oisst.lua OUT_DIR [--days T=366] [--format 2|3]
--        [--car OUT.car]   (the CAR with ipfs-car's layout; prints its root CID)
--        [--netcdf NC_DIR] (the same data as NOAA publishes OISST: a NetCDF-4
--                           file a day, by oisst_netcdf.py with Debian's
--                           python3-netcdf4, and NC_DIR/refs.json joining them
--                           along time, as `ipfsrt refs --concat time` does)
local ipfsrt = require "ipfsrt"
local nd = ipfsrt.ndarray

local args, out = {}, nil
do
  local i = 1
  while i <= #arg do
    if arg[i]:match("^%-%-") then
      args[arg[i]:sub(3)] = arg[i + 1]
      i = i + 2
    else
      out = arg[i]
      i = i + 1
    end
  end
end
assert(out, "usage: ipfsrt scripts/sample/oisst.lua OUT_DIR [--days T] [--format 2|3] [--car OUT.car]")
local days = math.tointeger(tonumber(args.days or "366"))
local format = math.tointeger(tonumber(args.format or "2"))
assert(days and days > 0 and (format == 2 or format == 3), "--days is a count, --format 2 or 3")
assert(not args.netcdf or format == 2, "--netcdf is made from the Zarr v2 form (--format 2)")
local NLAT, NLON, BATCH = 720, 1440, 8
local FIRST_DAY = 16801 -- 2024-01-01 in days since 1978-01-01

local t0 = ipfsrt.clock()
os.execute("rm -rf '" .. out .. "'")

-- ---------------------------------------------------------------- fields

local LAT = nd.linspace(-89.875, 89.875, NLAT):reshape { NLAT, 1 }
local LON = nd.linspace(0.125, 359.875, NLON):reshape { 1, NLON }

local function bump(la, lo, wa, wo) -- a smooth blob; longitudes wrap
  local dlon = ((LON - lo + 180) % 360) - 180
  return ((((LAT - la) / wa) ^ 2 + (dlon / wo) ^ 2) * -1):exp()
end

-- continents as blobs, Antarctica south of 68 S
local continents = bump(48, 260, 16, 24) + bump(-15, 300, 18, 11) + bump(5, 20, 22, 19) + bump(50, 85, 17, 50) +
  bump(-25, 135, 10, 14) + bump(72, 318, 8, 12) + bump(64, 110, 9, 40)
local land = continents:gt(0.3) | (LAT:lt(-68) + LON * 0):gt(0)
-- a climatology: warm tropics, cold poles, the Gulf Stream warmer than its latitude
local base = ((LAT / 38) ^ 2 * -1):exp() * 30 - 1.8 + bump(37, 290, 5, 14) * 4
local seasonal = (LAT / 45) * (((LAT:abs() - 40) / 25) ^ 2 * -1):exp() * 4 -- NH warm in summer

-- "weather": seeded noise in [-1, 1), coarse (eddies of 2 degrees) plus a little fine grain
local function seeded(n, shape, seed)
  local x, bytes = seed, {}
  for i = 1, n do
    x = (x * 1103515245 + 12345) & 0x7fffffff
    bytes[i] = string.char(x >> 23)
  end
  return nd.frombytes(table.concat(bytes), "uint8", shape):astype("float64") / 128 - 1
end
local noise
do
  local coarse = seeded(90 * 180, { 90, 1, 180, 1 }, 12345)
  local eddies = (coarse + nd.zeros { 1, 8, 1, 8 }):reshape { NLAT, NLON }
  noise = eddies + seeded(NLAT * NLON, { NLAT, NLON }, 777) * 0.025
end

local function rolled(day)
  local k = (day * 37) % NLON
  if k == 0 then return noise end
  return nd.concat({ noise:slice { nil, { k, nil } }, noise:slice { nil, { 0, k } } }, 1)
end

local FILL = -999
local function packed(x) -- degrees (or percent) to int16 hundredths, land filled
  return nd.where(land, FILL, (x * 100):round()):astype("int16")
end

-- day d (0-based): the four variables as int16 fields
local function day_fields(d)
  local cycle = math.cos(2 * math.pi * (d - 220) / 365.25)
  local clim = base + seasonal * cycle
  local weather = rolled(d) * 0.3 + math.sin(d / 9) * 0.2
  local sst = (clim + weather):clip(-1.8, nil)
  local ice = nd.where((LAT:abs():gt(55) + LON * 0):gt(0) & sst:lt(0.5), ((sst - 0.5) * -40):clip(0, 100), 0)
  return {
    sst = packed(sst), anom = packed(sst - clim), err = packed(weather:abs() * 0.2 + 0.1), ice = packed(ice),
  }
end

-- --------------------------------------------------------------- storing

local function create(name, o)
  o.path, o.zarr_format, o.compressor = name, format, o.compressor or { id = "zstd", level = 3 }
  if format == 3 then o.dimension_names, o.attrs._ARRAY_DIMENSIONS = o.attrs._ARRAY_DIMENSIONS, nil end
  return ipfsrt.zarr.create(out, o)
end

ipfsrt.zarr.group(out, { zarr_format = format, attrs = {
  title = "OISST-like sample (ipfsrt, deterministic)", Conventions = "CF-1.6",
  source = "scripts/sample/oisst.lua: shaped like NOAA OISST v2.1, values made up" } })

local coords = {
  time = { nd.arange(days):astype("int32") + FIRST_DAY, "int32", { units = "days since 1978-01-01",
    long_name = "Center time of the day", calendar = "standard" } },
  lat = { LAT:reshape { NLAT }:astype("float32"), "float32", { units = "degrees_north", long_name = "Latitude" } },
  lon = { LON:reshape { NLON }:astype("float32"), "float32", { units = "degrees_east", long_name = "Longitude" } },
}
for _, name in ipairs { "time", "lat", "lon" } do
  local c = coords[name]
  c[3]._ARRAY_DIMENSIONS = { name }
  local a = create(name, { shape = c[1].shape, chunks = c[1].shape, dtype = c[2], attrs = c[3] })
  a:write(nil, c[1])
end

local VARS = {
  { "sst", "Daily sea surface temperature", "Celsius" },
  { "anom", "Daily sea surface temperature anomalies", "Celsius" },
  { "err", "Estimated error standard deviation of analysed_sst", "Celsius" },
  { "ice", "Sea ice concentration", "%" },
}
local arrays = {}
for _, v in ipairs(VARS) do
  arrays[v[1]] = create(v[1], { shape = { days, NLAT, NLON }, chunks = { 1, 360, 360 }, dtype = "int16",
    fill_value = FILL, attrs = { scale_factor = 0.01, add_offset = 0, _FillValue = FILL, units = v[3],
      long_name = v[2], _ARRAY_DIMENSIONS = { "time", "lat", "lon" } } })
end

for d0 = 0, days - 1, BATCH do
  local d1 = math.min(d0 + BATCH, days)
  local batch = {}
  for d = d0, d1 - 1 do
    for name, f in pairs(day_fields(d)) do
      batch[name] = batch[name] or {}
      table.insert(batch[name], f)
    end
  end
  for name, list in pairs(batch) do arrays[name]:write({ { d0, d1 } }, nd.stack(list, 0)) end
  io.stderr:write(string.format("\r%d of %d days", d1, days))
end
io.stderr:write("\n")
ipfsrt.zarr.consolidate(out)
io.stderr:write(string.format("made %s (format %d, %d days) in %.1f s\n", out, format, days, ipfsrt.clock() - t0))
if args.car then
  os.remove(args.car)
  print(tostring(ipfsrt.pack(out, { preset = "ipfs-car", hidden = true, output = args.car })))
end

-- ---------------------------------------------------------------- NetCDF-4

local function quoted(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- NOAA's file name of the day FIRST_DAY + i (1978-01-01 is 2922 days after 1970-01-01).
local function file_name(i)
  return os.date("!oisst-avhrr-v02r01.%Y%m%d.nc", (FIRST_DAY + i + 2922) * 86400)
end

if args.netcdf then
  local t1 = ipfsrt.clock()
  local here = arg[0]:match("^(.*)/[^/]*$") or "."
  os.execute("rm -rf " .. quoted(args.netcdf))
  local ok = os.execute(string.format("/usr/bin/python3 %s %s %s", quoted(here .. "/oisst_netcdf.py"), quoted(out),
    quoted(args.netcdf)))
  assert(ok, "oisst_netcdf.py failed (it needs Debian's python3-netcdf4 and python3-zarr)")
  local names, paths = {}, {}
  for i = 0, days - 1 do
    names[#names + 1] = file_name(i)
    paths[#paths + 1] = args.netcdf .. "/" .. names[#names]
  end
  local json = ipfsrt.refs.concat(paths, "time", { targets = names })
  local f = assert(io.open(args.netcdf .. "/refs.json", "wb"))
  f:write(json)
  f:close()
  io.stderr:write(string.format("made %s (%d NetCDF-4 files and refs.json) in %.1f s\n", args.netcdf, days,
    ipfsrt.clock() - t1))
end
