build-x/obj/src/base/hash.o: runtime/src/base/hash.c \
 runtime/include/ipfsrt/hash.h runtime/include/ipfsrt/error.h \
 runtime/include/ipfsrt/base.h runtime/src/base/base_internal.h \
 runtime/include/ipfsrt/error.h runtime/include/ipfsrt/buf.h
runtime/include/ipfsrt/hash.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/base.h:
runtime/src/base/base_internal.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/buf.h:
