-- ipfsrt.dataset on the OISST-like sample (scripts/sample/oisst.lua) at a few
-- days, both formats; the sample's shape, chunks and attributes; reading
-- through ipfs:// from a local gateway gives the folder's values.
-- (tests/dataset/ checks the values against Debian's xarray.)
local ipfsrt = require "ipfsrt"
local exe = require "exe"

describe("the OISST-like sample and ipfsrt.dataset", function()
  local dir = os.tmpname()
  os.remove(dir)
  local gateway, stop_gateways = exe.gateways({})

  teardown(function()
    stop_gateways()
    os.execute("rm -rf " .. dir)
  end)

  for _, format in ipairs { 2, 3 } do
    it("makes " .. format .. ": NOAA's layout, four int16 variables, coordinates, CF attributes, chunks of a day", function()
      local out, car = dir .. "/v" .. format, dir .. "/v" .. format .. ".car"
      local code, root, err = exe.run { "scripts/sample/oisst.lua", out, "--days", "3", "--format", tostring(format),
        "--car", car }
      assert.equal(0, code, err)
      root = root:match("(%S+)%s*$")
      local ds = ipfsrt.dataset.open(out)
      assert.same({ time = 3, zlev = 1, lat = 720, lon = 1440 }, ds.dims)
      for _, name in ipairs { "sst", "anom", "err", "ice" } do
        local v = ds.vars[name]
        assert.same({ "time", "zlev", "lat", "lon" }, v.dims)
        assert.near(0.01, v.attrs.scale_factor, 1e-9) -- a float32's 0.01, as NOAA's
        assert.equal(-999, v._array.metadata.fill_value) -- xarray keeps _FillValue in the array's metadata
        assert.same({ 1, 1, 360, 360 }, v._array.chunks)
      end
      assert.same({ -300, 4500 }, { ds.sst.attrs.valid_min, ds.sst.attrs.valid_max })
      assert.equal("days since 1978-01-01T12:00:00", ds.time.attrs.units)
      assert.same({ "2024-01-01T12:00:00", "2024-01-02T12:00:00", "2024-01-03T12:00:00" }, ds.time:dates())
      -- the CLI decodes and selects by label as the dataset layer does
      local c2, decoded = exe.run { "zarr", "get", out, "sst", "2,0,400,1000:1004", "--decode", "--json" }
      assert.equal(0, c2, decoded)
      assert.same(ipfsrt.json.decode(ds.sst:isel { time = 2, zlev = 0, lat = 400, lon = { 1000, 1004 } }:values()
        :tojson()), ipfsrt.json.decode(decoded))
      local c3, by_label = exe.run { "zarr", "get", out, "sst", "--sel", "time=2024-01-03,lat=-0.125,lon=180.125:181",
        "--json" }
      assert.equal(0, c3, by_label)
      assert.same(
        ipfsrt.json.decode(ds.sst:sel { time = "2024-01-03", lat = -0.125, lon = { 180.125, 181 } }:values():tojson()),
        ipfsrt.json.decode(by_label))
      local c5, csv = exe.run { "zarr", "get", out, "sst", "--sel",
        "time=2024-01-03T12:00,zlev=0,lat=30:30.5,lon=280:280.5", "--csv" }
      assert.equal(0, c5, csv)
      assert.equal("lat,lon,sst", csv:match("^[^\n]+"), csv) -- a header and a column per coordinate, as pandas
      assert.equal(5, select(2, csv:gsub("\n", "\n")), csv)
      local c6, near = exe.run { "zarr", "get", out, "sst", "--sel", "zlev=0,lat=-0.2,lon=180.2", "--method",
        "nearest", "--tolerance", "0.1", "--json" }
      assert.equal(0, c6, near)
      assert.same(ipfsrt.json.decode(ds.sst:sel { zlev = 0, lat = -0.125, lon = 180.125 }:values():tojson()),
        ipfsrt.json.decode(near))
      local c7, _, too_far = exe.run { "zarr", "get", out, "sst", "--sel", "lat=-0.5", "--method", "nearest",
        "--tolerance", "0.1" }
      assert.equal(1, c7, too_far)
      assert.truthy(too_far:find("lat has no label within 0.1 of -0.5 (the nearest is -0.375)", 1, true), too_far)
      local c4, _, bad_dim = exe.run { "zarr", "get", out, "sst", "--sel", "tme=1" }
      assert.equal(2, c4)
      assert.truthy(bad_dim:find("dimensions: time, zlev, lat, lon", 1, true), bad_dim)
      local land = ds.sst:isel { time = 0 }:values():isnan():astype("float64"):mean()
      assert.is_true(land > 0.24 and land < 0.28, "land " .. land)
      local poles = ds.ice:isel { time = 0, lat = { 200, 520 } }:max()
      assert.equal(0, poles) -- no ice between 40 S and 40 N
      local c = ipfsrt.client { gateways = { gateway(nil, { car }):url() } }
      local remote = ipfsrt.dataset.open("ipfs://" .. root, { client = c })
      local box = { time = "2024-01-02", lat = { 20, 60 }, lon = { 270, 310 } }
      assert.equal(ds.sst:sel(box):values():tobytes(), remote.sst:sel(box):values():tobytes())
      c:close()
    end)
  end

  it("runs the benchmark scenarios over the folder and ipfs://, reading the same values", function()
    package.path = "scripts/bench/lib/?.lua;" .. package.path -- the benchmarks' helpers
    local bench = require "bench"
    local car = dir .. "/v2.car"
    local root = tostring(ipfsrt.car.open(car):roots()[1])
    local url = gateway(nil, { car }):url()
    local backends = {
      { name = "folder", context = function() return { open = function() return ipfsrt.dataset.open(dir .. "/v2") end } end },
      { name = "ipfs", context = function()
          local c = ipfsrt.client { gateways = { url } }
          return { open = function() return ipfsrt.dataset.open("ipfs://" .. root, { client = c }) end,
            close = function() c:close() end }
        end },
    }
    local scenarios = bench.load_scenarios("scripts/bench/scenarios")
    assert.is_true(#scenarios >= 5)
    local results = bench.run_scenarios(scenarios, backends, { runs = 1, warmup = 0 })
    for _, s in ipairs(scenarios) do
      assert.equal(results[s.name].folder.digest, results[s.name].ipfs.digest, s.name)
    end
    local f = io.open(dir .. "/results.txt", "w")
    bench.print_results(scenarios, backends, results, f)
    f:close()
    assert.truthy(ipfsrt.json.decode(bench.results_json(results)).spatial.ipfs.median_ms)
  end)

  -- The v2 sample, NOAA's one depth (zlev) taken away.
  local function surface() return ipfsrt.dataset.open(dir .. "/v2"):isel { zlev = 0 } end

  it("reduces by dimension name and selects lazily", function()
    local ds = surface()
    local series = ds.sst:sel { lat = 35, lon = 285, method = "nearest" }
    assert.same({ "time" }, series.dims)
    local m = ds.sst:isel { lat = { 300, 310 }, lon = { 0, 10 } }:mean("time")
    assert.same({ "lat", "lon" }, m.dims)
    assert.same({ 10, 10 }, m.shape)
    local ok, err = pcall(ds.sst.sel, ds.sst, { time = "2030-01-01" })
    assert.is_false(ok)
    assert.equal("not_found", err.code)
    local near = ds.sst:sel { time = "2030-01-01", method = "nearest" }
    assert.same({ "lat", "lon" }, near.dims)
  end)

  it("folds reductions over everything as it reads, to the values read-then-reduce gives", function()
    local ds = surface()
    local parts = { ds.sst, ds.ice, ds.sst:isel { time = { 1, 3 }, lat = { 100, 500, 3 } } }
    local eager = {}
    for i, v in ipairs(parts) do
      eager[i] = {}
      for _, op in ipairs { "mean", "sum", "count", "min", "max" } do eager[i][op] = v[op](v) end
    end
    local module = require "ipfsrt.dataset" -- the setting is the module's (ipfsrt.dataset only opens)
    local saved = module.FOLD_BYTES
    module.FOLD_BYTES = 0 -- every selection folded
    local zarr_array = getmetatable(ds.sst._array) -- the Array class: its methods
    -- sums and counts are summarized, min and max located (ipfsrt_zarr_locate_extremes)
    local folds, summarize, locate = 0, zarr_array.summarize, zarr_array.locate_extremes
    zarr_array.summarize = function(...) folds = folds + 1; return summarize(...) end
    zarr_array.locate_extremes = function(...) folds = folds + 1; return locate(...) end
    finally(function() -- (one finally per test: a second replaces the first)
      module.FOLD_BYTES = saved
      zarr_array.summarize = summarize
      zarr_array.locate_extremes = locate
    end)
    for i, v in ipairs(parts) do
      for _, op in ipairs { "mean", "sum", "count", "min", "max" } do
        local folded, want = v[op](v), eager[i][op]
        if want ~= want then assert.is_true(folded ~= folded, op)
        else assert.near(want, folded, 1e-6 * math.max(1, math.abs(want)), op) end -- float32 values' own sums
      end
    end
    assert.equal(#parts * 5, folds) -- every one of them went through the fold
  end)

  it("names what a typo missed, with the names it knows", function()
    local ds = ipfsrt.dataset.open(dir .. "/v2")
    local function says(code, needle, f)
      local ok, err = pcall(f)
      assert.is_false(ok)
      assert.equal(code, err.code)
      assert.truthy(err.message:find(needle, 1, true), err.message)
    end
    says("not_found", "no variable sstt (variables: anom, err, ice, sst; coordinates: lat, lon, time, zlev; methods: ",
      function() return ds.sstt end)
    -- every object names its methods when asked for one it has not
    says("not_found", "variable sst has no method or field stdd (methods: abs, argmax,",
      function() return ds.sst:stdd() end)
    says("not_found", "a rolling window has no method or field skew (methods: count, max, mean, median, min, std, sum, var)",
      function() return ds.sst:rolling { time = 3 }:skew() end)
    says("not_found", "a groupby has no method or field first (methods: count, max, mean, median, min, std, sum, var)",
      function() return ds.sst:groupby("time.month"):first() end)
    says("not_found", "a resample has no method or field first (methods: ",
      function() return ds.sst:resample { time = "MS" }:first() end)
    says("not_found", "a coarsen has no method or field first (methods: count, max, mean, median, min, std, sum, var)",
      function() return ds.sst:coarsen { lat = 4 }:first() end)
    says("bad_argument", "sst has no dimension lattitude (dimensions: time, zlev, lat, lon)",
      function() return ds.sst:sel { lattitude = 35 } end)
    says("bad_argument", "sst has no dimension lattitude (dimensions: time, zlev, lat, lon)",
      function() return ds.sst:isel { lattitude = 3 } end)
    says("bad_argument", "sst has no dimension lattitude (dimensions: time, zlev, lat, lon)",
      function() return ds.sst:mean("lattitude") end)
    says("bad_argument", "method nearst is not known (methods: \"nearest\"",
      function() return ds.sst:sel { lat = 35, method = "nearst" } end)
    says("bad_argument", "no option gateway (options: cacert, cache, client,",
      function() return ipfsrt.dataset.open(dir .. "/v2", { gateway = { "http://127.0.0.1:1" } }) end)
    assert.same({ "anom", "err", "ice", "sst" }, ds:names())
    assert.is_nil(ds._nothing) -- internal fields stay plain lookups
  end)

  it("refuses what analyses cannot do, naming what it knows", function()
    local ds = surface()
    local function says(needle, f)
      local ok, err = pcall(f)
      assert.is_false(ok, needle)
      assert.equal("bad_argument", err.code, tostring(err.message))
      assert.truthy(err.message:find(needle, 1, true), err.message)
    end
    local nd = ipfsrt.ndarray
    says("mean: no option weight (options: skipna, weights)",
      function() return ds.sst:mean("time", { weight = ds.lat }) end)
    says("std: weights take sum and mean", function() return ds.sst:std("lat", { weights = ds.lat }) end)
    says("mean: the weights have missing values",
      function() return ds.sst:mean("lat", { weights = ds.lat:where(ds.lat:gt(0)) }) end)
    says("sst and sst: their lat labels have none in common",
      function() return ds.sst:isel { lat = { 0, 10 } } - ds.sst:isel { lat = { 20, 30 } } end)
    says("mul: dimension lon has 1440 labels in sst and 3 in an n-d array",
      function() return ds.sst * nd.from { 1, 2, 3 } end)
    says("an n-d array of 4 dimensions beside sst of 3: name them",
      function() return ds.sst + nd.zeros { 1, 1, 1, 1 } end)
    says("groupby: moon is not a part of a time (parts: day, dayofyear, month, season, year)",
      function() return ds.sst:groupby("time.moon") end)
    says("sst has no dimension depth (dimensions: time, lat, lon)", function() return ds.sst:groupby("depth.month") end)
    says("resample: frequency fortnight is not known (frequencies: \"month\" or \"MS\", \"M\", \"week\" or \"W\"",
      function() return ds.sst:resample { time = "fortnight" } end)
    says("rolling takes one dimension (options: center, min_periods)",
      function() return ds.sst:rolling { time = 3, centre = true } end)
    says("rolling: min_periods is a whole number from 1 to the window (3)",
      function() return ds.sst:rolling { time = 3, min_periods = 5 } end)
    says("mean: no option skipnan (options: skipna)",
      function() return ds.sst:groupby("time.month"):mean { skipnan = true } end)
    says("anom has no day 2 (it has: 1)", function()
      local first_day = ds.anom:groupby("time.day"):mean():isel { day = { 0, 1 } }
      return ds.sst:groupby("time.day") - first_day
    end)
    says("map: cmap jet is not known (cmaps: RdBu, RdBu_r, ocean, viridis)",
      function() ipfsrt.plot.map(ds.sst:isel { time = 0 }, { path = dir .. "/x.png", cmap = "jet" }) end)
    says("map: no option colormap (options: center, cmap, format, path, scale, title, units, vmax, vmin)",
      function() ipfsrt.plot.map(ds.sst:isel { time = 0 }, { path = dir .. "/x.png", colormap = "jet" }) end)
    says("map takes a variable (or n-d array) of 2 dimensions, besides any of length one",
      function() ipfsrt.plot.map(ds.sst, { path = dir .. "/x.png" }) end)
    says("line: no option xlabel (options: format, labels, path, title, ylabel)",
      function() ipfsrt.plot.line(ds.time, { path = dir .. "/x.svg", xlabel = "t" }) end)
    says("idxmax: lat is given twice", function() return ds.sst:idxmax { "lat", "lat" } end)
    says("argmax: lat is given twice", function() return ds.sst:argmax { "lat", "time", "lat" } end)
    says("dates: no date 0 in a list of 3: the list is Lua's, from 1 (array position p is dates()[p + 1])",
      function() return ds.time:dates()[0] end)
    says("line: " .. dir .. "/x.jpg does not end in .png or .svg: name the format",
      function() ipfsrt.plot.line(ds.sst:isel { lat = 0, lon = 0 }, { path = dir .. "/x.jpg" }) end)
    says("map: format gif is not known (formats: png, svg)",
      function() ipfsrt.plot.map(ds.sst:isel { time = 0 }, { path = dir .. "/x.gif", format = "gif" }) end)
    -- a table read one way when another was meant is refused, never guessed at
    says(" = a table of 3: a plain table is a range, {from, to} (both included); a list of labels is " ..
      "ipfsrt.list{...}, points ipfsrt.points{...}",
      function() return ds.sst:sel { lat = { 35, 0, -60 }, lon = { 285, 200, 30 }, method = "nearest" } end)
    says("lat = a table of 2: a plain table is a range", function() return ds.sst:sel { lat = { from = 0, to = 10 } } end)
    says("ipfsrt.list takes a list (1, 2, ... keys only) of one or more items", function() return ipfsrt.list {} end)
    says("lat: item 2 of a list is a table; items are labels",
      function() return ds.sst:sel { lat = ipfsrt.list { 1, { 2, 3 } } } end)
    says("sel: tolerance goes with method = \"nearest\"", function() return ds.sst:sel { lat = 35, tolerance = 1 } end)
    says("tolerance for time (times) is a timedelta such as \"1D\"",
      function() return ds.sst:sel { time = "2024-01-02", method = "nearest", tolerance = 86400 } end)
    says("item: sst has 3 values (dimensions: lat); item takes one",
      function() return ds.sst:isel { time = 0, lon = 0, lat = { 0, 3 } }:item() end)
    says("method = \"nearest\" picks single labels, and lat is given a range {from, to}",
      function() return ds.sst:sel { lat = { 20, 60 }, method = "nearest" } end)
    says("time: \"2024-13\" is not a date of the proleptic_gregorian calendar",
      function() return ds.sst:sel { time = "2024-13" } end)
    says("to_netcdf: no option format (options: mode, name)",
      function() ds.sst:isel { time = 0 }:to_netcdf(dir .. "/x.nc", { format = "NETCDF3" }) end)
    says("to_netcdf: mode is \"w\" or \"w-\", not a", function() ds.sst:isel { time = 0 }:to_netcdf(dir .. "/x.nc", { mode = "a" }) end)
    says("x.nc exists (replace it: mode \"w\")", function()
      ds.sst:isel { time = 0, lat = { 0, 2 } }:to_netcdf(dir .. "/x.nc")
      ds.sst:isel { time = 0, lat = { 0, 2 } }:to_netcdf(dir .. "/x.nc", { mode = "w-" })
    end)
    says("to_zarr: no option chunk (options: append_dim, chunks, compressor, force, mode, name, output, pack, region)",
      function() ds.sst:isel { time = 0 }:to_zarr(dir .. "/x.zarr", { chunk = { 1, 1 } }) end)
    says("where: the condition is a variable", function() return ipfsrt.dataset.where(true, ds.sst, 0) end)
  end)

  it("draws every kind of plot as PNG and SVG, as the path ends or the format says", function()
    local ds = surface()
    local PNG = "\x89PNG\r\n\x1a\n"
    local function file(path) local f = assert(io.open(path, "rb")); local t = f:read("a"); f:close(); return t end
    local day, series = ds.sst:isel { time = 0, lat = { 400, 480 }, lon = { 1000, 1100 } }, ds.sst:isel { lat = 500, lon = 7 }
    ipfsrt.plot.map(day, { path = dir .. "/map.png" })
    ipfsrt.plot.map(day, { path = dir .. "/map.svg", center = 20 })
    ipfsrt.plot.line({ series, series * 0.5 }, { path = dir .. "/line.png", labels = { "sst", "half" } })
    ipfsrt.plot.line(series, { path = dir .. "/line.svg" })
    ipfsrt.plot.line(series, { path = dir .. "/line.out", format = "png" })
    for _, name in ipairs { "map.png", "line.png", "line.out" } do
      assert.equal(PNG, file(dir .. "/" .. name):sub(1, 8), name)
    end
    local map = file(dir .. "/map.svg")
    assert.truthy(map:match("^<svg "), "an SVG")
    local images = 0
    for b64 in map:gmatch('href="data:image/png;base64,([^"]+)"') do -- the field and the colour bar's scale
      images = images + 1
      assert.equal(PNG, ipfsrt.multibase.decode("m" .. b64:gsub("=", "")):sub(1, 8))
    end
    assert.equal(2, images)
    assert.truthy(file(dir .. "/line.svg"):find("<path d=\"M", 1, true))
  end)

  it("takes dates with times of day and partial dates on the command line (--sel)", function()
    local function days(sel)
      local code, out, err = exe.run { "zarr", "get", dir .. "/v2", "time", "--sel", sel, "--decode", "--json" }
      assert.equal(0, code, err)
      local got = ipfsrt.json.decode(out)
      return type(got) == "table" and #got or 0
    end
    assert.equal(2, days("time=2024-01-02T00:00:2024-01-03"))
    assert.equal(1, days("time=2024-01-01T00:00:00:2024-01-01T23:59"))
    assert.equal(3, days("time=2024-01"))
    assert.equal(2, days("time=2024-01-02:2024-01"))
  end)

  it("writes to_zarr only where mode allows, as xarray does: never over a file, a link or a non-Zarr folder", function()
    local ds = surface()
    local day = ds.sst:isel { time = 0, lat = { 400, 404 }, lon = { 1000, 1003 } }
    local out = dir .. "/modes.zarr"
    day:to_zarr(out)
    local function refused(what, fn)
      local ok, err = pcall(fn)
      assert.is_false(ok, what)
      assert.truthy(tostring(err):find(what, 1, true), tostring(err))
    end
    refused("modes.zarr exists", function() day:to_zarr(out) end)
    -- "a": another variable beside it, the same name replaced (its old chunks gone)
    ds.ice:isel { time = 0, lat = { 400, 404 }, lon = { 1000, 1003 } }:to_zarr(out, { mode = "a" })
    local wide = ds.sst:isel { time = 1, lat = { 400, 404 }, lon = { 1000, 1003 } }
    wide:to_zarr(out, { mode = "a", chunks = { 1, 1 } })
    local back = ipfsrt.dataset.open(out)
    assert.same(wide:values():tolist(), back.sst:values():tolist())
    assert.same({ 1, 1 }, back.sst._array.chunks)
    assert.is_nil(io.open(out .. "/sst/0.0.0")) -- the first write's chunk, left would be read as data
    assert.truthy(back.vars.ice)
    local said = exe.sh(string.format("/usr/bin/python3 -c \"import xarray; ds = xarray.open_zarr('%s'); " ..
      "print(sorted(ds.data_vars))\"", out))
    assert.truthy(said:find("['ice', 'sst']", 1, true), said)
    -- "w": the store replaced whole
    day:to_zarr(out, { mode = "w" })
    assert.is_nil(ipfsrt.dataset.open(out).vars.ice)
    -- what to_zarr never writes into
    local folder, file, link, target = dir .. "/plain", dir .. "/file.txt", dir .. "/link.zarr", dir .. "/elsewhere"
    os.execute(string.format("mkdir -p %s %s && echo notes > %s/notes.txt && echo x > %s && ln -s %s %s",
      folder, target, folder, file, target, link))
    refused("plain is a folder but no Zarr store", function() day:to_zarr(folder, { mode = "w" }) end)
    refused("plain is no Zarr v2 group", function() day:to_zarr(folder, { mode = "a" }) end)
    refused("file.txt is a file", function() day:to_zarr(file, { mode = "w" }) end)
    refused("link.zarr exists", function() day:to_zarr(link) end)
    refused("link.zarr is a link", function() day:to_zarr(link, { mode = "w" }) end)
    refused("mode is", function() day:to_zarr(out, { mode = "r+" }) end)
    assert.equal("notes\n", exe.slurp(folder .. "/notes.txt"))
    local p = io.popen("ls -A " .. target)
    assert.equal("", p:read("a"))
    p:close()
  end)

  it("reports an uncaught ipfsrt error at the line of the script that called", function()
    local script = os.tmpname() .. ".lua"
    local f = assert(io.open(script, "w"))
    f:write('local ipfsrt = require "ipfsrt"\n', 'local ds = ipfsrt.dataset.open(arg[1])\n', "\n",
      "print(ds.sst:mean('lattitude'))\n")
    f:close()
    local code, _, err = exe.run { script, dir .. "/v2" }
    local vcode, _, verr = exe.run { "-v", script, dir .. "/v2" }
    os.remove(script)
    assert.equal(1, code)
    assert.truthy(err:find(script .. ":4: bad_argument: dataset: sst has no dimension lattitude", 1, true), err)
    assert.falsy(err:find("stack traceback", 1, true), err)
    assert.equal(1, vcode) -- -v: the same, then where it came from
    assert.truthy(verr:find(script .. ":4: bad_argument: dataset: sst has no dimension lattitude", 1, true), verr)
    assert.truthy(verr:find("stack traceback:.*ipfsrt/dataset/variable%.lua:%d+: in .*" .. script:gsub("%p", "%%%0") .. ":4:"), verr)
  end)

  it("evaluates an expression of one variable from one read in slabs, the bits of one evaluation", function()
    local module = require "ipfsrt.dataset"
    local car = dir .. "/v2.car"
    local root = tostring(ipfsrt.car.open(car):roots()[1])
    local c = ipfsrt.client { gateways = { gateway(nil, { car }):url() } }
    local sources = { ipfsrt.dataset.open(dir .. "/v2"), ipfsrt.dataset.open("ipfs://" .. root, { client = c }) }
    local zarr_array = getmetatable(sources[1].sst._array)
    local saved, in_slabs, slab_reads = module.SLAB_BYTES, zarr_array.read_slabs, 0
    zarr_array.read_slabs = function(...) slab_reads = slab_reads + 1; return in_slabs(...) end
    finally(function()
      module.SLAB_BYTES, zarr_array.read_slabs = saved, in_slabs
      c:close()
    end)
    local function answers(ds)
      local w = ds.lat:deg2rad():cos()
      return { ds.sst:mean({ "lat", "lon" }, { weights = w }), (ds.sst * 2 - 1):where(ds.sst:gt(20)):mean("time"),
        ds.sst:groupby("time.day"):max(), (ds.sst - ds.anom):sum("time") }
    end
    local function bytes(list)
      for i, v in ipairs(list) do list[i] = v:values():tobytes() end
      return list
    end
    local whole = bytes(answers(sources[1])) -- small enough for one evaluation each
    module.SLAB_BYTES = 2 << 20 -- a day a slab
    for _, ds in ipairs(sources) do
      local before = slab_reads
      assert.same(whole, bytes(answers(ds)))
      -- weighted and where: one read each; the groupby one per slab of its
      -- result (a day); sst - anom none (two variables: read slab by slab)
      assert.equal(5, slab_reads - before)
    end
  end)

  it("folds weighted sums and means over the last dimensions as it reads, to read-then-reduce's values", function()
    local module = require "ipfsrt.dataset"
    local car = dir .. "/v2.car"
    local root = tostring(ipfsrt.car.open(car):roots()[1])
    local c = ipfsrt.client { gateways = { gateway(nil, { car }):url() } }
    local zarr_array = getmetatable(ipfsrt.dataset.open(dir .. "/v2").sst._array)
    local saved, fused, folds = module.FOLD_BYTES, zarr_array.weighted_sums, 0
    zarr_array.weighted_sums = function(...) folds = folds + 1; return fused(...) end
    finally(function()
      module.FOLD_BYTES, zarr_array.weighted_sums = saved, fused
      c:close()
    end)
    for _, ds in ipairs { ipfsrt.dataset.open(dir .. "/v2"), ipfsrt.dataset.open("ipfs://" .. root, { client = c }) } do
      local w = ds.lat:deg2rad():cos()
      local box = ds.sst:isel { lat = { 100, 500, 3 }, lon = { 7, 1400, 5 } }
      for _, v in ipairs { ds.sst, ds.ice, box } do
        for _, op in ipairs { "mean", "sum" } do
          module.FOLD_BYTES = saved
          local before = folds
          local want = v[op](v, { "lat", "lon" }, { weights = w }):values()
          assert.equal(before, folds) -- small: read, then reduced
          module.FOLD_BYTES = 0
          local got = v[op](v, { "lat", "lon" }, { weights = w }):values()
          assert.equal(before + 1, folds)
          assert.same(want.shape, got.shape)
          assert.equal(want.dtype, got.dtype)
          assert.is_true(want:isnan():eq(got:isnan()):all())
          local a, b = want:astype("float64"), got:astype("float64")
          local off = (a - b):abs():max() -- NaN where both are
          -- float64 sums against the values' own type's: apart by its rounding
          assert.is_true(off <= 1e-6 * math.max(1, a:abs():max()), string.format("%s: off by %g", op, off))
        end
      end
      -- weights along a kept dimension, or dimensions that are not the last: read, then reduced
      module.FOLD_BYTES = 0
      local before = folds
      ds.sst:mean({ "time", "lat" }, { weights = w })
      assert.equal(before, folds)
    end
  end)

  it("folds reductions along dimensions as it reads, to the values read-then-reduce gives", function()
    local ds = ipfsrt.dataset.open(dir .. "/v2")
    local module = require "ipfsrt.dataset"
    local saved = module.FOLD_BYTES
    local zarr_array = getmetatable(ds.sst._array) -- the Array class: its methods
    local folds, along = 0, zarr_array.summarize_along
    zarr_array.summarize_along = function(...) folds = folds + 1; return along(...) end
    finally(function()
      module.FOLD_BYTES = saved
      zarr_array.summarize_along = along
    end)
    -- reduce(v) read then reduced, and folded: the same bits, but for sums
    -- across the last dimensions (packed integers summed exactly, so off by
    -- float32's rounding)
    local function as_read(reduce, v, op, what, across)
      module.FOLD_BYTES = saved
      local want = reduce(v):values()
      module.FOLD_BYTES = 0
      local got = reduce(v):values()
      assert.same(want.shape, got.shape)
      assert.equal(want.dtype, got.dtype)
      assert.is_true(want:isnan():eq(got:isnan()):all(), op)
      local w, g = want:astype("float64"), got:astype("float64")
      local off = (w - g):abs():max() -- NaN where both are
      local scale = across and (op == "mean" or op == "sum") and 1e-6 * math.max(1, w:abs():max()) or 0
      assert.is_true(off <= scale, string.format("%s %s: off by %g", op, what, off))
    end
    local box = ds.sst:isel { lat = { 100, 500, 3 }, lon = { 7, 1400, 5 } }
    for _, v in ipairs { ds.sst, ds.ice, box } do
      for _, dims in ipairs { "time", { "lat", "lon" }, "lon" } do
        for _, op in ipairs { "mean", "sum", "count", "min", "max" } do
          as_read(function(x) return x[op](x, dims) end, v, op, tostring(dims), dims ~= "time")
        end
      end
    end
    assert.equal(3 * 3 * 5, folds)
    local groups, by_group = 0, zarr_array.summarize_groups
    zarr_array.summarize_groups = function(...) groups = groups + 1; return by_group(...) end
    finally(function() zarr_array.summarize_groups = by_group end)
    for _, v in ipairs { ds.sst, box } do
      for _, op in ipairs { "mean", "sum", "count", "min", "max" } do
        as_read(function(x) local g = x:groupby("time.day"); return g[op](g) end, v, op, "per day")
        as_read(function(x) local r = x:resample { time = "2d" }; return r[op](r) end, v, op, "per 2 days")
        as_read(function(x) return x:groupby("time.day")[op](x:groupby("time.day")):isel { day = 1 } end, v, op,
          "the second day")
      end
    end
    assert.equal(2 * 5 * 3, groups)
  end)
end)

describe("make demo's script, at four days", function()
  it("reads through a lying gateway, catches it, equals the folder, writes its pictures", function()
    local dir = os.tmpname()
    os.remove(dir)
    local code, out, err = exe.run { "scripts/demo.lua", "--days", "4", "--runs", "1", "--dir", dir }
    assert.equal(0, code, err .. out)
    assert.truthy(out:find("the liar was caught: %d+ of its blocks"), out)
    assert.truthy(out:find("equals the local folder's: yes", 1, true), out)
    assert.truthy(out:find("mean SST of the Gulf Stream box", 1, true), out)
    local png = io.open(dir .. "/sst-2024-01-04.png", "rb")
    assert.equal("\137PNG", png:read(4))
    png:close()
    assert.truthy(io.open(dir .. "/timeseries.svg"):read("a"):find("<svg", 1, true))
    os.execute("rm -rf " .. dir)
  end)
end)
