/* libFuzzer target: an HDF5 (NetCDF-4) file's references through
 * ipfsrt_refs_make, libhdf5 walking it in a child process (the input written
 * to a temporary file first). Properties: the fuzzer's own process never
 * crashes or hangs whatever libhdf5 does (it crashes on damaged files: the
 * corpus holds some); a failure says why; references made are JSON of store
 * keys, each a text or a range of the file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/json_internal.h"
#include "ipfsrt/refs.h"
#include "ipfsrt/zarr_store.h"

static void check_refs(const char *json) {
    cJSON *doc = ipfsrt_json_parse(json, strlen(json), NULL);
    const cJSON *refs = cJSON_GetObjectItemCaseSensitive(doc, "refs");
    if (!cJSON_IsObject(refs)) abort();
    for (const cJSON *k = refs->child; k; k = k->next) {
        if (ipfsrt_zarr_key_check(k->string, NULL) != IPFSRT_OK) abort();
        if (!cJSON_IsString(k) && (!cJSON_IsArray(k) || cJSON_GetArraySize(k) != 3)) abort();
    }
    cJSON_Delete(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char path[] = "/tmp/ipfsrt-fuzz-hdf5-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return 0;
    FILE *f = fdopen(fd, "wb");
    if (!f || fwrite(data, 1, size, f) != size) abort();
    fclose(f);
    ipfsrt_refs_options o;
    ipfsrt_refs_options_init(&o);
    o.hdf5_seconds = 2; /* a damaged file can make libhdf5 loop */
    char *json = NULL;
    ipfsrt_error err = {0};
    if (ipfsrt_refs_make(path, &o, NULL, NULL, &json, &err) == IPFSRT_OK) check_refs(json);
    else if (!err.message[0] || !strstr(err.message, path)) abort();
    free(json);
    unlink(path);
    return 0;
}
