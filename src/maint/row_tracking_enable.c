/*
 * Enabling row tracking on an existing table (include/inlet/maint.h
 * inlet_table_enable_row_tracking).
 *
 * Spec: PROTOCOL.md "Row Tracking" ("When the feature rowTracking is
 * supported, writers must assign ... to every file they add"; "delta.
 * enableRowTracking ... must only be set ... when all files have baseRowId
 * and defaultRowCommitVersion"), "Protocol Evolution". The three steps and
 * their operation names are Delta Spark's (RowTrackingBackfillCommand,
 * DeltaOperations.RowTrackingBackfill, AlterTableSetPropertiesDeltaCommand):
 *
 *   1. UPGRADE PROTOCOL adds rowTracking (and domainMetadata). From then on
 *      every writer assigns row ids to the files it adds, so the set of
 *      files without ids can only shrink.
 *   2. ROW TRACKING BACKFILL re-adds the live files without baseRowId with
 *      dataChange=false; the transaction assigns baseRowId (from the
 *      delta.rowTracking high-water mark) and defaultRowCommitVersion (the
 *      backfill's version) as it does for new files (delta_commit.c).
 *   3. SET TBLPROPERTIES turns delta.enableRowTracking on, with the
 *      materialized column names, once no live file lacks an id.
 *
 * Every commit is strict (it must land right after the version it read): a
 * re-add that lands after a concurrent remove of the same file would bring
 * the file back, and the property must not be set while a concurrent commit
 * could have added a file without ids. A lost commit starts over from the
 * new latest version.
 */
#include <string.h>

#include <jansson.h>

#include "delta/delta_features.h"
#include "delta/delta_row_tracking.h"
#include "delta/delta_table.h"
#include "delta/delta_write_txn.h"
#include "maint/maint_int.h"
#include "util/util.h"

#define ATTEMPTS 10

static int protocol_params(delta_txn *txn, const delta_protocol *p, inlet_error *err) {
  /* Spark's UpgradeProtocol parameters: the new protocol as JSON text. */
  json_t *np = json_object();
  json_object_set_new(np, "minReaderVersion", json_integer(p->min_reader));
  json_object_set_new(np, "minWriterVersion", json_integer(p->min_writer));
  if (p->reader_features) {
    json_t *rf = json_array();
    for (int32_t i = 0; i < p->n_reader_features; i++)
      json_array_append_new(rf, json_string(p->reader_features[i]));
    json_object_set_new(np, "readerFeatures", rf);
  }
  json_t *wf = json_array();
  for (int32_t i = 0; i < p->n_writer_features; i++)
    json_array_append_new(wf, json_string(p->writer_features[i]));
  json_object_set_new(np, "writerFeatures", wf);
  return delta_txn_set_json_param(txn, "newProtocol", np, err);
}

/* Begins a strict transaction on @p latest. */
static int begin(delta_txn **txn, inlet_table *t, const delta_snapshot *latest, const char *op,
                 inlet_error *err) {
  TRY(delta_txn_begin(txn, delta_table_storage(t), delta_table_root(t), latest->version, op, err));
  delta_txn_set_table(*txn, &latest->metadata);
  delta_txn_set_base(*txn, latest);
  delta_txn_set_strict(*txn, true);
  return 0;
}

/* One step against the latest version: whichever of the three is due.
 * *@p done when the property is on. INLET_ECONFLICT when a concurrent
 * commit took the version after the one read. */
static int step(inlet_table *t, inlet_row_tracking_result *r, bool *done, inlet_error *err) {
  delta_snapshot latest;
  memset(&latest, 0, sizeof latest);
  delta_protocol np;
  memset(&np, 0, sizeof np);
  delta_metadata nm;
  memset(&nm, 0, sizeof nm);
  bool have_nm = false;
  delta_txn *txn = NULL;
  int rc = delta_table_load(t, &latest, DELTA_SNAP_LATEST, 0, err);
  if (rc < 0) return rc;
  TRY_GOTO(
      delta_features_check_write(&latest.protocol, &latest.metadata, DELTA_OP_COMPACT, 0, err));
  if (delta_rt_enabled(&latest.protocol, &latest.metadata)) {
    *done = true;
    goto done;
  }
  FAIL_GOTO(!delta_rt_assigns(&latest.protocol, &latest.metadata) &&
                delta_protocol_supports(&latest.protocol, "rowTracking"),
            err, INLET_EINVAL,
            "cannot enable row tracking: row id assignment is suspended "
            "(delta.rowTracking.suspended=true)");
  int64_t v = -1;
  if (!delta_protocol_supports(&latest.protocol, "rowTracking")) {
    TRY_GOTO(delta_protocol_with_writer_feature(&np, &latest.protocol, "rowTracking", err));
    TRY_GOTO(delta_features_check_write(&np, &latest.metadata, DELTA_OP_COMPACT, 0, err));
    TRY_GOTO(begin(&txn, t, &latest, "UPGRADE PROTOCOL", err));
    TRY_GOTO(protocol_params(txn, &np, err));
    delta_action pa;
    memset(&pa, 0, sizeof pa);
    pa.kind = DELTA_ACTION_PROTOCOL;
    pa.u.protocol = np; /* borrowed: add_action copies */
    TRY_GOTO(delta_txn_add_action(txn, &pa, err));
    TRY_GOTO(delta_write_commit(t, txn, &latest.metadata, &v, NULL, err));
    r->protocol_version = v;
    goto done;
  }
  int64_t missing = 0;
  for (int64_t i = 0; i < latest.n_files; i++)
    if (!latest.files[i].add.has_base_row_id) missing++;
  if (missing > 0) {
    TRY_GOTO(begin(&txn, t, &latest, "ROW TRACKING BACKFILL", err));
    /* One batch: Spark numbers its batches from 0. */
    TRY_GOTO(delta_txn_set_params(txn, "{\"batchId\":\"0\"}", err));
    for (int64_t i = 0; i < latest.n_files; i++) {
      if (latest.files[i].add.has_base_row_id) continue;
      delta_action aa;
      memset(&aa, 0, sizeof aa);
      aa.kind = DELTA_ACTION_ADD;
      aa.u.add = latest.files[i].add; /* borrowed: add_action copies */
      aa.u.add.data_change = false;
      /* The id and its commit version are assigned together. */
      aa.u.add.has_default_row_commit_version = false;
      TRY_GOTO(delta_txn_add_action(txn, &aa, err));
    }
    TRY_GOTO(delta_write_commit(t, txn, &latest.metadata, &v, NULL, err));
    r->backfill_version = v;
    r->files_backfilled += missing;
    goto done;
  }
  TRY_GOTO(delta_metadata_copy(&nm, &latest.metadata, err));
  have_nm = true;
  TRY_GOTO(delta_rt_enable(&nm, err));
  TRY_GOTO(begin(&txn, t, &latest, "SET TBLPROPERTIES", err));
  TRY_GOTO(delta_txn_set_params(
      txn, "{\"properties\":\"{\\\"delta.enableRowTracking\\\":\\\"true\\\"}\"}", err));
  /* Spark's tag for a metaData change that only enables row tracking. */
  TRY_GOTO(delta_txn_set_tag(txn, "rowTrackingEnablementOnly", "true", err));
  delta_action ma;
  memset(&ma, 0, sizeof ma);
  ma.kind = DELTA_ACTION_METADATA;
  ma.u.metadata = nm; /* borrowed: add_action copies */
  TRY_GOTO(delta_txn_add_action(txn, &ma, err));
  TRY_GOTO(delta_write_commit(t, txn, &nm, &v, NULL, err));
  r->version = v;
  *done = true;
done:
  delta_txn_free(txn);
  delta_protocol_reset(&np);
  if (have_nm) delta_metadata_reset(&nm);
  delta_snapshot_reset(&latest);
  return rc;
}

int inlet_table_enable_row_tracking(inlet_row_tracking_result *out, inlet_table *table,
                                    inlet_error *err) {
  inlet_row_tracking_result r;
  memset(&r, 0, sizeof r);
  r.protocol_version = r.backfill_version = r.version = -1;
  if (out) *out = r;
  FAIL_IF(!table, err, INLET_EINVAL, "enable row tracking: no table");
  int rc = 0, lost = 0;
  bool done = false;
  /* Three steps land at most; each may lose to concurrent commits (a writer
   * that ignores the feature could keep adding files without ids: bounded). */
  while (!done && rc == 0 && r.attempts < 3 + ATTEMPTS) {
    r.attempts++;
    rc = step(table, &r, &done, err);
    if (rc == INLET_ECONFLICT && ++lost < ATTEMPTS) rc = 0;
  }
  if (!done && rc == 0)
    rc = inlet_fail(err, INLET_ECONFLICT, "concurrent commits kept adding files without row ids");
  if (rc == INLET_ECONFLICT)
    inlet_error_prefix(err, "enable row tracking: gave up after %d lost commits", lost);
  else if (rc < 0)
    inlet_error_prefix(err, "enable row tracking");
  if (out) *out = r;
  return rc;
}
