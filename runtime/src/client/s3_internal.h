/* The S3 client's parts (s3.c, s3_xml.c). Not part of the public API. */
#ifndef IPFSRT_S3_INTERNAL_H
#define IPFSRT_S3_INTERNAL_H

#include <expat.h>

#include "ipfsrt/buf.h"
#include "ipfsrt/s3.h"

#define IPFSRT_S3_XML_DEPTH 8
#define IPFSRT_S3_XML_TEXT_MAX 4096       /* S3 keys are at most 1024 bytes */
#define IPFSRT_S3_XML_MAX_ENTRIES 100000  /* per page (S3 sends at most 1000) */

/* An XML answer read as it arrives: an error document's code, message and
 * region, or a listing page's entries (handed to on_entry), whether it is
 * truncated and the token for the next page. */
typedef struct ipfsrt_s3_xml {
    XML_Parser parser;
    ipfsrt_s3_entry_fn on_entry;
    void *user;
    char names[IPFSRT_S3_XML_DEPTH][32];
    int depth;
    ipfsrt_buf text;
    char code[64], message[512], region[64], token[1024];
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

/* "bytes FROM-TO/TOTAL" (TOTAL may be "*": UINT64_MAX); false when it is not that. */
bool ipfsrt_s3_content_range_parse(const char *s, uint64_t *from, uint64_t *to, uint64_t *total);
/* S3's URI encoding (RFC 3986 unreserved kept, %XX uppercase), of a key
 * (slashes kept) or of a query value (slashes encoded); false when out is too small. */
bool ipfsrt_s3_uri_encode(const char *in, bool keep_slash, char *out, size_t cap);

#endif
