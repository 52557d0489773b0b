build-x/obj/src/ndarray/parallel.o: runtime/src/ndarray/parallel.c \
 runtime/src/base/base_internal.h runtime/include/ipfsrt/error.h \
 runtime/include/ipfsrt/base.h runtime/include/ipfsrt/buf.h \
 runtime/src/ndarray/ndarray_internal.h runtime/include/ipfsrt/ndarray.h \
 runtime/include/ipfsrt/error.h
runtime/src/base/base_internal.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/base.h:
runtime/include/ipfsrt/buf.h:
runtime/src/ndarray/ndarray_internal.h:
runtime/include/ipfsrt/ndarray.h:
runtime/include/ipfsrt/error.h:
