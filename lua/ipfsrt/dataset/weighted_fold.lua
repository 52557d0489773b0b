-- ipfsrt.dataset.weighted_fold: a stored variable's weighted sums over its
-- last dimensions folded as its chunks are decoded (Array.weighted_sums): a
-- weighted daily mean over latitude and longitude costs what reading the days
-- costs, the days never built. CF-packed integers are summed as stored (their
-- fill left out) and scaled once, as the plain folds do: the sums are float64
-- throughout, so they round less than the read-then-reduce path's, in the
-- values' own type (the two agree to that type's precision). nil where it does
-- not apply: small selections, expressions, weights along kept dimensions,
-- folded dimensions other than the last ones, values that are not floats
-- once decoded.
local V = require "ipfsrt.dataset.variable"
local lazy = require "ipfsrt.dataset.lazy"
local nd = require("ipfsrt").ndarray

local M = {}

-- ws (dims wdims) broadcast to the folded dimensions of v, in their order,
-- float64: nil when it varies along a kept one.
local function folded_weights(v, kept, ws, wdims)
  local full, tail = lazy.arranged(ws, wdims, v.dims), {}
  for i = 1, kept do
    if full.shape[i] > 1 then return nil end
  end
  for i = kept + 1, #v.dims do tail[#tail + 1] = full.shape[i] end
  return full:reshape(tail) * nd.ones(table.move(v.shape, kept + 1, #v.shape, 1, {}), "float64")
end

-- The weighted sums of stored variable v (sum of x * w, sum of w, NaN and
-- fills left out) over axes (positions in v.dims, from 0), ws the weights'
-- values along wdims: float64 arrays over the kept dimensions, or nil.
function M.sums(v, axes, ws, wdims)
  local array, selection, cf = V.array(v), V.selection(v), V.cf(v)
  if V.expression(v) or not (array and selection) or type(ws) == "number" then return nil end
  local total = 1
  for _, n in ipairs(v.shape) do total = total * n end
  local kept = #v.dims - #axes
  if total * 8 <= V.tuning.FOLD_BYTES or kept == 0 or (cf and cf.view) then return nil end
  for i, a in ipairs(axes) do
    if a ~= kept + i - 1 then return nil end -- the last dimensions, in order
  end
  local decoded = cf and cf.type or array.dtype
  if not decoded:match("^float") or not ws.dtype:match("^float") then return nil end
  local w = folded_weights(v, kept, ws, wdims)
  if not w then return nil end
  local packed = cf and array.dtype:match("int")
  local opts = {}
  if packed then opts.skip = cf.fills
  elseif cf then opts.unscale = { dtype = cf.type, fills = cf.fills, scale = cf.scale, offset = cf.offset } end
  local ok, num, den = pcall(array.weighted_sums, array, V.zarr_selection(selection), kept, w, opts)
  if not ok then
    if type(num) == "table" and num.code == "too_large" then return nil end
    error(num, 0)
  end
  if packed then num = num * (cf.scale or 1) + den * (cf.offset or 0) end
  return num, den, (decoded == "float32" and ws.dtype == "float32") and "float32" or "float64"
end

return M
