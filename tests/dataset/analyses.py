"""The ten analyses of lua/README.md, xarray's side: each ```python block under
"### Analysis" run in turn (ds, dir, xr, np given; plots not drawn), each
block's `result` written for tests/dataset/analyses.lua to compare with the Lua
block beside it. `analyses.py lua/README.md SAMPLE_DIR OUT_DIR OUT.json`"""
import json
import os
import re
import sys
import warnings

import numpy as np
import xarray as xr

warnings.simplefilter("ignore")


def blocks(readme, language):
    """The title and the first block of language under each #### heading of "### Analysis"."""
    text = open(readme).read()
    section = text.split("### Analysis", 1)[1].split("\n### ", 1)[0]
    out = []
    for part in section.split("\n#### ")[1:]:
        title = part.split("\n", 1)[0]
        code = re.search(r"```" + language + r"\n(.*?)```", part, re.S)
        out.append((title, code.group(1) if code else None))
    return out


def text_of(t):
    """A time as ipfsrt's dates() writes it: the date, and the time of day when it has one."""
    if not isinstance(t, np.datetime64):
        return t
    s = str(np.datetime64(t, "s"))
    return s[:10] if s.endswith("T00:00:00") else s


def as_json(x):
    if isinstance(x, xr.DataArray):
        labels = {d: [text_of(v) if not isinstance(v, (np.floating, np.integer)) else float(v)
                      for v in x[d].values] for d in x.dims if d in x.coords}
        values = [None if np.isnan(v) else float(v) for v in np.asarray(x.values, dtype="float64").reshape(-1)]
        return {"dims": list(x.dims), "labels": labels, "values": values}
    if isinstance(x, str) and os.path.isfile(x):
        return {"file": open(x).read()}
    if isinstance(x, (list, tuple)):
        return [as_json(v) for v in x]
    if isinstance(x, (np.floating, float, np.integer, int)):
        return float(x)
    return x


readme, sample, out_dir, out_json = sys.argv[1:5]
os.makedirs(out_dir, exist_ok=True)
xr.DataArray.plot = property(lambda self: (lambda *a, **kw: None))  # the picture is ipfsrt's side
env = {"xr": xr, "np": np, "ds": xr.open_zarr(sample, consolidated=True, chunks=None).isel(zlev=0), "dir": out_dir}
answers = []
for title, code in blocks(readme, "python"):
    env.pop("result", None)
    exec(compile(code, title, "exec"), env)
    answers.append({"title": title, "lines": len([l for l in code.splitlines() if l.strip()]),
                    "result": as_json(env["result"])})
json.dump(answers, open(out_json, "w"), indent=1)
print(f"xarray {xr.__version__} ran lua/README.md's {len(answers)} analyses")
