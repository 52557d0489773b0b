-- Zarr writing, ipfsrt's side: arrays over a grid of format x dtype x codecs
-- (v2 compressors and filters, C and F order; v3 codec chains, transposes,
-- shards) written in pieces: a block of rows, then a strided patch over it
-- (read-modify-write of partial chunks), the first rows never written (the
-- fill value), one chunk written back to all fill (then not stored). DIR/NAME,
-- DIR/NAME.raw (the values, little-endian C order), DIR/manifest.json;
-- zarr-python (v2.py check) and zarrita (v3.mjs check) must read them back
-- identically, and so must ipfsrt, through every store.
-- Usage: ipfsrt write.lua DIR
package.path = arg[0]:match("(.*/)") .. "?.lua;" .. package.path
local ipfsrt = require "ipfsrt"
local stores = require "stores"
local nd = ipfsrt.ndarray
local dir = assert(arg[1], "usage: write.lua DIR")
os.execute("rm -rf '" .. dir .. "' && mkdir -p '" .. dir .. "'")

local DTYPES = { "int16", "uint8", "float32", "float64", "int64", "bool", "float16", "complex64" }
local V2 = {
  { "none", nil },
  { "zstd", { id = "zstd", level = 3 } },
  { "blosc-lz4", { id = "blosc", cname = "lz4", clevel = 5, shuffle = 1 } },
  { "blosc-zstd-bit", { id = "blosc", cname = "zstd", clevel = 3, shuffle = 2 } },
  { "gzip", { id = "gzip", level = 5 } },
  { "zlib", { id = "zlib", level = 1 } },
  { "bz2", { id = "bz2", level = 1 } },
  { "lz4", { id = "lz4", acceleration = 1 } },
}
local V3 = {
  { "bytes" }, { "zstd", { id = "zstd", level = 3 } }, { "gzip", { id = "gzip", level = 5 } },
  { "blosc", { id = "blosc", cname = "lz4", clevel = 5, shuffle = 1 } },
  { "shards", { id = "zstd", level = 1 }, true }, { "shards-raw", nil, true },
}
local SHAPES = { { { 23, 17 }, { 8, 5 }, { 16, 10 } }, { { 40 }, { 6 }, { 12 } }, { { 5, 6, 7 }, { 2, 3, 7 }, { 4, 6, 7 } } }

local function fill_of(dtype)
  if dtype:match("^float") then return 0 / 0 end
  if dtype == "bool" then return false end
  if dtype == "uint8" then return 7 end
  return -3
end

local function count(shape)
  local n = 1
  for _, s in ipairs(shape) do n = n * s end
  return n
end

-- complex64 elements from float32 pairs (the n-d arrays store complex, no arithmetic)
local function complex(parts, shape)
  return nd.frombytes(parts:astype("float32"):tobytes("<"), "complex64", shape, "<")
end

local function full(shape, fill, dtype)
  if fill ~= fill then fill = math.abs(fill) end -- the NaN Zarr's "NaN" means (0/0 has its sign bit set)
  if dtype ~= "complex64" then return nd.full(shape, fill, dtype == "float16" and "float32" or dtype) end
  local parts = nd.zeros({ count(shape), 2 })
  parts:slice { nil, 0 }:assign(fill)
  return complex(parts, shape)
end

-- Deterministic values of dtype over shape.
local function values(dtype, shape, seed)
  local n = count(shape)
  local x = (nd.arange(n):astype("float64") * 7 + seed) % 23 - 11
  if dtype == "complex64" then
    return complex(nd.stack({ x * 0.5, -x }, 1), shape)
  end
  if dtype == "bool" then return (x:gt(0)):reshape(shape) end
  if dtype == "uint8" then return (x + 11):astype("uint8"):reshape(shape) end
  if dtype == "float16" then dtype = "float32" end -- exact in float16 too: quarters below 3
  if dtype:match("^float") or dtype == "complex64" then return (x * 0.25):astype(dtype):reshape(shape) end
  return x:astype(dtype):reshape(shape)
end

local manifest, made = {}, 0
local function case(format, dtype, name, compressor, shards, shape, chunks, shard_shape, order)
  made = made + 1
  local id = string.format("v%d/w%04d", format, made)
  if format == 2 and (dtype == "complex64") and compressor and compressor.id == "bz2" then return end
  local a = ipfsrt.zarr.create(dir, { path = id, zarr_format = format, shape = shape, chunks = chunks,
    dtype = dtype, fill_value = fill_of(dtype), compressor = compressor, order = order,
    shards = shards and shard_shape or nil, attrs = { case = id },
    dimension_names = format == 3 and nil or nil })
  local fill = fill_of(dtype) == false and 0 or fill_of(dtype)
  local want = full(shape, fill, dtype)
  local rows = { { math.min(2, shape[1]), nil } }
  local v = values(dtype, want:slice(rows).shape, made)
  a:write(rows, v)
  want:slice(rows):assign(v)
  local patch = { { nil, nil, 3 } }
  for d = 2, #shape do patch[d] = { 1, nil, 4 } end
  local p = values(dtype, want:slice(patch).shape, made + 1)
  a:write(patch, p)
  want:slice(patch):assign(p)
  local last = {}
  for d = 1, #shape do last[d] = { (shape[d] - 1) // chunks[d] * chunks[d], nil } end
  a:write(last, full({}, fill, dtype)) -- the last chunk back to all fill: removed
  want:slice(last):assign(full({}, fill, dtype))
  local f = assert(io.open(dir .. "/" .. id .. ".raw", "wb"))
  f:write(want:tobytes("<"))
  f:close()
  manifest[#manifest + 1] = { name = id, zarr_format = format, dtype = dtype, chain = name,
    layout = shards and "shard-end" or "plain", shape = shape }
end

for si, s in ipairs(SHAPES) do
  for di, dtype in ipairs(DTYPES) do
    for ci, c in ipairs(V2) do
      if (si + di + ci) % 2 == 0 then case(2, dtype, c[1], c[2], false, s[1], s[2], nil, (ci % 2 == 0) and "F" or "C") end
    end
    for ci, c in ipairs(V3) do
      if (si + di + ci) % 2 == 1 or c[3] then case(3, dtype, c[1], c[2], c[3], s[1], s[2], s[3]) end
    end
  end
end
-- v2 strings of 3 characters beyond ASCII, held as UTF-8 (12 bytes each)
do
  local id = "v2/strings"
  local a = ipfsrt.zarr.create(dir, { path = id, zarr_format = 2, shape = { 7 }, chunks = { 3 }, dtype = "U3",
    fill_value = "ø", compressor = { id = "zstd", level = 1 } })
  local words, bytes = { "é", "€1", "😀a", "zz", "ab", "日本", "x" }, {}
  for i, w in ipairs(words) do bytes[i] = w .. string.rep("\0", 12 - #w) end
  a:write({ { 1, 7 } }, nd.frombytes(table.concat(bytes, "", 2), "S12", { 6 }))
  bytes[1] = "ø" .. string.rep("\0", 10) -- never written: the fill value
  local f = assert(io.open(dir .. "/" .. id .. ".raw", "wb"))
  f:write(table.concat(bytes))
  f:close()
  manifest[#manifest + 1] = { name = id, zarr_format = 2, dtype = "U3", chain = "zstd", layout = "plain",
    shape = { 7 } }
end

local f = assert(io.open(dir .. "/manifest.json", "w"))
f:write(ipfsrt.json.encode(manifest))
f:close()
local per_format = { 0, 0, 0 }
for _, m in ipairs(manifest) do per_format[m.zarr_format] = per_format[m.zarr_format] + 1 end
for format = 2, 3 do -- v2 .zmetadata, v3 inline in zarr.json: one read opens every array
  ipfsrt.zarr.consolidate(dir, { path = "v" .. format })
  local g = ipfsrt.zarr.open(dir, { path = "v" .. format })
  assert(#g:arrays() == per_format[format], "consolidated metadata lists every array")
end
print(string.format("ipfsrt wrote %d arrays (%d v2, %d v3), consolidated", #manifest, per_format[2], per_format[3]))
os.exit(stores.through_stores(dir, manifest, "arrays ipfsrt wrote") == 0 and 0 or 1)
