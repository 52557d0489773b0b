-- Compares ipfsrt's CID parsing and formatting with CIDs the multiformats
-- library made (cid-vectors.mjs). Usage: ipfsrt check-cids.lua VECTORS.json
local ipfsrt = require "ipfsrt"

local f = assert(io.open(assert(arg[1], "usage: check-cids.lua VECTORS.json"), "rb"))
local vectors = ipfsrt.json.decode(f:read("a"))
f:close()

local function hex(s)
  return (s:gsub(".", function(c) return string.format("%02x", c:byte()) end))
end

local passed, failed = 0, 0
for _, v in ipairs(vectors) do
  local ok, why = pcall(function()
    local c, base = ipfsrt.cid.parse(v.string)
    assert(base == v.base, "base " .. base)
    assert(c.version == v.version, "version")
    assert(c.codec_code == v.codec, "codec")
    assert(c.multihash.code == v.hash, "hash code")
    assert(hex(c.digest) == v.digest, "digest")
    assert(hex(c:bytes()) == v.bytes, "bytes")
    assert(c:encode(base) == v.string, "re-encoding")
    assert(tostring(c:to_v1()) == v.v1, "v1 form")
  end)
  if ok then
    passed = passed + 1
  else
    failed = failed + 1
    print("FAIL " .. v.string .. ": " .. tostring(why))
  end
end
print(string.format("CIDs from multiformats: %d passed, %d failed", passed, failed))
os.exit(failed == 0 and 0 or 1)
