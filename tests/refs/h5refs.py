"""Kerchunk references (version 0) of one NetCDF-4 file, made with h5py, for
tests: each variable's chunks where HDF5 says they are
(DatasetID.get_chunk_info; a contiguous variable as one chunk at get_offset),
deflate and shuffle as numcodecs' zlib and shuffle, _FillValue as the fill
value, the other attributes and _ARRAY_DIMENSIONS in .zattrs. An independent
maker to check ipfsrt's reading against. Targets are written relative to the
references file's folder. Usage: h5refs.py OUT.json FILE.nc"""
import json
import os
import sys

import h5py
import numpy as np

HDF5_INTERNAL = {"DIMENSION_LIST", "REFERENCE_LIST", "CLASS", "NAME", "_FillValue"}


def plain(v):
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, np.ndarray):
        return [plain(x) for x in v.tolist()] if v.size != 1 else plain(v.reshape(()).item())
    if isinstance(v, np.generic):
        return v.item()
    return v


def dims_of(name, ds):
    if h5py.h5ds.is_scale(ds.id):
        return [name]
    return [d[0].name.lstrip("/") if len(d) else f"dim_{i}" for i, d in enumerate(ds.dims)]


def fill_of(ds):
    if "_FillValue" not in ds.attrs:
        return None
    v = ds.attrs["_FillValue"].reshape(()).item()
    return "NaN" if isinstance(v, float) and v != v else v


def variable(refs, name, ds, target):
    if ds.dtype.kind not in "iuf" or ds.fletcher32:
        return  # strings, checksums: no Zarr form here
    chunks = list(ds.chunks or ds.shape)
    filters = [{"id": "shuffle", "elementsize": ds.dtype.itemsize}] if ds.shuffle else None
    compressor = {"id": "zlib", "level": ds.compression_opts} if ds.compression == "gzip" else None
    refs[f"{name}/.zarray"] = json.dumps({
        "zarr_format": 2, "shape": list(ds.shape), "chunks": chunks, "dtype": ds.dtype.str,
        "compressor": compressor, "filters": filters, "fill_value": fill_of(ds), "order": "C"})
    attrs = {k: plain(v) for k, v in ds.attrs.items() if k not in HDF5_INTERNAL and not k.startswith("_Netcdf4")}
    attrs["_ARRAY_DIMENSIONS"] = dims_of(name, ds)
    refs[f"{name}/.zattrs"] = json.dumps(attrs)
    if ds.chunks is None:
        refs[f"{name}/" + ".".join("0" for _ in ds.shape)] = [target, ds.id.get_offset(), ds.id.get_storage_size()]
        return
    for i in range(ds.id.get_num_chunks()):
        info = ds.id.get_chunk_info(i)
        key = ".".join(str(o // c) for o, c in zip(info.chunk_offset, chunks))
        refs[f"{name}/{key}"] = [target, info.byte_offset, info.size]


def main():
    out, path = sys.argv[1:3]
    target = os.path.relpath(path, os.path.dirname(os.path.abspath(out)))
    refs = {".zgroup": json.dumps({"zarr_format": 2})}
    with h5py.File(path, "r") as f:
        refs[".zattrs"] = json.dumps({k: plain(v) for k, v in f.attrs.items() if not k.startswith("_NC")})
        def visit(name, ds):
            phony = isinstance(ds, h5py.Dataset) and b"not a netCDF variable" in bytes(ds.attrs.get("NAME", b""))
            if isinstance(ds, h5py.Dataset) and not phony:
                variable(refs, name, ds, target)
            elif isinstance(ds, h5py.Group):
                refs[f"{name}/.zgroup"] = json.dumps({"zarr_format": 2})
                refs[f"{name}/.zattrs"] = json.dumps({k: plain(v) for k, v in ds.attrs.items()})
        f.visititems(visit)
    with open(out, "w") as f:
        json.dump(refs, f)


main()
