/* ipfsrt — pictures of 2-D fields: colour maps written as PNG (libpng). */
#ifndef IPFSRT_IMAGE_H
#define IPFSRT_IMAGE_H

#include "ndarray.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ipfsrt_image_map_options {
    double vmin, vmax;   /* the colour scale's ends; both 0: the field's own minimum and maximum */
    bool flip;           /* draw row 0 at the bottom (a latitude axis that ascends) */
    unsigned scale;      /* pixels per cell side (0 = 1) */
    bool colorbar;       /* a colour bar beneath, its ends labelled */
} ipfsrt_image_map_options;

/* Writes a 2-D field (any real dtype) as a PNG colour map: values from vmin
 * (deep blue) to vmax (dark red) on a perceptual scale, NaN (land, no data)
 * in grey. The file appears complete or not at all. */
ipfsrt_status ipfsrt_image_write_map(const char *path, const ipfsrt_ndarray *field,
                                     const ipfsrt_image_map_options *opts, ipfsrt_error *err);

#ifdef __cplusplus
}
#endif

#endif
