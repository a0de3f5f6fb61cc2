/*
 * `inlet ingest` end to end on file and stdin sources: --once runs that
 * resume without duplicates, batching by --max-rows, dead letters named by
 * position range, commitInfo metrics and txn positions, late data (flag
 * column, restored watermark, drop with a count, routing to a side table),
 * event-time partitions through Delta generated columns (day, hour),
 * refusal of tables with delta.setTransactionRetentionDuration, stdin,
 * --follow stopped by SIGTERM (exit 0, batch committed), --follow across
 * rotations with a kill -9 and a restart that finds the rotated file, CLI
 * usage errors; a file truncated in place, replaced by a superset, ending in
 * half a line, rotated by copy-truncate (issue 12); one progress record
 * whatever the file's path spelling, and refusal of another path to a file
 * the table already tracks (issue 11 §5).
 */
#include "testutil.h"

#include <dirent.h>
#include <jansson.h>
#include <sys/stat.h>

#include "ingest_support.h"

typedef struct fx {
  char dir[400];
  char table[512];
  char src[512];
  char source[600];
} fx;

static int setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  snprintf(f->dir, sizeof f->dir, "%s", tu_mkdtemp("ingest_file"));
  snprintf(f->table, sizeof f->table, "%s/t", f->dir);
  snprintf(f->src, sizeof f->src, "%s/in.ndjson", f->dir);
  snprintf(f->source, sizeof f->source, "file:%s", f->src);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fx *f = *state;
  tu_rmtree(f->dir);
  free(f);
  return 0;
}

static void append_text(const char *path, const char *text) {
  FILE *fp = fopen(path, "a");
  assert_non_null(fp);
  fputs(text, fp);
  fclose(fp);
}

static tu_result run_ingest(const fx *f, const char *extra) {
  tu_result r;
  tu_sh(&r, "'%s' ingest '%s' --source '%s' --once %s", INLET_BIN, f->table, f->source,
        extra ? extra : "");
  return r;
}

static int64_t scan_count(const char *table, const char *grep) {
  tu_result r;
  tu_sh(&r, "'%s' scan '%s' --format ndjson | grep -c '%s'", INLET_BIN, table, grep);
  int64_t n = strtoll(r.out ? r.out : "-1", NULL, 10);
  tu_result_free(&r);
  return n;
}

static int64_t txn_version(const char *table, const char *app) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  inlet_snapshot *s = NULL;
  assert_int_equal(inlet_table_open(&t, table, &err), 0);
  assert_int_equal(inlet_table_snapshot(&s, t, &err), 0);
  int64_t v = inlet_snapshot_txn_version(s, app);
  inlet_snapshot_free(s);
  inlet_table_free(t);
  return v;
}

static int64_t latest_version(const char *table) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  inlet_snapshot *s = NULL;
  assert_int_equal(inlet_table_open(&t, table, &err), 0);
  assert_int_equal(inlet_table_snapshot(&s, t, &err), 0);
  int64_t v = inlet_snapshot_version(s);
  inlet_snapshot_free(s);
  inlet_table_free(t);
  return v;
}

static void test_ingest__once_resumes_without_duplicates(void **state) {
  fx *f = *state;
  ing_create_table(f->table, "id long not null, v long", NULL);
  FILE *fp = fopen(f->src, "w");
  for (int i = 0; i < 2500; i++)
    fprintf(fp, "{\"id\":%d,\"v\":%d}\n", i, i * 3);
  fclose(fp);
  tu_result r = run_ingest(f, "--max-rows 1000 --app-id A");
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.err, "ingested 2500 rows in 3 batches"));
  tu_result_free(&r);
  assert_int_equal(latest_version(f->table), 3);
  assert_int_equal(txn_version(f->table, "A"), 3);
  struct stat st;
  stat(f->src, &st);
  assert_int_equal(txn_version(f->table, "A#p1"), (int64_t)st.st_size);
  assert_int_equal(txn_version(f->table, "A#p0"), (int64_t)st.st_ino);
  /* Nothing new: no commit. */
  r = run_ingest(f, "--app-id A");
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.err, "ingested 0 rows in 0 batches"));
  tu_result_free(&r);
  assert_int_equal(latest_version(f->table), 3);
  /* Appended records only. */
  append_text(f->src, "{\"id\":2500,\"v\":7500}\n{\"id\":2501,\"v\":7503}\n");
  r = run_ingest(f, "--app-id A");
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.err, "ingested 2 rows in 1 batches"));
  tu_result_free(&r);
  ing_check c;
  ing_check_table(&c, f->table, 3000);
  assert_int_equal(c.rows, 2502);
  assert_int_equal(c.dups, 0);
}

static void test_ingest__bad_records_go_to_dead_letter_files(void **state) {
  fx *f = *state;
  ing_create_table(f->table, "id long not null, v int", NULL);
  append_text(f->src, "{\"id\":1,\"v\":1}\n{oops\n{\"id\":2,\"v\":99999999999}\n{\"v\":3}\n"
                      "{\"id\":3,\"v\":3}\n{\"id\":4,\"v\":\"\xff\xfe\"}\n");
  tu_result r = run_ingest(f, "--app-id B --json");
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.out, "\"event\":\"batch\""));
  assert_non_null(strstr(r.out, "\"rejected\":4"));
  tu_result_free(&r);
  assert_int_equal(scan_count(f->table, "\"id\""), 2);
  char dl[700];
  snprintf(dl, sizeof dl, "%s/_errors/B", f->table);
  DIR *d = opendir(dl);
  assert_non_null(d);
  struct dirent *de;
  char name[256] = "";
  int files = 0;
  while ((de = readdir(d)) != NULL)
    if (de->d_name[0] != '.') {
      snprintf(name, sizeof name, "%s", de->d_name);
      files++;
    }
  closedir(d);
  assert_int_equal(files, 1);
  struct stat st;
  stat(f->src, &st);
  char want[128];
  snprintf(want, sizeof want, "start_i%lld-o%lld.ndjson", (long long)st.st_ino,
           (long long)st.st_size);
  assert_string_equal(name, want);
  char path[1000];
  snprintf(path, sizeof path, "%s/%s", dl, name);
  char *text = tu_read_file(path, NULL);
  assert_non_null(text);
  assert_non_null(strstr(text, "\"record\":\"{oops\""));
  assert_non_null(strstr(text, "\"offset\":15"));
  assert_non_null(strstr(text, "out of range"));
  assert_non_null(strstr(text, "missing NOT NULL field"));
  assert_non_null(strstr(text, "\"record_hex\":\"7b226964223a342c2276223a22fffe227d\""));
  /* Every line is a JSON object with the position and reason. */
  int lines = 0;
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
    json_error_t je;
    json_t *j = json_loads(line, 0, &je);
    if (!j) fail_msg("dead letter line is not JSON: %s", je.text);
    assert_non_null(json_string_value(json_object_get(j, "position")));
    assert_non_null(json_string_value(json_object_get(j, "reason")));
    json_decref(j);
    lines++;
  }
  assert_int_equal(lines, 4);
  free(text);
  /* commitInfo carries the counts. */
  tu_result h;
  tu_sh(&h, "'%s' history '%s' --json", INLET_BIN, f->table);
  assert_non_null(strstr(h.out, "\"numRejectedRows\":4"));
  assert_non_null(strstr(h.out, "\"numSourceRecords\":6"));
  tu_result_free(&h);
}

static void test_ingest__late_rows_flagged_and_watermark_restored(void **state) {
  fx *f = *state;
  ing_create_table(f->table, "id long not null, ts timestamp, late boolean",
                   "--property inlet.ingest.lateFlagColumn=late");
  append_text(f->src, "{\"id\":1,\"ts\":\"2024-01-01T00:10:00Z\"}\n"
                      "{\"id\":2,\"ts\":\"2024-01-01T00:05:00Z\"}\n"
                      "{\"id\":3,\"ts\":\"2024-01-01T00:08:00Z\"}\n");
  tu_result r = run_ingest(f, "--event-time ts --allowed-lateness 2m");
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  assert_int_equal(scan_count(f->table, "\"late\":true"), 1);
  assert_int_equal(scan_count(f->table, "\"id\":2,.*\"late\":true"), 1);
  /* Restart: 00:07 is late against the restored watermark (00:08). */
  append_text(f->src, "{\"id\":4,\"ts\":\"2024-01-01T00:07:00Z\"}\n");
  r = run_ingest(f, "--event-time ts --allowed-lateness 2m");
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.err, "late 1"));
  tu_result_free(&r);
  assert_int_equal(scan_count(f->table, "\"id\":4,.*\"late\":true"), 1);
  tu_result h;
  tu_sh(&h, "'%s' history '%s' --json", INLET_BIN, f->table);
  assert_non_null(strstr(h.out, "\"watermark\":\"2024-01-01T00:08:00.000000Z\""));
  tu_result_free(&h);
}

static void test_ingest__late_drop_counts_and_route_writes_side_table(void **state) {
  fx *f = *state;
  ing_create_table(f->table, "id long not null, ts timestamp", NULL);
  char side[600];
  snprintf(side, sizeof side, "%s/late", f->dir);
  ing_create_table(side, "id long not null, ts timestamp", NULL);
  append_text(f->src, "{\"id\":1,\"ts\":\"2024-01-01T01:00:00Z\"}\n"
                      "{\"id\":2,\"ts\":\"2024-01-01T00:00:00Z\"}\n"
                      "{\"id\":3,\"ts\":\"2024-01-01T01:00:01Z\"}\n");
  char extra[800];
  snprintf(extra, sizeof extra, "--event-time ts --allowed-lateness 1m --late-policy route:%s",
           side);
  tu_result r = run_ingest(f, extra);
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.err, "routed 1"));
  tu_result_free(&r);
  assert_int_equal(scan_count(f->table, "\"id\""), 2);
  assert_int_equal(scan_count(side, "\"id\":2"), 1);
  char *abs = realpath(f->src, NULL), app[900];
  snprintf(app, sizeof app, "inlet-ingest:file:%s#late", abs);
  free(abs);
  assert_int_equal(txn_version(side, app), 1); /* a replay would not route twice */
  /* Drop on another table: counted in commitInfo. */
  char t2[600];
  snprintf(t2, sizeof t2, "%s/t2", f->dir);
  ing_create_table(t2, "id long not null, ts timestamp", NULL);
  tu_sh(&r,
        "'%s' ingest '%s' --source '%s' --once --event-time ts --allowed-lateness 1m "
        "--late-policy drop",
        INLET_BIN, t2, f->source);
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.err, "dropped 1"));
  tu_result_free(&r);
  assert_int_equal(scan_count(t2, "\"id\""), 2);
  tu_result h;
  tu_sh(&h, "'%s' history '%s' --json", INLET_BIN, t2);
  assert_non_null(strstr(h.out, "\"numDroppedLateRows\":1"));
  assert_non_null(strstr(h.out, "\"numLateRows\":1"));
  tu_result_free(&h);
}

/* Writes version 0 of a table partitioned by a generated column (protocol
 * 1/4 as Spark writes it for GENERATED ALWAYS AS columns). */
static void create_generated_table(const char *table, const char *type, const char *expr) {
  char log[700], path[800], line[2000];
  snprintf(log, sizeof log, "%s/_delta_log", table);
  tu_result r;
  tu_sh(&r, "mkdir -p '%s'", log);
  tu_result_free(&r);
  snprintf(path, sizeof path, "%s/00000000000000000000.json", log);
  snprintf(line, sizeof line,
           "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":4}}\n"
           "{\"metaData\":{\"id\":\"5b0c3a9e-8d53-4e0e-9a36-0c1f7a2f1d11\",\"format\":"
           "{\"provider\":\"parquet\",\"options\":{}},\"schemaString\":\"{\\\"type\\\":"
           "\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"id\\\",\\\"type\\\":\\\"long\\\","
           "\\\"nullable\\\":false,\\\"metadata\\\":{}},{\\\"name\\\":\\\"ts\\\",\\\"type\\\":"
           "\\\"timestamp\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}},{\\\"name\\\":"
           "\\\"part\\\",\\\"type\\\":\\\"%s\\\",\\\"nullable\\\":true,\\\"metadata\\\":"
           "{\\\"delta.generationExpression\\\":\\\"%s\\\"}}]}\",\"partitionColumns\":"
           "[\"part\"],\"configuration\":{},\"createdTime\":1700000000000}}\n",
           type, expr);
  assert_int_equal(tu_write_file(path, line, strlen(line)), 0);
}

static void test_ingest__event_time_generated_partitions(void **state) {
  fx *f = *state;
  create_generated_table(f->table, "date", "CAST(ts AS DATE)");
  append_text(f->src, "{\"id\":1,\"ts\":\"2024-01-02T00:30:00Z\"}\n"
                      "{\"id\":2,\"ts\":\"2024-01-01T23:50:00Z\"}\n"
                      "{\"id\":3,\"ts\":\"2024-01-02T10:00:00Z\",\"part\":\"1999-01-01\"}\n");
  tu_result r = run_ingest(f, "--event-time ts --allowed-lateness 5m");
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.err, "late 1"));
  tu_result_free(&r);
  /* The late event landed in its own, older partition; input values for a
   * generated column are replaced by the computed ones. */
  assert_int_equal(scan_count(f->table, "\"id\":2,.*\"part\":\"2024-01-01\""), 1);
  assert_int_equal(scan_count(f->table, "\"part\":\"2024-01-02\""), 2);
  char dir[800];
  snprintf(dir, sizeof dir, "%s/part=2024-01-01", f->table);
  struct stat st;
  assert_int_equal(stat(dir, &st), 0);
  /* Hour granularity as a string partition. */
  char t2[600], src2[600];
  snprintf(t2, sizeof t2, "%s/hourly", f->dir);
  snprintf(src2, sizeof src2, "%s", f->source);
  create_generated_table(t2, "string", "date_format(ts, 'yyyy-MM-dd-HH')");
  tu_sh(&r, "'%s' ingest '%s' --source '%s' --once", INLET_BIN, t2, src2);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  assert_int_equal(scan_count(t2, "\"part\":\"2024-01-01-23\""), 1);
  assert_int_equal(scan_count(t2, "\"part\":\"2024-01-02-10\""), 1);
  /* An expression ingest cannot compute is refused rather than written wrong. */
  char t3[600];
  snprintf(t3, sizeof t3, "%s/other", f->dir);
  create_generated_table(t3, "date", "date_add(ts, 1)");
  tu_sh(&r, "'%s' ingest '%s' --source '%s' --once", INLET_BIN, t3, src2);
  assert_int_equal(r.status, 6);
  assert_non_null(strstr(r.err, "generated column"));
  tu_result_free(&r);
}

static void test_ingest__refuses_txn_retention_tables(void **state) {
  fx *f = *state;
  ing_create_table(f->table, "id long",
                   "--property delta.setTransactionRetentionDuration="
                   "'interval 1 days'");
  append_text(f->src, "{\"id\":1}\n");
  tu_result r = run_ingest(f, NULL);
  assert_int_equal(r.status, 6);
  assert_non_null(strstr(r.err, "setTransactionRetentionDuration"));
  tu_result_free(&r);
  assert_int_equal(latest_version(f->table), 0);
}

static void test_ingest__stdin_source(void **state) {
  fx *f = *state;
  ing_create_table(f->table, "id long not null, v long", NULL);
  tu_result r;
  tu_sh(&r, "printf '{\"id\":1,\"v\":2}\\n{\"id\":2,\"v\":4}\\n' | '%s' ingest '%s' --source stdin",
        INLET_BIN, f->table);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  assert_int_equal(scan_count(f->table, "\"id\""), 2);
  assert_int_equal(txn_version(f->table, "inlet-ingest:stdin"), 1);
  tu_sh(&r, "'%s' ingest --help", INLET_BIN);
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.out, "cannot replay"));
  tu_result_free(&r);
}

static void test_ingest__follow_stops_cleanly_on_sigterm(void **state) {
  fx *f = *state;
  ing_create_table(f->table, "id long not null, v long", NULL);
  append_text(f->src, "{\"id\":1,\"v\":1}\n{\"id\":2,\"v\":2}\n");
  char out[700];
  snprintf(out, sizeof out, "%s/ingest.out", f->dir);
  const char *args[] = {"ingest",        f->table, "--source", f->source, "--follow",
                        "--max-latency", "60s",    "--json",   NULL};
  pid_t pid = ing_spawn(out, args);
  /* SIGTERM only once the ingester runs (its handler is in place): a loaded
   * machine can take seconds to start it. */
  bool started = false;
  for (int i = 0; i < 600 && !started; i++) {
    ing_sleep_ms(50);
    char *text = tu_read_file(out, NULL);
    started = text && strstr(text, "\"event\":\"started\"");
    free(text);
  }
  assert_true(started);
  ing_sleep_ms(500);
  kill(pid, SIGTERM);
  assert_int_equal(ing_wait(pid), 0);
  /* The open batch (latency 60 s not reached) was committed on the way out. */
  assert_int_equal(scan_count(f->table, "\"id\""), 2);
  assert_int_equal(latest_version(f->table), 1);
}

static void write_range(const char *path, int from, int to, ing_check *want) {
  FILE *fp = fopen(path, "a");
  for (int i = from; i < to; i++) {
    fprintf(fp, "{\"id\":%d,\"v\":%d}\n", i, i * 5);
    want->rows++;
    want->checksum += ing_mix(i, i * 5);
  }
  fclose(fp);
}

static int64_t wait_rows(const char *table, int64_t n, int64_t max_id) {
  ing_check c = {0, 0, 0, 0};
  for (int i = 0; i < 300 && c.rows < n; i++) {
    ing_sleep_ms(50);
    ing_check_table(&c, table, max_id);
  }
  return c.rows;
}

/* --follow across two rotations by rename, with a kill -9 while the
 * rotated file still has unread data: the restart finds it by inode. */
static void test_ingest__follow_rotation_and_restart(void **state) {
  fx *f = *state;
  ing_create_table(f->table, "id long not null, v long", NULL);
  ing_check want = {0, 0, 0, 0};
  char r1[600], r2[600];
  snprintf(r1, sizeof r1, "%s.1", f->src);
  snprintf(r2, sizeof r2, "%s.2", f->src);
  write_range(f->src, 0, 1000, &want);
  const char *args[] = {"ingest",        f->table, "--source", f->source, "--follow",
                        "--max-latency", "100ms",  "--quiet",  NULL};
  pid_t pid = ing_spawn(NULL, args);
  assert_int_equal(wait_rows(f->table, 1000, 10000), 1000);
  write_range(f->src, 1000, 1500, &want);
  assert_int_equal(rename(f->src, r1), 0);
  write_range(f->src, 1500, 2500, &want);
  assert_int_equal(wait_rows(f->table, 2500, 10000), 2500);
  /* Stop hard, then rotate again with unread data in the rotated file. */
  kill(pid, SIGKILL);
  ing_wait(pid);
  write_range(f->src, 2500, 3000, &want);
  assert_int_equal(rename(r1, r2), 0);
  assert_int_equal(rename(f->src, r1), 0);
  write_range(f->src, 3000, 3300, &want);
  pid = ing_spawn(NULL, args);
  assert_int_equal(wait_rows(f->table, 3300, 10000), 3300);
  kill(pid, SIGTERM);
  assert_int_equal(ing_wait(pid), 0);
  ing_check got;
  ing_check_table(&got, f->table, 10000);
  assert_int_equal(got.dups, 0);
  assert_int_equal(got.rows, want.rows);
  assert_true(got.checksum == want.checksum);
}

static void test_ingest__usage_errors(void **state) {
  fx *f = *state;
  tu_result r;
  tu_sh(&r, "'%s' ingest '%s'", INLET_BIN, f->table);
  assert_int_equal(r.status, 2);
  assert_non_null(strstr(r.err, "--source"));
  tu_result_free(&r);
  tu_sh(&r, "'%s' ingest '%s' --source x --max-latency 5parsecs", INLET_BIN, f->table);
  assert_int_equal(r.status, 2);
  tu_result_free(&r);
  tu_sh(&r, "'%s' ingest '%s' --source x --late-policy maybe --event-time t", INLET_BIN, f->table);
  assert_int_equal(r.status, 2);
  tu_result_free(&r);
  ing_create_table(f->table, "id long", NULL);
  tu_sh(&r, "'%s' ingest '%s' --source ftp://x --once", INLET_BIN, f->table);
  assert_int_equal(r.status, 1);
  assert_non_null(strstr(r.err, "unknown source"));
  tu_result_free(&r);
}

/* ---- issue 12: sources that lost or duplicated without a clear signal ---------- */

static void write_ids(const char *path, int from, int to, const char *mode) {
  FILE *fp = fopen(path, mode);
  assert_non_null(fp);
  for (int i = from; i < to; i++)
    fprintf(fp, "{\"id\":%d,\"v\":%d}\n", i, i * 2);
  fclose(fp);
}

static long bytes_of_ids(int from, int to) {
  long n = 0;
  char line[64];
  for (int i = from; i < to; i++)
    n += snprintf(line, sizeof line, "{\"id\":%d,\"v\":%d}\n", i, i * 2);
  return n;
}

static void expect_exactly(const char *table, int64_t rows, int64_t max_id) {
  ing_check c;
  ing_check_table(&c, table, max_id);
  assert_int_equal(c.dups, 0);
  assert_int_equal(c.rows, rows);
}

static void test_ingest__file_truncated_in_place_is_not_reingested(void **state) {
  fx *f = *state;
  ing_create_table(f->table, "id long not null, v long", NULL);
  write_ids(f->src, 0, 1000, "w");
  tu_result r = run_ingest(f, NULL);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  /* The file shrinks in place to its first 510 records. */
  assert_int_equal(truncate(f->src, bytes_of_ids(0, 510)), 0);
  r = run_ingest(f, NULL);
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.err, "truncated in place"));
  assert_null(strstr(r.err, "rotated"));
  assert_non_null(strstr(r.err, "ingested 0 rows"));
  tu_result_free(&r);
  expect_exactly(f->table, 1000, 2000);
  /* What is written after it is read. */
  write_ids(f->src, 1000, 1010, "a");
  r = run_ingest(f, NULL);
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.err, "ingested 10 rows"));
  tu_result_free(&r);
  expect_exactly(f->table, 1010, 2000);
}

static void test_ingest__file_replaced_by_superset_resumes_at_offset(void **state) {
  fx *f = *state;
  ing_create_table(f->table, "id long not null, v long", NULL);
  write_ids(f->src, 0, 1000, "w");
  tu_result r = run_ingest(f, NULL);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  char tmp[700];
  snprintf(tmp, sizeof tmp, "%s.tmp", f->src);
  write_ids(tmp, 0, 1100, "w");
  assert_int_equal(rename(tmp, f->src), 0); /* new inode, same first KiB */
  r = run_ingest(f, NULL);
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.err, "was replaced"));
  assert_non_null(strstr(r.err, "ingested 100 rows"));
  tu_result_free(&r);
  expect_exactly(f->table, 1100, 2000);
}

static void test_ingest__once_leaves_half_line_for_next_run(void **state) {
  fx *f = *state;
  ing_create_table(f->table, "id long not null, v long", NULL);
  append_text(f->src, "{\"id\":1,\"v\":1}\n{\"id\":2,\"v\"");
  tu_result r = run_ingest(f, NULL);
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.err, "unterminated record"));
  assert_non_null(strstr(r.err, "ingested 1 rows"));
  assert_non_null(strstr(r.err, "rejected 0"));
  tu_result_free(&r);
  /* The writer finishes the line: it arrives whole. */
  append_text(f->src, ":2}\n{\"id\":3,\"v\":3}");
  r = run_ingest(f, NULL);
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.err, "ingested 1 rows"));
  tu_result_free(&r);
  /* --final: the input is complete, its last line is a record. */
  r = run_ingest(f, "--final");
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.err, "ingested 1 rows"));
  assert_null(strstr(r.err, "unterminated"));
  tu_result_free(&r);
  expect_exactly(f->table, 3, 10);
  assert_int_equal(ing_count_lines(f->table), 0); /* no dead letters */
  /* stdin's end is a true end: its unterminated last line is read. */
  tu_sh(&r, "printf '{\"id\":7,\"v\":1}\\n{\"id\":8,\"v\":2}' | '%s' ingest '%s' --source stdin",
        INLET_BIN, f->table);
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.err, "ingested 2 rows"));
  tu_result_free(&r);
  tu_sh(&r, "'%s' ingest '%s' --source '%s' --follow --final", INLET_BIN, f->table, f->source);
  assert_int_equal(r.status, 2); /* --final says the input is complete: not with --follow */
  tu_result_free(&r);
}

static void test_ingest__copy_truncate_rotation_still_works(void **state) {
  fx *f = *state;
  ing_create_table(f->table, "id long not null, v long", NULL);
  write_ids(f->src, 0, 100, "w");
  tu_result r = run_ingest(f, NULL);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  /* 10 more records, then logrotate's copytruncate, then new records. */
  write_ids(f->src, 100, 110, "a");
  tu_sh(&r, "cp '%s' '%s.1' && : > '%s'", f->src, f->src, f->src);
  tu_result_free(&r);
  write_ids(f->src, 500, 560, "a");
  r = run_ingest(f, NULL);
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.err, "copy-truncate"));
  assert_non_null(strstr(r.err, "ingested 70 rows"));
  tu_result_free(&r);
  expect_exactly(f->table, 170, 1000);
  /* Without the copy beside it, the new content is still read from its start. */
  char copy[700];
  snprintf(copy, sizeof copy, "%s.1", f->src);
  unlink(copy);
  tu_sh(&r, ": > '%s'", f->src);
  tu_result_free(&r);
  write_ids(f->src, 600, 620, "a");
  r = run_ingest(f, NULL);
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.err, "ingested 20 rows"));
  tu_result_free(&r);
  expect_exactly(f->table, 190, 1000);
}

/* ---- issue 11 §5: exactly-once cannot depend on how a source is spelt ----------- */

static void test_ingest__app_id_same_file_any_spelling(void **state) {
  fx *f = *state;
  ing_create_table(f->table, "id long not null, v long", NULL);
  write_ids(f->src, 0, 50, "w");
  tu_result r;
  /* Absolute, relative, dotted and through a symlinked directory: one record. */
  tu_sh(&r, "'%s' ingest '%s' --source 'file:%s' --once", INLET_BIN, f->table, f->src);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  write_ids(f->src, 50, 60, "a");
  tu_sh(&r, "cd '%s' && '%s' ingest t --source file:./in.ndjson --once", f->dir, INLET_BIN);
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.err, "ingested 10 rows"));
  tu_result_free(&r);
  write_ids(f->src, 60, 65, "a");
  tu_sh(&r, "cd '%s' && ln -s . link && '%s' ingest t --source file:link//./in.ndjson --once",
        f->dir, INLET_BIN);
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.err, "ingested 5 rows"));
  tu_result_free(&r);
  expect_exactly(f->table, 65, 100);
  /* Another path to the same file (a hard link): refused, not read again. */
  tu_sh(&r,
        "cd '%s' && ln in.ndjson other.ndjson && '%s' ingest t --source file:other.ndjson "
        "--once",
        f->dir, INLET_BIN);
  assert_int_equal(r.status, 1);
  assert_non_null(strstr(r.err, "already records progress for this file"));
  assert_non_null(strstr(r.err, "--app-id"));
  tu_result_free(&r);
  expect_exactly(f->table, 65, 100);
  /* Named with the recorded id, it continues that record. */
  char *abs = realpath(f->src, NULL), app[900];
  snprintf(app, sizeof app, "inlet-ingest:file:%s", abs);
  free(abs);
  write_ids(f->src, 65, 70, "a");
  tu_sh(&r, "cd '%s' && '%s' ingest t --source file:other.ndjson --once --app-id '%s'", f->dir,
        INLET_BIN, app);
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.err, "ingested 5 rows"));
  tu_result_free(&r);
  expect_exactly(f->table, 70, 100);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_ingest__once_resumes_without_duplicates, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_ingest__bad_records_go_to_dead_letter_files, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_ingest__late_rows_flagged_and_watermark_restored, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_ingest__late_drop_counts_and_route_writes_side_table,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_ingest__event_time_generated_partitions, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_ingest__refuses_txn_retention_tables, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ingest__stdin_source, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ingest__follow_stops_cleanly_on_sigterm, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_ingest__follow_rotation_and_restart, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ingest__usage_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ingest__file_truncated_in_place_is_not_reingested, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_ingest__file_replaced_by_superset_resumes_at_offset,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_ingest__once_leaves_half_line_for_next_run, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_ingest__copy_truncate_rotation_still_works, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_ingest__app_id_same_file_any_spelling, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
