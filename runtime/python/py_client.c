/* ipfsrt._ipfsrt.Client: a verified gateway client (ipfsrt_client) for
 * Python. Every fetching call releases the GIL and holds the client's own lock
 * (a client serves one thread at a time), so Python threads may share one.
 * The package's ipfsrt.fs checks options and picks defaults before they come
 * here; here they are only typed. */
#include <string.h>
#include <unistd.h>

#include "ipfsrt/lua.h"
#include "py_internal.h"

typedef struct py_client {
    PyObject_HEAD
    ipfsrt_client *client;
    PyThread_type_lock lock;
    pid_t pid;       /* the process that made it: its threads and connections stay there */
    ipfsrt_buf log;  /* what the policy reported, one line each, until take_log */
} py_client;

typedef ipfsrt_status (*client_call)(ipfsrt_client *c, void *args, ipfsrt_error *err);

static uint64_t verify_failures(const ipfsrt_client *c) {
    uint64_t total = 0;
    for (size_t i = 0; i < ipfsrt_client_gateway_count(c); i++) {
        ipfsrt_client_gateway_stats s = IPFSRT_CLIENT_GATEWAY_STATS_INIT;
        ipfsrt_client_get_gateway_stats(c, i, &s);
        total += s.verify_failures;
    }
    return total;
}

/* Runs fn on the client without the GIL, holding the client's lock; lied
 * (NULL for calls that fetch nothing) says whether some gateway's answer
 * failed verification meanwhile (the client's counts: its errors name what
 * each gateway did in words). */
static ipfsrt_status run(py_client *self, client_call fn, void *args, ipfsrt_error *err, bool *lied) {
    ipfsrt_status st;
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(self->lock, WAIT_LOCK);
    if (self->client) {
        uint64_t before = lied ? verify_failures(self->client) : 0;
        st = fn(self->client, args, err);
        if (lied) *lied = verify_failures(self->client) > before;
    } else {
        st = ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "the client is closed");
    }
    PyThread_release_lock(self->lock);
    Py_END_ALLOW_THREADS
    return st;
}

/* A client's threads and connections stay in the process that made it. */
static int check_process(py_client *self) {
    if (self->pid == getpid()) return 0;
    PyErr_SetString(PyExc_RuntimeError, "an ipfsrt client cannot be used after fork(): make a new one");
    return -1;
}

static void log_line(void *user, const char *line) {
    py_client *self = user;
    ipfsrt_buf_append(&self->log, line, strlen(line));
    ipfsrt_buf_append(&self->log, "\n", 1);
}

/* The gateways a sequence of URLs names (None: the user's defaults, later). */
static int gateway_list(PyObject *urls, ipfsrt_gateway_list *list, ipfsrt_error *err) {
    if (urls == Py_None) return 0;
    PyObject *seq = PySequence_Fast(urls, "gateways must be a list of URLs");
    if (!seq) return -1;
    int rc = 0;
    for (Py_ssize_t i = 0; rc == 0 && i < PySequence_Fast_GET_SIZE(seq); i++) {
        PyObject *url = PySequence_Fast_GET_ITEM(seq, i);
        const char *s = PyUnicode_Check(url) ? PyUnicode_AsUTF8(url) : NULL;
        if (!s) {
            if (!PyErr_Occurred()) PyErr_Format(PyExc_TypeError, "gateways[%zd] is not a URL", i);
            rc = -1;
        } else if (ipfsrt_gateway_list_add(list, s, err) != IPFSRT_OK) {
            ipfsrt_py_raise(err, false);
            rc = -1;
        }
    }
    Py_DECREF(seq);
    return rc;
}

/* Sets the Lua policy spec names (a built-in name or a FILE.lua). */
static int set_policy(py_client *self, const char *spec, int trusted, ipfsrt_error *err) {
    ipfsrt_lua_policy_options po;
    ipfsrt_lua_policy_options_init(&po);
    po.log = log_line;
    po.log_user = self;
    po.trusted = trusted;
    ipfsrt_policy policy;
    if (ipfsrt_lua_policy_new(&policy, spec, self->client, &po, err) != IPFSRT_OK ||
        ipfsrt_client_set_policy(self->client, &policy, err) != IPFSRT_OK) {
        ipfsrt_py_raise(err, false);
        return -1;
    }
    return 0;
}

static PyObject *client_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    static char *names[] = {"gateways", "policy", "trusted_policy", "verify", "cache_dir", "cache_trust",
                            "cache_size", "cache_memory", "concurrency", "max_concurrency", "retries",
                            "timeout", "deadline", "give_up", "min_rate", "threads", "cacert", NULL};
    PyObject *urls = Py_None;
    const char *spec = NULL;
    int trusted = 0, verify = 1, cache_trust = 0;
    ipfsrt_client_options o;
    ipfsrt_client_options_init(&o);
    unsigned long long cache_size = 0, cache_memory = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$OzppzpKKIIIddddIz:Client", names, &urls, &spec, &trusted, &verify,
                                     &o.cache_dir, &cache_trust, &cache_size, &cache_memory, &o.concurrency,
                                     &o.max_concurrency, &o.retries, &o.timeout_s, &o.deadline_s, &o.give_up_s,
                                     &o.min_rate, &o.threads, &o.ca_file))
        return NULL;
    o.no_verify = !verify;
    o.trust_cache_dir = cache_trust;
    o.cache_dir_bytes = cache_size;
    o.cache_bytes = cache_memory;
    ipfsrt_gateway_list list;
    ipfsrt_gateway_list_init(&list);
    ipfsrt_error err;
    py_client *self = NULL;
    if (gateway_list(urls, &list, &err) < 0) goto done;
    o.gateways = &list;
    self = (py_client *)type->tp_alloc(type, 0);
    if (!self) goto done;
    ipfsrt_buf_init(&self->log);
    self->pid = getpid();
    self->lock = PyThread_allocate_lock();
    if (!self->lock) {
        PyErr_NoMemory();
        Py_CLEAR(self);
    } else if (ipfsrt_client_new(&self->client, &o, &err) != IPFSRT_OK) {
        ipfsrt_py_raise(&err, false);
        Py_CLEAR(self);
    } else if (spec && set_policy(self, spec, trusted, &err) < 0) {
        Py_CLEAR(self);
    }
done:
    ipfsrt_gateway_list_free(&list);
    return (PyObject *)self;
}

static void client_dealloc(py_client *self) {
    /* after a fork the client's threads are the parent's: its memory is left */
    if (self->pid == getpid()) ipfsrt_client_free(self->client);
    if (self->lock) PyThread_free_lock(self->lock);
    ipfsrt_buf_free(&self->log);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static ipfsrt_status close_call(ipfsrt_client *c, void *args, ipfsrt_error *err) {
    (void)err;
    ipfsrt_client_free(c);
    *(ipfsrt_client **)args = NULL;
    return IPFSRT_OK;
}

static PyObject *client_close(py_client *self, PyObject *unused) {
    (void)unused;
    if (check_process(self) < 0) return NULL;
    ipfsrt_error err;
    if (self->client) run(self, close_call, &self->client, &err, NULL);
    Py_RETURN_NONE;
}

typedef struct stat_args {
    const char *path;
    ipfsrt_unixfs_node_info info;
} stat_args;

static ipfsrt_status stat_call(ipfsrt_client *c, void *args, ipfsrt_error *err) {
    stat_args *a = args;
    return ipfsrt_client_stat(c, a->path, &a->info, err);
}

/* stat(path) -> {cid, type, size[, mode, mtime]} */
static PyObject *client_stat(py_client *self, PyObject *args) {
    stat_args a = {0};
    ipfsrt_error err;
    bool lied = false;
    if (!PyArg_ParseTuple(args, "s:stat", &a.path) || check_process(self) < 0) return NULL;
    if (run(self, stat_call, &a, &err, &lied) != IPFSRT_OK) return ipfsrt_py_raise(&err, lied);
    return ipfsrt_py_node_info(&a.info);
}

typedef struct ls_args {
    const char *path;
    int types;
    ipfsrt_py_listing listing;
} ls_args;

static ipfsrt_status ls_call(ipfsrt_client *c, void *args, ipfsrt_error *err) {
    ls_args *a = args;
    return ipfsrt_client_ls(c, a->path, a->types, ipfsrt_py_listing_add, &a->listing, err);
}

/* ls(path, types) -> [{name, cid, tsize[, type, size, problem]}, ...] */
static PyObject *client_ls(py_client *self, PyObject *args) {
    ls_args a = {0};
    ipfsrt_error err;
    bool lied = false;
    if (!PyArg_ParseTuple(args, "sp:ls", &a.path, &a.types) || check_process(self) < 0) return NULL;
    if (run(self, ls_call, &a, &err, &lied) != IPFSRT_OK) {
        ipfsrt_py_listing_free(&a.listing);
        return ipfsrt_py_raise(&err, lied);
    }
    return ipfsrt_py_listing_take(&a.listing);
}

static ipfsrt_status get_many_call(ipfsrt_client *c, void *args, ipfsrt_error *err) {
    ipfsrt_py_reads *reads = args;
    return ipfsrt_client_get_many(c, reads->requests, reads->n, ipfsrt_py_reads_keep, reads, err);
}

/* get_many([(path, offset, length or None, from_end), ...]) -> [bytes or
 * exception, ...]: one batch, every read in flight at once, verified */
static PyObject *client_get_many(py_client *self, PyObject *requests) {
    ipfsrt_py_reads reads;
    if (check_process(self) < 0 || ipfsrt_py_reads_init(&reads, requests) < 0) return NULL;
    ipfsrt_error err;
    bool lied = false;
    if (run(self, get_many_call, &reads, &err, &lied) != IPFSRT_OK) {
        ipfsrt_py_reads_free(&reads);
        return ipfsrt_py_raise(&err, lied);
    }
    return ipfsrt_py_reads_take(&reads, lied);
}

typedef struct stats_args {
    size_t count;
    ipfsrt_client_gateway_stats stats[IPFSRT_MAX_GATEWAYS];
    char urls[IPFSRT_MAX_GATEWAYS][512];
    char source[sizeof ((ipfsrt_gateway_list *)0)->source];
} stats_args;

static ipfsrt_status stats_call(ipfsrt_client *c, void *args, ipfsrt_error *err) {
    (void)err;
    stats_args *a = args;
    a->count = ipfsrt_client_gateway_count(c);
    if (a->count > IPFSRT_MAX_GATEWAYS) a->count = IPFSRT_MAX_GATEWAYS; /* a list holds no more */
    for (size_t i = 0; i < a->count; i++) {
        a->stats[i] = (ipfsrt_client_gateway_stats)IPFSRT_CLIENT_GATEWAY_STATS_INIT;
        ipfsrt_client_get_gateway_stats(c, i, &a->stats[i]);
        snprintf(a->urls[i], sizeof a->urls[i], "%s", ipfsrt_client_gateway_url(c, i));
    }
    snprintf(a->source, sizeof a->source, "%s", ipfsrt_client_gateway_source(c));
    return IPFSRT_OK;
}

/* What each gateway has done and where the list came from, read under the
 * client's lock; NULL with an exception set on failure (PyMem_Free it). */
static stats_args *gather_stats(py_client *self) {
    stats_args *a = PyMem_Calloc(1, sizeof *a);
    ipfsrt_error err;
    if (!a) return (stats_args *)PyErr_NoMemory();
    if (check_process(self) < 0) {
        PyMem_Free(a);
        return NULL;
    }
    if (run(self, stats_call, a, &err, NULL) != IPFSRT_OK) {
        PyMem_Free(a);
        return (stats_args *)ipfsrt_py_raise(&err, false);
    }
    return a;
}

static PyObject *errors_dict(const ipfsrt_client_gateway_stats *s) {
    PyObject *d = PyDict_New();
    for (int k = IPFSRT_GWERR_NONE + 1; d && k < IPFSRT_GWERR_COUNT; k++) {
        PyObject *n = s->errors[k] ? PyLong_FromUnsignedLongLong(s->errors[k]) : NULL;
        if (s->errors[k] && (!n || PyDict_SetItemString(d, ipfsrt_gateway_error_name(k), n) < 0)) Py_CLEAR(d);
        Py_XDECREF(n);
    }
    return d;
}

/* stats() -> [{url, requests, ok, bytes, verify_failures, errors, latency}, ...] per gateway */
static PyObject *client_stats(py_client *self, PyObject *unused) {
    (void)unused;
    stats_args *a = gather_stats(self);
    if (!a) return NULL;
    PyObject *out = PyList_New((Py_ssize_t)a->count);
    for (size_t i = 0; out && i < a->count; i++) {
        const ipfsrt_client_gateway_stats *s = &a->stats[i];
        PyObject *d = Py_BuildValue("{s:s,s:K,s:K,s:K,s:K,s:N,s:(ddd)}", "url", a->urls[i], "requests",
                                    (unsigned long long)s->requests, "ok", (unsigned long long)s->ok, "bytes",
                                    (unsigned long long)s->bytes, "verify_failures",
                                    (unsigned long long)s->verify_failures, "errors", errors_dict(s), "latency",
                                    s->latency_p50_s, s->latency_p90_s, s->latency_p99_s);
        if (!d) Py_CLEAR(out);
        else PyList_SET_ITEM(out, (Py_ssize_t)i, d);
    }
    PyMem_Free(a);
    return out;
}

typedef struct take_log_args {
    py_client *self;
    ipfsrt_buf lines;
} take_log_args;

static ipfsrt_status take_log_call(ipfsrt_client *c, void *args, ipfsrt_error *err) {
    (void)c, (void)err;
    take_log_args *a = args;
    a->lines = a->self->log;
    ipfsrt_buf_init(&a->self->log);
    return IPFSRT_OK;
}

/* take_log() -> [line, ...]: what the policy reported since the last call */
static PyObject *client_take_log(py_client *self, PyObject *unused) {
    (void)unused;
    take_log_args a = {self, {0}};
    ipfsrt_error err;
    if (check_process(self) < 0) return NULL;
    run(self, take_log_call, &a, &err, NULL);
    PyObject *text = PyUnicode_DecodeUTF8((const char *)a.lines.data, (Py_ssize_t)a.lines.len, "replace");
    ipfsrt_buf_free(&a.lines);
    if (!text) return NULL;
    PyObject *lines = PyUnicode_Splitlines(text, 0);
    Py_DECREF(text);
    return lines;
}

/* gateways() -> ([url, ...], source): a password in a URL shown as *** */
static PyObject *client_gateways(py_client *self, PyObject *unused) {
    (void)unused;
    stats_args *a = gather_stats(self);
    if (!a) return NULL;
    PyObject *urls = PyList_New(0);
    for (size_t i = 0; urls && i < a->count; i++) {
        PyObject *url = PyUnicode_FromString(a->urls[i]);
        if (!url || PyList_Append(urls, url) < 0) Py_CLEAR(urls);
        Py_XDECREF(url);
    }
    PyObject *out = urls ? Py_BuildValue("(Ns)", urls, a->source) : NULL;
    PyMem_Free(a);
    return out;
}

static PyObject *client_verifies(py_client *self, void *unused) {
    (void)unused;
    return PyBool_FromLong(self->client && ipfsrt_client_verifies(self->client));
}

static PyMethodDef client_methods[] = {
    {"stat", (PyCFunction)client_stat, METH_VARARGS, "stat(path) -> {cid, type, size[, mode, mtime]}"},
    {"ls", (PyCFunction)client_ls, METH_VARARGS,
     "ls(path, types) -> [{name, cid, tsize[, type, size, problem]}, ...], types looked up when asked"},
    {"get_many", (PyCFunction)client_get_many, METH_O,
     "get_many([(path, offset, length or None, from_end), ...]) -> [bytes or exception, ...], one batch"},
    {"stats", (PyCFunction)client_stats, METH_NOARGS, "stats() -> what each gateway has done, in order"},
    {"gateways", (PyCFunction)client_gateways, METH_NOARGS, "gateways() -> ([url, ...], where they came from)"},
    {"take_log", (PyCFunction)client_take_log, METH_NOARGS, "take_log() -> the policy's lines since the last call"},
    {"close", (PyCFunction)client_close, METH_NOARGS, "close(): stops the client's threads and connections"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef client_getset[] = {
    {"verifies", (getter)client_verifies, NULL, "whether every byte it hands out was verified", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject ipfsrt_py_client_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ipfsrt._ipfsrt.Client",
    .tp_basicsize = sizeof(py_client),
    .tp_dealloc = (destructor)client_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Client(*, gateways, policy, ...): libipfsrt's verified gateway client (see ipfsrt.fs for the options)",
    .tp_methods = client_methods,
    .tp_getset = client_getset,
    .tp_new = client_new,
};
