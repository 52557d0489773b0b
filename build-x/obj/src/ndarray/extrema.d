build-x/obj/src/ndarray/extrema.o: runtime/src/ndarray/extrema.c \
 runtime/src/ndarray/ndarray_internal.h runtime/include/ipfsrt/ndarray.h \
 runtime/include/ipfsrt/error.h runtime/include/ipfsrt/base.h
runtime/src/ndarray/ndarray_internal.h:
runtime/include/ipfsrt/ndarray.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/base.h:
