-- IPNS names for datasets that grow: keys kept in a keystore, records
-- published (signed) and inspected (verified). The C core does the
-- cryptography (ipfsrt.ipns); this module keeps the files.
--
-- A keystore is a folder (mode 0700) of NAME.key files, libp2p's PrivateKey
-- protobuf as Kubo and js-libp2p keep keys (mode 0600), and NAME.last, the
-- last record published with that key (its sequence is where the next one
-- goes on). Default folder: $IPFSRT_KEYSTORE, else $XDG_DATA_HOME/ipfsrt/keys,
-- else ~/.local/share/ipfsrt/keys.
local ipfsrt = require "ipfsrt"
local core = require "ipfsrt.core"

local M = {}

local DEFAULT_LIFETIME = 48 * 3600 -- the ecosystem's (Kubo's, boxo's) default EOL
local DEFAULT_TTL = 300 -- the spec's suggested 5 minutes

local function fail(code, fmt, ...)
  error(ipfsrt.error.new(code, string.format(fmt, ...)), 0)
end

function M.keystore(opts)
  if opts and opts.keystore then return opts.keystore end
  local env = os.getenv("IPFSRT_KEYSTORE")
  if env and env ~= "" then return env end
  local data = os.getenv("XDG_DATA_HOME")
  if not data or data == "" then
    local home = os.getenv("HOME")
    if not home or home == "" then fail("bad_argument", "no keystore: set HOME, XDG_DATA_HOME or IPFSRT_KEYSTORE") end
    data = home .. "/.local/share"
  end
  return data .. "/ipfsrt/keys"
end

local function key_path(keyname, opts, suffix)
  if type(keyname) ~= "string" or not keyname:match("^[%w][%w._-]*$") or #keyname > 100 then
    fail("bad_argument", "key name %q: letters, digits, '.', '_' and '-' only", tostring(keyname))
  end
  return M.keystore(opts) .. "/" .. keyname .. suffix
end

local function read(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local data = f:read("a")
  f:close()
  return data
end

-- A new key named keyname in the keystore; its IPNS name.
function M.keygen(keyname, opts)
  opts = opts or {}
  local path = key_path(keyname, opts, ".key")
  if read(path) then fail("io", "a key named %s exists already (%s)", keyname, path) end
  local key = ipfsrt.ipns.key_generate(opts.type or "ed25519")
  core.make_private_dir(M.keystore(opts))
  core.write_private(path, key:private_bytes(), true)
  return key:name()
end

-- The key named keyname, loaded from the keystore.
function M.key(keyname, opts)
  local path = key_path(keyname, opts or {}, ".key")
  local bytes = read(path)
  if not bytes then fail("not_found", "no key named %s (%s): make one with `ipfsrt key gen %s`", keyname, path, keyname) end
  return ipfsrt.ipns.key_load(bytes)
end

-- Every key in the keystore: {key = keyname, name = IPNS name}, by key name.
function M.list(opts)
  local ok, entries = pcall(ipfsrt.listdir, M.keystore(opts))
  local out = {}
  for _, e in ipairs(ok and entries or {}) do
    local keyname = e:match("^(.+)%.key$")
    if keyname then out[#out + 1] = { key = keyname, name = M.key(keyname, opts):name() } end
  end
  table.sort(out, function(a, b) return a.key < b.key end)
  return out
end

-- "/ipfs/CID[/path]" from what users write: that, ipfs://CID[/path], or a bare CID.
function M.value_path(value)
  if type(value) ~= "string" or value == "" then fail("bad_argument", "a record needs a value: /ipfs/CID[/path]") end
  local rest = value:match("^ipfs://(.+)$") or value:match("^/ipfs/(.+)$") or value
  local cid = rest:match("^[^/]+")
  ipfsrt.cid.parse(cid) -- raises bad_cid, naming it
  return "/ipfs/" .. rest
end

-- Seconds in "90", "90s", "30m", "48h", "7d"; nil for other text.
function M.duration(text)
  local n, unit = tostring(text):match("^(%d+%.?%d*)([smhd]?)$")
  n = tonumber(n)
  if not n then return nil end
  return n * ({ [""] = 1, s = 1, m = 60, h = 3600, d = 86400 })[unit]
end

-- Signs a record for value with the keystore's key opts.key and keeps it as
-- that key's last record (and at opts.output when given). opts: sequence
-- (default: one past the last record published with the key, else 0),
-- lifetime (seconds; default 48 h), ttl (seconds; default 300), v1 (the
-- legacy fields too), output (a file for the record; replace: over one
-- there). Returns {name, record, sequence, value, eol}.
function M.publish(value, opts)
  opts = opts or {}
  local key = M.key(opts.key or fail("bad_argument", "publish needs a key (opts.key)"), opts)
  local name = key:name()
  local last_path = key_path(opts.key, opts, ".last")
  local sequence = opts.sequence
  if sequence == nil then
    local last = read(last_path)
    sequence = last and ipfsrt.ipns.verify(name, last, false).sequence + 1 or 0
  end
  local eol = os.time() + (opts.lifetime or DEFAULT_LIFETIME)
  local path = M.value_path(value)
  local record = ipfsrt.ipns.record(key, { value = path, sequence = sequence, eol = eol,
    ttl = opts.ttl or DEFAULT_TTL, v1 = opts.v1 })
  core.write_private(last_path, record, false)
  if opts.output then -- whole or not at all: a gateway may be reading the folder (opts.replace: over the old one)
    local tmp = opts.output .. ".tmp"
    local f = assert(io.open(tmp, "wb"))
    f:write(record)
    f:close()
    local existing = not opts.replace and io.open(opts.output)
    if existing then
      existing:close()
      os.remove(tmp)
      fail("io", "%s exists already", opts.output)
    end
    assert(os.rename(tmp, opts.output))
  end
  return { name = name, record = record, sequence = sequence, value = path, eol = eol }
end

-- What a record says, verified for name: ipfsrt.ipns.verify's table, with
-- name and expired (an expired record is shown, flagged, not refused).
function M.inspect(record, name)
  local info = ipfsrt.ipns.verify(name, record, false)
  info.name = ipfsrt.ipns.name(name)
  info.expired = info.eol <= os.time()
  return info
end

return M
