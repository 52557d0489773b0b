/* libFuzzer target: what the S3 client reads from S3 — XML answers (listings,
 * errors and a multipart upload's id, fed whole and in two pieces: the same
 * entries either way, each text bounded) and Content-Range values (a range
 * that parses is ordered and inside its total). The first byte picks where
 * the pieces split. */
#include <stdlib.h>
#include <string.h>

#include "s3/s3_internal.h"

typedef struct seen {
    size_t count;
    uint64_t sum; /* of the names' lengths and sizes, to compare runs */
} seen;

static ipfsrt_status entry(void *user, const char *name, uint64_t size, bool is_prefix, ipfsrt_error *err) {
    (void)err;
    seen *s = user;
    if (strlen(name) > IPFSRT_S3_XML_TEXT_MAX) abort();
    s->count++;
    s->sum += strlen(name) + (size == UINT64_MAX ? 0 : size) + is_prefix;
    return IPFSRT_OK;
}

static bool parse(const uint8_t *data, size_t size, size_t split, seen *s, ipfsrt_s3_xml *keep) {
    ipfsrt_s3_xml x;
    if (ipfsrt_s3_xml_init(&x, entry, s, NULL) != IPFSRT_OK) return false;
    bool ok = ipfsrt_s3_xml_feed(&x, data, split, NULL) == IPFSRT_OK &&
              ipfsrt_s3_xml_feed(&x, data + split, size - split, NULL) == IPFSRT_OK &&
              ipfsrt_s3_xml_finish(&x, NULL) == IPFSRT_OK;
    if (strlen(x.code) >= sizeof x.code || strlen(x.token) >= sizeof x.token ||
        strlen(x.upload_id) >= sizeof x.upload_id)
        abort();
    if (keep) *keep = x;
    else ipfsrt_s3_xml_free(&x);
    return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    size_t split = data[0] % (size);
    data++, size--;
    if (split > size) split = size;
    seen whole = {0}, pieces = {0};
    ipfsrt_s3_xml a;
    bool ok_whole = parse(data, size, 0, &whole, &a);
    bool ok_pieces = parse(data, size, split, &pieces, NULL);
    if (ok_whole != ok_pieces || (ok_whole && (whole.count != pieces.count || whole.sum != pieces.sum))) abort();
    ipfsrt_s3_xml_free(&a);
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0;
    uint64_t from, to, total;
    if (ipfsrt_fetch_content_range_parse(text, &from, &to, &total) && (to < from || (total != UINT64_MAX && to >= total)))
        abort();
    free(text);
    return 0;
}
