-- ipfsrt serve --upstream: a verifying gateway, run as a process, in front of
-- ipfsrt.serve origins in this process (honest, lying, slow, withholding),
-- probed with curl on 127.0.0.1.
local ipfsrt = require "ipfsrt"
local exe = require "exe"
local http, put, bytes = exe.http, exe.put, exe.bytes

local slurp = exe.slurp

-- `ipfsrt serve -q ARGS...` as a process of its own.
local function start_proxy(args)
  local all = { "-q" }
  for _, a in ipairs(args) do all[#all + 1] = a end
  return exe.start_serve(all)
end

describe("ipfsrt serve --upstream", function()
  local dir = os.tmpname()
  os.remove(dir)
  os.execute("mkdir -p " .. dir .. "/tree/many " .. dir .. "/other")
  local big = bytes(700000, 11) -- eleven 64 KiB leaves
  put(dir .. "/tree/big.bin", big)
  put(dir .. "/tree/hello.txt", "hello\n")
  for i = 1, 20 do put(string.format("%s/tree/many/n%02d.txt", dir, i), "entry " .. i) end
  put(dir .. "/other/decoy.bin", bytes(1000, 5))
  local car, other_car = dir .. "/tree.car", dir .. "/other.car"
  local root = tostring(ipfsrt.pack(dir .. "/tree", { preset = "kubo-v1-2025", output = car,
    chunk_size = 65536, hamt = "entries:8", fanout = 16 }))
  ipfsrt.pack(dir .. "/other", { preset = "kubo-v1-2025", output = other_car })
  local origins = {}
  local function origin(faults, cars)
    local gw = ipfsrt.serve { cars = cars or { car }, faults = faults }
    origins[#origins + 1] = gw
    return gw
  end
  local honest = origin()
  local stops = {}
  local function proxy(args)
    local url, stop, pid = start_proxy(args)
    stops[#stops + 1] = stop
    return url, stop, pid
  end
  local front = proxy({ "--upstream", honest:url() })

  -- The bodies of urls, fetched by as many curl processes at once.
  local function curl_at_once(urls)
    local outs, cmd = {}, {}
    for i, u in ipairs(urls) do
      outs[i] = os.tmpname()
      cmd[i] = string.format("curl -s -o %s %s &", outs[i], u)
    end
    os.execute(table.concat(cmd, " ") .. " wait")
    local bodies = {}
    for i = 1, #outs do
      bodies[i] = slurp(outs[i])
      os.remove(outs[i])
    end
    return bodies
  end

  teardown(function()
    for _, stop in ipairs(stops) do stop() end
    for _, gw in ipairs(origins) do gw:stop() end
    os.execute("rm -rf " .. dir)
  end)


  it("answers file bytes, ranges, HEAD, listings, raw blocks and CARs as the origin does", function()
    local path = "/ipfs/" .. root .. "/big.bin"
    local status, headers, body = http(front .. path)
    assert.equal(200, status)
    assert.equal(big, body)
    local file_cid = headers["x-ipfs-roots"]:match("([^,]+)$") -- the path's steps, the file last
    assert.equal(root .. "," .. file_cid, headers["x-ipfs-roots"])
    assert.equal('"' .. file_cid .. '"', headers.etag)
    assert.truthy(headers["cache-control"]:find("immutable", 1, true))
    for range, want in pairs { ["bytes=100-199"] = big:sub(101, 200), ["bytes=-10"] = big:sub(-10),
      ["bytes=699990-"] = big:sub(699991) } do
      status, _, body = http(front .. path, { headers = { Range = range } })
      assert.equal(206, status, range)
      assert.equal(want, body, range)
    end
    status = http(front .. path, { headers = { Range = "bytes=700000-" } })
    assert.equal(416, status)
    status, headers = http(front .. path, { method = "HEAD" })
    assert.equal(200, status)
    assert.equal("700000", headers["content-length"])
    for _, q in ipairs { "/ipfs/" .. root .. "/many", "/ipfs/" .. root .. "/many/", "/ipfs/" .. file_cid .. "?format=raw",
      "/ipfs/" .. root .. "/many?format=car", "/ipfs/" .. root .. "?format=car&dag-scope=all",
      path .. "?format=car&entity-bytes=70000:140000", "/ipfs/" .. root .. "/hello.txt" } do
      local s1, _, want = http(honest:url() .. q)
      local s2, _, got = http(front .. q)
      assert.equal(s1, s2, q)
      assert.equal(want, got, q)
    end
    -- a file of one raw block is answered from the block itself: ranges and HEAD too
    local hello = "/ipfs/" .. root .. "/hello.txt"
    for range, want in pairs { ["bytes=1-3"] = "ell", ["bytes=-2"] = "o\n", ["bytes=4-"] = "o\n" } do
      status, _, body = http(front .. hello, { headers = { Range = range } })
      assert.equal(206, status, range)
      assert.equal(want, body, range)
    end
    assert.equal(416, (http(front .. hello, { headers = { Range = "bytes=6-" } })))
    status, headers = http(front .. hello, { method = "HEAD" })
    assert.equal(200, status)
    assert.equal("6", headers["content-length"])
    local html = { headers = { Accept = "text/html" } }
    local s1, _, want = http(honest:url() .. "/ipfs/" .. root .. "/many/", html)
    local s2, _, got = http(front .. "/ipfs/" .. root .. "/many/", html)
    assert.equal(200, s1)
    assert.equal(200, s2)
    assert.equal(want, got)
  end)

  it("answers 404 only for what a verified directory proves absent", function()
    local status, _, body = http(front .. "/ipfs/" .. root .. "/no-such-name")
    assert.equal(404, status)
    assert.truthy(body:find("no-such-name", 1, true), body)
    local withholding = origin({}, { other_car }) -- has none of the tree's blocks
    local url = proxy({ "--upstream", withholding:url(), "--retries", "1" })
    status, _, body = http(url .. "/ipfs/" .. root .. "/hello.txt")
    assert.equal(502, status) -- saying it has not is no proof
    assert.truthy(body:find(root, 1, true) and body:find(withholding:url(), 1, true), body)
  end)

  it("refuses dot segments and encoded slashes before asking upstream, as the client does", function()
    local asked = honest:stats().requests
    for _, p in ipairs { "/../../X", "/sub/../../../X?format=car", "/a%2F..%2F..%2FX" } do
      local status = http(front .. "/ipfs/" .. root .. p, { as_is = true })
      assert.equal(400, status, p)
    end
    assert.equal(asked, honest:stats().requests) -- nothing reached the upstream host
    local code, _, err = exe.run({ "cat", "ipfs://" .. root .. "/../..", "--gateway", honest:url() })
    assert.are_not.equal(0, code)
    assert.truthy(err:find("'..' segments", 1, true), err)
    assert.equal(asked, honest:stats().requests)
  end)

  it("refuses a liar's bytes (502 naming what it did), and asks the next upstream", function()
    -- every answer tampered with, and CARs of another DAG besides: nothing usable
    local liar = origin({ tamper = 1, wrong_dag = 1, seed = 9 })
    local url = proxy({ "--upstream", liar:url(), "--retries", "1" })
    local status, _, body = http(url .. "/ipfs/" .. root .. "/big.bin")
    assert.equal(502, status)
    assert.truthy(body:find("hash mismatch", 1, true) and body:find(liar:url(), 1, true), body)
    -- one block of each answer tampered with: the others are checked and used
    local fibber = origin({ tamper = 1, seed = 4 })
    url = proxy({ "--upstream", fibber:url() })
    local curl_code
    status, _, body, curl_code = http(url .. "/ipfs/" .. root .. "/big.bin")
    assert.is_true(status == 200 or status == 502, status)
    if status == 200 then -- whole, or cut short where a block had no good copy: never wrong
      assert.equal(big:sub(1, #body), body)
      if curl_code == 0 then assert.equal(big, body) end
    end
    url = proxy({ "--upstream", liar:url(), "--upstream", honest:url(), "--policy", "failover" })
    status, _, body = http(url .. "/ipfs/" .. root .. "/big.bin")
    assert.equal(200, status)
    assert.equal(big, body)
  end)

  it("lives on when clients hang up in the middle of a CAR", function()
    -- libmicrohttpd ends the request before it frees the answer: the CAR's
    -- stream must not reach back into the request as it is freed
    -- far more than the sockets between them hold, so that the hang-up comes mid-answer
    os.execute("mkdir -p " .. dir .. "/huge && head -c 16000000 /dev/urandom > " .. dir .. "/huge/noise.bin")
    local huge_car = dir .. "/huge.car"
    local huge = tostring(ipfsrt.pack(dir .. "/huge", { preset = "kubo-v1-2025", output = huge_car }))
    local upstream = origin({}, { car, huge_car })
    local url, stop = proxy({ "--upstream", upstream:url() })
    local q = url .. "/ipfs/" .. huge .. "?format=car&dag-scope=all"
    for _ = 1, 3 do
      local got = exe.sh("curl -s '" .. q .. "' | head -c 300000 | wc -c")
      assert.equal("300000", got:match("%d+"))
    end
    local status, _, body = http(url .. "/ipfs/" .. root .. "/hello.txt")
    assert.equal(200, status)
    assert.equal("hello\n", body)
    local s1, _, want = http(upstream:url() .. "/ipfs/" .. huge .. "?format=car&dag-scope=all")
    local s2, _, whole = http(q)
    assert.equal(200, s1)
    assert.equal(200, s2)
    assert.equal(want, whole)
    assert.equal("", (stop():gsub("%s", "")))
  end)

  it("streams car-dups=y over a diamond DAG in bounded memory, and in front of an upstream too", function()
    -- a file whose every node links twice to the one below: with duplicates,
    -- 2^(depth + 1) - 1 blocks; without, depth + 1
    local varint = ipfsrt.varint.encode
    local function field(tag, bytes) return varint(tag) .. varint(#bytes) .. bytes end
    local function diamond(depth, name)
      local leaf = string.rep("d", 100)
      local cid, size = ipfsrt.cid.sum("raw", leaf), #leaf
      local blocks = { { cid, leaf } }
      for _ = 1, depth do
        local link = field(0x0a, cid:bytes()) .. field(0x12, "") .. varint(0x18) .. varint(size)
        local unixfs = varint(0x08) .. varint(2) .. varint(0x18) .. varint(2 * size) .. varint(0x20) .. varint(size)
          .. varint(0x20) .. varint(size)
        local node = field(0x12, link) .. field(0x12, link) .. field(0x0a, unixfs)
        cid, size = ipfsrt.cid.sum("dag-pb", node), 2 * size
        blocks[#blocks + 1] = { cid, node }
      end
      local path = dir .. "/" .. name .. ".car"
      local w <close> = ipfsrt.car.writer(path, { cid })
      for _, b in ipairs(blocks) do w:put(b[1], b[2]) end
      return tostring(cid), path
    end
    local small, small_car = diamond(12, "diamond12")
    local mid, mid_car = diamond(18, "diamond18")
    local deep, deep_car = diamond(30, "diamond30")
    local plain, stop_plain, plain_pid = exe.start_serve({ "-q", small_car, mid_car, deep_car })
    stops[#stops + 1] = stop_plain -- stopped with the proxies, checked as they are
    local front_url, _, front_pid = proxy({ "--upstream", plain })
    local dups = "?format=car&dag-scope=all&car-dups=y"
    for _, base in ipairs { plain, front_url } do
      local status, _, body = http(base .. "/ipfs/" .. small .. dups)
      assert.equal(200, status)
      assert.equal(2 ^ 13 - 1, #ipfsrt.car.reader():feed(body))
      status, _, body = http(base .. "/ipfs/" .. small .. "?format=car&dag-scope=all")
      assert.equal(200, status)
      assert.equal(13, #ipfsrt.car.reader():feed(body))
      -- 2^19 - 1 blocks with duplicates (72 MB): twenty clients at once each take 1 MB and hang
      -- up, and one takes all of it. In front of an upstream, whose own answer repeats the 19
      -- blocks 2^19 times, the relay's prefetch stops at its count of blocks and the walk takes
      -- the rest from the cache (each repeat once cost a walk of the blocks being hashed: the
      -- front spun for minutes, deaf to SIGTERM)
      local cmd = {}
      for i = 1, 20 do
        cmd[i] = string.format("curl -s -m 60 '%s/ipfs/%s%s' | head -c 1000000 | wc -c > %s/got%d &", base, mid, dups,
          dir, i)
      end
      os.execute(table.concat(cmd, " ") .. " wait")
      for i = 1, 20 do assert.equal("1000000", slurp(dir .. "/got" .. i):match("%d+")) end
      assert.is_true(os.execute(string.format("curl -sf -m 60 -o %s/mid.car '%s/ipfs/%s%s'", dir, base, mid, dups)))
      assert.equal(2 ^ 19 - 1, ipfsrt.car.verify(dir .. "/mid.car").blocks)
      -- 2^31 - 1 blocks: refused before a byte of it goes out (counted over its 31 nodes)
      status, _, body = http(base .. "/ipfs/" .. deep .. dups)
      assert.equal(413, status)
      assert.truthy(body:find("more than 1000000 blocks with duplicates", 1, true), body)
    end
    -- a list of every block per answer took ~110 MB a million blocks (225 MB without an upstream):
    -- 2.9 GB here (a sanitizer's allocator keeps up to 256 MB freed, and shadows what it holds)
    local most = (os.getenv("IPFSRT_SAN") or "") ~= "" and 800e6 or 150e6
    for _, process in ipairs { plain_pid, front_pid } do
      local peak = exe.peak_memory(process)
      assert.is_true(peak < most, string.format("peak memory %.0f MB", (peak or 0) / 1e6))
    end
  end)

  it("keeps answering while slow clients trickle their heads: each head timed in all, each address bounded", function()
    local script = os.getenv("PWD") .. "/tests/lua-exe/slow_clients.py"
    local function slow(url, n, seconds, early)
      local out = os.tmpname()
      os.execute(string.format("/usr/bin/python3 %s 127.0.0.1 %s %d 0.2 %g %g > %s &", script,
        url:match(":(%d+)$"), n, seconds, early, out))
      return function()
        for _ = 1, 200 do
          local said = slurp(out)
          if said and said:find("}", 1, true) then
            os.remove(out)
            return ipfsrt.json.decode(said)
          end
          os.execute("sleep 0.1")
        end
        error("the slow clients did not finish")
      end
    end
    -- forty slots, sixty clients sending a byte every 0.2 s (each byte used to reset the timeout)
    local url = proxy({ "--upstream", honest:url(), "--max-connections", "40", "--head-timeout", "2" })
    local done = slow(url, 60, 12, 1)
    os.execute("sleep 0.5")
    -- a client that finds every slot taken is turned away: the slots come free as heads run out
    -- of time (2 s), not when the slow clients stop (12 s)
    local got = exe.sh(string.format("curl -s --retry 6 --retry-delay 1 --retry-all-errors %s/ipfs/%s/hello.txt",
      url, root))
    assert.equal("hello\n", got)
    local said = done()
    assert.equal(60, said.closed) -- those past the forty at once, the rest at their heads' time
    -- a connection waiting for its head holds no thread: three hundred of them, a few threads
    local pid
    url, _, pid = proxy({ "--upstream", honest:url() })
    local before = tonumber(slurp("/proc/" .. pid .. "/status"):match("Threads:%s*(%d+)"))
    done = slow(url, 300, 3, 3)
    os.execute("sleep 1.5")
    local during = tonumber(slurp("/proc/" .. pid .. "/status"):match("Threads:%s*(%d+)"))
    assert.equal(0, done().early) -- all held open meanwhile
    assert.is_true(during < before + 20, string.format("%d threads before, %d with 300 slow clients", before, during))
    -- one address holds five connections at most
    url = proxy({ "--upstream", honest:url(), "--per-address", "5", "--head-timeout", "3" })
    said = slow(url, 12, 10, 1.5)()
    assert.equal(7, said.early)
    assert.equal(12, said.closed)
  end)

  it("answers 504 when no upstream answers in time", function()
    local mute = origin({ delay_ms = 20000 })
    local url = proxy({ "--upstream", mute:url(), "--timeout", "0.5", "--retries", "1" })
    local status, _, body = http(url .. "/ipfs/" .. root .. "/hello.txt")
    assert.equal(504, status)
    assert.truthy(body:find("timed out", 1, true), body) -- at the proxy's timeout, not the origin's 20 s
  end)

  it("ends a body short when upstream fails after the first byte", function()
    local going = origin()
    local url = proxy({ "--upstream", going:url(), "--retries", "1", "--timeout", "1" })
    local path = url .. "/ipfs/" .. root .. "/big.bin"
    -- the first five leaves, now held: more than the first piece, read before the status goes out
    assert.equal(206, (http(path, { headers = { Range = "bytes=0-299999" } })))
    going:stop()
    local status, _, body, curl_code = http(path)
    assert.equal(200, status) -- sent with the first leaf, before the second failed
    assert.is_true(#body < #big)
    assert.equal(big:sub(1, #body), body)
    assert.equal(18, curl_code) -- "partial file": curl knows it is short
  end)

  it("asks for a path it has not seen in one request, and for nothing on a second read", function()
    local counted = origin()
    local url = proxy({ "--upstream", counted:url() })
    assert.equal("hello\n", select(3, http(url .. "/ipfs/" .. root .. "/hello.txt")))
    assert.equal(1, counted:stats().requests) -- the root and the file in one CAR
    assert.equal("hello\n", select(3, http(url .. "/ipfs/" .. root .. "/hello.txt")))
    assert.equal("entry 5", select(3, http(url .. "/ipfs/" .. root .. "/many/n05.txt")))
    assert.equal(2, counted:stats().requests) -- the HAMT's shards on the way in one more
  end)

  it("behind a far upstream, reads of a directory not seen yet take one round trip, twenty at once", function()
    local far = origin({ delay_ms = 400 })
    local url = proxy({ "--upstream", far:url() })
    assert.equal("hello\n", select(3, http(url .. "/ipfs/" .. root .. "/hello.txt"))) -- the distance, learnt
    local urls = {}
    for i = 1, 20 do urls[i] = string.format("%s/ipfs/%s/many/n%02d.txt", url, root, i) end
    local before = far:stats().requests
    local bodies = curl_at_once(urls)
    for i = 1, 20 do assert.equal("entry " .. i, bodies[i]) end
    -- each its own path's CAR, all in flight at once (each held 400 ms),
    -- while the directory comes whole beside them: one round trip. Waiting
    -- for the directory first, or sixteen in flight at first, would show
    -- fewer at once.
    local st = far:stats()
    assert.is_true(st.peak_in_flight >= 20, string.format("%d upstream requests at once", st.peak_in_flight))
    assert.is_true(st.requests - before <= 21, string.format("%d upstream requests", st.requests - before))
  end)

  it("takes what its own CARs hold from them, asking upstream for none of it", function()
    local counted = origin(nil, { car, other_car })
    local url = proxy({ car, "--upstream", counted:url() })
    assert.equal(big, select(3, http(url .. "/ipfs/" .. root .. "/big.bin")))
    assert.equal("entry 7", select(3, http(url .. "/ipfs/" .. root .. "/many/n07.txt")))
    assert.equal(404, (http(url .. "/ipfs/" .. root .. "/many/n99.txt")))
    assert.equal(0, counted:stats().requests)
    local decoy = "/ipfs/" .. tostring(ipfsrt.cid.sum("raw", bytes(1000, 5))) .. "?format=raw"
    assert.equal(bytes(1000, 5), select(3, http(url .. decoy))) -- not in its CAR: from upstream
    assert.equal(1, counted:stats().requests)
  end)

  it("fetches a block once for many clients at once", function()
    local counted = origin()
    local url = proxy({ "--upstream", counted:url() })
    local urls = {}
    for i = 1, 8 do urls[i] = url .. "/ipfs/" .. root .. "/big.bin" end
    local bodies = curl_at_once(urls)
    for i = 1, 8 do assert.equal(big, bodies[i]) end
    -- the root, big.bin's node and its eleven leaves: each asked for once
    assert.is_true(counted:stats().requests <= 13, "upstream requests: " .. counted:stats().requests)
  end)

  it("answers 400 clients at once, none closed unanswered", function()
    local url = proxy({ "--upstream", honest:url() })
    local args = { "curl -s --parallel --parallel-immediate --parallel-max 400 -w '%{http_code}\\n'" }
    for i = 1, 400 do
      args[#args + 1] = string.format("-o /dev/null %s/ipfs/%s/many/n%02d.txt", url, root, (i - 1) % 20 + 1)
    end
    local p = io.popen(table.concat(args, " "))
    local codes = {}
    for line in p:lines() do codes[line] = (codes[line] or 0) + 1 end
    p:close()
    assert.same({ ["200"] = 400 }, codes)
  end)

  it("keeps verified blocks on disk for the next process, and refetches a corrupted one", function()
    local cache = dir .. "/cache"
    local url, stop = proxy({ "--upstream", honest:url(), "--cache-dir", cache })
    assert.equal("hello\n", select(3, http(url .. "/ipfs/" .. root .. "/hello.txt")))
    assert.equal("", stop())
    local gone = origin()
    local gone_url = gone:url()
    gone:stop() -- nobody answers there now
    url = proxy({ "--upstream", gone_url, "--cache-dir", cache, "--retries", "1", "--timeout", "1" })
    local status, _, body = http(url .. "/ipfs/" .. root .. "/hello.txt")
    assert.equal(200, status)
    assert.equal("hello\n", body)
    local p = io.popen("find " .. cache .. " -type f")
    for file in p:lines() do
      local data = slurp(file)
      put(file, string.char((data:byte(1) or 0) ~ 1) .. data:sub(2))
    end
    p:close()
    local warm = dir .. "/warm-cache"
    url = proxy({ "--upstream", honest:url(), "--cache-dir", warm })
    for i = 1, 20 do http(string.format("%s/ipfs/%s/many/n%02d.txt", url, root, i)) end
    local idle = origin()
    url = proxy({ "--upstream", idle:url(), "--cache-dir", warm }) -- a second process: every block on disk
    for i = 1, 20 do
      assert.equal("entry " .. i, select(3, http(string.format("%s/ipfs/%s/many/n%02d.txt", url, root, i))))
    end
    assert.equal(0, idle:stats().requests)
    local counted = origin()
    url = proxy({ "--upstream", counted:url(), "--cache-dir", cache })
    status, _, body = http(url .. "/ipfs/" .. root .. "/hello.txt")
    assert.equal(200, status)
    assert.equal("hello\n", body)
    assert.is_true(counted:stats().requests >= 1) -- the corrupted copies were misses
  end)

  it("keeps its cache directory under --cache-size", function()
    local cache = dir .. "/small-cache"
    local url = proxy({ "--upstream", honest:url(), "--cache-dir", cache, "--cache-size", "200K" })
    assert.equal(big, select(3, http(url .. "/ipfs/" .. root .. "/big.bin")))
    local p = io.popen("find " .. cache .. " -type f -printf '%s\\n'")
    local total = 0
    for line in p:lines() do total = total + tonumber(line) end
    p:close()
    assert.is_true(total > 0 and total <= 200 * 1024, "cache bytes: " .. total)
    local code, _, err = exe.run({ "serve", "--upstream", honest:url(), "--cache-size", "lots" })
    assert.equal(2, code)
    assert.truthy(err:find("--cache-size needs a size", 1, true), err)
  end)

  -- last: every proxy above, stopped by SIGTERM, said nothing on stderr (-q), so
  -- no failure and no sanitizer's report (leaks, races) under make asan / tsan
  it("stops cleanly on SIGTERM, each proxy that ran", function()
    for _, stop in ipairs(stops) do
      local said = stop()
      if said then assert.equal("", said) end
    end
  end)
end)
