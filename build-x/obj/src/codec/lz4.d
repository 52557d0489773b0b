build-x/obj/src/codec/lz4.o: runtime/src/codec/lz4.c \
 runtime/src/codec/codec_internal.h runtime/include/ipfsrt/codec.h \
 runtime/include/ipfsrt/buf.h runtime/include/ipfsrt/base.h \
 runtime/include/ipfsrt/error.h
runtime/src/codec/codec_internal.h:
runtime/include/ipfsrt/codec.h:
runtime/include/ipfsrt/buf.h:
runtime/include/ipfsrt/base.h:
runtime/include/ipfsrt/error.h:
