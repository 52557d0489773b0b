/* IPNS records: the IpnsEntry protobuf and its signed DAG-CBOR data, made and
 * verified by the "IPNS Record and Verification" spec's rules, in its order,
 * failing on the first broken one.
 *   IpnsEntry { value = 1; signatureV1 = 2; validityType = 3; validity = 4;
 *               sequence = 5; ttl = 6; pubKey = 7; signatureV2 = 8; data = 9 } */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipfsrt/dagcbor.h"
#include "ipld/protobuf.h"
#include "ipns/ipns_internal.h"

#define SIGNATURE_PREFIX "ipns-signature:"
#define DEFAULT_TTL_NS (300ull * 1000000000ull) /* the spec's suggested 5 minutes */

typedef struct field {
    const uint8_t *p;
    size_t n;
    bool present;
} field;

typedef struct entry {
    field value, sig_v1, validity, pub, sig_v2, data;
    uint64_t validity_type, sequence, ttl;
} entry;

/* The name and what is wrong, as every verification error says them (the
 * name in err->cid too). */
static ipfsrt_status bad(ipfsrt_error *err, ipfsrt_status code, const ipfsrt_cid *name, const char *what) {
    char s[IPFSRT_IPNS_NAME_MAX];
    ipfsrt_fail(err, code, -1, "IPNS record for %s: %s", ipfsrt_ipns_name_format(name, s), what);
    if (err) snprintf(err->cid, sizeof err->cid, "%s", s);
    return code;
}

/* A field of a wire type we do not read, skipped (records may grow fields). */
static bool skip_field(const uint8_t *buf, size_t len, size_t *pos, unsigned wire) {
    uint64_t v;
    const uint8_t *p;
    size_t n;
    switch (wire) {
    case PB_VARINT: return pb_varint(buf, len, pos, &v);
    case PB_LEN: return pb_bytes(buf, len, pos, &p, &n);
    case PB_I64: return len - *pos >= 8 && (*pos += 8, true);
    case PB_I32: return len - *pos >= 4 && (*pos += 4, true);
    default: return false;
    }
}

static bool entry_field(const uint8_t *buf, size_t len, size_t *pos, uint64_t tag, entry *e) {
    field *bytes_fields[] = {NULL, &e->value, &e->sig_v1, NULL, &e->validity, NULL, NULL, &e->pub, &e->sig_v2, &e->data};
    uint64_t *varint_fields[] = {NULL, NULL, NULL, &e->validity_type, NULL, &e->sequence, &e->ttl};
    uint64_t number = tag >> 3;
    unsigned wire = (unsigned)(tag & 7);
    if (number < 10 && bytes_fields[number]) {
        field *f = bytes_fields[number];
        return wire == PB_LEN && (f->present = pb_bytes(buf, len, pos, &f->p, &f->n));
    }
    if (number < 7 && varint_fields[number]) return wire == PB_VARINT && pb_varint(buf, len, pos, varint_fields[number]);
    return number != 0 && skip_field(buf, len, pos, wire);
}

static bool entry_parse(const uint8_t *buf, size_t len, entry *e, size_t *at) {
    memset(e, 0, sizeof *e);
    for (size_t pos = 0; pos < len;) {
        uint64_t tag;
        *at = pos;
        if (!pb_varint(buf, len, &pos, &tag) || !entry_field(buf, len, &pos, tag, e)) return false;
    }
    return true;
}

/* The key that signed: the record's pubKey, whose name must be this one, or the key the name inlines. */
static ipfsrt_status signing_key(const ipfsrt_cid *name, const entry *e, field *key, ipfsrt_error *err) {
    if (e->pub.present) {
        ipfsrt_cid hashed;
        ipfsrt_status st = ipfsrt_pubkey_name(e->pub.p, e->pub.n, &hashed, err);
        if (st != IPFSRT_OK) return st;
        if (!ipfsrt_cid_equal(&hashed, name)) return bad(err, IPFSRT_EBAD_RECORD, name, "its pubKey is another name's key");
        *key = e->pub;
        return IPFSRT_OK;
    }
    if (name->hash_code != IPFSRT_MH_IDENTITY)
        return bad(err, IPFSRT_EBAD_RECORD, name, "no pubKey, and the name hashes its key rather than inlining it");
    *key = (field){name->bytes + name->digest_offset, name->digest_len, true};
    return IPFSRT_OK;
}

/* The signed data's fields (strict DAG-CBOR; fields beyond these ignored). */
typedef struct signed_data {
    const ipfsrt_dagcbor_item *value, *validity, *validity_type, *sequence, *ttl;
} signed_data;

static bool data_fields(const ipfsrt_dagcbor_doc *doc, signed_data *d) {
    const ipfsrt_dagcbor_item *m = doc->root;
    *d = (signed_data){ipfsrt_dagcbor_map_get(m, "Value"), ipfsrt_dagcbor_map_get(m, "Validity"),
                       ipfsrt_dagcbor_map_get(m, "ValidityType"), ipfsrt_dagcbor_map_get(m, "Sequence"),
                       ipfsrt_dagcbor_map_get(m, "TTL")};
    return d->value && d->value->type == IPFSRT_DAGCBOR_BYTES && d->validity &&
           d->validity->type == IPFSRT_DAGCBOR_BYTES && d->validity_type &&
           d->validity_type->type == IPFSRT_DAGCBOR_UINT && d->sequence && d->sequence->type == IPFSRT_DAGCBOR_UINT &&
           d->ttl && d->ttl->type == IPFSRT_DAGCBOR_UINT;
}

static bool same_bytes(const field *f, const ipfsrt_dagcbor_item *it) {
    size_t n = f->present ? f->n : 0;
    return n == it->v.str.len && (n == 0 || memcmp(f->p, it->v.str.ptr, n) == 0);
}

/* Legacy V1 fields, when the record has them, must say what the signed data says. */
static bool v1_agrees(const entry *e, const signed_data *d) {
    return same_bytes(&e->value, d->value) && same_bytes(&e->validity, d->validity) &&
           e->validity_type == d->validity_type->v.u && e->sequence == d->sequence->v.u && e->ttl == d->ttl->v.u;
}

static ipfsrt_status check_signature(const ipfsrt_cid *name, const entry *e, const field *key,
                                     ipfsrt_key_type *type, ipfsrt_error *err) {
    size_t plen = strlen(SIGNATURE_PREFIX);
    uint8_t *msg = malloc(plen + e->data.n);
    if (!msg) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    memcpy(msg, SIGNATURE_PREFIX, plen);
    memcpy(msg + plen, e->data.p, e->data.n);
    ipfsrt_status st = ipfsrt_pubkey_verify(key->p, key->n, msg, plen + e->data.n, e->sig_v2.p, e->sig_v2.n, type, err);
    free(msg);
    if (st != IPFSRT_OK) {
        char s[IPFSRT_IPNS_NAME_MAX];
        ipfsrt_error_prefix(err, "IPNS record for %s: signatureV2: ", ipfsrt_ipns_name_format(name, s));
    }
    return st;
}

/* What the verified data says, into rec; then whether the EOL has passed. */
static ipfsrt_status fill_record(const ipfsrt_cid *name, const signed_data *d, int64_t now, ipfsrt_ipns_record *rec,
                                 ipfsrt_error *err) {
    const ipfsrt_dagcbor_item *v = d->value, *t = d->validity;
    if (d->validity_type->v.u != 0) return bad(err, IPFSRT_EBAD_RECORD, name, "a ValidityType other than 0 (EOL)");
    if (!ipfsrt_rfc3339_parse((const char *)t->v.str.ptr, t->v.str.len, &rec->eol_seconds, &rec->eol_nanos) ||
        t->v.str.len >= sizeof rec->validity)
        return bad(err, IPFSRT_EBAD_RECORD, name, "its Validity is not an RFC 3339 time");
    if (!v->v.str.len || memchr(v->v.str.ptr, '\0', v->v.str.len))
        return bad(err, IPFSRT_EBAD_RECORD, name, "its Value is empty or holds a NUL");
    memcpy(rec->validity, t->v.str.ptr, t->v.str.len);
    rec->validity[t->v.str.len] = '\0';
    rec->sequence = d->sequence->v.u;
    rec->ttl_ns = d->ttl->v.u;
    if (!(rec->value = malloc(v->v.str.len + 1))) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    memcpy(rec->value, v->v.str.ptr, v->v.str.len);
    rec->value[v->v.str.len] = '\0';
    if (now != INT64_MIN && now >= rec->eol_seconds) {
        char what[128];
        snprintf(what, sizeof what, "expired at %s", rec->validity);
        return bad(err, IPFSRT_EEXPIRED, name, what);
    }
    return IPFSRT_OK;
}

void ipfsrt_ipns_record_init(ipfsrt_ipns_record *rec) {
    IPFSRT_NEED_OR(rec, );
    memset(rec, 0, sizeof *rec);
}

void ipfsrt_ipns_record_free(ipfsrt_ipns_record *rec) {
    if (!rec) return;
    free(rec->value);
    memset(rec, 0, sizeof *rec);
}

ipfsrt_status ipfsrt_ipns_record_verify(const ipfsrt_cid *name, const uint8_t *buf, size_t len, int64_t now_seconds,
                                        ipfsrt_ipns_record *rec, ipfsrt_error *err) {
    IPFSRT_NEED(name && rec && (buf || !len), err);
    ipfsrt_ipns_record_free(rec);
    entry e;
    size_t at = 0;
    field key = {0};
    char what[96];
    if (len > IPFSRT_IPNS_MAX_RECORD) return bad(err, IPFSRT_ETOO_LARGE, name, "over 10 KiB");
    if (!entry_parse(buf, len, &e, &at)) {
        snprintf(what, sizeof what, "malformed protobuf at byte offset %zu", at);
        return bad(err, IPFSRT_EBAD_RECORD, name, what);
    }
    if (!e.sig_v2.present || !e.sig_v2.n || !e.data.present || !e.data.n)
        return bad(err, IPFSRT_EBAD_RECORD, name, "no signatureV2 or no data (V1-only records are not accepted)");
    ipfsrt_status st = signing_key(name, &e, &key, err);
    ipfsrt_dagcbor_doc doc;
    if (st == IPFSRT_OK && (st = ipfsrt_dagcbor_decode(e.data.p, e.data.n, &doc, err)) != IPFSRT_OK) {
        char s[IPFSRT_IPNS_NAME_MAX];
        ipfsrt_error_prefix(err, "IPNS record for %s: data: ", ipfsrt_ipns_name_format(name, s));
        if (err) ipfsrt_ipns_name_format(name, err->cid);
        return st;
    }
    if (st != IPFSRT_OK) return st;
    signed_data d;
    if (!data_fields(&doc, &d)) st = bad(err, IPFSRT_EBAD_RECORD, name, "data lacks one of Value, Validity, "
                                                                        "ValidityType, Sequence and TTL");
    if (st == IPFSRT_OK) st = check_signature(name, &e, &key, &rec->key_type, err);
    rec->has_v1 = e.sig_v1.present || e.value.present;
    if (st == IPFSRT_OK && rec->has_v1 && !v1_agrees(&e, &d))
        st = bad(err, IPFSRT_EBAD_RECORD, name, "its V1 fields differ from its signed data");
    if (st == IPFSRT_OK) st = fill_record(name, &d, now_seconds, rec, err);
    ipfsrt_dagcbor_doc_free(&doc);
    if (st != IPFSRT_OK) ipfsrt_ipns_record_free(rec);
    if (st != IPFSRT_OK && err) ipfsrt_ipns_name_format(name, err->cid); /* every failure names the name */
    return st;
}

/* ----------------------------------------------------------------- making */

void ipfsrt_ipns_create_options_init(ipfsrt_ipns_create_options *opts) {
    IPFSRT_NEED_OR(opts, );
    memset(opts, 0, sizeof *opts);
    opts->size = sizeof *opts;
    opts->ttl_ns = DEFAULT_TTL_NS;
}

/* The signed data, its keys in DAG-CBOR's order (length, then bytes). */
static void data_encode(const ipfsrt_ipns_create_options *o, const char *validity, ipfsrt_buf *b) {
    ipfsrt_dagcbor_put_map(b, 5);
    ipfsrt_dagcbor_put_text(b, "TTL", 3);
    ipfsrt_dagcbor_put_uint(b, o->ttl_ns);
    ipfsrt_dagcbor_put_text(b, "Value", 5);
    ipfsrt_dagcbor_put_bytes(b, (const uint8_t *)o->value, strlen(o->value));
    ipfsrt_dagcbor_put_text(b, "Sequence", 8);
    ipfsrt_dagcbor_put_uint(b, o->sequence);
    ipfsrt_dagcbor_put_text(b, "Validity", 8);
    ipfsrt_dagcbor_put_bytes(b, (const uint8_t *)validity, strlen(validity));
    ipfsrt_dagcbor_put_text(b, "ValidityType", 12);
    ipfsrt_dagcbor_put_uint(b, 0);
}

static ipfsrt_status sign_with_prefix(const ipfsrt_key *key, const char *prefix, const uint8_t *data, size_t n,
                                      const char *suffix, ipfsrt_buf *sig, ipfsrt_error *err) {
    ipfsrt_buf msg;
    ipfsrt_buf_init(&msg);
    ipfsrt_buf_append(&msg, prefix, strlen(prefix));
    ipfsrt_buf_append(&msg, data, n);
    ipfsrt_buf_append(&msg, suffix, strlen(suffix));
    ipfsrt_status st = msg.failed ? ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory")
                                  : ipfsrt_key_sign(key, msg.data, msg.len, sig, err);
    ipfsrt_buf_free(&msg);
    return st;
}

/* The legacy V1 fields and their signature (over value, validity and "EOL"). */
static ipfsrt_status put_v1(const ipfsrt_key *key, const ipfsrt_ipns_create_options *o, const char *validity,
                            ipfsrt_buf *out, ipfsrt_error *err) {
    ipfsrt_buf sig;
    ipfsrt_buf_init(&sig);
    ipfsrt_status st = sign_with_prefix(key, o->value, (const uint8_t *)validity, strlen(validity), "EOL", &sig, err);
    if (st == IPFSRT_OK) {
        pb_put_bytes(out, 1, o->value, strlen(o->value));
        pb_put_bytes(out, 2, sig.data, sig.len);
        pb_put_key(out, 3, PB_VARINT);
        pb_put_varint(out, 0);
        pb_put_bytes(out, 4, validity, strlen(validity));
        pb_put_key(out, 5, PB_VARINT);
        pb_put_varint(out, o->sequence);
        pb_put_key(out, 6, PB_VARINT);
        pb_put_varint(out, o->ttl_ns);
    }
    ipfsrt_buf_free(&sig);
    return st;
}

/* pubKey, when the name cannot inline the key (RSA). */
static ipfsrt_status put_public_key(const ipfsrt_key *key, ipfsrt_buf *out, ipfsrt_error *err) {
    ipfsrt_cid name;
    ipfsrt_status st = ipfsrt_key_name(key, &name, err);
    if (st != IPFSRT_OK || name.hash_code == IPFSRT_MH_IDENTITY) return st;
    ipfsrt_buf pub;
    ipfsrt_buf_init(&pub);
    st = ipfsrt_key_public_encode(key, &pub, err);
    if (st == IPFSRT_OK) pb_put_bytes(out, 7, pub.data, pub.len);
    ipfsrt_buf_free(&pub);
    return st;
}

ipfsrt_status ipfsrt_ipns_record_create(const ipfsrt_key *key, const ipfsrt_ipns_create_options *opts,
                                        ipfsrt_buf *out, ipfsrt_error *err) {
    IPFSRT_NEED(key && out, err);
    ipfsrt_ipns_create_options o;
    ipfsrt_status st = IPFSRT_TAKE_OPTIONS(o, opts, ipfsrt_ipns_create_options_init, err);
    if (st != IPFSRT_OK) return st;
    char validity[40];
    if (!o.value || !o.value[0]) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "an IPNS record needs a value");
    if (!ipfsrt_rfc3339_format(o.eol_seconds, o.eol_nanos, validity))
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "an EOL outside years 1-9999");
    ipfsrt_buf data, sig, record;
    ipfsrt_buf_init(&data);
    ipfsrt_buf_init(&sig);
    ipfsrt_buf_init(&record);
    data_encode(&o, validity, &data);
    st = data.failed ? ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory")
                     : sign_with_prefix(key, SIGNATURE_PREFIX, data.data, data.len, "", &sig, err);
    if (st == IPFSRT_OK && o.v1) st = put_v1(key, &o, validity, &record, err);
    if (st == IPFSRT_OK) st = put_public_key(key, &record, err);
    if (st == IPFSRT_OK) {
        pb_put_bytes(&record, 8, sig.data, sig.len);
        pb_put_bytes(&record, 9, data.data, data.len);
    }
    if (st == IPFSRT_OK && record.failed) st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    if (st == IPFSRT_OK && record.len > IPFSRT_IPNS_MAX_RECORD)
        st = ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "the record would take %zu bytes, over 10 KiB", record.len);
    if (st == IPFSRT_OK) ipfsrt_buf_append(out, record.data, record.len);
    if (st == IPFSRT_OK && out->failed) st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    ipfsrt_buf_free(&data);
    ipfsrt_buf_free(&sig);
    ipfsrt_buf_free(&record);
    return st;
}
