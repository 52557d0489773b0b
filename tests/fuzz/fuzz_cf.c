/* libFuzzer target: CF attribute decoding (ipfsrt.dataset and ipfsrt.dataset.cftime,
 * in Lua) on any attributes. The input makes the .zattrs of two variables of
 * a small dataset held in a Lua table store (CF's keys, numbers, lists, and
 * CF's words with the input's bytes spliced in): a float64 time coordinate (values
 * from 0 to past 1e300 days, NaN and the fill value among them) and an int16
 * data variable along it. The dataset is opened, read, CF-decoded, its dates
 * listed and selected by label. Property: everything either works or fails
 * with an ipfsrt error object (a reason naming the variable), never a Lua
 * runtime error ("attempt to ..."), and dates read back as the same times. */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipfsrt/lua.h"

static const char CHECK[] =
    "local bytes = ...\n"
    "local ipfsrt = require 'ipfsrt'\n"
    "local cftime = require 'ipfsrt.dataset.cftime'\n"
    "local function doc(t) return ipfsrt.json.encode(t) end\n"
    "-- attributes made from the bytes: CF's keys, with numbers, lists, and\n"
    "-- strings taken from CF's own words with bytes of the input spliced in\n"
    "local KEYS = { 'units', 'calendar', 'scale_factor', 'add_offset', '_FillValue', 'missing_value', '_Unsigned' }\n"
    "local WORDS = { 'days since 2000-01-01', 'hours since 1582-10-04 12:00', 'seconds since -0001-1-1 0:0:0',\n"
    "  'noleap', '360_day', 'julian', 'standard', 'proleptic_gregorian', 'all_leap', 'true', 'false', 'NaN',\n"
    "  'minutes since 1970-01-01T00:00:00Z', 'days since 2000-02-30', 'milliseconds since 2000-01-01 UTC' }\n"
    "local at = 1\n"
    "local function byte() at = at + 1; return bytes:byte(at - 1) or 0 end\n"
    "local function value()\n"
    "  local kind = byte() % 6\n"
    "  if kind == 0 then return (byte() - 128) * 2 ^ (byte() % 80 - 40) end\n"
    "  if kind == 1 then return (byte() << 8 | byte()) - 32768 end\n"
    "  if kind == 2 then return { value(), value() } end\n"
    "  local w = WORDS[byte() % #WORDS + 1]\n"
    "  if kind == 3 then return w end\n"
    "  local cut = byte() % (#w + 1)\n"
    "  return w:sub(1, cut) .. bytes:sub(at, at + byte() % 4) .. w:sub(cut + 1)\n"
    "end\n"
    "local attrs = {}\n"
    "for _ = 1, 1 + byte() % 5 do attrs[KEYS[byte() % #KEYS + 1]] = value() end\n"
    "local function zattrs(dims)\n"
    "  local t = {}\n"
    "  for k, v in pairs(attrs) do t[k] = v end\n"
    "  t._ARRAY_DIMENSIONS = dims\n"
    "  local ok, text = pcall(doc, t)\n"
    "  return ok and text or nil\n"
    "end\n"
    "local za = zattrs({ 'time' })\n"
    "if not za then return true end\n"
    "local z = { ['.zgroup'] = '{\"zarr_format\": 2}',\n"
    "  ['time/.zarray'] = doc { zarr_format = 2, shape = { 6 }, chunks = { 6 }, dtype = '<f8', compressor = ipfsrt.null,\n"
    "    fill_value = 0.5, order = 'C', filters = ipfsrt.null },\n"
    "  ['time/.zattrs'] = za,\n"
    "  ['time/0'] = string.pack('<dddddd', 0, 0.5, 59, -1e6, 1e300, 0 / 0),\n"
    "  ['v/.zarray'] = doc { zarr_format = 2, shape = { 6 }, chunks = { 6 }, dtype = '<i2', compressor = ipfsrt.null,\n"
    "    fill_value = -1, order = 'C', filters = ipfsrt.null },\n"
    "  ['v/.zattrs'] = za,\n"
    "  ['v/0'] = string.pack('<i2i2i2i2i2i2', -1, 0, 1, 32767, -32768, 7) }\n"
    "local function list(_, prefix)\n"
    "  local names, seen = {}, {}\n"
    "  for k in pairs(z) do\n"
    "    local name = k:sub(1, #prefix) == prefix and k:sub(#prefix + 1):match('^[^/]+')\n"
    "    if name and not seen[name] then seen[name], names[#names + 1] = true, name end\n"
    "  end\n"
    "  return names\n"
    "end\n"
    "local store = { get = function(_, k) return z[k] end, list = list }\n"
    "local ok, err = pcall(function()\n"
    "  local ds = ipfsrt.dataset.open(store, { load_coords = false })\n"
    "  ds.v:values()\n"
    "  ds.v:mean()\n"
    "  local dates = ds.time:dates()\n"
    "  local t = ds.time.attrs\n"
    "  local cal = cftime.calendar(t.calendar)\n"
    "  local u = cal and cftime.units(t.units, cal)\n"
    "  for _, d in ipairs(dates) do\n"
    "    if d ~= 'NaT' and u then\n"
    "      local s = cftime.parse(d, cal)\n"
    "      if not s or cftime.format(s, cal) ~= d then error('date ' .. d .. ' does not read back', 0) end\n"
    "    end\n"
    "  end\n"
    "  ds.v:sel { time = { dates[1], dates[3] } }\n"
    "end)\n"
    "if not ok and not ipfsrt.error.is(err) then return false, tostring(err) end\n"
    "return true\n";

static lua_State *state;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!state) {
        state = luaL_newstate();
        luaL_openlibs(state);
        luaL_requiref(state, "ipfsrt", ipfsrt_lua_open, 0);
        lua_pop(state, 1);
        if (luaL_loadbuffer(state, CHECK, sizeof CHECK - 1, "=fuzz_cf") != LUA_OK) abort();
        lua_setfield(state, LUA_REGISTRYINDEX, "fuzz_cf");
    }
    lua_getfield(state, LUA_REGISTRYINDEX, "fuzz_cf");
    lua_pushlstring(state, (const char *)data, size);
    if (lua_pcall(state, 1, 2, 0) != LUA_OK) {
        fprintf(stderr, "fuzz_cf: %s\n", lua_tostring(state, -1));
        abort();
    }
    if (!lua_toboolean(state, -2)) {
        fprintf(stderr, "fuzz_cf: not an ipfsrt error: %s\n", lua_tostring(state, -1));
        abort();
    }
    lua_settop(state, 0);
    lua_gc(state, LUA_GCCOLLECT);
    return 0;
}
