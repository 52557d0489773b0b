"""Cross-check with numpy, part 3: the sums and means of sums.lua, computed
by numpy from the same formula, must agree to the bit (NaN skipped: numpy's
nansum and nanmean, as xarray's skipna)."""
import json
import sys
import warnings

import numpy as np

warnings.simplefilter("ignore")
np.seterr(all="ignore")

doc = json.load(open(sys.argv[1]))
shape = doc["shape"]
i = np.arange(int(np.prod(shape)), dtype=np.int64)
floats = np.where(i % 97 == 0, np.nan, (i * 7919 % 10007 - 5000) / 7)
arrays = {
    "float32": floats.astype(np.float32).reshape(shape),
    "float64": floats.reshape(shape),
    "int16": (i * 7919 % 10007 - 5000).astype(np.int16).reshape(shape),
    "int32": (i * 7919 % 10007 - 5000).astype(np.int32).reshape(shape),
    "uint8": (i * 7919 % 251).astype(np.uint8).reshape(shape),
}

masks = {
    "flat": (i % 3 != 0).reshape(shape),
    "plane": (np.arange(shape[1] * shape[2]) % 5 != 0).reshape(shape[1], shape[2]),
}

def same(got, want, close=False):
    if got == "nan":
        return np.isnan(want)
    if close:  # masked: another order of summation
        return abs(float(got) - float(want)) <= 1e-5 * max(1.0, abs(float(want)))
    return float(got) == float(want)

def masked(a, how, axis, mask):
    """numpy's where= forms; count as the number of non-NaN elements kept.
    float32 is summed in float64, as ipfsrt sums masked elements: numpy's own
    float32 accumulation is off in the 5th digit on these rows."""
    mask = np.broadcast_to(mask, a.shape)
    if how == "count":
        kept = mask & ~np.isnan(a) if a.dtype.kind == "f" else mask
        return np.sum(kept, axis=axis)
    wide = a.astype(np.float64) if a.dtype == np.float32 else a
    r = {"sum": np.nansum, "mean": np.nanmean}[how](wide, axis=axis, where=mask)
    return np.asarray(r).astype(a.dtype) if a.dtype == np.float32 else r

bad = 0
for c in doc["cases"]:
    a = arrays[c["dtype"]]
    if "mask" in c:
        want = np.asarray(masked(a, c["how"], c["axis"], masks[c["mask"]])).reshape(-1)
    else:
        fn = {("sum", True): np.nansum, ("sum", False): np.sum,
              ("mean", True): np.nanmean, ("mean", False): np.mean}[(c["how"], c["skipna"])]
        want = np.asarray(fn(a, axis=c["axis"])).reshape(-1)
    label = f"{c['how']} of {c['dtype']} axis={c['axis']} skipna={c['skipna']} mask={c.get('mask')}"
    if c["result_dtype"] and c["result_dtype"] != str(want.dtype):
        problem = f"{label}: dtype {c['result_dtype']}, numpy {want.dtype}"
    elif len(want) != len(c["values"]):
        problem = f"{label}: {len(c['values'])} values, numpy {len(want)}"
    else:
        problem = next((f"{label}: element {k}: {g}, numpy {w!r}" for k, (g, w) in
                        enumerate(zip(c["values"], want.tolist())) if not same(g, w, "mask" in c)), None)
    if problem:
        bad += 1
        if bad <= 10:
            print(problem)
print(f"numpy sums: {len(doc['cases']) - bad} agree (to the bit, masked ones to 1e-5), {bad} differ")
sys.exit(1 if bad else 0)
