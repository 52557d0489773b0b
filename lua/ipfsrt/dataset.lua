-- ipfsrt.dataset: a Zarr group as an xarray-like dataset.
--
--   local ds = ipfsrt.dataset.open("ipfs://CID")        -- like xarray.open_zarr
--   ds.sst.dims, ds.sst.shape, ds.sst.attrs, ds.vars, ds.coords, ds.dims
--   local box = ds.sst:sel { time = "2024-03-01", lat = { 20, 60 }, lon = { 270, 310 } }
--   box:values()                  -- an n-d array: CF-decoded (scale, offset, fill -> NaN)
--   box:mean()                    -- a number; v:mean("time") a variable without time
--   ds.sst:isel { time = 0, lat = { 100, 260 } }       -- by index: 0-based, half-open
--   ds.time:dates()               -- {"2024-01-01", ...}
--
--   (ds.sst - ds.anom):mean("time")                   -- lazy arithmetic, evaluated a slab at a time
--   ds.sst:mean({"lat", "lon"}, {weights = ds.lat:deg2rad():cos()})
--   ds.sst:groupby("time.month"):mean()               -- also resample{time = "month"}, rolling{time = 7}
--   v:to_csv(path), v:to_zarr(path); ipfsrt.plot.map(v, {path = "x.png"})
--   ds:append(day, {dim = "time", output = "delta.car"})  -- a new version (ipfsrt.dataset.append)
--   new:changed_since(old_root)                             -- what to re-read (ipfsrt.dataset.changes)
--
-- Selections are lazy: only :values() (or a reduction) reads, and only the
-- chunks the selection needs. open(url[, opts]): opts.client (an
-- ipfsrt.client), or gateways/policy/verify/... to make one; opts.decode =
-- false keeps the stored values (no CF decoding); opts.s3 for s3:// (see
-- ipfsrt.zarr); opts.load_coords = false
-- leaves the coordinates unread until a selection by label needs them.
--
-- The package: this file (the Dataset class, open) and lua/ipfsrt/dataset/:
-- variable.lua (the Variable class and the interface its parts use), cf,
-- labels, cftime, gather, lazy, and the parts that give Variable (and
-- Dataset) their methods, listed below.
local ipfsrt = require "ipfsrt"
local zarr = require "ipfsrt.zarr"
local V = require "ipfsrt.dataset.variable"
local CF = require "ipfsrt.dataset.cf"
local gather = require "ipfsrt.dataset.gather"
local methods = require "ipfsrt.dataset.methods"
local arithmetic = require "ipfsrt.dataset.arithmetic"

local M = {}
local Dataset, Variable = {}, V.Variable

local bad = require "ipfsrt.bad" ("dataset: ")
M.where = arithmetic.where

-- ------------------------------------------------------------- datasets
local sorted_names = methods.sorted_names

-- ds:names() -> the data variables' names, sorted (ds.vars is keyed by name: # is 0).
function Dataset.names(ds) return sorted_names(rawget(ds, "_vars")) end

-- ds.NAME: a data variable or coordinate; another name is an error that lists them.
function Dataset.__index(ds, k)
  local method = rawget(Dataset, k)
  if method ~= nil then return method end
  local v = rawget(ds, "_vars")[k] or rawget(ds, "_coords")[k]
  if v == nil and type(k) == "string" and not k:match("^_") then
    error(ipfsrt.error.new("not_found", string.format("dataset: no variable %s (variables: %s; coordinates: %s; " ..
      "methods: %s)", k, table.concat(sorted_names(rawget(ds, "_vars")), ", "),
      table.concat(sorted_names(rawget(ds, "_coords")), ", "), table.concat(methods.names(Dataset), ", "))), 2)
  end
  return v
end

-- ds:isel{...}, ds:sel{...}: every variable selected alike (those without
-- the dimensions named are kept as they are).
for _, how in ipairs { "isel", "sel" } do
  Dataset[how] = function(ds, spec)
    local out = setmetatable({ _vars = {}, _coords = ds._coords, attrs = ds.attrs, dims = ds.dims,
      decode = ds.decode, vars = {}, coords = ds.coords }, Dataset)
    for name, v in pairs(ds._vars) do
      local mine = {}
      for k, want in pairs(spec) do
        for _, d in ipairs(v.dims) do if d == k or k == "method" or k == "tolerance" then mine[k] = want end end
      end
      out._vars[name] = v[how](v, mine)
      out.vars[name] = out._vars[name]
    end
    return out
  end
end

function Dataset.__tostring(ds)
  local dims, lines = {}, { "<ipfsrt.dataset.Dataset>" }
  for name, n in pairs(ds.dims) do dims[#dims + 1] = name .. ": " .. n end
  table.sort(dims)
  lines[#lines + 1] = "Dimensions: (" .. table.concat(dims, ", ") .. ")"
  for _, group in ipairs { { "Coordinates", ds._coords }, { "Data variables", ds._vars } } do
    lines[#lines + 1] = group[1] .. ":"
    for _, name in ipairs(sorted_names(group[2])) do
      local v = group[2][name]
      lines[#lines + 1] = string.format("    %-8s (%s) %s", name, table.concat(v.dims, ", "), V.array(v).dtype)
    end
  end
  local keys = sorted_names(ds.attrs)
  if #keys > 0 then lines[#lines + 1] = "Attributes:" end
  for _, k in ipairs(keys) do lines[#lines + 1] = string.format("    %s: %s", k, tostring(ds.attrs[k])) end
  return table.concat(lines, "\n")
end

local function full_selection(array)
  local sel = {}
  for i, n in ipairs(array.shape) do sel[i] = { start = 0, count = n, step = 1 } end
  return sel
end

-- The dimension names of an array: v3 dimension_names, v2 _ARRAY_DIMENSIONS.
local function dims_of(array)
  local dims = {}
  for i = 1, #array.shape do
    local n = array.dimension_names and array.dimension_names[i]
    dims[i] = (n ~= nil and n ~= ipfsrt.null) and n or ("dim_" .. (i - 1))
  end
  return dims
end

-- Every coordinate read now, as xarray builds its indexes and decodes times:
-- together, in one round trip over a gateway.
local function load_coordinates(ds)
  local names, arrays = {}, {}
  for name in pairs(ds._coords) do names[#names + 1] = name end
  table.sort(names)
  for i, name in ipairs(names) do arrays[i] = V.array(ds._coords[name]) end
  for first = 1, #names, 64 do -- as many as one read_many takes
    local part = table.move(arrays, first, math.min(first + 63, #arrays), 1, {})
    for k, raw in ipairs(zarr.read_many(part)) do
      local name = names[first + k - 1]
      local c = ds._coords[name]
      local _, t = V.coordinate(c, name, CF.decoded(V.cf(c), raw))
      if t then c:dates() end
    end
  end
end

local CLIENT_OPTIONS = { "gateways", "policy", "verify", "cache", "concurrency", "max_concurrency", "retries",
  "timeout", "min_rate", "deadline", "give_up", "cacert", "log", "threads" }

-- open(url | store[, opts]) -> Dataset
local OPEN_OPTIONS = { client = true, path = true, s3 = true, decode = true, load_coords = true }
for _, k in ipairs(CLIENT_OPTIONS) do OPEN_OPTIONS[k] = true end

-- Unknown keys are errors that list the known ones (a misspelt gateways would
-- otherwise fall back to the public gateways without a word).
local function check_open_options(opts)
  for k in pairs(opts) do
    if not OPEN_OPTIONS[k] then
      bad("open: no option %s (options: %s)", tostring(k), table.concat(sorted_names(OPEN_OPTIONS), ", "))
    end
  end
end

function M.open(where, opts)
  opts = opts or {}
  if type(opts) ~= "table" then bad("options must be a table") end
  check_open_options(opts)
  local client = opts.client
  if not client and type(where) == "string" and (where:match("^ip[fn]s://") or where:match("^/ip[fn]s/")) then
    local copts, any = {}, false
    for _, k in ipairs(CLIENT_OPTIONS) do
      if opts[k] ~= nil then copts[k], any = opts[k], true end
    end
    if any then client = ipfsrt.client(copts) end
  end
  local g = zarr.open(where, { path = opts.path, client = client, s3 = opts.s3, verify = opts.verify })
  if g.is_array then bad("%s is an array; a dataset is a group", tostring(where)) end
  local ds = setmetatable({ _vars = {}, _coords = {}, attrs = g.attrs, dims = {}, decode = opts.decode ~= false,
    vars = {}, coords = {}, _client = client, _store = rawget(g, "_store") }, Dataset)
  local arrays = g:arrays()
  for _, a in ipairs(arrays) do
    local name = a.path:match("[^/]+$")
    local dims = dims_of(a)
    for i, d in ipairs(dims) do
      local n = ds.dims[d]
      if n and n ~= a.shape[i] then -- as xarray refuses: a coordinate would not fit its dimension
        bad("conflicting sizes for dimension %s: %d in %s, %d before", d, a.shape[i], name, n)
      end
      ds.dims[d] = a.shape[i]
    end
    local v = V.stored(ds, name, a, dims, full_selection(a))
    if ds.decode then -- times and CF attributes that cannot be decoded fail the opening, as in xarray
      CF.time_of(name, v.attrs)
      V.cf(v)
    end
    if #dims == 1 and dims[1] == name then
      ds._coords[name], ds.coords[name] = v, v
    else
      ds._vars[name], ds.vars[name] = v, v
    end
  end
  if opts.load_coords ~= false then load_coordinates(ds) end
  return ds
end

-- ds:_members() -> its data variables and coordinates (name -> variable, a
-- new table); ds:_source() -> its store and client (nil: not stored): what the parts
-- that give Dataset methods ask a dataset.
function Dataset._members(ds)
  local out = {}
  for name, v in pairs(rawget(ds, "_vars")) do out[name] = v end
  for name, c in pairs(rawget(ds, "_coords")) do out[name] = c end
  return out
end
function Dataset._source(ds) return rawget(ds, "_store"), rawget(ds, "_client") end

-- Variable's methods beyond its own (dataset/variable.lua), each from the
-- part that defines it; Dataset's from append and changes.
for _, part in ipairs { "reduce", "arithmetic", "extrema", "ordered", "groupby", "rolling", "coarsen", "along",
  "polyfit", "csv", "to_zarr", "to_netcdf" } do
  V.add_methods(require("ipfsrt.dataset." .. part).methods)
end
for _, part in ipairs { "append", "changes" } do
  for name, f in pairs(require("ipfsrt.dataset." .. part).dataset_methods) do Dataset[name] = f end
end

M.list, M.points = gather.list, gather.points
M.diff = require("ipfsrt.dataset.changes").diff -- diff(old, new[, opts]): see ipfsrt.dataset.changes

-- append(old, from, opts) -> the new root (or nil, a folder changed in
-- place): old opened (a URL, a CAR, a folder) and from appended along
-- opts.dim, or written into opts.region (see ipfsrt.dataset.append).
function M.append(old, from, opts)
  if type(old) == "string" then old = M.open(old) end
  return require("ipfsrt.dataset.append").write(old, from, opts)
end

M.Dataset, M.Variable = Dataset, Variable
-- M.FOLD_BYTES and M.SLAB_BYTES (ipfsrt.dataset.variable's tuning) read and
-- set the toolkit's own.
return setmetatable(M, {
  __index = function(_, k) return V.tuning[k] end,
  __newindex = function(t, k, x) if V.tuning[k] ~= nil then V.tuning[k] = x else rawset(t, k, x) end end,
})
