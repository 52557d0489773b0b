/*
 * ipfsrt — verified reading of content-addressed data.
 *
 * The C API is usable without Lua. Conventions, everywhere:
 *  - Functions that can fail return an ipfsrt_status (IPFSRT_OK == 0) and fill
 *    an optional ipfsrt_error (pass NULL to ignore the details).
 *  - Objects the library allocates come in new/free pairs: ipfsrt_X_new(&obj, ...)
 *    allocates, ipfsrt_X_free(obj) releases (NULL is accepted). Structs the caller
 *    owns come in init/free pairs: ipfsrt_X_init(&s) never fails, ipfsrt_X_free(&s)
 *    releases what the struct holds.
 *  - Byte pointers handed to callbacks or returned by getters borrow memory owned
 *    by the object they came from; copy them if they must outlive it.
 *  - Nothing is returned as verified unless its hash matched its CID.
 * Thread safety: distinct objects may be used from distinct threads. The hash
 * backend and thread counts have process defaults (ipfsrt_hash_backend_select,
 * ipfsrt_threads_set: before threads start) that options override per object
 * (a client's, a CAR reader's hash_backend; threads of reads, writes,
 * clients and servers).
 *  - Option structs start with their size, set by ipfsrt_X_options_init:
 *    fields are only ever added at the end, and a host built against an older
 *    header keeps working.
 */
#ifndef IPFSRT_H
#define IPFSRT_H

/* One header per module, lowest layer first; include just the ones you use, or
 * this. The Lua module (libipfsrt-lua) has its own: ipfsrt/lua.h. */
#include "ipfsrt/base.h"
#include "ipfsrt/error.h"
#include "ipfsrt/ndarray.h"
#include "ipfsrt/buf.h"
#include "ipfsrt/codec.h"
#include "ipfsrt/netcdf.h"
#include "ipfsrt/varint.h"
#include "ipfsrt/multibase.h"
#include "ipfsrt/hash.h"
#include "ipfsrt/multihash.h"
#include "ipfsrt/cid.h"
#include "ipfsrt/path.h"
#include "ipfsrt/dagcbor.h"
#include "ipfsrt/dagpb.h"
#include "ipfsrt/car.h"
#include "ipfsrt/blocksource.h"
#include "ipfsrt/ranges.h"
#include "ipfsrt/unixfs.h"
#include "ipfsrt/pack.h"
#include "ipfsrt/client.h"
#include "ipfsrt/s3.h"
#include "ipfsrt/zarr_store.h"
#include "ipfsrt/zarr.h"
#include "ipfsrt/refs.h"
#include "ipfsrt/server.h"

#endif
