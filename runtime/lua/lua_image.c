/* ipfsrt.image: write_map(path, array[, {min =, max =, flip =, scale =, colorbar =}]) */
#include "bindings.h"

static int image_write_map(lua_State *L) {
    const char *path = luaL_checkstring(L, 1);
    const ipfsrt_ndarray *a = ipfsrt_lua_check_ndarray(L, 2);
    ipfsrt_image_map_options o = {0, 0, false, 1, true};
    if (lua_istable(L, 3)) {
        o.vmin = ipfsrt_lua_opt_number(L, 3, "min", 0);
        o.vmax = ipfsrt_lua_opt_number(L, 3, "max", 0);
        o.flip = ipfsrt_lua_opt_bool(L, 3, "flip", false);
        lua_Integer s = ipfsrt_lua_opt_int(L, 3, "scale", 1);
        if (s < 1 || s > 64) return ipfsrt_lua_raise_arg(L, "scale is 1 to 64 pixels a cell");
        o.scale = (unsigned)s;
        o.colorbar = ipfsrt_lua_opt_bool(L, 3, "colorbar", true);
    }
    ipfsrt_error err;
    if (ipfsrt_image_write_map(path, a, &o, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 0;
}

int ipfsrt_lua_open_image(lua_State *L) {
    static const luaL_Reg fns[] = {{"write_map", image_write_map}, {NULL, NULL}};
    luaL_newlib(L, fns);
    return 1;
}
