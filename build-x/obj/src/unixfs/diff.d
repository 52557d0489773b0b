build-x/obj/src/unixfs/diff.o: runtime/src/unixfs/diff.c \
 runtime/include/ipfsrt/unixfs.h runtime/include/ipfsrt/blocksource.h \
 runtime/include/ipfsrt/cid.h runtime/include/ipfsrt/multibase.h \
 runtime/include/ipfsrt/error.h runtime/include/ipfsrt/base.h \
 runtime/include/ipfsrt/multihash.h runtime/include/ipfsrt/hash.h \
 runtime/include/ipfsrt/dagpb.h runtime/include/ipfsrt/buf.h \
 runtime/src/base/base_internal.h runtime/include/ipfsrt/error.h \
 runtime/include/ipfsrt/buf.h runtime/src/unixfs/importer.h \
 runtime/include/ipfsrt/pack.h runtime/include/ipfsrt/unixfs.h \
 runtime/include/ipfsrt/hash.h runtime/src/unixfs/hamt.h
runtime/include/ipfsrt/unixfs.h:
runtime/include/ipfsrt/blocksource.h:
runtime/include/ipfsrt/cid.h:
runtime/include/ipfsrt/multibase.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/base.h:
runtime/include/ipfsrt/multihash.h:
runtime/include/ipfsrt/hash.h:
runtime/include/ipfsrt/dagpb.h:
runtime/include/ipfsrt/buf.h:
runtime/src/base/base_internal.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/buf.h:
runtime/src/unixfs/importer.h:
runtime/include/ipfsrt/pack.h:
runtime/include/ipfsrt/unixfs.h:
runtime/include/ipfsrt/hash.h:
runtime/src/unixfs/hamt.h:
