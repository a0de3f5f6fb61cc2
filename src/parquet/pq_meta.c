/*
 * Parquet file metadata: compact-protocol parsing, validation and
 * serialization of parquet.thrift's FileMetaData and PageHeader families
 * (apache/parquet-format src/main/thrift/parquet.thrift), the footer reader
 * (Parquet README "File Format": "PAR1" | data | metadata | 4-byte LE
 * metadata length | "PAR1"), and the arena that owns parsed metadata.
 *
 * Parsing is lenient where writers disagree in practice (unknown fields and
 * fields of an unexpected wire type are skipped, repetition may be absent,
 * the row count sum is not checked) and strict about everything a reader
 * would later trust: sizes and counts are non-negative, lists are bounded
 * by the bytes left, the schema tree is consistent and every row group has a
 * column chunk per leaf whose type and path match the schema.
 */
#include <stdio.h>

#include "parquet/pq_meta.h"
#include "parquet/thrift.h"

/* ---- arena --------------------------------------------------------------- */

typedef struct pq_arena_chunk {
  struct pq_arena_chunk *next;
  size_t cap;
  size_t used;
  /* data follows, aligned for any object */
} pq_arena_chunk;

struct pq_arena {
  pq_arena_chunk *head;
};

#define PQ_ARENA_ALIGN 16
#define PQ_ARENA_HDR                                                                               \
  (((sizeof(pq_arena_chunk) + PQ_ARENA_ALIGN - 1) / PQ_ARENA_ALIGN) * PQ_ARENA_ALIGN)
#define PQ_ARENA_CHUNK 65536

static void arena_free(struct pq_arena *a) {
  if (!a) return;
  for (pq_arena_chunk *c = a->head, *next; c; c = next) {
    next = c->next;
    inlet_free(c);
  }
  inlet_free(a);
}

static void *arena_alloc(pq_file_metadata *m, size_t size, size_t align, inlet_error *err) {
  if (!m->arena) {
    m->arena = inlet_calloc(1, sizeof *m->arena);
    if (!m->arena) goto oom;
  }
  pq_arena_chunk *c = m->arena->head;
  if (c) {
    size_t off = (c->used + align - 1) & ~(align - 1);
    if (off <= c->cap && size <= c->cap - off) {
      c->used = off + size;
      uint8_t *p = (uint8_t *)c + PQ_ARENA_HDR + off;
      memset(p, 0, size);
      return p;
    }
  }
  /* Large requests get a chunk of their own, placed behind the current
   * head so the head's free space stays usable. */
  size_t cap = size > PQ_ARENA_CHUNK / 4 ? size : PQ_ARENA_CHUNK;
  size_t total;
  if (inlet_add_overflow_size(cap, PQ_ARENA_HDR, &total)) goto oom;
  pq_arena_chunk *n = inlet_malloc(total);
  if (!n) goto oom;
  n->cap = cap;
  n->used = size;
  if (c && cap != PQ_ARENA_CHUNK) {
    n->next = c->next;
    c->next = n;
  } else {
    n->next = c;
    m->arena->head = n;
  }
  uint8_t *p = (uint8_t *)n + PQ_ARENA_HDR;
  memset(p, 0, size);
  return p;
oom:
  inlet_fail(err, INLET_ENOMEM, "out of memory allocating %zu bytes of Parquet metadata", size);
  return NULL;
}

void *pq_meta_alloc(pq_file_metadata *m, size_t size, inlet_error *err) {
  return arena_alloc(m, size ? size : 1, PQ_ARENA_ALIGN, err);
}

void *pq_meta_alloc_array(pq_file_metadata *m, size_t n, size_t size, inlet_error *err) {
  size_t total;
  if (inlet_mul_overflow_size(n, size, &total)) {
    inlet_fail(err, INLET_ENOMEM, "Parquet metadata array of %zu x %zu bytes overflows", n, size);
    return NULL;
  }
  return pq_meta_alloc(m, total, err);
}

char *pq_meta_strndup(pq_file_metadata *m, const char *s, size_t len, inlet_error *err) {
  size_t total;
  if (inlet_add_overflow_size(len, 1, &total)) {
    inlet_fail(err, INLET_ENOMEM, "string too long");
    return NULL;
  }
  char *p = arena_alloc(m, total, 1, err);
  if (p && len) memcpy(p, s, len);
  return p;
}

char *pq_meta_strdup(pq_file_metadata *m, const char *s, inlet_error *err) {
  return pq_meta_strndup(m, s, strlen(s), err);
}

int pq_meta_set_kv(pq_file_metadata *m, pq_key_value *kv, const char *key, const char *value,
                   inlet_error *err) {
  size_t kl = strlen(key);
  size_t vl = value ? strlen(value) : 0;
  FAIL_IF(kl > INT32_MAX || vl > INT32_MAX, err, INLET_EINVAL, "key/value metadata too long");
  kv->key = pq_meta_strndup(m, key, kl, err);
  if (!kv->key) return INLET_ENOMEM;
  kv->key_len = (uint32_t)kl;
  kv->value = NULL;
  kv->value_len = 0;
  if (value) {
    kv->value = pq_meta_strndup(m, value, vl, err);
    if (!kv->value) return INLET_ENOMEM;
    kv->value_len = (uint32_t)vl;
  }
  return 0;
}

void pq_file_metadata_init(pq_file_metadata *m) {
  memset(m, 0, sizeof *m);
}

void pq_file_metadata_reset(pq_file_metadata *m) {
  if (!m) return;
  arena_free(m->arena);
  pq_file_metadata_init(m);
}

/* ---- names --------------------------------------------------------------- */

const char *pq_type_name(int32_t type) {
  static const char *const names[] = {"BOOLEAN", "INT32",  "INT64",      "INT96",
                                      "FLOAT",   "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
  return type >= 0 && type < 8 ? names[type] : "?";
}

const char *pq_encoding_name(int32_t e) {
  switch (e) {
  case PQ_ENC_PLAIN: return "PLAIN";
  case 1: return "GROUP_VAR_INT";
  case PQ_ENC_PLAIN_DICTIONARY: return "PLAIN_DICTIONARY";
  case PQ_ENC_RLE: return "RLE";
  case PQ_ENC_BIT_PACKED: return "BIT_PACKED";
  case PQ_ENC_DELTA_BINARY_PACKED: return "DELTA_BINARY_PACKED";
  case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY: return "DELTA_LENGTH_BYTE_ARRAY";
  case PQ_ENC_DELTA_BYTE_ARRAY: return "DELTA_BYTE_ARRAY";
  case PQ_ENC_RLE_DICTIONARY: return "RLE_DICTIONARY";
  case PQ_ENC_BYTE_STREAM_SPLIT: return "BYTE_STREAM_SPLIT";
  default: return "UNKNOWN";
  }
}

const char *pq_page_type_name(int32_t t) {
  static const char *const names[] = {"DATA_PAGE", "INDEX_PAGE", "DICTIONARY_PAGE", "DATA_PAGE_V2"};
  return t >= 0 && t < 4 ? names[t] : "UNKNOWN";
}

const char *pq_converted_type_name(int32_t ct) {
  static const char *const names[] = {"UTF8",
                                      "MAP",
                                      "MAP_KEY_VALUE",
                                      "LIST",
                                      "ENUM",
                                      "DECIMAL",
                                      "DATE",
                                      "TIME_MILLIS",
                                      "TIME_MICROS",
                                      "TIMESTAMP_MILLIS",
                                      "TIMESTAMP_MICROS",
                                      "UINT_8",
                                      "UINT_16",
                                      "UINT_32",
                                      "UINT_64",
                                      "INT_8",
                                      "INT_16",
                                      "INT_32",
                                      "INT_64",
                                      "JSON",
                                      "BSON",
                                      "INTERVAL"};
  if (ct == PQ_CT_NONE) return "NONE";
  return ct >= 0 && ct < 22 ? names[ct] : "UNKNOWN";
}

const char *pq_repetition_name(int32_t rep) {
  static const char *const names[] = {"REQUIRED", "OPTIONAL", "REPEATED", "VECTOR"};
  return rep >= 0 && rep < 4 ? names[rep] : "UNKNOWN";
}

/* ---- parsing ------------------------------------------------------------- */

/* Parse context. m == NULL means "page header mode": nothing is copied and
 * byte strings are views into the input. */
typedef struct pctx {
  inlet_thrift_reader r;
  pq_file_metadata *m;
  inlet_error *err;
  int rc; /* code of the last failed list_alloc */
} pctx;

/* Skips the value when the wire type is not the one the schema declares;
 * thrift readers treat a type mismatch as an unknown field. */
#define EXPECT(ty)                                                                                 \
  if (t != (ty)) {                                                                                 \
    TRY(inlet_thrift_skip(&c->r, t));                                                              \
    break;                                                                                         \
  }
#define EXPECT_BOOL()                                                                              \
  if (t != INLET_THRIFT_BOOL_TRUE && t != INLET_THRIFT_BOOL_FALSE) {                               \
    TRY(inlet_thrift_skip(&c->r, t));                                                              \
    break;                                                                                         \
  }

static int get_bytes(pctx *c, pq_bytes *out) {
  const uint8_t *d;
  uint32_t n;
  TRY(inlet_thrift_read_binary(&c->r, &d, &n));
  if (c->m) {
    uint8_t *copy = arena_alloc(c->m, n ? n : 1, 1, c->err);
    if (!copy) return INLET_ENOMEM;
    if (n) memcpy(copy, d, n);
    d = copy;
  }
  out->data = d;
  out->len = n;
  return 0;
}

static int get_string(pctx *c, char **out, uint32_t *len) {
  const uint8_t *d;
  uint32_t n;
  TRY(inlet_thrift_read_binary(&c->r, &d, &n));
  if (!c->m) return INLET_EINTERNAL; /* strings only occur in the footer */
  char *s = pq_meta_strndup(c->m, (const char *)d, n, c->err);
  if (!s) return INLET_ENOMEM;
  *out = s;
  if (len) *len = n;
  return 0;
}

static int corrupt(pctx *c, const char *what) {
  return inlet_fail(c->err, INLET_ECORRUPT, "corrupt thrift data at byte %zu: %s",
                    inlet_thrift_reader_offset(&c->r), what);
}

/* Allocates the array for a list of @p n elements of @p size bytes, after
 * checking that n elements of at least @p min_bytes each fit in the input
 * (bounds the memory a hostile footer can make us allocate). */
static void *list_alloc(pctx *c, uint32_t n, size_t size, size_t min_bytes, const char *what) {
  if ((uint64_t)n * min_bytes > inlet_thrift_reader_remaining(&c->r)) {
    char msg[128];
    snprintf(msg, sizeof msg, "%s list of %u elements cannot fit in the %zu bytes left", what, n,
             inlet_thrift_reader_remaining(&c->r));
    c->rc = corrupt(c, msg);
    return NULL;
  }
  c->rc = INLET_ENOMEM;
  return pq_meta_alloc_array(c->m, n, size, c->err);
}

static int parse_statistics(pctx *c, pq_statistics *s) {
  memset(s, 0, sizeof *s);
  TRY(inlet_thrift_read_struct_begin(&c->r));
  for (;;) {
    int16_t id;
    uint8_t t;
    TRY(inlet_thrift_read_field(&c->r, &id, &t));
    if (t == INLET_THRIFT_STOP) break;
    switch (id) {
    case 1:
      EXPECT(INLET_THRIFT_BINARY);
      TRY(get_bytes(c, &s->max));
      s->has_max = true;
      break;
    case 2:
      EXPECT(INLET_THRIFT_BINARY);
      TRY(get_bytes(c, &s->min));
      s->has_min = true;
      break;
    case 3:
      EXPECT(INLET_THRIFT_I64);
      TRY(inlet_thrift_read_i64(&c->r, &s->null_count));
      s->has_null_count = true;
      break;
    case 4:
      EXPECT(INLET_THRIFT_I64);
      TRY(inlet_thrift_read_i64(&c->r, &s->distinct_count));
      s->has_distinct_count = true;
      break;
    case 5:
      EXPECT(INLET_THRIFT_BINARY);
      TRY(get_bytes(c, &s->max_value));
      s->has_max_value = true;
      break;
    case 6:
      EXPECT(INLET_THRIFT_BINARY);
      TRY(get_bytes(c, &s->min_value));
      s->has_min_value = true;
      break;
    case 7:
      EXPECT_BOOL();
      TRY(inlet_thrift_read_bool(&c->r, &s->is_max_value_exact));
      s->has_is_max_value_exact = true;
      break;
    case 8:
      EXPECT_BOOL();
      TRY(inlet_thrift_read_bool(&c->r, &s->is_min_value_exact));
      s->has_is_min_value_exact = true;
      break;
    case 9:
      EXPECT(INLET_THRIFT_I64);
      TRY(inlet_thrift_read_i64(&c->r, &s->nan_count));
      s->has_nan_count = true;
      break;
    default: TRY(inlet_thrift_skip(&c->r, t)); break;
    }
  }
  TRY(inlet_thrift_read_struct_end(&c->r));
  if ((s->has_null_count && s->null_count < 0) ||
      (s->has_distinct_count && s->distinct_count < 0) || (s->has_nan_count && s->nan_count < 0))
    return corrupt(c, "negative count in statistics");
  return 0;
}

/* Reads a union member that is a struct and returns which member was set
 * (0 if none); member structs' contents are handed to @p member. */
static int parse_time_unit(pctx *c, pq_time_unit *unit) {
  *unit = PQ_UNIT_NONE;
  TRY(inlet_thrift_read_struct_begin(&c->r));
  for (;;) {
    int16_t id;
    uint8_t t;
    TRY(inlet_thrift_read_field(&c->r, &id, &t));
    if (t == INLET_THRIFT_STOP) break;
    if (t == INLET_THRIFT_STRUCT && id >= 1 && id <= 3) *unit = (pq_time_unit)id;
    TRY(inlet_thrift_skip(&c->r, t));
  }
  return inlet_thrift_read_struct_end(&c->r);
}

/* TimeType and TimestampType share their layout. */
static int parse_time_like(pctx *c, pq_logical_type *lt) {
  bool have_utc = false;
  TRY(inlet_thrift_read_struct_begin(&c->r));
  for (;;) {
    int16_t id;
    uint8_t t;
    TRY(inlet_thrift_read_field(&c->r, &id, &t));
    if (t == INLET_THRIFT_STOP) break;
    switch (id) {
    case 1:
      EXPECT_BOOL();
      TRY(inlet_thrift_read_bool(&c->r, &lt->utc));
      have_utc = true;
      break;
    case 2:
      EXPECT(INLET_THRIFT_STRUCT);
      TRY(parse_time_unit(c, &lt->unit));
      break;
    default: TRY(inlet_thrift_skip(&c->r, t)); break;
    }
  }
  TRY(inlet_thrift_read_struct_end(&c->r));
  if (!have_utc || lt->unit == PQ_UNIT_NONE)
    return corrupt(c, "TIME/TIMESTAMP logical type lacks isAdjustedToUTC or a known unit");
  return 0;
}

static int parse_decimal_type(pctx *c, pq_logical_type *lt) {
  unsigned have = 0;
  TRY(inlet_thrift_read_struct_begin(&c->r));
  for (;;) {
    int16_t id;
    uint8_t t;
    TRY(inlet_thrift_read_field(&c->r, &id, &t));
    if (t == INLET_THRIFT_STOP) break;
    switch (id) {
    case 1:
      EXPECT(INLET_THRIFT_I32);
      TRY(inlet_thrift_read_i32(&c->r, &lt->scale));
      have |= 1;
      break;
    case 2:
      EXPECT(INLET_THRIFT_I32);
      TRY(inlet_thrift_read_i32(&c->r, &lt->precision));
      have |= 2;
      break;
    default: TRY(inlet_thrift_skip(&c->r, t)); break;
    }
  }
  TRY(inlet_thrift_read_struct_end(&c->r));
  if (have != 3) return corrupt(c, "DECIMAL logical type lacks scale or precision");
  return 0;
}

static int parse_int_type(pctx *c, pq_logical_type *lt) {
  unsigned have = 0;
  TRY(inlet_thrift_read_struct_begin(&c->r));
  for (;;) {
    int16_t id;
    uint8_t t;
    TRY(inlet_thrift_read_field(&c->r, &id, &t));
    if (t == INLET_THRIFT_STOP) break;
    switch (id) {
    case 1:
      EXPECT(INLET_THRIFT_BYTE);
      TRY(inlet_thrift_read_i8(&c->r, &lt->bit_width));
      have |= 1;
      break;
    case 2:
      EXPECT_BOOL();
      TRY(inlet_thrift_read_bool(&c->r, &lt->is_signed));
      have |= 2;
      break;
    default: TRY(inlet_thrift_skip(&c->r, t)); break;
    }
  }
  TRY(inlet_thrift_read_struct_end(&c->r));
  if (have != 3) return corrupt(c, "INTEGER logical type lacks bitWidth or isSigned");
  return 0;
}

static int parse_logical_type(pctx *c, pq_logical_type *lt) {
  memset(lt, 0, sizeof *lt);
  TRY(inlet_thrift_read_struct_begin(&c->r));
  for (;;) {
    int16_t id;
    uint8_t t;
    TRY(inlet_thrift_read_field(&c->r, &id, &t));
    if (t == INLET_THRIFT_STOP) break;
    if (t != INLET_THRIFT_STRUCT) {
      TRY(inlet_thrift_skip(&c->r, t));
      continue;
    }
    switch (id) {
    case PQ_LT_DECIMAL:
      lt->kind = PQ_LT_DECIMAL;
      TRY(parse_decimal_type(c, lt));
      break;
    case PQ_LT_TIME:
    case PQ_LT_TIMESTAMP:
      lt->kind = (pq_logical_kind)id;
      TRY(parse_time_like(c, lt));
      break;
    case PQ_LT_INTEGER:
      lt->kind = PQ_LT_INTEGER;
      TRY(parse_int_type(c, lt));
      break;
    case PQ_LT_STRING:
    case PQ_LT_MAP:
    case PQ_LT_LIST:
    case PQ_LT_ENUM:
    case PQ_LT_DATE:
    case PQ_LT_NULL:
    case PQ_LT_JSON:
    case PQ_LT_BSON:
    case PQ_LT_UUID:
    case PQ_LT_FLOAT16:
    case PQ_LT_VARIANT:
    case PQ_LT_GEOMETRY:
    case PQ_LT_GEOGRAPHY:
      /* Members without parameters inlet uses; their content is skipped. */
      lt->kind = (pq_logical_kind)id;
      TRY(inlet_thrift_skip(&c->r, t));
      break;
    default:
      /* Non-positive ids cannot name a union member; ignoring them keeps
       * serialize(parse(x)) stable. */
      if (id > 0) {
        lt->kind = PQ_LT_OTHER;
        lt->other_id = id;
      }
      TRY(inlet_thrift_skip(&c->r, t));
      break;
    }
  }
  return inlet_thrift_read_struct_end(&c->r);
}

static int parse_schema_element(pctx *c, pq_schema_element *e) {
  memset(e, 0, sizeof *e);
  e->converted_type = PQ_CT_NONE;
  bool have_name = false;
  TRY(inlet_thrift_read_struct_begin(&c->r));
  for (;;) {
    int16_t id;
    uint8_t t;
    int32_t v;
    TRY(inlet_thrift_read_field(&c->r, &id, &t));
    if (t == INLET_THRIFT_STOP) break;
    switch (id) {
    case 1:
      EXPECT(INLET_THRIFT_I32);
      TRY(inlet_thrift_read_i32(&c->r, &v));
      if (v < 0 || v > PQ_FIXED_LEN_BYTE_ARRAY) return corrupt(c, "unknown physical type");
      e->type = (pq_type)v;
      e->has_type = true;
      break;
    case 2:
      EXPECT(INLET_THRIFT_I32);
      TRY(inlet_thrift_read_i32(&c->r, &e->type_length));
      e->has_type_length = true;
      break;
    case 3:
      EXPECT(INLET_THRIFT_I32);
      TRY(inlet_thrift_read_i32(&c->r, &v));
      /* VECTOR (3) is newer than this code: kept so the mapping can refuse it. */
      if (v < 0 || v > 3) return corrupt(c, "unknown repetition type");
      e->repetition = (pq_repetition)v;
      e->has_repetition = true;
      break;
    case 4:
      EXPECT(INLET_THRIFT_BINARY);
      TRY(get_string(c, &e->name, NULL));
      have_name = true;
      break;
    case 5:
      EXPECT(INLET_THRIFT_I32);
      TRY(inlet_thrift_read_i32(&c->r, &e->num_children));
      e->has_num_children = true;
      break;
    case 6:
      EXPECT(INLET_THRIFT_I32);
      TRY(inlet_thrift_read_i32(&c->r, &e->converted_type));
      break;
    case 7:
      EXPECT(INLET_THRIFT_I32);
      TRY(inlet_thrift_read_i32(&c->r, &e->scale));
      e->has_scale = true;
      break;
    case 8:
      EXPECT(INLET_THRIFT_I32);
      TRY(inlet_thrift_read_i32(&c->r, &e->precision));
      e->has_precision = true;
      break;
    case 9:
      EXPECT(INLET_THRIFT_I32);
      TRY(inlet_thrift_read_i32(&c->r, &e->field_id));
      e->has_field_id = true;
      break;
    case 10:
      EXPECT(INLET_THRIFT_STRUCT);
      TRY(parse_logical_type(c, &e->logical));
      break;
    default: TRY(inlet_thrift_skip(&c->r, t)); break;
    }
  }
  TRY(inlet_thrift_read_struct_end(&c->r));
  if (!have_name) return corrupt(c, "schema element without a name");
  return 0;
}

static int parse_key_value(pctx *c, pq_key_value *kv) {
  memset(kv, 0, sizeof *kv);
  bool have_key = false;
  TRY(inlet_thrift_read_struct_begin(&c->r));
  for (;;) {
    int16_t id;
    uint8_t t;
    TRY(inlet_thrift_read_field(&c->r, &id, &t));
    if (t == INLET_THRIFT_STOP) break;
    switch (id) {
    case 1:
      EXPECT(INLET_THRIFT_BINARY);
      TRY(get_string(c, &kv->key, &kv->key_len));
      have_key = true;
      break;
    case 2:
      EXPECT(INLET_THRIFT_BINARY);
      TRY(get_string(c, &kv->value, &kv->value_len));
      break;
    default: TRY(inlet_thrift_skip(&c->r, t)); break;
    }
  }
  TRY(inlet_thrift_read_struct_end(&c->r));
  if (!have_key) return corrupt(c, "key/value metadata without a key");
  return 0;
}

static int parse_kv_list(pctx *c, int32_t *n_out, pq_key_value **out) {
  uint8_t et;
  uint32_t n;
  TRY(inlet_thrift_read_list_begin(&c->r, &et, &n));
  if (n && et != INLET_THRIFT_STRUCT) return corrupt(c, "key/value list of non-structs");
  pq_key_value *kv = list_alloc(c, n, sizeof *kv, 3, "key/value");
  if (!kv) return c->rc;
  for (uint32_t i = 0; i < n; i++)
    TRY(parse_key_value(c, &kv[i]));
  *n_out = (int32_t)n;
  *out = kv;
  return inlet_thrift_read_list_end(&c->r);
}

static int parse_i32_list(pctx *c, int32_t *n_out, int32_t **out) {
  uint8_t et;
  uint32_t n;
  TRY(inlet_thrift_read_list_begin(&c->r, &et, &n));
  /* Generated thrift readers read list<i32> elements as varints whatever
   * element type the header announces, and some writers announce i16 (e.g.
   * bad_data/ARROW-GH-41317.parquet): accept the varint integer types. */
  if (n && et != INLET_THRIFT_I32 && et != INLET_THRIFT_I16 && et != INLET_THRIFT_I64)
    return corrupt(c, "expected a list of i32");
  int32_t *v = list_alloc(c, n, sizeof *v, 1, "i32");
  if (!v) return c->rc;
  for (uint32_t i = 0; i < n; i++)
    TRY(inlet_thrift_read_i32(&c->r, &v[i]));
  *n_out = (int32_t)n;
  *out = v;
  return inlet_thrift_read_list_end(&c->r);
}

static int parse_encoding_stats(pctx *c, pq_page_encoding_stats *s) {
  unsigned have = 0;
  TRY(inlet_thrift_read_struct_begin(&c->r));
  for (;;) {
    int16_t id;
    uint8_t t;
    TRY(inlet_thrift_read_field(&c->r, &id, &t));
    if (t == INLET_THRIFT_STOP) break;
    switch (id) {
    case 1:
      EXPECT(INLET_THRIFT_I32);
      TRY(inlet_thrift_read_i32(&c->r, &s->page_type));
      have |= 1;
      break;
    case 2:
      EXPECT(INLET_THRIFT_I32);
      TRY(inlet_thrift_read_i32(&c->r, &s->encoding));
      have |= 2;
      break;
    case 3:
      EXPECT(INLET_THRIFT_I32);
      TRY(inlet_thrift_read_i32(&c->r, &s->count));
      have |= 4;
      break;
    default: TRY(inlet_thrift_skip(&c->r, t)); break;
    }
  }
  TRY(inlet_thrift_read_struct_end(&c->r));
  if (have != 7) return corrupt(c, "page encoding stats lack a required field");
  if (s->count < 0) return corrupt(c, "negative page count in encoding stats");
  return 0;
}

static int parse_column_meta(pctx *c, pq_column_meta *cm) {
  unsigned have = 0;
  TRY(inlet_thrift_read_struct_begin(&c->r));
  for (;;) {
    int16_t id;
    uint8_t t;
    int32_t v;
    TRY(inlet_thrift_read_field(&c->r, &id, &t));
    if (t == INLET_THRIFT_STOP) break;
    switch (id) {
    case 1:
      EXPECT(INLET_THRIFT_I32);
      TRY(inlet_thrift_read_i32(&c->r, &v));
      if (v < 0 || v > PQ_FIXED_LEN_BYTE_ARRAY) return corrupt(c, "unknown physical type");
      cm->type = (pq_type)v;
      have |= 1;
      break;
    case 2:
      EXPECT(INLET_THRIFT_LIST);
      TRY(parse_i32_list(c, &cm->n_encodings, &cm->encodings));
      have |= 2;
      break;
    case 3: {
      EXPECT(INLET_THRIFT_LIST);
      uint8_t et;
      uint32_t n;
      TRY(inlet_thrift_read_list_begin(&c->r, &et, &n));
      if (n && et != INLET_THRIFT_BINARY)
        return corrupt(c, "path_in_schema is not a list of strings");
      char **parts = list_alloc(c, n, sizeof *parts, 1, "path_in_schema");
      if (!parts) return c->rc;
      for (uint32_t i = 0; i < n; i++)
        TRY(get_string(c, &parts[i], NULL));
      TRY(inlet_thrift_read_list_end(&c->r));
      cm->n_path = (int32_t)n;
      cm->path_in_schema = parts;
      have |= 4;
      break;
    }
    case 4:
      EXPECT(INLET_THRIFT_I32);
      TRY(inlet_thrift_read_i32(&c->r, &cm->codec));
      have |= 8;
      break;
    case 5:
      EXPECT(INLET_THRIFT_I64);
      TRY(inlet_thrift_read_i64(&c->r, &cm->num_values));
      have |= 16;
      break;
    case 6:
      EXPECT(INLET_THRIFT_I64);
      TRY(inlet_thrift_read_i64(&c->r, &cm->total_uncompressed_size));
      have |= 32;
      break;
    case 7:
      EXPECT(INLET_THRIFT_I64);
      TRY(inlet_thrift_read_i64(&c->r, &cm->total_compressed_size));
      have |= 64;
      break;
    case 8:
      EXPECT(INLET_THRIFT_LIST);
      TRY(parse_kv_list(c, &cm->n_key_value, &cm->key_value));
      break;
    case 9:
      EXPECT(INLET_THRIFT_I64);
      TRY(inlet_thrift_read_i64(&c->r, &cm->data_page_offset));
      have |= 128;
      break;
    case 10:
      EXPECT(INLET_THRIFT_I64);
      TRY(inlet_thrift_read_i64(&c->r, &cm->index_page_offset));
      cm->has_index_page_offset = true;
      break;
    case 11:
      EXPECT(INLET_THRIFT_I64);
      TRY(inlet_thrift_read_i64(&c->r, &cm->dictionary_page_offset));
      cm->has_dictionary_page_offset = true;
      break;
    case 12:
      EXPECT(INLET_THRIFT_STRUCT);
      TRY(parse_statistics(c, &cm->statistics));
      cm->has_statistics = true;
      break;
    case 13: {
      EXPECT(INLET_THRIFT_LIST);
      uint8_t et;
      uint32_t n;
      TRY(inlet_thrift_read_list_begin(&c->r, &et, &n));
      if (n && et != INLET_THRIFT_STRUCT)
        return corrupt(c, "encoding_stats is not a list of structs");
      pq_page_encoding_stats *s = list_alloc(c, n, sizeof *s, 7, "encoding_stats");
      if (!s) return c->rc;
      for (uint32_t i = 0; i < n; i++)
        TRY(parse_encoding_stats(c, &s[i]));
      TRY(inlet_thrift_read_list_end(&c->r));
      cm->n_encoding_stats = (int32_t)n;
      cm->encoding_stats = s;
      break;
    }
    case 14:
      EXPECT(INLET_THRIFT_I64);
      TRY(inlet_thrift_read_i64(&c->r, &cm->bloom_filter_offset));
      cm->has_bloom_filter_offset = true;
      break;
    case 15:
      EXPECT(INLET_THRIFT_I32);
      TRY(inlet_thrift_read_i32(&c->r, &cm->bloom_filter_length));
      cm->has_bloom_filter_length = true;
      break;
    default: TRY(inlet_thrift_skip(&c->r, t)); break;
    }
  }
  TRY(inlet_thrift_read_struct_end(&c->r));
  if (have != 255) return corrupt(c, "column metadata lacks a required field");
  return 0;
}

static int parse_column_chunk(pctx *c, pq_column_chunk *cc) {
  TRY(inlet_thrift_read_struct_begin(&c->r));
  for (;;) {
    int16_t id;
    uint8_t t;
    TRY(inlet_thrift_read_field(&c->r, &id, &t));
    if (t == INLET_THRIFT_STOP) break;
    switch (id) {
    case 1:
      EXPECT(INLET_THRIFT_BINARY);
      TRY(get_string(c, &cc->file_path, NULL));
      break;
    case 2:
      EXPECT(INLET_THRIFT_I64);
      TRY(inlet_thrift_read_i64(&c->r, &cc->file_offset));
      break;
    case 3:
      EXPECT(INLET_THRIFT_STRUCT);
      TRY(parse_column_meta(c, &cc->meta_data));
      cc->has_meta_data = true;
      break;
    case 4:
      EXPECT(INLET_THRIFT_I64);
      TRY(inlet_thrift_read_i64(&c->r, &cc->offset_index_offset));
      cc->has_offset_index = true;
      break;
    case 5:
      EXPECT(INLET_THRIFT_I32);
      TRY(inlet_thrift_read_i32(&c->r, &cc->offset_index_length));
      break;
    case 6:
      EXPECT(INLET_THRIFT_I64);
      TRY(inlet_thrift_read_i64(&c->r, &cc->column_index_offset));
      cc->has_column_index = true;
      break;
    case 7:
      EXPECT(INLET_THRIFT_I32);
      TRY(inlet_thrift_read_i32(&c->r, &cc->column_index_length));
      break;
    case 8:
      cc->has_crypto_metadata = true;
      TRY(inlet_thrift_skip(&c->r, t));
      break;
    case 9:
      cc->has_encrypted_column_metadata = true;
      TRY(inlet_thrift_skip(&c->r, t));
      break;
    default: TRY(inlet_thrift_skip(&c->r, t)); break;
    }
  }
  return inlet_thrift_read_struct_end(&c->r);
}

static int parse_sorting_column(pctx *c, pq_sorting_column *s) {
  unsigned have = 0;
  TRY(inlet_thrift_read_struct_begin(&c->r));
  for (;;) {
    int16_t id;
    uint8_t t;
    TRY(inlet_thrift_read_field(&c->r, &id, &t));
    if (t == INLET_THRIFT_STOP) break;
    switch (id) {
    case 1:
      EXPECT(INLET_THRIFT_I32);
      TRY(inlet_thrift_read_i32(&c->r, &s->column_idx));
      have |= 1;
      break;
    case 2:
      EXPECT_BOOL();
      TRY(inlet_thrift_read_bool(&c->r, &s->descending));
      have |= 2;
      break;
    case 3:
      EXPECT_BOOL();
      TRY(inlet_thrift_read_bool(&c->r, &s->nulls_first));
      have |= 4;
      break;
    default: TRY(inlet_thrift_skip(&c->r, t)); break;
    }
  }
  TRY(inlet_thrift_read_struct_end(&c->r));
  if (have != 7) return corrupt(c, "sorting column lacks a required field");
  return 0;
}

/* Leaves known so far (schema parsed before row groups, as every writer
 * does); -1 when unknown. Used to refuse impossible column counts before
 * allocating for them. */
static int parse_row_group(pctx *c, pq_row_group *rg, int32_t leaves) {
  unsigned have = 0;
  TRY(inlet_thrift_read_struct_begin(&c->r));
  for (;;) {
    int16_t id;
    uint8_t t;
    TRY(inlet_thrift_read_field(&c->r, &id, &t));
    if (t == INLET_THRIFT_STOP) break;
    switch (id) {
    case 1: {
      EXPECT(INLET_THRIFT_LIST);
      uint8_t et;
      uint32_t n;
      TRY(inlet_thrift_read_list_begin(&c->r, &et, &n));
      if (n && et != INLET_THRIFT_STRUCT) return corrupt(c, "row group columns are not structs");
      if (leaves >= 0 && n != (uint32_t)leaves) {
        char msg[96];
        snprintf(msg, sizeof msg, "row group has %u column chunks but the schema has %d leaves", n,
                 leaves);
        return corrupt(c, msg);
      }
      /* 20 bytes is about the smallest ColumnChunk with its required
       * ColumnMetaData fields. */
      pq_column_chunk *cols = list_alloc(c, n, sizeof *cols, 20, "column chunk");
      if (!cols) return c->rc;
      for (uint32_t i = 0; i < n; i++)
        TRY(parse_column_chunk(c, &cols[i]));
      TRY(inlet_thrift_read_list_end(&c->r));
      rg->n_columns = (int32_t)n;
      rg->columns = cols;
      have |= 1;
      break;
    }
    case 2:
      EXPECT(INLET_THRIFT_I64);
      TRY(inlet_thrift_read_i64(&c->r, &rg->total_byte_size));
      have |= 2;
      break;
    case 3:
      EXPECT(INLET_THRIFT_I64);
      TRY(inlet_thrift_read_i64(&c->r, &rg->num_rows));
      have |= 4;
      break;
    case 4: {
      EXPECT(INLET_THRIFT_LIST);
      uint8_t et;
      uint32_t n;
      TRY(inlet_thrift_read_list_begin(&c->r, &et, &n));
      if (n && et != INLET_THRIFT_STRUCT) return corrupt(c, "sorting columns are not structs");
      pq_sorting_column *s = list_alloc(c, n, sizeof *s, 5, "sorting column");
      if (!s) return c->rc;
      for (uint32_t i = 0; i < n; i++)
        TRY(parse_sorting_column(c, &s[i]));
      TRY(inlet_thrift_read_list_end(&c->r));
      rg->n_sorting_columns = (int32_t)n;
      rg->sorting_columns = s;
      break;
    }
    case 5:
      EXPECT(INLET_THRIFT_I64);
      TRY(inlet_thrift_read_i64(&c->r, &rg->file_offset));
      rg->has_file_offset = true;
      break;
    case 6:
      EXPECT(INLET_THRIFT_I64);
      TRY(inlet_thrift_read_i64(&c->r, &rg->total_compressed_size));
      rg->has_total_compressed_size = true;
      break;
    case 7:
      EXPECT(INLET_THRIFT_I16);
      TRY(inlet_thrift_read_i16(&c->r, &rg->ordinal));
      rg->has_ordinal = true;
      break;
    default: TRY(inlet_thrift_skip(&c->r, t)); break;
    }
  }
  TRY(inlet_thrift_read_struct_end(&c->r));
  if (have != 7) return corrupt(c, "row group lacks columns, total_byte_size or num_rows");
  return 0;
}

/* ColumnOrder union: the member id; 0 when empty. */
static int parse_column_order(pctx *c, int32_t *order) {
  *order = 0;
  TRY(inlet_thrift_read_struct_begin(&c->r));
  for (;;) {
    int16_t id;
    uint8_t t;
    TRY(inlet_thrift_read_field(&c->r, &id, &t));
    if (t == INLET_THRIFT_STOP) break;
    if (t == INLET_THRIFT_STRUCT) *order = id;
    TRY(inlet_thrift_skip(&c->r, t));
  }
  return inlet_thrift_read_struct_end(&c->r);
}

static int validate_schema(const pq_file_metadata *m, int32_t *leaf_elems, int32_t *n_leaves,
                           inlet_error *err);

static int parse_file_metadata(pctx *c, pq_file_metadata *m) {
  unsigned have = 0;
  int32_t leaves = -1; /* unknown until the schema is parsed */
  TRY(inlet_thrift_read_struct_begin(&c->r));
  for (;;) {
    int16_t id;
    uint8_t t;
    TRY(inlet_thrift_read_field(&c->r, &id, &t));
    if (t == INLET_THRIFT_STOP) break;
    switch (id) {
    case 1:
      EXPECT(INLET_THRIFT_I32);
      TRY(inlet_thrift_read_i32(&c->r, &m->version));
      have |= 1;
      break;
    case 2: {
      EXPECT(INLET_THRIFT_LIST);
      uint8_t et;
      uint32_t n;
      TRY(inlet_thrift_read_list_begin(&c->r, &et, &n));
      if (n && et != INLET_THRIFT_STRUCT) return corrupt(c, "schema is not a list of structs");
      if (n > PQ_MAX_COLUMNS * 2u) return corrupt(c, "schema has more elements than the limit");
      pq_schema_element *s = list_alloc(c, n, sizeof *s, 3, "schema");
      if (!s) return c->rc;
      for (uint32_t i = 0; i < n; i++)
        TRY(parse_schema_element(c, &s[i]));
      TRY(inlet_thrift_read_list_end(&c->r));
      m->n_schema = (int32_t)n;
      m->schema = s;
      have |= 2;
      /* Checked now so row groups can be held to the leaf count before
       * anything is allocated for them. */
      TRY(validate_schema(m, NULL, &leaves, c->err));
      break;
    }
    case 3:
      EXPECT(INLET_THRIFT_I64);
      TRY(inlet_thrift_read_i64(&c->r, &m->num_rows));
      have |= 4;
      break;
    case 4: {
      EXPECT(INLET_THRIFT_LIST);
      uint8_t et;
      uint32_t n;
      TRY(inlet_thrift_read_list_begin(&c->r, &et, &n));
      if (n && et != INLET_THRIFT_STRUCT) return corrupt(c, "row_groups is not a list of structs");
      pq_row_group *rgs = list_alloc(c, n, sizeof *rgs, 7, "row group");
      if (!rgs) return c->rc;
      for (uint32_t i = 0; i < n; i++)
        TRY(parse_row_group(c, &rgs[i], leaves));
      TRY(inlet_thrift_read_list_end(&c->r));
      m->n_row_groups = (int32_t)n;
      m->row_groups = rgs;
      have |= 8;
      break;
    }
    case 5:
      EXPECT(INLET_THRIFT_LIST);
      TRY(parse_kv_list(c, &m->n_key_value, &m->key_value));
      break;
    case 6:
      EXPECT(INLET_THRIFT_BINARY);
      TRY(get_string(c, &m->created_by, NULL));
      break;
    case 7: {
      EXPECT(INLET_THRIFT_LIST);
      uint8_t et;
      uint32_t n;
      TRY(inlet_thrift_read_list_begin(&c->r, &et, &n));
      if (n && et != INLET_THRIFT_STRUCT)
        return corrupt(c, "column_orders is not a list of structs");
      int32_t *o = list_alloc(c, n, sizeof *o, 2, "column order");
      if (!o) return c->rc;
      for (uint32_t i = 0; i < n; i++)
        TRY(parse_column_order(c, &o[i]));
      TRY(inlet_thrift_read_list_end(&c->r));
      m->n_column_orders = (int32_t)n;
      m->column_orders = o;
      break;
    }
    case 8:
      m->has_encryption_algorithm = true;
      TRY(inlet_thrift_skip(&c->r, t));
      break;
    case 9:
      m->has_footer_signing_key_metadata = true;
      TRY(inlet_thrift_skip(&c->r, t));
      break;
    default: TRY(inlet_thrift_skip(&c->r, t)); break;
    }
  }
  TRY(inlet_thrift_read_struct_end(&c->r));
  if (m->has_encryption_algorithm)
    return inlet_fail(c->err, INLET_EUNSUPPORTED, "encrypted Parquet is not supported");
  if (!(have & 1)) return corrupt(c, "file metadata lacks version");
  if (!(have & 2)) return corrupt(c, "file metadata lacks schema");
  if (!(have & 4)) return corrupt(c, "file metadata lacks num_rows");
  if (!(have & 8)) return corrupt(c, "file metadata lacks row_groups");
  return 0;
}

/* ---- validation ------------------------------------------------------------ */

static bool is_group(const pq_schema_element *e) {
  return (e->has_num_children && e->num_children > 0) || !e->has_type;
}

/* Checks the depth-first tree encoded by num_children and collects the leaf
 * element indices into @p leaf_elems (n_schema entries available; may be
 * NULL to only count). */
static int validate_schema(const pq_file_metadata *m, int32_t *leaf_elems, int32_t *n_leaves,
                           inlet_error *err) {
  FAIL_IF(m->n_schema < 1, err, INLET_ECORRUPT, "schema is empty (no root element)");
  const pq_schema_element *root = &m->schema[0];
  FAIL_IF(root->has_type && !(root->has_num_children && root->num_children > 0) && m->n_schema > 1,
          err, INLET_ECORRUPT, "schema root \"%s\" is not a group", root->name);
  /* remaining[d]: children still expected by the open group at depth d. */
  int32_t remaining[PQ_MAX_SCHEMA_DEPTH + 1];
  int depth = 0;
  FAIL_IF(root->has_num_children && root->num_children < 0, err, INLET_ECORRUPT,
          "schema root has negative num_children %d", root->num_children);
  remaining[0] = root->has_num_children ? root->num_children : 0;
  int32_t leaves = 0;
  for (int32_t i = 1; i < m->n_schema; i++) {
    const pq_schema_element *e = &m->schema[i];
    while (depth > 0 && remaining[depth] == 0)
      depth--;
    FAIL_IF(remaining[depth] == 0, err, INLET_ECORRUPT,
            "schema has %d elements but the root's num_children tree ends at element %d",
            m->n_schema, i);
    remaining[depth]--;
    FAIL_IF(e->has_num_children && e->num_children < 0, err, INLET_ECORRUPT,
            "schema element \"%s\" has negative num_children %d", e->name, e->num_children);
    if (is_group(e)) {
      FAIL_IF(!e->has_num_children || e->num_children == 0, err, INLET_ECORRUPT,
              "schema element \"%s\" has neither a type nor children", e->name);
      FAIL_IF(e->num_children > m->n_schema - 1 - i, err, INLET_ECORRUPT,
              "schema group \"%s\" claims %d children but only %d elements follow", e->name,
              e->num_children, m->n_schema - 1 - i);
      FAIL_IF(depth + 1 > PQ_MAX_SCHEMA_DEPTH, err, INLET_ECORRUPT,
              "schema nesting deeper than %d at \"%s\"", PQ_MAX_SCHEMA_DEPTH, e->name);
      remaining[++depth] = e->num_children;
    } else {
      FAIL_IF(e->type == PQ_FIXED_LEN_BYTE_ARRAY && (!e->has_type_length || e->type_length <= 0),
              err, INLET_ECORRUPT, "FIXED_LEN_BYTE_ARRAY column \"%s\" has no positive type_length",
              e->name);
      FAIL_IF(leaves >= PQ_MAX_COLUMNS, err, INLET_ECORRUPT, "schema has more than %d leaf columns",
              PQ_MAX_COLUMNS);
      if (leaf_elems) leaf_elems[leaves] = i;
      leaves++;
    }
  }
  while (depth > 0 && remaining[depth] == 0)
    depth--;
  FAIL_IF(remaining[depth] != 0, err, INLET_ECORRUPT,
          "schema ends early: a group still expects %d more children", remaining[depth]);
  *n_leaves = leaves;
  return 0;
}

/* Does path_in_schema name the leaf at element @p leaf? Walks up the tree
 * by recomputing parents (schema order is depth-first). */
static bool path_matches(const pq_file_metadata *m, const int32_t *parent, int32_t leaf,
                         const pq_column_meta *cm) {
  int32_t depth = 0;
  for (int32_t e = leaf; e > 0; e = parent[e])
    depth++;
  if (depth != cm->n_path) return false;
  int32_t k = depth - 1;
  for (int32_t e = leaf; e > 0; e = parent[e], k--)
    if (strcmp(m->schema[e].name, cm->path_in_schema[k]) != 0) return false;
  return true;
}

static int validate(const pq_file_metadata *m, inlet_error *err) {
  int rc = 0;
  int32_t *leaf_elems = NULL, *parent = NULL;
  FAIL_GOTO(m->version < 0, err, INLET_ECORRUPT, "negative version %d", m->version);
  FAIL_GOTO(m->num_rows < 0, err, INLET_ECORRUPT, "negative num_rows %lld", (long long)m->num_rows);
  leaf_elems = inlet_malloc(sizeof *leaf_elems * (size_t)(m->n_schema + 1));
  parent = inlet_malloc(sizeof *parent * (size_t)(m->n_schema + 1));
  FAIL_GOTO(!leaf_elems || !parent, err, INLET_ENOMEM, "out of memory validating the schema");
  int32_t leaves = 0;
  TRY_GOTO(validate_schema(m, leaf_elems, &leaves, err));
  {
    /* Parents by replaying the depth-first order with an explicit stack. */
    int32_t stack[PQ_MAX_SCHEMA_DEPTH + 1], left[PQ_MAX_SCHEMA_DEPTH + 1];
    int sp = 0;
    stack[0] = 0;
    left[0] = m->schema[0].has_num_children ? m->schema[0].num_children : 0;
    parent[0] = -1;
    for (int32_t i = 1; i < m->n_schema; i++) {
      while (sp > 0 && left[sp] == 0)
        sp--;
      parent[i] = stack[sp];
      left[sp]--;
      if (is_group(&m->schema[i])) {
        sp++;
        stack[sp] = i;
        left[sp] = m->schema[i].num_children;
      }
    }
  }
  FAIL_GOTO(m->n_column_orders != 0 && m->n_column_orders != leaves, err, INLET_ECORRUPT,
            "column_orders has %d entries for %d leaf columns", m->n_column_orders, leaves);
  for (int32_t g = 0; g < m->n_row_groups; g++) {
    const pq_row_group *rg = &m->row_groups[g];
    FAIL_GOTO(rg->n_columns != leaves, err, INLET_ECORRUPT,
              "row group %d has %d column chunks but the schema has %d leaf columns", g,
              rg->n_columns, leaves);
    FAIL_GOTO(rg->num_rows < 0, err, INLET_ECORRUPT, "row group %d has negative num_rows %lld", g,
              (long long)rg->num_rows);
    FAIL_GOTO(rg->total_byte_size < 0 ||
                  (rg->has_total_compressed_size && rg->total_compressed_size < 0) ||
                  (rg->has_file_offset && rg->file_offset < 0),
              err, INLET_ECORRUPT, "row group %d has a negative size or offset", g);
    for (int32_t k = 0; k < rg->n_columns; k++) {
      const pq_column_chunk *cc = &rg->columns[k];
      const pq_schema_element *leaf = &m->schema[leaf_elems[k]];
      if (cc->has_crypto_metadata || cc->has_encrypted_column_metadata) {
        rc = inlet_fail(err, INLET_EUNSUPPORTED, "encrypted Parquet is not supported");
        goto done;
      }
      FAIL_GOTO(cc->file_path != NULL, err, INLET_EUNSUPPORTED,
                "row group %d column \"%s\": column data in another file (file_path \"%s\") "
                "is not supported",
                g, leaf->name, cc->file_path);
      FAIL_GOTO(!cc->has_meta_data, err, INLET_ECORRUPT,
                "row group %d column \"%s\": column chunk lacks meta_data", g, leaf->name);
      const pq_column_meta *cm = &cc->meta_data;
      FAIL_GOTO(cm->type != leaf->type, err, INLET_ECORRUPT,
                "row group %d column \"%s\": chunk type %s differs from schema type %s", g,
                leaf->name, pq_type_name(cm->type), pq_type_name(leaf->type));
      FAIL_GOTO(!path_matches(m, parent, leaf_elems[k], cm), err, INLET_ECORRUPT,
                "row group %d column %d: path_in_schema does not name schema leaf \"%s\"", g, k,
                leaf->name);
      FAIL_GOTO(cm->num_values < 0 || cm->total_uncompressed_size < 0 ||
                    cm->total_compressed_size < 0 || cm->data_page_offset < 0 ||
                    (cm->has_dictionary_page_offset && cm->dictionary_page_offset < 0) ||
                    (cm->has_index_page_offset && cm->index_page_offset < 0),
                err, INLET_ECORRUPT, "row group %d column \"%s\": negative size or offset", g,
                leaf->name);
    }
  }
done:
  inlet_free(leaf_elems);
  inlet_free(parent);
  return rc;
}

int pq_file_metadata_parse(pq_file_metadata *out, const uint8_t *bytes, size_t len,
                           const char *file_name, inlet_error *err) {
  pq_file_metadata_reset(out);
  pctx c;
  inlet_thrift_reader_init(&c.r, bytes, len, err);
  c.m = out;
  c.err = err;
  c.rc = 0;
  int rc = parse_file_metadata(&c, out);
  if (rc == 0) rc = validate(out, err);
  if (rc < 0) {
    pq_file_metadata_reset(out);
    if (rc == INLET_ECORRUPT)
      inlet_error_prefix(err, "%s: corrupt footer", file_name ? file_name : "Parquet file");
    else
      inlet_error_prefix(err, "%s", file_name ? file_name : "Parquet file");
  }
  return rc;
}

/* ---- page headers ------------------------------------------------------- */

static int parse_data_page_header(pctx *c, pq_data_page_header *h) {
  unsigned have = 0;
  TRY(inlet_thrift_read_struct_begin(&c->r));
  for (;;) {
    int16_t id;
    uint8_t t;
    TRY(inlet_thrift_read_field(&c->r, &id, &t));
    if (t == INLET_THRIFT_STOP) break;
    switch (id) {
    case 1:
      EXPECT(INLET_THRIFT_I32);
      TRY(inlet_thrift_read_i32(&c->r, &h->num_values));
      have |= 1;
      break;
    case 2:
      EXPECT(INLET_THRIFT_I32);
      TRY(inlet_thrift_read_i32(&c->r, &h->encoding));
      have |= 2;
      break;
    case 3:
      EXPECT(INLET_THRIFT_I32);
      TRY(inlet_thrift_read_i32(&c->r, &h->definition_level_encoding));
      have |= 4;
      break;
    case 4:
      EXPECT(INLET_THRIFT_I32);
      TRY(inlet_thrift_read_i32(&c->r, &h->repetition_level_encoding));
      have |= 8;
      break;
    case 5:
      EXPECT(INLET_THRIFT_STRUCT);
      TRY(parse_statistics(c, &h->statistics));
      h->has_statistics = true;
      break;
    default: TRY(inlet_thrift_skip(&c->r, t)); break;
    }
  }
  TRY(inlet_thrift_read_struct_end(&c->r));
  if (have != 15) return corrupt(c, "data page header lacks a required field");
  if (h->num_values < 0) return corrupt(c, "data page header has negative num_values");
  return 0;
}

static int parse_dictionary_page_header(pctx *c, pq_dictionary_page_header *h) {
  unsigned have = 0;
  TRY(inlet_thrift_read_struct_begin(&c->r));
  for (;;) {
    int16_t id;
    uint8_t t;
    TRY(inlet_thrift_read_field(&c->r, &id, &t));
    if (t == INLET_THRIFT_STOP) break;
    switch (id) {
    case 1:
      EXPECT(INLET_THRIFT_I32);
      TRY(inlet_thrift_read_i32(&c->r, &h->num_values));
      have |= 1;
      break;
    case 2:
      EXPECT(INLET_THRIFT_I32);
      TRY(inlet_thrift_read_i32(&c->r, &h->encoding));
      have |= 2;
      break;
    case 3:
      EXPECT_BOOL();
      TRY(inlet_thrift_read_bool(&c->r, &h->is_sorted));
      h->has_is_sorted = true;
      break;
    default: TRY(inlet_thrift_skip(&c->r, t)); break;
    }
  }
  TRY(inlet_thrift_read_struct_end(&c->r));
  if (have != 3) return corrupt(c, "dictionary page header lacks num_values or encoding");
  if (h->num_values < 0) return corrupt(c, "dictionary page header has negative num_values");
  return 0;
}

static int parse_data_page_header_v2(pctx *c, pq_data_page_header_v2 *h) {
  unsigned have = 0;
  h->is_compressed = true;
  TRY(inlet_thrift_read_struct_begin(&c->r));
  for (;;) {
    int16_t id;
    uint8_t t;
    TRY(inlet_thrift_read_field(&c->r, &id, &t));
    if (t == INLET_THRIFT_STOP) break;
    switch (id) {
    case 1:
      EXPECT(INLET_THRIFT_I32);
      TRY(inlet_thrift_read_i32(&c->r, &h->num_values));
      have |= 1;
      break;
    case 2:
      EXPECT(INLET_THRIFT_I32);
      TRY(inlet_thrift_read_i32(&c->r, &h->num_nulls));
      have |= 2;
      break;
    case 3:
      EXPECT(INLET_THRIFT_I32);
      TRY(inlet_thrift_read_i32(&c->r, &h->num_rows));
      have |= 4;
      break;
    case 4:
      EXPECT(INLET_THRIFT_I32);
      TRY(inlet_thrift_read_i32(&c->r, &h->encoding));
      have |= 8;
      break;
    case 5:
      EXPECT(INLET_THRIFT_I32);
      TRY(inlet_thrift_read_i32(&c->r, &h->definition_levels_byte_length));
      have |= 16;
      break;
    case 6:
      EXPECT(INLET_THRIFT_I32);
      TRY(inlet_thrift_read_i32(&c->r, &h->repetition_levels_byte_length));
      have |= 32;
      break;
    case 7:
      EXPECT_BOOL();
      TRY(inlet_thrift_read_bool(&c->r, &h->is_compressed));
      break;
    case 8:
      EXPECT(INLET_THRIFT_STRUCT);
      TRY(parse_statistics(c, &h->statistics));
      h->has_statistics = true;
      break;
    default: TRY(inlet_thrift_skip(&c->r, t)); break;
    }
  }
  TRY(inlet_thrift_read_struct_end(&c->r));
  if (have != 63) return corrupt(c, "data page v2 header lacks a required field");
  if (h->num_values < 0 || h->num_nulls < 0 || h->num_rows < 0 ||
      h->definition_levels_byte_length < 0 || h->repetition_levels_byte_length < 0)
    return corrupt(c, "data page v2 header has a negative count or length");
  if (h->num_nulls > h->num_values)
    return corrupt(c, "data page v2 header has more nulls than values");
  return 0;
}

int pq_page_header_parse(pq_page_header *out, const uint8_t *bytes, size_t len, size_t *consumed,
                         inlet_error *err) {
  memset(out, 0, sizeof *out);
  pctx cx;
  pctx *c = &cx;
  inlet_thrift_reader_init(&c->r, bytes, len, err);
  c->m = NULL;
  c->err = err;
  c->rc = 0;
  unsigned have = 0;
  TRY(inlet_thrift_read_struct_begin(&c->r));
  for (;;) {
    int16_t id;
    uint8_t t;
    int32_t v;
    TRY(inlet_thrift_read_field(&c->r, &id, &t));
    if (t == INLET_THRIFT_STOP) break;
    switch (id) {
    case 1:
      EXPECT(INLET_THRIFT_I32);
      TRY(inlet_thrift_read_i32(&c->r, &out->type));
      have |= 1;
      break;
    case 2:
      EXPECT(INLET_THRIFT_I32);
      TRY(inlet_thrift_read_i32(&c->r, &out->uncompressed_page_size));
      have |= 2;
      break;
    case 3:
      EXPECT(INLET_THRIFT_I32);
      TRY(inlet_thrift_read_i32(&c->r, &out->compressed_page_size));
      have |= 4;
      break;
    case 4:
      EXPECT(INLET_THRIFT_I32);
      TRY(inlet_thrift_read_i32(&c->r, &v));
      out->crc = (uint32_t)v;
      out->has_crc = true;
      break;
    case 5:
      EXPECT(INLET_THRIFT_STRUCT);
      TRY(parse_data_page_header(c, &out->data_page_header));
      out->has_data_page_header = true;
      break;
    case 6:
      EXPECT(INLET_THRIFT_STRUCT);
      TRY(inlet_thrift_skip(&c->r, t));
      out->has_index_page_header = true;
      break;
    case 7:
      EXPECT(INLET_THRIFT_STRUCT);
      TRY(parse_dictionary_page_header(c, &out->dictionary_page_header));
      out->has_dictionary_page_header = true;
      break;
    case 8:
      EXPECT(INLET_THRIFT_STRUCT);
      TRY(parse_data_page_header_v2(c, &out->data_page_header_v2));
      out->has_data_page_header_v2 = true;
      break;
    default: TRY(inlet_thrift_skip(&c->r, t)); break;
    }
  }
  TRY(inlet_thrift_read_struct_end(&c->r));
  if (have != 7) return corrupt(c, "page header lacks type or a page size");
  if (out->uncompressed_page_size < 0 || out->compressed_page_size < 0)
    return corrupt(c, "page header has a negative page size");
  switch (out->type) {
  case PQ_PAGE_DATA:
    if (!out->has_data_page_header) return corrupt(c, "DATA_PAGE without data_page_header");
    break;
  case PQ_PAGE_DICTIONARY:
    if (!out->has_dictionary_page_header)
      return corrupt(c, "DICTIONARY_PAGE without dictionary_page_header");
    break;
  case PQ_PAGE_DATA_V2: {
    if (!out->has_data_page_header_v2)
      return corrupt(c, "DATA_PAGE_V2 without data_page_header_v2");
    const pq_data_page_header_v2 *h2 = &out->data_page_header_v2;
    if ((int64_t)h2->definition_levels_byte_length + h2->repetition_levels_byte_length >
        out->compressed_page_size)
      return corrupt(c, "data page v2 level lengths exceed the compressed page size");
    break;
  }
  default: break; /* INDEX_PAGE and future types: the reader decides */
  }
  *consumed = inlet_thrift_reader_offset(&c->r);
  return 0;
}

/* ---- serialization ----------------------------------------------------- */

typedef inlet_thrift_writer tw;

static void put_bytes(tw *w, int16_t id, const pq_bytes *b) {
  inlet_thrift_write_field_binary(w, id, b->data ? b->data : (const uint8_t *)"", b->len);
}

static void write_statistics(tw *w, const pq_statistics *s) {
  inlet_thrift_write_struct_begin(w);
  if (s->has_max) put_bytes(w, 1, &s->max);
  if (s->has_min) put_bytes(w, 2, &s->min);
  if (s->has_null_count) inlet_thrift_write_field_i64(w, 3, s->null_count);
  if (s->has_distinct_count) inlet_thrift_write_field_i64(w, 4, s->distinct_count);
  if (s->has_max_value) put_bytes(w, 5, &s->max_value);
  if (s->has_min_value) put_bytes(w, 6, &s->min_value);
  if (s->has_is_max_value_exact) inlet_thrift_write_field_bool(w, 7, s->is_max_value_exact);
  if (s->has_is_min_value_exact) inlet_thrift_write_field_bool(w, 8, s->is_min_value_exact);
  if (s->has_nan_count) inlet_thrift_write_field_i64(w, 9, s->nan_count);
  inlet_thrift_write_struct_end(w);
}

static void write_empty_struct_field(tw *w, int16_t id) {
  inlet_thrift_write_field(w, id, INLET_THRIFT_STRUCT);
  inlet_thrift_write_struct_begin(w);
  inlet_thrift_write_struct_end(w);
}

static void write_logical_type(tw *w, const pq_logical_type *lt) {
  inlet_thrift_write_struct_begin(w);
  switch (lt->kind) {
  case PQ_LT_NONE: break;
  case PQ_LT_DECIMAL:
    inlet_thrift_write_field(w, PQ_LT_DECIMAL, INLET_THRIFT_STRUCT);
    inlet_thrift_write_struct_begin(w);
    inlet_thrift_write_field_i32(w, 1, lt->scale);
    inlet_thrift_write_field_i32(w, 2, lt->precision);
    inlet_thrift_write_struct_end(w);
    break;
  case PQ_LT_TIME:
  case PQ_LT_TIMESTAMP:
    inlet_thrift_write_field(w, (int16_t)lt->kind, INLET_THRIFT_STRUCT);
    inlet_thrift_write_struct_begin(w);
    inlet_thrift_write_field_bool(w, 1, lt->utc);
    inlet_thrift_write_field(w, 2, INLET_THRIFT_STRUCT);
    inlet_thrift_write_struct_begin(w);
    write_empty_struct_field(w, (int16_t)(lt->unit ? lt->unit : PQ_UNIT_MICROS));
    inlet_thrift_write_struct_end(w);
    inlet_thrift_write_struct_end(w);
    break;
  case PQ_LT_INTEGER:
    inlet_thrift_write_field(w, PQ_LT_INTEGER, INLET_THRIFT_STRUCT);
    inlet_thrift_write_struct_begin(w);
    inlet_thrift_write_field_i8(w, 1, lt->bit_width);
    inlet_thrift_write_field_bool(w, 2, lt->is_signed);
    inlet_thrift_write_struct_end(w);
    break;
  case PQ_LT_OTHER:
    /* The member's content was not kept; an empty struct is the best
     * faithful rendering of "some annotation inlet does not know". */
    if (lt->other_id > 0) write_empty_struct_field(w, lt->other_id);
    break;
  default: write_empty_struct_field(w, (int16_t)lt->kind); break;
  }
  inlet_thrift_write_struct_end(w);
}

static void write_schema_element(tw *w, const pq_schema_element *e) {
  inlet_thrift_write_struct_begin(w);
  if (e->has_type) inlet_thrift_write_field_i32(w, 1, e->type);
  if (e->has_type_length) inlet_thrift_write_field_i32(w, 2, e->type_length);
  if (e->has_repetition) inlet_thrift_write_field_i32(w, 3, e->repetition);
  inlet_thrift_write_field_string(w, 4, e->name ? e->name : "");
  if (e->has_num_children) inlet_thrift_write_field_i32(w, 5, e->num_children);
  if (e->converted_type != PQ_CT_NONE) inlet_thrift_write_field_i32(w, 6, e->converted_type);
  if (e->has_scale) inlet_thrift_write_field_i32(w, 7, e->scale);
  if (e->has_precision) inlet_thrift_write_field_i32(w, 8, e->precision);
  if (e->has_field_id) inlet_thrift_write_field_i32(w, 9, e->field_id);
  if (e->logical.kind != PQ_LT_NONE) {
    inlet_thrift_write_field(w, 10, INLET_THRIFT_STRUCT);
    write_logical_type(w, &e->logical);
  }
  inlet_thrift_write_struct_end(w);
}

static void write_kv_list(tw *w, int16_t id, int32_t n, const pq_key_value *kv) {
  inlet_thrift_write_field(w, id, INLET_THRIFT_LIST);
  inlet_thrift_write_list_begin(w, INLET_THRIFT_STRUCT, (uint32_t)n);
  for (int32_t i = 0; i < n; i++) {
    inlet_thrift_write_struct_begin(w);
    inlet_thrift_write_field_binary(w, 1, kv[i].key ? kv[i].key : "", kv[i].key_len);
    if (kv[i].value) inlet_thrift_write_field_binary(w, 2, kv[i].value, kv[i].value_len);
    inlet_thrift_write_struct_end(w);
  }
}

static void write_column_meta(tw *w, const pq_column_meta *cm) {
  inlet_thrift_write_struct_begin(w);
  inlet_thrift_write_field_i32(w, 1, cm->type);
  inlet_thrift_write_field(w, 2, INLET_THRIFT_LIST);
  inlet_thrift_write_list_begin(w, INLET_THRIFT_I32, (uint32_t)cm->n_encodings);
  for (int32_t i = 0; i < cm->n_encodings; i++)
    inlet_thrift_write_i32(w, cm->encodings[i]);
  inlet_thrift_write_field(w, 3, INLET_THRIFT_LIST);
  inlet_thrift_write_list_begin(w, INLET_THRIFT_BINARY, (uint32_t)cm->n_path);
  for (int32_t i = 0; i < cm->n_path; i++)
    inlet_thrift_write_binary(w, cm->path_in_schema[i], strlen(cm->path_in_schema[i]));
  inlet_thrift_write_field_i32(w, 4, cm->codec);
  inlet_thrift_write_field_i64(w, 5, cm->num_values);
  inlet_thrift_write_field_i64(w, 6, cm->total_uncompressed_size);
  inlet_thrift_write_field_i64(w, 7, cm->total_compressed_size);
  if (cm->n_key_value > 0) write_kv_list(w, 8, cm->n_key_value, cm->key_value);
  inlet_thrift_write_field_i64(w, 9, cm->data_page_offset);
  if (cm->has_index_page_offset) inlet_thrift_write_field_i64(w, 10, cm->index_page_offset);
  if (cm->has_dictionary_page_offset)
    inlet_thrift_write_field_i64(w, 11, cm->dictionary_page_offset);
  if (cm->has_statistics) {
    inlet_thrift_write_field(w, 12, INLET_THRIFT_STRUCT);
    write_statistics(w, &cm->statistics);
  }
  if (cm->n_encoding_stats > 0) {
    inlet_thrift_write_field(w, 13, INLET_THRIFT_LIST);
    inlet_thrift_write_list_begin(w, INLET_THRIFT_STRUCT, (uint32_t)cm->n_encoding_stats);
    for (int32_t i = 0; i < cm->n_encoding_stats; i++) {
      inlet_thrift_write_struct_begin(w);
      inlet_thrift_write_field_i32(w, 1, cm->encoding_stats[i].page_type);
      inlet_thrift_write_field_i32(w, 2, cm->encoding_stats[i].encoding);
      inlet_thrift_write_field_i32(w, 3, cm->encoding_stats[i].count);
      inlet_thrift_write_struct_end(w);
    }
  }
  if (cm->has_bloom_filter_offset) inlet_thrift_write_field_i64(w, 14, cm->bloom_filter_offset);
  if (cm->has_bloom_filter_length) inlet_thrift_write_field_i32(w, 15, cm->bloom_filter_length);
  inlet_thrift_write_struct_end(w);
}

static void write_row_group(tw *w, const pq_row_group *rg) {
  inlet_thrift_write_struct_begin(w);
  inlet_thrift_write_field(w, 1, INLET_THRIFT_LIST);
  inlet_thrift_write_list_begin(w, INLET_THRIFT_STRUCT, (uint32_t)rg->n_columns);
  for (int32_t i = 0; i < rg->n_columns; i++) {
    const pq_column_chunk *cc = &rg->columns[i];
    inlet_thrift_write_struct_begin(w);
    if (cc->file_path) inlet_thrift_write_field_string(w, 1, cc->file_path);
    inlet_thrift_write_field_i64(w, 2, cc->file_offset);
    if (cc->has_meta_data) {
      inlet_thrift_write_field(w, 3, INLET_THRIFT_STRUCT);
      write_column_meta(w, &cc->meta_data);
    }
    if (cc->has_offset_index) {
      inlet_thrift_write_field_i64(w, 4, cc->offset_index_offset);
      inlet_thrift_write_field_i32(w, 5, cc->offset_index_length);
    }
    if (cc->has_column_index) {
      inlet_thrift_write_field_i64(w, 6, cc->column_index_offset);
      inlet_thrift_write_field_i32(w, 7, cc->column_index_length);
    }
    if (cc->has_crypto_metadata) {
      /* Only presence is modelled: written as ENCRYPTION_WITH_FOOTER_KEY. */
      inlet_thrift_write_field(w, 8, INLET_THRIFT_STRUCT);
      inlet_thrift_write_struct_begin(w);
      write_empty_struct_field(w, 1);
      inlet_thrift_write_struct_end(w);
    }
    inlet_thrift_write_struct_end(w);
  }
  inlet_thrift_write_field_i64(w, 2, rg->total_byte_size);
  inlet_thrift_write_field_i64(w, 3, rg->num_rows);
  if (rg->n_sorting_columns > 0) {
    inlet_thrift_write_field(w, 4, INLET_THRIFT_LIST);
    inlet_thrift_write_list_begin(w, INLET_THRIFT_STRUCT, (uint32_t)rg->n_sorting_columns);
    for (int32_t i = 0; i < rg->n_sorting_columns; i++) {
      inlet_thrift_write_struct_begin(w);
      inlet_thrift_write_field_i32(w, 1, rg->sorting_columns[i].column_idx);
      inlet_thrift_write_field_bool(w, 2, rg->sorting_columns[i].descending);
      inlet_thrift_write_field_bool(w, 3, rg->sorting_columns[i].nulls_first);
      inlet_thrift_write_struct_end(w);
    }
  }
  if (rg->has_file_offset) inlet_thrift_write_field_i64(w, 5, rg->file_offset);
  if (rg->has_total_compressed_size) inlet_thrift_write_field_i64(w, 6, rg->total_compressed_size);
  if (rg->has_ordinal) inlet_thrift_write_field_i16(w, 7, rg->ordinal);
  inlet_thrift_write_struct_end(w);
}

int pq_file_metadata_serialize(const pq_file_metadata *m, inlet_buf *out, inlet_error *err) {
  tw w;
  inlet_thrift_writer_init(&w, out);
  inlet_thrift_write_struct_begin(&w);
  inlet_thrift_write_field_i32(&w, 1, m->version);
  inlet_thrift_write_field(&w, 2, INLET_THRIFT_LIST);
  inlet_thrift_write_list_begin(&w, INLET_THRIFT_STRUCT, (uint32_t)m->n_schema);
  for (int32_t i = 0; i < m->n_schema; i++)
    write_schema_element(&w, &m->schema[i]);
  inlet_thrift_write_field_i64(&w, 3, m->num_rows);
  inlet_thrift_write_field(&w, 4, INLET_THRIFT_LIST);
  inlet_thrift_write_list_begin(&w, INLET_THRIFT_STRUCT, (uint32_t)m->n_row_groups);
  for (int32_t i = 0; i < m->n_row_groups; i++)
    write_row_group(&w, &m->row_groups[i]);
  if (m->n_key_value > 0) write_kv_list(&w, 5, m->n_key_value, m->key_value);
  if (m->created_by) inlet_thrift_write_field_string(&w, 6, m->created_by);
  if (m->n_column_orders > 0) {
    inlet_thrift_write_field(&w, 7, INLET_THRIFT_LIST);
    inlet_thrift_write_list_begin(&w, INLET_THRIFT_STRUCT, (uint32_t)m->n_column_orders);
    for (int32_t i = 0; i < m->n_column_orders; i++) {
      inlet_thrift_write_struct_begin(&w);
      write_empty_struct_field(
          &w, (int16_t)(m->column_orders[i] > 0 ? m->column_orders[i] : PQ_ORDER_TYPE_DEFINED));
      inlet_thrift_write_struct_end(&w);
    }
  }
  inlet_thrift_write_struct_end(&w);
  FAIL_IF(inlet_buf_status(out) < 0, err, INLET_ENOMEM,
          "out of memory serializing Parquet file metadata");
  return 0;
}

int pq_footer_serialize(const pq_file_metadata *m, inlet_buf *out, inlet_error *err) {
  size_t start = out->len;
  TRY(pq_file_metadata_serialize(m, out, err));
  size_t n = out->len - start;
  FAIL_IF(n > UINT32_MAX, err, INLET_ELIMIT, "Parquet footer of %zu bytes exceeds 4 GiB", n);
  uint8_t tail[8] = {
      (uint8_t)n, (uint8_t)(n >> 8), (uint8_t)(n >> 16), (uint8_t)(n >> 24), 'P', 'A', 'R', '1'};
  inlet_buf_append(out, tail, sizeof tail);
  FAIL_IF(inlet_buf_status(out) < 0, err, INLET_ENOMEM, "out of memory writing Parquet footer");
  return 0;
}

int pq_page_header_serialize(const pq_page_header *h, inlet_buf *out, inlet_error *err) {
  tw w;
  inlet_thrift_writer_init(&w, out);
  inlet_thrift_write_struct_begin(&w);
  inlet_thrift_write_field_i32(&w, 1, h->type);
  inlet_thrift_write_field_i32(&w, 2, h->uncompressed_page_size);
  inlet_thrift_write_field_i32(&w, 3, h->compressed_page_size);
  if (h->has_crc) inlet_thrift_write_field_i32(&w, 4, (int32_t)h->crc);
  if (h->has_data_page_header) {
    const pq_data_page_header *d = &h->data_page_header;
    inlet_thrift_write_field(&w, 5, INLET_THRIFT_STRUCT);
    inlet_thrift_write_struct_begin(&w);
    inlet_thrift_write_field_i32(&w, 1, d->num_values);
    inlet_thrift_write_field_i32(&w, 2, d->encoding);
    inlet_thrift_write_field_i32(&w, 3, d->definition_level_encoding);
    inlet_thrift_write_field_i32(&w, 4, d->repetition_level_encoding);
    if (d->has_statistics) {
      inlet_thrift_write_field(&w, 5, INLET_THRIFT_STRUCT);
      write_statistics(&w, &d->statistics);
    }
    inlet_thrift_write_struct_end(&w);
  }
  if (h->has_index_page_header) write_empty_struct_field(&w, 6);
  if (h->has_dictionary_page_header) {
    const pq_dictionary_page_header *d = &h->dictionary_page_header;
    inlet_thrift_write_field(&w, 7, INLET_THRIFT_STRUCT);
    inlet_thrift_write_struct_begin(&w);
    inlet_thrift_write_field_i32(&w, 1, d->num_values);
    inlet_thrift_write_field_i32(&w, 2, d->encoding);
    if (d->has_is_sorted) inlet_thrift_write_field_bool(&w, 3, d->is_sorted);
    inlet_thrift_write_struct_end(&w);
  }
  if (h->has_data_page_header_v2) {
    const pq_data_page_header_v2 *d = &h->data_page_header_v2;
    inlet_thrift_write_field(&w, 8, INLET_THRIFT_STRUCT);
    inlet_thrift_write_struct_begin(&w);
    inlet_thrift_write_field_i32(&w, 1, d->num_values);
    inlet_thrift_write_field_i32(&w, 2, d->num_nulls);
    inlet_thrift_write_field_i32(&w, 3, d->num_rows);
    inlet_thrift_write_field_i32(&w, 4, d->encoding);
    inlet_thrift_write_field_i32(&w, 5, d->definition_levels_byte_length);
    inlet_thrift_write_field_i32(&w, 6, d->repetition_levels_byte_length);
    inlet_thrift_write_field_bool(&w, 7, d->is_compressed);
    if (d->has_statistics) {
      inlet_thrift_write_field(&w, 8, INLET_THRIFT_STRUCT);
      write_statistics(&w, &d->statistics);
    }
    inlet_thrift_write_struct_end(&w);
  }
  inlet_thrift_write_struct_end(&w);
  FAIL_IF(inlet_buf_status(out) < 0, err, INLET_ENOMEM, "out of memory serializing a page header");
  return 0;
}

/* ---- footer reader ----------------------------------------------------- */

int pq_footer_read(pq_file_metadata *out, inlet_rfile *f, int64_t max_footer_bytes,
                   inlet_error *err) {
  return pq_footer_read_at(out, f, max_footer_bytes, NULL, err);
}

int pq_footer_read_at(pq_file_metadata *out, inlet_rfile *f, int64_t max_footer_bytes,
                      int64_t *footer_start, inlet_error *err) {
  pq_file_metadata_reset(out);
  const char *name = f->name ? f->name : "Parquet file";
  /* One request for the end of the file (a suffix range on object stores,
   * even with the size unknown), which usually holds the whole footer, and
   * for a small file the start magic too. */
  enum { WINDOW = 64 << 10 };
  FAIL_IF(f->size >= 0 && f->size < 12, err, INLET_ECORRUPT,
          "%s: not a Parquet file: %lld bytes is too small for the magic and footer", name,
          (long long)f->size);
  size_t want = f->size >= 0 && f->size < WINDOW ? (size_t)f->size : (size_t)WINDOW;
  uint8_t *win = inlet_malloc(want);
  FAIL_IF(!win, err, INLET_ENOMEM, "%s: out of memory reading the footer", name);
  size_t got = 0;
  int rc = f->ops->read_tail(f, win, want, &got, err);
  if (rc < 0) goto done;
  FAIL_GOTO(f->size < 12 || got < 12, err, INLET_ECORRUPT,
            "%s: not a Parquet file: %lld bytes is too small for the magic and footer", name,
            (long long)f->size);
  const uint8_t *tail = win + got - 8;
  /* The start magic: in the window for a small file; a larger one is
   * recognised by its end alone (as other Parquet readers do), saving a
   * request per file on object stores. */
  bool whole = (int64_t)got == f->size;
  FAIL_GOTO((whole && memcmp(win, PQ_ENCRYPTED_MAGIC, 4) == 0) ||
                memcmp(tail + 4, PQ_ENCRYPTED_MAGIC, 4) == 0,
            err, INLET_EUNSUPPORTED, "%s: encrypted Parquet is not supported", name);
  FAIL_GOTO(whole && memcmp(win, PQ_FOOTER_MAGIC, 4) != 0, err, INLET_ECORRUPT,
            "%s: not a Parquet file: no PAR1 magic at the start", name);
  FAIL_GOTO(memcmp(tail + 4, PQ_FOOTER_MAGIC, 4) != 0, err, INLET_ECORRUPT,
            "%s: corrupt footer: no PAR1 magic at the end (truncated file?)", name);
  uint32_t flen = (uint32_t)tail[0] | (uint32_t)tail[1] << 8 | (uint32_t)tail[2] << 16 |
                  (uint32_t)tail[3] << 24;
  FAIL_GOTO((int64_t)flen > f->size - 12, err, INLET_ECORRUPT,
            "%s: corrupt footer: footer length %u exceeds the file size %lld", name, flen,
            (long long)f->size);
  FAIL_GOTO(max_footer_bytes > 0 && (int64_t)flen > max_footer_bytes, err, INLET_ELIMIT,
            "%s: footer of %u bytes exceeds the limit of %lld bytes", name, flen,
            (long long)max_footer_bytes);
  if (footer_start) *footer_start = f->size - 8 - (int64_t)flen;
  if ((size_t)flen + 8 <= got) {
    rc = pq_file_metadata_parse(out, tail - flen, flen, name, err);
  } else {
    uint8_t *buf = inlet_malloc(flen ? flen : 1);
    FAIL_GOTO(!buf, err, INLET_ENOMEM, "%s: out of memory reading a %u-byte footer", name, flen);
    rc = inlet_rfile_read_at(f, f->size - 8 - (int64_t)flen, buf, flen, err);
    if (rc == 0) rc = pq_file_metadata_parse(out, buf, flen, name, err);
    inlet_free(buf);
  }
done:
  inlet_free(win);
  return rc;
}
