-- ipfsrt.dataset.lazy: expressions over named dimensions (what ipfsrt.dataset's
-- arithmetic builds), evaluated a slab at a time: a range of positions along
-- the outermost dimension, chosen by the caller to follow the chunks, so that
-- memory holds one slab's values and the result, never a full-size temporary
-- per operation.
--
-- A node has dims (names, outermost first) and sizes (name -> length):
--   leaf(dims, sizes, load)   load(region) -> n-d array in dims order; region is
--                             nil (whole) or {dim =, start =, count =}, given only
--                             to leaves that have region.dim
--   number(x), binary(op, a, b), unary(fn, a), where(cond, x, y)
-- Operands broadcast by name: the result has the first operand's dimensions,
-- then the others' new ones, in their order; a dimension two operands share
-- must have one length in both (length 1 broadcasts only in leaves that are
-- plain n-d arrays, as numpy's rule).
local ipfsrt = require "ipfsrt"
local nd = ipfsrt.ndarray

local M = {}

local bad = require "ipfsrt.bad" ("dataset: ")

-- The dims of a, then those of b that a lacks; sizes checked to agree.
local function joined(a, b, what)
  local dims, sizes = table.move(a.dims, 1, #a.dims, 1, {}), {}
  for d, n in pairs(a.sizes) do sizes[d] = n end
  for _, d in ipairs(b.dims) do
    local n, m = sizes[d], b.sizes[d]
    if n == nil then
      dims[#dims + 1], sizes[d] = d, m
    elseif n ~= m and n ~= 1 and m ~= 1 then
      bad("%s: dimension %s has %d labels in %s and %d in %s", what, d, n, a.label, m, b.label)
    else
      sizes[d] = math.max(n, m)
    end
  end
  return dims, sizes
end

local function node(kind, dims, sizes, fields)
  fields.kind, fields.dims, fields.sizes = kind, dims, sizes
  return fields
end

-- owns(sliced): whether load's arrays are fresh ones, the evaluation's to
-- free (a variable's own values, or a caller's array, are not).
function M.leaf(dims, sizes, load, label, owns)
  return node("leaf", dims, sizes, { load = load, label = label or "an array",
    owns = owns or function() return false end })
end

function M.number(x) return node("number", {}, {}, { value = x, label = tostring(x) }) end

-- Binary ops: add sub mul div pow mod idiv, and or xor (bool), and the
-- comparisons, each here with its mirror (a number first: b's op swapped).
local COMPARISON = { lt = "gt", le = "ge", gt = "lt", ge = "le", eq = "eq", ne = "ne" }
M.COMPARISONS = COMPARISON

function M.binary(op, a, b)
  local dims, sizes = joined(a, b, op)
  return node("binary", dims, sizes, { op = op, a = a, b = b, label = a.label })
end

M.FUNCTIONS = { abs = true, sqrt = true, exp = true, log = true, sin = true, cos = true, tan = true, deg2rad = true,
  rad2deg = true, floor = true, ceil = true, round = true, isnan = true, notnull = true, neg = true, ["not"] = true }

function M.unary(fn, a)
  return node("unary", a.dims, a.sizes, { fn = fn, a = a, label = a.label })
end

function M.where(cond, x, y)
  local dims, sizes = joined(x, cond, "where")
  local both = { dims = dims, sizes = sizes, label = x.label }
  dims, sizes = joined(both, y, "where")
  return node("where", dims, sizes, { cond = cond, x = x, y = y, label = x.label })
end

-- n with each leaf replaced by map_leaf(leaf) (a leaf met twice is mapped once).
function M.rebuild(n, map_leaf, seen)
  seen = seen or {}
  if seen[n] then return seen[n] end
  local out
  if n.kind == "number" then out = n
  elseif n.kind == "leaf" then out = map_leaf(n)
  elseif n.kind == "unary" then out = M.unary(n.fn, M.rebuild(n.a, map_leaf, seen))
  elseif n.kind == "binary" then out = M.binary(n.op, M.rebuild(n.a, map_leaf, seen), M.rebuild(n.b, map_leaf, seen))
  else
    out = M.where(M.rebuild(n.cond, map_leaf, seen), M.rebuild(n.x, map_leaf, seen), M.rebuild(n.y, map_leaf, seen))
  end
  seen[n] = out
  return out
end

-- ------------------------------------------------------------ evaluation

-- x (an n-d array over dims from, or a number) as a view that broadcasts over
-- dims to: from's dimensions put in to's order, length 1 where from lacks one.
local function arranged(x, from, to)
  if type(x) == "number" or #from == 0 and #to == 0 then return x end
  local at, order, shape, moved = {}, {}, {}, false
  for i, d in ipairs(from) do at[d] = i end
  for _, d in ipairs(to) do
    if at[d] then
      order[#order + 1] = at[d] - 1
      moved = moved or at[d] ~= #order
    end
  end
  if moved then x = x:transpose(order) end
  if #from == #to then return x end
  local k = 0
  for j, d in ipairs(to) do
    if at[d] then k = k + 1; shape[j] = x.shape[k] else shape[j] = 1 end
  end
  return x:reshape(shape)
end

M.arranged = arranged

local scalar = {
  abs = math.abs, sqrt = math.sqrt, exp = math.exp, log = math.log, sin = math.sin, cos = math.cos, tan = math.tan,
  floor = math.floor, ceil = math.ceil, deg2rad = math.rad, rad2deg = math.deg, neg = function(x) return -x end,
  isnan = function(x) return x ~= x end, notnull = function(x) return x == x end,
}

local function apply_unary(fn, x)
  if type(x) == "number" then return scalar[fn](x) end
  if fn == "neg" then return -x end
  if fn == "not" then return ~x end
  if fn == "notnull" then return ~x:isnan() end
  if fn == "round" then return x:round(0) end
  return x[fn](x)
end

local arith = {
  add = function(x, y) return x + y end, sub = function(x, y) return x - y end,
  mul = function(x, y) return x * y end, div = function(x, y) return x / y end,
  pow = function(x, y) return x ^ y end, mod = function(x, y) return x % y end,
  idiv = function(x, y) return x // y end,
  ["and"] = function(x, y) return x & y end, ["or"] = function(x, y) return x | y end,
  xor = function(x, y) return x ~ y end,
}

local function apply_binary(op, x, y)
  if arith[op] then return arith[op](x, y) end
  if type(x) == "number" and type(y) == "number" then
    return ({ lt = x < y, le = x <= y, gt = x > y, ge = x >= y, eq = x == y, ne = x ~= y })[op]
  end
  if type(x) == "number" then return y[COMPARISON[op]](y, x) end
  return x[op](x, y)
end

-- The value of n over region (memo: what this slab computed, and fixed: what
-- lacks the region's dimension, computed once for every slab). Arrays made
-- here are listed (owned) to be released as soon as they are used up: held
-- until Lua's collector came by, each slab's would take fresh memory.
local function value(n, region, memo)
  local sliced = region and n.sizes[region.dim]
  local key = sliced and memo.slab or memo.fixed
  local got = key[n]
  if got ~= nil then return got end
  local streamed = memo.streamed and memo.streamed[n]
  local ours = n.kind ~= "leaf" or streamed ~= nil or n.owns(sliced)
  if n.kind == "number" then got = n.value
  elseif streamed then got = streamed
  elseif n.kind == "leaf" then got = n.load(sliced and region or nil)
  elseif n.kind == "unary" then got = apply_unary(n.fn, value(n.a, region, memo))
  elseif n.kind == "binary" then
    got = apply_binary(n.op, arranged(value(n.a, region, memo), n.a.dims, n.dims),
      arranged(value(n.b, region, memo), n.b.dims, n.dims))
  else
    local c = arranged(value(n.cond, region, memo), n.cond.dims, n.dims)
    if type(c) ~= "userdata" then c = nd.full({}, c and 1 or 0, "bool") end
    local x, y = arranged(value(n.x, region, memo), n.x.dims, n.dims), arranged(value(n.y, region, memo), n.y.dims, n.dims)
    if type(x) == "number" and type(y) == "number" then x = nd.full({}, x, "float64") end
    got = nd.where(c, x, y)
  end
  key[n] = got
  if ours and type(got) == "userdata" then
    local list = sliced and memo.owned_slab or memo.owned
    list[#list + 1] = got
  end
  return got
end

-- Frees an n-d array's buffer now, not when Lua's collector comes by.
local function free(x) getmetatable(x).__close(x) end

-- Frees the arrays of list now (they are not used again).
local function release(list)
  for i = #list, 1, -1 do
    free(list[i])
    list[i] = nil
  end
end

-- The values of the nodes over region (nil: everything), as n-d arrays in
-- their dims order (numbers stay numbers).
function M.evaluate(nodes, region, memo)
  release(memo.owned_slab) -- the previous slab's
  memo.slab = {}
  local out = {}
  for i, n in ipairs(nodes) do out[i] = value(n, region, memo) end
  memo.slab = nil
  return out
end

function M.new_memo() return { fixed = {}, owned = {}, owned_slab = {} } end

-- x, taken out of what memo frees (nil when memo did not make it).
function M.keep(memo, x)
  for _, list in ipairs { memo.owned_slab, memo.owned } do
    for i, y in ipairs(list) do
      if y == x then return table.remove(list, i) end
    end
  end
  return nil
end

-- Frees what evaluations with memo made (their results included: the caller
-- copied what it keeps).
function M.done(memo)
  release(memo.owned_slab)
  release(memo.owned)
end

-- ---------------------------------------------------------- slab drivers

local OPERANDS = { "a", "b", "cond", "x", "y" }

-- The leaves of nodes that have dimension dim, each once.
local function sliced_leaves(nodes, dim, out, seen)
  out, seen = out or {}, seen or {}
  for _, n in ipairs(nodes) do
    if not seen[n] and n.sizes[dim] then
      seen[n] = true
      if n.kind == "leaf" then out[#out + 1] = n end
      for _, k in ipairs(OPERANDS) do
        if n[k] then sliced_leaves({ n[k] }, dim, out, seen) end
      end
    end
  end
  return out
end

-- The one leaf of nodes read in slabs (leaf.stream), when the others with
-- dim are plain arrays: slabs of it then come from one read (nothing else
-- may read while it goes on).
local function stream_leaf(nodes, regions)
  if not regions[1] then return nil end
  local found
  for _, leaf in ipairs(sliced_leaves(nodes, regions[1].dim)) do
    if leaf.stream and not found then found = leaf
    elseif not leaf.array then return nil end
  end
  return found and found.streams(regions) and found or nil
end

-- Values of the nodes' parts without dim (computed once, before a read in
-- slabs starts: they may read).
local function fix(nodes, region, memo)
  for _, n in ipairs(nodes) do
    if not n.sizes[region.dim] then value(n, region, memo)
    else
      for _, k in ipairs(OPERANDS) do if n[k] then fix({ n[k] }, region, memo) end end
    end
  end
end

-- fn(region, values) for each of regions in turn, values the nodes' over it
-- (M.evaluate). When one stored variable has the slab dimension, it is read
-- once, in slabs, and each slab evaluated as it arrives while the next ones
-- are read: reading and computing overlap, and a gateway sees one stream of
-- requests instead of a round trip per slab.
function M.each_slab(nodes, regions, memo, fn)
  local leaf = stream_leaf(nodes, regions)
  if not leaf then
    for _, region in ipairs(regions) do fn(region or nil, M.evaluate(nodes, region or nil, memo)) end
    return
  end
  fix(nodes, regions[1], memo)
  memo.streamed = {}
  leaf.stream(regions, function(region, slab)
    memo.streamed[leaf] = slab
    fn(region, M.evaluate(nodes, region, memo))
  end)
  memo.streamed = nil
end

-- The shape of node n (in its dims order).
local function shape_of(n)
  local shape = {}
  for i, d in ipairs(n.dims) do shape[i] = n.sizes[d] end
  return shape
end
M.shape_of = shape_of

-- out[region] = x, along axis (from 0) of out: x broadcast to the slab.
local function put(out, axis, region, x)
  local parts = {}
  for i = 1, axis do parts[i] = {} end
  parts[axis + 1] = { region.start, region.start + region.count }
  out:slice(parts):assign(x)
end

-- The full values of n, slab by slab (regions: a list of {dim =, start =,
-- count =} along n's first dimension, or {false} for one evaluation).
function M.values(n, regions)
  local memo, out = M.new_memo(), nil
  M.each_slab({ n }, regions, memo, function(region, values)
    local x = values[1]
    if type(x) == "number" then x = nd.full({}, x, math.type(x) == "integer" and "int64" or "float64") end
    if not region then
      out = M.keep(memo, x) or x:copy() -- (a view of a leaf's values, if not made here)
      return
    end
    out = out or nd.empty(shape_of(n), x.dtype)
    put(out, 0, region, x)
  end)
  M.done(memo)
  return out
end

-- Weighted sums of node x by node w over axes (positions in x's dims: its
-- last ones), slab by slab through the n-d array's weighted_sums (one pass,
-- no product arrays; the bits of summing where(isnan(x), 0, x * w) and
-- where(isnan(x), 0, w)): num, den. nil when that does not apply: w has
-- dimensions x lacks or varies along kept ones, the axes are not x's last,
-- nothing is kept, or the values are not floats.
function M.weighted_sums(x, w, axes, regions)
  local n, k = #x.dims, #axes
  if k == 0 or k >= n or w.kind == "number" then return nil end
  local last = {}
  for _, a in ipairs(axes) do last[a] = true end
  for a = n - k, n - 1 do if not last[a] then return nil end end
  for _, d in ipairs(w.dims) do if not x.sizes[d] then return nil end end
  for i = 1, n - k do if (w.sizes[x.dims[i]] or 1) > 1 then return nil end end
  local memo, num, den, floats = M.new_memo(), nil, nil, true
  local kept = table.move(shape_of(x), 1, n - k, 1, {})
  M.each_slab({ x, w }, regions, memo, function(region, values)
    local xv, wv = values[1], arranged(values[2], w.dims, x.dims)
    floats = floats and xv.dtype:match("^float") and wv.dtype:match("^float") ~= nil
    if not floats then return end
    local a, b = nd.weighted_sums(xv, wv, k)
    if not region then
      num, den = a, b
    else
      num, den = num or nd.empty(kept, a.dtype), den or nd.empty(kept, b.dtype)
      put(num, 0, region, a)
      put(den, 0, region, b)
      free(a)
      free(b)
    end
  end)
  M.done(memo)
  if not floats then return nil end
  return num, den
end

-- Reductions of nodes (one dims list for all) over axes (from 0; nil: all),
-- opts.skipna. Along the slab dimension sums, counts, means and extremes
-- accumulate row after row into one array as the n-d array's own reduction
-- does (so the result is the same to the bit); other reductions along it, and
-- reductions over everything, are taken from the full values.
local ACCUMULATED = { sum = true, count = true, mean = true, min = true, max = true }

local function reduce_whole(x, op, axes, skipna)
  local o = { skipna = skipna }
  if axes == nil then return x[op](x, o) end
  return x[op](x, #axes == 1 and axes[1] or axes, o)
end

-- Per slab, the kept dimensions' slab written into each result.
local function per_slab(nodes, op, axes, regions, skipna)
  local memo, outs = M.new_memo(), {}
  M.each_slab(nodes, regions, memo, function(region, values)
    for i, x in ipairs(values) do
      local r = reduce_whole(x, op, axes, skipna)
      if not outs[i] then
        local shape = {}
        for j, d in ipairs(nodes[i].dims) do
          local gone = false
          for _, a in ipairs(axes) do gone = gone or a == j - 1 end
          if not gone then shape[#shape + 1] = nodes[i].sizes[d] end
        end
        outs[i] = nd.zeros(shape, r.dtype)
      end
      put(outs[i], 0, region, r)
      free(r)
    end
  end)
  M.done(memo)
  return outs
end

-- Running totals of rows along axis 0: a slab's rows folded in turn into
-- one total per result as the reduction of all the rows folds them (n-d
-- array accumulate: in place, the same bits), counts beside when needed.
-- fold(t, x) folds x's rows; finish(t) -> the result.
function M.running(op, skipna)
  local how = (op == "min" or op == "max") and op or "sum"
  local t = { rows = 0 }
  function t.fold(x)
    if not t.total then
      local shape = table.move(x.shape, 2, #x.shape, 1, {})
      local float = x.dtype:match("^float") ~= nil
      local sum_type = float and x.dtype or (x.dtype:match("^int") and "int64" or "uint64")
      t.total = nd.zeros(shape, how == "sum" and sum_type or x.dtype)
      t.count, t.float, t.first = nd.zeros(shape, "int64"), float, true
    end
    t.total:accumulate(x, { how = how, skipna = skipna, count = t.count, first = t.first })
    t.first, t.rows = false, t.rows + x.shape[1]
  end
  function t.finish()
    if op == "count" then return t.count end
    if op ~= "mean" then return t.total end
    if t.total.dtype == "float32" and not skipna then return t.total / t.rows end -- numpy divides in float32
    local n = (skipna and t.float) and t.count or t.rows -- NaN left out only when skipped
    return (t.total:astype("float64") / n):astype(t.total.dtype == "float32" and "float32" or "float64")
  end
  return t
end

-- Along the slab dimension (axis 0): every slab's rows folded into running totals.
local function accumulated(nodes, op, regions, skipna)
  local memo, totals = M.new_memo(), {}
  M.each_slab(nodes, regions, memo, function(_, values)
    for i, x in ipairs(values) do
      totals[i] = totals[i] or M.running(op, skipna)
      totals[i].fold(x)
    end
  end)
  M.done(memo)
  for i, t in ipairs(totals) do totals[i] = t.finish() end
  return totals
end

function M.reduce(nodes, op, axes, regions, skipna)
  local sliced = regions[1] ~= false
  local along = false
  for _, a in ipairs(axes or {}) do along = along or a == 0 end
  if sliced and axes and not along then return per_slab(nodes, op, axes, regions, skipna) end
  if sliced and axes and #axes == 1 and ACCUMULATED[op] then return accumulated(nodes, op, regions, skipna) end
  local outs = {}
  for i, n in ipairs(nodes) do
    local x = M.values(n, regions)
    outs[i] = reduce_whole(x, op, axes, skipna)
    free(x)
  end
  return outs
end

return M
