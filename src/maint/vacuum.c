/*
 * Vacuum (include/inlet/maint.h inlet_table_vacuum): deletes data files
 * that no snapshot inside the retention window can read.
 *
 * Spec: PROTOCOL.md "Add File and Remove File" (a remove's
 * deletionTimestamp says when the file left the table; tombstones are
 * kept in checkpoints until delta.deletedFileRetentionDuration expires),
 * "Table Properties".
 *
 * Judgement, per regular file under the table (path components starting
 * with '_' or '.' are never entered: _delta_log, _errors, temp files;
 * except _change_data at the root, whose files are judged as below):
 *   - live in the latest snapshot (re-read just before deleting, so a
 *     commit landing meanwhile protects its files): kept;
 *   - removed by a commit (tombstones of the snapshot plus every remove
 *     in the commit files still on disk, newest deletionTimestamp wins):
 *     deleted when that timestamp is older than now - retain;
 *   - never mentioned by the log (a crashed writer's or compactor's output,
 *     or a tombstone that already expired from the log): deleted when its
 *     modification time is older than now - retain. This is the one use of
 *     mtimes: a file being written right now is young, so in-flight
 *     transactions are safe as long as they take less than the window.
 * Deletion vector files (storage 'u', and 'p' paths inside the table) are
 * judged like data files: kept while a live file's descriptor names them,
 * else by the deletionTimestamp of the removes that carry them (the
 * protocol makes a remove carry its file's deletionVector), else by mtime.
 * Change data files (_change_data/, "Add CDC File") are never live: a file
 * a cdc action of a commit still in the log names goes once that commit
 * (its file's time) is older than now - retain, so `inlet changes` keeps
 * reading the versions inside the window; one no commit on disk names
 * (its commit cleaned from the log, or a failed delete's) by mtime. Spark's
 * VACUUM also enters _change_data (it judges those files by mtime alone).
 * Symbolic links are never followed nor deleted (the listing does not
 * follow them; a link to a directory would otherwise be judged by its own
 * mtime and removed with the live files behind it): each is reported.
 * `_delta_log/.tmp-*` files of killed writers go once a day old
 * (log_temps.c).
 */
#include <stddef.h>
#include <stdio.h>

#include "delta/delta_dv.h"
#include "delta/delta_features.h"
#include "delta/delta_table.h"
#include "maint/maint_int.h"
#include "util/util.h"

#define MIN_SAFE_RETAIN_MS (7LL * 24 * 3600 * 1000)

typedef struct tomb {
  char *path; /* owned */
  int64_t ts; /* deletionTimestamp, -1 unknown */
} tomb;

typedef struct vac {
  inlet_table *table; /* borrowed */
  tomb *tombs;        /* owned */
  size_t n_tombs, cap_tombs;
  char **cands;        /* owned: relative paths to delete */
  int64_t listed;      /* directory entries seen by the walk, for progress */
  int64_t *cand_sizes; /* owned */
  int64_t *cand_kind;  /* owned: 1 tombstoned, 2 debris */
  size_t n_cands, cap_cands;
  char **live_dvs; /* owned, sorted: DV files live files of the snapshot name */
  size_t n_live_dvs;
  int64_t commit_mtime; /* of the commit being read */
  inlet_vacuum_file_fn on_symlink;
  void *ctx;
} vac;

static void vac_reset(vac *v) {
  for (size_t i = 0; i < v->n_tombs; i++)
    inlet_free(v->tombs[i].path);
  inlet_free(v->tombs);
  for (size_t i = 0; i < v->n_cands; i++)
    inlet_free(v->cands[i]);
  inlet_free(v->cands);
  inlet_free(v->cand_sizes);
  inlet_free(v->cand_kind);
  for (size_t i = 0; i < v->n_live_dvs; i++)
    inlet_free(v->live_dvs[i]);
  inlet_free(v->live_dvs);
}

/* The file (relative to the table) of deletion vector descriptor @p json,
 * or NULL when it has none (inline) or lies outside the table. */
static int dv_file(const vac *v, const char *json, char **out, inlet_error *err) {
  *out = NULL;
  if (!json) return 0;
  delta_dv_desc d;
  TRY(delta_dv_desc_parse(&d, json, err));
  int rc = 0;
  if (d.storage_type != 'i') {
    rc = delta_dv_file_path(&d, delta_table_root(v->table), out, err);
    if (rc == 0 && *out && (**out == '/' || strstr(*out, "://"))) {
      inlet_free(*out); /* outside the table: not ours to judge */
      *out = NULL;
    }
  }
  delta_dv_desc_reset(&d);
  return rc;
}

static int str_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int collect_live_dvs(vac *v, const delta_snapshot *s, inlet_error *err) {
  size_t n = 0;
  for (int64_t i = 0; i < s->n_files; i++)
    n += s->files[i].add.dv_json != NULL;
  if (n == 0) return 0;
  v->live_dvs = inlet_calloc(n, sizeof *v->live_dvs);
  if (!v->live_dvs) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  for (int64_t i = 0; i < s->n_files; i++) {
    char *p = NULL;
    int rc = dv_file(v, s->files[i].add.dv_json, &p, err);
    if (rc < 0)
      return inlet_error_prefix(err, "vacuum: deletion vector of \"%s\"", s->files[i].add.path);
    if (p) v->live_dvs[v->n_live_dvs++] = p;
  }
  if (v->n_live_dvs > 1) qsort(v->live_dvs, v->n_live_dvs, sizeof *v->live_dvs, str_cmp);
  return 0;
}

static bool is_live_dv(const vac *v, const char *path) {
  return v->n_live_dvs &&
         bsearch(&path, v->live_dvs, v->n_live_dvs, sizeof *v->live_dvs, str_cmp) != NULL;
}

static int add_tomb(vac *v, const char *path, int64_t ts, inlet_error *err) {
  if (v->n_tombs == v->cap_tombs) {
    size_t nc = v->cap_tombs ? v->cap_tombs * 2 : 256;
    tomb *nt = inlet_realloc(v->tombs, nc * sizeof *nt);
    if (!nt) return inlet_fail(err, INLET_ENOMEM, "out of memory");
    v->tombs = nt;
    v->cap_tombs = nc;
  }
  char *p = inlet_strdup(path);
  if (!p) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  v->tombs[v->n_tombs++] = (tomb){p, ts};
  return 0;
}

static int tomb_cmp(const void *a, const void *b) {
  const tomb *x = a, *y = b;
  int c = strcmp(x->path, y->path);
  if (c) return c;
  return x->ts < y->ts ? 1 : x->ts > y->ts ? -1 : 0; /* newest first */
}

/* The deletion vector file a remove carries left the table with it. */
static int add_dv_tomb(vac *v, const char *data_path, const char *dv_json, int64_t ts,
                       inlet_error *err) {
  char *p = NULL;
  int rc = dv_file(v, dv_json, &p, err);
  if (rc < 0)
    return inlet_error_prefix(err, "vacuum: deletion vector of removed \"%s\"", data_path);
  if (p) rc = add_tomb(v, p, ts, err);
  inlet_free(p);
  return rc;
}

static int remove_cb(void *ctx, const delta_action *a, inlet_error *err) {
  vac *v = ctx;
  /* A change data file leaves the table's reach with the commit that
   * added it: judged by that commit's time, as a tombstone would be. */
  if (a->kind == DELTA_ACTION_CDC) return add_tomb(v, a->u.add.path, v->commit_mtime, err);
  if (a->kind != DELTA_ACTION_REMOVE) return 0;
  /* deletionTimestamp is optional: a remove without one left the table no
   * earlier than its commit was written. */
  int64_t ts =
      a->u.remove.deletion_timestamp >= 0 ? a->u.remove.deletion_timestamp : v->commit_mtime;
  TRY(add_tomb(v, a->u.remove.path, ts, err));
  return add_dv_tomb(v, a->u.remove.path, a->u.remove.dv_json, ts, err);
}

/* Newest deletion timestamp of @p path: -1 unknown, -2 never removed. */
static int64_t tomb_find(const vac *v, const char *path) {
  size_t lo = 0, hi = v->n_tombs;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(v->tombs[mid].path, path);
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < v->n_tombs && strcmp(v->tombs[lo].path, path) == 0 ? v->tombs[lo].ts : -2;
}

static bool is_live(const delta_snapshot *s, const char *path) {
  int64_t lo = 0, hi = s->n_files;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    int c = strcmp(s->files[mid].add.path, path);
    if (c == 0) return true;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return false;
}

static int add_cand(vac *v, const char *path, int64_t size, int kind, inlet_error *err) {
  if (v->n_cands == v->cap_cands) {
    size_t nc = v->cap_cands ? v->cap_cands * 2 : 64;
    char **np = inlet_realloc(v->cands, nc * sizeof *np);
    if (np) v->cands = np;
    int64_t *ns = np ? inlet_realloc(v->cand_sizes, nc * sizeof *ns) : NULL;
    if (ns) v->cand_sizes = ns;
    int64_t *nk = ns ? inlet_realloc(v->cand_kind, nc * sizeof *nk) : NULL;
    if (nk) v->cand_kind = nk;
    if (!nk) return inlet_fail(err, INLET_ENOMEM, "out of memory");
    v->cap_cands = nc;
  }
  char *p = inlet_strdup(path);
  if (!p) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  v->cands[v->n_cands] = p;
  v->cand_sizes[v->n_cands] = size;
  v->cand_kind[v->n_cands] = kind;
  v->n_cands++;
  return 0;
}

/* Walks directory @p dir ("" = root), judging each file. */
static int walk(vac *v, const delta_snapshot *s, const char *dir, int64_t cutoff, int depth,
                inlet_vacuum_result *res, inlet_error *err) {
  FAIL_IF(depth > 64, err, INLET_ELIMIT, "directory nesting below \"%s\" too deep", dir);
  inlet_storage *st = delta_table_storage(v->table);
  inlet_dirent *ents = NULL;
  size_t n = 0;
  int rc = st->ops->list(st, dir, &ents, &n, err);
  if (rc == INLET_ENOTFOUND && *dir) return 0; /* removed meanwhile */
  TRY(rc);
  v->listed += (int64_t)n;
  delta_table_progress(v->table, "vacuum", "listing", "files", v->listed, -1);
  char *path = NULL;
  for (size_t i = 0; i < n; i++) {
    const char *name = ents[i].name;
    bool cdc_dir = !*dir && strcmp(name, "_change_data") == 0 && ents[i].is_dir;
    if ((name[0] == '_' && !cdc_dir) || name[0] == '.')
      continue; /* _delta_log, _errors, temp files */
    size_t len = strlen(dir) + strlen(name) + 2;
    inlet_free(path);
    path = inlet_malloc(len);
    FAIL_GOTO(!path, err, INLET_ENOMEM, "out of memory");
    snprintf(path, len, "%s%s%s", dir, *dir ? "/" : "", name);
    if (ents[i].is_symlink) {
      /* Never followed (what it points at is not ours to judge) and never
       * deleted (it may be how live files are reached): reported. */
      res->symlinks++;
      if (v->on_symlink) v->on_symlink(v->ctx, path, ents[i].size);
      continue;
    }
    if (ents[i].is_dir) {
      TRY_GOTO(walk(v, s, path, cutoff, depth + 1, res, err));
      continue;
    }
    if (is_live(s, path) || is_live_dv(v, path)) continue;
    int64_t ts = tomb_find(v, path);
    if (ts >= 0) {
      if (ts < cutoff)
        TRY_GOTO(add_cand(v, path, ents[i].size, 1, err));
      else
        res->kept++;
    } else if (ents[i].mtime_ms < cutoff) {
      TRY_GOTO(add_cand(v, path, ents[i].size, 2, err));
    } else {
      res->kept++;
    }
  }
done:
  inlet_free(path);
  inlet_dirents_free(ents, n);
  return rc;
}

int inlet_table_vacuum(inlet_vacuum_result *out, inlet_table *table,
                       const inlet_vacuum_options *options, inlet_error *err) {
  inlet_vacuum_options o = INLET_VACUUM_OPTIONS_INIT;
  if (options) {
    FAIL_IF(options->version != 1 && options->version != INLET_VACUUM_OPTIONS_VERSION, err,
            INLET_EINVAL, "vacuum: unknown options version %d", options->version);
    if (options->version == 1) /* a version-1 struct ends before on_symlink */
      memcpy(&o, options, offsetof(inlet_vacuum_options, on_symlink));
    else
      o = *options;
  }
  inlet_vacuum_result res;
  memset(&res, 0, sizeof res);
  vac v;
  memset(&v, 0, sizeof v);
  v.table = table;
  v.on_symlink = o.on_symlink;
  v.ctx = o.ctx;
  delta_snapshot s, s2;
  memset(&s2, 0, sizeof s2);
  bool have_s2 = false;
  TRY(delta_table_load(table, &s, DELTA_SNAP_LATEST, 0, err));
  int rc = 0;
  delta_log_listing l;
  memset(&l, 0, sizeof l);
  /* Vacuum checks the writer protocol on every table, as Spark's does (and
   * vacuumProtocolCheck demands): a writer feature inlet does not know may
   * keep files alive in ways this walk cannot see. */
  TRY_GOTO(delta_features_check_write(&s.protocol, &s.metadata, DELTA_OP_VACUUM, 0, err));
  TRY_GOTO(collect_live_dvs(&v, &s, err));
  int64_t table_retain = delta_retention_ms(&s.metadata);
  int64_t retain = o.retain_ms >= 0 ? o.retain_ms : table_retain;
  int64_t safe = table_retain < MIN_SAFE_RETAIN_MS ? table_retain : MIN_SAFE_RETAIN_MS;
  FAIL_GOTO(retain < safe && !o.force, err, INLET_EINVAL,
            "retention %lld ms is shorter than the table's %lld ms: time travel and concurrent "
            "readers or writers could lose files; pass --force to do it anyway",
            (long long)retain, (long long)safe);
  int64_t now = o.now_ms ? o.now_ms : delta_now_ms();
  int64_t cutoff = now - retain;
  for (int64_t i = 0; i < s.n_tombstones; i++) {
    TRY_GOTO(add_tomb(&v, s.tombstones[i].path, s.tombstones[i].deletion_timestamp, err));
    TRY_GOTO(add_dv_tomb(&v, s.tombstones[i].path, s.tombstones[i].dv_json,
                         s.tombstones[i].deletion_timestamp, err));
  }
  TRY_GOTO(delta_log_list(&l, delta_table_storage(table), err));
  int64_t n_commits = 0;
  while (n_commits < l.n_commits && l.commit_versions[n_commits] <= s.version)
    n_commits++;
  for (int64_t i = 0; i < n_commits; i++) {
    /* Every 64 commits: a commit is one small read. */
    if (i % 64 == 0) delta_table_progress(table, "vacuum", "reading log", "commits", i, n_commits);
    v.commit_mtime = l.commit_mtimes[i];
    rc = delta_log_read_commit(delta_table_storage(table), delta_table_root(table),
                               l.commit_versions[i], remove_cb, &v, err);
    if (rc == INLET_ENOTFOUND) { /* cleaned up meanwhile: its removes are older */
      rc = 0;
      continue;
    }
    if (rc < 0) goto done;
  }
  delta_table_progress(table, "vacuum", "reading log", "commits", n_commits, n_commits);
  if (v.n_tombs > 1) qsort(v.tombs, v.n_tombs, sizeof *v.tombs, tomb_cmp);
  TRY_GOTO(walk(&v, &s, "", cutoff, 0, &res, err));
  /* Commits that landed during the walk protect their files. */
  TRY_GOTO(delta_table_load(table, &s2, DELTA_SNAP_LATEST, 0, err));
  have_s2 = true;
  for (size_t i = 0; i < v.n_live_dvs; i++)
    inlet_free(v.live_dvs[i]);
  inlet_free(v.live_dvs);
  v.live_dvs = NULL;
  v.n_live_dvs = 0;
  TRY_GOTO(collect_live_dvs(&v, &s2, err));
  for (size_t i = 0; i < v.n_cands; i++) {
    delta_table_progress(table, "vacuum", "deleting", "files", (int64_t)i, (int64_t)v.n_cands);
    if (is_live(&s2, v.cands[i]) || is_live_dv(&v, v.cands[i])) continue;
    if (!o.dry_run) {
      inlet_error e = INLET_ERROR_INIT;
      inlet_storage *st = delta_table_storage(table);
      int r = st->ops->remove(st, v.cands[i], &e);
      if (r == INLET_ENOTFOUND) continue; /* another vacuum got there first */
      if (r < 0) {
        rc = inlet_fail(err, r, "vacuum: %s", e.message);
        goto done;
      }
    }
    if (o.on_file) o.on_file(o.ctx, v.cands[i], v.cand_sizes[i]);
    res.files++;
    res.bytes += v.cand_sizes[i];
    if (v.cand_kind[i] == 1)
      res.tombstoned++;
    else
      res.debris++;
  }
  delta_table_progress(table, "vacuum", "deleting", "files", (int64_t)v.n_cands,
                       (int64_t)v.n_cands);
  {
    int64_t n_temps = 0;
    TRY_GOTO(maint_remove_log_temps(delta_table_storage(table), now, o.dry_run, o.on_file, o.ctx,
                                    &n_temps, &res.bytes, err));
    res.files += n_temps;
    res.debris += n_temps;
    /* Multipart uploads of writers killed mid-upload (S3), a day old. */
    int64_t n_uploads = 0;
    TRY_GOTO(maint_abort_stale_uploads(delta_table_storage(table), now, o.dry_run, o.on_file, o.ctx,
                                       &n_uploads, err));
    res.files += n_uploads;
    res.debris += n_uploads;
  }
done:
  delta_log_listing_reset(&l);
  delta_snapshot_reset(&s);
  if (have_s2) delta_snapshot_reset(&s2);
  vac_reset(&v);
  if (out) {
    if (options && options->version == 1) /* a version-1 result ends before symlinks */
      memcpy(out, &res, offsetof(inlet_vacuum_result, symlinks));
    else
      *out = res;
  }
  return rc;
}
