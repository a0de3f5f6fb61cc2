/*
 * Filtered, projected scans (include/inlet/scan.h) over the table scan of
 * src/delta: decides per file (partition pruning from add.partitionValues,
 * skipping from add.stats; PROTOCOL.md "Per-file Statistics") and per row
 * group (Parquet column statistics) whether the predicate can be TRUE
 * anywhere in it, decodes only the columns the output and the predicate
 * need, filters the rows, applies the limit and records an explain report.
 *
 * Parallel scans (options.threads > 1, issue 18): the parent scan decides
 * the files as above, opens each kept file's footer and deletion vector
 * once (delta_scan_file), and hands runs of its row groups to worker tasks
 * on a pool, so that a table of one big file (a compacted one) is decoded
 * on every thread. A task is a child scan of its run (its own delta scan,
 * Parquet reader sharing the file's parsed footer, stats scratch and
 * buffers; the predicate, plan and column choices borrowed read-only from
 * the parent) that judges and reads its row groups as a one-thread scan
 * would and queues its batches for the parent, a few at a time. At most
 * threads + 1 runs are in flight. The parent returns the oldest run's
 * batches first (the single-threaded order) or, unordered, whichever batch
 * is ready, and applies the limit across runs.
 *
 * On object stores, whose storage handles are one thread's, each of the
 * threads + 1 task slots reads through a handle of its own (a clone of the
 * table's, made when the slot is first used and kept for its later runs),
 * and the parent prefetches the small files whole, many at once as a
 * one-thread scan does, so their runs read them from memory.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <strings.h>

#include "batch/batch.h"
#include "delta/delta.h"
#include "scan/scan_stats.h"
#include "util/pool.h"

/* Decoded batches a worker may queue before it waits for the parent. */
#define TASK_QUEUE 2
/* Row groups of fewer rows are handed out several at a time, so that each
 * task has enough work to outweigh opening its child scan. */
#define RUN_MIN_ROWS 32768

struct inlet_scan;

/* A kept file of a parallel scan, opened once for the tasks of its row
 * groups (the parent's: only the parent thread touches refs and next_rg;
 * tasks read df). */
typedef struct scan_file {
  delta_scan_file *df; /* owned */
  int32_t next_rg;     /* first row group not yet handed out */
  int32_t refs;        /* tasks using it */
} scan_file;

/* A run of row groups of one file of a parallel scan, on a worker. Fields
 * marked "lock" are the parent's lock's; the rest belong to the worker
 * until finished is set, then to the parent. */
typedef struct scan_task {
  struct inlet_scan *parent; /* borrowed */
  struct inlet_scan *child;  /* owned: the scan of this run of row groups */
  scan_file *file;           /* the parent's: its file */
  int64_t seq;               /* dispatch order (files, then row groups) */
  pthread_t submitter;       /* the parent's thread (set before the task is queued) */
  bool in_use;               /* parent's: a task occupies this slot */
  inlet_batch q[TASK_QUEUE]; /* lock; owned: queued batches, a ring */
  int head, n;               /* lock */
  bool finished;             /* lock: the worker is done with the child */
  int rc;                    /* lock: 0 or the child's error */
  inlet_error err;           /* lock */
  inlet_scan_stats stats;    /* lock: the child's counters when it finished */
  util_group g;
} scan_task;

struct inlet_scan {
  const inlet_snapshot *snap;  /* borrowed */
  const inlet_schema *schema;  /* borrowed table schema */
  const inlet_schema *phys;    /* borrowed: its physical twin (column mapping), else schema */
  delta_scan *ts;              /* owned */
  const delta_scan_plan *plan; /* lent by the snapshot (filtered scans), else NULL */
  inlet_predicate *pred;       /* owned, NULL without --where */
  uint8_t *keep_file;          /* owned, per snapshot file */
  uint8_t *keep_col;           /* owned, per table column */
  uint8_t *is_part;            /* owned, per table column */
  int32_t *out_cols;           /* owned: table column of each output column */
  inlet_schema out_schema;     /* owned */
  int64_t limit;
  bool explain;
  inlet_buf report;  /* owned explain lines */
  char *report_text; /* owned copy handed out by inlet_scan_explain */
  inlet_scan_stats st;
  sc_file_stats fst; /* owned: scratch for file and row-group stats */
  sc_page_sel pages; /* owned: row ranges chosen by the page index */
  int64_t cur_file;  /* file of the last row group judged */
  inlet_batch in;    /* owned: the delta scan's batch */
  uint8_t *mask;     /* owned, mask_cap bytes */
  int64_t mask_cap;
  /* A worker's scan of one file: snap, pred, keep_file, keep_col, is_part
   * and out_cols are the parent's (borrowed, read-only). */
  bool child;
  bool row_tracking; /* _metadata.row_id / row_commit_version asked for */
  /* Parallel (threads > 1; see the top of the file). */
  bool par, unordered;
  util_pool *pool;      /* owned */
  pthread_mutex_t lock; /* guards the tasks' queues, finished flags and stop */
  pthread_cond_t cond;  /* a task queued a batch or finished, or the parent took one */
  bool stop;            /* lock: workers end early (the limit or free) */
  scan_task *tasks;     /* owned, n_slots */
  /* owned, n_slots: the storage handle each slot's tasks read through
   * (storage.h "Threads"), made on the slot's first use */
  inlet_storage **slot_st;
  int32_t n_slots;
  int64_t next_seq;  /* sequence of the next task */
  int64_t next_file; /* next file to open */
  scan_file *cur;    /* owned: the file whose row groups are being handed out */
  /* Opening the next file failed: handed out nothing since, and returned
   * once the tasks before it are drained (the single-threaded order). */
  int open_rc;
  inlet_error open_err;
  int par_rc; /* an error returned already: returned again */
  inlet_error par_err;
  inlet_scan_stats retired; /* counters of the finished tasks' children */
};

static const char *file_path(const inlet_snapshot *s, int64_t i) {
  inlet_file_info fi;
  inlet_snapshot_file(s, i, &fi);
  return fi.path;
}

/* Fills sc->fst for file @p i from the plan: partition values, and with
 * @p with_stats what add.stats says. */
static int file_stats(inlet_scan *sc, int64_t i, bool with_stats, inlet_error *err) {
  TRY(sc_file_stats_begin(&sc->fst, delta_scan_plan_log_rows(sc->plan, i), err));
  if (with_stats) delta_scan_plan_stats(sc->plan, i, sc->fst.cols);
  delta_scan_plan_partitions(sc->plan, i, sc->fst.cols);
  return 0;
}

/* Decides how much of the row group the table scan stopped at to read:
 * none when its Parquet statistics rule the predicate out, else the row
 * ranges the page index leaves (or all of it). */
static int judge_row_group(inlet_scan *sc, inlet_error *err) {
  int64_t file;
  const struct inlet_parquet_reader *r;
  int32_t rg;
  delta_scan_row_group(sc->ts, &file, &r, &rg);
  if (file != sc->cur_file) {
    sc->cur_file = file;
    sc->st.files_read++;
    sc->st.row_groups += inlet_parquet_reader_num_row_groups(r);
  }
  bool keep = true;
  const int64_t *ranges = NULL;
  int32_t n_ranges = 0;
  if (sc->pred) {
    TRY(sc_file_stats_row_group(&sc->fst, r, rg, err));
    /* Partition columns are not in the file: their values come from the log. */
    delta_scan_plan_partitions(sc->plan, file, sc->fst.cols);
    keep = (sc_pred_possible(sc->pred, sc->fst.cols) & SC_MAY_TRUE) != 0;
  }
  int64_t rows = inlet_parquet_reader_row_group_rows(r, rg);
  bool by_pages = false;
  if (keep && sc->pred) {
    /* Within the row group: the page index may rule out runs of rows. */
    bool use = false;
    TRY(sc_page_select(&sc->pages, &use, sc->pred, &sc->fst, sc->is_part, r, rg, err));
    if (use && sc->pages.rows_selected < rows) {
      by_pages = true;
      keep = sc->pages.n_ranges > 0;
      sc->st.rows_skipped += rows - sc->pages.rows_selected;
      ranges = sc->pages.ranges;
      n_ranges = sc->pages.n_ranges;
    }
  }
  if (keep)
    sc->st.row_groups_read++;
  else
    sc->st.row_groups_skipped++;
  if (sc->explain) {
    if (by_pages && keep)
      inlet_buf_appendf(&sc->report,
                        "  row group %d of %s: read %lld of %lld rows in %d ranges (pages "
                        "skipped by the page index)\n",
                        (int)rg, file_path(sc->snap, file), (long long)sc->pages.rows_selected,
                        (long long)rows, (int)sc->pages.n_ranges);
    else
      inlet_buf_appendf(&sc->report, "  row group %d of %s: %s (%lld rows)\n", (int)rg,
                        file_path(sc->snap, file),
                        keep       ? "read"
                        : by_pages ? "skipped by the page index"
                                   : "skipped by Parquet statistics",
                        (long long)rows);
  }
  delta_scan_choose(sc->ts, keep, ranges, n_ranges);
  return 0;
}

static int resolve_columns(inlet_scan *sc, const inlet_scan_options *o, inlet_error *err) {
  const inlet_schema *s = sc->schema;
  int32_t n = o && o->n_columns > 0 ? o->n_columns : s->n_fields;
  sc->out_cols = inlet_calloc((size_t)n + 1, sizeof(int32_t));
  if (!sc->out_cols) return inlet_fail(err, INLET_ENOMEM, "out of memory opening a scan");
  inlet_schema_init(&sc->out_schema);
  for (int32_t j = 0; j < n; j++) {
    int32_t c = j;
    if (o && o->n_columns > 0) {
      const char *name = o->columns[j];
      c = -1;
      for (int32_t i = 0; i < s->n_fields && c < 0; i++)
        if (strcmp(s->fields[i].name, name) == 0) c = i;
      for (int32_t i = 0; i < s->n_fields && c < 0; i++)
        if (strcasecmp(s->fields[i].name, name) == 0) c = i;
      /* Row tracking metadata columns follow the table's in the delta
       * scan's batches (a table column of that name wins). */
      bool rid = c < 0 && strcasecmp(name, DELTA_SCAN_ROW_ID) == 0;
      bool rcv = c < 0 && strcasecmp(name, DELTA_SCAN_ROW_COMMIT_VERSION) == 0;
      if (rid || rcv) {
        TRY(delta_scan_row_tracking(sc->ts, err));
        sc->row_tracking = true;
        c = s->n_fields + (rcv ? 1 : 0);
      }
      FAIL_IF(c < 0, err, INLET_ENOTFOUND, "no column named \"%s\" in the table", name);
    }
    sc->out_cols[j] = c;
    sc->keep_col[c] = 1;
    TRY(inlet_schema_add_field(&sc->out_schema, &delta_scan_schema(sc->ts)->fields[c], err));
  }
  return 0;
}

/* ---- parallel scans ------------------------------------------------------- */

static void current_stats(const inlet_scan *sc, inlet_scan_stats *out);

/* The child scan of row groups [@p first_rg, @p end_rg) of file @p f: the
 * parent's decisions, scratch of its own. */
static int child_open(inlet_scan **out, inlet_scan *p, const scan_file *f, int32_t first_rg,
                      int32_t end_rg, inlet_storage *st, inlet_error *err) {
  *out = NULL;
  inlet_scan *c = inlet_calloc(1, sizeof *c);
  if (!c) return inlet_fail(err, INLET_ENOMEM, "out of memory opening a scan");
  c->child = true;
  c->snap = p->snap;
  c->schema = p->schema;
  c->phys = p->phys;
  c->plan = p->plan;
  c->pred = p->pred;
  c->keep_file = p->keep_file;
  c->keep_col = p->keep_col;
  c->is_part = p->is_part;
  c->out_cols = p->out_cols;
  c->limit = p->limit; /* an upper bound per run; the parent cuts across runs */
  /* The file (its count of row groups) is counted by its first run only. */
  c->cur_file = first_rg == 0 ? -1 : delta_scan_file_index(f->df);
  inlet_buf_init(&c->report);
  inlet_schema_init(&c->out_schema);
  sc_file_stats_init(&c->fst, c->phys);
  sc_page_sel_init(&c->pages);
  int rc = 0;
  for (int32_t j = 0; rc == 0 && j < p->out_schema.n_fields; j++)
    rc = inlet_schema_add_field(&c->out_schema, &p->out_schema.fields[j], err);
  if (rc == 0) rc = delta_scan_open(&c->ts, p->snap, err);
  /* The child's batches carry the parent's row tracking columns too. */
  c->row_tracking = p->row_tracking;
  if (rc == 0 && p->row_tracking) rc = delta_scan_row_tracking(c->ts, err);
  if (rc < 0) {
    inlet_scan_free(c);
    return rc;
  }
  delta_scan_select(c->ts, p->keep_file, p->keep_col, true);
  delta_scan_use_file(c->ts, f->df, first_rg, end_rg);
  delta_scan_set_storage(c->ts, st);
  *out = c;
  return 0;
}

/* The worker: scans its file, queueing batches (waiting while TASK_QUEUE
 * are queued) until the end, an error or stop. Its error is the task's,
 * returned by the parent in its turn, so the task itself always succeeds. */
static int task_run(void *arg, inlet_error *unused) {
  (void)unused;
  scan_task *t = arg;
  inlet_scan *p = t->parent;
  inlet_batch b;
  memset(&b, 0, sizeof b);
  inlet_error e = INLET_ERROR_INIT;
  int rc = 0;
  /* The pool runs a task inline when it cannot queue it (out of memory):
   * then nobody else would empty a full queue. */
  bool inline_run = pthread_equal(pthread_self(), t->submitter) != 0;
  for (;;) {
    pthread_mutex_lock(&p->lock);
    while (t->n == TASK_QUEUE && !p->stop && !inline_run)
      pthread_cond_wait(&p->cond, &p->lock);
    bool stop = p->stop, full = t->n == TASK_QUEUE;
    pthread_mutex_unlock(&p->lock);
    if (stop) break;
    if (full) {
      rc = inlet_fail(&e, INLET_ENOMEM, "out of memory queueing a scan task");
      break;
    }
    rc = inlet_scan_next(t->child, &b, &e);
    if (rc <= 0) break;
    pthread_mutex_lock(&p->lock);
    t->q[(t->head + t->n) % TASK_QUEUE] = b; /* moved */
    t->n++;
    pthread_cond_broadcast(&p->cond);
    pthread_mutex_unlock(&p->lock);
    memset(&b, 0, sizeof b);
  }
  inlet_batch_reset(&b);
  inlet_scan_stats st;
  current_stats(t->child, &st);
  pthread_mutex_lock(&p->lock);
  t->stats = st;
  t->rc = rc < 0 ? rc : 0;
  if (rc < 0) t->err = e;
  t->finished = true;
  pthread_cond_broadcast(&p->cond);
  pthread_mutex_unlock(&p->lock);
  return 0;
}

static void scan_file_free(scan_file *f) {
  if (!f) return;
  delta_scan_file_free(f->df);
  inlet_free(f);
}

/* Frees a finished (or stopped) task's slot: waits for the worker, drops
 * what it queued, keeps its counters, and lets go of its file. The wait
 * runs no other task here: one would fill its queue with nobody to take
 * it. */
static void task_retire(inlet_scan *sc, scan_task *t) {
  inlet_error ignore = INLET_ERROR_INIT;
  (void)util_group_join(&t->g, &ignore);
  for (int k = 0; k < TASK_QUEUE; k++)
    inlet_batch_reset(&t->q[k]);
  inlet_scan_stats *r = &sc->retired;
  r->files_read += t->stats.files_read;
  r->row_groups += t->stats.row_groups;
  r->row_groups_skipped += t->stats.row_groups_skipped;
  r->row_groups_read += t->stats.row_groups_read;
  r->rows_read += t->stats.rows_read;
  r->rows_skipped += t->stats.rows_skipped;
  r->pages_read += t->stats.pages_read;
  r->bytes_read += t->stats.bytes_read;
  inlet_scan_free(t->child);
  if (--t->file->refs == 0 && t->file != sc->cur) scan_file_free(t->file);
  memset(t, 0, sizeof *t);
}

/* Decides whether the scan runs in parallel and sets it up: threads > 1,
 * no explain (its report is the order of decisions), storage whose reads
 * can be spread over threads (storage.h inlet_storage_threads_ok) and a
 * file to read (one file of many row groups is spread over the threads
 * too). */
static int par_begin(inlet_scan *sc, const inlet_scan_options *o, inlet_error *err) {
  if (o->threads < 2 || o->explain) return 0;
  if (!inlet_storage_threads_ok(delta_snapshot_handle_storage(sc->snap))) return 0;
  bool any = false;
  for (int64_t i = 0, n = inlet_snapshot_num_files(sc->snap); i < n && !any; i++)
    any = sc->keep_file[i] != 0;
  if (!any) return 0;
  sc->n_slots = o->threads + 1;
  sc->tasks = inlet_calloc((size_t)sc->n_slots, sizeof *sc->tasks);
  sc->slot_st = inlet_calloc((size_t)sc->n_slots, sizeof *sc->slot_st);
  if (!sc->tasks || !sc->slot_st)
    return inlet_fail(err, INLET_ENOMEM, "out of memory opening a scan");
  /* The parent's delta scan only opens the files here; a window on it
   * tells it that a limited scan reads on demand (no prefetching), as a
   * one-thread scan with a limit does. */
  if (sc->limit >= 0) delta_scan_set_window(sc->ts, sc->limit, sc->pred != NULL);
  TRY(util_pool_new(&sc->pool, o->threads, err));
  pthread_mutex_init(&sc->lock, NULL);
  pthread_cond_init(&sc->cond, NULL);
  sc->par = true;
  sc->unordered = o->unordered;
  return 0;
}

/* Makes sc->cur the next kept file, if any. A failure to open it is kept
 * for its turn (open_rc). */
static void next_file(inlet_scan *sc) {
  int64_t n = inlet_snapshot_num_files(sc->snap);
  if (!sc->cur && sc->open_rc == 0) {
    while (sc->next_file < n && !sc->keep_file[sc->next_file])
      sc->next_file++;
    if (sc->next_file >= n) return;
    scan_file *f = inlet_calloc(1, sizeof *f);
    inlet_error e = INLET_ERROR_INIT;
    int rc = f ? delta_scan_file_open(&f->df, sc->ts, sc->next_file, &e)
               : inlet_fail(&e, INLET_ENOMEM, "out of memory opening a scan");
    sc->next_file++;
    if (rc < 0) {
      inlet_free(f);
      sc->open_rc = rc;
      sc->open_err = e;
      return;
    }
    sc->cur = f;
  }
}

/* Hands runs of row groups to free slots, in file and row group order. */
static int par_fill(inlet_scan *sc, inlet_error *err) {
  for (int32_t k = 0; k < sc->n_slots; k++) {
    scan_task *t = &sc->tasks[k];
    if (t->in_use) continue;
    next_file(sc);
    scan_file *f = sc->cur;
    if (!f) return 0;
    /* A file without row groups still gets a (rowless) task: its child
     * checks the file as one thread would. */
    int32_t n_rg = delta_scan_file_num_row_groups(f->df), first = f->next_rg;
    int32_t end = first < n_rg ? first + 1 : n_rg;
    int64_t rows = delta_scan_file_row_group_rows(f->df, first);
    while (end < n_rg && rows < RUN_MIN_ROWS)
      rows += delta_scan_file_row_group_rows(f->df, end++);
    if (!sc->slot_st[k])
      TRY(inlet_storage_thread_handle(delta_snapshot_handle_storage(sc->snap), &sc->slot_st[k],
                                      err));
    memset(t, 0, sizeof *t);
    TRY(child_open(&t->child, sc, f, first, end, sc->slot_st[k], err));
    f->next_rg = end;
    f->refs++;
    if (end == n_rg) sc->cur = NULL; /* its tasks free it */
    t->file = f;
    t->parent = sc;
    t->seq = sc->next_seq++;
    t->in_use = true;
    t->submitter = pthread_self();
    util_group_init(&t->g, sc->pool);
    util_group_submit(&t->g, task_run, t);
  }
  return 0;
}

/* Stops the workers and frees every task. */
static void par_end(inlet_scan *sc) {
  if (!sc->par) return;
  pthread_mutex_lock(&sc->lock);
  sc->stop = true;
  pthread_cond_broadcast(&sc->cond);
  pthread_mutex_unlock(&sc->lock);
  for (int32_t k = 0; k < sc->n_slots; k++)
    if (sc->tasks[k].in_use) task_retire(sc, &sc->tasks[k]);
  scan_file_free(sc->cur);
  sc->cur = NULL;
  util_pool_free(sc->pool);
  sc->pool = NULL;
  pthread_cond_destroy(&sc->cond);
  pthread_mutex_destroy(&sc->lock);
  sc->par = false;
}

/* inlet_scan_next of a parallel scan. */
static int par_next(inlet_scan *sc, inlet_batch *out, inlet_error *err) {
  if (sc->par_rc < 0) {
    if (err) *err = sc->par_err;
    return sc->par_rc;
  }
  for (;;) {
    if (sc->limit >= 0 && sc->st.rows_matched >= sc->limit) {
      /* Enough rows: the files still being read are of no use. */
      pthread_mutex_lock(&sc->lock);
      sc->stop = true;
      pthread_cond_broadcast(&sc->cond);
      pthread_mutex_unlock(&sc->lock);
      return 0;
    }
    int rc = par_fill(sc, err);
    if (rc < 0) {
      sc->par_rc = rc;
      if (err) sc->par_err = *err;
      return rc;
    }
    scan_task *got = NULL;
    pthread_mutex_lock(&sc->lock);
    for (;;) {
      scan_task *oldest = NULL;
      for (int32_t k = 0; k < sc->n_slots; k++) {
        scan_task *t = &sc->tasks[k];
        if (!t->in_use) continue;
        if (!oldest || t->seq < oldest->seq) oldest = t;
        /* Unordered: the first task with something to say. */
        if (sc->unordered && !got && (t->n > 0 || t->finished)) got = t;
      }
      if (!oldest) break; /* nothing in flight: the end */
      if (!sc->unordered && (oldest->n > 0 || oldest->finished)) got = oldest;
      if (got) break;
      pthread_cond_wait(&sc->cond, &sc->lock);
    }
    if (!got) {
      pthread_mutex_unlock(&sc->lock);
      if (sc->open_rc < 0) {
        /* Every run before the file that failed to open is drained. */
        sc->par_rc = sc->open_rc;
        sc->par_err = sc->open_err;
        if (err) *err = sc->open_err;
        return sc->open_rc;
      }
      return 0;
    }
    if (got->n > 0) {
      inlet_batch b = got->q[got->head];
      memset(&got->q[got->head], 0, sizeof got->q[got->head]);
      got->head = (got->head + 1) % TASK_QUEUE;
      got->n--;
      pthread_cond_broadcast(&sc->cond);
      pthread_mutex_unlock(&sc->lock);
      if (sc->limit >= 0 && b.num_rows > sc->limit - sc->st.rows_matched) {
        /* The last rows wanted: the batch's first ones. */
        int64_t want = sc->limit - sc->st.rows_matched;
        uint8_t *keep = inlet_calloc((size_t)b.num_rows + 1, 1);
        rc = keep ? 0 : inlet_fail(err, INLET_ENOMEM, "out of memory applying the limit");
        if (rc == 0) {
          memset(keep, 1, (size_t)want);
          rc = batch_keep_rows(&b, keep, err);
        }
        inlet_free(keep);
        if (rc < 0) {
          inlet_batch_reset(&b);
          return rc;
        }
      }
      inlet_batch_reset(out);
      *out = b; /* moved */
      sc->st.rows_matched += b.num_rows;
      return 1;
    }
    /* Finished and drained. */
    int trc = got->rc;
    inlet_error terr = got->err;
    pthread_mutex_unlock(&sc->lock);
    task_retire(sc, got);
    if (trc < 0) {
      sc->par_rc = trc;
      sc->par_err = terr;
      if (err) *err = terr;
      return trc;
    }
  }
}

int inlet_scan_open(inlet_scan **out, const inlet_snapshot *snap, const inlet_scan_options *o,
                    inlet_error *err) {
  *out = NULL;
  FAIL_IF(o && o->version != 1 && o->version != INLET_SCAN_OPTIONS_VERSION, err, INLET_EINVAL,
          "scan: unknown options version %d (this library has %d)", o->version,
          INLET_SCAN_OPTIONS_VERSION);
  FAIL_IF(o && o->version > 1 && o->threads < 0, err, INLET_EINVAL,
          "scan: threads must not be negative");
  inlet_scan_options opts = INLET_SCAN_OPTIONS_INIT;
  if (o && o->version == 1) /* a version-1 struct ends before threads */
    memcpy(&opts, o, offsetof(inlet_scan_options, threads));
  else if (o)
    opts = *o;
  opts.version = INLET_SCAN_OPTIONS_VERSION;
  o = &opts;
  inlet_scan *sc = inlet_calloc(1, sizeof *sc);
  if (!sc) return inlet_fail(err, INLET_ENOMEM, "out of memory opening a scan");
  int rc = 0;
  sc->snap = snap;
  sc->schema = inlet_snapshot_schema(snap);
  sc->phys = delta_snapshot_handle_physical(snap);
  sc->limit = o && o->limit >= 0 ? o->limit : -1;
  sc->explain = o && o->explain;
  sc->cur_file = -1;
  inlet_buf_init(&sc->report);
  inlet_schema_init(&sc->out_schema);
  /* Stats and Parquet columns use physical names (and ids). */
  sc_file_stats_init(&sc->fst, sc->phys);
  sc_page_sel_init(&sc->pages);
  int32_t nf = sc->schema->n_fields;
  int64_t nfiles = inlet_snapshot_num_files(snap);
  sc->st.files = nfiles;
  TRY_GOTO(delta_scan_open(&sc->ts, snap, err));
  /* + the two row tracking columns */
  sc->keep_col = inlet_calloc((size_t)nf + 3, 1);
  sc->is_part = inlet_calloc((size_t)nf + 3, 1);
  sc->keep_file = inlet_calloc((size_t)nfiles + 1, 1);
  FAIL_GOTO(!sc->keep_col || !sc->is_part || !sc->keep_file, err, INLET_ENOMEM,
            "out of memory opening a scan");
  for (int32_t p = 0; p < inlet_snapshot_num_partition_columns(snap); p++) {
    int c = inlet_schema_find(sc->schema, inlet_snapshot_partition_column(snap, p));
    for (int32_t i = 0; c < 0 && i < nf; i++)
      if (strcasecmp(sc->schema->fields[i].name, inlet_snapshot_partition_column(snap, p)) == 0)
        c = i;
    if (c >= 0) sc->is_part[c] = 1;
  }
  TRY_GOTO(resolve_columns(sc, o, err));
  if (o && o->where) {
    TRY_GOTO(inlet_predicate_parse(&sc->pred, o->where, sc->schema, err));
    for (int32_t i = 0; i < sc->pred->n_cols; i++)
      sc->keep_col[sc->pred->cols[i]] = 1;
    /* What the log says about each file, parsed once per snapshot. */
    TRY_GOTO(delta_snapshot_scan_plan(&sc->plan, snap, err));
  }
  if (sc->explain)
    inlet_buf_appendf(&sc->report, "scan of version %lld: %lld files%s%s\n",
                      (long long)inlet_snapshot_version(snap), (long long)nfiles,
                      sc->pred ? ", where " : "", sc->pred ? o->where : "");
  for (int64_t i = 0; i < nfiles; i++) {
    const char *why = NULL;
    if (sc->pred) {
      /* Partition values alone first, so the report can say which rule
       * excluded the file. */
      TRY_GOTO(file_stats(sc, i, false, err));
      if (!(sc_pred_possible(sc->pred, sc->fst.cols) & SC_MAY_TRUE)) {
        why = "pruned by partition values";
        sc->st.files_pruned++;
      } else {
        TRY_GOTO(file_stats(sc, i, true, err));
        if (!(sc_pred_possible(sc->pred, sc->fst.cols) & SC_MAY_TRUE)) {
          why = "skipped by add.stats";
          sc->st.files_skipped++;
        }
      }
    }
    sc->keep_file[i] = why == NULL;
    if (sc->explain && why)
      inlet_buf_appendf(&sc->report, "file %s: %s\n", file_path(snap, i), why);
  }
  delta_scan_select(sc->ts, sc->keep_file, sc->keep_col, true);
  FAIL_GOTO(inlet_buf_status(&sc->report) < 0, err, INLET_ENOMEM, "out of memory");
  TRY_GOTO(par_begin(sc, o, err));
done:
  if (rc < 0) {
    inlet_scan_free(sc);
    return rc;
  }
  *out = sc;
  return 0;
}

const inlet_schema *inlet_scan_schema(const inlet_scan *sc) {
  return &sc->out_schema;
}

/* The counters, with the Parquet readers' page and byte counts. */
static void current_stats(const inlet_scan *sc, inlet_scan_stats *out) {
  *out = sc->st;
  inlet_parquet_read_stats ps;
  delta_scan_read_stats(sc->ts, &ps);
  out->pages_read = ps.data_pages_decoded;
  out->bytes_read = ps.column_bytes_read;
  /* A parallel scan: what its finished files' workers read (files still
   * in flight count once they finish). */
  const inlet_scan_stats *r = &sc->retired;
  out->files_read += r->files_read;
  out->row_groups += r->row_groups;
  out->row_groups_skipped += r->row_groups_skipped;
  out->row_groups_read += r->row_groups_read;
  out->rows_read += r->rows_read;
  out->rows_skipped += r->rows_skipped;
  out->pages_read += r->pages_read;
  out->bytes_read += r->bytes_read;
}

void inlet_scan_get_stats(const inlet_scan *sc, inlet_scan_stats *out) {
  current_stats(sc, out);
}

const char *inlet_scan_explain(inlet_scan *sc) {
  inlet_free(sc->report_text);
  sc->report_text = NULL;
  inlet_buf b;
  inlet_buf_init(&b);
  inlet_buf_append(&b, sc->report.data ? (const char *)sc->report.data : "", sc->report.len);
  inlet_scan_stats st;
  current_stats(sc, &st);
  const inlet_scan_stats *s = &st;
  inlet_buf_appendf(&b,
                    "files: %lld considered, %lld pruned by partition values, %lld skipped by "
                    "add.stats, %lld read\n"
                    "row groups: %lld in files read, %lld skipped by Parquet statistics, %lld "
                    "read\n"
                    "rows: %lld decoded, %lld returned\n"
                    "page index: %lld rows of the row groups read skipped\n"
                    "pages: %lld decoded, %lld bytes of column data read\n",
                    (long long)s->files, (long long)s->files_pruned, (long long)s->files_skipped,
                    (long long)s->files_read, (long long)s->row_groups,
                    (long long)s->row_groups_skipped, (long long)s->row_groups_read,
                    (long long)s->rows_read, (long long)s->rows_matched, (long long)s->rows_skipped,
                    (long long)s->pages_read, (long long)s->bytes_read);
  if (inlet_buf_terminate(&b) < 0) {
    inlet_buf_reset(&b);
    return "out of memory\n";
  }
  sc->report_text = (char *)inlet_buf_detach(&b, NULL);
  return sc->report_text ? sc->report_text : "";
}

void inlet_scan_free(inlet_scan *sc) {
  if (!sc) return;
  par_end(sc);
  inlet_free(sc->tasks);
  for (int32_t k = 0; sc->slot_st && k < sc->n_slots; k++)
    inlet_storage_thread_handle_free(delta_snapshot_handle_storage(sc->snap), sc->slot_st[k]);
  inlet_free(sc->slot_st);
  delta_scan_free(sc->ts);
  if (!sc->child) {
    inlet_predicate_free(sc->pred);
    inlet_free(sc->keep_file);
    inlet_free(sc->keep_col);
    inlet_free(sc->is_part);
    inlet_free(sc->out_cols);
  }
  inlet_schema_reset(&sc->out_schema);
  inlet_buf_reset(&sc->report);
  inlet_free(sc->report_text);
  sc_file_stats_reset(&sc->fst);
  sc_page_sel_reset(&sc->pages);
  inlet_batch_reset(&sc->in);
  inlet_free(sc->mask);
  inlet_free(sc);
}

/* ---- the deprecated table scan (include/inlet/table.h) ---------------------- */

/* A wrapper, so that inlet_scan is the one scan there is. */
struct inlet_table_scan {
  inlet_scan *scan; /* owned */
};

int inlet_table_scan_open(inlet_table_scan **out, const inlet_snapshot *s, inlet_error *err) {
  *out = NULL;
  inlet_table_scan *ts = inlet_calloc(1, sizeof *ts);
  if (!ts) return inlet_fail(err, INLET_ENOMEM, "out of memory opening a scan");
  int rc = inlet_scan_open(&ts->scan, s, NULL, err);
  if (rc < 0) {
    inlet_free(ts);
    return rc;
  }
  *out = ts;
  return 0;
}

int inlet_table_scan_next(inlet_table_scan *ts, inlet_batch *out, inlet_error *err) {
  return inlet_scan_next(ts->scan, out, err);
}

void inlet_table_scan_free(inlet_table_scan *ts) {
  if (!ts) return;
  inlet_scan_free(ts->scan);
  inlet_free(ts);
}

/* ---- row selection ------------------------------------------------------ */

/* take() for an empty @p dst of a flat fixed-width or string/binary type:
 * gathers values with memcpy instead of appending row by row. Returns 1
 * when done, 0 when the type needs the general path. */
static int take_flat(inlet_array *dst, const inlet_field *f, const inlet_array *src,
                     const int64_t *rows, int64_t n, inlet_error *err) {
  inlet_type_id id = f->type.id;
  int32_t w = inlet_type_value_width(&f->type);
  bool var = id == INLET_TYPE_STRING || id == INLET_TYPE_BINARY;
  if (dst->length != 0 || n <= 0 || (!var && (w <= 0 || id == INLET_TYPE_BOOL))) return 0;
  TRY(inlet_array_reserve_rows(dst, f, n, err));
  if (var) {
    int64_t total = 0;
    for (int64_t k = 0; k < n; k++)
      total += src->offsets[rows[k] + 1] - src->offsets[rows[k]];
    TRY(inlet_array_reserve_data(dst, total, err));
    int32_t pos = 0;
    dst->offsets[0] = 0;
    for (int64_t k = 0; k < n; k++) {
      int32_t a = src->offsets[rows[k]], len = src->offsets[rows[k] + 1] - a;
      if (len) memcpy(dst->values + pos, src->values + a, (size_t)len);
      pos += len;
      dst->offsets[k + 1] = pos;
    }
  } else if (w == 8) {
    int64_t *o = (int64_t *)dst->values;
    const int64_t *v = (const int64_t *)src->values;
    for (int64_t k = 0; k < n; k++)
      o[k] = v[rows[k]];
  } else {
    for (int64_t k = 0; k < n; k++)
      memcpy(dst->values + k * w, src->values + rows[k] * w, (size_t)w);
  }
  int64_t nulls = 0;
  if (src->validity && src->null_count != 0) {
    TRY(inlet_array_ensure_validity(dst, err));
    memset(dst->validity, 0, (size_t)((n + 7) / 8));
    for (int64_t k = 0; k < n; k++) {
      bool ok = inlet_bit_get(src->validity, rows[k]);
      if (ok)
        dst->validity[k >> 3] |= (uint8_t)(1u << (k & 7));
      else
        nulls++;
    }
  }
  dst->length = n;
  dst->null_count = nulls;
  return 1;
}

/* Whether compact_in_place can filter column @p a (field @p f, @p n rows):
 * flat fixed-width, boolean and string/binary columns. */
static bool can_compact(const inlet_array *a, const inlet_field *f, int64_t n) {
  inlet_type_id id = f->type.id;
  bool var = id == INLET_TYPE_STRING || id == INLET_TYPE_BINARY;
  if (f->n_children > 0 || a->length != n || (var && !a->offsets)) return false;
  return var || id == INLET_TYPE_BOOL || inlet_type_value_width(&f->type) > 0;
}

/* Keeps, in place, the first @p keep rows of @p a (field @p f, @p n rows;
 * can_compact) whose mask byte is SC_TRUE (every row when @p mask is NULL):
 * no allocation, the kept rows stay in memory already touched, and runs of
 * kept rows (what range predicates leave) move in one piece. */
static void compact_in_place(inlet_array *a, const inlet_field *f, const uint8_t *mask, int64_t n,
                             int64_t keep) {
  inlet_type_id id = f->type.id;
  int32_t w = inlet_type_value_width(&f->type);
  bool var = id == INLET_TYPE_STRING || id == INLET_TYPE_BINARY;
  bool bits = id == INLET_TYPE_BOOL;
  int64_t k = 0, r = 0;
  int32_t pos = 0;
  int32_t *o = a->offsets;
  while (r < n && k < keep) {
    if (mask && mask[r] != SC_TRUE) {
      r++;
      continue;
    }
    int64_t e = r + 1;
    while (e < n && e - r < keep - k && (!mask || mask[e] == SC_TRUE))
      e++;
    int64_t len = e - r;
    if (a->validity) inlet_bits_move_down(a->validity, k, r, len);
    if (var) {
      int32_t s0 = o[r], s1 = o[e];
      if (pos != s0) memmove(a->values + pos, a->values + s0, (size_t)(s1 - s0));
      for (int64_t i = 1; i <= len; i++)
        o[k + i] = pos + (o[r + i] - s0);
      pos += s1 - s0;
    } else if (bits) {
      inlet_bits_move_down(a->values, k, r, len);
    } else if (k != r) {
      memmove(a->values + k * w, a->values + r * w, (size_t)(len * w));
    }
    k += len;
    r = e;
  }
  if (var) o[0] = 0;
  int64_t nulls = 0;
  if (a->validity) {
    for (int64_t q = 0; q < k; q++)
      nulls += !inlet_bit_get(a->validity, q);
  }
  a->length = k;
  a->null_count = nulls;
}

/* Appends rows @p rows[0..n) of @p src (field @p f) to @p dst. */
static int take(inlet_array *dst, const inlet_field *f, const inlet_array *src, const int64_t *rows,
                int64_t n, inlet_error *err) {
  int fast = take_flat(dst, f, src, rows, n, err);
  if (fast != 0) return fast < 0 ? fast : 0;
  TRY(inlet_array_reserve_rows(dst, f, n, err));
  for (int64_t k = 0; k < n; k++) {
    int64_t r = rows[k];
    if (!inlet_array_is_valid(src, r)) {
      TRY(inlet_array_append_null(dst, f, err));
      continue;
    }
    const inlet_type *t = &f->type;
    switch (t->id) {
    case INLET_TYPE_BOOL:
      TRY(inlet_array_append_bool(dst, inlet_bit_get(src->values, r), err));
      break;
    case INLET_TYPE_UINT64:
      TRY(inlet_array_append_uint64(dst, ((const uint64_t *)src->values)[r], err));
      break;
    case INLET_TYPE_FLOAT:
      TRY(inlet_array_append_float(dst, ((const float *)src->values)[r], err));
      break;
    case INLET_TYPE_DOUBLE:
      TRY(inlet_array_append_double(dst, ((const double *)src->values)[r], err));
      break;
    case INLET_TYPE_DECIMAL: TRY(inlet_array_append_decimal(dst, src->values + r * 16, err)); break;
    case INLET_TYPE_FIXED_BINARY:
      TRY(inlet_array_append_bytes(dst, f, src->values + r * t->byte_width, (size_t)t->byte_width,
                                   err));
      break;
    case INLET_TYPE_STRING:
    case INLET_TYPE_BINARY: {
      int32_t a = src->offsets[r], b = src->offsets[r + 1];
      TRY(inlet_array_append_bytes(dst, f, src->values ? src->values + a : (const uint8_t *)"",
                                   (size_t)(b - a), err));
      break;
    }
    case INLET_TYPE_STRUCT:
      for (int32_t c = 0; c < f->n_children; c++)
        TRY(take(&dst->children[c], &f->children[c], &src->children[c], &r, 1, err));
      TRY(inlet_array_append_struct_entry(dst, err));
      break;
    case INLET_TYPE_LIST:
    case INLET_TYPE_MAP: {
      for (int64_t e = src->offsets[r]; e < src->offsets[r + 1]; e++)
        TRY(take(&dst->children[0], &f->children[0], &src->children[0], &e, 1, err));
      TRY(inlet_array_append_list_entry(dst, err));
      break;
    }
    default: {
      sc_value v;
      sc_value_get(&v, SCK_I64, t, src, r);
      TRY(inlet_array_append_int(dst, f, v.i, err));
      break;
    }
    }
  }
  return 0;
}

int inlet_scan_next(inlet_scan *sc, inlet_batch *out, inlet_error *err) {
  if (sc->par) return par_next(sc, out, err);
  int64_t *rows = NULL;
  int rc;
  for (;;) {
    if (sc->limit >= 0 && sc->st.rows_matched >= sc->limit) return 0;
    /* A limit bounds the work: only the rows still wanted are read (page
     * by page, until enough match, when a filter decides). */
    if (sc->limit >= 0)
      delta_scan_set_window(sc->ts, sc->limit - sc->st.rows_matched, sc->pred != NULL);
    rc = delta_scan_next(sc->ts, &sc->in, err);
    if (rc == DELTA_SCAN_ROW_GROUP) {
      TRY(judge_row_group(sc, err));
      continue;
    }
    if (rc <= 0) return rc;
    int64_t n = sc->in.num_rows;
    sc->st.rows_read += n;
    int64_t take_n = n;
    bool all = true;
    if (sc->pred) {
      if (n > sc->mask_cap) {
        inlet_free(sc->mask);
        sc->mask = inlet_malloc((size_t)n);
        if (!sc->mask) {
          sc->mask_cap = 0;
          return inlet_fail(err, INLET_ENOMEM, "out of memory filtering rows");
        }
        sc->mask_cap = n;
      }
      TRY(sc_pred_eval(sc->pred, &sc->in, sc->mask, err));
      take_n = 0;
      for (int64_t r = 0; r < n; r++)
        take_n += sc->mask[r] == SC_TRUE;
      all = take_n == n;
    }
    if (take_n == 0) continue;
    if (sc->limit >= 0 && take_n > sc->limit - sc->st.rows_matched) {
      take_n = sc->limit - sc->st.rows_matched;
      all = false;
    }
    inlet_batch_reset(out);
    TRY(inlet_batch_init(out, &sc->out_schema, err));
    if (!all) {
      /* When every output column is flat and output once, filter the
       * decoded columns in place and move them; else gather below. */
      bool in_place = true;
      for (int32_t j = 0; j < sc->out_schema.n_fields && in_place; j++) {
        int32_t c = sc->out_cols[j];
        for (int32_t q = 0; q < sc->out_schema.n_fields; q++)
          in_place &= q == j || sc->out_cols[q] != c;
        in_place &= can_compact(&sc->in.columns[c], &sc->out_schema.fields[j], n);
      }
      if (in_place) {
        for (int32_t j = 0; j < sc->out_schema.n_fields; j++) {
          inlet_array *src = &sc->in.columns[sc->out_cols[j]];
          compact_in_place(src, &sc->out_schema.fields[j], sc->pred ? sc->mask : NULL, n, take_n);
          inlet_array_reset(&out->columns[j]);
          out->columns[j] = *src;
          memset(src, 0, sizeof *src);
        }
        out->num_rows = take_n;
        sc->st.rows_matched += take_n;
        return 1;
      }
      rows = inlet_malloc((size_t)take_n * sizeof *rows + 1);
      if (!rows) return inlet_fail(err, INLET_ENOMEM, "out of memory filtering rows");
      int64_t k = 0;
      for (int64_t r = 0; r < n && k < take_n; r++)
        if (!sc->pred || sc->mask[r] == SC_TRUE) rows[k++] = r;
    }
    for (int32_t j = 0; j < sc->out_schema.n_fields; j++) {
      int32_t c = sc->out_cols[j];
      inlet_array *src = &sc->in.columns[c];
      if (all) {
        bool used_again = false; /* a column listed twice cannot be moved twice */
        for (int32_t q = j + 1; q < sc->out_schema.n_fields; q++)
          used_again |= sc->out_cols[q] == c;
        if (!used_again) {
          inlet_array_reset(&out->columns[j]);
          out->columns[j] = *src;
          memset(src, 0, sizeof *src);
          continue;
        }
        if (!rows) {
          rows = inlet_malloc((size_t)n * sizeof *rows + 1);
          if (!rows) return inlet_fail(err, INLET_ENOMEM, "out of memory filtering rows");
          for (int64_t r = 0; r < n; r++)
            rows[r] = r;
        }
      }
      rc = take(&out->columns[j], &sc->out_schema.fields[j], src, rows, take_n, err);
      if (rc < 0) {
        inlet_free(rows);
        return rc;
      }
    }
    inlet_free(rows);
    out->num_rows = take_n;
    sc->st.rows_matched += take_n;
    return 1;
  }
}
