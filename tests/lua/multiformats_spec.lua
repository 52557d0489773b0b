local ipfsrt = require "ipfsrt"
local h = require "helpers"

describe("multibase", function()
  local vectors = {
    base32 = "bpfsxgidnmfxgsibb", base32upper = "BPFSXGIDNMFXGSIBB", base36 = "k2lcpzo5yikidynfl",
    base58btc = "z7paNL19xttacUY", base16 = "f796573206d616e692021", base64 = "meWVzIG1hbmkgIQ",
    base64pad = "MeWVzIG1hbmkgIQ==", base64url = "ueWVzIG1hbmkgIQ",
  }
  for base, s in pairs(vectors) do
    it("encodes and decodes " .. base, function()
      assert.equal(s, ipfsrt.multibase.encode(base, "yes mani !"))
      local bytes, name = ipfsrt.multibase.decode(s)
      assert.equal("yes mani !", bytes)
      assert.equal(base, name)
    end)
  end
  it("keeps leading zero bytes", function()
    assert.equal("z17paNL19xttacUY", ipfsrt.multibase.encode("base58btc", "\0yes mani !"))
    assert.equal("k02lcpzo5yikidynfl", ipfsrt.multibase.encode("base36", "\0yes mani !"))
  end)
  it("rejects bad input with error objects", function()
    assert.equal("bad_multibase", h.catch(ipfsrt.multibase.decode, "Qm123").code)
    assert.equal("unsupported", h.catch(ipfsrt.multibase.encode, "base2", "x").code)
  end)
end)

describe("multihash", function()
  it("hashes the multihash test vector", function()
    local mh = ipfsrt.multihash.sum("sha2-256", "431fb5d4c9b735ba1a34d0df045118806ae2336f2c")
    assert.equal("1220ffb31f07aa15348368c90c73a834dbf9f8710365860fa0fd4ddce9ac2782cc17",
      ipfsrt.multibase.encode("base16", mh):sub(2))
    local short = ipfsrt.multihash.sum("sha2-256", "431fb5d4c9b735ba1a34d0df045118806ae2336f2c", 10)
    assert.equal("120affb31f07aa15348368c9", ipfsrt.multibase.encode("base16", short):sub(2))
    local d = ipfsrt.multihash.decode(mh)
    assert.same({ "sha2-256", 0x12, 32 }, { d.name, d.code, d.length })
  end)
  it("names unsupported functions", function()
    local e = h.catch(ipfsrt.multihash.sum, "blake3", "x")
    assert.equal("unsupported", e.code)
    assert.truthy(e.message:find("blake3", 1, true))
  end)
  it("agrees across hash backends", function()
    local before = ipfsrt.hash.backend()
    local data = string.rep("ipfsrt", 100000)
    local sums = {}
    for _, name in ipairs(ipfsrt.hash.backends()) do
      ipfsrt.hash.backend(name)
      sums[#sums + 1] = ipfsrt.multihash.sum("sha2-512", data)
    end
    ipfsrt.hash.backend(before)
    for i = 2, #sums do assert.equal(sums[1], sums[i]) end
  end)
end)

describe("varint", function()
  it("round-trips and rejects non-minimal encodings", function()
    assert.equal("\xac\x02", ipfsrt.varint.encode(300))
    assert.same({ 300, 3 }, { ipfsrt.varint.decode("\xac\x02") })
    assert.same({ 1, 3 }, { ipfsrt.varint.decode("\xff\x01", 2) })
    assert.equal("bad_varint", h.catch(ipfsrt.varint.decode, "\x81\x00").code)
    assert.equal("truncated", h.catch(ipfsrt.varint.decode, "\x80").code)
  end)
end)

describe("clock", function()
  it("is monotonic, in seconds as a float", function()
    local a = ipfsrt.clock()
    local b = ipfsrt.clock()
    assert.is_true(b >= a)
    assert.is_true(math.type(a) == "float")
  end)
end)
