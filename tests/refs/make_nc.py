"""A small OISST-like NetCDF-4 file written by Debian's python3-netcdf4, for the
references tests: time (unlimited), lat, lon; sst int16 scaled, zlib + shuffle,
one chunk per day, some points missing; ice float32, zlib without shuffle,
chunks across days; err contiguous; big-endian, unsigned, 64-bit and
grouped numbers, every integer size of either sign; a string variable and a fletcher32 one (which references
here cannot hold). Prints xarray's decoded values (engine
netcdf4) of each variable as JSON, NaN as null. Usage: make_nc.py OUT.nc"""
import json
import sys

import netCDF4
import numpy as np
import xarray as xr

out = sys.argv[1]
T, Y, X = 4, 18, 36
with netCDF4.Dataset(out, "w", format="NETCDF4") as d:
    d.title = "ipfsrt references test"
    d.createDimension("time", None)
    d.createDimension("lat", Y)
    d.createDimension("lon", X)
    t = d.createVariable("time", "f8", ("time",))
    t.units = "days since 1978-01-01 12:00:00"
    t.calendar = "standard"
    t[:] = np.arange(T) + 15706
    lat = d.createVariable("lat", "f4", ("lat",))
    lat.units = "degrees_north"
    lat[:] = np.linspace(-85, 85, Y)
    lon = d.createVariable("lon", "f4", ("lon",))
    lon[:] = np.linspace(5, 355, X)
    sst = d.createVariable("sst", "i2", ("time", "lat", "lon"), zlib=True, complevel=4, shuffle=True,
                           chunksizes=(1, Y, X), fill_value=np.int16(-999))
    sst.scale_factor = 0.01
    sst.add_offset = 0.0
    sst.units = "Celsius"
    rng = np.random.default_rng(7)
    vals = np.round(rng.uniform(-2, 30, (T, Y, X)), 2)
    vals[:, :2, :] = np.nan  # missing: written as the fill value
    sst[:] = np.ma.masked_invalid(vals)
    ice = d.createVariable("ice", "f4", ("time", "lat", "lon"), zlib=True, complevel=1, shuffle=False,
                           chunksizes=(2, 9, 12), fill_value=np.float32(-1))
    ice[:] = rng.uniform(0, 1, (T, Y, X)).astype("f4")
    err = d.createVariable("err", "f4", ("lat", "lon"), contiguous=True)
    err[:] = rng.uniform(0, 1, (Y, X)).astype("f4")
    # other numbers: big-endian, unsigned bytes, 64-bit integers, doubles in a group
    be = d.createVariable("be", "i4", ("lat", "lon"), zlib=True, complevel=9, endian="big", chunksizes=(5, 7))
    be[:] = np.arange(Y * X, dtype="i4").reshape(Y, X) * 1000 - 300000
    u8 = d.createVariable("u8", "u1", ("lon",), zlib=True, shuffle=True)
    u8[:] = np.arange(X, dtype="u1") * 7
    i64 = d.createVariable("i64", "i8", ("time",), chunksizes=(3,))
    i64[:] = np.array([-(2 ** 40), 0, 5, 2 ** 50])
    # the other integer sizes and signs, zlib without shuffle at levels 1 and 9
    for code, level in (("i1", 1), ("u2", 9), ("u4", 1), ("u8", 9)):
        v = d.createVariable("n_" + code, code, ("lat",), zlib=True, complevel=level, shuffle=False)
        info = np.iinfo(code)
        v[:] = np.linspace(info.min, min(info.max, 2 ** 52), Y).astype(code)
    grp = d.createGroup("grp")
    grp.comment = "a group"
    inner = grp.createVariable("inner", "f8", ("lat",), zlib=True)
    inner[:] = np.linspace(0, 1, Y)
    # what references cannot hold here: left out, each with a reason
    name = d.createVariable("name", str, ("time",))
    name[:] = np.array(["a", "bb", "ccc", "dddd"], dtype=object)
    chk = d.createVariable("chk", "f4", ("lat",), fletcher32=True)
    chk[:] = np.ones(Y, dtype="f4")


def listed(v):
    return np.where(np.isnan(v), None, v).tolist() if v.dtype.kind == "f" else v.tolist()


with xr.open_dataset(out, engine="netcdf4") as ds:
    values = {name: listed(ds[name].values) for name in ("sst", "ice", "err", "lat", "be", "u8", "i64", "n_i1", "n_u2", "n_u4", "n_u8")}
with xr.open_dataset(out, engine="netcdf4", group="grp") as ds:
    values["grp/inner"] = listed(ds["inner"].values)
print(json.dumps(values))
