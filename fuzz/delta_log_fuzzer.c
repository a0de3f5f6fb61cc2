/*
 * libFuzzer harness for the Delta log action parser (issue 13 §5): commit
 * files (newline-delimited JSON actions, src/delta/delta_actions.c),
 * classic checkpoints (Parquet, src/delta/delta_checkpoint.c) and the replay
 * that reconciles their actions into a snapshot (delta_snapshot.c,
 * delta_state.c) and describes it, and the scan plan built from its files'
 * add.stats and partition values (src/delta/delta_scan_plan.c).
 *
 * The first input byte picks the form of the rest:
 *  - even: a commit file. Every line goes through delta_action_parse; then
 *    the text becomes commit 0 of a scratch table, which is opened,
 *    snapshotted and described;
 *  - odd: a checkpoint. The bytes become 00000000000000000001.checkpoint.parquet
 *    (with an empty commit 1 beside it), read by delta_checkpoint_read, then
 *    the table is opened, snapshotted and described.
 * Beyond "no crash, no overread, no leak", every action the parser accepts
 * (from a line or from a checkpoint row) must survive being written back:
 * delta_action_write's line parses again and writes the same bytes, which
 * is what checkpoints and rewrites rely on to lose nothing. A property
 * failure aborts, which libFuzzer reports as a crash.
 *
 * The same file builds a replay executable (fuzz/CMakeLists.txt) that runs
 * the seed corpus fuzz/corpus/delta_log_fuzzer/ as an ordinary ctest test.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delta/delta.h"
#include "delta/delta_table.h"
#include "inlet/changes.h"
#include "fuzz_table_support.h"
#include "storage/storage.h"
#include "util/buf.h"
#include "util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "delta_log_fuzzer: property failed at %s:%d: %s\n", __FILE__, __LINE__,      \
              #cond);                                                                              \
      abort();                                                                                     \
    }                                                                                              \
  } while (0)

#define ROOT "/fuzz/table"

/* write(a) parses back to an action that writes the same bytes. */
static void check_round_trip(const delta_action *a) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_buf first = INLET_BUF_INIT, second = INLET_BUF_INIT;
  if (delta_action_write(&first, a, &err) < 0) {
    /* Only memory may run out here: every parsed action is writable. */
    CHECK(err.code == INLET_ENOMEM);
    inlet_buf_reset(&first);
    return;
  }
  CHECK(first.len > 0 && first.data[first.len - 1] == '\n');
  delta_line_ctx lc = {"written", 1, ROOT};
  delta_action b;
  int rc = delta_action_parse(&b, (const char *)first.data, first.len - 1, &lc, &err);
  if (rc < 0) {
    fprintf(stderr, "delta_log_fuzzer: written action does not parse: %s\n%.*s", err.message,
            (int)first.len, (const char *)first.data);
    CHECK(rc == INLET_ENOMEM);
  } else {
    CHECK(b.kind == a->kind);
    rc = delta_action_write(&second, &b, &err);
    CHECK(rc == 0 || rc == INLET_ENOMEM);
    if (rc == 0 && (second.len != first.len || memcmp(second.data, first.data, first.len) != 0)) {
      fprintf(stderr, "delta_log_fuzzer: rewrite differs:\n%.*s%.*s", (int)first.len,
              (const char *)first.data, (int)second.len, (const char *)second.data);
      CHECK(0);
    }
    delta_action_reset(&b);
  }
  inlet_buf_reset(&first);
  inlet_buf_reset(&second);
}

static void parse_lines(const char *text, size_t n) {
  size_t start = 0;
  int64_t line = 0;
  while (start <= n) {
    const char *nl = memchr(text + start, '\n', n - start);
    size_t end = nl ? (size_t)(nl - text) : n;
    line++;
    delta_line_ctx lc = {"fuzz.json", line, ROOT};
    delta_action a;
    inlet_error err = INLET_ERROR_INIT;
    int rc = delta_action_parse(&a, text + start, end - start, &lc, &err);
    if (rc == 0) {
      if (a.kind != DELTA_ACTION_NONE) check_round_trip(&a);
      delta_action_reset(&a);
    } else {
      /* A refusal says which file and line. */
      CHECK(rc == INLET_ECORRUPT || rc == INLET_ELIMIT || rc == INLET_ENOMEM ||
            rc == INLET_EUNSUPPORTED);
      CHECK(err.message[0] != '\0');
    }
    if (!nl) break;
    start = end + 1;
  }
}

static int on_checkpoint_action(void *ctx, const delta_action *a, inlet_error *err) {
  (void)err;
  (*(int64_t *)ctx)++;
  if (a->kind != DELTA_ACTION_NONE) check_round_trip(a);
  return 0;
}

static void put(const char *dir, const char *name, const uint8_t *data, size_t n) {
  char path[4200];
  snprintf(path, sizeof path, "%s/_delta_log/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f) abort();
  if (n && fwrite(data, 1, n, f) != n) abort();
  if (fclose(f) != 0) abort();
}

/* Opens, snapshots and describes the scratch table: any outcome but a
 * crash, and a refusal must say why. */
static void load_table(const char *dir) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  inlet_snapshot *s = NULL;
  int rc = inlet_table_open(&t, dir, &err);
  if (rc == 0) rc = inlet_table_snapshot(&s, t, &err);
  if (rc == 0) {
    CHECK(inlet_snapshot_version(s) >= 0);
    inlet_table_description d;
    char *json = NULL;
    rc = inlet_table_describe(t, &d, &json, &err);
    inlet_string_free(json);
  }
  if (rc < 0) CHECK(err.message[0] != '\0');
  if (rc == 0) {
    /* The scan plan: every file's add.stats and partition values parsed
     * (what a filtered scan prunes with), then read back per file. */
    const delta_scan_plan *plan = NULL;
    inlet_error perr = INLET_ERROR_INIT;
    int prc = delta_snapshot_scan_plan(&plan, s, &perr);
    if (prc < 0) CHECK(perr.message[0] != '\0' && prc != INLET_EINTERNAL);
    int32_t nc = delta_snapshot_physical(delta_snapshot_of(s))->n_fields;
    expr_colstats *cols = prc == 0 ? calloc((size_t)nc + 1, sizeof *cols) : NULL;
    for (int64_t i = 0; cols && i < delta_scan_plan_num_files(plan); i++) {
      delta_scan_plan_stats(plan, i, cols);
      delta_scan_plan_partitions(plan, i, cols);
      for (int32_t c = 0; c < nc; c++)
        CHECK(cols[c].null_count >= -1);
    }
    free(cols);
  }
  if (rc == 0) {
    /* The change data feed of every version: cdc actions and the
     * refusals of tables without the feed. */
    inlet_changes_options co = INLET_CHANGES_OPTIONS_INIT;
    inlet_changes *ch = NULL;
    inlet_batch b;
    memset(&b, 0, sizeof b);
    inlet_error cerr = INLET_ERROR_INIT;
    int crc = inlet_changes_open(&ch, t, &co, &cerr);
    while (crc == 0 && (crc = inlet_changes_next(ch, &b, &cerr)) > 0)
      crc = 0;
    if (crc < 0) CHECK(cerr.message[0] != '\0' && crc != INLET_EINTERNAL);
    inlet_batch_reset(&b);
    inlet_changes_free(ch);
  }
  inlet_snapshot_free(s);
  inlet_table_free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  bool checkpoint = data[0] & 1;
  const uint8_t *body = data + 1;
  size_t n = size - 1;
  char dir[4096], log[4200];
  fz_scratch(dir, sizeof dir, "delta-log");
  snprintf(log, sizeof log, "%s/_delta_log", dir);
  if (mkdir(log, 0755) != 0) abort();
  if (!checkpoint) {
    parse_lines((const char *)body, n);
    put(dir, "00000000000000000000.json", body, n);
  } else {
    put(dir, "00000000000000000001.checkpoint.parquet", body, n);
    put(dir, "00000000000000000001.json", NULL, 0);
    delta_checkpoint_ref cp = {1, 1, false, ""};
    inlet_storage *st = NULL;
    inlet_error err = INLET_ERROR_INIT;
    if (inlet_storage_posix_open(&st, dir, false, &err) != 0) abort();
    int64_t actions = 0;
    int rc = delta_checkpoint_read(st, dir, &cp, on_checkpoint_action, &actions, &err);
    if (rc < 0) CHECK(err.message[0] != '\0');
    st->ops->free(st);
  }
  load_table(dir);
  fz_rmtree(dir);
  return 0;
}
