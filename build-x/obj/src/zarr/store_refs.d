build-x/obj/src/zarr/store_refs.o: runtime/src/zarr/store_refs.c \
 runtime/src/base/base_internal.h runtime/include/ipfsrt/error.h \
 runtime/include/ipfsrt/base.h runtime/include/ipfsrt/buf.h \
 runtime/include/ipfsrt/client.h runtime/include/ipfsrt/ranges.h \
 runtime/include/ipfsrt/cid.h runtime/include/ipfsrt/multibase.h \
 runtime/include/ipfsrt/error.h runtime/include/ipfsrt/multihash.h \
 runtime/include/ipfsrt/hash.h runtime/include/ipfsrt/unixfs.h \
 runtime/include/ipfsrt/blocksource.h runtime/include/ipfsrt/dagpb.h \
 runtime/include/ipfsrt/buf.h runtime/src/zarr/refs.h \
 runtime/include/ipfsrt/zarr_store.h runtime/include/ipfsrt/pack.h \
 runtime/src/zarr/store_internal.h runtime/include/ipfsrt/unixfs.h
runtime/src/base/base_internal.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/base.h:
runtime/include/ipfsrt/buf.h:
runtime/include/ipfsrt/client.h:
runtime/include/ipfsrt/ranges.h:
runtime/include/ipfsrt/cid.h:
runtime/include/ipfsrt/multibase.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/multihash.h:
runtime/include/ipfsrt/hash.h:
runtime/include/ipfsrt/unixfs.h:
runtime/include/ipfsrt/blocksource.h:
runtime/include/ipfsrt/dagpb.h:
runtime/include/ipfsrt/buf.h:
runtime/src/zarr/refs.h:
runtime/include/ipfsrt/zarr_store.h:
runtime/include/ipfsrt/pack.h:
runtime/src/zarr/store_internal.h:
runtime/include/ipfsrt/unixfs.h:
