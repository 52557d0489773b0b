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
-- optionally, list(self, prefix) -> {name, ...}; or a list of CAR files read as
-- one, {"delta.car", "old.car"}: the first one's root, each block from the
-- first that has it (a new version's delta over the old version).
local ipfsrt = require "ipfsrt"
local C = require("ipfsrt.core").zarr
local S3 = require "ipfsrt.s3"

local M = {}

local bad = require "ipfsrt.bad" ("zarr: ")

-- A kerchunk references file (its targets may be ipfs:// wherever it is).
local function is_references(url)
  local path = url:gsub("[?#].*", "")
  return url:find("^refs%+") ~= nil or (path:find("%.json$") ~= nil and not path:find("^zarr%.json$")
    and not path:find("/zarr%.json$"))
end

local function client_for(url, spec)
  if spec == nil then return nil end
  if not (url:find("^ipfs://") or url:find("^/ipfs/") or url:find("^ipns://") or url:find("^/ipns/")
      or is_references(url)) then
    bad("client is for ipfs:// and ipns:// stores (and references) only")
  end
  if type(spec) == "table" and getmetatable(spec) == nil then return ipfsrt.client(spec) end
  if type(spec) ~= "userdata" then bad("client must be an ipfsrt.client or a table of its options") end
  return spec
end

-- opts.s3 for s3:// stores and CARs on S3 or web servers (see ipfsrt.s3.options).
local function s3_options(url, spec)
  if spec == nil then return nil end
  if not (url:find("^s3://") or url:find("^https?://")) then bad("s3 options are for s3:// and http(s):// stores") end
  return S3.options(spec, "zarr")
end

-- "CID" or "CID/path" where no such file or folder exists: ipfs://CID[/path],
-- as a user who pasted a CID means it.
function M.ipfs_url_of(where)
  if where:find("://", 1, true) or where:sub(1, 1) == "/" then return where end
  local first = where:match("^[^/]+")
  if not first or #first < 46 or not pcall(ipfsrt.cid.parse, first) then return where end
  local f = io.open(first, "r")
  if f then f:close(); return where end
  return "ipfs://" .. where
end

-- store(url | table[, opts]) -> a store (what open takes)
function M.store(where, opts)
  opts = opts or {}
  if type(opts) ~= "table" then bad("options must be a table") end
  if type(where) == "table" and where.get == nil and type(where[1]) == "string" then
    return C.store_cars(where) -- {"delta.car", "old.car"}: the first one's root, blocks from each
  end
  if type(where) == "table" then
    if type(where.get) ~= "function" then bad("a store table needs a get(self, key) function") end
    if where.list ~= nil and type(where.list) ~= "function" then bad("a store's list must be a function") end
    return C.store_lua(where, opts.name or "a Lua store")
  end
  if type(where) == "userdata" then return where end
  if type(where) ~= "string" then bad("a store is a URL, a path or a table") end
  where = M.ipfs_url_of(where)
  if opts.verify ~= nil and type(opts.verify) ~= "boolean" then bad("verify must be true or false") end
  return C.store_open(where, opts.client ~= nil and client_for(where, opts.client) or nil, opts.writable == true,
    s3_options(where, opts.s3), opts.verify == false)
end

local Array, Group = {}, {}

-- attrs and metadata are read from the node when first asked for (a large
-- .zattrs costs nothing to a read that never looks at it), then kept.
-- A method of class, else attrs or metadata (read from the node, then kept).
local LAZY = { attrs = true, metadata = true }
local function method_or_field(class, obj, key)
  local method = rawget(class, key)
  if method ~= nil or not LAZY[key] then return method end
  local node = rawget(obj, "_node")
  local v = node[key](node)
  rawset(obj, key, v)
  return v
end

function Array.__index(a, key) return method_or_field(Array, a, key) end

local function wrap(node, store)
  local info = node:info()
  local obj = setmetatable(info, info.is_array and Array or Group)
  rawset(obj, "_node", node)
  rawset(obj, "_store", store)
  return obj
end

function Group.__index(g, key)
  local known = method_or_field(Group, g, key)
  if known ~= nil or LAZY[key] then return known end
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
-- opts.threads = decoding threads (default: one per core); opts.unscale =
-- {dtype = "float32" | "float64", fills = {...}, scale =, offset =}: the values
-- CF-decoded as n-d array unscale does it, chunk by chunk on the decoding
-- threads (no array of the stored values in between).
-- opts.threads of a read or write, checked (0: the default).
local function threads_of(opts)
  local threads = opts.threads or 0
  if math.type(threads) ~= "integer" or threads < 0 then bad("threads must be a whole number") end
  return threads
end

-- The selection, threads and unscale options of a read, checked.
local function read_options(selection, opts)
  if selection ~= nil and type(selection) ~= "table" then bad("a selection is a table") end
  opts = opts or {}
  if type(opts) ~= "table" then bad("read options must be a table") end
  local threads = threads_of(opts)
  local u = opts.unscale
  if u ~= nil and (type(u) ~= "table" or (u.dtype ~= "float32" and u.dtype ~= "float64")) then
    bad("unscale is {dtype = \"float32\" or \"float64\", fills =, scale =, offset =}")
  end
  return opts, threads, u
end

function Array.read(a, selection, opts)
  local o, threads, u = read_options(selection, opts)
  if o.progress ~= nil and type(o.progress) ~= "function" then bad("progress must be a function") end
  if u == nil then return rawget(a, "_node"):read(selection, threads, o.progress) end
  return rawget(a, "_node"):read(selection, threads, o.progress, u.dtype, u.fills, u.scale, u.offset)
end

-- a:read_boxes({selection, ...}[, opts]) -> {n-d array, ...}: several
-- selections, every chunk of all of them asked for together (one round trip
-- over a gateway); threads and unscale as read.
function Array.read_boxes(a, selections, opts)
  if type(selections) ~= "table" then bad("read_boxes takes a list of selections") end
  local _, threads, u = read_options(nil, opts)
  if u == nil then return rawget(a, "_node"):read_boxes(selections, threads) end
  return rawget(a, "_node"):read_boxes(selections, threads, u.dtype, u.fills, u.scale, u.offset)
end

-- a:read_slabs(selection, ends, fn[, opts]): the selection read once (every
-- chunk asked for at once) and handed to fn(start, count, slab) a slab at a
-- time along its first dimension not indexed, in order, as soon as each is
-- decoded, while the next are still read: slab i holds positions from the
-- previous end (0 first) up to ends[i] (0-based, the last the dimension's
-- length, each at a boundary between chunks). fn must not read from the same
-- store. threads and unscale as read; an error fn raises ends the read.
function Array.read_slabs(a, selection, ends, fn, opts)
  local _, threads, u = read_options(selection, opts)
  if type(ends) ~= "table" then bad("ends is a list of positions") end
  if type(fn) ~= "function" then bad("read_slabs takes a function for the slabs") end
  local node = rawget(a, "_node")
  if u == nil then return node:read_slabs(selection, ends, threads, fn) end
  return node:read_slabs(selection, ends, threads, fn, u.dtype, u.fills, u.scale, u.offset)
end

-- a:summarize([selection][, opts]) -> {count =, sum =, min =, max =} of the
-- selected values other than NaN and opts.skip = {values...}, without building
-- the selection: each chunk is summarized on the decoding thread that decoded
-- it, the chunks' summaries added in chunk order (the same result on any
-- thread count, in any order of arrival). Integer sums are exact integers;
-- opts.extremes = true for min and max (else NaN); threads and unscale as read.
function Array.summarize(a, selection, opts)
  local o, threads, u = read_options(selection, opts)
  if o.skip ~= nil and type(o.skip) ~= "table" then bad("skip is a list of values") end
  local node = rawget(a, "_node")
  if u == nil then return node:summarize(selection, threads, o.skip, o.extremes == true) end
  return node:summarize(selection, threads, o.skip, o.extremes == true, u.dtype, u.fills, u.scale, u.offset)
end

-- a:locate_extremes([selection][, opts]) -> {count =, min =, max =, min_at =,
-- max_at =}: the least and greatest values other than NaN and opts.skip and
-- their places (from 0, flat in C order over the selection as read gives it;
-- ties to the first), each chunk scanned on the decoding thread that decoded
-- it; threads and unscale as read.
function Array.locate_extremes(a, selection, opts)
  local o, threads, u = read_options(selection, opts)
  if o.skip ~= nil and type(o.skip) ~= "table" then bad("skip is a list of values") end
  local node = rawget(a, "_node")
  if u == nil then return node:locate_extremes(selection, threads, o.skip) end
  return node:locate_extremes(selection, threads, o.skip, u.dtype, u.fills, u.scale, u.offset)
end

-- a:summarize_along(selection, dims[, opts]) -> {count =, sum =, min =, max =}:
-- n-d arrays over the selection's dimensions other than dims (the array's,
-- counted from 0; indexed ones dropped as a read drops them), of the values
-- other than NaN and opts.skip, folded on the decoding threads as the chunks
-- are decoded (the selection is never built). opts.sums = true for sums
-- (int64 for integers, exact; float64 sums only where one chunk holds every
-- value folded into a position, else an error: they would round differently
-- from run to run), opts.extremes = true for min and max (float64, NaN where
-- nothing counts); threads and unscale as read.
function Array.summarize_along(a, selection, dims, opts)
  local o, threads, u = read_options(selection, opts)
  if type(dims) ~= "table" then bad("dims is a list of dimension numbers") end
  if o.skip ~= nil and type(o.skip) ~= "table" then bad("skip is a list of values") end
  local node = rawget(a, "_node")
  if u == nil then return node:summarize_along(selection, threads, dims, o.skip, o.sums == true, o.extremes == true) end
  return node:summarize_along(selection, threads, dims, o.skip, o.sums == true, o.extremes == true, u.dtype, u.fills,
    u.scale, u.offset)
end

-- a:summarize_groups(selection, dim, groups, n_groups[, opts]): as
-- summarize_along folding along dim (the array's, from 0; not the last), but
-- each selected position of dim added into its group: groups is a list with
-- one group (0 .. n_groups - 1, or -1 for none) per selected position, and the
-- arrays have n_groups positions along dim (monthly sums of daily values from
-- one read). opts as summarize_along.
function Array.summarize_groups(a, selection, dim, groups, n_groups, opts)
  local o, threads, u = read_options(selection, opts)
  if math.type(dim) ~= "integer" then bad("dim is a dimension number") end
  if type(groups) ~= "table" or math.type(n_groups) ~= "integer" then bad("groups is a list, n_groups a whole number") end
  if o.skip ~= nil and type(o.skip) ~= "table" then bad("skip is a list of values") end
  local node = rawget(a, "_node")
  if u == nil then
    return node:summarize_groups(selection, threads, dim, groups, n_groups, o.skip, o.sums == true, o.extremes == true)
  end
  return node:summarize_groups(selection, threads, dim, groups, n_groups, o.skip, o.sums == true, o.extremes == true,
    u.dtype, u.fills, u.scale, u.offset)
end

-- a:weighted_sums(selection, kept, weights[, opts]) -> num, den: over the
-- selection's dimensions after its first kept ones (indexed ones dropped),
-- the sums of value * weight and of weight where the value is not NaN nor
-- in opts.skip, per position of the kept ones (float64 n-d arrays), folded on
-- the decoding threads as the chunks are decoded (the selection is never
-- built), the same on any thread count. weights: an n-d array shaped as the
-- dimensions summed over; threads and unscale as read.
function Array.weighted_sums(a, selection, kept, weights, opts)
  local o, threads, u = read_options(selection, opts)
  if math.type(kept) ~= "integer" then bad("kept is a number of dimensions") end
  if o.skip ~= nil and type(o.skip) ~= "table" then bad("skip is a list of values") end
  if type(weights) ~= "userdata" then bad("weights is an n-d array") end
  weights = weights:astype("float64")
  local node = rawget(a, "_node")
  if u == nil then return node:weighted_sums(selection, threads, kept, weights, o.skip) end
  return node:weighted_sums(selection, threads, kept, weights, o.skip, u.dtype, u.fills, u.scale, u.offset)
end

-- a:chunk_key(i, j, ...) -> the store key of a chunk (a shard, if sharded)
function Array.chunk_key(a, ...) return rawget(a, "_node"):chunk_key(...) end

-- a:stored_sizes(keys) -> {key = bytes}, {key = CID string}: what the store's
-- listings say of these keys (each folder listed once); a key missing from
-- its folder's listing is absent (0); CIDs from content-addressed stores;
-- nil when the store cannot list.
function Array.stored_sizes(a, keys)
  local store, in_folder, sizes, cids = rawget(a, "_store"), {}, {}, {}
  if not store:info().listable then return nil end
  for _, key in ipairs(keys) do
    local folder, name = key:match("^(.*)/([^/]*)$")
    folder, name = folder or "", name or key
    in_folder[folder] = in_folder[folder] or {}
    in_folder[folder][key] = name
  end
  for folder, names in pairs(in_folder) do
    local listed = {}
    for _, e in ipairs(store:list_dir(folder == "" and "" or folder .. "/")) do listed[e.name] = e end
    for key, name in pairs(names) do
      local e = listed[name]
      sizes[key], cids[key] = e and (e.size or 1) or 0, e and e.cid
    end
  end
  return sizes, cids
end

-- a:know(keys, cids): reads of these keys (store keys, as chunk_key gives)
-- ask a content-addressed store for these CIDs straight away (still checked
-- against them), instead of walking its directories again
function Array.know(a, keys, cids) rawget(a, "_store"):know(keys, cids) end

function Array.__tostring(a)
  return string.format("zarr array %s (v%d) %s [%s] chunks [%s]", a.path == "" and "/" or a.path, a.zarr_format,
    a.dtype, table.concat(a.shape, ", "), table.concat(a.chunks, ", "))
end

-- a:write(selection, values[, opts]): values (an n-d array, a number, or
-- nested tables) broadcast over the selection; opts.threads,
-- opts.write_empty_chunks (default false: chunks left all fill are removed).
function Array.write(a, selection, values, opts)
  if selection ~= nil and type(selection) ~= "table" then bad("a selection is a table") end
  opts = opts or {}
  if type(opts) ~= "table" then bad("write options must be a table") end
  local nd = ipfsrt.ndarray
  if type(values) == "boolean" then values = values and 1 or 0 end
  if type(values) == "number" then values = nd.full({}, values, a.dtype)
  elseif type(values) == "table" and getmetatable(values) == nil then values = nd.from(values, a.dtype)
  elseif type(values) ~= "userdata" then bad("values are an n-d array, a number or nested tables") end
  rawget(a, "_node"):write(selection, values, threads_of(opts), opts.write_empty_chunks == true)
end

-- a:append(axis, values[, opts]): values (an n-d array) written past the end
-- along axis (from 0), then the longer shape recorded; opts.threads.
function Array.append(a, axis, values, opts)
  opts = opts or {}
  if type(opts) ~= "table" then bad("append options must be a table") end
  rawget(a, "_node"):append(axis, values, threads_of(opts))
end

-- x:set_attrs(table): replaces the user attributes (group or array)
local function set_attrs(x, attrs)
  if type(attrs) ~= "table" then bad("attributes are a table") end
  rawget(x, "_node"):set_attributes(attrs)
  rawset(x, "attrs", rawget(x, "_node"):attrs())
end
Array.set_attrs, Group.set_attrs = set_attrs, set_attrs

M.Array, M.Group = Array, Group

-- ------------------------------------------------------------- creating

local V2_TYPES = { bool = "|b1", int8 = "|i1", uint8 = "|u1", int16 = "<i2", uint16 = "<u2", int32 = "<i4",
  uint32 = "<u4", int64 = "<i8", uint64 = "<u8", float16 = "<f2", float32 = "<f4", float64 = "<f8",
  complex64 = "<c8", complex128 = "<c16" }

local function fill_json(v, dtype)
  if v == nil then return ipfsrt.null end
  if dtype and dtype:match("^complex") and type(v) == "number" then return { fill_json(v), 0 } end
  if type(v) == "number" and v ~= v then return "NaN" end
  if v == math.huge then return "Infinity" end
  if v == -math.huge then return "-Infinity" end
  return v
end

-- compressor = "zstd" | {id = "zstd", level = 3, ...} (numcodecs' names and fields)
local function compressor_of(c)
  if c == nil or c == false then return nil end
  if type(c) == "string" then c = { id = c } end
  if type(c) ~= "table" or type(c.id or c.name) ~= "string" then bad("compressor is a name or {id = name, ...}") end
  local out = {}
  for k, v in pairs(c) do out[k] = v end
  out.id, out.name = c.id or c.name, nil
  return out
end

-- The v3 codec chain: bytes (little-endian), then the compressor's v3 form.
local function v3_codecs(opts, itemsize)
  local chain = { { name = "bytes", configuration = itemsize > 1 and { endian = "little" } or nil } }
  local c = compressor_of(opts.compressor)
  if c then
    local config = {}
    for k, v in pairs(c) do if k ~= "id" then config[k] = v end end
    local v3 = { zstd = true, gzip = true, blosc = true, crc32c = true }
    if c.id == "blosc" then
      local shuffles = { [0] = "noshuffle", [1] = "shuffle", [2] = "bitshuffle" }
      config.shuffle = shuffles[config.shuffle or 1] or config.shuffle
      config.typesize = config.typesize or itemsize
      config.cname = config.cname or "lz4"
      config.clevel = config.clevel or 5
      config.blocksize = config.blocksize or 0
    end
    if c.id == "zstd" then config.level, config.checksum = config.level or 0, config.checksum or false end
    if c.id == "gzip" then config.level = config.level or 5 end
    chain[#chain + 1] = { name = v3[c.id] and c.id or "numcodecs." .. c.id,
      configuration = next(config) and config or nil }
  end
  return chain
end

local function sizes(list, name)
  if type(list) ~= "table" then bad("%s is a list of sizes", name) end
  for i, v in ipairs(list) do
    if math.type(v) ~= "integer" or v < 0 then bad("%s[%d] is not a size", name, i) end
  end
  return list
end

-- v2 keeps dimension names as xarray does, in the attributes.
local function v2_attrs(o)
  if not o.dimension_names then return o.attrs end
  local attrs = ipfsrt.json.object()
  for k, v in pairs(o.attrs or {}) do attrs[k] = v end
  attrs._ARRAY_DIMENSIONS = o.dimension_names
  return attrs
end

local function v2_doc(o, dtype)
  local filters = o.filters and {} or ipfsrt.null
  for i, f in ipairs(o.filters or {}) do filters[i] = compressor_of(f) end
  return { zarr_format = 2, shape = o.shape, chunks = o.chunks, dtype = dtype, order = o.order or "C",
    compressor = compressor_of(o.compressor) or ipfsrt.null, filters = filters, fill_value = fill_json(o.fill_value, o.dtype),
    dimension_separator = o.separator, attributes = v2_attrs(o) }
end

local function v3_doc(o, itemsize)
  local codecs = o.codecs or v3_codecs(o, itemsize)
  local chunks = o.chunks
  if o.shards then -- chunks are the inner chunks; shards the stored objects' shape
    codecs = { { name = "sharding_indexed", configuration = { chunk_shape = o.chunks, codecs = codecs,
      index_codecs = { { name = "bytes", configuration = { endian = "little" } }, { name = "crc32c" } },
      index_location = "end" } } }
    chunks = sizes(o.shards, "shards")
  end
  return { zarr_format = 3, node_type = "array", shape = o.shape, data_type = o.dtype,
    chunk_grid = { name = "regular", configuration = { chunk_shape = chunks } },
    chunk_key_encoding = { name = "default", configuration = { separator = o.separator or "/" } },
    fill_value = fill_json(o.fill_value == nil and 0 or o.fill_value, o.dtype), codecs = codecs,
    dimension_names = o.dimension_names, attributes = o.attrs or ipfsrt.json.object() }
end

-- create(where, opts) -> Array: a new array in a writable store (a folder is
-- made if need be). opts: path, shape, chunks, dtype ("float32", ..., "S8"
-- bytes, "U4" v2 strings of 4 characters held as UTF-8 in "S16"),
-- fill_value (v2: nil = none), zarr_format (3), compressor ("zstd" or
-- {id = "blosc", cname = "lz4", ...}), filters (v2, numcodecs form), codecs
-- (v3, the whole chain instead), shards (v3: the shape of each stored shard,
-- chunks then being its inner chunks), order (v2 "C"/"F"), separator,
-- attrs, dimension_names.
function M.create(where, opts)
  if type(opts) ~= "table" then bad("create needs options") end
  local format = opts.zarr_format or 3
  if format ~= 2 and format ~= 3 then bad("zarr_format is 2 or 3") end
  sizes(opts.shape, "shape")
  sizes(opts.chunks or opts.shape, "chunks")
  local o = setmetatable({ chunks = opts.chunks or opts.shape }, { __index = opts })
  local v2type = V2_TYPES[opts.dtype or "float64"]
  local bytes = type(opts.dtype) == "string" and opts.dtype:match("^S(%d+)$")
  local chars = type(opts.dtype) == "string" and opts.dtype:match("^U(%d+)$") -- held as UTF-8 in S(4 x chars)
  if chars then
    if format ~= 2 then bad("U strings need zarr_format 2") end
    v2type = "<U" .. chars
  end
  if not v2type and not bytes then bad("dtype %s is not one Zarr stores", tostring(opts.dtype)) end
  if format == 2 and opts.shards then bad("shards need zarr_format 3") end
  local itemsize = bytes and tonumber(bytes) or tonumber(v2type:match("%d+$"))
  o.dtype = bytes and "r" .. (8 * itemsize) or (opts.dtype or "float64")
  local doc = format == 2 and v2_doc(o, bytes and "|S" .. bytes or v2type) or v3_doc(o, itemsize)
  local store = M.store(where, { writable = true, s3 = opts.s3 })
  return wrap(C.create_array(store, opts.path or "", ipfsrt.json.encode(doc)), store)
end

-- group(where[, opts]) -> Group: a new group (opts: path, zarr_format (3), attrs)
function M.group(where, opts)
  opts = opts or {}
  local format = opts.zarr_format or 3
  if format ~= 2 and format ~= 3 then bad("zarr_format is 2 or 3") end
  local store = M.store(where, { writable = true, s3 = opts.s3 })
  return wrap(C.create_group(store, opts.path or "", format, opts.attrs), store)
end

-- consolidate(where[, opts]): the hierarchy's metadata gathered at its top
-- (opts.path: a group inside) for one-read opening.
function M.consolidate(where, opts)
  opts = opts or {}
  C.consolidate_store(M.store(where, { writable = true, s3 = opts.s3 }), opts.path or "")
end

-- ------------------------------------------------------------- copying

local function rows_of(a)
  return (a.chunks and a.chunks[1]) or 1
end

-- The array's values, a block of outer chunks' rows at a time (memory stays
-- about one row of chunks), into b.
local function copy_values(a, b, opts)
  if #a.shape == 0 then return b:write(nil, a:read(), { write_empty_chunks = opts.write_empty_chunks }) end
  local step = rows_of(a)
  for r0 = 0, a.shape[1] - 1, step do
    local r1 = math.min(r0 + step, a.shape[1])
    b:write({ { r0, r1 } }, a:read { { r0, r1 } }, { write_empty_chunks = opts.write_empty_chunks })
    if opts.progress then opts.progress(a.path, r1, a.shape[1]) end
  end
end

-- The fill value as Lua holds it; past Lua's integers, the stored digits
-- (json.decode keeps them) rather than a rounded float.
local function fill_of(a)
  local stored = a.metadata.fill_value
  if ipfsrt.json.is_number(stored) then return stored end
  return a.fill_value and a.fill_value:get() or nil
end

-- Chunk and shard shapes asked for apply to the arrays of as many dimensions.
local function reencoded(a, opts, path)
  local function fits(list) return list and #list == #a.shape and list or nil end
  local dtype = a.dtype == "bytes" and "S" .. a.itemsize or a.dtype
  if a.metadata.dtype == "<f2" or a.metadata.data_type == "float16" then dtype = "float16" end
  return { path = path, zarr_format = opts.zarr_format or a.zarr_format, shape = a.shape,
    chunks = fits(opts.chunks) or a.inner_chunks or a.chunks, shards = fits(opts.shards), dtype = dtype,
    fill_value = fill_of(a), compressor = opts.compressor,
    attrs = a.attrs, dimension_names = a.dimension_names and #a.dimension_names > 0 and a.dimension_names or nil }
end

local function copy_node(node, store, path, opts, depth)
  if depth > 32 then bad("a hierarchy deeper than 32 levels") end
  if not node.is_array then
    local g = wrap(C.create_like(store, path, rawget(node, "_node"), opts.zarr_format), store)
    for _, m in ipairs(node:members()) do
      copy_node(node:get(m.name), store, (path == "" and "" or path .. "/") .. m.name, opts, depth + 1)
    end
    return g
  end
  local b
  if opts.compressor ~= nil or opts.zarr_format or opts.shards or opts.chunks then
    local o = reencoded(node, opts, path)
    b = M.create(store, o)
  else -- the same metadata, to the last digit: the same chunks
    b = wrap(C.create_like(store, path, rawget(node, "_node")), store)
  end
  copy_values(node, b, opts)
  return b
end

-- copy(from, to[, opts]) -> the copy: a group (with everything under it) or an
-- array from any store (a URL, a path, a store) into a writable one (a folder).
-- opts: path (the node inside from), to_path (where it goes), client (for
-- ipfs://), s3 and to_s3 (for s3:// sources and destinations), and to re-encode: compressor, zarr_format, chunks, shards (for
-- the arrays of as many dimensions);
-- consolidate (true: a copied group's metadata gathered at its top);
-- progress = fn(array_path, rows_done, rows).
function M.copy(from, to, opts)
  opts = opts or {}
  if type(opts) ~= "table" then bad("options must be a table") end
  local src = M.open(from, { path = opts.path, client = opts.client, s3 = opts.s3 })
  local store = M.store(to, { writable = true, s3 = opts.to_s3 })
  local copy = copy_node(src, store, opts.to_path or "", opts, 0)
  if not src.is_array and opts.consolidate ~= false then C.consolidate_store(store, opts.to_path or "") end
  return copy
end

-- read_many({array, ...}) -> {n-d array, ...}: arrays of one store read whole,
-- their chunks asked for together (one round trip between them over a gateway).
function M.read_many(arrays)
  if type(arrays) ~= "table" then bad("read_many takes a list of arrays") end
  local nodes = {}
  for i, a in ipairs(arrays) do
    if type(a) ~= "table" or not a.is_array then bad("read_many: item %d is not an array", i) end
    nodes[i] = rawget(a, "_node")
  end
  if #nodes == 0 then return {} end
  return C.read_nodes(nodes)
end

function M.open(where, opts)
  opts = opts or {}
  if type(opts) ~= "table" then bad("options must be a table") end
  if opts.path ~= nil and type(opts.path) ~= "string" then bad("path must be a string") end
  local store = M.store(where, opts)
  return wrap(C.open_node(store, opts.path or ""), store)
end

return M
