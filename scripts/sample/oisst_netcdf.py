"""The OISST-like sample (scripts/sample/oisst.lua's Zarr v2 group) as NOAA
publishes OISST: one NetCDF-4 file a day, oisst-avhrr-v02r01.YYYYMMDD.nc,
each variable (time, zlev, lat, lon) = (1, 1, 720, 1440) int16 in one chunk
with zlib and shuffle, the same stored values, attributes and coordinates
as the Zarr form (plus zlev, the product's depth of 0 m). Written with
Debian's python3-netcdf4 from the Zarr read by zarr-python, stored values
copied as they are (no decoding, so both forms hold the same numbers).
Usage: oisst_netcdf.py ZARR_DIR OUT_DIR [--days N]"""
import datetime
import os
import sys

import netCDF4
import numpy as np
import zarr

src, out = sys.argv[1], sys.argv[2]
days = int(sys.argv[sys.argv.index("--days") + 1]) if "--days" in sys.argv else None
group = zarr.open_group(src, mode="r")
time = group["time"][...]
days = min(days or len(time), len(time))
lat, lon = group["lat"][...], group["lon"][...]
VARS = ("sst", "anom", "err", "ice")
EPOCH = datetime.date(1978, 1, 1)
os.makedirs(out, exist_ok=True)


def attrs_of(array):
    return {k: v for k, v in array.attrs.asdict().items() if k not in ("_ARRAY_DIMENSIONS", "_FillValue")}


def coordinate(d, name, values, dims):
    v = d.createVariable(name, values.dtype, dims)
    if name in group:
        v.setncatts(attrs_of(group[name]))
    v[:] = values


for t in range(days):
    date = EPOCH + datetime.timedelta(days=int(time[t]))
    path = os.path.join(out, "oisst-avhrr-v02r01.%s.nc" % date.strftime("%Y%m%d"))
    with netCDF4.Dataset(path, "w", format="NETCDF4") as d:
        d.setncatts(group.attrs.asdict())
        d.createDimension("time", None)
        d.createDimension("zlev", 1)
        d.createDimension("lat", len(lat))
        d.createDimension("lon", len(lon))
        coordinate(d, "time", time[t:t + 1], ("time",))
        coordinate(d, "zlev", np.zeros(1, "f4"), ("zlev",))
        d["zlev"].units = "meters"
        coordinate(d, "lat", lat, ("lat",))
        coordinate(d, "lon", lon, ("lon",))
        for name in VARS:
            a = group[name]
            v = d.createVariable(name, "i2", ("time", "zlev", "lat", "lon"), zlib=True, complevel=4, shuffle=True,
                                 chunksizes=(1, 1, len(lat), len(lon)), fill_value=np.int16(a.fill_value))
            v.set_auto_maskandscale(False)
            v.setncatts(attrs_of(a))
            v[0, 0] = a[t]
    sys.stderr.write("\r%d of %d days" % (t + 1, days))
sys.stderr.write("\n")
