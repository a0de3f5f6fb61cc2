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
 * the window. The boundary B is the newest checkpoint with version <= W that
 * inlet can read back (classic or multi-part, every part a readable Parquet
 * file: deleting the commits below a checkpoint nobody can read would lose
 * the table's history for good). Commits, version checksums (.crc) and
 * checkpoints with version < B and timestamp older than the window are
 * deleted, as are log compaction files (x.y.compacted.json) that end below
 * B; checkpoint B and every commit from B on remain. A checkpoint file is
 * judged by its own age too: one written inside the window stays whatever
 * version it holds. Files go oldest first: a crash midway leaves a log
 * whose remaining commits still form a contiguous run from B's checkpoint.
 *
 * UUID-named v2 checkpoints (`n.checkpoint.<uuid>.{json,parquet}`) count
 * like classic ones, as boundary and as expired files; one stands as the
 * boundary only when its own file reads and every sidecar it names opens as
 * Parquet. Sidecars (PROTOCOL.md "Metadata Cleanup", steps 4-5): after the
 * expired checkpoints are gone, every checkpoint left is read for the
 * sidecars it names, and a file of `_delta_log/_sidecars` that none names
 * is deleted once it is older than both the retention and a day (the day
 * protects the sidecars of a checkpoint being written right now, which
 * nothing names yet). When any remaining checkpoint cannot be read, no
 * sidecar is deleted: which ones it needs is unknown. A table without a
 * `_sidecars` directory costs one empty listing.
 *
 * Never deleted, whoever wrote them: anything in other subdirectories,
 * `_last_checkpoint`, and names that match no kind above.
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
#include "delta/delta_table_int.h"
#include "parquet/pq_reader.h"
#include "util/util.h"

#define DEFAULT_LOG_RETAIN_MS DELTA_DEFAULT_LOG_RETAIN_MS
/* PROTOCOL.md "Metadata Cleanup": sidecars less than a day old are kept,
 * whatever the retention, so a checkpoint being written keeps its own. */
#define SIDECAR_MIN_AGE_MS (24LL * 3600 * 1000)

static bool digits(const char *s, int n, int64_t *v) {
  int64_t x = 0;
  for (int i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return false;
    if (x > (INT64_MAX - 9) / 10) return false;
    x = x * 10 + (s[i] - '0');
  }
  *v = x;
  return true;
}

typedef enum entry_kind {
  K_OTHER = 0, /* never removed */
  K_COMMIT,
  K_CHECKPOINT, /* classic or one part of a multi-part checkpoint */
  K_CRC,
  K_COMPACTED /* x.y.compacted.json: *v = x, *end = y */
} entry_kind;

/* The kind of a `_delta_log` entry cleanup may remove, with its version. */
static entry_kind classify(const inlet_dirent *e, int64_t *v, int64_t *end) {
  const char *nm = e->name;
  size_t len = strlen(nm);
  if (e->is_dir || len < 22 || !digits(nm, 20, v) || nm[20] != '.') return K_OTHER;
  const char *rest = nm + 21;
  *end = *v;
  if (strcmp(rest, "json") == 0) return K_COMMIT;
  if (strcmp(rest, "crc") == 0) return K_CRC;
  if (strcmp(rest, "checkpoint.parquet") == 0) return K_CHECKPOINT;
  /* UUID-named v2: "checkpoint." + 36-character UUID + ".json"/".parquet". */
  if (strncmp(rest, "checkpoint.", 11) == 0 && strlen(rest) > 48 && rest[47] == '.' &&
      (strcmp(rest + 48, "json") == 0 || strcmp(rest + 48, "parquet") == 0))
    return K_CHECKPOINT;
  int64_t o, p;
  if (strncmp(rest, "checkpoint.", 11) == 0 && strlen(rest) == 40 && digits(rest + 11, 10, &o) &&
      rest[21] == '.' && digits(rest + 22, 10, &p) && strcmp(rest + 32, ".parquet") == 0)
    return K_CHECKPOINT;
  if (strlen(rest) == 35 && digits(rest, 20, end) && strcmp(rest + 20, ".compacted.json") == 0 &&
      *end > *v)
    return K_COMPACTED;
  return K_OTHER;
}

/* Version of the first removable entry of a sorted listing, -1 if none. */
static int64_t first_cleanable(const inlet_dirent *ents, size_t n) {
  for (size_t i = 0; i < n; i++) {
    int64_t v, end;
    if (classify(&ents[i], &v, &end) != K_OTHER) return v;
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

static void free_names(char **names, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    inlet_free(names[i]);
  inlet_free(names);
}

static int no_op(void *ctx, const delta_action *a, inlet_error *err) {
  (void)ctx, (void)a, (void)err;
  return 0;
}

/* Whether the sidecars @p cp names all open as Parquet files (and, for a
 * JSON v2 checkpoint, whether its own lines parse). */
static bool sidecars_readable(inlet_storage *st, const delta_checkpoint_ref *cp) {
  inlet_error e = INLET_ERROR_INIT;
  if (cp->v2 && strlen(cp->name) > 5 && strcmp(cp->name + strlen(cp->name) - 5, ".json") == 0) {
    char path[160];
    snprintf(path, sizeof path, "_delta_log/%s", cp->name);
    if (delta_log_read_file(st, NULL, path, no_op, NULL, &e) < 0) return false;
  }
  char **names = NULL;
  int64_t n = 0;
  if (delta_checkpoint_sidecars(&names, &n, st, cp, &e) < 0) return false;
  bool ok = true;
  for (int64_t i = 0; ok && i < n; i++) {
    char path[256];
    snprintf(path, sizeof path, "_delta_log/_sidecars/%s", names[i]);
    inlet_parquet_reader *rd = NULL;
    ok = pq_reader_open_storage(&rd, st, path, -1, NULL, &e) == 0;
    inlet_parquet_reader_free(rd);
  }
  free_names(names, n);
  return ok;
}

/* Whether every part of checkpoint @p cp opens as a Parquet file with the
 * action columns (a v2 one: its file reads), and every sidecar it names
 * opens: only such a checkpoint may stand in for the commits below it. */
static bool checkpoint_readable(inlet_storage *st, const delta_checkpoint_ref *cp) {
  if (cp->v2) return sidecars_readable(st, cp);
  for (int32_t p = 1; p <= cp->parts; p++) {
    char name[128];
    if (cp->parts <= 1)
      snprintf(name, sizeof name, "_delta_log/%020lld.checkpoint.parquet", (long long)cp->version);
    else
      snprintf(name, sizeof name, "_delta_log/%020lld.checkpoint.%010d.%010d.parquet",
               (long long)cp->version, (int)p, (int)cp->parts);
    inlet_parquet_reader *rd = NULL;
    inlet_error e = INLET_ERROR_INIT;
    bool ok = pq_reader_open_storage(&rd, st, name, -1, NULL, &e) == 0;
    if (ok) {
      const inlet_schema *fs = inlet_parquet_reader_schema(rd);
      int idx = inlet_schema_find(fs, "protocol");
      ok = (p > 1 || cp->parts > 1 || idx >= 0) &&
           (idx < 0 || fs->fields[idx].type.id == INLET_TYPE_STRUCT);
    }
    inlet_parquet_reader_free(rd);
    if (!ok) return false;
  }
  return sidecars_readable(st, cp);
}

static bool name_in(const char *name, char **names, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    if (strcmp(names[i], name) == 0) return true;
  return false;
}

/* Deletes (or counts, @p dry_run) the files of `_delta_log/_sidecars` that
 * no checkpoint left in the log names and whose mtime is before @p cutoff. */
static int clean_sidecars(inlet_storage *st, int64_t cutoff, bool dry_run, int64_t *removed,
                          inlet_error *err) {
  inlet_list_options o = INLET_LIST_OPTIONS_INIT;
  o.attrs = true;
  inlet_dirent *sc = NULL, *ents = NULL;
  size_t n_sc = 0, n = 0;
  TRY(st->ops->list_from(st, "_delta_log/_sidecars", &o, &sc, &n_sc, err));
  if (n_sc == 0) return 0;
  char **used = NULL;
  int64_t n_used = 0;
  delta_log_listing l;
  memset(&l, 0, sizeof l);
  int rc = st->ops->list_names(st, "_delta_log", &ents, &n, err);
  if (rc == 0) rc = delta_log_listing_from(&l, ents, n, err);
  bool all_known = true;
  for (int64_t i = 0; rc == 0 && all_known && i < l.n_checkpoints; i++) {
    char **names = NULL;
    int64_t k = 0;
    inlet_error e1 = INLET_ERROR_INIT;
    int r = delta_checkpoint_sidecars(&names, &k, st, &l.checkpoints[i], &e1);
    if (r == INLET_ENOMEM) rc = inlet_fail(err, r, "%s", inlet_errmsg(&e1));
    if (r < 0) {
      all_known = false; /* its sidecars are unknown: keep them all */
      continue;
    }
    if (k == 0) {
      inlet_free(names);
      continue;
    }
    char **u = inlet_realloc(used, (size_t)(n_used + k) * sizeof *u);
    if (!u) {
      free_names(names, k);
      rc = inlet_fail(err, INLET_ENOMEM, "out of memory listing sidecars");
      break;
    }
    used = u;
    for (int64_t j = 0; j < k; j++)
      used[n_used++] = names[j];
    inlet_free(names);
  }
  int64_t count = 0;
  for (size_t i = 0; rc == 0 && all_known && i < n_sc; i++) {
    const inlet_dirent *e = &sc[i];
    if (e->is_dir || e->name[0] == '.' || e->mtime_ms < 0 || e->mtime_ms >= cutoff) continue;
    if (name_in(e->name, used, n_used)) continue;
    if (!dry_run) {
      char path[512];
      snprintf(path, sizeof path, "_delta_log/_sidecars/%s", e->name);
      int r = st->ops->remove(st, path, err);
      if (r < 0 && r != INLET_ENOTFOUND) {
        rc = r;
        break;
      }
    }
    count++;
  }
  if (rc == 0 && count && !dry_run) rc = st->ops->sync_dir(st, "_delta_log/_sidecars", err);
  *removed = count;
  free_names(used, n_used);
  delta_log_listing_reset(&l);
  inlet_dirents_free(ents, n);
  inlet_dirents_free(sc, n_sc);
  return rc;
}

int delta_log_cleanup_at(delta_log_cleanup_result *out, inlet_storage *st, const delta_protocol *p,
                         const delta_metadata *m, int64_t version, int64_t retain_ms,
                         int64_t now_ms, bool dry_run, inlet_error *err) {
  delta_log_cleanup_result res = {0, 0, -1, -1, 0};
  if (out) *out = res;
  TRY(delta_features_check_write(p, m, DELTA_OP_LOG_CLEANUP, 0, err));
  int rc = 0;
  delta_log_listing l;
  memset(&l, 0, sizeof l);
  inlet_dirent *ents = NULL;
  size_t n = 0;
  if (retain_ms < 0)
    retain_ms = delta_interval_conf_ms(m, "delta.logRetentionDuration", DEFAULT_LOG_RETAIN_MS);
  int64_t now = now_ms ? now_ms : delta_now_ms();
  int64_t cutoff = now - retain_ms;
  rc = st->ops->list_names(st, "_delta_log", &ents, &n, err);
  if (rc == INLET_ENOTFOUND)
    rc = inlet_fail(err, INLET_ENOTFOUND, "not a Delta table: %s has no _delta_log directory",
                    st->root);
  if (rc < 0) goto done;
  TRY_GOTO(delta_log_listing_from(&l, ents, n, err));
  res.oldest_left = first_cleanable(ents, n);
  if (l.n_commits == 0 || l.n_checkpoints == 0) goto sidecars;
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
  for (int64_t i = l.n_checkpoints - 1; i >= 0 && boundary < 0; i--) {
    const delta_checkpoint_ref *cp = &l.checkpoints[i];
    if (cp->version <= w && cp->version <= version && checkpoint_readable(st, cp))
      boundary = cp->version;
  }
  if (boundary <= 0) goto sidecars;
  res.oldest_kept = boundary;
  res.oldest_left = -1;
  /* The listing is sorted by name = by (start) version for 20-digit names. */
  for (size_t i = 0; i < n; i++) {
    const char *nm = ents[i].name;
    int64_t v, end;
    entry_kind kind = classify(&ents[i], &v, &end);
    if (kind == K_OTHER) continue;
    if (v >= boundary) {
      if (res.oldest_left < 0) res.oldest_left = v;
      break;
    }
    if (end >= boundary) continue; /* a compaction reaching past B */
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
    if (kind == K_COMMIT)
      res.commits_removed++;
    else if (kind == K_CHECKPOINT)
      res.checkpoints_removed++;
  }
  if (!dry_run && (res.commits_removed || res.checkpoints_removed))
    TRY_GOTO(st->ops->sync_dir(st, "_delta_log", err));
sidecars:
  TRY_GOTO(clean_sidecars(st, cutoff < now - SIDECAR_MIN_AGE_MS ? cutoff : now - SIDECAR_MIN_AGE_MS,
                          dry_run, &res.sidecars_removed, err));
done:
  inlet_dirents_free(ents, n);
  delta_log_listing_reset(&l);
  if (out) *out = res;
  return rc;
}

int delta_log_cleanup(delta_log_cleanup_result *out, inlet_storage *st, const delta_snapshot *s,
                      int64_t retain_ms, int64_t now_ms, bool dry_run, inlet_error *err) {
  return delta_log_cleanup_at(out, st, &s->protocol, &s->metadata, s->version, retain_ms, now_ms,
                              dry_run, err);
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
