/*
 * Shared helpers for tests: temporary directories, running the inlet binary
 * and refcheck, reading files. Paths to the binary, refcheck and the shared
 * test data come from compile definitions set in tests/CMakeLists.txt.
 */
#ifndef INLET_TESTUTIL_H
#define INLET_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "delta_rules.h"

/* Creates a fresh directory under the build tree's test scratch area and
 * returns its path (static storage per call, caller copies if needed). */
char *tu_mkdtemp(const char *tag);
/* Checks every Delta table below @p path against the protocol's rules
 * (delta_rules.h), then removes the tree; a rule violation fails the test
 * (after the removal, with the findings on stderr). Tables a test corrupts
 * on purpose are exempted with tu_rules_exempt(). Scratch directories still
 * there when the process exits are checked then. */
void tu_rmtree(const char *path);

/* A test file's scratch directory `dir`: made (tu_mkdtemp(tag)) by setup
 * before each test and removed by teardown after it. */
#define TU_SCRATCH_DIR(tag)                                                                        \
  static char dir[4096];                                                                           \
  static int setup(void **state) {                                                                 \
    (void)state;                                                                                   \
    char *d = tu_mkdtemp(tag);                                                                     \
    if (!d) return -1;                                                                             \
    snprintf(dir, sizeof dir, "%s", d);                                                            \
    return 0;                                                                                      \
  }                                                                                                \
  static int teardown(void **state) {                                                              \
    (void)state;                                                                                   \
    tu_rmtree(dir);                                                                                \
    return 0;                                                                                      \
  }

typedef struct tu_result {
  int status; /* exit status, or 128+signal */
  char *out;  /* malloc'd stdout, NUL-terminated */
  size_t out_len;
  char *err; /* malloc'd stderr */
  size_t err_len;
} tu_result;

/* Runs argv (argv[0] is the program path) with optional stdin text; captures
 * stdout and stderr. */
int tu_run(tu_result *res, const char *stdin_text, char *const argv[]);
/* printf-style shell command via /bin/sh -c. */
int tu_sh(tu_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tu_result_free(tu_result *res);

/* Terminal tests under tmux: polls the pane of the tmux server @p sock
 * (`tmux -L sock`) until it shows @p marker (at most 30 s), leaves the pane's
 * text in *screen, and kills the server. Returns whether the marker came. */
bool tu_tmux_wait(const char *sock, const char *marker, tu_result *screen);

/* Runs @p tests (as cmocka_run_group_tests would, without group fixtures)
 * in @p shards child processes at once, each taking the next test not yet
 * taken, so tests that mostly wait (on a mock broker's group timers, on
 * sessions expiring) overlap their waits. Each test must stand alone: its
 * own fixtures, scratch directory and servers. Every shard's output is
 * printed whole, in shard order, after all have ended. INLET_TEST_SHARDS
 * overrides @p shards (1 runs the tests in this process, in order).
 * Returns the number of tests that failed, as cmocka does. */
int tu_run_sharded(const char *group, const struct CMUnitTest *tests, size_t n, int shards);
#define TU_RUN_SHARDED(tests, shards)                                                              \
  tu_run_sharded(#tests, tests, sizeof(tests) / sizeof((tests)[0]), shards)

/* Reads a whole file into a malloc'd NUL-terminated buffer (NULL on error). */
char *tu_read_file(const char *path, size_t *len);
int tu_write_file(const char *path, const void *data, size_t len);

#endif
