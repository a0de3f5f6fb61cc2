/*
 * inlet_table_commits (include/inlet/table.h): a summary of every commit
 * file, streamed newest first with the timestamps of history, one commit in
 * memory at a time. What `inlet report` charts comes from here and from
 * one snapshot: rows, bytes and files per commit, compactions and what they
 * rewrote, the commit metrics of ingest, and the removes' deletion times
 * that bound the time-travel window after a vacuum.
 *
 * Spec: PROTOCOL.md "Add File and Remove File", "Commit Provenance
 * Information", "In-Commit Timestamps".
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "delta/delta_table_int.h"
#include "util/util.h"

typedef struct walk {
  inlet_commit_summary s;
  char *commit_info;    /* owned, first commitInfo of the commit */
  int64_t data_changes; /* adds and removes with dataChange=true */
  bool rows_unknown;
} walk;

static int walk_cb(void *ctx, const delta_action *a, inlet_error *err) {
  walk *w = ctx;
  switch (a->kind) {
  case DELTA_ACTION_COMMIT_INFO:
    if (!w->commit_info) {
      w->commit_info = inlet_strdup(a->u.commit_info);
      if (!w->commit_info) return inlet_fail(err, INLET_ENOMEM, "out of memory reading commits");
    }
    break;
  case DELTA_ACTION_ADD: {
    w->s.files_added++;
    if (a->u.add.data_change) w->data_changes++;
    w->s.bytes_added = inlet_add_sat_i64(w->s.bytes_added, a->u.add.size > 0 ? a->u.add.size : 0);
    int64_t r = delta_stats_num_records(a->u.add.stats);
    if (r < 0)
      w->rows_unknown = true;
    else
      w->s.rows_added = inlet_add_sat_i64(w->s.rows_added, r);
    break;
  }
  case DELTA_ACTION_REMOVE: {
    const delta_remove *r = &a->u.remove;
    w->s.files_removed++;
    if (r->data_change) w->data_changes++;
    if (r->size >= 0)
      w->s.bytes_removed = inlet_add_sat_i64(w->s.bytes_removed, r->size);
    else
      w->s.removes_without_size++;
    if (r->deletion_timestamp >= 0) {
      if (r->deletion_timestamp > w->s.latest_deletion_ms)
        w->s.latest_deletion_ms = r->deletion_timestamp;
      if (w->s.oldest_deletion_ms < 0 || r->deletion_timestamp < w->s.oldest_deletion_ms)
        w->s.oldest_deletion_ms = r->deletion_timestamp;
    }
    break;
  }
  case DELTA_ACTION_METADATA: w->s.metadata = true; break;
  case DELTA_ACTION_PROTOCOL: w->s.protocol = true; break;
  default: break;
  }
  return 0;
}

static char *dump_field(json_t *o, const char *key, inlet_error *err, int *rc) {
  json_t *v = json_object_get(o, key);
  if (!v) return NULL;
  char *s = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
  if (!s) *rc = inlet_fail(err, INLET_ENOMEM, "out of memory reading commits");
  return s;
}

int delta_commits_walk(inlet_table *t, const delta_log_listing *l, int64_t max_version,
                       inlet_commit_fn fn, void *ctx, int64_t *commits, int64_t *compactions,
                       inlet_error *err) {
  int rc = 0;
  *commits = *compactions = 0;
  /* In-commit timestamps count for the run of newest commits that carry
   * one, as in inlet_table_history (delta_table.c fill_entry): walking
   * newest first decides it without a second pass. */
  bool ict_run = true;
  for (int64_t k = l->n_commits - 1; k >= 0 && rc == 0; k--) {
    if (max_version >= 0 && l->commit_versions[k] > max_version) continue;
    walk w;
    memset(&w, 0, sizeof w);
    w.s.version = l->commit_versions[k];
    w.s.timestamp_ms = l->commit_mtimes[k];
    w.s.latest_deletion_ms = -1;
    w.s.oldest_deletion_ms = -1;
    rc = delta_log_read_commit(t->st, t->root_abs, w.s.version, walk_cb, &w, err);
    if (rc == INLET_ENOTFOUND) {
      /* Log cleanup removed it since the listing: it is no longer history. */
      inlet_free(w.commit_info);
      inlet_error_clear(err);
      rc = 0;
      continue;
    }
    char *ops = NULL, *params = NULL, *metrics = NULL;
    json_t *o = NULL;
    if (rc == 0 && w.commit_info) {
      o = json_loads(w.commit_info, 0, NULL);
      json_t *ts = json_object_get(o, "inCommitTimestamp");
      if (ict_run && json_is_integer(ts))
        w.s.timestamp_ms = (int64_t)json_integer_value(ts);
      else
        ict_run = false;
      const char *op = json_string_value(json_object_get(o, "operation"));
      if (op && !(ops = inlet_strdup(op)))
        rc = inlet_fail(err, INLET_ENOMEM, "out of memory reading commits");
      if (rc == 0 && fn) params = dump_field(o, "operationParameters", err, &rc);
      if (rc == 0 && fn) metrics = dump_field(o, "operationMetrics", err, &rc);
    } else {
      ict_run = false;
    }
    if (rc == 0) {
      w.s.operation = ops;
      w.s.parameters_json = params;
      w.s.metrics_json = metrics;
      if (w.rows_unknown) w.s.rows_added = -1;
      /* A compaction: an OPTIMIZE commit (Spark's, Databricks' auto
       * compaction and inlet's own all say so), or, without commitInfo, a
       * commit that only rewrites files (adds and removes, all
       * dataChange=false). A DELETE or an UPDATE removes more files than it
       * adds but is no compaction. */
      w.s.compaction = w.commit_info
                           ? (ops && strcmp(ops, "OPTIMIZE") == 0)
                           : w.s.files_added > 0 && w.s.files_removed > 0 && w.data_changes == 0;
      (*commits)++;
      if (w.s.compaction) (*compactions)++;
      if (fn) rc = fn(ctx, &w.s, err);
    }
    json_decref(o);
    inlet_free(ops);
    free(params);
    free(metrics);
    inlet_free(w.commit_info);
  }
  return rc;
}

int inlet_table_commits(inlet_table *t, inlet_commit_fn fn, void *ctx, int64_t *n_commits,
                        inlet_error *err) {
  delta_log_listing l;
  TRY(delta_log_list(&l, t->st, err));
  if (n_commits) *n_commits = l.n_commits;
  int64_t commits, compactions;
  int rc = delta_commits_walk(t, &l, -1, fn, ctx, &commits, &compactions, err);
  delta_log_listing_reset(&l);
  return rc;
}

int64_t inlet_snapshot_deleted_file_retention_ms(const inlet_snapshot *s) {
  return delta_retention_ms(&s->snap.metadata);
}
