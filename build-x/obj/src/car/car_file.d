build-x/obj/src/car/car_file.o: runtime/src/car/car_file.c \
 runtime/include/ipfsrt/varint.h runtime/include/ipfsrt/error.h \
 runtime/include/ipfsrt/base.h runtime/src/car/car_internal.h \
 runtime/src/base/base_internal.h runtime/include/ipfsrt/error.h \
 runtime/include/ipfsrt/buf.h runtime/include/ipfsrt/car.h \
 runtime/include/ipfsrt/cid.h runtime/include/ipfsrt/multibase.h \
 runtime/include/ipfsrt/multihash.h runtime/include/ipfsrt/hash.h \
 runtime/include/ipfsrt/buf.h runtime/include/ipfsrt/blocksource.h \
 runtime/include/ipfsrt/ranges.h \
 runtime/src/multiformats/multiformats_internal.h \
 runtime/include/ipfsrt/cid.h
runtime/include/ipfsrt/varint.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/base.h:
runtime/src/car/car_internal.h:
runtime/src/base/base_internal.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/buf.h:
runtime/include/ipfsrt/car.h:
runtime/include/ipfsrt/cid.h:
runtime/include/ipfsrt/multibase.h:
runtime/include/ipfsrt/multihash.h:
runtime/include/ipfsrt/hash.h:
runtime/include/ipfsrt/buf.h:
runtime/include/ipfsrt/blocksource.h:
runtime/include/ipfsrt/ranges.h:
runtime/src/multiformats/multiformats_internal.h:
runtime/include/ipfsrt/cid.h:
