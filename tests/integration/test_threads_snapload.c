/*
 * Issue 18: snapshot loading and checkpoint writing in parallel, through the
 * real binary. The thread count changes speed, never results:
 *   - a v2 checkpoint with several sidecars followed by many commits (appends,
 *     a delete that removes files, more appends): `describe --json`,
 *     `scan --explain` (the file list) and the rows are the same at
 *     --threads 1 and 4, at the latest version and at a version between;
 *   - the same table with its checkpoint turned into a classic multi-part
 *     one (the sidecars as parts): the same at 1 and 4, and the same rows as
 *     the v2 table (every part was read);
 *   - the sidecars `checkpoint --threads 4` writes are byte-identical to those
 *     of --threads 1, and so is a classic checkpoint;
 *   - a corrupt part, a corrupt sidecar and a corrupt commit after the
 *     checkpoint are still exit 5 with the same message naming the file at 4
 *     threads as at 1;
 *   - the library's open options: a version-1 struct is still accepted, an
 *     unknown version refused, and threads = 4 loads what threads = 1 loads.
 * Also run under ThreadSanitizer (make test-tsan).
 */
#include "log_support.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inlet/inlet.h"

/* The tables are built once (about 200 commits) and shared by the tests,
 * which work on copies when they change anything. */
static char base[4096];

#define FILES_BEFORE 96 /* commits (one file each) before the checkpoint */
#define SIDECAR_ACTIONS 12
#define FILES_AFTER 40 /* appends after the checkpoint, then a delete, then more */
#define CP_VERSION FILES_BEFORE

static void sh_ok(const char *what, tu_result *r) {
  ls_sh_ok(r, what);
}

/* base/v2: a v2-policy table whose version CP_VERSION checkpoint has
 * FILES_BEFORE / SIDECAR_ACTIONS sidecars, then appends, a delete removing
 * every id divisible by 5, and more appends. base/v0top: the nonfile-only v2
 * checkpoint of version 0 (protocol, metaData: the properties never change).
 * base/mp: the same table with a classic multi-part checkpoint at
 * CP_VERSION: part 1 that nonfile file, parts 2.. the sidecars, in order. */
static int group_setup(void **state) {
  (void)state;
  snprintf(base, sizeof base, "%s", tu_mkdtemp("threads_snapload"));
  tu_result r;
  tu_sh(&r,
        "cd '%s' && '%s' create v2 --schema 'id long, s string' "
        "--property delta.checkpointPolicy=v2 --property inlet.checkpoint.sidecarActions=%d "
        "--property delta.checkpointInterval=1000000 && '%s' checkpoint v2 --threads 1 && "
        "cp v2/_delta_log/00000000000000000000.checkpoint.*.parquet "
        "v0top",
        base, INLET_BIN, SIDECAR_ACTIONS, INLET_BIN);
  sh_ok("create and checkpoint version 0", &r);
  tu_result_free(&r);
  char t[4200];
  snprintf(t, sizeof t, "%s/v2", base);
  ls_append_range(t, 0, FILES_BEFORE);
  LS_SH_OK("checkpoint", "cd '%s' && '%s' checkpoint v2 --threads 1", base, INLET_BIN);
  ls_append_range(t, 1000, FILES_AFTER);
  LS_SH_OK("delete", "cd '%s' && '%s' delete v2 --where 'id %% 5 = 0' >/dev/null", base, INLET_BIN);
  ls_append_range(t, 2000, FILES_AFTER / 2);
  /* The multi-part copy: sidecars in the order the checkpoint names them. */
  LS_SH_OK("multi-part copy",
           "cd '%s' && cp -R v2 mp && cd mp/_delta_log && "
           "names=$(jq -r '.v2Checkpoint.sidecarFiles[].path' _last_checkpoint) && "
           "n=$(( $(echo \"$names\" | wc -l) + 1 )) && p=1 && "
           "cp ../../v0top $(printf '%%020d.checkpoint.%%010d.%%010d.parquet' %d 1 $n) && "
           "for s in $names; do p=$((p + 1)); "
           "cp _sidecars/$s $(printf '%%020d.checkpoint.%%010d.%%010d.parquet' %d $p $n); done && "
           "rm -f _last_checkpoint $(printf '%%020d' %d).checkpoint.*-*.parquet",
           base, CP_VERSION, CP_VERSION, CP_VERSION);
  tu_rules_exempt(base, "a multi-part checkpoint assembled from another checkpoint's files");
  return 0;
}

static int group_teardown(void **state) {
  (void)state;
  tu_rmtree(base);
  return 0;
}

/* `describe --json`, `scan --explain` and the rows of @p table (under base)
 * at @p threads, @p vopt e.g. "--version 120" or "". */
typedef struct view {
  char *describe, *explain, *rows;
} view;

static view view_of(const char *table, const char *vopt, int threads) {
  view v;
  v.describe = ls_sh_out("describe", "cd '%s' && '%s' describe %s --json --threads %d", base,
                         INLET_BIN, table, threads);
  v.explain = ls_sh_out("scan --explain", "cd '%s' && '%s' scan %s %s --explain --threads %d", base,
                        INLET_BIN, table, vopt, threads);
  v.rows = ls_sh_out("scan", "cd '%s' && '%s' scan %s %s --format ndjson --threads %d", base,
                     INLET_BIN, table, vopt, threads);
  return v;
}

static void view_free(view *v) {
  free(v->describe);
  free(v->explain);
  free(v->rows);
}

static size_t lines(const char *s) {
  size_t n = 0;
  for (; *s; s++)
    n += *s == '\n';
  return n;
}

static void assert_same_view(const char *table, const char *vopt, size_t want_rows) {
  view a = view_of(table, vopt, 1), b = view_of(table, vopt, 4);
  assert_string_equal(a.describe, b.describe);
  assert_string_equal(a.explain, b.explain);
  assert_string_equal(a.rows, b.rows);
  assert_int_equal(lines(a.rows), want_rows);
  view_free(&a);
  view_free(&b);
}

/* Rows at the latest version: the appends minus the multiples of 5 among
 * those before the delete. */
static size_t latest_rows(void) {
  size_t n = 0;
  for (int i = 0; i < FILES_BEFORE; i++)
    n += i % 5 != 0;
  for (int i = 1000; i < 1000 + FILES_AFTER; i++)
    n += i % 5 != 0;
  return n + FILES_AFTER / 2;
}

static void test_snapload__v2_sidecars_same_at_1_and_4(void **state) {
  (void)state;
  /* The checkpoint really has several sidecars. */
  char *n = ls_sh_out("sidecars",
                      "cd '%s/v2/_delta_log' && jq '.v2Checkpoint.sidecarFiles | length' "
                      "_last_checkpoint",
                      base);
  assert_int_equal(atoi(n), FILES_BEFORE / SIDECAR_ACTIONS);
  free(n);
  assert_same_view("v2", "", latest_rows());
  /* A version among the commits after the checkpoint, before the delete. */
  char vopt[64];
  snprintf(vopt, sizeof vopt, "--version %d", CP_VERSION + FILES_AFTER / 2);
  assert_same_view("v2", vopt, FILES_BEFORE + FILES_AFTER / 2);
}

static void test_snapload__multi_part_same_at_1_and_4(void **state) {
  (void)state;
  char *cps = ls_sh_out("parts", "cd '%s/mp/_delta_log' && ls | grep -c '^%020d\\.checkpoint\\.0'",
                        base, CP_VERSION);
  assert_int_equal(atoi(cps), FILES_BEFORE / SIDECAR_ACTIONS + 1);
  free(cps);
  assert_same_view("mp", "", latest_rows());
  /* The describe names the multi-part checkpoint, and the rows are the v2
   * table's: every part was applied. */
  char *d =
      ls_sh_out("describe", "cd '%s' && '%s' describe mp --json --threads 4", base, INLET_BIN);
  json_t *j = json_loads(d, 0, NULL);
  assert_non_null(j);
  assert_int_equal(json_integer_value(json_object_get(j, "last_checkpoint")), CP_VERSION);
  json_decref(j);
  free(d);
  char *a =
      ls_sh_out("scan", "cd '%s' && '%s' scan v2 --format ndjson --threads 1", base, INLET_BIN);
  char *b =
      ls_sh_out("scan", "cd '%s' && '%s' scan mp --format ndjson --threads 4", base, INLET_BIN);
  assert_string_equal(a, b);
  free(a);
  free(b);
}

static void test_snapload__checkpoint_bytes_same_at_1_and_4(void **state) {
  (void)state;
  /* The v2 table as it was at the checkpoint, twice, checkpointed again at
   * the latest version by 1 and by 4 threads. */
  LS_SH_OK("copies",
           "cd '%s' && rm -rf w1 w4 && cp -R v2 w1 && cp -R v2 w4 && "
           "'%s' checkpoint w1 --threads 1 >/dev/null && '%s' checkpoint w4 --threads 4 >/dev/null",
           base, INLET_BIN, INLET_BIN);
  /* Sidecars in the order each checkpoint names them: equal bytes. */
  char *cmp = ls_sh_out("compare sidecars",
                        "cd '%s' && a=$(jq -r '.v2Checkpoint.sidecarFiles[].path' "
                        "w1/_delta_log/_last_checkpoint) && b=$(jq -r "
                        "'.v2Checkpoint.sidecarFiles[].path' w4/_delta_log/_last_checkpoint) && "
                        "set -- $b && n=0 && for s in $a; do cmp w1/_delta_log/_sidecars/$s "
                        "w4/_delta_log/_sidecars/$1 >&2 || exit 1; shift; n=$((n + 1)); done && "
                        "test $# -eq 0 && echo $n",
                        base);
  size_t live_and_tombstones = latest_rows() + FILES_BEFORE / 5 + FILES_AFTER / 5;
  assert_int_equal(atoi(cmp), (live_and_tombstones + SIDECAR_ACTIONS - 1) / SIDECAR_ACTIONS);
  free(cmp);
  /* A classic checkpoint: the whole file. */
  LS_SH_OK("classic",
           "cd '%s' && rm -rf c1 c4 && '%s' create c1 --schema 'id long, s string' "
           "--property delta.checkpointInterval=1000000 >/dev/null",
           base, INLET_BIN);
  char c1[4200];
  snprintf(c1, sizeof c1, "%s/c1", base);
  ls_append_range(c1, 1, 30);
  LS_SH_OK("classic checkpoints",
           "cd '%s' && cp -R c1 c4 && '%s' checkpoint c1 --threads 1 >/dev/null && "
           "'%s' checkpoint c4 --threads 4 >/dev/null && "
           "cmp c1/_delta_log/00000000000000000030.checkpoint.parquet "
           "c4/_delta_log/00000000000000000030.checkpoint.parquet",
           base, INLET_BIN, INLET_BIN);
  LS_SH_OK("cleanup", "cd '%s' && rm -rf w1 w4 c1 c4", base);
}

/* @p table's scan at 1 and at 4 threads: exit 5, the same stderr, naming
 * @p file. */
static void assert_same_corrupt(const char *table, const char *file) {
  tu_result r1, r4;
  tu_sh(&r1, "cd '%s' && '%s' scan %s --format ndjson --threads 1", base, INLET_BIN, table);
  tu_sh(&r4, "cd '%s' && '%s' scan %s --format ndjson --threads 4", base, INLET_BIN, table);
  if (r4.status != 5 || !strstr(r4.err, file))
    fail_msg("want exit 5 naming %s, got %d: %s", file, r4.status, r4.err);
  assert_int_equal(r1.status, 5);
  assert_string_equal(r1.err, r4.err);
  tu_result_free(&r1);
  tu_result_free(&r4);
  /* describe reads the same log the same way. */
  tu_sh(&r4, "cd '%s' && '%s' describe %s --threads 4", base, INLET_BIN, table);
  assert_int_equal(r4.status, 5);
  assert_non_null(strstr(r4.err, file));
  tu_result_free(&r4);
}

static void test_snapload__corrupt_file_named_at_4_threads(void **state) {
  (void)state;
  /* Without the commits before the checkpoint (nor the version-0
   * checkpoint), a bad checkpoint file cannot be passed over. */
  char part[128];
  snprintf(part, sizeof part, "%020d.checkpoint.%010d.%010d.parquet", CP_VERSION, 3,
           FILES_BEFORE / SIDECAR_ACTIONS + 1);
  LS_SH_OK("corrupt part",
           "cd '%s' && rm -rf bad && cp -R mp bad && cd bad/_delta_log && "
           "rm -f 00000000000000000000.checkpoint.*.parquet && "
           "for i in $(seq 0 %d); do rm -f $(printf '%%020d.json' $i); done && "
           "head -c 200 %s > x && mv x %s",
           base, CP_VERSION - 1, part, part);
  assert_same_corrupt("bad", part);

  /* A truncated sidecar of the v2 table. */
  LS_SH_OK("corrupt sidecar",
           "cd '%s' && rm -rf bad && cp -R v2 bad && cd bad/_delta_log && "
           "rm -f 00000000000000000000.checkpoint.*.parquet && "
           "for i in $(seq 0 %d); do rm -f $(printf '%%020d.json' $i); done && "
           "s=$(jq -r '.v2Checkpoint.sidecarFiles[2].path' _last_checkpoint) && "
           "head -c 100 _sidecars/$s > x && mv x _sidecars/$s && echo $s > ../../bad_name",
           base, CP_VERSION - 1);
  char *name = ls_sh_out("name", "cat '%s/bad_name'", base);
  name[strcspn(name, "\n")] = 0;
  assert_same_corrupt("bad", name);
  free(name);

  /* A commit after the checkpoint that is not JSON. */
  char commit[64];
  snprintf(commit, sizeof commit, "%020d.json", CP_VERSION + 7);
  LS_SH_OK("corrupt commit",
           "cd '%s' && rm -rf bad && cp -R v2 bad && printf 'not json\\n' > bad/_delta_log/%s",
           base, commit);
  assert_same_corrupt("bad", commit);
  LS_SH_OK("cleanup", "cd '%s' && rm -rf bad bad_name", base);
}

/* The library: threads in inlet_table_open_options (version 2). */
static char *describe_json(const char *table, int version, int threads) {
  inlet_table_open_options o = INLET_TABLE_OPEN_OPTIONS_INIT;
  o.version = version;
  o.threads = threads;
  inlet_table *t = NULL;
  inlet_error err = INLET_ERROR_INIT;
  if (inlet_table_open_with(&t, table, &o, &err) != 0) fail_msg("open: %s", inlet_errmsg(&err));
  inlet_table_description d;
  char *js = NULL;
  if (inlet_table_describe(t, &d, &js, &err) != 0) fail_msg("describe: %s", inlet_errmsg(&err));
  inlet_table_free(t);
  char *out = strdup(js);
  inlet_string_free(js);
  return out;
}

static void test_snapload__library_open_options(void **state) {
  (void)state;
  char t[4200];
  snprintf(t, sizeof t, "%s/mp", base);
  char *one = describe_json(t, 1, 4); /* a version-1 struct: threads unread */
  char *four = describe_json(t, 2, 4);
  assert_string_equal(one, four);
  assert_non_null(strstr(four, "\"last_checkpoint\""));
  free(one);
  free(four);
  inlet_table_open_options o = INLET_TABLE_OPEN_OPTIONS_INIT;
  o.version = 3;
  inlet_table *tb = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_table_open_with(&tb, t, &o, &err), INLET_EINVAL);
  assert_null(tb);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_snapload__v2_sidecars_same_at_1_and_4),
      cmocka_unit_test(test_snapload__multi_part_same_at_1_and_4),
      cmocka_unit_test(test_snapload__checkpoint_bytes_same_at_1_and_4),
      cmocka_unit_test(test_snapload__corrupt_file_named_at_4_threads),
      cmocka_unit_test(test_snapload__library_open_options),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
