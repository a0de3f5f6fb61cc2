/*
 * Reading classic checkpoints (single-file and multi-part) into replay
 * actions, every field of every action kept (writing: delta_checkpoint_write.c).
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
 * Every field the protocol gives an action is carried into the snapshot
 * (add/remove tags, deletionVector with all its fields, baseRowId,
 * defaultRowCommitVersion, clusteringProvider, metaData format options), so
 * a checkpoint written from it loses nothing another writer put there. An
 * add whose `stats` string is absent but whose typed `stats_parsed` is
 * present (a table with delta.checkpoint.writeStatsAsJson=false) gets its
 * stats back as JSON text.
 *
 * The file is read through the public Parquet reader, one row group at a
 * time (memory bounded by a row group, not the checkpoint).
 */
#include <jansson.h>
#include <stdio.h>
#include <strings.h>

#include "delta/delta_features.h"
#include "delta/delta_table_int.h"
#include "parquet/pq_reader.h"
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
    if (!(*out)[*n - 1])
      return inlet_fail(c->err, INLET_ENOMEM, "out of memory reading checkpoint");
  }
  return 0;
}

/* map<string,string> -> JSON object text (tags). */
static int get_map_json(cp_ctx *c, sview s, const char *name, int64_t r, char **out) {
  delta_kv *kv = NULL;
  int32_t n = 0;
  *out = NULL;
  sview m;
  if (!child(s, name, &m) || !inlet_array_is_valid(m.a, r)) return 0;
  int rc = get_map(c, s, name, r, &kv, &n);
  json_t *o = rc == 0 ? json_object() : NULL;
  for (int32_t i = 0; o && i < n; i++)
    json_object_set_new(o, kv[i].key, kv[i].value ? json_string(kv[i].value) : json_null());
  for (int32_t i = 0; i < n; i++) {
    inlet_free(kv[i].key);
    inlet_free(kv[i].value);
  }
  inlet_free(kv);
  if (rc < 0) return rc;
  char *txt = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
  json_decref(o);
  *out = txt ? inlet_strdup(txt) : NULL;
  free(txt);
  return *out ? 0 : inlet_fail(c->err, INLET_ENOMEM, "out of memory reading checkpoint");
}

/* An optional long: *has false when the column or value is absent. */
static void get_opt_i64(sview s, const char *name, int64_t r, bool *has, int64_t *out) {
  *out = 0;
  *has = get_i64(s, name, r, out);
}

static int get_dv(cp_ctx *c, sview s, int64_t r, char **id, char **json) {
  sview dv;
  *id = NULL;
  *json = NULL;
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
    if (!*id)
      rc = inlet_fail(c->err, INLET_ENOMEM, "out of memory reading checkpoint");
    else if (has_off)
      snprintf(*id, n, "%s%s@%lld", st, pi, (long long)off);
    else
      snprintf(*id, n, "%s%s", st, pi);
  }
  inlet_free(st);
  inlet_free(pi);
  /* The whole descriptor (sizeInBytes, cardinality, maxRowIndex, ...) as
   * the JSON object a commit would hold. */
  if (rc == 0) rc = delta_stats_struct_to_json(json, dv.f, dv.a, r, c->err);
  return rc;
}

/* add.stats, or the JSON text of add.stats_parsed when only that exists. */
static int get_stats(cp_ctx *c, sview s, int64_t r, char **out) {
  TRY(get_str(c, s, "stats", r, out));
  sview sp;
  if (*out || !child(s, "stats_parsed", &sp) || sp.f->type.id != INLET_TYPE_STRUCT) return 0;
  return delta_stats_struct_to_json(out, sp.f, sp.a, r, c->err);
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
    if (!get_i64(s, "size", r, &x->size) || x->size < 0)
      return cp_bad(c, "add.size missing or negative");
    get_i64(s, "modificationTime", r, &x->modification_time);
    x->data_change = get_bool(s, "dataChange", r, true);
    TRY(get_stats(c, s, r, &x->stats));
    TRY(get_map_json(c, s, "tags", r, &x->tags));
    get_opt_i64(s, "baseRowId", r, &x->has_base_row_id, &x->base_row_id);
    get_opt_i64(s, "defaultRowCommitVersion", r, &x->has_default_row_commit_version,
                &x->default_row_commit_version);
    TRY(get_str(c, s, "clusteringProvider", r, &x->clustering_provider));
    return get_dv(c, s, r, &x->dv_id, &x->dv_json);
  }
  if (strcmp(name, "remove") == 0) {
    a->kind = DELTA_ACTION_REMOVE;
    delta_remove *x = &a->u.remove;
    TRY(resolve(c, s, r, "remove", &x->path));
    x->deletion_timestamp = -1;
    x->size = -1;
    get_i64(s, "deletionTimestamp", r, &x->deletion_timestamp);
    get_i64(s, "size", r, &x->size);
    if (x->size < -1) return cp_bad(c, "remove.size is negative");
    x->data_change = get_bool(s, "dataChange", r, true);
    x->extended_file_metadata = get_bool(s, "extendedFileMetadata", r, false);
    TRY(get_map(c, s, "partitionValues", r, &x->partition_values, &x->n_partition_values));
    TRY(get_stats(c, s, r, &x->stats));
    TRY(get_map_json(c, s, "tags", r, &x->tags));
    get_opt_i64(s, "baseRowId", r, &x->has_base_row_id, &x->base_row_id);
    get_opt_i64(s, "defaultRowCommitVersion", r, &x->has_default_row_commit_version,
                &x->default_row_commit_version);
    return get_dv(c, s, r, &x->dv_id, &x->dv_json);
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
    if (child(s, "format", &fmt) && inlet_array_is_valid(fmt.a, r)) {
      TRY(get_str(c, fmt, "provider", r, &m->format));
      TRY(get_map(c, fmt, "options", r, &m->format_options, &m->n_format_options));
    }
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

static const char *const KINDS[] = {"protocol", "metaData", "txn",     "domainMetadata",
                                    "add",      "remove",   "sidecar", NULL};

static int read_part(inlet_storage *st, const char *root_abs, const char *name, int64_t size,
                     delta_replay_fn fn, void *ctx, inlet_error *err) {
  inlet_parquet_reader *rd = NULL;
  inlet_batch b;
  memset(&b, 0, sizeof b);
  int rc = pq_reader_open_storage(&rd, st, name, size, NULL, err);
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
  return rc;
}

int delta_checkpoint_read(inlet_storage *st, const char *root_abs, const delta_checkpoint_ref *cp,
                          delta_replay_fn fn, void *ctx, inlet_error *err) {
  if (cp->v2)
    return inlet_fail(err, INLET_EUNSUPPORTED,
                      "reading the v2 checkpoint at version %lld is not "
                      "supported yet",
                      (long long)cp->version);
  char name[128];
  if (cp->parts <= 1) {
    snprintf(name, sizeof name, "_delta_log/%020lld.checkpoint.parquet", (long long)cp->version);
    return read_part(st, root_abs, name, -1, fn, ctx, err);
  }
  for (int32_t p = 1; p <= cp->parts; p++) {
    snprintf(name, sizeof name, "_delta_log/%020lld.checkpoint.%010d.%010d.parquet",
             (long long)cp->version, (int)p, (int)cp->parts);
    TRY(read_part(st, root_abs, name, -1, fn, ctx, err));
  }
  return 0;
}
