-- ipfsrt.client{...}: the verified gateway client. Options are checked and
-- policies loaded here; the C binding (ipfsrt.client_new) takes them checked.
--
--   gateways    = URL or {URL, ...}  (default: ipfsrt.gateways())
--   policy      = name | FILE.lua | constructor | object | {name =, ...options}
--   log         = function(line), what the policy reports
--   verify      = true; false reads unverified bytes (benchmarks only)
--   cache       = {memory = bytes (0 = none), dir = path, trust = false,
--                  size = bytes the dir is kept under (default 10 GiB; false = no limit)} | false
--                 (dir default: $IPFSRT_CACHE_DIR/blocks when that is set)
--   concurrency = requests in flight per gateway, fixed (default: adapted to each
--                 gateway's answers, from 16 up to max_concurrency)
--   max_concurrency = the most in flight per gateway when adapting (0 = default: 128;
--                 a policy's max_in_flight(gateway) lowers it per gateway)
--   hash        = the client's SHA-2 backend (the one built in: "openssl" or "mbedtls"; default: the
--                 process's, ipfsrt.hash.backend())
--   threads     = hashing threads (0 = default: IPFSRT_THREADS, else the CPUs the
--                 process may use, at most 4; under ipfsrt.mpi the node's CPUs per rank)
--   retries     = attempts per request after the first (0 = default)
--   timeout     = seconds per request before the first byte, or between bytes (0 = default)
--   min_rate    = bytes/s a body must keep up over timeout (default 1024; false = none)
--   deadline    = seconds one request may take in all (default: none)
--   give_up     = seconds a call waits while no gateway answers anything, all its
--                 attempts together, before it fails (default 60; false = never)
--   cacert      = PEM file of CAs to trust for https gateways (else CURL_CA_BUNDLE,
--                 SSL_CERT_FILE, the system's)
--
-- Methods besides the reads (get, save, ls, stat, blocks, get_many, ...):
--   client:gateways()  -> {url, ...}, where they came from (a password in a URL shown as ***)
--   client:policy()    -> the policy object the client holds (its own counters, say), or nil
--   client:set_policy(spec[, log])  -- as the policy option
--   client:stats()     -> one table per gateway, in order:
--       url, requests (sent), ok (usable answers), failed (all errors), bytes (received),
--       verify_failures (answers that failed verification: hash_mismatch, wrong_dag),
--       errors = {kind = count} (connect, timeout, not_found, refused, rate_limited,
--       server_error, truncated, too_large, bad_response, hash_mismatch, wrong_dag, tls),
--       latency = {p50, p90, p99} (seconds to the first byte, recent answers)
local ipfsrt = require "ipfsrt"
local core = require "ipfsrt.core" -- the C constructor and methods, not for users
local policy = require "ipfsrt.policy"

local M = {}

local bad = require "ipfsrt.bad" ("client: ")

local function count(opts, key, name)
  local v = opts[key]
  if v == nil then return 0 end
  if math.type(v) ~= "integer" or v < 0 then bad("%s must be a whole number, not negative", name or key) end
  return v
end

local function gateway_list(g)
  if g == nil then return {} end
  if type(g) == "string" then return {g} end
  if type(g) ~= "table" then bad("gateways must be a URL or a list of URLs") end
  local urls = {}
  for i, url in ipairs(g) do
    if type(url) ~= "string" then bad("gateways[%d] is not a URL", i) end
    urls[i] = url
  end
  return urls
end

-- A verified block cache on disk: cache.dir, else $IPFSRT_CACHE_DIR/blocks
-- (shared safely by processes: blocks are written aside and renamed).
local function cache_options(cache, out)
  local env = os.getenv("IPFSRT_CACHE_DIR")
  if cache ~= false and (type(cache) ~= "table" or cache.dir == nil) and env and env ~= "" then
    out.cache_dir = env .. "/blocks"
  end
  if cache == false then
    out.cache_memory = 0
  elseif type(cache) == "table" then
    if cache.memory ~= nil then out.cache_memory = count(cache, "memory", "cache.memory") end
    if cache.dir ~= nil and type(cache.dir) ~= "string" then bad("cache.dir must be a path") end
    out.cache_dir = cache.dir or out.cache_dir
    out.cache_trust = cache.trust == true
    if cache.size == false then
      out.cache_size = -1
    elseif cache.size ~= nil then
      if math.type(cache.size) ~= "integer" or cache.size <= 0 then bad("cache.size must be bytes, or false") end
      out.cache_size = cache.size
    end
  elseif cache ~= nil then
    bad("cache must be a table or false")
  end
end

-- A positive number, or false for none (-1, as the C options say it); nil stays nil.
local function positive_or_off(opts, key, unit)
  local v = opts[key]
  if v == false then return -1 end
  if v ~= nil and (type(v) ~= "number" or v <= 0) then bad("%s must be %s, or false", key, unit) end
  return v
end

-- What the C constructor takes: every field present is of the right type.
function M.options(opts)
  if opts == nil then opts = {} end
  if type(opts) ~= "table" then bad("options must be a table") end
  local out = {
    verify = opts.verify ~= false,
    concurrency = count(opts, "concurrency"),
    max_concurrency = count(opts, "max_concurrency"),
    retries = count(opts, "retries"),
    threads = count(opts, "threads"),
  }
  for _, key in ipairs({ "timeout", "deadline" }) do
    if opts[key] ~= nil then
      if type(opts[key]) ~= "number" or opts[key] < 0 then bad("%s must be seconds, not negative", key) end
      out[key] = opts[key]
    end
  end
  out.give_up = positive_or_off(opts, "give_up", "seconds")
  out.min_rate = positive_or_off(opts, "min_rate", "bytes/s")
  if opts.log ~= nil and type(opts.log) ~= "function" then bad("log must be a function") end
  if opts.cacert ~= nil then
    if type(opts.cacert) ~= "string" then bad("cacert must be a file name") end
    local f = io.open(opts.cacert, "r")
    if not f then bad("cacert %s cannot be read", opts.cacert) end
    f:close()
    out.ca_file = opts.cacert
  end
  if opts.hash ~= nil then
    local known = ipfsrt.hash.backends()
    local found = false
    for _, name in ipairs(known) do found = found or name == opts.hash end
    if not found then bad("hash must name a backend built in (%s)", table.concat(known, ", ")) end
    out.hash = opts.hash
  end
  cache_options(opts.cache, out)
  return gateway_list(opts.gateways), out
end

-- The gateways as policies see them: {url =, index =}, index counting from 1.
local function policy_gateways(client)
  local list = {}
  for i, url in ipairs((client:gateways())) do list[i] = {url = url, index = i} end
  return list
end

-- client:set_policy(spec[, log]): what ipfsrt.policy.load takes; nil goes back to
-- IPFSRT_POLICY, or to the built-in order.
local held = setmetatable({}, { __mode = "k" }) -- client -> the policy object it took

local function set_policy(client, spec, log)
  local gateways = policy_gateways(client)
  local p, what = policy.load(spec, gateways, log)
  client:set_policy_object(p, gateways, what) -- asks max_in_flight: a policy failing there is not taken
  held[client] = p
end

-- client:policy() -> the policy object it holds, or nil
local function current_policy(client) return held[client] end

-- client:on_progress(fn(done, expected)): at most ten times a second, and once
-- at the end; nil stops it.
local function on_progress(client, fn, interval)
  if fn == nil then return client:set_progress_function(nil) end
  if type(fn) ~= "function" then error("on_progress: expected a function or nil", 2) end
  interval = interval or 0.1
  local last = -math.huge
  client:set_progress_function(function(done, expected)
    local now = ipfsrt.clock()
    if now - last < interval and (expected == nil or done < expected) then return end
    last = now
    fn(done, expected)
  end)
end

core.client_methods.set_policy = set_policy
core.client_methods.policy = current_policy
core.client_methods.on_progress = on_progress

function M.new(opts)
  local gateways, options = M.options(opts)
  local client = core.client_new(gateways, options)
  local ok, err = pcall(set_policy, client, opts and opts.policy, opts and opts.log)
  if not ok then
    client:close()
    error(err, 2)
  end
  return client
end

return M
