/*
 * `inlet history TABLE [--json] [--limit N]`: the table's commits, newest
 * first: version, timestamp, operation, parameters and metrics from each
 * commit's commitInfo.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

static const char usage[] =
    "usage: inlet history TABLE [--json] [--limit N]\n"
    "Lists the table's commits, newest first: version, time, operation, parameters, metrics.\n"
    "  --json     a JSON array: version, timestamp, operation, parameters, metrics\n"
    "  --limit N  at most N commits\n";

static void print_json_string(const char *s) {
  putchar('"');
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\')
      printf("\\%c", *p);
    else if (*p < 0x20)
      printf("\\u%04x", *p);
    else
      putchar(*p);
  }
  putchar('"');
}

static void format_ts(char *out, size_t cap, int64_t ms) {
  time_t sec = (time_t)(ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000));
  struct tm tm;
  gmtime_r(&sec, &tm);
  size_t n = strftime(out, cap, "%Y-%m-%dT%H:%M:%S", &tm);
  snprintf(out + n, cap - n, ".%03dZ", (int)(ms - (int64_t)sec * 1000));
}

static const cli_opt opts[] = {CLI_OPT_INT("limit", 1, INT64_MAX), CLI_OPT_FLAG("json")};

static int cmd_history(const cli_args *a) {
  bool json = cli_flag(a, "json");
  const char *const *pos = a->pos;
  if (a->n_pos != 1) return cli_usage_error(usage, "history: missing TABLE");
  int64_t limit = 0;
  (void)cli_int(a, "limit", &limit);
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  inlet_history_entry *h = NULL;
  size_t n = 0;
  if (cli_table_open(a, pos[0], &t, &err) < 0 || inlet_table_history(&h, &n, t, limit, &err) < 0) {
    inlet_table_free(t);
    return cli_fail(&err);
  }
  if (json) printf("[\n");
  for (size_t i = 0; i < n; i++) {
    char ts[64];
    format_ts(ts, sizeof ts, h[i].timestamp_ms);
    if (json) {
      printf("  {\"version\":%lld,\"timestamp\":%lld,\"operation\":", (long long)h[i].version,
             (long long)h[i].timestamp_ms);
      if (h[i].operation)
        print_json_string(h[i].operation);
      else
        printf("null");
      printf(",\"operationParameters\":%s,\"operationMetrics\":%s}%s\n",
             h[i].parameters_json ? h[i].parameters_json : "null",
             h[i].metrics_json ? h[i].metrics_json : "null", i + 1 < n ? "," : "");
    } else {
      if (i == 0)
        printf("%-8s %-24s %-16s %s\n", "version", "timestamp", "operation",
               "parameters / metrics");
      printf("%-8lld %-24s %-16s %s %s\n", (long long)h[i].version, ts,
             h[i].operation ? h[i].operation : "-",
             h[i].parameters_json ? h[i].parameters_json : "{}",
             h[i].metrics_json ? h[i].metrics_json : "{}");
    }
  }
  if (json) printf("]\n");
  inlet_history_free(h, n);
  inlet_table_free(t);
  return CLI_OK;
}

const cli_command cli_cmd_history = {"history",
                                     cmd_history,
                                     "TABLE [--json] [--limit N]",
                                     "the table's commits, newest first",
                                     usage,
                                     opts,
                                     (int)(sizeof opts / sizeof opts[0]),
                                     1};
