/*
 * Reading classic checkpoints (single-file and multi-part) into replay
 * actions, every field of every action kept (writing: delta_checkpoint_write.c).
 *
 * Spec: PROTOCOL.md "Checkpoints", "Checkpoint Naming Scheme" (classic
 * `n.checkpoint.parquet`, multi-part `n.checkpoint.o.p.parquet`, UUID-named
 * `n.checkpoint.<uuid>.{json,parquet}`), "Sidecar Files", "V2 Spec" and
 * "Checkpoint Schema": one row per action, with nullable top-level struct
 * columns txn, add, remove, metaData, protocol, domainMetadata, and for
 * v2 checkpoints checkpointMetadata and sidecar. A sidecar action names a
 * Parquet file in `_delta_log/_sidecars/` holding file actions (add,
 * remove); its actions are read after the checkpoint's own, in the order
 * the checkpoint lists them. A sidecar the checkpoint names that is missing
 * or unreadable makes the checkpoint corrupt (INLET_ECORRUPT naming both):
 * the snapshot loader then passes it over like any unreadable checkpoint.
 * A sidecar may be named by its bare file name (what writers should store)
 * or by a path ending in `_delta_log/_sidecars/<name>`; anything else could
 * point outside the table and is refused. Map columns
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
#include <string.h>
#include <strings.h>

#include "delta/delta_features.h"
#include "delta/delta_table_int.h"
#include "delta/delta_replay_par.h"
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

/* A string of the log: what the JSON form of the same action could hold
 * (valid UTF-8 without NUL bytes), so an action read here writes back to a
 * commit line and parses again as itself. */
static int cp_text(cp_ctx *c, const inlet_array *a, int32_t j, const char *name, char **out) {
  int32_t lo = a->offsets[j], hi = a->offsets[j + 1];
  const uint8_t *p = a->values + lo;
  size_t n = (size_t)(hi - lo);
  char what[160];
  if (memchr(p, 0, n)) {
    snprintf(what, sizeof what, "%s contains a NUL byte", name);
    return cp_bad(c, what);
  }
  if (!inlet_utf8_valid(p, n)) {
    snprintf(what, sizeof what, "%s is not valid UTF-8", name);
    return cp_bad(c, what);
  }
  *out = inlet_strndup((const char *)p, n);
  return *out ? 0 : inlet_fail(c->err, INLET_ENOMEM, "out of memory reading checkpoint");
}

static int get_str(cp_ctx *c, sview s, const char *name, int64_t r, char **out) {
  sview v;
  *out = NULL;
  if (!child(s, name, &v) || !inlet_array_is_valid(v.a, r)) return 0;
  if (v.f->type.id != INLET_TYPE_STRING && v.f->type.id != INLET_TYPE_BINARY)
    return cp_bad(c, "string field has another type");
  return cp_text(c, v.a, (int32_t)r, name, out);
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
    int rc = cp_text(c, ka, j, name, &kv->key);
    if (rc == 0 && inlet_array_is_valid(va, j)) rc = cp_text(c, va, j, name, &kv->value);
    if (rc < 0) return rc;
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
    int rc = cp_text(c, e, j, name, &(*out)[*n]);
    if (rc < 0) return rc;
    (*n)++;
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

/* The sidecar files a v2 checkpoint names, in its order. */
typedef struct sidecar_list {
  int64_t n, cap;
  char **names;   /* owned: file names inside _delta_log/_sidecars */
  int64_t *sizes; /* sizeInBytes, -1 when absent */
} sidecar_list;

static void sidecar_list_reset(sidecar_list *l) {
  for (int64_t i = 0; i < l->n; i++)
    inlet_free(l->names[i]);
  inlet_free(l->names);
  inlet_free(l->sizes);
  memset(l, 0, sizeof *l);
}

/* Adds the sidecar @p path (as the action holds it) from checkpoint @p file. */
static int sidecar_add(sidecar_list *l, const char *file, const char *path, int64_t size,
                       inlet_error *err) {
  const char *base = path;
  const char *dir = strstr(path, "_delta_log/_sidecars/");
  if (strchr(path, '/')) base = dir ? dir + strlen("_delta_log/_sidecars/") : "";
  FAIL_IF(!*base || strchr(base, '/') || base[0] == '.' || strlen(base) > 200, err, INLET_ECORRUPT,
          "corrupt checkpoint %s: sidecar path \"%.120s\" is not a file in _delta_log/_sidecars",
          file, path);
  if (l->n == l->cap) {
    int64_t cap = l->cap ? l->cap * 2 : 8;
    char **nm = inlet_realloc(l->names, (size_t)cap * sizeof *nm);
    if (nm) l->names = nm;
    int64_t *sz = nm ? inlet_realloc(l->sizes, (size_t)cap * sizeof *sz) : NULL;
    if (sz) l->sizes = sz;
    if (!nm || !sz) return inlet_fail(err, INLET_ENOMEM, "out of memory reading checkpoint");
    l->cap = cap;
  }
  l->names[l->n] = inlet_strdup(base);
  if (!l->names[l->n]) return inlet_fail(err, INLET_ENOMEM, "out of memory reading checkpoint");
  l->sizes[l->n++] = size;
  return 0;
}

/* A sidecar row of a Parquet checkpoint into @p l. */
static int row_sidecar(cp_ctx *c, sview s, int64_t r, sidecar_list *l) {
  char *path = NULL;
  TRY(get_str(c, s, "path", r, &path));
  if (!path) return cp_bad(c, "sidecar without path");
  int64_t size = -1;
  if (!get_i64(s, "sizeInBytes", r, &size) || size < 0) size = -1;
  int rc = sidecar_add(l, c->file, path, size, c->err);
  inlet_free(path);
  return rc;
}

/* Reads checkpoint file @p name (Parquet). Its sidecar actions go to @p sc;
 * NULL (a sidecar file itself) makes one corrupt. @p fn NULL: only the
 * sidecar column is read. */
static int read_part(inlet_storage *st, const char *root_abs, const char *name, int64_t size,
                     delta_replay_fn fn, void *ctx, sidecar_list *sc, inlet_error *err) {
  inlet_parquet_reader *rd = NULL;
  inlet_batch b;
  memset(&b, 0, sizeof b);
  int rc = pq_reader_open_storage(&rd, st, name, size, NULL, err);
  if (rc < 0) goto done;
  const inlet_schema *fs = inlet_parquet_reader_schema(rd);
  int32_t proj[8], names[8], np = 0;
  for (int k = 0; KINDS[k]; k++) {
    if (!fn && strcmp(KINDS[k], "sidecar") != 0) continue;
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
        if (strcmp(kind, "sidecar") == 0) {
          FAIL_GOTO(!sc, err, INLET_ECORRUPT,
                    "corrupt sidecar %s: row group %d row %lld is a sidecar action", name, (int)g,
                    (long long)r);
          if ((rc = row_sidecar(&c, s, r, sc)) < 0) goto done;
          continue;
        }
        if (!fn) continue;
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

/* The sidecar actions of JSON checkpoint @p name into @p l: the line
 * reader (delta_log_read_file) passes over actions it does not model, so
 * the sidecar lines are picked out here. */
static int json_sidecars(inlet_storage *st, const char *name, sidecar_list *l, inlet_error *err) {
  uint8_t *buf = NULL;
  size_t len = 0;
  TRY(st->ops->get_bytes(st, name, (size_t)1 << 30, &buf, &len, err));
  int rc = 0;
  int64_t lineno = 0;
  for (size_t a = 0; a < len && rc == 0;) {
    size_t b = a;
    while (b < len && buf[b] != '\n')
      b++;
    lineno++;
    /* Cheap filter: only lines that can be a sidecar action are parsed. */
    if (b > a && memmem(buf + a, b - a, "\"sidecar\"", 9)) {
      json_t *o = json_loadb((const char *)buf + a, b - a, 0, NULL);
      json_t *sa = json_object_get(o, "sidecar");
      if (sa) {
        json_t *p = json_object_get(sa, "path"), *z = json_object_get(sa, "sizeInBytes");
        if (!json_is_string(p))
          rc = inlet_fail(err, INLET_ECORRUPT,
                          "corrupt checkpoint %s line %lld: sidecar without path", name,
                          (long long)lineno);
        else
          rc = sidecar_add(
              l, name, json_string_value(p),
              json_is_integer(z) && json_integer_value(z) >= 0 ? json_integer_value(z) : -1, err);
      }
      json_decref(o);
    }
    a = b + 1;
  }
  inlet_free(buf);
  return rc;
}

/* Reads the file actions of every sidecar in @p l, for checkpoint @p cp_name. */
static int read_sidecars(inlet_storage *st, const char *root_abs, const char *cp_name,
                         const sidecar_list *l, delta_replay_fn fn, void *ctx, inlet_error *err) {
  for (int64_t i = 0; i < l->n; i++) {
    char path[256];
    snprintf(path, sizeof path, "_delta_log/_sidecars/%s", l->names[i]);
    inlet_error e1 = INLET_ERROR_INIT;
    int rc = read_part(st, root_abs, path, -1, fn, ctx, NULL, &e1);
    if (rc == INLET_ENOTFOUND)
      return inlet_fail(err, INLET_ECORRUPT, "corrupt checkpoint %s: its sidecar %s is missing",
                        cp_name, path);
    if (rc < 0)
      return inlet_fail(err, rc == INLET_ENOMEM || rc == INLET_EIO ? rc : INLET_ECORRUPT,
                        "checkpoint %s: sidecar %s: %s", cp_name, path, inlet_errmsg(&e1));
  }
  return 0;
}

/* Reads the checkpoint's own file(s): actions to @p fn (NULL: none), its
 * sidecar actions into @p sc. @p name receives the last file's name. */
static int read_top(inlet_storage *st, const char *root_abs, const delta_checkpoint_ref *cp,
                    delta_replay_fn fn, void *ctx, sidecar_list *sc, char name[160],
                    inlet_error *err) {
  if (cp->v2) {
    size_t n = strlen(cp->name);
    FAIL_IF(n < 5, err, INLET_ECORRUPT, "v2 checkpoint of version %lld has no file name",
            (long long)cp->version);
    snprintf(name, 160, "_delta_log/%s", cp->name);
    if (strcmp(cp->name + n - 5, ".json") == 0) {
      if (fn) TRY(delta_log_read_file(st, root_abs, name, fn, ctx, err));
      return json_sidecars(st, name, sc, err);
    }
    return read_part(st, root_abs, name, -1, fn, ctx, sc, err);
  }
  if (cp->parts <= 1) {
    snprintf(name, 160, "_delta_log/%020lld.checkpoint.parquet", (long long)cp->version);
    return read_part(st, root_abs, name, -1, fn, ctx, sc, err);
  }
  for (int32_t p = 1; p <= cp->parts; p++) {
    snprintf(name, 160, "_delta_log/%020lld.checkpoint.%010d.%010d.parquet", (long long)cp->version,
             (int)p, (int)cp->parts);
    TRY(read_part(st, root_abs, name, -1, fn, ctx, sc, err));
  }
  return 0;
}

/* Parallel reads (delta_checkpoint_read_par): the files of one checkpoint
 * decoded side by side, applied in the order a single thread reads them. */
typedef struct par_cp {
  inlet_storage *st;
  inlet_storage_handles *hs; /* owned: the handles the units read through */
  const char *root_abs;
  const delta_checkpoint_ref *cp;
  const sidecar_list *sc; /* the sidecars (sidecar units) */
  sidecar_list *part_sc;  /* owned: each part's sidecar actions (part units) */
  sidecar_list *out_sc;   /* the checkpoint's sidecars, parts' merged in order */
  const char *cp_name;    /* for the sidecars' messages */
  delta_replay_fn fn;
  void *ctx;
} par_cp;

static void part_name(char name[160], const delta_checkpoint_ref *cp, int32_t p) {
  snprintf(name, 160, "_delta_log/%020lld.checkpoint.%010d.%010d.parquet", (long long)cp->version,
           (int)p, (int)cp->parts);
}

static int read_part_unit(void *src, int64_t unit, delta_action_cb cb, void *cb_ctx,
                          inlet_error *err) {
  par_cp *p = src;
  char name[160];
  part_name(name, p->cp, (int32_t)unit + 1);
  inlet_storage *st;
  TRY(inlet_storage_handles_take(p->hs, &st, err));
  int rc = read_part(st, p->root_abs, name, -1, cb, cb_ctx, &p->part_sc[unit], err);
  inlet_storage_handles_give(p->hs, st);
  return rc;
}

static int use_part(void *dst, int64_t unit, int rc, const inlet_error *ue,
                    const delta_action_list *acts, inlet_error *err) {
  par_cp *p = dst;
  if (rc < 0) return inlet_fail(err, rc, "%s", inlet_errmsg(ue));
  TRY(delta_action_list_apply(acts, p->fn, p->ctx, err));
  const sidecar_list *l = &p->part_sc[unit];
  for (int64_t i = 0; i < l->n; i++)
    TRY(sidecar_add(p->out_sc, "", l->names[i], l->sizes[i], err));
  return 0;
}

static int read_sidecar_unit(void *src, int64_t unit, delta_action_cb cb, void *cb_ctx,
                             inlet_error *err) {
  par_cp *p = src;
  char path[256];
  snprintf(path, sizeof path, "_delta_log/_sidecars/%s", p->sc->names[unit]);
  inlet_storage *st;
  TRY(inlet_storage_handles_take(p->hs, &st, err));
  int rc = read_part(st, p->root_abs, path, -1, cb, cb_ctx, NULL, err);
  inlet_storage_handles_give(p->hs, st);
  return rc;
}

/* The errors of read_sidecars, for the unit's. */
static int use_sidecar(void *dst, int64_t unit, int rc, const inlet_error *ue,
                       const delta_action_list *acts, inlet_error *err) {
  par_cp *p = dst;
  if (rc == INLET_ENOTFOUND)
    return inlet_fail(err, INLET_ECORRUPT,
                      "corrupt checkpoint %s: its sidecar _delta_log/_sidecars/%s is missing",
                      p->cp_name, p->sc->names[unit]);
  if (rc < 0)
    return inlet_fail(err, rc == INLET_ENOMEM || rc == INLET_EIO ? rc : INLET_ECORRUPT,
                      "checkpoint %s: sidecar _delta_log/_sidecars/%s: %s", p->cp_name,
                      p->sc->names[unit], inlet_errmsg(ue));
  return delta_action_list_apply(acts, p->fn, p->ctx, err);
}

int delta_checkpoint_read_par(inlet_storage *st, const char *root_abs,
                              const delta_checkpoint_ref *cp, util_pool *pool, delta_replay_fn fn,
                              void *ctx, inlet_error *err) {
  char name[160];
  sidecar_list sc;
  memset(&sc, 0, sizeof sc);
  int threads = util_pool_threads(pool);
  if (threads > 0 && !inlet_storage_threads_ok(st)) threads = 0;
  par_cp p = {st, NULL, root_abs, cp, &sc, NULL, &sc, name, fn, ctx};
  if (threads > 0) TRY(inlet_storage_handles_new(&p.hs, st, err));
  int rc = 0;
  if (threads > 0 && !cp->v2 && cp->parts > 1) {
    /* Every part at once (each with its own sidecar list, merged in part
     * order); at most threads + 1 decoded parts held. */
    part_name(name, cp, cp->parts);
    p.part_sc = inlet_calloc((size_t)cp->parts, sizeof *p.part_sc);
    if (!p.part_sc) {
      inlet_storage_handles_free(p.hs);
      return inlet_fail(err, INLET_ENOMEM, "out of memory reading checkpoint");
    }
    rc = delta_replay_ordered(pool, cp->parts, threads + 1, read_part_unit, &p, use_part, &p, err);
    for (int32_t i = 0; i < cp->parts; i++)
      sidecar_list_reset(&p.part_sc[i]);
    inlet_free(p.part_sc);
  } else {
    rc = read_top(st, root_abs, cp, fn, ctx, &sc, name, err);
  }
  if (rc == 0 && threads > 0 && sc.n > 1)
    rc = delta_replay_ordered(pool, sc.n, threads + 1, read_sidecar_unit, &p, use_sidecar, &p, err);
  else if (rc == 0)
    rc = read_sidecars(st, root_abs, name, &sc, fn, ctx, err);
  sidecar_list_reset(&sc);
  inlet_storage_handles_free(p.hs);
  return rc;
}

int delta_checkpoint_read(inlet_storage *st, const char *root_abs, const delta_checkpoint_ref *cp,
                          delta_replay_fn fn, void *ctx, inlet_error *err) {
  return delta_checkpoint_read_par(st, root_abs, cp, NULL, fn, ctx, err);
}

int delta_checkpoint_sidecars(char ***names, int64_t *n, inlet_storage *st,
                              const delta_checkpoint_ref *cp, inlet_error *err) {
  *names = NULL;
  *n = 0;
  char name[160];
  sidecar_list sc;
  memset(&sc, 0, sizeof sc);
  int rc = read_top(st, NULL, cp, NULL, NULL, &sc, name, err);
  if (rc < 0) {
    sidecar_list_reset(&sc);
    return rc;
  }
  *names = sc.names;
  *n = sc.n;
  inlet_free(sc.sizes);
  return 0;
}
