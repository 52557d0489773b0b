-- ipfsrt.dataset.cftime: CF time coordinates in every CF calendar, as xarray (with
-- cftime) decodes them. A time is a number of seconds since 1970-01-01 of its
-- own calendar; dates are "YYYY-MM-DD[THH:MM:SS[.ffffff]]".
--
--   local cal = cftime.calendar("noleap")          -- nil, why for an unknown one
--   local u = cftime.units("days since 2000-01-01", cal)  -- {scale =, epoch =}; nil, why
--   cftime.format(59 * u.scale + u.epoch, cal)     -- "2000-03-01"
--   cftime.parse("2000-03-01", cal)                -- seconds, or nil
--   cftime.period("2000-03", cal)                  -- its first second, the next period's, "month"
--   cftime.fields(seconds, cal)                    -- year, month, day, day of year, days
--   cftime.seconds(2000, 3, 1, cal)                -- seconds at midnight, or nil
local M = {}

-- ------------------------------------------------------------- day counts

-- Gregorian days since 1970-01-01 (Howard Hinnant's algorithm, with Lua's
-- floor division in place of C's truncating one), and back.
local function gregorian_days(y, m, d)
  y = m <= 2 and y - 1 or y
  local era = y // 400
  local yoe = y - era * 400
  local doy = (153 * (m + (m > 2 and -3 or 9)) + 2) // 5 + d - 1
  return era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468
end

local function gregorian_date(z)
  z = z + 719468
  local era = z // 146097
  local doe = z - era * 146097
  local yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
  local doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
  local mp = (5 * doy + 2) // 153
  local m = mp + (mp < 10 and 3 or -9)
  return yoe + era * 400 + (m <= 2 and 1 or 0), m, doy - (153 * mp + 2) // 5 + 1
end

-- Julian calendar days since Gregorian 1970-01-01 (through Julian day numbers).
local JDN_1970 = 2440588

local function julian_days(y, m, d)
  local a = (14 - m) // 12
  local yy, mm = y + 4800 - a, m + 12 * a - 3
  return d + (153 * mm + 2) // 5 + 365 * yy + yy // 4 - 32083 - JDN_1970
end

local function julian_date(z)
  local c = z + JDN_1970 + 32082
  local dd = (4 * c + 3) // 1461
  local e = c - 1461 * dd // 4
  local mm = (5 * e + 2) // 153
  local m = mm + 3 - 12 * (mm // 10)
  return dd - 4800 + mm // 10, m, e - (153 * mm + 2) // 5 + 1
end

-- Calendars of fixed year lengths: days before each month.
local function fixed(year_len, month_lens)
  local before, at = {}, 0
  for m = 1, 12 do before[m], at = at, at + month_lens[m] end
  local days = function(y, m, d) return (y - 1970) * year_len + before[m] + d - 1 end
  local date = function(z)
    local y, doy = 1970 + z // year_len, z % year_len
    local m = 12
    while before[m] > doy do m = m - 1 end
    return y, m, doy - before[m] + 1
  end
  return days, date, function(_, m) return month_lens[m] end
end

local COMMON = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 }
local LEAP = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 }
local function month_len(leap) return function(y, m) return (leap(y) and LEAP or COMMON)[m] end end
local gregorian_leap = function(y) return y % 4 == 0 and (y % 100 ~= 0 or y % 400 == 0) end
local julian_leap = function(y) return y % 4 == 0 end

-- The standard calendar: Julian up to 1582-10-04, Gregorian from the next day, 1582-10-15.
local REFORM = gregorian_days(1582, 10, 15)
local function standard_days(y, m, d)
  if y > 1582 or (y == 1582 and (m > 10 or (m == 10 and d >= 15))) then return gregorian_days(y, m, d) end
  if y == 1582 and m == 10 and d > 4 then return nil end -- the ten days the reform skipped
  return julian_days(y, m, d)
end

local function standard_date(z)
  if z >= REFORM then return gregorian_date(z) end
  return julian_date(z)
end

-- Real-world calendars (standard, julian) have no year 0, as cftime counts
-- them: 1 BC (astronomical year 0) is written -1.
local function calendar(name, days, date, length, no_year_zero)
  return { name = name, days = days, date = date, month_len = length, no_year_zero = no_year_zero }
end

local CALENDARS = {}
CALENDARS.standard = calendar("standard", standard_days, standard_date,
  month_len(function(y) return y > 1582 and gregorian_leap(y) or julian_leap(y) end), true)
CALENDARS.proleptic_gregorian = calendar("proleptic_gregorian", gregorian_days, gregorian_date,
  month_len(gregorian_leap))
CALENDARS.julian = calendar("julian", julian_days, julian_date, month_len(julian_leap), true)
CALENDARS.noleap = calendar("noleap", fixed(365, COMMON))
CALENDARS.all_leap = calendar("all_leap", fixed(366, LEAP))
local d360 = {}
for m = 1, 12 do d360[m] = 30 end
CALENDARS["360_day"] = calendar("360_day", fixed(360, d360))
local ALIASES = { gregorian = "standard", ["365_day"] = "noleap", ["366_day"] = "all_leap" }

-- calendar(name | nil) -> calendar, or nil and why (CF names, any case; nil is standard)
function M.calendar(name)
  if name == nil then return CALENDARS.standard end
  if type(name) ~= "string" then return nil, "the calendar is not a name" end
  local key = name:lower()
  local cal = CALENDARS[ALIASES[key] or key]
  if not cal then return nil, string.format("calendar %q is not one of CF's", name) end
  return cal
end

-- ------------------------------------------------------------- dates

-- Day count of a date of cal, or nil when the calendar has no such day.
local function day_of(cal, y, m, d)
  if cal.no_year_zero then
    if y == 0 then return nil end
    if y < 0 then y = y + 1 end
  end
  if m < 1 or m > 12 or d < 1 or d > cal.month_len(y, m) then return nil end
  return cal.days(y, m, d)
end

-- "Y-M-D" with an optional time "[T ]H:M[:S[.f]]" and a zero zone (Z, UTC,
-- +00:00): seconds since 1970-01-01 of cal, or nil.
function M.parse(s, cal)
  if type(s) ~= "string" then return nil end
  local y, m, d, rest = s:match("^%s*(%-?%d+)%-(%d%d?)%-(%d%d?)(.-)%s*$")
  if not y then return nil end
  rest = rest:gsub("%s*UTC$", ""):gsub("Z$", ""):gsub("%s*[+-]00:?00$", "")
  local H, Mi, S = rest:match("^[T ]%s*(%d%d?):(%d%d?):?(%d*%.?%d*)$")
  if rest ~= "" and not H then return nil end
  H, Mi, S = tonumber(H) or 0, tonumber(Mi) or 0, S and S ~= "" and tonumber(S) or 0
  if not S or H > 23 or Mi > 59 or S >= 61 then return nil end
  local day = day_of(cal, math.tointeger(tonumber(y)), math.tointeger(tonumber(m)), math.tointeger(tonumber(d)))
  if not day then return nil end
  return day * 86400 + H * 3600 + Mi * 60 + S
end

-- How fine a date string is, coarsest last, as pandas ranks a string's and an
-- index's resolution.
local RANK = {}
for i, name in ipairs { "subsecond", "second", "minute", "hour", "day", "month", "year" } do RANK[name] = i end
M.RANK = RANK

-- A partial date ("2024", "2024-02", "2024-02-29", "2024-02-29T12",
-- "...T12:30", "...T12:30:15[.5]") as the period it names in cal: its first
-- second, the first of the next period (the end, not included), and its
-- resolution; nil when it is no date of cal.
function M.period(s, cal)
  if type(s) ~= "string" then return nil end
  s = s:match("^%s*(.-)%s*$"):gsub("%s*UTC$", ""):gsub("Z$", ""):gsub("%s*[+-]00:?00$", "")
  -- each part in turn: the year, then -MM, -DD, THH, :MM, :SS[.f], all there is
  local parts = { { "year", "^(%-?%d%d%d%d+)(.*)$" }, { "month", "^%-(%d%d?)(.*)$" }, { "day", "^%-(%d%d?)(.*)$" },
    { "hour", "^[T ](%d%d?)(.*)$" }, { "minute", "^:(%d%d)(.*)$" }, { "second", "^:(%d%d%.?%d*)(.*)$" } }
  local got, rest, reso = {}, s, nil
  for _, p in ipairs(parts) do
    if rest == "" then break end
    local value
    value, rest = rest:match(p[2])
    if not value then return nil end
    got[p[1]], reso = value, p[1]
  end
  if rest ~= "" or not reso then return nil end
  if reso == "second" and got.second:find(".", 1, true) then reso = "subsecond" end
  local y, m, d = math.tointeger(tonumber(got.year)), math.tointeger(tonumber(got.month or 1)),
    math.tointeger(tonumber(got.day or 1))
  local H, Mi, S = got.hour, got.minute, got.second
  local h, mi, sec = tonumber(H or 0), tonumber(Mi or 0), tonumber(S or 0)
  if h > 23 or mi > 59 or sec >= 61 then return nil end
  local day = day_of(cal, y, m, d)
  if not day then return nil end
  local first = day * 86400 + h * 3600 + mi * 60 + sec
  local stop
  if reso == "year" or reso == "month" then
    local ny, nm = y, m + 1
    if reso == "year" then ny, nm = y + 1, 1 elseif nm > 12 then ny, nm = y + 1, 1 end
    if cal.no_year_zero and ny == 0 then ny = 1 end
    stop = day_of(cal, ny, nm, 1) * 86400
  else
    stop = first + ({ day = 86400, hour = 3600, minute = 60, second = 1, subsecond = 1e-6 })[reso]
  end
  return first, stop, reso
end

-- Times cftime can hold: microseconds in 64-bit integers (about 292,000 years).
local SECONDS_MAX = 9.2e12

-- A time as its date (and time of day when it has one; microseconds kept);
-- "NaT" for NaN, as xarray shows a missing time; nil and why past the years
-- cftime holds (it refuses them too).
function M.format(seconds, cal)
  if seconds ~= seconds then return "NaT" end
  if math.abs(seconds) > SECONDS_MAX then
    return nil, string.format("a time of %g s from 1970 is past the dates a calendar holds", seconds)
  end
  -- rounded to the microsecond first, so that 23:59:59.9999999 is the next day's midnight
  local micro = math.floor(seconds * 1e6 + 0.5) -- an integer: |seconds| is bounded above
  local days, rest = micro // 86400000000, micro % 86400000000
  local y, m, d = cal.date(days)
  if cal.no_year_zero and y <= 0 then y = y - 1 end
  local date = string.format("%04d-%02d-%02d", y, m, d)
  if rest == 0 then return date end
  local whole, frac = rest // 1000000, rest % 1000000
  local text = string.format("%sT%02d:%02d:%02d", date, whole // 3600, whole % 3600 // 60, whole % 60)
  if frac ~= 0 then text = text .. string.format(".%06d", frac):gsub("0+$", "") end
  return text
end

-- fields(seconds, cal) -> year, month, day, day of the year (from 1), days
-- since 1970-01-01 (of cal); nil for NaN. The time of day is dropped, as
-- format rounds it (to the microsecond).
function M.fields(seconds, cal)
  if seconds ~= seconds or math.abs(seconds) > SECONDS_MAX then return nil end
  local days = math.floor(seconds * 1e6 + 0.5) // 86400000000
  local y, m, d = cal.date(days)
  local doy = days - cal.days(y, 1, 1) + 1
  if cal.no_year_zero and y <= 0 then y = y - 1 end
  return y, m, d, doy, days
end

-- seconds(y, m, d, cal) -> seconds since 1970-01-01 of cal at that date's
-- midnight, or nil when cal has no such day.
function M.seconds(y, m, d, cal)
  local day = day_of(cal, y, m, d)
  return day and day * 86400
end

local UNITS = { days = 86400, day = 86400, d = 86400, hours = 3600, hour = 3600, hr = 3600, h = 3600,
  minutes = 60, minute = 60, min = 60, seconds = 1, second = 1, sec = 1, s = 1, milliseconds = 0.001,
  millisecond = 0.001, ms = 0.001, microseconds = 1e-6, microsecond = 1e-6, us = 1e-6 }

-- units(text, cal) -> {scale = seconds per unit, epoch = seconds since 1970 of cal}:
-- nil (and no reason) when text is no "UNIT since DATE" at all; nil and why
-- when it is one this cannot decode (an unknown unit, a date cal lacks).
function M.units(text, cal)
  if type(text) ~= "string" then return nil end
  local unit, since = text:match("^%s*(%a+)%s+since%s+(.-)%s*$")
  if not unit then return nil end
  local scale = UNITS[unit:lower()]
  if not scale then return nil, string.format("time unit %q is not one CF calendars count in", unit) end
  local epoch = M.parse(since, cal)
  if not epoch then return nil, string.format("%q is not a date of the %s calendar", since, cal.name) end
  return { scale = scale, epoch = epoch, calendar = cal }
end

return M
