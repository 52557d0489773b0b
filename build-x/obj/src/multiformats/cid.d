build-x/obj/src/multiformats/cid.o: runtime/src/multiformats/cid.c \
 runtime/include/ipfsrt/varint.h runtime/include/ipfsrt/error.h \
 runtime/include/ipfsrt/base.h \
 runtime/src/multiformats/multiformats_internal.h \
 runtime/include/ipfsrt/cid.h runtime/include/ipfsrt/multibase.h \
 runtime/include/ipfsrt/multihash.h runtime/include/ipfsrt/hash.h \
 runtime/src/base/base_internal.h runtime/include/ipfsrt/error.h \
 runtime/include/ipfsrt/buf.h
runtime/include/ipfsrt/varint.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/base.h:
runtime/src/multiformats/multiformats_internal.h:
runtime/include/ipfsrt/cid.h:
runtime/include/ipfsrt/multibase.h:
runtime/include/ipfsrt/multihash.h:
runtime/include/ipfsrt/hash.h:
runtime/src/base/base_internal.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/buf.h:
