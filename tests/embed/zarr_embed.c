/* A C host that reads a Zarr array with the core alone (pkg-config ipfsrt:
 * no Lua, no module). `zarr_embed DIR` writes a small v2 array (zstd chunks,
 * a chunk never written) to a folder, packs the folder into a CAR (the
 * packer is experimental: this host opts in), reads a selection from the CAR
 * and prints its root; `zarr_embed DIR GATEWAY ROOT` reads the selection over
 * ipfs:// through a verifying client of the gateway (tests/embed/run.sh
 * serves the CAR with the installed ipfsrt). */
#define IPFSRT_EXPERIMENTAL_API
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ipfsrt.h>

#define ROWS 6
#define COLS 10

static int fail(const char *what, const ipfsrt_error *err) {
    fprintf(stderr, "zarr_embed: %s: %s: %s\n", what, ipfsrt_status_name(err->code), err->message);
    return 1;
}

/* temp[r][c] = r * 100 + c in chunks of 4 x 4, chunk 0.2 never written (fill -1). */
static ipfsrt_status write_array(const char *dir, ipfsrt_error *err) {
    ipfsrt_zarr_store_options opts = {.size = sizeof opts, .writable = true};
    ipfsrt_zarr_store *s;
    ipfsrt_status st = ipfsrt_zarr_store_open(&s, dir, &opts, err);
    if (st != IPFSRT_OK) return st;
    static const char zarray[] = "{\"zarr_format\": 2, \"shape\": [6, 10], \"chunks\": [4, 4], \"dtype\": \"<i4\", "
                                 "\"compressor\": {\"id\": \"zstd\", \"level\": 3}, \"fill_value\": -1, "
                                 "\"order\": \"C\", \"filters\": null}";
    st = ipfsrt_zarr_store_put(s, "temp/.zarray", zarray, strlen(zarray), err);
    ipfsrt_codec *zstd = NULL;
    if (st == IPFSRT_OK) st = ipfsrt_codec_new(&zstd, "zstd", NULL, 4, err);
    for (int ci = 0; ci < 2 && st == IPFSRT_OK; ci++)
        for (int cj = 0; cj < 3 && st == IPFSRT_OK; cj++) {
            if (ci == 0 && cj == 2) continue;
            int32_t v[16];
            for (int i = 0; i < 16; i++) v[i] = (ci * 4 + i / 4) * 100 + cj * 4 + i % 4;
            ipfsrt_buf enc;
            ipfsrt_buf_init(&enc);
            char key[32];
            snprintf(key, sizeof key, "temp/%d.%d", ci, cj);
            st = ipfsrt_codec_encode(zstd, v, sizeof v, &enc, err);
            if (st == IPFSRT_OK) st = ipfsrt_zarr_store_put(s, key, enc.data, enc.len, err);
            ipfsrt_buf_free(&enc);
        }
    if (st == IPFSRT_OK) st = ipfsrt_zarr_store_put(s, "readme", "a Zarr array in temp", 20, err);
    ipfsrt_codec_free(zstd);
    ipfsrt_zarr_store_free(s);
    return st;
}

/* temp[1:5, ::3] from the store at url (client: over ipfs://, else a CAR file), printed. */
static int read_selection(const char *label, const char *url, ipfsrt_client *client) {
    ipfsrt_zarr_store *store = NULL;
    ipfsrt_zarr_node *a = NULL;
    ipfsrt_ndarray out;
    ipfsrt_ndarray_init(&out);
    ipfsrt_ndslice sel[2] = {{.has_start = true, .start = 1, .has_stop = true, .stop = 5, .step = 1}, {.step = 3}};
    ipfsrt_error err;
    int rc = 0;
    ipfsrt_status opened = client ? ipfsrt_zarr_store_new_ipfs(&store, client, url, &err)
                                  : ipfsrt_zarr_store_new_car(&store, url, "", &err);
    if (opened != IPFSRT_OK ||
        ipfsrt_zarr_open(&a, store, "temp", &err) != IPFSRT_OK ||
        ipfsrt_zarr_read(a, sel, 2, &out, NULL, &err) != IPFSRT_OK) {
        rc = fail(label, &err);
    } else {
        const int32_t *v = (const int32_t *)(const void *)out.data;
        printf("temp[1:5, ::3] %s, shape %zux%zu:", label, out.shape[0], out.shape[1]);
        for (size_t i = 0; i < out.shape[0] * out.shape[1]; i++) printf(" %d", (int)v[i]);
        printf("\n");
    }
    ipfsrt_ndarray_free(&out);
    ipfsrt_zarr_node_free(a);
    ipfsrt_zarr_store_free(store);
    return rc;
}

/* Over ipfs:// through the gateway at url, every block verified. */
static int read_over_ipfs(const char *url, const char *root) {
    ipfsrt_gateway_list gateways;
    ipfsrt_gateway_list_init(&gateways);
    ipfsrt_error err;
    if (ipfsrt_gateway_list_add(&gateways, url, &err) != IPFSRT_OK) return fail("gateway", &err);
    ipfsrt_client_options copts = {.size = sizeof copts, .gateways = &gateways};
    ipfsrt_client *client;
    if (ipfsrt_client_new(&client, &copts, &err) != IPFSRT_OK) return fail("client", &err);
    char store_url[256];
    snprintf(store_url, sizeof store_url, "ipfs://%s", root);
    int rc = read_selection("over ipfs:// (verified)", store_url, client);
    ipfsrt_client_free(client);
    ipfsrt_gateway_list_free(&gateways);
    return rc;
}

static int write_and_pack(const char *workdir) {
    char dir[1024], car[1100];
    snprintf(dir, sizeof dir, "%s/zarr-embed", workdir);
    snprintf(car, sizeof car, "%s/zarr-embed.car", workdir);
    remove(car);
    ipfsrt_error err;
    if (write_array(dir, &err) != IPFSRT_OK) return fail("write", &err);
    ipfsrt_pack_options popts;
    ipfsrt_cid root;
    if (ipfsrt_pack_preset("ipfs-car", &popts, &err) != IPFSRT_OK) return fail("pack", &err);
    popts.hidden = true; /* .zarray */
    if (ipfsrt_pack_to_car(dir, &popts, car, 1, &root, &err) != IPFSRT_OK) return fail("pack", &err);
    char cid[IPFSRT_CID_STR_MAX];
    printf("root %s\n", ipfsrt_cid_to_string(&root, cid));
    return read_selection("from the CAR (verified)", car, NULL);
}

int main(int argc, char **argv) {
    if (argc == 2) return write_and_pack(argv[1]);
    if (argc == 4) return read_over_ipfs(argv[2], argv[3]);
    fprintf(stderr, "usage: %s WORKDIR [GATEWAY ROOT]\n", argv[0]);
    return 2;
}
