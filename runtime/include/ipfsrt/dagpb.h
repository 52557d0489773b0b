/** @file
 * ipfsrt — strict dag-pb. */
#ifndef IPFSRT_DAGPB_H
#define IPFSRT_DAGPB_H

#include "cid.h"
#include "buf.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A PBLink: the child's CID, name and cumulative size. */
typedef struct ipfsrt_dagpb_link {
    ipfsrt_cid cid;      /**< the child */
    const uint8_t *name; /**< borrowed from the decoded block; NULL when absent */
    size_t name_len;     /**< its bytes */
    bool has_tsize;      /**< whether Tsize is there */
    uint64_t tsize;      /**< the child's DAG size, as the block says (unchecked) */
} ipfsrt_dagpb_link;

/** A decoded PBNode: its Data and Links. */
typedef struct ipfsrt_dagpb_node {
    const uint8_t *data; /**< borrowed; NULL when absent */
    size_t data_len;     /**< its bytes */
    ipfsrt_dagpb_link *links; /**< owned: release with ipfsrt_dagpb_node_free */
    size_t link_count;   /**< how many */
} ipfsrt_dagpb_node;

/** Decodes strict dag-pb: PBLink fields in order 1,2,3 and each at most once, a
 * Hash that is a valid CID, Data at most once (before or after the links, not
 * among them), no unknown fields or wire types, nothing trailing.
 * @param buf the block (untrusted: only len bytes are read)
 * @param len its length
 * @param node filled on success; left empty (nothing to free) on failure
 * @param err filled on failure, with the offset at fault
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_DAGPB; a link's CID errors (IPFSRT_EBAD_CID,
 * IPFSRT_EBAD_MULTIHASH, IPFSRT_EUNSUPPORTED); IPFSRT_EOUT_OF_MEMORY
 * @owner node->links is the caller's (ipfsrt_dagpb_node_free); data and link
 * names borrow buf */
IPFSRT_API ipfsrt_status ipfsrt_dagpb_decode(const uint8_t *buf, size_t len, ipfsrt_dagpb_node *node,
                                             ipfsrt_error *err);
/** Releases a decoded node's links and empties it.
 * @param node the node, or NULL
 * @owner the links are freed; buf, which data and names borrowed, is the caller's */
IPFSRT_API void ipfsrt_dagpb_node_free(ipfsrt_dagpb_node *node);
/** Canonical encoding: links in the order given (callers sort directory
 * entries), then Data. A link with name == NULL has no Name field; "" writes an
 * empty one.
 * @param node the node (links and data read only)
 * @param out appended to
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EOUT_OF_MEMORY */
IPFSRT_API ipfsrt_status ipfsrt_dagpb_encode(const ipfsrt_dagpb_node *node, ipfsrt_buf *out, ipfsrt_error *err);

#ifdef __cplusplus
}
#endif

#endif
