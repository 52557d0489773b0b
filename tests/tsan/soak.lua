-- A soak of the verifying gateway (make tsan): `ipfsrt serve --upstream`, a
-- process of its own under ThreadSanitizer, in front of an honest and a
-- lying gateway, takes 1,200 requests at once (a connection each), three
-- times over; every answer must equal the folder's, none may fail, and a data
-- race ends the proxy (halt_on_error), failing what is still asked. Reports
-- the most requests in flight, the proxy's peak resident memory and threads.
-- Usage: ipfsrt tests/tsan/soak.lua DIR IPFSRT
local ipfsrt = require "ipfsrt"
local nd = ipfsrt.ndarray
-- the lua-exe specs' helpers: a serve process of its own, its peak memory, shell commands
package.path = arg[0]:gsub("[^/]*$", "") .. "../lua-exe/?.lua;" .. package.path
local exe = require "exe"

local dir, ipfsrt_exe = assert(arg[1], "usage: soak.lua DIR IPFSRT"), assert(arg[2], "usage: soak.lua DIR IPFSRT")
local CONCURRENT, ROUNDS = 1200, 3
assert(os.execute("rm -rf " .. dir .. " && mkdir -p " .. dir))
local a = ipfsrt.zarr.create(dir .. "/data.zarr", { shape = { 30, 400 }, chunks = { 2, 20 }, dtype = "int32",
  compressor = "zstd", zarr_format = 2 })
a:write(nil, nd.arange(30 * 400):astype("int32"):reshape { 30, 400 })
local car = dir .. "/data.car"
local root = tostring(ipfsrt.pack(dir .. "/data.zarr", { output = car }))
local honest <close> = ipfsrt.serve { cars = { car } }
local liar <close> = ipfsrt.serve { cars = { car }, faults = { tamper = 0.3, wrong_block = 0.2, seed = 5 } }

local proxy, stop, pid = exe.start_serve({ "--upstream", liar:url(), "--upstream", honest:url(),
  "--max-connections", "4096", "--per-address", "4096", "--head-timeout", "60" }, ipfsrt_exe)
-- the proxy's threads, sampled while the clients run
local samples = dir .. "/threads"
os.execute(string.format("sh -c 'while kill -0 %d 2>/dev/null; do grep Threads /proc/%d/status; sleep 0.2; done' " ..
  "> %s 2>/dev/null &", pid, pid, samples))
local out = exe.sh(string.format("/usr/bin/python3 tests/tsan/soak.py %s %s %s %d %d", proxy, root,
  dir .. "/data.zarr", CONCURRENT, ROUNDS))
local peak = exe.peak_memory(pid)
local most_threads = 0
for n in exe.slurp(samples):gmatch("Threads:%s*(%d+)") do most_threads = math.max(most_threads, tonumber(n)) end
local said = stop()
local r = ipfsrt.json.decode(assert(out:match("{.*}"), out))
print(string.format("tsan soak: %d requests, %d at once at most, failed %d, wrong %d; the proxy's peak: %s MB " ..
  "resident, %d threads", r.requests, r.most, r.failed, r.wrong, peak and string.format("%.0f", peak / 1048576) or "?",
  most_threads))
assert(not said:find("ThreadSanitizer", 1, true), said)
assert(r.requests == CONCURRENT * ROUNDS and r.failed == 0 and r.wrong == 0, "the proxy failed under the soak")
assert(r.most >= 1000, "fewer than 1,000 requests were in flight at once")
