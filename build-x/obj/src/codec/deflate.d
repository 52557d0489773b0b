build-x/obj/src/codec/deflate.o: runtime/src/codec/deflate.c \
 runtime/src/codec/codec_internal.h runtime/include/ipfsrt/codec.h \
 runtime/include/ipfsrt/buf.h runtime/include/ipfsrt/base.h \
 runtime/include/ipfsrt/error.h
runtime/src/codec/codec_internal.h:
runtime/include/ipfsrt/codec.h:
runtime/include/ipfsrt/buf.h:
runtime/include/ipfsrt/base.h:
runtime/include/ipfsrt/error.h:
