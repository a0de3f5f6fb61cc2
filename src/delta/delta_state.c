/*
 * The state of a table at one version (delta_state_int.h), built by applying
 * log actions in order.
 *
 * Spec: PROTOCOL.md "Action Reconciliation": the newest protocol and
 * metaData win; a file is live when its newest add has no later remove, the
 * key being path + deletion vector id; a removed file stays as a tombstone
 * until delta.deletedFileRetentionDuration passes (checkpoints keep it for
 * VACUUM); txn versions per appId; domain metadata per domain.
 * "In-Commit Timestamps": a commit's commitInfo may carry its timestamp.
 *
 * Why the layout: a table handle keeps one state as its newest version and
 * applies every commit to it, so each action must cost O(1) whatever the
 * number of live files (issue 12: a one-row commit at 20,000 files cost 30x
 * a new table's when each commit rebuilt and sorted the snapshot).
 *   - A hash index on the key finds the file an add replaces or a remove
 *     deletes.
 *   - Snapshots list files sorted by path. `order` holds the nodes sorted as
 *     of the last snapshot; files added since are appended to `pending`
 *     unsorted, and a removed file stays in `order` (as a tombstone) until
 *     the next snapshot sorts the pending ones and merges both in one pass:
 *     O(n + p log p) there, nothing on the commit path.
 */
#include <stdio.h>

#include "delta/delta_features.h"
#include "delta/delta_state_int.h"
#include "util/util.h"

enum { LISTED_NONE = 0, LISTED_ORDER, LISTED_PENDING };

typedef struct st_node {
  struct st_node *next; /* hash chain */
  uint64_t hash;        /* of key */
  char *key;            /* owned: path '\n' deletion vector id */
  bool tomb;            /* u.rm holds the newest remove, else u.file the live add */
  uint8_t listed;       /* LISTED_*: in order, in pending, or in neither */
  union {
    delta_file file; /* owned, when !tomb */
    delta_remove rm; /* owned, when tomb */
  } u;
} st_node;

struct delta_state {
  int64_t version; /* -1 before any commit */
  int64_t timestamp_ms;
  int64_t checkpoint_version; /* the replay started from it, -1 none */
  int64_t n_commits_on_disk;
  int64_t ict;             /* inCommitTimestamp of the commit being applied, -1 none */
  int64_t commit_mtime_ms; /* the newest commit's file time as listings monotonize it, -1 unknown */
  bool log_only;           /* snapshots for log-only readers: no reader checks */
  delta_protocol protocol; /* owned */
  bool has_protocol;
  delta_metadata metadata; /* owned */
  bool has_metadata;
  inlet_schema schema; /* owned: parsed schemaString, valid when schema_parsed */
  bool schema_parsed;
  st_node **buckets;                        /* owned, with the nodes; n_buckets is a power of two */
  size_t n_buckets, n_nodes, n_files, n_dv; /* live files; files + tombstones; live with a DV */
  st_node **order; /* owned array (nodes borrowed): sorted, may hold tombstones */
  size_t n_order;
  st_node **pending; /* owned array (nodes borrowed): listed since the last sort */
  size_t n_pending, cap_pending;
  delta_txn_entry *txns; /* owned */
  int64_t n_txns, cap_txns;
  delta_domain *domains; /* owned, non-removed only */
  int64_t n_domains, cap_domains;
};

static int oom(inlet_error *err) {
  return inlet_fail(err, INLET_ENOMEM, "out of memory replaying the log");
}

int delta_state_new(delta_state **out, inlet_error *err) {
  delta_state *s = inlet_calloc(1, sizeof *s);
  *out = s;
  if (!s) return oom(err);
  s->version = -1;
  s->checkpoint_version = -1;
  s->ict = -1;
  s->commit_mtime_ms = -1;
  s->metadata.created_time = -1;
  inlet_schema_init(&s->schema);
  return 0;
}

static void node_free(st_node *n) {
  inlet_free(n->key);
  if (n->tomb)
    delta_remove_reset(&n->u.rm);
  else
    delta_add_reset(&n->u.file.add);
  inlet_free(n);
}

void delta_state_free(delta_state *s) {
  if (!s) return;
  for (size_t i = 0; i < s->n_buckets; i++)
    for (st_node *n = s->buckets[i], *next; n; n = next) {
      next = n->next;
      node_free(n);
    }
  inlet_free(s->buckets);
  inlet_free(s->order);
  inlet_free(s->pending);
  delta_protocol_reset(&s->protocol);
  delta_metadata_reset(&s->metadata);
  inlet_schema_reset(&s->schema);
  for (int64_t i = 0; i < s->n_txns; i++)
    inlet_free(s->txns[i].app_id);
  inlet_free(s->txns);
  for (int64_t i = 0; i < s->n_domains; i++) {
    inlet_free(s->domains[i].domain);
    inlet_free(s->domains[i].configuration);
  }
  inlet_free(s->domains);
  inlet_free(s);
}

/* ---- files ------------------------------------------------------------------ */

static uint64_t hash_str(const char *p) {
  uint64_t h = 1469598103934665603ull;
  for (; *p; p++)
    h = (h ^ (unsigned char)*p) * 1099511628211ull;
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

static int grow(delta_state *s, inlet_error *err) {
  size_t nb = s->n_buckets ? s->n_buckets * 2 : 1024;
  st_node **b = inlet_calloc(nb, sizeof *b);
  if (!b) return oom(err);
  for (size_t i = 0; i < s->n_buckets; i++) {
    for (st_node *n = s->buckets[i], *next; n; n = next) {
      next = n->next;
      size_t h = n->hash & (nb - 1);
      n->next = b[h];
      b[h] = n;
    }
  }
  inlet_free(s->buckets);
  s->buckets = b;
  s->n_buckets = nb;
  return 0;
}

static st_node **find_slot(delta_state *s, const char *key, uint64_t h) {
  st_node **p = &s->buckets[h & (s->n_buckets - 1)];
  while (*p && ((*p)->hash != h || strcmp((*p)->key, key) != 0))
    p = &(*p)->next;
  return p;
}

/* The node of @p path + @p dv, created (as a tombstone with an empty
 * remove, unlisted) when absent. */
static int get_node(delta_state *s, const char *path, const char *dv, st_node **out,
                    inlet_error *err) {
  if (s->n_nodes >= s->n_buckets) TRY(grow(s, err));
  char *key = make_key(path, dv);
  if (!key) return oom(err);
  uint64_t h = hash_str(key);
  st_node **slot = find_slot(s, key, h);
  if (*slot) {
    inlet_free(key);
    *out = *slot;
    return 0;
  }
  st_node *n = inlet_calloc(1, sizeof *n);
  if (!n) {
    inlet_free(key);
    return oom(err);
  }
  n->key = key;
  n->hash = h;
  n->tomb = true;
  *slot = n;
  s->n_nodes++;
  *out = n;
  return 0;
}

static int list_pending(delta_state *s, st_node *n, inlet_error *err) {
  if (s->n_pending == s->cap_pending) {
    size_t nc = s->cap_pending ? s->cap_pending * 2 : 64;
    st_node **p = inlet_realloc(s->pending, nc * sizeof *p);
    if (!p) return oom(err);
    s->pending = p;
    s->cap_pending = nc;
  }
  s->pending[s->n_pending++] = n;
  n->listed = LISTED_PENDING;
  return 0;
}

static int on_add(delta_state *s, const delta_add *a, inlet_error *err) {
  st_node *n;
  TRY(get_node(s, a->path, a->dv_id, &n, err));
  delta_add copy;
  TRY(delta_add_copy(&copy, a, err));
  if (n->tomb) {
    delta_remove_reset(&n->u.rm);
    n->tomb = false;
    s->n_files++;
  } else {
    if (n->u.file.add.dv_id) s->n_dv--;
    delta_add_reset(&n->u.file.add);
  }
  n->u.file.add = copy;
  n->u.file.num_records = delta_stats_num_records(copy.stats);
  if (copy.dv_id) s->n_dv++;
  /* A file still in `order` (removed and re-added since the last sort)
   * keeps its place there. */
  return n->listed == LISTED_NONE ? list_pending(s, n, err) : 0;
}

static int on_remove(delta_state *s, const delta_remove *rm, inlet_error *err) {
  st_node *n;
  TRY(get_node(s, rm->path, rm->dv_id, &n, err));
  delta_remove copy;
  TRY(delta_remove_copy(&copy, rm, err));
  if (n->tomb) {
    delta_remove_reset(&n->u.rm);
  } else {
    if (n->u.file.add.dv_id) s->n_dv--;
    delta_add_reset(&n->u.file.add);
    s->n_files--;
    n->tomb = true;
  }
  n->u.rm = copy;
  return 0;
}

/* ---- other actions ------------------------------------------------------------ */

static int on_txn(delta_state *s, const delta_txn_action *t, inlet_error *err) {
  for (int64_t i = 0; i < s->n_txns; i++) {
    if (strcmp(s->txns[i].app_id, t->app_id) == 0) {
      s->txns[i].version = t->version;
      s->txns[i].last_updated = t->last_updated;
      return 0;
    }
  }
  if (s->n_txns == s->cap_txns) {
    int64_t nc = s->cap_txns ? s->cap_txns * 2 : 8;
    delta_txn_entry *nt = inlet_realloc(s->txns, (size_t)nc * sizeof *nt);
    if (!nt) return oom(err);
    s->txns = nt;
    s->cap_txns = nc;
  }
  char *id = inlet_strdup(t->app_id);
  if (!id) return oom(err);
  s->txns[s->n_txns++] = (delta_txn_entry){id, t->version, t->last_updated};
  return 0;
}

static int on_domain(delta_state *s, const delta_domain *d, inlet_error *err) {
  for (int64_t i = 0; i < s->n_domains; i++) {
    if (strcmp(s->domains[i].domain, d->domain) == 0) {
      inlet_free(s->domains[i].domain);
      inlet_free(s->domains[i].configuration);
      s->domains[i] = s->domains[--s->n_domains];
      break;
    }
  }
  if (d->removed) return 0;
  if (s->n_domains == s->cap_domains) {
    int64_t nc = s->cap_domains ? s->cap_domains * 2 : 4;
    delta_domain *nd = inlet_realloc(s->domains, (size_t)nc * sizeof *nd);
    if (!nd) return oom(err);
    s->domains = nd;
    s->cap_domains = nc;
  }
  delta_domain c = {inlet_strdup(d->domain), inlet_strdup(d->configuration), false};
  if (!c.domain || !c.configuration) {
    inlet_free(c.domain);
    inlet_free(c.configuration);
    return oom(err);
  }
  s->domains[s->n_domains++] = c;
  return 0;
}

int64_t delta_commit_info_ict(const char *commit_info) {
  const char *p = strstr(commit_info, "\"inCommitTimestamp\":");
  if (!p) return -1;
  return strtoll(p + 20, NULL, 10);
}

int delta_state_apply(void *state, const delta_action *a, inlet_error *err) {
  delta_state *s = state;
  switch (a->kind) {
  case DELTA_ACTION_PROTOCOL:
    delta_protocol_reset(&s->protocol);
    s->has_protocol = false;
    TRY(delta_protocol_copy(&s->protocol, &a->u.protocol, err));
    s->has_protocol = true;
    return 0;
  case DELTA_ACTION_METADATA:
    delta_metadata_reset(&s->metadata);
    s->has_metadata = false;
    inlet_schema_reset(&s->schema);
    s->schema_parsed = false;
    TRY(delta_metadata_copy(&s->metadata, &a->u.metadata, err));
    s->has_metadata = true;
    return 0;
  case DELTA_ACTION_ADD: return on_add(s, &a->u.add, err);
  case DELTA_ACTION_REMOVE: return on_remove(s, &a->u.remove, err);
  case DELTA_ACTION_TXN: return on_txn(s, &a->u.txn, err);
  case DELTA_ACTION_DOMAIN: return on_domain(s, &a->u.domain, err);
  case DELTA_ACTION_COMMIT_INFO: s->ict = delta_commit_info_ict(a->u.commit_info); return 0;
  case DELTA_ACTION_CDC: /* change data feed only: no part of the table state */
  case DELTA_ACTION_NONE: return 0;
  }
  return 0;
}

void delta_state_begin_commit(delta_state *s) {
  s->ict = -1;
}

void delta_state_end_commit(delta_state *s, int64_t version, int64_t mtime_ms) {
  /* A file time not after its predecessor's counts as one millisecond after
   * it, as a listing of the log has it (delta_log_listing_from): two
   * commits in the same millisecond must not make a cached state disagree
   * with a fresh load. */
  if (mtime_ms >= 0 && s->commit_mtime_ms >= 0 && mtime_ms <= s->commit_mtime_ms)
    mtime_ms = s->commit_mtime_ms + 1;
  s->commit_mtime_ms = mtime_ms;
  s->version = version;
  /* Spark's Snapshot.timestamp: the in-commit timestamp while the table
   * enables them, else the commit file's time. */
  s->timestamp_ms = s->ict >= 0 && delta_ict_enabled(&s->metadata) ? s->ict : mtime_ms;
  s->n_commits_on_disk++;
  s->ict = -1;
}

void delta_state_set_commit_mtime(delta_state *s, int64_t mtime_ms) {
  s->commit_mtime_ms = mtime_ms;
}

void delta_state_set_timestamp(delta_state *s, int64_t timestamp_ms) {
  s->timestamp_ms = timestamp_ms;
}

int64_t delta_state_commit_ict(const delta_state *s) {
  return s->ict >= 0 && delta_ict_enabled(&s->metadata) ? s->ict : -1;
}

void delta_state_set_log_only(delta_state *s, bool log_only) {
  s->log_only = log_only;
}

void delta_state_set_position(delta_state *s, int64_t version, int64_t timestamp_ms,
                              int64_t checkpoint_version, int64_t n_commits_on_disk) {
  s->version = version;
  s->timestamp_ms = timestamp_ms;
  s->checkpoint_version = checkpoint_version;
  s->n_commits_on_disk = n_commits_on_disk;
}

int64_t delta_state_version(const delta_state *s) {
  return s->version;
}

int delta_state_seed(delta_state *s, const delta_snapshot *base, inlet_error *err) {
  delta_action a;
  memset(&a, 0, sizeof a);
  a.kind = DELTA_ACTION_PROTOCOL;
  a.u.protocol = base->protocol; /* borrowed: apply copies */
  TRY(delta_state_apply(s, &a, err));
  a.kind = DELTA_ACTION_METADATA;
  a.u.metadata = base->metadata;
  TRY(delta_state_apply(s, &a, err));
  for (int64_t i = 0; i < base->n_files; i++)
    TRY(on_add(s, &base->files[i].add, err));
  for (int64_t i = 0; i < base->n_txns; i++) {
    delta_txn_action t = {base->txns[i].app_id, base->txns[i].version, base->txns[i].last_updated};
    TRY(on_txn(s, &t, err));
  }
  for (int64_t i = 0; i < base->n_domains; i++)
    TRY(on_domain(s, &base->domains[i], err));
  for (int64_t i = 0; i < base->n_tombstones; i++)
    TRY(on_remove(s, &base->tombstones[i], err));
  delta_state_set_position(s, base->version, base->timestamp_ms, base->checkpoint_version,
                           base->n_commits_on_disk);
  return 0;
}

/* ---- snapshots ------------------------------------------------------------------ */

static int cmp_node(const void *a, const void *b) {
  const delta_add *x = &(*(st_node *const *)a)->u.file.add;
  const delta_add *y = &(*(st_node *const *)b)->u.file.add;
  int c = strcmp(x->path, y->path);
  if (c) return c;
  return strcmp(x->dv_id ? x->dv_id : "", y->dv_id ? y->dv_id : "");
}

/* Makes `order` exactly the live files, sorted: the pending ones sorted and
 * merged in, tombstones dropped from both lists. */
static int settle_order(delta_state *s, inlet_error *err) {
  if (s->n_pending == 0 && s->n_order == s->n_files) return 0;
  st_node **m = inlet_malloc((s->n_files + 1) * sizeof *m);
  if (!m) return oom(err);
  size_t np = 0;
  for (size_t i = 0; i < s->n_pending; i++) {
    st_node *n = s->pending[i];
    if (n->tomb)
      n->listed = LISTED_NONE;
    else
      s->pending[np++] = n;
  }
  qsort(s->pending, np, sizeof *s->pending, cmp_node);
  size_t i = 0, j = 0, k = 0;
  while (i < s->n_order || j < np) {
    st_node *a = i < s->n_order ? s->order[i] : NULL;
    if (a && a->tomb) {
      a->listed = LISTED_NONE;
      i++;
      continue;
    }
    st_node *b = j < np ? s->pending[j] : NULL;
    if (b && (!a || cmp_node(&b, &a) < 0)) {
      b->listed = LISTED_ORDER;
      m[k++] = b;
      j++;
    } else {
      m[k++] = a;
      i++;
    }
  }
  inlet_free(s->order);
  s->order = m;
  s->n_order = k;
  s->n_pending = 0;
  return 0;
}

/* Everything but files and tombstones, after the checks a reader needs. */
static int fill_head(delta_state *s, delta_snapshot *out, inlet_error *err) {
  long long v = (long long)s->version;
  FAIL_IF(!s->has_protocol, err, INLET_ECORRUPT,
          "corrupt log: no protocol action at or before version %lld", v);
  FAIL_IF(!s->has_metadata, err, INLET_ECORRUPT,
          "corrupt log: no metaData action at or before version %lld", v);
  /* What only the log is read for (describe, history) needs no reader
   * features. */
  if (!s->log_only) TRY(delta_check_reader(&s->protocol, &s->metadata, err));
  if (!s->schema_parsed && s->metadata.schema_string) {
    inlet_error se = INLET_ERROR_INIT;
    int rc = delta_schema_parse(&s->schema, s->metadata.schema_string, &se);
    if (rc < 0) {
      inlet_schema_reset(&s->schema);
      /* A type inlet cannot read (variant, ...): the log still describes. */
      if (!(s->log_only && rc != INLET_ENOMEM)) {
        inlet_fail(err, rc, "%s", inlet_errmsg(&se));
        return inlet_error_prefix(err, "metaData.schemaString at version %lld", v);
      }
    } else {
      s->schema_parsed = true;
    }
  }
  /* Live files whose add carries a deletion vector. */
  out->n_dv_files = (int64_t)s->n_dv;
  out->version = s->version;
  out->timestamp_ms = s->timestamp_ms;
  out->checkpoint_version = s->checkpoint_version;
  out->n_commits_on_disk = s->n_commits_on_disk;
  TRY(delta_protocol_copy(&out->protocol, &s->protocol, err));
  TRY(delta_metadata_copy(&out->metadata, &s->metadata, err));
  if (s->schema_parsed) {
    TRY(inlet_schema_copy(&out->schema, &s->schema, err));
    out->has_schema = true;
    inlet_error me = INLET_ERROR_INIT;
    int rc = delta_snapshot_set_mapping(out, &me);
    /* What only describes the log tolerates bad mapping metadata. */
    if (rc < 0 && !(s->log_only && rc != INLET_ENOMEM)) {
      inlet_fail(err, rc, "%s", inlet_errmsg(&me));
      return inlet_error_prefix(err, "metaData at version %lld", v);
    }
  } else {
    inlet_schema_init(&out->schema);
  }
  out->txns = inlet_calloc((size_t)s->n_txns + 1, sizeof *out->txns);
  out->domains = inlet_calloc((size_t)s->n_domains + 1, sizeof *out->domains);
  if (!out->txns || !out->domains) return oom(err);
  for (int64_t i = 0; i < s->n_txns; i++) {
    out->txns[i] = s->txns[i];
    out->txns[i].app_id = inlet_strdup(s->txns[i].app_id);
    if (!out->txns[i].app_id) return oom(err);
    out->n_txns++;
  }
  for (int64_t i = 0; i < s->n_domains; i++) {
    delta_domain *d = &out->domains[i];
    d->domain = inlet_strdup(s->domains[i].domain);
    d->configuration = inlet_strdup(s->domains[i].configuration);
    out->n_domains++;
    if (!d->domain || !d->configuration) return oom(err);
  }
  return 0;
}

int delta_state_head(delta_state *s, delta_snapshot *out, inlet_error *err) {
  memset(out, 0, sizeof *out);
  int rc = fill_head(s, out, err);
  if (rc < 0) delta_snapshot_reset(out);
  return rc;
}

int delta_state_snapshot(delta_state *s, delta_snapshot *out, bool move, inlet_error *err) {
  memset(out, 0, sizeof *out);
  int rc = 0;
  TRY_GOTO(settle_order(s, err));
  TRY_GOTO(fill_head(s, out, err));
  size_t n_tombs = s->n_nodes - s->n_files;
  out->files = inlet_calloc(s->n_files + 1, sizeof *out->files);
  out->tombstones = inlet_calloc(n_tombs + 1, sizeof *out->tombstones);
  FAIL_GOTO(!out->files || !out->tombstones, err, INLET_ENOMEM,
            "out of memory building the snapshot");
  for (size_t i = 0; i < s->n_order; i++) {
    delta_file *src = &s->order[i]->u.file, *dst = &out->files[out->n_files];
    if (move) {
      *dst = *src;
      memset(&src->add, 0, sizeof src->add);
    } else {
      TRY_GOTO(delta_add_copy(&dst->add, &src->add, err));
      dst->num_records = src->num_records;
    }
    out->n_files++;
  }
  /* Expired tombstones are dropped, as checkpoints drop them. */
  int64_t cutoff = delta_now_ms() - delta_retention_ms(&s->metadata);
  for (size_t b = 0; b < s->n_buckets; b++) {
    for (st_node **p = &s->buckets[b]; *p;) {
      st_node *n = *p;
      if (!n->tomb) {
        p = &n->next;
      } else if (n->u.rm.deletion_timestamp > cutoff) {
        delta_remove *dst = &out->tombstones[out->n_tombstones];
        if (move) {
          *dst = n->u.rm;
          memset(&n->u.rm, 0, sizeof n->u.rm);
        } else {
          TRY_GOTO(delta_remove_copy(dst, &n->u.rm, err));
        }
        out->n_tombstones++;
        p = &n->next;
      } else if (!move && n->listed == LISTED_NONE) {
        *p = n->next; /* gone for good: unlisted after settle_order */
        node_free(n);
        s->n_nodes--;
      } else {
        p = &n->next;
      }
    }
  }
done:
  if (rc < 0) delta_snapshot_reset(out);
  return rc;
}

int delta_state_for_each_file(const delta_state *s,
                              int (*cb)(void *ctx, const delta_add *add, inlet_error *err),
                              void *ctx, inlet_error *err) {
  for (size_t b = 0; b < s->n_buckets; b++)
    for (const st_node *n = s->buckets[b]; n; n = n->next)
      if (!n->tomb) TRY(cb(ctx, &n->u.file.add, err));
  return 0;
}
