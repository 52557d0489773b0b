/* What the image files share; not public. */
#ifndef IPFSRT_IMAGE_INTERNAL_H
#define IPFSRT_IMAGE_INTERNAL_H

#include "base/base_internal.h"
#include "ipfsrt/image.h"

/* An RGB picture, row by row, 3 bytes a pixel. */
typedef struct ipfsrt_image_canvas {
    unsigned char *rgb;
    size_t width, height;
} ipfsrt_image_canvas;

/* One pixel, if it falls on the canvas. */
static inline void ipfsrt_image_dot(ipfsrt_image_canvas *cv, long x, long y, const unsigned char *rgb) {
    if (x < 0 || y < 0 || (size_t)x >= cv->width || (size_t)y >= cv->height) return;
    unsigned char *p = cv->rgb + ((size_t)y * cv->width + (size_t)x) * 3;
    p[0] = rgb[0], p[1] = rgb[1], p[2] = rgb[2];
}

/* Text in the 5 x 7 font scaled px times, its top left at (x, y); what falls
 * off the canvas is left out. */
void ipfsrt_image_text(ipfsrt_image_canvas *cv, long x, long y, const char *text, unsigned px,
                       const unsigned char *rgb);
/* Its width in pixels. */
size_t ipfsrt_image_text_width(const char *text, unsigned px);

/* The colour of t (0 to 1; NaN: missing, grey) on a colour map. */
void ipfsrt_image_color(ipfsrt_image_cmap cmap, double t, unsigned char *rgb);

/* Writes the canvas as a PNG that appears complete or not at all. */
ipfsrt_status ipfsrt_image_write_png(const char *path, const ipfsrt_image_canvas *cv, ipfsrt_error *err);

#endif
