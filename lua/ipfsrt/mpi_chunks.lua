-- mpi.map_chunks(selection, fn, op[, opts]): the chunks a selection touches,
-- spread over the ranks. Rank 0 plans once (the chunks' keys, their sizes
-- from the store's listings, each chunk folder listed once, and from a
-- content-addressed store their CIDs) and sends the plan to all. Each rank
-- tells its store the CIDs of its chunks (its reads then go to them straight,
-- without walking the directories again), takes a contiguous run of chunks
-- holding about its share of the bytes, reads it as a few rectangular
-- selections (so its chunks are fetched together, verified and decoded on its
-- threads, at most PIECE_BYTES decoded at once), folds fn over its chunks in
-- order, and the partial results are combined with op across the ranks.
local ipfsrt = require "ipfsrt"

local nd = ipfsrt.ndarray
local M = {}

local PIECE_BYTES = 256 << 20
local CHUNKS_MAX = 10000000
local REQUEST_WEIGHT = 8

local bad = require "ipfsrt.bad" ("mpi.map_chunks: ")

-- A Zarr selection (an index, or {start, stop[, step]} per dimension; nil:
-- all) as {index =} or {start =, count =, step =} per dimension.
local function normalized(array, sel)
  local out = {}
  for d, n in ipairs(array.shape) do
    local s = sel and sel[d]
    if math.type(s) == "integer" then
      local i = s < 0 and s + n or s
      if i < 0 or i >= n then bad("index %d is outside dimension %d (%d long)", s, d, n) end
      out[d] = { index = i }
    elseif s == nil then
      out[d] = { start = 0, count = n, step = 1 }
    elseif type(s) == "table" then
      local step = s[3] or 1
      if math.type(step) ~= "integer" or step < 1 then bad("dimension %d: steps are whole numbers > 0", d) end
      local a, b = s[1] or 0, s[2] or n
      a, b = math.max(0, math.min(n, a < 0 and a + n or a)), math.max(0, math.min(n, b < 0 and b + n or b))
      out[d] = { start = a, count = b > a and (b - a + step - 1) // step or 0, step = step }
    else
      bad("dimension %d: an index, {start, stop[, step]} or nil", d)
    end
  end
  return out
end

-- What to read: a dataset variable (its selection and CF decoding), a Zarr
-- array, or {array =, selection =}.
local function source_of(x)
  if type(x) == "table" and type(x.source) == "function" then
    local s = x:source()
    for _, p in ipairs(s.selection) do
      if not p.index and p.step < 1 then bad("selections with negative steps are not split") end
    end
    return s.array, s.selection, s.cf
  end
  local array, sel = x, nil
  if type(x) == "table" and x.array ~= nil then array, sel = x.array, x.selection end
  if type(array) ~= "table" or type(array.chunk_key) ~= "function" then
    bad("the selection is a dataset variable, a Zarr array or {array =, selection =}")
  end
  return array, normalized(array, sel), nil
end

-- The chunks one dimension's selection touches, and which selected
-- positions [j0, j1) each holds.
local function dim_parts(s, chunk)
  if s.index then return { { chunk = s.index // chunk, j0 = 0, j1 = 1 } } end
  local parts, j = {}, 0
  while j < s.count do
    local c = (s.start + j * s.step) // chunk
    local j1 = math.min(s.count, ((c + 1) * chunk - s.start + s.step - 1) // s.step)
    parts[#parts + 1] = { chunk = c, j0 = j, j1 = j1 }
    j = j1
  end
  return parts
end

-- Chunk k (0-based, row-major over the dimensions' parts): its part per dimension.
local function odometer(dims, k)
  local pos = {}
  for d = #dims, 1, -1 do
    pos[d] = k % #dims[d]
    k = k // #dims[d]
  end
  return pos
end

-- Rank 0's plan: the parts per dimension, every chunk's key, stored bytes and
-- CID (false where the store has none).
local function make_plan(array, sel)
  local dims, total = {}, 1
  for d, s in ipairs(sel) do
    dims[d] = dim_parts(s, array.chunks[d])
    total = total * #dims[d]
    if total > CHUNKS_MAX then bad("more than %d chunks", CHUNKS_MAX) end
  end
  local keys = {}
  for k = 1, total do
    local index = {}
    for d, p in ipairs(odometer(dims, k - 1)) do index[d] = dims[d][p + 1].chunk end
    keys[k] = array:chunk_key(table.unpack(index))
  end
  local listed, sizes, cids = pcall(array.stored_sizes, array, keys)
  local bytes, cid = {}, {}
  for k, key in ipairs(keys) do
    bytes[k] = listed and sizes and sizes[key] or -1
    cid[k] = listed and cids and cids[key] or false
  end
  return { dims = dims, keys = keys, bytes = bytes, cids = cid, total = total }
end

-- The rectangles (per dimension a range [lo, hi) of parts) that make up
-- chunks [a, b) of the row-major order: at most 2 per dimension.
local function rectangles(sizes, a, b, d, lo, hi, out)
  if a >= b then return out end
  local block = 1
  for e = d + 1, #sizes do block = block * sizes[e] end
  local function with(l, h)
    local rl, rh = table.move(lo, 1, #lo, 1, {}), table.move(hi, 1, #hi, 1, {})
    rl[d], rh[d] = l, h
    return rl, rh
  end
  if a % block == 0 and b % block == 0 then -- whole rows along d
    local rl, rh = with(a // block, b // block)
    for e = d + 1, #sizes do rl[e], rh[e] = 0, sizes[e] end
    out[#out + 1] = { lo = rl, hi = rh }
    return out
  end
  local first, last = a // block, (b - 1) // block
  if first == last then
    local rl, rh = with(first, first + 1)
    return rectangles(sizes, a - first * block, b - first * block, d + 1, rl, rh, out)
  end
  rectangles(sizes, a, (first + 1) * block, d, lo, hi, out)
  rectangles(sizes, (first + 1) * block, last * block, d, lo, hi, out)
  return rectangles(sizes, last * block, b, d, lo, hi, out)
end

-- Positions a rectangle covers per dimension, and the bytes it decodes to.
local function extent(dims, r, d) return dims[d][r.hi[d]].j1 - dims[d][r.lo[d] + 1].j0 end

local function decoded_bytes(dims, r, itemsize)
  local n = itemsize
  for d = 1, #dims do n = n * extent(dims, r, d) end
  return n
end

-- Rectangles cut along their first dimension of several parts until each
-- decodes to at most PIECE_BYTES (one part at least).
local function pieces(dims, rects, itemsize)
  local out = {}
  for _, r in ipairs(rects) do
    local d = 1
    while d <= #dims and r.hi[d] - r.lo[d] == 1 do d = d + 1 end
    if d > #dims or decoded_bytes(dims, r, itemsize) <= PIECE_BYTES then
      out[#out + 1] = r
    else
      local per_part = decoded_bytes(dims, r, itemsize) // (r.hi[d] - r.lo[d])
      local step = math.max(1, PIECE_BYTES // math.max(1, per_part))
      for l = r.lo[d], r.hi[d] - 1, step do
        local p = { lo = table.move(r.lo, 1, #r.lo, 1, {}), hi = table.move(r.hi, 1, #r.hi, 1, {}) }
        p.lo[d], p.hi[d] = l, math.min(l + step, r.hi[d])
        out[#out + 1] = p
      end
    end
  end
  return out
end

-- The Zarr selection of a piece.
local function piece_selection(sel, dims, r)
  local out = {}
  for d, s in ipairs(sel) do
    if s.index then out[d] = s.index
    else
      local j0, j1 = dims[d][r.lo[d] + 1].j0, dims[d][r.hi[d]].j1
      out[d] = { s.start + j0 * s.step, s.start + (j1 - 1) * s.step + 1, s.step }
    end
  end
  return out
end

-- ------------------------------------------------------------ combining

local function fmin(a, b) return (a ~= a or b < a) and b or a end
local function fmax(a, b) return (a ~= a or b > a) and b or a end

local function array_pick(a, b, op)
  local m = op == "min" and nd.minimum(a, b) or nd.maximum(a, b)
  if a.dtype:match("float") then
    m = nd.where(a:isnan(), b, m)
    m = nd.where(b:isnan(), a, m)
  end
  return m
end

local function combine(a, b, op)
  if a == nil then return b end
  if b == nil then return a end
  if type(op) == "function" then return op(a, b) end
  if type(a) == "table" and not nd.isarray(a) then
    local out = {}
    for k, x in pairs(a) do out[k] = combine(x, b[k], op) end
    for k, y in pairs(b) do if out[k] == nil then out[k] = y end end
    return out
  end
  if op == "sum" or op == "place" then return a + b end
  if op == "prod" then return a * b end
  if nd.isarray(a) or nd.isarray(b) then return array_pick(nd.isarray(a) and a or nd.from { a }, b, op) end
  return op == "min" and fmin(a, b) or fmax(a, b)
end

-- Every rank's partial result combined: by an MPI reduction when every rank
-- has one and op is one MPI has, else gathered and combined in rank order.
local function across_ranks(mpi, acc, op)
  local mpi_op = op == "place" and "sum" or op
  if type(op) ~= "function" and mpi.allreduce(acc ~= nil and 1 or 0, "min") == 1 then
    return mpi.allreduce(acc, mpi_op)
  end
  local all, out = mpi.allgather(acc), nil
  for r = 1, all.n do out = combine(out, all[r], op) end
  return out
end

-- ------------------------------------------------------------ the fold

-- fn's result for a chunk put where the chunk's part lies in the selection
-- (acc made at the first, of that result's dtype).
local function place(ctx, acc, partial, offset, cut)
  acc = acc or nd.zeros(ctx.shape, nd.isarray(partial) and partial.dtype or "float64")
  if #cut == 0 then return acc:assign(partial) end
  local at = {}
  for d, o in ipairs(offset) do at[d] = { o, o + cut[d][2] - cut[d][1] } end
  acc:slice(at):assign(partial)
  return acc
end

local function fold_piece(ctx, r, acc)
  local x = ctx.array:read(piece_selection(ctx.sel, ctx.dims, r), ctx.read_opts)
  local base = {}
  for d = 1, #ctx.dims do base[d] = ctx.dims[d][r.lo[d] + 1].j0 end
  local sizes = {}
  for d = 1, #ctx.dims do sizes[d] = r.hi[d] - r.lo[d] end
  local count = 1
  for _, n in ipairs(sizes) do count = count * n end
  for i = 0, count - 1 do
    local cut, offset, index, k = {}, {}, {}, 0
    local rest = i
    local pos = {}
    for d = #sizes, 1, -1 do
      pos[d] = r.lo[d] + rest % sizes[d]
      rest = rest // sizes[d]
    end
    for d, p in ipairs(pos) do
      local part = ctx.dims[d][p + 1]
      index[d] = part.chunk
      k = k * #ctx.dims[d] + p
      if not ctx.sel[d].index then
        cut[#cut + 1] = { part.j0 - base[d], part.j1 - base[d] }
        offset[#offset + 1] = part.j0
      end
    end
    local values = #cut > 0 and x:slice(cut) or x
    local chunk = { index = index, key = ctx.plan.keys[k + 1], bytes = ctx.plan.bytes[k + 1], offset = offset,
      cf = ctx.cf }
    local partial = ctx.fn(values, chunk)
    if ctx.op == "place" then acc = place(ctx, acc, partial, offset, cut)
    else acc = combine(acc, partial, ctx.op) end
  end
  return acc
end

-- The CIDs of this rank's chunks, from rank 0's verified listing, told to the
-- store: its reads then ask for them directly, without walking the
-- directories again (each byte is still checked against its CID).
local function know_cids(array, plan, a, b)
  local keys, cids = {}, {}
  for k = a + 1, b do
    if plan.cids[k] then
      keys[#keys + 1] = plan.keys[k]
      cids[#cids + 1] = plan.cids[k]
    end
  end
  if #keys > 0 then array:know(keys, cids) end
end

-- This rank's run of chunks [a, b) (0-based), by the bytes they hold and the
-- requests they take: a chunk weighs its bytes plus REQUEST_WEIGHT mean
-- chunks' worth for its request. Over a gateway a request's round trip
-- outweighs its bytes (seen: 50 ms against 0.1 ms for 60 kB), and one chunk
-- more than the others' can leave a rank a whole round trip behind; sizes
-- still count where they differ by more than a few times.
local function my_run(mpi, plan)
  local weights, total = {}, 0
  for _, n in ipairs(plan.bytes) do total = total + math.max(0, n) end
  local per_request = math.max(1024, REQUEST_WEIGHT * total // math.max(1, plan.total))
  for k, n in ipairs(plan.bytes) do weights[k] = math.max(0, n) + per_request end
  local list = {}
  for k = 1, plan.total do list[k] = k end
  local _, positions = mpi.partition(list, { by = "block", weights = weights })
  if #positions == 0 then return 0, 0 end
  return positions[1] - 1, positions[#positions]
end

function M.map_chunks_with(mpi)
  -- map_chunks(selection, fn, op[, opts]) -> the combined result, and
  -- {chunks =, mine =, bytes =} of this rank.
  -- selection: a dataset variable (v or v:isel{...}), a Zarr array, or
  --   {array =, selection =} (an index, {start, stop[, step]} or nil per dimension)
  -- fn(values, chunk) -> a partial result: a number, an n-d array or a table
  --   of these; values are the chunk's part of the selection as stored (raw
  --   integers: sum them exactly, scale last) unless opts.decode (then as
  --   values() gives them); chunk = {index =, key =, bytes =, offset =, cf =}
  --   (offset: where the part starts in the selection, per kept dimension)
  -- op: "sum", "prod", "min", "max" (NaN left out), "place" (fn's arrays put
  --   where their chunk lies in an array of the selection's shape; fn nil: the
  --   values themselves), or function(a, b) (ranks combined in rank order)
  return function(selection, fn, op, opts)
    opts = opts or {}
    op = op or "sum"
    if type(op) ~= "function" and op ~= "sum" and op ~= "prod" and op ~= "min" and op ~= "max" and op ~= "place" then
      bad("op is sum, prod, min, max, place or a function")
    end
    if fn == nil and op == "place" then fn = function(values) return values end end
    if type(fn) ~= "function" then bad("fn must be a function(values, chunk)") end
    local array, sel, cf = source_of(selection)
    if #sel == 0 then bad("a 0-d array holds one value: read it") end
    local plan = mpi.bcast(mpi.rank() == 0 and make_plan(array, sel) or nil, 0)
    local a, b = my_run(mpi, plan)
    know_cids(array, plan, a, b)
    local read_opts = { threads = opts.threads }
    local itemsize = array.itemsize
    if opts.decode and cf then
      read_opts.unscale = { dtype = cf.type, fills = cf.fills, scale = cf.scale, offset = cf.offset }
      itemsize = cf.type == "float32" and 4 or 8
    end
    local shape = {}
    for _, s in ipairs(sel) do if not s.index then shape[#shape + 1] = s.count end end
    local ctx = { array = array, sel = sel, dims = plan.dims, plan = plan, fn = fn, op = op, cf = cf,
      read_opts = read_opts, shape = shape }
    local sizes = {}
    for d, parts in ipairs(plan.dims) do sizes[d] = #parts end
    local acc
    local zero = {}
    for d = 1, #sizes do zero[d] = 0 end
    for _, r in ipairs(pieces(plan.dims, rectangles(sizes, a, b, 1, zero, zero, {}), itemsize)) do
      acc = fold_piece(ctx, r, acc)
    end
    local mine_bytes = 0
    for k = a + 1, b do mine_bytes = mine_bytes + math.max(0, plan.bytes[k]) end
    return across_ranks(mpi, acc, op), { chunks = plan.total, mine = b - a, bytes = mine_bytes }
  end
end

return M
