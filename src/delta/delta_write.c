/*
 * Table writers (include/inlet/table.h): batches in, Parquet data files out,
 * committed as one transaction.
 *
 * Spec: PROTOCOL.md "Data Files" (files in the table directory or in
 * partition subdirectories `col=value/`; names unique per writer, here as
 * Spark names them: part-<n>-<uuid>-c000.<codec>.parquet), "Add File and
 * Remove File", "Per-file Statistics", "Writer Version Requirements" and
 * "Table Features" (we refuse to write tables needing writer features we do
 * not honour), "Consistency Between Table Metadata and Data Files"
 * (partition columns are not stored in the data files).
 *
 * Rows are routed to one open Parquet writer per partition directory. The
 * files, their stats and the commit go through the one internal write
 * transaction (delta_write_txn.h): each data file is fsynced on close (and
 * its directory synced) before the commit that references it is published;
 * a writer freed without commit removes its files.
 */
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "delta/delta_constraints.h"
#include "delta/delta_features.h"
#include "delta/delta_table_int.h"
#include "util/util.h"

typedef struct part_file {
  char *dir;       /* owned: "" or "a=1/b=x" */
  delta_kv *pvals; /* owned: partition values */
  int32_t n_pvals;
  delta_data_file df; /* the open (then closed) data file */
  int64_t *rows;      /* scratch: row indices of the current batch */
  int64_t n_rows, cap_rows;
} part_file;

struct inlet_table_writer {
  inlet_table *table;        /* borrowed */
  delta_snapshot snap;       /* owned: the version this transaction reads */
  inlet_append_options opts; /* app_id/operation point at the owned copies below */
  char *app_id;              /* owned */
  char *operation;           /* owned */
  inlet_schema data_schema;  /* owned: table schema minus partition columns */
  int32_t *data_idx;         /* owned: table column of each data column */
  int32_t n_part;
  int32_t *part_idx; /* owned: table column of each partition column */
  part_file *files;  /* owned */
  size_t n_files, cap_files;
  part_file *done; /* owned: files closed by a schema change (delta_writer_set_schema) */
  size_t n_done;
  bool schema_changed; /* the commit carries a metaData action with the new schema */
  int64_t rows;
  bool committed;
  bool keep_files;        /* the commit failed but may be in the log: files stay */
  bool create;            /* this transaction creates the table (version 0) */
  char *create_params;    /* owned: CREATE operationParameters, or NULL */
  delta_constraints cons; /* owned: invariants and CHECK constraints every row must meet */
  /* delta_writer_set_txns: txn actions replacing the options' extra ones */
  bool txns_set;
  int32_t n_txns;
  char **txn_ids;          /* owned */
  int64_t *txn_ver;        /* owned */
  int64_t *txn_expect;     /* owned: version the read snapshot must record, -1 none */
  delta_write_extras x;    /* stream additions (delta_writer_open_ext, or the public fields) */
  delta_file_sink sink;    /* naming, options and stats of the data files */
  util_pool *own_pool;     /* owned: made from opts.threads when extras lend none */
  pq_buf_stash *own_stash; /* owned: when extras lend none */
};

static int writer_open(inlet_table_writer **out, inlet_table *table,
                       const inlet_append_options *options, const delta_write_extras *extras,
                       const delta_snapshot *create, const char *create_params, inlet_error *err);

int inlet_table_writer_open(inlet_table_writer **out, inlet_table *table,
                            const inlet_append_options *options, inlet_error *err) {
  return writer_open(out, table, options, NULL, NULL, NULL, err);
}

int delta_writer_open_ext(inlet_table_writer **out, inlet_table *table,
                          const inlet_append_options *options, const delta_write_extras *extras,
                          inlet_error *err) {
  return writer_open(out, table, options, extras, NULL, NULL, err);
}

int delta_writer_open_create(inlet_table_writer **out, inlet_table *table,
                             const delta_snapshot *create, const char *params, inlet_error *err) {
  inlet_append_options o = INLET_APPEND_OPTIONS_INIT;
  o.operation = "CREATE TABLE AS SELECT";
  return writer_open(out, table, &o, NULL, create, params, err);
}

int delta_writer_open_create_with(inlet_table_writer **out, inlet_table *table,
                                  const delta_snapshot *create, const char *params,
                                  const inlet_append_options *options,
                                  const delta_write_extras *extras, inlet_error *err) {
  return writer_open(out, table, options, extras, create, params, err);
}

/* The columns stored in data files (the table's minus partition columns
 * and void columns) and the table column of each. */
static int build_data_schema(inlet_table_writer *w, inlet_error *err) {
  const inlet_schema *ts = &w->snap.schema;
  inlet_schema_reset(&w->data_schema);
  inlet_schema_init(&w->data_schema);
  for (int32_t i = 0; i < ts->n_fields; i++) {
    bool is_part = false;
    for (int32_t p = 0; p < w->n_part; p++)
      is_part |= w->part_idx[p] == i;
    if (is_part) continue;
    /* PROTOCOL.md "Void Type" and Spark's writer (dropNullTypeColumns): a
     * void column is left out of data files; readers fill it with null. */
    if (ts->fields[i].type.id == INLET_TYPE_NULL) continue;
    w->data_idx[w->data_schema.n_fields] = i;
    /* Column mapping: data files (and so their stats) use the physical
     * names and, in id mode, the ids as Parquet field ids. */
    TRY(inlet_schema_add_field(&w->data_schema, &delta_snapshot_physical(&w->snap)->fields[i],
                               err));
  }
  return 0;
}

static int writer_open(inlet_table_writer **out, inlet_table *table,
                       const inlet_append_options *options, const delta_write_extras *extras,
                       const delta_snapshot *create, const char *create_params, inlet_error *err) {
  *out = NULL;
  inlet_append_options dflt = INLET_APPEND_OPTIONS_INIT;
  FAIL_IF(options && options->version != 1 && options->version != INLET_APPEND_OPTIONS_VERSION, err,
          INLET_EINVAL, "append: unknown options version %d (this library has %d)",
          options->version, INLET_APPEND_OPTIONS_VERSION);
  FAIL_IF(options && options->version > 1 && options->threads < 0, err, INLET_EINVAL,
          "append: threads must not be negative");
  inlet_table_writer *w = inlet_calloc(1, sizeof *w);
  if (!w) return inlet_fail(err, INLET_ENOMEM, "out of memory opening a table writer");
  w->table = table;
  w->opts = dflt;
  if (options && options->version == 1) /* a version-1 struct ends before threads */
    memcpy(&w->opts, options, offsetof(inlet_append_options, threads));
  else if (options)
    w->opts = *options;
  w->opts.version = INLET_APPEND_OPTIONS_VERSION;
  if (extras) {
    w->x = *extras;
  } else {
    /* The public fields kept for source compatibility (table.h). */
    w->x.app_version_must_increase = w->opts.app_version_must_increase;
    w->x.n_txns = w->opts.n_extra_txns;
    w->x.txn_app_ids = w->opts.extra_txn_app_ids;
    w->x.txn_versions = w->opts.extra_txn_versions;
    w->x.metrics_json = w->opts.extra_metrics_json;
    w->x.computes_generated_columns = w->opts.computes_generated_columns;
  }
  inlet_schema_init(&w->data_schema);
  int rc;
  if (create) {
    /* Table creation with data: version 0 holds protocol, metaData and adds. */
    w->create = true;
    w->create_params = create_params ? inlet_strdup(create_params) : NULL;
    rc = delta_snapshot_copy(&w->snap, create, err);
  } else {
    /* The latest version's protocol, metaData, schema and txn versions:
     * a writer never needs the live files, so opening one costs the same
     * at 20,000 files as at none. Strict mode compares the latest version
     * itself, so it probes the log; otherwise the commit's conditional
     * create finds any newer version. */
    rc = w->opts.expected_version >= 0 ? delta_table_head(table, &w->snap, err)
                                       : delta_table_head_for_write(table, &w->snap, err);
  }
  if (rc < 0) goto fail;
  if (!create && w->opts.expected_version >= 0) {
    /* Strict mode: the table must still be at that version. */
    int64_t latest = w->snap.version, want = w->opts.expected_version;
    if (latest < want) {
      rc = inlet_fail(err, INLET_ENOTFOUND, "version %lld does not exist (latest is %lld)",
                      (long long)want, (long long)latest);
      goto fail;
    }
    if (latest != want) {
      rc = inlet_fail(err, INLET_ECONFLICT,
                      "conflict (table moved): table is at version %lld, "
                      "not %lld",
                      (long long)latest, (long long)want);
      goto fail;
    }
  }
  rc = delta_features_check_write(
      &w->snap.protocol, &w->snap.metadata, create ? DELTA_OP_CREATE : DELTA_OP_APPEND,
      w->x.computes_generated_columns ? DELTA_WRITE_COMPUTES_GENERATED : 0, err);
  if (rc < 0) goto fail;
  if (w->x.app_version_must_increase && w->opts.app_id &&
      delta_snapshot_txn_version(&w->snap, w->opts.app_id) >= w->opts.app_version) {
    rc = inlet_fail(err, INLET_ECONFLICT,
                    "conflict (concurrent transaction): appId \"%s\" "
                    "already recorded version %lld (>= %lld) at table version %lld",
                    w->opts.app_id, (long long)delta_snapshot_txn_version(&w->snap, w->opts.app_id),
                    (long long)w->opts.app_version, (long long)w->snap.version);
    goto fail;
  }
  if (!w->snap.has_schema) {
    rc = inlet_fail(err, INLET_EUNSUPPORTED, "table metaData has no schemaString");
    goto fail;
  }
  const char *vc = delta_schema_unwritable_void(&w->snap.schema);
  if (vc) {
    rc = inlet_fail(err, INLET_EUNSUPPORTED,
                    "field \"%s\" is a void inside an array or map, or a struct of void fields "
                    "only, which no data file can hold (Spark refuses to write it too); inlet "
                    "reads it as null",
                    vc);
    goto fail;
  }
  /* A table whose constraints inlet cannot evaluate is not written. */
  rc = delta_constraints_load(&w->cons, &w->snap, err);
  if (rc < 0) goto fail;
  w->app_id = w->opts.app_id ? inlet_strdup(w->opts.app_id) : NULL;
  w->operation = inlet_strdup(w->opts.operation ? w->opts.operation : "WRITE");
  w->opts.app_id = w->app_id;
  w->opts.operation = w->operation;
  const inlet_schema *ts = &w->snap.schema;
  w->n_part = w->snap.metadata.n_partition_columns;
  w->data_idx = inlet_calloc((size_t)ts->n_fields + 1, sizeof(int32_t));
  w->part_idx = inlet_calloc((size_t)w->n_part + 1, sizeof(int32_t));
  if (!w->operation || (w->opts.app_id && !w->app_id) || !w->data_idx || !w->part_idx) {
    rc = inlet_fail(err, INLET_ENOMEM, "out of memory opening a table writer");
    goto fail;
  }
  for (int32_t p = 0; p < w->n_part; p++) {
    int idx = inlet_schema_find(ts, w->snap.metadata.partition_columns[p]);
    if (idx < 0) {
      rc = inlet_fail(err, INLET_ECORRUPT, "partition column \"%s\" is not in the table schema",
                      w->snap.metadata.partition_columns[p]);
      goto fail;
    }
    w->part_idx[p] = idx;
  }
  if ((rc = build_data_schema(w, err)) < 0) goto fail;
  delta_file_sink_init(&w->sink, table->st, &w->snap.metadata, &w->data_schema, w->opts.compression,
                       0);
  /* Threads only when asked for: a lent pool, or more than one thread. */
  if (w->x.pool) {
    w->sink.pool = w->x.pool;
  } else if (w->opts.threads > 1) {
    rc = util_pool_new(&w->own_pool, w->opts.threads, err);
    if (rc < 0) goto fail;
    w->sink.pool = w->own_pool;
  }
  if (w->x.stash) {
    w->sink.stash = w->x.stash;
  } else {
    rc = pq_buf_stash_new(&w->own_stash, PQ_BUF_STASH_MAX_BYTES, err);
    if (rc < 0) goto fail;
    w->sink.stash = w->own_stash;
  }
  *out = w;
  return 0;
fail:
  inlet_table_writer_free(w);
  return rc;
}

static void part_file_reset(inlet_table_writer *w, part_file *f, bool remove_file) {
  delta_data_file_reset(&w->sink, &f->df, remove_file);
  inlet_free(f->dir);
  /* Robust to pvals == NULL whatever n_pvals says (the crash of issue 12). */
  for (int32_t i = 0; f->pvals && i < f->n_pvals; i++) {
    inlet_free(f->pvals[i].key);
    inlet_free(f->pvals[i].value);
  }
  inlet_free(f->pvals);
  inlet_free(f->rows);
  memset(f, 0, sizeof *f);
}

void inlet_table_writer_free(inlet_table_writer *w) {
  if (!w) return;
  for (size_t i = 0; i < w->n_files; i++)
    part_file_reset(w, &w->files[i], !w->committed && !w->keep_files);
  inlet_free(w->files);
  for (size_t i = 0; i < w->n_done; i++)
    part_file_reset(w, &w->done[i], !w->committed && !w->keep_files);
  inlet_free(w->done);
  delta_snapshot_reset(&w->snap);
  inlet_schema_reset(&w->data_schema);
  inlet_free(w->data_idx);
  inlet_free(w->part_idx);
  inlet_free(w->app_id);
  inlet_free(w->operation);
  inlet_free(w->create_params);
  delta_constraints_reset(&w->cons);
  for (int32_t i = 0; i < w->n_txns; i++)
    inlet_free(w->txn_ids[i]);
  inlet_free(w->txn_ids);
  inlet_free(w->txn_ver);
  inlet_free(w->txn_expect);
  util_pool_free(w->own_pool); /* after the files, which borrow it */
  pq_buf_stash_free(w->own_stash);
  inlet_free(w);
}

int64_t inlet_table_writer_rows(const inlet_table_writer *w) {
  return w->rows;
}

int64_t inlet_table_writer_bytes(const inlet_table_writer *w) {
  int64_t bytes = 0;
  for (size_t i = 0; i < w->n_files; i++)
    bytes = inlet_add_sat_i64(bytes, w->files[i].df.size);
  for (size_t i = 0; i < w->n_done; i++)
    bytes = inlet_add_sat_i64(bytes, w->done[i].df.size);
  return bytes;
}

static bool types_match(const inlet_field *a, const inlet_field *b) {
  const inlet_type *x = &a->type, *y = &b->type;
  if (x->id != y->id || a->n_children != b->n_children) return false;
  if (x->id == INLET_TYPE_TIMESTAMP && (x->unit != y->unit || x->utc != y->utc)) return false;
  if (x->id == INLET_TYPE_DECIMAL && (x->precision != y->precision || x->scale != y->scale))
    return false;
  for (int32_t i = 0; i < a->n_children; i++)
    if (!types_match(&a->children[i], &b->children[i])) return false;
  return true;
}

static int check_batch(const inlet_table_writer *w, const inlet_batch *b, inlet_error *err) {
  const inlet_schema *ts = &w->snap.schema;
  FAIL_IF(b->schema.n_fields != ts->n_fields, err, INLET_EINVAL,
          "batch has %d columns, table has %d", (int)b->schema.n_fields, (int)ts->n_fields);
  for (int32_t i = 0; i < ts->n_fields; i++) {
    const inlet_field *tf = &ts->fields[i], *bf = &b->schema.fields[i];
    FAIL_IF(strcmp(tf->name, bf->name) != 0, err, INLET_EINVAL,
            "batch column %d is \"%s\", table column is \"%s\"", (int)i, bf->name, tf->name);
    if (!types_match(tf, bf)) {
      char x[128], y[128];
      inlet_type_name(&tf->type, x, sizeof x);
      inlet_type_name(&bf->type, y, sizeof y);
      return inlet_fail(err, INLET_EINVAL,
                        "column \"%s\": batch type %s does not match table "
                        "type %s",
                        tf->name, y, x);
    }
    FAIL_IF(!tf->nullable && b->columns[i].null_count > 0, err, INLET_EINVAL,
            "column \"%s\" is NOT NULL but the batch holds %lld nulls", tf->name,
            (long long)b->columns[i].null_count);
    FAIL_IF(b->columns[i].length != b->num_rows, err, INLET_EINVAL,
            "column \"%s\" has %lld rows, batch has %lld", tf->name,
            (long long)b->columns[i].length, (long long)b->num_rows);
  }
  return 0;
}

static int part_file_open(inlet_table_writer *w, part_file *f, inlet_error *err) {
  return delta_data_file_open(&w->sink, &f->df, f->dir, err);
}

/* Whether partition values @p a and @p b (of the writer's n_part columns)
 * are equal, a null equal only to a null. */
static bool same_pvals(const inlet_table_writer *w, const delta_kv *a, const delta_kv *b) {
  for (int32_t p = 0; p < w->n_part; p++) {
    const char *x = a[p].value, *y = b[p].value;
    if ((x == NULL) != (y == NULL) || (x && strcmp(x, y) != 0)) return false;
  }
  return true;
}

/* The file of partition directory @p dir holding values @p pvals, or NULL.
 * The directory alone does not say: a null and the string
 * "__HIVE_DEFAULT_PARTITION__" share a directory, and so their rows go to
 * two files side by side, each with its own partitionValues. */
static part_file *lookup_file(inlet_table_writer *w, const char *dir, const delta_kv *pvals) {
  for (size_t i = 0; i < w->n_files; i++)
    if (strcmp(w->files[i].dir, dir) == 0 && same_pvals(w, w->files[i].pvals, pvals))
      return &w->files[i];
  return NULL;
}

/* Adds a file entry for partition directory @p dir (not created yet: see
 * open_new_files). Takes @p dir and @p pvals on success only. */
static int add_file(inlet_table_writer *w, char *dir, delta_kv *pvals, part_file **out,
                    inlet_error *err) {
  if (w->n_files == w->cap_files) {
    size_t nc = w->cap_files ? w->cap_files * 2 : 4;
    part_file *nf = inlet_realloc(w->files, nc * sizeof *nf);
    if (!nf) return inlet_fail(err, INLET_ENOMEM, "out of memory");
    w->files = nf;
    w->cap_files = nc;
  }
  part_file *f = &w->files[w->n_files++];
  memset(f, 0, sizeof *f);
  f->dir = dir;
  f->pvals = pvals;
  f->n_pvals = pvals ? w->n_part : 0;
  *out = f;
  return 0;
}

/* Creates the data files of entries [@p first, n_files). */
static int open_new_files(inlet_table_writer *w, size_t first, inlet_error *err) {
  for (size_t i = first; i < w->n_files; i++)
    TRY(part_file_open(w, &w->files[i], err));
  return 0;
}

/* Drops the entries from @p first on, removing the files they created: a
 * failed write leaves the writer as it found it. */
static void drop_new_files(inlet_table_writer *w, size_t first) {
  for (size_t i = first; i < w->n_files; i++)
    part_file_reset(w, &w->files[i], true);
  w->n_files = first;
}

static void free_pvals(delta_kv *pv, int32_t n) {
  for (int32_t p = 0; pv && p < n; p++) {
    inlet_free(pv[p].key);
    inlet_free(pv[p].value);
  }
  inlet_free(pv);
}

/* Partition directory and values of row @p r. */
static int row_partition(inlet_table_writer *w, const inlet_batch *b, int64_t r, char **dir,
                         delta_kv **pvals, inlet_error *err) {
  *dir = NULL;
  *pvals = inlet_calloc((size_t)w->n_part, sizeof **pvals);
  if (!*pvals) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  inlet_buf d = INLET_BUF_INIT;
  int rc = 0;
  for (int32_t p = 0; p < w->n_part; p++) {
    int32_t ci = w->part_idx[p];
    const inlet_field *f = &w->snap.schema.fields[ci];
    /* partitionValues and directories by physical name (column mapping) */
    const char *key = delta_snapshot_physical(&w->snap)->fields[ci].name;
    delta_kv *kv = &(*pvals)[p];
    kv->key = inlet_strdup(key);
    if (!kv->key) {
      rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
      break;
    }
    rc = delta_partition_value_format(&kv->value, f, &b->columns[ci], r, err);
    if (rc < 0) break;
    size_t len;
    rc = delta_partition_component_check(key, kv->value, kv->value ? strlen(kv->value) : 0, &len,
                                         err);
    if (rc < 0) break;
    char *en = delta_hive_escape(key), *ev = delta_hive_escape(kv->value);
    if (p) inlet_buf_push(&d, '/');
    if (en && ev)
      inlet_buf_appendf(&d, "%s=%s", en, ev);
    else
      d.error = INLET_ENOMEM;
    inlet_free(en);
    inlet_free(ev);
  }
  inlet_buf_terminate(&d);
  if (rc == 0 && inlet_buf_status(&d)) rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
  if (rc == 0) rc = delta_partition_path_check(strlen(w->table->root_abs), d.len, err);
  if (rc == INLET_EINVAL) inlet_error_prefix(err, "row %lld", (long long)r);
  if (rc < 0) {
    free_pvals(*pvals, w->n_part);
    *pvals = NULL;
    inlet_buf_reset(&d);
    return rc;
  }
  *dir = d.data ? (char *)inlet_buf_detach(&d, NULL) : inlet_strdup("");
  return *dir ? 0 : inlet_fail(err, INLET_ENOMEM, "out of memory");
}

/* Whether rows @p a and @p r of @p b hold the same partition values, byte
 * for byte (equal bytes format to the same directory; the converse need not
 * hold, which costs a lookup, never a wrong file). */
static bool same_partition(const inlet_table_writer *w, const inlet_batch *b, int64_t a,
                           int64_t r) {
  for (int32_t p = 0; p < w->n_part; p++) {
    int32_t ci = w->part_idx[p];
    const inlet_array *x = &b->columns[ci];
    bool va = inlet_array_is_valid(x, a), vr = inlet_array_is_valid(x, r);
    if (va != vr) return false;
    if (!va) continue;
    const inlet_type *t = &w->snap.schema.fields[ci].type;
    if (t->id == INLET_TYPE_BOOL) {
      if (inlet_bit_get(x->values, a) != inlet_bit_get(x->values, r)) return false;
    } else if (t->id == INLET_TYPE_STRING) {
      int32_t la = x->offsets[a + 1] - x->offsets[a], lr = x->offsets[r + 1] - x->offsets[r];
      /* An all-empty string column may have no value buffer at all. */
      if (la != lr ||
          (la > 0 && memcmp(x->values + x->offsets[a], x->values + x->offsets[r], (size_t)la)))
        return false;
    } else {
      int32_t wd = inlet_type_value_width(t);
      if (wd <= 0 || memcmp(x->values + a * wd, x->values + r * wd, (size_t)wd)) return false;
    }
  }
  return true;
}

static int write_rows(inlet_table_writer *w, part_file *f, const inlet_batch *b,
                      const int64_t *rows, int64_t n, inlet_error *err) {
  /* A view of the data columns: shallow copies that share b's buffers. */
  inlet_batch view;
  memset(&view, 0, sizeof view);
  view.schema = w->data_schema;
  int32_t nd = w->data_schema.n_fields;
  inlet_array *cols = inlet_calloc((size_t)nd + 1, sizeof *cols);
  if (!cols) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  int rc = 0;
  bool gathered = rows != NULL;
  for (int32_t i = 0; i < nd; i++) {
    const inlet_array *src = &b->columns[w->data_idx[i]];
    if (!gathered) {
      cols[i] = *src;
      continue;
    }
    const inlet_field *fld = &w->data_schema.fields[i];
    rc = inlet_array_init(&cols[i], fld, err);
    if (rc == 0) rc = inlet_array_reserve_rows(&cols[i], fld, n, err);
    for (int64_t k = 0; rc == 0 && k < n; k++)
      rc = inlet_array_append_from(&cols[i], fld, src, rows[k], err);
    if (rc < 0) break;
  }
  if (rc == 0) {
    view.columns = cols;
    view.num_rows = gathered ? n : b->num_rows;
    rc = delta_data_file_write(&f->df, &view, err);
  }
  if (gathered)
    for (int32_t i = 0; i < nd; i++)
      inlet_array_reset(&cols[i]);
  inlet_free(cols);
  return rc;
}

int inlet_table_writer_check_row(const inlet_table_writer *w, const inlet_batch *b, int64_t row,
                                 inlet_error *err) {
  FAIL_IF(row < 0 || row >= b->num_rows, err, INLET_EINVAL, "row %lld is not in the batch",
          (long long)row);
  TRY(check_batch(w, b, err));
  return delta_partition_row_check(b, row, w->part_idx, w->n_part, strlen(w->table->root_abs), err);
}

int inlet_table_writer_write(inlet_table_writer *w, const inlet_batch *b, inlet_error *err) {
  FAIL_IF(w->committed, err, INLET_EINVAL, "table writer already committed");
  TRY(check_batch(w, b, err));
  if (b->num_rows == 0) return 0;
  /* Every row must meet every constraint; a violation writes nothing of
   * the batch. */
  TRY(delta_constraints_check(&w->cons, b, 0, b->num_rows, w->rows, NULL, NULL, err));
  size_t first_new = w->n_files;
  int rc = 0;
  if (w->n_part == 0) {
    part_file *f = w->n_files ? &w->files[0] : NULL;
    if (!f) {
      char *dir = inlet_strdup("");
      if (!dir) return inlet_fail(err, INLET_ENOMEM, "out of memory");
      rc = add_file(w, dir, NULL, &f, err);
      if (rc < 0) {
        inlet_free(dir);
        return rc;
      }
      if ((rc = open_new_files(w, first_new, err)) < 0) goto undo;
    }
    TRY(write_rows(w, f, b, NULL, b->num_rows, err));
    w->rows += b->num_rows;
    return 0;
  }
  for (size_t i = 0; i < w->n_files; i++)
    w->files[i].n_rows = 0;
  /* Every row's partition first: a row whose values cannot name a directory
   * fails the batch before any file is created. Rows of equal partition
   * values come in runs (a batch grouped by partition, or one partition):
   * the directory is formatted, checked and looked up once per run. */
  part_file *run = NULL;
  for (int64_t r = 0; r < b->num_rows; r++) {
    if (!run || !same_partition(w, b, r - 1, r)) {
      char *dir;
      delta_kv *pv;
      if ((rc = row_partition(w, b, r, &dir, &pv, err)) < 0) goto undo;
      run = lookup_file(w, dir, pv);
      if (run) {
        inlet_free(dir);
        free_pvals(pv, w->n_part);
      } else if ((rc = add_file(w, dir, pv, &run, err)) < 0) {
        inlet_free(dir);
        free_pvals(pv, w->n_part);
        goto undo;
      }
    }
    if (run->n_rows == run->cap_rows) {
      int64_t nc = run->cap_rows ? run->cap_rows * 2 : 256;
      int64_t *nr = inlet_realloc(run->rows, (size_t)nc * sizeof *nr);
      if (!nr) {
        rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
        goto undo;
      }
      run->rows = nr;
      run->cap_rows = nc;
    }
    run->rows[run->n_rows++] = r;
  }
  if ((rc = open_new_files(w, first_new, err)) < 0) goto undo;
  for (size_t i = 0; i < w->n_files; i++) {
    part_file *f = &w->files[i];
    if (f->n_rows == 0) continue;
    if (f->n_rows == b->num_rows)
      TRY(write_rows(w, f, b, NULL, b->num_rows, err));
    else
      TRY(write_rows(w, f, b, f->rows, f->n_rows, err));
  }
  w->rows += b->num_rows;
  return 0;
undo:
  drop_new_files(w, first_new);
  return rc;
}

bool delta_writer_maybe_committed(const inlet_table_writer *w) {
  return w->committed || w->keep_files;
}

int delta_writer_set_txns(inlet_table_writer *w, int32_t n, const char *const *ids,
                          const int64_t *versions, const int64_t *expected, inlet_error *err) {
  for (int32_t i = 0; i < w->n_txns; i++)
    inlet_free(w->txn_ids[i]);
  inlet_free(w->txn_ids);
  inlet_free(w->txn_ver);
  inlet_free(w->txn_expect);
  w->txn_ids = NULL;
  w->txn_ver = w->txn_expect = NULL;
  w->n_txns = 0;
  w->txns_set = true;
  if (n <= 0) return 0;
  w->txn_ids = inlet_calloc((size_t)n, sizeof *w->txn_ids);
  w->txn_ver = inlet_calloc((size_t)n, sizeof *w->txn_ver);
  w->txn_expect = inlet_calloc((size_t)n, sizeof *w->txn_expect);
  if (!w->txn_ids || !w->txn_ver || !w->txn_expect)
    return inlet_fail(err, INLET_ENOMEM, "out of memory");
  for (int32_t i = 0; i < n; i++) {
    if (!(w->txn_ids[i] = inlet_strdup(ids[i])))
      return inlet_fail(err, INLET_ENOMEM, "out of memory");
    w->n_txns = i + 1;
    w->txn_ver[i] = versions[i];
    w->txn_expect[i] = expected ? expected[i] : -1;
  }
  return 0;
}

/* delta_writer_set_txns' precondition: the read snapshot still records what
 * the caller started from for every appId (commits after the read version
 * are judged by the log's conflict rules). */
static int check_expected_txns(const inlet_table_writer *w, inlet_error *err) {
  for (int32_t i = 0; i < w->n_txns; i++) {
    int64_t have = delta_snapshot_txn_version(&w->snap, w->txn_ids[i]);
    if (have != w->txn_expect[i])
      return inlet_fail(err, INLET_ECONFLICT,
                        "conflict (concurrent transaction): appId \"%s\" "
                        "is at version %lld in table version %lld, this transaction started "
                        "from %lld",
                        w->txn_ids[i], (long long)have, (long long)w->snap.version,
                        (long long)w->txn_expect[i]);
  }
  return 0;
}

int inlet_table_writer_commit(inlet_table_writer *w, int64_t *version, inlet_error *err) {
  FAIL_IF(w->committed, err, INLET_EINVAL, "table writer already committed");
  TRY(check_expected_txns(w, err));
  int rc = 0;
  delta_txn *txn = NULL;
  int64_t now = delta_now_ms();
  for (size_t i = 0; i < w->n_files; i++)
    TRY(delta_data_file_close(&w->sink, &w->files[i].df, w->files[i].dir, err));
  if (w->n_files || w->n_done) TRY(w->table->st->ops->sync_dir(w->table->st, "", err));
  TRY(delta_txn_begin(&txn, w->table->st, w->table->root_abs, w->snap.version, w->operation, err));
  delta_txn_set_table(txn, &w->snap.metadata);
  delta_txn_set_base(txn, &w->snap);
  delta_txn_set_base_state(txn, w->table->live);
  if (w->opts.expected_version >= 0 || w->create) delta_txn_set_strict(txn, true);
  if (w->create) {
    delta_action pa, ma;
    memset(&pa, 0, sizeof pa);
    memset(&ma, 0, sizeof ma);
    pa.kind = DELTA_ACTION_PROTOCOL;
    pa.u.protocol = w->snap.protocol; /* borrowed: add_action copies */
    ma.kind = DELTA_ACTION_METADATA;
    ma.u.metadata = w->snap.metadata;
    if ((rc = delta_txn_add_action(txn, &pa, err)) < 0) goto done;
    if ((rc = delta_txn_add_action(txn, &ma, err)) < 0) goto done;
  }
  if (w->schema_changed && !w->create) {
    /* PROTOCOL.md "Change Metadata": the whole metaData again, the new
     * schemaString in it (id, partitionColumns, configuration and
     * createdTime as read). A concurrent metaData change conflicts. */
    delta_action ma;
    memset(&ma, 0, sizeof ma);
    ma.kind = DELTA_ACTION_METADATA;
    ma.u.metadata = w->snap.metadata; /* borrowed: add_action copies */
    if ((rc = delta_txn_add_action(txn, &ma, err)) < 0) goto done;
  }
  if (w->opts.max_attempts > 0) delta_txn_set_max_attempts(txn, w->opts.max_attempts);
  delta_txn_add_rows(txn, w->rows);
  /* operationParameters as Spark writes them: partitionBy is a JSON array
   * inside a string. */
  json_t *cols = json_array();
  for (int32_t p = 0; p < w->n_part; p++)
    json_array_append_new(cols, json_string(w->snap.metadata.partition_columns[p]));
  char *cols_s = json_dumps(cols, JSON_COMPACT);
  json_decref(cols);
  json_t *params = json_pack("{s:s,s:s}", "mode", "Append", "partitionBy", cols_s ? cols_s : "[]");
  free(cols_s);
  char *params_s = params ? json_dumps(params, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
  json_decref(params);
  rc = params_s ? delta_txn_set_params(txn, w->create_params ? w->create_params : params_s, err)
                : inlet_fail(err, INLET_ENOMEM, "out of memory");
  free(params_s);
  if (rc < 0) goto done;
  if (w->app_id) {
    delta_action ta;
    memset(&ta, 0, sizeof ta);
    ta.kind = DELTA_ACTION_TXN;
    ta.u.txn = (delta_txn_action){w->app_id, w->opts.app_version, now};
    if ((rc = delta_txn_add_action(txn, &ta, err)) < 0) goto done;
  }
  for (int32_t i = 0; w->txns_set && i < w->n_txns; i++) {
    delta_action ta;
    memset(&ta, 0, sizeof ta);
    ta.kind = DELTA_ACTION_TXN;
    ta.u.txn = (delta_txn_action){w->txn_ids[i], w->txn_ver[i], now};
    if ((rc = delta_txn_add_action(txn, &ta, err)) < 0) goto done;
  }
  for (int32_t i = 0; !w->txns_set && i < w->x.n_txns; i++) {
    delta_action ta;
    memset(&ta, 0, sizeof ta);
    ta.kind = DELTA_ACTION_TXN;
    ta.u.txn = (delta_txn_action){(char *)w->x.txn_app_ids[i], w->x.txn_versions[i], now};
    if ((rc = delta_txn_add_action(txn, &ta, err)) < 0) goto done;
  }
  if (w->x.metrics_json && (rc = delta_txn_set_extra_metrics(txn, w->x.metrics_json, err)) < 0)
    goto done;
  for (size_t i = 0; i < w->n_done; i++) {
    part_file *f = &w->done[i];
    rc = delta_data_file_add(txn, &f->df, f->pvals, f->n_pvals, true, now, err);
    if (rc < 0) goto done;
  }
  for (size_t i = 0; i < w->n_files; i++) {
    part_file *f = &w->files[i];
    rc = delta_data_file_add(txn, &f->df, f->pvals, f->n_pvals, true, now, err);
    if (rc < 0) goto done;
  }
  rc = delta_write_commit(w->table, txn, &w->snap.metadata, version, &w->keep_files, err);
  if (rc < 0) goto done;
  w->committed = true;
done:
  delta_txn_free(txn);
  return rc;
}

/* Sets delta.columnMapping.maxColumnId of @p m to @p max_id. */
static int set_max_column_id(delta_metadata *m, int64_t max_id, inlet_error *err) {
  char v[24];
  snprintf(v, sizeof v, "%lld", (long long)max_id);
  char *nv = inlet_strdup(v);
  FAIL_IF(!nv, err, INLET_ENOMEM, "out of memory");
  for (int32_t i = 0; i < m->n_configuration; i++)
    if (strcmp(m->configuration[i].key, "delta.columnMapping.maxColumnId") == 0) {
      inlet_free(m->configuration[i].value);
      m->configuration[i].value = nv;
      return 0;
    }
  delta_kv *kv = inlet_realloc(m->configuration, ((size_t)m->n_configuration + 1) * sizeof *kv);
  char *key = inlet_strdup("delta.columnMapping.maxColumnId");
  if (!kv || !key) {
    if (kv) m->configuration = kv;
    inlet_free(nv);
    inlet_free(key);
    return inlet_fail(err, INLET_ENOMEM, "out of memory");
  }
  m->configuration = kv;
  kv[m->n_configuration].key = key;
  kv[m->n_configuration].value = nv;
  m->n_configuration++;
  return 0;
}

int delta_writer_set_schema(inlet_table_writer *w, const char *schema_json, inlet_error *err) {
  FAIL_IF(w->committed, err, INLET_EINVAL, "table writer already committed");
  /* Column mapping (PROTOCOL.md "Writer Requirements for Column Mapping"):
   * new fields get fresh ids and physical names, maxColumnId follows. */
  char *mapped = NULL;
  int64_t max_id = 0;
  if (w->snap.cm_mode != DELTA_CM_NONE) {
    const char *mx = delta_metadata_conf(&w->snap.metadata, "delta.columnMapping.maxColumnId");
    max_id = mx ? strtoll(mx, NULL, 10) : 0;
    mapped = inlet_strdup(schema_json);
    FAIL_IF(!mapped, err, INLET_ENOMEM, "out of memory");
    int arc = delta_column_mapping_assign_new(&mapped, &max_id, err);
    if (arc < 0) {
      inlet_free(mapped);
      return arc;
    }
    schema_json = mapped;
  }
  inlet_schema ns;
  inlet_schema_init(&ns);
  int prc = delta_schema_parse(&ns, schema_json, err);
  if (prc < 0) {
    inlet_free(mapped);
    return prc;
  }
  const inlet_schema *ts = &w->snap.schema;
  int rc = 0;
  if (ns.n_fields < ts->n_fields)
    rc = inlet_fail(err, INLET_EINVAL, "new schema drops columns (%d, table has %d)",
                    (int)ns.n_fields, (int)ts->n_fields);
  for (int32_t i = 0; rc == 0 && i < ts->n_fields; i++)
    if (strcmp(ns.fields[i].name, ts->fields[i].name) != 0)
      rc = inlet_fail(err, INLET_EINVAL, "new schema column %d is \"%s\", table column is \"%s\"",
                      (int)i, ns.fields[i].name, ts->fields[i].name);
  if (rc == 0) rc = delta_features_check_column_names(&ns, w->snap.cm_mode != DELTA_CM_NONE, err);
  char *dup = rc == 0 ? inlet_strdup(schema_json) : NULL;
  int32_t *idx = rc == 0 ? inlet_calloc((size_t)ns.n_fields + 1, sizeof *idx) : NULL;
  part_file *done =
      rc == 0 ? inlet_realloc(w->done, (w->n_done + w->n_files + 1) * sizeof *done) : NULL;
  if (done) w->done = done;
  if (rc == 0 && (!dup || !idx || !done)) rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
  /* The open files keep the old columns: closed now, added at commit. */
  for (size_t i = 0; rc == 0 && i < w->n_files; i++)
    rc = delta_data_file_close(&w->sink, &w->files[i].df, w->files[i].dir, err);
  if (rc == 0 && mapped) rc = set_max_column_id(&w->snap.metadata, max_id, err);
  inlet_free(mapped);
  if (rc < 0) {
    inlet_schema_reset(&ns);
    inlet_free(dup);
    inlet_free(idx);
    return rc;
  }
  for (size_t i = 0; i < w->n_files; i++)
    w->done[w->n_done++] = w->files[i];
  w->n_files = 0;
  inlet_free(w->snap.metadata.schema_string);
  w->snap.metadata.schema_string = dup;
  inlet_schema_reset(&w->snap.schema);
  w->snap.schema = ns;
  inlet_free(w->data_idx);
  w->data_idx = idx;
  w->schema_changed = true;
  /* The physical twin of the new schema names the new data files' columns. */
  if (w->snap.cm_mode != DELTA_CM_NONE) TRY(delta_snapshot_set_mapping(&w->snap, err));
  return build_data_schema(w, err);
}

/* The writer takes schemaString @p ns (owned, may be NULL when @p n is 0)
 * computed from a record: evolve and widen alike. */
static int take_record_schema(inlet_table_writer *w, char *ns, int32_t n, int32_t *count, int rc,
                              inlet_error *err) {
  if (rc == 0 && n > 0) rc = delta_writer_set_schema(w, ns, err);
  inlet_free(ns);
  if (rc == 0 && count) *count = n;
  return rc;
}

int inlet_table_writer_evolve(inlet_table_writer *w, const char *record, size_t len, int32_t *added,
                              inlet_error *err) {
  int32_t n = 0;
  char *ns = NULL;
  if (added) *added = 0;
  FAIL_IF(!w->snap.metadata.schema_string, err, INLET_EUNSUPPORTED,
          "table metaData has no schemaString");
  int rc = delta_schema_evolve(&ns, &n, w->snap.metadata.schema_string, record, len, err);
  return take_record_schema(w, ns, n, added, rc, err);
}

int inlet_table_writer_widen(inlet_table_writer *w, const char *record, size_t len,
                             int32_t *widened, inlet_error *err) {
  int32_t n = 0;
  char *ns = NULL;
  if (widened) *widened = 0;
  if (!delta_type_widening_enabled(&w->snap.protocol, &w->snap.metadata)) return 0;
  FAIL_IF(!w->snap.metadata.schema_string, err, INLET_EUNSUPPORTED,
          "table metaData has no schemaString");
  int rc = delta_schema_widen(&ns, &n, w->snap.metadata.schema_string, record, len, err);
  return take_record_schema(w, ns, n, widened, rc, err);
}

const inlet_schema *inlet_table_writer_schema(const inlet_table_writer *w) {
  return &w->snap.schema;
}

const char *delta_writer_schema_json(const inlet_table_writer *w) {
  return w->snap.metadata.schema_string;
}

int inlet_table_checkpoint(inlet_table *table, int64_t *version, inlet_error *err) {
  delta_snapshot s;
  TRY(delta_table_load(table, &s, DELTA_SNAP_LATEST, 0, err));
  int rc = delta_checkpoint_write_threads(table->st, &s, true, table->threads, table->progress,
                                          table->progress_ctx, err);
  if (rc == 0 && version) *version = s.version;
  delta_snapshot_reset(&s);
  return rc;
}

int inlet_table_append(inlet_table *table, const inlet_batch *batches, size_t n,
                       const inlet_append_options *options, int64_t *version, inlet_error *err) {
  inlet_table_writer *w = NULL;
  TRY(inlet_table_writer_open(&w, table, options, err));
  int rc = 0;
  for (size_t i = 0; i < n && rc == 0; i++)
    rc = inlet_table_writer_write(w, &batches[i], err);
  if (rc == 0) rc = inlet_table_writer_commit(w, version, err);
  inlet_table_writer_free(w);
  return rc;
}
