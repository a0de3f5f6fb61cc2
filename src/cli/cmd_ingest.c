/*
 * `inlet ingest TABLE --source SRC [options]`: runs the streaming ingester of
 * include/inlet/ingest.h, with a live status line on a terminal, a final
 * summary, --json progress events (one JSON object per line on stdout), and
 * SIGINT/SIGTERM handled by finishing the current batch and exiting 0.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "log.h"
#include "progress.h"
#include "service.h"

static const char usage[] =
    "usage: inlet ingest TABLE --source SRC [--format ndjson|csv] [--max-rows N]\n"
    "                    [--max-bytes B] [--max-latency DUR] [--once] [--follow]\n"
    "                    [--max-record-bytes B]\n"
    "                    [--final] [--allow-gaps]\n"
    "                    [--app-id ID] [--event-time COL --allowed-lateness DUR]\n"
    "                    [--late-policy keep|drop|route:TABLE]\n"
    "                    [--schema-evolution reject|ignore|add] [--coerce] [--max-rejected N|P%]\n"
    "                    [--compression snappy|zstd|gzip|lz4_raw|brotli|none] [--quiet] [--json]\n"
    "                    [--create-schema 'DDL'] [--single-writer]\n"
    "                    [--group NAME] [--kafka-property KEY=VALUE]...\n"
    "                    [--kafka-start earliest|latest] [--kdi-app-id ID]\n"
    "                    [--kafka-columns NAME=COL,...] (NAME: topic, partition, offset,\n"
    "                    timestamp, key, headers)\n"
    "                    [--metrics-listen HOST:PORT] [--stall-limit DUR] [--notify]\n"
    "                    [--summary-interval DUR] [--threads N]\n"
    "\n"
    "Sources:\n"
    "  file:PATH        NDJSON or CSV file, read to its end (or followed with --follow,\n"
    "                   surviving rotation by rename, copy-truncate and truncation); resumes\n"
    "                   exactly where the table's last commit left off. An unterminated last\n"
    "                   line is left for the next run (its writer may be mid-line) unless\n"
    "                   --final says the file is complete\n"
    "  stdin            standard input. Committed data is never duplicated within a run,\n"
    "                   but a restarted process cannot replay what an earlier one consumed:\n"
    "                   records read but not yet committed when it died are lost\n"
    "  redis://HOST:PORT/STREAM\n"
    "                   Redis stream (XREAD) from the entry id recorded in the table; the\n"
    "                   entry's \"data\" field holds the JSON record, else its fields are used.\n"
    "                   Entries trimmed away before they were read stop the run with an\n"
    "                   error naming the gap; --allow-gaps skips it (recorded in the commit).\n"
    "                   Redis restarting or loading is waited for (retries are reported)\n"
    "  kafka://HOST:PORT[,HOST:PORT...]/TOPIC[,TOPIC...]\n"
    "                   Kafka topics, each message value one record, read in consumer group\n"
    "                   --group (default: the app id; several ingesters in one group share the\n"
    "                   partitions). Each commit records every partition's next offset in the\n"
    "                   table (txn APP#TOPIC#PARTITION); on assignment a partition is read from\n"
    "                   there, one the table never saw from --kafka-start (default earliest).\n"
    "                   Followed by default; --once reads up to the end offsets seen at start.\n"
    "                   --kafka-property passes librdkafka settings (security.protocol, sasl.*,\n"
    "                   ssl.*, client.id, fetch sizes, ...); --kafka-columns names table columns\n"
    "                   for message metadata (headers: a map column); --kdi-app-id continues\n"
    "                   from a kafka-delta-ingest job's progress (txn ID-PARTITION).\n"
    "                   Secrets (sasl.password, ssl.key.password) belong in --config FILE\n"
    "                   (kafka-property = sasl.password=... under [ingest]) or in\n"
    "                   INLET_INGEST_KAFKA_PROPERTY, not on the command line\n"
    "\n"
    "A batch is committed at --max-rows (default 1000000), --max-bytes of input (default\n"
    "64MiB) or --max-latency after its first record (default 2s), whichever comes first.\n"
    "--once processes what is available and exits. Bad records go to TABLE/_errors/; a\n"
    "record (line, Redis entry, Kafka message value) over --max-record-bytes (default\n"
    "16MiB) is one, with its first B bytes.\n"
    "\n"
    "Running as a service:\n"
    "  --metrics-listen HOST:PORT  serve Prometheus metrics at /metrics and a health check at\n"
    "                   /healthz (200 while records or commits keep coming, 503 after\n"
    "                   --stall-limit without either, default 5m); :PORT listens on every\n"
    "                   interface, port 0 on any free port (the address is printed)\n"
    "  --notify         systemd notifications (also whenever NOTIFY_SOCKET is set): READY=1\n"
    "                   once the position is restored, STATUS= per batch, WATCHDOG=1 while\n"
    "                   the loop lives (WatchdogSec=), STOPPING=1 at the end; see\n"
    "                   contrib/inlet-ingest@.service\n"
    "  --summary-interval DUR  without a terminal (a service log), a one-line summary this\n"
    "                   often (default 1m; 0: none), besides the start, the end and every\n"
    "                   change of what the source waits for (reconnects, pauses, resumes)\n"
    "Records are never silently reshaped (docs/INGEST.md \"Unknown fields and types\"):\n"
    "  --schema-evolution reject  (default) a record with a field the table lacks is a bad\n"
    "                   record naming the field (--strict is the same)\n"
    "  --schema-evolution ignore  such fields are dropped and counted (summary, --json\n"
    "                   \"ignored_fields\", commitInfo numIgnoredFields)\n"
    "  --schema-evolution add  such fields become new nullable columns (struct fields inside\n"
    "                   struct columns), typed from their first value (integer: long, other\n"
    "                   numbers: double, bool: boolean, string, object: struct, array), in\n"
    "                   the same commit as the batch that brought them (a metaData action);\n"
    "                   a field that is null, {} or [] waits for a typed value. NDJSON only;\n"
    "                   refused (exit 6) on column-mapping tables\n"
    "  --coerce         also convert numbers and booleans into string columns, numeric\n"
    "                   strings into number, boolean and epoch columns (default: rejected)\n"
    "  --max-rejected N stop with exit code 8 once more than N records of the run were\n"
    "                   rejected: the batch up to that record is committed first\n"
    "  --max-rejected P%  stop with exit code 8 when, at a commit, more than P% of the\n"
    "                   run's records were rejected (that batch is committed)\n"
    "--app-id names the table's progress record for this source (default: derived from\n"
    "the source; recommended in production). Without it, a source the table already\n"
    "tracks under another id (same Redis stream name, same file) is refused.\n"
    "Durations need a unit: 250ms, 30s, 5m, 1h30m, 1d. SIGINT/SIGTERM finish the current\n"
    "batch, exit 0.\n"
    "--create-schema: when TABLE does not exist yet, the first batch's commit creates it\n"
    "(version 0 holds the table and that batch, one transaction). Ignored once it exists.\n"
    "route:TABLE is a directory or URL like TABLE, reached with the same "
    "settings.\n" CLI_SINGLE_WRITER_HELP CLI_TABLE_URL_HELP;

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig) {
  (void)sig;
  stop_flag = 1;
}

typedef struct ui {
  cli_service *svc; /* metrics, health, systemd; NULL when not asked for */
  bool quiet, json, tty;
  bool line_shown;
  int64_t last_rows;
  int64_t last_ms;
  /* Without a terminal (a service's log): a summary line every summary_ms
   * (0: never) and each change of what the source waits for. */
  int64_t summary_ms;
  int64_t summary_at_ms, summary_rows;
  char last_status[256];
  bool once; /* --once: a file source has a known end, so a bar */
} ui;

/* One line for a service log: cumulative counts and the rate since the last one. */
static void summary_line(ui *u, const inlet_ingest_progress *p) {
  double secs = (double)(p->elapsed_ms - u->summary_at_ms) / 1000.0;
  double rate = secs > 0 ? (double)(p->rows - u->summary_rows) / secs : 0;
  u->summary_at_ms = p->elapsed_ms;
  u->summary_rows = p->rows;
  char lag[32] = "unknown";
  if (p->lag_ms >= 0)
    snprintf(lag, sizeof lag, "%.1fs", (double)p->lag_ms / 1000.0);
  else if (p->lag_bytes >= 0)
    snprintf(lag, sizeof lag, "%lld bytes", (long long)p->lag_bytes);
  char fields[512], ver[24] = "null", lag_ms[24] = "null", lag_bytes[24] = "null";
  if (p->last_version >= 0) snprintf(ver, sizeof ver, "%lld", (long long)p->last_version);
  if (p->lag_ms >= 0) snprintf(lag_ms, sizeof lag_ms, "%lld", (long long)p->lag_ms);
  if (p->lag_bytes >= 0) snprintf(lag_bytes, sizeof lag_bytes, "%lld", (long long)p->lag_bytes);
  snprintf(fields, sizeof fields,
           "\"rows\":%lld,\"batches\":%lld,\"rows_per_second\":%.0f,\"version\":%s,"
           "\"late_rows\":%lld,\"rejected\":%lld,\"conflicts\":%lld,\"lag_ms\":%s,"
           "\"lag_bytes\":%s",
           (long long)p->rows, (long long)p->batches, rate, ver, (long long)p->late_rows,
           (long long)p->rejected, (long long)p->conflicts, lag_ms, lag_bytes);
  cli_log("info", "ingest_summary", fields,
          "ingest: %lld rows in %lld batches (%.0f rows/s), table version %lld, late %lld, "
          "rejected %lld, conflicts %lld, lag %s, position %s",
          (long long)p->rows, (long long)p->batches, rate, (long long)p->last_version,
          (long long)p->late_rows, (long long)p->rejected, (long long)p->conflicts, lag,
          p->position ? p->position : "-");
}

/* The service-log side of on_progress. */
static void log_progress(ui *u, const inlet_ingest_progress *p) {
  const char *st = p->status ? p->status : "";
  if (strcmp(st, u->last_status) != 0) {
    if (*st)
      cli_log("info", "source_waiting", NULL, "ingest: %s", st);
    else
      cli_log("info", "source_flowing", NULL, "ingest: source flowing again (was: %s)",
              u->last_status);
    snprintf(u->last_status, sizeof u->last_status, "%s", st);
  }
  if (p->event == INLET_INGEST_STARTED) {
    char fields[64] = "\"version\":null";
    if (p->last_version >= 0)
      snprintf(fields, sizeof fields, "\"version\":%lld", (long long)p->last_version);
    cli_log("info", "ingest_started", fields, "ingest: started at %s (table version %lld)",
            p->position ? p->position : "-", (long long)p->last_version);
  } else if (p->event != INLET_INGEST_FINISHED && u->summary_ms > 0 &&
             p->elapsed_ms - u->summary_at_ms >= u->summary_ms) {
    summary_line(u, p);
  }
  fflush(stderr);
}

static void json_string_field(const char *name, const char *v) {
  printf(",\"%s\":\"", name);
  for (const char *c = v; *c; c++) {
    if (*c == '"' || *c == '\\')
      printf("\\%c", *c);
    else if ((unsigned char)*c < 0x20)
      printf("\\u%04x", (unsigned)(unsigned char)*c);
    else
      putchar(*c);
  }
  putchar('"');
}

/* A count the source or table may not know yet (-1): null in JSON. */
static void json_i64_or_null(const char *name, int64_t v) {
  if (v >= 0)
    printf(",\"%s\":%lld", name, (long long)v);
  else
    printf(",\"%s\":null", name);
}

/* One line of `ingest --json` (docs/JSON.md "ingest"). */
static void json_event(const inlet_ingest_progress *p) {
  static const char *const names[] = {"started", "batch", "idle", "warning", "finished"};
  printf("{\"format_version\":1,\"event\":\"%s\",\"batches\":%lld,\"rows\":%lld,"
         "\"late_rows\":%lld,\"dropped_rows\":%lld,\"routed_rows\":%lld,\"rejected\":%lld,"
         "\"bytes\":%lld",
         names[p->event], (long long)p->batches, (long long)p->rows, (long long)p->late_rows,
         (long long)p->dropped_rows, (long long)p->routed_rows, (long long)p->rejected,
         (long long)p->bytes);
  json_i64_or_null("version", p->last_version);
  printf(",\"batch_rows\":%lld", (long long)p->batch_rows);
  json_i64_or_null("lag_ms", p->lag_ms);
  json_i64_or_null("lag_bytes", p->lag_bytes);
  printf(",\"bytes_written\":%lld", (long long)p->bytes_written);
  printf(",\"sequence\":%lld,\"elapsed_ms\":%lld,\"gaps\":%lld,\"conflicts\":%lld,"
         "\"ignored_fields\":%lld",
         (long long)p->sequence, (long long)p->elapsed_ms, (long long)p->gaps,
         (long long)p->conflicts, (long long)p->ignored_fields);
  if (p->batch_latency_ms >= 0)
    printf(",\"batch_latency_ms\":%lld", (long long)p->batch_latency_ms);
  if (p->watermark_us != INT64_MIN) printf(",\"watermark_us\":%lld", (long long)p->watermark_us);
  if (p->status) json_string_field("status", p->status);
  if (p->position) {
    printf(",\"position\":\"");
    for (const char *c = p->position; *c; c++)
      if (*c != '"' && *c != '\\') putchar(*c);
    putchar('"');
  }
  if (p->message) json_string_field("message", p->message);
  printf("}\n");
  fflush(stdout);
}

static void on_progress(void *ctx, const inlet_ingest_progress *p) {
  ui *u = ctx;
  cli_service_progress(u->svc, p);
  if (u->json) {
    json_event(p);
    return;
  }
  if (p->event == INLET_INGEST_WARNING) {
    if (u->line_shown) fputc('\n', stderr);
    u->line_shown = false;
    cli_log("warning", "ingest_warning", NULL, "%s", p->message);
    return;
  }
  if (u->quiet) return;
  if (!u->tty) {
    log_progress(u, p);
    return;
  }
  if (p->event != INLET_INGEST_BATCH && p->event != INLET_INGEST_IDLE) return;
  double secs = (double)(p->elapsed_ms - u->last_ms) / 1000.0;
  double rate = secs > 0 ? (double)(p->rows - u->last_rows) / secs : 0;
  u->last_ms = p->elapsed_ms;
  u->last_rows = p->rows;
  double late_pct =
      p->rows ? 100.0 * (double)p->late_rows / (double)(p->rows + p->dropped_rows + p->routed_rows)
              : 0.0;
  if (u->once && p->lag_bytes >= 0) {
    /* --once over a file: the end is known, so a bar with rate and ETA. */
    char stats[200], bar[512];
    snprintf(stats, sizeof stats, "  rows %lld  batches %lld  late %.1f%%  rejected %lld",
             (long long)p->rows, (long long)p->batches, late_pct, (long long)p->rejected);
    inlet_progress ev = {"ingest", "reading", "bytes", p->bytes,
                         p->lag_bytes > INT64_MAX - p->bytes ? INT64_MAX : p->bytes + p->lag_bytes};
    int32_t width = cli_terminal_width(2);
    int32_t room = width - (int32_t)strlen(stats);
    cli_progress_format(bar, sizeof bar, &ev, p->elapsed_ms, p->bytes, room < 40 ? 40 : room);
    size_t keep = width > 1 ? (size_t)width - 1 : 0, blen = strlen(bar);
    fprintf(stderr, "\r\033[K%s%.*s", bar, (int)(keep > blen ? keep - blen : 0), stats);
    fflush(stderr);
    u->line_shown = true;
    return;
  }
  char lag[32] = "-";
  if (p->lag_ms >= 0)
    snprintf(lag, sizeof lag, "%.1fs", (double)p->lag_ms / 1000.0);
  else if (p->lag_bytes >= 0)
    snprintf(lag, sizeof lag, "%lldB", (long long)p->lag_bytes);
  fprintf(stderr,
          "\r\033[K%.0f events/s  batches %lld  version %lld  lag %s  late %.1f%%  "
          "rejected %lld  rows %lld%s%s",
          rate, (long long)p->batches, (long long)p->last_version, lag, late_pct,
          (long long)p->rejected, (long long)p->rows, p->status ? "  " : "",
          p->status ? p->status : "");
  fflush(stderr);
  u->line_shown = true;
}

static const cli_opt opts[] = {
    CLI_OPT_STRING("source"),
    CLI_OPT_STRING("format"),
    CLI_OPT_SIZE("max-rows", 1, INT64_MAX),
    CLI_OPT_SIZE("max-bytes", 1, INT64_MAX),
    CLI_OPT_STRING("max-latency"),
    CLI_OPT_STRING("app-id"),
    CLI_OPT_STRING("event-time"),
    CLI_OPT_STRING("allowed-lateness"),
    CLI_OPT_STRING("late-policy"),
    CLI_OPT_STRING("compression"),
    CLI_OPT_FLAG("once"),
    CLI_OPT_FLAG("follow"),
    CLI_OPT_FLAG("strict"),
    CLI_OPT_FLAG("quiet"),
    CLI_OPT_FLAG("json"),
    CLI_OPT_STRING("create-schema"),
    CLI_OPT_FLAG("final"),
    CLI_OPT_FLAG("allow-gaps"),
    CLI_OPT_STRING("group"),
    CLI_OPT_SETTINGS("kafka-property"),
    CLI_OPT_STRING("kafka-start"),
    CLI_OPT_STRING("kafka-columns"),
    CLI_OPT_STRING("kdi-app-id"),
    CLI_OPT_FLAG("single-writer"),
    CLI_OPT_SIZE("max-record-bytes", 1, INT64_C(1) << 30),
    CLI_OPT_STRING("metrics-listen"),
    CLI_OPT_STRING("stall-limit"),
    CLI_OPT_FLAG("notify"),
    CLI_OPT_STRING("summary-interval"),
    CLI_OPT_STRING("schema-evolution"),
    CLI_OPT_FLAG("coerce"),
    CLI_OPT_STRING("max-rejected"),
    CLI_OPT_THREADS,
};

static int cmd_ingest(const cli_args *a) {
  const char *source = cli_string(a, "source"), *format = cli_string(a, "format"),
             *max_latency = cli_string(a, "max-latency"), *app_id = cli_string(a, "app-id"),
             *event_time = cli_string(a, "event-time"),
             *lateness = cli_string(a, "allowed-lateness"),
             *late_policy = cli_string(a, "late-policy"),
             *compression = cli_string(a, "compression"),
             *create_schema = cli_string(a, "create-schema");
  const char *group = cli_string(a, "group"), *kafka_start = cli_string(a, "kafka-start"),
             *kafka_columns = cli_string(a, "kafka-columns"),
             *kdi_app_id = cli_string(a, "kdi-app-id");
  bool once = cli_flag(a, "once"), follow = cli_flag(a, "follow"), strict = cli_flag(a, "strict"),
       quiet = cli_flag(a, "quiet"), json = cli_flag(a, "json"), final = cli_flag(a, "final"),
       allow_gaps = cli_flag(a, "allow-gaps");
  const char *const *pos = a->pos;
  int rc;
  if (a->n_pos != 1) return cli_usage_error(usage, "ingest: missing TABLE");
  if (!source) return cli_usage_error(usage, "ingest: missing --source");
  /* --kafka-property repeats: every one counts. */
  int n_props = 0;
  const char *const *props = cli_list(a, "kafka-property", &n_props);
  bool kafka = strncmp(source, "kafka://", 8) == 0;
  if (!kafka && (group || n_props || kafka_start || kafka_columns || kdi_app_id))
    return cli_usage_error(usage, "ingest: --group, --kafka-* and --kdi-app-id need a kafka:// "
                                  "source");
  inlet_error err = INLET_ERROR_INIT;
  inlet_ingest_options o = INLET_INGEST_OPTIONS_INIT;
  o.source = source;
  o.once = once;
  o.follow = follow;
  o.strict = strict;
  o.app_id = app_id;
  o.final = final;
  o.allow_gaps = allow_gaps;
  o.kafka_group = group;
  o.kafka_properties = props;
  o.n_kafka_properties = n_props;
  o.kafka_columns = kafka_columns;
  o.kafka_kdi_app_id = kdi_app_id;
  if (kafka_start) {
    if (strcmp(kafka_start, "latest") == 0)
      o.kafka_start_latest = true;
    else if (strcmp(kafka_start, "earliest") != 0)
      return cli_usage_error(usage, "ingest: bad --kafka-start '%s' (earliest, latest)",
                             kafka_start);
  }
  if (kafka && final)
    return cli_usage_error(usage, "ingest: --final applies to file and stdin sources");
  if (final && follow && !once)
    return cli_usage_error(usage, "ingest: --final says the input is complete: not with --follow");
  if (final && strncmp(source, "redis://", 8) == 0)
    return cli_usage_error(usage, "ingest: --final applies to file and stdin sources");
  if (format && inlet_text_format_parse(&o.format, format, &err) < 0)
    return cli_usage_error(usage, "ingest: %s", inlet_errmsg(&err));
  if (o.format == INLET_TEXT_TABLE) return cli_usage_error(usage, "ingest: --format ndjson|csv");
  (void)cli_int(a, "max-rows", &o.max_rows);
  (void)cli_int(a, "max-bytes", &o.max_bytes);
  (void)cli_int(a, "max-record-bytes", &o.max_record_bytes);
  if (max_latency) {
    int64_t us;
    if (inlet_ingest_parse_duration(&us, max_latency, &err) < 0)
      return cli_usage_error(usage, "ingest: --max-latency: %s", inlet_errmsg(&err));
    o.max_latency_ms = us / 1000 > 0 ? us / 1000 : 1;
  }
  if (lateness && !event_time)
    return cli_usage_error(usage, "ingest: --allowed-lateness needs --event-time");
  o.event_time_column = event_time;
  if (lateness && inlet_ingest_parse_duration(&o.allowed_lateness_us, lateness, &err) < 0)
    return cli_usage_error(usage, "ingest: --allowed-lateness: %s", inlet_errmsg(&err));
  if (late_policy) {
    if (strcmp(late_policy, "keep") == 0)
      o.late_policy = INLET_LATE_KEEP;
    else if (strcmp(late_policy, "drop") == 0)
      o.late_policy = INLET_LATE_DROP;
    else if (strncmp(late_policy, "route:", 6) == 0 && late_policy[6]) {
      o.late_policy = INLET_LATE_ROUTE;
      o.late_table = late_policy + 6;
    } else {
      return cli_usage_error(usage, "ingest: bad --late-policy '%s' (keep, drop, route:TABLE)",
                             late_policy);
    }
    if (!event_time) return cli_usage_error(usage, "ingest: --late-policy needs --event-time");
  }
  if (compression && inlet_compression_parse(&o.compression, compression, &err) < 0)
    return cli_usage_error(usage, "ingest: --compression: %s", inlet_errmsg(&err));
  o.threads = cli_threads(a);
  const char *evolution = cli_string(a, "schema-evolution"),
             *max_rejected = cli_string(a, "max-rejected");
  if (evolution) {
    if (strcmp(evolution, "reject") == 0)
      o.schema_evolution = INLET_SCHEMA_EVOLUTION_REJECT;
    else if (strcmp(evolution, "ignore") == 0)
      o.schema_evolution = INLET_SCHEMA_EVOLUTION_IGNORE;
    else if (strcmp(evolution, "add") == 0)
      o.schema_evolution = INLET_SCHEMA_EVOLUTION_ADD;
    else
      return cli_usage_error(usage, "ingest: bad --schema-evolution '%s' (reject, ignore, add)",
                             evolution);
    if (strict && o.schema_evolution != INLET_SCHEMA_EVOLUTION_REJECT)
      return cli_usage_error(usage, "ingest: --strict is --schema-evolution reject");
  }
  o.coerce = cli_flag(a, "coerce");
  if (max_rejected &&
      cli_parse_max_rejected(max_rejected, &o.max_rejected, &o.max_rejected_pct) < 0)
    return cli_usage_error(usage, "ingest: bad --max-rejected '%s' (a count N or a percentage P%%)",
                           max_rejected);

  const char *metrics_listen = cli_string(a, "metrics-listen"),
             *stall_limit = cli_string(a, "stall-limit");
  inlet_table_open_options service_open = cli_table_options(a);
  cli_service_options so = {.listen = metrics_listen,
                            .stall_ms = 5 * 60 * 1000,
                            .notify = cli_flag(a, "notify"),
                            .table = pos[0],
                            .source = source,
                            .open_options = &service_open};
  if (stall_limit) {
    int64_t us;
    if (inlet_ingest_parse_duration(&us, stall_limit, &err) < 0)
      return cli_usage_error(usage, "ingest: --stall-limit: %s", inlet_errmsg(&err));
    so.stall_ms = us / 1000 > 0 ? us / 1000 : 1;
  }
  const char *force_tty = getenv("INLET_FORCE_TTY"); /* tests: a terminal without one */
  bool tty = isatty(2) != 0 || (force_tty && strcmp(force_tty, "1") == 0);
  ui u = {NULL, quiet, json, tty && cli_log_get_format() == CLI_LOG_TEXT, false, 0, 0, 60000, 0,
          0,    "",    once};
  const char *summary_interval = cli_string(a, "summary-interval");
  if (summary_interval) {
    int64_t us;
    if (strcmp(summary_interval, "0") == 0)
      us = 0;
    else if (inlet_ingest_parse_duration(&us, summary_interval, &err) < 0)
      return cli_usage_error(usage, "ingest: --summary-interval: %s", inlet_errmsg(&err));
    u.summary_ms = us / 1000;
  }
  o.on_progress = on_progress;
  o.ctx = &u;
  o.stop = &stop_flag;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL); /* no SA_RESTART: a blocked read returns to check the flag */
  sigaction(SIGTERM, &sa, NULL);

  inlet_schema schema;
  inlet_schema_init(&schema);
  if (create_schema && inlet_schema_parse(&schema, create_schema, &err) < 0)
    return cli_usage_error(usage, "ingest: --create-schema: %s", inlet_errmsg(&err));
  inlet_table *t = NULL;
  inlet_table_open_options oo = cli_table_options(a);
  if (inlet_table_open_with(&t, pos[0], &oo, &err) < 0) {
    if (!create_schema || err.code != INLET_ENOTFOUND) {
      inlet_schema_reset(&schema);
      return cli_fail(&err);
    }
    o.create_path = pos[0]; /* the ingester creates it with the first batch */
    o.create_open = &oo;
  }
  if (create_schema) o.create_schema = &schema;
  so.open_table = metrics_listen ? pos[0] : NULL;
  char serr[512];
  if (cli_service_start(&u.svc, &so, serr, sizeof serr) < 0) {
    inlet_table_free(t);
    inlet_schema_reset(&schema);
    return cli_usage_error(usage, "ingest: %s", serr);
  }
  inlet_ingest_progress p;
  rc = inlet_ingest_run(&p, t, &o, &err);
  cli_service_stop(u.svc);
  inlet_table_free(t);
  inlet_schema_reset(&schema);
  if (u.line_shown) fputc('\n', stderr);
  if (rc < 0) {
    if (rc == INLET_EREJECTED && !json) {
      char fields[160];
      snprintf(fields, sizeof fields,
               "\"rows\":%lld,\"batches\":%lld,\"version\":%lld,\"rejected\":%lld",
               (long long)p.rows, (long long)p.batches, (long long)p.last_version,
               (long long)p.rejected);
      cli_log("info", "ingest_stopped", fields,
              "ingested %lld rows in %lld batches (table version %lld); rejected %lld",
              (long long)p.rows, (long long)p.batches, (long long)p.last_version,
              (long long)p.rejected);
    }
    return cli_fail(&err);
  }
  if (!quiet && !json && cli_log_get_format() == CLI_LOG_JSON) {
    char fields[512];
    snprintf(fields, sizeof fields,
             "\"rows\":%lld,\"batches\":%lld,\"version\":%lld,\"late_rows\":%lld,"
             "\"dropped_rows\":%lld,\"routed_rows\":%lld,\"rejected\":%lld,\"bytes\":%lld,"
             "\"elapsed_ms\":%lld,\"gaps\":%lld,\"ignored_fields\":%lld",
             (long long)p.rows, (long long)p.batches, (long long)p.last_version,
             (long long)p.late_rows, (long long)p.dropped_rows, (long long)p.routed_rows,
             (long long)p.rejected, (long long)p.bytes, (long long)p.elapsed_ms, (long long)p.gaps,
             (long long)p.ignored_fields);
    cli_log("info", "ingest_finished", fields, "ingested %lld rows in %lld batches",
            (long long)p.rows, (long long)p.batches);
  } else if (!quiet && !json) {
    fprintf(stderr,
            "ingested %lld rows in %lld batches (table version %lld); late %lld (dropped %lld, "
            "routed %lld); rejected %lld%s; %lld source bytes in %.1fs",
            (long long)p.rows, (long long)p.batches, (long long)p.last_version,
            (long long)p.late_rows, (long long)p.dropped_rows, (long long)p.routed_rows,
            (long long)p.rejected, p.rejected ? " (see TABLE/_errors/)" : "", (long long)p.bytes,
            (double)p.elapsed_ms / 1000.0);
    if (p.gaps)
      fprintf(stderr, "; %lld source gap%s skipped", (long long)p.gaps, p.gaps == 1 ? "" : "s");
    if (p.ignored_fields)
      fprintf(stderr, "; %lld unknown field%s ignored", (long long)p.ignored_fields,
              p.ignored_fields == 1 ? "" : "s");
    fputc('\n', stderr);
  }
  return CLI_OK;
}

const cli_command cli_cmd_ingest = {
    "ingest",
    cmd_ingest,
    "TABLE --source file:PATH|stdin|redis://HOST:PORT/STREAM|kafka://HOST:PORT/TOPIC\n"
    "                 [--once] [--follow] ...",
    "stream records into the table, exactly once",
    usage,
    opts,
    (int)(sizeof opts / sizeof opts[0]),
    1};
