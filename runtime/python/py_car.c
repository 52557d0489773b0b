/* ipfsrt._ipfsrt.CarFile: a CAR file's UnixFS trees read in place, each
 * block hashed against its CID as it is read (ipfsrt_car_file, the CAR block
 * source and the UnixFS walker). Calls release the GIL and hold the file's
 * lock: a lookup may complete its index. */
#include <stdlib.h>

#include "ipfsrt/car.h"
#include "py_internal.h"

typedef struct py_car {
    PyObject_HEAD
    ipfsrt_car_file *car;
    ipfsrt_blocksource src;
    PyThread_type_lock lock;
} py_car;

typedef ipfsrt_status (*car_call)(py_car *self, void *args, ipfsrt_error *err);

/* Runs fn without the GIL, holding the file's lock. */
static ipfsrt_status run(py_car *self, car_call fn, void *args, ipfsrt_error *err) {
    ipfsrt_status st;
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(self->lock, WAIT_LOCK);
    st = self->car ? fn(self, args, err) : ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "the CAR file is closed");
    PyThread_release_lock(self->lock);
    Py_END_ALLOW_THREADS
    return st;
}

static PyObject *car_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    static char *names[] = {"path", NULL};
    PyObject *path;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&:CarFile", names, PyUnicode_FSConverter, &path)) return NULL;
    py_car *self = (py_car *)type->tp_alloc(type, 0);
    if (self && !(self->lock = PyThread_allocate_lock())) {
        PyErr_NoMemory();
        Py_CLEAR(self);
    }
    if (self) {
        ipfsrt_error err;
        ipfsrt_status st;
        const char *file = PyBytes_AS_STRING(path);
        Py_BEGIN_ALLOW_THREADS
        st = ipfsrt_car_file_new(&self->car, file, NULL, &err);
        Py_END_ALLOW_THREADS
        if (st != IPFSRT_OK) {
            ipfsrt_py_raise(&err, false);
            Py_CLEAR(self);
        } else {
            ipfsrt_blocksource_car(&self->src, self->car);
        }
    }
    Py_DECREF(path);
    return (PyObject *)self;
}

static void car_dealloc(py_car *self) {
    ipfsrt_car_file_free(self->car);
    if (self->lock) PyThread_free_lock(self->lock);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static ipfsrt_status close_call(py_car *self, void *args, ipfsrt_error *err) {
    (void)args, (void)err;
    ipfsrt_car_file_free(self->car);
    self->car = NULL;
    return IPFSRT_OK;
}

static PyObject *car_close(py_car *self, PyObject *unused) {
    (void)unused;
    ipfsrt_error err;
    run(self, close_call, NULL, &err);
    Py_RETURN_NONE;
}

typedef struct roots_args {
    size_t count;
    char (*cids)[IPFSRT_CID_STR_MAX];
} roots_args;

static ipfsrt_status roots_call(py_car *self, void *args, ipfsrt_error *err) {
    roots_args *a = args;
    const ipfsrt_car_header *h = ipfsrt_car_file_header(self->car);
    a->cids = calloc(h->root_count ? h->root_count : 1, sizeof *a->cids);
    if (!a->cids) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory for the CAR's roots");
    for (a->count = 0; a->count < h->root_count; a->count++) ipfsrt_cid_to_string(&h->roots[a->count], a->cids[a->count]);
    return IPFSRT_OK;
}

/* roots() -> [cid, ...] as the header lists them */
static PyObject *car_roots(py_car *self, PyObject *unused) {
    (void)unused;
    roots_args a = {0};
    ipfsrt_error err;
    if (run(self, roots_call, &a, &err) != IPFSRT_OK) return ipfsrt_py_raise(&err, false);
    PyObject *out = PyList_New((Py_ssize_t)a.count);
    for (size_t i = 0; out && i < a.count; i++) {
        PyObject *cid = PyUnicode_FromString(a.cids[i]);
        if (!cid) Py_CLEAR(out);
        else PyList_SET_ITEM(out, (Py_ssize_t)i, cid);
    }
    free(a.cids);
    return out;
}

typedef struct stat_args {
    const char *path;
    ipfsrt_unixfs_node_info info;
} stat_args;

static ipfsrt_status stat_call(py_car *self, void *args, ipfsrt_error *err) {
    stat_args *a = args;
    return ipfsrt_unixfs_resolve(&self->src, a->path, NULL, &a->info, err);
}

/* stat(path) -> {cid, type, size[, mode, mtime]} */
static PyObject *car_stat(py_car *self, PyObject *args) {
    stat_args a = {0};
    ipfsrt_error err;
    if (!PyArg_ParseTuple(args, "s:stat", &a.path)) return NULL;
    if (run(self, stat_call, &a, &err) != IPFSRT_OK) return ipfsrt_py_raise(&err, false);
    return ipfsrt_py_node_info(&a.info);
}

typedef struct ls_args {
    const char *path;
    int types;
    ipfsrt_py_listing listing;
} ls_args;

static ipfsrt_status ls_call(py_car *self, void *args, ipfsrt_error *err) {
    ls_args *a = args;
    ipfsrt_unixfs_node_info info;
    ipfsrt_status st = ipfsrt_unixfs_resolve(&self->src, a->path, NULL, &info, err);
    if (st != IPFSRT_OK) return st;
    return ipfsrt_unixfs_ls(&self->src, &info.cid, a->types, ipfsrt_py_listing_add, &a->listing, err);
}

/* ls(path, types) -> [{name, cid, tsize[, type, size, problem]}, ...] */
static PyObject *car_ls(py_car *self, PyObject *args) {
    ls_args a = {0};
    ipfsrt_error err;
    if (!PyArg_ParseTuple(args, "sp:ls", &a.path, &a.types)) return NULL;
    if (run(self, ls_call, &a, &err) != IPFSRT_OK) {
        ipfsrt_py_listing_free(&a.listing);
        return ipfsrt_py_raise(&err, false);
    }
    return ipfsrt_py_listing_take(&a.listing);
}

/* The bytes one request names, into out. */
static ipfsrt_status read_range(py_car *self, const ipfsrt_range_request *req, ipfsrt_buf *out, ipfsrt_error *err) {
    ipfsrt_unixfs_node_info info;
    ipfsrt_status st = ipfsrt_unixfs_resolve(&self->src, req->key, NULL, &info, err);
    if (st != IPFSRT_OK) return st;
    uint64_t offset = req->offset, length = req->length;
    if (req->from_end) {
        offset = info.size > req->length ? info.size - req->length : 0;
        length = UINT64_MAX;
    }
    return ipfsrt_unixfs_read(&self->src, &info.cid, offset, length, ipfsrt_py_append, out, err);
}

static ipfsrt_status get_many_call(py_car *self, void *args, ipfsrt_error *err) {
    (void)err;
    ipfsrt_py_reads *reads = args;
    for (size_t i = 0; i < reads->n; i++) {
        ipfsrt_py_slot *slot = &reads->slots[i];
        ipfsrt_buf bytes;
        ipfsrt_buf_init(&bytes);
        slot->status = read_range(self, &reads->requests[i], &bytes, &slot->error);
        if (slot->status != IPFSRT_OK) {
            ipfsrt_buf_free(&bytes);
            continue;
        }
        slot->copy = bytes.data; /* the slot's now */
        slot->data = bytes.data;
        slot->len = bytes.len;
    }
    return IPFSRT_OK;
}

/* get_many([(path, offset, length or None, from_end), ...]) -> [bytes or
 * exception, ...], read one after the other */
static PyObject *car_get_many(py_car *self, PyObject *requests) {
    ipfsrt_py_reads reads;
    if (ipfsrt_py_reads_init(&reads, requests) < 0) return NULL;
    ipfsrt_error err;
    if (run(self, get_many_call, &reads, &err) != IPFSRT_OK) {
        ipfsrt_py_reads_free(&reads);
        return ipfsrt_py_raise(&err, false);
    }
    return ipfsrt_py_reads_take(&reads, false);
}

static PyMethodDef car_methods[] = {
    {"roots", (PyCFunction)car_roots, METH_NOARGS, "roots() -> [cid, ...], as the header lists them"},
    {"stat", (PyCFunction)car_stat, METH_VARARGS, "stat(path) -> {cid, type, size[, mode, mtime]}"},
    {"ls", (PyCFunction)car_ls, METH_VARARGS, "ls(path, types) -> [{name, cid, tsize[, type, size]}, ...]"},
    {"get_many", (PyCFunction)car_get_many, METH_O,
     "get_many([(path, offset, length or None, from_end), ...]) -> [bytes or exception, ...]"},
    {"close", (PyCFunction)car_close, METH_NOARGS, "close(): unmaps the file"},
    {NULL, NULL, 0, NULL},
};

PyTypeObject ipfsrt_py_car_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ipfsrt._ipfsrt.CarFile",
    .tp_basicsize = sizeof(py_car),
    .tp_dealloc = (destructor)car_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "CarFile(path): a CAR file's UnixFS trees, every block hashed as it is read",
    .tp_methods = car_methods,
    .tp_new = car_new,
};
