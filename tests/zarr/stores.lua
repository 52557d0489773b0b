-- What v2.lua and v3.lua share: every array of a manifest read through each
-- kind of store (the folder, a CAR of it, ipfs:// and plain http:// from an
-- ipfsrt serve of that CAR), whole and by random selections, compared with
-- the expected values (DIR/NAME.raw, little-endian C order).
local ipfsrt = require "ipfsrt"

local M = {}

function M.slurp(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

local seed = 7
local function rand(n)
  seed = (seed * 1103515245 + 12345) & 0x7fffffff
  return (seed >> 8) % n
end

-- Per dimension an index, a range with a step (negative ones too), any
-- bound left open, or nil (the whole dimension).
function M.random_selection(shape)
  local sel = {}
  for d, n in ipairs(shape) do
    local kind = rand(5)
    if kind == 0 and n > 0 then sel[d] = rand(n) - (rand(2) == 0 and 0 or n)
    elseif kind == 1 then sel[d] = nil
    else
      local step = ({ 1, 1, 2, 3, -1, -2 })[rand(6) + 1]
      sel[d] = { rand(3) == 0 and nil or rand(n + 2) - 1, rand(3) == 0 and nil or rand(n + 2), step }
    end
  end
  return sel
end

local function read_one(store, dir, m, selections)
  local a = ipfsrt.zarr.open(store, { path = m.name })
  local whole = a:read()
  if whole:tobytes("<") ~= M.slurp(dir .. "/" .. m.name .. ".raw") then return "other values" end
  for _ = 1, selections do
    local sel = M.random_selection(m.shape)
    local part, want = a:read(sel), whole:slice(sel)
    if part:tobytes() ~= want:tobytes() or #part.shape ~= #want.shape then
      return "selection " .. ipfsrt.json.encode(sel) .. " differs"
    end
  end
end

-- Returns the number of failures (printing the first few).
function M.through_stores(dir, manifest, label)
  local tmp = os.tmpname()
  local car = tmp .. ".car"
  local root = tostring(ipfsrt.pack(dir, { output = car, hidden = true }))
  local gw <close> = ipfsrt.serve { cars = { car }, listen = "127.0.0.1:0" }
  local client = ipfsrt.client { gateways = { gw:url() } }
  local stores = {
    { "folder", ipfsrt.zarr.store(dir), 3 },
    { "car", ipfsrt.zarr.store(car), 1 },
    { "ipfs", ipfsrt.zarr.store("ipfs://" .. root, { client = client }), 3 },
    { "http", ipfsrt.zarr.store(gw:url() .. "/ipfs/" .. root), 1 },
  }
  local bad = 0
  for _, s in ipairs(stores) do
    for _, m in ipairs(manifest) do
      local ok, problem = pcall(read_one, s[2], dir, m, s[3])
      if not ok or problem then
        bad = bad + 1
        if bad <= 10 then print(string.format("%s via %s: %s", m.name, s[1], tostring(problem))) end
      end
    end
  end
  client:close()
  os.remove(car)
  os.remove(tmp)
  print(string.format("ipfsrt.zarr read %d %s from a folder, a CAR, ipfs:// and http://: %d failures", #manifest,
    label, bad))
  return bad
end

return M
