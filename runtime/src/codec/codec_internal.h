/* What the codec files share; not public. */
#ifndef IPFSRT_CODEC_INTERNAL_H
#define IPFSRT_CODEC_INTERNAL_H

#include <cjson/cJSON.h>

#include "ipfsrt/codec.h"

/* ipfsrt_codec_new with its configuration parsed already (NULL: none). */
ipfsrt_status ipfsrt_codec_new_config(ipfsrt_codec **out, const char *name, const cJSON *config, size_t itemsize,
                                      ipfsrt_error *err);

/* An element type of the filters that convert (numpy's typestr). */
typedef struct ipfsrt_cast_type {
    char kind; /* i, u, f */
    size_t size;
    bool big;
} ipfsrt_cast_type;

/* One codec kind: its parameters parsed into the codec's params, and its
 * operations. decode writes at most cap bytes at dst and says how many in
 * *written; data that hold more fail with IPFSRT_ETOO_LARGE (the caller may
 * retry with more room) before anything past cap is written. size reports the
 * decoded size when the encoded form states it (NULL: never). */
typedef struct ipfsrt_codec_ops {
    const char *name;
    ipfsrt_status (*configure)(ipfsrt_codec *c, const cJSON *config, ipfsrt_error *err);
    ipfsrt_status (*decode)(const ipfsrt_codec *c, const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                            size_t *written, ipfsrt_error *err);
    ipfsrt_status (*size)(const ipfsrt_codec *c, const uint8_t *src, size_t n, size_t *size, bool *known,
                          ipfsrt_error *err);
    ipfsrt_status (*encode)(const ipfsrt_codec *c, const uint8_t *src, size_t n, ipfsrt_buf *out,
                            ipfsrt_error *err);
    /* Writes at least the first need bytes of data that decode to exactly cap
     * bytes, and may stop there (NULL: decode does it all). */
    ipfsrt_status (*decode_prefix)(const ipfsrt_codec *c, const uint8_t *src, size_t n, uint8_t *dst,
                                   size_t cap, size_t need, ipfsrt_error *err);
    /* Filters whose decoded data are as long as their encoded form (shuffle,
     * delta): how many first bytes of len encoded ones the first need decoded
     * bytes come from. NULL for every other codec. */
    size_t (*needs)(const ipfsrt_codec *c, size_t len, size_t need);
} ipfsrt_codec_ops;

struct ipfsrt_codec {
    const ipfsrt_codec_ops *ops;
    size_t itemsize;
    int level;        /* compression level for encoding */
    bool checksum;    /* zstd: a content checksum in written frames */
    int acceleration; /* lz4 */
    /* blosc */
    char cname[16];
    int shuffle; /* 0 none, 1 byte, 2 bit */
    size_t typesize, blocksize;
    /* shuffle and delta */
    size_t elementsize;
    char delta_kind; /* delta: the numpy kind of its dtype (i, u, f), elementsize its size */
    /* astype, quantize, fixedscaleoffset: the stored (encoded) and decoded element types */
    int cast_mode;
    ipfsrt_cast_type cast_enc, cast_dec;
    double scale, offset;
};

extern const ipfsrt_codec_ops ipfsrt_codec_zstd, ipfsrt_codec_gzip, ipfsrt_codec_zlib, ipfsrt_codec_bz2,
    ipfsrt_codec_lz4, ipfsrt_codec_blosc, ipfsrt_codec_crc32c, ipfsrt_codec_shuffle, ipfsrt_codec_delta,
    ipfsrt_codec_astype, ipfsrt_codec_quantize, ipfsrt_codec_fixedscaleoffset;

/* An integer parameter of config (absent: dflt), checked to lie in [lo, hi]. */
ipfsrt_status ipfsrt_codec_int(const ipfsrt_codec *c, const cJSON *config, const char *key, int dflt, int lo,
                               int hi, int *out, ipfsrt_error *err);
/* The error every decoder gives when data decode to another size than asked. */
ipfsrt_status ipfsrt_codec_wrong_size(const ipfsrt_codec *c, size_t got, bool more, size_t want,
                                      ipfsrt_error *err);

#endif
