/* How many worker threads (hashing, decoding, encoding) the process should
 * use: what a process may run on, not what the machine has, so that ranks
 * pinned to cores by a launcher do not each start a thread per core. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "ipfsrt/base.h"
#include "base/base_internal.h"

static atomic_uint host_choice; /* ipfsrt_threads_set; 0: none */

unsigned ipfsrt_cpus_usable(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n > 0) return (unsigned)n;
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores < 1 ? 1 : (unsigned)cores;
}

void ipfsrt_threads_set(unsigned n) { atomic_store(&host_choice, n); }

unsigned ipfsrt_threads(void) {
    const char *env = getenv("IPFSRT_THREADS");
    if (env && *env) {
        char *end;
        unsigned long v = strtoul(env, &end, 10);
        if (*end == '\0' && v >= 1 && v <= 1024) return (unsigned)v;
    }
    unsigned chosen = atomic_load(&host_choice);
    return chosen ? chosen : ipfsrt_cpus_usable();
}

int ipfsrt_thread_start(pthread_t *thread, void *(*fn)(void *arg), void *arg) {
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(thread, NULL, fn, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}
