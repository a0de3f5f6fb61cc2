/*
 * Parquet write and full-scan benchmark (issue 2, section 5 "Proof", bench).
 *
 * Generates seed-shaped events in memory, batch by batch, and writes them
 * with inlet's Parquet writer; or full-scans a Parquet file, decoding every
 * column. Uses only the public API (include/inlet). scripts/bench.sh runs it
 * side by side with bench/duckdb_side.mjs, which builds the very same rows in
 * DuckDB from the same formulas (see event_gen below), so the two files hold
 * identical values and the scan checksums must agree.
 *
 *   parquet_bench write --out F [--codec zstd|snappy|...] [--rows N]
 *                       [--row-group-rows R] [--batch-rows B] [--level L] [--defaults]
 *                       [--encodings compatible|extended]
 *                       [--no-sync]   (diagnosis only: skip the fsync)
 *                       [--threads N] (writer option threads; the file's bytes do not
 *                                      depend on it)
 *   parquet_bench scan F [--threads N]
 *
 * Each prints one JSON object on stdout. Write timings cover opening the
 * writer, every inlet_parquet_writer_write call and close, which fsyncs the
 * file, over batches generated beforehand (gen_seconds, untimed; all of
 * them are held in memory, about 36 bytes a row); writer_rss_kb is the
 * peak RSS less what the generated batches held. Scan
 * timings cover open, decoding every row group with all columns, and
 * summing. With --threads N (issue 18), N threads each open their own
 * reader (distinct handles are independent) and take row groups in turn;
 * each row group's sums are kept apart and added in row-group order, so
 * the checksums are the same bits whatever N. CPU time is the process's,
 * all threads counted.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "inlet/batch.h"
#include "inlet/error.h"
#include "inlet/parquet.h"

/* The generator. Row i (0-based) has, with h = (i * 2654435761) mod 2^32:
 *   event_id   = i
 *   user       = "user_" + decimal((h >> 8) mod 1000)      (1,000 values)
 *   amount     = ((h >> 4) mod 1000000) / 100.0            (2 decimals)
 *   event_time = 1700000000000000 + i*1000 + (h mod 1000)  (micros, ascending)
 * duckdb_side.mjs computes the same in SQL: keep the two in step. */
#define GEN_MULT UINT64_C(2654435761)
#define GEN_TIME_BASE INT64_C(1700000000000000)

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of the process: unlike wall time, barely moved by other jobs on a
 * shared machine, so the report shows both. fsync waits are not CPU time. */
static double cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long max_rss_kb(void) {
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0) return -1;
  return ru.ru_maxrss;
}

/* Resident memory now (/proc/self/statm), -1 when unknown. */
static long current_rss_kb(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  if (!f) return -1;
  long size = 0, resident = -1;
  if (fscanf(f, "%ld %ld", &size, &resident) != 2) resident = -1;
  fclose(f);
  long page_kb = sysconf(_SC_PAGESIZE) / 1024;
  return resident >= 0 && page_kb > 0 ? resident * page_kb : -1;
}

static void die(const char *what, const inlet_error *err) {
  fprintf(stderr, "parquet_bench: %s: %s\n", what, inlet_errmsg(err));
  exit(1);
}

static void event_schema(inlet_schema *schema) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema_init(schema);
  static const struct {
    const char *name;
    inlet_type_id id;
  } cols[] = {{"event_id", INLET_TYPE_INT64},
              {"user", INLET_TYPE_STRING},
              {"amount", INLET_TYPE_DOUBLE},
              {"event_time", INLET_TYPE_TIMESTAMP}};
  for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++) {
    inlet_field f;
    memset(&f, 0, sizeof f);
    f.name = (char *)cols[c].name;
    f.type.id = cols[c].id;
    f.type.unit = INLET_UNIT_MICRO;
    f.type.utc = true;
    f.nullable = false;
    f.field_id = -1;
    if (inlet_schema_add_field(schema, &f, &err) != 0) die("schema", &err);
  }
}

/* Fills @p b with rows [first, first + n). Generation goes through the
 * general append API: it is not timed, so clarity wins over speed. */
/* --gen mix: h from a 64-bit mixer instead (no long-range structure), to
 * tell what page size costs on data without exact periods. */
static bool g_mix;
static uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= UINT64_C(0xbf58476d1ce4e5b9);
  x ^= x >> 27;
  x *= UINT64_C(0x94d049bb133111eb);
  return (x ^ (x >> 31)) & UINT64_C(0xffffffff);
}

static void event_gen(inlet_batch *b, int64_t first, int64_t n) {
  inlet_error err = INLET_ERROR_INIT;
  const inlet_field *f = b->schema.fields;
  inlet_batch_clear(b);
  for (int64_t i = first; i < first + n; i++) {
    uint64_t h = g_mix ? mix64((uint64_t)i) : ((uint64_t)i * GEN_MULT) & UINT64_C(0xffffffff);
    char user[16];
    int ulen = snprintf(user, sizeof user, "user_%u", (unsigned)((h >> 8) % 1000));
    double amount = (double)((h >> 4) % 1000000) / 100.0;
    int64_t ts = GEN_TIME_BASE + i * 1000 + (int64_t)(h % 1000);
    if (inlet_array_append_int(&b->columns[0], &f[0], i, &err) != 0 ||
        inlet_array_append_bytes(&b->columns[1], &f[1], user, (size_t)ulen, &err) != 0 ||
        inlet_array_append_double(&b->columns[2], amount, &err) != 0 ||
        inlet_array_append_int(&b->columns[3], &f[3], ts, &err) != 0)
      die("generating rows", &err);
  }
  b->num_rows = n;
}

static int64_t arg_i64(const char *s, const char *name) {
  char *end = NULL;
  long long v = strtoll(s, &end, 10);
  if (end == s || *end != '\0' || v < 0) {
    fprintf(stderr, "parquet_bench: bad %s: %s\n", name, s);
    exit(2);
  }
  return (int64_t)v;
}

static int cmd_write(int argc, char **argv) {
  const char *out = NULL, *codec = "zstd", *encodings = "compatible";
  int64_t rows = 10000000, rg_rows = 122880, batch_rows = 65536, level = 0, page_rows = 0;
  int64_t threads = 1;
  bool defaults = false, sync = true;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--defaults") == 0) {
      defaults = true;
      continue;
    }
    if (strcmp(a, "--no-sync") == 0) { /* diagnosis only: the bench always syncs */
      sync = false;
      continue;
    }
    if (v == NULL) {
      fprintf(stderr, "parquet_bench: %s needs a value\n", a);
      return 2;
    }
    i++;
    if (strcmp(a, "--out") == 0)
      out = v;
    else if (strcmp(a, "--codec") == 0)
      codec = v;
    else if (strcmp(a, "--rows") == 0)
      rows = arg_i64(v, a);
    else if (strcmp(a, "--row-group-rows") == 0)
      rg_rows = arg_i64(v, a);
    else if (strcmp(a, "--batch-rows") == 0)
      batch_rows = arg_i64(v, a);
    else if (strcmp(a, "--level") == 0)
      level = arg_i64(v, a);
    else if (strcmp(a, "--page-rows") == 0)
      page_rows = arg_i64(v, a);
    else if (strcmp(a, "--encodings") == 0)
      encodings = v;
    else if (strcmp(a, "--threads") == 0)
      threads = arg_i64(v, a);
    else if (strcmp(a, "--gen") == 0 && (strcmp(v, "mix") == 0 || strcmp(v, "lcg") == 0))
      g_mix = strcmp(v, "mix") == 0;
    else {
      fprintf(stderr, "parquet_bench: unknown option %s\n", a);
      return 2;
    }
  }
  if (out == NULL || batch_rows <= 0) {
    fprintf(stderr, "parquet_bench write: --out is required\n");
    return 2;
  }

  inlet_error err = INLET_ERROR_INIT;
  inlet_parquet_writer_options opts = INLET_PARQUET_WRITER_OPTIONS_INIT;
  if (inlet_compression_parse(&opts.compression, codec, &err) != 0) die("codec", &err);
  if (inlet_parquet_encodings_parse(&opts.encodings, encodings, &err) != 0) die("encodings", &err);
  if (!defaults) {
    /* Rows, not bytes, bound a row group, as DuckDB's ROW_GROUP_SIZE does. */
    opts.row_group_max_rows = rg_rows;
    opts.row_group_bytes = (int64_t)1 << 40;
    opts.compression_level = (int)level;
  }
  opts.page_max_rows = page_rows;
  opts.sync_on_close = sync;
  opts.threads = threads > 1 ? (int32_t)threads : 0;

  inlet_schema schema;
  event_schema(&schema);

  /* Every batch is generated before the clock starts, as DuckDB's side
   * reads its rows from a table it filled beforehand. The writer's threads
   * go on compressing pages after a write call returns, so the whole loop
   * up to close is timed. (Generating each batch inside the loop and
   * taking off a generation-only pass, as before, was fragile: at two
   * threads the generator shared the cores with the writer's threads, and
   * a slow generation-only pass made the write look fast; a run once took
   * 0.73 s off a loop whose generation took 0.50.) */
  int64_t n_batches = (rows + batch_rows - 1) / batch_rows;
  inlet_batch *batches = calloc((size_t)(n_batches > 0 ? n_batches : 1), sizeof *batches);
  if (!batches) {
    fprintf(stderr, "parquet_bench: out of memory\n");
    return 1;
  }
  double g0 = now_seconds();
  for (int64_t k = 0; k < n_batches; k++) {
    int64_t first = k * batch_rows;
    int64_t n = rows - first < batch_rows ? rows - first : batch_rows;
    if (inlet_batch_init(&batches[k], &schema, &err) != 0) die("batch", &err);
    /* Reserved up front and written in place, as a table's rows are: grown
     * by realloc instead, the buffers are moved by mremap, and on this
     * machine's hypervisor a test program's first read of moved pages ran at
     * 1.5 GB/s, against 18-27 GB/s for pages written in place. */
    for (int c = 0; c < schema.n_fields; c++)
      if (inlet_array_reserve_rows(&batches[k].columns[c], &schema.fields[c], n, &err) != 0)
        die("batch", &err);
    if (inlet_array_reserve_data(&batches[k].columns[1], n * 8, &err) != 0) die("batch", &err);
    event_gen(&batches[k], first, n);
  }
  double gen_s = now_seconds() - g0;
  long source_rss_kb = current_rss_kb();

  remove(out);
  double t0 = now_seconds(), c0 = cpu_seconds();
  inlet_parquet_writer *w = NULL;
  if (inlet_parquet_writer_open(&w, out, &schema, &opts, &err) != 0) die(out, &err);
  for (int64_t k = 0; k < n_batches; k++)
    if (inlet_parquet_writer_write(w, &batches[k], &err) != 0) die(out, &err);
  double t = now_seconds();
  if (inlet_parquet_writer_close(w, &err) != 0) die(out, &err);
  double close_s = now_seconds() - t; /* last row group, footer and fsync */
  double timed = now_seconds() - t0, cpu = cpu_seconds() - c0;
  int64_t bytes = inlet_parquet_writer_bytes(w);
  inlet_parquet_writer_free(w);
  for (int64_t k = 0; k < n_batches; k++)
    inlet_batch_reset(&batches[k]);
  free(batches);
  inlet_schema_reset(&schema);
  /* The peak less what the generated rows held: the writer's own memory. */
  long peak_kb = max_rss_kb();
  long writer_rss_kb = peak_kb >= 0 && source_rss_kb >= 0 ? peak_kb - source_rss_kb : -1;

  printf("{\"side\":\"inlet\",\"op\":\"write\",\"codec\":\"%s\",\"encodings\":\"%s\","
         "\"defaults\":%s,\"threads\":%d,\"rows\":%" PRId64
         ",\"seconds\":%.6f,\"cpu_seconds\":%.6f,\"close_seconds\":%.6f,\"gen_seconds\":%.6f,"
         "\"sync\":%s,\"bytes\":%" PRId64
         ",\"max_rss_kb\":%ld,\"source_rss_kb\":%ld,\"writer_rss_kb\":%ld}\n",
         codec, encodings, defaults ? "true" : "false", (int)threads, rows, timed, cpu, close_s,
         gen_s, sync ? "true" : "false", bytes, peak_kb, source_rss_kb, writer_rss_kb);
  return 0;
}

/* One row group's checksums; kept apart so that they are added in row-group
 * order whatever thread decoded them. */
typedef struct rg_sums {
  double amount;
  int64_t id, user_len, max_time, rows, nulls;
} rg_sums;

typedef struct scan_job {
  const char *path;
  int32_t n_rg;
  atomic_int next_rg;
  rg_sums *sums;
  int cols[4]; /* event_id, user, amount, event_time */
} scan_job;

static void scan_row_group(const inlet_batch *b, const int *cols, rg_sums *out) {
  int64_t n = b->num_rows;
  out->rows = n;
  out->nulls = 0;
  for (int c = 0; c < b->schema.n_fields; c++)
    out->nulls += b->columns[c].null_count;
  const int64_t *ids = (const int64_t *)b->columns[cols[0]].values;
  const int32_t *offs = b->columns[cols[1]].offsets;
  const double *amounts = (const double *)b->columns[cols[2]].values;
  const int64_t *times = (const int64_t *)b->columns[cols[3]].values;
  double amount = 0;
  int64_t id = 0, user_len = 0, max_time = INT64_MIN;
  for (int64_t i = 0; i < n; i++) {
    id += ids[i];
    amount += amounts[i];
    user_len += offs[i + 1] - offs[i];
    if (times[i] > max_time) max_time = times[i];
  }
  out->amount = amount;
  out->id = id;
  out->user_len = user_len;
  out->max_time = max_time;
}

/* A scanning thread: its own reader, row groups taken from the shared counter. */
static void *scan_worker(void *arg) {
  scan_job *job = arg;
  inlet_error err = INLET_ERROR_INIT;
  inlet_parquet_reader_options ropts = INLET_PARQUET_READER_OPTIONS_INIT;
  inlet_parquet_reader *r = NULL;
  if (inlet_parquet_reader_open(&r, job->path, &ropts, &err) != 0) die(job->path, &err);
  inlet_batch b;
  memset(&b, 0, sizeof b);
  for (;;) {
    int32_t rg = (int32_t)atomic_fetch_add(&job->next_rg, 1);
    if (rg >= job->n_rg) break;
    if (inlet_parquet_reader_read_row_group(r, rg, &b, &err) != 0) die(job->path, &err);
    scan_row_group(&b, job->cols, &job->sums[rg]);
  }
  inlet_batch_reset(&b);
  inlet_parquet_reader_free(r);
  return NULL;
}

static int cmd_scan(const char *path, int64_t threads) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_parquet_reader_options ropts = INLET_PARQUET_READER_OPTIONS_INIT;
  double t0 = now_seconds(), c0 = cpu_seconds();
  inlet_parquet_reader *r = NULL;
  if (inlet_parquet_reader_open(&r, path, &ropts, &err) != 0) die(path, &err);
  const inlet_schema *s = inlet_parquet_reader_schema(r);
  scan_job job;
  job.path = path;
  job.cols[0] = inlet_schema_find(s, "event_id");
  job.cols[1] = inlet_schema_find(s, "user");
  job.cols[2] = inlet_schema_find(s, "amount");
  job.cols[3] = inlet_schema_find(s, "event_time");
  for (int c = 0; c < 4; c++) {
    if (job.cols[c] < 0) {
      fprintf(stderr, "parquet_bench: %s lacks an event column\n", path);
      return 1;
    }
  }
  job.n_rg = inlet_parquet_reader_num_row_groups(r);
  atomic_init(&job.next_rg, 0);
  job.sums = calloc(job.n_rg > 0 ? (size_t)job.n_rg : 1, sizeof *job.sums);
  if (job.sums == NULL) {
    fprintf(stderr, "parquet_bench: out of memory\n");
    return 1;
  }
  if (threads <= 1) {
    inlet_batch b;
    memset(&b, 0, sizeof b);
    for (int32_t rg = 0; rg < job.n_rg; rg++) {
      if (inlet_parquet_reader_read_row_group(r, rg, &b, &err) != 0) die(path, &err);
      scan_row_group(&b, job.cols, &job.sums[rg]);
    }
    inlet_batch_reset(&b);
  } else {
    pthread_t *tids = calloc((size_t)threads, sizeof *tids);
    if (tids == NULL) {
      fprintf(stderr, "parquet_bench: out of memory\n");
      return 1;
    }
    for (int64_t t = 0; t < threads; t++) {
      if (pthread_create(&tids[t], NULL, scan_worker, &job) != 0) {
        fprintf(stderr, "parquet_bench: cannot start a scanning thread\n");
        return 1;
      }
    }
    for (int64_t t = 0; t < threads; t++)
      pthread_join(tids[t], NULL);
    free(tids);
  }
  double sum_amount = 0;
  int64_t sum_id = 0, sum_user_len = 0, max_time = INT64_MIN, rows = 0, nulls = 0;
  for (int32_t rg = 0; rg < job.n_rg; rg++) {
    const rg_sums *g = &job.sums[rg];
    sum_amount += g->amount;
    sum_id += g->id;
    sum_user_len += g->user_len;
    if (g->max_time > max_time) max_time = g->max_time;
    rows += g->rows;
    nulls += g->nulls;
  }
  double secs = now_seconds() - t0, cpu = cpu_seconds() - c0;
  free(job.sums);
  inlet_parquet_reader_free(r);

  printf("{\"side\":\"inlet\",\"op\":\"scan\",\"file\":\"%s\",\"threads\":%d,\"rows\":%" PRId64
         ",\"seconds\":%.6f,\"cpu_seconds\":%.6f,\"sum_amount\":%.2f,\"sum_event_id\":%" PRId64
         ",\"sum_user_len\":%" PRId64 ",\"max_event_time\":%" PRId64 ",\"nulls\":%" PRId64
         ",\"max_rss_kb\":%ld}\n",
         path, threads > 1 ? (int)threads : 1, rows, secs, cpu, sum_amount, sum_id, sum_user_len,
         max_time, nulls, max_rss_kb());
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 2 && strcmp(argv[1], "write") == 0) return cmd_write(argc - 2, argv + 2);
  if (argc == 3 && strcmp(argv[1], "scan") == 0) return cmd_scan(argv[2], 1);
  if (argc == 5 && strcmp(argv[1], "scan") == 0 && strcmp(argv[3], "--threads") == 0)
    return cmd_scan(argv[2], arg_i64(argv[4], "--threads"));
  fprintf(stderr,
          "usage: parquet_bench write --out F [--codec C] [--rows N] [--row-group-rows R]\n"
          "                           [--batch-rows B] [--level L] [--defaults] [--no-sync]\n"
          "                           [--threads N]\n"
          "       parquet_bench scan F [--threads N]\n");
  return 2;
}
