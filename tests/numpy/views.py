"""Cross-check with numpy, part 2: redoes every case of views.lua with numpy and
compares shapes and values. Exit status 1 on any difference."""
import json
import sys

import numpy as np

cases = json.load(open(sys.argv[1]))
bad = 0
for i, c in enumerate(cases):
    size = int(np.prod(c["shape"])) if c["shape"] else 1
    a = np.arange(size, dtype=np.int64).reshape(c["shape"])
    key = tuple(p if isinstance(p, int) else slice(p[0], p[1], p[2]) for p in c["spec"])
    v = a[key]
    if c["transpose"]:
        v = v.T
    want_shape = list(v.shape)
    want = v.reshape(-1).tolist()
    got_shape = c["result_shape"] if c["result_shape"] != {} else []
    got = c["result"] if c["result"] != {} else []
    if want_shape != got_shape or want != got:
        bad += 1
        if bad <= 5:
            print(f"case {i}: shape {c['shape']} spec {c['spec']} T={c['transpose']}: "
                  f"numpy {want_shape} {want[:10]} ipfsrt {got_shape} {got[:10]}")
print(f"numpy views: {len(cases) - bad} agree, {bad} differ")
sys.exit(1 if bad else 0)
