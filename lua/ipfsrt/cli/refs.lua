-- ipfsrt refs FILE.nc... [--concat DIM] [-o OUT.json] [--inline-threshold N] [-q]:
-- kerchunk references of NetCDF-4/HDF5 files, so that Zarr readers read
-- their chunks.
local ipfsrt = require "ipfsrt"
local argparse = require "ipfsrt.argparse"

local M = {
  summary = "kerchunk references of NetCDF-4/HDF5 files (read then as Zarr, verified over ipfs://)",
  usage = [[usage: ipfsrt refs FILE.nc [-o OUT.json] [--inline-threshold N] [-q]
       ipfsrt refs FILE.nc... --concat DIM [-o OUT.json] [--inline-threshold N] [-q]

Writes the kerchunk references (version 1 JSON) of FILE, a NetCDF-4 or other
HDF5 file or a NetCDF-3 one, to OUT.json (-o, --output; else to standard output): a Zarr v2 group per group,
an array per variable of numbers whose chunks are byte ranges of FILE
(chunked variables chunk by chunk, contiguous ones as one chunk, compact
ones inline), deflate and shuffle as the zlib and shuffle codecs,
_FillValue as the fill value, the attributes and the dimensions
(_ARRAY_DIMENSIONS). FILE is named relative to OUT's folder when it lies in
it or below, so a folder of files and their references packed as one CID
reads over ipfs:// unchanged (ipfsrt zarr info ipfs://CID/OUT.json); else by
its path. What Zarr cannot express here (strings, compound types, szip,
fletcher32 checksums, NetCDF-3 text) is left out, each said on standard
error (-q, --quiet: not). A NetCDF-3 file's variables are uncompressed and
big-endian, a fixed-size one in one chunk, a record variable in a chunk per
record.
--inline-threshold N: chunks of at most N stored bytes written into the
references themselves (base64).

--concat DIM: the references of many files joined along the dimension DIM
(daily files into one time axis), as kerchunk's MultiZarrToZarr does: the
files in the order of DIM's values (which must increase, no two files
overlapping), each variable along DIM given the chunks of every file, DIM's
values written inline; the other variables, the groups and the attributes
are the first file's, after checking that every file has the same
variables with the same types, chunks and codecs, and the same values of
the other coordinates (latitudes, longitudes, ...). A file that disagrees is
an error naming it and the variable.]],
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

-- Each thing left out once, however many files leave it out.
local function tell_skipped(skipped)
  local told = {}
  for _, s in ipairs(skipped) do
    local line = string.format("ipfsrt refs: left out %s: %s\n", s[1], s[2])
    if not told[line] then io.stderr:write(line) end
    told[line] = true
  end
end

function M.run(args)
  local pos, opts = argparse.parse(args, { output = "string", ["inline-threshold"] = "string", quiet = "boolean",
    concat = "string" }, { o = "output", q = "quiet" })
  if #pos == 0 then argparse.usage_error("expected a FILE") end
  if #pos > 1 and not opts.concat then argparse.usage_error("several FILEs are joined along a dimension: --concat DIM") end
  local threshold = argparse.bytes(opts, "inline-threshold") or 0
  local json, skipped
  if opts.concat then
    local targets = {}
    for i, file in ipairs(pos) do targets[i] = target_of(file, opts.output) end
    json, skipped = ipfsrt.refs.concat(pos, opts.concat, { targets = targets, inline_threshold = threshold })
  else
    json, skipped = ipfsrt.refs.make(pos[1], { target = target_of(pos[1], opts.output), inline_threshold = threshold })
  end
  if not opts.quiet then tell_skipped(skipped) end
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
