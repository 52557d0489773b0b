-- ipfsrt zarr info|get: Zarr groups and arrays from IPFS (verified), HTTP, CAR
-- files and folders.
local ipfsrt = require "ipfsrt"
local argparse = require "ipfsrt.argparse"
local fetchcli = require "ipfsrt.fetchcli"
local cftime = require "ipfsrt.cftime"

local M = {
  summary = "Zarr v2/v3 groups and arrays: their tree (info), values (get), copies (cp), new versions (append, replace)",
  usage = [==[usage: ipfsrt zarr info URL [--json]
       ipfsrt zarr get URL ARRAY [SELECTION] [--decode] [--sel DIM=LABEL,...] [--method nearest]
                       [--tolerance T] [--json | --csv] [-q]
       ipfsrt zarr cp URL DIR [--path P] [--compressor NAME[:LEVEL]] [--zarr-format 2|3]
                      [--chunks A,B,..] [--shards A,B,..] [--no-consolidate] [-q]
       ipfsrt zarr append OLD FROM... --dim DIM [-o DELTA.car] [--force] [pack settings]
       ipfsrt zarr replace OLD FROM... --region DIM=START:STOP[,...] [-o DELTA.car] [--force]
                           [pack settings]

URL is ipfs://CID[/path] (every byte verified, through gateways), a gateway URL
https://GATEWAY/ipfs/CID[/path] (the same, through that gateway), http(s)://...
with --no-verify (plain, unverified), FILE.car[/path] (verified), s3://BUCKET[/prefix]
(unverified; writable: cp can copy there), s3://BUCKET/KEY.car[/path] (a CAR on S3,
verified), a folder, or kerchunk references (a URL ending in .json, or refs+URL:
chunks of NetCDF-4 or other files, read by byte range from where the references
say, ipfs:// ones verified). S3 takes AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
AWS_SESSION_TOKEN, AWS_REGION, AWS_ENDPOINT_URL(_S3) and AWS_NO_SIGN_REQUEST=YES from
the environment; a CARv1 on S3 is indexed once, the index kept in IPFSRT_CACHE_DIR
(default ~/.cache/ipfsrt).

info: the tree of groups and arrays: shapes, data types, chunks (and inner
  chunks of shards), codecs, fill values, decoded sizes and, where the store
  lists its keys, stored sizes. --json for the same as JSON.
get: the values of ARRAY (a path below URL; "." for URL itself) as numpy
  prints them, or --json (nested lists) or --csv (a header naming the
  dimensions and the array, then a row per value: its position along each
  dimension and the value). SELECTION is numpy's, 0-based and
  half-open: "0,100:200,::2" is a[0, 100:200, ::2]; left out, the whole array.
  --decode: the values as xarray decodes them (CF: the fill value and
  missing_value as NaN, scale_factor and add_offset applied; with --csv a
  header and a column per coordinate, as pandas writes them). --sel
  "time=2024-02-29,lat=20:60" selects by coordinate labels (a range FROM:TO
  includes both ends; times as YYYY-MM-DD), as xarray's sel does, and
  decodes; --method nearest takes the closest label to each single one
  ("lat=35.3"), --tolerance T no farther than T (coordinate units; on times
  a timedelta: 1D, 6h, 30min, 90s). A progress bar shows on a terminal (-q:
  none).
cp: the group (with everything under it) or array at URL (or --path P below
  it) into the folder DIR, chunks as they are, or re-encoded when a compressor
  (zstd, gzip, zlib, bz2, lz4, blosc; blosc:CNAME[:LEVEL]), format, chunk or
  shard shape is given; a copied group gets consolidated metadata. Then
  `ipfsrt pack DIR` makes the CAR.
append: the dataset FROM (a Zarr group anywhere URL may be, or NetCDF/HDF5
  files, joined along DIM when several) appended to the dataset OLD along
  DIM. OLD a CAR or an ipfs:// root (verified through gateways, or from a
  folder of blocks kept by --cache-dir): a new version is made of it, only its
  changed blocks (new chunks, the metadata, the directories up to the root)
  written to DELTA.car (-o, --output) with the new root, which it prints;
  OLD's blocks are read, verified, never changed. The new root is the one
  `ipfsrt pack` gives for the changed folder with the same settings: give
  OLD's (--preset and the other options of `ipfsrt pack`; default
  ipfs-car). `ipfsrt serve OLD.car DELTA.car` then serves both versions. OLD a
  folder (or s3://): changed in place, as xarray's to_zarr(append_dim=) does.
  Refused, naming the variable and what does not fit, before anything is
  written: a variable along DIM missing from either side, other dimensions,
  lengths or data types, other coordinates off DIM, labels along DIM that do
  not come after OLD's, --chunks that are not OLD's. Values are written as
  OLD stores them (its scale_factor, add_offset, fill value, time units).
replace: FROM written into a region of OLD (--region time=10:12, 0-based and
  half-open, as isel), the same way: corrections to chunks already published.
]==] .. fetchcli.options_help,
}

M.options = { json = "boolean", csv = "boolean", quiet = "boolean", path = "string", compressor = "string",
  decode = "boolean", sel = "string", method = "string", tolerance = "string",
  ["zarr-format"] = "string", chunks = "string", shards = "string", ["no-consolidate"] = "boolean",
  dim = "string", region = "string", output = "string", force = "boolean" }
for k, v in pairs(require("ipfsrt.cli.pack").SETTINGS) do M.options[k] = v end
M.aliases = { q = "quiet", o = "output", f = "force" }

-- ------------------------------------------------------------- opening

local function is_ipfs(url) return url:match("^ipfs://") or url:match("^/ipfs/") end

local function open_store(url, opts)
  fetchcli.check_gateways(opts)
  url = require("ipfsrt.zarr").ipfs_url_of(fetchcli.gateway_url_target(url, opts, true))
  local verify = not opts["no-verify"]
  if is_ipfs(url) then
    local client = fetchcli.client(opts)
    return ipfsrt.zarr.store(url, { client = client, verify = verify }), client
  end
  local store = ipfsrt.zarr.store(url, { verify = verify })
  -- a CAR on a web server is read verified ("http-car"); a plain web folder,
  -- or references read from one, are not
  local info = store:info()
  if verify and not info.verified and (info.kind == "http" or url:match("^https?://") or url:match("^refs%+https?://")) then
    fetchcli.not_a_gateway(url)
  end
  return store
end

-- Runs fn(store) on url's store, then reports (-v) and closes its client.
local function with_store(url, opts, fn)
  local store, client = open_store(url, opts)
  local ok, err = pcall(fn, store)
  if client then
    fetchcli.report(client, opts)
    client:close()
  end
  if not ok then error(fetchcli.explain(err, opts), 0) end
end

-- ---------------------------------------------------------------- info

local function decoded_bytes(a)
  local n = a.itemsize
  for _, s in ipairs(a.shape) do n = n * s end
  return n
end

-- Bytes the store holds under prefix but its metadata, when it can list them.
local function stored_bytes(store, prefix, depth)
  local total = 0
  for _, e in ipairs(store:list_dir(prefix)) do
    if not (e.name == "zarr.json" or e.name:match("^%.z")) then
      if e.size then total = total + e.size
      elseif e.folder and depth < 64 then
        local sub = stored_bytes(store, prefix .. e.name .. "/", depth + 1)
        if not sub then return nil end
        total = total + sub
      else return nil end
    end
  end
  return total
end

local function fill_text(a)
  if not a.fill_value then return "none" end
  local v = a.fill_value:get()
  return type(v) == "string" and string.format("%q", v) or tostring(v)
end

local function describe_array(a, store)
  local d = {
    path = a.path, kind = "array", zarr_format = a.zarr_format, shape = a.shape, chunks = a.chunks,
    inner_chunks = a.inner_chunks, dtype = a.dtype, codecs = a.inner_codecs or a.codecs, order = a.order,
    fill_value = fill_text(a), dimension_names = a.dimension_names, attrs = a.attrs,
    decoded_bytes = decoded_bytes(a), datetime_unit = a.datetime_unit,
  }
  if store:info().listable then
    local ok, n = pcall(stored_bytes, store, a.path == "" and "" or a.path .. "/", 0)
    if ok then d.stored_bytes = n end
  end
  return d
end

local function no_empty_attrs(d)
  if next(d.attrs) == nil then d.attrs = nil end
  return d
end

local function describe(node, store, depth)
  if node.is_array then return no_empty_attrs(describe_array(node, store)) end
  local d = { path = node.path, kind = "group", zarr_format = node.zarr_format, attrs = node.attrs, members = {} }
  if depth > 32 then return d end
  for _, m in ipairs(node:members()) do d.members[#d.members + 1] = describe(node:get(m.name), store, depth + 1) end
  return no_empty_attrs(d)
end

local function join(list) return table.concat(list, ", ") end

local function array_line(d, indent)
  local name = d.path:match("[^/]*$")
  local parts = { string.format("%s%s  %s [%s]  chunks [%s]", indent, name == "" and "/" or name, d.dtype,
    join(d.shape), join(d.inner_chunks or d.chunks)) }
  if d.inner_chunks then parts[#parts + 1] = string.format("in shards of [%s]", join(d.chunks)) end
  parts[#parts + 1] = #d.codecs > 0 and join(d.codecs) or "uncompressed"
  parts[#parts + 1] = "fill " .. d.fill_value
  local size = fetchcli.human(d.decoded_bytes)
  if d.stored_bytes then size = string.format("%s stored, %s", fetchcli.human(d.stored_bytes), size) end
  parts[#parts + 1] = size .. " decoded"
  local dims, named = {}, false
  for i, n in ipairs(d.dimension_names or {}) do
    named = named or n ~= ipfsrt.null
    dims[i] = n ~= ipfsrt.null and tostring(n) or "-"
  end
  if named then parts[#parts + 1] = "dims (" .. join(dims) .. ")" end
  return table.concat(parts, "  ")
end

-- A group whose arrays name their dimensions is a dataset (as xarray sees
-- it): its dimensions, and which arrays are coordinates.
local function dataset_dims(d)
  local sizes, order = {}, {}
  for _, m in ipairs(d.members) do
    for i, n in ipairs(m.kind == "array" and m.dimension_names or {}) do
      if n ~= ipfsrt.null and not sizes[n] then
        sizes[n] = m.shape[i]
        order[#order + 1] = n
      end
    end
  end
  local parts = {}
  for _, n in ipairs(order) do parts[#parts + 1] = n .. " " .. sizes[n] end
  return #parts > 0 and table.concat(parts, ", ") or nil
end

-- A node's attributes, one per line under it (units, scale_factor, ...): what
-- a reader needs to make sense of the numbers.
local function print_attrs(attrs, indent)
  local keys = {}
  for k in pairs(attrs or {}) do keys[#keys + 1] = k end
  table.sort(keys)
  for _, k in ipairs(keys) do
    local v = attrs[k]
    local text = type(v) == "string" and v or ipfsrt.json.encode(v)
    if #text > 100 then text = text:sub(1, 97) .. "..." end
    print(string.format("%s  %s: %s", indent, k, text))
  end
end

local function print_tree(d, indent)
  if d.kind == "array" then
    print(array_line(d, indent))
    return print_attrs(d.attrs, indent)
  end
  local name = d.path:match("[^/]*$")
  local dims = dataset_dims(d)
  print(string.format("%s%s/  group (v%d), %d members%s", indent, name, d.zarr_format, #d.members,
    dims and ("; a dataset of dimensions " .. dims) or ""))
  print_attrs(d.attrs, indent)
  for _, m in ipairs(d.members) do
    local coordinate = dims and m.kind == "array" and #m.shape == 1 and m.dimension_names and
      m.dimension_names[1] == m.path:match("[^/]*$")
    if coordinate then
      print(array_line(m, indent .. "  ") .. "  (coordinate)")
      print_attrs(m.attrs, indent .. "  ")
    else
      print_tree(m, indent .. "  ")
    end
  end
end

local function info(url, rest, opts)
  if #rest > 0 then argparse.usage_error("zarr info takes one URL") end
  with_store(url, opts, function(store)
    local d = describe(ipfsrt.zarr.open(store), store, 0)
    if opts.json then print(ipfsrt.json.encode(d)) else print_tree(d, "") end
  end)
end

-- ----------------------------------------------------------------- get

-- numpy's selection syntax: "i", "a:b", "a:b:c", ":" per dimension, commas between.
function M.parse_selection(text)
  local sel = {}
  if text == nil or text == "" then return sel end
  local d = 0
  for part in (text .. ","):gmatch("([^,]*),") do
    d = d + 1
    part = part:gsub("%s", "")
    local function num(s)
      if s == "" then return nil end
      local n = math.tointeger(tonumber(s))
      if not n then argparse.usage_error("selection part %d: %q is not an integer", d, s) end
      return n
    end
    if not part:find(":", 1, true) then
      if part == "" then argparse.usage_error("selection part %d is empty", d) end
      sel[d] = num(part)
    else
      local a, b, c = part:match("^([^:]*):([^:]*):?([^:]*)$")
      if not a then argparse.usage_error("selection part %d: %q is not start:stop:step", d, part) end
      local step = num(c) or 1
      if step == 0 then argparse.usage_error("selection part %d: a step of 0", d) end
      sel[d] = { num(a), num(b), step }
    end
  end
  return sel
end

-- Strings quoted; numbers as x:strings() gives them, every digit kept.
local function csv_value(v, is_text)
  if is_text then return '"' .. v:gsub('"', '""') .. '"' end
  return v
end

-- Where a selection's positions start along each kept dimension, and their
-- step, in the array's own indices (numpy's slice.indices).
local function kept_positions(shape, sel)
  local kept = {}
  for d, n in ipairs(shape) do
    local part = sel[d]
    if part == nil then
      kept[#kept + 1] = { dim = d, start = 0, step = 1 }
    elseif type(part) == "table" then
      local step, start = part[3], part[1]
      if start == nil then start = step > 0 and 0 or n - 1
      elseif start < 0 then start = math.max(start + n, step > 0 and 0 or -1)
      else start = math.min(start, step > 0 and n or n - 1) end
      kept[#kept + 1] = { dim = d, start = start, step = step }
    end
  end
  return kept
end

-- A header (the dimensions' names, then the array's), then one row per value:
-- its position in the array along each dimension, and the value; the shape of
-- --decode's CSV, positions standing for coordinate labels.
local function write_csv(a, name, sel, x)
  local out, text = io.stdout, x.dtype == "bytes"
  local values = x:strings()
  local kept = kept_positions(a.shape, sel)
  local header = {}
  for i, k in ipairs(kept) do
    local dim = a.dimension_names and a.dimension_names[k.dim]
    header[i] = (dim ~= nil and dim ~= ipfsrt.null) and dim or ("dim_" .. (k.dim - 1))
  end
  header[#header + 1] = name
  out:write(table.concat(header, ","), "\n")
  local idx = {}
  for d = 1, x.ndim do idx[d] = 0 end
  for n = 1, x.size do
    local line = {}
    for d = 1, x.ndim do line[d] = kept[d].start + idx[d] * kept[d].step end
    line[#line + 1] = csv_value(values[n], text)
    out:write(table.concat(line, ","), "\n")
    for d = x.ndim, 1, -1 do
      idx[d] = idx[d] + 1
      if idx[d] < x.shape[d] then break end
      idx[d] = 0
    end
  end
end

-- A bar on stderr, on a terminal only, once a read has taken a second.
local function chunk_progress(opts)
  if opts.quiet or not ipfsrt.isatty(io.stderr) then return nil, function() end end
  local start, shown = ipfsrt.clock(), false
  local function bar(done, total)
    if ipfsrt.clock() - start < 1 then return end
    shown = true
    local width = 30
    local fill = total > 0 and math.floor(done / total * width) or width
    io.stderr:write(string.format("\r[%s%s] %d of %d chunks\27[K", string.rep("#", fill),
      string.rep(" ", width - fill), done, total))
  end
  return bar, function() if shown then io.stderr:write("\r\27[K") end end
end

local function date_like(s) return cftime.period(s, cftime.calendar("proleptic_gregorian")) ~= nil end

-- The two ends of a range FROM:TO, or nil for a single label. Times hold
-- colons of their own ("2024-01-05T12:00"): a colon splits a range only where
-- both sides are dates, or both numbers, or both names.
local function range_ends(v)
  if date_like(v) or tonumber(v) then return nil end
  for at in v:gmatch("():") do
    local from, to = v:sub(1, at - 1), v:sub(at + 1)
    if from ~= "" and to ~= "" and ((date_like(from) and date_like(to)) or (tonumber(from) and tonumber(to))
        or not (date_like(from) or date_like(to) or tonumber(from) or tonumber(to) or from:find(":") or to:find(":"))) then
      return from, to
    end
  end
  return nil
end

-- --sel "time=2024-02-29,lat=20:60": a label, or a range FROM:TO, per dimension.
function M.parse_labels(text)
  local spec = {}
  for part in (text .. ","):gmatch("([^,]*),") do
    local k, v = part:match("^%s*([%a_][%w_]*)%s*=%s*(.-)%s*$")
    if not k or v == "" then argparse.usage_error("--sel: %q is not DIM=LABEL or DIM=FROM:TO", part) end
    local from, to = range_ends(v)
    local function label(s) return tonumber(s) or s end
    spec[k] = from and { label(from), label(to) } or label(v)
  end
  return spec
end

-- The variable through the dataset layer: positions (SELECTION) by dimension,
-- then labels; CF-decoded.
local function decoded_variable(store, name, sel, labels, opts)
  local ds = ipfsrt.dataset.open(store)
  local v = ds.vars[name] or ds.coords[name]
  if not v then
    argparse.usage_error("no variable %s in the dataset (variables: %s)", name, table.concat(ds:names(), ", "))
  end
  local by_dim = {}
  for i, part in ipairs(sel) do
    if v.dims[i] == nil then argparse.usage_error("%s has %d dimensions", name, #v.dims) end
    by_dim[v.dims[i]] = part
  end
  if next(by_dim) then v = v:isel(by_dim) end
  if labels then
    labels.method = opts.method
    labels.tolerance = opts.tolerance and (tonumber(opts.tolerance) or opts.tolerance)
    v = v:sel(labels)
  end
  return v
end

local function get(url, rest, opts)
  if #rest < 1 or #rest > 2 then argparse.usage_error("zarr get needs URL, ARRAY and maybe a SELECTION") end
  if opts.json and opts.csv then argparse.usage_error("--json and --csv go one at a time") end
  local sel = M.parse_selection(rest[2])
  local labels = opts.sel and M.parse_labels(opts.sel)
  if (opts.method or opts.tolerance) and not labels then argparse.usage_error("--method and --tolerance go with --sel") end
  if opts.method and opts.method ~= "nearest" then argparse.usage_error("--method: %q is not nearest", opts.method) end
  if opts.tolerance and not opts.method then argparse.usage_error("--tolerance goes with --method nearest") end
  if opts.decode or labels then
    return with_store(url, opts, function(store)
      local v = decoded_variable(store, rest[1], sel, labels, opts)
      if opts.csv then return v:to_csv("/dev/stdout") end -- a header, a column per coordinate, as pandas
      local x = v:_values_array()
      if opts.json then print(x:tojson()) else print(tostring(x)) end
    end)
  end
  with_store(url, opts, function(store)
    local a = ipfsrt.zarr.open(store, { path = rest[1] == "." and "" or rest[1] })
    if not a.is_array then argparse.usage_error("%s is a group, not an array", rest[1]) end
    local bar, clear = chunk_progress(opts)
    local read_ok, x = pcall(a.read, a, sel, { progress = bar })
    clear()
    if not read_ok then error(x, 0) end
    if opts.json then print(x:tojson())
    elseif opts.csv then write_csv(a, rest[1] == "." and (url:match("([^/]+)/*$") or "value") or rest[1], sel, x)
    else print(tostring(x)) end
  end)
end

-- ------------------------------------------------------------------ cp

local function size_list(text, name)
  if not text then return nil end
  local out = {}
  for part in text:gmatch("[^,]+") do
    local n = math.tointeger(tonumber(part))
    if not n or n < 1 then argparse.usage_error("--%s: %q is not a size", name, part) end
    out[#out + 1] = n
  end
  return out
end

-- NAME[:LEVEL], blosc:CNAME[:LEVEL]
function M.parse_compressor(text)
  if not text then return nil end
  if text == "none" then return false end
  local parts = {}
  for p in text:gmatch("[^:]+") do parts[#parts + 1] = p end
  local c = { id = parts[1] }
  local level = parts[#parts] and math.tointeger(tonumber(parts[#parts]))
  if c.id == "blosc" then c.cname = parts[2] and not math.tointeger(tonumber(parts[2])) and parts[2] or "lz4" end
  if level and #parts > 1 then
    if c.id == "blosc" then c.clevel = level else c.level = level end
  end
  return c
end

local function cp(url, rest, opts)
  if #rest ~= 1 then argparse.usage_error("zarr cp needs URL and DIR") end
  local format = opts["zarr-format"] and math.tointeger(tonumber(opts["zarr-format"]))
  if opts["zarr-format"] and format ~= 2 and format ~= 3 then argparse.usage_error("--zarr-format is 2 or 3") end
  local tty = not opts.quiet and ipfsrt.isatty(io.stderr)
  local copy_opts = {
    path = opts.path, compressor = M.parse_compressor(opts.compressor), zarr_format = format,
    chunks = size_list(opts.chunks, "chunks"), shards = size_list(opts.shards, "shards"),
    consolidate = not opts["no-consolidate"],
    progress = tty and function(path, done, total)
      io.stderr:write(string.format("\r%s: %d of %d rows\27[K", path == "" and "/" or path, done, total))
    end or nil,
  }
  with_store(url, opts, function(store)
    local ok, err = pcall(ipfsrt.zarr.copy, store, rest[1], copy_opts)
    if tty then io.stderr:write("\r\27[K") end
    if not ok then error(err, 0) end
  end)
end

-- ------------------------------------------------------- append, replace

local NETCDF = { nc = true, nc4 = true, h5 = true, hdf5 = true, he5 = true }

local function absolute(path)
  if path:sub(1, 1) == "/" then return path end
  return (os.getenv("PWD") or ".") .. "/" .. path
end

-- The new data, and what to do once it is written: a dataset where FROM is,
-- or NetCDF/HDF5 files read through references made here (to a temporary
-- file, removed after), joined along dim when several.
local function open_from(files, dim)
  local dataset = require "ipfsrt.dataset"
  local netcdf = true
  for _, f in ipairs(files) do netcdf = netcdf and NETCDF[(f:match("%.(%w+)$") or ""):lower()] ~= nil end
  if not netcdf then
    if #files > 1 then argparse.usage_error("several FROMs are NetCDF/HDF5 files, joined along DIM") end
    return dataset.open(files[1]), function() end
  end
  local targets = {}
  for i, f in ipairs(files) do targets[i] = absolute(f) end
  local json = #files == 1 and ipfsrt.refs.make(files[1], { target = targets[1] })
    or ipfsrt.refs.concat(files, dim, { targets = targets })
  local placeholder = os.tmpname() -- made, so that the name stays ours
  local path = placeholder .. ".json"
  local f = assert(io.open(path, "wb"))
  f:write(json)
  f:close()
  local function cleanup() os.remove(path); os.remove(placeholder) end
  local ok, ds = pcall(dataset.open, path)
  if not ok then cleanup(); error(ds, 0) end
  return ds, cleanup
end

-- "time=10:12,lat=0:100" -> {time = {10, 12}, lat = {0, 100}}
function M.parse_region(text)
  local region = {}
  for dim, a, b in text:gmatch("([^,=]+)=(%d+):(%d+)") do region[dim] = { tonumber(a), tonumber(b) } end
  if next(region) == nil then argparse.usage_error("--region DIM=START:STOP[,DIM=START:STOP...]") end
  return region
end

local function change(url, files, opts, how)
  if #files == 0 then argparse.usage_error("zarr %s needs OLD and FROM", how) end
  if opts.output then argparse.check_output(opts.output, opts.force) end
  local o = { output = opts.output, force = opts.force, pack = require("ipfsrt.cli.pack").settings(opts),
    chunks = size_list(opts.chunks, "chunks") }
  if how == "append" then
    if not opts.dim then argparse.usage_error("zarr append needs --dim DIM") end
    o.dim = opts.dim
  else
    if not opts.region then argparse.usage_error("zarr replace needs --region DIM=START:STOP") end
    o.region = M.parse_region(opts.region)
  end
  with_store(url, opts, function(store)
    local old = require("ipfsrt.dataset").open(store)
    local from, cleanup = open_from(files, o.dim)
    local ok, root = pcall(old[how], old, from, o)
    cleanup()
    if not ok then error(root, 0) end
    if root then print(tostring(root)) end
  end)
end

local function append(url, rest, opts) change(url, rest, opts, "append") end
local function replace(url, rest, opts) change(url, rest, opts, "replace") end

function M.run(args)
  local spec, aliases = {}, {}
  for k, v in pairs(fetchcli.spec) do spec[k] = v end
  for k, v in pairs(M.options) do spec[k] = v end
  for k, v in pairs(fetchcli.aliases) do aliases[k] = v end
  for k, v in pairs(M.aliases) do aliases[k] = v end
  local pos, opts = argparse.parse(args, spec, aliases)
  local command, url = pos[1], pos[2]
  local commands = { info = info, get = get, cp = cp, append = append, replace = replace }
  if not commands[command] then argparse.usage_error("zarr needs info, get, cp, append or replace") end
  if not url then argparse.usage_error("zarr %s needs a URL", command) end
  ipfsrt.catch_signals()
  commands[command](url, { table.unpack(pos, 3) }, opts)
  return 0
end

return M
