build-x/obj/src/s3/s3.o: runtime/src/s3/s3.c \
 runtime/src/base/base_internal.h runtime/include/ipfsrt/error.h \
 runtime/include/ipfsrt/base.h runtime/include/ipfsrt/buf.h \
 runtime/src/http/fetch.h runtime/src/s3/s3_internal.h \
 runtime/include/ipfsrt/s3.h runtime/include/ipfsrt/ranges.h \
 runtime/include/ipfsrt/cid.h runtime/include/ipfsrt/multibase.h \
 runtime/include/ipfsrt/error.h runtime/include/ipfsrt/multihash.h \
 runtime/include/ipfsrt/hash.h runtime/include/ipfsrt/hash.h
runtime/src/base/base_internal.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/base.h:
runtime/include/ipfsrt/buf.h:
runtime/src/http/fetch.h:
runtime/src/s3/s3_internal.h:
runtime/include/ipfsrt/s3.h:
runtime/include/ipfsrt/ranges.h:
runtime/include/ipfsrt/cid.h:
runtime/include/ipfsrt/multibase.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/multihash.h:
runtime/include/ipfsrt/hash.h:
runtime/include/ipfsrt/hash.h:
