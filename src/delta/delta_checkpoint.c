/*
 * Reading classic checkpoints (single-file and multi-part) into replay
 * actions.
 *
 * Spec: PROTOCOL.md "Checkpoints", "Checkpoint Naming Scheme" (classic
 * `n.checkpoint.parquet`, multi-part `n.checkpoint.o.p.parquet`) and
 * "Checkpoint Schema": one row per action, with nullable top-level struct
 * columns txn, add, remove, metaData, protocol, domainMetadata (and
 * checkpointMetadata/sidecar for v2, refused here). Map columns
 * (partitionValues, configuration, tags) are Parquet maps of strings,
 * partitionColumns and the feature lists are lists of strings. Paths are
 * percent-encoded URIs like in JSON commits and go through the same
 * resolution, so nothing in a checkpoint can name a file outside the table.
 *
 * The file is read through the public Parquet reader, one row group at a
 * time (memory bounded by a row group, not the checkpoint). The reader
 * decodes nested columns only once the nested-Parquet work lands; until then
 * opening or decoding reports INLET_EUNSUPPORTED and log replay falls back
 * to the JSON commits.
 */
#include <stdio.h>
#include <strings.h>

#include "delta/delta_features.h"
#include "delta/delta_table_int.h"
#include "util/util.h"

typedef struct cp_ctx {
  const char *file; /* for messages */
  int32_t row_group;
  int64_t row;
  delta_line_ctx lc;
  inlet_error *err;
} cp_ctx;

static int cp_bad(cp_ctx *c, const char *what) {
  return inlet_fail(c->err, INLET_ECORRUPT, "corrupt checkpoint %s row group %d row %lld: %s",
                    c->file, (int)c->row_group, (long long)c->row, what);
}

static int child_index(const inlet_field *f, const char *name) {
  for (int32_t i = 0; i < f->n_children; i++)
    if (strcmp(f->children[i].name, name) == 0) return i;
  return -1;
}

/* Value accessors on a struct's child; absent child or null value = false. */
typedef struct sview {
  const inlet_field *f;
  const inlet_array *a;
} sview;

static bool child(sview s, const char *name, sview *out) {
  int i = child_index(s.f, name);
  if (i < 0) return false;
  out->f = &s.f->children[i];
  out->a = &s.a->children[i];
  return true;
}

static int get_str(cp_ctx *c, sview s, const char *name, int64_t r, char **out) {
  sview v;
  *out = NULL;
  if (!child(s, name, &v) || !inlet_array_is_valid(v.a, r)) return 0;
  if (v.f->type.id != INLET_TYPE_STRING && v.f->type.id != INLET_TYPE_BINARY)
    return cp_bad(c, "string field has another type");
  int32_t a = v.a->offsets[r], b = v.a->offsets[r + 1];
  *out = inlet_strndup((const char *)v.a->values + a, (size_t)(b - a));
  return *out ? 0 : inlet_fail(c->err, INLET_ENOMEM, "out of memory reading checkpoint");
}

static bool get_i64(sview s, const char *name, int64_t r, int64_t *out) {
  sview v;
  if (!child(s, name, &v) || !inlet_array_is_valid(v.a, r)) return false;
  switch (v.f->type.id) {
  case INLET_TYPE_INT64: *out = ((const int64_t *)v.a->values)[r]; return true;
  case INLET_TYPE_INT32: *out = ((const int32_t *)v.a->values)[r]; return true;
  case INLET_TYPE_INT16: *out = ((const int16_t *)v.a->values)[r]; return true;
  default: return false;
  }
}

static bool get_bool(sview s, const char *name, int64_t r, bool dflt) {
  sview v;
  if (!child(s, name, &v) || !inlet_array_is_valid(v.a, r) || v.f->type.id != INLET_TYPE_BOOL)
    return dflt;
  return inlet_bit_get(v.a->values, r);
}

/* map<string,string> -> delta_kv array (JSON-null values stay NULL). */
static int get_map(cp_ctx *c, sview s, const char *name, int64_t r, delta_kv **out, int32_t *n) {
  sview m;
  *out = NULL;
  *n = 0;
  if (!child(s, name, &m) || !inlet_array_is_valid(m.a, r)) return 0;
  if (m.f->type.id != INLET_TYPE_MAP) return cp_bad(c, "map field has another type");
  const inlet_array *ent = &m.a->children[0];
  const inlet_array *ka = &ent->children[0], *va = &ent->children[1];
  int32_t a = m.a->offsets[r], b = m.a->offsets[r + 1];
  if (b < a) return cp_bad(c, "map offsets decrease");
  if (b == a) return 0;
  *out = inlet_calloc((size_t)(b - a), sizeof **out);
  if (!*out) return inlet_fail(c->err, INLET_ENOMEM, "out of memory reading checkpoint");
  for (int32_t j = a; j < b; j++) {
    delta_kv *kv = &(*out)[(*n)++];
    kv->key = inlet_strndup((const char *)ka->values + ka->offsets[j],
                            (size_t)(ka->offsets[j + 1] - ka->offsets[j]));
    if (!kv->key) return inlet_fail(c->err, INLET_ENOMEM, "out of memory reading checkpoint");
    if (inlet_array_is_valid(va, j)) {
      kv->value = inlet_strndup((const char *)va->values + va->offsets[j],
                                (size_t)(va->offsets[j + 1] - va->offsets[j]));
      if (!kv->value) return inlet_fail(c->err, INLET_ENOMEM, "out of memory reading checkpoint");
    }
  }
  return 0;
}

static int get_strv(cp_ctx *c, sview s, const char *name, int64_t r, char ***out, int32_t *n) {
  sview l;
  *out = NULL;
  *n = 0;
  if (!child(s, name, &l) || !inlet_array_is_valid(l.a, r)) return 0;
  if (l.f->type.id != INLET_TYPE_LIST) return cp_bad(c, "list field has another type");
  const inlet_array *e = &l.a->children[0];
  int32_t a = l.a->offsets[r], b = l.a->offsets[r + 1];
  if (b < a) return cp_bad(c, "list offsets decrease");
  *out = inlet_calloc((size_t)(b - a) + 1, sizeof **out);
  if (!*out) return inlet_fail(c->err, INLET_ENOMEM, "out of memory reading checkpoint");
  for (int32_t j = a; j < b; j++) {
    if (!inlet_array_is_valid(e, j)) continue;
    (*out)[(*n)++] = inlet_strndup((const char *)e->values + e->offsets[j],
                                   (size_t)(e->offsets[j + 1] - e->offsets[j]));
    if (!(*out)[*n - 1]) return inlet_fail(c->err, INLET_ENOMEM, "out of memory reading checkpoint");
  }
  return 0;
}

static int get_dv(cp_ctx *c, sview s, int64_t r, char **id) {
  sview dv;
  *id = NULL;
  if (!child(s, "deletionVector", &dv) || !inlet_array_is_valid(dv.a, r)) return 0;
  char *st = NULL, *pi = NULL;
  int rc = get_str(c, dv, "storageType", r, &st);
  if (rc == 0) rc = get_str(c, dv, "pathOrInlineDv", r, &pi);
  int64_t off = 0;
  bool has_off = get_i64(dv, "offset", r, &off);
  if (rc == 0 && (!st || !pi)) rc = cp_bad(c, "deletionVector lacks storageType or pathOrInlineDv");
  if (rc == 0) {
    size_t n = strlen(st) + strlen(pi) + 32;
    *id = inlet_malloc(n);
    if (!*id) rc = inlet_fail(c->err, INLET_ENOMEM, "out of memory reading checkpoint");
    else if (has_off) snprintf(*id, n, "%s%s@%lld", st, pi, (long long)off);
    else snprintf(*id, n, "%s%s", st, pi);
  }
  inlet_free(st);
  inlet_free(pi);
  return rc;
}

static int resolve(cp_ctx *c, sview s, int64_t r, const char *what, char **out) {
  char *raw = NULL;
  TRY(get_str(c, s, "path", r, &raw));
  if (!raw) return cp_bad(c, "action without path");
  int rc = delta_path_resolve(out, raw, &c->lc, what, c->err);
  inlet_free(raw);
  return rc;
}

/* Converts row @p r of top-level column @p s (named @p name) to an action. */
static int row_action(cp_ctx *c, const char *name, sview s, int64_t r, delta_action *a) {
  memset(a, 0, sizeof *a);
  if (strcmp(name, "add") == 0) {
    a->kind = DELTA_ACTION_ADD;
    delta_add *x = &a->u.add;
    TRY(resolve(c, s, r, "add", &x->path));
    TRY(get_map(c, s, "partitionValues", r, &x->partition_values, &x->n_partition_values));
    if (!get_i64(s, "size", r, &x->size) || x->size < 0) return cp_bad(c, "add.size missing or negative");
    get_i64(s, "modificationTime", r, &x->modification_time);
    x->data_change = get_bool(s, "dataChange", r, true);
    TRY(get_str(c, s, "stats", r, &x->stats));
    return get_dv(c, s, r, &x->dv_id);
  }
  if (strcmp(name, "remove") == 0) {
    a->kind = DELTA_ACTION_REMOVE;
    delta_remove *x = &a->u.remove;
    TRY(resolve(c, s, r, "remove", &x->path));
    x->deletion_timestamp = -1;
    x->size = -1;
    get_i64(s, "deletionTimestamp", r, &x->deletion_timestamp);
    get_i64(s, "size", r, &x->size);
    x->data_change = get_bool(s, "dataChange", r, true);
    return get_dv(c, s, r, &x->dv_id);
  }
  if (strcmp(name, "metaData") == 0) {
    a->kind = DELTA_ACTION_METADATA;
    delta_metadata *m = &a->u.metadata;
    m->created_time = -1;
    TRY(get_str(c, s, "id", r, &m->id));
    if (!m->id) return cp_bad(c, "metaData.id missing");
    TRY(get_str(c, s, "name", r, &m->name));
    TRY(get_str(c, s, "description", r, &m->description));
    TRY(get_str(c, s, "schemaString", r, &m->schema_string));
    sview fmt;
    if (child(s, "format", &fmt) && inlet_array_is_valid(fmt.a, r))
      TRY(get_str(c, fmt, "provider", r, &m->format));
    TRY(get_strv(c, s, "partitionColumns", r, &m->partition_columns, &m->n_partition_columns));
    TRY(get_map(c, s, "configuration", r, &m->configuration, &m->n_configuration));
    get_i64(s, "createdTime", r, &m->created_time);
    return 0;
  }
  if (strcmp(name, "protocol") == 0) {
    a->kind = DELTA_ACTION_PROTOCOL;
    delta_protocol *p = &a->u.protocol;
    int64_t rv, wv;
    if (!get_i64(s, "minReaderVersion", r, &rv) || !get_i64(s, "minWriterVersion", r, &wv) ||
        rv < 0 || rv > INT32_MAX || wv < 0 || wv > INT32_MAX)
      return cp_bad(c, "protocol versions missing or out of range");
    p->min_reader = (int32_t)rv;
    p->min_writer = (int32_t)wv;
    TRY(get_strv(c, s, "readerFeatures", r, &p->reader_features, &p->n_reader_features));
    return get_strv(c, s, "writerFeatures", r, &p->writer_features, &p->n_writer_features);
  }
  if (strcmp(name, "txn") == 0) {
    a->kind = DELTA_ACTION_TXN;
    TRY(get_str(c, s, "appId", r, &a->u.txn.app_id));
    if (!a->u.txn.app_id || !get_i64(s, "version", r, &a->u.txn.version))
      return cp_bad(c, "txn without appId or version");
    a->u.txn.last_updated = -1;
    get_i64(s, "lastUpdated", r, &a->u.txn.last_updated);
    return 0;
  }
  if (strcmp(name, "domainMetadata") == 0) {
    a->kind = DELTA_ACTION_DOMAIN;
    TRY(get_str(c, s, "domain", r, &a->u.domain.domain));
    TRY(get_str(c, s, "configuration", r, &a->u.domain.configuration));
    if (!a->u.domain.domain || !a->u.domain.configuration)
      return cp_bad(c, "domainMetadata without domain or configuration");
    a->u.domain.removed = get_bool(s, "removed", r, false);
    return 0;
  }
  return 0;
}

static const char *const KINDS[] = {"protocol", "metaData", "txn", "domainMetadata",
                                    "add",      "remove",   "sidecar", NULL};

static int read_part(const char *root_abs, const char *name, delta_replay_fn fn, void *ctx,
                     inlet_error *err) {
  char *path = delta_join_path(root_abs, name);
  if (!path) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  inlet_parquet_reader *rd = NULL;
  inlet_batch b;
  memset(&b, 0, sizeof b);
  int rc = inlet_parquet_reader_open(&rd, path, NULL, err);
  if (rc < 0) goto done;
  const inlet_schema *fs = inlet_parquet_reader_schema(rd);
  int32_t proj[8], names[8], np = 0;
  for (int k = 0; KINDS[k]; k++) {
    int i = inlet_schema_find(fs, KINDS[k]);
    if (i < 0) continue;
    FAIL_GOTO(fs->fields[i].type.id != INLET_TYPE_STRUCT, err, INLET_ECORRUPT,
              "corrupt checkpoint %s: column \"%s\" is not a struct", name, KINDS[k]);
    proj[np] = i;
    names[np++] = k;
  }
  if ((rc = inlet_parquet_reader_project(rd, proj, np, err)) < 0) goto done;
  cp_ctx c = {name, 0, 0, {name, 0, root_abs}, err};
  for (int32_t g = 0; g < inlet_parquet_reader_num_row_groups(rd); g++) {
    rc = inlet_parquet_reader_read_row_group(rd, g, &b, err);
    if (rc < 0) goto done;
    c.row_group = g;
    for (int64_t r = 0; r < b.num_rows; r++) {
      c.row = r;
      for (int32_t k = 0; k < np; k++) {
        const char *kind = KINDS[names[k]];
        sview s = {&b.schema.fields[k], &b.columns[k]};
        if (!inlet_array_is_valid(s.a, r)) continue;
        FAIL_GOTO(strcmp(kind, "sidecar") == 0, err, INLET_EUNSUPPORTED,
                  "checkpoint %s uses sidecar files (v2 checkpoints)", name);
        delta_action a;
        rc = row_action(&c, kind, s, r, &a);
        if (rc == 0 && a.kind != DELTA_ACTION_NONE) rc = fn(ctx, &a, err);
        delta_action_reset(&a);
        if (rc < 0) goto done;
      }
    }
  }
done:
  inlet_batch_reset(&b);
  inlet_parquet_reader_free(rd);
  inlet_free(path);
  return rc;
}

int delta_checkpoint_read(inlet_storage *st, const char *root_abs, const delta_checkpoint_ref *cp,
                          delta_replay_fn fn, void *ctx, inlet_error *err) {
  (void)st;
  if (cp->v2)
    return inlet_fail(err, INLET_EUNSUPPORTED, "reading the v2 checkpoint at version %lld is not "
                      "supported yet", (long long)cp->version);
  char name[128];
  if (cp->parts <= 1) {
    snprintf(name, sizeof name, "_delta_log/%020lld.checkpoint.parquet", (long long)cp->version);
    return read_part(root_abs, name, fn, ctx, err);
  }
  for (int32_t p = 1; p <= cp->parts; p++) {
    snprintf(name, sizeof name, "_delta_log/%020lld.checkpoint.%010d.%010d.parquet",
             (long long)cp->version, (int)p, (int)cp->parts);
    TRY(read_part(root_abs, name, fn, ctx, err));
  }
  return 0;
}

/* ---- writing ------------------------------------------------------------------ */

/* The classic checkpoint schema as Spark writes it (PROTOCOL.md "Checkpoint
 * Schema"); stats stay a JSON string. Every row sets exactly one column. */
static const char CHECKPOINT_DDL[] =
    "txn struct<appId:string,version:long,lastUpdated:long>, "
    "add struct<path:string,partitionValues:map<string,string>,size:long,modificationTime:long,"
    "dataChange:boolean,tags:map<string,string>,stats:string>, "
    "remove struct<path:string,deletionTimestamp:long,dataChange:boolean,"
    "extendedFileMetadata:boolean,partitionValues:map<string,string>,size:long>, "
    "metaData struct<id:string,name:string,description:string,"
    "format:struct<provider:string,options:map<string,string>>,schemaString:string,"
    "partitionColumns:array<string>,configuration:map<string,string>,createdTime:long>, "
    "protocol struct<minReaderVersion:int,minWriterVersion:int,readerFeatures:array<string>,"
    "writerFeatures:array<string>>, "
    "domainMetadata struct<domain:string,configuration:string,removed:boolean>";

enum { COL_TXN, COL_ADD, COL_REMOVE, COL_META, COL_PROTOCOL, COL_DOMAIN, N_COLS };
#define CP_BATCH_ROWS 8192

static int put_str(inlet_array *a, const inlet_field *f, const char *s, inlet_error *err) {
  if (!s) return inlet_array_append_null(a, f, err);
  return inlet_array_append_bytes(a, f, s, strlen(s), err);
}

static int put_i64(inlet_array *a, const inlet_field *f, int64_t v, bool valid, inlet_error *err) {
  return valid ? inlet_array_append_int(a, f, v, err) : inlet_array_append_null(a, f, err);
}

static int put_map(inlet_array *a, const inlet_field *f, const delta_kv *kv, int32_t n,
                   bool valid, inlet_error *err) {
  if (!valid) return inlet_array_append_null(a, f, err);
  inlet_array *ent = &a->children[0];
  const inlet_field *ef = &f->children[0];
  for (int32_t i = 0; i < n; i++) {
    TRY(put_str(&ent->children[0], &ef->children[0], kv[i].key, err));
    TRY(put_str(&ent->children[1], &ef->children[1], kv[i].value, err));
    TRY(inlet_array_append_struct_entry(ent, err));
  }
  return inlet_array_append_list_entry(a, err);
}

static int put_strv(inlet_array *a, const inlet_field *f, char *const *v, int32_t n, bool valid,
                    inlet_error *err) {
  if (!valid) return inlet_array_append_null(a, f, err);
  for (int32_t i = 0; i < n; i++) TRY(put_str(&a->children[0], &f->children[0], v[i], err));
  return inlet_array_append_list_entry(a, err);
}

/* Appends one row: column @p col gets the action, the others null. The
 * callback fills the struct's children (in schema order). */
typedef int (*fill_fn)(inlet_array *a, const inlet_field *f, const void *x, inlet_error *err);

static int put_row(inlet_batch *b, int col, fill_fn fill, const void *x, inlet_error *err) {
  for (int c = 0; c < N_COLS; c++) {
    inlet_array *a = &b->columns[c];
    const inlet_field *f = &b->schema.fields[c];
    if (c != col) {
      TRY(inlet_array_append_null(a, f, err));
      continue;
    }
    TRY(fill(a, f, x, err));
    TRY(inlet_array_append_struct_entry(a, err));
  }
  b->num_rows++;
  return 0;
}

static int fill_protocol(inlet_array *a, const inlet_field *f, const void *x, inlet_error *err) {
  const delta_protocol *p = x;
  TRY(inlet_array_append_int(&a->children[0], &f->children[0], p->min_reader, err));
  TRY(inlet_array_append_int(&a->children[1], &f->children[1], p->min_writer, err));
  TRY(put_strv(&a->children[2], &f->children[2], p->reader_features, p->n_reader_features,
               p->reader_features != NULL, err));
  return put_strv(&a->children[3], &f->children[3], p->writer_features, p->n_writer_features,
                  p->writer_features != NULL, err);
}

static int fill_metadata(inlet_array *a, const inlet_field *f, const void *x, inlet_error *err) {
  const delta_metadata *m = x;
  TRY(put_str(&a->children[0], &f->children[0], m->id, err));
  TRY(put_str(&a->children[1], &f->children[1], m->name, err));
  TRY(put_str(&a->children[2], &f->children[2], m->description, err));
  inlet_array *fmt = &a->children[3];
  const inlet_field *ff = &f->children[3];
  TRY(put_str(&fmt->children[0], &ff->children[0], m->format ? m->format : "parquet", err));
  TRY(put_map(&fmt->children[1], &ff->children[1], NULL, 0, true, err));
  TRY(inlet_array_append_struct_entry(fmt, err));
  TRY(put_str(&a->children[4], &f->children[4], m->schema_string, err));
  TRY(put_strv(&a->children[5], &f->children[5], m->partition_columns, m->n_partition_columns,
               true, err));
  TRY(put_map(&a->children[6], &f->children[6], m->configuration, m->n_configuration, true, err));
  return put_i64(&a->children[7], &f->children[7], m->created_time, m->created_time >= 0, err);
}

static int fill_txn(inlet_array *a, const inlet_field *f, const void *x, inlet_error *err) {
  const delta_txn_entry *t = x;
  TRY(put_str(&a->children[0], &f->children[0], t->app_id, err));
  TRY(inlet_array_append_int(&a->children[1], &f->children[1], t->version, err));
  return put_i64(&a->children[2], &f->children[2], t->last_updated, t->last_updated >= 0, err);
}

static int fill_domain(inlet_array *a, const inlet_field *f, const void *x, inlet_error *err) {
  const delta_domain *d = x;
  TRY(put_str(&a->children[0], &f->children[0], d->domain, err));
  TRY(put_str(&a->children[1], &f->children[1], d->configuration, err));
  return inlet_array_append_bool(&a->children[2], d->removed, err);
}

static int fill_add(inlet_array *a, const inlet_field *f, const void *x, inlet_error *err) {
  const delta_add *ad = x;
  char *enc = delta_path_encode(ad->path);
  if (!enc) return inlet_fail(err, INLET_ENOMEM, "out of memory writing checkpoint");
  int rc = put_str(&a->children[0], &f->children[0], enc, err);
  inlet_free(enc);
  TRY(rc);
  TRY(put_map(&a->children[1], &f->children[1], ad->partition_values, ad->n_partition_values,
              true, err));
  TRY(inlet_array_append_int(&a->children[2], &f->children[2], ad->size, err));
  TRY(inlet_array_append_int(&a->children[3], &f->children[3], ad->modification_time, err));
  /* A checkpoint is a state, not a change (Spark writes dataChange=false). */
  TRY(inlet_array_append_bool(&a->children[4], false, err));
  TRY(put_map(&a->children[5], &f->children[5], NULL, 0, false, err));
  return put_str(&a->children[6], &f->children[6], ad->stats, err);
}

static int fill_remove(inlet_array *a, const inlet_field *f, const void *x, inlet_error *err) {
  const delta_remove *rm = x;
  char *enc = delta_path_encode(rm->path);
  if (!enc) return inlet_fail(err, INLET_ENOMEM, "out of memory writing checkpoint");
  int rc = put_str(&a->children[0], &f->children[0], enc, err);
  inlet_free(enc);
  TRY(rc);
  TRY(put_i64(&a->children[1], &f->children[1], rm->deletion_timestamp,
              rm->deletion_timestamp >= 0, err));
  TRY(inlet_array_append_bool(&a->children[2], false, err));
  TRY(inlet_array_append_bool(&a->children[3], rm->extended_file_metadata, err));
  TRY(put_map(&a->children[4], &f->children[4], rm->partition_values, rm->n_partition_values,
              true, err));
  return put_i64(&a->children[5], &f->children[5], rm->size, rm->size >= 0, err);
}

static int flush(inlet_parquet_writer *pw, inlet_batch *b, const inlet_schema *s, inlet_error *err) {
  if (b->num_rows == 0) return 0;
  TRY(inlet_parquet_writer_write(pw, b, err));
  inlet_batch_reset(b);
  return inlet_batch_init(b, s, err);
}

int delta_checkpoint_write(inlet_storage *st, const delta_snapshot *snap, inlet_error *err) {
  TRY(delta_features_check_write(&snap->protocol, &snap->metadata, DELTA_OP_CHECKPOINT, 0, err));
  for (int64_t i = 0; i < snap->n_files; i++)
    FAIL_IF(snap->files[i].add.dv_id, err, INLET_EUNSUPPORTED,
            "cannot checkpoint a table with deletion vectors yet");
  inlet_schema cs;
  TRY(inlet_schema_parse(&cs, CHECKPOINT_DDL, err));
  char tmp_rel[128], final_rel[128];
  snprintf(tmp_rel, sizeof tmp_rel, "_delta_log/.tmp-%020lld-%016llx.checkpoint.parquet",
           (long long)snap->version, (unsigned long long)delta_random_u64());
  snprintf(final_rel, sizeof final_rel, "_delta_log/%020lld.checkpoint.parquet",
           (long long)snap->version);
  char *tmp_abs = delta_join_path(st->root, tmp_rel);
  inlet_parquet_writer *pw = NULL;
  inlet_batch b;
  memset(&b, 0, sizeof b);
  int rc = tmp_abs ? 0 : inlet_fail(err, INLET_ENOMEM, "out of memory");
  if (rc == 0) rc = inlet_batch_init(&b, &cs, err);
  inlet_parquet_writer_options po = INLET_PARQUET_WRITER_OPTIONS_INIT;
  po.sync_on_close = true;
  if (rc == 0) rc = inlet_parquet_writer_open(&pw, tmp_abs, &cs, &po, err);
  int64_t actions = 0;
  if (rc == 0) rc = put_row(&b, COL_PROTOCOL, fill_protocol, &snap->protocol, err);
  if (rc == 0) rc = put_row(&b, COL_META, fill_metadata, &snap->metadata, err);
  actions += 2;
  for (int64_t i = 0; rc == 0 && i < snap->n_txns; i++, actions++)
    rc = put_row(&b, COL_TXN, fill_txn, &snap->txns[i], err);
  for (int64_t i = 0; rc == 0 && i < snap->n_domains; i++, actions++)
    rc = put_row(&b, COL_DOMAIN, fill_domain, &snap->domains[i], err);
  for (int64_t i = 0; rc == 0 && i < snap->n_files; i++, actions++) {
    rc = put_row(&b, COL_ADD, fill_add, &snap->files[i].add, err);
    if (rc == 0 && b.num_rows >= CP_BATCH_ROWS) rc = flush(pw, &b, &cs, err);
  }
  /* Tombstones within the retention period, so VACUUM by any engine keeps
   * files that time travel may still need. */
  for (int64_t i = 0; rc == 0 && i < snap->n_tombstones; i++, actions++) {
    rc = put_row(&b, COL_REMOVE, fill_remove, &snap->tombstones[i], err);
    if (rc == 0 && b.num_rows >= CP_BATCH_ROWS) rc = flush(pw, &b, &cs, err);
  }
  if (rc == 0) rc = flush(pw, &b, &cs, err);
  if (rc == 0) rc = inlet_parquet_writer_close(pw, err);
  int64_t bytes = rc == 0 ? inlet_parquet_writer_bytes(pw) : 0;
  if (rc == 0) {
    inlet_parquet_writer_free(pw);
    pw = NULL;
    /* Same version, same content: replacing an existing checkpoint is safe. */
    rc = st->ops->replace(st, tmp_rel, final_rel, err);
  }
  if (rc == 0) {
    /* _last_checkpoint is a hint: written after the checkpoint is complete. */
    char hint[256], htmp[128];
    int n = snprintf(hint, sizeof hint,
                     "{\"version\":%lld,\"size\":%lld,\"sizeInBytes\":%lld,\"numOfAddFiles\":%lld}\n",
                     (long long)snap->version, (long long)actions, (long long)bytes,
                     (long long)snap->n_files);
    snprintf(htmp, sizeof htmp, "_delta_log/.tmp-last-checkpoint-%016llx",
             (unsigned long long)delta_random_u64());
    inlet_wfile *wf = NULL;
    rc = st->ops->create(st, htmp, &wf, err);
    if (rc == 0) {
      rc = inlet_wfile_append(wf, hint, (size_t)n, err);
      int rc2 = inlet_wfile_close(wf, true, err);
      if (rc == 0) rc = rc2;
    }
    if (rc == 0) rc = st->ops->replace(st, htmp, "_delta_log/_last_checkpoint", err);
    if (rc < 0) {
      inlet_error ignore = INLET_ERROR_INIT;
      st->ops->remove(st, htmp, &ignore);
    }
  }
  inlet_parquet_writer_free(pw); /* removes a partial file */
  if (rc < 0) {
    inlet_error ignore = INLET_ERROR_INIT;
    st->ops->remove(st, tmp_rel, &ignore);
  }
  inlet_batch_reset(&b);
  inlet_schema_reset(&cs);
  inlet_free(tmp_abs);
  return rc;
}
