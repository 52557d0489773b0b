"""One scenario in a cold process, for make bench-peers: Debian's xarray and
zarr-python over fsspec's HTTP filesystem, no dask (the plain-HTTP way the
published OISST benchmark started from). Prints {open_ms, run_ms, count, sum}
as ipfsrt_peer.lua does.
Usage: xarray_peer.py GATEWAY ROOT SCENARIO"""
import json
import sys
import time

import fsspec
import numpy as np
import xarray as xr

gateway, root, name = sys.argv[1:4]
t0 = time.perf_counter()
ds = xr.open_zarr(fsspec.get_mapper(f"{gateway}/ipfs/{root}"), consolidated=True, chunks=None)
t1 = time.perf_counter()
sst = ds.sst
if name == "open":
    value = 0.0
elif name == "spatial":
    day = str(ds.time.values[min(59, ds.sizes["time"] - 1)])[:10]
    value = sst.sel(time=day, lat=slice(20, 60), lon=slice(270, 310)).values
elif name == "timeseries":
    value = sst.sel(lat=35, lon=285, method="nearest").values
elif name == "fullfield":
    value = sst.isel(time=0).values
elif name == "bulk":
    value = float(sst.mean())
else:
    raise SystemExit(f"no scenario {name}")
t2 = time.perf_counter()
if isinstance(value, float):
    count, total = 1, int(round(value * 100))
else:
    v = np.asarray(value, dtype="float64")
    count, total = int(np.count_nonzero(~np.isnan(v))), int(np.nansum(np.round(v * 100)))
print(json.dumps({"open_ms": (t1 - t0) * 1000, "run_ms": (t2 - t1) * 1000, "count": count, "sum": total}))
