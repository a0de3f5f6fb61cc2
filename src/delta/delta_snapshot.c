/*
 * Snapshots: log replay into the state of a table at one version.
 *
 * Spec: PROTOCOL.md "Action Reconciliation" (the newest protocol and
 * metaData win; a file is live when its newest add has no later remove, the
 * key being path + deletion vector id; txn versions per appId; domain
 * metadata per domain), "Checkpoints" (start from the newest complete
 * checkpoint at or below the target; the commits after it must be
 * contiguous), "Reader Version Requirements" and "Table Features".
 *
 * The replay runs forward over the commits, so memory is bounded by the live
 * files (a remove deletes its entry) rather than by the history. The
 * directory listing is authoritative for which checkpoints and commits
 * exist; `_last_checkpoint` is only a hint to avoid listing on object
 * stores, so a missing or corrupt one changes nothing here.
 *
 * Checkpoints are nested Parquet; until the nested reader lands,
 * delta_checkpoint_read() reports INLET_EUNSUPPORTED and the replay falls
 * back to the JSON commits from version 0 when they all still exist.
 */
#include <jansson.h>
#include <stdio.h>

#include "delta/delta_features.h"
#include "util/util.h"

/* One replay key: a live file (add) or a tombstone (its newest remove). */
typedef struct file_node {
  struct file_node *next;
  char *key;      /* owned: path '\n' dv id */
  bool tomb;
  delta_add add;  /* owned, when !tomb */
  delta_remove rm;/* owned, when tomb */
} file_node;

typedef struct replay {
  file_node **buckets;
  size_t n_buckets, n_files, n_nodes; /* live files; files + tombstones */
  delta_protocol protocol;
  bool has_protocol;
  delta_metadata metadata;
  bool has_metadata;
  delta_txn_entry *txns;
  int64_t n_txns, cap_txns;
  delta_domain *domains;
  int64_t n_domains, cap_domains;
  int64_t target;
  int64_t ict; /* inCommitTimestamp of the target version, -1 if none */
  int64_t current;
} replay;

static uint64_t hash_str(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

static char *make_key(const char *path, const char *dv) {
  size_t a = strlen(path), b = dv ? strlen(dv) : 0;
  char *k = inlet_malloc(a + b + 2);
  if (!k) return NULL;
  memcpy(k, path, a);
  k[a] = '\n';
  if (b) memcpy(k + a + 1, dv, b);
  k[a + b + 1] = '\0';
  return k;
}

static int grow(replay *r, inlet_error *err) {
  size_t nb = r->n_buckets ? r->n_buckets * 2 : 1024;
  file_node **b = inlet_calloc(nb, sizeof *b);
  if (!b) return inlet_fail(err, INLET_ENOMEM, "out of memory replaying the log");
  for (size_t i = 0; i < r->n_buckets; i++) {
    for (file_node *n = r->buckets[i], *next; n; n = next) {
      next = n->next;
      size_t h = hash_str(n->key) & (nb - 1);
      n->next = b[h];
      b[h] = n;
    }
  }
  inlet_free(r->buckets);
  r->buckets = b;
  r->n_buckets = nb;
  return 0;
}

static file_node **find_slot(replay *r, const char *key) {
  file_node **p = &r->buckets[hash_str(key) & (r->n_buckets - 1)];
  while (*p && strcmp((*p)->key, key) != 0) p = &(*p)->next;
  return p;
}

static void node_free(file_node *n) {
  inlet_free(n->key);
  delta_add_reset(&n->add);
  delta_remove_reset(&n->rm);
  inlet_free(n);
}

static int on_add(replay *r, const delta_add *a, inlet_error *err) {
  if (r->n_nodes >= r->n_buckets) TRY(grow(r, err));
  char *key = make_key(a->path, a->dv_id);
  if (!key) return inlet_fail(err, INLET_ENOMEM, "out of memory replaying the log");
  file_node **slot = find_slot(r, key);
  file_node *n = inlet_calloc(1, sizeof *n);
  if (!n) {
    inlet_free(key);
    return inlet_fail(err, INLET_ENOMEM, "out of memory replaying the log");
  }
  n->key = key;
  if (delta_add_copy(&n->add, a, err) < 0) {
    inlet_free(key);
    inlet_free(n);
    return INLET_ENOMEM;
  }
  if (*slot) {
    if ((*slot)->tomb) r->n_files++;
    n->next = (*slot)->next;
    node_free(*slot);
    *slot = n;
  } else {
    *slot = n;
    r->n_files++;
    r->n_nodes++;
  }
  return 0;
}

/* A remove turns the file into a tombstone, kept for checkpoints (VACUUM
 * retention) and pruned by age when the snapshot is built. */
static int on_remove(replay *r, const delta_remove *rm, inlet_error *err) {
  if (r->n_nodes >= r->n_buckets) TRY(grow(r, err));
  char *key = make_key(rm->path, rm->dv_id);
  if (!key) return inlet_fail(err, INLET_ENOMEM, "out of memory replaying the log");
  file_node **slot = find_slot(r, key);
  file_node *n = *slot;
  if (!n) {
    n = inlet_calloc(1, sizeof *n);
    if (!n) {
      inlet_free(key);
      return inlet_fail(err, INLET_ENOMEM, "out of memory replaying the log");
    }
    n->key = key;
    *slot = n;
    r->n_nodes++;
  } else {
    inlet_free(key);
    if (!n->tomb) r->n_files--;
    delta_add_reset(&n->add);
    delta_remove_reset(&n->rm);
  }
  n->tomb = true;
  return delta_remove_copy(&n->rm, rm, err);
}

static int on_txn(replay *r, const delta_txn_action *t, inlet_error *err) {
  for (int64_t i = 0; i < r->n_txns; i++) {
    if (strcmp(r->txns[i].app_id, t->app_id) == 0) {
      r->txns[i].version = t->version;
      r->txns[i].last_updated = t->last_updated;
      return 0;
    }
  }
  if (r->n_txns == r->cap_txns) {
    int64_t nc = r->cap_txns ? r->cap_txns * 2 : 8;
    delta_txn_entry *nt = inlet_realloc(r->txns, (size_t)nc * sizeof *nt);
    if (!nt) return inlet_fail(err, INLET_ENOMEM, "out of memory replaying the log");
    r->txns = nt;
    r->cap_txns = nc;
  }
  char *id = inlet_strdup(t->app_id);
  if (!id) return inlet_fail(err, INLET_ENOMEM, "out of memory replaying the log");
  r->txns[r->n_txns++] = (delta_txn_entry){id, t->version, t->last_updated};
  return 0;
}

static int on_domain(replay *r, const delta_domain *d, inlet_error *err) {
  for (int64_t i = 0; i < r->n_domains; i++) {
    if (strcmp(r->domains[i].domain, d->domain) == 0) {
      inlet_free(r->domains[i].domain);
      inlet_free(r->domains[i].configuration);
      r->domains[i] = r->domains[--r->n_domains];
      break;
    }
  }
  if (d->removed) return 0;
  if (r->n_domains == r->cap_domains) {
    int64_t nc = r->cap_domains ? r->cap_domains * 2 : 4;
    delta_domain *nd = inlet_realloc(r->domains, (size_t)nc * sizeof *nd);
    if (!nd) return inlet_fail(err, INLET_ENOMEM, "out of memory replaying the log");
    r->domains = nd;
    r->cap_domains = nc;
  }
  delta_domain c = {inlet_strdup(d->domain), inlet_strdup(d->configuration), false};
  if (!c.domain || !c.configuration) {
    inlet_free(c.domain);
    inlet_free(c.configuration);
    return inlet_fail(err, INLET_ENOMEM, "out of memory replaying the log");
  }
  r->domains[r->n_domains++] = c;
  return 0;
}

static int64_t ict_of(const char *commit_info) {
  const char *p = strstr(commit_info, "\"inCommitTimestamp\":");
  if (!p) return -1;
  return strtoll(p + 20, NULL, 10);
}

static int replay_cb(void *ctx, const delta_action *a, inlet_error *err) {
  replay *r = ctx;
  switch (a->kind) {
  case DELTA_ACTION_PROTOCOL:
    delta_protocol_reset(&r->protocol);
    r->has_protocol = false;
    TRY(delta_protocol_copy(&r->protocol, &a->u.protocol, err));
    r->has_protocol = true;
    return 0;
  case DELTA_ACTION_METADATA:
    delta_metadata_reset(&r->metadata);
    r->has_metadata = false;
    TRY(delta_metadata_copy(&r->metadata, &a->u.metadata, err));
    r->has_metadata = true;
    return 0;
  case DELTA_ACTION_ADD: return on_add(r, &a->u.add, err);
  case DELTA_ACTION_REMOVE: return on_remove(r, &a->u.remove, err);
  case DELTA_ACTION_TXN: return on_txn(r, &a->u.txn, err);
  case DELTA_ACTION_DOMAIN: return on_domain(r, &a->u.domain, err);
  case DELTA_ACTION_COMMIT_INFO:
    if (r->current == r->target) r->ict = ict_of(a->u.commit_info);
    return 0;
  case DELTA_ACTION_NONE: return 0;
  }
  return 0;
}

static void replay_reset(replay *r) {
  for (size_t i = 0; i < r->n_buckets; i++)
    for (file_node *n = r->buckets[i], *next; n; n = next) {
      next = n->next;
      node_free(n);
    }
  inlet_free(r->buckets);
  delta_protocol_reset(&r->protocol);
  delta_metadata_reset(&r->metadata);
  for (int64_t i = 0; i < r->n_txns; i++) inlet_free(r->txns[i].app_id);
  inlet_free(r->txns);
  for (int64_t i = 0; i < r->n_domains; i++) {
    inlet_free(r->domains[i].domain);
    inlet_free(r->domains[i].configuration);
  }
  inlet_free(r->domains);
  memset(r, 0, sizeof *r);
}

static bool in_list(const char *f, const char *const *list) {
  for (; *list; list++)
    if (strcmp(f, *list) == 0) return true;
  return false;
}

/* Reader version and features inlet can honour. Deletion vectors are checked
 * per live file instead: a table may enable them yet have none. */
static int check_reader(const replay *r, inlet_error *err) {
  const delta_protocol *p = &r->protocol;
  static const char *const ok[] = {"timestampNtz", "vacuumProtocolCheck", "typeWidening",
                                   "typeWidening-preview", "v2Checkpoint", "deletionVectors",
                                   "columnMapping", NULL};
  if (p->min_reader > 3 || p->min_reader < 1)
    return inlet_fail(err, INLET_EUNSUPPORTED, "table requires reader version %d (inlet reads "
                      "versions 1 to 3)", (int)p->min_reader);
  if (p->min_reader == 3) {
    for (int32_t i = 0; i < p->n_reader_features; i++)
      if (!in_list(p->reader_features[i], ok))
        return inlet_fail(err, INLET_EUNSUPPORTED, "table requires reader feature \"%s\"",
                          p->reader_features[i]);
  }
  const char *cm = delta_metadata_conf(&r->metadata, "delta.columnMapping.mode");
  if (p->min_reader >= 2 && cm && strcmp(cm, "none") != 0)
    return inlet_fail(err, INLET_EUNSUPPORTED, "table uses column mapping (mode \"%s\"), which "
                      "inlet cannot read yet", cm);
  return 0;
}

static int cmp_file(const void *a, const void *b) {
  const delta_file *x = a, *y = b;
  int c = strcmp(x->add.path, y->add.path);
  if (c) return c;
  return strcmp(x->add.dv_id ? x->add.dv_id : "", y->add.dv_id ? y->add.dv_id : "");
}

static int64_t num_records(const char *stats) {
  if (!stats) return -1;
  const char *p = strstr(stats, "\"numRecords\"");
  if (!p) return -1;
  p += 12;
  while (*p == ' ' || *p == ':') p++;
  char *end;
  long long v = strtoll(p, &end, 10);
  return end == p || v < 0 ? -1 : v;
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

/* Seeds a replay with the state of @p base (deep copies). */
static int seed_from(replay *r, const delta_snapshot *base, inlet_error *err) {
  TRY(delta_protocol_copy(&r->protocol, &base->protocol, err));
  r->has_protocol = true;
  TRY(delta_metadata_copy(&r->metadata, &base->metadata, err));
  r->has_metadata = true;
  for (int64_t i = 0; i < base->n_files; i++) TRY(on_add(r, &base->files[i].add, err));
  for (int64_t i = 0; i < base->n_txns; i++) {
    delta_txn_action t = {base->txns[i].app_id, base->txns[i].version, base->txns[i].last_updated};
    TRY(on_txn(r, &t, err));
  }
  for (int64_t i = 0; i < base->n_domains; i++) TRY(on_domain(r, &base->domains[i], err));
  for (int64_t i = 0; i < base->n_tombstones; i++) TRY(on_remove(r, &base->tombstones[i], err));
  return 0;
}

static int snapshot_load(delta_snapshot *out, const delta_snapshot *base, inlet_storage *st,
                         const char *root_abs, delta_snap_mode mode, int64_t arg, bool use_hint,
                         bool log_only, inlet_error *err);

/* The latest version through the `_last_checkpoint` hint, without listing:
 * on any failure the caller retries with a full listing, which is
 * authoritative (a missing, stale or corrupt hint never changes a result). */
static int snapshot_load_hinted(delta_snapshot *out, inlet_storage *st, const char *root_abs,
                                bool log_only, inlet_error *err) {
  inlet_error e1 = INLET_ERROR_INIT;
  int rc = snapshot_load(out, NULL, st, root_abs, DELTA_SNAP_LATEST, 0, true, log_only, &e1);
  if (rc == 0) return 0;
  return snapshot_load(out, NULL, st, root_abs, DELTA_SNAP_LATEST, 0, false, log_only, err);
}

/* The latest snapshot decides how commits are timed (in-commit timestamps
 * and their enablement version), then the version at @p ts is loaded. */
static int load_at_timestamp(delta_snapshot *out, const delta_snapshot *base, inlet_storage *st,
                             const char *root_abs, int64_t ts, inlet_error *err) {
  delta_snapshot latest;
  TRY(delta_snapshot_load_from(&latest, base, st, root_abs, DELTA_SNAP_LATEST, 0, err));
  int64_t v = -1;
  int rc = delta_version_at_timestamp(st, root_abs, &latest, ts, &v, err);
  if (rc == 0 && v == latest.version) {
    *out = latest; /* move */
    return 0;
  }
  if (rc == 0) rc = delta_snapshot_load_from(out, base, st, root_abs, DELTA_SNAP_VERSION, v, err);
  delta_snapshot_reset(&latest);
  return rc;
}

int delta_snapshot_load(delta_snapshot *out, inlet_storage *st, const char *root_abs,
                        delta_snap_mode mode, int64_t arg, inlet_error *err) {
  if (mode == DELTA_SNAP_TIMESTAMP) return load_at_timestamp(out, NULL, st, root_abs, arg, err);
  if (mode == DELTA_SNAP_LATEST) return snapshot_load_hinted(out, st, root_abs, false, err);
  return snapshot_load(out, NULL, st, root_abs, mode, arg, false, false, err);
}

int delta_snapshot_load_log(delta_snapshot *out, inlet_storage *st, const char *root_abs,
                            inlet_error *err) {
  return snapshot_load_hinted(out, st, root_abs, true, err);
}

int delta_snapshot_load_from(delta_snapshot *out, const delta_snapshot *base, inlet_storage *st,
                             const char *root_abs, delta_snap_mode mode, int64_t arg,
                             inlet_error *err) {
  if (mode == DELTA_SNAP_TIMESTAMP) return load_at_timestamp(out, base, st, root_abs, arg, err);
  if (!base && mode == DELTA_SNAP_LATEST) return snapshot_load_hinted(out, st, root_abs, false, err);
  return snapshot_load(out, base, st, root_abs, mode, arg, false, false, err);
}

/* Reads `_delta_log/_last_checkpoint`: 1 with the version and part count,
 * 0 when absent, unreadable or malformed. */
static int read_hint(inlet_storage *st, int64_t *version, int32_t *parts) {
  inlet_error e = INLET_ERROR_INIT;
  inlet_rfile *f = NULL;
  if (st->ops->open_read(st, "_delta_log/_last_checkpoint", &f, &e) < 0) return 0;
  char buf[4096];
  int ok = 0;
  if (f->size > 0 && f->size < (int64_t)sizeof buf &&
      inlet_rfile_read_at(f, 0, buf, (size_t)f->size, &e) == 0) {
    json_t *o = json_loadb(buf, (size_t)f->size, 0, NULL);
    json_t *v = json_object_get(o, "version"), *p = json_object_get(o, "parts");
    if (json_is_integer(v) && json_integer_value(v) >= 0 && !json_object_get(o, "v2Checkpoint")) {
      *version = (int64_t)json_integer_value(v);
      *parts = json_is_integer(p) && json_integer_value(p) > 1 && json_integer_value(p) < 100000
                   ? (int32_t)json_integer_value(p)
                   : 1;
      ok = 1;
    }
    json_decref(o);
  }
  inlet_rfile_close(f);
  return ok;
}

static int snapshot_load(delta_snapshot *out, const delta_snapshot *base, inlet_storage *st,
                         const char *root_abs, delta_snap_mode mode, int64_t arg, bool use_hint,
                         bool log_only, inlet_error *err) {
  memset(out, 0, sizeof *out);
  out->checkpoint_version = -1;
  delta_log_listing l;
  replay r;
  memset(&r, 0, sizeof r);
  r.ict = -1;
  /* With a base snapshot and the latest version wanted, probe for the
   * commits after the base instead of listing the whole directory: the cost
   * of catching up is then independent of the log's length. Writers never
   * skip a version (they try each in turn), so the first missing name ends
   * the log; a directory listing (no base) also detects gaps. */
  bool probed = base && (mode == DELTA_SNAP_LATEST ||
                         (mode == DELTA_SNAP_VERSION && arg >= base->version));
  int64_t hv = -1;
  int32_t hparts = 1;
  bool hinted = !probed && use_hint && read_hint(st, &hv, &hparts);
  if (probed) {
    TRY(probe_commits(&l, st, base->version + 1, err));
  } else if (hinted) {
    /* The checkpoint the hint names, then the commits from its version on. */
    TRY(probe_commits(&l, st, hv, err));
    l.checkpoints = inlet_calloc(1, sizeof *l.checkpoints);
    if (!l.checkpoints) {
      delta_log_listing_reset(&l);
      return inlet_fail(err, INLET_ENOMEM, "out of memory");
    }
    l.checkpoints[0] = (delta_checkpoint_ref){hv, hparts, false};
    l.n_checkpoints = 1;
  } else {
    TRY(delta_log_list(&l, st, err));
  }
  int rc = 0;
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
    rc = inlet_fail(err, INLET_EINVAL, "internal: timestamp loads go through load_at_timestamp");
    goto done;
  }
  r.target = target;

  /* Pick the start: a base snapshot at or below the target (commits are
   * immutable, so its state stays valid), else the newest readable
   * checkpoint <= target, else version 0. */
  int64_t start = 0;
  int cp_rc = 0;
  inlet_error cp_err = INLET_ERROR_INIT;
  if (base && base->version <= target) {
    rc = seed_from(&r, base, err);
    if (rc < 0) goto done;
    start = base->version + 1;
    out->checkpoint_version = base->checkpoint_version;
    out->timestamp_ms = base->timestamp_ms;
  }
  int64_t failed_cp = -1;
  for (int64_t i = l.n_checkpoints - 1; i >= 0 && !(base && base->version <= target); i--) {
    const delta_checkpoint_ref *cp = &l.checkpoints[i];
    if (cp->version > target) continue;
    inlet_error e1 = INLET_ERROR_INIT;
    int crc = delta_checkpoint_read(st, root_abs, cp, replay_cb, &r, &e1);
    if (crc == 0) {
      start = cp->version + 1;
      out->checkpoint_version = cp->version;
      break;
    }
    /* A failed checkpoint may have left partial state: start over. */
    replay_reset(&r);
    r.target = target;
    r.ict = -1;
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
  if (!(base && base->version <= target) && out->checkpoint_version < 0 &&
      find_commit(&l, 0) < 0) {
    if (cp_rc < 0)
      rc = inlet_fail(err, cp_rc == INLET_ECORRUPT ? INLET_ECORRUPT : INLET_EUNSUPPORTED,
                      "the checkpoint at version %lld cannot be read (%s), and the commits "
                      "before it were cleaned up", (long long)failed_cp, inlet_errmsg(&cp_err));
    else
      rc = inlet_fail(err, target < (l.n_commits ? l.commit_versions[0] : 0) ? INLET_ENOTFOUND
                                                                            : INLET_ECORRUPT,
                      "version %lld cannot be reconstructed: commit 0 is missing and no "
                      "checkpoint at or below it exists", (long long)target);
    goto done;
  }
  /* Replaying from version 0 after a failed checkpoint: the commits between
   * must be contiguous, which the loop below checks. */
  for (int64_t v = start; v <= target; v++) {
    int64_t idx = find_commit(&l, v);
    FAIL_GOTO(idx < 0, err, INLET_ECORRUPT,
              "corrupt log: commit file for version %lld is missing (gap before version %lld)",
              (long long)v, (long long)target);
    r.current = v;
    rc = delta_log_read_commit(st, root_abs, v, replay_cb, &r, err);
    if (rc < 0) goto done;
    if (v == target) out->timestamp_ms = l.commit_mtimes[idx];
  }
  /* Spark's Snapshot.timestamp: the in-commit timestamp while the table
   * enables them, else the (monotonized) commit file time. */
  if (r.ict >= 0 && delta_ict_enabled(&r.metadata)) out->timestamp_ms = r.ict;
  if (out->timestamp_ms == 0) {
    int64_t idx = find_commit(&l, target);
    if (idx >= 0) out->timestamp_ms = l.commit_mtimes[idx];
  }
  FAIL_GOTO(!r.has_protocol, err, INLET_ECORRUPT,
            "corrupt log: no protocol action at or before version %lld", (long long)target);
  FAIL_GOTO(!r.has_metadata, err, INLET_ECORRUPT,
            "corrupt log: no metaData action at or before version %lld", (long long)target);
  /* What only the log is read for (describe) needs no reader features. */
  if (!log_only) {
    rc = check_reader(&r, err);
    if (rc < 0) goto done;
  }

  out->version = target;
  out->n_commits_on_disk = probed ? base->n_commits_on_disk : 0;
  for (int64_t i = 0; i < l.n_commits && l.commit_versions[i] <= target; i++)
    out->n_commits_on_disk++;
  if (r.metadata.schema_string) {
    inlet_error se = INLET_ERROR_INIT;
    rc = delta_schema_parse(&out->schema, r.metadata.schema_string, &se);
    if (rc < 0 && log_only && rc != INLET_ENOMEM) {
      /* A type inlet cannot read (variant, ...): the log still describes. */
      inlet_schema_init(&out->schema);
      rc = 0;
    } else if (rc < 0) {
      inlet_fail(err, rc, "%s", inlet_errmsg(&se));
      inlet_error_prefix(err, "metaData.schemaString at version %lld", (long long)target);
      goto done;
    } else {
      out->has_schema = true;
    }
  } else {
    inlet_schema_init(&out->schema);
  }
  out->files = inlet_calloc(r.n_files + 1, sizeof *out->files);
  out->tombstones = inlet_calloc(r.n_nodes - r.n_files + 1, sizeof *out->tombstones);
  FAIL_GOTO(!out->files || !out->tombstones, err, INLET_ENOMEM,
            "out of memory building the snapshot");
  int64_t cutoff = delta_now_ms() - delta_retention_ms(&r.metadata);
  for (size_t i = 0; i < r.n_buckets; i++) {
    for (file_node *n = r.buckets[i]; n; n = n->next) {
      if (n->tomb) {
        /* Expired tombstones are dropped, as checkpoints drop them. */
        if (n->rm.deletion_timestamp > cutoff) {
          out->tombstones[out->n_tombstones++] = n->rm; /* move */
          memset(&n->rm, 0, sizeof n->rm);
        }
        continue;
      }
      delta_file *f = &out->files[out->n_files++];
      f->add = n->add; /* move */
      memset(&n->add, 0, sizeof n->add);
      f->num_records = num_records(f->add.stats);
    }
  }
  qsort(out->files, (size_t)out->n_files, sizeof *out->files, cmp_file);
  for (int64_t i = 0; i < out->n_files && !log_only; i++)
    FAIL_GOTO(out->files[i].add.dv_id, err, INLET_EUNSUPPORTED,
              "table uses deletion vectors (file \"%s\"), which inlet cannot apply yet",
              out->files[i].add.path);
  out->protocol = r.protocol;
  memset(&r.protocol, 0, sizeof r.protocol);
  out->metadata = r.metadata;
  memset(&r.metadata, 0, sizeof r.metadata);
  r.metadata.created_time = -1;
  out->txns = r.txns;
  out->n_txns = r.n_txns;
  r.txns = NULL;
  r.n_txns = 0;
  out->domains = r.domains;
  out->n_domains = r.n_domains;
  r.domains = NULL;
  r.n_domains = 0;
done:
  replay_reset(&r);
  delta_log_listing_reset(&l);
  if (rc < 0) delta_snapshot_reset(out);
  return rc;
}

void delta_snapshot_reset(delta_snapshot *s) {
  delta_protocol_reset(&s->protocol);
  delta_metadata_reset(&s->metadata);
  inlet_schema_reset(&s->schema);
  for (int64_t i = 0; i < s->n_files; i++) delta_add_reset(&s->files[i].add);
  inlet_free(s->files);
  for (int64_t i = 0; i < s->n_txns; i++) inlet_free(s->txns[i].app_id);
  inlet_free(s->txns);
  for (int64_t i = 0; i < s->n_domains; i++) {
    inlet_free(s->domains[i].domain);
    inlet_free(s->domains[i].configuration);
  }
  inlet_free(s->domains);
  for (int64_t i = 0; i < s->n_tombstones; i++) delta_remove_reset(&s->tombstones[i]);
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
  dst->has_schema = src->has_schema;
  if ((rc = delta_protocol_copy(&dst->protocol, &src->protocol, err)) < 0) goto fail;
  if ((rc = delta_metadata_copy(&dst->metadata, &src->metadata, err)) < 0) goto fail;
  if ((rc = inlet_schema_copy(&dst->schema, &src->schema, err)) < 0) goto fail;
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
