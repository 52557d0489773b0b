build-x/obj/src/zarr/refs_template.o: runtime/src/zarr/refs_template.c \
 /usr/include/cjson/cJSON.h runtime/src/base/base_internal.h \
 runtime/include/ipfsrt/error.h runtime/include/ipfsrt/base.h \
 runtime/include/ipfsrt/buf.h runtime/src/zarr/refs.h \
 runtime/include/ipfsrt/zarr_store.h runtime/include/ipfsrt/buf.h \
 runtime/include/ipfsrt/pack.h runtime/include/ipfsrt/unixfs.h \
 runtime/include/ipfsrt/blocksource.h runtime/include/ipfsrt/cid.h \
 runtime/include/ipfsrt/multibase.h runtime/include/ipfsrt/error.h \
 runtime/include/ipfsrt/multihash.h runtime/include/ipfsrt/hash.h \
 runtime/include/ipfsrt/dagpb.h runtime/include/ipfsrt/ranges.h
/usr/include/cjson/cJSON.h:
runtime/src/base/base_internal.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/base.h:
runtime/include/ipfsrt/buf.h:
runtime/src/zarr/refs.h:
runtime/include/ipfsrt/zarr_store.h:
runtime/include/ipfsrt/buf.h:
runtime/include/ipfsrt/pack.h:
runtime/include/ipfsrt/unixfs.h:
runtime/include/ipfsrt/blocksource.h:
runtime/include/ipfsrt/cid.h:
runtime/include/ipfsrt/multibase.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/multihash.h:
runtime/include/ipfsrt/hash.h:
runtime/include/ipfsrt/dagpb.h:
runtime/include/ipfsrt/ranges.h:
