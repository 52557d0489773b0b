-- Cross-check with numpy, part 3: quantiles (every method, NaN skipped or
-- not, one axis, several, all), stable sorts and argsorts, and take, on
-- seeded arrays of several dtypes, written as JSON for order.py to redo with
-- numpy and compare. Usage: ipfsrt order.lua OUT.json [SEED]
local ipfsrt = require "ipfsrt"
local nd = ipfsrt.ndarray

local out_path, seed = arg[1], tonumber(arg[2]) or 1
math.randomseed(seed)

local METHODS = { "linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf", "averaged_inverted_cdf",
  "closest_observation", "interpolated_inverted_cdf", "hazen", "weibull", "median_unbiased", "normal_unbiased" }
local DTYPES = { "int16", "int64", "uint8", "float32", "float64" }
local SHAPES = { { 7 }, { 4, 6 }, { 3, 5, 2 }, { 1, 9 }, { 6, 1 } }

local function random_array(dtype, shape)
  local size = 1
  for _, n in ipairs(shape) do size = size * n end
  local flat = {}
  for i = 1, size do
    if dtype:find("float") then
      -- repeated values too: ties show whether sorts are stable
      flat[i] = math.random() < 0.1 and 0 / 0 or math.random(-20, 20) / (math.random() < 0.5 and 4 or 1)
    else flat[i] = math.random(dtype == "uint8" and 0 or -50, 50) end
  end
  return nd.from(flat, dtype):reshape(shape), flat
end

local function result(ok, r)
  if not ok then return { error = tostring(r.message or r) } end
  if type(r) == "number" then return { values = { r == r and r or "nan" } } end
  local values = {}
  for i, v in ipairs(r:astype("float64"):reshape { -1 }:tolist()) do values[i] = v == v and v or "nan" end
  return { dtype = r.dtype, shape = r.shape, values = values }
end

local function floats(list)
  local out = {}
  for i, v in ipairs(list) do out[i] = v == v and v or "nan" end
  return out
end

local cases = {}
for _ = 1, 400 do
  local dtype, shape = DTYPES[math.random(#DTYPES)], SHAPES[math.random(#SHAPES)]
  local a, flat = random_array(dtype, shape)
  local axis = math.random(0, #shape) -- #shape: all axes
  local axes = axis < #shape and axis or nil
  if #shape > 1 and math.random() < 0.25 then axes = { 0, #shape - 1 } end
  -- inside (0, 1): numpy 1.24 answers some methods wrongly at 0 and 1 exactly
  -- (interpolated_inverted_cdf's q = 0 gives the greatest value)
  local q = math.random() < 0.3 and { math.random(1, 99) / 100, math.random(1, 3) / 4 } or math.random(1, 19) / 20
  local method, skipna = METHODS[math.random(#METHODS)], math.random() < 0.7
  local sort_axis = math.random(0, #shape - 1)
  local picks = {}
  for i = 1, math.random(0, 5) do picks[i] = math.random(-shape[sort_axis + 1], shape[sort_axis + 1] - 1) end
  cases[#cases + 1] = {
    a = { dtype = dtype, shape = shape, values = floats(flat) }, q = q, axes = axes or ipfsrt.null,
    method = method, skipna = skipna, sort_axis = sort_axis, picks = picks,
    quantile = result(pcall(a.quantile, a, q, axes, { method = method, skipna = skipna })),
    sort = result(pcall(a.sort, a, sort_axis)),
    argsort = result(pcall(a.argsort, a, sort_axis)),
    take = result(pcall(a.take, a, picks, sort_axis)),
  }
end
local f = assert(io.open(out_path, "w"))
f:write(ipfsrt.json.encode(cases))
f:close()
print(string.format("order.lua: %d cases written", #cases))
