-- ipfsrt zarr cp: a group or array copied into a new Zarr folder, rechunked
-- or recompressed as asked.
local ipfsrt = require "ipfsrt"
local argparse = require "ipfsrt.argparse"
local fetchcli = require "ipfsrt.fetchcli"
local with_store = require("ipfsrt.cli.zarr.open").with_store

local M = {}

function M.size_list(text, name)
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

function M.run(url, rest, opts)
  if #rest ~= 1 then argparse.usage_error("zarr cp needs URL and DIR") end
  local format = opts["zarr-format"] and math.tointeger(tonumber(opts["zarr-format"]))
  if opts["zarr-format"] and format ~= 2 and format ~= 3 then argparse.usage_error("--zarr-format is 2 or 3") end
  local tty = not opts.quiet and ipfsrt.isatty(io.stderr)
  local copy_opts = {
    path = opts.path, compressor = M.parse_compressor(opts.compressor), zarr_format = format,
    chunks = M.size_list(opts.chunks, "chunks"), shards = M.size_list(opts.shards, "shards"),
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

return M
