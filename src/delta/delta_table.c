/*
 * Public table API (include/inlet/table.h): create, open, snapshots and
 * their getters, history and describe. Writing lives in delta_write.c,
 * scanning in delta_scan.c.
 *
 * Spec: PROTOCOL.md "Change Metadata" and "Protocol Evolution" (version 0
 * of a new table: the protocol its schema and properties need, derived in
 * delta_features.c), "Commit Provenance Information" (history), "Table
 * Properties".
 */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "delta/delta_constraints.h"
#include "delta/delta_crc.h"
#include "delta/delta_features.h"
#include "delta/delta_dv.h"
#include "delta/delta_row_tracking.h"
#include "delta/delta_table_int.h"
#include "util/util.h"

char *delta_join_path(const char *root, const char *rel) {
  size_t a = strlen(root), b = strlen(rel);
  char *p = inlet_malloc(a + b + 2);
  if (!p) return NULL;
  memcpy(p, root, a);
  p[a] = '/';
  memcpy(p + a + 1, rel, b + 1);
  return p;
}

static void drop_cache(inlet_table *t) {
  delta_state_free(t->live);
  t->live = NULL;
  t->live_confirmed_ms = 0;
}

static int64_t monotonic_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 + 1; /* never 0 */
}

/* Brings the cache to version @p target (-1: the latest), from where it
 * stands when that is at or below the target, else from a fresh load. */
static int cache_at(inlet_table *t, int64_t target, inlet_error *err) {
  if (t->live && (target < 0 || target >= delta_state_version(t->live))) {
    inlet_error e1 = INLET_ERROR_INIT;
    if (delta_state_catch_up(t->live, t->st, t->root_abs, target, &e1) == 0) {
      if (target < 0) t->live_confirmed_ms = monotonic_ms();
      return 0;
    }
    /* A state half caught up is unusable; the fresh load below reports
     * whatever the problem is. */
  }
  drop_cache(t);
  int64_t started = monotonic_ms();
  int rc = delta_state_load_threads(&t->live, t->st, t->root_abs,
                                    target < 0 ? DELTA_SNAP_LATEST : DELTA_SNAP_VERSION, target,
                                    t->threads, err);
  /* The listing began after `started`: nothing newer existed then. */
  if (rc == 0 && target < 0) t->live_confirmed_ms = started;
  return rc;
}

int delta_table_load(inlet_table *t, delta_snapshot *out, delta_snap_mode mode, int64_t arg,
                     inlet_error *err) {
  bool cached = mode == DELTA_SNAP_LATEST ||
                (mode == DELTA_SNAP_VERSION && t->live && arg >= delta_state_version(t->live));
  if (!cached)
    return delta_snapshot_load_threads(out, t->st, t->root_abs, mode, arg, t->threads, err);
  int rc = cache_at(t, mode == DELTA_SNAP_LATEST ? -1 : arg, err);
  if (rc < 0) {
    memset(out, 0, sizeof *out);
    out->checkpoint_version = -1;
    return rc;
  }
  return delta_state_snapshot(t->live, out, false, err);
}

int delta_table_head(inlet_table *t, delta_snapshot *out, inlet_error *err) {
  int rc = cache_at(t, -1, err);
  if (rc < 0) {
    memset(out, 0, sizeof *out);
    out->checkpoint_version = -1;
    return rc;
  }
  return delta_state_head(t->live, out, err);
}

int64_t delta_table_head_window_ms(const delta_metadata *m) {
  int64_t retain =
      delta_interval_conf_ms(m, "delta.logRetentionDuration", DELTA_DEFAULT_LOG_RETAIN_MS);
  int64_t w = retain / 2, cap = 15 * 60 * 1000;
  return w < cap ? w : cap;
}

int delta_table_head_for_write(inlet_table *t, delta_snapshot *out, inlet_error *err) {
  /* Only where the conditional create is known to be enforced: on a store
   * that ignores it (single-writer mode) the probe is the only check left. */
  const unsigned fast = INLET_STORAGE_OBJECT_STORE | INLET_STORAGE_CONDITIONAL_VERIFIED;
  if ((t->st->flags & fast) == fast && t->live && t->live_confirmed_ms > 0) {
    int rc = delta_state_head(t->live, out, err);
    if (rc < 0) return rc;
    if (monotonic_ms() - t->live_confirmed_ms < delta_table_head_window_ms(&out->metadata))
      return 0;
    delta_snapshot_reset(out);
  }
  return delta_table_head(t, out, err);
}

void delta_table_note_commit(inlet_table *t, const delta_txn *txn, int64_t version) {
  int64_t committed = monotonic_ms(); /* the conditional create has just succeeded */
  if (!t->live) return;
  inlet_error e = INLET_ERROR_INIT;
  int rc = 0;
  /* Others may have committed between our read version and ours. */
  if (delta_state_version(t->live) < version - 1)
    rc = delta_state_catch_up(t->live, t->st, t->root_abs, version - 1, &e);
  if (rc == 0 && delta_state_version(t->live) != version - 1) rc = INLET_EINTERNAL;
  inlet_dirent de;
  memset(&de, 0, sizeof de);
  de.mtime_ms = -1;
  if (rc == 0 && !(t->st->flags & INLET_STORAGE_OBJECT_STORE)) {
    /* Its modification time is the version's timestamp (without in-commit
     * timestamps), as a fresh load would read it. On an object store that
     * costs a HEAD per commit: the timestamp stays unknown (-1) until a
     * snapshot asks for it (snap_load). */
    char name[64];
    delta_commit_name(name, version);
    rc = t->st->ops->stat(t->st, name, &de, &e);
    inlet_free(de.name);
  }
  if (rc == 0) {
    delta_state_begin_commit(t->live);
    rc = delta_txn_replay(txn, delta_state_apply, t->live, &e);
    if (rc == 0) delta_state_end_commit(t->live, version, de.mtime_ms);
  }
  if (rc < 0)
    drop_cache(t);
  else
    t->live_confirmed_ms = committed;
}

void delta_table_checkpoint_if_due(inlet_table *t, const delta_metadata *metadata,
                                   int64_t version) {
  const char *ci = delta_metadata_conf(metadata, "delta.checkpointInterval");
  int64_t interval = ci ? strtoll(ci, NULL, 10) : 10;
  if (interval <= 0 || version <= 0 || version % interval != 0) return;
  inlet_error ignore = INLET_ERROR_INIT;
  delta_snapshot at;
  if (delta_table_load(t, &at, DELTA_SNAP_VERSION, version, &ignore) == 0) {
    /* After a checkpoint, expired log entries below it can go (Spark's
     * delta.enableExpiredLogCleanup, on by default). */
    if (delta_checkpoint_write_threads(t->st, &at, false, t->threads, t->progress, t->progress_ctx,
                                       &ignore) == 0)
      (void)delta_log_cleanup_if_due(t->st, &at, &t->log_oldest, &ignore);
    delta_snapshot_reset(&at);
  }
}

inlet_storage *delta_table_storage(const inlet_table *t) {
  return t->st;
}
const char *delta_table_root(const inlet_table *t) {
  return t->root_abs;
}
const delta_snapshot *delta_snapshot_of(const inlet_snapshot *s) {
  return &s->snap;
}

/* The string fields of inlet_storage_options, for copying and freeing. */
/* clang-format 14 cannot settle on a layout for this list of macro calls. */
/* clang-format off */
#define SOPT_STRINGS(X)                                                                            \
  X(aws_access_key_id) X(aws_secret_access_key) X(aws_session_token) X(aws_region)                 \
  X(aws_profile) X(aws_endpoint_url) X(azure_connection_string) X(azure_account) X(azure_key)      \
  X(azure_sas_token) X(azure_endpoint)
/* clang-format on */

static void sopts_reset(inlet_storage_options *o) {
#define FREE_S(f)                                                                                  \
  if (o->f) {                                                                                      \
    memset((char *)o->f, 0, strlen(o->f));                                                         \
    inlet_free((char *)o->f);                                                                      \
    o->f = NULL;                                                                                   \
  }
  SOPT_STRINGS(FREE_S)
#undef FREE_S
}

static int sopts_copy(inlet_storage_options *dst, const inlet_storage_options *src,
                      inlet_error *err) {
  inlet_storage_options d = INLET_STORAGE_OPTIONS_INIT;
  *dst = d;
  if (!src) return 0;
  FAIL_IF(src->version != INLET_STORAGE_OPTIONS_VERSION, err, INLET_EINVAL,
          "unknown storage options version %d (this library has %d)", src->version,
          INLET_STORAGE_OPTIONS_VERSION);
  *dst = *src;
  bool oom = false;
#define DUP_S(f)                                                                                   \
  if (src->f) {                                                                                    \
    dst->f = inlet_strdup(src->f);                                                                 \
    oom |= !dst->f;                                                                                \
  }
  SOPT_STRINGS(DUP_S)
#undef DUP_S
  if (oom) {
    sopts_reset(dst);
    return inlet_fail(err, INLET_ENOMEM, "out of memory copying storage options");
  }
  return 0;
}

void inlet_table_free(inlet_table *t) {
  if (!t) return;
  delta_state_free(t->live);
  if (t->st) t->st->ops->free(t->st);
  sopts_reset(&t->sopts);
  inlet_free(t->path);
  inlet_free(t->root_abs);
  inlet_free(t);
}

const char *inlet_table_path(const inlet_table *t) {
  return t->path;
}

int inlet_table_set_progress(inlet_table *t, inlet_progress_fn fn, void *ctx, inlet_error *err) {
  FAIL_IF(!t, err, INLET_EINVAL, "inlet_table_set_progress: no table");
  t->progress = fn;
  t->progress_ctx = ctx;
  return 0;
}

void delta_table_progress(const inlet_table *t, const char *operation, const char *phase,
                          const char *unit, int64_t done, int64_t total) {
  if (!t || !t->progress) return;
  inlet_progress p = {operation, phase, unit, done, total};
  t->progress(t->progress_ctx, &p);
}

int delta_location_local_path(const char *location, const char **local, inlet_error *err) {
  *local = location;
  if (strncmp(location, "file:", 5) != 0) return 0;
  /* file:///abs/path (an empty authority) or file:/abs/path */
  const char *p = location + 5;
  if (strncmp(p, "//", 2) == 0) p += 2;
  FAIL_IF(p[0] != '/', err, INLET_EINVAL,
          "table location %s: a file: URL needs an absolute path (file:///path)", location);
  *local = p;
  return 0;
}

static int table_new(inlet_table **out, const char *path, bool create,
                     const inlet_table_open_options *oo, inlet_error *err) {
  *out = NULL;
  FAIL_IF(!path || !path[0], err, INLET_EINVAL, "empty table location");
  FAIL_IF(oo && oo->version != 1 && oo->version != INLET_TABLE_OPEN_OPTIONS_VERSION, err,
          INLET_EINVAL, "unknown table open options version %d (this library has %d)", oo->version,
          INLET_TABLE_OPEN_OPTIONS_VERSION);
  inlet_table *t = inlet_calloc(1, sizeof *t);
  if (!t) return inlet_fail(err, INLET_ENOMEM, "out of memory opening table %s", path);
  int rc = sopts_copy(&t->sopts, oo ? oo->storage : NULL, err);
  if (rc < 0) {
    inlet_free(t);
    return rc;
  }
  t->single_writer = oo && oo->single_writer;
  /* A version-1 struct ends before threads. */
  t->threads = oo && oo->version >= 2 && oo->threads > 1 ? oo->threads : 1;
  t->path = inlet_strdup(path);
  FAIL_GOTO(!t->path, err, INLET_ENOMEM, "out of memory opening table %s", path);
  if (inlet_storage_is_object_url(path)) {
    /* Object stores have no directories to create: the table exists once
     * its first commit does. Opening sends no request. */
    inlet_storage_options so = t->sopts;
    so.create = false;
    TRY_GOTO(inlet_storage_open_url(&t->st, path, &so, err));
    t->root_abs = inlet_strdup(t->st->root);
    FAIL_GOTO(!t->root_abs, err, INLET_ENOMEM, "out of memory opening table %s", path);
  } else {
    const char *local = NULL;
    TRY_GOTO(delta_location_local_path(path, &local, err));
    FAIL_GOTO(create && mkdir(local, 0777) < 0 && errno != EEXIST, err, INLET_EIO,
              "cannot create table directory %s: %s", path, strerror(errno));
    char real[PATH_MAX];
    FAIL_GOTO(!realpath(local, real), err, errno == ENOENT ? INLET_ENOTFOUND : INLET_EIO,
              "table %s: %s", path, strerror(errno));
    t->root_abs = inlet_strdup(real);
    FAIL_GOTO(!t->root_abs, err, INLET_ENOMEM, "out of memory opening table %s", path);
    TRY_GOTO(inlet_storage_posix_open(&t->st, real, false, err));
  }
  if (t->single_writer) t->st->flags |= INLET_STORAGE_SINGLE_WRITER;
  *out = t;
  return 0;
done:
  inlet_table_free(t);
  return rc;
}

static int table_open(inlet_table **out, const char *path, const inlet_table_open_options *oo,
                      inlet_error *err) {
  *out = NULL;
  inlet_table *t = NULL;
  TRY(table_new(&t, path, false, oo, err));
  inlet_dirent de;
  memset(&de, 0, sizeof de);
  int rc = t->st->ops->stat(t->st, "_delta_log", &de, err);
  inlet_free(de.name);
  if (rc < 0 || !de.is_dir) {
    inlet_table_free(t);
    return inlet_fail(err, rc == INLET_ENOTFOUND || rc == 0 ? INLET_ENOTFOUND : rc,
                      "not a Delta table: %s has no _delta_log directory", path);
  }
  *out = t;
  return 0;
}

int inlet_table_open(inlet_table **out, const char *path, inlet_error *err) {
  return table_open(out, path, NULL, err);
}

int inlet_table_open_with(inlet_table **out, const char *location,
                          const inlet_table_open_options *options, inlet_error *err) {
  return table_open(out, location, options, err);
}

int delta_table_open_new(inlet_table **out, const char *location,
                         const inlet_table_open_options *options, inlet_error *err) {
  return table_new(out, location, false, options, err);
}

int delta_table_open_like(inlet_table **out, const char *location, const inlet_table *like,
                          bool must_exist, inlet_error *err) {
  inlet_table_open_options oo = INLET_TABLE_OPEN_OPTIONS_INIT;
  if (like) {
    oo.storage = &like->sopts;
    oo.single_writer = like->single_writer;
    oo.threads = like->threads;
  }
  return must_exist ? table_open(out, location, &oo, err)
                    : table_new(out, location, false, &oo, err);
}

/* The properties of a new table ask for column mapping
 * (delta.columnMapping.mode name or id; the value is checked later). */
static bool create_maps_names(const inlet_table_create_options *o) {
  for (int32_t i = 0; i < o->n_properties; i++)
    if (strcasecmp(o->property_keys[i], "delta.columnMapping.mode") == 0 && o->property_values[i])
      return strcasecmp(o->property_values[i], "name") == 0 ||
             strcasecmp(o->property_values[i], "id") == 0;
  return false;
}

/* Column mapping on a new table: ids and physical names in its schema's
 * field metadata, delta.columnMapping.maxColumnId in its configuration
 * (Spark's DeltaColumnMapping.assignColumnIdAndPhysicalName). */
static int assign_mapping(delta_metadata *m, inlet_error *err) {
  int mode = delta_column_mapping_mode(m);
  if (mode <= DELTA_CM_NONE) return 0;
  int64_t max_id = 0;
  TRY(delta_column_mapping_assign(&m->schema_string, &max_id, err));
  char v[24];
  snprintf(v, sizeof v, "%lld", (long long)max_id);
  delta_kv *kv = inlet_realloc(m->configuration, ((size_t)m->n_configuration + 1) * sizeof *kv);
  FAIL_IF(!kv, err, INLET_ENOMEM, "out of memory creating a table");
  m->configuration = kv;
  kv[m->n_configuration].key = inlet_strdup("delta.columnMapping.maxColumnId");
  kv[m->n_configuration].value = inlet_strdup(v);
  m->n_configuration++;
  FAIL_IF(!kv[m->n_configuration - 1].key || !kv[m->n_configuration - 1].value, err, INLET_ENOMEM,
          "out of memory creating a table");
  return 0;
}

static int validate_create(const inlet_schema *schema, const inlet_table_create_options *o,
                           inlet_error *err) {
  FAIL_IF(schema->n_fields == 0, err, INLET_EINVAL, "a table needs at least one column");
  for (int32_t i = 0; i < schema->n_fields; i++)
    for (int32_t j = i + 1; j < schema->n_fields; j++)
      FAIL_IF(strcasecmp(schema->fields[i].name, schema->fields[j].name) == 0, err, INLET_EINVAL,
              "duplicate column name \"%s\" (Delta column names are case-insensitive)",
              schema->fields[j].name);
  FAIL_IF(o->n_properties > 0 && (!o->property_keys || !o->property_values), err, INLET_EINVAL,
          "properties given without keys or values");
  TRY(delta_features_check_column_names(schema, create_maps_names(o), err));
  FAIL_IF(o->n_partition_columns < 0 || o->n_properties < 0, err, INLET_EINVAL,
          "negative partition column or property count");
  TRY(delta_constraints_check_new(schema, o->property_keys, o->property_values, o->n_properties,
                                  err));
  int32_t n_data = schema->n_fields;
  for (int32_t p = 0; p < o->n_partition_columns; p++) {
    int idx = inlet_schema_find(schema, o->partition_columns[p]);
    FAIL_IF(idx < 0, err, INLET_EINVAL, "partition column \"%s\" is not in the schema",
            o->partition_columns[p]);
    const inlet_type *t = &schema->fields[idx].type;
    FAIL_IF(t->id == INLET_TYPE_STRUCT || t->id == INLET_TYPE_LIST || t->id == INLET_TYPE_MAP ||
                t->id == INLET_TYPE_BINARY,
            err, INLET_EINVAL, "partition column \"%s\" must have a primitive type",
            o->partition_columns[p]);
    for (int32_t q = 0; q < p; q++)
      FAIL_IF(strcmp(o->partition_columns[p], o->partition_columns[q]) == 0, err, INLET_EINVAL,
              "partition column \"%s\" listed twice", o->partition_columns[p]);
    TRY(delta_partition_column_name_check(o->partition_columns[p], err));
    n_data--;
  }
  FAIL_IF(n_data == 0, err, INLET_EINVAL,
          "every column is a partition column; a table needs "
          "at least one data column");
  /* Data file properties are checked now rather than at the first write. */
  for (int32_t i = 0; i < o->n_properties; i++) {
    if (strncmp(o->property_keys[i], "inlet.parquet.", 14) != 0) continue;
    FAIL_IF(strcmp(o->property_keys[i], "inlet.parquet.pageRows") != 0 &&
                strcmp(o->property_keys[i], "inlet.parquet.encodings") != 0,
            err, INLET_EINVAL,
            "unknown table property %s (inlet.parquet.pageRows and inlet.parquet.encodings "
            "exist)",
            o->property_keys[i]);
    delta_kv kv = {(char *)o->property_keys[i], (char *)o->property_values[i]};
    delta_metadata one;
    memset(&one, 0, sizeof one);
    one.n_configuration = 1;
    one.configuration = &kv;
    inlet_parquet_writer_options po = INLET_PARQUET_WRITER_OPTIONS_INIT;
    TRY(delta_data_file_options(&po, &one, err));
  }
  return 0;
}

/* The table's description: the option, or a "comment" property, which
 * Spark's catalog takes as the description (TableCatalog's reserved keys)
 * and delta_features_new_table does not store; not both. */
static int create_description(const inlet_table_create_options *o, const char **out,
                              inlet_error *err) {
  *out = o->description;
  for (int32_t i = 0; i < o->n_properties; i++) {
    if (strcmp(o->property_keys[i], "comment") != 0) continue;
    const char *v = o->property_values[i];
    FAIL_IF(!v, err, INLET_EINVAL, "table property comment has no value");
    FAIL_IF(o->description, err, INLET_EINVAL,
            "the description is given twice: as the description and as the \"comment\" "
            "property");
    FAIL_IF(!inlet_utf8_valid((const uint8_t *)v, strlen(v)), err, INLET_EINVAL,
            "the comment is not UTF-8 text");
    *out = v;
  }
  return 0;
}

int delta_new_table(delta_snapshot *out, const inlet_schema *schema,
                    const inlet_table_create_options *options, inlet_error *err) {
  inlet_table_create_options dflt = INLET_TABLE_CREATE_OPTIONS_INIT;
  const inlet_table_create_options *o = options ? options : &dflt;
  memset(out, 0, sizeof *out);
  FAIL_IF(o->version != INLET_TABLE_CREATE_OPTIONS_VERSION, err, INLET_EINVAL,
          "create: unknown options version %d (this library has %d)", o->version,
          INLET_TABLE_CREATE_OPTIONS_VERSION);
  out->version = -1;
  out->checkpoint_version = -1;
  TRY(validate_create(schema, o, err));
  const char *description;
  TRY(create_description(o, &description, err));
  delta_metadata *m = &out->metadata;
  char id[37];
  delta_uuid4(id);
  int rc = delta_schema_to_json(&m->schema_string, schema, err);
  if (rc < 0) goto fail;
  rc = delta_features_new_table(&out->protocol, &m->configuration, &m->n_configuration,
                                m->schema_string, o->property_keys, o->property_values,
                                o->n_properties, err);
  if (rc < 0) goto fail;
  rc = assign_mapping(m, err);
  if (rc < 0) goto fail;
  /* PROTOCOL.md "Writer Requirements for Row Tracking": the materialized
   * column names are assigned before row tracking is enabled. */
  rc = delta_rt_assign_names(m, err);
  if (rc < 0) goto fail;
  m->id = inlet_strdup(id);
  m->name = o->name ? inlet_strdup(o->name) : NULL;
  m->description = description ? inlet_strdup(description) : NULL;
  m->format = inlet_strdup("parquet");
  m->partition_columns = inlet_calloc((size_t)o->n_partition_columns + 1, sizeof(char *));
  m->created_time = delta_now_ms();
  FAIL_GOTO(!m->id || (o->name && !m->name) || (description && !m->description) || !m->format ||
                !m->partition_columns,
            err, INLET_ENOMEM, "out of memory creating a table");
  for (int32_t i = 0; i < o->n_partition_columns; i++) {
    m->partition_columns[i] = inlet_strdup(o->partition_columns[i]);
    FAIL_GOTO(!m->partition_columns[i], err, INLET_ENOMEM, "out of memory creating a table");
    m->n_partition_columns++;
  }
  rc = inlet_schema_copy(&out->schema, schema, err);
  if (rc < 0) goto fail;
  out->has_schema = true;
  rc = delta_snapshot_set_mapping(out, err);
  if (rc < 0) goto fail;
  return 0;
done:
fail:
  delta_snapshot_reset(out);
  return rc;
}

int inlet_table_create(inlet_table **out, const char *path, const inlet_schema *schema,
                       const inlet_table_create_options *options, inlet_error *err) {
  return inlet_table_create_with(out, path, schema, options, NULL, err);
}

int inlet_table_create_with(inlet_table **out, const char *path, const inlet_schema *schema,
                            const inlet_table_create_options *options,
                            const inlet_table_open_options *open_options, inlet_error *err) {
  *out = NULL;
  inlet_table_create_options dflt = INLET_TABLE_CREATE_OPTIONS_INIT;
  const inlet_table_create_options *o = options ? options : &dflt;
  delta_snapshot cs;
  TRY(delta_new_table(&cs, schema, o, err));
  const delta_metadata *m = &cs.metadata;
  inlet_table *t = NULL;
  delta_txn *txn = NULL;
  char *params = NULL;
  int rc = table_new(&t, path, true, open_options, err);
  if (rc < 0) goto done;
  rc = t->st->ops->mkdirs(t->st, "_delta_log", err);
  if (rc < 0) goto done;

  /* operationParameters as Spark writes them for CREATE TABLE: the stored
   * properties (protocol requests such as delta.feature.* are not). */
  json_t *pj = json_object();
  json_t *pcols = json_array();
  for (int32_t i = 0; i < m->n_partition_columns; i++)
    json_array_append_new(pcols, json_string(m->partition_columns[i]));
  char *pcs = json_dumps(pcols, JSON_COMPACT);
  json_decref(pcols);
  json_t *props = json_object();
  for (int32_t i = 0; i < m->n_configuration; i++)
    json_object_set_new(props, m->configuration[i].key, json_string(m->configuration[i].value));
  char *ps = json_dumps(props, JSON_COMPACT | JSON_PRESERVE_ORDER);
  json_decref(props);
  json_object_set_new(pj, "isManaged", json_string("false"));
  json_object_set_new(pj, "description",
                      m->description ? json_string(m->description) : json_null());
  json_object_set_new(pj, "partitionBy", json_string(pcs ? pcs : "[]"));
  json_object_set_new(pj, "properties", json_string(ps ? ps : "{}"));
  free(pcs);
  free(ps);
  char *pjs = json_dumps(pj, JSON_COMPACT | JSON_PRESERVE_ORDER);
  json_decref(pj);
  params = pjs ? inlet_strdup(pjs) : NULL;
  free(pjs);
  FAIL_GOTO(!params, err, INLET_ENOMEM, "out of memory creating table");

  if (o->n_batches > 0) {
    /* Data too: a writer seeded with the new table's state commits version 0. */
    inlet_table_writer *w = NULL;
    rc = delta_writer_open_create(&w, t, &cs, params, err); /* copies cs */
    for (size_t i = 0; rc == 0 && i < o->n_batches; i++)
      rc = inlet_table_writer_write(w, &o->batches[i], err);
    int64_t v0;
    if (rc == 0) rc = inlet_table_writer_commit(w, &v0, err);
    inlet_table_writer_free(w);
    goto done;
  }
  delta_action pa, ma;
  memset(&pa, 0, sizeof pa);
  memset(&ma, 0, sizeof ma);
  pa.kind = DELTA_ACTION_PROTOCOL;
  pa.u.protocol = cs.protocol; /* borrowed: add_action copies */
  ma.kind = DELTA_ACTION_METADATA;
  ma.u.metadata = cs.metadata;
  rc = delta_txn_begin(&txn, t->st, t->root_abs, -1, "CREATE TABLE", err);
  if (rc < 0) goto done;
  delta_txn_set_strict(txn, true);
  if ((rc = delta_txn_set_params(txn, params, err)) < 0) goto done;
  if ((rc = delta_txn_add_action(txn, &pa, err)) < 0) goto done;
  if ((rc = delta_txn_add_action(txn, &ma, err)) < 0) goto done;
  int64_t v;
  rc = delta_write_commit(t, txn, &cs.metadata, &v, NULL, err);
done:
  delta_txn_free(txn);
  inlet_free(params);
  delta_snapshot_reset(&cs);
  if (rc < 0)
    inlet_table_free(t);
  else
    *out = t;
  return rc;
}

/* ---- snapshots --------------------------------------------------------------- */

static int snap_load(inlet_snapshot **out, inlet_table *t, delta_snap_mode mode, int64_t arg,
                     inlet_error *err) {
  *out = NULL;
  inlet_snapshot *s = inlet_calloc(1, sizeof *s);
  if (!s) return inlet_fail(err, INLET_ENOMEM, "out of memory loading snapshot");
  s->table = t;
  int rc = delta_table_load(t, &s->snap, mode, arg, err);
  if (rc == 0 && s->snap.timestamp_ms < 0 && s->snap.version >= 0) {
    /* A version this handle committed to an object store: its timestamp is
     * the commit object's modification time, asked for only now. */
    char name[64];
    delta_commit_name(name, s->snap.version);
    inlet_dirent de;
    memset(&de, 0, sizeof de);
    rc = t->st->ops->stat(t->st, name, &de, err);
    inlet_free(de.name);
    if (rc == 0) {
      s->snap.timestamp_ms = de.mtime_ms;
      if (t->live && delta_state_version(t->live) == s->snap.version)
        delta_state_set_timestamp(t->live, de.mtime_ms);
    } else {
      delta_snapshot_reset(&s->snap);
    }
  }
  if (rc < 0) {
    inlet_free(s);
    return rc;
  }
  *out = s;
  return 0;
}

int inlet_table_snapshot(inlet_snapshot **out, inlet_table *t, inlet_error *err) {
  return snap_load(out, t, DELTA_SNAP_LATEST, 0, err);
}
int inlet_table_snapshot_at_version(inlet_snapshot **out, inlet_table *t, int64_t version,
                                    inlet_error *err) {
  return snap_load(out, t, DELTA_SNAP_VERSION, version, err);
}
int inlet_table_snapshot_at_timestamp(inlet_snapshot **out, inlet_table *t, int64_t ts,
                                      inlet_error *err) {
  return snap_load(out, t, DELTA_SNAP_TIMESTAMP, ts, err);
}

void inlet_snapshot_free(inlet_snapshot *s) {
  if (!s) return;
  delta_scan_plan_free(s->plan);
  delta_snapshot_reset(&s->snap);
  inlet_free(s);
}

int64_t inlet_snapshot_version(const inlet_snapshot *s) {
  return s->snap.version;
}
int64_t inlet_snapshot_timestamp(const inlet_snapshot *s) {
  return s->snap.timestamp_ms;
}
const inlet_schema *inlet_snapshot_schema(const inlet_snapshot *s) {
  return &s->snap.schema;
}
const inlet_schema *delta_snapshot_handle_physical(const inlet_snapshot *s) {
  return delta_snapshot_physical(&s->snap);
}
inlet_storage *delta_snapshot_handle_storage(const inlet_snapshot *s) {
  return s->table->st;
}
int32_t inlet_snapshot_num_partition_columns(const inlet_snapshot *s) {
  return s->snap.metadata.n_partition_columns;
}
const char *inlet_snapshot_partition_column(const inlet_snapshot *s, int32_t i) {
  return i >= 0 && i < s->snap.metadata.n_partition_columns ? s->snap.metadata.partition_columns[i]
                                                            : NULL;
}
const char *inlet_snapshot_property(const inlet_snapshot *s, const char *key) {
  return delta_metadata_conf(&s->snap.metadata, key);
}
const char *inlet_snapshot_table_id(const inlet_snapshot *s) {
  return s->snap.metadata.id;
}
int64_t inlet_snapshot_txn_version(const inlet_snapshot *s, const char *app_id) {
  return delta_snapshot_txn_version(&s->snap, app_id);
}
int64_t inlet_snapshot_num_files(const inlet_snapshot *s) {
  return s->snap.n_files;
}

void inlet_snapshot_file(const inlet_snapshot *s, int64_t i, inlet_file_info *out) {
  const delta_file *f = &s->snap.files[i];
  out->path = f->add.path;
  out->size = f->add.size;
  out->modification_time = f->add.modification_time;
  out->num_records = f->num_records;
  out->stats = f->add.stats;
}

const char *inlet_snapshot_file_partition_value(const inlet_snapshot *s, int64_t i,
                                                const char *column) {
  const delta_add *a = &s->snap.files[i].add;
  for (int32_t k = 0; k < a->n_partition_values; k++)
    if (strcmp(a->partition_values[k].key, column) == 0) return a->partition_values[k].value;
  return NULL;
}

/* ---- history ------------------------------------------------------------------- */

typedef struct ci_ctx {
  char *commit_info; /* owned, first commitInfo of the commit */
  int64_t adds, removes;
  int64_t data_changes; /* adds and removes with dataChange=true */
} ci_ctx;

static int ci_cb(void *ctx, const delta_action *a, inlet_error *err) {
  ci_ctx *c = ctx;
  if (a->kind == DELTA_ACTION_COMMIT_INFO && !c->commit_info) {
    c->commit_info = inlet_strdup(a->u.commit_info);
    if (!c->commit_info) return inlet_fail(err, INLET_ENOMEM, "out of memory reading history");
  } else if (a->kind == DELTA_ACTION_ADD) {
    c->adds++;
    if (a->u.add.data_change) c->data_changes++;
  } else if (a->kind == DELTA_ACTION_REMOVE) {
    c->removes++;
    if (a->u.remove.data_change) c->data_changes++;
  }
  return 0;
}

static char *dump_field(json_t *o, const char *key) {
  json_t *v = json_object_get(o, key);
  if (!v) return NULL;
  char *s = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
  char *r = s ? inlet_strdup(s) : NULL;
  free(s);
  return r;
}

/* Fills @p e from a commit's commitInfo (may be NULL). *ict_run is true
 * while every newer commit had an in-commit timestamp. */
static void fill_entry(inlet_history_entry *e, char *commit_info, int64_t mtime, bool *ict_run) {
  e->timestamp_ms = mtime;
  e->commit_info_json = commit_info;
  json_t *o = commit_info ? json_loads(commit_info, 0, NULL) : NULL;
  /* The version's timestamp is what time travel uses (PROTOCOL.md "Commit
   * Provenance Information" / "In-Commit Timestamps", Spark's
   * DeltaHistoryManager.getHistory): the in-commit timestamp for the run of
   * newest commits that carry one (from the enablement version on), else the
   * commit file's modification time, monotonized. commitInfo's plain
   * `timestamp` is the writer's clock and may differ, so it is not used:
   * history, describe and --as-of must agree. */
  json_t *ts = json_object_get(o, "inCommitTimestamp");
  if (*ict_run && json_is_integer(ts))
    e->timestamp_ms = (int64_t)json_integer_value(ts);
  else
    *ict_run = false;
  if (!o) return;
  const char *op = json_string_value(json_object_get(o, "operation"));
  if (op) e->operation = inlet_strdup(op);
  e->parameters_json = dump_field(o, "operationParameters");
  e->metrics_json = dump_field(o, "operationMetrics");
  json_decref(o);
}

void inlet_history_free(inlet_history_entry *e, size_t n) {
  if (!e) return;
  for (size_t i = 0; i < n; i++) {
    inlet_free(e[i].operation);
    inlet_free(e[i].parameters_json);
    inlet_free(e[i].metrics_json);
    inlet_free(e[i].commit_info_json);
  }
  inlet_free(e);
}

int inlet_table_history(inlet_history_entry **out, size_t *n, inlet_table *t, int64_t limit,
                        inlet_error *err) {
  *out = NULL;
  *n = 0;
  delta_log_listing l;
  TRY(delta_log_list(&l, t->st, err));
  int64_t count = l.n_commits;
  if (limit > 0 && limit < count) count = limit;
  int rc = 0;
  inlet_history_entry *e = inlet_calloc((size_t)count + 1, sizeof *e);
  FAIL_GOTO(!e, err, INLET_ENOMEM, "out of memory reading history");
  bool ict_run = true;
  size_t kept = 0;
  for (int64_t k = 0; k < count; k++) {
    int64_t idx = l.n_commits - 1 - k;
    ci_ctx c = {NULL, 0, 0, 0};
    rc = delta_log_read_commit(t->st, t->root_abs, l.commit_versions[idx], ci_cb, &c, err);
    if (rc == INLET_ENOTFOUND) {
      /* Log cleanup removed it since the listing: it is no longer history. */
      inlet_free(c.commit_info);
      inlet_error_clear(err);
      rc = 0;
      continue;
    }
    if (rc < 0) {
      inlet_free(c.commit_info);
      inlet_history_free(e, kept);
      e = NULL;
      goto done;
    }
    e[kept].version = l.commit_versions[idx];
    fill_entry(&e[kept], c.commit_info, l.commit_mtimes[idx], &ict_run);
    kept++;
  }
  *out = e;
  *n = kept;
done:
  delta_log_listing_reset(&l);
  return rc;
}

/* ---- describe --------------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The version checksum of @p sn's version checked against the replayed
 * state (PROTOCOL.md "State Validation": a discrepancy is shown, not
 * hidden): "ok", "absent", or what is wrong with it. */
static json_t *checksum_status(inlet_table *t, const delta_snapshot *sn) {
  delta_crc c;
  inlet_error e = INLET_ERROR_INIT;
  int rc = delta_crc_read(&c, t->st, sn->version, &e);
  if (rc == INLET_ENOTFOUND) return json_string("absent");
  char why[512];
  if (rc < 0) {
    snprintf(why, sizeof why, "unreadable: %s", inlet_errmsg(&e));
    return json_string(why);
  }
  char diff[400] = "";
  rc = delta_crc_check_snapshot(&c, sn, diff, sizeof diff);
  delta_crc_reset(&c);
  if (rc == 0) return json_string("ok");
  snprintf(why, sizeof why, "disagrees with the log: %s", diff);
  return json_string(why);
}

/* Describes @p sn (version and files), reading the commits up to its
 * version once: counted, and each summarised to @p fn when given. */
static int describe(inlet_table *t, const delta_snapshot *sn, inlet_table_description *out,
                    char **json, inlet_commit_fn fn, void *ctx, inlet_error *err) {
  memset(out, 0, sizeof *out);
  if (json) *json = NULL;
  int rc = 0;
  delta_log_listing l;
  memset(&l, 0, sizeof l);
  char **keys = NULL;
  json_t *o = NULL;
  out->version = sn->version;
  out->last_checkpoint = -1;
  out->last_commit_timestamp = sn->timestamp_ms;
  const char *tfs = delta_metadata_conf(&sn->metadata, "delta.targetFileSize");
  out->small_file_bytes = tfs ? strtoll(tfs, NULL, 10) : 0;
  if (out->small_file_bytes <= 0) out->small_file_bytes = (int64_t)128 << 20;
  for (int64_t i = 0; i < sn->n_files; i++) {
    const delta_file *f = &sn->files[i];
    out->files++;
    /* Sizes and counts come from the log: a hostile one must not wrap the
     * totals around to negative numbers. */
    bool bytes_over = inlet_add_overflow_i64(out->bytes, f->add.size, &out->bytes);
    /* numRecords counts the data file's rows, the deleted ones too
     * (PROTOCOL.md "Per-file Statistics"): the table holds that many less
     * its deletion vector's cardinality. */
    int64_t live_rows = f->num_records;
    if (live_rows >= 0 && f->add.dv_json) {
      delta_dv_desc d;
      inlet_error ignore = INLET_ERROR_INIT;
      if (delta_dv_desc_parse(&d, f->add.dv_json, &ignore) == 0) {
        live_rows = d.cardinality <= live_rows ? live_rows - d.cardinality : 0;
        delta_dv_desc_reset(&d);
      }
    }
    if (bytes_over ||
        (live_rows >= 0 && inlet_add_overflow_i64(out->rows, live_rows, &out->rows))) {
      const delta_file *big = f; /* name the largest claim */
      for (int64_t j = 0; j < sn->n_files; j++)
        if (bytes_over ? sn->files[j].add.size > big->add.size
                       : sn->files[j].num_records > big->num_records)
          big = &sn->files[j];
      rc = inlet_fail(err, INLET_ECORRUPT,
                      "%s in the log overflow the table's total (over 2^63): \"%s\" claims "
                      "%lld",
                      bytes_over ? "file sizes" : "row counts", big->add.path,
                      (long long)(bytes_over ? big->add.size : big->num_records));
      goto done;
    }
    if (f->num_records < 0) out->files_without_stats++;
    if (f->add.size < out->small_file_bytes) out->small_files++;
  }
  /* A file without numRecords makes the total unknown, not smaller. */
  if (out->files_without_stats > 0) out->rows = -1;
  /* Distinct partition tuples: sort the joined values. */
  if (sn->metadata.n_partition_columns > 0 && sn->n_files > 0) {
    keys = inlet_calloc((size_t)sn->n_files, sizeof *keys);
    FAIL_GOTO(!keys, err, INLET_ENOMEM, "out of memory describing table");
    for (int64_t i = 0; i < sn->n_files; i++)
      if ((rc = delta_partition_key(&keys[i], &sn->files[i].add, sn, err)) < 0) goto done;
    qsort(keys, (size_t)sn->n_files, sizeof *keys, cmp_str);
    for (int64_t i = 0; i < sn->n_files; i++)
      if (i == 0 || strcmp(keys[i], keys[i - 1]) != 0) out->partitions++;
  } else if (sn->n_files > 0) {
    out->partitions = 1;
  }
  /* Commits and compactions from the commit files themselves. */
  rc = delta_log_list(&l, t->st, err);
  if (rc < 0) goto done;
  for (int64_t i = 0; i < l.n_checkpoints; i++)
    if (l.checkpoints[i].version <= sn->version) out->last_checkpoint = l.checkpoints[i].version;
  rc = delta_commits_walk(t, &l, sn->version, fn, ctx, &out->commits, &out->compactions, err);
  if (rc != 0) goto done;
  if (json) {
    o = json_object();
    /* docs/JSON.md "describe": bump on any change a consumer could notice. */
    json_object_set_new(o, "format_version", json_integer(1));
    json_object_set_new(o, "version", json_integer(out->version));
    json_object_set_new(o, "commits", json_integer(out->commits));
    json_object_set_new(o, "compactions", json_integer(out->compactions));
    json_object_set_new(o, "last_commit_timestamp", json_integer(out->last_commit_timestamp));
    json_object_set_new(o, "files", json_integer(out->files));
    json_object_set_new(o, "bytes", json_integer(out->bytes));
    json_object_set_new(o, "rows", out->rows >= 0 ? json_integer(out->rows) : json_null());
    json_object_set_new(o, "files_without_stats", json_integer(out->files_without_stats));
    json_object_set_new(o, "small_files", json_integer(out->small_files));
    json_object_set_new(o, "small_file_threshold_bytes", json_integer(out->small_file_bytes));
    json_object_set_new(o, "partitions", json_integer(out->partitions));
    json_t *pc = json_array();
    for (int32_t p = 0; p < sn->metadata.n_partition_columns; p++)
      json_array_append_new(pc, json_string(sn->metadata.partition_columns[p]));
    json_object_set_new(o, "partition_columns", pc);
    json_object_set_new(o, "last_checkpoint",
                        out->last_checkpoint >= 0 ? json_integer(out->last_checkpoint)
                                                  : json_null());
    json_object_set_new(o, "table_id", json_string(sn->metadata.id));
    if (sn->metadata.name) json_object_set_new(o, "name", json_string(sn->metadata.name));
    if (sn->metadata.description)
      json_object_set_new(o, "description", json_string(sn->metadata.description));
    json_t *sch =
        sn->metadata.schema_string ? json_loads(sn->metadata.schema_string, 0, NULL) : NULL;
    json_object_set_new(o, "schema", sch ? sch : json_null());
    /* No DDL for a schema inlet cannot read (the JSON above still shows it). */
    inlet_buf ddl = INLET_BUF_INIT;
    for (int32_t i = 0; i < sn->schema.n_fields; i++) {
      char tn[256];
      inlet_type_name(&sn->schema.fields[i].type, tn, sizeof tn);
      inlet_buf_appendf(&ddl, "%s%s %s%s", i ? ", " : "", sn->schema.fields[i].name, tn,
                        sn->schema.fields[i].nullable ? "" : " not null");
    }
    inlet_buf_terminate(&ddl);
    json_object_set_new(o, "schema_ddl",
                        sn->has_schema ? json_string(ddl.data ? (char *)ddl.data : "")
                                       : json_null());
    inlet_buf_reset(&ddl);
    json_t *props = json_object();
    for (int32_t i = 0; i < sn->metadata.n_configuration; i++)
      json_object_set_new(props, sn->metadata.configuration[i].key,
                          sn->metadata.configuration[i].value
                              ? json_string(sn->metadata.configuration[i].value)
                              : json_null());
    json_object_set_new(o, "properties", props);
    json_t *proto = json_object();
    json_object_set_new(proto, "min_reader_version", json_integer(sn->protocol.min_reader));
    json_object_set_new(proto, "min_writer_version", json_integer(sn->protocol.min_writer));
    if (sn->protocol.min_reader >= 3) {
      json_t *rf = json_array();
      for (int32_t i = 0; i < sn->protocol.n_reader_features; i++)
        json_array_append_new(rf, json_string(sn->protocol.reader_features[i]));
      json_object_set_new(proto, "reader_features", rf);
    }
    if (sn->protocol.min_writer >= 7) {
      json_t *wf = json_array();
      for (int32_t i = 0; i < sn->protocol.n_writer_features; i++)
        json_array_append_new(wf, json_string(sn->protocol.writer_features[i]));
      json_object_set_new(proto, "writer_features", wf);
    }
    json_object_set_new(o, "protocol", proto);
    json_object_set_new(o, "checksum", checksum_status(t, sn));
    char *s1 = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    FAIL_GOTO(!s1, err, INLET_ENOMEM, "out of memory describing table");
    *json = inlet_strdup(s1);
    free(s1);
    FAIL_GOTO(!*json, err, INLET_ENOMEM, "out of memory describing table");
  }
done:
  json_decref(o);
  if (keys)
    for (int64_t i = 0; i < sn->n_files; i++)
      inlet_free(keys[i]);
  inlet_free(keys);
  delta_log_listing_reset(&l);
  return rc;
}

int inlet_table_describe(inlet_table *t, inlet_table_description *out, char **json,
                         inlet_error *err) {
  memset(out, 0, sizeof *out);
  if (json) *json = NULL;
  /* The log alone: a table with reader features inlet cannot scan (column
   * mapping, deletion vectors, variant, ...) is still described. */
  delta_snapshot snap;
  TRY(delta_snapshot_load_log_threads(&snap, t->st, t->root_abs, t->threads, err));
  int rc = describe(t, &snap, out, json, NULL, NULL, err);
  delta_snapshot_reset(&snap);
  return rc;
}

int inlet_snapshot_describe(inlet_snapshot *s, inlet_table_description *out, char **json,
                            inlet_commit_fn fn, void *ctx, inlet_error *err) {
  return describe(s->table, &s->snap, out, json, fn, ctx, err);
}
