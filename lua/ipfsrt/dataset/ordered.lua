-- ipfsrt.dataset.ordered: reductions that order values along dimensions, as
-- xarray's: quantile, median, and sorts along a dimension.
--
--   ds.sst:quantile(0.9, "time")                       -- the 90th percentile of every cell
--   ds.sst:quantile({ 0.1, 0.5, 0.9 }, "time", { method = "median_unbiased" })
--   ds.sst:median("time"); series:sort(); series:argsort()
--
-- Along some dimensions of a stored variable the values are read a column
-- of chunks at a time (every chunk along the reduced dimensions, a block of
-- chunks across the others, about ORDER_BYTES decoded), each column reduced
-- as soon as it is read: memory holds one column and the result, never the
-- whole selection. Each lane is selected (numpy's partition), not sorted.
local ipfsrt = require "ipfsrt"
local nd = ipfsrt.ndarray

local M = {}
local V = require "ipfsrt.dataset.variable"
local methods = require "ipfsrt.dataset.methods"
local reduce = require "ipfsrt.dataset.reduce"
local bad = require "ipfsrt.bad" ("dataset: ")

-- Decoded bytes (as float64) a column holds at most, unless one column of
-- single chunks is larger.
M.ORDER_BYTES = 256 << 20

local QUANTILE_OPTIONS = { method = true, skipna = true }
-- Methods that pick one of the values: the result keeps the values' type.
local PICKING = { lower = true, higher = true, nearest = true, inverted_cdf = true, closest_observation = true }

local function check_options(what, opts, known)
  if opts == nil then return {} end
  if type(opts) ~= "table" then bad("%s: options are a table", what) end
  for k in pairs(opts) do
    if not known[k] then bad("%s: no option %s (options: %s)", what, tostring(k), table.concat(methods.sorted_names(known), ", ")) end
  end
  return opts
end

-- The chunk length along each of v's dimensions (1 where it is not stored:
-- a computed or lazy variable reads no chunks).
local function chunk_lengths(v)
  local out = {}
  for i = 1, #v.dims do out[i] = 1 end
  local sel, a = V.selection(v), V.array(v)
  if not (sel and a) then return out end
  local d = 0
  for k, s in ipairs(sel) do
    if not s.index then
      d = d + 1
      out[d] = math.max(1, a.chunks[k] // math.abs(s.step))
    end
  end
  return out
end

-- The columns: per dimension the length of a block (whole along the reduced
-- ones, whole chunks across the others, grown from the last dimension while
-- a column stays within ORDER_BYTES).
local function blocks_of(v, reduced)
  local chunk, block, bytes = chunk_lengths(v), {}, 8
  for i, n in ipairs(v.shape) do
    block[i] = reduced[i] and n or math.min(n, chunk[i])
    bytes = bytes * math.max(1, block[i])
  end
  for i = #v.shape, 1, -1 do
    while not reduced[i] and block[i] < v.shape[i] and bytes * 2 <= M.ORDER_BYTES do
      local grown = math.min(v.shape[i], block[i] * 2)
      bytes, block[i] = bytes // math.max(1, block[i]) * grown, grown
    end
  end
  return block
end

-- fn(x, axes) over every column of v (x its values) into out, whose axes are
-- lead axes of fn's own (a quantile's q), then v's dimensions not reduced.
local function by_columns(v, axes, lead, fn, out)
  local reduced = {}
  for _, a in ipairs(axes) do reduced[a + 1] = true end
  local block, origin = blocks_of(v, reduced), {}
  for i = 1, #v.shape do origin[i] = 0 end
  while true do
    local spec, parts = {}, {}
    for _ = 1, lead do parts[#parts + 1] = {} end
    for i, d in ipairs(v.dims) do
      if not reduced[i] then
        local stop = math.min(v.shape[i], origin[i] + block[i])
        spec[d], parts[#parts + 1] = { origin[i], stop }, { origin[i], stop }
      end
    end
    local r = fn(v:isel(spec):_values_array(), axes)
    out:slice(parts):assign(r)
    local i = #v.shape -- the next column, the last dimension fastest
    while i >= 1 do
      if not reduced[i] then
        origin[i] = origin[i] + block[i]
        if origin[i] < v.shape[i] then break end
        origin[i] = 0
      end
      i = i - 1
    end
    if i < 1 then return out end
  end
end

-- The values of v reduced by fn along axes (nil: all), by columns when that
-- bounds memory; shape the result's, lead axes first.
local function ordered_reduce(v, axes, lead_shape, dtype, fn)
  if not axes or #axes == #v.dims or #v.dims == 0 then return fn(v:_values_array(), axes) end
  local shape = table.move(lead_shape, 1, #lead_shape, 1, {})
  for i, n in ipairs(v.shape) do
    local gone = false
    for _, a in ipairs(axes) do gone = gone or a + 1 == i end
    if not gone then shape[#shape + 1] = n end
  end
  local total = 8
  for _, n in ipairs(v.shape) do total = total * n end
  if total <= M.ORDER_BYTES then return fn(v:_values_array(), axes) end
  return by_columns(v, axes, #lead_shape, fn, nd.zeros(shape, dtype))
end

-- The quantile coordinate: a dimension of the qs listed, or a scalar.
local function quantile_coordinate(v, q)
  local listed = type(q) == "table"
  local values = listed and q or { q }
  if listed then return V.labelled(V.dataset(v), "quantile", nd.from(values, "float64"), values) end
  return V.computed(V.dataset(v), "quantile", {}, nd.from(values, "float64"):reshape {})
end

local function check_q(q)
  local list = type(q) == "table" and q or { q }
  if type(q) == "table" and (#q == 0 or getmetatable(q) ~= nil) then bad("quantile: q is a number or a list of them") end
  for _, x in ipairs(list) do
    if type(x) ~= "number" or not (x >= 0 and x <= 1) then bad("quantile: q must be in [0, 1], not %s", tostring(x)) end
  end
end

-- v:quantile(q | {q, ...}[, dims][, {method = "linear", skipna = true}]):
-- numpy's methods (linear, lower, higher, midpoint, nearest, inverted_cdf,
-- averaged_inverted_cdf, closest_observation, interpolated_inverted_cdf,
-- hazen, weibull, median_unbiased, normal_unbiased), NaN skipped; float64
-- (methods that pick a value: the variable's type); a list of q adds a first
-- dimension "quantile", a single q a scalar coordinate; over everything with
-- one q a number.
function M.quantile(v, q, dims, opts)
  if type(dims) == "table" and #dims == 0 and next(dims) ~= nil and opts == nil then dims, opts = nil, dims end
  check_q(q)
  opts = check_options("quantile", opts, QUANTILE_OPTIONS)
  local o = { method = opts.method, skipna = opts.skipna ~= false }
  local axes = V.axes_of(v, dims)
  local listed = type(q) == "table"
  nd.from({ 1.0 }):quantile(0.5, nil, o) -- an unknown method is refused now, before anything is read
  local dtype = PICKING[o.method] and v.dtype or "float64"
  local r = ordered_reduce(v, axes, listed and { #q } or {}, dtype, function(x, ax)
    return x:quantile(q, ax, o)
  end)
  if not axes or #axes == #v.dims then
    if type(r) == "number" then return r end
  end
  local all = {}
  for i = 1, #v.dims do all[i] = i - 1 end
  local out = reduce.reduced_variable(v, axes or all, r, {}, listed and { "quantile" } or nil)
  local c, coords, aux = quantile_coordinate(v, q), out:_coords(), {} -- xarray's quantile keeps no
  if listed then coords.quantile = c else aux.quantile = c end -- scalar coordinate but its own
  return V.computed(V.dataset(v), out.name, out.dims, V.data(out), out.attrs, coords, aux)
end

-- v:median([dims][, {skipna = false}]): as quantile(0.5), in the variable's
-- float type (float32 stays float32), by columns along some dimensions.
function M.median(v, dims, opts)
  if type(dims) == "table" and #dims == 0 and next(dims) ~= nil and opts == nil then dims, opts = nil, dims end
  opts = check_options("median", opts, { skipna = true })
  local o = { skipna = opts.skipna ~= false }
  if V.expression(v) and not V.data(v) then return nil end -- lazy expressions: the arithmetic module's
  local axes = V.axes_of(v, dims)
  local dtype = v.dtype == "float32" and "float32" or "float64"
  local r = ordered_reduce(v, axes, {}, dtype, function(x, ax)
    if ax then return x:median(ax, o) end
    return x:median(o)
  end)
  if type(r) == "number" then return r end
  return reduce.reduced_variable(v, axes or {}, r)
end

-- v:sort([dim]), v:argsort([dim]): the values along dim (a 1-D variable's
-- own when nil) in order, NaN last, equal ones in their order (numpy's
-- kind = "stable"); argsort their positions (int64). The dimension's
-- coordinate no longer labels them and is left out.
for _, what in ipairs { "sort", "argsort" } do
  M[what] = function(v, dim)
    if dim == nil and #v.dims == 1 then dim = v.dims[1] end
    if type(dim) ~= "string" then bad("%s takes one dimension (dimensions: %s)", what, table.concat(v.dims, ", ")) end
    local axis = V.axis_of(v, dim)
    local x = v:_values_array()
    local coords = v:_coords()
    coords[dim] = nil
    return V.computed(V.dataset(v), v.name, v.dims, x[what](x, axis), what == "sort" and v.attrs or {}, coords, v:_aux())
  end
end

-- The methods this module gives the Variable class (median: a reduction
-- where it orders no values itself).
M.methods = { quantile = M.quantile, sort = M.sort, argsort = M.argsort }
local folded_median = reduce.reduction("median")
function M.methods.median(v, dims, opts) return M.median(v, dims, opts) or folded_median(v, dims, opts) end

return M
