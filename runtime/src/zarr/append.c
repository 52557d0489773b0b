/* Appending along an axis: the values written past the array's end, then its
 * metadata rewritten with the longer shape (every other field as stored), so
 * that a reader of a folder never sees a shape whose chunks are not there. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zarr/zarr_internal.h"
#include "base/base_internal.h"

/* Whether values fit the array on every axis but the one appended along. */
static ipfsrt_status check_fit(const ipfsrt_zarr_meta *m, int axis, const ipfsrt_ndarray *values, ipfsrt_error *err) {
    if (axis < 0 || axis >= m->ndim)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: no axis %d to append along (it has %d)", m->name, axis,
                           m->ndim);
    if (values->dtype != m->dtype || values->itemsize != m->itemsize)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: appended values are %s, the array is %s", m->name,
                           ipfsrt_dtype_name(values->dtype), ipfsrt_dtype_name(m->dtype));
    if (values->ndim != m->ndim)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: appended values have %d dimensions, the array %d",
                           m->name, values->ndim, m->ndim);
    for (int d = 0; d < m->ndim; d++)
        if (d != axis && values->shape[d] != m->shape[d])
            return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1,
                               "%s: appended values are %zu long on axis %d, the array %zu", m->name,
                               values->shape[d], d, m->shape[d]);
    if (values->shape[axis] > SIZE_MAX / 2 - m->shape[axis])
        return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "%s: too long after the append", m->name);
    return IPFSRT_OK;
}

static void set_length(ipfsrt_zarr_meta *m, int axis, size_t len) {
    m->shape[axis] = len;
    m->grid[axis] = len / m->chunks[axis] + (len % m->chunks[axis] != 0);
}

/* The stored metadata document again, its shape's axis made len. */
static ipfsrt_status write_shape(ipfsrt_zarr_node *n, int axis, size_t len, ipfsrt_error *err) {
    const char *name = n->format == 2 ? ".zarray" : "zarr.json";
    char key[IPFSRT_ZARR_KEY_MAX + 16];
    snprintf(key, sizeof key, "%s%s%s", n->path, *n->path ? "/" : "", name);
    ipfsrt_buf b;
    ipfsrt_buf_init(&b);
    ipfsrt_status st = ipfsrt_zarr_store_get(n->h->store, key, &b, err);
    cJSON *doc = st == IPFSRT_OK ? ipfsrt_json_parse((const char *)b.data, b.len, NULL) : NULL;
    ipfsrt_buf_free(&b);
    cJSON *shape = doc ? cJSON_GetObjectItemCaseSensitive(doc, "shape") : NULL;
    if (st == IPFSRT_OK && (!cJSON_IsArray(shape) || cJSON_GetArraySize(shape) <= axis))
        st = ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: no shape of %d dimensions", key, axis + 1);
    cJSON *number = st == IPFSRT_OK ? cJSON_CreateNumber((double)len) : NULL;
    if (st == IPFSRT_OK && (!number || !cJSON_ReplaceItemInArray(shape, axis, number))) {
        cJSON_Delete(number);
        st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    }
    if (st == IPFSRT_OK) st = ipfsrt_zarr_put_json(n->h->store, n->path, name, doc, err);
    cJSON_Delete(doc);
    shape = st == IPFSRT_OK && n->doc ? cJSON_GetObjectItemCaseSensitive(n->doc, "shape") : NULL;
    if (cJSON_IsArray(shape) && cJSON_GetArraySize(shape) > axis) cJSON_SetNumberValue(cJSON_GetArrayItem(shape, axis), (double)len);
    return st;
}

ipfsrt_status ipfsrt_zarr_append(ipfsrt_zarr_node *array, int axis, const ipfsrt_ndarray *values,
                                 const ipfsrt_zarr_write_options *opts, ipfsrt_error *err) {
    IPFSRT_NEED(array, err);
    IPFSRT_NEED(values, err);
    ipfsrt_zarr_meta *m = array->meta;
    if (!m) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: a group, not an array", *array->path ? array->path : "/");
    ipfsrt_status st = check_fit(m, axis, values, err);
    if (st != IPFSRT_OK || values->shape[axis] == 0) return st;
    size_t old = m->shape[axis], len = old + values->shape[axis];
    ipfsrt_ndslice sel[IPFSRT_NDARRAY_MAX_DIMS];
    for (int d = 0; d < m->ndim; d++) sel[d] = ipfsrt_ndslice_all();
    sel[axis] = ipfsrt_ndslice_range((int64_t)old, (int64_t)len);
    set_length(m, axis, len); /* the chunks first, where the old shape names none of them */
    st = ipfsrt_zarr_write(array, sel, m->ndim, values, opts, err);
    if (st == IPFSRT_OK) st = write_shape(array, axis, len, err);
    if (st != IPFSRT_OK) set_length(m, axis, old);
    return st;
}
