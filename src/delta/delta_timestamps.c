/*
 * Commit timestamps for time travel: which version `--as-of T` selects.
 *
 * Spec: PROTOCOL.md "In-Commit Timestamps" ("Recommendations for Readers"):
 * on a table with in-commit timestamps enabled, versions from
 * delta.inCommitTimestampEnablementVersion on are timed by their commitInfo's
 * inCommitTimestamp, earlier ones by their commit file's modification time;
 * a time at or after delta.inCommitTimestampEnablementTimestamp only
 * considers the former, an earlier time only the latter. File times are
 * monotonized as Spark does (delta_log_listing_from): a commit whose file is
 * not newer than its predecessor's counts as one millisecond after it.
 *
 * This follows Spark's DeltaHistoryManager.getActiveCommitAtTime: the newest
 * recreatable version whose timestamp is at or before T; a T before the
 * earliest one is an error. In-commit timestamps only grow, so the search
 * over them is a binary search that reads O(log n) commit files.
 */
#include <stdio.h>

#include "delta/delta_features.h"
#include "util/util.h"

/* Spark's getEarliestRecreatableCommit: version 0 when its commit is there,
 * else the oldest complete checkpoint whose following commits are. */
static int64_t earliest_recreatable(const delta_log_listing *l) {
  if (l->n_commits == 0) return -1;
  int64_t first = l->commit_versions[0];
  if (first == 0) return 0;
  for (int64_t i = 0; i < l->n_checkpoints; i++)
    if (l->checkpoints[i].version >= first - 1) return l->checkpoints[i].version;
  return -1;
}

static bool conf_long(const delta_metadata *m, const char *key, int64_t *out) {
  const char *v = delta_metadata_conf(m, key);
  if (!v) return false;
  char *end = NULL;
  long long x = strtoll(v, &end, 10);
  if (end == v || *end || x < 0) return false;
  *out = x;
  return true;
}

int delta_commit_at_timestamp(inlet_storage *st, const char *root_abs, const delta_snapshot *latest,
                              int64_t ts, bool recreatable, int64_t *version, int64_t *version_ts,
                              int64_t *first, inlet_error *err) {
  *version = *version_ts = *first = -1;
  delta_log_listing l;
  TRY(delta_log_list(&l, st, err));
  int rc = 0;
  /* Time travel needs a version it can rebuild; the start of a change data
   * feed read only a commit (Spark's mustBeRecreatable=false). */
  int64_t earliest = recreatable   ? earliest_recreatable(&l)
                     : l.n_commits ? l.commit_versions[0]
                                   : -1;
  FAIL_GOTO(earliest < 0, err, INLET_ENOTFOUND,
            "no version of the table can be reconstructed to travel to");
  int64_t lo = delta_log_listing_find(&l, earliest); /* candidates: listing [lo, hi) */
  int64_t hi = delta_log_listing_find(&l, latest->version + 1);
  FAIL_GOTO(lo >= hi, err, INLET_ENOTFOUND, "no commit to travel to");
  *first = l.commit_versions[lo];
  /* The in-commit timestamp range: [ict_lo, hi) with its first timestamp. */
  int64_t ict_lo = hi, ev = -1, et = -1;
  if (delta_ict_enabled(&latest->metadata)) {
    bool have_ev = conf_long(&latest->metadata, "delta.inCommitTimestampEnablementVersion", &ev);
    bool have_et = conf_long(&latest->metadata, "delta.inCommitTimestampEnablementTimestamp", &et);
    if (have_ev && have_et && ev > l.commit_versions[lo]) {
      ict_lo = delta_log_listing_find(&l, ev);
    } else {
      ict_lo = lo; /* enabled for every commit there is */
      et = -1;
    }
  }
  if (ict_lo < hi && (et < 0 || ts >= et)) {
    /* Newest commit in [ict_lo, hi) whose inCommitTimestamp <= ts. */
    int64_t a = ict_lo, b = hi, found = -1, found_ts = -1;
    while (a < b) {
      int64_t mid = a + (b - a) / 2, ict;
      rc = delta_commit_ict(st, root_abs, l.commit_versions[mid], &ict, err);
      if (rc < 0) goto done;
      FAIL_GOTO(ict < 0, err, INLET_ECORRUPT,
                "commit %lld has no inCommitTimestamp although the table enables in-commit "
                "timestamps from version %lld on",
                (long long)l.commit_versions[mid], (long long)l.commit_versions[ict_lo]);
      if (ict <= ts) {
        found = mid;
        found_ts = ict;
        a = mid + 1;
      } else {
        b = mid;
      }
    }
    if (found >= 0) {
      *version = l.commit_versions[found];
      *version_ts = found_ts;
      goto done;
    }
    if (ict_lo == lo || et < 0) goto done; /* before every commit */
  }
  /* File times (monotonized) over [lo, ict_lo). */
  for (int64_t i = ict_lo - 1; i >= lo; i--)
    if (l.commit_mtimes[i] <= ts) {
      *version = l.commit_versions[i];
      *version_ts = l.commit_mtimes[i];
      goto done;
    }
done:
  delta_log_listing_reset(&l);
  return rc;
}

int delta_version_at_timestamp(inlet_storage *st, const char *root_abs,
                               const delta_snapshot *latest, int64_t ts, int64_t *version,
                               inlet_error *err) {
  int64_t vts, first;
  TRY(delta_commit_at_timestamp(st, root_abs, latest, ts, true, version, &vts, &first, err));
  FAIL_IF(*version < 0, err, INLET_ENOTFOUND,
          "no version of the table was committed at or before timestamp %lld ms (the "
          "earliest available is version %lld)",
          (long long)ts, (long long)first);
  return 0;
}
