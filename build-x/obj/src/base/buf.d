build-x/obj/src/base/buf.o: runtime/src/base/buf.c \
 runtime/include/ipfsrt/buf.h runtime/include/ipfsrt/base.h
runtime/include/ipfsrt/buf.h:
runtime/include/ipfsrt/base.h:
