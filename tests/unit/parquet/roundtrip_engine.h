/*
 * Round-trip property engine for the Parquet codec (issue 2, section 5
 * "Proof": round trip and property tests), shared by
 * tests/unit/parquet/test_roundtrip_property.c and
 * fuzz/parquet_roundtrip_fuzzer.c.
 *
 * From a stream of choices (a seeded PRNG in the test, the fuzzer's input
 * bytes in the fuzzer) it derives a flat schema covering every type inlet
 * writes (decimals on each physical width, fixed binary, UUID, JSON/ENUM/BSON,
 * dates, times and timestamps in every unit), rows with boundary values
 * (integer limits, NaNs with distinct payloads, -0.0, infinities, empty and
 * 1 MiB strings) and null patterns (none, all, mixed, long runs), and writer
 * options (every codec, dictionary on/off, tiny pages, row groups and
 * dictionary limits to force many pages, many row groups and dictionary
 * fallback). It writes the rows through the public API, reads them back and
 * compares bit for bit (floats by their bits, so NaN payloads and -0.0 must
 * survive), then again through a random column projection.
 *
 * Expectations that follow the Parquet mapping rather than identity: TIME and
 * TIMESTAMP in seconds are written as MILLIS (pq_schema.h), so they read back
 * in milliseconds with the value times 1000.
 *
 * Header-only with static functions so that each user compiles its own copy;
 * it uses include/inlet, the C library and, to copy pages (rt_verify_copy),
 * the Parquet module's reader and writer headers.
 */
#ifndef INLET_TEST_ROUNDTRIP_ENGINE_H
#define INLET_TEST_ROUNDTRIP_ENGINE_H

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inlet/batch.h"
#include "inlet/error.h"
#include "inlet/parquet.h"
#include "parquet/pq_reader.h"
#include "parquet/pq_writer.h"

#define RT_FN static __attribute__((unused))

/* ---- choices ---------------------------------------------------------- */

typedef struct rt_src {
  uint64_t state;      /* splitmix64 state when data is NULL */
  const uint8_t *data; /* fuzzer input: choices are read from it, then zeros */
  size_t len, pos;
} rt_src;

RT_FN void rt_src_seed(rt_src *s, uint64_t seed) {
  memset(s, 0, sizeof *s);
  s->state = seed;
}

RT_FN void rt_src_bytes(rt_src *s, const uint8_t *data, size_t len) {
  memset(s, 0, sizeof *s);
  s->data = data;
  s->len = len;
}

RT_FN uint64_t rt_u64(rt_src *s) {
  if (s->data) {
    uint64_t v = 0;
    for (int i = 0; i < 8 && s->pos < s->len; i++)
      v |= (uint64_t)s->data[s->pos++] << (8 * i);
    return v;
  }
  uint64_t z = (s->state += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

/* A small choice in [0, n): one byte from fuzzer input keeps inputs short. */
RT_FN uint64_t rt_below(rt_src *s, uint64_t n) {
  if (n <= 1) return 0;
  if (s->data && n <= 256) {
    uint64_t v = s->pos < s->len ? s->data[s->pos++] : 0;
    return v % n;
  }
  return rt_u64(s) % n;
}

RT_FN bool rt_chance(rt_src *s, unsigned one_in) {
  return rt_below(s, one_in) == 0;
}

/* ---- limits ----------------------------------------------------------- */

typedef struct rt_limits {
  int max_cols;     /* columns per schema, >= 1 */
  int64_t max_rows; /* rows per file */
  int max_batches;  /* writer_write calls per file */
  int huge_strings; /* 1 MiB strings allowed per file (0 = none) */
} rt_limits;

/* ---- schema ----------------------------------------------------------- */

enum {
  RT_K_BOOL,
  RT_K_INT8,
  RT_K_INT16,
  RT_K_INT32,
  RT_K_INT64,
  RT_K_UINT8,
  RT_K_UINT16,
  RT_K_UINT32,
  RT_K_UINT64,
  RT_K_FLOAT,
  RT_K_DOUBLE,
  RT_K_STRING,
  RT_K_JSON,
  RT_K_ENUM,
  RT_K_BINARY,
  RT_K_BSON,
  RT_K_FIXED,
  RT_K_UUID,
  RT_K_DATE,
  RT_K_TIME,
  RT_K_TIMESTAMP,
  RT_K_DEC32,
  RT_K_DEC64,
  RT_K_DECFLBA,
  RT_K_COUNT
};

/* Fills @p f (name owned by the caller's buffer @p name) with type kind @p k. */
RT_FN void rt_field_of_kind(rt_src *s, inlet_field *f, int k, char *name) {
  memset(f, 0, sizeof *f);
  f->name = name;
  f->field_id = -1;
  inlet_type *t = &f->type;
  static const inlet_type_id simple[] = {
      [RT_K_BOOL] = INLET_TYPE_BOOL,           [RT_K_INT8] = INLET_TYPE_INT8,
      [RT_K_INT16] = INLET_TYPE_INT16,         [RT_K_INT32] = INLET_TYPE_INT32,
      [RT_K_INT64] = INLET_TYPE_INT64,         [RT_K_UINT8] = INLET_TYPE_UINT8,
      [RT_K_UINT16] = INLET_TYPE_UINT16,       [RT_K_UINT32] = INLET_TYPE_UINT32,
      [RT_K_UINT64] = INLET_TYPE_UINT64,       [RT_K_FLOAT] = INLET_TYPE_FLOAT,
      [RT_K_DOUBLE] = INLET_TYPE_DOUBLE,       [RT_K_STRING] = INLET_TYPE_STRING,
      [RT_K_JSON] = INLET_TYPE_STRING,         [RT_K_ENUM] = INLET_TYPE_STRING,
      [RT_K_BINARY] = INLET_TYPE_BINARY,       [RT_K_BSON] = INLET_TYPE_BINARY,
      [RT_K_FIXED] = INLET_TYPE_FIXED_BINARY,  [RT_K_UUID] = INLET_TYPE_FIXED_BINARY,
      [RT_K_DATE] = INLET_TYPE_DATE,           [RT_K_TIME] = INLET_TYPE_TIME,
      [RT_K_TIMESTAMP] = INLET_TYPE_TIMESTAMP, [RT_K_DEC32] = INLET_TYPE_DECIMAL,
      [RT_K_DEC64] = INLET_TYPE_DECIMAL,       [RT_K_DECFLBA] = INLET_TYPE_DECIMAL};
  t->id = simple[k];
  switch (k) {
  case RT_K_JSON: t->ext = INLET_EXT_JSON; break;
  case RT_K_ENUM: t->ext = INLET_EXT_ENUM; break;
  case RT_K_BSON: t->ext = INLET_EXT_BSON; break;
  case RT_K_FIXED: t->byte_width = 1 + (int32_t)rt_below(s, 24); break;
  case RT_K_UUID:
    t->byte_width = 16;
    t->ext = INLET_EXT_UUID;
    break;
  case RT_K_TIME:
  case RT_K_TIMESTAMP:
    t->unit = (inlet_time_unit)rt_below(s, 4);
    t->utc = rt_chance(s, 2);
    break;
  case RT_K_DEC32: t->precision = 1 + (int32_t)rt_below(s, 9); break;
  case RT_K_DEC64: t->precision = 10 + (int32_t)rt_below(s, 9); break;
  case RT_K_DECFLBA: t->precision = 19 + (int32_t)rt_below(s, 20); break;
  default: break;
  }
  if (t->id == INLET_TYPE_DECIMAL) t->scale = (int32_t)rt_below(s, (uint64_t)t->precision + 1);
}

/* Column names live here so that fields can point at them. */
typedef struct rt_names {
  char name[64][24];
} rt_names;

RT_FN int rt_gen_schema(rt_src *s, const rt_limits *lim, inlet_schema *schema, rt_names *names,
                        inlet_error *err) {
  inlet_schema_init(schema);
  int max = lim->max_cols < 1 ? 1 : lim->max_cols > 64 ? 64 : lim->max_cols;
  int n = 1 + (int)rt_below(s, (uint64_t)max);
  for (int c = 0; c < n; c++) {
    inlet_field f;
    snprintf(names->name[c], sizeof names->name[c], "c%d", c);
    rt_field_of_kind(s, &f, (int)rt_below(s, RT_K_COUNT), names->name[c]);
    f.nullable = !rt_chance(s, 3);
    int rc = inlet_schema_add_field(schema, &f, err);
    if (rc != 0) return rc;
  }
  return 0;
}

/* ---- values ----------------------------------------------------------- */

/* 10^p - 1 as a 128-bit integer, the largest unscaled DECIMAL(p) value. */
RT_FN __int128 rt_dec_max(int32_t p) {
  __int128 v = 1;
  for (int32_t i = 0; i < p; i++)
    v *= 10;
  return v - 1;
}

static const uint64_t rt_double_specials[] __attribute__((unused)) = {
    UINT64_C(0x7ff8000000000000), /* quiet NaN */
    UINT64_C(0xfff8000000000000), /* negative quiet NaN */
    UINT64_C(0x7ff0000000000001), /* signalling NaN, smallest payload */
    UINT64_C(0x7ff8000000000123), /* quiet NaN with a payload */
    UINT64_C(0x7ff0000000000000), /* +inf */
    UINT64_C(0xfff0000000000000), /* -inf */
    UINT64_C(0x0000000000000000), /* +0.0 */
    UINT64_C(0x8000000000000000), /* -0.0 */
    UINT64_C(0x0000000000000001), /* smallest subnormal */
    UINT64_C(0x0010000000000000), /* DBL_MIN */
    UINT64_C(0x7fefffffffffffff), /* DBL_MAX */
    UINT64_C(0xffefffffffffffff), /* -DBL_MAX */
};
static const uint32_t rt_float_specials[] __attribute__((unused)) = {
    0x7fc00000u, 0xffc00000u, 0x7f800001u, 0x7fc00123u, 0x7f800000u, 0xff800000u,
    0x00000000u, 0x80000000u, 0x00000001u, 0x00800000u, 0x7f7fffffu, 0xff7fffffu,
};

/* One generated value: integers in i/u, floats as bits, bytes in buf/len. */
typedef struct rt_value {
  int64_t i;
  uint64_t u;
  uint8_t dec[16];
  uint8_t *bytes; /* points into buf or a caller-provided big buffer */
  size_t len;
  uint8_t buf[64];
} rt_value;

/* Integer of @p bits bits, signed or not, boundary values often. */
RT_FN uint64_t rt_gen_int_bits(rt_src *s, int bits, bool sign, bool boundary) {
  uint64_t mask = bits == 64 ? ~UINT64_C(0) : ((UINT64_C(1) << bits) - 1);
  if (boundary) {
    switch (rt_below(s, 6)) {
    case 0: return 0;
    case 1: return 1;
    case 2: return mask;                        /* -1 or unsigned max */
    case 3: return sign ? mask >> 1 : mask - 1; /* max */
    case 4: return sign ? (mask >> 1) + 1 : 1;  /* min */
    default: return sign ? (mask >> 1) - 1 : mask >> 1;
    }
  }
  uint64_t v = rt_u64(s);
  /* Small magnitudes are common in real data and change bit widths. */
  if (rt_chance(s, 2)) v &= (UINT64_C(1) << rt_below(s, (uint64_t)bits)) - 1;
  return v & mask;
}

RT_FN int64_t rt_sext(uint64_t v, int bits) {
  if (bits == 64) return (int64_t)v;
  uint64_t sign = UINT64_C(1) << (bits - 1);
  return (int64_t)((v ^ sign) - sign);
}

RT_FN int64_t rt_time_day(inlet_time_unit u) {
  static const int64_t per_day[] = {86400, 86400000, INT64_C(86400000000), INT64_C(86400000000000)};
  return per_day[u];
}

/* Generates one value of @p f into @p v. @p huge (may be NULL) is a 1 MiB
 * buffer used when a huge string is requested through *huge_left. */
RT_FN void rt_gen_value(rt_src *s, const inlet_field *f, bool boundary, rt_value *v, uint8_t *huge,
                        size_t huge_len, int *huge_left) {
  const inlet_type *t = &f->type;
  memset(v, 0, offsetof(rt_value, buf));
  v->bytes = v->buf;
  switch (t->id) {
  case INLET_TYPE_BOOL: v->i = (int64_t)rt_below(s, 2); break;
  case INLET_TYPE_INT8: v->i = rt_sext(rt_gen_int_bits(s, 8, true, boundary), 8); break;
  case INLET_TYPE_INT16: v->i = rt_sext(rt_gen_int_bits(s, 16, true, boundary), 16); break;
  case INLET_TYPE_INT32:
  case INLET_TYPE_DATE: v->i = rt_sext(rt_gen_int_bits(s, 32, true, boundary), 32); break;
  case INLET_TYPE_INT64: v->i = (int64_t)rt_gen_int_bits(s, 64, true, boundary); break;
  case INLET_TYPE_UINT8: v->i = (int64_t)rt_gen_int_bits(s, 8, false, boundary); break;
  case INLET_TYPE_UINT16: v->i = (int64_t)rt_gen_int_bits(s, 16, false, boundary); break;
  case INLET_TYPE_UINT32: v->i = (int64_t)rt_gen_int_bits(s, 32, false, boundary); break;
  case INLET_TYPE_UINT64: v->u = rt_gen_int_bits(s, 64, false, boundary); break;
  case INLET_TYPE_TIMESTAMP:
    v->i = (int64_t)rt_gen_int_bits(s, 64, true, boundary);
    /* Seconds are stored as millis: keep v * 1000 in range. */
    if (t->unit == INLET_UNIT_SECOND) v->i /= 1000;
    break;
  case INLET_TYPE_TIME: {
    int64_t day = rt_time_day(t->unit);
    v->i = boundary ? (rt_chance(s, 2) ? 0 : day - 1) : (int64_t)(rt_u64(s) % (uint64_t)day);
    break;
  }
  case INLET_TYPE_FLOAT: {
    uint32_t b = boundary ? rt_float_specials[rt_below(s, 12)] : (uint32_t)rt_u64(s);
    memcpy(v->buf, &b, 4);
    break;
  }
  case INLET_TYPE_DOUBLE: {
    uint64_t b = boundary ? rt_double_specials[rt_below(s, 12)] : rt_u64(s);
    if (!boundary && rt_chance(s, 2)) { /* ordinary amounts, as in events */
      double d = (double)(int64_t)(rt_u64(s) % 2000000 - 1000000) / 100.0;
      memcpy(&b, &d, 8);
    }
    memcpy(v->buf, &b, 8);
    break;
  }
  case INLET_TYPE_DECIMAL: {
    __int128 max = rt_dec_max(t->precision), x;
    if (boundary) {
      static const int pick[] = {0, 1, -1, 2, -2};
      int k = (int)rt_below(s, 5);
      x = k == 3 ? max : k == 4 ? -max : pick[k];
    } else {
      unsigned __int128 r = ((unsigned __int128)rt_u64(s) << 64) | rt_u64(s);
      x = (__int128)(r % (unsigned __int128)(max + 1));
      if (rt_chance(s, 2)) x = -x;
    }
    unsigned __int128 ux = (unsigned __int128)x;
    for (int i = 0; i < 16; i++)
      v->dec[i] = (uint8_t)(ux >> (8 * i));
    break;
  }
  case INLET_TYPE_FIXED_BINARY:
    v->len = (size_t)t->byte_width;
    for (size_t i = 0; i < v->len; i++)
      v->buf[i] = boundary ? (uint8_t)(rt_chance(s, 2) ? 0 : 0xff) : (uint8_t)rt_u64(s);
    break;
  case INLET_TYPE_STRING:
  case INLET_TYPE_BINARY:
    if (huge && *huge_left > 0 && rt_chance(s, 4)) {
      (*huge_left)--;
      v->bytes = huge;
      v->len = huge_len;
      break;
    }
    if (boundary) {
      v->len = rt_below(s, 2); /* "" or one byte */
      v->buf[0] = t->id == INLET_TYPE_BINARY ? 0 : 'x';
      break;
    }
    v->len = rt_below(s, 40);
    for (size_t i = 0; i < v->len; i++) {
      if (t->id == INLET_TYPE_BINARY) {
        v->buf[i] = (uint8_t)rt_u64(s);
      } else if (i + 2 < v->len && rt_chance(s, 8)) { /* a 3-byte UTF-8 char: U+20AC */
        v->buf[i++] = 0xe2;
        v->buf[i++] = 0x82;
        v->buf[i] = 0xac;
      } else {
        v->buf[i] = (uint8_t)(' ' + rt_below(s, 95));
      }
    }
    break;
  default: break;
  }
}

RT_FN int rt_append_value(inlet_array *a, const inlet_field *f, const rt_value *v,
                          inlet_error *err) {
  switch (f->type.id) {
  case INLET_TYPE_BOOL: return inlet_array_append_bool(a, v->i != 0, err);
  case INLET_TYPE_UINT64: return inlet_array_append_uint64(a, v->u, err);
  case INLET_TYPE_FLOAT: {
    float x;
    memcpy(&x, v->buf, 4);
    return inlet_array_append_float(a, x, err);
  }
  case INLET_TYPE_DOUBLE: {
    double x;
    memcpy(&x, v->buf, 8);
    return inlet_array_append_double(a, x, err);
  }
  case INLET_TYPE_DECIMAL: return inlet_array_append_decimal(a, v->dec, err);
  case INLET_TYPE_STRING:
  case INLET_TYPE_BINARY:
  case INLET_TYPE_FIXED_BINARY: return inlet_array_append_bytes(a, f, v->bytes, v->len, err);
  default: return inlet_array_append_int(a, f, v->i, err);
  }
}

/* How a column's rows are drawn. */
typedef struct rt_colplan {
  int nulls;        /* 0 none, 1 all, 2 mixed, 3 long runs */
  unsigned null_in; /* mixed: a row is null one time in null_in */
  int values;       /* 0 random, 1 boundary-heavy, 2 few distinct (dictionary) */
  int64_t run_left; /* long runs: rows left in the current run */
  bool run_null;
  int pool_n; /* values == 2: pool size */
  uint64_t pool_seed;
} rt_colplan;

RT_FN void rt_plan_column(rt_src *s, const inlet_field *f, rt_colplan *p) {
  memset(p, 0, sizeof *p);
  p->nulls = f->nullable ? (int)rt_below(s, 4) : 0;
  static const unsigned null_in[] = {2, 10, 100};
  p->null_in = null_in[rt_below(s, 3)];
  p->values = (int)rt_below(s, 3);
  p->pool_n = 1 + (int)rt_below(s, 16);
  p->pool_seed = rt_u64(s);
}

/* Appends one row of column @p c following its plan. */
RT_FN int rt_gen_cell(rt_src *s, inlet_array *a, const inlet_field *f, rt_colplan *p, uint8_t *huge,
                      size_t huge_len, int *huge_left, inlet_error *err) {
  bool is_null = false;
  switch (p->nulls) {
  case 1: is_null = true; break;
  case 2: is_null = rt_below(s, p->null_in) == 0; break;
  case 3:
    if (p->run_left == 0) {
      p->run_null = !p->run_null;
      p->run_left = 1 + (int64_t)rt_below(s, 300);
    }
    p->run_left--;
    is_null = p->run_null;
    break;
  default: break;
  }
  if (is_null) return inlet_array_append_null(a, f, err);
  rt_value v;
  if (p->values == 2) {
    /* Few distinct values: a value drawn from a private stream seeded by the
     * pool slot, so equal slots give equal values. */
    rt_src pool;
    rt_src_seed(&pool, p->pool_seed + rt_below(s, (uint64_t)p->pool_n));
    rt_gen_value(&pool, f, rt_chance(&pool, 3), &v, NULL, 0, NULL);
  } else {
    bool boundary = p->values == 1 ? !rt_chance(s, 4) : rt_chance(s, 16);
    rt_gen_value(s, f, boundary, &v, huge, huge_len, huge_left);
  }
  return rt_append_value(a, f, &v, err);
}

/* ---- a case: schema, options, batches --------------------------------- */

#define RT_MAX_BATCHES 8

typedef struct rt_case {
  inlet_schema schema;
  rt_names names;
  inlet_parquet_writer_options opts;
  int n_batches;
  inlet_batch batches[RT_MAX_BATCHES];
  int64_t rows;
  uint8_t *huge;  /* owned 1 MiB buffer, or NULL */
  char desc[512]; /* what was chosen, for failure messages */
} rt_case;

static const inlet_compression rt_codecs[] __attribute__((unused)) = {
    INLET_COMPRESSION_UNCOMPRESSED, INLET_COMPRESSION_SNAPPY,  INLET_COMPRESSION_GZIP,
    INLET_COMPRESSION_ZSTD,         INLET_COMPRESSION_LZ4_RAW, INLET_COMPRESSION_BROTLI};
#define RT_N_CODECS 6

RT_FN void rt_gen_options(rt_src *s, inlet_parquet_writer_options *o) {
  inlet_parquet_writer_options d = INLET_PARQUET_WRITER_OPTIONS_INIT;
  *o = d;
  o->compression = rt_codecs[rt_below(s, RT_N_CODECS)];
  if (rt_chance(s, 3)) {
    if (o->compression == INLET_COMPRESSION_ZSTD) o->compression_level = 1 + (int)rt_below(s, 5);
    if (o->compression == INLET_COMPRESSION_GZIP) o->compression_level = 1 + (int)rt_below(s, 9);
    if (o->compression == INLET_COMPRESSION_BROTLI) o->compression_level = 1 + (int)rt_below(s, 5);
  }
  o->dictionary = !rt_chance(s, 3);
  if (rt_chance(s, 2)) o->page_bytes = 16 + (int64_t)rt_below(s, 4096);
  if (rt_chance(s, 2)) o->row_group_bytes = 256 + (int64_t)rt_below(s, 65536);
  if (rt_chance(s, 3)) o->row_group_max_rows = 1 + (int64_t)rt_below(s, 500);
  if (rt_chance(s, 2)) o->dictionary_page_bytes = 8 + (int64_t)rt_below(s, 512);
  if (rt_chance(s, 3)) o->statistics_truncate = 1 + (int32_t)rt_below(s, 16);
  /* DELTA_BINARY_PACKED for INT32/INT64-backed columns, or PLAIN only. */
  static const inlet_int_encoding int_enc[] = {INLET_INT_ENCODING_AUTO, INLET_INT_ENCODING_AUTO,
                                               INLET_INT_ENCODING_PLAIN, INLET_INT_ENCODING_DELTA};
  o->int_encoding = int_enc[rt_below(s, 4)];
  o->sync_on_close = false; /* durability is not under test; speed is */
  /* Drawn last, so the choices above stay what they were for old inputs. */
  if (rt_chance(s, 2)) o->page_max_rows = 1 + (int64_t)rt_below(s, 64);
  o->page_index = !rt_chance(s, 4);
}

RT_FN void rt_case_reset(rt_case *c) {
  for (int b = 0; b < c->n_batches; b++)
    inlet_batch_reset(&c->batches[b]);
  c->n_batches = 0;
  inlet_schema_reset(&c->schema);
  free(c->huge);
  c->huge = NULL;
}

/* Fills c->batches with @p rows rows for c->schema, split over random batches. */
RT_FN int rt_gen_rows(rt_src *s, const rt_limits *lim, rt_case *c, int64_t rows, inlet_error *err) {
  int n_cols = c->schema.n_fields;
  rt_colplan plans[64];
  for (int i = 0; i < n_cols; i++)
    rt_plan_column(s, &c->schema.fields[i], &plans[i]);
  int huge_left = lim->huge_strings;
  size_t huge_len = (size_t)1 << 20;
  if (huge_left > 0) {
    c->huge = malloc(huge_len);
    if (!c->huge) {
      if (err) {
        err->code = INLET_ENOMEM;
        snprintf(err->message, sizeof err->message, "no memory for a 1 MiB string");
      }
      return INLET_ENOMEM;
    }
    for (size_t i = 0; i < huge_len; i++)
      c->huge[i] = (uint8_t)('a' + i % 26);
  }
  int max_b = lim->max_batches < 1                ? 1
              : lim->max_batches > RT_MAX_BATCHES ? RT_MAX_BATCHES
                                                  : lim->max_batches;
  c->n_batches = 1 + (int)rt_below(s, (uint64_t)max_b);
  c->rows = rows;
  int64_t left = rows;
  for (int b = 0; b < c->n_batches; b++) {
    int rc = inlet_batch_init(&c->batches[b], &c->schema, err);
    if (rc != 0) {
      c->n_batches = b;
      return rc;
    }
    /* The last batch takes what is left; others a random share (maybe 0). */
    int64_t n = b == c->n_batches - 1 ? left : (int64_t)rt_below(s, (uint64_t)left + 1);
    left -= n;
    for (int col = 0; col < n_cols; col++) {
      const inlet_field *f = &c->batches[b].schema.fields[col];
      for (int64_t r = 0; r < n; r++) {
        rc = rt_gen_cell(s, &c->batches[b].columns[col], f, &plans[col], c->huge, huge_len,
                         &huge_left, err);
        if (rc != 0) return rc;
      }
    }
    c->batches[b].num_rows = n;
    /* A validity bitmap with no null in it is legal and must read back as
     * all valid. */
    for (int col = 0; col < n_cols; col++) {
      if (c->schema.fields[col].nullable && c->batches[b].columns[col].validity == NULL &&
          rt_chance(s, 3)) {
        rc = inlet_array_ensure_validity(&c->batches[b].columns[col], err);
        if (rc != 0) return rc;
      }
    }
  }
  return 0;
}

RT_FN void rt_describe(rt_case *c) {
  size_t o = 0;
  o += (size_t)snprintf(c->desc + o, sizeof c->desc - o,
                        "rows=%" PRId64 " batches=%d codec=%d level=%d dict=%d page=%" PRId64
                        " rg_bytes=%" PRId64 " rg_rows=%" PRId64 " dict_limit=%" PRId64
                        " int_enc=%d page_rows=%" PRId64 " page_index=%d cols=",
                        c->rows, c->n_batches, (int)c->opts.compression, c->opts.compression_level,
                        (int)c->opts.dictionary, c->opts.page_bytes, c->opts.row_group_bytes,
                        c->opts.row_group_max_rows, c->opts.dictionary_page_bytes,
                        (int)c->opts.int_encoding, c->opts.page_max_rows, (int)c->opts.page_index);
  for (int i = 0; i < c->schema.n_fields && o < sizeof c->desc; i++) {
    char tn[64];
    inlet_type_name(&c->schema.fields[i].type, tn, sizeof tn);
    o += (size_t)snprintf(c->desc + o, sizeof c->desc - o, "%s%s%s", i ? "," : "", tn,
                          c->schema.fields[i].nullable ? "?" : "");
  }
}

/* Derives a whole case from @p s. */
RT_FN int rt_gen_case(rt_src *s, const rt_limits *lim, rt_case *c, inlet_error *err) {
  memset(c, 0, sizeof *c);
  int rc = rt_gen_schema(s, lim, &c->schema, &c->names, err);
  if (rc != 0) return rc;
  rt_gen_options(s, &c->opts);
  int64_t rows;
  switch (rt_below(s, 8)) {
  case 0: rows = 0; break;
  case 1: rows = 1; break;
  case 2: rows = (int64_t)rt_below(s, (uint64_t)lim->max_rows + 1); break;
  default: rows = (int64_t)rt_below(s, (uint64_t)(lim->max_rows / 8) + 1); break;
  }
  rc = rt_gen_rows(s, lim, c, rows, err);
  rt_describe(c);
  return rc;
}

/* ---- write, read, compare --------------------------------------------- */

RT_FN int rt_msg(char *msg, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
RT_FN int rt_msg(char *msg, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, cap, fmt, ap);
  va_end(ap);
  return 1;
}

RT_FN int rt_write(const rt_case *c, const char *path, char *msg, size_t cap) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_parquet_writer *w = NULL;
  remove(path);
  if (inlet_parquet_writer_open(&w, path, &c->schema, &c->opts, &err) != 0)
    return rt_msg(msg, cap, "writer_open: %s", inlet_errmsg(&err));
  for (int b = 0; b < c->n_batches; b++) {
    if (inlet_parquet_writer_write(w, &c->batches[b], &err) != 0) {
      inlet_parquet_writer_free(w);
      return rt_msg(msg, cap, "writer_write batch %d: %s", b, inlet_errmsg(&err));
    }
  }
  if (inlet_parquet_writer_close(w, &err) != 0) {
    inlet_parquet_writer_free(w);
    return rt_msg(msg, cap, "writer_close: %s", inlet_errmsg(&err));
  }
  int64_t rows = inlet_parquet_writer_rows(w);
  inlet_parquet_writer_free(w);
  if (rows != c->rows)
    return rt_msg(msg, cap, "writer_rows %" PRId64 ", wrote %" PRId64, rows, c->rows);
  return 0;
}

/* The type a written field reads back as (seconds become millis). */
RT_FN inlet_type rt_read_type(const inlet_type *t) {
  inlet_type r = *t;
  if ((t->id == INLET_TYPE_TIME || t->id == INLET_TYPE_TIMESTAMP) && t->unit == INLET_UNIT_SECOND)
    r.unit = INLET_UNIT_MILLI;
  return r;
}

RT_FN bool rt_type_matches(const inlet_type *want, const inlet_type *got) {
  if (want->id != got->id || want->ext != got->ext) return false;
  switch (want->id) {
  case INLET_TYPE_TIME:
  case INLET_TYPE_TIMESTAMP: return want->unit == got->unit && want->utc == got->utc;
  case INLET_TYPE_FIXED_BINARY: return want->byte_width == got->byte_width;
  case INLET_TYPE_DECIMAL: return want->precision == got->precision && want->scale == got->scale;
  default: return true;
  }
}

RT_FN void rt_hex(char *out, size_t cap, const uint8_t *p, size_t n) {
  size_t o = 0;
  for (size_t i = 0; i < n && i < 24 && o + 3 < cap; i++)
    o += (size_t)snprintf(out + o, cap - o, "%02x", p[i]);
  if (n > 24 && o + 4 < cap) snprintf(out + o, cap - o, "...");
}

/* Compares expected row @p i of @p e with actual row @p j of @p a. */
RT_FN int rt_cmp_cell(const inlet_field *f, const inlet_array *e, int64_t i, const inlet_array *a,
                      int64_t j, int64_t row, char *msg, size_t cap) {
  bool ev = inlet_array_is_valid(e, i), av = inlet_array_is_valid(a, j);
  if (ev != av)
    return rt_msg(msg, cap, "column %s row %" PRId64 ": expected %s, read %s", f->name, row,
                  ev ? "a value" : "null", av ? "a value" : "null");
  if (!ev) return 0;
  const inlet_type *t = &f->type;
  const uint8_t *ep, *ap;
  size_t en, an;
  uint8_t tmp[8];
  switch (t->id) {
  case INLET_TYPE_BOOL: {
    bool x = inlet_bit_get(e->values, i), y = inlet_bit_get(a->values, j);
    if (x != y)
      return rt_msg(msg, cap, "column %s row %" PRId64 ": expected %d, read %d", f->name, row, x,
                    y);
    return 0;
  }
  case INLET_TYPE_STRING:
  case INLET_TYPE_BINARY:
    /* All-empty strings may leave values NULL: no arithmetic on it then. */
    en = (size_t)(e->offsets[i + 1] - e->offsets[i]);
    an = (size_t)(a->offsets[j + 1] - a->offsets[j]);
    ep = en ? e->values + e->offsets[i] : (const uint8_t *)"";
    ap = an ? a->values + a->offsets[j] : (const uint8_t *)"";
    break;
  default: {
    size_t w = (size_t)inlet_type_value_width(t);
    ep = e->values + (size_t)i * w;
    ap = a->values + (size_t)j * w;
    en = an = w;
    if ((t->id == INLET_TYPE_TIME || t->id == INLET_TYPE_TIMESTAMP) &&
        t->unit == INLET_UNIT_SECOND) {
      /* Written as millis: expect value * 1000 at the same width. */
      if (w == 4) {
        int32_t x;
        memcpy(&x, ep, 4);
        x *= 1000;
        memcpy(tmp, &x, 4);
      } else {
        int64_t x;
        memcpy(&x, ep, 8);
        x *= 1000;
        memcpy(tmp, &x, 8);
      }
      ep = tmp;
    }
    break;
  }
  }
  if (en != an || (en && memcmp(ep, ap, en) != 0)) {
    char hx[64], hy[64];
    rt_hex(hx, sizeof hx, ep, en);
    rt_hex(hy, sizeof hy, ap, an);
    return rt_msg(msg, cap, "column %s row %" PRId64 ": expected %zu bytes %s, read %zu bytes %s",
                  f->name, row, en, hx, an, hy);
  }
  return 0;
}

/* Reads @p path (projected to @p proj[0..n_proj), all columns when n_proj is
 * 0) and compares with the case's rows. */
RT_FN int rt_verify(const rt_case *c, const char *path, const int32_t *proj, int32_t n_proj,
                    char *msg, size_t cap) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_parquet_reader_options ropts = INLET_PARQUET_READER_OPTIONS_INIT;
  inlet_parquet_reader *r = NULL;
  int rc = 0;
  inlet_batch got;
  memset(&got, 0, sizeof got);
  if (inlet_parquet_reader_open(&r, path, &ropts, &err) != 0)
    return rt_msg(msg, cap, "reader_open: %s", inlet_errmsg(&err));

  const inlet_schema *fs = inlet_parquet_reader_schema(r);
  if (fs == NULL || fs->n_fields != c->schema.n_fields) {
    rc = rt_msg(msg, cap, "file schema has %d fields, wrote %d", fs ? fs->n_fields : -1,
                c->schema.n_fields);
    goto done;
  }
  for (int i = 0; i < fs->n_fields; i++) {
    const inlet_field *w = &c->schema.fields[i], *g = &fs->fields[i];
    inlet_type want = rt_read_type(&w->type);
    if (strcmp(w->name, g->name) != 0 || w->nullable != g->nullable ||
        !rt_type_matches(&want, &g->type)) {
      char a[64], b[64];
      inlet_type_name(&want, a, sizeof a);
      inlet_type_name(&g->type, b, sizeof b);
      rc = rt_msg(msg, cap, "field %d: wrote %s %s%s (ext %d), read %s %s%s (ext %d)", i, w->name,
                  a, w->nullable ? "" : " not null", (int)want.ext, g->name, b,
                  g->nullable ? "" : " not null", (int)g->type.ext);
      goto done;
    }
  }
  if (n_proj == 0) { /* the metadata dump must cope with every file the writer makes */
    char *json = NULL;
    if (inlet_parquet_reader_metadata_json(r, &json, &err) != 0 || json == NULL || json[0] != '{') {
      inlet_string_free(json);
      rc = rt_msg(msg, cap, "reader_metadata_json: %s", inlet_errmsg(&err));
      goto done;
    }
    inlet_string_free(json);
  }
  if (inlet_parquet_reader_num_rows(r) != c->rows) {
    rc = rt_msg(msg, cap, "file has %" PRId64 " rows, wrote %" PRId64,
                inlet_parquet_reader_num_rows(r), c->rows);
    goto done;
  }
  int32_t cols[64];
  int32_t n_cols = n_proj ? n_proj : c->schema.n_fields;
  for (int32_t k = 0; k < n_cols; k++)
    cols[k] = n_proj ? proj[k] : k;
  if (n_proj && inlet_parquet_reader_project(r, proj, n_proj, &err) != 0) {
    rc = rt_msg(msg, cap, "reader_project: %s", inlet_errmsg(&err));
    goto done;
  }

  /* Walk expected batches (b, i) and read row groups (g, j) together. */
  int b = 0;
  int64_t i = 0, row = 0;
  int32_t n_rg = inlet_parquet_reader_num_row_groups(r);
  for (int32_t g = 0; g < n_rg; g++) {
    if (inlet_parquet_reader_read_row_group(r, g, &got, &err) != 0) {
      rc = rt_msg(msg, cap, "read_row_group %d: %s", g, inlet_errmsg(&err));
      goto done;
    }
    if (got.num_rows != inlet_parquet_reader_row_group_rows(r, g) ||
        got.schema.n_fields != n_cols) {
      rc = rt_msg(
          msg, cap,
          "row group %d: %" PRId64 " rows x %d columns, footer says %" PRId64 " rows, projected %d",
          g, got.num_rows, got.schema.n_fields, inlet_parquet_reader_row_group_rows(r, g), n_cols);
      goto done;
    }
    for (int k = 0; k < n_cols; k++) {
      if (got.columns[k].length != got.num_rows) {
        rc = rt_msg(msg, cap, "row group %d column %d: %" PRId64 " values for %" PRId64 " rows", g,
                    cols[k], got.columns[k].length, got.num_rows);
        goto done;
      }
    }
    for (int64_t j = 0; j < got.num_rows; j++, i++, row++) {
      while (b < c->n_batches && i >= c->batches[b].num_rows) {
        b++;
        i = 0;
      }
      if (b >= c->n_batches) {
        rc = rt_msg(msg, cap, "row group %d has more rows than were written", g);
        goto done;
      }
      for (int k = 0; k < n_cols; k++) {
        const inlet_field *f = &c->schema.fields[cols[k]];
        rc = rt_cmp_cell(f, &c->batches[b].columns[cols[k]], i, &got.columns[k], j, row, msg, cap);
        if (rc) {
          size_t l = strlen(msg);
          snprintf(msg + l, cap - l, " (row group %d, row %" PRId64 " in it)", g, j);
          goto done;
        }
      }
    }
    inlet_batch_reset(&got);
  }
  if (row != c->rows) rc = rt_msg(msg, cap, "read %" PRId64 " rows, wrote %" PRId64, row, c->rows);
done:
  inlet_batch_reset(&got);
  inlet_parquet_reader_free(r);
  return rc;
}

/* Reads random row ranges of every row group of @p path
 * (inlet_parquet_reader_read_rows) and compares them with the case's rows:
 * pages outside the ranges are skipped and partial pages trimmed, whatever
 * the page boundaries of each column. Nested files refuse row ranges (and
 * must say so). */
RT_FN int rt_verify_ranges(rt_src *s, const rt_case *c, const char *path, char *msg, size_t cap) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_parquet_reader *r = NULL;
  int rc = 0;
  inlet_batch got;
  memset(&got, 0, sizeof got);
  if (inlet_parquet_reader_open(&r, path, NULL, &err) != 0)
    return rt_msg(msg, cap, "reader_open: %s", inlet_errmsg(&err));
  int64_t rg_first = 0, ranges[2 * 8];
  for (int32_t g = 0; g < inlet_parquet_reader_num_row_groups(r) && rc == 0; g++) {
    int64_t n = inlet_parquet_reader_row_group_rows(r, g);
    int32_t k = 0;
    for (int64_t pos = 0; k < 8 && pos < n;) {
      int64_t a = pos + (int64_t)rt_below(s, (uint64_t)(n - pos));
      int64_t b = a + 1 + (int64_t)rt_below(s, (uint64_t)(n - a));
      ranges[2 * k] = a;
      ranges[2 * k + 1] = b;
      k++;
      pos = b + 1 + (int64_t)rt_below(s, 4);
    }
    if (k > 0) {
      int x = inlet_parquet_reader_read_rows(r, g, ranges, k, &got, &err);
      if (x == INLET_EUNSUPPORTED && strstr(err.message, "nested")) goto next;
      if (x != 0) {
        rc = rt_msg(msg, cap, "read_rows %d: %s", g, inlet_errmsg(&err));
        break;
      }
      int64_t j = 0;
      for (int32_t q = 0; q < k && rc == 0; q++) {
        for (int64_t row = rg_first + ranges[2 * q]; row < rg_first + ranges[2 * q + 1];
             row++, j++) {
          int b = 0;
          int64_t i = row;
          while (b < c->n_batches && i >= c->batches[b].num_rows)
            i -= c->batches[b++].num_rows;
          if (b >= c->n_batches || j >= got.num_rows) {
            rc = rt_msg(msg, cap, "read_rows %d: %" PRId64 " rows for the ranges", g, got.num_rows);
            break;
          }
          for (int col = 0; col < c->schema.n_fields && rc == 0; col++) {
            rc = rt_cmp_cell(&c->schema.fields[col], &c->batches[b].columns[col], i,
                             &got.columns[col], j, row, msg, cap);
            if (rc) {
              size_t l = strlen(msg);
              snprintf(msg + l, cap - l, " (read_rows, row group %d, range %d)", g, q);
            }
          }
        }
      }
      if (rc == 0 && j != got.num_rows)
        rc = rt_msg(msg, cap, "read_rows %d: %" PRId64 " rows, ranges hold %" PRId64, g,
                    got.num_rows, j);
    }
  next:
    rg_first += n;
  }
  inlet_batch_reset(&got);
  inlet_parquet_reader_free(r);
  return rc;
}

/* Writes the case, verifies every column, then a random projection and
 * random row ranges.
 * @return 0, or 1 with @p msg saying what differed. */
/* Reads @p path with its pages captured and writes it again through
 * pq_writer_write_pages (src/parquet/raw_pages.h: the pages that fit are
 * copied, not encoded) with the case's options: the copy must read back to
 * the case's rows. */
RT_FN int rt_verify_copy(const rt_case *c, const char *path, char *msg, size_t cap) {
  char copy[4200];
  if (snprintf(copy, sizeof copy, "%s.copy", path) >= (int)sizeof copy) {
    snprintf(msg, cap, "the copy's path is too long");
    return 1;
  }
  remove(copy);
  inlet_error err = INLET_ERROR_INIT;
  inlet_parquet_reader *r = NULL;
  if (inlet_parquet_reader_open(&r, path, NULL, &err) != 0)
    return rt_msg(msg, cap, "copy: reader_open: %s", inlet_errmsg(&err));
  const inlet_schema *rs = inlet_parquet_reader_schema(r);
  pq_raw_chunk *raw = calloc((size_t)rs->n_fields + 1, sizeof *raw);
  inlet_parquet_writer *w = NULL;
  inlet_batch b;
  memset(&b, 0, sizeof b);
  int rc = 0;
  if (!raw)
    rc = rt_msg(msg, cap, "copy: out of memory");
  else if (inlet_parquet_writer_open(&w, copy, rs, &c->opts, &err) != 0)
    rc = rt_msg(msg, cap, "copy: writer_open: %s", inlet_errmsg(&err));
  if (rc == 0) pq_reader_capture_pages(r, raw);
  for (int32_t g = 0; rc == 0 && g < inlet_parquet_reader_num_row_groups(r); g++) {
    if (inlet_parquet_reader_read_row_group(r, g, &b, &err) != 0)
      rc = rt_msg(msg, cap, "copy: read row group %d: %s", (int)g, inlet_errmsg(&err));
    else if (pq_writer_write_pages(w, &b, raw, &err) != 0)
      rc = rt_msg(msg, cap, "copy: write_pages row group %d: %s", (int)g, inlet_errmsg(&err));
  }
  if (rc == 0 && inlet_parquet_writer_close(w, &err) != 0)
    rc = rt_msg(msg, cap, "copy: writer_close: %s", inlet_errmsg(&err));
  inlet_batch_reset(&b);
  inlet_parquet_writer_free(w);
  pq_raw_chunks_free(raw, rs->n_fields + 1);
  inlet_parquet_reader_free(r);
  if (rc == 0) {
    rc = rt_verify(c, copy, NULL, 0, msg, cap);
    if (rc) {
      size_t l = strlen(msg);
      snprintf(msg + l, cap - l, " [pages copied]");
    }
  }
  remove(copy);
  return rc;
}

RT_FN int rt_roundtrip(rt_src *s, const rt_case *c, const char *path, char *msg, size_t cap) {
  int rc = rt_write(c, path, msg, cap);
  if (rc == 0) rc = rt_verify(c, path, NULL, 0, msg, cap);
  if (rc == 0 && c->schema.n_fields > 1) {
    int32_t perm[64];
    int32_t n = c->schema.n_fields;
    for (int32_t k = 0; k < n; k++)
      perm[k] = k;
    for (int32_t k = n - 1; k > 0; k--) {
      int32_t j = (int32_t)rt_below(s, (uint64_t)k + 1), t = perm[k];
      perm[k] = perm[j];
      perm[j] = t;
    }
    int32_t m = 1 + (int32_t)rt_below(s, (uint64_t)n);
    rc = rt_verify(c, path, perm, m, msg, cap);
    if (rc) {
      size_t l = strlen(msg);
      snprintf(msg + l, cap - l, " [projection of %d columns]", m);
    }
  }
  if (rc == 0) rc = rt_verify_ranges(s, c, path, msg, cap);
  if (rc == 0) rc = rt_verify_copy(c, path, msg, cap);
  if (rc) {
    size_t l = strlen(msg);
    snprintf(msg + l, cap - l, "; case: %s", c->desc);
  }
  return rc;
}

#endif /* INLET_TEST_ROUNDTRIP_ENGINE_H */
