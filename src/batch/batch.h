/*
 * The face of src/batch to the modules above it (expr, parquet, delta,
 * stream, scan): the text-to-column scalar conversion that expr's casts
 * share with the NDJSON/CSV reader, CSV record splitting for the stream
 * sources and row rollback of an array (civil-date arithmetic is
 * util/datetime.h). The rest of the text code stays private (text_int.h).
 */
#ifndef INLET_BATCH_BATCH_H
#define INLET_BATCH_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inlet/batch.h"
#include "inlet/text.h"
#include "util/buf.h"
#include "util/datetime.h"
#include "util/util.h"

/* How a scalar arrived: a JSON string (unescaped), a JSON number (raw
 * text), a JSON boolean, or a CSV cell (raw text, nothing typed). */
typedef enum text_tok { TOK_STRING, TOK_NUMBER, TOK_BOOL, TOK_TEXT } text_tok;

/* Per-conversion state. A bad value sets `reason` and returns INLET_EINVAL;
 * any other negative code is fatal (out of memory, 2 GiB column). */
typedef struct text_conv {
  inlet_epoch_unit epoch_unit;
  bool strict;
  bool strict_types;     /* JSON scalars only in the forms of the strict coercion table
                            (include/inlet/text.h): no numbers or booleans into strings,
                            no strings into numbers, booleans or epoch columns */
  int64_t rec_ignored;   /* unknown fields skipped (not strict) in the current record */
  const char *field;     /* top-level field being converted, for messages */
  const char *rec_start; /* start of the JSON text, for error columns (or NULL) */
  char reason[384];
  bool csv_syntax;       /* the failure is in the CSV structure (quoting, field
                            count), not in a value */
  inlet_buf scratch;     /* unescaped strings; each is consumed before the next */
  inlet_error err;       /* detail of fatal errors */
  inlet_date_memo dates; /* the last timestamp's date */
} text_conv;

/* Sets c->reason (prefixed with the field name) and returns INLET_EINVAL. */
int text_bad(text_conv *c, const char *fmt, ...) INLET_PRINTF(2, 3);

/* Converts one scalar token into @p a (described by @p f). For TOK_BOOL,
 * @p bval is the value and s/n are ignored. */
int text_append_scalar(text_conv *c, inlet_array *a, const inlet_field *f, text_tok kind,
                       const char *s, size_t n, bool bval);

/* CSV record splitting (RFC 4180), shared by the text reader and the
 * stream sources. A quote opens a quoted field only at the start of a field;
 * inside one, "" is a quote and a lone " closes it; a line break inside a
 * quoted field does not end the record. A quote anywhere else is an ordinary
 * byte for splitting (the record is then bad, but it ends at its line). */
typedef enum text_csv_state {
  TEXT_CSV_FIELD_START = 0,
  TEXT_CSV_UNQUOTED,
  TEXT_CSV_QUOTED,
  TEXT_CSV_QUOTE_IN_QUOTED /* a quote inside a quoted field: escape or close */
} text_csv_state;
/* Scans s[from, n) from state *st: returns the index of the '\n' ending the
 * record (and resets *st), or n when the record goes on past the data (*st
 * keeps where it stands). Line breaks inside quoted fields are added to
 * *newlines. */
size_t text_csv_scan(const char *s, size_t from, size_t n, char delim, text_csv_state *st,
                     int64_t *newlines);
/* The reason given to the first line of a multi-line CSV record that is
 * malformed: that line is rejected alone and the lines after it are read
 * again as records (docs/INGEST.md "Bad records"). */
#define TEXT_CSV_CUT_REASON                                                                        \
  "unterminated quoted CSV field: the quote opened on this line does not close into a "            \
  "well-formed record, so the record ends at this line break and the next lines are read as "      \
  "records of their own"
/* Turns the strict JSON type rules (options.strict_types) on or off for the
 * records that follow (a stream's records whose values are all text). */
void text_reader_set_strict_types(inlet_text_reader *r, bool on);
/* After inlet_text_reader_append failed with INLET_EINVAL: whether the CSV
 * structure (not a value) was at fault. */
bool text_reader_csv_syntax_failed(const inlet_text_reader *r);

/* The builder side of an inlet_array (the public struct is only the Arrow
 * view): the allocated size of each buffer, in bytes. Builders (array.c and
 * the Parquet decoders) read it once per call, never per value. An array
 * assembled by hand has none: every capacity reads as 0. */
struct inlet_array_builder {
  int64_t validity_cap;
  int64_t offsets_cap;
  int64_t values_cap;
  int64_t reserved_rows; /* rows the last inlet_array_reserve_rows made room for */
};
typedef struct inlet_array_builder batch_builder;

/* @p a's builder, created (all capacities 0) on first use. NULL only when out
 * of memory (then err is set). */
batch_builder *batch_array_builder(inlet_array *a, inlet_error *err);
/* Capacities of @p a's buffers in bytes; 0 without a builder. */
static inline int64_t batch_validity_cap(const inlet_array *a) {
  return a->builder ? a->builder->validity_cap : 0;
}
static inline int64_t batch_offsets_cap(const inlet_array *a) {
  return a->builder ? a->builder->offsets_cap : 0;
}
static inline int64_t batch_values_cap(const inlet_array *a) {
  return a->builder ? a->builder->values_cap : 0;
}
/* Frees @p a's validity bitmap (and forgets its capacity). */
void batch_array_drop_validity(inlet_array *a);

/* Shrinks @p a to @p len rows (children follow), fixing null_count. */
void text_array_truncate(inlet_array *a, const inlet_field *f, int64_t len);

/* Appends rows [from, from + n) of @p src (described by @p f) to @p dst, as
 * appending them one by one would (a validity bitmap only once a null comes),
 * in bulk: the parallel ingest moves rows converted on other threads into
 * its chunk with it. */
int batch_array_append_range(inlet_array *dst, const inlet_field *f, const inlet_array *src,
                             int64_t from, int64_t n, inlet_error *err);
/* batch_array_append_range on every column; @p src has @p dst's schema. */
int batch_append_range(inlet_batch *dst, const inlet_batch *src, int64_t from, int64_t n,
                       inlet_error *err);
/* Bytes @p b's rows occupy (not its buffers' capacities): a function of the
 * rows alone, however the buffers grew. */
int64_t batch_used_bytes(const inlet_batch *b);
/* Keeps the rows of @p b whose @p keep byte (one per row) is nonzero, in
 * order (filter.c). */
int batch_keep_rows(inlet_batch *b, const uint8_t *keep, inlet_error *err);

/* ---- Variant (variant.c) ---------------------------------------------------
 * Delta's variant type (Parquet VariantEncoding.md) is read as the JSON text
 * of its value. */

#define BATCH_VARIANT_MAX_DEPTH 128

/* Appends the canonical JSON text of the Variant value @p val (@p val_len
 * bytes) whose metadata is @p meta (@p meta_len bytes) to @p out; the text may
 * not exceed @p max_json bytes. Every offset and length is checked. 0;
 * INLET_ECORRUPT (the bytes break the encoding: an offset or length past its
 * region, object keys out of order or repeated, a string that is not UTF-8),
 * INLET_EUNSUPPORTED (a metadata version other than 1, an unknown primitive
 * type), INLET_ELIMIT (nesting deeper than BATCH_VARIANT_MAX_DEPTH, text past
 * @p max_json), INLET_ENOMEM. The message says what is wrong at which byte of
 * the value; on failure @p out may hold part of the text (the caller cuts it
 * back). */
int batch_variant_to_json(inlet_buf *out, const uint8_t *meta, size_t meta_len, const uint8_t *val,
                          size_t val_len, size_t max_json, inlet_error *err);

/* A Variant metadata's dictionary, its header checked (variant.c). */
typedef struct batch_variant_meta {
  const uint8_t *bytes;
  size_t osz;               /* offset size, 1..4 */
  uint32_t n;               /* dictionary size */
  size_t keys_at, keys_len; /* where the key bytes start in bytes, their length */
  bool sorted;              /* the sorted_strings flag */
} batch_variant_meta;
/* 0; INLET_ECORRUPT, INLET_EUNSUPPORTED (a version other than 1). */
int batch_variant_meta_open(batch_variant_meta *m, const uint8_t *meta, size_t meta_len,
                            inlet_error *err);
/* Key @p id into *s, *n; NULL, or what is wrong (an id past the
 * dictionary, offsets out of range, a key that is not UTF-8). */
const char *batch_variant_meta_key(const batch_variant_meta *m, uint32_t id, const uint8_t **s,
                                   size_t *n);

/* An object's or array's layout: element count, the widths of its field
 * ids (0 for an array) and offsets, where they and the values region
 * start, and the container's whole extent. */
typedef struct batch_variant_container {
  size_t n, idsz, osz;
  const uint8_t *ids, *offs, *vals;
  size_t vals_len, size;
} batch_variant_container;
/* Reads the header of the object or array at p[0..len) (len >= 1): NULL,
 * or what is wrong (counts, ids or offsets past the end). Elements are not
 * checked. */
const char *batch_variant_container_open(batch_variant_container *k, const uint8_t *p, size_t len);

/* The extent of the Variant value at p[0..len) (its header and data; a
 * container's elements unchecked) into *size: NULL, or what is wrong. */
const char *batch_variant_value_size(const uint8_t *p, size_t len, size_t *size);

/* Rebuilds the unshredded Variant value that the shredded group @p g (a
 * STRUCT of an optional binary `value` and an optional `typed_value`;
 * arrays @p a) holds at row @p r, appending its bytes to @p out
 * (variant_unshred.c; Parquet VariantShredding.md "Reconstructing a
 * Shredded Variant"). @p meta is the variant's metadata, which names every
 * object key, shredded or not; *missing when the group is null or both of
 * its fields are (an absent object field), and then nothing is appended.
 * 0; INLET_ECORRUPT (invalid shredding - a key both shredded and in value,
 * value beside a non-object typed_value, value not an object beside
 * shredded fields, a shredded key the metadata lacks - or a value whose
 * bytes run past their end; the message says which), INLET_EUNSUPPORTED (a
 * typed_value of a type no Variant primitive has), INLET_ELIMIT (nesting
 * deeper than BATCH_VARIANT_MAX_DEPTH, a value past
 * BATCH_VARIANT_MAX_BYTES), INLET_ENOMEM. Copied `value` bytes are not
 * otherwise checked. */
int batch_variant_unshred(inlet_buf *out, const uint8_t *meta, size_t meta_len,
                          const inlet_field *g, const inlet_array *a, int64_t r, bool *missing,
                          inlet_error *err);

/* Largest Variant value or metadata the encoder writes (Spark's limit). */
#define BATCH_VARIANT_MAX_BYTES (128 << 20)

/* Encodes the JSON text @p json (@p n bytes: one JSON value, whitespace
 * around it allowed) as a Variant (variant_encode.c): its metadata is
 * appended to @p meta, its value to @p val. Numbers get the types Spark's
 * parse_json gives them; the bytes are canonical (sorted dictionary,
 * smallest widths). 0; INLET_EINVAL (not JSON, not UTF-8, a repeated object
 * key, a number beyond double's range, nesting deeper than
 * BATCH_VARIANT_MAX_DEPTH; the message says what and at which byte),
 * INLET_ELIMIT (more than BATCH_VARIANT_MAX_BYTES), INLET_ENOMEM. On failure
 * @p meta and @p val are as they were. */
int batch_variant_from_json(inlet_buf *meta, inlet_buf *val, const char *json, size_t n,
                            inlet_error *err);

#endif /* INLET_BATCH_BATCH_H */
