/*
 * `inlet scan TABLE [--version N | --as-of TIMESTAMP] [--format ndjson|csv|table]
 *  [--limit N]`: prints the rows of a snapshot. ndjson is one JSON object per
 * row keyed by column name with values in refcheck's canonical encoding
 * (what `refcheck compare --ndjson` reads).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cmd_table.h"

static const char usage[] =
    "usage: inlet scan TABLE [--version N | --as-of TIMESTAMP] [--format ndjson|csv|table]\n"
    "                  [--limit N]\n"
    "  TIMESTAMP: milliseconds since the epoch, or YYYY-MM-DD[THH:MM[:SS[.fff]]][Z] (UTC)\n";

/* Milliseconds since the epoch from digits or an ISO-8601 UTC timestamp. */
static bool parse_as_of(const char *s, int64_t *ms) {
  char *end;
  long long v = strtoll(s, &end, 10);
  if (*s && !*end) {
    *ms = v;
    return true;
  }
  struct tm tm;
  memset(&tm, 0, sizeof tm);
  int y, mo, d, h = 0, mi = 0, n = 0;
  double sec = 0;
  if (sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3) return false;
  const char *p = s + n;
  if (*p == 'T' || *p == ' ') {
    int m = 0;
    if (sscanf(p + 1, "%2d:%2d%n", &h, &mi, &m) != 2) return false;
    p += 1 + m;
    if (*p == ':') {
      if (sscanf(p + 1, "%lf%n", &sec, &m) != 1) return false;
      p += 1 + m;
    }
  }
  if (*p == 'Z') p++;
  if (*p) return false;
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = 0;
  time_t t = timegm(&tm);
  *ms = (int64_t)t * 1000 + (int64_t)(sec * 1000 + 0.5);
  return true;
}

int cmd_scan(int argc, char **argv) {
  const char *version = NULL, *as_of = NULL, *format = "table", *limit_s = NULL;
  cli_opt opts[] = {{"version", &version, NULL},
                    {"as-of", &as_of, NULL},
                    {"format", &format, NULL},
                    {"limit", &limit_s, NULL}};
  const char *pos[1];
  int n_pos = 0;
  int rc = cli_parse(argc, argv, opts, 4, pos, 1, &n_pos, usage);
  if (rc) return rc;
  if (n_pos != 1) return cli_usage_error(usage, "scan: missing TABLE");
  if (version && as_of) return cli_usage_error(usage, "scan: --version and --as-of exclude each other");
  int64_t v = -1, ts = 0, limit = -1;
  if (version) {
    char *end;
    v = strtoll(version, &end, 10);
    if (*end || v < 0) return cli_usage_error(usage, "--version: not a version: '%s'", version);
  }
  if (as_of && !parse_as_of(as_of, &ts))
    return cli_usage_error(usage, "--as-of: not a timestamp: '%s'", as_of);
  if (limit_s) {
    char *end;
    limit = strtoll(limit_s, &end, 10);
    if (*end || limit < 0) return cli_usage_error(usage, "--limit: not a count: '%s'", limit_s);
  }
  inlet_error err = INLET_ERROR_INIT;
  inlet_text_writer_options wo = INLET_TEXT_WRITER_OPTIONS_INIT;
  if (inlet_text_format_parse(&wo.format, format, &err) < 0)
    return cli_usage_error(usage, "--format: %s", inlet_errmsg(&err));

  inlet_table *t = NULL;
  inlet_snapshot *s = NULL;
  inlet_table_scan *sc = NULL;
  inlet_text_writer *tw = NULL;
  inlet_batch b;
  memset(&b, 0, sizeof b);
  if (inlet_table_open(&t, pos[0], &err) < 0) goto fail;
  if (version ? inlet_table_snapshot_at_version(&s, t, v, &err)
              : as_of ? inlet_table_snapshot_at_timestamp(&s, t, ts, &err)
                      : inlet_table_snapshot(&s, t, &err))
    goto fail;
  if (inlet_table_scan_open(&sc, s, &err) < 0) goto fail;
  if (inlet_text_writer_new_file(&tw, inlet_snapshot_schema(s), &wo, stdout, &err) < 0) goto fail;
  int64_t printed = 0;
  for (;;) {
    int n = inlet_table_scan_next(sc, &b, &err);
    if (n < 0) goto fail;
    if (n == 0) break;
    if (limit >= 0 && printed + b.num_rows > limit) {
      b.num_rows = limit - printed;
      for (int32_t c = 0; c < b.schema.n_fields; c++)
        if (b.columns[c].length > b.num_rows) b.columns[c].length = b.num_rows;
    }
    if (inlet_text_writer_write(tw, &b, &err) < 0) goto fail;
    printed += b.num_rows;
    if (limit >= 0 && printed >= limit) break;
  }
  if (inlet_text_writer_finish(tw, &err) < 0) goto fail;
  rc = CLI_OK;
  goto done;
fail:
  rc = cli_fail(&err);
done:
  inlet_batch_reset(&b);
  inlet_text_writer_free(tw);
  inlet_table_scan_free(sc);
  inlet_snapshot_free(s);
  inlet_table_free(t);
  return rc;
}
