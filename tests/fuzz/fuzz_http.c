/* libFuzzer target: what the local gateway reads from a request — Range,
 * entity-bytes, the CAR query parameters and Accept, the listen address,
 * If-None-Match, a file told to be JSON. Input lines feed each; the results must describe bytes
 * inside the entity, and an entity tag list names only what it holds. */
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "server/http_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char *field[9] = {0};
    size_t n = 0;
    for (char *p = text, *line; n < 9 && (line = strsep(&p, "\n"));) field[n++] = line;
    uint64_t sizes[] = {0, 1, 1000, UINT64_MAX / 2, UINT64_MAX};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        uint64_t start, len, off, l;
        if (ipfsrt_http_range_parse(field[0], sizes[k], &start, &len) == IPFSRT_HTTP_RANGE_OK &&
            (len == 0 || start >= sizes[k] || len > sizes[k] - start))
            abort();
        if (field[1] && ipfsrt_http_entity_bytes_parse(field[1], sizes[k], &off, &l) &&
            (off > sizes[k] || l > sizes[k] - off))
            abort();
    }
    ipfsrt_http_car_query q = {field[2], field[3], field[4], field[5]};
    ipfsrt_http_car_params params;
    ipfsrt_http_car_params_parse(&q, field[6], &params, NULL);
    struct sockaddr_storage ss;
    if (field[7]) ipfsrt_http_listen_parse(field[7], &ss, NULL);
    /* a tag no list holds unless it says * or names it */
    if (field[8] && ipfsrt_http_etag_matches(field[8], "\"bafkqaaa.raw\"") && !strchr(field[8], '*') &&
        !strstr(field[8], "bafkqaaa.raw"))
        abort();
    ipfsrt_http_content_type(text);
    ipfsrt_http_is_json(data, size);
    free(text);
    return 0;
}
