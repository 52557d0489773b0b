/* libFuzzer target: IPNS records, libp2p private keys, names, RFC 3339
 * times and DNS answers (DNSLink's TXT records) from hostile bytes. A record is verified under the spec vectors'
 * V2 name (its key inlined) and under a name made from its own pubKey, so
 * that both ways of finding the key are walked. Properties: a record that
 * verifies has a value and an EOL that writes back as a time; a private key
 * that reads writes back to the bytes it came from (Ed25519) or to a key of
 * the same name (RSA); a time that parses writes back and parses the same. */
#include <stdlib.h>
#include <string.h>

#include "client/client_internal.h"
#include "ipns/ipns_internal.h"

#define NAME "k51qzi5uqu5dit2ku9mutlfgwyz8u730on38kd10m97m36bjt66my99hb6103f"

static void record(const uint8_t *data, size_t size) {
    ipfsrt_cid name;
    if (ipfsrt_ipns_name_parse(NAME, strlen(NAME), &name, NULL) != IPFSRT_OK) abort();
    ipfsrt_ipns_record rec;
    ipfsrt_ipns_record_init(&rec);
    if (ipfsrt_ipns_record_verify(&name, data, size, INT64_MIN, &rec, NULL) == IPFSRT_OK) {
        char t[40];
        if (!rec.value || !rec.value[0] || !ipfsrt_rfc3339_format(rec.eol_seconds, rec.eol_nanos, t)) abort();
    }
    ipfsrt_ipns_record_free(&rec);
}

static void private_key(const uint8_t *data, size_t size) {
    ipfsrt_key *key, *again;
    if (ipfsrt_key_new_private(data, size, &key, NULL) != IPFSRT_OK) return;
    ipfsrt_buf out;
    ipfsrt_buf_init(&out);
    if (ipfsrt_key_private_encode(key, &out, NULL) != IPFSRT_OK) abort();
    if (ipfsrt_key_kind(key) == IPFSRT_KEY_ED25519 && (out.len != size || memcmp(out.data, data, size))) abort();
    if (ipfsrt_key_new_private(out.data, out.len, &again, NULL) != IPFSRT_OK) abort();
    ipfsrt_cid a, b;
    if (ipfsrt_key_name(key, &a, NULL) != IPFSRT_OK || ipfsrt_key_name(again, &b, NULL) != IPFSRT_OK ||
        !ipfsrt_cid_equal(&a, &b))
        abort();
    ipfsrt_key_free(again);
    ipfsrt_key_free(key);
    ipfsrt_buf_free(&out);
}

static void text(const uint8_t *data, size_t size) {
    ipfsrt_cid name;
    if (ipfsrt_ipns_name_parse((const char *)data, size, &name, NULL) == IPFSRT_OK) {
        char s[IPFSRT_IPNS_NAME_MAX];
        ipfsrt_cid again;
        ipfsrt_ipns_name_format(&name, s);
        if (ipfsrt_ipns_name_parse(s, strlen(s), &again, NULL) != IPFSRT_OK || !ipfsrt_cid_equal(&name, &again)) abort();
    }
    int64_t sec, sec2;
    uint32_t ns, ns2;
    char t[40];
    if (ipfsrt_rfc3339_parse((const char *)data, size, &sec, &ns) && ipfsrt_rfc3339_format(sec, ns, t) &&
        (!ipfsrt_rfc3339_parse(t, strlen(t), &sec2, &ns2) || sec2 != sec || ns2 != ns))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    record(data, size);
    private_key(data, size);
    text(data, size);
    char *linked = NULL; /* a DNS answer, as DNSLink reads it */
    if (ipfsrt_dnslink_value(data, size, "example.org", &linked, NULL) == IPFSRT_OK &&
        strncmp(linked, "/ipfs/", 6) != 0 && strncmp(linked, "/ipns/", 6) != 0)
        abort();
    free(linked);
    return 0;
}
