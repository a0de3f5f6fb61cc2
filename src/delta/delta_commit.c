/*
 * Transactions: optimistic commits of one log entry with the protocol's
 * conflict rules.
 *
 * Spec: PROTOCOL.md "Creation of New Log Entries" (a commit file must be
 * created atomically and never overwrite another: mutual exclusion on the
 * name), "Commit Provenance Information" (commitInfo), "Transaction
 * Identifiers" (txn per appId).
 *
 * A commit is written whole to `_delta_log/.tmp-<version>-<random>.json`
 * (a dot name every Delta reader ignores, recognisable as debris if we die),
 * fsynced, and published with the storage layer's put_if_absent (link(2)),
 * which fails instead of replacing a concurrent winner, then the directory
 * is synced. On losing version N the winners' actions are checked:
 *   - a concurrent metaData or protocol change conflicts;
 *   - a txn for an appId this commit also records conflicts;
 *   - removing a file a winner already removed conflicts (delete/delete);
 *   - a data-changing rewrite (remove with dataChange=true) conflicts with a
 *     concurrent data-changing append, whose rows it could not have seen;
 *   - blind appends and compactions (dataChange=false rewrites of other
 *     files) never conflict with appends.
 * Non-conflicting losers retry at the next version after a bounded,
 * jittered exponential backoff.
 *
 * On tables with in-commit timestamps (PROTOCOL.md "In-Commit Timestamps")
 * commitInfo comes first and carries inCommitTimestamp, computed per
 * attempt from the commit just below the version tried; on append-only
 * tables ("Append-only Tables") a remove with dataChange=true is refused.
 */
#include <jansson.h>
#include <stdio.h>
#include <strings.h>
#include <time.h>

#include "delta/delta_crc.h"
#include "delta/delta_features.h"
#include "delta/delta_row_tracking.h"
#include "delta/delta_state_int.h"
#include "util/util.h"

struct delta_txn {
  inlet_storage *st; /* borrowed */
  char *root_abs;    /* owned */
  int64_t read_version;
  char *operation; /* owned */
  char *params;    /* owned raw JSON object, may be NULL */
  bool strict;
  int max_attempts;
  delta_action *actions; /* owned */
  size_t n_actions, cap_actions;
  int64_t rows;
  char *extra_metrics;        /* owned JSON object text, may be NULL (stream metrics) */
  json_t *tags;               /* owned: commitInfo.tags (string to string), NULL = none */
  bool ict;                   /* the table writes in-commit timestamps */
  bool append_only;           /* delta.appendOnly=true: no remove with dataChange=true */
  const delta_snapshot *base; /* borrowed: the read snapshot, for the .crc; may be NULL */
  delta_state *base_state;    /* borrowed: the state the base came from; may be NULL */
  bool maybe_published;       /* commit failed, but its entry may be in the log */
  char *commit_info;          /* owned: the commitInfo written, once built */
  /* Row tracking (PROTOCOL.md "Writer Requirements for Row Tracking"):
   * adds that came without baseRowId / defaultRowCommitVersion get them
   * per attempt, from the high-water mark of the version below the one
   * tried (a winner's domainMetadata moves it) and that version. */
  bool rt;           /* the table assigns row ids */
  int64_t rt_hwm;    /* rowIdHighWaterMark below the version tried, -1 none */
  uint8_t *rt_fresh; /* owned, per action: RT_ID | RT_VER to assign */
  int64_t rt_domain; /* index of this commit's delta.rowTracking domain action, -1 */
};

enum { RT_ID = 1, RT_VER = 2 };

bool delta_txn_maybe_published(const delta_txn *t) {
  return t->maybe_published;
}

int delta_txn_begin(delta_txn **out, inlet_storage *st, const char *root_abs, int64_t read_version,
                    const char *operation, inlet_error *err) {
  delta_txn *t = inlet_calloc(1, sizeof *t);
  if (!t) return inlet_fail(err, INLET_ENOMEM, "out of memory starting a transaction");
  t->st = st;
  t->root_abs = inlet_strdup(root_abs ? root_abs : "");
  t->operation = inlet_strdup(operation ? operation : "WRITE");
  t->read_version = read_version;
  t->max_attempts = 1000;
  if (!t->root_abs || !t->operation) {
    delta_txn_free(t);
    return inlet_fail(err, INLET_ENOMEM, "out of memory starting a transaction");
  }
  *out = t;
  return 0;
}

void delta_txn_free(delta_txn *t) {
  if (!t) return;
  for (size_t i = 0; i < t->n_actions; i++)
    delta_action_reset(&t->actions[i]);
  inlet_free(t->actions);
  inlet_free(t->root_abs);
  inlet_free(t->operation);
  inlet_free(t->params);
  inlet_free(t->extra_metrics);
  json_decref(t->tags);
  inlet_free(t->commit_info);
  inlet_free(t->rt_fresh);
  inlet_free(t);
}

int delta_txn_set_extra_metrics(delta_txn *t, const char *metrics_json, inlet_error *err) {
  json_t *x = json_loads(metrics_json, 0, NULL);
  bool ok = x && json_is_object(x);
  json_decref(x);
  if (!ok) return inlet_fail(err, INLET_EINVAL, "extra operationMetrics must be a JSON object");
  inlet_free(t->extra_metrics);
  t->extra_metrics = inlet_strdup(metrics_json);
  if (!t->extra_metrics) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  return 0;
}

int delta_txn_set_tag(delta_txn *t, const char *key, const char *value, inlet_error *err) {
  if (!t->tags) t->tags = json_object();
  if (!t->tags || json_object_set_new(t->tags, key, json_string(value)) != 0)
    return inlet_fail(err, INLET_ENOMEM, "out of memory setting commit tag %s", key);
  return 0;
}

void delta_txn_set_strict(delta_txn *t, bool strict) {
  t->strict = strict;
}

void delta_txn_set_table(delta_txn *t, const delta_metadata *m) {
  t->ict = delta_ict_enabled(m);
  const char *ao = delta_metadata_conf(m, "delta.appendOnly");
  t->append_only = ao && strcasecmp(ao, "true") == 0;
}
void delta_txn_set_max_attempts(delta_txn *t, int attempts) {
  t->max_attempts = attempts < 1 ? 1 : attempts;
}
void delta_txn_add_rows(delta_txn *t, int64_t rows) {
  t->rows += rows;
}
void delta_txn_set_base(delta_txn *t, const delta_snapshot *base) {
  t->base = base;
}
void delta_txn_set_base_state(delta_txn *t, delta_state *s) {
  t->base_state = s;
}

int delta_txn_set_params(delta_txn *t, const char *params_json, inlet_error *err) {
  inlet_free(t->params);
  t->params = params_json ? inlet_strdup(params_json) : NULL;
  if (params_json && !t->params) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  return 0;
}

int delta_txn_add_text_param(delta_txn *t, const char *name, const char *text, inlet_error *err) {
  json_t *params = t->params ? json_loads(t->params, 0, NULL) : json_object();
  char *s = NULL;
  if (json_is_object(params) && json_object_set_new(params, name, json_string(text)) == 0)
    s = json_dumps(params, JSON_COMPACT | JSON_PRESERVE_ORDER);
  json_decref(params);
  FAIL_IF(!s, err, INLET_ENOMEM, "out of memory writing operationParameters");
  int rc = delta_txn_set_params(t, s, err);
  free(s);
  return rc;
}

int delta_txn_set_json_param(delta_txn *t, const char *name, json_t *value, inlet_error *err) {
  char *text = value ? json_dumps(value, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
  json_decref(value);
  json_t *params = json_object();
  char *s = NULL;
  if (text && params && json_object_set_new(params, name, json_string(text)) == 0)
    s = json_dumps(params, JSON_COMPACT);
  free(text);
  json_decref(params);
  FAIL_IF(!s, err, INLET_ENOMEM, "out of memory writing operationParameters");
  int rc = delta_txn_set_params(t, s, err);
  free(s);
  return rc;
}

static char *sdup(const char *s, bool *oom) {
  if (!s) return NULL;
  char *d = inlet_strdup(s);
  if (!d) *oom = true;
  return d;
}

int delta_txn_add_action(delta_txn *t, const delta_action *a, inlet_error *err) {
  if (t->n_actions == t->cap_actions) {
    size_t nc = t->cap_actions ? t->cap_actions * 2 : 16;
    delta_action *na = inlet_realloc(t->actions, nc * sizeof *na);
    if (!na) return inlet_fail(err, INLET_ENOMEM, "out of memory adding an action");
    t->actions = na;
    t->cap_actions = nc;
  }
  delta_action *d = &t->actions[t->n_actions];
  memset(d, 0, sizeof *d);
  d->kind = a->kind;
  int rc = 0;
  bool oom = false;
  switch (a->kind) {
  case DELTA_ACTION_PROTOCOL: rc = delta_protocol_copy(&d->u.protocol, &a->u.protocol, err); break;
  case DELTA_ACTION_METADATA: rc = delta_metadata_copy(&d->u.metadata, &a->u.metadata, err); break;
  case DELTA_ACTION_ADD:
  case DELTA_ACTION_CDC: rc = delta_add_copy(&d->u.add, &a->u.add, err); break;
  case DELTA_ACTION_REMOVE: rc = delta_remove_copy(&d->u.remove, &a->u.remove, err); break;
  case DELTA_ACTION_TXN:
    d->u.txn = a->u.txn;
    d->u.txn.app_id = sdup(a->u.txn.app_id, &oom);
    break;
  case DELTA_ACTION_DOMAIN:
    d->u.domain.domain = sdup(a->u.domain.domain, &oom);
    d->u.domain.configuration = sdup(a->u.domain.configuration, &oom);
    d->u.domain.removed = a->u.domain.removed;
    break;
  case DELTA_ACTION_COMMIT_INFO:
  case DELTA_ACTION_NONE:
    return inlet_fail(err, INLET_EINVAL, "commitInfo is written by the transaction itself");
  }
  if (oom) {
    delta_action_reset(d);
    return inlet_fail(err, INLET_ENOMEM, "out of memory adding an action");
  }
  if (rc < 0) return rc;
  t->n_actions++;
  return 0;
}

const char *delta_metric_text(char buf[24], int64_t v) {
  snprintf(buf, 24, "%lld", (long long)v);
  return buf;
}

int delta_txn_remove_file(delta_txn *t, const delta_add *a, bool data_change, int64_t now_ms,
                          inlet_error *err) {
  delta_action ra;
  memset(&ra, 0, sizeof ra);
  ra.kind = DELTA_ACTION_REMOVE;
  delta_remove *r = &ra.u.remove; /* borrowed fields: add_action copies */
  r->path = a->path;
  r->deletion_timestamp = now_ms;
  r->data_change = data_change;
  r->extended_file_metadata = true;
  r->n_partition_values = a->n_partition_values;
  r->partition_values = a->partition_values;
  r->size = a->size;
  r->stats = a->stats;
  r->tags = a->tags;
  /* The protocol: a remove names the deletion vector it retires. */
  r->dv_id = a->dv_id;
  r->dv_json = a->dv_json;
  r->has_base_row_id = a->has_base_row_id;
  r->base_row_id = a->base_row_id;
  r->has_default_row_commit_version = a->has_default_row_commit_version;
  r->default_row_commit_version = a->default_row_commit_version;
  return delta_txn_add_action(t, &ra, err);
}

/* ---- commit body ------------------------------------------------------------ */

static bool is_blind_append(const delta_txn *t) {
  for (size_t i = 0; i < t->n_actions; i++) {
    delta_action_kind k = t->actions[i].kind;
    if (k == DELTA_ACTION_REMOVE || k == DELTA_ACTION_METADATA || k == DELTA_ACTION_PROTOCOL)
      return false;
  }
  return true;
}

static int commit_info_json(const delta_txn *t, int64_t ict, char **out, inlet_error *err) {
  int64_t files = 0, removed = 0, bytes = 0;
  for (size_t i = 0; i < t->n_actions; i++) {
    if (t->actions[i].kind == DELTA_ACTION_ADD) {
      files++;
      bytes = inlet_add_sat_i64(bytes, t->actions[i].u.add.size);
    } else if (t->actions[i].kind == DELTA_ACTION_REMOVE) {
      removed++;
    }
  }
  char txn_id[37];
  delta_uuid4(txn_id);
  json_t *ci = json_object();
  if (ict >= 0) json_object_set_new(ci, "inCommitTimestamp", json_integer(ict));
  json_object_set_new(ci, "timestamp", json_integer(delta_now_ms()));
  json_object_set_new(ci, "operation", json_string(t->operation));
  json_t *params = t->params ? json_loads(t->params, 0, NULL) : NULL;
  json_object_set_new(ci, "operationParameters", params ? params : json_object());
  if (t->read_version >= 0) json_object_set_new(ci, "readVersion", json_integer(t->read_version));
  json_object_set_new(ci, "isolationLevel", json_string("Serializable"));
  json_object_set_new(ci, "isBlindAppend", json_boolean(is_blind_append(t)));
  /* Spark writes metric values as strings; readers of history expect that. */
  json_t *m = json_object();
  char buf[32];
  snprintf(buf, sizeof buf, "%lld", (long long)files);
  json_object_set_new(m, "numFiles", json_string(buf));
  snprintf(buf, sizeof buf, "%lld", (long long)t->rows);
  json_object_set_new(m, "numOutputRows", json_string(buf));
  snprintf(buf, sizeof buf, "%lld", (long long)bytes);
  json_object_set_new(m, "numOutputBytes", json_string(buf));
  if (removed) {
    snprintf(buf, sizeof buf, "%lld", (long long)removed);
    json_object_set_new(m, "numRemovedFiles", json_string(buf));
  }
  if (t->extra_metrics) {
    json_t *x = json_loads(t->extra_metrics, 0, NULL);
    if (x) json_object_update(m, x);
    json_decref(x);
  }
  json_object_set_new(ci, "operationMetrics", m);
  if (t->tags) json_object_set(ci, "tags", t->tags);
  json_object_set_new(ci, "engineInfo", json_string(DELTA_ENGINE_INFO));
  json_object_set_new(ci, "txnId", json_string(txn_id));
  char *s = json_dumps(ci, JSON_COMPACT | JSON_PRESERVE_ORDER);
  json_decref(ci);
  if (!s) return inlet_fail(err, INLET_ENOMEM, "out of memory writing commitInfo");
  *out = inlet_strdup(s);
  free(s);
  return *out ? 0 : inlet_fail(err, INLET_ENOMEM, "out of memory writing commitInfo");
}

/* The commit timestamp of version @p v: its inCommitTimestamp when its
 * commitInfo (the first action) has one, else the file's modification time. */
static int commit_ts(const delta_txn *t, int64_t v, int64_t *out, inlet_error *err) {
  int64_t ict;
  TRY(delta_commit_ict(t->st, t->root_abs, v, &ict, err));
  if (ict >= 0) {
    *out = ict;
    return 0;
  }
  char name[64];
  delta_commit_name(name, v);
  inlet_dirent de;
  memset(&de, 0, sizeof de);
  TRY(t->st->ops->stat(t->st, name, &de, err));
  inlet_free(de.name);
  *out = de.mtime_ms;
  return 0;
}

/* PROTOCOL.md "In-Commit Timestamps": the later of the time of the attempt
 * and one millisecond after the previous commit's timestamp (its
 * inCommitTimestamp, or for the commit that turns the feature on, the
 * previous commit file's modification time). */
static int in_commit_timestamp(const delta_txn *t, int64_t v, int64_t *out, inlet_error *err) {
  int64_t now = delta_now_ms(), prev = -1;
  if (v > 0) TRY(commit_ts(t, v - 1, &prev, err));
  *out = prev >= now ? prev + 1 : now;
  return 0;
}

/* Protocol and metaData first, then the rest in insertion order: the order
 * of the commit file after its commitInfo. */
static int for_each_in_file_order(const delta_txn *t, delta_action_cb cb, void *ctx,
                                  inlet_error *err) {
  static const delta_action_kind order[] = {
      DELTA_ACTION_PROTOCOL, DELTA_ACTION_METADATA, DELTA_ACTION_TXN, DELTA_ACTION_DOMAIN,
      DELTA_ACTION_REMOVE,   DELTA_ACTION_ADD,      DELTA_ACTION_CDC};
  for (size_t k = 0; k < sizeof order / sizeof order[0]; k++)
    for (size_t i = 0; i < t->n_actions; i++)
      if (t->actions[i].kind == order[k]) TRY(cb(ctx, &t->actions[i], err));
  return 0;
}

static int write_action(void *buf, const delta_action *a, inlet_error *err) {
  return delta_action_write(buf, a, err);
}

/* The add's row count (stats numRecords), -1 when unknown. */
static int64_t add_rows(const delta_add *a) {
  json_t *o = a->stats ? json_loads(a->stats, 0, NULL) : NULL;
  json_t *n = json_object_get(o, "numRecords");
  int64_t r =
      json_is_integer(n) && json_integer_value(n) >= 0 ? (int64_t)json_integer_value(n) : -1;
  json_decref(o);
  return r;
}

/* Raises t->rt_hwm to the delta.rowTracking mark of a commit's action. */
static int rt_mark_cb(void *ctx, const delta_action *a, inlet_error *err) {
  delta_txn *t = ctx;
  if (a->kind != DELTA_ACTION_DOMAIN || a->u.domain.removed ||
      strcmp(a->u.domain.domain, DELTA_RT_DOMAIN) != 0)
    return 0;
  int64_t m = -1;
  TRY(delta_rt_parse_hwm(a->u.domain.configuration, &m, err));
  if (m > t->rt_hwm) t->rt_hwm = m;
  return 0;
}

/* Which actions need row tracking fields, decided once before the first
 * attempt: adds without them (new files, and recommitted ones whose last
 * add had none); a recommitted add keeps what it carries. */
static int rt_prepare(delta_txn *t, inlet_error *err) {
  const delta_protocol *p = t->base ? &t->base->protocol : NULL;
  const delta_metadata *m = t->base ? &t->base->metadata : NULL;
  for (size_t i = 0; i < t->n_actions; i++) {
    if (t->actions[i].kind == DELTA_ACTION_PROTOCOL) p = &t->actions[i].u.protocol;
    if (t->actions[i].kind == DELTA_ACTION_METADATA) m = &t->actions[i].u.metadata;
  }
  t->rt = p && m && delta_rt_assigns(p, m);
  t->rt_hwm = -1;
  t->rt_domain = -1;
  if (!t->rt) return 0;
  if (t->base && t->read_version >= 0) {
    TRY(delta_rt_high_water_mark(t->base->domains, t->base->n_domains, &t->rt_hwm, err));
    /* A writer may read its snapshot before commits it knows of (a
     * compaction's earlier bins, rebased): their marks count too. */
    for (int64_t v = t->base->version + 1; v <= t->read_version; v++)
      TRY(delta_log_read_commit(t->st, t->root_abs, v, rt_mark_cb, t, err));
  }
  /* A caller's own delta.rowTracking domain would fight the one kept here. */
  for (size_t i = 0; i < t->n_actions; i++)
    FAIL_IF(t->actions[i].kind == DELTA_ACTION_DOMAIN &&
                strcmp(t->actions[i].u.domain.domain, DELTA_RT_DOMAIN) == 0,
            err, INLET_EINTERNAL, "a commit may not carry its own %s domainMetadata",
            DELTA_RT_DOMAIN);
  t->rt_fresh = inlet_calloc(t->n_actions + 1, 1);
  FAIL_IF(!t->rt_fresh, err, INLET_ENOMEM, "out of memory");
  for (size_t i = 0; i < t->n_actions; i++) {
    const delta_add *a = &t->actions[i].u.add;
    if (t->actions[i].kind != DELTA_ACTION_ADD) continue;
    t->rt_fresh[i] = (uint8_t)((a->has_base_row_id ? 0 : RT_ID) |
                               (a->has_default_row_commit_version ? 0 : RT_VER));
  }
  return 0;
}

/* Assigns this attempt's row ids (consecutive from the high-water mark, in
 * action order) and row commit versions (@p v), and sets the commit's
 * delta.rowTracking domain to the new high-water mark. */
static int rt_assign(delta_txn *t, int64_t v, inlet_error *err) {
  if (!t->rt) return 0;
  int64_t next = t->rt_hwm + 1;
  for (size_t i = 0; i < t->n_actions; i++) {
    if (!t->rt_fresh[i]) continue;
    delta_add *a = &t->actions[i].u.add;
    if (t->rt_fresh[i] & RT_ID) {
      int64_t n = add_rows(a);
      FAIL_IF(n < 0, err, INLET_EUNSUPPORTED,
              "row tracking: cannot assign row ids to \"%s\": its add has no numRecords in stats",
              a->path);
      a->has_base_row_id = true;
      a->base_row_id = next;
      FAIL_IF(inlet_add_overflow_i64(next, n, &next), err, INLET_ELIMIT,
              "row tracking: row ids past 2^63");
    }
    if (t->rt_fresh[i] & RT_VER) {
      a->has_default_row_commit_version = true;
      a->default_row_commit_version = v;
    }
  }
  if (next - 1 <= t->rt_hwm) return 0; /* no new ids: the mark stays */
  char conf[64];
  snprintf(conf, sizeof conf, "{\"rowIdHighWaterMark\":%lld}", (long long)(next - 1));
  if (t->rt_domain < 0) {
    delta_action d;
    memset(&d, 0, sizeof d);
    d.kind = DELTA_ACTION_DOMAIN;
    d.u.domain.domain = (char *)DELTA_RT_DOMAIN; /* borrowed: add_action copies */
    d.u.domain.configuration = conf;
    TRY(delta_txn_add_action(t, &d, err));
    t->rt_domain = (int64_t)t->n_actions - 1;
    return 0;
  }
  char *c = inlet_strdup(conf);
  FAIL_IF(!c, err, INLET_ENOMEM, "out of memory");
  inlet_free(t->actions[t->rt_domain].u.domain.configuration);
  t->actions[t->rt_domain].u.domain.configuration = c;
  return 0;
}

static int build_body(delta_txn *t, int64_t v, inlet_buf *b, inlet_error *err) {
  TRY(rt_assign(t, v, err));
  delta_action ci;
  memset(&ci, 0, sizeof ci);
  ci.kind = DELTA_ACTION_COMMIT_INFO;
  int64_t ict = -1;
  if (t->ict) TRY(in_commit_timestamp(t, v, &ict, err));
  inlet_free(t->commit_info);
  t->commit_info = NULL;
  TRY(commit_info_json(t, ict, &t->commit_info, err));
  ci.u.commit_info = t->commit_info; /* borrowed */
  TRY(delta_action_write(b, &ci, err));
  return for_each_in_file_order(t, write_action, b, err);
}

int delta_txn_replay(const delta_txn *t, delta_action_cb cb, void *ctx, inlet_error *err) {
  FAIL_IF(!t->commit_info, err, INLET_EINVAL, "transaction not committed");
  delta_action ci;
  memset(&ci, 0, sizeof ci);
  ci.kind = DELTA_ACTION_COMMIT_INFO;
  ci.u.commit_info = t->commit_info; /* borrowed */
  TRY(cb(ctx, &ci, err));
  return for_each_in_file_order(t, cb, ctx, err);
}

static int write_tmp(delta_txn *t, const inlet_buf *body, char *tmp, size_t cap, int64_t version,
                     inlet_error *err) {
  snprintf(tmp, cap, "_delta_log/.tmp-%020lld-%016llx.json", (long long)version,
           (unsigned long long)delta_random_u64());
  inlet_wfile *f = NULL;
  TRY(t->st->ops->create(t->st, tmp, &f, err));
  int rc = inlet_wfile_append(f, body->data, body->len, err);
  if (rc < 0) {
    inlet_error ignore = INLET_ERROR_INIT;
    inlet_wfile_close(f, false, &ignore);
    t->st->ops->remove(t->st, tmp, &ignore);
    return rc;
  }
  rc = inlet_wfile_close(f, true, err);
  if (rc < 0) {
    inlet_error ignore = INLET_ERROR_INIT;
    t->st->ops->remove(t->st, tmp, &ignore);
  }
  return rc;
}

/* ---- conflict detection -------------------------------------------------------- */

typedef struct conflict_ctx {
  const delta_txn *t;
  int64_t version;
  bool we_rewrite; /* some remove of ours has dataChange=true */
  int64_t rt_hwm;  /* the winner's rowIdHighWaterMark, -1 when it set none */
} conflict_ctx;

static int conflict_cb(void *ctx, const delta_action *a, inlet_error *err) {
  conflict_ctx *c = ctx;
  const delta_txn *t = c->t;
  long long v = (long long)c->version;
  switch (a->kind) {
  case DELTA_ACTION_METADATA:
    return inlet_fail(err, INLET_ECONFLICT,
                      "conflict (metadata changed): version %lld, committed "
                      "concurrently, changed the table metadata",
                      v);
  case DELTA_ACTION_PROTOCOL:
    return inlet_fail(err, INLET_ECONFLICT,
                      "conflict (protocol changed): version %lld, committed "
                      "concurrently, changed the table protocol",
                      v);
  case DELTA_ACTION_TXN:
    for (size_t i = 0; i < t->n_actions; i++)
      if (t->actions[i].kind == DELTA_ACTION_TXN &&
          strcmp(t->actions[i].u.txn.app_id, a->u.txn.app_id) == 0)
        return inlet_fail(err, INLET_ECONFLICT,
                          "conflict (concurrent transaction): version %lld "
                          "also committed a txn for appId \"%s\"",
                          v, a->u.txn.app_id);
    return 0;
  case DELTA_ACTION_REMOVE:
    for (size_t i = 0; i < t->n_actions; i++)
      if (t->actions[i].kind == DELTA_ACTION_REMOVE &&
          strcmp(t->actions[i].u.remove.path, a->u.remove.path) == 0)
        return inlet_fail(err, INLET_ECONFLICT,
                          "conflict (concurrent delete): file \"%s\" was "
                          "already removed by version %lld",
                          a->u.remove.path, v);
    return 0;
  case DELTA_ACTION_DOMAIN:
    /* Row ids are assigned per attempt: the winner's high-water mark is
     * where the next attempt's start. */
    if (t->rt && !a->u.domain.removed && strcmp(a->u.domain.domain, DELTA_RT_DOMAIN) == 0) {
      if (delta_rt_parse_hwm(a->u.domain.configuration, &c->rt_hwm, err) < 0)
        return inlet_error_prefix(err, "version %lld", v);
    }
    return 0;
  case DELTA_ACTION_ADD:
    if (c->we_rewrite && a->u.add.data_change)
      return inlet_fail(err, INLET_ECONFLICT,
                        "conflict (concurrent append): version %lld added "
                        "data this transaction's rewrite did not read (file \"%s\")",
                        v, a->u.add.path);
    return 0;
  default: return 0;
  }
}

static int check_winner(delta_txn *t, int64_t version, inlet_error *err) {
  conflict_ctx c = {t, version, false, -1};
  for (size_t i = 0; i < t->n_actions; i++)
    if (t->actions[i].kind == DELTA_ACTION_REMOVE && t->actions[i].u.remove.data_change)
      c.we_rewrite = true;
  TRY(delta_log_read_commit(t->st, t->root_abs, version, conflict_cb, &c, err));
  if (c.rt_hwm > t->rt_hwm) t->rt_hwm = c.rt_hwm;
  return 0;
}

static void backoff(int attempt) {
  int64_t cap_us = 64000;
  int64_t base = 500LL << (attempt < 7 ? attempt : 7);
  if (base > cap_us) base = cap_us;
  int64_t us = base / 2 + (int64_t)(delta_random_u64() % (uint64_t)(base / 2 + 1));
  struct timespec ts = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000};
  nanosleep(&ts, NULL);
}

/* After put_if_absent failed with an I/O error: did the commit land anyway
 * (the link was made, a later step such as the directory fsync failed)?
 * 1 when @p name holds exactly @p body, 0 when it does not exist or holds
 * something else, -1 when that cannot be told. */
static int commit_landed(delta_txn *t, const char *name, const inlet_buf *body) {
  inlet_error ignore = INLET_ERROR_INIT;
  inlet_rfile *f = NULL;
  int rc = t->st->ops->open_read(t->st, name, &f, &ignore);
  if (rc == INLET_ENOTFOUND) return 0;
  if (rc < 0) return -1;
  int landed = 0;
  if (f->size == (int64_t)body->len) {
    uint8_t *buf = inlet_malloc(body->len ? body->len : 1);
    if (!buf)
      landed = -1;
    else if (inlet_rfile_read_at(f, 0, buf, body->len, &ignore) < 0)
      landed = -1;
    else
      landed = body->len == 0 || memcmp(buf, body->data, body->len) == 0;
    inlet_free(buf);
  }
  inlet_rfile_close(f);
  return landed;
}

/* Before the first commit through a storage handle on an object store:
 * does the store enforce If-None-Match: *? One probe per handle (the
 * answer is kept in st->flags). A store that ignores it would let two
 * writers both "win" a version, so commits there are refused unless the
 * user accepted single-writer mode. */
static int check_conditional_creates(inlet_storage *st, inlet_error *err) {
  if (!(st->flags & INLET_STORAGE_OBJECT_STORE) || (st->flags & INLET_STORAGE_CONDITIONAL_VERIFIED))
    return 0;
  if (!(st->flags & INLET_STORAGE_CONDITIONAL_IGNORED)) {
    inlet_error e = INLET_ERROR_INIT;
    int rc = inlet_storage_probe_conditional(st, "_delta_log", &e);
    if (rc == 0) return 0;
    if (rc != INLET_EUNSUPPORTED) {
      if (err) *err = e;
      return inlet_error_prefix(err, "checking that %s enforces conditional creates", st->root);
    }
    st->flags |= INLET_STORAGE_CONDITIONAL_IGNORED;
  }
  if (st->flags & INLET_STORAGE_SINGLE_WRITER) return 0;
  return inlet_fail(err, INLET_EUNSUPPORTED,
                    "refusing to commit to %s: the store ignores If-None-Match: * on PUT (a "
                    "second conditional create of the same key succeeded), so two writers "
                    "could both commit the same version and one commit would be lost; if "
                    "exactly one process writes this table at a time, pass --single-writer "
                    "(library: inlet_table_open_options.single_writer)",
                    st->root);
}

int delta_txn_commit(delta_txn *t, int64_t *version, inlet_error *err) {
  inlet_buf body = INLET_BUF_INIT;
  char tmp[128] = "";
  bool have_tmp = false;
  int rc = 0;
  /* A new table's own metaData decides, else what delta_txn_set_table saw. */
  for (size_t i = 0; i < t->n_actions; i++)
    if (t->actions[i].kind == DELTA_ACTION_METADATA)
      delta_txn_set_table(t, &t->actions[i].u.metadata);
  for (size_t i = 0; t->append_only && i < t->n_actions; i++)
    FAIL_GOTO(t->actions[i].kind == DELTA_ACTION_REMOVE && t->actions[i].u.remove.data_change, err,
              INLET_EINVAL,
              "table is append-only (delta.appendOnly=true): this commit would remove data "
              "(file \"%s\" with dataChange=true)",
              t->actions[i].u.remove.path);
  TRY_GOTO(rt_prepare(t, err));
  /* The body depends on the version through inCommitTimestamp and the row
   * tracking fields: those tables build it per attempt. */
  bool per_version = t->ict || t->rt;
  int64_t v = t->read_version + 1;
  FAIL_GOTO(v > DELTA_MAX_VERSION, err, INLET_ELIMIT, "table version limit reached");
  TRY_GOTO(check_conditional_creates(t->st, err));
  /* Object stores publish the body itself with one conditional PUT: no
   * temporary object (no rename exists there). */
  bool direct = (t->st->flags & INLET_STORAGE_OBJECT_STORE) != 0;
  for (int attempt = 0;; attempt++) {
    if (direct) {
      if (attempt == 0 || per_version) {
        inlet_buf_clear(&body);
        rc = build_body(t, v, &body, err);
        if (rc < 0) goto done;
      }
    } else if (!have_tmp) {
      if (attempt == 0 || per_version) {
        inlet_buf_clear(&body);
        rc = build_body(t, v, &body, err);
        if (rc < 0) goto done;
      }
      rc = write_tmp(t, &body, tmp, sizeof tmp, v, err);
      if (rc < 0) goto done;
      have_tmp = true;
    }
    char final_name[64];
    delta_commit_name(final_name, v);
    if (direct)
      rc = t->st->ops->put_if_absent_bytes(t->st, final_name, body.data, body.len, err);
    else
      rc = t->st->ops->put_if_absent(t->st, tmp, final_name, err);
    if (rc == 0) {
      have_tmp = false;
      *version = v;
      /* The version checksum: a hint (optional in Delta), written only now
       * that the commit is published; it cannot fail the commit. Not on
       * object stores: there it costs a PUT per commit (and often a GET of
       * the previous one), and a steady-state commit is its data and one
       * conditional PUT; readers do without it. */
      if (!direct)
        delta_crc_after_commit(t->st, t->base, t->base_state, v, t->actions, t->n_actions,
                               (const char *)body.data, body.len);
      break;
    }
    if (rc != INLET_EEXISTS) {
      /* An I/O error may come after the entry was published (e.g. from the
       * directory fsync): then the commit stands, and reporting a failure
       * would make the caller delete the data files it references. */
      int landed = commit_landed(t, final_name, &body);
      if (landed == 1) {
        rc = 0;
        inlet_error_clear(err);
        *version = v;
        break; /* the temp file, if still there, is removed below */
      }
      t->maybe_published = landed < 0;
      goto done;
    }
    if (t->read_version < 0) {
      rc = inlet_fail(err, INLET_EEXISTS, "table already exists at %s (version 0 is committed)",
                      t->st->root);
      goto done;
    }
    if (t->strict) {
      rc = inlet_fail(err, INLET_ECONFLICT,
                      "conflict (table moved): version %lld was committed "
                      "concurrently; the table is no longer at version %lld",
                      (long long)v, (long long)t->read_version);
      goto done;
    }
    rc = check_winner(t, v, err);
    if (rc < 0) goto done;
    if (attempt + 1 >= t->max_attempts) {
      /* A conflict for callers: concurrent commits won every attempt. */
      rc = inlet_fail(err, INLET_ECONFLICT,
                      "gave up committing after %d attempts (table busy; last "
                      "version tried %lld)",
                      attempt + 1, (long long)v);
      goto done;
    }
    v++;
    /* put_if_absent may consume the temp file on failure in some backends. */
    inlet_dirent de;
    memset(&de, 0, sizeof de);
    inlet_error ignore = INLET_ERROR_INIT;
    if (!have_tmp || t->st->ops->stat(t->st, tmp, &de, &ignore) < 0)
      have_tmp = false;
    else
      inlet_free(de.name);
    if (have_tmp && per_version) {
      /* The next version follows the winner's timestamp and row ids: a
       * new body. */
      t->st->ops->remove(t->st, tmp, &ignore);
      have_tmp = false;
    }
    backoff(attempt);
  }
done:
  if (have_tmp) {
    inlet_error ignore = INLET_ERROR_INIT;
    t->st->ops->remove(t->st, tmp, &ignore);
  }
  inlet_buf_reset(&body);
  return rc;
}
