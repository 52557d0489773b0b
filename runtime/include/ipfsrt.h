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
 *  - Structs the caller fills start with their size: options (set by
 *    ipfsrt_X_options_init) and tables of callbacks (ipfsrt_policy_init, or
 *    .size = sizeof); so do the counts the library fills into a caller's
 *    struct (IPFSRT_X_STATS_INIT), filled up to that size. Fields are only ever added at the end, and a host built
 *    against an older header keeps working: what its shorter struct lacks is
 *    a default or NULL. A struct without its size fails with
 *    IPFSRT_EBAD_ARGUMENT, naming how to fill it.
 *  - A pointer to options may be NULL wherever a function takes one: the
 *    defaults, as _init sets them (a function that needs a field set, such
 *    as ipfsrt_server_new's CARs, then fails with IPFSRT_EBAD_ARGUMENT).
 *    Options are read during the call only; pointers inside them (a gateway
 *    list, a path, a client) must stay valid for as long as the header that
 *    declares the field says (a store's borrowed client: the store's life).
 *  - Lifetimes, unless a declaration says otherwise: what a function returns
 *    by pointer into an object (a URL, a name, a view) lives until that
 *    object is freed or changed; strings and buffers the caller passes in are
 *    copied when the library keeps them; a callback's arguments are valid
 *    during the callback only.
 *  - Hand-overs: a function that takes a table of callbacks over (a policy, a
 *    store's ops, a transport) owns its ctx on every return, success or not:
 *    what it could not take is released through the table's free before the
 *    call returns (a table without its size too), and what it held before
 *    stays. The caller never frees a ctx it handed over.
 *  - A pointer a declaration does not say may be NULL must not be: a host
 *    that passes NULL anyway gets IPFSRT_EBAD_ARGUMENT naming the function
 *    and the argument (from a function returning a status), or nothing done
 *    and 0, false or NULL returned (from one that returns something else);
 *    never a crash (tests/embed/nulls.lua calls every entry point so).
 *  - Nothing writes the caller's error struct on success.
 *  - Stable or not: IPFSRT_API marks the stable core, IPFSRT_EXPERIMENTAL
 *    what may change in any release (ipfsrt/base.h says which is which).
 */
#ifndef IPFSRT_H
#define IPFSRT_H

/* The core, libipfsrt (pkg-config ipfsrt): one header per part, lowest layer
 * first; include just the ones you use, or this. The modules, each a library
 * of its own on the core, are included one by one: ipfsrt/server.h (the
 * gateway, libipfsrt-server), ipfsrt/s3.h (S3 and CARs read by ranges,
 * libipfsrt-s3), ipfsrt/netcdf.h and ipfsrt/refs.h (NetCDF and kerchunk
 * references, libipfsrt-netcdf); the Lua library's are ipfsrt/lua.h and
 * ipfsrt/image.h (libipfsrt-lua). */
#include "ipfsrt/base.h"
#include "ipfsrt/error.h"
#include "ipfsrt/ndarray.h"
#include "ipfsrt/buf.h"
#include "ipfsrt/codec.h"
#include "ipfsrt/varint.h"
#include "ipfsrt/multibase.h"
#include "ipfsrt/hash.h"
#include "ipfsrt/multihash.h"
#include "ipfsrt/cid.h"
#include "ipfsrt/path.h"
#include "ipfsrt/dagcbor.h"
#include "ipfsrt/dagpb.h"
#include "ipfsrt/ipld.h"
#include "ipfsrt/ipns.h"
#include "ipfsrt/car.h"
#include "ipfsrt/blocksource.h"
#include "ipfsrt/ranges.h"
#include "ipfsrt/unixfs.h"
#include "ipfsrt/pack.h"
#include "ipfsrt/patch.h"
#include "ipfsrt/client.h"
#include "ipfsrt/zarr_store.h"
#include "ipfsrt/zarr.h"

#endif
