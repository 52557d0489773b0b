/* What the Zarr files share; not public. */
#ifndef IPFSRT_ZARR_INTERNAL_H
#define IPFSRT_ZARR_INTERNAL_H

#include <cjson/cJSON.h>

#include "ipfsrt/zarr.h"

/* The data type of a v2 typestr ("<i2", "|b1", ">f8", "<M8[ns]", "|S12") or a
 * v3 data_type name into m's dtype fields. */
ipfsrt_status ipfsrt_zarr_dtype_v2(ipfsrt_zarr_meta *m, const char *typestr, ipfsrt_error *err);
ipfsrt_status ipfsrt_zarr_dtype_v3(ipfsrt_zarr_meta *m, const cJSON *data_type, ipfsrt_error *err);
/* The fill value (v2 or v3 encodings) into m->fill. */
ipfsrt_status ipfsrt_zarr_fill(ipfsrt_zarr_meta *m, const cJSON *fill, ipfsrt_error *err);
/* float16 bits to float, every case (subnormals, infinities, NaN). */
float ipfsrt_zarr_half_to_float(uint16_t h);

#endif
