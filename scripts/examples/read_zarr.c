/* Example: a C program reading a Zarr array verified, with the C library alone
 * (no Lua). From a CAR file, or over ipfs:// through a gateway:
 *
 *   cc read_zarr.c -o read_zarr $(pkg-config --cflags --libs ipfsrt)
 *   ./read_zarr data.car/sst                       # an array in a CAR file
 *   ./read_zarr ipfs://CID/sst http://127.0.0.1:8080   # the same through a gateway
 *
 * It prints the array's shape and data type, and the mean of its first values
 * (at most 1000 along the last dimension of its first row). */
#define IPFSRT_EXPERIMENTAL_API /* ipfsrt_ndarray_reduce is experimental */
#include <stdio.h>
#include <string.h>

#include <ipfsrt.h>

static int fail(const char *what, const ipfsrt_error *err) {
    fprintf(stderr, "read_zarr: %s: %s: %s\n", what, ipfsrt_status_name(err->code), err->message);
    return 1;
}

/* url's store and the array's path in it: "x.car/sst" or "ipfs://CID/sst" -> store "x.car" or "ipfs://CID", "sst". */
static const char *split(char *url) {
    char *slash = strrchr(url, '/');
    if (!slash || slash == url || slash[-1] == '/') return "";
    *slash = '\0';
    return slash + 1;
}

static int summarize(ipfsrt_zarr_store *store, const char *path) {
    ipfsrt_error err;
    ipfsrt_zarr_node *array;
    if (ipfsrt_zarr_open(&array, store, path, &err) != IPFSRT_OK) return fail(path, &err);
    const ipfsrt_zarr_meta *m = ipfsrt_zarr_array_meta(array);
    int rc = 0;
    if (!m) {
        fprintf(stderr, "read_zarr: %s is a group, not an array\n", path);
        rc = 1;
    } else {
        int ndim = ipfsrt_zarr_meta_ndim(m);
        printf("%s: %s, shape", path, ipfsrt_dtype_name(ipfsrt_zarr_meta_dtype(m)));
        for (int d = 0; d < ndim; d++) printf("%s%zu", d ? " x " : " ", ipfsrt_zarr_meta_shape(m)[d]);
        ipfsrt_ndslice sel[IPFSRT_NDARRAY_MAX_DIMS] = {{0}};
        for (int d = 0; d < ndim; d++) /* index 0 of every dimension but the last; up to 1000 of that */
            sel[d] = d + 1 < ndim ? (ipfsrt_ndslice){.is_index = true, .index = 0}
                                  : (ipfsrt_ndslice){.has_stop = true, .stop = 1000, .step = 1};
        ipfsrt_ndarray values, mean;
        ipfsrt_ndarray_init(&values);
        ipfsrt_ndarray_init(&mean);
        ipfsrt_status st = ipfsrt_zarr_read(array, sel, ndim, &values, NULL, &err);
        if (st == IPFSRT_OK) st = ipfsrt_ndarray_reduce(&mean, IPFSRT_NDREDUCE_MEAN, &values, NULL, 0, true, NULL, &err);
        ipfsrt_ndvalue v;
        if (st == IPFSRT_OK) st = ipfsrt_ndarray_get(&mean, NULL, 0, &v, &err);
        if (st == IPFSRT_OK) printf("; mean of its first %zu values (verified): %g\n", ipfsrt_ndarray_size(&values), v.f);
        else rc = fail("read", &err);
        ipfsrt_ndarray_free(&values);
        ipfsrt_ndarray_free(&mean);
    }
    ipfsrt_zarr_node_free(array);
    return rc;
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s FILE.car/ARRAY | ipfs://CID/ARRAY [GATEWAY-URL]\n", argv[0]);
        return 2;
    }
    char url[4096];
    snprintf(url, sizeof url, "%s", argv[1]);
    const char *path = split(url);
    ipfsrt_error err;
    ipfsrt_zarr_store *store = NULL;
    ipfsrt_client *client = NULL;
    ipfsrt_gateway_list gateways;
    ipfsrt_gateway_list_init(&gateways);
    ipfsrt_status st;
    if (strncmp(url, "ipfs://", 7) == 0) {
        ipfsrt_client_options opts;
        ipfsrt_client_options_init(&opts);
        st = argc == 3 ? ipfsrt_gateway_list_add(&gateways, argv[2], &err) : IPFSRT_OK;
        if (argc == 3) opts.gateways = &gateways; /* else IPFS_GATEWAY, then public gateways */
        if (st == IPFSRT_OK) st = ipfsrt_client_new(&client, &opts, &err);
        if (st == IPFSRT_OK) st = ipfsrt_zarr_store_new_ipfs(&store, client, url, &err);
    } else {
        st = ipfsrt_zarr_store_new_car(&store, url, "", &err);
    }
    int rc = st == IPFSRT_OK ? summarize(store, path) : fail(url, &err);
    ipfsrt_zarr_store_free(store);
    ipfsrt_client_free(client);
    ipfsrt_gateway_list_free(&gateways);
    return rc;
}
