build-x/obj/src/ndarray/weighted.o: runtime/src/ndarray/weighted.c \
 runtime/src/ndarray/ndarray_internal.h runtime/include/ipfsrt/ndarray.h \
 runtime/include/ipfsrt/error.h runtime/include/ipfsrt/base.h
runtime/src/ndarray/ndarray_internal.h:
runtime/include/ipfsrt/ndarray.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/base.h:
