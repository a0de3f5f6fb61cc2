/*
 * Row deletion (include/inlet/delete.h inlet_table_delete): DELETE with
 * deletion vectors or by copy-on-write.
 *
 * Spec: PROTOCOL.md "Deletion Vectors" (the descriptor; the remove of the
 * file's old add carries its old deletionVector), "Deletion Vector Format"
 * and "Deletion Vector File Storage Format" (delta_dv.c writes them),
 * "Writer Requirements for Deletion Vectors" (numRecords in the stats of a
 * file with a DV), "Add File and Remove File" (dataChange=true), "Commit
 * Provenance Information" (Spark's DELETE operationParameters and
 * operationMetrics).
 *
 * One attempt: the predicate (src/expr, the language of scan --where) is
 * parsed against the snapshot's schema. When it reads partition columns
 * only, files are kept or removed whole by their partition values. Else
 * files whose add.stats and partition values show that no row can match
 * are skipped unread (data skipping with the scan plan and outcome
 * analysis scans use: delta_scan_plan.c, src/expr/outcome.c), and each
 * other file is read once, projected to the predicate's columns, row group
 * by row group; the rows it makes TRUE that the file's DV does not already
 * delete form the new set (the old DV united with them). A file with no new
 * row is not touched; one whose rows are all deleted is removed whole;
 * otherwise, with deletion vectors enabled, its new DV goes into this
 * commit's one deletion_vector_<uuid>.bin (each at its offset), else the
 * file is read again and its surviving rows written to a new file
 * (copy-on-write). Memory: one row group and the bitmaps.
 *
 * Change data feed (delta.enableChangeDataFeed=true; PROTOCOL.md "Change
 * Data Files"): a reader takes the changes of a commit with cdc actions
 * from its _change_data files alone, and those of one without from its
 * adds and removes, which for a rewrite or a new deletion vector would
 * count kept rows as deleted and inserted again. So every touched file's
 * deleted rows (and only those) are written, with _change_type "delete",
 * to a _change_data/<partition dir>/part-*.parquet file named by a cdc
 * action carrying the file's partition values.
 *
 * Column mapping (PROTOCOL.md "Column Mapping"): the predicate names
 * logical columns; data files are read by field id, then physical name (as
 * scans read them, so renamed columns keep their values), partition values
 * by physical key, and rewritten and change data files are written in the
 * physical schema (field ids in id mode) with physical stats keys.
 *
 * Concurrency: before committing, the commits after the snapshot are read;
 * a remove of a file this delete touches or a metaData/protocol change is a
 * conflict, and so is one delta_txn_commit finds later (two commits never
 * both remove a file). On a conflict the attempt's files are deleted and the
 * delete starts over on the newest snapshot, up to max_attempts times.
 * Appends are no conflict: their files are not touched.
 */
#include <jansson.h>
#include <stdio.h>
#include <strings.h>

#include "batch/batch.h"
#include "delta/delta_dv.h"
#include "delta/delta_features.h"
#include "delta/delta_row_tracking.h"
#include "delta/delta_table.h"
#include "inlet/delete.h"
#include "maint/maint_int.h"
#include "parquet/pq_reader.h"
#include "util/buf.h"
#include "util/util.h"

#define DEFAULT_ATTEMPTS 3

enum { T_NONE = 0, T_REMOVE, T_DV, T_REWRITE };

/* What this attempt does to one live file. */
typedef struct touched {
  int64_t file;        /* index into the snapshot's files */
  int kind;            /* T_* */
  delta_dv *del;       /* owned: every deleted row (old DV and new matches) */
  int64_t rows;        /* physical rows of the file */
  int64_t old_del;     /* rows its old DV deleted */
  int64_t newly;       /* rows this delete deletes */
  char *dv_json;       /* owned: the new descriptor (T_DV) */
  char *dv_id;         /* owned */
  delta_data_file out; /* T_REWRITE: the surviving rows (zeroed when none) */
  delta_dv *newly_set; /* owned (change data feed): the rows this delete deletes */
  delta_data_file cdc; /* change data feed: those rows, _change_type delete */
} touched;

typedef struct deleter {
  inlet_table *table; /* borrowed */
  inlet_delete_options o;
  delta_snapshot snap; /* owned */
  bool have_snap;
  inlet_predicate *pred; /* owned */
  bool partition_only;
  bool use_dvs;
  bool cdf;     /* delta.enableChangeDataFeed: cdc files for the deleted rows */
  bool rt_cols; /* data_schema carries the materialized row tracking columns */
  /* borrowed from snap: the physical twin of its schema (column mapping),
   * or the schema itself */
  const inlet_schema *phys;
  /* owned: table schema minus partition columns, in physical names (and
   * field ids) on column-mapping tables: what data files hold */
  inlet_schema data_schema;
  inlet_schema cdc_schema; /* owned: data_schema + _change_type */
  delta_file_sink sink;
  delta_file_sink cdc_sink;
  pq_buf_stash *stash; /* owned: both sinks' chunk buffers, file to file */
  touched *t;          /* owned */
  int64_t n_t;
  char dv_z85[21];
  char *dv_path; /* owned: this attempt's DV file, once written */
  bool dv_written;
  int64_t files_read;    /* files whose rows were read to evaluate the predicate */
  int64_t files_skipped; /* files the log (stats, partition values) ruled out */
  int64_t bytes_skipped;
  int64_t seen_version;
  bool conflict;
  char conflict_why[512];
} deleter;

static bool is_partition_col(const delta_metadata *m, const char *name) {
  for (int32_t p = 0; p < m->n_partition_columns; p++)
    if (strcmp(m->partition_columns[p], name) == 0) return true;
  return false;
}

static void attempt_reset(deleter *d, bool remove_files) {
  inlet_storage *st = delta_table_storage(d->table);
  for (int64_t i = 0; i < d->n_t; i++) {
    touched *t = &d->t[i];
    delta_dv_free(t->del);
    inlet_free(t->dv_json);
    inlet_free(t->dv_id);
    delta_data_file_reset(&d->sink, &t->out, remove_files);
    delta_dv_free(t->newly_set);
    delta_data_file_reset(&d->cdc_sink, &t->cdc, remove_files);
  }
  inlet_free(d->t);
  d->t = NULL;
  d->n_t = 0;
  if (d->dv_written && remove_files) {
    inlet_error e = INLET_ERROR_INIT;
    (void)st->ops->remove(st, d->dv_path, &e);
  }
  inlet_free(d->dv_path);
  d->dv_path = NULL;
  d->dv_written = false;
  expr_free(d->pred);
  d->pred = NULL;
  inlet_schema_reset(&d->data_schema);
  inlet_schema_init(&d->data_schema);
  inlet_schema_reset(&d->cdc_schema);
  inlet_schema_init(&d->cdc_schema);
  if (d->have_snap) delta_snapshot_reset(&d->snap);
  d->have_snap = false;
  d->conflict = false;
  d->files_read = d->files_skipped = d->bytes_skipped = 0;
}

static int add_touched(deleter *d, int64_t file, touched **out, inlet_error *err) {
  touched *nt = inlet_realloc(d->t, (size_t)(d->n_t + 1) * sizeof *nt);
  if (!nt) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  d->t = nt;
  *out = &d->t[d->n_t++];
  memset(*out, 0, sizeof **out);
  (*out)->file = file;
  return 0;
}

/* Rows the existing DV of @p a deletes (its descriptor's cardinality). */
static int old_cardinality(const delta_add *a, int64_t *out, inlet_error *err) {
  *out = 0;
  if (!a->dv_json) return 0;
  delta_dv_desc dd;
  TRY(delta_dv_desc_parse(&dd, a->dv_json, err));
  *out = dd.cardinality;
  delta_dv_desc_reset(&dd);
  return 0;
}

static int open_file(deleter *d, const delta_add *a, inlet_parquet_reader **r, inlet_error *err) {
  int rc = pq_reader_open_storage(r, delta_table_storage(d->table), a->path, a->size, NULL, err);
  if (rc < 0) inlet_error_prefix(err, "delete: reading \"%s\"", a->path);
  return rc;
}

/* ---- which rows -------------------------------------------------------------------- */

/* Pass 1 over file @p fi: the new set of deleted rows into @p t. */
static int match_file(deleter *d, int64_t fi, touched *t, inlet_error *err) {
  const delta_file *df = &d->snap.files[fi];
  const delta_add *a = &df->add;
  const inlet_predicate *p = d->pred;
  inlet_parquet_reader *r = NULL;
  int32_t *proj = NULL, *slot = NULL;
  uint8_t *res = NULL;
  inlet_batch b, vb;
  memset(&b, 0, sizeof b);
  memset(&vb, 0, sizeof vb);
  TRY(open_file(d, a, &r, err));
  int rc = 0;
  if (a->dv_json) {
    rc = delta_dv_load(delta_table_storage(d->table), delta_table_root(d->table), a->path,
                       a->dv_json, &t->del, err);
    if (rc < 0) goto done;
    t->old_del = (int64_t)delta_dv_cardinality(t->del);
  }
  const inlet_schema *fs = inlet_parquet_reader_schema(r);
  proj = inlet_calloc((size_t)p->n_cols + 1, sizeof *proj);
  slot = inlet_calloc((size_t)p->n_cols + 1, sizeof *slot); /* projected position, or -1 */
  FAIL_GOTO(!proj || !slot, err, INLET_ENOMEM, "out of memory");
  int32_t n_proj = 0;
  for (int32_t i = 0; i < p->n_cols; i++) {
    const inlet_field *tf = &p->schema.fields[p->cols[i]];
    slot[i] = -1;
    if (is_partition_col(&d->snap.metadata, tf->name)) continue;
    /* By field id, then physical name (column mapping), as scans read. */
    int k = delta_cm_find_field(fs->fields, fs->n_fields, &d->phys->fields[p->cols[i]]);
    if (k < 0) continue; /* added after the file was written: nulls */
    slot[i] = n_proj;
    proj[n_proj++] = k;
  }
  if (n_proj) TRY_GOTO(inlet_parquet_reader_project(r, proj, n_proj, err));
  t->rows = inlet_parquet_reader_num_rows(r);
  FAIL_GOTO(df->num_records >= 0 && df->num_records != t->rows, err, INLET_ECORRUPT,
            "\"%s\": stats say %lld rows, the file holds %lld", a->path, (long long)df->num_records,
            (long long)t->rows);
  int32_t nrg = inlet_parquet_reader_num_row_groups(r);
  int64_t base = 0;
  for (int32_t g = 0; g < nrg; g++) {
    int64_t n = inlet_parquet_reader_row_group_rows(r, g);
    if (n_proj) {
      rc = inlet_parquet_reader_read_row_group(r, g, &b, err);
      if (rc < 0) {
        inlet_error_prefix(err, "delete: \"%s\" row group %d", a->path, (int)g);
        goto done;
      }
      FAIL_GOTO(b.num_rows != n, err, INLET_ECORRUPT, "\"%s\" row group %d: %lld rows, footer %lld",
                a->path, (int)g, (long long)b.num_rows, (long long)n);
    }
    TRY_GOTO(inlet_batch_init(&vb, &p->schema, err));
    for (int32_t i = 0; i < p->n_cols; i++) {
      int32_t c = p->cols[i];
      const inlet_field *tf = &p->schema.fields[c];
      if (slot[i] >= 0) {
        TRY_GOTO(maint_take_column(&vb.columns[c], tf, &d->phys->fields[c], &b.columns[slot[i]],
                                   &b.schema.fields[slot[i]], n, a->path, g, err));
      } else if (is_partition_col(&d->snap.metadata, tf->name)) {
        bool found;
        const char *v = maint_partition_value(a, d->phys->fields[c].name, &found);
        TRY_GOTO(delta_partition_value_append(&vb.columns[c], tf, v, n, err));
      } else {
        for (int64_t k = 0; k < n; k++)
          TRY_GOTO(inlet_array_append_null(&vb.columns[c], tf, err));
      }
    }
    vb.num_rows = n;
    uint8_t *nr = inlet_realloc(res, (size_t)n + 1);
    FAIL_GOTO(!nr, err, INLET_ENOMEM, "out of memory");
    res = nr;
    TRY_GOTO(expr_eval(p, &vb, 0, n, res, err));
    for (int64_t k = 0; k < n; k++) {
      uint64_t row = (uint64_t)(base + k);
      if (res[k] != EXPR_TRUE || (t->del && delta_dv_contains(t->del, row))) continue;
      TRY_GOTO(delta_dv_add(&t->del, row, err));
      if (d->cdf) TRY_GOTO(delta_dv_add(&t->newly_set, row, err));
      t->newly++;
    }
    inlet_batch_reset(&vb);
    base += n;
  }
  FAIL_GOTO(base != t->rows, err, INLET_ECORRUPT, "\"%s\": footer says %lld rows, row groups %lld",
            a->path, (long long)t->rows, (long long)base);
done:
  inlet_batch_reset(&b);
  inlet_batch_reset(&vb);
  inlet_free(proj);
  inlet_free(slot);
  inlet_free(res);
  inlet_parquet_reader_free(r);
  return rc;
}

/* Pass 2 (copy-on-write): the rows of the file @p t->del does not name,
 * into a new file beside it. With @p cdc (change data feed, PROTOCOL.md
 * "Change Data Files"): the rows this delete deletes instead (t->newly_set,
 * or without it every row t->del does not name), with _change_type
 * "delete", into a file of _change_data/ in the same partition directory. */
static int copy_rows(deleter *d, touched *t, bool cdc, inlet_error *err) {
  const delta_add *a = &d->snap.files[t->file].add;
  inlet_parquet_reader *r = NULL;
  int32_t nd = d->data_schema.n_fields, n_proj = 0;
  int32_t *idx = inlet_calloc((size_t)nd + 1, sizeof *idx);
  int32_t *proj = inlet_calloc((size_t)nd + 1, sizeof *proj);
  uint8_t *keep = NULL;
  char *dir = NULL;
  pq_raw_chunk *cap = NULL, *raw = NULL; /* owned: n_proj and nd entries */
  inlet_batch b, nb;
  memset(&b, 0, sizeof b);
  memset(&nb, 0, sizeof nb);
  int rc = 0;
  FAIL_GOTO(!idx || !proj, err, INLET_ENOMEM, "out of memory");
  TRY_GOTO(open_file(d, a, &r, err));
  const inlet_schema *fs = inlet_parquet_reader_schema(r);
  for (int32_t i = 0; i < nd; i++) {
    const inlet_field *tf = &d->data_schema.fields[i];
    int k = delta_cm_find_field(fs->fields, fs->n_fields, tf);
    idx[i] = -1;
    if (k < 0) continue;
    idx[i] = n_proj;
    proj[n_proj++] = k;
  }
  FAIL_GOTO(n_proj == 0, err, INLET_EUNSUPPORTED,
            "cannot rewrite \"%s\": it holds none of the table's columns", a->path);
  TRY_GOTO(inlet_parquet_reader_project(r, proj, n_proj, err));
  const char *slash = strrchr(a->path, '/');
  if (cdc) {
    size_t dl = slash ? (size_t)(slash - a->path) : 0;
    dir = inlet_malloc(dl + 16);
    if (dir) snprintf(dir, dl + 16, "_change_data%s%.*s", dl ? "/" : "", (int)dl, a->path);
  } else {
    dir = slash ? inlet_strndup(a->path, (size_t)(slash - a->path)) : inlet_strdup("");
  }
  FAIL_GOTO(!dir, err, INLET_ENOMEM, "out of memory");
  delta_file_sink *sink = cdc ? &d->cdc_sink : &d->sink;
  delta_data_file *out = cdc ? &t->cdc : &t->out;
  TRY_GOTO(delta_data_file_open(sink, out, dir, err));
  /* The rows a delete keeps are mostly whole row groups the predicate did
   * not touch: their columns' pages are kept for the writer to copy
   * (raw_pages.h), as compaction does, unless row tracking columns are
   * filled in. Change data rows carry a column of their own: encoded. */
  const char *rt_id = delta_metadata_conf(&d->snap.metadata, DELTA_RT_ID_COL);
  const char *rt_ver = delta_metadata_conf(&d->snap.metadata, DELTA_RT_VER_COL);
  if (!cdc && !(rt_id && inlet_schema_find(&d->data_schema, rt_id) >= 0) &&
      !(rt_ver && inlet_schema_find(&d->data_schema, rt_ver) >= 0)) {
    cap = inlet_calloc((size_t)n_proj, sizeof *cap);
    FAIL_GOTO(!cap, err, INLET_ENOMEM, "out of memory");
    pq_reader_capture_pages(r, cap);
  }
  int32_t nrg = inlet_parquet_reader_num_row_groups(r);
  int64_t base = 0;
  for (int32_t g = 0; g < nrg; g++) {
    rc = inlet_parquet_reader_read_row_group(r, g, &b, err);
    if (rc < 0) {
      inlet_error_prefix(err, "delete: \"%s\" row group %d", a->path, (int)g);
      goto done;
    }
    TRY_GOTO(inlet_batch_init(&nb, cdc ? &d->cdc_schema : &d->data_schema, err));
    for (int32_t i = 0; i < nd; i++) {
      const inlet_field *tf = &d->data_schema.fields[i];
      if (idx[i] >= 0) {
        TRY_GOTO(maint_take_column(&nb.columns[i], tf, tf, &b.columns[idx[i]],
                                   &b.schema.fields[idx[i]], b.num_rows, a->path, g, err));
      } else {
        FAIL_GOTO(!tf->nullable, err, INLET_ECORRUPT, "\"%s\" lacks NOT NULL column \"%s\"",
                  a->path, tf->name);
        for (int64_t k = 0; k < b.num_rows; k++)
          TRY_GOTO(inlet_array_append_null(&nb.columns[i], tf, err));
      }
    }
    nb.num_rows = b.num_rows;
    /* Row tracking: copied rows keep their stable ids and versions. */
    TRY_GOTO(delta_rt_fill(&nb, &d->snap.metadata, a, base, err));
    uint8_t *nk = inlet_realloc(keep, (size_t)b.num_rows + 1);
    FAIL_GOTO(!nk, err, INLET_ENOMEM, "out of memory");
    keep = nk;
    for (int64_t k = 0; k < b.num_rows; k++) {
      uint64_t row = (uint64_t)(base + k);
      bool gone = t->del && delta_dv_contains(t->del, row);
      keep[k] = !cdc ? !gone : t->newly_set ? delta_dv_contains(t->newly_set, row) : !gone;
    }
    if (cdc) {
      /* _change_type, then only the kept rows. */
      const inlet_field *ct = &d->cdc_schema.fields[nd];
      for (int64_t k = 0; k < b.num_rows; k++)
        TRY_GOTO(inlet_array_append_bytes(&nb.columns[nd], ct, "delete", 6, err));
    }
    bool all_kept = true;
    for (int64_t k = 0; k < b.num_rows && all_kept; k++)
      all_kept = keep[k];
    /* A column's pages go along when they hold exactly its values: read
     * in the table's type, no row of the row group deleted. */
    if (cap && all_kept)
      TRY_GOTO(maint_take_pages(&raw, cap, idx, &d->data_schema, &b.schema, err));
    TRY_GOTO(batch_keep_rows(&nb, keep, err));
    if (nb.num_rows) TRY_GOTO(delta_data_file_write_pages(out, &nb, raw, err));
    pq_raw_chunks_free(raw, nd);
    raw = NULL;
    base += b.num_rows;
    inlet_batch_reset(&nb);
  }
  TRY_GOTO(delta_data_file_close(sink, out, dir, err));
  int64_t want = cdc ? t->newly : t->rows - (int64_t)delta_dv_cardinality(t->del);
  FAIL_GOTO(out->rows != want, err, INLET_EINTERNAL,
            "delete: copying rows of \"%s\" wrote %lld rows, not %lld", a->path,
            (long long)out->rows, (long long)want);
done:
  inlet_batch_reset(&b);
  inlet_batch_reset(&nb);
  pq_raw_chunks_free(raw, nd);
  if (r) pq_reader_capture_pages(r, NULL);
  pq_raw_chunks_free(cap, n_proj);
  inlet_free(idx);
  inlet_free(proj);
  inlet_free(keep);
  inlet_free(dir);
  inlet_parquet_reader_free(r);
  return rc;
}

/* The DV file of this attempt: every T_DV file's new vector, each at its
 * offset; their descriptors are filled in. */
static int write_dv_file(deleter *d, inlet_error *err) {
  inlet_buf file;
  memset(&file, 0, sizeof file);
  int rc = 0;
  bool any = false;
  for (int64_t i = 0; i < d->n_t; i++)
    any |= d->t[i].kind == T_DV;
  if (!any) return 0;
  TRY(delta_dv_new_file_name(d->dv_z85, &d->dv_path, err));
  for (int64_t i = 0; i < d->n_t && rc == 0; i++) {
    touched *t = &d->t[i];
    if (t->kind != T_DV) continue;
    int64_t off = 0, size = 0;
    rc = delta_dv_file_append(&file, t->del, &off, &size, err);
    if (rc < 0) break;
    t->dv_json = delta_dv_desc_json(d->dv_z85, off, size, delta_dv_cardinality(t->del));
    char id[64];
    snprintf(id, sizeof id, "u%s@%lld", d->dv_z85, (long long)off);
    t->dv_id = inlet_strdup(id);
    if (!t->dv_json || !t->dv_id) rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
  }
  inlet_storage *st = delta_table_storage(d->table);
  inlet_wfile *wf = NULL;
  if (rc == 0) rc = st->ops->create(st, d->dv_path, &wf, err);
  if (rc == 0) {
    d->dv_written = true;
    rc = wf->ops->append(wf, file.data, file.len, err);
    if (rc < 0)
      wf->ops->abort(wf);
    else
      rc = wf->ops->close(wf, true, err);
  }
  if (rc == 0) rc = st->ops->sync_dir(st, "", err);
  if (rc < 0) inlet_error_prefix(err, "delete: writing deletion vector file \"%s\"", d->dv_path);
  inlet_buf_reset(&file);
  return rc;
}

/* ---- committing ---------------------------------------------------------------------- */

static int rebase_cb(void *ctx, int64_t version, const delta_action *a, inlet_error *err) {
  (void)err;
  deleter *d = ctx;
  if (d->conflict) return 0;
  if (a->kind == DELTA_ACTION_METADATA || a->kind == DELTA_ACTION_PROTOCOL) {
    d->conflict = true;
    snprintf(d->conflict_why, sizeof d->conflict_why,
             "conflict (metadata changed): version %lld changed the table's metaData or protocol",
             (long long)version);
    return 0;
  }
  if (a->kind != DELTA_ACTION_REMOVE) return 0;
  for (int64_t i = 0; i < d->n_t; i++)
    if (strcmp(d->snap.files[d->t[i].file].add.path, a->u.remove.path) == 0) {
      d->conflict = true;
      snprintf(d->conflict_why, sizeof d->conflict_why,
               "conflict (concurrent delete): version %lld removed \"%.300s\", which this delete "
               "changes",
               (long long)version, a->u.remove.path);
    }
  return 0;
}

/* Reads the commits after the snapshot (appends pass, removes of touched
 * files and metadata changes are conflicts). */
static int rebase(deleter *d, inlet_error *err) {
  return delta_log_read_commits_after(delta_table_storage(d->table), delta_table_root(d->table),
                                      &d->seen_version, rebase_cb, d, err);
}

/* The stats of a file given a DV: numRecords kept (the rows in the file),
 * bounds no longer tight (PROTOCOL.md "Per-file Statistics"). */
static char *loose_stats(const char *stats, int64_t rows) {
  json_t *s = stats ? json_loads(stats, 0, NULL) : NULL;
  if (!json_is_object(s)) {
    json_decref(s);
    s = json_object();
  }
  json_object_set_new(s, "numRecords", json_integer(rows));
  json_object_set_new(s, "tightBounds", json_false());
  char *out = json_dumps(s, JSON_COMPACT | JSON_PRESERVE_ORDER);
  json_decref(s);
  return out;
}

static int commit(deleter *d, inlet_delete_result *res, inlet_error *err) {
  TRY(rebase(d, err));
  FAIL_IF(d->conflict, err, INLET_ECONFLICT, "%s", d->conflict_why);
  delta_txn *txn = NULL;
  TRY(delta_txn_begin(&txn, delta_table_storage(d->table), delta_table_root(d->table),
                      d->seen_version, "DELETE", err));
  delta_txn_set_table(txn, &d->snap.metadata);
  delta_txn_set_base(txn, &d->snap);
  char *stats = NULL;
  /* Deletion vectors and whole-file removes leave every surviving row where
   * it was; a rewrite keeps ids through the materialized columns. */
  int rc = delta_rt_tag_preserved(txn, &d->snap.protocol, &d->snap.metadata,
                                  d->use_dvs || d->partition_only || d->rt_cols, err);
  if (rc < 0) goto done;
  int64_t now = delta_now_ms(), removed_bytes = 0, added_bytes = 0, n_cdc = 0;
  inlet_delete_result m;
  memset(&m, 0, sizeof m);
  for (int64_t i = 0; i < d->n_t; i++) {
    touched *t = &d->t[i];
    const delta_add *a = &d->snap.files[t->file].add;
    TRY_GOTO(delta_txn_remove_file(txn, a, true, now, err));
    m.removed_files++;
    removed_bytes = inlet_add_sat_i64(removed_bytes, a->size);
    m.deleted_rows += t->newly;
    if (a->dv_json && t->kind != T_DV) m.dvs_removed++;
    if (t->kind == T_DV) {
      delta_action aa;
      memset(&aa, 0, sizeof aa);
      aa.kind = DELTA_ACTION_ADD;
      aa.u.add = *a; /* borrowed fields: add_action copies */
      aa.u.add.data_change = true;
      inlet_free(stats);
      stats = loose_stats(a->stats, t->rows);
      FAIL_GOTO(!stats, err, INLET_ENOMEM, "out of memory");
      aa.u.add.stats = stats;
      aa.u.add.dv_json = t->dv_json;
      aa.u.add.dv_id = t->dv_id;
      TRY_GOTO(delta_txn_add_action(txn, &aa, err));
      m.added_files++;
      added_bytes = inlet_add_sat_i64(added_bytes, a->size);
      if (a->dv_json)
        m.dvs_updated++;
      else
        m.dvs_added++;
    }
    if (t->cdc.rel_path) {
      delta_action ca;
      memset(&ca, 0, sizeof ca);
      ca.kind = DELTA_ACTION_CDC;
      ca.u.add.path = t->cdc.rel_path; /* borrowed: add_action copies */
      ca.u.add.partition_values = a->partition_values;
      ca.u.add.n_partition_values = a->n_partition_values;
      ca.u.add.size = t->cdc.size;
      ca.u.add.data_change = false;
      TRY_GOTO(delta_txn_add_action(txn, &ca, err));
      n_cdc++;
    }
    if (t->kind == T_REWRITE && t->out.rel_path) {
      TRY_GOTO(delta_data_file_add(txn, &t->out, a->partition_values, a->n_partition_values, true,
                                   now, err));
      m.added_files++;
      added_bytes = inlet_add_sat_i64(added_bytes, t->out.size);
      m.copied_rows += t->out.rows;
    }
  }
  /* numOutputRows: the rows this commit wrote (copied ones). */
  delta_txn_add_rows(txn, m.copied_rows);
  {
    json_t *params = json_object();
    json_t *pred = json_array();
    json_array_append_new(pred, json_string(d->o.where));
    char *pred_s = json_dumps(pred, JSON_COMPACT);
    json_decref(pred);
    json_object_set_new(params, "predicate", json_string(pred_s ? pred_s : "[]"));
    free(pred_s);
    char *params_s = json_dumps(params, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(params);
    FAIL_GOTO(!params_s, err, INLET_ENOMEM, "out of memory");
    rc = delta_txn_set_params(txn, params_s, err);
    free(params_s);
    if (rc < 0) goto done;
    /* Spark's DELETE metrics, values as strings as Spark writes them. */
    char b[32];
    json_t *mj = json_object();
    json_object_set_new(mj, "numRemovedFiles", json_string(delta_metric_text(b, m.removed_files)));
    json_object_set_new(mj, "numAddedFiles", json_string(delta_metric_text(b, m.added_files)));
    json_object_set_new(mj, "numDeletedRows", json_string(delta_metric_text(b, m.deleted_rows)));
    json_object_set_new(mj, "numCopiedRows", json_string(delta_metric_text(b, m.copied_rows)));
    json_object_set_new(mj, "numAddedChangeFiles", json_string(delta_metric_text(b, n_cdc)));
    json_object_set_new(mj, "numRemovedBytes", json_string(delta_metric_text(b, removed_bytes)));
    json_object_set_new(mj, "numAddedBytes", json_string(delta_metric_text(b, added_bytes)));
    json_object_set_new(mj, "numDeletionVectorsAdded",
                        json_string(delta_metric_text(b, m.dvs_added)));
    json_object_set_new(mj, "numDeletionVectorsRemoved",
                        json_string(delta_metric_text(b, m.dvs_removed)));
    json_object_set_new(mj, "numDeletionVectorsUpdated",
                        json_string(delta_metric_text(b, m.dvs_updated)));
    /* Data skipping, under the names of Spark's DELETE command metrics:
     * live files (bytes) before, and those the log did not rule out. */
    int64_t all_bytes = 0;
    for (int64_t i = 0; i < d->snap.n_files; i++)
      all_bytes = inlet_add_sat_i64(all_bytes, d->snap.files[i].add.size);
    json_object_set_new(mj, "numFilesBeforeSkipping",
                        json_string(delta_metric_text(b, d->snap.n_files)));
    json_object_set_new(mj, "numBytesBeforeSkipping", json_string(delta_metric_text(b, all_bytes)));
    json_object_set_new(mj, "numFilesAfterSkipping",
                        json_string(delta_metric_text(b, d->snap.n_files - d->files_skipped)));
    json_object_set_new(mj, "numBytesAfterSkipping",
                        json_string(delta_metric_text(b, all_bytes - d->bytes_skipped)));
    char *m_s = json_dumps(mj, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(mj);
    FAIL_GOTO(!m_s, err, INLET_ENOMEM, "out of memory");
    rc = delta_txn_set_extra_metrics(txn, m_s, err);
    free(m_s);
    if (rc < 0) goto done;
  }
  bool maybe = false;
  rc = delta_write_commit(d->table, txn, &d->snap.metadata, &res->version, &maybe, err);
  if (rc == 0 || maybe) d->dv_written = false; /* referenced (or maybe): stays */
  if (rc < 0 && maybe)
    for (int64_t i = 0; i < d->n_t; i++)
      d->t[i].out.created = d->t[i].cdc.created = false; /* may be in the log */
  if (rc == 0) {
    res->deleted_rows = m.deleted_rows;
    res->removed_files = m.removed_files;
    res->added_files = m.added_files;
    res->dvs_added = m.dvs_added;
    res->dvs_updated = m.dvs_updated;
    res->dvs_removed = m.dvs_removed;
    res->copied_rows = m.copied_rows;
    for (int64_t i = 0; i < d->n_t; i++)
      d->t[i].out.created = d->t[i].cdc.created = false; /* committed: kept */
  }
done:
  inlet_free(stats);
  delta_txn_free(txn);
  return rc;
}

/* Pass 1 over every live file the log cannot rule out, and pass 2 of
 * copy-on-write for those with new deletions. Data skipping as scans do it
 * (delta_scan_plan.c, expr_possible): a file whose add.stats and partition
 * values (keyed by physical name) leave PRED no row to make TRUE is not
 * read. The bounds describe every row of the file, deleted or not, so they
 * hold for a file with a deletion vector too; a file without stats is
 * read. */
static int match_files(deleter *d, inlet_error *err) {
  delta_scan_plan *plan = NULL;
  TRY(delta_scan_plan_build(&plan, &d->snap, err));
  int rc = 0;
  expr_colstats *cs = inlet_calloc((size_t)d->pred->schema.n_fields + 1, sizeof *cs);
  FAIL_GOTO(!cs, err, INLET_ENOMEM, "out of memory");
  for (int64_t i = 0; i < d->snap.n_files; i++) {
    delta_scan_plan_stats(plan, i, cs);
    delta_scan_plan_partitions(plan, i, cs);
    if (!(expr_possible(d->pred, cs) & EXPR_MAY_TRUE)) {
      d->files_skipped++;
      d->bytes_skipped = inlet_add_sat_i64(d->bytes_skipped, d->snap.files[i].add.size);
      continue;
    }
    d->files_read++;
    touched *t = NULL;
    TRY_GOTO(add_touched(d, i, &t, err));
    TRY_GOTO(match_file(d, i, t, err));
    if (t->newly == 0) { /* not touched */
      delta_dv_free(t->del);
      delta_dv_free(t->newly_set);
      d->n_t--;
      continue;
    }
    if ((int64_t)delta_dv_cardinality(t->del) >= t->rows)
      t->kind = T_REMOVE;
    else if (d->use_dvs)
      t->kind = T_DV;
    else {
      t->kind = T_REWRITE;
      TRY_GOTO(copy_rows(d, t, false, err));
    }
  }
done:
  inlet_free(cs);
  delta_scan_plan_free(plan);
  return rc;
}

/* ---- one attempt ----------------------------------------------------------------- */

static int attempt(deleter *d, inlet_delete_result *res, inlet_error *err) {
  inlet_table *table = d->table;
  TRY(delta_table_load(table, &d->snap, DELTA_SNAP_LATEST, 0, err));
  d->have_snap = true;
  d->seen_version = d->snap.version;
  res->read_version = d->snap.version;
  FAIL_IF(!d->snap.has_schema, err, INLET_EUNSUPPORTED, "table metaData has no schemaString");
  TRY(delta_features_check_write(&d->snap.protocol, &d->snap.metadata, DELTA_OP_COMPACT, 0, err));
  const char *ao = delta_metadata_conf(&d->snap.metadata, "delta.appendOnly");
  FAIL_IF(ao && strcasecmp(ao, "true") == 0, err, INLET_EUNSUPPORTED,
          "cannot delete from this table: delta.appendOnly=true (writer feature \"appendOnly\") "
          "allows no commit that removes data");
  const char *cdf = delta_metadata_conf(&d->snap.metadata, "delta.enableChangeDataFeed");
  d->cdf = cdf && strcasecmp(cdf, "true") == 0;
  const char *dvs = delta_metadata_conf(&d->snap.metadata, "delta.enableDeletionVectors");
  d->use_dvs = dvs && strcasecmp(dvs, "true") == 0 &&
               delta_protocol_supports(&d->snap.protocol, "deletionVectors");
  res->used_dvs = d->use_dvs;
  /* Deletion vectors without change data write no data file, so a column
   * no data file can hold is refused only when rewriting or change data
   * may be needed. */
  const char *uv = delta_schema_unwritable_void(&d->snap.schema);
  FAIL_IF(uv && (d->cdf || !d->use_dvs), err, INLET_EUNSUPPORTED,
          "cannot delete without deletion vectors: field \"%s\" is a void inside an array or "
          "map, or a struct of void fields only, which no data file can hold",
          uv);
  TRY(expr_parse(&d->pred, d->o.where, &d->snap.schema, EXPR_WHERE, err));
  d->partition_only = true;
  for (int32_t i = 0; i < d->pred->n_cols; i++)
    d->partition_only &=
        is_partition_col(&d->snap.metadata, d->snap.schema.fields[d->pred->cols[i]].name);
  /* Rewritten and change data files hold the physical columns (PROTOCOL.md
   * "Writer Requirements for Column Mapping"), so their stats use physical
   * names. */
  d->phys = delta_snapshot_physical(&d->snap);
  FAIL_IF(d->phys->n_fields != d->snap.schema.n_fields, err, INLET_EINTERNAL,
          "physical schema has %d columns, the table %d", (int)d->phys->n_fields,
          (int)d->snap.schema.n_fields);
  for (int32_t i = 0; i < d->snap.schema.n_fields; i++)
    /* Void columns stay out of data files, as appends leave them out
     * (PROTOCOL.md "Void Type"); readers fill them with null. */
    if (!is_partition_col(&d->snap.metadata, d->snap.schema.fields[i].name) &&
        d->snap.schema.fields[i].type.id != INLET_TYPE_NULL)
      TRY(inlet_schema_add_field(&d->data_schema, &d->phys->fields[i], err));
  /* Rewritten files copy each variant's bytes as they are (value and
   * metadata read and written in their data-file form). */
  TRY(delta_variant_physical(&d->data_schema, err));
  /* Row tracking enabled: the materialized row id and row commit version
   * columns, so copied rows keep theirs (copy_rows). */
  TRY(delta_rt_schema_add(&d->data_schema, &d->snap.protocol, &d->snap.metadata, &d->rt_cols, err));
  delta_file_sink_init(&d->sink, delta_table_storage(table), &d->snap.metadata, &d->data_schema,
                       d->o.compression, 0);
  d->sink.stash = d->stash;
  if (d->cdf) {
    TRY(inlet_schema_copy(&d->cdc_schema, &d->data_schema, err));
    inlet_field ct;
    memset(&ct, 0, sizeof ct);
    ct.name = (char *)"_change_type";
    ct.type.id = INLET_TYPE_STRING;
    ct.nullable = true;
    ct.field_id = -1;
    TRY(inlet_schema_add_field(&d->cdc_schema, &ct, err));
    delta_file_sink_init(&d->cdc_sink, delta_table_storage(table), &d->snap.metadata,
                         &d->cdc_schema, d->o.compression, 0);
    d->cdc_sink.stash = d->stash;
  }
  if (d->partition_only) {
    int64_t n = d->snap.n_files;
    const delta_add **adds = inlet_calloc((size_t)n + 1, sizeof *adds);
    uint8_t *keep = inlet_malloc((size_t)n + 1);
    int rc = adds && keep ? 0 : inlet_fail(err, INLET_ENOMEM, "out of memory");
    for (int64_t i = 0; rc == 0 && i < n; i++)
      adds[i] = &d->snap.files[i].add;
    if (rc == 0)
      rc = maint_where_match(d->pred, delta_snapshot_physical(&d->snap), adds, n, keep, err);
    for (int64_t i = 0; rc == 0 && i < n; i++) {
      if (!keep[i]) {
        d->files_skipped++;
        d->bytes_skipped = inlet_add_sat_i64(d->bytes_skipped, d->snap.files[i].add.size);
        continue;
      }
      const delta_file *df = &d->snap.files[i];
      touched *t = NULL;
      rc = add_touched(d, i, &t, err);
      if (rc == 0) rc = old_cardinality(&df->add, &t->old_del, err);
      if (rc == 0 && d->cdf && df->add.dv_json)
        rc = delta_dv_load(delta_table_storage(d->table), delta_table_root(d->table), df->add.path,
                           df->add.dv_json, &t->del, err);
      t->kind = T_REMOVE;
      t->rows = df->num_records;
      if (rc == 0 && t->rows < 0) {
        inlet_parquet_reader *r = NULL;
        rc = open_file(d, &df->add, &r, err);
        if (rc == 0) t->rows = inlet_parquet_reader_num_rows(r);
        inlet_parquet_reader_free(r);
      }
      t->newly = t->rows - t->old_del;
    }
    inlet_free(adds);
    inlet_free(keep);
    TRY(rc);
  } else {
    TRY(match_files(d, err));
  }
  res->files_read = d->files_read;
  res->files_skipped = d->files_skipped;
  if (d->n_t == 0) {
    res->version = -1;
    return 0;
  }
  /* Change data feed: every touched file's deleted rows in a cdc file (a
   * commit with cdc actions is read from them alone, so whole-file removes
   * need theirs too). */
  for (int64_t i = 0; d->cdf && i < d->n_t; i++)
    if (d->t[i].newly > 0) TRY(copy_rows(d, &d->t[i], true, err));
  TRY(write_dv_file(d, err));
  if (d->o.on_attempt) d->o.on_attempt(d->o.ctx, d->snap.version, d->n_t);
  return commit(d, res, err);
}

int inlet_table_delete(inlet_delete_result *out, inlet_table *table,
                       const inlet_delete_options *options, inlet_error *err) {
  FAIL_IF(!options || options->version != INLET_DELETE_OPTIONS_VERSION, err, INLET_EINVAL,
          "delete: options missing or of an unknown version");
  FAIL_IF(!options->where || !*options->where, err, INLET_EINVAL,
          "delete: a predicate (--where) is required");
  deleter d;
  memset(&d, 0, sizeof d);
  TRY(pq_buf_stash_new(&d.stash, PQ_BUF_STASH_MAX_BYTES, err));
  d.table = table;
  d.o = *options;
  inlet_schema_init(&d.data_schema);
  inlet_schema_init(&d.cdc_schema);
  int max = d.o.max_attempts > 0 ? d.o.max_attempts : DEFAULT_ATTEMPTS;
  inlet_delete_result res;
  memset(&res, 0, sizeof res);
  res.version = -1;
  int rc = 0;
  for (int k = 1; k <= max; k++) {
    res.attempts = k;
    res.version = -1;
    rc = attempt(&d, &res, err);
    attempt_reset(&d, rc < 0);
    if (rc != INLET_ECONFLICT) break;
  }
  pq_buf_stash_free(d.stash); /* after attempt_reset: its files gave their buffers back */
  inlet_schema_reset(&d.data_schema);
  inlet_schema_reset(&d.cdc_schema);
  if (rc == INLET_ECONFLICT)
    inlet_error_prefix(err, "delete gave up after %lld attempts", (long long)res.attempts);
  if (out) *out = res;
  return rc;
}
