-- ipfsrt zarr info: a group's tree, or an array's, as text or JSON.
local ipfsrt = require "ipfsrt"
local argparse = require "ipfsrt.argparse"
local fetchcli = require "ipfsrt.fetchcli"
local with_store = require("ipfsrt.cli.zarr.open").with_store


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

return function(url, rest, opts)
  if #rest > 0 then argparse.usage_error("zarr info takes one URL") end
  with_store(url, opts, function(store)
    local d = describe(ipfsrt.zarr.open(store), store, 0)
    if opts.json then print(ipfsrt.json.encode(d)) else print_tree(d, "") end
  end)
end
