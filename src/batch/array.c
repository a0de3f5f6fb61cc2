/*
 * Arrays and batches (include/inlet/batch.h): Arrow-layout column builders
 * (validity bitmap, offsets, values; Arrow columnar format "Physical Memory
 * Layout"), batch lifecycles, validation of untrusted batches and memory
 * accounting.
 *
 * Invariants kept by every builder function:
 *   - offset-carrying arrays (STRING, BINARY, LIST, MAP) always have an
 *     offsets buffer with offsets[0] == 0, even when empty;
 *   - bytes of a grown buffer are zeroed, so decoders may OR bits in;
 *   - a validity bitmap exists only after the first null (or an explicit
 *     inlet_array_ensure_validity); before that every row is valid.
 */
#include "batch/batch.h"
#include "inlet/batch.h"
#include "util/util.h"

static bool has_offsets(inlet_type_id id) {
  return id == INLET_TYPE_STRING || id == INLET_TYPE_BINARY || id == INLET_TYPE_LIST ||
         id == INLET_TYPE_MAP;
}

/* Grows *buf (capacity *cap bytes) to hold at least @p need bytes. */
static int grow(uint8_t **buf, int64_t *cap, int64_t need, inlet_error *err) {
  if (need <= *cap) return 0;
  if (need > ((int64_t)1 << 40))
    return inlet_fail(err, INLET_ELIMIT, "array buffer of %lld bytes exceeds the 1 TiB limit",
                      (long long)need);
  int64_t ncap = *cap * 2;
  if (ncap < need) ncap = need;
  if (ncap < 64) ncap = 64;
  uint8_t *p = inlet_realloc(*buf, (size_t)ncap);
  if (!p) return inlet_fail(err, INLET_ENOMEM, "out of memory growing an array buffer");
  memset(p + *cap, 0, (size_t)(ncap - *cap));
  *buf = p;
  *cap = ncap;
  return 0;
}

batch_builder *batch_array_builder(inlet_array *a, inlet_error *err) {
  if (INLET_LIKELY(a->builder != NULL)) return a->builder;
  a->builder = inlet_calloc(1, sizeof *a->builder);
  if (!a->builder) inlet_fail(err, INLET_ENOMEM, "out of memory creating an array builder");
  return a->builder;
}

void batch_array_drop_validity(inlet_array *a) {
  inlet_free(a->validity);
  a->validity = NULL;
  if (a->builder) a->builder->validity_cap = 0;
}

static int grow_validity(inlet_array *a, int64_t need, inlet_error *err) {
  batch_builder *b = batch_array_builder(a, err);
  if (!b) return INLET_ENOMEM;
  return grow(&a->validity, &b->validity_cap, need, err);
}

static int grow_values(inlet_array *a, int64_t need, inlet_error *err) {
  batch_builder *b = batch_array_builder(a, err);
  if (!b) return INLET_ENOMEM;
  return grow(&a->values, &b->values_cap, need, err);
}

static int grow_offsets(inlet_array *a, int64_t entries, inlet_error *err) {
  batch_builder *b = batch_array_builder(a, err);
  if (!b) return INLET_ENOMEM;
  uint8_t *p = (uint8_t *)a->offsets;
  int rc = grow(&p, &b->offsets_cap, entries * 4, err);
  a->offsets = (int32_t *)p;
  return rc;
}

int inlet_array_init(inlet_array *array, const inlet_field *field, inlet_error *err) {
  memset(array, 0, sizeof *array);
  if (has_offsets(field->type.id)) {
    int rc = grow_offsets(array, 1, err);
    if (rc < 0) {
      inlet_array_reset(array); /* the builder may exist already */
      return rc;
    }
    array->offsets[0] = 0;
  }
  if (field->n_children > 0) {
    array->children = inlet_calloc((size_t)field->n_children, sizeof *array->children);
    if (!array->children) {
      inlet_array_reset(array);
      return inlet_fail(err, INLET_ENOMEM, "out of memory creating array");
    }
    for (int32_t i = 0; i < field->n_children; i++) {
      int rc = inlet_array_init(&array->children[i], &field->children[i], err);
      if (rc < 0) {
        array->n_children = i;
        inlet_array_reset(array);
        return rc;
      }
    }
    array->n_children = field->n_children;
  }
  return 0;
}

void inlet_array_reset(inlet_array *array) {
  if (!array) return;
  for (int32_t i = 0; i < array->n_children; i++)
    inlet_array_reset(&array->children[i]);
  inlet_free(array->children);
  inlet_free(array->validity);
  inlet_free(array->offsets);
  inlet_free(array->values);
  inlet_free(array->builder);
  memset(array, 0, sizeof *array);
}

void inlet_array_clear(inlet_array *array) {
  array->length = 0;
  array->null_count = 0;
  /* Dropping the bitmap keeps the "NULL when no nulls" promise for the next
   * batch; it is small and reallocated only when a null appears. */
  batch_array_drop_validity(array);
  if (array->offsets) array->offsets[0] = 0;
  for (int32_t i = 0; i < array->n_children; i++)
    inlet_array_clear(&array->children[i]);
}

int inlet_array_ensure_validity(inlet_array *a, inlet_error *err) {
  if (a->validity) return 0;
  int64_t rows = a->length;
  int64_t reserved = a->builder ? a->builder->reserved_rows : 0;
  int64_t room = rows > reserved ? rows : reserved;
  TRY(grow_validity(a, (room + 7) / 8 + 1, err));
  memset(a->validity, 0xff, (size_t)((rows + 7) / 8));
  /* Bits past length stay zero so later appends see a clean slate. */
  if (rows & 7) a->validity[rows >> 3] = (uint8_t)((1u << (rows & 7)) - 1);
  return 0;
}

/* Records row a->length as valid (if a bitmap exists) and bumps length. */
static inline int push_valid(inlet_array *a, inlet_error *err) {
  if (a->validity) {
    if (INLET_UNLIKELY((a->length >> 3) >= batch_validity_cap(a)))
      TRY(grow_validity(a, (a->length >> 3) + 1, err));
    inlet_bit_set(a->validity, a->length, true);
  }
  a->length++;
  return 0;
}

static inline int reserve_values(inlet_array *a, int64_t bytes, inlet_error *err) {
  if (INLET_LIKELY(bytes <= batch_values_cap(a))) return 0;
  return grow_values(a, bytes, err);
}

/* Always inlined: each caller's constant width makes the copy one store
 * (a call to memcpy per value showed in the ingest profile). */
static inline __attribute__((always_inline)) int push_fixed(inlet_array *a, const void *v,
                                                            int32_t width, inlet_error *err) {
  TRY(reserve_values(a, (a->length + 1) * width, err));
  memcpy(a->values + a->length * width, v, (size_t)width);
  return push_valid(a, err);
}

int inlet_array_append_bool(inlet_array *a, bool v, inlet_error *err) {
  TRY(reserve_values(a, (a->length >> 3) + 1, err));
  inlet_bit_set(a->values, a->length, v);
  return push_valid(a, err);
}

int inlet_array_append_int(inlet_array *a, const inlet_field *field, int64_t v, inlet_error *err) {
  switch (inlet_type_value_width(&field->type)) {
  case 1: {
    uint8_t x = (uint8_t)v;
    return push_fixed(a, &x, 1, err);
  }
  case 2: {
    uint16_t x = (uint16_t)v;
    return push_fixed(a, &x, 2, err);
  }
  case 4: {
    uint32_t x = (uint32_t)v;
    return push_fixed(a, &x, 4, err);
  }
  case 8: return push_fixed(a, &v, 8, err);
  default: return inlet_fail(err, INLET_EINVAL, "column \"%s\" is not integer-backed", field->name);
  }
}

int inlet_array_append_uint64(inlet_array *a, uint64_t v, inlet_error *err) {
  return push_fixed(a, &v, 8, err);
}
int inlet_array_append_float(inlet_array *a, float v, inlet_error *err) {
  return push_fixed(a, &v, 4, err);
}
int inlet_array_append_double(inlet_array *a, double v, inlet_error *err) {
  return push_fixed(a, &v, 8, err);
}
int inlet_array_append_decimal(inlet_array *a, const uint8_t value[16], inlet_error *err) {
  return push_fixed(a, value, 16, err);
}

/* Appends one offset entry ending at @p end. */
static int push_offset(inlet_array *a, int64_t end, inlet_error *err) {
  if (end > INT32_MAX)
    return inlet_fail(err, INLET_ELIMIT, "array data exceeds 2 GiB (int32 offsets)");
  if (INLET_UNLIKELY((a->length + 2) * 4 > batch_offsets_cap(a)))
    TRY(grow_offsets(a, a->length + 2, err));
  a->offsets[a->length + 1] = (int32_t)end;
  return 0;
}

int inlet_array_append_bytes(inlet_array *a, const inlet_field *field, const void *data, size_t len,
                             inlet_error *err) {
  if (field->type.id == INLET_TYPE_FIXED_BINARY) {
    FAIL_IF((int64_t)len != field->type.byte_width, err, INLET_EINVAL,
            "column \"%s\": value of %zu bytes for fixed(%d)", field->name, len,
            (int)field->type.byte_width);
    if (len == 0) return push_valid(a, err);
    return push_fixed(a, data, (int32_t)len, err);
  }
  int64_t start = a->offsets[a->length];
  if (len > (size_t)INT32_MAX || start + (int64_t)len > INT32_MAX)
    return inlet_fail(err, INLET_ELIMIT, "column \"%s\": data exceeds 2 GiB (int32 offsets)",
                      field->name);
  int64_t end = start + (int64_t)len;
  TRY(reserve_values(a, end, err));
  if (len) memcpy(a->values + start, data, len);
  TRY(push_offset(a, end, err));
  return push_valid(a, err);
}

int inlet_array_append_list_entry(inlet_array *a, inlet_error *err) {
  TRY(push_offset(a, a->n_children > 0 ? a->children[0].length : 0, err));
  return push_valid(a, err);
}

int inlet_array_append_struct_entry(inlet_array *a, inlet_error *err) {
  return push_valid(a, err);
}

/* Appends a placeholder slot (zero value / empty entry), valid for now. */
static int append_empty(inlet_array *a, const inlet_field *field, inlet_error *err) {
  switch (field->type.id) {
  case INLET_TYPE_BOOL: return inlet_array_append_bool(a, false, err);
  case INLET_TYPE_STRING:
  case INLET_TYPE_BINARY:
  case INLET_TYPE_LIST:
  case INLET_TYPE_MAP: TRY(push_offset(a, a->offsets[a->length], err)); return push_valid(a, err);
  case INLET_TYPE_STRUCT:
    for (int32_t i = 0; i < field->n_children && i < a->n_children; i++) {
      const inlet_field *cf = &field->children[i];
      TRY(cf->nullable ? inlet_array_append_null(&a->children[i], cf, err)
                       : append_empty(&a->children[i], cf, err));
    }
    return push_valid(a, err);
  default: {
    int32_t w = inlet_type_value_width(&field->type);
    if (w <= 0) return push_valid(a, err);
    TRY(reserve_values(a, (a->length + 1) * w, err));
    memset(a->values + a->length * w, 0, (size_t)w);
    return push_valid(a, err);
  }
  }
}

int inlet_array_append_null(inlet_array *a, const inlet_field *field, inlet_error *err) {
  TRY(inlet_array_ensure_validity(a, err));
  TRY(append_empty(a, field, err));
  inlet_bit_set(a->validity, a->length - 1, false);
  a->null_count++;
  return 0;
}

int inlet_array_reserve_rows(inlet_array *a, const inlet_field *field, int64_t rows,
                             inlet_error *err) {
  int64_t total;
  FAIL_IF(rows < 0 || inlet_add_overflow_i64(a->length, rows, &total) || total > INT32_MAX, err,
          INLET_ELIMIT, "column \"%s\": cannot reserve %lld rows", field->name, (long long)rows);
  if (a->validity) TRY(grow_validity(a, (total + 7) / 8 + 1, err));
  batch_builder *b = batch_array_builder(a, err);
  if (!b) return INLET_ENOMEM;
  if (total > b->reserved_rows) b->reserved_rows = total;
  switch (field->type.id) {
  case INLET_TYPE_BOOL: return reserve_values(a, (total + 7) / 8 + 1, err);
  case INLET_TYPE_STRING:
  case INLET_TYPE_BINARY:
  case INLET_TYPE_LIST:
  case INLET_TYPE_MAP: return grow_offsets(a, total + 1, err);
  default: {
    int32_t w = inlet_type_value_width(&field->type);
    return w > 0 ? reserve_values(a, total * w, err) : 0;
  }
  }
}

int inlet_array_reserve_data(inlet_array *a, int64_t bytes, inlet_error *err) {
  int64_t used = a->offsets ? a->offsets[a->length] : 0, need;
  FAIL_IF(bytes < 0 || inlet_add_overflow_i64(used, bytes, &need), err, INLET_ELIMIT,
          "cannot reserve %lld data bytes", (long long)bytes);
  return reserve_values(a, need, err);
}

/* ---- batches ------------------------------------------------------------ */

int inlet_batch_init(inlet_batch *batch, const inlet_schema *schema, inlet_error *err) {
  memset(batch, 0, sizeof *batch);
  TRY(inlet_schema_copy(&batch->schema, schema, err));
  if (schema->n_fields == 0) return 0;
  batch->columns = inlet_calloc((size_t)schema->n_fields, sizeof *batch->columns);
  if (!batch->columns) {
    inlet_schema_reset(&batch->schema);
    return inlet_fail(err, INLET_ENOMEM, "out of memory creating batch");
  }
  for (int32_t i = 0; i < schema->n_fields; i++) {
    int rc = inlet_array_init(&batch->columns[i], &batch->schema.fields[i], err);
    if (rc < 0) {
      for (int32_t j = 0; j < i; j++)
        inlet_array_reset(&batch->columns[j]);
      inlet_free(batch->columns);
      inlet_schema_reset(&batch->schema);
      memset(batch, 0, sizeof *batch);
      return rc;
    }
  }
  return 0;
}

void inlet_batch_reset(inlet_batch *batch) {
  if (!batch) return;
  if (batch->columns)
    for (int32_t i = 0; i < batch->schema.n_fields; i++)
      inlet_array_reset(&batch->columns[i]);
  inlet_free(batch->columns);
  inlet_schema_reset(&batch->schema);
  memset(batch, 0, sizeof *batch);
}

void inlet_batch_clear(inlet_batch *batch) {
  for (int32_t i = 0; i < batch->schema.n_fields; i++)
    inlet_array_clear(&batch->columns[i]);
  batch->num_rows = 0;
}

static int validate_array(const inlet_array *a, const inlet_field *f, int64_t length, int depth,
                          inlet_error *err) {
  const char *name = f->name ? f->name : "?";
  FAIL_IF(depth > 64, err, INLET_EINVAL, "column \"%s\": nested too deeply", name);
  FAIL_IF(a->length != length, err, INLET_EINVAL, "column \"%s\": length %lld, expected %lld", name,
          (long long)a->length, (long long)length);
  FAIL_IF(a->null_count < 0 || a->null_count > length, err, INLET_EINVAL,
          "column \"%s\": null_count %lld out of range", name, (long long)a->null_count);
  if (a->validity) {
    FAIL_IF(batch_validity_cap(a) < (length + 7) / 8, err, INLET_EINVAL,
            "column \"%s\": validity bitmap too short", name);
    int64_t nulls = 0;
    for (int64_t i = 0; i < length; i++)
      nulls += !inlet_bit_get(a->validity, i);
    FAIL_IF(nulls != a->null_count, err, INLET_EINVAL,
            "column \"%s\": null_count %lld but the bitmap has %lld nulls", name,
            (long long)a->null_count, (long long)nulls);
  } else {
    FAIL_IF(a->null_count != 0, err, INLET_EINVAL,
            "column \"%s\": null_count %lld without a validity bitmap", name,
            (long long)a->null_count);
  }
  inlet_type_id id = f->type.id;
  if (has_offsets(id)) {
    FAIL_IF(!a->offsets || batch_offsets_cap(a) < (length + 1) * 4, err, INLET_EINVAL,
            "column \"%s\": offsets buffer too short", name);
    FAIL_IF(a->offsets[0] != 0, err, INLET_EINVAL, "column \"%s\": offsets[0] is %d", name,
            (int)a->offsets[0]);
    for (int64_t i = 0; i < length; i++)
      FAIL_IF(a->offsets[i + 1] < a->offsets[i], err, INLET_EINVAL,
              "column \"%s\": offsets decrease at row %lld", name, (long long)i);
    int64_t end = a->offsets[length];
    if (id == INLET_TYPE_STRING || id == INLET_TYPE_BINARY) {
      FAIL_IF(end > batch_values_cap(a) || (end > 0 && !a->values), err, INLET_EINVAL,
              "column \"%s\": offsets point past the data buffer", name);
      return 0;
    }
    FAIL_IF(a->n_children != 1 || f->n_children != 1, err, INLET_EINVAL,
            "column \"%s\": list/map needs exactly one child", name);
    return validate_array(&a->children[0], &f->children[0], end, depth + 1, err);
  }
  if (id == INLET_TYPE_STRUCT) {
    FAIL_IF(a->n_children != f->n_children, err, INLET_EINVAL,
            "column \"%s\": %d child arrays for %d fields", name, (int)a->n_children,
            (int)f->n_children);
    for (int32_t i = 0; i < f->n_children; i++)
      TRY(validate_array(&a->children[i], &f->children[i], length, depth + 1, err));
    return 0;
  }
  int64_t need =
      id == INLET_TYPE_BOOL ? (length + 7) / 8 : length * (int64_t)inlet_type_value_width(&f->type);
  FAIL_IF(need > 0 && (!a->values || batch_values_cap(a) < need), err, INLET_EINVAL,
          "column \"%s\": values buffer too short", name);
  FAIL_IF(id == INLET_TYPE_INVALID, err, INLET_EINVAL, "column \"%s\": invalid type", name);
  return 0;
}

int inlet_batch_validate(const inlet_batch *batch, inlet_error *err) {
  FAIL_IF(batch->num_rows < 0, err, INLET_EINVAL, "batch: negative row count");
  FAIL_IF(batch->schema.n_fields > 0 && !batch->columns, err, INLET_EINVAL, "batch: no columns");
  for (int32_t i = 0; i < batch->schema.n_fields; i++) {
    const inlet_field *f = &batch->schema.fields[i];
    TRY(validate_array(&batch->columns[i], f, batch->num_rows, 0, err));
    FAIL_IF(!f->nullable && batch->columns[i].null_count > 0, err, INLET_EINVAL,
            "column \"%s\": %lld nulls in a NOT NULL column", f->name,
            (long long)batch->columns[i].null_count);
  }
  return 0;
}

static int64_t array_memory(const inlet_array *a) {
  int64_t n = batch_validity_cap(a) + batch_offsets_cap(a) + batch_values_cap(a);
  for (int32_t i = 0; i < a->n_children; i++)
    n += array_memory(&a->children[i]);
  return n;
}

int64_t inlet_batch_memory(const inlet_batch *batch) {
  int64_t n = 0;
  for (int32_t i = 0; i < batch->schema.n_fields; i++)
    n += array_memory(&batch->columns[i]);
  return n;
}

int inlet_array_append_from(inlet_array *dst, const inlet_field *f, const inlet_array *src,
                            int64_t row, inlet_error *err) {
  if (!inlet_array_is_valid(src, row)) return inlet_array_append_null(dst, f, err);
  switch (f->type.id) {
  case INLET_TYPE_BOOL: return inlet_array_append_bool(dst, inlet_bit_get(src->values, row), err);
  case INLET_TYPE_STRING:
  case INLET_TYPE_BINARY:
    /* An array of empty strings may have no value buffer at all. */
    return inlet_array_append_bytes(
        dst, f, src->values ? src->values + src->offsets[row] : (const uint8_t *)"",
        (size_t)(src->offsets[row + 1] - src->offsets[row]), err);
  case INLET_TYPE_STRUCT:
    for (int32_t c = 0; c < f->n_children; c++)
      TRY(inlet_array_append_from(&dst->children[c], &f->children[c], &src->children[c], row, err));
    return inlet_array_append_struct_entry(dst, err);
  case INLET_TYPE_LIST:
  case INLET_TYPE_MAP:
    for (int32_t j = src->offsets[row]; j < src->offsets[row + 1]; j++)
      TRY(inlet_array_append_from(&dst->children[0], &f->children[0], &src->children[0], j, err));
    return inlet_array_append_list_entry(dst, err);
  default: {
    int32_t wd = inlet_type_value_width(&f->type);
    if (f->type.id == INLET_TYPE_FIXED_BINARY)
      return inlet_array_append_bytes(dst, f, src->values + row * wd, (size_t)wd, err);
    if (f->type.id == INLET_TYPE_DECIMAL)
      return inlet_array_append_decimal(dst, src->values + row * 16, err);
    if (f->type.id == INLET_TYPE_FLOAT)
      return inlet_array_append_float(dst, ((const float *)src->values)[row], err);
    if (f->type.id == INLET_TYPE_DOUBLE)
      return inlet_array_append_double(dst, ((const double *)src->values)[row], err);
    int64_t v;
    switch (wd) {
    case 1: v = ((const int8_t *)src->values)[row]; break;
    case 2: v = ((const int16_t *)src->values)[row]; break;
    case 4: v = ((const int32_t *)src->values)[row]; break;
    default: v = ((const int64_t *)src->values)[row]; break;
    }
    return inlet_array_append_int(dst, f, v, err);
  }
  }
}

/* Copies @p n bits from @p src at @p from to @p dst at @p at (both buffers
 * large enough). Whole bytes when both positions are byte-aligned. */
static void copy_bits(uint8_t *dst, int64_t at, const uint8_t *src, int64_t from, int64_t n) {
  int64_t i = 0;
  if (((at | from) & 7) == 0) {
    memcpy(dst + (at >> 3), src + (from >> 3), (size_t)(n >> 3));
    i = n & ~(int64_t)7;
  }
  for (; i < n; i++)
    inlet_bit_set(dst, at + i, inlet_bit_get(src, from + i));
}

/* Validity of rows [from, from + n) of @p src after @p dst's rows; the
 * bitmap appears in dst only when a null comes (as row by row). */
static int append_validity(inlet_array *dst, const inlet_array *src, int64_t from, int64_t n,
                           inlet_error *err) {
  int64_t nulls = 0;
  if (src->validity)
    for (int64_t i = 0; i < n; i++)
      nulls += !inlet_bit_get(src->validity, from + i);
  if (nulls > 0) TRY(inlet_array_ensure_validity(dst, err));
  if (!dst->validity) return 0;
  TRY(grow_validity(dst, (dst->length + n + 7) / 8 + 1, err));
  if (src->validity) {
    copy_bits(dst->validity, dst->length, src->validity, from, n);
  } else {
    for (int64_t i = 0; i < n; i++)
      inlet_bit_set(dst->validity, dst->length + i, true);
  }
  dst->null_count += nulls;
  return 0;
}

int batch_array_append_range(inlet_array *dst, const inlet_field *f, const inlet_array *src,
                             int64_t from, int64_t n, inlet_error *err) {
  if (n <= 0) return 0;
  TRY(append_validity(dst, src, from, n, err));
  inlet_type_id id = f->type.id;
  if (id == INLET_TYPE_BOOL) {
    TRY(reserve_values(dst, (dst->length + n + 7) / 8 + 1, err));
    copy_bits(dst->values, dst->length, src->values, from, n);
  } else if (has_offsets(id)) {
    int64_t base = src->offsets[from], len = src->offsets[from + n] - base;
    int64_t start = dst->offsets[dst->length];
    if (start + len > INT32_MAX)
      return inlet_fail(err, INLET_ELIMIT, "column \"%s\": data exceeds 2 GiB (int32 offsets)",
                        f->name);
    if ((dst->length + n + 1) * 4 > batch_offsets_cap(dst))
      TRY(grow_offsets(dst, dst->length + n + 1, err));
    for (int64_t i = 1; i <= n; i++)
      dst->offsets[dst->length + i] = (int32_t)(start + src->offsets[from + i] - base);
    if (id == INLET_TYPE_STRING || id == INLET_TYPE_BINARY) {
      TRY(reserve_values(dst, start + len, err));
      if (len) memcpy(dst->values + start, src->values + base, (size_t)len);
    } else {
      TRY(batch_array_append_range(&dst->children[0], &f->children[0], &src->children[0], base, len,
                                   err));
    }
  } else if (id == INLET_TYPE_STRUCT) {
    for (int32_t c = 0; c < f->n_children; c++)
      TRY(batch_array_append_range(&dst->children[c], &f->children[c], &src->children[c], from, n,
                                   err));
  } else {
    int64_t w = inlet_type_value_width(&f->type);
    if (w > 0) {
      TRY(reserve_values(dst, (dst->length + n) * w, err));
      memcpy(dst->values + dst->length * w, src->values + from * w, (size_t)(n * w));
    }
  }
  dst->length += n;
  return 0;
}

int batch_append_range(inlet_batch *dst, const inlet_batch *src, int64_t from, int64_t n,
                       inlet_error *err) {
  for (int32_t c = 0; c < dst->schema.n_fields; c++)
    TRY(batch_array_append_range(&dst->columns[c], &dst->schema.fields[c], &src->columns[c], from,
                                 n, err));
  dst->num_rows += n;
  return 0;
}

static int64_t array_used_bytes(const inlet_array *a, const inlet_field *f) {
  int64_t n = a->validity ? (a->length + 7) / 8 : 0;
  inlet_type_id id = f->type.id;
  if (id == INLET_TYPE_BOOL) {
    n += (a->length + 7) / 8;
  } else if (has_offsets(id)) {
    n += (a->length + 1) * 4;
    if (id == INLET_TYPE_STRING || id == INLET_TYPE_BINARY)
      n += a->offsets[a->length];
    else
      n += array_used_bytes(&a->children[0], &f->children[0]);
  } else if (id == INLET_TYPE_STRUCT) {
    for (int32_t c = 0; c < f->n_children; c++)
      n += array_used_bytes(&a->children[c], &f->children[c]);
  } else {
    n += a->length * (int64_t)inlet_type_value_width(&f->type);
  }
  return n;
}

int64_t batch_used_bytes(const inlet_batch *b) {
  int64_t n = 0;
  for (int32_t c = 0; c < b->schema.n_fields; c++)
    n += array_used_bytes(&b->columns[c], &b->schema.fields[c]);
  return n;
}
