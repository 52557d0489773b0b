/* Figures: a 2-D field as a colour map, framed, with a title, ticks along
 * two sides, and a colour bar beneath with ticks of its own and the units.
 * Margins are worked out from the text they hold; a figure with none of
 * these is the bare field, a pixel block per cell. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image/image_internal.h"
#include "base/base_internal.h"

#define PAD 12
#define TICK 5
#define PX 2 /* the font's scale for labels */
#define LINE (7 * PX)
#define BAR_HEIGHT 16
#define BAR_TICKS_MAX 12
#define SIDE_MAX 20000 /* pixels */

static const unsigned char BLACK[3] = {0, 0, 0};

typedef struct layout {
    long left, top;          /* the field's top left corner */
    long field_w, field_h;
    long bar_top;            /* the colour bar's, when drawn */
    unsigned title_px;
    bool decorated;
} layout;

typedef struct bar_ticks {
    double at[BAR_TICKS_MAX];
    char label[BAR_TICKS_MAX][32];
    int n;
} bar_ticks;

/* Ticks at round values between lo and hi: steps of 1, 2 or 5 times a power
 * of ten, about five of them, with as many decimals as the step needs. */
static void bar_ticks_of(double lo, double hi, bar_ticks *t) {
    double raw = (hi - lo) / 5, p = pow(10, floor(log10(raw))), f = raw / p;
    double step = (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * p;
    int decimals = step < 1 ? (int)ceil(-log10(step) - 1e-9) : 0;
    t->n = 0;
    for (double v = ceil(lo / step) * step; v <= hi + step * 1e-9 && t->n < BAR_TICKS_MAX; v += step) {
        double shown = fabs(v) < step * 1e-9 ? 0 : v; /* no "-0" */
        t->at[t->n] = shown;
        snprintf(t->label[t->n++], sizeof t->label[0], "%.*f", decimals, shown);
    }
}

static size_t widest(const ipfsrt_image_tick *ticks, size_t n) {
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        size_t tw = ipfsrt_image_text_width(ticks[i].label ? ticks[i].label : "", PX);
        if (tw > w) w = tw;
    }
    return w;
}

/* The canvas size and where the parts go. */
static void lay_out(const ipfsrt_image_figure *f, size_t rows, size_t cols, const bar_ticks *bt, layout *l,
                    ipfsrt_image_canvas *cv) {
    unsigned s = f->scale ? f->scale : 1;
    l->field_w = (long)(cols * s), l->field_h = (long)(rows * s);
    l->bar_top = 0;
    l->decorated = f->title || f->units || f->n_xticks || f->n_yticks || f->colorbar;
    l->title_px = l->field_w >= 900 ? 3 : 2;
    if (!l->decorated) {
        l->left = l->top = 0;
        cv->width = (size_t)l->field_w, cv->height = (size_t)l->field_h;
        return;
    }
    l->top = PAD + (f->title ? 7 * (long)l->title_px + PAD : 0);
    l->left = PAD + (f->n_yticks ? (long)widest(f->yticks, f->n_yticks) + TICK + 4 : 0);
    long y = l->top + l->field_h + (f->n_xticks ? TICK + 3 + LINE : 0);
    l->bar_top = y + PAD;
    if (f->colorbar) y = l->bar_top + BAR_HEIGHT + TICK + 3 + LINE;
    if (f->units) y += 6 + LINE;
    long overhang = (long)widest(f->xticks, f->n_xticks) / 2 + 1;
    for (int i = 0; f->colorbar && i < bt->n; i++) {
        long half = (long)ipfsrt_image_text_width(bt->label[i], PX) / 2 + 1;
        if (half > overhang) overhang = half;
    }
    if (l->left < PAD + overhang) l->left = PAD + overhang; /* the first labels reach left of the field too */
    long width = l->left + l->field_w + PAD + overhang;
    long title_w = f->title ? (long)ipfsrt_image_text_width(f->title, l->title_px) + 2 * PAD : 0;
    if (title_w > width) width = title_w < SIDE_MAX ? title_w : SIDE_MAX;
    cv->width = (size_t)width, cv->height = (size_t)(y + PAD);
}

static void draw_field(ipfsrt_image_canvas *cv, const layout *l, const double *v, size_t rows, size_t cols,
                       const ipfsrt_image_figure *f, double lo, double hi) {
    unsigned s = f->scale ? f->scale : 1;
    for (size_t r = 0; r < rows; r++) {
        size_t src = f->flip ? rows - 1 - r : r;
        for (size_t c = 0; c < cols; c++) {
            unsigned char rgb[3];
            double x = v[src * cols + c];
            ipfsrt_image_color(f->cmap, x != x ? NAN : (x - lo) / (hi - lo), rgb);
            for (unsigned dy = 0; dy < s; dy++)
                for (unsigned dx = 0; dx < s; dx++)
                    ipfsrt_image_dot(cv, l->left + (long)(c * s + dx), l->top + (long)(r * s + dy), rgb);
        }
    }
}

static void frame(ipfsrt_image_canvas *cv, long x, long y, long w, long h) {
    for (long i = -1; i <= w; i++) ipfsrt_image_dot(cv, x + i, y - 1, BLACK), ipfsrt_image_dot(cv, x + i, y + h, BLACK);
    for (long j = -1; j <= h; j++) ipfsrt_image_dot(cv, x - 1, y + j, BLACK), ipfsrt_image_dot(cv, x + w, y + j, BLACK);
}

static void draw_axes(ipfsrt_image_canvas *cv, const layout *l, const ipfsrt_image_figure *f, size_t rows) {
    double s = f->scale ? f->scale : 1;
    for (size_t i = 0; i < f->n_xticks; i++) {
        long x = l->left + (long)floor((f->xticks[i].at + 0.5) * s);
        long y = l->top + l->field_h;
        for (long k = 0; k < TICK; k++) ipfsrt_image_dot(cv, x, y + k, BLACK);
        const char *label = f->xticks[i].label ? f->xticks[i].label : "";
        ipfsrt_image_text(cv, x - (long)ipfsrt_image_text_width(label, PX) / 2, y + TICK + 3, label, PX, BLACK);
    }
    for (size_t i = 0; i < f->n_yticks; i++) {
        double row = f->flip ? (double)rows - 1 - f->yticks[i].at : f->yticks[i].at;
        long y = l->top + (long)floor((row + 0.5) * s);
        for (long k = 1; k <= TICK; k++) ipfsrt_image_dot(cv, l->left - k, y, BLACK);
        const char *label = f->yticks[i].label ? f->yticks[i].label : "";
        long w = (long)ipfsrt_image_text_width(label, PX);
        ipfsrt_image_text(cv, l->left - TICK - 4 - w, y - LINE / 2, label, PX, BLACK);
    }
}

static void draw_bar(ipfsrt_image_canvas *cv, const layout *l, const ipfsrt_image_figure *f, double lo, double hi,
                     const bar_ticks *bt) {
    long x0 = l->left, w = l->field_w;
    for (long x = 0; x < w; x++) {
        unsigned char rgb[3];
        ipfsrt_image_color(f->cmap, w > 1 ? (double)x / (double)(w - 1) : 0.5, rgb);
        for (long y = 0; y < BAR_HEIGHT; y++) ipfsrt_image_dot(cv, x0 + x, l->bar_top + y, rgb);
    }
    frame(cv, x0, l->bar_top, w, BAR_HEIGHT);
    for (int i = 0; i < bt->n; i++) {
        long x = x0 + (long)floor((bt->at[i] - lo) / (hi - lo) * (double)(w - 1) + 0.5);
        for (long k = 0; k < TICK; k++) ipfsrt_image_dot(cv, x, l->bar_top + BAR_HEIGHT + k, BLACK);
        ipfsrt_image_text(cv, x - (long)ipfsrt_image_text_width(bt->label[i], PX) / 2,
                          l->bar_top + BAR_HEIGHT + TICK + 3, bt->label[i], PX, BLACK);
    }
    if (f->units) {
        long y = l->bar_top + BAR_HEIGHT + TICK + 3 + LINE + 6;
        ipfsrt_image_text(cv, x0 + w / 2 - (long)ipfsrt_image_text_width(f->units, PX) / 2, y, f->units, PX, BLACK);
    }
}

static void limits(const double *v, size_t n, const ipfsrt_image_figure *f, double *lo, double *hi) {
    *lo = f->vmin, *hi = f->vmax;
    if (*lo != 0 || *hi != 0) return;
    *lo = INFINITY, *hi = -INFINITY;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i])) *lo = fmin(*lo, v[i]), *hi = fmax(*hi, v[i]);
    if (*lo > *hi) *lo = 0, *hi = 1;
    if (*lo == *hi) *hi = *lo + 1;
}

static void draw(ipfsrt_image_canvas *cv, const layout *l, const double *d, size_t rows, size_t cols,
                 const ipfsrt_image_figure *f, double lo, double hi, const bar_ticks *bt) {
    memset(cv->rgb, 255, cv->width * cv->height * 3);
    draw_field(cv, l, d, rows, cols, f, lo, hi);
    if (!l->decorated) return;
    frame(cv, l->left, l->top, l->field_w, l->field_h);
    if (f->title) ipfsrt_image_text(cv, PAD, PAD, f->title, l->title_px, BLACK);
    draw_axes(cv, l, f, rows);
    if (f->colorbar) draw_bar(cv, l, f, lo, hi, bt);
}

void ipfsrt_image_figure_init(ipfsrt_image_figure *fig) {
    IPFSRT_NEED_OR(fig, );
    memset(fig, 0, sizeof *fig);
    fig->size = sizeof *fig;
}

ipfsrt_status ipfsrt_image_write_figure(const char *path, const ipfsrt_ndarray *field, const ipfsrt_image_figure *theirs,
                                        ipfsrt_error *err) {
    IPFSRT_NEED(path, err);
    IPFSRT_NEED(field, err);
    ipfsrt_image_figure mine;
    ipfsrt_status taken = IPFSRT_TAKE_OPTIONS(mine, theirs, ipfsrt_image_figure_init, err);
    if (taken != IPFSRT_OK) return taken;
    const ipfsrt_image_figure *fig = &mine;
    unsigned s = fig->scale ? fig->scale : 1;
    if (field->ndim != 2 || !field->shape[0] || !field->shape[1] || s > 64 || field->shape[0] > SIDE_MAX / s ||
        field->shape[1] > SIDE_MAX / s)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "a colour map is of a 2-d field of at most %d pixels a side", SIDE_MAX);
    bool automatic = fig->vmin == 0 && fig->vmax == 0;
    if (!automatic && !(isfinite(fig->vmin) && isfinite(fig->vmax) && fig->vmin < fig->vmax))
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "the colour scale runs from vmin to a greater vmax");
    ipfsrt_ndarray v;
    ipfsrt_ndarray_init(&v);
    ipfsrt_status st = ipfsrt_ndarray_astype(&v, field, IPFSRT_DTYPE_FLOAT64, err);
    size_t rows = field->shape[0], cols = field->shape[1];
    const double *d = (const double *)(const void *)v.data; /* astype gives a C-order array */
    double lo = 0, hi = 1;
    if (st == IPFSRT_OK) limits(d, rows * cols, fig, &lo, &hi);
    bar_ticks bt;
    bar_ticks_of(lo, hi, &bt);
    layout l;
    ipfsrt_image_canvas cv = {NULL, 0, 0};
    lay_out(fig, rows, cols, &bt, &l, &cv);
    if (st == IPFSRT_OK && (cv.width > SIDE_MAX || cv.height > SIDE_MAX + 400))
        st = ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "a figure of %zu x %zu pixels is too large", cv.width, cv.height);
    if (st == IPFSRT_OK && !(cv.rgb = malloc(cv.width * cv.height * 3)))
        st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory for a %zu x %zu picture", cv.width, cv.height);
    if (st == IPFSRT_OK) {
        draw(&cv, &l, d, rows, cols, fig, lo, hi, &bt);
        st = ipfsrt_image_write_png(path, &cv, err);
    }
    free(cv.rgb);
    ipfsrt_ndarray_free(&v);
    return st;
}
