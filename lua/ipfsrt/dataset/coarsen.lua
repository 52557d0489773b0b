-- ipfsrt.dataset.coarsen: blocks of neighbouring positions reduced to one, as
-- xarray's coarsen.
--
--   ds.sst:isel { time = 0 }:coarsen { lat = 4, lon = 4 }:mean()          -- 1-degree means of 0.25-degree cells
--   series:coarsen { time = 7, boundary = "trim" }:max()
--
-- boundary: "exact" (the default: each length a multiple of its block),
-- "trim" (the last, short block dropped) or "pad" (filled out with NaN).
-- Reductions: mean sum min max std var median count, NaN skipped; each
-- block's coordinate is the mean of its labels (xarray's coord_func).
local ipfsrt = require "ipfsrt"
local nd = ipfsrt.ndarray

local M = {}
local V = require "ipfsrt.dataset.variable"
local bad = require "ipfsrt.bad" ("dataset: ")

local Coarsen = {}
Coarsen.__index = require("ipfsrt.dataset.methods").index(Coarsen, "a coarsen")
M.Coarsen = Coarsen

local BOUNDARIES = { exact = true, trim = true, pad = true }

-- v:coarsen{dim = n, ...[, boundary = "exact"]}
function M.coarsen(v, spec)
  if type(spec) ~= "table" then bad("coarsen takes {dim = n, ...[, boundary = \"exact\" | \"trim\" | \"pad\"]}") end
  local boundary = spec.boundary or "exact"
  if not BOUNDARIES[boundary] then bad("coarsen: boundary is \"exact\", \"trim\" or \"pad\", not %s", tostring(boundary)) end
  local blocks = {}
  for d, n in pairs(spec) do
    if d ~= "boundary" then
      local axis = V.axis_of(v, d)
      if math.type(n) ~= "integer" or n < 1 then bad("coarsen: %s = a whole number of positions", tostring(d)) end
      local len = v.shape[axis + 1]
      if boundary == "exact" and len % n ~= 0 then
        bad("coarsen: %s has %d positions, not a multiple of %d (boundary = \"trim\" or \"pad\")", d, len, n)
      end
      blocks[axis] = n
    end
  end
  if next(blocks) == nil then bad("coarsen: which dimensions? ({lat = 4})") end
  return setmetatable({ _var = v, blocks = blocks, boundary = boundary }, Coarsen)
end

-- x with every coarsened axis cut (trim) or filled out (pad) to whole blocks,
-- then split in two: (blocks, block); and the axes of the blocks' insides.
local function split(x, blocks, boundary)
  local parts, padded, inner, shape = {}, {}, {}, {}
  for i, len in ipairs(x.shape) do
    local n = blocks[i - 1]
    local whole = n and (boundary == "pad" and -(-len // n) or len // n) or nil
    parts[i] = n and { 0, math.min(len, whole * n) } or {}
    padded[i] = n and whole * n or len
  end
  local cut = x:slice(parts)
  local filled = cut
  if boundary == "pad" then
    filled = nd.full(padded, 0 / 0, x.dtype:match("^float") and x.dtype or "float64")
    local into = {}
    for i, n in ipairs(cut.shape) do into[i] = { 0, n } end
    filled:slice(into):assign(cut)
  end
  for i, len in ipairs(filled.shape) do
    local n = blocks[i - 1]
    if n then
      shape[#shape + 1] = len // n
      shape[#shape + 1] = n
      inner[#inner + 1] = #shape - 1
    else
      shape[#shape + 1] = len
    end
  end
  return filled:copy():reshape(shape), inner
end

-- The coordinate of the blocks along dim: the mean of each block's labels.
local function block_coordinate(c, n, boundary, dim)
  local labels, t = V.selected_labels(c, dim)
  local x, _ = split(nd.from(labels, "float64"), { [0] = n }, boundary)
  local means = x:mean(1):tolist()
  if t then return V.label_coordinate(V.dataset(c), dim, means, t) end
  return V.labelled(V.dataset(c), dim, nd.from(means, "float64"):astype(c.dtype), means, c.attrs)
end

for _, op in ipairs { "mean", "sum", "min", "max", "std", "var", "median", "count" } do
  Coarsen[op] = function(r, opts)
    local v = r._var
    local x, inner = split(v:_values_array(), r.blocks, r.boundary)
    local o = { skipna = not (opts and opts.skipna == false) }
    local values = op == "median" and x:median(inner, o) or x[op](x, inner, o)
    local coords = v:_coords()
    for axis, n in pairs(r.blocks) do
      local d = v.dims[axis + 1]
      if coords[d] then coords[d] = block_coordinate(coords[d], n, r.boundary, d) end
    end
    return V.computed(V.dataset(v), v.name, v.dims, values, op == "count" and {} or v.attrs, coords, v:_aux())
  end
end

function Coarsen.__tostring(r)
  local parts = {}
  for axis, n in pairs(r.blocks) do parts[#parts + 1] = r._var.dims[axis + 1] .. " = " .. n end
  table.sort(parts)
  return string.format("<ipfsrt.dataset.Coarsen %s: %s, boundary %s>", r._var.name, table.concat(parts, ", "), r.boundary)
end

-- The methods this module gives the Variable class.
M.methods = { coarsen = M.coarsen }

return M
