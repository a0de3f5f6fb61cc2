/*
 * Metadata cleanup: removes commit files and checkpoints that fell out of
 * delta.logRetentionDuration (default 30 days). It lives in the log module
 * because writers run it right after the checkpoints they write, as Spark
 * does (delta.enableExpiredLogCleanup); `inlet maintain` and compaction call
 * it through the public inlet_table_cleanup_log (src/maint).
 *
 * Spec: PROTOCOL.md "Metadata Cleanup": log entries older than the retention
 * may be deleted, but only below a checkpoint, so that every version inside
 * the window can still be reconstructed; "Checkpoints" (a checkpoint holds
 * the full state: files, tombstones, txn positions, so ingestion progress
 * survives).
 *
 * Rule: let W be the oldest commit whose timestamp (file mtime) is inside
 * the window. The boundary B is the newest checkpoint with version <= W.
 * Commits and checkpoints with version < B and timestamp older than the
 * window are deleted (checkpoint B and every commit from B on remain).
 * Files go oldest first: a crash midway leaves a log whose remaining commits
 * still form a contiguous run from B's checkpoint.
 */
#include <stdio.h>

#include "delta/delta.h"
#include "util/util.h"

#define DEFAULT_LOG_RETAIN_MS (30LL * 24 * 3600 * 1000)

static bool digits20(const char *s, int64_t *v) {
  int64_t x = 0;
  for (int i = 0; i < 20; i++) {
    if (s[i] < '0' || s[i] > '9') return false;
    if (x > (INT64_MAX - 9) / 10) return false;
    x = x * 10 + (s[i] - '0');
  }
  *v = x;
  return true;
}

int delta_log_cleanup(delta_log_cleanup_result *out, inlet_storage *st, const delta_snapshot *s,
                      int64_t retain_ms, int64_t now_ms, bool dry_run, inlet_error *err) {
  delta_log_cleanup_result res = {0, 0, -1};
  int rc = 0;
  delta_log_listing l;
  memset(&l, 0, sizeof l);
  inlet_dirent *ents = NULL;
  size_t n = 0;
  if (retain_ms < 0)
    retain_ms =
        delta_interval_conf_ms(&s->metadata, "delta.logRetentionDuration", DEFAULT_LOG_RETAIN_MS);
  int64_t now = now_ms ? now_ms : delta_now_ms();
  int64_t cutoff = now - retain_ms;
  TRY_GOTO(delta_log_list(&l, st, err));
  if (l.n_commits == 0 || l.n_checkpoints == 0) goto done;
  /* W: oldest commit inside the window (or the newest commit, which always stays). */
  int64_t w = l.commit_versions[l.n_commits - 1];
  for (int64_t i = 0; i < l.n_commits; i++)
    if (l.commit_mtimes[i] >= cutoff) {
      w = l.commit_versions[i];
      break;
    }
  int64_t boundary = -1;
  for (int64_t i = 0; i < l.n_checkpoints; i++)
    if (l.checkpoints[i].version <= w && l.checkpoints[i].version <= s->version)
      boundary = l.checkpoints[i].version;
  if (boundary <= 0) goto done;
  res.oldest_kept = boundary;
  TRY_GOTO(st->ops->list(st, "_delta_log", &ents, &n, err));
  /* The listing is sorted by name = by version for 20-digit names. */
  for (size_t i = 0; i < n; i++) {
    const char *nm = ents[i].name;
    int64_t v;
    if (ents[i].is_dir || strlen(nm) < 22 || !digits20(nm, &v) || nm[20] != '.') continue;
    if (v >= boundary) break;
    const char *rest = nm + 21;
    bool commit = strcmp(rest, "json") == 0;
    bool checkpoint = strncmp(rest, "checkpoint.", 11) == 0;
    bool crc = strcmp(rest, "crc") == 0;
    if (!commit && !checkpoint && !crc) continue;
    if (ents[i].mtime_ms >= cutoff) continue;
    if (!dry_run) {
      char path[128];
      snprintf(path, sizeof path, "_delta_log/%s", nm);
      int r = st->ops->remove(st, path, err);
      if (r < 0 && r != INLET_ENOTFOUND) {
        rc = r;
        goto done;
      }
    }
    if (commit)
      res.commits_removed++;
    else if (checkpoint)
      res.checkpoints_removed++;
  }
  if (!dry_run && (res.commits_removed || res.checkpoints_removed))
    TRY_GOTO(st->ops->sync_dir(st, "_delta_log", err));
done:
  inlet_dirents_free(ents, n);
  delta_log_listing_reset(&l);
  if (out) *out = res;
  return rc;
}
