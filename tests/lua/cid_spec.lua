local ipfsrt = require "ipfsrt"
local h = require "helpers"

local HELLO = "bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e"

describe("ipfsrt.cid", function()
  it("parses every base of the same CID to equal objects", function()
    local forms = {
      base32 = HELLO,
      base16 = "f01551220b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9",
      base58btc = "zb2rhj7crUKTQYRGCRATFaQ6YFLTde2YzdqbbhAASkL9uRDXn",
      base64 = "mAVUSILlNJ7mTTT4IpS5S19p9q/rEhO/jelOA7pCI96zi783p",
      base64url = "uAVUSILlNJ7mTTT4IpS5S19p9q_rEhO_jelOA7pCI96zi783p",
      base36 = "k2cwued9o1pvrt3q271rrqbo49x30tbxwpoeaq75z14e5ui2rzygpbe1",
    }
    local ref = ipfsrt.cid.parse(HELLO)
    for base, s in pairs(forms) do
      local c, got = ipfsrt.cid.parse(s)
      assert.equal(base, got)
      assert.is_true(c == ref)
      assert.equal(s, c:encode(base))
      assert.equal(HELLO, tostring(c))
    end
  end)

  it("exposes version, codec, multihash and digest", function()
    local c = ipfsrt.cid.parse(HELLO)
    assert.equal(1, c.version)
    assert.equal("raw", c.codec)
    assert.equal(0x55, c.codec_code)
    assert.equal("sha2-256", c.multihash.name)
    assert.equal(0x12, c.multihash.code)
    assert.equal(32, c.multihash.length)
    assert.equal(32, #c.digest)
    assert.equal(c.digest, c.multihash.digest)
    assert.equal("\x01\x55\x12\x20" .. c.digest, c:bytes())
    assert.is_true(ipfsrt.cid.decode(c:bytes()) == c)
    assert.is_true(ipfsrt.cid.sum("raw", "hello world") == c)
    assert.is_true(c:verify("hello world"))
    local e = h.catch(c.verify, c, "hello there")
    assert.equal("hash_mismatch", e.code)
    assert.equal(HELLO, e.cid)
  end)

  it("converts between v0 and v1", function()
    local v0 = ipfsrt.cid.parse("QmdfTbBqBPQ7VNxZEYEj14VmRuZBkqFbiwReogJgS1zR1n")
    assert.equal(0, v0.version)
    assert.equal("dag-pb", v0.codec)
    local v1 = v0:to_v1()
    assert.equal("bafybeihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku", tostring(v1))
    assert.is_false(v0 == v1)
    assert.is_true(v1:to_v0() == v0)
    assert.equal("unsupported", h.catch(v0.encode, v0, "base32").code)
    local raw = ipfsrt.cid.parse(HELLO)
    assert.equal("unsupported", h.catch(raw.to_v0, raw).code)
  end)

  it("builds CIDs from parts", function()
    local c = ipfsrt.cid.new(1, "dag-pb", "identity", "\x0a\x02\x08\x01")
    assert.equal("bafyaabakaieac", tostring(c))
    assert.equal("bafkqaaa", tostring(ipfsrt.cid.sum("raw", "", "identity")))
  end)

  it("rejects malformed CIDs with error objects", function()
    for _, bad in ipairs({ "", "Qm", "zQmdfTbBqBPQ7VNxZEYEj14VmRuZBkqFbiwReogJgS1zR1n", HELLO .. "a",
      "bafkqbaibif" .. string.rep("a", 200), "hello" }) do
      local e = h.catch(ipfsrt.cid.parse, bad)
      assert.is_string(e.message)
      assert.truthy(tostring(e):match("^ipfsrt: "))
    end
    -- wrong argument types are programming errors: plain Lua errors, as in any Lua library
    local ok, msg = pcall(ipfsrt.cid.parse, {})
    assert.is_false(ok)
    assert.is_string(msg)
  end)
end)
