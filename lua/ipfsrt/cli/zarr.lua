-- ipfsrt zarr info|get|cp|append|replace: Zarr groups and arrays from IPFS
-- (verified), HTTP, CAR files and folders. Each subcommand is a module of
-- lua/ipfsrt/cli/zarr/; this one holds the usage, the options and the dispatch.
local ipfsrt = require "ipfsrt"
local argparse = require "ipfsrt.argparse"
local fetchcli = require "ipfsrt.fetchcli"

local M = {
  summary = "Zarr v2/v3 groups and arrays: their tree (info), values (get), copies (cp), new versions (append, replace)",
  usage = [==[usage: ipfsrt zarr info URL [--json]
       ipfsrt zarr get URL ARRAY [SELECTION] [--decode] [--sel DIM=LABEL,...] [--method nearest]
                       [--tolerance T] [--json | --csv] [-q]
       ipfsrt zarr cp URL DIR [--path P] [--compressor NAME[:LEVEL]] [--zarr-format 2|3]
                      [--chunks A,B,..] [--shards A,B,..] [--no-consolidate] [-q]
       ipfsrt zarr append OLD FROM... --dim DIM [-o DELTA.car] [--force] [--publish KEY [--keystore DIR]]
                          [pack settings]
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
  --publish KEY signs an IPNS record pointing the key's name at the new root
  (see ipfsrt name) and writes it beside DELTA.car as NAME.ipns-record, where
  a gateway serving that folder's records finds it (ipfsrt serve's records
  folder): readers of ipns://NAME then see the new version (--keystore DIR:
  where the key is).
replace: FROM written into a region of OLD (--region time=10:12, 0-based and
  half-open, as isel), the same way: corrections to chunks already published.
]==] .. fetchcli.options_help,
}

M.options = { json = "boolean", csv = "boolean", quiet = "boolean", path = "string", compressor = "string",
  decode = "boolean", sel = "string", method = "string", tolerance = "string",
  ["zarr-format"] = "string", chunks = "string", shards = "string", ["no-consolidate"] = "boolean",
  dim = "string", region = "string", output = "string", force = "boolean", publish = "string", keystore = "string" }
for k, v in pairs(require("ipfsrt.cli.pack").SETTINGS) do M.options[k] = v end
M.aliases = { q = "quiet", o = "output", f = "force" }

function M.run(args)
  local spec, aliases = {}, {}
  for k, v in pairs(fetchcli.spec) do spec[k] = v end
  for k, v in pairs(M.options) do spec[k] = v end
  for k, v in pairs(fetchcli.aliases) do aliases[k] = v end
  for k, v in pairs(M.aliases) do aliases[k] = v end
  local pos, opts = argparse.parse(args, spec, aliases)
  local command, url = pos[1], pos[2]
  local change = require "ipfsrt.cli.zarr.change"
  local commands = { info = require "ipfsrt.cli.zarr.info", get = require("ipfsrt.cli.zarr.get").run,
                     cp = require("ipfsrt.cli.zarr.cp").run, append = change.append, replace = change.replace }
  if not commands[command] then argparse.usage_error("zarr needs info, get, cp, append or replace") end
  if not url then argparse.usage_error("zarr %s needs a URL", command) end
  ipfsrt.catch_signals()
  commands[command](url, { table.unpack(pos, 3) }, opts)
  return 0
end

return M
