/*
 * `--log-format json` (any command, or INLET_LOG_FORMAT=json): every line on
 * standard error is a JSON object with ts, level, event, command, table and
 * message; failures carry the exit code they end with, usage errors the
 * help to read; warnings are JSON too. Text stays the default.
 */
#include "testutil.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every stderr line of @p r parsed; fails the test on a line that is not a
 * JSON object with the common keys. Returns an array (caller decrefs). */
static json_t *json_lines(const tu_result *r) {
  json_t *all = json_array();
  char *copy = strdup(r->err);
  for (char *line = strtok(copy, "\n"); line; line = strtok(NULL, "\n")) {
    json_error_t je;
    json_t *j = json_loads(line, 0, &je);
    if (!json_is_object(j)) fail_msg("stderr line is not a JSON object (%s): %s", je.text, line);
    const char *ts = json_string_value(json_object_get(j, "ts"));
    if (!ts || strlen(ts) != 24 || ts[10] != 'T' || ts[23] != 'Z') fail_msg("bad ts in %s", line);
    static const char *const keys[] = {"level", "event", "message"};
    for (size_t i = 0; i < 3; i++)
      if (!json_is_string(json_object_get(j, keys[i]))) fail_msg("no %s in %s", keys[i], line);
    if (!json_object_get(j, "command") || !json_object_get(j, "table"))
      fail_msg("no command/table key in %s", line);
    json_array_append_new(all, j);
  }
  free(copy);
  return all;
}

static void test_log_format__failure_is_one_json_line_with_its_exit_code(void **state) {
  (void)state;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("log-json"));
  tu_result r;
  tu_sh(&r, "cd '%s' && '%s' scan nowhere --log-format json", dir, INLET_BIN);
  assert_int_equal(r.status, 3);
  assert_int_equal(r.out_len, 0);
  json_t *a = json_lines(&r);
  assert_int_equal(json_array_size(a), 1);
  json_t *j = json_array_get(a, 0);
  assert_string_equal(json_string_value(json_object_get(j, "level")), "error");
  assert_string_equal(json_string_value(json_object_get(j, "event")), "not_found");
  assert_string_equal(json_string_value(json_object_get(j, "command")), "scan");
  assert_string_equal(json_string_value(json_object_get(j, "table")), "nowhere");
  assert_int_equal(json_integer_value(json_object_get(j, "exit_code")), 3);
  assert_non_null(strstr(json_string_value(json_object_get(j, "message")), "nowhere"));
  json_decref(a);
  tu_result_free(&r);

  /* A usage error: one line, with the help to read; the flag may come first. */
  tu_sh(&r, "cd '%s' && '%s' --log-format=json scan nowhere --bogus", dir, INLET_BIN);
  assert_int_equal(r.status, 2);
  a = json_lines(&r);
  assert_int_equal(json_array_size(a), 1);
  j = json_array_get(a, 0);
  assert_string_equal(json_string_value(json_object_get(j, "event")), "usage_error");
  assert_string_equal(json_string_value(json_object_get(j, "help")), "inlet scan --help");
  assert_int_equal(json_integer_value(json_object_get(j, "exit_code")), 2);
  assert_non_null(strstr(json_string_value(json_object_get(j, "message")), "--bogus"));
  json_decref(a);
  tu_result_free(&r);

  /* The environment too; an unknown command has no command key value. */
  tu_sh(&r, "cd '%s' && INLET_LOG_FORMAT=json '%s' scna", dir, INLET_BIN);
  assert_int_equal(r.status, 2);
  a = json_lines(&r);
  j = json_array_get(a, 0);
  assert_true(json_is_null(json_object_get(j, "command")));
  assert_non_null(strstr(json_string_value(json_object_get(j, "hint")), "scan"));
  json_decref(a);
  tu_result_free(&r);
  tu_rmtree(dir);
}

static void test_log_format__warnings_are_json_too(void **state) {
  (void)state;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("log-warn"));
  char in[4200];
  snprintf(in, sizeof in, "%s/in.ndjson", dir);
  const char *text = "{\"id\":1}\n{\"id\":\"x\"}\n{bad\n{\"id\":4}\n";
  assert_int_equal(tu_write_file(in, text, strlen(text)), 0);
  tu_result r;
  tu_sh(&r,
        "cd '%s' && '%s' parquet convert in.ndjson out.parquet --schema 'id long' --skip-bad "
        "--log-format json",
        dir, INLET_BIN);
  assert_int_equal(r.status, 0);
  json_t *a = json_lines(&r);
  assert_int_equal(json_array_size(a), 2);
  size_t i;
  json_t *j;
  json_array_foreach(a, i, j) {
    assert_string_equal(json_string_value(json_object_get(j, "level")), "warning");
    assert_string_equal(json_string_value(json_object_get(j, "event")), "bad_record");
    assert_string_equal(json_string_value(json_object_get(j, "command")), "parquet convert");
  }
  json_decref(a);
  tu_result_free(&r);
  tu_rmtree(dir);
}

/* A service log in JSON: ingest's start and end are events with their counts. */
static void test_log_format__ingest_events(void **state) {
  (void)state;
  char dir[4096], in[4200];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("log-ingest"));
  snprintf(in, sizeof in, "%s/in.ndjson", dir);
  const char *text = "{\"id\":1}\n{\"id\":2}\n{\"id\":\"x\"}\n";
  assert_int_equal(tu_write_file(in, text, strlen(text)), 0);
  tu_result r;
  tu_sh(&r,
        "cd '%s' && '%s' ingest t --source file:in.ndjson --once --create-schema 'id long' "
        "--log-format json",
        dir, INLET_BIN);
  assert_int_equal(r.status, 0);
  json_t *a = json_lines(&r);
  size_t i;
  json_t *j;
  bool started = false, finished = false;
  json_array_foreach(a, i, j) {
    const char *ev = json_string_value(json_object_get(j, "event"));
    assert_string_equal(json_string_value(json_object_get(j, "command")), "ingest");
    if (strcmp(ev, "ingest_started") == 0) started = true;
    if (strcmp(ev, "ingest_finished") == 0) {
      finished = true;
      assert_int_equal(json_integer_value(json_object_get(j, "rows")), 2);
      assert_int_equal(json_integer_value(json_object_get(j, "rejected")), 1);
      assert_int_equal(json_integer_value(json_object_get(j, "version")), 0);
    }
  }
  assert_true(started && finished);
  json_decref(a);
  tu_result_free(&r);
  tu_rmtree(dir);
}

static void test_log_format__text_by_default_and_bad_values_refused(void **state) {
  (void)state;
  tu_result r;
  tu_sh(&r, "'%s' scan /nonexistent-table-dir", INLET_BIN);
  assert_int_equal(r.status, 3);
  assert_int_equal(strncmp(r.err, "inlet: ", 7), 0);
  tu_result_free(&r);
  tu_sh(&r, "'%s' --log-format xml scan t", INLET_BIN);
  assert_int_equal(r.status, 2);
  assert_non_null(strstr(r.err, "--log-format: 'xml' is neither text nor json"));
  tu_result_free(&r);
  tu_sh(&r, "INLET_LOG_FORMAT=yaml '%s' scan t", INLET_BIN);
  assert_int_equal(r.status, 2);
  assert_non_null(strstr(r.err, "INLET_LOG_FORMAT"));
  tu_result_free(&r);
  /* Listed in --help. */
  tu_sh(&r, "'%s' --help", INLET_BIN);
  assert_non_null(strstr(r.out, "--log-format text|json"));
  tu_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_log_format__failure_is_one_json_line_with_its_exit_code),
      cmocka_unit_test(test_log_format__warnings_are_json_too),
      cmocka_unit_test(test_log_format__ingest_events),
      cmocka_unit_test(test_log_format__text_by_default_and_bad_values_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
