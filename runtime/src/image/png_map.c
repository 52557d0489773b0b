/* Colour maps, and pictures written as PNG through libpng into a temporary
 * file renamed into place. */
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base_internal.h"
#include "image/image_internal.h"

#define N_ANCHORS 11

/* Each map as eleven colours at even steps, interpolated between. */
static const unsigned char ANCHORS[][N_ANCHORS][3] = {
    [IPFSRT_IMAGE_CMAP_OCEAN] = {{8, 29, 88}, {37, 52, 148}, {34, 94, 168}, {29, 145, 192}, {65, 182, 196},
                                 {127, 205, 187}, {237, 248, 177}, {254, 217, 118}, {253, 141, 60}, {227, 26, 28},
                                 {128, 0, 38}},
    [IPFSRT_IMAGE_CMAP_VIRIDIS] = {{68, 1, 84}, {72, 36, 117}, {65, 68, 135}, {53, 95, 141}, {42, 120, 142},
                                   {33, 145, 140}, {34, 168, 132}, {68, 191, 112}, {122, 209, 81}, {189, 223, 38},
                                   {253, 231, 37}},
    [IPFSRT_IMAGE_CMAP_RDBU_R] = {{5, 48, 97}, {33, 102, 172}, {67, 147, 195}, {146, 197, 222}, {209, 229, 240},
                                  {247, 247, 247}, {253, 219, 199}, {244, 165, 130}, {214, 96, 77}, {178, 24, 43},
                                  {103, 0, 31}},
};
static const unsigned char GREY[3] = {160, 160, 160};

void ipfsrt_image_color(ipfsrt_image_cmap cmap, double t, unsigned char *rgb) {
    if (t != t) {
        memcpy(rgb, GREY, 3);
        return;
    }
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    bool reversed = cmap == IPFSRT_IMAGE_CMAP_RDBU;
    const unsigned char(*a)[3] = ANCHORS[reversed ? IPFSRT_IMAGE_CMAP_RDBU_R : cmap];
    double x = (reversed ? 1 - t : t) * (N_ANCHORS - 1);
    size_t i = (size_t)x;
    if (i >= N_ANCHORS - 1) i = N_ANCHORS - 2;
    double f = x - (double)i;
    for (int c = 0; c < 3; c++) rgb[c] = (unsigned char)(a[i][c] * (1 - f) + a[i + 1][c] * f + 0.5);
}

ipfsrt_status ipfsrt_image_write_png(const char *path, const ipfsrt_image_canvas *cv, ipfsrt_error *err) {
    size_t n = strlen(path) + 16;
    char *tmp = malloc(n);
    if (!tmp) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    snprintf(tmp, n, "%s.part-XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd >= 0) fchmod(fd, 0644); /* as a file made by fopen would be, not mkstemp's 0600 */
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    png_structp png = f ? png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL) : NULL;
    png_infop info = png ? png_create_info_struct(png) : NULL;
    ipfsrt_status st = info ? IPFSRT_OK : ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot write %s", path);
    if (st == IPFSRT_OK && setjmp(png_jmpbuf(png))) { /* libpng reports its errors by longjmp */
        st = ipfsrt_fail(err, IPFSRT_EIO, -1, "writing %s failed", path);
    } else if (st == IPFSRT_OK) {
        png_init_io(png, f);
        png_set_IHDR(png, info, (png_uint_32)cv->width, (png_uint_32)cv->height, 8, PNG_COLOR_TYPE_RGB,
                     PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
        png_write_info(png, info);
        for (size_t y = 0; y < cv->height; y++) png_write_row(png, cv->rgb + y * cv->width * 3);
        png_write_end(png, NULL);
    }
    if (png) png_destroy_write_struct(&png, info ? &info : NULL);
    if (f && fclose(f) != 0 && st == IPFSRT_OK) st = ipfsrt_fail(err, IPFSRT_EIO, -1, "writing %s failed", path);
    if (!f && fd >= 0) close(fd);
    if (st == IPFSRT_OK && rename(tmp, path) != 0) st = ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot create %s", path);
    if (st != IPFSRT_OK && fd >= 0) unlink(tmp);
    free(tmp);
    return st;
}

void ipfsrt_image_map_options_init(ipfsrt_image_map_options *opts) {
    IPFSRT_NEED_OR(opts, );
    *opts = (ipfsrt_image_map_options){.size = sizeof *opts, .scale = 1, .colorbar = true};
}

ipfsrt_status ipfsrt_image_write_map(const char *path, const ipfsrt_ndarray *field, const ipfsrt_image_map_options *opts,
                                     ipfsrt_error *err) {
    IPFSRT_NEED(path, err);
    IPFSRT_NEED(field, err);
    ipfsrt_image_map_options o;
    ipfsrt_status st = IPFSRT_TAKE_OPTIONS(o, opts, ipfsrt_image_map_options_init, err);
    if (st != IPFSRT_OK) return st;
    ipfsrt_image_figure fig = {.size = sizeof fig, .vmin = o.vmin, .vmax = o.vmax, .flip = o.flip, .scale = o.scale,
                               .cmap = IPFSRT_IMAGE_CMAP_OCEAN, .colorbar = o.colorbar};
    return ipfsrt_image_write_figure(path, field, &fig, err);
}
