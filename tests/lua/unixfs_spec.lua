local ipfsrt = require "ipfsrt"
local h = require "helpers"

local function tmpdir()
  local d = os.tmpname()
  os.remove(d)
  assert(os.execute("mkdir -p " .. d))
  return d
end

describe("ipfsrt.unixfs over ipfs-car's CAR", function()
  local car = ipfsrt.car.open(h.fixtures .. "ipfs-car-small.car")
  local root = tostring(car:roots()[1])

  it("resolves paths and reads files", function()
    local info = ipfsrt.unixfs.resolve(car, root .. "/hello.txt")
    assert.equal("file", info.type)
    assert.equal(12, info.size)
    assert.equal("hello world\n", ipfsrt.unixfs.read(car, root .. "/hello.txt"))
    assert.equal("world", ipfsrt.unixfs.read(car, "/ipfs/" .. root .. "/hello.txt", 6, 5))
    assert.equal("", ipfsrt.unixfs.read(car, root .. "/empty.bin"))
    local csv = ipfsrt.unixfs.read(car, "ipfs://" .. root .. "/nested/numbers.csv")
    assert.truthy(csv:match("^0,0\n1,1\n2,4\n"))
  end)

  it("lists directories with types and sizes", function()
    local entries = ipfsrt.unixfs.ls(car, root)
    local names = {}
    for _, e in ipairs(entries) do names[e.name] = e end
    assert.equal("file", names["hello.txt"].type)
    assert.equal(12, names["hello.txt"].size)
    assert.equal("directory", names.nested.type)
    assert.equal(3, #entries)
  end)

  it("reports the blocks a path needs", function()
    local cids = ipfsrt.unixfs.blocks_for(car, root .. "/nested/numbers.csv")
    assert.equal(3, #cids) -- root directory, nested directory, the file's one block
    assert.equal(root, tostring(cids[1]))
    local st = ipfsrt.unixfs.stat(car, root)
    assert.equal(5, st.blocks)
  end)

  it("raises error objects for bad paths", function()
    assert.equal("not_found", h.catch(ipfsrt.unixfs.resolve, car, root .. "/nope").code)
    assert.equal("not_directory", h.catch(ipfsrt.unixfs.resolve, car, root .. "/hello.txt/x").code)
    assert.equal("not_file", h.catch(ipfsrt.unixfs.read, car, root .. "/nested").code)
    assert.equal("bad_range", h.catch(ipfsrt.unixfs.read, car, root .. "/hello.txt", 13).code)
  end)
end)

describe("ipfsrt.pack", function()
  it("packs a tree into a block store and reads it back", function()
    local dir = tmpdir()
    h.write(dir .. "/a.txt", "alpha\n")
    os.execute("mkdir -p " .. dir .. "/sub")
    h.write(dir .. "/sub/b.bin", string.rep("b", 300000))
    for _, preset in ipairs({ "ipfs-car", "kubo", "kubo-v1-2025" }) do
      local root, store = ipfsrt.pack(dir, { preset = preset })
      assert.equal(preset == "kubo" and 0 or 1, root.version)
      assert.equal("alpha\n", ipfsrt.unixfs.read(store, tostring(root) .. "/a.txt"))
      assert.equal(string.rep("b", 300000), ipfsrt.unixfs.read(store, tostring(root) .. "/sub/b.bin"))
      assert.is_true(store:count() >= 3)
    end
    local small = ipfsrt.pack(dir, { preset = "kubo", chunk_size = 1000, max_links = 4 })
    local default = ipfsrt.pack(dir, { preset = "kubo" })
    assert.is_false(small == default)
    os.execute("rm -rf " .. dir)
  end)

  it("writes a CAR whose root is the DAG's root", function()
    local dir = tmpdir()
    h.write(dir .. "/x", "x")
    local out = dir .. ".car"
    local root = ipfsrt.pack(dir, { preset = "kubo-v1-2025", output = out, car_version = 2 })
    local car <close> = ipfsrt.car.open(out)
    assert.is_true(car:roots()[1] == root)
    assert.equal(2, car:header().version)
    assert.equal("x", ipfsrt.unixfs.read(car, tostring(root) .. "/x"))
    os.remove(out)
    os.execute("rm -rf " .. dir)
  end)

  it("rejects impossible settings", function()
    assert.equal("bad_argument", h.catch(ipfsrt.pack, "/tmp", { preset = "nope" }).code)
    assert.equal("bad_argument", h.catch(ipfsrt.pack, "/tmp", { preset = "kubo", raw_leaves = true }).code)
    assert.equal("io", h.catch(ipfsrt.pack, "/nonexistent/path").code)
  end)
end)

describe("ipfsrt.blockstore", function()
  it("keeps only verified blocks", function()
    local s = ipfsrt.blockstore()
    local c = ipfsrt.cid.sum("raw", "abc")
    s:put(c, "abc")
    assert.equal("abc", s:get(c))
    assert.equal("hash_mismatch", h.catch(s.put, s, ipfsrt.cid.sum("raw", "x"), "y").code)
    assert.is_nil(s:get(ipfsrt.cid.sum("raw", "absent")))
    assert.equal(1, s:count())
  end)
end)
