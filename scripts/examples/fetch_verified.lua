-- Example: verified reads through untrusted gateways. Two local gateways serve
-- tests/fixtures/ipfs-car-small.car; one of them tampers with every answer. The
-- client (policy 'trust') catches it, quarantines it, and reads every file from
-- the honest one.
--   ipfsrt scripts/examples/fetch_verified.lua [FILE.car]
local ipfsrt = require "ipfsrt"

local car = arg[1] or "tests/fixtures/ipfs-car-small.car"
local root
do
  local file <close> = ipfsrt.car.open(car)
  root = tostring(file:roots()[1])
end
local liar <close> = ipfsrt.serve { cars = { car }, faults = { tamper = 1 } }
local honest <close> = ipfsrt.serve { cars = { car } }

local client = ipfsrt.client {
  gateways = { liar:url(), honest:url() }, -- the liar is asked first
  policy = "trust",
  log = function(line) print("policy: " .. line) end,
}

local function walk(path)
  for _, entry in ipairs(client:ls(path)) do
    local child = path .. "/" .. entry.name
    if entry.type == "directory" or entry.type == "hamt-shard" then
      walk(child)
    else
      local bytes = client:get(child)
      print(string.format("%-40s %6d bytes, verified", child:gsub("^ipfs://[^/]+", ""), #bytes))
    end
  end
end
walk("ipfs://" .. root)

for _, g in ipairs(client:stats()) do
  print(string.format("%s: %d requests, %d used, %d verification failures", g.url, g.requests, g.ok,
    g.verify_failures))
end
