/*
 * An installed inlet can be moved: `cmake --install` into one prefix, the
 * tree moved elsewhere, and pkg-config still finds the headers and library
 * in the new place (the .pc file is relative to ${pcfiledir}). A program
 * built from those flags reports, through inlet_version(), the version of
 * the library it runs with, which is the one the headers name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inlet/version.h"
#include "testutil.h"

static const char program[] =
    "#include <stdio.h>\n"
    "#include <string.h>\n"
    "#include <inlet/inlet.h>\n"
    "int main(void) {\n"
    "  printf(\"runtime %s headers %s number %d\\n\", inlet_version(), INLET_VERSION_STRING,\n"
    "         inlet_version_number());\n"
    "  return strcmp(inlet_version(), INLET_VERSION_STRING) != 0;\n"
    "}\n";

static void test_install__moved_tree_still_builds_and_reports_the_runtime_version(void **state) {
  (void)state;
  char *base = tu_mkdtemp("install");
  tu_result r;
  tu_sh(&r, "'%s' --install '%s' --prefix '%s/first' >/dev/null", INLET_CMAKE, INLET_BUILD_DIR,
        base);
  if (r.status != 0) fail_msg("cmake --install: %s", r.err);
  tu_result_free(&r);
  tu_sh(&r, "mv '%s/first' '%s/moved'", base, base);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);

  /* The .pc file names no absolute directory of the first prefix. */
  tu_sh(&r,
        "cd '%s/moved' && pc=$(find . -name inlet.pc) && test -n \"$pc\" && "
        "! grep -q '%s/first' \"$pc\" && grep '^prefix=' \"$pc\"",
        base, base);
  if (r.status != 0) fail_msg("inlet.pc: %s %s", r.out, r.err);
  assert_non_null(strstr(r.out, "${pcfiledir}"));
  tu_result_free(&r);

  tu_sh(&r,
        "cd '%s/moved' && PKG_CONFIG_PATH=\"$PWD/$(dirname $(find . -name inlet.pc))\" "
        "pkg-config --cflags --libs inlet",
        base);
  if (r.status != 0) fail_msg("pkg-config: %s", r.err);
  char want[4300];
  snprintf(want, sizeof want, "-I%s/moved/", base);
  if (!strstr(r.out, want)) fail_msg("pkg-config --cflags: '%s' lacks %s", r.out, want);
  snprintf(want, sizeof want, "-L%s/moved/", base);
  if (!strstr(r.out, want)) fail_msg("pkg-config --libs: '%s' lacks %s", r.out, want);
  tu_result_free(&r);

  char src[4300];
  snprintf(src, sizeof src, "%s/prog.c", base);
  assert_int_equal(tu_write_file(src, program, strlen(program)), 0);
  tu_sh(&r,
        "cd '%s/moved' && pcdir=\"$PWD/$(dirname $(find . -name inlet.pc))\" && "
        "libdir=$(PKG_CONFIG_PATH=$pcdir pkg-config --variable=libdir inlet) && "
        "'%s' %s -o ../prog ../prog.c $(PKG_CONFIG_PATH=$pcdir pkg-config --cflags --libs inlet) "
        "&& LD_LIBRARY_PATH=$libdir ../prog",
        base, INLET_CC, INLET_SANITIZE_FLAGS);
  if (r.status != 0) fail_msg("build/run against the moved tree: %d %s %s", r.status, r.out, r.err);
  char line[256];
  snprintf(line, sizeof line, "runtime %s headers %s number %d", INLET_VERSION_STRING,
           INLET_VERSION_STRING, INLET_VERSION_NUMBER);
  if (!strstr(r.out, line)) fail_msg("program printed '%s', want '%s'", r.out, line);
  tu_result_free(&r);

  /* The installed CLI reports the same run-time version. */
  tu_sh(&r, "'%s/moved/bin/inlet' --version", base);
  assert_int_equal(r.status, 0);
  snprintf(line, sizeof line, "inlet %s\n", INLET_VERSION_STRING);
  assert_string_equal(r.out, line);
  tu_result_free(&r);
  tu_rmtree(base);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_install__moved_tree_still_builds_and_reports_the_runtime_version),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
