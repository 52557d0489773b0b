-- Benchmark: `ipfsrt pack` of a generated 1 GiB tree and `ipfsrt car get` of it
-- back out, each as its own process (so its peak RSS is its own), beside the
-- raw SHA-256 throughput of the hash backend in use, in one run.
-- Usage: ipfsrt scripts/bench/unixfs_pack.lua [SIZE_MIB=1024] [RUNS=3] [DIR=build/bench]
local ipfsrt = require "ipfsrt"
-- the benchmarks' helpers beside this script (scripts/bench/lib), not part of the library
package.path = (arg[0]:match("^(.*)/") or ".") .. "/lib/?.lua;" .. package.path
local bench = require "bench"
local sh, median = bench.sh, bench.median

local size_mib = tonumber(arg[1]) or 1024
local runs = tonumber(arg[2]) or 3
local dir = arg[3] or "build/bench"
local exe = arg[-1] or "build/ipfsrt"
local tree = string.format("%s/pack-tree-%dMiB", dir, size_mib)



-- 16 directories of 16 random files each (incompressible, nothing deduplicates).
local file_mib = math.max(1, size_mib // 256)
if not io.open(tree .. "/d15/f15.bin") then
  io.stderr:write("generating ", tree, " ...\n")
  sh(string.format("rm -rf '%s' && mkdir -p '%s'", tree, tree))
  for d = 0, 15 do
    sh(string.format("mkdir -p '%s/d%d'", tree, d))
    for f = 0, 15 do
      sh(string.format("head -c %d /dev/urandom > '%s/d%d/f%d.bin'", file_mib * 1048576, tree, d, f))
    end
  end
end
local bytes = 256 * file_mib * 1048576
sh(string.format("cat '%s'/d*/f*.bin > /dev/null", tree)) -- warm the page cache

-- Runs a Lua chunk in a fresh ipfsrt process; it prints "seconds peak_kib".
local function timed(code)
  local script = string.format([[
    local t0 = ipfsrt.clock()
    %s
    local dt = ipfsrt.clock() - t0
    local hwm = io.open("/proc/self/status"):read("a"):match("VmHWM:%%s*(%%d+)")
    print(dt, hwm)]], code)
  local out = sh(string.format("%s -e %q", exe, script))
  local secs, kib = out:match("([%d.e+-]+)%s+(%d+)")
  return tonumber(secs), tonumber(kib)
end

local car = dir .. "/pack-bench.car"
local out_dir = dir .. "/pack-bench-out"
local function pack_once()
  os.remove(car)
  return timed(string.format([[_G.root = ipfsrt.pack(%q, { preset = "ipfs-car", output = %q })
    io.open(%q, "w"):write(tostring(_G.root))]], tree, car, car .. ".root"))
end
local function get_once()
  sh(string.format("rm -rf '%s'", out_dir))
  local root = io.open(car .. ".root"):read("a")
  return timed(string.format([[local c = ipfsrt.car.open(%q)
    ipfsrt.unixfs.export(c, %q, %q)]], car, root, out_dir))
end

local function sha256_rate()
  local buf = string.rep("\0", 0) .. io.open(tree .. "/d0/f0.bin", "rb"):read(1048576)
  local t0, n = ipfsrt.clock(), 0
  while ipfsrt.clock() - t0 < 1 do
    ipfsrt.multihash.sum("sha2-256", buf)
    n = n + 1
  end
  return n * #buf / (ipfsrt.clock() - t0) / 1e6
end

local sha, pack_rate, get_rate, pack_rss, get_rss = {}, {}, {}, {}, {}
for _ = 1, runs do
  sha[#sha + 1] = sha256_rate()
  local s, kib = pack_once()
  pack_rate[#pack_rate + 1], pack_rss[#pack_rss + 1] = bytes / s / 1e6, kib
  s, kib = get_once()
  get_rate[#get_rate + 1], get_rss[#get_rss + 1] = bytes / s / 1e6, kib
end
local root = io.open(car .. ".root"):read("a")
sh(string.format("diff -r '%s' '%s'", tree, out_dir)) -- the bytes came back exactly

local s, p, g = median(sha), median(pack_rate), median(get_rate)
local prss, grss = math.max(table.unpack(pack_rss)), math.max(table.unpack(get_rss))
print(string.format("tree: %s, %d MiB in 256 files; root %s; hash backend %s; %d runs, medians",
  tree, bytes // 1048576, root, ipfsrt.hash.backend(), runs))
print(string.format("raw sha256        %7.0f MB/s", s))
print(string.format("ipfsrt pack       %7.0f MB/s  %5.1f %% of sha256   peak RSS %5.1f MiB", p, 100 * p / s, prss / 1024))
print(string.format("ipfsrt car get    %7.0f MB/s  %5.1f %% of sha256   peak RSS %5.1f MiB", g, 100 * g / s, grss / 1024))
print(string.format("targets: pack and get >= 80 %% of sha256: %s; peak RSS < 64 MiB: %s",
  (p >= 0.8 * s and g >= 0.8 * s) and "met" or "NOT met",
  (prss < 65536 and grss < 65536) and "met" or "NOT met"))
sh(string.format("rm -rf '%s' '%s'", out_dir, car))
