/*
 * Schema evolution from records (`--schema-evolution add`, docs/INGEST.md
 * "Schema evolution"): the fields of a JSON record that a Delta schemaString
 * lacks, with types inferred from their values, appended as nullable columns
 * (top level) or struct fields (inside existing struct columns, also under
 * arrays and map values).
 *
 * Inference, from the first value that carries a type:
 *   integer → long, number with a fraction or exponent → double,
 *   true/false → boolean, string → string, object → struct of its fields
 *   (recursively), array → array of the type of its first typed element,
 *   the later elements' new struct fields merged in.
 * null, {} and arrays holding only nulls (or nothing) carry no type: such a
 * field is not added yet (its row reads NULL, as for an absent field) and
 * becomes a column with the first value that has a type.
 *
 * Spec: PROTOCOL.md "Schema Serialization Format" (struct/array/map types,
 * nullable, metadata) and "Change Metadata" (a metaData action replaces the
 * schema). Column names keep Spark's rules: no case-insensitive duplicates,
 * none of " ,;{}()\n\t=" without column mapping.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "delta/delta.h"
#include "delta/delta_features.h"
#include "util/util.h"

typedef struct evolve_ctx {
  int32_t added;
  inlet_error *err;
} evolve_ctx;

static int check_new_name(evolve_ctx *c, const char *path, const char *name) {
  FAIL_IF(!*name, c->err, INLET_EINVAL,
          "unknown field with an empty name%s%s cannot become a column", *path ? " in " : "", path);
  const char *bad = delta_name_needs_mapping(name);
  FAIL_IF(bad, c->err, INLET_EINVAL,
          "unknown field \"%.100s%s%.100s\" cannot become a column: its name contains %s, which "
          "Delta allows only with column mapping",
          path, *path ? "." : "", name, bad);
  return 0;
}

static int infer(evolve_ctx *c, json_t *v, const char *path, int depth, json_t **out);

/* A struct type of the typed fields of object @p o, or NULL when none has one. */
static int infer_struct(evolve_ctx *c, json_t *o, const char *path, int depth, json_t **out) {
  *out = NULL;
  json_t *fields = json_array();
  if (!fields) return inlet_fail(c->err, INLET_ENOMEM, "out of memory");
  const char *k;
  json_t *v;
  int rc = 0;
  json_object_foreach(o, k, v) {
    char sub[512];
    snprintf(sub, sizeof sub, "%s%s%s", path, *path ? "." : "", k);
    /* Case-insensitive duplicates inside one new object. */
    size_t i;
    json_t *f;
    json_array_foreach(fields, i, f) {
      const char *fn = json_string_value(json_object_get(f, "name"));
      if (fn && strcasecmp(fn, k) == 0) {
        rc = inlet_fail(c->err, INLET_EINVAL,
                        "fields \"%.100s\" and \"%.100s\" of \"%.200s\" differ only in case "
                        "(Delta column names are case-insensitive)",
                        fn, k, path);
        break;
      }
    }
    if (rc < 0) break;
    if ((rc = check_new_name(c, path, k)) < 0) break;
    json_t *t = NULL;
    if ((rc = infer(c, v, sub, depth + 1, &t)) < 0) break;
    if (!t) continue;
    json_t *fld = json_pack("{s:s,s:o,s:b,s:{}}", "name", k, "type", t, "nullable", 1, "metadata");
    if (!fld || json_array_append_new(fields, fld) < 0) {
      rc = inlet_fail(c->err, INLET_ENOMEM, "out of memory");
      break;
    }
  }
  if (rc < 0 || json_array_size(fields) == 0) {
    json_decref(fields);
    return rc;
  }
  *out = json_pack("{s:s,s:o}", "type", "struct", "fields", fields);
  return *out ? 0 : inlet_fail(c->err, INLET_ENOMEM, "out of memory");
}

static int merge_value(evolve_ctx *c, json_t *type, json_t *v, const char *path, int depth);

static int infer(evolve_ctx *c, json_t *v, const char *path, int depth, json_t **out) {
  *out = NULL;
  FAIL_IF(depth >= DELTA_MAX_SCHEMA_DEPTH - 2, c->err, INLET_EINVAL,
          "unknown field \"%.200s\" nests deeper than %d levels, more than a column may", path,
          DELTA_MAX_SCHEMA_DEPTH - 2);
  const char *scalar = NULL;
  switch (json_typeof(v)) {
  case JSON_INTEGER: scalar = "long"; break;
  case JSON_REAL: scalar = "double"; break;
  case JSON_TRUE:
  case JSON_FALSE: scalar = "boolean"; break;
  case JSON_STRING: scalar = "string"; break;
  case JSON_NULL: return 0;
  case JSON_OBJECT: return infer_struct(c, v, path, depth, out);
  case JSON_ARRAY: {
    json_t *elem = NULL;
    size_t i;
    json_t *e;
    json_array_foreach(v, i, e) {
      int rc =
          elem ? merge_value(c, elem, e, path, depth + 1) : infer(c, e, path, depth + 1, &elem);
      if (rc < 0) {
        json_decref(elem);
        return rc;
      }
    }
    if (!elem) return 0;
    *out = json_pack("{s:s,s:o,s:b}", "type", "array", "elementType", elem, "containsNull", 1);
    return *out ? 0 : inlet_fail(c->err, INLET_ENOMEM, "out of memory");
  }
  }
  *out = json_string(scalar);
  return *out ? 0 : inlet_fail(c->err, INLET_ENOMEM, "out of memory");
}

static int merge_fields(evolve_ctx *c, json_t *fields, json_t *o, const char *path, int depth);

/* New fields of value @p v inside existing type @p type (struct, and structs
 * under arrays and map values); other types take no fields. */
static int merge_value(evolve_ctx *c, json_t *type, json_t *v, const char *path, int depth) {
  FAIL_IF(depth >= DELTA_MAX_SCHEMA_DEPTH - 2, c->err, INLET_EINVAL,
          "field \"%.200s\" nests deeper than %d levels", path, DELTA_MAX_SCHEMA_DEPTH - 2);
  if (!json_is_object(type)) return 0;
  const char *kind = json_string_value(json_object_get(type, "type"));
  if (!kind) return 0;
  if (strcmp(kind, "struct") == 0 && json_is_object(v))
    return merge_fields(c, json_object_get(type, "fields"), v, path, depth + 1);
  if (strcmp(kind, "array") == 0 && json_is_array(v)) {
    json_t *et = json_object_get(type, "elementType");
    size_t i;
    json_t *e;
    json_array_foreach(v, i, e) TRY(merge_value(c, et, e, path, depth + 1));
    return 0;
  }
  if (strcmp(kind, "map") == 0 && json_is_object(v)) {
    json_t *vt = json_object_get(type, "valueType");
    const char *k;
    json_t *e;
    json_object_foreach(v, k, e) TRY(merge_value(c, vt, e, path, depth + 1));
    return 0;
  }
  return 0;
}

static int merge_fields(evolve_ctx *c, json_t *fields, json_t *o, const char *path, int depth) {
  if (!json_is_array(fields)) return 0;
  const char *k;
  json_t *v;
  json_object_foreach(o, k, v) {
    char sub[512];
    snprintf(sub, sizeof sub, "%s%s%s", path, *path ? "." : "", k);
    json_t *found = NULL, *folded = NULL;
    size_t i;
    json_t *f;
    json_array_foreach(fields, i, f) {
      const char *fn = json_string_value(json_object_get(f, "name"));
      if (!fn) continue;
      if (strcmp(fn, k) == 0) {
        found = f;
        break;
      }
      if (!folded && strcasecmp(fn, k) == 0) folded = f;
    }
    if (found) {
      TRY(merge_value(c, json_object_get(found, "type"), v, sub, depth));
      continue;
    }
    if (folded) {
      /* The reader matches names exactly; Delta compares them without case.
       * A value that carries no type (null, {}, []) would add no column,
       * as when no column is near it: skipped alike, so the outcome does
       * not depend on the order of the record's fields. */
      json_t *t = NULL;
      TRY(infer(c, v, sub, depth, &t));
      if (!t) continue;
      json_decref(t);
      return inlet_fail(c->err, INLET_EINVAL,
                        "unknown field \"%.200s\" differs only in case from column \"%.200s%s%s\" "
                        "(Delta column names are case-insensitive)",
                        sub, path, *path ? "." : "",
                        json_string_value(json_object_get(folded, "name")));
    }
    json_t *t = NULL;
    TRY(infer(c, v, sub, depth, &t));
    if (!t) continue; /* no type yet: not added */
    int rc = check_new_name(c, path, k);
    if (rc < 0) {
      json_decref(t);
      return rc;
    }
    json_t *fld = json_pack("{s:s,s:o,s:b,s:{}}", "name", k, "type", t, "nullable", 1, "metadata");
    if (!fld || json_array_append_new(fields, fld) < 0)
      return inlet_fail(c->err, INLET_ENOMEM, "out of memory");
    c->added++;
  }
  return 0;
}

/* The table's schemaString as a JSON struct type into *out. */
static int load_struct(json_t **out, const char *schema_json, inlet_error *err) {
  json_error_t je;
  *out = json_loads(schema_json, 0, &je);
  if (*out && json_is_array(json_object_get(*out, "fields"))) return 0;
  int rc = inlet_fail(err, INLET_ECORRUPT, "schemaString is not a struct type: %s",
                      *out ? "no fields" : je.text);
  json_decref(*out);
  *out = NULL;
  return rc;
}

int delta_schema_evolve(char **out, int32_t *added, const char *schema_json, const char *record,
                        size_t len, inlet_error *err) {
  *out = NULL;
  *added = 0;
  json_error_t je;
  json_t *schema;
  TRY(load_struct(&schema, schema_json, err));
  json_t *rec = json_loadb(record, len, JSON_REJECT_DUPLICATES, &je);
  /* An integer beyond 64 bits: the record's integers count as doubles. */
  if (!rec) rec = json_loadb(record, len, JSON_REJECT_DUPLICATES | JSON_DECODE_INT_AS_REAL, &je);
  if (!rec || !json_is_object(rec)) {
    json_decref(schema);
    json_decref(rec);
    return inlet_fail(err, INLET_ECORRUPT, "new fields of the record cannot be inferred: %s",
                      rec ? "not a JSON object" : je.text);
  }
  evolve_ctx c = {0, err};
  int rc = merge_fields(&c, json_object_get(schema, "fields"), rec, "", 0);
  if (rc == 0 && c.added > 0) {
    char *s = json_dumps(schema, JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (!s) {
      rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
    } else {
      *out = inlet_strdup(s);
      free(s);
      if (!*out) rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
    }
  }
  if (rc == 0) *added = c.added;
  json_decref(schema);
  json_decref(rec);
  return rc;
}

/* Type widening (`--schema-evolution add` on a table with the typeWidening
 * feature and delta.enableTypeWidening=true; docs/INGEST.md "Schema
 * evolution"): a byte/short/integer column or field whose JSON value is an
 * integer outside its range becomes the narrowest of short/integer/long that
 * holds it; a float one whose value is a finite number beyond a float's
 * range (|v| > 3.4028235e38) becomes double. Decided by value, as the reader
 * would otherwise reject the record: a float column that merely rounds a
 * value (0.1) stays float. The same holds inside structs, array elements,
 * map keys and map values. The change is recorded in delta.typeChanges of
 * the nearest struct field, with a fieldPath ("element", "key", "value",
 * dotted when nested) for the parts of arrays and maps (PROTOCOL.md "Type
 * Widening", "Type Change Metadata"). */
static const char *wider_type(const char *type, const json_t *v) {
  if (json_is_integer(v)) {
    json_int_t x = json_integer_value(v);
    int rank = strcmp(type, "byte") == 0      ? 0
               : strcmp(type, "short") == 0   ? 1
               : strcmp(type, "integer") == 0 ? 2
                                              : -1;
    if (rank < 0) return NULL;
    if (x >= -128 && x <= 127) return NULL;
    if (x >= -32768 && x <= 32767) return rank < 1 ? "short" : NULL;
    if (x >= INT32_MIN && x <= INT32_MAX) return rank < 2 ? "integer" : NULL;
    return "long";
  }
  if (json_is_real(v) && strcmp(type, "float") == 0) {
    double d = json_real_value(v);
    return d > FLT_MAX || d < -FLT_MAX ? "double" : NULL; /* finite: jansson has no inf */
  }
  return NULL;
}

/* A map key (JSON object keys are text) as the JSON value the reader would
 * convert for key type @p type, or NULL when it is no number. */
static json_t *key_value(const char *type, const char *k) {
  if (!*k) return NULL;
  char *end;
  errno = 0;
  if (strcmp(type, "float") == 0) {
    double d = strtod(k, &end);
    return *end || errno || !isfinite(d) ? NULL : json_real(d);
  }
  long long x = strtoll(k, &end, 10);
  return *end || errno ? NULL : json_integer((json_int_t)x);
}

#define WIDEN_MAX_CHANGES 64

typedef struct widen_ctx {
  int32_t widened; /* typeChanges entries appended */
  /* The typeChanges entries this call appended (borrowed): a later value
   * that widens the same part further moves their toType instead of adding
   * a second entry. */
  json_t *mine[WIDEN_MAX_CHANGES];
  int32_t n_mine;
  inlet_error *err;
} widen_ctx;

/* Records @p from → @p to (with @p fpath, "" for the field itself) in
 * @p anchor's metadata. */
static int note_change(widen_ctx *c, json_t *anchor, const char *from, const char *to,
                       const char *fpath) {
  json_t *md = json_object_get(anchor, "metadata");
  if (!json_is_object(md)) {
    md = json_object();
    if (!md || json_object_set_new(anchor, "metadata", md) < 0)
      return inlet_fail(c->err, INLET_ENOMEM, "out of memory");
  }
  json_t *tc = json_object_get(md, "delta.typeChanges");
  if (!json_is_array(tc)) {
    tc = json_array();
    if (!tc || json_object_set_new(md, "delta.typeChanges", tc) < 0)
      return inlet_fail(c->err, INLET_ENOMEM, "out of memory");
  }
  size_t i;
  json_t *e;
  json_array_foreach(tc, i, e) {
    for (int32_t m = 0; m < c->n_mine; m++) {
      if (c->mine[m] != e) continue;
      const char *ep = json_string_value(json_object_get(e, "fieldPath"));
      if (strcmp(ep ? ep : "", fpath) == 0 &&
          strcmp(json_string_value(json_object_get(e, "toType")), from) == 0)
        return json_object_set_new(e, "toType", json_string(to)) < 0
                   ? inlet_fail(c->err, INLET_ENOMEM, "out of memory")
                   : 0;
    }
  }
  FAIL_IF(c->n_mine >= WIDEN_MAX_CHANGES, c->err, INLET_ELIMIT,
          "a record widens more than %d columns and fields at once", WIDEN_MAX_CHANGES);
  e = *fpath ? json_pack("{s:s,s:s,s:s}", "fromType", from, "toType", to, "fieldPath", fpath)
             : json_pack("{s:s,s:s}", "fromType", from, "toType", to);
  if (!e || json_array_append_new(tc, e) < 0)
    return inlet_fail(c->err, INLET_ENOMEM, "out of memory");
  c->mine[c->n_mine++] = e;
  c->widened++;
  return 0;
}

static int widen_field(widen_ctx *c, json_t *field, json_t *v, int depth);

/* The type at @p holder[@p key] (a field's "type", an array's
 * "elementType", a map's "keyType"/"valueType") for value @p v; @p anchor
 * is the nearest struct field, @p fpath the path from it ("" for itself). */
static int widen_type(widen_ctx *c, json_t *holder, const char *key, json_t *v, json_t *anchor,
                      const char *fpath, int depth) {
  FAIL_IF(depth >= DELTA_MAX_SCHEMA_DEPTH, c->err, INLET_EINVAL,
          "value nests deeper than %d levels", DELTA_MAX_SCHEMA_DEPTH);
  json_t *t = json_object_get(holder, key);
  if (!v || json_is_null(v)) return 0;
  if (json_is_string(t)) {
    const char *to = wider_type(json_string_value(t), v);
    if (!to) return 0;
    char from[16];
    snprintf(from, sizeof from, "%s", json_string_value(t));
    TRY(note_change(c, anchor, from, to, fpath));
    if (json_object_set_new(holder, key, json_string(to)) < 0)
      return inlet_fail(c->err, INLET_ENOMEM, "out of memory");
    return 0;
  }
  const char *kind = json_string_value(json_object_get(t, "type"));
  if (!kind) return 0;
  char sub[256];
  if (strcmp(kind, "struct") == 0 && json_is_object(v)) {
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(t, "fields"), i, f) {
      const char *name = json_string_value(json_object_get(f, "name"));
      if (name) TRY(widen_field(c, f, json_object_get(v, name), depth + 1));
    }
    return 0;
  }
  if (strcmp(kind, "array") == 0 && json_is_array(v)) {
    snprintf(sub, sizeof sub, "%s%selement", fpath, *fpath ? "." : "");
    size_t i;
    json_t *e;
    json_array_foreach(v, i, e) TRY(widen_type(c, t, "elementType", e, anchor, sub, depth + 1));
    return 0;
  }
  if (strcmp(kind, "map") != 0) return 0;
  char ksub[256];
  snprintf(ksub, sizeof ksub, "%s%skey", fpath, *fpath ? "." : "");
  snprintf(sub, sizeof sub, "%s%svalue", fpath, *fpath ? "." : "");
  if (json_is_object(v)) {
    const char *k;
    json_t *e;
    json_object_foreach(v, k, e) {
      const char *kt = json_string_value(json_object_get(t, "keyType"));
      json_t *kv = kt ? key_value(kt, k) : NULL;
      int rc = kv ? widen_type(c, t, "keyType", kv, anchor, ksub, depth + 1) : 0;
      json_decref(kv);
      TRY(rc);
      TRY(widen_type(c, t, "valueType", e, anchor, sub, depth + 1));
    }
  } else if (json_is_array(v)) { /* [key, value] pairs */
    size_t i;
    json_t *e;
    json_array_foreach(v, i, e) {
      if (!json_is_array(e) || json_array_size(e) != 2) continue;
      TRY(widen_type(c, t, "keyType", json_array_get(e, 0), anchor, ksub, depth + 1));
      TRY(widen_type(c, t, "valueType", json_array_get(e, 1), anchor, sub, depth + 1));
    }
  }
  return 0;
}

static int widen_field(widen_ctx *c, json_t *field, json_t *v, int depth) {
  return widen_type(c, field, "type", v, field, "", depth);
}

int delta_schema_widen(char **out, int32_t *widened, const char *schema_json, const char *record,
                       size_t len, inlet_error *err) {
  *out = NULL;
  *widened = 0;
  json_error_t je;
  json_t *schema;
  TRY(load_struct(&schema, schema_json, err));
  json_t *rec = json_loadb(record, len, JSON_REJECT_DUPLICATES, &je);
  widen_ctx c = {.err = err};
  /* The record as a value of the table's struct type: its columns are the
   * top-level struct fields. */
  json_t *root = json_pack("{s:O}", "type", schema);
  int rc = root ? 0 : inlet_fail(err, INLET_ENOMEM, "out of memory");
  if (rc == 0 && json_is_object(rec)) rc = widen_type(&c, root, "type", rec, root, "", 0);
  if (rc == 0 && c.widened > 0) {
    char *s = json_dumps(schema, JSON_COMPACT | JSON_PRESERVE_ORDER);
    *out = s ? inlet_strdup(s) : NULL;
    free(s);
    if (!*out) rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
  }
  if (rc == 0) *widened = c.widened;
  json_decref(root);
  json_decref(schema);
  json_decref(rec);
  return rc;
}
