/*
 * Parquet schema <-> inlet_schema mapping and per-leaf column descriptors
 * (see pq_schema.h). Type rules follow parquet-format LogicalTypes.md,
 * including its backward-compatibility section for legacy ConvertedType
 * annotations, and parquet.thrift ColumnOrder for statistics sort orders.
 * Levels follow the Dremel encoding: a node's max definition level counts
 * the non-REQUIRED nodes on its path, its max repetition level the REPEATED
 * ones.
 */
#include <stdio.h>

#include "parquet/pq_schema.h"

void pq_schema_desc_init(pq_schema_desc *d) {
  memset(d, 0, sizeof *d);
  inlet_schema_init(&d->schema);
}

void pq_schema_desc_reset(pq_schema_desc *d) {
  if (!d) return;
  for (int32_t i = 0; i < d->n_columns; i++) {
    pq_column_desc *c = &d->columns[i];
    if (c->path_parts)
      for (int32_t k = 0; k < c->n_path; k++)
        inlet_free(c->path_parts[k]);
    inlet_free(c->path_parts);
    inlet_free(c->path);
  }
  inlet_free(d->columns);
  inlet_free(d->nodes);
  inlet_schema_reset(&d->schema);
  pq_schema_desc_init(d);
}

int32_t pq_decimal_byte_width(int32_t precision) {
  /* Smallest n with 10^precision - 1 <= 2^(8n-1) - 1. */
  static const int8_t width[39] = {0,  1,  1,  2,  2,  3,  3,  4,  4,  4,  5,  5,  6,
                                   6,  6,  7,  7,  8,  8,  9,  9,  9,  10, 10, 11, 11,
                                   11, 12, 12, 13, 13, 13, 14, 14, 15, 15, 16, 16, 16};
  if (precision < 1) return 1;
  if (precision > 38) return 16;
  return width[precision];
}

int32_t pq_plain_value_width(const pq_column_desc *d) {
  switch (d->physical_type) {
  case PQ_INT32:
  case PQ_FLOAT: return 4;
  case PQ_INT64:
  case PQ_DOUBLE: return 8;
  case PQ_INT96: return 12;
  case PQ_FIXED_LEN_BYTE_ARRAY: return d->type_length;
  default: return 0;
  }
}

pq_sort_order pq_element_sort_order(const pq_schema_element *e) {
  switch (e->logical.kind) {
  case PQ_LT_STRING:
  case PQ_LT_ENUM:
  case PQ_LT_JSON:
  case PQ_LT_BSON:
  case PQ_LT_UUID: return PQ_SORT_UNSIGNED;
  case PQ_LT_INTEGER: return e->logical.is_signed ? PQ_SORT_SIGNED : PQ_SORT_UNSIGNED;
  case PQ_LT_DECIMAL:
  case PQ_LT_DATE:
  case PQ_LT_TIME:
  case PQ_LT_TIMESTAMP:
  case PQ_LT_FLOAT16: return PQ_SORT_SIGNED;
  case PQ_LT_NONE:
  case PQ_LT_NULL: break; /* fall through to converted / physical */
  default: return PQ_SORT_UNKNOWN;
  }
  switch (e->converted_type) {
  case PQ_CT_UTF8:
  case PQ_CT_ENUM:
  case PQ_CT_JSON:
  case PQ_CT_BSON:
  case PQ_CT_UINT_8:
  case PQ_CT_UINT_16:
  case PQ_CT_UINT_32:
  case PQ_CT_UINT_64: return PQ_SORT_UNSIGNED;
  case PQ_CT_INT_8:
  case PQ_CT_INT_16:
  case PQ_CT_INT_32:
  case PQ_CT_INT_64:
  case PQ_CT_DECIMAL:
  case PQ_CT_DATE:
  case PQ_CT_TIME_MILLIS:
  case PQ_CT_TIME_MICROS:
  case PQ_CT_TIMESTAMP_MILLIS:
  case PQ_CT_TIMESTAMP_MICROS: return PQ_SORT_SIGNED;
  case PQ_CT_NONE: break;
  default: return PQ_SORT_UNKNOWN; /* INTERVAL, MAP, LIST, unknown */
  }
  if (!e->has_type) return PQ_SORT_UNKNOWN;
  switch (e->type) {
  case PQ_BOOLEAN:
  case PQ_INT32:
  case PQ_INT64:
  case PQ_FLOAT:
  case PQ_DOUBLE: return PQ_SORT_SIGNED;
  case PQ_BYTE_ARRAY:
  case PQ_FIXED_LEN_BYTE_ARRAY: return PQ_SORT_UNSIGNED;
  default: return PQ_SORT_UNKNOWN; /* INT96 */
  }
}

static bool is_group(const pq_schema_element *e) {
  return (e->has_num_children && e->num_children > 0) || !e->has_type;
}

static const char *fname(const char *file_name) {
  return file_name ? file_name : "Parquet file";
}

/* ---- tree and descriptors ------------------------------------------------ */

static int add_column(pq_schema_desc *d, const pq_schema_element *elems, int32_t leaf,
                      inlet_error *err) {
  /* Counted before allocating, so a reset after ENOMEM frees the parts. */
  int32_t index = d->n_columns++;
  pq_column_desc *c = &d->columns[index];
  const pq_schema_node *nodes = d->nodes;
  int32_t depth = nodes[leaf].depth;
  c->path_parts = inlet_calloc((size_t)depth, sizeof *c->path_parts);
  if (!c->path_parts) goto oom;
  c->n_path = depth;
  size_t total = 0;
  int32_t k = depth - 1;
  for (int32_t e = leaf; e > 0; e = nodes[e].parent, k--) {
    c->path_parts[k] = inlet_strdup(elems[e].name ? elems[e].name : "");
    if (!c->path_parts[k]) goto oom;
    total += strlen(c->path_parts[k]) + 1;
  }
  c->path = inlet_malloc(total ? total : 1);
  if (!c->path) goto oom;
  size_t pos = 0;
  for (int32_t i = 0; i < depth; i++) {
    size_t l = strlen(c->path_parts[i]);
    memcpy(c->path + pos, c->path_parts[i], l);
    pos += l;
    c->path[pos++] = i + 1 < depth ? '.' : '\0';
  }
  if (depth == 0) c->path[0] = '\0';
  const pq_schema_element *e = &elems[leaf];
  c->element = leaf;
  c->physical_type = e->type;
  c->type_length = e->type == PQ_FIXED_LEN_BYTE_ARRAY ? e->type_length : 0;
  c->repetition = e->has_repetition ? e->repetition : PQ_REQUIRED;
  c->max_def_level = nodes[leaf].def_level;
  c->max_rep_level = nodes[leaf].rep_level;
  c->field_index = -1; /* set by the caller, which knows the field order */
  c->logical = e->logical;
  c->converted_type = e->converted_type;
  c->sort_order = pq_element_sort_order(e);
  c->conv = PQ_CONV_NONE;
  c->scale_factor = 1;
  d->nodes[leaf].column = index;
  return 0;
oom:
  return inlet_fail(err, INLET_ENOMEM, "out of memory building column descriptors");
}

/* Builds nodes and column descriptors for any (nested) schema. */
static int build_tree(pq_schema_desc *d, const pq_schema_element *elems, int32_t n,
                      const char *file_name, inlet_error *err) {
  FAIL_IF(n < 1 || !elems, err, INLET_ECORRUPT, "%s: corrupt footer: schema is empty",
          fname(file_name));
  FAIL_IF(n > PQ_MAX_COLUMNS * 2, err, INLET_ECORRUPT,
          "%s: corrupt footer: schema has %d elements, more than the limit", fname(file_name), n);
  d->nodes = inlet_calloc((size_t)n, sizeof *d->nodes);
  FAIL_IF(!d->nodes, err, INLET_ENOMEM, "out of memory building the schema tree");
  d->n_nodes = n;
  int32_t leaves = 0;
  for (int32_t i = 1; i < n; i++)
    if (!is_group(&elems[i])) leaves++;
  d->columns = inlet_calloc((size_t)(leaves ? leaves : 1), sizeof *d->columns);
  FAIL_IF(!d->columns, err, INLET_ENOMEM, "out of memory building column descriptors");

  int32_t stack[PQ_MAX_SCHEMA_DEPTH + 1], left[PQ_MAX_SCHEMA_DEPTH + 1],
      last_child[PQ_MAX_SCHEMA_DEPTH + 1];
  int sp = 0;
  const pq_schema_element *root = &elems[0];
  FAIL_IF(n > 1 && !is_group(root), err, INLET_ECORRUPT,
          "%s: corrupt footer: schema root \"%s\" is not a group", fname(file_name),
          root->name ? root->name : "");
  stack[0] = 0;
  left[0] = root->has_num_children ? root->num_children : 0;
  last_child[0] = -1;
  FAIL_IF(left[0] < 0, err, INLET_ECORRUPT, "%s: corrupt footer: negative num_children",
          fname(file_name));
  d->nodes[0] = (pq_schema_node){-1, -1, -1, 0, 0, 0, -1};
  for (int32_t i = 1; i < n; i++) {
    const pq_schema_element *e = &elems[i];
    const char *name = e->name ? e->name : "";
    while (sp > 0 && left[sp] == 0)
      sp--;
    FAIL_IF(left[sp] == 0, err, INLET_ECORRUPT,
            "%s: corrupt footer: schema element %d (\"%s\") is outside the root's tree",
            fname(file_name), i, name);
    left[sp]--;
    int32_t parent = stack[sp];
    pq_schema_node *nd = &d->nodes[i];
    nd->parent = parent;
    nd->first_child = -1;
    nd->next_sibling = -1;
    nd->column = -1;
    nd->depth = d->nodes[parent].depth + 1;
    if (last_child[sp] < 0)
      d->nodes[parent].first_child = i;
    else
      d->nodes[last_child[sp]].next_sibling = i;
    last_child[sp] = i;
    pq_repetition rep = e->has_repetition ? e->repetition : PQ_REQUIRED;
    FAIL_IF((int)rep > PQ_REPEATED, err, INLET_EUNSUPPORTED,
            "%s: column \"%s\": repetition %s is not supported", fname(file_name), name,
            pq_repetition_name((int32_t)rep));
    nd->def_level = (int16_t)(d->nodes[parent].def_level + (rep != PQ_REQUIRED));
    nd->rep_level = (int16_t)(d->nodes[parent].rep_level + (rep == PQ_REPEATED));
    if (is_group(e)) {
      FAIL_IF(!e->has_num_children || e->num_children <= 0, err, INLET_ECORRUPT,
              "%s: corrupt footer: schema element \"%s\" has neither a type nor children",
              fname(file_name), name);
      FAIL_IF(sp + 1 > PQ_MAX_SCHEMA_DEPTH, err, INLET_ECORRUPT,
              "%s: corrupt footer: schema nesting deeper than %d at \"%s\"", fname(file_name),
              PQ_MAX_SCHEMA_DEPTH, name);
      sp++;
      stack[sp] = i;
      left[sp] = e->num_children;
      last_child[sp] = -1;
    } else {
      FAIL_IF(e->type == PQ_FIXED_LEN_BYTE_ARRAY && (!e->has_type_length || e->type_length <= 0),
              err, INLET_ECORRUPT,
              "%s: corrupt footer: FIXED_LEN_BYTE_ARRAY column \"%s\" has no positive type_length",
              fname(file_name), name);
      TRY(add_column(d, elems, i, err));
    }
  }
  while (sp > 0 && left[sp] == 0)
    sp--;
  FAIL_IF(left[sp] != 0, err, INLET_ECORRUPT,
          "%s: corrupt footer: schema ends while a group expects %d more children",
          fname(file_name), left[sp]);
  return 0;
}

/* ---- reader direction ---------------------------------------------------- */

static inlet_time_unit unit_of(pq_time_unit u) {
  switch (u) {
  case PQ_UNIT_MILLIS: return INLET_UNIT_MILLI;
  case PQ_UNIT_NANOS: return INLET_UNIT_NANO;
  default: return INLET_UNIT_MICRO;
  }
}

typedef struct map_ctx {
  const char *file;
  const char *col;
  inlet_error *err;
} map_ctx;

static int wrong_physical(const map_ctx *m, const char *annotation, pq_type t) {
  return inlet_fail(m->err, INLET_ECORRUPT,
                    "%s: corrupt footer: column \"%s\": %s annotation on physical type %s", m->file,
                    m->col, annotation, pq_type_name(t));
}

static int set_decimal(const map_ctx *m, pq_column_desc *c, int32_t precision, int32_t scale) {
  pq_type t = c->physical_type;
  if (t != PQ_INT32 && t != PQ_INT64 && t != PQ_FIXED_LEN_BYTE_ARRAY && t != PQ_BYTE_ARRAY)
    return wrong_physical(m, "DECIMAL", t);
  FAIL_IF(precision > 38, m->err, INLET_EUNSUPPORTED,
          "%s: column \"%s\": DECIMAL precision %d exceeds 38 is not supported", m->file, m->col,
          precision);
  FAIL_IF(precision < 1 || scale < 0 || scale > precision, m->err, INLET_ECORRUPT,
          "%s: corrupt footer: column \"%s\": invalid DECIMAL precision %d scale %d", m->file,
          m->col, precision, scale);
  c->type.id = INLET_TYPE_DECIMAL;
  c->type.precision = precision;
  c->type.scale = scale;
  c->conv = PQ_CONV_DECIMAL;
  return 0;
}

static int set_int(const map_ctx *m, pq_column_desc *c, int bits, bool is_signed) {
  pq_type t = c->physical_type;
  if ((bits <= 32 && t != PQ_INT32) || (bits == 64 && t != PQ_INT64))
    return wrong_physical(m, "INTEGER", t);
  switch (bits) {
  case 8: c->type.id = is_signed ? INLET_TYPE_INT8 : INLET_TYPE_UINT8; break;
  case 16: c->type.id = is_signed ? INLET_TYPE_INT16 : INLET_TYPE_UINT16; break;
  case 32: c->type.id = is_signed ? INLET_TYPE_INT32 : INLET_TYPE_UINT32; break;
  case 64: c->type.id = is_signed ? INLET_TYPE_INT64 : INLET_TYPE_UINT64; break;
  default:
    return inlet_fail(m->err, INLET_ECORRUPT,
                      "%s: corrupt footer: column \"%s\": INTEGER bit width %d", m->file, m->col,
                      bits);
  }
  c->conv = bits < 32 ? PQ_CONV_INT_NARROW : PQ_CONV_NONE;
  return 0;
}

static int set_string(const map_ctx *m, pq_column_desc *c, const char *ann, inlet_type_id id,
                      inlet_type_ext ext) {
  if (c->physical_type != PQ_BYTE_ARRAY) return wrong_physical(m, ann, c->physical_type);
  c->type.id = id;
  c->type.ext = ext;
  return 0;
}

static int set_time(const map_ctx *m, pq_column_desc *c, bool timestamp, pq_time_unit u, bool utc) {
  pq_type want = (!timestamp && u == PQ_UNIT_MILLIS) ? PQ_INT32 : PQ_INT64;
  if (c->physical_type != want)
    return wrong_physical(m, timestamp ? "TIMESTAMP" : "TIME", c->physical_type);
  c->type.id = timestamp ? INLET_TYPE_TIMESTAMP : INLET_TYPE_TIME;
  c->type.unit = unit_of(u);
  c->type.utc = utc;
  return 0;
}

static void set_physical(pq_column_desc *c) {
  switch (c->physical_type) {
  case PQ_BOOLEAN: c->type.id = INLET_TYPE_BOOL; break;
  case PQ_INT32: c->type.id = INLET_TYPE_INT32; break;
  case PQ_INT64: c->type.id = INLET_TYPE_INT64; break;
  case PQ_INT96:
    /* DuckDB (our reference) reads INT96 as a zone-less microsecond
     * TIMESTAMP; matching it keeps CLI output comparable. */
    c->type.id = INLET_TYPE_TIMESTAMP;
    c->type.unit = INLET_UNIT_MICRO;
    c->type.utc = false;
    c->conv = PQ_CONV_INT96;
    break;
  case PQ_FLOAT: c->type.id = INLET_TYPE_FLOAT; break;
  case PQ_DOUBLE: c->type.id = INLET_TYPE_DOUBLE; break;
  case PQ_BYTE_ARRAY: c->type.id = INLET_TYPE_BINARY; break;
  case PQ_FIXED_LEN_BYTE_ARRAY:
    c->type.id = INLET_TYPE_FIXED_BINARY;
    c->type.byte_width = c->type_length;
    break;
  }
}

/* Maps the annotations of leaf @p e onto c->type / c->conv. */
static int map_leaf(const map_ctx *m, const pq_schema_element *e, pq_column_desc *c) {
  memset(&c->type, 0, sizeof c->type);
  c->conv = PQ_CONV_NONE;
  c->scale_factor = 1;
  const pq_logical_type *lt = &e->logical;
  pq_type t = c->physical_type;
  switch (lt->kind) {
  case PQ_LT_STRING: return set_string(m, c, "STRING", INLET_TYPE_STRING, INLET_EXT_NONE);
  case PQ_LT_ENUM: return set_string(m, c, "ENUM", INLET_TYPE_STRING, INLET_EXT_ENUM);
  case PQ_LT_JSON: return set_string(m, c, "JSON", INLET_TYPE_STRING, INLET_EXT_JSON);
  case PQ_LT_BSON: return set_string(m, c, "BSON", INLET_TYPE_BINARY, INLET_EXT_BSON);
  case PQ_LT_UUID:
    if (t != PQ_FIXED_LEN_BYTE_ARRAY || c->type_length != 16) return wrong_physical(m, "UUID", t);
    c->type.id = INLET_TYPE_FIXED_BINARY;
    c->type.byte_width = 16;
    c->type.ext = INLET_EXT_UUID;
    return 0;
  case PQ_LT_FLOAT16:
    if (t != PQ_FIXED_LEN_BYTE_ARRAY || c->type_length != 2) return wrong_physical(m, "FLOAT16", t);
    c->type.id = INLET_TYPE_FLOAT;
    c->conv = PQ_CONV_FLOAT16;
    return 0;
  case PQ_LT_DECIMAL: return set_decimal(m, c, lt->precision, lt->scale);
  case PQ_LT_DATE:
    if (t != PQ_INT32) return wrong_physical(m, "DATE", t);
    c->type.id = INLET_TYPE_DATE;
    return 0;
  case PQ_LT_TIME: return set_time(m, c, false, lt->unit, lt->utc);
  case PQ_LT_TIMESTAMP: return set_time(m, c, true, lt->unit, lt->utc);
  case PQ_LT_INTEGER: return set_int(m, c, lt->bit_width, lt->is_signed);
  case PQ_LT_GEOMETRY:
  case PQ_LT_GEOGRAPHY:
    /* Well-known binary; exposed as plain bytes. */
    if (t != PQ_BYTE_ARRAY) return wrong_physical(m, "GEOMETRY", t);
    c->type.id = INLET_TYPE_BINARY;
    return 0;
  default:
    /* NONE, NULL (always-null: the physical type decides), group-only
     * annotations on a leaf and annotations newer than this code all fall
     * back to the legacy annotation, then to the physical type, as
     * LogicalTypes.md asks readers to. */
    break;
  }
  switch (e->converted_type) {
  case PQ_CT_UTF8: return set_string(m, c, "UTF8", INLET_TYPE_STRING, INLET_EXT_NONE);
  case PQ_CT_ENUM: return set_string(m, c, "ENUM", INLET_TYPE_STRING, INLET_EXT_ENUM);
  case PQ_CT_JSON: return set_string(m, c, "JSON", INLET_TYPE_STRING, INLET_EXT_JSON);
  case PQ_CT_BSON: return set_string(m, c, "BSON", INLET_TYPE_BINARY, INLET_EXT_BSON);
  case PQ_CT_DECIMAL:
    FAIL_IF(!e->has_precision, m->err, INLET_ECORRUPT,
            "%s: corrupt footer: column \"%s\": DECIMAL without precision", m->file, m->col);
    return set_decimal(m, c, e->precision, e->has_scale ? e->scale : 0);
  case PQ_CT_DATE:
    if (t != PQ_INT32) return wrong_physical(m, "DATE", t);
    c->type.id = INLET_TYPE_DATE;
    return 0;
  /* LogicalTypes.md: legacy TIME_* and TIMESTAMP_* are UTC-adjusted. */
  case PQ_CT_TIME_MILLIS: return set_time(m, c, false, PQ_UNIT_MILLIS, true);
  case PQ_CT_TIME_MICROS: return set_time(m, c, false, PQ_UNIT_MICROS, true);
  case PQ_CT_TIMESTAMP_MILLIS: return set_time(m, c, true, PQ_UNIT_MILLIS, true);
  case PQ_CT_TIMESTAMP_MICROS: return set_time(m, c, true, PQ_UNIT_MICROS, true);
  case PQ_CT_UINT_8: return set_int(m, c, 8, false);
  case PQ_CT_UINT_16: return set_int(m, c, 16, false);
  case PQ_CT_UINT_32: return set_int(m, c, 32, false);
  case PQ_CT_UINT_64: return set_int(m, c, 64, false);
  case PQ_CT_INT_8: return set_int(m, c, 8, true);
  case PQ_CT_INT_16: return set_int(m, c, 16, true);
  case PQ_CT_INT_32: return set_int(m, c, 32, true);
  case PQ_CT_INT_64: return set_int(m, c, 64, true);
  case PQ_CT_INTERVAL:
    /* months, days, millis as three LE uint32; kept as raw bytes for now. */
    if (t != PQ_FIXED_LEN_BYTE_ARRAY || c->type_length != 12)
      return wrong_physical(m, "INTERVAL", t);
    c->type.id = INLET_TYPE_FIXED_BINARY;
    c->type.byte_width = 12;
    return 0;
  default: break;
  }
  set_physical(c);
  return 0;
}

int pq_column_map_type(pq_column_desc *c, const pq_schema_element *e, const char *file_name,
                       inlet_error *err) {
  map_ctx m = {fname(file_name), c->path ? c->path : (e->name ? e->name : ""), err};
  return map_leaf(&m, e, c);
}

int pq_schema_build_tree(pq_schema_desc *out, const pq_schema_element *elems, int32_t n,
                         const char *file_name, inlet_error *err) {
  pq_schema_desc_reset(out);
  int rc = build_tree(out, elems, n, file_name, err);
  if (rc < 0) pq_schema_desc_reset(out);
  return rc;
}

int pq_schema_from_parquet(pq_schema_desc *out, const pq_schema_element *elems, int32_t n,
                           const char *file_name, inlet_error *err) {
  pq_schema_desc_reset(out);
  int rc = build_tree(out, elems, n, file_name, err);
  if (rc < 0) goto fail;
  const char *file = fname(file_name);
  /* Flat mapping: every child of the root must be a non-repeated leaf. */
  int32_t n_fields = 0;
  for (int32_t i = out->nodes[0].first_child; i >= 0; i = out->nodes[i].next_sibling) {
    const pq_schema_element *e = &elems[i];
    if (is_group(e) || (e->has_repetition && e->repetition == PQ_REPEATED)) {
      rc = inlet_fail(err, INLET_EUNSUPPORTED, "%s: nested column %s is not supported", file,
                      e->name ? e->name : "");
      goto fail;
    }
    n_fields++;
  }
  if (n_fields > 0) {
    out->schema.fields = inlet_calloc((size_t)n_fields, sizeof *out->schema.fields);
    if (!out->schema.fields) {
      rc = inlet_fail(err, INLET_ENOMEM, "out of memory mapping the Parquet schema");
      goto fail;
    }
  }
  int32_t f = 0;
  for (int32_t i = out->nodes[0].first_child; i >= 0; i = out->nodes[i].next_sibling, f++) {
    const pq_schema_element *e = &elems[i];
    pq_column_desc *c = &out->columns[out->nodes[i].column];
    map_ctx m = {file, c->path, err};
    rc = map_leaf(&m, e, c);
    if (rc < 0) goto fail;
    inlet_field *fld = &out->schema.fields[f];
    fld->field_id = -1;
    fld->name = inlet_strdup(e->name ? e->name : "");
    out->schema.n_fields = f + 1;
    if (!fld->name) {
      rc = inlet_fail(err, INLET_ENOMEM, "out of memory mapping the Parquet schema");
      goto fail;
    }
    fld->type = c->type;
    fld->nullable = c->repetition == PQ_OPTIONAL;
    fld->field_id = e->has_field_id ? e->field_id : -1;
    c->field_index = f;
  }
  /* Fields are final: lend pointers to them. */
  for (int32_t k = 0; k < out->n_columns; k++)
    out->columns[k].field = &out->schema.fields[out->columns[k].field_index];
  return 0;
fail:
  pq_schema_desc_reset(out);
  return rc;
}

/* ---- writer direction ---------------------------------------------------- */

/* Fills element @p e and the writer-side conversion for inlet field @p f. */
static int element_for_field(const inlet_field *f, pq_schema_element *e, pq_value_conv *conv,
                             int64_t *scale_factor, inlet_error *err) {
  const inlet_type *t = &f->type;
  pq_logical_type *lt = &e->logical;
  *conv = PQ_CONV_NONE;
  *scale_factor = 1;
  e->has_type = true;
  e->converted_type = PQ_CT_NONE;
  switch (t->id) {
  case INLET_TYPE_BOOL: e->type = PQ_BOOLEAN; break;
  case INLET_TYPE_INT8:
  case INLET_TYPE_INT16:
  case INLET_TYPE_UINT8:
  case INLET_TYPE_UINT16:
  case INLET_TYPE_UINT32: {
    bool is_signed = t->id == INLET_TYPE_INT8 || t->id == INLET_TYPE_INT16;
    int bits = (t->id == INLET_TYPE_INT8 || t->id == INLET_TYPE_UINT8)     ? 8
               : (t->id == INLET_TYPE_INT16 || t->id == INLET_TYPE_UINT16) ? 16
                                                                           : 32;
    e->type = PQ_INT32;
    lt->kind = PQ_LT_INTEGER;
    lt->bit_width = (int8_t)bits;
    lt->is_signed = is_signed;
    e->converted_type = is_signed ? (bits == 8 ? PQ_CT_INT_8 : PQ_CT_INT_16)
                                  : (bits == 8    ? PQ_CT_UINT_8
                                     : bits == 16 ? PQ_CT_UINT_16
                                                  : PQ_CT_UINT_32);
    if (bits < 32) *conv = PQ_CONV_INT_NARROW;
    break;
  }
  case INLET_TYPE_INT32: e->type = PQ_INT32; break;
  case INLET_TYPE_INT64: e->type = PQ_INT64; break;
  case INLET_TYPE_UINT64:
    e->type = PQ_INT64;
    lt->kind = PQ_LT_INTEGER;
    lt->bit_width = 64;
    lt->is_signed = false;
    e->converted_type = PQ_CT_UINT_64;
    break;
  case INLET_TYPE_FLOAT: e->type = PQ_FLOAT; break;
  case INLET_TYPE_DOUBLE: e->type = PQ_DOUBLE; break;
  case INLET_TYPE_STRING:
    e->type = PQ_BYTE_ARRAY;
    if (t->ext == INLET_EXT_ENUM) {
      lt->kind = PQ_LT_ENUM;
      e->converted_type = PQ_CT_ENUM;
    } else if (t->ext == INLET_EXT_JSON) {
      lt->kind = PQ_LT_JSON;
      e->converted_type = PQ_CT_JSON;
    } else {
      lt->kind = PQ_LT_STRING;
      e->converted_type = PQ_CT_UTF8;
    }
    break;
  case INLET_TYPE_BINARY:
    e->type = PQ_BYTE_ARRAY;
    if (t->ext == INLET_EXT_BSON) {
      lt->kind = PQ_LT_BSON;
      e->converted_type = PQ_CT_BSON;
    }
    break;
  case INLET_TYPE_FIXED_BINARY:
    FAIL_IF(t->byte_width <= 0, err, INLET_EINVAL,
            "column \"%s\": fixed(%d) needs a positive width", f->name, t->byte_width);
    e->type = PQ_FIXED_LEN_BYTE_ARRAY;
    e->has_type_length = true;
    e->type_length = t->byte_width;
    if (t->ext == INLET_EXT_UUID) {
      FAIL_IF(t->byte_width != 16, err, INLET_EINVAL, "column \"%s\": uuid must be 16 bytes wide",
              f->name);
      lt->kind = PQ_LT_UUID;
    }
    break;
  case INLET_TYPE_DATE:
    e->type = PQ_INT32;
    lt->kind = PQ_LT_DATE;
    e->converted_type = PQ_CT_DATE;
    break;
  case INLET_TYPE_TIME:
  case INLET_TYPE_TIMESTAMP: {
    bool ts = t->id == INLET_TYPE_TIMESTAMP;
    lt->kind = ts ? PQ_LT_TIMESTAMP : PQ_LT_TIME;
    lt->utc = t->utc;
    switch (t->unit) {
    case INLET_UNIT_SECOND:
      /* Parquet has no second unit: values are multiplied into millis. */
      *conv = PQ_CONV_SCALE;
      *scale_factor = 1000;
      /* fall through */
    case INLET_UNIT_MILLI:
      lt->unit = PQ_UNIT_MILLIS;
      e->type = ts ? PQ_INT64 : PQ_INT32;
      e->converted_type = ts ? PQ_CT_TIMESTAMP_MILLIS : PQ_CT_TIME_MILLIS;
      break;
    case INLET_UNIT_MICRO:
      lt->unit = PQ_UNIT_MICROS;
      e->type = PQ_INT64;
      e->converted_type = ts ? PQ_CT_TIMESTAMP_MICROS : PQ_CT_TIME_MICROS;
      break;
    case INLET_UNIT_NANO:
      lt->unit = PQ_UNIT_NANOS; /* no legacy equivalent */
      e->type = PQ_INT64;
      break;
    default:
      return inlet_fail(err, INLET_EINVAL, "column \"%s\": unknown time unit %d", f->name,
                        (int)t->unit);
    }
    break;
  }
  case INLET_TYPE_DECIMAL: {
    FAIL_IF(t->precision < 1 || t->precision > 38 || t->scale < 0 || t->scale > t->precision, err,
            INLET_EINVAL, "column \"%s\": decimal(%d,%d) cannot be written", f->name, t->precision,
            t->scale);
    if (t->precision <= 9) {
      e->type = PQ_INT32;
    } else if (t->precision <= 18) {
      e->type = PQ_INT64;
    } else {
      e->type = PQ_FIXED_LEN_BYTE_ARRAY;
      e->has_type_length = true;
      e->type_length = pq_decimal_byte_width(t->precision);
    }
    lt->kind = PQ_LT_DECIMAL;
    lt->precision = t->precision;
    lt->scale = t->scale;
    e->converted_type = PQ_CT_DECIMAL;
    e->has_precision = e->has_scale = true;
    e->precision = t->precision;
    e->scale = t->scale;
    *conv = PQ_CONV_DECIMAL;
    break;
  }
  case INLET_TYPE_STRUCT:
  case INLET_TYPE_LIST:
  case INLET_TYPE_MAP:
    return inlet_fail(err, INLET_EUNSUPPORTED, "nested column %s is not supported", f->name);
  default: {
    char tn[64];
    inlet_type_name(t, tn, sizeof tn);
    return inlet_fail(err, INLET_EINVAL, "column \"%s\": type %s cannot be written to Parquet%s",
                      f->name, tn,
                      t->id == INLET_TYPE_NULL ? " (it is always null; leave it out)" : "");
  }
  }
  return 0;
}

int pq_schema_to_parquet(pq_file_metadata *meta, pq_schema_desc *out, const inlet_schema *schema,
                         inlet_error *err) {
  pq_schema_desc_reset(out);
  int rc = 0;
  int32_t n = schema->n_fields;
  FAIL_IF(n < 0 || n > PQ_MAX_COLUMNS, err, INLET_EINVAL, "schema has %d fields", n);
  pq_schema_element *elems = pq_meta_alloc_array(meta, (size_t)n + 1, sizeof *elems, err);
  if (!elems) return INLET_ENOMEM;
  pq_value_conv *convs = inlet_calloc((size_t)n + 1, sizeof *convs);
  int64_t *factors = inlet_calloc((size_t)n + 1, sizeof *factors);
  FAIL_GOTO(!convs || !factors, err, INLET_ENOMEM, "out of memory mapping the schema");
  elems[0].name = pq_meta_strdup(meta, "schema", err);
  FAIL_GOTO(!elems[0].name, err, INLET_ENOMEM, "out of memory mapping the schema");
  elems[0].has_num_children = true;
  elems[0].num_children = n;
  elems[0].converted_type = PQ_CT_NONE;
  for (int32_t i = 0; i < n; i++) {
    const inlet_field *f = &schema->fields[i];
    pq_schema_element *e = &elems[i + 1];
    FAIL_GOTO(!f->name || !f->name[0], err, INLET_EINVAL, "field %d has an empty name", i);
    TRY_GOTO(element_for_field(f, e, &convs[i], &factors[i], err));
    e->name = pq_meta_strdup(meta, f->name, err);
    FAIL_GOTO(!e->name, err, INLET_ENOMEM, "out of memory mapping the schema");
    e->has_repetition = true;
    e->repetition = f->nullable ? PQ_OPTIONAL : PQ_REQUIRED;
    if (f->field_id >= 0) {
      e->has_field_id = true;
      e->field_id = f->field_id;
    }
  }
  TRY_GOTO(build_tree(out, elems, n + 1, NULL, err));
  TRY_GOTO(inlet_schema_copy(&out->schema, schema, err));
  for (int32_t i = 0; i < n; i++) {
    pq_column_desc *c = &out->columns[i];
    c->field_index = i;
    c->field = &out->schema.fields[i];
    c->type = schema->fields[i].type;
    c->conv = convs[i];
    c->scale_factor = factors[i];
  }
  int32_t *orders = pq_meta_alloc_array(meta, (size_t)n + 1, sizeof *orders, err);
  FAIL_GOTO(!orders, err, INLET_ENOMEM, "out of memory mapping the schema");
  for (int32_t i = 0; i < n; i++)
    orders[i] = PQ_ORDER_TYPE_DEFINED;
  meta->schema = elems;
  meta->n_schema = n + 1;
  meta->column_orders = orders;
  meta->n_column_orders = n;
done:
  inlet_free(convs);
  inlet_free(factors);
  if (rc < 0) pq_schema_desc_reset(out);
  return rc;
}
