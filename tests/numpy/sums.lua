-- Cross-check with numpy, part 3: sums and means of arrays long enough for
-- numpy's pairwise summation to matter (runs past its 8192-element blocks),
-- over everything and along each axis, NaN skipped and not. The data come from
-- a formula both sides evaluate the same way, so the results must agree to
-- the bit; sums.py compares them exactly.
-- Usage: ipfsrt sums.lua OUT.json
local ipfsrt = require "ipfsrt"
local nd = ipfsrt.ndarray

local shape = { 3, 5, 20011 }
local size = shape[1] * shape[2] * shape[3]

-- ((i * 7919) % 10007 - 5000) / 7, with NaN where i % 97 == 0
local function data(dtype)
  local i = nd.arange(size, "int64")
  local x = ((i * 7919) % 10007 - 5000) / 7
  x = nd.where((i % 97):eq(0), 0 / 0, x)
  return x:astype(dtype):reshape(shape)
end

local function fmt(v)
  if v ~= v then return '"nan"' end
  if math.type(v) == "integer" then return tostring(v) end
  return string.format("%.17g", v)
end

local out = {}
for _, dtype in ipairs { "float32", "float64", "int16", "int32", "uint8" } do
  local i = nd.arange(size, "int64")
  local a = dtype:find("float") and data(dtype)
    or dtype == "uint8" and (i * 7919 % 251):astype(dtype):reshape(shape)
    or (i * 7919 % 10007 - 5000):astype(dtype):reshape(shape)
  for _, how in ipairs { "sum", "mean" } do
    for _, axis in ipairs { "all", 0, 1, 2 } do
      for _, skipna in ipairs { true, false } do
        local r = axis == "all" and a[how](a, { skipna = skipna }) or a[how](a, axis, { skipna = skipna })
        local values = {}
        if type(r) == "number" then values[1] = fmt(r)
        else for k, v in ipairs(r:reshape { #r }:tolist()) do values[k] = fmt(v) end end
        out[#out + 1] = string.format('{"dtype": "%s", "how": "%s", "axis": %s, "skipna": %s, "result_dtype": "%s", "values": [%s]}',
          dtype, how, axis == "all" and "null" or axis, skipna, type(r) == "number" and "" or r.dtype,
          table.concat(values, ", "))
      end
    end
  end
end
-- Masked (where=): every third element left out, and a mask of the last two
-- axes broadcast over the first. Not to the bit: numpy has no pairwise form
-- for them (masked sums accumulate in double here).
local flat_mask = ((nd.arange(size, "int64") % 3):ne(0)):reshape(shape)
local plane_mask = ((nd.arange(shape[2] * shape[3], "int64") % 5):ne(0)):reshape { shape[2], shape[3] }
for _, dtype in ipairs { "float32", "float64", "int16" } do
  local a = dtype:find("float") and data(dtype) or (nd.arange(size, "int64") * 7919 % 10007 - 5000):astype(dtype):reshape(shape)
  for _, m in ipairs { { "flat", flat_mask }, { "plane", plane_mask } } do
    for _, how in ipairs { "sum", "mean", "count" } do
      for _, axis in ipairs { "all", 0, 2 } do
        local opts = { skipna = true, where = m[2] }
        local r = axis == "all" and a[how](a, opts) or a[how](a, axis, opts)
        local values = {}
        if type(r) == "number" then values[1] = fmt(r)
        else for k, v in ipairs(r:reshape { #r }:tolist()) do values[k] = fmt(v) end end
        out[#out + 1] = string.format('{"dtype": "%s", "how": "%s", "axis": %s, "skipna": true, "mask": "%s", "result_dtype": "%s", "values": [%s]}',
          dtype, how, axis == "all" and "null" or axis, m[1], type(r) == "number" and "" or r.dtype,
          table.concat(values, ", "))
      end
    end
  end
end

local f = assert(io.open(arg[1], "w"))
f:write("{\"shape\": [", table.concat(shape, ", "), "], \"cases\": [\n", table.concat(out, ",\n"), "]}\n")
f:close()
