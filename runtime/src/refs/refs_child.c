/* libhdf5 is not hardened against hostile files: byte-mutated NetCDF-4 files
 * crash it (reads through freed or wild pointers in its global heap) or make
 * it loop. So every call into it on a file runs in a child process, under a
 * limit on the memory it may add and a deadline, and what comes back is read
 * as untrusted input: records of bounded size over a pipe. A child that dies,
 * or runs out of time or memory, is an error naming the file; the host goes on. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/base_internal.h"
#include "refs/make_internal.h"

#define RECORD_HEAD 5 /* a kind byte and a 32-bit length */
#define RECORDS_MAX (((size_t)1 << 30) + ((size_t)64 << 20)) /* all a child may say: 1 GiB of references, and more */

struct ipfsrt_hdf5_child {
    int fd;
    bool broken; /* the parent is gone: the rest goes nowhere */
};

static void write_all(ipfsrt_hdf5_child *c, const void *data, size_t len) {
    const uint8_t *p = data;
    while (len && !c->broken) {
        ssize_t n = write(c->fd, p, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) c->broken = true;
        else {
            p += n;
            len -= (size_t)n;
        }
    }
}

static void record(ipfsrt_hdf5_child *c, char kind, const void *a, size_t alen, const void *b, size_t blen) {
    if (alen + blen > UINT32_MAX) return;
    uint8_t head[RECORD_HEAD] = {(uint8_t)kind};
    uint32_t len = (uint32_t)(alen + blen);
    memcpy(head + 1, &len, 4);
    write_all(c, head, sizeof head);
    write_all(c, a, alen);
    write_all(c, b, blen);
}

void ipfsrt_hdf5_child_skip(ipfsrt_hdf5_child *c, const char *name, const char *why) {
    record(c, 'S', name, strlen(name) + 1, why, strlen(why) + 1);
}

void ipfsrt_hdf5_child_result(ipfsrt_hdf5_child *c, const void *data, size_t len) {
    record(c, 'R', data, len, NULL, 0);
}

/* The memory a child may take: what the process holds already (its copy
 * costs nothing until written) and the budget beyond it. */
static void limit_memory(uint64_t budget) {
    struct rlimit now;
    if (getrlimit(RLIMIT_DATA, &now) != 0) return;
    uint64_t held = 0;
    FILE *f = fopen("/proc/self/status", "r");
    char line[128];
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmData: %" SCNu64, &held) == 1) held *= 1024;
    if (f) fclose(f);
    rlim_t want = held + budget < held ? RLIM_INFINITY : (rlim_t)(held + budget);
    if (now.rlim_max != RLIM_INFINITY && want > now.rlim_max) want = now.rlim_max;
    now.rlim_cur = want;
    setrlimit(RLIMIT_DATA, &now);
}

/* A fifth of the wall-clock limit, at least 10 s. */
static double cpu_seconds(const ipfsrt_hdf5_limits *limits) {
    double s = limits->seconds / 5;
    return s < 10 ? (limits->seconds < 10 ? limits->seconds : 10) : s;
}

static void run_child(int fd, pid_t parent, const ipfsrt_hdf5_limits *limits, ipfsrt_hdf5_work_fn work, void *ctx) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL); /* a thread of a host that blocks signals may be the one forked */
    signal(SIGPIPE, SIG_DFL);
    int quiet = open("/dev/null", O_WRONLY | O_CLOEXEC); /* a crash's last words (glibc's, libhdf5's) are not the host's */
    if (quiet >= 0) dup2(quiet, 2);
    /* killed with the process that waits for it, whatever ends that */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1); /* it ended before the line above */
    limit_memory(limits->memory);
    /* A loop spends CPU where reading a file's metadata spends little: it dies
     * of SIGXCPU long before the wall-clock deadline. */
    rlim_t cpu_s = (rlim_t)cpu_seconds(limits);
    struct rlimit cpu = {cpu_s, cpu_s + 1};
    setrlimit(RLIMIT_CPU, &cpu);
    ipfsrt_hdf5_child c = {fd, false};
    ipfsrt_error err;
    ipfsrt_error_clear(&err);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* its failures are reported as ours */
    if (work(ctx, &c, &err) != IPFSRT_OK) {
        uint32_t code = (uint32_t)err.code;
        record(&c, 'E', &code, sizeof code, err.message, strlen(err.message) + 1);
    }
    _exit(0);
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Everything the child says, until it closes the pipe; false when it took
 * too long, said too much or a stop was requested (it is killed then). */
static bool read_child(int fd, double seconds, ipfsrt_buf *said, bool *too_much, bool *stopped) {
    double deadline = now_s() + seconds;
    uint8_t chunk[65536];
    for (;;) {
        double left = deadline - now_s();
        if (left <= 0) return false;
        struct pollfd p = {fd, POLLIN, 0};
        int r = poll(&p, 1, left > 1e6 ? 1000000000 : (int)(left * 1000) + 1);
        if (ipfsrt_stop_requested()) { /* SIGINT or SIGTERM to a command that catches them */
            *stopped = true;
            return false;
        }
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) continue; /* the deadline is checked above */
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return true;
        if (said->len + (size_t)n > RECORDS_MAX) {
            *too_much = true;
            return false;
        }
        ipfsrt_buf_append(said, chunk, (size_t)n);
    }
}

/* The child's records: skips handed on, an error or the result taken. */
static ipfsrt_status take_records(const char *path, const ipfsrt_buf *said, ipfsrt_refs_skip_fn skipped, void *user,
                                  ipfsrt_buf *result, ipfsrt_error *err) {
    size_t at = 0;
    bool answered = false;
    while (at + RECORD_HEAD <= said->len) {
        char kind = (char)said->data[at];
        uint32_t len;
        memcpy(&len, said->data + at + 1, 4);
        const char *body = (const char *)said->data + at + RECORD_HEAD;
        if (len > said->len - at - RECORD_HEAD) break;
        at += RECORD_HEAD + len;
        size_t first = strnlen(body, len);
        if (kind == 'S' && first < len && strnlen(body + first + 1, len - first - 1) == len - first - 2) {
            if (skipped) skipped(user, body, body + first + 1);
        } else if (kind == 'E' && len > 4 && body[len - 1] == '\0') {
            uint32_t code;
            memcpy(&code, body, 4);
            return ipfsrt_fail(err, code > IPFSRT_OK && code < IPFSRT_STATUS_COUNT ? (ipfsrt_status)code : IPFSRT_EIO,
                               -1, "%s", body + 4);
        } else if (kind == 'R' && !answered) {
            ipfsrt_buf_append(result, body, len);
            answered = true;
        } else {
            break;
        }
    }
    if (at != said->len || !answered)
        return ipfsrt_fail(err, IPFSRT_EIO, -1, "%s: the HDF5 reader's child process said nothing it should", path);
    return result->failed ? ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory") : IPFSRT_OK;
}

static ipfsrt_status child_failed(const char *path, int status, bool timed_out, bool too_much,
                                  const ipfsrt_hdf5_limits *limits, ipfsrt_error *err) {
    if (too_much)
        return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "%s: libhdf5 made more than %zu MiB of it: the file is "
                           "damaged or hostile", path, RECORDS_MAX >> 20);
    if (timed_out)
        return ipfsrt_fail(err, IPFSRT_ETIMED_OUT, -1, "%s: libhdf5 took longer than %.0f s over it: the file is "
                           "damaged or hostile", path, limits->seconds);
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU)
        return ipfsrt_fail(err, IPFSRT_ETIMED_OUT, -1, "%s: libhdf5 spent over %.0f s of CPU on it: the file is "
                           "damaged or hostile", path, cpu_seconds(limits));
    if (WIFSIGNALED(status))
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "%s: libhdf5 crashed reading it (signal %d): the file "
                           "is damaged or hostile", path, WTERMSIG(status));
    if (WIFEXITED(status) && WEXITSTATUS(status) != 0) /* a sanitizer's handler turns a crash into an exit */
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "%s: libhdf5 crashed reading it (its process exited "
                           "with status %d): the file is damaged or hostile", path, WEXITSTATUS(status));
    return IPFSRT_OK;
}

void ipfsrt_hdf5_limits_of(const ipfsrt_refs_options *opts, ipfsrt_hdf5_limits *limits) {
    limits->seconds = opts->hdf5_seconds > 0 ? opts->hdf5_seconds : 300;
    limits->memory = opts->hdf5_memory ? opts->hdf5_memory : (uint64_t)4 << 30;
}

ipfsrt_status ipfsrt_hdf5_isolated(const char *path, const ipfsrt_hdf5_limits *limits, ipfsrt_hdf5_work_fn work,
                                   void *ctx, ipfsrt_refs_skip_fn skipped, void *user, ipfsrt_buf *result,
                                   ipfsrt_error *err) {
    int fds[2];
    if (pipe(fds) != 0) return ipfsrt_fail(err, IPFSRT_EIO, -1, "%s: no pipe for libhdf5's child: %s", path, strerror(errno));
    fflush(NULL); /* nothing buffered is written twice */
    pid_t parent = getpid(), pid = fork();
    if (pid == 0) {
        close(fds[0]);
        run_child(fds[1], parent, limits, work, ctx);
    }
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        return ipfsrt_fail(err, IPFSRT_EIO, -1, "%s: no child process for libhdf5: %s", path, strerror(errno));
    }
    ipfsrt_buf said;
    ipfsrt_buf_init(&said);
    bool too_much = false, stopped = false;
    bool timed_out = !read_child(fds[0], limits->seconds, &said, &too_much, &stopped);
    if (timed_out) kill(pid, SIGKILL);
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    ipfsrt_status st = stopped ? ipfsrt_fail(err, IPFSRT_ECANCELED, -1, "%s: stopped by signal %d", path,
                                             ipfsrt_stop_requested())
                               : child_failed(path, status, timed_out, too_much, limits, err);
    if (st == IPFSRT_OK && said.failed) st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    if (st == IPFSRT_OK) st = take_records(path, &said, skipped, user, result, err);
    ipfsrt_buf_free(&said);
    return st;
}
