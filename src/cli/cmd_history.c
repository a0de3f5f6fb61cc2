/*
 * `inlet history TABLE [--json] [--limit N]`: the table's commits, newest
 * first: version, timestamp, operation, parameters and metrics from each
 * commit's commitInfo.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "cli.h"

static const char usage[] =
    "usage: inlet history TABLE [--json] [--limit N]\n"
    "Lists the table's commits, newest first: version, time, operation, parameters, metrics.\n"
    "  --json     one JSON object: format_version and commits (version, timestamp, operation,\n"
    "             operation_parameters, operation_metrics); see docs/JSON.md\n"
    "  --limit N  at most N commits\n";

/* Delta writes every operation metric as a string; JSON consumers get
 * numbers for integers and null for what the writer did not know (an empty
 * string, or -1 in inlet's own sourceLag* metrics). */
static json_t *metric_value(const char *key, json_t *v) {
  if (!json_is_string(v)) return json_incref(v);
  const char *s = json_string_value(v);
  if (!*s) return json_null();
  const char *d = s + (*s == '-');
  if (!*d || strspn(d, "0123456789") != strlen(d) || strlen(d) > 18) return json_incref(v);
  long long n = strtoll(s, NULL, 10);
  if (n == -1 && strncmp(key, "sourceLag", 9) == 0) return json_null();
  return json_integer(n);
}

/* One commit for --json (docs/JSON.md "history"). Parameters and metrics
 * keep the names the writer gave them: they are the table's data, like
 * property names. */
static json_t *commit_json(const inlet_history_entry *h) {
  json_t *c = json_object();
  json_object_set_new(c, "version", json_integer(h->version));
  json_object_set_new(c, "timestamp", json_integer(h->timestamp_ms));
  json_object_set_new(c, "operation", h->operation ? json_string(h->operation) : json_null());
  json_t *p = h->parameters_json ? json_loads(h->parameters_json, JSON_DECODE_ANY, NULL) : NULL;
  json_object_set_new(c, "operation_parameters", json_is_object(p) ? p : json_object());
  if (p && !json_is_object(p)) json_decref(p);
  json_t *m = h->metrics_json ? json_loads(h->metrics_json, JSON_DECODE_ANY, NULL) : NULL;
  json_t *metrics = json_object();
  if (json_is_object(m)) {
    const char *k;
    json_t *v;
    json_object_foreach(m, k, v) json_object_set_new(metrics, k, metric_value(k, v));
  }
  json_decref(m);
  json_object_set_new(c, "operation_metrics", metrics);
  return c;
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
  if (json) {
    json_t *o = json_object(), *commits = json_array();
    json_object_set_new(o, "format_version", json_integer(1));
    for (size_t i = 0; i < n; i++)
      json_array_append_new(commits, commit_json(&h[i]));
    json_object_set_new(o, "commits", commits);
    char *s = json_dumps(o, JSON_PRESERVE_ORDER | JSON_COMPACT);
    json_decref(o);
    if (!s) {
      inlet_history_free(h, n);
      inlet_table_free(t);
      return cli_error("history: out of memory");
    }
    printf("%s\n", s);
    free(s);
  }
  for (size_t i = 0; i < n && !json; i++) {
    char ts[64];
    format_ts(ts, sizeof ts, h[i].timestamp_ms);
    if (i == 0)
      printf("%-8s %-24s %-16s %s\n", "version", "timestamp", "operation", "parameters / metrics");
    printf("%-8lld %-24s %-16s %s %s\n", (long long)h[i].version, ts,
           h[i].operation ? h[i].operation : "-",
           h[i].parameters_json ? h[i].parameters_json : "{}",
           h[i].metrics_json ? h[i].metrics_json : "{}");
  }
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
