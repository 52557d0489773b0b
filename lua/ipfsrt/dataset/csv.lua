-- ipfsrt.dataset.csv: a variable written as CSV, as pandas writes xarray's
-- da.to_series().to_csv(path).
local ipfsrt = require "ipfsrt"
local CF = require "ipfsrt.dataset.cf"

local M = {}
local bad = require "ipfsrt.bad" ("dataset: ")

-- Text that reads back as the same number, as numpy prints it (pandas' CSV):
-- float32 values in their own shortest form, whole floats with ".0", NaN empty.
local function number_text(x, single)
  if math.type(x) == "integer" then return tostring(x) end
  if x ~= x then return "" end
  if x == math.huge or x == -math.huge then return x > 0 and "inf" or "-inf" end
  local s
  for digits = single and 6 or 15, 17 do
    s = string.format("%." .. digits .. "g", x)
    local back = tonumber(s)
    if single then back = string.unpack("f", string.pack("f", back)) end
    if back == x then break end
  end
  if not s:find("[%.eE]") then s = s .. ".0" end
  return s
end

-- Times as pandas writes a DatetimeIndex: dates alone when every time is a
-- midnight, else each with its time of day ("2024-01-01 12:00:00", and
-- microseconds in six digits where a time has them).
local function pandas_times(dates)
  local clock = false
  for _, t in ipairs(dates) do clock = clock or t:find("T", 1, true) ~= nil end
  if not clock then return dates end
  local out = {}
  for i, t in ipairs(dates) do
    local day, time = t:match("^(.-)T(.*)$")
    if not day then day, time = t, "00:00:00" end
    local whole, frac = time:match("^([^.]*)%.(%d+)$")
    out[i] = t == "NaT" and t or day .. " " .. (whole and whole .. "." .. (frac .. "000000"):sub(1, 6) or time)
  end
  return out
end

-- The labels along each dimension of v, as text: dates for CF times, numbers
-- of the coordinate, else positions (from 0).
local function csv_labels(v)
  local coords, labels = v:_coords(), {}
  for d, dim in ipairs(v.dims) do
    local c, out = coords[dim], {}
    if c and CF.time_of(c.name, c.attrs) then
      out = pandas_times(c:dates())
    elseif c then
      local x = c:values()
      for i, n in ipairs(x:astype("float64"):tolist()) do out[i] = number_text(n, x.dtype == "float32") end
    else
      for i = 1, v.shape[d] do out[i] = tostring(i - 1) end
    end
    labels[d] = out
  end
  return labels
end

-- v:to_csv(path): one row per element, C order: a column per dimension (its
-- labels), then the values (CF-decoded; missing ones empty), a header of
-- names: what pandas writes for xarray's da.to_series().to_csv(path).
function M.to_csv(v, path)
  if type(path) ~= "string" then bad("to_csv takes a file name") end
  local x = v:_values_array()
  local f, why = io.open(path, "w")
  if not f then error(ipfsrt.error.new("io", "dataset: to_csv: " .. tostring(why)), 2) end
  local head = table.move(v.dims, 1, #v.dims, 1, {})
  head[#head + 1] = v.name
  f:write(table.concat(head, ","), "\n")
  local labels, single = csv_labels(v), x.dtype == "float32"
  local values, idx, rows, nd = x:reshape { -1 }:tolist(), {}, {}, #v.dims
  for d = 1, nd do idx[d] = 1 end
  for k = 1, #values do
    local row = {}
    for d = 1, nd do row[d] = labels[d][idx[d]] end
    row[nd + 1] = number_text(values[k], single)
    rows[#rows + 1] = table.concat(row, ",")
    if #rows == 4096 then f:write(table.concat(rows, "\n"), "\n"); rows = {} end
    for d = nd, 1, -1 do -- the next element's index, last dimension fastest
      idx[d] = idx[d] + 1
      if idx[d] <= v.shape[d] then break end
      idx[d] = 1
    end
  end
  if #rows > 0 then f:write(table.concat(rows, "\n"), "\n") end
  f:close()
end

-- The methods this module gives the Variable class.
M.methods = { to_csv = M.to_csv }
return M
