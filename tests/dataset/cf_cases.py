"""CF decoding cases for ipfsrt.dataset, answered by Debian's xarray (with
cftime): calendars, times at the fill value and between days, _Unsigned,
missing_value lists, scale factors as lists, label slices on falling and
unsorted coordinates, and what xarray refuses to open.
`cf_cases.py DIR OUT.json` writes one small Zarr group per case under DIR and
xarray's answers (or that it refused) to OUT.json; tests/dataset/cf_check.lua
asks ipfsrt.dataset the same."""
import json
import sys
import warnings

import numpy as np
import xarray as xr
import zarr

warnings.simplefilter("ignore")
root = sys.argv[1]


def time_text(t):
    """A time as ipfsrt.dataset writes it: the date, then the time of day if any."""
    if hasattr(t, "isoformat"):  # cftime
        y, mo, d, h, mi, s, us = t.year, t.month, t.day, t.hour, t.minute, t.second, t.microsecond
    else:
        if np.isnat(t):
            return "NaT"
        ts = np.datetime64(t, "us").astype(object)
        y, mo, d, h, mi, s, us = ts.year, ts.month, ts.day, ts.hour, ts.minute, ts.second, ts.microsecond
    text = "%04d-%02d-%02d" % (y, mo, d)
    if (h, mi, s, us) != (0, 0, 0, 0):
        text += "T%02d:%02d:%02d" % (h, mi, s)
        if us:
            text += ("." + "%06d" % us).rstrip("0")
    return text


def numbers(a):
    return [None if np.isnan(x) else float(x) for x in np.asarray(a, dtype="float64").reshape(-1)]


def as_time(ds, dim, label):
    """A date string as a time of the coordinate's own type: a CFTimeIndex takes
    no string with method = "nearest" (a TypeError), its date type it does."""
    index = ds.indexes.get(dim)
    if not isinstance(label, str) or not isinstance(index, xr.CFTimeIndex):
        return label
    date, _, clock = label.partition("T")
    parts = [int(x) for x in date.split("-")] + [int(x) for x in clock.split(":") if x]
    return index.date_type(*parts)


def case(name, arrays, asks):
    path = "%s/%s" % (root, name)
    g = zarr.open_group(path, mode="w")
    for var, (data, dims, attrs, fill) in arrays.items():
        data = np.asarray(data)
        a = g.create_dataset(var, data=data, chunks=max(1, len(data)), fill_value=fill)
        a.attrs.update(dict(attrs, _ARRAY_DIMENSIONS=dims))
    zarr.consolidate_metadata(path)
    try:
        ds = xr.open_zarr(path, chunks=None)
        answers = []
        for ask in asks:
            try:
                da = ds[ask["var"]]
                if "sel" in ask:
                    sel = {k: slice(*v) if isinstance(v, list) else v for k, v in ask["sel"].items()}
                    if ask.get("method"):
                        sel = {k: as_time(ds, k, v) for k, v in sel.items()}
                    da = da.sel(sel, method=ask.get("method"))
                if ask.get("shape"):  # kept or dropped dimensions matter as much as values
                    answers.append({"shape": list(da.shape), "values": numbers(da.values)})
                elif ask.get("dates"):
                    answers.append([time_text(t) for t in da.values])
                else:
                    answers.append(numbers(da.values))
            except Exception:  # noqa: BLE001 - any refusal is the answer
                answers.append("error")
        return {"name": name, "asks": asks, "answers": answers}
    except Exception:  # noqa: BLE001
        return {"name": name, "asks": asks, "error": True}


def date_case(stamps, calendar):
    """70 days from 2024-01-01 stamped at noon (NOAA's OISST: "days since
    1978-01-01 12:00:00"), at midnight, or every 6 hours, selected by partial
    dates, as scalars and range ends."""
    units = {"noon": "days since 2024-01-01 12:00:00", "midnight": "days since 2024-01-01",
             "6-hourly": "hours since 2024-01-01", "noaa": "days since 1978-01-01 12:00:00"}[stamps]
    times = {"noon": np.arange(70.0), "midnight": np.arange(70.0), "6-hourly": np.arange(0.0, 70 * 24, 6),
             "noaa": np.arange(16801.0, 16871)}[stamps]
    asks = [{"var": "v", "sel": {"time": key}, "shape": True} for key in
            ("2024-02-29", "2024-02-28", "2024-02", "2024", "2024-01-05T12", "2024-01-05T12:00", "2024-01-05T12:00:00",
             "2024-01-05T06", "2023-12", "2024-06-01", "2023")]
    asks += [{"var": "v", "sel": {"time": [a, b]}, "shape": True} for a, b in
             (("2024-02-01", "2024-02-29"), ("2024-02", "2024-02"), ("2024-01-30", "2024-02-01T11"),
              ("2024-01-30T13", "2024-02-01"), ("2024", "2024-01-03"), ("2024-03-09T12:00:01", "2024-04"))]
    asks += [{"var": "v", "sel": {"time": "2024-02-10T07"}, "method": "nearest", "shape": True}]
    return case("dates_%s_%s" % (stamps, calendar),
                {"time": (times, ["time"], {"units": units, "calendar": calendar}, None),
                 "v": (np.arange(len(times), dtype="f8"), ["time"], {}, None)}, asks)


T = "days since 2000-01-01"
cases = [
    case("noleap", {"time": ([0, 58, 59, 364, 365], ["time"], {"units": T, "calendar": "noleap"}, None)},
         [{"var": "time", "dates": True}, {"var": "time", "dates": True, "sel": {"time": ["2000-02-28", "2000-03-01"]}}]),
    case("365_day", {"time": ([59, 730], ["time"], {"units": T, "calendar": "365_day"}, None)},
         [{"var": "time", "dates": True}]),
    case("all_leap", {"time": ([0, 59, 365, 366, 1000], ["time"], {"units": T, "calendar": "all_leap"}, None)},
         [{"var": "time", "dates": True}]),
    case("360_day", {"time": ([0, 29, 30, 359, 360, -1], ["time"], {"units": T, "calendar": "360_day"}, None)},
         [{"var": "time", "dates": True}]),
    case("julian", {"time": ([0, 59, 366, 36524], ["time"], {"units": "days since 1900-01-01", "calendar": "julian"},
                             None)}, [{"var": "time", "dates": True}]),
    case("standard_reform", {"time": ([0, 3, 4, 5, -600000], ["time"], {"units": "days since 1582-10-01"}, None)},
         [{"var": "time", "dates": True}]),
    case("proleptic", {"time": ([0, 3, 4, 5], ["time"], {"units": "days since 1582-10-01",
                                                           "calendar": "proleptic_gregorian"}, None)},
         [{"var": "time", "dates": True}]),
    case("ancient", {"time": ([-800000, -730000, -730120], ["time"], {"units": T}, None)},
         [{"var": "time", "dates": True}]),
    case("ancient_julian", {"time": ([-800000, -730000], ["time"], {"units": T, "calendar": "julian"}, None)},
         [{"var": "time", "dates": True}]),
    case("ancient_proleptic", {"time": ([-800000, -730000], ["time"], {"units": T,
                                                                     "calendar": "proleptic_gregorian"}, None)},
         [{"var": "time", "dates": True}]),
    case("ancient_noleap", {"time": ([-800000, -730000], ["time"], {"units": T, "calendar": "noleap"}, None)},
         [{"var": "time", "dates": True}]),
    case("hours_gregorian", {"time": ([0, 36, 8784], ["time"], {"units": "hours since 1900-1-1 0:0:0",
                                                                 "calendar": "Gregorian"}, None)},
         [{"var": "time", "dates": True}]),
    case("time_at_fill", {"time": (np.array([0.0, 1, 2]), ["time"], {"units": "days since 2024-01-01"}, 0.0)},
         [{"var": "time", "dates": True}]),
    case("fractional", {"time": (np.array([0.5, 1.25, 2.0001]), ["time"], {"units": "days since 2024-01-01"},
                                 None)}, [{"var": "time", "dates": True}]),
    case("beyond_cftime", {"time": (np.array([0.0, 1e300]), ["time"], {"units": T}, None)}, []),
    case("bad_units", {"time": ([0, 1], ["time"], {"units": "days since 2000-13-45"}, None)}, []),
    case("bad_calendar", {"time": ([0, 1], ["time"], {"units": T, "calendar": "martian"}, None)}, []),
    case("bad_unit", {"time": ([0, 1], ["time"], {"units": "fortnights since 2000-01-01"}, None)}, []),
    case("missing_list", {"v": (np.array([1, -99, -98, 5], "i2"), ["x"], {"missing_value": [-99, -98]}, None)},
         [{"var": "v"}]),
    case("unsigned", {"v": (np.array([-1, 5, -128], "i1"), ["x"], {"_Unsigned": "true"}, None)}, [{"var": "v"}]),
    case("unsigned_fill", {"v": (np.array([-1, 5, -128], "i1"), ["x"], {"_Unsigned": "true", "_FillValue": -1},
                                 None)}, [{"var": "v"}]),
    case("unsigned_scaled", {"v": (np.array([-1, 5, -128], "i1"), ["x"], {"_Unsigned": "true", "scale_factor": 0.5},
                                   None)}, [{"var": "v"}]),
    case("scale_list", {"v": (np.array([1, 2], "i2"), ["x"], {"scale_factor": [0.5], "add_offset": [1.0]}, None)},
         [{"var": "v"}]),
    case("scale_text", {"v": (np.array([1, 2], "i2"), ["x"], {"scale_factor": "abc"}, None)}, [{"var": "v"}]),
    case("scale_nan_text", {"v": (np.array([1, 2], "i2"), ["x"], {"scale_factor": "NaN"}, None)}, [{"var": "v"}]),
    case("unsorted", {"x": ([100, 200, 50], ["x"], {}, None), "v": ([1, 2, 3], ["x"], {}, None)},
         [{"var": "v", "sel": {"x": [0, 10]}}, {"var": "v", "sel": {"x": 200}}]),
    case("falling", {"lat": ([60, 40, 20, 0], ["lat"], {}, None), "v": ([1, 2, 3, 4], ["lat"], {}, None)},
         [{"var": "v", "sel": {"lat": [50, 10]}}, {"var": "v", "sel": {"lat": [10, 50]}},
          {"var": "v", "sel": {"lat": [60, 0]}}]),
    case("rising", {"lat": ([0, 20, 40, 60], ["lat"], {}, None), "v": ([1, 2, 3, 4], ["lat"], {}, None)},
         [{"var": "v", "sel": {"lat": [60, 20]}}, {"var": "v", "sel": {"lat": [20, 60]}}]),
    *[date_case(stamps, calendar) for stamps in ("noon", "midnight", "6-hourly", "noaa")
      for calendar in ("standard", "noleap", "360_day") if not (stamps == "noaa" and calendar != "standard")],
    case("conflicting", {"x": ([1, 2, 3], ["x"], {}, None), "v": ([1, 2, 3, 4], ["x"], {}, None)}, []),
]
json.dump(cases, open(sys.argv[2], "w"), indent=1)
print("xarray answered %d CF cases" % len(cases))
