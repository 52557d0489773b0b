"""numpy's side of scripts/bench/ndarray.lua: the same data, the same
operations, medians in milliseconds, one "name ms" line each."""
import statistics
import sys
import time
import warnings

import numpy as np

warnings.simplefilter("ignore")
T, RUNS = int(sys.argv[1]), int(sys.argv[2])

# the formula of ndarray.lua: a smooth field per day, land (-999) where the
# fixed mask says so
lat = np.arange(720, dtype=np.int16).reshape(720, 1)
lon = np.arange(1440, dtype=np.int16).reshape(1, 1440)
base = (lat * 3 + lon // 2) % 2000 - 200
land = ((lat // 40 + lon // 60) % 4 == 0) | ((lat * lon) % 7 == 0)
day = (np.arange(T, dtype=np.int16) % 50).reshape(T, 1, 1)
a = np.where(land, np.int16(-999), base + day).astype(np.int16)
f = a.astype(np.float32)
ocean = ~land
b = f.mean(axis=0)
dst = np.empty_like(a)
dst[...] = 0

def timed(name, fn):
    times = []
    fn()  # untimed, as in ndarray.lua
    for _ in range(RUNS):
        t0 = time.perf_counter()
        r = fn()
        times.append(time.perf_counter() - t0)
        del r
    print(f"{name} {statistics.median(times) * 1000:.2f}", flush=True)

timed("memcpy int16", lambda: np.copyto(dst, a))
for name, x in (("int16", a), ("float32", f)):
    timed(f"sum {name}", lambda: x.sum())
    timed(f"mean {name}", lambda: x.mean())
    timed(f"sum axis 0 {name}", lambda: x.sum(axis=0))
    timed(f"mean axis 0 {name}", lambda: x.mean(axis=0))
    if name == "float32":
        timed(f"nansum {name}", lambda: np.nansum(x))
        timed(f"nanmean {name}", lambda: np.nanmean(x))
        timed(f"nanmean axis 0 {name}", lambda: np.nanmean(x, axis=0))
    timed(f"x*0.01+b {name}", lambda: x * 0.01 + b)
    timed(f"masked mean {name}", lambda: np.nanmean(np.where(x != -999, x, np.nan)))
    timed(f"mean where=ocean {name}", lambda: np.mean(x, where=ocean))
