/* What the local gateway reads out of a request, apart from libmicrohttpd so
 * that unit tests reach every case. All inputs are untrusted strings. */
#ifndef IPFSRT_HTTP_PARSE_H
#define IPFSRT_HTTP_PARSE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "ipfsrt/error.h"
#include "ipfsrt/unixfs.h"

/* A CAR request's parameters (trustless gateway spec): the query's car-version,
 * car-order, car-dups and dag-scope (each NULL when absent) win over the
 * parameters of the Accept header (NULL when absent). */
typedef struct ipfsrt_http_car_query {
    const char *version, *order, *dups, *scope;
} ipfsrt_http_car_query;

typedef struct ipfsrt_http_car_params {
    bool dups;
    ipfsrt_unixfs_scope scope;
} ipfsrt_http_car_params;

/* Fails (IPFSRT_EBAD_ARGUMENT, the message to answer 400 with) on values the gateway
 * does not serve. */
ipfsrt_status ipfsrt_http_car_params_parse(const ipfsrt_http_car_query *query, const char *accept,
                                           ipfsrt_http_car_params *params, ipfsrt_error *err);

/* entity-bytes=FROM:TO of an entity of size bytes: inclusive, TO may be "*",
 * negatives count from the end. A range that holds none of the entity gives
 * *length = 0 (the client gets the blocks that prove the entity alone).
 * False when v is not of that form. */
bool ipfsrt_http_entity_bytes_parse(const char *v, uint64_t size, uint64_t *offset,
                                    uint64_t *length);

typedef enum ipfsrt_http_range {
    IPFSRT_HTTP_RANGE_NONE,          /* absent, or not of bytes: answered with the whole body */
    IPFSRT_HTTP_RANGE_OK,            /* *start, *length set */
    IPFSRT_HTTP_RANGE_UNSATISFIABLE, /* answer 416 */
} ipfsrt_http_range;

/* A Range header of "bytes=A-B", "bytes=A-" or "bytes=-N"; of a list of
 * them, the first (RFC 9110 lets a server answer fewer ranges than asked). */
ipfsrt_http_range ipfsrt_http_range_parse(const char *header, uint64_t size, uint64_t *start,
                                          uint64_t *length);

/* "HOST:PORT" with an IPv4 address, "localhost" or "[IPv6]", or ":PORT" and
 * "PORT" for 127.0.0.1; PORT may be 0 (any free one). */
ipfsrt_status ipfsrt_http_listen_parse(const char *listen, struct sockaddr_storage *addr,
                                       ipfsrt_error *err);

/* The Content-Type a plain answer gets for a path, by its extension. */
const char *ipfsrt_http_content_type(const char *path);
#define IPFSRT_HTTP_SNIFF_MAX (1024 * 1024) /* bytes a file may have to be parsed as JSON */
/* Whether a whole file's bytes are a JSON object or array (served as
 * application/json when its name says nothing); no more than
 * IPFSRT_HTTP_SNIFF_MAX bytes are parsed. */
bool ipfsrt_http_is_json(const uint8_t *data, size_t len);
/* Whether an If-None-Match value (entity tags separated by commas, or *)
 * names etag, by the weak comparison RFC 9110 asks of If-None-Match (W/
 * ignored on both). Linear in the value's length. */
bool ipfsrt_http_etag_matches(const char *if_none_match, const char *etag);

#endif
