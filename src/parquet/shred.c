/*
 * Nested columns for the Parquet writer (see shred.h): the Parquet schema
 * of STRUCT/LIST/MAP fields (LogicalTypes.md "Nested Types") and record
 * shredding into definition/repetition levels (parquet-format README
 * "Nested Encoding").
 *
 * Levels, per step down a leaf's path: an OPTIONAL field adds one
 * definition level; the repeated group of a LIST ("list") or MAP
 * ("key_value") adds one definition and one repetition level; map keys are
 * REQUIRED. A null at an optional step ends the path with the definition
 * level reached so far; an empty list or map ends it with the level of the
 * present container. Leaf values are gathered densely (non-null only) so
 * that Arrow arrays whose null parents hide child entries, or whose offsets
 * skip values, shred correctly.
 */
#include "parquet/shred.h"

#include <stdio.h>
#include <string.h>

#include "util/util.h"

static bool is_nested(const inlet_type *t) {
  return t->id == INLET_TYPE_STRUCT || t->id == INLET_TYPE_LIST || t->id == INLET_TYPE_MAP;
}

/* Checks the shape of nested fields (LIST: one child; MAP: one STRUCT
 * child with key and value) and counts leaves and schema elements. */
static int measure(const inlet_field *f, int depth, int32_t *leaves, int32_t *elems,
                   inlet_error *err) {
  FAIL_IF(depth > PQ_MAX_SCHEMA_DEPTH - 2, err, INLET_EINVAL, "field \"%s\" is nested too deeply",
          f->name ? f->name : "");
  switch (f->type.id) {
  case INLET_TYPE_STRUCT:
    FAIL_IF(f->n_children <= 0, err, INLET_EINVAL, "struct \"%s\" has no fields", f->name);
    *elems += 1;
    for (int32_t i = 0; i < f->n_children; i++)
      TRY(measure(&f->children[i], depth + 1, leaves, elems, err));
    return 0;
  case INLET_TYPE_LIST:
    FAIL_IF(f->n_children != 1, err, INLET_EINVAL, "list \"%s\" needs one child", f->name);
    *elems += 2;
    return measure(&f->children[0], depth + 2, leaves, elems, err);
  case INLET_TYPE_MAP: {
    const inlet_field *e = f->n_children == 1 ? &f->children[0] : NULL;
    FAIL_IF(!e || e->type.id != INLET_TYPE_STRUCT || e->n_children != 2, err, INLET_EINVAL,
            "map \"%s\" needs an entries struct of key and value", f->name);
    *elems += 2;
    TRY(measure(&e->children[0], depth + 2, leaves, elems, err));
    return measure(&e->children[1], depth + 2, leaves, elems, err);
  }
  default:
    *elems += 1;
    *leaves += 1;
    return 0;
  }
}

static void collect(const inlet_field *f, int32_t top, const inlet_field **leaves, int32_t *tops,
                    int32_t *n) {
  switch (f->type.id) {
  case INLET_TYPE_STRUCT:
    for (int32_t i = 0; i < f->n_children; i++)
      collect(&f->children[i], top, leaves, tops, n);
    return;
  case INLET_TYPE_LIST: collect(&f->children[0], top, leaves, tops, n); return;
  case INLET_TYPE_MAP:
    collect(&f->children[0].children[0], top, leaves, tops, n);
    collect(&f->children[0].children[1], top, leaves, tops, n);
    return;
  default:
    leaves[*n] = f;
    tops[*n] = top;
    (*n)++;
  }
}

typedef struct schema_builder {
  pq_file_metadata *m;
  pq_schema_element *elems;
  int32_t n;
  const pq_schema_element *leaf_elems; /* flat mapping of the leaves, DFS order */
  int32_t leaf;
  inlet_error *err;
} schema_builder;

static pq_schema_element *new_element(schema_builder *b, const char *name, pq_repetition rep,
                                      int32_t field_id) {
  pq_schema_element *e = &b->elems[b->n++];
  memset(e, 0, sizeof *e);
  e->name = pq_meta_strdup(b->m, name, b->err);
  if (!e->name) return NULL;
  e->has_repetition = true;
  e->repetition = rep;
  e->converted_type = PQ_CT_NONE;
  if (field_id >= 0) {
    e->has_field_id = true;
    e->field_id = field_id;
  }
  return e;
}

static int emit(schema_builder *b, const inlet_field *f, const char *name, pq_repetition rep) {
  pq_schema_element *e = new_element(b, name, rep, f->field_id);
  if (!e) return INLET_ENOMEM;
  switch (f->type.id) {
  case INLET_TYPE_STRUCT:
    e->has_num_children = true;
    e->num_children = f->n_children;
    for (int32_t i = 0; i < f->n_children; i++) {
      const inlet_field *c = &f->children[i];
      TRY(emit(b, c, c->name, c->nullable ? PQ_OPTIONAL : PQ_REQUIRED));
    }
    return 0;
  case INLET_TYPE_LIST: {
    e->has_num_children = true;
    e->num_children = 1;
    e->converted_type = PQ_CT_LIST;
    e->logical.kind = PQ_LT_LIST;
    pq_schema_element *g = new_element(b, "list", PQ_REPEATED, -1);
    if (!g) return INLET_ENOMEM;
    g->has_num_children = true;
    g->num_children = 1;
    const inlet_field *c = &f->children[0];
    return emit(b, c, "element", c->nullable ? PQ_OPTIONAL : PQ_REQUIRED);
  }
  case INLET_TYPE_MAP: {
    e->has_num_children = true;
    e->num_children = 1;
    e->converted_type = PQ_CT_MAP;
    e->logical.kind = PQ_LT_MAP;
    pq_schema_element *g = new_element(b, "key_value", PQ_REPEATED, -1);
    if (!g) return INLET_ENOMEM;
    g->has_num_children = true;
    g->num_children = 2;
    const inlet_field *entries = &f->children[0];
    TRY(emit(b, &entries->children[0], "key", PQ_REQUIRED));
    const inlet_field *v = &entries->children[1];
    return emit(b, v, "value", v->nullable ? PQ_OPTIONAL : PQ_REQUIRED);
  }
  default: {
    const pq_schema_element *l = &b->leaf_elems[b->leaf++];
    e->has_type = l->has_type;
    e->type = l->type;
    e->has_type_length = l->has_type_length;
    e->type_length = l->type_length;
    e->converted_type = l->converted_type;
    e->has_scale = l->has_scale;
    e->scale = l->scale;
    e->has_precision = l->has_precision;
    e->precision = l->precision;
    e->logical = l->logical;
    return 0;
  }
  }
}

int pq_writer_schema(pq_file_metadata *meta, pq_schema_desc *out, const inlet_schema *schema,
                     inlet_error *err) {
  bool nested = false;
  for (int32_t i = 0; i < schema->n_fields; i++)
    nested = nested || is_nested(&schema->fields[i].type);
  if (!nested) return pq_schema_to_parquet(meta, out, schema, err);

  int32_t n_leaves = 0, n_elems = 1;
  for (int32_t i = 0; i < schema->n_fields; i++) {
    FAIL_IF(!schema->fields[i].name || !schema->fields[i].name[0], err, INLET_EINVAL,
            "field %d has an empty name", (int)i);
    TRY(measure(&schema->fields[i], 1, &n_leaves, &n_elems, err));
  }
  FAIL_IF(n_leaves > PQ_MAX_COLUMNS, err, INLET_EINVAL, "schema has %d leaf columns",
          (int)n_leaves);

  int rc = 0;
  const inlet_field **leaves = inlet_calloc((size_t)n_leaves, sizeof *leaves);
  int32_t *tops = inlet_calloc((size_t)n_leaves, sizeof *tops);
  inlet_schema flat;
  inlet_schema_init(&flat);
  pq_file_metadata tmp;
  pq_file_metadata_init(&tmp);
  pq_schema_desc tmp_desc;
  pq_schema_desc_init(&tmp_desc);
  FAIL_GOTO(!leaves || !tops, err, INLET_ENOMEM, "out of memory mapping the schema");
  int32_t n = 0;
  for (int32_t i = 0; i < schema->n_fields; i++)
    collect(&schema->fields[i], i, leaves, tops, &n);

  /* Leaf types through the flat mapping (one field per leaf). */
  for (int32_t k = 0; k < n_leaves; k++) {
    char name[32];
    snprintf(name, sizeof name, "c%d", (int)k);
    inlet_field f = *leaves[k];
    f.name = name;
    f.n_children = 0;
    f.children = NULL;
    TRY_GOTO(inlet_schema_add_field(&flat, &f, err));
  }
  TRY_GOTO(pq_schema_to_parquet(&tmp, &tmp_desc, &flat, err));

  schema_builder b = {meta, NULL, 0, tmp.schema + 1, 0, err};
  b.elems = pq_meta_alloc_array(meta, (size_t)n_elems, sizeof *b.elems, err);
  FAIL_GOTO(!b.elems, err, INLET_ENOMEM, "out of memory mapping the schema");
  pq_schema_element *root = &b.elems[b.n++];
  root->name = pq_meta_strdup(meta, "schema", err);
  FAIL_GOTO(!root->name, err, INLET_ENOMEM, "out of memory mapping the schema");
  root->has_num_children = true;
  root->num_children = schema->n_fields;
  root->converted_type = PQ_CT_NONE;
  for (int32_t i = 0; i < schema->n_fields; i++) {
    const inlet_field *f = &schema->fields[i];
    TRY_GOTO(emit(&b, f, f->name, f->nullable ? PQ_OPTIONAL : PQ_REQUIRED));
  }
  TRY_GOTO(pq_schema_build_tree(out, b.elems, b.n, NULL, err));
  FAIL_GOTO(out->n_columns != n_leaves, err, INLET_EINTERNAL, "schema mapping lost leaves");
  for (int32_t k = 0; k < n_leaves; k++) {
    pq_column_desc *c = &out->columns[k];
    c->type = leaves[k]->type;
    c->field = leaves[k];
    c->field_index = tops[k];
    c->conv = tmp_desc.columns[k].conv;
    c->scale_factor = tmp_desc.columns[k].scale_factor;
  }
  int32_t *orders = pq_meta_alloc_array(meta, (size_t)n_leaves, sizeof *orders, err);
  FAIL_GOTO(!orders, err, INLET_ENOMEM, "out of memory mapping the schema");
  for (int32_t k = 0; k < n_leaves; k++)
    orders[k] = PQ_ORDER_TYPE_DEFINED;
  meta->schema = b.elems;
  meta->n_schema = b.n;
  meta->column_orders = orders;
  meta->n_column_orders = n_leaves;
done:
  inlet_free((void *)leaves);
  inlet_free(tops);
  inlet_schema_reset(&flat);
  pq_schema_desc_reset(&tmp_desc);
  pq_file_metadata_reset(&tmp);
  if (rc < 0) pq_schema_desc_reset(out);
  return rc;
}

/* ---- shredding ------------------------------------------------------------ */

static bool find_leaf(const inlet_field *f, int32_t *left, pq_shredder *s, int depth) {
  if (depth > PQ_MAX_SCHEMA_DEPTH) return false;
  s->steps[depth].field = f;
  s->steps[depth].child = -1;
  switch (f->type.id) {
  case INLET_TYPE_STRUCT:
    for (int32_t i = 0; i < f->n_children; i++) {
      s->steps[depth].child = i;
      if (find_leaf(&f->children[i], left, s, depth + 1)) return true;
    }
    return false;
  case INLET_TYPE_LIST:
  case INLET_TYPE_MAP:
    s->steps[depth].child = 0;
    return find_leaf(&f->children[0], left, s, depth + 1);
  default:
    if (*left == 0) {
      s->n_steps = depth + 1;
      return true;
    }
    (*left)--;
    return false;
  }
}

int pq_shredder_init(pq_shredder *s, const inlet_schema *schema, int32_t leaf, int16_t max_def,
                     const char *name, inlet_error *err) {
  memset(s, 0, sizeof *s);
  inlet_buf_init(&s->data);
  s->max_def = max_def;
  s->name = name;
  int32_t left = leaf;
  for (int32_t i = 0; i < schema->n_fields; i++)
    if (find_leaf(&schema->fields[i], &left, s, 0)) return 0;
  return inlet_fail(err, INLET_EINVAL, "no leaf column %d in the schema", (int)leaf);
}

void pq_shredder_reset(pq_shredder *s) {
  if (!s) return;
  inlet_free(s->def);
  inlet_free(s->rep);
  inlet_free(s->offsets);
  inlet_buf_reset(&s->data);
  memset(s, 0, sizeof *s);
}

static int push_level(pq_shredder *s, int16_t def, int16_t rep, inlet_error *err) {
  if ((size_t)s->n_levels == s->levels_cap) {
    size_t cap = s->levels_cap ? s->levels_cap * 2 : 1024;
    int16_t *d = inlet_realloc(s->def, cap * sizeof *d);
    if (!d) return inlet_fail(err, INLET_ENOMEM, "out of memory shredding \"%s\"", s->name);
    s->def = d;
    int16_t *r = inlet_realloc(s->rep, cap * sizeof *r);
    if (!r) return inlet_fail(err, INLET_ENOMEM, "out of memory shredding \"%s\"", s->name);
    s->rep = r;
    s->levels_cap = cap;
  }
  s->def[s->n_levels] = def;
  s->rep[s->n_levels] = rep;
  s->n_levels++;
  return 0;
}

static int gather(pq_shredder *s, const inlet_field *f, const inlet_array *a, int64_t i,
                  inlet_error *err) {
  inlet_array *v = &s->values;
  bool var = f->type.id == INLET_TYPE_STRING || f->type.id == INLET_TYPE_BINARY;
  FAIL_IF(var ? !a->offsets : !a->values, err, INLET_EINVAL, "\"%s\": leaf array has no buffer",
          s->name);
  switch (f->type.id) {
  case INLET_TYPE_BOOL: {
    if ((v->length & 7) == 0) inlet_buf_push(&s->data, 0);
    if (inlet_buf_status(&s->data) < 0)
      return inlet_fail(err, INLET_ENOMEM, "out of memory shredding \"%s\"", s->name);
    inlet_bit_set(s->data.data, v->length, inlet_bit_get(a->values, i));
    break;
  }
  case INLET_TYPE_STRING:
  case INLET_TYPE_BINARY: {
    if ((size_t)v->length + 2 > s->offsets_cap) {
      size_t cap = s->offsets_cap ? s->offsets_cap * 2 : 1024;
      int32_t *o = inlet_realloc(s->offsets, cap * sizeof *o);
      if (!o) return inlet_fail(err, INLET_ENOMEM, "out of memory shredding \"%s\"", s->name);
      s->offsets = o;
      s->offsets_cap = cap;
    }
    int32_t b0 = a->offsets[i], b1 = a->offsets[i + 1];
    FAIL_IF(b0 < 0 || b1 < b0, err, INLET_EINVAL, "\"%s\": invalid string offsets", s->name);
    FAIL_IF((size_t)(b1 - b0) > (size_t)INT32_MAX - s->data.len, err, INLET_ELIMIT,
            "\"%s\": more than 2 GiB of strings in one write", s->name);
    FAIL_IF(b1 > b0 && !a->values, err, INLET_EINVAL, "\"%s\": strings without data", s->name);
    if (b1 > b0) inlet_buf_append(&s->data, a->values + b0, (size_t)(b1 - b0));
    if (inlet_buf_status(&s->data) < 0)
      return inlet_fail(err, INLET_ENOMEM, "out of memory shredding \"%s\"", s->name);
    s->offsets[0] = 0;
    s->offsets[v->length + 1] = (int32_t)s->data.len;
    break;
  }
  default: {
    int32_t w = inlet_type_value_width(&f->type);
    FAIL_IF(w <= 0, err, INLET_EINVAL, "\"%s\": type cannot be shredded", s->name);
    inlet_buf_append(&s->data, a->values + (size_t)i * (size_t)w, (size_t)w);
    if (inlet_buf_status(&s->data) < 0)
      return inlet_fail(err, INLET_ENOMEM, "out of memory shredding \"%s\"", s->name);
    break;
  }
  }
  v->length++;
  return 0;
}

/* Walks value @p i of @p a, the array of step @p k. */
static int walk(pq_shredder *s, int32_t k, const inlet_array *a, int64_t i, int16_t rep,
                int16_t def, int16_t depth, inlet_error *err) {
  const inlet_field *f = s->steps[k].field;
  const inlet_field *parent = k > 0 ? s->steps[k - 1].field : NULL;
  bool entries = parent && parent->type.id == INLET_TYPE_MAP;
  bool key =
      k > 1 && s->steps[k - 2].field->type.id == INLET_TYPE_MAP && s->steps[k - 1].child == 0;
  bool optional = f->nullable && !entries && !key;
  FAIL_IF(i >= a->length, err, INLET_EINVAL, "\"%s\": a child array is shorter than its parent",
          s->name);
  if (a->validity && !inlet_bit_get(a->validity, i) && !entries) {
    if (!optional)
      return inlet_fail(err, INLET_EINVAL, "\"%s\": null in a required field or map key", s->name);
    return push_level(s, def, rep, err);
  }
  if (optional) def++;
  switch (f->type.id) {
  case INLET_TYPE_STRUCT:
    FAIL_IF(a->n_children != f->n_children, err, INLET_EINVAL, "\"%s\": struct array shape",
            s->name);
    return walk(s, k + 1, &a->children[s->steps[k].child], i, rep, def, depth, err);
  case INLET_TYPE_LIST:
  case INLET_TYPE_MAP: {
    FAIL_IF(a->n_children != 1 || !a->offsets, err, INLET_EINVAL, "\"%s\": list array shape",
            s->name);
    int64_t b = a->offsets[i], e = a->offsets[i + 1];
    const inlet_array *c = &a->children[0];
    FAIL_IF(b < 0 || e < b || e > c->length, err, INLET_EINVAL, "\"%s\": list offsets out of range",
            s->name);
    if (b == e) return push_level(s, def, rep, err);
    for (int64_t j = b; j < e; j++)
      TRY(walk(s, k + 1, c, j, j == b ? rep : (int16_t)(depth + 1), (int16_t)(def + 1),
               (int16_t)(depth + 1), err));
    return 0;
  }
  default:
    FAIL_IF(def != s->max_def, err, INLET_EINTERNAL, "\"%s\": level mismatch (%d vs %d)", s->name,
            def, s->max_def);
    TRY(push_level(s, def, rep, err));
    return gather(s, f, a, i, err);
  }
}

int pq_shred(pq_shredder *s, const inlet_array *top, int64_t start, int64_t n, inlet_error *err) {
  s->n_levels = 0;
  inlet_buf_clear(&s->data);
  memset(&s->values, 0, sizeof s->values);
  for (int64_t r = start; r < start + n; r++)
    TRY(walk(s, 0, top, r, 0, 0, 0, err));
  s->values.values = s->data.data;
  s->values.offsets = s->offsets;
  const inlet_field *leaf = s->steps[s->n_steps - 1].field;
  if ((leaf->type.id == INLET_TYPE_STRING || leaf->type.id == INLET_TYPE_BINARY) &&
      s->values.length == 0) {
    /* Keep offsets[0] readable for an empty gather. */
    if (!s->offsets) {
      s->offsets = inlet_malloc(4 * sizeof *s->offsets);
      if (!s->offsets) return inlet_fail(err, INLET_ENOMEM, "out of memory shredding");
      s->offsets_cap = 4;
    }
    s->offsets[0] = 0;
    s->values.offsets = s->offsets;
  }
  return 0;
}
