"""One cold process for scripts/bench/python_batch.lua: the package ipfsrt
(PYTHONPATH=build/python) opening the sample at GATEWAY with zarr-python,
then timing, each on a filesystem of its own opened the same way: the 366
chunks of sst holding one point read as one batch (fs.cat: the bytes in
Python), and the point's time series read through zarr (the same batch, then
zarr-python's decoding, to a numpy array). Prints {open_ms, fetch_ms,
select_ms, bytes, sum}. Usage: python_batch.py GATEWAY ROOT"""
import json
import sys
import time

import numpy as np
import zarr

import ipfsrt

gateway, root = sys.argv[1:3]
LAT, LON = 500, 1140  # a point's chunk: (t, 0, 1, 3)


def opened():
    fs = ipfsrt.IPFSFileSystem(gateways=[gateway], skip_instance_cache=True)
    return fs, zarr.open_consolidated(fs.get_mapper(root))["sst"]


t0 = time.perf_counter()
fs, sst = opened()
t1 = time.perf_counter()
keys = [f"{root}/sst/{t}.0.{LAT // 360}.{LON // 360}" for t in range(sst.shape[0])]
got = fs.cat(keys)
t2 = time.perf_counter()
_, sst2 = opened()
t3 = time.perf_counter()
values = sst2[:, 0, LAT, LON]
t4 = time.perf_counter()
print(json.dumps({"open_ms": (t1 - t0) * 1000, "fetch_ms": (t2 - t1) * 1000, "select_ms": (t4 - t3) * 1000,
                  "bytes": sum(len(v) for v in got.values()), "sum": int(np.asarray(values, "int64").sum())}))
