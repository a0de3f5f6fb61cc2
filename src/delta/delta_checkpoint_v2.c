/*
 * Writing UUID-named v2 checkpoints, with their file actions inline or in
 * sidecar files (reading: delta_checkpoint.c; the Parquet action writer:
 * delta_checkpoint_write.c).
 *
 * Spec: PROTOCOL.md "V2 Checkpoint Table Feature" (a table with the
 * v2Checkpoint feature and delta.checkpointPolicy=v2 gets v2 checkpoints;
 * with policy classic, classic checkpoints stay valid), "V2 Spec" (a
 * checkpoint holds one checkpointMetadata action, the protocol, metaData,
 * txn and domainMetadata actions, and its add/remove actions either itself
 * or in sidecar files it names with sidecar actions), "UUID-named
 * checkpoint" (`n.checkpoint.<uuid>.parquet`), "Sidecar Files" (Parquet
 * files of file actions in `_delta_log/_sidecars/`, named by a UUID),
 * "Last Checkpoint File Schema" (v2Checkpoint: path, sizeInBytes,
 * modificationTime, nonFileActions, sidecarFiles).
 *
 * Inline or sidecars: a table's checkpoint holds its file actions (live
 * files, then unexpired tombstones) itself while they number at most the
 * table property inlet.checkpoint.sidecarActions (default 10,000);
 * beyond that they go to sidecars of at most that many actions each, so a
 * large table's checkpoint is split across several files that engines may
 * read in parallel, and the top-level file stays small.
 *
 * Top-level format: Parquet unless the table property
 * inlet.checkpoint.topLevelFileFormat is "json" (Delta Spark chooses with
 * the session setting spark.databricks.delta.checkpointV2.topLevelFileFormat,
 * JSON by default; inlet keeps Parquet as its default). A JSON checkpoint
 * holds one action per line, as a commit does; sidecars are Parquet either
 * way.
 *
 * Order and durability: every sidecar is written under its final UUID name
 * and synced (nothing references it yet, and log cleanup keeps
 * unreferenced sidecars for a day, so a half-written one is harmless), the
 * `_sidecars` directory is synced, then the checkpoint is written to a
 * synced temporary and published with put-if-absent, and only then is
 * `_last_checkpoint` replaced. A failure before the checkpoint is
 * published removes the sidecars this call wrote.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "delta/delta_checkpoint_int.h"
#include "delta/delta_features.h"
#include "delta/delta_replay_par.h"
#include "delta/delta_table_int.h"
#include "util/util.h"

#define DEFAULT_SIDECAR_ACTIONS 10000

bool delta_checkpoint_policy_v2(const delta_snapshot *snap) {
  const char *v = delta_metadata_conf(&snap->metadata, "delta.checkpointPolicy");
  return v && strcasecmp(v, "v2") == 0 && delta_protocol_supports(&snap->protocol, "v2Checkpoint");
}

/* inlet.checkpoint.sidecarActions, or the default when absent or not a
 * positive integer. */
static int64_t sidecar_actions(const delta_snapshot *snap) {
  const char *v = delta_metadata_conf(&snap->metadata, "inlet.checkpoint.sidecarActions");
  if (!v || !*v) return DEFAULT_SIDECAR_ACTIONS;
  char *end = NULL;
  long long n = strtoll(v, &end, 10);
  return *end || n <= 0 ? DEFAULT_SIDECAR_ACTIONS : (int64_t)n;
}

/* inlet.checkpoint.topLevelFileFormat: true for "json"; "parquet" or absent
 * false; any other value INLET_EINVAL (a typo must not silently pick one). */
static int top_level_json(const delta_snapshot *snap, bool *json, inlet_error *err) {
  const char *v = delta_metadata_conf(&snap->metadata, "inlet.checkpoint.topLevelFileFormat");
  *json = v && strcasecmp(v, "json") == 0;
  FAIL_IF(v && !*json && strcasecmp(v, "parquet") != 0, err, INLET_EINVAL,
          "table property inlet.checkpoint.topLevelFileFormat is \"%s\" (json or parquet)", v);
  return 0;
}

typedef struct sidecar_out {
  char name[64]; /* "<uuid>.parquet" */
  int64_t size, mtime, actions;
  bool written; /* complete: removed again when the checkpoint is not published */
} sidecar_out;

static int file_mtime(inlet_storage *st, const char *rel, int64_t *mtime, inlet_error *err) {
  inlet_dirent de;
  memset(&de, 0, sizeof de);
  int rc = st->ops->stat(st, rel, &de, err);
  inlet_free(de.name);
  *mtime = de.mtime_ms;
  return rc;
}

/* Writes sidecar @p sc with file actions [@p from, @p to) of @p snap. */
static int write_sidecar(inlet_storage *st, const delta_snapshot *snap, int64_t from, int64_t to,
                         sidecar_out *sc, util_pool *pool, inlet_error *err) {
  char uuid[37], rel[128];
  delta_uuid4(uuid);
  snprintf(sc->name, sizeof sc->name, "%s.parquet", uuid);
  snprintf(rel, sizeof rel, "_delta_log/_sidecars/%s", sc->name);
  cp_writer *w = NULL;
  int rc = delta_cpw_open(&w, st, rel, snap, DELTA_CPW_SIDECAR, to - from, NULL, NULL, pool, err);
  if (rc == 0) rc = delta_cpw_put_files(w, snap, from, to, err);
  if (rc == 0) rc = delta_cpw_close(w, &sc->size, &sc->actions, err);
  delta_cpw_free(w);
  if (rc == 0) sc->written = true;
  if (rc == 0) rc = file_mtime(st, rel, &sc->mtime, err);
  return rc;
}

/* One sidecar written by a pool task (write_sidecars). */
typedef struct sidecar_task {
  inlet_storage *st;
  inlet_storage_handles *hs; /* tasks on threads: a handle each from here, NULL: st */
  const delta_snapshot *snap;
  int64_t from, to;
  sidecar_out *out; /* borrowed slot of the caller's array */
  util_pool *pool;
} sidecar_task;

static int sidecar_task_run(void *arg, inlet_error *err) {
  sidecar_task *t = arg;
  inlet_storage *st = t->st;
  if (t->hs) TRY(inlet_storage_handles_take(t->hs, &st, err));
  int rc = write_sidecar(st, t->snap, t->from, t->to, t->out, t->pool, err);
  if (t->hs) inlet_storage_handles_give(t->hs, st);
  return rc;
}

/* Writes the @p n_sc sidecars of @p per file actions each into @p scs, up
 * to the pool's threads at once (each file's content depends only on its
 * range, so the bytes are those one thread writes), reporting progress
 * after each wave on the caller's thread. The error is the lowest-numbered
 * sidecar's, as one thread would stop at. */
static int write_sidecars(inlet_storage *st, const delta_snapshot *snap, int64_t n_file,
                          int64_t per, sidecar_out *scs, int64_t n_sc, util_pool *pool,
                          inlet_progress_fn progress, void *progress_ctx, inlet_error *err) {
  int64_t wave = util_pool_threads(pool);
  /* An object-store handle is one thread's (storage.h "Threads"): each task
   * writes through a handle of the set, posix tasks all through st. */
  if (wave < 1 || !inlet_storage_threads_ok(st)) wave = 1;
  inlet_storage_handles *hs = NULL;
  if (wave > 1) TRY(inlet_storage_handles_new(&hs, st, err));
  sidecar_task *tasks = inlet_calloc((size_t)wave, sizeof *tasks);
  if (!tasks) {
    inlet_storage_handles_free(hs);
    return inlet_fail(err, INLET_ENOMEM, "out of memory writing checkpoint");
  }
  int rc = 0;
  for (int64_t i0 = 0; rc == 0 && i0 < n_sc; i0 += wave) {
    util_group g;
    util_group_init(&g, wave > 1 ? pool : NULL);
    int64_t k = 0;
    for (; k < wave && i0 + k < n_sc; k++) {
      int64_t i = i0 + k, from = i * per;
      tasks[k] = (sidecar_task){.st = st,
                                .hs = hs,
                                .snap = snap,
                                .from = from,
                                .to = from + per < n_file ? from + per : n_file,
                                .out = &scs[i],
                                .pool = pool};
      util_group_submit(&g, sidecar_task_run, &tasks[k]);
    }
    rc = util_group_wait(&g, err);
    for (int64_t j = 0; progress && rc == 0 && j < k; j++) {
      inlet_progress p = {"checkpoint", "writing sidecars", "actions", tasks[j].to, n_file};
      progress(progress_ctx, &p);
    }
  }
  inlet_free(tasks);
  inlet_storage_handles_free(hs);
  return rc;
}

static void remove_sidecars(inlet_storage *st, const sidecar_out *scs, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    if (!scs[i].written) continue;
    char rel[128];
    snprintf(rel, sizeof rel, "_delta_log/_sidecars/%s", scs[i].name);
    inlet_error ignore = INLET_ERROR_INIT;
    st->ops->remove(st, rel, &ignore);
  }
}

/* One action of @p a as a JSON object (its line in a commit), appended to
 * @p arr. */
static int push_action(json_t *arr, const delta_action *a, inlet_error *err) {
  inlet_buf b = INLET_BUF_INIT;
  int rc = delta_action_write(&b, a, err);
  json_t *o = rc == 0 ? json_loadb((const char *)b.data, b.len, 0, NULL) : NULL;
  inlet_buf_reset(&b);
  TRY(rc);
  if (!o || json_array_append_new(arr, o) < 0)
    return inlet_fail(err, INLET_ENOMEM, "out of memory writing _last_checkpoint");
  return 0;
}

/* The non-file actions of the checkpoint, as `_last_checkpoint` repeats
 * them so a reader may skip opening the checkpoint for them. */
static int non_file_actions(json_t *arr, const delta_snapshot *snap, inlet_error *err) {
  delta_action a;
  memset(&a, 0, sizeof a);
  a.kind = DELTA_ACTION_PROTOCOL;
  a.u.protocol = snap->protocol; /* borrowed: never reset */
  TRY(push_action(arr, &a, err));
  memset(&a, 0, sizeof a);
  a.kind = DELTA_ACTION_METADATA;
  a.u.metadata = snap->metadata;
  TRY(push_action(arr, &a, err));
  json_t *cm = json_pack("{s:{s:I}}", "checkpointMetadata", "version", (json_int_t)snap->version);
  if (!cm || json_array_append_new(arr, cm) < 0)
    return inlet_fail(err, INLET_ENOMEM, "out of memory writing _last_checkpoint");
  for (int64_t i = 0; i < snap->n_txns; i++) {
    const delta_txn_entry *t = &snap->txns[i];
    json_t *body = json_pack("{s:s,s:I}", "appId", t->app_id, "version", (json_int_t)t->version);
    if (body && t->last_updated >= 0)
      json_object_set_new(body, "lastUpdated", json_integer(t->last_updated));
    json_t *o = body ? json_pack("{s:o}", "txn", body) : NULL;
    if (!o || json_array_append_new(arr, o) < 0)
      return inlet_fail(err, INLET_ENOMEM, "out of memory writing _last_checkpoint");
  }
  for (int64_t i = 0; i < snap->n_domains; i++) {
    const delta_domain *d = &snap->domains[i];
    json_t *o = json_pack("{s:{s:s,s:s,s:b}}", "domainMetadata", "domain", d->domain,
                          "configuration", d->configuration, "removed", (int)d->removed);
    if (!o || json_array_append_new(arr, o) < 0)
      return inlet_fail(err, INLET_ENOMEM, "out of memory writing _last_checkpoint");
  }
  return 0;
}

/* `_last_checkpoint` for the v2 checkpoint @p name; never moved back to an
 * older version than it names. */
static int write_hint(inlet_storage *st, const delta_snapshot *snap, const char *name,
                      int64_t cp_bytes, int64_t cp_mtime, int64_t actions, const sidecar_out *scs,
                      int64_t n_sc, inlet_error *err) {
  if (delta_cpw_hint_version(st) > snap->version) return 0;
  int64_t total_bytes = cp_bytes;
  for (int64_t i = 0; i < n_sc; i++)
    total_bytes += scs[i].size;
  json_t *nfa = json_array(), *files = json_array();
  int rc = nfa && files ? non_file_actions(nfa, snap, err)
                        : inlet_fail(err, INLET_ENOMEM, "out of memory writing _last_checkpoint");
  for (int64_t i = 0; rc == 0 && i < n_sc; i++) {
    json_t *o = json_pack("{s:s,s:I,s:I}", "path", scs[i].name, "sizeInBytes",
                          (json_int_t)scs[i].size, "modificationTime", (json_int_t)scs[i].mtime);
    if (!o || json_array_append_new(files, o) < 0)
      rc = inlet_fail(err, INLET_ENOMEM, "out of memory writing _last_checkpoint");
  }
  json_t *hint = NULL;
  if (rc == 0) {
    json_t *v2 = json_pack("{s:s,s:I,s:I,s:O,s:O}", "path", name, "sizeInBytes",
                           (json_int_t)cp_bytes, "modificationTime", (json_int_t)cp_mtime,
                           "nonFileActions", nfa, "sidecarFiles", files);
    hint = v2 ? json_pack("{s:I,s:I,s:I,s:I,s:o}", "version", (json_int_t)snap->version, "size",
                          (json_int_t)actions, "sizeInBytes", (json_int_t)total_bytes,
                          "numOfAddFiles", (json_int_t)snap->n_files, "v2Checkpoint", v2)
              : NULL;
    if (!hint) rc = inlet_fail(err, INLET_ENOMEM, "out of memory writing _last_checkpoint");
  }
  char *txt = rc == 0 ? json_dumps(hint, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
  if (rc == 0 && !txt) rc = inlet_fail(err, INLET_ENOMEM, "out of memory writing _last_checkpoint");
  if (rc == 0) {
    size_t n = strlen(txt);
    txt[n] = '\n'; /* replaces the NUL: the length is passed */
    rc = st->ops->put_bytes(st, "_delta_log/_last_checkpoint", txt, n + 1, err);
  }
  free(txt);
  json_decref(hint);
  json_decref(nfa);
  json_decref(files);
  return rc;
}

/* The JSON top-level file: the non-file actions, then a sidecar action per
 * sidecar or, without sidecars, the live files and tombstones
 * (dataChange=false, as in a Parquet checkpoint), one per line, written to
 * @p rel and synced. *@p actions counts the lines. */
static int write_top_json(inlet_storage *st, const char *rel, const delta_snapshot *snap,
                          const sidecar_out *scs, int64_t n_sc, int64_t *bytes, int64_t *actions,
                          inlet_error *err) {
  inlet_buf b = INLET_BUF_INIT;
  json_t *nfa = json_array();
  int rc = nfa ? non_file_actions(nfa, snap, err)
               : inlet_fail(err, INLET_ENOMEM, "out of memory writing checkpoint");
  *actions = 0;
  for (size_t i = 0; rc == 0 && i < json_array_size(nfa); i++) {
    char *line = json_dumps(json_array_get(nfa, i), JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (!line) rc = inlet_fail(err, INLET_ENOMEM, "out of memory writing checkpoint");
    if (line) {
      inlet_buf_puts(&b, line);
      inlet_buf_push(&b, '\n');
    }
    free(line);
    (*actions)++;
  }
  for (int64_t i = 0; rc == 0 && i < n_sc; i++) {
    json_t *o = json_pack("{s:{s:s,s:I,s:I}}", "sidecar", "path", scs[i].name, "sizeInBytes",
                          (json_int_t)scs[i].size, "modificationTime", (json_int_t)scs[i].mtime);
    char *line = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(o);
    if (!line) rc = inlet_fail(err, INLET_ENOMEM, "out of memory writing checkpoint");
    if (line) {
      inlet_buf_puts(&b, line);
      inlet_buf_push(&b, '\n');
    }
    free(line);
    (*actions)++;
  }
  for (int64_t i = 0; rc == 0 && !n_sc && i < snap->n_files + snap->n_tombstones; i++) {
    delta_action a;
    memset(&a, 0, sizeof a);
    if (i < snap->n_files) {
      a.kind = DELTA_ACTION_ADD;
      a.u.add = snap->files[i].add; /* borrowed: only serialised */
      a.u.add.data_change = false;
    } else {
      a.kind = DELTA_ACTION_REMOVE;
      a.u.remove = snap->tombstones[i - snap->n_files];
      a.u.remove.data_change = false;
    }
    rc = delta_action_write(&b, &a, err);
    (*actions)++;
  }
  json_decref(nfa);
  if (rc == 0 && inlet_buf_status(&b))
    rc = inlet_fail(err, INLET_ENOMEM, "out of memory writing checkpoint");
  inlet_wfile *f = NULL;
  if (rc == 0) rc = st->ops->create(st, rel, &f, err);
  if (rc == 0) {
    rc = inlet_wfile_append(f, b.data, b.len, err);
    if (rc == 0) {
      rc = inlet_wfile_close(f, true, err);
    } else {
      inlet_error ignore = INLET_ERROR_INIT;
      inlet_wfile_close(f, false, &ignore);
    }
  }
  *bytes = (int64_t)b.len;
  inlet_buf_reset(&b);
  return rc;
}

int delta_checkpoint_write_v2(inlet_storage *st, const delta_snapshot *snap, util_pool *pool,
                              inlet_progress_fn progress, void *progress_ctx, inlet_error *err) {
  bool json = false;
  TRY(top_level_json(snap, &json, err));
  int64_t n_file = snap->n_files + snap->n_tombstones;
  int64_t per = sidecar_actions(snap);
  int64_t n_sc = n_file > per ? (n_file + per - 1) / per : 0;
  sidecar_out *scs = n_sc ? inlet_calloc((size_t)n_sc, sizeof *scs) : NULL;
  FAIL_IF(n_sc && !scs, err, INLET_ENOMEM, "out of memory writing checkpoint");
  int64_t sc_actions = 0;
  int rc = write_sidecars(st, snap, n_file, per, scs, n_sc, pool, progress, progress_ctx, err);
  for (int64_t i = 0; rc == 0 && i < n_sc; i++)
    sc_actions += scs[i].actions;
  if (rc == 0 && n_sc) rc = st->ops->sync_dir(st, "_delta_log/_sidecars", err);

  char uuid[37], name[96], tmp_rel[160], final_rel[160];
  delta_uuid4(uuid);
  snprintf(name, sizeof name, "%020lld.checkpoint.%s.%s", (long long)snap->version, uuid,
           json ? "json" : "parquet");
  snprintf(final_rel, sizeof final_rel, "_delta_log/%s", name);
  snprintf(tmp_rel, sizeof tmp_rel, "_delta_log/.tmp-%s", name);
  bool direct = (st->flags & INLET_STORAGE_OBJECT_STORE) != 0;
  cp_writer *w = NULL;
  int64_t cp_bytes = 0, cp_actions = 0, cp_mtime = 0;
  if (rc == 0 && json) {
    rc = write_top_json(st, direct ? final_rel : tmp_rel, snap, scs, n_sc, &cp_bytes, &cp_actions,
                        err);
  } else if (rc == 0) {
    rc = delta_cpw_open(&w, st, direct ? final_rel : tmp_rel, snap, DELTA_CPW_V2_TOP,
                        3 + snap->n_txns + snap->n_domains + (n_sc ? n_sc : n_file), progress,
                        progress_ctx, pool, err);
    if (rc == 0) rc = delta_cpw_put_nonfile(w, snap, err);
    for (int64_t i = 0; rc == 0 && i < n_sc; i++)
      rc = delta_cpw_put_sidecar(w, scs[i].name, scs[i].size, scs[i].mtime, err);
    if (rc == 0 && !n_sc) rc = delta_cpw_put_files(w, snap, 0, n_file, err);
    if (rc == 0) rc = delta_cpw_close(w, &cp_bytes, &cp_actions, err);
    delta_cpw_free(w);
  }
  if (rc == 0) {
    rc = delta_cpw_publish(st, tmp_rel, final_rel, err);
  } else if (!direct) {
    inlet_error ignore = INLET_ERROR_INIT;
    st->ops->remove(st, tmp_rel, &ignore);
  }
  if (rc == 0 && !direct) rc = st->ops->sync_dir(st, "_delta_log", err);
  if (rc == 0) rc = file_mtime(st, final_rel, &cp_mtime, err);
  if (rc < 0) {
    /* Unpublished: nothing references the sidecars. (A checkpoint that
     * was published but whose directory sync failed keeps them.) */
    inlet_error ignore = INLET_ERROR_INIT;
    inlet_dirent de;
    memset(&de, 0, sizeof de);
    bool published = st->ops->stat(st, final_rel, &de, &ignore) == 0;
    inlet_free(de.name);
    if (!published) remove_sidecars(st, scs, n_sc);
    inlet_free(scs);
    return rc;
  }
  /* _last_checkpoint is a hint: failing to update it loses nothing. */
  inlet_error ignore = INLET_ERROR_INIT;
  (void)write_hint(st, snap, name, cp_bytes, cp_mtime, cp_actions + sc_actions, scs, n_sc, &ignore);
  inlet_free(scs);
  return 0;
}
