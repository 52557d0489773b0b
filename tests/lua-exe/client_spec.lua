-- ipfsrt.client and the get/ls/stat subcommands against ipfsrt.serve gateways on
-- 127.0.0.1: honest ones, and ones that lie, fail, break off or dawdle.
local ipfsrt = require "ipfsrt"

local exe = require "exe"
local run, sh_quote, put, bytes = exe.run, exe.sh_quote, exe.put, exe.bytes

local function exists(path) return os.execute("test -e " .. sh_quote(path)) == true end


describe("ipfsrt.client", function()
  local dir = os.tmpname()
  os.remove(dir)
  os.execute("mkdir -p " .. dir .. "/tree/many " .. dir .. "/other")
  local big = bytes(300000, 7)          -- five 64 KiB raw leaves under one node
  put(dir .. "/tree/big.bin", big)
  put(dir .. "/tree/hello.txt", "hello\n")
  for i = 1, 20 do put(string.format("%s/tree/many/n%02d.txt", dir, i), "entry " .. i) end
  put(dir .. "/other/decoy.bin", bytes(200000, 99))
  local car, other_car = dir .. "/tree.car", dir .. "/other.car"
  local root = tostring(ipfsrt.pack(dir .. "/tree", { preset = "kubo-v1-2025", output = car,
    chunk_size = 65536, hamt = "entries:8", fanout = 16 }))
  ipfsrt.pack(dir .. "/other", { preset = "kubo-v1-2025", output = other_car, chunk_size = 65536 })
  local big_url = "ipfs://" .. root .. "/big.bin"

  local gateway, stop_gateways = exe.gateways({ car })
  local honest = gateway()

  teardown(function()
    stop_gateways()
    os.execute("rm -rf " .. dir)
  end)

  it("reads files, ranges, listings and whole trees, verified", function()
    local c = ipfsrt.client { gateways = { honest:url() } }
    assert.equal(big, c:get(big_url))
    assert.equal(big:sub(70001, 140000), c:get(big_url, 70000, 70000))
    assert.equal("hello\n", c:get("ipfs://" .. root .. "/hello.txt"))
    local info = c:stat(big_url)
    assert.equal("file", info.type)
    assert.equal(#big, info.size)
    local names = {}
    for _, e in ipairs(c:ls("ipfs://" .. root .. "/many")) do
      names[#names + 1] = e.name
      assert.equal("file", e.type)
    end
    table.sort(names)
    assert.equal(20, #names)
    assert.equal("n01.txt", names[1])
    assert.is_nil(c:ls("/ipfs/" .. root, { types = false })[1].type)
    c:save("ipfs://" .. root, dir .. "/out")
    assert.is_true(os.execute("diff -r " .. dir .. "/tree " .. dir .. "/out"))
    local chunks = {}
    c:get(big_url, function(piece) chunks[#chunks + 1] = piece end)
    assert.equal(big, table.concat(chunks))
  end)

  it("needs one round trip per read, and none for what it has resolved before", function()
    local gw = gateway({})
    local c = ipfsrt.client { gateways = { gw:url() } }
    c:get("ipfs://" .. root .. "/many/n03.txt")
    assert.equal(1, gw:stats().requests) -- the path's blocks and the file in one CAR
    c:get("ipfs://" .. root .. "/many/n04.txt")
    assert.equal(2, gw:stats().requests) -- the HAMT came from the cache: the file by CID
    c:get(big_url, 100, 10)
    assert.equal(3, gw:stats().requests) -- a range: one CAR with entity-bytes
    c:get(big_url, 200000, 10)
    assert.equal(4, gw:stats().requests) -- the file's root is cached: one more for the leaf
    c:stat("ipfs://" .. root .. "/many/n03.txt")
    assert.equal(4, gw:stats().requests) -- answered from the cache
    c:ls("ipfs://" .. root .. "/many", { types = false })
    assert.equal(5, gw:stats().requests) -- the HAMT's other shards, in one CAR
    c:ls("ipfs://" .. root .. "/many", { types = false })
    assert.equal("entry 3", c:get("ipfs://" .. root .. "/many/n03.txt"))
    assert.equal(5, gw:stats().requests)
  end)

  it("reads a large file by fetching its blocks concurrently across gateways", function()
    local large = bytes(9 * 1024 * 1024 + 5, 11)
    os.execute("mkdir -p " .. dir .. "/large")
    put(dir .. "/large/large.bin", large)
    local large_car = dir .. "/large.car"
    local lroot = tostring(ipfsrt.pack(dir .. "/large", { preset = "kubo-v1-2025", output = large_car,
      chunk_size = 262144, max_links = 8 })) -- three levels of dag-pb above the leaves
    local a, b = gateway({}, { large_car }), gateway({ tamper = 0.5, seed = 5 }, { large_car })
    local c = ipfsrt.client { gateways = { a:url(), b:url() }, policy = "round_robin", cache = false }
    assert.equal(large, c:get("ipfs://" .. lroot .. "/large.bin"))
    local st = c:stats()
    assert.is_true(st[1].ok > 10 and st[2].ok > 10, "both gateways served blocks")
    assert.is_true(st[2].verify_failures > 0, "tampered blocks were caught")
    assert.equal(large:sub(5000001, 5000100), c:get("ipfs://" .. lroot .. "/large.bin", 5000000, 100))
  end)

  it("fetches blocks by CID, one or many at once", function()
    local c = ipfsrt.client { gateways = { honest:url() }, cache = false }
    local entries = c:ls("ipfs://" .. root .. "/many")
    local cids = {}
    for i, e in ipairs(entries) do cids[i] = tostring(e.cid) end
    local got = c:blocks(cids)
    for i, e in ipairs(entries) do assert.equal("entry " .. e.name:match("%d+") + 0, got[i]) end
    local seen = 0
    c:blocks(cids, function(i, cid, data)
      assert.equal(cids[i], tostring(cid))
      seen = seen + 1
    end)
    assert.equal(#cids, seen)
    assert.equal(got[1], c:block(cids[1]))
  end)

  it("re-fetches tampered, wrong and truncated answers from an honest gateway", function()
    for _, case in ipairs { "tamper", "wrong_block", "truncate", "reset", "wrong_dag", "wrong_dag alone" } do
      local fault = case:match("^%S+")
      -- with one root served, wrong-dag sends a block of its own
      local bad = gateway({ [fault] = 1 }, case == "wrong_dag alone" and { car } or { car, other_car })
      local c = ipfsrt.client { gateways = { bad:url(), honest:url() } }
      assert.equal(big, c:get(big_url), fault)
      local st = c:stats()
      assert.equal(1, st[1].failed, fault)
      assert.equal(0, st[2].failed, fault)
      if fault == "tamper" then assert.equal(1, st[1].errors.hash_mismatch) end
      if fault == "wrong_block" or fault == "wrong_dag" then assert.equal(1, st[1].errors.wrong_dag) end
      if fault == "truncate" or fault == "reset" then assert.equal(1, st[1].errors.truncated) end
    end
  end)

  it("rejects a valid CAR of a different file, and fails when every gateway lies", function()
    local liar = gateway({ wrong_dag = 1 }, { other_car, car })
    local c = ipfsrt.client { gateways = { liar:url() }, retries = 1 }
    local ok, err = pcall(c.get, c, big_url)
    assert.is_false(ok)
    assert.equal("fetch_failed", err.code)
    assert.truthy(err.message:find(liar:url(), 1, true))
    assert.truthy(err.message:find("lacks block " .. root, 1, true))
    assert.equal(1, c:stats()[1].verify_failures)
    local tamperer = gateway({ tamper = 1 })
    c = ipfsrt.client { gateways = { liar:url(), tamperer:url() } }
    ok, err = pcall(c.stat, c, big_url)
    assert.is_false(ok)
    assert.truthy(err.message:find(liar:url(), 1, true))
    assert.truthy(err.message:find(tamperer:url(), 1, true))
    assert.truthy(err.message:find("hash mismatch", 1, true))
    -- raw blocks: a block that does not hash to its CID is never returned
    local blk = ipfsrt.client { gateways = { tamperer:url() }, retries = 1 }
    ok, err = pcall(blk.block, blk, "bafkreicysg23kiwv34eg2d7qweipxwosdo2py4ldv42nbauguluen5v6am")
    assert.is_false(ok)
    assert.truthy(err.message:find("hash", 1, true))
  end)

  it("retries 5xx and 429 with backoff", function()
    local flaky = gateway({ fail = 0.5, seed = 3 })
    local c = ipfsrt.client { gateways = { flaky:url() }, retries = 6, cache = false }
    for _ = 1, 4 do assert.equal(big, c:get(big_url)) end
    local failed = c:stats()[1].failed
    assert.is_true(failed > 0)
    local down = gateway({ fail = 1 })
    c = ipfsrt.client { gateways = { down:url() }, retries = 2 }
    local t0 = ipfsrt.clock()
    local ok, err = pcall(c.stat, c, big_url)
    assert.is_false(ok)
    assert.equal(3, down:stats().requests) -- the first round and two retries
    assert.is_true(ipfsrt.clock() - t0 >= 0.5) -- paused between rounds (Retry-After or backoff)
    assert.truthy(err.message:find("HTTP", 1, true))
  end)

  it("gives up on a gateway that does not answer in time", function()
    local stuck = gateway({ delay_ms = 3000 })
    local c = ipfsrt.client { gateways = { stuck:url(), honest:url() }, timeout = 0.3 }
    assert.equal("hello\n", c:get("ipfs://" .. root .. "/hello.txt"))
    assert.equal(1, c:stats()[1].errors.timeout) -- cut at the timeout, not waited out (counts, not seconds)
    assert.equal(1, c:stats()[2].ok)
    c = ipfsrt.client { gateways = { stuck:url() }, timeout = 0.3, retries = 1 }
    local ok, err = pcall(c.stat, c, big_url)
    assert.is_false(ok)
    assert.truthy(err.message:find("timed out: no response within 300 ms", 1, true))
  end)

  it("tells its progress function every second that nothing came, while it waits", function()
    local slow = gateway({ delay_ms = 2500 })
    local c = ipfsrt.client { gateways = { slow:url() }, cache = false }
    local silent = 0
    c:on_progress(function(done) if done == 0 then silent = silent + 1 end end)
    assert.equal("hello\n", c:get("ipfs://" .. root .. "/hello.txt"))
    assert.is_true(silent >= 2, "heartbeats before the first byte: " .. silent)
    c:close()
  end)

  it("knows a tree's total while saving it, from the root's link sizes", function()
    local paced = gateway({ slow = 4000000 }) -- on loopback the whole CAR would come in one read
    for _, save in ipairs({ "save", "save_car" }) do
      local c = ipfsrt.client { gateways = { paced:url() }, cache = false }
      local last_done, expected = 0, nil
      c:on_progress(function(done, total) last_done, expected = done, total end, 0)
      local dest = dir .. "/total-" .. save
      c[save](c, "ipfs://" .. root, dest)
      assert.is_true(expected and expected > 0, save)
      -- the total counts blocks, the bytes counted carry the CAR's framing as well
      assert.is_true(expected <= last_done and last_done < expected * 1.05,
        string.format("%s: %d of %s", save, last_done, tostring(expected)))
      os.execute("rm -rf " .. dest)
      c:close()
    end
  end)

  it("gives up once no gateway has answered for give_up seconds, all attempts together", function()
    local mute = gateway({ delay_ms = 6000 })
    local c = ipfsrt.client { gateways = { mute:url() }, cache = false, timeout = 30, give_up = 1 }
    local ok, err = pcall(c.get, c, "ipfs://" .. root .. "/hello.txt")
    assert.is_false(ok)
    assert.truthy(err.message:find("no gateway answered for 1 s", 1, true), err.message) -- give_up, not the 30 s timeout
    assert.equal(1, mute:stats().requests)
    assert.truthy(err.message:find(mute:url(), 1, true), err.message)
    c:close()
    -- what the caller does between reads is not the gateways' silence
    local slow = gateway({ delay_ms = 200 })
    c = ipfsrt.client { gateways = { slow:url() }, cache = false, give_up = 0.5 }
    local got = {}
    c:get(big_url, function(piece)
      local until_t = ipfsrt.clock() + 0.3
      while ipfsrt.clock() < until_t do end
      got[#got + 1] = piece
    end)
    assert.equal(big, table.concat(got))
    c:close()
    local code, _, cli_err = run({ "get", "-q", "--give-up", "1", "--gateway", mute:url(),
      "ipfs://" .. root .. "/hello.txt" })
    assert.is_not.equal(0, code)
    assert.truthy(cli_err:find("--give-up S waits longer", 1, true), cli_err)
  end)

  it("asks the next gateway for the path, not the root's whole DAG, when the first fails early", function()
    local down = gateway({ fail = 1 })
    local fresh = gateway({})
    local c = ipfsrt.client { gateways = { down:url(), fresh:url() }, cache = false, policy = "failover" }
    local dest = dir .. "/hello-failover.txt"
    c:save("ipfs://" .. root .. "/hello.txt", dest)
    assert.equal("hello\n", io.open(dest):read("a"))
    assert.is_true(down:stats().requests >= 1)
    -- the sibling big.bin (300 KB) stays where it is
    assert.is_true(fresh:stats().bytes < 20000, "bytes sent: " .. fresh:stats().bytes)
    os.remove(dest)
    c:close()
  end)

  it("gives up on a gateway that drips, and on one past the deadline", function()
    local drip = gateway({ slow = 40 }) -- two bytes every 50 ms: never a stall
    -- fastest without exploring: a random first pick of the honest gateway would leave the drip untried
    for _, policy in ipairs({ "round_robin", { name = "fastest", explore = 0 }, "failover" }) do
      local c = ipfsrt.client { gateways = { drip:url(), honest:url() }, timeout = 0.5, cache = false,
        policy = policy }
      policy = policy.name or policy
      assert.equal(big, c:get(big_url))
      local st = c:stats()
      assert.is_true((st[1].errors.timeout or 0) >= 1, policy) -- the drip cut off: policies learn it
      assert.is_true(st[2].ok >= 1, policy) -- and the honest one served
      c:close()
    end
    local c = ipfsrt.client { gateways = { drip:url() }, timeout = 5, deadline = 0.5, retries = 1 }
    local ok, err = pcall(c.get, c, big_url)
    assert.is_false(ok)
    assert.truthy(err.message:find("deadline", 1, true), err.message)
    c = ipfsrt.client { gateways = { drip:url() }, timeout = 0.5, retries = 1 }
    ok, err = pcall(c.get, c, big_url)
    assert.is_false(ok)
    assert.truthy(err.message:find("slower than 1024 bytes/s", 1, true), err.message)
  end)

  it("prefers the faster gateway with 'fastest'", function()
    local slow = gateway({ delay_ms = 150 })
    local c = ipfsrt.client { gateways = { slow:url(), honest:url() }, cache = false,
      policy = { name = "fastest", explore = 0 } }
    local entries = c:ls("ipfs://" .. root .. "/many", { types = false })
    for _, e in ipairs(entries) do c:block(e.cid) end
    local st = c:stats()
    assert.is_true(st[2].ok >= #entries, "fast gateway served " .. st[2].ok)
    assert.is_true(st[1].ok <= 2, "slow gateway served " .. st[1].ok)
  end)

  it("races a second gateway with 'hedged' when the first is slow to answer", function()
    local stuck = gateway({ delay_ms = 3000 })
    local c = ipfsrt.client { gateways = { stuck:url(), honest:url() }, policy = "hedged" }
    assert.equal(big, c:get(big_url))
    assert.equal(1, c:stats()[2].ok) -- the race went to the second: the first never answered in time
    assert.equal(0, c:stats()[1].ok)
  end)

  it("sticks to one gateway with 'failover' until it fails", function()
    local down = gateway({ fail = 1 })
    local lines = {}
    local c = ipfsrt.client { gateways = { down:url(), honest:url() }, policy = "failover", cache = false,
      log = function(line) lines[#lines + 1] = line end }
    for _ = 1, 3 do c:stat(big_url) end
    assert.equal(1, down:stats().requests) -- after its failure the second one is primary
    assert.equal(3, c:stats()[2].ok)
    assert.equal(1, #lines)
    assert.truthy(lines[1]:find("primary is now " .. honest:url(), 1, true))
  end)

  it("hedges on time a gateway took, not time a request waited for a free slot", function()
    local steady = gateway({ delay_ms = 100 })
    local c = ipfsrt.client { gateways = { steady:url(), honest:url() }, concurrency = 1, cache = false,
      policy = { order = function(_, _, g) return { g[1], g[2] } end, hedge_after = function() return 0.25 end } }
    local cids = {}
    for i, e in ipairs(c:ls("ipfs://" .. root .. "/many", { types = false })) do cids[i] = e.cid end
    c:blocks(cids) -- queued for up to 2 s behind each other, each answered in 100 ms
    assert.equal(#cids + 1, c:stats()[1].ok)
    assert.equal(0, c:stats()[2].requests)
  end)

  it("quarantines a lying gateway with 'trust' and says so", function()
    local liar = gateway({ tamper = 1 })
    local lines = {}
    local c = ipfsrt.client { gateways = { liar:url(), honest:url() }, policy = "trust",
      log = function(line) lines[#lines + 1] = line end }
    assert.equal(big, c:get(big_url))
    assert.equal(1, #lines)
    assert.truthy(lines[1]:find("quarantined " .. liar:url(), 1, true))
    assert.equal("hello\n", c:get("ipfs://" .. root .. "/hello.txt"))
    assert.equal(1, liar:stats().requests) -- not asked again
    local alone = ipfsrt.client { gateways = { liar:url() }, policy = "trust" }
    assert.is_false(pcall(alone.get, alone, big_url))
    local ok, err = pcall(alone.get, alone, big_url)
    assert.is_false(ok)
    assert.truthy(err.message:find("no gateway to ask (the policy named none)", 1, true))
    -- and why: what the gateway the policy left out did before
    assert.truthy(err.message:find("before: " .. liar:url() .. ": hash_mismatch: ", 1, true), err.message)
    assert.equal(2, liar:stats().requests)
  end)

  it("takes policies inline, swaps them between requests, and reports their errors", function()
    local second = gateway({})
    local asked = {}
    local c = ipfsrt.client { gateways = { honest:url(), second:url() }, cache = false, policy = {
      order = function(_, _, gws) return { gws[2] } end,
      observe = function(_, _, gw, outcome) asked[#asked + 1] = gw.url .. " " .. tostring(outcome.ok) end,
    } }
    c:stat(big_url)
    assert.same({ second:url() .. " true" }, asked)
    c:set_policy("round_robin")
    c:stat(big_url)
    c:stat(big_url)
    assert.equal(1, c:stats()[1].ok)
    c:set_policy(function() return { order = function() error("broken policy") end } end)
    local ok, err = pcall(c.stat, c, big_url)
    assert.is_false(ok)
    assert.truthy(tostring(err.message):find("broken policy", 1, true))
    -- callbacks may look at the client, not start another fetch on it
    c:set_policy(nil)
    local seen
    ok, err = pcall(c.blocks, c, { "bafkreicysg23kiwv34eg2d7qweipxwosdo2py4ldv42nbauguluen5v6am" }, function()
      seen = #c:stats()
      c:stat(big_url)
    end)
    assert.is_false(ok)
    assert.equal(2, seen)
    assert.truthy(tostring(err.message):find("busy", 1, true))
    -- an error in the progress callback fails a read that otherwise worked
    c:on_progress(function() error("progress broke") end)
    ok, err = pcall(c.get, c, big_url)
    assert.is_false(ok)
    assert.truthy(tostring(err.message):find("progress broke", 1, true))
    c:on_progress(nil)
    assert.equal(big, c:get(big_url))
  end)

  it("is never wedged by a policy's odd values: raising __len/__index/__tostring, endless lengths", function()
    local function hostile(mt) return setmetatable({}, mt) end
    local orders = {
      hostile { __len = function() error("len broke") end },
      hostile { __index = function() error("index broke") end, __len = function() return 3 end },
      hostile { __len = function() return math.maxinteger end },
      hostile { __len = function() return 1.5 end },
      { hostile { __index = function() error("field broke") end } },
    }
    for i, o in ipairs(orders) do
      local c = ipfsrt.client { gateways = { honest:url() }, cache = false, timeout = 5,
        policy = { order = function() return o end } }
      local ok = pcall(c.stat, c, big_url) -- raw reads: no metamethod runs, none is a gateway
      assert.is_false(ok, "order " .. i)
      c:set_policy(nil) -- not "busy": the client came back from the failure
      assert.equal(#big, c:stat(big_url).size)
      c:close()
    end
    local c = ipfsrt.client { gateways = { honest:url() }, cache = false, policy = { order = function()
      error(hostile { __tostring = function() error("tostring broke") end })
    end } }
    local ok, err = pcall(c.stat, c, big_url)
    assert.is_false(ok)
    assert.truthy(tostring(err.message):find("__tostring failed", 1, true), tostring(err.message))
    c:on_progress(function() error(hostile { __tostring = function() return {} end }) end)
    c:set_policy(nil)
    ok = pcall(c.get, c, big_url)
    assert.is_false(ok)
    c:on_progress(nil)
    assert.equal(big, c:get(big_url))
    c:close()
  end)

  it("keeps verified blocks on disk and re-checks them", function()
    local cache_dir = dir .. "/cache"
    local gw = gateway({})
    local url = gw:url()
    local c = ipfsrt.client { gateways = { url }, cache = { dir = cache_dir } }
    assert.equal(big, c:get(big_url))
    gw:stop()
    local offline = ipfsrt.client { gateways = { url }, cache = { dir = cache_dir }, retries = 1 }
    assert.equal(big, offline:get(big_url)) -- every block from disk
    -- a damaged cached block is not used: the read goes to the network and fails
    local p = io.popen("find " .. cache_dir .. " -type f -name 'bafkrei*' | head -1")
    local victim = p:read("l")
    p:close()
    put(victim, "garbage")
    local fresh = ipfsrt.client { gateways = { url }, cache = { dir = cache_dir }, retries = 1 }
    assert.is_false(pcall(fresh.get, fresh, big_url))
    assert.is_false(exists(victim))
  end)

  it("reads plain URLs only when told not to verify", function()
    local c = ipfsrt.client { gateways = { honest:url() }, verify = false }
    assert.is_false(c:verifies())
    assert.equal(big, c:get(big_url))
    assert.equal(big:sub(11, 20), c:get(big_url, 10, 10))
    assert.equal(big, c:get(honest:url() .. "/ipfs/" .. root .. "/big.bin"))
    local v = ipfsrt.client { gateways = { honest:url() } }
    local ok, err = pcall(v.get, v, honest:url() .. "/ipfs/" .. root .. "/big.bin")
    assert.is_false(ok)
    assert.equal("bad_argument", err.code)
  end)

  describe("the CLI", function()
    it("gets a file or a tree, lists and stats, with options anywhere", function()
      local code, out = run({ "get", big_url, "--gateway", honest:url() })
      assert.equal(0, code)
      assert.equal(big, out)
      local _, usage
      code, _, usage = run({ "get", "ipfs://" .. root .. "/many", "--gateway", honest:url() })
      assert.equal(2, code)
      assert.truthy(usage:find("is a hamt-shard; give -o DIR", 1, true))
      code = run({ "get", "--gateway", honest:url(), "-o", dir .. "/cli-tree", "ipfs://" .. root })
      assert.equal(0, code)
      assert.is_true(os.execute("diff -r " .. dir .. "/tree " .. dir .. "/cli-tree"))
      local json
      code, json = run({ "stat", big_url, "--json", "--gateway", honest:url() })
      assert.equal(0, code)
      local info = ipfsrt.json.decode(json)
      assert.equal(#big, info.size)
      assert.equal("file", info.type)
      local listing
      code, listing = run({ "ls", "ipfs://" .. root, "--gateway", honest:url() })
      assert.equal(0, code)
      assert.truthy(listing:find("hello.txt\n", 1, true))
      assert.truthy(listing:find("file +300000 ", 1))
    end)

    it("leaves nothing behind when every gateway lies", function()
      -- every block of big.bin is needed once, so the tampered one cannot be done without
      local tamperer = gateway({ tamper = 1 })
      local code, _, err = run({ "get", big_url, "-o", dir .. "/lied-file", "--gateway", tamperer:url(),
        "--retries", "1" })
      assert.is_not.equal(0, code)
      assert.truthy(err:find("fetch_failed", 1, true))
      assert.is_false(exists(dir .. "/lied-file"))
      local liar = gateway({ wrong_dag = 1 }, { other_car, car })
      code, _, err = run({ "get", "ipfs://" .. root, "-o", dir .. "/lied", "--gateway", liar:url(),
        "--retries", "1" })
      assert.is_not.equal(0, code)
      assert.truthy(err:find("wrong_dag", 1, true) or err:find("lacks block", 1, true))
      assert.is_false(exists(dir .. "/lied"))
      local _, leftovers = run({ "-e", "for _, n in ipairs(require('ipfsrt').listdir('" .. dir ..
        "')) do print(n) end" })
      assert.is_nil(leftovers:find("lied", 1, true))
    end)

    it("finds gateways in IPFS_GATEWAY and IPIP-280 files, and says which with -v", function()
      local code, _, err = run({ "stat", big_url, "-v" }, { env = "IPFS_GATEWAY=" .. sh_quote(honest:url() .. ", " ..
        honest:url() .. "/") })
      assert.equal(0, code)
      assert.truthy(err:find("gateways (from IPFS_GATEWAY)", 1, true))
      assert.truthy(err:find(honest:url() .. ": 1 requests, 1 ok", 1, true))
      os.execute("mkdir -p " .. dir .. "/ipfs-path")
      put(dir .. "/ipfs-path/gateway", honest:url() .. "\n")
      code, _, err = run({ "stat", big_url, "-v" }, { env = "IPFS_GATEWAY= HOME=/nonexistent IPFS_PATH=" ..
        sh_quote(dir .. "/ipfs-path") .. " IPFSRT_POLICY=failover" })
      assert.equal(0, code)
      assert.truthy(err:find(dir .. "/ipfs-path/gateway", 1, true))
      assert.truthy(err:find("policy: failover", 1, true))
    end)

    it("shows the trust policy's quarantine with -v", function()
      local liar = gateway({ tamper = 1 })
      local code, out, err = run({ "get", big_url, "--policy", "trust", "-v", "--gateway", liar:url(),
        "--gateway", honest:url() })
      assert.equal(0, code)
      assert.equal(big, out)
      assert.truthy(err:find("quarantined " .. liar:url(), 1, true))
      assert.truthy(err:find("1 verification failures", 1, true))
    end)
  end)
end)
