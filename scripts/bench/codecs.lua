-- Benchmark: decode throughput of each chunk codec (MB/s of decoded output)
-- beside the same library's own call made directly, in one run (the C helper
-- tests/bench/codec_bench.c measures both, alternating). Target: ipfsrt's
-- decode at least 90 % of the direct call's.
-- Usage: ipfsrt scripts/bench/codecs.lua HELPER [ROUNDS=15] [DIR=build/bench]
local ipfsrt = require "ipfsrt"
-- the benchmarks' helpers beside this script (scripts/bench/lib), not part of the library
package.path = (arg[0]:match("^(.*)/") or ".") .. "/lib/?.lua;" .. package.path
local bench = require "bench"

local helper = assert(arg[1], "usage: codecs.lua HELPER [ROUNDS] [DIR]")
local rounds = tonumber(arg[2]) or 15
local dir = (arg[3] or "build/bench") .. "/codecs"
bench.sh(string.format("mkdir -p '%s'", dir))

-- Two chunks as sea-surface temperatures come: int16 of a smooth field with
-- noise (720 x 1440), and the same as float32.
local nd = ipfsrt.ndarray
local n = 720 * 1440
local x = ((nd.linspace(0, 2000, n) % 400) - 200):abs() * 4 + nd.arange(n):astype("float64") % 7 -- ridges, noise
local files = {
  int16 = { dir .. "/sst-int16.raw", 2, x:astype("int16") },
  float32 = { dir .. "/sst-float32.raw", 4, (x * 0.01):astype("float32") },
}
for _, f in pairs(files) do
  local out = assert(io.open(f[1], "wb"))
  out:write(f[3]:tobytes("<"))
  out:close()
end

local CASES = {
  { "zstd", '{"level": 3}', "int16" }, { "zstd", '{"level": 3}', "float32" },
  { "gzip", '{"level": 5}', "int16" }, { "zlib", '{"level": 5}', "float32" },
  { "bz2", '{"level": 5}', "int16" }, { "lz4", '{"acceleration": 1}', "int16" },
  { "blosc", '{"cname": "lz4", "clevel": 5, "shuffle": 1}', "int16" },
  { "blosc", '{"cname": "zstd", "clevel": 3, "shuffle": 2}', "float32" },
  { "blosc", '{"cname": "zlib", "clevel": 5, "shuffle": 1}', "float32" },
}

print(string.format("chunk codecs: MB/s of decoded output (%d x %d elements), medians of %d rounds", 720, 1440,
  rounds))
print(string.format("  %-52s %10s %10s %7s  %s", "codec", "ipfsrt", "direct", "ratio", "target >= 90 %"))
local worst = math.huge
for _, c in ipairs(CASES) do
  local f = files[c[3]]
  local cmd = string.format("%s %s '%s' %d '%s' %d", helper, c[1], c[2], f[2], f[1], rounds)
  local r = ipfsrt.json.decode(bench.sh(cmd))
  local ratio = r.ours / r.direct
  worst = math.min(worst, ratio)
  print(string.format("  %-52s %10.1f %10.1f %6.1f%%  %s", c[1] .. " " .. c[2] .. " " .. c[3], r.ours, r.direct,
    ratio * 100, ratio >= 0.9 and "ok" or "MISSED"))
end
print(string.format("  lowest ratio %.1f %%", worst * 100))
