build-x/obj/src/codec/bz2.o: runtime/src/codec/bz2.c \
 runtime/src/codec/codec_internal.h runtime/include/ipfsrt/codec.h \
 runtime/include/ipfsrt/buf.h runtime/include/ipfsrt/base.h \
 runtime/include/ipfsrt/error.h
runtime/src/codec/codec_internal.h:
runtime/include/ipfsrt/codec.h:
runtime/include/ipfsrt/buf.h:
runtime/include/ipfsrt/base.h:
runtime/include/ipfsrt/error.h:
