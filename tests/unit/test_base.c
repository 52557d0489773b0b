/* The base layer's shared helpers: the asynchronous file writer (errors name
 * the file whose bytes failed, whatever file the caller has moved on to), the
 * process's worker threads, and the statuses' names. */
#include <ctype.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
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

/* Tasks that wait for each other: all of them must run at once. */
#define GATHER 20

typedef struct gathering {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int arrived, left;
    pthread_t who[GATHER];
} gathering;

static void gather(void *arg) {
    gathering *g = arg;
    pthread_mutex_lock(&g->lock);
    g->who[g->arrived++] = pthread_self();
    pthread_cond_broadcast(&g->changed);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 10;
    while (g->arrived < GATHER && pthread_cond_timedwait(&g->changed, &g->lock, &until) == 0) {}
    g->left++;
    pthread_cond_broadcast(&g->changed);
    pthread_mutex_unlock(&g->lock);
}

/* Runs n tasks and waits for them all to end: true when all of them met
 * (none waited for another to finish before it could start). */
static bool gather_all(gathering *g, int n) {
    pthread_mutex_init(&g->lock, NULL);
    pthread_cond_init(&g->changed, NULL);
    g->arrived = g->left = 0;
    for (int i = 0; i < n; i++) assert_true(ipfsrt_workers_run(gather, g));
    pthread_mutex_lock(&g->lock);
    while (g->left < n) pthread_cond_wait(&g->changed, &g->lock);
    bool met = g->arrived == GATHER;
    pthread_mutex_unlock(&g->lock);
    usleep(20000); /* the workers are out of gather() and idle again */
    pthread_mutex_destroy(&g->lock);
    pthread_cond_destroy(&g->changed);
    return met;
}

/* Every task gets a thread at once, more than were warmed, each its own;
 * a second round runs on the threads kept idle from the first. */
static void test_workers(void **state) {
    (void)state;
    ipfsrt_workers_warm(2);
    gathering first, again;
    assert_true(gather_all(&first, GATHER));
    for (int i = 0; i < GATHER; i++)
        for (int j = 0; j < i; j++) assert_false(pthread_equal(first.who[i], first.who[j]));
    assert_true(gather_all(&again, GATHER));
}

/* A status's name (what Lua's errors and the CLI print) is its constant's
 * suffix in lower case: IPFSRT_EFETCH_FAILED is "fetch_failed". Read off the
 * public header, in order, so that a status added to one and not the other,
 * or named two ways, fails here. */
static void test_status_names_match_their_constants(void **state) {
    (void)state;
    FILE *f = fopen("runtime/include/ipfsrt/error.h", "r");
    assert_non_null(f);
    char line[256];
    int code = IPFSRT_EOUT_OF_MEMORY;
    while (fgets(line, sizeof line, f)) {
        char constant[64];
        if (sscanf(line, " IPFSRT_E%63[A-Z_],", constant) != 1) continue;
        for (char *c = constant; *c; c++) *c = (char)tolower((unsigned char)*c);
        assert_true(code < IPFSRT_STATUS_COUNT);
        assert_string_equal(constant, ipfsrt_status_name((ipfsrt_status)code));
        code++;
    }
    fclose(f);
    assert_int_equal(code, IPFSRT_STATUS_COUNT);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_writer_names_the_failed_file),
        cmocka_unit_test(test_workers),
        cmocka_unit_test(test_status_names_match_their_constants),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
