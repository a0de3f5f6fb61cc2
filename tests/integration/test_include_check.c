/*
 * scripts/check-includes.sh, the module-boundary check that `make test`
 * runs: the source tree passes it, and each kind of violation planted in a
 * copy of the tree (another module's private header, a module to the right
 * in docs/ARCHITECTURE.md's dependency line, a sibling module, the CLI
 * reaching past the public API, a public header including an internal one,
 * a directory that is no module) fails it with exit 1 and a line naming the
 * file, the line and the rule.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

TU_SCRATCH_DIR("include-check")

static void test_include_check__source_tree_passes(void **state) {
  (void)state;
  tu_result r;
  tu_sh(&r, "'%s/scripts/check-includes.sh' '%s'", INLET_SOURCE_DIR, INLET_SOURCE_DIR);
  if (r.status != 0) fail_msg("check-includes failed on the tree:\n%s%s", r.out, r.err);
  assert_int_equal(r.out_len, 0);
  tu_result_free(&r);
}

/* Copies the tree, appends @p line to @p file (creating it), runs the check
 * and expects exit 1 with @p want in its report. */
static void expect_caught(const char *file, const char *line, const char *want) {
  tu_result r;
  tu_sh(&r,
        "rm -rf '%s/tree' && mkdir '%s/tree' && cp -R '%s/src' '%s/include' '%s/docs' "
        "'%s/tree/'",
        dir, dir, INLET_SOURCE_DIR, INLET_SOURCE_DIR, INLET_SOURCE_DIR, dir);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  tu_sh(&r, "mkdir -p \"$(dirname '%s/tree/%s')\" && printf '%%s\\n' '%s' >> '%s/tree/%s'", dir,
        file, line, dir, file);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  tu_sh(&r, "'%s/scripts/check-includes.sh' '%s/tree'", INLET_SOURCE_DIR, dir);
  if (r.status != 1 || !strstr(r.out, file) || !strstr(r.out, want) ||
      !strstr(r.out, "1 boundary violation"))
    fail_msg("planted '%s' in %s: status %d, report:\n%s%s(want exit 1 naming '%s')", line, file,
             r.status, r.out, r.err, want);
  tu_result_free(&r);
}

static void test_include_check__catches_planted_violations(void **state) {
  (void)state;
  expect_caught("src/stream/ingest.c", "#include \"delta/delta_table_int.h\"",
                "private header of module delta");
  expect_caught("src/scan/scan.c", "#include \"batch/text_int.h\"",
                "private header of module batch");
  expect_caught("src/delta/delta_table.c", "#include \"stream/stream.h\"",
                "module delta may include only modules to its left");
  expect_caught("src/maint/compact.c", "#include \"scan/scan_stats.h\"",
                "module maint may include only modules to its left");
  expect_caught("src/parquet/reader.c", "#include \"expr/expr.h\"",
                "module parquet may include only modules to its left");
  expect_caught("src/cli/main.c", "#include \"util/util.h\"",
                "src/cli uses only the public headers");
  expect_caught("include/inlet/table.h", "#include \"delta/delta.h\"",
                "the public headers include only public headers");
  expect_caught("src/gadget/gadget.c", "#include \"util/util.h\"",
                "directory src/gadget is not a module");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_include_check__source_tree_passes),
      cmocka_unit_test_setup_teardown(test_include_check__catches_planted_violations, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
