build-x/obj/src/ndarray/element.o: runtime/src/ndarray/element.c \
 runtime/src/ndarray/ndarray_internal.h runtime/include/ipfsrt/ndarray.h \
 runtime/include/ipfsrt/error.h runtime/include/ipfsrt/base.h
runtime/src/ndarray/ndarray_internal.h:
runtime/include/ipfsrt/ndarray.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/base.h:
