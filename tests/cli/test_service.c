/*
 * `inlet ingest` as a service (src/cli/service.c):
 *   - --metrics-listen serves Prometheus text that promtool accepts, with
 *     the values of what the test fed: rows committed, rejected and late
 *     records, commits, batch sizes, table version and files;
 *   - /healthz answers 200 while records come, 503 once the source stalls
 *     past --stall-limit, 200 again when records come back;
 *   - systemd notifications on a socket the test listens on: READY=1,
 *     STATUS=, WATCHDOG=1, STOPPING=1;
 *   - bad listen addresses are usage errors (exit 2);
 *   - `maintain --follow --metrics-listen`: the maintenance counters, the
 *     table's state and /healthz.
 */
#include "testutil.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void sh_ok(tu_result *r, const char *what) {
  if (r->status != 0)
    fail_msg("%s: exit %d\nstdout: %s\nstderr: %s", what, r->status, r->out, r->err);
}

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Starts `sh -c CMD` in the background, stderr to @p err_path. */
static pid_t spawn(const char *dir, const char *cmd) {
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    if (chdir(dir) != 0) _exit(126);
    execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    _exit(127);
  }
  return pid;
}

/* The port the ingester printed ("metrics on http://127.0.0.1:PORT/metrics"). */
static int wait_port(const char *err_path) {
  int64_t deadline = now_ms() + 60000;
  while (now_ms() < deadline) {
    char *e = tu_read_file(err_path, NULL);
    const char *p = e ? strstr(e, "metrics on http://127.0.0.1:") : NULL;
    int port = p ? atoi(p + strlen("metrics on http://127.0.0.1:")) : 0;
    free(e);
    if (port > 0) return port;
    usleep(50000);
  }
  fail_msg("the ingester never printed its metrics address");
  return 0;
}

/* GET http://127.0.0.1:PORT/PATH: the HTTP status, body in *body. */
static int http_get(int port, const char *path, char **body) {
  tu_result r;
  tu_sh(&r, "curl -s -m 10 -w '\\n%%{http_code}' http://127.0.0.1:%d%s", port, path);
  sh_ok(&r, "curl");
  char *nl = strrchr(r.out, '\n');
  assert_non_null(nl);
  int status = atoi(nl + 1);
  *nl = '\0';
  *body = strdup(r.out);
  tu_result_free(&r);
  return status;
}

/* Value of the series @p name (its first sample line) in @p text, -1 when absent. */
static double metric(const char *text, const char *name) {
  size_t n = strlen(name);
  for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
    if (strncmp(p, name, n) == 0 && (p[n] == '{' || p[n] == ' ')) {
      const char *v = strchr(p, '}');
      v = v ? v + 1 : p + n;
      return strtod(v, NULL);
    }
  }
  return -1;
}

/* Polls /metrics until @p name reaches @p want (60 s at most); returns the text. */
static char *metrics_when(int port, const char *name, double want) {
  int64_t deadline = now_ms() + 60000;
  for (;;) {
    char *m = NULL;
    assert_int_equal(http_get(port, "/metrics", &m), 200);
    if (metric(m, name) >= want) return m;
    if (now_ms() > deadline) fail_msg("%s never reached %g:\n%s", name, want, m);
    free(m);
    usleep(100000);
  }
}

static int health_when(int port, int want, int64_t within_ms) {
  int64_t deadline = now_ms() + within_ms;
  for (;;) {
    char *b = NULL;
    int st = http_get(port, "/healthz", &b);
    if (st == want || now_ms() > deadline) {
      if (st != want) fail_msg("/healthz: %d (%s), expected %d", st, b, want);
      free(b);
      return st;
    }
    free(b);
    usleep(100000);
  }
}

static void append_text(const char *path, const char *text) {
  FILE *f = fopen(path, "a");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static void test_service__metrics_and_health(void **state) {
  (void)state;
  char dir[4096], ev[4200], err_path[4200];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("service-metrics"));
  snprintf(ev, sizeof ev, "%s/ev.ndjson", dir);
  snprintf(err_path, sizeof err_path, "%s/err.txt", dir);
  /* 100 events a second apart from 12:00:00, one 10 minutes late, two bad. */
  FILE *f = fopen(ev, "w");
  assert_non_null(f);
  for (int i = 0; i < 100; i++)
    fprintf(f, "{\"id\":%d,\"ts\":\"2024-05-01T12:%02d:%02dZ\"}\n", i, i / 60, i % 60);
  fprintf(f, "{\"id\":100,\"ts\":\"2024-05-01T11:51:00Z\"}\n");
  fprintf(f, "{bad json\n{\"id\":\"not a number\",\"ts\":\"2024-05-01T12:00:00Z\"}\n");
  fclose(f);
  char cmd[8192];
  snprintf(cmd, sizeof cmd,
           "exec '%s' ingest t --source file:ev.ndjson --follow --create-schema 'id long, ts "
           "timestamp' --event-time ts --allowed-lateness 1m --max-rows 30 --max-latency 100ms "
           "--metrics-listen 127.0.0.1:0 --stall-limit 3s --quiet 2> err.txt",
           INLET_BIN);
  pid_t pid = spawn(dir, cmd);
  int port = wait_port(err_path);

  char *m = metrics_when(port, "inlet_ingest_records_committed_total", 101);
  /* Exactly what was fed. */
  assert_int_equal((int)metric(m, "inlet_ingest_records_committed_total"), 101);
  assert_int_equal((int)metric(m, "inlet_ingest_records_rejected_total"), 2);
  assert_int_equal((int)metric(m, "inlet_ingest_records_late_total"), 1);
  assert_int_equal((int)metric(m, "inlet_ingest_batch_rows_sum"), 101);
  double commits = metric(m, "inlet_ingest_commits_total");
  assert_true(commits >= 4); /* 30-row batches at most */
  assert_int_equal((int)metric(m, "inlet_ingest_batch_rows_count"), (int)commits);
  assert_int_equal((int)metric(m, "inlet_ingest_batch_latency_seconds_count"), (int)commits);
  assert_int_equal((int)metric(m, "inlet_table_version"), (int)commits - 1);
  assert_true(metric(m, "inlet_ingest_watermark_seconds") > 1714564800.0);
  assert_true(metric(m, "inlet_ingest_last_success_timestamp_seconds") > 1.7e9);
  assert_non_null(strstr(m, "table=\"t\",source=\"file:ev.ndjson\""));
  free(m);
  /* The file counts come from the table itself. */
  m = metrics_when(port, "inlet_table_files", commits);
  assert_int_equal((int)metric(m, "inlet_table_files"), (int)commits);
  assert_int_equal((int)metric(m, "inlet_table_small_files"), (int)commits);
  /* promtool, Prometheus' own checker, accepts the exposition. */
  char mp[4300];
  snprintf(mp, sizeof mp, "%s/metrics.txt", dir);
  assert_int_equal(tu_write_file(mp, m, strlen(m)), 0);
  free(m);
  tu_result r;
  tu_sh(&r, "promtool check metrics < '%s'", mp);
  sh_ok(&r, "promtool check metrics");
  tu_result_free(&r);

  /* Health: the source stalls past 3 s -> 503; records again -> 200. */
  health_when(port, 503, 20000);
  char *b = NULL;
  assert_int_equal(http_get(port, "/healthz", &b), 503);
  assert_non_null(strstr(b, "stalled"));
  free(b);
  append_text(ev, "{\"id\":101,\"ts\":\"2024-05-01T12:02:00Z\"}\n");
  health_when(port, 200, 20000);
  m = metrics_when(port, "inlet_ingest_records_committed_total", 102);
  free(m);
  assert_int_equal(http_get(port, "/nothing", &b), 404);
  free(b);

  assert_int_equal(kill(pid, SIGTERM), 0);
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
  tu_rmtree(dir);
}

static void test_service__systemd_notifications(void **state) {
  (void)state;
  char dir[4096], sock[4200];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("service-notify"));
  snprintf(sock, sizeof sock, "%s/notify.sock", dir);
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  assert_true(fd >= 0);
  struct sockaddr_un sa;
  memset(&sa, 0, sizeof sa);
  sa.sun_family = AF_UNIX;
  assert_true(strlen(sock) < sizeof sa.sun_path);
  strcpy(sa.sun_path, sock);
  assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
  char ev[4300];
  snprintf(ev, sizeof ev, "%s/ev.ndjson", dir);
  FILE *f = fopen(ev, "w");
  assert_non_null(f);
  for (int i = 0; i < 50; i++)
    fprintf(f, "{\"id\":%d}\n", i);
  fclose(f);
  tu_result r;
  tu_sh(&r,
        "cd '%s' && NOTIFY_SOCKET='%s' WATCHDOG_USEC=2000000 '%s' ingest t --source "
        "file:ev.ndjson --once --create-schema 'id long' --max-rows 20 --quiet",
        dir, sock, INLET_BIN);
  sh_ok(&r, "ingest under NOTIFY_SOCKET");
  tu_result_free(&r);
  char all[16384] = "";
  size_t used = 0;
  char buf[4096];
  ssize_t n;
  while ((n = recv(fd, buf, sizeof buf - 1, MSG_DONTWAIT)) > 0) {
    buf[n] = '\0';
    if (used + (size_t)n + 2 < sizeof all) {
      memcpy(all + used, buf, (size_t)n);
      used += (size_t)n;
      all[used++] = '|';
      all[used] = '\0';
    }
  }
  close(fd);
  const char *ready = strstr(all, "READY=1"), *stopping = strstr(all, "STOPPING=1");
  if (!ready || !stopping || !strstr(all, "WATCHDOG=1") ||
      !strstr(all, "STATUS=3 batches, 50 rows, 0 rejected, table version 2"))
    fail_msg("notifications: %s", all);
  assert_true(ready < stopping);
  tu_rmtree(dir);
}

/* A service log (stderr not a terminal) is never silent for long: the start,
 * then a summary line every --summary-interval. */
static void test_service__summary_lines_without_a_terminal(void **state) {
  (void)state;
  char dir[4096], ev[4200], err_path[4200];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("service-summary"));
  snprintf(ev, sizeof ev, "%s/ev.ndjson", dir);
  snprintf(err_path, sizeof err_path, "%s/err.txt", dir);
  append_text(ev, "{\"id\":1}\n{\"id\":2}\n");
  char cmd[8192];
  snprintf(cmd, sizeof cmd,
           "exec '%s' ingest t --source file:ev.ndjson --follow --create-schema 'id long' "
           "--max-latency 100ms --summary-interval 300ms 2> err.txt",
           INLET_BIN);
  pid_t pid = spawn(dir, cmd);
  int64_t deadline = now_ms() + 60000;
  char *e = NULL;
  int summaries = 0;
  while (now_ms() < deadline) {
    free(e);
    e = tu_read_file(err_path, NULL);
    summaries = 0;
    for (const char *p = e; p && (p = strstr(p, "inlet: ingest: 2 rows in 1 batches")); p++)
      summaries++;
    if (summaries >= 2) break;
    usleep(100000);
  }
  assert_int_equal(kill(pid, SIGTERM), 0);
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  if (summaries < 2 || !strstr(e, "inlet: ingest: started at"))
    fail_msg("stderr: %s", e ? e : "(none)");
  free(e);
  tu_rmtree(dir);
}

static void test_service__bad_listen_address_is_a_usage_error(void **state) {
  (void)state;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("service-bad"));
  static const char *const bad[] = {"nohostport", "127.0.0.1:99999", "127.0.0.1:x",
                                    "no.such.host.invalid:9464"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    tu_result r;
    tu_sh(&r,
          "cd '%s' && echo '{\"id\":1}' | '%s' ingest t --source stdin --create-schema 'id long' "
          "--metrics-listen '%s'",
          dir, INLET_BIN, bad[i]);
    if (r.status != 2 || !strstr(r.err, "--metrics-listen"))
      fail_msg("--metrics-listen %s: exit %d, %s", bad[i], r.status, r.err);
    tu_result_free(&r);
  }
  tu_rmtree(dir);
}

/* `maintain --follow --metrics-listen`: promtool accepts the exposition;
 * the counters match what the pass did to a table of 4 one-row files
 * (one compaction run, 4 files and their bytes rewritten into 1, the
 * checkpoint of the compaction commit at interval 5, the 4 replaced files
 * vacuumed with retention 0); /healthz turns 503 when passes fail past
 * --stall-limit (a garbage commit) and 200 when they succeed again. */
static void test_service__maintain_metrics(void **state) {
  (void)state;
  char dir[4096], err_path[4200];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("service-maintain"));
  snprintf(err_path, sizeof err_path, "%s/err.txt", dir);
  tu_result r;
  tu_sh(&r,
        "cd '%s' && '%s' create t --schema 'id long' --property "
        "delta.deletedFileRetentionDuration='interval 0 seconds' --property "
        "delta.checkpointInterval=5 && for i in 1 2 3 4; do echo \"{\\\"id\\\":$i}\" > "
        "in$i.ndjson && '%s' append t in$i.ndjson || exit 1; done && '%s' describe t --json",
        dir, INLET_BIN, INLET_BIN, INLET_BIN);
  sh_ok(&r, "setup");
  const char *b0 = strstr(r.out, "\"bytes\": ");
  assert_non_null(b0);
  double bytes_before = strtod(b0 + strlen("\"bytes\": "), NULL);
  assert_true(bytes_before > 0);
  tu_result_free(&r);
  int64_t started = (int64_t)time(NULL);
  char cmd[8300];
  snprintf(cmd, sizeof cmd,
           "exec '%s' maintain t --follow --interval 200ms --compact --vacuum --min-files 2 "
           "--metrics-listen 127.0.0.1:0 --stall-limit 2s --json > out.jsonl 2> err.txt",
           INLET_BIN);
  pid_t pid = spawn(dir, cmd);
  int port = wait_port(err_path);
  char *m = metrics_when(port, "inlet_maintain_vacuum_files_deleted_total", 4);
  assert_int_equal((int)metric(m, "inlet_maintain_compaction_runs_total"),
                   (int)metric(m, "inlet_maintain_passes_total"));
  assert_int_equal((int)metric(m, "inlet_maintain_pass_failures_total"), 0);
  assert_int_equal((int)metric(m, "inlet_maintain_compaction_commits_total"), 1);
  assert_int_equal((int)metric(m, "inlet_maintain_compaction_files_removed_total"), 4);
  assert_int_equal((int)metric(m, "inlet_maintain_compaction_files_added_total"), 1);
  assert_true(metric(m, "inlet_maintain_compaction_bytes_rewritten_total") == bytes_before);
  assert_int_equal((int)metric(m, "inlet_maintain_compaction_rows_total"), 4);
  assert_int_equal((int)metric(m, "inlet_maintain_checkpoints_total"), 1);
  assert_true(metric(m, "inlet_maintain_vacuum_bytes_deleted_total") == bytes_before);
  assert_int_equal((int)metric(m, "inlet_table_version"), 5);
  assert_int_equal((int)metric(m, "inlet_table_files"), 1);
  assert_int_equal((int)metric(m, "inlet_table_small_files"), 1);
  assert_int_equal((int)metric(m, "inlet_table_last_checkpoint_version"), 5);
  double last = metric(m, "inlet_maintain_last_success_timestamp_seconds");
  assert_true(last >= (double)started - 1 && last <= (double)time(NULL) + 1);
  assert_int_equal((int)metric(m, "inlet_maintain_healthy"), 1);
  assert_non_null(strstr(m, "{table=\"t\"}"));
  char mp[4300];
  snprintf(mp, sizeof mp, "%s/metrics.txt", dir);
  assert_int_equal(tu_write_file(mp, m, strlen(m)), 0);
  free(m);
  tu_sh(&r, "promtool check metrics < '%s'", mp);
  sh_ok(&r, "promtool check metrics");
  tu_result_free(&r);
  health_when(port, 200, 5000);
  /* Passes fail while the log's next commit is garbage: 503 past 2 s, 200
   * once it is gone. */
  tu_sh(&r, "cd '%s' && echo 'not json' > t/_delta_log/00000000000000000006.json", dir);
  sh_ok(&r, "corrupt commit");
  tu_result_free(&r);
  health_when(port, 503, 20000);
  m = metrics_when(port, "inlet_maintain_pass_failures_total", 1);
  assert_int_equal((int)metric(m, "inlet_maintain_healthy"), 0);
  free(m);
  tu_sh(&r, "cd '%s' && rm t/_delta_log/00000000000000000006.json", dir);
  sh_ok(&r, "rm");
  tu_result_free(&r);
  health_when(port, 200, 20000);

  assert_int_equal(kill(pid, SIGTERM), 0);
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
  /* --json with --follow: one line per pass, the first with the compaction,
   * failed passes with ok false and the error. */
  char out_path[4300];
  snprintf(out_path, sizeof out_path, "%s/out.jsonl", dir);
  char *out = tu_read_file(out_path, NULL);
  assert_non_null(out);
  assert_non_null(strstr(out, "\"pass\":1,\"ok\":true,\"error\":null,\"compaction\":{"));
  assert_non_null(strstr(out, "\"files_removed\":4"));
  assert_non_null(strstr(out, "\"ok\":false,\"error\":\""));
  free(out);
  tu_rmtree(dir);
}

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_service__metrics_and_health),
      cmocka_unit_test(test_service__systemd_notifications),
      cmocka_unit_test(test_service__summary_lines_without_a_terminal),
      cmocka_unit_test(test_service__bad_listen_address_is_a_usage_error),
      cmocka_unit_test(test_service__maintain_metrics),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
