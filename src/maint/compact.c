/*
 * Compaction (include/inlet/maint.h inlet_table_compact): small data files
 * of a partition are bin-packed and rewritten into files near the target
 * size, committed as OPTIMIZE with removes and adds of dataChange=false.
 *
 * Spec: PROTOCOL.md "Add File and Remove File" (dataChange=false marks a
 * rearrangement of existing data), "Commit Provenance Information",
 * "Per-file Statistics" (fresh stats on the new files), "Table Properties"
 * (delta.targetFileSize).
 *
 * Memory is bounded by configuration, not by the data: input files are
 * read one row group at a time and streamed into a Parquet writer whose
 * row groups are flushed at row_group_bytes. With --sort-by, rows are
 * buffered up to one output row group and sorted there (sorted runs per row
 * group, documented in docs: a global sort would need a k-way merge and
 * spilling; per-row-group order is what min/max stats of pages and row
 * groups use).
 *
 * Threads (o.threads > 1): the bins of up to o.threads commits are
 * rewritten at once on a pool (run_jobs), within a memory budget; the
 * commits are made on the caller's thread in plan order, so the thread
 * count changes neither the log nor the files' bytes.
 *
 * Concurrency: the plan comes from snapshot V. Before each commit the
 * commits after V are read once (incrementally) and the removes they hold
 * collected: a group whose input appears there, or any metaData/protocol
 * change, fails cleanly (its output files are deleted). The transaction
 * then reads the newest version seen, so concurrent appends cost nothing,
 * and delta_txn_commit's delete/delete rule covers races after that point
 * (two compactors never both remove a file).
 */
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>

#include "batch/batch.h"
#include "delta/delta_constraints.h"
#include "delta/delta_dv.h"
#include "delta/delta_features.h"
#include "delta/delta_row_tracking.h"
#include "delta/delta_table.h"
#include "maint/maint_int.h"
#include "parquet/pq_reader.h"
#include "util/buf.h"
#include "util/pool.h"
#include "util/util.h"

#define DEFAULT_TARGET ((int64_t)128 << 20)
#define DEFAULT_MIN_FILES 8
#define MAX_RG_BYTES ((int64_t)64 << 20)
/* Units rewritten side by side (--threads) are admitted while their
 * estimated memory (job_memory) stays within this, one always: with
 * threads bins in flight the 256 MiB bound of issue 18 still holds. */
#define PARALLEL_MEM_BUDGET ((int64_t)160 << 20)

typedef struct cand {
  int64_t file; /* index into snapshot files */
  char *label;  /* owned */
  char *key;    /* owned */
} cand;

typedef struct bin {
  int64_t first, n; /* range in the candidate array */
  int64_t bytes;
  int64_t rows; /* rows rewritten, once done */
} bin;

typedef struct out_file {
  delta_data_file df; /* through the table's write transaction (delta_write_txn.h) */
  int64_t bin;        /* the bin whose rows it holds */
} out_file;

/* Output files of the bins of one commit. */
typedef struct unit {
  out_file *files; /* owned */
  size_t n_files, cap_files;
} unit;

typedef struct compactor {
  inlet_table *table;  /* borrowed */
  delta_snapshot snap; /* owned: the version the plan reads */
  inlet_compact_options o;
  int64_t target;
  int32_t min_files;
  int64_t rg_bytes;
  /* owned: table schema minus partition columns, in physical names (and
   * field ids) on column-mapping tables: what the data files hold */
  inlet_schema data_schema;
  int32_t *table_col; /* owned: table schema column of each data column */
  int32_t *sort_cols; /* owned: data column of each sort key */
  bool rt_cols;       /* data_schema carries the materialized row tracking columns */
  cand *cands;        /* owned */
  int64_t n_cands;
  bin *bins; /* owned */
  int64_t n_bins;
  /* Rebase state: commits after snap.version already inspected. */
  int64_t seen_version;
  char **removed; /* owned: set of paths removed by those commits (open
                     addressing, NULL = empty slot, cap_removed a power of 2) */
  size_t n_removed, cap_removed;
  bool meta_changed;
  delta_file_sink sink;   /* naming, options and stats of the output files (jobs copy it) */
  delta_constraints cons; /* owned: invariants and CHECK constraints rows must meet */
  util_pool *pool;        /* owned: o.threads > 1; runs the jobs, lent to their writers */
  pq_buf_stash *stash;    /* owned: the output files' chunk buffers, file to file */
  /* owned: with a threaded pool over a storage whose reads spread over
   * threads: the handles that input files decoded ahead are read through */
  inlet_storage_handles *handles;
  pthread_t owner; /* the calling thread: the only one that reports progress */
  /* Progress in input bytes (sizes from the log): total of the planned bins,
   * bytes of the input files read so far (by any job), last value reported. */
  int64_t prog_total, prog_last;
  _Atomic int64_t prog_done;
} compactor;

/* The outputs of one commit: its bins rewritten, one after another, by a
 * task. Jobs of later commits may run beside it (--threads); a job touches
 * only its own fields and what the compactor holds read-only (snapshot,
 * plan, schemas, options), and the atomic progress counter. */
typedef struct job {
  compactor *c;               /* borrowed */
  int64_t b0, nb;             /* bins [b0, b0 + nb) */
  unit u;                     /* owned: the output files */
  delta_file_sink sink;       /* a copy of c->sink: its own file counter */
  delta_constraints *cons;    /* &own_cons, or &c->cons when jobs run one at a time */
  delta_constraints own_cons; /* owned: constraints keep scratch, so each job has its own */
  int64_t rows;               /* rows written by the job's bins */
  int64_t mem;                /* estimated memory (job_memory) */
  util_group g;               /* the task: waited for before the commit */
} job;

static void progress(compactor *c, int64_t done) {
  if (done > c->prog_total) done = c->prog_total;
  if (done < c->prog_last) done = c->prog_last;
  c->prog_last = done;
  delta_table_progress(c->table, "compact", "rewriting", "bytes", done, c->prog_total);
}

static void unit_reset(delta_file_sink *sink, unit *u, bool remove_files) {
  for (size_t i = 0; i < u->n_files; i++)
    delta_data_file_reset(sink, &u->files[i].df, remove_files);
  inlet_free(u->files);
  memset(u, 0, sizeof *u);
}

static void compactor_reset(compactor *c) {
  delta_snapshot_reset(&c->snap);
  inlet_schema_reset(&c->data_schema);
  inlet_free(c->table_col);
  inlet_free(c->sort_cols);
  for (int64_t i = 0; i < c->n_cands; i++) {
    inlet_free(c->cands[i].label);
    inlet_free(c->cands[i].key);
  }
  inlet_free(c->cands);
  inlet_free(c->bins);
  for (size_t i = 0; i < c->cap_removed; i++)
    inlet_free(c->removed[i]);
  inlet_free(c->removed);
  delta_constraints_reset(&c->cons);
  util_pool_free(c->pool);
  pq_buf_stash_free(c->stash); /* after the jobs: their files gave their buffers back */
}

/* ---- planning ------------------------------------------------------------------ */

static const delta_add *cand_add(const compactor *c, int64_t i) {
  return &c->snap.files[c->cands[i].file].add;
}

static int cand_cmp(const void *pa, const void *pb, void *ctx) {
  const compactor *c = ctx;
  const cand *a = pa, *b = pb;
  int k = strcmp(a->key, b->key);
  if (k) return k;
  const delta_add *x = &c->snap.files[a->file].add, *y = &c->snap.files[b->file].add;
  /* Oldest first: bins then hold neighbouring arrivals (time locality). */
  if (x->modification_time != y->modification_time)
    return x->modification_time < y->modification_time ? -1 : 1;
  return strcmp(x->path, y->path);
}

/* qsort has no context argument in C11: a small insertion/merge sort. */
static void cand_sort(compactor *c) {
  int64_t n = c->n_cands;
  if (n < 2) return;
  cand *tmp = inlet_malloc((size_t)n * sizeof *tmp);
  if (!tmp) { /* fall back to insertion sort: correct, only slower */
    for (int64_t i = 1; i < n; i++)
      for (int64_t j = i; j > 0 && cand_cmp(&c->cands[j - 1], &c->cands[j], c) > 0; j--) {
        cand t = c->cands[j];
        c->cands[j] = c->cands[j - 1];
        c->cands[j - 1] = t;
      }
    return;
  }
  for (int64_t w = 1; w < n; w *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * w) {
      int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      int64_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi)
        tmp[k++] = cand_cmp(&c->cands[i], &c->cands[j], c) <= 0 ? c->cands[i++] : c->cands[j++];
      while (i < mid)
        tmp[k++] = c->cands[i++];
      while (j < hi)
        tmp[k++] = c->cands[j++];
    }
    memcpy(c->cands, tmp, (size_t)n * sizeof *tmp);
  }
  inlet_free(tmp);
}

/* keep[i]: whether file i lies in a partition `--where` selects. */
static int select_partitions(compactor *c, uint8_t *keep, inlet_error *err) {
  int64_t n = c->snap.n_files;
  if (!c->o.where) {
    memset(keep, 1, (size_t)n);
    return 0;
  }
  inlet_predicate *pred = NULL;
  TRY(maint_where_parse(&pred, c->o.where, &c->snap.schema, &c->snap.metadata, err));
  const delta_add **adds = inlet_calloc((size_t)n + 1, sizeof *adds);
  int rc = adds ? 0 : inlet_fail(err, INLET_ENOMEM, "out of memory planning compaction");
  for (int64_t i = 0; rc == 0 && i < n; i++)
    adds[i] = &c->snap.files[i].add;
  if (rc == 0) rc = maint_where_match(pred, delta_snapshot_physical(&c->snap), adds, n, keep, err);
  inlet_free(adds);
  expr_free(pred);
  return rc;
}

static int plan(compactor *c, inlet_compact_result *res, inlet_error *err) {
  uint8_t *keep = inlet_malloc((size_t)c->snap.n_files + 1);
  if (!keep) return inlet_fail(err, INLET_ENOMEM, "out of memory planning compaction");
  int rc = select_partitions(c, keep, err);
  if (rc < 0) goto done;
  c->cands = inlet_calloc((size_t)c->snap.n_files + 1, sizeof *c->cands);
  FAIL_GOTO(!c->cands, err, INLET_ENOMEM, "out of memory planning compaction");
  for (int64_t i = 0; i < c->snap.n_files; i++) {
    const delta_add *a = &c->snap.files[i].add;
    /* A file with a deletion vector is rewritten whatever its size: the
     * rewrite purges its deleted rows. */
    if ((a->size >= c->target && !a->dv_json) || !keep[i]) continue;
    cand *cd = &c->cands[c->n_cands];
    TRY_GOTO(maint_partition_names(&cd->label, &cd->key, a, &c->snap, err));
    cd->file = i;
    c->n_cands++;
  }
  cand_sort(c);
  c->bins = inlet_calloc((size_t)c->n_cands + 1, sizeof *c->bins);
  FAIL_GOTO(!c->bins, err, INLET_ENOMEM, "out of memory planning compaction");
  for (int64_t s = 0; s < c->n_cands;) {
    int64_t e = s;
    while (e < c->n_cands && strcmp(c->cands[e].key, c->cands[s].key) == 0)
      e++;
    bool any_dv = false;
    for (int64_t i = s; i < e; i++)
      any_dv |= cand_add(c, i)->dv_json != NULL;
    if (e - s >= c->min_files || any_dv) {
      res->partitions++;
      /* Next-fit packing in arrival order: a bin closes when the next file
       * would take it past the target. Single-file bins are no gain,
       * unless the file has deleted rows to purge. */
      int64_t b0 = s;
      int64_t bytes = 0;
      bool bin_dv = false;
      for (int64_t i = s; i <= e; i++) {
        int64_t sz = i < e ? cand_add(c, i)->size : 0;
        if (i == e || (i > b0 && inlet_add_sat_i64(bytes, sz) > c->target)) {
          if (i - b0 >= 2 || (i > b0 && bin_dv)) c->bins[c->n_bins++] = (bin){b0, i - b0, bytes, 0};
          b0 = i;
          bytes = 0;
          bin_dv = false;
        }
        if (i < e) bin_dv |= cand_add(c, i)->dv_json != NULL;
        bytes = inlet_add_sat_i64(bytes, sz); /* sizes come from the log */
      }
    }
    s = e;
  }
  if (c->o.max_bins > 0 && c->n_bins > c->o.max_bins) c->n_bins = c->o.max_bins;
done:
  inlet_free(keep);
  return rc;
}

/* ---- rewriting ------------------------------------------------------------------- */

static int out_open(job *j, int64_t bi, const char *dir, inlet_error *err) {
  unit *u = &j->u;
  if (u->n_files == u->cap_files) {
    size_t nc = u->cap_files ? u->cap_files * 2 : 4;
    out_file *nf = inlet_realloc(u->files, nc * sizeof *nf);
    if (!nf) return inlet_fail(err, INLET_ENOMEM, "out of memory");
    u->files = nf;
    u->cap_files = nc;
  }
  out_file *f = &u->files[u->n_files++];
  memset(f, 0, sizeof *f);
  f->bin = bi;
  return delta_data_file_open(&j->sink, &f->df, dir, err);
}

static int out_close(job *j, out_file *f, const char *dir, inlet_error *err) {
  return delta_data_file_close(&j->sink, &f->df, dir, err);
}

/* Writes @p b (data schema) to the unit's current output, rolling to a new
 * file once the current one reaches the target. @p raw (NULL, or one entry
 * per data column): the pages @p b was decoded from, copied where they fit
 * (raw_pages.h). */
static int emit(job *j, int64_t bi, size_t first_out, const char *dir, const inlet_batch *b,
                const pq_raw_chunk *raw, inlet_error *err) {
  unit *u = &j->u;
  if (b->num_rows == 0) return 0;
  if (u->n_files == first_out || !u->files[u->n_files - 1].df.pw) TRY(out_open(j, bi, dir, err));
  out_file *f = &u->files[u->n_files - 1];
  TRY(delta_data_file_write_pages(&f->df, b, raw, err));
  if (inlet_parquet_writer_bytes(f->df.pw) >= j->c->target) TRY(out_close(j, f, dir, err));
  return 0;
}

/* ---- sorting within a row group ---------------------------------------------------- */

/* Buffered rows awaiting a sort: whole input batches (owned). */
typedef struct sort_buf {
  inlet_batch *batches; /* owned */
  size_t n, cap;
  int64_t rows, bytes;
} sort_buf;

static void sort_buf_reset(sort_buf *s) {
  for (size_t i = 0; i < s->n; i++)
    inlet_batch_reset(&s->batches[i]);
  inlet_free(s->batches);
  memset(s, 0, sizeof *s);
}

typedef struct row_ref {
  uint32_t batch;
  int64_t row;
} row_ref;

static int cmp_value(const inlet_field *f, const inlet_array *x, int64_t i, const inlet_array *y,
                     int64_t j) {
  bool vx = inlet_array_is_valid(x, i), vy = inlet_array_is_valid(y, j);
  if (!vx || !vy) return vx == vy ? 0 : vx ? 1 : -1; /* nulls first */
  switch (f->type.id) {
  case INLET_TYPE_BOOL: return (int)inlet_bit_get(x->values, i) - (int)inlet_bit_get(y->values, j);
  case INLET_TYPE_STRING:
  case INLET_TYPE_BINARY: {
    size_t lx = (size_t)(x->offsets[i + 1] - x->offsets[i]);
    size_t ly = (size_t)(y->offsets[j + 1] - y->offsets[j]);
    int k = memcmp(x->values + x->offsets[i], y->values + y->offsets[j], lx < ly ? lx : ly);
    return k ? k : (lx < ly ? -1 : lx > ly);
  }
  case INLET_TYPE_FLOAT: {
    float a = ((const float *)x->values)[i], b = ((const float *)y->values)[j];
    return a < b ? -1 : a > b;
  }
  case INLET_TYPE_DOUBLE: {
    double a = ((const double *)x->values)[i], b = ((const double *)y->values)[j];
    return a < b ? -1 : a > b;
  }
  default: {
    int32_t w = inlet_type_value_width(&f->type);
    int64_t a, b;
    switch (w) {
    case 1:
      a = ((const int8_t *)x->values)[i];
      b = ((const int8_t *)y->values)[j];
      break;
    case 2:
      a = ((const int16_t *)x->values)[i];
      b = ((const int16_t *)y->values)[j];
      break;
    case 4:
      a = ((const int32_t *)x->values)[i];
      b = ((const int32_t *)y->values)[j];
      break;
    case 8:
      a = ((const int64_t *)x->values)[i];
      b = ((const int64_t *)y->values)[j];
      break;
    default: return 0; /* decimals, fixed binary: order not defined here (checked at open) */
    }
    return a < b ? -1 : a > b;
  }
  }
}

static int cmp_rows(const compactor *c, const sort_buf *s, const row_ref *a, const row_ref *b) {
  for (int32_t k = 0; k < c->o.n_sort_by; k++) {
    int32_t col = c->sort_cols[k];
    const inlet_field *f = &c->data_schema.fields[col];
    int r = cmp_value(f, &s->batches[a->batch].columns[col], a->row,
                      &s->batches[b->batch].columns[col], b->row);
    if (r) return r;
  }
  /* Stable: arrival order breaks ties. */
  if (a->batch != b->batch) return a->batch < b->batch ? -1 : 1;
  return a->row < b->row ? -1 : a->row > b->row;
}

static int flush_sorted(job *jb, int64_t bi, size_t first_out, const char *dir, sort_buf *s,
                        inlet_error *err) {
  const compactor *c = jb->c;
  if (s->rows == 0) return 0;
  int rc = 0;
  row_ref *refs = inlet_malloc((size_t)s->rows * sizeof *refs);
  row_ref *tmp = inlet_malloc((size_t)s->rows * sizeof *tmp);
  inlet_batch out;
  memset(&out, 0, sizeof out);
  FAIL_GOTO(!refs || !tmp, err, INLET_ENOMEM, "out of memory sorting %lld rows",
            (long long)s->rows);
  int64_t n = 0;
  for (size_t b = 0; b < s->n; b++)
    for (int64_t r = 0; r < s->batches[b].num_rows; r++)
      refs[n++] = (row_ref){(uint32_t)b, r};
  for (int64_t w = 1; w < n; w *= 2) { /* bottom-up merge sort: stable, O(n log n) */
    for (int64_t lo = 0; lo < n; lo += 2 * w) {
      int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      int64_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi)
        tmp[k++] = cmp_rows(c, s, &refs[i], &refs[j]) <= 0 ? refs[i++] : refs[j++];
      while (i < mid)
        tmp[k++] = refs[i++];
      while (j < hi)
        tmp[k++] = refs[j++];
    }
    memcpy(refs, tmp, (size_t)n * sizeof *tmp);
  }
  TRY_GOTO(inlet_batch_init(&out, &c->data_schema, err));
  for (int32_t col = 0; col < c->data_schema.n_fields; col++) {
    const inlet_field *f = &c->data_schema.fields[col];
    TRY_GOTO(inlet_array_reserve_rows(&out.columns[col], f, n, err));
    for (int64_t k = 0; k < n; k++)
      TRY_GOTO(inlet_array_append_from(&out.columns[col], f,
                                       &s->batches[refs[k].batch].columns[col], refs[k].row, err));
  }
  out.num_rows = n;
  sort_buf_reset(s);
  rc = emit(jb, bi, first_out, dir, &out, NULL, err);
done:
  inlet_batch_reset(&out);
  inlet_free(refs);
  inlet_free(tmp);
  return rc;
}

/* ---- one bin ------------------------------------------------------------------------- */

/* The rows of @p nb (data columns of input @p a) must meet the table's
 * constraints: compaction never writes a file holding a violating row, even
 * one an earlier writer committed without checking (the group then fails
 * and its inputs stay as they are). Partition columns a constraint reads
 * hold the file's partition value. */
static int check_rows(const compactor *c, delta_constraints *cons, const inlet_batch *nb,
                      const delta_add *a, inlet_error *err) {
  if (!delta_constraints_any(cons) || nb->num_rows == 0) return 0;
  const inlet_schema *ts = &c->snap.schema;
  inlet_batch view;
  memset(&view, 0, sizeof view);
  view.schema = *ts; /* borrowed */
  view.num_rows = nb->num_rows;
  view.columns = inlet_calloc((size_t)ts->n_fields + 1, sizeof *view.columns);
  uint8_t *owned = inlet_calloc((size_t)ts->n_fields + 1, 1);
  int rc = view.columns && owned ? 0 : inlet_fail(err, INLET_ENOMEM, "out of memory");
  for (int32_t i = 0, d = 0; rc == 0 && i < ts->n_fields; i++) {
    if (d < c->data_schema.n_fields && c->table_col[d] == i) {
      const inlet_field *tf = &ts->fields[i], *df = &c->data_schema.fields[d];
      if (!delta_variant_in(tf) || !c->cons.used || !c->cons.used[i]) {
        view.columns[i] = nb->columns[d++]; /* shallow (an unused variant stays binary) */
        continue;
      }
      /* A constraint reads this variant column: as its JSON text, as scans
       * give it. Variants inside structs, lists or maps stay refused. */
      owned[i] = 1;
      rc = tf->type.id == INLET_TYPE_STRING
               ? inlet_array_init(&view.columns[i], tf, err)
               : inlet_fail(err, INLET_EUNSUPPORTED,
                            "cannot compact \"%s\": a constraint reads column \"%s\", "
                            "which holds a nested variant",
                            a->path, tf->name);
      if (rc == 0)
        rc = delta_conform_column(&view.columns[i], tf, tf, (inlet_array *)&nb->columns[d], df,
                                  nb->num_rows, a->path, err);
      d++;
      continue;
    }
    if (!cons->used || !cons->used[i]) continue;
    bool found;
    const char *v =
        maint_partition_value(a, maint_physical_name(&c->snap, ts->fields[i].name), &found);
    owned[i] = 1;
    rc = inlet_array_init(&view.columns[i], &ts->fields[i], err);
    if (rc == 0)
      rc = delta_partition_value_append(&view.columns[i], &ts->fields[i], v, nb->num_rows, err);
  }
  if (rc == 0) {
    rc = delta_constraints_check(cons, &view, 0, nb->num_rows, -1, NULL, NULL, err);
    if (rc == INLET_EINVAL)
      inlet_error_prefix(
          err, "cannot compact \"%s\": it holds a row that breaks a table constraint", a->path);
  }
  for (int32_t i = 0; view.columns && i < ts->n_fields; i++)
    if (owned && owned[i]) inlet_array_reset(&view.columns[i]);
  inlet_free(view.columns);
  inlet_free(owned);
  return rc;
}

/* Whether the caller of inlet_table_compact runs this: progress is
 * reported on that thread only (include/inlet/common.h). */
static bool on_owner(const compactor *c) {
  return pthread_equal(pthread_self(), c->owner) != 0;
}

/* Takes one decoded row group of an input file (nb, in the data schema;
 * the callee owns it from here, also on failure): row group @p g of
 * @p nrg, and @p raw (NULL, or owned like @p nb: one entry per data
 * column) the compressed pages its columns were decoded from, where they
 * were captured. */
typedef int (*batch_fn)(void *ctx, inlet_batch *nb, pq_raw_chunk *raw, int32_t g, int32_t nrg,
                        inlet_error *err);

/* Clones of an input's reader that decode a row group's columns side by
 * side (pq_reader_read_row_group_parts), each reading through a handle of
 * the compactor's set. */
typedef struct column_parts {
  inlet_storage_handles *hs;    /* borrowed */
  inlet_parquet_reader **parts; /* owned, n */
  inlet_storage **handles;      /* taken from hs, n */
  int32_t n;
} column_parts;

static void column_parts_reset(column_parts *cp) {
  for (int32_t i = 0; i < cp->n; i++) {
    inlet_parquet_reader_free(cp->parts[i]); /* closes its file before the handle goes */
    if (cp->handles[i]) inlet_storage_handles_give(cp->hs, cp->handles[i]);
  }
  inlet_free(cp->parts);
  inlet_free(cp->handles);
  memset(cp, 0, sizeof *cp);
}

/* Up to @p want clones of @p r over input @p a. */
static int column_parts_open(column_parts *cp, inlet_storage_handles *hs, inlet_parquet_reader *r,
                             const delta_add *a, int32_t want, inlet_error *err) {
  memset(cp, 0, sizeof *cp);
  cp->hs = hs;
  cp->parts = inlet_calloc((size_t)want, sizeof *cp->parts);
  cp->handles = inlet_calloc((size_t)want, sizeof *cp->handles);
  if (!cp->parts || !cp->handles) {
    column_parts_reset(cp);
    return inlet_fail(err, INLET_ENOMEM, "out of memory");
  }
  for (int32_t i = 0; i < want; i++) {
    inlet_storage *st = NULL;
    TRY(inlet_storage_handles_take(hs, &st, err));
    cp->handles[cp->n] = st;
    inlet_rfile *rf = NULL;
    int rc = a->size >= 0 ? st->ops->open_read_sized(st, a->path, a->size, &rf, err)
                          : st->ops->open_read(st, a->path, &rf, err);
    if (rc == 0) rc = pq_reader_clone(&cp->parts[cp->n], r, rf, err);
    cp->n++; /* its handle goes back on reset, with or without a clone */
    if (rc < 0) return rc;
  }
  return 0;
}

/* Reads input @p a through @p st one row group at a time, each laid out in
 * the data schema with row tracking filled and the rows its deletion vector
 * deletes dropped, and hands the row groups to @p fn in order. *rows
 * receives the live rows. Touches only what the compactor holds read-only,
 * so it may run on any thread. With @p hs (the job's thread, a threaded
 * pool), each row group's columns are decoded side by side on the pool by
 * clones of the reader reading through handles of @p hs. */
static int decode_file(const compactor *c, inlet_storage *st, inlet_storage_handles *hs,
                       const delta_add *a, int64_t stats_rows, batch_fn fn, void *ctx,
                       int64_t *rows, inlet_error *err) {
  inlet_parquet_reader *r = NULL;
  int32_t *idx = NULL;
  delta_dv *dv = NULL;
  uint8_t *keep = NULL;
  column_parts cp;
  memset(&cp, 0, sizeof cp);
  inlet_batch b, nb;
  memset(&b, 0, sizeof b);
  memset(&nb, 0, sizeof nb);
  pq_raw_chunk *cap = NULL, *raw = NULL; /* owned: n_proj and nd entries */
  int32_t nd = c->data_schema.n_fields, n_proj = 0;
  int rc = pq_reader_open_storage(&r, st, a->path, a->size, NULL, err);
  if (rc < 0) {
    inlet_error_prefix(err, "compacting \"%s\"", a->path);
    return rc;
  }
  const inlet_schema *fs = inlet_parquet_reader_schema(r);
  idx = inlet_calloc((size_t)nd + 1, sizeof *idx); /* file column of each table column */
  int32_t *proj = inlet_calloc((size_t)nd + 1, sizeof *proj);
  if (!idx || !proj) {
    inlet_free(proj);
    rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
    goto done;
  }
  for (int32_t i = 0; i < nd; i++) {
    const inlet_field *tf = &c->data_schema.fields[i];
    /* By field id, then physical name (column mapping), as scans read. */
    int k = delta_cm_find_field(fs->fields, fs->n_fields, tf);
    idx[i] = -1;
    if (k < 0) {
      /* A column added to the table after the file was written: nulls,
       * as readers see it (PROTOCOL.md "Schema Evolution"). */
      if (tf->nullable) continue;
      inlet_free(proj);
      rc =
          inlet_fail(err, INLET_ECORRUPT, "\"%s\" lacks NOT NULL column \"%s\"", a->path, tf->name);
      goto done;
    }
    idx[i] = n_proj;
    proj[n_proj++] = k;
  }
  /* Projecting nothing would mean "all columns" to the reader. */
  rc = n_proj ? inlet_parquet_reader_project(r, proj, n_proj, err)
              : inlet_fail(err, INLET_EUNSUPPORTED,
                           "cannot compact \"%s\": it holds none of "
                           "the table's columns",
                           a->path);
  inlet_free(proj);
  if (rc < 0) goto done;
  int64_t file_rows = inlet_parquet_reader_num_rows(r);
  FAIL_GOTO(stats_rows >= 0 && stats_rows != file_rows, err, INLET_ECORRUPT,
            "\"%s\": stats say %lld rows, the file holds %lld", a->path, (long long)stats_rows,
            (long long)file_rows);
  /* The file's deletion vector is applied: its deleted rows are dropped
   * and the new file carries none (PROTOCOL.md "Deletion Vectors"). */
  if (a->dv_json) {
    rc = delta_dv_load(st, delta_table_root(c->table), a->path, a->dv_json, &dv, err);
    if (rc < 0) {
      inlet_error_prefix(err, "compacting \"%s\"", a->path);
      goto done;
    }
  }
  int32_t nrg = inlet_parquet_reader_num_row_groups(r);
  int32_t want = hs ? util_pool_threads(c->pool) : 0;
  if (want > n_proj) want = n_proj;
  if (want >= 2 && nrg > 0) {
    rc = column_parts_open(&cp, hs, r, a, want, err);
    if (rc < 0) {
      inlet_error_prefix(err, "compacting \"%s\"", a->path);
      goto done;
    }
  }
  /* The pages of columns read whole are kept for the writer to copy
   * (raw_pages.h), except where rows are reordered (sort) or row tracking
   * columns are filled in. */
  if (c->o.n_sort_by == 0 && !c->rt_cols) {
    cap = inlet_calloc((size_t)n_proj, sizeof *cap);
    FAIL_GOTO(!cap, err, INLET_ENOMEM, "out of memory");
    pq_reader_capture_pages(r, cap);
  }
  int64_t got = 0, live = 0;
  for (int32_t g = 0; g < nrg; g++) {
    rc = pq_reader_read_row_group_parts(r, cp.parts, cp.n, c->pool, g, &b, err);
    if (rc < 0) {
      inlet_error_prefix(err, "compacting \"%s\" row group %d", a->path, (int)g);
      goto done;
    }
    FAIL_GOTO(b.schema.n_fields != n_proj, err, INLET_EINTERNAL,
              "\"%s\": projection of %d "
              "columns read %d",
              a->path, (int)n_proj, (int)b.schema.n_fields);
    /* Re-lay the columns in the table's data schema (moving buffers, not
     * copying): the file's fields may differ in order, nullability or
     * metadata, and may lack columns added later. */
    TRY_GOTO(inlet_batch_init(&nb, &c->data_schema, err));
    for (int32_t i = 0; i < nd; i++) {
      const inlet_field *tf = &c->data_schema.fields[i];
      if (idx[i] >= 0) {
        /* A type stored otherwise (INT96, widened, nested fields added
         * later) is read as scans read it; one that does not convert fails
         * the bin. */
        TRY_GOTO(maint_take_column(&nb.columns[i], tf, tf, &b.columns[idx[i]],
                                   &b.schema.fields[idx[i]], b.num_rows, a->path, g, err));
      } else {
        for (int64_t k = 0; k < b.num_rows; k++)
          TRY_GOTO(inlet_array_append_null(&nb.columns[i], tf, err));
      }
    }
    nb.num_rows = b.num_rows;
    TRY_GOTO(delta_rt_fill(&nb, &c->snap.metadata, a, got, err));
    bool dropped = dv && delta_dv_count_range(dv, (uint64_t)got, (uint64_t)(got + b.num_rows)) > 0;
    /* A column's pages (or dictionary indices) go along when they hold
     * exactly its values: read in the table's type, no row deleted. */
    if (cap && !dropped)
      TRY_GOTO(maint_take_pages(&raw, cap, idx, &c->data_schema, &b.schema, err));
    if (dropped) {
      uint8_t *k = inlet_realloc(keep, (size_t)b.num_rows + 1);
      FAIL_GOTO(!k, err, INLET_ENOMEM, "out of memory applying a deletion vector");
      keep = k;
      for (int64_t i = 0; i < b.num_rows; i++)
        keep[i] = !delta_dv_contains(dv, (uint64_t)(got + i));
      TRY_GOTO(batch_keep_rows(&nb, keep, err));
    }
    got += b.num_rows;
    live += nb.num_rows;
    inlet_batch taken = nb; /* moved to fn, with raw */
    memset(&nb, 0, sizeof nb);
    pq_raw_chunk *taken_raw = raw;
    raw = NULL;
    TRY_GOTO(fn(ctx, &taken, taken_raw, g, nrg, err));
  }
  FAIL_GOTO(got != file_rows, err, INLET_ECORRUPT,
            "\"%s\": footer says %lld rows, row groups "
            "hold %lld",
            a->path, (long long)file_rows, (long long)got);
  FAIL_GOTO(dv && got - live != (int64_t)delta_dv_cardinality(dv), err, INLET_ECORRUPT,
            "\"%s\": its deletion vector deletes %llu rows, %lld of them exist", a->path,
            (unsigned long long)delta_dv_cardinality(dv), (long long)(got - live));
  *rows = live;
done:
  inlet_batch_reset(&b);
  inlet_batch_reset(&nb);
  pq_raw_chunks_free(raw, nd);
  pq_reader_capture_pages(r, NULL);
  pq_raw_chunks_free(cap, n_proj);
  inlet_free(idx);
  inlet_free(keep);
  delta_dv_free(dv);
  column_parts_reset(&cp); /* the clones borrow r's footer */
  inlet_parquet_reader_free(r);
  return rc;
}

/* Where the row groups of an input go: bin @p bi of job @p j. */
typedef struct bin_input {
  job *j;
  int64_t bi;
  size_t first_out;
  const char *dir;
  const delta_add *a;
  sort_buf *sb;
} bin_input;

/* batch_fn of the job's thread: checks the rows against the constraints,
 * reports progress and writes them (or buffers them for the sort). */
static int write_batch(void *ctx, inlet_batch *nb, pq_raw_chunk *raw, int32_t g, int32_t nrg,
                       inlet_error *err) {
  bin_input *in = ctx;
  job *j = in->j;
  compactor *c = j->c;
  const delta_add *a = in->a;
  sort_buf *sb = in->sb;
  int rc = check_rows(c, j->cons, nb, a, err);
  if (rc < 0) goto done;
  if (a->size > 0 && on_owner(c))
    progress(c, inlet_add_sat_i64(atomic_load(&c->prog_done),
                                  (int64_t)((double)a->size * (g + 1) / (double)nrg)));
  if (c->o.n_sort_by > 0) {
    if (sb->n == sb->cap) {
      size_t nc = sb->cap ? sb->cap * 2 : 8;
      inlet_batch *nbs = inlet_realloc(sb->batches, nc * sizeof *nbs);
      FAIL_GOTO(!nbs, err, INLET_ENOMEM, "out of memory");
      sb->batches = nbs;
      sb->cap = nc;
    }
    sb->rows += nb->num_rows;
    sb->bytes += inlet_batch_memory(nb);
    sb->batches[sb->n++] = *nb; /* moved */
    memset(nb, 0, sizeof *nb);
    if (sb->bytes >= c->rg_bytes) rc = flush_sorted(j, in->bi, in->first_out, in->dir, sb, err);
    goto done;
  }
  rc = emit(j, in->bi, in->first_out, in->dir, nb, raw, err);
done:
  inlet_batch_reset(nb);
  pq_raw_chunks_free(raw, c->data_schema.n_fields);
  return rc;
}

/* ---- inputs decoded ahead ------------------------------------------------------------ */

/* With a pool, the small input files of a bin are decoded on the pool a few
 * files ahead of the one being written (the decoding was the job thread's
 * largest share). The job's thread still checks, orders and writes every
 * row group, so the output and the first error are a single thread's.
 * Ahead files are whole files held decoded: only files of at most
 * AHEAD_FILE_BYTES, at most AHEAD_BYTES of them (their size in the log) at
 * once per job; bigger files are read row group by row group as before. */
#define AHEAD_FILE_BYTES ((int64_t)4 << 20)
#define AHEAD_BYTES ((int64_t)4 << 20)

typedef struct ahead_file {
  const compactor *c;        /* borrowed */
  inlet_storage_handles *hs; /* borrowed: the compactor's */
  const delta_add *a;        /* borrowed */
  int64_t stats_rows;
  util_group g;         /* the decode task */
  bool queued;          /* decoded ahead (else read in place) */
  inlet_batch *batches; /* owned, n of them */
  pq_raw_chunk **raws;  /* owned: each batch's pages (batch_fn), or NULL */
  int32_t *rgs;         /* owned: row group of each batch */
  size_t n, cap;
  int32_t nrg;
  int64_t rows; /* live rows, once decoded */
} ahead_file;

static void ahead_file_reset(ahead_file *f) {
  for (size_t i = 0; i < f->n; i++) {
    inlet_batch_reset(&f->batches[i]);
    pq_raw_chunks_free(f->raws[i], f->c->data_schema.n_fields);
  }
  inlet_free(f->batches);
  inlet_free(f->raws);
  inlet_free(f->rgs);
  f->batches = NULL;
  f->raws = NULL;
  f->rgs = NULL;
  f->n = f->cap = 0;
  f->queued = false;
}

/* batch_fn of a decode task: keeps the row group for the job's thread. */
static int keep_batch(void *ctx, inlet_batch *nb, pq_raw_chunk *raw, int32_t g, int32_t nrg,
                      inlet_error *err) {
  ahead_file *f = ctx;
  f->nrg = nrg;
  if (f->n == f->cap) {
    size_t nc = f->cap ? f->cap * 2 : 4;
    inlet_batch *nbs = inlet_realloc(f->batches, nc * sizeof *nbs);
    if (nbs) f->batches = nbs;
    int32_t *ng = nbs ? inlet_realloc(f->rgs, nc * sizeof *ng) : NULL;
    if (ng) f->rgs = ng;
    pq_raw_chunk **nr = ng ? inlet_realloc(f->raws, nc * sizeof *nr) : NULL;
    if (nr) f->raws = nr;
    if (!nbs || !ng || !nr) {
      inlet_batch_reset(nb);
      pq_raw_chunks_free(raw, f->c->data_schema.n_fields);
      return inlet_fail(err, INLET_ENOMEM, "out of memory decoding \"%s\"", f->a->path);
    }
    f->cap = nc;
  }
  f->raws[f->n] = raw; /* moved */
  f->rgs[f->n] = g;
  f->batches[f->n++] = *nb; /* moved */
  memset(nb, 0, sizeof *nb);
  return 0;
}

static int decode_task(void *arg, inlet_error *err) {
  ahead_file *f = arg;
  inlet_storage *st = NULL;
  TRY(inlet_storage_handles_take(f->hs, &st, err));
  int rc = decode_file(f->c, st, NULL, f->a, f->stats_rows, keep_batch, f, &f->rows, err);
  inlet_storage_handles_give(f->hs, st);
  return rc;
}

/* Writes an input decoded ahead: its row groups in order, then the
 * decoder's failure if it stopped early (a single thread meets that
 * failure after writing the same row groups). */
static int write_ahead(bin_input *in, ahead_file *f, int64_t *rows, inlet_error *err) {
  inlet_error de = INLET_ERROR_INIT;
  int drc = util_group_wait(&f->g, &de);
  int rc = 0;
  for (size_t i = 0; rc == 0 && i < f->n; i++) {
    rc = write_batch(in, &f->batches[i], f->raws[i], f->rgs[i], f->nrg, err);
    f->raws[i] = NULL; /* write_batch took it */
  }
  if (rc == 0 && drc < 0) {
    rc = drc;
    *err = de;
  }
  *rows = f->rows;
  ahead_file_reset(f);
  return rc;
}

static int partition_dir(char **out, const char *path) {
  const char *slash = strrchr(path, '/');
  *out = slash ? inlet_strndup(path, (size_t)(slash - path)) : inlet_strdup("");
  return *out ? 0 : INLET_ENOMEM;
}

/* Rewrites bin @p bi into new files appended to the job's unit; *rows:
 * rows written. */
static int rewrite_bin(job *j, int64_t bi, int64_t *rows, inlet_error *err) {
  compactor *c = j->c;
  unit *u = &j->u;
  const bin *bn = &c->bins[bi];
  char *dir = NULL;
  if (partition_dir(&dir, cand_add(c, bn->first)->path) < 0)
    return inlet_fail(err, INLET_ENOMEM, "out of memory");
  size_t first_out = u->n_files;
  sort_buf sb;
  memset(&sb, 0, sizeof sb);
  int rc = 0;
  int64_t in_rows = 0;
  /* Decoded ahead: a ring of `window` files from the one being written,
   * more than the pool's threads so that they decode the next files while
   * this thread writes (with pages copied, writing is quick: a ring of
   * only the pool's threads left one of two cores waiting). */
  int64_t end = bn->first + bn->n, next = bn->first, ahead_bytes = 0;
  int window = c->handles ? util_pool_threads(c->pool) + 3 : 0;
  ahead_file *ring = window > 0 ? inlet_calloc((size_t)window, sizeof *ring) : NULL;
  if (!ring) window = 0;
  for (int64_t i = bn->first; i < end; i++) {
    while (window > 0 && next < end && next - i < window) {
      const delta_file *nf = &c->snap.files[c->cands[next].file];
      ahead_file *f = &ring[next % window];
      int64_t sz = nf->add.size > 0 ? nf->add.size : 0;
      bool small = nf->add.size >= 0 && sz <= AHEAD_FILE_BYTES;
      if (small && ahead_bytes + sz > AHEAD_BYTES) break; /* after files are written */
      memset(f, 0, sizeof *f);
      if (small) {
        f->c = c;
        f->hs = c->handles;
        f->a = &nf->add;
        f->stats_rows = nf->num_records;
        f->queued = true;
        ahead_bytes += sz;
        util_group_init(&f->g, c->pool);
        util_group_submit(&f->g, decode_task, f);
      }
      next++;
    }
    const delta_file *df = &c->snap.files[c->cands[i].file];
    bin_input in = {j, bi, first_out, dir, &df->add, &sb};
    int64_t r = 0;
    if (window > 0 && ring[i % window].queued) {
      rc = write_ahead(&in, &ring[i % window], &r, err);
      ahead_bytes -= df->add.size > 0 ? df->add.size : 0;
    } else {
      rc = decode_file(c, j->sink.st, c->handles, &df->add, df->num_records, write_batch, &in, &r,
                       err);
    }
    if (rc < 0) goto done;
    if (df->add.size > 0) atomic_fetch_add(&c->prog_done, df->add.size);
    if (on_owner(c)) progress(c, atomic_load(&c->prog_done));
    in_rows += r;
  }
  TRY_GOTO(flush_sorted(j, bi, first_out, dir, &sb, err));
  int64_t out_rows = 0;
  for (size_t k = first_out; k < u->n_files; k++) {
    TRY_GOTO(out_close(j, &u->files[k], dir, err));
    out_rows += u->files[k].df.rows;
    FAIL_GOTO(delta_stats_rows(u->files[k].df.stats) != u->files[k].df.rows, err, INLET_EINTERNAL,
              "compaction output \"%s\": stats count %lld rows, file %lld", u->files[k].df.rel_path,
              (long long)delta_stats_rows(u->files[k].df.stats), (long long)u->files[k].df.rows);
  }
  FAIL_GOTO(out_rows != in_rows, err, INLET_EINTERNAL,
            "compaction of partition \"%s\" read %lld "
            "rows but wrote %lld",
            c->cands[bn->first].label, (long long)in_rows, (long long)out_rows);
  *rows = out_rows;
done:
  /* After a failure, decodes still in flight finish (a task cannot be
   * recalled) and what they decoded goes. */
  for (int w = 0; w < window; w++)
    if (ring[w].queued) {
      inlet_error ignore = INLET_ERROR_INIT;
      (void)util_group_wait(&ring[w].g, &ignore);
      ahead_file_reset(&ring[w]);
    }
  inlet_free(ring);
  sort_buf_reset(&sb);
  inlet_free(dir);
  return rc;
}

/* ---- committing ------------------------------------------------------------------------ */

/* The removed paths are a hash set: a compaction rebases before each of
 * its commits and checks every input, and the set holds its own removes
 * too, so a list would cost O(files) per commit. */
static uint64_t path_hash(const char *p) {
  uint64_t h = 1469598103934665603ull;
  for (; *p; p++)
    h = (h ^ (unsigned char)*p) * 1099511628211ull;
  return h;
}

static size_t removed_slot(char *const *slots, size_t cap, const char *path) {
  size_t i = (size_t)path_hash(path) & (cap - 1);
  while (slots[i] && strcmp(slots[i], path) != 0)
    i = (i + 1) & (cap - 1);
  return i;
}

static bool was_removed(const compactor *c, const char *path) {
  return c->cap_removed && c->removed[removed_slot(c->removed, c->cap_removed, path)];
}

static int removed_add(compactor *c, const char *path, inlet_error *err) {
  if (2 * (c->n_removed + 1) > c->cap_removed) {
    size_t nc = c->cap_removed ? c->cap_removed * 2 : 64;
    char **ns = inlet_calloc(nc, sizeof *ns);
    if (!ns) return inlet_fail(err, INLET_ENOMEM, "out of memory");
    for (size_t i = 0; i < c->cap_removed; i++)
      if (c->removed[i]) ns[removed_slot(ns, nc, c->removed[i])] = c->removed[i];
    inlet_free(c->removed);
    c->removed = ns;
    c->cap_removed = nc;
  }
  size_t i = removed_slot(c->removed, c->cap_removed, path);
  if (c->removed[i]) return 0;
  c->removed[i] = inlet_strdup(path);
  if (!c->removed[i]) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  c->n_removed++;
  return 0;
}

static int rebase_cb(void *ctx, int64_t version, const delta_action *a, inlet_error *err) {
  (void)version;
  compactor *c = ctx;
  if (a->kind == DELTA_ACTION_METADATA || a->kind == DELTA_ACTION_PROTOCOL) {
    c->meta_changed = true;
    return 0;
  }
  if (a->kind != DELTA_ACTION_REMOVE) return 0;
  return removed_add(c, a->u.remove.path, err);
}

/* Reads the commits that landed since the last look. */
static int rebase(compactor *c, inlet_error *err) {
  return delta_log_read_commits_after(delta_table_storage(c->table), delta_table_root(c->table),
                                      &c->seen_version, rebase_cb, c, err);
}

static int commit_unit(compactor *c, unit *u, int64_t b0, int64_t nb, int64_t rows,
                       int64_t *version, bool *maybe_published, inlet_error *err) {
  TRY(rebase(c, err));
  FAIL_IF(c->meta_changed, err, INLET_ECONFLICT,
          "conflict (metadata changed): the table's "
          "metaData or protocol changed after version %lld",
          (long long)c->snap.version);
  for (int64_t bi = b0; bi < b0 + nb; bi++)
    for (int64_t i = c->bins[bi].first; i < c->bins[bi].first + c->bins[bi].n; i++) {
      const char *p = cand_add(c, i)->path;
      FAIL_IF(was_removed(c, p), err, INLET_ECONFLICT,
              "conflict (concurrent delete): input "
              "\"%s\" was removed by a concurrent commit",
              p);
    }
  delta_txn *txn = NULL;
  TRY(delta_txn_begin(&txn, delta_table_storage(c->table), delta_table_root(c->table),
                      c->seen_version, "OPTIMIZE", err));
  delta_txn_set_table(txn, &c->snap.metadata);
  delta_txn_set_base(txn, &c->snap);
  /* Rows keep their ids exactly when they travel in the materialized
   * columns. */
  int rc = delta_rt_tag_preserved(txn, &c->snap.protocol, &c->snap.metadata, c->rt_cols, err);
  if (rc < 0) goto done;
  int64_t now = delta_now_ms(), removed_bytes = 0, n_removed = 0, added_bytes = 0;
  for (int64_t bi = b0; bi < b0 + nb; bi++)
    for (int64_t i = c->bins[bi].first; i < c->bins[bi].first + c->bins[bi].n; i++) {
      const delta_add *a = cand_add(c, i);
      TRY_GOTO(delta_txn_remove_file(txn, a, false, now, err));
      removed_bytes = inlet_add_sat_i64(removed_bytes, a->size);
      n_removed++;
    }
  for (size_t k = 0; k < u->n_files; k++) {
    out_file *f = &u->files[k];
    const delta_add *pv_src = cand_add(c, c->bins[f->bin].first);
    rc = delta_data_file_add(txn, &f->df, pv_src->partition_values, pv_src->n_partition_values,
                             false, now, err);
    if (rc < 0) goto done;
    added_bytes = inlet_add_sat_i64(added_bytes, f->df.size);
  }
  char mb[24];
  json_t *params = json_object();
  json_t *pred = json_array();
  if (c->o.where) json_array_append_new(pred, json_string(c->o.where));
  char *pred_s = json_dumps(pred, JSON_COMPACT);
  json_decref(pred);
  json_object_set_new(params, "predicate", json_string(pred_s ? pred_s : "[]"));
  free(pred_s);
  json_object_set_new(params, "zOrderBy", json_string("[]"));
  json_t *sort = json_array();
  for (int32_t i = 0; i < c->o.n_sort_by; i++)
    json_array_append_new(sort, json_string(c->o.sort_by[i]));
  char *sort_s = json_dumps(sort, JSON_COMPACT);
  json_decref(sort);
  json_object_set_new(params, "sortBy", json_string(sort_s ? sort_s : "[]"));
  free(sort_s);
  json_object_set_new(params, "auto", json_false());
  char *params_s = json_dumps(params, JSON_COMPACT | JSON_PRESERVE_ORDER);
  json_decref(params);
  FAIL_GOTO(!params_s, err, INLET_ENOMEM, "out of memory");
  rc = delta_txn_set_params(txn, params_s, err);
  free(params_s);
  if (rc < 0) goto done;
  /* Spark's OPTIMIZE metrics, values as strings like Spark writes them. */
  json_t *m = json_object();
  json_object_set_new(m, "numRemovedFiles", json_string(delta_metric_text(mb, n_removed)));
  json_object_set_new(m, "numAddedFiles", json_string(delta_metric_text(mb, (int64_t)u->n_files)));
  json_object_set_new(m, "numRemovedBytes", json_string(delta_metric_text(mb, removed_bytes)));
  json_object_set_new(m, "numAddedBytes", json_string(delta_metric_text(mb, added_bytes)));
  json_object_set_new(m, "numBatches", json_string(delta_metric_text(mb, nb)));
  json_object_set_new(m, "numRemovedRows", json_string(delta_metric_text(mb, rows)));
  char *m_s = json_dumps(m, JSON_COMPACT | JSON_PRESERVE_ORDER);
  json_decref(m);
  FAIL_GOTO(!m_s, err, INLET_ENOMEM, "out of memory");
  rc = delta_txn_set_extra_metrics(txn, m_s, err);
  free(m_s);
  if (rc < 0) goto done;
  delta_txn_add_rows(txn, rows);
  /* The writers' commit: the handle's cache and the checkpoint hook. */
  rc = delta_write_commit(c->table, txn, &c->snap.metadata, version, maybe_published, err);
done:
  delta_txn_free(txn);
  return rc;
}

static void report(compactor *c, int64_t b0, int64_t nb, const unit *u, int64_t version, int status,
                   const inlet_error *e) {
  if (!c->o.on_group) return;
  for (int64_t bi = b0; bi < b0 + nb; bi++) {
    const bin *bn = &c->bins[bi];
    inlet_compact_group g;
    memset(&g, 0, sizeof g);
    g.partition = c->cands[bn->first].label;
    g.n_inputs = bn->n;
    g.input_bytes = bn->bytes;
    g.version = version;
    g.status = status;
    g.message = status ? inlet_errmsg(e) : NULL;
    if (u && status == 0) { /* a failed group's outputs are gone */
      for (size_t k = 0; k < u->n_files; k++)
        if (u->files[k].bin == bi) {
          g.n_outputs++;
          g.output_bytes = inlet_add_sat_i64(g.output_bytes, u->files[k].df.size);
        }
      g.rows = bn->rows;
    }
    c->o.on_group(c->o.ctx, &g);
  }
}

/* ---- jobs: commits' rewrites, side by side ---------------------------------------- */

/* What a job may hold at once: its writer's row group (encoded pages
 * beside the buffered rows, or sorted rows beside their copy: twice the
 * row group bytes), bounded by the inputs' size inflated by decoding, a
 * reader's row group and the files decoded ahead (AHEAD_BYTES inflated
 * alike). An estimate for admission, not a limit. */
static int64_t job_memory(const compactor *c, int64_t b0, int64_t nb) {
  int64_t in = 0;
  for (int64_t bi = b0; bi < b0 + nb; bi++)
    in = inlet_add_sat_i64(in, c->bins[bi].bytes > 0 ? c->bins[bi].bytes : 0);
  int64_t w = in > INT64_MAX / 8 ? INT64_MAX : in * 8;
  int64_t cap = c->rg_bytes > INT64_MAX / 2 ? INT64_MAX : c->rg_bytes * 2;
  int64_t ahead = c->handles ? (in < AHEAD_BYTES ? in : AHEAD_BYTES) * 8 : 0;
  /* A big input's column parts each keep their largest column chunk: at
   * most an input file's compressed bytes between them. */
  int64_t parts = c->handles ? (in < c->rg_bytes ? in : c->rg_bytes) : 0;
  /* Pages kept to be copied (raw_pages.h): the compressed bytes of the
   * input row groups decoded (here and ahead) and not yet written. */
  int64_t pages = 2 * (in < c->rg_bytes ? in : c->rg_bytes);
  return inlet_add_sat_i64(
      inlet_add_sat_i64(
          inlet_add_sat_i64(inlet_add_sat_i64(w < cap ? w : cap, (int64_t)8 << 20), ahead), parts),
      pages);
}

/* The task: rewrites the job's bins in order, stopping at the first
 * failure (the commit then fails alone, as a single thread would). */
static int job_run(void *arg, inlet_error *err) {
  job *j = arg;
  compactor *c = j->c;
  if (j->cons != &c->cons) {
    /* A copy of the constraints for this job's scratch. */
    j->cons = &j->own_cons;
    TRY(delta_constraints_load(&j->own_cons, &c->snap, err));
  }
  for (int64_t bi = j->b0; bi < j->b0 + j->nb; bi++) {
    int64_t r = 0;
    int rc = rewrite_bin(j, bi, &r, err);
    c->bins[bi].rows = r;
    j->rows += r;
    if (rc < 0) return rc;
  }
  return 0;
}

/* @p st: the storage handle the job reads and writes through (its slot's). */
static void job_start(compactor *c, job *j, int64_t b0, int64_t nb, bool parallel,
                      inlet_storage *st) {
  memset(j, 0, sizeof *j);
  j->c = c;
  j->b0 = b0;
  j->nb = nb;
  j->sink = c->sink;
  j->sink.st = st;
  /* part-NNNNN: the bins' order, whichever job names a file first. */
  j->sink.counter = (int32_t)(b0 % 100000);
  j->cons = parallel && delta_constraints_any(&c->cons) ? NULL : &c->cons;
  j->mem = job_memory(c, b0, nb);
  util_group_init(&j->g, c->pool);
  util_group_submit(&j->g, job_run, j);
}

static void job_reset(job *j, bool remove_files) {
  unit_reset(&j->sink, &j->u, remove_files);
  if (j->cons == &j->own_cons) delta_constraints_reset(&j->own_cons);
  j->cons = NULL;
}

/*
 * Rewrites and commits the planned bins, bins_per_commit to a commit.
 * With a pool, the rewrites of up to o.threads commits run at once, as
 * long as their estimated memory fits PARALLEL_MEM_BUDGET (one always
 * runs); commits are made here, on the caller's thread, in plan order, so
 * the log, the files' bytes and the order of the commits are what one
 * thread makes. An object-store handle is one thread's: each slot then reads
 * and writes through a handle of its own (a clone; posix slots share the
 * table's), and a store that cannot clone rewrites one commit at a time.
 */
static int run_jobs(compactor *c, inlet_compact_result *res, inlet_error *err) {
  int64_t per = c->o.bins_per_commit > 0 ? c->o.bins_per_commit : 1;
  int64_t n_jobs = (c->n_bins + per - 1) / per;
  inlet_storage *st = delta_table_storage(c->table);
  int64_t slots = c->pool && inlet_storage_threads_ok(st) ? c->o.threads : 1;
  if (slots < 1) slots = 1;
  if (slots > n_jobs) slots = n_jobs > 0 ? n_jobs : 1;
  job *jobs = inlet_calloc((size_t)slots, sizeof *jobs);
  inlet_storage **slot_st = inlet_calloc((size_t)slots, sizeof *slot_st);
  if (!jobs || !slot_st) {
    inlet_free(jobs);
    inlet_free(slot_st);
    return inlet_fail(err, INLET_ENOMEM, "out of memory");
  }
  int rc = 0;
  if (util_pool_threads(c->pool) > 0 && inlet_storage_threads_ok(st))
    rc = inlet_storage_handles_new(&c->handles, st, err);
  for (int64_t s = 0; rc == 0 && s < slots; s++) {
    if (slots > 1)
      rc = inlet_storage_thread_handle(st, &slot_st[s], err);
    else
      slot_st[s] = st;
  }
  int64_t next = 0, done = 0, in_flight_mem = 0;
  int64_t bins_bytes = 0; /* of the jobs finished, for progress */
  while (rc == 0 && done < n_jobs) {
    /* Admit jobs in plan order while slots and the memory budget allow. */
    while (next < n_jobs && next - done < slots) {
      int64_t b0 = next * per, nb = c->n_bins - b0 < per ? c->n_bins - b0 : per;
      int64_t mem = job_memory(c, b0, nb);
      if (next > done && inlet_add_sat_i64(in_flight_mem, mem) > PARALLEL_MEM_BUDGET) break;
      job_start(c, &jobs[next % slots], b0, nb, slots > 1, slot_st[next % slots]);
      in_flight_mem = inlet_add_sat_i64(in_flight_mem, mem);
      next++;
    }
    job *j = &jobs[done % slots];
    inlet_error ge = INLET_ERROR_INIT;
    int grc = util_group_wait(&j->g, &ge);
    in_flight_mem -= j->mem;
    done++;
    int64_t b0 = j->b0, nb = j->nb, v = -1;
    /* A failed bin's unread files count as done: the bar ends at its total. */
    for (int64_t bi = b0; bi < b0 + nb; bi++)
      if (c->bins[bi].bytes > 0) bins_bytes = inlet_add_sat_i64(bins_bytes, c->bins[bi].bytes);
    int64_t seen = atomic_load(&c->prog_done);
    progress(c, seen > bins_bytes ? seen : bins_bytes);
    if (grc == 0 && j->u.n_files > 0) grc = st->ops->sync_dir(st, "", &ge);
    bool maybe_published = false;
    if (grc == 0) grc = commit_unit(c, &j->u, b0, nb, j->rows, &v, &maybe_published, &ge);
    if (grc < 0) {
      /* The group fails alone: its new files go, the table is untouched.
       * Except when the commit's publication itself failed with an I/O
       * error: the entry may have reached the log, so the files stay
       * (vacuum removes them later if the log never references them). */
      report(c, b0, nb, &j->u, -1, grc, &ge);
      job_reset(j, !maybe_published);
      res->failed_groups += nb;
      if (grc == INLET_ENOMEM) {
        rc = inlet_fail(err, grc, "%s", ge.message);
        break;
      }
      continue;
    }
    res->commits++;
    res->last_version = v;
    res->rows += j->rows;
    res->files_added += (int64_t)j->u.n_files;
    for (size_t k = 0; k < j->u.n_files; k++)
      res->bytes_added = inlet_add_sat_i64(res->bytes_added, j->u.files[k].df.size);
    for (int64_t bi = b0; bi < b0 + nb; bi++) {
      res->files_removed += c->bins[bi].n;
      res->bytes_removed = inlet_add_sat_i64(res->bytes_removed, c->bins[bi].bytes);
    }
    report(c, b0, nb, &j->u, v, 0, NULL);
    job_reset(j, false);
  }
  /* After a failure that stops the run: the jobs still in flight finish
   * (a task cannot be recalled) and their files go. */
  for (; done < next; done++) {
    job *j = &jobs[done % slots];
    inlet_error ignore = INLET_ERROR_INIT;
    (void)util_group_wait(&j->g, &ignore);
    job_reset(j, true);
  }
  for (int64_t s = 0; s < slots; s++)
    if (slot_st[s]) inlet_storage_thread_handle_free(st, slot_st[s]);
  inlet_storage_handles_free(c->handles);
  c->handles = NULL;
  inlet_free(slot_st);
  inlet_free(jobs);
  return rc;
}

int inlet_table_compact(inlet_compact_result *out, inlet_table *table,
                        const inlet_compact_options *options, inlet_error *err) {
  inlet_compact_options dflt = INLET_COMPACT_OPTIONS_INIT;
  FAIL_IF(options && options->version != 1 && options->version != INLET_COMPACT_OPTIONS_VERSION,
          err, INLET_EINVAL, "compact: unknown options version %d (this library has %d)",
          options->version, INLET_COMPACT_OPTIONS_VERSION);
  FAIL_IF(options && options->version > 1 && options->threads < 0, err, INLET_EINVAL,
          "compact: threads must not be negative");
  inlet_compact_result res;
  memset(&res, 0, sizeof res);
  res.last_version = -1;
  compactor c;
  memset(&c, 0, sizeof c);
  c.table = table;
  c.owner = pthread_self();
  atomic_init(&c.prog_done, 0);
  c.o = dflt;
  if (options && options->version == 1) /* a version-1 struct ends before threads */
    memcpy(&c.o, options, offsetof(inlet_compact_options, threads));
  else if (options)
    c.o = *options;
  c.o.version = INLET_COMPACT_OPTIONS_VERSION;
  inlet_schema_init(&c.data_schema);
  FAIL_IF(c.o.target_size < 0 || c.o.min_files < 0 || c.o.row_group_bytes < 0, err, INLET_EINVAL,
          "negative compaction size or count");
  int rc = delta_table_load(table, &c.snap, DELTA_SNAP_LATEST, 0, err);
  if (rc < 0) {
    compactor_reset(&c);
    return rc;
  }
  c.seen_version = c.snap.version;
  res.read_version = c.snap.version;
  FAIL_GOTO(!c.snap.has_schema, err, INLET_EUNSUPPORTED, "table metaData has no schemaString");
  FAIL_GOTO(delta_schema_unwritable_void(&c.snap.schema), err, INLET_EUNSUPPORTED,
            "cannot compact: field \"%s\" is a void inside an array or map, or a struct of "
            "void fields only, which no data file can hold",
            delta_schema_unwritable_void(&c.snap.schema));
  /* Compaction copies values and writes plain adds: the gate refuses tables
   * whose writer features need more (physical column names, row ids kept
   * across rewrites, Iceberg metadata...). */
  TRY_GOTO(
      delta_features_check_write(&c.snap.protocol, &c.snap.metadata, DELTA_OP_COMPACT, 0, err));
  /* A table whose constraints inlet cannot evaluate is not rewritten. */
  TRY_GOTO(delta_constraints_load(&c.cons, &c.snap, err));
  c.target = c.o.target_size
                 ? c.o.target_size
                 : maint_conf_size(&c.snap.metadata, "delta.targetFileSize", DEFAULT_TARGET);
  c.min_files = c.o.min_files
                    ? c.o.min_files
                    : (int32_t)maint_conf_size(&c.snap.metadata, "inlet.compaction.minFiles",
                                               DEFAULT_MIN_FILES);
  if (c.min_files < 2) c.min_files = 2;
  c.rg_bytes = c.o.row_group_bytes ? c.o.row_group_bytes
                                   : (c.target < MAX_RG_BYTES ? c.target : MAX_RG_BYTES);
  if (c.rg_bytes < 4096) c.rg_bytes = 4096;
  /* Output files hold the physical columns (PROTOCOL.md "Writer
   * Requirements for Column Mapping"), so their stats use physical names. */
  const inlet_schema *phys = delta_snapshot_physical(&c.snap);
  FAIL_GOTO(phys->n_fields != c.snap.schema.n_fields, err, INLET_EINTERNAL,
            "physical schema has %d columns, the table %d", (int)phys->n_fields,
            (int)c.snap.schema.n_fields);
  /* + the materialized row tracking columns (table column -1) */
  c.table_col = inlet_calloc((size_t)c.snap.schema.n_fields + 3, sizeof *c.table_col);
  FAIL_GOTO(!c.table_col, err, INLET_ENOMEM, "out of memory");
  for (int32_t i = 0; i < c.snap.schema.n_fields; i++) {
    bool is_part = false;
    for (int32_t p = 0; p < c.snap.metadata.n_partition_columns; p++)
      is_part |= strcmp(c.snap.metadata.partition_columns[p], c.snap.schema.fields[i].name) == 0;
    if (is_part) continue;
    /* Void columns stay out of data files, as appends leave them out
     * (PROTOCOL.md "Void Type"). */
    if (c.snap.schema.fields[i].type.id == INLET_TYPE_NULL) continue;
    c.table_col[c.data_schema.n_fields] = i;
    TRY_GOTO(inlet_schema_add_field(&c.data_schema, &phys->fields[i], err));
  }
  /* Variants are read and written in their data-file form (value and
   * metadata), so compaction copies each value's bytes as they are. */
  TRY_GOTO(delta_variant_physical(&c.data_schema, err));
  /* Row tracking enabled: rewritten rows keep their stable row ids and row
   * commit versions in the materialized columns (delta_rt_fill). */
  int32_t n_data = c.data_schema.n_fields;
  TRY_GOTO(
      delta_rt_schema_add(&c.data_schema, &c.snap.protocol, &c.snap.metadata, &c.rt_cols, err));
  for (int32_t d = n_data; d < c.data_schema.n_fields; d++)
    c.table_col[d] = -1;
  delta_file_sink_init(&c.sink, delta_table_storage(table), &c.snap.metadata, &c.data_schema,
                       c.o.compression, c.rg_bytes);
  TRY_GOTO(pq_buf_stash_new(&c.stash, PQ_BUF_STASH_MAX_BYTES, err));
  c.sink.stash = c.stash;
  if (c.o.threads > 1) {
    /* The caller runs jobs while it waits for them: one of the threads. */
    TRY_GOTO(util_pool_new_beside(&c.pool, c.o.threads, err));
    c.sink.pool = c.pool;
  }
  if (c.o.n_sort_by > 0) {
    c.sort_cols = inlet_calloc((size_t)c.o.n_sort_by, sizeof *c.sort_cols);
    FAIL_GOTO(!c.sort_cols, err, INLET_ENOMEM, "out of memory");
    for (int32_t i = 0; i < c.o.n_sort_by; i++) {
      /* --sort-by names logical columns. */
      int tk = inlet_schema_find(&c.snap.schema, c.o.sort_by[i]), k = -1;
      for (int32_t d = 0; tk >= 0 && d < c.data_schema.n_fields; d++)
        if (c.table_col[d] == tk) k = d;
      FAIL_GOTO(k < 0, err, INLET_EINVAL, "sort column \"%s\" is not a data column of the table",
                c.o.sort_by[i]);
      inlet_type_id t = c.data_schema.fields[k].type.id;
      FAIL_GOTO(t == INLET_TYPE_STRUCT || t == INLET_TYPE_LIST || t == INLET_TYPE_MAP ||
                    t == INLET_TYPE_DECIMAL || t == INLET_TYPE_FIXED_BINARY,
                err, INLET_EUNSUPPORTED,
                "cannot sort by column \"%s\" (nested, decimal or "
                "fixed-size binary)",
                c.o.sort_by[i]);
      c.sort_cols[i] = k;
    }
  }
  TRY_GOTO(plan(&c, &res, err));
  res.bins = c.n_bins;
  if (c.o.dry_run) {
    for (int64_t bi = 0; bi < c.n_bins; bi++) {
      res.files_removed += c.bins[bi].n;
      res.bytes_removed = inlet_add_sat_i64(res.bytes_removed, c.bins[bi].bytes);
      report(&c, bi, 1, NULL, -1, 0, NULL);
    }
    goto done;
  }
  for (int64_t bi = 0; bi < c.n_bins; bi++)
    if (c.bins[bi].bytes > 0) c.prog_total = inlet_add_sat_i64(c.prog_total, c.bins[bi].bytes);
  progress(&c, 0);
  rc = run_jobs(&c, &res, err);
done:
  compactor_reset(&c);
  if (out) *out = res;
  return rc;
}
