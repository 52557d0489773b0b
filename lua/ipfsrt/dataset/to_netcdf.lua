-- ipfsrt.dataset.to_netcdf: a dataset variable written as a NetCDF-4 file (through
-- Debian's libnetcdf) that xarray opens as it opened the source: the values
-- CF-decoded (floats with NaN where missing, _FillValue NaN), a coordinate
-- per dimension with its attributes (times in seconds since 1970-01-01 of
-- their calendar, names as strings), the scalar coordinates a selection left
-- and the coordinates along points, named in the variable's "coordinates"
-- attribute as xarray writes them.
--
--   clim:to_netcdf("clim.nc")                          -- xr.open_dataset("clim.nc").sst
--   v:to_netcdf("out.nc", { name = "sst_clim", mode = "w-" })
--
-- mode as xarray's: "w" (the default) replaces a file at the path, "w-"
-- refuses one. The file appears complete or not at all.
local ipfsrt = require "ipfsrt"
local C = require "ipfsrt.core"
local nd = ipfsrt.ndarray

local M = {}
local written = require "ipfsrt.dataset.written"

local bad = require "ipfsrt.bad" ("dataset: to_netcdf: ")

local OPTIONS = { name = true, mode = true }

local function attributes(attrs, values, extra)
  local out = written.attributes(attrs)
  if values and values.dtype:match("^float") then out._FillValue = 0 / 0 end
  for k, v in pairs(extra or {}) do out[k] = v end
  return next(out) and ipfsrt.json.encode(out) or nil
end

-- A coordinate written: times in seconds since 1970-01-01 of their calendar
-- (as xarray reads them back), names as strings, other labels as they are.
local function write_coordinate(w, name, c)
  local values, attrs = written.coordinate(c)
  if not nd.isarray(values) then return w:strings(name, c.dims[1], values, attributes(attrs)) end
  w:var(name, c.dims, values, attributes(attrs, values))
end

function M.to_netcdf(v, path, opts)
  opts = opts or {}
  if type(path) ~= "string" then bad("a file to write") end
  if type(opts) ~= "table" then bad("options are a table ({name =, mode =})") end
  for k in pairs(opts) do
    if not OPTIONS[k] then bad("no option %s (options: mode, name)", tostring(k)) end
  end
  local mode = opts.mode or "w"
  if mode ~= "w" and mode ~= "w-" then bad("mode is \"w\" or \"w-\", not %s", tostring(mode)) end
  local name = opts.name or v.name
  local values = v:_values_array()
  local w = C.netcdf_writer(path, mode == "w")
  for i, d in ipairs(v.dims) do w:dim(d, v.shape[i]) end
  local coords, aux = v:_coords(), v:_aux()
  for _, d in ipairs(v.dims) do
    if coords[d] and d ~= name then write_coordinate(w, d, coords[d]) end
  end
  local named = {}
  for n in pairs(aux) do
    if n ~= name then named[#named + 1] = n end
  end
  table.sort(named)
  for _, n in ipairs(named) do write_coordinate(w, n, aux[n]) end
  w:var(name, v.dims, values, attributes(v.attrs, values, #named > 0 and { coordinates = table.concat(named, " ") }))
  w:finish()
end

-- The methods this module gives the Variable class.
M.methods = { to_netcdf = M.to_netcdf }

return M
