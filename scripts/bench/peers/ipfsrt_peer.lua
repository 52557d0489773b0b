-- One scenario in a cold process, for make bench-peers: ipfsrt.dataset through
-- the gateway (verified ipfs://, or with --plain the gateway's plain HTTP), or
-- from the local S3 at ENDPOINT (--s3: the sample's files as objects; --s3car:
-- its CARv2, verified; credentials from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY).
-- Prints {open_ms, run_ms, count, sum}: the scenario's values as hundredths,
-- summed, so that every client's reading can be compared.
-- With --folder, GATEWAY is the sample's folder, read as it is; with --car, it
-- is the sample's CAR file, read verified (the floor of what reading costs
-- without a network: decoding and hashing); with --refs,
-- ROOT is the NetCDF form's (daily files and refs.json, verified ipfs://);
-- with --ncz, ROOT is those files' chunks copied into a plain Zarr.
-- Usage: ipfsrt ipfsrt_peer.lua GATEWAY|ENDPOINT|FOLDER|CAR ROOT SCENARIO
--        [--plain|--s3|--s3car|--folder|--car|--refs|--ncz]
local ipfsrt = require "ipfsrt"
local gateway, root, name, mode = arg[1], arg[2], arg[3], arg[4]
local scenario = dofile("scripts/bench/scenarios/" .. name .. ".lua")
local function open()
  if mode == "--plain" then return ipfsrt.dataset.open(gateway .. "/ipfs/" .. root) end
  if mode == "--s3" then return ipfsrt.dataset.open("s3://data/oisst", { s3 = { endpoint = gateway } }) end
  if mode == "--s3car" then return ipfsrt.dataset.open("s3://data/cars/oisst.car", { s3 = { endpoint = gateway } }) end
  if mode == "--folder" or mode == "--car" then return ipfsrt.dataset.open(gateway) end -- the folder or the CAR
  if mode == "--refs" or mode == "--ncz" then
    local url = "ipfs://" .. root .. (mode == "--refs" and "/refs.json" or "")
    return ipfsrt.dataset.open(url, { client = ipfsrt.client { gateways = { gateway } } })
  end
  return ipfsrt.dataset.open("ipfs://" .. root, { client = ipfsrt.client { gateways = { gateway } } })
end
local t0 = ipfsrt.clock()
local ds = open()
local t1 = ipfsrt.clock()
local value = name == "open" and 0 or scenario.run { dataset = ds }
local t2 = ipfsrt.clock()
local count, sum = 0, 0
if type(value) == "number" then
  count, sum = 1, math.floor(value * 100 + 0.5)
else
  local v = value:astype("float64")
  local ok = v:isnan():eq(false)
  count = ok:astype("int64"):sum()
  sum = math.tointeger((v * 100):round():sum()) -- NaN skipped
end
print(ipfsrt.json.encode { open_ms = (t1 - t0) * 1000, run_ms = (t2 - t1) * 1000, count = count, sum = sum })
