/*
 * Private interface of the text import/export code in src/batch/: scalar
 * parsers shared by the NDJSON and CSV paths, the JSON-to-column converter
 * and the canonical value formatter. What other modules use of it (scalar
 * conversion, CSV record splitting, row rollback, civil dates) is in
 * batch/batch.h.
 */
#ifndef INLET_TEXT_INT_H
#define INLET_TEXT_INT_H

#include "batch/batch.h"
#include "inlet/batch.h"
#include "inlet/text.h"
#include "util/buf.h"
#include "util/util.h"

__extension__ typedef __int128 inlet_i128;
__extension__ typedef unsigned __int128 inlet_u128;

/* Appends a null, or reports a bad record when @p f is NOT NULL. */
int text_append_null(text_conv *c, inlet_array *a, const inlet_field *f);

/* Parses one JSON value from [*p, end) into @p a. */
int text_json_value(text_conv *c, inlet_array *a, const inlet_field *f, const char **p,
                    const char *end, int depth);

/* Parses a JSON object holding one row of @p schema into the columns of
 * @p batch (rows are rolled back by the caller on failure). */
typedef struct text_field_index text_field_index;
int text_json_row(text_conv *c, const inlet_schema *schema, const text_field_index *idx,
                  inlet_array *columns, int64_t row, const char *s, size_t n);

/* Field-name lookup for top-level fields (open addressing). */
int text_field_index_new(text_field_index **out, const inlet_schema *schema);
void text_field_index_free(text_field_index *idx);
int text_field_index_find(const text_field_index *idx, const char *name, size_t n);

/* ---- scalar parsers (return false on malformed input) ------------------ */
bool text_parse_i64(const char *s, size_t n, int64_t *out, bool *overflow);
bool text_parse_u64(const char *s, size_t n, uint64_t *out, bool *overflow);
bool text_parse_double(const char *s, size_t n, double *out);
bool text_parse_float(const char *s, size_t n, float *out);
/* Returns NULL on success or a static reason. */
const char *text_parse_decimal(const char *s, size_t n, int32_t precision, int32_t scale,
                               inlet_i128 *out);
bool text_parse_date(const char *s, size_t n, int32_t *days);

/* ---- formatting -------------------------------------------------------- */

/* Appends the canonical text of row @p row to @p b (JSON when @p json). */
int text_format_value(inlet_buf *b, const inlet_array *a, const inlet_field *f, int64_t row,
                      bool json, int depth);
/* Shortest round-trip decimal form of @p v (finite), JavaScript-style. */
void text_format_double(char out[40], double v);
/* Appends @p s as a JSON string literal. */
void text_json_quote(inlet_buf *b, const char *s, size_t n);

/* Single scalars in the same canonical text (for variant.c): binary as hex
 * (8-4-4-4-12 when @p uuid), a decimal of @p scale from 16 little-endian
 * bytes, a date from days since the epoch, a time or timestamp of type @p t,
 * a double (NaN and infinities as JSON strings). */
void text_format_hex(inlet_buf *b, const uint8_t *p, size_t n, bool json, bool uuid);
void text_format_decimal(inlet_buf *b, const uint8_t le[16], int32_t scale, bool json);
void text_format_date(inlet_buf *b, int64_t days, bool json);
void text_format_time(inlet_buf *b, int64_t v, const inlet_type *t, bool json);
void text_format_timestamp(inlet_buf *b, int64_t v, const inlet_type *t, bool json);
void text_format_json_double(inlet_buf *b, double v);

#endif /* INLET_TEXT_INT_H */
