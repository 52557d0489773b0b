/* A block source over an open CAR file: the UnixFS code reads CARs through it. */
#include "ipfsrt/car.h"
#include "base/base_internal.h"

static ipfsrt_status car_get(void *ctx, const ipfsrt_cid *cid, ipfsrt_blocksource_ref *ref,
                             ipfsrt_error *err) {
    return ipfsrt_car_file_get(ctx, cid, &ref->data, &ref->len, err);
}

void ipfsrt_blocksource_car(ipfsrt_blocksource *src, ipfsrt_car_file *car) {
    IPFSRT_NEED_OR(src, );
    IPFSRT_NEED_OR(car, );
    src->size = sizeof *src;
    src->ctx = car;
    src->get = car_get;
    src->release = NULL; /* the mapping lives as long as the file */
}
