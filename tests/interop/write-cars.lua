-- Writes CARv1 and CARv2 files with ipfsrt from the fixture blocks, for
-- check-car.mjs to read with @ipld/car. Usage: ipfsrt write-cars.lua OUTDIR
local ipfsrt = require "ipfsrt"

local out = assert(arg[1], "usage: write-cars.lua OUTDIR")
local f = assert(io.open("tests/fixtures/expected.json", "rb"))
local fixtures = ipfsrt.json.decode(f:read("a"))
f:close()
local listing = {}
for name, fx in pairs(fixtures) do
  for _, version in ipairs({ 1, 2 }) do
    local path = string.format("%s/%s.v%d.car", out, name:gsub("%.car$", ""), version)
    local w <close> = ipfsrt.car.writer(path, fx.roots, { version = version })
    local seen, blocks = {}, {}
    for _, b in ipairs(fx.blocks) do
      w:put(b.cid, ipfsrt.multibase.decode("M" .. b.bytes))
      if not seen[b.cid] then -- the writer keeps the first copy of a duplicate
        seen[b.cid] = true
        blocks[#blocks + 1] = b
      end
    end
    listing[path] = { version = version, roots = fx.roots, blocks = blocks }
  end
end
f = assert(io.open(out .. "/expected.json", "wb"))
f:write(ipfsrt.json.encode(listing))
f:close()
