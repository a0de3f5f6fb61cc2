/*
 * Helpers shared by the checkpoint, log cleanup and version checksum tests:
 * copies of the foreign tables under tests/data, checkpoint contents as
 * DuckDB reads them (refcheck parquet), and digests of every byte of a
 * table to prove an operation changed nothing.
 */
#ifndef INLET_TEST_LOG_SUPPORT_H
#define INLET_TEST_LOG_SUPPORT_H

#include "testutil.h"

#include "inlet/inlet.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline void ls_sh_ok(tu_result *r, const char *what) {
  if (r->status != 0)
    fail_msg("%s: exit %d\nstdout: %s\nstderr: %s", what, r->status, r->out, r->err);
}

/* Runs a printf-style shell command and fails the test unless it exits 0. */
#define LS_SH_OK(what, ...)                                                                        \
  do {                                                                                             \
    tu_result ls_r_;                                                                               \
    tu_sh(&ls_r_, __VA_ARGS__);                                                                    \
    ls_sh_ok(&ls_r_, what);                                                                        \
    tu_result_free(&ls_r_);                                                                        \
  } while (0)

/* Copies table @p from of directory @p dir to @p to and damages its largest
 * data file at 45% and 75% of its bytes (200 bytes of 0xff each: two row
 * groups of a file of many fail to decode). */
static inline void ls_damaged_copy(const char *dir, const char *from, const char *to) {
  LS_SH_OK("copy", "cd '%s' && rm -rf '%s' && cp -r '%s' '%s'", dir, to, from, to);
  tu_result r;
  tu_sh(&r, "cd '%s' && ls -S '%s'/*.parquet | head -1", dir, to);
  assert_int_equal(r.status, 0);
  char path[4400];
  snprintf(path, sizeof path, "%s/%.*s", dir, (int)strcspn(r.out, "\n"), r.out);
  tu_result_free(&r);
  size_t n = 0;
  char *bytes = tu_read_file(path, &n);
  assert_non_null(bytes);
  assert_true(n > 100000);
  memset(bytes + n * 45 / 100, 0xff, 200);
  memset(bytes + n * 75 / 100, 0xff, 200);
  assert_int_equal(tu_write_file(path, bytes, n), 0);
  free(bytes);
}

/* Runs a printf-style shell command that must exit 0; its stdout (malloc'd). */
static inline char *ls_sh_out(const char *what, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline char *ls_sh_out(const char *what, const char *fmt, ...) {
  char *cmd = NULL;
  va_list ap;
  va_start(ap, fmt);
  assert_true(vasprintf(&cmd, fmt, ap) >= 0);
  va_end(ap);
  tu_result r;
  tu_sh(&r, "%s", cmd);
  if (r.status != 0)
    fail_msg("%s: `%s` exit %d\nstdout: %s\nstderr: %s", what, cmd, r.status, r.out, r.err);
  free(cmd);
  char *o = strdup(r.out);
  tu_result_free(&r);
  return o;
}

/* Appends one row per commit, ids [@p first, @p first + @p n), in this
 * process (a process per commit would make the setup minutes long under
 * the sanitizers). */
static inline void ls_append_range(const char *table, int first, int n) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  if (inlet_table_open(&t, table, &err) != 0) fail_msg("open %s: %s", table, inlet_errmsg(&err));
  inlet_schema s;
  if (inlet_schema_parse(&s, "id long, s string", &err) != 0) fail_msg("%s", inlet_errmsg(&err));
  for (int i = first; i < first + n; i++) {
    inlet_batch b;
    char txt[32];
    snprintf(txt, sizeof txt, "v%d", i);
    if (inlet_batch_init(&b, &s, &err) != 0 ||
        inlet_array_append_int(&b.columns[0], &s.fields[0], i, &err) != 0 ||
        inlet_array_append_bytes(&b.columns[1], &s.fields[1], txt, strlen(txt), &err) != 0)
      fail_msg("batch: %s", inlet_errmsg(&err));
    b.num_rows = 1;
    if (inlet_table_append(t, &b, 1, NULL, NULL, &err) != 0)
      fail_msg("append: %s", inlet_errmsg(&err));
    inlet_batch_reset(&b);
  }
  inlet_schema_reset(&s);
  inlet_table_free(t);
}

/* A scratch copy of tests/data/<rel>, as <tmp>/t; returns the table path
 * (static storage). */
static inline const char *ls_copy_table(const char *rel, const char *tag) {
  static char path[4200];
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp(tag));
  snprintf(path, sizeof path, "%s/t", dir);
  tu_result r;
  tu_sh(&r, "cp -R '%s/tests/data/%s' '%s'", INLET_SOURCE_DIR, rel, path);
  ls_sh_ok(&r, "copy test table");
  tu_result_free(&r);
  /* Foreign fixtures are trimmed (data files left out) and some break the
   * rules on purpose; the tests check what inlet does to them byte by byte. */
  tu_rules_exempt(path, "copy of a foreign test table");
  return path;
}

/* sha256 of every file under @p dir with its name, one line each: equal
 * digests mean not a byte was written, replaced or removed. */
static inline char *ls_digest(const char *dir) {
  tu_result r;
  tu_sh(&r, "cd '%s' && find . -type f | LC_ALL=C sort | xargs -r sha256sum", dir);
  ls_sh_ok(&r, "digest");
  char *out = strdup(r.out);
  tu_result_free(&r);
  return out;
}

/* Sets the mtime of everything under @p dir @p days in the past. */
static inline void ls_age(const char *dir, int days) {
  tu_result r;
  tu_sh(&r, "find '%s' -exec touch -h -d '@%lld' {} +", dir,
        (long long)time(NULL) - (long long)days * 86400);
  ls_sh_ok(&r, "age files");
  tu_result_free(&r);
}

/* The checkpoint/Parquet file as DuckDB reads it. */
static inline json_t *ls_parquet(const char *file) {
  tu_result r;
  tu_sh(&r, "'%s' '%s' parquet '%s'", INLET_NODE, INLET_REFCHECK, file);
  ls_sh_ok(&r, "refcheck parquet");
  json_error_t je;
  json_t *doc = json_loads(r.out, 0, &je);
  if (!doc) fail_msg("refcheck output is not JSON: %s", je.text);
  tu_result_free(&r);
  return doc;
}

/* Type string of column @p col, NULL when the file has none. */
static inline const char *ls_column_type(json_t *doc, const char *col) {
  size_t i;
  json_t *c;
  json_array_foreach(json_object_get(doc, "columns"), i, c) {
    if (strcmp(json_string_value(json_object_get(c, "name")), col) == 0)
      return json_string_value(json_object_get(c, "type"));
  }
  return NULL;
}

/* Drops the trailing Z of timestamps (Spark writes INT96, which DuckDB
 * reads without a zone; inlet writes UTC-adjusted INT64 micros). */
static inline void ls_norm_ts(json_t *v) {
  if (json_is_object(v)) {
    const char *k;
    json_t *x;
    json_object_foreach(v, k, x) {
      if (json_is_string(x)) {
        const char *s = json_string_value(x);
        size_t n = strlen(s);
        if (n == 27 && s[10] == 'T' && s[26] == 'Z') {
          char buf[32];
          memcpy(buf, s, 26);
          buf[26] = '\0';
          json_object_set_new(v, k, json_string(buf));
        }
      } else {
        ls_norm_ts(x);
      }
    }
  } else if (json_is_array(v)) {
    size_t i;
    json_t *x;
    json_array_foreach(v, i, x) ls_norm_ts(x);
  }
}

typedef void (*ls_edit_fn)(json_t *action);

static inline int ls_cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The non-null values of action column @p col, each edited by @p edit (may
 * be NULL) and dumped with sorted keys, sorted: two files hold the same
 * actions exactly when these lists are equal. Returns a JSON array. */
static inline json_t *ls_actions(json_t *doc, const char *col, ls_edit_fn edit) {
  json_t *cols = json_object_get(doc, "columns");
  size_t idx = (size_t)-1, i;
  json_t *c;
  json_array_foreach(cols, i, c) {
    if (strcmp(json_string_value(json_object_get(c, "name")), col) == 0) idx = i;
  }
  json_t *out = json_array();
  if (idx == (size_t)-1) return out;
  json_t *rows = json_object_get(doc, "rows");
  size_t n = json_array_size(rows), k = 0;
  char **v = calloc(n + 1, sizeof *v);
  json_array_foreach(rows, i, c) {
    json_t *a = json_array_get(c, idx);
    if (json_is_null(a)) continue;
    json_t *copy = json_deep_copy(a);
    if (edit) edit(copy);
    v[k++] = json_dumps(copy, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(copy);
  }
  qsort(v, k, sizeof *v, ls_cmp_str);
  for (size_t j = 0; j < k; j++) {
    json_array_append_new(out, json_string(v[j]));
    free(v[j]);
  }
  free(v);
  return out;
}

/* Fails with the first difference when two ls_actions lists differ. */
static inline void ls_assert_same(json_t *a, json_t *b, const char *what) {
  if (json_array_size(a) != json_array_size(b))
    fail_msg("%s: %zu actions vs %zu", what, json_array_size(a), json_array_size(b));
  for (size_t i = 0; i < json_array_size(a); i++) {
    const char *x = json_string_value(json_array_get(a, i));
    const char *y = json_string_value(json_array_get(b, i));
    if (strcmp(x, y) != 0) fail_msg("%s differ:\n  %s\n  %s", what, x, y);
  }
}

#endif
