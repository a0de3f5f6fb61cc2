/*
 * Issue 11 section 1, what a commit itself owes the table (PROTOCOL.md
 * "In-Commit Timestamps", "Append-only Tables"):
 *  - with delta.enableInCommitTimestamps=true, commitInfo is the first
 *    action of every commit and its inCommitTimestamp is the later of the
 *    attempt's time and one millisecond after the previous commit's, also
 *    when the commit lost a race and lands on top of a concurrent winner;
 *  - with delta.appendOnly=true, a remove with dataChange=true is refused,
 *    a dataChange=false rewrite is not.
 */
#include "testutil.h"

#include <jansson.h>
#include <stdio.h>
#include <sys/stat.h>

#include "delta/delta.h"
#include "storage/storage.h"
#include "util/util.h"

typedef struct fixture {
  char dir[4096];
  inlet_storage *st;
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  snprintf(f->dir, sizeof f->dir, "%s", tu_mkdtemp("conf-commit"));
  /* Commits of adds that name no real file: the log rules are under test. */
  tu_rules_exempt(f->dir, "commit-level tests: adds name no data file");
  inlet_error err = INLET_ERROR_INIT;
  char log[4200];
  snprintf(log, sizeof log, "%s/_delta_log", f->dir);
  assert_int_equal(mkdir(log, 0777), 0);
  assert_int_equal(inlet_storage_posix_open(&f->st, f->dir, false, &err), 0);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  f->st->ops->free(f->st);
  tu_rmtree(f->dir);
  free(f);
  return 0;
}

#define SCHEMA "\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[]}\""
#define META(conf)                                                                                 \
  "{\"metaData\":{\"id\":\"t\",\"format\":{\"provider\":\"parquet\",\"options\":{}}," SCHEMA       \
  ",\"partitionColumns\":[],\"configuration\":" conf "}}"

/* Commits the given action lines as one transaction reading @p read_version,
 * telling the transaction about metaData @p table_meta (NULL: none). */
static int commit(fixture *f, int64_t read_version, const char *table_meta, const char *lines,
                  int64_t *v, inlet_error *err) {
  delta_txn *t = NULL;
  assert_int_equal(delta_txn_begin(&t, f->st, f->dir, read_version, "WRITE", err), 0);
  delta_line_ctx ctx = {"test", 1, f->dir};
  if (table_meta) {
    delta_action m;
    assert_int_equal(delta_action_parse(&m, table_meta, strlen(table_meta), &ctx, err), 0);
    delta_txn_set_table(t, &m.u.metadata);
    delta_action_reset(&m);
  }
  for (const char *p = lines; *p;) {
    const char *e = strchr(p, '\n');
    delta_action a;
    assert_int_equal(delta_action_parse(&a, p, (size_t)(e - p), &ctx, err), 0);
    assert_int_equal(delta_txn_add_action(t, &a, err), 0);
    delta_action_reset(&a);
    p = e + 1;
  }
  int rc = delta_txn_commit(t, v, err);
  delta_txn_free(t);
  return rc;
}

/* The first line of commit @p v and its inCommitTimestamp (-1 if none). */
static long long first_line_ict(fixture *f, int64_t v) {
  char path[4300];
  snprintf(path, sizeof path, "%s/_delta_log/%020lld.json", f->dir, (long long)v);
  char *text = tu_read_file(path, NULL);
  assert_non_null(text);
  char *nl = strchr(text, '\n');
  if (nl) *nl = '\0';
  json_t *o = json_loads(text, 0, NULL);
  free(text);
  json_t *ci = json_object_get(o, "commitInfo");
  assert_non_null(ci); /* commitInfo comes first */
  json_t *t = json_object_get(ci, "inCommitTimestamp");
  long long r = json_is_integer(t) ? (long long)json_integer_value(t) : -1;
  json_decref(o);
  return r;
}

static void write_commit(fixture *f, int64_t v, const char *text) {
  char path[4300];
  snprintf(path, sizeof path, "%s/_delta_log/%020lld.json", f->dir, (long long)v);
  assert_int_equal(tu_write_file(path, text, strlen(text)), 0);
}

#define PROTO_ICT                                                                                  \
  "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":7,\"writerFeatures\":"               \
  "[\"appendOnly\",\"invariants\",\"inCommitTimestamp\"]}}\n"
#define META_ICT META("{\"delta.enableInCommitTimestamps\":\"true\"}")
#define ADD(p)                                                                                     \
  "{\"add\":{\"path\":\"" p "\",\"partitionValues\":{},\"size\":1,\"modificationTime\":1,"         \
  "\"dataChange\":true}}\n"

static void test_ict__every_commit_carries_a_monotonic_timestamp_first(void **state) {
  fixture *f = *state;
  inlet_error err = INLET_ERROR_INIT;
  int64_t v = -1;
  /* Creation: the transaction's own metaData turns the timestamps on. */
  assert_int_equal(commit(f, -1, NULL, PROTO_ICT META_ICT "\n", &v, &err), 0);
  long long t0 = first_line_ict(f, 0);
  assert_true(t0 > 0);
  assert_int_equal(commit(f, 0, META_ICT, ADD("a"), &v, &err), 0);
  assert_int_equal(v, 1);
  long long t1 = first_line_ict(f, 1);
  assert_true(t1 > t0);
  /* Another writer committed version 2 with a timestamp far ahead of this
   * clock: the next one is exactly one millisecond later. */
  const long long future = 4102444800000LL; /* 2100-01-01 */
  char c2[512];
  snprintf(
      c2, sizeof c2,
      "{\"commitInfo\":{\"inCommitTimestamp\":%lld,\"timestamp\":1,\"operation\":\"WRITE\"}}\n" ADD(
          "b"),
      future);
  write_commit(f, 2, c2);
  assert_int_equal(commit(f, 2, META_ICT, ADD("c"), &v, &err), 0);
  assert_int_equal(v, 3);
  assert_int_equal(first_line_ict(f, 3), future + 1);
  /* A transaction that read version 1 loses versions 2 and 3 to them, lands
   * at 4 and follows the winner's timestamp, not the one it first built. */
  snprintf(
      c2, sizeof c2,
      "{\"commitInfo\":{\"inCommitTimestamp\":%lld,\"timestamp\":1,\"operation\":\"WRITE\"}}\n" ADD(
          "d"),
      future + 1000);
  write_commit(f, 4, c2);
  assert_int_equal(commit(f, 1, META_ICT, ADD("e"), &v, &err), 0);
  assert_int_equal(v, 5);
  assert_int_equal(first_line_ict(f, 5), future + 1001);
}

static void test_ict__tables_without_it_get_none(void **state) {
  fixture *f = *state;
  inlet_error err = INLET_ERROR_INIT;
  int64_t v = -1;
  assert_int_equal(
      commit(f, -1, NULL,
             "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}\n" META("{}") "\n", &v,
             &err),
      0);
  assert_int_equal(commit(f, 0, META("{}"), ADD("a"), &v, &err), 0);
  assert_int_equal(first_line_ict(f, 0), -1);
  assert_int_equal(first_line_ict(f, 1), -1);
}

static void test_append_only__data_removes_refused_rewrites_allowed(void **state) {
  fixture *f = *state;
  inlet_error err = INLET_ERROR_INIT;
  int64_t v = -1;
  const char *ao = META("{\"delta.appendOnly\":\"true\"}");
  char create[1024];
  snprintf(create, sizeof create,
           "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}\n%s\n", ao);
  assert_int_equal(commit(f, -1, NULL, create, &v, &err), 0);
  assert_int_equal(commit(f, 0, ao, ADD("a") ADD("b"), &v, &err), 0);
  const char *del = "{\"remove\":{\"path\":\"a\",\"deletionTimestamp\":5,\"dataChange\":true}}\n";
  assert_int_equal(commit(f, 1, ao, del, &v, &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "append-only"));
  assert_non_null(strstr(err.message, "\"a\""));
  char path[4300];
  snprintf(path, sizeof path, "%s/_delta_log/00000000000000000002.json", f->dir);
  assert_null(tu_read_file(path, NULL)); /* nothing committed */
  /* Compaction's rewrite: dataChange=false on both sides. */
  const char *rewrite =
      "{\"remove\":{\"path\":\"a\",\"deletionTimestamp\":5,\"dataChange\":false}}\n"
      "{\"remove\":{\"path\":\"b\",\"deletionTimestamp\":5,\"dataChange\":false}}\n"
      "{\"add\":{\"path\":\"ab\",\"partitionValues\":{},\"size\":2,"
      "\"modificationTime\":1,\"dataChange\":false}}\n";
  err = (inlet_error)INLET_ERROR_INIT;
  assert_int_equal(commit(f, 1, ao, rewrite, &v, &err), 0);
  assert_int_equal(v, 2);
  /* A table that is not append-only takes the delete. */
  assert_int_equal(commit(f, 2, META("{}"),
                          "{\"remove\":{\"path\":\"ab\",\"deletionTimestamp\":6,"
                          "\"dataChange\":true}}\n",
                          &v, &err),
                   0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_ict__every_commit_carries_a_monotonic_timestamp_first,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_ict__tables_without_it_get_none, setup, teardown),
      cmocka_unit_test_setup_teardown(test_append_only__data_removes_refused_rewrites_allowed,
                                      setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
