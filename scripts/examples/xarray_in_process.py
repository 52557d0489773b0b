"""xarray reading a dataset on IPFS verified, in process (the package ipfsrt
on libipfsrt: fsspec's "ipfs" protocol), beside the same dataset's folder:
the values at a point over time, and a day's mean over a box.
Usage: PYTHONPATH=build/python /usr/bin/python3 xarray_in_process.py ROOT GATEWAY_URL [FOLDER]
(with make demo's sample: ROOT=$(cat build/demo/oisst-60.root), a gateway
from `build/ipfsrt serve build/demo/oisst-60.car`, FOLDER build/demo/oisst-60)"""
import sys

import numpy as np
import xarray as xr

import ipfsrt

root, gateway = sys.argv[1:3]
try:
    ds = xr.open_zarr(f"ipfs://{root}", storage_options={"gateways": [gateway]})
    point = ds.sst.sel(lat=35.125, lon=285.125).squeeze()
    box = ds.sst.sel(time="2024-02-29", lat=slice(20, 60), lon=slice(270, 310))
    print(f"{point.size} days at 35.125N 285.125E, first {float(point[0]):.2f} {ds.sst.units}")
    print(f"Gulf Stream box on 2024-02-29: {float(box.mean()):.2f} {ds.sst.units}")
except ipfsrt.VerificationError as e:  # no gateway sent the right bytes
    sys.exit(f"refused: {e}")
if len(sys.argv) > 3:
    local = xr.open_zarr(sys.argv[3]).sst.sel(lat=35.125, lon=285.125).squeeze()
    print("equal to the folder's:", bool(np.array_equal(point.values, local.values, equal_nan=True)))
