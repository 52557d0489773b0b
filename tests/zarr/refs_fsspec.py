"""Reads an array through kerchunk references with fsspec's ReferenceFileSystem
and zarr-python (Debian's), an independent reader of the format, and prints its
values as JSON. Relative targets are taken from the working directory, as
fsspec does. Usage: refs_fsspec.py REFS.json ARRAY"""
import json
import sys

import fsspec
import zarr

refs, name = sys.argv[1:3]
fs = fsspec.filesystem("reference", fo=refs)
group = zarr.open_group(fs.get_mapper(""), mode="r")
print(json.dumps(group[name][...].tolist()))
