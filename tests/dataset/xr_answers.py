"""What the xarray sides of tests/dataset share: answers written as
ipfsrt's checks write theirs."""
import numpy as np


def label(t):
    """A time as ipfsrt's dates() writes it: the date, and the time of day when it has one."""
    if np.isnat(t):
        return "NaT"
    s = str(np.datetime64(t, "s"))
    return s[:10] if s.endswith("T00:00:00") else s


def numbers(a):
    """Values flat, as float64, NaN as None; times as labels."""
    a = np.asarray(a)
    if a.dtype.kind == "M":
        return [label(t) for t in a.reshape(-1)]
    return [None if np.isnan(x) else float(x) for x in a.astype("float64").reshape(-1)]
