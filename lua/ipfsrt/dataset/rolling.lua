-- ipfsrt.dataset.rolling: moving windows along one dimension of a dataset variable,
-- as xarray's rolling.
--
--   ds.sst:sel { lat = 35, lon = 285, method = "nearest" }:rolling { time = 7, center = true }:mean()
--
-- A window of n positions ends at each position (center = true: is centred
-- on it; for an even n it reaches n/2 back and n/2 - 1 ahead, as xarray's);
-- positions with fewer than min_periods values other than NaN in their window
-- (default n) are NaN. mean, sum, min, max, count, std, var (ddof 0),
-- median; sums and means added in float64, the result in the variable's
-- float type. The variable's values are read whole.
local ipfsrt = require "ipfsrt"
local nd = ipfsrt.ndarray

local M = {}
local V = require "ipfsrt.dataset.variable"
local bad = require "ipfsrt.bad" ("dataset: ")

local Rolling = {}
Rolling.__index = require("ipfsrt.dataset.methods").index(Rolling, "a rolling window")

local OPTIONS = { center = true, min_periods = true }

-- v:rolling{dim = n[, center = false][, min_periods = n]}
function M.rolling(v, spec)
  if type(spec) ~= "table" then bad("rolling takes {time = 7[, center = true][, min_periods = n]}") end
  local dim, n
  for k, x in pairs(spec) do
    if not OPTIONS[k] then
      if dim then bad("rolling takes one dimension (options: center, min_periods)") end
      dim, n = k, x
    end
  end
  if not dim then bad("rolling: which dimension? ({time = 7})") end
  V.axis_of(v, dim)
  if math.type(n) ~= "integer" or n < 1 then bad("rolling: the window along %s is a whole number of positions", dim) end
  local minp = spec.min_periods == nil and n or spec.min_periods
  if math.type(minp) ~= "integer" or minp < 1 or minp > n then
    bad("rolling: min_periods is a whole number from 1 to the window (%d)", n)
  end
  if spec.center ~= nil and type(spec.center) ~= "boolean" then bad("rolling: center is true or false") end
  return setmetatable({ _var = v, dim = dim, window = n, center = spec.center == true, min_periods = minp }, Rolling)
end

local along = require("ipfsrt.dataset.along").slice_along -- x's positions [a, b) along an axis, a view

-- Per window offset, fn(acc, values) over the positions it reaches:
-- positions t take x[t + offset] for each offset of the window.
local function each_offset(r, len, fn)
  local back = r.center and r.window // 2 or r.window - 1
  for k = 0, r.window - 1 do
    local o = k - back
    local dst0, dst1 = math.max(0, -o), math.min(len, len - o)
    if dst1 > dst0 then fn(dst0, dst1, dst0 + o, dst1 + o) end
  end
end

local function window_op(r, op)
  local v = r._var
  local axis = V.axis_of(v, r.dim)
  local x = v:_values_array()
  local len = x.shape[axis + 1]
  local ftype = x.dtype == "float32" and "float32" or "float64"
  local wide = x:astype("float64")
  local missing = wide:isnan()
  local count = nd.zeros(x.shape, "int64")
  local acc = nd.full(x.shape, (op == "max" and -math.huge) or (op == "min" and math.huge) or 0, "float64")
  local filler = op == "max" and -math.huge or op == "min" and math.huge or 0
  local filled = nd.where(missing, filler, wide)
  each_offset(r, len, function(d0, d1, s0, s1)
    local a, src = along(acc, axis, d0, d1), along(filled, axis, s0, s1)
    if op == "max" then a:assign(nd.maximum(a, src))
    elseif op == "min" then a:assign(nd.minimum(a, src))
    else a:assign(a + src) end
    local c = along(count, axis, d0, d1)
    c:assign(c + (~along(missing, axis, s0, s1)))
  end)
  local enough = count:ge(r.min_periods)
  local out
  if op == "count" then out = count:astype("float64")
  elseif op == "mean" then out = acc / count
  else out = acc end
  return nd.where(enough, out, 0 / 0):astype(ftype)
end

-- Every window's values side by side along a new last axis (NaN where a
-- window reaches past the ends), in float64: for the reductions no running
-- sum gives (std, var, median).
local function windows(r)
  local v = r._var
  local axis = V.axis_of(v, r.dim)
  local x = v:_values_array():astype("float64")
  local len = x.shape[axis + 1]
  local shape = table.move(x.shape, 1, #x.shape, 1, {})
  shape[#shape + 1] = r.window
  local out = nd.full(shape, 0 / 0, "float64")
  local k = 0
  each_offset(r, len, function(d0, d1, s0, s1)
    local parts = {}
    for j = 1, #x.shape do parts[j] = {} end
    parts[axis + 1], parts[#x.shape + 1] = { d0, d1 }, k
    out:slice(parts):assign(along(x, axis, s0, s1))
    k = k + 1
  end)
  return out, x.dtype
end

local function window_reduce(r, op)
  local w = windows(r)
  local last = #w.shape - 1
  local enough = w:count(last):ge(r.min_periods)
  local out = op == "median" and w:median(last) or w[op](w, last)
  local ftype = r._var.dtype == "float32" and "float32" or "float64"
  return nd.where(enough, out, 0 / 0):astype(ftype)
end

local RUNNING = { mean = true, sum = true, min = true, max = true, count = true }

for _, op in ipairs { "mean", "sum", "min", "max", "count", "std", "var", "median" } do
  Rolling[op] = function(r)
    local values = RUNNING[op] and window_op(r, op) or window_reduce(r, op)
    return V.computed(V.dataset(r._var), r._var.name, r._var.dims, values, {}, r._var:_coords(), r._var:_aux())
  end
end

function Rolling.__tostring(r)
  return string.format("<ipfsrt.dataset.Rolling %s along %s: window %d%s, min_periods %d>", r._var.name, r.dim,
    r.window, r.center and " centred" or "", r.min_periods)
end

-- The methods this module gives the Variable class.
M.methods = { rolling = M.rolling }

M.Rolling = Rolling

return M
