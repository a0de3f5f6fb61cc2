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
 * --json prints one object per pass; with --follow, --metrics-listen serves
 * the passes' counters and the table's state (service.h).
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "log.h"
#include "service.h"

static const char usage[] =
    "usage: inlet maintain TABLE [--follow] [--interval DURATION] [--compact] [--vacuum]\n"
    "                      [--no-log-cleanup] [--min-files N] [--target-size SIZE]\n"
    "                      [--max-runtime DURATION] [--single-writer] [--json]\n"
    "                      [--metrics-listen HOST:PORT] [--stall-limit DURATION]\n"
    "                      [--threads N]\n"
    "  compaction runs when table property inlet.autoCompact=true, or with --compact\n"
    "  --json           one JSON object per pass on standard output (JSON lines with\n"
    "                   --follow; docs/JSON.md)\n"
    "  --metrics-listen HOST:PORT  with --follow: Prometheus metrics on /metrics (passes,\n"
    "                   compaction runs, files and bytes rewritten, checkpoints, log cleanup,\n"
    "                   vacuum deletions, table version/files/small files, last success)\n"
    "                   and /healthz: 200 while passes succeed within --stall-limit\n"
    "                   (default: 3 intervals, at least 1m), 503 otherwise\n" CLI_THREADS_HELP
        CLI_SINGLE_WRITER_HELP CLI_TABLE_URL_HELP;

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

/* Which steps of a pass ran to the end. */
typedef struct steps {
  bool compacting, compacted, cleaned, vacuumed;
} steps;

static int pass(inlet_table *t, const inlet_compact_options *co, bool force_compact, bool vacuum,
                bool log_cleanup, cli_maintain_pass *r, steps *st, inlet_error *err) {
  st->compacting = force_compact || auto_compact(t);
  if (st->compacting && log_cleanup) {
    /* A pass whose log cleanup the writer-feature gate refuses (v2
     * checkpoints) changes nothing: checked (a dry run) before compacting. */
    inlet_log_cleanup_options lo = INLET_LOG_CLEANUP_OPTIONS_INIT;
    lo.dry_run = true;
    if (inlet_table_cleanup_log(NULL, t, &lo, err) < 0) return -1;
  }
  if (st->compacting) {
    if (inlet_table_compact(&r->compact, t, co, err) < 0) return -1;
    st->compacted = r->compacted = true;
  }
  if (log_cleanup) {
    if (inlet_table_cleanup_log(&r->log, t, NULL, err) < 0) return -1;
    st->cleaned = true;
  }
  if (vacuum) {
    if (inlet_table_vacuum(&r->vacuum, t, NULL, err) < 0) return -1;
    st->vacuumed = true;
  }
  return 0;
}

static void print_text(const cli_maintain_pass *r, const steps *st, bool vacuum, bool log_cleanup,
                       bool verbose) {
  const inlet_compact_result *cr = &r->compact;
  if (!(verbose || cr->commits || cr->failed_groups || r->log.commits_removed || r->vacuum.files))
    return;
  printf("maintain: version %lld: ", (long long)cr->read_version);
  if (st->compacting)
    printf("compacted %lld files -> %lld files (%lld rows) in %lld commits, %lld partitions "
           "over threshold, %lld bins failed",
           (long long)cr->files_removed, (long long)cr->files_added, (long long)cr->rows,
           (long long)cr->commits, (long long)cr->partitions, (long long)cr->failed_groups);
  else
    printf("auto-compaction off (inlet.autoCompact is not true)");
  if (log_cleanup)
    printf("; log: removed %lld commits, %lld checkpoints", (long long)r->log.commits_removed,
           (long long)r->log.checkpoints_removed);
  if (vacuum)
    printf("; vacuum: deleted %lld files, %lld bytes", (long long)r->vacuum.files,
           (long long)r->vacuum.bytes);
  printf("\n");
  fflush(stdout);
}

static void json_int_or_null(int64_t v) {
  if (v >= 0)
    printf("%lld", (long long)v);
  else
    fputs("null", stdout);
}

/* One JSON line per pass (docs/JSON.md "maintain"). */
static void print_json(int64_t n, const cli_maintain_pass *r, const steps *st, const char *error) {
  const inlet_compact_result *c = &r->compact;
  printf("{\"format_version\":1,\"pass\":%lld,\"ok\":%s,\"error\":", (long long)n,
         r->ok ? "true" : "false");
  if (error)
    cli_json_string(stdout, error);
  else
    fputs("null", stdout);
  fputs(",\"compaction\":", stdout);
  if (st->compacted) {
    printf("{\"read_version\":%lld,\"partitions\":%lld,\"bins\":%lld,\"commits\":%lld,"
           "\"failed_groups\":%lld,\"files_removed\":%lld,\"files_added\":%lld,"
           "\"bytes_removed\":%lld,\"bytes_added\":%lld,\"rows\":%lld,\"last_version\":",
           (long long)c->read_version, (long long)c->partitions, (long long)c->bins,
           (long long)c->commits, (long long)c->failed_groups, (long long)c->files_removed,
           (long long)c->files_added, (long long)c->bytes_removed, (long long)c->bytes_added,
           (long long)c->rows);
    json_int_or_null(c->last_version);
    fputs("}", stdout);
  } else {
    fputs("null", stdout);
  }
  fputs(",\"log_cleanup\":", stdout);
  if (st->cleaned) {
    printf("{\"commits_removed\":%lld,\"checkpoints_removed\":%lld,\"oldest_kept\":",
           (long long)r->log.commits_removed, (long long)r->log.checkpoints_removed);
    json_int_or_null(r->log.oldest_kept);
    fputs("}", stdout);
  } else {
    fputs("null", stdout);
  }
  fputs(",\"vacuum\":", stdout);
  if (st->vacuumed)
    printf("{\"files\":%lld,\"bytes\":%lld,\"tombstoned\":%lld,\"debris\":%lld,"
           "\"kept\":%lld,\"symlinks\":%lld}",
           (long long)r->vacuum.files, (long long)r->vacuum.bytes, (long long)r->vacuum.tombstoned,
           (long long)r->vacuum.debris, (long long)r->vacuum.kept, (long long)r->vacuum.symlinks);
  else
    fputs("null", stdout);
  const inlet_table_description *d = &r->desc;
  fputs(",\"version\":", stdout);
  json_int_or_null(r->described ? d->version : -1);
  fputs(",\"files\":", stdout);
  json_int_or_null(r->described ? d->files : -1);
  fputs(",\"small_files\":", stdout);
  json_int_or_null(r->described ? d->small_files : -1);
  fputs(",\"bytes\":", stdout);
  json_int_or_null(r->described ? d->bytes : -1);
  fputs(",\"last_checkpoint\":", stdout);
  json_int_or_null(r->described ? d->last_checkpoint : -1);
  printf(",\"new_checkpoints\":%lld}\n", (long long)r->checkpoints);
  fflush(stdout);
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
    CLI_OPT_FLAG("json"),
    CLI_OPT_STRING("metrics-listen"),
    CLI_OPT_STRING("stall-limit"),
    CLI_OPT_THREADS,
};

static int cmd_maintain(const cli_args *a) {
  const char *interval = cli_string(a, "interval"), *max_rt = cli_string(a, "max-runtime"),
             *listen = cli_string(a, "metrics-listen"), *stall = cli_string(a, "stall-limit");
  bool follow = cli_flag(a, "follow"), compact = cli_flag(a, "compact"),
       vacuum = cli_flag(a, "vacuum"), no_log = cli_flag(a, "no-log-cleanup"),
       json = cli_flag(a, "json");
  const char *const *pos = a->pos;
  int rc;
  if (a->n_pos != 1) return cli_usage_error(usage, "maintain: missing TABLE");
  if ((listen || stall) && !follow)
    return cli_usage_error(usage, "maintain: --metrics-listen and --stall-limit need --follow");
  inlet_error err = INLET_ERROR_INIT;
  int64_t every = 10000, limit = -1, stall_ms = -1;
  if (interval && inlet_duration_parse(&every, interval, &err) < 0)
    return cli_usage_error(usage, "%s", inlet_errmsg(&err));
  if (max_rt && inlet_duration_parse(&limit, max_rt, &err) < 0)
    return cli_usage_error(usage, "%s", inlet_errmsg(&err));
  if (stall && inlet_duration_parse(&stall_ms, stall, &err) < 0)
    return cli_usage_error(usage, "maintain: --stall-limit: %s", inlet_errmsg(&err));
  if (stall_ms < 0) stall_ms = every * 3 > 60000 ? every * 3 : 60000;
  if (stall_ms < 1) stall_ms = 1;
  inlet_compact_options co = INLET_COMPACT_OPTIONS_INIT;
  co.threads = cli_threads(a);
  int64_t v;
  if (cli_int(a, "min-files", &v)) co.min_files = (int32_t)v;
  (void)cli_int(a, "target-size", &co.target_size);
  inlet_table *t = NULL;
  if (cli_table_open(a, pos[0], &t, &err) < 0) return cli_fail(&err);
  inlet_table_open_options oo = cli_table_options(a);
  cli_service_options so = {.listen = listen,
                            .stall_ms = stall_ms,
                            .table = pos[0],
                            .open_options = &oo,
                            .maintain = true};
  cli_service *svc = NULL;
  char serr[512];
  if (follow && cli_service_start(&svc, &so, serr, sizeof serr) < 0) {
    inlet_table_free(t);
    return cli_usage_error(usage, "maintain: %s", serr);
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  int64_t start = now_ms(), checkpoint = -1, n = 0;
  inlet_table_description d0;
  if (inlet_table_describe(t, &d0, NULL, &err) == 0) checkpoint = d0.last_checkpoint;
  inlet_error_clear(&err);
  rc = CLI_OK;
  for (;;) {
    cli_maintain_pass r;
    memset(&r, 0, sizeof r);
    r.log.oldest_kept = -1;
    r.compact.last_version = -1;
    steps st = {false, false, false, false};
    r.ok = pass(t, &co, compact, vacuum, !no_log, &r, &st, &err) == 0;
    inlet_error derr = INLET_ERROR_INIT;
    if (inlet_table_describe(t, &r.desc, NULL, &derr) == 0) {
      r.described = true;
      r.checkpoints = r.desc.last_checkpoint > checkpoint ? 1 : 0;
      checkpoint = r.desc.last_checkpoint;
    }
    inlet_error_clear(&derr);
    n++;
    cli_service_pass(svc, &r);
    /* A follower survives transient failures (a conflict, a busy log);
     * a one-shot run reports them. */
    if (!r.ok && !follow) {
      rc = cli_fail(&err);
      break;
    }
    if (json)
      print_json(n, &r, &st, r.ok ? NULL : inlet_errmsg(&err));
    else if (r.ok)
      print_text(&r, &st, vacuum, !no_log, !follow);
    if (!r.ok) {
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
  cli_service_stop(svc);
  inlet_table_free(t);
  return rc;
}

const cli_command cli_cmd_maintain = {
    "maintain",
    cmd_maintain,
    "TABLE [--follow] [--interval DURATION] [--compact] [--vacuum] [--json]",
    "auto-compaction and log cleanup companion",
    usage,
    opts,
    (int)(sizeof opts / sizeof opts[0]),
    1};
