build-x/obj/src/base/error.o: runtime/src/base/error.c \
 runtime/include/ipfsrt/error.h runtime/include/ipfsrt/base.h
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/base.h:
