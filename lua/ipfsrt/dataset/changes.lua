-- ipfsrt.dataset.changes: what changed between two versions of a dataset, from
-- their blocks. Only directories whose CIDs differ are read (a subtree with
-- the same CID is the same), so comparing a year of data with the same year
-- and a day is reading the day.
--
--   local r = ipfsrt.dataset.diff("old.car", { "delta.car", "old.car" })
--   r.variables.sst.change             -- "changed" | "added" | "removed"
--   r.variables.sst.chunks.added       -- {"366.0.0.0", ...}: chunk keys
--   r.variables.sst.ranges.time        -- {{366, 367, "2025-01-01T12:00:00", "2025-01-01T12:00:00"}}
--   new.sst:isel(r.variables.sst.isel) -- the box of what changed, to read again
--   new:changed_since("old.car")       -- the same report, new being a dataset
--
-- Each side is a CAR, a list of CARs read as one (a delta over the old CAR),
-- an ipfs:// root (verified through a client: opts.client) or a store. A
-- report: variables (name -> {change, metadata, shape = {old, new}, dtype = {old, new}, attrs =
-- {added, removed, changed}, chunks = {added, removed, changed}, ranges =
-- {dim -> {{start, stop, first label, last label}, ...}}, isel = {dim ->
-- {start, stop}}}), attrs (the group's: {added, removed, changed}), files
-- (other keys that changed: {path = kind}), old and new (the roots' stores).
local ipfsrt = require "ipfsrt"
local zarr = require "ipfsrt.zarr"
local cftime = require "ipfsrt.dataset.cftime"
local C = require("ipfsrt.core").zarr

local M = {}

local bad = require "ipfsrt.bad" ("diff: ")

local METADATA = { [".zarray"] = true, [".zattrs"] = true, ["zarr.json"] = true, [".zgroup"] = true,
  [".zmetadata"] = true }

local function store_of(side, opts)
  local source = type(side) == "table" and getmetatable(side) and side._source -- a dataset
  if source then return (source(side)) end
  if type(side) == "string" or type(side) == "table" then return zarr.store(side, { client = opts.client }) end
  if type(side) == "userdata" then return side end
  bad("a version is a CAR, a list of CARs, an ipfs:// root, a store or a dataset")
end

-- path -> array, for every array of g, the group at the top of a store (a
-- store that cannot be read, a block missing or a gateway's 404, failed the
-- diff when it was opened: it is never taken for a version without arrays).
local function arrays_of(g)
  local out = {}
  if g.is_array then return out end
  for _, a in ipairs(g:arrays()) do out[a.path] = a end
  return out
end

-- The array a path is in (the longest array path before it), and the key in it.
local function owner(path, arrays)
  local best
  for i in path:gmatch("()/") do
    local prefix = path:sub(1, i - 1)
    if arrays[prefix] then best = prefix end
  end
  return best, best and path:sub(#best + 2)
end

-- A chunk key's indices, or nil when key is no chunk of a.
local function chunk_index(a, key)
  local idx = {}
  for n in key:gmatch("%d+") do idx[#idx + 1] = math.tointeger(tonumber(n)) end
  if #idx ~= #a.shape then return nil end
  local ok, want = pcall(a.chunk_key, a, table.unpack(idx)) -- the key from the store's top
  if not ok or want ~= (a.path == "" and "" or a.path .. "/") .. key then return nil end
  return idx
end

local function json_of(x) return ipfsrt.json.encode(x == nil and ipfsrt.null or x) end

local function attr_changes(old, new)
  local out = { added = {}, removed = {}, changed = {} }
  old, new = old or {}, new or {}
  for k, v in pairs(new) do
    if old[k] == nil then out.added[#out.added + 1] = k
    elseif json_of(old[k]) ~= json_of(v) then out.changed[#out.changed + 1] = k end
  end
  for k in pairs(old) do if new[k] == nil then out.removed[#out.removed + 1] = k end end
  for _, l in pairs(out) do table.sort(l) end
  return out
end

local function any(t) return next(t.added) or next(t.removed) or next(t.changed) end

-- The labels of the dimensions of a (a coordinate array per dimension, when
-- the group has one): dim -> function(i) -> label text. Each label is read
-- once per diff (seen: coordinate -> {index -> label}), however many
-- variables share the dimension.
local function labeller(arrays, a, seen)
  local out = {}
  for _, d in ipairs(a.dimension_names or {}) do
    local c = d ~= ipfsrt.null and arrays[d]
    if c and #c.shape == 1 then
      seen[c] = seen[c] or {}
      out[d] = function(i)
        if seen[c][i] ~= nil then return seen[c][i] end
        local x = c:read { { i, i + 1 } }:tolist()[1]
        local units, cal = c.attrs.units, cftime.calendar(c.attrs.calendar)
        local t = type(units) == "string" and cal and cftime.units(units, cal)
        if t and type(x) == "number" then x = cftime.format(x * t.scale + t.epoch, cal) end
        seen[c][i] = x
        return x
      end
    end
  end
  return out
end

-- Index ranges [start, stop) along each dimension that the chunks cover,
-- joined where they touch, with the labels of their ends.
local function ranges_of(a, keys, labels)
  local per_dim = {}
  for _, idx in ipairs(keys) do
    for d, i in ipairs(idx) do
      local c, n = a.chunks[d], a.shape[d]
      per_dim[d] = per_dim[d] or {}
      per_dim[d][#per_dim[d] + 1] = { i * c, math.min((i + 1) * c, n) }
    end
  end
  local out, box = {}, {}
  for d, list in pairs(per_dim) do
    table.sort(list, function(x, y) return x[1] < y[1] end)
    local joined = {}
    for _, r in ipairs(list) do
      local last = joined[#joined]
      if last and r[1] <= last[2] then last[2] = math.max(last[2], r[2]) else joined[#joined + 1] = { r[1], r[2] } end
    end
    local name = a.dimension_names and a.dimension_names[d] ~= ipfsrt.null and a.dimension_names[d] or ("dim_" .. (d - 1))
    for _, r in ipairs(joined) do
      if r[2] > r[1] and labels[name] then r[3], r[4] = labels[name](r[1]), labels[name](r[2] - 1) end
    end
    out[name] = joined
    if #joined > 0 then box[name] = { joined[1][1], joined[#joined][2] } end
  end
  return out, box
end

local function variable_entry(report, name)
  local v = report.variables[name]
  if not v then
    v = { change = "changed", metadata = false, chunks = { added = {}, removed = {}, changed = {} } }
    report.variables[name] = v
  end
  return v
end

-- One changed file placed in the report: a chunk, an array's metadata, or other.
local function place(report, c, olds, news)
  local path, kind = c.path, c.kind
  local in_new = kind ~= "removed"
  local name, key = owner(path, in_new and news or olds)
  if not name then name, key = owner(path, in_new and olds or news) end
  if not name then
    report.files[path] = kind
    return
  end
  local v = variable_entry(report, name)
  local a = (kind == "removed" and olds[name]) or news[name] or olds[name]
  if METADATA[key] then v.metadata = true return end
  local idx = chunk_index(a, key)
  if not idx then report.files[path] = kind return end
  local list = v.chunks[kind]
  list[#list + 1] = key
  v._keys = v._keys or {}
  v._keys[#v._keys + 1] = { idx = idx, array = a }
end

local function finish_variable(v, name, olds, news, seen)
  local o, n = olds[name], news[name]
  v.change = (o and n) and "changed" or (n and "added" or "removed")
  if o and n then
    if json_of(o.shape) ~= json_of(n.shape) then v.shape = { old = o.shape, new = n.shape } end
    if o.dtype ~= n.dtype then v.dtype = { old = o.dtype, new = n.dtype } end
    v.attrs = attr_changes(o.attrs, n.attrs)
  end
  local a = n or o
  local keys = {}
  for _, k in ipairs(v._keys or {}) do keys[#keys + 1] = k.idx end
  v._keys = nil
  for _, l in pairs(v.chunks) do table.sort(l) end
  v.ranges, v.isel = ranges_of(a, keys, labeller(n and news or olds, a, seen))
end

-- diff(old, new[, opts]) -> the report (see the top)
function M.diff(old, new, opts)
  opts = opts or {}
  if type(opts) ~= "table" then bad("options are a table") end
  local old_store, new_store = store_of(old, opts), store_of(new, opts)
  local report = { variables = {}, files = {}, old = old_store, new = new_store }
  local changes = C.store_diff(old_store, new_store)
  local g_old, g_new = zarr.open(old_store), zarr.open(new_store)
  local olds, news = arrays_of(g_old), arrays_of(g_new)
  for _, c in ipairs(changes) do place(report, c, olds, news) end
  for name in pairs(news) do if not olds[name] then variable_entry(report, name) end end
  for name in pairs(olds) do if not news[name] then variable_entry(report, name) end end
  local seen = {}
  for name, v in pairs(report.variables) do
    finish_variable(v, name, olds, news, seen)
    local quiet = v.change == "changed" and not v.shape and not v.dtype and not any(v.attrs) and not any(v.chunks)
    if quiet and not v.metadata then report.variables[name] = nil end
  end
  report.attrs = attr_changes(g_old.attrs, g_new.attrs)
  report.changes = #changes
  return report
end

-- The methods this module gives the Dataset class.
M.dataset_methods = {}

-- ds:changed_since(old[, opts]) -> diff(old, ds): what to read again. An
-- ipfs:// old version is read through the dataset's own client (its
-- gateways), unless opts.client names another.
function M.dataset_methods.changed_since(ds, old, opts)
  local store, client = ds:_source()
  if not store then bad("changed_since: the dataset is not stored") end
  opts = opts or {}
  if type(opts) ~= "table" then bad("options are a table") end
  if opts.client == nil and client then
    local with = { client = client }
    for k, v in pairs(opts) do with[k] = v end
    opts = with
  end
  return M.diff(old, store, opts)
end

return M
