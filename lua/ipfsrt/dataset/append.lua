-- ipfsrt.dataset.append: a dataset grown along a dimension, or a region of it
-- written again, in place (a folder, S3) or as a new version of a
-- content-addressed one (a CAR, an ipfs:// root): then only what changed is
-- made, the new root is the one `ipfsrt pack` gives for the changed folder
-- (with the settings the old one was packed with), and the new blocks go to a
-- delta CAR.
--
--   local root = old:append(day, { dim = "time", output = "delta.car" })   -- old, day: datasets
--   ipfsrt.dataset.append("old.car", "day.nc.json", { dim = "time", output = "delta.car" })
--   day.sst:to_zarr("old.car", { append_dim = "time", output = "delta.car" })
--   old:replace(fixed, { region = { time = { 10, 12 } }, output = "delta.car" })
--
-- Everything is checked before anything is written, and nothing is named
-- until the end: a refused append leaves nothing behind, and the old root is
-- whole whatever happens (its blocks are never touched). A folder changed in
-- place is locked for the change (another append, replace or to_zarr mode "a"
-- waits its turn, then plans against what is there), and its metadata takes
-- effect together at the end: killed at any point, it holds the old version
-- or the new one (ipfsrt_zarr_store_begin). An append is
-- refused, naming the variable and what does not fit, when a variable along
-- the dimension is missing from either side, when dimensions, their lengths,
-- data types (that the old encoding cannot hold), or asked-for chunks differ,
-- when coordinates off the dimension differ, or when the new labels along it
-- do not come after the old ones. Values are written as the old version
-- stores them: as they are when both sides encode alike, else encoded with
-- the old version's scale_factor, add_offset, fill value and time units.
local ipfsrt = require "ipfsrt"
local zarr = require "ipfsrt.zarr"
local C = require("ipfsrt.core").zarr
local nd = ipfsrt.ndarray

local M = {}
local V = require "ipfsrt.dataset.variable"
local CF = require "ipfsrt.dataset.cf"
local gather = require "ipfsrt.dataset.gather"
local methods = require "ipfsrt.dataset.methods"
local Dataset = {} -- the methods this module gives the Dataset class (M.dataset_methods)

local bad = require "ipfsrt.bad" ("")

local CONTENT_ADDRESSED = { car = true, ipfs = true }

-- -------------------------------------------------------------- sides

-- name -> variable of what is written: a dataset's variables and
-- coordinates, or a variable with its coordinates.
local function parts_of(from)
  if type(from) == "table" and getmetatable(from) and from._members then return from:_members() end -- a dataset
  if not V.is(from) then bad("append: the data is a dataset, a variable, or where to open one") end
  local out = { [from.name] = from }
  for d, c in pairs(from:_coords()) do out[d] = c end
  return out
end

local function has_dim(v, dim)
  for i, d in ipairs(v.dims) do if d == dim then return i - 1 end end
  return nil
end

local function same_list(a, b)
  if #a ~= #b then return false end
  for i = 1, #a do if a[i] ~= b[i] then return false end end
  return true
end

local function one(x)
  if type(x) == "table" and #x == 1 then return x[1] end
  return x
end

-- How v's values are stored: its data type and the attributes that decode them.
local ENCODING = { "scale_factor", "add_offset", "missing_value", "units", "calendar", "_Unsigned" }
local function encoding_of(v)
  local a = V.array(v)
  local e = { dtype = a and a.dtype, fill = one(v.attrs._FillValue) }
  if e.fill == nil and a and a.fill_value then e.fill = a.fill_value:get() end
  for _, k in ipairs(ENCODING) do e[k] = one(v.attrs[k]) end
  return e
end

-- NetCDF keeps scale_factor and the like as float32, which JSON writers print
-- to different last digits of the same value: equal as float32 is equal.
local function same_number(a, b)
  if a == b or (a ~= a and b ~= b) then return true end
  return math.type(a) == "float" and math.type(b) == "float" and math.abs(a - b) <= 1e-6 * math.abs(a) and
    string.pack("<f", a) == string.pack("<f", b)
end

local function same_encoding(x, y)
  if x.dtype ~= y.dtype or not same_number(x.fill, y.fill) then return false end
  for _, k in ipairs(ENCODING) do
    if type(x[k]) == "number" and type(y[k]) == "number" then
      if not same_number(x[k], y[k]) then return false end
    elseif x[k] ~= y[k] then
      return false
    end
  end
  return true
end

-- ------------------------------------------------------------- values

local function stored_selection(v)
  local sel = {}
  for i, s in ipairs(V.selection(v)) do sel[i] = gather.slice_part(s) end
  return sel
end

-- Decoded values x as the old variable t stores them; nil and why when they
-- cannot be (a value the encoding cannot hold exactly).
local function encoded(x, t, enc)
  local decoded = x
  local time = CF.time_of(t.name, t.attrs)
  if time then -- seconds since 1970 of the calendar -> the old units
    x = (x:astype("float64") - time.epoch) / time.scale
  elseif enc.scale_factor or enc.add_offset then
    x = x:astype("float64")
    if enc.add_offset then x = x - enc.add_offset end
    if enc.scale_factor then x = x / enc.scale_factor end
    if enc.dtype:match("int") then x = x:round() end
  end
  -- a value that encodes to the fill value would read back as missing
  local on_fill = enc.fill ~= nil and x:eq(enc.fill)
  if on_fill and on_fill:any() then
    local at = on_fill:reshape { -1 }:argmax()
    return nil, string.format("the value %s encodes to the fill value %s (it would read back as missing)",
      tostring(decoded:reshape { -1 }:get(at)), tostring(enc.fill))
  end
  if enc.fill ~= nil and x.dtype:match("float") then x = nd.where(x:isnan(), enc.fill, x) end
  local ok, y = pcall(x.astype, x, enc.dtype)
  if not ok then
    return nil, string.format("values the old %s encoding cannot hold exactly (%s)", enc.dtype,
      tostring(ipfsrt.error.is(y) and y.message or y))
  end
  if not (y:astype("float64"):eq(x:astype("float64")) | x:isnan()):all() then
    return nil, string.format("values the old %s encoding cannot hold exactly", enc.dtype)
  end
  return y
end

-- f's values for the old variable t: stored ones as they are when both encode
-- alike (no rounding on the way), else decoded and encoded as t is.
local function values_for(f, t)
  local fe, te = encoding_of(f), encoding_of(t)
  if V.array(f) and not V.data(f) and not V.expression(f) and same_encoding(fe, te) then
    return V.array(f):read(stored_selection(f))
  end
  local x -- times as seconds, whatever their units were; the rest decoded
  if CF.time_of(t.name, t.attrs) then x = nd.from(V.labels_of(f), "float64") else x = f:_values_array() end
  local y, why = encoded(x, t, te)
  if not y then bad("%s: %s", t.name, why) end
  return y
end

-- ------------------------------------------------------------- checks

local function label_text(x, t)
  if t and type(x) == "number" then return CF.iso(x) end
  return tostring(x)
end

-- The new labels along dim come after the old ones, in order.
local function check_after(name, old, new, time)
  local last = old[#old]
  for i, x in ipairs(new) do
    local before = i == 1 and last or new[i - 1]
    if before ~= nil and not (x > before) then
      bad("%s: the appended labels must come after the old version's and rise: %s follows %s", name,
        label_text(x, time), label_text(before, time))
    end
  end
end

-- Values that must be the same on both sides (off the dimension written).
local function check_same(name, f, t, why)
  local x, y = f:_values_array(), t:_values_array()
  if not same_list(x.shape, y.shape) then
    bad("%s: %s: its shape is [%s] in the old version, [%s] in the new data", name, why,
      table.concat(y.shape, ", "), table.concat(x.shape, ", "))
  end
  local equal = x:eq(y)
  if x.dtype:match("float") then equal = equal | (x:isnan() & y:isnan()) end
  if not equal:all() then
    local flat_x, flat_y = x:reshape { -1 }:tolist(), y:reshape { -1 }:tolist()
    for i = 1, #flat_x do
      if not same_number(flat_x[i], flat_y[i]) then
        bad("%s: %s: value %d is %s in the new data, %s in the old version", name, why, i - 1,
          tostring(flat_x[i]), tostring(flat_y[i]))
      end
    end
  end
end

local function check_dims(name, f, t)
  if not same_list(f.dims, t.dims) then
    bad("%s: dimensions (%s) in the old version, (%s) in the new data", name, table.concat(t.dims, ", "),
      table.concat(f.dims, ", "))
  end
end

local function check_chunks(name, t, chunks)
  if chunks == nil or #chunks ~= #t.shape then return end
  local have = V.array(t).chunks
  if not same_list(have, chunks) then
    bad("%s: chunks [%s] asked for; the old version's are [%s], which the change keeps", name,
      table.concat(chunks, ", "), table.concat(have, ", "))
  end
end

-- The plan of an append: per variable along dim, its values and axis.
local function plan_append(old, parts, dim, opts)
  if type(dim) ~= "string" then bad("append: dim names the dimension to append along") end
  local olds = old:_members()
  if not old.dims[dim] then bad("append: the old version has no dimension %s", dim) end
  local plan, length = {}, nil
  for _, name in ipairs(methods.sorted_names(olds)) do
    local t, f = olds[name], parts[name]
    local axis = has_dim(t, dim)
    if axis and not f then bad("%s: along %s in the old version, missing from the new data", name, dim) end
    if f then
      check_dims(name, f, t)
      if axis then
        for i, d in ipairs(t.dims) do
          if d ~= dim and f.shape[i] ~= t.shape[i] then
            bad("%s: %s is %d long in the old version, %d in the new data", name, d, t.shape[i], f.shape[i])
          end
        end
        local n = f.shape[axis + 1]
        if length and n ~= length then bad("%s: %d along %s, where other variables have %d", name, n, dim, length) end
        length = n
        check_chunks(name, t, opts.chunks)
        plan[#plan + 1] = { name = name, f = f, t = t, axis = axis }
      else
        check_same(name, f, t, "not along " .. dim .. ", it must not change")
      end
    end
  end
  for _, name in ipairs(methods.sorted_names(parts)) do
    if not olds[name] and has_dim(parts[name], dim) then
      bad("%s: not in the old version: an append extends the variables there", name)
    end
  end
  local c = olds[dim]
  if c and parts[dim] then check_after(dim, V.labels_of(c), V.labels_of(parts[dim]), CF.time_of(dim, c.attrs)) end
  return plan
end

-- The plan of a region written again: region = {dim = {start, stop}, ...}.
local function plan_region(old, parts, region, opts)
  if type(region) ~= "table" or next(region) == nil then bad("replace: region = {DIM = {start, stop}, ...}") end
  for d, r in pairs(region) do
    local n = old.dims[d]
    if not n then bad("replace: the old version has no dimension %s", tostring(d)) end
    if type(r) ~= "table" or math.type(r[1]) ~= "integer" or math.type(r[2]) ~= "integer" or r[1] < 0 or
      r[2] > n or r[1] >= r[2] then
      bad("replace: region %s is {start, stop} within 0..%d", d, n)
    end
  end
  local olds, plan = old:_members(), {}
  for _, name in ipairs(methods.sorted_names(parts)) do
    local f, t = parts[name], olds[name]
    if not t then bad("%s: not in the old version: a region is written into the variables there", name) end
    check_dims(name, f, t)
    local sel, touches = {}, false
    for i, d in ipairs(t.dims) do
      local r = region[d]
      local want = r and r[2] - r[1] or t.shape[i]
      if f.shape[i] ~= want then
        bad("%s: %s is %d long in the new data; the region takes %d", name, d, f.shape[i], want)
      end
      sel[i] = r and { r[1], r[2] } or { 0, t.shape[i] }
      touches = touches or r ~= nil
    end
    local is_coord = #t.dims == 1 and t.dims[1] == name
    if is_coord or not touches then
      check_same(name, f, is_coord and t:isel { [name] = sel[1] } or t,
        is_coord and "coordinates of the region must not change" or "off the region, it must not change")
    else
      check_chunks(name, t, opts.chunks)
      plan[#plan + 1] = { name = name, f = f, t = t, selection = sel }
    end
  end
  return plan
end

-- ------------------------------------------------------------- writing

local function consolidated(store)
  local ok, text = pcall(store.get, store, ".zmetadata")
  if ok and text then return true end
  ok, text = pcall(store.get, store, "zarr.json")
  return ok and text ~= nil and text:find('"consolidated_metadata"%s*:%s*{') ~= nil
end

-- The plan made against target (read after any lock was taken: what another
-- process appended counts), every value converted, then written.
local function write_into(target, store, from, opts)
  local new = require("ipfsrt.dataset").open(target, { load_coords = false })
  local parts = parts_of(from)
  local plan = opts.region and plan_region(new, parts, opts.region, opts) or plan_append(new, parts, opts.dim, opts)
  for _, p in ipairs(plan) do p.values = values_for(p.f, p.t) end -- all converted before any is written
  for _, p in ipairs(plan) do
    local a = V.array(p.t)
    if p.selection then a:write(p.selection, p.values, { threads = opts.threads })
    else a:append(p.axis, p.values, { threads = opts.threads }) end
  end
  if consolidated(store) then C.consolidate_store(target, "") end
end

local WRITE_OPTIONS = { dim = true, region = true, output = true, pack = true, chunks = true, threads = true,
  force = true, publish = true, keystore = true, record = true }

-- The new version's IPNS record, signed by the keystore's key opts.publish:
-- opts.record, else NAME.ipns-record beside the delta (where `ipfsrt serve
-- --ipns-records` finds it), replacing the name's record there.
local function publish(root, opts)
  local name = require "ipfsrt.name"
  local key_name = name.key(opts.publish, opts):name()
  local dir = opts.output:match("^(.*)/[^/]*$") or "."
  local record = opts.record or string.format("%s/%s.ipns-record", dir, key_name)
  return name.publish("/ipfs/" .. tostring(root), { key = opts.publish, keystore = opts.keystore, output = record,
    replace = true }), record
end

-- write(old, from, opts): see the top. old is a dataset opened from the
-- store changed; returns the new root (content-addressed stores) or nil.
function M.write(old, from, opts)
  opts = opts or {}
  if type(opts) ~= "table" then bad("append: options are a table") end
  for k in pairs(opts) do
    if not WRITE_OPTIONS[k] then
      bad("append: no option %s (options: chunks, dim, force, keystore, output, pack, publish, record, region, threads)",
        tostring(k))
    end
  end
  if type(from) == "string" then from = require("ipfsrt.dataset").open(from) end
  local store = old:_source()
  if not store then bad("append: the old version is no stored dataset") end
  local info = store:info()
  local versioned = CONTENT_ADDRESSED[info.kind]
  if versioned and type(opts.output) ~= "string" then
    bad("append: %s is content-addressed: output = a CAR path for the new version's blocks", info.kind)
  end
  if info.kind == "folder" and not info.writable then -- opened to be read: the same folder, to be written
    store = zarr.store(info.url, { writable = true })
    info = store:info()
  end
  if not versioned and not info.writable then bad("append: a %s store cannot be written", info.kind) end
  if versioned then
    require("ipfsrt.argparse").check_output(opts.output, opts.force, "force = true")
    local target = C.store_version(store, opts.pack or {})
    write_into(target, store, from, opts)
    local root = target:commit(opts.output)
    if opts.publish then return root, publish(root, opts) end
    return root
  end
  if opts.publish then bad("append: publish names a new root; a folder changed in place has none") end
  -- in place: under the folder's lock, its metadata put in place together at the end
  store:begin_change()
  local ok, err = pcall(write_into, store, store, from, opts)
  store:end_change(ok)
  if not ok then error(err, 0) end
end

-- ds:append(from, opts): from (a dataset, a variable, or where to open one)
-- appended along opts.dim; ds:replace(from, {region = ...}) writes a region again.
function Dataset.append(ds, from, opts)
  opts = opts or {}
  if opts.region then bad("append: region is replace's (ds:replace(from, {region = ...}))") end
  return M.write(ds, from, opts)
end
function Dataset.replace(ds, from, opts)
  if type(opts) ~= "table" or not opts.region then bad("replace: opts.region = {DIM = {start, stop}}") end
  return M.write(ds, from, opts)
end
M.dataset_methods = Dataset

return M
