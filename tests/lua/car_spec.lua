local ipfsrt = require "ipfsrt"
local h = require "helpers"

local function tmp()
  return os.tmpname()
end

describe("ipfsrt.car", function()
  for _, name in ipairs({ "ipld-car-mixed.car", "ipfs-car-small.car" }) do
    describe(name .. " (written by an independent implementation)", function()
      local expected = h.expected(name)
      local path = h.fixtures .. name

      it("opens with roots and random access", function()
        local car <close> = ipfsrt.car.open(path)
        local roots = car:roots()
        assert.equal(#expected.roots, #roots)
        for i, r in ipairs(roots) do assert.equal(expected.roots[i], tostring(r)) end
        for _, b in ipairs(expected.blocks) do
          assert.is_true(car:has(b.cid))
          assert.equal(b.bytes, car:get(ipfsrt.cid.parse(b.cid)))
          assert.equal(b.bytes, car:get(b.cid))
        end
        assert.is_nil(car:get(ipfsrt.cid.sum("raw", "not here")))
        assert.equal(1, car:header().version)
        assert.equal("scan", car:header().index)
      end)

      it("iterates verified blocks in order", function()
        local car <close> = ipfsrt.car.open(path)
        local i = 0
        for cid, bytes, offset in car:blocks() do
          i = i + 1
          assert.equal(expected.blocks[i].cid, tostring(cid))
          assert.equal(expected.blocks[i].bytes, bytes)
          assert.is_true(offset > 0)
        end
        assert.equal(#expected.blocks, i)
      end)

      it("streams through the push reader in any slice size", function()
        local data = h.read(path)
        for _, slice in ipairs({ 1, 3, 100, #data }) do
          local r = ipfsrt.car.reader()
          local got = {}
          for pos = 1, #data, slice do
            for _, b in ipairs(r:feed(data:sub(pos, pos + slice - 1))) do got[#got + 1] = b end
          end
          assert.is_true(r:finish())
          assert.equal(#expected.blocks, #got)
          for i, b in ipairs(got) do
            assert.equal(expected.blocks[i].cid, tostring(b.cid))
            assert.equal(expected.blocks[i].bytes, b.data)
          end
          assert.equal(#expected.roots, #r:roots())
          assert.equal(#data, r:offset())
        end
      end)

      it("verifies the whole file", function()
        local s = ipfsrt.car.verify(path, { slice = 16 })
        assert.equal(#expected.blocks, s.blocks)
      end)
    end)
  end

  it("decodes a DAG-CBOR block into tables, strings and cid objects", function()
    local car <close> = ipfsrt.car.open(h.fixtures .. "ipld-car-mixed.car")
    local node = ipfsrt.dagcbor.decode(car:get(car:roots()[1]))
    assert.equal("ipfsrt fixture", node.name)
    assert.equal(3011, node.size)
    assert.equal(4, #node.links)
    assert.equal("bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e", tostring(node.links[1]))
    assert.equal("hello world", car:get(node.links[1]))
    assert.equal("inline", car:get(node.links[4]))
    assert.is_true(node.nested.ok)
    assert.equal(ipfsrt.null, node.nested.none)
    assert.equal(ipfsrt.dagcbor.null, ipfsrt.null)
    assert.equal(-42, node.nested.neg)
    assert.equal(1.5, node.nested.f)
    local e = h.catch(ipfsrt.dagcbor.decode, "\xa2\x61\x62\x01\x61\x61\x01")
    assert.equal("bad_dagcbor", e.code)
    assert.equal(4, e.offset) -- the second key
  end)

  it("decodes a dag-pb block into its data and links", function()
    local car <close> = ipfsrt.car.open(h.fixtures .. "ipfs-car-small.car")
    local root = car:roots()[1]
    local node = ipfsrt.dagpb.decode(car:get(root))
    assert.equal("\8\1", node.data) -- UnixFS: a directory
    assert.is_true(#node.links > 0)
    for _, l in ipairs(node.links) do
      assert.truthy(car:has(l.cid))
      assert.equal("string", type(l.name))
      assert.equal("number", math.type(l.tsize) and "number")
    end
    local e = h.catch(ipfsrt.dagpb.decode, "\18\5")
    assert.equal("bad_dagpb", e.code)
  end)

  it("reports a tampered block with its CID and byte offset", function()
    local data = h.read(h.fixtures .. "ipld-car-mixed.car")
    local expected = h.expected("ipld-car-mixed.car")
    -- flip the last byte of the "hello world" block (the second section)
    local at = data:find("hello world", 1, true) + 10
    local bad = data:sub(1, at - 1) .. "e" .. data:sub(at + 1)
    local path = tmp()
    h.write(path, bad)
    local e = h.catch(ipfsrt.car.verify, path)
    assert.equal("hash_mismatch", e.code)
    assert.equal(expected.blocks[2].cid, e.cid)
    assert.is_number(e.offset)
    assert.truthy(e.message:find(tostring(e.offset), 1, true))
    local car <close> = ipfsrt.car.open(path)
    assert.equal("hash_mismatch", h.catch(car.get, car, expected.blocks[2].cid).code)
    local r = ipfsrt.car.reader()
    local fe = h.catch(r.feed, r, bad)
    assert.equal(e.offset, fe.offset)
    os.remove(path)
  end)

  it("writes CARv1 and CARv2 that read back block for block", function()
    local expected = h.expected("ipld-car-mixed.car")
    for _, version in ipairs({ 1, 2 }) do
      local path = tmp()
      do
        local w <close> = ipfsrt.car.writer(path, expected.roots, { version = version })
        for _, b in ipairs(expected.blocks) do w:put(b.cid, b.bytes) end
      end
      local car <close> = ipfsrt.car.open(path)
      assert.equal(version, car:header().version)
      assert.equal(version == 2 and "carv2-index" or "scan", car:header().index)
      for _, b in ipairs(expected.blocks) do assert.equal(b.bytes, car:get(b.cid)) end
      assert.equal(#expected.blocks - 1, ipfsrt.car.verify(path).blocks) -- duplicate written once
      os.remove(path)
    end
  end)

  it("refuses to write a block that does not match its CID", function()
    local path = tmp()
    local w = ipfsrt.car.writer(path, {})
    local e = h.catch(w.put, w, ipfsrt.cid.sum("raw", "a"), "b")
    assert.equal("hash_mismatch", e.code)
    w:close()
    assert.equal(0, ipfsrt.car.verify(path).blocks)
    os.remove(path)
  end)

  it("raises errors for missing or non-CAR files", function()
    assert.equal("io", h.catch(ipfsrt.car.open, "/nonexistent.car").code)
    local path = tmp()
    h.write(path, "not a car at all")
    assert.is_true(ipfsrt.error.is(h.catch(ipfsrt.car.open, path)))
    assert.is_true(ipfsrt.error.is(h.catch(ipfsrt.car.verify, path)))
    os.remove(path)
  end)
end)
