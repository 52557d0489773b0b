build-x/obj/lua/lua_image.o: runtime/lua/lua_image.c \
 runtime/lua/bindings.h /usr/include/lua5.4/lauxlib.h \
 /usr/include/lua5.4/luaconf.h /usr/include/lua5.4/lua.h \
 /usr/include/lua5.4/lua.h runtime/include/ipfsrt.h \
 runtime/include/ipfsrt/base.h runtime/include/ipfsrt/error.h \
 runtime/include/ipfsrt/base.h runtime/include/ipfsrt/ndarray.h \
 runtime/include/ipfsrt/error.h runtime/include/ipfsrt/buf.h \
 runtime/include/ipfsrt/codec.h runtime/include/ipfsrt/buf.h \
 runtime/include/ipfsrt/netcdf.h runtime/include/ipfsrt/ndarray.h \
 runtime/include/ipfsrt/varint.h runtime/include/ipfsrt/multibase.h \
 runtime/include/ipfsrt/hash.h runtime/include/ipfsrt/multihash.h \
 runtime/include/ipfsrt/hash.h runtime/include/ipfsrt/cid.h \
 runtime/include/ipfsrt/multibase.h runtime/include/ipfsrt/multihash.h \
 runtime/include/ipfsrt/path.h runtime/include/ipfsrt/cid.h \
 runtime/include/ipfsrt/dagcbor.h runtime/include/ipfsrt/dagpb.h \
 runtime/include/ipfsrt/car.h runtime/include/ipfsrt/blocksource.h \
 runtime/include/ipfsrt/ranges.h runtime/include/ipfsrt/blocksource.h \
 runtime/include/ipfsrt/ranges.h runtime/include/ipfsrt/unixfs.h \
 runtime/include/ipfsrt/dagpb.h runtime/include/ipfsrt/pack.h \
 runtime/include/ipfsrt/unixfs.h runtime/include/ipfsrt/patch.h \
 runtime/include/ipfsrt/pack.h runtime/include/ipfsrt/client.h \
 runtime/include/ipfsrt/s3.h runtime/include/ipfsrt/zarr_store.h \
 runtime/include/ipfsrt/zarr.h runtime/include/ipfsrt/codec.h \
 runtime/include/ipfsrt/zarr_store.h runtime/include/ipfsrt/refs.h \
 runtime/include/ipfsrt/server.h runtime/include/ipfsrt/client.h \
 runtime/include/ipfsrt/lua.h runtime/include/ipfsrt/image.h
runtime/lua/bindings.h:
/usr/include/lua5.4/lauxlib.h:
/usr/include/lua5.4/luaconf.h:
/usr/include/lua5.4/lua.h:
/usr/include/lua5.4/lua.h:
runtime/include/ipfsrt.h:
runtime/include/ipfsrt/base.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/base.h:
runtime/include/ipfsrt/ndarray.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/buf.h:
runtime/include/ipfsrt/codec.h:
runtime/include/ipfsrt/buf.h:
runtime/include/ipfsrt/netcdf.h:
runtime/include/ipfsrt/ndarray.h:
runtime/include/ipfsrt/varint.h:
runtime/include/ipfsrt/multibase.h:
runtime/include/ipfsrt/hash.h:
runtime/include/ipfsrt/multihash.h:
runtime/include/ipfsrt/hash.h:
runtime/include/ipfsrt/cid.h:
runtime/include/ipfsrt/multibase.h:
runtime/include/ipfsrt/multihash.h:
runtime/include/ipfsrt/path.h:
runtime/include/ipfsrt/cid.h:
runtime/include/ipfsrt/dagcbor.h:
runtime/include/ipfsrt/dagpb.h:
runtime/include/ipfsrt/car.h:
runtime/include/ipfsrt/blocksource.h:
runtime/include/ipfsrt/ranges.h:
runtime/include/ipfsrt/blocksource.h:
runtime/include/ipfsrt/ranges.h:
runtime/include/ipfsrt/unixfs.h:
runtime/include/ipfsrt/dagpb.h:
runtime/include/ipfsrt/pack.h:
runtime/include/ipfsrt/unixfs.h:
runtime/include/ipfsrt/patch.h:
runtime/include/ipfsrt/pack.h:
runtime/include/ipfsrt/client.h:
runtime/include/ipfsrt/s3.h:
runtime/include/ipfsrt/zarr_store.h:
runtime/include/ipfsrt/zarr.h:
runtime/include/ipfsrt/codec.h:
runtime/include/ipfsrt/zarr_store.h:
runtime/include/ipfsrt/refs.h:
runtime/include/ipfsrt/server.h:
runtime/include/ipfsrt/client.h:
runtime/include/ipfsrt/lua.h:
runtime/include/ipfsrt/image.h:
