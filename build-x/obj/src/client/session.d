build-x/obj/src/client/session.o: runtime/src/client/session.c \
 runtime/src/client/client_internal.h runtime/include/ipfsrt/client.h \
 runtime/include/ipfsrt/ranges.h runtime/include/ipfsrt/cid.h \
 runtime/include/ipfsrt/multibase.h runtime/include/ipfsrt/error.h \
 runtime/include/ipfsrt/base.h runtime/include/ipfsrt/multihash.h \
 runtime/include/ipfsrt/hash.h runtime/include/ipfsrt/unixfs.h \
 runtime/include/ipfsrt/blocksource.h runtime/include/ipfsrt/dagpb.h \
 runtime/include/ipfsrt/buf.h runtime/include/ipfsrt/path.h \
 runtime/src/car/car_internal.h runtime/src/base/base_internal.h \
 runtime/include/ipfsrt/error.h runtime/include/ipfsrt/buf.h \
 runtime/include/ipfsrt/car.h runtime/include/ipfsrt/varint.h \
 runtime/src/multiformats/multiformats_internal.h \
 runtime/include/ipfsrt/cid.h runtime/src/http/fetch.h \
 runtime/src/client/verify_pool.h runtime/src/store/blockcache.h
runtime/src/client/client_internal.h:
runtime/include/ipfsrt/client.h:
runtime/include/ipfsrt/ranges.h:
runtime/include/ipfsrt/cid.h:
runtime/include/ipfsrt/multibase.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/base.h:
runtime/include/ipfsrt/multihash.h:
runtime/include/ipfsrt/hash.h:
runtime/include/ipfsrt/unixfs.h:
runtime/include/ipfsrt/blocksource.h:
runtime/include/ipfsrt/dagpb.h:
runtime/include/ipfsrt/buf.h:
runtime/include/ipfsrt/path.h:
runtime/src/car/car_internal.h:
runtime/src/base/base_internal.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/buf.h:
runtime/include/ipfsrt/car.h:
runtime/include/ipfsrt/varint.h:
runtime/src/multiformats/multiformats_internal.h:
runtime/include/ipfsrt/cid.h:
runtime/src/http/fetch.h:
runtime/src/client/verify_pool.h:
runtime/src/store/blockcache.h:
