-- client:get_many: many reads in flight on one client, against ipfsrt.serve
-- gateways on 127.0.0.1 (honest, lying, and one that knows nothing).
local ipfsrt = require "ipfsrt"
local exe = require "exe"
local put, bytes = exe.put, exe.bytes

local function requests(c)
  local n = 0
  for _, g in ipairs(c:stats()) do n = n + g.requests end
  return n
end

describe("client:get_many", function()
  local dir = os.tmpname()
  os.remove(dir)
  os.execute("mkdir -p " .. dir .. "/tree/chunks " .. dir .. "/other")
  local content, paths = {}, {}
  for i = 1, 40 do
    local name = string.format("0.%d", i)
    content[i] = bytes(3000 + i, i)
    put(dir .. "/tree/chunks/" .. name, content[i])
  end
  local big = bytes(300000, 7) -- a root node over five 64 KiB leaves
  put(dir .. "/tree/big.bin", big)
  put(dir .. "/other/x", "another DAG")
  local car = dir .. "/tree.car"
  local root = tostring(ipfsrt.pack(dir .. "/tree", { preset = "kubo-v1-2025", output = car,
    chunk_size = 65536, hamt = "entries:8", fanout = 16 }))
  ipfsrt.pack(dir .. "/other", { preset = "kubo-v1-2025", output = dir .. "/other.car" })
  for i = 1, 40 do paths[i] = string.format("ipfs://%s/chunks/0.%d", root, i) end
  local gateway, stop_gateways = exe.gateways({ car })
  local honest = gateway()

  teardown(function()
    stop_gateways()
    os.execute("rm -rf " .. dir)
  end)

  it("reads every path of a sharded directory, fetching each shard once", function()
    local c = ipfsrt.client { gateways = { honest:url() } }
    local all = { table.unpack(paths) }
    all[#all + 1] = "ipfs://" .. root .. "/big.bin"
    local results, errors = c:get_many(all)
    assert.same({}, errors)
    for i = 1, 40 do assert.equal(content[i], results[i]) end
    assert.equal(big, results[41])
    -- one CAR request for the directory (root, shards), one block request per
    -- chunk, and big.bin's path, root node and leaves by CID
    local first = requests(c)
    assert.is_true(first <= 1 + 40 + 1 + 1 + 5, "requests: " .. first)
    -- everything is cached now: no request at all
    local again = c:get_many(paths)
    for i = 1, 40 do assert.equal(content[i], again[i]) end
    assert.equal(first, requests(c))
    c:close()
  end)

  -- Over HTTP/1.1 from far away (10 ms and more), a shared directory's listing
  -- comes through one connection's slow start, and a connection carries one
  -- request at a time: it is asked for beside the reads, not before them.
  -- Reads let in meanwhile (as many as the gateway takes at once) guess:
  -- a plain GET of the file, whose bytes count only once they hash to the
  -- block the listing names; those let in once it is listed ask for their
  -- files by CID.
  local function asked(url, list, first, opts)
    opts = opts or {}
    local c = ipfsrt.client { gateways = type(url) == "table" and url or { url }, concurrency = opts.concurrency }
    assert.is_truthy(c:get(first)) -- the gateway heard from: HTTP/1.1, and how far
    local before = requests(c)
    local results, errors = c:get_many(list)
    assert.same({}, errors)
    assert.equal(#list, #results)
    local n = requests(c) - before
    c:close()
    return n, results
  end
  -- the requests in a gateway's log, by kind
  local function kinds(log, dir_pattern)
    local k = { listing = 0, guess = 0, with_shards = 0, by_cid = 0 }
    for line in io.lines(log) do
      local path, query = line:match("^%S+ GET (%S+) (%S+)")
      if not path then -- another method, or none
      elseif path:match(dir_pattern .. "$") and query:find("dag-scope=entity", 1, true) then k.listing = k.listing + 1
      elseif path:match(dir_pattern .. "/[^/]+$") and query == "-" then k.guess = k.guess + 1
      elseif path:match(dir_pattern .. "/[^/]+$") then k.with_shards = k.with_shards + 1
      elseif query == "format=raw" then k.by_cid = k.by_cid + 1 end
    end
    return k
  end
  -- n files d/1..n (content_of(i)) packed with preset, read from a gateway
  -- 35 ms away (d/1 first, alone): the requests, the results, the log's kinds
  local function read_far(name, n, content_of, preset)
    os.execute("mkdir -p " .. dir .. "/" .. name .. "/d")
    for i = 1, n do put(string.format("%s/%s/d/%d", dir, name, i), content_of(i)) end
    local packed = dir .. "/" .. name .. ".car"
    local r = tostring(ipfsrt.pack(dir .. "/" .. name, { preset = preset, output = packed, hamt = "entries:8" }))
    local list = {}
    for i = 1, n do list[i] = string.format("ipfs://%s/d/%d", r, i) end
    local log = dir .. "/" .. name .. ".log"
    local logged = ipfsrt.serve { cars = { packed }, faults = { delay_ms = 35 }, log = log }
    local count, results = asked(logged:url(), list, list[1])
    logged:stop()
    return count, results, kinds(log, "/d")
  end

  it("asks far HTTP/1.1 gateways for the shared directory beside the reads, which guess", function()
    local far = gateway { delay_ms = 40 }
    local n, results = asked(far:url(), paths, "ipfs://" .. root .. "/big.bin")
    assert.equal(1 + 40, n) -- the listing, and a guess a read: all 40 let in before it came
    for i = 1, 40 do assert.equal(content[i], results[i]) end
    -- one request at a time, fixed: the listing beside one read at a time
    local got, errs = select(2, asked(far:url(), paths, "ipfs://" .. root .. "/big.bin", { concurrency = 1 }))
    assert.same({}, errs or {})
    for i = 1, 40 do assert.equal(content[i], got[i]) end
    assert.equal(41, (asked(honest:url(), paths, "ipfs://" .. root .. "/big.bin"))) -- the directory, then a block a chunk
    local k
    n, results, k = read_far("wide", 600, tostring, "kubo-v1-2025")
    assert.equal("600", results[600])
    assert.equal(1 + 599, n) -- the listing, and one request a read (the first one is cached)
    assert.equal(1, k.listing)
    assert.equal(1, k.with_shards) -- list[1], read alone first: no read of the batch carried its shards
    -- at most what the gateway takes at once guessed, every guess hit, the
    -- rest asked by CID
    assert.is_true(k.guess >= 2 and k.guess < 300, "guesses: " .. k.guess)
    assert.equal(599, k.guess + k.by_cid)
  end)

  it("uses a guess only when its bytes hash to the block the listing names", function()
    -- tampered answers (guesses, the listing, blocks) beside honest ones:
    -- every read still right
    local lies = dir .. "/liar.log"
    local liar = ipfsrt.serve { cars = { car }, faults = { delay_ms = 30, tamper = 0.5, seed = 11 }, log = lies }
    local far = gateway { delay_ms = 30 }
    local _, results = asked({ liar:url(), far:url() }, paths, "ipfs://" .. root .. "/big.bin")
    liar:stop()
    for i = 1, 40 do assert.equal(content[i], results[i]) end
    local tampered = 0
    for line in io.lines(lies) do
      if line:match("^%S+ GET %S+/chunks/[^/ ]+ %- 200 %d+ %S*tamper") then tampered = tampered + 1 end
    end
    assert.is_true(tampered > 0, "no guess was tampered with")
    -- files whose blocks are dag-pb nodes (Kubo's old default): no guess is
    -- the file's block, each read asks for its own by CID, later reads guess
    -- no more
    local k
    _, results, k = read_far("v0", 40, function(i) return content[i] end, "kubo")
    for i = 1, 40 do assert.equal(content[i], results[i]) end
    assert.equal(1, k.listing)
    assert.equal(1, k.with_shards) -- list[1], read alone first
    assert.equal(k.guess, k.by_cid) -- each guess missed, and its read asked by CID
    assert.is_true(k.guess >= 1 and k.guess <= 39, "guesses: " .. k.guess)
  end)

  it("reports each read once, as it completes, with its position and path", function()
    local c = ipfsrt.client { gateways = { honest:url() } }
    local seen, count = {}, 0
    c:get_many(paths, function(i, path, data, err)
      assert.is_nil(err)
      assert.is_nil(seen[i])
      seen[i] = true
      count = count + 1
      assert.equal(paths[i], path)
      assert.equal(content[i], data)
    end)
    assert.equal(40, count)
    c:close()
  end)

  it("fails one missing path among many and reads the rest", function()
    local c = ipfsrt.client { gateways = { honest:url() } }
    local list = { paths[1], "ipfs://" .. root .. "/chunks/9.9", paths[2] }
    local results, errors = c:get_many(list)
    assert.equal(content[1], results[1])
    assert.equal(content[2], results[3])
    assert.is_nil(results[2])
    assert.equal("not_found", errors[2].code)
    assert.truthy(errors[2].message:find("9.9", 1, true))
    c:close()
  end)

  it("resolves a shared directory's entries from one listing, and still fails what it lacks", function()
    local c = ipfsrt.client { gateways = { honest:url() } }
    local list = { table.unpack(paths) }
    list[#list + 1] = "ipfs://" .. root .. "/chunks/9.9"          -- not in the listing
    list[#list + 1] = "ipfs://" .. root .. "/chunks/0.1/x"        -- through a file
    local results, errors = c:get_many(list)
    for i = 1, 40 do assert.equal(content[i], results[i]) end
    assert.equal("not_found", errors[41].code)
    assert.truthy(errors[41].message:find("9.9", 1, true))
    assert.equal("not_directory", errors[42].code)
    -- '..' would be resolved by a gateway (or libcurl) outside the root: refused before any request
    local ok, err = pcall(c.get_many, c, { "ipfs://" .. root .. "/chunks/../big.bin" })
    assert.is_false(ok)
    assert.equal("bad_argument", err.code)
    assert.truthy(err.message:find("'..' segments", 1, true), err.message)
    c:close()
  end)

  it("never hands out what a lying gateway sent", function()
    local liar = gateway { tamper = 1, seed = 3 }
    local wrong = gateway({ wrong_block = 1, seed = 4 }, { car, dir .. "/other.car" })
    local c = ipfsrt.client { gateways = { liar:url(), wrong:url(), honest:url() }, retries = 1 }
    local results, errors = c:get_many(paths)
    assert.same({}, errors)
    for i = 1, 40 do assert.equal(content[i], results[i]) end
    local stats = c:stats()
    assert.is_true(stats[1].verify_failures > 0)
    assert.is_true(stats[2].verify_failures > 0)
    assert.equal(0, stats[3].verify_failures)
    c:close()
  end)

  it("says which path no gateway could serve", function()
    local empty = gateway({}, { dir .. "/other.car" })
    local c = ipfsrt.client { gateways = { empty:url() }, retries = 1 }
    local _, errors = c:get_many({ paths[5] })
    assert.equal("unavailable", errors[1].code) -- every gateway answered 404: that proves nothing
    c:close()
  end)

  it("stops when the callback fails, and the client goes on working", function()
    local c = ipfsrt.client { gateways = { honest:url() } }
    local count = 0
    local ok, err = pcall(c.get_many, c, paths, function()
      count = count + 1
      if count == 3 then error("enough") end
    end)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("enough"))
    assert.equal(3, count)
    assert.equal(content[7], c:get(paths[7]))
    c:close()
    -- far over HTTP/1.1: stopped at the first read, with guesses and the
    -- listing's blocks still in the batch
    local far = ipfsrt.client { gateways = { gateway({ delay_ms = 40 }):url() } }
    assert.is_truthy(far:get("ipfs://" .. root .. "/big.bin"))
    ok, err = pcall(far.get_many, far, paths, function() error("enough") end)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("enough"))
    assert.equal(content[9], far:get(paths[9]))
    far:close()
  end)

  it("reads through plain GETs when unverified", function()
    local c = ipfsrt.client { gateways = { honest:url() }, verify = false }
    local results, errors = c:get_many({ paths[1], paths[2] })
    assert.same({}, errors)
    assert.equal(content[1], results[1])
    assert.equal(content[2], results[2])
    c:close()
  end)
end)
