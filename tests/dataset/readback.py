"""Results ipfsrt.dataset wrote with to_zarr (tests/dataset/check.lua), opened
by Debian's xarray and compared with what xarray computes from the sample:
dimensions, coordinates (dates decoded), values.
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
bad = 0
for name, (want, var, tol) in cases.items():
    got = xr.open_zarr(f"{out}/{name}.zarr", consolidated=True, chunks=None)[var]
    problems = []
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
    print(f"{name}: {'; '.join(problems) or 'xarray reads it back as it computes it'}")
sys.exit(1 if bad else 0)
