-- Codec interop, ipfsrt's side (see codecs.py): decodes numcodecs' encodings
-- to exactly the bytes numcodecs decodes them to, and encodes the raw bytes for
-- numcodecs to read back.
-- Usage: ipfsrt codecs.lua DIR
local ipfsrt = require "ipfsrt"
local dir = arg[1]

local function slurp(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

local manifest = ipfsrt.json.decode(slurp(dir .. "/manifest.json"))
local bad = 0
for _, m in ipairs(manifest) do
  local codec = ipfsrt.codec.new(m.codec, m.config, m.itemsize)
  local raw, enc = slurp(dir .. "/" .. m.name .. ".raw"), slurp(dir .. "/" .. m.name .. ".enc")
  local ok, got = pcall(codec.decode, codec, enc, m.size)
  if not ok or got ~= slurp(dir .. "/" .. m.name .. ".dec") then
    bad = bad + 1
    print(m.name .. ": " .. (ok and "other bytes" or tostring(got)))
  end
  local f = assert(io.open(dir .. "/" .. m.name .. ".ours", "wb"))
  f:write(codec:encode(raw))
  f:close()
end
print(string.format("ipfsrt decoded %d of numcodecs' %d encodings", #manifest - bad, #manifest))
os.exit(bad == 0 and 0 or 1)
