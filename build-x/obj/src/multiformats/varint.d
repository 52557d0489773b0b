build-x/obj/src/multiformats/varint.o: runtime/src/multiformats/varint.c \
 runtime/include/ipfsrt/varint.h runtime/include/ipfsrt/error.h \
 runtime/include/ipfsrt/base.h runtime/src/base/base_internal.h \
 runtime/include/ipfsrt/error.h runtime/include/ipfsrt/buf.h
runtime/include/ipfsrt/varint.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/base.h:
runtime/src/base/base_internal.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/buf.h:
