/*
 * Log cleanup (include/inlet/maint.h inlet_table_cleanup_log): the public
 * entry to the log module's metadata cleanup (src/delta/delta_log_cleanup.c),
 * which writers also run after their checkpoints.
 *
 * Spec: PROTOCOL.md "Metadata Cleanup": log entries older than the
 * retention may be deleted, but only below a checkpoint, so that every
 * version inside the window can still be reconstructed; "Checkpoints"
 * (a checkpoint holds the full state: files, tombstones, txn positions,
 * so ingestion progress survives).
 *
 * The rule (what goes, what always stays) is in delta_log_cleanup.c.
 */
#include <stdio.h>

#include "delta/delta_table.h"
#include "maint/maint_int.h"
#include "util/util.h"

int inlet_table_cleanup_log(inlet_log_cleanup_result *out, inlet_table *table,
                            const inlet_log_cleanup_options *options, inlet_error *err) {
  inlet_log_cleanup_options dflt = INLET_LOG_CLEANUP_OPTIONS_INIT;
  FAIL_IF(options && options->version != INLET_LOG_CLEANUP_OPTIONS_VERSION, err, INLET_EINVAL,
          "log cleanup: unknown options version %d (this library has %d)", options->version,
          INLET_LOG_CLEANUP_OPTIONS_VERSION);
  inlet_log_cleanup_options o = options ? *options : dflt;
  inlet_log_cleanup_result res = {0, 0, -1};
  /* Only the retention and the latest version are needed: the version
   * checksum gives them without a replay when it agrees with the log. */
  delta_table_meta s;
  TRY(delta_table_load_meta(table, &s, err));
  /* retain_ms < 0: delta.logRetentionDuration, read by the log module as
   * for the writers' automatic cleanup (one parser, util/duration.c). */
  delta_log_cleanup_result r;
  inlet_storage *st = delta_table_storage(table);
  int rc = delta_log_cleanup_at(&r, st, &s.protocol, &s.metadata, s.version, o.retain_ms, o.now_ms,
                                o.dry_run, err);
  /* Temp files of killed writers, a day old (log_temps.c). */
  if (rc == 0)
    rc = maint_remove_log_temps(st, o.now_ms ? o.now_ms : delta_now_ms(), o.dry_run, NULL, NULL,
                                NULL, NULL, err);
  /* And incomplete multipart uploads of killed writers (S3), as old. */
  if (rc == 0)
    rc = maint_abort_stale_uploads(st, o.now_ms ? o.now_ms : delta_now_ms(), o.dry_run, NULL, NULL,
                                   NULL, err);
  res.commits_removed = r.commits_removed;
  res.checkpoints_removed = r.checkpoints_removed;
  res.oldest_kept = r.oldest_kept;
  delta_table_meta_reset(&s);
  if (out) *out = res;
  return rc;
}
