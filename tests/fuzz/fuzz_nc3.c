/* libFuzzer target: NetCDF-3 headers through ipfsrt_nc3_parse (the input as a
 * whole file) and the references made of them (ipfsrt_nc3_refs, nothing
 * inline). Properties: a parse either fails with a message or gives
 * variables whose data lies inside the file; every reference made is a range
 * inside the file under a valid store key. */
#include <stdlib.h>
#include <string.h>

#include "refs/make_internal.h"
#include "netcdf/nc3.h"
#include "ipfsrt/zarr_store.h"

static void check_refs(const cJSON *refs, size_t size) {
    for (const cJSON *k = refs->child; k; k = k->next) {
        if (ipfsrt_zarr_key_check(k->string, NULL) != IPFSRT_OK) abort();
        if (cJSON_IsString(k)) continue; /* metadata */
        double offset = cJSON_GetArrayItem(k, 1)->valuedouble, length = cJSON_GetArrayItem(k, 2)->valuedouble;
        if (offset < 0 || length < 0 || offset + length > (double)size) abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ipfsrt_nc3 nc;
    ipfsrt_error err = {0};
    if (ipfsrt_nc3_parse(&nc, data, size, size, &err) != IPFSRT_OK) {
        if (!err.message[0]) abort();
        return 0;
    }
    cJSON *refs = cJSON_CreateObject();
    if (refs && ipfsrt_nc3_refs(&nc, "f.nc", NULL, 0, NULL, NULL, refs, &err) == IPFSRT_OK) check_refs(refs, size);
    else if (refs && !err.message[0]) abort();
    cJSON_Delete(refs);
    ipfsrt_nc3_free(&nc);
    return 0;
}
