/* Which gateways to use when the caller names none: the IPFS_GATEWAY variable,
 * then the IPIP-280 files, then a built-in list. Public gateways are safe to
 * default to because every block they send is verified. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipfsrt/client.h"
#include "base/base_internal.h"

/* ipfs.io, dweb.link and trustless-gateway.link share one backend, so only one
 * of them is listed. */
static const char *const builtin_gateways[] = {
    "https://trustless-gateway.link",
    "https://4everland.io",
};

static ipfsrt_status add_url(ipfsrt_gateway_list *list, const char *s, size_t n, ipfsrt_error *err) {
    while (n && s[n - 1] == '/') n--; /* the client appends /ipfs/... itself */
    if (!n) return IPFSRT_OK;
    if (!(n > 7 && strncmp(s, "http://", 7) == 0) && !(n > 8 && strncmp(s, "https://", 8) == 0))
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "gateway '%.*s' (from %s) is not an http(s) URL",
                           (int)(n > 200 ? 200 : n), s, list->source);
    if (list->count == IPFSRT_MAX_GATEWAYS)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "more than %d gateways", IPFSRT_MAX_GATEWAYS);
    char *copy = strndup(s, n);
    if (!copy) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    list->urls[list->count++] = copy;
    return IPFSRT_OK;
}

static ipfsrt_status add_separated(ipfsrt_gateway_list *list, const char *s, ipfsrt_error *err) {
    while (*s) {
        size_t skip = strspn(s, ", \t\r\n");
        s += skip;
        size_t n = strcspn(s, ", \t\r\n");
        if (n) {
            ipfsrt_status st = add_url(list, s, n, err);
            if (st != IPFSRT_OK) return st;
        }
        s += n;
    }
    return IPFSRT_OK;
}

/* The first line of an IPIP-280 gateway file; false when there is no such file. */
static bool read_first_line(const char *path, char *line, size_t size) {
    FILE *f = fopen(path, "r");
    if (!f) return false;
    bool ok = fgets(line, (int)size, f) != NULL;
    fclose(f);
    if (ok) line[strcspn(line, "\r\n")] = '\0';
    return ok && line[0];
}

ipfsrt_status ipfsrt_gateway_list_add(ipfsrt_gateway_list *list, const char *url, ipfsrt_error *err) {
    IPFSRT_NEED(url, err);
    if (!list->source[0]) snprintf(list->source, sizeof list->source, "the caller");
    return add_url(list, url, strlen(url), err);
}

ipfsrt_status ipfsrt_gateway_list_default(ipfsrt_gateway_list *list, ipfsrt_error *err) {
    IPFSRT_NEED(list, err);
    const char *env = getenv("IPFS_GATEWAY");
    if (env && *env) {
        snprintf(list->source, sizeof list->source, "IPFS_GATEWAY");
        ipfsrt_status st = add_separated(list, env, err);
        if (st != IPFSRT_OK || list->count) return st;
    }
    const char *home = getenv("HOME");
    const char *ipfs_path = getenv("IPFS_PATH");
    const char *xdg = getenv("XDG_CONFIG_HOME");
    char candidates[4][4096];
    size_t n = 0;
    if (ipfs_path && *ipfs_path) snprintf(candidates[n++], sizeof candidates[0], "%s/gateway", ipfs_path);
    if (home && *home) snprintf(candidates[n++], sizeof candidates[0], "%s/.ipfs/gateway", home);
    if (xdg && *xdg) snprintf(candidates[n++], sizeof candidates[0], "%s/ipfs/gateway", xdg);
    else if (home && *home) snprintf(candidates[n++], sizeof candidates[0], "%s/.config/ipfs/gateway", home);
    snprintf(candidates[n++], sizeof candidates[0], "/etc/ipfs/gateway");
    for (size_t i = 0; i < n; i++) {
        char line[2048];
        if (!read_first_line(candidates[i], line, sizeof line)) continue;
        snprintf(list->source, sizeof list->source, "%.4095s", candidates[i]);
        ipfsrt_status st = add_separated(list, line, err);
        if (st != IPFSRT_OK || list->count) return st;
    }
    snprintf(list->source, sizeof list->source, "the built-in list of public gateways");
    for (size_t i = 0; i < sizeof builtin_gateways / sizeof *builtin_gateways; i++) {
        ipfsrt_status st = add_url(list, builtin_gateways[i], strlen(builtin_gateways[i]), err);
        if (st != IPFSRT_OK) return st;
    }
    return IPFSRT_OK;
}

void ipfsrt_gateway_list_init(ipfsrt_gateway_list *list) {
    IPFSRT_NEED_OR(list, );
    memset(list, 0, sizeof *list);
}

void ipfsrt_gateway_list_free(ipfsrt_gateway_list *list) {
    IPFSRT_NEED_OR(list, );
    for (size_t i = 0; i < list->count; i++) free(list->urls[i]);
    memset(list, 0, sizeof *list);
}
