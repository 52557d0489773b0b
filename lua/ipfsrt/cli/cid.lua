-- ipfsrt cid CID [--base NAME]: describe a CID as one JSON object.
local ipfsrt = require "ipfsrt"
local argparse = require "ipfsrt.argparse"

local M = {
  summary = "describe a CID as JSON; --base NAME re-encodes it",
  usage = [[usage: ipfsrt cid CID [--base NAME] [-q]

-q, --quiet: the CID alone (in NAME's base), not the JSON. Otherwise prints one JSON object: cid (canonical, in the given base or NAME), version, codec,
codec_code, multibase, multihash {name, code, length, digest (hex)}, v1 (base32)
and v0 (only where one exists). A CIDv0 asked for in another base becomes v1.
Bases: base16, base16upper, base32, base32upper, base36, base36upper, base58btc,
base64, base64url (and the padded forms base32pad, base64pad, base64urlpad).]],
}

local function hex(s)
  return (s:gsub(".", function(c) return string.format("%02x", c:byte()) end))
end

function M.run(args)
  local pos, opts = argparse.parse(args, { base = "string", quiet = "boolean" }, { b = "base", q = "quiet" })
  if #pos ~= 1 then argparse.usage_error("expected exactly one CID") end
  local cid, base = ipfsrt.cid.parse(pos[1])
  base = opts.base or base
  if cid.version == 0 and base ~= "base58btc" then cid = cid:to_v1() end
  if opts.quiet then
    print(cid:encode(base))
    return 0
  end
  local mh = cid.multihash
  local out = {
    cid = cid:encode(base),
    version = cid.version,
    codec = cid.codec,
    codec_code = cid.codec_code,
    multibase = base,
    multihash = {
      name = mh.name,
      code = mh.code,
      length = mh.length,
      digest = hex(mh.digest),
    },
    v1 = cid:to_v1():encode("base32"),
  }
  local ok, v0 = pcall(cid.to_v0, cid)
  if ok then out.v0 = tostring(v0) end
  print(ipfsrt.json.encode(out))
  return 0
end

return M
