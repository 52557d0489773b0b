-- ipfsrt.dataset.plot: pictures of dataset variables worth putting in a paper.
--
--   plot.map(ds.sst:sel { time = "2024-02-29" }, { path = "sst.png" })
--   plot.map(anomaly, { path = "anom.png", center = 0, title = "SST anomaly" })
--   plot.line(series, { path = "series.svg" })            -- or {series, other, ...}
--
-- Every plot is written as PNG or SVG: as its path ends (.png, .svg), or
-- as opts.format says ("png", "svg"); another ending without a format is
-- refused. A map's SVG holds the field as an embedded PNG image (as
-- matplotlib's SVG does) with its text, ticks and colour bar in SVG.
--
-- map(v, opts): a 2-D variable (or n-d array) as a colour map with a
-- title, ticks along its coordinates (degrees N/S/E/W for latitudes and
-- longitudes), north up, a colour bar labelled with the units, missing values
-- (land) grey. opts: path (required), title, units, cmap ("viridis", the
-- default; "RdBu_r", the default with center; "RdBu"; "ocean"), vmin, vmax,
-- center (limits symmetric about it), scale (pixels per cell).
-- line(v | {v, ...}, opts): 1-D variables as a line plot against their
-- coordinate (dates along a CF time axis), NaN as gaps. opts: path
-- (required), title, ylabel (default: the units), labels (legend names).
local ipfsrt = require "ipfsrt"
local cftime = require "ipfsrt.dataset.cftime"
local nd = ipfsrt.ndarray

local svg = require "ipfsrt.dataset.plot_svg"

local M = {}

local bad = require "ipfsrt.bad" ("plot: ")
local V = require "ipfsrt.dataset.variable"

local function is_variable(x) return type(x) == "table" and x.dims ~= nil and x.values ~= nil end

local function check_options(opts, known, what)
  if type(opts) ~= "table" then bad("%s takes options {path = ...}", what) end
  local names = {}
  for k in pairs(known) do names[#names + 1] = k end
  table.sort(names)
  for k in pairs(opts) do
    if not known[k] then bad("%s: no option %s (options: %s)", what, tostring(k), table.concat(names, ", ")) end
  end
  if type(opts.path) ~= "string" then bad("%s: path = the file to write", what) end
end

local FORMATS = { png = true, svg = true }

-- "png" or "svg": opts.format, else the path's ending.
local function format_of(opts, what)
  local f = opts.format
  if f ~= nil then
    if not FORMATS[f] then bad("%s: format %s is not known (formats: png, svg)", what, tostring(f)) end
    return f
  end
  local ext = opts.path:match("%.(%w+)$")
  ext = ext and ext:lower()
  if not FORMATS[ext] then
    bad("%s: %s does not end in .png or .svg: name the format (format = \"png\" or \"svg\")", what, opts.path)
  end
  return ext
end

-- ------------------------------------------------------------------ ticks

-- About n round values from lo to hi (steps of 1, 2, 2.5 or 5 times a power
-- of ten; degrees: also 15, 30, 45, 60 and 90).
local DEGREE_STEPS = { 15, 30, 45, 60, 90 }
local function nice_values(lo, hi, n, degrees)
  if not (hi > lo) then return { lo } end
  local raw = (hi - lo) / n
  local p = 10 ^ math.floor(math.log(raw, 10))
  local step
  for _, f in ipairs { 1, 2, 2.5, 5, 10 } do
    step = f * p
    if step >= raw then break end
  end
  if degrees and raw > 10 then
    for _, d in ipairs(DEGREE_STEPS) do
      step = d
      if d >= raw then break end
    end
  end
  local out = {}
  for k = math.ceil(lo / step - 1e-9), math.floor(hi / step + 1e-9) do out[#out + 1] = k * step end
  return out
end

local function number_text(x)
  local s = string.format("%.6g", x)
  return s == "-0" and "0" or s
end

local function degrees(x, kind)
  local a = math.abs(x)
  local text = number_text(a) .. "°"
  if kind == "lat" then return x == 0 and text or text .. (x > 0 and "N" or "S") end
  x = (x + 180) % 360 - 180 -- longitudes as -180..180: east and west
  a = math.abs(x)
  text = number_text(a) .. "°"
  if a == 0 or a == 180 then return text end
  return text .. (x > 0 and "E" or "W")
end

-- What a coordinate is: "lat", "lon" (by units or name), "time", or nil.
local function kind_of(c)
  local units, name = tostring(c.attrs.units or ""):lower(), c.name:lower()
  if units:match("^degrees?_?n") or name == "lat" or name == "latitude" then return "lat" end
  if units:match("^degrees?_?e") or name == "lon" or name == "longitude" then return "lon" end
  if units:match("%ssince%s") then return "time" end
  return nil
end

-- Ticks {at (position, from 0), label} along a monotonic coordinate's labels.
local function ticks_along(values, kind, want)
  local n = #values
  if n < 2 then return { { 0, kind and degrees(values[1], kind) or number_text(values[1]) } } end
  local lo, hi = math.min(values[1], values[n]), math.max(values[1], values[n])
  local out = {}
  for _, x in ipairs(nice_values(lo, hi, want, kind == "lat" or kind == "lon")) do
    local at = (x - values[1]) / (values[n] - values[1]) * (n - 1) -- even spacing, as grids are
    out[#out + 1] = { at, (kind == "lat" or kind == "lon") and degrees(x, kind) or number_text(x) }
  end
  return out
end

-- -------------------------------------------------------------------- map

local CMAPS = { viridis = true, RdBu_r = true, RdBu = true, ocean = true }
local MAP_OPTIONS = { path = true, title = true, units = true, cmap = true, vmin = true, vmax = true, center = true,
  scale = true, format = true }

-- The values of a selection's dropped dimensions, as "time = 2024-02-29".
local function where_selected(v)
  local parts = {}
  local sel = V.selection(v)
  for i, d in ipairs(sel and V.all_dims(v) or {}) do
    local c = sel[i].index and V.coordinate_of(v, d)
    if c then
      local x = kind_of(c) == "time" and c:dates()[sel[i].index + 1] or
        number_text(c:values():astype("float64"):get(sel[i].index))
      parts[#parts + 1] = d .. " = " .. x
    end
  end
  return table.concat(parts, ", ")
end

-- The colour limits: given, or the field's; with center, symmetric about it.
local function limits(x, opts)
  local lo, hi = opts.vmin, opts.vmax
  if lo == nil or hi == nil then
    local f = x:astype("float64")
    local finite = f:isfinite()
    lo = lo or (finite:any() and f:min({ where = finite }) or 0)
    hi = hi or (finite:any() and f:max({ where = finite }) or 1)
  end
  if opts.center ~= nil then
    local d = math.max(math.abs(hi - opts.center), math.abs(lo - opts.center))
    if d == 0 then d = 1 end
    lo, hi = opts.center - d, opts.center + d
  end
  if not (lo < hi) then hi = lo + 1 end
  return lo, hi
end

-- A map has two dimensions, a line one: those of length one beside them (the
-- day a date selected, NOAA's one depth) are taken away (a map names them in
-- its title).
local function only_dims(v, n)
  if is_variable(v) and #v.dims > n then
    local ones = {}
    for i, d in ipairs(v.dims) do if v.shape[i] == 1 then ones[d] = 0 end end
    return next(ones) and v:isel(ones) or v
  end
  return nd.isarray(v) and v.ndim > n and v:squeeze() or v
end

function M.map(v, opts)
  check_options(opts, MAP_OPTIONS, "map")
  local format = format_of(opts, "map")
  if opts.cmap ~= nil and not CMAPS[opts.cmap] then
    bad("map: cmap %s is not known (cmaps: RdBu, RdBu_r, ocean, viridis)", tostring(opts.cmap))
  end
  v = only_dims(v, 2)
  local x = is_variable(v) and v:_values_array() or v
  if not nd.isarray(x) or x.ndim ~= 2 then
    bad("map takes a variable (or n-d array) of 2 dimensions, besides any of length one")
  end
  local fig = { cmap = opts.cmap or (opts.center ~= nil and "RdBu_r" or "viridis"), units = opts.units,
    title = opts.title, scale = opts.scale or math.max(1, math.min(8, 720 // x.shape[2])) }
  fig.vmin, fig.vmax = limits(x, opts)
  if is_variable(v) then
    fig.units = fig.units or (v.attrs.units and tostring(v.attrs.units))
    local at = where_selected(v)
    fig.title = fig.title or ((v.attrs.long_name or v.name) .. (at ~= "" and ", " .. at or ""))
    local coords = v:_coords()
    local cy, cx = coords[v.dims[1]], coords[v.dims[2]]
    if cy then
      local ys = cy:values():astype("float64"):tolist()
      fig.yticks = ticks_along(ys, kind_of(cy), 6)
      fig.flip = #ys > 1 and ys[#ys] > ys[1] -- north up
    end
    if cx then fig.xticks = ticks_along(cx:values():astype("float64"):tolist(), kind_of(cx), 8) end
  end
  if format == "png" then return ipfsrt.image.write_figure(opts.path, x, fig) end
  fig.bar_ticks = {}
  for _, b in ipairs(nice_values(fig.vmin, fig.vmax, 5)) do fig.bar_ticks[#fig.bar_ticks + 1] = { b, number_text(b) } end
  svg.map(opts.path, x, fig)
end

-- ------------------------------------------------------------------- line

local LINE_OPTIONS = { path = true, title = true, ylabel = true, labels = true, format = true }

-- The x positions (numbers) of a 1-D variable and, for CF times, the calendar.
local function x_of(v)
  local c = v:_coords()[v.dims[1]]
  if not c then
    local out = {}
    for i = 1, v.shape[1] do out[i] = i - 1 end
    return out, nil, v.dims[1]
  end
  local t = kind_of(c) == "time" and cftime.calendar(c.attrs.calendar)
  local values = c:values():astype("float64"):tolist()
  if t then
    local u = cftime.units(c.attrs.units, t)
    for i, x in ipairs(values) do values[i] = x * u.scale + u.epoch end
  end
  return values, t or nil, c.name
end

-- Date ticks: month starts over spans of more than 90 days (every k-th month
-- so that about eight show), else days at a round step.
local function date_ticks(lo, hi, cal)
  local out, span = {}, (hi - lo) / 86400
  if span > 90 then
    local y, m = cftime.fields(lo, cal)
    local every = math.max(1, math.ceil(span / 30.4 / 8))
    while true do
      local s = cftime.seconds(y, m, 1, cal)
      if s > hi then break end
      if s >= lo and (m - 1) % every == 0 then out[#out + 1] = { s, cftime.format(s, cal):sub(1, 7) } end
      y, m = m == 12 and y + 1 or y, m % 12 + 1
    end
  else
    for _, d in ipairs(nice_values(lo / 86400, hi / 86400, 7)) do
      out[#out + 1] = { d * 86400, cftime.format(d * 86400, cal):sub(1, 10) }
    end
  end
  return out
end

-- The series of vs: x positions, values, labels; and the ranges, calendar
-- and x axis name they share.
local function series_of(vs, opts)
  local series = {}
  local r = { xlo = math.huge, xhi = -math.huge, ylo = math.huge, yhi = -math.huge }
  for i, v in ipairs(vs) do
    v = only_dims(v, 1)
    if not is_variable(v) or #v.dims ~= 1 then
      bad("line: item %d is not a 1-D variable (besides dimensions of length one)", i)
    end
    local xs, c, name = x_of(v)
    r.cal, r.xname = r.cal or c, r.xname or name
    local ys = v:values():astype("float64"):tolist()
    for k, y in ipairs(ys) do
      if y == y then r.ylo, r.yhi = math.min(r.ylo, y), math.max(r.yhi, y) end
      r.xlo, r.xhi = math.min(r.xlo, xs[k]), math.max(r.xhi, xs[k])
    end
    series[i] = { xs = xs, ys = ys, label = opts.labels and opts.labels[i] or v.name }
  end
  if r.ylo > r.yhi then r.ylo, r.yhi = 0, 1 end
  if r.ylo == r.yhi then r.ylo, r.yhi = r.ylo - 1, r.yhi + 1 end
  if r.xlo >= r.xhi then r.xhi = r.xlo + 1 end
  return series, r
end

-- The x axis's ticks {at, label}: dates along CF times, else round numbers.
local function x_ticks(r)
  if r.cal then return date_ticks(r.xlo, r.xhi, r.cal) end
  local xt = {}
  for _, x in ipairs(nice_values(r.xlo, r.xhi, 8)) do xt[#xt + 1] = { x, number_text(x) } end
  return xt
end

function M.line(vs, opts)
  check_options(opts, LINE_OPTIONS, "line")
  local format = format_of(opts, "line")
  if is_variable(vs) then vs = { vs } end
  if type(vs) ~= "table" or #vs == 0 then bad("line takes a 1-D variable or a list of them") end
  local series, r = series_of(vs, opts)
  local yt = {}
  for _, y in ipairs(nice_values(r.ylo, r.yhi, 6)) do yt[#yt + 1] = { y, number_text(y) } end
  r.ylo, r.yhi = math.min(r.ylo, yt[1][1]), math.max(r.yhi, yt[#yt][1])
  local plot = { series = series, xlo = r.xlo, xhi = r.xhi, ylo = r.ylo, yhi = r.yhi, yticks = yt, xticks = x_ticks(r),
    title = opts.title or series[1].label, xlabel = r.xname or "",
    ylabel = opts.ylabel or (vs[1].attrs.units and tostring(vs[1].attrs.units)) or "" }
  if format == "svg" then return svg.line(opts.path, plot) end
  for _, s in ipairs(plot.series) do s.x, s.y = s.xs, s.ys end
  ipfsrt.image.write_lines(opts.path, plot)
end

return M
