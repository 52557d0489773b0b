-- ipfsrt.mpi: one Lua script spread over many processes and nodes with MPI.
-- The C half (ipfsrt.mpi_core, `make mpi`) starts MPI and moves bytes and
-- numbers; this half sends any Lua value, splits lists and spreads the chunks
-- of a selection over the ranks (map_chunks). Run under mpirun:
--   mpirun --bind-to none -n 4 ipfsrt script.lua
-- From a stock lua5.4 wrap the script's work in mpi.run(fn), so that an error
-- on one rank ends the job instead of leaving the others waiting.
local ipfsrt = require "ipfsrt"

local found, C = pcall(require, "ipfsrt.mpi_core")
if not found then
  error(ipfsrt.error.new("unsupported", "ipfsrt.mpi needs its C module, built by `make mpi` (Debian: apt-get "
    .. "install libopenmpi-dev openmpi-bin): " .. tostring(C)), 0)
end

local nd = ipfsrt.ndarray
local M = {}
for _, name in ipairs { "rank", "size", "node_rank", "node_size", "wtime", "barrier", "abort" } do M[name] = C[name] end

local bad = require "ipfsrt.bad" ("mpi: ")

-- ------------------------------------------------------------ Lua values

-- Values as bytes: nil, booleans, numbers (integers stay integers), strings,
-- n-d arrays and tables of these (keys too), without cycles.
local function encode(v, out, depth)
  if depth > 100 then bad("a value nested more than 100 deep (a cycle?)") end
  local t = type(v)
  if v == nil then out[#out + 1] = "n"
  elseif t == "boolean" then out[#out + 1] = v and "t" or "f"
  elseif math.type(v) == "integer" then out[#out + 1] = string.pack("<c1i8", "i", v)
  elseif t == "number" then out[#out + 1] = string.pack("<c1d", "d", v)
  elseif t == "string" then out[#out + 1] = string.pack("<c1s8", "s", v)
  elseif nd.isarray(v) then
    out[#out + 1] = string.pack("<c1s2B", "a", v.dtype, v.ndim)
    for _, n in ipairs(v.shape) do out[#out + 1] = string.pack("<i8", n) end
    out[#out + 1] = string.pack("<s8", v:tobytes())
  elseif t == "table" then
    local n = 0
    for _ in pairs(v) do n = n + 1 end
    out[#out + 1] = string.pack("<c1i8", "T", n)
    for k, x in pairs(v) do
      encode(k, out, depth + 1)
      encode(x, out, depth + 1)
    end
  else
    bad("a %s cannot be sent to other ranks", t)
  end
end

local function decode(s, at)
  local tag = s:sub(at, at)
  at = at + 1
  if tag == "n" then return nil, at
  elseif tag == "t" then return true, at
  elseif tag == "f" then return false, at
  elseif tag == "i" or tag == "d" then return string.unpack(tag == "i" and "<i8" or "<d", s, at)
  elseif tag == "s" then return string.unpack("<s8", s, at)
  elseif tag == "a" then
    local dtype, ndim
    dtype, ndim, at = string.unpack("<s2B", s, at)
    local shape = {}
    for i = 1, ndim do shape[i], at = string.unpack("<i8", s, at) end
    local bytes
    bytes, at = string.unpack("<s8", s, at)
    return nd.frombytes(bytes, dtype, shape), at
  elseif tag == "T" then
    local n, t = nil, {}
    n, at = string.unpack("<i8", s, at)
    for _ = 1, n do
      local k, x
      k, at = decode(s, at)
      x, at = decode(s, at)
      t[k] = x
    end
    return t, at
  end
  error(ipfsrt.error.new("invalid", "mpi: a value from another rank is malformed at byte " .. at - 1), 0)
end

function M.encode(v)
  local out = {}
  encode(v, out, 0)
  return table.concat(out)
end

function M.decode(s) return (decode(s, 1)) end

local function check_root(root)
  root = root or 0
  if math.type(root) ~= "integer" or root < 0 or root >= C.size() then bad("root must be a rank, 0 to %d", C.size() - 1) end
  return root
end

-- bcast(x[, root = 0]) -> root's x on every rank (what others pass is ignored)
function M.bcast(x, root)
  root = check_root(root)
  local mine = C.rank() == root
  local kind = C.bcast_bytes(mine and (nd.isarray(x) and "a" or "v") or nil, root)
  if kind == "a" then return C.bcast_array(mine and x or nil, root) end
  return M.decode(C.bcast_bytes(mine and M.encode(x) or nil, root))
end

-- Every rank's value, by rank (n = the rank count: a nil leaves a hole).
local function decode_all(list)
  if not list then return nil end
  local out = { n = #list }
  for i = 1, out.n do out[i] = M.decode(list[i]) end
  return out
end

-- gather(x[, root = 0]) -> {x of rank 0, x of rank 1, ..., n = size} at root, nil elsewhere
function M.gather(x, root) return decode_all(C.gather_bytes(M.encode(x), check_root(root))) end

-- allgather(x) -> {x of rank 0, x of rank 1, ..., n = size} on every rank
function M.allgather(x) return decode_all(C.gather_bytes(M.encode(x), -1)) end

local OPS = { sum = true, prod = true, min = true, max = true }

-- The keys of a table of partial results, sorted so every rank walks them alike.
local function sorted_keys(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  return keys
end

local function reduce_value(x, op, root)
  if type(x) == "table" then
    local out = {}
    for _, k in ipairs(sorted_keys(x)) do out[k] = reduce_value(x[k], op, root) end
    if root and C.rank() ~= root then return nil end
    return out
  end
  if root then return C.reduce(x, op, root) end
  return C.allreduce(x, op)
end

-- allreduce(x, op): x a number, an n-d array or a table of these (the same
-- keys and shapes on every rank); op sum | prod | min | max (min and max of
-- floats leave NaN out). Integers are summed in 64 bits: exact, whatever the
-- number of ranks; sum integers and scale last for results that do not
-- depend on it.
function M.allreduce(x, op)
  op = op or "sum"
  if not OPS[op] then bad("op must be sum, prod, min or max") end
  return reduce_value(x, op, nil)
end

-- reduce(x, op, root): as allreduce, the result at root only
function M.reduce(x, op, root)
  op = op or "sum"
  if not OPS[op] then bad("op must be sum, prod, min or max") end
  return reduce_value(x, op, check_root(root))
end

-- ------------------------------------------------------------ splitting

-- Contiguous runs of items with about equal weight: item i goes to the rank
-- whose share of the total holds the middle of its weight.
local function contiguous_owner(weights, size)
  local total, owner, before = 0, {}, 0
  for _, w in ipairs(weights) do total = total + w end
  for i, w in ipairs(weights) do
    local middle = before + w / 2
    owner[i] = total > 0 and math.min(size - 1, math.floor(middle * size / total)) or (i - 1) * size // #weights
    before = before + w
  end
  return owner
end

-- Greedy by weight, heaviest first, each to the least loaded rank (lowest on ties).
local function balanced_owner(weights, size)
  local order, load, owner = {}, {}, {}
  for i = 1, #weights do order[i] = i end
  table.sort(order, function(a, b) return weights[a] > weights[b] or (weights[a] == weights[b] and a < b) end)
  for r = 1, size do load[r] = 0 end
  for _, i in ipairs(order) do
    local best = 1
    for r = 2, size do if load[r] < load[best] then best = r end end
    owner[i] = best - 1
    load[best] = load[best] + weights[i]
  end
  return owner
end

local function weights_of(list, w)
  local out = {}
  for i, item in ipairs(list) do
    local x = w == nil and 1 or type(w) == "function" and w(item, i) or w[i]
    if type(x) ~= "number" or x < 0 then bad("weight %d is not a number >= 0", i) end
    out[i] = x
  end
  return out
end

-- partition(list[, opts]) -> this rank's items (in list order), and their
-- positions in list. opts.by: "block" (contiguous runs, by weight when given;
-- the default), "cyclic" (item i to rank (i - 1) % size) or "balanced"
-- (heaviest first to the least loaded rank); opts.weights: a list or
-- function(item, i); opts.rank and opts.size stand in for this job's.
function M.partition(list, opts)
  opts = opts or {}
  if type(list) ~= "table" then bad("partition takes a list") end
  local rank, size = opts.rank or C.rank(), opts.size or C.size()
  if math.type(size) ~= "integer" or size < 1 or math.type(rank) ~= "integer" or rank < 0 or rank >= size then
    bad("rank and size: 0 <= rank < size")
  end
  local owner
  local by = opts.by or "block"
  if by == "cyclic" then
    owner = {}
    for i = 1, #list do owner[i] = (i - 1) % size end
  elseif by == "block" then owner = contiguous_owner(weights_of(list, opts.weights), size)
  elseif by == "balanced" then owner = balanced_owner(weights_of(list, opts.weights), size)
  else bad("partition by block, cyclic or balanced") end
  local items, positions = {}, {}
  for i, item in ipairs(list) do
    if owner[i] == rank then
      items[#items + 1] = item
      positions[#positions + 1] = i
    end
  end
  return items, positions
end

-- ------------------------------------------------------------ failing

-- run(fn, ...) -> fn(...): an error on this rank is printed and ends every
-- rank of the job (MPI_Abort), instead of this rank finalising and the others
-- waiting for it for ever. The ipfsrt executable does this for a script
-- that fails; a stock lua5.4 needs run.
function M.run(fn, ...)
  local results = table.pack(xpcall(fn, function(e)
    return (type(e) == "table" or type(e) == "userdata") and tostring(e) or debug.traceback(tostring(e), 2)
  end, ...))
  if results[1] then return table.unpack(results, 2, results.n) end
  if C.size() == 1 then error(results[2], 0) end -- alone: an error like any other
  io.stderr:write(string.format("ipfsrt.mpi: rank %d of %d failed: %s\n", C.rank(), C.size(), results[2]))
  io.stderr:flush()
  C.abort(1)
end

M.map_chunks = require("ipfsrt.mpi_chunks").map_chunks_with(M)

return M
