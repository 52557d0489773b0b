-- ipfsrt.dataset.to_zarr: a dataset variable (stored, computed or lazy) written as a
-- Zarr v2 group that xarray opens as it opened the source: the values
-- (CF-decoded: floats with NaN where missing), a coordinate per dimension
-- with its attributes, dimension names (_ARRAY_DIMENSIONS), and the
-- metadata consolidated.
--
--   clim:to_zarr("clim.zarr")                      -- xr.open_zarr("clim.zarr").sst
--   v:to_zarr("out.zarr", { name = "sst_clim", chunks = { 1, 720, 1440 }, compressor = "zstd" })
--   v:to_zarr("out.zarr", { mode = "a" })          -- beside what the group holds
--   v:to_zarr("old.car", { append_dim = "time", output = "delta.car" })  -- a new version, grown
--   v:to_zarr("out.zarr", { region = { time = { 10, 12 } } })           -- a region written again
--
-- As xarray's, mode says what may already be at the path: "w-" (the
-- default) nothing at all; "w" a Zarr store, replaced whole; "a" a Zarr v2
-- group, the arrays written replacing those of the same names. A link at the
-- path is never followed, and a folder that is no Zarr store never written into.
local ipfsrt = require "ipfsrt"
local zarr = require "ipfsrt.zarr"
local C = require("ipfsrt.core").zarr
local nd = ipfsrt.ndarray

local M = {}
local written = require "ipfsrt.dataset.written"

local bad = require "ipfsrt.bad" ("dataset: to_zarr: ")

local OPTIONS = { name = true, chunks = true, compressor = true, mode = true, append_dim = true, region = true,
  force = true, output = true, pack = true }
local MODES = { ["w-"] = true, w = true, a = true }
local MAX_DEPTH = 64 -- of folders erased in a store replaced

local function copy_attrs(attrs, dims, coordinates)
  local out = written.attributes(attrs)
  out._ARRAY_DIMENSIONS = dims
  out.coordinates = coordinates -- those off its dimensions, as xarray names them
  return out
end

local function write_array(root, name, values, dims, attrs, opts, dtype, coordinates)
  local float = values.dtype:match("^float") ~= nil
  local a = zarr.create(root, { path = name, zarr_format = 2, shape = values.shape, dtype = dtype or values.dtype,
    chunks = opts.chunks or values.shape, compressor = opts.compressor == nil and "zstd" or opts.compressor,
    fill_value = float and 0 / 0 or nil, attrs = copy_attrs(attrs, dims, coordinates) })
  a:write(nil, values)
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
  local values, attrs = written.coordinate(c)
  if nd.isarray(values) then return values, attrs end
  local names, dtype = names_array(values)
  return names, attrs, dtype
end

-- Every key under prefix erased (the store's folders are walked without
-- following links: see the folder store).
local function erase_under(store, prefix, depth)
  if depth > MAX_DEPTH then bad("%s: folders nested over %d deep", prefix, MAX_DEPTH) end
  for _, e in ipairs(store:list_dir(prefix)) do
    if e.folder then erase_under(store, prefix .. e.name .. "/", depth + 1)
    else store:erase(prefix .. e.name) end
  end
end

local function has_key(store, key)
  local ok, got = pcall(store.get, store, key)
  return ok and got ~= nil
end

-- What stands at path checked against mode before anything is written;
-- true when a group must be made there.
local function prepare(path, mode, names)
  local kind = C.path_kind(path)
  if kind == "none" then return true end
  if mode == "w-" then bad("%s exists (mode \"w\" replaces a Zarr store there, \"a\" adds to it)", path) end
  if kind ~= "folder" then bad("%s is a %s, not a Zarr store: not writing there", path, kind) end
  local store = zarr.store(path, { writable = true })
  local v2, v3 = has_key(store, ".zgroup"), has_key(store, "zarr.json")
  local empty = #store:list_dir("") == 0
  if mode == "w" then
    if not (v2 or v3 or has_key(store, ".zarray") or empty) then
      bad("%s is a folder but no Zarr store: not replacing it", path)
    end
    erase_under(store, "", 0)
    return true
  end
  if not v2 then bad("%s is no Zarr v2 group to add to (to_zarr writes Zarr v2)", path) end
  for _, n in ipairs(names) do erase_under(store, n .. "/", 0) end
  return false
end

-- As xarray's append_dim and region: v (its coordinates with it) into the
-- dataset at path, checked against it first (see ipfsrt.dataset.append); at a CAR or
-- an ipfs:// root a new version, its blocks to opts.output, its root returned.
local function into_existing(v, path, opts)
  if opts.mode or opts.compressor or opts.name then bad("append_dim and region write as the dataset there stores") end
  local old = require("ipfsrt.dataset").open(path)
  return require("ipfsrt.dataset.append").write(old, v, { dim = opts.append_dim, region = opts.region, output = opts.output,
    pack = opts.pack, chunks = opts.chunks, force = opts.force })
end

-- to_zarr's writing, once the folder is the caller's
local function write_variable(v, path, opts, mode)
  local name = opts.name or v.name
  local values = v:_values_array()
  local names, aux, off = { name }, v:_aux(), {}
  for _, d in ipairs(v.dims) do names[#names + 1] = d end
  for n in pairs(aux) do
    if n ~= name then off[#off + 1], names[#names + 1] = n, n end
  end
  table.sort(off)
  if prepare(path, mode, names) then zarr.group(path, { zarr_format = 2 }) end
  write_array(path, name, values, v.dims, v.attrs, opts, nil, #off > 0 and table.concat(off, " ") or nil)
  for _, n in ipairs(off) do
    local x, attrs, dtype = coordinate_values(aux[n])
    write_array(path, n, x, aux[n].dims, attrs, {}, dtype)
  end
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

function M.to_zarr(v, path, opts)
  opts = opts or {}
  if type(path) ~= "string" then bad("a folder to write") end
  if type(opts) ~= "table" then bad("options are a table ({name =, chunks =, compressor =, mode =})") end
  for k in pairs(opts) do
    if not OPTIONS[k] then
      bad("no option %s (options: append_dim, chunks, compressor, force, mode, name, output, pack, region)", tostring(k))
    end
  end
  if opts.append_dim ~= nil or opts.region ~= nil then return into_existing(v, path, opts) end
  local mode = opts.mode or "w-"
  if not MODES[mode] then bad("mode is \"w-\", \"w\" or \"a\", not %s", tostring(mode)) end
  -- adding to a group another process may be changing (ipfsrt.dataset.append's lock)
  local lock = mode == "a" and C.path_kind(path) == "folder" and zarr.store(path, { writable = true }) or nil
  if lock then lock:begin_change() end
  local ok, err = pcall(write_variable, v, path, opts, mode)
  if lock then lock:end_change(ok) end
  if not ok then error(err, 0) end
end


-- The methods this module gives the Variable class.
M.methods = { to_zarr = M.to_zarr }

return M
