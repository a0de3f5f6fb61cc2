/*
 * Object-store benchmark (issue 14, section 3): a table on S3 (s3rver behind
 * the checking proxy of tests/support/objstore/emulators.mjs, which counts
 * requests and response bytes and adds a fixed latency per request), through
 * the public API. bench/objstore_bench.sh starts the emulators and runs it.
 *
 *   1. requests per commit in steady state: one handle appending small
 *      batches (after warm-up commits), requests counted by the proxy per
 *      commit, by method, and the wall time per commit;
 *   2. a selective scan: requests and bytes fetched for a predicate that
 *      matches a narrow range of a larger file, beside a full scan of it;
 *   3. a 200-file scan at the injected latency: wall time against
 *      200 x latency (the time one request per file in sequence would take).
 *
 * usage: objstore_bench PROXY_URL LATENCY_MS [PREFIX]
 * (credentials and endpoint from the environment: AWS_* as the script sets)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "inlet/inlet.h"

static const char *proxy;

typedef struct pstats {
  long requests, get, put, head, post, del, lists, bytes_out;
} pstats;

static long field(const char *json, const char *key) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\":", key);
  const char *p = strstr(json, pat);
  return p ? atol(p + strlen(pat)) : 0;
}

static void proxy_stats(pstats *s) {
  char cmd[512], buf[65536];
  snprintf(cmd, sizeof cmd, "curl -s %s/__proxy/stats", proxy);
  FILE *f = popen(cmd, "r");
  size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  if (f) pclose(f);
  buf[n] = '\0';
  memset(s, 0, sizeof *s);
  s->requests = field(buf, "requests");
  s->get = field(buf, "GET");
  s->put = field(buf, "PUT");
  s->head = field(buf, "HEAD");
  s->post = field(buf, "POST");
  s->del = field(buf, "DELETE");
  s->lists = field(buf, "lists");
  s->bytes_out = field(buf, "bytesOut");
}

static void proxy_latency(int ms) {
  char cmd[512];
  snprintf(cmd, sizeof cmd,
           "curl -s -X POST -d '{\"rules\":[],\"latencyMs\":%d}' %s/__proxy/faults >/dev/null", ms,
           proxy);
  if (system(cmd) != 0) {
    fprintf(stderr, "cannot reach the proxy at %s\n", proxy);
    exit(1);
  }
}

static void diff(pstats *d, const pstats *a, const pstats *b) {
  d->requests = b->requests - a->requests;
  d->get = b->get - a->get;
  d->put = b->put - a->put;
  d->head = b->head - a->head;
  d->post = b->post - a->post;
  d->del = b->del - a->del;
  d->lists = b->lists - a->lists;
  d->bytes_out = b->bytes_out - a->bytes_out;
}

static void die(const char *what, const inlet_error *err) {
  fprintf(stderr, "objstore_bench: %s: %s\n", what, inlet_errmsg(err));
  exit(1);
}

/* @p n rows: id from @p first, v a short string, k = id / 1000. */
static void make_rows(inlet_batch *b, const inlet_schema *schema, int64_t first, int64_t n) {
  inlet_error err = INLET_ERROR_INIT;
  if (inlet_batch_init(b, schema, &err) < 0) die("batch", &err);
  const inlet_field *f = schema->fields;
  for (int64_t i = 0; i < n; i++) {
    char v[32];
    int64_t id = first + i;
    snprintf(v, sizeof v, "value-%" PRId64, id * 7919 % 100003);
    if (inlet_array_append_int(&b->columns[0], &f[0], id, &err) < 0 ||
        inlet_array_append_bytes(&b->columns[1], &f[1], v, strlen(v), &err) < 0)
      die("batch", &err);
    b->num_rows++;
  }
}

static inlet_table *create(const char *url, const inlet_schema *schema) {
  inlet_table *t = NULL;
  inlet_error err = INLET_ERROR_INIT;
  if (inlet_table_create_with(&t, url, schema, NULL, NULL, &err) < 0) die(url, &err);
  return t;
}

static void append(inlet_table *t, const inlet_batch *b) {
  inlet_error err = INLET_ERROR_INIT;
  int64_t v;
  if (inlet_table_append(t, b, 1, NULL, &v, &err) < 0) die("append", &err);
}

/* Scans the latest snapshot of @p t with @p where; returns rows. */
static int64_t scan(inlet_table *t, const char *where) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_snapshot *s = NULL;
  inlet_scan *sc = NULL;
  inlet_scan_options so = INLET_SCAN_OPTIONS_INIT;
  so.where = where;
  if (inlet_table_snapshot(&s, t, &err) < 0 || inlet_scan_open(&sc, s, &so, &err) < 0)
    die("scan", &err);
  inlet_batch b;
  memset(&b, 0, sizeof b);
  int64_t rows = 0;
  int rc;
  while ((rc = inlet_scan_next(sc, &b, &err)) == 1)
    rows += b.num_rows;
  if (rc < 0) die("scan", &err);
  inlet_batch_reset(&b);
  inlet_scan_free(sc);
  inlet_snapshot_free(s);
  return rows;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: objstore_bench PROXY_URL LATENCY_MS [PREFIX]\n");
    return 2;
  }
  proxy = argv[1];
  int latency = atoi(argv[2]);
  const char *prefix = argc > 3 ? argv[3] : "s3://inlet-test/bench";
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema schema;
  inlet_schema_init(&schema);
  if (inlet_schema_parse(&schema, "id long not null, v string", &err) < 0) die("schema", &err);
  char url[512];
  pstats a, b, d;

  /* 1. Commits. */
  proxy_latency(0);
  snprintf(url, sizeof url, "%s/commits", prefix);
  inlet_table *t = create(url, &schema);
  inlet_batch small;
  make_rows(&small, &schema, 0, 100);
  for (int i = 0; i < 3; i++)
    append(t, &small); /* warm-up: probe, first loads */
  proxy_latency(latency);
  enum { COMMITS = 20 };
  proxy_stats(&a);
  double t0 = now_ms();
  for (int i = 0; i < COMMITS; i++)
    append(t, &small);
  double commit_ms = (now_ms() - t0) / COMMITS;
  proxy_stats(&b);
  diff(&d, &a, &b);
  printf("commit: %d appends of 100 rows through one handle at %d ms per request\n", COMMITS,
         latency);
  printf("commit: requests per commit %.2f (PUT %.2f, GET %.2f of which LIST %.2f, HEAD %.2f, "
         "POST %.2f, DELETE %.2f); wall %.1f ms per commit = %.1f x latency\n",
         (double)d.requests / COMMITS, (double)d.put / COMMITS, (double)d.get / COMMITS,
         (double)d.lists / COMMITS, (double)d.head / COMMITS, (double)d.post / COMMITS,
         (double)d.del / COMMITS, commit_ms, latency ? commit_ms / latency : 0);
  if (getenv("BENCH_TRACE")) {
    /* The requests of one more steady-state commit, in order (the proxy's
     * trace): what each request per commit is. */
    char cmd[512];
    snprintf(cmd, sizeof cmd, "curl -s %s/__proxy/trace >/dev/null", proxy);
    if (system(cmd) != 0) fprintf(stderr, "cannot read the proxy's trace\n");
    append(t, &small);
    printf("commit: trace of one more commit:\n");
    fflush(stdout);
    snprintf(cmd, sizeof cmd, "curl -s %s/__proxy/trace | sed 's/^/  /'", proxy);
    if (system(cmd) != 0) fprintf(stderr, "cannot read the proxy's trace\n");
  }
  inlet_table_free(t);
  inlet_batch_reset(&small);

  /* 2. A selective scan of one 200,000-row file (pages of 20,000 rows at
   * most: inlet.parquet.pageRows default), predicate on the sorted id. */
  proxy_latency(0);
  snprintf(url, sizeof url, "%s/selective", prefix);
  t = create(url, &schema);
  inlet_batch big;
  make_rows(&big, &schema, 0, 200000);
  append(t, &big);
  inlet_batch_reset(&big);
  inlet_table_free(t);
  if (inlet_table_open(&t, url, &err) < 0) die(url, &err);
  (void)scan(t, "id < 0"); /* loads the snapshot (pruned by stats: no data read) */
  proxy_latency(latency);
  proxy_stats(&a);
  t0 = now_ms();
  int64_t sel_rows = scan(t, "id >= 100000 AND id < 100100");
  double sel_ms = now_ms() - t0;
  proxy_stats(&b);
  diff(&d, &a, &b);
  pstats full;
  proxy_stats(&a);
  t0 = now_ms();
  int64_t all_rows = scan(t, NULL);
  double full_ms = now_ms() - t0;
  proxy_stats(&b);
  diff(&full, &a, &b);
  printf("selective scan: %" PRId64 " of %" PRId64 " rows: %ld requests, %ld bytes fetched, "
         "%.0f ms; full scan: %ld requests, %ld bytes, %.0f ms (selective/full bytes %.3f)\n",
         sel_rows, all_rows, d.requests, d.bytes_out, sel_ms, full.requests, full.bytes_out,
         full_ms, full.bytes_out ? (double)d.bytes_out / (double)full.bytes_out : 0);
  inlet_table_free(t);

  /* 3. 200 files. */
  proxy_latency(0);
  snprintf(url, sizeof url, "%s/files200", prefix);
  t = create(url, &schema);
  enum { FILES = 200 };
  for (int i = 0; i < FILES; i++) {
    inlet_batch one;
    make_rows(&one, &schema, (int64_t)i * 50, 50);
    append(t, &one);
    inlet_batch_reset(&one);
  }
  inlet_table_free(t);
  if (inlet_table_open(&t, url, &err) < 0) die(url, &err);
  (void)scan(t, "id < 0");
  proxy_latency(latency);
  proxy_stats(&a);
  t0 = now_ms();
  double c0 = cpu_ms();
  int64_t rows200 = scan(t, NULL);
  double wall = now_ms() - t0, cpu = cpu_ms() - c0;
  proxy_stats(&b);
  diff(&d, &a, &b);
  printf("200-file scan: %" PRId64 " rows, %ld requests (%.2f per file), %ld bytes, wall %.0f ms "
         "(cpu %.0f ms) vs %d x %d ms = %d ms: ratio %.2f\n",
         rows200, d.requests, (double)d.requests / FILES, d.bytes_out, wall, cpu, FILES, latency,
         FILES * latency, latency ? wall / (FILES * latency) : 0);
  inlet_table_free(t);
  proxy_latency(0);
  inlet_schema_reset(&schema);
  return 0;
}
