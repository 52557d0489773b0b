-- What the tests/dataset checks share: results as JSON-like lists, and their
-- comparison with xarray's answers. Loaded with dofile beside the script.
local ipfsrt = require "ipfsrt"

local M = {}

-- The values of an n-d array or a variable, flat, float64, NaN as null.
function M.numbers(x)
  if not ipfsrt.ndarray.isarray(x) then x = x:values() end
  local out = {}
  for i, v in ipairs(x:astype("float64"):reshape { -1 }:tolist()) do out[i] = v == v and v or ipfsrt.null end
  return out
end

-- nil when a equals b (numbers within tol(path) relative, tables key by key
-- both ways), else what differs and where. tol: a number or fn(path) -> number.
function M.same(a, b, path, tol)
  if type(a) == "number" and type(b) == "number" then
    local t = type(tol) == "function" and tol(path) or tol
    if a ~= b and math.abs(a - b) > t * math.max(1, math.abs(b)) then return path .. ": " .. a .. " vs " .. b end
    return nil
  end
  if type(a) == "table" and type(b) == "table" then
    if #a ~= #b then return string.format("%s: %d items vs %d", path, #a, #b) end
    for k, v in pairs(b) do
      local p = M.same(a[k], v, path .. "." .. tostring(k), tol)
      if p then return p end
    end
    for k in pairs(a) do if b[k] == nil then return path .. "." .. tostring(k) .. ": not in xarray's" end end
    return nil
  end
  if a ~= b then return path .. ": " .. tostring(a) .. " vs " .. tostring(b) end
end

return M
