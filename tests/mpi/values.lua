-- Run by tests/mpi/mpi_spec.lua under mpirun -n 3: Lua values and n-d arrays
-- between ranks, reductions, and how lists are split; asserts, and prints "ok"
-- on rank 0.
local ipfsrt = require "ipfsrt"
local mpi = require "ipfsrt.mpi"
local nd = ipfsrt.ndarray

local rank, size = mpi.rank(), mpi.size()
assert(size == 3)

-- any Lua value, through its bytes
local value = { 1, 2.5, "three", true, { nested = { deep = math.maxinteger } }, [10] = -0.0, nan = 0 / 0,
  arr = nd.arange(12):astype("int16"):reshape { 3, 4 }, [2.5] = "float key" }
local got = mpi.bcast(rank == 1 and value or nil, 1)
assert(got[1] == 1 and math.type(got[1]) == "integer" and got[2] == 2.5 and got[3] == "three" and got[4] == true)
assert(got[5].nested.deep == math.maxinteger and got[10] == 0 and got.nan ~= got.nan and got[2.5] == "float key")
assert(got.arr.dtype == "int16" and got.arr.shape[1] == 3 and got.arr.shape[2] == 4 and got.arr:eq(value.arr):all())
-- an array sent as itself (not through bytes), a view included
local view = nd.arange(20):reshape { 4, 5 }:slice { { 1, 3 }, { 0, 5, 2 } }
local a = mpi.bcast(rank == 2 and view or nil, 2)
assert(a.shape[1] == 2 and a.shape[2] == 3 and a:eq(view):all())

-- gather and allgather keep holes where a rank had nil
local g = mpi.gather(rank ~= 1 and { r = rank } or nil, 0)
if rank == 0 then assert(g.n == 3 and g[1].r == 0 and g[2] == nil and g[3].r == 2) else assert(g == nil) end
local all = mpi.allgather(rank * 10)
assert(all.n == 3 and all[1] == 0 and all[2] == 10 and all[3] == 20)

-- reductions: integers exact in 64 bits, floats, arrays (float min/max leave NaN out), tables
assert(mpi.allreduce(math.maxinteger // 4, "sum") == (math.maxinteger // 4) * 3)
assert(mpi.allreduce(rank == 1 and 0.5 or 1, "sum") == 2.5)
assert(mpi.allreduce(rank + 2, "prod") == 24)
local x = nd.from { rank == 0 and 0 / 0 or rank, -rank, 7 }:astype("float64")
local lo, hi = mpi.allreduce(x, "min"):tolist(), mpi.allreduce(x, "max"):tolist()
assert(lo[1] == 1 and lo[2] == -2 and lo[3] == 7 and hi[1] == 2 and hi[2] == 0)
local t = mpi.allreduce({ n = 1, s = { v = nd.full({ 2 }, rank, "int64") } }, "sum")
assert(t.n == 3 and t.s.v:tolist()[2] == 3 and t.s.v.dtype == "int64")
local at0 = mpi.reduce(rank, "max", 0)
assert((rank == 0 and at0 == 2) or (rank ~= 0 and at0 == nil))
-- arrays that differ between ranks: an error on every rank, not a hang
local ok, err = pcall(mpi.allreduce, nd.zeros({ rank + 1 }), "sum")
assert(not ok and tostring(err):find("differ", 1, true), tostring(err))

-- splitting a list: block (by weight), cyclic, balanced
local list = { "a", "b", "c", "d", "e", "f", "g" }
local function split(opts)
  local out = {}
  for r = 0, 2 do
    opts.rank, opts.size = r, 3
    out[r + 1] = table.concat((mpi.partition(list, opts)))
  end
  return table.concat(out, "|")
end
assert(split { by = "block" } == "ab|cde|fg", split { by = "block" })
assert(split { by = "cyclic" } == "adg|be|cf")
-- the item whose weight's middle falls in a rank's share of the total goes to it
assert(split { by = "block", weights = { 6, 1, 1, 1, 1, 1, 1 } } == "a|bc|defg")
assert(split { by = "balanced", weights = { 5, 4, 3, 3, 2, 2, 1 } } == "af|beg|cd")
local mine, positions = mpi.partition(list)
assert(#mine == #positions and list[positions[1]] == mine[1])
assert(#mpi.partition({}, {}) == 0)

mpi.barrier()
if rank == 0 then print("ok") end
