/*
 * Issue 17 §3, `--schema-evolution add`, through the real `inlet` binary:
 * unknown top-level and nested fields become nullable columns typed from
 * their first values, in the same commit as the batch that brought them (a
 * metaData action beside the adds); two ingesters adding the same and
 * different fields concurrently both end with all their records in the
 * table; `append` evolves the same way, also on a column-mapping table
 * (Delta's golden table-with-columnmapping-mode-name: new columns get ids
 * 31, 32 above its maxColumnId 30 and col-<uuid> physical names). Every expectation is built from
 * the input records and compared with what refcheck (DuckDB) reads, never with inlet's own output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

TU_SCRATCH_DIR("evolve")

static void sh_ok(tu_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sh_ok(tu_result *r, const char *fmt, ...) {
  char cmd[16384];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  int rc = tu_sh(r, "%s", cmd);
  if (rc != 0 || r->status != 0)
    fail_msg("exit %d: %s\nstdout: %s\nstderr: %s", r->status, cmd, r->out, r->err);
}

static uint64_t rng;
static uint32_t next_rand(void) {
  rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(rng >> 33);
}

/* refcheck's reading of @p table (at @p version, -1 latest) into @p out_path;
 * the number of rows it holds. */
static int refcheck_table(const char *table, int64_t version, const char *out_path) {
  tu_result r;
  char ver[48] = "";
  if (version >= 0) snprintf(ver, sizeof ver, " --version %lld", (long long)version);
  sh_ok(&r, "'%s' '%s' delta '%s'%s > '%s'", INLET_NODE, INLET_REFCHECK, table, ver, out_path);
  tu_result_free(&r);
  char *s = tu_read_file(out_path, NULL);
  assert_non_null(s);
  int n = 0;
  for (char *p = strchr(s, '\n'); p; p = strchr(p + 1, '\n'))
    if (p[1] == '[') n++;
  free(s);
  return n;
}

/* refcheck compare: the table as refcheck read it (@p ref) against the rows
 * the test expects (@p want, NDJSON keyed by column name). */
static void assert_same_rows(const char *ref, const char *want) {
  tu_result r;
  int rc = tu_sh(&r, "'%s' '%s' compare '%s' '%s' --ndjson", INLET_NODE, INLET_REFCHECK, ref, want);
  if (rc != 0 || r.status != 0) fail_msg("refcheck compare: %s%s", r.out, r.err);
  tu_result_free(&r);
}

/* The "columns" and "column_types" of a refcheck reading, as printed. */
static void assert_columns(const char *ref, const char *cols, const char *types) {
  char *s = tu_read_file(ref, NULL);
  assert_non_null(s);
  char want[4096];
  snprintf(want, sizeof want, "\"columns\":[%s],\"column_types\":[%s]", cols, types);
  if (!strstr(s, want)) fail_msg("want %s\ngot %.2000s", want, s);
  free(s);
}

/* Every commit after version 0 that carries a metaData action also carries
 * the adds of its batch; returns how many did. */
static int metadata_commits(const char *table) {
  tu_result r;
  sh_ok(&r,
        "cd '%s/_delta_log' && for f in 0*.json; do case $f in 00000000000000000000.json) "
        "continue;; esac; if grep -q '\"metaData\"' $f; then grep -q '\"add\"' $f && echo "
        "both || echo alone; fi; done",
        table);
  int both = 0;
  for (char *p = r.out; (p = strstr(p, "both")); p += 4)
    both++;
  assert_null(strstr(r.out, "alone"));
  tu_result_free(&r);
  return both;
}

/* ---- (a) a stream whose producers add fields at random moments ---------------- */

enum kind { K_LONG, K_STR, K_DBL, K_BOOL, K_OBJ, K_ARR, K_NESTED_STR, K_NESTED_LONG };
typedef struct newfield {
  const char *name;
  enum kind kind;
  int start; /* first record carrying it (with a typed value) */
} newfield;

static newfield fields[] = {
    {"n_long", K_LONG, 0}, {"n_str", K_STR, 0}, {"n_dbl", K_DBL, 0},    {"n_bool", K_BOOL, 0},
    {"n_obj", K_OBJ, 0},   {"n_arr", K_ARR, 0}, {"b", K_NESTED_STR, 0}, {"c", K_NESTED_LONG, 0},
};
#define N_FIELDS ((int)(sizeof fields / sizeof fields[0]))

static void value(char *out, size_t cap, enum kind k, int i) {
  switch (k) {
  case K_LONG: snprintf(out, cap, "%lld", (long long)i * 4294967311LL); break;
  case K_STR: snprintf(out, cap, "\"s%d\"", i); break;
  case K_DBL: snprintf(out, cap, "%d.25", i); break;
  case K_BOOL: snprintf(out, cap, "%s", i % 3 ? "false" : "true"); break;
  case K_OBJ: snprintf(out, cap, "{\"p\":%d,\"q\":\"q%d\"}", i, i); break;
  case K_ARR: snprintf(out, cap, "[%d,%d]", i, i + 1); break;
  case K_NESTED_STR: snprintf(out, cap, "\"b%d\"", i); break;
  case K_NESTED_LONG: snprintf(out, cap, "%d", i * 5); break;
  }
}

static const char *type_of(enum kind k) {
  switch (k) {
  case K_LONG:
  case K_NESTED_LONG: return "long";
  case K_STR:
  case K_NESTED_STR: return "string";
  case K_DBL: return "double";
  case K_BOOL: return "boolean";
  case K_OBJ: return "struct<p:long,q:string>";
  case K_ARR: return "array<long>";
  }
  return "?";
}

static bool nested(enum kind k) {
  return k == K_NESTED_STR || k == K_NESTED_LONG;
}

/* Writes @p n records to @p src and the rows the table must hold to @p want
 * (every column of the final schema, nested fields spelled out). */
static void make_stream(const char *src, const char *want, int n) {
  rng = 20261202;
  for (int k = 0; k < N_FIELDS; k++) {
    int s;
    bool dup;
    do { /* distinct starts: the column order is the order of first appearance */
      s = 1 + (int)(next_rand() % (uint32_t)(n - 2));
      dup = false;
      for (int j = 0; j < k; j++)
        dup |= fields[j].start == s;
    } while (dup);
    fields[k].start = s;
  }
  FILE *f = fopen(src, "w"), *w = fopen(want, "w");
  assert_non_null(f);
  assert_non_null(w);
  for (int i = 0; i < n; i++) {
    bool has[N_FIELDS];
    for (int k = 0; k < N_FIELDS; k++)
      has[k] = i >= fields[k].start && (i == fields[k].start || next_rand() % 2);
    char v[128];
    fprintf(f, "{\"id\":%d,\"user\":\"u%d\",\"st\":{\"a\":%d", i, i % 7, i * 3);
    fprintf(w, "{\"id\":%d,\"user\":\"u%d\",\"st\":{\"a\":%d", i, i % 7, i * 3);
    for (int k = 0; k < N_FIELDS; k++) {
      if (!nested(fields[k].kind)) continue;
      value(v, sizeof v, fields[k].kind, i);
      if (has[k]) fprintf(f, ",\"%s\":%s", fields[k].name, v);
      fprintf(w, ",\"%s\":%s", fields[k].name, has[k] ? v : "null");
    }
    fprintf(f, "}");
    fprintf(w, "}");
    for (int k = 0; k < N_FIELDS; k++) {
      if (nested(fields[k].kind)) continue;
      value(v, sizeof v, fields[k].kind, i);
      if (has[k]) {
        fprintf(f, ",\"%s\":%s", fields[k].name, v);
        fprintf(w, ",\"%s\":%s", fields[k].name, v);
      } else if (i < fields[k].start && i % 13 == 0) {
        fprintf(f, ",\"%s\":null", fields[k].name); /* null before any typed value */
      }
    }
    if (i % 11 == 0) fprintf(f, ",\"always_null\":null,\"empty\":{},\"none\":[]");
    fprintf(f, "}\n");
    fprintf(w, "}\n");
  }
  fclose(f);
  fclose(w);
}

static int by_start(const void *a, const void *b) {
  return ((const newfield *)a)->start - ((const newfield *)b)->start;
}

/* (a) + (d): the final schema has every typed field (in order of first
 * appearance, nested ones inside st), none of the never-typed ones; every
 * record's values are in the table; refcheck reads intermediate versions
 * with the rows committed by then. */
static void test_evolve_random_stream(void **state) {
  (void)state;
  const int n = 600, per_batch = 37;
  char table[4200], src[4200], want[4200], ref[4200];
  snprintf(table, sizeof table, "%s/a", dir);
  snprintf(src, sizeof src, "%s/a.ndjson", dir);
  snprintf(want, sizeof want, "%s/a-want.ndjson", dir);
  snprintf(ref, sizeof ref, "%s/a-ref.json", dir);
  make_stream(src, want, n);
  tu_result r;
  sh_ok(&r, "'%s' create '%s' --schema 'id long, user string, st struct<a: long>'", INLET_BIN,
        table);
  tu_result_free(&r);
  sh_ok(&r,
        "'%s' ingest '%s' --source 'file:%s' --once --schema-evolution add --max-rows %d --json",
        INLET_BIN, table, src, per_batch);
  assert_non_null(strstr(r.out, "\"rejected\":0"));
  tu_result_free(&r);

  int got = refcheck_table(table, -1, ref);
  if (got != n) {
    sh_ok(&r, "head -c 600 '%s'; head -3 '%s'", ref, src);
    fail_msg("%d rows: %s", got, r.out);
  }
  assert_same_rows(ref, want);
  newfield sorted[N_FIELDS];
  memcpy(sorted, fields, sizeof sorted);
  qsort(sorted, N_FIELDS, sizeof sorted[0], by_start);
  char cols[1024] = "\"id\",\"user\",\"st\"", st[256] = "struct<a:long", types[2048];
  for (int k = 0; k < N_FIELDS; k++) {
    size_t l = strlen(nested(sorted[k].kind) ? st : cols);
    if (nested(sorted[k].kind))
      snprintf(st + l, sizeof st - l, ",%s:%s", sorted[k].name, type_of(sorted[k].kind));
    else
      snprintf(cols + l, sizeof cols - l, ",\"%s\"", sorted[k].name);
  }
  snprintf(types, sizeof types, "\"long\",\"string\",\"%s>\"", st);
  for (int k = 0; k < N_FIELDS; k++) {
    if (nested(sorted[k].kind)) continue;
    size_t l = strlen(types);
    snprintf(types + l, sizeof types - l, ",\"%s\"", type_of(sorted[k].kind));
  }
  assert_columns(ref, cols, types);
  /* Fields arrived at several moments, each with its batch. */
  assert_true(metadata_commits(table) >= 3);
  /* Versions before the end: refcheck reads each with exactly the records
   * committed by then (one batch per version, batches are not cut by a new
   * field). */
  int last = (n + per_batch - 1) / per_batch;
  int probe[] = {1, last / 2, last - 1};
  for (int i = 0; i < 3; i++)
    assert_int_equal(refcheck_table(table, probe[i], ref), probe[i] * per_batch);
}

/* ---- (b) two ingesters adding fields concurrently -------------------------------- */

/* Producer @p p ('A' or 'B'): ids from @p base; both add "shared" (long) and
 * st.z (string); each adds its own field; both add "clash" with different
 * types (A long, B string) from record 40 on. */
static void make_producer(const char *src, char p, int base, int n) {
  FILE *f = fopen(src, "w");
  assert_non_null(f);
  for (int i = 0; i < n; i++) {
    int id = base + i;
    fprintf(f, "{\"id\":%d,\"src\":\"%c\",\"st\":{\"a\":%d", id, p, id);
    if (i >= (p == 'A' ? 25 : 10)) fprintf(f, ",\"z\":\"z%d\"", id);
    fprintf(f, "}");
    if (i >= (p == 'A' ? 10 : 30)) fprintf(f, ",\"shared\":%d", id * 2);
    if (i >= 20) {
      if (p == 'A')
        fprintf(f, ",\"a_only\":%d.5", id);
      else
        fprintf(f, ",\"b_only\":true");
    }
    if (i >= 40 && i % 5 == 0) {
      if (p == 'A')
        fprintf(f, ",\"clash\":%d", id);
      else
        fprintf(f, ",\"clash\":\"c%d\"", id);
    }
    fprintf(f, "}\n");
  }
  fclose(f);
}

/* The ids of the records in the dead letters of @p table. */
static int dead_ids(const char *table, int *ids, int cap) {
  tu_result r;
  sh_ok(&r, "cat '%s'/_errors/*/*.ndjson 2>/dev/null; true", table);
  int n = 0;
  for (char *p = r.out; (p = strstr(p, "\\\"id\\\":")) && n < cap; p++) {
    ids[n++] = atoi(p + strlen("\\\"id\\\":"));
    char *eol = strchr(p, '\n');
    assert_non_null(strstr(p, "clash")); /* the reason names the column */
    if (!eol) break;
    p = eol;
  }
  tu_result_free(&r);
  return n;
}

static void test_evolve_concurrent_ingesters(void **state) {
  (void)state;
  const int n = 240;
  char table[4200], sa[4200], sb[4200], want[4200], ref[4200];
  snprintf(table, sizeof table, "%s/b", dir);
  snprintf(sa, sizeof sa, "%s/b-a.ndjson", dir);
  snprintf(sb, sizeof sb, "%s/b-b.ndjson", dir);
  snprintf(want, sizeof want, "%s/b-want.ndjson", dir);
  snprintf(ref, sizeof ref, "%s/b-ref.json", dir);
  make_producer(sa, 'A', 0, n);
  make_producer(sb, 'B', 100000, n);
  /* A third ingester, --schema-evolution reject, with records of the
   * original columns only: the schema changing under it replays its batch
   * on the new schema instead of failing. */
  char sc[4200];
  snprintf(sc, sizeof sc, "%s/b-c.ndjson", dir);
  FILE *fc = fopen(sc, "w");
  assert_non_null(fc);
  for (int i = 0; i < n; i++)
    fprintf(fc, "{\"id\":%d,\"src\":\"C\",\"st\":{\"a\":%d}}\n", 200000 + i, i);
  fclose(fc);
  tu_result r;
  sh_ok(&r, "'%s' create '%s' --schema 'id long, src string, st struct<a: long>'", INLET_BIN,
        table);
  tu_result_free(&r);
  sh_ok(&r,
        "'%s' ingest '%s' --source 'file:%s' --once --schema-evolution add --max-rows 7 --app-id A "
        "--json > '%s/b-a.out' 2>&1 & "
        "'%s' ingest '%s' --source 'file:%s' --once --schema-evolution add --max-rows 7 --app-id B "
        "--json > '%s/b-b.out' 2>&1 & "
        "'%s' ingest '%s' --source 'file:%s' --once --max-rows 7 --app-id C "
        "--json > '%s/b-c.out' 2>&1 & "
        "wait %%1 || { cat '%s/b-a.out'; exit 1; }; wait %%2 || { cat '%s/b-b.out'; exit 1; }; "
        "wait %%3 || { cat '%s/b-c.out'; exit 1; }",
        INLET_BIN, table, sa, dir, INLET_BIN, table, sb, dir, INLET_BIN, table, sc, dir, dir, dir,
        dir);
  tu_result_free(&r);

  /* How often each lost a commit race and replayed (reported, not asserted:
   * the interleaving is the scheduler's). */
  sh_ok(&r, "for p in a b c; do tail -n 1 '%s/b-'$p.out | grep -o '\"conflicts\":[0-9]*'; done",
        dir);
  print_message("concurrent ingesters: %s", r.out);
  tu_result_free(&r);
  /* Whoever committed "clash" first decided its type: the other producer's
   * clash records are dead letters naming the column, all of them, and no
   * other record is. */
  int dead[200];
  int n_dead = dead_ids(table, dead, 200);
  assert_int_equal(n_dead, 40); /* i = 40, 45, ..., 235 */
  bool dead_b = dead[0] >= 100000;
  for (int i = 0; i < n_dead; i++)
    assert_int_equal(dead[i] >= 100000, dead_b);
  /* Every other record once, with every field. */
  FILE *w = fopen(want, "w");
  assert_non_null(w);
  for (int pi = 0; pi < 2; pi++) {
    char p = pi ? 'B' : 'A';
    for (int i = 0; i < n; i++) {
      int id = (pi ? 100000 : 0) + i;
      bool clash = i >= 40 && i % 5 == 0;
      if (clash && dead_b == (p == 'B')) continue;
      fprintf(w, "{\"id\":%d,\"src\":\"%c\",\"st\":{\"a\":%d,\"z\":", id, p, id);
      if (i >= (p == 'A' ? 25 : 10))
        fprintf(w, "\"z%d\"}", id);
      else
        fprintf(w, "null}");
      if (i >= (p == 'A' ? 10 : 30)) fprintf(w, ",\"shared\":%d", id * 2);
      if (i >= 20 && p == 'A') fprintf(w, ",\"a_only\":%d.5", id);
      if (i >= 20 && p == 'B') fprintf(w, ",\"b_only\":true");
      if (clash && p == 'A') fprintf(w, ",\"clash\":%d", id);
      if (clash && p == 'B') fprintf(w, ",\"clash\":\"c%d\"", id);
      fprintf(w, "}\n");
    }
  }
  for (int i = 0; i < n; i++)
    fprintf(w, "{\"id\":%d,\"src\":\"C\",\"st\":{\"a\":%d,\"z\":null}}\n", 200000 + i, i);
  fclose(w);
  assert_int_equal(refcheck_table(table, -1, ref), 3 * n - n_dead);
  assert_same_rows(ref, want);
  /* The final schema has every field (top-level order is the commit order). */
  char *s = tu_read_file(ref, NULL);
  assert_non_null(s);
  const char *want_cols[] = {"\"shared\"", "\"a_only\"", "\"b_only\"", "\"clash\""};
  char *end = strstr(s, "\"rows\"");
  assert_non_null(end);
  *end = '\0';
  for (int i = 0; i < 4; i++)
    assert_non_null(strstr(s, want_cols[i]));
  assert_non_null(strstr(s, "struct<a:long,z:string>"));
  assert_non_null(strstr(s, dead_b ? "\"long\"" : "\"string\""));
  free(s);
  metadata_commits(table);
}

/* The paths of a test's table, input, expected rows and refcheck reading,
 * named after @p name in the test directory (each buffer 4200 bytes). */
static void test_paths(const char *name, char *table, char *src, char *want, char *ref) {
  snprintf(table, 4200, "%s/%s", dir, name);
  snprintf(src, 4200, "%s/%s.ndjson", dir, name);
  snprintf(want, 4200, "%s/%s-want.ndjson", dir, name);
  snprintf(ref, 4200, "%s/%s-ref.json", dir, name);
}

/* ---- (c) append ------------------------------------------------------------------------ */

static void test_evolve_append(void **state) {
  (void)state;
  char table[4200], src[4200], want[4200], ref[4200];
  test_paths("c", table, src, want, ref);
  const char *in = "{\"id\":1,\"st\":{\"a\":1},\"x\":5}\n"
                   "{\"id\":2,\"st\":{\"a\":2,\"b\":\"two\"},\"y\":{\"k\":true},\"z\":null}\n"
                   "\n"
                   "{\"id\":3,\"x\":null,\"w\":[1.5,2.5],\"e\":{}}\n";
  assert_int_equal(tu_write_file(src, in, strlen(in)), 0);
  tu_result r;
  sh_ok(&r, "'%s' create '%s' --schema 'id long, st struct<a: long>'", INLET_BIN, table);
  tu_result_free(&r);
  sh_ok(&r, "'%s' append '%s' '%s' --schema-evolution add", INLET_BIN, table, src);
  assert_non_null(strstr(r.out, "appended 3 rows"));
  assert_non_null(strstr(r.out, "4 new fields"));
  tu_result_free(&r);
  assert_int_equal(metadata_commits(table), 1);
  const char *rows = "{\"id\":1,\"st\":{\"a\":1,\"b\":null},\"x\":5}\n"
                     "{\"id\":2,\"st\":{\"a\":2,\"b\":\"two\"},\"y\":{\"k\":true}}\n"
                     "{\"id\":3,\"w\":[1.5,2.5]}\n";
  assert_int_equal(tu_write_file(want, rows, strlen(rows)), 0);
  assert_int_equal(refcheck_table(table, -1, ref), 3);
  assert_same_rows(ref, want);
  assert_columns(ref, "\"id\",\"st\",\"x\",\"y\",\"w\"",
                 "\"long\",\"struct<a:long,b:string>\",\"long\",\"struct<k:boolean>\","
                 "\"array<double>\"");
  /* A value against an inferred type follows the strict rules: a bad record. */
  const char *in2 = "{\"id\":4,\"x\":\"four\"}\n{\"id\":5,\"x\":6,\"v\":\"new\"}\n";
  assert_int_equal(tu_write_file(src, in2, strlen(in2)), 0);
  sh_ok(&r, "'%s' append '%s' '%s' --schema-evolution add --skip-bad", INLET_BIN, table, src);
  assert_non_null(strstr(r.out, "appended 1 rows"));
  assert_non_null(strstr(r.out, "1 bad records skipped"));
  tu_result_free(&r);
  assert_int_equal(refcheck_table(table, -1, ref), 4);
  assert_columns(ref, "\"id\",\"st\",\"x\",\"y\",\"w\",\"v\"",
                 "\"long\",\"struct<a:long,b:string>\",\"long\",\"struct<k:boolean>\","
                 "\"array<double>\",\"string\"");
}

/* ---- refusals ------------------------------------------------------------------------- */

/* Column mapping evolves (no longer a refusal), then the real refusals. */
static void test_evolve_refusals(void **state) {
  (void)state;
  char table[4200], src[4200];
  snprintf(table, sizeof table, "%s/cm", dir);
  snprintf(src, sizeof src, "%s/cm.ndjson", dir);
  const char *in = "{\"new_col\":1}\n";
  assert_int_equal(tu_write_file(src, in, strlen(in)), 0);
  tu_result r;
  sh_ok(
      &r,
      "cp -R '%s/delta-golden/tables/table-with-columnmapping-mode-name' '%s' && chmod -R u+w '%s'",
      INLET_TESTDATA, table, table);
  tu_result_free(&r);
  /* Column mapping (the golden table's maxColumnId is 30): ingest and
   * append add columns with fresh ids and physical names. */
  sh_ok(&r, "'%s' ingest '%s' --source 'file:%s' --once --schema-evolution add", INLET_BIN, table,
        src);
  tu_result_free(&r);
  const char *in3 = "{\"other_col\":\"x\"}\n";
  assert_int_equal(tu_write_file(src, in3, strlen(in3)), 0);
  sh_ok(&r, "'%s' append '%s' '%s' --schema-evolution add", INLET_BIN, table, src);
  tu_result_free(&r);
  /* (".." stands for the \" of the schemaString inside the JSON line.) */
  sh_ok(&r,
        "cd '%s/_delta_log' && grep -o 'maxColumnId\":\"[0-9]*' 00000000000000000001.json "
        "00000000000000000002.json | cut -d'\"' -f3 | tr '\\n' ' '; "
        "grep -o 'name..:..[a-z_]*_col..,[^}]*id..:[0-9]*,..delta.columnMapping.physicalName..:"
        "..col-' 00000000000000000002.json | sed 's/..,.*id..:/ /; s/,.*//; s/name..:..//' | "
        "tr '\\n' ' '",
        table);
  assert_string_equal(r.out, "31 32 new_col 31 other_col 32 ");
  tu_result_free(&r);
  sh_ok(&r, "'%s' scan '%s' --format csv --columns new_col,other_col | sed 1d | LC_ALL=C sort -u",
        INLET_BIN, table);
  assert_string_equal(r.out, ",\n,x\n1,\n");
  tu_result_free(&r);
  /* A new field that cannot become a column: a dead letter naming it, the
   * other records (and their new fields) go in. */
  char t2[4200], src2[4200];
  snprintf(t2, sizeof t2, "%s/names", dir);
  snprintf(src2, sizeof src2, "%s/names.ndjson", dir);
  const char *in2 = "{\"id\":1,\"ID\":2}\n{\"id\":2,\"a b\":1}\n{\"id\":3,\"ok\":\"yes\"}\n";
  assert_int_equal(tu_write_file(src2, in2, strlen(in2)), 0);
  sh_ok(&r, "'%s' create '%s' --schema 'id long'", INLET_BIN, t2);
  tu_result_free(&r);
  sh_ok(&r, "'%s' ingest '%s' --source 'file:%s' --once --schema-evolution add --json", INLET_BIN,
        t2, src2);
  assert_non_null(strstr(r.out, "\"rejected\":2"));
  tu_result_free(&r);
  sh_ok(&r, "cat '%s'/_errors/*/*.ndjson", t2);
  assert_non_null(strstr(r.out, "differs only in case"));
  assert_non_null(strstr(r.out, "contains a space"));
  tu_result_free(&r);
  char ref[4200];
  snprintf(ref, sizeof ref, "%s/names-ref.json", dir);
  assert_int_equal(refcheck_table(t2, -1, ref), 1);
  assert_columns(ref, "\"id\",\"ok\"", "\"long\",\"string\"");
  /* CSV has no JSON types to infer from. */
  char csv[4200];
  snprintf(csv, sizeof csv, "%s/cm.csv", dir);
  assert_int_equal(tu_write_file(csv, "new_col\n1\n", 10), 0);
  assert_int_equal(tu_sh(&r, "'%s' append '%s' '%s' --schema-evolution add", INLET_BIN, table, csv),
                   0);
  assert_int_equal(r.status, 6);
  assert_non_null(strstr(r.err, "NDJSON"));
  tu_result_free(&r);
}

/* `ingest --once --schema-evolution add` of @p src into @p table rejects
 * nothing and commits one batch that carries the schema change. */
static void ingest_all_in_one_commit(const char *table, const char *src) {
  tu_result r;
  sh_ok(&r, "'%s' ingest '%s' --source 'file:%s' --once --schema-evolution add --json", INLET_BIN,
        table, src);
  assert_non_null(strstr(r.out, "\"rejected\":0"));
  tu_result_free(&r);
  assert_int_equal(metadata_commits(table), 1);
}

/* ---- type widening -------------------------------------------------------------------- */

/* A table with delta.enableTypeWidening=true: an id beyond 2^31 widens
 * integer → long and a value beyond a float's range widens float → double, in
 * the commit of the batch (metaData with delta.typeChanges); refcheck reads
 * the rows of the old (int32/float) and new files alike. Without the
 * property the same records are dead letters naming the column. */
static void test_evolve_type_widening(void **state) {
  (void)state;
  char table[4200], t2[4200], src[4200], want[4200], ref[4200];
  snprintf(table, sizeof table, "%s/tw", dir);
  snprintf(t2, sizeof t2, "%s/tw-off", dir);
  snprintf(src, sizeof src, "%s/tw.ndjson", dir);
  snprintf(want, sizeof want, "%s/tw-want.ndjson", dir);
  snprintf(ref, sizeof ref, "%s/tw-ref.json", dir);
  const char *in = "{\"id\":1,\"x\":1.5}\n"
                   "{\"id\":2,\"x\":2.25}\n"
                   "{\"id\":3000000000,\"x\":3.5}\n"
                   "{\"id\":4,\"x\":1e300}\n"
                   "{\"id\":-5000000000,\"x\":5}\n";
  assert_int_equal(tu_write_file(src, in, strlen(in)), 0);
  tu_result r;
  sh_ok(&r, "'%s' create '%s' --schema 'id int, x float' --property delta.enableTypeWidening=true",
        INLET_BIN, table);
  tu_result_free(&r);
  sh_ok(&r, "grep -q typeWidening '%s/_delta_log/00000000000000000000.json'", table);
  tu_result_free(&r);
  ingest_all_in_one_commit(table, src);
  sh_ok(&r, "cat '%s/_delta_log/00000000000000000001.json'", table);
  assert_non_null(strstr(r.out,
                         "{\\\"name\\\":\\\"id\\\",\\\"type\\\":\\\"long\\\",\\\"nullable\\\":true,"
                         "\\\"metadata\\\":{\\\"delta.typeChanges\\\":[{\\\"fromType\\\":"
                         "\\\"integer\\\",\\\"toType\\\":\\\"long\\\"}]}}"));
  assert_non_null(strstr(r.out, "\\\"fromType\\\":\\\"float\\\",\\\"toType\\\":\\\"double\\\""));
  tu_result_free(&r);
  const char *rows = "{\"id\":1,\"x\":1.5}\n{\"id\":2,\"x\":2.25}\n{\"id\":3000000000,\"x\":3.5}\n"
                     "{\"id\":4,\"x\":1e300}\n{\"id\":-5000000000,\"x\":5}\n";
  assert_int_equal(tu_write_file(want, rows, strlen(rows)), 0);
  assert_int_equal(refcheck_table(table, -1, ref), 5);
  assert_same_rows(ref, want);
  assert_columns(ref, "\"id\",\"x\"", "\"long\",\"double\"");
  /* inlet's own scan widens the int32 column of the first file too. */
  sh_ok(&r, "'%s' scan '%s' --format ndjson", INLET_BIN, table);
  assert_non_null(strstr(r.out, "\"id\":1,"));
  assert_non_null(strstr(r.out, "\"id\":3000000000,"));
  assert_non_null(strstr(r.out, "\"id\":-5000000000,"));
  tu_result_free(&r);
  /* Without the property: the records that need a wider type are rejected. */
  sh_ok(&r, "'%s' create '%s' --schema 'id int, x float'", INLET_BIN, t2);
  tu_result_free(&r);
  sh_ok(&r, "'%s' ingest '%s' --source 'file:%s' --once --schema-evolution add --json", INLET_BIN,
        t2, src);
  assert_non_null(strstr(r.out, "\"rejected\":3"));
  tu_result_free(&r);
  sh_ok(&r, "cat '%s'/_errors/*/*.ndjson", t2);
  assert_non_null(strstr(r.out, "field \\\"id\\\": integer 3000000000 out of range"));
  assert_non_null(strstr(r.out, "field \\\"x\\\": number 1e300 is out of the range of a float"));
  tu_result_free(&r);
}

/* The metaData of commit @p version of @p table (its schemaString
 * unescaped, so that plain JSON can be looked for) holds each of the
 * @p n strings @p want. */
static void assert_metadata_has(const char *table, int version, const char *const *want, size_t n) {
  tu_result r;
  sh_ok(&r, "grep '\"metaData\"' '%s/_delta_log/%020d.json' | sed 's/\\\\\"/\"/g'", table, version);
  for (size_t i = 0; i < n; i++)
    if (!strstr(r.out, want[i])) fail_msg("metaData lacks %s:\n%s", want[i], r.out);
  tu_result_free(&r);
}

/* refcheck reads @p table as the @p n_rows NDJSON @p rows (written to
 * @p want, read into @p ref), with columns @p cols of types @p types. */
static void assert_reads(const char *table, const char *want, const char *ref, const char *rows,
                         int n_rows, const char *cols, const char *types) {
  assert_int_equal(tu_write_file(want, rows, strlen(rows)), 0);
  assert_int_equal(refcheck_table(table, -1, ref), n_rows);
  assert_same_rows(ref, want);
  assert_columns(ref, cols, types);
}

/* Widening inside structs, array elements, map keys and values and a map
 * nested in an array (ingest): each change lands in delta.typeChanges of
 * the nearest struct field, with fieldPath for array and map parts
 * (PROTOCOL.md "Type Change Metadata"); the rows written before a change
 * stay in files of the narrow types, and refcheck (DuckDB), inlet's scan
 * and a compaction all read them in the wide ones. */
static void test_evolve_nested_type_widening(void **state) {
  (void)state;
  char table[4200], src[4200], want[4200], ref[4200];
  test_paths("twn", table, src, want, ref);
  /* Each line after the first needs one or two nested types wider. */
  const char *in =
      "{\"id\":1,\"st\":{\"a\":1,\"f\":1.5},\"arr\":[1,2],\"m\":{\"1\":10},\"nest\":[{\"k\":1}]}\n"
      "{\"id\":2,\"st\":{\"a\":3000000000,\"f\":2.5},\"arr\":[3],\"m\":{\"2\":20},"
      "\"nest\":[{\"k\":2}]}\n"
      "{\"id\":3,\"st\":{\"a\":3,\"f\":1e300},\"arr\":[4,5000000000],\"m\":{\"3\":30},"
      "\"nest\":[]}\n"
      "{\"id\":4,\"st\":null,\"arr\":null,\"m\":{\"4000000000\":70000},"
      "\"nest\":[{\"k\":300,\"j\":-5}]}\n";
  assert_int_equal(tu_write_file(src, in, strlen(in)), 0);
  tu_result r;
  sh_ok(&r,
        "'%s' create '%s' --schema 'id long, st struct<a: int, f: float>, arr array<int>, "
        "m map<int, short>, nest array<map<string, byte>>' "
        "--property delta.enableTypeWidening=true",
        INLET_BIN, table);
  tu_result_free(&r);
  ingest_all_in_one_commit(table, src);
  const char *changes[] = {
      /* struct fields: on the field itself, no fieldPath */
      "{\"name\":\"a\",\"type\":\"long\",\"nullable\":true,\"metadata\":{\"delta.typeChanges\":"
      "[{\"fromType\":\"integer\",\"toType\":\"long\"}]}}",
      "{\"name\":\"f\",\"type\":\"double\",\"nullable\":true,\"metadata\":{\"delta.typeChanges\":"
      "[{\"fromType\":\"float\",\"toType\":\"double\"}]}}",
      /* array element, map key and value, a map value inside an array */
      "\"elementType\":\"long\",\"containsNull\":true},\"nullable\":true,\"metadata\":{"
      "\"delta.typeChanges\":[{\"fromType\":\"integer\",\"toType\":\"long\",\"fieldPath\":"
      "\"element\"}]}}",
      "\"keyType\":\"long\",\"valueType\":\"integer\"",
      "\"delta.typeChanges\":[{\"fromType\":\"integer\",\"toType\":\"long\",\"fieldPath\":\"key\"},"
      "{\"fromType\":\"short\",\"toType\":\"integer\",\"fieldPath\":\"value\"}]",
      "\"keyType\":\"string\",\"valueType\":\"short\"",
      "\"delta.typeChanges\":[{\"fromType\":\"byte\",\"toType\":\"short\",\"fieldPath\":"
      "\"element.value\"}]",
      /* the column that kept its type carries no typeChanges */
      "{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}}"};
  assert_metadata_has(table, 1, changes, sizeof changes / sizeof changes[0]);
  /* The rows of the input, as the wide types hold them (maps as refcheck
   * gives them: [key, value] pairs). */
  const char *rows = "{\"id\":1,\"st\":{\"a\":1,\"f\":1.5},\"arr\":[1,2],\"m\":[[1,10]],"
                     "\"nest\":[[[\"k\",1]]]}\n"
                     "{\"id\":2,\"st\":{\"a\":3000000000,\"f\":2.5},\"arr\":[3],\"m\":[[2,20]],"
                     "\"nest\":[[[\"k\",2]]]}\n"
                     "{\"id\":3,\"st\":{\"a\":3,\"f\":1e300},\"arr\":[4,5000000000],\"m\":[[3,30]],"
                     "\"nest\":[]}\n"
                     "{\"id\":4,\"m\":[[4000000000,70000]],\"nest\":[[[\"k\",300],[\"j\",-5]]]}\n";
  const char *cols = "\"id\",\"st\",\"arr\",\"m\",\"nest\"",
             *types = "\"long\",\"struct<a:long,f:double>\",\"array<long>\",\"map<long,integer>\","
                      "\"array<map<string,short>>\"";
  assert_reads(table, want, ref, rows, 4, cols, types);
  /* inlet's scan converts the narrow nested values of the first files. */
  sh_ok(&r, "'%s' scan '%s' --format ndjson", INLET_BIN, table);
  assert_non_null(strstr(r.out, "\"st\":{\"a\":1,\"f\":1.5}"));
  assert_non_null(strstr(r.out, "\"arr\":[1,2]"));
  assert_non_null(strstr(r.out, "\"a\":3000000000"));
  assert_non_null(strstr(r.out, "5000000000"));
  tu_result_free(&r);
  /* Compaction rewrites the files of both shapes in the wide types. */
  sh_ok(&r, "'%s' compact '%s' --min-files 2 --json", INLET_BIN, table);
  assert_non_null(strstr(r.out, "\"failed_groups\":0"));
  assert_non_null(strstr(r.out, "\"files_added\":1,"));
  assert_non_null(strstr(r.out, "\"rows\":4,"));
  tu_result_free(&r);
  assert_reads(table, want, ref, rows, 4, cols, types);
}

/* `append --schema-evolution add` widens like ingest: the same rules and
 * typeChanges (top level and nested), the rows appended before the change
 * read in the wide types; without delta.enableTypeWidening the append fails
 * on the first record that does not fit, naming the column, and commits
 * nothing. */
static void test_evolve_append_type_widening(void **state) {
  (void)state;
  char table[4200], t2[4200], src[4200], src0[4200], want[4200], ref[4200];
  test_paths("twa", table, src, want, ref);
  snprintf(t2, sizeof t2, "%s/twa-off", dir);
  snprintf(src0, sizeof src0, "%s/twa0.ndjson", dir);
  /* pm, a map given as [key, value] pairs: one record widens its values
   * twice (byte → short → integer), which is one typeChanges entry. */
  const char *in0 = "{\"id\":1,\"x\":1.5,\"st\":{\"b\":1},\"arr\":[1],\"pm\":[[\"a\",1]]}\n";
  const char *in = "{\"id\":2,\"x\":2.25,\"st\":{\"b\":200},\"arr\":[2]}\n"
                   "{\"id\":3000000000,\"x\":1e300,\"st\":{\"b\":3},\"arr\":[40000],"
                   "\"pm\":[[\"a\",300],[\"b\",70000]]}\n";
  assert_int_equal(tu_write_file(src0, in0, strlen(in0)), 0);
  assert_int_equal(tu_write_file(src, in, strlen(in)), 0);
  tu_result r;
  const char *schema = "id int, x float, st struct<b: byte>, arr array<short>, "
                       "pm map<string, byte>";
  sh_ok(&r, "'%s' create '%s' --schema '%s' --property delta.enableTypeWidening=true", INLET_BIN,
        table, schema);
  tu_result_free(&r);
  sh_ok(&r, "'%s' append '%s' '%s'", INLET_BIN, table, src0);
  tu_result_free(&r);
  sh_ok(&r, "'%s' append '%s' '%s' --schema-evolution add", INLET_BIN, table, src);
  assert_non_null(strstr(r.out, "appended 2 rows"));
  assert_non_null(strstr(r.out, "(5 types widened)"));
  tu_result_free(&r);
  const char *changes[] = {
      "{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,\"metadata\":{\"delta.typeChanges\":"
      "[{\"fromType\":\"integer\",\"toType\":\"long\"}]}}",
      "{\"name\":\"x\",\"type\":\"double\",\"nullable\":true,\"metadata\":{\"delta.typeChanges\":"
      "[{\"fromType\":\"float\",\"toType\":\"double\"}]}}",
      "{\"name\":\"b\",\"type\":\"short\",\"nullable\":true,\"metadata\":{\"delta.typeChanges\":"
      "[{\"fromType\":\"byte\",\"toType\":\"short\"}]}}",
      "\"delta.typeChanges\":[{\"fromType\":\"short\",\"toType\":\"integer\",\"fieldPath\":"
      "\"element\"}]",
      "\"delta.typeChanges\":[{\"fromType\":\"byte\",\"toType\":\"integer\",\"fieldPath\":"
      "\"value\"}]"};
  assert_metadata_has(table, 2, changes, sizeof changes / sizeof changes[0]);
  assert_int_equal(metadata_commits(table), 1);
  const char *rows = "{\"id\":1,\"x\":1.5,\"st\":{\"b\":1},\"arr\":[1],\"pm\":[[\"a\",1]]}\n"
                     "{\"id\":2,\"x\":2.25,\"st\":{\"b\":200},\"arr\":[2]}\n"
                     "{\"id\":3000000000,\"x\":1e300,\"st\":{\"b\":3},\"arr\":[40000],"
                     "\"pm\":[[\"a\",300],[\"b\",70000]]}\n";
  assert_reads(table, want, ref, rows, 3, "\"id\",\"x\",\"st\",\"arr\",\"pm\"",
               "\"long\",\"double\",\"struct<b:short>\",\"array<integer>\","
               "\"map<string,integer>\"");
  /* Without the property: the record is bad, named by its column. */
  sh_ok(&r, "'%s' create '%s' --schema '%s'", INLET_BIN, t2, schema);
  tu_result_free(&r);
  assert_int_equal(tu_sh(&r, "'%s' append '%s' '%s' --schema-evolution add", INLET_BIN, t2, src),
                   0);
  assert_int_not_equal(r.status, 0);
  assert_non_null(strstr(r.err, "line 1: field \"st\": integer 200 out of range"));
  tu_result_free(&r);
  sh_ok(&r, "test ! -e '%s/_delta_log/00000000000000000001.json'", t2);
  tu_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_evolve_random_stream),
      cmocka_unit_test(test_evolve_concurrent_ingesters),
      cmocka_unit_test(test_evolve_append),
      cmocka_unit_test(test_evolve_refusals),
      cmocka_unit_test(test_evolve_type_widening),
      cmocka_unit_test(test_evolve_nested_type_widening),
      cmocka_unit_test(test_evolve_append_type_widening),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
