build-x/obj/src/server/http_parse.o: runtime/src/server/http_parse.c \
 runtime/src/server/http_parse.h runtime/include/ipfsrt/error.h \
 runtime/include/ipfsrt/base.h runtime/include/ipfsrt/unixfs.h \
 runtime/include/ipfsrt/blocksource.h runtime/include/ipfsrt/cid.h \
 runtime/include/ipfsrt/multibase.h runtime/include/ipfsrt/error.h \
 runtime/include/ipfsrt/multihash.h runtime/include/ipfsrt/hash.h \
 runtime/include/ipfsrt/dagpb.h runtime/include/ipfsrt/buf.h
runtime/src/server/http_parse.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/base.h:
runtime/include/ipfsrt/unixfs.h:
runtime/include/ipfsrt/blocksource.h:
runtime/include/ipfsrt/cid.h:
runtime/include/ipfsrt/multibase.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/multihash.h:
runtime/include/ipfsrt/hash.h:
runtime/include/ipfsrt/dagpb.h:
runtime/include/ipfsrt/buf.h:
