"""numpy's side of scripts/bench/ndarray.lua: the same data, the cases it
lists in a file ("dtype<TAB>name<TAB>expression" lines), medians in
milliseconds, one "index ms" line each (index from 1, in the file's order)."""
import statistics
import sys
import time
import warnings

import numpy as np

warnings.simplefilter("ignore")
T, RUNS, LIST = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]


def data(dtype):
    """The data of ndarray.lua's data(), built the same way."""
    lat = np.arange(720, dtype=np.int16).reshape(720, 1)
    lon = np.arange(1440, dtype=np.int16).reshape(1, 1440)
    base = (lat * 3 + lon // 2) % 2000 - 200
    land = ((lat // 40 + lon // 60) % 4 == 0) | ((lat * lon) % 7 == 0)
    day = (np.arange(T, dtype=np.int16) % 50).reshape(T, 1, 1)
    a = np.where(land, np.int16(-999), base + day).astype(np.int16)
    d = {"np": np, "x": a.astype(dtype)}
    d["y"] = ((a // 3) + 7).astype(dtype)
    d["b"] = d["x"][0].copy()
    d["m"] = d["x"] > 100
    d["none"] = a < -5000
    d["c"] = (np.abs(a) % 250).astype(dtype)
    if dtype.startswith("float"):
        d["xn"] = np.where(land, np.nan, d["x"]).astype(dtype)
    return d


def timed(fn):
    times = []
    fn()  # untimed, as in ndarray.lua
    for _ in range(RUNS):
        t0 = time.perf_counter()
        r = fn()
        times.append(time.perf_counter() - t0)
        del r
    return statistics.median(times) * 1000


current, env = None, None
with open(LIST) as f:
    for index, line in enumerate(f, 1):
        dtype, _name, expr = line.rstrip("\n").split("\t")
        if dtype != current:
            env = None
            env, current = data(dtype), dtype
        code = compile(expr, "<case>", "eval")
        print(f"{index} {timed(lambda: eval(code, env)):.2f}", flush=True)
