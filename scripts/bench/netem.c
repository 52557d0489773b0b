/* netem: a network between a client and a server on 127.0.0.1, for the
 * benchmarks. A TCP relay that holds each byte back as a path of a given
 * round-trip time, bandwidth, loss and jitter would, with TCP's handshake and
 * its congestion window (slow start, halving on a loss, restart after idle).
 * The model and its limits: scripts/bench/README.md#the-network-emulator.
 *
 * Every segment's delivery time is computed when its bytes are read, from the
 * state of its direction's link alone (a closed-form schedule, no simulation
 * clock); one thread, epoll and a timerfd then write each segment when due.
 *
 * Usage: netem --to PORT [--listen PORT] [--rtt MS] [--rate MBIT] [--shared-rate MBIT]
 *              [--loss P] [--jitter MS] [--iw SEGMENTS] [--seed N] [--stats FILE]
 * It listens on 127.0.0.1 (PORT 0: any free port), prints its port, relays every
 * connection to 127.0.0.1:--to, writes its counts so far to --stats (JSON) on
 * SIGUSR1, and on SIGTERM or SIGINT writes them and exits. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define MSS 1448                    /* payload of one Ethernet-sized TCP segment */
#define SEGMENT_MAX (16 * MSS)      /* bytes scheduled as one unit (a burst of segments) */
#define READ_MAX (64u << 10)
#define QUEUE_MAX (16u << 20)       /* bytes a direction holds before it stops reading */
#define TOTAL_MAX (256u << 20)      /* bytes all of them hold before every one stops */
#define CONN_MAX 4096
#define RTO_MIN_NS 200000000LL      /* Linux's minimum retransmission timeout */
#define SLOT_NS 100000LL            /* the shared link's calendar: 0.1 ms a slot ... */
#define SLOTS (1u << 19)            /* ... 52 s of them ahead, a ring */

typedef struct segment {
    struct segment *next;
    int64_t due_ns; /* when its bytes reach the far end */
    size_t len, off;
    int fin;        /* the sender closed: shut the far end's writing side */
    unsigned char data[];
} segment;

/* One direction of a connection: bytes read from src wait here until due,
 * then go to dst. The rest is the sender's TCP state as the model keeps it. */
typedef struct {
    int src, dst;
    segment *head, *tail;
    size_t queued;
    int64_t link_free_ns;   /* when this connection's link ends its last send */
    int64_t last_due_ns;    /* TCP delivers in order: never before the previous */
    int64_t earliest_ns;    /* the handshake's round trip: nothing sent before */
    double cwnd, ssthresh;  /* bytes; cwnd 0 = no window model */
    int64_t *acks_ns;       /* ring of outstanding sends' ack times and sizes */
    size_t *acks_len, ack_head, ack_count, ack_cap;
    double inflight;
    int src_open, dst_open;
} direction;

static size_t queued_total;

typedef struct {
    int client, server;
    direction up, down; /* client -> server, server -> client */
} conn;

typedef struct {
    int64_t rtt_ns, jitter_ns;
    double rate_bps, shared_bps, loss;
    int iw;
    uint64_t seed;
    unsigned long long connections, bytes[2], segments[2], lost[2];
    int64_t shared_wait_max_ns[2]; /* the longest a burst waited for the shared link */
} model;

/* The shared link each way as a calendar of what each slot of time carries:
 * bursts are scheduled out of time order (one connection's next burst waits a
 * round trip for its acks while another's goes now), so a burst takes the
 * first room from its own start on, leaving earlier gaps to others. */
typedef struct {
    int64_t slot; /* which slot this ring entry holds now */
    double used;  /* bytes it carries */
} slot_use;

static slot_use *calendar[2];

static model M;

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static double uniform(void) /* xorshift64*: reproducible from --seed */
{
    M.seed ^= M.seed >> 12;
    M.seed ^= M.seed << 25;
    M.seed ^= M.seed >> 27;
    return (double)((M.seed * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

static int64_t transmit_ns(size_t len, double bps)
{
    return bps > 0 ? (int64_t)((double)len * 8e9 / bps) : 0;
}

/* Takes in the acks that are back by t, each growing the window. */
static void acks_until(direction *d, int64_t t)
{
    while (d->ack_count > 0 && d->acks_ns[d->ack_head] <= t) {
        size_t acked = d->acks_len[d->ack_head];
        d->ack_head = (d->ack_head + 1) % d->ack_cap;
        d->ack_count--;
        d->inflight -= (double)acked;
        d->cwnd += d->cwnd < d->ssthresh ? (double)acked : (double)MSS * (double)acked / d->cwnd;
    }
}

/* How many of len bytes may be sent at *t, moving *t on to when the window
 * lets at least one segment go: the model waits for acks of earlier sends
 * (each acked one round trip after it was sent), growing the window as they
 * come (slow start, then one segment a round trip), and after an idle spell
 * halves it for every retransmission timeout idle, down to the initial
 * window, as Linux does (tcp_slow_start_after_idle). */
static size_t window_take(direction *d, int64_t *t, size_t len)
{
    if (d->cwnd <= 0) return len;
    /* Linux's timeout is the smoothed round trip plus its variation term, and
     * that term never drops below tcp_rto_min: 280 ms 80 ms away, where the
     * window had been cut after 200 ms idle (a warm HTTP/1.1 connection left
     * while its neighbours were handshaking came back cold) */
    int64_t rto = M.rtt_ns + RTO_MIN_NS;
    double initial = (double)M.iw * MSS;
    /* acks are taken in only when the next bytes go: those already back come
     * first, so that a connection whose every send was acked counts as idle */
    acks_until(d, *t);
    if (d->ack_count == 0)
        for (int64_t idle = *t - d->link_free_ns - rto; idle > 0 && d->cwnd > initial; idle -= rto)
            d->cwnd = fmax(d->cwnd / 2, initial);
    for (;;) {
        acks_until(d, *t);
        double room = d->cwnd - d->inflight;
        if (room >= (double)len) return len;
        if (room >= MSS || d->ack_count == 0) return room >= MSS ? (size_t)(room / MSS) * MSS : MSS;
        *t = d->acks_ns[d->ack_head];
    }
}

static int window_record(direction *d, int64_t ack_ns, size_t len)
{
    if (d->cwnd <= 0) return 0;
    if (d->ack_count == d->ack_cap) {
        size_t cap = d->ack_cap ? d->ack_cap * 2 : 64;
        int64_t *t = malloc(cap * sizeof *t);
        size_t *l = malloc(cap * sizeof *l);
        if (!t || !l) {
            free(t);
            free(l);
            return -1;
        }
        for (size_t i = 0; i < d->ack_count; i++) {
            t[i] = d->acks_ns[(d->ack_head + i) % d->ack_cap];
            l[i] = d->acks_len[(d->ack_head + i) % d->ack_cap];
        }
        free(d->acks_ns);
        free(d->acks_len);
        d->acks_ns = t, d->acks_len = l, d->ack_cap = cap, d->ack_head = 0;
    }
    size_t at = (d->ack_head + d->ack_count) % d->ack_cap;
    d->acks_ns[at] = ack_ns, d->acks_len[at] = len;
    d->ack_count++;
    d->inflight += (double)len;
    return 0;
}

/* Reserves len bytes on the shared link from t on; returns when the last
 * of them has left. */
static int64_t shared_reserve(int way, int64_t t, size_t len)
{
    if (M.shared_bps <= 0) return t;
    double per_slot = M.shared_bps / 8 * (double)SLOT_NS / 1e9, left = (double)len;
    int64_t end = t, first = -1;
    for (int64_t k = t / SLOT_NS; left > 0; k++) {
        slot_use *u = &calendar[way][(uint64_t)k % SLOTS];
        if (u->slot != k) u->slot = k, u->used = 0;
        double take = fmin(per_slot - u->used, left);
        if (take <= 0) continue;
        if (first < 0) first = k * SLOT_NS + (int64_t)(u->used / per_slot * (double)SLOT_NS);
        u->used += take;
        left -= take;
        end = k * SLOT_NS + (int64_t)(u->used / per_slot * (double)SLOT_NS);
    }
    if (first - t > M.shared_wait_max_ns[way]) M.shared_wait_max_ns[way] = first - t;
    int64_t alone = t + transmit_ns(len, M.shared_bps);
    return end > alone ? end : alone;
}

/* Schedules up to len bytes read at t_read (as many as the window lets go
 * at once) and returns how many: they are sent when the handshake, the
 * window and both links allow, on the wire for len / rate, then half a round
 * trip (plus jitter) away; a lost segment is resent after one more round
 * trip (fast retransmit) and halves the window. */
static size_t schedule(direction *d, int way, segment *s, int64_t t_read)
{
    int64_t t = t_read > d->earliest_ns ? t_read : d->earliest_ns;
    if (t < d->link_free_ns) t = d->link_free_ns;
    s->len = window_take(d, &t, s->len);
    int64_t own = t + transmit_ns(s->len, M.rate_bps), shared = shared_reserve(way, t, s->len);
    d->link_free_ns = own > shared ? own : shared;
    int64_t due = d->link_free_ns + M.rtt_ns / 2;
    if (M.jitter_ns > 0) due += (int64_t)(uniform() * (double)M.jitter_ns);
    double packets = ceil((double)s->len / MSS);
    if (M.loss > 0 && uniform() < 1 - pow(1 - M.loss, packets)) {
        due += M.rtt_ns;
        M.lost[way]++;
        if (d->cwnd > 0) d->ssthresh = d->cwnd = fmax(d->cwnd / 2, 2.0 * MSS);
    }
    if (due < d->last_due_ns) due = d->last_due_ns;
    d->last_due_ns = s->due_ns = due;
    M.segments[way]++;
    M.bytes[way] += s->len;
    return window_record(d, due + M.rtt_ns / 2, s->len) < 0 ? 0 : s->len;
}

static void enqueue(direction *d, segment *s)
{
    s->next = NULL;
    if (d->tail) d->tail->next = s;
    else d->head = s;
    d->tail = s;
    d->queued += s->len;
    queued_total += s->len;
}

static segment *segment_new(const unsigned char *data, size_t len, int fin)
{
    segment *s = malloc(sizeof *s + len);
    if (!s) return NULL;
    memcpy(s->data, data, len);
    s->len = len, s->off = 0, s->fin = fin, s->next = NULL;
    return s;
}

/* Reads what src has (while the queue has room) and schedules it in as
 * many segments as the window cuts it into. Returns -1 on an error that
 * ends the connection. */
static int pull(direction *d, int way)
{
    static unsigned char buf[READ_MAX];
    while (d->src_open && d->queued < QUEUE_MAX && queued_total < TOTAL_MAX) {
        ssize_t n = read(d->src, buf, sizeof buf);
        if (n < 0) return errno == EAGAIN || errno == EINTR ? 0 : -1;
        int64_t now = now_ns();
        if (n == 0) {
            segment *s = segment_new(buf, 0, 1);
            if (!s) return -1;
            d->src_open = 0;
            s->due_ns = d->last_due_ns > now ? d->last_due_ns : now;
            enqueue(d, s);
        }
        for (size_t off = 0; off < (size_t)n;) {
            size_t left = (size_t)n - off;
            segment *s = segment_new(buf + off, left < SEGMENT_MAX ? left : SEGMENT_MAX, 0);
            size_t taken = s ? schedule(d, way, s, now) : 0;
            if (!taken) {
                free(s);
                return -1;
            }
            enqueue(d, s);
            off += taken;
        }
    }
    return 0;
}

/* Writes every segment that is due. Returns -1 on an error that ends the
 * connection, 1 when dst cannot take more now. */
static int push(direction *d, int64_t now)
{
    while (d->head && d->head->due_ns <= now) {
        segment *s = d->head;
        if (s->fin) {
            shutdown(d->dst, SHUT_WR);
            d->dst_open = 0;
        } else {
            ssize_t n = write(d->dst, s->data + s->off, s->len - s->off);
            if (n < 0 && (errno == EAGAIN || errno == EINTR)) return 1;
            if (n < 0) return -1;
            s->off += (size_t)n;
            d->queued -= (size_t)n;
            queued_total -= (size_t)n;
            if (s->off < s->len) return 1;
        }
        d->head = s->next;
        if (!d->head) d->tail = NULL;
        free(s);
    }
    return 0;
}

static void direction_drop(direction *d)
{
    while (d->head) {
        segment *s = d->head;
        d->head = s->next;
        free(s);
    }
    d->tail = NULL;
    queued_total -= d->queued;
    d->queued = 0;
    d->src_open = d->dst_open = 0;
}

static void direction_free(direction *d)
{
    direction_drop(d);
    free(d->acks_ns);
    free(d->acks_len);
}

static conn *conns[CONN_MAX];
static int conn_end; /* one past the highest slot in use */
static int epfd;

static void conn_close(int i)
{
    conn *c = conns[i];
    if (c->client >= 0) close(c->client);
    if (c->server >= 0) close(c->server);
    direction_free(&c->up);
    direction_free(&c->down);
    free(c);
    conns[i] = NULL;
}

/* Interest in reading while a direction's queue has room, in writing while
 * its due head is blocked. */
static void watch(conn *c, int i, int blocked_up, int blocked_down)
{
    struct epoll_event ev = {0};
    ev.data.u64 = (uint64_t)i;
    ev.events = (c->up.src_open && c->up.queued < QUEUE_MAX ? EPOLLIN : 0) | (blocked_down ? EPOLLOUT : 0);
    if (c->client >= 0) epoll_ctl(epfd, EPOLL_CTL_MOD, c->client, &ev);
    ev.data.u64 = (uint64_t)i | (1ull << 32);
    ev.events = (c->down.src_open && c->down.queued < QUEUE_MAX ? EPOLLIN : 0) | (blocked_up ? EPOLLOUT : 0);
    if (c->server >= 0) epoll_ctl(epfd, EPOLL_CTL_MOD, c->server, &ev);
}

/* A side that hung up (closed both ways) has sent all it will (read now) and
 * takes nothing more: what waits for it is dropped, and it leaves the loop,
 * whose hang-up reports would otherwise never stop. */
static void hung_up(conn *c, int server_side)
{
    direction *from = server_side ? &c->down : &c->up, *to = server_side ? &c->up : &c->down;
    int *fd = server_side ? &c->server : &c->client;
    pull(from, server_side);
    from->src_open = 0;
    direction_drop(to);
    epoll_ctl(epfd, EPOLL_CTL_DEL, *fd, NULL);
    close(*fd);
    *fd = -1;
    from->src = -1, to->dst = -1;
}

/* Moves connection i along: reads, writes what is due, closes when both
 * sides are done or either failed. */
static void conn_step(int i, int64_t now, uint32_t events, int server_side)
{
    conn *c = conns[i];
    if (events & EPOLLERR) {
        conn_close(i);
        return;
    }
    if (events & EPOLLHUP) hung_up(c, server_side);
    if (pull(&c->up, 0) < 0 || pull(&c->down, 1) < 0) {
        conn_close(i);
        return;
    }
    int up = push(&c->up, now), down = push(&c->down, now);
    if (up < 0 || down < 0 || (!c->up.dst_open && !c->down.dst_open)) {
        conn_close(i);
        return;
    }
    watch(c, i, up == 1, down == 1);
}

static int64_t next_due(void)
{
    int64_t due = INT64_MAX;
    for (int i = 0; i < conn_end; i++) {
        if (!conns[i]) continue;
        segment *heads[2] = {conns[i]->up.head, conns[i]->down.head};
        for (int k = 0; k < 2; k++)
            if (heads[k] && heads[k]->due_ns < due) due = heads[k]->due_ns;
    }
    return due;
}

static int connect_server(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0 && errno != EINPROGRESS) {
        close(fd);
        return -1;
    }
    return fd;
}

static void direction_init(direction *d, int src, int dst, int64_t earliest)
{
    memset(d, 0, sizeof *d);
    d->src = src, d->dst = dst, d->earliest_ns = earliest;
    d->src_open = d->dst_open = 1;
    d->cwnd = (double)M.iw * MSS;
    d->ssthresh = INFINITY;
}

/* A new client: its server connection at once (the relay's own hop costs
 * nothing); the client's first bytes leave after the handshake's round trip,
 * as a real connect() returns only then. */
static void conn_accept(int listener, int to_port)
{
    int fd = accept4(listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    int slot = 0;
    while (slot < CONN_MAX && conns[slot]) slot++;
    int server = slot < CONN_MAX ? connect_server(to_port) : -1;
    conn *c = server >= 0 ? calloc(1, sizeof *c) : NULL;
    if (!c) {
        if (server >= 0) close(server);
        close(fd);
        return;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(server, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    int64_t now = now_ns();
    c->client = fd, c->server = server;
    direction_init(&c->up, fd, server, now + M.rtt_ns);
    direction_init(&c->down, server, fd, now);
    conns[slot] = c;
    if (slot >= conn_end) conn_end = slot + 1;
    M.connections++;
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = (uint64_t)slot};
    epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
    ev.data.u64 = (uint64_t)slot | (1ull << 32);
    epoll_ctl(epfd, EPOLL_CTL_ADD, server, &ev);
}

static void write_stats(const char *path)
{
    if (!path) return;
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) return;
    fprintf(f,
            "{\"connections\": %llu, \"bytes_up\": %llu, \"bytes_down\": %llu, \"segments_up\": %llu, "
            "\"segments_down\": %llu, \"lost_up\": %llu, \"lost_down\": %llu, \"shared_wait_max_ms_up\": %.3f, "
            "\"shared_wait_max_ms_down\": %.3f}\n",
            M.connections, M.bytes[0], M.bytes[1], M.segments[0], M.segments[1], M.lost[0], M.lost[1],
            (double)M.shared_wait_max_ns[0] / 1e6, (double)M.shared_wait_max_ns[1] / 1e6);
    if (fclose(f) == 0) rename(tmp, path); /* a reader never sees half a file */
}

static int listen_on(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
        bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 1024) < 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
        perror("netem: listen on 127.0.0.1");
        exit(1);
    }
    printf("%d\n", ntohs(a.sin_port));
    fflush(stdout);
    return fd;
}

static void arm(int tfd, int64_t due)
{
    struct itimerspec it = {0};
    if (due != INT64_MAX) {
        if (due <= 0) due = 1;
        it.it_value.tv_sec = due / 1000000000LL;
        it.it_value.tv_nsec = due % 1000000000LL;
    }
    timerfd_settime(tfd, TFD_TIMER_ABSTIME, &it, NULL);
}

/* The one loop: new clients, readable and writable sockets, due segments
 * (the timer is armed for the earliest), the stopping signal. */
static void run(int listener, int to_port, int sfd, const char *stats)
{
    int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 1ull << 40};
    epoll_ctl(epfd, EPOLL_CTL_ADD, listener, &ev);
    ev.data.u64 = 2ull << 40;
    epoll_ctl(epfd, EPOLL_CTL_ADD, tfd, &ev);
    ev.data.u64 = 3ull << 40;
    epoll_ctl(epfd, EPOLL_CTL_ADD, sfd, &ev);
    for (;;) {
        struct epoll_event evs[64];
        int n = epoll_wait(epfd, evs, 64, -1);
        for (int k = 0; k < n; k++) {
            uint64_t tag = evs[k].data.u64;
            if (tag == 1ull << 40) conn_accept(listener, to_port);
            else if (tag == 3ull << 40) {
                struct signalfd_siginfo si;
                if (read(sfd, &si, sizeof si) != (ssize_t)sizeof si) continue;
                write_stats(stats);
                if (si.ssi_signo != SIGUSR1) return;
            } else if (tag == 2ull << 40) {
                uint64_t expirations;
                if (read(tfd, &expirations, sizeof expirations) < 0) continue;
            } else if (conns[(uint32_t)tag]) conn_step((int)(uint32_t)tag, now_ns(), evs[k].events, (int)(tag >> 32));
        }
        int64_t now = now_ns();
        for (int i = 0; i < conn_end; i++)
            if (conns[i] && ((conns[i]->up.head && conns[i]->up.head->due_ns <= now) ||
                             (conns[i]->down.head && conns[i]->down.head->due_ns <= now)))
                conn_step(i, now, 0, 0);
        while (conn_end > 0 && !conns[conn_end - 1]) conn_end--;
        arm(tfd, next_due());
    }
}

static double number(const char *flag, const char *v, double lo, double hi)
{
    char *end;
    double x = v ? strtod(v, &end) : NAN;
    if (!v || *end || !(x >= lo && x <= hi)) {
        fprintf(stderr, "netem: %s wants a number from %g to %g, not %s\n", flag, lo, hi, v ? v : "nothing");
        exit(2);
    }
    return x;
}

int main(int argc, char **argv)
{
    int listen_port = 0, to_port = -1;
    const char *stats = NULL;
    M.iw = 10, M.seed = 88172645463325252ULL;
    for (int i = 1; i < argc; i += 2) {
        const char *f = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(f, "--listen")) listen_port = (int)number(f, v, 0, 65535);
        else if (!strcmp(f, "--to")) to_port = (int)number(f, v, 1, 65535);
        else if (!strcmp(f, "--rtt")) M.rtt_ns = (int64_t)(number(f, v, 0, 10000) * 1e6);
        else if (!strcmp(f, "--jitter")) M.jitter_ns = (int64_t)(number(f, v, 0, 10000) * 1e6);
        else if (!strcmp(f, "--rate")) M.rate_bps = number(f, v, 0, 1e6) * 1e6;
        else if (!strcmp(f, "--shared-rate")) M.shared_bps = number(f, v, 0, 1e6) * 1e6;
        else if (!strcmp(f, "--loss")) M.loss = number(f, v, 0, 0.5);
        else if (!strcmp(f, "--iw")) M.iw = (int)number(f, v, 0, 1000);
        else if (!strcmp(f, "--seed")) M.seed = (uint64_t)number(f, v, 1, 1e15);
        else if (!strcmp(f, "--stats") && v) stats = v;
        else {
            fprintf(stderr, "netem: unknown option %s (see the head of scripts/bench/netem.c)\n", f);
            return 2;
        }
    }
    if (to_port < 0) {
        fprintf(stderr, "netem: --to PORT is needed (the server on 127.0.0.1)\n");
        return 2;
    }
    calendar[0] = calloc(SLOTS, sizeof *calendar[0]);
    calendar[1] = calloc(SLOTS, sizeof *calendar[1]);
    if (!calendar[0] || !calendar[1]) {
        fprintf(stderr, "netem: out of memory\n");
        return 1;
    }
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGUSR1);
    sigprocmask(SIG_BLOCK, &stop, NULL);
    signal(SIGPIPE, SIG_IGN);
    int sfd = signalfd(-1, &stop, SFD_NONBLOCK | SFD_CLOEXEC);
    epfd = epoll_create1(EPOLL_CLOEXEC);
    run(listen_on(listen_port), to_port, sfd, stats);
    for (int i = 0; i < conn_end; i++)
        if (conns[i]) conn_close(i);
    free(calendar[0]);
    free(calendar[1]);
    return 0;
}
