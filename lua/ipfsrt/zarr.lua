-- ipfsrt.zarr: Zarr v2 and v3 groups and arrays, from any store.
--
--   local g = ipfsrt.zarr.open("ipfs://bafy.../data.zarr")    -- verified, through a client
--   local a = g.sst                                            -- or g:get("sst")
--   local x = a:read { 0, { 100, 200 }, { nil, nil, 2 } }      -- a[0, 100:200, ::2]
--
-- open(url | store[, opts]) -> an Array or a Group. url is ipfs://CID[/path] or
-- /ipfs/CID[/path] (every byte verified), http(s)://... (plain, unverified),
-- FILE.car[/path] (verified), or a folder (a path or file://). opts:
--   path     = a group or array inside the store ("" = its top)
--   client   = an ipfsrt.client, or a table of options for one (ipfs:// only;
--              default: a client with the default gateways)
--   writable = true: a folder is created if need be, and may be written
-- A store may also be a Lua table with get(self, key) -> bytes | nil and,
-- optionally, list(self, prefix) -> {name, ...}.
local ipfsrt = require "ipfsrt"
local C = ipfsrt.zarr

local M = {}

local function bad(fmt, ...)
  error(ipfsrt.error.new("bad_argument", "zarr: " .. string.format(fmt, ...)), 3)
end

local function client_for(url, spec)
  if spec == nil then return nil end
  if not (url:find("^ipfs://") or url:find("^/ipfs/")) then bad("client is for ipfs:// stores only") end
  if type(spec) == "table" and getmetatable(spec) == nil then return ipfsrt.client(spec) end
  if type(spec) ~= "userdata" then bad("client must be an ipfsrt.client or a table of its options") end
  return spec
end

-- store(url | table[, opts]) -> a store (what open takes)
function M.store(where, opts)
  opts = opts or {}
  if type(opts) ~= "table" then bad("options must be a table") end
  if type(where) == "table" then
    if type(where.get) ~= "function" then bad("a store table needs a get(self, key) function") end
    if where.list ~= nil and type(where.list) ~= "function" then bad("a store's list must be a function") end
    return C.store_lua(where, opts.name or "a Lua store")
  end
  if type(where) == "userdata" then return where end
  if type(where) ~= "string" then bad("a store is a URL, a path or a table") end
  return C.store_open(where, client_for(where, opts.client), opts.writable == true)
end

local Array, Group = {}, {}
Array.__index = Array

local function wrap(node, store)
  local info = node:info()
  local obj = setmetatable(info, info.is_array and Array or Group)
  rawset(obj, "_node", node)
  rawset(obj, "_store", store)
  return obj
end

function Group.__index(g, key)
  local method = rawget(Group, key)
  if method ~= nil then return method end
  if type(key) ~= "string" then return nil end
  local ok, member = pcall(Group.get, g, key)
  if ok then return member end
  if ipfsrt.error.is(member, "not_found") then return nil end
  error(member, 2)
end

-- g:get(name) -> the member (a name, or a relative path "a/b"); raises not_found
function Group.get(g, name)
  if type(name) ~= "string" then bad("a member's name is a string") end
  return wrap(rawget(g, "_node"):child(name), rawget(g, "_store"))
end

-- g:members() -> {{name =, is_array =}, ...} sorted by name
function Group.members(g) return rawget(g, "_node"):members() end

local function members_of(g, want_arrays)
  local out = {}
  for _, m in ipairs(g:members()) do
    if m.is_array == want_arrays then out[#out + 1] = g:get(m.name) end
  end
  return out
end

-- g:arrays(), g:groups() -> the members of that kind, opened, sorted by name
function Group.arrays(g) return members_of(g, true) end
function Group.groups(g) return members_of(g, false) end

function Group.__tostring(g)
  return string.format("zarr group %s (v%d)", g.path == "" and "/" or g.path, g.zarr_format)
end

-- a:read([selection][, opts]) -> an n-d array. Per dimension an index or
-- {start, stop[, step]} (0-based, half-open, negative from the end, nil open);
-- dimensions left out are whole. opts.progress = fn(done, total) in chunks;
-- opts.threads = decoding threads (default: one per core).
function Array.read(a, selection, opts)
  if selection ~= nil and type(selection) ~= "table" then bad("a selection is a table") end
  opts = opts or {}
  if type(opts) ~= "table" then bad("read options must be a table") end
  if opts.progress ~= nil and type(opts.progress) ~= "function" then bad("progress must be a function") end
  local threads = opts.threads or 0
  if math.type(threads) ~= "integer" or threads < 0 then bad("threads must be a whole number") end
  return rawget(a, "_node"):read(selection, threads, opts.progress)
end

function Array.__tostring(a)
  return string.format("zarr array %s (v%d) %s [%s] chunks [%s]", a.path == "" and "/" or a.path, a.zarr_format,
    a.dtype, table.concat(a.shape, ", "), table.concat(a.chunks, ", "))
end

M.Array, M.Group = Array, Group

function M.open(where, opts)
  opts = opts or {}
  if type(opts) ~= "table" then bad("options must be a table") end
  if opts.path ~= nil and type(opts.path) ~= "string" then bad("path must be a string") end
  local store = M.store(where, opts)
  return wrap(C.open_node(store, opts.path or ""), store)
end

return M
