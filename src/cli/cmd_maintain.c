/*
 * `inlet maintain TABLE [--follow] [--interval DURATION] [--compact]
 * [--vacuum] [--no-log-cleanup] [--min-files N] [--target-size SIZE]
 * [--max-runtime DURATION]`: the self-maintenance companion of an
 * ingester. Each pass compacts partitions whose small-file count passed the
 * threshold (when the table property inlet.autoCompact is true, or with
 * --compact), removes log entries past delta.logRetentionDuration below a
 * checkpoint, and optionally vacuums with the table's retention. With
 * --follow it repeats every interval until SIGINT/SIGTERM. Compaction
 * commits never conflict with ingestion appends, so ingestion is held up
 * only by the log's own serialisation (one commit slot at a time).
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "log.h"

static const char usage[] =
    "usage: inlet maintain TABLE [--follow] [--interval DURATION] [--compact] [--vacuum]\n"
    "                      [--no-log-cleanup] [--min-files N] [--target-size SIZE]\n"
    "                      [--max-runtime DURATION] [--single-writer]\n"
    "  compaction runs when table property inlet.autoCompact=true, or with "
    "--compact\n" CLI_SINGLE_WRITER_HELP CLI_TABLE_URL_HELP;

static volatile sig_atomic_t stop_flag;
static void on_signal(int sig) {
  (void)sig;
  stop_flag = 1;
}

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool auto_compact(inlet_table *t) {
  inlet_snapshot *s = NULL;
  inlet_error e = INLET_ERROR_INIT;
  if (inlet_table_snapshot(&s, t, &e) < 0) return false;
  const char *v = inlet_snapshot_property(s, "inlet.autoCompact");
  bool on = v && strcmp(v, "true") == 0;
  inlet_snapshot_free(s);
  return on;
}

static int pass(inlet_table *t, const inlet_compact_options *co, bool force_compact, bool vacuum,
                bool log_cleanup, bool verbose, inlet_error *err) {
  inlet_compact_result cr;
  memset(&cr, 0, sizeof cr);
  bool compacting = force_compact || auto_compact(t);
  if (compacting && inlet_table_compact(&cr, t, co, err) < 0) return -1;
  inlet_log_cleanup_result lr = {0, 0, -1};
  if (log_cleanup) {
    if (inlet_table_cleanup_log(&lr, t, NULL, err) < 0) return -1;
  }
  inlet_vacuum_result vr;
  memset(&vr, 0, sizeof vr);
  if (vacuum && inlet_table_vacuum(&vr, t, NULL, err) < 0) return -1;
  if (verbose || cr.commits || cr.failed_groups || lr.commits_removed || vr.files) {
    printf("maintain: version %lld: ", (long long)cr.read_version);
    if (compacting)
      printf("compacted %lld files -> %lld files (%lld rows) in %lld commits, %lld partitions "
             "over threshold, %lld bins failed",
             (long long)cr.files_removed, (long long)cr.files_added, (long long)cr.rows,
             (long long)cr.commits, (long long)cr.partitions, (long long)cr.failed_groups);
    else
      printf("auto-compaction off (inlet.autoCompact is not true)");
    if (log_cleanup)
      printf("; log: removed %lld commits, %lld checkpoints", (long long)lr.commits_removed,
             (long long)lr.checkpoints_removed);
    if (vacuum)
      printf("; vacuum: deleted %lld files, %lld bytes", (long long)vr.files, (long long)vr.bytes);
    printf("\n");
    fflush(stdout);
  }
  return 0;
}

static const cli_opt opts[] = {
    CLI_OPT_FLAG("follow"),
    CLI_OPT_STRING("interval"),
    CLI_OPT_FLAG("compact"),
    CLI_OPT_FLAG("vacuum"),
    CLI_OPT_FLAG("no-log-cleanup"),
    CLI_OPT_INT("min-files", 2, 1000000),
    CLI_OPT_SIZE("target-size", 1, INT64_MAX),
    CLI_OPT_STRING("max-runtime"),
    CLI_OPT_FLAG("single-writer"),
};

static int cmd_maintain(const cli_args *a) {
  const char *interval = cli_string(a, "interval"), *max_rt = cli_string(a, "max-runtime");
  bool follow = cli_flag(a, "follow"), compact = cli_flag(a, "compact"),
       vacuum = cli_flag(a, "vacuum"), no_log = cli_flag(a, "no-log-cleanup");
  const char *const *pos = a->pos;
  int rc;
  if (a->n_pos != 1) return cli_usage_error(usage, "maintain: missing TABLE");
  inlet_error err = INLET_ERROR_INIT;
  int64_t every = 10000, limit = -1;
  if (interval && inlet_duration_parse(&every, interval, &err) < 0)
    return cli_usage_error(usage, "%s", inlet_errmsg(&err));
  if (max_rt && inlet_duration_parse(&limit, max_rt, &err) < 0)
    return cli_usage_error(usage, "%s", inlet_errmsg(&err));
  inlet_compact_options co = INLET_COMPACT_OPTIONS_INIT;
  int64_t v;
  if (cli_int(a, "min-files", &v)) co.min_files = (int32_t)v;
  (void)cli_int(a, "target-size", &co.target_size);
  inlet_table *t = NULL;
  if (cli_table_open(a, pos[0], &t, &err) < 0) return cli_fail(&err);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  int64_t start = now_ms();
  rc = CLI_OK;
  for (;;) {
    if (pass(t, &co, compact, vacuum, !no_log, !follow, &err) < 0) {
      /* A follower survives transient failures (a conflict, a busy log);
       * a one-shot run reports them. */
      if (!follow) {
        rc = cli_fail(&err);
        break;
      }
      cli_log("warning", "maintain_retry", NULL, "maintain: %s (retrying next interval)",
              inlet_errmsg(&err));
      inlet_error_clear(&err);
    }
    if (!follow || stop_flag) break;
    int64_t wake = now_ms() + every;
    while (!stop_flag && now_ms() < wake && (limit < 0 || now_ms() - start < limit)) {
      struct timespec ts = {0, 50 * 1000 * 1000};
      nanosleep(&ts, NULL);
    }
    if (stop_flag || (limit >= 0 && now_ms() - start >= limit)) break;
  }
  inlet_table_free(t);
  return rc;
}

const cli_command cli_cmd_maintain = {
    "maintain",
    cmd_maintain,
    "TABLE [--follow] [--interval DURATION] [--compact] [--vacuum]",
    "auto-compaction and log cleanup companion",
    usage,
    opts,
    (int)(sizeof opts / sizeof opts[0]),
    1};
