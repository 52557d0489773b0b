/* What the library reports while the GIL is released (listings, the results
 * of many reads, a file's bytes) is gathered here in C, and becomes Python
 * objects only once the GIL is held again. */
#include <stdlib.h>
#include <string.h>

#include "py_internal.h"

/* Adds key: value (a new reference, stolen) to dict; -1 on failure. */
static int put(PyObject *dict, const char *key, PyObject *value) {
    int rc = value ? PyDict_SetItemString(dict, key, value) : -1;
    Py_XDECREF(value);
    return rc;
}

static PyObject *cid_string(const ipfsrt_cid *cid) {
    char s[IPFSRT_CID_STR_MAX];
    return PyUnicode_FromString(ipfsrt_cid_to_string(cid, s));
}

PyObject *ipfsrt_py_node_info(const ipfsrt_unixfs_node_info *info) {
    PyObject *d = PyDict_New();
    if (!d) return NULL;
    if (put(d, "cid", cid_string(&info->cid)) < 0 ||
        put(d, "type", PyUnicode_FromString(ipfsrt_unixfs_type_name(info->type))) < 0 ||
        put(d, "size", PyLong_FromUnsignedLongLong(info->size)) < 0 ||
        (info->has_mode && put(d, "mode", PyLong_FromUnsignedLong(info->mode)) < 0) ||
        (info->has_mtime &&
         put(d, "mtime", PyFloat_FromDouble((double)info->mtime_seconds + info->mtime_nanos / 1e9)) < 0)) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

ipfsrt_status ipfsrt_py_listing_add(void *user, const ipfsrt_unixfs_entry *entry, ipfsrt_error *err) {
    ipfsrt_py_listing *l = user;
    if (l->count == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        ipfsrt_unixfs_entry *grown = realloc(l->entries, cap * sizeof *grown);
        if (!grown) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "listing: out of memory");
        l->entries = grown;
        l->cap = cap;
    }
    char *name = malloc(entry->name_len + 1);
    if (!name) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "listing: out of memory");
    memcpy(name, entry->name, entry->name_len);
    name[entry->name_len] = '\0';
    l->entries[l->count] = *entry;
    l->entries[l->count++].name = name;
    return IPFSRT_OK;
}

static PyObject *entry_dict(const ipfsrt_unixfs_entry *e) {
    PyObject *d = PyDict_New();
    if (!d) return NULL;
    if (put(d, "name", PyUnicode_DecodeUTF8(e->name, (Py_ssize_t)e->name_len, "surrogateescape")) < 0 ||
        put(d, "cid", cid_string(&e->cid)) < 0 || put(d, "tsize", PyLong_FromUnsignedLongLong(e->tsize)) < 0 ||
        (e->has_type && (put(d, "type", PyUnicode_FromString(ipfsrt_unixfs_type_name(e->type))) < 0 ||
                         put(d, "size", PyLong_FromUnsignedLongLong(e->size)) < 0)) ||
        (e->problem != IPFSRT_OK && put(d, "problem", PyUnicode_FromString(ipfsrt_status_name(e->problem))) < 0)) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

PyObject *ipfsrt_py_listing_take(ipfsrt_py_listing *listing) {
    PyObject *out = PyList_New((Py_ssize_t)listing->count);
    for (size_t i = 0; out && i < listing->count; i++) {
        PyObject *d = entry_dict(&listing->entries[i]);
        if (!d) Py_CLEAR(out);
        else PyList_SET_ITEM(out, (Py_ssize_t)i, d);
    }
    ipfsrt_py_listing_free(listing);
    return out;
}

void ipfsrt_py_listing_free(ipfsrt_py_listing *listing) {
    for (size_t i = 0; i < listing->count; i++) free((char *)listing->entries[i].name);
    free(listing->entries);
    *listing = (ipfsrt_py_listing){0};
}

/* One (path, offset, length or None, from_end) tuple into a request. */
static int parse_request(PyObject *item, ipfsrt_range_request *req, PyObject *paths) {
    PyObject *path, *length;
    unsigned long long offset;
    int from_end;
    if (!PyArg_ParseTuple(item, "UKOp;a read is (path, offset, length or None, from_end)", &path, &offset, &length,
                          &from_end))
        return -1;
    req->offset = offset;
    req->from_end = from_end;
    req->length = UINT64_MAX;
    if (length != Py_None) {
        req->length = PyLong_AsUnsignedLongLong(length);
        if (PyErr_Occurred()) return -1;
    }
    Py_ssize_t size;
    req->key = PyUnicode_AsUTF8AndSize(path, &size);
    if (!req->key) return -1;
    if (strlen(req->key) != (size_t)size) {
        PyErr_SetString(PyExc_ValueError, "a path holds a NUL character");
        return -1;
    }
    return PyList_Append(paths, path);
}

int ipfsrt_py_reads_init(ipfsrt_py_reads *reads, PyObject *requests) {
    *reads = (ipfsrt_py_reads){0};
    PyObject *seq = PySequence_Fast(requests, "reads must be a sequence of (path, offset, length, from_end)");
    if (!seq) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    reads->paths = PyList_New(0);
    reads->requests = PyMem_Calloc(n ? (size_t)n : 1, sizeof *reads->requests);
    reads->slots = PyMem_Calloc(n ? (size_t)n : 1, sizeof *reads->slots);
    if (!reads->paths || !reads->requests || !reads->slots) {
        Py_DECREF(seq);
        ipfsrt_py_reads_free(reads);
        if (!PyErr_Occurred()) PyErr_NoMemory();
        return -1;
    }
    reads->n = (size_t)n;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (parse_request(PySequence_Fast_GET_ITEM(seq, i), &reads->requests[i], reads->paths) < 0) {
            Py_DECREF(seq);
            ipfsrt_py_reads_free(reads);
            return -1;
        }
    }
    Py_DECREF(seq);
    return 0;
}

ipfsrt_status ipfsrt_py_reads_keep(void *user, const ipfsrt_range_result *result, ipfsrt_error *err) {
    ipfsrt_py_reads *reads = user;
    if (result->index >= reads->n) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "a result past the reads");
    ipfsrt_py_slot *slot = &reads->slots[result->index];
    slot->status = result->status;
    if (result->status != IPFSRT_OK) {
        slot->error = result->error;
        return IPFSRT_OK;
    }
    slot->len = result->len;
    if (result->lent.owner && result->lent.hold) {
        result->lent.hold(result->lent.owner);
        slot->lent = result->lent;
        slot->data = result->data;
        return IPFSRT_OK;
    }
    slot->copy = malloc(result->len ? result->len : 1);
    if (!slot->copy) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "%s: out of memory", result->key);
    if (result->len) memcpy(slot->copy, result->data, result->len);
    slot->data = slot->copy;
    return IPFSRT_OK;
}

static void slot_free(ipfsrt_py_slot *slot) {
    if (slot->lent.owner && slot->lent.release) slot->lent.release(slot->lent.owner);
    free(slot->copy);
    *slot = (ipfsrt_py_slot){0};
}

PyObject *ipfsrt_py_reads_take(ipfsrt_py_reads *reads, bool lied) {
    PyObject *out = PyList_New((Py_ssize_t)reads->n);
    for (size_t i = 0; out && i < reads->n; i++) {
        ipfsrt_py_slot *slot = &reads->slots[i];
        PyObject *v = slot->status == IPFSRT_OK ? PyBytes_FromStringAndSize((const char *)slot->data, (Py_ssize_t)slot->len)
                                                : ipfsrt_py_exception(&slot->error, lied);
        if (!v) Py_CLEAR(out);
        else PyList_SET_ITEM(out, (Py_ssize_t)i, v);
    }
    ipfsrt_py_reads_free(reads);
    return out;
}

void ipfsrt_py_reads_free(ipfsrt_py_reads *reads) {
    for (size_t i = 0; reads->slots && i < reads->n; i++) slot_free(&reads->slots[i]);
    PyMem_Free(reads->slots);
    PyMem_Free(reads->requests);
    Py_CLEAR(reads->paths);
    *reads = (ipfsrt_py_reads){0};
}

ipfsrt_status ipfsrt_py_append(void *user, const uint8_t *data, size_t len, ipfsrt_error *err) {
    ipfsrt_buf *buf = user;
    ipfsrt_buf_append(buf, data, len);
    if (buf->failed) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory for a file's bytes");
    return IPFSRT_OK;
}
