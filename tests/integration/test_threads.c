/*
 * Issue 18's determinism rule, through the real binary: the thread count
 * changes speed, never output. The same input written with --threads 1 and
 * --threads 4 by `parquet convert`, `append`, `ingest` and `compact` gives
 * byte-identical data files (names aside), the same log entries apart from
 * ids, names and timestamps (each add's size, partitionValues and stats -
 * numRecords included - each remove's size and partitionValues, each
 * commit's operation), and the same table contents; compaction also with
 * its bins rewritten side by side on many partitions. Scans at 1, 2 and 4
 * threads print what one thread prints, and --unordered the same rows as a
 * multiset. Also run under ThreadSanitizer (make test-tsan).
 */
#include "log_support.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inlet/inlet.h"

TU_SCRATCH_DIR("threads")

#define SCHEMA                                                                                     \
  "id long, kind string, name string, v double, flag boolean, note string, "                       \
  "s struct<a:long,b:string>, tags array<long>"

/* Rows from @p first: enough columns and values that dictionaries, plain
 * pages, nulls and nested levels all appear. */
static void write_input(const char *name, int first, int n) {
  char path[4300];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  for (int i = first; i < first + n; i++) {
    fprintf(f, "{\"id\":%d,\"kind\":\"k%d\",\"name\":\"name-%d-%d\",\"v\":%.3f,\"flag\":%s,", i,
            i % 3, i % 997, (i * 7919) % 100003, i * 0.37, i % 2 ? "true" : "false");
    if (i % 7 == 0)
      fputs("\"note\":null,", f);
    else
      fprintf(f, "\"note\":\"n%d\",", i % 50);
    fprintf(f, "\"s\":{\"a\":%d,\"b\":\"b%d\"},\"tags\":[%d,%d]}\n", i * 3, i % 11, i, i % 5);
  }
  fclose(f);
}

static void assert_files_equal(const char *a, const char *b) {
  size_t na = 0, nb = 0;
  char *x = tu_read_file(a, &na), *y = tu_read_file(b, &nb);
  if (!x || !y) fail_msg("cannot read %s or %s", a, b);
  if (na != nb || memcmp(x, y, na) != 0)
    fail_msg("%s (%zu bytes) and %s (%zu bytes) differ", a, na, b, nb);
  free(x);
  free(y);
}

/* Issue 18: columns encoded side by side and each column's pages
 * compressed side by side (column_writer.c place_pending) give the bytes of
 * one thread: for each codec, the extended encodings, without a dictionary,
 * and a file of one column (whose pages are the only parallel work), at 2
 * and 4 threads. Small row groups and pages: many chunks, many pages in
 * each call. */
static void test_threads__parquet_convert_bytes_identical(void **state) {
  (void)state;
  write_input("conv.ndjson", 0, 60000);
  static const struct {
    const char *codec, *schema, *extra;
  } variants[] = {
      {"snappy", SCHEMA, ""},
      {"zstd", SCHEMA, ""},
      {"zstd", SCHEMA, "--encodings extended"},
      {"gzip", SCHEMA, "--no-dictionary"},
      {"lz4_raw", SCHEMA, "--encodings extended --no-dictionary"},
      {"zstd", "name string", ""},
      {"snappy", "id long", "--no-dictionary"},
      {"zstd", "v double", "--encodings extended"},
  };
  for (size_t c = 0; c < sizeof variants / sizeof variants[0]; c++) {
    for (int threads = 2; threads <= 4; threads += 2) {
      LS_SH_OK("convert",
               "cd '%s' && rm -f c1.parquet cn.parquet && "
               "'%s' parquet convert conv.ndjson c1.parquet --schema '%s' --compression %s "
               "--row-group-size 256K --page-size 16K %s --threads 1 && "
               "'%s' parquet convert conv.ndjson cn.parquet --schema '%s' --compression %s "
               "--row-group-size 256K --page-size 16K %s --threads %d",
               dir, INLET_BIN, variants[c].schema, variants[c].codec, variants[c].extra, INLET_BIN,
               variants[c].schema, variants[c].codec, variants[c].extra, threads);
      char a[4300], b[4300];
      snprintf(a, sizeof a, "%s/c1.parquet", dir);
      snprintf(b, sizeof b, "%s/cn.parquet", dir);
      assert_files_equal(a, b);
      /* And more than one row group was written (else nothing was
       * parallel across flushes). */
      tu_result r;
      tu_sh(&r, "cd '%s' && '%s' parquet meta cn.parquet", dir, INLET_BIN);
      assert_int_equal(r.status, 0);
      const char *g = strstr(r.out, "num_row_groups: ");
      assert_non_null(g);
      assert_true(atoi(g + strlen("num_row_groups: ")) > 1);
      tu_result_free(&r);
    }
  }
}

static json_t *read_commit(const char *table, int64_t v) {
  char path[4400];
  snprintf(path, sizeof path, "%s/%s/_delta_log/%020lld.json", dir, table, (long long)v);
  size_t n = 0;
  char *text = tu_read_file(path, &n);
  if (!text) return NULL;
  json_t *arr = json_array();
  char *line = text;
  while (line && *line) {
    char *nl = strchr(line, '\n');
    if (nl) *nl = '\0';
    if (*line) {
      json_error_t je;
      json_t *a = json_loads(line, 0, &je);
      if (!a) fail_msg("%s: bad JSON line: %s", path, je.text);
      json_array_append_new(arr, a);
    }
    line = nl ? nl + 1 : NULL;
  }
  free(text);
  return arr;
}

static void assert_same_field(json_t *x, json_t *y, const char *key, const char *what) {
  json_t *a = json_object_get(x, key), *b = json_object_get(y, key);
  if (!json_equal(a, b)) {
    char *sa = a ? json_dumps(a, JSON_ENCODE_ANY) : NULL,
         *sb = b ? json_dumps(b, JSON_ENCODE_ANY) : NULL;
    fail_msg("%s: %s differs: %s vs %s", what, key, sa ? sa : "(none)", sb ? sb : "(none)");
  }
}

/* Every commit of tables @p t1 and @p t4: same actions in the same order,
 * equal apart from ids, file names and times, and every added file
 * byte-identical to its counterpart. Returns the number of commits. */
static int64_t compare_tables(const char *t1, const char *t4) {
  int64_t v = 0, adds = 0;
  for (;; v++) {
    json_t *a = read_commit(t1, v), *b = read_commit(t4, v);
    if (!a && !b) break;
    if (!a || !b) fail_msg("version %lld exists in only one table", (long long)v);
    char what[64];
    snprintf(what, sizeof what, "version %lld", (long long)v);
    /* Same action kinds in the same order (files are added in the order
     * their rows arrive, not by name). */
    if (json_array_size(a) != json_array_size(b))
      fail_msg("%s: %zu actions vs %zu", what, json_array_size(a), json_array_size(b));
    for (size_t i = 0; i < json_array_size(a); i++) {
      json_t *x = json_array_get(a, i), *y = json_array_get(b, i);
      const char *kx = json_object_iter_key(json_object_iter(x));
      const char *ky = json_object_iter_key(json_object_iter(y));
      if (!kx || !ky || strcmp(kx, ky) != 0)
        fail_msg("%s action %zu: %s vs %s", what, i, kx ? kx : "?", ky ? ky : "?");
      json_t *ax = json_object_get(x, kx), *ay = json_object_get(y, ky);
      if (strcmp(kx, "add") == 0) {
        assert_same_field(ax, ay, "size", what);
        assert_same_field(ax, ay, "partitionValues", what);
        assert_same_field(ax, ay, "stats", what);
        assert_same_field(ax, ay, "dataChange", what);
        char pa[8192], pb[8192];
        snprintf(pa, sizeof pa, "%s/%s/%s", dir, t1,
                 json_string_value(json_object_get(ax, "path")));
        snprintf(pb, sizeof pb, "%s/%s/%s", dir, t4,
                 json_string_value(json_object_get(ay, "path")));
        /* Paths are URL-encoded; these tables' names need no decoding. */
        assert_files_equal(pa, pb);
        adds++;
      } else if (strcmp(kx, "remove") == 0) {
        assert_same_field(ax, ay, "size", what);
        assert_same_field(ax, ay, "partitionValues", what);
        assert_same_field(ax, ay, "dataChange", what);
      } else if (strcmp(kx, "commitInfo") == 0) {
        assert_same_field(ax, ay, "operation", what);
      } else if (strcmp(kx, "txn") == 0) {
        assert_same_field(ax, ay, "version", what);
      }
    }
    json_decref(a);
    json_decref(b);
  }
  assert_true(adds > 0);
  return v;
}

static char *scan_sorted(const char *table) {
  tu_result r;
  tu_sh(&r, "cd '%s' && '%s' scan %s --format ndjson | sort", dir, INLET_BIN, table);
  if (r.status != 0) fail_msg("scan %s: %s", table, r.err);
  char *out = r.out;
  r.out = NULL;
  tu_result_free(&r);
  return out;
}

static void assert_same_contents(const char *t1, const char *t4, size_t min_lines) {
  char *a = scan_sorted(t1), *b = scan_sorted(t4);
  assert_string_equal(a, b);
  size_t lines = 0;
  for (const char *p = a; *p; p++)
    lines += *p == '\n';
  assert_true(lines >= min_lines);
  free(a);
  free(b);
}

static void test_threads__append_and_compact_identical(void **state) {
  (void)state;
  write_input("a0.ndjson", 0, 30000);
  write_input("a1.ndjson", 30000, 500);
  write_input("a2.ndjson", 30500, 700);
  for (int k = 0; k < 2; k++) {
    const char *t = k ? "ap4" : "ap1";
    int n = k ? 4 : 1;
    LS_SH_OK("create/append",
             "cd '%s' && '%s' create %s --schema '" SCHEMA "' --partition-by kind && "
             "'%s' append %s a0.ndjson --threads %d && '%s' append %s a1.ndjson --threads %d && "
             "'%s' append %s a2.ndjson --threads %d --compression zstd",
             dir, INLET_BIN, t, INLET_BIN, t, n, INLET_BIN, t, n, INLET_BIN, t, n);
    LS_SH_OK("compact", "cd '%s' && '%s' compact %s --min-files 2 --threads %d", dir, INLET_BIN, t,
             n);
  }
  /* create, 3 appends, compaction commits (one per partition). */
  assert_true(compare_tables("ap1", "ap4") >= 5);
  assert_same_contents("ap1", "ap4", 31200);
}

/* Rows spread over @p parts partitions of column "p" (for compactions
 * whose bins run side by side). */
static void write_parted(const char *name, int first, int n, int parts) {
  char path[4300];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  for (int i = first; i < first + n; i++)
    fprintf(f, "{\"id\":%d,\"p\":\"p%02d\",\"name\":\"n-%d\",\"v\":%.2f,\"tags\":[%d]}\n", i,
            (i * 7) % parts, (i * 31) % 1009, i * 0.5, i % 9);
  fclose(f);
}

/* Issue 18: compaction's bins rewritten in parallel. A table of many small
 * files in 12 partitions, copied twice and compacted with --threads 1 and
 * --threads 4 (several bins per partition, one commit each; then with a
 * sort and two bins per commit): the same commits in the same order, the
 * same actions, byte-identical new files, the same rows. The table has a
 * CHECK constraint, so each parallel bin checks rows with scratch of its
 * own. */
static void test_threads__parallel_bins_identical(void **state) {
  (void)state;
  const int parts = 12, appends = 24, per = 400;
  LS_SH_OK("create",
           "cd '%s' && '%s' create pb --schema 'id long, p string, name string, "
           "v double, tags array<long>' --partition-by p "
           "--property 'delta.constraints.nonneg=id >= 0'",
           dir, INLET_BIN);
  for (int a = 0; a < appends; a++) {
    char name[64];
    snprintf(name, sizeof name, "pb%d.ndjson", a);
    write_parted(name, a * per, per, parts);
    LS_SH_OK("append", "cd '%s' && '%s' append pb %s --threads 1", dir, INLET_BIN, name);
  }
  for (int round = 0; round < 2; round++) {
    const char *opts =
        round ? "--sort-by v --bins-per-commit 2 --target-size 12K" : "--target-size 16K";
    LS_SH_OK("copy", "cd '%s' && rm -rf pb1 pb4 && cp -a pb pb1 && cp -a pb pb4", dir);
    tu_result r1, r4;
    tu_sh(&r1, "cd '%s' && '%s' compact pb1 --min-files 2 %s --threads 1 --json", dir, INLET_BIN,
          opts);
    tu_sh(&r4, "cd '%s' && '%s' compact pb4 --min-files 2 %s --threads 4 --json", dir, INLET_BIN,
          opts);
    if (r1.status != 0 || r4.status != 0) fail_msg("compact: %s / %s", r1.err, r4.err);
    json_error_t je;
    json_t *j1 = json_loads(r1.out, 0, &je), *j4 = json_loads(r4.out, 0, &je);
    assert_non_null(j1);
    assert_non_null(j4);
    /* Several commits, more than one per partition: bins really ran side
     * by side (4 at a time), and none failed. */
    json_int_t commits = json_integer_value(json_object_get(j1, "commits"));
    assert_true(commits > parts);
    assert_int_equal(commits, json_integer_value(json_object_get(j4, "commits")));
    assert_int_equal(json_integer_value(json_object_get(j4, "failed_groups")), 0);
    assert_int_equal(json_integer_value(json_object_get(j1, "rows")),
                     json_integer_value(json_object_get(j4, "rows")));
    assert_int_equal(json_integer_value(json_object_get(j4, "rows")), appends * per);
    /* The groups report in plan order, partition by partition. */
    json_t *g1 = json_object_get(j1, "groups"), *g4 = json_object_get(j4, "groups");
    assert_int_equal(json_array_size(g1), json_array_size(g4));
    for (size_t i = 0; i < json_array_size(g1); i++) {
      json_t *a = json_array_get(g1, i), *b = json_array_get(g4, i);
      assert_same_field(a, b, "partition", "group");
      assert_same_field(a, b, "version", "group");
      assert_same_field(a, b, "output_bytes", "group");
    }
    json_decref(j1);
    json_decref(j4);
    tu_result_free(&r1);
    tu_result_free(&r4);
    /* create, the appends, then the compaction's commits. */
    assert_int_equal(compare_tables("pb1", "pb4"), 1 + appends + commits);
    assert_same_contents("pb1", "pb4", (size_t)appends * per);
  }
}

/* The path of the first file version @p v of @p table adds. */
static char *added_path(const char *table, int64_t v) {
  json_t *a = read_commit(table, v);
  char *path = NULL;
  for (size_t i = 0; a && !path && i < json_array_size(a); i++) {
    json_t *add = json_object_get(json_array_get(a, i), "add");
    if (add) path = strdup(json_string_value(json_object_get(add, "path")));
  }
  json_decref(a);
  if (!path) fail_msg("version %lld of %s adds no file", (long long)v, table);
  return path;
}

/* The number of Parquet files under @p table (recursively). */
static long parquet_files(const char *table) {
  tu_result r;
  tu_sh(&r, "cd '%s' && find '%s' -name '*.parquet' | wc -l", dir, table);
  long n = r.status == 0 ? strtol(r.out, NULL, 10) : -1;
  tu_result_free(&r);
  return n;
}

/* Issue 18: with threads, the small files of one bin are decoded on the
 * pool ahead of the file being written. One bin of 60 inputs: small files
 * with deletion vectors, one file too big to be decoded ahead (over 4 MiB:
 * its columns are decoded side by side instead) among them, a CHECK
 * constraint; compacted with --threads 1 and 4 (and then sorted): the same
 * commit, byte-identical files. A damaged small file in the middle, a
 * damaged big file, or a row that breaks a constraint added since, fails
 * the bin with the same message at 1 and 4 threads and leaves the table
 * and its files as they were. */
static void test_threads__compaction_decodes_ahead_identical(void **state) {
  (void)state;
  const int before = 30, after = 28, per = 300;
  LS_SH_OK("create",
           "cd '%s' && '%s' create da --schema 'id long, p string, name string, v double, "
           "tags array<long>' --property 'delta.constraints.nonneg=id >= 0' "
           "--property delta.enableDeletionVectors=true",
           dir, INLET_BIN);
  int id = 0;
  for (int a = 0; a < before + after; a++) {
    char name[64];
    snprintf(name, sizeof name, "da%d.ndjson", a);
    write_parted(name, id, per, 5);
    id += per;
    LS_SH_OK("append", "cd '%s' && '%s' append da %s --threads 1", dir, INLET_BIN, name);
    if (a + 1 != before) continue;
    /* The big one: 70,000 rows with 96 hex digits of noise each. */
    char path[4300];
    snprintf(path, sizeof path, "%s/dabig.ndjson", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 70000; i++, id++) {
      fprintf(f, "{\"id\":%d,\"p\":\"big\",\"name\":\"", id);
      for (int k = 0; k < 6; k++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        fprintf(f, "%016llx", (unsigned long long)x);
      }
      fprintf(f, "\",\"v\":%d.25,\"tags\":[]}\n", i % 1000);
    }
    fclose(f);
    LS_SH_OK("append", "cd '%s' && '%s' append da dabig.ndjson --threads 1", dir, INLET_BIN);
  }
  /* The big file (version before + 1) must be too big to go ahead. */
  json_t *big = read_commit("da", before + 1);
  assert_non_null(big);
  json_int_t big_size = 0;
  for (size_t i = 0; i < json_array_size(big); i++) {
    json_t *add = json_object_get(json_array_get(big, i), "add");
    if (add) big_size = json_integer_value(json_object_get(add, "size"));
  }
  json_decref(big);
  assert_true(big_size > ((json_int_t)4 << 20));
  LS_SH_OK("delete", "cd '%s' && '%s' delete da --where 'id %% 7 = 3'", dir, INLET_BIN);
  const int64_t live =
      ((int64_t)(before + after) * per + 70000) - ((int64_t)(before + after) * per + 70000 + 3) / 7;
  for (int round = 0; round < 2; round++) {
    const char *opts = round ? "--sort-by v --row-group-size 256K" : "";
    LS_SH_OK("copy", "cd '%s' && rm -rf da1 da4 && cp -a da da1 && cp -a da da4", dir);
    LS_SH_OK("compact", "cd '%s' && '%s' compact da1 --target-size 1G %s --threads 1", dir,
             INLET_BIN, opts);
    LS_SH_OK("compact", "cd '%s' && '%s' compact da4 --target-size 1G %s --threads 4", dir,
             INLET_BIN, opts);
    /* create, the appends, the delete, one compaction commit */
    assert_int_equal(compare_tables("da1", "da4"), 1 + before + 1 + after + 1 + 1);
    assert_same_contents("da1", "da4", (size_t)live);
    tu_result r;
    tu_sh(&r, "cd '%s' && '%s' scan da4 --format ndjson | wc -l", dir, INLET_BIN);
    assert_int_equal(r.status, 0);
    assert_int_equal(strtoll(r.out, NULL, 10), live);
    tu_result_free(&r);
  }
  /* Failures part-way through the bin. */
  for (int kind = 0; kind < 3; kind++) {
    LS_SH_OK("copy", "cd '%s' && rm -rf db1 db4 && cp -a da db1 && cp -a da db4", dir);
    long files = parquet_files("db1");
    if (kind != 1) {
      /* The middle third of the 40th input (decoded ahead), or of the big
       * one (its columns decoded side by side), overwritten. */
      char *victim = added_path("da", kind == 0 ? 40 : before + 1);
      LS_SH_OK("damage",
               "cd '%s' && for t in db1 db4; do f=\"$t/%s\"; s=$(stat -c %%s \"$f\"); "
               "dd if=/dev/zero of=\"$f\" bs=1 seek=$((s / 3)) count=$((s / 3)) conv=notrunc "
               "2>/dev/null; done",
               dir, victim);
      free(victim);
    } else {
      /* A constraint rows of the 45th append break, committed as a writer
       * that does not check existing rows could. */
      const int64_t v = 1 + before + 1 + after + 1;
      json_t *c0 = read_commit("da", 0);
      json_t *md = NULL;
      for (size_t i = 0; c0 && !md && i < json_array_size(c0); i++)
        md = json_object_get(json_array_get(c0, i), "metaData");
      assert_non_null(md);
      char rule[64];
      snprintf(rule, sizeof rule, "id < %d", 44 * per + 70000);
      json_object_set_new(json_object_get(md, "configuration"), "delta.constraints.small",
                          json_string(rule));
      json_t *line = json_pack("{sO}", "metaData", md);
      char *text = json_dumps(line, JSON_COMPACT);
      for (int t = 0; t < 2; t++) {
        char path[4400];
        snprintf(path, sizeof path, "%s/%s/_delta_log/%020lld.json", dir, t ? "db4" : "db1",
                 (long long)v);
        FILE *f = fopen(path, "wx");
        assert_non_null(f);
        fprintf(f, "%s\n", text);
        fclose(f);
      }
      free(text);
      json_decref(line);
      json_decref(c0);
    }
    tu_result r1, r4;
    tu_sh(&r1, "cd '%s' && '%s' compact db1 --target-size 1G --threads 1 --json", dir, INLET_BIN);
    tu_sh(&r4, "cd '%s' && '%s' compact db4 --target-size 1G --threads 4 --json", dir, INLET_BIN);
    assert_int_equal(r1.status, r4.status);
    json_error_t je;
    json_t *j1 = json_loads(r1.out, 0, &je), *j4 = json_loads(r4.out, 0, &je);
    if (!j1 || !j4) fail_msg("compact --json: %s / %s", r1.out, r4.out);
    assert_int_equal(json_integer_value(json_object_get(j1, "failed_groups")), 1);
    assert_int_equal(json_integer_value(json_object_get(j4, "failed_groups")), 1);
    json_t *g1 = json_array_get(json_object_get(j1, "groups"), 0),
           *g4 = json_array_get(json_object_get(j4, "groups"), 0);
    const char *e1 = json_string_value(json_object_get(g1, "error"));
    assert_non_null(e1);
    assert_non_null(strstr(e1, kind != 1 ? "compacting" : "constraint"));
    /* The same message, but for the table's directory in it. */
    const char *e4 = json_string_value(json_object_get(g4, "error"));
    assert_non_null(e4);
    char want[8192];
    size_t w = 0;
    for (const char *q = e1; *q && w + 1 < sizeof want;)
      if (strncmp(q, "/db1/", 5) == 0) {
        memcpy(want + w, "/db4/", 5);
        w += 5;
        q += 5;
      } else {
        want[w++] = *q++;
      }
    want[w] = '\0';
    assert_string_equal(e4, want);
    json_decref(j1);
    json_decref(j4);
    tu_result_free(&r1);
    tu_result_free(&r4);
    /* Nothing committed, no file left behind. */
    assert_null(read_commit("db4", 1 + before + 1 + after + 1 + (kind == 1 ? 1 : 0)));
    assert_int_equal(parquet_files("db1"), files);
    assert_int_equal(parquet_files("db4"), files);
  }
}

static void test_threads__ingest_identical(void **state) {
  (void)state;
  write_input("in.ndjson", 0, 25000);
  for (int k = 0; k < 2; k++) {
    const char *t = k ? "in4" : "in1";
    int n = k ? 4 : 1;
    LS_SH_OK("ingest",
             "cd '%s' && '%s' ingest %s --source file:in.ndjson --once --final --max-rows 6000 "
             "--max-latency 1h "
             "--create-schema '" SCHEMA "' --app-id same --threads %d --quiet",
             dir, INLET_BIN, t, n);
  }
  assert_true(compare_tables("in1", "in4") >= 5); /* 25,000 rows in batches of 6,000 */
  assert_same_contents("in1", "in4", 25000);
}

/* Varied NDJSON for the parallel parse: malformed records and wrong types
 * (dead letters), events late against the watermark (flagged), null and
 * nested values, and fields the schema lacks appearing part-way (schema
 * evolution adds them, mid-window when parsed in parallel). */
/* @p extra_at, @p deep_at: the first records with the fields that make
 * schema evolution add a column. */
static void write_varied_at(const char *name, int n, int extra_at, int deep_at) {
  char path[4300];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  for (int i = 0; i < n; i++) {
    if (i % 331 == 17) { /* malformed */
      fprintf(f, "{\"id\":%d,\"kind\":\"k\n", i);
      continue;
    }
    if (i % 503 == 5) { /* wrong type */
      fprintf(f, "{\"id\":\"x%d\",\"kind\":\"k1\",\"ts\":\"2024-01-01T00:00:00Z\"}\n", i);
      continue;
    }
    /* One second per record; every 97th ten minutes behind (late: 1m lateness). */
    int sec = 1000 + i - (i % 97 == 3 ? 600 : 0);
    fprintf(f, "{\"id\":%d,\"kind\":\"k%d\",\"ts\":\"2024-01-%02dT%02d:%02d:%02dZ\",", i, i % 3,
            1 + sec / 86400, sec / 3600 % 24, sec / 60 % 60, sec % 60);
    if (i % 5 == 0)
      fputs("\"s\":null,", f);
    else
      fprintf(f, "\"s\":{\"a\":%d,\"b\":%s},", i * 3, i % 4 ? "\"bb\"" : "null");
    fprintf(f, "\"tags\":[%d%s]", i, i % 6 ? ",7" : "");
    if (i >= extra_at && i % 3 == 0) fprintf(f, ",\"extra\":\"e%d\"", i % 13);
    if (i >= deep_at && i % 7 == 1) fprintf(f, ",\"deep\":{\"x\":%d,\"y\":[1,%d]}", i, i % 9);
    if (i % 11 == 0) fputs(",\"nothing\":null", f);
    fputs("}\n", f);
  }
  fclose(f);
}

/* operationMetrics equal apart from the ones that measure time. */
static void assert_same_metrics(json_t *ca, json_t *cb, const char *what) {
  json_t *ma = json_object_get(ca, "operationMetrics"),
         *mb = json_object_get(cb, "operationMetrics");
  if (!ma && !mb) return;
  if (!ma || !mb) fail_msg("%s: operationMetrics in only one commit", what);
  const char *k;
  json_t *v;
  size_t n = 0;
  json_object_foreach(ma, k, v) {
    size_t kl = strlen(k);
    if (kl >= 2 && strcmp(k + kl - 2, "Ms") == 0) continue; /* sourceLagMs, executionTimeMs */
    char w[128];
    snprintf(w, sizeof w, "%s operationMetrics", what);
    assert_same_field(ma, mb, k, w);
    n++;
  }
  assert_true(n > 0);
  assert_int_equal(json_object_size(ma), json_object_size(mb));
}

/* What compare_tables leaves out: metaData (evolved schemas) and the
 * ingest's commitInfo metrics (records, rejected, late, positions,
 * watermark, lag bytes). */
static void compare_ingest_logs(const char *t1, const char *t4, int *metadata) {
  *metadata = 0;
  for (int64_t v = 0;; v++) {
    json_t *a = read_commit(t1, v), *b = read_commit(t4, v);
    if (!a && !b) break;
    assert_true(a && b);
    char what[64];
    snprintf(what, sizeof what, "version %lld", (long long)v);
    for (size_t i = 0; i < json_array_size(a); i++) {
      json_t *x = json_array_get(a, i), *y = json_array_get(b, i);
      json_t *mx = json_object_get(x, "metaData"), *my = json_object_get(y, "metaData");
      if (mx) {
        assert_non_null(my);
        assert_same_field(mx, my, "schemaString", what);
        assert_same_field(mx, my, "partitionColumns", what);
        assert_same_field(mx, my, "configuration", what);
        ++*metadata;
      }
      json_t *cx = json_object_get(x, "commitInfo"), *cy = json_object_get(y, "commitInfo");
      if (cx) assert_same_metrics(cx, cy, what);
    }
    json_decref(a);
    json_decref(b);
  }
}

/* The dead letters of app "same": the same files, byte for byte. Returns
 * their lines. */
static size_t compare_dead_letters(const char *t1, const char *t4) {
  tu_result r1, r4;
  tu_sh(&r1, "cd '%s/%s/_errors/same' && ls | LC_ALL=C sort", dir, t1);
  tu_sh(&r4, "cd '%s/%s/_errors/same' && ls | LC_ALL=C sort", dir, t4);
  assert_int_equal(r1.status, 0);
  assert_int_equal(r4.status, 0);
  assert_string_equal(r1.out, r4.out);
  size_t lines = 0;
  for (char *name = strtok(r1.out, "\n"); name; name = strtok(NULL, "\n")) {
    char a[4400], b[4400];
    snprintf(a, sizeof a, "%s/%s/_errors/same/%s", dir, t1, name);
    snprintf(b, sizeof b, "%s/%s/_errors/same/%s", dir, t4, name);
    assert_files_equal(a, b);
    size_t n = 0;
    char *text = tu_read_file(a, &n);
    assert_non_null(text);
    for (size_t i = 0; i < n; i++)
      lines += text[i] == '\n';
    free(text);
  }
  tu_result_free(&r1);
  tu_result_free(&r4);
  return lines;
}

/* Occurrences of @p needle, by a plain loop: the sanitizers' strstr and
 * memmem check the whole rest of the text at every call (quadratic on the
 * megabytes of a scan). */
static size_t count_lines_with(const char *text, const char *needle) {
  size_t n = 0, nl = strlen(needle);
  for (const char *p = text; *p; p++) {
    size_t k = 0;
    while (k < nl && p[k] == needle[k])
      k++;
    n += k == nl;
  }
  return n;
}

static char *scan_out(const char *table, const char *opts, int threads, bool sorted) {
  tu_result r;
  tu_sh(&r, "cd '%s' && '%s' scan %s --format ndjson --threads %d %s%s", dir, INLET_BIN, table,
        threads, opts, sorted ? " | LC_ALL=C sort" : "");
  if (r.status != 0) fail_msg("scan %s %s --threads %d: %s", table, opts, threads, r.err);
  char *out = r.out;
  r.out = NULL;
  tu_result_free(&r);
  return out;
}

/* Whether every line of @p sub occurs in @p all at least as often (both
 * sorted bytewise). */
static bool sorted_sub_multiset(const char *sub, const char *all) {
  const char *a = all;
  for (const char *s = sub; *s;) {
    const char *se = strchr(s, '\n');
    size_t sl = se ? (size_t)(se - s) : strlen(s);
    for (;;) {
      if (!*a) return false;
      const char *ae = strchr(a, '\n');
      size_t al = ae ? (size_t)(ae - a) : strlen(a);
      int k = memcmp(a, s, al < sl ? al : sl);
      if (k == 0) k = al < sl ? -1 : al > sl;
      a = ae ? ae + 1 : a + al;
      if (k == 0) break;
      if (k > 0) return false;
    }
    s = se ? se + 1 : s + sl;
  }
  return true;
}

/* Issue 18: scans decode files in parallel. On a partitioned table of many
 * files, some rows deleted through deletion vectors: at 1, 2 and 4 threads
 * the ordered scan prints exactly what one thread prints (same rows, same
 * order), and --unordered the same rows as a multiset; with --limit
 * exactly min(limit, matches) rows, all of them matching rows (ordered: the
 * first ones); with --where (partition and data columns) the same rows. */
static void test_threads__scan_parallel_and_unordered(void **state) {
  (void)state;
  const int parts = 12, appends = 10, per = 600;
  LS_SH_OK("create",
           "cd '%s' && '%s' create sc --schema 'id long, p string, name string, "
           "v double, tags array<long>' --partition-by p "
           "--property delta.enableDeletionVectors=true",
           dir, INLET_BIN);
  for (int a = 0; a < appends; a++) {
    char name[64];
    snprintf(name, sizeof name, "sc%d.ndjson", a);
    write_parted(name, a * per, per, parts);
    LS_SH_OK("append", "cd '%s' && '%s' append sc %s --threads 1", dir, INLET_BIN, name);
  }
  LS_SH_OK("delete", "cd '%s' && '%s' delete sc --where 'id %% 13 = 5'", dir, INLET_BIN);
  tu_result r;
  tu_sh(&r, "find '%s/sc' -name 'deletion_vector_*' | wc -l", dir);
  assert_true(atoi(r.out) > 0);
  tu_result_free(&r);
  static const char *const wheres[] = {
      "",
      "--where \"v > 700 AND p IN ('p01', 'p05', 'p07')\"",
      "--where \"id % 3 = 0 OR name = 'n-5'\"",
      "--columns name,id --where 'v >= 10 AND v < 2600'",
  };
  for (size_t w = 0; w < sizeof wheres / sizeof *wheres; w++) {
    const char *opts = wheres[w];
    char *ref = scan_out("sc", opts, 1, false);
    char *ref_sorted = scan_out("sc", opts, 1, true);
    size_t matches = count_lines_with(ref, "\n");
    assert_true(matches > 50);
    if (w == 0) { /* every row but the deleted ones */
      size_t live = 0;
      for (int i = 0; i < appends * per; i++)
        live += i % 13 != 5;
      assert_int_equal(matches, live);
    }
    for (int threads = 1; threads <= 4; threads *= 2) {
      char *ord = scan_out("sc", opts, threads, false);
      assert_string_equal(ord, ref);
      free(ord);
      char un_opts[300];
      snprintf(un_opts, sizeof un_opts, "%s --unordered", opts);
      char *un = scan_out("sc", un_opts, threads, true);
      assert_string_equal(un, ref_sorted);
      free(un);
      /* Limits below and above the matches. */
      const size_t limits[] = {37, matches / 2, matches + 10};
      for (int l = 0; l < 3; l++) {
        char lim_opts[340];
        size_t want = limits[l] < matches ? limits[l] : matches;
        snprintf(lim_opts, sizeof lim_opts, "%s --limit %zu", un_opts, limits[l]);
        char *lim = scan_out("sc", lim_opts, threads, true);
        assert_int_equal(count_lines_with(lim, "\n"), want);
        assert_true(sorted_sub_multiset(lim, ref_sorted));
        free(lim);
        snprintf(lim_opts, sizeof lim_opts, "%s --limit %zu", opts, limits[l]);
        char *first = scan_out("sc", lim_opts, threads, false);
        assert_int_equal(count_lines_with(first, "\n"), want);
        assert_memory_equal(first, ref, strlen(first));
        free(first);
      }
    }
    free(ref);
    free(ref_sorted);
  }
}

/* What a scan of @p table at @p threads returns through the C API: its
 * stats, its rows' ids summed by position (order-sensitive) and, when
 * @p arrow, the same rows counted through the Arrow C stream. */
typedef struct one_scan {
  inlet_scan_stats st;
  int64_t rows, id_sum, pos_sum, arrow_rows;
} one_scan;

static one_scan scan_api(const char *table, const char *where, int64_t limit, int threads,
                         bool unordered) {
  inlet_error err = INLET_ERROR_INIT;
  char path[4300];
  snprintf(path, sizeof path, "%s/%s", dir, table);
  inlet_table *t = NULL;
  inlet_snapshot *snap = NULL;
  if (inlet_table_open(&t, path, &err) < 0 || inlet_table_snapshot(&snap, t, &err) < 0)
    fail_msg("open %s: %s", table, err.message);
  one_scan r;
  memset(&r, 0, sizeof r);
  for (int arrow = 0; arrow < 2; arrow++) {
    static const char *const cols[] = {"id"};
    inlet_scan_options o = INLET_SCAN_OPTIONS_INIT;
    o.n_columns = 1;
    o.columns = cols;
    o.where = where;
    o.limit = limit;
    o.threads = threads;
    o.unordered = unordered;
    inlet_scan *sc = NULL;
    if (inlet_scan_open(&sc, snap, &o, &err) < 0) fail_msg("scan %s: %s", table, err.message);
    if (arrow) {
      struct ArrowArrayStream s;
      assert_int_equal(inlet_scan_export_stream(sc, &s, &err), 0); /* takes the scan */
      struct ArrowArray a;
      for (;;) {
        assert_int_equal(s.get_next(&s, &a), 0);
        if (!a.release) break;
        r.arrow_rows += a.length;
        a.release(&a);
      }
      s.release(&s);
      continue;
    }
    inlet_batch b;
    memset(&b, 0, sizeof b);
    int rc;
    while ((rc = inlet_scan_next(sc, &b, &err)) > 0) {
      const int64_t *id = (const int64_t *)b.columns[0].values;
      for (int64_t i = 0; i < b.num_rows; i++, r.rows++) {
        r.id_sum += id[i];
        r.pos_sum += id[i] * (r.rows % 1000);
      }
    }
    if (rc < 0) fail_msg("scan %s: %s", table, err.message);
    inlet_batch_reset(&b);
    inlet_scan_get_stats(sc, &r.st);
    inlet_scan_free(sc);
  }
  inlet_snapshot_free(snap);
  inlet_table_free(t);
  return r;
}

/* Issue 18: a scan decodes the row groups of one file side by side, not
 * just files. A table (flat: Parquet statistics skip row groups of flat
 * files only) compacted into one file of many small row groups
 * (then with row tracking turned on, so row ids are baseRowId + the row's
 * position in the file, and rows deleted through a deletion vector, whose
 * row indexes are positions in the file): at 1, 2 and 4 threads the ordered
 * scan prints what one thread prints, --unordered the same rows; with a
 * predicate that skips row groups by their statistics, with limits, and
 * with the row ids. Through the C API the counters (one file read, every
 * row group counted once, the same ones skipped) and the Arrow C stream
 * agree too. */
static void test_threads__scan_one_file_row_groups(void **state) {
  (void)state;
  const int appends = 32, per = 750;
  LS_SH_OK("create",
           "cd '%s' && '%s' create one --schema 'id long, p string, name string, v double' "
           "--property delta.enableDeletionVectors=true",
           dir, INLET_BIN);
  for (int a = 0; a < appends; a++) {
    char name[64];
    snprintf(name, sizeof name, "one%d.ndjson", a);
    write_parted(name, a * per, per, 12);
    LS_SH_OK("append", "cd '%s' && '%s' append one %s --threads 1 --schema-evolution ignore", dir,
             INLET_BIN, name);
  }
  /* One file of a row group per input file (or more). */
  LS_SH_OK("compact",
           "cd '%s' && '%s' compact one --target-size 1G --row-group-size 16K | "
           "grep -q ' -> 1 files'",
           dir, INLET_BIN);
  one_scan all = scan_api("one", NULL, -1, 1, false);
  assert_int_equal(all.st.files_read, 1);
  assert_true(all.st.row_groups >= 16);
  assert_int_equal(all.rows, appends * per);
  for (int stage = 0; stage < 2; stage++) {
    if (stage == 1) {
      LS_SH_OK("row tracking", "cd '%s' && '%s' alter one --property delta.enableRowTracking=true",
               dir, INLET_BIN);
      LS_SH_OK("delete", "cd '%s' && '%s' delete one --where 'id %% 13 = 5 OR id %% 1000 < 3'", dir,
               INLET_BIN);
      tu_result r;
      tu_sh(&r, "find '%s/one' -name 'deletion_vector_*' | wc -l", dir);
      assert_true(atoi(r.out) > 0);
      tu_result_free(&r);
    }
    static const char *const wheres[] = {
        "",
        "--where 'id >= 7000 AND id < 9500'", /* row groups skipped by their stats */
        "--where \"name = 'n-5' OR v > 11000\"",
        "--columns _metadata.row_id,id,name --where 'id % 7 = 1'",
    };
    for (size_t w = 0; w < sizeof wheres / sizeof *wheres; w++) {
      if (w == 3 && stage == 0) continue; /* row ids need row tracking */
      const char *opts = wheres[w];
      char *ref = scan_out("one", opts, 1, false);
      char *ref_sorted = scan_out("one", opts, 1, true);
      size_t matches = count_lines_with(ref, "\n");
      assert_true(matches > 100);
      if (w == 0 && stage == 1) {
        size_t live = 0;
        for (int i = 0; i < appends * per; i++)
          live += !(i % 13 == 5 || i % 1000 < 3);
        assert_int_equal(matches, live);
      }
      if (w == 3) { /* the row id of id i is its position in the compacted file */
        assert_non_null(strstr(ref, "{\"_metadata.row_id\":8,\"id\":8,"));
        assert_non_null(strstr(ref, "{\"_metadata.row_id\":23955,\"id\":23955,"));
      }
      for (int threads = 1; threads <= 4; threads *= 2) {
        char *ord = scan_out("one", opts, threads, false);
        assert_string_equal(ord, ref);
        free(ord);
        char un_opts[300];
        snprintf(un_opts, sizeof un_opts, "%s --unordered", opts);
        char *un = scan_out("one", un_opts, threads, true);
        assert_string_equal(un, ref_sorted);
        free(un);
        const size_t limits[] = {5, matches / 3, matches + 1};
        for (int l = 0; l < 3; l++) {
          char lim_opts[340];
          size_t want = limits[l] < matches ? limits[l] : matches;
          snprintf(lim_opts, sizeof lim_opts, "%s --limit %zu", opts, limits[l]);
          char *first = scan_out("one", lim_opts, threads, false);
          assert_int_equal(count_lines_with(first, "\n"), want);
          assert_memory_equal(first, ref, strlen(first));
          free(first);
          snprintf(lim_opts, sizeof lim_opts, "%s --limit %zu", un_opts, limits[l]);
          char *any = scan_out("one", lim_opts, threads, true);
          assert_int_equal(count_lines_with(any, "\n"), want);
          assert_true(sorted_sub_multiset(any, ref_sorted));
          free(any);
        }
      }
      free(ref);
      free(ref_sorted);
    }
    /* The C API: the same rows in the same order, the same counters. */
    static const char *const api_wheres[] = {NULL, "id >= 7000 AND id < 9500"};
    for (int w = 0; w < 2; w++) {
      one_scan ref = scan_api("one", api_wheres[w], -1, 1, false);
      if (w == 1) assert_true(ref.st.row_groups_skipped > ref.st.row_groups / 2);
      assert_int_equal(ref.arrow_rows, ref.rows);
      for (int threads = 2; threads <= 4; threads *= 2)
        for (int un = 0; un < 2; un++) {
          one_scan got = scan_api("one", api_wheres[w], -1, threads, un != 0);
          assert_int_equal(got.rows, ref.rows);
          assert_int_equal(got.id_sum, ref.id_sum);
          if (!un) assert_int_equal(got.pos_sum, ref.pos_sum);
          assert_int_equal(got.arrow_rows, ref.rows);
          assert_int_equal(got.st.files_read, 1);
          assert_int_equal(got.st.row_groups, ref.st.row_groups);
          assert_int_equal(got.st.row_groups_skipped, ref.st.row_groups_skipped);
          assert_int_equal(got.st.row_groups_read, ref.st.row_groups_read);
          assert_int_equal(got.st.rows_read, ref.st.rows_read);
          assert_int_equal(got.st.rows_matched, ref.st.rows_matched);
        }
      one_scan lim = scan_api("one", api_wheres[w], 10, 4, false);
      assert_int_equal(lim.rows, 10);
      assert_true(lim.st.row_groups_read < ref.st.row_groups_read || w == 1);
    }
  }
}

/* Issue 18: errors of a parallel scan are the ones one thread reports
 * first. The one-file table of the test above copied, and its data file
 * damaged at two places (two row groups fail to decode): at 1, 2 and 4
 * threads the same exit status, the same message (the first damaged row
 * group's) and the same rows printed before it. */
static void test_threads__scan_one_file_first_error(void **state) {
  (void)state;
  ls_damaged_copy(dir, "one", "bad");
  tu_result r;
  tu_result ref;
  tu_sh(&ref, "cd '%s' && '%s' scan bad --format ndjson --threads 1", dir, INLET_BIN);
  assert_int_not_equal(ref.status, 0);
  assert_non_null(strstr(ref.err, "row group"));
  assert_true(count_lines_with(ref.out, "\n") > 1000);
  for (int threads = 2; threads <= 4; threads *= 2) {
    tu_sh(&r, "cd '%s' && '%s' scan bad --format ndjson --threads %d", dir, INLET_BIN, threads);
    assert_int_equal(r.status, ref.status);
    assert_string_equal(r.err, ref.err);
    assert_string_equal(r.out, ref.out);
    tu_result_free(&r);
  }
  tu_result_free(&ref);
}

/* @p n varied records (write_varied_at with @p extra_at, @p deep_at)
 * ingested into tables NAME1 and NAME4 at threads 1 and 4, in batches of
 * @p max_rows cut by rows alone (a slow sanitized run must not meet the
 * default 2 s latency trigger inside one): the same commits (at least
 * @p min_commits), byte-identical data files, the same dead letters (every
 * malformed and mistyped record, with the same reasons and positions) and
 * rows; at least @p min_late late rows and @p min_deep evolved "deep" ones. */
static void ingest_varied_pair(const char *name, int n, int extra_at, int deep_at, int max_rows,
                               int64_t min_commits, size_t min_late, size_t min_deep) {
  char input[64], t1[64], t4[64];
  snprintf(input, sizeof input, "%s.ndjson", name);
  snprintf(t1, sizeof t1, "%s1", name);
  snprintf(t4, sizeof t4, "%s4", name);
  write_varied_at(input, n, extra_at, deep_at);
  for (int k = 0; k < 2; k++) {
    const char *t = k ? t4 : t1;
    int threads = k ? 4 : 1;
    LS_SH_OK("create/ingest",
             "cd '%s' && '%s' create %s --schema 'id long not null, kind string, ts timestamp, "
             "late boolean, s struct<a:long,b:string>, tags array<long>' "
             "--property inlet.ingest.lateFlagColumn=late && "
             "'%s' ingest %s --source file:%s --once --final --max-rows %d --max-latency 1h "
             "--schema-evolution add --event-time ts --allowed-lateness 1m "
             "--max-rejected 100000 --app-id same --threads %d --quiet",
             dir, INLET_BIN, t, INLET_BIN, t, input, max_rows, threads);
  }
  assert_true(compare_tables(t1, t4) >= min_commits);
  int metadata = 0;
  compare_ingest_logs(t1, t4, &metadata);
  assert_true(metadata >= 3); /* create, and two evolutions ("extra", "deep") */
  size_t bad = 0;
  for (int i = 0; i < n; i++)
    bad += i % 331 == 17 || (i % 331 != 17 && i % 503 == 5);
  assert_int_equal(compare_dead_letters(t1, t4), bad);
  char *a = scan_sorted(t1), *b = scan_sorted(t4);
  assert_string_equal(a, b);
  assert_int_equal(count_lines_with(a, "\n"), (size_t)n - bad);
  assert_true(count_lines_with(a, "\"late\":true") > min_late);
  assert_true(count_lines_with(a, "\"deep\":{") > min_deep);
  free(a);
  free(b);
}

static void test_threads__ingest_varied_identical(void **state) {
  (void)state;
  /* 36,000 records in batches of 2,500 rows (plus the create). */
  ingest_varied_pair("var", 36000, 9000, 21000, 2500, 14, 300, 1000);
}

/* Batches larger than the ingester's 65,536-row chunks: with threads, a
 * full chunk is written on a pool thread while the next is converted (the
 * ingest pipeline), and schema evolutions, dead letters, late rows and
 * commits meet a chunk in flight. */
static void test_threads__ingest_pipeline_identical(void **state) {
  (void)state;
  /* The create and two batches, the evolutions inside them. */
  ingest_varied_pair("pipe", 200000, 90000, 150000, 120000, 3, 1500, 5000);
}

/* Version 0 of a table with what the ingester decides per converted row:
 * a NOT NULL column, a CHECK constraint, a date column generated from the
 * event time that partitions the table (protocol 1/4, as Spark writes it). */
static void create_rules_table(const char *table) {
  char log[4200], path[4300], text[3000];
  snprintf(log, sizeof log, "%s/%s/_delta_log", dir, table);
  tu_result r;
  tu_sh(&r, "mkdir -p '%s'", log);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  snprintf(path, sizeof path, "%s/00000000000000000000.json", log);
  snprintf(text, sizeof text,
           "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":4}}\n"
           "{\"metaData\":{\"id\":\"0a5c3a9e-8d53-4e0e-9a36-0c1f7a2f1d12\",\"format\":"
           "{\"provider\":\"parquet\",\"options\":{}},\"schemaString\":\"{\\\"type\\\":"
           "\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"id\\\",\\\"type\\\":\\\"long\\\","
           "\\\"nullable\\\":false,\\\"metadata\\\":{}},{\\\"name\\\":\\\"amount\\\",\\\"type\\\":"
           "\\\"double\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}},{\\\"name\\\":\\\"note\\\","
           "\\\"type\\\":\\\"string\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}},"
           "{\\\"name\\\":\\\"ts\\\",\\\"type\\\":\\\"timestamp\\\",\\\"nullable\\\":true,"
           "\\\"metadata\\\":{}},{\\\"name\\\":\\\"day\\\",\\\"type\\\":\\\"date\\\","
           "\\\"nullable\\\":true,\\\"metadata\\\":{\\\"delta.generationExpression\\\":"
           "\\\"CAST(ts AS DATE)\\\"}}]}\",\"partitionColumns\":[\"day\"],\"configuration\":"
           "{\"delta.constraints.nonneg\":\"amount >= 0\"},\"createdTime\":1700000000000}}\n");
  assert_int_equal(tu_write_file(path, text, strlen(text)), 0);
}

/* Records for create_rules_table: every 101st breaks the CHECK constraint,
 * every 211th has a null id, every 89th is ten minutes late, every 500th is
 * followed by a blank line, every 1,777th is longer than --max-record-bytes,
 * every 7th carries a field the table lacks; the event time crosses
 * midnight (two partitions). Returns the records to be rejected, *@p late
 * the late ones. */
static size_t write_rules_input(const char *name, int n, size_t *late) {
  char path[4300];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  size_t bad = 0;
  *late = 0;
  for (int i = 0; i < n; i++) {
    int sec = 80000 + i * 3 - (i % 89 == 4 ? 600 : 0);
    /* A null id or an oversize record never becomes a row; a late row
     * leaves (dropped, routed) before the constraint is checked. */
    bool unread = i % 211 == 9 || i % 1777 == 11, is_late = i % 89 == 4 && !unread;
    *late += is_late;
    bad += unread || (i % 101 == 7 && !is_late);
    fputc('{', f);
    if (i % 211 == 9)
      fputs("\"id\":null", f);
    else
      fprintf(f, "\"id\":%d", i);
    fprintf(f, ",\"amount\":%s%d.25", i % 101 == 7 ? "-" : "", i % 1000);
    fprintf(f, ",\"ts\":\"2024-03-%02dT%02d:%02d:%02dZ\"", 1 + sec / 86400, sec / 3600 % 24,
            sec / 60 % 60, sec % 60);
    fputs(",\"note\":\"", f);
    for (int k = 0; k < (i % 1777 == 11 ? 3000 : i % 17); k++)
      fputc('a' + k % 26, f);
    fputc('"', f);
    if (i % 7 == 0) fputs(",\"unknown\":[1,2]", f);
    fputs("}\n", f);
    if (i % 500 == 0) fputs("\n", f);
  }
  fclose(f);
  return bad;
}

/* Records converted ahead on the pool (threads > 1) meet every per-row
 * decision the ingester makes after conversion: the CHECK constraint and
 * NOT NULL (dead letters), the generated partition column, lateness with
 * each late policy (dropped, routed to another table), oversize records,
 * blank lines, unknown fields (ignored and counted) — from a file and from
 * stdin. Threads 1 and 4 must write the same commits, byte-identical data
 * files, the same dead letters and the same late table. */
static void test_threads__ingest_rules_identical(void **state) {
  (void)state;
  size_t late = 0;
  size_t bad = write_rules_input("rules.ndjson", 30000, &late);
  const char *policies[] = {"drop", "route"};
  for (int p = 0; p < 2; p++) {
    for (int k = 0; k < 2; k++) {
      int threads = k ? 4 : 1;
      char t[32], lt[32], policy[64];
      snprintf(t, sizeof t, "r%s%d", policies[p], threads);
      snprintf(lt, sizeof lt, "late%s%d", policies[p], threads);
      snprintf(policy, sizeof policy, p ? "route:%s" : "drop", lt);
      create_rules_table(t);
      if (p)
        LS_SH_OK("create late",
                 "cd '%s' && '%s' create %s --schema 'id long, amount double, "
                 "note string, ts timestamp'",
                 dir, INLET_BIN, lt);
      /* The file, then the same records again from stdin into the same table
       * (another app id: a second copy of every row). */
      LS_SH_OK("ingest",
               "cd '%s' && '%s' ingest %s --source file:rules.ndjson --once --final "
               "--max-rows 2500 --max-latency 1h --max-record-bytes 2000 --event-time ts "
               "--allowed-lateness 1m --late-policy %s --max-rejected 100000 --app-id same "
               "--schema-evolution ignore --threads %d --quiet && "
               "'%s' ingest %s --source stdin --max-rows 3000 --max-latency 1h "
               "--max-record-bytes 2000 --event-time ts --allowed-lateness 1m --late-policy %s "
               "--max-rejected 100000 --app-id other --schema-evolution ignore --threads %d "
               "--quiet < rules.ndjson",
               dir, INLET_BIN, t, policy, threads, INLET_BIN, t, policy, threads);
    }
    char t1[32], t4[32];
    snprintf(t1, sizeof t1, "r%s1", policies[p]);
    snprintf(t4, sizeof t4, "r%s4", policies[p]);
    assert_true(compare_tables(t1, t4) >= 20);
    int metadata = 0;
    compare_ingest_logs(t1, t4, &metadata);
    assert_int_equal(compare_dead_letters(t1, t4), bad);
    char *a = scan_sorted(t1), *b = scan_sorted(t4);
    assert_string_equal(a, b);
    /* Each record twice (file, stdin) but the rejected and the late. */
    assert_int_equal(count_lines_with(a, "\n"), 2 * (30000 - bad - late));
    assert_int_equal(count_lines_with(a, "\"day\":\"2024-03-02\""),
                     count_lines_with(a, "\"ts\":\"2024-03-02T"));
    assert_true(count_lines_with(a, "\"day\":\"2024-03-02\"") > 1000);
    free(a);
    free(b);
    if (p) {
      a = scan_sorted("lateroute1");
      b = scan_sorted("lateroute4");
      assert_string_equal(a, b);
      assert_int_equal(count_lines_with(a, "\n"), 2 * late);
      free(a);
      free(b);
    }
  }
}

/* CSV rows for test_threads__ingest_csv_identical, in the column order
 * @p cols names (a header line first): quoted notes with commas, doubled
 * quotes and line breaks, empty cells (null), every 401st amount not a
 * number and every 997th note with a stray quote (dead letters: the stray
 * quote's lines are read again as records), a column the table lacks
 * (ignored and counted). Appends to @p path when @p append. Returns the
 * records written. */
static int write_csv_rows(const char *path, const char *cols, int first, int n, bool header,
                          bool append) {
  FILE *f = fopen(path, append ? "a" : "w");
  assert_non_null(f);
  if (header) fprintf(f, "%s\n", cols);
  int records = 0;
  for (int i = first; i < first + n; i++, records++) {
    char id[32], kind[32], amount[32], note[96], ts[48], extra[32];
    snprintf(id, sizeof id, "%d", i);
    if (i % 7 == 3)
      kind[0] = '\0'; /* an empty cell: null */
    else
      snprintf(kind, sizeof kind, "k%d", i % 5);
    if (i % 401 == 9)
      snprintf(amount, sizeof amount, "abc%d", i);
    else
      snprintf(amount, sizeof amount, "%d.%02d", i % 1000, i % 100);
    if (i % 997 == 5)
      snprintf(note, sizeof note, "\"broken %d", i);
    else if (i % 13 == 0)
      snprintf(note, sizeof note, "\"a, \"\"quoted\"\"\nsecond line %d\"", i);
    else
      snprintf(note, sizeof note, "n%d", i % 17);
    snprintf(ts, sizeof ts, "2024-02-01T%02d:%02d:%02dZ", i / 3600 % 24, i / 60 % 60, i % 60);
    snprintf(extra, sizeof extra, "x%d", i % 3);
    /* The cells in the order the header names them. */
    char line[512] = "";
    char names[128];
    snprintf(names, sizeof names, "%s", cols);
    int k = 0;
    for (char *c = strtok(names, ","); c; c = strtok(NULL, ","), k++) {
      const char *v = strcmp(c, "id") == 0       ? id
                      : strcmp(c, "kind") == 0   ? kind
                      : strcmp(c, "amount") == 0 ? amount
                      : strcmp(c, "note") == 0   ? note
                      : strcmp(c, "ts") == 0     ? ts
                                                 : extra;
      if (k) strcat(line, ",");
      strcat(line, v);
    }
    fprintf(f, "%s\n", line);
  }
  fclose(f);
  return records;
}

/* Issue 18: CSV records are converted ahead too (from 3 threads), each
 * through the header before it. A file ingested in two runs, rotated by
 * rename in between: the second run reads the rest of the renamed file and
 * then the new file, whose header swaps two string columns (a header
 * in the middle of the records). Threads 1 and 4 write the same commits,
 * byte-identical data files and the same dead letters. */
#define CSV_INGEST                                                                                 \
  "cd '%s' && '%s' ingest csvt%d --source file:%s --format csv --once --final --max-rows 2500 "    \
  "--max-latency 1h --app-id same --schema-evolution ignore --max-rejected 100000 --threads %d "   \
  "--quiet"
static void test_threads__ingest_csv_identical(void **state) {
  (void)state;
  const char *old_cols = "id,kind,amount,note,ts,extra", *new_cols = "id,note,amount,kind,ts,extra";
  /* Both tables read the same files (positions record their inodes). */
  char path[4400], rotated[4400];
  snprintf(path, sizeof path, "%s/log.csv", dir);
  snprintf(rotated, sizeof rotated, "%s/log.csv.1", dir);
  write_csv_rows(path, old_cols, 0, 30000, true, false);
  for (int threads = 1; threads <= 4; threads += 3) {
    LS_SH_OK("create",
             "cd '%s' && '%s' create csvt%d --schema 'id long not null, kind string, "
             "amount double, note string, ts timestamp'",
             dir, INLET_BIN, threads);
    LS_SH_OK("ingest", CSV_INGEST, dir, INLET_BIN, threads, path, threads);
  }
  /* More rows, then rotation by rename, and a new file. */
  write_csv_rows(path, old_cols, 30000, 4000, false, true);
  assert_int_equal(rename(path, rotated), 0);
  write_csv_rows(path, new_cols, 34000, 9000, true, false);
  for (int threads = 1; threads <= 4; threads += 3)
    LS_SH_OK("ingest after rotation", CSV_INGEST, dir, INLET_BIN, threads, path, threads);
  assert_true(compare_tables("csvt1", "csvt4") >= 16); /* 43,000 rows in batches of 2,500 */
  int metadata = 0;
  compare_ingest_logs("csvt1", "csvt4", &metadata);
  assert_int_equal(metadata, 1);
  assert_true(compare_dead_letters("csvt1", "csvt4") > 0);
  char *a = scan_sorted("csvt1"), *b = scan_sorted("csvt4");
  assert_string_equal(a, b);
  /* The new file's cells landed in their columns (its header's order). */
  assert_true(strstr(a, "{\"id\":42999,\"kind\":\"k4\",\"amount\":999.99,\"note\":\"n6\"") != NULL);
  size_t bad = 0;
  for (int i = 0; i < 43000; i++)
    bad += i % 401 == 9 || i % 997 == 5;
  assert_true(count_lines_with(a, "\n") <= 43000 - bad);
  assert_true(count_lines_with(a, "\n") >= 43000 - 3 * bad);
  free(a);
  free(b);
}

static void test_threads__bad_thread_count_is_usage_error(void **state) {
  (void)state;
  tu_result r;
  tu_sh(&r, "cd '%s' && '%s' compact nowhere --threads 0", dir, INLET_BIN);
  assert_int_equal(r.status, 2);
  assert_non_null(strstr(r.err, "threads"));
  tu_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_threads__parquet_convert_bytes_identical),
      cmocka_unit_test(test_threads__append_and_compact_identical),
      cmocka_unit_test(test_threads__compaction_decodes_ahead_identical),
      cmocka_unit_test(test_threads__parallel_bins_identical),
      cmocka_unit_test(test_threads__scan_parallel_and_unordered),
      cmocka_unit_test(test_threads__scan_one_file_row_groups),
      cmocka_unit_test(test_threads__scan_one_file_first_error),
      cmocka_unit_test(test_threads__ingest_identical),
      cmocka_unit_test(test_threads__ingest_varied_identical),
      cmocka_unit_test(test_threads__ingest_pipeline_identical),
      cmocka_unit_test(test_threads__ingest_rules_identical),
      cmocka_unit_test(test_threads__ingest_csv_identical),
      cmocka_unit_test(test_threads__bad_thread_count_is_usage_error),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
