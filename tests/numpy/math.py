"""Cross-check with numpy, part 2: evaluates every case of math.lua with numpy
(NEP 50 scalar promotion, as ipfsrt implements: NPY_PROMOTION_STATE=weak) and
compares dtypes, shapes and values, NaN placement included."""
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


def value(v):
    return float(v) if isinstance(v, str) else v

def array(d):
    vals = [value(v) for v in d["values"]]
    return np.array(vals, dtype=d["dtype"]).reshape(d["shape"] if d["shape"] != {} else ())

def close(got, want, dtype):
    if isinstance(want, (bool, np.bool_)):
        return bool(got) == bool(want)
    got, want = float(got), float(want)
    if math.isnan(want):
        return math.isnan(got)
    if math.isinf(want):
        return got == want
    tol = 1e-5 if dtype in ("float32",) else 1e-9
    return got == want or abs(got - want) <= tol * max(1.0, abs(want))

OPS = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.true_divide, "//": np.floor_divide,
       "%": np.remainder, "lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
       "eq": np.equal, "ne": np.not_equal, "maximum": np.maximum, "minimum": np.minimum,
       "where": lambda x, y: (legacy if isinstance(y, (int, float)) else (lambda f: f()))(
           lambda: np.where(x > 0, x, y)),
       "clip": lambda x, lo: np.clip(x, lo, None)}

def check(label, got, want):
    if "error" in got:
        return f"{label}: ipfsrt raised {got['error']}, numpy gave {want.dtype}"
    if str(want.dtype) != got["dtype"]:
        return f"{label}: dtype {got['dtype']}, numpy {want.dtype}"
    if list(want.shape) != (got["shape"] if got["shape"] != {} else []):
        return f"{label}: shape {got['shape']}, numpy {list(want.shape)}"
    for i, (g, w) in enumerate(zip([value(v) for v in got["values"]], want.reshape(-1).tolist())):
        if not close(g, w, got["dtype"]):
            return f"{label}: element {i}: {g}, numpy {w}"
    return None

cases = json.load(open(sys.argv[1]))
bad, errors_both = 0, 0
for i, c in enumerate(cases):
    a = array(c["a"])
    b = c["b"]["scalar"] if "scalar" in c["b"] else array(c["b"])
    label = f"case {i}: {c['a']['dtype']}{c['a']['shape']} {c['op']} " + \
        (repr(b) if "scalar" in c["b"] else f"{c['b']['dtype']}{c['b']['shape']}")
    try:
        want = OPS[c["op"]](a, b)
        problem = check(label, c["result"], np.asarray(want))
    except Exception as e:  # numpy refuses too (bool - bool, overflow): ipfsrt must as well
        problem = None if "error" in c["result"] else f"{label}: numpy raised {e}, ipfsrt did not"
        errors_both += 1
    # the reduction, NaN-propagating as numpy's
    how, axis = c["reduce"], c["axis"]
    try:
        red = getattr(np, how)(a, axis=axis)
        if axis is None:
            got = c["reduced"]
            if "error" in got:
                problem = problem or f"case {i}: {how}: ipfsrt raised {got['error']}"
            elif not close(value(got["values"][0]), red, str(a.dtype)):
                problem = problem or f"case {i}: {how} of {a.dtype}: {got['values'][0]}, numpy {red}"
        else:
            problem = problem or check(f"case {i}: {how}(axis={axis}) of {a.dtype}", c["reduced"], np.asarray(red))
    except Exception as e:
        if "error" not in c["reduced"]:
            problem = problem or f"case {i}: numpy {how} raised {e}, ipfsrt did not"
    if problem:
        bad += 1
        if bad <= 10:
            print(problem)
print(f"numpy math: {len(cases) - bad} agree, {bad} differ ({errors_both} refused by both sides' rules)")
sys.exit(1 if bad else 0)
