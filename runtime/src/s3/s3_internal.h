/* The S3 client's parts (s3.c, s3_xml.c, s3_upload.c). Not part of the public API. */
#ifndef IPFSRT_S3_INTERNAL_H
#define IPFSRT_S3_INTERNAL_H

#include <expat.h>

#include "http/fetch.h"
#include "ipfsrt/buf.h"
#include "ipfsrt/s3.h"

#define IPFSRT_S3_XML_DEPTH 8
#define IPFSRT_S3_XML_TEXT_MAX 4096       /* S3 keys are at most 1024 bytes */
#define IPFSRT_S3_XML_MAX_ENTRIES 100000  /* per page (S3 sends at most 1000) */

/* An XML answer read as it arrives: an error document's code, message and
 * region, a listing page's entries (handed to on_entry), whether it is
 * truncated and the token for the next page, or a new multipart upload's id. */
typedef struct ipfsrt_s3_xml {
    XML_Parser parser;
    ipfsrt_s3_entry_fn on_entry;
    void *user;
    char names[IPFSRT_S3_XML_DEPTH][32];
    char root[32]; /* the document element: ListBucketResult, Error, ... */
    int depth;
    ipfsrt_buf text;
    char code[64], message[512], region[64], token[1024], upload_id[1024];
    bool truncated;
    char key[IPFSRT_S3_XML_TEXT_MAX + 1];
    uint64_t size;
    bool have_key, is_prefix, entry_done;
    size_t entries;
    bool failed;
    ipfsrt_error error;
} ipfsrt_s3_xml;

ipfsrt_status ipfsrt_s3_xml_init(ipfsrt_s3_xml *x, ipfsrt_s3_entry_fn on_entry, void *user, ipfsrt_error *err);
ipfsrt_status ipfsrt_s3_xml_feed(ipfsrt_s3_xml *x, const void *data, size_t len, ipfsrt_error *err);
ipfsrt_status ipfsrt_s3_xml_finish(ipfsrt_s3_xml *x, ipfsrt_error *err);
void ipfsrt_s3_xml_free(ipfsrt_s3_xml *x);

/* ------------------------------------------------ requests (s3.c) */

typedef enum op_kind { OP_GET, OP_LIST, OP_PUT, OP_POST, OP_DELETE } op_kind;
typedef enum op_state { OP_READY, OP_RUNNING, OP_WAITING, OP_DONE } op_state;

/* One request, tried until it is judged. */
typedef struct s3_op {
    ipfsrt_s3 *s3;
    op_kind kind;
    size_t index;
    const char *key;
    uint64_t offset, length; /* GET: as asked */
    bool from_end;
    uint64_t from, to;       /* GET: the bytes asked this time ([from, to], to UINT64_MAX: open) */
    uint64_t body_cap;       /* the most body bytes taken in (set when the answer begins) */
    bool suffix_asked;       /* ... as "the last length bytes" */
    bool reask;              /* a suffix answered with other bytes: stopped, to be asked again as a range */
    const char *query;       /* LIST, and the multipart requests */
    const uint8_t *put_data; /* PUT, POST: the body from memory */
    size_t put_len;
    int put_fd;              /* ... or bytes [put_offset, + put_size) of a file (-1: none), */
    uint64_t put_offset, put_size, put_sent; /* read anew by each try */
    char put_sha[65];        /* the body's SHA-256, hex */
    op_state state;
    bool reported;
    unsigned round;
    bool moved, range_fixed;
    double wake_at;
    ipfsrt_fetch_req *req;
    ipfsrt_fetch_head head;
    char content_range[96], region[64], etag[128];
    char sent_region[64]; /* the region this try was signed for */
    ipfsrt_range_sink_fn sink; /* GET streamed: bytes go there, not into body */
    void *sink_user;
    uint64_t sunk;           /* bytes the sink took */
    ipfsrt_error sink_error;
    bool sink_failed;
    ipfsrt_buf body;
    ipfsrt_s3_xml xml; /* errors and listings, read as they arrive */
    bool xml_on;
    uint64_t object_size;
    size_t data_at, data_len; /* GET: the value, in body */
    ipfsrt_status status;
    ipfsrt_error error;
} s3_op;

void ipfsrt_s3_op_init(s3_op *o, ipfsrt_s3 *s3, op_kind kind, const char *key);
/* Runs ops (at once, as the client's concurrency allows) until each is done,
 * handing each to report as it is (in no set order), before its body is
 * freed; report may stop the rest by returning an error. */
typedef ipfsrt_status (*ipfsrt_s3_op_report_fn)(void *user, s3_op *op, ipfsrt_error *err);
ipfsrt_status ipfsrt_s3_run_ops(ipfsrt_s3 *s3, s3_op *ops, size_t n, ipfsrt_s3_op_report_fn report, void *user,
                               ipfsrt_error *err);
/* A report that passes an op's failure on. */
ipfsrt_status ipfsrt_s3_report_one(void *user, s3_op *op, ipfsrt_error *err);
/* The part size multipart uploads start from (ipfsrt_s3_options.part_size). */
uint64_t ipfsrt_s3_part_size(const ipfsrt_s3 *s3);

/* S3's URI encoding (RFC 3986 unreserved kept, %XX uppercase), of a key
 * (slashes kept) or of a query value (slashes encoded); false when out is too small. */
bool ipfsrt_s3_uri_encode(const char *in, bool keep_slash, char *out, size_t cap);

/* The Zarr stores over S3 (store_s3.c) and over CARs read by ranges from S3
 * or a web server (store_s3car.c: url's first car_len bytes name the CAR, the
 * rest is a path from its root). */
ipfsrt_status ipfsrt_s3_store_open(const ipfsrt_zarr_store_ops **ops, void **ctx, const char *url,
                                   const ipfsrt_zarr_store_options *opts, ipfsrt_error *err);
ipfsrt_status ipfsrt_s3_car_store_open(const ipfsrt_zarr_store_ops **ops, void **ctx, const char *url,
                                       size_t car_len, const ipfsrt_zarr_store_options *opts, ipfsrt_error *err);

#endif
