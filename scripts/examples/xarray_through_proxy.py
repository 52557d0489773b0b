"""xarray + fsspec (Debian's, unchanged) reading a dataset through
`ipfsrt serve --upstream`, beside the same dataset's local folder: every value
of every variable on a few days and a point's whole time series must be equal.
Prints one JSON object {same, values, mean}. make demo runs it.
Usage: /usr/bin/python3 xarray_through_proxy.py PROXY_URL ROOT FOLDER"""
import json
import sys

import fsspec
import numpy as np
import xarray as xr

proxy, root, folder = sys.argv[1:4]
through = xr.open_zarr(fsspec.get_mapper(f"{proxy}/ipfs/{root}"), consolidated=True)
local = xr.open_zarr(folder, consolidated=True)
same, values = True, 0
for name in local.data_vars:
    for part in (dict(time=slice(0, 3)), dict(lat=400, lon=1000)):
        a = through[name].isel(part).values
        b = local[name].isel(part).values
        same = same and a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=True))
        values += a.size
mean = float(through.sst.isel(time=0).mean())
print(json.dumps({"same": same, "values": values, "mean": mean}))
