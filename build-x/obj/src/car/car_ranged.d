build-x/obj/src/car/car_ranged.o: runtime/src/car/car_ranged.c \
 runtime/src/car/car_internal.h runtime/src/base/base_internal.h \
 runtime/include/ipfsrt/error.h runtime/include/ipfsrt/base.h \
 runtime/include/ipfsrt/buf.h runtime/include/ipfsrt/car.h \
 runtime/include/ipfsrt/cid.h runtime/include/ipfsrt/multibase.h \
 runtime/include/ipfsrt/error.h runtime/include/ipfsrt/multihash.h \
 runtime/include/ipfsrt/hash.h runtime/include/ipfsrt/buf.h \
 runtime/include/ipfsrt/blocksource.h runtime/include/ipfsrt/ranges.h \
 runtime/include/ipfsrt/varint.h \
 runtime/src/multiformats/multiformats_internal.h \
 runtime/include/ipfsrt/cid.h runtime/src/store/blockcache.h
runtime/src/car/car_internal.h:
runtime/src/base/base_internal.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/base.h:
runtime/include/ipfsrt/buf.h:
runtime/include/ipfsrt/car.h:
runtime/include/ipfsrt/cid.h:
runtime/include/ipfsrt/multibase.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/multihash.h:
runtime/include/ipfsrt/hash.h:
runtime/include/ipfsrt/buf.h:
runtime/include/ipfsrt/blocksource.h:
runtime/include/ipfsrt/ranges.h:
runtime/include/ipfsrt/varint.h:
runtime/src/multiformats/multiformats_internal.h:
runtime/include/ipfsrt/cid.h:
runtime/src/store/blockcache.h:
