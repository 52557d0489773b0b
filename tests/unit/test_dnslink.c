#include "testutil.h"
#include "client/client_internal.h"

/* A DNS answer for _dnslink.example.org: the question, then one TXT record
 * per text (each text written as one or more character strings of at most
 * split bytes). */
static size_t answer(uint8_t *out, const char *const *texts, size_t n, size_t split) {
    static const uint8_t header[] = {0x12, 0x34, 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0};
    static const uint8_t question[] = "\x08_dnslink\x07" "example\x03org";
    size_t used = 0;
    memcpy(out, header, sizeof header);
    out[7] = (uint8_t)n;
    used = sizeof header;
    memcpy(out + used, question, sizeof question); /* the name, its root label (the NUL) */
    used += sizeof question;
    memcpy(out + used, "\x00\x10\x00\x01", 4); /* TXT, IN */
    used += 4;
    for (size_t i = 0; i < n; i++) {
        memcpy(out + used, "\xc0\x0c\x00\x10\x00\x01\x00\x00\x01\x2c", 10); /* the name again, TXT, IN, TTL */
        used += 10;
        size_t len = strlen(texts[i]), rdlen = 0, at = used + 2;
        for (size_t pos = 0; pos < len; pos += split) {
            size_t k = len - pos < split ? len - pos : split;
            out[at + rdlen++] = (uint8_t)k;
            memcpy(out + at + rdlen, texts[i] + pos, k);
            rdlen += k;
        }
        out[used] = (uint8_t)(rdlen >> 8);
        out[used + 1] = (uint8_t)rdlen;
        used = at + rdlen;
    }
    return used;
}

static void test_dnslink_values(void **state) {
    (void)state;
    uint8_t buf[2048];
    char *value;
    ipfsrt_error err;
    const char *texts[] = {"v=spf1 -all", "dnslink=/ipns/k51qzi5uqu5dlkw8pxuw9qmqayfdeh4kfebhmreauqdc6a7c3y7d5i9fi8mk9w",
                           "dnslink=/ipfs/bafkqaddwgevxmmraojswg33smq/data"};
    size_t n = answer(buf, texts, 3, 255);
    assert_int_equal(ipfsrt_dnslink_value(buf, n, "example.org", &value, &err), IPFSRT_OK);
    assert_string_equal(value, "/ipfs/bafkqaddwgevxmmraojswg33smq/data"); /* the first in byte order */
    free(value);
    n = answer(buf, texts + 1, 1, 7); /* split into 7-byte strings */
    assert_int_equal(ipfsrt_dnslink_value(buf, n, "example.org", &value, &err), IPFSRT_OK);
    assert_string_equal(value, "/ipns/k51qzi5uqu5dlkw8pxuw9qmqayfdeh4kfebhmreauqdc6a7c3y7d5i9fi8mk9w");
    free(value);
    const char *none[] = {"v=spf1 -all", "dnslink=https://example.org", "dnslink="};
    n = answer(buf, none, 3, 255);
    assert_int_equal(ipfsrt_dnslink_value(buf, n, "example.org", &value, &err), IPFSRT_ENOT_FOUND);
    assert_null(value);
    assert_non_null(strstr(err.message, "example.org"));
    /* cut short anywhere: refused or nothing found, never read past the end */
    n = answer(buf, texts, 3, 255);
    for (size_t cut = 0; cut < n; cut++) {
        ipfsrt_status st = ipfsrt_dnslink_value(buf, cut, "example.org", &value, &err);
        assert_true(st == IPFSRT_EBAD_ARGUMENT || st == IPFSRT_ENOT_FOUND || st == IPFSRT_OK);
        free(value);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_dnslink_values)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
