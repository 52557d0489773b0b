-- ipfsrt.dataset.labels: where labels are along a coordinate, as xarray's
-- sel finds them: exact or nearest (within a tolerance), ranges of labels
-- (both ends included), dates as the whole period they name. Works on the
-- coordinate's values (numbers, times in seconds of their calendar, or
-- names) and the selection of them (start, step, count), not on variables.
local ipfsrt = require "ipfsrt"
local cftime = require "ipfsrt.dataset.cftime"

local M = {}
local bad = require "ipfsrt.bad" ("dataset: ")

local function period_of(value, t, dim)
  local first, stop, reso = cftime.period(value, t.calendar)
  if not first then
    bad("%s: %q is not a date of the %s calendar (YYYY[-MM[-DD[THH[:MM[:SS]]]]])", dim, value, t.calendar.name)
  end
  return first, stop, reso
end

-- A single label as a number (a date as its first second).
local function label(value, t, dim)
  if type(value) == "string" then
    if not t then bad("%s: %q is not a label of %s (its labels are numbers)", dim, value, dim) end
    return (period_of(value, t, dim))
  end
  if type(value) ~= "number" then bad("%s: a label is a number%s", dim, t and " or a date" or "") end
  return value
end

-- 1 when the selected coordinate values rise, -1 when they fall (ties
-- allowed, as pandas' monotonic), nil when neither (or a value is missing).
local function direction(values, start, step, count)
  local up, down = true, true
  for j = 1, count - 1 do
    local a, b = values[start + (j - 1) * step], values[start + j * step]
    if not (a <= b) then up = false end
    if not (a >= b) then down = false end
  end
  if count == 1 and values[start] ~= values[start] then return nil end
  return up and 1 or down and -1 or nil
end

-- A range's bound: the least and the greatest value it admits, and whether
-- the greatest is admitted itself (a date is the whole period it names: the
-- first second of the next one is not).
local function bound(value, t, dim)
  if type(value) == "string" and t then
    local first, stop = period_of(value, t, dim)
    return first, stop, false
  end
  local x = label(value, t, dim)
  return x, x, true
end

-- The positions of the labels from..to, inclusive, as xarray slices labels: on a
-- rising coordinate from <= c <= to, on a falling one from >= c >= to (none
-- when the bounds go the other way); dates cover their whole period (to =
-- "2024-02-29" takes that day's noon, "2024-02" all of February). An
-- unsorted coordinate cannot be sliced.
-- The positions whose values lie from least to most (most itself when
-- inclusive), as a range {first, last + 1}.
local function between(values, start, step, count, least, most, inclusive)
  local first, last
  for j = 0, count - 1 do
    local c = values[start + j * step]
    if c >= least and (c < most or (inclusive and c == most)) then
      first = first or j
      last = j
    end
  end
  if not first then return { 0, 0 } end
  return { first, last + 1 }
end

local function label_range(values, start, step, count, want, t, dim)
  local dir = direction(values, start, step, count)
  if not dir then bad("%s is not sorted (or has missing values): label ranges need a monotonic coordinate", dim) end
  local low, high = want[1], want[2]
  if dir < 0 then low, high = high, low end
  local least = bound(low, t, dim)
  local _, most, inclusive = bound(high, t, dim)
  return between(values, start, step, count, least, most, inclusive)
end

-- xarray holds standard and proleptic Gregorian times that datetime64[ns]
-- can (years 1678 to 2261) in a pandas DatetimeIndex, other calendars in a
-- CFTimeIndex; the two take a date string differently (below).
local NS_SECONDS = 9.2e9
local function pandas_times(values, start, step, count, t)
  local name = t.calendar.name
  if name ~= "standard" and name ~= "proleptic_gregorian" then return false end
  for j = 0, count - 1 do
    local c = values[start + j * step]
    if c == c and math.abs(c) > NS_SECONDS then return false end
  end
  return true
end

-- The finest resolution the times are stamped at, as pandas ranks an index:
-- days at midnight "day", noon-stamped days "hour".
local function stamped_at(values, start, step, count)
  local R = cftime.RANK
  local finest = R.day
  for j = 0, count - 1 do
    local r = values[start + j * step] % 86400
    if r == r and r ~= 0 then
      finest = math.min(finest, r % 3600 == 0 and R.hour or r % 60 == 0 and R.minute or r % 1 == 0 and R.second
        or R.subsecond)
    end
  end
  return finest
end

-- A date string as xarray selects it: the whole period it names (the
-- dimension kept, with the times inside it: "2024-02-29" of noon-stamped
-- days is that day's noon, "2024-02" all of February), except on a
-- DatetimeIndex whose times are stamped no finer than the string, where it
-- is the one time it names (the dimension dropped) or no label at all.
local function date_label(values, start, step, count, want, t, dim)
  local first, stop, reso = period_of(want, t, dim)
  if pandas_times(values, start, step, count, t) and cftime.RANK[reso] <= stamped_at(values, start, step, count) then
    for j = 0, count - 1 do if values[start + j * step] == first then return j end end
    error(ipfsrt.error.new("not_found", string.format("%s has no label %s (method = \"nearest\" takes the closest)",
      dim, want)), 4)
  end
  local dir = direction(values, start, step, count)
  if not dir then bad("%s is not sorted (or has missing values): a date selects a period of sorted times", dim) end
  local lo, hi = values[start], values[start + (count - 1) * step]
  if dir < 0 then lo, hi = hi, lo end
  if count == 0 or stop <= lo or first > hi then
    error(ipfsrt.error.new("not_found", string.format("%s has no time in %s (%s)", dim, want, count == 0 and "none left"
      or "they run from " .. cftime.format(lo, t.calendar) .. " to " .. cftime.format(hi, t.calendar))), 4)
  end
  return between(values, start, step, count, first, stop, false)
end

-- Seconds in a pandas timedelta string's units ("2D", "12h", "30min", "90s").
local TIMEDELTA_UNITS = { D = 86400, d = 86400, days = 86400, day = 86400, h = 3600, H = 3600, hours = 3600,
  min = 60, T = 60, minutes = 60, s = 1, S = 1, seconds = 1 }

-- A tolerance for dim: a distance in the coordinate's units; for times a
-- timedelta string ("1D", "6h") in seconds, as pandas reads it.
local function tolerance_of(tol, t, dim)
  if tol == nil then return math.huge end
  if t then
    local n, unit
    if type(tol) == "string" then n, unit = tol:match("^%s*(%d+%.?%d*)%s*(%a+)%s*$") end
    if not n or not TIMEDELTA_UNITS[unit] then
      bad("sel: tolerance for %s (times) is a timedelta such as \"1D\", \"6h\", \"30min\", \"90s\", not %s", dim,
        tostring(tol))
    end
    return tonumber(n) * TIMEDELTA_UNITS[unit]
  end
  if type(tol) ~= "number" or tol < 0 then bad("sel: tolerance for %s is a distance, a number >= 0", dim) end
  return tol
end

-- The position (from 0) of want among count labels of values from start by
-- step (t: their time decoding, nil: not times): label ranges inclusive (as
-- xarray's label slicing), scalars exact or nearest (within tolerance).
function M.locate(values, start, step, count, t, dim, want, method, tolerance, instants)
  if type(values[1]) == "string" then -- names (seasons): exact only
    for j = 0, count - 1 do if values[start + j * step] == want then return j end end
    error(ipfsrt.error.new("not_found", string.format("%s has no label %s (labels: %s)", dim, tostring(want),
      table.concat(values, ", "))), 3)
  end
  if type(want) == "table" then return label_range(values, start, step, count, want, t, dim) end
  if type(want) == "string" and t and method ~= "nearest" and not instants then
    return date_label(values, start, step, count, want, t, dim)
  end
  -- a tie goes to the later label on an ascending axis, the earlier on a
  -- descending one (as pandas' nearest does)
  local target, best, dist = label(want, t, dim), nil, math.huge
  local dir = method == "nearest" and direction(values, start, step, count)
  if method == "nearest" and not dir then bad("%s is not sorted: nearest labels need a monotonic coordinate", dim) end
  for j = 0, count - 1 do
    local dd = math.abs(values[start + j * step] - target)
    if dd < dist or (dd == dist and dir == 1) then best, dist = j, dd end
  end
  if not best or (method ~= "nearest" and dist ~= 0) then
    error(ipfsrt.error.new("not_found", string.format("%s has no label %s (method = \"nearest\" takes the closest)",
      dim, tostring(want))), 3)
  end
  local within = tolerance_of(tolerance, t, dim)
  if dist > within then
    local nearest = values[start + best * step]
    error(ipfsrt.error.new("not_found", string.format("%s has no label within %s of %s (the nearest is %s)", dim,
      tostring(tolerance), tostring(want), t and cftime.format(nearest, t.calendar) or tostring(nearest))), 3)
  end
  return best
end

M.label = label
return M
