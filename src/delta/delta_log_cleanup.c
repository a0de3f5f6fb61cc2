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
 *
 * Cost: writers run this at every checkpoint, so it must not stat the whole
 * log. The directory is listed by name only (list_names); W is found by
 * stat'ing commits from the oldest up until the first inside the window, and
 * only entries below B are stat'ed for their own age. A log of 100,000
 * commits none of which has expired costs one directory read and one stat,
 * not 100,000 stats. A writer also remembers the oldest version a cleanup
 * left (delta_log_cleanup_if_due): while the commit there is inside the
 * window nothing can be cleaned (W is that commit, so B is at or below it
 * and nothing lies below B), and the directory is not read at all. Once the
 * oldest commits expire every checkpoint lists again, so a log that keeps
 * expiring costs one names-only read of `_delta_log` per checkpoint: the
 * entries inside delta.logRetentionDuration, not the table's whole history.
 */
#include <stdio.h>

#include "delta/delta_features.h"
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

/* A commit, checkpoint or crc file (the kinds cleanup removes), with its
 * version. */
static bool cleanable(const inlet_dirent *e, int64_t *v, bool *commit, bool *checkpoint) {
  const char *nm = e->name;
  if (e->is_dir || strlen(nm) < 22 || !digits20(nm, v) || nm[20] != '.') return false;
  const char *rest = nm + 21;
  *commit = strcmp(rest, "json") == 0;
  *checkpoint = strncmp(rest, "checkpoint.", 11) == 0;
  return *commit || *checkpoint || strcmp(rest, "crc") == 0;
}

/* Version of the first cleanable entry of a sorted listing, -1 if none. */
static int64_t first_cleanable(const inlet_dirent *ents, size_t n) {
  for (size_t i = 0; i < n; i++) {
    int64_t v;
    bool c, k;
    if (cleanable(&ents[i], &v, &c, &k)) return v;
  }
  return -1;
}

/* mtime of `_delta_log/<name>`: 0, INLET_ENOTFOUND (removed meanwhile), or
 * the stat error. */
static int entry_mtime(inlet_storage *st, const char *name, int64_t *mtime, inlet_error *err) {
  char path[128];
  snprintf(path, sizeof path, "_delta_log/%s", name);
  inlet_dirent de;
  memset(&de, 0, sizeof de);
  inlet_error e1 = INLET_ERROR_INIT;
  int rc = st->ops->stat(st, path, &de, &e1);
  inlet_free(de.name);
  if (rc == INLET_ENOTFOUND) return rc;
  if (rc < 0) return inlet_fail(err, rc, "%s", inlet_errmsg(&e1));
  *mtime = de.mtime_ms;
  return 0;
}

int delta_log_cleanup(delta_log_cleanup_result *out, inlet_storage *st, const delta_snapshot *s,
                      int64_t retain_ms, int64_t now_ms, bool dry_run, inlet_error *err) {
  delta_log_cleanup_result res = {0, 0, -1, -1};
  if (out) *out = res;
  TRY(delta_features_check_write(&s->protocol, &s->metadata, DELTA_OP_LOG_CLEANUP, 0, err));
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
  rc = st->ops->list_names(st, "_delta_log", &ents, &n, err);
  if (rc == INLET_ENOTFOUND)
    rc = inlet_fail(err, INLET_ENOTFOUND, "not a Delta table: %s has no _delta_log directory",
                    st->root);
  if (rc < 0) goto done;
  TRY_GOTO(delta_log_listing_from(&l, ents, n, err));
  res.oldest_left = first_cleanable(ents, n);
  if (l.n_commits == 0 || l.n_checkpoints == 0) goto done;
  /* W: oldest commit inside the window (or the newest commit, which always
   * stays); a commit removed since the listing is skipped, as a listing
   * taken a moment later would not have had it. */
  int64_t w = l.commit_versions[l.n_commits - 1];
  for (int64_t i = 0; i < l.n_commits; i++) {
    char name[64];
    snprintf(name, sizeof name, "%020lld.json", (long long)l.commit_versions[i]);
    int64_t mt = 0;
    int r = entry_mtime(st, name, &mt, err);
    if (r == INLET_ENOTFOUND) continue;
    if (r < 0) {
      rc = r;
      goto done;
    }
    if (mt >= cutoff) {
      w = l.commit_versions[i];
      break;
    }
  }
  int64_t boundary = -1;
  for (int64_t i = 0; i < l.n_checkpoints; i++)
    if (l.checkpoints[i].version <= w && l.checkpoints[i].version <= s->version)
      boundary = l.checkpoints[i].version;
  if (boundary <= 0) goto done;
  res.oldest_kept = boundary;
  res.oldest_left = -1;
  /* The listing is sorted by name = by version for 20-digit names. */
  for (size_t i = 0; i < n; i++) {
    const char *nm = ents[i].name;
    int64_t v;
    bool commit, checkpoint;
    if (!cleanable(&ents[i], &v, &commit, &checkpoint)) continue;
    if (v >= boundary) {
      if (res.oldest_left < 0) res.oldest_left = v;
      break;
    }
    int64_t mt = 0;
    int r = entry_mtime(st, nm, &mt, err);
    if (r == INLET_ENOTFOUND) continue;
    if (r < 0) {
      rc = r;
      goto done;
    }
    if (mt >= cutoff || dry_run) {
      if (res.oldest_left < 0) res.oldest_left = v;
      if (mt >= cutoff) continue;
    }
    if (!dry_run) {
      char path[128];
      snprintf(path, sizeof path, "_delta_log/%s", nm);
      r = st->ops->remove(st, path, err);
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

int delta_log_cleanup_if_due(inlet_storage *st, const delta_snapshot *s, int64_t *oldest,
                             inlet_error *err) {
  int64_t retain =
      delta_interval_conf_ms(&s->metadata, "delta.logRetentionDuration", DEFAULT_LOG_RETAIN_MS);
  int64_t now = delta_now_ms();
  if (*oldest >= 0) {
    char name[64];
    snprintf(name, sizeof name, "%020lld.json", (long long)*oldest);
    int64_t mt = 0;
    inlet_error ignore = INLET_ERROR_INIT;
    if (entry_mtime(st, name, &mt, &ignore) == 0 && mt >= now - retain) return 0;
  }
  delta_log_cleanup_result r;
  int rc = delta_log_cleanup(&r, st, s, retain, now, false, err);
  *oldest = rc == 0 && r.oldest_left >= 0 ? r.oldest_left : 0;
  return rc;
}
