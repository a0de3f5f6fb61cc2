/*
 * Row-group statistics for skipping: the Statistics of each column chunk
 * (parquet.thrift ColumnMetaData.statistics: min_value/max_value in the
 * column's sort order, null_count) of flat top-level columns, turned into
 * sc_colstats. Only the column-order fields are trusted, except the
 * deprecated signed min/max of plain integers whose signed order is right.
 * Booleans use min_value/max_value only (false < true). Float bounds,
 * decimals and columns whose stored type differs from the table type (type
 * widening) stay unknown: skipping then just reads more.
 */
#include <strings.h>

#include "delta/delta.h"
#include "parquet/reader_stats.h"
#include "scan/scan_stats.h"

static bool le_int(const pq_bytes *b, int width, int64_t *out, bool is_unsigned) {
  if (!b->data || b->len != (uint32_t)width) return false;
  uint64_t u = 0;
  for (int i = width - 1; i >= 0; i--)
    u = (u << 8) | b->data[i];
  if (width == 4)
    *out = is_unsigned ? (int64_t)(uint32_t)u : (int64_t)(int32_t)(uint32_t)u;
  else
    *out = (int64_t)u;
  return true;
}

static bool same_type(const inlet_type *a, const inlet_type *b) {
  if (a->id != b->id) return false;
  if (a->id == INLET_TYPE_TIMESTAMP || a->id == INLET_TYPE_TIME) return a->unit == b->unit;
  return true;
}

void sc_colstats_from_parquet(sc_colstats *cs, const inlet_field *tf, const inlet_field *ff,
                              int32_t physical, const pq_statistics *st) {
  if (st->has_null_count && st->null_count >= 0) cs->null_count = st->null_count;
  if (!same_type(&tf->type, &ff->type)) return;
  sc_kind k = sc_kind_of(&tf->type);
  const pq_bytes *mn = st->has_min_value ? &st->min_value : NULL;
  const pq_bytes *mx = st->has_max_value ? &st->max_value : NULL;
  bool plain_int = tf->type.id == INLET_TYPE_INT32 || tf->type.id == INLET_TYPE_INT64 ||
                   tf->type.id == INLET_TYPE_DATE || tf->type.id == INLET_TYPE_TIMESTAMP;
  if (!mn && plain_int && st->has_min) mn = &st->min;
  if (!mx && plain_int && st->has_max) mx = &st->max;
  if (tf->type.id == INLET_TYPE_BOOL) {
    /* Parquet orders BOOLEAN false < true; a bound is one byte, 0 or 1. */
    if (physical != PQ_BOOLEAN) return;
    if (mn && mn->data && mn->len == 1 && mn->data[0] <= 1) {
      cs->min.i = mn->data[0];
      cs->has_min = true;
    }
    if (mx && mx->data && mx->len == 1 && mx->data[0] <= 1) {
      cs->max.i = mx->data[0];
      cs->has_max = true;
    }
  } else if (k == SCK_I64) {
    int width = physical == PQ_INT32 ? 4 : physical == PQ_INT64 ? 8 : 0;
    if (!width) return;
    bool uns = tf->type.id == INLET_TYPE_UINT8 || tf->type.id == INLET_TYPE_UINT16 ||
               tf->type.id == INLET_TYPE_UINT32;
    if (mn && le_int(mn, width, &cs->min.i, uns)) cs->has_min = true;
    if (mx && le_int(mx, width, &cs->max.i, uns)) cs->has_max = true;
  } else if (k == SCK_BYTES && tf->type.id == INLET_TYPE_STRING && physical == PQ_BYTE_ARRAY) {
    /* Truncated string bounds stay bounds (the spec requires it of
     * writers that truncate). */
    if (mn && (mn->data || mn->len == 0)) {
      cs->min.p = mn->data ? mn->data : (const uint8_t *)"";
      cs->min.n = mn->len;
      cs->has_min = true;
    }
    if (mx && (mx->data || mx->len == 0)) {
      cs->max.p = mx->data ? mx->data : (const uint8_t *)"";
      cs->max.n = mx->len;
      cs->has_max = true;
    }
  }
}

int32_t sc_file_field(const inlet_parquet_reader *r, const inlet_field *pf) {
  const inlet_schema *fs = inlet_parquet_reader_schema(r);
  return delta_cm_find_field(fs->fields, fs->n_fields, pf);
}

int sc_file_stats_row_group(sc_file_stats *fs, const inlet_parquet_reader *r, int32_t rg,
                            inlet_error *err) {
  if (rg < 0 || rg >= inlet_parquet_reader_num_row_groups(r)) return 0;
  TRY(sc_file_stats_begin(fs, inlet_parquet_reader_row_group_rows(r, rg), err));
  const inlet_schema *file_schema = inlet_parquet_reader_schema(r);
  for (int32_t c = 0; c < fs->n; c++) {
    const inlet_field *tf = &fs->schema->fields[c];
    int32_t j = sc_file_field(r, tf);
    if (j < 0) continue; /* partition column or absent: the caller knows */
    pq_type physical;
    const pq_statistics *st = pq_reader_chunk_statistics(r, rg, j, &physical);
    if (!st) continue;
    sc_colstats_from_parquet(&fs->cols[c], tf, &file_schema->fields[j], (int32_t)physical, st);
  }
  return 0;
}
