-- The CLI, run as a real process: exit codes, stdout and the one-line errors on stderr.
local ipfsrt = require "ipfsrt"

local exe = require "exe"
local run = exe.run
local FIX = "tests/fixtures/"

local function one_line(s)
  local n = select(2, s:gsub("\n", "\n"))
  return n == 1
end

describe("ipfsrt CLI", function()
  it("prints versions of every library and the hash backend", function()
    local code, out = run({ "--version" })
    assert.equal(0, code)
    local crypto = ipfsrt.versions().crypto -- the one crypto library the build links
    assert.truthy(crypto:match("^OpenSSL ") or crypto:match("^mbedTLS "), crypto)
    for _, word in ipairs({ "ipfsrt", "Lua 5.4", "libcurl", "cJSON", "libmicrohttpd",
                            "SHA-2 backend: " .. ipfsrt.hash.backend() .. " (" .. crypto .. ")" }) do
      assert.truthy(out:find(word, 1, true), word)
    end
  end)

  it("lists the subcommands it finds in lua/ipfsrt/cli", function()
    local code, out = run({ "--help" })
    assert.equal(0, code)
    assert.truthy(out:find("\n  car ", 1, true))
    assert.truthy(out:find("\n  cid ", 1, true))
  end)

  it("takes -q, --quiet in every subcommand, each saying what it leaves out", function()
    local p = assert(io.popen("ls lua/ipfsrt/cli/*.lua"))
    for file in p:lines() do
      local name = file:match("([%w_]+)%.lua$")
      if name ~= "init" then
        local _, help = run({ name, "--help" })
        assert.truthy(help:find("-q, --quiet", 1, true), name .. " --help names no -q, --quiet")
      end
    end
    p:close()
    local code, out = run({ "version", "-q" })
    assert.equal(0, code)
    assert.equal(ipfsrt.versions().ipfsrt .. "\n", out)
    code, out = run({ "cid", "-q", "--base", "base36", "QmdfTbBqBPQ7VNxZEYEj14VmRuZBkqFbiwReogJgS1zR1n" })
    assert.equal(0, code)
    assert.equal("k2jmtxx1epa2wl096hsbpuhrz9xhppklonehzwkmskc9rmeb51kwn4ut\n", out)
  end)

  it("runs scripts with arg, -e code and stdin", function()
    local script = os.tmpname()
    local f = assert(io.open(script, "w"))
    f:write('local a, b = ...\nprint(arg[0] ~= nil, arg[1], arg[2], a, b, ipfsrt.version)\n')
    f:close()
    local code, out = run({ script, "x", "y" })
    assert.equal(0, code)
    assert.equal("true\tx\ty\tx\ty\t" .. ipfsrt.version .. "\n", out)
    os.remove(script)
    code, out = run({ "-e", 'print(tostring(ipfsrt.cid.sum("raw", "hello world")))' })
    assert.equal(0, code)
    assert.equal("bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e\n", out)
    code, out = run({ "-" }, { stdin = 'print(require("ipfsrt").multibase.encode("base58btc", "yes mani !"))' })
    assert.equal(0, code)
    assert.equal("z7paNL19xttacUY\n", out)
    code, out = run({}, { stdin = "print(1 + 1)" })
    assert.equal(0, code)
    assert.equal("2\n", out)
  end)

  it("reports script errors and ipfsrt error objects", function()
    local code, _, err = run({ "-e", 'ipfsrt.cid.parse("nope")' })
    assert.equal(1, code)
    assert.truthy(err:match("^ipfsrt: bad_multibase: "))
    code = run({ "-e", "error('x')" })
    assert.equal(1, code)
    code, _, err = run({ "no-such-subcommand" })
    assert.equal(2, code)
    assert.truthy(one_line(err))
  end)

  describe("cid", function()
    it("describes a CID as one JSON object", function()
      local code, out = run({ "cid", "QmdfTbBqBPQ7VNxZEYEj14VmRuZBkqFbiwReogJgS1zR1n" })
      assert.equal(0, code)
      local j = ipfsrt.json.decode(out)
      assert.equal("QmdfTbBqBPQ7VNxZEYEj14VmRuZBkqFbiwReogJgS1zR1n", j.cid)
      assert.equal(0, j.version)
      assert.equal("dag-pb", j.codec)
      assert.equal(112, j.codec_code)
      assert.equal("base58btc", j.multibase)
      assert.same({ name = "sha2-256", code = 18, length = 32,
        digest = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" }, j.multihash)
      assert.equal("bafybeihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku", j.v1)
      assert.equal("QmdfTbBqBPQ7VNxZEYEj14VmRuZBkqFbiwReogJgS1zR1n", j.v0)
    end)
    it("canonicalises and re-encodes", function()
      local _, out = run({ "cid", "BAFKREIFZJUT3TE2NHYEKKLSS27NH3K72YSCO7Y32KOAO5EEI66WOF36N5E" })
      local j = ipfsrt.json.decode(out)
      assert.equal("base32upper", j.multibase)
      assert.is_nil(j.v0)
      local code
      code, out = run({ "cid", "--base", "base36", "bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e" })
      assert.equal(0, code)
      assert.equal("k2cwued9o1pvrt3q271rrqbo49x30tbxwpoeaq75z14e5ui2rzygpbe1", ipfsrt.json.decode(out).cid)
    end)
    it("rejects bad input with one line and a non-zero exit", function()
      for _, args in ipairs({ { "cid", "bafybogus" }, { "cid" }, { "cid", "a", "b" },
        { "cid", "bafkqaaa", "--base", "base99" }, { "cid", "--frob", "bafkqaaa" } }) do
        local code, out, err = run(args)
        assert.is_true(code ~= 0)
        assert.equal("", out)
        assert.truthy(err:match("^ipfsrt cid: "))
      end
    end)
  end)

  it("car ls-path lists a directory whose one entry is bad, and flags it", function()
    local dir = os.tmpname()
    os.remove(dir)
    os.execute("mkdir -p " .. dir .. "/d")
    for _, n in ipairs({ "a", "b", "c" }) do exe.put(dir .. "/d/" .. n, "file " .. n .. "\n") end
    local root, store = ipfsrt.pack(dir .. "/d", { preset = "kubo" })
    local listing = ipfsrt.unixfs.ls(store, tostring(root), { types = false })
    local missing = listing[2].cid
    local car = dir .. "/holey.car"
    do
      local w <close> = ipfsrt.car.writer(car, { root })
      w:put(root, store:get(root))
      for _, e in ipairs(listing) do if e.cid ~= missing then w:put(e.cid, store:get(e.cid)) end end
    end
    local code, out, err = run({ "car", "ls-path", car, tostring(root) })
    assert.equal(1, code)
    assert.truthy(out:find(" a\n", 1, true) and out:find(" c\n", 1, true), out)
    assert.truthy(out:find("(not_found) " .. tostring(missing) .. " b", 1, true), out)
    assert.truthy(err:find("1 of 3 entries", 1, true), err)
    os.execute("rm -rf " .. dir)
  end)

  describe("car", function()
    local expected = ipfsrt.json.decode(io.open(FIX .. "expected.json"):read("a"))["ipld-car-mixed.car"]

    it("lists roots", function()
      local code, out = run({ "car", "roots", FIX .. "ipld-car-mixed.car" })
      assert.equal(0, code)
      assert.equal(table.concat(expected.roots, "\n") .. "\n", out)
    end)
    it("lists blocks with codec and size", function()
      local code, out = run({ "car", "ls", FIX .. "ipld-car-mixed.car" })
      assert.equal(0, code)
      local i = 0
      for line in out:gmatch("[^\n]+") do
        i = i + 1
        local cid, codec, size = line:match("^(%S+)\t(%S+)\t(%d+)$")
        assert.equal(expected.blocks[i].cid, cid)
        assert.equal(ipfsrt.cid.parse(cid).codec, codec)
        assert.equal(#ipfsrt.multibase.decode("M" .. expected.blocks[i].bytes), tonumber(size))
      end
      assert.equal(#expected.blocks, i)
    end)
    it("verifies and summarises", function()
      local code, out = run({ "car", "verify", FIX .. "ipfs-car-small.car" })
      assert.equal(0, code)
      assert.truthy(out:match("^ok: 5 blocks, 1977 bytes verified"))
    end)
    it("fails verification with one line naming the CID and offset", function()
      local data = io.open(FIX .. "ipld-car-mixed.car", "rb"):read("a")
      local at = data:find("hello world", 1, true)
      local bad = os.tmpname()
      local f = io.open(bad, "wb")
      f:write(data:sub(1, at - 1), "j", data:sub(at + 1))
      f:close()
      local code, out, err = run({ "car", "verify", bad })
      assert.equal(1, code)
      assert.equal("", out)
      assert.truthy(one_line(err))
      assert.truthy(err:find("hash_mismatch", 1, true))
      assert.truthy(err:find(expected.blocks[2].cid, 1, true))
      assert.truthy(err:find("byte offset %d+"))
      os.remove(bad)
    end)
    it("cats one block", function()
      local code, out = run({ "car", "cat", FIX .. "ipld-car-mixed.car",
        "bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e" })
      assert.equal(0, code)
      assert.equal("hello world", out)
      local err
      code, out, err = run({ "car", "cat", FIX .. "ipld-car-mixed.car", "bafkqaaa" })
      assert.equal(0, code) -- identity CIDs carry their bytes
      code, out, err = run({ "car", "cat", FIX .. "ipld-car-mixed.car",
        tostring(ipfsrt.cid.sum("raw", "absent")) })
      assert.equal(1, code)
      assert.truthy(err:find("not_found", 1, true))
    end)
    it("rejects bad invocations and files with one line", function()
      for _, args in ipairs({ { "car" }, { "car", "frob", "x" }, { "car", "verify" },
        { "car", "verify", "/nonexistent.car" }, { "car", "ls", "README.md" },
        { "car", "verify", FIX .. "ipld-car-mixed.car", "--max-block", "100" } }) do
        local code, out, err = run(args)
        assert.is_true(code ~= 0)
        assert.equal("", out)
        assert.truthy(err:match("^ipfsrt car: "), err)
      end
    end)
  end)
end)

describe("ipfsrt pack and UnixFS subcommands", function()
  local dir = os.tmpname()
  os.remove(dir)
  os.execute("mkdir -p " .. dir .. "/tree/sub")
  local function put(path, data)
    local f = assert(io.open(path, "wb"))
    f:write(data)
    f:close()
  end
  put(dir .. "/tree/hello.txt", "hello world\n")
  put(dir .. "/tree/sub/data.bin", string.rep("0123456789", 50000))

  it("packs with each preset and prints the root last", function()
    for _, preset in ipairs({ "ipfs-car", "kubo", "kubo-v1-2025" }) do
      local code, out = run({ "pack", dir .. "/tree", "--preset", preset, "-o", dir .. "/" .. preset .. ".car" })
      assert.equal(0, code)
      local root = out:match("([^\n]+)\n$")
      assert.truthy(ipfsrt.cid.parse(root))
      local code2, listing = run({ "car", "ls-path", dir .. "/" .. preset .. ".car", root })
      assert.equal(0, code2)
      assert.truthy(listing:find("hello.txt", 1, true))
    end
  end)

  it("packs a Zarr v2 folder's dot-file metadata without --hidden, other dot-files left out", function()
    local z = dir .. "/zarr-v2"
    ipfsrt.zarr.group(z, { zarr_format = 2, attrs = { title = "packed" } })
    ipfsrt.zarr.create(z, { path = "t", zarr_format = 2, shape = { 4 }, chunks = { 2 }, dtype = "int16" })
      :write(nil, ipfsrt.ndarray.arange(0, 4, 1, "int16"))
    ipfsrt.zarr.consolidate(z)
    for _, name in ipairs { ".zgroup", ".zattrs", ".zmetadata", "t/.zarray" } do
      assert.truthy(io.open(z .. "/" .. name), name)
    end
    local code, out = run({ "pack", z, "-o", dir .. "/zarr-v2.car" })
    assert.equal(0, code)
    local root = out:match("([^\n]+)\n$")
    local info
    code, info = run({ "zarr", "info", dir .. "/zarr-v2.car", "--json" })
    assert.equal(0, code, info)
    assert.truthy(info:find('"packed"', 1, true), info)
    local _, values = run({ "zarr", "get", dir .. "/zarr-v2.car", "t", "--json" })
    assert.same({ 0, 1, 2, 3 }, ipfsrt.json.decode(values))
    -- the same set of files, every dot-file asked for: the same root
    code, out = run({ "pack", z, "--hidden", "-o", dir .. "/zarr-v2-hidden.car" })
    assert.equal(0, code)
    assert.equal(root, out:match("([^\n]+)\n$"))
    -- another dot-file stays out without --hidden
    exe.put(z .. "/.DS_Store", "finder")
    code, out = run({ "pack", z, "-o", dir .. "/zarr-v2-again.car" })
    assert.equal(0, code)
    assert.equal(root, out:match("([^\n]+)\n$"))
    code, out = run({ "pack", z, "--hidden", "-o", dir .. "/zarr-v2-all.car" })
    assert.equal(0, code)
    assert.not_equal(root, out:match("([^\n]+)\n$"))
  end)

  it("gets files and trees, and states what a path is", function()
    local _, out = run({ "pack", dir .. "/tree", "-o", dir .. "/t.car" })
    local root = out:match("([^\n]+)\n$")
    local qcode, quiet = run({ "car", "verify", "-q", dir .. "/t.car" })
    assert.equal(0, qcode)
    assert.equal("", quiet)
    local _, said = run({ "car", "verify", dir .. "/t.car" })
    assert.truthy(said:find("^ok: "), said)
    local code, bytes = run({ "car", "get", dir .. "/t.car", root .. "/hello.txt" })
    assert.equal(0, code)
    assert.equal("hello world\n", bytes)
    code = run({ "car", "get", dir .. "/t.car", root, "-o", dir .. "/out" })
    assert.equal(0, code)
    assert.equal(string.rep("0123456789", 50000), io.open(dir .. "/out/sub/data.bin", "rb"):read("a"))
    local stat
    code, stat = run({ "car", "stat", dir .. "/t.car", root .. "/sub/data.bin", "--json" })
    assert.equal(0, code)
    local j = ipfsrt.json.decode(stat)
    assert.equal("file", j.type)
    assert.equal(500000, j.size)
    assert.equal(1, j.blocks)
    local err
    code, out, err = run({ "car", "get", dir .. "/t.car", root })
    assert.equal(2, code)
    assert.truthy(err:find("give -o DIR", 1, true))
    code, out, err = run({ "car", "get", dir .. "/t.car", root .. "/missing" })
    assert.equal(1, code)
    assert.truthy(err:find("not_found", 1, true))
    code = run({ "car", "get", dir .. "/t.car", root, "-o", dir .. "/out" })
    assert.equal(1, code) -- never overwrites
  end)

  it("rejects bad pack invocations with one line", function()
    for _, args in ipairs({ { "pack" }, { "pack", dir .. "/tree" }, { "pack", "/nonexistent", "-o", dir .. "/x.car" },
      { "pack", dir .. "/tree", "-o", dir .. "/y.car", "--hamt", "sometimes" },
      { "pack", dir .. "/tree", "-o", dir .. "/z.car", "--preset", "kubo", "--raw-leaves" } }) do
      local code, out, err = run(args)
      assert.is_true(code ~= 0)
      assert.equal("", out)
      assert.truthy(err:match("^ipfsrt pack: "), err)
    end
  end)
end)

describe("ipfsrt serve", function()
  local car = "tests/fixtures/ipfs-car-small.car"

  it("listens on 127.0.0.1 given :PORT or PORT, and says why it cannot listen", function()
    for _, form in ipairs({ ":0", "0", "127.0.0.1:0" }) do
      local p = assert(io.popen("timeout -s TERM 2 " .. exe.EXE .. " serve " .. car .. " --listen " .. form .. " 2>/dev/null"))
      local first = p:read("l")
      p:close()
      assert.truthy(first and first:match("^http://127%.0%.0%.1:%d+$"), form .. " -> " .. tostring(first))
    end
    local busy = ipfsrt.serve { cars = { car } }
    local port = busy:url():match(":(%d+)$")
    local code, _, err = exe.run({ "serve", car, "--listen", port })
    busy:stop()
    assert.equal(1, code)
    assert.truthy(err:find("cannot listen on " .. port .. ": Address already in use", 1, true), err)
    code, _, err = exe.run({ "serve", car, "--listen", "8o8o" })
    assert.equal(2, code) -- a mistake in what was asked for
    assert.truthy(err:find("HOST:PORT, :PORT or PORT", 1, true), err)
  end)

  it("says how much it served when stopped, unless -q", function()
    for _, quiet in ipairs({ false, true }) do
      local errfile = os.tmpname()
      local p = assert(io.popen("timeout -s TERM 1 " .. exe.EXE .. " serve " .. car .. (quiet and " -q" or "") ..
        " 2>" .. errfile))
      assert.truthy(p:read("l"):match("^http://"))
      p:close()
      local said = assert(io.open(errfile)):read("a")
      os.remove(errfile)
      if quiet then assert.equal("", said) else assert.truthy(said:find("stopping after 0 requests", 1, true), said) end
    end
  end)
end)

describe("what failures show", function()
  it("never prints a gateway's password, and names the URL given for an unverified read, not a gateway", function()
    local cid = "bafybeihm2fwylxiush5wrtgc2kxhfwffodhjhfdickb6qc6zufwiu6uwty"
    local code, _, err = run { "cat", "ipfs://" .. cid .. "/a.txt", "--gateway", "http://user:s3cret@127.0.0.1:1",
      "--retries", "1" }
    assert.equal(1, code)
    assert.truthy(err:find("http://user:***@127.0.0.1:1", 1, true), err)
    assert.is_nil(err:find("s3cret", 1, true), err)
    code, _, err = run { "cat", "http://user:s3cret@127.0.0.1:1/ipfs/" .. cid .. "/a.txt", "--no-verify", "--retries", "1" }
    assert.equal(1, code)
    assert.truthy(err:find("http://user:***@127.0.0.1:1/ipfs/" .. cid .. "/a.txt: cannot connect", 1, true), err)
    assert.is_nil(err:find("s3cret", 1, true), err)
    assert.is_nil(err:find("every gateway", 1, true), err) -- no gateway was asked
    assert.is_nil(err:find("public", 1, true), err)
  end)
end)
