/*
 * Interop proof for the Parquet writer (issue 2, section 5 "Interop"):
 * inlet writes files through the public API for every supported flat type
 * x encoding (dictionary, PLAIN, dictionary with PLAIN fallback) x codec x
 * null pattern (REQUIRED, OPTIONAL without nulls, mixed, all null), plus an
 * empty file, a one-row file and files with many row groups and pages; then
 * DuckDB reads each file (`refcheck parquet`) and `refcheck compare
 * --ordered` checks its values and column types against the rows the test
 * put in.
 *
 * The expected JSON is computed here, independently of the code under test,
 * in refcheck's canonical encoding (../shared/tools/refcheck/README.md):
 * dates and timestamps are formatted from day/microsecond counts with a
 * civil-calendar conversion, decimals from their unscaled integers.
 * Many columns share one file per codec so that node starts only a few
 * times.
 */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "testutil.h"

#include "inlet/batch.h"
#include "inlet/parquet.h"
#include "inlet/text.h"
#include "parquet/column_writer.h"
#include "parquet/pq_meta.h"
#include "parquet/pq_schema.h"
#include "storage/storage.h"
#include "util/buf.h"

typedef enum vkind {
  V_BOOL,
  V_I8,
  V_I16,
  V_I32,
  V_I64,
  V_U8,
  V_U16,
  V_U32,
  V_U64,
  V_FLOAT,
  V_DOUBLE,
  V_STRING,
  V_JSON,
  V_ENUM,
  V_BINARY,
  V_FIXED,
  V_UUID,
  V_DATE,
  V_TIME_MS,
  V_TIME_US,
  V_TIME_NS,
  V_TS_S,
  V_TS_MS,
  V_TS_US,
  V_TS_NS,
  V_TSNTZ_US,
  V_TSNTZ_MS,
  V_DEC9,
  V_DEC18,
  V_DEC38,
  V_DEC_FLBA
} vkind;

typedef struct col_spec {
  const char *name;
  vkind kind;
  inlet_type_id id;
  inlet_time_unit unit;
  bool utc;
  int32_t width, precision, scale;
  inlet_type_ext ext;
  const char *duck_type; /* DuckDB's type string for the column */
} col_spec;

static const col_spec SPECS[] = {
    {"bool", V_BOOL, INLET_TYPE_BOOL, 0, false, 0, 0, 0, 0, "BOOLEAN"},
    {"i8", V_I8, INLET_TYPE_INT8, 0, false, 0, 0, 0, 0, "TINYINT"},
    {"i16", V_I16, INLET_TYPE_INT16, 0, false, 0, 0, 0, 0, "SMALLINT"},
    {"i32", V_I32, INLET_TYPE_INT32, 0, false, 0, 0, 0, 0, "INTEGER"},
    {"i64", V_I64, INLET_TYPE_INT64, 0, false, 0, 0, 0, 0, "BIGINT"},
    {"u8", V_U8, INLET_TYPE_UINT8, 0, false, 0, 0, 0, 0, "UTINYINT"},
    {"u16", V_U16, INLET_TYPE_UINT16, 0, false, 0, 0, 0, 0, "USMALLINT"},
    {"u32", V_U32, INLET_TYPE_UINT32, 0, false, 0, 0, 0, 0, "UINTEGER"},
    {"u64", V_U64, INLET_TYPE_UINT64, 0, false, 0, 0, 0, 0, "UBIGINT"},
    {"f32", V_FLOAT, INLET_TYPE_FLOAT, 0, false, 0, 0, 0, 0, "FLOAT"},
    {"f64", V_DOUBLE, INLET_TYPE_DOUBLE, 0, false, 0, 0, 0, 0, "DOUBLE"},
    {"str", V_STRING, INLET_TYPE_STRING, 0, false, 0, 0, 0, 0, "VARCHAR"},
    {"json", V_JSON, INLET_TYPE_STRING, 0, false, 0, 0, 0, INLET_EXT_JSON, "VARCHAR"},
    {"enum", V_ENUM, INLET_TYPE_STRING, 0, false, 0, 0, 0, INLET_EXT_ENUM, "VARCHAR"},
    {"bin", V_BINARY, INLET_TYPE_BINARY, 0, false, 0, 0, 0, 0, "BLOB"},
    {"fix", V_FIXED, INLET_TYPE_FIXED_BINARY, 0, false, 5, 0, 0, 0, "BLOB"},
    {"uuid", V_UUID, INLET_TYPE_FIXED_BINARY, 0, false, 16, 0, 0, INLET_EXT_UUID, "UUID"},
    {"date", V_DATE, INLET_TYPE_DATE, 0, false, 0, 0, 0, 0, "DATE"},
    {"tms", V_TIME_MS, INLET_TYPE_TIME, INLET_UNIT_MILLI, false, 0, 0, 0, 0, "TIME"},
    {"tus", V_TIME_US, INLET_TYPE_TIME, INLET_UNIT_MICRO, false, 0, 0, 0, 0, "TIME"},
    {"tns", V_TIME_NS, INLET_TYPE_TIME, INLET_UNIT_NANO, false, 0, 0, 0, 0, "TIME_NS"},
    {"ts_s", V_TS_S, INLET_TYPE_TIMESTAMP, INLET_UNIT_SECOND, true, 0, 0, 0, 0,
     "TIMESTAMP WITH TIME ZONE"},
    {"ts_ms", V_TS_MS, INLET_TYPE_TIMESTAMP, INLET_UNIT_MILLI, true, 0, 0, 0, 0,
     "TIMESTAMP WITH TIME ZONE"},
    {"ts_us", V_TS_US, INLET_TYPE_TIMESTAMP, INLET_UNIT_MICRO, true, 0, 0, 0, 0,
     "TIMESTAMP WITH TIME ZONE"},
    {"ts_ns", V_TS_NS, INLET_TYPE_TIMESTAMP, INLET_UNIT_NANO, false, 0, 0, 0, 0, "TIMESTAMP_NS"},
    {"ntz_us", V_TSNTZ_US, INLET_TYPE_TIMESTAMP, INLET_UNIT_MICRO, false, 0, 0, 0, 0, "TIMESTAMP"},
    {"ntz_ms", V_TSNTZ_MS, INLET_TYPE_TIMESTAMP, INLET_UNIT_MILLI, false, 0, 0, 0, 0, "TIMESTAMP"},
    {"dec9", V_DEC9, INLET_TYPE_DECIMAL, 0, false, 0, 9, 2, 0, "DECIMAL(9,2)"},
    {"dec18", V_DEC18, INLET_TYPE_DECIMAL, 0, false, 0, 18, 4, 0, "DECIMAL(18,4)"},
    {"dec38", V_DEC38, INLET_TYPE_DECIMAL, 0, false, 0, 38, 10, 0, "DECIMAL(38,10)"},
    {"dec25", V_DEC_FLBA, INLET_TYPE_DECIMAL, 0, false, 0, 25, 0, 0, "DECIMAL(25,0)"},
};
#define N_SPECS ((int)(sizeof SPECS / sizeof SPECS[0]))

typedef enum pattern { P_REQUIRED, P_NONE, P_MIXED, P_ALL } pattern;
static const char *PATTERN_NAMES[] = {"req", "none", "mixed", "null"};
#define N_PATTERNS 4

/* How the value index of row r is chosen. */
typedef enum data_shape {
  D_REPEAT, /* k = r % 7: few distinct values, the dictionary pays off */
  D_UNIQUE, /* k = r: boundary values first, then all distinct */
  D_PAIRS   /* k = r / 2: dictionary grows past a small limit (fallback) */
} data_shape;

/* ---- canonical formatting ---------------------------------------------- */

/* Days since 1970-01-01 to a proleptic Gregorian y-m-d (era arithmetic). */
static void civil(int64_t days, int64_t *y, int *m, int *d) {
  days += 719468;
  int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  int64_t doe = days - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  *d = (int)(doy - (153 * mp + 2) / 5 + 1);
  *m = (int)(mp < 10 ? mp + 3 : mp - 9);
  *y = yoe + era * 400 + (*m <= 2);
}

static int64_t floordiv(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

static void fmt_date(inlet_buf *o, int64_t days) {
  int64_t y;
  int m, d;
  civil(days, &y, &m, &d);
  inlet_buf_appendf(o, "\"%04" PRId64 "-%02d-%02d\"", y, m, d);
}

/* @p sub: sub-second units since the epoch, @p per: units per second,
 * @p digits: fraction digits printed. */
static void fmt_ts(inlet_buf *o, int64_t v, int64_t per, int digits, bool zone) {
  int64_t secs = floordiv(v, per);
  int64_t frac = v - secs * per;
  int64_t days = floordiv(secs, 86400);
  int64_t sod = secs - days * 86400;
  int64_t y;
  int m, d;
  civil(days, &y, &m, &d);
  /* Scale the fraction to the printed digits. */
  int64_t scaled = frac;
  int64_t p = per;
  int64_t want = digits == 9 ? 1000000000 : 1000000;
  while (p < want) {
    scaled *= 10;
    p *= 10;
  }
  while (p > want) {
    scaled /= 10;
    p /= 10;
  }
  inlet_buf_appendf(o, "\"%04" PRId64 "-%02d-%02dT%02d:%02d:%02d.%0*" PRId64 "%s\"", y, m, d,
                    (int)(sod / 3600), (int)(sod / 60 % 60), (int)(sod % 60), digits, scaled,
                    zone ? "Z" : "");
}

static void fmt_time(inlet_buf *o, int64_t v, int64_t per, int digits) {
  int64_t secs = v / per, frac = v % per;
  int64_t want = digits == 9 ? 1000000000 : 1000000;
  while (per < want) {
    frac *= 10;
    per *= 10;
  }
  inlet_buf_appendf(o, "\"%02d:%02d:%02d.%0*" PRId64 "\"", (int)(secs / 3600),
                    (int)(secs / 60 % 60), (int)(secs % 60), digits, frac);
}

static void fmt_int(inlet_buf *o, int64_t v) {
  if (v > ((int64_t)1 << 53) || v < -((int64_t)1 << 53))
    inlet_buf_appendf(o, "\"%" PRId64 "\"", v);
  else
    inlet_buf_appendf(o, "%" PRId64, v);
}

static void fmt_uint(inlet_buf *o, uint64_t v) {
  if (v > ((uint64_t)1 << 53))
    inlet_buf_appendf(o, "\"%" PRIu64 "\"", v);
  else
    inlet_buf_appendf(o, "%" PRIu64, v);
}

static void fmt_double(inlet_buf *o, double v) {
  if (isnan(v))
    inlet_buf_puts(o, "\"NaN\"");
  else if (isinf(v))
    inlet_buf_puts(o, v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
  else if (v == 0)
    inlet_buf_puts(o, "0");
  else
    inlet_buf_appendf(o, "%.17g", v);
}

static void fmt_json_string(inlet_buf *o, const uint8_t *s, size_t n) {
  inlet_buf_push(o, '"');
  for (size_t i = 0; i < n; i++) {
    uint8_t c = s[i];
    if (c == '"' || c == '\\') {
      inlet_buf_push(o, '\\');
      inlet_buf_push(o, c);
    } else if (c < 0x20) {
      inlet_buf_appendf(o, "\\u%04x", c);
    } else {
      inlet_buf_push(o, c);
    }
  }
  inlet_buf_push(o, '"');
}

static void fmt_hex(inlet_buf *o, const uint8_t *s, size_t n) {
  inlet_buf_push(o, '"');
  for (size_t i = 0; i < n; i++)
    inlet_buf_appendf(o, "%02x", s[i]);
  inlet_buf_push(o, '"');
}

typedef __int128 i128;

static void fmt_decimal(inlet_buf *o, i128 v, int scale) {
  char digits[64];
  int n = 0;
  bool neg = v < 0;
  unsigned __int128 u = neg ? (unsigned __int128)(-(v + 1)) + 1 : (unsigned __int128)v;
  do {
    digits[n++] = (char)('0' + (int)(u % 10));
    u /= 10;
  } while (u);
  while (n <= scale)
    digits[n++] = '0';
  inlet_buf_push(o, '"');
  if (neg) inlet_buf_push(o, '-');
  for (int i = n - 1; i >= 0; i--) {
    if (i == scale - 1) inlet_buf_push(o, '.');
    inlet_buf_push(o, (uint8_t)digits[i]);
  }
  inlet_buf_push(o, '"');
}

/* ---- value generation ---------------------------------------------------- */

static const char *STRINGS[] = {"",
                                "a",
                                "h\xC3\xA9llo w\xC3\xB6rld",
                                "quote \" and \\ backslash",
                                "tab\tnew\nline",
                                "\xF0\x9F\x98\x80 emoji",
                                "a longer string that goes past the usual inline sizes of engines"};
#define N_STRINGS ((int64_t)(sizeof STRINGS / sizeof STRINGS[0]))

static i128 pow10_128(int n) {
  i128 v = 1;
  while (n-- > 0)
    v *= 10;
  return v;
}

/* Appends value k of column @p c to @p a and its canonical JSON to @p o. */
static void gen(const col_spec *c, const inlet_field *f, inlet_array *a, int64_t k, inlet_buf *o) {
  char sbuf[64];
  switch (c->kind) {
  case V_BOOL: {
    bool v = k % 3 != 0;
    assert_int_equal(inlet_array_append_bool(a, v, NULL), 0);
    inlet_buf_puts(o, v ? "true" : "false");
    return;
  }
  case V_I8:
  case V_I16:
  case V_I32:
  case V_I64: {
    int bits = c->kind == V_I8 ? 8 : c->kind == V_I16 ? 16 : c->kind == V_I32 ? 32 : 64;
    int64_t max = bits == 64 ? INT64_MAX : ((int64_t)1 << (bits - 1)) - 1;
    int64_t min = -max - 1;
    int64_t base[] = {min, max, 0, -1};
    int64_t v = k < 4 ? base[k] : (k * 37 - 1000) % (max > 100000 ? 100000 : max);
    assert_int_equal(inlet_array_append_int(a, f, v, NULL), 0);
    fmt_int(o, v);
    return;
  }
  case V_U8:
  case V_U16:
  case V_U32:
  case V_U64: {
    int bits = c->kind == V_U8 ? 8 : c->kind == V_U16 ? 16 : c->kind == V_U32 ? 32 : 64;
    uint64_t max = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
    uint64_t base[] = {0, max, max - 1, (max >> 1) + 1};
    uint64_t v = k < 4 ? base[k] : (uint64_t)(k * 41) % (max > 100000 ? 100000 : max);
    if (bits == 64)
      assert_int_equal(inlet_array_append_uint64(a, v, NULL), 0);
    else
      assert_int_equal(inlet_array_append_int(a, f, (int64_t)v, NULL), 0);
    fmt_uint(o, v);
    return;
  }
  case V_FLOAT: {
    float base[] = {NAN, -0.0f, INFINITY, -INFINITY, FLT_MAX, -1.5f, FLT_MIN};
    float v = k < 7 ? base[k] : (float)k * 0.25f - 3.0f;
    assert_int_equal(inlet_array_append_float(a, v, NULL), 0);
    fmt_double(o, (double)v);
    return;
  }
  case V_DOUBLE: {
    double base[] = {NAN, -0.0, INFINITY, -INFINITY, DBL_MAX, 0.1, -2.5e-300};
    double v = k < 7 ? base[k] : (double)k * 1.01 - 50;
    assert_int_equal(inlet_array_append_double(a, v, NULL), 0);
    fmt_double(o, v);
    return;
  }
  case V_STRING:
  case V_ENUM:
  case V_JSON: {
    const char *s;
    if (c->kind == V_JSON) {
      snprintf(sbuf, sizeof sbuf, "{\"k\":%" PRId64 "}", k);
      s = sbuf;
    } else if (k < N_STRINGS && c->kind == V_STRING) {
      s = STRINGS[k];
    } else {
      snprintf(sbuf, sizeof sbuf, "%s%" PRId64, c->kind == V_ENUM ? "enum_" : "s", k);
      s = sbuf;
    }
    assert_int_equal(inlet_array_append_bytes(a, f, s, strlen(s), NULL), 0);
    fmt_json_string(o, (const uint8_t *)s, strlen(s));
    return;
  }
  case V_BINARY:
  case V_FIXED:
  case V_UUID: {
    uint8_t v[16];
    size_t n = c->kind == V_BINARY ? (size_t)(k % 5) : (size_t)c->width;
    for (size_t i = 0; i < n; i++)
      v[i] = (uint8_t)(k * 31 + (int64_t)i * 97 + (k == 1 ? 0x80 : 0));
    assert_int_equal(inlet_array_append_bytes(a, f, v, n, NULL), 0);
    if (c->kind == V_UUID) {
      static const char hexd[] = "0123456789abcdef";
      char u[40];
      int p = 0;
      for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10) u[p++] = '-';
        u[p++] = hexd[v[i] >> 4];
        u[p++] = hexd[v[i] & 15];
      }
      u[p] = 0;
      inlet_buf_appendf(o, "\"%s\"", u);
    } else {
      fmt_hex(o, v, n);
    }
    return;
  }
  case V_DATE: {
    int64_t base[] = {0, -719162, 2932896, -1};
    int64_t v = k < 4 ? base[k] : 18000 + k * 13;
    assert_int_equal(inlet_array_append_int(a, f, v, NULL), 0);
    fmt_date(o, v);
    return;
  }
  case V_TIME_MS:
  case V_TIME_US:
  case V_TIME_NS: {
    int64_t per = c->kind == V_TIME_MS ? 1000 : c->kind == V_TIME_US ? 1000000 : 1000000000;
    int64_t day = 86400 * per;
    int64_t v = k == 0 ? 0 : k == 1 ? day - 1 : (k * 1234567 * (per / 1000 + 1)) % day;
    assert_int_equal(inlet_array_append_int(a, f, v, NULL), 0);
    fmt_time(o, v, per, c->kind == V_TIME_NS ? 9 : 6);
    return;
  }
  default: break;
  }
  if (c->id == INLET_TYPE_TIMESTAMP) {
    int64_t per = c->unit == INLET_UNIT_SECOND  ? 1
                  : c->unit == INLET_UNIT_MILLI ? 1000
                  : c->unit == INLET_UNIT_MICRO ? 1000000
                                                : 1000000000;
    /* 0001-01-01 and 9999-12-31 23:59:59 in seconds; nanos span +-292 years. */
    int64_t lo_s = per == 1000000000 ? -2208988800 : -62135596800;
    int64_t hi_s = per == 1000000000 ? 4102444799 : 253402300799;
    int64_t base[] = {0, -1, lo_s * per, hi_s * per + (per - 1)};
    int64_t v = k < 4 ? base[k] : 1600000000 * per + k * (per / 1000 + 1) * 1000003;
    assert_int_equal(inlet_array_append_int(a, f, v, NULL), 0);
    fmt_ts(o, v, per, c->unit == INLET_UNIT_NANO ? 9 : 6, c->utc);
    return;
  }
  /* Decimals. */
  i128 max = pow10_128(c->precision) - 1;
  i128 base[] = {max, -max, 0, -1};
  i128 v = k < 4 ? base[k] : ((i128)k * 1234567891 - 77777) % max;
  uint8_t bytes[16];
  memcpy(bytes, &v, 16);
  assert_int_equal(inlet_array_append_decimal(a, bytes, NULL), 0);
  fmt_decimal(o, v, c->scale);
}

/* ---- one file ------------------------------------------------------------ */

typedef struct file_case {
  const char *tag;
  inlet_compression codec;
  bool dictionary;
  data_shape shape;
  int64_t rows;
  int64_t rg_rows; /* row_group_max_rows */
  int64_t page_bytes;
  int64_t dict_bytes; /* dictionary_page_bytes */
  bool int_delta;     /* int_encoding DELTA */
} file_case;

static void build_schema(inlet_schema *s) {
  inlet_schema_init(s);
  for (int p = 0; p < N_PATTERNS; p++) {
    for (int i = 0; i < N_SPECS; i++) {
      const col_spec *c = &SPECS[i];
      char name[64];
      snprintf(name, sizeof name, "%s_%s", c->name, PATTERN_NAMES[p]);
      inlet_field f;
      memset(&f, 0, sizeof f);
      f.name = name;
      f.type.id = c->id;
      f.type.unit = c->unit;
      f.type.utc = c->utc;
      f.type.byte_width = c->width;
      f.type.precision = c->precision;
      f.type.scale = c->scale;
      f.type.ext = c->ext;
      f.nullable = p != P_REQUIRED;
      f.field_id = -1;
      assert_int_equal(inlet_schema_add_field(s, &f, NULL), 0);
    }
  }
}

static void run_case(const file_case *fc) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema schema;
  build_schema(&schema);
  int ncols = schema.n_fields;
  char *dir = tu_mkdtemp(fc->tag);
  char path[1024], expect_path[1024], duck_path[1024];
  snprintf(path, sizeof path, "%s/data.parquet", dir);
  snprintf(expect_path, sizeof expect_path, "%s/expected.json", dir);
  snprintf(duck_path, sizeof duck_path, "%s/duckdb.json", dir);

  inlet_parquet_writer_options o = INLET_PARQUET_WRITER_OPTIONS_INIT;
  o.compression = fc->codec;
  o.dictionary = fc->dictionary;
  if (fc->rg_rows) o.row_group_max_rows = fc->rg_rows;
  if (fc->page_bytes) o.page_bytes = fc->page_bytes;
  if (fc->dict_bytes) o.dictionary_page_bytes = fc->dict_bytes;
  if (fc->int_delta) o.int_encoding = INLET_INT_ENCODING_DELTA;
  o.sync_on_close = false;
  inlet_parquet_writer *w = NULL;
  int rc = inlet_parquet_writer_open(&w, path, &schema, &o, &err);
  if (rc) fprintf(stderr, "%s: open: %s\n", fc->tag, inlet_errmsg(&err));
  assert_int_equal(rc, 0);

  /* Expected JSON: the columns DuckDB should report, then the rows. */
  inlet_buf ex = INLET_BUF_INIT;
  inlet_buf_puts(&ex, "{\"columns\":[");
  for (int c = 0; c < ncols; c++) {
    inlet_buf_appendf(&ex, "%s{\"name\":\"%s\",\"type\":\"%s\"}", c ? "," : "",
                      schema.fields[c].name, SPECS[c % N_SPECS].duck_type);
  }
  inlet_buf_puts(&ex, "],\"rows\":[\n");

  /* Rows go in batches of uneven sizes (not multiples of 8) so that batch
   * boundaries fall inside bitmap bytes. */
  int64_t r = 0, batch_no = 0;
  while (r < fc->rows || (fc->rows == 0 && batch_no == 0)) {
    static const int64_t sizes[] = {101, 77, 150};
    int64_t n = sizes[batch_no % 3];
    if (n > fc->rows - r) n = fc->rows - r;
    inlet_batch b;
    assert_int_equal(inlet_batch_init(&b, &schema, NULL), 0);
    for (int64_t i = 0; i < n; i++, r++) {
      int64_t k = fc->shape == D_REPEAT ? r % 7 : fc->shape == D_UNIQUE ? r : r / 2;
      inlet_buf_puts(&ex, r ? ",\n[" : "[");
      for (int c = 0; c < ncols; c++) {
        pattern p = (pattern)(c / N_SPECS);
        if (c) inlet_buf_push(&ex, ',');
        bool null = p == P_ALL || (p == P_MIXED && r % 3 == 1);
        if (null) {
          assert_int_equal(inlet_array_append_null(&b.columns[c], &b.schema.fields[c], NULL), 0);
          inlet_buf_puts(&ex, "null");
        } else {
          gen(&SPECS[c % N_SPECS], &b.schema.fields[c], &b.columns[c], k, &ex);
        }
      }
      inlet_buf_push(&ex, ']');
    }
    b.num_rows = n;
    rc = inlet_parquet_writer_write(w, &b, &err);
    if (rc) fprintf(stderr, "%s: write: %s\n", fc->tag, inlet_errmsg(&err));
    assert_int_equal(rc, 0);
    inlet_batch_reset(&b);
    batch_no++;
  }
  inlet_buf_puts(&ex, "\n]}\n");
  assert_int_equal(inlet_buf_status(&ex), 0);
  rc = inlet_parquet_writer_close(w, &err);
  if (rc) fprintf(stderr, "%s: close: %s\n", fc->tag, inlet_errmsg(&err));
  assert_int_equal(rc, 0);
  assert_int_equal(inlet_parquet_writer_rows(w), fc->rows);
  inlet_parquet_writer_free(w);
  assert_int_equal(tu_write_file(expect_path, ex.data, ex.len), 0);
  inlet_buf_reset(&ex);
  inlet_schema_reset(&schema);

  tu_result res;
  tu_sh(&res, "'%s' '%s' parquet '%s' > '%s'", INLET_NODE, INLET_REFCHECK, path, duck_path);
  if (res.status != 0) {
    char *out = tu_read_file(duck_path, NULL);
    fprintf(stderr, "%s: refcheck parquet exit %d\n%s\n%s\n", fc->tag, res.status, out ? out : "",
            res.err);
    free(out);
  }
  assert_int_equal(res.status, 0);
  tu_result_free(&res);
  /* compare checks values and names; the types DuckDB derived from our
   * schema annotations are checked here, as the text of both headers. */
  char *duck = tu_read_file(duck_path, NULL);
  char *mine = tu_read_file(expect_path, NULL);
  assert_non_null(duck);
  assert_non_null(mine);
  char *dend = strstr(duck, "],\"rows\"");
  char *mend = strstr(mine, "],\"rows\"");
  assert_non_null(dend);
  assert_non_null(mend);
  *dend = *mend = 0;
  if (strcmp(duck, mine) != 0)
    fprintf(stderr, "%s: column types differ:\n%s\n%s\n", fc->tag, duck, mine);
  assert_string_equal(duck, mine);
  free(duck);
  free(mine);
  tu_sh(&res, "'%s' '%s' compare '%s' '%s' --ordered", INLET_NODE, INLET_REFCHECK, duck_path,
        expect_path);
  if (res.status != 0) fprintf(stderr, "%s: %s\n%s\n%s\n", fc->tag, path, res.out, res.err);
  assert_int_equal(res.status, 0);
  tu_result_free(&res);
  if (!getenv("INLET_TEST_KEEP")) tu_rmtree(dir);
}

/* ---- cases ----------------------------------------------------------------- */

static void test_interop__codec_matrix(void **state, inlet_compression codec, const char *name) {
  (void)state;
  char tag[64];
  /* Dictionary-encoded, several row groups and pages. */
  snprintf(tag, sizeof tag, "interop_%s_dict", name);
  file_case dict = {tag, codec, true, D_REPEAT, 328, 128, 512, 0, false};
  run_case(&dict);
  /* PLAIN, boundary values, one row group with several pages. */
  snprintf(tag, sizeof tag, "interop_%s_plain", name);
  file_case plain = {tag, codec, false, D_UNIQUE, 200, 0, 700, 0, false};
  run_case(&plain);
}

static void test_interop__uncompressed_dict_and_plain(void **state) {
  test_interop__codec_matrix(state, INLET_COMPRESSION_UNCOMPRESSED, "none");
}
static void test_interop__snappy_dict_and_plain(void **state) {
  test_interop__codec_matrix(state, INLET_COMPRESSION_SNAPPY, "snappy");
}
static void test_interop__gzip_dict_and_plain(void **state) {
  test_interop__codec_matrix(state, INLET_COMPRESSION_GZIP, "gzip");
}
static void test_interop__zstd_dict_and_plain(void **state) {
  test_interop__codec_matrix(state, INLET_COMPRESSION_ZSTD, "zstd");
}
static void test_interop__lz4_raw_dict_and_plain(void **state) {
  test_interop__codec_matrix(state, INLET_COMPRESSION_LZ4_RAW, "lz4raw");
}

static void test_interop__dictionary_fallback_to_plain_mid_chunk(void **state) {
  (void)state;
  file_case fc = {
      "interop_fallback", INLET_COMPRESSION_SNAPPY, true, D_PAIRS, 400, 0, 256, 64, false};
  run_case(&fc);
}

static void test_interop__empty_file(void **state) {
  (void)state;
  file_case fc = {"interop_empty", INLET_COMPRESSION_ZSTD, true, D_REPEAT, 0, 0, 0, 0, false};
  run_case(&fc);
}

static void test_interop__one_row(void **state) {
  (void)state;
  file_case fc = {"interop_one", INLET_COMPRESSION_SNAPPY, true, D_UNIQUE, 1, 0, 0, 0, false};
  run_case(&fc);
}

/* DELTA_BINARY_PACKED for every integer-backed column: boundary values
 * (deltas that wrap), several pages and row groups, and a repeating shape. */
static void test_interop__delta_binary_packed_integers(void **state) {
  (void)state;
  file_case unique = {
      "interop_delta_unique", INLET_COMPRESSION_SNAPPY, true, D_UNIQUE, 700, 300, 900, 0, true};
  run_case(&unique);
  file_case repeat = {
      "interop_delta_repeat", INLET_COMPRESSION_UNCOMPRESSED, false, D_REPEAT, 150, 0, 0, 0, true};
  run_case(&repeat);
}

/* ---- nested leaves through the level-based column writer ----------------
 *
 * The public writer is flat for now; these build a one-column file by hand
 * (schema elements, one column writer fed explicit levels, footer) to show
 * that the level path the nested writer will use is read back by DuckDB.
 */

typedef struct nested_case {
  const char *tag;
  pq_schema_element elems[4];
  int32_t n_elems;
  const int16_t *def, *rep;
  int64_t n_levels;
  const int64_t *values; /* leaf array (INT64 or INT32 storage per elems) */
  const bool *valid;     /* leaf validity, one per leaf array entry */
  int64_t n_values;
  int64_t rows;
  int32_t codec;
  bool dictionary;
  const char *expected; /* refcheck JSON */
  int64_t split_levels; /* > 0: write in two calls, the first with this many levels */
  int64_t dict_bytes;   /* dictionary_page_bytes, 0 = 1 MiB */
} nested_case;

static void run_nested(const nested_case *nc) {
  inlet_error err = INLET_ERROR_INIT;
  char *dir = tu_mkdtemp(nc->tag);
  char path[1024], expect_path[1024], duck_path[1024];
  snprintf(path, sizeof path, "%s/data.parquet", dir);
  snprintf(expect_path, sizeof expect_path, "%s/expected.json", dir);
  snprintf(duck_path, sizeof duck_path, "%s/duckdb.json", dir);

  pq_schema_desc desc;
  pq_schema_desc_init(&desc);
  int rc = pq_schema_build_tree(&desc, nc->elems, nc->n_elems, NULL, &err);
  if (rc) fprintf(stderr, "%s: %s\n", nc->tag, inlet_errmsg(&err));
  assert_int_equal(rc, 0);
  assert_int_equal(desc.n_columns, 1);
  pq_column_desc *cd = &desc.columns[0];
  bool is64 = cd->physical_type == PQ_INT64;

  /* The leaf array, Arrow-shaped. */
  inlet_array a;
  memset(&a, 0, sizeof a);
  a.length = nc->n_values;
  a.values = calloc((size_t)nc->n_values + 1, 8);
  a.validity = calloc((size_t)nc->n_values / 8 + 1, 1);
  for (int64_t i = 0; i < nc->n_values; i++) {
    if (is64)
      ((int64_t *)a.values)[i] = nc->values[i];
    else
      ((int32_t *)a.values)[i] = (int32_t)nc->values[i];
    inlet_bit_set(a.validity, i, nc->valid[i]);
    a.null_count += !nc->valid[i];
  }

  pq_column_config cfg = {.codec = nc->codec,
                          .page_bytes = 1 << 20,
                          .dictionary = nc->dictionary,
                          .dictionary_page_bytes = nc->dict_bytes ? nc->dict_bytes : 1 << 20,
                          .statistics_truncate = 64,
                          .file_name = path};
  pq_column_writer cw;
  assert_int_equal(pq_column_writer_init(&cw, cd, &cfg, &err), 0);
  int64_t l0 = 0, v0 = 0;
  if (nc->split_levels > 0) {
    /* Leaf array entries exist for levels at or above max_def - 1 (the leaf
     * is optional in these schemas). */
    int64_t entries = 0;
    for (int64_t i = 0; i < nc->split_levels; i++)
      entries += nc->def[i] >= cd->max_def_level - 1;
    rc = pq_column_writer_write_levels(&cw, nc->def, nc->rep, nc->split_levels, &a, 0, entries,
                                       &err);
    assert_int_equal(rc, 0);
    l0 = nc->split_levels;
    v0 = entries;
  }
  rc = pq_column_writer_write_levels(&cw, nc->def ? nc->def + l0 : NULL,
                                     nc->rep ? nc->rep + l0 : NULL, nc->n_levels - l0, &a, v0,
                                     nc->n_values - v0, &err);
  if (rc) fprintf(stderr, "%s: %s\n", nc->tag, inlet_errmsg(&err));
  assert_int_equal(rc, 0);
  assert_int_equal(pq_column_writer_finish_chunk(&cw, &err), 0);

  pq_file_metadata m;
  pq_file_metadata_init(&m);
  inlet_wfile *f = NULL;
  assert_int_equal(inlet_wfile_create_path(&f, path, &err), 0);
  assert_int_equal(inlet_wfile_append(f, "PAR1", 4, &err), 0);
  assert_int_equal(pq_column_writer_write_chunk(&cw, f, &err), 0);
  pq_column_chunk cc;
  assert_int_equal(pq_column_writer_chunk_meta(&cw, 4, &m, &cc, &err), 0);
  pq_row_group rg;
  memset(&rg, 0, sizeof rg);
  rg.n_columns = 1;
  rg.columns = &cc;
  rg.num_rows = nc->rows;
  rg.total_byte_size = cc.meta_data.total_uncompressed_size;
  int32_t order = PQ_ORDER_TYPE_DEFINED;
  m.version = 2;
  m.schema = (pq_schema_element *)nc->elems;
  m.n_schema = nc->n_elems;
  m.num_rows = nc->rows;
  m.row_groups = &rg;
  m.n_row_groups = 1;
  m.column_orders = &order;
  m.n_column_orders = 1;
  m.created_by = (char *)"inlet version 0.1.0 (build inlet)";
  inlet_buf foot = INLET_BUF_INIT;
  assert_int_equal(pq_footer_serialize(&m, &foot, &err), 0);
  assert_int_equal(inlet_wfile_append(f, foot.data, foot.len, &err), 0);
  assert_int_equal(inlet_wfile_close(f, false, &err), 0);
  inlet_buf_reset(&foot);
  /* Only the arena-allocated parts belong to m. */
  m.schema = NULL;
  m.row_groups = NULL;
  m.column_orders = NULL;
  m.created_by = NULL;
  pq_file_metadata_reset(&m);
  pq_column_writer_reset(&cw);
  pq_schema_desc_reset(&desc);
  free(a.values);
  free(a.validity);

  assert_int_equal(tu_write_file(expect_path, nc->expected, strlen(nc->expected)), 0);
  tu_result res;
  tu_sh(&res, "'%s' '%s' parquet '%s' > '%s'", INLET_NODE, INLET_REFCHECK, path, duck_path);
  if (res.status != 0) {
    char *out = tu_read_file(duck_path, NULL);
    fprintf(stderr, "%s: refcheck parquet exit %d\n%s\n%s\n", nc->tag, res.status, out ? out : "",
            res.err);
    free(out);
  }
  assert_int_equal(res.status, 0);
  tu_result_free(&res);
  tu_sh(&res, "'%s' '%s' compare '%s' '%s' --ordered", INLET_NODE, INLET_REFCHECK, duck_path,
        expect_path);
  if (res.status != 0) fprintf(stderr, "%s: %s\n%s\n%s\n", nc->tag, path, res.out, res.err);
  assert_int_equal(res.status, 0);
  tu_result_free(&res);
  if (!getenv("INLET_TEST_KEEP")) tu_rmtree(dir);
}

static pq_schema_element group_el(const char *name, int rep, int32_t children, int32_t ct,
                                  pq_logical_kind lt) {
  pq_schema_element e;
  memset(&e, 0, sizeof e);
  e.name = (char *)name;
  e.has_repetition = rep >= 0;
  e.repetition = rep >= 0 ? (pq_repetition)rep : PQ_REQUIRED;
  e.has_num_children = true;
  e.num_children = children;
  e.converted_type = ct;
  e.logical.kind = lt;
  return e;
}

static pq_schema_element leaf_el(const char *name, int rep, pq_type type) {
  pq_schema_element e;
  memset(&e, 0, sizeof e);
  e.name = (char *)name;
  e.has_repetition = true;
  e.repetition = (pq_repetition)rep;
  e.has_type = true;
  e.type = type;
  e.converted_type = PQ_CT_NONE;
  return e;
}

/* optional group l (LIST) { repeated group list { optional int64 element } }
 * rows: [1, 2], null, [], [null, 3] */
static void test_interop__list_levels_read_back(void **state) {
  (void)state;
  static const int16_t def[] = {3, 3, 0, 1, 2, 3};
  static const int16_t rep[] = {0, 1, 0, 0, 0, 1};
  static const int64_t vals[] = {1, 2, 0, 3};
  static const bool valid[] = {true, true, false, true};
  for (int codec = 0; codec < 2; codec++) {
    for (int dict = 0; dict < 2; dict++) {
      nested_case nc = {"interop_list",
                        {{0}},
                        4,
                        def,
                        rep,
                        6,
                        vals,
                        valid,
                        4,
                        4,
                        codec ? PQ_CODEC_ZSTD : PQ_CODEC_UNCOMPRESSED,
                        dict,
                        "{\"rows\":[[[1,2]],[null],[[]],[[null,3]]]}",
                        0,
                        0};
      nc.elems[0] = group_el("schema", -1, 1, PQ_CT_NONE, PQ_LT_NONE);
      nc.elems[1] = group_el("l", PQ_OPTIONAL, 1, PQ_CT_LIST, PQ_LT_LIST);
      nc.elems[2] = group_el("list", PQ_REPEATED, 1, PQ_CT_NONE, PQ_LT_NONE);
      nc.elems[3] = leaf_el("element", PQ_OPTIONAL, PQ_INT64);
      run_nested(&nc);
    }
  }
}

/* optional group s { optional int32 a }: rows {a: 7}, null, {a: null}, {a: -1} */
static void test_interop__struct_levels_read_back(void **state) {
  (void)state;
  static const int16_t def[] = {2, 0, 1, 2};
  static const int64_t vals[] = {7, 0, 0, -1};
  static const bool valid[] = {true, false, false, true};
  nested_case nc = {"interop_struct",
                    {{0}},
                    3,
                    def,
                    NULL,
                    4,
                    vals,
                    valid,
                    4,
                    4,
                    PQ_CODEC_SNAPPY,
                    true,
                    "{\"rows\":[[{\"a\":7}],[null],[{\"a\":null}],[{\"a\":-1}]]}",
                    0,
                    0};
  nc.elems[0] = group_el("schema", -1, 1, PQ_CT_NONE, PQ_LT_NONE);
  nc.elems[1] = group_el("s", PQ_OPTIONAL, 1, PQ_CT_NONE, PQ_LT_NONE);
  nc.elems[2] = leaf_el("a", PQ_OPTIONAL, PQ_INT32);
  run_nested(&nc);
}

/* Many rows with repeating values, so the dictionary is kept (and, with a
 * tiny limit, falls back to PLAIN between rows). Row r: null when r % 5 == 1,
 * [] when r % 5 == 2, else [r % 3, null, 7 + r % 50]. */
static void test_interop__list_levels_with_dictionary(void **state) {
  (void)state;
  enum { ROWS = 400 };
  static int16_t def[ROWS * 3], rep[ROWS * 3];
  static int64_t vals[ROWS * 3];
  static bool valid[ROWS * 3];
  int64_t nl = 0, nv = 0;
  inlet_buf ex = INLET_BUF_INIT;
  inlet_buf_puts(&ex, "{\"rows\":[");
  for (int r = 0; r < ROWS; r++) {
    inlet_buf_puts(&ex, r ? ",[" : "[");
    if (r % 5 == 1) {
      def[nl] = 0, rep[nl++] = 0;
      inlet_buf_puts(&ex, "null]");
      continue;
    }
    if (r % 5 == 2) {
      def[nl] = 1, rep[nl++] = 0;
      inlet_buf_puts(&ex, "[]]");
      continue;
    }
    int64_t a = r % 3, c = 7 + r % 50;
    def[nl] = 3, rep[nl++] = 0;
    vals[nv] = a, valid[nv++] = true;
    def[nl] = 2, rep[nl++] = 1;
    vals[nv] = 0, valid[nv++] = false;
    def[nl] = 3, rep[nl++] = 1;
    vals[nv] = c, valid[nv++] = true;
    inlet_buf_appendf(&ex, "[%lld,null,%lld]]", (long long)a, (long long)c);
  }
  inlet_buf_puts(&ex, "]}");
  inlet_buf_terminate(&ex);
  assert_int_equal(inlet_buf_status(&ex), 0);
  nested_case nc = {
      "interop_list_dict",   {{0}}, 4, def, rep, nl, vals, valid, nv, ROWS, PQ_CODEC_SNAPPY, true,
      (const char *)ex.data, 0,     0};
  nc.elems[0] = group_el("schema", -1, 1, PQ_CT_NONE, PQ_LT_NONE);
  nc.elems[1] = group_el("l", PQ_OPTIONAL, 1, PQ_CT_LIST, PQ_LT_LIST);
  nc.elems[2] = group_el("list", PQ_REPEATED, 1, PQ_CT_NONE, PQ_LT_NONE);
  nc.elems[3] = leaf_el("element", PQ_OPTIONAL, PQ_INT64);
  run_nested(&nc);
  /* The same rows in two calls with a dictionary limit the first call
   * passes: dictionary pages, then PLAIN from the second call on. */
  nc.tag = "interop_list_fallback";
  nc.split_levels = 3 * 100; /* rows are 1 or 3 levels; find a row start */
  while (nc.split_levels < nl && rep[nc.split_levels] != 0)
    nc.split_levels++;
  nc.dict_bytes = 64;
  run_nested(&nc);
  inlet_buf_reset(&ex);
}

/* ---- nested columns through the public writer ----------------------------- */

static const char *NESTED_DDL =
    "id int not null, s struct<a:int,b:string>, l array<long>, m map<string,int>, "
    "ls array<struct<x:double,y:array<string>>>, ll array<array<int>>, lb array<boolean>, "
    "ld array<decimal(20,2)>, st struct<t:timestamp,u:uuid,bin:binary>, "
    "mm map<string,array<int>>";

/* NDJSON input and the canonical rows refcheck should print; @ is the id. */
static const char *NESTED_IN[] = {
    "{\"id\":@,\"s\":{\"a\":1,\"b\":\"x\"},\"l\":[1,2,3],\"m\":{\"k1\":1,\"k2\":2},"
    "\"ls\":[{\"x\":1.5,\"y\":[\"a\",\"b\"]}],\"ll\":[[1],[2,3]],\"lb\":[true,false,null],"
    "\"ld\":[\"1.50\",\"-2.25\",null],\"st\":{\"t\":\"2021-09-08T11:11:11Z\","
    "\"u\":\"5f1c2e3a-0000-4000-8000-00000000abcd\",\"bin\":\"00ff\"},\"mm\":{\"a\":[1,null],\"b\":"
    "[]}}",
    "{\"id\":@,\"s\":null,\"l\":null,\"m\":null,\"ls\":null,\"ll\":null}",
    "{\"id\":@,\"s\":{\"a\":null,\"b\":null},\"l\":[],\"m\":{},\"ls\":[],\"ll\":[],\"lb\":[],"
    "\"ld\":[],\"st\":{},\"mm\":{}}",
    "{\"id\":@,\"s\":{\"a\":-5},\"l\":[null,7,null],\"m\":{\"z\":null},"
    "\"ls\":[null,{\"x\":null,\"y\":null},{\"x\":2,\"y\":[]}],\"ll\":[null,[],[null,4]],"
    "\"lb\":[null],\"ld\":[\"123456789012345678.99\"],\"st\":{\"bin\":\"\"},\"mm\":{\"c\":null}}",
    "{\"id\":@}",
    "{\"id\":@,\"l\":[\"9223372036854775807\"],\"m\":{\"b\":2,\"a\":1}}",
};
static const char *NESTED_OUT[] = {
    "[@,{\"a\":1,\"b\":\"x\"},[1,2,3],[[\"k1\",1],[\"k2\",2]],[{\"x\":1.5,\"y\":[\"a\",\"b\"]}],"
    "[[1],[2,3]],[true,false,null],[\"1.50\",\"-2.25\",null],"
    "{\"t\":\"2021-09-08T11:11:11.000000Z\",\"u\":\"5f1c2e3a-0000-4000-8000-00000000abcd\","
    "\"bin\":\"00ff\"},[[\"a\",[1,null]],[\"b\",[]]]]",
    "[@,null,null,null,null,null,null,null,null,null]",
    "[@,{\"a\":null,\"b\":null},[],[],[],[],[],[],{\"t\":null,\"u\":null,\"bin\":null},[]]",
    "[@,{\"a\":-5,\"b\":null},[null,7,null],[[\"z\",null]],"
    "[null,{\"x\":null,\"y\":null},{\"x\":2,\"y\":[]}],[null,[],[null,4]],[null],"
    "[\"123456789012345678.99\"],{\"t\":null,\"u\":null,\"bin\":\"\"},[[\"c\",null]]]",
    "[@,null,null,null,null,null,null,null,null,null]",
    "[@,null,[\"9223372036854775807\"],[[\"a\",1],[\"b\",2]],null,null,null,null,null,null]",
};
#define N_NESTED ((int)(sizeof NESTED_IN / sizeof NESTED_IN[0]))

static void put_template(inlet_buf *o, const char *t, int id) {
  for (; *t; t++) {
    if (*t == '@')
      inlet_buf_appendf(o, "%d", id);
    else
      inlet_buf_push(o, (uint8_t)*t);
  }
}

static void write_ndjson_and_compare(const char *tag, const char *ddl, inlet_buf *in, inlet_buf *ex,
                                     int64_t rows, inlet_compression codec, bool dict,
                                     int64_t rg_rows, int64_t page_bytes);
/* When set, write_ndjson_and_compare calls it with the file's path once the
 * file is written (to check what the writer chose). */
static void (*g_after_write)(const char *path);
static inlet_parquet_encodings g_encodings = INLET_PARQUET_ENCODINGS_COMPATIBLE;

static void run_nested_public(const char *tag, int reps, inlet_compression codec, bool dict,
                              int64_t rg_rows, int64_t page_bytes) {
  inlet_buf in = INLET_BUF_INIT, ex = INLET_BUF_INIT;
  inlet_buf_puts(&ex, "{\"rows\":[\n");
  for (int r = 0; r < reps; r++) {
    for (int k = 0; k < N_NESTED; k++) {
      int id = r * 10 + k;
      put_template(&in, NESTED_IN[k], id);
      inlet_buf_push(&in, '\n');
      if (r || k) inlet_buf_puts(&ex, ",\n");
      put_template(&ex, NESTED_OUT[k], id);
    }
  }
  inlet_buf_puts(&ex, "\n]}\n");
  write_ndjson_and_compare(tag, NESTED_DDL, &in, &ex, (int64_t)reps * N_NESTED, codec, dict,
                           rg_rows, page_bytes);
}

/* Writes the NDJSON rows @p in (schema @p ddl) with inlet's writer, reads the
 * file with DuckDB (refcheck parquet) and compares with @p ex, the canonical
 * rows in order. Resets both buffers. */
static void write_ndjson_and_compare(const char *tag, const char *ddl, inlet_buf *in_buf,
                                     inlet_buf *ex_buf, int64_t rows, inlet_compression codec,
                                     bool dict, int64_t rg_rows, int64_t page_bytes) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema schema;
  inlet_schema_init(&schema);
  int prc = inlet_schema_parse(&schema, ddl, &err);
  if (prc) fprintf(stderr, "%s: schema %s: %s\n", tag, ddl, inlet_errmsg(&err));
  assert_int_equal(prc, 0);
  inlet_buf in = *in_buf, ex = *ex_buf;
  *in_buf = (inlet_buf)INLET_BUF_INIT;
  *ex_buf = (inlet_buf)INLET_BUF_INIT;
  assert_int_equal(inlet_buf_status(&in) | inlet_buf_status(&ex), 0);

  char *dir = tu_mkdtemp(tag);
  char path[1024], expect_path[1024], duck_path[1024];
  snprintf(path, sizeof path, "%s/data.parquet", dir);
  snprintf(expect_path, sizeof expect_path, "%s/expected.json", dir);
  snprintf(duck_path, sizeof duck_path, "%s/duckdb.json", dir);
  assert_int_equal(tu_write_file(expect_path, ex.data, ex.len), 0);

  inlet_text_reader *tr = NULL;
  inlet_text_reader_options to = INLET_TEXT_READER_OPTIONS_INIT;
  to.max_batch_rows = 100; /* several batches, boundaries inside row groups */
  assert_int_equal(inlet_text_reader_open_memory(&tr, in.data, in.len, &schema, &to, &err), 0);
  inlet_parquet_writer_options o = INLET_PARQUET_WRITER_OPTIONS_INIT;
  o.encodings = g_encodings;
  o.compression = codec;
  o.dictionary = dict;
  o.row_group_max_rows = rg_rows;
  if (page_bytes) o.page_bytes = page_bytes;
  o.sync_on_close = false;
  inlet_parquet_writer *w = NULL;
  int rc = inlet_parquet_writer_open(&w, path, &schema, &o, &err);
  if (rc) fprintf(stderr, "%s: open: %s\n", tag, inlet_errmsg(&err));
  assert_int_equal(rc, 0);
  inlet_batch b;
  memset(&b, 0, sizeof b);
  int64_t total = 0;
  for (;;) {
    rc = inlet_text_reader_next(tr, &b, &err);
    if (rc) fprintf(stderr, "%s: text: %s\n", tag, inlet_errmsg(&err));
    assert_int_equal(rc, 0);
    if (b.num_rows == 0) break;
    total += b.num_rows;
    rc = inlet_parquet_writer_write(w, &b, &err);
    if (rc) fprintf(stderr, "%s: write: %s\n", tag, inlet_errmsg(&err));
    assert_int_equal(rc, 0);
  }
  assert_int_equal(total, rows);
  assert_int_equal(inlet_parquet_writer_close(w, &err), 0);
  inlet_parquet_writer_free(w);
  if (g_after_write) g_after_write(path);
  inlet_batch_reset(&b);
  inlet_text_reader_free(tr);
  inlet_schema_reset(&schema);
  inlet_buf_reset(&in);
  inlet_buf_reset(&ex);

  tu_result res;
  tu_sh(&res, "'%s' '%s' parquet '%s' > '%s'", INLET_NODE, INLET_REFCHECK, path, duck_path);
  if (res.status != 0) {
    char *out = tu_read_file(duck_path, NULL);
    fprintf(stderr, "%s: refcheck parquet exit %d\n%s\n%s\n", tag, res.status, out ? out : "",
            res.err);
    free(out);
  }
  assert_int_equal(res.status, 0);
  tu_result_free(&res);
  tu_sh(&res, "'%s' '%s' compare '%s' '%s' --ordered", INLET_NODE, INLET_REFCHECK, duck_path,
        expect_path);
  if (res.status != 0) fprintf(stderr, "%s: %s\n%s\n%s\n", tag, path, res.out, res.err);
  assert_int_equal(res.status, 0);
  tu_result_free(&res);
  if (!getenv("INLET_TEST_KEEP")) tu_rmtree(dir);
}

static void test_interop__nested_struct_list_map_columns(void **state) {
  (void)state;
  run_nested_public("interop_nested_one", 1, INLET_COMPRESSION_SNAPPY, true, 0, 0);
  run_nested_public("interop_nested_dict", 60, INLET_COMPRESSION_ZSTD, true, 128, 256);
  run_nested_public("interop_nested_plain", 60, INLET_COMPRESSION_UNCOMPRESSED, false, 50, 300);
}

/* ---- random nested schemas ------------------------------------------------
 *
 * A seeded generator draws a schema (structs, lists and maps up to four
 * levels deep over int, long, string and boolean leaves) and rows for it,
 * with nulls at every level, empty and null lists, lists of nulls and maps
 * with null values. It prints each row twice: as NDJSON input and as the
 * canonical JSON refcheck prints for it, so the expectation comes from the
 * generator, not from inlet.
 */

typedef struct rnd_type {
  int kind; /* 0 int, 1 long, 2 string, 3 boolean, 4 struct, 5 list, 6 map */
  int n;    /* struct: fields */
  struct rnd_type *sub[3];
} rnd_type;

static uint64_t rnd_next(uint64_t *x) {
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  return *x;
}

static rnd_type *rnd_type_new(uint64_t *x, int depth) {
  rnd_type *t = calloc(1, sizeof *t);
  assert_non_null(t);
  int k = depth >= 4 ? (int)(rnd_next(x) % 4) : (int)(rnd_next(x) % 7);
  if (depth == 0 && k < 4) k = 4 + (int)(rnd_next(x) % 3); /* top columns nest */
  t->kind = k;
  if (k == 4) {
    t->n = 1 + (int)(rnd_next(x) % 3);
    for (int i = 0; i < t->n; i++)
      t->sub[i] = rnd_type_new(x, depth + 1);
  } else if (k == 5 || k == 6) {
    t->n = 1;
    t->sub[0] = rnd_type_new(x, depth + 1);
  }
  return t;
}

static void rnd_type_free(rnd_type *t) {
  if (!t) return;
  for (int i = 0; i < 3; i++)
    rnd_type_free(t->sub[i]);
  free(t);
}

static void rnd_ddl(inlet_buf *o, const rnd_type *t) {
  static const char *leaf[] = {"int", "long", "string", "boolean"};
  if (t->kind < 4) {
    inlet_buf_puts(o, leaf[t->kind]);
  } else if (t->kind == 4) {
    inlet_buf_puts(o, "struct<");
    for (int i = 0; i < t->n; i++) {
      inlet_buf_appendf(o, "%sf%d:", i ? "," : "", i);
      rnd_ddl(o, t->sub[i]);
    }
    inlet_buf_push(o, '>');
  } else {
    inlet_buf_puts(o, t->kind == 5 ? "array<" : "map<string,");
    rnd_ddl(o, t->sub[0]);
    inlet_buf_push(o, '>');
  }
}

/* One value into @p in (NDJSON) and @p ex (canonical); null one time in six. */
static void rnd_value(inlet_buf *in, inlet_buf *ex, const rnd_type *t, uint64_t *x) {
  if (rnd_next(x) % 6 == 0) {
    inlet_buf_puts(in, "null");
    inlet_buf_puts(ex, "null");
    return;
  }
  switch (t->kind) {
  case 0:
  case 1: {
    int64_t v = (int64_t)(rnd_next(x) % 2000001) - 1000000;
    if (t->kind == 1) v *= 1000;
    inlet_buf_appendf(in, "%" PRId64, v);
    inlet_buf_appendf(ex, "%" PRId64, v);
    return;
  }
  case 2: {
    unsigned v = (unsigned)(rnd_next(x) % 50);
    inlet_buf_appendf(in, "\"s%u\"", v);
    inlet_buf_appendf(ex, "\"s%u\"", v);
    return;
  }
  case 3: {
    const char *v = rnd_next(x) % 2 ? "true" : "false";
    inlet_buf_puts(in, v);
    inlet_buf_puts(ex, v);
    return;
  }
  case 4:
    inlet_buf_push(in, '{');
    inlet_buf_push(ex, '{');
    for (int i = 0; i < t->n; i++) {
      inlet_buf_appendf(in, "%s\"f%d\":", i ? "," : "", i);
      inlet_buf_appendf(ex, "%s\"f%d\":", i ? "," : "", i);
      rnd_value(in, ex, t->sub[i], x);
    }
    inlet_buf_push(in, '}');
    inlet_buf_push(ex, '}');
    return;
  default: {
    int n = (int)(rnd_next(x) % 4); /* 0: empty */
    bool map = t->kind == 6;
    inlet_buf_push(in, map ? '{' : '[');
    inlet_buf_push(ex, '[');
    for (int i = 0; i < n; i++) {
      if (i) {
        inlet_buf_push(in, ',');
        inlet_buf_push(ex, ',');
      }
      if (map) {
        /* Keys ascending: the order inlet keeps and DuckDB prints. */
        inlet_buf_appendf(in, "\"k%d\":", i);
        inlet_buf_appendf(ex, "[\"k%d\",", i);
      }
      rnd_value(in, ex, t->sub[0], x);
      if (map) inlet_buf_push(ex, ']');
    }
    inlet_buf_push(in, map ? '}' : ']');
    inlet_buf_push(ex, ']');
    return;
  }
  }
}

static void run_random_nested(uint64_t seed, int rows, inlet_compression codec, bool dict,
                              int64_t rg_rows, int64_t page_bytes) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ULL + 1;
  int ncols = 1 + (int)(rnd_next(&x) % 3);
  rnd_type *cols[3] = {NULL, NULL, NULL};
  inlet_buf ddl = INLET_BUF_INIT;
  inlet_buf_puts(&ddl, "id int not null");
  for (int c = 0; c < ncols; c++) {
    cols[c] = rnd_type_new(&x, 0);
    inlet_buf_appendf(&ddl, ", c%d ", c);
    rnd_ddl(&ddl, cols[c]);
  }
  inlet_buf_push(&ddl, '\0');
  inlet_buf in = INLET_BUF_INIT, ex = INLET_BUF_INIT;
  inlet_buf_puts(&ex, "{\"rows\":[\n");
  for (int r = 0; r < rows; r++) {
    inlet_buf_appendf(&in, "{\"id\":%d", r);
    inlet_buf_appendf(&ex, "%s[%d", r ? ",\n" : "", r);
    for (int c = 0; c < ncols; c++) {
      inlet_buf_appendf(&in, ",\"c%d\":", c);
      inlet_buf_push(&ex, ',');
      rnd_value(&in, &ex, cols[c], &x);
    }
    inlet_buf_puts(&in, "}\n");
    inlet_buf_push(&ex, ']');
  }
  inlet_buf_puts(&ex, "\n]}\n");
  assert_int_equal(inlet_buf_status(&ddl), 0);
  char tag[64];
  snprintf(tag, sizeof tag, "interop_random_nested_%" PRIu64, seed);
  write_ndjson_and_compare(tag, (const char *)ddl.data, &in, &ex, rows, codec, dict, rg_rows,
                           page_bytes);
  inlet_buf_reset(&ddl);
  for (int c = 0; c < ncols; c++)
    rnd_type_free(cols[c]);
}

/* Eight random schemas, each with small pages and several row groups, with
 * and without dictionaries, across codecs. */
static void test_interop__random_nested_schemas_read_identically(void **state) {
  (void)state;
  static const inlet_compression codecs[] = {INLET_COMPRESSION_SNAPPY, INLET_COMPRESSION_ZSTD,
                                             INLET_COMPRESSION_UNCOMPRESSED,
                                             INLET_COMPRESSION_GZIP};
  for (uint64_t seed = 1; seed <= 8; seed++)
    run_random_nested(seed, 150, codecs[seed % 4], seed % 2 == 0, 64, seed % 3 ? 512 : 0);
}

/* ---- AUTO encodings on seed-shaped data ----------------------------------- */

static void expect_auto_encodings(const char *path) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_parquet_reader *r = NULL;
  assert_int_equal(inlet_parquet_reader_open(&r, path, NULL, &err), 0);
  char *json = NULL;
  assert_int_equal(inlet_parquet_reader_metadata_json(r, &json, &err), 0);
  assert_non_null(strstr(json, "DELTA_BINARY_PACKED"));
  assert_non_null(strstr(json, "BYTE_STREAM_SPLIT"));
  assert_non_null(strstr(json, "RLE_DICTIONARY"));
  inlet_string_free(json);
  inlet_parquet_reader_free(r);
}

/* Sorted ids and event times (nullable, with nulls), a 1,000-value string,
 * two-decimal amounts and a random int column, written with EXTENDED
 * encodings (AUTO integer choice) under several codecs and small pages: the file holds DELTA,
 * BYTE_STREAM_SPLIT and dictionary pages, and DuckDB reads it identically. */
static void test_interop__auto_delta_and_split_read_identically(void **state) {
  (void)state;
  static const inlet_compression codecs[] = {INLET_COMPRESSION_ZSTD, INLET_COMPRESSION_SNAPPY};
  for (int ci = 0; ci < 2; ci++) {
    inlet_buf in = INLET_BUF_INIT, ex = INLET_BUF_INIT;
    inlet_buf_puts(&ex, "{\"rows\":[\n");
    uint64_t x = 12345;
    const int rows = 6000;
    for (int i = 0; i < rows; i++) {
      uint64_t h = ((uint64_t)i * 2654435761u) & 0xffffffffu;
      int64_t t = 1700000000000000LL + i * 1000LL + (int64_t)(h % 1000);
      int64_t cents = (int64_t)((h >> 4) % 1000000);
      int32_t rnd = (int32_t)(uint32_t)rnd_next(&x);
      inlet_buf_appendf(&in, "{\"id\":%d,\"user\":\"user_%u\",\"amount\":%" PRId64 ".%02d,", i,
                        (unsigned)((h >> 8) % 1000), cents / 100, (int)(cents % 100));
      inlet_buf_appendf(&ex, "%s[%d,\"user_%u\",", i ? ",\n" : "", i, (unsigned)((h >> 8) % 1000));
      fmt_double(&ex, (double)cents / 100.0);
      if (i % 97 == 5) {
        inlet_buf_appendf(&in, "\"t\":null,\"r\":%d}\n", (int)rnd);
        inlet_buf_appendf(&ex, ",null,%d]", (int)rnd);
      } else {
        inlet_buf_appendf(&in, "\"t\":%" PRId64 ",\"r\":%d}\n", t, (int)rnd);
        inlet_buf_appendf(&ex, ",%" PRId64 ",%d]", t, (int)rnd);
      }
    }
    inlet_buf_puts(&ex, "\n]}\n");
    g_after_write = expect_auto_encodings;
    g_encodings = INLET_PARQUET_ENCODINGS_EXTENDED;
    write_ndjson_and_compare(ci ? "interop_auto_snappy" : "interop_auto_zstd",
                             "id long not null, user string, amount double, t long, r int", &in,
                             &ex, rows, codecs[ci], true, 2500, 4096);
    g_after_write = NULL;
    g_encodings = INLET_PARQUET_ENCODINGS_COMPATIBLE;
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_interop__uncompressed_dict_and_plain),
      cmocka_unit_test(test_interop__snappy_dict_and_plain),
      cmocka_unit_test(test_interop__gzip_dict_and_plain),
      cmocka_unit_test(test_interop__zstd_dict_and_plain),
      cmocka_unit_test(test_interop__lz4_raw_dict_and_plain),
      cmocka_unit_test(test_interop__dictionary_fallback_to_plain_mid_chunk),
      cmocka_unit_test(test_interop__empty_file),
      cmocka_unit_test(test_interop__one_row),
      cmocka_unit_test(test_interop__delta_binary_packed_integers),
      cmocka_unit_test(test_interop__list_levels_read_back),
      cmocka_unit_test(test_interop__struct_levels_read_back),
      cmocka_unit_test(test_interop__list_levels_with_dictionary),
      cmocka_unit_test(test_interop__nested_struct_list_map_columns),
      cmocka_unit_test(test_interop__random_nested_schemas_read_identically),
      cmocka_unit_test(test_interop__auto_delta_and_split_read_identically),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
