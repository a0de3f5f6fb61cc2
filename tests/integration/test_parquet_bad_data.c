/*
 * The Parquet reader on parquet-testing's bad_data/ files (hostile or
 * broken files reported against other implementations; see that folder's
 * README.md). Each is read in-process through the public API (so ASan and
 * UBSan watch every byte the decoder touches) and with the CLI; each must
 * either fail with a message naming the file, or, for the few whose data is
 * in fact valid, read completely. The verdict for every file is stated and
 * explained below; a file added to the folder without a verdict fails the
 * test.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "inlet/parquet.h"
#include "testutil.h"

#define BAD_DIR INLET_TESTDATA "/parquet-testing/bad_data"

typedef struct verdict {
  const char *file;
  bool must_fail;
  const char *text; /* must_fail: expected words in the message */
} verdict;

static const verdict g_verdicts[] = {
    /* A SchemaElement's thrift value is corrupted (an unknown physical
     * type): the footer is refused. */
    {"PARQUET-1481.parquet", true, "footer"},
    /* Dictionary page header with a negative num_values; the file is also
     * cut short, so the column chunk ranges already fail at open. */
    {"ARROW-RS-GH-6229-DICTHEADER.parquet", true, "column \"name\""},
    /* A page with fewer repetition levels than values; its header also
     * claims more levels than the whole column chunk has. */
    {"ARROW-RS-GH-6229-LEVELS.parquet", true, "levels"},
    /* Decoded levels fewer than the page's num_values: the level runs end
     * early. */
    {"ARROW-GH-41321.parquet", true, "RLE/bit-packed"},
    /* Columns of different lengths in one row group; its footer is also
     * malformed thrift, which is where inlet stops. */
    {"ARROW-GH-41317.parquet", true, "footer"},
    /* Dictionary indices with bit width 0: every index is 0, which is a
     * valid (if odd) encoding; DuckDB reads the file too, so it must read. */
    {"ARROW-GH-43605.parquet", false, NULL},
    /* Repetition levels starting with 1: a record cannot continue before
     * it started. */
    {"ARROW-GH-45185.parquet", true, "first repetition level"},
    /* A REQUIRED column whose pages contain nulls (definition levels on a
     * column whose max definition level is 0 make values go missing). */
    {"ARROW-GH-47662.parquet", true, "column \"flba_field\""},
};

static const verdict *find_verdict(const char *name) {
  for (size_t i = 0; i < sizeof g_verdicts / sizeof g_verdicts[0]; i++)
    if (strcmp(g_verdicts[i].file, name) == 0) return &g_verdicts[i];
  return NULL;
}

/* Opens and reads every row group; returns the first error code (0 if all
 * read) with the message in @p err. */
static int read_all(const char *path, int64_t *rows, inlet_error *err) {
  inlet_parquet_reader *r = NULL;
  int rc = inlet_parquet_reader_open(&r, path, NULL, err);
  *rows = 0;
  if (rc < 0) return rc;
  inlet_batch b;
  memset(&b, 0, sizeof b);
  for (int32_t g = 0; g < inlet_parquet_reader_num_row_groups(r) && rc == 0; g++) {
    rc = inlet_parquet_reader_read_row_group(r, g, &b, err);
    if (rc == 0) {
      assert_int_equal(inlet_batch_validate(&b, NULL), 0);
      *rows += b.num_rows;
    }
  }
  inlet_batch_reset(&b);
  inlet_parquet_reader_free(r);
  return rc;
}

static void test_bad_data__each_file_fails_clearly_or_is_valid(void **state) {
  (void)state;
  DIR *d = opendir(BAD_DIR);
  assert_non_null(d);
  struct dirent *de;
  int failures = 0, seen = 0;
  while ((de = readdir(d))) {
    size_t l = strlen(de->d_name);
    if (l < 8 || strcmp(de->d_name + l - 8, ".parquet") != 0) continue;
    seen++;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", BAD_DIR, de->d_name);
    const verdict *v = find_verdict(de->d_name);
    if (!v) {
      printf("FAIL %s: no verdict in this test\n", de->d_name);
      failures++;
      continue;
    }
    inlet_error err = INLET_ERROR_INIT;
    int64_t rows;
    int rc = read_all(path, &rows, &err);
    if (v->must_fail) {
      if (rc == 0) {
        printf("FAIL %s: read %lld rows, expected an error\n", de->d_name, (long long)rows);
        failures++;
      } else if (!strstr(err.message, de->d_name) || !strcasestr(err.message, v->text) ||
                 rc == INLET_EINTERNAL) {
        printf("FAIL %s: error does not name the file or say \"%s\": %s\n", de->d_name, v->text,
               err.message);
        failures++;
      } else {
        printf("ok   %s: %s (%s)\n", de->d_name, inlet_strerror(rc), err.message);
      }
    } else if (rc != 0) {
      printf("FAIL %s: expected to read, got %s\n", de->d_name, err.message);
      failures++;
    } else {
      printf("ok   %s: read %lld rows\n", de->d_name, (long long)rows);
    }
    /* The CLI must agree and exit cleanly (no signal). */
    tu_result res;
    tu_sh(&res, "'%s' parquet cat '%s' --format ndjson > /dev/null", INLET_BIN, path);
    if (res.status >= 128 || (v->must_fail ? res.status == 0 : res.status != 0) ||
        (v->must_fail && !strstr(res.err, de->d_name))) {
      printf("FAIL %s: CLI exit %d, stderr: %s\n", de->d_name, res.status, res.err);
      failures++;
    }
    tu_result_free(&res);
  }
  closedir(d);
  assert_int_equal(seen, (int)(sizeof g_verdicts / sizeof g_verdicts[0]));
  assert_int_equal(failures, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bad_data__each_file_fails_clearly_or_is_valid),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
