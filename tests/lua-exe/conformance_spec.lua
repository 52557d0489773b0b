-- The IPFS gateway conformance suite's cases (github.com/ipfs/gateway-conformance
-- at 22c76440, tests/*.go), translated one by one: each `it` is named
-- "TestGroup: the suite's case name". Fixtures from the suite are in
-- tests/fixtures/conformance/ (README.md there). ipfsrt.serve on 127.0.0.1,
-- probed with curl.
local ipfsrt = require "ipfsrt"
local http = require("exe").http

local FIX = "tests/fixtures/conformance/"

local function read_file(path)
  local f = assert(io.open(path, "rb"))
  local data = f:read("a")
  f:close()
  return data
end

describe("gateway conformance", function()
  local gw = ipfsrt.serve { cars = { FIX .. "gateway-raw-block.car", FIX .. "gateway-cache.car",
    FIX .. "dir-listing.car", FIX .. "symlink.car", FIX .. "dir-with-files.car",
    FIX .. "dir-with-percent-encoded-filename.car", FIX .. "file-3k-and-3-blocks-missing-block.car",
    FIX .. "gateway-json-cbor.car" } }
  local base = gw:url()
  teardown(function() gw:stop() end)

  -- gateway-raw-block.car: a directory "dir" holding ascii.txt
  local RAW_ROOT = "bafybeie72edlprgtlwwctzljf6gkn2wnlrddqjbkxo3jomh4n7omwblxly"
  local DIR = "bafybeifaqksygmsbnqe76kwvxoqxtkzcwssq5jkhuo65ldtqiunr3bxlra"
  local ASCII = "bafkreihhpc5y2pqvl5rbe5uuyhqjouybfs3rvlmisccgzue2kkt5zq6upq"
  -- gateway-cache.car: ROOT1/root2/root3/root4/index.html
  local ROOT1 = "bafybeib3ffl2teiqdncv3mkz4r23b5ctrwkzrrhctdbne6iboayxuxk5ui"
  local ROOT4 = "bafybeifq2rzpqnqrsdupncmkmhs3ckxxjhuvdcbvydkgvch3ms24k5lo7q"
  local INDEX = "bafkreicysg23kiwv34eg2d7qweipxwosdo2py4ldv42nbauguluen5v6am"

  local function has_all(value, ...)
    for _, want in ipairs { ... } do
      assert.truthy(value and value:find(want, 1, true), string.format("%q lacks %s", tostring(value), want))
    end
  end

  local function block(cid)
    local status, _, body = http(base .. "/ipfs/" .. cid .. "?format=raw")
    assert.equal(200, status)
    assert.equal(cid, tostring(ipfsrt.cid.sum(cid:sub(1, 5) == "bafkr" and "raw" or "dag-pb", body)))
    return body
  end

  local function cors(h)
    assert.equal("*", h["access-control-allow-origin"])
    has_all(h["access-control-allow-methods"], "GET", "HEAD", "OPTIONS")
    has_all(h["access-control-allow-headers"], "Content-Type", "Range", "User-Agent", "X-Requested-With")
    has_all(h["access-control-expose-headers"], "Content-Range", "Content-Length", "X-Ipfs-Path", "X-Ipfs-Roots",
      "X-Chunked-Output", "X-Stream-Output")
  end

  it("TestCors: GET Responses from Gateway should include CORS headers allowing JS from other origins to read the data cross-origin.", function()
    local status, h = http(base .. "/ipfs/bafkqabtimvwgy3yk/")
    assert.equal(200, status)
    cors(h)
  end)

  it("TestCors: OPTIONS to Gateway succeeds", function()
    local status, h = http(base .. "/ipfs/bafkqabtimvwgy3yk/", { method = "OPTIONS" })
    assert.equal(200, status)
    cors(h)
  end)

  -- TestTrustlessRaw asks for the blocks by CID, TestGatewayBlock by path: the same answers
  for _, group in ipairs { { "TestTrustlessRaw", "/ipfs/" .. DIR, "/ipfs/" .. ASCII },
    { "TestGatewayBlock", "/ipfs/" .. RAW_ROOT .. "/dir", "/ipfs/" .. RAW_ROOT .. "/dir/ascii.txt" } } do
    local name, dir_path, file_path = group[1], group[2], group[3]

    it(name .. ": GET with format=raw param returns a raw block", function()
      local status, _, body = http(base .. dir_path .. "?format=raw")
      assert.equal(200, status)
      assert.equal(block(DIR), body)
    end)

    it(name .. ": GET with application/vnd.ipld.raw header returns a raw block", function()
      local status, _, body = http(base .. dir_path, { headers = { Accept = "application/vnd.ipld.raw" } })
      assert.equal(200, status)
      assert.equal(block(DIR), body)
    end)

    it(name .. ": GET with application/vnd.ipld.raw header returns expected response headers", function()
      local status, h, body = http(base .. file_path, { headers = { Accept = "application/vnd.ipld.raw" } })
      assert.equal(200, status)
      assert.equal("application/vnd.ipld.raw", h["content-type"])
      assert.equal(tostring(#block(ASCII)), h["content-length"])
      has_all(h["content-disposition"], "attachment;")
      assert.equal("nosniff", h["x-content-type-options"])
      assert.equal(block(ASCII), body)
    end)
  end

  it("TestTrustlessRaw: GET with application/vnd.ipld.raw header and filename param returns expected Content-Disposition header with custom filename", function()
    local status, h = http(base .. "/ipfs/" .. ASCII .. "?filename=foobar.bin",
      { headers = { Accept = "application/vnd.ipld.raw" } })
    assert.equal(200, status)
    has_all(h["content-disposition"], "attachment;", 'filename="foobar.bin')
  end)

  it("TestTrustlessRaw: GET with application/vnd.ipld.raw header returns expected caching headers", function()
    local status, h = http(base .. "/ipfs/" .. ASCII, { headers = { Accept = "application/vnd.ipld.raw" } })
    assert.equal(200, status)
    assert.truthy(h["etag"])
    assert.equal("/ipfs/" .. ASCII, h["x-ipfs-path"])
    has_all(h["x-ipfs-roots"], ASCII)
    local cc = h["cache-control"]:gsub(" ", "")
    assert.truthy(("," .. cc .. ","):find(",public,", 1, true) and ("," .. cc .. ","):find(",immutable,", 1, true))
    assert.is_true(tonumber(cc:match("max%-age=(%d+)")) >= 29030400)
  end)

  it("TestGatewayBlock: GET with application/vnd.ipld.raw with single range request includes correct bytes", function()
    local status, h, body = http(base .. "/ipfs/" .. RAW_ROOT .. "/dir",
      { headers = { Accept = "application/vnd.ipld.raw", Range = "bytes=6-16" } })
    assert.equal(206, status)
    assert.equal("application/vnd.ipld.raw", h["content-type"])
    assert.equal("bytes 6-16/57", h["content-range"])
    assert.equal(block(DIR):sub(7, 17), body)
    assert.equal(416, (http(base .. "/ipfs/" .. DIR .. "?format=raw", { headers = { Range = "bytes=57-" } })))
  end)

  it("TestGatewayCache: GET for /ipfs/ unixfs dir as raw block succeeds", function()
    local status, h, body = http(base .. "/ipfs/" .. ROOT1 .. "/root2/root3/root4/?format=raw")
    assert.equal(200, status)
    assert.equal("public, max-age=29030400, immutable", h["cache-control"])
    assert.equal(block(ROOT4), body)
    assert.equal(string.char(0x12, 0x34, 0x0a, 0x24, 0x01, 0x55, 0x12, 0x20), body:sub(1, 8))
  end)

  local ROOT2 = "bafybeih2w7hjocxjg6g2ku25hvmd53zj7og4txpby3vsusfefw5rrg5sii"
  local ROOT3 = "bafybeiawdvhmjcz65x5egzx4iukxc72hg4woks6v6fvgyupiyt3oczk5ja"

  it("TestGatewayCache: GET for /ipfs/ unixfs dir with index.html succeeds", function()
    local status, h, body = http(base .. "/ipfs/" .. ROOT1 .. "/root2/root3/root4/")
    assert.equal(200, status)
    assert.equal("hello\n", body) -- its index.html
    assert.equal("text/html; charset=utf-8", h["content-type"])
    assert.equal("public, max-age=29030400, immutable", h["cache-control"])
    assert.equal("/ipfs/" .. ROOT1 .. "/root2/root3/root4/", h["x-ipfs-path"])
    assert.equal(table.concat({ ROOT1, ROOT2, ROOT3, ROOT4 }, ","), h["x-ipfs-roots"])
    assert.equal('"' .. ROOT4 .. '"', h["etag"])
  end)

  it("TestGatewayCache: GET for /ipfs/ unixfs file succeeds", function()
    local status, h = http(base .. "/ipfs/" .. ROOT1 .. "/root2/root3/root4/index.html")
    assert.equal(200, status)
    assert.equal("public, max-age=29030400, immutable", h["cache-control"])
    assert.equal("/ipfs/" .. ROOT1 .. "/root2/root3/root4/index.html", h["x-ipfs-path"])
    assert.equal(table.concat({ ROOT1, ROOT2, ROOT3, ROOT4, INDEX }, ","), h["x-ipfs-roots"])
    assert.equal('"' .. INDEX .. '"', h["etag"])
  end)

  it("TestGatewayCache: GET for /ipfs/ unixfs dir listing succeeds", function()
    local status, h = http(base .. "/ipfs/" .. ROOT1 .. "/root2/root3/")
    assert.equal(200, status)
    assert.equal("/ipfs/" .. ROOT1 .. "/root2/root3/", h["x-ipfs-path"])
    assert.equal(table.concat({ ROOT1, ROOT2, ROOT3 }, ","), h["x-ipfs-roots"])
    assert.truthy(h["etag"]:match("DirIndex%-.*_CID%-" .. ROOT3))
    assert.equal("public, max-age=604800, stale-while-revalidate=2678400", h["cache-control"])
  end)

  -- dir-listing.car: ą/ę/file-źł.txt
  local LIST = "bafybeig6ka5mlwkl4subqhaiatalkcleo4jgnr3hqwvpmsqfca27cijp3i"
  local ZL = "bafkreialihlqnf5uwo4byh4n3cmwlntwqzxxs2fg5vanqdi3d7tb2l5xkm"

  it("TestUnixFSDirectoryListing: path gw: backlink on root CID should be hidden (TODO: cleanup Kubo-specifics)", function()
    local status, _, body = http(base .. "/ipfs/" .. LIST .. "/")
    assert.equal(200, status)
    assert.truthy(body:find("Index of", 1, true))
    assert.falsy(body:find('<a href="/ipfs/' .. LIST .. '/">..</a>', 1, true))
  end)

  it("TestUnixFSDirectoryListing: path gw: redirect dir listing to URL with trailing slash", function()
    local status, h = http(base .. "/ipfs/" .. LIST .. "/ą/ę")
    assert.equal(301, status)
    assert.equal("/ipfs/" .. LIST .. "/%C4%85/%C4%99/", h["location"])
  end)

  it("TestUnixFSDirectoryListing: path gw: dir listing HTML response (TODO: cleanup Kubo-specifics)", function()
    local status, h, body = http(base .. "/ipfs/" .. LIST .. "/ą/ę/")
    assert.equal(200, status)
    assert.truthy(h["etag"]:find('"DirIndex-', 1, true))
    for _, want in ipairs {
      "Index of",
      '/ipfs/<a href="/ipfs/' .. LIST .. '">' .. LIST .. '</a>/<a href="/ipfs/' .. LIST .. '/%C4%85">ą</a>/<a href="/ipfs/'
        .. LIST .. '/%C4%85/%C4%99">ę</a>',
      '<a href="/ipfs/' .. LIST .. '/%C4%85/%C4%99/..">..</a>',
      '<a href="/ipfs/' .. LIST .. '/%C4%85/%C4%99/file-%C5%BA%C5%82.txt">file-źł.txt</a>',
      '<a class="ipfs-hash" translate="no" href="/ipfs/' .. ZL .. '?filename=file-%25C5%25BA%25C5%2582.txt">',
    } do
      assert.truthy(body:find(want, 1, true), want)
    end
  end)

  it("TestUnixFSDirectoryListing: GET for /ipfs/cid/file UnixFS file that does not exist returns 404", function()
    assert.equal(404, (http(base .. "/ipfs/" .. LIST .. "/i-do-not-exist")))
  end)

  -- symlink.car: foo, and bar a symlink to it
  local LINKS = "QmWvY6FaqFMS89YAQ9NAPjVP4WZKA1qbHbicc9HeSKQTgt"

  it("TestGatewaySymlink: Test the directory listing", function()
    local _, _, body = http(base .. "/ipfs/" .. LINKS .. "/")
    assert.truthy(body:find(">foo<", 1, true) and body:find(">bar<", 1, true))
  end)

  it("TestGatewaySymlink: Test the directory raw query", function()
    local status, _, body = http(base .. "/ipfs/" .. LINKS .. "?format=raw")
    assert.equal(200, status)
    assert.equal(LINKS, tostring(ipfsrt.cid.sum("dag-pb", body):to_v0()))
  end)

  it("TestGatewaySymlink: Test the symlink", function()
    local status, _, body = http(base .. "/ipfs/" .. LINKS .. "/bar")
    assert.equal(200, status)
    assert.equal("foo", body)
  end)

  -- dir-with-files.car: ascii.txt (31 bytes) among others
  local FILES = "bafybeihchr7vmgjaasntayyatmp5sv6xza57iy2h4xj7g46bpjij6yhrmy"
  local function ascii()
    local status, _, body = http(base .. "/ipfs/" .. FILES .. "/ascii.txt")
    assert.equal(200, status)
    assert.equal(31, #body)
    return body
  end

  it("TestGatewayUnixFSFileRanges: GET for /ipfs/ file includes Accept-Ranges header", function()
    local status, h, body = http(base .. "/ipfs/" .. FILES .. "/ascii.txt")
    assert.equal(200, status)
    assert.equal("bytes", h["accept-ranges"])
    assert.equal(ascii(), body)
  end)

  for _, case in ipairs {
    { "GET for /ipfs/ file with single range request includes correct bytes", "bytes=6-16", "bytes 6-16/31", 7, 17 },
    { "GET for /ipfs/ file with suffix range request includes correct bytes from the end of file", "bytes=-3",
      "bytes 28-30/31", 29, 31 },
    { "GET for /ipfs/ file with multiple range request returns correct bytes", "bytes=6-16,0-4", "bytes 6-16/31", 7,
      17 },
  } do
    it("TestGatewayUnixFSFileRanges: " .. case[1], function()
      local status, h, body = http(base .. "/ipfs/" .. FILES .. "/ascii.txt", { headers = { Range = case[2] } })
      assert.equal(206, status)
      assert.equal(case[3], h["content-range"])
      assert.equal(ascii():sub(case[4], case[5]), body)
    end)
  end

  -- file-3k-and-3-blocks-missing-block.car: a 3 KiB file of three blocks, its middle one absent
  local PARTIAL = "QmYhmPjhFjYFyaoiuNzYv8WGavpSRDwdHWe5B4M5du5Rtk"
  for _, case in ipairs { { "AFTER", "bytes=997-1000", "bytes 997-1000/3072" },
    { "BEFORE", "bytes=2200-2201", "bytes 2200-2201/3072" } } do
    it("TestGatewayUnixFSFileRanges: GET Range of file succeeds even if the gateway is missing a block " .. case[1] ..
      " the requested range", function()
      local status, h = http(base .. "/ipfs/" .. PARTIAL, { headers = { Range = case[2] } })
      assert.equal(206, status)
      assert.equal(case[3], h["content-range"])
    end)
  end

  it("TestPathGatewayMiscellaneous: GET for /ipfs/ file whose filename contains percentage-encoded characters works", function()
    local root = "bafybeig675grnxcmshiuzdaz2xalm6ef4thxxds6o6ypakpghm5kghpc34"
    local status, _, body = http(base .. "/ipfs/" .. root .. "/Portugal%252C+España=Peninsula%20Ibérica.txt")
    assert.equal(200, status)
    local _, _, raw = http(base .. "/ipfs/" .. root .. "/" .. "Portugal%252C%2BEspa%C3%B1a%3DPeninsula%20Ib%C3%A9rica.txt")
    assert.equal(raw, body)
    assert.is_true(#body > 0)
  end)

  for _, method in ipairs { "HEAD", "GET" } do
    it("TestGatewayCache: " .. method .. " for /ipfs/ with only-if-cached succeeds when in local datastore", function()
      assert.equal(200, (http(base .. "/ipfs/" .. ROOT1 .. "/root2/root3/root4/?format=raw",
        { method = method, headers = { ["Cache-Control"] = "only-if-cached" } })))
    end)
    it("TestGatewayCache: " .. method .. " for /ipfs/ with only-if-cached fails when not in local datastore", function()
      assert.equal(412, (http(base .. "/ipfs/QmYzfKSE55XCjD1MW128RfciAf2DViABhEiXfgVFMabSjN",
        { method = method, headers = { ["Cache-Control"] = "only-if-cached" } })))
    end)
  end

  -- gateway-json-cbor.car: ą/ę/t.json, JSON bytes in a UnixFS file
  local TJSON = "bafkreibrppizs3g7axs2jdlnjua6vgpmltv7k72l7v7sa6mmht6mne3qqe"
  for _, case in ipairs { { "without headers", {} }, { "with headers", { Accept = "application/json" } } } do
    it("TestGatewayJsonCbor: GET UnixFS file with JSON bytes is returned with application/json Content-Type - " ..
      case[1], function()
      local status, h, body = http(base .. "/ipfs/" .. TJSON, { headers = case[2] })
      assert.equal(200, status)
      assert.equal("application/json", h["content-type"])
      assert.equal('{ "test": "i am a plain json file" }\n', body)
    end)
  end

  it("TestGatewayJsonCbor: GET raw block with JSON bytes prefers format over Accept header", function()
    local status, h, body = http(base .. "/ipfs/" .. TJSON .. "?format=json",
      { headers = { Accept = "application/vnd.ipld.raw" } })
    assert.equal(200, status)
    assert.equal("application/json", h["content-type"])
    assert.equal('{ "test": "i am a plain json file" }\n', body)
    -- bytes that are not JSON, and a directory, are not served as JSON
    assert.equal(406, (http(base .. "/ipfs/" .. FILES .. "/ascii.txt?format=json")))
    assert.equal(406, (http(base .. "/ipfs/" .. FILES .. "/?format=json")))
  end)

  local conditional = {
    { "GET for /ipfs/ file with matching Etag in If-None-Match returns 304 Not Modified",
      "/root2/root3/root4/index.html", '"' .. INDEX .. '"' },
    { "GET for /ipfs/ dir with index.html file with matching Etag in If-None-Match returns 304 Not Modified",
      "/root2/root3/root4/", '"' .. ROOT4 .. '"' },
    { "GET for /ipfs/ file with matching third Etag in If-None-Match returns 304 Not Modified",
      "/root2/root3/root4/index.html", '"fakeEtag1", "fakeEtag2", "' .. INDEX .. '"' },
    { "GET for /ipfs/ file with matching weak Etag in If-None-Match returns 304 Not Modified",
      "/root2/root3/root4/index.html", 'W/"' .. INDEX .. '"' },
    { "GET for /ipfs/ file with wildcard Etag in If-None-Match returns 304 Not Modified",
      "/root2/root3/root4/index.html", "*" },
  }
  for _, case in ipairs(conditional) do
    it("TestGatewayCache: " .. case[1], function()
      local status, h, body = http(base .. "/ipfs/" .. ROOT1 .. case[2], { headers = { ["If-None-Match"] = case[3] } })
      assert.equal(304, status)
      assert.equal("", body)
      assert.equal("*", h["access-control-allow-origin"])
    end)
  end

  -- the listing's Etag is fetched first, as the suite's "DirIndex etag is based on xxhash" step does
  for _, kind in ipairs { { "strong", '"%s"' }, { "weak", 'W/"%s"' } } do
    it("TestGatewayCache: GET for /ipfs/ dir listing with matching " .. kind[1] ..
      " Etag in If-None-Match returns 304 Not Modified", function()
      local status, h = http(base .. "/ipfs/" .. ROOT1 .. "/root2/root3/")
      assert.equal(200, status)
      local etag = assert(h["etag"]):gsub('^W/', ''):gsub('"', '')
      local sent = string.format(kind[2], etag)
      assert.equal(304, (http(base .. "/ipfs/" .. ROOT1 .. "/root2/root3/", { headers = { ["If-None-Match"] = sent } })))
    end)
  end
end)

-- The trustless gateway's CARs (TestTrustlessCar*): which blocks, in which
-- order, for each path, dag-scope, entity-bytes, order and dups. What each
-- case expects is worked out from the fixture's blocks by a walk of this
-- file's own (dag-pb links by name, HAMT shards found by their two-character
-- names, no hashing), as the suite's fixture helpers do, not by the gateway's
-- walker. Each case is asked as format=car and as Accept (the suite's
-- StandardCARTestTransforms).
describe("gateway conformance: trustless CARs", function()
  local names = { "subdir-with-two-single-block-files", "subdir-with-mixed-block-files",
    "single-layer-hamt-with-multi-block-files", "dir-with-duplicate-files", "file-3k-and-3-blocks-missing-block",
    "gateway-raw-block" }
  local cars, fx = {}, {}
  for _, n in ipairs(names) do cars[#cars + 1] = FIX .. n .. ".car" end
  local gw = ipfsrt.serve { cars = cars }
  local base = gw:url()
  teardown(function() gw:stop() end)

  -- The suite's fixture helpers, over one CAR's blocks.
  local function fixture(name)
    local car = ipfsrt.car.open(FIX .. name .. ".car")
    local f = { root = tostring(car:roots()[1]) }
    local function node(cid)
      cid = tostring(cid)
      if cid:sub(1, 5) ~= "bafyb" and cid:sub(1, 2) ~= "Qm" then return nil end -- raw leaves
      return ipfsrt.dagpb.decode(car:get(cid))
    end
    local function is_hamt(n) return n and n.data and n.data:byte(2) == 5 end
    -- the entry name in directory cid, and the HAMT shards passed on the way
    local function lookup(cid, name, shards)
      local n = node(cid)
      for _, l in ipairs(n.links) do
        if not is_hamt(n) and l.name == name then return tostring(l.cid) end
        if is_hamt(n) and #l.name > 2 and l.name:sub(3) == name then return tostring(l.cid) end
      end
      for _, l in ipairs(is_hamt(n) and n.links or {}) do
        if #l.name == 2 then
          shards[#shards + 1] = tostring(l.cid)
          local found = lookup(l.cid, name, shards)
          if found then return found end
          shards[#shards] = nil
        end
      end
    end
    function f.cid(...)
      local cid = f.root
      for _, name in ipairs { ... } do cid = assert(lookup(cid, name, {}), name) end
      return cid
    end
    function f.hamt_traversal(name)
      local shards = {}
      assert(lookup(f.root, name, shards))
      return shards
    end
    -- every block under cid, depth first, each once
    function f.descendants(cid, out, seen)
      out, seen = out or {}, seen or {}
      local n = node(cid)
      for _, l in ipairs(n and n.links or {}) do
        local c = tostring(l.cid)
        if not seen[c] then
          seen[c] = true
          out[#out + 1] = c
          f.descendants(c, out, seen)
        end
      end
      return out
    end
    -- the HAMT's shards below its root
    function f.hamt_shards(cid, out)
      out = out or {}
      for _, l in ipairs(node(cid or f.root).links) do
        if #l.name == 2 then
          out[#out + 1] = tostring(l.cid)
          f.hamt_shards(l.cid, out)
        end
      end
      return out
    end
    return f
  end
  local two = fixture("subdir-with-two-single-block-files")
  local mixed = fixture("subdir-with-mixed-block-files")
  local hamt = fixture("single-layer-hamt-with-multi-block-files")
  local dups = fixture("dir-with-duplicate-files")
  local missing = fixture("file-3k-and-3-blocks-missing-block")

  local function flat(...)
    local out = {}
    for _, v in ipairs { ... } do
      if type(v) == "table" then for _, x in ipairs(v) do out[#out + 1] = x end else out[#out + 1] = v end
    end
    return out
  end
  local function slice(t, from, to) return { table.unpack(t, from + 1, to or #t) } end -- Go's t[from:to]

  local function car_cids(body)
    local cids = {}
    for _, b in ipairs(ipfsrt.car.reader():feed(body)) do cids[#cids + 1] = tostring(b.cid) end
    return cids
  end

  -- path and query (without format) asked both ways; the blocks, in order
  local function both_ways(path, query, check)
    for _, way in ipairs { "format", "accept" } do
      local q = query ~= "" and "&" .. query or ""
      local url = way == "format" and base .. path .. "?format=car" .. q or base .. path .. (q ~= "" and "?" .. q:sub(2) or "")
      local status, h, body = http(url, { headers = way == "accept" and { Accept = "application/vnd.ipld.car" } or nil })
      assert.equal(200, status, way)
      assert.truthy(h["content-type"]:find("application/vnd.ipld.car", 1, true))
      check(car_cids(body), way)
    end
  end
  local function exactly(path, query, want)
    return function()
      both_ways(path, query, function(got, way) assert.same(want, got, way) end)
    end
  end

  local ROOT = "/ipfs/" .. two.root
  it("TestTrustlessCarPathing: GET default CAR response with pathing through UnixFS Directory",
    exactly(ROOT .. "/subdir/ascii.txt", "", { two.root, two.cid("subdir"), two.cid("subdir", "ascii.txt") }))
  it("TestTrustlessCarPathing: GET default CAR response of UnixFS file on a path with HAMT-sharded directory",
    exactly("/ipfs/" .. hamt.root .. "/685.txt", "", flat(hamt.root, hamt.hamt_traversal("685.txt"),
      hamt.cid("685.txt"), hamt.descendants(hamt.cid("685.txt")))))
  it("TestTrustlessCarPathing: GET default CAR response for non-existing file", function()
    assert.equal(404, (http(base .. ROOT .. "/subdir/i-do-not-exist?format=car")))
  end)
  it("TestTrustlessCarDagScopeBlock: GET CAR with dag-scope=block of UnixFS directory on a path",
    exactly(ROOT .. "/subdir", "dag-scope=block", { two.root, two.cid("subdir") }))
  it("TestTrustlessCarDagScopeBlock: GET CAR with dag-scope=block of UnixFS file on a path",
    exactly(ROOT .. "/subdir/ascii.txt", "dag-scope=block", { two.root, two.cid("subdir"), two.cid("subdir", "ascii.txt") }))
  it("TestTrustlessCarDagScopeBlock: GET CAR with dag-scope=block of UnixFS file on a path with sharded directory",
    exactly("/ipfs/" .. hamt.root .. "/1.txt", "dag-scope=block",
      flat(hamt.root, hamt.hamt_traversal("1.txt"), hamt.cid("1.txt"))))
  it("TestTrustlessCarDagScopeEntity: GET CAR with dag-scope=entity of a UnixFS directory",
    exactly(ROOT, "dag-scope=entity", { two.root }))
  it("TestTrustlessCarDagScopeEntity: GET CAR with dag-scope=entity of a UnixFS sharded directory",
    exactly("/ipfs/" .. hamt.root, "dag-scope=entity", flat(hamt.root, hamt.hamt_shards())))
  local MIXED = "/ipfs/" .. mixed.root
  local MULTI = mixed.cid("subdir", "multiblock.txt")
  local MULTI_BLOCKS = mixed.descendants(MULTI)
  it("TestTrustlessCarDagScopeEntity: GET CAR with dag-scope=entity of a UnixFS file",
    exactly(MIXED .. "/subdir/ascii.txt", "dag-scope=entity",
      { mixed.root, mixed.cid("subdir"), mixed.cid("subdir", "ascii.txt") }))
  it("TestTrustlessCarDagScopeEntity: GET CAR with dag-scope=entity of a chunked UnixFS file",
    exactly(MIXED .. "/subdir/multiblock.txt", "dag-scope=entity",
      flat(mixed.root, mixed.cid("subdir"), MULTI, MULTI_BLOCKS)))
  it("TestTrustlessCarDagScopeAll: GET CAR with dag-scope=all of UnixFS directory with multiple files",
    exactly(MIXED .. "/subdir", "dag-scope=all",
      flat(mixed.root, mixed.cid("subdir"), mixed.descendants(mixed.cid("subdir")))))
  it("TestTrustlessCarDagScopeAll: GET CAR with dag-scope=all of a chunked UnixFS file",
    exactly(MIXED .. "/subdir/multiblock.txt", "dag-scope=all",
      flat(mixed.root, mixed.cid("subdir"), MULTI, MULTI_BLOCKS)))

  -- the file's first block holds bytes 0-255, its last two (1024-1025)
  assert(#MULTI_BLOCKS == 5, "multiblock.txt: five chunks")
  local ranges = {
    { "GET CAR with entity-bytes of a full UnixFS file", MIXED .. "/subdir/multiblock.txt", "0:*",
      flat(mixed.root, mixed.cid("subdir"), MULTI, MULTI_BLOCKS) },
    { "GET CAR with entity-bytes of a UnixFS directory", "/ipfs/" .. hamt.root, "0:*",
      flat(hamt.root, hamt.hamt_shards()) },
    { "GET CAR with entity-bytes equivalent to a HTTP Range Request from the middle of a file to the end",
      "/ipfs/" .. MULTI, "512:*", flat(MULTI, slice(MULTI_BLOCKS, 2)) },
    { "GET CAR with entity-bytes equivalent to a HTTP Range Request for the middle of a file",
      "/ipfs/" .. MULTI, "512:1023", flat(MULTI, slice(MULTI_BLOCKS, 2, 4)) },
    { "GET CAR with entity-bytes equivalent to a HTTP Range Request for the middle of a file (negative ending)",
      "/ipfs/" .. MULTI, "512:-256", flat(MULTI, slice(MULTI_BLOCKS, 2, 4)) },
    { "GET CAR with entity-bytes equivalent to HTTP Suffix Range Request for part of a file",
      "/ipfs/" .. MULTI, "-5:*", flat(MULTI, slice(MULTI_BLOCKS, 3)) },
    { "GET CAR with entity-bytes requesting a negative range bigger than the length of a file",
      "/ipfs/" .. MULTI, "-9999:*", flat(MULTI, MULTI_BLOCKS) },
    { "GET CAR with entity-bytes requesting a range from the end of a file that is bigger than a file itself",
      "/ipfs/" .. MULTI, "-9999:-3", flat(MULTI, slice(MULTI_BLOCKS, 0, 4)) },
    { "GET CAR with entity-bytes requesting only the blocks for the first byte of a file",
      "/ipfs/" .. MULTI, "0:0", flat(MULTI, MULTI_BLOCKS[1]) },
  }
  for _, case in ipairs(ranges) do
    it("TestTrustlessCarEntityBytes: " .. case[1], exactly(case[2], "dag-scope=entity&entity-bytes=" .. case[3], case[4]))
  end
  -- the missing block's neighbours: CIDs the suite's recipe names
  for _, case in ipairs { { "after", "0:1000", "QmPKt7ptM2ZYSGPUc8PmPT2VBkLDK3iqpG9TBJY7PCE9rF" },
    { "before", "2200:*", "QmWXY482zQdwecnfBsj78poUUuPXvyw2JAFAEMw4tzTavV" } } do
    it("TestTrustlessCarEntityBytes: GET CAR with entity-bytes succeeds even if the gateway is missing a block " ..
      case[1] .. " the requested range", exactly("/ipfs/" .. missing.root, "dag-scope=entity&entity-bytes=" .. case[2],
      { missing.root, case[3] }))
  end

  local MULTIBLOCK_CIDS = { "bafkreie5noke3mb7hqxukzcy73nl23k6lxszxi5w3dtmuwz62wnvkpsscm",
    "bafkreih4ephajybraj6wnxsbwjwa77fukurtpl7oj7t7pfq545duhot7cq",
    "bafkreigu7buvm3cfunb35766dn7tmqyh2um62zcio63en2btvxuybgcpue",
    "bafkreicll3huefkc3qnrzeony7zcfo7cr3nbx64hnxrqzsixpceg332fhe",
    "bafkreifst3pqztuvj57lycamoi7z34b4emf7gawxs74nwrc2c7jncmpaqm" }
  local DUPS = "/ipfs/" .. dups.root
  local with_dups = flat(dups.root, dups.cid("ascii.txt"), dups.cid("ascii-copy.txt"), dups.cid("hello.txt"),
    dups.cid("multiblock.txt"), MULTIBLOCK_CIDS)
  local without = flat(dups.root, dups.cid("ascii.txt"), dups.cid("hello.txt"), dups.cid("multiblock.txt"),
    MULTIBLOCK_CIDS)
  local function car_answer(path, accept)
    local status, h, body = http(base .. path, { headers = { Accept = accept } })
    assert.equal(200, status)
    assert.truthy(h["content-type"]:find("application/vnd.ipld.car", 1, true))
    return h["content-type"], car_cids(body)
  end
  local order_cases = {
    { "GET CAR with order=dfs and dups=y of UnixFS Directory With Duplicate Files", DUPS,
      "application/vnd.ipld.car; version=1; order=dfs; dups=y", { "order=dfs", "dups=y" }, with_dups },
    { "GET CAR with order=dfs and dups=n of UnixFS Directory With Duplicate Files", DUPS,
      "application/vnd.ipld.car; version=1; order=dfs; dups=n", { "order=dfs", "dups=n" }, without },
    { "GET CAR with order=dfs and dups=y of identity CID", "/ipfs/bafkqaf3imvwgy3zaneqgc3janfxgy2lomvscay3jmqfa",
      "application/vnd.ipld.car; dups=y", { "dups=y" }, {} },
    { "GET CAR with ?format=car respects Accept header order and dups params", DUPS .. "?format=car",
      "application/vnd.ipld.car; version=1; order=dfs; dups=y", { "order=dfs", "dups=y" }, with_dups },
    { "GET CAR with ?car-order=dfs takes precedence over order=unk in Accept", DUPS .. "?format=car&car-order=dfs",
      "application/vnd.ipld.car; order=unk", { "order=dfs" } },
    { "GET CAR with ?car-dups=y takes precedence over dups=n in Accept", DUPS .. "?format=car&car-dups=y",
      "application/vnd.ipld.car; dups=n", { "dups=y" }, with_dups },
  }
  for _, case in ipairs(order_cases) do
    it("TestTrustlessCarOrderAndDuplicates: " .. case[1], function()
      local type, got = car_answer(case[2], case[3])
      for _, want in ipairs(case[4]) do assert.truthy(type:find(want, 1, true), type) end
      if case[5] then assert.same(case[5], got) end
    end)
  end
  it("TestTrustlessCarOrderAndDuplicates: GET CAR smoke-test with order=unk of UnixFS Directory", function()
    local type, got = car_answer(DUPS, "application/vnd.ipld.car; version=1; order=unk")
    assert.truthy(type:find("order=", 1, true))
    local held = {}
    for _, c in ipairs(got) do held[c] = true end
    for _, c in ipairs(with_dups) do assert.truthy(held[c], c) end
  end)

  local RAW_DIR = "bafybeifaqksygmsbnqe76kwvxoqxtkzcwssq5jkhuo65ldtqiunr3bxlra" -- gateway-raw-block.car's "dir"
  it("TestTrustlessCarFormatPrecedence: GET with format=car query parameter takes precedence over Accept header", function()
    local status, h = http(base .. "/ipfs/" .. RAW_DIR .. "?format=car", { headers = { Accept = "application/vnd.ipld.raw" } })
    assert.equal(200, status)
    assert.truthy(h["content-type"]:find("application/vnd.ipld.car", 1, true))
  end)
  it("TestTrustlessCarFormatPrecedence: GET with format=raw query parameter takes precedence over Accept header", function()
    local status, h = http(base .. "/ipfs/" .. RAW_DIR .. "?format=raw", { headers = { Accept = "application/vnd.ipld.car" } })
    assert.equal(200, status)
    assert.equal("application/vnd.ipld.raw", h["content-type"])
  end)
  it("TestTrustlessRaw: GET with application/vnd.ipld.raw with range request includes correct bytes", function()
    local _, _, whole = http(base .. "/ipfs/" .. RAW_DIR .. "?format=raw")
    local status, h, body = http(base .. "/ipfs/" .. RAW_DIR,
      { headers = { Accept = "application/vnd.ipld.raw", Range = "bytes=6-16" } })
    assert.equal(206, status)
    assert.equal("bytes 6-16/" .. #whole, h["content-range"])
    assert.equal(whole:sub(7, 17), body)
  end)
end)

-- Blocks that are not UnixFS: paths through DAG-CBOR and DAG-JSON links, and
-- the blocks as they are (IPIP-524: no codec conversion, 406).
describe("gateway conformance: DAG-CBOR, DAG-JSON, JSON and CBOR", function()
  local gw = ipfsrt.serve { cars = { FIX .. "dir-with-dag-cbor-with-links.car", FIX .. "dag-cbor-traversal.car",
    FIX .. "dag-json-traversal.car", FIX .. "plain-json.car", FIX .. "plain-cbor.car", FIX .. "gateway-json-cbor.car" } }
  local base = gw:url()
  teardown(function() gw:stop() end)

  local DIR_ROOT = "bafybeia264q44a3kmfc2otctzu4egp2k235o3t7mslz2yjraymp4nv6asi"
  local DOCUMENT = "bafyreidy4q6mmetut5jzc54ambsfnatbyoujmwbfzyyolqw24majazwgha"
  local SINGLE = "bafkreifjjcie6lypi6ny7amxnfftagclbuxndqonfipmb64f2km2devei4"
  local UNIXFS_FILE = "bafkreialihlqnf5uwo4byh4n3cmwlntwqzxxs2fg5vanqdi3d7tb2l5xkm"
  local TRAVERSAL = { cbor = "bafyreibs4utpgbn7uqegmd2goqz4bkyflre2ek2iwv743fhvylwi4zeeim",
    json = "baguqeeram5ujjqrwheyaty3w5gdsmoz6vittchvhk723jjqxk7hakxkd47xq" }
  local PLAIN = { json = "bagaaierajjsnhsxqlgfrvknlt7z2heoljcgfv37cn45tu7mhmr23x3ekiboq",
    cbor = "bafireif3aymeikgfbofx533yf5vlx4kimzq6zmzmpra2mnzfsfnmv4hchm" }
  local DISPOSITION = { json = "inline", cbor = "attachment" }

  local function block(cid, codec)
    local status, _, body = http(base .. "/ipfs/" .. cid .. "?format=raw")
    assert.equal(200, status)
    assert.equal(cid, tostring(ipfsrt.cid.sum(codec, body)))
    return body
  end

  local function car_cids(body)
    local cids = {}
    for _, b in ipairs(ipfsrt.car.reader():feed(body)) do cids[#cids + 1] = tostring(b.cid) end
    return cids
  end

  it("TestTrustlessCarPathing: GET default CAR response of UnixFS file on a path with DAG-CBOR as root CID", function()
    local status, _, body = http(base .. "/ipfs/" .. DOCUMENT .. "/files/single?format=car")
    assert.equal(200, status)
    assert.same({ DOCUMENT, SINGLE }, car_cids(body))
  end)

  it("TestTrustlessCarDagScopeEntity: GET CAR with dag-scope=entity of DAG-CBOR with Links", function()
    local status, _, body = http(base .. "/ipfs/" .. DIR_ROOT .. "/document?format=car&dag-scope=entity")
    assert.equal(200, status)
    assert.same({ DIR_ROOT, DOCUMENT }, car_cids(body))
    -- dag-scope=all follows the document's links: both files, whole
    status, _, body = http(base .. "/ipfs/" .. DIR_ROOT .. "/document?format=car&dag-scope=all")
    assert.equal(200, status)
    local all = car_cids(body)
    assert.equal(9, #all)
    assert.same({ DIR_ROOT, DOCUMENT, SINGLE }, { all[1], all[2], all[3] })
  end)

  local mismatches = {
    { "GET UnixFS (dag-pb) file with format=dag-json returns 406 Not Acceptable", UNIXFS_FILE, "?format=dag-json" },
    { "GET UnixFS (dag-pb) file with format=dag-cbor returns 406 Not Acceptable", UNIXFS_FILE, "?format=dag-cbor" },
    { "GET UnixFS (dag-pb) file with Accept: application/vnd.ipld.dag-json returns 406 Not Acceptable", UNIXFS_FILE,
      "", "application/vnd.ipld.dag-json" },
    { "GET DAG-JSON block with format=dag-cbor returns 406 Not Acceptable", TRAVERSAL.json, "?format=dag-cbor" },
    { "GET DAG-CBOR block with format=dag-json returns 406 Not Acceptable", TRAVERSAL.cbor, "?format=dag-json" },
    { "GET DAG-CBOR block with Accept: application/vnd.ipld.dag-json returns 406 Not Acceptable", TRAVERSAL.cbor,
      "", "application/vnd.ipld.dag-json" },
  }
  for _, case in ipairs(mismatches) do
    it("TestCodecMismatchReturns406: " .. case[1], function()
      local status, h = http(base .. "/ipfs/" .. case[2] .. case[3], { headers = { Accept = case[4] } })
      assert.equal(406, status)
      assert.equal("*", h["access-control-allow-origin"])
    end)
  end

  for _, fmt in ipairs { "json", "cbor" } do
    local name = "plain " .. fmt:upper() .. " codec"
    local cid = PLAIN[fmt]
    local ways = {
      { string.format('GET %s without Accept or format= has expected "%s" Content-Type and body as-is', name, fmt), "" },
      { string.format("GET %s with ?format= has expected %s Content-Type and body as-is", name, fmt), "?format=" .. fmt },
      { string.format("GET %s with Accept has expected %s Content-Type and body as-is, with single range request", name, fmt),
        "", "application/" .. fmt },
    }
    for _, way in ipairs(ways) do
      it("TestPlainCodec: " .. way[1], function()
        local raw = block(cid, fmt)
        local status, h, body = http(base .. "/ipfs/" .. cid .. way[2], { headers = { Accept = way[3] } })
        assert.equal(200, status)
        assert.equal("application/" .. fmt, h["content-type"])
        assert.truthy(h["content-disposition"]:find(string.format('%s; filename="%s.%s"', DISPOSITION[fmt], cid, fmt),
          1, true))
        assert.equal(raw, body)
        status, h, body = http(base .. "/ipfs/" .. cid .. way[2], { headers = { Accept = way[3], Range = "bytes=2-9" } })
        assert.equal(206, status)
        assert.equal("application/" .. fmt, h["content-type"])
        assert.equal(string.format("bytes 2-9/%d", #raw), h["content-range"])
        assert.equal(raw:sub(3, 10), body)
      end)
    end
  end

  local HELLO_CBOR = "\xa1\x65hellorthis is not a link"
  for _, fmt in ipairs { "json", "cbor" } do
    local upper, cid = fmt == "json" and "DAG-JSON" or "DAG-CBOR", TRAVERSAL[fmt]
    it("TestPathing: GET " .. upper .. " traversal returns 501 if there is path remainder", function()
      local status, h = http(base .. "/ipfs/" .. cid .. "/foo?format=dag-" .. fmt)
      assert.equal(501, status)
      assert.equal("*", h["access-control-allow-origin"])
    end)
    it("TestPathing: GET " .. upper .. " traverses multiple links", function()
      local status, h, body = http(base .. "/ipfs/" .. cid .. "/foo/link/bar?format=dag-" .. fmt)
      assert.equal(200, status)
      assert.equal("application/vnd.ipld.dag-" .. fmt, h["content-type"])
      assert.equal(fmt == "json" and '{"hello":"this is not a link"}' or HELLO_CBOR, body)
      -- the roots: the path's three blocks, one per link followed
      assert.equal(2, select(2, h["x-ipfs-roots"]:gsub(",", "")))
    end)
    it("TestPathing: GET " .. upper .. " returns 404 on non-existing link", function()
      assert.equal(404, (http(base .. "/ipfs/" .. cid .. "/foo/i-do-not-exist")))
    end)
  end

  for _, fmt in ipairs { "json", "cbor" } do
    local name = "plain " .. fmt:upper() .. " codec"
    local cid, dag, ext = TRAVERSAL[fmt], "dag-" .. fmt, fmt
    local function get(suffix, headers, method)
      return http(base .. "/ipfs/" .. cid .. suffix, { headers = headers, method = method })
    end
    it("TestNativeDag: GET " .. name .. " from /ipfs without explicit format returns the same payload as the raw block", function()
      local status, h, body = get("")
      assert.equal(200, status)
      assert.equal("application/vnd.ipld." .. dag, h["content-type"])
      assert.equal(block(cid, dag), body)
    end)
    it(string.format("TestNativeDag: GET %s from /ipfs with format=%s returns the same payload as the raw block", name, dag), function()
      local status, _, body = get("?format=" .. dag)
      assert.equal(200, status)
      assert.equal(block(cid, dag), body)
    end)
    it(string.format("TestNativeDag: GET %s from /ipfs with application/vnd.ipld.%s returns the same payload as the raw block", name, dag), function()
      local status, h, body = get("", { Accept = "application/vnd.ipld." .. dag })
      assert.equal(200, status)
      assert.equal(block(cid, dag), body)
      assert.equal("Accept", h["vary"])
      assert.equal("/ipfs/" .. cid .. "?format=" .. dag, h["content-location"])
    end)
    it(string.format("TestNativeDag: GET %s with format=%s returns same payload as format=%s but with plain Content-Type", name, fmt, dag), function()
      local status, h, body = get("?format=" .. fmt)
      assert.equal(200, status)
      assert.equal("application/" .. fmt, h["content-type"])
      assert.equal(block(cid, dag), body)
    end)
    it(string.format("TestNativeDag: GET %s with Accept: application/%s returns same payload as application/vnd.ipld.%s but with plain Content-Type", name, fmt, dag), function()
      local status, h, body = get("", { Accept = "application/" .. fmt })
      assert.equal(200, status)
      assert.equal("application/" .. fmt, h["content-type"])
      assert.equal(block(cid, dag), body)
    end)
    it(string.format("TestNativeDag: GET response for application/vnd.ipld.%s has expected Content-Type", dag), function()
      local _, h = get("", { Accept = "application/vnd.ipld." .. dag })
      assert.equal("application/vnd.ipld." .. dag, h["content-type"])
      assert.equal(tostring(#block(cid, dag)), h["content-length"])
      assert.truthy(h["content-disposition"]:find(string.format('%s; filename="%s.%s"', DISPOSITION[fmt], cid, ext), 1, true))
    end)
    it(string.format("TestNativeDag: GET for application/vnd.ipld.%s with query filename includes Content-Disposition with custom filename", dag), function()
      local _, h = get("?filename=foobar." .. ext, { Accept = "application/vnd.ipld." .. dag })
      assert.truthy(h["content-disposition"]:find(string.format('%s; filename="foobar.%s"', DISPOSITION[fmt], ext), 1, true))
    end)
    it(string.format("TestNativeDag: GET for application/vnd.ipld.%s with ?download=true forces Content-Disposition: attachment", dag), function()
      local _, h = get("?filename=foobar." .. ext .. "&download=true", { Accept = "application/vnd.ipld." .. dag })
      assert.truthy(h["content-disposition"]:find('attachment; filename="foobar.' .. ext .. '"', 1, true))
    end)
    it(string.format("TestNativeDag: Cache control HTTP headers (%s)", fmt), function()
      local _, h = get("", { Accept = "application/vnd.ipld." .. dag })
      assert.truthy(h["etag"]:find(cid .. "." .. dag, 1, true))
      assert.truthy(h["x-ipfs-path"])
      assert.truthy(h["x-ipfs-roots"])
      assert.equal("public, max-age=29030400, immutable", h["cache-control"])
      assert.equal(304, (get("", { Accept = "application/vnd.ipld." .. dag, ["If-None-Match"] = h["etag"] })))
    end)
    it("TestNativeDag: HEAD " .. name .. " with no explicit format returns HTTP 200", function()
      local status, h = get("", nil, "HEAD")
      assert.equal(200, status)
      assert.equal("application/vnd.ipld." .. dag, h["content-type"])
      assert.equal(tostring(#block(cid, dag)), h["content-length"])
    end)
    it("TestNativeDag: HEAD " .. name .. " with an explicit format returns HTTP 200", function()
      local status, h = get("?format=" .. dag, nil, "HEAD")
      assert.equal(200, status)
      assert.truthy(h["etag"]:find(cid .. "." .. dag, 1, true))
      assert.equal("application/vnd.ipld." .. dag, h["content-type"])
      assert.truthy(h["content-length"])
    end)
    it("TestNativeDag: HEAD " .. name .. " with only-if-cached for missing block returns HTTP 412 Precondition Failed", function()
      local missing = tostring(ipfsrt.cid.sum("dag-" .. fmt, "not held here " .. fmt))
      local status = http(base .. "/ipfs/" .. missing, { method = "HEAD", headers = { ["Cache-Control"] = "only-if-cached" } })
      assert.equal(412, status)
    end)
    it("TestNativeDag: GET " .. name .. " on /ipfs with Accept: text/html returns HTML (dag-index-html)", function()
      local status, h, body = get("/", { Accept = "text/html" })
      assert.equal(200, status)
      assert.truthy(h["etag"]:find("DagIndex-", 1, true))
      assert.truthy(h["content-type"]:find("text/html", 1, true))
      assert.is_nil(h["content-disposition"])
      assert.equal("public, max-age=604800, stale-while-revalidate=2678400", h["cache-control"])
      assert.truthy(body:find("</html>", 1, true))
      -- the link inside, linked; nothing of the block unescaped
      local link = fmt == "json" and "baguqeeraxpdqyfizawpb7zl5gnpg7jw3myuynb42ngzmeo7xn5kmm5pabt6q"
        or "bafyreig5alecq2l2akgajxywgnv22kuxh6xcagsnelepylqovt4t5jxt6u"
      assert.truthy(body:find(link, 1, true))
      assert.equal(304, (get("/", { Accept = "text/html", ["If-None-Match"] = h["etag"] })))
    end)
    for _, accept in ipairs { false, "application/vnd.ipld." .. dag, "application/" .. fmt } do
      local what = not accept and "no explicit header" or accept:find("vnd", 1, true) and "dag content headers"
        or "non-dag content headers"
      it("TestNativeDag: GET " .. name .. " on /ipfs with " .. what, function()
        local raw = block(cid, dag)
        local status, h, body = get("/", { Accept = accept or nil, Range = "bytes=3-20" })
        assert.equal(206, status)
        assert.equal(accept or "application/vnd.ipld." .. dag, h["content-type"])
        assert.equal(raw:sub(4, 21), body)
      end)
    end
  end

  it("escapes what documents hold in their HTML pages, and bounds deep ones", function()
    local dir = os.tmpname()
    os.remove(dir)
    os.execute("mkdir -p " .. dir)
    local evil = "<script>alert(1)</script>"
    local docs = {
      { "dag-cbor", "\xa1\x63\x3c\x62\x3e\x78" .. string.char(#evil) .. evil }, -- {"<b>": "<script>..."}
      { "dag-json", '{"<b>":"' .. evil .. '"}' },
      { "cbor", "\x9f\xff" }, -- an indefinite-length list: CBOR, not DAG-CBOR
      { "dag-cbor", string.rep("\x81", 100) .. "\x01" }, -- 100 nested lists
    }
    local cids = {}
    for i, d in ipairs(docs) do
      cids[i] = ipfsrt.cid.sum(d[1], d[2])
      local w <close> = ipfsrt.car.writer(dir .. "/" .. i .. ".car", { cids[i] })
      w:put(cids[i], d[2])
    end
    local gw2 = ipfsrt.serve { cars = { dir .. "/1.car", dir .. "/2.car", dir .. "/3.car", dir .. "/4.car" } }
    for i in ipairs(docs) do
      local status, h, body = http(gw2:url() .. "/ipfs/" .. tostring(cids[i]) .. "/", { headers = { Accept = "text/html" } })
      assert.equal(200, status)
      assert.truthy(h["content-type"]:find("text/html", 1, true))
      assert.is_nil(body:find("<script>", 1, true))
      assert.is_nil(body:find("<b>", 1, true))
    end
    local _, _, body = http(gw2:url() .. "/ipfs/" .. tostring(cids[1]) .. "/", { headers = { Accept = "text/html" } })
    assert.truthy(body:find("&lt;script&gt;", 1, true))
    gw2:stop()
    os.execute("rm -rf " .. dir)
  end)

  it("TestNativeDag: GET DAG-CBOR with Accept: text/html returns HTML preview", function()
    local status, _, body = http(base .. "/ipfs/" .. TRAVERSAL.cbor .. "/", { headers = { Accept = "text/html" } })
    assert.equal(200, status)
    assert.truthy(body:find("</html>", 1, true))
    assert.truthy(body:find("&quot;banana&quot;: 10", 1, true))
  end)
end)

-- TAR answers (the suite's TestTar), read back with GNU tar.
describe("gateway conformance: TAR", function()
  local gw = ipfsrt.serve { cars = { FIX .. "tar-fixtures.car", FIX .. "tar-inside-root.car",
    FIX .. "tar-outside-root.car" } }
  local base = gw:url()
  local dir = os.tmpname()
  teardown(function()
    gw:stop()
    os.remove(dir)
  end)
  local DIR = "bafybeig6ka5mlwkl4subqhaiatalkcleo4jgnr3hqwvpmsqfca27cijp3i"
  local FILE = "bafkreialihlqnf5uwo4byh4n3cmwlntwqzxxs2fg5vanqdi3d7tb2l5xkm"
  local INSIDE = "bafybeibfevfxlvxp5vxobr5oapczpf7resxnleb7tkqmdorc4gl5cdva3y"
  local OUTSIDE = "bafybeicaj7kvxpcv4neaqzwhrqqmdstu4dhrwfpknrgebq6nzcecfucvyu"
  local TEXT = "I am a txt file on path with utf8\n"
  local sh, q = require("exe").sh, require("exe").sh_quote

  -- the body's member names, and one member's bytes
  local function tar(body, member)
    local f = assert(io.open(dir, "wb"))
    f:write(body)
    f:close()
    local names = {}
    for name in sh("tar tf " .. q(dir)):gmatch("[^\n]+") do names[name] = true end
    return names, member and sh("tar xOf " .. q(dir) .. " " .. q(member))
  end

  it("TestTar: GET TAR with format=tar and extract", function()
    local status, h, body = http(base .. "/ipfs/" .. FILE .. "?format=tar")
    assert.equal(200, status)
    assert.truthy(h["content-disposition"]:find("attachment;", 1, true))
    assert.truthy(h["etag"]:find('W/"' .. FILE .. '.x-tar', 1, true))
    assert.truthy(h["content-type"]:find("application/x-tar", 1, true))
    local _, text = tar(body, FILE)
    assert.equal(TEXT, text)
  end)

  it("TestTar: GET TAR with 'Accept: application/x-tar' and extract", function()
    local status, h, body = http(base .. "/ipfs/" .. FILE, { headers = { Accept = "application/x-tar" } })
    assert.equal(200, status)
    assert.truthy(h["etag"]:find('W/"' .. FILE .. '.x-tar', 1, true))
    assert.truthy(h["content-type"]:find("application/x-tar", 1, true))
    assert.equal("/ipfs/" .. FILE .. "?format=tar", h["content-location"])
    assert.truthy(tar(body)[FILE])
    assert.equal(304, (http(base .. "/ipfs/" .. FILE .. "?format=tar", { headers = { ["If-None-Match"] = h["etag"] } })))
  end)

  it("TestTar: GET TAR has expected root directory", function()
    local status, _, body = http(base .. "/ipfs/" .. DIR .. "?format=tar")
    assert.equal(200, status)
    local names, text = tar(body, DIR .. "/ą/ę/file-źł.txt")
    assert.equal(TEXT, text)
    for _, want in ipairs { DIR .. "/", DIR .. "/api/file.txt", DIR .. "/ipfs/file.txt", DIR .. "/ipns/file.txt" } do
      assert.truthy(names[want], want)
    end
  end)

  it("TestTar: GET TAR with explicit ?filename= succeeds with modified Content-Disposition header", function()
    local status, h = http(base .. "/ipfs/" .. DIR .. "?filename=" .. "test%D1%82%D0%B5%D1%81%D1%82.tar&format=tar")
    assert.equal(200, status)
    assert.truthy(h["content-disposition"]:find(
      [[attachment; filename="test____.tar"; filename*=UTF-8''test%D1%82%D0%B5%D1%81%D1%82.tar]], 1, true))
  end)

  it("TestTar: GET TAR with relative paths outside root fails", function()
    local status, h, body = http(base .. "/ipfs/" .. OUTSIDE .. "?format=tar")
    assert.is_true(status >= 400 and status <= 599)
    assert.truthy(body:find("'../foo'", 1, true))
    assert.equal("*", h["access-control-allow-origin"])
  end)

  it("TestTar: GET TAR with relative paths inside root works", function()
    local status, _, body = http(base .. "/ipfs/" .. INSIDE .. "?format=tar")
    assert.equal(200, status)
    assert.truthy(tar(body)[INSIDE .. "/foobar/file"])
  end)
end)

-- IPNS: records served from a folder (--ipns-records), and paths through them.
describe("gateway conformance: IPNS", function()
  local gw = ipfsrt.serve { cars = { FIX .. "gateway-cache.car", FIX .. "dag-cbor-traversal.car",
    FIX .. "dag-json-traversal.car" }, ipns_records = FIX .. "ipns" }
  local base = gw:url()
  teardown(function() gw:stop() end)
  local V1 = "k51qzi5uqu5dm4tm0wt8srkg9h9suud4wuiwjimndrkydqm81cqtlb5ak6p7ku"
  local V1V2 = "k51qzi5uqu5dlkw8pxuw9qmqayfdeh4kfebhmreauqdc6a7c3y7d5i9fi8mk9w"
  local V2 = "k51qzi5uqu5dit2ku9mutlfgwyz8u730on38kd10m97m36bjt66my99hb6103f"
  local BROKEN_VALUE_V1 = "k51qzi5uqu5dlmit2tuwdvnx4sbnyqgmvbxftl0eo3f33wwtb9gr7yozae9kpw"
  local BROKEN_SIG_V2 = "k51qzi5uqu5diamp7qnnvs1p1gzmku3eijkeijs3418j23j077zrkok63xdm8c"
  local BROKEN_SIG_V1 = "k51qzi5uqu5dilgf7gorsh9vcqqq4myo6jd4zmqkuy9pxyxi5fua3uf7axph4y"
  local CACHE_NAME = "k51qzi5uqu5dlxdsdu5fpuu7h69wu4ohp32iwm9pdt9nq3y5rpn3ln9j12zfhe" -- -> ROOT1
  local SUBPATH_NAME = "k51qzi5uqu5djokp3m1keo36hoxtd6u3a1d2rg1camf6al7p3huy63dojlm57c" -- -> ROOT1/root2
  local ROOT1 = "bafybeib3ffl2teiqdncv3mkz4r23b5ctrwkzrrhctdbne6iboayxuxk5ui"
  local function record_file(name)
    local files = io.popen("ls " .. FIX .. "ipns/" .. name .. "*"):read("a")
    return read_file(files:match("[^\n]+"))
  end
  -- the bytes an identity CID holds (the vectors point at such CIDs)
  local function identity_bytes(cid) return ipfsrt.cid.parse(cid).digest end

  for _, case in ipairs { { "V1+V2", V1V2 }, { "V2", V2 } } do
    for _, ask in ipairs { { "with format=ipns-record", "?format=ipns-record" },
      { "with 'Accept: application/vnd.ipfs.ipns-record'", "", "application/vnd.ipfs.ipns-record" } } do
      it(string.format("TestGatewayIPNSRecord: GET IPNS Record (%s) %s has expected HTTP headers and valid key",
        case[1], ask[1]), function()
        local status, h, body = http(base .. "/ipns/" .. case[2] .. ask[2], { headers = { Accept = ask[3] } })
        assert.equal(200, status)
        assert.truthy(h["content-disposition"]:find("attachment;", 1, true))
        assert.truthy(h["content-type"]:find("application/vnd.ipfs.ipns-record", 1, true))
        assert.truthy(h["cache-control"]:find("public, max-age=1800", 1, true))
        assert.equal(record_file(case[2]), body)
        assert.truthy(ipfsrt.ipns.verify(case[2], body).value:match("^/ipfs/"))
      end)
    end
  end
  it("TestGatewayIPNSRecord: GET IPNS Record with explicit ?filename= succeeds with modified Content-Disposition header", function()
    local _, h = http(base .. "/ipns/" .. V1V2 .. "?format=ipns-record&filename=test%D1%82%D0%B5%D1%81%D1%82.ipns-record")
    assert.truthy(h["content-disposition"]:find(
      [[attachment; filename="test____.ipns-record"; filename*=UTF-8''test%D1%82%D0%B5%D1%81%D1%82.ipns-record]], 1, true))
  end)

  local failing = {
    { "GET for /ipns/name with V1-only signature MUST fail with 5XX", V1 },
    { "GET for /ipns/name with valid V1+V2 signatures with V1-vs-V2 value mismatch MUST fail with 5XX", BROKEN_VALUE_V1 },
    { "GET for /ipns/name with valid V1 and broken V2 signature MUST fail with 5XX", BROKEN_SIG_V2 },
  }
  for _, case in ipairs(failing) do
    it("TestGatewayIPNSPath: " .. case[1], function()
      local status, h, body = http(base .. "/ipns/" .. case[2])
      assert.is_true(status >= 500 and status <= 599)
      assert.truthy(body:find(case[2], 1, true))
      assert.equal("*", h["access-control-allow-origin"])
      assert.is_true((http(base .. "/ipns/" .. case[2] .. "?format=ipns-record")) >= 500)
    end)
  end
  local passing = {
    { "GET for /ipns/name with valid V2 and broken V1 signature succeeds", BROKEN_SIG_V1,
      "bafkqahtwgevxmmrao5uxi2bamjzg623fnyqhg2lhnzqxi5lsmuqhmmi" },
    { "GET for /ipns/name with valid V1+V2 signatures succeeds", V1V2, "bafkqaddwgevxmmraojswg33smq" },
    { "GET for /ipns/name with valid V2-only signature succeeds", V2, "bafkqadtwgiww63tmpeqhezldn5zgi" },
  }
  for _, case in ipairs(passing) do
    it("TestGatewayIPNSPath: " .. case[1], function()
      local status, h, body = http(base .. "/ipns/" .. case[2])
      assert.equal(200, status)
      assert.equal(identity_bytes(case[3]), body)
      assert.equal("public, max-age=1800", h["cache-control"]) -- the record's TTL, not immutable
    end)
  end

  local redirects = {
    { "GET for /ipns/{b58-multihash-of-ed25519-key} redirects to /ipns/{cidv1-libp2p-key-base36}",
      "12D3KooWRBy97UB99e3J6hiPesre1MZeuNQvfan4gBziswrRJsNK", "k51qzi5uqu5dlvj2baxnqndepeb86cbk3ng7n3i46uzyxzyqj2xjonzllnv0v8" },
    { "GET for /ipns/{cidv0-like-b58-multihash-of-rsa-key} redirects to /ipns/{cidv1-libp2p-key-base36}",
      "QmcJM7PRfkSbcM5cf1QugM5R37TLRKyJGgBEhXjLTB8uA2", "k2k4r8ol4m8kkcqz509c1rcjwunebj02gcnm5excpx842u736nja8ger" },
  }
  for _, case in ipairs(redirects) do
    it("TestRedirectCanonicalIPNS: " .. case[1], function()
      local status, h = http(base .. "/ipns/" .. case[2] .. "/root2/", { follow = false })
      assert.equal(302, status)
      assert.equal("/ipns/" .. case[3] .. "/root2/", h["location"])
    end)
  end

  it("TestGatewayIPNSRecordWithSubpath: GET /ipns/{key}/root3/root4/index.html returns file when IPNS record Value has sub-path", function()
    local status, _, body = http(base .. "/ipns/" .. SUBPATH_NAME .. "/root3/root4/index.html")
    assert.equal(200, status)
    assert.equal("hello\n", body)
  end)

  local CIDS = { ROOT1, "bafybeih2w7hjocxjg6g2ku25hvmd53zj7og4txpby3vsusfefw5rrg5sii" }
  it("TestGatewayCache: GET for /ipns/ unixfs dir listing succeeds", function()
    local status, h = http(base .. "/ipns/" .. CACHE_NAME .. "/root2/root3/")
    assert.equal(200, status)
    assert.equal("/ipns/" .. CACHE_NAME .. "/root2/root3/", h["x-ipfs-path"])
    assert.truthy(h["x-ipfs-roots"]:find(table.concat(CIDS, ","), 1, true))
    assert.truthy(h["etag"]:match("DirIndex%-.*_CID%-"))
    assert.truthy(h["cache-control"]:match("^public, max%-age="))
  end)
  it("TestGatewayCache: GET for /ipns/ unixfs dir with index.html succeeds", function()
    local status, h, body = http(base .. "/ipns/" .. CACHE_NAME .. "/root2/root3/root4/")
    assert.equal(200, status)
    assert.equal("hello\n", body)
    assert.equal(4, select(2, h["x-ipfs-roots"]:gsub(",", "")) + 1)
    -- the record's TTL, never past its EOL
    local rec = ipfsrt.ipns.verify(CACHE_NAME, record_file(CACHE_NAME))
    local max_age = tonumber(h["cache-control"]:match("^public, max%-age=(%d+)$"))
    assert.is_true(math.abs(max_age - math.min(rec.ttl, rec.eol - os.time())) <= 2)
  end)
  it("TestGatewayCache: GET for /ipns/ unixfs file succeeds", function()
    local status, h = http(base .. "/ipns/" .. CACHE_NAME .. "/root2/root3/root4/index.html")
    assert.equal(200, status)
    assert.equal('"bafkreicysg23kiwv34eg2d7qweipxwosdo2py4ldv42nbauguluen5v6am"', h["etag"])
    assert.equal(5, select(2, h["x-ipfs-roots"]:gsub(",", "")) + 1)
  end)
  it("TestGatewayCache: GET for /ipns/ unixfs dir as raw block succeeds", function()
    local status, h, body = http(base .. "/ipns/" .. CACHE_NAME .. "/root2/root3/root4/?format=raw")
    assert.equal(200, status)
    assert.equal(58, #body)
    assert.equal("\x12\x34\x0a\x24\x01\x55\x12\x20", body:sub(1, 8))
    assert.is_nil(h["cache-control"]:find("immutable", 1, true))
  end)
  it("TestGatewayCache: GET for /ipns/ file with matching Etag in If-None-Match returns 304 Not Modified", function()
    assert.equal(304, (http(base .. "/ipns/" .. CACHE_NAME .. "/root2/root3/root4/index.html",
      { headers = { ["If-None-Match"] = '"bafkreicysg23kiwv34eg2d7qweipxwosdo2py4ldv42nbauguluen5v6am"' } })))
  end)

  local DAG = { json = { "k51qzi5uqu5dhjghbwdvbo6mi40htrq6e2z4pwgp15pgv3ho1azvidttzh8yy2",
    "baguqeeram5ujjqrwheyaty3w5gdsmoz6vittchvhk723jjqxk7hakxkd47xq" },
    cbor = { "k51qzi5uqu5dghjous0agrwavl8vzl64xckoqzwqeqwudfr74kfd11zcyk3b7l",
      "bafyreibs4utpgbn7uqegmd2goqz4bkyflre2ek2iwv743fhvylwi4zeeim" } }
  for _, fmt in ipairs { "json", "cbor" } do
    local name, cid = DAG[fmt][1], DAG[fmt][2]
    local row = "plain " .. fmt:upper() .. " codec"
    it("TestGatewayJSONCborAndIPNS: GET " .. row .. " from /ipns without explicit format returns the same payload as /ipfs", function()
      assert.equal(select(3, http(base .. "/ipfs/" .. cid)), select(3, http(base .. "/ipns/" .. name)))
    end)
    it("TestGatewayJSONCborAndIPNS: GET " .. row .. " from /ipns with explicit format returns the same payload as /ipfs", function()
      local q = "?format=dag-" .. fmt
      assert.equal(select(3, http(base .. "/ipfs/" .. cid .. q)), select(3, http(base .. "/ipns/" .. name .. q)))
    end)
    it(string.format("TestGatewayJSONCborAndIPNS: GET %s from /ipns with explicit application/vnd.ipld.dag-%s has expected headers",
      row, fmt), function()
      local _, h = http(base .. "/ipns/" .. name, { headers = { Accept = "application/vnd.ipld.dag-" .. fmt } })
      assert.equal("application/vnd.ipld.dag-" .. fmt, h["content-type"])
      assert.equal('"' .. cid .. '.dag-' .. fmt .. '"', h["etag"])
      assert.equal("/ipns/" .. name, h["x-ipfs-path"])
      assert.truthy(h["x-ipfs-roots"])
    end)
    it("TestGatewayJSONCborAndIPNS: GET " .. row .. " on /ipns with Accept: text/html returns HTML (dag-index-html)", function()
      local _, h, body = http(base .. "/ipns/" .. name .. "/", { headers = { Accept = "text/html" } })
      assert.truthy(h["etag"]:find("DagIndex-", 1, true))
      assert.truthy(h["content-type"]:find("text/html", 1, true))
      assert.is_nil(h["content-disposition"])
      assert.truthy(body:find("</html>", 1, true))
    end)
  end

  it("answers 404 for a name it holds no record for, and picks up records added to the folder", function()
    local dir = os.tmpname()
    os.remove(dir)
    os.execute("mkdir -p " .. dir)
    local gw2 = ipfsrt.serve { cars = { FIX .. "gateway-cache.car" }, ipns_records = dir }
    local key = ipfsrt.ipns.key_generate()
    assert.equal(404, (http(gw2:url() .. "/ipns/" .. key:name())))
    local function publish(seq, value)
      local f = assert(io.open(string.format("%s/%s_%d.ipns-record", dir, key:name(), seq), "wb"))
      f:write(ipfsrt.ipns.record(key, { value = value, sequence = seq, eol = os.time() + 3600, ttl = 60 }))
      f:close()
    end
    publish(1, "/ipfs/" .. ROOT1 .. "/root2")
    os.execute("sleep 1.1")
    local status, _, body = http(gw2:url() .. "/ipns/" .. key:name() .. "/root3/root4/index.html")
    assert.equal(200, status)
    assert.equal("hello\n", body)
    publish(3, "/ipfs/bafkqaddwgevxmmraojswg33smq")
    publish(2, "/ipfs/" .. ROOT1)
    os.execute("sleep 1.1")
    status, _, body = http(gw2:url() .. "/ipns/" .. key:name())
    assert.equal(200, status)
    assert.equal("v1+v2 record", body) -- sequence 3 wins
    gw2:stop()
    os.execute("rm -rf " .. dir)
  end)
end)

-- What the suite checks only in part, and caches need: every answer (errors
-- and preflights too) readable from another origin; the format chosen by
-- Accept named in Vary and Content-Location; conditional requests on raw
-- blocks and CARs; hostile If-None-Match lists and preflights bounded.
describe("gateway headers for browsers and caches", function()
  local gw = ipfsrt.serve { cars = { FIX .. "gateway-cache.car" } }
  local base = gw:url()
  teardown(function() gw:stop() end)
  local ROOT1 = "bafybeib3ffl2teiqdncv3mkz4r23b5ctrwkzrrhctdbne6iboayxuxk5ui"
  local INDEX = "bafkreicysg23kiwv34eg2d7qweipxwosdo2py4ldv42nbauguluen5v6am"

  it("sends CORS headers on errors and answers preflights for any header list", function()
    for _, p in ipairs { "/ipfs/" .. ROOT1 .. "/missing", "/ipfs/not-a-cid", "/nothing" } do
      local status, h = http(base .. p)
      assert.is_true(status >= 400, p)
      assert.equal("*", h["access-control-allow-origin"], p)
      assert.truthy(h["access-control-expose-headers"], p)
    end
    local status, h = http(base .. "/ipfs/" .. ROOT1 .. "/root2", { method = "OPTIONS",
      headers = { ["Access-Control-Request-Method"] = "GET", ["Access-Control-Request-Headers"] = "range, x-custom" } })
    assert.equal(200, status)
    assert.truthy(h["access-control-allow-headers"]:find("x-custom", 1, true))
    -- a header list that is not one is not echoed
    status, h = http(base .. "/ipfs/" .. ROOT1, { method = "OPTIONS",
      headers = { ["Access-Control-Request-Headers"] = "<script>" .. string.rep("x", 5000) } })
    assert.equal(200, status)
    assert.falsy(h["access-control-allow-headers"]:find("script", 1, true))
  end)

  it("names what Accept chose: Vary, and Content-Location for the same answer by URL", function()
    local _, h = http(base .. "/ipfs/" .. INDEX, { headers = { Accept = "application/vnd.ipld.raw" } })
    assert.equal("Accept", h["vary"])
    assert.equal("/ipfs/" .. INDEX .. "?format=raw", h["content-location"])
    _, h = http(base .. "/ipfs/" .. ROOT1 .. "/root2", { headers = { Accept = "application/vnd.ipld.car" } })
    assert.equal("Accept", h["vary"])
    assert.equal("/ipfs/" .. ROOT1 .. "/root2?format=car", h["content-location"])
    local _, plain = http(base .. "/ipfs/" .. INDEX)
    assert.equal("Accept", plain["vary"])
    assert.falsy(plain["content-location"])
    _, h = http(base .. "/ipfs/" .. INDEX .. "?format=raw")
    assert.falsy(h["content-location"])
  end)

  it("answers 304 for raw blocks and CARs whose Etag the client holds", function()
    local _, h = http(base .. "/ipfs/" .. INDEX .. "?format=raw")
    assert.equal(304, (http(base .. "/ipfs/" .. INDEX .. "?format=raw", { headers = { ["If-None-Match"] = h["etag"] } })))
    local _, car = http(base .. "/ipfs/" .. ROOT1 .. "?format=car")
    assert.truthy(car["etag"]:match('^W/"'))
    assert.equal(304, (http(base .. "/ipfs/" .. ROOT1 .. "?format=car", { headers = { ["If-None-Match"] = car["etag"] } })))
    -- another scope is another answer
    assert.equal(200, (http(base .. "/ipfs/" .. ROOT1 .. "?format=car&dag-scope=block",
      { headers = { ["If-None-Match"] = car["etag"] } })))
  end)

  it("reads thousands of entity tags, and odd ones, without matching what they do not name", function()
    local tags = {}
    for i = 1, 1500 do tags[i] = string.format('"t%d"', i) end
    local path = base .. "/ipfs/" .. ROOT1 .. "/root2/root3/root4/index.html"
    assert.equal(200, (http(path, { headers = { ["If-None-Match"] = table.concat(tags, ", ") } })))
    tags[#tags + 1] = '"' .. INDEX .. '"'
    assert.equal(304, (http(path, { headers = { ["If-None-Match"] = table.concat(tags, ",") } })))
    -- past what a request's head may hold: refused whole
    local status = http(path, { headers = { ["If-None-Match"] = string.rep('"x",', 50000) } })
    assert.is_true(status >= 400 and status < 500)
    for _, odd in ipairs { '"', 'W/', ',,,', '"' .. INDEX, INDEX, 'W/"' .. INDEX:sub(1, 20) .. '"', "\"\"" } do
      assert.equal(200, (http(path, { headers = { ["If-None-Match"] = odd } })), odd)
    end
  end)
end)

describe("gateway headers in front of an upstream (serve --upstream)", function()
  local origin = ipfsrt.serve { cars = { FIX .. "gateway-cache.car", FIX .. "dir-with-files.car",
    FIX .. "dag-cbor-traversal.car", FIX .. "tar-fixtures.car", FIX .. "tar-outside-root.car" } }
  local front, stop = require("exe").start_serve { "-q", "--upstream", origin:url() }
  teardown(function()
    stop()
    origin:stop()
  end)
  local ROOT1 = "bafybeib3ffl2teiqdncv3mkz4r23b5ctrwkzrrhctdbne6iboayxuxk5ui"
  local INDEX = "bafkreicysg23kiwv34eg2d7qweipxwosdo2py4ldv42nbauguluen5v6am"

  it("answers the same: CORS, preflights, Vary, Content-Location, 304, blocks by path", function()
    local status, h, body = http(front .. "/ipfs/" .. ROOT1 .. "/root2/root3/root4/index.html",
      { headers = { Accept = "application/vnd.ipld.raw" } })
    assert.equal(200, status)
    assert.equal("hello\n", body)
    assert.equal("*", h["access-control-allow-origin"])
    assert.equal("Accept", h["vary"])
    assert.equal("/ipfs/" .. ROOT1 .. "/root2/root3/root4/index.html?format=raw", h["content-location"])
    assert.equal('"' .. INDEX .. '.raw"', h["etag"])
    assert.equal(304, (http(front .. "/ipfs/" .. INDEX .. "?format=raw", { headers = { ["If-None-Match"] = h["etag"] } })))
    assert.equal(200, (http(front .. "/ipfs/" .. ROOT1, { method = "OPTIONS" })))
    status, h = http(front .. "/ipfs/" .. ROOT1 .. "/absent")
    assert.equal(404, status)
    assert.equal("*", h["access-control-allow-origin"])
  end)

  it("answers documents, paths through them and TARs as the gateway behind it does", function()
    local CBOR = "bafyreibs4utpgbn7uqegmd2goqz4bkyflre2ek2iwv743fhvylwi4zeeim"
    local status, h, body = http(front .. "/ipfs/" .. CBOR .. "/foo/link/bar")
    assert.equal(200, status)
    assert.equal("application/vnd.ipld.dag-cbor", h["content-type"])
    assert.equal("\xa1\x65hellorthis is not a link", body)
    assert.equal(501, (http(front .. "/ipfs/" .. CBOR .. "/foo")))
    assert.equal(404, (http(front .. "/ipfs/" .. CBOR .. "/foo/nope")))
    assert.equal(406, (http(front .. "/ipfs/" .. CBOR .. "?format=dag-json")))
    status, _, body = http(front .. "/ipfs/" .. CBOR .. "/", { headers = { Accept = "text/html" } })
    assert.equal(200, status)
    assert.truthy(body:find("&quot;banana&quot;: 10", 1, true))
    status, h, body = http(front .. "/ipfs/bafybeig6ka5mlwkl4subqhaiatalkcleo4jgnr3hqwvpmsqfca27cijp3i?format=tar")
    assert.equal(200, status)
    assert.equal("application/x-tar", h["content-type"])
    assert.truthy(body:find("I am a txt file on path with utf8\n", 1, true))
    assert.equal(500, (http(front .. "/ipfs/bafybeicaj7kvxpcv4neaqzwhrqqmdstu4dhrwfpknrgebq6nzcecfucvyu?format=tar")))
  end)

  it("answers only-if-cached from what it holds, asking upstream nothing", function()
    local cached = { headers = { ["Cache-Control"] = "only-if-cached" } }
    local path = "/ipfs/bafybeihchr7vmgjaasntayyatmp5sv6xza57iy2h4xj7g46bpjij6yhrmy/ascii.txt"
    local asked = origin:stats().requests
    assert.equal(412, (http(front .. path, cached)))
    assert.equal(asked, origin:stats().requests)
    assert.equal(200, (http(front .. path)))
    assert.equal(200, (http(front .. path, cached)))
  end)
end)
