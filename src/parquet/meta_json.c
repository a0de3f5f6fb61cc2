/*
 * inlet_parquet_reader_metadata_json: the footer of an open file as one
 * JSON document (what `inlet parquet meta` prints). Fields follow
 * parquet.thrift FileMetaData / SchemaElement / RowGroup / ColumnMetaData /
 * Statistics; statistics are decoded with the column's type into readable
 * values (numbers, strings, ISO dates and timestamps, decimal strings, hex
 * for raw bytes), and also kept as hex when they cannot be decoded.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "codec/codec.h"
#include "parquet/reader_int.h"
#include "util/buf.h"
#include "util/util.h"

static void json_str(inlet_buf *b, const char *s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  inlet_buf_push(b, '"');
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') {
      inlet_buf_push(b, '\\');
      inlet_buf_push(b, c);
    } else if (c < 0x20) {
      char esc[7] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], 0};
      inlet_buf_puts(b, esc);
    } else {
      inlet_buf_push(b, c);
    }
  }
  inlet_buf_push(b, '"');
}

static void json_cstr(inlet_buf *b, const char *s) {
  if (!s)
    inlet_buf_puts(b, "null");
  else
    json_str(b, s, strlen(s));
}

static void json_hex(inlet_buf *b, const uint8_t *p, size_t n) {
  static const char hex[] = "0123456789abcdef";
  inlet_buf_push(b, '"');
  for (size_t i = 0; i < n; i++) {
    inlet_buf_push(b, (uint8_t)hex[p[i] >> 4]);
    inlet_buf_push(b, (uint8_t)hex[p[i] & 15]);
  }
  inlet_buf_push(b, '"');
}

static bool valid_utf8(const uint8_t *p, size_t n) {
  size_t i = 0;
  while (i < n) {
    uint8_t c = p[i];
    size_t k;
    if (c < 0x80)
      k = 0;
    else if ((c >> 5) == 6)
      k = 1;
    else if ((c >> 4) == 14)
      k = 2;
    else if ((c >> 3) == 30)
      k = 3;
    else
      return false;
    if (k > n - i - 1) return false;
    for (size_t j = 1; j <= k; j++)
      if ((p[i + j] & 0xc0) != 0x80) return false;
    i += k + 1;
  }
  return true;
}

static void json_double(inlet_buf *b, double v) {
  if (isnan(v))
    inlet_buf_puts(b, "\"NaN\"");
  else if (isinf(v))
    inlet_buf_puts(b, v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
  else
    inlet_buf_appendf(b, "%.17g", v);
}

/* Decimal string of a 128-bit two's complement value with @p scale digits. */
static void json_decimal(inlet_buf *b, const uint8_t le[16], int32_t scale) {
  uint64_t lo, hi;
  memcpy(&lo, le, 8);
  memcpy(&hi, le + 8, 8);
  bool neg = hi >> 63;
  if (neg) { /* negate */
    lo = ~lo;
    hi = ~hi;
    if (++lo == 0) hi++;
  }
  char digits[48];
  int nd = 0;
  while (hi || lo) {
    /* divide (hi, lo) by 10 */
    unsigned __int128 v = ((unsigned __int128)hi << 64) | lo;
    digits[nd++] = (char)('0' + (int)(v % 10));
    v /= 10;
    hi = (uint64_t)(v >> 64);
    lo = (uint64_t)v;
  }
  while (nd <= scale)
    digits[nd++] = '0';
  inlet_buf_push(b, '"');
  if (neg) inlet_buf_push(b, '-');
  for (int i = nd - 1; i >= 0; i--) {
    inlet_buf_push(b, (uint8_t)digits[i]);
    if (i == scale && scale > 0) inlet_buf_push(b, '.');
  }
  inlet_buf_push(b, '"');
}

static void json_date(inlet_buf *b, int64_t days) {
  time_t t = (time_t)(days * 86400);
  struct tm tm;
  if (!gmtime_r(&t, &tm)) {
    inlet_buf_appendf(b, "%" PRId64, days);
    return;
  }
  inlet_buf_appendf(b, "\"%04d-%02d-%02d\"", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
}

static void json_timestamp(inlet_buf *b, int64_t v, inlet_time_unit unit, bool utc) {
  int64_t per = unit == INLET_UNIT_SECOND  ? 1
                : unit == INLET_UNIT_MILLI ? 1000
                : unit == INLET_UNIT_MICRO ? 1000000
                                           : 1000000000;
  int64_t secs = v / per, frac = v % per;
  if (frac < 0) {
    frac += per;
    secs--;
  }
  time_t t = (time_t)secs;
  struct tm tm;
  if (!gmtime_r(&t, &tm)) {
    inlet_buf_appendf(b, "%" PRId64, v);
    return;
  }
  inlet_buf_appendf(b, "\"%04d-%02d-%02dT%02d:%02d:%02d", tm.tm_year + 1900, tm.tm_mon + 1,
                    tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  if (unit == INLET_UNIT_MILLI)
    inlet_buf_appendf(b, ".%03" PRId64, frac);
  else if (unit == INLET_UNIT_MICRO)
    inlet_buf_appendf(b, ".%06" PRId64, frac);
  else if (unit == INLET_UNIT_NANO)
    inlet_buf_appendf(b, ".%09" PRId64, frac);
  inlet_buf_puts(b, utc ? "Z\"" : "\"");
}

/* One statistics value decoded with the column's type. */
static void json_stat_value(inlet_buf *b, const pq_column_desc *d, pq_bytes v) {
  const uint8_t *p = v.data;
  size_t n = v.len;
  switch (d->physical_type) {
  case PQ_BOOLEAN:
    if (n >= 1) {
      inlet_buf_puts(b, p[0] ? "true" : "false");
      return;
    }
    break;
  case PQ_INT32:
    if (n == 4) {
      int32_t x;
      memcpy(&x, p, 4);
      if (d->type.id == INLET_TYPE_DATE)
        json_date(b, x);
      else if (d->type.id == INLET_TYPE_DECIMAL) {
        uint8_t le[16];
        memcpy(le, &(int64_t){x}, 8);
        memset(le + 8, x < 0 ? 0xff : 0, 8);
        json_decimal(b, le, d->type.scale);
      } else if (d->type.id == INLET_TYPE_UINT32 || d->type.id == INLET_TYPE_UINT8 ||
                 d->type.id == INLET_TYPE_UINT16)
        inlet_buf_appendf(b, "%" PRIu32, (uint32_t)x);
      else
        inlet_buf_appendf(b, "%" PRId32, x);
      return;
    }
    break;
  case PQ_INT64:
    if (n == 8) {
      int64_t x;
      memcpy(&x, p, 8);
      if (d->type.id == INLET_TYPE_TIMESTAMP)
        json_timestamp(b, x, d->type.unit, d->type.utc);
      else if (d->type.id == INLET_TYPE_DECIMAL) {
        uint8_t le[16];
        memcpy(le, &x, 8);
        memset(le + 8, x < 0 ? 0xff : 0, 8);
        json_decimal(b, le, d->type.scale);
      } else if (d->type.id == INLET_TYPE_UINT64)
        inlet_buf_appendf(b, "%" PRIu64, (uint64_t)x);
      else
        inlet_buf_appendf(b, "%" PRId64, x);
      return;
    }
    break;
  case PQ_FLOAT:
    if (n == 4) {
      float f;
      memcpy(&f, p, 4);
      json_double(b, f);
      return;
    }
    break;
  case PQ_DOUBLE:
    if (n == 8) {
      double f;
      memcpy(&f, p, 8);
      json_double(b, f);
      return;
    }
    break;
  case PQ_BYTE_ARRAY:
  case PQ_FIXED_LEN_BYTE_ARRAY:
    if (d->type.id == INLET_TYPE_STRING && valid_utf8(p, n)) {
      json_str(b, (const char *)p, n);
      return;
    }
    if (d->type.id == INLET_TYPE_DECIMAL && n > 0 && n <= 16) {
      uint8_t le[16];
      memset(le, (p[0] & 0x80) ? 0xff : 0, 16);
      for (size_t i = 0; i < n; i++)
        le[i] = p[n - 1 - i];
      json_decimal(b, le, d->type.scale);
      return;
    }
    break;
  default: break;
  }
  json_hex(b, p, n);
}

static void json_logical(inlet_buf *b, const pq_logical_type *lt) {
  switch (lt->kind) {
  case PQ_LT_NONE: inlet_buf_puts(b, "null"); return;
  case PQ_LT_STRING: inlet_buf_puts(b, "\"STRING\""); return;
  case PQ_LT_MAP: inlet_buf_puts(b, "\"MAP\""); return;
  case PQ_LT_LIST: inlet_buf_puts(b, "\"LIST\""); return;
  case PQ_LT_ENUM: inlet_buf_puts(b, "\"ENUM\""); return;
  case PQ_LT_DECIMAL: inlet_buf_appendf(b, "\"DECIMAL(%d,%d)\"", lt->precision, lt->scale); return;
  case PQ_LT_DATE: inlet_buf_puts(b, "\"DATE\""); return;
  case PQ_LT_TIME:
  case PQ_LT_TIMESTAMP: {
    const char *u = lt->unit == PQ_UNIT_MILLIS   ? "MILLIS"
                    : lt->unit == PQ_UNIT_MICROS ? "MICROS"
                    : lt->unit == PQ_UNIT_NANOS  ? "NANOS"
                                                 : "?";
    inlet_buf_appendf(b, "\"%s(%s,%s)\"", lt->kind == PQ_LT_TIME ? "TIME" : "TIMESTAMP", u,
                      lt->utc ? "true" : "false");
    return;
  }
  case PQ_LT_INTEGER:
    inlet_buf_appendf(b, "\"INTEGER(%d,%s)\"", lt->bit_width, lt->is_signed ? "true" : "false");
    return;
  case PQ_LT_NULL: inlet_buf_puts(b, "\"UNKNOWN\""); return;
  case PQ_LT_JSON: inlet_buf_puts(b, "\"JSON\""); return;
  case PQ_LT_BSON: inlet_buf_puts(b, "\"BSON\""); return;
  case PQ_LT_UUID: inlet_buf_puts(b, "\"UUID\""); return;
  case PQ_LT_FLOAT16: inlet_buf_puts(b, "\"FLOAT16\""); return;
  case PQ_LT_VARIANT: inlet_buf_puts(b, "\"VARIANT\""); return;
  case PQ_LT_GEOMETRY: inlet_buf_puts(b, "\"GEOMETRY\""); return;
  case PQ_LT_GEOGRAPHY: inlet_buf_puts(b, "\"GEOGRAPHY\""); return;
  default: inlet_buf_appendf(b, "\"OTHER(%d)\"", lt->other_id); return;
  }
}

static void json_statistics(inlet_buf *b, const pq_column_desc *d, const pq_statistics *st) {
  inlet_buf_push(b, '{');
  bool first = true;
#define SEP() (first ? (void)(first = false) : (void)inlet_buf_push(b, ','))
  if (st->has_null_count) {
    SEP();
    inlet_buf_appendf(b, "\"null_count\":%" PRId64, st->null_count);
  }
  if (st->has_distinct_count) {
    SEP();
    inlet_buf_appendf(b, "\"distinct_count\":%" PRId64, st->distinct_count);
  }
  if (st->has_nan_count) {
    SEP();
    inlet_buf_appendf(b, "\"nan_count\":%" PRId64, st->nan_count);
  }
  if (st->has_min_value) {
    SEP();
    inlet_buf_puts(b, "\"min_value\":");
    json_stat_value(b, d, st->min_value);
  }
  if (st->has_max_value) {
    SEP();
    inlet_buf_puts(b, "\"max_value\":");
    json_stat_value(b, d, st->max_value);
  }
  if (st->has_is_min_value_exact) {
    SEP();
    inlet_buf_appendf(b, "\"is_min_value_exact\":%s", st->is_min_value_exact ? "true" : "false");
  }
  if (st->has_is_max_value_exact) {
    SEP();
    inlet_buf_appendf(b, "\"is_max_value_exact\":%s", st->is_max_value_exact ? "true" : "false");
  }
  /* Legacy min/max: signed order, so only meaningful for some types. */
  if (st->has_min) {
    SEP();
    inlet_buf_puts(b, "\"min\":");
    json_stat_value(b, d, st->min);
  }
  if (st->has_max) {
    SEP();
    inlet_buf_puts(b, "\"max\":");
    json_stat_value(b, d, st->max);
  }
#undef SEP
  inlet_buf_push(b, '}');
}

static void json_key_values(inlet_buf *b, const pq_key_value *kv, int32_t n) {
  inlet_buf_push(b, '{');
  for (int32_t i = 0; i < n; i++) {
    if (i) inlet_buf_push(b, ',');
    json_str(b, kv[i].key, kv[i].key_len);
    inlet_buf_push(b, ':');
    if (kv[i].value)
      json_str(b, kv[i].value, kv[i].value_len);
    else
      inlet_buf_puts(b, "null");
  }
  inlet_buf_push(b, '}');
}

int inlet_parquet_reader_metadata_json(const inlet_parquet_reader *r, char **json,
                                       inlet_error *err) {
  if (!r || !json) return inlet_fail(err, INLET_EINVAL, "NULL reader or output");
  *json = NULL;
  const pq_file_metadata *m = &r->meta;
  inlet_buf b = INLET_BUF_INIT;
  inlet_buf_puts(&b, "{\"file\":");
  json_cstr(&b, r->name);
  inlet_buf_appendf(&b, ",\"file_size\":%" PRId64 ",\"version\":%d,\"num_rows\":%" PRId64,
                    r->file->size, m->version, m->num_rows);
  inlet_buf_appendf(&b, ",\"num_row_groups\":%d,\"created_by\":", m->n_row_groups);
  json_cstr(&b, m->created_by);
  inlet_buf_puts(&b, ",\"key_value_metadata\":");
  json_key_values(&b, m->key_value, m->n_key_value);

  inlet_buf_puts(&b, ",\"schema\":[");
  for (int32_t i = 0; i < m->n_schema; i++) {
    const pq_schema_element *e = &m->schema[i];
    if (i) inlet_buf_push(&b, ',');
    inlet_buf_puts(&b, "{\"name\":");
    json_cstr(&b, e->name);
    if (e->has_type) inlet_buf_appendf(&b, ",\"type\":\"%s\"", pq_type_name(e->type));
    if (e->has_type_length) inlet_buf_appendf(&b, ",\"type_length\":%d", e->type_length);
    if (e->has_repetition)
      inlet_buf_appendf(&b, ",\"repetition\":\"%s\"", pq_repetition_name(e->repetition));
    if (e->has_num_children) inlet_buf_appendf(&b, ",\"num_children\":%d", e->num_children);
    if (e->converted_type != PQ_CT_NONE)
      inlet_buf_appendf(&b, ",\"converted_type\":\"%s\"",
                        pq_converted_type_name(e->converted_type));
    if (e->logical.kind != PQ_LT_NONE) {
      inlet_buf_puts(&b, ",\"logical_type\":");
      json_logical(&b, &e->logical);
    }
    if (e->has_scale) inlet_buf_appendf(&b, ",\"scale\":%d", e->scale);
    if (e->has_precision) inlet_buf_appendf(&b, ",\"precision\":%d", e->precision);
    if (e->has_field_id) inlet_buf_appendf(&b, ",\"field_id\":%d", e->field_id);
    inlet_buf_push(&b, '}');
  }
  inlet_buf_puts(&b, "],\"row_groups\":[");
  for (int32_t g = 0; g < m->n_row_groups; g++) {
    const pq_row_group *rg = &m->row_groups[g];
    if (g) inlet_buf_push(&b, ',');
    inlet_buf_appendf(&b, "{\"num_rows\":%" PRId64 ",\"total_byte_size\":%" PRId64, rg->num_rows,
                      rg->total_byte_size);
    if (rg->has_total_compressed_size)
      inlet_buf_appendf(&b, ",\"total_compressed_size\":%" PRId64, rg->total_compressed_size);
    if (rg->has_file_offset) inlet_buf_appendf(&b, ",\"file_offset\":%" PRId64, rg->file_offset);
    if (rg->has_ordinal) inlet_buf_appendf(&b, ",\"ordinal\":%d", rg->ordinal);
    inlet_buf_puts(&b, ",\"columns\":[");
    for (int32_t c = 0; c < rg->n_columns; c++) {
      const pq_column_chunk *cc = &rg->columns[c];
      const pq_column_meta *cm = &cc->meta_data;
      const pq_column_desc *d = c < r->sd.n_columns ? &r->sd.columns[c] : NULL;
      if (c) inlet_buf_push(&b, ',');
      inlet_buf_puts(&b, "{\"path\":");
      json_cstr(&b, d ? d->path : "?");
      inlet_buf_appendf(&b, ",\"physical_type\":\"%s\",\"logical_type\":", pq_type_name(cm->type));
      if (d)
        json_logical(&b, &d->logical);
      else
        inlet_buf_puts(&b, "null");
      if (d && d->converted_type != PQ_CT_NONE)
        inlet_buf_appendf(&b, ",\"converted_type\":\"%s\"",
                          pq_converted_type_name(d->converted_type));
      inlet_buf_appendf(&b, ",\"codec\":\"%s\",\"encodings\":[", inlet_codec_name(cm->codec));
      for (int32_t k = 0; k < cm->n_encodings; k++)
        inlet_buf_appendf(&b, "%s\"%s\"", k ? "," : "", pq_encoding_name(cm->encodings[k]));
      inlet_buf_appendf(&b,
                        "],\"num_values\":%" PRId64 ",\"total_compressed_size\":%" PRId64
                        ",\"total_uncompressed_size\":%" PRId64 ",\"data_page_offset\":%" PRId64,
                        cm->num_values, cm->total_compressed_size, cm->total_uncompressed_size,
                        cm->data_page_offset);
      if (cm->has_dictionary_page_offset)
        inlet_buf_appendf(&b, ",\"dictionary_page_offset\":%" PRId64, cm->dictionary_page_offset);
      if (cm->has_index_page_offset)
        inlet_buf_appendf(&b, ",\"index_page_offset\":%" PRId64, cm->index_page_offset);
      if (cm->has_bloom_filter_offset)
        inlet_buf_appendf(&b, ",\"bloom_filter_offset\":%" PRId64, cm->bloom_filter_offset);
      if (cc->has_offset_index)
        inlet_buf_appendf(&b, ",\"offset_index_offset\":%" PRId64 ",\"offset_index_length\":%d",
                          cc->offset_index_offset, cc->offset_index_length);
      if (cc->has_column_index)
        inlet_buf_appendf(&b, ",\"column_index_offset\":%" PRId64 ",\"column_index_length\":%d",
                          cc->column_index_offset, cc->column_index_length);
      if (cm->n_encoding_stats > 0) {
        inlet_buf_puts(&b, ",\"encoding_stats\":[");
        for (int32_t k = 0; k < cm->n_encoding_stats; k++) {
          const pq_page_encoding_stats *es = &cm->encoding_stats[k];
          inlet_buf_appendf(&b, "%s{\"page_type\":\"%s\",\"encoding\":\"%s\",\"count\":%d}",
                            k ? "," : "", pq_page_type_name(es->page_type),
                            pq_encoding_name(es->encoding), es->count);
        }
        inlet_buf_push(&b, ']');
      }
      if (cm->n_key_value > 0) {
        inlet_buf_puts(&b, ",\"key_value_metadata\":");
        json_key_values(&b, cm->key_value, cm->n_key_value);
      }
      if (cm->has_statistics && d) {
        inlet_buf_puts(&b, ",\"statistics\":");
        json_statistics(&b, d, &cm->statistics);
      }
      inlet_buf_push(&b, '}');
    }
    inlet_buf_puts(&b, "]}");
  }
  inlet_buf_puts(&b, "]}");
  inlet_buf_terminate(&b);
  if (inlet_buf_status(&b) < 0) {
    inlet_buf_reset(&b);
    return inlet_fail(err, INLET_ENOMEM, "out of memory formatting metadata of %s", r->name);
  }
  size_t len;
  *json = (char *)inlet_buf_detach(&b, &len);
  return 0;
}

void inlet_string_free(char *s) {
  inlet_free(s);
}
