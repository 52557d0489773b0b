#include <time.h>

#include "ipfsrt/base.h"

double ipfsrt_clock(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#include <signal.h>

/* Written from signal handlers: nothing but this flag. */
static volatile sig_atomic_t stop_signal;

void ipfsrt_request_stop(int sig) { stop_signal = sig; }

int ipfsrt_stop_requested(void) { return stop_signal; }
