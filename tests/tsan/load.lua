-- The threaded paths under ThreadSanitizer (make tsan): a Zarr array written
-- on four encoding threads, packed, then read verified over ipfs:// through
-- three local gateways (one lying, one slow) under the hedged policy, decoded
-- on four threads, CF-decoded on them too, while a progress callback switches
-- the hash backend under the verifying threads. Every value must come back.
-- Usage: ipfsrt tests/tsan/load.lua DIR
local ipfsrt = require "ipfsrt"
local nd = ipfsrt.ndarray

local dir = assert(arg[1], "usage: load.lua DIR")
assert(os.execute("rm -rf " .. dir .. " && mkdir -p " .. dir))

-- 15 x 20 = 300 chunks of 2 x 20 int32
local shape, chunks = { 30, 400 }, { 2, 20 }
local values = nd.arange(30 * 400):astype("int32"):reshape(shape)
local a = ipfsrt.zarr.create(dir .. "/data.zarr", { shape = shape, chunks = chunks, dtype = "int32",
  compressor = "zstd", zarr_format = 2, fill_value = -1, attrs = { scale_factor = 0.5 } })
a:write(nil, values, { threads = 4 })

local car = dir .. "/data.car"
local root = tostring(ipfsrt.pack(dir .. "/data.zarr", { output = car, hidden = true }))
local honest = ipfsrt.serve { cars = { car } }
local liar = ipfsrt.serve { cars = { car }, faults = { tamper = 0.3, seed = 7 } }
local slow = ipfsrt.serve { cars = { car }, faults = { delay_ms = 20, seed = 3 } }

local backends = ipfsrt.hash.backends()
local switches = 0
local client = ipfsrt.client { gateways = { liar:url(), slow:url(), honest:url() }, policy = "hedged",
  cache = false, threads = 4 }
local remote = ipfsrt.zarr.open("ipfs://" .. root, { client = client })
local function switch_backend()
  switches = switches + 1
  ipfsrt.hash.backend(backends[switches % #backends + 1])
end
local got = remote:read(nil, { threads = 4, progress = switch_backend })
assert(got:eq(values):all(), "the values read differ from those written")
local scaled = remote:read({ { 3, 27 } }, { threads = 4, progress = switch_backend,
  unscale = { dtype = "float64", fills = { -1 }, scale = 0.5 } })
assert(scaled:eq(values:slice { { 3, 27 } }:astype("float64") * 0.5):all(), "the unscaled values differ")

-- the same array again from the folder, every chunk on the decoding threads
local again = ipfsrt.zarr.open(dir .. "/data.zarr"):read(nil, { threads = 4 })
assert(again:eq(values):all(), "the folder's values differ")

client:close()
for _, gw in ipairs { honest, liar, slow } do gw:stop() end
print(string.format("tsan load: 300 chunks written on 4 threads, read verified through 3 gateways (hedged, " ..
  "one lying), backend switched %d times while verifying: every value equal", switches))
