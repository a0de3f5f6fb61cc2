/*
 * Column invariants and CHECK constraints (delta_constraints.h).
 *
 * Spark finds invariants through struct nesting only (SchemaUtils
 * .filterRecursively with checkComplexTypes = false), not inside arrays or
 * maps, and reads CHECK constraints from every configuration key that
 * starts with "delta.constraints." ignoring case; so does this.
 */
#include <jansson.h>
#include <stdio.h>
#include <strings.h>

#include "delta/delta_constraints.h"
#include "inlet/text.h"
#include "util/buf.h"
#include "util/util.h"

void delta_constraints_reset(delta_constraints *c) {
  for (int32_t i = 0; i < c->n; i++) {
    inlet_free(c->items[i].name);
    inlet_free(c->items[i].text);
    expr_free(c->items[i].pred);
  }
  inlet_free(c->items);
  inlet_schema_reset(&c->schema);
  inlet_free(c->used);
  inlet_free(c->res);
  memset(c, 0, sizeof *c);
}

static int add(delta_constraints *c, const delta_snapshot *s, const char *name, const char *text,
               bool invariant, inlet_error *err) {
  if (c->n == 0 || (c->n >= 4 && (c->n & (c->n - 1)) == 0)) {
    size_t cap = c->n ? (size_t)c->n * 2 : 4;
    delta_constraint *ni = inlet_realloc(c->items, cap * sizeof *ni);
    if (!ni) return inlet_fail(err, INLET_ENOMEM, "out of memory reading constraints");
    c->items = ni;
  }
  delta_constraint *k = &c->items[c->n];
  memset(k, 0, sizeof *k);
  k->name = inlet_strdup(name);
  k->text = inlet_strdup(text);
  k->invariant = invariant;
  if (!k->name || !k->text) {
    inlet_free(k->name);
    inlet_free(k->text);
    return inlet_fail(err, INLET_ENOMEM, "out of memory reading constraints");
  }
  c->n++;
  inlet_error pe = INLET_ERROR_INIT;
  int rc = expr_parse(&k->pred, text, &s->schema, EXPR_SPARK, &pe);
  if (rc == INLET_ENOMEM) return inlet_fail(err, rc, "%s", pe.message);
  if (rc < 0) {
    if (invariant)
      return inlet_fail(err, INLET_EUNSUPPORTED,
                        "cannot write: the delta.invariants expression of column \"%s\" (%s) "
                        "cannot be evaluated by inlet: %s",
                        name, text, pe.message);
    return inlet_fail(err, INLET_EUNSUPPORTED,
                      "cannot write: CHECK constraint %s (%s) cannot be evaluated by inlet: %s",
                      name, text, pe.message);
  }
  return 0;
}

/* Walks the fields of one struct type in the schemaString. */
static int walk(delta_constraints *c, const delta_snapshot *s, json_t *fields, inlet_buf *path,
                int depth, inlet_error *err) {
  if (!json_is_array(fields) || depth > DELTA_MAX_SCHEMA_DEPTH) return 0;
  size_t i;
  json_t *f;
  json_array_foreach(fields, i, f) {
    const char *name = json_string_value(json_object_get(f, "name"));
    if (!name) continue;
    size_t mark = path->len;
    if (mark) inlet_buf_push(path, '.');
    inlet_buf_puts(path, name);
    inlet_buf_terminate(path);
    if (inlet_buf_status(path) < 0) return inlet_fail(err, INLET_ENOMEM, "out of memory");
    const char *col = (const char *)path->data;
    json_t *inv = json_object_get(json_object_get(f, "metadata"), "delta.invariants");
    if (inv) {
      /* {"expression": {"expression": "<SQL>"}}, itself stored as a JSON string. */
      json_t *rule = json_is_string(inv) ? json_loads(json_string_value(inv), 0, NULL) : NULL;
      const char *text =
          json_string_value(json_object_get(json_object_get(rule, "expression"), "expression"));
      int rc = text
                   ? add(c, s, col, text, true, err)
                   : inlet_fail(err, INLET_EUNSUPPORTED,
                                "cannot write: column \"%s\" has a delta.invariants rule inlet "
                                "does not understand (%.200s)",
                                col, json_is_string(inv) ? json_string_value(inv) : "not a string");
      json_decref(rule);
      if (rc < 0) return rc;
    }
    json_t *type = json_object_get(f, "type");
    const char *tname = json_string_value(json_object_get(type, "type"));
    if (json_is_object(type) && tname && strcmp(tname, "struct") == 0)
      TRY(walk(c, s, json_object_get(type, "fields"), path, depth + 1, err));
    path->len = mark;
  }
  return 0;
}

static bool has_nested_not_null(const inlet_field *f, int32_t n, int depth) {
  for (int32_t i = 0; i < n; i++) {
    for (int32_t k = 0; k < f[i].n_children; k++)
      if (!f[i].children[k].nullable) return true;
    if (depth < 64 && has_nested_not_null(f[i].children, f[i].n_children, depth + 1)) return true;
  }
  return false;
}

int delta_constraints_load(delta_constraints *out, const delta_snapshot *s, inlet_error *err) {
  memset(out, 0, sizeof *out);
  int rc = 0;
  inlet_schema_init(&out->schema);
  out->nested_not_null = has_nested_not_null(s->schema.fields, s->schema.n_fields, 0);
  out->n_cols = s->schema.n_fields;
  if (out->nested_not_null) rc = inlet_schema_copy(&out->schema, &s->schema, err);
  const delta_metadata *m = &s->metadata;
  for (int32_t i = 0; i < m->n_configuration && rc == 0; i++) {
    const char *k = m->configuration[i].key;
    if (strncasecmp(k, "delta.constraints.", 18) != 0) continue;
    rc =
        add(out, s, k + 18, m->configuration[i].value ? m->configuration[i].value : "", false, err);
  }
  if (rc == 0 && m->schema_string && strstr(m->schema_string, "delta.invariants")) {
    json_error_t je;
    json_t *root = json_loads(m->schema_string, 0, &je);
    inlet_buf path = INLET_BUF_INIT;
    if (!root)
      rc = inlet_fail(err, INLET_ECORRUPT, "metaData schemaString is not JSON: %s", je.text);
    else
      rc = walk(out, s, json_object_get(root, "fields"), &path, 0, err);
    inlet_buf_reset(&path);
    json_decref(root);
  }
  if (rc == 0 && out->n > 0) {
    out->used = inlet_calloc((size_t)out->n_cols + 1, 1);
    if (!out->used) rc = inlet_fail(err, INLET_ENOMEM, "out of memory reading constraints");
    for (int32_t i = 0; rc == 0 && i < out->n; i++)
      for (int32_t k = 0; k < out->items[i].pred->n_cols; k++)
        out->used[out->items[i].pred->cols[k]] = 1;
  }
  if (rc < 0) delta_constraints_reset(out);
  return rc;
}

int delta_constraints_check_new(const inlet_schema *schema, const char *const *keys,
                                const char *const *values, int32_t n, inlet_error *err) {
  for (int32_t i = 0; i < n; i++) {
    if (!keys[i] || strncasecmp(keys[i], "delta.constraints.", 18) != 0) continue;
    FAIL_IF(!keys[i][18], err, INLET_EINVAL, "table property %s names no CHECK constraint",
            keys[i]);
    inlet_predicate *p = NULL;
    inlet_error pe = INLET_ERROR_INIT;
    int rc = expr_parse(&p, values[i] ? values[i] : "", schema, EXPR_SPARK, &pe);
    expr_free(p);
    if (rc == INLET_ENOMEM) return inlet_fail(err, rc, "%s", pe.message);
    if (rc < 0)
      return inlet_fail(
          err, INLET_EINVAL, "table property %s: CHECK constraint (%s) %s%s", keys[i],
          values[i] ? values[i] : "",
          rc == INLET_EUNSUPPORTED ? "cannot be evaluated by inlet: " : "is invalid: ", pe.message);
  }
  return 0;
}

/* "{"a":1,"b":"x"}": the columns constraint @p k reads, in row @p r. */
static void row_values(const delta_constraint *k, const inlet_batch *b, int64_t r, char *out,
                       size_t cap) {
  size_t len = 0;
  out[len++] = '{';
  for (int32_t i = 0; i < k->pred->n_cols && len + 8 < cap; i++) {
    int32_t col = k->pred->cols[i];
    const inlet_field *f = &k->pred->schema.fields[col];
    char v[96];
    int64_t need = inlet_text_format_value(v, sizeof v, &b->columns[col], f, r, true);
    if (need < 0)
      snprintf(v, sizeof v, "?");
    else if ((size_t)need >= sizeof v)
      memcpy(v + sizeof v - 4, "...", 4);
    int w = snprintf(out + len, cap - len, "%s\"%s\":%s", i ? "," : "", f->name, v);
    if (w < 0 || (size_t)w >= cap - len) {
      len = cap - 5 > len ? len : cap - 5;
      memcpy(out + len, "...", 3);
      len += 3;
      break;
    }
    len += (size_t)w;
  }
  if (len + 2 <= cap) out[len++] = '}';
  out[len < cap ? len : cap - 1] = 0;
}

/* The first NOT NULL field below value @p i of @p a (field @p f, valid)
 * that holds a null; its path goes to @p path. */
static bool null_below(const inlet_field *f, const inlet_array *a, int64_t i, char *path,
                       size_t cap, int depth) {
  size_t len = strlen(path);
  if (depth > 64) return false;
  if (f->type.id == INLET_TYPE_STRUCT) {
    for (int32_t k = 0; k < f->n_children; k++) {
      const inlet_field *cf = &f->children[k];
      const inlet_array *ca = &a->children[k];
      snprintf(path + len, cap - len, ".%s", cf->name);
      if (!inlet_array_is_valid(ca, i)) {
        if (!cf->nullable) return true;
        continue;
      }
      if (null_below(cf, ca, i, path, cap, depth + 1)) return true;
    }
  } else if (f->type.id == INLET_TYPE_LIST || f->type.id == INLET_TYPE_MAP) {
    const inlet_field *ef = &f->children[0];
    const inlet_array *ea = &a->children[0];
    for (int64_t e = a->offsets[i]; e < a->offsets[i + 1]; e++) {
      if (f->type.id == INLET_TYPE_LIST) {
        snprintf(path + len, cap - len, ".element");
        if (!inlet_array_is_valid(ea, e)) {
          if (!ef->nullable) return true;
          continue;
        }
        if (null_below(ef, ea, e, path, cap, depth + 1)) return true;
      } else {
        /* map entries: key (never null) and value */
        for (int32_t k = 0; k < ef->n_children && k < 2; k++) {
          const inlet_field *cf = &ef->children[k];
          const inlet_array *ca = &ea->children[k];
          snprintf(path + len, cap - len, ".%s", k == 0 ? "key" : "value");
          if (!inlet_array_is_valid(ca, e)) {
            if (!cf->nullable) return true;
            continue;
          }
          if (null_below(cf, ca, e, path, cap, depth + 1)) return true;
        }
      }
    }
  }
  path[len] = 0;
  return false;
}

int delta_constraints_check(delta_constraints *c, const inlet_batch *b, int64_t first, int64_t n,
                            int64_t row_base, int64_t *bad_row, int32_t *which, inlet_error *err) {
  if (n <= 0) return 0;
  if (c->nested_not_null) {
    /* Nullability is the table's: the batch may have been read with a
     * looser schema (a Parquet input's). */
    for (int32_t col = 0; col < b->schema.n_fields && col < c->schema.n_fields; col++) {
      const inlet_field *f = &c->schema.fields[col];
      const inlet_array *a = &b->columns[col];
      if (f->n_children == 0 || a->length < first + n) continue;
      for (int64_t r = first; r < first + n; r++) {
        char path[512];
        snprintf(path, sizeof path, "%s", f->name);
        if (!inlet_array_is_valid(a, r) || !null_below(f, a, r, path, sizeof path, 0)) continue;
        if (bad_row) *bad_row = r;
        if (which) *which = -1;
        char where[48] = "";
        if (row_base >= 0)
          snprintf(where, sizeof where, " by row %lld", (long long)(row_base + (r - first) + 1));
        return inlet_fail(err, INLET_EINVAL, "NOT NULL constraint violated for column %s%s", path,
                          where);
      }
    }
  }
  if (c->n == 0) return 0;
  if (n > c->cap) {
    uint8_t *nr = inlet_realloc(c->res, (size_t)n);
    if (!nr) return inlet_fail(err, INLET_ENOMEM, "out of memory checking constraints");
    c->res = nr;
    c->cap = n;
  }
  for (int32_t i = 0; i < c->n; i++) {
    const delta_constraint *k = &c->items[i];
    TRY(expr_eval(k->pred, b, first, n, c->res, err));
    for (int64_t r = 0; r < n; r++) {
      if (c->res[r] == EXPR_TRUE) continue;
      if (bad_row) *bad_row = first + r;
      if (which) *which = i;
      char vals[300];
      row_values(k, b, first + r, vals, sizeof vals);
      const char *why = c->res[r] == EXPR_NULL ? "NULL" : "false";
      char where[48] = "";
      if (row_base >= 0)
        snprintf(where, sizeof where, " by row %lld", (long long)(row_base + r + 1));
      if (k->invariant)
        return inlet_fail(err, INLET_EINVAL, "invariant of column %s (%s) violated%s (%s): %s",
                          k->name, k->text, where, why, vals);
      return inlet_fail(err, INLET_EINVAL, "CHECK constraint %s (%s) violated%s (%s): %s", k->name,
                        k->text, where, why, vals);
    }
  }
  return 0;
}
