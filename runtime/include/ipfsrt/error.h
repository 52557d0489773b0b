/** @file
 * ipfsrt — errors: status codes and the error value every call fills. */
#ifndef IPFSRT_ERROR_H
#define IPFSRT_ERROR_H

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What a call came to: IPFSRT_OK, or why it failed (the error struct says more). */
typedef enum ipfsrt_status {
    IPFSRT_OK = 0,            /**< done */
    IPFSRT_EOUT_OF_MEMORY,    /**< allocation failed */
    IPFSRT_EBAD_ARGUMENT,     /**< the caller passed something unusable */
    IPFSRT_EIO,               /**< file system error */
    IPFSRT_EBAD_VARINT,       /**< malformed, non-minimal or over-long varint */
    IPFSRT_EBAD_MULTIBASE,    /**< bad multibase string */
    IPFSRT_EBAD_MULTIHASH,    /**< malformed multihash */
    IPFSRT_EUNSUPPORTED,      /**< recognised but not supported (hash, base, version) */
    IPFSRT_EBAD_CID,          /**< malformed CID */
    IPFSRT_EBAD_DAGCBOR,      /**< invalid or non-canonical DAG-CBOR */
    IPFSRT_EBAD_CAR_HEADER,   /**< CAR header unreadable or not of the required shape */
    IPFSRT_EBAD_CAR_VERSION,  /**< CAR version other than 1 or 2 */
    IPFSRT_ETOO_LARGE,        /**< a length over the configured maximum */
    IPFSRT_EHASH_MISMATCH,    /**< block bytes do not hash to their CID */
    IPFSRT_ETRUNCATED,        /**< input ended inside an item */
    IPFSRT_ETRAILING_DATA,    /**< bytes after the end of a well-formed item */
    IPFSRT_EBAD_CAR_INDEX,    /**< CARv2 index malformed */
    IPFSRT_ENOT_FOUND,        /**< no such block */
    IPFSRT_ECANCELED,         /**< a callback asked to stop */
    IPFSRT_EBAD_DAGPB,        /**< invalid dag-pb node */
    IPFSRT_EBAD_UNIXFS,       /**< invalid UnixFS data, or a DAG that contradicts itself */
    IPFSRT_ENOT_DIRECTORY,    /**< a path goes through something that is not a directory */
    IPFSRT_ENOT_FILE,         /**< file bytes asked of something that is not a file */
    IPFSRT_ESYMLINK,          /**< a path meets a symlink that may not be followed */
    IPFSRT_EBAD_RANGE,        /**< a byte range outside the file */
    IPFSRT_EFETCH_FAILED,     /**< no gateway delivered (the message says why, per gateway) */
    IPFSRT_EBAD_CHUNK_DATA,   /**< encoded chunk data corrupt, or decoding to another size than due */
    IPFSRT_EUNAVAILABLE,      /**< every gateway said it has no such thing: no proof that it does not exist */
    IPFSRT_EDENIED,           /**< the server refused the request: credentials, permissions, no such bucket */
    IPFSRT_ETIMED_OUT,        /**< no gateway answered in time: every attempt timed out, or the client gave up */
    IPFSRT_EUNVERIFIED,       /**< verified data names bytes that cannot be checked (refused unless asked for) */
    IPFSRT_EBAD_POLICY,       /**< a gateway policy failed, or answered what its contract does not allow */
    IPFSRT_EINSIDE_BLOCK,     /**< a path ends inside a DAG-CBOR/DAG-JSON block at a value, not at a link */
    IPFSRT_EBAD_RECORD,       /**< an IPNS record or key malformed, or its fields disagree */
    IPFSRT_EBAD_SIGNATURE,    /**< a signature that does not verify */
    IPFSRT_EEXPIRED,          /**< an IPNS record past its EOL */
    IPFSRT_STATUS_COUNT       /**< how many statuses there are */
} ipfsrt_status;

#define IPFSRT_CID_STR_MAX 336 /**< longest CID string we produce, plus NUL */

/** Why a call failed: filled by the call (when the caller passes one), never on success. */
typedef struct ipfsrt_error {
    ipfsrt_status code;            /**< the status the call returned */
    int64_t offset;                /**< byte offset in the input at fault, or -1 */
    char cid[IPFSRT_CID_STR_MAX];  /**< CID at fault, or "" */
    char message[768];             /**< human-readable, names the CID/offset too */
} ipfsrt_error;

/** The stable lower-case name of a status: its constant's suffix, e.g.
 * "hash_mismatch" for IPFSRT_EHASH_MISMATCH (what Lua's errors and the CLI print).
 * @param code any value; those outside the enum are named "unknown"
 * @return a static string
 * @owner the library's; never freed */
IPFSRT_API const char *ipfsrt_status_name(ipfsrt_status code);
/** Empties an error: code IPFSRT_OK, no offset, no CID, no message.
 * @param err the error to clear, or NULL (nothing happens) */
IPFSRT_API void ipfsrt_error_clear(ipfsrt_error *err);

/** Fills err (if any) and returns code: the one way errors are made, for
 * callbacks and bindings too. The message is cut to fit (767 bytes).
 * @param err filled when not NULL (its CID cleared)
 * @param code the status to report
 * @param offset the byte offset in the input at fault; < 0 for none
 * @param fmt printf-style message naming the thing at fault, then its arguments
 * @return code
 * @errors none of its own: it returns the code given */
IPFSRT_API ipfsrt_status ipfsrt_fail(ipfsrt_error *err, ipfsrt_status code, int64_t offset, const char *fmt,
                                     ...) IPFSRT_PRINTF(4, 5);
/** Prefixes an already filled error's message with context ("reading x.car: "),
 * cutting its end when the two do not fit.
 * @param err the error, or NULL (nothing happens)
 * @param fmt printf-style prefix, then its arguments */
IPFSRT_API void ipfsrt_error_prefix(ipfsrt_error *err, const char *fmt, ...) IPFSRT_PRINTF(2, 3);
/** Moves an error's offset by delta (when a sub-parser worked on a slice);
 * an error without an offset keeps none.
 * @param err the error, or NULL (nothing happens)
 * @param delta bytes to add to the offset */
IPFSRT_API void ipfsrt_error_shift(ipfsrt_error *err, int64_t delta);

#ifdef __cplusplus
}
#endif

#endif
