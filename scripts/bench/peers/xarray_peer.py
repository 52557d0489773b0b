"""One scenario in a cold process, for make bench-peers: Debian's xarray and
zarr-python over fsspec's HTTP filesystem, no dask (the plain-HTTP way the
published OISST benchmark started from), or with --s3 over Debian's boto3
from the local S3 at ENDPOINT (the sample's files as objects under
s3://data/oisst; credentials from the AWS_* environment). Prints {open_ms,
run_ms, count, sum} as ipfsrt_peer.lua does.
With --ipfsrt, the same reads in process through the package ipfsrt
(fsspec's "ipfs" protocol on libipfsrt: every block verified; PYTHONPATH
names build/python). With --dask, GATEWAY is the sample's folder, opened with dask arrays computed
by dask's threaded scheduler. With --netcdf DAYS, ROOT is the NetCDF form's
(a NetCDF-4 file a day from 2024-01-01): the files read as Python users read
them from a gateway, xarray's open_mfdataset with engine h5netcdf on
fsspec's HTTP files (dask, one chunk a file).
Usage: xarray_peer.py GATEWAY|ENDPOINT|FOLDER ROOT SCENARIO [--ipfsrt|--s3|--dask|--netcdf DAYS]"""
import datetime
import json
import sys
import time
from collections.abc import Mapping

import fsspec
import numpy as np
import xarray as xr


class S3Objects(Mapping):
    """The objects under a prefix as a read-only mapping, as zarr-python reads a store."""

    def __init__(self, endpoint, bucket, prefix):
        import boto3
        from botocore.config import Config

        self.s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                               config=Config(s3={"addressing_style": "path"}, max_pool_connections=16))
        self.bucket, self.prefix = bucket, prefix

    def __getitem__(self, key):
        try:
            return self.s3.get_object(Bucket=self.bucket, Key=self.prefix + key)["Body"].read()
        except self.s3.exceptions.NoSuchKey:
            raise KeyError(key) from None

    def __iter__(self):
        pages = self.s3.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=self.prefix)
        for page in pages:
            for item in page.get("Contents", []):
                yield item["Key"][len(self.prefix):]

    def __len__(self):
        return sum(1 for _ in self)


gateway, root, name = sys.argv[1:4]
t0 = time.perf_counter()
chunks = None
if sys.argv[4:] == ["--s3"]:
    import zarr.storage

    store = zarr.storage.KVStore(S3Objects(gateway, "data", "oisst/"))
elif sys.argv[4:] == ["--ipfsrt"]:
    import ipfsrt  # noqa: F401 (registers "ipfs" in the build tree, where no entry point is installed)

    store = fsspec.get_mapper(f"ipfs://{root}", gateways=[gateway])
elif sys.argv[4:] == ["--dask"]:  # the local folder GATEWAY, with dask's threaded scheduler
    import dask

    dask.config.set(scheduler="threads")
    store, chunks = gateway, {}
elif sys.argv[4:5] == ["--netcdf"]:
    import dask

    dask.config.set(scheduler="threads")
    http = fsspec.filesystem("http")
    first = datetime.date(2024, 1, 1)
    names = [(first + datetime.timedelta(days=i)).strftime("oisst-avhrr-v02r01.%Y%m%d.nc") for i in range(int(sys.argv[5]))]
    files = [http.open(f"{gateway}/ipfs/{root}/{n}") for n in names]
    store = None
else:
    store = fsspec.get_mapper(f"{gateway}/ipfs/{root}")
if store is None:
    ds = xr.open_mfdataset(files, engine="h5netcdf", combine="nested", concat_dim="time")
else:
    ds = xr.open_zarr(store, consolidated=True, chunks=chunks)
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
elif name == "weighted":
    value = sst.weighted(np.cos(np.deg2rad(ds.lat))).mean(("lat", "lon")).values
elif name == "climatology":
    value = sst.groupby("time.month").mean().values
elif name == "anomaly":
    clim = sst.groupby("time.month").mean()
    value = (sst.groupby("time.month") - clim).isel(time=-1).values
else:
    raise SystemExit(f"no scenario {name}")
t2 = time.perf_counter()
if isinstance(value, float):
    count, total = 1, int(round(value * 100))
else:
    v = np.asarray(value, dtype="float64")
    count, total = int(np.count_nonzero(~np.isnan(v))), int(np.nansum(np.round(v * 100)))
print(json.dumps({"open_ms": (t1 - t0) * 1000, "run_ms": (t2 - t1) * 1000, "count": count, "sum": total}))
