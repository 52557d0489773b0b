-- ipfsrt.dataset.reduce: a variable's reductions by dimension name (mean,
-- sum, min, max, std, var, count, median; NaN skipped, as xarray): over
-- everything a number, else a variable of the dimensions left. Large
-- selections are folded as they are read, never built.
local V = require "ipfsrt.dataset.variable"
local arithmetic = require "ipfsrt.dataset.arithmetic"

local M = {}
local cf_of, axes_of, zarr_selection = V.cf, V.axes_of, V.zarr_selection

-- A reduction over everything of a large selection, folded as it is read:
-- each chunk summarized on the decoding thread that decoded it (the selection is
-- never built; sums come out the same on any thread count and arrival order).
-- Stored integers with a scale and offset are summed as stored, exactly, and
-- scaled once (the decoding is affine); other values are CF-decoded chunk by
-- chunk first.
local function streamed(v, op)
  local total = 1
  for _, n in ipairs(v.shape) do total = total * n end
  if not V.array(v) or #v.dims == 0 or total * 8 <= V.tuning.FOLD_BYTES or op == "std" or op == "var" then return nil end
  local cf = cf_of(v)
  local affine = cf and not cf.view and V.array(v).dtype:match("int") and (op == "mean" or op == "sum" or op == "count")
  if cf and cf.view then return nil end -- _Unsigned values are viewed before decoding: read as they are
  local opts = { extremes = op == "min" or op == "max" }
  if affine then opts.skip = cf.fills
  elseif cf then opts.unscale = { dtype = cf.type, fills = cf.fills, scale = cf.scale, offset = cf.offset } end
  local s = V.array(v):summarize(zarr_selection(V.selection(v)), opts)
  if op == "count" then return s.count end
  if op == "min" or op == "max" then return s[op] end
  local scale, offset = affine and (cf.scale or 1) or 1, affine and (cf.offset or 0) or 0
  if op == "sum" then return s.sum * scale + offset * s.count end
  return s.count > 0 and s.sum * scale / s.count + offset or 0 / 0
end

-- The array dimensions (from 0) of axes, positions in v.dims.
local function array_dims(v, axes)
  local dims, kept = {}, 0
  for i, s in ipairs(V.selection(v)) do
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
  for _, s in ipairs(V.selection(v)) do
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
  if not (V.array(v) and V.selection(v)) or total * 8 <= V.tuning.FOLD_BYTES or op == "std" or op == "var" or op == "median" then
    return nil
  end
  in_order = in_order and forwards(v)
  local cf = cf_of(v)
  local integer = V.array(v).dtype:match("int") ~= nil
  local sums = op == "mean" or op == "sum"
  if (cf and cf.view) or (sums and not integer and not in_order) then return nil end
  local opts = { sums = sums, extremes = op == "min" or op == "max" }
  -- packed integers summed as stored, exactly, where float sums could not be
  -- in order; extremes of the decoded values (the bits decoding gives)
  local packed = cf and integer and not opts.extremes and not in_order
  if packed then opts.skip = cf.fills
  elseif cf then opts.unscale = { dtype = cf.type, fills = cf.fills, scale = cf.scale, offset = cf.offset } end
  return opts, packed and cf or nil, cf and cf.type or V.array(v).dtype
end

local function streamed_along(v, op, axes)
  local opts, cf, dtype = fold_options(v, op, #axes == 1 and axes[1] == 0)
  if not opts then return nil end
  local s = V.array(v):summarize_along(zarr_selection(V.selection(v)), array_dims(v, axes), opts)
  if not opts.unscale and not cf and opts.extremes and s.count:min() == 0 then return nil end -- min's own error
  return from_summaries(s, op, cf, dtype)
end

-- Per group along v's first dimension (group_of: a group from 0 per position,
-- or -1), op folded as v is read, where streamed_along would fold it: an
-- array with the groups first, or nil.
local function streamed_groups(v, op, group_of, n_groups)
  local opts, cf, dtype = fold_options(v, op, true)
  if not opts or #v.dims < 2 then return nil end
  local s = V.array(v):summarize_groups(zarr_selection(V.selection(v)), array_dims(v, { 0 })[1], group_of, n_groups, opts)
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
  local coords, map = v:_coords(), {}
  for _, d in ipairs(left) do map[d] = coords[d] end
  return V.computed(V.dataset(v), v.name, left, r, attrs or v.attrs, map, V.kept_aux(v, left))
end

-- v:mean([dims][, {skipna =, weights =}]) and sum, min, max, std, var, count,
-- median: over dims (a name or a list; all when nil), NaN skipped unless
-- skipna = false; weights (a variable, broadcast by name) for sum and mean.
-- min and max are ipfsrt.dataset.extrema's, median ipfsrt.dataset.ordered's:
-- each asks M.reduction(op) for what it does not do itself.
function M.reduction(op)
  return function(v, dims, opts)
    if type(dims) == "table" and #dims == 0 and next(dims) ~= nil and opts == nil then dims, opts = nil, dims end
    opts = arithmetic.check_reduce_options(op, opts)
    if opts.weights ~= nil then return arithmetic.weighted(v, op, dims, opts.weights) end
    local skipna = opts.skipna ~= false
    if V.expression(v) then return arithmetic.lazy_reduced(v, op, dims, skipna) end
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

M.methods = {}
for _, op in ipairs { "mean", "sum", "std", "var", "count" } do M.methods[op] = M.reduction(op) end
M.reduced_variable, M.streamed_groups = reduced_variable, streamed_groups

return M
