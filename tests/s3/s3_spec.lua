-- s3:// Zarr stores against a local S3 (s3rver behind tests/s3/front.js, which
-- checks SigV4 signatures and injects S3's failures), started and stopped here.
local ipfsrt = require "ipfsrt"

local NODE_ENV = "NODE_OPTIONS=--openssl-legacy-provider"
local CREDS = { access_key = "AKIAIPFSRTTEST", secret_key = "ipfsrt-test-secret", region = "us-east-1" }

local function sh(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- Starts a front over a fresh folder; returns its URL and a stop function.
local function start_s3(extra)
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir -p " .. sh(dir)))
  local urlfile = dir .. ".url"
  local p = assert(io.popen(string.format("%s node tests/s3/front.js %s %s >%s 2>%s.err & echo $!", NODE_ENV,
    sh(dir), extra or "", sh(urlfile), sh(urlfile))))
  local pid = p:read("l")
  p:close()
  local url
  for _ = 1, 200 do -- up to 10 s
    local f = io.open(urlfile)
    url = f and f:read("l")
    if f then f:close() end
    if url and url:find("^http://") then break end
    os.execute("sleep 0.05")
  end
  assert(url and url:find("^http://"), "the local S3 did not start")
  return url, function()
    os.execute("kill " .. pid .. " 2>/dev/null")
    os.execute("rm -rf " .. sh(dir) .. " " .. sh(urlfile) .. " " .. sh(urlfile .. ".err"))
  end, dir
end

local function post(url, json)
  assert(os.execute("curl -s -o /dev/null -X POST --data " .. sh(json) .. " " .. sh(url .. "/__faults")))
end

local function stats(url)
  local p = assert(io.popen("curl -s " .. sh(url .. "/__stats")))
  local s = ipfsrt.json.decode(p:read("a"))
  p:close()
  return s
end

local function opts(url, more)
  local o = { endpoint = url, backoff = 0.01 }
  for k, v in pairs(CREDS) do o[k] = v end
  for k, v in pairs(more or {}) do o[k] = v end
  return o
end

local function same(x, y) return x:eq(y):all() end

describe("s3:// stores", function()
  local url, stop
  setup(function() url, stop = start_s3("--bucket-region moved=eu-west-1") end)
  teardown(function() stop() end)

  it("write and read Zarr v2 and v3 arrays (sharded too) as a folder holds them, signed", function()
    local values = ipfsrt.ndarray.arange(-300, 300):astype("int16"):reshape { 20, 30 }
    for _, o in ipairs {
      { zarr_format = 2, compressor = "zstd", chunks = { 8, 7 } },
      { zarr_format = 3, chunks = { 8, 7 } },
      { zarr_format = 3, chunks = { 4, 5 }, shards = { 8, 10 } },
    } do
      local name = "a" .. o.zarr_format .. (o.shards and "s" or "")
      o.shape, o.dtype, o.fill_value, o.path, o.s3 = { 20, 30 }, "int16", -9, name, opts(url)
      local a = ipfsrt.zarr.create("s3://data/t1", o)
      a:write(nil, values)
      local b = ipfsrt.zarr.open("s3://data/t1", { path = name, s3 = opts(url) })
      assert.is_true(same(b:read(), values), name)
      assert.is_true(same(b:read { { 3, 17 }, { 29, 1, -4 } }, values:slice { { 3, 17 }, { 29, 1, -4 } }), name)
    end
    assert.equal(0, stats(url).anonymous)
  end)

  it("reads a chunk S3 does not have as the fill value, and lists prefixes page by page", function()
    local a = ipfsrt.zarr.create("s3://data/t2", { shape = { 1100 }, chunks = { 1 }, dtype = "int8", fill_value = 5,
      zarr_format = 2, s3 = opts(url) })
    a:write({ { 0, 1050 } }, 1) -- 1,050 chunk objects: two pages of ListObjectsV2
    local x = ipfsrt.zarr.open("s3://data/t2", { s3 = opts(url) }):read()
    assert.equal(1, x:get(1049))
    assert.equal(5, x:get(1050)) -- never written: absent, the fill value
    local store = ipfsrt.zarr.store("s3://data/t2", { s3 = opts(url) })
    local names = store:list_dir("")
    assert.equal(1051, #names) -- the chunks and .zarray
  end)

  it("asks again after 503 SlowDown, follows a bucket to its region, and fixes a suffix answered from the start",
    function()
      local a = ipfsrt.zarr.create("s3://moved/t3", { shape = { 12, 12 }, chunks = { 4, 4 }, shards = { 12, 12 },
        dtype = "float32", fill_value = 0, zarr_format = 3, s3 = opts(url) })
      local v = ipfsrt.ndarray.linspace(0, 1, 144):astype("float32"):reshape { 12, 12 }
      a:write(nil, v)
      post(url, '{"fail": 2}')
      local b = ipfsrt.zarr.open("s3://moved/t3", { s3 = opts(url) })
      -- one inner chunk: the shard's index is its last bytes (a suffix range; s3rver answers it from the start)
      local ranged = stats(url).ranged
      assert.is_true(same(b:read { { 4, 8 }, { 4, 8 } }, v:slice { { 4, 8 }, { 4, 8 } }))
      assert.equal(3, stats(url).ranged - ranged) -- the suffix, the same bytes asked as a range, the inner chunk
    end)

  it("refuses an answer with other bytes than asked", function()
    local a = ipfsrt.zarr.create("s3://data/t4", { shape = { 12 }, chunks = { 4 }, shards = { 12 }, dtype = "int32",
      fill_value = 0, zarr_format = 3, s3 = opts(url) })
    a:write(nil, ipfsrt.ndarray.arange(12):astype("int32"))
    post(url, '{"bad_range": 100}')
    local ok, err = pcall(function() ipfsrt.zarr.open("s3://data/t4", { s3 = opts(url) }):read { { 4, 8 } } end)
    post(url, '{"bad_range": 0}')
    assert.is_false(ok)
    assert.truthy(tostring(err):find("other bytes than asked", 1, true), tostring(err))
    local opened = ipfsrt.zarr.open("s3://data/t4", { s3 = opts(url) })
    post(url, '{"long_part": 100}') -- more bytes than the range: refused as they arrive, never held
    ok, err = pcall(opened.read, opened, { { 4, 8 } })
    post(url, '{"long_part": 0}')
    assert.is_false(ok)
    assert.truthy(tostring(err):find("larger than asked", 1, true), tostring(err))
  end)

  it("refuses a listing answered 200 with an error document, and one whose continuation token comes back", function()
    local store = ipfsrt.zarr.store("s3://data/t2", { s3 = opts(url) })
    post(url, '{"list_error": 1}')
    local ok, err = pcall(store.list_dir, store, "")
    assert.is_false(ok) -- never "an empty bucket"
    assert.truthy(tostring(err):find("error document: InternalError", 1, true), tostring(err))
    post(url, '{"list_loop": 5}')
    ok, err = pcall(store.list_dir, store, "")
    post(url, '{"list_loop": 0}')
    assert.is_false(ok)
    assert.truthy(tostring(err):find("'again' came back", 1, true), tostring(err))
  end)

  it("takes 403 for a missing key as an error naming S3's code, or as absent when told", function()
    local a = ipfsrt.zarr.create("s3://data/t5", { shape = { 8 }, chunks = { 4 }, dtype = "int8", fill_value = 7,
      zarr_format = 2, s3 = opts(url) })
    a:write({ { 0, 4 } }, 1)
    post(url, '{"forbid_missing": true}')
    local ok, err = pcall(function() ipfsrt.zarr.open("s3://data/t5", { s3 = opts(url) }):read() end)
    assert.is_false(ok)
    assert.equal("denied", err.code)
    assert.truthy(err.message:find("AccessDenied", 1, true), err.message)
    local x = ipfsrt.zarr.open("s3://data/t5", { s3 = opts(url, { forbidden_is_absent = true }) }):read()
    post(url, '{"forbid_missing": false}')
    assert.same({ 1, 1, 1, 1, 7, 7, 7, 7 }, x:tolist())
  end)

  it("reads a CARv2 on S3 verified, through its index: the OISST-like sample as the folder holds it", function()
    local dir = os.tmpname()
    os.remove(dir)
    assert(os.execute(string.format("%s scripts/sample/oisst.lua %s --days 3 >/dev/null 2>&1",
      (os.getenv("IPFSRT_BUILD") or "build") .. "/ipfsrt", sh(dir))))
    ipfsrt.pack(dir, { output = dir .. ".car", hidden = true, car_version = 2 })
    local f = assert(io.open(dir .. ".car", "rb"))
    local car = f:read("a")
    f:close()
    local bucket = ipfsrt.zarr.store("s3://data/cars", { writable = true, s3 = opts(url) })
    bucket:put("oisst.car", car)
    local here = ipfsrt.dataset.open(dir)
    local there = ipfsrt.dataset.open("s3://data/cars/oisst.car", { s3 = opts(url) })
    assert.is_true(ipfsrt.zarr.store("s3://data/cars/oisst.car", { s3 = opts(url) }):info().verified)
    for _, name in ipairs { "sst", "ice" } do
      local x, y = here[name]:isel { time = 1 }:values(), there[name]:isel { time = 1 }:values()
      assert.is_true((x:eq(y) | x:isnan()):all(), name)
    end
    assert.same(here.time:dates(), there.time:dates())
    -- one byte changed inside a block of the CAR on S3 (its largest, a chunk's): refused, naming the block
    local biggest = ""
    for _, bytes in ipfsrt.car.open(dir .. ".car"):blocks() do
      if #bytes > #biggest then biggest = bytes end
    end
    local at = car:find(biggest, 1, true) + #biggest // 2
    bucket:put("bad.car", car:sub(1, at - 1) .. string.char((car:byte(at) + 1) % 256) .. car:sub(at + 1))
    local ok, err = pcall(function()
      local bad = ipfsrt.zarr.open("s3://data/cars/bad.car", { s3 = opts(url) })
      for _, a in ipairs(bad:arrays()) do a:read() end
    end)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("bafk", 1, true) or tostring(err):find("bafy", 1, true), tostring(err))
    assert.truthy(tostring(err):find("bad.car", 1, true), tostring(err))
    assert.equal("hash_mismatch", err.code)
    assert.truthy(err.message:find("chunk", 1, true), err.message) -- the array and the chunk key are named
    -- the same CAR from a plain web server (here the S3 server, unsigned): read the same way, verified
    local web = url .. "/data/cars/oisst.car"
    local before_anon = stats(url).anonymous
    local over_web = ipfsrt.dataset.open(web)
    assert.equal("http-car", ipfsrt.zarr.store(web):info().kind)
    assert.is_true(ipfsrt.zarr.store(web):info().verified)
    local x, y = here.sst:isel { time = 2 }:values(), over_web.sst:isel { time = 2 }:values()
    assert.is_true((x:eq(y) | x:isnan()):all())
    assert.truthy(stats(url).anonymous > before_anon)
    ok, err = pcall(function()
      local bad = ipfsrt.zarr.open(url .. "/data/cars/bad.car")
      for _, a in ipairs(bad:arrays()) do a:read() end
    end)
    assert.is_false(ok)
    assert.equal("hash_mismatch", err.code)
    assert.truthy(err.message:find(url .. "/data/cars/bad.car", 1, true), err.message)
    -- the CLI reads it verified too, without --no-verify (which plain web folders need)
    local cli = io.popen((os.getenv("IPFSRT_BUILD") or "build") .. "/ipfsrt zarr info " .. sh(web) .. " 2>&1")
    local listed = cli:read("a")
    assert.is_true(cli:close(), listed)
    assert.truthy(listed:find("sst", 1, true), listed)
    ok, err = pcall(ipfsrt.zarr.open, url .. "/data/cars/none.car")
    assert.is_false(ok)
    assert.truthy(err.message:find("none.car", 1, true), err.message)
    -- a CARv1 has no index: one is made by reading it once, and kept in the cache
    ipfsrt.pack(dir, { output = dir .. "-v1.car", hidden = true })
    f = assert(io.open(dir .. "-v1.car", "rb"))
    bucket:put("v1.car", f:read("a"))
    f:close()
    local cache = dir .. "-cache"
    local env = string.format("IPFSRT_CACHE_DIR=%s AWS_ENDPOINT_URL=%s AWS_ACCESS_KEY_ID=%s AWS_SECRET_ACCESS_KEY=%s",
      sh(cache), sh(url), CREDS.access_key, CREDS.secret_key)
    local exe = (os.getenv("IPFSRT_BUILD") or "build") .. "/ipfsrt"
    local function whole_reads() local s = stats(url) return s.requests - s.ranged end
    local function get_sst()
      local p = io.popen(string.format("%s %s zarr get s3://data/cars/v1.car sst 1,0,400,1000:1010 --json 2>&1",
        env, exe))
      local out = p:read("a")
      p:close()
      return out
    end
    local before = whole_reads()
    local first = get_sst()
    assert.equal(1, whole_reads() - before) -- read through once
    local second = get_sst()
    assert.equal(1, whole_reads() - before) -- then from the cached index
    assert.equal(first, second)
    assert.same(ipfsrt.zarr.open(dir).sst:read { 1, 0, 400, { 1000, 1010 } }:tolist(), ipfsrt.json.decode(first))
    assert.is_true(os.execute("ls " .. sh(cache .. "/car-index") .. "/*.idx >/dev/null"))
    os.execute("rm -rf " .. sh(dir) .. " " .. sh(dir .. ".car") .. " " .. sh(dir .. "-v1.car") .. " " .. sh(cache))
  end)

  it("ipfsrt zarr cp, info and pack reach S3 with the credentials of the environment", function()
    local src = os.tmpname()
    os.remove(src)
    ipfsrt.zarr.create(src, { shape = { 6 }, chunks = { 4 }, dtype = "uint8", fill_value = 0, zarr_format = 2 })
      :write(nil, ipfsrt.ndarray.arange(6):astype("uint8"))
    local exe = (os.getenv("IPFSRT_BUILD") or "build") .. "/ipfsrt"
    local env = string.format("AWS_ENDPOINT_URL=%s AWS_ACCESS_KEY_ID=%s AWS_SECRET_ACCESS_KEY=%s", sh(url),
      CREDS.access_key, CREDS.secret_key)
    assert.is_true(os.execute(string.format("%s %s zarr cp %s s3://data/cli.zarr >/dev/null 2>&1", env, exe, sh(src))))
    local p = io.popen(string.format("%s %s zarr info s3://data/cli.zarr 2>&1", env, exe))
    local out = p:read("a")
    p:close()
    assert.truthy(out:find("uint8 [6]", 1, true), out)
    p = io.popen(string.format("AWS_ENDPOINT_URL=%s AWS_ACCESS_KEY_ID=%s AWS_SECRET_ACCESS_KEY=not-it %s zarr info "
      .. "s3://data/cli.zarr 2>&1; echo \"exit $?\"", sh(url), CREDS.access_key, exe))
    out = p:read("a")
    p:close()
    assert.truthy(out:find("SignatureDoesNotMatch", 1, true) and out:find("exit 1", 1, true), out)
    assert.is_nil(out:find("not-it", 1, true), out)
    -- a CAR packed straight to S3 (through a temporary file, which is gone after), then read from there verified
    local tmp = os.tmpname()
    os.remove(tmp)
    assert(os.execute("mkdir -p " .. sh(tmp)))
    post(url, '{"fail": 1}') -- the upload is refused once (503): sent again from the file's start
    p = io.popen(string.format("TMPDIR=%s %s %s pack %s -o s3://data/up/packed.car --car-version 2 --hidden 2>&1",
      sh(tmp), env, exe, sh(src)))
    local root = p:read("a"):match("(%S+)%s*$")
    p:close()
    assert.truthy(root and root:find("^bafy"), root)
    assert.is_true(os.execute("[ -z \"$(ls -A " .. sh(tmp) .. ")\" ]"))
    p = io.popen(string.format("%s %s zarr get s3://data/up/packed.car '' : --json 2>&1", env, exe))
    out = p:read("a")
    p:close()
    assert.same({ 0, 1, 2, 3, 4, 5 }, ipfsrt.json.decode(out), out)
    local uploaded = ipfsrt.zarr.store("s3://data/up", { s3 = opts(url) }):get("packed.car")
    local f = assert(io.open(src .. ".car", "wb"))
    f:close()
    ipfsrt.pack(src, { output = src .. ".car", car_version = 2, hidden = true })
    f = assert(io.open(src .. ".car", "rb"))
    assert.equal(f:read("a"), uploaded) -- the same bytes as packed here
    f:close()
    -- a failed upload says why and leaves no temporary file behind
    p = io.popen(string.format("TMPDIR=%s AWS_ENDPOINT_URL=%s AWS_ACCESS_KEY_ID=%s AWS_SECRET_ACCESS_KEY=not-it %s pack "
      .. "%s -o s3://data/up/x.car 2>&1; echo \"exit $?\"", sh(tmp), sh(url), CREDS.access_key, exe, sh(src)))
    out = p:read("a")
    p:close()
    assert.truthy(out:find("SignatureDoesNotMatch", 1, true) and out:find("exit 1", 1, true), out)
    assert.is_true(os.execute("[ -z \"$(ls -A " .. sh(tmp) .. ")\" ]"))
    os.execute("rm -rf " .. sh(src) .. " " .. sh(src .. ".car") .. " " .. sh(tmp))
  end)

  it("uploads a file above the part size in parts (multipart), through a refused first try", function()
    local path = os.tmpname()
    local rows = {}
    for i = 1, 12 * 1024 do rows[i] = string.format("%99d", i):rep(10) .. "\n" .. ("x"):rep(13) end
    local data = table.concat(rows) .. "tail" -- 12.3 MB: parts of 5, 5 and 2.3 MiB
    local f = assert(io.open(path, "wb"))
    f:write(data)
    f:close()
    local o = opts(url, { part_size = 5 << 20 })
    local before = stats(url).requests
    post(url, '{"fail": 1}')
    ipfsrt.s3.put_file("s3://data/big/file.bin", path, o)
    -- start (refused once, then again), three parts, completion
    assert.equal(6, stats(url).requests - before)
    assert.equal(data, ipfsrt.zarr.store("s3://data/big", { s3 = o }):get("file.bin"))
    -- below the part size: one PUT
    before = stats(url).requests
    ipfsrt.s3.put_file("s3://data/big/small.bin", path, opts(url))
    assert.equal(1, stats(url).requests - before)
    assert.equal(data, ipfsrt.zarr.store("s3://data/big", { s3 = o }):get("small.bin"))
    -- refused: nothing is left behind, and the message says why
    local ok, err = pcall(ipfsrt.s3.put_file, "s3://data/big/refused.bin", path,
      opts(url, { part_size = 5 << 20, secret_key = "not-it" }))
    assert.is_false(ok)
    assert.truthy(tostring(err):find("SignatureDoesNotMatch", 1, true), tostring(err))
    assert.is_nil(tostring(err):find("not-it", 1, true))
    assert.is_nil(ipfsrt.zarr.store("s3://data/big", { s3 = o }):get("refused.bin"))
    ok, err = pcall(ipfsrt.s3.put_file, "s3://data/big/x", path, opts(url, { part_size = 1 << 20 }))
    assert.is_false(ok)
    assert.truthy(tostring(err):find("5 MiB", 1, true), tostring(err))
    os.remove(path)
  end)

  it("says clearly what is wrong with credentials, buckets and access, never the secret", function()
    local function fails(where, o)
      local ok, err = pcall(function() ipfsrt.zarr.open(where, { s3 = o }) end)
      assert.is_false(ok, where)
      assert.is_nil(tostring(err):find("ipfsrt-test-secret", 1, true), tostring(err))
      assert.is_nil(tostring(err):find("wrong-secret", 1, true), tostring(err))
      return tostring(err)
    end
    ipfsrt.zarr.group("s3://private/g", { s3 = opts(url) })
    assert.truthy(fails("s3://data/t1", opts(url, { secret_key = "wrong-secret" })):find("SignatureDoesNotMatch", 1,
      true))
    assert.truthy(fails("s3://data/t1", opts(url, { access_key = "AKIANOBODY" })):find("InvalidAccessKeyId", 1, true))
    assert.truthy(fails("s3://private/g", { endpoint = url, anonymous = true }):find("AccessDenied", 1, true))
    assert.truthy(fails("s3://nosuchbucket/x", opts(url)):find("NoSuchBucket", 1, true))
    assert.truthy(fails("s3://data/t1", { endpoint = url, access_key = "AKIAIPFSRTTEST",
      secret_key = "ipfsrt-test-secret", session_token = "not-it" }):find("InvalidToken", 1, true))
    local g = ipfsrt.zarr.open("s3://private/g", { s3 = opts(url, { session_token = "ipfsrt-session-token" }) })
    assert.is_false(g.is_array)
  end)
end)
