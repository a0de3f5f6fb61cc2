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

#endif /* INLET_DELTA_DV_H */
