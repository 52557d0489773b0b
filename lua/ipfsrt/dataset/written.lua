-- ipfsrt.dataset.written: coordinates and attributes as to_zarr and
-- to_netcdf write them.
local ipfsrt = require "ipfsrt"
local V = require "ipfsrt.dataset.variable"
local CF = require "ipfsrt.dataset.cf"
local nd = ipfsrt.ndarray

local M = {}

-- A coordinate as to_zarr and to_netcdf write it: its values (an n-d array)
-- or, for names (seasons), the names (a list of strings); and its
-- attributes. Times go as seconds since 1970-01-01 of their calendar, which
-- xarray decodes back to the same times.
function M.coordinate(c)
  local t = CF.time_of(c.name, c.attrs)
  local labels -- none of a scalar coordinate: its one value is read
  if #c.dims > 0 then labels = V.labels_of(c) end
  if labels and type(labels[1]) == "string" then return labels, c.attrs end
  if not t then return c:_values_array(), c.attrs end
  local attrs = {}
  for k, x in pairs(c.attrs) do attrs[k] = x end
  attrs.units, attrs.calendar = "seconds since 1970-01-01", t.calendar.name
  if not labels then return c:_values_array():astype("float64") * t.scale + t.epoch, attrs end -- a scalar one
  return nd.from(labels, "float64"), attrs
end

-- Attributes that describe stored packing, not the decoded values a writer
-- writes, and the coordinates attribute, which a writer names itself.
local NOT_WRITTEN = { scale_factor = true, add_offset = true, _FillValue = true, missing_value = true,
  _Unsigned = true, valid_min = true, valid_max = true, valid_range = true, coordinates = true }

-- The attributes to_zarr and to_netcdf keep of a variable's or coordinate's:
-- a new table, without the ones NOT_WRITTEN names.
function M.attributes(attrs)
  local out = {}
  for k, v in pairs(attrs or {}) do if not NOT_WRITTEN[k] then out[k] = v end end
  return out
end

return M
