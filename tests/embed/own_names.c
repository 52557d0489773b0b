/* A host with functions of its own named like the library's internals (and,
 * linked to the shared library, like one of its public functions): the
 * library must keep calling its own. Each of these fails loudly if the
 * library ever reaches it. */
#define IPFSRT_EXPERIMENTAL_API /* it calls experimental functions too */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ipfsrt.h>

static void not_mine(const char *name) {
    fprintf(stderr, "own_names: the library called the host's %s\n", name);
    exit(3);
}

/* internal names of the CAR reader, the JSON helper and the index */
void *ipfsrt_json_parse(const char *text, size_t len, const char **end);
void *ipfsrt_json_parse(const char *text, size_t len, const char **end) {
    (void)text, (void)len, (void)end;
    not_mine("ipfsrt_json_parse");
    return NULL;
}
int ipfsrt_car_section_decode(void);
int ipfsrt_car_section_decode(void) {
    not_mine("ipfsrt_car_section_decode");
    return 0;
}
int ipfsrt_car_index_build(void);
int ipfsrt_car_index_build(void) {
    not_mine("ipfsrt_car_index_build");
    return 0;
}

#ifdef OWN_PUBLIC_NAME
/* A public name the CAR reader calls inside the library: the shared library
 * binds its own calls to itself, even when the host exports its symbols
 * (-rdynamic). */
void ipfsrt_dagcbor_doc_free(ipfsrt_dagcbor_doc *doc) {
    (void)doc;
    not_mine("ipfsrt_dagcbor_doc_free");
}
#endif

static int fail(const char *what, const ipfsrt_error *err) {
    fprintf(stderr, "own_names: %s: %s: %s\n", what, ipfsrt_status_name(err->code), err->message);
    return 1;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s FILE.car\n", argv[0]);
        return 2;
    }
    ipfsrt_error err;
    ipfsrt_car_counts counts = IPFSRT_CAR_COUNTS_INIT;
    if (ipfsrt_car_verify_file(argv[1], NULL, NULL, NULL, &counts, &err) != IPFSRT_OK)
        return fail("verify", &err);
    ipfsrt_codec *zstd;
    if (ipfsrt_codec_new(&zstd, "zstd", "{\"level\": 5}", 4, &err) != IPFSRT_OK) return fail("codec", &err);
    ipfsrt_buf out;
    ipfsrt_buf_init(&out);
    ipfsrt_status st = ipfsrt_codec_encode(zstd, "hello hello hello", 17, &out, &err);
    ipfsrt_codec_free(zstd);
    size_t encoded = out.len;
    ipfsrt_buf_free(&out);
    if (st != IPFSRT_OK) return fail("encode", &err);
    printf("own names: %llu blocks verified, %zu bytes of zstd: the library used its own functions\n",
           (unsigned long long)counts.blocks, encoded);
    return 0;
}
