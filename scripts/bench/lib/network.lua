-- The benchmarks' network: a gateway (`ipfsrt serve` over CARs) behind what a
-- public gateway has in front of it, a TLS + HTTP/2 server (Debian's nghttpx,
-- offering h2 and http/1.1), and between that and the clients the network
-- emulator (netem.c: round-trip time, bandwidth, loss, jitter, TCP's handshake
-- and window). The model and its limits: scripts/bench/README.md.
local bench = require "bench"
local M = {}

local function free_port()
  return tonumber(bench.sh("/usr/bin/python3 -c \"import socket; s = socket.socket(); " ..
    "s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])\""))
end

local function wait_for(what, ready)
  for _ = 1, 300 do
    local v = ready()
    if v then return v end
    bench.sh("sleep 0.02")
  end
  error(what .. " did not start", 0)
end

-- A self-signed certificate for 127.0.0.1, made once in dir.
function M.certificate(dir)
  local cert, key = dir .. "/tls-cert.pem", dir .. "/tls-key.pem"
  if not io.open(cert) then
    bench.sh(string.format("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 " ..
      "-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 -keyout %s -out %s 2>&1", key, cert))
  end
  return cert, key
end

-- Starts the gateway over cars, the TLS front when o.https (offering HTTP/2
-- and HTTP/1.1 by ALPN, or HTTP/1.1 alone when o.http1), and the emulator
-- (o.rtt ms, o.rate and o.shared Mbit/s, o.loss, o.jitter ms, o.iw segments;
-- o.delay ms: the gateway's own wait before each answer, as `serve --delay`;
-- o.log: the gateway's log of requests, as `serve --log`).
-- Returns {url, env (what a client's command needs to trust the front),
-- stats() (the emulator's counts so far), stop()}.
function M.start(exe, dir, cars, o)
  bench.sh(string.format("mkdir -p %s", bench.quote(dir)))
  local args = {}
  for _, car in ipairs(cars) do args[#args + 1] = car end
  for _, a in ipairs { "-q", "--threads", "2" } do args[#args + 1] = a end
  if (o.delay or 0) > 0 then args[#args + 1], args[#args + 2] = "--delay", tostring(o.delay) end
  if o.log then args[#args + 1], args[#args + 2] = "--log", o.log end
  local gateway, stop_gateway = bench.start_serve(exe, args)
  local pids, net = {}, { env = "" }
  local port = assert(tonumber(gateway:match(":(%d+)$")))
  if o.https then
    local cert, key = M.certificate(dir)
    local front = free_port()
    -- --conf=/dev/null: Debian's /etc/nghttpx/nghttpx.conf adds a frontend on
    -- port 3000, so a second nghttpx (a test beside a benchmark) could not start
    pids[#pids + 1] = bench.spawn(string.format("nghttpx --conf=/dev/null --frontend=127.0.0.1,%d --backend=127.0.0.1,%d --workers=1 " ..
      "--backend-connections-per-host=128 --frontend-http2-max-concurrent-streams=256 --no-ocsp " ..
      "--log-level=WARN --errorlog-file=%s/nghttpx.log --accesslog-file=/dev/null %s%s %s", front, port, dir,
      o.http1 and "--npn-list=http/1.1 " or "", bench.quote(key), bench.quote(cert)), "/dev/null")
    wait_for("nghttpx", function() return os.execute("curl -s -o /dev/null --cacert " .. bench.quote(cert) ..
      " https://127.0.0.1:" .. front .. "/") end)
    port = front
    local pem = bench.quote(cert)
    net.env = string.format("CURL_CA_BUNDLE=%s SSL_CERT_FILE=%s NODE_EXTRA_CA_CERTS=%s", pem, pem, pem)
  end
  local netem_out, stats_file = os.tmpname(), os.tmpname()
  pids[#pids + 1] = bench.spawn(string.format("%s --to %d --rtt %s --rate %s --shared-rate %s --loss %s --jitter %s " ..
    "--iw %s --stats %s", o.netem or "build/bench/netem", port, o.rtt or 0, o.rate or 0, o.shared or 0, o.loss or 0,
    o.jitter or 0, o.iw or 10, stats_file), netem_out)
  local listen = wait_for("netem", function()
    local f = io.open(netem_out)
    local p = f and f:read("n")
    if f then f:close() end
    return p
  end)
  net.url = string.format("%s://127.0.0.1:%d", o.https and "https" or "http", listen)
  local netem_pid = pids[#pids]
  function net.stats()
    os.remove(stats_file)
    bench.sh("kill -USR1 " .. netem_pid)
    return wait_for("netem's counts", function()
      local f = io.open(stats_file)
      local s = f and f:read("a")
      if f then f:close() end
      return s and require("ipfsrt").json.decode(s)
    end)
  end
  function net.stop()
    for i = #pids, 1, -1 do bench.stop_process(pids[i]) end
    stop_gateway()
    os.remove(netem_out)
    os.remove(stats_file)
  end
  return net
end

return M
