"""The OISST-like sample as NOAA publishes OISST v2.1, then as a publisher
makes its Zarr form. Reads the stored int16 fields of each day from standard
input (sst, anom, err, ice, each 720 x 1440 in C order, little-endian, the day
after day), as scripts/sample/oisst.lua writes them, and writes:

- NC_DIR/oisst-avhrr-v02r01.YYYYMMDD.nc, one NetCDF-4 file a day as NOAA's:
  dimensions time (unlimited), zlev (1), lat, lon; time a float32 at noon in
  "days since 1978-01-01 12:00:00"; zlev, lat and lon float32; each variable
  int16 (time, zlev, lat, lon) in one chunk with zlib and shuffle, packed with
  scale_factor 0.01, add_offset 0, _FillValue -999 and NOAA's valid ranges;
  NOAA's variable and global attributes (the values are made up, and the
  summary says so). Written with Debian's python3-netcdf4.
- with --zarr OUT, the Zarr v2 form made from those files the way a publisher
  makes it: xarray.open_mfdataset over the files, to_zarr with chunks of
  (1, 1, 360, 360), zstd level 3, the packing read from the files kept, and
  the metadata consolidated (xarray writes the time's units and calendar).

Usage: oisst_noaa.py NC_DIR FIRST_DAY DAYS [--zarr OUT]
(FIRST_DAY in days since 1978-01-01 12:00:00)"""
import datetime
import os
import sys

import netCDF4
import numpy as np

NLAT, NLON = 720, 1440
EPOCH = datetime.datetime(1978, 1, 1, 12)
VARS = {
    "sst": ("Daily sea surface temperature", "Celsius", -300, 4500),
    "anom": ("Daily sea surface temperature anomalies", "Celsius", -1200, 1200),
    "err": ("Estimated error standard deviation of analysed_sst", "Celsius", 0, 1000),
    "ice": ("Sea ice concentration", "%", 0, 100),
}
GLOBAL = {
    "Conventions": "CF-1.6, ACDD-1.3",
    "title": "NOAA/NCEI 1/4 Degree Daily Optimum Interpolation Sea Surface Temperature (OISST) Analysis, "
             "Version 2.1 - Final",
    "summary": "Made-up values in the layout of NOAA's OISST v2.1 daily files (scripts/sample/oisst.lua of "
               "ipfsrt): not NOAA's data.",
    "source": "ICOADS, NCEP_GTS, GSFC_ICE, NCEP_ICE, Pathfinder_AVHRR, Navy_AVHRR",
    "institution": "NOAA/National Centers for Environmental Information",
    "product_version": "Version v02r01",
    "processing_level": "NOAA Level 4",
    "cdm_data_type": "Grid",
    "naming_authority": "gov.noaa.ncei",
    "geospatial_lat_min": np.float32(-90), "geospatial_lat_max": np.float32(90),
    "geospatial_lon_min": np.float32(0), "geospatial_lon_max": np.float32(360),
    "geospatial_lat_units": "degrees_north", "geospatial_lat_resolution": np.float32(0.25),
    "geospatial_lon_units": "degrees_east", "geospatial_lon_resolution": np.float32(0.25),
    "metadata_link": "https://doi.org/10.25921/RE9P-PT57",
    "ncei_template_version": "NCEI_NetCDF_Grid_Template_v2.0",
}


def coordinates(d, day):
    t = d.createVariable("time", "f4", ("time",))
    t.long_name, t.units = "Center time of the day", "days since 1978-01-01 12:00:00"
    t[:] = np.array([day], "f4")
    z = d.createVariable("zlev", "f4", ("zlev",))
    z.long_name, z.units, z.actual_range, z.positive = "Sea surface height", "meters", "0, 0", "down"
    z[:] = np.zeros(1, "f4")
    lat = d.createVariable("lat", "f4", ("lat",))
    lat.long_name, lat.units, lat.grids = "Latitude", "degrees_north", "Uniform grid from -89.875 to 89.875 by 0.25"
    lat[:] = np.linspace(-89.875, 89.875, NLAT, dtype="f8").astype("f4")
    lon = d.createVariable("lon", "f4", ("lon",))
    lon.long_name, lon.units, lon.grids = "Longitude", "degrees_east", "Uniform grid from 0.125 to 359.875 by 0.25"
    lon[:] = np.linspace(0.125, 359.875, NLON, dtype="f8").astype("f4")


def write_day(nc_dir, day, fields):
    date = EPOCH + datetime.timedelta(days=day)
    name = "oisst-avhrr-v02r01.%s.nc" % date.strftime("%Y%m%d")
    with netCDF4.Dataset(os.path.join(nc_dir, name), "w", format="NETCDF4") as d:
        d.setncatts(GLOBAL)
        d.setncatts({"id": name, "time_coverage_start": date.strftime("%Y-%m-%dT00:00:00Z"),
                     "time_coverage_end": date.strftime("%Y-%m-%dT23:59:59Z")})
        d.createDimension("time", None)
        d.createDimension("zlev", 1)
        d.createDimension("lat", NLAT)
        d.createDimension("lon", NLON)
        coordinates(d, day)
        for name_, (long_name, units, lo, hi) in VARS.items():
            v = d.createVariable(name_, "i2", ("time", "zlev", "lat", "lon"), zlib=True, complevel=4, shuffle=True,
                                 chunksizes=(1, 1, NLAT, NLON), fill_value=np.int16(-999))
            v.set_auto_maskandscale(False)
            v.setncatts({"long_name": long_name, "units": units, "add_offset": np.float32(0),
                         "scale_factor": np.float32(0.01), "valid_min": np.int16(lo), "valid_max": np.int16(hi)})
            v[0, 0] = fields[name_]
    return name


def publish(nc_dir, names, out):
    import numcodecs
    import xarray as xr

    ds = xr.open_mfdataset([os.path.join(nc_dir, n) for n in names], combine="nested", concat_dim="time",
                           data_vars="minimal", coords="minimal", compat="override", parallel=False)
    # to_zarr's encoding replaces a variable's whole encoding: the packing read
    # from the files (dtype, scale_factor, add_offset, _FillValue) goes with it
    kept = ("dtype", "scale_factor", "add_offset", "_FillValue")
    zstd = numcodecs.Zstd(level=3)
    encoding = {v: {**{k: ds[v].encoding[k] for k in kept if k in ds[v].encoding}, "chunks": (1, 1, 360, 360),
                    "compressor": zstd} for v in VARS}
    ds.to_zarr(out, mode="w-", encoding=encoding, consolidated=True)


def main():
    nc_dir, first, days = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    out = sys.argv[sys.argv.index("--zarr") + 1] if "--zarr" in sys.argv else None
    os.makedirs(nc_dir, exist_ok=True)
    size = NLAT * NLON * 2
    names = []
    for t in range(days):
        fields = {}
        for name in VARS:
            raw = sys.stdin.buffer.read(size)
            if len(raw) != size:
                sys.exit("oisst_noaa.py: day %d ended early (%d of %d bytes of %s)" % (t, len(raw), size, name))
            fields[name] = np.frombuffer(raw, "<i2").reshape(NLAT, NLON)
        names.append(write_day(nc_dir, first + t, fields))
    if out:
        publish(nc_dir, names, out)
    print("\n".join(names))


main()
