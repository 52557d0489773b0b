-- ipfsrt.dataset.variable: the Variable class of ipfsrt.dataset, defined
-- here once, and the interface the toolkit's parts (lua/ipfsrt/dataset/*.lua)
-- make and read variables through: no part reads or writes a variable's
-- fields that start with "_". The parts' methods join the class in one
-- place, ipfsrt.dataset (V.add_methods refuses a name defined twice).
--
-- A variable holds one of:
--   a stored selection: a Zarr array and, per dimension, {index =} or
--     {start =, count =, step =}: V.array(v), V.selection(v)
--   a gathered selection (lists or points): read when its values are first needed
--   computed values: an n-d array in memory, V.data(v), and the coordinates it carries
--   an expression (ipfsrt.dataset.lazy) evaluated by values(): V.expression(v)
--
-- The interface (V = require "ipfsrt.dataset.variable"):
--   V.is(x)                                  x is a Variable
--   V.stored(ds, name, array, dims, sel)     a selection of a stored array
--   V.computed(ds, name, dims, data, attrs, coords, aux)  computed values
--   V.labelled(ds, name, data, labels, attrs, t)  a coordinate of its own labels
--   V.lazy(ds, expr, coords, name, aux)      an expression's variable
--   V.label_coordinate(ds, name, labels, t)  a coordinate of computed labels
--   V.dataset(v), V.array(v), V.selection(v), V.data(v), V.expression(v)
--   V.all_dims(v)                            dimensions of the selection, index-taken ones too
--   V.coordinate_of(v, dim)                  the dataset's coordinate variable of dim
--   V.coordinate(v, dim[, values]) -> labels, t   (numbers: times in seconds)
--   V.labels_of(c), V.selected_labels(v, dim)
--   V.axis_of(v, dim), V.axes_of(v, dims), V.resolve(part, n, dim)
--   V.kept_aux(v, dims), V.cf(v), V.zarr_selection(sel), V.tuning (FOLD_BYTES, SLAB_BYTES)
-- and the methods v:_coords(), v:_aux(), v:_values_array() (values() as an
-- n-d array, 0-d ones too), v:_rebuilt(spec) and v:_evaluate() (an
-- expression's, from ipfsrt.dataset.arithmetic).
local ipfsrt = require "ipfsrt"
local cftime = require "ipfsrt.dataset.cftime"
local CF = require "ipfsrt.dataset.cf"
local labels = require "ipfsrt.dataset.labels"
local lazy = require "ipfsrt.dataset.lazy"
local gather = require "ipfsrt.dataset.gather"
local methods = require "ipfsrt.dataset.methods"
local nd = ipfsrt.ndarray

local V = {}
local Variable = {}
V.Variable = Variable
local bad = require "ipfsrt.bad" ("dataset: ")
local time_of = CF.time_of

-- Reductions over everything of selections above this many decoded bytes are
-- folded as they are read (below it, read and reduced: as fast, in one pass).
-- Selections whose values take more bytes (as float64) are evaluated in slabs
-- of about SLAB_BYTES; smaller ones at once (ipfsrt.dataset.arithmetic). Small
-- slabs keep each operation's output in the few buffers the n-d arrays
-- recycle (the 366-day weighted mean: 1.4 s in slabs of 32 MB, 2.0 s in slabs
-- of 128 MB). Set through ipfsrt.dataset.FOLD_BYTES and .SLAB_BYTES.
V.tuning = { FOLD_BYTES = 256 << 20, SLAB_BYTES = 32 << 20 }

function V.is(x) return getmetatable(x) == Variable end

-- (Variable, when it was defined once) methods of a part joining the class.
function V.add_methods(list)
  for name, f in pairs(list) do
    if rawget(Variable, name) ~= nil then error("ipfsrt.dataset.variable: method " .. name .. " defined twice") end
    Variable[name] = f
  end
end

function V.dataset(v) return v._ds end
function V.array(v) return v._array end
function V.selection(v) return v._sel end
function V.data(v) return v._data end
function V.expression(v) return v._expr end
function V.all_dims(v) return v._all_dims end -- a stored selection's, index-taken ones too
function V.coordinate_of(v, dim) return v._ds._coords[dim] end

-- ----------------------------------------------------------- variables

-- The axis (from 0) of dimension dim of v, or an error that lists v's dimensions.
local function axis_of(v, dim)
  for i, d in ipairs(v.dims) do if d == dim then return i - 1 end end
  bad("%s has no dimension %s (dimensions: %s)", v.name, tostring(dim), table.concat(v.dims, ", "))
end

-- part (an index or {start, stop[, step]}) for a dimension of n, as Python's
-- indexing and slice.indices: {index =} or {start =, count =, step =}.
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

-- The CF decoding of v's stored values (ipfsrt.dataset.cf; array: the
-- stored array, v's own unless given), nil when there is none.
local function cf_of(v, array)
  array = array or v._array
  if not v._ds.decode or not array then return nil end
  return CF.of(array, v.attrs, v.name)
end
V.cf = cf_of

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

-- The values of v, read (only the chunks its selection needs) and CF-decoded.
local function read_values(v, opts)
  if v._data then return v._data end
  if v._expr then return v:_evaluate() end
  local cf = cf_of(v)
  if not cf then return v._array:read(zarr_selection(v._sel), opts) end
  local o = { threads = opts and opts.threads, progress = opts and opts.progress }
  if cf.view then return CF.decoded(cf, v._array:read(zarr_selection(v._sel), o)) end
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
  local cf = cf_of(v, a)
  return cf and cf.type or a.dtype
end

-- The values of a selection by lists or points: read as boxes, CF-decoded.
function gathered_values(v)
  local g = rawget(v, "_gather")
  local cf = cf_of(v, g.array)
  local o = {}
  if cf and not cf.view then o.unscale = { dtype = cf.type, fills = cf.fills, scale = cf.scale, offset = cf.offset } end
  local x = gather.read(g.array, g.sel, v._all_dims, o)
  if cf and cf.view then x = CF.decoded(cf, x) end
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
-- The position along v's selection of dim of want (ipfsrt.dataset.labels).
local function locate(v, dim, want, method, tolerance, instants)
  local values, start, step, count, t = labels_along(v, dim)
  return labels.locate(values, start, step, count, t, dim, want, method, tolerance, instants)
end

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

-- A coordinate of computed values (data, an n-d array along name) that is
-- its own coordinate, with labels (numbers, or names) that sel finds; t:
-- their time decoding (nil: not times).
function V.labelled(ds, name, data, labels, attrs, t)
  local c = new_variable(ds, name, nil, { name }, nil, data)
  c.attrs, c._labels, c._time, c._coordmap = attrs or {}, labels, t, {}
  c._coordmap[name] = c
  return c
end

-- A coordinate variable of computed labels (numbers, or names), times with
-- the CF units that make :dates() give dates.
local function label_coordinate(ds, name, labels, t)
  local numbers = {}
  for i, x in ipairs(labels) do numbers[i] = type(x) == "number" and x or i - 1 end
  return V.labelled(ds, name, nd.from(numbers, t and "float64" or nil), labels,
    t and { units = "seconds since 1970-01-01", calendar = t.calendar.name } or {},
    t and { scale = 1, epoch = 0, calendar = t.calendar } or nil)
end

-- A variable of computed values (data, an n-d array over dims) carrying
-- coords (dimension -> coordinate variable) and aux (name -> the coordinates
-- off its dimensions); attrs: {} when nil.
function V.computed(ds, name, dims, data, attrs, coords, aux)
  local v = new_variable(ds, name, nil, dims, nil, data)
  v.attrs, v._coordmap, v._auxmap = attrs or {}, coords or {}, aux or {}
  return v
end

-- The variable of the expression n (ipfsrt.dataset.lazy), with coords along
-- its dimensions and aux off them.
function V.lazy(ds, n, coords, name, aux)
  local v = setmetatable({ _ds = ds, _expr = n, name = name or n.label, attrs = {}, _coordmap = coords,
    _auxmap = aux or {} }, Variable)
  v.dims, v.shape, v._all_dims, v.ndim = n.dims, lazy.shape_of(n), n.dims, #n.dims
  return v
end

-- The labels of a (selected) coordinate variable: numbers (times in
-- seconds), or names.
function V.labels_of(c)
  local s = c._sel and c._sel[1]
  local all = coordinate(rawget(c, "_labels") and c or c._ds._coords[c.name] or c, c.name)
  local out = {}
  for j = 0, (s and s.count or #all) - 1 do out[j + 1] = all[(s and s.start or 0) + j * (s and s.step or 1) + 1] end
  return out
end

V.stored, V.label_coordinate, V.axis_of, V.axes_of, V.resolve = new_variable, label_coordinate, axis_of, axes_of, resolve
V.kept_aux, V.coordinate, V.selected_labels, V.zarr_selection = kept_aux, coordinate, selected_labels, zarr_selection
return V
