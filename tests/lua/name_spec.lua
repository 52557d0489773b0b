-- IPNS from Lua: keys in a keystore, records published and inspected, the
-- spec's test vectors, and what is refused.
local ipfsrt = require "ipfsrt"
local h = require "helpers"

local VECTORS = h.fixtures .. "ipns/"

describe("ipfsrt.ipns and ipfsrt.name", function()
  local dir
  before_each(function()
    dir = os.tmpname()
    os.remove(dir)
  end)
  after_each(function() os.execute("rm -rf '" .. dir .. "'") end)

  it("verifies the spec's test vectors as the spec says", function()
    local valid = {
      ["k51qzi5uqu5dlkw8pxuw9qmqayfdeh4kfebhmreauqdc6a7c3y7d5i9fi8mk9w_v1-v2"] = "/ipfs/bafkqaddwgevxmmraojswg33smq",
      ["k51qzi5uqu5dilgf7gorsh9vcqqq4myo6jd4zmqkuy9pxyxi5fua3uf7axph4y_v1-v2-broken-signature-v1"] =
        "/ipfs/bafkqahtwgevxmmrao5uxi2bamjzg623fnyqhg2lhnzqxi5lsmuqhmmi",
    }
    local invalid = {
      ["k51qzi5uqu5dm4tm0wt8srkg9h9suud4wuiwjimndrkydqm81cqtlb5ak6p7ku_v1"] = "bad_record",
      ["k51qzi5uqu5dlmit2tuwdvnx4sbnyqgmvbxftl0eo3f33wwtb9gr7yozae9kpw_v1-v2-broken-v1-value"] = "bad_record",
      ["k51qzi5uqu5diamp7qnnvs1p1gzmku3eijkeijs3418j23j077zrkok63xdm8c_v1-v2-broken-signature-v2"] = "bad_signature",
    }
    for file, value in pairs(valid) do
      local info = ipfsrt.name.inspect(h.read(VECTORS .. file .. ".ipns-record"), file:match("^[^_]+"))
      assert.equal(value, info.value)
      assert.is_false(info.expired)
    end
    for file, code in pairs(invalid) do
      local name = file:match("^[^_]+")
      local e = h.catch(ipfsrt.ipns.verify, name, h.read(VECTORS .. file .. ".ipns-record"))
      assert.equal(code, e.code)
      assert.equal(name, e.cid)
      assert.truthy(e.message:find(name, 1, true))
    end
  end)

  it("keeps keys in a keystore and publishes records whose sequence goes on", function()
    local opts = { keystore = dir .. "/keys" }
    local name = ipfsrt.name.keygen("daily", opts)
    assert.truthy(name:match("^k51"))
    assert.equal(name, ipfsrt.name.key("daily", opts):name())
    assert.same({ { key = "daily", name = name } }, ipfsrt.name.list(opts))
    local mode = io.popen("stat -c %a '" .. dir .. "/keys/daily.key' '" .. dir .. "/keys'"):read("a")
    assert.equal("600\n700\n", mode)
    assert.equal("io", h.catch(ipfsrt.name.keygen, "daily", opts).code)
    assert.equal("bad_argument", h.catch(ipfsrt.name.keygen, "../escape", opts).code)
    assert.equal("not_found", h.catch(ipfsrt.name.key, "other", opts).code)
    local first = ipfsrt.name.publish("bafkqaddwgevxmmraojswg33smq", { key = "daily", keystore = opts.keystore })
    local second = ipfsrt.name.publish("ipfs://bafkqaddwgevxmmraojswg33smq/a", { key = "daily",
      keystore = opts.keystore, lifetime = 60, ttl = 30 })
    assert.equal(0, first.sequence)
    assert.equal(1, second.sequence)
    local info = ipfsrt.name.inspect(second.record, name)
    assert.equal("/ipfs/bafkqaddwgevxmmraojswg33smq/a", info.value)
    assert.equal(30, info.ttl)
    assert.is_true(math.abs(info.eol - os.time() - 60) <= 2)
    assert.equal("bad_multibase", h.catch(ipfsrt.name.publish, "not-a-cid", { key = "daily", keystore = opts.keystore }).code)
  end)

  it("flags expired records, refuses them unless asked, and refuses them under another name", function()
    local key = ipfsrt.ipns.key_generate()
    local other = ipfsrt.ipns.key_generate("ed25519")
    local rec = ipfsrt.ipns.record(key, { value = "/ipfs/bafkqaddwgevxmmraojswg33smq", sequence = 2, eol = os.time() - 10 })
    assert.equal("expired", h.catch(ipfsrt.ipns.verify, key:name(), rec).code)
    assert.equal(2, ipfsrt.ipns.verify(key:name(), rec, false).sequence)
    assert.is_true(ipfsrt.name.inspect(rec, key:name()).expired)
    assert.equal("bad_signature", h.catch(ipfsrt.ipns.verify, other:name(), rec, false).code)
    assert.equal("too_large", h.catch(ipfsrt.ipns.verify, key:name(), string.rep("\0", 10241)).code)
  end)

  it("reads names in every form users paste", function()
    local key = ipfsrt.ipns.key_generate()
    local k51 = key:name()
    local cid = ipfsrt.cid.parse(k51)
    assert.equal(k51, ipfsrt.ipns.name(tostring(cid)))             -- base32
    assert.equal(k51, ipfsrt.ipns.name("ipns://" .. k51))
    assert.equal(k51, ipfsrt.ipns.name("/ipns/" .. k51))
    local peer = ipfsrt.multibase.encode("base58btc", cid.multihash.bytes):sub(2)
    assert.equal("12D3KooW", peer:sub(1, 8))
    assert.equal(k51, ipfsrt.ipns.name(peer))
    assert.equal("bad_cid", h.catch(ipfsrt.ipns.name, "bafkqaddwgevxmmraojswg33smq").code)
    local rsa = ipfsrt.ipns.key_generate("rsa")
    assert.equal("rsa", rsa:type())
    assert.equal(rsa:name(), ipfsrt.ipns.key_load(rsa:private_bytes()):name())
  end)
end)
