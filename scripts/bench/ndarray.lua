-- Benchmark: every n-d array operation beside numpy, one thread on both sides,
-- on OISST-shaped (T, 720, 1440) grids of int16, int32, float32 and float64
-- (floats also with NaN over land), and conversions between every pair of
-- uint8, int16, int32, int64, float32 and float64. The case list below is the
-- only one: each names the ipfsrt call and the numpy expression it is timed
-- against; scripts/bench/ndarray_numpy.py builds the same data and evaluates
-- the expressions. Medians of RUNS, the first call untimed.
-- Usage: ipfsrt scripts/bench/ndarray.lua [T=100] [RUNS=5] [PATTERN]
--   PATTERN (a Lua pattern) keeps only the cases whose "dtype op" matches.
local ipfsrt = require "ipfsrt"
-- the benchmarks' helpers beside this script (scripts/bench/lib), not part of the library
package.path = (arg[0]:match("^(.*)/") or ".") .. "/lib/?.lua;" .. package.path
local bench = require "bench"
local nd = ipfsrt.ndarray

local T = tonumber(arg[1]) or 100
local runs = tonumber(arg[2]) or 5
local only = arg[3]
local script_dir = (arg[0]:match("^(.*)/[^/]*$") or ".")

local plain = { skipna = false }
local GRID_TYPES = { "int16", "int32", "float32", "float64" }
local CAST_TYPES = { "uint8", "int16", "int32", "int64", "float32", "float64" }

-- The data of one dtype, as ndarray_numpy.py builds it: x a smooth field per
-- day with -999 over land, y another field, b one (720, 1440) grid, m where x
-- is above 100, none all false, xn x with NaN over land (floats), c values
-- 0..249 (for casts).
local function data(dtype)
  local lat = nd.arange(720, "int16"):reshape { 720, 1 }
  local lon = nd.arange(1440, "int16"):reshape { 1, 1440 }
  local base = (lat * 3 + lon // 2) % 2000 - 200
  local land = ((lat // 40 + lon // 60) % 4):eq(0) | ((lat * lon) % 7):eq(0)
  local day = (nd.arange(T, "int16") % 50):reshape { T, 1, 1 }
  local a = nd.where(land, nd.full({}, -999, "int16"), base + day):astype("int16")
  local d = { x = a:astype(dtype) }
  d.y = ((a // 3) + 7):astype(dtype)
  d.b = d.x:slice { 0 }:copy()
  d.m = d.x:gt(100)
  d.none = a:lt(-5000) -- all false: any reads every element
  d.c = (a:abs() % 250):astype(dtype)
  if dtype:match("^float") then d.xn = nd.where(land, 0 / 0, d.x):astype(dtype) end
  return d
end

-- {name, ipfsrt call on the data, numpy expression}; kind "float" cases run
-- for float dtypes only.
local cases = {
  { "sum", function(d) return d.x:sum(plain) end, "x.sum()" },
  { "mean", function(d) return d.x:mean(plain) end, "x.mean()" },
  { "min", function(d) return d.x:min(plain) end, "x.min()" },
  { "max", function(d) return d.x:max(plain) end, "x.max()" },
  { "argmin", function(d) return d.x:argmin(plain) end, "x.argmin()" },
  { "argmax", function(d) return d.x:argmax(plain) end, "x.argmax()" },
  { "std", function(d) return d.x:std(plain) end, "x.std()" },
  { "var", function(d) return d.x:var(plain) end, "x.var()" },
  { "sum axis 0", function(d) return d.x:sum(0, plain) end, "x.sum(axis=0)" },
  { "mean axis 0", function(d) return d.x:mean(0, plain) end, "x.mean(axis=0)" },
  { "min axis 0", function(d) return d.x:min(0, plain) end, "x.min(axis=0)" },
  { "max axis 2", function(d) return d.x:max(2, plain) end, "x.max(axis=2)" },
  { "argmax axis 0", function(d) return d.x:argmax(0, plain) end, "x.argmax(axis=0)" },
  { "std axis 0", function(d) return d.x:std(0, plain) end, "x.std(axis=0)" },
  { "min NaN inside", function(d) return d.xn:min(plain) end, "xn.min()", "float" },
  { "argmax NaN inside", function(d) return d.xn:argmax(plain) end, "xn.argmax()", "float" },
  { "nansum", function(d) return d.xn:sum() end, "np.nansum(xn)", "float" },
  { "nanmean", function(d) return d.xn:mean() end, "np.nanmean(xn)", "float" },
  { "nanmin", function(d) return d.xn:min() end, "np.nanmin(xn)", "float" },
  { "nanmax", function(d) return d.xn:max() end, "np.nanmax(xn)", "float" },
  { "nanargmin", function(d) return d.xn:argmin() end, "np.nanargmin(xn)", "float" },
  { "nanargmax", function(d) return d.xn:argmax() end, "np.nanargmax(xn)", "float" },
  { "nanstd", function(d) return d.xn:std() end, "np.nanstd(xn)", "float" },
  { "nanvar", function(d) return d.xn:var() end, "np.nanvar(xn)", "float" },
  { "nanmax axis 0", function(d) return d.xn:max(0) end, "np.nanmax(xn, axis=0)", "float" },
  { "nanmean axis 0", function(d) return d.xn:mean(0) end, "np.nanmean(xn, axis=0)", "float" },
  { "count", function(d) return d.xn:count() end, "np.count_nonzero(~np.isnan(xn))", "float" },
  { "any (bool)", function(d) return d.m:any() end, "m.any()" },
  { "all (bool)", function(d) return d.m:all() end, "m.all()" },
  { "any (bool, all false)", function(d) return d.none:any() end, "none.any()" },
  { "all (bool, all true)", function(d) return (~d.none):all() end, "(~none).all()" },
  { "any", function(d) return d.x:any() end, "x.any()" },
  { "cumsum axis 0", function(d) return d.x:cumsum(0, plain) end, "np.cumsum(x, axis=0)" },
  { "cumsum axis 2", function(d) return d.x:cumsum(2, plain) end, "np.cumsum(x, axis=2)" },
  { "x > 100", function(d) return d.x:gt(100) end, "x > 100" },
  { "x == y", function(d) return d.x:eq(d.y) end, "x == y" },
  { "x < b", function(d) return d.x:lt(d.b) end, "x < b" },
  { "isnan", function(d) return d.xn:isnan() end, "np.isnan(xn)", "float" },
  { "where(m, x, y)", function(d) return nd.where(d.m, d.x, d.y) end, "np.where(m, x, y)" },
  { "where(m, x, 0)", function(d) return nd.where(d.m, d.x, 0) end, "np.where(m, x, 0)" },
  { "clip(0, 1000)", function(d) return d.x:clip(0, 1000) end, "np.clip(x, 0, 1000)" },
  { "x * 0.01", function(d) return d.x * 0.01 end, "x * 0.01" },
  { "x * 0.01 + b", function(d) return d.x * 0.01 + d.b end, "x * 0.01 + b" },
  { "x + 1", function(d) return d.x + 1 end, "x + 1" },
  { "x / 2", function(d) return d.x / 2 end, "x / 2" },
  { "x * y", function(d) return d.x * d.y end, "x * y" },
  { "x - b", function(d) return d.x - d.b end, "x - b" },
  { "maximum(x, y)", function(d) return nd.maximum(d.x, d.y) end, "np.maximum(x, y)" },
  { "abs", function(d) return d.x:abs() end, "np.abs(x)" },
  { "-x", function(d) return -d.x end, "-x" },
  { "sqrt", function(d) return d.c:sqrt() end, "np.sqrt(c)", "float" },
  { "copy x[:, ::2, ::2]", function(d) return d.x:slice { nil, { nil, nil, 2 }, { nil, nil, 2 } }:copy() end,
    "x[:, ::2, ::2].copy()" },
  { "copy x[:, :, ::-1]", function(d) return d.x:slice { nil, nil, { nil, nil, -1 } }:copy() end,
    "x[:, :, ::-1].copy()" },
  { "copy x.T", function(d) return d.x:transpose():copy() end, "x.T.copy()" },
  { "copy x[:, 100:600, 200:1200]", function(d) return d.x:slice { nil, { 100, 600 }, { 200, 1200 } }:copy() end,
    "x[:, 100:600, 200:1200].copy()" },
  { "concat axis 0", function(d) return nd.concat({ d.x, d.y }, 0) end, "np.concatenate((x, y), 0)" },
  { "concat axis 2", function(d) return nd.concat({ d.x, d.y }, 2) end, "np.concatenate((x, y), 2)" },
}

local function timed(fn)
  local times = {}
  fn() -- untimed: the first touch of fresh memory is slow on virtual machines
  for i = 1, runs do
    collectgarbage() -- results of the last run freed before timing the next
    local t0 = ipfsrt.clock()
    local r = fn()
    times[i] = ipfsrt.clock() - t0
    r = nil -- luacheck: ignore
  end
  return bench.median(times) * 1000
end

-- The plan: {dtype, name, fn, expr} in order, for both sides.
local plan = {}
local function add(dtype, name, fn, expr)
  if not only or (dtype .. " " .. name):match(only) then
    plan[#plan + 1] = { dtype = dtype, name = name, fn = fn, expr = expr }
  end
end
for _, dtype in ipairs(CAST_TYPES) do
  for _, case in ipairs(cases) do
    local wanted = case[4] == nil or dtype:match("^float") ~= nil
    local is_grid = false
    for _, g in ipairs(GRID_TYPES) do is_grid = is_grid or g == dtype end
    if is_grid and wanted then add(dtype, case[1], case[2], case[3]) end
  end
  for _, to in ipairs(CAST_TYPES) do
    if to ~= dtype then
      add(dtype, "astype " .. to, function(d) return d.c:astype(to) end, string.format("c.astype(np.%s)", to))
    end
  end
end

local ours, current, d = {}, nil, nil
for i, c in ipairs(plan) do
  if c.dtype ~= current then
    d = nil
    collectgarbage()
    d, current = data(c.dtype), c.dtype
  end
  ours[i] = timed(function() return c.fn(d) end)
end
d = nil
collectgarbage()

-- numpy's side: the plan as "dtype<TAB>name<TAB>expr" lines, answers "index ms".
local theirs = {}
local list = os.tmpname()
local f = assert(io.open(list, "w"))
for _, c in ipairs(plan) do f:write(c.dtype, "\t", c.name, "\t", c.expr, "\n") end
f:close()
local ok, out = pcall(bench.sh, string.format("OMP_NUM_THREADS=1 /usr/bin/python3 %s/ndarray_numpy.py %d %d %s 2>&1",
  script_dir, T, runs, list))
os.remove(list)
if ok then
  for line in out:gmatch("[^\n]+") do
    local i, ms = line:match("^(%d+) ([%d.]+)$")
    if i then theirs[tonumber(i)] = tonumber(ms) end
  end
else
  io.stderr:write("numpy side not run: ", tostring(out), "\n")
end

print(string.format("n-d arrays, (%d, 720, 1440) grids, one thread, median of %d; ratio = ipfsrt / numpy "
  .. "(below 1: ipfsrt faster)", T, runs))
print(string.format("%-8s %-30s %10s %10s %7s", "dtype", "operation", "ipfsrt ms", "numpy ms", "ratio"))
local worst, ratios = {}, {}
for i, c in ipairs(plan) do
  local np = theirs[i]
  local ratio = np and math.max(ours[i], 0.01) / math.max(np, 0.01) -- both floored at the clock's 10 us
  if ratio then
    ratios[#ratios + 1] = ratio
    worst[#worst + 1] = { ratio = ratio, what = c.dtype .. " " .. c.name }
  end
  print(string.format("%-8s %-30s %10.1f %10s %7s", c.dtype, c.name, ours[i], np and string.format("%.1f", np) or "-",
    ratio and string.format("%.2f", ratio) or "-"))
end
if #ratios > 0 then
  table.sort(worst, function(p, q) return p.ratio > q.ratio end)
  print(string.format("median ratio %.2f over %d operations; slowest against numpy:", bench.median(ratios), #ratios))
  for k = 1, math.min(5, #worst) do print(string.format("  %.2f  %s", worst[k].ratio, worst[k].what)) end
end
