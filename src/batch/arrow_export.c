/*
 * Arrow C Data Interface export of schemas and batches (inlet/arrow.h).
 *
 * Arrays: every exported node (the root struct array and each column,
 * recursively) has its own private data, so a consumer may move any child
 * out and release it before or after its parent. The buffers themselves
 * stay in the moved-out inlet_batch, held by a reference-counted owner that
 * every node points to; the last release frees the batch. Releases may
 * happen on different threads, hence the atomic count.
 *
 * Schemas: each node owns its format, name and metadata strings and its
 * children, which are allocated one by one for the same reason.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inlet/arrow.h"
#include "util/util.h"

/* ---- schemas ------------------------------------------------------------- */

typedef struct schema_private {
  char *format;
  char *name;
  char *metadata;
  struct ArrowSchema **children;
} schema_private;

static void schema_release(struct ArrowSchema *s) {
  if (s == NULL || s->release == NULL) return;
  schema_private *p = s->private_data;
  for (int64_t i = 0; i < s->n_children; i++) {
    struct ArrowSchema *c = p->children[i];
    if (c->release != NULL) c->release(c);
    free(c);
  }
  free(p->children);
  free(p->format);
  free(p->name);
  free(p->metadata);
  free(p);
  s->release = NULL;
  s->private_data = NULL;
}

static char *dup_str(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d != NULL) memcpy(d, s, n);
  return d;
}

static const char unit_letter[] = {'s', 'm', 'u', 'n'};

/* The format string of @p t into @p out (64 bytes). */
static int type_format(const inlet_type *t, char *out, size_t cap, inlet_error *err) {
  const char *f = NULL;
  switch (t->id) {
  case INLET_TYPE_BOOL: f = "b"; break;
  case INLET_TYPE_INT8: f = "c"; break;
  case INLET_TYPE_INT16: f = "s"; break;
  case INLET_TYPE_INT32: f = "i"; break;
  case INLET_TYPE_INT64: f = "l"; break;
  case INLET_TYPE_UINT8: f = "C"; break;
  case INLET_TYPE_UINT16: f = "S"; break;
  case INLET_TYPE_UINT32: f = "I"; break;
  case INLET_TYPE_UINT64: f = "L"; break;
  case INLET_TYPE_FLOAT: f = "f"; break;
  case INLET_TYPE_DOUBLE: f = "g"; break;
  case INLET_TYPE_STRING: f = "u"; break;
  case INLET_TYPE_BINARY: f = "z"; break;
  case INLET_TYPE_DATE: f = "tdD"; break;
  case INLET_TYPE_STRUCT: f = "+s"; break;
  case INLET_TYPE_LIST: f = "+l"; break;
  case INLET_TYPE_MAP: f = "+m"; break;
  case INLET_TYPE_NULL: f = "n"; break;
  case INLET_TYPE_FIXED_BINARY: snprintf(out, cap, "w:%d", (int)t->byte_width); return 0;
  case INLET_TYPE_TIME:
  case INLET_TYPE_TIMESTAMP:
    FAIL_IF((unsigned)t->unit > INLET_UNIT_NANO, err, INLET_EINVAL,
            "arrow export: bad time unit %d", (int)t->unit);
    if (t->id == INLET_TYPE_TIME)
      snprintf(out, cap, "tt%c", unit_letter[t->unit]);
    else
      snprintf(out, cap, "ts%c:%s", unit_letter[t->unit], t->utc ? "UTC" : "");
    return 0;
  case INLET_TYPE_DECIMAL:
    snprintf(out, cap, "d:%d,%d", (int)t->precision, (int)t->scale);
    return 0;
  case INLET_TYPE_INVALID: break;
  }
  if (f == NULL)
    return inlet_fail(err, INLET_EUNSUPPORTED, "arrow export: type %d has no Arrow format",
                      (int)t->id);
  snprintf(out, cap, "%s", f);
  return 0;
}

/* Arrow metadata (int32 count, then length-prefixed key and value) naming
 * the canonical extension type of @p t, or NULL (no metadata) in *out. */
static int type_metadata(const inlet_type *t, char **out) {
  const char *ext = NULL;
  if (t->id == INLET_TYPE_STRING && t->ext == INLET_EXT_JSON) ext = "arrow.json";
  if (t->id == INLET_TYPE_FIXED_BINARY && t->ext == INLET_EXT_UUID) ext = "arrow.uuid";
  *out = NULL;
  if (ext == NULL) return 0;
  static const char key[] = "ARROW:extension:name";
  int32_t n = 1, klen = (int32_t)strlen(key), vlen = (int32_t)strlen(ext);
  size_t size = 4 + 4 + (size_t)klen + 4 + (size_t)vlen;
  char *m = malloc(size), *w = m;
  if (m == NULL) return INLET_ENOMEM;
  /* The spec's int32s are in native byte order. */
  memcpy(w, &n, 4), w += 4;
  memcpy(w, &klen, 4), w += 4;
  memcpy(w, key, (size_t)klen), w += klen;
  memcpy(w, &vlen, 4), w += 4;
  memcpy(w, ext, (size_t)vlen);
  *out = m;
  return 0;
}

/* Fills @p out (release NULL on failure) for a node of format @p format. */
static int schema_node(struct ArrowSchema *out, const char *format, const char *name, int64_t flags,
                       int32_t n_children, inlet_error *err) {
  memset(out, 0, sizeof *out);
  schema_private *p = calloc(1, sizeof *p);
  if (p == NULL) goto oom;
  p->format = dup_str(format);
  p->name = dup_str(name != NULL ? name : "");
  if (n_children > 0) p->children = calloc((size_t)n_children, sizeof *p->children);
  if (p->format == NULL || p->name == NULL || (n_children > 0 && p->children == NULL)) goto oom;
  for (int32_t i = 0; i < n_children; i++) {
    p->children[i] = calloc(1, sizeof **p->children);
    if (p->children[i] == NULL) goto oom;
  }
  out->format = p->format;
  out->name = p->name;
  out->flags = flags;
  out->n_children = n_children;
  out->children = p->children;
  out->release = schema_release;
  out->private_data = p;
  return 0;
oom:
  if (p != NULL) {
    for (int32_t i = 0; p->children != NULL && i < n_children; i++)
      free(p->children[i]);
    free(p->children);
    free(p->format);
    free(p->name);
    free(p);
  }
  return inlet_fail(err, INLET_ENOMEM, "arrow export: out of memory");
}

/* How a field sits in its parent: Arrow requires a map's "entries" struct
 * and the entries' "key" to be non-nullable, whatever the source says. */
typedef enum field_role { ROLE_PLAIN, ROLE_MAP_ENTRIES, ROLE_MAP_KEY } field_role;

static int export_field(const inlet_field *f, struct ArrowSchema *out, field_role role, int depth,
                        inlet_error *err) {
  char format[64];
  FAIL_IF(depth > 256, err, INLET_ELIMIT, "arrow export: type nesting past 256 levels");
  TRY(type_format(&f->type, format, sizeof format, err));
  int64_t flags = (f->nullable && role == ROLE_PLAIN) ? ARROW_FLAG_NULLABLE : 0;
  int32_t n = 0;
  if (f->type.id == INLET_TYPE_STRUCT || f->type.id == INLET_TYPE_LIST ||
      f->type.id == INLET_TYPE_MAP)
    n = f->n_children;
  FAIL_IF((f->type.id == INLET_TYPE_LIST || f->type.id == INLET_TYPE_MAP) && n != 1, err,
          INLET_EINVAL, "arrow export: column '%s' has %d children, not 1", f->name ? f->name : "",
          (int)n);
  FAIL_IF(n > 0 && f->children == NULL, err, INLET_EINVAL,
          "arrow export: column '%s' lacks its children", f->name ? f->name : "");
  TRY(schema_node(out, format, f->name, flags, n, err));
  schema_private *p = out->private_data;
  if (type_metadata(&f->type, &p->metadata) != 0) {
    schema_release(out);
    return inlet_fail(err, INLET_ENOMEM, "arrow export: out of memory");
  }
  out->metadata = p->metadata;
  for (int32_t i = 0; i < n; i++) {
    field_role r = ROLE_PLAIN;
    if (f->type.id == INLET_TYPE_MAP) r = ROLE_MAP_ENTRIES;
    if (role == ROLE_MAP_ENTRIES && i == 0) r = ROLE_MAP_KEY;
    int rc = export_field(&f->children[i], out->children[i], r, depth + 1, err);
    if (rc < 0) {
      schema_release(out);
      return rc;
    }
  }
  return 0;
}

int inlet_schema_export(const inlet_schema *schema, struct ArrowSchema *out, inlet_error *err) {
  if (out == NULL) return inlet_fail(err, INLET_EINVAL, "arrow export: no output schema");
  memset(out, 0, sizeof *out);
  FAIL_IF(schema == NULL || schema->n_fields < 0, err, INLET_EINVAL, "arrow export: no schema");
  TRY(schema_node(out, "+s", "", 0, schema->n_fields, err));
  for (int32_t i = 0; i < schema->n_fields; i++) {
    int rc = export_field(&schema->fields[i], out->children[i], ROLE_PLAIN, 0, err);
    if (rc < 0) {
      schema_release(out);
      return rc;
    }
  }
  return 0;
}

/* ---- arrays -------------------------------------------------------------- */

/* The moved-out batch, freed by the last node released. */
typedef struct batch_owner {
  atomic_int refs;
  inlet_batch batch;
} batch_owner;

typedef struct array_private {
  batch_owner *owner;
  const void *buffers[3];
  struct ArrowArray **children;
} array_private;

/* Points where Arrow wants a buffer that inlet left unallocated (an empty
 * array's offsets or values): a zero offset, readable and never written. */
static const int64_t zero_buffer[2] = {0, 0};

static void owner_unref(batch_owner *o) {
  if (atomic_fetch_sub_explicit(&o->refs, 1, memory_order_acq_rel) == 1) {
    inlet_batch_reset(&o->batch);
    free(o);
  }
}

static void array_release(struct ArrowArray *a) {
  if (a == NULL || a->release == NULL) return;
  array_private *p = a->private_data;
  for (int64_t i = 0; i < a->n_children; i++) {
    struct ArrowArray *c = p->children[i];
    if (c->release != NULL) c->release(c);
    free(c);
  }
  free(p->children);
  owner_unref(p->owner);
  free(p);
  a->release = NULL;
  a->private_data = NULL;
}

/* A node with @p n_children zeroed child structs; takes one owner ref. */
static int array_node(struct ArrowArray *out, batch_owner *owner, int64_t n_children,
                      inlet_error *err) {
  memset(out, 0, sizeof *out);
  array_private *p = calloc(1, sizeof *p);
  if (p == NULL) return inlet_fail(err, INLET_ENOMEM, "arrow export: out of memory");
  if (n_children > 0) {
    p->children = calloc((size_t)n_children, sizeof *p->children);
    bool ok = p->children != NULL;
    for (int64_t i = 0; ok && i < n_children; i++)
      ok = (p->children[i] = calloc(1, sizeof **p->children)) != NULL;
    if (!ok) {
      for (int64_t i = 0; p->children != NULL && i < n_children; i++)
        free(p->children[i]);
      free(p->children);
      free(p);
      return inlet_fail(err, INLET_ENOMEM, "arrow export: out of memory");
    }
  }
  p->owner = owner;
  atomic_fetch_add_explicit(&owner->refs, 1, memory_order_relaxed);
  out->n_children = n_children;
  out->children = p->children;
  out->buffers = p->buffers;
  out->release = array_release;
  out->private_data = p;
  return 0;
}

static const void *or_zero(const void *buf) {
  return buf != NULL ? buf : (const void *)zero_buffer;
}

static int export_array(const inlet_field *f, const inlet_array *a, struct ArrowArray *out,
                        batch_owner *owner, int depth, inlet_error *err) {
  FAIL_IF(depth > 256, err, INLET_ELIMIT, "arrow export: nesting past 256 levels");
  inlet_type_id id = f->type.id;
  int64_t n = 0;
  if (id == INLET_TYPE_STRUCT || id == INLET_TYPE_LIST || id == INLET_TYPE_MAP) n = f->n_children;
  FAIL_IF(a->n_children != n || (n > 0 && a->children == NULL), err, INLET_EINVAL,
          "arrow export: column '%s' has %d child arrays, its type %d", f->name ? f->name : "",
          (int)a->n_children, (int)n);
  /* A buffer inlet left unallocated may stand in for a zero only where no
   * value is read from it: an empty array. */
  bool needs_values = id != INLET_TYPE_NULL && id != INLET_TYPE_STRUCT && id != INLET_TYPE_LIST &&
                      id != INLET_TYPE_MAP && id != INLET_TYPE_STRING && id != INLET_TYPE_BINARY;
  bool needs_offsets = id == INLET_TYPE_STRING || id == INLET_TYPE_BINARY ||
                       id == INLET_TYPE_LIST || id == INLET_TYPE_MAP;
  FAIL_IF(a->length > 0 &&
              ((needs_values && a->values == NULL) || (needs_offsets && a->offsets == NULL)),
          err, INLET_EINVAL, "arrow export: column '%s' has %lld rows but no %s buffer",
          f->name ? f->name : "", (long long)a->length, needs_values ? "values" : "offsets");
  FAIL_IF((id == INLET_TYPE_STRING || id == INLET_TYPE_BINARY) && a->length > 0 &&
              a->values == NULL && a->offsets[a->length] != 0,
          err, INLET_EINVAL, "arrow export: column '%s' has string bytes but no data buffer",
          f->name ? f->name : "");
  TRY(array_node(out, owner, n, err));
  array_private *p = out->private_data;
  out->length = a->length;
  out->null_count = a->validity != NULL ? a->null_count : 0;
  switch (id) {
  case INLET_TYPE_NULL:
    /* Arrow's null type has no buffers, every value is null. */
    out->null_count = a->length;
    out->n_buffers = 0;
    break;
  case INLET_TYPE_STRUCT:
    out->n_buffers = 1;
    p->buffers[0] = a->validity;
    break;
  case INLET_TYPE_LIST:
  case INLET_TYPE_MAP:
    out->n_buffers = 2;
    p->buffers[0] = a->validity;
    p->buffers[1] = or_zero(a->offsets);
    break;
  case INLET_TYPE_STRING:
  case INLET_TYPE_BINARY:
    out->n_buffers = 3;
    p->buffers[0] = a->validity;
    p->buffers[1] = or_zero(a->offsets);
    p->buffers[2] = or_zero(a->values);
    break;
  default:
    out->n_buffers = 2;
    p->buffers[0] = a->validity;
    p->buffers[1] = or_zero(a->values);
    break;
  }
  if (out->n_buffers == 0) out->buffers = NULL;
  for (int64_t i = 0; i < n; i++) {
    int rc =
        export_array(&f->children[i], &a->children[i], out->children[i], owner, depth + 1, err);
    if (rc < 0) {
      array_release(out);
      return rc;
    }
  }
  return 0;
}

int inlet_batch_export_array(inlet_batch *batch, struct ArrowArray *array_out, inlet_error *err) {
  if (array_out == NULL) return inlet_fail(err, INLET_EINVAL, "arrow export: no output array");
  memset(array_out, 0, sizeof *array_out);
  FAIL_IF(batch == NULL, err, INLET_EINVAL, "arrow export: no batch");
  FAIL_IF(batch->schema.n_fields > 0 && batch->columns == NULL, err, INLET_EINVAL,
          "arrow export: batch has %d fields but no columns", (int)batch->schema.n_fields);
  batch_owner *owner = calloc(1, sizeof *owner);
  if (owner == NULL) return inlet_fail(err, INLET_ENOMEM, "arrow export: out of memory");
  atomic_init(&owner->refs, 1); /* the export call's own, dropped below */
  owner->batch = *batch;        /* borrowed until every node is built */
  int rc = array_node(array_out, owner, batch->schema.n_fields, err);
  if (rc == 0) {
    array_private *p = array_out->private_data;
    array_out->length = batch->num_rows;
    array_out->null_count = 0;
    array_out->n_buffers = 1;
    p->buffers[0] = NULL;
    for (int32_t i = 0; rc == 0 && i < batch->schema.n_fields; i++) {
      const inlet_array *col = &batch->columns[i];
      if (col->length != batch->num_rows)
        rc = inlet_fail(
            err, INLET_EINVAL, "arrow export: column '%s' has %lld rows, the batch %lld",
            batch->schema.fields[i].name, (long long)col->length, (long long)batch->num_rows);
      else
        rc = export_array(&batch->schema.fields[i], col, array_out->children[i], owner, 0, err);
    }
  }
  if (rc < 0) {
    /* The batch stays the caller's: release the nodes without freeing it. */
    memset(&owner->batch, 0, sizeof owner->batch);
    if (array_out->release != NULL) array_release(array_out);
    owner_unref(owner);
    memset(array_out, 0, sizeof *array_out);
    return rc;
  }
  memset(batch, 0, sizeof *batch); /* moved */
  owner_unref(owner);
  return 0;
}

int inlet_batch_export(inlet_batch *batch, struct ArrowSchema *schema_out,
                       struct ArrowArray *array_out, inlet_error *err) {
  if (schema_out != NULL) memset(schema_out, 0, sizeof *schema_out);
  if (array_out != NULL) memset(array_out, 0, sizeof *array_out);
  FAIL_IF(batch == NULL, err, INLET_EINVAL, "arrow export: no batch");
  if (schema_out != NULL) TRY(inlet_schema_export(&batch->schema, schema_out, err));
  int rc = inlet_batch_export_array(batch, array_out, err);
  if (rc < 0 && schema_out != NULL && schema_out->release != NULL) schema_out->release(schema_out);
  return rc;
}
