/* The extension module ipfsrt._ipfsrt: its types (Client, CarFile), its
 * exceptions, and how a failed call becomes a Python exception. The package
 * ipfsrt (runtime/python/ipfsrt/) checks options and builds the fsspec
 * filesystems on it; nothing here speaks a protocol of its own. */
#include <errno.h>

#include "py_internal.h"

PyObject *ipfsrt_py_error;
PyObject *ipfsrt_py_verification_error;

/* The built-in exception a status means in Python, or NULL for ipfsrt.Error. */
static PyObject *builtin_for(ipfsrt_status code, int *errnum) {
    switch (code) {
    case IPFSRT_ENOT_FOUND: *errnum = ENOENT; return PyExc_FileNotFoundError;
    case IPFSRT_ENOT_DIRECTORY: *errnum = ENOTDIR; return PyExc_NotADirectoryError;
    case IPFSRT_ENOT_FILE: *errnum = EISDIR; return PyExc_IsADirectoryError;
    case IPFSRT_ETIMED_OUT: *errnum = ETIMEDOUT; return PyExc_TimeoutError;
    default: return NULL;
    }
}

static int set_string(PyObject *obj, const char *name, const char *value) {
    PyObject *s = PyUnicode_FromString(value);
    int rc = s ? PyObject_SetAttrString(obj, name, s) : -1;
    Py_XDECREF(s);
    return rc;
}

/* Sets code (the status's name) and cid ("" when none) on an exception. */
static PyObject *with_details(PyObject *exc, const ipfsrt_error *err) {
    if (!exc) return NULL;
    if (set_string(exc, "code", ipfsrt_status_name(err->code)) < 0 || set_string(exc, "cid", err->cid) < 0) {
        Py_DECREF(exc);
        return NULL;
    }
    return exc;
}

PyObject *ipfsrt_py_exception(const ipfsrt_error *err, bool lied) {
    if (err->code == IPFSRT_EOUT_OF_MEMORY) return PyObject_CallFunction(PyExc_MemoryError, "s", err->message);
    /* a multibase string is only ever the caller's (blocks hold binary CIDs) */
    if (err->code == IPFSRT_EBAD_ARGUMENT || err->code == IPFSRT_EBAD_CID || err->code == IPFSRT_EBAD_MULTIBASE)
        return with_details(PyObject_CallFunction(PyExc_ValueError, "s", err->message), err);
    if (err->code == IPFSRT_EHASH_MISMATCH || (lied && err->code == IPFSRT_EFETCH_FAILED))
        return with_details(PyObject_CallFunction(ipfsrt_py_verification_error, "s", err->message), err);
    int errnum = EIO;
    PyObject *type = builtin_for(err->code, &errnum);
    if (type) return with_details(PyObject_CallFunction(type, "is", errnum, err->message), err);
    return with_details(PyObject_CallFunction(ipfsrt_py_error, "s", err->message), err);
}

PyObject *ipfsrt_py_raise(const ipfsrt_error *err, bool lied) {
    PyObject *exc = ipfsrt_py_exception(err, lied);
    if (exc) {
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
        Py_DECREF(exc);
    }
    return NULL;
}

/* _ipfsrt.default_gateways() -> (urls, source): IPFS_GATEWAY, else the
 * IPIP-280 files, else public gateways, as the CLI reads them. */
static PyObject *default_gateways(PyObject *module, PyObject *unused) {
    (void)module, (void)unused;
    ipfsrt_gateway_list list;
    ipfsrt_gateway_list_init(&list);
    ipfsrt_error err;
    if (ipfsrt_gateway_list_default(&list, &err) != IPFSRT_OK) {
        ipfsrt_gateway_list_free(&list);
        return ipfsrt_py_raise(&err, false);
    }
    PyObject *urls = PyList_New((Py_ssize_t)list.count);
    for (size_t i = 0; urls && i < list.count; i++) {
        PyObject *url = PyUnicode_FromString(list.urls[i]);
        if (!url) Py_CLEAR(urls);
        else PyList_SET_ITEM(urls, (Py_ssize_t)i, url);
    }
    PyObject *out = urls ? Py_BuildValue("(Ns)", urls, list.source) : NULL;
    ipfsrt_gateway_list_free(&list);
    return out;
}

static PyMethodDef module_methods[] = {
    {"default_gateways", default_gateways, METH_NOARGS,
     "default_gateways() -> (urls, source): the gateways a user configured, as the CLI finds them"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "ipfsrt._ipfsrt",
    "libipfsrt's verified client and CAR reader (use the package ipfsrt)", -1, module_methods,
    NULL, NULL, NULL, NULL,
};

static int add_exceptions(PyObject *m) {
    ipfsrt_py_error = PyErr_NewExceptionWithDoc(
        "ipfsrt.Error", "A read failed: no gateway delivered, or the data is malformed (code, cid say which)",
        PyExc_OSError, NULL);
    if (!ipfsrt_py_error || PyModule_AddObjectRef(m, "Error", ipfsrt_py_error) < 0) return -1;
    ipfsrt_py_verification_error = PyErr_NewExceptionWithDoc(
        "ipfsrt.VerificationError", "Bytes failed their check against their CID, and no gateway sent good ones",
        ipfsrt_py_error, NULL);
    if (!ipfsrt_py_verification_error ||
        PyModule_AddObjectRef(m, "VerificationError", ipfsrt_py_verification_error) < 0)
        return -1;
    return 0;
}

PyMODINIT_FUNC PyInit__ipfsrt(void) {
    if (PyType_Ready(&ipfsrt_py_client_type) < 0 || PyType_Ready(&ipfsrt_py_car_type) < 0) return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m) return NULL;
    if (add_exceptions(m) < 0 || PyModule_AddObjectRef(m, "Client", (PyObject *)&ipfsrt_py_client_type) < 0 ||
        PyModule_AddObjectRef(m, "CarFile", (PyObject *)&ipfsrt_py_car_type) < 0 ||
        PyModule_AddStringConstant(m, "version", IPFSRT_VERSION_STRING) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
