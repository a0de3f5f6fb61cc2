/*
 * Delta schemaString <-> inlet_schema.
 *
 * Spec: PROTOCOL.md "Schema Serialization Format" (a subset of Spark SQL's
 * JSON schema): primitive type names, decimal(p,s), struct/array/map
 * objects with nullable, containsNull and valueContainsNull. Arrays become
 * LIST fields with one child "element"; maps become MAP fields whose child
 * is the non-null STRUCT "entries" of "key" and "value", as batch.h lays
 * them out. Column metadata is not kept, except for column mapping
 * (PROTOCOL.md "Column Mapping"): delta_schema_parse_physical reads the same
 * schemaString as a tree of the same shape whose names are the fields'
 * delta.columnMapping.physicalName and, in id mode, whose field ids are their
 * delta.columnMapping.id - the names and ids data files, partitionValues and
 * stats use.
 */
#include <jansson.h>
#include <stdio.h>
#include <strings.h>

#include "delta/delta.h"
#include "util/util.h"

static int parse_type(inlet_field *f, json_t *t, int depth, int cm, inlet_error *err);

static int set_name(inlet_field *f, const char *name, inlet_error *err) {
  f->name = inlet_strdup(name);
  return f->name ? 0 : inlet_fail(err, INLET_ENOMEM, "out of memory parsing schema");
}

static int alloc_children(inlet_field *f, int32_t n, inlet_error *err) {
  f->children = inlet_calloc((size_t)(n ? n : 1), sizeof *f->children);
  if (!f->children) return inlet_fail(err, INLET_ENOMEM, "out of memory parsing schema");
  f->n_children = n;
  for (int32_t i = 0; i < n; i++)
    f->children[i].field_id = -1;
  return 0;
}

static int parse_primitive(inlet_field *f, const char *s, inlet_error *err) {
  static const struct {
    const char *name;
    inlet_type_id id;
  } prims[] = {{"string", INLET_TYPE_STRING}, {"long", INLET_TYPE_INT64},
               {"integer", INLET_TYPE_INT32}, {"short", INLET_TYPE_INT16},
               {"byte", INLET_TYPE_INT8},     {"float", INLET_TYPE_FLOAT},
               {"double", INLET_TYPE_DOUBLE}, {"boolean", INLET_TYPE_BOOL},
               {"binary", INLET_TYPE_BINARY}, {"date", INLET_TYPE_DATE}};
  for (size_t i = 0; i < sizeof prims / sizeof prims[0]; i++) {
    if (strcmp(s, prims[i].name) == 0) {
      f->type.id = prims[i].id;
      return 0;
    }
  }
  if (strcmp(s, "timestamp") == 0 || strcmp(s, "timestamp_ntz") == 0) {
    f->type.id = INLET_TYPE_TIMESTAMP;
    f->type.unit = INLET_UNIT_MICRO;
    f->type.utc = strcmp(s, "timestamp") == 0;
    return 0;
  }
  /* PROTOCOL.md "Void Type": not gated by a feature, never in data files,
   * read as all null. */
  if (strcmp(s, "void") == 0) {
    f->type.id = INLET_TYPE_NULL;
    return 0;
  }
  /* PROTOCOL.md "Variant Data Type": a struct of binary value and metadata
   * in data files, read as its JSON text (delta_scan.c). */
  if (strcmp(s, "variant") == 0) {
    f->type.id = INLET_TYPE_STRING;
    f->type.ext = INLET_EXT_VARIANT;
    return 0;
  }
  if (strcmp(s, "decimal") == 0) {
    f->type.id = INLET_TYPE_DECIMAL;
    f->type.precision = 10;
    return 0;
  }
  int p = 0, sc = 0, used = 0;
  if (sscanf(s, "decimal(%d,%d)%n", &p, &sc, &used) == 2 && s[used] == '\0') {
    if (p < 1 || p > 38 || sc < 0 || sc > p)
      return inlet_fail(err, INLET_ECORRUPT, "schemaString: invalid decimal type \"%s\"", s);
    f->type.id = INLET_TYPE_DECIMAL;
    f->type.precision = p;
    f->type.scale = sc;
    return 0;
  }
  /* Spark also prints "decimal(10, 2)" in some versions. */
  if (sscanf(s, "decimal(%d, %d)%n", &p, &sc, &used) == 2 && s[used] == '\0' && p >= 1 && p <= 38 &&
      sc >= 0 && sc <= p) {
    f->type.id = INLET_TYPE_DECIMAL;
    f->type.precision = p;
    f->type.scale = sc;
    return 0;
  }
  return inlet_fail(err, INLET_EUNSUPPORTED, "schemaString: unsupported data type \"%.100s\"", s);
}

/* @p cm: 0 logical names; DELTA_CM_NAME / DELTA_CM_ID physical names (and
 * ids). */
static int physical_name(inlet_field *c, json_t *fj, const char *logical, int cm,
                         inlet_error *err) {
  json_t *md = json_object_get(fj, "metadata");
  json_t *pn = json_is_object(md) ? json_object_get(md, "delta.columnMapping.physicalName") : NULL;
  json_t *id = json_is_object(md) ? json_object_get(md, "delta.columnMapping.id") : NULL;
  if (!json_is_string(pn) || json_string_length(pn) == 0)
    return inlet_fail(err, INLET_ECORRUPT,
                      "schemaString: column \"%.200s\" of a column-mapping table has no "
                      "delta.columnMapping.physicalName",
                      logical);
  if (cm == DELTA_CM_ID) {
    if (!json_is_integer(id) || json_integer_value(id) < 0 || json_integer_value(id) > INT32_MAX)
      return inlet_fail(err, INLET_ECORRUPT,
                        "schemaString: column \"%.200s\" of an id-mode column-mapping table has "
                        "no valid delta.columnMapping.id",
                        logical);
    c->field_id = (int32_t)json_integer_value(id);
  }
  return set_name(c, json_string_value(pn), err);
}

static int parse_struct_fields(inlet_field *f, json_t *t, int depth, int cm, inlet_error *err) {
  json_t *fields = json_object_get(t, "fields");
  if (!json_is_array(fields))
    return inlet_fail(err, INLET_ECORRUPT, "schemaString: struct without a fields array");
  size_t n = json_array_size(fields);
  if (n > 100000) return inlet_fail(err, INLET_ELIMIT, "schemaString: struct has %zu fields", n);
  TRY(alloc_children(f, (int32_t)n, err));
  for (size_t i = 0; i < n; i++) {
    json_t *fj = json_array_get(fields, i);
    inlet_field *c = &f->children[i];
    if (!json_is_object(fj))
      return inlet_fail(err, INLET_ECORRUPT, "schemaString: struct field %zu is not an object", i);
    json_t *name = json_object_get(fj, "name");
    json_t *nullable = json_object_get(fj, "nullable");
    if (!json_is_string(name))
      return inlet_fail(err, INLET_ECORRUPT, "schemaString: struct field %zu has no name", i);
    if (cm)
      TRY(physical_name(c, fj, json_string_value(name), cm, err));
    else
      TRY(set_name(c, json_string_value(name), err));
    c->nullable = nullable ? json_is_true(nullable) : true;
    if (nullable && !json_is_boolean(nullable))
      return inlet_fail(err, INLET_ECORRUPT, "schemaString: field \"%s\" nullable is not a boolean",
                        c->name);
    int rc = parse_type(c, json_object_get(fj, "type"), depth + 1, cm, err);
    if (rc < 0) return inlet_error_prefix(err, "column \"%s\"", c->name);
  }
  return 0;
}

static int parse_type(inlet_field *f, json_t *t, int depth, int cm, inlet_error *err) {
  if (depth > DELTA_MAX_SCHEMA_DEPTH)
    return inlet_fail(err, INLET_ELIMIT, "schemaString: nesting deeper than %d",
                      DELTA_MAX_SCHEMA_DEPTH);
  if (json_is_string(t)) return parse_primitive(f, json_string_value(t), err);
  if (!json_is_object(t))
    return inlet_fail(err, INLET_ECORRUPT, "schemaString: type is neither a string nor an object");
  const char *kind = json_string_value(json_object_get(t, "type"));
  if (!kind) return inlet_fail(err, INLET_ECORRUPT, "schemaString: complex type without \"type\"");
  if (strcmp(kind, "struct") == 0) {
    f->type.id = INLET_TYPE_STRUCT;
    return parse_struct_fields(f, t, depth, cm, err);
  }
  if (strcmp(kind, "array") == 0) {
    f->type.id = INLET_TYPE_LIST;
    TRY(alloc_children(f, 1, err));
    TRY(set_name(&f->children[0], "element", err));
    json_t *cn = json_object_get(t, "containsNull");
    f->children[0].nullable = cn ? json_is_true(cn) : true;
    return parse_type(&f->children[0], json_object_get(t, "elementType"), depth + 1, cm, err);
  }
  if (strcmp(kind, "map") == 0) {
    f->type.id = INLET_TYPE_MAP;
    TRY(alloc_children(f, 1, err));
    inlet_field *e = &f->children[0];
    TRY(set_name(e, "entries", err));
    e->type.id = INLET_TYPE_STRUCT;
    e->nullable = false;
    TRY(alloc_children(e, 2, err));
    TRY(set_name(&e->children[0], "key", err));
    TRY(set_name(&e->children[1], "value", err));
    e->children[0].nullable = false;
    json_t *vcn = json_object_get(t, "valueContainsNull");
    e->children[1].nullable = vcn ? json_is_true(vcn) : true;
    TRY(parse_type(&e->children[0], json_object_get(t, "keyType"), depth + 1, cm, err));
    return parse_type(&e->children[1], json_object_get(t, "valueType"), depth + 1, cm, err);
  }
  return inlet_fail(err, INLET_EUNSUPPORTED, "schemaString: unsupported complex type \"%.100s\"",
                    kind);
}

static int schema_parse(inlet_schema *out, const char *json, int cm, inlet_error *err) {
  inlet_schema_init(out);
  json_error_t jerr;
  json_t *root = json_loads(json, 0, &jerr);
  if (!root)
    return inlet_fail(err, INLET_ECORRUPT, "schemaString is not valid JSON (%s)", jerr.text);
  inlet_field top;
  memset(&top, 0, sizeof top);
  int rc = 0;
  const char *kind = json_string_value(json_object_get(root, "type"));
  if (!kind || strcmp(kind, "struct") != 0) {
    rc = inlet_fail(err, INLET_ECORRUPT, "schemaString: top level is not a struct");
    goto done;
  }
  top.type.id = INLET_TYPE_STRUCT;
  rc = parse_struct_fields(&top, root, 0, cm, err);
  if (rc < 0) goto done;
  out->fields = top.children;
  out->n_fields = top.n_children;
  top.children = NULL;
  top.n_children = 0;
done:
  inlet_field_reset(&top);
  json_decref(root);
  return rc;
}

int delta_schema_parse(inlet_schema *out, const char *json, inlet_error *err) {
  return schema_parse(out, json, 0, err);
}

/* Physical names are unique among siblings (they name Parquet columns and
 * stats keys); ids are unique in the whole schema and at most maxColumnId.
 * Both checked by sorting, so a hostile schema costs n log n. */
static int cmp_name(const void *a, const void *b) {
  return strcasecmp((*(const inlet_field *const *)a)->name, (*(const inlet_field *const *)b)->name);
}

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

static int check_physical(const inlet_field *fields, int32_t n, int32_t *ids, int32_t *n_ids,
                          int32_t cap_ids, int64_t max_id, inlet_error *err) {
  const inlet_field **order = inlet_calloc((size_t)n + 1, sizeof *order);
  if (!order) return inlet_fail(err, INLET_ENOMEM, "out of memory parsing schema");
  for (int32_t i = 0; i < n; i++)
    order[i] = &fields[i];
  qsort(order, (size_t)n, sizeof *order, cmp_name);
  int rc = 0;
  for (int32_t i = 1; i < n && rc == 0; i++)
    if (strcasecmp(order[i - 1]->name, order[i]->name) == 0)
      rc = inlet_fail(err, INLET_ECORRUPT,
                      "schemaString: two columns share the physical name \"%.200s\"",
                      order[i]->name);
  inlet_free(order);
  TRY(rc);
  for (int32_t i = 0; i < n; i++) {
    const inlet_field *f = &fields[i];
    if (f->field_id >= 0) {
      if (max_id >= 0 && f->field_id > max_id)
        return inlet_fail(err, INLET_ECORRUPT,
                          "schemaString: column \"%.200s\" has delta.columnMapping.id %d, above "
                          "delta.columnMapping.maxColumnId %lld",
                          f->name, (int)f->field_id, (long long)max_id);
      if (*n_ids < cap_ids) ids[(*n_ids)++] = f->field_id;
    }
    /* struct fields, a list's element, a map's entries (key, value) */
    if (f->n_children > 0)
      TRY(check_physical(f->children, f->n_children, ids, n_ids, cap_ids, max_id, err));
  }
  return 0;
}

static int32_t count_fields(const inlet_field *fields, int32_t n) {
  int32_t c = n;
  for (int32_t i = 0; i < n; i++)
    c += count_fields(fields[i].children, fields[i].n_children);
  return c;
}

int delta_schema_parse_physical(inlet_schema *out, const char *json, int mode, int64_t max_id,
                                inlet_error *err) {
  TRY(schema_parse(out, json, mode, err));
  int32_t cap = count_fields(out->fields, out->n_fields), n_ids = 0;
  int32_t *ids = inlet_calloc((size_t)cap + 1, sizeof *ids);
  int rc = ids ? check_physical(out->fields, out->n_fields, ids, &n_ids, cap, max_id, err)
               : inlet_fail(err, INLET_ENOMEM, "out of memory parsing schema");
  if (rc == 0) {
    qsort(ids, (size_t)n_ids, sizeof *ids, cmp_i32);
    for (int32_t i = 1; i < n_ids && rc == 0; i++)
      if (ids[i - 1] == ids[i])
        rc = inlet_fail(err, INLET_ECORRUPT,
                        "schemaString: two columns share delta.columnMapping.id %d", (int)ids[i]);
  }
  inlet_free(ids);
  if (rc < 0) inlet_schema_reset(out);
  return rc;
}

/* ---- serialising ---------------------------------------------------------- */

static json_t *type_json(const inlet_field *f, inlet_error *err, int *rc);

static json_t *field_json(const inlet_field *f, inlet_error *err, int *rc) {
  json_t *o = json_object();
  json_object_set_new(o, "name", json_string(f->name));
  json_object_set_new(o, "type", type_json(f, err, rc));
  json_object_set_new(o, "nullable", json_boolean(f->nullable));
  json_object_set_new(o, "metadata", json_object());
  return o;
}

static json_t *struct_json(const inlet_field *children, int32_t n, inlet_error *err, int *rc) {
  json_t *o = json_object();
  json_object_set_new(o, "type", json_string("struct"));
  json_t *arr = json_array();
  for (int32_t i = 0; i < n; i++)
    json_array_append_new(arr, field_json(&children[i], err, rc));
  json_object_set_new(o, "fields", arr);
  return o;
}

static json_t *type_json(const inlet_field *f, inlet_error *err, int *rc) {
  const inlet_type *t = &f->type;
  switch (t->id) {
  case INLET_TYPE_BOOL: return json_string("boolean");
  case INLET_TYPE_INT8: return json_string("byte");
  case INLET_TYPE_INT16: return json_string("short");
  case INLET_TYPE_INT32: return json_string("integer");
  case INLET_TYPE_INT64: return json_string("long");
  case INLET_TYPE_FLOAT: return json_string("float");
  case INLET_TYPE_DOUBLE: return json_string("double");
  case INLET_TYPE_STRING:
    if (t->ext == INLET_EXT_VARIANT) return json_string("variant");
    if (t->ext == INLET_EXT_NONE || t->ext == INLET_EXT_JSON || t->ext == INLET_EXT_ENUM)
      return json_string("string");
    break;
  case INLET_TYPE_BINARY: return json_string("binary");
  case INLET_TYPE_DATE: return json_string("date");
  case INLET_TYPE_TIMESTAMP:
    if (t->unit == INLET_UNIT_MICRO) return json_string(t->utc ? "timestamp" : "timestamp_ntz");
    break;
  case INLET_TYPE_DECIMAL: {
    char buf[40];
    snprintf(buf, sizeof buf, "decimal(%d,%d)", (int)t->precision, (int)t->scale);
    return json_string(buf);
  }
  case INLET_TYPE_NULL: return json_string("void");
  case INLET_TYPE_STRUCT: return struct_json(f->children, f->n_children, err, rc);
  case INLET_TYPE_LIST: {
    json_t *o = json_object();
    json_object_set_new(o, "type", json_string("array"));
    json_object_set_new(o, "elementType", type_json(&f->children[0], err, rc));
    json_object_set_new(o, "containsNull", json_boolean(f->children[0].nullable));
    return o;
  }
  case INLET_TYPE_MAP: {
    const inlet_field *e = &f->children[0];
    json_t *o = json_object();
    json_object_set_new(o, "type", json_string("map"));
    json_object_set_new(o, "keyType", type_json(&e->children[0], err, rc));
    json_object_set_new(o, "valueType", type_json(&e->children[1], err, rc));
    json_object_set_new(o, "valueContainsNull", json_boolean(e->children[1].nullable));
    return o;
  }
  default: break;
  }
  char name[64];
  inlet_type_name(t, name, sizeof name);
  if (*rc == 0)
    *rc = inlet_fail(err, INLET_EUNSUPPORTED, "column \"%s\": type %s has no Delta equivalent",
                     f->name, name);
  return json_null();
}

int delta_schema_to_json(char **out, const inlet_schema *schema, inlet_error *err) {
  int rc = 0;
  *out = NULL;
  json_t *o = struct_json(schema->fields, schema->n_fields, err, &rc);
  if (rc < 0) {
    json_decref(o);
    return rc;
  }
  char *s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
  json_decref(o);
  if (!s) return inlet_fail(err, INLET_ENOMEM, "out of memory serialising schema");
  *out = inlet_strdup(s);
  free(s);
  return *out ? 0 : inlet_fail(err, INLET_ENOMEM, "out of memory serialising schema");
}

static const char *field_void(const inlet_field *f) {
  if (f->type.id == INLET_TYPE_NULL) return f->name;
  for (int32_t i = 0; i < f->n_children; i++) {
    const char *v = field_void(&f->children[i]);
    if (v) return v;
  }
  return NULL;
}

const char *delta_schema_nested_void(const inlet_schema *schema) {
  for (int32_t i = 0; i < schema->n_fields; i++)
    for (int32_t k = 0; k < schema->fields[i].n_children; k++) {
      const char *v = field_void(&schema->fields[i].children[k]);
      if (v) return v;
    }
  return NULL;
}

/* Whether struct @p f keeps a field once its voids are dropped. */
static bool keeps_a_field(const inlet_field *f) {
  for (int32_t i = 0; i < f->n_children; i++) {
    const inlet_field *c = &f->children[i];
    if (c->type.id != INLET_TYPE_NULL && (c->type.id != INLET_TYPE_STRUCT || keeps_a_field(c)))
      return true;
  }
  return false;
}

/* The first field of @p f that dropping struct voids cannot make
 * writable (see delta.h), or NULL. */
static const char *field_unwritable_void(const inlet_field *f, bool in_container) {
  if (f->type.id == INLET_TYPE_NULL) return in_container ? f->name : NULL;
  if (f->type.id == INLET_TYPE_STRUCT && !keeps_a_field(f) && field_void(f)) return f->name;
  bool container = in_container || f->type.id == INLET_TYPE_LIST || f->type.id == INLET_TYPE_MAP;
  for (int32_t i = 0; i < f->n_children; i++) {
    const char *v = field_unwritable_void(&f->children[i], container);
    if (v) return v;
  }
  return NULL;
}

const char *delta_schema_unwritable_void(const inlet_schema *schema) {
  for (int32_t i = 0; i < schema->n_fields; i++) {
    const inlet_field *f = &schema->fields[i];
    if (f->type.id == INLET_TYPE_NULL) continue; /* top level: left out of data files */
    const char *v = field_unwritable_void(f, false);
    if (v) return v;
  }
  return NULL;
}

static void drop_struct_voids(inlet_field *f) {
  if (f->type.id != INLET_TYPE_STRUCT) return;
  int32_t kept = 0;
  for (int32_t i = 0; i < f->n_children; i++) {
    if (f->children[i].type.id == INLET_TYPE_NULL) {
      inlet_field_reset(&f->children[i]);
      continue;
    }
    drop_struct_voids(&f->children[i]);
    if (kept != i) f->children[kept] = f->children[i];
    kept++;
  }
  f->n_children = kept;
}

void delta_schema_drop_struct_voids(inlet_schema *schema) {
  for (int32_t i = 0; i < schema->n_fields; i++)
    drop_struct_voids(&schema->fields[i]);
}

const char *delta_schema_void_column(const inlet_schema *schema) {
  for (int32_t i = 0; i < schema->n_fields; i++) {
    const char *v = field_void(&schema->fields[i]);
    if (v) return v;
  }
  return NULL;
}
