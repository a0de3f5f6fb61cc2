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

/* `cmake --install` puts every piece where a user looks for it, and the man
 * page reads as text: `man -l` shows no roff markup, and every command
 * `inlet --help` lists has its place in it. */
static void test_install__every_piece_and_a_readable_man_page(void **state) {
  (void)state;
  char *base = tu_mkdtemp("install-man");
  tu_result r;
  tu_sh(&r, "'%s' --install '%s' --prefix '%s' >/dev/null", INLET_CMAKE, INLET_BUILD_DIR, base);
  if (r.status != 0) fail_msg("cmake --install: %s", r.err);
  tu_result_free(&r);
  static const char *const pieces[] = {"bin/inlet",
                                       "include/inlet/inlet.h",
                                       "include/inlet/version.h",
                                       "share/man/man1/inlet.1",
                                       "libinlet.so",
                                       "libinlet.a",
                                       "inlet.pc",
                                       "inletConfig.cmake",
                                       "inletConfigVersion.cmake",
                                       "inletTargets.cmake"};
  for (size_t i = 0; i < sizeof pieces / sizeof pieces[0]; i++) {
    tu_sh(&r, "cd '%s' && test -e '%s' || find . -name '%s' | grep -q .", base, pieces[i],
          pieces[i]);
    if (r.status != 0) fail_msg("installed tree lacks %s", pieces[i]);
    tu_result_free(&r);
  }
  tu_sh(&r, "command -v man");
  bool have_man = r.status == 0;
  tu_result_free(&r);
  if (!have_man) {
    tu_rmtree(base);
    skip(); /* Debian's man-db (scripts/install-deps.sh test) */
  }
  tu_sh(&r, "MANWIDTH=100 man -l -P cat '%s/share/man/man1/inlet.1'", base);
  if (r.status != 0) fail_msg("man -l: %d %s", r.status, r.err);
  assert_null(strstr(r.err, "warning"));
  assert_non_null(strstr(r.out, "NAME\n"));
  assert_non_null(strstr(r.out, "SYNOPSIS\n"));
  /* Roff that leaked: a request at the start of a line, a font or escape
   * sequence, a stray backslash-hyphen. */
  for (const char *line = r.out; line && *line;
       line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
    const char *p = line;
    while (*p == ' ')
      p++;
    if ((*p == '.' || *p == '\'') && p[1] >= 'A' && p[1] <= 'Z')
      fail_msg("roff request in man output: %.60s", line);
  }
  static const char *const leaks[] = {"\\f", "\\-", "\\(", "\\e", "\\&", ".TH ", ".SH "};
  for (size_t i = 0; i < sizeof leaks / sizeof leaks[0]; i++)
    if (strstr(r.out, leaks[i])) fail_msg("roff markup \"%s\" in man output", leaks[i]);
  /* Every command of `inlet --help` (two-space indented, then its name). */
  tu_result help;
  tu_sh(&help, "'%s/bin/inlet' --help", base);
  assert_int_equal(help.status, 0);
  int commands = 0;
  for (const char *line = help.out; line && *line;
       line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
    if (strncmp(line, "  ", 2) != 0 || line[2] < 'a' || line[2] > 'z') continue;
    char name[64];
    size_t n = 0;
    while (n + 1 < sizeof name && line[2 + n] >= 'a' && line[2 + n] <= 'z')
      name[n] = line[2 + n], n++;
    name[n] = '\0';
    char want[96];
    snprintf(want, sizeof want, " %s ", name);
    if (!strstr(r.out, want)) fail_msg("man page lacks command \"%s\"", name);
    commands++;
  }
  assert_true(commands >= 10);
  tu_result_free(&help);
  tu_result_free(&r);
  tu_rmtree(base);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_install__moved_tree_still_builds_and_reports_the_runtime_version),
      cmocka_unit_test(test_install__every_piece_and_a_readable_man_page),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
