build-x/obj/src/ndarray/arith.o: runtime/src/ndarray/arith.c \
 runtime/src/ndarray/ndarray_internal.h runtime/include/ipfsrt/ndarray.h \
 runtime/include/ipfsrt/error.h runtime/include/ipfsrt/base.h
runtime/src/ndarray/ndarray_internal.h:
runtime/include/ipfsrt/ndarray.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/base.h:
