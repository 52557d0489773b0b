/* IPNS names as users paste them: CIDv1 libp2p-key in any multibase (base36
 * k51..., base32 bafz...), or a legacy peer ID, the bare multihash in
 * base58btc (12D3KooW... inlines an Ed25519 key; Qm... hashes an RSA one). */
#include <string.h>

#include "ipfsrt/multibase.h"
#include "ipfsrt/multihash.h"
#include "ipns/ipns_internal.h"

/* The multihash of a key: the key inlined, or its SHA-256. */
static ipfsrt_status key_name(const char *s, size_t len, uint64_t code, const uint8_t *digest, size_t digest_len,
                              ipfsrt_cid *name, ipfsrt_error *err) {
    if (code != IPFSRT_MH_IDENTITY && code != IPFSRT_MH_SHA2_256)
        return ipfsrt_fail(err, IPFSRT_EBAD_CID, -1, "'%.*s' is not an IPNS name: its multihash is %s", (int)len, s,
                           ipfsrt_multihash_name(code) ? ipfsrt_multihash_name(code) : "unknown");
    return ipfsrt_cid_create(name, 1, IPFSRT_CODEC_LIBP2P_KEY, code, digest, digest_len, err);
}

/* libp2p's rule: a peer ID starts with '1' (identity) or "Qm" (sha2-256). */
static ipfsrt_status peer_id(const char *s, size_t len, ipfsrt_cid *name, ipfsrt_error *err) {
    uint8_t buf[IPFSRT_MH_MAX_BYTES];
    size_t n, used;
    ipfsrt_multihash mh;
    ipfsrt_status st = ipfsrt_base_decode(IPFSRT_BASE58BTC, s, len, buf, sizeof buf, &n, err);
    if (st == IPFSRT_OK) st = ipfsrt_multihash_parse(buf, n, &mh, &used, err);
    if (st == IPFSRT_OK && used != n)
        st = ipfsrt_fail(err, IPFSRT_ETRAILING_DATA, (int64_t)used, "%zu bytes after the multihash", n - used);
    if (st != IPFSRT_OK) {
        ipfsrt_error_prefix(err, "peer ID '%.*s': ", (int)(len > 80 ? 80 : len), s);
        return st;
    }
    return key_name(s, len, mh.code, mh.digest, mh.digest_len, name, err);
}

ipfsrt_status ipfsrt_ipns_name_parse(const char *s, size_t len, ipfsrt_cid *name, ipfsrt_error *err) {
    IPFSRT_NEED(s && name, err);
    if (len >= 7 && memcmp(s, "ipns://", 7) == 0) s += 7, len -= 7;
    else if (len >= 6 && memcmp(s, "/ipns/", 6) == 0) s += 6, len -= 6;
    if (len > 0 && (s[0] == '1' || (len > 1 && s[0] == 'Q' && s[1] == 'm'))) return peer_id(s, len, name, err);
    ipfsrt_cid cid;
    ipfsrt_status st = ipfsrt_cid_parse(&cid, s, len, NULL, err);
    if (st != IPFSRT_OK) return st;
    if (cid.codec != IPFSRT_CODEC_LIBP2P_KEY)
        return ipfsrt_fail(err, IPFSRT_EBAD_CID, -1, "'%.*s' is not an IPNS name: a %s CID, not libp2p-key",
                           (int)(len > 80 ? 80 : len), s,
                           ipfsrt_codec_name(cid.codec) ? ipfsrt_codec_name(cid.codec) : "unknown");
    return key_name(s, len, cid.hash_code, cid.bytes + cid.digest_offset, cid.digest_len, name, err);
}

const char *ipfsrt_ipns_name_format(const ipfsrt_cid *name, char out[IPFSRT_IPNS_NAME_MAX]) {
    IPFSRT_NEED_OR(name, NULL);
    IPFSRT_NEED_OR(out, NULL);
    if (ipfsrt_cid_format(name, IPFSRT_BASE36, out, IPFSRT_IPNS_NAME_MAX, NULL) != IPFSRT_OK) out[0] = '\0';
    return out;
}
