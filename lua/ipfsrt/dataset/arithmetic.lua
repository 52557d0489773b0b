-- ipfsrt.dataset.arithmetic: lazy dataset variables: arithmetic, comparisons,
-- elementwise functions and where build an expression (ipfsrt.dataset.lazy) that
-- nothing reads until values() or a reduction; then it is evaluated a slab at
-- a time along its first dimension, slabs following the chunks of its
-- largest stored operand. Operands broadcast by dimension name; labels that
-- differ are aligned as xarray's inner join. Also the reductions of
-- expressions, weighted ones among them. Its methods (X.methods) join the
-- Variable class in ipfsrt.dataset; the reductions (ipfsrt.dataset.reduce)
-- ask X.weighted and X.lazy_reduced.
local ipfsrt = require "ipfsrt"
local lazy = require "ipfsrt.dataset.lazy"
local V = require "ipfsrt.dataset.variable"
local gather = require "ipfsrt.dataset.gather"
local weighted_fold = require "ipfsrt.dataset.weighted_fold"
local nd = ipfsrt.ndarray

local X = {}
local bad = require "ipfsrt.bad" ("dataset: ")

-- ------------------------------------------------------------ arithmetic

local is_variable = V.is

-- The methods this module gives the Variable class.
local methods = {}

-- The sizes of v's dimensions by name.
local function sizes_of(v)
  local sizes = {}
  for i, d in ipairs(v.dims) do sizes[d] = v.shape[i] end
  return sizes
end

-- A plain n-d array as an operand over dims (a dimension of length 1
-- broadcasts: slabs leave it whole).
local function array_leaf(x, dims)
  local sizes = {}
  for i, d in ipairs(dims) do sizes[d] = x.shape[i] end
  local n = lazy.leaf(dims, sizes, function(region)
    for i, d in ipairs(dims) do
      if region and d == region.dim and x.shape[i] > 1 then
        local parts = {}
        for k = 1, i - 1 do parts[k] = {} end
        parts[i] = { region.start, region.start + region.count }
        return x:slice(parts)
      end
    end
    return x
  end, "an n-d array")
  n.array = x
  return n
end

-- Runs of adjacent regions (each run one read in slabs).
local function runs_of(regions)
  local runs, run = {}, nil
  for _, r in ipairs(regions) do
    if run and run[#run].start + run[#run].count == r.start then
      run[#run + 1] = r
    else
      run = { r }
      runs[#runs + 1] = run
    end
  end
  return runs
end

-- What a stored variable's slabs along its first dimension are read from:
-- the source, the array dimension and its selection; nil when its values
-- need more than a read (a view as the other signedness) or it runs backwards.
local function slab_source(x)
  local cf = V.array(x) and V.cf(x)
  if not V.array(x) or (cf and cf.view) then return nil end
  local src, kept = x:source(), 0
  for i, s in ipairs(src.selection) do
    if not s.index then kept = kept + 1 end
    if kept == 1 and not s.index then
      return s.step == 1 and { src = src, axis = i, part = s } or nil
    end
  end
  return nil
end

-- Whether x's slabs at regions can come from reads in slabs: each slab of a
-- run ends at a boundary of the chunks.
local function streams(x, regions)
  local from = slab_source(x)
  if not from or regions[1].dim ~= x.dims[1] then return false end
  local chunk = V.array(x).chunks[from.axis]
  for _, run in ipairs(runs_of(regions)) do
    for k = 1, #run - 1 do
      if (from.part.start + run[k].start + run[k].count) % chunk ~= 0 then return false end
    end
  end
  return true
end

-- fn(region, values) for every region, a read in slabs per run of them.
local function stream(x, regions, fn)
  local from = slab_source(x)
  local cf, parts = from.src.cf, {}
  for i, s in ipairs(from.src.selection) do parts[i] = gather.slice_part(s) end
  local opts = cf and { unscale = { dtype = cf.type, fills = cf.fills, scale = cf.scale, offset = cf.offset } }
  for _, run in ipairs(runs_of(regions)) do
    local first, ends, at = run[1].start, {}, {}
    for k, r in ipairs(run) do ends[k], at[r.start - first] = r.start + r.count - first, r end
    local start = from.part.start + first
    parts[from.axis] = { start, start + ends[#ends] }
    from.src.array:read_slabs(parts, ends, function(s, _, slab) fn(at[s], slab) end, opts)
  end
end

-- Each stored or computed variable's expression leaf, made once: an
-- expression naming the variable twice reads it once.
local leaves = setmetatable({}, { __mode = "k" })

-- The expression node of an operand (like: the other operand's node, whose
-- last dimensions a plain n-d array takes, as numpy aligns shapes).
local function node_of(x, like)
  if type(x) == "number" then return lazy.number(x) end
  if is_variable(x) then
    if V.expression(x) then return V.expression(x) end
    local n = leaves[x]
    if not n then
      n = lazy.leaf(x.dims, sizes_of(x), function(region)
        if not region then return x:_values_array() end
        return x:isel({ [region.dim] = { region.start, region.start + region.count } }):_values_array()
      end, x.name, function(sliced) return sliced or V.array(x) ~= nil end) -- reads, or views
      n.var = x
      n.streams = function(regions) return streams(x, regions) end
      n.stream = function(regions, fn) stream(x, regions, fn) end
      leaves[x] = n
    end
    return n
  end
  if nd.isarray(x) then
    local dims, have = {}, like and like.dims or {}
    if x.ndim > #have then bad("an n-d array of %d dimensions beside %s of %d: name them (a variable)", x.ndim,
      like and like.label or "a number", #have) end
    for i = 1, x.ndim do dims[i] = have[#have - x.ndim + i] end
    return array_leaf(x, dims)
  end
  bad("arithmetic takes variables, numbers and n-d arrays, not %s", type(x) == "table" and "a table" or type(x))
end

-- The coordinates of both operands (dim -> coordinate variable), b's where a
-- has none for a dimension.
local function joined_coords(a, b)
  local out = {}
  for d, c in pairs(is_variable(b) and b:_coords() or {}) do out[d] = c end
  for d, c in pairs(is_variable(a) and a:_coords() or {}) do out[d] = c end
  return out
end

-- Positions as an isel range, or nil when they are not evenly spaced.
local function as_range(positions)
  local first, step = positions[1], (positions[2] or positions[1] + 1) - positions[1]
  if step == 0 then return nil end
  for j, p in ipairs(positions) do if p ~= first + (j - 1) * step then return nil end end
  local stop = first + #positions * step
  return { first, (step < 0 and stop < 0) and nil or stop, step }
end

-- Where a and b both have labels along a dimension and they differ, both are
-- selected to the labels they share, as xarray's inner join (a box of sst
-- times weights over every latitude: the box's latitudes); sharing none, or
-- in orders no selection can give, is an error naming both.
local function aligned(a, b)
  if not (is_variable(a) and is_variable(b)) then return a, b end
  local ca, cb = a:_coords(), b:_coords()
  local pa, pb = {}, {}
  for d, c in pairs(ca) do
    local other = cb[d]
    if other and other ~= c then
      local x, y, at = V.labels_of(c), V.labels_of(other), {}
      for j, label in ipairs(y) do at[label] = at[label] or j - 1 end
      local ia, ib = {}, {}
      for j, label in ipairs(x) do
        if at[label] then ia[#ia + 1], ib[#ib + 1] = j - 1, at[label] end
      end
      local same = #ia == #x and #ib == #y
      for j = 1, #ia do same = same and ia[j] == ib[j] end
      if not same then
        local ra, rb = #ia > 0 and as_range(ia), #ib > 0 and as_range(ib)
        if not (ra and rb) then
          bad("%s and %s: their %s labels %s", a.name, b.name, d, #ia == 0 and "have none in common" or
            "cannot be matched by a selection (select the same ones first)")
        end
        pa[d], pb[d] = ra, rb
      end
    end
  end
  if next(pa) then a, b = a:isel(pa), b:isel(pb) end
  return a, b
end

local function dataset_of(a, b) return (is_variable(a) and V.dataset(a)) or (is_variable(b) and V.dataset(b)) or nil end

-- The coordinates off the dimensions (scalar ones a selection left, those
-- along points) of the operands whose dimensions the result has: the
-- first's where both have one of a name.
local function joined_aux(dims, ...)
  local out = {}
  for i = select("#", ...), 1, -1 do
    local x = select(i, ...)
    if is_variable(x) then
      for name, c in pairs(V.kept_aux(x, dims)) do out[name] = c end
    end
  end
  return out
end

-- A variable of the expression n: its coordinates along dimensions, and
-- those off them the operands (variables among ...) carry.
local function lazy_variable(ds, n, coords, name, ...)
  return V.lazy(ds, n, coords, name, joined_aux(n.dims, ...))
end

local function combined(op, a, b)
  a, b = aligned(a, b)
  local an = node_of(a, is_variable(b) and node_of(b) or nil)
  local bn = node_of(b, an)
  local n = lazy.binary(op, an, bn)
  return lazy_variable(dataset_of(a, b), n, joined_coords(a, b), nil, a, b)
end

for op, mm in pairs { add = "__add", sub = "__sub", mul = "__mul", div = "__div", pow = "__pow", mod = "__mod",
  idiv = "__idiv", ["and"] = "__band", ["or"] = "__bor", xor = "__bxor" } do
  methods[mm] = function(a, b) return combined(op, a, b) end
end
methods.__unm = function(v) return lazy_variable(V.dataset(v), lazy.unary("neg", node_of(v)), v:_coords(), nil, v) end
methods.__bnot = function(v) return lazy_variable(V.dataset(v), lazy.unary("not", node_of(v)), v:_coords(), nil, v) end

-- v:lt(x), le, gt, ge, eq, ne: comparisons as bool variables (Lua's < cannot
-- give a variable), x a variable, a number or an n-d array.
for op in pairs(lazy.COMPARISONS) do
  methods[op] = function(v, x) return combined(op, v, x) end
end

-- v:abs(), sqrt, exp, log, sin, cos, tan, deg2rad, rad2deg, floor, ceil,
-- round (half to even), isnan, notnull: elementwise, lazy.
for fn in pairs(lazy.FUNCTIONS) do
  if fn ~= "neg" and fn ~= "not" then
    methods[fn] = function(v)
      return lazy_variable(V.dataset(v), lazy.unary(fn, node_of(v)), v:_coords(), v.name, v)
    end
  end
end
methods.isnull = methods.isnan

-- v:where(cond[, other]): v where cond holds, else other (default NaN), as
-- xarray's; the result has v's dimensions, then cond's and other's new ones.
function methods.where(v, cond, other)
  if other == nil then other = 0 / 0 end
  return X.where(cond, v, other)
end

-- v:fillna(value): missing values (NaN) replaced.
function methods.fillna(v, value) return v:where(v:notnull(), value) end

-- dataset.where(cond, x, y): x where cond holds, else y (xarray.where).
function X.where(cond, x, y)
  if not is_variable(cond) then bad("where: the condition is a variable") end
  x, cond = aligned(x, cond)
  y, cond = aligned(y, cond)
  x, cond = aligned(x, cond) -- cond may have lost labels x still has
  local c = node_of(cond)
  local xn = node_of(x, c)
  local yn = node_of(y, xn)
  local coords = joined_coords(x, cond)
  for d, cv in pairs(joined_coords(y, cond)) do coords[d] = coords[d] or cv end
  local first = is_variable(x) and x or cond
  return lazy_variable(V.dataset(first), lazy.where(c, xn, yn), coords, first.name, x, cond, y)
end

-- The stored variables an expression reads.
local function stored_leaves(n, out)
  out = out or {}
  if n.kind == "leaf" then
    if n.var and V.array(n.var) then out[#out + 1] = n.var end
  else
    for _, k in ipairs { "a", "b", "cond", "x", "y" } do if n[k] then stored_leaves(n[k], out) end end
  end
  return out
end

-- The slabs an expression is evaluated in: {false} (at once) when small, else
-- ranges along its first dimension of about SLAB_BYTES, cut at the chunk
-- boundaries of its largest stored operand with that dimension.
function X.slabs(n)
  local dim = n.dims[1]
  local per, total = 8, 1
  for i, d in ipairs(n.dims) do
    total = total * n.sizes[d]
    if i > 1 then per = per * n.sizes[d] end
  end
  -- a variable read alone makes no temporaries: slabs four times the size,
  -- a quarter of the round trips (none where it is read in slabs: one read)
  local budget = (n.kind == "leaf" and not n.stream) and 4 * V.tuning.SLAB_BYTES or V.tuning.SLAB_BYTES
  if not dim or total * 8 <= budget then return { false } end
  local len, first, chunk, biggest = math.max(1, budget // per), 0, nil, 0
  for _, v in ipairs(stored_leaves(n)) do
    local i, j = nil, 0
    for k, s in ipairs(V.selection(v)) do
      if not s.index then j = j + 1 end
      if not s.index and v.dims[j] == dim then i = k end
    end
    local size = 1
    for _, m in ipairs(v.shape) do size = size * m end
    if i and V.selection(v)[i].step == 1 and size > biggest then
      biggest, chunk, first = size, V.array(v).chunks[i], V.selection(v)[i].start
    end
  end
  if chunk then len = math.max(chunk, len - len % chunk) end
  local regions, p, count = {}, 0, n.sizes[dim]
  while p < count do
    local e = p + len
    if chunk and e - (first + e) % chunk > p then e = e - (first + e) % chunk end
    e = math.min(e, count)
    regions[#regions + 1] = { dim = dim, start = p, count = e - p }
    p = e
  end
  return regions
end

-- A plain n-d array operand selected by position (a dimension of length 1
-- stays whole: it broadcasts).
local function array_isel(leaf, spec)
  local parts, kept = {}, {}
  for i, d in ipairs(leaf.dims) do
    local n, part = leaf.array.shape[i], spec[d]
    local r = part ~= nil and n > 1 and V.resolve(part, n, d) or nil
    if part ~= nil and n == 1 and math.type(part) == "integer" then r = { index = 0 } end
    parts[i] = r and gather.slice_part(r) or {}
    if not (r and r.index) then kept[#kept + 1] = d end
  end
  return array_leaf(leaf.array:slice(parts), kept)
end

-- The expression with every operand selected by position (isel's spec, each
-- operand taking the parts along its own dimensions).
function methods._rebuilt(v, spec)
  local n = lazy.rebuild(V.expression(v), function(leaf)
    if leaf.isel then return leaf.isel(spec) end
    if leaf.array then return array_isel(leaf, spec) end
    local mine = {}
    for k, want in pairs(spec) do
      for _, d in ipairs(leaf.var.dims) do if d == k then mine[k] = want end end
    end
    return node_of(leaf.var:isel(mine))
  end)
  local coords, aux = {}, {}
  for d, c in pairs(v:_coords()) do
    local part = spec[d]
    if part == nil then coords[d] = c
    elseif math.type(part) == "integer" then aux[d] = c:isel { [d] = part } -- kept as a scalar coordinate
    else coords[d] = c:isel { [d] = part } end
  end
  local carried = joined_aux(n.dims, v)
  for name, c in pairs(aux) do carried[name] = c end
  return V.lazy(V.dataset(v), n, coords, v.name, carried)
end

-- ------------------------------------------------------------- reductions

local REDUCE_OPTIONS = { skipna = true, weights = true }

local function check_reduce_options(op, opts)
  if opts == nil then return {} end
  if type(opts) ~= "table" then bad("%s: options are a table ({skipna =, weights =})", op) end
  for k in pairs(opts) do
    if not REDUCE_OPTIONS[k] then bad("%s: no option %s (options: skipna, weights)", op, tostring(k)) end
  end
  return opts
end

-- The positions (from 0) of dims in node n's dimensions.
local function node_axes(n, dims, label)
  if dims == nil then return nil end
  if type(dims) == "string" then dims = { dims } end
  local axes = {}
  for _, name in ipairs(dims) do
    local at
    for i, d in ipairs(n.dims) do if d == name then at = i - 1 end end
    if not at then bad("%s has no dimension %s (dimensions: %s)", label, tostring(name), table.concat(n.dims, ", ")) end
    axes[#axes + 1] = at
  end
  return axes
end

-- The variable (or number, over everything) of r, node n reduced along axes.
local function node_result(v, n, axes, r, coords)
  if not axes or #axes == #n.dims then return type(r) == "userdata" and r.ndim == 0 and r:get() or r end
  local left, kept = {}, {}
  for i, d in ipairs(n.dims) do
    local gone = false
    for _, a in ipairs(axes) do gone = gone or a == i - 1 end
    if not gone then left[#left + 1] = d; kept[d] = coords[d] end
  end
  return V.computed(V.dataset(v), v.name, left, r, {}, kept, joined_aux(left, v))
end

-- Weighted sums and means, as xarray's weighted: missing values of v are left
-- out of both the sum of values times weights and the sum of the weights (a
-- mean with no weight is NaN); the weights may not be missing.
local function weighted(v, op, dims, w)
  if op ~= "sum" and op ~= "mean" then bad("%s: weights take sum and mean", op) end
  v, w = aligned(v, w)
  local wv = is_variable(w) and w or nil
  local x = node_of(v)
  local wn = node_of(w, x)
  local ws = lazy.values(wn, { false })
  if type(ws) ~= "number" and ws.dtype:match("^float") and ws:count() < ws:reshape({ -1 }).shape[1] then
    bad("%s: the weights have missing values (fill them first)", op)
  end
  if type(ws) ~= "number" then -- computed once, not again per slab
    local label = wn.label
    wn = array_leaf(ws, wn.dims)
    wn.label = label
  end
  local missing, zero = lazy.unary("isnan", x), lazy.number(0)
  local num = lazy.where(missing, zero, lazy.binary("mul", x, wn))
  local den = lazy.where(missing, zero, wn)
  local axes = node_axes(num, dims, v.name)
  local coords = joined_coords(v, wv)
  local fs, fw, dtype = nil, nil, nil
  if not X.generic_weights and type(ws) ~= "number" then fs, fw, dtype = weighted_fold.sums(v, axes, ws, wn.dims) end
  if fs then -- folded as the chunks are decoded
    local r = op == "sum" and fs or nd.where(fw:ne(0), fs / fw, 0 / 0)
    return node_result(v, num, axes, r:astype(dtype), coords)
  end
  local r = X.generic_weights and {} or { lazy.weighted_sums(x, wn, axes, X.slabs(x)) } -- one pass, if it applies
  if not r[1] then r = lazy.reduce({ num, den }, "sum", axes, X.slabs(num), false) end
  if op == "sum" then return node_result(v, num, axes, r[1], coords) end
  local s, sw = r[1], r[2]
  if type(s) == "number" then return sw ~= 0 and s / sw or 0 / 0 end
  return node_result(v, num, axes, nd.where(sw:ne(0), s / sw, 0 / 0), coords)
end

-- Reductions of expressions, slab by slab (see ipfsrt.dataset.lazy.reduce).
local function lazy_reduced(v, op, dims, skipna)
  local n = node_of(v)
  local axes = node_axes(n, dims, v.name)
  local r = lazy.reduce({ n }, op, axes, X.slabs(n), skipna)[1]
  return node_result(v, n, axes, r, v:_coords())
end


-- true: weighted sums always through the general expression (tests compare
-- it with the one-pass kernel, bit for bit).
X.generic_weights = false

-- v:_evaluate(): an expression's values, evaluated in slabs.
function methods._evaluate(v)
  local n = V.expression(v)
  return lazy.values(n, X.slabs(n))
end

X.methods, X.node_of, X.weighted, X.lazy_reduced = methods, node_of, weighted, lazy_reduced
X.check_reduce_options, X.lazy_variable = check_reduce_options, lazy_variable

return X
