/* Colour maps as PNG: the field converted to float64 once, each cell a colour
 * on a scale interpolated between a few anchors (blue to red through cyan and
 * yellow, as sea-surface maps are drawn), NaN in grey, a colour bar labelled
 * with its ends in a 3 x 5 pixel font (no font library needed for digits).
 * Written through libpng into a temporary file renamed into place. */
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ipfsrt/image.h"

#define BAR_HEIGHT 14
#define LABEL_HEIGHT 14

static const unsigned char ANCHORS[][3] = {{8, 29, 88},   {37, 52, 148},  {34, 94, 168}, {29, 145, 192},
                                           {65, 182, 196}, {127, 205, 187}, {237, 248, 177}, {254, 217, 118},
                                           {253, 141, 60},  {227, 26, 28},  {128, 0, 38}};
#define N_ANCHORS (sizeof ANCHORS / sizeof ANCHORS[0])
static const unsigned char GREY[3] = {160, 160, 160};

static void color_of(double t, unsigned char *rgb) {
    if (t != t) {
        memcpy(rgb, GREY, 3);
        return;
    }
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double x = t * (double)(N_ANCHORS - 1);
    size_t i = (size_t)x;
    if (i >= N_ANCHORS - 1) i = N_ANCHORS - 2;
    double f = x - (double)i;
    for (int c = 0; c < 3; c++) rgb[c] = (unsigned char)(ANCHORS[i][c] * (1 - f) + ANCHORS[i + 1][c] * f + 0.5);
}

/* Digits, '.', '-' and 'e' in 3 x 5 pixels: each a row of 3 bits, top first. */
static const char *glyph(char ch) {
    static const char *const digits[10] = {"\7\5\5\5\7", "\2\6\2\2\7", "\7\1\7\4\7", "\7\1\7\1\7", "\5\5\7\1\1",
                                           "\7\4\7\1\7", "\7\4\7\5\7", "\7\1\1\1\1", "\7\5\7\5\7", "\7\5\7\1\7"};
    if (ch >= '0' && ch <= '9') return digits[ch - '0'];
    if (ch == '.') return "\0\0\0\0\2";
    if (ch == '-') return "\0\0\7\0\0";
    if (ch == 'e') return "\0\7\7\4\7";
    return "\0\0\0\0\0";
}

typedef struct canvas {
    unsigned char *rgb;
    size_t width, height;
} canvas;

static void put_text(canvas *cv, size_t x, size_t y, const char *text, unsigned px) {
    for (const char *p = text; *p; p++, x += 4 * px) {
        const char *g = glyph(*p);
        for (size_t row = 0; row < 5 * px; row++)
            for (size_t col = 0; col < 3 * px; col++)
                if ((g[row / px] >> (2 - col / px)) & 1 && x + col < cv->width && y + row < cv->height)
                    memset(cv->rgb + ((y + row) * cv->width + x + col) * 3, 0, 3);
    }
}

static void draw_field(canvas *cv, const double *v, size_t rows, size_t cols, const ipfsrt_image_map_options *o,
                       double lo, double hi, unsigned s) {
    for (size_t r = 0; r < rows; r++) {
        size_t src = o->flip ? rows - 1 - r : r;
        for (size_t c = 0; c < cols; c++) {
            unsigned char rgb[3];
            double x = v[src * cols + c];
            color_of(x != x ? NAN : (x - lo) / (hi - lo), rgb);
            for (unsigned dy = 0; dy < s; dy++)
                for (unsigned dx = 0; dx < s; dx++) memcpy(cv->rgb + ((r * s + dy) * cv->width + c * s + dx) * 3, rgb, 3);
        }
    }
}

static void draw_bar(canvas *cv, size_t top, double lo, double hi) {
    memset(cv->rgb + top * cv->width * 3, 255, (cv->height - top) * cv->width * 3);
    for (size_t y = top + 3; y < top + BAR_HEIGHT; y++)
        for (size_t x = 0; x < cv->width; x++) color_of((double)x / (double)(cv->width - 1), cv->rgb + (y * cv->width + x) * 3);
    char a[32], b[32];
    snprintf(a, sizeof a, "%.4g", lo);
    snprintf(b, sizeof b, "%.4g", hi);
    put_text(cv, 2, top + BAR_HEIGHT + 2, a, 2);
    size_t bw = strlen(b) * 8;
    put_text(cv, cv->width > bw + 2 ? cv->width - bw - 2 : 0, top + BAR_HEIGHT + 2, b, 2);
}

static ipfsrt_status write_png(const char *path, const canvas *cv, ipfsrt_error *err) {
    size_t n = strlen(path) + 16;
    char *tmp = malloc(n);
    if (!tmp) return ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
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

static void limits(const double *v, size_t n, const ipfsrt_image_map_options *o, double *lo, double *hi) {
    *lo = o->vmin, *hi = o->vmax;
    if (*lo != 0 || *hi != 0) return;
    *lo = INFINITY, *hi = -INFINITY;
    for (size_t i = 0; i < n; i++)
        if (v[i] == v[i]) *lo = fmin(*lo, v[i]), *hi = fmax(*hi, v[i]);
    if (*lo > *hi) *lo = 0, *hi = 1;
    if (*lo == *hi) *hi = *lo + 1;
}

ipfsrt_status ipfsrt_image_write_map(const char *path, const ipfsrt_ndarray *field, const ipfsrt_image_map_options *opts,
                                     ipfsrt_error *err) {
    static const ipfsrt_image_map_options defaults = {0, 0, false, 1, true};
    const ipfsrt_image_map_options *o = opts ? opts : &defaults;
    unsigned s = o->scale ? o->scale : 1;
    if (field->ndim != 2 || !field->shape[0] || !field->shape[1] || s > 64 ||
        field->shape[0] > 20000 / s || field->shape[1] > 20000 / s)
        return ipfsrt_fail(err, IPFSRT_EARG, -1, "a colour map is of a 2-d field of at most 20000 pixels a side");
    ipfsrt_ndarray v;
    ipfsrt_ndarray_init(&v);
    ipfsrt_status st = ipfsrt_ndarray_astype(&v, field, IPFSRT_DTYPE_FLOAT64, err);
    size_t rows = field->shape[0], cols = field->shape[1];
    canvas cv = {NULL, cols * s, rows * s + (o->colorbar ? BAR_HEIGHT + LABEL_HEIGHT : 0)};
    if (st == IPFSRT_OK && !(cv.rgb = malloc(cv.width * cv.height * 3)))
        st = ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory for a %zu x %zu picture", cv.width, cv.height);
    if (st == IPFSRT_OK) {
        const double *d = (const double *)(const void *)v.data; /* astype gives a C-order array */
        double lo, hi;
        limits(d, rows * cols, o, &lo, &hi);
        draw_field(&cv, d, rows, cols, o, lo, hi, s);
        if (o->colorbar) draw_bar(&cv, rows * s, lo, hi);
        st = write_png(path, &cv, err);
    }
    free(cv.rgb);
    ipfsrt_ndarray_free(&v);
    return st;
}
