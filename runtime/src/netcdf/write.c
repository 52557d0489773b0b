/* NetCDF-4 files through libnetcdf: each call checked and its error named
 * (the file, the variable, the attribute); the file written beside its path
 * and renamed into place when finished. */
#include <cjson/cJSON.h>
#include <math.h>
#include <netcdf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipfsrt/netcdf.h"
#include "base/base_internal.h"

struct ipfsrt_netcdf_writer {
    int ncid;
    bool open, replace;
    char *path, *part;
};

static ipfsrt_status nc_fail(ipfsrt_error *err, int status, const char *path, const char *what, const char *name) {
    return ipfsrt_fail(err, IPFSRT_EIO, -1, "%s: %s %s: %s", path, what, name ? name : "", nc_strerror(status));
}

ipfsrt_status ipfsrt_netcdf_writer_new(ipfsrt_netcdf_writer **out, const char *path, bool replace, ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    IPFSRT_NEED(path, err);
    if (!replace && access(path, F_OK) == 0)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s exists (replace it: mode \"w\")", path);
    ipfsrt_netcdf_writer *w = calloc(1, sizeof *w);
    size_t n = strlen(path) + 32;
    if (w) w->path = strdup(path), w->part = malloc(n);
    if (!w || !w->path || !w->part) {
        ipfsrt_netcdf_writer_free(w);
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    }
    snprintf(w->part, n, "%s.part-%ld", path, (long)getpid());
    int st = nc_create(w->part, NC_NETCDF4 | NC_CLOBBER, &w->ncid);
    if (st != NC_NOERR) {
        ipfsrt_status r = nc_fail(err, st, path, "create", NULL);
        ipfsrt_netcdf_writer_free(w);
        return r;
    }
    w->open = true, w->replace = replace;
    *out = w;
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_netcdf_writer_dim(ipfsrt_netcdf_writer *w, const char *name, size_t len, ipfsrt_error *err) {
    IPFSRT_NEED(w, err);
    int id, st = nc_def_dim(w->ncid, name, len, &id);
    return st == NC_NOERR ? IPFSRT_OK : nc_fail(err, st, w->path, "dimension", name);
}

static nc_type nc_type_of(ipfsrt_dtype d) {
    switch (d) {
    case IPFSRT_DTYPE_BOOL:
    case IPFSRT_DTYPE_INT8: return NC_BYTE;
    case IPFSRT_DTYPE_UINT8: return NC_UBYTE;
    case IPFSRT_DTYPE_INT16: return NC_SHORT;
    case IPFSRT_DTYPE_UINT16: return NC_USHORT;
    case IPFSRT_DTYPE_INT32: return NC_INT;
    case IPFSRT_DTYPE_UINT32: return NC_UINT;
    case IPFSRT_DTYPE_INT64: return NC_INT64;
    case IPFSRT_DTYPE_UINT64: return NC_UINT64;
    case IPFSRT_DTYPE_FLOAT32: return NC_FLOAT;
    case IPFSRT_DTYPE_FLOAT64: return NC_DOUBLE;
    default: return NC_NAT;
    }
}

/* One attribute of varid (NC_GLOBAL: the file's): a fill value in the
 * variable's own type, text, a whole number as an int, numbers as doubles. */
static int put_attribute(int ncid, int varid, nc_type type, const cJSON *a) {
    if (strcmp(a->string, "_FillValue") == 0 && cJSON_IsNumber(a) && varid != NC_GLOBAL)
        return nc_put_att_double(ncid, varid, a->string, type, 1, &a->valuedouble);
    if (cJSON_IsString(a)) return nc_put_att_text(ncid, varid, a->string, strlen(a->valuestring), a->valuestring);
    if (cJSON_IsBool(a)) {
        signed char b = cJSON_IsTrue(a);
        return nc_put_att_schar(ncid, varid, a->string, NC_BYTE, 1, &b);
    }
    if (cJSON_IsNumber(a)) {
        double v = a->valuedouble;
        if (v == trunc(v) && fabs(v) < 2147483648.0) {
            int i = (int)v;
            return nc_put_att_int(ncid, varid, a->string, NC_INT, 1, &i);
        }
        return nc_put_att_double(ncid, varid, a->string, NC_DOUBLE, 1, &v);
    }
    if (cJSON_IsArray(a)) {
        int n = cJSON_GetArraySize(a);
        double *v = malloc((size_t)(n ? n : 1) * sizeof *v);
        if (!v) return NC_ENOMEM;
        int i = 0;
        const cJSON *e;
        cJSON_ArrayForEach(e, a) v[i++] = cJSON_IsNumber(e) ? e->valuedouble : NAN;
        int st = nc_put_att_double(ncid, varid, a->string, NC_DOUBLE, (size_t)n, v);
        free(v);
        return st;
    }
    return NC_NOERR; /* null and nested objects: no NetCDF attribute holds them */
}

static ipfsrt_status put_attributes(ipfsrt_netcdf_writer *w, int varid, nc_type type, const char *name,
                                    const char *json, ipfsrt_error *err) {
    if (!json) return IPFSRT_OK;
    cJSON *attrs = cJSON_Parse(json);
    if (!attrs || !cJSON_IsObject(attrs)) {
        cJSON_Delete(attrs);
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: the attributes of %s are no JSON object", w->path, name);
    }
    ipfsrt_status r = IPFSRT_OK;
    const cJSON *a;
    cJSON_ArrayForEach(a, attrs) {
        int st = put_attribute(w->ncid, varid, type, a);
        if (st != NC_NOERR) {
            r = ipfsrt_fail(err, IPFSRT_EIO, -1, "%s: %s, attribute %s: %s", w->path, name, a->string, nc_strerror(st));
            break;
        }
    }
    cJSON_Delete(attrs);
    return r;
}

/* The ids of dims, each checked against values' shape. */
static ipfsrt_status dim_ids(ipfsrt_netcdf_writer *w, const char *name, const char *const *dims, int ndim,
                             const ipfsrt_ndarray *values, int *ids, ipfsrt_error *err) {
    if (ndim != values->ndim)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: %s has %d dimensions and values of %d", w->path, name, ndim,
                           values->ndim);
    for (int d = 0; d < ndim; d++) {
        size_t len;
        int st = nc_inq_dimid(w->ncid, dims[d], &ids[d]);
        if (st == NC_NOERR) st = nc_inq_dimlen(w->ncid, ids[d], &len);
        if (st != NC_NOERR) return nc_fail(err, st, w->path, "dimension", dims[d]);
        if (len != values->shape[d])
            return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: %s along %s: %zu values, the dimension has %zu", w->path,
                               name, dims[d], values->shape[d], len);
    }
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_netcdf_writer_var(ipfsrt_netcdf_writer *w, const char *name, const char *const *dims, int ndim,
                                       const ipfsrt_ndarray *values, const char *attributes, ipfsrt_error *err) {
    IPFSRT_NEED(w, err);
    IPFSRT_NEED(name, err);
    IPFSRT_NEED_N(dims, ndim, err);
    IPFSRT_NEED(values, err);
    nc_type type = nc_type_of(values->dtype);
    if (type == NC_NAT)
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "%s: %s: no NetCDF type for %s values", w->path, name,
                           ipfsrt_dtype_name(values->dtype));
    int ids[IPFSRT_NDARRAY_MAX_DIMS], varid;
    ipfsrt_status r = dim_ids(w, name, dims, ndim, values, ids, err);
    if (r != IPFSRT_OK) return r;
    int st = nc_def_var(w->ncid, name, type, ndim, ids, &varid);
    if (st != NC_NOERR) return nc_fail(err, st, w->path, "variable", name);
    if (values->dtype == IPFSRT_DTYPE_BOOL) st = nc_put_att_text(w->ncid, varid, "dtype", 4, "bool"); /* as xarray */
    if (st != NC_NOERR) return nc_fail(err, st, w->path, "variable", name);
    r = put_attributes(w, varid, type, name, attributes, err);
    if (r != IPFSRT_OK) return r;
    ipfsrt_ndarray flat;
    ipfsrt_ndarray_init(&flat);
    const ipfsrt_ndarray *x = values;
    if (!ipfsrt_ndarray_is_contiguous(values)) {
        if ((r = ipfsrt_ndarray_copy(&flat, values, err)) != IPFSRT_OK) return r;
        x = &flat;
    }
    st = nc_put_var(w->ncid, varid, x->data);
    ipfsrt_ndarray_free(&flat);
    return st == NC_NOERR ? IPFSRT_OK : nc_fail(err, st, w->path, "values of", name);
}

ipfsrt_status ipfsrt_netcdf_writer_strings(ipfsrt_netcdf_writer *w, const char *name, const char *dim,
                                           const char *const *strings, size_t n, const char *attributes,
                                           ipfsrt_error *err) {
    IPFSRT_NEED(w, err);
    IPFSRT_NEED(name, err);
    IPFSRT_NEED(dim, err);
    int dimid, varid;
    size_t len;
    int st = nc_inq_dimid(w->ncid, dim, &dimid);
    if (st == NC_NOERR) st = nc_inq_dimlen(w->ncid, dimid, &len);
    if (st != NC_NOERR) return nc_fail(err, st, w->path, "dimension", dim);
    if (len != n) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: %s: %zu strings along %s of %zu", w->path, name, n, dim, len);
    st = nc_def_var(w->ncid, name, NC_STRING, 1, &dimid, &varid);
    if (st != NC_NOERR) return nc_fail(err, st, w->path, "variable", name);
    ipfsrt_status r = put_attributes(w, varid, NC_STRING, name, attributes, err);
    if (r != IPFSRT_OK) return r;
    st = n ? nc_put_var_string(w->ncid, varid, (const char **)(uintptr_t)strings) : NC_NOERR;
    return st == NC_NOERR ? IPFSRT_OK : nc_fail(err, st, w->path, "values of", name);
}

ipfsrt_status ipfsrt_netcdf_writer_attributes(ipfsrt_netcdf_writer *w, const char *attributes, ipfsrt_error *err) {
    return put_attributes(w, NC_GLOBAL, NC_NAT, "the file", attributes, err);
}

ipfsrt_status ipfsrt_netcdf_writer_finish(ipfsrt_netcdf_writer *w, ipfsrt_error *err) {
    IPFSRT_NEED(w, err);
    if (!w->open) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: finished already", w->path);
    w->open = false;
    int st = nc_close(w->ncid);
    if (st != NC_NOERR) {
        unlink(w->part);
        return nc_fail(err, st, w->path, "close", NULL);
    }
    if (!w->replace && access(w->path, F_OK) == 0) { /* made meanwhile: left alone */
        unlink(w->part);
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s exists (replace it: mode \"w\")", w->path);
    }
    if (rename(w->part, w->path) != 0) {
        unlink(w->part);
        return ipfsrt_fail(err, IPFSRT_EIO, -1, "%s: cannot move the file into place", w->path);
    }
    return IPFSRT_OK;
}

void ipfsrt_netcdf_writer_free(ipfsrt_netcdf_writer *w) {
    if (!w) return;
    if (w->open) {
        nc_abort(w->ncid);
        unlink(w->part);
    }
    free(w->path);
    free(w->part);
    free(w);
}
