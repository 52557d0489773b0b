-- ipfsrt.dataset.groupby: groups of positions along one dimension of a dataset
-- variable, as xarray's groupby and resample, and what is computed over them.
--
--   local g = ds.sst:groupby("time.month")      -- or time.season, time.year,
--                                                -- time.dayofyear, time.day, a coordinate
--   local clim = g:mean()                        -- dims (month, lat, lon)
--   local anom = ds.sst:groupby("time.month") - clim   -- lazy, dims of sst
--   ds.sst:resample { time = "month" }:mean()    -- "week", "year", "Nd" (e.g. "5d")
--
-- Reductions (mean sum min max count std var median) run over the grouped
-- dimension. Where it is the variable's first, sums, means, counts and
-- extremes are read once, a slab at a time, each group's rows added to its
-- total as a reduction of the group's rows would add them; the others (and
-- groupings along later dimensions) read each group's values.
local ipfsrt = require "ipfsrt"
local cftime = require "ipfsrt.dataset.cftime"
local lazy = require "ipfsrt.dataset.lazy"
local nd = ipfsrt.ndarray

local M = {}
local V = require "ipfsrt.dataset.variable"
local CF = require "ipfsrt.dataset.cf"
local methods = require "ipfsrt.dataset.methods"
local reduce = require "ipfsrt.dataset.reduce"
local arithmetic = require "ipfsrt.dataset.arithmetic"
local bad = require "ipfsrt.bad" ("dataset: ")

local GroupBy = {}
GroupBy.__index = methods.index(GroupBy, function(g)
  return rawget(g, "_resampled") and "a resample" or "a groupby"
end)

-- -------------------------------------------------------------- labels

local SEASONS = { "DJF", "DJF", "MAM", "MAM", "MAM", "JJA", "JJA", "JJA", "SON", "SON", "SON", "DJF" }
local COMPONENTS = { year = 1, month = 2, day = 3, dayofyear = 4, season = 2 }

-- The times along dim of v (seconds) and their decoding.
local function times_of(v, dim)
  local c = v:_coords()[dim]
  if not c then bad("%s has no coordinate variable: group by its labels needs one", dim) end
  local labels, t = V.labels_of(c), CF.time_of(c.name, c.attrs)
  if not t then bad("%s has no CF time units: %s.month and the like need times", dim, dim) end
  return labels, t
end

-- Per position along dim, its group's label, from key "dim.component" or a
-- coordinate's own labels.
local function labels_by(v, key)
  local dim, part = key:match("^([^.]+)%.(.+)$")
  if not dim then -- a coordinate: each of its labels a group
    V.axis_of(v, key)
    local c = v:_coords()[key]
    if not c then bad("groupby: %s has no coordinate variable", key) end
    return key, key, V.labels_of(c)
  end
  V.axis_of(v, dim)
  if not COMPONENTS[part] then
    bad("groupby: %s is not a part of a time (parts: %s)", part, table.concat(methods.sorted_names(COMPONENTS), ", "))
  end
  local times, t = times_of(v, dim)
  local out = {}
  for i, s in ipairs(times) do
    local fields = { cftime.fields(s, t.calendar) }
    if not fields[1] then bad("groupby: %s has a missing time at position %d", dim, i - 1) end
    out[i] = part == "season" and SEASONS[fields[2]] or fields[COMPONENTS[part]]
  end
  return dim, part, out
end

-- ------------------------------------------------------------- groupings

-- A grouping: dim, name (the result's dimension), groups (labels, in order),
-- runs[g] = {{start, count}, ...} along dim, and the coordinate of the
-- result (a computed variable of the labels).
local function runs_of(labels, groups)
  local at, runs = {}, {}
  for g, label in ipairs(groups) do at[label], runs[g] = g, {} end
  for i, label in ipairs(labels) do
    local list = runs[at[label]]
    local last = list[#list]
    if last and last[1] + last[2] == i - 1 then last[2] = last[2] + 1 else list[#list + 1] = { i - 1, 1 } end
  end
  return runs
end

local function new_grouping(v, dim, name, labels, groups, coord)
  return setmetatable({ _var = v, dim = dim, name = name, labels = labels, groups = groups,
    runs = runs_of(labels, groups), coord = coord }, GroupBy)
end

-- v:groupby(key) -> a grouping by "dim.year" | "dim.month" | "dim.season" |
-- "dim.day" | "dim.dayofyear" (of a CF time coordinate) or a coordinate's
-- name; groups sorted by label, as xarray's.
function M.groupby(v, key)
  if type(key) ~= "string" then bad("groupby takes \"time.month\" or the like, or a coordinate's name") end
  local dim, name, labels = labels_by(v, key)
  local seen = {}
  for _, label in ipairs(labels) do seen[label] = true end
  local groups = methods.sorted_names(seen)
  local t = name == dim and select(2, V.coordinate(v:_coords()[dim], dim)) or nil
  return new_grouping(v, dim, name, labels, groups, V.label_coordinate(V.dataset(v), name, groups, t))
end

-- pandas' spellings of the frequencies, as ours: month and year starts
-- ("MS", "YS"/"AS"), their ends ("M"/"ME", "Y"/"A"/"YE": bins labelled by
-- their last day), weeks ending on Sunday ("W", "W-SUN") and N days ("7D").
local PANDAS = { MS = "month", M = "month_end", ME = "month_end", YS = "year", AS = "year", Y = "year_end",
  A = "year_end", YE = "year_end", W = "week", ["W-SUN"] = "week", D = "1d" }

local function frequency(freq)
  if type(freq) ~= "string" then return freq end
  local days = freq:match("^(%d+)D$")
  return PANDAS[freq] or (days and days .. "d") or freq
end

-- The first second of the period (month or year) after the one s is in.
local function next_period(s, year, cal)
  local y, m = cftime.fields(s, cal)
  if year then return cftime.seconds(y + 1, 1, 1, cal) end
  return cftime.seconds(m == 12 and y + 1 or y, m % 12 + 1, 1, cal)
end

-- The label of the bin of each time, for resample frequencies (the
-- frequency as ours, a bin's width when it is fixed).
local function bin_of(freq, t)
  local cal = t.calendar
  if freq == "month" or freq == "year" then
    return function(s)
      local y, m = cftime.fields(s, cal)
      return cftime.seconds(y, freq == "month" and m or 1, 1, cal)
    end
  elseif freq == "month_end" or freq == "year_end" then -- the period's last day
    return function(s) return next_period(s, freq == "year_end", cal) - 86400 end
  elseif freq == "week" then -- pandas' W: weeks end on Sunday, labelled by it
    return function(s)
      local days = math.ceil(s / 86400)
      local weekday = (days + 3) % 7 -- 1970-01-01 was a Thursday: Monday is 0
      return (days + (6 - weekday) % 7) * 86400
    end
  end
  local n = type(freq) == "string" and math.tointeger(tonumber(freq:match("^(%d+)d$")))
  if not n or n < 1 then
    bad("resample: frequency %s is not known (frequencies: \"month\" or \"MS\", \"M\", \"week\" or \"W\", " ..
      "\"year\" or \"YS\", \"Y\", \"Nd\" or \"ND\" for N days)", tostring(freq))
  end
  return function(s, origin) return origin + (s - origin) // (n * 86400) * (n * 86400) end, n * 86400
end

-- v:resample{dim = freq} -> a grouping into consecutive bins (every bin
-- from the first time's to the last's, empty ones too: NaN whatever is
-- computed over them, as xarray's).
function M.resample(v, spec)
  if type(spec) ~= "table" then bad("resample takes {time = \"month\"} or the like") end
  local dim, freq = next(spec)
  if next(spec, dim) ~= nil then bad("resample takes one dimension") end
  V.axis_of(v, dim)
  local times, t = times_of(v, dim)
  freq = frequency(freq)
  local bin, width = bin_of(freq, t)
  local origin = times[1] and (times[1] // 86400) * 86400 -- pandas' start_day
  local labels, groups, last = {}, {}, nil
  for i, s in ipairs(times) do
    if s ~= s then bad("resample: %s has a missing time at position %d", dim, i - 1) end
    if last and s < last then bad("resample: %s is not sorted", dim) end
    labels[i], last = bin(s, origin), s
  end
  local first_bin, last_bin = labels[1], labels[#labels]
  local b = first_bin
  while b and b <= last_bin do -- every bin in between
    groups[#groups + 1] = b
    if width then b = b + width
    elseif freq == "week" then b = b + 7 * 86400
    elseif freq == "month_end" or freq == "year_end" then
      b = next_period(b + 86400, freq == "year_end", t.calendar) - 86400
    else
      b = next_period(b, freq == "year", t.calendar)
    end
  end
  local g = new_grouping(v, dim, dim, labels, groups, V.label_coordinate(V.dataset(v), dim, groups, { calendar = t.calendar }))
  g._resampled = true
  return g
end

-- ------------------------------------------------------------ reductions

local STREAMED = { sum = true, mean = true, count = true, min = true, max = true }

-- The rows [a, b) of x along axis 0.
local function rows(x, a, b) return x:slice { { a, b } } end

-- The regions to read for groups ks: the slabs of v's first dimension, each
-- cut to the span of the chosen groups' positions in it (none: left out).
local function regions_for(g, ks, n)
  local wanted = {}
  for _, k in ipairs(ks) do
    for _, run in ipairs(g.runs[k]) do
      for p = run[1], run[1] + run[2] - 1 do wanted[p] = true end
    end
  end
  local out = {}
  for _, slab in ipairs(arithmetic.slabs(n)) do
    local a, b = slab and slab.start or 0, slab and slab.start + slab.count or g._var.shape[1]
    local lo, hi
    for p = a, b - 1 do
      if wanted[p] then lo, hi = lo or p, p end
    end
    if lo then out[#out + 1] = { dim = g.dim, start = lo, count = hi - lo + 1 } end
  end
  return out
end

-- Groups ks from one pass over the slabs of v's values along its first
-- dimension that hold them: each run of a chosen group's rows folded into the
-- group's running totals (lazy.running: the bits a reduction of the group's
-- rows gives). Per position in ks, its result (nil: no positions).
local function streamed(g, op, skipna, ks)
  local n = arithmetic.node_of(g._var)
  local memo, totals, chosen = lazy.new_memo(), {}, {}
  for i, k in ipairs(ks) do chosen[g.groups[k]] = i end
  lazy.each_slab({ n }, regions_for(g, ks, n), memo, function(region, values)
    local x = values[1]
    local base, i = region.start, 0
    while i < region.count do
      local label, j = g.labels[base + i + 1], i + 1
      while j < region.count and g.labels[base + j + 1] == label do j = j + 1 end
      local at = chosen[label]
      if at then
        totals[at] = totals[at] or lazy.running(op, skipna)
        totals[at].fold(rows(x, i, j))
      end
      i = j
    end
  end)
  lazy.done(memo)
  local out = {}
  for i, t in pairs(totals) do out[i] = t.finish() end
  return out
end

-- A group's result when it has no positions (resample's empty bins): NaN
-- whatever the reduction, as xarray fills the bins it found no values for.
local function empty_result(like, shape)
  return nd.full(shape, 0 / 0, like and like.dtype:match("^float") and like.dtype or "float64")
end

-- Per group of ks, its values gathered (runs concatenated) and reduced along dim.
local function gathered(g, op, skipna, ks)
  local out, axis = {}, V.axis_of(g._var, g.dim)
  for i, k in ipairs(ks) do
    local parts = {}
    for _, run in ipairs(g.runs[k]) do
      parts[#parts + 1] = g._var:isel({ [g.dim] = { run[1], run[1] + run[2] } }):values()
    end
    if #parts > 0 then
      local x = #parts == 1 and parts[1] or nd.concat(parts, axis)
      out[i] = x[op](x, axis, { skipna = skipna })
    end
  end
  return out
end

local REDUCE_OPTIONS = { skipna = true }

-- The arrays of list stacked along a new first axis, 64 at a time (what one
-- n-d array join takes; a day of the year has 366 groups).
local function stacked(list, axis)
  axis = axis or 0
  if #list <= 64 then return nd.stack(list, axis) end
  local parts = {}
  for first = 1, #list, 64 do
    parts[#parts + 1] = nd.stack(table.move(list, first, math.min(first + 63, #list), 1, {}), axis)
  end
  return #parts <= 64 and nd.concat(parts, axis) or bad("more than 4096 groups or positions at once")
end

-- Groups ks of a stored variable folded as it is read (reduce.streamed_groups:
-- large selections, one read, on the decoding threads), from the first to the
-- last position they hold: stacked along a new first axis, or nil.
local function folded(g, op, skipna, ks)
  if skipna == false or g._var.dims[1] ~= g.dim or not V.array(g._var) or V.expression(g._var) or #ks == 0 then return nil end
  local chosen, lo, hi = {}, nil, nil
  for i, k in ipairs(ks) do
    chosen[g.groups[k]] = i - 1
    if #g.runs[k] == 0 then return nil end -- an empty bin: NaN, as gathered makes it
    for _, run in ipairs(g.runs[k]) do
      lo, hi = math.min(lo or run[1], run[1]), math.max(hi or 0, run[1] + run[2] - 1)
    end
  end
  local group_of = {}
  for p = lo, hi do group_of[p - lo + 1] = chosen[g.labels[p + 1]] or -1 end
  return reduce.streamed_groups(g._var:isel { [g.dim] = { lo, hi + 1 } }, op, group_of, #ks)
end

-- The results of groups ks, stacked along a new first axis (or, one group
-- asked for by index, its own).
local function reduced(g, op, skipna, ks, single)
  local all = folded(g, op, skipna, ks)
  if all then return single and all:slice({ 0 }) or all end
  local per = (STREAMED[op] and g._var.dims[1] == g.dim) and streamed(g, op, skipna, ks) or gathered(g, op, skipna, ks)
  local like, shape = nil, {}
  for i = 1, #ks do like = like or per[i] end
  for i, d in ipairs(g._var.dims) do if d ~= g.dim then shape[#shape + 1] = g._var.shape[i] end end
  for i = 1, #ks do per[i] = per[i] or empty_result(like, shape) end
  if single then return per[1] end
  return #ks > 0 and stacked(per) or nd.zeros({ 0, table.unpack(shape) }, like and like.dtype or "float64")
end

-- The operand of a group reduction: dims (the group's first, then v's
-- others), computed only when read, and only for the groups a selection kept.
local function group_leaf(g, op, skipna, ks, single)
  local dims, sizes = single and {} or { g.name }, single and {} or { [g.name] = #ks }
  for i, d in ipairs(g._var.dims) do
    if d ~= g.dim then dims[#dims + 1], sizes[d] = d, g._var.shape[i] end
  end
  local leaf = lazy.leaf(dims, sizes, function(region)
    if region and region.dim == g.name then
      return reduced(g, op, skipna, table.move(ks, region.start + 1, region.start + region.count, 1, {}), single)
    elseif region then -- a slab along another dimension: the grouped variable's
      local part = g._var:isel { [region.dim] = { region.start, region.start + region.count } }
      return reduced(new_grouping(part, g.dim, g.name, g.labels, g.groups, g.coord), op, skipna, ks, single)
    end
    return reduced(g, op, skipna, ks, single)
  end, g._var.name, function() return true end)
  leaf.isel = function(spec)
    local mine, picked = {}, ks
    for k, want in pairs(spec) do if k ~= g.name then mine[k] = want end end
    local part = spec[g.name]
    local r = part ~= nil and not single and V.resolve(part, #ks, g.name) or nil
    if r and r.index then picked = { ks[r.index + 1] }
    elseif r then
      picked = {}
      for j = 0, r.count - 1 do picked[j + 1] = ks[r.start + j * r.step + 1] end
    end
    local var = next(mine) and g._var:isel(mine) or g._var
    local g2 = new_grouping(var, g.dim, g.name, g.labels, g.groups, g.coord)
    return group_leaf(g2, op, skipna, picked, single or (r and r.index ~= nil))
  end
  return leaf
end

for _, op in ipairs { "mean", "sum", "min", "max", "count", "std", "var", "median" } do
  GroupBy[op] = function(g, opts)
    opts = opts or {}
    if type(opts) ~= "table" then bad("%s: options are a table ({skipna =})", op) end
    for k in pairs(opts) do
      if not REDUCE_OPTIONS[k] then bad("%s: no option %s (options: skipna)", op, tostring(k)) end
    end
    local ks = {}
    for k in ipairs(g.groups) do ks[k] = k end
    local coords, mine = { [g.name] = g.coord }, g._var:_coords()
    for _, d in ipairs(g._var.dims) do if d ~= g.dim then coords[d] = mine[d] end end
    return arithmetic.lazy_variable(V.dataset(g._var), group_leaf(g, op, opts.skipna ~= false, ks, false), coords, g._var.name,
      g._var)
  end
end

-- -------------------------------------------------------- group arithmetic

-- other (a variable with dimension gname) as an operand along dim: position
-- p takes other's slice index[p] along gname (its group's).
local function spread(index, dim, other, gname)
  local gaxis = V.axis_of(other, gname)
  local dims, sizes = {}, {}
  for i, d in ipairs(other.dims) do
    dims[i] = d == gname and dim or d
    sizes[dims[i]] = d == gname and #index or other.shape[i]
  end
  local values
  local leaf = lazy.leaf(dims, sizes, function(region)
    values = values or other:_values_array()
    local a, n = region and region.start or 0, region and region.count or #index
    local slices = {}
    for p = a, a + n - 1 do
      local parts = {}
      for k = 1, gaxis do parts[k] = {} end
      parts[gaxis + 1] = index[p + 1]
      slices[#slices + 1] = values:slice(parts)
    end
    return stacked(slices, gaxis)
  end, other.name, function() return true end)
  leaf.isel = function(spec) -- a selection of the expression it is in
    local mine = {}
    for k, want in pairs(spec) do
      for _, d in ipairs(other.dims) do if d == k and k ~= gname then mine[k] = want end end
    end
    local o = next(mine) and other:isel(mine) or other
    if spec[dim] == nil then return spread(index, dim, o, gname) end
    local r = V.resolve(spec[dim], #index, dim)
    if r.index then return arithmetic.node_of(o:isel { [gname] = index[r.index + 1] }) end
    local picked = {}
    for j = 0, r.count - 1 do picked[j + 1] = index[r.start + j * r.step + 1] end
    return spread(picked, dim, o, gname)
  end
  return leaf
end

-- The position along other's gname of each position's group.
local function group_index(g, other)
  V.axis_of(other, g.name)
  local c = other:_coords()[g.name]
  if not c then bad("%s has no %s labels", other.name, g.name) end
  local at, index = {}, {}
  for j, label in ipairs(V.labels_of(c)) do at[label] = j - 1 end
  for i, label in ipairs(g.labels) do
    index[i] = at[label] or bad("%s has no %s %s (it has: %s)", other.name, g.name, tostring(label),
      table.concat(methods.sorted_names(at), ", "))
  end
  return index
end

local function group_arith(op)
  return function(a, b)
    local g, other, swapped = a, b, false
    if getmetatable(a) ~= GroupBy then g, other, swapped = b, a, true end
    if not V.is(other) then bad("group arithmetic takes a variable with the %s dimension", g.name) end
    local vn, on = arithmetic.node_of(g._var), spread(group_index(g, other), g.dim, other, g.name)
    local n = swapped and lazy.binary(op, on, vn) or lazy.binary(op, vn, on)
    local coords = g._var:_coords()
    for d, c in pairs(other:_coords()) do if d ~= g.name then coords[d] = coords[d] or c end end
    return arithmetic.lazy_variable(V.dataset(g._var), n, coords, g._var.name, g._var, other)
  end
end

for op, mm in pairs { add = "__add", sub = "__sub", mul = "__mul", div = "__div" } do GroupBy[mm] = group_arith(op) end

function GroupBy.__tostring(g)
  local labels = {}
  for i, label in ipairs(g.groups) do labels[i] = tostring(label) end
  return string.format("<ipfsrt.dataset.GroupBy %s by %s: %d groups (%s)>", g._var.name, g.name, #g.groups,
    table.concat(labels, ", "))
end

-- The methods this module gives the Variable class.
M.methods = { groupby = M.groupby, resample = M.resample }

M.GroupBy = GroupBy

return M
