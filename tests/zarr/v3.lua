-- Zarr v3 interop, ipfsrt's side: the arrays v3.py wrote by hand from the
-- spec (sharded ones included; zarrita confirmed them) and those zarrita
-- wrote, read through every kind of store, whole and by random selections.
-- Usage: ipfsrt v3.lua DIR...
package.path = arg[0]:match("(.*/)") .. "?.lua;" .. package.path
local ipfsrt = require "ipfsrt"
local stores = require "stores"

local bad = 0
for _, dir in ipairs(arg) do
  local manifest = ipfsrt.json.decode(assert(stores.slurp(dir .. "/manifest.json")))
  bad = bad + stores.through_stores(dir, manifest, "v3 arrays of " .. dir:match("[^/]+$"))
end
os.exit(bad == 0 and 0 or 1)
