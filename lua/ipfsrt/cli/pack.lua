-- ipfsrt pack PATH -o OUT.car: a UnixFS importer that reproduces other tools' CIDs.
local ipfsrt = require "ipfsrt"
local argparse = require "ipfsrt.argparse"

local M = {
  summary = "import a file or directory tree into a CAR (UnixFS), CIDs as ipfs-car or Kubo make them",
  usage = [[usage: ipfsrt pack PATH -o OUT.car|s3://BUCKET/KEY.car [--force] [options]

Prints the root CID and nothing else (-q, --quiet, for `ipfs add -q` habits, changes nothing). OUT.car must not exist (--force replaces it).
An s3:// output is written to a temporary file ($TMPDIR) and uploaded with the
credentials and endpoint of the environment (AWS_ACCESS_KEY_ID, AWS_ENDPOINT_URL, ...). Presets (--preset, default ipfs-car):
  ipfs-car       ipfs-car 3.x: CIDv1, raw leaves, 1 MiB chunks, 1024 links, HAMT above
                 1000 entries, a lone file wrapped in a directory; like ipfs-car it roots
                 the DAG at the deepest directory holding every file and skips symlinks
                 and directories without files
  kubo           `ipfs add` defaults: CIDv0, 256 KiB chunks, 174 links, dag-pb leaves,
                 HAMT when names + CIDs exceed 256 KiB; symlinks kept as symlinks
  kubo-v1-2025   Kubo's unixfs-v1-2025 profile: CIDv1, raw leaves, 1 MiB chunks, 1024
                 links, HAMT when the directory block would exceed 256 KiB
Options override the preset:
  --cid-version 0|1   --chunk-size BYTES   --max-links N   --raw-leaves | --no-raw-leaves
  --hamt never|entries:N|link-bytes:N|block-bytes:N       --fanout N (power of two <= 1024)
  --wrap | --no-wrap  --car-version 1|2
  --hidden            include dot-files (a Zarr v2 folder's .zgroup, .zarray, .zattrs and
                      .zmetadata go in without it)]],
}

-- A fresh name in $TMPDIR (else /tmp) for a CAR on its way to S3.
local function temporary_car()
  local dir = os.getenv("TMPDIR")
  if not dir or dir == "" then return os.tmpname() end
  for _ = 1, 100 do
    local name = string.format("%s/ipfsrt-pack-%d-%08x.car", dir, math.floor(ipfsrt.clock() * 1000) % 1000000,
      math.random(0, 0x7fffffff))
    local f = io.open(name, "r")
    if not f then return name end
    f:close()
  end
  error(ipfsrt.error.new("io", "no free temporary name in " .. dir), 0)
end

-- The settings options (what `zarr append` takes too, to make blocks as the
-- old version's were made) and the table ipfsrt.pack takes from them.
M.SETTINGS = {
  preset = "string", ["cid-version"] = "string", ["chunk-size"] = "string", ["max-links"] = "string",
  ["raw-leaves"] = "boolean", ["no-raw-leaves"] = "boolean", hamt = "string", fanout = "string",
  wrap = "boolean", ["no-wrap"] = "boolean", hidden = "boolean",
}

function M.settings(opts)
  local raw_leaves, wrap
  if opts["raw-leaves"] then raw_leaves = true elseif opts["no-raw-leaves"] then raw_leaves = false end
  if opts.wrap then wrap = true elseif opts["no-wrap"] then wrap = false end
  return {
    preset = opts.preset,
    cid_version = argparse.whole(opts, "cid-version"),
    chunk_size = argparse.whole(opts, "chunk-size"),
    max_links = argparse.whole(opts, "max-links"),
    raw_leaves = raw_leaves,
    hamt = opts.hamt,
    fanout = argparse.whole(opts, "fanout"),
    wrap = wrap,
    hidden = opts.hidden,
  }
end

function M.run(args)
  local spec = { output = "string", ["car-version"] = "string", force = "boolean", quiet = "boolean" }
  for k, v in pairs(M.SETTINGS) do spec[k] = v end
  local pos, opts = argparse.parse(args, spec, { o = "output", f = "force", q = "quiet" })
  if #pos ~= 1 then argparse.usage_error("expected exactly one PATH") end
  if not opts.output then argparse.usage_error("-o OUT.car is required") end
  local to_s3 = opts.output:find("^s3://") ~= nil
  argparse.check_output(opts.output, opts.force)
  local output = to_s3 and temporary_car() or opts.output
  local settings = M.settings(opts)
  settings.output, settings.car_version = output, argparse.whole(opts, "car-version")
  local ok, root = pcall(ipfsrt.pack, pos[1], settings)
  if to_s3 then
    local sent, err = true, nil
    if ok then sent, err = pcall(ipfsrt.s3.put_file, opts.output, output) end
    os.remove(output)
    if not sent then error(err, 0) end
  end
  if not ok then error(root, 0) end
  print(tostring(root))
  return 0
end

return M
