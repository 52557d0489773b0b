/* The UnixFS importer's encoders, shared by the folder packer (pack.c) and the
 * patcher (patch.c): both must make byte-identical blocks for the same files
 * and directories, or a patched version would not equal the packed one. */
#ifndef IPFSRT_UNIXFS_IMPORTER_H
#define IPFSRT_UNIXFS_IMPORTER_H

#include "ipfsrt/pack.h"
#include "ipfsrt/hash.h"
#include "unixfs/hamt.h"

/* A made block as its parent links to it. */
typedef struct ipfsrt_importer_made {
    ipfsrt_cid cid;
    uint64_t tsize;    /* block bytes of the whole sub-DAG */
    uint64_t size;     /* file bytes (files only) */
    bool is_dir;
} ipfsrt_importer_made;

typedef struct ipfsrt_importer {
    const ipfsrt_pack_options *o;
    ipfsrt_pack_sink_fn sink;
    void *user;
    const char *where;     /* what is being imported, for messages */
    uint8_t *chunk;        /* the leaf being filled */
    ipfsrt_buf node, data; /* scratch for encoding */
    ipfsrt_hash_ctx *hash; /* raw leaves are hashed as they arrive, while in cache */
    ipfsrt_hamt_shape hamt;
} ipfsrt_importer;

/* Checks opts (already taken at its size) and readies the scratch; the
 * importer borrows opts, which must outlive it. */
ipfsrt_status ipfsrt_importer_init(ipfsrt_importer *im, const ipfsrt_pack_options *opts,
                                   ipfsrt_pack_sink_fn sink, void *user, ipfsrt_error *err);
void ipfsrt_importer_free(ipfsrt_importer *im);

/* Encodes {links, unixfs} as dag-pb and emits it. */
ipfsrt_status ipfsrt_importer_node(ipfsrt_importer *im, const ipfsrt_dagpb_link *links, size_t n,
                                   const ipfsrt_unixfs_data *fs, ipfsrt_importer_made *out, ipfsrt_error *err);

/* One row of a file's balanced layout: nodes waiting for a parent. */
typedef struct ipfsrt_importer_row {
    ipfsrt_importer_made *items;
    size_t count;
} ipfsrt_importer_row;

/* A file fed as its bytes arrive; one at a time per importer (the leaf
 * buffer is the importer's). */
typedef struct ipfsrt_importer_file {
    ipfsrt_importer *im;
    ipfsrt_importer_row rows[IPFSRT_UNIXFS_MAX_DEPTH];
    size_t nrows, leaves, fill;
    ipfsrt_importer_made first;
    bool hashing;
} ipfsrt_importer_file;

void ipfsrt_importer_file_init(ipfsrt_importer_file *f, ipfsrt_importer *im);
/* Where the file's next bytes go (written there, then committed): room bytes
 * fit before the leaf is full. Reading straight into it saves a copy. */
uint8_t *ipfsrt_importer_file_space(ipfsrt_importer_file *f, size_t *room);
/* n bytes were written at the space: a full leaf is emitted at once. */
ipfsrt_status ipfsrt_importer_file_commit(ipfsrt_importer_file *f, size_t n, ipfsrt_error *err);
/* Copies len bytes in. */
ipfsrt_status ipfsrt_importer_file_write(ipfsrt_importer_file *f, const uint8_t *data, size_t len,
                                         ipfsrt_error *err);
/* The last leaf and the file's nodes above its leaves; out is its root. */
ipfsrt_status ipfsrt_importer_file_finish(ipfsrt_importer_file *f, ipfsrt_importer_made *out, ipfsrt_error *err);
/* Frees the rows (after finish, or instead of it on a failure). */
void ipfsrt_importer_file_free(ipfsrt_importer_file *f);

/* A directory entry; name is owned by the list it is in. */
typedef struct ipfsrt_importer_entry {
    char *name;
    size_t name_len;
    ipfsrt_importer_made m;
    uint64_t hash;
} ipfsrt_importer_entry;

typedef struct ipfsrt_importer_entries {
    ipfsrt_importer_entry *items;
    size_t count, cap;
} ipfsrt_importer_entries;

/* Adds an entry (name copied) and returns it, m zeroed, or NULL out of memory. */
ipfsrt_importer_entry *ipfsrt_importer_entries_add(ipfsrt_importer_entries *es, const char *name, size_t name_len);
/* Pack's order of names: their bytes, then their length (the order of a plain
 * directory's links, which patched and compared listings follow too). */
int ipfsrt_importer_name_cmp(const char *a, size_t a_len, const char *b, size_t b_len);
void ipfsrt_importer_entries_sort(ipfsrt_importer_entries *es);
/* A listing's callback (ipfsrt_unixfs_ls) keeping each entry's name, CID and
 * cumulative size in the ipfsrt_importer_entries user: an old directory as
 * the patcher and the differ read it. */
ipfsrt_status ipfsrt_importer_keep_entry(void *user, const ipfsrt_unixfs_entry *e, ipfsrt_error *err);
void ipfsrt_importer_entries_free(ipfsrt_importer_entries *es);

/* A plain directory over es, whatever the sharding rule. */
ipfsrt_status ipfsrt_importer_plain_dir(ipfsrt_importer *im, const ipfsrt_importer_entries *es,
                                        ipfsrt_importer_made *out, ipfsrt_error *err);
/* A directory over es (sorted here), HAMT-sharded when the rule says so. */
ipfsrt_status ipfsrt_importer_dir(ipfsrt_importer *im, ipfsrt_importer_entries *es, ipfsrt_importer_made *out,
                                  ipfsrt_error *err);

#endif
