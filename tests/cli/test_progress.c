/*
 * Progress (issue 19 §3): the library's reports through
 * inlet_table_set_progress (compaction in input bytes, checkpoint in
 * actions, vacuum's phases), and the bars the CLI draws from them on a
 * terminal: one line redrawn in place, never wider than the terminal, the
 * bar's length matching the numbers it shows, erased at the end, and never
 * on a pipe or with --json. The terminal is faked with INLET_FORCE_TTY=1 and
 * COLUMNS; one test runs a compaction in a real pseudo-terminal under tmux.
 */
#include "testutil.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inlet/inlet.h"

TU_SCRATCH_DIR("progress")

#define N_FILES 12
#define CLEAR "\r\033[K"

static void sh_ok(tu_result *r, const char *what) {
  if (r->status != 0)
    fail_msg("%s: exit %d\nstdout: %s\nstderr: %s", what, r->status, r->out, r->err);
}

/* Table @p name under dir with N_FILES appends of 300 rows each. */
static void make_table(const char *name) {
  char script[16384];
  snprintf(
      script, sizeof script,
      "cd '%s' && '%s' create %s --schema 'id bigint, s string' >/dev/null && "
      "i=0; while [ $i -lt %d ]; do "
      "awk -v b=$i 'BEGIN { for (k = 0; k < 300; k++) "
      "printf \"{\\\"id\\\":%%d,\\\"s\\\":\\\"row %%d of batch %%d\\\"}\\n\", b*300+k, k, b }' "
      "> %s.in && '%s' append %s %s.in >/dev/null || exit 1; i=$((i+1)); done",
      dir, INLET_BIN, name, N_FILES, name, INLET_BIN, name, name);
  tu_result r;
  tu_sh(&r, "%s", script);
  sh_ok(&r, "create + appends");
  tu_result_free(&r);
}

typedef struct event {
  char operation[32], phase[32], unit[16];
  int64_t done, total;
} event;

typedef struct recorder {
  event ev[4096];
  int n;
} recorder;

static void record(void *ctx, const inlet_progress *p) {
  recorder *r = ctx;
  if (r->n == (int)(sizeof r->ev / sizeof r->ev[0])) fail_msg("too many progress events");
  event *e = &r->ev[r->n++];
  snprintf(e->operation, sizeof e->operation, "%s", p->operation);
  snprintf(e->phase, sizeof e->phase, "%s", p->phase);
  snprintf(e->unit, sizeof e->unit, "%s", p->unit);
  e->done = p->done;
  e->total = p->total;
}

/* Events [from, to) all of one operation and phase, done never decreasing,
 * done <= total when the total is known. */
static void assert_monotonic(const recorder *r, int from, int to) {
  for (int i = from; i < to; i++) {
    const event *e = &r->ev[i];
    if (e->total >= 0) assert_true(e->done <= e->total);
    if (i > from && strcmp(e->phase, r->ev[i - 1].phase) == 0)
      assert_true(e->done >= r->ev[i - 1].done);
  }
}

static int count_log_commits(const char *table) {
  char p[4300];
  snprintf(p, sizeof p, "%s/%s/_delta_log", dir, table);
  DIR *d = opendir(p);
  assert_non_null(d);
  int n = 0;
  for (struct dirent *de; (de = readdir(d));) {
    size_t len = strlen(de->d_name);
    if (len == 25 && strcmp(de->d_name + 20, ".json") == 0) n++;
  }
  closedir(d);
  return n;
}

static void test_progress__library_reports(void **state) {
  (void)state;
  make_table("lib");
  char path[4300];
  snprintf(path, sizeof path, "%s/lib", dir);
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  assert_int_equal(inlet_table_open(&t, path, &err), 0);
  recorder *rec = calloc(1, sizeof *rec);
  assert_non_null(rec);

  /* Nothing is reported before a callback is set. */
  int64_t v = -1;
  inlet_compact_options co = INLET_COMPACT_OPTIONS_INIT;
  co.min_files = 2;
  co.dry_run = true;
  inlet_compact_result cr;
  assert_int_equal(inlet_table_compact(&cr, t, &co, &err), 0);
  assert_int_equal(inlet_table_set_progress(t, record, rec, &err), 0);
  assert_int_equal(rec->n, 0);

  /* Compaction: input bytes, from 0 to exactly the bytes it removed. */
  co.dry_run = false;
  assert_int_equal(inlet_table_compact(&cr, t, &co, &err), 0);
  assert_int_equal(cr.files_removed, N_FILES);
  assert_true(rec->n >= 2);
  for (int i = 0; i < rec->n; i++) {
    assert_string_equal(rec->ev[i].operation, "compact");
    assert_string_equal(rec->ev[i].phase, "rewriting");
    assert_string_equal(rec->ev[i].unit, "bytes");
    assert_int_equal(rec->ev[i].total, cr.bytes_removed);
  }
  assert_int_equal(rec->ev[0].done, 0);
  assert_int_equal(rec->ev[rec->n - 1].done, cr.bytes_removed);
  assert_monotonic(rec, 0, rec->n);
  /* One report per input file at least: a bar that moves. */
  assert_true(rec->n >= N_FILES);

  /* Checkpoint: actions, ending at the number of rows the checkpoint holds. */
  rec->n = 0;
  assert_int_equal(inlet_table_checkpoint(t, &v, &err), 0);
  assert_true(rec->n >= 2);
  const event *last = &rec->ev[rec->n - 1];
  assert_string_equal(last->operation, "checkpoint");
  assert_string_equal(last->unit, "actions");
  assert_int_equal(last->done, last->total);
  assert_int_equal(rec->ev[0].done, 0);
  assert_monotonic(rec, 0, rec->n);
  char cp[4400];
  snprintf(cp, sizeof cp, "%s/_delta_log/%020lld.checkpoint.parquet", path, (long long)v);
  inlet_parquet_reader *pr = NULL;
  assert_int_equal(inlet_parquet_reader_open(&pr, cp, NULL, &err), 0);
  assert_int_equal(inlet_parquet_reader_num_rows(pr), last->total);
  inlet_parquet_reader_free(pr);

  /* Vacuum: the log's commits, then the walk (total unknown), then the
   * deletions, whose total is the files it deleted. */
  rec->n = 0;
  inlet_vacuum_options vo = INLET_VACUUM_OPTIONS_INIT;
  vo.retain_ms = 0;
  vo.force = true;
  inlet_vacuum_result vr;
  assert_int_equal(inlet_table_vacuum(&vr, t, &vo, &err), 0);
  assert_int_equal(vr.files, N_FILES);
  const char *order[] = {"reading log", "listing", "deleting"};
  int stage = 0;
  for (int i = 0; i < rec->n; i++) {
    const event *e = &rec->ev[i];
    assert_string_equal(e->operation, "vacuum");
    while (stage < 3 && strcmp(e->phase, order[stage]) != 0)
      stage++;
    assert_true(stage < 3); /* a phase out of order, or an unknown one */
    if (stage == 0) assert_int_equal(e->total, count_log_commits("lib"));
    if (stage == 1) assert_int_equal(e->total, -1);
    if (stage == 2) assert_int_equal(e->total, vr.files);
  }
  assert_int_equal(stage, 2);
  assert_int_equal(rec->ev[rec->n - 1].done, vr.files);
  assert_monotonic(rec, 0, rec->n);

  /* Cleared: silence again. */
  rec->n = 0;
  assert_int_equal(inlet_table_set_progress(t, NULL, NULL, &err), 0);
  assert_int_equal(inlet_table_checkpoint(t, &v, &err), INLET_EEXISTS);
  assert_int_equal(rec->n, 0);
  free(rec);
  inlet_table_free(t);
}

/* The frames of a progress line: the text between CLEAR sequences. Checks
 * each against @p prefix and @p width, and that the line ends erased.
 * Returns how many frames were drawn; *saw_full: one showed 100%. */
static int check_frames(const char *err, const char *prefix, int width, bool *saw_full) {
  int frames = 0, last_pct = -1;
  *saw_full = false;
  const char *p = strstr(err, CLEAR);
  assert_non_null(p);
  while (p) {
    p += strlen(CLEAR);
    const char *next = strstr(p, CLEAR);
    size_t len = next ? (size_t)(next - p) : strlen(p);
    if (len > 0 && strncmp(p, prefix, strlen(prefix)) == 0) {
      char frame[1024];
      assert_true(len < sizeof frame);
      memcpy(frame, p, len);
      frame[len] = '\0';
      assert_null(strchr(frame, '\n'));
      if ((int)len > width - 1) fail_msg("frame wider than %d columns: \"%s\"", width, frame);
      const char *pct = strchr(frame, '%');
      if (pct) {
        const char *d = pct;
        while (d > frame && d[-1] >= '0' && d[-1] <= '9')
          d--;
        int v = atoi(d);
        if (strncmp(frame, "compact", 7) == 0 || strncmp(frame, "checkpoint", 10) == 0)
          assert_true(v >= last_pct); /* one phase: never backwards */
        last_pct = v;
        if (v == 100) *saw_full = true;
      }
      /* The bar's cells: '=' for the share done, as the numbers say. */
      const char *lb = strchr(frame, '['), *rb = strchr(frame, ']');
      long long done, total;
      char unit[32];
      if (lb && rb && sscanf(rb + 1, " %*d%% %lld / %lld %31s", &done, &total, unit) == 3 &&
          total > 0) {
        long cells = (long)(rb - lb - 1), full = 0;
        for (const char *c = lb + 1; c < rb; c++)
          full += *c == '=';
        assert_int_equal(full, (long)((double)cells * (double)done / (double)total));
      }
      frames++;
    } else if (len > 0) {
      fail_msg("unexpected text after an erase: \"%.*s\"", (int)len, p);
    }
    p = next;
  }
  /* The line is erased at the end: nothing follows the last CLEAR. */
  const char *tail = err + strlen(err) - strlen(CLEAR);
  assert_string_equal(tail, CLEAR);
  return frames;
}

static void test_progress__cli_bars_on_a_terminal(void **state) {
  (void)state;
  make_table("cli");
  tu_result r;
  tu_sh(&r, "cd '%s' && INLET_FORCE_TTY=1 COLUMNS=72 '%s' compact cli --min-files 2", dir,
        INLET_BIN);
  sh_ok(&r, "compact");
  bool full = false;
  assert_true(check_frames(r.err, "compact rewriting", 72, &full) >= 2);
  assert_true(full);
  assert_non_null(strstr(r.err, "compact rewriting ["));
  /* stdout is what a pipe gets: the group line and the summary. */
  assert_null(strchr(r.out, '\r'));
  char want[128];
  snprintf(want, sizeof want, "compacted (table): %d files (", N_FILES);
  assert_int_equal(strncmp(r.out, want, strlen(want)), 0);
  tu_result_free(&r);

  tu_sh(&r, "cd '%s' && INLET_FORCE_TTY=1 COLUMNS=60 '%s' checkpoint cli", dir, INLET_BIN);
  sh_ok(&r, "checkpoint");
  assert_true(check_frames(r.err, "checkpoint writing", 60, &full) >= 2);
  assert_true(full);
  assert_non_null(strstr(r.err, " actions"));
  assert_int_equal(strncmp(r.out, "checkpoint written at version ", 30), 0);
  tu_result_free(&r);

  /* A terminal too narrow for a bar still gets a line that fits. */
  tu_sh(&r, "cd '%s' && INLET_FORCE_TTY=1 COLUMNS=30 '%s' vacuum cli --retain 0s --force", dir,
        INLET_BIN);
  sh_ok(&r, "vacuum");
  assert_true(check_frames(r.err, "vacuum ", 30, &full) >= 3);
  if (strstr(r.err, " [")) fail_msg("a bar at 30 columns:\n%s", r.err);
  snprintf(want, sizeof want, "deleted %d files, ", N_FILES);
  assert_non_null(strstr(r.out, want));
  tu_result_free(&r);
}

static void test_progress__no_bar_on_a_pipe_or_with_json(void **state) {
  (void)state;
  make_table("pipe");
  tu_result r;
  tu_sh(&r,
        "cd '%s' && '%s' compact pipe --min-files 2 --dry-run && "
        "INLET_FORCE_TTY=1 '%s' compact pipe --min-files 2 --json && "
        "'%s' checkpoint pipe && INLET_FORCE_TTY=1 '%s' vacuum pipe --retain 0s --force --json",
        dir, INLET_BIN, INLET_BIN, INLET_BIN, INLET_BIN);
  sh_ok(&r, "compact, checkpoint, vacuum");
  assert_null(strchr(r.err, '\r'));
  assert_null(strstr(r.err, "rewriting"));
  assert_null(strstr(r.err, "writing"));
  assert_null(strstr(r.err, "deleting"));
  assert_null(strchr(r.out, '\r'));
  tu_result_free(&r);
}

static void test_progress__convert_and_ingest_once(void **state) {
  (void)state;
  tu_result r;
  tu_sh(&r,
        "cd '%s' && awk 'BEGIN { for (k = 0; k < 20000; k++) "
        "printf \"{\\\"id\\\":%%d,\\\"s\\\":\\\"value %%d\\\"}\\n\", k, k }' > big.ndjson && "
        "INLET_FORCE_TTY=1 COLUMNS=90 '%s' parquet convert big.ndjson big.parquet "
        "--schema 'id bigint, s string' --row-group-size 65536",
        dir, INLET_BIN);
  sh_ok(&r, "parquet convert");
  bool full = false;
  assert_true(check_frames(r.err, "convert reading", 90, &full) >= 2);
  assert_true(full);
  assert_non_null(strstr(r.out, "big.parquet: 20000 rows"));
  tu_result_free(&r);

  tu_sh(&r,
        "cd '%s' && '%s' create ing --schema 'id bigint, s string' >/dev/null && "
        "INLET_FORCE_TTY=1 COLUMNS=120 '%s' ingest ing --source file:big.ndjson --once "
        "--max-rows 2000",
        dir, INLET_BIN, INLET_BIN);
  sh_ok(&r, "ingest --once");
  /* The bar, then the counts; the last frame reads the whole file. */
  assert_non_null(strstr(r.err, "ingest reading ["));
  assert_non_null(strstr(r.err, "100%"));
  assert_non_null(strstr(r.err, "  rows 20000  batches 10"));
  assert_non_null(strstr(r.err, "ingested 20000 rows in 10 batches"));
  tu_result_free(&r);
}

/* A real pseudo-terminal: tmux runs a compaction in a 100-column pane, its
 * raw output recorded with pipe-pane. The frames are drawn there, and the
 * screen left behind shows the result lines, not a bar. */
static void test_progress__tmux_pane(void **state) {
  (void)state;
  tu_result r;
  tu_sh(&r, "command -v tmux");
  if (r.status != 0) {
    tu_result_free(&r);
    skip(); /* scripts/install-deps.sh test installs tmux */
  }
  tu_result_free(&r);
  make_table("tmux");
  char sock[64];
  snprintf(sock, sizeof sock, "inlet-progress-%ld", (long)getpid());
  tu_sh(&r,
        "tmux -L %s -f /dev/null new-session -d -x 100 -y 30 \"cd '%s' && "
        "unset COLUMNS INLET_FORCE_TTY; while [ ! -e piped ]; do sleep 0.1; done; "
        "'%s' compact tmux --min-files 2; echo COMPACT-DONE; sleep 30\" && "
        "tmux -L %s pipe-pane -o 'cat >> %s/raw.out' && touch '%s/piped'",
        sock, dir, INLET_BIN, sock, dir, dir);
  sh_ok(&r, "tmux new-session");
  tu_result_free(&r);
  assert_true(tu_tmux_wait(sock, "COMPACT-DONE", &r));
  assert_non_null(strstr(r.out, "compaction of version "));
  assert_null(strstr(r.out, "compact rewriting")); /* erased */
  tu_result_free(&r);
  char raw_path[4300];
  snprintf(raw_path, sizeof raw_path, "%s/raw.out", dir);
  size_t len = 0;
  char *raw = tu_read_file(raw_path, &len);
  assert_non_null(raw);
  assert_non_null(strstr(raw, CLEAR "compact rewriting ["));
  assert_non_null(strstr(raw, "100%"));
  free(raw);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_progress__library_reports),
      cmocka_unit_test(test_progress__cli_bars_on_a_terminal),
      cmocka_unit_test(test_progress__no_bar_on_a_pipe_or_with_json),
      cmocka_unit_test(test_progress__convert_and_ingest_once),
      cmocka_unit_test(test_progress__tmux_pane),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
