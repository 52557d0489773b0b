-- ipfsrt diff OLD NEW [--json]: what changed between two versions of a
-- dataset, read from their blocks (verified).
local ipfsrt = require "ipfsrt"
local argparse = require "ipfsrt.argparse"
local fetchcli = require "ipfsrt.fetchcli"

local M = {
  summary = "what changed between two versions of a dataset: variables, attributes, chunks and the labels they cover",
  usage = [[usage: ipfsrt diff OLD NEW [--json] [gateway options]

OLD and NEW are versions of a Zarr dataset: CAR files, or ipfs:// roots (CIDs)
read verified through gateways. NEW may be a delta CAR (`ipfsrt zarr append
-o`, `ipfsrt car diff`): with OLD a CAR too, the blocks NEW lacks are read
from OLD. Only directories whose CIDs differ are read: a subtree with the
same CID is the same. Prints, per variable added (+), removed (-) or changed
(~), what changed: its shape, its data type, its attributes, its chunk keys added, removed
or changed and, per dimension, the index ranges they cover with their
coordinate labels (dates for times); then the group's attributes and other
keys that changed (consolidated metadata). --json: the same as JSON.]] .. fetchcli.options_help,
}

local function is_car(s) return s:match("%.car$") ~= nil end

local function sorted_keys(t)
  local out = {}
  for k in pairs(t) do out[#out + 1] = k end
  table.sort(out)
  return out
end

local function label(x)
  if type(x) == "number" then return string.format("%.6g", x) end
  return tostring(x)
end

local function ranges_text(v)
  local parts = {}
  for _, dim in ipairs(sorted_keys(v.ranges)) do
    local spans = {}
    for _, r in ipairs(v.ranges[dim]) do
      local where = r[3] ~= nil and (r[3] == r[4] and label(r[3]) or label(r[3]) .. " to " .. label(r[4])) or nil
      spans[#spans + 1] = string.format("[%d, %d)%s", r[1], r[2], where and " " .. where or "")
    end
    parts[#parts + 1] = dim .. " " .. table.concat(spans, ", ")
  end
  return table.concat(parts, "; ")
end

local function counts(list3)
  local out = {}
  for _, kind in ipairs { "added", "removed", "changed" } do
    if #list3[kind] > 0 then out[#out + 1] = string.format("%d %s", #list3[kind], kind) end
  end
  return table.concat(out, ", ")
end

local MARK = { added = "+", removed = "-", changed = "~" }

local function print_report(r)
  for _, name in ipairs(sorted_keys(r.variables)) do
    local v = r.variables[name]
    local bits = {}
    if v.shape then
      bits[#bits + 1] = string.format("shape [%s] -> [%s]", table.concat(v.shape.old, ", "),
        table.concat(v.shape.new, ", "))
    end
    if v.dtype then bits[#bits + 1] = string.format("dtype %s -> %s", v.dtype.old, v.dtype.new) end
    local attrs = v.attrs and counts(v.attrs) or ""
    if attrs ~= "" then
      local names = {}
      for _, kind in ipairs { "added", "removed", "changed" } do
        for _, k in ipairs(v.attrs[kind]) do names[#names + 1] = k end
      end
      bits[#bits + 1] = "attributes " .. attrs .. " (" .. table.concat(names, ", ") .. ")"
    end
    local chunks = counts(v.chunks)
    if chunks ~= "" then bits[#bits + 1] = "chunks " .. chunks end
    print(string.format("%s %s%s", MARK[v.change], name, #bits > 0 and ": " .. table.concat(bits, "; ") or ""))
    if next(v.ranges) then print("    covering " .. ranges_text(v)) end
  end
  local group = counts(r.attrs)
  if group ~= "" then print("~ attributes of the group: " .. group) end
  for _, path in ipairs(sorted_keys(r.files)) do print(string.format("%s %s", MARK[r.files[path]], path)) end
  if r.changes == 0 then print("no change: the same root") end
end

local function json_report(r)
  local out = { variables = {}, attrs = r.attrs, files = r.files, changes = r.changes }
  for name, v in pairs(r.variables) do
    out.variables[name] = { change = v.change, metadata = v.metadata, shape = v.shape, dtype = v.dtype, attrs = v.attrs,
      chunks = v.chunks, ranges = v.ranges, isel = v.isel }
  end
  print(ipfsrt.json.encode(out))
end

function M.run(args)
  local spec, aliases = { json = "boolean" }, {}
  for k, v in pairs(fetchcli.spec) do spec[k] = v end
  for k, v in pairs(fetchcli.aliases) do aliases[k] = v end
  local pos, opts = argparse.parse(args, spec, aliases)
  if #pos ~= 2 then argparse.usage_error("diff needs OLD and NEW") end
  local zarr = require "ipfsrt.zarr"
  local old_url, new_url = zarr.ipfs_url_of(pos[1]), zarr.ipfs_url_of(pos[2])
  local client
  local function store(url)
    if is_car(url) then return zarr.store(url) end
    if not (url:match("^ip[fn]s://") or url:match("^/ip[fn]s/")) then
      argparse.usage_error("%s: a version is a CAR file, an ipfs:// root or an ipns:// name", url)
    end
    fetchcli.check_gateways(opts)
    client = client or fetchcli.client(opts)
    return zarr.store(url, { client = client })
  end
  ipfsrt.catch_signals()
  local ok, r = pcall(function()
    local old = store(old_url)
    local new = (is_car(old_url) and is_car(new_url)) and zarr.store({ new_url, old_url }) or store(new_url)
    return require("ipfsrt.dataset").diff(old, new)
  end)
  if client then
    fetchcli.report(client, opts)
    client:close()
  end
  if not ok then error(fetchcli.explain(r, opts), 0) end
  if opts.json then json_report(r) else print_report(r) end
  return 0
end

return M
