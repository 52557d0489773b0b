-- Benchmark: the analysis toolkit's ordered and positional reductions on the
-- 366-day OISST-like sample (a folder), each a cold process timed with its
-- peak memory (/usr/bin/time): the 90th percentile of every cell over time
-- (ipfsrt beside xarray + dask, the folder's chunks, time in one chunk as
-- dask's quantile needs), the median over time, the position and labels of
-- the greatest value over every dimension (beside a fused max of it), and
-- mean and max over everything, the folds they are held to. The processes
-- run interleaved, medians of --runs.
-- Usage: ipfsrt scripts/bench/toolkit.lua [--runs 3] [--dir build/bench] [--days 366]
--        [--json FILE] [--only NAME,...]
-- (IPFSRT_EXE names the executable, default build/ipfsrt)
local ipfsrt = require "ipfsrt"
package.path = (arg[0]:match("^(.*)/") or ".") .. "/lib/?.lua;" .. package.path
local bench = require "bench"

local o = { runs = "3", dir = "build/bench", days = "366" }
for i = 1, #arg, 2 do o[(arg[i]:gsub("^%-%-", ""))] = arg[i + 1] end
local exe = os.getenv("IPFSRT_EXE") or "build/ipfsrt"
local sample = bench.sample(exe, o.dir, o.days, "2")

local OPEN = string.format("local ds = ipfsrt.dataset.open(%q):isel { zlev = 0 }; ", sample)
local PY_OPEN = string.format("import xarray as xr, dask; dask.config.set(scheduler='threads'); "
  .. "ds = xr.open_zarr(%q, consolidated=True).isel(zlev=0); ", sample)

-- Each task: a command whose last line of output is its answer (to compare).
local TASKS = {
  { name = "quantile90-ipfsrt", lua = "local q = ds.sst:quantile(0.9, 'time'); print(q:values():sum({ skipna = true }))" },
  { name = "quantile90-xarray-dask", py = "q = ds.sst.chunk({'time': -1}).quantile(0.9, 'time').compute(); "
    .. "import numpy as np; print(float(np.nansum(q.values)))" },
  { name = "median-time-ipfsrt", lua = "print(ds.sst:median('time'):values():sum({ skipna = true }))" },
  { name = "mean-time-ipfsrt", lua = "print(ds.sst:mean('time'):values():sum({ skipna = true }))" },
  { name = "idxmax-all-ipfsrt", lua = "local t = ds.sst:idxmax { 'time', 'lat', 'lon' }; print(t.time, t.lat, t.lon)" },
  { name = "argmax-all-ipfsrt", lua = "local t = ds.sst:argmax { 'time', 'lat', 'lon' }; print(t.time, t.lat, t.lon)" },
  { name = "max-all-ipfsrt", lua = "print(ds.sst:max())" },
  { name = "mean-all-ipfsrt", lua = "print(ds.sst:mean())" },
}

local only = {}
for name in (o.only or ""):gmatch("[^,]+") do only[name] = true end

-- One cold run: seconds, peak resident MB, the answer.
local function run(task)
  local out = os.tmpname()
  local cmd
  if task.lua then cmd = string.format("%s -e %s", bench.quote(exe), bench.quote(OPEN .. task.lua))
  else cmd = string.format("/usr/bin/python3 -c %s", bench.quote(PY_OPEN .. task.py)) end
  local ok = os.execute(string.format("/usr/bin/time -f '%%e %%M' -o %s.time %s > %s 2>&1", out, cmd, out))
  local text = assert(io.open(out)):read("a")
  local seconds, kb = assert(io.open(out .. ".time")):read("a"):match("([%d.]+) (%d+)%s*$")
  os.remove(out)
  os.remove(out .. ".time")
  if not ok or not seconds then error(task.name .. " failed:\n" .. text, 0) end
  return tonumber(seconds), tonumber(kb) / 1024, text:match("([^\n]*)\n?$")
end

local times, peaks, answers = {}, {}, {}
for _ = 1, tonumber(o.runs) do
  for _, t in ipairs(TASKS) do
    if next(only) == nil or only[t.name] then
      local s, mb, answer = run(t)
      times[t.name], peaks[t.name] = times[t.name] or {}, peaks[t.name] or {}
      table.insert(times[t.name], s)
      table.insert(peaks[t.name], mb)
      answers[t.name] = answer
    end
  end
end

print(string.format("\nThe toolkit's ordered and positional reductions, %s-day sample (a folder), medians of %s cold "
  .. "processes, interleaved", o.days, o.runs))
print(string.format("  %-24s %9s %11s  %s", "task", "seconds", "peak MB", "answer"))
local result = {}
for _, t in ipairs(TASKS) do
  if times[t.name] then
    local s, mb = bench.median(times[t.name]), bench.median(peaks[t.name])
    result[t.name] = { seconds = s, peak_mb = mb, answer = answers[t.name] }
    print(string.format("  %-24s %9.2f %11.0f  %s", t.name, s, mb, answers[t.name]))
  end
end

-- The targets of issue 44, from this run's medians.
local function ratio(a, b) return result[a] and result[b] and result[a].seconds / result[b].seconds end
local function say(what, r, want, better_below)
  if not r then return end
  local met = better_below and r <= want or not better_below and r >= want
  print(string.format("  %-58s %6.2fx  (target %s %.1fx: %s)", what, r, better_below and "<=" or ">=", want,
    met and "met" or "missed"))
end
print("targets:")
say("90th percentile: xarray + dask / ipfsrt", ratio("quantile90-xarray-dask", "quantile90-ipfsrt"), 5)
if result["quantile90-ipfsrt"] then
  print(string.format("  %-58s %6.0f MB (target <= 2048: %s)", "90th percentile: ipfsrt's peak memory",
    result["quantile90-ipfsrt"].peak_mb, result["quantile90-ipfsrt"].peak_mb <= 2048 and "met" or "missed"))
end
say("idxmax over every dimension / fused max", ratio("idxmax-all-ipfsrt", "max-all-ipfsrt"), 1.2, true)
say("argmax over every dimension / mean over everything", ratio("argmax-all-ipfsrt", "mean-all-ipfsrt"), 1.2, true)
say("max over everything / mean over everything", ratio("max-all-ipfsrt", "mean-all-ipfsrt"), 1.2, true)
say("median over time / mean over time", ratio("median-time-ipfsrt", "mean-time-ipfsrt"), 1.2, true)
if o.json then
  local f = assert(io.open(o.json, "w"))
  f:write(ipfsrt.json.encode(result))
  f:close()
end
