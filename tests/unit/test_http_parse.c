/* The local gateway's request parsers: Range, entity-bytes, CAR parameters and
 * listen addresses, with the hostile forms a client may send; and the HTML
 * index, whose names come from DAGs anybody can make. */
#include <arpa/inet.h>
#include <cJSON.h>
#include <netinet/in.h>

#include "server/http_parse.h"
#include "server/server_internal.h"
#include "testutil.h"

static void range_is(const char *h, uint64_t size, ipfsrt_http_range want, uint64_t start,
                     uint64_t len) {
    uint64_t s = 12345, l = 12345;
    ipfsrt_http_range got = ipfsrt_http_range_parse(h, size, &s, &l);
    if (got != want) fail_msg("Range '%s' of %llu: got %d, want %d", h ? h : "(none)",
                              (unsigned long long)size, got, want);
    if (want != IPFSRT_HTTP_RANGE_OK) return;
    assert_int_equal(s, start);
    assert_int_equal(l, len);
}

static void test_range(void **state) {
    (void)state;
    range_is(NULL, 10, IPFSRT_HTTP_RANGE_NONE, 0, 0);
    range_is("bytes=6-7,0-4", 10, IPFSRT_HTTP_RANGE_OK, 6, 2); /* several: the first */
    range_is("bytes=6-7 , 0-4", 10, IPFSRT_HTTP_RANGE_OK, 6, 2);
    range_is("bytes=60-70,0-4", 10, IPFSRT_HTTP_RANGE_UNSATISFIABLE, 0, 0);
    range_is("bytes=0-99999999999999999999999999999999999999999999999999999999999999999,1-2", 10,
             IPFSRT_HTTP_RANGE_UNSATISFIABLE, 0, 0);
    range_is("items=0-4", 10, IPFSRT_HTTP_RANGE_NONE, 0, 0);
    range_is("bytes=0-4", 10, IPFSRT_HTTP_RANGE_OK, 0, 5);
    range_is("bytes=3-", 10, IPFSRT_HTTP_RANGE_OK, 3, 7);
    range_is("bytes=3-99", 10, IPFSRT_HTTP_RANGE_OK, 3, 7);
    range_is("bytes=9-9", 10, IPFSRT_HTTP_RANGE_OK, 9, 1);
    range_is("bytes=-3", 10, IPFSRT_HTTP_RANGE_OK, 7, 3);
    range_is("bytes=-30", 10, IPFSRT_HTTP_RANGE_OK, 0, 10);
    range_is("bytes=0-18446744073709551615", 10, IPFSRT_HTTP_RANGE_OK, 0, 10);
    range_is("bytes=0-99999999999999999999999", 10, IPFSRT_HTTP_RANGE_OK, 0, 10); /* saturates */
    range_is("bytes=10-", 10, IPFSRT_HTTP_RANGE_UNSATISFIABLE, 0, 0);
    range_is("bytes=5-4", 10, IPFSRT_HTTP_RANGE_UNSATISFIABLE, 0, 0);
    range_is("bytes=-0", 10, IPFSRT_HTTP_RANGE_UNSATISFIABLE, 0, 0);
    range_is("bytes=0-", 0, IPFSRT_HTTP_RANGE_UNSATISFIABLE, 0, 0);
    range_is("bytes=-5", 0, IPFSRT_HTTP_RANGE_UNSATISFIABLE, 0, 0);
    /* what strtoull would have let through */
    range_is("bytes=1--5", 10, IPFSRT_HTTP_RANGE_UNSATISFIABLE, 0, 0);
    range_is("bytes= 1-5", 10, IPFSRT_HTTP_RANGE_UNSATISFIABLE, 0, 0);
    range_is("bytes=+1-5", 10, IPFSRT_HTTP_RANGE_UNSATISFIABLE, 0, 0);
    range_is("bytes=1-5x", 10, IPFSRT_HTTP_RANGE_UNSATISFIABLE, 0, 0);
    range_is("bytes=-", 10, IPFSRT_HTTP_RANGE_UNSATISFIABLE, 0, 0);
    range_is("bytes=", 10, IPFSRT_HTTP_RANGE_UNSATISFIABLE, 0, 0);
}

static void entity_is(const char *v, uint64_t size, bool ok, uint64_t offset, uint64_t len) {
    uint64_t o = 12345, l = 12345;
    bool got = ipfsrt_http_entity_bytes_parse(v, size, &o, &l);
    if (got != ok) fail_msg("entity-bytes=%s of %llu: parsed %d", v, (unsigned long long)size, got);
    if (!ok) return;
    if (o != offset || l != len)
        fail_msg("entity-bytes=%s of %llu: got %llu+%llu, want %llu+%llu", v,
                 (unsigned long long)size, (unsigned long long)o, (unsigned long long)l,
                 (unsigned long long)offset, (unsigned long long)len);
}

static void test_entity_bytes(void **state) {
    (void)state;
    /* the trustless gateway spec's forms */
    entity_is("0:*", 100, true, 0, 100);
    entity_is("0:9", 100, true, 0, 10);
    entity_is("10:19", 100, true, 10, 10);
    entity_is("-10:*", 100, true, 90, 10);
    entity_is("0:-1", 100, true, 0, 100);
    entity_is("-20:-11", 100, true, 80, 10);
    entity_is("50:1000", 100, true, 50, 50);
    entity_is("-1000:9", 100, true, 0, 10); /* from before the start: from the start */
    /* none of the entity: the blocks that prove it alone */
    entity_is("100:*", 100, true, 100, 0);
    entity_is("20:10", 100, true, 100, 0);
    entity_is("0:-1000", 100, true, 100, 0);
    entity_is("0:*", 0, true, 0, 0);
    entity_is("99999999999999999999999:*", 100, true, 100, 0);
    /* malformed */
    entity_is("", 100, false, 0, 0);
    entity_is("10", 100, false, 0, 0);
    entity_is(":10", 100, false, 0, 0);
    entity_is("10:", 100, false, 0, 0);
    entity_is("a:b", 100, false, 0, 0);
    entity_is("1:2:3", 100, false, 0, 0);
    entity_is(" 1:2", 100, false, 0, 0);
    entity_is("1:*x", 100, false, 0, 0);
    entity_is("--1:2", 100, false, 0, 0);
}

static ipfsrt_status car_params(const char *version, const char *order, const char *dups,
                                const char *scope, const char *accept, ipfsrt_http_car_params *p,
                                ipfsrt_error *err) {
    ipfsrt_http_car_query q = {version, order, dups, scope};
    return ipfsrt_http_car_params_parse(&q, accept, p, err);
}

static void test_car_params(void **state) {
    (void)state;
    ipfsrt_http_car_params p;
    ipfsrt_error err;
    assert_int_equal(car_params(NULL, NULL, NULL, NULL, NULL, &p, &err), IPFSRT_OK);
    assert_false(p.dups);
    assert_int_equal(p.scope, IPFSRT_SCOPE_ALL);
    assert_int_equal(car_params("1", "dfs", "y", "entity", NULL, &p, &err), IPFSRT_OK);
    assert_true(p.dups);
    assert_int_equal(p.scope, IPFSRT_SCOPE_ENTITY);
    assert_int_equal(car_params(NULL, "unk", "n", "block", NULL, &p, &err), IPFSRT_OK);
    assert_int_equal(p.scope, IPFSRT_SCOPE_BLOCK);
    /* Accept's parameters, and the query winning over them */
    const char *accept = "application/vnd.ipld.car; version=1; order=dfs; dups=y";
    assert_int_equal(car_params(NULL, NULL, NULL, NULL, accept, &p, &err), IPFSRT_OK);
    assert_true(p.dups);
    assert_int_equal(car_params(NULL, NULL, "n", NULL, accept, &p, &err), IPFSRT_OK);
    assert_false(p.dups);
    assert_int_equal(car_params(NULL, NULL, NULL, NULL, "application/vnd.ipld.car; version=2",
                                &p, &err), IPFSRT_EBAD_ARGUMENT);
    assert_non_null(strstr(err.message, "version 1"));
    /* values not served */
    assert_int_equal(car_params("2", NULL, NULL, NULL, NULL, &p, &err), IPFSRT_EBAD_ARGUMENT);
    assert_int_equal(car_params(NULL, "bfs", NULL, NULL, NULL, &p, &err), IPFSRT_EBAD_ARGUMENT);
    assert_non_null(strstr(err.message, "car-order"));
    assert_int_equal(car_params(NULL, NULL, "yes", NULL, NULL, &p, &err), IPFSRT_EBAD_ARGUMENT);
    assert_non_null(strstr(err.message, "car-dups"));
    assert_int_equal(car_params(NULL, NULL, NULL, "path", NULL, &p, &err), IPFSRT_EBAD_ARGUMENT);
    assert_non_null(strstr(err.message, "dag-scope"));
}

static void test_listen(void **state) {
    (void)state;
    struct sockaddr_storage ss;
    ipfsrt_error err;
    assert_int_equal(ipfsrt_http_listen_parse("127.0.0.1:8080", &ss, &err), IPFSRT_OK);
    assert_int_equal(ss.ss_family, AF_INET);
    assert_int_equal(ntohs(((struct sockaddr_in *)&ss)->sin_port), 8080);
    assert_int_equal(ipfsrt_http_listen_parse("localhost:0", &ss, &err), IPFSRT_OK);
    assert_int_equal(ss.ss_family, AF_INET);
    assert_int_equal(ipfsrt_http_listen_parse(":8081", &ss, &err), IPFSRT_OK);
    assert_int_equal(ss.ss_family, AF_INET);
    assert_int_equal(ntohl(((struct sockaddr_in *)&ss)->sin_addr.s_addr), 0x7f000001);
    assert_int_equal(ntohs(((struct sockaddr_in *)&ss)->sin_port), 8081);
    assert_int_equal(ipfsrt_http_listen_parse("8082", &ss, &err), IPFSRT_OK);
    assert_int_equal(ntohl(((struct sockaddr_in *)&ss)->sin_addr.s_addr), 0x7f000001);
    assert_int_equal(ntohs(((struct sockaddr_in *)&ss)->sin_port), 8082);
    assert_int_equal(ipfsrt_http_listen_parse("[::1]:65535", &ss, &err), IPFSRT_OK);
    assert_int_equal(ss.ss_family, AF_INET6);
    assert_int_equal(ntohs(((struct sockaddr_in6 *)&ss)->sin6_port), 65535);
    static const char *bad[] = {"127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:-1",
                                "127.0.0.1:+80", "127.0.0.1:80x", "example.org:80", "::1:80",
                                "[::1:80", "[zz]:80", ":", "", "80x", "99999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (ipfsrt_http_listen_parse(bad[i], &ss, &err) != IPFSRT_EBAD_ARGUMENT)
            fail_msg("listen address '%s' was taken", bad[i]);
    }
    char longhost[200];
    memset(longhost, '1', sizeof longhost);
    strcpy(longhost + 150, ":80");
    assert_int_equal(ipfsrt_http_listen_parse(longhost, &ss, &err), IPFSRT_EBAD_ARGUMENT);
}

static void test_content_type(void **state) {
    (void)state;
    assert_string_equal(ipfsrt_http_content_type("/a/b.json"), "application/json");
    assert_string_equal(ipfsrt_http_content_type("/x.png"), "image/png");
    assert_string_equal(ipfsrt_http_content_type("/app/main.JS"), "text/javascript; charset=utf-8");
    assert_string_equal(ipfsrt_http_content_type("/m.wasm"), "application/wasm");
    assert_string_equal(ipfsrt_http_content_type("/2024/day.nc"), "application/x-netcdf");
    assert_string_equal(ipfsrt_http_content_type("/.js/x"), "application/octet-stream");
    assert_string_equal(ipfsrt_http_content_type("/.zarray"), "application/octet-stream");
    assert_string_equal(ipfsrt_http_content_type(""), "application/octet-stream");
}

/* A name made to break out of the link and the text is escaped in both. */
static void test_index_html(void **state) {
    (void)state;
    cJSON *list = cJSON_CreateArray();
    cJSON *item = cJSON_CreateObject();
    cJSON_AddStringToObject(item, "name", "\"><script>x</script> & a/b?c#d");
    cJSON_AddStringToObject(item, "cid", "bafkqaaa");
    cJSON_AddStringToObject(item, "type", "file");
    cJSON_AddNumberToObject(item, "size", 12);
    cJSON_AddItemToArray(list, item);
    size_t len;
    char *html = ipfsrt_server_index_html("/ipfs/bafyroot/dir/", list, &len);
    assert_non_null(html);
    assert_int_equal(strlen(html), len);
    assert_non_null(strstr(html, "<a href=\"/ipfs/bafyroot/dir/%22%3E%3Cscript%3Ex%3C%2Fscript%3E%20%26%20a%2Fb%3Fc%23d\">"));
    assert_non_null(strstr(html, "&quot;&gt;&lt;script&gt;x&lt;/script&gt; &amp; a/b?c#d</a>"));
    assert_null(strstr(html, "<script>"));
    assert_non_null(strstr(html, "<title>Index of /ipfs/bafyroot/dir</title>"));
    free(html);
    cJSON_Delete(list);
}

/* If-None-Match: weak comparison, lists, *, and malformed values naming nothing. */
static void test_etag_matches(void **state) {
    (void)state;
    const char *raw = "\"bafkqaaa.raw\"", *weak = "W/\"bafy.car.0011\"";
    assert_true(ipfsrt_http_etag_matches("\"bafkqaaa.raw\"", raw));
    assert_true(ipfsrt_http_etag_matches("W/\"bafkqaaa.raw\"", raw));
    assert_true(ipfsrt_http_etag_matches("\"bafy.car.0011\"", weak));
    assert_true(ipfsrt_http_etag_matches("\"a\", \"b\",\"bafkqaaa.raw\"", raw));
    assert_true(ipfsrt_http_etag_matches(" * ", raw));
    assert_false(ipfsrt_http_etag_matches("\"bafkqaaa.ra\"", raw));
    assert_false(ipfsrt_http_etag_matches("\"bafkqaaa.raw2\"", raw));
    assert_false(ipfsrt_http_etag_matches("bafkqaaa.raw", raw)); /* unquoted: not a tag */
    assert_false(ipfsrt_http_etag_matches("", raw));
    assert_false(ipfsrt_http_etag_matches("\"", raw));
    assert_false(ipfsrt_http_etag_matches("\"bafkqaaa.raw", raw)); /* never closed */
    assert_false(ipfsrt_http_etag_matches(",,, W/ \"\"", raw));
    assert_false(ipfsrt_http_etag_matches(NULL, raw));
    assert_false(ipfsrt_http_etag_matches("\"x\"", NULL));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_range),
        cmocka_unit_test(test_entity_bytes),
        cmocka_unit_test(test_car_params),
        cmocka_unit_test(test_listen),
        cmocka_unit_test(test_content_type),
        cmocka_unit_test(test_index_html),
        cmocka_unit_test(test_etag_matches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
