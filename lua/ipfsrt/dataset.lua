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
--   ds:append(day, {dim = "time", output = "delta.car"})  -- a new version (ipfsrt.append)
--   new:changed_since(old_root)                             -- what to re-read (ipfsrt.changes)
--
-- Selections are lazy: only :values() (or a reduction) reads, and only the
-- chunks the selection needs. open(url[, opts]): opts.client (an
-- ipfsrt.client), or gateways/policy/verify/... to make one; opts.decode =
-- false keeps the stored values (no CF decoding); opts.s3 for s3:// (see
-- ipfsrt.zarr); opts.load_coords = false
-- leaves the coordinates unread until a selection by label needs them.
local ipfsrt = require "ipfsrt"
local zarr = require "ipfsrt.zarr"
local cftime = require "ipfsrt.cftime"
local lazy = require "ipfsrt.lazy"
local gather = require "ipfsrt.gather"
local methods = require "ipfsrt.methods"
local nd = ipfsrt.ndarray

local M = {}
local Dataset, Variable = {}, {}

local bad = require "ipfsrt.bad" ("dataset: ")

-- ------------------------------------------------------------- CF time

local STANDARD = cftime.calendar()
local function iso(seconds) return cftime.format(seconds, STANDARD) end
local function parse_iso(s) return cftime.parse(s, STANDARD) end
M.iso, M.parse_iso = iso, parse_iso

-- The CF time decoding of a variable ({scale, epoch, calendar}), or nil when
-- its units are no time. Units or a calendar that look like time but cannot
-- be decoded are an error naming the variable and the attribute (xarray
-- refuses them too), never numbers passed off as times.
local function time_of(name, attrs)
  local units = attrs.units
  if type(units) ~= "string" or not units:find("%ssince%s") then return nil end
  local cal, why = cftime.calendar(attrs.calendar)
  if not cal then bad("%s: attribute calendar: %s", name, why) end
  local t
  t, why = cftime.units(units, cal)
  if not t then bad("%s: attribute units %q: %s", name, units, why or "not UNIT since DATE") end
  return t
end

-- ----------------------------------------------------------- variables

-- Python's slice.indices for a dimension of n: start, count, step.
-- The axis (from 0) of dimension dim of v, or an error that lists v's dimensions.
local function axis_of(v, dim)
  for i, d in ipairs(v.dims) do if d == dim then return i - 1 end end
  bad("%s has no dimension %s (dimensions: %s)", v.name, tostring(dim), table.concat(v.dims, ", "))
end

local function resolve(part, n, dim)
  if math.type(part) == "integer" then
    local i = part < 0 and part + n or part
    if i < 0 or i >= n then bad("index %d is out of bounds for %s of size %d", part, dim, n) end
    return { index = i }
  end
  if type(part) ~= "table" then bad("%s: an index or {start, stop[, step]}", dim) end
  local step = part[3] or 1
  if math.type(step) ~= "integer" or step == 0 then bad("%s: the step must be a whole number, not 0", dim) end
  local lo, hi = step > 0 and 0 or -1, step > 0 and n or n - 1
  local function clamp(v, dflt)
    if v == nil then return dflt end
    if math.type(v) ~= "integer" then bad("%s: bounds are integers", dim) end
    if v < 0 then v = v + n end
    return math.max(lo, math.min(hi, v))
  end
  local a, b = clamp(part[1], step > 0 and 0 or n - 1), clamp(part[2], step > 0 and n or -1)
  local span = step > 0 and b - a or a - b
  return { start = a, count = span <= 0 and 0 or (span + math.abs(step) - 1) // math.abs(step), step = step }
end

local function new_variable(ds, name, array, dims, sel, data)
  local v = setmetatable({ _ds = ds, _array = array, _sel = sel, _data = data, name = name }, Variable)
  v.attrs = array and array.attrs or {}
  local kept, shape = {}, {}
  for i, d in ipairs(dims) do
    local s = sel and sel[i]
    if not (s and s.index) then
      kept[#kept + 1] = d
      shape[#shape + 1] = data and data.shape[#shape + 1] or s.count
    end
  end
  v.dims, v.shape, v._all_dims = kept, shape, dims
  v.ndim = #kept
  return v
end

local gathered_values, value_type

-- v.coords (name -> coordinate variable: those along its dimensions, and the
-- scalar ones its indices left), v.NAME: one of them (v.month of a monthly
-- climatology, v.lat of a point), v.dtype: the type values() gives, as
-- xarray's.
function Variable.__index(v, k)
  local method = rawget(Variable, k)
  if method ~= nil then return method end
  if k == "_data" and rawget(v, "_gather") then -- a selection by lists: read when first needed
    local x = gathered_values(v)
    rawset(v, "_data", x)
    return x
  end
  if k == "coords" then
    local all = v:_coords()
    for name, c in pairs(v:_aux()) do all[name] = all[name] or c end
    return all
  end
  if k == "dtype" then return value_type(v) end
  if type(k) == "string" and k:sub(1, 1) ~= "_" then
    for _, d in ipairs(rawget(v, "dims") or {}) do if d == k then return v:_coords()[k] end end
    local c = v:_aux()[k]
    if c ~= nil then return c end
    methods.missing("variable " .. tostring(rawget(v, "name")), Variable, k, string.format(
      "; fields: name, dims, shape, ndim, attrs, coords, dtype; dimensions: %s",
      table.concat(rawget(v, "dims") or {}, ", ")))
  end
  return nil
end

-- A CF number attribute: a number, or a list of one (as netCDF writes
-- attributes); missing ones (_FillValue, missing_value) may be "NaN" (no
-- mask: NaN stays NaN) and missing_value a list. Anything else is refused,
-- naming the variable and the attribute.
local function cf_numbers(v, key, many)
  local x = v.attrs[key]
  if x == nil then return nil end
  if type(x) == "number" then return { x } end
  if type(x) == "string" and many ~= nil and x == "NaN" then return {} end
  if ipfsrt.json.is_number(x) then return { tonumber(tostring(x)) } end
  if type(x) == "table" and #x > 0 and (many or #x == 1) then
    local out = {}
    for i, e in ipairs(x) do
      if type(e) == "number" then out[#out + 1] = e
      elseif not (many ~= nil and e == "NaN") then bad("%s: attribute %s[%d] is not a number", v.name, key, i) end
    end
    return out
  end
  bad("%s: attribute %s is not a number%s", v.name, key, many and " or a list of numbers" or "")
end

-- _Unsigned = "true" on a signed integer type (netCDF-3's unsigned bytes):
-- the values read as the unsigned type of the same size, "false" on an
-- unsigned type as the signed one (as xarray's UnsignedIntegerCoder).
local function viewed_type(v, dtype)
  local u = v.attrs._Unsigned
  if u == nil then return nil end
  if u ~= "true" and u ~= "false" and u ~= true and u ~= false then
    bad("%s: attribute _Unsigned is %s, not \"true\" or \"false\"", v.name, tostring(u))
  end
  local bits = dtype:match("^u?int(%d+)$")
  if not bits then return nil end
  local want_unsigned = u == "true" or u == true
  if want_unsigned == (dtype:sub(1, 1) == "u") then return nil end
  return (want_unsigned and "uint" or "int") .. bits
end

-- A number stored as the signed (or unsigned) type of bits, read as the other.
local function reinterpreted(x, view)
  x = type(x) == "number" and math.tointeger(x) or x -- -1.0 is the integer -1 here
  if math.type(x) ~= "integer" then return x end
  local bits = tonumber(view:match("%d+"))
  if view:sub(1, 1) == "u" and x < 0 then return bits == 64 and x + 2.0 ^ 64 or x + (1 << bits) end
  if view:sub(1, 1) == "i" and bits < 64 and x >= 1 << (bits - 1) then return x - (1 << bits) end
  return x
end

-- The CF decoding a read applies, typed as xarray types it: masking the
-- values that mean "missing" makes small integers float32, others float64;
-- scale and offset then keep float32 (floats of 4 bytes or less, or small
-- integers with no add_offset at all) or go to float64.
local function cf_of(v)
  local a = v._array
  if not v._ds.decode or not a then return nil end
  local view = viewed_type(v, a.dtype)
  local dtype = view or a.dtype
  local int, float = dtype:match("int") ~= nil, dtype:match("float") ~= nil
  if not int and not float then return nil end
  local scale, offset = cf_numbers(v, "scale_factor"), cf_numbers(v, "add_offset")
  local fills, missing = cf_numbers(v, "_FillValue", false), cf_numbers(v, "missing_value", true)
  if fills == nil and a.fill_value then fills = { a.fill_value:get() } end
  local masks = fills ~= nil or missing ~= nil
  if not masks and scale == nil and offset == nil and not view then return nil end
  local small = a.itemsize <= (int and 2 or 4)
  local ftype = dtype
  if masks then ftype = (int and small) and "float32" or (int and "float64" or dtype) end
  if scale ~= nil or offset ~= nil then
    local is_float32 = ftype == "float32"
    ftype = (is_float32 or (int and small and offset == nil)) and "float32" or "float64"
  end
  local values = {}
  for _, list in ipairs { fills or {}, missing or {} } do
    for _, f in ipairs(list) do
      f = view and reinterpreted(f, view) or f
      if type(f) == "number" and f == f then values[#values + 1] = f end
    end
  end
  return { type = ftype, scale = scale and scale[1], offset = offset and offset[1], fills = values, view = view,
    plain = not masks and scale == nil and offset == nil }
end

local slice_part = gather.slice_part

-- The Zarr selection of the variable's (lazy) selection.
local function zarr_selection(sel)
  local out = {}
  for i, s in ipairs(sel) do out[i] = slice_part(s) end
  return out
end

-- v:source() -> {array =, selection =, cf =}: what v reads, for readers of
-- their own (ipfsrt.mpi): the Zarr array, per dimension {index =} or {start =,
-- count =, step =}, and the CF decoding (nil, or {type =, scale =, offset =,
-- fills =}) that values() applies.
function Variable.source(v)
  if v._data then bad("source of a computed variable: it has no array") end
  local cf = cf_of(v)
  if cf and cf.view then bad("source of %s: its _Unsigned values need values()", v.name) end
  return { array = v._array, selection = v._sel,
    cf = cf and { type = cf.type, scale = cf.scale, offset = cf.offset, fills = cf.fills } }
end

-- The decoded values of v from raw, its stored selection as read.
local function decoded(v, raw)
  local cf = cf_of(v)
  if not cf then return raw end
  if cf.view then -- stored as the other signedness: viewed, then decoded
    local x = nd.frombytes(raw:tobytes(), cf.view, raw.shape)
    if cf.plain then return x end
    return x:unscale(cf.type, cf.fills, cf.scale, cf.offset)
  end
  return raw:unscale(cf.type, cf.fills, cf.scale, cf.offset)
end

-- The values of v, read (only the chunks its selection needs) and CF-decoded.
local function read_values(v, opts)
  if v._data then return v._data end
  if v._expr then return lazy.values(v._expr, M.slabs(v._expr)) end
  local cf = cf_of(v)
  if not cf then return v._array:read(zarr_selection(v._sel), opts) end
  local o = { threads = opts and opts.threads, progress = opts and opts.progress }
  if cf.view then return decoded(v, v._array:read(zarr_selection(v._sel), o)) end
  o.unscale = { dtype = cf.type, fills = cf.fills, scale = cf.scale, offset = cf.offset }
  return v._array:read(zarr_selection(v._sel), o) -- decoded chunk by chunk, on the decoding threads
end

-- Times (x in v's CF units) as numbers in other units ("days since 2024-01-01",
-- of v's calendar): float64.
local function in_units(v, x, units)
  local t = time_of(v.name, v.attrs)
  if not t then bad("%s: values{units =} converts times, and %s has no CF time units", v.name, v.name) end
  if type(units) ~= "string" then bad("%s: units is text (\"days since 2024-01-01\")", v.name) end
  local u, why = cftime.units(units, t.calendar)
  if not u then bad("%s: units %q: %s", v.name, units, why or "not UNIT since DATE") end
  return (x:astype("float64") * (t.scale / u.scale)) + ((t.epoch - u.epoch) / u.scale)
end

-- v:values([opts]) -> an n-d array of v's values, CF-decoded; a number when v
-- has no dimensions (a scalar selection, as item() gives). opts.progress as
-- for zarr reads; opts.units: times as numbers in those units ("hours since
-- 1970-01-01"), not in the stored ones.
function Variable.values(v, opts)
  local x = read_values(v, opts)
  if opts and opts.units ~= nil then x = in_units(v, x, opts.units) end
  if v.ndim == 0 and nd.isarray(x) then return x:item() end
  return x
end

-- v:_values_array(): values() as an n-d array always (0-d ones too), for
-- the library's own code.
Variable._values_array = function(v, opts) return read_values(v, opts) end

-- v:item() -> the one value of a variable of one element, a number.
function Variable.item(v)
  local n = 1
  for _, len in ipairs(v.shape) do n = n * len end
  if n ~= 1 then bad("item: %s has %d values (dimensions: %s); item takes one", v.name, n, table.concat(v.dims, ", ")) end
  local x = read_values(v)
  return nd.isarray(x) and x:item() or x
end

-- The type values() gives: as stored, or as CF decoding makes it.
function value_type(v)
  local data = rawget(v, "_data")
  if data then return data.dtype end
  if rawget(v, "_expr") then return read_values(v).dtype end
  local a = v._array or rawget(v, "_gather").array
  local cf = cf_of(v._array and v or { _array = a, _ds = v._ds, attrs = v.attrs, name = v.name })
  return cf and cf.type or a.dtype
end

-- The values of a selection by lists or points: read as boxes, CF-decoded.
function gathered_values(v)
  local g = rawget(v, "_gather")
  local stored = { _array = g.array, _ds = v._ds, attrs = v.attrs, name = v.name }
  local cf = cf_of(stored)
  local o = {}
  if cf and not cf.view then o.unscale = { dtype = cf.type, fills = cf.fills, scale = cf.scale, offset = cf.offset } end
  local x = gather.read(g.array, g.sel, v._all_dims, o)
  if cf and cf.view then x = decoded(stored, x) end
  return x
end

-- A variable whose selection has lists or points: dimensions known now,
-- values read when first needed.
local function new_gathered(ds, name, array, all_dims, sel)
  local v = setmetatable({ _ds = ds, _gather = { array = array, sel = sel }, name = name, _all_dims = all_dims },
    Variable)
  v.attrs = array.attrs
  v.dims, v.shape = gather.visible(sel, all_dims)
  v.ndim = #v.dims
  return v
end

-- Whether spec selects by a list or points anywhere.
local function has_gather(spec)
  for _, part in pairs(spec) do if gather.is_gather(part) then return true end end
  return false
end

-- The scalar and pointwise coordinates of v that outlive a selection or a
-- reduction keeping dims: those whose dimensions are all kept.
local function kept_aux(v, dims)
  local out, keep = {}, {}
  for _, d in ipairs(dims) do keep[d] = true end
  for name, c in pairs(v:_aux()) do
    local all = true
    for _, d in ipairs(c.dims) do all = all and keep[d] == true end
    if all then out[name] = c end
  end
  return out
end

-- The labels of a computed coordinate at the positions its entry selects.
local function picked_labels(labels, entry)
  if entry.index then return { labels[entry.index + 1] } end
  local out = {}
  if entry.list or entry.points then
    for j, p in ipairs(entry.list or entry.points) do out[j] = labels[p + 1] end
  else
    for j = 0, entry.count - 1 do out[j + 1] = labels[entry.start + j * entry.step + 1] end
  end
  return out
end

-- The isel of a computed variable: its values selected (lists and points
-- picked, copies; indices and ranges, views), its coordinates alike.
local function computed_isel(v, spec)
  local sel = {}
  for i, n in ipairs(v.shape) do sel[i] = { start = 0, count = n, step = 1 } end
  sel = gather.compose(sel, v.dims, spec, resolve)
  local data = gather.is_plain(sel) and v._data:slice(zarr_selection(sel)) or gather.take(v._data, sel, v.dims)
  local out = new_variable(v._ds, v.name, nil, (gather.visible(sel, v.dims)), nil, data)
  local coords, aux, itself = {}, {}, nil
  for d, c in pairs(v:_coords()) do
    local part = spec[d]
    if c == v then itself = d -- a computed coordinate is its own
    elseif part == nil then coords[d] = c
    elseif math.type(part) == "integer" or gather.is_points(part) then aux[d] = c:isel { [d] = part }
    else coords[d] = c:isel { [d] = part } end
  end
  for name, c in pairs(kept_aux(v, out.dims)) do aux[name] = aux[name] or c end
  out.attrs, out._coordmap, out._auxmap = v.attrs, coords, aux
  if itself and math.type(spec[itself]) ~= "integer" and not gather.is_points(spec[itself]) then coords[itself] = out end
  local labels = rawget(v, "_labels")
  if labels then -- a computed coordinate: its labels selected alike
    out._labels, out._time = picked_labels(labels, sel[1]), rawget(v, "_time")
    if #out.dims == 1 and out.dims[1] ~= v.dims[1] then out._coordmap = {} end -- along points: no longer its own
  end
  return out
end

-- v:isel{dim = index | {start, stop[, step]} | ipfsrt.list{...} |
-- ipfsrt.points{...}, ...}: by position (0-based, half-open), lazy.
function Variable.isel(v, spec)
  if type(spec) ~= "table" then bad("isel takes {dim = index, range, ipfsrt.list or ipfsrt.points}") end
  for k in pairs(spec) do axis_of(v, k) end
  if v._expr then return v:_rebuilt(spec) end
  local g = rawget(v, "_gather")
  if g or (v._sel and has_gather(spec)) then
    local sel = gather.compose(g and g.sel or v._sel, v._all_dims, spec, resolve)
    local array = g and g.array or v._array
    if gather.is_plain(sel) then return new_variable(v._ds, v.name, array, v._all_dims, sel) end
    return new_gathered(v._ds, v.name, array, v._all_dims, sel)
  end
  if v._data then return computed_isel(v, spec) end
  local sel, kept = {}, 0
  for i, s in ipairs(v._sel) do
    sel[i] = s
    if not s.index then
      kept = kept + 1
      local part = spec[v._all_dims[i]]
      if part ~= nil then
        local r = resolve(part, s.count, v._all_dims[i])
        if r.index then sel[i] = { index = s.start + r.index * s.step }
        else sel[i] = { start = s.start + r.start * s.step, count = r.count, step = s.step * r.step } end
      end
    end
  end
  return new_variable(v._ds, v.name, v._array, v._all_dims, sel)
end

-- The coordinate values along dim (decoded; times in seconds since 1970 of
-- their calendar, missing ones NaN) and their time decoding (nil: not times).
-- The values of v's coordinate along dim (as numbers; times in seconds of the
-- CF epoch) and its time units, read once (values: read already).
-- A computed coordinate (a grouping's labels: months, seasons, bin dates)
-- holds its labels itself: _labels, numbers (times in seconds) or strings.
local function coordinate(v, dim, values)
  local own = rawget(v, "_labels")
  if own then return own, rawget(v, "_time") end
  local c = v._ds._coords[dim]
  if not c then bad("no coordinate variable for %s: use isel", dim) end
  if not c._cache then
    local t = time_of(c.name, c.attrs)
    values = (values or c:values()):astype("float64")
    if t then values = values * t.scale + t.epoch end
    c._cache, c._time = values:tolist(), t
  end
  return c._cache, c._time
end

local function period_of(value, t, dim)
  local first, stop, reso = cftime.period(value, t.calendar)
  if not first then
    bad("%s: %q is not a date of the %s calendar (YYYY[-MM[-DD[THH[:MM[:SS]]]]])", dim, value, t.calendar.name)
  end
  return first, stop, reso
end

-- A single label as a number (a date as its first second).
local function label(value, t, dim)
  if type(value) == "string" then
    if not t then bad("%s: %q is not a label of %s (its labels are numbers)", dim, value, dim) end
    return (period_of(value, t, dim))
  end
  if type(value) ~= "number" then bad("%s: a label is a number%s", dim, t and " or a date" or "") end
  return value
end

-- 1 when the selected coordinate values rise, -1 when they fall (ties
-- allowed, as pandas' monotonic), nil when neither (or a value is missing).
local function direction(values, start, step, count)
  local up, down = true, true
  for j = 1, count - 1 do
    local a, b = values[start + (j - 1) * step], values[start + j * step]
    if not (a <= b) then up = false end
    if not (a >= b) then down = false end
  end
  if count == 1 and values[start] ~= values[start] then return nil end
  return up and 1 or down and -1 or nil
end

-- A range's bound: the least and the greatest value it admits, and whether
-- the greatest is admitted itself (a date is the whole period it names: the
-- first second of the next one is not).
local function bound(value, t, dim)
  if type(value) == "string" and t then
    local first, stop = period_of(value, t, dim)
    return first, stop, false
  end
  local x = label(value, t, dim)
  return x, x, true
end

-- The positions of the labels from..to, inclusive, as xarray slices labels: on a
-- rising coordinate from <= c <= to, on a falling one from >= c >= to (none
-- when the bounds go the other way); dates cover their whole period (to =
-- "2024-02-29" takes that day's noon, "2024-02" all of February). An
-- unsorted coordinate cannot be sliced.
-- The positions whose values lie from least to most (most itself when
-- inclusive), as a range {first, last + 1}.
local function between(values, start, step, count, least, most, inclusive)
  local first, last
  for j = 0, count - 1 do
    local c = values[start + j * step]
    if c >= least and (c < most or (inclusive and c == most)) then
      first = first or j
      last = j
    end
  end
  if not first then return { 0, 0 } end
  return { first, last + 1 }
end

local function label_range(values, start, step, count, want, t, dim)
  local dir = direction(values, start, step, count)
  if not dir then bad("%s is not sorted (or has missing values): label ranges need a monotonic coordinate", dim) end
  local low, high = want[1], want[2]
  if dir < 0 then low, high = high, low end
  local least = bound(low, t, dim)
  local _, most, inclusive = bound(high, t, dim)
  return between(values, start, step, count, least, most, inclusive)
end

-- xarray holds standard and proleptic Gregorian times that datetime64[ns]
-- can (years 1678 to 2261) in a pandas DatetimeIndex, other calendars in a
-- CFTimeIndex; the two take a date string differently (below).
local NS_SECONDS = 9.2e9
local function pandas_times(values, start, step, count, t)
  local name = t.calendar.name
  if name ~= "standard" and name ~= "proleptic_gregorian" then return false end
  for j = 0, count - 1 do
    local c = values[start + j * step]
    if c == c and math.abs(c) > NS_SECONDS then return false end
  end
  return true
end

-- The finest resolution the times are stamped at, as pandas ranks an index:
-- days at midnight "day", noon-stamped days "hour".
local function stamped_at(values, start, step, count)
  local R = cftime.RANK
  local finest = R.day
  for j = 0, count - 1 do
    local r = values[start + j * step] % 86400
    if r == r and r ~= 0 then
      finest = math.min(finest, r % 3600 == 0 and R.hour or r % 60 == 0 and R.minute or r % 1 == 0 and R.second
        or R.subsecond)
    end
  end
  return finest
end

-- A date string as xarray selects it: the whole period it names (the
-- dimension kept, with the times inside it: "2024-02-29" of noon-stamped
-- days is that day's noon, "2024-02" all of February), except on a
-- DatetimeIndex whose times are stamped no finer than the string, where it
-- is the one time it names (the dimension dropped) or no label at all.
local function date_label(values, start, step, count, want, t, dim)
  local first, stop, reso = period_of(want, t, dim)
  if pandas_times(values, start, step, count, t) and cftime.RANK[reso] <= stamped_at(values, start, step, count) then
    for j = 0, count - 1 do if values[start + j * step] == first then return j end end
    error(ipfsrt.error.new("not_found", string.format("%s has no label %s (method = \"nearest\" takes the closest)",
      dim, want)), 4)
  end
  local dir = direction(values, start, step, count)
  if not dir then bad("%s is not sorted (or has missing values): a date selects a period of sorted times", dim) end
  local lo, hi = values[start], values[start + (count - 1) * step]
  if dir < 0 then lo, hi = hi, lo end
  if count == 0 or stop <= lo or first > hi then
    error(ipfsrt.error.new("not_found", string.format("%s has no time in %s (%s)", dim, want, count == 0 and "none left"
      or "they run from " .. cftime.format(lo, t.calendar) .. " to " .. cftime.format(hi, t.calendar))), 4)
  end
  return between(values, start, step, count, first, stop, false)
end

-- Seconds in a pandas timedelta string's units ("2D", "12h", "30min", "90s").
local TIMEDELTA_UNITS = { D = 86400, d = 86400, days = 86400, day = 86400, h = 3600, H = 3600, hours = 3600,
  min = 60, T = 60, minutes = 60, s = 1, S = 1, seconds = 1 }

-- A tolerance for dim: a distance in the coordinate's units; for times a
-- timedelta string ("1D", "6h") in seconds, as pandas reads it.
local function tolerance_of(tol, t, dim)
  if tol == nil then return math.huge end
  if t then
    local n, unit
    if type(tol) == "string" then n, unit = tol:match("^%s*(%d+%.?%d*)%s*(%a+)%s*$") end
    if not n or not TIMEDELTA_UNITS[unit] then
      bad("sel: tolerance for %s (times) is a timedelta such as \"1D\", \"6h\", \"30min\", \"90s\", not %s", dim,
        tostring(tol))
    end
    return tonumber(n) * TIMEDELTA_UNITS[unit]
  end
  if type(tol) ~= "number" or tol < 0 then bad("sel: tolerance for %s is a distance, a number >= 0", dim) end
  return tol
end

-- The labels of v along dim, as numbers (times in seconds) or names, the
-- first of its selection, the step between them and their count, and the
-- time decoding (nil: not times).
local function labels_along(v, dim)
  local values, t = coordinate(v, dim)
  local i = 0
  for k, d in ipairs(v._all_dims) do if d == dim then i = k end end
  local g = rawget(v, "_gather")
  local s = (v._sel or g and not rawget(v, "_labels") and g.sel or {})[i] or { start = 0, step = 1, count = #values }
  if s.list then -- a list's labels: those of its positions
    local picked = {}
    for j, p in ipairs(s.list) do picked[j] = values[p + 1] end
    return picked, 1, 1, #picked, t
  end
  return values, s.start + 1, s.step, s.count, t
end

-- The labels of v's selection along dim, in order, as numbers (times in
-- seconds) or names, and the time decoding (nil: not times).
local function selected_labels(v, dim)
  local values, start, step, count, t = labels_along(v, dim)
  local out = {}
  for j = 0, count - 1 do out[j + 1] = values[start + j * step] end
  return out, t
end

-- Position along the variable's selection of dim: label ranges inclusive (as
-- xarray's label slicing), scalars exact or nearest (within tolerance).
local function locate(v, dim, want, method, tolerance, instants)
  local values, start, step, count, t = labels_along(v, dim)
  if type(values[1]) == "string" then -- names (seasons): exact only
    for j = 0, count - 1 do if values[start + j * step] == want then return j end end
    error(ipfsrt.error.new("not_found", string.format("%s has no label %s (labels: %s)", dim, tostring(want),
      table.concat(values, ", "))), 3)
  end
  if type(want) == "table" then return label_range(values, start, step, count, want, t, dim) end
  if type(want) == "string" and t and method ~= "nearest" and not instants then
    return date_label(values, start, step, count, want, t, dim)
  end
  -- a tie goes to the later label on an ascending axis, the earlier on a
  -- descending one (as pandas' nearest does)
  local target, best, dist = label(want, t, dim), nil, math.huge
  local dir = method == "nearest" and direction(values, start, step, count)
  if method == "nearest" and not dir then bad("%s is not sorted: nearest labels need a monotonic coordinate", dim) end
  for j = 0, count - 1 do
    local dd = math.abs(values[start + j * step] - target)
    if dd < dist or (dd == dist and dir == 1) then best, dist = j, dd end
  end
  if not best or (method ~= "nearest" and dist ~= 0) then
    error(ipfsrt.error.new("not_found", string.format("%s has no label %s (method = \"nearest\" takes the closest)",
      dim, tostring(want))), 3)
  end
  local within = tolerance_of(tolerance, t, dim)
  if dist > within then
    local nearest = values[start + best * step]
    error(ipfsrt.error.new("not_found", string.format("%s has no label within %s of %s (the nearest is %s)", dim,
      tostring(tolerance), tostring(want), t and cftime.format(nearest, t.calendar) or tostring(nearest))), 3)
  end
  return best
end

-- The one rule for tables in sel: a plain table is a range, exactly {from,
-- to}; lists of labels are ipfsrt.list{...}, points ipfsrt.points{...}. A
-- table read another way ({35, 0, -60} as a range with a step, a method
-- beside a range) would select something else than was meant, in silence.
local function check_range(dim, want, method)
  if type(want) ~= "table" or gather.is_gather(want) then return end
  local n = 0
  for _ in pairs(want) do n = n + 1 end
  if n ~= 2 or want[1] == nil or want[2] == nil then
    bad("sel: %s = a table of %d: a plain table is a range, {from, to} (both included); a list of labels is " ..
      "ipfsrt.list{...}, points ipfsrt.points{...}", dim, n)
  end
  if method ~= nil then
    bad("sel: method = %q picks single labels, and %s is given a range {from, to} (xarray refuses it too)",
      method, dim)
  end
end

-- The positions of a list's (or points') labels: each one label, exact or
-- nearest; a date in a list is the instant it names (its first second), as
-- pandas reads a list of labels: "2024-01-03" is not that day's noon.
local function locate_each(on, dim, want, method, tolerance)
  local positions = {}
  for j, item in ipairs(want.items) do
    if type(item) == "table" then bad("sel: %s: item %d of a list is a table; items are labels", dim, j) end
  end
  for j, item in ipairs(want.items) do positions[j] = locate(on, dim, item, method, tolerance, true) end
  return gather.like(want, positions)
end

local SEL_OPTIONS = { method = true, tolerance = true }

-- v:sel{dim = label | {from, to} | ipfsrt.list{...} | ipfsrt.points{...},
-- ..., method = "nearest", tolerance = d}: by coordinate value (times as
-- dates, "YYYY[-MM[-DD[THH[:MM[:SS]]]]]", each the whole period it names, as
-- xarray's), lazy. tolerance (with nearest) refuses labels farther than d.
function Variable.sel(v, spec)
  if type(spec) ~= "table" then bad("sel takes {dim = label, {from, to}, ipfsrt.list or ipfsrt.points}") end
  local method, tolerance = spec.method, spec.tolerance
  if method ~= nil and method ~= "nearest" then
    bad("sel: method %s is not known (methods: \"nearest\"; none: exact labels)", tostring(method))
  end
  if tolerance ~= nil and method == nil then bad("sel: tolerance goes with method = \"nearest\"") end
  local by_index = {}
  for k, want in pairs(spec) do
    if not SEL_OPTIONS[k] then
      check_range(k, want, method)
      axis_of(v, k)
      local on = (v._sel or rawget(v, "_gather")) and v or v:_coords()[k] -- computed ones: by their coordinates' labels
      if not on then bad("no coordinate variable for %s: use isel", k) end
      if gather.is_gather(want) then by_index[k] = locate_each(on, k, want, method, tolerance)
      else by_index[k] = locate(on, k, want, method, tolerance) end
    end
  end
  return v:isel(by_index)
end

local function axes_of(v, dims)
  if dims == nil then return nil end
  if type(dims) == "string" then dims = { dims } end
  local axes = {}
  for _, name in ipairs(dims) do axes[#axes + 1] = axis_of(v, name) end
  return axes
end

-- Reductions over everything of selections above this many decoded bytes are
-- folded as they are read (below it, read and reduced: as fast, in one pass).
M.FOLD_BYTES = 256 << 20

-- A reduction over everything of a large selection, folded as it is read:
-- each chunk summarized on the decoding thread that decoded it (the selection is
-- never built; sums come out the same on any thread count and arrival order).
-- Stored integers with a scale and offset are summed as stored, exactly, and
-- scaled once (the decoding is affine); other values are CF-decoded chunk by
-- chunk first.
local function streamed(v, op)
  local total = 1
  for _, n in ipairs(v.shape) do total = total * n end
  if not v._array or #v.dims == 0 or total * 8 <= M.FOLD_BYTES or op == "std" or op == "var" then return nil end
  local cf = cf_of(v)
  local affine = cf and not cf.view and v._array.dtype:match("int") and (op == "mean" or op == "sum" or op == "count")
  if cf and cf.view then return nil end -- _Unsigned values are viewed before decoding: read as they are
  local opts = { extremes = op == "min" or op == "max" }
  if affine then opts.skip = cf.fills
  elseif cf then opts.unscale = { dtype = cf.type, fills = cf.fills, scale = cf.scale, offset = cf.offset } end
  local s = v._array:summarize(zarr_selection(v._sel), opts)
  if op == "count" then return s.count end
  if op == "min" or op == "max" then return s[op] end
  local scale, offset = affine and (cf.scale or 1) or 1, affine and (cf.offset or 0) or 0
  if op == "sum" then return s.sum * scale + offset * s.count end
  return s.count > 0 and s.sum * scale / s.count + offset or 0 / 0
end

-- The array dimensions (from 0) of axes, positions in v.dims.
local function array_dims(v, axes)
  local dims, kept = {}, 0
  for i, s in ipairs(v._sel) do
    if not s.index then
      for _, a in ipairs(axes) do
        if a == kept then dims[#dims + 1] = i - 1 end
      end
      kept = kept + 1
    end
  end
  return dims
end

-- The reduction op from summaries s of stored values, CF-decoded by cf
-- (affine: x * scale + offset, which turns min into max when scale < 0).
local function from_summaries(s, op, cf, dtype)
  if op == "count" then return s.count end
  if not cf and op == "sum" then return s.sum end -- integers: int64, exact
  if not cf and op == "mean" then -- divided in float64 (numpy's promotion); a float sum's type as its mean
    local mean = s.sum / s.count
    if not s.sum.dtype:match("^float") then return mean end
    local out = mean:astype(dtype)
    getmetatable(mean).__close(mean) -- now: its memory goes to the next big array, not to fresh pages
    return out
  end
  local scale, offset = cf and cf.scale or 1, cf and cf.offset or 0
  local out
  if op == "sum" then out = s.sum:astype("float64") * scale + s.count * offset
  elseif op == "mean" then out = s.sum:astype("float64") * scale / s.count + offset
  else
    local pick = scale < 0 and (op == "min" and "max" or "min") or op
    out = s[pick] * scale + offset
  end
  return out:astype(dtype)
end

-- A reduction along some dimensions of a large selection, folded as it is
-- read (the selection is never built), where the result cannot depend on the
-- order chunks arrive in: counts, extremes, and sums and means of stored
-- integers (CF-packed values summed as stored, exactly, then scaled). Float
-- sums along dimensions are read and reduced instead.
-- Whether v's first dimension runs forwards: folds add along it in the
-- order it is stored in, read-then-reduce in the order selected.
local function forwards(v)
  for _, s in ipairs(v._sel) do
    if not s.index then return s.step > 0 end
  end
  return true
end

-- The fold options of op over v, or nil when it cannot be folded that way.
-- in_order: folded along the first dimension alone, where float sums are
-- added in order (the bits of read-then-reduce, CF-decoded values summed).
local function fold_options(v, op, in_order)
  local total = 1
  for _, n in ipairs(v.shape) do total = total * n end
  if not (v._array and v._sel) or total * 8 <= M.FOLD_BYTES or op == "std" or op == "var" or op == "median" then
    return nil
  end
  in_order = in_order and forwards(v)
  local cf = cf_of(v)
  local integer = v._array.dtype:match("int") ~= nil
  local sums = op == "mean" or op == "sum"
  if (cf and cf.view) or (sums and not integer and not in_order) then return nil end
  local opts = { sums = sums, extremes = op == "min" or op == "max" }
  -- packed integers summed as stored, exactly, where float sums could not be
  -- in order; extremes of the decoded values (the bits decoding gives)
  local packed = cf and integer and not opts.extremes and not in_order
  if packed then opts.skip = cf.fills
  elseif cf then opts.unscale = { dtype = cf.type, fills = cf.fills, scale = cf.scale, offset = cf.offset } end
  return opts, packed and cf or nil, cf and cf.type or v._array.dtype
end

local function streamed_along(v, op, axes)
  local opts, cf, dtype = fold_options(v, op, #axes == 1 and axes[1] == 0)
  if not opts then return nil end
  local s = v._array:summarize_along(zarr_selection(v._sel), array_dims(v, axes), opts)
  if not opts.unscale and not cf and opts.extremes and s.count:min() == 0 then return nil end -- min's own error
  return from_summaries(s, op, cf, dtype)
end

-- Per group along v's first dimension (group_of: a group from 0 per position,
-- or -1), op folded as v is read, where streamed_along would fold it: an
-- array with the groups first, or nil.
local function streamed_groups(v, op, group_of, n_groups)
  local opts, cf, dtype = fold_options(v, op, true)
  if not opts or #v.dims < 2 then return nil end
  local s = v._array:summarize_groups(zarr_selection(v._sel), array_dims(v, { 0 })[1], group_of, n_groups, opts)
  return from_summaries(s, op, cf, dtype)
end

-- Reductions by dimension name (NaN skipped, as xarray): over everything a
-- number, else a variable of the dimensions left.
-- The variable of r, the values of v reduced along axes: v's other dimensions.
local function reduced_variable(v, axes, r, attrs, lead)
  local left = lead and table.move(lead, 1, #lead, 1, {}) or {}
  for _, d in ipairs(v.dims) do
    local gone = false
    for _, a in ipairs(axes) do gone = gone or v.dims[a + 1] == d end
    if not gone then left[#left + 1] = d end
  end
  local out = new_variable(v._ds, v.name, nil, left, nil, r)
  out.attrs, out._coordmap, out._auxmap = attrs or v.attrs, {}, kept_aux(v, left)
  local coords = v:_coords()
  for _, d in ipairs(left) do out._coordmap[d] = coords[d] end
  return out
end

-- Selections whose values take more bytes (as float64) are evaluated in slabs
-- of about this many; smaller ones at once (ipfsrt.arithmetic). Small slabs
-- keep each operation's output in the few buffers the n-d arrays recycle (the
-- 366-day weighted mean: 1.4 s in slabs of 32 MB, 2.0 s in slabs of 128 MB).
-- An expression of one stored variable reads it once, in slabs (lazy.each_slab).
M.SLAB_BYTES = 32 << 20

local arithmetic = require("ipfsrt.arithmetic").install({ bad = bad, resolve = resolve, slice_part = slice_part,
  coordinate = coordinate, new_variable = new_variable, cf_of = cf_of, kept_aux = kept_aux }, Variable, M)
local is_variable, node_of, labels_of = arithmetic.is_variable, arithmetic.node_of, arithmetic.labels_of

-- v:mean([dims][, {skipna =, weights =}]) and sum, min, max, std, var, count,
-- median: over dims (a name or a list; all when nil), NaN skipped unless
-- skipna = false; weights (a variable, broadcast by name) for sum and mean.
for _, op in ipairs { "mean", "sum", "min", "max", "std", "var", "count", "median" } do
  Variable[op] = function(v, dims, opts)
    if type(dims) == "table" and #dims == 0 and next(dims) ~= nil and opts == nil then dims, opts = nil, dims end
    opts = arithmetic.check_reduce_options(op, opts)
    if opts.weights ~= nil then return arithmetic.weighted(v, op, dims, opts.weights) end
    local skipna = opts.skipna ~= false
    if v._expr then return arithmetic.lazy_reduced(v, op, dims, skipna) end
    local axes = axes_of(v, dims)
    if skipna and (not axes or #axes == #v.dims) then
      local s = op ~= "median" and streamed(v, op)
      if s then return s end
    end
    local r = skipna and op ~= "median" and axes and #axes < #v.dims and streamed_along(v, op, axes)
    if not r then
      local x = v:_values_array()
      local o = { skipna = skipna }
      if not axes or #axes == #v.dims then return x[op](x, o) end
      r = x[op](x, #axes == 1 and axes[1] or axes, o)
    end
    return reduced_variable(v, axes, r)
  end
end

-- The coordinate variables along the variable's dimensions, selected alike.
function Variable._coords(v)
  local out = {}
  local carried = rawget(v, "_coordmap")
  if carried then
    for d, c in pairs(carried) do out[d] = c end
    return out
  end
  local g = rawget(v, "_gather")
  local sel = v._sel or (g and g.sel)
  if not sel then return out end
  for i, d in ipairs(v._all_dims) do
    local c, s = v._ds._coords[d], sel[i]
    if c == v or (c and d == v.name and #v._all_dims == 1) then out[d] = v
    elseif c and s.list then out[d] = c:isel { [d] = gather.list(s.list) }
    elseif c and not (s.index or s.points) then
      out[d] = c:isel { [d] = { s.start, s.start + s.count * s.step, s.step } }
    end
  end
  return out
end

-- The coordinates not along a dimension of v: scalar ones (a dimension an
-- index took, as xarray keeps them: where method = "nearest" landed) and
-- those along a dimension of points (each point's labels).
function Variable._aux(v)
  local carried = rawget(v, "_auxmap")
  if carried then return carried end
  local out = {}
  local g = rawget(v, "_gather")
  local sel = v._sel or (g and g.sel)
  if not sel or #v._all_dims == 1 and v._ds._coords[v._all_dims[1]] and v.name == v._all_dims[1] then return out end
  for i, d in ipairs(v._all_dims) do
    local c, s = v._ds._coords[d], sel[i]
    if c and s.index then out[d] = c:isel { [d] = s.index }
    elseif c and s.points then out[d] = c:isel { [d] = gather.points(s.points, s.dim) } end
  end
  return out
end

-- A list of dates is Lua's, from 1, where array positions count from 0: a
-- position asked for before its start (0, the first array position) or past
-- its end is an error saying so, not a silent nil (the one past the last is
-- nil: ipairs and # stop there).
local DATES = {
  __index = function(list, k)
    if math.type(k) == "integer" and k ~= #list + 1 then
      error(ipfsrt.error.new("bad_argument", string.format("dates: no date %d in a list of %d: the list is Lua's, " ..
        "from 1 (array position p is dates()[p + 1])", k, #list)), 2)
    end
  end,
}

-- A time coordinate's values as ISO dates (worked out once per variable:
-- scripts ask for them again and again).
function Variable.dates(v)
  local t = time_of(v.name, v.attrs)
  if not t then bad("%s has no CF time units", v.name) end
  local dates = rawget(v, "_dates")
  if not dates then
    dates = {}
    local seconds = rawget(v, "_cache") -- a coordinate's, decoded when the dataset opened
    if not seconds then
      seconds = {}
      for i, x in ipairs(v:_values_array():astype("float64"):reshape { -1 }:tolist()) do seconds[i] = x * t.scale + t.epoch end
    end
    for i, x in ipairs(seconds) do
      local date, why = cftime.format(x, t.calendar)
      if not date then bad("%s: %s", v.name, why) end
      dates[i] = date
    end
    rawset(v, "_dates", dates)
  end
  return setmetatable(table.move(dates, 1, #dates, 1, {}), DATES)
end

-- Text that reads back as the same number, as numpy prints it (pandas' CSV):
-- float32 values in their own shortest form, whole floats with ".0", NaN empty.
local function number_text(x, single)
  if math.type(x) == "integer" then return tostring(x) end
  if x ~= x then return "" end
  if x == math.huge or x == -math.huge then return x > 0 and "inf" or "-inf" end
  local s
  for digits = single and 6 or 15, 17 do
    s = string.format("%." .. digits .. "g", x)
    local back = tonumber(s)
    if single then back = string.unpack("f", string.pack("f", back)) end
    if back == x then break end
  end
  if not s:find("[%.eE]") then s = s .. ".0" end
  return s
end

-- Times as pandas writes a DatetimeIndex: dates alone when every time is a
-- midnight, else each with its time of day ("2024-01-01 12:00:00", and
-- microseconds in six digits where a time has them).
local function pandas_times(dates)
  local clock = false
  for _, t in ipairs(dates) do clock = clock or t:find("T", 1, true) ~= nil end
  if not clock then return dates end
  local out = {}
  for i, t in ipairs(dates) do
    local day, time = t:match("^(.-)T(.*)$")
    if not day then day, time = t, "00:00:00" end
    local whole, frac = time:match("^([^.]*)%.(%d+)$")
    out[i] = t == "NaT" and t or day .. " " .. (whole and whole .. "." .. (frac .. "000000"):sub(1, 6) or time)
  end
  return out
end

-- The labels along each dimension of v, as text: dates for CF times, numbers
-- of the coordinate, else positions (from 0).
local function csv_labels(v)
  local coords, labels = v:_coords(), {}
  for d, dim in ipairs(v.dims) do
    local c, out = coords[dim], {}
    if c and time_of(c.name, c.attrs) then
      out = pandas_times(c:dates())
    elseif c then
      local x = c:values()
      for i, n in ipairs(x:astype("float64"):tolist()) do out[i] = number_text(n, x.dtype == "float32") end
    else
      for i = 1, v.shape[d] do out[i] = tostring(i - 1) end
    end
    labels[d] = out
  end
  return labels
end

-- v:to_csv(path): one row per element, C order: a column per dimension (its
-- labels), then the values (CF-decoded; missing ones empty), a header of
-- names: what pandas writes for xarray's da.to_series().to_csv(path).
function Variable.to_csv(v, path)
  if type(path) ~= "string" then bad("to_csv takes a file name") end
  local x = v:_values_array()
  local f, why = io.open(path, "w")
  if not f then error(ipfsrt.error.new("io", "dataset: to_csv: " .. tostring(why)), 2) end
  local head = table.move(v.dims, 1, #v.dims, 1, {})
  head[#head + 1] = v.name
  f:write(table.concat(head, ","), "\n")
  local labels, single = csv_labels(v), x.dtype == "float32"
  local values, idx, rows, nd = x:reshape { -1 }:tolist(), {}, {}, #v.dims
  for d = 1, nd do idx[d] = 1 end
  for k = 1, #values do
    local row = {}
    for d = 1, nd do row[d] = labels[d][idx[d]] end
    row[nd + 1] = number_text(values[k], single)
    rows[#rows + 1] = table.concat(row, ",")
    if #rows == 4096 then f:write(table.concat(rows, "\n"), "\n"); rows = {} end
    for d = nd, 1, -1 do -- the next element's index, last dimension fastest
      idx[d] = idx[d] + 1
      if idx[d] <= v.shape[d] then break end
      idx[d] = 1
    end
  end
  if #rows > 0 then f:write(table.concat(rows, "\n"), "\n") end
  f:close()
end

function Variable.__tostring(v)
  local dims = {}
  for i, d in ipairs(v.dims) do dims[i] = d .. ": " .. v.shape[i] end
  local a = v._array
  local kind = v._expr and "lazy: values() or a reduction computes it" or v._data and v._data.dtype or
    (cf_of(v) and (a.dtype .. " -> " .. cf_of(v).type) or a.dtype)
  local lines = { string.format("<ipfsrt.dataset.Variable %s (%s)> %s", v.name, table.concat(dims, ", "), kind) }
  for _, k in ipairs { "long_name", "units" } do
    if v.attrs[k] then lines[#lines + 1] = string.format("  %s: %s", k, tostring(v.attrs[k])) end
  end
  if v._data or (v._sel and #v.dims <= 1 and (v.shape[1] or 1) <= 8) then
    lines[#lines + 1] = tostring(v:values())
  end
  return table.concat(lines, "\n")
end

-- ------------------------------------------------------------- datasets

-- The keys of t (names), sorted.
local function sorted_names(t)
  local names = {}
  for name in pairs(t) do names[#names + 1] = name end
  table.sort(names)
  return names
end

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
      lines[#lines + 1] = string.format("    %-8s (%s) %s", name, table.concat(v.dims, ", "), v._array.dtype)
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
  for i, name in ipairs(names) do arrays[i] = ds._coords[name]._array end
  for first = 1, #names, 64 do -- as many as one read_many takes
    local part = table.move(arrays, first, math.min(first + 63, #arrays), 1, {})
    for k, raw in ipairs(zarr.read_many(part)) do
      local name = names[first + k - 1]
      local c = ds._coords[name]
      local _, t = coordinate(c, name, decoded(c, raw))
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
  if not client and type(where) == "string" and (where:match("^ipfs://") or where:match("^/ipfs/")) then
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
    local v = new_variable(ds, name, a, dims, full_selection(a))
    if ds.decode then -- times and CF attributes that cannot be decoded fail the opening, as in xarray
      time_of(name, v.attrs)
      cf_of(v)
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

-- A coordinate variable of computed labels (numbers, or names), times with
-- the CF units that make :dates() give dates.
local function label_coordinate(ds, name, labels, t)
  local numbers = {}
  for i, x in ipairs(labels) do numbers[i] = type(x) == "number" and x or i - 1 end
  local c = new_variable(ds, name, nil, { name }, nil, nd.from(numbers, t and "float64" or nil))
  c.attrs = t and { units = "seconds since 1970-01-01", calendar = t.calendar.name } or {}
  c._labels, c._time, c._coordmap = labels, t and { scale = 1, epoch = 0, calendar = t.calendar } or nil, {}
  c._coordmap[name] = c
  return c
end

-- A coordinate as to_zarr and to_netcdf write it: its values (an n-d array)
-- or, for names (seasons), the names (a list of strings); and its
-- attributes. Times go as seconds since 1970-01-01 of their calendar, which
-- xarray decodes back to the same times.
local function written_coordinate(c)
  local t = time_of(c.name, c.attrs)
  local labels -- none of a scalar coordinate: its one value is read
  if #c.dims > 0 then labels = arithmetic.labels_of(c) end
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
local function written_attributes(attrs)
  local out = {}
  for k, v in pairs(attrs or {}) do if not NOT_WRITTEN[k] then out[k] = v end end
  return out
end

M.list, M.points = gather.list, gather.points

local internals = { streamed_groups = streamed_groups, labels_of = labels_of, time_of = time_of, axis_of = axis_of, coordinate = coordinate,
  new_variable = new_variable, node_of = node_of, slabs = M.slabs, lazy_variable = arithmetic.lazy_variable,
  is_variable = is_variable, resolve = resolve, bad = bad, sorted_names = sorted_names,
  reduced_variable = reduced_variable, cf_of = cf_of, slice_part = slice_part, label_coordinate = label_coordinate,
  label = label, selected_labels = selected_labels, written_coordinate = written_coordinate,
  written_attributes = written_attributes, iso = iso,
  fold_bytes = function() return M.FOLD_BYTES end, axes_of = axes_of }
require("ipfsrt.groupby").install(internals, Variable)
require("ipfsrt.rolling").install(internals, Variable)
require("ipfsrt.to_zarr").install(internals, Variable)
require("ipfsrt.to_netcdf").install(internals, Variable)
require("ipfsrt.ordered").install(internals, Variable)
require("ipfsrt.extrema").install(internals, Variable)
require("ipfsrt.along").install(internals, Variable)
require("ipfsrt.coarsen").install(internals, Variable)
require("ipfsrt.polyfit").install(internals, Variable)
require("ipfsrt.append").install(internals, Dataset)
require("ipfsrt.changes").install(Dataset)
M.diff = require("ipfsrt.changes").diff -- diff(old, new[, opts]): see ipfsrt.changes

-- append(old, from, opts) -> the new root (or nil, a folder changed in
-- place): old opened (a URL, a CAR, a folder) and from appended along
-- opts.dim, or written into opts.region (see ipfsrt.append).
function M.append(old, from, opts)
  if type(old) == "string" then old = M.open(old) end
  return require("ipfsrt.append").write(old, from, opts)
end

M.Dataset, M.Variable = Dataset, Variable
return M
