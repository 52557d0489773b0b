/* Reductions of numbers and n-d arrays across ranks, and n-d arrays sent from
 * one rank to all. Arrays travel as their C-order bytes, in pieces MPI can
 * count; before an array reduction the ranks compare dtype and element count,
 * so that a mismatch is an error on every rank instead of a hang or garbage. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "mpi_internal.h"

#define PIECE ((size_t)1 << 30) /* elements per MPI call: counts are ints */

enum { OP_SUM, OP_PROD, OP_MIN, OP_MAX };
static const char *const op_names[] = {"sum", "prod", "min", "max", NULL};

/* min and max of floats leave NaN out (fmin/fmax), as the array reductions do */
static MPI_Op nan_min = MPI_OP_NULL, nan_max = MPI_OP_NULL;

static void float_minmax(void *in, void *inout, int *len, MPI_Datatype *type, bool want_max) {
    if (*type == MPI_FLOAT) {
        const float *a = in;
        float *b = inout;
        for (int i = 0; i < *len; i++) b[i] = want_max ? fmaxf(a[i], b[i]) : fminf(a[i], b[i]);
    } else {
        const double *a = in;
        double *b = inout;
        for (int i = 0; i < *len; i++) b[i] = want_max ? fmax(a[i], b[i]) : fmin(a[i], b[i]);
    }
}

static void op_nan_min(void *in, void *inout, int *len, MPI_Datatype *type) {
    float_minmax(in, inout, len, type, false);
}

static void op_nan_max(void *in, void *inout, int *len, MPI_Datatype *type) {
    float_minmax(in, inout, len, type, true);
}

static MPI_Op mpi_op(int op, bool is_float) {
    switch (op) {
    case OP_SUM: return MPI_SUM;
    case OP_PROD: return MPI_PROD;
    case OP_MIN: return is_float ? nan_min : MPI_MIN;
    default: return is_float ? nan_max : MPI_MAX;
    }
}

static MPI_Datatype mpi_type(ipfsrt_dtype d) {
    switch (d) {
    case IPFSRT_DTYPE_INT8: return MPI_INT8_T;
    case IPFSRT_DTYPE_INT16: return MPI_INT16_T;
    case IPFSRT_DTYPE_INT32: return MPI_INT32_T;
    case IPFSRT_DTYPE_INT64: return MPI_INT64_T;
    case IPFSRT_DTYPE_UINT8: return MPI_UINT8_T;
    case IPFSRT_DTYPE_UINT16: return MPI_UINT16_T;
    case IPFSRT_DTYPE_UINT32: return MPI_UINT32_T;
    case IPFSRT_DTYPE_UINT64: return MPI_UINT64_T;
    case IPFSRT_DTYPE_FLOAT32: return MPI_FLOAT;
    case IPFSRT_DTYPE_FLOAT64: return MPI_DOUBLE;
    default: return MPI_DATATYPE_NULL;
    }
}

/* One reduction call, waited for; root < 0: every rank gets the result. */
static int reduce_buf(const void *send, void *recv, size_t n, MPI_Datatype type, MPI_Op op, int root) {
    int size;
    MPI_Type_size(type, &size);
    for (size_t at = 0; at < n; at += PIECE) {
        int count = (int)(n - at < PIECE ? n - at : PIECE);
        const char *s = (const char *)send + at * (size_t)size;
        char *r = recv ? (char *)recv + at * (size_t)size : NULL;
        MPI_Request req;
        int rc = root < 0 ? MPI_Iallreduce(s, r, count, type, op, MPI_COMM_WORLD, &req)
                          : MPI_Ireduce(s, r, count, type, op, root, MPI_COMM_WORLD, &req);
        if (rc == MPI_SUCCESS) rc = ipfsrt_mpi_wait(&req);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

/* A Lua number: integers in 64 bits (exact, whatever the order), floats in
 * double; a float on any rank makes it a float on all. */
static int reduce_number(lua_State *L, int op, int root, bool mine) {
    int64_t is_float = !lua_isinteger(L, 1), any_float = 0;
    int rc = reduce_buf(&is_float, &any_float, 1, MPI_INT64_T, MPI_MAX, -1);
    if (rc == MPI_SUCCESS && any_float) {
        double v = lua_tonumber(L, 1), out = 0;
        rc = reduce_buf(&v, &out, 1, MPI_DOUBLE, mpi_op(op, true), root);
        if (mine) lua_pushnumber(L, out);
    } else if (rc == MPI_SUCCESS) {
        int64_t v = (int64_t)lua_tointeger(L, 1), out = 0;
        rc = reduce_buf(&v, &out, 1, MPI_INT64_T, mpi_op(op, false), root);
        if (mine) lua_pushinteger(L, (lua_Integer)out);
    }
    if (rc != MPI_SUCCESS) return ipfsrt_mpi_raise(L, rc, "reduce");
    return mine ? 1 : 0;
}

/* Every rank's dtype and element count equal: each learns the smallest and
 * largest of both. */
static bool same_everywhere(lua_State *L, const ipfsrt_ndarray *a) {
    int64_t mine[4] = {(int64_t)a->dtype, (int64_t)ipfsrt_mpi_api->ndarray_size(a), -(int64_t)a->dtype,
                       -(int64_t)ipfsrt_mpi_api->ndarray_size(a)};
    int64_t low[4];
    int rc = reduce_buf(mine, low, 4, MPI_INT64_T, MPI_MIN, -1);
    if (rc != MPI_SUCCESS) ipfsrt_mpi_raise(L, rc, "reduce");
    return low[0] == -low[2] && low[1] == -low[3];
}

static int reduce_array(lua_State *L, ipfsrt_ndarray *x, int op, int root, bool mine) {
    const ipfsrt_lua_api *api = ipfsrt_mpi_api;
    if (!same_everywhere(L, x))
        return ipfsrt_mpi_fail(L, IPFSRT_EBAD_ARGUMENT, "reduce: the ranks' arrays differ in dtype or size");
    MPI_Datatype type = mpi_type(x->dtype);
    if (type == MPI_DATATYPE_NULL)
        return ipfsrt_mpi_fail(L, IPFSRT_EBAD_ARGUMENT, "reduce: %s arrays are not reduced (numbers only)",
                               api->dtype_name(x->dtype));
    ipfsrt_error err;
    ipfsrt_ndarray in, out;
    api->ndarray_init(&in);
    api->ndarray_init(&out);
    const ipfsrt_ndarray *src = x;
    ipfsrt_status st = IPFSRT_OK;
    if (!api->ndarray_is_contiguous(x) && (st = api->ndarray_copy(&in, x, &err)) == IPFSRT_OK) src = &in;
    if (st == IPFSRT_OK && mine) st = api->ndarray_zeros(&out, x->dtype, x->itemsize, x->ndim, x->shape, &err);
    if (st != IPFSRT_OK) {
        api->ndarray_free(&in);
        return api->raise(L, &err);
    }
    bool is_float = x->dtype == IPFSRT_DTYPE_FLOAT32 || x->dtype == IPFSRT_DTYPE_FLOAT64;
    int rc = reduce_buf(src->data, mine ? out.data : NULL, api->ndarray_size(x), type, mpi_op(op, is_float), root);
    api->ndarray_free(&in);
    if (rc != MPI_SUCCESS) {
        api->ndarray_free(&out);
        return ipfsrt_mpi_raise(L, rc, "reduce");
    }
    if (!mine) return 0;
    api->push_ndarray(L, &out);
    return 1;
}

/* root < 0: every rank gets the result */
static int reduce_any(lua_State *L, int root) {
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (root >= ipfsrt_mpi_size()) return ipfsrt_mpi_fail(L, IPFSRT_EBAD_ARGUMENT, "reduce: no rank %d", root);
    int op = luaL_checkoption(L, 2, "sum", op_names);
    bool mine = root < 0 || rank == root;
    ipfsrt_ndarray *x = ipfsrt_mpi_api->test_ndarray(L, 1);
    if (x) return reduce_array(L, x, op, root, mine);
    luaL_checknumber(L, 1);
    return reduce_number(L, op, root, mine);
}

/* allreduce(x, op): x a number or an n-d array, op sum | prod | min | max */
static int l_allreduce(lua_State *L) { return reduce_any(L, -1); }

/* reduce(x, op, root): the result at root, nothing elsewhere */
static int l_reduce(lua_State *L) {
    int root = (int)luaL_checkinteger(L, 3);
    return root < 0 ? ipfsrt_mpi_fail(L, IPFSRT_EBAD_ARGUMENT, "reduce: no rank %d", root) : reduce_any(L, root);
}

/* bcast_array(x | nil, root) -> root's n-d array on every rank */
static int l_bcast_array(lua_State *L) {
    const ipfsrt_lua_api *api = ipfsrt_mpi_api;
    int root = (int)luaL_checkinteger(L, 2), rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (root < 0 || root >= ipfsrt_mpi_size()) return ipfsrt_mpi_fail(L, IPFSRT_EBAD_ARGUMENT, "bcast: no rank %d", root);
    ipfsrt_ndarray *x = rank == root ? api->test_ndarray(L, 1) : NULL;
    if (rank == root && !x) return ipfsrt_mpi_fail(L, IPFSRT_EBAD_ARGUMENT, "bcast_array: the root's value is not an n-d array");
    int64_t head[3 + IPFSRT_NDARRAY_MAX_DIMS] = {0};
    if (x) {
        head[0] = x->dtype, head[1] = (int64_t)x->itemsize, head[2] = x->ndim;
        for (int i = 0; i < x->ndim; i++) head[3 + i] = (int64_t)x->shape[i];
    }
    MPI_Request req;
    int rc = MPI_Ibcast(head, 3 + IPFSRT_NDARRAY_MAX_DIMS, MPI_INT64_T, root, MPI_COMM_WORLD, &req);
    if (rc == MPI_SUCCESS) rc = ipfsrt_mpi_wait(&req);
    if (rc != MPI_SUCCESS) return ipfsrt_mpi_raise(L, rc, "bcast");
    ipfsrt_ndarray a;
    api->ndarray_init(&a);
    size_t shape[IPFSRT_NDARRAY_MAX_DIMS];
    for (int i = 0; i < head[2]; i++) shape[i] = (size_t)head[3 + i];
    ipfsrt_error err;
    ipfsrt_dtype dtype = (ipfsrt_dtype)head[0];
    ipfsrt_status st = x ? api->ndarray_copy(&a, x, &err)
                         : api->ndarray_zeros(&a, dtype, (size_t)head[1], (int)head[2], shape, &err);
    if (st != IPFSRT_OK) return api->raise(L, &err); /* the job ends with this error: the others wait */
    size_t bytes = api->ndarray_size(&a) * a.itemsize;
    for (size_t at = 0; at < bytes && rc == MPI_SUCCESS; at += PIECE) {
        rc = MPI_Ibcast(a.data + at, (int)(bytes - at < PIECE ? bytes - at : PIECE), MPI_BYTE, root, MPI_COMM_WORLD,
                        &req);
        if (rc == MPI_SUCCESS) rc = ipfsrt_mpi_wait(&req);
    }
    if (rc != MPI_SUCCESS) {
        api->ndarray_free(&a);
        return ipfsrt_mpi_raise(L, rc, "bcast");
    }
    api->push_ndarray(L, &a);
    return 1;
}

void ipfsrt_mpi_open_reduce(lua_State *L) {
    if (nan_min == MPI_OP_NULL) {
        MPI_Op_create(op_nan_min, 1, &nan_min);
        MPI_Op_create(op_nan_max, 1, &nan_max);
    }
    static const luaL_Reg fns[] = {{"allreduce", l_allreduce}, {"reduce", l_reduce}, {"bcast_array", l_bcast_array},
                                   {NULL, NULL}};
    luaL_setfuncs(L, fns, 0);
}
