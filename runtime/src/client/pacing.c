/* How many requests to keep in flight at one gateway, learned from its
 * answers: a gateway 50 ms away serves 8 requests in flight at a fifth of the
 * rate it serves 40 at, and no fixed number suits both it and loopback. The
 * limit grows by two with each answer that came while more requests waited
 * (tripling every round trip: a few round trips reach the cap, where TCP's slow
 * start would take twice as many) as long as answers come as fast as the
 * fastest lately; it shrinks by a fifth when they slow (requests
 * queue at the gateway) and halves on refusals, overload answers (429, 5xx)
 * and timeouts, at most once per round trip, and never passes the cap. */
#include "client/client_internal.h"

/* Extra first-byte time tolerated before the gateway counts as loaded: some
 * jitter is the network's, not the gateway's. */
#define SLACK_S 0.010
/* How fast the fastest-lately latency forgets a faster past (per answer). */
#define BASE_DRIFT 0.01

void ipfsrt_pacing_init(ipfsrt_pacing *p, unsigned start, unsigned cap) {
    *p = (ipfsrt_pacing){.limit = start < cap ? start : cap, .cap = cap};
}

static bool overloaded(ipfsrt_gateway_error e) {
    return e == IPFSRT_GWERR_RATE_LIMITED || e == IPFSRT_GWERR_SERVER || e == IPFSRT_GWERR_TIMEOUT ||
           e == IPFSRT_GWERR_CONNECT || e == IPFSRT_GWERR_TRUNCATED;
}

/* Shrinks the limit to factor of itself, once per round trip. */
static void shrink(ipfsrt_pacing *p, double factor, double now) {
    if (now < p->calm_until) return;
    p->limit = p->limit * factor < 1 ? 1 : p->limit * factor;
    p->calm_until = now + (p->smooth > 0 ? p->smooth : SLACK_S) + SLACK_S;
}

void ipfsrt_pacing_note(ipfsrt_pacing *p, double latency) {
    if (latency < 0) return;
    if (p->base <= 0 || latency < p->base) p->base = latency;
    else p->base += (latency - p->base) * BASE_DRIFT;
    p->smooth = p->smooth > 0 ? p->smooth * 0.875 + latency * 0.125 : latency;
}

unsigned ipfsrt_pacing_observe(ipfsrt_pacing *p, ipfsrt_gateway_error error, double latency, size_t backlog,
                               double now) {
    if (overloaded(error)) {
        shrink(p, 0.5, now);
    } else if (error == IPFSRT_GWERR_NONE && latency >= 0) {
        ipfsrt_pacing_note(p, latency);
        if (p->smooth > 2 * p->base + SLACK_S) shrink(p, 0.8, now);
        else if (backlog && now >= p->calm_until) p->limit = p->limit + 2 > p->cap ? p->cap : p->limit + 2;
    }
    return (unsigned)p->limit;
}
