/* Path prefetches for the relay's callers: a thread about to walk a path the
 * relay has not seen asks for all of its blocks in one CAR request (the
 * client's prefetch task: every block checked against its CID as it comes)
 * and waits for that one round trip, instead of one per level of directories.
 * The blocks are kept as fetched ones are; the walk that follows proves what
 * is on the path and asks block by block for anything the answer lacked, so a
 * failed or partial prefetch costs time, never correctness. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/relay_internal.h"
#include "store/blockcache.h"
#include "base/base_internal.h"

/* A checked block of the answer, on the driving thread (in the pump, the
 * relay's lock not held): into the client's cache (and its directory) and
 * kept for the callers. */
static bool keep_prefetched(void *user, ipfsrt_rcblock *block) {
    path_prefetch *p = user;
    ipfsrt_client_relay *r = p->relay;
    ipfsrt_blockcache_put(r->c->cache, block);
    pthread_mutex_lock(&r->lock);
    ipfsrt_wants_keep(&r->wants, block);
    r->prefetched++;
    pthread_mutex_unlock(&r->lock);
    return true;
}

/* Settles *link's prefetch; one nobody waits for (asked for without waiting)
 * is unlinked and freed here, else its last waiter does that. */
static void settle_prefetch(ipfsrt_client_relay *r, path_prefetch **link) {
    path_prefetch *p = *link;
    if (p->started && p->pf.t.c) ipfsrt_task_end(&p->pf.t);
    p->settled = true;
    ipfsrt_relay_wake_later(r, &p->waiting);
    if (p->waiters) return;
    *link = p->next;
    free(p);
}

static ipfsrt_status count_block(void *user, const ipfsrt_cid *cid, ipfsrt_error *err) {
    (void)user, (void)cid, (void)err;
    return IPFSRT_OK;
}

/* True when the client's cache (memory and directory) holds every block the
 * prefetch would bring: a process over a warm cache directory asks nothing. */
static bool cached_already(ipfsrt_client_relay *r, const path_prefetch *p) {
    probe pr = {r->c, false};
    ipfsrt_blocksource src;
    ipfsrt_probe_source(&pr, &src);
    ipfsrt_unixfs_options walk = {.size = sizeof walk, .scope = p->scope, .offset = p->offset, .length = p->length};
    return ipfsrt_unixfs_blocks_for(&src, p->key, &walk, count_block, NULL, NULL) == IPFSRT_OK && !pr.missed;
}

void ipfsrt_relay_start_prefetches(ipfsrt_client_relay *r) {
    for (path_prefetch **link = &r->prefetches, *p; (p = *link);) {
        if (!p->started && !p->settled) {
            char *query = p->key + strlen(p->key) + 1;
            p->pf.on_block = keep_prefetched;
            p->pf.user = p;
            p->started = !cached_already(r, p) && ipfsrt_prefetch_start_query(r->c, &p->pf, p->key, query);
            if (!p->started) {
                settle_prefetch(r, link);
                continue; /* *link is the next one now, or still p (waited for) */
            }
        }
        link = &p->next;
    }
}

size_t ipfsrt_relay_settle_prefetches(ipfsrt_client_relay *r, bool stopping) {
    size_t in_flight = 0;
    for (path_prefetch **link = &r->prefetches, *p; (p = *link);) {
        bool over = p->started && ipfsrt_task_over(&p->pf.t);
        if (!p->settled) {
            if (!stopping && !over) {
                in_flight++;
            } else {
                settle_prefetch(r, link);
                if (*link != p) continue; /* freed: *link is the next one */
            }
        }
        link = &p->next;
    }
    return in_flight;
}

static path_prefetch *prefetch_for(ipfsrt_client_relay *r, const char *path, const char *query,
                                   ipfsrt_unixfs_scope scope, uint64_t offset, uint64_t length) {
    for (path_prefetch *p = r->prefetches; p; p = p->next)
        if (!p->settled && strcmp(p->key, path) == 0 && strcmp(p->key + strlen(p->key) + 1, query) == 0)
            return p;
    path_prefetch *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    size_t n = strlen(path);
    if (n + 1 + strlen(query) + 1 > sizeof p->key) {
        free(p);
        return NULL;
    }
    memcpy(p->key, path, n + 1);
    memcpy(p->key + n + 1, query, strlen(query) + 1);
    p->relay = r;
    p->scope = scope;
    p->offset = offset;
    p->length = length;
    p->next = r->prefetches;
    r->prefetches = p;
    if (r->running) r->c->engine.wakeup(r->c->engine.ctx);
    return p;
}

static void unlink_prefetch(ipfsrt_client_relay *r, path_prefetch *p) {
    for (path_prefetch **q = &r->prefetches; *q; q = &(*q)->next)
        if (*q == p) {
            *q = p->next;
            break;
        }
    free(p);
}

/* True when the blocks the relay holds cover the walk: nothing to ask. */
static bool at_hand_already(ipfsrt_client_relay *r, const char *path, ipfsrt_unixfs_scope scope, uint64_t offset,
                            uint64_t length) {
    ipfsrt_blocksource at_hand;
    ipfsrt_client_relay_blocksource_at_hand(r, &at_hand);
    ipfsrt_unixfs_options walk = {.size = sizeof walk, .scope = scope, .offset = offset, .length = length};
    return ipfsrt_unixfs_blocks_for(&at_hand, path, &walk, count_block, NULL, NULL) == IPFSRT_OK;
}

/* The CAR query asking for the scope (and the range of an entity's bytes). */
static void scope_query(char *query, size_t size, ipfsrt_unixfs_scope scope, uint64_t offset, uint64_t length) {
    static const char *const scopes[] = {"entity", "block", "all"}; /* in ipfsrt_unixfs_scope's order */
    int n = snprintf(query, size, "format=car&dag-scope=%s", scopes[scope <= IPFSRT_SCOPE_ALL ? scope : IPFSRT_SCOPE_ENTITY]);
    if (scope != IPFSRT_SCOPE_ENTITY || (!offset && length == UINT64_MAX)) return;
    if (length == UINT64_MAX || offset > UINT64_MAX - length)
        snprintf(query + n, size - (size_t)n, "&entity-bytes=%llu:*", (unsigned long long)offset);
    else if (length)
        snprintf(query + n, size - (size_t)n, "&entity-bytes=%llu:%llu", (unsigned long long)offset,
                 (unsigned long long)(offset + length - 1));
}

/* Posts the prefetch (one already asked for the same is joined), waiting for
 * it to settle when wait says so. */
static ipfsrt_status post_prefetch(ipfsrt_client_relay *r, const char *path, ipfsrt_unixfs_scope scope,
                                   uint64_t offset, uint64_t length, bool wait, ipfsrt_error *err) {
    if (at_hand_already(r, path, scope, offset, length)) return IPFSRT_OK;
    char query[160];
    scope_query(query, sizeof query, scope, offset, length);
    pthread_mutex_lock(&r->lock);
    path_prefetch *p = r->stopping ? NULL : prefetch_for(r, path, query, scope, offset, length);
    if (!p || !wait) {
        bool stopping = r->stopping;
        pthread_mutex_unlock(&r->lock);
        return stopping ? ipfsrt_fail(err, IPFSRT_ECANCELED, -1, "the gateway client has stopped") : IPFSRT_OK;
    }
    p->waiters++;
    while (!p->settled) ipfsrt_relay_wait(r, &p->waiting);
    if (--p->waiters == 0) unlink_prefetch(r, p);
    pthread_mutex_unlock(&r->lock);
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_client_relay_prefetch(ipfsrt_client_relay *r, const char *path, ipfsrt_unixfs_scope scope,
                                           uint64_t offset, uint64_t length, ipfsrt_error *err) {
    IPFSRT_NEED(r, err);
    IPFSRT_NEED(path, err);
    return post_prefetch(r, path, scope, offset, length, true, err);
}

ipfsrt_status ipfsrt_client_relay_prefetch_nowait(ipfsrt_client_relay *r, const char *path,
                                                  ipfsrt_unixfs_scope scope, uint64_t offset, uint64_t length,
                                                  ipfsrt_error *err) {
    IPFSRT_NEED(r, err);
    IPFSRT_NEED(path, err);
    return post_prefetch(r, path, scope, offset, length, false, err);
}
