"""NetCDF-3 files written by Debian's python3-netcdf4 for `ipfsrt refs`:
FORMAT is NETCDF3_CLASSIC, NETCDF3_64BIT_OFFSET or NETCDF3_64BIT_DATA. Record
variables (time unlimited) interleaved record by record: scaled int16 with a
fill value and missing points, float32, a record variable of bytes (its
records padded to 4 bytes), fixed-size ones (coordinates, an int8 field, a
scalar), a text (char) variable that references cannot hold; with "one",
a single record variable of int16 (records unpadded). Prints xarray's values
(engine netcdf4) as JSON, NaN as null.
Usage: make_nc3.py OUT.nc FORMAT [one]"""
import json
import sys

import netCDF4
import numpy as np
import xarray as xr

out, fmt = sys.argv[1], sys.argv[2]
one = sys.argv[3:] == ["one"]
T, Y, X = 5, 6, 7
rng = np.random.default_rng(3)
with netCDF4.Dataset(out, "w", format=fmt) as d:
    d.title = "ipfsrt NetCDF-3 test"
    d.version = np.int32(3)
    d.createDimension("time", None)
    d.createDimension("lat", Y)
    d.createDimension("lon", X)
    d.createDimension("nchar", 5)
    sst = d.createVariable("sst", "i2", ("time", "lat", "lon"), fill_value=np.int16(-999))
    sst.scale_factor = 0.01
    sst.units = "Celsius"
    vals = np.round(rng.uniform(-2, 30, (T, Y, X)), 2)
    vals[:, 0, :2] = np.nan
    sst[:] = np.ma.masked_invalid(vals)
    if not one:
        t = d.createVariable("time", "f8", ("time",))
        t.units = "days since 2024-01-01"
        t[:] = np.arange(T) * 1.5
        tmp = d.createVariable("tmp", "f4", ("time", "lat", "lon"))
        tmp[:] = rng.uniform(0, 1, (T, Y, X)).astype("f4")
        flag = d.createVariable("flag", "i1", ("time", "lon"))
        flag[:] = (np.arange(T * X).reshape(T, X) % 5 - 2).astype("i1")
    lat = d.createVariable("lat", "f4", ("lat",))
    lat[:] = np.linspace(-60, 60, Y)
    lon = d.createVariable("lon", "f8", ("lon",))
    lon[:] = np.linspace(0, 300, X)
    grid = d.createVariable("grid", "i1", ("lat", "lon"))
    grid[:] = (np.arange(Y * X).reshape(Y, X) % 7 - 3).astype("i1")
    scalar = d.createVariable("scalar", "i4", ())
    scalar[...] = 42
    name = d.createVariable("name", "S1", ("lat", "nchar"))
    name[:] = netCDF4.stringtochar(np.array(["ab", "cd", "ef", "gh", "ij", "kl"], dtype="S5"))


def listed(v):
    return np.where(np.isnan(v), None, v).tolist() if v.dtype.kind == "f" else v.tolist()


with xr.open_dataset(out, engine="netcdf4", decode_times=False) as ds:
    print(json.dumps({k: listed(ds[k].values) for k in ds.variables if k != "name"}))
