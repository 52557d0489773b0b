-- ipfsrt.dataset against xarray on the CF cases of tests/dataset/cf_cases.py:
-- every date, value and label selection equal, and every dataset xarray
-- refuses refused too (an error naming the variable), never decoded otherwise.
-- Usage: ipfsrt cf_check.lua DIR CASES.json
local ipfsrt = require "ipfsrt"
local dataset = require "ipfsrt.dataset"

local dir, answers = arg[1], arg[2]
local f = assert(io.open(answers))
local cases = ipfsrt.json.decode(f:read("a"))
f:close()

local function answer(ds, ask)
  local v = ds[ask.var]
  if ask.sel then
    local spec = {}
    for k, want in pairs(ask.sel) do spec[k] = want end
    spec.method = ask.method
    v = v:sel(spec)
  end
  if ask.shape then -- values() of a scalar selection is a number
    return { shape = v.shape, values = v.ndim == 0 and { v:values() } or v:values():astype("float64"):tolist() }
  end
  if ask.dates then return v:dates() end
  if v.ndim == 0 then return { v:values() } end
  local x = v:values():astype("float64")
  local out = {}
  for i, e in ipairs(x:tolist()) do out[i] = e == e and e or ipfsrt.null end
  return out
end

local function same(a, b)
  if type(a) == "table" and type(b) == "table" and a.shape then
    return same(a.shape, b.shape) and same(a.values, b.values)
  end
  if type(a) ~= "table" or type(b) ~= "table" or #a ~= #b then return a == b end
  for i = 1, #a do
    local x, y = a[i], b[i]
    if type(x) == "number" and type(y) == "number" then
      if math.abs(x - y) > 1e-9 * math.max(1, math.abs(y)) then return false end
    elseif x ~= y then return false end
  end
  return true
end

local failures, checked = 0, 0
for _, c in ipairs(cases) do
  local ok, ds = pcall(dataset.open, dir .. "/" .. c.name)
  local all_refused = c.answers ~= nil and #c.answers > 0
  for _, a in ipairs(c.answers or {}) do all_refused = all_refused and a == "error" end
  if c.error or all_refused then
    checked = checked + 1
    if ok then
      failures = failures + 1
      print(c.name .. ": opened, but xarray refuses it")
    elseif not tostring(ds):find("dataset:", 1, true) then
      failures = failures + 1
      print(c.name .. ": refused without saying why in the dataset's words: " .. tostring(ds))
    end
  elseif not ok then
    failures = failures + 1
    print(c.name .. ": refused: " .. tostring(ds))
  else
    for i, ask in ipairs(c.asks) do
      checked = checked + 1
      local got_ok, got = pcall(answer, ds, ask)
      local want = c.answers[i]
      if want == "error" then
        if got_ok then failures, got = failures + 1, print(c.name .. " ask " .. i .. ": answered, xarray refuses") end
      elseif not got_ok or not same(got, want) then
        failures = failures + 1
        print(string.format("%s ask %d: %s, xarray %s", c.name, i,
          got_ok and ipfsrt.json.encode(got) or tostring(got), ipfsrt.json.encode(want)))
      end
    end
  end
end
print(string.format("ipfsrt.dataset agrees with xarray on %d of %d CF answers", checked - failures, checked))
os.exit(failures == 0 and 0 or 1)
