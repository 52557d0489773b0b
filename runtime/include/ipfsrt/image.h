/** @file
 * ipfsrt — pictures written as PNG (libpng): colour maps and figures of 2-D fields, and line plots. In libipfsrt-lua (pkg-config ipfsrt-lua), not in the C core: a host that plots links it; one that reads data needs no libpng. Not included by ipfsrt.h. */
#ifndef IPFSRT_IMAGE_H
#define IPFSRT_IMAGE_H

#include "ndarray.h"

#ifdef __cplusplus
extern "C" {
#endif

/** How a field is drawn as a colour map (size first: ipfsrt_image_map_options_init). */
typedef struct ipfsrt_image_map_options {
    size_t size; /**< sizeof the struct: set by ipfsrt_image_map_options_init (or .size = sizeof) */
    double vmin;         /**< the colour scale's low end; vmin and vmax both 0: the field's own range */
    double vmax;         /**< its high end */
    bool flip;           /**< draw row 0 at the bottom (a latitude axis that ascends) */
    unsigned scale;      /**< pixels per cell side (0 = 1) */
    bool colorbar;       /**< a colour bar beneath, its ends labelled */
} ipfsrt_image_map_options;
/** The defaults (the field's own range, no flip, a pixel a cell, no colour
 * bar), size set: what a caller then fills in.
 * @param opts the caller's struct
 * @owner the caller's struct, holding nothing to release */
IPFSRT_EXPERIMENTAL void ipfsrt_image_map_options_init(ipfsrt_image_map_options *opts);

/** Writes a 2-D field (any real dtype) as a PNG colour map: values from vmin
 * (deep blue) to vmax (dark red) on a perceptual scale, NaN (land, no data) in
 * grey. The file appears complete or not at all.
 * @param path the PNG file
 * @param field a 2-D array
 * @param opts NULL = the defaults
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (not 2-D, too large a picture, vmin not below vmax);
 * IPFSRT_EIO (the file, naming it); IPFSRT_EOUT_OF_MEMORY */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_image_write_map(const char *path, const ipfsrt_ndarray *field,
                                                         const ipfsrt_image_map_options *opts, ipfsrt_error *err);

/** Colour maps: the ocean one of write_map (blue through yellow to red),
 * matplotlib's viridis, and ColorBrewer's red-blue both ways (RdBu_r: blue
 * for low values, for fields centred on 0). */
typedef enum ipfsrt_image_cmap {
    IPFSRT_IMAGE_CMAP_OCEAN,   /**< blue through yellow to red (write_map's) */
    IPFSRT_IMAGE_CMAP_VIRIDIS, /**< matplotlib's viridis */
    IPFSRT_IMAGE_CMAP_RDBU_R,  /**< blue for low values, red for high */
    IPFSRT_IMAGE_CMAP_RDBU     /**< red for low values, blue for high */
} ipfsrt_image_cmap;

/** A labelled mark along an axis; at counts cells of the field from the
 * first one's centre (rows as stored, before any flip). */
typedef struct ipfsrt_image_tick {
    double at;         /**< where, in cells from the first one's centre */
    const char *label; /**< what it says */
} ipfsrt_image_tick;

/** A map as a figure: the field framed, a title above, ticks along its left
 * and bottom sides, a colour bar beneath with ticks of its own and the units
 * under it. NULL title or units, or no ticks: left out. */
typedef struct ipfsrt_image_figure {
    size_t size;            /**< sizeof the struct: set by ipfsrt_image_figure_init (or .size = sizeof) */
    double vmin;            /**< the colour scale's low end; vmin and vmax both 0: the field's own range */
    double vmax;            /**< its high end */
    bool flip;              /**< row 0 at the bottom (an ascending latitude) */
    unsigned scale;         /**< pixels per cell side (0 = 1) */
    ipfsrt_image_cmap cmap; /**< the colours (default OCEAN) */
    bool colorbar;          /**< a colour bar beneath, with ticks and the units */
    const char *title;      /**< above the field; NULL: none */
    const char *units;      /**< under the colour bar; NULL: none */
    const ipfsrt_image_tick *xticks; /**< along the bottom side */
    const ipfsrt_image_tick *yticks; /**< along the left side */
    size_t n_xticks;        /**< how many xticks */
    size_t n_yticks;        /**< how many yticks */
} ipfsrt_image_figure;
/** The defaults (the field's own range, the ocean colours, no decoration),
 * size set: what a caller then fills in.
 * @param fig the caller's struct
 * @owner the caller's struct; the strings and ticks set in it stay the caller's */
IPFSRT_EXPERIMENTAL void ipfsrt_image_figure_init(ipfsrt_image_figure *fig);

/** Writes a map as a figure: the field framed, a title above, ticks along its
 * left and bottom sides, a colour bar beneath with ticks of its own and the
 * units under it (NULL title or units, or no ticks: left out), as a PNG that
 * appears complete or not at all.
 * @param path the PNG file
 * @param field a 2-D array of any real dtype
 * @param fig NULL = the defaults
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors as ipfsrt_image_write_map */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_image_write_figure(const char *path, const ipfsrt_ndarray *field,
                                                            const ipfsrt_image_figure *fig, ipfsrt_error *err);

/** A series of a line plot: n points (x[i], y[i]); NaN breaks the line. */
typedef struct ipfsrt_image_series {
    const double *x;   /**< the points' x */
    const double *y;   /**< their y */
    size_t n;          /**< how many points */
    const char *label; /**< in the legend (shown when there are several series) */
} ipfsrt_image_series;

/** A line plot: series in a frame over the ranges x and y, ticks at data
 * values (at) with grid lines across for y, a title, the y axis's label above
 * it and the x axis's beneath. */
typedef struct ipfsrt_image_lines {
    size_t size;              /**< sizeof the struct: set by ipfsrt_image_lines_init (or .size = sizeof) */
    unsigned width;           /**< pixels (800) */
    unsigned height;          /**< pixels (380) */
    double xlo;               /**< the x range's low end */
    double xhi;               /**< its high end */
    double ylo;               /**< the y range's low end */
    double yhi;               /**< its high end */
    const ipfsrt_image_series *series; /**< the lines */
    size_t n_series;          /**< how many */
    const ipfsrt_image_tick *xticks; /**< along x, at data values */
    const ipfsrt_image_tick *yticks; /**< along y, with grid lines across */
    size_t n_xticks;          /**< how many xticks */
    size_t n_yticks;          /**< how many yticks */
    const char *title;        /**< above; NULL: none */
    const char *xlabel;       /**< beneath the x axis; NULL: none */
    const char *ylabel;       /**< above the y axis; NULL: none */
} ipfsrt_image_lines;
/** The defaults (800 x 380 pixels, nothing drawn), size set.
 * @param fig the caller's struct
 * @owner the caller's struct; the series, ticks and strings set in it stay the caller's */
IPFSRT_EXPERIMENTAL void ipfsrt_image_lines_init(ipfsrt_image_lines *fig);
/** Writes a line plot (series in a frame over the ranges x and y, ticks with
 * grid lines across for y, a title, axis labels) as a PNG that appears
 * complete or not at all.
 * @param path the PNG file
 * @param fig the plot
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (empty or reversed ranges, a size past the bounds);
 * IPFSRT_EIO; IPFSRT_EOUT_OF_MEMORY */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_image_write_lines(const char *path, const ipfsrt_image_lines *fig, ipfsrt_error *err);

#ifdef __cplusplus
}
#endif

#endif
