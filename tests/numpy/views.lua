-- Cross-check with numpy, part 1: random shapes, slices, transposes and
-- reshapes through ipfsrt.ndarray, written as JSON for views.py to redo with
-- numpy and compare value by value. Usage: ipfsrt views.lua OUT.json [SEED]
local ipfsrt = require "ipfsrt"
local nd = ipfsrt.ndarray

local out_path, seed = arg[1], tonumber(arg[2]) or 1
math.randomseed(seed)

local function random_part(n)
  if math.random() < 0.25 and n > 0 then return math.random(-n, n - 1) end -- an index
  local function bound()
    if math.random() < 0.3 then return nil end
    return math.random(-n - 2, n + 2)
  end
  local steps = { 1, 1, 2, 3, -1, -2 }
  return { bound(), bound(), steps[math.random(#steps)] }
end

local cases = {}
for c = 1, 300 do
  local ndim = math.random(1, 4)
  local shape, size = {}, 1
  for d = 1, ndim do
    shape[d] = math.random(0, 5)
    size = size * shape[d]
  end
  local a = nd.arange(size):reshape(shape)
  local spec = {}
  for d = 1, math.random(1, ndim) do spec[d] = random_part(shape[d]) end
  local case = { shape = shape, spec = spec }
  local v = a:slice(spec)
  if math.random() < 0.5 then
    v = v:transpose()
    case.transpose = true
  end
  case.result_shape = v.shape
  case.result = v:copy():reshape(-1):tolist()
  cases[c] = case
end
local f = assert(io.open(out_path, "w"))
-- open slice bounds are JSON null: spec parts are written by hand
local function part_json(p)
  if type(p) == "number" then return tostring(p) end
  local function b(x) return x == nil and "null" or tostring(x) end
  return string.format("[%s, %s, %s]", b(p[1]), b(p[2]), b(p[3]))
end
local rows = {}
for _, c in ipairs(cases) do
  local parts = {}
  for i = 1, #c.spec do parts[i] = part_json(c.spec[i]) end
  rows[#rows + 1] = string.format('{"shape": %s, "spec": [%s], "transpose": %s, "result_shape": %s, "result": %s}',
    ipfsrt.json.encode(c.shape), table.concat(parts, ", "), tostring(c.transpose == true),
    ipfsrt.json.encode(c.result_shape), ipfsrt.json.encode(c.result))
end
f:write("[", table.concat(rows, ",\n"), "]\n")
f:close()
print(string.format("views.lua: %d cases written", #cases))
