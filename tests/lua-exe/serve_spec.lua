-- ipfsrt.serve as a trustless gateway, probed with curl on 127.0.0.1.
local ipfsrt = require "ipfsrt"

local FIX = "tests/fixtures/"

local http = require("exe").http

-- The blocks of a CAR body, verified.
local function blocks_of(body)
  local r = ipfsrt.car.reader()
  local got = r:feed(body)
  r:finish()
  return got, r:roots()
end

describe("ipfsrt.serve", function()
  local dir = os.tmpname()
  os.remove(dir)
  os.execute("mkdir -p " .. dir .. "/tree/many")
  local function put(path, data)
    local f = assert(io.open(path, "wb"))
    f:write(data)
    f:close()
  end
  local content = {}
  for i = 1, 1000 do content[i] = string.char(i % 251) end
  content = table.concat(content)
  put(dir .. "/tree/file.bin", content)
  put(dir .. "/tree/zeros.bin", string.rep("\0", 1000)) -- ten identical 100-byte chunks
  for i = 1, 40 do put(string.format("%s/tree/many/n%02d.txt", dir, i), "n" .. i) end
  local car = dir .. "/tree.car"
  -- tiny chunks and few links, so files span levels; a low threshold so 'many' is a HAMT
  local root = tostring(ipfsrt.pack(dir .. "/tree", { preset = "kubo-v1-2025", output = car,
    chunk_size = 100, max_links = 3, hamt = "entries:8", fanout = 16 }))
  local gw = ipfsrt.serve { cars = { car, FIX .. "ipld-car-mixed.car" } }
  local base = gw:url()
  local HELLO = "bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e"
  local CBOR = "bafyreicdykfpxbx3xlm556mtf4rzhzaqup7tjdw4zbcv4k7j6k64ai26ne" -- dag-cbor, in ipld-car-mixed
  local LIBP2P_KEY = tostring(ipfsrt.cid.sum("libp2p-key", "a key")) -- a codec that is neither UnixFS nor a document

  teardown(function()
    gw:stop()
    os.execute("rm -rf " .. dir)
  end)

  it("serves raw blocks with the trustless headers", function()
    local status, h, body = http(base .. "/ipfs/" .. HELLO .. "?format=raw")
    assert.equal(200, status)
    assert.equal("hello world", body)
    assert.equal("application/vnd.ipld.raw", h["content-type"])
    assert.equal('"' .. HELLO .. '.raw"', h["etag"])
    assert.equal("public, max-age=29030400, immutable", h["cache-control"])
    assert.equal("nosniff", h["x-content-type-options"])
    status, h, body = http(base .. "/ipfs/" .. HELLO, { headers = { Accept = "application/vnd.ipld.raw" } })
    assert.equal(200, status)
    assert.equal("hello world", body)
    status, h = http(base .. "/ipfs/" .. HELLO .. "?format=raw", { method = "HEAD" })
    assert.equal(200, status)
    assert.equal("11", h["content-length"])
  end)

  it("answers the bafkqaaa probe", function()
    local status, _, body = http(base .. "/ipfs/bafkqaaa?format=raw")
    assert.equal(200, status)
    assert.equal("", body)
    local s2, h, car_body = http(base .. "/ipfs/bafkqaaa?format=car")
    assert.equal(200, s2)
    assert.truthy(h["content-type"]:find("application/vnd.ipld.car", 1, true))
    local got, roots = blocks_of(car_body)
    assert.equal(0, #got) -- identity blocks are never sent
    assert.equal("bafkqaaa", tostring(roots[1]))
  end)

  it("sends a path's blocks, then the dag-scope, in DFS order", function()
    local status, h, body = http(base .. "/ipfs/" .. root .. "/file.bin?format=car&dag-scope=block")
    assert.equal(200, status)
    assert.equal("application/vnd.ipld.car; version=1; order=dfs; dups=n", h["content-type"])
    local got = blocks_of(body)
    assert.equal(2, #got) -- the root directory and the file's root
    assert.equal(root, tostring(got[1].cid))
    local _, _, all = http(base .. "/ipfs/" .. root .. "/file.bin?format=car")
    local every = blocks_of(all)
    -- 10 leaves of 100 bytes under a tree of at most 3 links per node
    local store = ipfsrt.blockstore()
    for _, b in ipairs(every) do store:put(b.cid, b.data) end
    assert.equal(content, ipfsrt.unixfs.read(store, root .. "/file.bin"))
    local _, _, entity = http(base .. "/ipfs/" .. root .. "/file.bin?format=car&dag-scope=entity")
    assert.equal(#every, #blocks_of(entity))
  end)

  it("sends only the blocks an entity-bytes range needs", function()
    local _, _, body = http(base .. "/ipfs/" .. root .. "/file.bin?format=car&entity-bytes=250:349")
    local got = blocks_of(body)
    local store = ipfsrt.blockstore()
    for _, b in ipairs(got) do store:put(b.cid, b.data) end
    assert.equal(content:sub(251, 350), ipfsrt.unixfs.read(store, root .. "/file.bin", 250, 100))
    local leaves = 0
    for _, b in ipairs(got) do if b.cid.codec == "raw" then leaves = leaves + 1 end end
    assert.equal(2, leaves)
    local _, _, tail = http(base .. "/ipfs/" .. root .. "/file.bin?format=car&entity-bytes=-100:*")
    local store2 = ipfsrt.blockstore()
    for _, b in ipairs(blocks_of(tail)) do store2:put(b.cid, b.data) end
    assert.equal(content:sub(901), ipfsrt.unixfs.read(store2, root .. "/file.bin", 900))
  end)

  it("repeats blocks each time the walk meets them when asked (dups=y)", function()
    local function raw_leaves(query, accept)
      local status, h, body = http(base .. "/ipfs/" .. root .. "/zeros.bin?format=car" .. query,
        accept and { headers = { Accept = accept } } or nil)
      assert.equal(200, status)
      local n = 0
      for _, b in ipairs(blocks_of(body)) do if b.cid.codec == "raw" then n = n + 1 end end
      return n, h["content-type"]
    end
    local once, t1 = raw_leaves("")
    assert.equal(1, once)
    assert.truthy(t1:find("dups=n", 1, true))
    local every, t2 = raw_leaves("&car-dups=y")
    assert.equal(10, every)
    assert.truthy(t2:find("dups=y", 1, true))
    assert.equal(10, (raw_leaves("", "application/vnd.ipld.car; version=1; order=dfs; dups=y")))
    assert.equal(1, (raw_leaves("&car-dups=n", "application/vnd.ipld.car; dups=y"))) -- the query wins
    -- a DAG that repeats nothing costs the same either way: no block goes out
    -- twice because the server happened to read it twice
    for _, path in ipairs({ "/file.bin", "/many", "" }) do
      local _, _, plain = http(base .. "/ipfs/" .. root .. path .. "?format=car&car-dups=n")
      local _, _, dups = http(base .. "/ipfs/" .. root .. path .. "?format=car&car-dups=y")
      if path ~= "" then assert.equal(#plain, #dups, path) end
      local first = blocks_of(dups)[1].cid
      local seen = 0
      for _, b in ipairs(blocks_of(dups)) do if b.cid == first then seen = seen + 1 end end
      assert.equal(1, seen, "root of " .. path .. " sent once")
    end
  end)

  it("walks HAMT shards on the route only", function()
    local status, _, body = http(base .. "/ipfs/" .. root .. "/many/n07.txt?format=car&dag-scope=block")
    assert.equal(200, status)
    local got = blocks_of(body)
    local store = ipfsrt.blockstore()
    for _, b in ipairs(got) do store:put(b.cid, b.data) end
    assert.equal("n7", ipfsrt.unixfs.read(store, root .. "/many/n07.txt"))
    local _, _, listing = http(base .. "/ipfs/" .. root .. "/many?format=car&dag-scope=entity")
    local shards = blocks_of(listing)
    assert.is_true(#shards > #got - 1) -- every shard of the directory, no entries
    local store2 = ipfsrt.blockstore()
    for _, b in ipairs(shards) do store2:put(b.cid, b.data) end
    assert.equal(40, #ipfsrt.unixfs.ls(store2, root .. "/many", { types = false }))
  end)

  it("answers bad requests with 4xx and never crashes", function()
    local cases = {
      { "/ipfs/not-a-cid?format=raw", 400 },
      { "/ipfs/" .. HELLO .. "/x?format=raw", 404 }, -- a path through a file
      { "/ipfs/" .. root .. "/missing?format=raw", 404 },
      { "/ipfs/" .. root .. "?format=car&dag-scope=nope", 400 },
      { "/ipfs/" .. root .. "/file.bin?format=car&entity-bytes=a:b", 400 },
      { "/ipfs/" .. root .. "?format=car&car-version=2", 400 },
      { "/ipfs/" .. tostring(ipfsrt.cid.sum("raw", "absent")) .. "?format=raw", 404 },
      { "/ipfs/" .. root .. "/missing?format=car", 404 },
      { "/ipfs/" .. root .. "/../../../../etc/passwd?format=car", 404 },
      { "/ipfs/" .. root .. "/file.bin/deeper?format=car", 404 },
      { "/ipfs/" .. HELLO .. "?format=dag-json", 406 },
      { "/etc/passwd", 404 },
      -- a NUL would cut the decoded path or value short: refused, not answered for the prefix
      { "/ipfs/" .. root .. "/file.bin%00.html", 400 },
      { "/ipfs/" .. root .. "/file.bin?format=car&dag-scope=entity%00x", 400 },
      -- numbers are digits: no signs, no spaces
      { "/ipfs/" .. root .. "/file.bin?format=car&entity-bytes=%2B5:%2B10", 400 },
      { "/ipfs/" .. root .. "/file.bin?format=car&entity-bytes=%205:10", 400 },
      -- a DAG-CBOR document is walked by its keys: one it lacks is not there
      { "/ipfs/" .. CBOR .. "/a/b?format=car", 404 },
      { "/ipfs/" .. CBOR .. "?format=car", 200 },
      { "/ipfs/" .. CBOR, 200 },
      -- a path inside a codec the gateway cannot walk: the client's mistake (its block alone is fine)
      { "/ipfs/" .. LIBP2P_KEY .. "/a?format=car", 400 },
      { "/ipfs/" .. LIBP2P_KEY .. "/a", 400 },
    }
    for _, c in ipairs(cases) do
      local status = http(base .. c[1])
      assert.equal(c[2], status, c[1])
    end
    -- dot segments and encoded slashes, sent as written: an upstream would resolve them
    -- outside /ipfs/CID, so they are refused before any lookup
    for _, p in ipairs { "/../../../../etc/passwd?format=car", "/./file.bin", "/sub/../file.bin?format=raw",
                         "/%2E%2E/x", "/a%2Fb", "/a%2fb?format=car" } do
      local status, _, body = http(base .. "/ipfs/" .. root .. p, { as_is = true })
      assert.equal(400, status, p)
      assert.truthy(body:find("encoded slashes", 1, true), p)
    end
    assert.equal(405, (http(base .. "/ipfs/" .. HELLO .. "?format=raw", { method = "POST" })))
    local huge = string.rep("x", 200000)
    local status = http(base .. "/ipfs/" .. HELLO .. "?format=raw", { headers = { ["X-Big"] = huge } })
    assert.is_true(status >= 400 and status < 500)
    -- still serving
    assert.equal(200, (http(base .. "/ipfs/" .. HELLO .. "?format=raw")))
  end)

  it("refuses to answer with a CAR that lacks a block", function()
    -- a CAR holding a directory but not the file it links to
    local store_root, store = ipfsrt.pack(dir .. "/tree", { preset = "ipfs-car" })
    local partial = dir .. "/partial.car"
    do
      local w <close> = ipfsrt.car.writer(partial, { store_root })
      w:put(store_root, store:get(store_root))
    end
    local gw2 <close> = ipfsrt.serve { cars = { partial } }
    local status, _, body = http(gw2:url() .. "/ipfs/" .. tostring(store_root) .. "?format=car")
    assert.equal(404, status)
    assert.truthy(body:find("not_found", 1, true))
  end)

  it("serves the deserialized form: file bytes with Range, listings in HTML and JSON", function()
    local status, h, body = http(base .. "/ipfs/" .. root .. "/file.bin")
    assert.equal(200, status)
    assert.equal(content, body)
    assert.equal("bytes", h["accept-ranges"])
    status, h, body = http(base .. "/ipfs/" .. root .. "/file.bin", { headers = { Range = "bytes=250-349" } })
    assert.equal(206, status)
    assert.equal(content:sub(251, 350), body)
    assert.equal("bytes 250-349/1000", h["content-range"])
    status, _, body = http(base .. "/ipfs/" .. root .. "/file.bin", { headers = { Range = "bytes=-3" } })
    assert.equal(206, status)
    assert.equal(content:sub(998), body)
    status = http(base .. "/ipfs/" .. root .. "/file.bin", { headers = { Range = "bytes=5000-" } })
    assert.equal(416, status)
    -- a directory's URL ends with a slash, so that relative links resolve inside it
    status, h = http(base .. "/ipfs/" .. root .. "/many")
    assert.equal(301, status)
    assert.equal("/ipfs/" .. root .. "/many/", h["location"])
    status, h, body = http(base .. "/ipfs/" .. root .. "/many/", { headers = { Accept = "application/json" } })
    assert.equal(200, status)
    assert.equal("application/json", h["content-type"])
    assert.equal('"' .. h["x-ipfs-roots"]:match("([^,]+)$") .. '"', h["etag"])
    local list = ipfsrt.json.decode(body)
    assert.equal(40, #list)
    assert.equal("file", list[1].type)
    for _, accept in ipairs { "text/html,*/*;q=0.8", "*/*" } do -- a browser's, or a client that does not ask
      status, h, body = http(base .. "/ipfs/" .. root .. "/many/", { headers = { Accept = accept } })
      assert.equal(200, status) -- the index: every entry linked by its full path
      assert.equal("text/html; charset=utf-8", h["content-type"])
      assert.truthy(h["etag"]:find('"DirIndex-', 1, true))
      assert.equal("public, max-age=604800, stale-while-revalidate=2678400", h["cache-control"])
    end
    assert.truthy(body:find('<a href="/ipfs/' .. root .. '/many/n07.txt">n07.txt</a>', 1, true), body)
    local links = 0 -- beside the path's steps and the way up
    for _ in body:gmatch('<a href="/ipfs/' .. root .. '/many/n%d%d%.txt">') do links = links + 1 end
    assert.equal(40, links)
    assert.truthy(body:find('<a href="/ipfs/' .. root .. '/many/..">..</a>', 1, true))
    status, _, body = http(base .. "/ipfs/" .. HELLO)
    assert.equal(200, status)
    assert.equal("hello world", body)
    assert.equal(406, (http(base .. "/ipfs/" .. HELLO, { headers = { Accept = "application/vnd.ipld.dag-json" } })))
  end)

  it("counts what it served", function()
    local st = gw:stats()
    assert.is_true(st.requests > 20)
    assert.is_true(st.status_2xx > 5 and st.status_4xx > 10)
    assert.is_true(st.bytes > 1000)
  end)

  it("refuses a corrupt CAR at start", function()
    local data = io.open(FIX .. "ipld-car-mixed.car", "rb"):read("a")
    local at = data:find("hello world", 1, true)
    local bad = dir .. "/bad.car"
    put(bad, data:sub(1, at - 1) .. "j" .. data:sub(at + 1))
    local ok, err = pcall(ipfsrt.serve, { cars = { bad } })
    assert.is_false(ok)
    assert.equal("hash_mismatch", err.code)
  end)
end)

describe("ipfsrt.serve fault injection", function()
  local car = FIX .. "ipld-car-mixed.car"
  local ROOT = "bafyreicdykfpxbx3xlm556mtf4rzhzaqup7tjdw4zbcv4k7j6k64ai26ne"
  local BIG = "bafkreihvigducamhmjk3joxtu44xpdiezoolujp7uoftbpa7xcyhahzkiu" -- 3000 bytes
  local function with_faults(faults, fn)
    local gw <close> = ipfsrt.serve { cars = { car }, faults = faults }
    fn(gw:url(), gw)
  end

  it("tamper: a byte inside the block flips, and verification catches it", function()
    with_faults({ tamper = 1, seed = 1 }, function(base)
      local status, _, body = http(base .. "/ipfs/" .. BIG .. "?format=raw")
      assert.equal(200, status)
      assert.equal(3000, #body)
      local cid = ipfsrt.cid.parse(BIG)
      assert.is_false(pcall(cid.verify, cid, body))
      local _, _, carbody = http(base .. "/ipfs/" .. BIG .. "?format=car")
      local r = ipfsrt.car.reader()
      local ok, err = pcall(r.feed, r, carbody)
      assert.is_false(ok)
      assert.equal("hash_mismatch", err.code)
    end)
  end)

  it("fail: 500, 502, 503 or 429 with Retry-After", function()
    with_faults({ fail = 1, seed = 2 }, function(base)
      local seen = {}
      for _ = 1, 12 do
        local status, h = http(base .. "/ipfs/" .. BIG .. "?format=raw")
        assert.truthy(({ [500] = 1, [502] = 1, [503] = 1, [429] = 1 })[status], tostring(status))
        seen[status] = true
        if status ~= 500 then assert.equal("1", h["retry-after"]) end
      end
      local kinds = 0
      for _ in pairs(seen) do kinds = kinds + 1 end
      assert.is_true(kinds >= 2)
    end)
  end)

  it("truncate: the body stops inside a block", function()
    with_faults({ truncate = 1 }, function(base)
      local _, _, body, code = http(base .. "/ipfs/" .. BIG .. "?format=raw")
      assert.is_true(code ~= 0)
      assert.is_true(#body < 3000)
      local _, _, carbody = http(base .. "/ipfs/" .. ROOT .. "?format=car")
      local r = ipfsrt.car.reader()
      local ok, err = pcall(function() r:feed(carbody); r:finish() end)
      assert.is_false(ok)
      assert.equal("truncated", err.code)
    end)
  end)

  it("reset: the connection drops without an answer", function()
    with_faults({ reset = 1 }, function(base)
      local status, _, _, code = http(base .. "/ipfs/" .. BIG .. "?format=raw")
      assert.is_nil(status)
      assert.is_true(code ~= 0)
    end)
  end)

  it("wrong-block: a valid block of another CID", function()
    with_faults({ wrong_block = 1, seed = 3 }, function(base)
      local status, _, body = http(base .. "/ipfs/" .. BIG .. "?format=raw")
      assert.equal(200, status)
      local cid = ipfsrt.cid.parse(BIG)
      assert.is_false(pcall(cid.verify, cid, body))
      local _, _, carbody = http(base .. "/ipfs/" .. BIG .. "?format=car")
      local got = ipfsrt.car.reader():feed(carbody) -- every block in it is valid ...
      assert.equal(1, #got)
      assert.is_false(tostring(got[1].cid) == BIG) -- ... but not the one asked for
    end)
  end)

  it("delay and slow: answers come late and bodies slowly", function()
    with_faults({ delay_ms = 300, delay_jitter_ms = 50 }, function(base)
      local t0 = ipfsrt.clock()
      assert.equal(200, (http(base .. "/ipfs/" .. BIG .. "?format=raw")))
      assert.is_true(ipfsrt.clock() - t0 >= 0.3)
    end)
    with_faults({ slow = 6000 }, function(base)
      local t0 = ipfsrt.clock()
      local _, _, body = http(base .. "/ipfs/" .. BIG .. "?format=raw")
      assert.equal(3000, #body)
      assert.is_true(ipfsrt.clock() - t0 >= 0.4) -- 3000 bytes at 6000 B/s
    end)
  end)

  it("delays requests without holding a thread each, so they wait side by side", function()
    local cids = {}
    for cid in ipfsrt.car.open(FIX .. "ipld-car-mixed.car"):blocks() do cids[#cids + 1] = cid end
    local slow = ipfsrt.serve { cars = { FIX .. "ipld-car-mixed.car" }, threads = 2, faults = { delay_ms = 300 } }
    local c = ipfsrt.client { gateways = { slow:url() }, concurrency = 16, cache = false }
    c:blocks(cids)
    local st = slow:stats()
    slow:stop()
    -- a thread held per delayed request would keep at most 2 under way at once
    assert.is_true(#cids >= 6)
    assert.is_true(st.peak_in_flight > 2, string.format("%d of %d delayed requests at once", st.peak_in_flight, #cids))
    assert.equal(st.requests, st.faults)
  end)

  it("repeats the same faults for the same seed, and logs each request", function()
    local function run(seed, log)
      local statuses = {}
      local gw <close> = ipfsrt.serve { cars = { car }, log = log,
        faults = { fail = 0.5, tamper = 0.3, seed = seed } }
      for i = 1, 16 do
        local status, _, body = http(gw:url() .. "/ipfs/" .. BIG .. "?format=raw")
        statuses[i] = tostring(status) .. ":" .. ipfsrt.multihash.sum("sha2-256", body)
      end
      return table.concat(statuses, ","), gw:stats()
    end
    local log = os.tmpname()
    local a, st = run(7, log)
    local b = run(7)
    local c = run(8)
    assert.equal(a, b)
    assert.is_false(a == c)
    assert.is_true(st.faults > 0)
    local lines, faulted = 0, 0
    for line in io.lines(log) do
      lines = lines + 1
      assert.truthy(line:match("^%d+%.%d+ GET /ipfs/" .. BIG .. " format=raw %d+ %d+ %S+$"), line)
      if line:find("fail", 1, true) or line:find("tamper", 1, true) then faulted = faulted + 1 end
    end
    assert.equal(16, lines)
    assert.equal(st.faults, faulted)
    os.remove(log)
  end)
end)
