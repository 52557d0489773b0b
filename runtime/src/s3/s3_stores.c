/* What libipfsrt-s3 adds to ipfsrt_zarr_store_open: buckets and CARs read by
 * ranges, and the constructor that takes S3's options. */
#include <string.h>

#include "ipfsrt/s3.h"
#include "s3/s3_internal.h"

/* A bucket is no CAR: the opener's car_len is 0 for it. */
static ipfsrt_status open_bucket(const ipfsrt_zarr_store_ops **ops, void **ctx, const char *url, size_t car_len,
                                 const ipfsrt_zarr_store_options *opts, ipfsrt_error *err) {
    (void)car_len;
    return ipfsrt_s3_store_open(ops, ctx, url, opts, err);
}

void ipfsrt_s3_stores_enable(void) {
    ipfsrt_zarr_store_set_opener(IPFSRT_ZARR_SCHEME_S3, open_bucket);
    ipfsrt_zarr_store_set_opener(IPFSRT_ZARR_SCHEME_REMOTE_CAR, ipfsrt_s3_car_store_open);
}

ipfsrt_status ipfsrt_s3_zarr_store_new(ipfsrt_zarr_store **store, const char *url, const ipfsrt_s3_options *s3_options,
                                       ipfsrt_error *err) {
    if (!store) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "ipfsrt_s3_zarr_store_new: store is NULL");
    *store = NULL;
    if (!url || strncmp(url, "s3://", 5) != 0)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%.200s: not s3://bucket[/prefix]", url ? url : "(NULL)");
    ipfsrt_s3_stores_enable();
    ipfsrt_zarr_store_options opts = {.size = sizeof opts, .s3_options = s3_options};
    return ipfsrt_zarr_store_open(store, url, &opts, err);
}
