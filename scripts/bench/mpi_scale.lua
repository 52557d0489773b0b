-- Benchmark: ipfsrt.mpi's map_chunks on one machine, weak scaling. The OISST
-- time series and bulk mean over n = 1, 2, 4, 8 ranks, each rank with the
-- same work (n times the days in all), against a local ipfsrt serve with no
-- delay and with 50 ms before each answer. Beside every n: one process doing
-- the same n-fold work with n times the requests in flight, and the CPU floor
-- (hashing and decoding that work, over the machine's cores): on 2 cores,
-- extra ranks can only hide latency. Medians of 3 runs.
-- Targets: weak-scaling efficiency (time at n = 1 / time at n) >= 0.8 up to
-- n = 8 at 50 ms; n = 2 >= 0.9x the one-process run at no delay.
-- Usage: ipfsrt scripts/bench/mpi_scale.lua [--dir build/bench] [--runs 3]
--        [--series-days 32] [--bulk-days 32] [--json FILE]
local ipfsrt = require "ipfsrt"
-- the benchmarks' helpers beside this script (scripts/bench/lib), not part of the library
package.path = (arg[0]:match("^(.*)/") or ".") .. "/lib/?.lua;" .. package.path
local bench = require "bench"

local o = { dir = "build/bench", runs = "3", ["series-days"] = "32", ["bulk-days"] = "32" }
for i = 1, #arg, 2 do o[(arg[i]:gsub("^%-%-", ""))] = arg[i + 1] end
local exe = os.getenv("IPFSRT_EXE") or "build/ipfsrt"
local runs = tonumber(o.runs)
local RANKS = { 1, 2, 4, 8 }
local sample, car, root = bench.sample(exe, o.dir, "366", "2")
local cpus = select(2, ipfsrt.threads())
local mpirun = "OMPI_MCA_btl_vader_single_copy_mechanism=none mpirun --oversubscribe --bind-to none"
  .. (io.popen("id -u"):read("l") == "0" and " --allow-run-as-root" or "")

local function job(n, gateway, what, days, concurrency)
  local times, last = {}, nil
  for r = 1, runs do
    local p = assert(io.popen(string.format("%s -n %d %s scripts/bench/mpi_job.lua %s %s %s %d %d 2>/dev/null", mpirun, n,
      exe, root, gateway, what, days, concurrency)))
    local out = p:read("a")
    p:close()
    local ok, res = pcall(ipfsrt.json.decode, out:match("[^\n]*"))
    if not ok or type(res) ~= "table" then error("mpi_job failed: " .. out, 0) end
    times[r], last = res.seconds, res
  end
  return bench.median(times), last
end

-- Hashing and decoding the chunks of the first days, one thread, from the
-- folder (read once before, so that the files are in memory): the CPU the
-- work needs whatever the ranks, over the machine's CPUs.
local function cpu_floor(what, days)
  local a = ipfsrt.zarr.open(sample).sst
  local store = ipfsrt.zarr.store(sample)
  local chunks = {}
  for d = 0, days - 1 do
    for i = 0, (what == "series" and 0 or 1) do
      for j = 0, (what == "series" and 0 or 3) do
        chunks[#chunks + 1] = store:get(a:chunk_key(d, 0, what == "series" and 1 or i, what == "series" and 2 or j))
      end
    end
  end
  local sel = what == "series" and { { 0, days }, 0, { 360, 720 }, { 720, 1080 } } or { { 0, days } }
  a:read(sel, { threads = 1 })
  local t0 = ipfsrt.clock()
  for _, bytes in ipairs(chunks) do ipfsrt.cid.sum("raw", bytes) end
  a:read(sel, { threads = 1 })
  return (ipfsrt.clock() - t0) / cpus
end

local results = {}
for _, delay in ipairs { 0, 50 } do
  local gateway = bench.serve(exe, { car }, o.dir, delay > 0 and ("--delay " .. delay) or "")
  for _, what in ipairs { "series", "bulk" } do
    local base = tonumber(o[what .. "-days"])
    local rows = {}
    for _, n in ipairs(RANKS) do
      local t, res = job(n, gateway, what, base * n, 8)
      local single = job(1, gateway, what, base * n, 8 * n)
      rows[#rows + 1] = { n = n, ranks = t, one = single, floor = cpu_floor(what, base * n), chunks = res.chunks,
        cpu = res.cpu }
    end
    results[#results + 1] = { delay = delay, what = what, base = base, rows = rows }
  end
  bench.sh(string.format("kill $(cat %s/serve.pid)", o.dir))
end

print(string.format("ipfsrt.mpi map_chunks, weak scaling on %d CPUs (OISST-like sample, ipfsrt serve on 127.0.0.1;"
  .. " medians of %d runs, seconds)", cpus, runs))
for _, r in ipairs(results) do
  print(string.format("\n%s, %d days per rank, gateway delay %d ms", r.what, r.base, r.delay))
  print(string.format("  %3s %7s %10s %10s %12s %10s %8s", "n", "chunks", "n ranks", "efficiency", "1 proc n×in",
    "ranks/1p", "cpu/2"))
  local t1 = r.rows[1].ranks
  for _, row in ipairs(r.rows) do
    print(string.format("  %3d %7d %10.3f %10.2f %12.3f %10.2f %8.3f", row.n, row.chunks, row.ranks, t1 / row.ranks,
      row.one, row.ranks / row.one, row.floor))
  end
end
local function find(delay, what)
  for _, r in ipairs(results) do if r.delay == delay and r.what == what then return r end end
end
print("\nTargets:")
for _, what in ipairs { "series", "bulk" } do
  local slow, fast = find(50, what), find(0, what)
  local worst = math.huge
  for _, row in ipairs(slow.rows) do worst = math.min(worst, slow.rows[1].ranks / row.ranks) end
  local two = fast.rows[2]
  print(string.format("  %-6s efficiency at 50 ms, worst up to n = 8: %.2f (target >= 0.8: %s); n = 2 vs one process "
    .. "at no delay: %.2fx (target >= 0.9: %s)", what, worst, worst >= 0.8 and "met" or "missed", two.one / two.ranks,
    two.one / two.ranks >= 0.9 and "met" or "missed"))
end
if o.json then
  local f = assert(io.open(o.json, "w"))
  f:write(ipfsrt.json.encode(results))
  f:close()
end
