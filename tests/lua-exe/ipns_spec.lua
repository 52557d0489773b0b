-- IPNS through the client: ipns://NAME resolved from the gateways' records
-- (one request when fresh, none while its TTL runs), the highest sequence
-- among gateways, never a lower one after a higher, and gateways that lie
-- (a record of another name, an expired one, garbage) refused, named.
local ipfsrt = require "ipfsrt"
local exe = require "exe"
local http = exe.http

local FIX = "tests/fixtures/conformance/"
local ROOT1 = "bafybeib3ffl2teiqdncv3mkz4r23b5ctrwkzrrhctdbne6iboayxuxk5ui" -- gateway-cache.car

describe("ipns:// through the client", function()
  local dirs = {}
  local function folder()
    local d = os.tmpname()
    os.remove(d)
    os.execute("mkdir -p " .. d)
    dirs[#dirs + 1] = d
    return d
  end
  teardown(function() for _, d in ipairs(dirs) do os.execute("rm -rf " .. d) end end)

  local function put(dir, key, seq, value, opts)
    opts = opts or {}
    local path = string.format("%s/%s_%d.ipns-record", dir, key:name(), seq)
    local f = assert(io.open(path, "wb"))
    f:write(ipfsrt.ipns.record(key, { value = value, sequence = seq, eol = opts.eol or os.time() + 3600,
      ttl = opts.ttl or 3600 }))
    f:close()
    return path
  end

  local function lying_gateway(file)
    local url_file = os.tmpname()
    os.execute(string.format("python3 tests/lua-exe/record_server.py %s %s >/dev/null 2>&1 &", file, url_file))
    for _ = 1, 100 do
      local url = (exe.slurp(url_file) or ""):match("^(http://%S+)")
      if url then return url end
      os.execute("sleep 0.05")
    end
    error("record_server.py did not start")
  end

  it("costs one request for a fresh name and none while its TTL runs; reads through the name", function()
    local dir, key = folder(), ipfsrt.ipns.key_generate()
    put(dir, key, 1, "/ipfs/" .. ROOT1 .. "/root2")
    local gw = ipfsrt.serve { cars = { FIX .. "gateway-cache.car" }, ipns_records = dir }
    local client = ipfsrt.client { gateways = { gw:url() } }
    local before = gw:stats().requests
    assert.equal("/ipfs/" .. ROOT1 .. "/root2/x", client:resolve_name("ipns://" .. key:name() .. "/x"))
    assert.equal(1, gw:stats().requests - before)
    for _ = 1, 5 do client:resolve_name("ipns://" .. key:name()) end
    assert.equal(1, gw:stats().requests - before)
    -- a read through the name: the record is not asked for again
    assert.equal("hello\n", client:get("ipns://" .. key:name() .. "/root3/root4/index.html"))
    assert.equal("/ipfs/" .. ROOT1, client:resolve_name("/ipfs/" .. ROOT1))
    client:close()
    gw:stop()
  end)

  it("keeps records in cache_dir: a new client starts from them, within their TTL, with no request", function()
    local dir, cache, key = folder(), folder(), ipfsrt.ipns.key_generate()
    put(dir, key, 2, "/ipfs/" .. ROOT1 .. "/root2")
    local gw = ipfsrt.serve { cars = { FIX .. "gateway-cache.car" }, ipns_records = dir }
    local first = ipfsrt.client { gateways = { gw:url() }, cache = { dir = cache } }
    first:resolve_name("ipns://" .. key:name())
    first:close()
    local asked = gw:stats().requests
    local second = ipfsrt.client { gateways = { gw:url() }, cache = { dir = cache } }
    assert.equal("/ipfs/" .. ROOT1 .. "/root2", second:resolve_name("ipns://" .. key:name()))
    assert.equal(asked, gw:stats().requests)
    second:close()
    gw:stop()
    -- a kept file that does not verify is not used: the gateways are asked
    local f = assert(io.open(cache .. "/ipns/" .. key:name() .. ".ipns-record", "r+b"))
    f:seek("set", 40)
    f:write("X")
    f:close()
    local third = ipfsrt.client { gateways = { "http://127.0.0.1:9" }, cache = { dir = cache }, retries = 0 }
    assert.is_false(pcall(third.resolve_name, third, "ipns://" .. key:name()))
    third:close()
  end)

  it("takes the highest sequence among gateways, and never goes back to a lower one", function()
    local key = ipfsrt.ipns.key_generate()
    local old_dir, new_dir = folder(), folder()
    put(old_dir, key, 4, "/ipfs/" .. ROOT1 .. "/root2", { ttl = 1 })
    put(new_dir, key, 7, "/ipfs/" .. ROOT1, { ttl = 1 })
    local old_gw = ipfsrt.serve { cars = { FIX .. "gateway-cache.car" }, ipns_records = old_dir }
    local new_gw = ipfsrt.serve { cars = { FIX .. "gateway-cache.car" }, ipns_records = new_dir }
    local client = ipfsrt.client { gateways = { old_gw:url(), new_gw:url() } }
    assert.equal("/ipfs/" .. ROOT1, client:resolve_name("ipns://" .. key:name()))
    new_gw:stop() -- only the stale gateway is left
    os.execute("sleep 1.2") -- the TTL runs out: asked again
    local asked = old_gw:stats().requests
    assert.equal("/ipfs/" .. ROOT1, client:resolve_name("ipns://" .. key:name()))
    assert.equal(1, old_gw:stats().requests - asked)
    client:close()
    old_gw:stop()
  end)

  it("refuses what lying gateways answer, naming the gateway and the fault", function()
    local dir = folder()
    local key, other = ipfsrt.ipns.key_generate(), ipfsrt.ipns.key_generate()
    local cases = {
      { put(dir, other, 1, "/ipfs/" .. ROOT1), "bad_signature" },          -- another name's record
      { put(dir, key, 2, "/ipfs/" .. ROOT1, { eol = os.time() - 5 }), "expired" },
      { FIX .. "gateway-cache.car", "bad_record" },                        -- not a record at all
    }
    for _, case in ipairs(cases) do
      local url = lying_gateway(case[1])
      local client = ipfsrt.client { gateways = { url } }
      local ok, e = pcall(client.resolve_name, client, "ipns://" .. key:name())
      assert.is_false(ok)
      assert.equal(case[2], e.code, e.message)
      assert.truthy(e.message:find(url, 1, true), e.message)
      assert.truthy(e.message:find(key:name(), 1, true), e.message)
      client:close()
    end
  end)

  it("passes on through serve --upstream only the records that verify", function()
    local dir, key, other = folder(), ipfsrt.ipns.key_generate(), ipfsrt.ipns.key_generate()
    put(dir, key, 3, "/ipfs/" .. ROOT1 .. "/root2")
    local origin = ipfsrt.serve { cars = { FIX .. "gateway-cache.car" }, ipns_records = dir }
    local front, stop = exe.start_serve { "-q", "--upstream", origin:url() }
    local status, h, body = http(front .. "/ipns/" .. key:name() .. "?format=ipns-record")
    assert.equal(200, status)
    assert.equal("application/vnd.ipfs.ipns-record", h["content-type"])
    assert.equal(3, ipfsrt.ipns.verify(key:name(), body).sequence)
    status, _, body = http(front .. "/ipns/" .. key:name() .. "/root3/root4/index.html")
    assert.equal(200, status)
    assert.equal("hello\n", body)
    stop()
    origin:stop()
    -- an upstream that answers another name's record: nothing passed on
    local liar = lying_gateway(put(folder(), other, 1, "/ipfs/" .. ROOT1))
    front, stop = exe.start_serve { "-q", "--upstream", liar }
    status, _, body = http(front .. "/ipns/" .. key:name() .. "?format=ipns-record")
    assert.equal(502, status)
    assert.truthy(body:find("bad_signature", 1, true), body)
    assert.equal(502, (http(front .. "/ipns/" .. key:name())))
    stop()
  end)

  it("lists and resolves by name from the command line, and fails on a name no gateway holds", function()
    local dir, key = folder(), ipfsrt.ipns.key_generate()
    put(dir, key, 1, "/ipfs/" .. ROOT1)
    local gw = ipfsrt.serve { cars = { FIX .. "gateway-cache.car" }, ipns_records = dir }
    local code, out = exe.run { "ls", "ipns://" .. key:name() .. "/root2", "--gateway", gw:url() }
    assert.equal(0, code, out)
    assert.truthy(out:find("root3", 1, true))
    code, out = exe.run { "name", "resolve", key:name(), "--gateway", gw:url() }
    assert.equal(0, code)
    assert.equal("/ipfs/" .. ROOT1 .. "\n", out)
    code, out = exe.run { "cat", "ipns://" .. ipfsrt.ipns.key_generate():name(), "--gateway", gw:url() }
    assert.equal(1, code)
    gw:stop()
  end)
end)
