-- ipfsrt.dataset's groupby, resample and rolling against Debian's xarray
-- (tests/dataset/groups.py) on the same series, in four calendars.
-- Usage: ipfsrt groups_check.lua DIR XARRAY.json
local ipfsrt = require "ipfsrt"
local dataset = require "ipfsrt.dataset"
local want_all = ipfsrt.json.decode(assert(io.open(arg[2])):read("a"))

local compare = dofile((arg[0]:match("^(.*)/") or ".") .. "/compare.lua")
local numbers = compare.numbers

-- Rolling sums and means are running float64 sums in xarray (bottleneck), ours
-- add each window's values; std divides differently: equal within rounding.
local function tolerance(key)
  if key == "rolling_5_float64" then return 0 end -- each window summed in float64, rounded once
  if key:match("^rolling") then return 1e-5 end -- bottleneck's running sums drift
  return 1e-6 -- float32 sums over groups: numpy's pairwise order against ours row by row
end

local function answers(v, real)
  local got = {}
  local month = v:groupby("time.month")
  local clim = month:mean()
  for _, op in ipairs { "mean", "sum", "max", "min", "count", "median", "std", "var" } do
    got["month_" .. op] = numbers(month[op](month))
  end
  got.month_labels = numbers(clim.month)
  got.month_dims = clim.dims
  local season = v:groupby("time.season"):mean()
  got.season, got.season_labels = numbers(season), season.season._labels
  local year = v:groupby("time.year"):sum()
  got.year_sum, got.year_labels = numbers(year), numbers(year.year)
  local doy = v:groupby("time.dayofyear"):mean():isel { dayofyear = { 55, 65 } }
  got.dayofyear, got.dayofyear_labels = numbers(doy), numbers(doy.dayofyear)
  local anom = v:groupby("time.month") - clim
  got.anomaly = numbers(anom:isel { time = { 100, 140 } })
  got.anomaly_mean_time = numbers(anom:mean("time"))
  -- ours and pandas' spellings of the frequencies
  for _, f in ipairs { { "month", "month" }, { "year", "year" }, { "5d", "5d" }, { "M", "month_end" },
    { "A", "year_end" }, { "7D", "7d" } } do
    local r = v:resample({ time = f[1] }):mean()
    got["resample_" .. f[2]], got["resample_" .. f[2] .. "_labels"] = numbers(r), r.time:dates()
  end
  got.resample_month_sum = numbers(v:resample({ time = "MS" }):sum())
  if real then
    local w = v:resample({ time = "W" }):mean()
    got.resample_week, got.resample_week_labels = numbers(w), w.time:dates()
  end
  for _, c in ipairs { { 7, true, 3 }, { 4, true, nil }, { 5, false, 1 } } do
    local key = string.format("rolling_%d_%s_%s", c[1], c[2] and "True" or "False", c[3] or "None")
    local r = v:rolling { time = c[1], center = c[2], min_periods = c[3] }
    got[key .. "_mean"], got[key .. "_max"] = numbers(r:mean()), numbers(r:max())
  end
  got.rolling_sum = numbers(v:rolling({ time = 3 }):sum())
  for _, op in ipairs { "std", "var", "median", "min", "count" } do
    local r = v:rolling { time = 5, center = true, min_periods = 2 }
    got["rolling_" .. op] = numbers(r[op](r))
  end
  got.rolling_5_float64 = numbers(v:rolling({ time = 5, min_periods = 1 }):mean())
  return got
end

-- Every answer of xarray's, counted into bad and total.
local bad, total = 0, 0
local function check_all()
  for name, want in pairs(want_all) do
    local v = dataset.open(arg[1] .. "/" .. name).v
    local got
    if name == "gap" then
      local r = v:resample { time = "month" }
      got = { resample_month = numbers(r:mean()), resample_month_labels = r:mean().time:dates(),
        resample_month_count = numbers(r:count()), resample_month_sum = numbers(r:sum()) }
    else
      got = answers(v, name == "standard")
    end
    for k, x in pairs(want) do
      total = total + 1
      local problem = got[k] == nil and (k .. ": not computed") or compare.same(got[k], x, name .. "." .. k, tolerance(k))
      if problem then
        bad = bad + 1
        print("differs from xarray: " .. problem)
      end
    end
  end
end

-- Twice: as read, and with every reduction that can be folded as the chunks
-- are decoded (FOLD_BYTES 0: groups of counts and extremes here, the series
-- being floats).
for _, fold_bytes in ipairs { dataset.FOLD_BYTES, 0 } do
  dataset.FOLD_BYTES = fold_bytes
  check_all()
end
print(string.format("groupby, resample and rolling agree with xarray on %d of %d answers", total - bad, total))
os.exit(bad == 0 and 0 or 1)
