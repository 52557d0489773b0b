-- Benchmark: n-d array math on an OISST-shaped (T, 720, 1440) int16 grid and its
-- float32 form, beside numpy (scripts/bench/ndarray_numpy.py, same data, same
-- operations, run right after) and a plain copy of the int16 bytes into a
-- ready buffer (memory bandwidth). Single thread on both sides; medians. Sums
-- and means are timed as numpy's (NaN kept) and, for floats, as nansum and
-- nanmean (NaN skipped: ipfsrt's default, as xarray's).
-- Usage: ipfsrt scripts/bench/ndarray.lua [T=366] [RUNS=5]
local ipfsrt = require "ipfsrt"
local bench = require "ipfsrt.bench"
local nd = ipfsrt.ndarray

local T = tonumber(arg[1]) or 366
local runs = tonumber(arg[2]) or 5
local script_dir = (arg[0]:match("^(.*)/[^/]*$") or ".")

-- The data, built the way ndarray_numpy.py builds it.
local lat = nd.arange(720, "int16"):reshape { 720, 1 }
local lon = nd.arange(1440, "int16"):reshape { 1, 1440 }
local base = (lat * 3 + lon // 2) % 2000 - 200
local land = ((lat // 40 + lon // 60) % 4):eq(0) | ((lat * lon) % 7):eq(0)
local day = (nd.arange(T, "int16") % 50):reshape { T, 1, 1 }
local a = nd.where(land, nd.full({}, -999, "int16"), base + day):astype("int16")
local f = a:astype("float32")
local b = f:mean(0)
local ocean = ~land -- a fixed (720, 1440) mask, as a land mask is
local dst = nd.zeros(a.shape, "int16")
dst:fill(0)

-- Each operation with the least bytes it must move, in int16 grids (read once,
-- results written once), against which the copy's bandwidth is the yardstick.
local ours, order, grids = {}, {}, {}
local function timed(name, moved, fn)
  local times = {}
  fn() -- untimed: the first touch of fresh memory is slow on virtual machines
  for i = 1, runs do
    collectgarbage() -- results of the last run freed before timing the next
    local t0 = ipfsrt.clock()
    local r = fn()
    times[i] = ipfsrt.clock() - t0
    r = nil -- luacheck: ignore
  end
  ours[name] = bench.median(times) * 1000
  order[#order + 1] = name
  grids[name] = moved
end

timed("memcpy int16", 2, function() return dst:assign(a) end)
local plain = { skipna = false }
for _, case in ipairs { { "int16", a, 1 }, { "float32", f, 2 } } do
  local name, x, size = case[1], case[2], case[3]
  timed("sum " .. name, size, function() return x:sum(plain) end)
  timed("mean " .. name, size, function() return x:mean(plain) end)
  timed("sum axis 0 " .. name, size, function() return x:sum(0, plain) end)
  timed("mean axis 0 " .. name, size, function() return x:mean(0, plain) end)
  if name == "float32" then -- NaN skipped (the default, as xarray's skipna) against nansum/nanmean
    timed("nansum " .. name, size, function() return x:sum() end)
    timed("nanmean " .. name, size, function() return x:mean() end)
    timed("nanmean axis 0 " .. name, size, function() return x:mean(0) end)
  end
  -- int16 * 0.01 is float64 (4 grids written), float32 stays float32
  timed("x*0.01+b " .. name, size + (name == "int16" and 4 or 2), function() return x * 0.01 + b end)
  timed("masked mean " .. name, size, function() return nd.where(x:ne(-999), x, 0 / 0):mean() end)
  timed("mean where=ocean " .. name, size, function() return x:mean { where = ocean } end)
end
a, f, b, dst, base, land, day, ocean = nil, nil, nil, nil, nil, nil, nil, nil
collectgarbage()

local theirs = {}
local ok, out = pcall(bench.sh, string.format("OMP_NUM_THREADS=1 /usr/bin/python3 %s/ndarray_numpy.py %d %d 2>&1",
  script_dir, T, runs))
if ok then
  for line in out:gmatch("[^\n]+") do
    local name, ms = line:match("^(.-) ([%d.]+)$")
    if name then theirs[name] = tonumber(ms) end
  end
else
  io.stderr:write("numpy side not run: ", tostring(out), "\n")
end

local bytes = T * 720 * 1440 * 2
print(string.format("n-d arrays, (%d, 720, 1440) int16 = %.0f MB and its float32 form, median of %d", T,
  bytes / 1e6, runs))
print(string.format("%-24s %10s %10s %8s %12s", "operation", "ipfsrt ms", "numpy ms", "ratio", "vs bandwidth"))
local copy = ours["memcpy int16"] / 2 -- per grid moved
for _, name in ipairs(order) do
  local mine, np = ours[name], theirs[name]
  print(string.format("%-24s %10.1f %10s %8s %11.2fx", name, mine, np and string.format("%.1f", np) or "-",
    np and string.format("%.2fx", mine / np) or "-", mine / (copy * grids[name])))
end
print("ratio: ipfsrt time / numpy time (below 1: ipfsrt faster). vs bandwidth: time / the time the copy")
print("takes to move the bytes the operation must read and write at least (1: as fast as memory allows).")
