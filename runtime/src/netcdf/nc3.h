/* NetCDF-3 ("classic": CDF-1, 64-bit offset CDF-2, 64-bit data CDF-5)
 * headers (nc3.c), parsed by hand: no library reads them without reading the
 * data too, and their layout is a few dozen lines of the format's spec. All
 * numbers big-endian. Not public: ipfsrt_refs_make takes such files. */
#ifndef IPFSRT_NC3_H
#define IPFSRT_NC3_H

#include <stddef.h>
#include <stdint.h>

#include "ipfsrt/error.h"

#define IPFSRT_NC3_MAX_NAME 256          /* NC_MAX_NAME */
#define IPFSRT_NC3_MAX_RANK 32           /* dimensions of one variable (ours; NetCDF allows 1024) */

enum { /* nc_type */
    IPFSRT_NC3_BYTE = 1, IPFSRT_NC3_CHAR, IPFSRT_NC3_SHORT, IPFSRT_NC3_INT, IPFSRT_NC3_FLOAT, IPFSRT_NC3_DOUBLE,
    IPFSRT_NC3_UBYTE, IPFSRT_NC3_USHORT, IPFSRT_NC3_UINT, IPFSRT_NC3_INT64, IPFSRT_NC3_UINT64
};

typedef struct ipfsrt_nc3_dim {
    char *name;
    uint64_t length; /* 0: the record dimension */
} ipfsrt_nc3_dim;

typedef struct ipfsrt_nc3_attr {
    char *name;
    int type;
    uint64_t count;
    const uint8_t *values; /* big-endian, into the header bytes given to parse */
} ipfsrt_nc3_attr;

typedef struct ipfsrt_nc3_var {
    char *name;
    size_t rank;
    size_t dims[IPFSRT_NC3_MAX_RANK]; /* indices into the dims */
    ipfsrt_nc3_attr *attrs;
    size_t nattrs;
    int type;
    uint64_t begin;  /* its data's (first record's) offset in the file */
    uint64_t bytes;  /* of its data (of one record, for a record variable), unpadded */
    int record;      /* its first dimension is the record dimension */
} ipfsrt_nc3_var;

typedef struct ipfsrt_nc3 {
    int version;      /* 1, 2 or 5 */
    uint64_t numrecs; /* records written (a streaming file's counted from its size) */
    uint64_t recsize; /* bytes from one record to the next */
    ipfsrt_nc3_dim *dims;
    size_t ndims;
    ipfsrt_nc3_attr *attrs; /* the file's own */
    size_t nattrs;
    ipfsrt_nc3_var *vars;
    size_t nvars;
} ipfsrt_nc3;

/* True when data starts as a NetCDF-3 file does ("CDF" 1, 2 or 5). */
int ipfsrt_nc3_is(const uint8_t *data, size_t len);
/* Parses the header in data (the file's first len bytes; file_size its whole
 * size, for the bounds of the data and streaming files' record count).
 * IPFSRT_ETRUNCATED when the header goes on past len (read more, try again).
 * Every count is checked against the bytes left, every size against
 * overflow; the attributes' values point into data (keep it). */
ipfsrt_status ipfsrt_nc3_parse(ipfsrt_nc3 *nc, const uint8_t *data, size_t len, uint64_t file_size,
                               ipfsrt_error *err);
void ipfsrt_nc3_free(ipfsrt_nc3 *nc);
/* Bytes of one value of an nc_type, 0 for none. */
size_t ipfsrt_nc3_type_size(int type);

#endif
