-- Benchmark: `ipfsrt serve` beside nginx serving the same bytes as static files,
-- measured in one run on loopback. Requests/s for 64 KiB raw blocks at 16
-- connections (wrk), and MB/s for a 1 GiB file fetched whole by curl: from
-- ipfsrt as a CAR and deserialized, from nginx as a static file.
-- Usage: ipfsrt scripts/bench/serve.lua [SECONDS=5] [RUNS=3] [DIR=build/bench]
local ipfsrt = require "ipfsrt"
-- the benchmarks' helpers beside this script (scripts/bench/lib), not part of the library
package.path = (arg[0]:match("^(.*)/") or ".") .. "/lib/?.lua;" .. package.path
local bench = require "bench"
local sh, median = bench.sh, bench.median

local seconds = tonumber(arg[1]) or 5
local runs = tonumber(arg[2]) or 3
local dir = (arg[3] or "build/bench") .. "/gateway"
local abs = io.popen("cd " .. (arg[3] or "build/bench") .. " && pwd"):read("l") .. "/gateway"



for _, tool in ipairs({ "wrk", "nginx", "curl" }) do
  if not os.execute("command -v " .. tool .. " >/dev/null") then
    error(tool .. " is not installed (make bench-deps)", 0)
  end
end

local data = bench.dataset(dir)
local blocks_car, cids, big_root = data.blocks_car, data.cids, data.big_root

-- nginx on a port of its own, 2 workers like the 2 cores here
local port = 18000 + math.random(0, 999)
local conf = dir .. "/nginx.conf"
io.open(conf, "w"):write(string.format([[
worker_processes 2;
pid %s/nginx.pid;
error_log %s/nginx-error.log;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:%d;
    root %s/www;
    location / { default_type application/octet-stream; }
  }
}
]], abs, abs, port, abs))
sh("nginx -c " .. abs .. "/nginx.conf")
local nginx = "http://127.0.0.1:" .. port

local gw <close> = ipfsrt.serve { cars = { blocks_car, dir .. "/big.car" } }
local ours = gw:url()

-- wrk cycles through every block's URL
local script = dir .. "/blocks.lua"
local f = io.open(script, "w")
f:write("local paths = {\n")
for _, c in ipairs(cids) do f:write(string.format("%q,\n", "/ipfs/" .. c .. "?format=raw")) end
f:write("}\nlocal i = 0\nrequest = function()\n  i = i % #paths + 1\n",
  "  return wrk.format('GET', paths[i], { Accept = 'application/vnd.ipld.raw' })\nend\n")
f:close()

local function wrk_rps(base)
  local out = sh(string.format("wrk -t 2 -c 16 -d %ds -s '%s' '%s' 2>&1", seconds, script, base))
  return tonumber(out:match("Requests/sec:%s*([%d.]+)"))
end

local function curl_mbs(url, accept)
  local out = sh(string.format("curl -s -o /dev/null -H 'Accept: %s' -w '%%{speed_download} %%{size_download}' '%s'",
    accept, url))
  local speed, size = out:match("([%d.]+) (%d+)")
  assert(tonumber(size) >= 1 << 30, "short download from " .. url)
  return tonumber(speed) / 1e6
end

local r = { ours_rps = {}, nginx_rps = {}, car = {}, plain = {}, nginx_file = {} }
for _ = 1, runs do
  r.ours_rps[#r.ours_rps + 1] = wrk_rps(ours)
  r.nginx_rps[#r.nginx_rps + 1] = wrk_rps(nginx)
  r.car[#r.car + 1] = curl_mbs(ours .. "/ipfs/" .. big_root .. "?format=car", "application/vnd.ipld.car")
  r.plain[#r.plain + 1] = curl_mbs(ours .. "/ipfs/" .. big_root, "*/*")
  r.nginx_file[#r.nginx_file + 1] = curl_mbs(nginx .. "/big.bin", "*/*")
end
sh("nginx -s stop -c " .. abs .. "/nginx.conf")

local ours_rps, nginx_rps = median(r.ours_rps), median(r.nginx_rps)
local car, plain, file = median(r.car), median(r.plain), median(r.nginx_file)
print(string.format("loopback, %d runs of %d s (wrk -t2 -c16), medians", runs, seconds))
print(string.format("64 KiB raw blocks   ipfsrt %8.0f req/s   nginx %8.0f req/s   ratio %5.1f %%",
  ours_rps, nginx_rps, 100 * ours_rps / nginx_rps))
print(string.format("1 GiB file          ipfsrt CAR %6.0f MB/s   deserialized %6.0f MB/s   nginx %6.0f MB/s",
  car, plain, file))
print(string.format("ratios              CAR %5.1f %%   deserialized %5.1f %% of nginx", 100 * car / file,
  100 * plain / file))
print(string.format("targets: >= 50 %% of nginx's req/s: %s; >= 70 %% of its MB/s: %s",
  ours_rps >= 0.5 * nginx_rps and "met" or "NOT met",
  (car >= 0.7 * file and plain >= 0.7 * file) and "met" or "NOT met"))
