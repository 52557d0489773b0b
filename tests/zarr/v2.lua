-- Zarr v2 interop, ipfsrt's side (see v2.py): every array's metadata parsed,
-- every chunk decoded and placed (edge chunks cropped, missing ones the fill
-- value), the whole compared with numpy's values byte for byte; then every
-- array opened and read through each kind of store, with random selections.
-- Usage: ipfsrt v2.lua DIR
package.path = arg[0]:match("(.*/)") .. "?.lua;" .. package.path
local ipfsrt = require "ipfsrt"
local stores = require "stores"
local nd = ipfsrt.ndarray
local dir = arg[1]
local slurp = stores.slurp

-- Every chunk index of the grid, in C order.
local function each_index(grid, fn)
  local idx = {}
  for d = 1, #grid do idx[d] = 0 end
  for d = 1, #grid do if grid[d] == 0 then return end end
  while true do
    fn(idx)
    local d = #grid
    while d >= 1 do
      idx[d] = idx[d] + 1
      if idx[d] < grid[d] then break end
      idx[d] = 0
      d = d - 1
    end
    if d < 1 then return end
  end
end

local function read_array(path)
  local meta = ipfsrt.zarr.meta(assert(slurp(path .. "/.zarray")), 2, path)
  local attrs = slurp(path .. "/.zattrs")
  if attrs then meta:set_attributes(attrs) end
  local shape, chunks = meta.shape, meta.chunks
  local dtype = meta.dtype == "bytes" and ("S" .. meta.itemsize) or meta.dtype
  local out = nd.zeros(shape, dtype)
  if meta.fill_value then out:assign(meta.fill_value) end
  each_index(meta.grid, function(idx)
    local key = meta:chunk_key(table.unpack(idx))
    local bytes = slurp(path .. "/" .. key)
    if not bytes then return end
    local chunk = meta:decode_chunk(idx, bytes)
    local src, dst = {}, {}
    for d = 1, #shape do
      local start = idx[d] * chunks[d]
      local stop = math.min(start + chunks[d], shape[d])
      src[d], dst[d] = { 0, stop - start }, { start, stop }
    end
    if #shape == 0 then out:assign(chunk) else out:slice(dst):assign(chunk:slice(src)) end
  end)
  return out, meta
end

local manifest = ipfsrt.json.decode(assert(slurp(dir .. "/manifest.json")))
local bad = 0
for _, m in ipairs(manifest) do
  local ok, out, meta = pcall(read_array, dir .. "/" .. m.name)
  local problem
  if not ok then problem = tostring(out)
  elseif out:tobytes("<") ~= slurp(dir .. "/" .. m.name .. ".raw") then problem = "other values"
  elseif #m.shape > 0 and meta.dimension_names[1] ~= "d0" then problem = "dimension names"
  elseif meta.attrs.note ~= m.name or meta.attrs._ARRAY_DIMENSIONS then problem = "attributes" end
  if problem then
    bad = bad + 1
    if bad <= 10 then print(string.format("%s (%s %s %s): %s", m.name, m.dtype, m.compressor, m.order, problem)) end
  end
end
print(string.format("ipfsrt read %d of zarr-python's %d v2 arrays identically, chunk by chunk", #manifest - bad, #manifest))
bad = bad + stores.through_stores(dir, manifest, "zarr-python v2 arrays")
os.exit(bad == 0 and 0 or 1)
