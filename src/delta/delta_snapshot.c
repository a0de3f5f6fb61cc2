/*
 * Snapshots: log replay into the state of a table at one version.
 *
 * Spec: PROTOCOL.md "Action Reconciliation" (the newest protocol and
 * metaData win; a file is live when its newest add has no later remove, the
 * key being path + deletion vector id; txn versions per appId; domain
 * metadata per domain), "Checkpoints" (start from the newest complete
 * checkpoint at or below the target; the commits after it must be
 * contiguous), "Log Compaction Files" (use_compaction), "Reader Version
 * Requirements" and "Table Features".
 *
 * The replay runs forward over the commits into a delta_state (the
 * reconciliation rules live in delta_state.c), so memory is bounded by the
 * live files and tombstones rather than by the history. The
 * directory listing is authoritative for which checkpoints and commits
 * exist; `_last_checkpoint` is only a hint to avoid listing on object
 * stores, so a missing or corrupt one changes nothing here.
 *
 * Checkpoints of every kind (classic, multi-part, UUID-named v2 with their
 * sidecars) are read by delta_checkpoint.c (nested Parquet through the
 * public reader, or JSON). A checkpoint that cannot be used (a missing or
 * corrupt part or sidecar) is passed over for
 * an older one, else the replay starts from the JSON commits at version 0
 * when they all still exist; otherwise the error names the checkpoint.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delta/delta_features.h"
#include "delta/delta_replay_par.h"
#include "delta/delta_state_int.h"
#include "util/util.h"

static bool in_list(const char *f, const char *const *list) {
  for (; *list; list++)
    if (strcmp(f, *list) == 0) return true;
  return false;
}

/* Reader version and features inlet can honour. Deletion vectors are checked
 * per live file instead: a table may enable them yet have none. */
int delta_check_reader(const delta_protocol *p, const delta_metadata *m, inlet_error *err) {
  static const char *const ok[] = {"timestampNtz",
                                   "vacuumProtocolCheck",
                                   "typeWidening",
                                   "typeWidening-preview",
                                   "v2Checkpoint",
                                   "deletionVectors",
                                   "columnMapping",
                                   "variantType",
                                   "variantType-preview",
                                   "variantShredding",
                                   "variantShredding-preview",
                                   NULL};
  if (p->min_reader > 3 || p->min_reader < 1)
    return inlet_fail(err, INLET_EUNSUPPORTED,
                      "table requires reader version %d (inlet reads "
                      "versions 1 to 3)",
                      (int)p->min_reader);
  if (p->min_reader == 3) {
    for (int32_t i = 0; i < p->n_reader_features; i++)
      if (!in_list(p->reader_features[i], ok))
        return inlet_fail(err, INLET_EUNSUPPORTED, "table requires reader feature \"%s\"",
                          p->reader_features[i]);
  }
  /* Column mapping is read (delta_column_mapping.c); a mode inlet does not
   * know is refused there, by delta_snapshot_set_mapping. */
  (void)m;
  return 0;
}

static int64_t find_commit(const delta_log_listing *l, int64_t v) {
  int64_t i = delta_log_listing_find(l, v);
  return i < l->n_commits && l->commit_versions[i] == v ? i : -1;
}

/* A listing of the commit files from @p from on, found by probing names in
 * order until one is missing. */
static int probe_commits(delta_log_listing *l, inlet_storage *st, int64_t from, inlet_error *err) {
  memset(l, 0, sizeof *l);
  int64_t cap = 0;
  for (int64_t v = from;; v++) {
    char name[64];
    delta_commit_name(name, v);
    inlet_dirent de;
    memset(&de, 0, sizeof de);
    inlet_error e1 = INLET_ERROR_INIT;
    int rc = st->ops->stat(st, name, &de, &e1);
    inlet_free(de.name);
    if (rc == INLET_ENOTFOUND) return 0;
    if (rc < 0) {
      delta_log_listing_reset(l);
      return inlet_fail(err, rc, "%s", inlet_errmsg(&e1));
    }
    if (l->n_commits == cap) {
      cap = cap ? cap * 2 : 8;
      int64_t *a = inlet_realloc(l->commit_versions, (size_t)cap * sizeof *a);
      if (a) l->commit_versions = a;
      int64_t *b = a ? inlet_realloc(l->commit_mtimes, (size_t)cap * sizeof *b) : NULL;
      if (b) l->commit_mtimes = b;
      if (!a || !b) {
        delta_log_listing_reset(l);
        return inlet_fail(err, INLET_ENOMEM, "out of memory probing the log");
      }
    }
    l->commit_versions[l->n_commits] = v;
    /* Monotonized like a listing's (delta_log_listing_from). */
    int64_t prev = l->n_commits ? l->commit_mtimes[l->n_commits - 1] : -1;
    l->commit_mtimes[l->n_commits] = prev >= 0 && de.mtime_ms <= prev ? prev + 1 : de.mtime_ms;
    l->n_commits++;
  }
}

static int state_load(delta_state **out, const delta_snapshot *base, inlet_storage *st,
                      const char *root_abs, delta_snap_mode mode, int64_t arg, bool use_hint,
                      int threads, inlet_error *err);

/* The latest version through the `_last_checkpoint` hint, without listing:
 * on any failure the caller retries with a full listing, which is
 * authoritative (a missing, stale or corrupt hint never changes a result). */
static int state_load_hinted(delta_state **out, inlet_storage *st, const char *root_abs,
                             int threads, inlet_error *err) {
  inlet_error e1 = INLET_ERROR_INIT;
  int rc = state_load(out, NULL, st, root_abs, DELTA_SNAP_LATEST, 0, true, threads, &e1);
  if (rc == 0) return 0;
  return state_load(out, NULL, st, root_abs, DELTA_SNAP_LATEST, 0, false, threads, err);
}

/* A loaded state (@p rc its load's result), checked and turned into a
 * snapshot; frees the state. @p log_only: what only the log is read for
 * (describe, history) needs no reader features, readable schema or
 * deletion-vector support. */
static int state_to_snapshot(delta_snapshot *out, int rc, delta_state *s, bool log_only,
                             inlet_error *err) {
  memset(out, 0, sizeof *out);
  out->checkpoint_version = -1;
  if (rc == 0) {
    delta_state_set_log_only(s, log_only);
    rc = delta_state_snapshot(s, out, true, err);
  }
  delta_state_free(s);
  return rc;
}

/* The version the table had at time @p ts: the latest state decides how
 * commits are timed (in-commit timestamps and their enablement version). */
static int version_at_timestamp(const delta_snapshot *base, inlet_storage *st, const char *root_abs,
                                int64_t ts, int threads, int64_t *v, inlet_error *err) {
  delta_state *ls = NULL;
  int rc = base ? state_load(&ls, base, st, root_abs, DELTA_SNAP_LATEST, 0, false, threads, err)
                : state_load_hinted(&ls, st, root_abs, threads, err);
  delta_snapshot latest;
  memset(&latest, 0, sizeof latest);
  if (rc == 0) rc = delta_state_head(ls, &latest, err);
  delta_state_free(ls);
  if (rc == 0) rc = delta_version_at_timestamp(st, root_abs, &latest, ts, v, err);
  delta_snapshot_reset(&latest);
  return rc;
}

static int state_load_any(delta_state **out, const delta_snapshot *base, inlet_storage *st,
                          const char *root_abs, delta_snap_mode mode, int64_t arg, int threads,
                          inlet_error *err) {
  *out = NULL;
  if (mode == DELTA_SNAP_TIMESTAMP) {
    int64_t v = -1;
    TRY(version_at_timestamp(base, st, root_abs, arg, threads, &v, err));
    mode = DELTA_SNAP_VERSION;
    arg = v;
  }
  if (!base && mode == DELTA_SNAP_LATEST) return state_load_hinted(out, st, root_abs, threads, err);
  return state_load(out, base, st, root_abs, mode, arg, false, threads, err);
}

int delta_state_load(delta_state **out, inlet_storage *st, const char *root_abs,
                     delta_snap_mode mode, int64_t arg, inlet_error *err) {
  return state_load_any(out, NULL, st, root_abs, mode, arg, 1, err);
}

int delta_state_load_threads(delta_state **out, inlet_storage *st, const char *root_abs,
                             delta_snap_mode mode, int64_t arg, int threads, inlet_error *err) {
  return state_load_any(out, NULL, st, root_abs, mode, arg, threads, err);
}

int delta_snapshot_load_threads(delta_snapshot *out, inlet_storage *st, const char *root_abs,
                                delta_snap_mode mode, int64_t arg, int threads, inlet_error *err) {
  delta_state *s = NULL;
  int rc = state_load_any(&s, NULL, st, root_abs, mode, arg, threads, err);
  return state_to_snapshot(out, rc, s, false, err);
}

int delta_snapshot_load(delta_snapshot *out, inlet_storage *st, const char *root_abs,
                        delta_snap_mode mode, int64_t arg, inlet_error *err) {
  return delta_snapshot_load_threads(out, st, root_abs, mode, arg, 1, err);
}

int delta_snapshot_load_log_threads(delta_snapshot *out, inlet_storage *st, const char *root_abs,
                                    int threads, inlet_error *err) {
  delta_state *s = NULL;
  int rc = state_load_hinted(&s, st, root_abs, threads, err);
  return state_to_snapshot(out, rc, s, true, err);
}

int delta_snapshot_load_log(delta_snapshot *out, inlet_storage *st, const char *root_abs,
                            inlet_error *err) {
  return delta_snapshot_load_log_threads(out, st, root_abs, 1, err);
}

int delta_snapshot_load_from(delta_snapshot *out, const delta_snapshot *base, inlet_storage *st,
                             const char *root_abs, delta_snap_mode mode, int64_t arg,
                             inlet_error *err) {
  delta_state *s = NULL;
  int rc = state_load_any(&s, base, st, root_abs, mode, arg, 1, err);
  return state_to_snapshot(out, rc, s, false, err);
}

int delta_state_catch_up(delta_state *s, inlet_storage *st, const char *root_abs, int64_t target,
                         inlet_error *err) {
  int64_t from = delta_state_version(s) + 1;
  for (int64_t v = from; target < 0 || v <= target; v++) {
    char name[64];
    delta_commit_name(name, v);
    inlet_dirent de;
    memset(&de, 0, sizeof de);
    inlet_error e1 = INLET_ERROR_INIT;
    int rc = 0;
    if (st->flags & INLET_STORAGE_OBJECT_STORE) {
      /* Probe with a HEAD alone: an object store's stat of a missing key
       * also lists the prefix (it might be a "directory"), which would cost
       * every commit of a caught-up writer a LIST. */
      inlet_rfile *probe = NULL;
      rc = st->ops->open_read(st, name, &probe, &e1);
      inlet_rfile_close(probe);
    }
    if (rc == 0) rc = st->ops->stat(st, name, &de, &e1);
    inlet_free(de.name);
    if (rc == INLET_ENOTFOUND && target < 0) {
      /* No commit after the state's own: it is the latest, unless log
       * cleanup removed both (a handle idle past delta.logRetentionDuration,
       * or the table re-created): then the log went on without us. */
      if (v > from || from == 0) return 0;
      char own[64];
      delta_commit_name(own, from - 1);
      memset(&de, 0, sizeof de);
      rc = st->ops->stat(st, own, &de, &e1);
      inlet_free(de.name);
      FAIL_IF(rc == INLET_ENOTFOUND, err, INLET_ENOTFOUND,
              "commit %lld is gone from the log (cleaned up): the state is too old to catch up",
              (long long)(from - 1));
      if (rc < 0) return inlet_fail(err, rc, "%s", inlet_errmsg(&e1));
      return 0;
    }
    FAIL_IF(rc == INLET_ENOTFOUND, err, INLET_ENOTFOUND,
            "version %lld does not exist (latest is %lld)", (long long)target, (long long)(v - 1));
    if (rc < 0) return inlet_fail(err, rc, "%s", inlet_errmsg(&e1));
    delta_state_begin_commit(s);
    TRY(delta_log_read_commit(st, root_abs, v, delta_state_apply, s, err));
    delta_state_end_commit(s, v, de.mtime_ms);
  }
  return 0;
}

/* Reads `_delta_log/_last_checkpoint` into @p cp (version, part count, and
 * for a v2 checkpoint its file name from v2Checkpoint.path): 1, or 0 when
 * absent, unreadable or malformed. */
static int read_hint(inlet_storage *st, delta_checkpoint_ref *cp) {
  inlet_error e = INLET_ERROR_INIT;
  uint8_t *buf = NULL;
  size_t len = 0;
  /* Writers may put the v2 checkpoint's non-file actions in the hint: a
   * metaData with a wide schema makes it large. */
  if (st->ops->get_bytes(st, "_delta_log/_last_checkpoint", (size_t)1 << 24, &buf, &len, &e) < 0)
    return 0;
  int ok = 0;
  memset(cp, 0, sizeof *cp);
  json_t *o = json_loadb((const char *)buf, len, 0, NULL);
  json_t *v = json_object_get(o, "version"), *p = json_object_get(o, "parts");
  json_t *v2 = json_object_get(o, "v2Checkpoint");
  if (json_is_integer(v) && json_integer_value(v) >= 0) {
    cp->version = (int64_t)json_integer_value(v);
    cp->parts = json_is_integer(p) && json_integer_value(p) > 1 && json_integer_value(p) < 100000
                    ? (int32_t)json_integer_value(p)
                    : 1;
    ok = 1;
    if (v2) {
      /* Only a bare UUID-name of this version: the hint must never make
       * the reader open anything else. */
      json_t *path = json_object_get(v2, "path");
      const char *nm = json_is_string(path) ? json_string_value(path) : "";
      char prefix[40];
      snprintf(prefix, sizeof prefix, "%020lld.checkpoint.", (long long)cp->version);
      ok = strlen(nm) < sizeof cp->name && strncmp(nm, prefix, strlen(prefix)) == 0 &&
           !strchr(nm, '/');
      if (ok) {
        cp->v2 = true;
        cp->parts = 1;
        snprintf(cp->name, sizeof cp->name, "%s", nm);
      }
    }
  }
  json_decref(o);
  inlet_free(buf);
  return ok;
}

/* The file actions of a log compaction file, keyed as the state keys them
 * (path and deletion vector), to tell whether the file is reconciled. */
typedef struct compaction_keys {
  char **keys;
  size_t n, cap;
} compaction_keys;

static int collect_key(void *ctx, const delta_action *a, inlet_error *err) {
  compaction_keys *k = ctx;
  const char *path = NULL, *dv = NULL;
  if (a->kind == DELTA_ACTION_ADD) {
    path = a->u.add.path;
    dv = a->u.add.dv_id;
  } else if (a->kind == DELTA_ACTION_REMOVE) {
    path = a->u.remove.path;
    dv = a->u.remove.dv_id;
  } else {
    return 0;
  }
  if (k->n == k->cap) {
    size_t cap = k->cap ? k->cap * 2 : 64;
    char **grown = inlet_realloc(k->keys, cap * sizeof *grown);
    if (!grown) return inlet_fail(err, INLET_ENOMEM, "out of memory reading a log compaction file");
    k->keys = grown;
    k->cap = cap;
  }
  size_t a_len = strlen(path), b_len = dv ? strlen(dv) : 0;
  char *key = inlet_malloc(a_len + b_len + 2);
  if (!key) return inlet_fail(err, INLET_ENOMEM, "out of memory reading a log compaction file");
  memcpy(key, path, a_len);
  key[a_len] = '\n';
  if (b_len) memcpy(key + a_len + 1, dv, b_len);
  key[a_len + b_len + 1] = '\0';
  k->keys[k->n++] = key;
  return 0;
}

static int cmp_key(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Whether every file action of the compaction file names a distinct file;
 * frees the keys. */
static bool compaction_reconciled(compaction_keys *k) {
  bool ok = true;
  if (k->n > 1) qsort(k->keys, k->n, sizeof *k->keys, cmp_key);
  for (size_t i = 0; i < k->n; i++) {
    if (i > 0 && strcmp(k->keys[i - 1], k->keys[i]) == 0) ok = false;
    if (i > 0) inlet_free(k->keys[i - 1]);
  }
  if (k->n) inlet_free(k->keys[k->n - 1]);
  inlet_free(k->keys);
  memset(k, 0, sizeof *k);
  return ok;
}

/* PROTOCOL.md "Log Compaction Files": a listed `v.y.compacted.json` holds
 * the reconciled actions of commits v..y and may stand in for them when the
 * replay is at v. inlet takes the widest one with y below @p target (the
 * target commit itself is always read: its commitInfo carries the
 * snapshot's in-commit timestamp, which a compaction file leaves out) and
 * applies it to @p r as one commit; *@p to is then y, else -1. A file that
 * does not parse (or holds no action) is passed over for the commits
 * themselves: it is an optimisation, never the only copy of a commit
 * (writers create it only beside the commits it covers), so a bad one
 * must not make the table unreadable. So is one that is not reconciled
 * (a file named twice, by path and deletion vector): delta-kernel-rs'
 * compacted-log-files-table holds every action of its commits, newest
 * first, and applied in order they would resurrect removed files. Checked
 * in a first pass before anything is applied, so a bad file never leaves
 * half its actions in the state. */
static int use_compaction(const delta_log_listing *l, inlet_storage *st, const char *root_abs,
                          int64_t v, int64_t target, delta_state *r, int64_t *to,
                          inlet_error *err) {
  *to = -1;
  int64_t best = -1;
  for (int64_t i = 0; i < l->n_compactions; i++)
    if (l->compactions[i].from == v && l->compactions[i].to < target && l->compactions[i].to > best)
      best = l->compactions[i].to;
  if (best < 0) return 0;
  char name[96];
  delta_compaction_name(name, v, best);
  inlet_error e1 = INLET_ERROR_INIT;
  compaction_keys keys = {0};
  int rc = delta_log_read_file(st, root_abs, name, collect_key, &keys, &e1);
  bool reconciled = compaction_reconciled(&keys);
  if (rc == INLET_ECORRUPT || rc == INLET_ELIMIT || rc == INLET_ENOTFOUND ||
      rc == INLET_EUNSUPPORTED || (rc == 0 && !reconciled))
    return 0; /* the commits themselves are read instead */
  if (rc < 0) return inlet_fail(err, rc, "%s", inlet_errmsg(&e1));
  delta_state_begin_commit(r);
  TRY(delta_log_read_file(st, root_abs, name, delta_state_apply, r, err));
  *to = best;
  return 0;
}

/* The commits and log compaction files from version @p from on, for a
 * load that starts at the checkpoint `_last_checkpoint` names: one listing
 * of `_delta_log` that starts after the names of the older versions
 * (list_from, start-after on object stores), so compaction files are seen
 * as in a full listing. Checkpoints in it are dropped: the hinted one is
 * the start. A gap among the commits is left for the replay to find (a
 * compaction file may cover it; else it is an error, and the caller's
 * retry with a full listing reports it). */
static int list_after_hint(delta_log_listing *l, inlet_storage *st, int64_t from,
                           inlet_error *err) {
  memset(l, 0, sizeof *l);
  char start[64];
  /* Every name of version >= from sorts after this one ("." < "0"). */
  if (from > 0)
    snprintf(start, sizeof start, "%020lld/", (long long)(from - 1));
  else
    start[0] = 0;
  inlet_list_options o = INLET_LIST_OPTIONS_INIT;
  o.start_after = start;
  o.attrs = true; /* commit times */
  inlet_dirent *ents = NULL;
  size_t n = 0;
  TRY(st->ops->list_from(st, "_delta_log", &o, &ents, &n, err));
  int rc = delta_log_listing_from(l, ents, n, err);
  inlet_dirents_free(ents, n);
  TRY(rc);
  inlet_free(l->checkpoints); /* the caller puts the hinted one in */
  l->checkpoints = NULL;
  l->n_checkpoints = 0;
  int64_t k = 0;
  for (int64_t i = 0; i < l->n_commits; i++) {
    if (l->commit_versions[i] < from) continue;
    l->commit_versions[k] = l->commit_versions[i];
    l->commit_mtimes[k++] = l->commit_mtimes[i];
  }
  l->n_commits = k;
  return 0;
}

/* The commits start..target of a parallel load (delta_replay_par.h): unit u
 * is the `per` commits from version start + u * per (several to a unit, so
 * that a task's cost is not mostly the hand-over of a three-line commit).
 * Within a unit's list, an action of kind DELTA_ACTION_NONE (which no
 * reader passes on) marks the end of one commit and the start of the next. */
typedef struct par_commits {
  const delta_log_listing *l;
  inlet_storage_handles *hs; /* the handles the units read through */
  const char *root_abs;
  int64_t start, target, per;
  delta_state *r;
  int64_t timestamp_ms; /* out: the target's, as the single-threaded loop learns it */
} par_commits;

static int read_commit_unit(void *src, int64_t unit, delta_action_cb cb, void *cb_ctx,
                            inlet_error *err) {
  par_commits *p = src;
  int64_t first = p->start + unit * p->per;
  inlet_storage *st;
  TRY(inlet_storage_handles_take(p->hs, &st, err));
  int rc = 0;
  for (int64_t v = first; rc == 0 && v <= p->target && v < first + p->per; v++) {
    if (v > first) {
      delta_action sep;
      memset(&sep, 0, sizeof sep);
      rc = cb(cb_ctx, &sep, err);
      if (rc != 0) break;
    }
    /* Found here so that a gap is reported in log order, after the errors
     * of the commits before it, as the single-threaded loop would. */
    if (find_commit(p->l, v) < 0)
      rc = inlet_fail(err, INLET_ECORRUPT,
                      "corrupt log: commit file for version %lld is missing (gap before "
                      "version %lld)",
                      (long long)v, (long long)p->target);
    else
      rc = delta_log_read_commit(st, p->root_abs, v, cb, cb_ctx, err);
  }
  inlet_storage_handles_give(p->hs, st);
  return rc;
}

/* After the actions of commit @p v: the target's timestamp. */
static void commit_done(par_commits *p, int64_t v) {
  if (v != p->target) return;
  p->timestamp_ms = p->l->commit_mtimes[find_commit(p->l, v)];
  if (delta_state_commit_ict(p->r) >= 0) p->timestamp_ms = delta_state_commit_ict(p->r);
}

static int use_commit(void *dst, int64_t unit, int rc, const inlet_error *ue,
                      const delta_action_list *acts, inlet_error *err) {
  par_commits *p = dst;
  if (rc < 0) return inlet_fail(err, rc, "%s", inlet_errmsg(ue));
  int64_t v = p->start + unit * p->per;
  delta_state_begin_commit(p->r);
  for (int64_t i = 0; i < acts->n; i++) {
    if (acts->v[i].kind == DELTA_ACTION_NONE) {
      commit_done(p, v++);
      delta_state_begin_commit(p->r);
      continue;
    }
    TRY(delta_state_apply(p->r, &acts->v[i], err));
  }
  commit_done(p, v);
  return 0;
}

/* Whether a log compaction file could stand in for commits of start..target:
 * the parallel replay reads commits only (compaction files are rare, and
 * whether one is used is decided by reading it first), so such loads replay
 * on one thread. */
static bool compaction_in_range(const delta_log_listing *l, int64_t start, int64_t target) {
  for (int64_t i = 0; i < l->n_compactions; i++)
    if (l->compactions[i].from >= start && l->compactions[i].to < target) return true;
  return false;
}

/* A pool for a load asked for @p threads, made on first use (@p *pool
 * NULL): none for one thread or storage whose reads cannot be spread over
 * threads. */
static int load_pool(util_pool **pool, inlet_storage *st, int threads, inlet_error *err) {
  if (*pool || threads < 2 || !inlet_storage_threads_ok(st)) return 0;
  return util_pool_new(pool, threads, err);
}

static int state_load(delta_state **out, const delta_snapshot *base, inlet_storage *st,
                      const char *root_abs, delta_snap_mode mode, int64_t arg, bool use_hint,
                      int threads, inlet_error *err) {
  *out = NULL;
  util_pool *pool = NULL; /* owned, made when there are several files to decode */
  delta_log_listing l;
  delta_state *r = NULL;
  TRY(delta_state_new(&r, err));
  int64_t checkpoint_version = -1, timestamp_ms = 0;
  /* With a base snapshot and the latest version wanted, probe for the
   * commits after the base instead of listing the whole directory: the cost
   * of catching up is then independent of the log's length. Writers never
   * skip a version (they try each in turn), so the first missing name ends
   * the log; a directory listing (no base) also detects gaps. */
  bool probed =
      base && (mode == DELTA_SNAP_LATEST || (mode == DELTA_SNAP_VERSION && arg >= base->version));
  delta_checkpoint_ref hcp;
  memset(&hcp, 0, sizeof hcp);
  bool hinted = !probed && use_hint && read_hint(st, &hcp);
  int64_t hv = hcp.version;
  int rc = 0;
  memset(&l, 0, sizeof l);
  if (probed) {
    TRY_GOTO(probe_commits(&l, st, base->version + 1, err));
  } else if (hinted) {
    /* The checkpoint the hint names, then the commits from its version on,
     * with the log compaction files among them (one listing from the
     * checkpoint's name on: its cost does not grow with the history before
     * it). */
    TRY_GOTO(list_after_hint(&l, st, hv, err));
    l.checkpoints = inlet_calloc(1, sizeof *l.checkpoints);
    FAIL_GOTO(!l.checkpoints, err, INLET_ENOMEM, "out of memory");
    l.checkpoints[0] = hcp;
    l.n_checkpoints = 1;
  } else {
    TRY_GOTO(delta_log_list(&l, st, err));
  }
  int64_t latest = l.n_commits ? l.commit_versions[l.n_commits - 1] : -1;
  if (probed && latest < base->version) latest = base->version;
  /* Hinted: a checkpoint that failed to read must not fall back to a replay
   * from version 0 here; the caller retries with a listing instead. */
  FAIL_GOTO(hinted && latest < 0, err, INLET_ENOTFOUND, "hint names a missing commit");
  if (l.n_checkpoints && l.checkpoints[l.n_checkpoints - 1].version > latest)
    latest = l.checkpoints[l.n_checkpoints - 1].version;
  FAIL_GOTO(latest < 0, err, INLET_ENOTFOUND, "not a Delta table: %s/_delta_log holds no commits",
            st->root);
  int64_t target = latest;
  if (mode == DELTA_SNAP_VERSION) {
    FAIL_GOTO(arg < 0 || arg > latest, err, INLET_ENOTFOUND,
              "version %lld does not exist (latest is %lld)", (long long)arg, (long long)latest);
    target = arg;
  } else if (mode == DELTA_SNAP_TIMESTAMP) {
    rc = inlet_fail(err, INLET_EINVAL, "internal: timestamp loads resolve the version first");
    goto done;
  }

  /* Pick the start: a base snapshot at or below the target (commits are
   * immutable, so its state stays valid), else the newest readable
   * checkpoint <= target, else version 0. */
  int64_t start = 0;
  int cp_rc = 0;
  inlet_error cp_err = INLET_ERROR_INIT;
  if (base && base->version <= target) {
    TRY_GOTO(delta_state_seed(r, base, err));
    start = base->version + 1;
    checkpoint_version = base->checkpoint_version;
    timestamp_ms = base->timestamp_ms;
  }
  int64_t failed_cp = -1;
  for (int64_t i = l.n_checkpoints - 1; i >= 0 && !(base && base->version <= target); i--) {
    const delta_checkpoint_ref *cp = &l.checkpoints[i];
    if (cp->version > target) continue;
    inlet_error e1 = INLET_ERROR_INIT;
    if (cp->v2 || cp->parts > 1) TRY_GOTO(load_pool(&pool, st, threads, err));
    delta_state_begin_commit(r);
    int crc = delta_checkpoint_read_par(st, root_abs, cp, pool, delta_state_apply, r, &e1);
    delta_state_begin_commit(r); /* a checkpoint's commitInfo stamps no version */
    if (crc == 0) {
      start = cp->version + 1;
      checkpoint_version = cp->version;
      break;
    }
    /* A failed checkpoint may have left partial state: start over. */
    delta_state_free(r);
    r = NULL;
    TRY_GOTO(delta_state_new(&r, err));
    FAIL_GOTO(hinted, err, crc, "%s", inlet_errmsg(&e1));
    if (crc != INLET_EUNSUPPORTED && crc != INLET_ENOTFOUND && crc != INLET_ECORRUPT) {
      rc = inlet_fail(err, crc, "%s", inlet_errmsg(&e1));
      goto done;
    }
    /* Remember the newest failure; try older checkpoints, then the JSON commits. */
    if (failed_cp < 0) {
      failed_cp = cp->version;
      cp_rc = crc;
      cp_err = e1;
    }
  }
  if (!(base && base->version <= target) && checkpoint_version < 0 && find_commit(&l, 0) < 0) {
    if (cp_rc < 0)
      rc = inlet_fail(err, cp_rc == INLET_ECORRUPT ? INLET_ECORRUPT : INLET_EUNSUPPORTED,
                      "the checkpoint at version %lld cannot be read (%s), and the commits "
                      "before it were cleaned up",
                      (long long)failed_cp, inlet_errmsg(&cp_err));
    else
      rc = inlet_fail(
          err, target < (l.n_commits ? l.commit_versions[0] : 0) ? INLET_ENOTFOUND : INLET_ECORRUPT,
          "version %lld cannot be reconstructed: commit 0 is missing and no "
          "checkpoint at or below it exists",
          (long long)target);
    goto done;
  }
  /* Replaying from version 0 after a failed checkpoint: the commits between
   * must be contiguous, which the loops below check. */
  if (target - start >= 1 && !compaction_in_range(&l, start, target))
    TRY_GOTO(load_pool(&pool, st, threads, err));
  if (pool && target - start >= 1 && !compaction_in_range(&l, start, target)) {
    /* Commits are small: up to 64 to a unit (about 8 units per thread, so
     * the work still spreads), a window of 4 units per thread. */
    int64_t threads_n = util_pool_threads(pool), n = target - start + 1;
    int64_t window = 4 * threads_n, per = n / (8 * threads_n);
    per = per < 1 ? 1 : per > 64 ? 64 : per;
    inlet_storage_handles *hs = NULL;
    TRY_GOTO(inlet_storage_handles_new(&hs, st, err));
    par_commits pc = {&l, hs, root_abs, start, target, per, r, timestamp_ms};
    rc = delta_replay_ordered(pool, (n + per - 1) / per, window, read_commit_unit, &pc, use_commit,
                              &pc, err);
    inlet_storage_handles_free(hs);
    TRY_GOTO(rc);
    timestamp_ms = pc.timestamp_ms;
    start = target + 1; /* done: the loop below has nothing left */
  }
  for (int64_t v = start; v <= target; v++) {
    int64_t to = -1;
    TRY_GOTO(use_compaction(&l, st, root_abs, v, target, r, &to, err));
    if (to >= v) {
      v = to;
      continue;
    }
    int64_t idx = find_commit(&l, v);
    FAIL_GOTO(idx < 0, err, INLET_ECORRUPT,
              "corrupt log: commit file for version %lld is missing (gap before version %lld)",
              (long long)v, (long long)target);
    delta_state_begin_commit(r);
    TRY_GOTO(delta_log_read_commit(st, root_abs, v, delta_state_apply, r, err));
    if (v == target) {
      timestamp_ms = l.commit_mtimes[idx];
      if (delta_state_commit_ict(r) >= 0) timestamp_ms = delta_state_commit_ict(r);
    }
  }
  if (timestamp_ms <= 0) { /* -1: a base whose timestamp was not learnt yet */
    int64_t idx = find_commit(&l, target);
    if (idx >= 0) timestamp_ms = l.commit_mtimes[idx];
  }
  int64_t n_commits = probed ? base->n_commits_on_disk : 0;
  for (int64_t i = 0; i < l.n_commits && l.commit_versions[i] <= target; i++)
    n_commits++;
  delta_state_set_position(r, target, timestamp_ms, checkpoint_version, n_commits);
  int64_t target_idx = find_commit(&l, target);
  delta_state_set_commit_mtime(r, target_idx >= 0 ? l.commit_mtimes[target_idx] : -1);
done:
  util_pool_free(pool);
  delta_log_listing_reset(&l);
  if (rc < 0)
    delta_state_free(r);
  else
    *out = r;
  return rc;
}

void delta_snapshot_reset(delta_snapshot *s) {
  delta_protocol_reset(&s->protocol);
  delta_metadata_reset(&s->metadata);
  inlet_schema_reset(&s->schema);
  inlet_schema_reset(&s->phys_schema);
  for (int64_t i = 0; i < s->n_files; i++)
    delta_add_reset(&s->files[i].add);
  inlet_free(s->files);
  for (int64_t i = 0; i < s->n_txns; i++)
    inlet_free(s->txns[i].app_id);
  inlet_free(s->txns);
  for (int64_t i = 0; i < s->n_domains; i++) {
    inlet_free(s->domains[i].domain);
    inlet_free(s->domains[i].configuration);
  }
  inlet_free(s->domains);
  for (int64_t i = 0; i < s->n_tombstones; i++)
    delta_remove_reset(&s->tombstones[i]);
  inlet_free(s->tombstones);
  memset(s, 0, sizeof *s);
  s->checkpoint_version = -1;
}

int64_t delta_snapshot_txn_version(const delta_snapshot *s, const char *app_id) {
  for (int64_t i = 0; i < s->n_txns; i++)
    if (strcmp(s->txns[i].app_id, app_id) == 0) return s->txns[i].version;
  return -1;
}

int delta_snapshot_copy(delta_snapshot *dst, const delta_snapshot *src, inlet_error *err) {
  memset(dst, 0, sizeof *dst);
  dst->checkpoint_version = -1;
  int rc = 0;
  dst->version = src->version;
  dst->timestamp_ms = src->timestamp_ms;
  dst->checkpoint_version = src->checkpoint_version;
  dst->n_commits_on_disk = src->n_commits_on_disk;
  dst->n_dv_files = src->n_dv_files;
  dst->has_schema = src->has_schema;
  if ((rc = delta_protocol_copy(&dst->protocol, &src->protocol, err)) < 0) goto fail;
  if ((rc = delta_metadata_copy(&dst->metadata, &src->metadata, err)) < 0) goto fail;
  if ((rc = inlet_schema_copy(&dst->schema, &src->schema, err)) < 0) goto fail;
  dst->cm_mode = src->cm_mode;
  if ((rc = inlet_schema_copy(&dst->phys_schema, &src->phys_schema, err)) < 0) goto fail;
  dst->files = inlet_calloc((size_t)src->n_files + 1, sizeof *dst->files);
  dst->txns = inlet_calloc((size_t)src->n_txns + 1, sizeof *dst->txns);
  dst->domains = inlet_calloc((size_t)src->n_domains + 1, sizeof *dst->domains);
  dst->tombstones = inlet_calloc((size_t)src->n_tombstones + 1, sizeof *dst->tombstones);
  FAIL_GOTO(!dst->files || !dst->txns || !dst->domains || !dst->tombstones, err, INLET_ENOMEM,
            "out of memory copying a snapshot");
  for (int64_t i = 0; i < src->n_tombstones; i++) {
    if ((rc = delta_remove_copy(&dst->tombstones[i], &src->tombstones[i], err)) < 0) goto fail;
    dst->n_tombstones++;
  }
  for (int64_t i = 0; i < src->n_files; i++) {
    if ((rc = delta_add_copy(&dst->files[i].add, &src->files[i].add, err)) < 0) goto fail;
    dst->files[i].num_records = src->files[i].num_records;
    dst->n_files++;
  }
  for (int64_t i = 0; i < src->n_txns; i++) {
    dst->txns[i] = src->txns[i];
    dst->txns[i].app_id = inlet_strdup(src->txns[i].app_id);
    FAIL_GOTO(!dst->txns[i].app_id, err, INLET_ENOMEM, "out of memory copying a snapshot");
    dst->n_txns++;
  }
  for (int64_t i = 0; i < src->n_domains; i++) {
    dst->domains[i].domain = inlet_strdup(src->domains[i].domain);
    dst->domains[i].configuration = inlet_strdup(src->domains[i].configuration);
    dst->n_domains++;
    FAIL_GOTO(!dst->domains[i].domain || !dst->domains[i].configuration, err, INLET_ENOMEM,
              "out of memory copying a snapshot");
  }
  return 0;
done:
fail:
  delta_snapshot_reset(dst);
  return rc;
}
