-- One scenario in a cold process, for make bench-peers: ipfsrt.dataset through
-- the gateway (verified ipfs://, or with --plain the gateway's plain HTTP).
-- Prints {open_ms, run_ms, count, sum}: the scenario's values as hundredths,
-- summed, so that every client's reading can be compared.
-- Usage: ipfsrt ipfsrt_peer.lua GATEWAY ROOT SCENARIO [--plain]
local ipfsrt = require "ipfsrt"
local gateway, root, name, plain = arg[1], arg[2], arg[3], arg[4] == "--plain"
local scenario = dofile("scripts/bench/scenarios/" .. name .. ".lua")
local t0 = ipfsrt.clock()
local client = not plain and ipfsrt.client { gateways = { gateway }, concurrency = 16 } or nil
local ds = plain and ipfsrt.dataset.open(gateway .. "/ipfs/" .. root) or
  ipfsrt.dataset.open("ipfs://" .. root, { client = client })
local t1 = ipfsrt.clock()
local value = name == "open" and 0 or scenario.run { dataset = ds }
local t2 = ipfsrt.clock()
local count, sum = 0, 0
if type(value) == "number" then
  count, sum = 1, math.floor(value * 100 + 0.5)
else
  local v = value:astype("float64")
  local ok = v:isnan():eq(false)
  count = ok:astype("int64"):sum()
  sum = math.tointeger((v * 100):round():sum()) -- NaN skipped
end
print(ipfsrt.json.encode { open_ms = (t1 - t0) * 1000, run_ms = (t2 - t1) * 1000, count = count, sum = sum })
