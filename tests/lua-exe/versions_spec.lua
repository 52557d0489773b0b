-- Datasets that grow: `ipfsrt zarr append` and `replace` make a new version
-- of a CAR as a delta CAR whose root is the one `ipfsrt pack` gives for the
-- changed folder (for every preset, v2 and v3, sharded, HAMT directories);
-- `ipfsrt car diff` makes the same delta from two CARs; `ipfsrt diff` and
-- ds:changed_since name what changed; bad appends are refused leaving
-- nothing behind; a crash mid-append names no new root; a delta that does
-- not verify is refused; a warm block cache fetches only the delta.
local ipfsrt = require "ipfsrt"
local exe = require "exe"
local nd = ipfsrt.ndarray

local NLAT, NLON = 8, 10

local function tmpdir()
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir -p " .. dir))
  return dir
end

-- sst (time, lat, lon) stored as int16 hundredths (fill -999 where a cell
-- is land), time in days since 2000-01-01 at noon; days [first, first + n).
local function sst_of(first, n, nlat, nlon)
  nlat, nlon = nlat or NLAT, nlon or NLON
  local x = nd.zeros({ n, nlat, nlon }, "int16")
  for t = 0, n - 1 do
    for i = 0, nlat - 1 do
      for j = 0, nlon - 1 do
        local day = first + t
        x:set(t, i, j, (i + j) % 7 == 0 and -999 or (day * 37 + i * 11 + j * 5) % 3000 - 500)
      end
    end
  end
  return x
end

-- A dataset of days [first, first + n): Zarr v2 (xarray's layout) or v3
-- (shards of 2 x 4 x 5 chunks of 1 x 4 x 5 when sharded), consolidated;
-- opts.nlat, opts.nlon and opts.compressor (default zstd) for bigger ones.
local function make_dataset(dir, first, n, opts)
  opts = opts or {}
  local format = opts.format or 2
  local nlat, nlon = opts.nlat or NLAT, opts.nlon or NLON
  local zarr = ipfsrt.zarr
  zarr.group(dir, { zarr_format = format })
  local function create(name, shape, chunks, dtype, dims, attrs, fill, shards)
    return zarr.create(dir, { path = name, zarr_format = format, shape = shape, chunks = chunks, dtype = dtype,
      compressor = opts.compressor == nil and "zstd" or opts.compressor, fill_value = fill, attrs = attrs,
      dimension_names = dims, shards = shards })
  end
  local sst_chunks = opts.shards and { 1, 4, 5 } or { 2, 4, 5 }
  if opts.nlat then sst_chunks = { 1, nlat, nlon } end
  local sst = create("sst", { n, nlat, nlon }, sst_chunks, "int16", { "time", "lat", "lon" },
    { scale_factor = 0.01, units = "degC", long_name = "sea surface temperature" }, -999,
    opts.shards and { 2, 4, 5 } or nil)
  sst:write(nil, sst_of(first, n, nlat, nlon))
  local days = {}
  for t = 0, n - 1 do days[t + 1] = first + t + 0.5 end
  create("time", { n }, { 2 }, "float64", { "time" }, { units = "days since 2000-01-01", calendar = "standard" })
    :write(nil, nd.from(days, "float64"))
  create("lat", { nlat }, { nlat }, "float32", { "lat" }, { units = "degrees_north" })
    :write(nil, nd.linspace(-70, 70, nlat):astype("float32"))
  create("lon", { nlon }, { nlon }, "float32", { "lon" }, { units = "degrees_east" })
    :write(nil, nd.linspace(0, 324, nlon):astype("float32"))
  zarr.consolidate(dir)
end

local function run_ok(args)
  local code, out, err = exe.run(args)
  assert(code == 0, table.concat(args, " ") .. ": " .. err)
  return out
end

local function file_hash(path) return exe.slurp(path) end

-- The CIDs a CAR holds, as a sorted list.
local function cids_of(path)
  local car <close> = ipfsrt.car.open(path)
  local out = {}
  for cid in car:blocks() do out[#out + 1] = tostring(cid) end
  table.sort(out)
  return out
end

describe("a dataset's new version", function()
  local dir
  before_each(function() dir = tmpdir() end)
  after_each(function() os.execute("rm -rf " .. dir) end)

  -- old.car (days 0..n) packed with settings, the new days in a folder, and
  -- a copy of the old folder to change in place.
  local function versions(settings, opts)
    make_dataset(dir .. "/old", 0, 5, opts)
    make_dataset(dir .. "/day", 5, 3, opts)
    assert(os.execute("cp -r " .. dir .. "/old " .. dir .. "/copy"))
    local args = { "pack", dir .. "/old", "-o", dir .. "/old.car" }
    for _, s in ipairs(settings) do args[#args + 1] = s end
    return (run_ok(args):gsub("%s+$", ""))
  end

  local function append_both(settings)
    local args = { "zarr", "append", dir .. "/old.car", dir .. "/day", "--dim", "time", "-o", dir .. "/delta.car" }
    for _, s in ipairs(settings) do args[#args + 1] = s end
    local root = run_ok(args):gsub("%s+$", "")
    run_ok { "zarr", "append", dir .. "/copy", dir .. "/day", "--dim", "time" }
    return root
  end

  local function packed(settings, folder)
    local args = { "pack", folder, "-o", dir .. "/packed.car", "--force" }
    for _, s in ipairs(settings) do args[#args + 1] = s end
    return (run_ok(args):gsub("%s+$", ""))
  end

  local function check_values(where, days)
    local ds = ipfsrt.dataset.open(where, { decode = false })
    assert.same({ days, NLAT, NLON }, ds.sst.shape)
    assert.is_true(ds.sst:values():eq(sst_of(0, days)):all())
    local t = ds.time:values()
    for k = 0, days - 1 do assert.equal(k + 0.5, t:get(k)) end
  end

  for _, case in ipairs {
    { name = "ipfs-car", settings = {} },
    { name = "kubo", settings = { "--preset", "kubo" } },
    { name = "kubo-v1-2025", settings = { "--preset", "kubo-v1-2025" } },
    { name = "ipfs-car, HAMT-sharded directories", settings = { "--hamt", "entries:4", "--fanout", "4" } },
    { name = "kubo, Zarr v3", settings = { "--preset", "kubo" }, format = 3 },
    { name = "kubo-v1-2025, Zarr v3 sharded", settings = { "--preset", "kubo-v1-2025" }, format = 3, shards = true },
  } do
    it("appends along time with " .. case.name .. ": the root pack gives for the changed folder", function()
      local old_root = versions(case.settings, { format = case.format, shards = case.shards })
      local root = append_both(case.settings)
      assert.are_not.equal(old_root, root)
      assert.equal(packed(case.settings, dir .. "/copy"), root) -- the same bytes, the same root
      check_values({ dir .. "/delta.car", dir .. "/old.car" }, 8)
      check_values(dir .. "/copy", 8)
      -- the consolidated metadata names the new shape
      local g = ipfsrt.zarr.open({ dir .. "/delta.car", dir .. "/old.car" })
      assert.same({ 8, NLAT, NLON }, g.sst.shape)
      -- the delta is exactly what the old CAR lacks of the new version
      run_ok { "car", "diff", dir .. "/old.car", dir .. "/packed.car", "-o", dir .. "/diffed.car", "-q" }
      assert.same(cids_of(dir .. "/diffed.car"), cids_of(dir .. "/delta.car"))
      assert.same(ipfsrt.car.open(dir .. "/packed.car"):roots(), ipfsrt.car.open(dir .. "/diffed.car"):roots())
    end)
  end

  it("writes a region again, as xarray's region =, for v2, v3 and v3 sharded", function()
    for _, case in ipairs { { format = 2 }, { format = 3 }, { format = 3, shards = true } } do
      os.execute("rm -rf " .. dir .. "/*")
      versions({}, case)
      local fix = dir .. "/fix"
      make_dataset(fix, 1, 2, case)
      local fixed = sst_of(1, 2) + 1
      ipfsrt.zarr.open(fix, { writable = true }).sst:write(nil, fixed)
      local root = run_ok({ "zarr", "replace", dir .. "/old.car", fix, "--region", "time=1:3",
        "-o", dir .. "/delta.car" }):gsub("%s+$", "")
      run_ok { "zarr", "replace", dir .. "/copy", fix, "--region", "time=1:3" }
      assert.equal(packed({}, dir .. "/copy"), root)
      local x = ipfsrt.dataset.open({ dir .. "/delta.car", dir .. "/old.car" }, { decode = false }).sst:values()
      assert.is_true(x:slice { { 1, 3 } }:eq(fixed):all())
      assert.is_true(x:slice { { 3, 5 } }:eq(sst_of(3, 2)):all())
      local r = ipfsrt.dataset.diff(dir .. "/old.car", { dir .. "/delta.car", dir .. "/old.car" })
      local v = r.variables.sst
      assert.equal(0, #v.chunks.added)
      assert.is_true(#v.chunks.changed > 0)
      assert.same({ 0, 4 }, v.isel.time) -- chunks (shards) of two days: days 0 to 3 were written again
    end
  end)

  it("says what changed: the chunks added and the days they cover", function()
    versions({})
    append_both({})
    local out = run_ok { "diff", dir .. "/old.car", dir .. "/delta.car", "--json" }
    local r = ipfsrt.json.decode(out)
    local sst = r.variables.sst
    assert.equal("changed", sst.change)
    assert.same({ 5, NLAT, NLON }, sst.shape.old)
    assert.same({ 8, NLAT, NLON }, sst.shape.new)
    -- days 5..7 in chunks of two: chunk 2 (days 4 and 5) changed, 3 added
    assert.same({ "2.0.0", "2.0.1", "2.1.0", "2.1.1" }, sst.chunks.changed)
    assert.same({ "3.0.0", "3.0.1", "3.1.0", "3.1.1" }, sst.chunks.added)
    local time = sst.ranges.time[1]
    assert.same({ 4, 8, "2000-01-05T12:00:00", "2000-01-08T12:00:00" }, time)
    assert.equal("changed", r.files[".zmetadata"])
    local text = run_ok { "diff", dir .. "/old.car", dir .. "/delta.car" }
    assert.truthy(text:find("~ sst: shape [5, 8, 10] -> [8, 8, 10]; chunks 4 added, 4 changed", 1, true))
    assert.truthy(text:find("time [4, 8) 2000-01-05T12:00:00 to 2000-01-08T12:00:00", 1, true))
    -- a script re-reads only that
    local new = ipfsrt.dataset.open({ dir .. "/delta.car", dir .. "/old.car" }, { decode = false })
    local changed = new:changed_since(dir .. "/old.car")
    assert.same({ 4, 8 }, changed.variables.sst.isel.time)
    assert.same({}, (new:changed_since({ dir .. "/delta.car", dir .. "/old.car" })).variables)
    -- a delta lacking a block of the new version (its .zmetadata): an error naming it, not "removed"
    local delta = ipfsrt.car.open(dir .. "/delta.car")
    do
      local w <close> = ipfsrt.car.writer(dir .. "/lacking.car", delta:roots())
      for cid, data in delta:blocks() do
        if not data:find('"metadata"', 1, true) then w:put(cid, data) end
      end
    end
    local code, _, err = exe.run { "diff", dir .. "/old.car", dir .. "/lacking.car" }
    assert.are_not.equal(0, code)
    assert.truthy(err:find(".zmetadata", 1, true) and err:find("is not in", 1, true), err)
    -- a data type that changed is named
    for i, dtype in ipairs { "int16", "float32" } do
      local v = dir .. "/typed" .. i
      ipfsrt.zarr.group(v, { zarr_format = 2 })
      ipfsrt.zarr.create(v, { path = "x", zarr_format = 2, shape = { 4 }, chunks = { 2 }, dtype = dtype,
        dimension_names = { "t" } }):write(nil, nd.arange(4):astype(dtype))
      ipfsrt.zarr.consolidate(v)
      run_ok { "pack", v, "-o", v .. ".car" }
    end
    text = run_ok { "diff", dir .. "/typed1.car", dir .. "/typed2.car" }
    assert.truthy(text:find("~ x: dtype int16 -> float32; chunks 2 changed", 1, true), text)
  end)

  it("reads the old version of changed_since through the dataset's own gateways", function()
    local old_root = versions({})
    local new_root = append_both({})
    local url, stop = exe.start_serve { dir .. "/old.car", dir .. "/delta.car", "-q" }
    local ds = ipfsrt.dataset.open("ipfs://" .. new_root, { gateways = { url }, decode = false })
    local ok, r = pcall(ds.changed_since, ds, "ipfs://" .. old_root)
    stop()
    assert.is_true(ok, tostring(r))
    assert.same({ 4, 8 }, r.variables.sst.isel.time)
  end)

  it("appends through the Lua API: ds:append, to_zarr{append_dim}, values encoded as the old version's", function()
    versions({})
    local old = ipfsrt.dataset.open(dir .. "/old.car")
    local day = ipfsrt.dataset.open(dir .. "/day")
    local root = old:append(day, { dim = "time", output = dir .. "/delta.car" })
    assert.equal(tostring(root), tostring(ipfsrt.car.open(dir .. "/delta.car"):roots()[1]))
    -- decoded values (floats, NaN for land) are packed again as the old ones
    local decoded = tmpdir()
    local zarr = ipfsrt.zarr
    zarr.group(decoded, { zarr_format = 2 })
    local d = ipfsrt.dataset.open(dir .. "/day")
    for _, name in ipairs { "sst", "time", "lat", "lon" } do
      local v = d[name]
      zarr.create(decoded, { path = name, zarr_format = 2, shape = v.shape, chunks = v.shape,
        dtype = name == "sst" and "float32" or v:_values_array().dtype, fill_value = 0 / 0,
        dimension_names = v.dims, attrs = name == "time" and { units = "hours since 2000-01-06", calendar = "standard" } or {} })
        :write(nil, name == "time" and nd.from({ 12, 36, 60 }, "float64") or v:_values_array())
    end
    local root2 = ipfsrt.dataset.append(dir .. "/old.car", decoded, { dim = "time", output = dir .. "/delta2.car" })
    assert.equal(tostring(root), tostring(root2)) -- the same bytes either way
    os.execute("rm -rf " .. decoded)
    -- a variable with its coordinates, as xarray's to_zarr(append_dim=)
    local root3 = day.sst:to_zarr(dir .. "/old.car", { append_dim = "time", output = dir .. "/delta3.car" })
    assert.equal(tostring(root), tostring(root3))
    -- an output that exists (a file, a dangling link) is not overwritten unless asked
    local ok, err = pcall(old.append, old, day, { dim = "time", output = dir .. "/delta.car" })
    assert.is_false(ok)
    assert.truthy(err.message:find("delta.car already exists (a file); not overwriting it (force = true", 1, true))
    assert.equal(tostring(root), tostring(old:append(day, { dim = "time", output = dir .. "/delta.car", force = true })))
    assert(os.execute("ln -s " .. dir .. "/nowhere " .. dir .. "/dangling.car"))
    ok, err = pcall(old.append, old, day, { dim = "time", output = dir .. "/dangling.car" })
    assert.is_false(ok)
    assert.truthy(err.message:find("(a symbolic link)", 1, true), err.message)
    for _, out in ipairs { dir .. "/delta.car", dir .. "/dangling.car" } do
      local code, _, e = exe.run { "car", "diff", dir .. "/old.car", dir .. "/delta.car", "-o", out }
      assert.equal(1, code)
      assert.truthy(e:find("not overwriting it (--force replaces it)", 1, true), e)
      code, _, e = exe.run { "zarr", "append", dir .. "/old.car", dir .. "/day", "--dim", "time", "-o", out }
      assert.are_not.equal(0, code)
      assert.truthy(e:find("not overwriting it", 1, true), e)
    end
    assert.is_true(os.execute("test -L " .. dir .. "/dangling.car"))
    run_ok { "car", "diff", dir .. "/old.car", dir .. "/delta.car", "-o", dir .. "/dangling.car", "--force", "-q" }
  end)

  it("refuses what does not fit, naming the variable and the mismatch, leaving nothing behind", function()
    versions({})
    local before = file_hash(dir .. "/old.car")
    local function refused(from, extra, want)
      local args = { "zarr", "append", dir .. "/old.car", from, "--dim", "time", "-o", dir .. "/delta.car" }
      for _, a in ipairs(extra or {}) do args[#args + 1] = a end
      local code, _, err = exe.run(args)
      assert.are_not.equal(0, code)
      assert.truthy(err:find(want, 1, true), err)
      assert.is_nil(exe.slurp(dir .. "/delta.car"))
      assert.is_nil(exe.slurp(dir .. "/delta.car.partial"))
      assert.equal(before, file_hash(dir .. "/old.car"))
    end
    refused(dir .. "/old", nil, "time: the appended labels must come after the old version's")
    refused(dir .. "/day", { "--chunks", "1,8,10" }, "sst: chunks [1, 8, 10] asked for; the old version's are [2, 4, 5]")
    refused(dir .. "/day", { "--dim", "lat" }, "time is 5 long in the old version, 3 in the new data")
    local zarr = ipfsrt.zarr
    local function variant(name, change)
      local path = dir .. "/" .. name
      make_dataset(path, 5, 3)
      change(path)
      zarr.consolidate(path)
      return path
    end
    refused(variant("wide", function(p)
      os.execute("rm -rf " .. p .. "/sst " .. p .. "/lon")
      zarr.create(p, { path = "sst", zarr_format = 2, shape = { 3, NLAT, NLON + 1 }, chunks = { 2, 4, 5 },
        dtype = "int16", fill_value = -999, dimension_names = { "time", "lat", "lon" }, attrs = { scale_factor = 0.01 } })
      zarr.create(p, { path = "lon", zarr_format = 2, shape = { NLON + 1 }, chunks = { NLON + 1 }, dtype = "float32",
        dimension_names = { "lon" } }):write(nil, nd.linspace(0, 360, NLON + 1):astype("float32"))
    end), nil, "lon: not along time, it must not change: its shape is [10] in the old version, [11] in the new data")
    refused(variant("moved", function(p)
      zarr.open(p, { writable = true }).lat:write(nil, nd.linspace(-60, 60, NLAT):astype("float32"))
    end), nil, "lat: not along time, it must not change: value 0 is -60.0 in the new data, -70.0 in the old version")
    refused(variant("short", function(p) os.execute("rm -rf " .. p .. "/sst") end), nil,
      "sst: along time in the old version, missing from the new data")
    refused(variant("extra", function(p)
      zarr.create(p, { path = "ice", zarr_format = 2, shape = { 3, NLAT, NLON }, chunks = { 2, 4, 5 }, dtype = "int8",
        dimension_names = { "time", "lat", "lon" } })
    end), nil, "ice: not in the old version")
    refused(variant("typed", function(p)
      os.execute("rm -rf " .. p .. "/sst")
      zarr.create(p, { path = "sst", zarr_format = 2, shape = { 3, NLAT, NLON }, chunks = { 2, 4, 5 },
        dtype = "float64", dimension_names = { "time", "lat", "lon" } }):write(nil, 1e9)
    end), nil, "sst: values the old int16 encoding cannot hold exactly")
    refused(variant("on_fill", function(p) -- -9.99 is stored as -999, the fill value: it would read back missing
      os.execute("rm -rf " .. p .. "/sst")
      local x = nd.full({ 3, NLAT, NLON }, 10, "float64")
      x:set(1, 2, 3, -9.99)
      zarr.create(p, { path = "sst", zarr_format = 2, shape = { 3, NLAT, NLON }, chunks = { 2, 4, 5 },
        dtype = "float64", dimension_names = { "time", "lat", "lon" } }):write(nil, x)
    end), nil, "sst: the value -9.99 encodes to the fill value -999 (it would read back as missing)")
    refused(dir .. "/day", { "--preset", "kubo" }, "was it packed with other settings")
  end)

  it("names no new root when it dies mid-append: the old version stays whole", function()
    -- days big enough (uncompressed) that the delta outgrows a pipe: the
    -- append's delta file is a FIFO here, so that it stops mid-write, with
    -- every day encoded and part of its blocks out, until it is killed
    local big = { nlat = 120, nlon = 160, compressor = false }
    make_dataset(dir .. "/old", 0, 2, big)
    make_dataset(dir .. "/day", 2, 3, big)
    run_ok { "pack", dir .. "/old", "-o", dir .. "/old.car" }
    local before = file_hash(dir .. "/old.car")
    local partial = dir .. "/delta.car.partial"
    assert(os.execute("mkfifo " .. partial))
    local pidfile = dir .. "/pid"
    os.execute(string.format("sh -c 'echo $$ > %s; exec %s zarr append %s %s --dim time -o %s' >%s 2>&1 &",
      pidfile, exe.sh_quote(os.getenv("PWD") .. "/" .. exe.EXE), exe.sh_quote(dir .. "/old.car"),
      exe.sh_quote(dir .. "/day"), exe.sh_quote(dir .. "/delta.car"), exe.sh_quote(dir .. "/log")))
    local fifo = assert(io.open(partial, "rb")) -- returns once the append opened it to write
    local head = fifo:read(4096)                 -- its first bytes: the header, a root not yet named
    for _ = 1, 200 do                            -- then it fills the pipe and waits
      local stat = exe.slurp("/proc/" .. (exe.slurp(pidfile) or ""):match("%d+") .. "/wchan") or ""
      if stat:find("pipe") then break end
      os.execute("sleep 0.01")
    end
    os.execute("kill -9 " .. exe.slurp(pidfile):match("%d+"))
    fifo:close()
    os.execute("sleep 0.1")
    assert.is_true(#head > 40)
    local r = ipfsrt.car.reader()
    pcall(r.feed, r, head)
    local named = tostring(r:roots()[1])
    assert.is_nil(exe.slurp(dir .. "/delta.car")) -- no file names the new root
    assert.equal(before, file_hash(dir .. "/old.car"))
    -- a second try starts afresh (over a plain leftover, as a crash leaves one)
    os.remove(partial)
    exe.put(partial, "leftover")
    local root = run_ok({ "zarr", "append", dir .. "/old.car", dir .. "/day", "--dim", "time", "-o",
      dir .. "/delta.car" }):gsub("%s+$", "")
    assert.are_not.equal(root, named) -- what the crash left named a placeholder, never the root
    assert.is_nil(exe.slurp(partial))
    local ds = ipfsrt.dataset.open({ dir .. "/delta.car", dir .. "/old.car" }, { decode = false })
    assert.is_true(ds.sst:values():eq(sst_of(0, 5, 120, 160)):all())
  end)

  -- Two big variables (a, b: days of 600 x 800, uncompressed) and time, v2,
  -- consolidated: an append in place spends its time writing a's chunks, then
  -- b's, so a process killed or racing meanwhile lands between them.
  local function make_big(folder, first, n)
    local zarr = ipfsrt.zarr
    zarr.group(folder, { zarr_format = 2 })
    for _, name in ipairs { "a", "b" } do
      zarr.create(folder, { path = name, zarr_format = 2, shape = { n, 600, 800 }, chunks = { 1, 600, 800 },
        dtype = "int16", compressor = false, dimension_names = { "time", "lat", "lon" } })
        :write(nil, nd.full({ n, 600, 800 }, first, "int16"))
    end
    local days = {}
    for t = 0, n - 1 do days[t + 1] = first + t + 0.5 end
    zarr.create(folder, { path = "time", zarr_format = 2, shape = { n }, chunks = { 2 }, dtype = "float64",
      dimension_names = { "time" }, attrs = { units = "days since 2000-01-01", calendar = "standard" } })
      :write(nil, nd.from(days, "float64"))
    zarr.consolidate(folder)
  end

  -- time's length in a, b and time's .zarray (what xarray reads without consolidated metadata)
  local function stored_lengths(folder)
    local out = {}
    for _, name in ipairs { "a", "b", "time" } do
      out[name] = ipfsrt.json.decode(exe.slurp(folder .. "/" .. name .. "/.zarray")).shape[1]
    end
    assert.equal(out.a, out.time)
    assert.equal(out.b, out.time)
    return out.time
  end

  local function append_cmd(folder, from, log)
    return string.format("%s zarr append %s %s --dim time >%s 2>&1", exe.sh_quote(os.getenv("PWD") .. "/" .. exe.EXE),
      exe.sh_quote(folder), exe.sh_quote(from), log and exe.sh_quote(log) or "/dev/null")
  end

  it("lets two appends to one folder at once take turns: neither is lost", function()
    make_big(dir .. "/first", 4, 8)
    make_big(dir .. "/second", 12, 8)
    for run = 1, 3 do
      os.execute("rm -rf " .. dir .. "/copy")
      make_big(dir .. "/copy", 0, 4)
      local logs = { dir .. "/log1", dir .. "/log2" }
      os.execute(string.format("(%s; echo $? >>%s) & (%s; echo $? >>%s) & wait",
        append_cmd(dir .. "/copy", dir .. "/first", logs[1]), logs[1],
        append_cmd(dir .. "/copy", dir .. "/second", logs[2]), logs[2]))
      local ok = 0
      for i = 1, 2 do
        local log = exe.slurp(logs[i])
        if log:match("(%d+)%s*$") == "0" then ok = ok + 1
        else assert.truthy(log:find("after", 1, true), log) end -- days 4-11 after 12-19: refused, named
      end
      assert.is_true(ok >= 1)
      assert.equal(4 + 8 * ok, stored_lengths(dir .. "/copy"), "run " .. run) -- every append that said 0 is there
    end
  end)

  it("leaves the old version or the new one when killed mid-append in place, and completes a decided one", function()
    make_big(dir .. "/day", 4, 3)
    for run = 1, 8 do
      os.execute("rm -rf " .. dir .. "/copy")
      make_big(dir .. "/copy", 0, 4)
      os.execute(string.format("%s & sleep 0.0%d; kill -9 $! 2>/dev/null; wait", append_cmd(dir .. "/copy", dir .. "/day"),
        1 + run))
      local n = stored_lengths(dir .. "/copy")
      assert.is_true(n == 4 or n == 7, "run " .. run)
      -- the next change settles what the killed one left (a mark after its renames, say), then appends
      if n == 4 then
        os.execute(append_cmd(dir .. "/copy", dir .. "/day"))
      else
        local store = ipfsrt.zarr.store(dir .. "/copy", { writable = true })
        store:begin_change()
        store:end_change(false)
      end
      assert.equal(7, stored_lengths(dir .. "/copy"), "run " .. run)
      assert.is_nil(exe.slurp(dir .. "/copy/.ipfsrt-commit"))
      assert.is_true(os.execute("test ! -e " .. dir .. "/copy/.ipfsrt-staged"))
    end
    -- a change that had decided (its mark written) is completed by the next; one that had not is undone
    local zarray = exe.slurp(dir .. "/copy/a/.zarray")
    local grown = zarray:gsub('"shape":%s*%[%s*7', '"shape": [8', 1)
    assert.are_not.equal(zarray, grown)
    local staged = dir .. "/copy/.ipfsrt-staged/a"
    assert(os.execute("mkdir -p " .. staged))
    exe.put(staged .. "/.zarray", grown)
    local store = ipfsrt.zarr.store(dir .. "/copy", { writable = true })
    store:begin_change()
    store:end_change(false)
    assert.equal(zarray, exe.slurp(dir .. "/copy/a/.zarray")) -- undone
    assert(os.execute("mkdir -p " .. staged))
    exe.put(staged .. "/.zarray", grown)
    exe.put(dir .. "/copy/.ipfsrt-commit", "")
    store:begin_change()
    store:end_change(false)
    assert.equal(grown, exe.slurp(dir .. "/copy/a/.zarray")) -- completed
    assert.is_nil(exe.slurp(dir .. "/copy/.ipfsrt-commit"))
    assert.is_nil(exe.slurp(staged .. "/.zarray"))
  end)

  it("reads the old version from a folder of blocks (a block cache), offline", function()
    local old_root = versions({})
    -- the old version's blocks, once fetched through a gateway, kept on disk
    local url, stop = exe.start_serve { dir .. "/old.car", "-q" }
    run_ok { "get", "ipfs://" .. old_root, "-o", dir .. "/fetched", "--gateway", url, "--cache-dir", dir .. "/blocks" }
    stop()
    -- the gateway gone: every block comes from the folder, each verified
    local root = run_ok({ "zarr", "append", "ipfs://" .. old_root, dir .. "/day", "--dim", "time", "-o",
      dir .. "/delta.car", "--cache-dir", dir .. "/blocks", "--gateway", "http://127.0.0.1:9", "--retries", "1" })
      :gsub("%s+$", "")
    run_ok { "zarr", "append", dir .. "/copy", dir .. "/day", "--dim", "time" }
    assert.equal(packed({}, dir .. "/copy"), root)
    check_values({ dir .. "/delta.car", dir .. "/old.car" }, 8)
  end)

  it("appends NOAA's next file as xarray would have written the longer dataset (xarray reads both)", function()
    -- the sample in NOAA's layout (xarray's Zarr of NOAA-style daily files): 3 days, then 4
    local gen = "scripts/sample/oisst.lua"
    run_ok { gen, dir .. "/s3", "--days", "3", "--car", dir .. "/s3.car" }
    run_ok { gen, dir .. "/s4", "--days", "4", "--netcdf", dir .. "/nc4" }
    local root = run_ok({ "zarr", "append", dir .. "/s3.car", dir .. "/nc4/oisst-avhrr-v02r01.20240104.nc",
      "--dim", "time", "--hidden", "-o", dir .. "/delta.car" }):gsub("%s+$", "")
    -- the new version written out as a folder, through a gateway over both CARs
    local url, stop = exe.start_serve { dir .. "/s3.car", dir .. "/delta.car", "-q" }
    run_ok { "get", "ipfs://" .. root, "-o", dir .. "/grown", "--gateway", url }
    stop()
    assert.equal(packed({ "--hidden" }, dir .. "/grown"), root)
    local py = [[
import sys, numpy as np, xarray as xr
a, b = xr.open_zarr(sys.argv[1]), xr.open_zarr(sys.argv[2])
assert list(a.time.values) == list(b.time.values), (a.time.values, b.time.values)
for v in ("sst", "anom", "err", "ice"):
    assert np.array_equal(a[v].values, b[v].values, equal_nan=True), v
    assert a[v].encoding["dtype"] == b[v].encoding["dtype"] and a[v].attrs == b[v].attrs, v
print("same")
]]
    local out = exe.sh(string.format("/usr/bin/python3 -c %s %s %s", exe.sh_quote(py), exe.sh_quote(dir .. "/grown"),
      exe.sh_quote(dir .. "/s4")))
    assert.truthy(out:find("same", 1, true), out)
  end)

  it("refuses a delta whose blocks do not verify", function()
    versions({})
    append_both({})
    local bytes = exe.slurp(dir .. "/delta.car")
    local at = #bytes - 10 -- inside the last block's bytes
    exe.put(dir .. "/bad.car", bytes:sub(1, at - 1) .. string.char(bytes:byte(at) ~ 1) .. bytes:sub(at + 1))
    local code, _, err = exe.run { "serve", dir .. "/old.car", dir .. "/bad.car" }
    assert.are_not.equal(0, code)
    assert.truthy(err:find("hash_mismatch", 1, true), err)
    code, _, err = exe.run { "car", "diff", dir .. "/old.car", dir .. "/bad.car", "-o", dir .. "/x.car" }
    assert.are_not.equal(0, code)
    assert.truthy(err:find("hash_mismatch", 1, true), err)
    assert.is_nil(exe.slurp(dir .. "/x.car"))
  end)

  it("reads the new version through a warm block cache fetching only the delta", function()
    local old_root = versions({})
    local root = append_both({})
    local gw = ipfsrt.serve { cars = { dir .. "/old.car", dir .. "/delta.car" } }
    local function read_all(cid)
      local client = ipfsrt.client { gateways = { gw:url() }, cache = { dir = dir .. "/cache", memory = 0 } }
      local ds = ipfsrt.dataset.open("ipfs://" .. cid, { client = client })
      for _, name in ipairs { "sst", "time", "lat", "lon" } do ds[name]:values() end
      client:close()
    end
    read_all(old_root)
    local before = gw:stats()
    read_all(root)
    local after = gw:stats()
    gw:stop()
    local delta = #exe.slurp(dir .. "/delta.car")
    local moved = after.bytes - before.bytes
    assert.is_true(moved <= delta * 1.1 + 4096, string.format("moved %d bytes for a delta of %d", moved, delta))
    assert.is_true(moved > 0)
  end)
end)
