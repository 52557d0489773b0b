/* The base layer's shared helpers: the asynchronous file writer (errors name
 * the file whose bytes failed, whatever file the caller has moved on to). */
#include <fcntl.h>
#include <unistd.h>

#include "testutil.h"
#include "base/base_internal.h"

/* A read-only descriptor refuses every write: the first file fails in its
 * writer thread while the caller already writes the second. */
static void test_writer_names_the_failed_file(void **state) {
    (void)state;
    enum { MB = 1 << 20 };
    uint8_t *data = calloc(1, 9 * MB);
    char good[] = "/tmp/ipfsrt-test-writer-XXXXXX";
    int good_fd = mkstemp(good);
    assert_true(good_fd >= 0);
    for (int run = 0; run < 10; run++) {
        int bad_fd = open("/dev/null", O_RDONLY);
        assert_true(bad_fd >= 0);
        ipfsrt_async_writer *w;
        assert_int_equal(ipfsrt_async_writer_new(&w, bad_fd, "first.bin", NULL), IPFSRT_OK);
        ipfsrt_error err;
        ipfsrt_status st = ipfsrt_async_writer_write(w, data, 9 * MB, &err); /* two full buffers queued */
        int second_fd = dup(good_fd); /* the writer closes the first file, the caller the last */
        bool handed = st == IPFSRT_OK;
        if (handed) st = ipfsrt_async_writer_next_file(w, second_fd, "second.bin", &err);
        if (st == IPFSRT_OK) st = ipfsrt_async_writer_write(w, data, MB, &err);
        if (st == IPFSRT_OK) st = ipfsrt_async_writer_flush(w, &err);
        assert_int_equal(st, IPFSRT_EIO);
        if (!strstr(err.message, "first.bin")) fail_msg("run %d: %s", run, err.message);
        ipfsrt_async_writer_free(w);
        if (!handed) close(bad_fd);
        close(second_fd);
    }
    close(good_fd);
    unlink(good);
    free(data);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_writer_names_the_failed_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
