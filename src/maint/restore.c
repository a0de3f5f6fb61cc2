/*
 * Restore (include/inlet/maint.h inlet_table_restore): one RESTORE commit
 * that returns the table to the state of an earlier version.
 *
 * Spec: PROTOCOL.md "Add File and Remove File" (a file re-added is a new
 * add action with dataChange=true; the same path with a different deletion
 * vector is a different logical file), "Protocol Evolution" (a protocol is
 * never downgraded), "Commit Provenance Information". The operation name,
 * parameters and metrics are Spark's RESTORE's (RestoreTableCommand).
 *
 * The files of the two versions are matched by path and deletion vector id
 * (both snapshots are sorted by path): what the old version had and the
 * latest lacks is added back, what the latest has and the old version
 * lacks is removed. Unlike appends and compactions, a restore cannot be
 * rebased over a concurrent commit (an append landing first would survive
 * it, a delete would undo part of it), so the commit must land right after
 * the version it read; when it loses, the whole computation starts over
 * from the new latest version.
 *
 * Column mapping (PROTOCOL.md "Column Mapping"): the restored metaData
 * brings back the old version's schema, physical names and ids included,
 * so the re-added files read as they did; but its
 * delta.columnMapping.maxColumnId never goes down (a column added after
 * that version used an id no later column may reuse: files that still hold
 * it could be read as the new column), and the mapping mode never changes
 * (Spark refuses a mode change a restore would make).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "delta/delta_dv.h"
#include "delta/delta_features.h"
#include "delta/delta_table.h"
#include "maint/maint_int.h"
#include "util/buf.h"
#include "util/datetime.h"
#include "util/util.h"

#define DEFAULT_ATTEMPTS 10
/* Missing files named in the refusal; the count covers all of them. */
#define MISSING_NAMED 5

/* What one attempt commits: indexes into the two snapshots' files. */
typedef struct restore_plan {
  int64_t *to_add; /* indexes into the old version's files */
  int64_t n_add;
  int64_t *to_remove; /* indexes into the latest version's files */
  int64_t n_remove;
  bool metadata_differs;
} restore_plan;

static void plan_reset(restore_plan *p) {
  free(p->to_add);
  free(p->to_remove);
  memset(p, 0, sizeof *p);
}

static bool same_dv(const delta_add *a, const delta_add *b) {
  if (!a->dv_id || !b->dv_id) return !a->dv_id && !b->dv_id;
  return strcmp(a->dv_id, b->dv_id) == 0;
}

static int metadata_text(const delta_metadata *m, inlet_buf *out, inlet_error *err) {
  delta_action a;
  memset(&a, 0, sizeof a);
  a.kind = DELTA_ACTION_METADATA;
  a.u.metadata = *m; /* borrowed: only serialized */
  return delta_action_write(out, &a, err);
}

/* The metaData of @p old differs from @p latest's in anything but nothing. */
static int metadata_differs(const delta_metadata *old, const delta_metadata *latest, bool *out,
                            inlet_error *err) {
  inlet_buf a = INLET_BUF_INIT, b = INLET_BUF_INIT;
  int rc = metadata_text(old, &a, err);
  if (rc == 0) rc = metadata_text(latest, &b, err);
  if (rc == 0) *out = a.len != b.len || memcmp(a.data, b.data, a.len) != 0;
  inlet_buf_reset(&a);
  inlet_buf_reset(&b);
  return rc;
}

/* Merge-joins the two path-sorted file lists. */
static int plan_files(restore_plan *p, const delta_snapshot *old, const delta_snapshot *latest,
                      inlet_error *err) {
  p->to_add = malloc(((size_t)old->n_files + 1) * sizeof *p->to_add);
  p->to_remove = malloc(((size_t)latest->n_files + 1) * sizeof *p->to_remove);
  FAIL_IF(!p->to_add || !p->to_remove, err, INLET_ENOMEM, "out of memory");
  int64_t i = 0, j = 0;
  while (i < old->n_files || j < latest->n_files) {
    int c = i >= old->n_files      ? 1
            : j >= latest->n_files ? -1
                                   : strcmp(old->files[i].add.path, latest->files[j].add.path);
    if (c < 0) {
      p->to_add[p->n_add++] = i++;
    } else if (c > 0) {
      p->to_remove[p->n_remove++] = j++;
    } else {
      if (!same_dv(&old->files[i].add, &latest->files[j].add)) {
        p->to_add[p->n_add++] = i;
        p->to_remove[p->n_remove++] = j;
      }
      i++;
      j++;
    }
  }
  return 0;
}

/* INLET_ENOTFOUND when @p path is missing; other storage errors as they are. */
static int exists(inlet_storage *st, const char *path, bool *found, inlet_error *err) {
  inlet_dirent de;
  memset(&de, 0, sizeof de);
  inlet_error e = INLET_ERROR_INIT;
  int rc = st->ops->stat(st, path, &de, &e);
  inlet_free(de.name);
  if (rc == INLET_ENOTFOUND) {
    *found = false;
    return 0;
  }
  if (rc < 0) return inlet_fail(err, rc, "restore: checking \"%s\": %s", path, inlet_errmsg(&e));
  *found = true;
  return 0;
}

/* Every file to add back, and its deletion vector file, must still exist:
 * vacuum may have deleted them once they left the table. */
static int check_files_present(inlet_table *t, const delta_snapshot *old, const restore_plan *p,
                               inlet_error *err) {
  inlet_storage *st = delta_table_storage(t);
  inlet_buf names = INLET_BUF_INIT;
  int64_t missing = 0;
  int rc = 0;
  for (int64_t k = 0; k < p->n_add; k++) {
    const delta_add *a = &old->files[p->to_add[k]].add;
    bool found = false;
    char *dv_path = NULL;
    rc = exists(st, a->path, &found, err);
    if (rc == 0 && found && a->dv_json) {
      delta_dv_desc d;
      memset(&d, 0, sizeof d);
      rc = delta_dv_desc_parse(&d, a->dv_json, err);
      if (rc == 0 && d.storage_type != 'i')
        rc = delta_dv_file_path(&d, delta_table_root(t), &dv_path, err);
      delta_dv_desc_reset(&d);
      if (rc == 0 && dv_path) rc = exists(st, dv_path, &found, err);
    }
    if (rc < 0) {
      free(dv_path);
      goto done;
    }
    if (!found) {
      if (missing < MISSING_NAMED)
        inlet_buf_appendf(&names, "%s\"%s\"", missing ? ", " : "", dv_path ? dv_path : a->path);
      missing++;
    }
    free(dv_path);
  }
  FAIL_GOTO(names.error, err, INLET_ENOMEM, "out of memory");
  FAIL_GOTO(missing > 0, err, INLET_ENOTFOUND,
            "cannot restore version %lld: %lld of its files no longer exist (vacuumed or "
            "deleted): %.*s%s",
            (long long)old->version, (long long)missing, (int)names.len,
            names.data ? (const char *)names.data : "", missing > MISSING_NAMED ? ", ..." : "");
done:
  inlet_buf_reset(&names);
  return rc;
}

/* Restore never downgrades: every feature the old protocol supports must
 * be supported by the latest one (Spark merges them; a feature that was
 * dropped since would have to come back, which inlet does not do). */
static int check_protocol(const delta_snapshot *old, const delta_snapshot *latest,
                          inlet_error *err) {
  static const char *const legacy[] = {
      "appendOnly",       "invariants",    "checkConstraints", "changeDataFeed",
      "generatedColumns", "columnMapping", "identityColumns",  NULL};
  const delta_protocol *o = &old->protocol, *l = &latest->protocol;
  const char *lacking = NULL;
  for (int i = 0; legacy[i] && !lacking; i++)
    if (delta_protocol_supports(o, legacy[i]) && !delta_protocol_supports(l, legacy[i]))
      lacking = legacy[i];
  for (int32_t i = 0; i < o->n_reader_features && !lacking; i++)
    if (!delta_protocol_supports(l, o->reader_features[i])) lacking = o->reader_features[i];
  for (int32_t i = 0; i < o->n_writer_features && !lacking; i++)
    if (!delta_protocol_supports(l, o->writer_features[i])) lacking = o->writer_features[i];
  FAIL_IF(lacking, err, INLET_EUNSUPPORTED,
          "cannot restore version %lld: its protocol supports feature \"%s\", which the latest "
          "version %lld no longer supports (inlet does not upgrade protocols)",
          (long long)old->version, lacking, (long long)latest->version);
  FAIL_IF(o->min_reader > l->min_reader || o->min_writer > l->min_writer, err, INLET_EUNSUPPORTED,
          "cannot restore version %lld: its protocol (reader %d, writer %d) is above the latest "
          "version's (reader %d, writer %d)",
          (long long)old->version, (int)o->min_reader, (int)o->min_writer, (int)l->min_reader,
          (int)l->min_writer);
  return 0;
}

static void format_ms(char *out, size_t cap, int64_t ms) {
  int64_t days = ms >= 0 ? ms / 86400000 : -((-ms + 86399999) / 86400000);
  int64_t rem = ms - days * 86400000, y;
  int m, d;
  inlet_civil_from_days(days, &y, &m, &d);
  snprintf(out, cap, "%04lld-%02d-%02dT%02d:%02d:%02d.%03dZ", (long long)y, m, d,
           (int)(rem / 3600000), (int)(rem / 60000 % 60), (int)(rem / 1000 % 60),
           (int)(rem % 1000));
}

static int set_provenance(delta_txn *txn, const inlet_restore_options *o,
                          const inlet_restore_result *r, inlet_error *err) {
  char mb[24];
  json_t *params = json_object();
  if (o->to_version >= 0) {
    json_object_set_new(params, "version", json_string(delta_metric_text(mb, o->to_version)));
  } else {
    char ts[40];
    format_ms(ts, sizeof ts, o->to_timestamp_ms);
    json_object_set_new(params, "timestamp", json_string(ts));
  }
  char *params_s = json_dumps(params, JSON_COMPACT | JSON_PRESERVE_ORDER);
  json_decref(params);
  FAIL_IF(!params_s, err, INLET_ENOMEM, "out of memory");
  int rc = delta_txn_set_params(txn, params_s, err);
  free(params_s);
  TRY(rc);
  /* Spark's RESTORE metrics, values as strings like Spark writes them. */
  json_t *m = json_object();
  json_object_set_new(m, "numRestoredFiles", json_string(delta_metric_text(mb, r->files_restored)));
  json_object_set_new(m, "restoredFilesSize",
                      json_string(delta_metric_text(mb, r->bytes_restored)));
  json_object_set_new(m, "numRemovedFiles", json_string(delta_metric_text(mb, r->files_removed)));
  json_object_set_new(m, "removedFilesSize", json_string(delta_metric_text(mb, r->bytes_removed)));
  json_object_set_new(m, "numOfFilesAfterRestore",
                      json_string(delta_metric_text(mb, r->files_after)));
  json_object_set_new(m, "tableSizeAfterRestore",
                      json_string(delta_metric_text(mb, r->bytes_after)));
  char *m_s = json_dumps(m, JSON_COMPACT | JSON_PRESERVE_ORDER);
  json_decref(m);
  FAIL_IF(!m_s, err, INLET_ENOMEM, "out of memory");
  rc = delta_txn_set_extra_metrics(txn, m_s, err);
  free(m_s);
  return rc;
}

static int add_actions(delta_txn *txn, const delta_metadata *meta, const delta_snapshot *old,
                       const delta_snapshot *latest, const restore_plan *p, inlet_error *err) {
  int64_t now = delta_now_ms();
  if (p->metadata_differs) {
    delta_action ma;
    memset(&ma, 0, sizeof ma);
    ma.kind = DELTA_ACTION_METADATA;
    ma.u.metadata = *meta; /* borrowed: add_action copies */
    TRY(delta_txn_add_action(txn, &ma, err));
  }
  for (int64_t k = 0; k < p->n_remove; k++) {
    const delta_add *a = &latest->files[p->to_remove[k]].add;
    TRY(delta_txn_remove_file(txn, a, true, now, err));
  }
  for (int64_t k = 0; k < p->n_add; k++) {
    delta_action aa;
    memset(&aa, 0, sizeof aa);
    aa.kind = DELTA_ACTION_ADD;
    aa.u.add = old->files[p->to_add[k]].add; /* borrowed: add_action copies */
    aa.u.add.data_change = true;
    TRY(delta_txn_add_action(txn, &aa, err));
  }
  return 0;
}

static int64_t max_column_id(const delta_metadata *m) {
  const char *v = delta_metadata_conf(m, "delta.columnMapping.maxColumnId");
  char *end = NULL;
  long long x = v ? strtoll(v, &end, 10) : -1;
  return v && end != v && *end == '\0' ? x : -1;
}

/* The metaData the restore commits into @p out: @p old's, with the latest
 * maxColumnId when that is higher (@p conf and @p max then own its
 * configuration; the rest is borrowed from @p old). */
static int restored_metadata(delta_metadata *out, delta_kv **conf, char *max, size_t cap,
                             const delta_snapshot *old, const delta_snapshot *latest,
                             inlet_error *err) {
  *out = old->metadata;
  *conf = NULL;
  int om = delta_column_mapping_mode(&old->metadata);
  int lm = delta_column_mapping_mode(&latest->metadata);
  if (om == DELTA_CM_NONE && lm == DELTA_CM_NONE) return 0;
  FAIL_IF(om != lm, err, INLET_EUNSUPPORTED,
          "cannot restore version %lld: its column mapping mode (delta.columnMapping.mode=%s) "
          "differs from the latest version's (%s), and a table's mapping mode cannot change "
          "this way",
          (long long)old->version,
          om == DELTA_CM_NONE ? "none"
                              : delta_metadata_conf(&old->metadata, "delta.columnMapping.mode"),
          lm == DELTA_CM_NONE ? "none"
                              : delta_metadata_conf(&latest->metadata, "delta.columnMapping.mode"));
  int64_t lmax = max_column_id(&latest->metadata);
  if (lmax <= max_column_id(&old->metadata)) return 0;
  int32_t n = old->metadata.n_configuration;
  *conf = inlet_calloc((size_t)n + 1, sizeof **conf);
  FAIL_IF(!*conf, err, INLET_ENOMEM, "out of memory");
  memcpy(*conf, old->metadata.configuration, (size_t)n * sizeof **conf);
  snprintf(max, cap, "%lld", (long long)lmax);
  int32_t k = 0;
  while (k < n && strcmp((*conf)[k].key, "delta.columnMapping.maxColumnId") != 0)
    k++;
  (*conf)[k].key = (char *)"delta.columnMapping.maxColumnId"; /* borrowed */
  (*conf)[k].value = max;
  out->configuration = *conf;
  out->n_configuration = k == n ? n + 1 : n;
  return 0;
}

static bool is_true(const char *v) {
  return v && strcasecmp(v, "true") == 0;
}

/* One attempt against the latest version. INLET_ECONFLICT when a concurrent
 * commit took the version after the one read. */
static int attempt(inlet_table *t, const delta_snapshot *old, const inlet_restore_options *o,
                   inlet_restore_result *r, inlet_error *err) {
  delta_metadata meta; /* what the commit restores: borrowed, but conf */
  delta_kv *conf = NULL;
  char max[24];
  delta_snapshot latest;
  memset(&latest, 0, sizeof latest);
  restore_plan p;
  memset(&p, 0, sizeof p);
  delta_txn *txn = NULL;
  int rc = delta_table_load(t, &latest, DELTA_SNAP_LATEST, 0, err);
  if (rc < 0) return rc;
  r->read_version = latest.version;
  FAIL_GOTO(old->version >= latest.version, err, INLET_EINVAL,
            "cannot restore version %lld: it is not older than the latest version %lld",
            (long long)old->version, (long long)latest.version);
  TRY_GOTO(
      delta_features_check_write(&latest.protocol, &latest.metadata, DELTA_OP_RESTORE, 0, err));
  TRY_GOTO(restored_metadata(&meta, &conf, max, sizeof max, old, &latest, err));
  TRY_GOTO(delta_features_check_write(&latest.protocol, &meta, DELTA_OP_RESTORE, 0, err));
  TRY_GOTO(check_protocol(old, &latest, err));
  TRY_GOTO(plan_files(&p, old, &latest, err));
  TRY_GOTO(metadata_differs(&meta, &latest.metadata, &p.metadata_differs, err));
  FAIL_GOTO(p.n_remove > 0 && is_true(delta_metadata_conf(&latest.metadata, "delta.appendOnly")),
            err, INLET_EINVAL,
            "cannot restore version %lld: the table is append-only (delta.appendOnly=true) and "
            "restoring would remove %lld files",
            (long long)old->version, (long long)p.n_remove);
  r->files_restored = p.n_add;
  r->files_removed = p.n_remove;
  r->bytes_restored = r->bytes_removed = r->bytes_after = 0;
  for (int64_t k = 0; k < p.n_add; k++)
    r->bytes_restored = inlet_add_sat_i64(r->bytes_restored, old->files[p.to_add[k]].add.size);
  for (int64_t k = 0; k < p.n_remove; k++)
    r->bytes_removed = inlet_add_sat_i64(r->bytes_removed, latest.files[p.to_remove[k]].add.size);
  r->files_after = old->n_files;
  for (int64_t k = 0; k < old->n_files; k++)
    r->bytes_after = inlet_add_sat_i64(r->bytes_after, old->files[k].add.size);
  r->metadata_restored = p.metadata_differs;
  TRY_GOTO(check_files_present(t, old, &p, err));
  if (o->dry_run) goto done;

  TRY_GOTO(delta_txn_begin(&txn, delta_table_storage(t), delta_table_root(t), latest.version,
                           "RESTORE", err));
  delta_txn_set_table(txn, &latest.metadata);
  delta_txn_set_base(txn, &latest);
  delta_txn_set_strict(txn, true);
  TRY_GOTO(add_actions(txn, &meta, old, &latest, &p, err));
  TRY_GOTO(set_provenance(txn, o, r, err));
  /* The metaData the table has after the commit decides the checkpoint
   * interval of the writers' hook. */
  const delta_metadata *after = p.metadata_differs ? &meta : &latest.metadata;
  rc = delta_write_commit(t, txn, after, &r->version, NULL, err);
done:
  inlet_free(conf);
  delta_txn_free(txn);
  plan_reset(&p);
  delta_snapshot_reset(&latest);
  return rc;
}

int inlet_table_restore(inlet_restore_result *out, inlet_table *table,
                        const inlet_restore_options *options, inlet_error *err) {
  inlet_restore_result r;
  memset(&r, 0, sizeof r);
  r.read_version = r.restored_version = r.version = -1;
  if (out) *out = r;
  FAIL_IF(!table || !options, err, INLET_EINVAL, "restore: table and options are required");
  FAIL_IF(options->version != INLET_RESTORE_OPTIONS_VERSION, err, INLET_EINVAL,
          "restore: unsupported options version %d (expected %d)", options->version,
          INLET_RESTORE_OPTIONS_VERSION);
  FAIL_IF(options->max_attempts < 0, err, INLET_EINVAL, "restore: max_attempts must be >= 0");
  int attempts = options->max_attempts ? options->max_attempts : DEFAULT_ATTEMPTS;
  delta_snapshot old;
  memset(&old, 0, sizeof old);
  int rc = options->to_version >= 0
               ? delta_table_load(table, &old, DELTA_SNAP_VERSION, options->to_version, err)
               : delta_table_load(table, &old, DELTA_SNAP_TIMESTAMP, options->to_timestamp_ms, err);
  if (rc < 0) return inlet_error_prefix(err, "restore");
  r.restored_version = old.version;
  for (int i = 0; i < attempts; i++) {
    r.attempts = i + 1;
    rc = attempt(table, &old, options, &r, err);
    if (rc != INLET_ECONFLICT) break;
  }
  if (rc == INLET_ECONFLICT)
    inlet_error_prefix(err, "restore: gave up after %d attempts", attempts);
  delta_snapshot_reset(&old);
  if (rc < 0) r.version = -1;
  if (out) *out = r;
  return rc;
}
