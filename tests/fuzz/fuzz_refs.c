/* libFuzzer target: kerchunk references through ipfsrt_zarr_refs_parse (JSON,
 * templates, gen's arithmetic and dimensions, base64). Properties: a parse
 * either fails with a message or gives a table whose keys are sorted, unique
 * and valid store keys, each reference inline or naming one of the targets,
 * every range inside 2^53 bytes. */
#include <stdlib.h>
#include <string.h>

#include "refs/refs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ipfsrt_zarr_refs refs;
    ipfsrt_error err = {0};
    if (ipfsrt_zarr_refs_parse(&refs, (const char *)data, size, "ipfs://bafkqaaa/dir/refs.json", &err) != IPFSRT_OK) {
        if (!err.message[0]) abort();
        return 0;
    }
    for (size_t i = 0; i < refs.count; i++) {
        const ipfsrt_zarr_ref *r = &refs.refs[i];
        if (ipfsrt_zarr_key_check(r->key, NULL) != IPFSRT_OK) abort();
        if (i && strcmp(refs.refs[i - 1].key, r->key) >= 0) abort();
        if (ipfsrt_zarr_refs_find(&refs, r->key) != r) abort();
        if (!r->data && r->target >= refs.ntargets) abort();
        if (!r->data && r->length != IPFSRT_REFS_WHOLE &&
            (r->offset >= (1ULL << 53) || r->length >= (1ULL << 53)))
            abort();
    }
    ipfsrt_zarr_refs_free(&refs);
    return 0;
}
