/*
 * Change data feed reads (issue 16 §1 "Change data feed read"): `inlet
 * changes TABLE --from V [--to V]` against the expectations of two
 * independent readers and against what a test did to an inlet table.
 *
 * - delta-rs's cdf-table (Spark 3.5 / Delta 3.0, partitioned: UPDATEs that
 *   move rows between partitions and a DELETE, all with _change_data files)
 *   and cdf-table-with-cdc-and-dvs (26 commits of writes, deletes with
 *   deletion vectors, updates, merges and OPTIMIZEs): the rows delta-rs's
 *   own tests assert (crates/core/src/operations/load_cdf.rs, test_load_local
 *   and test_reading_cdf_with_dv), commit timestamps included. Git keeps no
 *   file times, so the copies get their commit files' times back from
 *   commitInfo.timestamp, which is what Spark wrote them at.
 * - cdc_ict_table (in-commit timestamps) from version 2, and
 *   delta-kernel-rs's cdf-column-mapping-id-mode from version 1: the rows
 *   those projects' tests assert; from version 0, where change data feed
 *   was not yet enabled, the read is refused (exit 6) as Spark and kernel
 *   refuse it.
 * - an inlet table with delta.enableChangeDataFeed=true: two appends are
 *   inserts at their versions, a compaction changes nothing; a table
 *   without the property, a version past the latest, a version whose
 *   commit log cleanup removed and a reversed range are refused with their
 *   exit codes.
 * - timestamps (--from-timestamp/--to-timestamp): on an inlet table whose
 *   commit files the test gives known times, the versions Spark's rules
 *   select from those times (derived here by hand); on cdc_ict_table, whose
 *   files are moved to 2001, the in-commit timestamps decide.
 * - schema changes: a column added by schema evolution reads as null in
 *   earlier rows (the end version's schema); a widened type and, on a
 *   column-mapping table, a rename or a drop (hand-written metaData commits)
 *   inside the range are refused (exit 6) naming the version, and the
 *   ranges either side of them read.
 */
#include "testutil.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fixture {
  char dir[4096];
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  snprintf(f->dir, sizeof f->dir, "%s", tu_mkdtemp("changes"));
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  tu_rmtree(f->dir);
  free(f);
  return 0;
}

static void sh_ok(tu_result *r, const char *what) {
  if (r->status != 0)
    fail_msg("%s: exit %d\nstdout: %s\nstderr: %s", what, r->status, r->out, r->err);
}

/* Copies foreign table @p rel (below tests/data/foreign) into the fixture
 * and gives each commit file the time its commitInfo.timestamp records;
 * returns the copy's path (static). Upstream fixtures are exempt from the
 * rules checker: nothing here writes to them. */
static const char *foreign(fixture *f, const char *rel) {
  static char path[4300];
  const char *base = strrchr(rel, '/') + 1;
  snprintf(path, sizeof path, "%s/%s", f->dir, base);
  tu_result r;
  assert_int_equal(
      tu_sh(&r,
            "cp -R '%s/tests/data/foreign/%s' '%s' && cd '%s/_delta_log' && for c in *.json; do "
            "ms=$(grep -o '\"timestamp\":[0-9]*' \"$c\" | head -1 | cut -d: -f2); "
            "touch -d \"@$((ms / 1000)).$(printf %%03d $((ms %% 1000)))\" \"$c\"; done",
            INLET_SOURCE_DIR, rel, path, path),
      0);
  sh_ok(&r, "copy foreign table");
  tu_result_free(&r);
  tu_rules_exempt(path, "test_changes: upstream fixture, read only");
  return path;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* `inlet changes TABLE ARGS --format csv` must print the header @p header
 * and exactly the rows @p want (any order). */
static void expect_changes(const char *table, const char *args, const char *header,
                           const char *const *want, size_t n_want) {
  tu_result r;
  assert_int_equal(tu_sh(&r, "'%s' changes '%s' %s --format csv", INLET_BIN, table, args), 0);
  sh_ok(&r, args);
  char *save = NULL;
  char *line = strtok_r(r.out, "\n", &save);
  assert_non_null(line);
  assert_string_equal(line, header);
  const char **got = calloc(n_want + 64, sizeof *got);
  size_t n = 0;
  while ((line = strtok_r(NULL, "\n", &save)) && n < n_want + 64)
    got[n++] = line;
  const char **exp = calloc(n_want + 1, sizeof *exp);
  memcpy(exp, want, n_want * sizeof *exp);
  qsort(got, n, sizeof *got, cmp_str);
  qsort(exp, n_want, sizeof *exp, cmp_str);
  for (size_t i = 0; i < n && i < n_want; i++)
    if (strcmp(got[i], exp[i]) != 0)
      fail_msg("%s %s: row %zu is\n  %s\nexpected\n  %s", table, args, i, got[i], exp[i]);
  if (n != n_want) fail_msg("%s %s: %zu rows, expected %zu", table, args, n, n_want);
  free(got);
  free(exp);
  tu_result_free(&r);
}

/* The exit status of a shell command (printf-style); a failure must say
 * "inlet: ..." on stderr. */
static int exit_of(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int exit_of(const char *fmt, ...) {
  char *cmd = NULL;
  va_list ap;
  va_start(ap, fmt);
  assert_true(vasprintf(&cmd, fmt, ap) >= 0);
  va_end(ap);
  tu_result r;
  assert_int_equal(tu_sh(&r, "%s", cmd), 0);
  free(cmd);
  int status = r.status;
  if (status != 0 && strncmp(r.err, "inlet: ", 7) != 0) fail_msg("no message: %s", r.err);
  tu_result_free(&r);
  return status;
}

/* delta-rs load_cdf.rs test_load_local. */
static void test_changes__spark_cdf_table_as_delta_rs_reads_it(void **state) {
  fixture *f = *state;
  const char *t = foreign(f, "delta-rs/cdf-table");
  static const char *const want[] = {
      "1,Steve,2023-12-22,insert,0,2023-12-22T17:10:18.828000Z",
      "10,Borb,2023-12-25,insert,0,2023-12-22T17:10:18.828000Z",
      "2,Bob,2023-12-22,update_postimage,1,2023-12-22T17:10:21.675000Z",
      "2,Bob,2023-12-23,insert,0,2023-12-22T17:10:18.828000Z",
      "2,Bob,2023-12-23,update_preimage,1,2023-12-22T17:10:21.675000Z",
      "3,Dave,2023-12-22,update_postimage,1,2023-12-22T17:10:21.675000Z",
      "3,Dave,2023-12-23,insert,0,2023-12-22T17:10:18.828000Z",
      "3,Dave,2023-12-23,update_preimage,1,2023-12-22T17:10:21.675000Z",
      "4,Kate,2023-12-22,update_postimage,1,2023-12-22T17:10:21.675000Z",
      "4,Kate,2023-12-23,insert,0,2023-12-22T17:10:18.828000Z",
      "4,Kate,2023-12-23,update_preimage,1,2023-12-22T17:10:21.675000Z",
      "5,Emily,2023-12-24,insert,0,2023-12-22T17:10:18.828000Z",
      "5,Emily,2023-12-24,update_preimage,2,2023-12-29T21:41:33.785000Z",
      "5,Emily,2023-12-29,update_postimage,2,2023-12-29T21:41:33.785000Z",
      "6,Carl,2023-12-24,insert,0,2023-12-22T17:10:18.828000Z",
      "6,Carl,2023-12-24,update_preimage,2,2023-12-29T21:41:33.785000Z",
      "6,Carl,2023-12-29,update_postimage,2,2023-12-29T21:41:33.785000Z",
      "7,Dennis,2023-12-24,insert,0,2023-12-22T17:10:18.828000Z",
      "7,Dennis,2023-12-24,update_preimage,2,2023-12-29T21:41:33.785000Z",
      "7,Dennis,2023-12-29,delete,3,2024-01-06T16:44:59.570000Z",
      "7,Dennis,2023-12-29,update_postimage,2,2023-12-29T21:41:33.785000Z",
      "8,Claire,2023-12-25,insert,0,2023-12-22T17:10:18.828000Z",
      "9,Ada,2023-12-25,insert,0,2023-12-22T17:10:18.828000Z",
  };
  const char *header = "id,name,birthday,_change_type,_commit_version,_commit_timestamp";
  expect_changes(t, "--from 0", header, want, sizeof want / sizeof want[0]);
  /* --to bounds the range: version 1's rows alone (6 of them). */
  const char *v1[6];
  size_t n = 0;
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    if (strstr(want[i], "image,1,")) v1[n++] = want[i];
  assert_int_equal(n, 6);
  expect_changes(t, "--from 1 --to 1", header, v1, n);
}

/* delta-rs load_cdf.rs test_reading_cdf_with_dv. */
static void test_changes__cdc_files_and_deletion_vectors_as_delta_rs_reads_them(void **state) {
  fixture *f = *state;
  const char *t = foreign(f, "delta-rs/cdf-table-with-cdc-and-dvs");
  static const char *const want[] = {
      "0,new,insert,25,2024-12-13T06:09:03.075000Z",
      "1,after-large-delete,insert,25,2024-12-13T06:09:03.075000Z",
      "1,initial,insert,0,2024-12-13T06:07:53.501000Z",
      "1,initial,update_preimage,9,2024-12-13T06:08:23.703000Z",
      "1,update1,delete,10,2024-12-13T06:08:26.693000Z",
      "1,update1,update_postimage,9,2024-12-13T06:08:23.703000Z",
      "10,merge1-insert,insert,18,2024-12-13T06:08:46.555000Z",
      "11,\"\",delete,22,2024-12-13T06:08:57.892000Z",
      "11,\"\",update_postimage,20,2024-12-13T06:08:49.795000Z",
      "11,merge1-insert,insert,18,2024-12-13T06:08:46.555000Z",
      "11,merge1-insert,update_preimage,20,2024-12-13T06:08:49.795000Z",
      "12,merge2-insert,insert,22,2024-12-13T06:08:57.892000Z",
      "2,\"\",insert,25,2024-12-13T06:09:03.075000Z",
      "2,insert1,insert,1,2024-12-13T06:08:01.544000Z",
      "2,insert1,update_preimage,9,2024-12-13T06:08:23.703000Z",
      "2,update1,update_postimage,9,2024-12-13T06:08:23.703000Z",
      "2,update1,update_preimage,12,2024-12-13T06:08:30.100000Z",
      "2,update2,delete,24,2024-12-13T06:09:00.735000Z",
      "2,update2,update_postimage,12,2024-12-13T06:08:30.100000Z",
      "3,insert1-delete1,delete,2,2024-12-13T06:08:07.275000Z",
      "3,insert1-delete1,insert,1,2024-12-13T06:08:01.544000Z",
      "3,insert1-delete1,insert,4,2024-12-13T06:08:10.377000Z",
      "3,insert1-delete1,update_preimage,9,2024-12-13T06:08:23.703000Z",
      "3,update1,delete,24,2024-12-13T06:09:00.735000Z",
      "3,update1,update_postimage,9,2024-12-13T06:08:23.703000Z",
      "4,insert1-delete2,delete,24,2024-12-13T06:09:00.735000Z",
      "4,insert1-delete2,delete,5,2024-12-13T06:08:13.550000Z",
      "4,insert1-delete2,insert,1,2024-12-13T06:08:01.544000Z",
      "4,insert1-delete2,insert,7,2024-12-13T06:08:17.886000Z",
      "5,insert1-delete2,delete,5,2024-12-13T06:08:13.550000Z",
      "5,insert1-delete2,insert,1,2024-12-13T06:08:01.544000Z",
      "5,insert2,delete,24,2024-12-13T06:09:00.735000Z",
      "5,insert2,insert,8,2024-12-13T06:08:20.269000Z",
      "6,insert3,delete,24,2024-12-13T06:09:00.735000Z",
      "6,insert3,insert,14,2024-12-13T06:08:32.490000Z",
      "7,insert3,delete,16,2024-12-13T06:08:37.690000Z",
      "7,insert3,insert,14,2024-12-13T06:08:32.490000Z",
      "8,insert4,delete,16,2024-12-13T06:08:37.690000Z",
      "8,insert4,insert,15,2024-12-13T06:08:34.587000Z",
      "9,insert4,insert,15,2024-12-13T06:08:34.587000Z",
      "9,insert4,update_preimage,18,2024-12-13T06:08:46.555000Z",
      "9,merge1-update,delete,24,2024-12-13T06:09:00.735000Z",
      "9,merge1-update,update_postimage,18,2024-12-13T06:08:46.555000Z",
  };
  expect_changes(t, "--from 0", "id,comment,_change_type,_commit_version,_commit_timestamp", want,
                 sizeof want / sizeof want[0]);
}

/* delta-rs test_respect_ict (versions 2 and 3; in-commit timestamps) and
 * kernel's cdf_with_column_mapping_id_mode (physical names and field ids in
 * data and change data files). */
static void test_changes__in_commit_timestamps_column_mapping_and_refusals(void **state) {
  fixture *f = *state;
  const char *t = foreign(f, "delta-rs/cdc_ict_table");
  static const char *const ict[] = {
      "Dan,1995,14,delete,2,2026-07-12T16:36:52.175000Z",
      "Dave,1995,22,delete,2,2026-07-12T16:36:52.175000Z",
      "Kate,1995,36,update_preimage,3,2026-07-12T16:36:53.881000Z",
      "Kate,1995,37,update_postimage,3,2026-07-12T16:36:53.881000Z",
      "Steve,1986,40,update_preimage,3,2026-07-12T16:36:53.881000Z",
      "Steve,1986,41,update_postimage,3,2026-07-12T16:36:53.881000Z",
  };
  expect_changes(t, "--from 2", "name,birthyear,age,_change_type,_commit_version,_commit_timestamp",
                 ict, sizeof ict / sizeof ict[0]);

  const char *cm = foreign(f, "delta-kernel-rs/cdf-column-mapping-id-mode");
  tu_result r;
  assert_int_equal(tu_sh(&r,
                         "'%s' changes '%s' --from 1 --format csv | cut -d, -f1-5 | sed 1d | "
                         "LC_ALL=C sort",
                         INLET_BIN, cm),
                   0);
  /* Kernel prints value as a double (250.0); CSV writes 250. */
  assert_string_equal(r.out, "2,Frank,250,update_preimage,2\n"
                             "2,Frank,275,update_postimage,2\n"
                             "3,Grace,350,delete,4\n"
                             "4,Henry,450,insert,3\n");
  tu_result_free(&r);
  /* Version 0 was written before delta.enableChangeDataFeed was set. */
  assert_int_equal(exit_of("'%s' changes '%s' --from 0", INLET_BIN, cm), 6);
}

static void run_ok(const char *what, const char *cmd) {
  tu_result r;
  assert_int_equal(tu_sh(&r, "%s", cmd), 0);
  sh_ok(&r, what);
  tu_result_free(&r);
}

/* What the test did to an inlet table is what the feed says. */
static void test_changes__inlet_appends_compaction_and_range_errors(void **state) {
  fixture *f = *state;
  char t[4200], plain[4200];
  static char cmd[65536];
  snprintf(t, sizeof t, "%s/own", f->dir);
  snprintf(plain, sizeof plain, "%s/plain", f->dir);
  snprintf(cmd, sizeof cmd,
           "cd '%s' && printf 'id,day\\n1,a\\n2,b\\n3,a\\n' > one.csv && "
           "printf 'id,day\\n4,b\\n5,c\\n' > two.csv && "
           "'%s' create '%s' --schema 'id INT, day STRING' --partition-by day "
           "--property delta.enableChangeDataFeed=true && "
           "'%s' append '%s' one.csv && '%s' append '%s' two.csv && "
           "'%s' compact '%s' --min-files 2",
           f->dir, INLET_BIN, t, INLET_BIN, t, INLET_BIN, t, INLET_BIN, t);
  run_ok("create, append, append, compact", cmd);
  tu_result r;
  /* The compaction committed version 3 and changed data files. */
  assert_int_equal(
      tu_sh(&r, "grep -c '\"dataChange\":false' '%s/_delta_log/00000000000000000003.json'", t), 0);
  assert_int_not_equal(atoi(r.out), 0);
  tu_result_free(&r);
  static const char *const want[] = {
      "1,a,insert,1", "2,b,insert,1", "3,a,insert,1", "4,b,insert,2", "5,c,insert,2",
  };
  assert_int_equal(
      tu_sh(&r, "'%s' changes '%s' --from 0 --format csv | cut -d, -f1-4", INLET_BIN, t), 0);
  char *save = NULL;
  char *line = strtok_r(r.out, "\n", &save);
  assert_string_equal(line, "id,day,_change_type,_commit_version");
  const char *got[8];
  size_t n = 0;
  while ((line = strtok_r(NULL, "\n", &save)) && n < 8)
    got[n++] = line;
  assert_int_equal(n, 5);
  qsort(got, n, sizeof *got, cmp_str);
  for (size_t i = 0; i < n; i++)
    assert_string_equal(got[i], want[i]);
  tu_result_free(&r);
  /* Commit timestamps are the commit files' times (no in-commit timestamps;
   * each must be newer than the one before, else it counts as 1 ms after
   * it, as time travel counts it). */
  snprintf(cmd, sizeof cmd,
           "cd '%s/_delta_log' && touch -d '2024-05-01 09:00:00 UTC' 00000000000000000000.json && "
           "touch -d '2024-05-01 10:00:00.250 UTC' 00000000000000000001.json "
           "&& touch -d '2024-05-01 10:00:01.500 UTC' 00000000000000000002.json",
           t);
  run_ok("set commit times", cmd);
  assert_int_equal(tu_sh(&r,
                         "'%s' changes '%s' --from 1 --to 2 --format csv | cut -d, -f4,5 | sed 1d "
                         "| LC_ALL=C sort | uniq -c",
                         INLET_BIN, t),
                   0);
  assert_string_equal(r.out, "      3 1,2024-05-01T10:00:00.250000Z\n"
                             "      2 2,2024-05-01T10:00:01.500000Z\n");
  tu_result_free(&r);
  /* --columns picks and orders any of them; an unknown one is a usage
   * error (as scan --columns). */
  assert_int_equal(tu_sh(&r,
                         "'%s' changes '%s' --from 2 --to 2 --columns '_commit_version, ID' "
                         "--format csv | LC_ALL=C sort",
                         INLET_BIN, t),
                   0);
  assert_string_equal(r.out, "2,4\n2,5\n_commit_version,id\n");
  tu_result_free(&r);
  assert_int_equal(exit_of("'%s' changes '%s' --from 1 --columns nosuch", INLET_BIN, t), 2);
  /* The compaction alone: no change. */
  assert_int_equal(tu_sh(&r, "'%s' changes '%s' --from 3 --format csv", INLET_BIN, t), 0);
  sh_ok(&r, "changes --from 3");
  assert_string_equal(r.out, "id,day,_change_type,_commit_version,_commit_timestamp\n");
  tu_result_free(&r);

  /* Range errors. */
  assert_int_equal(exit_of("'%s' changes '%s' --from 4", INLET_BIN, t), 3);
  assert_int_equal(exit_of("'%s' changes '%s' --from 1 --to 9", INLET_BIN, t), 3);
  assert_int_equal(exit_of("'%s' changes '%s' --from 2 --to 1", INLET_BIN, t), 2);
  assert_int_equal(exit_of("'%s' changes '%s' ", INLET_BIN, t), 2);
  /* After a checkpoint at 3 log cleanup may drop versions 0..2: once
   * commit 0 is gone, versions 0..2 cannot be read (their metaData cannot
   * be reconstructed), the checkpoint version can. */
  snprintf(cmd, sizeof cmd, "'%s' checkpoint '%s' && rm '%s/_delta_log/00000000000000000000.json'",
           INLET_BIN, t, t);
  run_ok("checkpoint, clean up version 0", cmd);
  assert_int_equal(exit_of("'%s' changes '%s' --from 0", INLET_BIN, t), 3);
  assert_int_equal(exit_of("'%s' changes '%s' --from 1", INLET_BIN, t), 3);
  assert_int_equal(exit_of("'%s' changes '%s' --from 3", INLET_BIN, t), 0);

  /* A change data file without a _change_type column (a data file named by
   * a hand-written cdc action) is corrupt: exit 5 naming the file. */
  char bad[4300];
  snprintf(bad, sizeof bad, "%s/bad", f->dir);
  snprintf(cmd, sizeof cmd,
           "cd '%s' && printf 'id\\n1\\n' > b.csv && '%s' create bad --schema 'id INT' "
           "--property delta.enableChangeDataFeed=true && '%s' append bad b.csv && "
           "mkdir bad/_change_data && cp bad/*.parquet bad/_change_data/c.parquet && "
           "printf '{\"commitInfo\":{\"timestamp\":1}}\\n{\"cdc\":{\"path\":"
           "\"_change_data/c.parquet\",\"partitionValues\":{},\"size\":%%s,"
           "\"dataChange\":false}}\\n' $(stat -c %%s bad/_change_data/c.parquet) "
           "> bad/_delta_log/00000000000000000002.json",
           f->dir, INLET_BIN, INLET_BIN);
  run_ok("hand-written cdc action", cmd);
  tu_rules_exempt(bad, "test_changes: a cdc file without _change_type on purpose");
  assert_int_equal(tu_sh(&r, "'%s' changes '%s' --from 2", INLET_BIN, bad), 0);
  assert_int_equal(r.status, 5);
  assert_non_null(strstr(r.err, "_change_data/c.parquet"));
  assert_non_null(strstr(r.err, "_change_type"));
  tu_result_free(&r);

  /* A table that never enabled the change data feed. */
  snprintf(cmd, sizeof cmd,
           "'%s' create '%s' --schema 'id INT' && cd '%s' && printf 'id\\n1\\n' > p.csv && '%s' "
           "append '%s' p.csv",
           INLET_BIN, plain, f->dir, INLET_BIN, plain);
  run_ok("plain table", cmd);
  assert_int_equal(exit_of("'%s' changes '%s' --from 0", INLET_BIN, plain), 6);
  assert_int_equal(exit_of("'%s' changes '%s' --from 1", INLET_BIN, plain), 6);
}

/* `inlet delete` on a change data feed table writes the deleted rows, and
 * only those, to _change_data files (read back by DuckDB through refcheck),
 * by copy-on-write and with deletion vectors; the feed then shows exactly
 * the deleted rows at their versions. */
static void test_changes__inlet_delete_writes_change_data(void **state) {
  fixture *f = *state;
  static char cmd[65536];
  char cow[4200], dv[4200];
  snprintf(cow, sizeof cow, "%s/cow", f->dir);
  snprintf(dv, sizeof dv, "%s/dv", f->dir);
  snprintf(
      cmd, sizeof cmd,
      "cd '%s' && printf 'id,day\\n1,a\\n2,b\\n3,a\\n4,b\\n5,c\\n' > rows.csv && "
      "'%s' create cow --schema 'id INT, day STRING' --partition-by day "
      "--property delta.enableChangeDataFeed=true && '%s' append cow rows.csv && "
      "'%s' delete cow --where 'id = 1 OR id = 4' && '%s' delete cow --where \"day = 'c'\" && "
      "'%s' create dv --schema 'id INT, day STRING' --property delta.enableChangeDataFeed=true "
      "--property delta.enableDeletionVectors=true && '%s' append dv rows.csv && "
      "'%s' delete dv --where 'id = 1 OR id = 4' && '%s' delete dv --where 'id <= 2' && "
      "'%s' compact dv && test -f dv/_delta_log/00000000000000000004.json",
      f->dir, INLET_BIN, INLET_BIN, INLET_BIN, INLET_BIN, INLET_BIN, INLET_BIN, INLET_BIN,
      INLET_BIN, INLET_BIN);
  run_ok("create, append, delete", cmd);
  tu_result r;
  /* Copy-on-write: versions 2 (two files rewritten) and 3 (a file removed
   * whole) each name their change data files. */
  assert_int_equal(tu_sh(&r,
                         "cd '%s/_delta_log' && grep -c '\"cdc\"' 00000000000000000002.json "
                         "00000000000000000003.json",
                         cow),
                   0);
  assert_string_equal(r.out, "00000000000000000002.json:2\n00000000000000000003.json:1\n");
  tu_result_free(&r);
  assert_int_equal(tu_sh(&r,
                         "cd '%s' && for p in $(find _change_data -name '*.parquet'); do "
                         "'%s' '%s' parquet \"$p\"; done | grep '^\\[' | LC_ALL=C sort",
                         cow, INLET_NODE, INLET_REFCHECK),
                   0);
  assert_string_equal(r.out, "[1,\"delete\"]\n[4,\"delete\"]\n[5,\"delete\"]\n");
  tu_result_free(&r);
  static const char *const cow_want[] = {
      "1,a,delete,2",
      "4,b,delete,2",
      "5,c,delete,3",
  };
  assert_int_equal(tu_sh(&r,
                         "'%s' changes '%s' --from 2 --format csv | cut -d, -f1-4 | sed 1d | "
                         "LC_ALL=C sort",
                         INLET_BIN, cow),
                   0);
  char want[256] = "";
  for (size_t i = 0; i < 3; i++) {
    strcat(want, cow_want[i]);
    strcat(want, "\n");
  }
  assert_string_equal(r.out, want);
  tu_result_free(&r);
  /* Deletion vectors: version 2 deletes 1 and 4, version 3 adds 2 to the
   * same file's vector (1 is already gone), the compaction (4) changes
   * nothing. */
  assert_int_equal(tu_sh(&r,
                         "'%s' changes '%s' --from 2 --format csv | cut -d, -f1-4 | sed 1d | "
                         "LC_ALL=C sort; '%s' scan '%s' --format csv | sed 1d | LC_ALL=C sort",
                         INLET_BIN, dv, INLET_BIN, dv),
                   0);
  assert_string_equal(r.out, "1,a,delete,2\n2,b,delete,3\n4,b,delete,2\n3,a\n5,c\n");
  tu_result_free(&r);
}

/* The stdout of a shell command that must succeed (printf-style); caller
 * frees. */
static char *out_of(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *out_of(const char *fmt, ...) {
  char *cmd = NULL;
  va_list ap;
  va_start(ap, fmt);
  assert_true(vasprintf(&cmd, fmt, ap) >= 0);
  va_end(ap);
  tu_result r;
  assert_int_equal(tu_sh(&r, "%s", cmd), 0);
  sh_ok(&r, cmd);
  free(cmd);
  char *s = strdup(r.out);
  tu_result_free(&r);
  return s;
}

/* Runs a command that must fail with @p status and say @p needle. */
static void expect_refusal(int status, const char *needle, const char *cmd) {
  tu_result r;
  assert_int_equal(tu_sh(&r, "%s", cmd), 0);
  if (r.status != status || !strstr(r.err, needle))
    fail_msg("%s: exit %d (want %d), stderr %s (want \"%s\")", cmd, r.status, status, r.err,
             needle);
  tu_result_free(&r);
}

/* Spark's table_changes with timestamps: the start selects the first
 * version committed at or after it, the end the last one at or before it.
 * Commits 0..3 are given the times T0 + 100 s * version. */
static void test_changes__timestamps_select_versions_as_spark(void **state) {
  fixture *f = *state;
  char t[4200];
  static char cmd[65536];
  snprintf(t, sizeof t, "%s/ts", f->dir);
  snprintf(cmd, sizeof cmd,
           "cd '%s' && '%s' create '%s' --schema 'id INT' "
           "--property delta.enableChangeDataFeed=true && for i in 1 2 3; do "
           "printf 'id\\n%%s\\n' $i > a$i.csv && '%s' append '%s' a$i.csv || exit 1; done && "
           "cd '%s/_delta_log' && for v in 0 1 2 3; do "
           "touch -d @$((1700000000 + v * 100)) 0000000000000000000$v.json; done",
           f->dir, INLET_BIN, t, INLET_BIN, t, t);
  run_ok("create, three appends, commit times", cmd);
  /* T1 = 1700000100000 ms = 2023-11-14T22:15:00Z. */
  static const struct {
    const char *args, *rows;
  } cases[] = {
      {"--from-timestamp 1700000100000", "1,1\n2,2\n3,3\n"}, /* exactly at version 1 */
      {"--from-timestamp 1700000100001", "2,2\n3,3\n"},      /* just after it */
      {"--from-timestamp 0", "1,1\n2,2\n3,3\n"},             /* before all: the oldest */
      {"--from-timestamp 1700000100001 --to-timestamp 1700000200000", "2,2\n"},
      {"--from 1 --to-timestamp 1700000299999", "1,1\n2,2\n"}, /* just before version 3 */
      {"--from-timestamp 2023-11-14T22:15:00Z --to-timestamp 2023-11-14T22:15:00.000Z", "1,1\n"},
      /* Both between versions 1 and 2: nothing, as Spark answers. */
      {"--from-timestamp 1700000100001 --to-timestamp 1700000150000", ""},
      {"--from-timestamp 1700000300000 --to-timestamp 1700000300000", "3,3\n"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *got = out_of("'%s' changes '%s' %s --columns id,_commit_version --format csv | sed 1d | "
                       "LC_ALL=C sort",
                       INLET_BIN, t, cases[i].args);
    if (strcmp(got, cases[i].rows) != 0)
      fail_msg("changes %s:\n%s\nexpected\n%s", cases[i].args, got, cases[i].rows);
    free(got);
  }
  /* The empty range still has the header. */
  char *hdr = out_of("'%s' changes '%s' --from-timestamp 1700000100001 --to-timestamp "
                     "1700000150000 --format csv",
                     INLET_BIN, t);
  assert_string_equal(hdr, "id,_change_type,_commit_version,_commit_timestamp\n");
  free(hdr);
  /* Beyond the latest commit (start or end) or before the earliest (end):
   * not found, naming the latest commit's time. */
  snprintf(cmd, sizeof cmd, "'%s' changes '%s' --from-timestamp 1700000300001", INLET_BIN, t);
  expect_refusal(3, "2023-11-14T22:18:20.000Z", cmd);
  snprintf(cmd, sizeof cmd, "'%s' changes '%s' --from 0 --to-timestamp 1700000300001", INLET_BIN,
           t);
  expect_refusal(3, "after the latest version 3", cmd);
  snprintf(cmd, sizeof cmd, "'%s' changes '%s' --from 0 --to-timestamp 1699999999999", INLET_BIN,
           t);
  expect_refusal(3, "before the earliest version", cmd);
  /* Ranges that end before they start; bad and clashing arguments. */
  assert_int_equal(exit_of("'%s' changes '%s' --from 2 --to-timestamp 1700000100000", INLET_BIN, t),
                   2);
  assert_int_equal(exit_of("'%s' changes '%s' --from-timestamp 1700000200000 "
                           "--to-timestamp 1700000100000",
                           INLET_BIN, t),
                   2);
  assert_int_equal(
      exit_of("'%s' changes '%s' --from 1 --from-timestamp 1700000100000", INLET_BIN, t), 2);
  assert_int_equal(
      exit_of("'%s' changes '%s' --from 1 --to 2 --to-timestamp 1700000100000", INLET_BIN, t), 2);
  assert_int_equal(exit_of("'%s' changes '%s' --from-timestamp yesterday", INLET_BIN, t), 2);

  /* In-commit timestamps decide where the table has them: cdc_ict_table's
   * commit files are moved to 2001, its inCommitTimestamps say versions 2
   * and 3 are at 2026-07-12T16:36:52.175Z and 16:36:53.881Z (the rows are
   * those test_changes__in_commit_timestamps_column_mapping_and_refusals
   * expects of version 3). */
  const char *ict = foreign(f, "delta-rs/cdc_ict_table");
  snprintf(cmd, sizeof cmd, "touch -d '2001-01-01 00:00:00 UTC' '%s'/_delta_log/*.json", ict);
  run_ok("move commit files to 2001", cmd);
  char *got = out_of("'%s' changes '%s' --from-timestamp 2026-07-12T16:36:52.176Z --format csv | "
                     "cut -d, -f1,4,5 | sed 1d | LC_ALL=C sort",
                     INLET_BIN, ict);
  assert_string_equal(got, "Kate,update_postimage,3\nKate,update_preimage,3\n"
                           "Steve,update_postimage,3\nSteve,update_preimage,3\n");
  free(got);
  got = out_of("'%s' changes '%s' --from 2 --to-timestamp 2026-07-12T16:36:53.880Z --format csv | "
               "cut -d, -f1,4,5 | sed 1d | LC_ALL=C sort",
               INLET_BIN, ict);
  assert_string_equal(got, "Dan,delete,2\nDave,delete,2\n");
  free(got);
}

/* Reading across schema changes as Spark's batch read does by default. */
static void test_changes__schema_changes_additive_read_others_refused(void **state) {
  fixture *f = *state;
  char t[4200], w[4200], cm[4200], dr[4200];
  static char cmd[65536];
  snprintf(t, sizeof t, "%s/add", f->dir);
  snprintf(w, sizeof w, "%s/widen", f->dir);
  snprintf(cm, sizeof cm, "%s/rename", f->dir);
  snprintf(dr, sizeof dr, "%s/drop", f->dir);
  /* An added column (schema evolution at version 2) and a struct field
   * added inside a struct column (version 3). */
  snprintf(cmd, sizeof cmd,
           "cd '%s' && '%s' create '%s' --schema 'id INT, s STRUCT<a: INT>' "
           "--property delta.enableChangeDataFeed=true && "
           "printf '{\"id\":1,\"s\":{\"a\":1}}\\n' > a1.ndjson && "
           "printf '{\"id\":2,\"s\":{\"a\":2},\"extra\":\"x\"}\\n' > a2.ndjson && "
           "printf '{\"id\":3,\"s\":{\"a\":3,\"b\":true},\"extra\":\"y\"}\\n' > a3.ndjson && "
           "'%s' append '%s' a1.ndjson && '%s' append '%s' a2.ndjson --schema-evolution add && "
           "'%s' append '%s' a3.ndjson --schema-evolution add",
           f->dir, INLET_BIN, t, INLET_BIN, t, INLET_BIN, t, INLET_BIN, t);
  run_ok("create, append, append adding columns", cmd);
  char *got = out_of("'%s' changes '%s' --from 0 --columns id,s,extra,_commit_version "
                     "--format ndjson | LC_ALL=C sort",
                     INLET_BIN, t);
  assert_string_equal(
      got, "{\"id\":1,\"s\":{\"a\":1,\"b\":null},\"extra\":null,\"_commit_version\":1}\n"
           "{\"id\":2,\"s\":{\"a\":2,\"b\":null},\"extra\":\"x\",\"_commit_version\":2}\n"
           "{\"id\":3,\"s\":{\"a\":3,\"b\":true},\"extra\":\"y\",\"_commit_version\":3}\n");
  free(got);
  /* Ending before the change: the schema of then. */
  got = out_of("'%s' changes '%s' --from 1 --to 1 --format csv | head -1", INLET_BIN, t);
  assert_string_equal(got, "id,s,_change_type,_commit_version,_commit_timestamp\n");
  free(got);

  /* A widened type (version 2) is a type change: refused over a range that
   * spans it, naming it; each side reads. */
  snprintf(cmd, sizeof cmd,
           "cd '%s' && '%s' create '%s' --schema 'id INT' --property "
           "delta.enableChangeDataFeed=true --property delta.enableTypeWidening=true && "
           "printf '{\"id\":1}\\n' > w1.ndjson && printf '{\"id\":3000000000}\\n' > w2.ndjson && "
           "'%s' append '%s' w1.ndjson && '%s' append '%s' w2.ndjson --schema-evolution add",
           f->dir, INLET_BIN, w, INLET_BIN, w, INLET_BIN, w);
  run_ok("create, append, append widening", cmd);
  snprintf(cmd, sizeof cmd, "'%s' changes '%s' --from 0", INLET_BIN, w);
  expect_refusal(6, "version 2 changes the schema incompatibly", cmd);
  snprintf(cmd, sizeof cmd, "'%s' changes '%s' --from 1", INLET_BIN, w);
  expect_refusal(6, "from integer to long", cmd);
  got = out_of("'%s' changes '%s' --from 1 --to 1 --format csv | cut -d, -f1,3 | sed 1d; "
               "'%s' changes '%s' --from 2 --format csv | cut -d, -f1,3 | sed 1d",
               INLET_BIN, w, INLET_BIN, w);
  assert_string_equal(got, "1,1\n3000000000,2\n");
  free(got);

  /* Column mapping: a rename (hand-written metaData at version 2: "name"
   * becomes "label", same physical name) and a drop of "name" likewise. */
  static const char *const rename_sed =
      "s/\\(.\\)\"name\\(.\\)\":\\(.\\)\"name\\(.\\)\"/\\1\"name\\2\":\\3\"label\\4\"/";
  static const char *const drop_sed = "s/,{.\"name.\":.\"name.\"[^}]*}}//";
  const char *dirs[2] = {cm, dr}, *seds[2] = {rename_sed, drop_sed};
  for (int k = 0; k < 2; k++) {
    snprintf(cmd, sizeof cmd,
             "cd '%s' && '%s' create '%s' --schema 'id INT, name STRING' --property "
             "delta.enableChangeDataFeed=true --property delta.columnMapping.mode=name && "
             "printf '{\"id\":1,\"name\":\"a\"}\\n' > c1.ndjson && '%s' append '%s' c1.ndjson && "
             "(printf '{\"commitInfo\":{\"timestamp\":%%s000,\"operation\":\"%s COLUMN\"}}\\n' "
             "$(date +%%s); grep '\"metaData\"' '%s/_delta_log/00000000000000000000.json' | "
             "sed '%s') > '%s/_delta_log/00000000000000000002.json' && "
             "printf '{\"id\":2,\"label\":\"b\"}\\n' > c2.ndjson && "
             "'%s' append '%s' c2.ndjson --schema-evolution ignore",
             f->dir, INLET_BIN, dirs[k], INLET_BIN, dirs[k], k ? "DROP" : "RENAME", dirs[k],
             seds[k], dirs[k], INLET_BIN, dirs[k]);
    run_ok(k ? "column mapping table with a drop" : "column mapping table with a rename", cmd);
    tu_rules_exempt(dirs[k], "test_changes: hand-written RENAME/DROP COLUMN metaData commit");
    /* The hand-written commit did what it says: the schema after it. */
    got = out_of("'%s' scan '%s' --format csv | head -1", INLET_BIN, dirs[k]);
    assert_string_equal(got, k ? "id\n" : "id,label\n");
    free(got);
    snprintf(cmd, sizeof cmd, "'%s' changes '%s' --from 0", INLET_BIN, dirs[k]);
    expect_refusal(6, k ? "column \"name\" is dropped" : "column \"name\" is renamed to \"label\"",
                   cmd);
    expect_refusal(6, "version 2 changes the schema incompatibly", cmd);
    got = out_of("'%s' changes '%s' --from 1 --to 1 --format csv | cut -d, -f1-3; "
                 "'%s' changes '%s' --from 2 --format csv | cut -d, -f1-3",
                 INLET_BIN, dirs[k], INLET_BIN, dirs[k]);
    assert_string_equal(got,
                        k ? "id,name,_change_type\n1,a,insert\nid,_change_type,_commit_version\n"
                            "2,insert,3\n"
                          : "id,name,_change_type\n1,a,insert\nid,label,_change_type\n"
                            "2,b,insert\n");
    free(got);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_changes__spark_cdf_table_as_delta_rs_reads_it, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(
          test_changes__cdc_files_and_deletion_vectors_as_delta_rs_reads_them, setup, teardown),
      cmocka_unit_test_setup_teardown(
          test_changes__in_commit_timestamps_column_mapping_and_refusals, setup, teardown),
      cmocka_unit_test_setup_teardown(test_changes__inlet_appends_compaction_and_range_errors,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_changes__inlet_delete_writes_change_data, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_changes__timestamps_select_versions_as_spark, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_changes__schema_changes_additive_read_others_refused,
                                      setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
