-- Benchmark: IPNS record verification (the spec's rules, signature included)
-- per record, for the kinds readers meet: Ed25519 V2-only and V1+V2, RSA
-- 2048 with its key in the record; and a name resolved through a local
-- gateway, fresh (one round trip) and from the client's cache (none).
-- Medians of RUNS runs of N verifications each. Target: under 100 us a record.
-- Usage: ipfsrt scripts/bench/ipns.lua [N=2000] [RUNS=5]
local ipfsrt = require "ipfsrt"
package.path = (arg[0]:match("^(.*)/") or ".") .. "/lib/?.lua;" .. package.path
local bench = require "bench"
local median = bench.median

local n = tonumber(arg[1]) or 2000
local runs = tonumber(arg[2]) or 5
local VALUE = "/ipfs/bafkqaddwgevxmmraojswg33smq"

local kinds = {}
for _, k in ipairs { { "Ed25519, V2 only", "ed25519", false }, { "Ed25519, V1+V2", "ed25519", true },
  { "RSA 2048, V1+V2", "rsa", true } } do
  local key = ipfsrt.ipns.key_generate(k[2])
  kinds[#kinds + 1] = { label = k[1], name = key:name(),
    record = ipfsrt.ipns.record(key, { value = VALUE, sequence = 1, eol = os.time() + 86400, v1 = k[3] }) }
end

print(string.format("IPNS record verification, median of %d runs of %d (target: under 100 us a record)", runs, n))
print(string.format("%-18s %8s %12s", "record", "bytes", "us/record"))
for _, k in ipairs(kinds) do
  local times = {}
  for r = 1, runs do
    local t0 = ipfsrt.clock()
    for _ = 1, n do ipfsrt.ipns.verify(k.name, k.record) end
    times[r] = (ipfsrt.clock() - t0) / n * 1e6
  end
  print(string.format("%-18s %8d %12.1f", k.label, #k.record, median(times)))
end

-- resolving through a gateway: the first time asks it, the next times do not
local dir = os.tmpname()
os.remove(dir)
os.execute("mkdir -p " .. dir)
local key = ipfsrt.ipns.key_generate()
local f = assert(io.open(dir .. "/" .. key:name() .. ".ipns-record", "wb"))
f:write(ipfsrt.ipns.record(key, { value = VALUE, sequence = 1, eol = os.time() + 86400, ttl = 3600 }))
f:close()
local gw = ipfsrt.serve { cars = { "tests/fixtures/conformance/gateway-cache.car" }, ipns_records = dir }
local fresh, cached = {}, {}
for r = 1, runs do
  local client = ipfsrt.client { gateways = { gw:url() } }
  local before = gw:stats().requests
  local t0 = ipfsrt.clock()
  client:resolve_name("ipns://" .. key:name())
  fresh[r] = (ipfsrt.clock() - t0) * 1e6
  t0 = ipfsrt.clock()
  for _ = 1, n do client:resolve_name("ipns://" .. key:name()) end
  cached[r] = (ipfsrt.clock() - t0) / n * 1e6
  assert(gw:stats().requests - before == 1, "a cached name asked the gateway again")
  client:close()
end
gw:stop()
os.execute("rm -rf " .. dir)
print(string.format("resolve ipns://NAME on loopback: fresh %.0f us (one request), cached %.1f us (none)",
  median(fresh), median(cached)))
