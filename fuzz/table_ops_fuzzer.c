/*
 * libFuzzer harness for table operations against the fault-injecting
 * storage backend (issue 12; src/storage/fault.h). The input is a sequence
 * of operations — create (through ingest's create path), append, multi-batch
 * writer, ingest, compact, vacuum, checkpoint, maintain (compact + log
 * cleanup + vacuum), scan — each run again and again with its k-th storage
 * call failing (k = start, start + stride, ...; the fault mode from the
 * input: one failure, a failure after the call was performed, or a crash
 * that fails every later call), until a run no longer reaches the fault.
 * After every run, a fresh reader on the plain backend must find the table
 * readable and holding either the state before the run or the state the run
 * completes — never a lost, half-applied or duplicated row — and a run that
 * returned 0 must have completed. Ingest must end with every source record
 * in the table exactly once. Leaks and memory errors abort (ASan).
 *
 * Coverage gap (issue 13 routes them through storage): dead letters are
 * written with raw POSIX calls and checkpoint Parquet files by path, so
 * faults reach neither; data files go through the backend.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "delta/delta_table_int.h"
#include "fuzz_table_support.h"
#include "storage/fault.h"

#define MAX_IDS (1 << 16)
#define MAX_ATTEMPTS 160
/* Runs per input, all operations together: bounds the time of one input
 * (the corpus replay in ctest runs every seed and 65 generated inputs). */
#define RUN_BUDGET 60
#define DDL "id long not null, k string, v double"

typedef struct state {
  uint8_t count[MAX_IDS]; /* copies of each id in the table */
  bool ok;
} state;

static void count_row(void *ctx, const inlet_batch *b, int64_t row) {
  state *s = ctx;
  int64_t id = ((const int64_t *)b->columns[0].values)[row];
  if (id < 0 || id >= MAX_IDS) abort();
  if (s->count[id] < 255) s->count[id]++;
}

/* The table as a fresh reader on the plain backend sees it. */
static void read_state(const char *table, state *s, bool must_exist) {
  memset(s, 0, sizeof *s);
  inlet_error err = INLET_ERROR_INIT;
  int64_t n = fz_scan(table, count_row, s, &err);
  if (n == INLET_ENOTFOUND && !must_exist) return;
  if (n < 0) {
    fprintf(stderr, "table unreadable after a fault: %s\n", err.message);
    abort();
  }
  s->ok = true;
}

static bool same(const state *a, const state *b) {
  return a->ok == b->ok && memcmp(a->count, b->count, sizeof a->count) == 0;
}

static const char *const keys[] = {"a", "b", "x/y", "%41", "caf\xc3\xa9", "", "sp ace", "k=v"};

static void make_batch(inlet_batch *b, const inlet_schema *s, int64_t first, int n, uint8_t seed) {
  if (inlet_batch_init(b, s, NULL) != 0) abort();
  for (int i = 0; i < n; i++) {
    const char *k = keys[(seed + i) % 8];
    if (inlet_array_append_int(&b->columns[0], &s->fields[0], first + i, NULL) != 0 ||
        ((seed + i) % 11 == 3
             ? inlet_array_append_null(&b->columns[1], &s->fields[1], NULL)
             : inlet_array_append_bytes(&b->columns[1], &s->fields[1], k, strlen(k), NULL)) != 0 ||
        inlet_array_append_double(&b->columns[2], (double)(first + i) / 4, NULL) != 0)
      abort();
  }
  b->num_rows = n;
}

typedef enum op {
  OP_APPEND,
  OP_WRITER,
  OP_INGEST,
  OP_COMPACT,
  OP_VACUUM,
  OP_CHECKPOINT,
  OP_MAINTAIN,
  OP_SCAN,
  OP_N
} op;

typedef struct ctx {
  char dir[4096];
  char table[4200];
  inlet_schema schema;
  int64_t next_id;
  int ingest_files;
} ctx;

/* Writes the source of an ingest: ids [first, first + n), one bad record in
 * between. */
static void write_source(const char *path, int64_t first, int n, uint8_t seed) {
  FILE *f = fopen(path, "w");
  if (!f) abort();
  for (int i = 0; i < n; i++) {
    fprintf(f, "{\"id\":%lld,\"k\":\"%s\",\"v\":%d}\n", (long long)(first + i),
            keys[(seed + i) % 8] /* none needs escaping in JSON */, i);
    if (i == n / 2) fputs("{\"id\":\"bad\"}\n", f);
  }
  fclose(f);
}

/* One run of @p o against table @p t (its storage is the fault wrapper).
 * *added gets the ids an append run adds when it completes. */
static int run_op(ctx *c, inlet_table *t, op o, uint8_t arg, int64_t *first, int *n_added,
                  const char *source, const char *app_id) {
  inlet_error err = INLET_ERROR_INIT;
  *n_added = 0;
  switch (o) {
  case OP_APPEND: {
    inlet_batch b;
    int n = 1 + arg % 12;
    *first = c->next_id;
    make_batch(&b, &c->schema, *first, n, arg);
    c->next_id += n;
    *n_added = n;
    int rc = inlet_table_append(t, &b, 1, NULL, NULL, &err);
    inlet_batch_reset(&b);
    return rc;
  }
  case OP_WRITER: {
    inlet_table_writer *w = NULL;
    *first = c->next_id;
    int rc = inlet_table_writer_open(&w, t, NULL, &err);
    for (int i = 0; rc == 0 && i < 3; i++) {
      inlet_batch b;
      int n = 1 + (arg + i) % 5;
      make_batch(&b, &c->schema, c->next_id, n, (uint8_t)(arg + i));
      c->next_id += n;
      *n_added += n;
      rc = inlet_table_writer_write(w, &b, &err);
      inlet_batch_reset(&b);
    }
    if (rc == 0) rc = inlet_table_writer_commit(w, NULL, &err);
    inlet_table_writer_free(w);
    return rc;
  }
  case OP_INGEST: {
    inlet_ingest_options io = INLET_INGEST_OPTIONS_INIT;
    io.source = source;
    io.once = true;
    io.app_id = app_id; /* one per source file */
    io.max_rows = 1 + arg % 6;
    inlet_table_create_options co = INLET_TABLE_CREATE_OPTIONS_INIT;
    const char *pcols[] = {"k"};
    co.n_partition_columns = 1;
    co.partition_columns = pcols;
    io.create_schema = &c->schema; /* creates the table when it has no commit yet */
    io.create_options = &co;
    return inlet_ingest_run(NULL, t, &io, &err);
  }
  case OP_COMPACT:
  case OP_MAINTAIN: {
    inlet_compact_options co = INLET_COMPACT_OPTIONS_INIT;
    co.min_files = 2;
    co.bins_per_commit = 1 + arg % 3;
    inlet_compact_result cr;
    int rc = inlet_table_compact(&cr, t, &co, &err);
    if (rc == 0 && cr.failed_groups) rc = INLET_EIO; /* a group failed: not complete */
    if (rc != 0 || o == OP_COMPACT) return rc;
    inlet_log_cleanup_options lo = INLET_LOG_CLEANUP_OPTIONS_INIT;
    lo.retain_ms = 0;
    rc = inlet_table_cleanup_log(NULL, t, &lo, &err);
    if (rc != 0) return rc;
    /* fall through to vacuum */
  }
  /* fall through */
  case OP_VACUUM: {
    inlet_vacuum_options vo = INLET_VACUUM_OPTIONS_INIT;
    vo.now_ms = delta_now_ms() + 30LL * 24 * 3600 * 1000; /* everything looks old */
    return inlet_table_vacuum(NULL, t, &vo, &err);
  }
  case OP_CHECKPOINT: {
    /* A checkpoint of the version already there (an automatic one, or
     * an earlier run) is left as it is: INLET_EEXISTS, nothing written. */
    int rc = inlet_table_checkpoint(t, NULL, &err);
    return rc == INLET_EEXISTS ? 0 : rc;
  }
  case OP_SCAN: {
    inlet_snapshot *s = NULL;
    inlet_table_scan *sc = NULL;
    inlet_batch b;
    memset(&b, 0, sizeof b);
    int rc = inlet_table_snapshot(&s, t, &err);
    if (rc == 0) rc = inlet_table_scan_open(&sc, s, &err);
    while (rc == 0 && (rc = inlet_table_scan_next(sc, &b, &err)) == 1)
      rc = 0;
    inlet_batch_reset(&b);
    inlet_table_scan_free(sc);
    inlet_snapshot_free(s);
    return rc;
  }
  default: abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 3) return 0;
  fz_in in = {data, size, 0};
  ctx c;
  memset(&c, 0, sizeof c);
  if (inlet_schema_parse(&c.schema, DDL, NULL) != 0) abort();
  fz_scratch(c.dir, sizeof c.dir, "tableops");
  snprintf(c.table, sizeof c.table, "%s/t", c.dir);
  char log[4300];
  snprintf(log, sizeof log, "%s/_delta_log", c.table);
  if (mkdir(c.table, 0777) != 0 || mkdir(log, 0777) != 0) abort();
  uint8_t head = fz_u8(&in);
  inlet_fault_mode mode = (inlet_fault_mode)(head % 4);
  int stride = 1 + (head >> 2) % 4;
  /* The table: created by the first ingest (through the faulty backend),
   * or beforehand by ingest of nothing when the input says so. */
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  if (inlet_table_open(&t, c.table, &err) != 0) abort();
  inlet_storage *plain = t->st, *fs = NULL;
  if (inlet_storage_fault_wrap(&fs, plain, true, &err) != 0) abort();
  t->st = fs;
  /* Large: static (libFuzzer runs one input at a time). */
  static state before, now, done;
  memset(&before, 0, sizeof before);
  bool created = false;
  int budget = RUN_BUDGET;
  for (int step = 0; step < 6 && fz_left(&in) && budget > 0; step++) {
    uint8_t opb = fz_u8(&in), arg = fz_u8(&in);
    op o = created ? (op)(opb % OP_N) : OP_INGEST; /* the first operation creates */
    char source[4400] = "", app_id[32] = "";
    int64_t src_first = c.next_id;
    int src_n = 0;
    if (o == OP_INGEST) {
      snprintf(app_id, sizeof app_id, "fz%d", c.ingest_files);
      snprintf(source, sizeof source, "file:%s/src%d.ndjson", c.dir, c.ingest_files++);
      src_n = 1 + arg % 9;
      write_source(source + 5, src_first, src_n, arg);
      c.next_id += src_n;
    }
    int start = fz_u8(&in) % 4;
    bool completed = false;
    for (int attempt = 0, k = start; attempt < MAX_ATTEMPTS && budget > 0 && !completed;
         attempt++, k += stride, budget--) {
      inlet_fault_reset_counts(fs);
      inlet_fault_arm(fs, INLET_FAULT_ANY, k, mode);
      int64_t first = 0;
      int n_added = 0;
      int rc = run_op(&c, t, o, arg, &first, &n_added, source, app_id);
      bool fired = inlet_fault_fired(fs);
      inlet_fault_disarm(fs);
      if (getenv("INLET_FUZZ_VERBOSE"))
        fprintf(stderr, "step %d op %d attempt %d fault at call %d mode %d: rc %d fired %d\n", step,
                (int)o, attempt, k, (int)mode, rc, fired);
      read_state(c.table, &now, created);
      /* What may the table hold now? */
      done = before;
      if (o == OP_APPEND || o == OP_WRITER) {
        for (int i = 0; i < n_added; i++)
          done.count[first + i]++;
        done.ok = true;
      }
      bool is_before = same(&now, &before), is_done = same(&now, &done);
      if (o == OP_INGEST) {
        /* Batches commit one by one: any prefix of the source may be in,
         * each record at most once, nothing else changed. */
        is_done = now.ok;
        int in_table = 0;
        for (int64_t id = 0; id < MAX_IDS; id++) {
          bool from_src = id >= src_first && id < src_first + src_n;
          if (from_src ? now.count[id] > 1 : now.count[id] != before.count[id]) abort();
          in_table += from_src && now.count[id] == 1;
        }
        is_done = now.ok && in_table == src_n;
        is_before = is_before || (now.ok && !is_done); /* a partial prefix: resumable */
      }
      if (!is_before && !is_done) {
        fprintf(stderr,
                "op %d attempt %d (fault at call %d, mode %d, rc %d): the table is "
                "neither as before nor as after\n",
                (int)o, attempt, k, (int)mode, rc);
        abort();
      }
      if (rc == 0 && !is_done && o != OP_SCAN) {
        fprintf(stderr, "op %d returned 0 but did not complete (fault at call %d)\n", (int)o, k);
        abort();
      }
      before = now;
      if (o == OP_INGEST && now.ok) created = true;
      if (o == OP_APPEND || o == OP_WRITER) created = created || now.ok;
      completed = !fired && rc == 0;
      if (!fired && rc != 0) { /* nothing here fails on its own */
        fprintf(stderr, "op %d failed without a fault: rc %d\n", (int)o, rc);
        abort();
      }
    }
    if (!completed) break; /* budget spent on this op: stop the sequence */
  }
  inlet_table_free(t); /* frees fs, which owns plain */
  inlet_schema_reset(&c.schema);
  fz_rmtree(c.dir);
  return 0;
}
