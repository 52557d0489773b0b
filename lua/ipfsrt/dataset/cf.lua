-- ipfsrt.dataset.cf: the CF conventions a dataset's variables are decoded by:
-- CF time units (times as seconds of their calendar), and the decoding of
-- stored values (scale_factor, add_offset, _FillValue, missing_value,
-- _Unsigned) typed as xarray types it. Works on attributes and arrays, not on
-- variables: ipfsrt.dataset.variable asks it.
local ipfsrt = require "ipfsrt"
local cftime = require "ipfsrt.dataset.cftime"
local nd = ipfsrt.ndarray

local M = {}
local bad = require "ipfsrt.bad" ("dataset: ")

local STANDARD = cftime.calendar()
-- A time in seconds since 1970 (standard calendar) as ISO text.
function M.iso(seconds) return cftime.format(seconds, STANDARD) end

-- The CF time decoding of a variable ({scale, epoch, calendar}), or nil when
-- its units are no time. Units or a calendar that look like time but cannot
-- be decoded are an error naming the variable and the attribute (xarray
-- refuses them too), never numbers passed off as times.
function M.time_of(name, attrs)
  local units = attrs.units
  if type(units) ~= "string" or not units:find("%ssince%s") then return nil end
  local cal, why = cftime.calendar(attrs.calendar)
  if not cal then bad("%s: attribute calendar: %s", name, why) end
  local t
  t, why = cftime.units(units, cal)
  if not t then bad("%s: attribute units %q: %s", name, units, why or "not UNIT since DATE") end
  return t
end

-- A CF number attribute: a number, or a list of one (as netCDF writes
-- attributes); missing ones (_FillValue, missing_value) may be "NaN" (no
-- mask: NaN stays NaN) and missing_value a list. Anything else is refused,
-- naming the variable and the attribute.
local function cf_numbers(attrs, name, key, many)
  local x = attrs[key]
  if x == nil then return nil end
  if type(x) == "number" then return { x } end
  if type(x) == "string" and many ~= nil and x == "NaN" then return {} end
  if ipfsrt.json.is_number(x) then return { tonumber(tostring(x)) } end
  if type(x) == "table" and #x > 0 and (many or #x == 1) then
    local out = {}
    for i, e in ipairs(x) do
      if type(e) == "number" then out[#out + 1] = e
      elseif not (many ~= nil and e == "NaN") then bad("%s: attribute %s[%d] is not a number", name, key, i) end
    end
    return out
  end
  bad("%s: attribute %s is not a number%s", name, key, many and " or a list of numbers" or "")
end

-- _Unsigned = "true" on a signed integer type (netCDF-3's unsigned bytes):
-- the values read as the unsigned type of the same size, "false" on an
-- unsigned type as the signed one (as xarray's UnsignedIntegerCoder).
local function viewed_type(attrs, name, dtype)
  local u = attrs._Unsigned
  if u == nil then return nil end
  if u ~= "true" and u ~= "false" and u ~= true and u ~= false then
    bad("%s: attribute _Unsigned is %s, not \"true\" or \"false\"", name, tostring(u))
  end
  local bits = dtype:match("^u?int(%d+)$")
  if not bits then return nil end
  local want_unsigned = u == "true" or u == true
  if want_unsigned == (dtype:sub(1, 1) == "u") then return nil end
  return (want_unsigned and "uint" or "int") .. bits
end

-- A number stored as the signed (or unsigned) type of bits, read as the other.
local function reinterpreted(x, view)
  x = type(x) == "number" and math.tointeger(x) or x -- -1.0 is the integer -1 here
  if math.type(x) ~= "integer" then return x end
  local bits = tonumber(view:match("%d+"))
  if view:sub(1, 1) == "u" and x < 0 then return bits == 64 and x + 2.0 ^ 64 or x + (1 << bits) end
  if view:sub(1, 1) == "i" and bits < 64 and x >= 1 << (bits - 1) then return x - (1 << bits) end
  return x
end

-- The CF decoding a read applies, typed as xarray types it: masking the
-- values that mean "missing" makes small integers float32, others float64;
-- scale and offset then keep float32 (floats of 4 bytes or less, or small
-- integers with no add_offset at all) or go to float64. a: the stored
-- array; attrs and name: its variable's. nil when nothing is decoded.
function M.of(a, attrs, name)
  local view = viewed_type(attrs, name, a.dtype)
  local dtype = view or a.dtype
  local int, float = dtype:match("int") ~= nil, dtype:match("float") ~= nil
  if not int and not float then return nil end
  local scale, offset = cf_numbers(attrs, name, "scale_factor"), cf_numbers(attrs, name, "add_offset")
  local fills, missing = cf_numbers(attrs, name, "_FillValue", false), cf_numbers(attrs, name, "missing_value", true)
  if fills == nil and a.fill_value then fills = { a.fill_value:get() } end
  local masks = fills ~= nil or missing ~= nil
  if not masks and scale == nil and offset == nil and not view then return nil end
  local small = a.itemsize <= (int and 2 or 4)
  local ftype = dtype
  if masks then ftype = (int and small) and "float32" or (int and "float64" or dtype) end
  if scale ~= nil or offset ~= nil then
    local is_float32 = ftype == "float32"
    ftype = (is_float32 or (int and small and offset == nil)) and "float32" or "float64"
  end
  local values = {}
  for _, list in ipairs { fills or {}, missing or {} } do
    for _, f in ipairs(list) do
      f = view and reinterpreted(f, view) or f
      if type(f) == "number" and f == f then values[#values + 1] = f end
    end
  end
  return { type = ftype, scale = scale and scale[1], offset = offset and offset[1], fills = values, view = view,
    plain = not masks and scale == nil and offset == nil }
end

-- Raw values (as stored) decoded by cf (what M.of gave; nil: none).
function M.decoded(cf, raw)
  if not cf then return raw end
  if cf.view then -- stored as the other signedness: viewed, then decoded
    local x = nd.frombytes(raw:tobytes(), cf.view, raw.shape)
    if cf.plain then return x end
    return x:unscale(cf.type, cf.fills, cf.scale, cf.offset)
  end
  return raw:unscale(cf.type, cf.fills, cf.scale, cf.offset)
end

return M
