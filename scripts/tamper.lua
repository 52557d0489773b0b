-- The tamper campaign (`make tamper`, not in CI): the OISST-like sample served
-- by a lying gateway that flips one byte inside a block of every answer
-- (seeded, so each run is the same), beside an honest one; the benchmark
-- scenarios read through both, verified, until the liar has corrupted at
-- least N answers. Every corruption must be caught (the client's verification
-- failures count them) and every value read must equal the local folder's.
-- Usage: ipfsrt scripts/tamper.lua [--corruptions N=10000] [--days T=30] [--dir build/tamper]
-- (IPFSRT_EXE names the executable that makes the sample, default build/ipfsrt)
local ipfsrt = require "ipfsrt"
-- the benchmarks' helpers and charts (scripts/bench/lib), not part of the library
package.path = (arg[0]:match("^(.*)/") or ".") .. "/bench/lib/?.lua;" .. package.path
local bench = require "bench"

local o = { corruptions = "10000", days = "30", dir = "build/tamper" }
for i = 1, #arg, 2 do o[(arg[i]:gsub("^%-%-", ""))] = arg[i + 1] end
local exe = os.getenv("IPFSRT_EXE") or "build/ipfsrt"
local want = tonumber(o.corruptions)
local sample, car, root = bench.sample(exe, o.dir, o.days, "2")

local honest <close> = ipfsrt.serve { cars = { car } }
local liar <close> = ipfsrt.serve { cars = { car }, faults = { tamper = 1, seed = 20261130 } }
local scenarios = bench.load_scenarios("scripts/bench/scenarios")
local floor = {}
local t0 = ipfsrt.clock()
for _, s in ipairs(scenarios) do floor[s.name] = bench.digest(s.run { dataset = ipfsrt.dataset.open(sample), open = function()
  return ipfsrt.dataset.open(sample) end }) end

local detected, runs, wrong = 0, 0, 0
while liar:stats().faults < want do
  for _, s in ipairs(scenarios) do
    -- the liar first, the honest one after it: every block is offered corrupted first
    local c = ipfsrt.client { gateways = { liar:url(), honest:url() }, cache = false, concurrency = 16, retries = 4 }
    local ctx = { open = function() return ipfsrt.dataset.open("ipfs://" .. root, { client = c }) end }
    ctx.dataset = ctx.open()
    local value = s.run(ctx)
    if bench.digest(value) ~= floor[s.name] then wrong = wrong + 1 end
    detected = detected + c:stats()[1].verify_failures
    c:close()
    runs = runs + 1
  end
  io.stderr:write(string.format("\r%d answers corrupted, %d caught", liar:stats().faults, detected))
end
io.stderr:write("\n")
local injected = liar:stats().faults
print(string.format("tamper campaign: %d answers with one byte flipped inside a block (seeded), %d scenario runs, %.0f s",
  injected, runs, ipfsrt.clock() - t0))
print(string.format("  caught by verification: %d; accepted: %d; runs whose values differ from the folder's: %d",
  detected, injected - detected, wrong))
if detected ~= injected or wrong ~= 0 then error("corrupted data got through", 0) end
