-- Benchmark: the transfer matrix of the published libp2p measurement (two
-- hosts on one machine copying 1000 MB over loopback: 51-58 MB/s with secio,
-- 79-80 MB/s with TLS AES-GCM, 99-106 MB/s with no security), here a random
-- 1 GiB file through `ipfsrt serve` processes on 127.0.0.1: plain HTTP and
-- HTTPS (a self-signed pair made here), each unverified and verified (every
-- block hash-checked against its CID), and HTTP/2 over TLS through Debian's
-- nginx as a reverse proxy in front of serve (the client multiplexes its
-- requests on one connection). Target: verified over HTTPS at least 5x the
-- seed's TLS figure.
-- Usage: ipfsrt scripts/bench/transfer.lua [RUNS=3] [DIR=build/bench]
-- (IPFSRT_EXE names the executable that serves, default build/ipfsrt)
local ipfsrt = require "ipfsrt"
-- the benchmarks' helpers beside this script (scripts/bench/lib), not part of the library
package.path = (arg[0]:match("^(.*)/") or ".") .. "/lib/?.lua;" .. package.path
local bench = require "bench"

local runs = tonumber(arg[1]) or 3
local dir = (arg[2] or "build/bench") .. "/gateway"
local exe = os.getenv("IPFSRT_EXE") or "build/ipfsrt"
local data = bench.dataset(dir)
local cert, key = dir .. "/tls-cert.pem", dir .. "/tls-key.pem"
if not io.open(cert) then
  bench.sh(string.format("openssl req -x509 -newkey rsa:2048 -nodes -keyout %s -out %s -days 30 " ..
    "-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 2>/dev/null", key, cert))
end
local plain = bench.serve(exe, { data.big_car }, dir .. "/plain")
local tls = bench.serve(exe, { data.big_car }, dir .. "/tls", string.format("--tls-cert %s --tls-key %s", cert, key))
local root = data.big_root:gsub("%s", "")

-- nginx (2 workers, as 2 cores) speaking HTTP/2 over TLS, proxying to the plain serve
local h2
if os.execute("command -v nginx >/dev/null") then
  local abs = bench.sh("cd '" .. dir .. "' && pwd"):gsub("%s+$", "")
  local port = 19000 + math.random(0, 999)
  local f = assert(io.open(dir .. "/nginx-h2.conf", "w"))
  f:write(string.format([[
worker_processes 2;
pid %s/nginx-h2.pid;
error_log %s/nginx-h2-error.log;
events { worker_connections 1024; }
http {
  access_log off;
  upstream serve { server %s; keepalive 64; }
  server {
    listen 127.0.0.1:%d ssl http2;
    ssl_certificate %s/tls-cert.pem;
    ssl_certificate_key %s/tls-key.pem;
    http2_max_concurrent_streams 128;
    location / {
      proxy_pass http://serve;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
    }
  }
}
]], abs, abs, plain:match("//(.*)$"), port, abs, abs))
  f:close()
  bench.sh(string.format("nginx -c %s/nginx-h2.conf", abs))
  h2 = "https://127.0.0.1:" .. port
end

local CASES = {
  { "HTTP, unverified", plain, false }, { "HTTPS, unverified", tls, false },
  { "HTTP, verified", plain, true }, { "HTTPS, verified", tls, true },
}
if h2 then
  CASES[#CASES + 1] = { "HTTP/2 nginx, unverified", h2, false }
  CASES[#CASES + 1] = { "HTTP/2 nginx, verified", h2, true }
end
local rates = {}
for _ = 1, runs do
  for _, c in ipairs(CASES) do
    local client = ipfsrt.client { gateways = { c[2] }, verify = c[3], cache = false, concurrency = 16, cacert = cert }
    local bytes, t0 = 0, ipfsrt.clock()
    client:get("ipfs://" .. root, function(piece) bytes = bytes + #piece end)
    local secs = ipfsrt.clock() - t0
    client:close()
    assert(bytes == 1 << 30, c[1] .. ": short")
    rates[c[1]] = rates[c[1]] or {}
    table.insert(rates[c[1]], bytes / secs / 1e6)
  end
end
bench.sh(string.format("kill $(cat %s/plain/serve.pid) $(cat %s/tls/serve.pid)", dir, dir))
if h2 then bench.sh(string.format("kill $(cat %s/nginx-h2.pid)", dir)) end

print(string.format("1 GiB through ipfsrt serve on 127.0.0.1, medians of %d runs", runs))
for _, c in ipairs(CASES) do print(string.format("  %-26s %7.0f MB/s", c[1], bench.median(rates[c[1]]))) end
print("  the seed's libp2p copy: 51-58 MB/s secio, 79-80 MB/s TLS AES-GCM, 99-106 MB/s no security")
local ratio = bench.median(rates["HTTPS, verified"]) / 80
print(string.format("  HTTPS verified / the seed's TLS = %.1fx (target >= 5x: %s)", ratio, ratio >= 5 and "ok" or "MISSED"))
