-- The Lua client's side of scripts/bench/python_batch.lua, one cold process:
-- what python_batch.py does, with ipfsrt.zarr on the same gateway: the 366
-- chunks holding one point as one batch (client:get_many: the bytes in Lua),
-- and the point's time series read (the same batch, then decoding, to an n-d
-- array). Prints {open_ms, fetch_ms, select_ms, bytes, sum}.
-- Usage: ipfsrt python_batch_peer.lua GATEWAY ROOT
local ipfsrt = require "ipfsrt"
local gateway, root = arg[1], arg[2]
local LAT, LON = 500, 1140

local function opened()
  local client = ipfsrt.client { gateways = { gateway } }
  return client, ipfsrt.zarr.open("ipfs://" .. root, { client = client }).sst
end

local t0 = ipfsrt.clock()
local client, sst = opened()
local t1 = ipfsrt.clock()
local keys = {}
for t = 0, sst.shape[1] - 1 do keys[#keys + 1] = string.format("%s/sst/%d.0.%d.%d", root, t, LAT // 360, LON // 360) end
local got = client:get_many(keys)
local t2 = ipfsrt.clock()
local _, sst2 = opened()
local t3 = ipfsrt.clock()
local values = sst2:read { nil, 0, LAT, LON }
local t4 = ipfsrt.clock()
local bytes = 0
for _, b in ipairs(got) do bytes = bytes + #b end
print(ipfsrt.json.encode { open_ms = (t1 - t0) * 1000, fetch_ms = (t2 - t1) * 1000, select_ms = (t4 - t3) * 1000,
  bytes = bytes, sum = math.tointeger(values:astype("int64"):sum()) })
