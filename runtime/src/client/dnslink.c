/* DNSLink: a domain's TXT record at _dnslink.DOMAIN names what it points at
 * ("dnslink=/ipfs/CID[/path]" or "dnslink=/ipns/NAME"), looked up through the
 * system's resolver (libresolv). Nothing signs it: whoever answers for the
 * domain's DNS decides what it names; what it names is then read verified.
 * Several dnslink= values: the first in byte order, so every reader picks the
 * same. */
#include <arpa/nameser.h>
#include <netdb.h>
#include <netinet/in.h>
#include <resolv.h>
#include <stdlib.h>
#include <string.h>

#include "client/client_internal.h"

#define ANSWER_MAX 8192
#define VALUE_MAX 4096

/* One TXT record's character strings, joined (long values come split). */
static bool txt_join(const uint8_t *rdata, size_t len, char *out, size_t size) {
    size_t used = 0;
    for (size_t pos = 0; pos < len;) {
        size_t n = rdata[pos++];
        if (n > len - pos || used + n >= size) return false;
        memcpy(out + used, rdata + pos, n);
        used += n;
        pos += n;
    }
    out[used] = '\0';
    return memchr(out, '\0', used) == NULL;
}

/* The value of a "dnslink=/ipfs/..." or "dnslink=/ipns/..." text, or NULL. */
static const char *dnslink_of(const char *txt) {
    if (strncmp(txt, "dnslink=", 8) != 0) return NULL;
    const char *v = txt + 8;
    return strncmp(v, "/ipfs/", 6) == 0 || strncmp(v, "/ipns/", 6) == 0 ? v : NULL;
}

ipfsrt_status ipfsrt_dnslink_value(const uint8_t *answer, size_t len, const char *domain, char **value,
                                   ipfsrt_error *err) {
    *value = NULL;
    ns_msg msg;
    if (len > ANSWER_MAX || ns_initparse(answer, (int)len, &msg) != 0)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "DNSLink %.200s: the DNS answer does not parse", domain);
    char txt[VALUE_MAX + 16], best[VALUE_MAX + 16] = "";
    for (int i = 0; i < ns_msg_count(msg, ns_s_an); i++) {
        ns_rr rr;
        if (ns_parserr(&msg, ns_s_an, i, &rr) != 0 || ns_rr_type(rr) != ns_t_txt) continue;
        if (!txt_join(ns_rr_rdata(rr), ns_rr_rdlen(rr), txt, sizeof txt) || !dnslink_of(txt)) continue;
        if (!best[0] || strcmp(txt, best) < 0) memcpy(best, txt, strlen(txt) + 1);
    }
    if (!best[0])
        return ipfsrt_fail(err, IPFSRT_ENOT_FOUND, -1, "DNSLink %.200s: no dnslink=/ipfs/ or /ipns/ TXT record at "
                           "_dnslink.%.200s", domain, domain);
    if (!(*value = strdup(dnslink_of(best)))) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_dnslink_lookup(const char *domain, size_t len, char **value, ipfsrt_error *err) {
    char host[300];
    if (len == 0 || len > 253) return ipfsrt_fail(err, IPFSRT_EBAD_CID, -1, "'%.*s' is no domain", (int)len, domain);
    snprintf(host, sizeof host, "_dnslink.%.*s", (int)len, domain);
    struct __res_state state;
    memset(&state, 0, sizeof state);
    uint8_t *answer = malloc(ANSWER_MAX);
    if (!answer) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    int n = res_ninit(&state) == 0 ? res_nquery(&state, host, ns_c_in, ns_t_txt, answer, ANSWER_MAX) : -1;
    int why = state.res_h_errno;
    res_nclose(&state);
    ipfsrt_status st = n < 0 ? ipfsrt_fail(err, IPFSRT_ENOT_FOUND, -1, "DNSLink %.*s: no TXT record at %s (%s)",
                                           (int)len, domain, host, hstrerror(why))
                             : ipfsrt_dnslink_value(answer, (size_t)n, host + 9, value, err);
    free(answer);
    return st;
}
