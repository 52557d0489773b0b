-- Zarr v2 interop, ipfsrt's side (see v2.py): every array's metadata parsed,
-- every chunk decoded and placed (edge chunks cropped, missing ones the fill
-- value), the whole compared with numpy's values byte for byte; then every
-- array opened and read through each kind of store, with random selections.
-- Usage: ipfsrt v2.lua DIR
local ipfsrt = require "ipfsrt"
local nd = ipfsrt.ndarray
local dir = arg[1]

local function slurp(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

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

-- A selection of a random shape: per dimension an index, or a range with a
-- step (negative ones too), any bound left open.
local seed = 7
local function rand(n)
  seed = (seed * 1103515245 + 12345) & 0x7fffffff
  return (seed >> 8) % n
end

local function random_selection(shape)
  local sel = {}
  for d, n in ipairs(shape) do
    local kind = rand(4)
    if kind == 0 and n > 0 then sel[d] = rand(n) - (rand(2) == 0 and 0 or n)
    else
      local step = ({ 1, 1, 2, 3, -1, -2 })[rand(6) + 1]
      sel[d] = { rand(3) == 0 and nil or rand(n + 2) - 1, rand(3) == 0 and nil or rand(n + 2), step }
    end
  end
  return sel
end

-- Through the stores: the folder, a CAR of it, ipfs:// and plain http:// from
-- an ipfsrt serve of that CAR; whole arrays, and selections equal to the same
-- slices of the whole.
local function through_stores(manifest, raw_of)
  local tmp = os.tmpname()
  local car = tmp .. ".car"
  local root = tostring(ipfsrt.pack(dir, { output = car, hidden = true }))
  local gw <close> = ipfsrt.serve { cars = { car }, listen = "127.0.0.1:0" }
  local client = ipfsrt.client { gateways = { gw:url() } }
  local stores = {
    folder = ipfsrt.zarr.store(dir),
    car = ipfsrt.zarr.store(car),
    ipfs = ipfsrt.zarr.store("ipfs://" .. root, { client = client }),
    http = ipfsrt.zarr.store(gw:url() .. "/ipfs/" .. root),
  }
  local bad = 0
  for kind, store in pairs(stores) do
    for _, m in ipairs(manifest) do
      local ok, problem = pcall(function()
        local a = ipfsrt.zarr.open(store, { path = m.name })
        local whole = a:read()
        if whole:tobytes("<") ~= raw_of(m.name) then return "other values" end
        if kind == "folder" or kind == "ipfs" then
          for _ = 1, 3 do
            local sel = random_selection(m.shape)
            local part, want = a:read(sel), whole:slice(sel)
            if part:tobytes() ~= want:tobytes() or #part.shape ~= #want.shape then
              return "selection " .. ipfsrt.json.encode(sel) .. " differs"
            end
          end
        end
      end)
      if not ok or problem then
        bad = bad + 1
        if bad <= 10 then print(string.format("%s via %s: %s", m.name, kind, tostring(problem))) end
      end
    end
  end
  client:close()
  os.remove(car)
  os.remove(tmp)
  print(string.format("ipfsrt.zarr.open read them from a folder, a CAR, ipfs:// and http:// with %d failures", bad))
  return bad
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
bad = bad + through_stores(manifest, function(name) return slurp(dir .. "/" .. name .. ".raw") end)
os.exit(bad == 0 and 0 or 1)
