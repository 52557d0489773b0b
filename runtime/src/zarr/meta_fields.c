/* What hosts read of an array's metadata: its fields through functions, so
 * that the struct's layout stays the library's to change. */
#include "zarr/zarr_internal.h"
#include "base/base_internal.h"

int ipfsrt_zarr_meta_format(const ipfsrt_zarr_meta *m) {
    IPFSRT_NEED_OR(m, 0); return m->zarr_format; }
int ipfsrt_zarr_meta_ndim(const ipfsrt_zarr_meta *m) {
    IPFSRT_NEED_OR(m, 0); return m->ndim; }
const size_t *ipfsrt_zarr_meta_shape(const ipfsrt_zarr_meta *m) {
    IPFSRT_NEED_OR(m, NULL); return m->shape; }
const size_t *ipfsrt_zarr_meta_chunks(const ipfsrt_zarr_meta *m) {
    IPFSRT_NEED_OR(m, NULL); return m->chunks; }
const size_t *ipfsrt_zarr_meta_grid(const ipfsrt_zarr_meta *m) {
    IPFSRT_NEED_OR(m, NULL); return m->grid; }
ipfsrt_dtype ipfsrt_zarr_meta_dtype(const ipfsrt_zarr_meta *m) {
    IPFSRT_NEED_OR(m, 0); return m->dtype; }
size_t ipfsrt_zarr_meta_itemsize(const ipfsrt_zarr_meta *m) {
    IPFSRT_NEED_OR(m, 0); return m->itemsize; }
const char *ipfsrt_zarr_meta_datetime_unit(const ipfsrt_zarr_meta *m) {
    IPFSRT_NEED_OR(m, NULL); return m->datetime_unit; }
const ipfsrt_ndarray *ipfsrt_zarr_meta_fill(const ipfsrt_zarr_meta *m) {
    IPFSRT_NEED_OR(m, NULL); return m->has_fill ? &m->fill : NULL; }
bool ipfsrt_zarr_meta_fortran_order(const ipfsrt_zarr_meta *m) {
    IPFSRT_NEED_OR(m, 0); return m->fortran_order; }
int ipfsrt_zarr_meta_codec_count(const ipfsrt_zarr_meta *m) {
    IPFSRT_NEED_OR(m, 0); return m->n_codecs; }
const ipfsrt_zarr_meta *ipfsrt_zarr_meta_inner(const ipfsrt_zarr_meta *m) {
    IPFSRT_NEED_OR(m, NULL); return m->inner; }
const char *ipfsrt_zarr_meta_name(const ipfsrt_zarr_meta *m) {
    IPFSRT_NEED_OR(m, NULL); return m->name; }

const ipfsrt_codec *ipfsrt_zarr_meta_codec(const ipfsrt_zarr_meta *m, int i) {
    IPFSRT_NEED_OR(m, NULL);
    return i >= 0 && i < m->n_codecs ? m->codecs[i] : NULL;
}

const char *ipfsrt_zarr_meta_dimension_name(const ipfsrt_zarr_meta *m, int i) {
    IPFSRT_NEED_OR(m, NULL);
    return i >= 0 && i < m->ndim ? m->dimension_names[i] : NULL;
}
