/*
 * Static linking sees only the API: scripts/check-symbols.sh finds no
 * global symbol beyond the declared inlet_ functions in libinlet.a or
 * libinlet.so, and a program that links libinlet.a statically while
 * defining functions named like inlet internals (delta_table_load,
 * text_parse_i64, inlet_fail) builds, runs and calls both its own
 * functions and the library's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static const char program[] =
    "#include <stdio.h>\n"
    "#include <inlet/inlet.h>\n"
    "int delta_table_load(void);\n"
    "int text_parse_i64(void);\n"
    "int inlet_fail(void);\n"
    "int delta_table_load(void) { return 1; }\n"
    "int text_parse_i64(void) { return 2; }\n"
    "int inlet_fail(void) { return 3; }\n"
    "int main(void) {\n"
    "  inlet_error err = INLET_ERROR_INIT;\n"
    "  inlet_schema s;\n"
    "  int rc = inlet_schema_parse(&s, \"id long, name string\", &err);\n"
    "  printf(\"own %d%d%d parse %d fields %d version %s\\n\", delta_table_load(),\n"
    "         text_parse_i64(), inlet_fail(), rc, rc == 0 ? (int)s.n_fields : -1,\n"
    "         inlet_version());\n"
    "  if (rc == 0) inlet_schema_reset(&s);\n"
    "  return rc != 0;\n"
    "}\n";

static void test_static_link__exports_only_the_api(void **state) {
  (void)state;
  tu_result r;
  tu_sh(&r, "'%s/scripts/check-symbols.sh' '%s' '%s'", INLET_SOURCE_DIR, INLET_BUILD_DIR,
        INLET_SOURCE_DIR);
  if (r.status != 0) fail_msg("check-symbols:\n%s%s", r.out, r.err);
  assert_non_null(strstr(r.out, "all public API"));
  tu_result_free(&r);

  char *base = tu_mkdtemp("static-link");
  char src[4300];
  snprintf(src, sizeof src, "%s/prog.c", base);
  assert_int_equal(tu_write_file(src, program, strlen(program)), 0);
  /* The library's dependencies as the build's inlet.pc lists them (Libs.private). */
  tu_sh(&r,
        "cd '%s' && '%s' %s -I'%s/include' -I'%s/include' -o prog prog.c '%s/libinlet.a' "
        "$(sed -n 's/^Libs.private: //p' '%s/inlet.pc') && ./prog",
        base, INLET_CC, INLET_SANITIZE_FLAGS, INLET_SOURCE_DIR, INLET_BUILD_DIR, INLET_BUILD_DIR,
        INLET_BUILD_DIR);
  if (r.status != 0) fail_msg("static link: %d\n%s%s", r.status, r.out, r.err);
  assert_non_null(strstr(r.out, "own 123 parse 0 fields 2 version "));
  tu_result_free(&r);
  tu_rmtree(base);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_static_link__exports_only_the_api),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
