"""Cross-check with numpy, part 4: evaluates every case of ops.lua with numpy
on the same arrays (built from the same formula) and compares dtypes, shapes
and values; NaN must sit where numpy puts them, errors where numpy raises."""
import json
import math
import os
import sys
import warnings

os.environ.setdefault("NPY_PROMOTION_STATE", "weak")
import numpy as np  # noqa: E402
from promotion import legacy  # noqa: E402

warnings.simplefilter("ignore")
np.seterr(all="ignore")


def data(dtype, shape):
    """ops.lua's data(): the same formula, the same views."""
    n = math.prod(shape)
    i = np.arange(n, dtype=np.int64)
    v = (i * 7919) % 251 - 120
    if dtype == "bool":
        x = v > 0
    elif dtype.startswith("float"):
        f = v.astype(np.float64) / 8
        row = shape[-1] if len(shape) > 1 else n + 1
        nan = (i % 37 == 5) | (i == 1) | (i // row == 1)
        f = np.where(i % 101 == 7, np.where(i % 2 == 1, np.inf, -np.inf), f)
        x = np.where(nan, np.nan, f).astype(dtype)
    else:
        x = v.astype(dtype)
    x = x.reshape(shape)
    d = {"np": np, "legacy": legacy, "x": x, "y": x[::-1], "m": x.astype(np.float64) > 2}
    d["b"] = x[0:min(1, shape[0])]
    d["c"] = np.where(np.isfinite(x), np.abs(x), 0).astype(dtype) if dtype.startswith("float") else x
    return d


def text_value(s, dtype):
    """An element's exact text as the value it is (float32 text as float32)."""
    if s in ("true", "false"):
        return s == "true"
    return float(np.float32(s)) if dtype == "float32" else float(s)


def same(got, want, dtype, approx):
    if isinstance(want, (bool, np.bool_)):
        return got == bool(want)
    want = float(want)
    if math.isnan(want):
        return math.isnan(got)
    if got == want:
        return True
    tol = 1e-6 if dtype == "float32" else 1e-12
    return approx and abs(got - want) <= tol * max(1.0, abs(want))


def check(c, want):
    got = c["result"]
    label = f"{c['dtype']}{c['shape']} {c['name']}"
    if "error" in got:
        return f"{label}: ipfsrt raised {got['error']}, numpy gave {want!r:.80}"
    want = np.asarray(want)
    if "dtype" in got:
        if str(want.dtype) != got["dtype"]:
            return f"{label}: dtype {got['dtype']}, numpy {want.dtype}"
        if list(want.shape) != (got["shape"] or []):
            return f"{label}: shape {got['shape']}, numpy {list(want.shape)}"
    values = [text_value(v, got.get("dtype")) for v in got["values"]]
    flat = want.reshape(-1).tolist()
    if len(values) != len(flat):
        return f"{label}: {len(values)} values, numpy {len(flat)}"
    approx = any(k in c["name"] for k in ("std", "var", "approx"))
    for k, (g, w) in enumerate(zip(values, flat)):
        if not same(g, w, str(want.dtype), approx):
            return f"{label}: element {k}: {g}, numpy {w}"
    return None


cases = json.load(open(sys.argv[1]))
bad, both_refused, current, env = 0, 0, None, None
for c in cases:
    key = (c["dtype"], tuple(c["shape"]))
    if key != current:
        env, current = data(c["dtype"], c["shape"]), key
    try:
        want = eval(c["expr"], env)
        problem = check(c, want)
    except (ValueError, TypeError) as e:  # numpy refuses (min of nothing, an all-NaN argmin): so must ipfsrt
        both_refused += 1
        problem = None if "error" in c["result"] else f"{c['dtype']}{c['shape']} {c['name']}: numpy raised {e}"
    if problem:
        bad += 1
        if bad <= 15:
            print(problem)
print(f"numpy ops: {len(cases) - bad} agree, {bad} differ ({both_refused} refused by both)")
sys.exit(1 if bad else 0)
