/*
 * Types, fields and schemas (include/inlet/batch.h): lifecycles, deep copy,
 * comparison, Delta/Spark-style type names and the DDL parser.
 *
 * The DDL grammar follows Spark's "col type [NOT NULL], ..." form as Delta
 * writers accept it (Delta PROTOCOL.md "Primitive Types" names the types),
 * plus a few inlet extras for Parquet types Delta lacks (unsigned integers,
 * time, millisecond/nanosecond timestamps, json, uuid, fixed(N)).
 */
#include <ctype.h>
#include <stdio.h>

#include "inlet/batch.h"
#include "util/buf.h"
#include "util/util.h"

int32_t inlet_type_value_width(const inlet_type *type) {
  switch (type->id) {
  case INLET_TYPE_INT8:
  case INLET_TYPE_UINT8: return 1;
  case INLET_TYPE_INT16:
  case INLET_TYPE_UINT16: return 2;
  case INLET_TYPE_INT32:
  case INLET_TYPE_UINT32:
  case INLET_TYPE_FLOAT:
  case INLET_TYPE_DATE: return 4;
  case INLET_TYPE_INT64:
  case INLET_TYPE_UINT64:
  case INLET_TYPE_DOUBLE:
  case INLET_TYPE_TIMESTAMP: return 8;
  case INLET_TYPE_TIME:
    return (type->unit == INLET_UNIT_SECOND || type->unit == INLET_UNIT_MILLI) ? 4 : 8;
  case INLET_TYPE_DECIMAL: return 16;
  case INLET_TYPE_FIXED_BINARY: return type->byte_width;
  default: return 0;
  }
}

static const char *unit_suffix(inlet_time_unit u) {
  switch (u) {
  case INLET_UNIT_SECOND: return "_s";
  case INLET_UNIT_MILLI: return "_ms";
  case INLET_UNIT_NANO: return "_ns";
  default: return "";
  }
}

size_t inlet_type_name(const inlet_type *type, char *out, size_t cap) {
  char tmp[64];
  const char *s = tmp;
  switch (type->id) {
  case INLET_TYPE_BOOL: s = "boolean"; break;
  case INLET_TYPE_INT8: s = "byte"; break;
  case INLET_TYPE_INT16: s = "short"; break;
  case INLET_TYPE_INT32: s = "integer"; break;
  case INLET_TYPE_INT64: s = "long"; break;
  case INLET_TYPE_UINT8: s = "uint8"; break;
  case INLET_TYPE_UINT16: s = "uint16"; break;
  case INLET_TYPE_UINT32: s = "uint32"; break;
  case INLET_TYPE_UINT64: s = "uint64"; break;
  case INLET_TYPE_FLOAT: s = "float"; break;
  case INLET_TYPE_DOUBLE: s = "double"; break;
  case INLET_TYPE_STRING:
    s = type->ext == INLET_EXT_JSON      ? "json"
        : type->ext == INLET_EXT_ENUM    ? "enum"
        : type->ext == INLET_EXT_VARIANT ? "variant"
                                         : "string";
    break;
  case INLET_TYPE_BINARY: s = type->ext == INLET_EXT_BSON ? "bson" : "binary"; break;
  case INLET_TYPE_FIXED_BINARY:
    if (type->ext == INLET_EXT_UUID)
      s = "uuid";
    else
      snprintf(tmp, sizeof tmp, "fixed(%d)", (int)type->byte_width);
    break;
  case INLET_TYPE_DATE: s = "date"; break;
  case INLET_TYPE_TIME: snprintf(tmp, sizeof tmp, "time%s", unit_suffix(type->unit)); break;
  case INLET_TYPE_TIMESTAMP:
    snprintf(tmp, sizeof tmp, "timestamp%s%s", type->utc ? "" : "_ntz", unit_suffix(type->unit));
    break;
  case INLET_TYPE_DECIMAL:
    snprintf(tmp, sizeof tmp, "decimal(%d,%d)", (int)type->precision, (int)type->scale);
    break;
  case INLET_TYPE_STRUCT: s = "struct"; break;
  case INLET_TYPE_LIST: s = "array"; break;
  case INLET_TYPE_MAP: s = "map"; break;
  case INLET_TYPE_NULL: s = "void"; break;
  default: s = "invalid"; break;
  }
  size_t n = strlen(s);
  if (cap > 0) {
    size_t c = n < cap - 1 ? n : cap - 1;
    memcpy(out, s, c);
    out[c] = '\0';
  }
  return n;
}

/* Appends @p s to out[*pos..cap), always counting the full length. */
static void put(char *out, size_t cap, size_t *pos, const char *s, size_t n) {
  if (*pos < cap) {
    size_t room = cap - *pos;
    size_t c = n < room ? n : room;
    memcpy(out + *pos, s, c);
  }
  *pos += n;
}

/* Writes a struct field name, back-quoted unless the DDL parser reads it
 * as a plain word, so the type text parses back. */
static void put_name(char *out, size_t cap, size_t *pos, const char *name) {
  bool plain = *name != '\0';
  for (const char *p = name; *p; p++)
    if (!isalnum((unsigned char)*p) && *p != '_') plain = false;
  if (plain) {
    put(out, cap, pos, name, strlen(name));
    return;
  }
  put(out, cap, pos, "`", 1);
  for (const char *p = name; *p; p++) {
    if (*p == '`') put(out, cap, pos, "`", 1);
    put(out, cap, pos, p, 1);
  }
  put(out, cap, pos, "`", 1);
}

static void field_type_name(const inlet_field *f, char *out, size_t cap, size_t *pos) {
  char tmp[64];
  switch (f->type.id) {
  case INLET_TYPE_STRUCT:
    put(out, cap, pos, "struct<", 7);
    for (int32_t i = 0; i < f->n_children; i++) {
      if (i) put(out, cap, pos, ",", 1);
      put_name(out, cap, pos, f->children[i].name);
      put(out, cap, pos, ":", 1);
      field_type_name(&f->children[i], out, cap, pos);
      if (!f->children[i].nullable) put(out, cap, pos, " not null", 9);
    }
    put(out, cap, pos, ">", 1);
    return;
  case INLET_TYPE_LIST:
    put(out, cap, pos, "array<", 6);
    if (f->n_children == 1) field_type_name(&f->children[0], out, cap, pos);
    put(out, cap, pos, ">", 1);
    return;
  case INLET_TYPE_MAP:
    put(out, cap, pos, "map<", 4);
    if (f->n_children == 1 && f->children[0].n_children == 2) {
      field_type_name(&f->children[0].children[0], out, cap, pos);
      put(out, cap, pos, ",", 1);
      field_type_name(&f->children[0].children[1], out, cap, pos);
    }
    put(out, cap, pos, ">", 1);
    return;
  default: {
    size_t n = inlet_type_name(&f->type, tmp, sizeof tmp);
    put(out, cap, pos, tmp, n < sizeof tmp ? n : sizeof tmp - 1);
    return;
  }
  }
}

size_t inlet_field_type_name(const inlet_field *field, char *out, size_t cap) {
  size_t pos = 0;
  field_type_name(field, out, cap, &pos);
  if (cap > 0) out[pos < cap ? pos : cap - 1] = '\0';
  return pos;
}

/* ---- lifecycles --------------------------------------------------------- */

void inlet_field_reset(inlet_field *field) {
  if (!field) return;
  for (int32_t i = 0; i < field->n_children; i++)
    inlet_field_reset(&field->children[i]);
  inlet_free(field->children);
  inlet_free(field->name);
  memset(field, 0, sizeof *field);
  field->field_id = -1;
}

int inlet_field_copy(inlet_field *dst, const inlet_field *src, inlet_error *err) {
  memset(dst, 0, sizeof *dst);
  dst->type = src->type;
  dst->nullable = src->nullable;
  dst->field_id = src->field_id;
  dst->name = inlet_strdup(src->name ? src->name : "");
  if (!dst->name) goto oom;
  if (src->n_children > 0) {
    dst->children = inlet_calloc((size_t)src->n_children, sizeof *dst->children);
    if (!dst->children) goto oom;
    for (int32_t i = 0; i < src->n_children; i++) {
      if (inlet_field_copy(&dst->children[i], &src->children[i], err) < 0) {
        dst->n_children = i;
        inlet_field_reset(dst);
        return INLET_ENOMEM;
      }
    }
    dst->n_children = src->n_children;
  }
  return 0;
oom:
  inlet_field_reset(dst);
  return inlet_fail(err, INLET_ENOMEM, "out of memory copying field");
}

void inlet_schema_init(inlet_schema *schema) {
  schema->n_fields = 0;
  schema->fields = NULL;
}

void inlet_schema_reset(inlet_schema *schema) {
  if (!schema) return;
  for (int32_t i = 0; i < schema->n_fields; i++)
    inlet_field_reset(&schema->fields[i]);
  inlet_free(schema->fields);
  inlet_schema_init(schema);
}

int inlet_schema_add_field(inlet_schema *schema, const inlet_field *field, inlet_error *err) {
  inlet_field *f = inlet_realloc(schema->fields, sizeof *f * ((size_t)schema->n_fields + 1));
  if (!f) return inlet_fail(err, INLET_ENOMEM, "out of memory adding field");
  schema->fields = f;
  TRY(inlet_field_copy(&f[schema->n_fields], field, err));
  schema->n_fields++;
  return 0;
}

int inlet_schema_copy(inlet_schema *dst, const inlet_schema *src, inlet_error *err) {
  inlet_schema_init(dst);
  if (src->n_fields == 0) return 0;
  dst->fields = inlet_calloc((size_t)src->n_fields, sizeof *dst->fields);
  if (!dst->fields) return inlet_fail(err, INLET_ENOMEM, "out of memory copying schema");
  for (int32_t i = 0; i < src->n_fields; i++) {
    int rc = inlet_field_copy(&dst->fields[i], &src->fields[i], err);
    if (rc < 0) {
      dst->n_fields = i;
      inlet_schema_reset(dst);
      return rc;
    }
  }
  dst->n_fields = src->n_fields;
  return 0;
}

int inlet_schema_find(const inlet_schema *schema, const char *name) {
  for (int32_t i = 0; i < schema->n_fields; i++)
    if (strcmp(schema->fields[i].name, name) == 0) return i;
  return -1;
}

static bool type_equal(const inlet_type *a, const inlet_type *b) {
  if (a->id != b->id || a->ext != b->ext) return false;
  switch (a->id) {
  case INLET_TYPE_TIME:
  case INLET_TYPE_TIMESTAMP: return a->unit == b->unit && a->utc == b->utc;
  case INLET_TYPE_FIXED_BINARY: return a->byte_width == b->byte_width;
  case INLET_TYPE_DECIMAL: return a->precision == b->precision && a->scale == b->scale;
  default: return true;
  }
}

bool inlet_field_equal(const inlet_field *a, const inlet_field *b) {
  if (strcmp(a->name, b->name) != 0 || a->nullable != b->nullable ||
      !type_equal(&a->type, &b->type) || a->n_children != b->n_children)
    return false;
  for (int32_t i = 0; i < a->n_children; i++)
    if (!inlet_field_equal(&a->children[i], &b->children[i])) return false;
  return true;
}

bool inlet_schema_equal(const inlet_schema *a, const inlet_schema *b) {
  if (a->n_fields != b->n_fields) return false;
  for (int32_t i = 0; i < a->n_fields; i++)
    if (!inlet_field_equal(&a->fields[i], &b->fields[i])) return false;
  return true;
}

/* ---- DDL parser --------------------------------------------------------- */

/* Nesting deeper than this is refused, so hostile DDL cannot exhaust the stack. */
#define DDL_MAX_DEPTH 64

typedef struct ddl_parser {
  const char *s;
  size_t pos;
  inlet_error *err;
} ddl_parser;

static void skip_ws(ddl_parser *p) {
  while (p->s[p->pos] && isspace((unsigned char)p->s[p->pos]))
    p->pos++;
}

static int ddl_fail(ddl_parser *p, const char *what) {
  char near[24];
  size_t n = strlen(p->s + p->pos);
  if (n == 0)
    snprintf(near, sizeof near, "end of input");
  else
    snprintf(near, sizeof near, "'%.16s%s'", p->s + p->pos, n > 16 ? "..." : "");
  return inlet_fail(p->err, INLET_EINVAL, "schema: %s at position %zu (near %s)", what, p->pos + 1,
                    near);
}

static bool is_ident_char(char c) {
  return isalnum((unsigned char)c) || c == '_' || c == '$' || c == '-' || c == '.' ||
         (unsigned char)c >= 0x80;
}

/* Reads a plain or back-quoted name into a new string. */
static int parse_name(ddl_parser *p, char **out, bool allow_dot) {
  skip_ws(p);
  inlet_buf b = INLET_BUF_INIT;
  (void)allow_dot;
  if (p->s[p->pos] == '`') {
    p->pos++;
    for (;;) {
      char c = p->s[p->pos];
      if (c == '\0') {
        inlet_buf_reset(&b);
        return ddl_fail(p, "unterminated `quoted` name");
      }
      p->pos++;
      if (c == '`') {
        if (p->s[p->pos] == '`') { /* `` is an escaped back quote */
          inlet_buf_push(&b, '`');
          p->pos++;
          continue;
        }
        break;
      }
      inlet_buf_push(&b, (uint8_t)c);
    }
  } else {
    size_t start = p->pos;
    while (is_ident_char(p->s[p->pos]))
      p->pos++;
    if (p->pos == start) return ddl_fail(p, "expected a column name");
    inlet_buf_append(&b, p->s + start, p->pos - start);
  }
  if (inlet_buf_terminate(&b) < 0) {
    inlet_buf_reset(&b);
    return inlet_fail(p->err, INLET_ENOMEM, "out of memory parsing schema");
  }
  if (b.len == 0) {
    inlet_buf_reset(&b);
    return ddl_fail(p, "empty column name");
  }
  *out = (char *)inlet_buf_detach(&b, NULL);
  return 0;
}

/* Reads a keyword (letters, digits, '_') and lower-cases it into @p kw. */
static size_t read_word(ddl_parser *p, char *kw, size_t cap) {
  skip_ws(p);
  size_t n = 0, i = p->pos;
  while (isalnum((unsigned char)p->s[i]) || p->s[i] == '_') {
    if (n + 1 < cap) kw[n] = (char)tolower((unsigned char)p->s[i]);
    n++;
    i++;
  }
  if (n >= cap) n = cap - 1; /* overlong: cannot match any keyword */
  kw[n] = '\0';
  size_t len = i - p->pos;
  p->pos = i;
  return len;
}

static bool accept(ddl_parser *p, char c) {
  skip_ws(p);
  if (p->s[p->pos] == c) {
    p->pos++;
    return true;
  }
  return false;
}

static int expect(ddl_parser *p, char c) {
  if (accept(p, c)) return 0;
  char what[32];
  snprintf(what, sizeof what, "expected '%c'", c);
  return ddl_fail(p, what);
}

static int parse_int(ddl_parser *p, int32_t *out, int32_t lo, int32_t hi, const char *what) {
  skip_ws(p);
  size_t start = p->pos;
  int64_t v = 0;
  while (isdigit((unsigned char)p->s[p->pos])) {
    v = v * 10 + (p->s[p->pos] - '0');
    if (v > hi) break;
    p->pos++;
  }
  if (p->pos == start || v < lo || v > hi) {
    char m[80];
    snprintf(m, sizeof m, "expected %s between %d and %d", what, (int)lo, (int)hi);
    p->pos = start;
    return ddl_fail(p, m);
  }
  *out = (int32_t)v;
  return 0;
}

static int parse_type(ddl_parser *p, inlet_field *f, int depth);

static int alloc_children(ddl_parser *p, inlet_field *f, int32_t n) {
  f->children = inlet_calloc((size_t)n, sizeof *f->children);
  if (!f->children) return inlet_fail(p->err, INLET_ENOMEM, "out of memory parsing schema");
  for (int32_t i = 0; i < n; i++)
    f->children[i].field_id = -1;
  f->n_children = n;
  return 0;
}

static int set_name(ddl_parser *p, inlet_field *f, const char *name) {
  f->name = inlet_strdup(name);
  return f->name ? 0 : inlet_fail(p->err, INLET_ENOMEM, "out of memory parsing schema");
}

/* Optional "NOT NULL" (and a tolerated "NULL") after a type. */
static int parse_nullability(ddl_parser *p, bool *nullable) {
  char kw[16];
  size_t save = p->pos;
  read_word(p, kw, sizeof kw);
  if (strcmp(kw, "not") == 0) {
    read_word(p, kw, sizeof kw);
    if (strcmp(kw, "null") != 0) return ddl_fail(p, "expected NULL after NOT");
    *nullable = false;
    return 0;
  }
  if (strcmp(kw, "null") == 0) return 0;
  p->pos = save;
  return 0;
}

static int parse_struct_body(ddl_parser *p, inlet_field *f, int depth) {
  TRY(expect(p, '<'));
  if (accept(p, '>')) return 0; /* struct<> */
  for (;;) {
    inlet_field child;
    memset(&child, 0, sizeof child);
    child.field_id = -1;
    child.nullable = true;
    int rc = parse_name(p, &child.name, false);
    if (rc == 0) accept(p, ':'); /* Spark accepts both "a:int" and "a int" */
    if (rc == 0) rc = parse_type(p, &child, depth + 1);
    if (rc == 0) rc = parse_nullability(p, &child.nullable);
    if (rc < 0) {
      inlet_field_reset(&child);
      return rc;
    }
    for (int32_t i = 0; i < f->n_children; i++) {
      if (strcmp(f->children[i].name, child.name) == 0) {
        inlet_field_reset(&child);
        return ddl_fail(p, "duplicate struct field name");
      }
    }
    inlet_field *c = inlet_realloc(f->children, sizeof *c * ((size_t)f->n_children + 1));
    if (!c) {
      inlet_field_reset(&child);
      return inlet_fail(p->err, INLET_ENOMEM, "out of memory parsing schema");
    }
    f->children = c;
    c[f->n_children++] = child;
    if (accept(p, ',')) continue;
    return expect(p, '>');
  }
}

static int parse_type(ddl_parser *p, inlet_field *f, int depth) {
  if (depth > DDL_MAX_DEPTH) return ddl_fail(p, "types nested too deeply");
  char kw[32];
  size_t start = (skip_ws(p), p->pos);
  if (read_word(p, kw, sizeof kw) == 0) return ddl_fail(p, "expected a type name");
  inlet_type *t = &f->type;
  memset(t, 0, sizeof *t);
  t->unit = INLET_UNIT_MICRO;
  static const struct {
    const char *name;
    inlet_type_id id;
    inlet_time_unit unit;
    bool utc;
    inlet_type_ext ext;
  } simple[] = {
      {"boolean", INLET_TYPE_BOOL, 0, false, 0},
      {"bool", INLET_TYPE_BOOL, 0, false, 0},
      {"byte", INLET_TYPE_INT8, 0, false, 0},
      {"tinyint", INLET_TYPE_INT8, 0, false, 0},
      {"short", INLET_TYPE_INT16, 0, false, 0},
      {"smallint", INLET_TYPE_INT16, 0, false, 0},
      {"int", INLET_TYPE_INT32, 0, false, 0},
      {"integer", INLET_TYPE_INT32, 0, false, 0},
      {"long", INLET_TYPE_INT64, 0, false, 0},
      {"bigint", INLET_TYPE_INT64, 0, false, 0},
      {"uint8", INLET_TYPE_UINT8, 0, false, 0},
      {"uint16", INLET_TYPE_UINT16, 0, false, 0},
      {"uint32", INLET_TYPE_UINT32, 0, false, 0},
      {"uint64", INLET_TYPE_UINT64, 0, false, 0},
      {"float", INLET_TYPE_FLOAT, 0, false, 0},
      {"real", INLET_TYPE_FLOAT, 0, false, 0},
      {"double", INLET_TYPE_DOUBLE, 0, false, 0},
      {"string", INLET_TYPE_STRING, 0, false, 0},
      {"json", INLET_TYPE_STRING, 0, false, INLET_EXT_JSON},
      {"variant", INLET_TYPE_STRING, 0, false, INLET_EXT_VARIANT},
      {"enum", INLET_TYPE_STRING, 0, false, INLET_EXT_ENUM},
      {"binary", INLET_TYPE_BINARY, 0, false, 0},
      {"bson", INLET_TYPE_BINARY, 0, false, INLET_EXT_BSON},
      {"date", INLET_TYPE_DATE, 0, false, 0},
      {"time_s", INLET_TYPE_TIME, INLET_UNIT_SECOND, false, 0},
      {"time_ms", INLET_TYPE_TIME, INLET_UNIT_MILLI, false, 0},
      {"time", INLET_TYPE_TIME, INLET_UNIT_MICRO, false, 0},
      {"time_ns", INLET_TYPE_TIME, INLET_UNIT_NANO, false, 0},
      {"timestamp_s", INLET_TYPE_TIMESTAMP, INLET_UNIT_SECOND, true, 0},
      {"timestamp_ms", INLET_TYPE_TIMESTAMP, INLET_UNIT_MILLI, true, 0},
      {"timestamp", INLET_TYPE_TIMESTAMP, INLET_UNIT_MICRO, true, 0},
      {"timestamp_ns", INLET_TYPE_TIMESTAMP, INLET_UNIT_NANO, true, 0},
      {"timestamp_ntz_s", INLET_TYPE_TIMESTAMP, INLET_UNIT_SECOND, false, 0},
      {"timestamp_ntz_ms", INLET_TYPE_TIMESTAMP, INLET_UNIT_MILLI, false, 0},
      {"timestamp_ntz", INLET_TYPE_TIMESTAMP, INLET_UNIT_MICRO, false, 0},
      {"timestamp_ntz_ns", INLET_TYPE_TIMESTAMP, INLET_UNIT_NANO, false, 0},
  };
  for (size_t i = 0; i < sizeof simple / sizeof simple[0]; i++) {
    if (strcmp(kw, simple[i].name) == 0) {
      t->id = simple[i].id;
      if (t->id == INLET_TYPE_TIME || t->id == INLET_TYPE_TIMESTAMP) t->unit = simple[i].unit;
      t->utc = simple[i].utc;
      t->ext = simple[i].ext;
      return 0;
    }
  }
  if (strcmp(kw, "uuid") == 0) {
    t->id = INLET_TYPE_FIXED_BINARY;
    t->byte_width = 16;
    t->ext = INLET_EXT_UUID;
    return 0;
  }
  if (strcmp(kw, "fixed") == 0) {
    t->id = INLET_TYPE_FIXED_BINARY;
    TRY(expect(p, '('));
    TRY(parse_int(p, &t->byte_width, 1, 1 << 24, "fixed width"));
    return expect(p, ')');
  }
  if (strcmp(kw, "decimal") == 0 || strcmp(kw, "dec") == 0 || strcmp(kw, "numeric") == 0) {
    t->id = INLET_TYPE_DECIMAL;
    t->precision = 10; /* Spark's default for a bare DECIMAL */
    t->scale = 0;
    if (accept(p, '(')) {
      TRY(parse_int(p, &t->precision, 1, 38, "decimal precision"));
      if (accept(p, ',')) {
        size_t at = (skip_ws(p), p->pos);
        TRY(parse_int(p, &t->scale, 0, 38, "decimal scale"));
        if (t->scale > t->precision) {
          p->pos = at;
          return ddl_fail(p, "decimal scale exceeds precision");
        }
      }
      TRY(expect(p, ')'));
    }
    return 0;
  }
  if (strcmp(kw, "struct") == 0) {
    t->id = INLET_TYPE_STRUCT;
    return parse_struct_body(p, f, depth);
  }
  if (strcmp(kw, "array") == 0 || strcmp(kw, "list") == 0) {
    t->id = INLET_TYPE_LIST;
    TRY(expect(p, '<'));
    TRY(alloc_children(p, f, 1));
    inlet_field *el = &f->children[0];
    el->nullable = true;
    TRY(set_name(p, el, "element"));
    TRY(parse_type(p, el, depth + 1));
    TRY(parse_nullability(p, &el->nullable));
    return expect(p, '>');
  }
  if (strcmp(kw, "map") == 0) {
    t->id = INLET_TYPE_MAP;
    TRY(expect(p, '<'));
    TRY(alloc_children(p, f, 1));
    inlet_field *entries = &f->children[0];
    TRY(set_name(p, entries, "entries"));
    entries->type.id = INLET_TYPE_STRUCT;
    entries->nullable = false;
    TRY(alloc_children(p, entries, 2));
    TRY(set_name(p, &entries->children[0], "key"));
    TRY(set_name(p, &entries->children[1], "value"));
    entries->children[0].nullable = false;
    entries->children[1].nullable = true;
    size_t at = (skip_ws(p), p->pos);
    TRY(parse_type(p, &entries->children[0], depth + 2));
    inlet_type_id kid = entries->children[0].type.id;
    if (kid == INLET_TYPE_STRUCT || kid == INLET_TYPE_LIST || kid == INLET_TYPE_MAP) {
      p->pos = at;
      return ddl_fail(p, "map key must be a primitive type");
    }
    TRY(expect(p, ','));
    TRY(parse_type(p, &entries->children[1], depth + 2));
    TRY(parse_nullability(p, &entries->children[1].nullable));
    return expect(p, '>');
  }
  p->pos = start;
  return ddl_fail(p, "unknown type");
}

int inlet_schema_parse(inlet_schema *out, const char *ddl, inlet_error *err) {
  ddl_parser p = {ddl, 0, err};
  inlet_schema_init(out);
  int rc = 0;
  inlet_field f;
  memset(&f, 0, sizeof f);
  skip_ws(&p);
  if (p.s[p.pos] == '\0') return ddl_fail(&p, "empty schema");
  for (;;) {
    memset(&f, 0, sizeof f);
    f.field_id = -1;
    f.nullable = true;
    TRY_GOTO(parse_name(&p, &f.name, true));
    accept(&p, ':'); /* "name: type" is accepted as well as "name type" */
    TRY_GOTO(parse_type(&p, &f, 0));
    TRY_GOTO(parse_nullability(&p, &f.nullable));
    if (inlet_schema_find(out, f.name) >= 0) {
      rc = inlet_fail(err, INLET_EINVAL, "schema: duplicate column name \"%s\" at position %zu",
                      f.name, p.pos);
      goto done;
    }
    inlet_field *grown = inlet_realloc(out->fields, sizeof *grown * ((size_t)out->n_fields + 1));
    FAIL_GOTO(!grown, err, INLET_ENOMEM, "out of memory parsing schema");
    out->fields = grown;
    out->fields[out->n_fields++] = f;
    memset(&f, 0, sizeof f);
    skip_ws(&p);
    if (p.s[p.pos] == '\0') break;
    if (!accept(&p, ',')) {
      rc = ddl_fail(&p, "expected ',' or end of schema");
      goto done;
    }
  }
  return 0;
done:
  inlet_field_reset(&f);
  inlet_schema_reset(out);
  return rc;
}
