/*
 * Nested schema mapping and record assembly for the Parquet reader (see
 * nested.h). Specs: parquet-format LogicalTypes.md "Lists" and "Maps"
 * (including the backward-compatibility rules for 2-level lists, repeated
 * fields without annotation, MAP_KEY_VALUE), README "Nested Encoding"
 * (repetition and definition levels).
 */
#include "parquet/nested.h"

#include <stdio.h>

#include "batch/batch.h"
#include "parquet/column_reader.h"
#include "util/util.h"

#define MAX_STEPS (2 * PQ_MAX_SCHEMA_DEPTH + 4)

void pq_nested_init(pq_nested *n) {
  memset(n, 0, sizeof *n);
}

void pq_nested_reset(pq_nested *n) {
  if (!n) return;
  for (int32_t i = 0; i < n->n_plans; i++)
    inlet_free(n->plans[i].steps);
  inlet_free(n->plans);
  memset(n, 0, sizeof *n);
}

/* ---- schema mapping ---------------------------------------------------- */

typedef struct builder {
  pq_schema_desc *sd;
  const pq_schema_element *el;
  const char *file;
  inlet_error *err;
  pq_nested *out;
  int32_t field_index;
  pq_step stack[MAX_STEPS];
  bool claimed[MAX_STEPS];
  int sp;
} builder;

static bool is_group(const pq_schema_element *e) {
  return (e->has_num_children && e->num_children > 0) || !e->has_type;
}
static bool is_repeated(const pq_schema_element *e) {
  return e->has_repetition && e->repetition == PQ_REPEATED;
}
static bool is_optional(const pq_schema_element *e) {
  return e->has_repetition && e->repetition == PQ_OPTIONAL;
}
static bool is_list(const pq_schema_element *e) {
  return e->logical.kind == PQ_LT_LIST || e->converted_type == PQ_CT_LIST;
}
static bool is_map(const pq_schema_element *e) {
  return e->logical.kind == PQ_LT_MAP || e->converted_type == PQ_CT_MAP ||
         e->converted_type == PQ_CT_MAP_KEY_VALUE;
}

static int n_children(const builder *b, int32_t i) {
  int n = 0;
  for (int32_t c = b->sd->nodes[i].first_child; c >= 0; c = b->sd->nodes[c].next_sibling)
    n++;
  return n;
}

static int push(builder *b, pq_step_kind kind, int32_t child, int16_t depth, int16_t slot_def,
                int16_t nonnull_def) {
  if (b->sp >= MAX_STEPS)
    return inlet_fail(b->err, INLET_ECORRUPT, "%s: schema nested too deeply", b->file);
  b->stack[b->sp] = (pq_step){kind, child, depth, slot_def, nonnull_def, false};
  b->claimed[b->sp] = false;
  b->sp++;
  return 0;
}

/* The inlet type of a leaf, as the flat mapping would give it. */
static int map_leaf_type(builder *b, const pq_schema_element *e, pq_column_desc *c) {
  pq_schema_element el[2];
  memset(el, 0, sizeof el);
  el[0].name = (char *)"schema";
  el[0].has_num_children = true;
  el[0].num_children = 1;
  el[0].converted_type = PQ_CT_NONE;
  el[1] = *e;
  el[1].has_repetition = true;
  el[1].repetition = PQ_OPTIONAL;
  pq_schema_desc t;
  pq_schema_desc_init(&t);
  int rc = pq_schema_from_parquet(&t, el, 2, b->file, b->err);
  if (rc == 0) {
    c->type = t.columns[0].type;
    c->conv = t.columns[0].conv;
    c->scale_factor = t.columns[0].scale_factor;
  }
  pq_schema_desc_reset(&t);
  return rc;
}

static int alloc_children(builder *b, inlet_field *f, int32_t n) {
  f->children = inlet_calloc((size_t)n, sizeof *f->children);
  if (!f->children) return inlet_fail(b->err, INLET_ENOMEM, "out of memory mapping the schema");
  f->n_children = n;
  for (int32_t i = 0; i < n; i++)
    f->children[i].field_id = -1;
  return 0;
}

static int set_name(builder *b, inlet_field *f, const char *name) {
  f->name = inlet_strdup(name ? name : "");
  return f->name ? 0 : inlet_fail(b->err, INLET_ENOMEM, "out of memory mapping the schema");
}

static int map_node(builder *b, int32_t i, inlet_field *f, int32_t child, int16_t depth,
                    int16_t slot_def, bool as_element);

static int emit_plan(builder *b, int32_t column) {
  pq_leaf_plan *p = &b->out->plans[column];
  p->steps = inlet_calloc((size_t)b->sp, sizeof *p->steps);
  if (!p->steps) return inlet_fail(b->err, INLET_ENOMEM, "out of memory mapping the schema");
  p->column = column;
  p->field = b->field_index;
  p->n_steps = b->sp;
  for (int k = 0; k < b->sp; k++) {
    p->steps[k] = b->stack[k];
    p->steps[k].owned = !b->claimed[k];
    b->claimed[k] = true;
  }
  return 0;
}

/* A LIST-annotated group: finds the element per the compatibility rules. */
static int map_list(builder *b, int32_t i, inlet_field *f, int16_t depth) {
  const pq_schema_element *e = &b->el[i];
  const pq_schema_node *nodes = b->sd->nodes;
  int32_t r = nodes[i].first_child;
  if (n_children(b, i) != 1 || !is_repeated(&b->el[r]))
    return inlet_fail(b->err, INLET_EUNSUPPORTED,
                      "%s: LIST column \"%s\" without exactly one repeated child is not supported",
                      b->file, e->name);
  const pq_schema_element *re = &b->el[r];
  f->type.id = INLET_TYPE_LIST;
  TRY(alloc_children(b, f, 1));
  int16_t rd = nodes[r].def_level, rr = nodes[r].rep_level;
  char tuple[512];
  snprintf(tuple, sizeof tuple, "%s_tuple", e->name ? e->name : "");
  if (!is_group(re) || n_children(b, r) != 1 || strcmp(re->name, "array") == 0 ||
      strcmp(re->name, tuple) == 0) {
    /* 2-level list: the repeated field itself is the (required) element. */
    TRY(map_node(b, r, &f->children[0], 0, rr, rd, true));
  } else {
    TRY(map_node(b, nodes[r].first_child, &f->children[0], 0, rr, rd, false));
  }
  (void)depth;
  return 0;
}

static int map_map(builder *b, int32_t i, inlet_field *f) {
  const pq_schema_element *e = &b->el[i];
  const pq_schema_node *nodes = b->sd->nodes;
  int32_t r = nodes[i].first_child;
  if (n_children(b, i) != 1 || !is_repeated(&b->el[r]) || !is_group(&b->el[r]))
    return inlet_fail(b->err, INLET_EUNSUPPORTED,
                      "%s: MAP column \"%s\" without one repeated key_value group is not supported",
                      b->file, e->name);
  int16_t rd = nodes[r].def_level, rr = nodes[r].rep_level;
  if (n_children(b, r) == 1) {
    /* A map without values is a list of its keys (parquet-testing
     * map_no_value.md; parquet-rs and Arrow read it so). */
    f->type.id = INLET_TYPE_LIST;
    TRY(alloc_children(b, f, 1));
    return map_node(b, nodes[r].first_child, &f->children[0], 0, rr, rd, false);
  }
  if (n_children(b, r) != 2)
    return inlet_fail(b->err, INLET_EUNSUPPORTED,
                      "%s: MAP column \"%s\" with %d fields per entry is not supported", b->file,
                      e->name, n_children(b, r));
  f->type.id = INLET_TYPE_MAP;
  TRY(alloc_children(b, f, 1));
  inlet_field *entries = &f->children[0];
  TRY(set_name(b, entries, "entries"));
  entries->type.id = INLET_TYPE_STRUCT;
  entries->nullable = false;
  TRY(alloc_children(b, entries, 2));
  TRY(push(b, PQ_STEP_STRUCT, 0, rr, rd, rd));
  int32_t k = nodes[r].first_child, v = nodes[k].next_sibling;
  TRY(map_node(b, k, &entries->children[0], 0, rr, rd, false));
  TRY(map_node(b, v, &entries->children[1], 1, rr, rd, false));
  b->sp--;
  return 0;
}

/*
 * Maps schema node @p i into @p f, whose slots live at repetition depth
 * @p depth and exist from definition level @p slot_def. @p as_element: the
 * node is a repeated field standing for a list element (so not itself a
 * list, and never null).
 */
static int map_node(builder *b, int32_t i, inlet_field *f, int32_t child, int16_t depth,
                    int16_t slot_def, bool as_element) {
  const pq_schema_element *e = &b->el[i];
  const pq_schema_node *nd = &b->sd->nodes[i];
  f->field_id = e->has_field_id ? e->field_id : -1;
  TRY(set_name(b, f, e->name));
  int16_t def = nd->def_level;
  if (is_repeated(e) && !as_element) {
    /* A repeated field without a LIST parent: a required list of it. */
    f->type.id = INLET_TYPE_LIST;
    f->nullable = false;
    TRY(alloc_children(b, f, 1));
    TRY(push(b, PQ_STEP_LIST, child, depth, slot_def, slot_def));
    TRY(map_node(b, i, &f->children[0], 0, nd->rep_level, def, true));
    inlet_free(f->children[0].name);
    f->children[0].name = NULL;
    TRY(set_name(b, &f->children[0], "element"));
    b->sp--;
    return 0;
  }
  f->nullable = is_optional(e) && !as_element;
  if (is_group(e) && is_list(e)) {
    TRY(push(b, PQ_STEP_LIST, child, depth, slot_def, def));
    TRY(map_list(b, i, f, depth));
    b->sp--;
    return 0;
  }
  if (is_group(e) && is_map(e)) {
    TRY(push(b, PQ_STEP_LIST, child, depth, slot_def, def));
    TRY(map_map(b, i, f));
    b->sp--;
    return 0;
  }
  if (is_group(e)) {
    int32_t n = n_children(b, i);
    if (n == 0)
      return inlet_fail(b->err, INLET_EUNSUPPORTED, "%s: empty group \"%s\" is not supported",
                        b->file, e->name);
    f->type.id = INLET_TYPE_STRUCT;
    TRY(alloc_children(b, f, n));
    TRY(push(b, PQ_STEP_STRUCT, child, depth, slot_def, def));
    int32_t k = 0;
    for (int32_t c = nd->first_child; c >= 0; c = b->sd->nodes[c].next_sibling, k++)
      TRY(map_node(b, c, &f->children[k], k, depth, def, false));
    b->sp--;
    return 0;
  }
  int32_t col = nd->column;
  if (col < 0 || col >= b->sd->n_columns)
    return inlet_fail(b->err, INLET_ECORRUPT, "%s: leaf \"%s\" has no column", b->file, e->name);
  pq_column_desc *c = &b->sd->columns[col];
  TRY(map_leaf_type(b, e, c));
  f->type = c->type;
  c->field = f;
  c->field_index = b->field_index;
  TRY(push(b, PQ_STEP_LEAF, child, depth, slot_def, def));
  TRY(emit_plan(b, col));
  b->sp--;
  return 0;
}

int pq_nested_build(pq_nested *out, pq_schema_desc *sd, const pq_schema_element *elems, int32_t n,
                    const char *file, inlet_error *err) {
  pq_nested_reset(out);
  builder b;
  memset(&b, 0, sizeof b);
  b.sd = sd;
  b.el = elems;
  b.file = file;
  b.err = err;
  b.out = out;
  (void)n;
  out->plans = inlet_calloc((size_t)(sd->n_columns > 0 ? sd->n_columns : 1), sizeof *out->plans);
  if (!out->plans) return inlet_fail(err, INLET_ENOMEM, "out of memory mapping the schema");
  out->n_plans = sd->n_columns;
  int32_t nf = n_children(&b, 0);
  inlet_schema_reset(&sd->schema);
  if (nf > 0) {
    sd->schema.fields = inlet_calloc((size_t)nf, sizeof *sd->schema.fields);
    if (!sd->schema.fields)
      return inlet_fail(err, INLET_ENOMEM, "out of memory mapping the schema");
    sd->schema.n_fields = nf;
    for (int32_t k = 0; k < nf; k++)
      sd->schema.fields[k].field_id = -1;
  }
  int32_t k = 0;
  for (int32_t c = sd->nodes[0].first_child; c >= 0; c = sd->nodes[c].next_sibling, k++) {
    b.field_index = k;
    b.sp = 0;
    TRY(map_node(&b, c, &sd->schema.fields[k], -1, 0, 0, false));
  }
  for (int32_t c = 0; c < sd->n_columns; c++)
    if (!out->plans[c].steps)
      return inlet_fail(err, INLET_ECORRUPT, "%s: leaf column %d is outside the schema tree", file,
                        c);
  return 0;
}

/* ---- assembly ----------------------------------------------------------- */

/* Validity bitmap with room for @p bits bits (new bytes zeroed). */
static int ensure_bits(inlet_array *a, int64_t bits, inlet_error *err) {
  int64_t need = (bits + 7) / 8 + 1;
  if (a->validity && need <= batch_validity_cap(a)) return 0;
  batch_builder *b = batch_array_builder(a, err);
  if (!b) return INLET_ENOMEM;
  int64_t old = a->validity ? b->validity_cap : 0;
  int64_t cap = old * 2 > need ? old * 2 : need;
  uint8_t *p = inlet_realloc(a->validity, (size_t)cap);
  if (!p) return inlet_fail(err, INLET_ENOMEM, "out of memory assembling nested values");
  memset(p + old, 0, (size_t)(cap - old));
  a->validity = p;
  b->validity_cap = cap;
  return 0;
}

static inline void add_slot(const pq_step *st, inlet_array *a, bool valid) {
  int64_t idx = a->length++;
  inlet_bit_set(a->validity, idx, valid);
  if (!valid) a->null_count++;
  if (st->kind == PQ_STEP_LIST) a->offsets[idx + 1] = a->offsets[idx];
}

int pq_nested_assemble(const pq_leaf_plan *plan, const pq_column_desc *desc, const int16_t *rep,
                       const int16_t *def, size_t n, int64_t n_dense, inlet_array *top,
                       const inlet_field *top_field, inlet_error *err) {
  int32_t ns = plan->n_steps;
  inlet_array *A[MAX_STEPS];
  const inlet_field *F[MAX_STEPS];
  A[0] = top;
  F[0] = top_field;
  for (int32_t k = 1; k < ns; k++) {
    A[k] = &A[k - 1]->children[plan->steps[k].child];
    F[k] = &F[k - 1]->children[plan->steps[k].child];
  }
  for (int32_t k = 0; k < ns; k++) {
    if (!plan->steps[k].owned) continue;
    /* Slots per leaf level: at most one per node per level. */
    TRY(inlet_array_reserve_rows(A[k], F[k], (int64_t)n, err));
    TRY(ensure_bits(A[k], A[k]->length + (int64_t)n, err));
  }
  const pq_step *steps = plan->steps;
  /* Deepest step the previous level gave a slot (-1: none yet). A level
   * with repetition level r > 0 adds an element to the list entry the
   * previous level opened, so that level must have reached the element's
   * step: otherwise the entry is null, empty or missing and the levels are
   * corrupt (they would otherwise grow an offset nobody owns). */
  int32_t prev_reach = -1;
  for (size_t i = 0; i < n; i++) {
    int16_t r = rep[i], d = def[i];
    if (r > 0) {
      int32_t k0 = 0;
      while (k0 < ns && r > steps[k0].depth)
        k0++;
      if (k0 >= ns || d < steps[k0].slot_def || prev_reach < k0)
        return inlet_fail(err, INLET_ECORRUPT,
                          "level %zu: repetition level %d continues a list that the previous "
                          "value did not open",
                          i, r);
    }
    int32_t reach = -1;
    for (int32_t k = 0; k < ns; k++) {
      const pq_step *st = &steps[k];
      if (r > st->depth) continue;
      if (d < st->slot_def) break;
      reach = k;
      bool valid = d >= st->nonnull_def;
      if (st->owned) {
        add_slot(st, A[k], valid);
        if (k > 0 && steps[k - 1].kind == PQ_STEP_LIST) A[k - 1]->offsets[A[k - 1]->length]++;
      }
      if (!valid) {
        /* A null struct still has a (null) slot in each child on this
         * path, down to the first list or the leaf. */
        for (int32_t j = k + 1; j < ns && steps[j - 1].kind == PQ_STEP_STRUCT; j++)
          if (steps[j].owned) add_slot(&steps[j], A[j], false);
        break;
      }
    }
    prev_reach = reach;
  }
  inlet_array *leaf = A[ns - 1];
  int64_t leaf_valid = leaf->length - leaf->null_count;
  if (leaf_valid != n_dense)
    return inlet_fail(err, INLET_ECORRUPT, "%lld values for %lld non-null slots",
                      (long long)n_dense, (long long)leaf_valid);
  pq_column_spread(desc, leaf, (size_t)leaf->length, (size_t)n_dense);
  return 0;
}

static int finish(inlet_array *a, const inlet_field *f, int64_t length, int depth,
                  inlet_error *err) {
  if (a->length != length)
    return inlet_fail(err, INLET_ECORRUPT, "nested field \"%s\" has %lld values, expected %lld",
                      f->name, (long long)a->length, (long long)length);
  if (a->null_count == 0 && a->validity) batch_array_drop_validity(a);
  if (depth > MAX_STEPS) return inlet_fail(err, INLET_ECORRUPT, "nesting too deep");
  if (f->type.id == INLET_TYPE_STRUCT) {
    for (int32_t c = 0; c < f->n_children; c++)
      TRY(finish(&a->children[c], &f->children[c], length, depth + 1, err));
  } else if (f->type.id == INLET_TYPE_LIST || f->type.id == INLET_TYPE_MAP) {
    TRY(finish(&a->children[0], &f->children[0], length ? a->offsets[length] : 0, depth + 1, err));
  }
  return 0;
}

int pq_nested_finish(inlet_array *top, const inlet_field *top_field, int64_t rows,
                     inlet_error *err) {
  return finish(top, top_field, rows, 0, err);
}
