build-x/obj/src/base/async_write.o: runtime/src/base/async_write.c \
 runtime/src/base/base_internal.h runtime/include/ipfsrt/error.h \
 runtime/include/ipfsrt/base.h runtime/include/ipfsrt/buf.h
runtime/src/base/base_internal.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/base.h:
runtime/include/ipfsrt/buf.h:
