-- Benchmark: `ipfsrt serve --upstream` under load. 64 clients (Python threads,
-- plain HTTP) read random files of the OISST-like sample through one proxy for
-- 30 s; the proxy's upstreams are two local gateways, one of which tampers with
-- a third of its answers and sends wrong blocks in a fifth. Every answer is
-- compared with the sample's folder: no wrong byte and no failed request
-- allowed. Quotes requests/s, latency and the proxy's peak memory (VmHWM).
-- Usage: ipfsrt scripts/bench/proxy_load.lua [--days 60] [--clients 64] [--seconds 30] [--dir build/bench]
local ipfsrt = require "ipfsrt"
package.path = (arg[0]:match("^(.*)/") or ".") .. "/lib/?.lua;" .. package.path
local bench = require "bench"

local o = { days = "60", clients = "64", seconds = "30", dir = "build/bench" }
for i = 1, #arg, 2 do o[(arg[i]:gsub("^%-%-", ""))] = arg[i + 1] end
local exe = os.getenv("IPFSRT_EXE") or "build/ipfsrt"
local sample, car, root = bench.sample(exe, o.dir, o.days, "2")
local honest <close> = ipfsrt.serve { cars = { car } }
local liar <close> = ipfsrt.serve { cars = { car }, faults = { tamper = 0.3, wrong_block = 0.2, seed = 11 } }
local proxy, stop, pid = bench.start_serve(exe, { "--upstream", liar:url(), "--upstream", honest:url(), "-v" })
local out = bench.sh(string.format("/usr/bin/python3 scripts/bench/proxy_load.py %s %s %s %s %s", proxy, root,
  sample, o.clients, o.seconds))
local status = pid and io.open("/proc/" .. pid .. "/status")
local hwm = status and status:read("a"):match("VmHWM:%s*(%d+) kB")
if status then status:close() end
local report = stop()
local r = ipfsrt.json.decode(out:match("{.*}"))
local refused = tonumber(report:match(liar:url():gsub("%p", "%%%0") .. ": .-(%d+) verification failures")) or 0
print(string.format("proxy under load: %s clients for %s s, %d days of the sample, upstreams: one honest, one lying",
  o.clients, o.seconds, o.days))
print(string.format("  %d requests (%.0f/s, %.1f MB/s), failed %d, wrong %d; latency p50 %.1f ms, p99 %.1f ms",
  r.requests, r.requests / tonumber(o.seconds), r.bytes / tonumber(o.seconds) / 1e6, r.failed, r.wrong, r.p50_ms,
  r.p99_ms))
print(string.format("  the liar's blocks refused: %d; the proxy's peak resident memory: %s MB", refused,
  hwm and string.format("%.0f", tonumber(hwm) / 1024) or "?"))
if r.failed > 0 or r.wrong > 0 or refused == 0 then error("the proxy failed under load", 0) end
