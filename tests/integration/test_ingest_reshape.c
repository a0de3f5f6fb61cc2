/*
 * Issue 17 §3, "records are never silently reshaped", through the real
 * `inlet` binary: unknown fields are rejected (dead letters naming the
 * field) or ignored and counted exactly; JSON values follow the strict
 * coercion table of docs/INGEST.md unless --coerce; --max-rejected stops the
 * run with exit code 8 after committing what was accepted, and a rerun
 * neither loses nor duplicates anything; `append` follows the same rules.
 * Table contents are read back with refcheck (DuckDB), not with inlet.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

TU_SCRATCH_DIR("reshape")

static void sh_ok(tu_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sh_ok(tu_result *r, const char *fmt, ...) {
  char cmd[16384];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  assert_int_equal(tu_sh(r, "%s", cmd), 0);
}

/* Seeded generator (the stream is the same on every run). */
static uint64_t rng = 17;
static uint32_t next_rand(void) {
  rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(rng >> 33);
}

/* The rows refcheck reads from @p table, one per line ("[1,\"a\",2]"), as
 * a NUL-separated sorted list in *out (count returned). */
static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct rows {
  char **line;
  int n, cap;
} rows;

static void rows_add(rows *r, const char *s) {
  if (r->n == r->cap) {
    r->cap = r->cap ? r->cap * 2 : 64;
    r->line = realloc(r->line, sizeof *r->line * (size_t)r->cap);
    assert_non_null(r->line);
  }
  r->line[r->n++] = strdup(s);
}

static void rows_free(rows *r) {
  for (int i = 0; i < r->n; i++)
    free(r->line[i]);
  free(r->line);
  memset(r, 0, sizeof *r);
}

static void refcheck_rows(rows *out, const char *table) {
  memset(out, 0, sizeof *out);
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "'%s' '%s' delta '%s'", INLET_NODE, INLET_REFCHECK, table);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  char line[8192];
  while (fgets(line, sizeof line, p)) {
    if (line[0] != '[') continue;
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == ',' || line[n - 1] == '\r'))
      line[--n] = '\0';
    rows_add(out, line);
  }
  assert_int_equal(pclose(p), 0);
  if (out->n) qsort(out->line, (size_t)out->n, sizeof *out->line, cmp_str);
}

static void assert_rows_equal(rows *got, rows *want) {
  if (want->n) qsort(want->line, (size_t)want->n, sizeof *want->line, cmp_str);
  for (int i = 0; i < got->n && i < want->n; i++)
    if (strcmp(got->line[i], want->line[i]) != 0)
      fail_msg("row %d: got %s, want %s", i, got->line[i], want->line[i]);
  assert_int_equal(got->n, want->n);
}

/* Every dead letter of @p table (all files under _errors/), one line each. */
static void dead_letters(rows *out, const char *table) {
  memset(out, 0, sizeof *out);
  tu_result r;
  sh_ok(&r, "cat '%s'/_errors/*/*.ndjson 2>/dev/null; true", table);
  char *save = NULL;
  for (char *l = strtok_r(r.out, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
    rows_add(out, l);
  tu_result_free(&r);
}

/* The id of a dead letter's record (the record is JSON text in a JSON string). */
static long dl_id(const char *dl) {
  const char *p = strstr(dl, "\"record\":\"{\\\"id\\\":");
  assert_non_null(p);
  return strtol(p + strlen("\"record\":\"{\\\"id\\\":"), NULL, 10);
}

static const char *const extra_names[] = {"x0", "x1", "x2"};

/* A seeded stream of @p n records {id, user, v}: about one in five carries one
 * unknown top-level field, one in ten two, one in ten an unknown field inside
 * the struct column st. first_unknown[i] names the record's first unknown
 * field (NULL none); *n_fields counts every unknown field. */
static void make_stream(const char *path, int n, const char **first_unknown, int *n_fields,
                        int *n_records_with) {
  rng = 17;
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  *n_fields = *n_records_with = 0;
  for (int i = 0; i < n; i++) {
    uint32_t r = next_rand() % 10;
    first_unknown[i] = NULL;
    fprintf(f, "{\"id\":%d,\"user\":\"u%d\"", i, i);
    if (r == 0) { /* nested unknown, before any top-level one */
      fprintf(f, ",\"st\":{\"a\":%d,\"zz\":1}", i);
      first_unknown[i] = "zz";
      (*n_fields)++;
    } else {
      fprintf(f, ",\"st\":{\"a\":%d}", i);
    }
    if (r == 1 || r == 2) {
      const char *x = extra_names[next_rand() % 3];
      fprintf(f, ",\"%s\":%u", x, next_rand() % 100);
      if (!first_unknown[i]) first_unknown[i] = x;
      (*n_fields)++;
    } else if (r == 3) {
      fprintf(f, ",\"x1\":\"a\",\"x2\":[1,2]");
      if (!first_unknown[i]) first_unknown[i] = "x1";
      *n_fields += 2;
    }
    fprintf(f, ",\"v\":%d}\n", i * 7);
    if (first_unknown[i]) (*n_records_with)++;
  }
  fclose(f);
}

#define N_STREAM 400

static void test_reshape__reject_is_the_default_and_counts_exactly(void **state) {
  (void)state;
  char table[4200], src[4200];
  snprintf(table, sizeof table, "%s/rej", dir);
  snprintf(src, sizeof src, "%s/rej.ndjson", dir);
  const char *first[N_STREAM];
  int n_fields, n_with;
  make_stream(src, N_STREAM, first, &n_fields, &n_with);
  assert_true(n_with > 40 && n_with < N_STREAM - 40);
  tu_result r;
  sh_ok(&r, "'%s' create '%s' --schema 'id long, user string, st struct<a: long>, v long'",
        INLET_BIN, table);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  sh_ok(&r, "'%s' ingest '%s' --source 'file:%s' --once --final --max-rows 37", INLET_BIN, table,
        src);
  assert_int_equal(r.status, 0);
  char want_summary[64];
  snprintf(want_summary, sizeof want_summary, "rejected %d (see", n_with);
  if (!strstr(r.err, want_summary)) fail_msg("summary lacks '%s': %s", want_summary, r.err);
  tu_result_free(&r);

  /* Exactly the records with an unknown field are dead letters, each naming it. */
  rows dl;
  dead_letters(&dl, table);
  assert_int_equal(dl.n, n_with);
  char *seen = calloc(N_STREAM, 1);
  assert_non_null(seen);
  for (int k = 0; k < dl.n; k++) {
    long id = dl_id(dl.line[k]);
    assert_true(id >= 0 && id < N_STREAM);
    assert_non_null(first[id]);
    assert_false(seen[id]);
    seen[id] = 1;
    char want[128];
    if (strcmp(first[id], "zz") == 0)
      snprintf(want, sizeof want, "field \\\"st\\\": unknown struct field \\\"zz\\\"");
    else
      snprintf(want, sizeof want, "\"reason\":\"unknown field \\\"%s\\\"", first[id]);
    if (!strstr(dl.line[k], want)) fail_msg("dead letter lacks %s: %s", want, dl.line[k]);
  }
  free(seen);
  rows_free(&dl);

  /* Every other record is in the table, whole (refcheck reads every file). */
  rows got, want;
  memset(&want, 0, sizeof want);
  for (int i = 0; i < N_STREAM; i++) {
    if (first[i]) continue;
    char l[128];
    snprintf(l, sizeof l, "[%d,\"u%d\",{\"a\":%d},%d]", i, i, i, i * 7);
    rows_add(&want, l);
  }
  refcheck_rows(&got, table);
  assert_rows_equal(&got, &want);
  rows_free(&got);
  rows_free(&want);
}

static void test_reshape__ignore_drops_and_counts_exactly(void **state) {
  (void)state;
  char table[4200], src[4200];
  snprintf(table, sizeof table, "%s/ign", dir);
  snprintf(src, sizeof src, "%s/ign.ndjson", dir);
  const char *first[N_STREAM];
  int n_fields, n_with;
  make_stream(src, N_STREAM, first, &n_fields, &n_with);
  tu_result r;
  sh_ok(&r, "'%s' create '%s' --schema 'id long, user string, st struct<a: long>, v long'",
        INLET_BIN, table);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  sh_ok(&r,
        "'%s' ingest '%s' --source 'file:%s' --once --final --max-rows 37 "
        "--schema-evolution ignore --json",
        INLET_BIN, table, src);
  assert_int_equal(r.status, 0);
  const char *fin = strstr(r.out, "\"event\":\"finished\"");
  assert_non_null(fin);
  char want[64];
  snprintf(want, sizeof want, "\"ignored_fields\":%d,", n_fields);
  if (!strstr(fin, want)) fail_msg("finished event lacks %s: %s", want, fin);
  assert_non_null(strstr(fin, "\"rejected\":0,"));
  tu_result_free(&r);

  /* commitInfo.operationMetrics.numIgnoredFields over the commits sums to it. */
  sh_ok(&r, "'%s' history '%s' --json", INLET_BIN, table);
  assert_int_equal(r.status, 0);
  long sum = 0;
  int commits = 0;
  for (const char *p = r.out; (p = strstr(p, "\"numIgnoredFields\":")); commits++) {
    p += strlen("\"numIgnoredFields\":");
    sum += strtol(p, NULL, 10);
  }
  tu_result_free(&r);
  assert_true(commits >= N_STREAM / 37);
  assert_int_equal(sum, n_fields);

  rows dl;
  dead_letters(&dl, table);
  assert_int_equal(dl.n, 0);
  rows_free(&dl);
  rows got, all;
  memset(&all, 0, sizeof all);
  for (int i = 0; i < N_STREAM; i++) {
    char l[128];
    snprintf(l, sizeof l, "[%d,\"u%d\",{\"a\":%d},%d]", i, i, i, i * 7);
    rows_add(&all, l);
  }
  refcheck_rows(&got, table);
  assert_rows_equal(&got, &all);
  rows_free(&got);
  rows_free(&all);
}

/* ---- the coercion table ------------------------------------------------------ */

#define COLS                                                                                       \
  "id long, s string, l long, i int, d double, b boolean, dt date, ts timestamp, "                 \
  "dec decimal(10,2), sj string"
enum { C_S = 1, C_L, C_I, C_D, C_B, C_DT, C_TS, C_DEC, N_COLS = 9 };
static const char *const col_names[] = {"id", "s", "l", "i", "d", "b", "dt", "ts", "dec"};

typedef struct conv_case {
  int col;
  const char *json;
  const char *strict; /* refcheck's value when accepted without --coerce, NULL rejected,
                         "?" accepted (value not compared) */
  const char *coerce; /* the same with --coerce */
} conv_case;

static const conv_case cases[] = {
    {C_S, "\"abc\"", "\"abc\"", "\"abc\""},
    {C_S, "42", NULL, "\"42\""},
    {C_S, "-1.5e3", NULL, "\"-1.5e3\""},
    {C_S, "true", NULL, "\"true\""},
    {C_S, "{\"a\":1}", NULL, "?"},
    {C_S, "[1]", NULL, "?"},
    {C_S, "null", "null", "null"},
    {C_L, "42", "42", "42"},
    /* refcheck prints longs beyond 2^53 as strings */
    {C_L, "-9223372036854775808", "\"-9223372036854775808\"", "\"-9223372036854775808\""},
    {C_L, "\"42\"", NULL, "42"},
    {C_L, "1.5", NULL, NULL},
    {C_L, "1e3", NULL, NULL},
    {C_L, "true", NULL, NULL},
    {C_L, "9223372036854775808", NULL, NULL},
    {C_L, "\"x\"", NULL, NULL},
    {C_I, "-7", "-7", "-7"},
    {C_I, "2147483648", NULL, NULL},
    {C_I, "\"12\"", NULL, "12"},
    {C_D, "1.5", "1.5", "1.5"},
    {C_D, "\"1.5\"", NULL, "1.5"},
    {C_D, "\"NaN\"", "?", "?"},
    {C_D, "\"Infinity\"", "?", "?"},
    {C_D, "1e999", NULL, NULL},
    {C_D, "false", NULL, NULL},
    {C_B, "true", "true", "true"},
    {C_B, "\"yes\"", NULL, "true"},
    {C_B, "\"false\"", NULL, "false"},
    {C_B, "1", NULL, NULL},
    {C_DT, "\"2024-01-02\"", "?", "?"},
    {C_DT, "19000", "?", "?"},
    {C_DT, "\"19000\"", NULL, "?"},
    {C_DT, "true", NULL, NULL},
    {C_DT, "\"2024-13-01\"", NULL, NULL},
    {C_TS, "\"2024-01-02T03:04:05Z\"", "?", "?"},
    {C_TS, "\"2024-01-02 03:04:05.123+02:00\"", "?", "?"},
    {C_TS, "1700000000", "?", "?"},
    {C_TS, "\"1700000000\"", NULL, "?"},
    {C_TS, "false", NULL, NULL},
    {C_TS, "\"yesterday\"", NULL, NULL},
    {C_DEC, "12.34", "\"12.34\"", "\"12.34\""},
    {C_DEC, "\"12.34\"", "\"12.34\"", "\"12.34\""},
    {C_DEC, "1.234", NULL, NULL},
    {C_DEC, "true", NULL, NULL},
};
#define N_CASES (int)(sizeof cases / sizeof cases[0])

/* Ingests every case (record id = case index) and checks which were rejected,
 * that each rejection names its column, and the accepted values. */
static void run_cases(const char *name, bool coerce) {
  char table[4200], src[4200];
  snprintf(table, sizeof table, "%s/%s", dir, name);
  snprintf(src, sizeof src, "%s/%s.ndjson", dir, name);
  FILE *f = fopen(src, "w");
  assert_non_null(f);
  for (int k = 0; k < N_CASES; k++)
    fprintf(f, "{\"id\":%d,\"%s\":%s}\n", k, col_names[cases[k].col], cases[k].json);
  fclose(f);
  tu_result r;
  sh_ok(&r, "'%s' create '%s' --schema '" COLS "'", INLET_BIN, table);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  sh_ok(&r, "'%s' ingest '%s' --source 'file:%s' --once --final %s", INLET_BIN, table, src,
        coerce ? "--coerce" : "");
  assert_int_equal(r.status, 0);
  tu_result_free(&r);

  char rejected[N_CASES];
  memset(rejected, 0, sizeof rejected);
  rows dl;
  dead_letters(&dl, table);
  for (int k = 0; k < dl.n; k++) {
    long id = dl_id(dl.line[k]);
    assert_true(id >= 0 && id < N_CASES);
    rejected[id] = 1;
    char want[64];
    snprintf(want, sizeof want, "\"reason\":\"field \\\"%s\\\": ", col_names[cases[id].col]);
    if (!strstr(dl.line[k], want))
      fail_msg("%s: case %ld (%s) rejected without naming the column: %s", name, id, cases[id].json,
               dl.line[k]);
  }
  rows_free(&dl);
  rows got;
  refcheck_rows(&got, table);
  int accepted = 0;
  for (int k = 0; k < N_CASES; k++) {
    const char *want = coerce ? cases[k].coerce : cases[k].strict;
    if ((want == NULL) != (rejected[k] != 0))
      fail_msg("%s: case %d: %s into column %s: %s, want %s", name, k, cases[k].json,
               col_names[cases[k].col], rejected[k] ? "rejected" : "accepted",
               want ? "accepted" : "rejected");
    if (!want) continue;
    accepted++;
    /* Find the row: "[k," then the columns in order. */
    char prefix[32];
    snprintf(prefix, sizeof prefix, "[%d,", k);
    const char *row = NULL;
    for (int j = 0; j < got.n && !row; j++)
      if (strncmp(got.line[j], prefix, strlen(prefix)) == 0) row = got.line[j];
    assert_non_null(row);
    if (strcmp(want, "?") == 0) continue;
    char expect[512];
    int o = snprintf(expect, sizeof expect, "[%d", k);
    for (int c = 1; c < N_COLS; c++)
      o +=
          snprintf(expect + o, sizeof expect - (size_t)o, ",%s", c == cases[k].col ? want : "null");
    snprintf(expect + o, sizeof expect - (size_t)o, ",null]");
    if (strcmp(row, expect) != 0) fail_msg("%s: case %d: row %s, want %s", name, k, row, expect);
  }
  assert_int_equal(got.n, accepted);
  rows_free(&got);
}

static void test_reshape__strict_coercion_table(void **state) {
  (void)state;
  run_cases("strict", false);
}

static void test_reshape__coerce_converts_what_the_table_allows(void **state) {
  (void)state;
  run_cases("coerce", true);
}

/* ---- --max-rejected -------------------------------------------------------------- */

/* 60 records, every third one (ids 2, 5, 8, ...) bad: a number into a string. */
static void write_third_bad(const char *path) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  for (int i = 0; i < 60; i++)
    if (i % 3 == 2)
      fprintf(f, "{\"id\":%d,\"user\":%d}\n", i, i);
    else
      fprintf(f, "{\"id\":%d,\"user\":\"u%d\"}\n", i, i);
  fclose(f);
}

static void test_reshape__max_rejected_count_stops_with_8_and_reruns_lose_nothing(void **state) {
  (void)state;
  char table[4200], src[4200];
  snprintf(table, sizeof table, "%s/maxn", dir);
  snprintf(src, sizeof src, "%s/maxn.ndjson", dir);
  write_third_bad(src);
  tu_result r;
  sh_ok(&r, "'%s' create '%s' --schema 'id long, user string'", INLET_BIN, table);
  tu_result_free(&r);
  /* The 5th bad record (id 14) passes the limit of 4: ids 0..14 are committed
   * (10 rows, 5 dead letters), then exit 8 naming the count and the limit. */
  sh_ok(&r, "'%s' ingest '%s' --source 'file:%s' --once --final --max-rows 4 --max-rejected 4",
        INLET_BIN, table, src);
  if (r.status != 8 || !strstr(r.err, "5 records rejected") || !strstr(r.err, "limit of 4"))
    fail_msg("status %d, stderr %s", r.status, r.err);
  tu_result_free(&r);
  rows got, dl;
  refcheck_rows(&got, table);
  assert_int_equal(got.n, 10);
  rows_free(&got);
  dead_letters(&dl, table);
  assert_int_equal(dl.n, 5);
  rows_free(&dl);
  /* Reruns go on after id 14: 45 more records, 15 bad, so the limit stops the
   * next runs at ids 29, 44 and 59; the one after finds nothing left. */
  int codes[4] = {8, 8, 8, 0};
  for (int run = 0; run < 4; run++) {
    sh_ok(&r, "'%s' ingest '%s' --source 'file:%s' --once --final --max-rows 4 --max-rejected 4",
          INLET_BIN, table, src);
    if (r.status != codes[run]) fail_msg("rerun %d: status %d: %s", run, r.status, r.err);
    tu_result_free(&r);
  }
  rows want;
  memset(&want, 0, sizeof want);
  for (int i = 0; i < 60; i++) {
    if (i % 3 == 2) continue;
    char l[64];
    snprintf(l, sizeof l, "[%d,\"u%d\"]", i, i);
    rows_add(&want, l);
  }
  refcheck_rows(&got, table);
  assert_rows_equal(&got, &want); /* every accepted record once, none rejected */
  rows_free(&got);
  rows_free(&want);
  dead_letters(&dl, table);
  assert_int_equal(dl.n, 20);
  rows_free(&dl);
}

static void test_reshape__max_rejected_percent_checked_at_commits(void **state) {
  (void)state;
  char table[4200], src[4200];
  snprintf(src, sizeof src, "%s/maxp.ndjson", dir);
  /* ids 1, 3, 5, 7, 9 bad, then 50 good records. */
  FILE *f = fopen(src, "w");
  assert_non_null(f);
  for (int i = 0; i < 60; i++)
    if (i < 10 && i % 2)
      fprintf(f, "{\"id\":%d,\"user\":true}\n", i);
    else
      fprintf(f, "{\"id\":%d,\"user\":\"u%d\"}\n", i, i);
  fclose(f);
  tu_result r;
  /* The first batch (5 rows: records 0..8, 4 rejected) is 44%: under 50% the run
   * goes on and ends at 5 of 60. */
  snprintf(table, sizeof table, "%s/maxp", dir);
  sh_ok(&r, "'%s' create '%s' --schema 'id long, user string'", INLET_BIN, table);
  tu_result_free(&r);
  sh_ok(&r, "'%s' ingest '%s' --source 'file:%s' --once --final --max-rows 5 --max-rejected 50%%",
        INLET_BIN, table, src);
  if (r.status != 0 || !strstr(r.err, "rejected 5 (see"))
    fail_msg("status %d: %s", r.status, r.err);
  tu_result_free(&r);
  rows got;
  refcheck_rows(&got, table);
  assert_int_equal(got.n, 55);
  rows_free(&got);
  /* Over 30%: that first batch is committed, then exit 8. */
  snprintf(table, sizeof table, "%s/maxp2", dir);
  sh_ok(&r, "'%s' create '%s' --schema 'id long, user string'", INLET_BIN, table);
  tu_result_free(&r);
  sh_ok(&r, "'%s' ingest '%s' --source 'file:%s' --once --final --max-rows 5 --max-rejected 30%%",
        INLET_BIN, table, src);
  if (r.status != 8 || !strstr(r.err, "4 records rejected") || !strstr(r.err, "30% of the run's 9"))
    fail_msg("status %d: %s", r.status, r.err);
  tu_result_free(&r);
  refcheck_rows(&got, table);
  assert_int_equal(got.n, 5);
  rows_free(&got);
  rows dl;
  dead_letters(&dl, table);
  assert_int_equal(dl.n, 4);
  rows_free(&dl);
}

/* ---- append ------------------------------------------------------------------------- */

static void test_reshape__append_follows_the_same_rules(void **state) {
  (void)state;
  char table[4200], src[4200];
  snprintf(table, sizeof table, "%s/app", dir);
  snprintf(src, sizeof src, "%s/app.ndjson", dir);
  FILE *f = fopen(src, "w");
  assert_non_null(f);
  fprintf(f, "{\"id\":1,\"user\":\"a\"}\n{\"id\":2,\"usr\":\"typo\"}\n{\"id\":3,\"user\":42}\n"
             "{\"id\":4,\"user\":\"d\",\"extra\":true}\n");
  fclose(f);
  tu_result r;
  sh_ok(&r, "'%s' create '%s' --schema 'id long, user string'", INLET_BIN, table);
  tu_result_free(&r);
  /* Default: the unknown field is a bad record, named; nothing committed. */
  sh_ok(&r, "'%s' append '%s' '%s'", INLET_BIN, table, src);
  if (r.status == 0 || !strstr(r.err, "unknown field \"usr\""))
    fail_msg("status %d: %s", r.status, r.err);
  tu_result_free(&r);
  /* Three bad records, one allowed: exit 8, nothing committed. */
  sh_ok(&r, "'%s' append '%s' '%s' --max-rejected 1", INLET_BIN, table, src);
  if (r.status != 8 || !strstr(r.err, "more than --max-rejected 1"))
    fail_msg("status %d: %s", r.status, r.err);
  tu_result_free(&r);
  sh_ok(&r, "'%s' append '%s' '%s' --max-rejected 50%%", INLET_BIN, table, src);
  if (r.status != 8 || !strstr(r.err, "3 of 4 records rejected"))
    fail_msg("status %d: %s", r.status, r.err);
  tu_result_free(&r);
  rows got;
  refcheck_rows(&got, table);
  assert_int_equal(got.n, 0);
  rows_free(&got);
  /* Three allowed: rows 1 committed, the three bad ones counted in commitInfo. */
  sh_ok(&r, "'%s' append '%s' '%s' --max-rejected 3", INLET_BIN, table, src);
  if (r.status != 0 || !strstr(r.out, "3 bad records skipped"))
    fail_msg("status %d: %s %s", r.status, r.out, r.err);
  tu_result_free(&r);
  /* ignore + coerce: every record, two unknown fields counted. */
  sh_ok(&r, "'%s' append '%s' '%s' --schema-evolution ignore --coerce", INLET_BIN, table, src);
  if (r.status != 0 || !strstr(r.out, "2 unknown fields ignored"))
    fail_msg("status %d: %s %s", r.status, r.out, r.err);
  tu_result_free(&r);
  sh_ok(&r, "'%s' history '%s' --json", INLET_BIN, table);
  assert_non_null(strstr(r.out, "\"numRejectedRows\":3,\"numIgnoredFields\":0"));
  assert_non_null(strstr(r.out, "\"numRejectedRows\":0,\"numIgnoredFields\":2"));
  tu_result_free(&r);
  rows want;
  memset(&want, 0, sizeof want);
  rows_add(&want, "[1,\"a\"]");
  rows_add(&want, "[1,\"a\"]");
  rows_add(&want, "[2,null]");
  rows_add(&want, "[3,\"42\"]");
  rows_add(&want, "[4,\"d\"]");
  refcheck_rows(&got, table);
  assert_rows_equal(&got, &want);
  rows_free(&got);
  rows_free(&want);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reshape__reject_is_the_default_and_counts_exactly),
      cmocka_unit_test(test_reshape__ignore_drops_and_counts_exactly),
      cmocka_unit_test(test_reshape__strict_coercion_table),
      cmocka_unit_test(test_reshape__coerce_converts_what_the_table_allows),
      cmocka_unit_test(test_reshape__max_rejected_count_stops_with_8_and_reruns_lose_nothing),
      cmocka_unit_test(test_reshape__max_rejected_percent_checked_at_commits),
      cmocka_unit_test(test_reshape__append_follows_the_same_rules),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
