-- ipfsrt pack PATH -o OUT.car: a UnixFS importer that reproduces other tools' CIDs.
local ipfsrt = require "ipfsrt"
local argparse = require "ipfsrt.argparse"

local M = {
  summary = "import a file or directory tree into a CAR (UnixFS), CIDs as ipfs-car or Kubo make them",
  usage = [[usage: ipfsrt pack PATH -o OUT.car [--force] [options]

Prints the root CID as its last line. OUT.car must not exist (--force replaces it). Presets (--preset, default ipfs-car):
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
  --wrap | --no-wrap  --hidden (include dot-files)        --car-version 1|2]],
}

function M.run(args)
  local pos, opts = argparse.parse(args, {
    output = "string", preset = "string", ["cid-version"] = "string", ["chunk-size"] = "string",
    ["max-links"] = "string", ["raw-leaves"] = "boolean", ["no-raw-leaves"] = "boolean",
    hamt = "string", fanout = "string", wrap = "boolean", ["no-wrap"] = "boolean",
    hidden = "boolean", ["car-version"] = "string", force = "boolean",
  }, { o = "output", f = "force" })
  if #pos ~= 1 then argparse.usage_error("expected exactly one PATH") end
  if not opts.output then argparse.usage_error("-o OUT.car is required") end
  local existing = io.open(opts.output, "r")
  if existing then
    existing:close()
    if not opts.force then
      error(ipfsrt.error.new("io", opts.output .. " already exists; not overwriting it (--force replaces it)"), 0)
    end
  end
  local raw_leaves, wrap
  if opts["raw-leaves"] then raw_leaves = true elseif opts["no-raw-leaves"] then raw_leaves = false end
  if opts.wrap then wrap = true elseif opts["no-wrap"] then wrap = false end
  local root = ipfsrt.pack(pos[1], {
    preset = opts.preset,
    output = opts.output,
    cid_version = argparse.whole(opts, "cid-version"),
    chunk_size = argparse.whole(opts, "chunk-size"),
    max_links = argparse.whole(opts, "max-links"),
    raw_leaves = raw_leaves,
    hamt = opts.hamt,
    fanout = argparse.whole(opts, "fanout"),
    wrap = wrap,
    hidden = opts.hidden,
    car_version = argparse.whole(opts, "car-version"),
  })
  print(tostring(root))
  return 0
end

return M
