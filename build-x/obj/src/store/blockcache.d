build-x/obj/src/store/blockcache.o: runtime/src/store/blockcache.c \
 runtime/src/store/blockcache.h runtime/include/ipfsrt/cid.h \
 runtime/include/ipfsrt/multibase.h runtime/include/ipfsrt/error.h \
 runtime/include/ipfsrt/base.h runtime/include/ipfsrt/multihash.h \
 runtime/include/ipfsrt/hash.h runtime/src/base/base_internal.h \
 runtime/include/ipfsrt/error.h runtime/include/ipfsrt/buf.h
runtime/src/store/blockcache.h:
runtime/include/ipfsrt/cid.h:
runtime/include/ipfsrt/multibase.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/base.h:
runtime/include/ipfsrt/multihash.h:
runtime/include/ipfsrt/hash.h:
runtime/src/base/base_internal.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/buf.h:
