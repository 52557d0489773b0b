"""Reads an array through kerchunk references with fsspec's ReferenceFileSystem
and zarr-python (Debian's), an independent reader of the format, and prints its
values as JSON. Relative targets are taken from the working directory, as
fsspec does. Usage: refs_fsspec.py REFS.json ARRAY [--one-by-one]

--one-by-one: each key read by itself. Debian's fsspec (2022.11) reads many
keys at once by sorting their ranges by file, and when none merge, pairs the
sorted results with the keys in their first order: keys whose files do not
sort as the keys do (references joined along time from files named in
another order) get one another's bytes."""
import json
import sys
from collections.abc import MutableMapping

import fsspec
import zarr


class OneByOne(MutableMapping):
    def __init__(self, mapper):
        self.mapper = mapper

    def __getitem__(self, key):
        return self.mapper[key]

    def __setitem__(self, key, value):
        raise PermissionError("read only")

    def __delitem__(self, key):
        raise PermissionError("read only")

    def __iter__(self):
        return iter(self.mapper)

    def __len__(self):
        return len(self.mapper)


refs, name = sys.argv[1:3]
fs = fsspec.filesystem("reference", fo=refs)
store = fs.get_mapper("")
if "--one-by-one" in sys.argv[3:]:
    store = zarr.storage.KVStore(OneByOne(store))
group = zarr.open_group(store, mode="r")
print(json.dumps(group[name][...].tolist()))
