build-x/obj/src/multiformats/path.o: runtime/src/multiformats/path.c \
 runtime/src/base/base_internal.h runtime/include/ipfsrt/error.h \
 runtime/include/ipfsrt/base.h runtime/include/ipfsrt/buf.h \
 runtime/include/ipfsrt/path.h runtime/include/ipfsrt/cid.h \
 runtime/include/ipfsrt/multibase.h runtime/include/ipfsrt/error.h \
 runtime/include/ipfsrt/multihash.h runtime/include/ipfsrt/hash.h \
 runtime/src/multiformats/multiformats_internal.h \
 runtime/include/ipfsrt/cid.h
runtime/src/base/base_internal.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/base.h:
runtime/include/ipfsrt/buf.h:
runtime/include/ipfsrt/path.h:
runtime/include/ipfsrt/cid.h:
runtime/include/ipfsrt/multibase.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/multihash.h:
runtime/include/ipfsrt/hash.h:
runtime/src/multiformats/multiformats_internal.h:
runtime/include/ipfsrt/cid.h:
