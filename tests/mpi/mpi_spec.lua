-- ipfsrt.mpi under mpirun (Open MPI), against a local gateway started here:
-- the answers of 1, 2, 3 and 4 ranks equal one process's, uneven splits, a
-- failing rank ending the job, waiting without burning a core, a hostfile,
-- a stock lua5.4 host, and MPI linked only into the module.
local ipfsrt = require "ipfsrt"

local BUILD = os.getenv("IPFSRT_BUILD") or "build"
local EXE = BUILD .. "/ipfsrt"
local ROOT = io.popen("id -u"):read("l") == "0"
local MPIRUN = "mpirun --oversubscribe --bind-to none" .. (ROOT and " --allow-run-as-root" or "")

local function sh(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- Runs a command; returns its exit code, stdout, stderr and seconds taken.
local function run(cmd)
  local err = os.tmpname()
  local t0 = ipfsrt.clock()
  local p = assert(io.popen(cmd .. " 2>" .. err))
  local out = p:read("a")
  local _, _, code = p:close()
  local f = assert(io.open(err))
  local e = f:read("a")
  f:close()
  os.remove(err)
  return code, out, e, ipfsrt.clock() - t0
end

-- A new temporary file holding text; returns its name.
local function temp_file(text)
  local name = os.tmpname()
  local f = assert(io.open(name, "w"))
  f:write(text)
  f:close()
  return name
end

describe("ipfsrt.mpi", function()
  local dir, gw, where, ds
  local function job(n, task, extra)
    local code, out, err = run(string.format("timeout 120 %s %s -n %d %s tests/mpi/job.lua %s %s %s %s", MPIRUN,
      extra or "", n, EXE, sh(where), sh(gw:url()), task, "bare"))
    assert.equal(0, code, err)
    return ipfsrt.json.decode(out:match("[^\n]+"))
  end

  setup(function()
    dir = os.tmpname()
    os.remove(dir)
    assert(os.execute(string.format("%s scripts/sample/oisst.lua %s --days 4 >/dev/null 2>&1", EXE, sh(dir))))
    local root = ipfsrt.pack(dir, { output = dir .. ".car", hidden = true })
    gw = ipfsrt.serve { cars = { dir .. ".car" } }
    where = "ipfs://" .. tostring(root)
    ds = ipfsrt.dataset.open(dir)
  end)
  teardown(function()
    gw:stop()
    os.execute("rm -rf " .. sh(dir) .. " " .. sh(dir .. ".car"))
  end)

  it("links MPI into its own module only", function()
    assert.is_true(os.execute("ldd " .. BUILD .. "/lua/ipfsrt/mpi_core.so | grep -q libmpi"))
    for _, f in ipairs { "ipfsrt", "ipfsrt.so", "libipfsrt.so" } do
      assert.is_not_true(os.execute("ldd " .. BUILD .. "/" .. f .. " | grep -q libmpi"), f)
    end
  end)

  it("says how to get its C half when that is not built", function()
    local san = os.getenv("IPFSRT_SAN_LIBS") or ""
    local code, out = run(string.format("%sLUA_CPATH=%s lua5.4 -e %s", san ~= "" and "LD_PRELOAD=" .. sh(san) .. " " or "", sh(BUILD .. "/?.so"),
      sh('require "ipfsrt"; local ok, e = pcall(require, "ipfsrt.mpi"); print(ok, e)')))
    assert.equal(0, code)
    assert.truthy(out:find("false", 1, true) and out:find("make mpi", 1, true), out)
  end)

  it("sends Lua values and n-d arrays, reduces them, and splits lists as documented", function()
    local code, out, err = run(string.format("timeout 60 %s -n 3 %s tests/mpi/values.lua", MPIRUN, EXE))
    assert.equal(0, code, err)
    assert.equal("ok\n", out)
  end)

  it("sums, extremes and means: 1, 2 and 4 ranks give one process's answers exactly", function()
    -- one process, no MPI: the stored integers, fill left out, scale last
    local raw = ds.sst:source().array:read()
    local valid = raw:ne(-999)
    local want_sum, want_count = raw:sum { where = valid }, valid:sum()
    local cf = ds.sst:source().cf
    local answers = {}
    for _, n in ipairs { 1, 2, 4 } do
      local a = job(n, "sums")
      assert.equal(want_sum, a.sum)
      assert.equal(want_count, a.count)
      assert.equal(raw:min { where = valid }, a.low)
      assert.equal(raw:max { where = valid }, a.high)
      assert.equal(32, a.chunks)
      local shared = 0
      for _, m in ipairs(a.shares) do shared = shared + m end
      assert.equal(32, shared)
      assert.equal(n, #a.shares)
      answers[#answers + 1] = a.mean
    end
    assert.equal(answers[1], answers[2])
    assert.equal(answers[1], answers[3])
    assert.near(ds.sst:mean(), answers[1], 1e-6 * math.abs(answers[1]))
    assert.near(want_sum * cf.scale / want_count, answers[1], 1e-9)
  end)

  it("a time series placed chunk by chunk equals the one read in one process", function()
    local want = ds.sst:isel { lat = 400, lon = 1000 }:values():tolist()
    for _, n in ipairs { 1, 3 } do assert.same(want, job(n, "series").series) end
  end)

  it("splits 8 chunks over 3 ranks, and 1 chunk over 4 ranks, with the same answers", function()
    local day = ds.sst:isel { time = 1 }:values()
    for _, n in ipairs { 1, 3 } do
      local a = job(n, "day")
      assert.equal(8, a.chunks)
      assert.equal(day:count(), a.count)
      assert.equal(day:count(), a.field_count)
      if n == 3 then -- contiguous runs of 2 or 3 chunks, as the chunks' weights fall
        table.sort(a.shares)
        assert.same({ 2, 3, 3 }, a.shares)
      end
    end
    local corner = ds.sst:isel { time = 0, lat = { 0, 360 }, lon = { 0, 360 } }:values()
    local a = job(4, "corner")
    assert.equal(1, a.chunks)
    local owners = 0
    for _, m in ipairs(a.shares) do owners = owners + m end
    assert.equal(1, owners)
    assert.equal(corner:count(), a.field_count)
    assert.near(corner:sum { skipna = true }, a.field_sum, 1e-3)
  end)

  it("gives each rank the node's CPUs over its ranks as worker threads, unless IPFSRT_THREADS says", function()
    local cpus = select(2, ipfsrt.threads())
    local a = job(2, "threads")
    assert.equal(2, a.node_size)
    for _, t in ipairs(a.threads) do assert.equal(math.max(1, cpus // 2), t) end
    a = job(2, "threads", "-x IPFSRT_THREADS=3")
    for _, t in ipairs(a.threads) do assert.equal(3, t) end
  end)

  it("ends the whole job within 5 s when one rank fails (the executable, and mpi.run from a stock lua5.4)", function()
    local code, _, err, took = run(string.format("timeout 60 %s -n 3 %s tests/mpi/job.lua %s %s fail bare", MPIRUN,
      EXE, sh(where), sh(gw:url())))
    assert.is_not.equal(0, code)
    assert.is_true(took < 5, "took " .. took .. " s")
    assert.truthy(err:find("rank 2 gives up", 1, true), err)
    local san = os.getenv("IPFSRT_SAN_LIBS") or ""
    local env = string.format("LUA_CPATH=%s LUA_PATH=%s%s", sh(BUILD .. "/?.so;" .. BUILD .. "/lua/?.so"),
      sh("lua/?.lua"), san ~= "" and " LD_PRELOAD=" .. sh(san) or "")
    code, _, err, took = run(string.format("timeout 60 %s -n 3 -x LUA_CPATH -x LUA_PATH env %s lua5.4 "
      .. "tests/mpi/job.lua %s %s fail", MPIRUN, env, sh(where), sh(gw:url())))
    assert.is_not.equal(0, code)
    assert.is_true(took < 5, "took " .. took .. " s")
    assert.truthy(err:find("rank 2 of 3 failed", 1, true), err)
  end)

  it("waits for other ranks without spinning a core", function()
    local script = temp_file([[
local mpi = require "ipfsrt.mpi"
if mpi.rank() == 1 then os.execute("sleep 1.5") end
local cpu, t0 = os.clock(), mpi.wtime()
mpi.barrier()
local got = mpi.allreduce(ipfsrt.ndarray.from { mpi.rank() }, "sum")
cpu = os.clock() - cpu
if mpi.rank() == 0 then print(string.format("%.3f %.3f %d", cpu, mpi.wtime() - t0, got:tolist()[1])) end
]])
    local code, out, err = run(string.format("timeout 60 %s -n 2 %s %s", MPIRUN, EXE, sh(script)))
    os.remove(script)
    assert.equal(0, code, err)
    local cpu, waited, sum = out:match("(%S+) (%S+) (%S+)")
    assert.is_true(tonumber(waited) > 1.2, out)
    assert.is_true(tonumber(cpu) < 0.3, "CPU burned while waiting: " .. out)
    assert.equal("1", sum)
  end)

  it("runs from a hostfile", function()
    local hosts = temp_file("localhost slots=2\n")
    local a = job(2, "sums", "--hostfile " .. sh(hosts))
    os.remove(hosts)
    assert.equal(2, #a.shares)
  end)
end)
