-- A soak of the verifying gateway (make tsan): `ipfsrt serve --upstream`, a
-- process of its own under ThreadSanitizer, in front of an honest and a
-- lying gateway, takes 1,200 requests at once (a connection each), three
-- times over; every answer must equal the folder's, none may fail, and a data
-- race ends the proxy (halt_on_error), failing what is still asked. Reports
-- the most requests in flight, the proxy's peak resident memory and threads.
-- Usage: ipfsrt tests/tsan/soak.lua DIR IPFSRT
local ipfsrt = require "ipfsrt"
local nd = ipfsrt.ndarray

local dir, exe = assert(arg[1], "usage: soak.lua DIR IPFSRT"), assert(arg[2], "usage: soak.lua DIR IPFSRT")
local CONCURRENT, ROUNDS = 1200, 3
assert(os.execute("rm -rf " .. dir .. " && mkdir -p " .. dir))
local a = ipfsrt.zarr.create(dir .. "/data.zarr", { shape = { 30, 400 }, chunks = { 2, 20 }, dtype = "int32",
  compressor = "zstd", zarr_format = 2 })
a:write(nil, nd.arange(30 * 400):astype("int32"):reshape { 30, 400 })
local car = dir .. "/data.car"
local root = tostring(ipfsrt.pack(dir .. "/data.zarr", { output = car }))
local honest <close> = ipfsrt.serve { cars = { car } }
local liar <close> = ipfsrt.serve { cars = { car }, faults = { tamper = 0.3, wrong_block = 0.2, seed = 5 } }

local function sh(cmd)
  local p = assert(io.popen(cmd, "r"))
  local out = p:read("a")
  p:close()
  return out
end

local log, err, pidfile = dir .. "/proxy.out", dir .. "/proxy.err", dir .. "/proxy.pid"
os.execute(string.format("sh -c 'echo $$ > %s; exec %s serve --upstream %s --upstream %s --max-connections 4096 " ..
  "--per-address 4096 --head-timeout 60' > %s 2> %s < /dev/null &", pidfile, exe, liar:url(), honest:url(), log, err))
local proxy
for _ = 1, 200 do
  proxy = (io.open(log) and io.open(log):read("a") or ""):match("^(http://[^\n]+)\n")
  if proxy then break end
  os.execute("sleep 0.1")
end
assert(proxy, "the proxy did not start")
local pid = io.open(pidfile):read("a"):match("%d+")
-- the proxy's threads, sampled while the clients run
local samples = dir .. "/threads"
os.execute(string.format("sh -c 'while kill -0 %s 2>/dev/null; do grep Threads /proc/%s/status; sleep 0.2; done' " ..
  "> %s 2>/dev/null &", pid, pid, samples))
local out = sh(string.format("/usr/bin/python3 tests/tsan/soak.py %s %s %s %d %d 2>&1", proxy, root,
  dir .. "/data.zarr", CONCURRENT, ROUNDS))
local hwm = (io.open("/proc/" .. pid .. "/status") or io.open("/dev/null")):read("a"):match("VmHWM:%s*(%d+) kB")
local most_threads = 0
for n in (io.open(samples):read("a")):gmatch("Threads:%s*(%d+)") do most_threads = math.max(most_threads, tonumber(n)) end
os.execute("kill " .. pid .. "; while kill -0 " .. pid .. " 2>/dev/null; do sleep 0.1; done")
local said = io.open(err):read("a")
local r = ipfsrt.json.decode(assert(out:match("{.*}"), out))
print(string.format("tsan soak: %d requests, %d at once at most, failed %d, wrong %d; the proxy's peak: %s MB " ..
  "resident, %d threads", r.requests, r.most, r.failed, r.wrong, hwm and string.format("%.0f", hwm / 1024) or "?",
  most_threads))
assert(not said:find("ThreadSanitizer", 1, true), said)
assert(r.requests == CONCURRENT * ROUNDS and r.failed == 0 and r.wrong == 0, "the proxy failed under the soak")
assert(r.most >= 1000, "fewer than 1,000 requests were in flight at once")
