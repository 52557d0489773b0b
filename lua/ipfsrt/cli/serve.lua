-- ipfsrt serve FILE.car... [--upstream URL...] [--listen 127.0.0.1:PORT]: a local
-- trustless gateway, over CARs and, verifying every block, in front of others.
local ipfsrt = require "ipfsrt"
local argparse = require "ipfsrt.argparse"
local fetchcli = require "ipfsrt.fetchcli"

local M = {
  summary = "a gateway over CAR files, or verifying in front of other gateways (--upstream)",
  usage = [[usage: ipfsrt serve [FILE.car...] [--upstream URL...] [--listen HOST:PORT] [--threads N]
                    [--log FILE] [--tls-cert CERT.pem --tls-key KEY.pem] [--ipns-records DIR]
                    [--head-timeout S] [--per-address N]
                    [fault injection: --tamper P --fail P --truncate P --reset P
                     --wrong-block P --wrong-dag P --delay MS[:JITTER]
                     --slow BYTES_PER_S --seed N] [-q]

Verifies every CAR, prints the base URL as its first line, then serves until SIGINT
or SIGTERM, and says on stderr how many requests it served (-q, --quiet: not). PORT 0 (the default, on 127.0.0.1) picks a free port.
HOST:PORT, :PORT and PORT listen on 127.0.0.1 unless HOST says otherwise ([::1]:PORT for
IPv6). Answers GET/HEAD /ipfs/{cid}[/path]?format=raw (or Accept: application/vnd.ipld.raw)
with the block the path ends at, and /ipfs/{cid}[/path]?format=car (or Accept:
application/vnd.ipld.car) with a CARv1 in DFS order holding the path's blocks and the
dag-scope (block, entity, all) or entity-bytes=FROM:TO range; with no format, the file's
bytes (Range), a directory's index.html, or its listing (HTML; JSON for Accept:
application/json), a directory's URL without its trailing slash redirected (301) to
it; a symlink answers its target as text; of several ranges the first is answered;
Cache-Control: only-if-cached gets 412 for what is not held here; a file of JSON bytes is
application/json (?format=json asks for that, 406 for other bytes). Every answer allows any origin (CORS; OPTIONS answers
preflights); an If-None-Match naming the answer's Etag is answered 304; Vary: Accept,
and Content-Location when Accept chose the format; ?filename= names the download.
Faults, for tests and demos (P is a probability per request, reproducible with --seed):
tamper flips a byte inside a block, fail answers 500/502/503/429 with Retry-After,
truncate cuts the body mid-block, reset drops the connection, wrong-block sends a valid
block of another CID, wrong-dag answers a CAR request with the valid CAR of another
served root (of a block of its own when only one root is served), delay waits MS
(plus up to JITTER) ms, slow paces the body.
--log writes a line per request: time, method, path, query, status, bytes, faults.
A request's head must be in within --head-timeout seconds (default 10) of its
connection's start or of the end of the request before it, else the connection is
closed: clients sending a byte at a time hold nothing for long. One address holds at
most --per-address connections at once (default 512; local clients share 127.0.0.1).

In front of other gateways (--upstream URL, repeatable, or the client's gateway
options below with --gateway): what the CARs lack is fetched from them through the
verified client (policies, retries, the block cache with --cache-dir), every block
checked against its CID before a byte of it is served, so any HTTP tool reading
through this gateway gets verified bytes. Blocks several requests want at once are
fetched once; adapted concurrency starts at 64 in flight per upstream, its clients
being many at once. Upstream failures are answered 502 (504 when nothing answered in
time) with a line naming the CID and what each upstream did; content proven absent
(a verified directory without the name) 404. File bytes stream as their blocks
arrive; a failure mid-body ends the connection short. What waits for blocks waits
on a worker thread, its connection set aside, so a waiting or slow client holds no
thread (--max-connections N, default 1024); faults cannot be injected.
--tls-cert and --tls-key (PEM) make it speak HTTPS only (the URL printed says https).
--ipns-records DIR serves the IPNS records in DIR (files named NAME[_...], each a record,
each verified; the folder read again when it changes; a name's highest valid sequence
wins): /ipns/NAME?format=ipns-record answers the record, /ipns/NAME[/path] what it
points at (cached for its TTL); a name with no valid record answers 502. In front of
an upstream, names the folder lacks are asked upstream, and only records that
verify are passed on.
The client's options below apply in front of upstreams; serve goes upstream only
when given --upstream or --gateway (IPFS_GATEWAY and the gateway files are not read).]] ..
    fetchcli.options_help,
}

local function rate(opts, name)
  if opts[name] == nil then return nil end
  local p = tonumber(opts[name])
  if not p or p < 0 or p > 1 then argparse.usage_error("--%s needs a probability from 0 to 1", name) end
  return p
end

local SERVE_SPEC = {
  listen = "string", threads = "string", log = "string", tamper = "string", fail = "string",
  truncate = "string", reset = "string", ["wrong-block"] = "string", ["wrong-dag"] = "string", delay = "string",
  slow = "string", seed = "string", ["tls-cert"] = "string", ["tls-key"] = "string", ["ipns-records"] = "string", quiet = "boolean",
  upstream = "list", ["max-connections"] = "string", ["head-timeout"] = "string", ["per-address"] = "string",
}

-- The verified client in front of which the gateway serves, or nil.
local function upstream_client(opts)
  if not opts.upstream and not opts.gateway then return nil end
  opts.gateway = opts.gateway or {}
  for _, url in ipairs(opts.upstream or {}) do opts.gateway[#opts.gateway + 1] = url end
  fetchcli.check_gateways(opts)
  if opts["no-verify"] then argparse.usage_error("serve verifies what it fetches: --no-verify has no place here") end
  return fetchcli.client(opts)
end

function M.run(args)
  local spec = {}
  for k, v in pairs(fetchcli.spec) do spec[k] = v end
  for k, v in pairs(SERVE_SPEC) do spec[k] = v end
  local pos, opts = argparse.parse(args, spec, { q = "quiet", v = "verbose" })
  local client = upstream_client(opts)
  if #pos == 0 and not client then argparse.usage_error("expected at least one CAR file, or --upstream URL") end
  local threads = argparse.whole(opts, "threads", 1)
  local delay, jitter
  if opts.delay then
    local d, j = opts.delay:match("^(%d+):(%d+)$")
    d = d or opts.delay:match("^(%d+)$")
    if not d then argparse.usage_error("--delay needs MS or MS:JITTER") end
    delay, jitter = tonumber(d), tonumber(j or 0)
  end
  -- names are asked upstream by a client of their own (the relay's is its alone)
  local names_client = client and fetchcli.client(opts)
  local gw = ipfsrt.serve {
    cars = #pos > 0 and pos or nil, upstream = client, ipns_client = names_client, max_connections = argparse.whole(opts, "max-connections", 1),
    head_seconds = argparse.whole(opts, "head-timeout", 1), per_address = argparse.whole(opts, "per-address", 1),
    listen = opts.listen or "127.0.0.1:0", threads = threads, log = opts.log,
    tls_cert = opts["tls-cert"], tls_key = opts["tls-key"], ipns_records = opts["ipns-records"],
    faults = {
      tamper = rate(opts, "tamper"), fail = rate(opts, "fail"), truncate = rate(opts, "truncate"),
      reset = rate(opts, "reset"), wrong_block = rate(opts, "wrong-block"),
      wrong_dag = rate(opts, "wrong-dag"),
      delay_ms = delay, delay_jitter_ms = jitter, slow = argparse.whole(opts, "slow"), seed = argparse.whole(opts, "seed"),
    },
  }
  print(gw:url())
  io.stdout:flush()
  local sig = gw:wait()
  local st = gw:stats()
  gw:stop()
  if client then
    fetchcli.report(client, opts)
    client:close()
    names_client:close()
  end
  if opts.quiet then return 0 end
  io.stderr:write(string.format("ipfsrt serve: %s, stopping after %d requests (%d bytes)\n", sig,
    st.requests, st.bytes))
  return 0
end

return M
