build-x/obj/src/s3/s3_xml.o: runtime/src/s3/s3_xml.c \
 runtime/src/s3/s3_internal.h runtime/src/http/fetch.h \
 runtime/include/ipfsrt/error.h runtime/include/ipfsrt/base.h \
 runtime/include/ipfsrt/buf.h runtime/include/ipfsrt/s3.h \
 runtime/include/ipfsrt/ranges.h runtime/include/ipfsrt/cid.h \
 runtime/include/ipfsrt/multibase.h runtime/include/ipfsrt/error.h \
 runtime/include/ipfsrt/multihash.h runtime/include/ipfsrt/hash.h
runtime/src/s3/s3_internal.h:
runtime/src/http/fetch.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/base.h:
runtime/include/ipfsrt/buf.h:
runtime/include/ipfsrt/s3.h:
runtime/include/ipfsrt/ranges.h:
runtime/include/ipfsrt/cid.h:
runtime/include/ipfsrt/multibase.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/multihash.h:
runtime/include/ipfsrt/hash.h:
