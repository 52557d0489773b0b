-- What the fetching subcommands (get, ls, stat) share: their options, the client
-- they make, the progress bar and the -v report.
local ipfsrt = require "ipfsrt"
local argparse = require "ipfsrt.argparse"

local M = {}

M.options_help = [[

Gateways: --gateway URL (repeatable), else IPFS_GATEWAY (URLs separated by commas or
spaces), else the first line of $IPFS_PATH/gateway, ~/.ipfs/gateway,
$XDG_CONFIG_HOME/ipfs/gateway or /etc/ipfs/gateway, else public gateways (safe: every
block is verified). Options may come before or after the URL:
  --policy NAME|FILE.lua  gateway selection policy (else IPFSRT_POLICY; built in:
                          round_robin, fastest, hedged, failover, trust)
  --no-verify             plain GETs, nothing checked (also takes http(s) URLs)
  --cache-dir DIR         keep verified blocks in DIR; --trust-cache skips re-hashing them
  --cache-size N          keep DIR under N bytes (K, M, G, T suffixes; default 10G),
                          the blocks used longest ago deleted first
  --cacert FILE           CAs to trust for https gateways (PEM; else CURL_CA_BUNDLE,
                          SSL_CERT_FILE, the system's)
  --timeout S             first-byte and stall timeout (default 30)
  --min-rate B            a body slower than B bytes/s over the timeout fails (default 1024)
  --deadline S            one request may take S seconds in all (default: no limit)
  --give-up S             fail once no gateway has answered for S seconds, over all
                          attempts (default 60; never: wait for ever)
  --concurrency N         requests in flight per gateway, fixed (default: adapted, from 16)
  --max-concurrency N     the most in flight per gateway when adapted (default 128)
  --retries N             rounds over the gateways after all failed (default 2)
  -v, --verbose           gateways used, per-gateway statistics, policy reports (stderr)
  -q, --quiet             no progress bar
A gateway URL (https://GATEWAY/ipfs/CID/path) is read as ipfs://CID/path through
that gateway, verified. ipns://NAME[/path] (an IPNS name, or a DNSLink domain) is
read as the /ipfs/ path its record names now: the record asked of the gateways,
verified (see ipfsrt name).]]

-- Options every fetching subcommand takes; each adds its own (parse's extra).
M.spec = {
  gateway = "list", policy = "string", ["no-verify"] = "boolean", ["cache-dir"] = "string",
  ["trust-cache"] = "boolean", ["cache-size"] = "string", timeout = "string", concurrency = "string", ["max-concurrency"] = "string",
  retries = "string", ["min-rate"] = "string", deadline = "string", ["give-up"] = "string",
  verbose = "boolean", cacert = "string", quiet = "boolean",
}
M.aliases = { v = "verbose", q = "quiet" }

-- The client for these options; log lines of the policy go to stderr with -v.
function M.client(opts)
  local verbose = opts.verbose
  local log = function(line) if verbose then io.stderr:write(line, "\n") end end
  local client = ipfsrt.client {
    gateways = opts.gateway,
    policy = opts.policy,
    verify = not opts["no-verify"],
    cache = { dir = opts["cache-dir"], trust = opts["trust-cache"], size = argparse.bytes(opts, "cache-size") },
    timeout = argparse.positive(opts, "timeout"),
    min_rate = argparse.positive(opts, "min-rate"),
    deadline = argparse.positive(opts, "deadline"),
    give_up = opts["give-up"] ~= "never" and argparse.positive(opts, "give-up"),
    cacert = opts.cacert,
    concurrency = argparse.whole(opts, "concurrency", 1),
    max_concurrency = argparse.whole(opts, "max-concurrency", 1),
    retries = argparse.whole(opts, "retries", 1),
    log = log,
  }
  if verbose then
    local urls, source = client:gateways()
    io.stderr:write(string.format("gateways (from %s): %s\n", source, table.concat(urls, ", ")))
    io.stderr:write(string.format("policy: %s; %s\n", opts.policy or os.getenv("IPFSRT_POLICY") or
      "built-in order", client:verifies() and "verifying every block" or "NOT verifying (--no-verify)"))
  end
  return client
end

local function human(bytes)
  local units = { "B", "KiB", "MiB", "GiB", "TiB" }
  local i = 1
  while bytes >= 1024 and i < #units do bytes = bytes / 1024; i = i + 1 end
  return string.format(i == 1 and "%.0f %s" or "%.1f %s", bytes, units[i])
end
M.human = human

local function duration(s)
  if s >= 3600 then return string.format("%dh%02dm", s // 3600, s % 3600 // 60) end
  if s >= 60 then return string.format("%dm%02ds", s // 60, s % 60) end
  return string.format("%ds", math.ceil(s))
end

-- What a user waiting in silence is told, after WAIT_NOTICE seconds of it.
local WAIT_NOTICE = 5

-- "waiting for https://a, https://b: no answer yet, 7 s"
local function waiting_line(client, done, silent)
  local urls = client:gateways()
  local who = #urls <= 2 and table.concat(urls, ", ") or string.format("%s and %d more", urls[1], #urls - 1)
  if done == 0 then return string.format("waiting for %s: no answer yet, %d s", who, math.floor(silent)) end
  return string.format("%s so far; waiting for %s: nothing new for %d s", human(done), who, math.floor(silent))
end

-- A progress bar on stderr, shown only on a terminal (never with --quiet) once the
-- transfer has taken more than a second: bytes, rate and, when the size is known,
-- the time left; after WAIT_NOTICE seconds without a byte, what it waits for.
-- Returns a function that ends it with a one-line summary.
function M.progress(client, opts)
  if (opts and opts.quiet) or not ipfsrt.isatty(io.stderr) then return function() end end
  local start, shown, last, changed = ipfsrt.clock(), false, 0, ipfsrt.clock()
  client:on_progress(function(done, expected)
    local now = ipfsrt.clock()
    local elapsed = now - start
    if done ~= last then changed = now end
    last = done
    if elapsed < 1 then return end
    shown = true
    if now - changed >= WAIT_NOTICE then
      io.stderr:write("\r", waiting_line(client, done, now - changed), "\27[K")
      return
    end
    local rate = done / elapsed
    local line
    if expected and expected > 0 then
      local frac = math.min(done / expected, 1)
      local width = 30
      local fill = math.floor(frac * width)
      local eta = rate > 0 and (expected - done) / rate or 0
      line = string.format("[%s%s] %3d%% %s of %s, %s/s, %s left", string.rep("#", fill),
        string.rep(" ", width - fill), math.floor(frac * 100), human(done), human(expected),
        human(rate), duration(eta))
    else
      line = string.format("%s, %s/s", human(done), human(rate))
    end
    io.stderr:write("\r", line, "\27[K")
  end)
  return function(ok)
    client:on_progress(nil)
    if not shown then return end
    local elapsed = ipfsrt.clock() - start
    io.stderr:write("\r\27[K")
    if ok then
      io.stderr:write(string.format("%s in %s (%s/s), %s\n", human(last), duration(elapsed),
        human(last / math.max(elapsed, 1e-9)),
        client:verifies() and "every block verified" or "NOT verified (--no-verify)"))
    end
  end
end

-- The -v report: one line per gateway.
function M.report(client, opts)
  if not opts.verbose then return end
  for _, g in ipairs(client:stats()) do
    local errors = {}
    for kind, n in pairs(g.errors) do errors[#errors + 1] = kind .. "=" .. n end
    table.sort(errors)
    io.stderr:write(string.format(
      "%s: %d requests, %d ok, %s, %d verification failures, errors: %s, first byte p50/p90/p99 %.1f/%.1f/%.1f ms\n",
      g.url, g.requests, g.ok, human(g.bytes), g.verify_failures,
      #errors > 0 and table.concat(errors, " ") or "none",
      g.latency.p50 * 1000, g.latency.p90 * 1000, g.latency.p99 * 1000))
  end
end

function M.check_gateways(opts)
  for _, g in ipairs(opts.gateway or {}) do
    if not g:match("^https?://[^/]") then
      argparse.usage_error("--gateway %s is not a URL (http://HOST[:PORT] or https://...)", g)
    end
  end
end

-- The usage error for a web URL that is no gateway's, read without --no-verify.
function M.not_a_gateway(url)
  argparse.usage_error("%s is not a gateway URL of the form http(s)://GATEWAY/ipfs/CID[/path] " ..
    "(plain URLs can only be read unverified, with --no-verify)", url)
end

-- url as the client takes it: https://GATEWAY/ipfs/CID/path becomes
-- ipfs://CID/path through that gateway, verified (with --no-verify the URL is
-- fetched as it is); other http(s) URLs need --no-verify, unless others_pass
-- (the caller then decides: a Zarr store knows a CAR on a web server, verified).
function M.gateway_url_target(url, opts, others_pass)
  if opts["no-verify"] then return url end
  local gw, ns, rest = url:match("^(https?://[^/]+)/(ip[fn]s)/(.+)$")
  if not gw then
    if url:match("^https?://") and not others_pass then M.not_a_gateway(url) end
    return url
  end
  if not opts.gateway then opts.gateway = { gw } end
  return ns .. "://" .. rest:gsub("[?#].*$", "")
end

-- Parses args for a subcommand taking one URL, with the options in extra (name =
-- kind, as argparse takes) besides the shared ones; returns url, opts.
function M.parse(args, name, extra, extra_aliases)
  local spec, aliases = {}, {}
  for k, v in pairs(M.spec) do spec[k] = v end
  for k, v in pairs(extra or {}) do spec[k] = v end
  for k, v in pairs(M.aliases) do aliases[k] = v end
  for k, v in pairs(extra_aliases or {}) do aliases[k] = v end
  local pos, opts = argparse.parse(args, spec, aliases)
  if #pos ~= 1 then argparse.usage_error("%s needs one ipfs://CID[/path] (or ipns://NAME[/path])", name) end
  M.check_gateways(opts)
  return M.gateway_url_target(pos[1], opts), opts
end

-- err with what the user can do about it added: name a gateway when public ones
-- failed and none was given; wait longer when the client gave up.
function M.explain(err, opts)
  if type(err) ~= "table" or type(err.message) ~= "string" then return err end
  if (err.code == "fetch_failed" or err.code == "timed_out") and not opts.gateway then
    local urls, source = ipfsrt.gateways()
    local asked = false -- a public gateway is named: the failure was theirs (not, say, a file's)
    for _, u in ipairs(urls) do asked = asked or err.message:find(u, 1, true) ~= nil end
    if asked and source:find("built-in", 1, true) then -- the user named none: say how
      err.message = err.message .. " (no gateway was given, so public ones were asked: name yours with " ..
        "--gateway URL or IPFS_GATEWAY=URL)"
    end
  end
  if err.message:find("no gateway answered for", 1, true) then
    err.message = err.message .. " (--give-up S waits longer)"
  end
  return err
end

-- Runs fn(client) and prints the -v report whether it worked or not.
function M.with_client(opts, fn)
  local client = M.client(opts)
  local ok, err = pcall(fn, client)
  M.report(client, opts)
  client:close()
  if not ok then error(M.explain(err, opts), 0) end
end

return M
