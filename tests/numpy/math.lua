-- Cross-check with numpy, part 2: seeded arrays of several dtypes and a few
-- hundred expressions (arithmetic, comparisons, broadcasting, scalars,
-- reductions) evaluated by ipfsrt, written with the inputs as JSON for math.py
-- to evaluate with numpy and compare: dtypes, shapes, values, NaN placement.
-- Usage: ipfsrt math.lua OUT.json [SEED]
local ipfsrt = require "ipfsrt"
local nd = ipfsrt.ndarray

local out_path, seed = arg[1], tonumber(arg[2]) or 1
math.randomseed(seed)

local ranges = { -- values each dtype draws from (small: sums stay in range, products may wrap)
  bool = { 0, 1 }, int8 = { -100, 100 }, uint8 = { 0, 200 }, int16 = { -1000, 1000 },
  uint16 = { 0, 2000 }, int32 = { -100000, 100000 }, int64 = { -1000000, 1000000 },
  float32 = { -100, 100 }, float64 = { -1000, 1000 },
}
local dtypes = { "bool", "int8", "uint8", "int16", "uint16", "int32", "int64", "float32", "float64" }

local function random_array(dtype, shape)
  local size = 1
  for _, n in ipairs(shape) do size = size * n end
  local r, flat = ranges[dtype], {}
  for i = 1, size do
    if dtype == "bool" then flat[i] = math.random(0, 1) == 1
    elseif dtype:find("float") then
      flat[i] = math.random() < 0.05 and 0 / 0 or (math.random() * (r[2] - r[1]) + r[1])
      if dtype == "float32" then flat[i] = nd.from({ flat[i] }, "float32"):get(0) end -- exactly a float32
    else flat[i] = math.random(r[1], r[2]) end
  end
  local a = nd.from(flat, dtype)
  return #shape > 0 and a:reshape(shape) or a:reshape({}), flat
end

local function json_value(v)
  if type(v) == "boolean" then return tostring(v) end
  if v ~= v then return '"nan"' end
  if v == math.huge then return '"inf"' end
  if v == -math.huge then return '"-inf"' end
  if math.type(v) == "integer" then return tostring(v) end
  return string.format("%.17g", v)
end

local function flat_json(a)
  local parts = {}
  local flat = a:copy():reshape(-1)
  for i = 0, flat.size - 1 do parts[#parts + 1] = json_value(flat:get(i)) end
  return "[" .. table.concat(parts, ",") .. "]"
end

local ops = { "+", "-", "*", "/", "//", "%", "lt", "le", "gt", "ge", "eq", "ne", "maximum", "minimum",
  "where", "clip" }
local function apply(op, x, y)
  if op == "+" then return x + y elseif op == "-" then return x - y elseif op == "*" then return x * y
  elseif op == "/" then return x / y elseif op == "//" then return x // y elseif op == "%" then return x % y
  elseif op == "maximum" then return nd.maximum(x, y) elseif op == "minimum" then return nd.minimum(x, y)
  elseif op == "where" then return nd.where(x:gt(0), x, y)
  elseif op == "clip" then return x:clip(y, nil) end
  return x[op](x, y)
end

local shapes = { { { 3, 4 }, { 4 } }, { { 2, 1, 3 }, { 1, 4, 1 } }, { { 5 }, { 5 } }, { { 2, 3 }, {} } }
local rows = {}
for c = 1, 600 do
  local da, db = dtypes[math.random(#dtypes)], dtypes[math.random(#dtypes)]
  local sh = shapes[math.random(#shapes)]
  local a, fa = random_array(da, sh[1])
  local op = ops[math.random(#ops)]
  local scalar = math.random() < 0.25
  local b, fb
  if scalar then
    b = math.random() < 0.5 and math.random(0, 50) or (math.random() * 10)
    if op == "lt" or op == "le" or op == "gt" or op == "ge" or op == "eq" or op == "ne" then
      -- comparisons with one number run in the array's own type when it holds
      -- the number: values it holds, past its range, negative for unsigned ones
      local picks = { fa[math.random(#fa)], -math.random(0, 1000), 300, 70000, -1, math.random() * 10 }
      b = picks[math.random(#picks)]
      if type(b) == "boolean" or b ~= b then b = 1 end
    end
    fb = b
  else
    b, fb = random_array(db, sh[2])
  end
  local ok, r = pcall(apply, op, a, b)
  local row = { a = { dtype = da, shape = sh[1], values = fa }, op = op }
  local bjson = scalar and string.format('{"scalar": %s}', json_value(b))
    or string.format('{"dtype": "%s", "shape": %s, "values": [%s]}', db, ipfsrt.json.encode(sh[2]),
      (function() local t = {} for i, v in ipairs(fb) do t[i] = json_value(v) end return table.concat(t, ",") end)())
  local ajson = string.format('{"dtype": "%s", "shape": %s, "values": [%s]}', da, ipfsrt.json.encode(sh[1]),
    (function() local t = {} for i, v in ipairs(fa) do t[i] = json_value(v) end return table.concat(t, ",") end)())
  local result = ok and string.format('{"dtype": "%s", "shape": %s, "values": %s}', r.dtype,
    ipfsrt.json.encode(r.shape), flat_json(r)) or string.format('{"error": %q}', tostring(r.message or r))
  -- and a reduction of the left operand
  local hows = { "sum", "mean", "min", "max", "var", "std", "argmin", "argmax", "any", "all" }
  local how = hows[math.random(#hows)]
  local axis = math.random() < 0.5 and math.random(0, #sh[1] - 1) or nil
  local rok, red = pcall(function() return a[how](a, axis, { skipna = false }) end)
  local redjson
  if not rok then redjson = string.format('{"error": %q}', tostring(red.message or red))
  elseif axis then redjson = string.format('{"dtype": "%s", "shape": %s, "values": %s}', red.dtype,
    ipfsrt.json.encode(red.shape), flat_json(red))
  else redjson = string.format('{"values": [%s]}', json_value(red)) end
  rows[#rows + 1] = string.format('{"a": %s, "b": %s, "op": "%s", "result": %s, "reduce": "%s", "axis": %s, "reduced": %s}',
    ajson, bjson, op, result, how, axis and tostring(axis) or "null", redjson)
  local _ = row
end
local f = assert(io.open(out_path, "w"))
f:write("[", table.concat(rows, ",\n"), "]\n")
f:close()
print(string.format("math.lua: %d cases written", #rows))
