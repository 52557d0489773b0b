"""Cross-check with numpy, part 3: redoes every case of order.lua with numpy
(nanquantile or quantile, sort and argsort with kind="stable", take) and
compares dtypes, shapes and values, NaN where numpy has NaN."""
import json
import sys
import warnings

import numpy as np

warnings.simplefilter("ignore")  # all-NaN lanes: numpy warns, and gives NaN as ipfsrt does


def array(d):
    values = [np.nan if v == "nan" else v for v in d["values"]]
    return np.array(values, dtype=d["dtype"]).reshape(d["shape"])


def check(label, got, want, tol=1e-12):
    if "error" in got:
        return f"{label}: ipfsrt raised {got['error']}"
    want = np.asarray(want)
    if got.get("dtype") == "float64" and want.dtype == np.float32 and "quantile" in label:
        # numpy 1.24's value-based casting keeps float32 for some shapes (lanes
        # of one, 0-d results) and interpolates in float32 there; xarray's
        # quantile gives float64 always, as ipfsrt does
        want, tol = want.astype("float64"), 1e-6
    if "dtype" in got and str(want.dtype) != got["dtype"]:
        return f"{label}: dtype {got['dtype']}, numpy {want.dtype}"
    if "shape" in got and list(want.shape) != (got["shape"] if got["shape"] != {} else []):
        return f"{label}: shape {got['shape']}, numpy {list(want.shape)}"
    for i, (g, w) in enumerate(zip(got["values"], want.astype("float64").reshape(-1).tolist())):
        g = np.nan if g == "nan" else g
        if not (g == w or (np.isnan(g) and np.isnan(w)) or abs(g - w) <= tol * max(1, abs(w))):
            return f"{label}: element {i}: {g}, numpy {w}"
    return None


cases = json.load(open(sys.argv[1]))
bad = 0
for i, c in enumerate(cases):
    a = array(c["a"])
    axes = c["axes"]
    axes = tuple(axes) if isinstance(axes, list) else axes
    fn = np.nanquantile if c["skipna"] else np.quantile
    label = f"case {i}: {a.dtype}{list(a.shape)}"
    want = fn(a, c["q"], axis=axes, method=c["method"])
    problems = [check(f"{label} quantile({c['q']}, axis={axes}, {c['method']}, skipna={c['skipna']})",
                      c["quantile"], want)]
    ax = c["sort_axis"]
    problems.append(check(f"{label} sort(axis={ax})", c["sort"], np.sort(a, axis=ax, kind="stable")))
    problems.append(check(f"{label} argsort(axis={ax})", c["argsort"], np.argsort(a, axis=ax, kind="stable")))
    problems.append(check(f"{label} take({c['picks']}, axis={ax})", c["take"],
                          np.take(a, np.array(c["picks"], dtype=np.intp), axis=ax)))
    problems = [p for p in problems if p]
    if problems:
        bad += 1
        if bad <= 10:
            print("\n".join(problems))
print(f"numpy order: {len(cases) - bad} of {len(cases)} cases agree")
sys.exit(1 if bad else 0)
