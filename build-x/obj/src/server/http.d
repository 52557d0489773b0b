build-x/obj/src/server/http.o: runtime/src/server/http.c \
 runtime/src/multiformats/multiformats_internal.h \
 runtime/include/ipfsrt/cid.h runtime/include/ipfsrt/multibase.h \
 runtime/include/ipfsrt/error.h runtime/include/ipfsrt/base.h \
 runtime/include/ipfsrt/multihash.h runtime/include/ipfsrt/hash.h \
 runtime/src/base/base_internal.h runtime/include/ipfsrt/error.h \
 runtime/include/ipfsrt/buf.h runtime/src/server/server_internal.h \
 runtime/include/ipfsrt/server.h runtime/include/ipfsrt/blocksource.h \
 runtime/include/ipfsrt/cid.h runtime/include/ipfsrt/client.h \
 runtime/include/ipfsrt/ranges.h runtime/include/ipfsrt/unixfs.h \
 runtime/include/ipfsrt/dagpb.h runtime/include/ipfsrt/buf.h \
 runtime/include/ipfsrt/car.h
runtime/src/multiformats/multiformats_internal.h:
runtime/include/ipfsrt/cid.h:
runtime/include/ipfsrt/multibase.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/base.h:
runtime/include/ipfsrt/multihash.h:
runtime/include/ipfsrt/hash.h:
runtime/src/base/base_internal.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/buf.h:
runtime/src/server/server_internal.h:
runtime/include/ipfsrt/server.h:
runtime/include/ipfsrt/blocksource.h:
runtime/include/ipfsrt/cid.h:
runtime/include/ipfsrt/client.h:
runtime/include/ipfsrt/ranges.h:
runtime/include/ipfsrt/unixfs.h:
runtime/include/ipfsrt/dagpb.h:
runtime/include/ipfsrt/buf.h:
runtime/include/ipfsrt/car.h:
