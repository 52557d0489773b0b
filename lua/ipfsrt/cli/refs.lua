-- ipfsrt refs FILE.nc [-o OUT.json] [--inline-threshold N] [-q]: kerchunk
-- references of a NetCDF-4/HDF5 file, so that Zarr readers read its chunks.
local ipfsrt = require "ipfsrt"
local argparse = require "ipfsrt.argparse"

local M = {
  summary = "kerchunk references of a NetCDF-4/HDF5 file (read then as Zarr, verified over ipfs://)",
  usage = [[usage: ipfsrt refs FILE.nc [-o OUT.json] [--inline-threshold N] [-q]

Writes the kerchunk references (version 1 JSON) of FILE, a NetCDF-4 or other
HDF5 file, to OUT.json (-o, --output; else to standard output): a Zarr v2 group per group,
an array per variable of numbers whose chunks are byte ranges of FILE
(chunked variables chunk by chunk, contiguous ones as one chunk, compact
ones inline), deflate and shuffle as the zlib and shuffle codecs,
_FillValue as the fill value, the attributes and the dimensions
(_ARRAY_DIMENSIONS). FILE is named relative to OUT's folder when it lies in
it or below, so a folder of files and their references packed as one CID
reads over ipfs:// unchanged (ipfsrt zarr info ipfs://CID/OUT.json); else by
its path. What Zarr cannot express here (strings, compound types, szip,
fletcher32 checksums) is left out, each said on standard error (-q, --quiet: not).
--inline-threshold N: chunks of at most N stored bytes written into the
references themselves (base64).]],
}

-- FILE as OUT's folder sees it: relative when below it, else absolute.
local function target_of(file, out)
  local function absolute(p)
    if p:sub(1, 1) == "/" then return p end
    local cwd = os.getenv("PWD") or "."
    return cwd .. "/" .. p
  end
  local function clean(p) return (p:gsub("/%./", "/"):gsub("/+", "/")) end
  if not out then return file end
  local f, dir = clean(absolute(file)), clean(absolute(out)):match("^(.*)/[^/]*$")
  if dir and f:sub(1, #dir + 1) == dir .. "/" then return f:sub(#dir + 2) end
  return f
end

function M.run(args)
  local pos, opts = argparse.parse(args, { output = "string", ["inline-threshold"] = "string", quiet = "boolean" },
    { o = "output", q = "quiet" })
  if #pos ~= 1 then argparse.usage_error("expected one FILE") end
  local threshold = argparse.bytes(opts, "inline-threshold") or 0
  local json, skipped = ipfsrt.refs.make(pos[1], { target = target_of(pos[1], opts.output),
    inline_threshold = threshold })
  for _, s in ipairs(skipped) do
    if not opts.quiet then io.stderr:write(string.format("ipfsrt refs: left out %s: %s\n", s[1], s[2])) end
  end
  if not opts.output then
    print(json)
    return 0
  end
  local f, why = io.open(opts.output, "wb")
  if not f then error(ipfsrt.error.new("io", "cannot write " .. opts.output .. ": " .. tostring(why)), 0) end
  f:write(json)
  f:close()
  return 0
end

return M
