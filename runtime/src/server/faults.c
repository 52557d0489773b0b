/* Fault injection: each request draws its faults from a generator seeded with
 * the gateway's seed and the request's number, so runs repeat. */
#include <string.h>
#include <unistd.h>

#include "server/server_internal.h"

uint64_t ipfsrt_server_random(ipfsrt_server_request *rq) { /* splitmix64 */
    uint64_t z = (rq->rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static bool draw(ipfsrt_server_request *rq, double p) {
    return p > 0 && (double)(ipfsrt_server_random(rq) >> 11) / 9007199254740992.0 < p;
}

static void note_fault(ipfsrt_server_request *rq, const char *name) {
    size_t n = strlen(rq->faults);
    snprintf(rq->faults + n, sizeof rq->faults - n, "%s%s", n ? "," : "", name);
}

const ipfsrt_server_spare *ipfsrt_server_spare_for(const ipfsrt_server *gw, const ipfsrt_cid *cid) {
    for (int i = 0; i < 2; i++)
        if (gw->spares[i].data && !ipfsrt_cid_equal(&gw->spares[i].cid, cid)) return &gw->spares[i];
    return NULL;
}

size_t ipfsrt_server_piece(const ipfsrt_server_request *rq, size_t max) {
    if (!rq->slow) return max;
    uint64_t piece = rq->slow / 20 ? rq->slow / 20 : 1; /* a drip: twenty pieces a second */
    return piece < max ? (size_t)piece : max;
}

bool ipfsrt_server_body_faults_on(const ipfsrt_server_request *rq) {
    return rq->tamper || rq->truncate || rq->slow;
}

size_t ipfsrt_server_body_faults(ipfsrt_server_request *rq, uint64_t pos, uint8_t *buf, size_t n,
                                 uint64_t total, uint64_t tamper_at) {
    if (rq->truncate) {
        uint64_t cut = total / 2;
        if (pos >= cut) return 0;
        if (pos + n > cut) n = (size_t)(cut - pos);
    }
    if (rq->tamper && tamper_at >= pos && tamper_at < pos + n) buf[tamper_at - pos] ^= 0x20;
    if (rq->slow && n) usleep((useconds_t)((double)n / (double)rq->slow * 1e6));
    return n;
}

/* Suspends the connection until the waker resumes it (handle() then runs again
 * and the request goes on); true when it did. */
static bool delay(ipfsrt_server_request *rq, struct MHD_Connection *c, const ipfsrt_server_faults *f) {
    unsigned jitter = f->delay_jitter_ms
                          ? (unsigned)(ipfsrt_server_random(rq) % (f->delay_jitter_ms + 1u))
                          : 0;
    note_fault(rq, "delay");
    rq->delayed = true;
    MHD_suspend_connection(c);
    if (ipfsrt_server_waker_add(rq->gw->waker, c, (f->delay_ms + jitter) / 1000.0)) return true;
    MHD_resume_connection(c); /* cannot wait: no delay rather than a connection stuck */
    return false;
}

enum MHD_Result ipfsrt_server_plan_faults(ipfsrt_server_request *rq, struct MHD_Connection *c,
                                          bool *answered) {
    const ipfsrt_server_faults *f = &rq->gw->faults;
    *answered = false;
    if ((f->delay_ms || f->delay_jitter_ms) && !rq->delayed && delay(rq, c, f)) {
        *answered = true; /* for now: resumed, it is planned again, past the delay */
        return MHD_YES;
    }
    if (draw(rq, f->reset)) {
        note_fault(rq, "reset");
        *answered = true;
        return MHD_NO; /* libmicrohttpd closes the connection without an answer */
    }
    if (draw(rq, f->fail)) {
        static const unsigned codes[] = {500, 502, 503, 429};
        unsigned code = codes[ipfsrt_server_random(rq) % 4];
        note_fault(rq, "fail");
        *answered = true;
        return ipfsrt_server_send_text(rq, c, code, "injected failure (%u)", code);
    }
    rq->tamper = draw(rq, f->tamper);
    rq->truncate = draw(rq, f->truncate);
    rq->wrong_block = draw(rq, f->wrong_block);
    rq->wrong_dag = draw(rq, f->wrong_dag);
    rq->slow = f->slow_bytes_per_s;
    if (rq->tamper) note_fault(rq, "tamper");
    if (rq->truncate) note_fault(rq, "truncate");
    if (rq->wrong_block) note_fault(rq, "wrong-block");
    if (rq->wrong_dag) note_fault(rq, "wrong-dag");
    if (rq->slow) note_fault(rq, "slow");
    return MHD_YES;
}
