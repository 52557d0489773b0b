-- Helpers shared by the benchmark scripts in scripts/bench/.
local M = {}

-- Runs a shell command; returns its output, raising if it failed.
function M.sh(cmd)
  local p = assert(io.popen(cmd, "r"))
  local out = p:read("a")
  assert(p:close(), "command failed: " .. cmd .. "\n" .. out)
  return out
end

-- Starts `exe serve CARS... [EXTRA]` as a process of its own (pid in
-- dir/serve.pid, for `kill $(cat dir/serve.pid)`) and returns its base URL
-- once it listens.
function M.serve(exe, cars, dir, extra)
  local url_file = dir .. "/serve.url"
  os.remove(url_file)
  M.sh(string.format("mkdir -p '%s'", dir))
  M.sh(string.format("%s serve %s --threads 2 %s > %s 2>/dev/null & echo $! > %s/serve.pid", exe,
    table.concat(cars, " "), extra or "", url_file, dir))
  for _ = 1, 200 do
    local f = io.open(url_file)
    local url = f and f:read("l")
    if f then f:close() end
    if url then return url end
    M.sh("sleep 0.05")
  end
  error("ipfsrt serve did not start", 0)
end

function M.quote(x) return "'" .. tostring(x):gsub("'", "'\\''") .. "'" end

-- A shell command as a process of its own, in the background (sh's exec: its
-- pid is the program's), stdout to the file out and stderr to err (default:
-- out too); returns the pid once it is known.
function M.spawn(command, out, err)
  local pid_file = os.tmpname()
  M.sh(string.format("sh -c %s > %s 2>%s < /dev/null &", M.quote("echo $$ > " .. pid_file .. "; exec " .. command),
    out, err and " " .. err or "&1"))
  for _ = 1, 100 do
    local f = io.open(pid_file)
    local pid = f and f:read("l")
    if f then f:close() end
    if pid then
      os.remove(pid_file)
      return pid
    end
    M.sh("sleep 0.01")
  end
  error("could not start " .. command, 0)
end

-- `exe serve ARGS...` as a process of its own (args are words, quoted here):
-- its URL, a function that stops it (SIGTERM, waiting for it to end) and
-- returns what it wrote on stderr, and its process id.
function M.start_serve(exe, args)
  local out, err = os.tmpname(), os.tmpname()
  local words = { M.quote(exe), "serve" }
  for _, a in ipairs(args) do words[#words + 1] = M.quote(a) end
  local p = M.spawn(table.concat(words, " "), out, err)
  local url
  for _ = 1, 200 do
    local f = io.open(out)
    url = f and f:read("l")
    if f then f:close() end
    if url and url:match("^https?://") then break end
    url = nil
    M.sh("sleep 0.02")
  end
  local function stop()
    M.stop_process(p)
    local e = io.open(err)
    local said = e and e:read("a") or ""
    if e then e:close() end
    os.remove(out)
    os.remove(err)
    return said
  end
  if not url then error("ipfsrt serve did not start: " .. stop(), 0) end
  return url, stop, p
end

-- Stops a process and waits until it has ended: gone, or a zombie that
-- whoever adopted it has yet to reap (some reapers take seconds).
function M.stop_process(pid)
  M.sh(string.format("kill %s 2>/dev/null; while kill -0 %s 2>/dev/null && " ..
    "[ \"$(cut -d' ' -f3 /proc/%s/stat 2>/dev/null)\" != Z ]; do sleep 0.02; done", pid, pid, pid))
end

function M.median(t)
  local s = { table.unpack(t) }
  table.sort(s)
  local n = #s
  return n % 2 == 1 and s[(n + 1) // 2] or (s[n // 2] + s[n // 2 + 1]) / 2
end

-- The gateway benchmarks' data, made once in dir: 4,000 random blocks of 64 KiB in
-- blocks.car (CIDs in cids.txt, the same bytes as files www/ipfs/CID for nginx) and
-- a random 1 GiB file (www/big.bin) packed as big.car (root in big.root).
-- Returns {blocks_car, big_car, cids, big_root, www}.
function M.dataset(dir)
  local ipfsrt = require "ipfsrt"
  if not io.open(dir .. "/big.root") then
    io.stderr:write("generating ", dir, " ...\n")
    M.sh(string.format("rm -rf '%s' && mkdir -p '%s/www/ipfs'", dir, dir))
    local rnd = io.open("/dev/urandom", "rb")
    local w <close> = ipfsrt.car.writer(dir .. "/blocks.car", {})
    local list = io.open(dir .. "/cids.txt", "w")
    for _ = 1, 4000 do
      local data = rnd:read(65536)
      local cid = ipfsrt.cid.sum("raw", data)
      w:put(cid, data)
      local f = io.open(string.format("%s/www/ipfs/%s", dir, tostring(cid)), "wb")
      f:write(data)
      f:close()
      list:write(tostring(cid), "\n")
    end
    list:close()
    rnd:close()
    M.sh(string.format("head -c %d /dev/urandom > '%s/www/big.bin'", 1 << 30, dir))
    local root = ipfsrt.pack(dir .. "/www/big.bin", { preset = "ipfs-car", wrap = false,
      output = dir .. "/big.car" })
    local f = io.open(dir .. "/big.root", "w")
    f:write(tostring(root))
    f:close()
  end
  local cids = {}
  for line in io.lines(dir .. "/cids.txt") do cids[#cids + 1] = line end
  return { blocks_car = dir .. "/blocks.car", big_car = dir .. "/big.car", cids = cids,
    big_root = io.open(dir .. "/big.root"):read("a"), www = dir .. "/www" }
end

-- The folder name and its CAR, made once by make(name, car) (which returns the
-- CAR's root CID, kept beside it in name.root): the folder, the CAR, the root.
local function made_once(name, make)
  local car, root_file = name .. ".car", name .. ".root"
  local f = io.open(root_file)
  if not f then
    io.stderr:write("generating ", name, " ...\n")
    local root = make(name, car)
    f = assert(io.open(root_file, "w"))
    f:write(root)
    f:close()
    f = assert(io.open(root_file))
  end
  local root = f:read("l")
  f:close()
  return name, car, root
end

local function root_of(output) return output:match("(%S+)%s*$") end

-- The OISST-like sample of the dataset benchmarks, made once in dir by exe
-- (its daily NetCDF-4 files kept beside it, folder-nc): returns its folder,
-- its CAR and the CAR's root.
function M.sample(exe, dir, days, format)
  return made_once(string.format("%s/oisst-%s-v%s", dir, days, format), function(name, car)
    M.sh(string.format("mkdir -p '%s'", dir))
    return root_of(M.sh(string.format("%s scripts/sample/oisst.lua '%s' --days %s --format %s --car '%s' " ..
      "--netcdf '%s-nc' 2>/dev/null", exe, name, days, format, car, name)))
  end)
end

-- The sample's daily NetCDF-4 files (M.sample's folder-nc, as NOAA publishes
-- OISST) with refs.json joining them along time, packed as one CAR (once,
-- beside the sample). Returns the folder, the CAR and its root CID.
function M.netcdf_sample(exe, sample)
  return made_once(sample .. "-nc", function(name, car)
    return root_of(M.sh(string.format("%s pack '%s' -o '%s' --force", exe, name, car)))
  end)
end

-- The NetCDF form's folder packed again in 256 KiB leaves (the chunk size of
-- Kubo's `ipfs add`; the sample's own CAR has ipfs-car's 1 MiB), once: a
-- chunk's byte range drags in the whole leaves it lies in, and a verified read
-- hashes and moves all of them. Returns the CAR and its root CID.
function M.netcdf_small_leaves(exe, nc_dir)
  local _, car, root = made_once(nc_dir .. "-256k", function(_, car)
    return root_of(M.sh(string.format("%s pack '%s' -o '%s' --chunk-size 262144 --force", exe, nc_dir, car)))
  end)
  return car, root
end

-- The NetCDF form's chunks as a plain Zarr (`ipfsrt zarr cp` of its refs.json:
-- the same bytes, (1, 1, 720, 1440) zlib + shuffle), packed once: what reading
-- through references costs beside reading the same chunks as Zarr. Returns
-- the folder, the CAR and its root CID.
function M.netcdf_zarr_copy(exe, nc_dir)
  return made_once(nc_dir .. "z", function(name, car)
    return root_of(M.sh(string.format("rm -rf '%s' && %s zarr cp '%s/refs.json' '%s' -q && %s pack '%s' -o '%s' " ..
      "--hidden --force", name, exe, nc_dir, name, exe, name, car)))
  end)
end

-- A local S3 (s3rver behind tests/s3/front.js, which checks every signature)
-- in dir/s3, holding the sample folder's files as objects under
-- s3://data/oisst and the sample packed as a CARv2 at s3://data/cars/oisst.car
-- (the CAR made once beside the sample). Returns the S3 options for ipfsrt
-- (endpoint, test credentials, region) and a function that stops the server.
function M.s3_sample(exe, dir, sample)
  local ipfsrt = require "ipfsrt"
  local car2 = sample .. "-v2index.car"
  if not io.open(car2) then
    io.stderr:write("packing ", car2, " (CARv2, indexed) ...\n")
    ipfsrt.pack(sample, { output = car2, hidden = true, preset = "ipfs-car", car_version = 2 })
  end
  local s3dir = dir .. "/s3"
  M.sh(string.format("rm -rf '%s' && mkdir -p '%s'", s3dir, s3dir))
  M.sh(string.format("NODE_OPTIONS=--openssl-legacy-provider node tests/s3/front.js '%s' > '%s/url' 2>/dev/null & "
    .. "echo $! > '%s/pid'", s3dir .. "/data", s3dir, s3dir))
  local endpoint
  for _ = 1, 200 do
    local f = io.open(s3dir .. "/url")
    endpoint = f and f:read("l")
    if f then f:close() end
    if endpoint then break end
    M.sh("sleep 0.05")
  end
  assert(endpoint, "the local S3 did not start")
  local s3 = { endpoint = endpoint, access_key = "AKIAIPFSRTTEST", secret_key = "ipfsrt-test-secret",
    region = "us-east-1" }
  local function stop() M.sh(string.format("kill $(cat '%s/pid') 2>/dev/null || true", s3dir)) end
  io.stderr:write("uploading the sample to the local S3 ...\n")
  local store = ipfsrt.zarr.store("s3://data/oisst", { writable = true, s3 = s3 })
  for rel in M.sh(string.format("cd '%s' && find . -type f | sed 's|^./||'", sample)):gmatch("[^\n]+") do
    local f = assert(io.open(sample .. "/" .. rel, "rb"))
    store:put(rel, f:read("a"))
    f:close()
  end
  ipfsrt.s3.put_file("s3://data/cars/oisst.car", car2, s3)
  return s3, stop
end

-- ------------------------------------------------------------ scenarios

-- The scenarios in dir: each file returns {name =, description =, run =
-- function(ctx) -> value read (an n-d array or a number), opens = true when
-- the timing includes opening the dataset}. Sorted by their order field,
-- then name.
function M.load_scenarios(dir)
  local ipfsrt = require "ipfsrt"
  local list = {}
  for _, file in ipairs(ipfsrt.listdir(dir)) do
    if file:match("%.lua$") then
      local chunk = assert(loadfile(dir .. "/" .. file))
      local s = chunk()
      assert(type(s) == "table" and type(s.run) == "function", file .. " does not return a scenario")
      s.name = s.name or file:gsub("%.lua$", "")
      list[#list + 1] = s
    end
  end
  table.sort(list, function(a, b)
    if (a.order or 50) ~= (b.order or 50) then return (a.order or 50) < (b.order or 50) end
    return a.name < b.name
  end)
  return list
end

-- A digest of what a scenario read, to show every backend read the same.
function M.digest(value)
  local ipfsrt = require "ipfsrt"
  local bytes = type(value) == "number" and string.format("%.17g", value) or value:tobytes("<")
  return tostring(ipfsrt.multihash.sum("sha2-256", bytes).digest):sub(1, 8):gsub(".", function(c)
    return string.format("%02x", c:byte())
  end)
end

-- Runs every scenario over every backend: a warm-up, then runs repetitions,
-- each with what backend.open(scenario) gives (a cold client each time unless
-- the backend keeps one). Returns {scenario = {backend = {median, min, max,
-- digest}}}; progress on stderr.
function M.run_scenarios(scenarios, backends, opts)
  local ipfsrt = require "ipfsrt"
  opts = opts or {}
  local runs, warmup = opts.runs or 5, opts.warmup or 1
  local results, tty = {}, ipfsrt.isatty(io.stderr)
  for _, s in ipairs(scenarios) do
    results[s.name] = {}
    for _, b in ipairs(backends) do
      local times, dig = {}, nil
      for rep = 1, warmup + runs do
        if tty then io.stderr:write(string.format("\r%-12s %-14s %d/%d\27[K", s.name, b.name, rep, warmup + runs)) end
        collectgarbage()
        local ctx = b.context()
        local t0 = ipfsrt.clock()
        if not s.opens then ctx.dataset = ctx.open() t0 = ipfsrt.clock() end
        local value = s.run(ctx)
        local secs = ipfsrt.clock() - t0
        if ctx.close then ctx.close() end
        dig = dig or M.digest(value)
        if rep > warmup then times[#times + 1] = secs end
      end
      table.sort(times)
      results[s.name][b.name] = { median = M.median(times), min = times[1], max = times[#times], digest = dig }
    end
  end
  if tty then io.stderr:write("\r\27[K") end
  return results
end

-- The results as a table: ms per scenario and backend, and whether every
-- backend read the same values.
function M.print_results(scenarios, backends, results, out)
  out = out or io.stdout
  local head = { string.format("%-12s", "scenario") }
  for _, b in ipairs(backends) do head[#head + 1] = string.format(" %25s", b.name .. " ms (min-max)") end
  head[#head + 1] = "  same values"
  out:write(table.concat(head), "\n")
  for _, s in ipairs(scenarios) do
    local row, same, first = { string.format("%-12s", s.name) }, true, nil
    for _, b in ipairs(backends) do
      local r = results[s.name][b.name]
      row[#row + 1] = string.format("%10.1f (%.0f-%.0f)", r.median * 1000, r.min * 1000, r.max * 1000)
      row[#row] = string.format(" %25s", row[#row])
      first = first or r.digest
      same = same and r.digest == first
    end
    row[#row + 1] = same and "  yes" or "  NO"
    out:write(table.concat(row), "\n")
  end
end

-- The medians as JSON: {scenario: {backend: {median_ms, min_ms, max_ms, digest}}}.
function M.results_json(results)
  local ipfsrt = require "ipfsrt"
  local out = {}
  for s, per in pairs(results) do
    out[s] = {}
    for b, r in pairs(per) do
      out[s][b] = { median_ms = r.median * 1000, min_ms = r.min * 1000, max_ms = r.max * 1000, digest = r.digest }
    end
  end
  return ipfsrt.json.encode(out, { pretty = true })
end

-- results_json into the file at path (nothing when path is nil).
function M.write_json(path, results)
  if not path then return end
  local f = assert(io.open(path, "w"))
  f:write(M.results_json(results))
  f:close()
end

return M
