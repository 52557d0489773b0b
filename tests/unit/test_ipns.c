#include "testutil.h"
#include "ipns/ipns_internal.h"

#define NOW 1796000000 /* 2026-12 */

/* The vector of that kind, filed under file_name, verified as name_text's. */
static ipfsrt_status verify_as(const char *kind, const char *file_name, const char *name_text, ipfsrt_ipns_record *rec,
                               ipfsrt_error *err) {
    char path[512];
    snprintf(path, sizeof path, "ipns/%s_%s.ipns-record", file_name, kind);
    size_t len;
    uint8_t *buf = read_file(fixture_path(path), &len);
    ipfsrt_cid name;
    assert_int_equal(ipfsrt_ipns_name_parse(name_text, strlen(name_text), &name, NULL), IPFSRT_OK);
    ipfsrt_status st = ipfsrt_ipns_record_verify(&name, buf, len, NOW, rec, err);
    free(buf);
    return st;
}

static ipfsrt_status verify_file(const char *kind, const char *name_text, ipfsrt_ipns_record *rec, ipfsrt_error *err) {
    return verify_as(kind, name_text, name_text, rec, err);
}

/* The spec's six test vectors. */
static void test_spec_vectors(void **state) {
    (void)state;
    ipfsrt_ipns_record rec;
    ipfsrt_ipns_record_init(&rec);
    ipfsrt_error err;
    assert_int_equal(verify_file("v1-v2", "k51qzi5uqu5dlkw8pxuw9qmqayfdeh4kfebhmreauqdc6a7c3y7d5i9fi8mk9w", &rec, &err),
                     IPFSRT_OK);
    assert_string_equal(rec.value, "/ipfs/bafkqaddwgevxmmraojswg33smq");
    assert_true(rec.has_v1);
    assert_int_equal(rec.key_type, IPFSRT_KEY_ED25519);
    assert_int_equal(verify_file("v1-v2-broken-signature-v1", "k51qzi5uqu5dilgf7gorsh9vcqqq4myo6jd4zmqkuy9pxyxi5fua3uf7axph4y",
                                 &rec, &err),
                     IPFSRT_OK);
    assert_string_equal(rec.value, "/ipfs/bafkqahtwgevxmmrao5uxi2bamjzg623fnyqhg2lhnzqxi5lsmuqhmmi");
    assert_int_equal(verify_file("v2", "k51qzi5uqu5dit2ku9mutlfgwyz8u730on38kd10m97m36bjt66my99hb6103f", &rec, &err),
                     IPFSRT_OK);
    assert_false(rec.has_v1);
    assert_int_equal(verify_file("v1", "k51qzi5uqu5dm4tm0wt8srkg9h9suud4wuiwjimndrkydqm81cqtlb5ak6p7ku", &rec, &err),
                     IPFSRT_EBAD_RECORD);
    assert_non_null(strstr(err.message, "k51qzi5uqu5dm4tm0wt8srkg9h9suud4wuiwjimndrkydqm81cqtlb5ak6p7ku"));
    assert_null(rec.value);
    assert_int_equal(verify_file("v1-v2-broken-v1-value", "k51qzi5uqu5dlmit2tuwdvnx4sbnyqgmvbxftl0eo3f33wwtb9gr7yozae9kpw",
                                 &rec, &err),
                     IPFSRT_EBAD_RECORD);
    assert_int_equal(verify_file("v1-v2-broken-signature-v2", "k51qzi5uqu5diamp7qnnvs1p1gzmku3eijkeijs3418j23j077zrkok63xdm8c",
                                 &rec, &err),
                     IPFSRT_EBAD_SIGNATURE);
    /* a valid record, asked for under another name */
    assert_int_equal(verify_as("v2", "k51qzi5uqu5dit2ku9mutlfgwyz8u730on38kd10m97m36bjt66my99hb6103f",
                               "k51qzi5uqu5dlkw8pxuw9qmqayfdeh4kfebhmreauqdc6a7c3y7d5i9fi8mk9w", &rec, &err),
                     IPFSRT_EBAD_SIGNATURE);
    ipfsrt_ipns_record_free(&rec);
}

static ipfsrt_ipns_create_options options(const char *value, uint64_t sequence, int64_t eol) {
    ipfsrt_ipns_create_options o;
    ipfsrt_ipns_create_options_init(&o);
    o.value = value;
    o.sequence = sequence;
    o.eol_seconds = eol;
    o.eol_nanos = 5;
    return o;
}

/* Where signatureV1's bytes lie in a record (field 2 follows value, field 1):
 * V1 signatures are never checked, so a byte changed there changes nothing. */
static void v1_signature_span(const uint8_t *p, size_t len, size_t *from, size_t *to) {
    size_t pos = 0;
    *from = *to = 0;
    while (pos < len) {
        uint8_t tag = p[pos++];
        uint64_t n = 0;
        for (unsigned shift = 0; pos < len; shift += 7) {
            n |= (uint64_t)(p[pos] & 0x7f) << shift;
            if (!(p[pos++] & 0x80)) break;
        }
        if ((tag & 7) == 0) continue; /* a varint field: n was its value */
        if (tag == 0x12) *from = pos, *to = pos + (size_t)n;
        pos += (size_t)n;
    }
}

/* Records made by each key type verify under the key's name, and any byte of
 * them changed fails (but signatureV1's). */
static void check_made(ipfsrt_key_type type, bool v1) {
    ipfsrt_key *key;
    assert_int_equal(ipfsrt_key_new_random(type, &key, NULL), IPFSRT_OK);
    ipfsrt_cid name;
    assert_int_equal(ipfsrt_key_name(key, &name, NULL), IPFSRT_OK);
    assert_int_equal(name.hash_code, type == IPFSRT_KEY_ED25519 ? IPFSRT_MH_IDENTITY : IPFSRT_MH_SHA2_256);
    ipfsrt_ipns_create_options o = options("/ipfs/bafkqaddwgevxmmraojswg33smq/a", 7, NOW + 3600);
    o.v1 = v1;
    ipfsrt_buf rec_bytes;
    ipfsrt_buf_init(&rec_bytes);
    assert_int_equal(ipfsrt_ipns_record_create(key, &o, &rec_bytes, NULL), IPFSRT_OK);
    ipfsrt_ipns_record rec;
    ipfsrt_ipns_record_init(&rec);
    ipfsrt_error err;
    assert_int_equal(ipfsrt_ipns_record_verify(&name, rec_bytes.data, rec_bytes.len, NOW, &rec, &err), IPFSRT_OK);
    assert_string_equal(rec.value, "/ipfs/bafkqaddwgevxmmraojswg33smq/a");
    assert_int_equal(rec.sequence, 7);
    assert_int_equal(rec.eol_seconds, NOW + 3600);
    assert_int_equal(rec.eol_nanos, 5);
    assert_int_equal(rec.ttl_ns, 300000000000ull);
    assert_int_equal(rec.has_v1, v1);
    /* expired: refused, unless the EOL is not judged */
    assert_int_equal(ipfsrt_ipns_record_verify(&name, rec_bytes.data, rec_bytes.len, NOW + 3601, &rec, &err),
                     IPFSRT_EEXPIRED);
    assert_int_equal(ipfsrt_ipns_record_verify(&name, rec_bytes.data, rec_bytes.len, INT64_MIN, &rec, &err), IPFSRT_OK);
    size_t v1_from, v1_to;
    v1_signature_span(rec_bytes.data, rec_bytes.len, &v1_from, &v1_to);
    assert_int_equal(v1_to > v1_from, v1);
    for (size_t i = 0; i < rec_bytes.len; i++) {
        if (i >= v1_from && i < v1_to) continue;
        rec_bytes.data[i] ^= 0x01;
        assert_int_not_equal(ipfsrt_ipns_record_verify(&name, rec_bytes.data, rec_bytes.len, NOW, &rec, &err),
                             IPFSRT_OK);
        assert_null(rec.value);
        rec_bytes.data[i] ^= 0x01;
    }
    ipfsrt_ipns_record_free(&rec);
    ipfsrt_buf_free(&rec_bytes);
    ipfsrt_key_free(key);
}

static void test_made_ed25519(void **state) {
    (void)state;
    check_made(IPFSRT_KEY_ED25519, false);
    check_made(IPFSRT_KEY_ED25519, true);
}

static void test_made_rsa(void **state) {
    (void)state;
    check_made(IPFSRT_KEY_RSA, true);
}

/* Keys survive libp2p's PrivateKey protobuf; broken ones are refused. */
static void test_keys(void **state) {
    (void)state;
    ipfsrt_key *key, *again;
    assert_int_equal(ipfsrt_key_new_random(IPFSRT_KEY_ED25519, &key, NULL), IPFSRT_OK);
    ipfsrt_buf priv, pub;
    ipfsrt_buf_init(&priv);
    ipfsrt_buf_init(&pub);
    assert_int_equal(ipfsrt_key_private_encode(key, &priv, NULL), IPFSRT_OK);
    assert_int_equal(priv.len, 68); /* 08 01 12 40, seed and public key */
    assert_int_equal(ipfsrt_key_public_encode(key, &pub, NULL), IPFSRT_OK);
    assert_int_equal(pub.len, 36);
    assert_int_equal(ipfsrt_key_new_private(priv.data, priv.len, &again, NULL), IPFSRT_OK);
    ipfsrt_cid a, b;
    assert_int_equal(ipfsrt_key_name(key, &a, NULL), IPFSRT_OK);
    assert_int_equal(ipfsrt_key_name(again, &b, NULL), IPFSRT_OK);
    assert_true(ipfsrt_cid_equal(&a, &b));
    ipfsrt_key_free(again);
    priv.data[priv.len - 1] ^= 1; /* the public half no longer the seed's */
    ipfsrt_error err;
    assert_int_equal(ipfsrt_key_new_private(priv.data, priv.len, &again, &err), IPFSRT_EBAD_RECORD);
    assert_null(again);
    assert_int_equal(ipfsrt_key_new_private(priv.data, 3, &again, &err), IPFSRT_EBAD_RECORD);
    uint8_t secp[] = {0x08, 0x02, 0x12, 0x01, 0x00};
    assert_int_equal(ipfsrt_key_new_private(secp, sizeof secp, &again, &err), IPFSRT_EUNSUPPORTED);
    ipfsrt_buf_free(&priv);
    ipfsrt_buf_free(&pub);
    ipfsrt_key_free(key);
}

/* Names in the forms users paste all mean the same key. */
static void test_names(void **state) {
    (void)state;
    const char *k51 = "k51qzi5uqu5dlkw8pxuw9qmqayfdeh4kfebhmreauqdc6a7c3y7d5i9fi8mk9w";
    ipfsrt_cid name, other;
    assert_int_equal(ipfsrt_ipns_name_parse(k51, strlen(k51), &name, NULL), IPFSRT_OK);
    char text[IPFSRT_IPNS_NAME_MAX], s[IPFSRT_CID_STR_MAX];
    assert_string_equal(ipfsrt_ipns_name_format(&name, text), k51);
    /* base32 CIDv1, and the legacy peer ID (base58btc identity multihash) */
    ipfsrt_cid_to_string(&name, s);
    assert_int_equal(ipfsrt_ipns_name_parse(s, strlen(s), &other, NULL), IPFSRT_OK);
    assert_true(ipfsrt_cid_equal(&name, &other));
    char peer[128];
    size_t n;
    assert_int_equal(ipfsrt_base_encode(IPFSRT_BASE58BTC, name.bytes + name.mh_offset, name.len - name.mh_offset, peer,
                                        sizeof peer, &n, NULL),
                     IPFSRT_OK);
    assert_memory_equal(peer, "12D3KooW", 8);
    assert_int_equal(ipfsrt_ipns_name_parse(peer, n, &other, NULL), IPFSRT_OK);
    assert_true(ipfsrt_cid_equal(&name, &other));
    char url[160];
    snprintf(url, sizeof url, "ipns://%s", k51);
    assert_int_equal(ipfsrt_ipns_name_parse(url, strlen(url), &other, NULL), IPFSRT_OK);
    const char *not_names[] = {"bafkqaddwgevxmmraojswg33smq", "QmYzfKSE55XCjD1MW128RfciAf2DViABhEiXfgVFMabSjN1", "",
                               "k51", "example.org"};
    for (size_t i = 0; i < sizeof not_names / sizeof not_names[0]; i++)
        assert_int_not_equal(ipfsrt_ipns_name_parse(not_names[i], strlen(not_names[i]), &other, NULL), IPFSRT_OK);
}

static void test_rfc3339(void **state) {
    (void)state;
    int64_t s;
    uint32_t ns;
    assert_true(ipfsrt_rfc3339_parse("1970-01-01T00:00:00.000000001Z", 30, &s, &ns));
    assert_int_equal(s, 0);
    assert_int_equal(ns, 1);
    assert_true(ipfsrt_rfc3339_parse("2123-08-14T12:17:03.694052Z", 27, &s, &ns));
    assert_int_equal(ns, 694052000);
    assert_true(ipfsrt_rfc3339_parse("2024-02-29T12:00:00+01:30", 25, &s, &ns));
    assert_int_equal(s, 1709208000 - 5400);
    char out[40];
    assert_true(ipfsrt_rfc3339_format(1709208000, 7, out));
    assert_string_equal(out, "2024-02-29T12:00:00.000000007Z");
    assert_true(ipfsrt_rfc3339_parse(out, strlen(out), &s, &ns));
    assert_int_equal(s, 1709208000);
    const char *bad[] = {"2023-02-29T00:00:00Z", "2024-13-01T00:00:00Z", "2024-01-01 00:00:00Z", "2024-01-01T00:00:00",
                         "2024-01-01T00:00:00.Z", "2024-01-01T24:00:00Z", "2024-01-01T00:00:00+1:00", "x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_false(ipfsrt_rfc3339_parse(bad[i], strlen(bad[i]), &s, &ns));
    assert_false(ipfsrt_rfc3339_format(-62135596801, 0, out)); /* year 0 */
}

/* Hostile records: too large, garbage, no data. */
static void test_hostile(void **state) {
    (void)state;
    const char *k51 = "k51qzi5uqu5dlkw8pxuw9qmqayfdeh4kfebhmreauqdc6a7c3y7d5i9fi8mk9w";
    ipfsrt_cid name;
    assert_int_equal(ipfsrt_ipns_name_parse(k51, strlen(k51), &name, NULL), IPFSRT_OK);
    ipfsrt_ipns_record rec;
    ipfsrt_ipns_record_init(&rec);
    ipfsrt_error err;
    uint8_t *big = calloc(1, IPFSRT_IPNS_MAX_RECORD + 1);
    assert_int_equal(ipfsrt_ipns_record_verify(&name, big, IPFSRT_IPNS_MAX_RECORD + 1, NOW, &rec, &err),
                     IPFSRT_ETOO_LARGE);
    free(big);
    const uint8_t garbage[] = {0x4a, 0xff, 0xff, 0xff, 0xff, 0x0f};
    assert_int_equal(ipfsrt_ipns_record_verify(&name, garbage, sizeof garbage, NOW, &rec, &err), IPFSRT_EBAD_RECORD);
    assert_int_equal(ipfsrt_ipns_record_verify(&name, NULL, 0, NOW, &rec, &err), IPFSRT_EBAD_RECORD);
    const uint8_t no_cbor[] = {0x42, 0x01, 0x00, 0x4a, 0x01, 0xff};
    assert_int_equal(ipfsrt_ipns_record_verify(&name, no_cbor, sizeof no_cbor, NOW, &rec, &err), IPFSRT_EBAD_DAGCBOR);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_vectors), cmocka_unit_test(test_made_ed25519), cmocka_unit_test(test_made_rsa),
        cmocka_unit_test(test_keys),         cmocka_unit_test(test_names),        cmocka_unit_test(test_rfc3339),
        cmocka_unit_test(test_hostile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
