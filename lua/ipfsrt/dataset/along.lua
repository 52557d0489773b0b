-- ipfsrt.dataset.along: operations along a dimension of a dataset variable, as
-- xarray's: squeeze, diff, cumsum, shift and interp.
--
--   ds.sst:sel { time = "2024-01-05" }:squeeze()        -- length-one dimensions dropped (kept as coordinates)
--   series:diff("time"); series:cumsum("time"); series:shift { time = 1 }
--   ds.sst:interp { lat = 35.3, lon = ipfsrt.list { 285, 285.3 } }              -- linear
--   series:interp { time = ipfsrt.list { "2024-01-02T06" }, method = "nearest" }
--
-- Each reads the variable's values whole (as xarray does without dask).
local ipfsrt = require "ipfsrt"
local gather = require "ipfsrt.dataset.gather"
local nd = ipfsrt.ndarray

local M = {}
local V = require "ipfsrt.dataset.variable"
local labels = require "ipfsrt.dataset.labels"
local bad = require "ipfsrt.bad" ("dataset: ")

-- x's positions [a, b) along axis (from 0), a view.
local function along(x, axis, a, b)
  local parts = {}
  for k = 1, axis do parts[k] = {} end
  parts[axis + 1] = { a, b }
  return x:slice(parts)
end
M.slice_along = along

-- A variable of values shaped as v, with v's coordinates (those along dims
-- replaced by coords[dim] when given).
local function like(v, values, coords, attrs)
  local map = v:_coords()
  for d, c in pairs(coords or {}) do map[d] = c end
  return V.computed(V.dataset(v), v.name, v.dims, values, attrs or v.attrs, map, v:_aux())
end

-- v:squeeze([dim | {dim, ...}]): the dimensions of length one (all, or those
-- named: each must be of length one) dropped, their coordinates kept as
-- scalar coordinates.
function M.squeeze(v, dims)
  if type(dims) == "string" then dims = { dims } end
  local spec = {}
  if dims == nil then
    for i, d in ipairs(v.dims) do if v.shape[i] == 1 then spec[d] = 0 end end
  else
    for _, d in ipairs(dims) do
      local n = v.shape[V.axis_of(v, d) + 1]
      if n ~= 1 then bad("squeeze: %s has length %d; only dimensions of length one are dropped", d, n) end
      spec[d] = 0
    end
  end
  if next(spec) == nil then return v end
  return v:isel(spec)
end

-- v:diff(dim[, n = 1][, {label = "upper" | "lower"}]): the differences of
-- neighbours along dim, n times, labelled by the later (upper) positions.
function M.diff(v, dim, n, opts)
  if type(n) == "table" and opts == nil then n, opts = nil, n end
  n = n or 1
  if math.type(n) ~= "integer" or n < 0 then bad("diff: n is a whole number >= 0") end
  local label = opts and opts.label or "upper"
  if label ~= "upper" and label ~= "lower" then bad("diff: label is \"upper\" or \"lower\", not %s", tostring(label)) end
  local axis = V.axis_of(v, dim)
  local out = v
  for _ = 1, n do
    local len = out.shape[axis + 1]
    if len == 0 then break end
    local x = out:_values_array()
    local d = along(x, axis, 1, len) - along(x, axis, 0, len - 1)
    local kept = label == "upper" and { 1, len } or { 0, len - 1 }
    out = like(out:isel { [dim] = kept }, d, nil, {}) -- the labels of the kept side
  end
  return out
end

-- v:cumsum(dim[, {skipna = true}]): running sums along dim (NaN adds 0 with
-- skipna, as numpy's nancumsum; integers in int64).
function M.cumsum(v, dim, opts)
  if type(dim) ~= "string" then bad("cumsum takes a dimension (dimensions: %s)", table.concat(v.dims, ", ")) end
  local axis = V.axis_of(v, dim)
  local x = v:_values_array()
  return like(v, x:cumsum(axis, { skipna = not (opts and opts.skipna == false) }), nil, {})
end

-- The float type a shift fills with NaN in (xarray's promotion for NaN).
local function nan_type(dtype)
  if dtype:match("^float") then return dtype end
  if dtype:match("int8$") or dtype:match("int16$") then return "float32" end
  if dtype:match("int") then return "float64" end
  bad("shift: %s values cannot hold NaN", dtype)
end

-- v:shift{dim = n, ...}: the values moved n positions along dim (later for n
-- > 0), NaN where none comes; the labels stay.
function M.shift(v, spec)
  if type(spec) ~= "table" or next(spec) == nil then bad("shift takes {dim = n, ...}") end
  local x = v:_values_array()
  local out = nd.full(x.shape, 0 / 0, nan_type(x.dtype))
  local dst, src = {}, {}
  for i = 1, #x.shape do dst[i], src[i] = {}, {} end
  for d, n in pairs(spec) do
    if math.type(n) ~= "integer" then bad("shift: %s = a whole number of positions", tostring(d)) end
    local i, len = V.axis_of(v, d) + 1, x.shape[V.axis_of(v, d) + 1]
    local k = math.max(-len, math.min(len, n))
    dst[i], src[i] = { math.max(0, k), len + math.min(0, k) }, { math.max(0, -k), len - math.max(0, k) }
  end
  out:slice(dst):assign(x:slice(src))
  return like(v, out)
end

-- ------------------------------------------------------------------- interp

local INTERP_METHODS = { linear = true, nearest = true }

-- The targets along dim: numbers (times in seconds), a list or one, and the
-- coordinate variable they make.
local function targets_of(v, dim, want)
  local c = v:_coords()[dim]
  if not c then bad("interp: %s has no coordinate variable to interpolate on", dim) end
  local _, t = V.selected_labels(c, dim)
  local scalar = type(want) ~= "table"
  local items = scalar and { want } or gather.is_gather(want) and want.items or want
  if gather.is_points(want) then bad("interp: points are not supported; interpolate each dimension on a list") end
  local values = {}
  for j, x in ipairs(items) do
    if type(x) == "string" and t then values[j] = labels.label(x, t, dim)
    elseif type(x) == "number" then values[j] = x
    else bad("interp: %s: target %d is %s, not a number%s", dim, j, tostring(x), t and " or a date" or "") end
  end
  local coord
  if t then coord = V.label_coordinate(V.dataset(v), dim, values, t)
  else
    coord = V.labelled(V.dataset(v), dim, nd.from(values, "float64"), values, c.attrs)
  end
  return values, scalar, coord
end

-- Index of the first of the sorted xs not below x (numpy's searchsorted, left).
local function search(xs, x)
  local lo, hi = 1, #xs + 1
  while lo < hi do
    local mid = (lo + hi) // 2
    if xs[mid] < x then lo = mid + 1 else hi = mid end
  end
  return lo - 1
end

-- An array of n values along axis of an array of ndim dimensions, for
-- broadcasting against it.
local function along_axis(list, axis, ndim)
  local shape = {}
  for k = 1, ndim do shape[k] = k == axis + 1 and #list or 1 end
  return nd.from(list, "float64"):reshape(shape)
end

-- y (values along axis at the sorted xs) at targets, as scipy's interp1d
-- does them: linear, the slope between the neighbours found by searchsorted
-- (clipped to the inner ones); nearest, the side of the midpoints; NaN
-- outside xs.
local function interp_axis(y, axis, xs, targets, method)
  local n = #xs
  local lo, hi, gap, offset, outside = {}, {}, {}, {}, {}
  local mids = {}
  for k = 1, n - 1 do mids[k] = (xs[k] + xs[k + 1]) / 2 end
  for j, x in ipairs(targets) do
    outside[j] = (x < xs[1] or x > xs[n] or x ~= x) and 1 or 0
    if method == "nearest" then
      lo[j] = math.max(0, math.min(n - 1, search(mids, x)))
    else
      local i = math.max(1, math.min(n - 1, search(xs, x)))
      lo[j], hi[j], gap[j], offset[j] = i - 1, i, xs[i + 1] - xs[i], x - xs[i]
    end
  end
  local ndim = #y.shape
  local mask = along_axis(outside, axis, ndim):gt(0)
  if method == "nearest" then return nd.where(mask, 0 / 0, y:take(lo, axis)):astype(y.dtype) end
  local y_lo, y_hi = y:take(lo, axis):astype("float64"), y:take(hi, axis):astype("float64")
  local slope = (y_hi - y_lo) / along_axis(gap, axis, ndim)
  return nd.where(mask, 0 / 0, slope * along_axis(offset, axis, ndim) + y_lo)
end

-- v:interp{dim = target | {target, ...} | ipfsrt.list{...}, ..., method =
-- "linear" | "nearest"}: the values at other coordinate values (dates on
-- times), as xarray's interp: NaN outside the coordinate's range; linear
-- gives float64, nearest keeps the type; a single target drops the
-- dimension and keeps its label as a scalar coordinate.
function M.interp(v, spec)
  if type(spec) ~= "table" then bad("interp takes {dim = target(s), method = \"linear\" | \"nearest\"}") end
  local method = spec.method or "linear"
  if not INTERP_METHODS[method] then bad("interp: method %s is not known (methods: linear, nearest)", tostring(method)) end
  local out = v
  for dim, want in pairs(spec) do
    if dim ~= "method" then
      local axis = V.axis_of(out, dim)
      local targets, scalar, coord = targets_of(out, dim, want)
      local labels = V.selected_labels(out:_coords()[dim], dim)
      local xs, order = {}, {}
      for k = 1, out.shape[axis + 1] do order[k] = k end
      table.sort(order, function(a, b) return labels[a] < labels[b] or (labels[a] == labels[b] and a < b) end)
      local positions = {}
      for k, o in ipairs(order) do xs[k], positions[k] = labels[o], o - 1 end
      local y = out:_values_array():take(positions, axis)
      local values = interp_axis(y, axis, xs, targets, method)
      local shape = table.move(out.shape, 1, #out.shape, 1, {})
      shape[axis + 1] = #targets
      local map = out:_coords()
      map[dim] = coord
      local r = V.computed(V.dataset(out), out.name, out.dims, values, out.attrs, map, out:_aux())
      out = scalar and r:isel { [dim] = 0 } or r
    end
  end
  return out
end

-- The methods this module gives the Variable class.
M.methods = { squeeze = M.squeeze, diff = M.diff, cumsum = M.cumsum, shift = M.shift, interp = M.interp }

return M
