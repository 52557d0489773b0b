-- Cross-check with numpy, part 4: every operation with typed loops (min, max,
-- argmin, argmax with NaN propagated and skipped, any, all, count, std, var,
-- cumsum, comparisons, where, clip, astype between every pair, arithmetic
-- with scalars and broadcast arrays, copies of strided views, concat) on
-- every common dtype, at edge sizes (0, 1, odd, several loop blocks) and with
-- NaN and infinities placed (a NaN first, NaN every 37th, a row all NaN).
-- ops.py builds the same arrays from the same formula and evaluates each
-- case's numpy expression; results must agree in dtype, shape and value.
-- Usage: ipfsrt ops.lua OUT.json
local ipfsrt = require "ipfsrt"
local nd = ipfsrt.ndarray

local out_path = assert(arg[1], "usage: ops.lua OUT.json")
local DTYPES = { "bool", "int8", "uint8", "int16", "int32", "int64", "uint64", "float32", "float64" }
local SHAPES = { { 0 }, { 1 }, { 7 }, { 4099 }, { 3, 5, 33 }, { 4, 1030 } }
local plain = { skipna = false }

-- The formula ops.py shares: integers around zero (wrapping into narrow and
-- unsigned types), floats an eighth of them with NaN and infinities placed.
local function data(dtype, shape)
  local n = 1
  for _, d in ipairs(shape) do n = n * d end
  local i = nd.arange(n)
  local v = (i * 7919) % 251 - 120
  local x
  if dtype == "bool" then x = v:gt(0)
  elseif dtype:match("^float") then
    local f = v:astype("float64") / 8
    local row = #shape > 1 and shape[#shape] or n + 1
    local nan = (i % 37):eq(5) | i:eq(1) | (i // row):eq(1)
    f = nd.where((i % 101):eq(7), nd.where((i % 2):eq(1), 1 / 0, -1 / 0), f)
    x = nd.where(nan, 0 / 0, f):astype(dtype)
  else x = v:astype(dtype) end
  x = x:reshape(shape)
  local d = { x = x, y = x:slice { { nil, nil, -1 } }, m = x:astype("float64"):gt(2) }
  d.b = x:slice { { 0, math.min(1, shape[1]) } }
  -- what every dtype holds: floats into integers only where they fit (numpy
  -- writes garbage for the rest, ipfsrt refuses)
  d.c = dtype:match("^float") and nd.where(x:isfinite(), x:abs(), 0):astype(dtype) or x
  return d
end

-- {name, call, numpy expression, kind}: kind "float" for floats only, "num"
-- for numbers (no bool), "int" for integers.
local cases = {}
local function case(name, fn, expr, kind) cases[#cases + 1] = { name, fn, expr, kind } end
for _, red in ipairs { "min", "max", "argmin", "argmax" } do
  case(red, function(d) return d.x[red](d.x, plain) end, "x." .. red .. "()")
  case("nan" .. red, function(d) return d.x[red](d.x) end, "np.nan" .. red .. "(x)", "float")
  for _, axis in ipairs { 0, -1 } do
    case(red .. " axis " .. axis, function(d) return d.x[red](d.x, axis, plain) end,
      string.format("x.%s(axis=%d)", red, axis))
    case("nan" .. red .. " axis " .. axis, function(d) return d.x[red](d.x, axis) end,
      string.format("np.nan%s(x, axis=%d)", red, axis), "float")
  end
end
for _, red in ipairs { "std", "var" } do
  case(red, function(d) return d.x[red](d.x, plain) end, "x." .. red .. "()", "num")
  case("nan" .. red, function(d) return d.x[red](d.x) end, "np.nan" .. red .. "(x)", "float")
  case(red .. " axis 0", function(d) return d.x[red](d.x, 0, plain) end, "x." .. red .. "(axis=0)", "num")
  case("nan" .. red .. " axis -1", function(d) return d.x[red](d.x, -1) end, "np.nan" .. red .. "(x, axis=-1)", "float")
end
for _, red in ipairs { "any", "all" } do
  case(red, function(d) return d.x[red](d.x) end, "x." .. red .. "()")
  case(red .. " axis 0", function(d) return d.x[red](d.x, 0) end, "x." .. red .. "(axis=0)")
  case(red .. " axis -1", function(d) return d.x[red](d.x, -1) end, "x." .. red .. "(axis=-1)")
end
case("median", function(d) return d.x:median(plain) end, "np.median(x)", "num")
case("nanmedian", function(d) return d.x:median() end, "np.nanmedian(x)", "float")
case("median axis 0", function(d) return d.x:median(0, plain) end, "np.median(x, axis=0)", "num")
case("nanmedian axis -1", function(d) return d.x:median(-1) end, "np.nanmedian(x, axis=-1)", "float")
case("nanmedian axes 0 -1", function(d) return d.x:median({ 0, -1 }) end, "np.nanmedian(x, axis=(0, -1))", "float")
case("count", function(d) return d.x:count() end, "np.count_nonzero(~np.isnan(x))", "float")
case("count axis 0", function(d) return d.x:count(0) end, "np.count_nonzero(~np.isnan(x), axis=0)", "float")
case("cumsum axis 0", function(d) return d.x:cumsum(0, plain) end, "np.cumsum(x, axis=0)", "num")
case("cumsum axis -1", function(d) return d.x:cumsum(-1, plain) end, "np.cumsum(x, axis=-1)", "num")
case("nancumsum axis -1", function(d) return d.x:cumsum(-1) end, "np.nancumsum(x, axis=-1)", "float")
case("x < 3", function(d) return d.x:lt(3) end, "x < 3", "num")
case("x == y", function(d) return d.x:eq(d.y) end, "x == y")
case("x >= b", function(d) return d.x:ge(d.b) end, "x >= b")
case("where(m, x, y)", function(d) return nd.where(d.m, d.x, d.y) end, "np.where(m, x, y)")
case("where(m, x, 0)", function(d) return nd.where(d.m, d.x, 0) end, "legacy(lambda: np.where(m, x, 0))", "num")
case("clip(3, 50)", function(d) return d.x:clip(3, 50) end, "np.clip(x, 3, 50)", "num")
case("clip(nil, 50)", function(d) return d.x:clip(nil, 50) end, "np.clip(x, None, 50)", "num")
case("x * 0.01", function(d) return d.x * 0.01 end, "x * 0.01", "num")
case("x + 1", function(d) return d.x + 1 end, "x + 1", "num")
case("x * y", function(d) return d.x * d.y end, "x * y", "num")
case("x - b", function(d) return d.x - d.b end, "x - b", "num")
case("maximum(x, y)", function(d) return nd.maximum(d.x, d.y) end, "np.maximum(x, y)")
case("minimum(x, b)", function(d) return nd.minimum(d.x, d.b) end, "np.minimum(x, b)")
case("-x", function(d) return -d.x end, "-x", "num")
case("abs", function(d) return d.x:abs() end, "np.abs(x)", "num")
case("sqrt(abs)", function(d) return d.x:abs():sqrt() end, "np.sqrt(np.abs(x))", "float")
case("isnan", function(d) return d.x:isnan() end, "np.isnan(x)", "float")
case("isfinite", function(d) return d.x:isfinite() end, "np.isfinite(x)", "float")
case("floor", function(d) return d.x:floor() end, "np.floor(x)", "float")
-- numpy's float32 sin/cos/tan are its own SIMD ones (within an ulp): "approx"
for _, fn in ipairs { "sin", "cos", "tan" } do
  case(fn .. " approx", function(d) return d.x[fn](d.x) end, "np." .. fn .. "(x)", "float")
end
case("deg2rad", function(d) return d.x:deg2rad() end, "np.deg2rad(x)", "float")
case("rad2deg", function(d) return d.x:rad2deg() end, "np.rad2deg(x)", "float")
case("cos(deg2rad) approx", function(d) return d.x:deg2rad():cos() end, "np.cos(np.deg2rad(x))", "float")
for _, to in ipairs(DTYPES) do
  case("astype " .. to, function(d) return d.c:astype(to) end, "c.astype(np." .. (to == "bool" and "bool_" or to) .. ")")
end
case("copy x[..., ::2]", function(d)
  local s = {}
  for k = 1, d.x.ndim - 1 do s[k] = {} end
  s[d.x.ndim] = { nil, nil, 2 }
  return d.x:slice(s):copy()
end, "x[..., ::2].copy()")
case("copy x.T", function(d) return d.x:transpose():copy() end, "x.T.copy()")
case("copy y", function(d) return d.y:copy() end, "y.copy()")
case("concat axis -1", function(d) return nd.concat({ d.x, d.y }, -1) end, "np.concatenate((x, y), -1)")

local function wanted(kind, dtype)
  if kind == "float" then return dtype:match("^float") ~= nil end
  if kind == "num" then return dtype ~= "bool" end
  return true
end

local rows = {}
for _, dtype in ipairs(DTYPES) do
  for _, shape in ipairs(SHAPES) do
    local d = data(dtype, shape)
    for _, c in ipairs(cases) do
      if wanted(c[4], dtype) then
        local ok, r = pcall(c[2], d)
        local result
        if not ok then
          result = { error = tostring(type(r) == "table" and r.message or r) }
        elseif nd.isarray(r) then
          result = { dtype = r.dtype, shape = r.shape, values = r.ndim == 0 and r:strings() or r:copy():reshape(-1):strings() }
        else
          result = { values = { math.type(r) == "float" and string.format("%.17g", r) or tostring(r) } }
        end
        rows[#rows + 1] = { dtype = dtype, shape = shape, name = c[1], expr = c[3], result = result }
      end
    end
  end
end
local f = assert(io.open(out_path, "w"))
f:write(ipfsrt.json.encode(rows))
f:close()
print(string.format("ops.lua: %d cases written", #rows))
