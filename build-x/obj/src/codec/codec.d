build-x/obj/src/codec/codec.o: runtime/src/codec/codec.c \
 runtime/src/base/json_internal.h runtime/src/codec/codec_internal.h \
 runtime/include/ipfsrt/codec.h runtime/include/ipfsrt/buf.h \
 runtime/include/ipfsrt/base.h runtime/include/ipfsrt/error.h
runtime/src/base/json_internal.h:
runtime/src/codec/codec_internal.h:
runtime/include/ipfsrt/codec.h:
runtime/include/ipfsrt/buf.h:
runtime/include/ipfsrt/base.h:
runtime/include/ipfsrt/error.h:
