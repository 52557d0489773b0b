-- Benchmark: CAR parse + verify through the streaming push reader, fed in 16 KiB
-- slices, beside the raw SHA-256 throughput of each hash backend, in one run.
-- Usage: ipfsrt scripts/bench/car_verify.lua [SIZE_MIB=512] [RUNS=5] [DIR=build/bench]
local ipfsrt = require "ipfsrt"
-- the benchmarks' helpers beside this script (scripts/bench/lib), not part of the library
package.path = (arg[0]:match("^(.*)/") or ".") .. "/lib/?.lua;" .. package.path
local bench = require "bench"
local median = bench.median

local size_mib = tonumber(arg[1]) or 512
local runs = tonumber(arg[2]) or 5
local dir = arg[3] or "build/bench"
local SLICE = 16 * 1024
local BLOCK_SIZES = { 64 * 1024, 256 * 1024, 1024 * 1024 }


-- Pseudo-random bytes from a tiny LCG: cheap, deterministic, incompressible enough.
local function random_bytes(n, seed)
  local parts, x = {}, seed
  for i = 1, n // 8 do
    x = (x * 6364136223846793005 + 1442695040888963407) & 0xffffffffffffffff
    parts[i] = string.pack("<i8", x)
  end
  return table.concat(parts)
end

local base = random_bytes(1024 * 1024, 42)

-- Block i: its index, then a slice of the base pattern (so every block is distinct).
local function block(i)
  local size = BLOCK_SIZES[(i - 1) % #BLOCK_SIZES + 1]
  return string.pack("<i8", i) .. base:sub(9, size)
end

local function generate(path, total)
  local w <close> = ipfsrt.car.writer(path, {})
  local written, i = 0, 0
  while written < total do
    i = i + 1
    local data = block(i)
    w:put(ipfsrt.cid.sum("raw", data), data)
    written = written + #data
  end
  return i, written
end

os.execute("mkdir -p " .. dir)
local path = string.format("%s/car_verify_%dMiB.car", dir, size_mib)
local f = io.open(path, "rb")
if f then
  f:close()
else
  io.stderr:write("generating ", path, " ...\n")
  generate(path, size_mib * 1024 * 1024)
end

-- Warm the page cache so every run reads from memory.
local summary = ipfsrt.car.verify(path, { slice = 1024 * 1024 })
local payload = summary.bytes
local file_bytes
do
  local fh = assert(io.open(path, "rb"))
  file_bytes = fh:seek("end")
  fh:close()
end

-- The raw hash cost of exactly the same block mix, without any CAR parsing.
local samples = { block(1), block(2), block(3) }
local function raw_sha256()
  local t0 = ipfsrt.clock()
  local hashed, i = 0, 0
  while hashed < payload do
    i = i + 1
    local data = samples[(i - 1) % 3 + 1]
    ipfsrt.multihash.sum("sha2-256", data)
    hashed = hashed + #data
  end
  return hashed / (ipfsrt.clock() - t0) / 1e6
end

-- Parse + verify alone: the CAR is in memory and fed to the push reader in slices.
local car_bytes
local function car_verify_memory()
  local t0 = ipfsrt.clock()
  local s = ipfsrt.car.verify(car_bytes, { slice = SLICE, bytes = true })
  assert(s.bytes == payload)
  return payload / (ipfsrt.clock() - t0) / 1e6
end

-- End to end from the file (`ipfsrt car verify`): adds mapping the page cache.
local function car_verify_file()
  local t0 = ipfsrt.clock()
  local s = ipfsrt.car.verify(path, { slice = SLICE })
  assert(s.bytes == payload)
  return payload / (ipfsrt.clock() - t0) / 1e6
end

-- The same stream fed from Lua, slice by slice, collecting every verified block.
local function lua_feed()
  local t0 = ipfsrt.clock()
  local fh = assert(io.open(path, "rb"))
  local r = ipfsrt.car.reader()
  local got = 0
  while true do
    local chunk = fh:read(SLICE)
    if not chunk then break end
    for _, b in ipairs(r:feed(chunk)) do got = got + #b.data end
  end
  r:finish()
  fh:close()
  assert(got == payload)
  return payload / (ipfsrt.clock() - t0) / 1e6
end

do
  local fh = assert(io.open(path, "rb"))
  car_bytes = fh:read("a")
  fh:close()
end

print(string.format("CAR: %s, %.0f MiB payload in %d blocks of 64/256/1024 KiB (%.0f MiB file)",
  path, payload / 1048576, summary.blocks, file_bytes / 1048576))
print(string.format("runs: %d, slices of %d KiB; MB/s = 10^6 payload bytes per second; medians", runs, SLICE // 1024))
print(string.format("%-9s %11s %14s %7s %14s %7s %13s", "backend", "raw sha256", "verify (mem)", "ratio",
  "verify (file)", "ratio", "lua feed"))
local default = ipfsrt.hash.backend()
local results = {}
for _, backend in ipairs(ipfsrt.hash.backends()) do
  ipfsrt.hash.backend(backend)
  local raw, mem, file, feed = {}, {}, {}, {}
  -- interleaved, so drift on a noisy machine hits every measurement alike
  for _ = 1, runs do
    raw[#raw + 1] = raw_sha256()
    mem[#mem + 1] = car_verify_memory()
    file[#file + 1] = car_verify_file()
    feed[#feed + 1] = lua_feed()
  end
  local r = { backend = backend, raw = median(raw), mem = median(mem), file = median(file),
    feed = median(feed) }
  results[#results + 1] = r
  print(string.format("%-9s %6.0f MB/s %9.0f MB/s %6.1f%% %9.0f MB/s %6.1f%% %8.0f MB/s", backend,
    r.raw, r.mem, 100 * r.mem / r.raw, r.file, 100 * r.file / r.raw, r.feed))
end
ipfsrt.hash.backend(default)
print("verify (mem): CAR in memory, push reader fed 16 KiB slices: parse + verify alone")
print("verify (file): the same from the mapped file, as `ipfsrt car verify` does")
print("lua feed: 16 KiB strings read in Lua, fed to car.reader(), every block handed back to Lua")
for _, r in ipairs(results) do
  if r.backend == default then
    print(string.format("target (backend in use: %s): parse + verify >= 90%% of raw sha256: %s (%.1f %%)",
      default, r.mem >= 0.9 * r.raw and "met" or "NOT met", 100 * r.mem / r.raw))
  end
end
