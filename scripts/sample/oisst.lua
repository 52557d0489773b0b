-- A deterministic sample in NOAA's OISST v2.1 layout, made as NOAA and a
-- publisher make theirs: first NOAA's daily NetCDF-4 files
-- (oisst-avhrr-v02r01.YYYYMMDD.nc from 2024-01-01; sst, anom, err and ice, each
-- int16 (time, zlev, lat, lon) = (1, 1, 720, 1440) packed with scale_factor
-- 0.01 and _FillValue -999; time a float32 at noon in "days since 1978-01-01
-- 12:00:00"; NOAA's attributes), then the Zarr form made from them by
-- xarray's open_mfdataset and to_zarr (chunks of (1, 1, 360, 360), zstd), as a
-- publisher makes it (scripts/sample/oisst_noaa.py, Debian's python3-netcdf4
-- and python3-xarray). The values are made up: land (about 26 % of the cells)
-- filled, ice (a fraction, as NOAA's) only poleward of 55 degrees, fields smooth
-- enough to compress about 7x, computed here with n-d array operations.
-- Usage: ipfsrt scripts/sample/oisst.lua OUT_DIR [--days T=366] [--from D=0] [--format 2|3]
--        [--car OUT.car]   (the CAR with ipfs-car's layout; prints its root CID)
--        --from D: days D to D + T - 1 (the day after a T-day sample: --days 1 --from T)
--        [--netcdf NC_DIR] (keep the daily files in NC_DIR, with NC_DIR/refs.json
--                           joining them along time, as `ipfsrt refs --concat
--                           time` does; else they are made aside and removed)
-- Format 3 is the Zarr v2 form copied into Zarr v3 by ipfsrt (Debian's
-- zarr-python writes v2 only): the same arrays, chunks and attributes.
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
assert(out, "usage: ipfsrt scripts/sample/oisst.lua OUT_DIR [--days T] [--from D] [--format 2|3] [--car OUT.car]")
local days = math.tointeger(tonumber(args.days or "366"))
local from = math.tointeger(tonumber(args.from or "0"))
local format = math.tointeger(tonumber(args.format or "2"))
assert(days and days > 0 and from and from >= 0 and (format == 2 or format == 3),
  "--days is a count, --from a day, --format 2 or 3")
local NLAT, NLON = 720, 1440
local FIRST_DAY = 16801 -- 2024-01-01 in days since 1978-01-01 (at noon, as NOAA's)

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
local function packed(x) -- degrees (or a fraction) to int16 hundredths, land filled
  return nd.where(land, FILL, (x * 100):round()):astype("int16")
end

-- day d (0-based): the four variables as int16 fields
local function day_fields(d)
  local cycle = math.cos(2 * math.pi * (d - 220) / 365.25)
  local clim = base + seasonal * cycle
  local weather = rolled(d) * 0.3 + math.sin(d / 9) * 0.2
  local sst = (clim + weather):clip(-1.8, nil)
  local ice = nd.where((LAT:abs():gt(55) + LON * 0):gt(0) & sst:lt(0.5), ((sst - 0.5) * -0.4):clip(0, 1), 0)
  return {
    sst = packed(sst), anom = packed(sst - clim), err = packed(weather:abs() * 0.2 + 0.1), ice = packed(ice),
  }
end

-- --------------------------------------------------------------- writing

local function quoted(s) return "'" .. s:gsub("'", "'\\''") .. "'" end
local here = arg[0]:match("^(.*)/[^/]*$") or "."
local nc_dir = args.netcdf or out .. ".nc-tmp"
os.execute("rm -rf " .. quoted(nc_dir))
local v2 = format == 2 and out or out .. ".v2-tmp"
os.execute("rm -rf " .. quoted(v2))
local function parent(path) return path:match("^(.*)/[^/]*$") or "." end
os.execute("mkdir -p " .. quoted(parent(nc_dir)) .. " " .. quoted(parent(out)))

-- The days' stored fields go to oisst_noaa.py as they are made: it writes
-- each day's file while the next day is computed here.
local noaa = assert(io.popen(string.format("/usr/bin/python3 %s %s %d %d --zarr %s > %s", quoted(here ..
  "/oisst_noaa.py"), quoted(nc_dir), FIRST_DAY + from, days, quoted(v2), quoted(nc_dir .. ".names")), "w"))
for d = 0, days - 1 do
  local f = day_fields(from + d)
  for _, name in ipairs { "sst", "anom", "err", "ice" } do
    assert(noaa:write(f[name]:tobytes("<")), "oisst_noaa.py stopped reading (it needs Debian's python3-netcdf4)")
  end
  io.stderr:write(string.format("\r%d of %d days", d + 1, days))
end
io.stderr:write("\n")
assert(noaa:close(), "oisst_noaa.py failed (it needs Debian's python3-netcdf4, python3-xarray and python3-zarr)")
local names = {}
for line in io.lines(nc_dir .. ".names") do names[#names + 1] = line end
os.remove(nc_dir .. ".names")

if format == 3 then -- every array as it is, in v3's metadata
  ipfsrt.zarr.copy(v2, out, { zarr_format = 3, compressor = { id = "zstd", level = 3 } })
  os.execute("rm -rf " .. quoted(v2))
end
io.stderr:write(string.format("made %s (format %d, %d days) in %.1f s\n", out, format, days, ipfsrt.clock() - t0))

if args.netcdf then
  local paths = {}
  for i, n in ipairs(names) do paths[i] = nc_dir .. "/" .. n end
  local f = assert(io.open(nc_dir .. "/refs.json", "wb"))
  f:write((ipfsrt.refs.concat(paths, "time", { targets = names })))
  f:close()
else
  os.execute("rm -rf " .. quoted(nc_dir))
end
if args.car then
  os.remove(args.car)
  print(tostring(ipfsrt.pack(out, { preset = "ipfs-car", hidden = true, output = args.car })))
end
