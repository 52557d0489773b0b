-- What a new user meets first: the commands IPFS users expect (cat, get -o, get
-- --car, version), and messages that say what went wrong and where.
local ipfsrt = require "ipfsrt"
local exe = require "exe"
local run, put, bytes = exe.run, exe.put, exe.bytes

local function exists(path) return os.execute("test -e " .. exe.sh_quote(path)) == true end

describe("the CLI for a new user", function()
  local dir = os.tmpname()
  os.remove(dir)
  os.execute("mkdir -p " .. dir .. "/tree/sub " .. dir .. "/out")
  local big = bytes(9 * 1024 * 1024 + 5, 3) -- over the size that is read by CID, many at once
  put(dir .. "/tree/big.bin", big)
  put(dir .. "/tree/sub/temp.csv", "a,b\n1,2\n")
  local car = dir .. "/tree.car"
  local root = tostring(ipfsrt.pack(dir .. "/tree", { preset = "kubo-v1-2025", output = car }))
  local gateway, stop_gateways = exe.gateways({ car })
  local gw = gateway()
  local function fetch(args, opts)
    local a = { table.unpack(args) }
    a[#a + 1] = "--gateway"
    a[#a + 1] = gw:url()
    return run(a, opts)
  end

  teardown(function()
    stop_gateways()
    os.execute("rm -rf " .. dir)
  end)

  it("cat prints a file, a range of it, and refuses a directory", function()
    local code, out = fetch({ "cat", "ipfs://" .. root .. "/sub/temp.csv" })
    assert.equal(0, code)
    assert.equal("a,b\n1,2\n", out)
    code, out = fetch({ "cat", "ipfs://" .. root .. "/sub/temp.csv", "--offset", "4", "--length", "3" })
    assert.equal(0, code)
    assert.equal("1,2", out)
    local err
    code, out, err = fetch({ "cat", "ipfs://" .. root .. "/sub" })
    assert.equal(1, code)
    assert.equal("", out)
    assert.truthy(err:find("is a directory, not a file", 1, true), err)
  end)

  it("get -o checks the destination before fetching anything", function()
    local before = gw:stats().requests
    put(dir .. "/out/taken", "mine")
    local code, _, err = fetch({ "get", "ipfs://" .. root .. "/big.bin", "-o", dir .. "/out/taken" })
    assert.equal(1, code)
    assert.truthy(err:find("already exists", 1, true), err)
    code, _, err = fetch({ "get", "ipfs://" .. root .. "/big.bin", "-o", dir .. "/no/such/folder/x" })
    assert.equal(1, code)
    assert.truthy(err:find("the folder " .. dir .. "/no/such/folder does not exist", 1, true), err)
    assert.equal(before, gw:stats().requests)
    assert.equal("mine", io.open(dir .. "/out/taken"):read("a"))
  end)

  it("get -o of a large file reads it by CID, many blocks at once, into place", function()
    local c = ipfsrt.client { gateways = { gw:url() } } -- as a reference: the same fast path as get > file
    local code, _, err = fetch({ "get", "ipfs://" .. root .. "/big.bin", "-o", dir .. "/out/big.bin", "-q" })
    assert.equal(0, code, err)
    assert.equal("", err)
    assert.equal(big, io.open(dir .. "/out/big.bin", "rb"):read("a"))
    assert.is_false(exists(dir .. "/out/big.bin.ipfsrt-partial-*"))
    c:close()
  end)

  it("get stopped by a signal leaves no partial file behind", function()
    local slow = gateway({ slow = 256 * 1024 }) -- per request: 9 MiB take seconds even 8 at a time
    local out = dir .. "/out/stopped.bin"
    local cmd = string.format("%s get ipfs://%s/big.bin -o %s --gateway %s -q 2>%s/err & pid=$!; " ..
      "sleep 1; kill -INT $pid; wait $pid; echo $?", exe.EXE, root, out, slow:url(), dir)
    local p = io.popen(cmd)
    local status = tonumber(p:read("a"):match("(%d+)%s*$"))
    p:close()
    assert.equal(130, status) -- 128 + SIGINT
    assert.is_false(exists(out))
    local leftovers = io.popen("ls " .. dir .. "/out | grep -c partial"):read("a")
    assert.equal("0", leftovers:match("%d+"))
    assert.truthy(io.open(dir .. "/err"):read("a"):find("stopped by signal 2", 1, true))
  end)

  it("get --car saves the verified DAG as a CAR rooted at the path", function()
    local out = dir .. "/out/sub.car"
    local code, _, err = fetch({ "get", "--car", out, "ipfs://" .. root .. "/sub" })
    assert.equal(0, code, err)
    local saved = ipfsrt.car.open(out)
    local sub = ipfsrt.client({ gateways = { gw:url() } }):stat("ipfs://" .. root .. "/sub").cid
    assert.equal(sub, saved:roots()[1])
    assert.equal("a,b\n1,2\n", ipfsrt.unixfs.read(saved, tostring(sub) .. "/temp.csv"))
    assert.truthy(ipfsrt.car.verify(out).blocks >= 2)
    code, _, err = fetch({ "get", "--car", out, "ipfs://" .. root .. "/sub" })
    assert.equal(1, code)
    assert.truthy(err:find("already exists", 1, true), err)
  end)

  it("says which name is missing, in which verified directory", function()
    local code, _, err = fetch({ "get", "ipfs://" .. root .. "/sub/temp.cvs" })
    assert.equal(1, code)
    assert.truthy(err:find("no entry 'temp.cvs' in the directory", 1, true), err)
    assert.is_nil(err:find("HTTP 404", 1, true), err)
  end)

  it("says a mistyped CID is not a valid CID", function()
    local code, _, err = fetch({ "stat", "ipfs://" .. root:sub(1, -3) .. "/sub" })
    assert.equal(1, code)
    assert.truthy(err:find("not a valid CID", 1, true), err)
  end)

  it("names a dead gateway once, with its attempts", function()
    local code, _, err = run({ "stat", "ipfs://" .. root, "--gateway", "http://127.0.0.1:1", "--retries", "2" })
    assert.equal(1, code)
    local _, times = err:gsub("http://127%.0%.0%.1:1:", "")
    assert.equal(1, times, err)
    assert.truthy(err:find("(3 attempts)", 1, true), err)
  end)

  it("reads a gateway URL as ipfs:// through that gateway, verified", function()
    local code, out, err = run({ "cat", gw:url() .. "/ipfs/" .. root .. "/sub/temp.csv" })
    assert.equal(0, code, err)
    assert.equal("a,b\n1,2\n", out)
    code, _, err = run({ "cat", "https://example.org/data.csv" })
    assert.equal(2, code)
    assert.truthy(err:find("--no-verify", 1, true), err)
  end)

  it("rejects what it does not understand, with exit status 2", function()
    for _, args in ipairs({
      { "get", "ipfs://" .. root, "--json" },
      { "stat", "ipfs://" .. root, "-o", "x" },
      { "ls", "ipfs://" .. root, "--gateway", "127.0.0.1:8080" },
      { "car", "ls", car, "--json" },
    }) do
      local code, _, err = run(args)
      assert.equal(2, code, table.concat(args, " ") .. ": " .. err)
    end
  end)

  it("prints versions with version and -V", function()
    for _, flag in ipairs({ "version", "-V", "--version" }) do
      local code, out = run({ flag })
      assert.equal(0, code)
      assert.truthy(out:find("libmicrohttpd", 1, true), out)
    end
  end)

  it("pack -o refuses to overwrite unless --force", function()
    local out = dir .. "/out/packed.car"
    put(out, "precious")
    local code, _, err = run({ "pack", dir .. "/tree/sub", "-o", out })
    assert.equal(1, code)
    assert.truthy(err:find("already exists", 1, true), err)
    assert.equal("precious", io.open(out):read("a"))
    code = run({ "pack", dir .. "/tree/sub", "-o", out, "--force" })
    assert.equal(0, code)
    assert.equal(1, #ipfsrt.car.open(out):roots())
  end)

  it("takes CID objects where paths go: client:get(cid), cid .. '/name'", function()
    local c = ipfsrt.client { gateways = { gw:url() } }
    local sub = c:stat("ipfs://" .. root .. "/sub").cid
    assert.equal("a,b\n1,2\n", c:get(sub .. "/temp.csv"))
    local file = c:stat(sub .. "/temp.csv").cid
    assert.equal("a,b\n1,2\n", c:get(file))
    c:close()
  end)
end)

describe("a gateway behind its own CA", function()
  local dir, cert, key = exe.self_signed()
  -- a TLS server that answers every request with an HTML page: enough to see
  -- whether the handshake went through
  -- started on a free port and waited for (up to 10 s: a loaded machine, or
  -- sanitizers, start openssl slowly; a port taken means another try)
  local port
  for try = 1, 5 do
    port = 20000 + (math.floor(ipfsrt.clock() * 1000) + try * 7919) % 20000
    os.execute(string.format("env -u LD_PRELOAD openssl s_server -accept 127.0.0.1:%d -cert %s -key %s -www " ..
      "-quiet >/dev/null 2>&1 & echo $! > %s/pid", port, cert, key, dir))
    local up = os.execute(string.format("bash -c 'for i in $(seq 100); do kill -0 $(cat %s/pid) 2>/dev/null || " ..
      "exit 1; (exec 3<>/dev/tcp/127.0.0.1/%d) 2>/dev/null && exit 0; sleep 0.1; done; exit 1'", dir, port))
    if up then break end
    os.execute("kill $(cat " .. dir .. "/pid) 2>/dev/null")
  end
  local url = "https://127.0.0.1:" .. port
  local target = "ipfs://bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e"

  teardown(function()
    os.execute("kill $(cat " .. dir .. "/pid) 2>/dev/null")
    os.execute("rm -rf " .. dir)
  end)

  it("is refused as a TLS failure, once, without retries", function()
    local code, _, err = run({ "cat", target, "--gateway", url, "--retries", "3" })
    assert.equal(1, code)
    assert.truthy(err:find("TLS failed", 1, true), err)
    assert.is_nil(err:find("attempts)", 1, true), err)
  end)

  it("is trusted with --cacert, CURL_CA_BUNDLE or SSL_CERT_FILE", function()
    for _, how in ipairs({ { args = { "--cacert", cert } }, { env = "CURL_CA_BUNDLE=" .. cert },
      { env = "CURL_CA_BUNDLE= SSL_CERT_FILE=" .. cert } }) do -- (CURL_CA_BUNDLE goes first)
      local args = { "cat", target, "--gateway", url }
      for _, a in ipairs(how.args or {}) do args[#args + 1] = a end
      local code, _, err = run(args, { env = how.env })
      assert.equal(1, code) -- the server is no gateway: what matters is that TLS went through
      assert.is_nil(err:find("TLS failed", 1, true), err)
      assert.truthy(err:find("HTTP", 1, true) or err:find("Content-Type", 1, true), err)
    end
  end)
end)
