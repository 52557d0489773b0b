-- An analysis a C host runs in its own Lua state (tests/embed/embed.c sets the
-- global ipfsrt, as the executable does): the array zarr_embed wrote, read
-- whole, its rows' means (returned to the host), and a CF-style masked mean.
local dir = ...
local temp = ipfsrt.zarr.open(dir .. "/temp")
local v = temp:read()
local rows = v:astype("float64"):mean(1)
local parts = {}
for _, m in ipairs(rows:tolist()) do parts[#parts + 1] = string.format("%.1f", m) end
local valid = ipfsrt.ndarray.where(v:ne(-1), v:astype("float64"), 0 / 0)
print(string.format("analysis: %dx%d, row means %s, mean without fill %.4f", v.shape[1], v.shape[2],
  table.concat(parts, " "), valid:mean(nil, {skipna = true})))
return rows -- the host takes the array back into C
