/*
 * Conformance of the Parquet reader with Apache's parquet-testing files
 * (../shared/testdata/parquet-testing/data): every *.parquet file is read
 * with the real CLI (`inlet parquet cat FILE --format ndjson`) and compared,
 * row by row and in file order, with DuckDB's reading of the same file
 * (`refcheck parquet`, `refcheck compare --ndjson --ordered`), unless
 * parquet_expect_unsupported.txt says otherwise for that file:
 *
 *   FILE unsupported TEXT  inlet must fail, its message containing "not
 *                          supported" and TEXT (the feature). The next
 *                          Parquet issue empties these entries.
 *   FILE error TEXT        inlet must fail with a message containing TEXT
 *                          (files that are invalid on purpose).
 *   FILE rows N REASON     inlet must read N rows; DuckDB is not a usable
 *                          reference for this file (refcheck README "Limits").
 *   FILE same-as OTHER     DuckDB cannot read FILE, but OTHER holds the same
 *                          data (e.g. LZ4 Hadoop vs LZ4_RAW): compare FILE's
 *                          rows with DuckDB's reading of OTHER.
 *   FILE pairs-equal       DuckDB cannot read FILE; in every row, each column
 *                          X_plain must equal X_byte_stream_split.
 *   FILE expected JSON     DuckDB cannot read FILE; compare with the rows in
 *                          tests/integration/JSON, written by hand from the
 *                          file's documentation.
 *
 * *.encrypted files must fail with a message saying "encrypted". Where a
 * *_expect.csv exists it is compared too (values as text, empty = null).
 */
#include <dirent.h>
#include <stdbool.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "testutil.h"

#define DATA_DIR INLET_TESTDATA "/parquet-testing/data"
#define EXPECT_FILE INLET_SOURCE_DIR "/tests/integration/parquet_expect_unsupported.txt"

typedef struct expectation {
  char file[256];
  char kind[32];
  char text[512];
} expectation;

static expectation g_expect[256];
static int g_n_expect;

static void load_expectations(void) {
  size_t len;
  char *text = tu_read_file(EXPECT_FILE, &len);
  assert_non_null(text);
  char *save = NULL;
  for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    while (*line == ' ')
      line++;
    if (*line == '#' || *line == '\0') continue;
    expectation *e = &g_expect[g_n_expect];
    int used = 0;
    if (sscanf(line, "%255s %31s %n", e->file, e->kind, &used) < 2) continue;
    snprintf(e->text, sizeof e->text, "%s", line + used);
    assert_true(++g_n_expect < (int)(sizeof g_expect / sizeof g_expect[0]));
  }
  free(text);
}

static const expectation *find_expectation(const char *file) {
  for (int i = 0; i < g_n_expect; i++)
    if (strcmp(g_expect[i].file, file) == 0) return &g_expect[i];
  return NULL;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names in DATA_DIR ending in @p suffix (caller frees). */
static char **list_files(const char *suffix, int *n) {
  DIR *d = opendir(DATA_DIR);
  assert_non_null(d);
  char **names = NULL;
  int count = 0;
  size_t sl = strlen(suffix);
  struct dirent *de;
  while ((de = readdir(d))) {
    size_t l = strlen(de->d_name);
    if (l < sl || strcmp(de->d_name + l - sl, suffix) != 0) continue;
    names = realloc(names, sizeof *names * (size_t)(count + 1));
    names[count++] = strdup(de->d_name);
  }
  closedir(d);
  qsort(names, (size_t)count, sizeof *names, cmp_str);
  *n = count;
  return names;
}

/* Runs the CLI on @p path, output to @p out_path. */
static int inlet_cat(tu_result *res, const char *path, const char *out_path) {
  return tu_sh(res, "'%s' parquet cat '%s' --format ndjson > '%s'", INLET_BIN, path, out_path);
}

static bool contains_ci(const char *hay, const char *needle) {
  return strcasestr(hay, needle) != NULL;
}

/* ---- *_expect.csv ------------------------------------------------------- */

/* Splits one CSV record (RFC 4180 quoting) into fields; returns count.
 * Unquoted empty fields are null (NULL). */
static int csv_split(char *line, char **fields, int max) {
  int n = 0;
  char *p = line;
  while (n < max) {
    if (*p == '"') {
      char *w = ++p, *start = p;
      while (*p) {
        if (*p == '"' && p[1] == '"') {
          *w++ = '"';
          p += 2;
        } else if (*p == '"') {
          p++;
          break;
        } else {
          *w++ = *p++;
        }
      }
      char *after = p;
      *w = '\0';
      fields[n++] = start;
      p = after;
      if (*p == ',')
        p++;
      else
        break;
    } else {
      char *start = p;
      while (*p && *p != ',' && *p != '\r')
        p++;
      char c = *p;
      *p = '\0';
      fields[n++] = (p == start) ? NULL : start;
      if (c == ',')
        p++;
      else
        break;
    }
  }
  return n;
}

/* The JSON value as the text the CSV files use. */
static void json_as_text(json_t *v, char *out, size_t cap) {
  if (json_is_string(v))
    snprintf(out, cap, "%s", json_string_value(v));
  else if (json_is_integer(v))
    snprintf(out, cap, "%lld", (long long)json_integer_value(v));
  else if (json_is_real(v))
    snprintf(out, cap, "%.17g", json_real_value(v));
  else if (json_is_true(v))
    snprintf(out, cap, "true");
  else if (json_is_false(v))
    snprintf(out, cap, "false");
  else
    out[0] = '\0';
}

/* Compares the CLI's ndjson with FILE_expect.csv by position. Returns the
 * number of differences (printed). */
static int compare_expect_csv(const char *csv_path, const char *ndjson_path) {
  size_t clen, nlen;
  char *csv = tu_read_file(csv_path, &clen), *nd = tu_read_file(ndjson_path, &nlen);
  if (!csv || !nd) {
    free(csv);
    free(nd);
    printf("  cannot read %s or %s\n", csv_path, ndjson_path);
    return 1;
  }
  int diffs = 0, row = 0;
  char *cs = NULL, *ns = NULL;
  char *cline = strtok_r(csv, "\n", &cs); /* header */
  char *nline = strtok_r(nd, "\n", &ns);
  for (cline = strtok_r(NULL, "\n", &cs); cline && diffs < 5;
       cline = strtok_r(NULL, "\n", &cs), nline = strtok_r(NULL, "\n", &ns), row++) {
    if (!nline) {
      printf("  %s: inlet has fewer rows than the CSV (%d)\n", csv_path, row);
      diffs++;
      break;
    }
    char *fields[512];
    int nf = csv_split(cline, fields, 512);
    json_error_t je;
    json_t *obj = json_loads(nline, 0, &je);
    if (!json_is_object(obj) || (int)json_object_size(obj) != nf) {
      printf("  %s row %d: %d CSV fields, ndjson line has %d keys\n", csv_path, row, nf,
             obj ? (int)json_object_size(obj) : -1);
      json_decref(obj);
      diffs++;
      continue;
    }
    int i = 0;
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
      char text[4096];
      json_as_text(v, text, sizeof text);
      bool is_null = json_is_null(v);
      if ((fields[i] == NULL) != is_null || (!is_null && strcmp(fields[i], text) != 0)) {
        printf("  %s row %d column %s: CSV %s, inlet %s\n", csv_path, row, key,
               fields[i] ? fields[i] : "(null)", is_null ? "(null)" : text);
        diffs++;
      }
      i++;
    }
    json_decref(obj);
  }
  if (diffs == 0 && nline && (nline = strtok_r(NULL, "\n", &ns))) {
    printf("  %s: inlet has more rows than the CSV\n", csv_path);
    diffs++;
  }
  free(csv);
  free(nd);
  return diffs;
}

/* Counts rows where a column X_plain differs from X_byte_stream_split. */
static int pairs_equal(const char *ndjson_path) {
  size_t len;
  char *nd = tu_read_file(ndjson_path, &len);
  if (!nd) return 1;
  int bad = 0, pairs = 0;
  char *save = NULL;
  for (char *line = strtok_r(nd, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    json_error_t je;
    json_t *obj = json_loads(line, 0, &je);
    if (!obj) {
      bad++;
      continue;
    }
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
      size_t kl = strlen(key);
      if (kl < 6 || strcmp(key + kl - 6, "_plain") != 0) continue;
      char other[512];
      snprintf(other, sizeof other, "%.*s_byte_stream_split", (int)(kl - 6), key);
      json_t *w = json_object_get(obj, other);
      pairs++;
      if (!w || !json_equal(v, w)) bad++;
    }
    json_decref(obj);
  }
  free(nd);
  return pairs ? bad : 1;
}

/* ---- the tests ------------------------------------------------------------ */

static int check_file(const char *dir, const char *name) {
  char path[1024], expected[1024], actual[1024];
  snprintf(path, sizeof path, "%s/%s", DATA_DIR, name);
  snprintf(expected, sizeof expected, "%s/%s.expected.json", dir, name);
  snprintf(actual, sizeof actual, "%s/%s.ndjson", dir, name);
  const expectation *e = find_expectation(name);
  tu_result res;
  inlet_cat(&res, path, actual);
  int failures = 0;
  if (e && (strcmp(e->kind, "unsupported") == 0 || strcmp(e->kind, "error") == 0)) {
    bool unsupported = strcmp(e->kind, "unsupported") == 0;
    if (res.status == 0) {
      printf("FAIL %s: expected an error (%s), but it was read\n", name, e->text);
      failures++;
    } else if (!contains_ci(res.err, e->text) || !contains_ci(res.err, name) ||
               (unsupported && !contains_ci(res.err, "not supported"))) {
      printf("FAIL %s: expected %s \"%s\" naming the file, got: %s", name, e->kind, e->text,
             res.err);
      failures++;
    } else {
      printf("ok   %s (%s: %s)\n", name, e->kind, e->text);
    }
    tu_result_free(&res);
    return failures;
  }
  if (res.status != 0) {
    printf("FAIL %s: inlet exited %d: %s\n", name, res.status, res.err);
    tu_result_free(&res);
    return 1;
  }
  tu_result_free(&res);
  if (e && strcmp(e->kind, "pairs-equal") == 0) {
    int bad = pairs_equal(actual);
    if (bad) {
      printf("FAIL %s: %d differing X_plain / X_byte_stream_split pairs\n", name, bad);
      return 1;
    }
    printf("ok   %s (pairs equal)\n", name);
  } else if (e && strcmp(e->kind, "rows") == 0) {
    long want = strtol(e->text, NULL, 10);
    size_t len;
    char *out = tu_read_file(actual, &len);
    long lines = 0;
    for (size_t i = 0; out && i < len; i++)
      lines += out[i] == '\n';
    free(out);
    if (lines != want) {
      printf("FAIL %s: expected %ld rows, got %ld\n", name, want, lines);
      return 1;
    }
    printf("ok   %s (%ld rows; %s)\n", name, lines, e->text);
  } else {
    char ref[1024];
    if (e && strcmp(e->kind, "same-as") == 0)
      snprintf(ref, sizeof ref, "%s/%s", DATA_DIR, e->text);
    else
      snprintf(ref, sizeof ref, "%s", path);
    if (e && strcmp(e->kind, "expected") == 0)
      tu_sh(&res, "cp '%s/tests/integration/%s' '%s'", INLET_SOURCE_DIR, e->text, expected);
    else
      tu_sh(&res, "'%s' '%s' parquet '%s' > '%s'", INLET_NODE, INLET_REFCHECK, ref, expected);
    if (res.status != 0) {
      printf("FAIL %s: refcheck parquet exited %d (add an expectation): %s%s\n", name, res.status,
             res.out, res.err);
      tu_result_free(&res);
      return 1;
    }
    tu_result_free(&res);
    tu_sh(&res, "'%s' '%s' compare '%s' '%s' --ndjson --ordered", INLET_NODE, INLET_REFCHECK,
          expected, actual);
    if (res.status != 0) {
      printf("FAIL %s: differs from DuckDB:\n%s%s", name, res.out, res.err);
      failures++;
    } else {
      printf("ok   %s\n", name);
    }
    tu_result_free(&res);
  }
  /* FILE.parquet -> FILE_expect.csv */
  char csv[1024];
  snprintf(csv, sizeof csv, "%s/%.*s_expect.csv", DATA_DIR, (int)(strlen(name) - 8), name);
  FILE *f = fopen(csv, "r");
  if (f) {
    fclose(f);
    int d = compare_expect_csv(csv, actual);
    if (d) {
      printf("FAIL %s: %d differences from %s\n", name, d, csv);
      failures++;
    } else {
      printf("ok   %s matches its _expect.csv\n", name);
    }
  }
  return failures;
}

static void test_conformance__every_file_reads_like_duckdb_or_is_expected(void **state) {
  (void)state;
  load_expectations();
  char *dir = strdup(tu_mkdtemp("pq-conformance"));
  int n, failures = 0;
  char **names = list_files(".parquet", &n);
  assert_true(n > 50);
  for (int i = 0; i < n; i++) {
    failures += check_file(dir, names[i]);
    free(names[i]);
  }
  free(names);
  /* Every expectation must name an existing file, so stale entries show. */
  for (int i = 0; i < g_n_expect; i++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", DATA_DIR, g_expect[i].file);
    FILE *f = fopen(path, "rb");
    if (!f) {
      printf("FAIL expectation for missing file %s\n", g_expect[i].file);
      failures++;
    } else {
      fclose(f);
    }
  }
  printf("%d failure(s)\n", failures);
  tu_rmtree(dir);
  free(dir);
  assert_int_equal(failures, 0);
}

static void test_conformance__encrypted_files_say_encrypted(void **state) {
  (void)state;
  int n, failures = 0;
  char **names = list_files(".parquet.encrypted", &n);
  assert_true(n > 0);
  for (int i = 0; i < n; i++) {
    tu_result res;
    tu_sh(&res, "'%s' parquet cat '%s/%s' --format ndjson > /dev/null", INLET_BIN, DATA_DIR,
          names[i]);
    if (res.status == 0 || !contains_ci(res.err, "encrypted") || !contains_ci(res.err, names[i])) {
      printf("FAIL %s: exit %d, stderr: %s", names[i], res.status, res.err);
      failures++;
    }
    tu_result_free(&res);
    free(names[i]);
  }
  free(names);
  assert_int_equal(failures, 0);
}

/* Spark's Delta checkpoints are nested Parquet (add/remove/metaData structs
 * with maps and lists): each must read as DuckDB reads it. */
static void test_conformance__delta_checkpoints_read_like_duckdb(void **state) {
  (void)state;
  tu_result res;
  tu_sh(&res, "find '%s/delta-golden' -name '*.checkpoint*.parquet' | sort", INLET_TESTDATA);
  assert_int_equal(res.status, 0);
  char *dir = strdup(tu_mkdtemp("pq-checkpoints"));
  int n = 0, failures = 0;
  char *save = NULL;
  for (char *f = strtok_r(res.out, "\n", &save); f; f = strtok_r(NULL, "\n", &save), n++) {
    tu_result r1, r2, r3;
    tu_sh(&r1, "'%s' '%s' parquet '%s' > '%s/e.json'", INLET_NODE, INLET_REFCHECK, f, dir);
    tu_sh(&r2, "'%s' parquet cat '%s' --format ndjson > '%s/a.ndjson'", INLET_BIN, f, dir);
    tu_sh(&r3, "'%s' '%s' compare '%s/e.json' '%s/a.ndjson' --ndjson --ordered", INLET_NODE,
          INLET_REFCHECK, dir, dir);
    if (r1.status != 0 || r2.status != 0 || r3.status != 0) {
      printf("FAIL %s: refcheck %d, inlet %d (%s), compare %d: %s\n", f, r1.status, r2.status,
             r2.err, r3.status, r3.out);
      failures++;
    }
    tu_result_free(&r1);
    tu_result_free(&r2);
    tu_result_free(&r3);
  }
  tu_result_free(&res);
  tu_rmtree(dir);
  free(dir);
  assert_true(n >= 5);
  assert_int_equal(failures, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_conformance__every_file_reads_like_duckdb_or_is_expected),
      cmocka_unit_test(test_conformance__encrypted_files_say_encrypted),
      cmocka_unit_test(test_conformance__delta_checkpoints_read_like_duckdb),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
