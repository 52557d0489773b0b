/* Line plots as PNG: series of (x, y) points drawn as lines two pixels wide
 * in a frame, NaN breaking a line, with a title, a label over the y axis,
 * grid lines and labels at the ticks given, and a legend when there are
 * several series. The picture the SVG of lua/ipfsrt/dataset/plot.lua draws, in the
 * figures' 5 x 7 font. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "image/image_internal.h"
#include "base/base_internal.h"

#define PX 2 /* the font's scale */
#define LINE (7 * PX)
#define TICK 5
#define LEFT 80
#define RIGHT 24
#define TOP 64
#define BOTTOM 60
#define SIDE_MAX 8000

static const unsigned char BLACK[3] = {0, 0, 0}, GRID[3] = {221, 221, 221};
static const unsigned char COLORS[6][3] = {{31, 119, 180}, {255, 127, 14}, {44, 160, 44},
                                           {214, 39, 40},  {148, 103, 189}, {140, 86, 75}};

void ipfsrt_image_lines_init(ipfsrt_image_lines *fig) {
    IPFSRT_NEED_OR(fig, );
    memset(fig, 0, sizeof *fig);
    fig->size = sizeof *fig;
    fig->width = 800, fig->height = 380;
}

/* A pen two pixels wide. */
static void dot2(ipfsrt_image_canvas *cv, long x, long y, const unsigned char *rgb) {
    ipfsrt_image_dot(cv, x, y, rgb), ipfsrt_image_dot(cv, x + 1, y, rgb);
    ipfsrt_image_dot(cv, x, y + 1, rgb), ipfsrt_image_dot(cv, x + 1, y + 1, rgb);
}

/* Bresenham's line from (x0, y0) to (x1, y1). */
static void segment(ipfsrt_image_canvas *cv, long x0, long y0, long x1, long y1, const unsigned char *rgb) {
    long dx = labs(x1 - x0), dy = -labs(y1 - y0), sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1, e = dx + dy;
    for (;;) {
        dot2(cv, x0, y0, rgb);
        if (x0 == x1 && y0 == y1) return;
        long e2 = 2 * e;
        if (e2 >= dy) e += dy, x0 += sx;
        if (e2 <= dx) e += dx, y0 += sy;
    }
}

typedef struct frame_of {
    long x0, y0, w, h;
    const ipfsrt_image_lines *f;
} frame_of;

static long px_x(const frame_of *p, double x) {
    return p->x0 + (long)floor((x - p->f->xlo) / (p->f->xhi - p->f->xlo) * (double)p->w + 0.5);
}
static long px_y(const frame_of *p, double y) {
    return p->y0 + (long)floor((1 - (y - p->f->ylo) / (p->f->yhi - p->f->ylo)) * (double)p->h + 0.5);
}

static void draw_axes(ipfsrt_image_canvas *cv, const frame_of *p) {
    const ipfsrt_image_lines *f = p->f;
    for (size_t i = 0; i < f->n_yticks; i++) {
        long y = px_y(p, f->yticks[i].at);
        for (long x = p->x0; x <= p->x0 + p->w; x++) ipfsrt_image_dot(cv, x, y, GRID);
        const char *label = f->yticks[i].label ? f->yticks[i].label : "";
        ipfsrt_image_text(cv, p->x0 - 6 - (long)ipfsrt_image_text_width(label, PX), y - LINE / 2, label, PX, BLACK);
    }
    for (size_t i = 0; i < f->n_xticks; i++) {
        long x = px_x(p, f->xticks[i].at);
        for (long k = 0; k < TICK; k++) ipfsrt_image_dot(cv, x, p->y0 + p->h + k, BLACK);
        const char *label = f->xticks[i].label ? f->xticks[i].label : "";
        ipfsrt_image_text(cv, x - (long)ipfsrt_image_text_width(label, PX) / 2, p->y0 + p->h + TICK + 4, label, PX,
                          BLACK);
    }
    for (long x = p->x0; x <= p->x0 + p->w; x++) ipfsrt_image_dot(cv, x, p->y0, BLACK), ipfsrt_image_dot(cv, x, p->y0 + p->h, BLACK);
    for (long y = p->y0; y <= p->y0 + p->h; y++) ipfsrt_image_dot(cv, p->x0, y, BLACK), ipfsrt_image_dot(cv, p->x0 + p->w, y, BLACK);
}

static void draw_series(ipfsrt_image_canvas *cv, const frame_of *p, const ipfsrt_image_series *s, const unsigned char *rgb) {
    bool pen = false;
    long lx = 0, ly = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (!isfinite(s->x[i]) || !isfinite(s->y[i])) {
            pen = false;
            continue;
        }
        long x = px_x(p, s->x[i]), y = px_y(p, s->y[i]);
        if (pen) segment(cv, lx, ly, x, y, rgb);
        else dot2(cv, x, y, rgb);
        pen = true, lx = x, ly = y;
    }
}

static void draw(ipfsrt_image_canvas *cv, const ipfsrt_image_lines *f) {
    memset(cv->rgb, 255, cv->width * cv->height * 3);
    frame_of p = {LEFT, TOP, (long)f->width - LEFT - RIGHT, (long)f->height - TOP - BOTTOM, f};
    draw_axes(cv, &p);
    for (size_t i = 0; i < f->n_series; i++) {
        const unsigned char *rgb = COLORS[i % 6];
        draw_series(cv, &p, &f->series[i], rgb);
        if (f->n_series > 1 && f->series[i].label) { /* the legend, along the frame's top */
            long x = LEFT + 10 + (long)i * 170, y = TOP + 8;
            for (long k = 0; k < 14; k++) dot2(cv, x + k, y + LINE / 2 - 1, rgb);
            ipfsrt_image_text(cv, x + 20, y, f->series[i].label, PX, BLACK);
        }
    }
    if (f->title) ipfsrt_image_text(cv, LEFT, 12, f->title, 3, BLACK);
    if (f->ylabel) ipfsrt_image_text(cv, 8, TOP - LINE - 12, f->ylabel, PX, BLACK);
    if (f->xlabel)
        ipfsrt_image_text(cv, LEFT + p.w / 2 - (long)ipfsrt_image_text_width(f->xlabel, PX) / 2,
                          (long)f->height - LINE - 10, f->xlabel, PX, BLACK);
}

ipfsrt_status ipfsrt_image_write_lines(const char *path, const ipfsrt_image_lines *fig, ipfsrt_error *err) {
    IPFSRT_NEED(path, err);
    IPFSRT_NEED(fig, err);
    ipfsrt_image_lines f;
    ipfsrt_status st = IPFSRT_TAKE_OPTIONS(f, fig, ipfsrt_image_lines_init, err);
    if (st != IPFSRT_OK) return st;
    if (f.width < LEFT + RIGHT + 40 || f.height < TOP + BOTTOM + 40 || f.width > SIDE_MAX || f.height > SIDE_MAX)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "a line plot is %d to %d pixels a side, and taller than %d",
                           LEFT + RIGHT + 40, SIDE_MAX, TOP + BOTTOM + 40);
    if (!(isfinite(f.xlo) && isfinite(f.xhi) && f.xlo < f.xhi && isfinite(f.ylo) && isfinite(f.yhi) && f.ylo < f.yhi))
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "a line plot's ranges run from a finite low to a greater high");
    ipfsrt_image_canvas cv = {malloc((size_t)f.width * f.height * 3), f.width, f.height};
    if (!cv.rgb) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory for a %u x %u picture", f.width, f.height);
    draw(&cv, &f);
    st = ipfsrt_image_write_png(path, &cv, err);
    free(cv.rgb);
    return st;
}
