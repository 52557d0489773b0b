-- Example: summarise a CAR file from a script.
--   ipfsrt scripts/examples/car_summary.lua tests/fixtures/ipld-car-mixed.car
local ipfsrt = require "ipfsrt"

local path = arg[1] or error("usage: car_summary.lua FILE.car")
local car <close> = ipfsrt.car.open(path)
local header = car:header()
print(string.format("%s: CARv%d, %d root(s), index: %s", path, header.version, #header.roots, header.index))
for _, root in ipairs(header.roots) do print("  root " .. tostring(root)) end

local by_codec, total, blocks = {}, 0, 0
for cid, bytes in car:blocks() do -- every block's hash is checked before it is handed out
  by_codec[cid.codec] = (by_codec[cid.codec] or 0) + 1
  total = total + #bytes
  blocks = blocks + 1
end
print(string.format("%d verified blocks, %d bytes", blocks, total))
for codec, n in pairs(by_codec) do print(string.format("  %-10s %d", codec, n)) end

-- DAG-CBOR roots decode to Lua tables; links come back as cid objects.
local first = header.roots[1]
if first and first.codec == "dag-cbor" then
  print("root node: " .. ipfsrt.json.encode(ipfsrt.dagcbor.decode(car:get(first))))
end
