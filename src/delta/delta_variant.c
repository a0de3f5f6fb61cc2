/*
 * Variant columns on the way into data files (delta.h delta_variant_*).
 *
 * Spec: PROTOCOL.md "Variant Data Type" (a variant column is stored in
 * Parquet as a struct of two binary fields, `value` and `metadata`; writers
 * must write the `variantType` feature and give variant columns no min/max
 * statistics), Parquet VariantEncoding.md "Variant in Parquet".
 *
 * inlet holds a variant in batches as the JSON text of its value (table
 * schema: STRING with INLET_EXT_VARIANT); in data files it is
 *   optional group v { required binary value; required binary metadata; }
 * with no logical type annotation: exactly what Spark 4 / Delta 3-4 write
 * (parquet-mr 1.14 has no VARIANT logical type, and readers that predate it
 * may refuse an unknown annotation; readers find variants through the
 * table schema, not the Parquet one). In inlet's schemas that shape is a
 * STRUCT marked INLET_EXT_VARIANT: its "physical" form. Maintenance
 * (compaction, copy-on-write delete) reads and writes that form, so the
 * bytes of every value are copied as they are, never re-encoded.
 */
#include <stdio.h>

#include "batch/batch.h"
#include "delta/delta.h"
#include "util/util.h"

static bool is_text_variant(const inlet_field *f) {
  return f->type.id == INLET_TYPE_STRING && f->type.ext == INLET_EXT_VARIANT;
}

bool delta_variant_in(const inlet_field *f) {
  if (is_text_variant(f)) return true;
  if (f->type.id != INLET_TYPE_STRUCT && f->type.id != INLET_TYPE_LIST &&
      f->type.id != INLET_TYPE_MAP)
    return false;
  for (int32_t i = 0; i < f->n_children; i++)
    if (delta_variant_in(&f->children[i])) return true;
  return false;
}

bool delta_variant_schema_has(const inlet_schema *s) {
  for (int32_t i = 0; i < s->n_fields; i++)
    if (delta_variant_in(&s->fields[i])) return true;
  return false;
}

static int physical_field(inlet_field *f, inlet_error *err) {
  if (!is_text_variant(f)) {
    for (int32_t i = 0; i < f->n_children; i++)
      TRY(physical_field(&f->children[i], err));
    return 0;
  }
  inlet_field *kids = inlet_calloc(2, sizeof *kids);
  if (!kids) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  static const char *const names[2] = {"value", "metadata"};
  for (int i = 0; i < 2; i++) {
    kids[i].name = inlet_strdup(names[i]);
    kids[i].type.id = INLET_TYPE_BINARY;
    kids[i].nullable = false;
    kids[i].field_id = -1;
    if (!kids[i].name) {
      inlet_free(kids[0].name);
      inlet_free(kids);
      return inlet_fail(err, INLET_ENOMEM, "out of memory");
    }
  }
  f->type.id = INLET_TYPE_STRUCT;
  f->type.ext = INLET_EXT_VARIANT;
  f->n_children = 2;
  f->children = kids;
  return 0;
}

int delta_variant_physical(inlet_schema *s, inlet_error *err) {
  for (int32_t i = 0; i < s->n_fields; i++)
    TRY(physical_field(&s->fields[i], err));
  return 0;
}

/* Column @p src (batch field @p lf) as field @p pf of the data file into
 * @p dst: variants encoded from their JSON text into new arrays; containers
 * holding variants copied shallowly with new children; the rest borrowed. */
static int encode_array(inlet_array *dst, const inlet_field *lf, const inlet_array *src,
                        const inlet_field *pf, inlet_buf *m, inlet_buf *v, inlet_error *err) {
  *dst = *src; /* shallow: what is not replaced below stays borrowed */
  if (!delta_variant_in(lf)) return 0;
  if (!is_text_variant(lf)) {
    dst->children = inlet_calloc((size_t)lf->n_children + 1, sizeof *dst->children);
    if (!dst->children) return inlet_fail(err, INLET_ENOMEM, "out of memory");
    for (int32_t i = 0; i < lf->n_children; i++)
      TRY(encode_array(&dst->children[i], &lf->children[i], &src->children[i], &pf->children[i], m,
                       v, err));
    return 0;
  }
  memset(dst, 0, sizeof *dst);
  TRY(inlet_array_init(dst, pf, err));
  TRY(inlet_array_reserve_rows(dst, pf, src->length, err));
  for (int64_t r = 0; r < src->length; r++) {
    if (!inlet_array_is_valid(src, r)) {
      TRY(inlet_array_append_null(dst, pf, err));
      continue;
    }
    inlet_buf_clear(m);
    inlet_buf_clear(v);
    int32_t a = src->offsets[r], b = src->offsets[r + 1];
    int rc = batch_variant_from_json(m, v, b > a ? (const char *)src->values + a : "",
                                     (size_t)(b - a), err);
    if (rc < 0) {
      inlet_error_prefix(err, "column \"%s\" row %lld", lf->name, (long long)r);
      return rc;
    }
    TRY(inlet_array_append_bytes(&dst->children[0], &pf->children[0], v->data, v->len, err));
    TRY(inlet_array_append_bytes(&dst->children[1], &pf->children[1], m->data, m->len, err));
    TRY(inlet_array_append_struct_entry(dst, err));
  }
  return 0;
}

static void release_array(inlet_array *a, const inlet_field *lf) {
  if (!delta_variant_in(lf)) return;
  if (is_text_variant(lf)) {
    inlet_array_reset(a);
    return;
  }
  if (!a->children) return;
  for (int32_t i = 0; i < lf->n_children; i++)
    release_array(&a->children[i], &lf->children[i]);
  inlet_free(a->children);
  a->children = NULL;
}

int delta_variant_encode_batch(inlet_batch *out, const inlet_batch *in, const inlet_schema *phys,
                               inlet_error *err) {
  memset(out, 0, sizeof *out);
  FAIL_IF(phys->n_fields != in->schema.n_fields, err, INLET_EINTERNAL,
          "variant encoding: %d columns for a file of %d", (int)in->schema.n_fields,
          (int)phys->n_fields);
  out->columns = inlet_calloc((size_t)in->schema.n_fields + 1, sizeof *out->columns);
  if (!out->columns) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  out->schema = *phys; /* borrowed */
  out->num_rows = in->num_rows;
  inlet_buf m = INLET_BUF_INIT, v = INLET_BUF_INIT;
  int rc = 0;
  int32_t i = 0;
  for (; i < in->schema.n_fields && rc == 0; i++)
    rc = encode_array(&out->columns[i], &in->schema.fields[i], &in->columns[i], &phys->fields[i],
                      &m, &v, err);
  inlet_buf_reset(&m);
  inlet_buf_reset(&v);
  if (rc < 0) {
    /* the column that failed is released too: its parts are owned or NULL */
    for (int32_t k = 0; k < i; k++)
      release_array(&out->columns[k], &in->schema.fields[k]);
    inlet_free(out->columns);
    memset(out, 0, sizeof *out);
  }
  return rc;
}

void delta_variant_release_batch(inlet_batch *out, const inlet_batch *in) {
  if (!out->columns) return;
  for (int32_t i = 0; i < in->schema.n_fields; i++)
    release_array(&out->columns[i], &in->schema.fields[i]);
  inlet_free(out->columns);
  memset(out, 0, sizeof *out);
}
