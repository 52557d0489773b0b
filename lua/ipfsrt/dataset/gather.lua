-- ipfsrt.dataset.gather: selections by lists of positions, as xarray's.
--
--   ds.sst:isel { lat = ipfsrt.list { 500, 480, 120 } }      -- orthogonal: each list its own dimension
--   ds.sst:sel { lat = ipfsrt.points { 35, 0, -60 },           -- pointwise: the lists pair up along a
--                lon = ipfsrt.points { 285, 200, 30 }, method = "nearest" }  -- new dimension, "points"
--
-- The rule for tables in isel and sel: a plain table is a range ({from, to}
-- in sel, {start, stop[, step]} in isel) and nothing else; a list of labels
-- or positions is ipfsrt.list{...}; points are ipfsrt.points({...}[, dim]).
--
-- A variable selected so is read as few boxes as its lists allow: each
-- list's positions grouped by the chunk they lie in, one box per group (per
-- combination of groups), every box's chunks asked for together, then the
-- positions picked out of the boxes in the order the lists give them.
local ipfsrt = require "ipfsrt"
local nd = ipfsrt.ndarray

local M = {}
local List, Points = { __name = "ipfsrt.list" }, { __name = "ipfsrt.points" }

local bad = require "ipfsrt.bad" ("dataset: ")

-- The items of t (a sequence of at least one), copied.
local function items_of(t, what)
  if type(t) ~= "table" or getmetatable(t) ~= nil then bad("%s takes a list of labels or positions", what) end
  local n, out = 0, {}
  for _ in pairs(t) do n = n + 1 end
  if n == 0 or #t ~= n then bad("%s takes a list (1, 2, ... keys only) of one or more items", what) end
  for i = 1, n do out[i] = t[i] end
  return out
end

-- ipfsrt.list{...}: labels (sel) or positions (isel) selected orthogonally,
-- in the order given (repeats allowed), the dimension kept.
function M.list(t) return setmetatable({ items = items_of(t, "ipfsrt.list") }, List) end

-- ipfsrt.points({...}[, dim = "points"]): the lists given for several
-- dimensions pair up, item by item, along a new dimension dim.
function M.points(t, dim)
  if dim ~= nil and type(dim) ~= "string" then bad("ipfsrt.points: the dimension is a name") end
  return setmetatable({ items = items_of(t, "ipfsrt.points"), dim = dim or "points" }, Points)
end

function M.is_list(x) return getmetatable(x) == List end
function M.is_points(x) return getmetatable(x) == Points end
function M.is_gather(x) return getmetatable(x) == List or getmetatable(x) == Points end

-- The same kind of selection over other items (labels turned to positions).
function M.like(x, items) return setmetatable({ items = items, dim = x.dim }, getmetatable(x)) end

List.__tostring = function(x) return "ipfsrt.list{" .. #x.items .. " items}" end
Points.__tostring = function(x) return "ipfsrt.points{" .. #x.items .. " items, " .. x.dim .. "}" end

-- ------------------------------------------------------------ selections
--
-- A selection is one entry per stored dimension: {index =}, {start =, count
-- =, step =}, {list = positions}, or {points = positions, dim = name}: the
-- positions all stored ones (from 0).

-- A plain entry ({index =} or {start =, count =, step =}) as a read or a
-- slice takes it: an index, or {start, stop, step} (Python's: a backward
-- range reaching the first position has no stop).
function M.slice_part(s)
  if s.index then return s.index end
  local stop = s.start + s.count * s.step
  return { s.start, (s.step < 0 and stop < 0) and nil or stop, s.step }
end

-- The dimensions a selection shows, and their lengths: an index drops its
-- dimension; points of one dim show once, where the first of them is.
function M.visible(sel, all_dims)
  local dims, shape, seen = {}, {}, {}
  for i, s in ipairs(sel) do
    if s.points then
      if not seen[s.dim] then
        seen[s.dim] = true
        dims[#dims + 1], shape[#shape + 1] = s.dim, #s.points
      end
    elseif not s.index then
      dims[#dims + 1], shape[#shape + 1] = all_dims[i], s.list and #s.list or s.count
    end
  end
  return dims, shape
end

function M.is_plain(sel)
  for _, s in ipairs(sel) do if s.list or s.points then return false end end
  return true
end

-- A position along a visible dimension of n (negative from the end), checked.
local function position(p, n, dim)
  if math.type(p) ~= "integer" then bad("%s: positions are whole numbers, not %s", dim, tostring(p)) end
  local i = p < 0 and p + n or p
  if i < 0 or i >= n then bad("index %d is out of bounds for %s of size %d", p, dim, n) end
  return i
end

-- The stored positions along one visible dimension (before this selection).
local function stored_of(s)
  if s.list then return s.list end
  if s.points then return s.points end
  local out = {}
  for j = 0, s.count - 1 do out[j + 1] = s.start + j * s.step end
  return out
end

-- The entry for stored dimension i after part, a gathering (List or Points)
-- of positions along its visible dimension (whose stored positions are given).
local function gathered_entry(stored, part, dim)
  local out = {}
  for j, p in ipairs(part.items) do out[j] = stored[position(p, #stored, dim) + 1] end
  if M.is_points(part) then return { points = out, dim = part.dim } end
  return { list = out }
end

-- The entry after an index or a range (resolve: dataset's Python slicing).
local function narrowed_entry(s, stored, part, dim, resolve)
  local r = resolve(part, #stored, dim)
  if r.index then return { index = stored[r.index + 1] } end
  if not (s.list or s.points) then
    return { start = s.start + r.start * s.step, count = r.count, step = s.step * r.step }
  end
  local out = {}
  for j = 0, r.count - 1 do out[j + 1] = stored[r.start + j * r.step + 1] end
  if s.points then return { points = out, dim = s.dim } end
  return { list = out }
end

-- Points sharing a dimension must pair up: the same length, and a name that
-- is no other dimension's.
local function check_points(sel, all_dims)
  local length, others = {}, {}
  for i, s in ipairs(sel) do
    if not s.points and not s.index then others[all_dims[i]] = true end
  end
  for i, s in ipairs(sel) do
    if s.points then
      local n = length[s.dim]
      if n and n ~= #s.points then
        bad("points along %s: %s has %d, another %d (points pair up item by item)", s.dim, all_dims[i], #s.points, n)
      end
      if others[s.dim] then bad("points: %s is already a dimension; name the points another (ipfsrt.points(t, name))", s.dim) end
      length[s.dim] = #s.points
    end
  end
end

-- sel with spec (visible dimension -> index, range, List or Points) applied.
function M.compose(sel, all_dims, spec, resolve)
  local out = {}
  for i, s in ipairs(sel) do out[i] = s end
  for i, s in ipairs(sel) do
    local dim = s.points and s.dim or all_dims[i]
    local part = not s.index and spec[dim]
    if part ~= nil and part ~= false then
      local stored = stored_of(s)
      if M.is_gather(part) then out[i] = gathered_entry(stored, part, dim)
      else out[i] = narrowed_entry(s, stored, part, dim, resolve) end
    end
  end
  check_points(out, all_dims)
  return out
end

-- ------------------------------------------------------------------ reading

-- One dimension of the grid of boxes: a list's stored dimension, or the
-- stored dimensions of one set of points; its positions grouped by chunk.
local function grid_of(sel, chunks)
  local grid, by_dim = {}, {}
  for i, s in ipairs(sel) do
    if s.list then
      grid[#grid + 1] = { axes = { i }, items = { s.list } }
    elseif s.points then
      local g = by_dim[s.dim]
      if not g then
        g = { axes = {}, items = {}, dim = s.dim }
        by_dim[s.dim], grid[#grid + 1] = g, g
      end
      g.axes[#g.axes + 1], g.items[#g.items + 1] = i, s.points
    end
  end
  for _, g in ipairs(grid) do
    local groups, of_key = {}, {}
    for j = 1, #g.items[1] do
      local key = {}
      for k, axis in ipairs(g.axes) do key[k] = g.items[k][j] // chunks[axis] end
      key = table.concat(key, ",")
      local group = of_key[key]
      if not group then
        group = { members = {}, low = {}, high = {} }
        of_key[key], groups[#groups + 1] = group, group
      end
      group.members[#group.members + 1] = j
      for k in ipairs(g.axes) do
        local p = g.items[k][j]
        group.low[k] = math.min(group.low[k] or p, p)
        group.high[k] = math.max(group.high[k] or p, p)
      end
    end
    g.groups = groups
  end
  return grid
end

-- The boxes: every combination of one group per grid dimension, each a
-- selection the reader takes, the groups it combines and how many values
-- it holds.
local function boxes_of(sel, grid)
  local base, size = {}, 1
  for i, s in ipairs(sel) do
    if not (s.list or s.points) then
      base[i] = M.slice_part(s)
      size = size * (s.count or 1)
    end
  end
  local boxes = { { parts = base, groups = {}, size = size } }
  for gi, g in ipairs(grid) do
    local more = {}
    for _, box in ipairs(boxes) do
      for _, group in ipairs(g.groups) do
        local parts, n = table.move(box.parts, 1, #sel, 1, {}), box.size
        for k, axis in ipairs(g.axes) do
          parts[axis] = { group.low[k], group.high[k] + 1 }
          n = n * (group.high[k] + 1 - group.low[k])
        end
        local groups = table.move(box.groups, 1, #box.groups, 1, {})
        groups[gi] = group
        more[#more + 1] = { parts = parts, groups = groups, size = n }
      end
    end
    boxes = more
  end
  return boxes
end

-- The members of a box's groups picked out of its values x: the lists taken,
-- then each set of points paired up along its new dimension. labels names
-- x's axes (stored dimension numbers) as they go.
local function pick(x, sel, grid, groups)
  local labels = {}
  for i, s in ipairs(sel) do if not s.index then labels[#labels + 1] = i end end
  local function axis_of(i) for a, l in ipairs(labels) do if l == i then return a - 1 end end end
  for gi, g in ipairs(grid) do
    local group = groups[gi]
    if not g.dim then
      local local_positions = {}
      for k, j in ipairs(group.members) do local_positions[k] = g.items[1][j] - group.low[1] end
      x = x:take(local_positions, axis_of(g.axes[1]))
    end
  end
  for gi, g in ipairs(grid) do
    if g.dim then
      local group, first = groups[gi], math.huge
      local cut = {}
      for _, axis in ipairs(g.axes) do first, cut[axis] = math.min(first, axis_of(axis)), true end
      local members = {}
      for k, j in ipairs(group.members) do
        local parts = {}
        for a, l in ipairs(labels) do
          parts[a] = {}
          for n, axis in ipairs(g.axes) do if axis == l then parts[a] = g.items[n][j] - group.low[n] end end
        end
        members[k] = x:slice(parts)
      end
      local kept = {}
      for a, l in ipairs(labels) do
        if a - 1 == first then kept[#kept + 1] = g.dim end
        if not cut[l] then kept[#kept + 1] = l end
      end
      x, labels = nd.stack(members, first), kept
    end
  end
  return x
end

-- The boxes' values joined along each grid dimension (in the order of its
-- groups), then each dimension's members put back in the order given.
local function assemble(values, sel, grid, all_dims)
  local dims = M.visible(sel, all_dims)
  local function axis_of(g)
    local name = g.dim or all_dims[g.axes[1]]
    for a, d in ipairs(dims) do if d == name then return a - 1 end end
  end
  local stride, x = 1, nil
  local function join(level, offset)
    if level == 0 then return values[offset + 1] end
    local g, parts = grid[level], {}
    for k = 0, #g.groups - 1 do parts[#parts + 1] = join(level - 1, offset + k * g.stride) end
    return #parts == 1 and parts[1] or nd.concat(parts, axis_of(g))
  end
  for gi = 1, #grid do grid[gi].stride = 1 end
  for gi = #grid, 1, -1 do grid[gi].stride, stride = stride, stride * #grid[gi].groups end
  x = join(#grid, 0)
  for _, g in ipairs(grid) do
    local at, order = 0, {}
    for _, group in ipairs(g.groups) do
      for _, j in ipairs(group.members) do order[j], at = at, at + 1 end
    end
    local sorted = true
    for j = 1, #order do sorted = sorted and order[j] == j - 1 end
    if not sorted then x = x:take(order, axis_of(g)) end
  end
  return x
end

-- Boxes read in one call at most (each is a batch of chunk requests), and
-- the decoded bytes (as float64) one call's boxes may hold: points spread
-- over every chunk of a year are read a few chunk columns at a time.
M.BOXES_PER_READ = 4096
M.BYTES_PER_READ = 256 << 20

-- read(array, sel, all_dims[, opts]) -> the values of a selection with lists
-- or points, in its visible order (opts: read's threads and unscale).
function M.read(array, sel, all_dims, opts)
  local grid = grid_of(sel, array.chunks)
  local boxes = boxes_of(sel, grid)
  local values, first = {}, 1
  while first <= #boxes do
    local parts, bytes, last = {}, 0, first
    repeat
      parts[#parts + 1] = boxes[last].parts
      bytes = bytes + 8 * boxes[last].size
      last = last + 1
    until last > #boxes or #parts == M.BOXES_PER_READ or bytes + 8 * boxes[last].size > M.BYTES_PER_READ
    for k, x in ipairs(array:read_boxes(parts, opts)) do
      values[first + k - 1] = pick(x, sel, grid, boxes[first + k - 1].groups)
    end
    first = last
  end
  return assemble(values, sel, grid, all_dims)
end

-- take(x, sel, all_dims): the same selection of values in memory, x of
-- every stored position (computed variables).
function M.take(x, sel, all_dims)
  local parts, chunks = {}, {}
  for i, s in ipairs(sel) do
    chunks[i] = math.huge -- one group per list: x is one box
    parts[i] = (s.list or s.points) and {} or M.slice_part(s)
  end
  x = x:slice(parts)
  local grid = grid_of(sel, chunks)
  for _, g in ipairs(grid) do
    for k in ipairs(g.axes) do g.groups[1].low[k] = 0 end
  end
  return assemble({ pick(x, sel, grid, boxes_of(sel, grid)[1].groups) }, sel, grid, all_dims)
end

return M
