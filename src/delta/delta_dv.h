/*
 * Deletion vectors (PROTOCOL.md "Deletion Vectors", "Deletion Vector
 * Format", "Deletion Vector File Storage Format"): the descriptor an add or
 * remove action carries, and the set of deleted row indexes it names,
 * loaded from the log (inline, Z85) or from a DV file through the table's
 * storage, with the magic number, size and CRC-32 checksum verified.
 */
#ifndef INLET_DELTA_DV_H
#define INLET_DELTA_DV_H

#include "delta/delta.h"
#include "util/buf.h"

/* Limits held against what a descriptor or a DV file claims before anything
 * is allocated or read. */
#define DELTA_DV_MAX_BYTES ((int64_t)256 << 20)

typedef struct delta_dv_desc {
  char storage_type;    /* 'u', 'i' or 'p' */
  char *path_or_inline; /* owned */
  bool has_offset;
  int64_t offset; /* 0 when absent */
  int64_t size_in_bytes;
  int64_t cardinality;
} delta_dv_desc;

/* A loaded deletion vector: the deleted row indexes of one data file. */
typedef struct delta_dv delta_dv;

/* Parses the deletionVector object text @p json (delta_add.dv_json):
 * INLET_ECORRUPT naming the problem, INLET_ENOMEM. */
int delta_dv_desc_parse(delta_dv_desc *out, const char *json, inlet_error *err);
void delta_dv_desc_reset(delta_dv_desc *d);

/* Z85 (ZeroMQ RFC 32): decodes @p n characters (a multiple of 5) into
 * n / 5 * 4 bytes at @p out. INLET_ECORRUPT on a character outside the
 * alphabet, a length not a multiple of 5, or a group above 2^32 - 1. */
int delta_z85_decode(const char *s, size_t n, uint8_t *out, inlet_error *err);

/* The DV file of a 'u' or 'p' descriptor as a path relative to the table
 * root (@p root_abs: the table's absolute root, for 'p' paths). Caller
 * frees *out. */
int delta_dv_file_path(const delta_dv_desc *d, const char *root_abs, char **out, inlet_error *err);

/* Decodes a serialized RoaringBitmapArray of @p len bytes: the protocol's
 * portable format (magic 1681511377, bucket count, keyed buckets of
 * portable 32-bit roaring bitmaps) or Spark's native one (magic 1681511376,
 * the form of PROTOCOL.md's inline example). */
int delta_dv_decode(const uint8_t *buf, size_t len, delta_dv **out, inlet_error *err);

/* Loads the deletion vector of data file @p data_path (for messages) from
 * its descriptor text @p json: inline from the log, otherwise through @p st
 * from the DV file at the descriptor's offset. The decoded cardinality must
 * match the descriptor's. Errors name the data file and the problem. */
int delta_dv_load(inlet_storage *st, const char *root_abs, const char *data_path, const char *json,
                  delta_dv **out, inlet_error *err);

void delta_dv_free(delta_dv *dv);
uint64_t delta_dv_cardinality(const delta_dv *dv);
bool delta_dv_contains(const delta_dv *dv, uint64_t row);
/* Number of deleted rows in [lo, hi). */
uint64_t delta_dv_count_range(const delta_dv *dv, uint64_t lo, uint64_t hi);

/* ---- writing (delete) ---- */

/* Z85 of @p n bytes (a multiple of 4) into @p out (n / 4 * 5 + 1 bytes,
 * NUL-terminated). */
void delta_z85_encode(const uint8_t *in, size_t n, char *out);
/* A fresh random UUID for a DV file: its Z85 form (storage type 'u', no
 * prefix) in @p z85 and the file's path relative to the table root,
 * deletion_vector_<uuid>.bin (caller frees). */
int delta_dv_new_file_name(char z85[21], char **rel_path, inlet_error *err);
/* Adds row index @p row to *@p dv (created when NULL). INLET_ELIMIT beyond
 * the 2^63 rows a RoaringBitmapArray holds, INLET_ENOMEM. */
int delta_dv_add(delta_dv **dv, uint64_t row, inlet_error *err);
/* The portable RoaringBitmapArray of @p dv (magic, bucket count, keyed
 * portable bitmaps; run containers where smaller). Caller frees *out. */
int delta_dv_serialize(delta_dv *dv, uint8_t **out, size_t *len, inlet_error *err);
/* Appends @p dv to the bytes of a DV file being built (the version byte
 * first when @p file is empty): its big-endian size, the bitmap, its
 * big-endian CRC-32. *offset (of the size field, what a descriptor's offset
 * names) and *size (the bitmap's bytes, sizeInBytes). */
int delta_dv_file_append(inlet_buf *file, delta_dv *dv, int64_t *offset, int64_t *size,
                         inlet_error *err);
/* The deletionVector object of a DV at @p offset of the 'u' file @p z85
 * (caller frees; NULL when out of memory). */
char *delta_dv_desc_json(const char *z85, int64_t offset, int64_t size, uint64_t cardinality);

#endif /* INLET_DELTA_DV_H */
