-- Benchmark: fetching from one local `ipfsrt serve` (a process of its own) with the
-- gateway client, verified and unverified, beside curl's CLI fetching the same
-- URLs deserialized (--parallel --parallel-max 16 --parallel-immediate), in one run:
--   4,000 blocks of 64 KiB by CID (cold cache: a fresh process each time),
--   one 1 GiB file.
-- Each fetch runs as a child process so its peak RSS can be read.
-- Usage: ipfsrt scripts/bench/fetch.lua [RUNS=3] [DIR=build/bench]
-- (IPFSRT_EXE names the executable to run, default build/ipfsrt)
local ipfsrt = require "ipfsrt"
-- the benchmarks' helpers beside this script (scripts/bench/lib), not part of the library
package.path = (arg[0]:match("^(.*)/") or ".") .. "/lib/?.lua;" .. package.path
local bench = require "bench"
local sh, median = bench.sh, bench.median

-- The child: ipfsrt fetch.lua --worker MODE VERIFY GATEWAY ARG
if arg[1] == "--worker" then
  local mode, verify, gateway, what = arg[2], arg[3] == "verified", arg[4], arg[5]
  local client = ipfsrt.client { gateways = { gateway }, verify = verify, cache = false,
    concurrency = 16 }
  local t0, bytes = ipfsrt.clock(), 0
  if mode == "blocks" then
    local cids = {}
    for line in io.lines(what) do cids[#cids + 1] = line end
    client:blocks(cids, function(_, _, data) bytes = bytes + #data end)
  else
    local null <close> = io.open("/dev/null", "wb")
    client:get("ipfs://" .. what, function(piece) bytes = bytes + #piece; null:write(piece) end)
  end
  local secs = ipfsrt.clock() - t0
  local status = io.open("/proc/self/status"):read("a")
  print(secs, bytes, tonumber(status:match("VmHWM:%s*(%d+)")))
  return
end

local runs = tonumber(arg[1]) or 3
local dir = (arg[2] or "build/bench") .. "/gateway"
local exe = os.getenv("IPFSRT_EXE") or "build/ipfsrt"
local script = arg[0]
for _, tool in ipairs({ "curl", "/usr/bin/time" }) do
  if not os.execute("command -v " .. tool .. " >/dev/null") then
    error(tool .. " is not installed (make bench-deps)", 0)
  end
end
local data = bench.dataset(dir)

-- the gateway: its own process, so it does not share this one's cores' scheduling
local gateway = bench.serve(exe, { data.blocks_car, data.big_car }, dir)
local cid_list = dir .. "/cids.txt"

local function worker(mode, verify, what)
  local out = sh(string.format("%s %s --worker %s %s %s %s", exe, script, mode, verify, gateway, what))
  local secs, bytes, rss = out:match("([%d.e+-]+)%s+(%d+)%s+(%d+)")
  return tonumber(secs), tonumber(bytes), tonumber(rss)
end

-- curl: the same URLs, deserialized; /usr/bin/time reports its peak RSS (KiB)
local curl_cfg = dir .. "/curl-blocks.cfg"
do
  local f = io.open(curl_cfg, "w")
  for _, c in ipairs(data.cids) do f:write(string.format('url = "%s/ipfs/%s"\noutput = "/dev/null"\n', gateway, c)) end
  f:close()
end
local function curl(args)
  local t0 = ipfsrt.clock()
  local out = sh(string.format("/usr/bin/time -f 'RSS %%M' curl -sf --parallel --parallel-max 16 " ..
    "--parallel-immediate %s 2>&1", args))
  return ipfsrt.clock() - t0, tonumber(out:match("RSS (%d+)"))
end

local r = {}
local function add(key, secs, bytes, rss)
  r[key] = r[key] or { secs = {}, rss = {}, bytes = bytes }
  table.insert(r[key].secs, secs)
  table.insert(r[key].rss, rss)
end
local block_bytes = #data.cids * 65536
for _ = 1, runs do
  local s, b, m = worker("blocks", "verified", cid_list)
  assert(b == block_bytes, "verified blocks: short")
  add("blocks_verified", s, b, m)
  s, b, m = worker("blocks", "unverified", cid_list)
  assert(b == block_bytes, "unverified blocks: short")
  add("blocks_unverified", s, b, m)
  s, m = curl("-K " .. curl_cfg)
  add("blocks_curl", s, block_bytes, m)
  s, b, m = worker("file", "verified", data.big_root)
  assert(b == 1 << 30, "verified file: short")
  add("file_verified", s, b, m)
  s, b, m = worker("file", "unverified", data.big_root)
  assert(b == 1 << 30, "unverified file: short")
  add("file_unverified", s, b, m)
  s, m = curl(string.format("-o /dev/null %s/ipfs/%s", gateway, data.big_root))
  add("file_curl", s, 1 << 30, m)
end
sh("kill $(cat " .. dir .. "/serve.pid)")

local function row(label, key, count)
  local e = r[key]
  local secs = median(e.secs)
  local line = string.format("%-34s %8.0f MB/s", label, e.bytes / secs / 1e6)
  if count then line = line .. string.format(" %8.0f blocks/s", count / secs) end
  return line .. string.format("   peak RSS %6.1f MiB", median(e.rss) / 1024), e.bytes / secs
end
print(string.format("loopback, one ipfsrt serve process, %d runs, medians", runs))
local n = #data.cids
local bv, v1 = row("4,000 x 64 KiB blocks  verified", "blocks_verified", n)
local bu, u1 = row("                       unverified", "blocks_unverified", n)
local bc, c1 = row("                       curl --parallel", "blocks_curl", n)
local fv, v2 = row("1 GiB file             verified", "file_verified")
local fu, u2 = row("                       unverified", "file_unverified")
local fc, c2 = row("                       curl", "file_curl")
for _, l in ipairs({ bv, bu, bc, fv, fu, fc }) do print(l) end
print(string.format("verified / unverified: blocks %.2f, file %.2f (target >= 0.95)", v1 / u1, v2 / u2))
print(string.format("verified / curl:       blocks %.2f, file %.2f (target >= 1.0)", v1 / c1, v2 / c2))
