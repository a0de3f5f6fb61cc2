/*
 * The C example in README.md ("C API") is real: this test cuts the program
 * out of the README (between the readme-example markers), compiles it
 * against the public headers and the built libinlet, runs it, and checks
 * what it prints. A README edit that breaks the example fails here.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_readme__c_example_compiles_and_prints_the_filtered_rows(void **state) {
  (void)state;
  char path[4300];
  snprintf(path, sizeof path, "%s/README.md", INLET_SOURCE_DIR);
  size_t len;
  char *readme = tu_read_file(path, &len);
  assert_non_null(readme);
  char *begin = strstr(readme, "<!-- readme-example: begin -->");
  assert_non_null(begin);
  char *code = strstr(begin, "```c\n");
  assert_non_null(code);
  code += 5;
  char *end = strstr(code, "```\n<!-- readme-example: end -->");
  assert_non_null(end);
  const char *dir = tu_mkdtemp("readme");
  char src[4300];
  snprintf(src, sizeof src, "%s/example.c", dir);
  assert_int_equal(tu_write_file(src, code, (size_t)(end - code)), 0);
  free(readme);
  tu_result r;
  /* The library may be built with sanitizers: try with them first. */
  const char *flags[] = {"-fsanitize=address,undefined", ""};
  int status = -1;
  for (int i = 0; i < 2 && status != 0; i++) {
    tu_sh(&r,
          "cd '%s' && cc -std=c11 -Wall -Wextra -Werror %s -I'%s/include' -I'%s/include' "
          "example.c -o example -L'%s' -linlet -Wl,-rpath,'%s' 2>&1",
          dir, flags[i], INLET_SOURCE_DIR, INLET_BUILD_DIR, INLET_BUILD_DIR, INLET_BUILD_DIR);
    status = r.status;
    if (status != 0 && i == 1) fail_msg("example does not compile:\n%s", r.out);
    tu_result_free(&r);
  }
  tu_sh(&r, "cd '%s' && ./example t", dir);
  if (r.status != 0) fail_msg("example failed: %s%s", r.out, r.err);
  assert_string_equal(r.out, "bob 21.00\ncy 31.50\n");
  tu_result_free(&r);
  tu_rmtree(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_readme__c_example_compiles_and_prints_the_filtered_rows),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
