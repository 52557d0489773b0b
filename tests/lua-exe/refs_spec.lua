-- Kerchunk references read as Zarr: an array's compressed chunks laid end to
-- end in one container file (as a NetCDF-4 file holds them), found through
-- references (version 1 with templates and gen, and version 0) beside it in a
-- folder, in a CAR and over ipfs:// (verified, through ipfsrt.serve gateways),
-- with the values of the Zarr array they were copied from; a NetCDF-4 file
-- (netCDF4-python's) through references made by `ipfsrt refs`, equal to those
-- an independent maker (h5py) makes, read as xarray reads the file; daily
-- files joined along time (--concat); NetCDF-3 files (records interleaved).
-- A withholding or
-- lying gateway, a reference past its file's end: errors naming the key,
-- never fill values.
local ipfsrt = require "ipfsrt"
local exe = require "exe"
local put, slurp = exe.put, exe.slurp

local ROWS, COLS, CR, CC = 9, 10, 4, 3

describe("kerchunk references", function()
  local dir = os.tmpname()
  os.remove(dir)
  os.execute("mkdir -p " .. dir .. "/pub " .. dir .. "/zarr")
  -- the source: a Zarr v2 array, zlib after shuffle, written by ipfsrt
  local src = ipfsrt.zarr.create(dir .. "/zarr", { path = "t", shape = { ROWS, COLS }, chunks = { CR, CC },
    dtype = "int32", zarr_format = 2, fill_value = -9, compressor = { id = "zlib", level = 5 },
    filters = { { id = "shuffle", elementsize = 4 } }, attrs = { units = "K", _ARRAY_DIMENSIONS = { "y", "x" } } })
  local values = ipfsrt.ndarray.arange(0, ROWS * COLS, 1, "int32"):reshape { ROWS, COLS }
  src:write(nil, values)
  -- its chunks copied into one container file, in another order, with gaps
  local chunk_names, parts, at = {}, {}, 0
  for i = 0, math.ceil(ROWS / CR) - 1 do
    for j = 0, math.ceil(COLS / CC) - 1 do chunk_names[#chunk_names + 1] = i .. "." .. j end
  end
  table.sort(chunk_names, function(a, b) return a > b end)
  local spans = {}
  for _, name in ipairs(chunk_names) do
    local bytes = slurp(dir .. "/zarr/t/" .. name)
    local gap = string.rep("\0", #parts % 3 == 0 and 100 or 7)
    parts[#parts + 1] = gap .. bytes
    spans[name] = { at + #gap, #bytes }
    at = at + #gap + #bytes
  end
  put(dir .. "/pub/data.bin", table.concat(parts))
  local zarray = slurp(dir .. "/zarr/t/.zarray")
  local zattrs = slurp(dir .. "/zarr/t/.zattrs")
  -- version 1: templates, one row of chunks by gen, the rest by refs
  local refs = { [".zgroup"] = '{"zarr_format": 2}', ["t/.zarray"] = zarray, ["t/.zattrs"] = zattrs }
  local gen_offsets = {}
  for name, span in pairs(spans) do
    if name:sub(1, 2) == "0." then gen_offsets[tonumber(name:sub(3)) + 1] = span
    else refs["t/" .. name] = { "{{f}}", span[1], span[2] } end
  end
  -- gen's offsets as arithmetic on j: the row's chunks were laid out from the last one down
  local function affine(k) return gen_offsets[k] end
  local v1 = {
    version = 1, templates = { f = "data.bin" }, refs = refs,
    gen = {},
  }
  for k = 1, #gen_offsets do
    v1.gen[#v1.gen + 1] = { key = "t/0.{{j}}", url = "{{f}}", offset = tostring(affine(k)[1]),
      length = "{{" .. affine(k)[2] .. " + j * 0}}", dimensions = { j = { start = k - 1, stop = k } } }
  end
  put(dir .. "/pub/refs.json", ipfsrt.json.encode(v1))
  -- version 0: the same keys, each written out
  local v0 = { [".zgroup"] = '{"zarr_format": 2}', ["t/.zarray"] = zarray, ["t/.zattrs"] = zattrs }
  for name, span in pairs(spans) do v0["t/" .. name] = { "data.bin", span[1], span[2] } end
  put(dir .. "/pub/v0.json", ipfsrt.json.encode(v0))
  local car = dir .. "/pub.car"
  local root = tostring(ipfsrt.pack(dir .. "/pub", { output = car }))
  local gateway, stop_gateways = exe.gateways({ car })
  local honest = gateway()

  teardown(function()
    stop_gateways()
    os.execute("rm -rf " .. dir)
  end)

  local function check(g)
    local a = g.t
    assert.same({ ROWS, COLS }, a.shape)
    assert.equal("K", a.attrs.units)
    assert.same(values:tolist(), a:read():tolist())
    assert.same(values:slice { { 2, 7 }, { 1, nil, 3 } }:tolist(), a:read { { 2, 7 }, { 1, nil, 3 } }:tolist())
  end

  it("reads the array through version 1 and version 0 references in a folder", function()
    check(ipfsrt.zarr.open(dir .. "/pub/refs.json"))
    check(ipfsrt.zarr.open(dir .. "/pub/v0.json"))
    check(ipfsrt.zarr.open("refs+" .. dir .. "/pub/v0.json"))
  end)

  it("reads them as fsspec's ReferenceFileSystem and zarr-python do", function()
    for _, refs in ipairs { "refs.json", "v0.json" } do
      local p = io.popen(string.format("cd %s/pub && /usr/bin/python3 %s/tests/zarr/refs_fsspec.py %s t 2>&1", dir,
        exe.sh_quote(os.getenv("PWD")), refs))
      local out = p:read("a")
      p:close()
      local ok, theirs = pcall(ipfsrt.json.decode, out)
      assert.is_true(ok, out)
      assert.same(values:tolist(), theirs)
    end
  end)

  it("reads them from a CAR and over ipfs://, verified", function()
    check(ipfsrt.zarr.open(car .. "/refs.json"))
    local c = ipfsrt.client { gateways = { honest:url() } }
    local store = ipfsrt.zarr.store("ipfs://" .. root .. "/refs.json", { client = c })
    assert.is_true(store:info().verified)
    check(ipfsrt.zarr.open(store))
    check(ipfsrt.zarr.open("ipfs://" .. root .. "/v0.json", { client = c }))
    c:close()
  end)

  it("opens them as a dataset, its variable decoded", function()
    local c = ipfsrt.client { gateways = { honest:url() } }
    local ds = ipfsrt.dataset.open("ipfs://" .. root .. "/refs.json", { client = c })
    assert.same({ "y", "x" }, ds.t.dims)
    assert.same(values:tolist(), ds.t:values():tolist())
    c:close()
  end)

  it("fails a key whose file a gateway withholds or lies about, naming the key and the file", function()
    local other = dir .. "/other.car"
    os.execute("mkdir -p " .. dir .. "/other")
    put(dir .. "/other/refs.json", slurp(dir .. "/pub/refs.json"))
    -- the references are served, their container file is not there
    local refs_only = tostring(ipfsrt.pack(dir .. "/other", { output = other }))
    local withholding = gateway(nil, { other })
    local c = ipfsrt.client { gateways = { withholding:url() }, retries = 0 }
    local ok, err = pcall(function()
      return ipfsrt.zarr.open("ipfs://" .. refs_only .. "/refs.json", { client = c }).t:read()
    end)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("t/", 1, true) and tostring(err):find("data.bin", 1, true), tostring(err))
    c:close()
    local liar = gateway({ tamper = 1, seed = 5 })
    c = ipfsrt.client { gateways = { liar:url() }, retries = 0 }
    ok, err = pcall(function() return ipfsrt.zarr.open("ipfs://" .. root .. "/refs.json", { client = c }).t:read() end)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("hash", 1, true), tostring(err))
    c:close()
  end)

  it("survives files that crash libhdf5 or make it loop: an error naming the file, the process goes on", function()
    local fixtures = "tests/fixtures/hdf5/"
    local refs = ipfsrt.json.decode(ipfsrt.refs.make(fixtures .. "day.nc")).refs
    assert.truthy(refs["sst/.zarray"])
    -- (how it crashes varies with where memory lies: SIGSEGV or SIGABRT; under a sanitizer,
    -- its handler turns the signal into an exit status)
    for name, says in pairs { ["segfault.nc"] = "libhdf5 crashed reading it (",
      ["loop.nc"] = " 2 s" } do -- wall clock or CPU time: whichever ends it first
      local ok, err = pcall(ipfsrt.refs.make, fixtures .. name, { hdf5_seconds = 2 })
      assert.is_false(ok, name)
      assert.truthy(err.message:find(fixtures .. name, 1, true) and err.message:find(says, 1, true), err.message)
      ok, err = pcall(ipfsrt.refs.concat, { fixtures .. "day.nc", fixtures .. name }, "time", { hdf5_seconds = 2 })
      assert.is_false(ok, name)
      assert.truthy(err.message:find(fixtures .. name, 1, true), err.message)
    end
    -- abort.nc trips libhdf5 on what its heap held before: the child forked from
    -- this long-lived test process read it without a crash 2 times in 3 full
    -- runs, so it is read from a fresh command, as segfault.nc is too
    for _, name in ipairs { "segfault.nc", "abort.nc" } do
      local code, out, err = exe.run { "refs", fixtures .. name }
      assert.equal(1, code, name)
      assert.equal("", out)
      assert.truthy(err:find("^ipfsrt refs: unsupported: " .. fixtures:gsub("%p", "%%%0") .. name:gsub("%p", "%%%0")
        .. ": libhdf5 crashed reading it %(.*%): the file is damaged or hostile\n$"), err)
    end
    assert.same(refs, ipfsrt.json.decode(ipfsrt.refs.make(fixtures .. "day.nc")).refs) -- and goes on
  end)

  it("ends libhdf5's child with the command: SIGTERM to a command stuck on a looping file ends both at once", function()
    local fixtures = "tests/fixtures/hdf5/"
    local pidfile = dir .. "/refs.pid"
    os.execute(string.format("sh -c 'echo $$ > %s; exec %s refs %sloop.nc' >/dev/null 2>&1 &", pidfile,
      exe.sh_quote(os.getenv("PWD") .. "/" .. exe.EXE), fixtures))
    local pid, child
    for _ = 1, 200 do -- until the child is up
      pid = (slurp(pidfile) or ""):match("%d+")
      child = pid and (slurp("/proc/" .. pid .. "/task/" .. pid .. "/children") or ""):match("%d+")
      if child then break end
      os.execute("sleep 0.02")
    end
    assert.truthy(child, "no child process seen")
    os.execute("sleep 0.3")
    os.execute("kill -TERM " .. pid)
    for _ = 1, 100 do -- gone within two seconds, the child with it
      if not slurp("/proc/" .. pid .. "/stat") and not (slurp("/proc/" .. child .. "/stat") or ""):find("^%d+ %(") then
        break
      end
      os.execute("sleep 0.02")
    end
    assert.is_nil(slurp("/proc/" .. pid .. "/stat"), "the command lives on")
    local left = slurp("/proc/" .. child .. "/stat")
    assert.is_true(left == nil or left:match("^%d+ %b() (%a)") == "Z", "libhdf5's child lives on")
  end)

  it("refuses references from IPFS or a CAR that point outside them, unless read unverified", function()
    -- a published references file naming the reader's own files and network
    local secret = dir .. "/secret.bin"
    put(secret, slurp(dir .. "/pub/data.bin"))
    local web = ipfsrt.serve { cars = { car } }
    local web_target = web:url() .. "/ipfs/" .. root .. "/data.bin"
    os.execute("mkdir -p " .. dir .. "/hostile")
    for name, target in pairs { ["abs.json"] = secret, ["file.json"] = "file://" .. secret,
      ["http.json"] = web_target } do
      local v = { [".zgroup"] = '{"zarr_format": 2}', ["t/.zarray"] = zarray, ["t/.zattrs"] = zattrs }
      for chunk, span in pairs(spans) do v["t/" .. chunk] = { "data.bin", span[1], span[2] } end
      v["t/1.2"] = { target, spans["1.2"][1], spans["1.2"][2] }
      put(dir .. "/hostile/" .. name, ipfsrt.json.encode(v))
    end
    local hostile_car = dir .. "/hostile.car"
    os.execute("cp " .. dir .. "/pub/data.bin " .. dir .. "/hostile/")
    local hostile = tostring(ipfsrt.pack(dir .. "/hostile", { output = hostile_car }))
    local served = gateway(nil, { hostile_car, car })
    local c = ipfsrt.client { gateways = { served:url() } }
    for _, name in ipairs { "abs.json", "file.json", "http.json" } do
      for _, where in ipairs { "ipfs://" .. hostile .. "/" .. name, hostile_car .. "/" .. name } do
        local ok, err = pcall(ipfsrt.zarr.open, where, { client = where:find("^ipfs") and c or nil })
        assert.is_false(ok, where)
        assert.is_true(ipfsrt.error.is(err, "unverified"), tostring(err))
        assert.truthy(err.message:find("t/1.2", 1, true), err.message)
        assert.falsy(err.message:find("bytes", 1, true), err.message) -- nothing about the file itself
      end
      -- the caller's word: read, and counted unverified
      local store = ipfsrt.zarr.store(hostile_car .. "/" .. name, { verify = false })
      assert.is_false(store:info().verified)
      check(ipfsrt.zarr.open(store))
    end
    -- the command: refused (exit 1, naming the key), then read with --no-verify
    local code, out, errs = exe.run { "zarr", "get", "ipfs://" .. hostile .. "/abs.json", "t", "--json",
      "--gateway", served:url() }
    assert.equal(1, code)
    assert.equal("", out)
    assert.truthy(errs:find("t/1.2", 1, true) and errs:find("outside IPFS", 1, true), errs)
    code, out = exe.run { "zarr", "get", hostile_car .. "/abs.json", "t", "--json", "--no-verify" }
    assert.equal(0, code)
    assert.same(values:tolist(), ipfsrt.json.decode(out))
    -- relative targets inside the same root, and other CIDs, stay verified
    check(ipfsrt.zarr.open("ipfs://" .. root .. "/refs.json", { client = c }))
    c:close()
    web:stop()
  end)

  -- every value of got against xarray's (JSON null: NaN)
  local function same_values(got, want, what)
    if type(want) == "table" then
      for i = 1, #want do same_values(got[i], want[i], what) end
      return
    end
    if want == nil or want == ipfsrt.null then
      assert.is_true(got ~= got, what .. ": NaN expected")
    else
      assert.is_true(math.abs(got - want) <= 1e-6 * math.max(1, math.abs(want)), what)
    end
  end

  it("makes a NetCDF-4 file's references (ipfsrt refs) as h5py finds its chunks, read as xarray reads the file", function()
    os.execute("mkdir -p " .. dir .. "/nc")
    local py = exe.sh_quote(os.getenv("PWD")) .. "/tests/refs/"
    local p = io.popen(string.format("/usr/bin/python3 %smake_nc.py %s/nc/day.nc 2>/dev/null && /usr/bin/python3 "
      .. "%sh5refs.py %s/theirs.json %s/nc/day.nc", py, dir, py, dir, dir))
    local xarray = ipfsrt.json.decode(p:read("a"))
    assert.is_true(p:close())
    local code, _, err = exe.run({ "refs", dir .. "/nc/day.nc", "-o", dir .. "/nc/day.json" })
    assert.equal(0, code, err)
    assert.truthy(err:find("left out chk: fletcher32", 1, true) and err:find("left out name: not a number", 1, true), err)
    -- the same keys and ranges as the independent maker's (its file named from its own folder)
    local mine = ipfsrt.json.decode(slurp(dir .. "/nc/day.json")).refs
    local theirs = ipfsrt.json.decode(slurp(dir .. "/theirs.json"))
    local n = 0
    for k, v in pairs(theirs) do
      if type(v) == "table" then v[1] = "day.nc" end
      local ours = mine[k]
      if type(v) == "string" then v, ours = ipfsrt.json.decode(v), ipfsrt.json.decode(ours) end
      assert.same(v, ours, k)
      n = n + 1
    end
    for k in pairs(mine) do assert.is_not_nil(theirs[k], k) end
    assert.is_true(n > 40)
    local nc_car = dir .. "/nc.car"
    local nc_root = tostring(ipfsrt.pack(dir .. "/nc", { output = nc_car }))
    local served = gateway(nil, { nc_car })
    local c = ipfsrt.client { gateways = { served:url() } }
    for _, url in ipairs { dir .. "/nc/day.json", nc_car .. "/day.json", "ipfs://" .. nc_root .. "/day.json" } do
      local ds = ipfsrt.dataset.open(url, { client = c })
      for _, name in ipairs { "sst", "ice", "err", "lat", "be", "u8", "i64", "n_i1", "n_u2", "n_u4", "n_u8" } do
        same_values(ds[name]:values():tolist(), xarray[name], url .. " " .. name)
      end
      same_values(ipfsrt.dataset.open(url, { client = c, path = "grp" }).inner:values():tolist(), xarray["grp/inner"],
        url .. " grp/inner")
    end
    c:close()
    -- fsspec's reader takes them too
    p = io.popen(string.format("cd %s/nc && /usr/bin/python3 %s/tests/zarr/refs_fsspec.py day.json be 2>&1", dir,
      exe.sh_quote(os.getenv("PWD"))))
    local out = p:read("a")
    p:close()
    assert.same(xarray.be, ipfsrt.json.decode(out))
  end)

  it("makes references of plain HDF5 too: compact, contiguous, scalar, unwritten (its fill value), grouped", function()
    local p = io.popen(string.format("/usr/bin/python3 %s/tests/refs/make_h5.py %s/plain.h5",
      exe.sh_quote(os.getenv("PWD")), dir))
    local h5py = ipfsrt.json.decode(p:read("a"))
    assert.is_true(p:close())
    local code, _, err = exe.run({ "refs", dir .. "/plain.h5", "-o", dir .. "/plain.json" })
    assert.equal(0, code, err)
    local g = ipfsrt.zarr.open(dir .. "/plain.json")
    for _, name in ipairs { "small", "cont", "scal", "empty", "g/u" } do
      assert.same(h5py[name], g:get(name):read():tolist(), name)
    end
  end)

  it("joins daily files along time (--concat): ordered by time, read as xarray joins them, over ipfs:// too", function()
    local pwd = exe.sh_quote(os.getenv("PWD"))
    local p = io.popen(string.format("/usr/bin/python3 %s/tests/refs/make_daily.py %s/daily 5", pwd, dir))
    local xarray = ipfsrt.json.decode(p:read("a"))
    assert.is_true(p:close())
    local files = {}
    for i = 0, 4 do files[#files + 1] = string.format("%s/daily/oisst.%03d.nc", dir, i) end
    local code, _, err = exe.run({ "refs", files[1], files[2], files[3], files[4], files[5], "--concat", "time",
      "-o", dir .. "/daily/refs.json" })
    assert.equal(0, code, err)
    local refs = ipfsrt.json.decode(slurp(dir .. "/daily/refs.json")).refs
    assert.same({ "oisst.004.nc", "oisst.000.nc" }, { refs["sst/0.0.0.0"][1], refs["sst/4.0.0.0"][1] }) -- by time
    assert.truthy(refs["time/0"]:find("^base64:")) -- the joined coordinate inline
    local car = dir .. "/daily.car"
    local daily_root = tostring(ipfsrt.pack(dir .. "/daily", { output = car }))
    local served = gateway(nil, { car })
    local c = ipfsrt.client { gateways = { served:url() } }
    for _, url in ipairs { dir .. "/daily/refs.json", "ipfs://" .. daily_root .. "/refs.json" } do
      local ds = ipfsrt.dataset.open(url, { client = c })
      for _, name in ipairs { "sst", "ice", "time", "time_bnds", "mask", "lat" } do
        same_values(ds[name]:values():tolist(), xarray[name], url .. " " .. name)
      end
      -- a variable along time in chunks longer than a file's day: its values inline, in time order
      assert.same({ 0, 10, 20, 30, 40 }, ipfsrt.zarr.open(url, { client = c }):get("extra/n"):read():tolist())
    end
    c:close()
    -- fsspec's reader too, a key at a time (Debian's reads batches of keys in other files' order: see the script)
    for _, name in ipairs { "time_bnds", "ice" } do
      p = io.popen(string.format("cd %s/daily && /usr/bin/python3 %s/tests/zarr/refs_fsspec.py refs.json %s "
        .. "--one-by-one 2>&1", dir, pwd, name))
      local out = p:read("a")
      p:close()
      same_values(ipfsrt.json.decode(out), xarray[name], "fsspec " .. name)
    end
  end)

  it("refuses to join files that disagree, naming the file and the variable", function()
    local pwd = exe.sh_quote(os.getenv("PWD"))
    local cases = { lat = "the values of lat differ", overlap = "overlap along time", lessvars = "has ice" }
    for variant, says in pairs(cases) do
      local d = dir .. "/" .. variant
      assert.is_true(os.execute(string.format("/usr/bin/python3 %s/tests/refs/make_daily.py %s 3 %s", pwd, d, variant)))
      local code, _, err = exe.run({ "refs", d .. "/oisst.000.nc", d .. "/oisst.001.nc", d .. "/oisst.002.nc",
        "--concat", "time" })
      assert.is_true(code ~= 0, variant)
      assert.truthy(err:find(says, 1, true) and err:find("oisst.00", 1, true), err)
    end
    local code, _, err = exe.run({ "refs", dir .. "/lat/oisst.000.nc", dir .. "/lat/oisst.001.nc" })
    assert.is_true(code ~= 0)
    assert.truthy(err:find("--concat", 1, true), err)
  end)

  it("makes references of NetCDF-3 files (classic, 64-bit offset and data): records interleaved, read as xarray does",
    function()
    local pwd = exe.sh_quote(os.getenv("PWD"))
    os.execute("mkdir -p " .. dir .. "/nc3")
    local cases = { { "NETCDF3_CLASSIC" }, { "NETCDF3_64BIT_OFFSET" }, { "NETCDF3_64BIT_DATA" },
      { "NETCDF3_CLASSIC", "one" } }
    for _, case in ipairs(cases) do
      local name = case[1] .. (case[2] or "")
      local nc = dir .. "/nc3/" .. name .. ".nc"
      local p = io.popen(string.format("/usr/bin/python3 %s/tests/refs/make_nc3.py %s %s %s", pwd, nc, case[1],
        case[2] or ""))
      local xarray = ipfsrt.json.decode(p:read("a"))
      assert.is_true(p:close())
      local code, _, err = exe.run({ "refs", nc, "-o", dir .. "/nc3/" .. name .. ".json" })
      assert.equal(0, code, err)
      assert.truthy(err:find("left out name: characters", 1, true), err)
      local ds = ipfsrt.dataset.open(dir .. "/nc3/" .. name .. ".json")
      local n = 0
      for var, want in pairs(xarray) do
        local got = ds[var]:values() -- a number for a scalar variable
        got = type(got) == "number" and { got } or got:tolist()
        same_values(got, type(want) == "table" and want or { want }, name .. " " .. var)
        n = n + 1
      end
      assert.is_true(n >= (case[2] and 5 or 8), name)
    end
    -- over ipfs://, verified, and daily NetCDF-3 files joined along time
    local p = io.popen(string.format("/usr/bin/python3 %s/tests/refs/make_daily.py %s/nc3/daily 4 ok NETCDF3_CLASSIC",
      pwd, dir))
    local joined = ipfsrt.json.decode(p:read("a"))
    assert.is_true(p:close())
    local files = {}
    for i = 0, 3 do files[#files + 1] = string.format("%s/nc3/daily/oisst.%03d.nc", dir, i) end
    local code, _, err = exe.run({ "refs", files[1], files[2], files[3], files[4], "--concat", "time", "-o",
      dir .. "/nc3/daily.json" })
    assert.equal(0, code, err)
    local car = dir .. "/nc3.car"
    local nc3_root = tostring(ipfsrt.pack(dir .. "/nc3", { output = car }))
    local served = gateway(nil, { car })
    local c = ipfsrt.client { gateways = { served:url() } }
    local ds = ipfsrt.dataset.open("ipfs://" .. nc3_root .. "/daily.json", { client = c })
    for _, name in ipairs { "sst", "ice", "time", "time_bnds", "mask", "lat" } do
      same_values(ds[name]:values():tolist(), joined[name], "NetCDF-3 joined " .. name)
    end
    local classic = ipfsrt.dataset.open("ipfs://" .. nc3_root .. "/NETCDF3_CLASSIC.json", { client = c })
    assert.equal(42, classic.scalar:values())
    c:close()
  end)

  it("writes small chunks into the references themselves, and refuses what is no HDF5 file", function()
    local code, _, err = exe.run({ "refs", dir .. "/nc/day.nc", "--inline-threshold", "1M", "-o", dir .. "/all.json" })
    assert.equal(0, code, err)
    os.rename(dir .. "/nc/day.nc", dir .. "/nc/away.nc") -- every chunk is in the references now
    local a = ipfsrt.zarr.open(dir .. "/all.json").be
    assert.equal(-300000, a:read():get(0, 0))
    os.rename(dir .. "/nc/away.nc", dir .. "/nc/day.nc")
    code, _, err = exe.run({ "refs", dir .. "/pub/v0.json" })
    assert.is_true(code ~= 0)
    assert.truthy(err:find("neither an HDF5 (NetCDF-4) nor a NetCDF-3 file", 1, true), err)
  end)

  it("fails a reference past its file's end, never reading fill values", function()
    local bad = ipfsrt.json.decode(slurp(dir .. "/pub/v0.json"))
    bad["t/1.1"] = { "data.bin", at - 5, 100 }
    put(dir .. "/pub/bad.json", ipfsrt.json.encode(bad))
    local ok, err = pcall(function() return ipfsrt.zarr.open(dir .. "/pub/bad.json").t:read() end)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("t/1.1", 1, true) and tostring(err):find("ends before", 1, true), tostring(err))
  end)
end)
