/*
 * Column statistics for the Parquet writer: running null counts and min/max
 * in each column's sort order, and their encoding into parquet.thrift
 * Statistics (min_value/max_value, is_min/max_value_exact, legacy min/max).
 *
 * Sort orders follow parquet.thrift ColumnOrder "TypeDefinedOrder": signed
 * integers, UNSIGNED integers (INT(N,false)) compared unsigned, FLOAT/DOUBLE
 * by value with NaN ignored (all NaN: no min/max; a zero min is written as
 * -0.0 and a zero max as +0.0), BYTE_ARRAY/FIXED_LEN_BYTE_ARRAY as unsigned
 * bytes, DECIMAL on FIXED_LEN_BYTE_ARRAY/BYTE_ARRAY as signed big-endian
 * two's complement numbers.
 *
 * Values are kept in their Parquet physical representation and, for byte
 * arrays, untruncated (truncation happens only when encoding for the
 * footer), so the Delta log's add.stats can be derived from
 * pq_writer_leaf_stats() after close.
 */
#ifndef INLET_PARQUET_STATS_H
#define INLET_PARQUET_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "inlet/error.h"
#include "inlet/parquet.h"
#include "parquet/pq_meta.h"
#include "parquet/pq_schema.h"
#include "util/buf.h"

typedef enum pq_stats_kind {
  PQ_STATS_NONE = 0, /* unknown sort order: counts only, never min/max */
  PQ_STATS_BOOL,     /* min/max in .u as 0/1 */
  PQ_STATS_I32,      /* .i (sign-extended) */
  PQ_STATS_U32,      /* .u */
  PQ_STATS_I64,      /* .i */
  PQ_STATS_U64,      /* .u */
  PQ_STATS_FLOAT,    /* .d (the float widened, exact) */
  PQ_STATS_DOUBLE,   /* .d */
  PQ_STATS_BYTES,    /* min_bytes/max_bytes, unsigned lexicographic */
  PQ_STATS_SIGNED_BE /* min_bytes/max_bytes, big-endian two's complement */
} pq_stats_kind;

typedef union pq_stat_value {
  int64_t i;
  uint64_t u;
  double d;
} pq_stat_value;

typedef struct pq_stats {
  pq_stats_kind kind;
  int64_t num_values; /* values counted, nulls included (rows, for flat columns) */
  int64_t null_count;
  bool has_minmax; /* false while no non-null (non-NaN) value was seen */
  /* FLOAT/DOUBLE: a non-null NaN was seen. min/max skip NaN (as Parquet
   * asks), but a Delta add.stats bound for such a column must be dropped,
   * and the per-file stats are taken from these statistics. */
  bool has_nan;
  pq_stat_value min, max;
  inlet_buf min_bytes; /* owned; BYTES/SIGNED_BE: the full minimum value */
  inlet_buf max_bytes; /* owned; the full maximum value */
} pq_stats;

/* Statistics kind for a leaf column, from its physical type and sort order. */
pq_stats_kind pq_stats_kind_for(const pq_column_desc *desc);

void pq_stats_init(pq_stats *s, pq_stats_kind kind);
/* Frees the byte buffers; @p s may be re-initialised. NULL-safe. */
void pq_stats_reset(pq_stats *s);
/* Forgets all values (for the next column chunk), keeping memory. */
void pq_stats_clear(pq_stats *s);

static inline void pq_stats_count(pq_stats *s, int64_t values, int64_t nulls) {
  s->num_values += values;
  s->null_count += nulls;
}

/* Min/max updates over the non-null values of rows [start, start + n):
 * row i is values[i]; @p validity may be NULL (all valid). The function
 * must match s->kind (I32 and U32 both take int32 storage, etc.). */
void pq_stats_update_i32(pq_stats *s, const int32_t *values, const uint8_t *validity, int64_t start,
                         size_t n);
void pq_stats_update_i64(pq_stats *s, const int64_t *values, const uint8_t *validity, int64_t start,
                         size_t n);
void pq_stats_update_float(pq_stats *s, const float *values, const uint8_t *validity, int64_t start,
                           size_t n);
void pq_stats_update_double(pq_stats *s, const double *values, const uint8_t *validity,
                            int64_t start, size_t n);
/* BOOLEAN values are bits of @p bits (LSB first). */
void pq_stats_update_bool(pq_stats *s, const uint8_t *bits, const uint8_t *validity, int64_t start,
                          size_t n);
/* BYTE_ARRAY from offsets + data. @return 0, INLET_ENOMEM. */
int pq_stats_update_binary(pq_stats *s, const int32_t *offsets, const uint8_t *data,
                           const uint8_t *validity, int64_t start, size_t n);
/* FIXED_LEN_BYTE_ARRAY values of @p width bytes. @return 0, INLET_ENOMEM. */
int pq_stats_update_fixed(pq_stats *s, const uint8_t *values, size_t width, const uint8_t *validity,
                          int64_t start, size_t n);
/* One byte-array value. @return 0, INLET_ENOMEM. */
int pq_stats_update_bytes(pq_stats *s, const uint8_t *p, size_t len);

/* Folds @p src (same kind) into @p dst. @return 0, INLET_ENOMEM. */
int pq_stats_merge(pq_stats *dst, const pq_stats *src);

/* Compares two byte values in the kind's order (BYTES or SIGNED_BE):
 * <0, 0, >0. Exposed for tests. */
int pq_stats_compare_bytes(pq_stats_kind kind, const uint8_t *a, size_t alen, const uint8_t *b,
                           size_t blen);

/*
 * Fills @p out (zeroed first) with null_count and, when known, min_value /
 * max_value in the Parquet plain encoding of the physical type, plus the
 * deprecated min/max for signed-order numeric types (whose old signed
 * comparison agrees with the column order). Byte arrays longer than
 * @p truncate bytes (<= 0: no truncation) are cut: min to a prefix, max to a
 * prefix whose last byte is incremented (UTF-8 aware when @p utf8: the
 * result stays valid UTF-8); a max that cannot be incremented is omitted.
 * is_min/max_value_exact say whether truncation happened. Bytes are
 * allocated in @p m's arena.
 * @return 0, INLET_ENOMEM.
 */
int pq_stats_to_thrift(const pq_stats *s, int32_t truncate, bool utf8, pq_file_metadata *m,
                       pq_statistics *out, inlet_error *err);

/*
 * Truncation helpers (exposed for tests). Both write at most @p limit bytes
 * to @p out (capacity >= limit) and return the length, or -1 when no valid
 * bound exists (max of all 0xFF bytes / all U+10FFFF). Inputs no longer
 * than @p limit are copied unchanged.
 */
int64_t pq_truncate_min(const uint8_t *v, size_t len, size_t limit, bool utf8, uint8_t *out);
int64_t pq_truncate_max(const uint8_t *v, size_t len, size_t limit, bool utf8, uint8_t *out);

/* ---- per-file statistics of a writer (for the Delta log) -------------- */

/* Leaf columns of the writer's schema (one per top-level field while
 * schemas are flat). */
int32_t pq_writer_num_leaves(const inlet_parquet_writer *w);
/* The descriptor of leaf @p leaf (physical type, logical annotation,
 * scale_factor for TIMESTAMP/TIME seconds written as millis), or NULL when
 * out of range. Lives as long as the writer. */
const pq_column_desc *pq_writer_leaf_desc(const inlet_parquet_writer *w, int32_t leaf);
/* Statistics of leaf @p leaf over every row written so far (final after
 * inlet_parquet_writer_close), or NULL when out of range. min/max are
 * physical values: decimals unscaled (I32/I64) or big-endian bytes, times
 * multiplied by desc->scale_factor, unsigned integers in .u. Lives as long
 * as the writer. */
const pq_stats *pq_writer_leaf_stats(const inlet_parquet_writer *w, int32_t leaf);

#endif /* INLET_PARQUET_STATS_H */
