/* Exact JSON numbers over cJSON (json.c); not part of the public API. */
#ifndef IPFSRT_JSON_INTERNAL_H
#define IPFSRT_JSON_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include "base/base_internal.h"

/* cJSON_ParseWithLengthOpts, keeping each number's source text (see json.c);
 * *end as cJSON sets it (where parsing stopped, on failure too). NULL too for
 * an object that names a key twice. */
IPFSRT_PRIVATE cJSON *ipfsrt_json_parse(const char *text, size_t len, const char **end);
/* An integral number's exact sign and magnitude (from its digits when the
 * document was parsed by ipfsrt_json_parse); false for others. */
IPFSRT_PRIVATE bool ipfsrt_json_integer(const cJSON *item, bool *negative, uint64_t *magnitude);
/* The same, within int64's range. */
IPFSRT_PRIVATE bool ipfsrt_json_int64(const cJSON *item, int64_t *out);
/* cJSON_Print(Unformatted), numbers parsed from text written as that text
 * (the tree is changed while it prints: not for documents other threads read). */
IPFSRT_PRIVATE char *ipfsrt_json_print(const cJSON *doc, bool pretty);
/* A number item that holds v exactly (raw digits past 2^53). */
IPFSRT_PRIVATE cJSON *ipfsrt_json_int64_item(int64_t v);

#endif
