-- ipfsrt.to_zarr: a dataset variable (stored, computed or lazy) written as a
-- Zarr v2 group that xarray opens as it opened the source: the values
-- (CF-decoded: floats with NaN where missing), a coordinate per dimension
-- with its attributes, dimension names (_ARRAY_DIMENSIONS), and the
-- metadata consolidated.
--
--   clim:to_zarr("clim.zarr")                      -- xr.open_zarr("clim.zarr").sst
--   v:to_zarr("out.zarr", { name = "sst_clim", chunks = { 1, 720, 1440 }, compressor = "zstd" })
local ipfsrt = require "ipfsrt"
local zarr = require "ipfsrt.zarr"
local nd = ipfsrt.ndarray

local M = {}
local I -- the dataset's internals (install)

local function bad(fmt, ...)
  error(ipfsrt.error.new("bad_argument", "dataset: to_zarr: " .. string.format(fmt, ...)), 4)
end

local OPTIONS = { name = true, chunks = true, compressor = true }
-- Attributes that describe stored packing, not the decoded values written.
local PACKING = { scale_factor = true, add_offset = true, _FillValue = true, missing_value = true, _Unsigned = true,
  valid_min = true, valid_max = true, valid_range = true }

local function copy_attrs(attrs, dims)
  local out = {}
  for k, v in pairs(attrs or {}) do if not PACKING[k] then out[k] = v end end
  out._ARRAY_DIMENSIONS = dims
  return out
end

local function write_array(root, name, values, dims, attrs, opts, dtype)
  local float = values.dtype:match("^float") ~= nil
  local a = zarr.create(root, { path = name, zarr_format = 2, shape = values.shape, dtype = dtype or values.dtype,
    chunks = opts.chunks or values.shape, compressor = opts.compressor == nil and "zstd" or opts.compressor,
    fill_value = float and 0 / 0 or nil, attrs = copy_attrs(attrs, dims) })
  if #values.shape > 0 then a:write(nil, values) end
end

-- Names as Zarr v2 strings ("<U" of the longest name's characters, held as
-- UTF-8 in four bytes a character): the array and its dtype.
local function names_array(labels)
  local chars = 1
  for _, x in ipairs(labels) do chars = math.max(chars, utf8.len(x) or bad("label %q is not UTF-8", x)) end
  local padded = {}
  for i, x in ipairs(labels) do padded[i] = x .. string.rep("\0", 4 * chars - #x) end
  return nd.frombytes(table.concat(padded), "S" .. 4 * chars, { #labels }), "U" .. chars
end

-- A coordinate's values and attributes as written, and the dtype to write
-- them in when not theirs: times in seconds since 1970-01-01 of their
-- calendar, names (seasons) as strings, others as the variable's values are.
local function coordinate_values(c)
  local t = I.time_of(c.name, c.attrs)
  local labels = I.labels_of(c)
  if type(labels[1]) == "string" then
    local values, dtype = names_array(labels)
    return values, c.attrs, dtype
  end
  if not t then return c:values(), c.attrs end
  local attrs = {}
  for k, x in pairs(c.attrs) do attrs[k] = x end
  attrs.units, attrs.calendar = "seconds since 1970-01-01", t.calendar.name
  return nd.from(labels, "float64"), attrs
end

function M.to_zarr(v, path, opts)
  opts = opts or {}
  if type(path) ~= "string" then bad("a folder to write") end
  if type(opts) ~= "table" then bad("options are a table ({name =, chunks =, compressor =})") end
  for k in pairs(opts) do
    if not OPTIONS[k] then bad("no option %s (options: chunks, compressor, name)", tostring(k)) end
  end
  local name = opts.name or v.name
  local values = v:values()
  zarr.group(path, { zarr_format = 2 })
  write_array(path, name, values, v.dims, v.attrs, opts)
  local coords = v:_coords()
  for _, d in ipairs(v.dims) do
    local c = coords[d]
    if c then
      local x, attrs, dtype = coordinate_values(c)
      write_array(path, d, x, { d }, attrs, {}, dtype)
    end
  end
  zarr.consolidate(path)
end

function M.install(internals, Variable)
  I = internals
  Variable.to_zarr = M.to_zarr
end

return M
