/*
 * `inlet scan` and `inlet changes` on a terminal (issue 19 §3): column widths
 * fitted to the terminal and the data in display columns (CJK and emoji
 * take two, combining marks none), cuts marked with "…", null as "∅", the
 * 50-row cap with its footer counting the rest exactly, --all and --limit,
 * and a pipe's output left as it was. The terminal is faked with
 * INLET_FORCE_TTY=1 and COLUMNS; one test runs scan in a real
 * pseudo-terminal under tmux. Every expected line is written out by hand.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct fixture {
  char dir[4096];
} fixture;

static void sh_ok(tu_result *r, const char *what) {
  if (r->status != 0)
    fail_msg("%s: exit %d\nstdout: %s\nstderr: %s", what, r->status, r->out, r->err);
}

static void run_ok(fixture *f, tu_result *r, const char *cmd) {
  tu_sh(r, "cd '%s' && %s", f->dir, cmd);
  sh_ok(r, cmd);
}

/* "0123456789" five times then ten CJK characters: 50 + 20 columns. */
#define LONG_NOTE                                                                                  \
  "01234567890123456789012345678901234567890123456789"                                             \
  "日本語のテキストです"

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  snprintf(f->dir, sizeof f->dir, "%s", tu_mkdtemp("scan-term"));
  char p[4300];
  /* u: city holds CJK, Latin with a precomposed and a combining accent; note emoji and a
   * long value; row 2's note is null. */
  const char *rows = "{\"id\":1,\"city\":\"東京\",\"note\":\"🍣 sushi\"}\n"
                     "{\"id\":2,\"city\":\"Zu\xcc\x88rich\",\"note\":null}\n"
                     "{\"id\":3,\"city\":\"서울특별시\",\"note\":\"" LONG_NOTE "\"}\n";
  snprintf(p, sizeof p, "%s/u.ndjson", f->dir);
  assert_int_equal(tu_write_file(p, rows, strlen(rows)), 0);
  /* n: 1234 rows, for the cap; ids 1..1234 in order (one file). */
  snprintf(p, sizeof p, "%s/n.ndjson", f->dir);
  FILE *nf = fopen(p, "w");
  assert_non_null(nf);
  for (int i = 1; i <= 1234; i++)
    fprintf(nf, "{\"id\":%d}\n", i);
  fclose(nf);
  tu_result r;
  tu_sh(&r,
        "cd '%s' && '%s' create u --schema 'id long, city string, note string' >/dev/null && "
        "'%s' append u u.ndjson >/dev/null && '%s' create n --schema 'id long' "
        "--property delta.enableChangeDataFeed=true >/dev/null && '%s' append n n.ndjson "
        ">/dev/null",
        f->dir, INLET_BIN, INLET_BIN, INLET_BIN, INLET_BIN);
  sh_ok(&r, "create + append");
  tu_result_free(&r);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  tu_rmtree(f->dir);
  free(f);
  return 0;
}

static void scan_at(fixture *f, tu_result *r, int columns, const char *args) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "INLET_FORCE_TTY=1 COLUMNS=%d '%s' scan %s", columns, INLET_BIN, args);
  run_ok(f, r, cmd);
}

/* The rule under a header of columns @p a, @p b and @p c wide (c 0: two columns). */
static const char *rule3(int a, int b, int c) {
  static char buf[512];
  size_t k = 0;
  int w[3] = {a, b, c};
  for (int i = 0; i < 3 && w[i]; i++) {
    if (i) k += (size_t)snprintf(buf + k, sizeof buf - k, "-+-");
    for (int j = 0; j < w[i]; j++)
      buf[k++] = '-';
  }
  buf[k] = '\0';
  return buf;
}

/* 80 columns: id (2) + city (10: 서울특별시) + separators (6) leave 62 for
 * note, whose 70 columns are cut after 50 digits and 5 CJK characters
 * (60 columns; a sixth would pass 61) plus "…". Zürich's combining diaeresis
 * takes no column, so its padding is that of six letters. */
static void test_scan_terminal__cjk_emoji_at_80(void **state) {
  fixture *f = *state;
  tu_result r;
  scan_at(f, &r, 80, "u");
  char want[4096];
  snprintf(want, sizeof want,
           "id | city       | note\n"
           "%s\n"
           " 1 | 東京       | 🍣 sushi\n"
           " 2 | Zu\xcc\x88rich     | ∅\n"
           " 3 | 서울특별시 | 01234567890123456789012345678901234567890123456789日本語のテ…\n",
           rule3(2, 10, 62));
  assert_string_equal(r.out, want);
  tu_result_free(&r);
}

/* 200 columns: nothing to cut; note is as wide as its longest value (70). */
static void test_scan_terminal__cjk_emoji_at_200(void **state) {
  fixture *f = *state;
  tu_result r;
  scan_at(f, &r, 200, "u");
  char want[4096];
  snprintf(want, sizeof want,
           "id | city       | note\n"
           "%s\n"
           " 1 | 東京       | 🍣 sushi\n"
           " 2 | Zu\xcc\x88rich     | ∅\n"
           " 3 | 서울특별시 | " LONG_NOTE "\n",
           rule3(2, 10, 70));
  assert_string_equal(r.out, want);
  tu_result_free(&r);
}

/* 24 columns: city + note may take 16. The widest column loses a column at
 * a time: note 70 → 10 (tied with city, 28 in all), then city (the first of
 * a tie) and note take turns: 9/10, 9/9, 8/9, 8/8 = 24. id (2) stays, below
 * its floor of 6. 서울특별시 is cut at a character boundary: three
 * characters (6 columns) + "…" = 7, padded to 8. */
static void test_scan_terminal__narrow_shrinks_widest_first(void **state) {
  fixture *f = *state;
  tu_result r;
  scan_at(f, &r, 24, "u");
  char want[4096];
  snprintf(want, sizeof want,
           "id | city     | note\n"
           "%s\n"
           " 1 | 東京     | 🍣 sushi\n"
           " 2 | Zu\xcc\x88rich   | ∅\n"
           " 3 | 서울특…  | 0123456…\n",
           rule3(2, 8, 8));
  assert_string_equal(r.out, want);
  tu_result_free(&r);
}

/* The cap: 50 rows, then a footer with the exact rest, thousands separated;
 * with --where the count is of the matching rows only. */
static void test_scan_terminal__cap_footer_all_limit(void **state) {
  fixture *f = *state;
  tu_result r;
  scan_at(f, &r, 80, "n");
  /* Widths come from the rows shown: 1..50 take two columns. */
  char want[8192] = "id\n--\n";
  for (int i = 1; i <= 50; i++)
    snprintf(want + strlen(want), sizeof want - strlen(want), "%2d\n", i);
  strcat(want, "… 1,184 more rows; --limit N or --all\n");
  assert_string_equal(r.out, want);
  tu_result_free(&r);

  scan_at(f, &r, 80, "n --where 'id > 1183'");
  strcpy(want, "id\n----\n");
  for (int i = 1184; i <= 1233; i++)
    snprintf(want + strlen(want), sizeof want - strlen(want), "%4d\n", i);
  strcat(want, "… 1 more row; --limit N or --all\n");
  assert_string_equal(r.out, want);
  tu_result_free(&r);

  /* --limit N replaces the cap: no footer. */
  scan_at(f, &r, 80, "n --limit 3");
  assert_string_equal(r.out, "id\n--\n 1\n 2\n 3\n");
  tu_result_free(&r);

  /* --all: every row, the last one 1234, no footer. */
  scan_at(f, &r, 80, "n --all");
  assert_non_null(strstr(r.out, "\n1234\n"));
  assert_null(strstr(r.out, "more row"));
  int lines = 0;
  for (const char *c = r.out; *c; c++)
    lines += *c == '\n';
  assert_int_equal(lines, 2 + 1234);
  tu_result_free(&r);

  /* --all and --limit together are a usage error. */
  tu_sh(&r, "cd '%s' && '%s' scan n --all --limit 2", f->dir, INLET_BIN);
  assert_int_equal(r.status, 2);
  tu_result_free(&r);

  /* changes shares the output: capped on a terminal, --all lifts it. */
  run_ok(f, &r,
         "INLET_FORCE_TTY=1 COLUMNS=120 '" INLET_BIN
         "' changes n --from 1 --columns id,_change_type");
  assert_non_null(strstr(r.out, "… 1,184 more rows; --limit N or --all\n"));
  tu_result_free(&r);
  run_ok(f, &r,
         "INLET_FORCE_TTY=1 COLUMNS=120 '" INLET_BIN
         "' changes n --from 1 --columns id,_change_type --all | tail -n 1");
  assert_string_equal(r.out, "1234 | insert\n");
  tu_result_free(&r);
}

/* A pipe keeps today's output: NDJSON by default, every row; --format table
 * uncapped, without the terminal's "…" and "∅". */
static void test_scan_terminal__pipe_unchanged(void **state) {
  fixture *f = *state;
  tu_result r;
  run_ok(f, &r, "'" INLET_BIN "' scan n | wc -l");
  assert_string_equal(r.out, "1234\n");
  tu_result_free(&r);
  run_ok(f, &r, "'" INLET_BIN "' scan n --limit 2");
  assert_string_equal(r.out, "{\"id\":1}\n{\"id\":2}\n");
  tu_result_free(&r);
  run_ok(f, &r, "COLUMNS=20 '" INLET_BIN "' scan n --format table | tail -n 2");
  assert_string_equal(r.out, "1233\n1234\n");
  tu_result_free(&r);
  /* Cells are cut at 48 columns (45 + "..."), whatever COLUMNS says. */
  run_ok(f, &r, "COLUMNS=20 '" INLET_BIN "' scan u --format table --columns note,id");
  char want[4096];
  snprintf(want, sizeof want,
           "note%44s | id\n"
           "%s\n"
           "🍣 sushi%40s |  1\n"
           "NULL%44s |  2\n"
           "012345678901234567890123456789012345678901234... |  3\n",
           "", rule3(48, 2, 0), "", "");
  assert_string_equal(r.out, want);
  tu_result_free(&r);
}

/* Runs `scan u` and a capped `scan n` in a real pseudo-terminal: a tmux
 * pane @p width columns wide (no COLUMNS, no INLET_FORCE_TTY: the width
 * comes from TIOCGWINSZ). Leaves the pane's text in *r; false when tmux is
 * missing. */
static bool tmux_scan(fixture *f, int width, tu_result *r) {
  tu_sh(r, "command -v tmux");
  bool have = r->status == 0;
  tu_result_free(r);
  if (!have) return false;
  char sock[64];
  snprintf(sock, sizeof sock, "inlet-test-%ld-%d", (long)getpid(), width);
  char cmd[8192];
  snprintf(cmd, sizeof cmd,
           "LC_ALL=C.UTF-8 tmux -u -L %s -f /dev/null new-session -d -x %d -y 70 \"cd '%s' && "
           "unset COLUMNS INLET_FORCE_TTY; '%s' scan u; '%s' scan n --where 'id <= 52'; "
           "echo SCAN-DONE; sleep 30\"",
           sock, width, f->dir, INLET_BIN, INLET_BIN);
  tu_sh(r, "%s", cmd);
  sh_ok(r, "tmux new-session");
  tu_result_free(r);
  /* Wait for the marker, then read the pane. */
  assert_true(tu_tmux_wait(sock, "SCAN-DONE", r));
  return true;
}

/* 200 columns in a real terminal: nothing cut, the note as wide as its
 * longest value, as test_scan_terminal__cjk_emoji_at_200 has it. */
static void test_scan_terminal__tmux_pane_200(void **state) {
  fixture *f = *state;
  tu_result r;
  if (!tmux_scan(f, 200, &r)) skip(); /* scripts/install-deps.sh test installs tmux */
  char head[1024];
  snprintf(head, sizeof head, "id | city       | note\n%s\n 1 | 東京       | 🍣 sushi\n",
           rule3(2, 10, 70));
  assert_non_null(strstr(r.out, head));
  assert_non_null(strstr(r.out, " 3 | 서울특별시 | " LONG_NOTE "\n"));
  assert_non_null(strstr(r.out, "\n50\n… 2 more rows; --limit N or --all\nSCAN-DONE"));
  tu_result_free(&r);
}

/* 80 columns in a real terminal. */
static void test_scan_terminal__tmux_pane(void **state) {
  fixture *f = *state;
  tu_result r;
  if (!tmux_scan(f, 80, &r)) skip(); /* scripts/install-deps.sh test installs tmux */
  char head[1024];
  snprintf(head, sizeof head, "id | city       | note\n%s\n 1 | 東京       | 🍣 sushi\n",
           rule3(2, 10, 62));
  assert_non_null(strstr(r.out, head));
  assert_non_null(strstr(r.out, " 3 | 서울특별시 | 01234567890123456789012345678901234567890123"
                                "456789日本語のテ…\n"));
  assert_non_null(strstr(r.out, "\n50\n… 2 more rows; --limit N or --all\nSCAN-DONE"));
  tu_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_scan_terminal__cjk_emoji_at_80),
      cmocka_unit_test(test_scan_terminal__cjk_emoji_at_200),
      cmocka_unit_test(test_scan_terminal__narrow_shrinks_widest_first),
      cmocka_unit_test(test_scan_terminal__cap_footer_all_limit),
      cmocka_unit_test(test_scan_terminal__pipe_unchanged),
      cmocka_unit_test(test_scan_terminal__tmux_pane),
      cmocka_unit_test(test_scan_terminal__tmux_pane_200),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
