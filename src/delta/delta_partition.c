/*
 * Partition values: typed batch values <-> the strings Delta stores in
 * add.partitionValues, and Hive-style directory names for partitioned
 * data files.
 *
 * Spec: PROTOCOL.md "Partition Value Serialization": numbers as their
 * decimal text, booleans "true"/"false", dates "YYYY-MM-DD", timestamps
 * "YYYY-MM-DD HH:MM:SS[.ffffff]" or ISO-8601 UTC with "Z" (what we write, as
 * the protocol recommends), timestamp_ntz without zone; an empty string or
 * JSON null is a null. A timestamp without a zone is read as UTC (Delta
 * Kernel's convention; the writer's zone is unknowable). Directory names
 * escape the characters Hive/Spark escape (escapePathName) as %XX, and a
 * null is __HIVE_DEFAULT_PARTITION__. An empty string is written as null,
 * as Spark writes it.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "delta/delta.h"
#include "util/util.h"

char *delta_hive_escape(const char *s) {
  static const char hex[] = "0123456789ABCDEF";
  if (!s) return inlet_strdup("__HIVE_DEFAULT_PARTITION__");
  inlet_buf b = INLET_BUF_INIT;
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    unsigned c = *p;
    if (delta_hive_needs_escape((unsigned char)c)) {
      char e[3] = {'%', hex[c >> 4], hex[c & 15]};
      inlet_buf_append(&b, e, 3);
    } else {
      inlet_buf_push(&b, (uint8_t)c);
    }
  }
  inlet_buf_terminate(&b);
  if (inlet_buf_status(&b)) {
    inlet_buf_reset(&b);
    return NULL;
  }
  return (char *)inlet_buf_detach(&b, NULL);
}

/* Shortest text that reads back as the same double. */
void delta_format_double(char *buf, size_t cap, double v, bool is_float) {
  if (isnan(v)) {
    snprintf(buf, cap, "NaN");
    return;
  }
  if (isinf(v)) {
    snprintf(buf, cap, v > 0 ? "Infinity" : "-Infinity");
    return;
  }
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, cap, "%.*g", prec, v);
    if (is_float ? (float)strtod(buf, NULL) == (float)v : strtod(buf, NULL) == v) return;
  }
}

/* Writes a decimal128 (little-endian two's complement) with @p scale. */
void delta_format_decimal(char *buf, size_t cap, const uint8_t *le, int scale) {
  unsigned __int128 u = 0;
  for (int i = 15; i >= 0; i--)
    u = (u << 8) | le[i];
  bool neg = (le[15] & 0x80) != 0;
  if (neg) u = ~u + 1;
  char digits[48];
  int n = 0;
  do {
    digits[n++] = (char)('0' + (int)(u % 10));
    u /= 10;
  } while (u);
  while (n <= scale)
    digits[n++] = '0';
  size_t j = 0;
  if (neg && j + 1 < cap) buf[j++] = '-';
  for (int i = n - 1; i >= 0 && j + 2 < cap; i--) {
    buf[j++] = digits[i];
    if (i == scale && scale > 0) buf[j++] = '.';
  }
  buf[j] = '\0';
}

int delta_partition_value_format(char **out, const inlet_field *field, const inlet_array *arr,
                                 int64_t row, inlet_error *err) {
  *out = NULL;
  if (!inlet_array_is_valid(arr, row)) return 0;
  char buf[128];
  const inlet_type *t = &field->type;
  switch (t->id) {
  case INLET_TYPE_BOOL:
    snprintf(buf, sizeof buf, "%s", inlet_bit_get(arr->values, row) ? "true" : "false");
    break;
  case INLET_TYPE_INT8: snprintf(buf, sizeof buf, "%d", ((const int8_t *)arr->values)[row]); break;
  case INLET_TYPE_INT16:
    snprintf(buf, sizeof buf, "%d", ((const int16_t *)arr->values)[row]);
    break;
  case INLET_TYPE_INT32:
    snprintf(buf, sizeof buf, "%d", ((const int32_t *)arr->values)[row]);
    break;
  case INLET_TYPE_INT64:
    snprintf(buf, sizeof buf, "%lld", (long long)((const int64_t *)arr->values)[row]);
    break;
  case INLET_TYPE_FLOAT:
    delta_format_double(buf, sizeof buf, ((const float *)arr->values)[row], true);
    break;
  case INLET_TYPE_DOUBLE:
    delta_format_double(buf, sizeof buf, ((const double *)arr->values)[row], false);
    break;
  case INLET_TYPE_DATE: delta_format_date(buf, ((const int32_t *)arr->values)[row]); break;
  case INLET_TYPE_TIMESTAMP: {
    if (t->unit != INLET_UNIT_MICRO) goto unsupported;
    char ts[40];
    delta_format_micros(ts, ((const int64_t *)arr->values)[row], 6);
    if (t->utc) {
      snprintf(buf, sizeof buf, "%sZ", ts);
    } else {
      ts[10] = ' ';
      snprintf(buf, sizeof buf, "%s", ts);
    }
    break;
  }
  case INLET_TYPE_DECIMAL:
    delta_format_decimal(buf, sizeof buf, arr->values + row * 16, t->scale);
    break;
  case INLET_TYPE_STRING: {
    int32_t a = arr->offsets[row], b = arr->offsets[row + 1];
    if (a == b) {
      /* Spark stores an empty string partition value as null (directory
       * __HIVE_DEFAULT_PARTITION__); the protocol reads "" as null anyway,
       * so a NOT NULL column cannot hold one. */
      if (!field->nullable)
        return inlet_fail(err, INLET_EINVAL,
                          "partition column \"%s\" is NOT NULL, but an empty string partition "
                          "value is stored as null",
                          field->name);
      return 0;
    }
    *out = inlet_strndup((const char *)arr->values + a, (size_t)(b - a));
    if (!*out) return inlet_fail(err, INLET_ENOMEM, "out of memory");
    if (strlen(*out) != (size_t)(b - a)) {
      inlet_free(*out);
      *out = NULL;
      return inlet_fail(err, INLET_EINVAL, "partition column \"%s\": value contains a NUL byte",
                        field->name);
    }
    return 0;
  }
  default: goto unsupported;
  }
  *out = inlet_strdup(buf);
  return *out ? 0 : inlet_fail(err, INLET_ENOMEM, "out of memory");
unsupported : {
  char name[64];
  inlet_type_name(t, name, sizeof name);
  return inlet_fail(err, INLET_EUNSUPPORTED,
                    "partition column \"%s\": type %s cannot be a "
                    "partition column",
                    field->name, name);
}
}

static bool parse_i64(const char *s, int64_t *v) {
  char *end;
  errno = 0;
  long long x = strtoll(s, &end, 10);
  if (end == s || *end || errno) return false;
  *v = x;
  return true;
}

static bool parse_decimal(const char *s, int scale, uint8_t out[16]) {
  bool neg = false;
  if (*s == '-' || *s == '+') neg = *s++ == '-';
  unsigned __int128 v = 0;
  int frac = -1, nd = 0;
  for (; *s; s++) {
    if (*s == '.' && frac < 0) {
      frac = 0;
      continue;
    }
    if (*s < '0' || *s > '9') return false;
    if (frac >= 0) {
      if (frac == scale) {
        if (*s != '0') return false;
        continue;
      }
      frac++;
    }
    v = v * 10 + (unsigned)(*s - '0');
    if (++nd > 38) return false;
  }
  if (nd == 0) return false;
  for (int i = frac < 0 ? 0 : frac; i < scale; i++)
    v *= 10;
  if (neg) v = ~v + 1;
  for (int i = 0; i < 16; i++)
    out[i] = (uint8_t)(v >> (8 * i));
  return true;
}

int delta_partition_value_append(inlet_array *arr, const inlet_field *field, const char *value,
                                 int64_t n, inlet_error *err) {
  const inlet_type *t = &field->type;
  bool is_null = value == NULL || value[0] == '\0';
  for (int64_t i = 0; i < n && is_null; i++)
    TRY(inlet_array_append_null(arr, field, err));
  if (is_null) return 0;
  int64_t iv = 0;
  bool ok = true;
  switch (t->id) {
  case INLET_TYPE_BOOL: {
    bool b = strcmp(value, "true") == 0;
    ok = b || strcmp(value, "false") == 0;
    for (int64_t i = 0; ok && i < n; i++)
      TRY(inlet_array_append_bool(arr, b, err));
    break;
  }
  case INLET_TYPE_INT8:
  case INLET_TYPE_INT16:
  case INLET_TYPE_INT32:
  case INLET_TYPE_INT64: {
    ok = parse_i64(value, &iv);
    int w = inlet_type_value_width(t);
    if (ok && w < 8) {
      int64_t lim = (int64_t)1 << (w * 8 - 1);
      ok = iv >= -lim && iv < lim;
    }
    for (int64_t i = 0; ok && i < n; i++)
      TRY(inlet_array_append_int(arr, field, iv, err));
    break;
  }
  case INLET_TYPE_FLOAT:
  case INLET_TYPE_DOUBLE: {
    char *end;
    double d = strtod(value, &end);
    ok = end != value && *end == '\0';
    for (int64_t i = 0; ok && i < n; i++) {
      if (t->id == INLET_TYPE_FLOAT)
        TRY(inlet_array_append_float(arr, (float)d, err));
      else
        TRY(inlet_array_append_double(arr, d, err));
    }
    break;
  }
  case INLET_TYPE_DATE: {
    int32_t days = 0;
    ok = delta_parse_date(value, &days);
    for (int64_t i = 0; ok && i < n; i++)
      TRY(inlet_array_append_int(arr, field, days, err));
    break;
  }
  case INLET_TYPE_TIMESTAMP: {
    int64_t us = 0;
    ok = delta_parse_timestamp(value, &us);
    if (ok && t->unit != INLET_UNIT_MICRO) {
      if (t->unit == INLET_UNIT_MILLI)
        us /= 1000;
      else if (t->unit == INLET_UNIT_SECOND)
        us /= 1000000;
      else
        ok = !inlet_mul_overflow_i64(us, 1000, &us);
    }
    for (int64_t i = 0; ok && i < n; i++)
      TRY(inlet_array_append_int(arr, field, us, err));
    break;
  }
  case INLET_TYPE_DECIMAL: {
    uint8_t d[16];
    ok = parse_decimal(value, t->scale, d);
    for (int64_t i = 0; ok && i < n; i++)
      TRY(inlet_array_append_decimal(arr, d, err));
    break;
  }
  case INLET_TYPE_STRING:
  case INLET_TYPE_BINARY: {
    size_t len = strlen(value);
    for (int64_t i = 0; i < n; i++)
      TRY(inlet_array_append_bytes(arr, field, value, len, err));
    break;
  }
  default: {
    char name[64];
    inlet_type_name(t, name, sizeof name);
    return inlet_fail(err, INLET_EUNSUPPORTED,
                      "partition column \"%s\" has type %s, which "
                      "cannot be a partition column",
                      field->name, name);
  }
  }
  if (!ok)
    return inlet_fail(err, INLET_ECORRUPT,
                      "partition column \"%s\": value \"%.100s\" is not a "
                      "valid %s",
                      field->name, value,
                      t->id == INLET_TYPE_DATE        ? "date"
                      : t->id == INLET_TYPE_TIMESTAMP ? "timestamp"
                                                      : "value of its type");
  return 0;
}

int delta_partition_key(char **key, const delta_add *add, const delta_snapshot *s,
                        inlet_error *err) {
  *key = NULL;
  const delta_metadata *meta = &s->metadata;
  const inlet_schema *phys = delta_snapshot_physical(s);
  inlet_buf k = INLET_BUF_INIT;
  for (int32_t i = 0; i < meta->n_partition_columns; i++) {
    const char *col = meta->partition_columns[i];
    int f = inlet_schema_find(&s->schema, col);
    if (f >= 0 && f < phys->n_fields) col = phys->fields[f].name;
    const char *v = NULL;
    for (int32_t j = 0; j < add->n_partition_values && !v; j++)
      if (strcmp(add->partition_values[j].key, col) == 0) v = add->partition_values[j].value;
    /* 'N' for a null, else 'V', the length and ':' before the bytes: a
     * value can hold any byte but NUL, so no separator or marker byte alone
     * could keep two columns' values, or a value and a null, apart. */
    if (v)
      inlet_buf_appendf(&k, "V%zu:%s", strlen(v), v);
    else
      inlet_buf_push(&k, 'N');
  }
  inlet_buf_terminate(&k);
  if (inlet_buf_status(&k)) {
    inlet_buf_reset(&k);
    return inlet_fail(err, INLET_ENOMEM, "out of memory");
  }
  *key = k.data ? (char *)inlet_buf_detach(&k, NULL) : inlet_strdup("");
  return *key ? 0 : inlet_fail(err, INLET_ENOMEM, "out of memory");
}
