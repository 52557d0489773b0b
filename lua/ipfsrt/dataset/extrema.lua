-- ipfsrt.dataset.extrema: where the greatest and least values are, as xarray's
-- argmax, argmin, idxmax and idxmin, along one dimension or several.
--
--   series:argmax(); box:argmax("time")               -- a position; a variable of positions
--   ds.sst:argmax { "time", "lat", "lon" }            -- {time = 201, lat = 610, lon = 37}
--   ds.sst:idxmax { "time", "lat", "lon" }            -- {time = "2024-07-20T12:00:00", lat = 62.625, ...}
--   ds.sst:argmax { "lat", "lon" }                    -- {lat = <variable (time)>, lon = <variable (time)>}
--
-- NaN is skipped; argmax of a slice of NaN only is an error (as xarray's),
-- idxmax gives NaN there (NaT on times). Over every dimension of a large
-- stored variable the values are folded as they are read, a slab at a time
-- (as a fused max is), never held whole.
local ipfsrt = require "ipfsrt"
local nd = ipfsrt.ndarray

local M = {}
local V = require "ipfsrt.dataset.variable"
local CF = require "ipfsrt.dataset.cf"
local gather = require "ipfsrt.dataset.gather"
local reduce = require "ipfsrt.dataset.reduce"
local bad = require "ipfsrt.bad" ("dataset: ")

local function arg_of(what) return (what == "idxmax" or what == "argmax") and "argmax" or "argmin" end

-- The one axis of dim (a 1-D variable's own when nil).
local function one_axis(v, dim, what)
  if dim == nil and #v.dims == 1 then dim = v.dims[1] end
  if type(dim) ~= "string" then
    bad("%s takes a dimension or a list of them (dimensions: %s)", what, table.concat(v.dims, ", "))
  end
  return V.axis_of(v, dim)
end

-- The positions along dim (one axis), as before: a number for a 1-D
-- variable, else a variable of the others.
local function arg_along(v, dim, what)
  local axis = one_axis(v, dim, what)
  local x = v:_values_array()
  if #v.dims == 1 then return x[what](x) end
  return reduce.reduced_variable(v, { axis }, x[what](x, axis), {})
end

-- The flat position (C order over v's shape) of the extreme of all v's
-- values, located as they are read (each chunk scanned on the thread that
-- decoded it: ipfsrt_zarr_locate_extremes); nil when v is no large stored
-- variable (over the dataset's FOLD_BYTES, as other folds). Integers packed
-- with a positive scale_factor are scanned as
-- stored (the fill values left out): their order is the decoded values'.
local function folded_position(v, arg)
  local total = 8
  for _, n in ipairs(v.shape) do total = total * n end
  if not (V.array(v) and V.selection(v)) or #v.dims == 0 or total <= V.tuning.FOLD_BYTES then return nil end
  local cf = V.cf(v)
  if cf and cf.view then return nil end -- _Unsigned: viewed before decoding
  for _, s in ipairs(V.selection(v)) do if s.step and s.step < 0 then return nil end end
  local parts = {}
  for k, s in ipairs(V.selection(v)) do parts[k] = gather.slice_part(s) end
  local opts, want = {}, arg
  if cf and V.array(v).dtype:match("int") and (cf.scale or 1) ~= 0 then
    opts.skip = cf.fills
    if (cf.scale or 1) < 0 then want = arg == "argmax" and "argmin" or "argmax" end -- order reversed
  elseif cf then
    opts.unscale = { dtype = cf.type, fills = cf.fills, scale = cf.scale, offset = cf.offset }
  end
  local e = V.array(v):locate_extremes(parts, opts)
  if e.count == 0 then bad("%s of %s: every value is NaN", arg, v.name) end
  return want == "argmax" and e.max_at or e.min_at
end

-- The flat positions of the extremes over axes (merged, in v's order) of
-- values x, per element of the others; and the merged dimensions' lengths.
local function merged_positions(x, axes, arg, fill)
  local reduced, order, kept_shape, lengths = {}, {}, {}, {}
  for _, a in ipairs(axes) do reduced[a + 1] = true end
  for i, n in ipairs(x.shape) do
    if not reduced[i] then order[#order + 1], kept_shape[#kept_shape + 1] = i - 1, n end
  end
  for i, n in ipairs(x.shape) do
    if reduced[i] then order[#order + 1], lengths[#lengths + 1] = i - 1, n end
  end
  local shape = table.move(kept_shape, 1, #kept_shape, 1, {})
  shape[#shape + 1] = -1
  local merged = x:transpose(order):copy():reshape(shape)
  if fill then merged = nd.where(merged:isnan(), fill, merged) end
  return merged[arg](merged, #kept_shape), lengths
end

-- Position along each merged dimension of flat positions p (numbers or
-- int64 arrays), C order.
local function unravel(p, lengths)
  local out, stride = {}, 1
  for k = #lengths, 1, -1 do
    out[k] = (p // stride) % lengths[k]
    stride = stride * lengths[k]
  end
  return out
end

-- The axes of dims (each once), in v's order.
local function sorted_axes(v, dims, what)
  local axes, seen = {}, {}
  for _, d in ipairs(dims) do
    local a = V.axis_of(v, d)
    if seen[a] then bad("%s: %s is given twice", what, d) end
    seen[a], axes[#axes + 1] = true, a
  end
  table.sort(axes)
  return axes
end

-- {dim = position}: of the extreme over several dimensions (every one:
-- numbers; else variables of the others).
local function arg_over(v, dims, what)
  local axes = sorted_axes(v, dims, what)
  local arg, out = arg_of(what), {}
  if #axes == #v.dims then
    local flat = folded_position(v, arg)
    if not flat then
      local x = v:_values_array()
      if x:count() == 0 then bad("%s of %s: every value is NaN", what, v.name) end
      flat = x[arg](x)
    end
    for k, p in ipairs(unravel(flat, v.shape)) do out[v.dims[axes[k] + 1]] = p end
    return out
  end
  local pos, lengths = merged_positions(v:_values_array(), axes, arg)
  for k, p in ipairs(unravel(pos, lengths)) do out[v.dims[axes[k] + 1]] = reduce.reduced_variable(v, axes, p, {}) end
  return out
end

-- The label of coordinate c at position p (a date on times, NaN/NaT for nil).
local function label_at(c, p)
  local timed = CF.time_of(c.name, c.attrs)
  if p == nil then return timed and "NaT" or 0 / 0 end
  return timed and c:dates()[p + 1] or c:_values_array():astype("float64"):get(p)
end

local function coordinate_of(v, dim, what)
  local c = v:_coords()[dim]
  if not c then bad("%s: %s has no coordinate variable (argmax gives positions)", what, dim) end
  return c
end

-- The labels along dim (one axis): a label for a 1-D variable, else a
-- variable of the coordinate's values with its attributes (dates() gives
-- dates), NaN where a slice is NaN only (as xarray's fill).
local function idx_along(v, dim, what)
  local axis = one_axis(v, dim, what)
  local c = coordinate_of(v, v.dims[axis + 1], what)
  local x = v:_values_array():astype("float64")
  local arg = arg_of(what)
  if #v.dims == 1 then
    if x:count() == 0 then return label_at(c, nil) end
    return label_at(c, x[arg](nd.where(x:isnan(), arg == "argmax" and -math.huge or math.huge, x)))
  end
  local pos = merged_positions(x, { axis }, arg, arg == "argmax" and -math.huge or math.huge)
  local labels, counts, out = c:_values_array():astype("float64"):tolist(), x:count(axis):reshape { -1 }:tolist(), {}
  for i, p in ipairs(pos:reshape { -1 }:tolist()) do out[i] = counts[i] > 0 and labels[p + 1] or 0 / 0 end
  return reduce.reduced_variable(v, { axis }, nd.from(out, "float64"):reshape(pos.shape), c.attrs)
end

-- {dim = label}: the labels of the extreme over several dimensions.
local function idx_over(v, dims, what)
  for _, d in ipairs(dims) do coordinate_of(v, d, what) end
  local axes = sorted_axes(v, dims, what)
  if #axes == #v.dims then
    local out = {}
    for d, p in pairs(arg_over(v, dims, what)) do out[d] = label_at(coordinate_of(v, d, what), p) end
    return out
  end
  local arg = arg_of(what)
  local x = v:_values_array():astype("float64")
  local pos, lengths = merged_positions(x, axes, arg, arg == "argmax" and -math.huge or math.huge)
  local counts = x:count(axes):reshape { -1 }:tolist()
  local out = {}
  for k, p in ipairs(unravel(pos, lengths)) do
    local d = v.dims[axes[k] + 1]
    local c = coordinate_of(v, d, what)
    local labels, values = c:_values_array():astype("float64"):tolist(), {}
    for i, q in ipairs(p:reshape { -1 }:tolist()) do values[i] = counts[i] > 0 and labels[q + 1] or 0 / 0 end
    out[d] = reduce.reduced_variable(v, axes, nd.from(values, "float64"):reshape(pos.shape), c.attrs)
  end
  return out
end

-- max() and min() over everything of a large stored variable: the place
-- located as read, then that one value read decoded (the bits a decoded
-- read gives, at the cost of one chunk).
local function located_extreme(v, op, dims, opts)
  if dims ~= nil or (opts ~= nil and (type(opts) ~= "table" or next(opts) ~= nil)) then return nil end
  local flat = folded_position(v, op == "max" and "argmax" or "argmin")
  if not flat then return nil end
  local spec = {}
  for k, p in ipairs(unravel(flat, v.shape)) do spec[v.dims[k]] = p end
  return v:isel(spec):item()
end

-- The methods this module gives the Variable class (max and min: a reduction
-- where no labels are asked for).
M.methods = {}
for _, op in ipairs { "max", "min" } do
  local folded = reduce.reduction(op)
  M.methods[op] = function(v, dims, opts)
    local x = located_extreme(v, op, dims, opts)
    if x ~= nil then return x end
    return folded(v, dims, opts)
  end
end
for _, what in ipairs { "argmax", "argmin", "idxmax", "idxmin" } do
  local along, over = what:match("^arg") and arg_along or idx_along, what:match("^arg") and arg_over or idx_over
  M.methods[what] = function(v, dims)
    if type(dims) == "table" then return over(v, dims, what) end
    return along(v, dims, what)
  end
end

return M
