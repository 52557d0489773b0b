"""Grouping, resampling and rolling cases for ipfsrt.dataset, answered by
Debian's xarray (with cftime): daily series over 500 days (a leap day in the
real calendars), in the standard, proleptic_gregorian, noleap and 360_day
calendars, with missing values (a column of NaN only in places), and one with
a month of days left out (an empty bin). `groups.py DIR OUT.json` writes a
Zarr group per calendar under DIR and xarray's answers to OUT.json;
tests/dataset/groups_check.lua asks ipfsrt.dataset the same."""
import json
import os
import sys
import warnings

import numpy as np
import xarray as xr

warnings.simplefilter("ignore")
root = sys.argv[1]
os.makedirs(root, exist_ok=True)


def time_text(t):
    if hasattr(t, "isoformat") and hasattr(t, "calendar"):  # cftime
        return "%04d-%02d-%02d" % (t.year, t.month, t.day)
    return str(np.datetime64(t, "D"))


def numbers(a):
    return [None if np.isnan(x) else float(x) for x in np.asarray(a, dtype="float64").reshape(-1)]


def series(n, seed):
    rng = np.random.default_rng(seed)
    v = (15 + 10 * np.sin(np.arange(n)[:, None] / 58.0 + np.arange(3)[None, :]) +
         rng.standard_normal((n, 3))).astype("float32")
    v[rng.random((n, 3)) < 0.08] = np.nan  # scattered gaps
    v[40:75, 2] = np.nan  # a month of a column missing: empty groups in it
    return v


def dataset(calendar, gap=False):
    n = 500
    times = xr.cftime_range("2023-11-15", periods=n, freq="D", calendar=calendar)
    if calendar == "standard":
        times = times.to_datetimeindex()
    values = series(n, len(calendar))
    if gap:  # 2024-03 left out
        keep = [not (t.year == 2024 and t.month == 3) for t in times]
        times, values = times[keep], values[keep]
    ds = xr.Dataset({"v": (("time", "x"), values)}, coords={"time": times, "x": [10.0, 20.0, 30.0]})
    ds.time.encoding.update(units="days since 2000-01-01", calendar=calendar)
    return ds


def answers(ds, real):
    v = ds.v
    out = {}
    month = v.groupby("time.month")
    clim = month.mean()
    for op in ("mean", "sum", "max", "min", "count", "median", "std", "var"):
        out["month_" + op] = numbers(getattr(month, op)())
    out["month_labels"] = [int(m) for m in clim.month.values]
    out["month_dims"] = list(clim.dims)
    season = v.groupby("time.season").mean()
    out["season"] = numbers(season)
    out["season_labels"] = [str(s) for s in season.season.values]
    year = v.groupby("time.year").sum()
    out["year_sum"] = numbers(year)
    out["year_labels"] = [int(y) for y in year.year.values]
    doy = v.groupby("time.dayofyear").mean()
    out["dayofyear"] = numbers(doy.isel(dayofyear=slice(55, 65)))
    out["dayofyear_labels"] = [int(d) for d in doy.dayofyear.values[55:65]]
    anom = v.groupby("time.month") - clim
    out["anomaly"] = numbers(anom.isel(time=slice(100, 140)))
    out["anomaly_mean_time"] = numbers(anom.mean("time"))
    for freq, name in (("MS", "month"), ("AS", "year"), ("5D", "5d"), ("M", "month_end"), ("A", "year_end"),
                       ("7D", "7d")):
        r = v.resample(time=freq).mean()
        out["resample_" + name] = numbers(r)
        out["resample_" + name + "_labels"] = [time_text(t) for t in r.time.values]
    out["resample_month_sum"] = numbers(v.resample(time="MS").sum())
    if real:
        w = v.resample(time="W").mean()
        out["resample_week"] = numbers(w)
        out["resample_week_labels"] = [time_text(t) for t in w.time.values]
    for window, center, minp in ((7, True, 3), (4, True, None), (5, False, 1)):
        key = "rolling_%d_%s_%s" % (window, center, minp)
        r = v.rolling(time=window, center=center, min_periods=minp)
        out[key + "_mean"] = numbers(r.mean())
        out[key + "_max"] = numbers(r.max())
    out["rolling_sum"] = numbers(v.rolling(time=3).sum())
    for op in ("median", "min", "count"):
        out["rolling_" + op] = numbers(getattr(v.rolling(time=5, center=True, min_periods=2), op)())
    # bottleneck's move_std and move_var keep running float32 sums (1e-4 off
    # here): the reference is numpy's, in float64, on the windows xarray builds
    r = v.rolling(time=5, center=True, min_periods=2)
    windows = r.construct("window").values.astype("float64")
    enough = np.isfinite(windows).sum(axis=-1) >= 2
    for op in ("std", "var"):
        ref = np.where(enough, getattr(np, "nan" + op)(windows, axis=-1), np.nan)
        out["rolling_" + op] = numbers(ref.astype("float32"))
    # bottleneck's running sums drift (1e-6 here); the windows in float64:
    x = v.values.astype("float64")
    ref = np.array([[np.nanmean(x[max(0, t - 4):t + 1, j]) if np.isfinite(x[max(0, t - 4):t + 1, j]).any()
                     else np.nan for j in range(x.shape[1])] for t in range(x.shape[0])])
    out["rolling_5_float64"] = numbers(ref.astype("float32"))
    return out


cases = {}
for calendar in ("standard", "proleptic_gregorian", "noleap", "360_day"):
    ds = dataset(calendar)
    ds.to_zarr(os.path.join(root, calendar), mode="w", consolidated=True)
    cases[calendar] = answers(xr.open_zarr(os.path.join(root, calendar), chunks=None), calendar == "standard")
ds = dataset("standard", gap=True)
ds.to_zarr(os.path.join(root, "gap"), mode="w", consolidated=True)
gap = xr.open_zarr(os.path.join(root, "gap"), chunks=None).v
r = gap.resample(time="MS").mean()
cases["gap"] = {"resample_month": numbers(r), "resample_month_labels": [time_text(t) for t in r.time.values],
                "resample_month_count": numbers(gap.resample(time="MS").count()),
                "resample_month_sum": numbers(gap.resample(time="MS").sum())}
json.dump(cases, open(sys.argv[2], "w"), indent=1)
print(f"xarray {xr.__version__}: {sum(len(c) for c in cases.values())} answers on {len(cases)} datasets")
