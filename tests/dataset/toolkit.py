"""The analysis toolkit's second pass against Debian's xarray: selections by
lists and points, nearest with a tolerance, scalar coordinates, quantiles,
sorts, extremes over several dimensions, and the refusals, each case a
DataArray described as tests/dataset/toolkit_check.lua describes ipfsrt's
answer (dims, shape, dtype, values, coordinates), or the refusal's kind.
`toolkit.py DIR OUT.json` writes xarray's answers."""
import json
import sys
import warnings

import numpy as np
import xarray as xr

from xr_answers import label, numbers

warnings.simplefilter("ignore")
full = xr.open_zarr(sys.argv[1], consolidated=True, chunks=None)
stored = xr.open_zarr(sys.argv[1], consolidated=True, chunks=None, mask_and_scale=False)  # int16 as stored
ds = full.isel(zlev=0)
sst = ds.sst


def describe(x):
    if isinstance(x, dict):
        return {"dict": {k: describe(v) for k, v in x.items()}}
    if isinstance(x, str):
        return {"label": x}
    if not isinstance(x, xr.DataArray):
        return {"values": numbers(x)}
    coords = {name: {"dims": list(c.dims), "values": numbers(c.values)} for name, c in x.coords.items()}
    return {"dims": list(x.dims), "shape": list(x.shape), "dtype": str(x.dtype), "values": numbers(x.values),
            "coords": coords}


def points(values, dim="points"):
    return xr.DataArray(values, dims=dim)


box = sst.isel(time=slice(0, 6), lat=slice(100, 106), lon=slice(0, 5))
SPREAD_LATS = [-80 + 4 * i for i in range(1, 41)]  # 40 points over every chunk of the globe
SPREAD_LONS = [(37 * i) % 360 for i in range(1, 41)]
computed = box.mean("time")
CASES = {
    # selections
    "list_nearest": lambda: sst.sel(lat=[35, 0, -60], lon=[285, 200, 30], method="nearest"),
    "points_nearest": lambda: sst.sel(lat=points([35, 0, -60]), lon=points([285, 200, 30]), method="nearest"),
    "isel_lists": lambda: sst.isel(time=[3, 1, 3], lat=[500, 100], lon=7),
    "isel_points_named": lambda: sst.isel(lat=points([500, 100, 20], "station"), lon=points([7, 900, 1400], "station"),
                                          time=slice(2, 5)),
    "scalar_nearest": lambda: sst.sel(lat=35, lon=285, method="nearest"),
    "tolerance_met": lambda: sst.sel(lat=35.3, method="nearest", tolerance=0.2).isel(lon=slice(0, 3)),
    "tolerance_missed": lambda: sst.sel(lat=35.3, method="nearest", tolerance=0.01),
    "time_list_nearest": lambda: sst.sel(time=["2024-01-03", "2024-01-01"], method="nearest", tolerance="1D").isel(
        lat=300, lon=slice(0, 2)),
    "time_list_exact_missing": lambda: sst.sel(time=["2024-01-03", "2024-01-01"]),
    "list_then_label": lambda: sst.sel(lat=[35, 0], method="nearest").sel(lat=0.125).isel(lon=slice(0, 3)),
    "list_then_range": lambda: sst.sel(lat=[-60, 0, 35], method="nearest").sel(lat=slice(-10, 40)).isel(lon=0),
    "computed_list": lambda: computed.isel(lat=[5, 0, 5]),
    "computed_points": lambda: computed.isel(lat=points([1, 2]), lon=points([4, 0])),
    "points_mismatched": lambda: sst.sel(lat=points([0.125, 0.375]), lon=points([0.125, 0.375, 0.625])),
    "points_on_a_dimension": lambda: sst.isel(lat=points([1, 2], "time")),
    "method_with_range": lambda: sst.sel(lat=slice(0, 10), method="nearest"),
    "points_spread": lambda: sst.sel(lat=points(SPREAD_LATS), lon=points(SPREAD_LONS), method="nearest"),
    "points_spread_batched": lambda: sst.sel(lat=points(SPREAD_LATS), lon=points(SPREAD_LONS), method="nearest"),
    "dataset_points": lambda: ds.sel(lat=points([35, 0]), lon=points([285, 200]), method="nearest").anom,
}

# orders: quantiles (every method), medians, sorts
METHODS = ["linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf", "averaged_inverted_cdf",
           "closest_observation", "interpolated_inverted_cdf", "hazen", "weibull", "median_unbiased",
           "normal_unbiased"]
grid = sst.isel(lat=slice(0, 720, 7), lon=slice(0, 1440, 9))
series = sst.sel(lat=35, lon=285, method="nearest")
# numpy 1.24's nanquantile along an axis is apply_along_axis, which types the
# result by its first lane: here an all-NaN (land) cell, float32, so the other
# lanes' float64 answers are rounded to float32. Every other shape gives
# float64 (as ipfsrt always does): compared as float64, within float32's
# rounding.
CASES.update({
    "quantile_time": lambda: grid.quantile(0.9, "time").astype("float64"),
    "quantile_time_columns": lambda: grid.quantile(0.9, "time").astype("float64"),
    "quantile_all": lambda: float(box.quantile(0.3)),
    "quantile_lat_lon": lambda: box.quantile([0.25, 0.75], ["lat", "lon"]),
    "quantile_no_skipna": lambda: box.quantile(0.5, "time", skipna=False),
    "quantile_bad_q": lambda: box.quantile(1.5, "time"),
    "quantile_bad_method": lambda: box.quantile(0.5, "time", method="average"),
    "median_time": lambda: grid.median("time"),
    "median_time_columns": lambda: grid.median("time"),
    "sort_series": lambda: series.copy(data=np.sort(series.values, kind="stable")).drop_vars("time"),
    "argsort_box": lambda: box.copy(data=np.argsort(box.values, axis=2, kind="stable")).drop_vars("lon"),
})


def labels_of(positions):
    """idxmax over several dimensions, which xarray has not: the labels at argmax's positions."""
    out = {}
    for d, p in positions.items():
        c = sst[d]
        if p.ndim == 0:
            out[d] = label(c.values[int(p)]) if c.dtype.kind == "M" else float(c.values[int(p)])
        else:
            out[d] = p.copy(data=c.values[p.values].astype("float64"))
    return out


CASES.update({
    "argmax_all": lambda: {k: float(v) for k, v in sst.argmax(dim=["time", "lat", "lon"]).items()},
    "argmax_all_folded": lambda: {k: float(v) for k, v in sst.argmax(dim=["time", "lat", "lon"]).items()},
    "argmin_all": lambda: {k: float(v) for k, v in sst.argmin(dim=["time", "lat", "lon"]).items()},
    "argmax_lat_lon": lambda: sst.argmax(dim=["lat", "lon"]),
    "argmin_time_lon": lambda: box.argmin(dim=["time", "lon"]),
    "idxmax_all": lambda: labels_of(sst.argmax(dim=["time", "lat", "lon"])),
    "idxmin_lat_lon": lambda: labels_of(sst.argmin(dim=["lat", "lon"])),
    "argmax_land": lambda: sst.isel(lat=0, lon=0).argmax(),
})
# along a dimension: squeeze, diff, cumsum, shift, interp, coarsen
ocean = sst.isel(lat=slice(500, 512), lon=slice(40, 52))
CASES.update({
    "squeeze_all": lambda: sst.sel(time="2024-01-05").isel(lat=slice(0, 2), lon=slice(0, 3)).squeeze(),
    "squeeze_named": lambda: sst.isel(time=slice(0, 1), lat=slice(0, 2), lon=slice(5, 6)).squeeze("lon"),
    "squeeze_refused": lambda: sst.squeeze("lat"),
    "diff_time": lambda: series.diff("time"),
    # Debian's xarray forgets label after the first difference (diff(dim, n - 1) without
    # it; later xarray passes it on): n = 2 is two differences labelled "lower"
    "diff_twice_lower": lambda: box.diff("lon", label="lower").diff("lon", label="lower"),
    "cumsum_time": lambda: box.cumsum("time"),
    "cumsum_no_skipna": lambda: box.cumsum("lat", skipna=False),
    "cumsum_int": lambda: stored.sst.isel(zlev=0, time=0, lat=slice(500, 503), lon=slice(0, 4)).cumsum("lon"),
    "shift_time": lambda: box.shift(time=2),
    "shift_back": lambda: box.shift(lat=-1, lon=3),
    "interp_linear": lambda: ocean.isel(time=0).interp(lat=ocean.lat.values[3] + 0.1, lon=[ocean.lon.values[2] + 0.05,
                                                                                             ocean.lon.values[7] - 0.2]),
    "interp_outside": lambda: ocean.isel(time=0).interp(lat=[-95.0, ocean.lat.values[1]]),
    "interp_nearest_time": lambda: ocean.isel(lat=3, lon=4).interp(time=["2024-01-02T06:00", "2024-01-05"],
                                                                   method="nearest"),
    "interp_time_linear": lambda: ocean.isel(lat=3, lon=slice(0, 3)).interp(time=["2024-01-02T06:00",
                                                                                 "2024-01-09T18:00"]),
    "coarsen_mean": lambda: ocean.coarsen(lat=4, lon=3).mean(),
    "coarsen_trim_max": lambda: series.coarsen(time=3, boundary="trim").max(),
    "coarsen_pad_sum": lambda: ocean.isel(time=0).coarsen(lat=5, boundary="pad").sum(),
    "coarsen_std": lambda: ocean.coarsen(time=2, lat=2).std(),
    "coarsen_median": lambda: ocean.coarsen(lon=4).median(),
    "coarsen_not_whole": lambda: series.coarsen(time=3).mean(),
})
# polynomial fits (as a dict of the Dataset's variables; its rank a number) and times in units
warm = ocean.where(ocean > ocean.isel(time=0, lat=0, lon=0))  # some values of each series missing
land = sst.isel(lat=slice(0, 3), lon=slice(0, 2))  # every value missing


def fitted(d):
    return {k: (float(v) if v.ndim == 0 else v) for k, v in d.data_vars.items()}


CASES.update({
    "polyfit_time": lambda: fitted(box.polyfit("time", 1, full=True)),
    "polyfit_deg2": lambda: fitted(ocean.polyfit("time", 2)),
    "polyfit_gaps": lambda: fitted(warm.polyfit("time", 1, full=True)),
    "polyfit_land": lambda: fitted(land.polyfit("time", 1, full=True)),
    "polyfit_lon": lambda: fitted(ocean.isel(time=0).polyfit("lon", 3, full=True)),
    "time_in_days": lambda: ((ds.time - np.datetime64("2024-01-01")) / np.timedelta64(1, "D")).values,
    "time_in_hours": lambda: ((ds.time - np.datetime64("1970-01-01")) / np.timedelta64(1, "h")).values,
})
for m in METHODS:
    CASES["quantile_" + m] = (lambda m: lambda: box.quantile([0.1, 0.5, 0.95], "time", method=m))(m)

out = {}
for name, case in CASES.items():
    try:
        out[name] = describe(case())
    except (KeyError, IndexError, ValueError, NotImplementedError, TypeError) as e:
        out[name] = {"error": type(e).__name__, "message": str(e)[:200]}
json.dump(out, open(sys.argv[2], "w"), indent=1)
print(f"toolkit.py: {len(out)} cases, {sum('error' in v for v in out.values())} refusals")
