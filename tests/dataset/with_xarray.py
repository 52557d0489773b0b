"""Debian's xarray (with zarr-python, no dask) opens the sample dataset that
scripts/sample/oisst.lua made and computes what tests/dataset/check.lua
computes with ipfsrt.dataset: labels, selections by index and by value, CF
decoding and reductions. `xarray.py DIR OUT.json` writes the answers."""
import json
import sys

import numpy as np
import xarray as xr

from xr_answers import label, numbers

full = xr.open_zarr(sys.argv[1], consolidated=True, chunks=None)
ds = full.isel(zlev=0)  # NOAA's layout: one depth, the surface
sst = ds.sst


def values(da):
    return numbers(da.values)


box = sst.sel(time="2024-01-05", lat=slice(20, 60), lon=slice(270, 310))
series = sst.sel(lat=35, lon=285, method="nearest")
out = {
    "dims": {k: int(v) for k, v in full.sizes.items()},
    "full_box_shape": list(full.sst.sel(time="2024-01-05", lat=slice(20, 60), lon=slice(270, 310)).shape),
    "vars": sorted(ds.data_vars),
    "dtype": str(sst.dtype),
    "first_time": label(ds.time.values[0]),
    "last_time": label(ds.time.values[-1]),
    "box_shape": list(box.shape),
    "box_mean": float(box.mean()),
    "box_sum": float(box.sum()),
    "series": values(series),
    "corner": values(sst.isel(time=0, lat=slice(100, 103), lon=slice(0, 4))),
    "strided": values(sst.isel(time=-1, lat=slice(600, 700, 25), lon=slice(None, None, 360))),
    "time_mean_sum": float(sst.isel(time=slice(0, 4)).mean("time").sum()),
    "lat_max": values(ds.ice.isel(time=2).max("lon").isel(lat=slice(0, 720, 60))),
    # xarray's own std goes through bottleneck, which sums float32 naively; numpy's is the reference
    "anom_std": float(np.nanstd(ds.anom.isel(time=1).values)),
    "land_fraction": float(np.isnan(sst.isel(time=0).values).mean()),
    "attrs_units": sst.attrs.get("units"),
}
# positions and labels of extremes, NaN skipped; land (NaN only) gives NaT
globe = sst.isel(lat=slice(0, 720, 90), lon=slice(0, 1440, 180))
out["argmax_series"] = int(series.argmax())
out["argmin_series"] = int(series.argmin())
out["idxmax_series"] = label(series.idxmax().values)
out["idxmin_series"] = label(series.idxmin("time").values)
out["argmax_box"] = [int(x) for x in sst.isel(lat=slice(100, 104), lon=slice(0, 3)).argmax("time").values.reshape(-1)]
out["idxmax_globe"] = [label(x) for x in globe.idxmax("time").values.reshape(-1)]
out["idxmin_lat"] = values(sst.isel(time=0, lon=slice(0, 1440, 240)).idxmin("lat"))
assert "NaT" in out["idxmax_globe"]


# CSV as pandas writes a DataArray's series: dims as columns, values, NaN empty
def csv_text(da):
    import io
    buf = io.StringIO()
    da.to_series().to_csv(buf)
    return buf.getvalue()


out["csv_series"] = csv_text(series.isel(time=slice(0, 6)))
out["csv_cube"] = csv_text(sst.isel(time=slice(0, 3), lat=slice(100, 103), lon=slice(0, 2)))
out["csv_globe"] = csv_text(sst.isel(time=0, lat=slice(0, 720, 90), lon=slice(0, 1440, 180)))
assert ",\n" in out["csv_globe"]  # land: missing values (written empty) among them
# lazy arithmetic: broadcasting by name, functions, where, weighted and
# median reductions (ipfsrt evaluates these a slab at a time)
anom = ds.anom
cell = dict(lat=slice(100, 103), lon=slice(0, 4))
coslat = np.cos(np.deg2rad(ds.lat))
out["diff_mean"] = float((sst - anom).mean())
out["fahrenheit_cell"] = values((sst * 1.8 + 32).isel(time=2, **cell))
by_name = sst.isel(time=slice(0, 2), **cell) - ds.lat.isel(lat=slice(100, 103))
lat_first = ds.lat.isel(lat=slice(100, 103)) + sst.isel(time=slice(0, 2), **cell)
out["by_name"] = values(by_name)
out["by_name_dims"] = list(by_name.dims)
out["lat_first"] = values(lat_first)
out["lat_first_dims"] = list(lat_first.dims)
out["sin_lon"] = values(np.sin(np.deg2rad(ds.lon.isel(lon=slice(0, 1440, 97)))))
out["weighted_daily"] = values(sst.weighted(coslat).mean(("lat", "lon")))
# xarray's dot sums float32 in float32 (4e-6 off here); the same in float64:
v64, w64 = sst.values.astype("float64"), np.cos(np.deg2rad(ds.lat.values.astype("float64")))[:, None]
kept = ~np.isnan(v64)
out["weighted_daily_f64"] = list((np.where(kept, v64, 0) * w64).sum((1, 2)) / (kept * w64).sum((1, 2)))
out["weighted_sum_lat"] = values(sst.isel(time=0, lon=slice(0, 1440, 120)).weighted(coslat).sum("lat"))
out["weighted_land"] = values(sst.isel(time=0, lat=slice(0, 3), lon=slice(0, 8)).weighted(coslat).mean("lon"))
out["median_time"] = values(sst.isel(**cell).median("time"))
out["median_day"] = float(sst.isel(time=0).median())
out["where_warm"] = float(sst.where(sst > 25).mean())
out["where_other"] = values(sst.isel(time=0, **cell).where(sst.isel(time=0, **cell) > 16, -1))
out["fillna_mean"] = float(sst.isel(time=0).fillna(0).mean())
out["expr_std_time_sum"] = float((sst - anom).std("time").sum())
out["expr_sel"] = float((sst - anom).sel(time="2024-01-03", lat=35, lon=285, method="nearest"))
out["expr_mean_time"] = values((sst * 2 - anom).mean("time").isel(lat=slice(0, 720, 45), lon=slice(0, 1440, 90)))
out["no_skipna"] = values(sst.isel(time=0, lat=slice(0, 720, 90), lon=slice(0, 1440, 180)).mean("lon", skipna=False))
json.dump(out, open(sys.argv[2], "w"), indent=1)
print(f"xarray {xr.__version__} answered {len(out)} questions about {sys.argv[1]}")
