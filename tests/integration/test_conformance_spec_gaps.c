/*
 * Issue 11, section 6 (smaller spec gaps), the items about what inlet reads
 * from the log and writes into partitions:
 *   - describe counts compactions as OPTIMIZE commits only (delta-rs's
 *     cdc_ict_table holds a DELETE and an UPDATE that remove files);
 *   - rows are unknown (null / "unknown"), not 0, when a live file's
 *     add.stats has no numRecords;
 *   - describe and history work from the log alone on tables whose reader
 *     features inlet cannot scan (geospatial, an
 *     unknown reader version), while scans still refuse them;
 *   - deletion vectors (issue 16): deleted rows never reach a scan, time
 *     travel sees the rows before the DELETE, and a corrupt DV file is a
 *     clear error;
 *   - an empty-string partition value is written as null in
 *     __HIVE_DEFAULT_PARTITION__, as Spark writes it;
 *   - a void column (delta-kernel-rs's void-column table) reads as all null;
 *     appends leave it out of their data files (as Spark drops NullType
 *     columns), a record with a value for it is a bad record naming it,
 *     compaction, checkpoints and a copy-on-write delete work, and refcheck
 *     reads the result; void fields inside structs are left out of data
 *     files the same way (through structs), and a void in an array or a
 *     struct of voids only, which no data file can hold, is refused.
 * The foreign tables are copies of tests/data/foreign (see its README).
 */
#include "testutil.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fixture {
  char dir[4096];
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  snprintf(f->dir, sizeof f->dir, "%s", tu_mkdtemp("spec-gaps"));
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  tu_rmtree(f->dir);
  free(f);
  return 0;
}

/* Runs a shell command (printf-style) into @p r; fails the test when it
 * cannot be run. */
static void sh(tu_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sh(tu_result *r, const char *fmt, ...) {
  char *cmd = NULL;
  va_list ap;
  va_start(ap, fmt);
  assert_true(vasprintf(&cmd, fmt, ap) >= 0);
  va_end(ap);
  assert_int_equal(tu_sh(r, "%s", cmd), 0);
  free(cmd);
}

static void sh_ok(tu_result *r, const char *what) {
  if (r->status != 0)
    fail_msg("%s: exit %d\nstdout: %s\nstderr: %s", what, r->status, r->out, r->err);
}

/* Copies foreign table @p rel (below tests/data/foreign) into the fixture;
 * returns the copy's path (static). The upstream fixtures break some of the
 * protocol rules themselves (trimmed logs, ...), so the copy is exempt from
 * the rules checker: nothing here writes to it. */
static const char *foreign(fixture *f, const char *rel) {
  static char path[4300];
  const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
  snprintf(path, sizeof path, "%s/%s", f->dir, base);
  tu_result r;
  sh(&r, "cp -R '%s/tests/data/foreign/%s' '%s'", INLET_SOURCE_DIR, rel, path);
  sh_ok(&r, "copy foreign table");
  tu_result_free(&r);
  tu_rules_exempt(path, "test_conformance_spec_gaps: upstream fixture, read only");
  return path;
}

static json_t *run_json(const char *what, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static json_t *run_json(const char *what, const char *fmt, ...) {
  char *cmd = NULL;
  va_list ap;
  va_start(ap, fmt);
  assert_true(vasprintf(&cmd, fmt, ap) >= 0);
  va_end(ap);
  tu_result r;
  assert_int_equal(tu_sh(&r, "%s", cmd), 0);
  free(cmd);
  sh_ok(&r, what);
  json_error_t je;
  json_t *o = json_loads(r.out, 0, &je);
  if (!o) fail_msg("%s: not JSON (%s): %s", what, je.text, r.out);
  tu_result_free(&r);
  return o;
}

/* Commit files in @p table's _delta_log, counted by the test itself. */
static int count_commits(const char *table, int64_t *newest) {
  tu_result r;
  sh(&r, "ls '%s/_delta_log' | grep -E '^[0-9]{20}\\.json$' | sort", table);
  int n = 0;
  *newest = -1;
  for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
    n++;
    *newest = strtoll(line, NULL, 10);
  }
  tu_result_free(&r);
  return n;
}

/* A DELETE and an UPDATE remove files but are no compaction; inlet's own
 * compaction (OPTIMIZE) is one. */
static void test_gaps__describe_counts_only_optimize_as_compaction(void **state) {
  fixture *f = *state;
  const char *t = foreign(f, "delta-rs/cdc_ict_table");
  /* The fixture: v2 is a DELETE removing two files, v3 an UPDATE. */
  tu_result r;
  sh(&r, "grep -c '\"operation\":\"DELETE\"' '%s/_delta_log/00000000000000000002.json'", t);
  assert_string_equal(r.out, "1\n");
  tu_result_free(&r);
  json_t *d = run_json("describe cdc_ict_table", "'%s' describe '%s' --json", INLET_BIN, t);
  assert_int_equal(json_integer_value(json_object_get(d, "commits")), 4);
  assert_int_equal(json_integer_value(json_object_get(d, "compactions")), 0);
  json_decref(d);

  char own[4200], ev[4200];
  snprintf(own, sizeof own, "%s/own", f->dir);
  snprintf(ev, sizeof ev, "%s/ev.ndjson", f->dir);
  assert_int_equal(tu_write_file(ev, "{\"id\":1}\n{\"id\":2}\n", 18), 0);
  sh(&r,
     "'%s' create '%s' --schema 'id long' && '%s' append '%s' '%s' && '%s' append '%s' '%s' && "
     "'%s' compact '%s' --min-files 2",
     INLET_BIN, own, INLET_BIN, own, ev, INLET_BIN, own, ev, INLET_BIN, own);
  sh_ok(&r, "create, append twice, compact");
  tu_result_free(&r);
  d = run_json("describe own", "'%s' describe '%s' --json", INLET_BIN, own);
  assert_int_equal(json_integer_value(json_object_get(d, "commits")), 4);
  assert_int_equal(json_integer_value(json_object_get(d, "compactions")), 1);
  assert_int_equal(json_integer_value(json_object_get(d, "rows")), 4);
  json_decref(d);
}

/* A live file whose add carries no stats makes the row count unknown. */
static void test_gaps__rows_without_stats_are_unknown(void **state) {
  fixture *f = *state;
  char t[4200], ev[4200];
  snprintf(t, sizeof t, "%s/nostats", f->dir);
  snprintf(ev, sizeof ev, "%s/ev.ndjson", f->dir);
  assert_int_equal(tu_write_file(ev, "{\"id\":1}\n{\"id\":2}\n{\"id\":3}\n", 27), 0);
  tu_result r;
  sh(&r, "'%s' create '%s' --schema 'id long' && '%s' append '%s' '%s'", INLET_BIN, t, INLET_BIN, t,
     ev);
  sh_ok(&r, "create, append");
  tu_result_free(&r);
  /* Version 2 adds a copy of the data file, as a writer without stats would. */
  sh(&r,
     "cd '%s' && f=$(ls part-*.parquet) && cp \"$f\" copy.parquet && s=$(stat -c %%s copy.parquet) "
     "&& printf '{\"add\":{\"path\":\"copy.parquet\",\"partitionValues\":{},\"size\":%%s,"
     "\"modificationTime\":1,\"dataChange\":true}}\\n' \"$s\" > "
     "_delta_log/00000000000000000002.json",
     t);
  sh_ok(&r, "hand-written commit");
  tu_result_free(&r);
  json_t *d = run_json("describe", "'%s' describe '%s' --json", INLET_BIN, t);
  assert_int_equal(json_integer_value(json_object_get(d, "version")), 2);
  assert_int_equal(json_integer_value(json_object_get(d, "files")), 2);
  assert_true(json_is_null(json_object_get(d, "rows")));
  assert_int_equal(json_integer_value(json_object_get(d, "files_without_stats")), 1);
  json_decref(d);
  sh(&r, "'%s' describe '%s'", INLET_BIN, t);
  sh_ok(&r, "describe (text)");
  assert_non_null(strstr(r.out, "data         unknown rows (1 of 2 files have no row count"));
  tu_result_free(&r);
  /* The scan still counts them: six rows. */
  sh(&r, "'%s' scan '%s' --format csv | tail -n +2 | wc -l", INLET_BIN, t);
  sh_ok(&r, "scan");
  assert_string_equal(r.out, "6\n");
  tu_result_free(&r);
}

/* Tables whose reader features inlet cannot scan: describe and history read
 * only the log and work; a scan still refuses, naming what it cannot do. */
static void test_gaps__describe_and_history_on_unscannable_tables(void **state) {
  fixture *f = *state;
  static const struct {
    const char *rel, *scan_refusal;
  } tables[] = {
      /* variant, shredded or not, is read now (test_variant_tables) */
      {"delta-rs/simple_table_features", "reader version 5"},
      {"delta-kernel-rs/table-with-geo", "geospatial"},
  };
  for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
    const char *t = foreign(f, tables[i].rel);
    int64_t newest;
    int commits = count_commits(t, &newest);
    assert_true(commits > 0);
    json_t *d = run_json(tables[i].rel, "'%s' describe '%s' --json", INLET_BIN, t);
    assert_int_equal(json_integer_value(json_object_get(d, "version")), newest);
    assert_int_equal(json_integer_value(json_object_get(d, "commits")), commits);
    /* The protocol shown is the log's: the newest protocol action. */
    tu_result r;
    sh(&r, "cat '%s'/_delta_log/*.json | grep -o '\"minReaderVersion\":[0-9]*' | tail -1", t);
    int reader = atoi(strchr(r.out, ':') + 1);
    tu_result_free(&r);
    json_t *p = json_object_get(d, "protocol");
    assert_int_equal(json_integer_value(json_object_get(p, "min_reader_version")), reader);
    json_decref(d);
    json_t *h = run_json(tables[i].rel, "'%s' history '%s' --json", INLET_BIN, t);
    assert_true(json_is_array(json_object_get(h, "commits")));
    assert_int_equal((int)json_array_size(json_object_get(h, "commits")), commits);
    json_decref(h);
    sh(&r, "'%s' scan '%s' --format ndjson", INLET_BIN, t);
    assert_int_not_equal(r.status, 0);
    if (!strstr(r.err, tables[i].scan_refusal))
      fail_msg("%s: scan refusal should name %s: %s", tables[i].rel, tables[i].scan_refusal, r.err);
    tu_result_free(&r);
  }
}

/* refcheck (DuckDB) reads table @p t as inlet's scan in
 * <fixture>/<name>.ndjson has it. */
static void refcheck_agrees(fixture *f, const char *t, const char *name) {
  tu_result r;
  sh(&r,
     "'%s' '%s' delta '%s' > '%s/%s-ref.json' && '%s' '%s' compare '%s/%s-ref.json' "
     "'%s/%s.ndjson' --ndjson",
     INLET_NODE, INLET_REFCHECK, t, f->dir, name, INLET_NODE, INLET_REFCHECK, f->dir, name, f->dir,
     name);
  sh_ok(&r, "refcheck compare");
  tu_result_free(&r);
}

/* Deletion vectors (issue 16): Databricks deleted "value IN (0, 9)" from
 * ten rows 0..9 with a DV (the commitInfo's predicate): the scan returns the
 * other eight, as refcheck reads the table; time travel to version 0 still
 * sees all ten. */
static void test_gaps__deletion_vectors_drop_deleted_rows(void **state) {
  fixture *f = *state;
  const char *t = foreign(f, "delta-rs/table-with-dv-small");
  tu_result r;
  sh(&r, "grep -c 'value IN (0, 9)' '%s/_delta_log/00000000000000000001.json'", t);
  assert_string_equal(r.out, "1\n");
  tu_result_free(&r);
  sh(&r, "'%s' scan '%s' --format ndjson | tee '%s/dv.ndjson' | sort", INLET_BIN, t, f->dir);
  sh_ok(&r, "scan");
  assert_string_equal(r.out, "{\"value\":1}\n{\"value\":2}\n{\"value\":3}\n{\"value\":4}\n"
                             "{\"value\":5}\n{\"value\":6}\n{\"value\":7}\n{\"value\":8}\n");
  tu_result_free(&r);
  refcheck_agrees(f, t, "dv");
  sh(&r, "'%s' scan '%s' --version 0 --format csv | tail -n +2 | wc -l", INLET_BIN, t);
  sh_ok(&r, "scan --version 0");
  assert_string_equal(r.out, "10\n");
  tu_result_free(&r);
  /* describe counts numRecords less each deletion vector's cardinality. */
  json_t *d = run_json("describe", "'%s' describe '%s' --json", INLET_BIN, t);
  assert_int_equal(json_integer_value(json_object_get(d, "rows")), 8);
  json_decref(d);
  /* A filter and a limit see the same eight rows. */
  sh(&r, "'%s' scan '%s' --where 'value < 3' --format csv | tail -n +2", INLET_BIN, t);
  sh_ok(&r, "scan --where");
  assert_string_equal(r.out, "1\n2\n");
  tu_result_free(&r);
  sh(&r, "'%s' scan '%s' --limit 1 --format csv | tail -n +2", INLET_BIN, t);
  sh_ok(&r, "scan --limit");
  assert_string_equal(r.out, "1\n");
  tu_result_free(&r);
}

/* A corrupt deletion vector file is a clear error naming the data file and
 * the problem, never rows. */
static void test_gaps__corrupt_deletion_vector_is_a_clear_error(void **state) {
  fixture *f = *state;
  const char *t = foreign(f, "delta-rs/table-with-dv-small");
  tu_result r;
  /* The last byte is the CRC-32's. */
  sh(&r,
     "cd '%s' && f=$(ls deletion_vector_*.bin) && n=$(stat -c %%s $f) && "
     "printf '\\377' | dd of=$f bs=1 seek=$((n - 1)) conv=notrunc 2>/dev/null",
     t);
  sh_ok(&r, "corrupt the checksum");
  tu_result_free(&r);
  sh(&r, "'%s' scan '%s' --format ndjson", INLET_BIN, t);
  assert_int_equal(r.status, 5); /* corrupt */
  assert_string_equal(r.out, "");
  assert_non_null(strstr(r.err, "part-00000-fae5310a"));
  assert_non_null(strstr(r.err, "checksum mismatch"));
  tu_result_free(&r);
  sh(&r, "cd '%s' && f=$(ls deletion_vector_*.bin) && head -c 20 $f > x && mv x $f", t);
  sh_ok(&r, "truncate");
  tu_result_free(&r);
  sh(&r, "'%s' scan '%s' --format ndjson", INLET_BIN, t);
  assert_int_equal(r.status, 5);
  assert_non_null(strstr(r.err, "out of range"));
  tu_result_free(&r);
}

/* Spark writes an empty string partition value as null, in
 * __HIVE_DEFAULT_PARTITION__; a NOT NULL partition column refuses one. */
static void test_gaps__empty_string_partition_value_is_null(void **state) {
  fixture *f = *state;
  char t[4200], ev[4200];
  snprintf(t, sizeof t, "%s/pt", f->dir);
  snprintf(ev, sizeof ev, "%s/ev.ndjson", f->dir);
  const char *rows = "{\"id\":1,\"s\":\"\"}\n{\"id\":2,\"s\":\"a\"}\n{\"id\":3,\"s\":null}\n";
  assert_int_equal(tu_write_file(ev, rows, strlen(rows)), 0);
  tu_result r;
  sh(&r, "'%s' create '%s' --schema 'id long, s string' --partition-by s && '%s' append '%s' '%s'",
     INLET_BIN, t, INLET_BIN, t, ev);
  sh_ok(&r, "create, append");
  tu_result_free(&r);
  /* The log: no "" value; two adds, one for "a", one null in the default
   * partition directory (rows 1 and 3 together). */
  char p[4300];
  snprintf(p, sizeof p, "%s/_delta_log/00000000000000000001.json", t);
  char *log = tu_read_file(p, NULL);
  assert_non_null(log);
  int adds = 0, nulls = 0;
  for (char *line = strtok(log, "\n"); line; line = strtok(NULL, "\n")) {
    json_t *o = json_loads(line, 0, NULL);
    json_t *a = json_object_get(o, "add");
    if (a) {
      adds++;
      json_t *pv = json_object_get(json_object_get(a, "partitionValues"), "s");
      const char *path = json_string_value(json_object_get(a, "path"));
      assert_non_null(pv);
      if (json_is_null(pv)) {
        nulls++;
        assert_true(strncmp(path, "s=__HIVE_DEFAULT_PARTITION__/", 29) == 0);
      } else {
        assert_string_equal(json_string_value(pv), "a");
        assert_true(strncmp(path, "s=a/", 4) == 0);
      }
    }
    json_decref(o);
  }
  free(log);
  assert_int_equal(adds, 2);
  assert_int_equal(nulls, 1);
  sh(&r, "test -e '%s/s=' && echo present || echo absent", t);
  assert_string_equal(r.out, "absent\n");
  tu_result_free(&r);
  /* Read back, by inlet and by DuckDB (refcheck): "" is null, as Spark reads it. */
  sh(&r, "'%s' scan '%s' --format ndjson | sort", INLET_BIN, t);
  sh_ok(&r, "scan");
  assert_string_equal(r.out,
                      "{\"id\":1,\"s\":null}\n{\"id\":2,\"s\":\"a\"}\n{\"id\":3,\"s\":null}\n");
  tu_result_free(&r);
  sh(&r, "'%s' '%s' delta '%s'", INLET_NODE, INLET_REFCHECK, t);
  sh_ok(&r, "refcheck delta");
  json_t *doc = json_loads(r.out, 0, NULL);
  tu_result_free(&r);
  assert_non_null(doc);
  json_t *rs = json_object_get(doc, "rows");
  assert_int_equal((int)json_array_size(rs), 3);
  int null_s = 0;
  size_t i;
  json_t *row;
  json_array_foreach(rs, i, row) null_s += json_is_null(json_array_get(row, 1));
  assert_int_equal(null_s, 2);
  json_decref(doc);

  /* NOT NULL partition column: an empty string cannot be stored. */
  snprintf(t, sizeof t, "%s/pt-nn", f->dir);
  sh(&r,
     "'%s' create '%s' --schema 'id long, s string not null' --partition-by s && '%s' append "
     "'%s' '%s'",
     INLET_BIN, t, INLET_BIN, t, ev);
  assert_int_not_equal(r.status, 0);
  assert_non_null(strstr(r.err, "\"s\""));
  tu_result_free(&r);
}

/* PROTOCOL.md "Void Type": a void column is never in a data file and reads
 * as all null; inlet refuses to write such a table (it would have to leave
 * the column out of its data files). */
static void test_gaps__void_column_reads_as_null(void **state) {
  fixture *f = *state;
  const char *t = foreign(f, "delta-kernel-rs/void-column");
  tu_result r;
  sh(&r, "'%s' scan '%s' --format ndjson | sort", INLET_BIN, t);
  sh_ok(&r, "scan void-column");
  /* The fixture's adds: ids 1, 2 and 3 (their stats), void_col null. */
  assert_string_equal(r.out, "{\"id\":1,\"void_col\":null}\n{\"id\":2,\"void_col\":null}\n"
                             "{\"id\":3,\"void_col\":null}\n");
  tu_result_free(&r);
  sh(&r, "'%s' scan '%s' --format csv --where 'void_col IS NULL AND id >= 2' | tail -n +2 | sort",
     INLET_BIN, t);
  sh_ok(&r, "scan with IS NULL");
  assert_string_equal(r.out, "2,\n3,\n");
  tu_result_free(&r);
  sh(&r, "'%s' scan '%s' --format csv --where 'void_col IS NOT NULL' | tail -n +2 | wc -l",
     INLET_BIN, t);
  sh_ok(&r, "scan with IS NOT NULL");
  assert_string_equal(r.out, "0\n");
  tu_result_free(&r);
  json_t *d = run_json("describe", "'%s' describe '%s' --json", INLET_BIN, t);
  assert_string_equal(json_string_value(json_object_get(d, "schema_ddl")),
                      "id long, void_col void");
  json_decref(d);
  /* Appends: the column is left out of the data file (Spark writes none
   * either: the fixture's files hold only id), null or absent in records. */
  char ev[4200], bad[4200];
  snprintf(ev, sizeof ev, "%s/ev.ndjson", f->dir);
  snprintf(bad, sizeof bad, "%s/bad.ndjson", f->dir);
  static const char good_rows[] = "{\"id\":4}\n{\"id\":5,\"void_col\":null}\n";
  assert_int_equal(tu_write_file(ev, good_rows, sizeof good_rows - 1), 0);
  sh(&r, "'%s' append '%s' '%s'", INLET_BIN, t, ev);
  sh_ok(&r, "append to a void-column table");
  tu_result_free(&r);
  sh(&r,
     "cd '%s' && for p in $(grep -o '\"path\":\"[^\"]*' _delta_log/00000000000000000001.json | "
     "cut -d'\"' -f4); do '%s' parquet schema \"$p\"; done",
     t, INLET_BIN);
  sh_ok(&r, "schema of the appended file");
  assert_string_equal(r.out, "id long\n");
  tu_result_free(&r);
  /* A value for it cannot be stored: the record is bad, naming the column;
   * nothing is committed. */
  static const char bad_rows[] = "{\"id\":6,\"void_col\":1}\n";
  assert_int_equal(tu_write_file(bad, bad_rows, sizeof bad_rows - 1), 0);
  sh(&r, "'%s' append '%s' '%s'", INLET_BIN, t, bad);
  assert_int_not_equal(r.status, 0);
  assert_non_null(strstr(r.err, "\"void_col\""));
  assert_non_null(strstr(r.err, "type void"));
  tu_result_free(&r);
  sh(&r, "ls '%s/_delta_log' | grep -c 'json$'", t);
  assert_string_equal(r.out, "2\n");
  tu_result_free(&r);
  /* Compaction rewrites the five files into one without the column, a
   * checkpoint follows, and inlet and refcheck read the same rows. */
  sh(&r, "'%s' compact '%s' --min-files 2 && '%s' checkpoint '%s'", INLET_BIN, t, INLET_BIN, t);
  sh_ok(&r, "compact and checkpoint");
  tu_result_free(&r);
  sh(&r,
     "cd '%s' && for p in $(grep -o '\"add\":{\"path\":\"[^\"]*' "
     "_delta_log/00000000000000000002.json | cut -d'\"' -f6); do '%s' parquet schema \"$p\"; done",
     t, INLET_BIN);
  sh_ok(&r, "schema of the compacted file");
  assert_string_equal(r.out, "id long\n");
  tu_result_free(&r);
  sh(&r, "'%s' scan '%s' --format ndjson | sort", INLET_BIN, t);
  sh_ok(&r, "scan after compaction");
  assert_string_equal(r.out, "{\"id\":1,\"void_col\":null}\n{\"id\":2,\"void_col\":null}\n"
                             "{\"id\":3,\"void_col\":null}\n{\"id\":4,\"void_col\":null}\n"
                             "{\"id\":5,\"void_col\":null}\n");
  tu_result_free(&r);
  sh(&r, "'%s' '%s' delta '%s' | grep -c '^\\[[1-5],null\\]'", INLET_NODE, INLET_REFCHECK, t);
  sh_ok(&r, "refcheck");
  assert_string_equal(r.out, "5\n");
  tu_result_free(&r);
  sh(&r, "grep -c '\"version\":2' '%s/_delta_log/_last_checkpoint'", t);
  assert_string_equal(r.out, "1\n");
  tu_result_free(&r);
  /* A copy-on-write delete rewrites the file without the column too. */
  sh(&r, "'%s' delete '%s' --where 'id = 2'", INLET_BIN, t);
  sh_ok(&r, "delete");
  tu_result_free(&r);
  sh(&r, "'%s' '%s' delta '%s' | grep '^\\[' | tr -d '\\n'", INLET_NODE, INLET_REFCHECK, t);
  sh_ok(&r, "refcheck after delete");
  assert_string_equal(r.out, "[1,null],[3,null],[4,null],[5,null]");
  tu_result_free(&r);
}

/* A table at @p dir (protocol 1/2, no data yet) whose schemaString is
 * @p schema_json (the JSON of the struct, quotes escaped for the log). */
static void void_table(const char *dir, const char *schema_json) {
  tu_result r;
  sh(&r,
     "mkdir -p '%s/_delta_log' && printf '%%s\\n' "
     "'{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}' "
     "'{\"metaData\":{\"id\":\"6b0c5d1e-0000-4000-8000-00000000000a\",\"format\":{\"provider\":"
     "\"parquet\",\"options\":{}},\"schemaString\":\"%s\",\"partitionColumns\":[],"
     "\"configuration\":{},\"createdTime\":1}}' > '%s/_delta_log/00000000000000000000.json'",
     dir, schema_json, dir);
  sh_ok(&r, "hand-written void table");
  tu_result_free(&r);
}

#define VF(name, type)                                                                             \
  "{\\\"name\\\":\\\"" name "\\\",\\\"type\\\":" type ",\\\"nullable\\\":true,\\\"metadata\\\":{}" \
  "}"
#define VS(fields) "{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[" fields "]}"
#define VT(t) "\\\"" t "\\\""

/* Void fields inside structs (PROTOCOL.md "Void Type"; Spark's
 * dropNullTypeColumns drops them from what it writes, through structs):
 * appends, compaction and a copy-on-write delete leave them out of the
 * data files (struct<a, c: struct<e>> in the file for struct<a, b: void,
 * c: struct<d: void, e>>), they read as null, a value for one is a bad
 * record, and refcheck (DuckDB) reads the table as inlet does. A void
 * inside an array, or a struct of void fields only, no data file can hold
 * (Spark refuses to write it): appends, compaction and delete refuse it,
 * naming the field. */
static void test_gaps__void_fields_in_structs_left_out_of_files(void **state) {
  fixture *f = *state;
  char t[4200], ev[4300];
  snprintf(t, sizeof t, "%s/nested-void", f->dir);
  snprintf(ev, sizeof ev, "%s/nested-void.ndjson", f->dir);
  void_table(t, VS(VF("id", VT("long")) "," VF(
                    "s", VS(VF("a", VT("integer")) "," VF("b", VT("void")) "," VF(
                             "c", VS(VF("d", VT("void")) "," VF("e", VT("string"))))))));
  static const char rows[] =
      "{\"id\":1,\"s\":{\"a\":1,\"b\":null,\"c\":{\"d\":null,\"e\":\"x\"}}}\n"
      "{\"id\":2,\"s\":{\"a\":2,\"c\":{\"e\":\"y\"}}}\n"
      "{\"id\":3,\"s\":null}\n";
  assert_int_equal(tu_write_file(ev, rows, sizeof rows - 1), 0);
  tu_result r;
  sh(&r, "'%s' append '%s' '%s' && '%s' append '%s' '%s'", INLET_BIN, t, ev, INLET_BIN, t, ev);
  sh_ok(&r, "two appends");
  tu_result_free(&r);
  sh(&r, "cd '%s' && for p in *.parquet; do '%s' parquet schema \"$p\"; done | sort -u", t,
     INLET_BIN);
  sh_ok(&r, "schema of the appended files");
  assert_string_equal(r.out, "id long\ns struct<a:integer,c:struct<e:string>>\n");
  tu_result_free(&r);
  static const char want[] =
      "{\"id\":1,\"s\":{\"a\":1,\"b\":null,\"c\":{\"d\":null,\"e\":\"x\"}}}\n"
      "{\"id\":2,\"s\":{\"a\":2,\"b\":null,\"c\":{\"d\":null,\"e\":\"y\"}}}\n"
      "{\"id\":3,\"s\":null}\n";
  sh(&r, "'%s' scan '%s' --format ndjson | sort -u", INLET_BIN, t);
  sh_ok(&r, "scan");
  assert_string_equal(r.out, want);
  tu_result_free(&r);
  /* Compaction, then a copy-on-write delete: their files have the same
   * shape, and the rows are what they were. */
  sh(&r, "'%s' compact '%s' --min-files 2 && '%s' delete '%s' --where 'id = 3'", INLET_BIN, t,
     INLET_BIN, t);
  sh_ok(&r, "compact and delete");
  tu_result_free(&r);
  sh(&r,
     "cd '%s' && for p in $(grep -ho '\"add\":{\"path\":\"[^\"]*' "
     "_delta_log/00000000000000000003.json _delta_log/00000000000000000004.json | cut -d'\"' "
     "-f6); do '%s' parquet schema \"$p\"; done | sort | uniq -c | tr -s ' '",
     t, INLET_BIN);
  sh_ok(&r, "schema of the rewritten files");
  assert_string_equal(r.out, " 2 id long\n 2 s struct<a:integer,c:struct<e:string>>\n");
  tu_result_free(&r);
  sh(&r, "'%s' scan '%s' --format ndjson > '%s/nv.ndjson' && sort '%s/nv.ndjson'", INLET_BIN, t,
     f->dir, f->dir);
  sh_ok(&r, "scan after delete");
  assert_string_equal(r.out,
                      "{\"id\":1,\"s\":{\"a\":1,\"b\":null,\"c\":{\"d\":null,\"e\":\"x\"}}}\n"
                      "{\"id\":1,\"s\":{\"a\":1,\"b\":null,\"c\":{\"d\":null,\"e\":\"x\"}}}\n"
                      "{\"id\":2,\"s\":{\"a\":2,\"b\":null,\"c\":{\"d\":null,\"e\":\"y\"}}}\n"
                      "{\"id\":2,\"s\":{\"a\":2,\"b\":null,\"c\":{\"d\":null,\"e\":\"y\"}}}\n");
  tu_result_free(&r);
  refcheck_agrees(f, t, "nv");
  /* A value for a void field is a bad record; nothing is committed. */
  static const char bad[] = "{\"id\":9,\"s\":{\"a\":1,\"b\":5}}\n";
  assert_int_equal(tu_write_file(ev, bad, sizeof bad - 1), 0);
  sh(&r, "'%s' append '%s' '%s'", INLET_BIN, t, ev);
  assert_int_not_equal(r.status, 0);
  assert_non_null(strstr(r.err, "type void"));
  tu_result_free(&r);
  sh(&r, "ls '%s/_delta_log' | grep -c 'json$'", t);
  assert_string_equal(r.out, "5\n");
  tu_result_free(&r);

  /* What no data file can hold: a void in an array, a struct of voids. */
  static const char *const unwritable[][2] = {
      {"arr",
       VS(VF("id", VT("long")) "," VF(
           "l", "{\\\"type\\\":\\\"array\\\",\\\"elementType\\\":" VS(VF("x", VT("integer")) "," VF(
                    "y", VT("void"))) ",\\\"containsNull\\\":true}"))},
      {"allvoid", VS(VF("id", VT("long")) "," VF("s", VS(VF("v", VT("void")))))},
  };
  static const char *const named[] = {"\"y\"", "\"s\""};
  for (int k = 0; k < 2; k++) {
    char u[4300];
    snprintf(u, sizeof u, "%s/%s", f->dir, unwritable[k][0]);
    void_table(u, unwritable[k][1]);
    static const char one[] = "{\"id\":1}\n";
    assert_int_equal(tu_write_file(ev, one, sizeof one - 1), 0);
    sh(&r, "'%s' append '%s' '%s'", INLET_BIN, u, ev);
    assert_int_equal(r.status, 6);
    assert_non_null(strstr(r.err, named[k]));
    assert_non_null(strstr(r.err, "no data file can hold"));
    tu_result_free(&r);
    sh(&r, "'%s' compact '%s'", INLET_BIN, u);
    assert_int_not_equal(r.status, 0);
    assert_non_null(strstr(r.err, named[k]));
    tu_result_free(&r);
    sh(&r, "'%s' delete '%s' --where 'id = 1'", INLET_BIN, u);
    assert_int_equal(r.status, 6);
    assert_non_null(strstr(r.err, named[k]));
    tu_result_free(&r);
    sh(&r, "ls '%s' | grep -c parquet", u);
    assert_string_equal(r.out, "0\n");
    tu_result_free(&r);
  }
  /* With deletion vectors a delete writes no data file, so it works there:
   * the array table with DVs turned on and a file another writer made
   * (only `id`; `l` reads as null). */
  char u[4300];
  snprintf(u, sizeof u, "%s/arr", f->dir);
  static const char ids[] = "{\"id\":1}\n{\"id\":2}\n{\"id\":3}\n";
  assert_int_equal(tu_write_file(ev, ids, sizeof ids - 1), 0);
  sh(&r,
     "'%s' alter '%s' --property delta.enableDeletionVectors=true > /dev/null && '%s' parquet "
     "convert '%s' '%s/part-0.parquet' --schema 'id long' && s=$(stat -c %%s '%s/part-0.parquet') "
     "&& printf '{\"add\":{\"path\":\"part-0.parquet\",\"partitionValues\":{},\"size\":%%s,"
     "\"modificationTime\":1,\"dataChange\":true,\"stats\":\"{\\\\\"numRecords\\\\\":3}\"}}\\n' "
     "\"$s\" > '%s/_delta_log/00000000000000000002.json' && '%s' delete '%s' --where 'id = 2' && "
     "'%s' scan '%s' --format ndjson | sort",
     INLET_BIN, u, INLET_BIN, ev, u, u, u, INLET_BIN, u, INLET_BIN, u);
  sh_ok(&r, "delete with deletion vectors beside an array of void");
  assert_non_null(strstr(r.out, "1 deletion vectors added"));
  assert_non_null(strstr(r.out, "{\"id\":1,\"l\":null}\n{\"id\":3,\"l\":null}\n"));
  tu_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_gaps__describe_counts_only_optimize_as_compaction, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_gaps__rows_without_stats_are_unknown, setup, teardown),
      cmocka_unit_test_setup_teardown(test_gaps__describe_and_history_on_unscannable_tables, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_gaps__deletion_vectors_drop_deleted_rows, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_gaps__corrupt_deletion_vector_is_a_clear_error, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_gaps__empty_string_partition_value_is_null, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_gaps__void_column_reads_as_null, setup, teardown),
      cmocka_unit_test_setup_teardown(test_gaps__void_fields_in_structs_left_out_of_files, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
