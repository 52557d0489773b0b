-- UnixFS interop with ipfs-car: generated trees packed by `ipfs-car pack` and by
-- `ipfsrt pack --preset ipfs-car` must have the same root CID, and every file read
-- back by ipfsrt from ipfs-car's CAR must equal the original byte for byte.
-- Usage: ipfsrt unixfs-interop.lua WORKDIR IPFSRT IPFS_CAR
local ipfsrt = require "ipfsrt"

local work, exe, ipfs_car = arg[1], arg[2], arg[3]
assert(work and exe and ipfs_car, "usage: unixfs-interop.lua WORKDIR IPFSRT IPFS_CAR")

-- the lua-exe specs' helpers: shell commands and quoting
package.path = arg[0]:gsub("[^/]*$", "") .. "../lua-exe/?.lua;" .. package.path
local exe_helpers = require "exe"
local sh, q = exe_helpers.sh, exe_helpers.sh_quote

local function write(path, data)
  local f = assert(io.open(path, "wb"))
  f:write(data)
  f:close()
end

-- Deterministic bytes: a counter-mode LCG, cheap in Lua for a few MiB.
local function bytes(n, seed)
  local parts, x, chunk = {}, seed, 8
  for i = 1, n // chunk do
    x = (x * 6364136223846793005 + 1442695040888963407) & 0xffffffffffffffff
    parts[i] = string.pack("<i8", x)
  end
  local s = table.concat(parts)
  return s .. string.rep("z", n - #s)
end

local MiB = 1024 * 1024
local passed, failed = 0, 0
local function check(name, ok, detail)
  if ok then
    passed = passed + 1
    print("ok   " .. name)
  else
    failed = failed + 1
    print("FAIL " .. name .. ": " .. detail)
  end
end

local function last_line(s) return s:match("([^\n]+)\n?$") end

-- Packs with both tools; returns both roots and ipfs-car's CAR path.
local function pack_both(name, path, extra)
  local ref_car = work .. "/" .. name .. ".ipfs-car.car"
  local our_car = work .. "/" .. name .. ".ipfsrt.car"
  local ref = last_line(sh(q(ipfs_car) .. " pack " .. q(path) .. " " .. (extra or "") .. " --output " .. q(ref_car)))
  local ours = last_line(sh(q(exe) .. " pack " .. q(path) .. " " .. (extra or "") .. " -o " .. q(our_car)))
  check(name .. ": same root CID", ref == ours, "ipfs-car " .. tostring(ref) .. ", ipfsrt " .. tostring(ours))
  -- our own CAR must verify as a whole
  sh(q(exe) .. " car verify " .. q(our_car))
  return ref, ref_car
end

sh("rm -rf " .. q(work) .. " && mkdir -p " .. q(work))

-- 1. single files at chunk edges (ipfs-car wraps each in a directory; --no-wrap does not)
local sizes = { 0, 1, 1000, MiB - 1, MiB, MiB + 1, 5 * MiB + 12345 }
for _, n in ipairs(sizes) do
  local dir = string.format("%s/single-%d", work, n)
  sh("mkdir -p " .. q(dir))
  local path = dir .. "/file.bin"
  local data = bytes(n, n + 7)
  write(path, data)
  local root, car = pack_both("file " .. n .. " B", path)
  local got = sh(q(exe) .. " car get " .. q(car) .. " " .. q(root .. "/file.bin"))
  check("file " .. n .. " B: read back from ipfs-car's CAR", got == data, "bytes differ")
  local root2, car2 = pack_both("file " .. n .. " B, --no-wrap", path, "--no-wrap")
  local got2 = sh(q(exe) .. " car get " .. q(car2) .. " " .. q(root2))
  check("file " .. n .. " B, --no-wrap: read back", got2 == data, "bytes differ")
end

-- 2. a tree: nested directories, a 5,000-entry directory (sharded), edge-size
-- files, non-ASCII names, and what ipfs-car leaves out (hidden files, empty
-- directories, symlinks)
local tree = work .. "/tree"
local files = {}
local function add(rel, data)
  files[#files + 1] = { rel = rel, data = data }
  sh("mkdir -p " .. q((tree .. "/" .. rel):match("^(.*)/")))
  write(tree .. "/" .. rel, data)
end
add("README.txt", "a tree for interop tests\n")
add("empty.bin", "")
add("one.bin", "x")
add("exact-chunk.bin", bytes(MiB, 1))
add("chunk-plus-one.bin", bytes(MiB + 1, 2))
add("big.bin", bytes(5 * MiB + 3, 3))
add("naïve-файл-日本語.txt", "non-ASCII names\n")
add("a/b/c/deep.txt", "deep\n")
add("a/b/sibling.txt", "sibling\n")
add("a/ünïcödé/ok.txt", "ok\n")
for i = 1, 5000 do add(string.format("many/entry-%05d.txt", i), "entry " .. i .. "\n") end
sh("mkdir -p " .. q(tree .. "/empty-dir/also-empty"))
write(tree .. "/.hidden", "not packed by default\n")
sh("ln -s README.txt " .. q(tree .. "/link-to-readme"))

local root, car = pack_both("tree with a 5000-entry directory", tree)
local ok, info = pcall(function()
  local c <close> = ipfsrt.car.open(car)
  return ipfsrt.unixfs.resolve(c, root .. "/many")
end)
check("tree: the 5000-entry directory is a HAMT", ok and info.type == "hamt-shard",
  ok and info.type or tostring(info))
-- Checks that every file of the tree, as read by read(rel), equals the original.
local function check_files(what, read)
  local differ = {}
  for _, f in ipairs(files) do
    local got_ok, got = pcall(read, f.rel)
    if not got_ok or got ~= f.data then differ[#differ + 1] = f.rel .. (got_ok and "" or ": " .. tostring(got)) end
  end
  check(what, #differ == 0, #differ .. " differ, first " .. tostring(differ[1]))
end

local function file_in(dir)
  return function(rel)
    local h = io.open(dir .. "/" .. rel, "rb")
    local got = h and h:read("a")
    if h then h:close() end
    return got
  end
end

local out = work .. "/tree-out"
sh(q(exe) .. " car get " .. q(car) .. " " .. q(root) .. " -o " .. q(out))
check_files("tree: every file exported from ipfs-car's CAR equals the original", file_in(out))
check("tree: hidden files and empty directories left out, as ipfs-car does",
  not io.open(out .. "/.hidden") and not io.open(out .. "/empty-dir"), "found them")

-- 2b. the same files fetched through a gateway: ipfs-car's CAR served by ipfsrt
-- serve, every file read by the verifying client (path requests: one CAR each,
-- walked from the root through the HAMT), then the whole tree with `ipfsrt get`
do
  local gw = ipfsrt.serve { cars = { car } }
  local client = ipfsrt.client { gateways = { gw:url() }, cache = false }
  check_files("tree via gateway: every file fetched by path equals the original",
    function(rel) return client:get("ipfs://" .. root .. "/" .. rel) end)
  local fetched = work .. "/tree-fetched"
  sh(q(exe) .. " get ipfs://" .. root .. " -o " .. q(fetched) .. " --gateway " .. gw:url())
  check_files("tree via gateway: `ipfsrt get -o` writes every file as the original", file_in(fetched))
  gw:stop()
end

-- 3. a directory whose files all sit one level down: ipfs-car roots the DAG there
local nested = work .. "/nested-only"
sh("mkdir -p " .. q(nested .. "/inner"))
write(nested .. "/inner/x.txt", "x\n")
write(nested .. "/inner/y.txt", "y\n")
pack_both("directory holding one directory", nested)

-- 4. a Zarr v2 folder: its dot-file metadata go in without --hidden, as ipfs-car packs the
-- same files when told --hidden (the folder holds no other dot-file)
local zarr = work .. "/zarr-v2"
sh("mkdir -p " .. q(zarr .. "/t"))
write(zarr .. "/.zgroup", '{"zarr_format": 2}')
write(zarr .. "/.zattrs", '{"title": "interop"}')
write(zarr .. "/t/.zarray", '{"chunks": [2], "compressor": null, "dtype": "<i2", "fill_value": 0, "filters": null, ' ..
  '"order": "C", "shape": [4], "zarr_format": 2}')
write(zarr .. "/t/0", string.pack("<i2<i2", 0, 1))
write(zarr .. "/t/1", string.pack("<i2<i2", 2, 3))
local ref_car = work .. "/zarr-v2.ipfs-car.car"
local ref = last_line(sh(q(ipfs_car) .. " pack " .. q(zarr) .. " --hidden --output " .. q(ref_car)))
local ours = last_line(sh(q(exe) .. " pack " .. q(zarr) .. " -o " .. q(work .. "/zarr-v2.ipfsrt.car")))
check("Zarr v2 folder: its metadata packed without --hidden, the root ipfs-car's with --hidden", ref == ours,
  "ipfs-car " .. tostring(ref) .. ", ipfsrt " .. tostring(ours))

print(string.format("ipfs-car interop: %d passed, %d failed", passed, failed))
os.exit(failed == 0 and 0 or 1)
