#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ipfsrt/error.h"
#include "base/base_internal.h"

static const char *const status_names[IPFSRT_STATUS_COUNT] = {
    [IPFSRT_OK] = "ok",
    [IPFSRT_EOUT_OF_MEMORY] = "out_of_memory",
    [IPFSRT_EBAD_ARGUMENT] = "bad_argument",
    [IPFSRT_EIO] = "io",
    [IPFSRT_EBAD_VARINT] = "bad_varint",
    [IPFSRT_EBAD_MULTIBASE] = "bad_multibase",
    [IPFSRT_EBAD_MULTIHASH] = "bad_multihash",
    [IPFSRT_EUNSUPPORTED] = "unsupported",
    [IPFSRT_EBAD_CID] = "bad_cid",
    [IPFSRT_EBAD_DAGCBOR] = "bad_dagcbor",
    [IPFSRT_EBAD_CAR_HEADER] = "bad_car_header",
    [IPFSRT_EBAD_CAR_VERSION] = "bad_car_version",
    [IPFSRT_ETOO_LARGE] = "too_large",
    [IPFSRT_EHASH_MISMATCH] = "hash_mismatch",
    [IPFSRT_ETRUNCATED] = "truncated",
    [IPFSRT_ETRAILING_DATA] = "trailing_data",
    [IPFSRT_EBAD_CAR_INDEX] = "bad_car_index",
    [IPFSRT_ENOT_FOUND] = "not_found",
    [IPFSRT_ECANCELED] = "canceled",
    [IPFSRT_EBAD_DAGPB] = "bad_dagpb",
    [IPFSRT_EBAD_UNIXFS] = "bad_unixfs",
    [IPFSRT_ENOT_DIRECTORY] = "not_directory",
    [IPFSRT_ENOT_FILE] = "not_file",
    [IPFSRT_ESYMLINK] = "symlink",
    [IPFSRT_EBAD_RANGE] = "bad_range",
    [IPFSRT_EFETCH_FAILED] = "fetch_failed",
    [IPFSRT_EBAD_CHUNK_DATA] = "bad_chunk_data",
    [IPFSRT_EUNAVAILABLE] = "unavailable",
    [IPFSRT_EDENIED] = "denied",
    [IPFSRT_ETIMED_OUT] = "timed_out",
    [IPFSRT_EUNVERIFIED] = "unverified",
    [IPFSRT_EBAD_POLICY] = "bad_policy",
    [IPFSRT_EINSIDE_BLOCK] = "inside_block",
    [IPFSRT_EBAD_RECORD] = "bad_record",
    [IPFSRT_EBAD_SIGNATURE] = "bad_signature",
    [IPFSRT_EEXPIRED] = "expired",
};

const char *ipfsrt_status_name(ipfsrt_status code) {
    if ((unsigned)code >= IPFSRT_STATUS_COUNT) return "unknown";
    return status_names[code];
}

void ipfsrt_error_clear(ipfsrt_error *err) {
    if (!err) return;
    err->code = IPFSRT_OK;
    err->offset = -1;
    err->cid[0] = '\0';
    err->message[0] = '\0';
}

static ipfsrt_status fill(ipfsrt_error *err, ipfsrt_status code, int64_t offset, const char *fmt,
                          va_list ap) {
    if (!err) return code;
    ipfsrt_error_clear(err);
    err->code = code;
    err->offset = offset;
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    return code;
}

ipfsrt_status ipfsrt_fail(ipfsrt_error *err, ipfsrt_status code, int64_t offset, const char *fmt,
                          ...) {
    IPFSRT_NEED(fmt, err);
    va_list ap;
    va_start(ap, fmt);
    fill(err, code, offset, fmt, ap);
    va_end(ap);
    return code;
}


void ipfsrt_error_prefix(ipfsrt_error *err, const char *fmt, ...) {
    IPFSRT_NEED_OR(fmt, );
    if (!err) return;
    char prefix[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    size_t plen = strlen(prefix), mlen = strlen(err->message), cap = sizeof err->message - 1;
    if (plen > cap) plen = cap;
    if (plen + mlen > cap) mlen = cap - plen;
    memmove(err->message + plen, err->message, mlen);
    memcpy(err->message, prefix, plen);
    err->message[plen + mlen] = '\0';
}

void ipfsrt_error_shift(ipfsrt_error *err, int64_t delta) {
    if (err && err->offset >= 0) err->offset += delta;
}
