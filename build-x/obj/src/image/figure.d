build-x/obj/src/image/figure.o: runtime/src/image/figure.c \
 runtime/src/image/image_internal.h runtime/src/base/base_internal.h \
 runtime/include/ipfsrt/error.h runtime/include/ipfsrt/base.h \
 runtime/include/ipfsrt/buf.h runtime/include/ipfsrt/image.h \
 runtime/include/ipfsrt/ndarray.h runtime/include/ipfsrt/error.h
runtime/src/image/image_internal.h:
runtime/src/base/base_internal.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/base.h:
runtime/include/ipfsrt/buf.h:
runtime/include/ipfsrt/image.h:
runtime/include/ipfsrt/ndarray.h:
runtime/include/ipfsrt/error.h:
