"""A plain HDF5 file (no NetCDF conventions) written with h5py, for the
references tests: a compact big-endian dataset, a contiguous one, a scalar, one
never written (its fill value given when it was made) and a group. Prints
h5py's values of each as JSON. Usage: make_h5.py OUT.h5"""
import json
import sys

import h5py
import numpy as np

with h5py.File(sys.argv[1], "w") as f:
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_layout(h5py.h5d.COMPACT)
    small = h5py.h5d.create(f.id, b"small", h5py.h5t.STD_I16BE, h5py.h5s.create_simple((3, 4)), dcpl=dcpl)
    small.write(h5py.h5s.ALL, h5py.h5s.ALL, np.arange(12, dtype=">i2").reshape(3, 4) - 6)
    f.create_dataset("cont", data=np.linspace(-1, 1, 5))
    f.create_dataset("scal", data=np.float32(2.5))
    f.create_dataset("empty", shape=(4,), dtype="i4", fillvalue=7)
    f.create_group("g").create_dataset("u", data=np.arange(6, dtype="u2"), chunks=(4,), compression="gzip")
    print(json.dumps({k: np.asarray(f[k][()]).tolist() for k in ("small", "cont", "scal", "empty", "g/u")}))
