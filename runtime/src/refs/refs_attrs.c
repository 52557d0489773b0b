/* Attributes, dimension names and fill values of HDF5 objects as the JSON a
 * Zarr v2 .zattrs and .zarray hold, read with libhdf5 (and its dimension
 * scales, hdf5_hl). Bounded: an attribute of more than MAX_ATTR_VALUES
 * values is left out with a reason. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "refs/make_internal.h"

#include <hdf5_hl.h>

#define MAX_ATTR_VALUES 65536
#define PHONY "This is a netCDF dimension but not a netCDF variable"

static bool bookkeeping(const char *name) {
    static const char *const own[] = {"DIMENSION_LIST", "REFERENCE_LIST", "CLASS", "NAME", "_FillValue",
                                      "_Netcdf4Dimid", "_Netcdf4Coordinates", "_nc3_strict", NULL};
    for (const char *const *p = own; *p; p++)
        if (strcmp(name, *p) == 0) return true;
    return strncmp(name, "_NC", 3) == 0;
}

/* One value, or a list of them, from n doubles. */
static cJSON *numbers(const double *v, hssize_t n) {
    if (n == 1) return ipfsrt_refs_number(v[0]);
    cJSON *list = cJSON_CreateArray();
    for (hssize_t i = 0; list && i < n; i++) cJSON_AddItemToArray(list, ipfsrt_refs_number(v[i]));
    return list;
}

static cJSON *read_numbers(hid_t attr, hssize_t n) {
    double *v = malloc((size_t)n * sizeof *v);
    cJSON *out = v && H5Aread(attr, H5T_NATIVE_DOUBLE, v) >= 0 ? numbers(v, n) : NULL;
    free(v);
    return out;
}

/* Fixed-size or variable-length strings, one or a list. */
static cJSON *read_strings(hid_t attr, hid_t type, hid_t space, hssize_t n) {
    bool variable = H5Tis_variable_str(type) > 0;
    size_t size = variable ? sizeof(char *) : H5Tget_size(type);
    hid_t mem = H5Tcopy(H5T_C_S1);
    H5Tset_size(mem, variable ? H5T_VARIABLE : size);
    H5Tset_cset(mem, H5Tget_cset(type));
    char *buf = size && (size_t)n <= SIZE_MAX / size ? calloc((size_t)n, size) : NULL;
    cJSON *out = NULL;
    if (buf && H5Aread(attr, mem, buf) >= 0) {
        out = n == 1 ? NULL : cJSON_CreateArray();
        for (hssize_t i = 0; i < n; i++) {
            char *s = variable ? ((char **)(void *)buf)[i] : strndup(buf + (size_t)i * size, size);
            cJSON *item = cJSON_CreateString(s ? s : "");
            if (!variable) free(s);
            if (n == 1) out = item;
            else if (out) cJSON_AddItemToArray(out, item);
        }
        if (variable) H5Dvlen_reclaim(mem, space, H5P_DEFAULT, buf);
    }
    H5Tclose(mem);
    free(buf);
    return out;
}

typedef struct attr_walk {
    cJSON *obj;
    const char *path;
    ipfsrt_refs_skip_fn skipped;
    void *user;
} attr_walk;

static void skip_attr(attr_walk *w, const char *name, const char *why) {
    char what[1024];
    snprintf(what, sizeof what, "%s@%s", w->path, name);
    if (w->skipped) w->skipped(w->user, what, why);
}

static herr_t one_attr(hid_t loc, const char *name, const H5A_info_t *info, void *data) {
    (void)info;
    attr_walk *w = data;
    if (bookkeeping(name)) return 0;
    hid_t attr = H5Aopen(loc, name, H5P_DEFAULT);
    hid_t type = attr >= 0 ? H5Aget_type(attr) : -1, space = attr >= 0 ? H5Aget_space(attr) : -1;
    hssize_t n = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
    H5T_class_t cls = type >= 0 ? H5Tget_class(type) : H5T_NO_CLASS;
    cJSON *value = NULL;
    if (n < 1 || n > MAX_ATTR_VALUES) skip_attr(w, name, n < 1 ? "no value" : "more values than kept");
    else if (cls == H5T_INTEGER || cls == H5T_FLOAT) value = read_numbers(attr, n);
    else if (cls == H5T_STRING) value = read_strings(attr, type, space, n);
    else skip_attr(w, name, "neither numbers nor text");
    if (value) cJSON_AddItemToObject(w->obj, name, value);
    if (space >= 0) H5Sclose(space);
    if (type >= 0) H5Tclose(type);
    if (attr >= 0) H5Aclose(attr);
    return 0;
}

cJSON *ipfsrt_hdf5_attrs(hid_t obj, const char *path, ipfsrt_refs_skip_fn skipped, void *user) {
    attr_walk w = {cJSON_CreateObject(), path, skipped, user};
    if (w.obj) H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, NULL, one_attr, &w);
    return w.obj;
}

/* A fill value given when the dataset was made (HDF5's own, not NetCDF's). */
static cJSON *made_with_fill(hid_t dataset) {
    hid_t dcpl = H5Dget_create_plist(dataset);
    H5D_fill_value_t how = H5D_FILL_VALUE_ERROR;
    double v;
    bool ok = dcpl >= 0 && H5Pfill_value_defined(dcpl, &how) >= 0 && how == H5D_FILL_VALUE_USER_DEFINED &&
              H5Pget_fill_value(dcpl, H5T_NATIVE_DOUBLE, &v) >= 0;
    if (dcpl >= 0) H5Pclose(dcpl);
    return ok ? ipfsrt_refs_number(v) : cJSON_CreateNull();
}

cJSON *ipfsrt_hdf5_fill(hid_t dataset, bool netcdf) {
    if (H5Aexists(dataset, "_FillValue") <= 0) return netcdf ? cJSON_CreateNull() : made_with_fill(dataset);
    hid_t attr = H5Aopen(dataset, "_FillValue", H5P_DEFAULT);
    hid_t space = attr >= 0 ? H5Aget_space(attr) : -1;
    double v;
    bool ok = space >= 0 && H5Sget_simple_extent_npoints(space) == 1 && H5Aread(attr, H5T_NATIVE_DOUBLE, &v) >= 0;
    if (space >= 0) H5Sclose(space);
    if (attr >= 0) H5Aclose(attr);
    return ok ? ipfsrt_refs_number(v) : cJSON_CreateNull();
}

static herr_t scale_name(hid_t dataset, unsigned dim, hid_t scale, void *data) {
    (void)dataset, (void)dim;
    char *name = data;
    ssize_t n = H5Iget_name(scale, name, 256);
    return n > 0 ? 1 : 0; /* the first scale is the dimension */
}

cJSON *ipfsrt_hdf5_dims(hid_t dataset, const char *name, int ndims) {
    cJSON *dims = cJSON_CreateArray();
    const char *own = strrchr(name, '/');
    bool is_scale = H5DSis_scale(dataset) > 0;
    for (int i = 0; dims && i < ndims; i++) {
        char scale[256] = "";
        if (is_scale && ndims == 1) snprintf(scale, sizeof scale, "%s", own ? own + 1 : name);
        else if (H5DSget_num_scales(dataset, (unsigned)i) > 0) H5DSiterate_scales(dataset, (unsigned)i, NULL, scale_name, scale);
        const char *base = strrchr(scale, '/');
        char fallback[32];
        snprintf(fallback, sizeof fallback, "dim_%d", i);
        cJSON_AddItemToArray(dims, cJSON_CreateString(scale[0] ? (base ? base + 1 : scale) : fallback));
    }
    return dims;
}

bool ipfsrt_hdf5_phony(hid_t dataset) {
    if (H5Aexists(dataset, "NAME") <= 0) return false;
    hid_t attr = H5Aopen(dataset, "NAME", H5P_DEFAULT);
    hid_t type = attr >= 0 ? H5Aget_type(attr) : -1;
    char text[sizeof PHONY + 64] = "";
    bool phony = false;
    if (type >= 0 && H5Tget_class(type) == H5T_STRING && !H5Tis_variable_str(type) && H5Tget_size(type) < sizeof text) {
        hid_t mem = H5Tcopy(type);
        phony = H5Aread(attr, mem, text) >= 0 && strncmp(text, PHONY, strlen(PHONY)) == 0;
        H5Tclose(mem);
    }
    if (type >= 0) H5Tclose(type);
    if (attr >= 0) H5Aclose(attr);
    return phony;
}
