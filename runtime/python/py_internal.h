/* The Python binding's shared pieces: its exceptions, the error a failed call
 * raises, and the collectors that gather what the C library reports while the
 * GIL is released, turned into Python objects once it is held again. */
#ifndef IPFSRT_PY_INTERNAL_H
#define IPFSRT_PY_INTERNAL_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdbool.h>

#include "ipfsrt/client.h"

extern PyObject *ipfsrt_py_error;              /* ipfsrt.Error, an OSError */
extern PyObject *ipfsrt_py_verification_error; /* ipfsrt.VerificationError, an ipfsrt.Error */
extern PyTypeObject ipfsrt_py_client_type;
extern PyTypeObject ipfsrt_py_car_type;

PyMODINIT_FUNC PyInit__ipfsrt(void);

/* The exception for a failed call, as a new object: FileNotFoundError only
 * for ENOT_FOUND (a verified directory without the name), VerificationError
 * for bytes that failed their check, or for every gateway failing (fetch_failed)
 * when lied says some answer failed verification during the call. NULL with
 * an error set when even that fails. */
PyObject *ipfsrt_py_exception(const ipfsrt_error *err, bool lied);
/* Raises that exception; returns NULL for the caller to return. */
PyObject *ipfsrt_py_raise(const ipfsrt_error *err, bool lied);

/* What a path names, as a dict: cid, type, size, and mode and mtime when set. */
PyObject *ipfsrt_py_node_info(const ipfsrt_unixfs_node_info *info);

/* A listing gathered without the GIL. */
typedef struct ipfsrt_py_listing {
    ipfsrt_unixfs_entry *entries; /* each name malloc'd */
    size_t count, cap;
} ipfsrt_py_listing;
ipfsrt_status ipfsrt_py_listing_add(void *user, const ipfsrt_unixfs_entry *entry, ipfsrt_error *err);
/* The entries as a list of dicts (name, cid, tsize; type and size when known;
 * problem when the entry's own block could not be read); frees them. */
PyObject *ipfsrt_py_listing_take(ipfsrt_py_listing *listing);
void ipfsrt_py_listing_free(ipfsrt_py_listing *listing);

/* One read of many: its outcome, its bytes held (lent) or copied. */
typedef struct ipfsrt_py_slot {
    ipfsrt_status status;
    ipfsrt_error error;
    const uint8_t *data;
    size_t len;
    uint8_t *copy;     /* when the source could not lend: ours, freed */
    ipfsrt_lent lent;  /* when it could: released once copied into bytes */
} ipfsrt_py_slot;

/* Many reads: the requests parsed from Python (path, offset, length, from_end),
 * the paths kept alive while the library reads them, a slot per request. */
typedef struct ipfsrt_py_reads {
    ipfsrt_range_request *requests;
    ipfsrt_py_slot *slots;
    size_t n;
    PyObject *paths; /* the path strings (a list), owning what requests point at */
} ipfsrt_py_reads;
/* Parses a sequence of (path, offset, length or None, from_end) tuples. */
int ipfsrt_py_reads_init(ipfsrt_py_reads *reads, PyObject *requests);
/* ipfsrt_range_fn: keeps result's bytes in its slot. */
ipfsrt_status ipfsrt_py_reads_keep(void *user, const ipfsrt_range_result *result, ipfsrt_error *err);
/* A list: each read's bytes, or its exception (not raised; lied as for
 * ipfsrt_py_exception); frees the slots. */
PyObject *ipfsrt_py_reads_take(ipfsrt_py_reads *reads, bool lied);
void ipfsrt_py_reads_free(ipfsrt_py_reads *reads);

/* ipfsrt_unixfs_write_fn appending to an ipfsrt_buf, without the GIL. */
ipfsrt_status ipfsrt_py_append(void *user, const uint8_t *data, size_t len, ipfsrt_error *err);

#endif
