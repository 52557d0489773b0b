"""Daily NetCDF-4 files shaped like OISST's (time unlimited, zlev, lat, lon;
sst int16 scaled with zlib + shuffle in one (1, 1, lat, lon) chunk a day),
written by Debian's python3-netcdf4 for the `ipfsrt refs --concat` tests,
named so that their names' order is not their days' (the join must order
them by time). Also a float32 variable in two chunks a day, a static mask
without time, time bounds (time, nv) in netCDF's default chunks (which do
not follow one another from file to file) and a group. Prints xarray's
values of the files joined along time (engine netcdf4, times undecoded) as
JSON, NaN as null.
Usage: make_daily.py OUT_DIR DAYS [ok|lat|overlap|lessvars [FORMAT]]: lat
makes the last file's latitudes differ, overlap gives two files the same
day, lessvars leaves ice out of the last file; FORMAT NETCDF3_CLASSIC (or
another NetCDF-3 one) writes NetCDF-3 files: no compression, no group."""
import json
import os
import sys

import netCDF4
import numpy as np
import xarray as xr

out, days = sys.argv[1], int(sys.argv[2])
variant = sys.argv[3] if len(sys.argv) > 3 else "ok"
fmt = sys.argv[4] if len(sys.argv) > 4 else "NETCDF4"
nc3 = fmt.startswith("NETCDF3")
packed = {} if nc3 else {"zlib": True}
Y, X = 12, 20
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(11)
files = []
for i in range(days):
    day = 16801 + i if not (variant == "overlap" and i == days - 1) else 16801
    path = os.path.join(out, "oisst.%03d.nc" % (days - 1 - i))  # names in the reverse order of days
    files.append(path)
    last = i == days - 1
    with netCDF4.Dataset(path, "w", format=fmt) as d:
        d.title = "ipfsrt daily test %d" % i
        d.createDimension("time", None)
        d.createDimension("zlev", 1)
        d.createDimension("lat", Y)
        d.createDimension("lon", X)
        d.createDimension("nv", 2)
        t = d.createVariable("time", "f4", ("time",))
        t.units = "days since 1978-01-01 12:00:00"
        t[:] = [day]
        bnds = d.createVariable("time_bnds", "f8", ("time", "nv"))
        bnds[:] = [[day - 0.5, day + 0.5]]
        z = d.createVariable("zlev", "f4", ("zlev",))
        z[:] = [0]
        lat = d.createVariable("lat", "f4", ("lat",))
        lat[:] = np.linspace(-80, 80, Y) + (1 if variant == "lat" and last else 0)
        lon = d.createVariable("lon", "f4", ("lon",))
        lon[:] = np.linspace(9, 351, X)
        sst = d.createVariable("sst", "i2", ("time", "zlev", "lat", "lon"), fill_value=np.int16(-999),
                               **({} if nc3 else dict(zlib=True, complevel=4, shuffle=True, chunksizes=(1, 1, Y, X))))
        sst.scale_factor = 0.01
        sst.add_offset = 0.0
        vals = np.round(rng.uniform(-2, 30, (1, 1, Y, X)), 2)
        vals[:, :, :2, :3] = np.nan
        sst[:] = np.ma.masked_invalid(vals)
        if not (variant == "lessvars" and last):
            ice = d.createVariable("ice", "f4", ("time", "zlev", "lat", "lon"),
                                   **({} if nc3 else dict(zlib=True, chunksizes=(1, 1, Y // 2, X))))
            ice[:] = rng.uniform(0, 1, (1, 1, Y, X)).astype("f4")
        mask = d.createVariable("mask", "i1" if nc3 else "u1", ("lat", "lon"), **packed)
        mask[:] = (np.arange(Y * X).reshape(Y, X) % 3 == 0).astype("u1")
        if not nc3:
            g = d.createGroup("extra")
            n = g.createVariable("n", "i4", ("time",), chunksizes=(4,))
            n[:] = [i * 10]


def listed(v):
    return np.where(np.isnan(v), None, v).tolist() if v.dtype.kind == "f" else v.tolist()


if variant == "ok":
    parts = [xr.open_dataset(f, engine="netcdf4", decode_times=False) for f in files]
    joined = xr.concat(parts, dim="time", data_vars="minimal", coords="minimal")
    print(json.dumps({name: listed(joined[name].values) for name in ("sst", "ice", "time", "time_bnds", "mask", "lat")}))
