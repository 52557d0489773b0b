-- ipfsrt.zarr: groups and arrays through folder, CAR, ipfs:// and Lua-table
-- stores. A chunk that a verified directory lacks reads as the fill value; a
-- chunk a gateway withholds (404 for a block the directory links) is an error,
-- never a fill value passed off as data.
local ipfsrt = require "ipfsrt"
local exe = require "exe"
local put = exe.put

-- int16 values r * 100 + c of a 5 x 7 array in chunks of 2 x 3, little-endian,
-- no compressor: chunk (i, j)'s raw bytes (edge chunks padded with zeros).
local function chunk_bytes(i, j)
  local parts = {}
  for r = i * 2, i * 2 + 1 do
    for c = j * 3, j * 3 + 2 do
      local v = (r < 5 and c < 7) and r * 100 + c or 0
      parts[#parts + 1] = string.pack("<i2", v)
    end
  end
  return table.concat(parts)
end

local ZARRAY = '{"zarr_format": 2, "shape": [5, 7], "chunks": [2, 3], "dtype": "<i2", "compressor": null, ' ..
  '"fill_value": -1, "order": "C", "filters": null}'

local function expected(r, c, missing)
  if missing and r < 2 and c < 3 then return -1 end
  return r * 100 + c
end

local function check(a, missing)
  local x = a:read()
  assert.same({ 5, 7 }, x.shape)
  for r = 0, 4 do
    for c = 0, 6 do assert.equal(expected(r, c, missing), x:get(r, c)) end
  end
end

describe("ipfsrt.zarr", function()
  local dir = os.tmpname()
  os.remove(dir)
  os.execute("mkdir -p " .. dir .. "/ds/temp")
  put(dir .. "/ds/.zgroup", '{"zarr_format": 2}')
  put(dir .. "/ds/.zattrs", '{"title": "test"}')
  put(dir .. "/ds/temp/.zarray", ZARRAY)
  for i = 0, 2 do
    for j = 0, 2 do
      if not (i == 0 and j == 0) then put(string.format("%s/ds/temp/%d.%d", dir, i, j), chunk_bytes(i, j)) end
    end
  end
  local car = dir .. "/ds.car"
  local root = tostring(ipfsrt.pack(dir .. "/ds", { output = car, hidden = true }))
  local gateway, stop_gateways = exe.gateways({ car })
  local honest = gateway()

  teardown(function()
    stop_gateways()
    os.execute("rm -rf " .. dir)
  end)

  it("opens groups and arrays in a folder, a chunk never written reading as the fill value", function()
    local g = ipfsrt.zarr.open(dir .. "/ds")
    assert.equal("test", g.attrs.title)
    assert.same({ { name = "temp", is_array = true } }, g:members())
    local a = g.temp
    assert.same({ 5, 7 }, a.shape)
    assert.same({ 2, 3 }, a.chunks)
    assert.equal("int16", a.dtype)
    check(a, true)
    assert.is_nil(g.nothing)
    assert.equal(1, #g:arrays())
    assert.equal(0, #g:groups())
  end)

  it("reads the same from the CAR and over ipfs://, verified", function()
    check(ipfsrt.zarr.open(car, { path = "temp" }), true)
    local c = ipfsrt.client { gateways = { honest:url() } }
    local a = ipfsrt.zarr.open("ipfs://" .. root .. "/temp", { client = c })
    check(a, true)
    local part = a:read { { 1, 4 }, { nil, nil, -2 } }
    assert.same({ 3, 4 }, part.shape)
    assert.equal(106, part:get(0, 0))
    assert.equal(300, part:get(2, 3))
    c:close()
  end)

  it("summarizes a selection as the read and the reduction do, on every store and thread count", function()
    local c = ipfsrt.client { gateways = { honest:url() } }
    local stores = { ipfsrt.zarr.open(dir .. "/ds").temp, ipfsrt.zarr.open(car, { path = "temp" }),
      ipfsrt.zarr.open("ipfs://" .. root .. "/temp", { client = c }) }
    local sel = { { 0, 4 }, { 1, nil, 2 } }
    local x = stores[1]:read(sel)
    local keep = x:ne(102)
    for _, a in ipairs(stores) do
      for _, threads in ipairs { 1, 2, 8 } do
        local s = a:summarize(sel, { skip = { 102 }, extremes = true, threads = threads })
        assert.equal(keep:sum(), s.count)
        assert.equal(x:sum { where = keep }, s.sum)
        assert.equal(-1, s.min) -- the chunk never written: its fill value
        assert.equal(305, s.max)
        local u = a:summarize(sel, { unscale = { dtype = "float64", fills = { -1 }, scale = 0.5, offset = 1 } })
        local v = x:unscale("float64", { -1 }, 0.5, 1)
        assert.equal(v:count(), u.count)
        assert.near(v:sum(), u.sum, 1e-9)
      end
    end
    local ok, err = pcall(stores[1].summarize, stores[1], sel, { skip = 3 })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("skip is a list", 1, true))
    c:close()
  end)

  it("reads several arrays together as each alone, and refuses what is no array of theirs", function()
    local c = ipfsrt.client { gateways = { honest:url() } }
    local g = ipfsrt.zarr.open("ipfs://" .. root, { client = c })
    local xs = ipfsrt.zarr.read_many { g.temp, g.temp }
    assert.equal(2, #xs)
    for _, x in ipairs(xs) do assert.same(g.temp:read():tolist(), x:tolist()) end
    assert.same({}, ipfsrt.zarr.read_many {})
    local ok, err = pcall(ipfsrt.zarr.read_many, { g })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("item 1 is not an array", 1, true))
    ok, err = pcall(ipfsrt.zarr.read_many, { g.temp, ipfsrt.zarr.open(dir .. "/ds").temp })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("different stores", 1, true))
    c:close()
  end)

  it("lists chunks with their CIDs over ipfs://, and reads a key told its CID by that CID, verified", function()
    local c = ipfsrt.client { gateways = { honest:url() } }
    local a = ipfsrt.zarr.open("ipfs://" .. root .. "/temp", { client = c })
    local keys = { a:chunk_key(1, 1), a:chunk_key(2, 2), a:chunk_key(0, 0) }
    assert.same({ "1.1", "2.2", "0.0" }, keys)
    local sizes, cids = a:stored_sizes(keys)
    assert.equal(#chunk_bytes(1, 1), sizes["1.1"])
    assert.equal(0, sizes["0.0"]) -- never written
    assert.equal(tostring(ipfsrt.cid.sum("raw", chunk_bytes(1, 1))), cids["1.1"])
    assert.is_nil(cids["0.0"])
    -- told the CID of (2, 2) for (1, 1): the read goes by the CID told (and checks the bytes against it)
    a:know({ "1.1" }, { cids["2.2"] })
    local x = a:read { { 2, 4 }, { 3, 6 } }
    assert.equal(2 * 3, x.size)
    assert.equal(406, x:get(0, 0)) -- (4, 6): chunk (2, 2)'s first element, where (1, 1)'s would be 203
    -- a CID the gateway has no block for: an error naming it, never a fill value
    local other = ipfsrt.cid.sum("raw", "not in the CAR")
    local b = ipfsrt.zarr.open("ipfs://" .. root .. "/temp", { client = c })
    b:know({ "1.2" }, { other })
    local ok, err = pcall(b.read, b, { { 2, 4 }, { 6, 7 } })
    assert.is_false(ok)
    assert.truthy(tostring(err):find(tostring(other), 1, true), tostring(err))
    -- stores that are not content-addressed ignore what they are told
    local f = ipfsrt.zarr.open(dir .. "/ds/temp")
    f:know({ "1.1" }, { cids["2.2"] })
    check(f, true)
    assert.is_nil(select(2, f:stored_sizes { "1.1" })["1.1"])
    c:close()
  end)

  it("fails, never fills, when a gateway withholds a chunk the directory links", function()
    local chunk = ipfsrt.car.open(car)
    local info = ipfsrt.unixfs.resolve(chunk, root .. "/temp/1.1")
    local partial = dir .. "/partial.car"
    do
      local w <close> = ipfsrt.car.writer(partial, chunk:roots())
      for cid, bytes in chunk:blocks() do
        if cid ~= info.cid then w:put(cid, bytes) end
      end
    end
    chunk:close()
    local withholding = gateway(nil, { partial })
    local c = ipfsrt.client { gateways = { withholding:url() }, retries = 1 }
    local a = ipfsrt.zarr.open("ipfs://" .. root .. "/temp", { client = c })
    local ok, err = pcall(a.read, a)
    assert.is_false(ok)
    assert.equal("unavailable", err.code)
    assert.truthy(err.message:find("1.1", 1, true), err.message)
    -- the rows that need no withheld chunk still read
    local x = a:read { { 0, 2 } }
    assert.equal(-1, x:get(0, 0))
    c:close()
  end)

  it("takes a Lua table as a store, and reports progress", function()
    local files = { [".zarray"] = ZARRAY }
    for i = 0, 2 do
      for j = 0, 2 do files[string.format("%d.%d", i, j)] = chunk_bytes(i, j) end
    end
    local store = { get = function(_, key) return files[key] end }
    local a = ipfsrt.zarr.open(store)
    local seen = {}
    local x = a:read({ nil, { 2, 5 } }, { progress = function(done, total) seen[#seen + 1] = { done, total } end })
    assert.same({ 5, 3 }, x.shape)
    assert.equal(402, x:get(4, 0))
    assert.same({ 6, 6 }, seen[#seen]) -- 3 row chunks x 2 column chunks
    local ok, err = pcall(a.read, a, nil, { progress = function() error("enough") end })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("enough", 1, true))
    local broken = ipfsrt.zarr.open({ get = function(_, key)
      if key == "1.1" then error("disk on fire") end
      return files[key]
    end })
    ok, err = pcall(broken.read, broken)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("disk on fire", 1, true))
  end)

  it("names the array and the key when a chunk is corrupt", function()
    local files = { [".zarray"] = ZARRAY:gsub('"compressor": null', '"compressor": {"id": "zstd", "level": 1}') }
    files["0.0"] = "not zstd at all"
    local a = ipfsrt.zarr.open({ get = function(_, key) return files[key] end })
    local ok, err = pcall(a.read, a)
    assert.is_false(ok)
    assert.equal("bad_chunk_data", err.code)
    assert.truthy(err.message:find("chunk 0.0", 1, true), err.message)
  end)

  -- One shard of int16 [0, 4096) in 64 inner chunks of 64, index at the end
  -- with its CRC-32C; entry `hole` empty.
  local function shard(hole, index_fn)
    local body, index = {}, {}
    local at = 0
    for i = 0, 63 do
      if i == hole then
        index[#index + 1] = string.pack("<I8I8", -1, -1)
      else
        local parts = {}
        for k = 0, 63 do parts[k + 1] = string.pack("<i2", i * 64 + k) end
        body[#body + 1] = table.concat(parts)
        index[#index + 1] = string.pack("<I8I8", at, 128)
        at = at + 128
      end
    end
    local idx = table.concat(index)
    if index_fn then idx = index_fn(idx) end
    return table.concat(body) .. idx .. string.pack("<I4", ipfsrt.codec.crc32c(idx))
  end
  local SHARDED = '{"zarr_format": 3, "node_type": "array", "shape": [4096], "data_type": "int16", ' ..
    '"chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4096]}}, ' ..
    '"chunk_key_encoding": {"name": "default"}, "fill_value": -9, "codecs": [{"name": "sharding_indexed", ' ..
    '"configuration": {"chunk_shape": [64], "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}], ' ..
    '"index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]}}]}'

  it("reads an element of a shard with the index and one inner chunk, over plain http", function()
    os.execute("mkdir -p " .. dir .. "/sh/s/c")
    put(dir .. "/sh/s/zarr.json", SHARDED)
    put(dir .. "/sh/s/c/0", shard(5))
    put(dir .. "/sh/readme", "a sharded array in s") -- (a lone folder would become the root itself)
    local scar = dir .. "/sh.car"
    local sroot = tostring(ipfsrt.pack(dir .. "/sh", { output = scar, hidden = true }))
    local gw = gateway(nil, { scar })
    local a = ipfsrt.zarr.open(gw:url() .. "/ipfs/" .. sroot .. "/s")
    local before = gw:stats().bytes
    local x = a:read { { 1000, 1003 } }
    assert.same({ 1000, 1001, 1002 }, x:tolist())
    assert.is_true(gw:stats().bytes - before < 2000) -- the shard holds 8 KiB
    local y = a:read { { 318, 322 } }                 -- through the empty inner chunk 5 (320..383)
    assert.same({ 318, 319, -9, -9 }, y:tolist())
    local whole = a:read()
    assert.equal(4095, whole:get(4095))
    assert.equal(-9, whole:get(330))
  end)

  it("refuses a shard whose index fails its checksum or points past the shard", function()
    local files = { ["zarr.json"] = SHARDED }
    local a = ipfsrt.zarr.open({ get = function(_, key) return files[key] end })
    files["c/0"] = shard(nil, function(idx) return idx end):sub(1, -2) .. "\0" -- the CRC's last byte
    local ok, err = pcall(a.read, a, { { 0, 1 } })
    assert.is_false(ok)
    assert.equal("bad_chunk_data", err.code)
    assert.truthy(err.message:find("c/0", 1, true), err.message)
    assert.truthy(err.message:find("CRC", 1, true), err.message)
    files["c/0"] = shard(nil, function(idx) return string.pack("<I8I8", 1 << 40, 128) .. idx:sub(17) end)
    ok, err = pcall(a.read, a, { { 0, 1 } })
    assert.is_false(ok)
    assert.truthy(err.message:find("c/0", 1, true), err.message)
    ok, err = pcall(a.read, a)
    assert.is_false(ok)
    assert.equal("bad_chunk_data", err.code)
  end)

  it("has a CLI: zarr info shows the tree, zarr get the values, over ipfs:// too", function()
    local code, out, err = exe.run { "zarr", "info", dir .. "/ds" }
    assert.equal(0, code, err)
    local described = os.tmpname()
    os.remove(described)
    local g = ipfsrt.zarr.group(described, { attrs = { title = "attributes shown" } })
    local a = ipfsrt.zarr.create(described, { path = "t", shape = { 2 }, chunks = { 2 }, dtype = "int16", zarr_format = 2 })
    a:set_attrs { units = "K", scale_factor = 0.01 }
    local code2, listed = exe.run { "zarr", "info", described }
    assert.equal(0, code2)
    for _, line in ipairs { "\n  title: attributes shown\n", "\n    scale_factor: 0.01\n", "\n    units: K\n" } do
      assert.truthy(listed:find(line, 1, true), listed)
    end
    assert(g)
    os.execute("rm -rf " .. described)
    assert.truthy(out:find("temp  int16 [5, 7]  chunks [2, 3]", 1, true), out)
    assert.truthy(out:find("fill -1", 1, true), out)
    code, out, err = exe.run { "zarr", "info", "ipfs://" .. root, "--gateway", honest:url(), "--json" }
    assert.equal(0, code, err)
    local tree = ipfsrt.json.decode(out)
    assert.equal("group", tree.kind)
    assert.same({ 5, 7 }, tree.members[1].shape)
    assert.equal(70, tree.members[1].decoded_bytes)
    code, out, err = exe.run { "zarr", "get", "ipfs://" .. root, "temp", "4,::3", "--gateway", honest:url(), "--json" }
    assert.equal(0, code, err)
    assert.same({ 400, 403, 406 }, ipfsrt.json.decode(out))
    code, out, err = exe.run { "zarr", "get", root, "temp", "4,::3", "--gateway", honest:url(), "--json" } -- a bare CID
    assert.equal(0, code, err)
    assert.same({ 400, 403, 406 }, ipfsrt.json.decode(out))
    for sel, want in pairs { ["1:5:9223372036854775807,4"] = { 104 }, ["::-9223372036854775808,4"] = { 404 },
      ["1:0:9223372036854775807,4"] = {} } do -- steps past the dimension, as numpy takes them
      code, out, err = exe.run { "zarr", "get", dir .. "/ds", "temp", sel, "--json" }
      assert.equal(0, code, err)
      assert.same(want, ipfsrt.json.decode(out), sel)
    end
    code, out, err = exe.run { "zarr", "get", car, "temp", "3:1:-1,-3:", "--csv" }
    assert.equal(0, code, err) -- positions are the array's own, as numpy's slices count them
    assert.equal("dim_0,dim_1,temp\n3,4,304\n3,5,305\n3,6,306\n2,4,204\n2,5,205\n2,6,206\n", out)
    code, out, err = exe.run { "zarr", "get", car, "temp", "4,::3", "--csv" }
    assert.equal(0, code, err)
    assert.equal("dim_1,temp\n0,400\n3,403\n6,406\n", out)
    code, out = exe.run { "zarr", "get", dir .. "/ds", "temp", "9" }
    assert.equal(1, code)
    assert.truthy(out == "" and err ~= nil)
    code, _, err = exe.run { "zarr", "get", dir .. "/ds", "temp", "1:2:0" }
    assert.equal(2, code)
    assert.truthy(err:find("step of 0", 1, true), err)
  end)

  it("copies a hierarchy from ipfs:// into a folder, as it is or re-encoded (zarr cp)", function()
    local plain, sharded = dir .. "/copy-plain", dir .. "/copy-sharded"
    local code, _, err = exe.run { "zarr", "cp", "ipfs://" .. root, plain, "--gateway", honest:url(), "-q" }
    assert.equal(0, code, err)
    assert.equal(ipfsrt.zarr.open(dir .. "/ds").temp:read():tobytes(), ipfsrt.zarr.open(plain).temp:read():tobytes())
    local f = io.open(plain .. "/temp/1.1", "rb")
    assert.equal(chunk_bytes(1, 1), f:read("a")) -- the stored chunk as it was
    f:close()
    assert.is_nil(io.open(plain .. "/temp/0.0")) -- never written: still not stored
    assert.truthy(io.open(plain .. "/.zmetadata"), "consolidated")
    code, _, err = exe.run { "zarr", "cp", dir .. "/ds", sharded, "--zarr-format", "3", "--compressor", "zstd:5",
      "--shards", "4,6" }
    assert.equal(0, code, err)
    local a = ipfsrt.zarr.open(sharded).temp
    assert.same({ 4, 6 }, a.chunks)
    assert.same({ 2, 3 }, a.inner_chunks)
    check(a, true)
  end)

  it("keeps every digit: int64 past 2^53, uint64 and int64 at their ends, float64 in --csv/--json, copies", function()
    local src, copy, recoded = dir .. "/exact", dir .. "/exact-copy", dir .. "/exact-recoded"
    local function zarray(dtype, fill)
      return string.format('{"zarr_format": 2, "shape": [2], "chunks": [2], "dtype": "%s", "compressor": null, ' ..
        '"fill_value": %s, "order": "C", "filters": null}', dtype, fill)
    end
    assert(os.execute("mkdir -p " .. src .. "/i " .. src .. "/m " .. src .. "/u " .. src .. "/f"))
    put(src .. "/.zgroup", '{"zarr_format": 2}')
    put(src .. "/i/.zarray", zarray("<i8", "9007199254740993"))
    put(src .. "/i/.zattrs", '{"big": 12345678901234567}')
    put(src .. "/m/.zarray", zarray("<i8", "9223372036854775807"))
    put(src .. "/u/.zarray", zarray("<u8", "18446744073709551615"))
    put(src .. "/f/.zarray", zarray("<f8", "null"))
    put(src .. "/f/0", string.pack("<d<d", 0.9504636963259353, 1 / 3))
    local function get(path, how)
      local code, out, err = exe.run { "zarr", "get", src, path, how }
      assert.equal(0, code, err)
      return out
    end
    assert.equal("[9007199254740993,9007199254740993]\n", get("i", "--json"))
    assert.equal("dim_0,m\n0,9223372036854775807\n1,9223372036854775807\n", get("m", "--csv"))
    assert.equal("dim_0,u\n0,18446744073709551615\n1,18446744073709551615\n", get("u", "--csv"))
    assert.equal("[18446744073709551615,18446744073709551615]\n", get("u", "--json"))
    assert.equal("dim_0,f\n0,0.9504636963259353\n1,0.3333333333333333\n", get("f", "--csv"))
    assert.equal("[0.9504636963259353,0.3333333333333333]\n", get("f", "--json"))
    for _, to in ipairs { { copy }, { recoded, "--compressor", "zstd" } } do
      local code, _, err = exe.run { "zarr", "cp", src, to[1], to[2], to[3], "-q" }
      assert.equal(0, code, err)
      for _, f in ipairs { "/i/.zarray", "/m/.zarray", "/u/.zarray", "/i/.zattrs" } do
        local text = assert(io.open(to[1] .. f)):read("a")
        assert.truthy(text:find("9007199254740993", 1, true) or text:find("9223372036854775807", 1, true) or
          text:find("18446744073709551615", 1, true) or text:find("12345678901234567", 1, true), f .. ": " .. text)
      end
    end
  end)

  it("keeps v2 arrays' dimension names (xarray's _ARRAY_DIMENSIONS) in copies, as they are or re-encoded", function()
    local src = dir .. "/named"
    local a = ipfsrt.zarr.create(src, { path = "t", shape = { 2, 3 }, chunks = { 2, 3 }, dtype = "int16", zarr_format = 2,
      attrs = { units = "K", _ARRAY_DIMENSIONS = { "y", "x" } } })
    a:write(nil, ipfsrt.ndarray.arange(0, 6, 1, "int16"):reshape { 2, 3 })
    for _, to in ipairs { { dir .. "/named-copy" }, { dir .. "/named-recoded", "--compressor", "zstd" },
      { dir .. "/named-v3", "--zarr-format", "3" } } do
      local code, _, err = exe.run { "zarr", "cp", src, to[1], to[2], to[3], "-q" }
      assert.equal(0, code, err)
      local copy = ipfsrt.zarr.open(to[1] .. "/t")
      assert.same({ "y", "x" }, copy.dimension_names, to[1])
      assert.equal("K", copy.attrs.units)
      assert.same({ "y", "x" }, ipfsrt.dataset.open(to[1]).t.dims, to[1])
    end
  end)

  it("never writes through a symbolic link out of a folder store", function()
    local to, outside = dir .. "/linked-copy", dir .. "/outside"
    assert(os.execute("mkdir -p " .. to .. " " .. outside .. " && ln -s " .. outside .. " " .. to .. "/temp"))
    local ok, err = pcall(ipfsrt.zarr.copy, dir .. "/ds", to)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("symbolic link", 1, true), tostring(err))
    local p = io.popen("ls -A " .. outside)
    assert.equal("", p:read("a")) -- nothing landed outside
    p:close()
  end)

  it("takes .car for a CAR file only in a key or path, never in a bucket, a host or a folder's name", function()
    local s3 = { region = "us-east-1", anonymous = true, endpoint = "http://127.0.0.1:9" }
    assert.equal("s3", ipfsrt.zarr.store("s3://team.car/x.zarr", { s3 = s3 }):info().kind)
    assert.equal("http", ipfsrt.zarr.store("http://h.car:9/x.zarr"):info().kind)
    assert.equal("http", ipfsrt.zarr.store("http://127.0.0.1:9/ipfs/bafkqaaa/x.car/y"):info().kind)
    assert(os.execute("mkdir -p " .. dir .. "/folder.car/sub"))
    assert.equal("folder", ipfsrt.zarr.store(dir .. "/folder.car/sub"):info().kind)
    put(dir .. "/file.car", "")
    local ok, err = pcall(ipfsrt.zarr.store, dir .. "/file.car/sub")
    assert.is_false(ok) -- taken as a CAR file (an empty one)
    assert.truthy(tostring(err):find("file.car", 1, true), tostring(err))
  end)

  it("refuses a chunk body longer than a chunk can be, or than the range asked, as it arrives", function()
    local urlfile = os.tmpname()
    os.remove(urlfile)
    assert(os.execute("/usr/bin/python3 tests/lua-exe/endless_server.py " .. urlfile ..
      " >/dev/null 2>&1 & echo $! > " .. urlfile .. ".pid"))
    local url
    for _ = 1, 100 do
      local f = io.open(urlfile)
      url = f and f:read("l")
      if f then f:close() end
      if url then break end
      os.execute("sleep 0.1")
    end
    assert.truthy(url, "the lying server did not start")
    -- in 1 GiB of address space: an endless body held would fail as out of memory, not as too long
    -- (sanitizers reserve more than that for themselves: there the messages alone are checked)
    local limit = (os.getenv("IPFSRT_SAN") or "") == "" and "ulimit -v 1048576; " or ""
    local function get(array)
      local p = io.popen(limit .. exe.EXE .. " zarr get --no-verify " .. url .. " " .. array ..
        " 2>&1; echo \"exit $?\"")
      local out = p:read("a")
      p:close()
      return out
    end
    local out = get("a") -- 200, endless and chunked, for a 16-byte chunk
    assert.truthy(out:find("the most its chunks can be stored in", 1, true), out)
    assert.truthy(out:find("exit 1", 1, true), out)
    out = get("b") -- 206 with more bytes than the range asked
    assert.truthy(out:find("longer than the", 1, true), out)
    assert.truthy(out:find("exit 1", 1, true), out)
    os.execute("kill $(cat " .. urlfile .. ".pid) 2>/dev/null; rm -f " .. urlfile .. " " .. urlfile .. ".pid")
  end)

  it("opens a consolidated hierarchy over ipfs:// with one round of reads, its members with none", function()
    local many = dir .. "/many"
    for i = 1, 12 do
      ipfsrt.zarr.create(many, { path = "g/a" .. i, shape = { 4 }, chunks = { 2 }, dtype = "int16", zarr_format = 2 })
    end
    ipfsrt.zarr.consolidate(many)
    put(many .. "/readme", "twelve arrays")
    local mcar = dir .. "/many.car"
    local mroot = tostring(ipfsrt.pack(many, { output = mcar, hidden = true }))
    local gw = gateway(nil, { mcar })
    local c = ipfsrt.client { gateways = { gw:url() } }
    local function requests() return c:stats()[1].requests end
    local top = ipfsrt.zarr.open("ipfs://" .. mroot, { client = c })
    local after_open = requests()
    -- one round: each metadata file with the blocks on its path (those that are not there: proven by the root)
    assert.is_true(after_open <= 5, after_open .. " requests")
    local g = top.g
    assert.equal(12, #g:arrays())
    assert.same({ 4 }, g.a7.shape)
    assert.equal(after_open, requests()) -- all from the consolidated metadata
    c:close()
  end)

  it("CF-decodes on the decoding threads what reading and then unscaling gives", function()
    local function same(x, y, what)
      assert.same(x.shape, y.shape, what)
      assert.equal(x.dtype, y.dtype, what)
      local nx, ny = x:isnan(), y:isnan()
      assert.is_true(nx:eq(ny):all(), what .. ": NaNs in other places")
      assert.is_true((x:eq(y) | nx):all(), what .. ": values differ")
    end
    local values = ipfsrt.ndarray.arange(-40, 60):astype("int16"):reshape { 10, 10 }
    values:set(3, 4, -999)
    for _, o in ipairs {
      { zarr_format = 2, fill_value = -999, compressor = "zstd" },
      { zarr_format = 2, compressor = "zstd" }, -- no fill value: chunks never written read as zeros
      { zarr_format = 3, fill_value = -999, shards = { 8, 6 } },
    } do
      local out = dir .. "/cf" .. tostring(o.zarr_format) .. tostring(o.fill_value) .. tostring(o.shards ~= nil)
      o.shape, o.chunks, o.dtype = { 10, 10 }, { 4, 3 }, "int16"
      local a = ipfsrt.zarr.create(out, o)
      a:write({ { 0, 6 }, { 0, 10 } }, values:slice { { 0, 6 } }) -- rows 6.. never written
      for _, sel in ipairs { {}, { { 1, 9 }, { 2, 10, 3 } }, { 3, { nil, nil, -1 } }, { 8, 8 } } do
        for _, u in ipairs {
          { dtype = "float32", fills = { -999 }, scale = 0.01 },
          { dtype = "float64", fills = { -999, 7 }, scale = 0.5, offset = 273.15 },
          { dtype = "float32", offset = 1 },
        } do
          local want = a:read(sel):unscale(u.dtype, u.fills, u.scale, u.offset)
          same(a:read(sel, { unscale = u }), want, out .. " " .. u.dtype)
        end
      end
    end
    assert.has_error(function() ipfsrt.zarr.open(dir .. "/cf2-999false"):read(nil, { unscale = { dtype = "int8" } }) end)
  end)

  it("writes selections: partial chunks read and rewritten, chunks left all fill removed", function()
    local out = dir .. "/written"
    local a = ipfsrt.zarr.create(out, { shape = { 5, 7 }, chunks = { 2, 3 }, dtype = "int16", fill_value = -1,
      zarr_format = 2, compressor = "zstd" })
    a:write(nil, ipfsrt.ndarray.arange(35):reshape { 5, 7 })
    a:write({ { 0, 2 }, { 0, 3 } }, -1)         -- chunk 0.0 all fill again: removed
    a:write({ 4, { nil, nil, 2 } }, 9)          -- a strided patch over partial chunks
    assert.is_nil(io.open(out .. "/0.0"))
    local x = ipfsrt.zarr.open(out):read()
    assert.equal(-1, x:get(1, 2))
    assert.same({ 9, 29, 9, 31, 9, 33, 9 }, x:slice({ 4 }):tolist())
    assert.equal(10, x:get(1, 3))
    local ro = ipfsrt.zarr.open(dir .. "/ds.car", { path = "temp" })
    local ok, e = pcall(ro.write, ro, nil, 0)
    assert.is_false(ok)
    assert.equal("unsupported", e.code)
  end)

  it("refuses keys that leave the store, and names cut short by a NUL", function()
    local ok, err = pcall(ipfsrt.zarr.open, dir .. "/ds", { path = "../ds" })
    assert.is_false(ok)
    assert.equal("bad_argument", err.code)
    local store = ipfsrt.zarr.store(dir .. "/ds")
    ok, err = pcall(store.get, store, "temp/.zarray\0junk") -- never read as temp/.zarray
    assert.is_false(ok)
    assert.truthy(tostring(err):find("NUL", 1, true), tostring(err))
    ok, err = pcall(ipfsrt.zarr.open, dir .. "/ds", { path = "temp\0x" })
    assert.is_false(ok)
  end)
end)
