"""Results ipfsrt.dataset wrote with to_zarr and to_netcdf
(tests/dataset/check.lua), opened by Debian's xarray and compared with what
xarray computes from the sample: dimensions, coordinates (dates decoded;
the scalar ones and those along points too), values.
`readback.py SAMPLE_DIR OUT_DIR`"""
import sys

import numpy as np
import xarray as xr

ds = xr.open_zarr(sys.argv[1], consolidated=True, chunks=None).isel(zlev=0)
out = sys.argv[2]
sst, coslat = ds.sst, np.cos(np.deg2rad(ds.lat))
cases = {
    "clim": (sst.groupby("time.month").mean(), "sst", 0),
    "daily": (sst.weighted(coslat).mean(("lat", "lon")), "global_mean", 1e-5),
    "pentads": (sst.isel(lat=slice(300, 310), lon=slice(0, 6)).resample(time="5D").max(), "sst", 0),
    "difference": ((sst - ds.anom).isel(time=slice(0, 3)), "sst", 0),
    "seasons": (sst.isel(lat=slice(300, 310), lon=slice(0, 6)).groupby("time.season").mean(), "sst", 1e-6),
}
points = dict(lat=xr.DataArray([35, 0, -60], dims="points"), lon=xr.DataArray([285, 200, 30], dims="points"))
nc_cases = {
    "point": (sst.sel(lat=35, lon=285, method="nearest"), "sst", 0),
    "points": (sst.sel(method="nearest", **points), "sst", 0),
}


def opened(name, kind):
    if kind == "zarr":
        return xr.open_zarr(f"{out}/{name}.zarr", consolidated=True, chunks=None)
    return xr.open_dataset(f"{out}/{name}.nc")


bad = 0
runs = [(n, c, kind) for n, c in cases.items() for kind in ("zarr", "nc")] + \
    [(n, c, "nc") for n, c in nc_cases.items()]
for name, (want, var, tol), kind in runs:
    got = opened(name, kind)[var]
    problems = []
    for c in want.coords:
        if c not in got.coords:
            problems.append(f"coordinate {c} missing")
        elif not np.array_equal(got[c].values, want[c].values):
            problems.append(f"coordinate {c} differs")
    if got.dims != want.dims:
        problems.append(f"dims {got.dims} vs {want.dims}")
    for d in want.dims:
        if d in want.coords and not np.array_equal(got[d].values, want[d].values):
            problems.append(f"coordinate {d} differs")
    if got.dtype != want.dtype:
        problems.append(f"dtype {got.dtype} vs {want.dtype}")
    if not np.allclose(got.values, want.values, rtol=tol, atol=0, equal_nan=True):
        problems.append("values differ")
    bad += bool(problems)
    print(f"{name}.{kind}: {'; '.join(problems) or 'xarray reads it back as it computes it'}")
sys.exit(1 if bad else 0)
