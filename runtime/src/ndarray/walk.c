/* The one loop every elementwise operation and reduction runs through. */
#include <string.h>

#include "ndarray/ndarray_internal.h"

void ipfsrt_ndwalk_init(ipfsrt_ndwalk *w, int ndim, const size_t *shape) {
    memset(w, 0, sizeof *w);
    w->ndim = ndim;
    if (ndim) memcpy(w->shape, shape, (size_t)ndim * sizeof *shape);
}

void ipfsrt_ndwalk_add(ipfsrt_ndwalk *w, const ipfsrt_ndarray *a) {
    int k = w->n++;
    w->p[k] = a->data;
    for (int d = 0; d < w->ndim; d++) {
        int from = d - (w->ndim - a->ndim);
        w->strides[k][d] = from < 0 || a->shape[from] != w->shape[d] ? 0 : a->strides[from];
    }
}

/* Drops dimensions of length 1 and merges each dimension into the one before
 * it when every operand steps over it exactly as one step of the outer one. */
static void coalesce(ipfsrt_ndwalk *w) {
    int nd = 0;
    for (int d = 0; d < w->ndim; d++) {
        if (w->shape[d] == 1) continue;
        bool merge = nd > 0;
        for (int k = 0; merge && k < w->n; k++)
            merge = w->strides[k][nd - 1] == w->strides[k][d] * (ptrdiff_t)w->shape[d];
        if (merge) {
            w->shape[nd - 1] *= w->shape[d];
        } else {
            w->shape[nd] = w->shape[d];
            nd++;
        }
        for (int k = 0; k < w->n; k++) w->strides[k][nd - 1] = w->strides[k][d];
    }
    w->ndim = nd;
}

static void elem_row(ipfsrt_ndwalk *w, unsigned char **p, const ptrdiff_t *s, size_t n) {
    unsigned char *q[4] = {0};
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < w->n; k++) q[k] = p[k] + (ptrdiff_t)i * s[k];
        w->elem(w->ctx, q);
    }
}

static void call_row(ipfsrt_ndwalk *w, const ptrdiff_t *off, const ptrdiff_t *s, size_t n) {
    unsigned char *p[4] = {0};
    for (int k = 0; k < w->n; k++) p[k] = w->p[k] + off[k];
    if (w->row) w->row(w->ctx, p, s, n);
    else elem_row(w, p, s, n);
}

/* Offsets rather than moving pointers: a reversed view's walk would otherwise
 * step before its buffer on the way. */
void ipfsrt_ndwalk_run(ipfsrt_ndwalk *w) {
    for (int d = 0; d < w->ndim; d++)
        if (w->shape[d] == 0) return;
    coalesce(w);
    ptrdiff_t off[4] = {0}, inner[4] = {0};
    if (w->ndim == 0) {
        call_row(w, off, inner, 1);
        return;
    }
    int last = w->ndim - 1;
    for (int k = 0; k < w->n; k++) inner[k] = w->strides[k][last];
    size_t idx[IPFSRT_NDARRAY_MAX_DIMS] = {0};
    for (;;) {
        call_row(w, off, inner, w->shape[last]);
        int d = last - 1;
        for (; d >= 0; d--) {
            for (int k = 0; k < w->n; k++) off[k] += w->strides[k][d];
            if (++idx[d] < w->shape[d]) break;
            for (int k = 0; k < w->n; k++) off[k] -= w->strides[k][d] * (ptrdiff_t)w->shape[d];
            idx[d] = 0;
        }
        if (d < 0) return;
    }
}
