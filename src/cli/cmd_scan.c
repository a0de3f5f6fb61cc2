/*
 * `inlet scan TABLE [--version N | --as-of TIMESTAMP] [--columns A,B]
 *  [--where EXPR] [--limit N]
 *  [--format table|csv|ndjson|json|markdown|parquet|arrow|arrow-file]
 *  [--arrow-compression none|lz4|zstd]
 *  [--output FILE [--force]] [--explain]`: prints the rows of a snapshot that match
 * a predicate (include/inlet/scan.h), skipping partitions, files and row
 * groups that cannot match. ndjson is one JSON object per row keyed by
 * column name with values in refcheck's canonical encoding (what `refcheck
 * compare --ndjson` reads); parquet writes a file (--output required).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "log.h"
#include "rows_out.h"
#include "inlet/scan.h"

static const char usage[] =
    "usage: inlet scan TABLE [--version N | --as-of TIMESTAMP] [--columns A,B,...]\n"
    "                  [--where EXPR] [--limit N]\n"
    "                  [--format table|csv|ndjson|json|markdown|parquet|arrow|arrow-file]\n"
    "                  [--arrow-compression none|lz4|zstd]\n"
    "                  [--output FILE [--force]] [--all] [--explain]\n"
    "                  [--threads N] [--unordered]\n"
    "                  [--watermark TS (--on-time | --late) [--event-time COL] | --late]\n"
    "Prints the rows of a table snapshot (the latest unless --version/--as-of).\n"
    "  --version N      the snapshot at version N\n"
    "  --as-of TS       the newest version committed at or before TS: milliseconds since\n"
    "                   the epoch, or YYYY-MM-DD[THH:MM[:SS[.fff]]][Z] (UTC)\n"
    "  --columns A,B    output only these columns, in this order; on tables with row\n"
    "                   tracking also _metadata.row_id and _metadata.row_commit_version\n"
    "                   (each row's stable row id and row commit version)\n"
    "  --where EXPR     keep rows where EXPR is true (SQL three-valued logic), e.g.\n"
    "                   \"event_time >= '2024-05-01T00:00:00Z' AND user IN ('a', 'b')\"\n"
    "                   operators: = != <> < <= > >=, AND, OR, NOT, ( ), IN (...),\n"
    "                   [NOT] BETWEEN x AND y, IS [NOT] NULL; 'strings' ('' for a quote);\n"
    "                   literals take the column's type (numbers, dates, timestamps with\n"
    "                   Z or +hh:mm, exact decimals, true/false); `odd name` quotes a column\n"
    "  --limit N        stop after N rows (on a terminal: instead of the first "
    "50)\n" CLI_ROWS_OUT_HELP
    "  --watermark TS   with --on-time or --late: the watermark-gated split on the\n"
    "                   event-time column: --on-time keeps rows at or after TS (and rows\n"
    "                   without an event time), --late the rows before TS; the two\n"
    "                   sides add up to the whole table, nothing is dropped\n"
    "  --late           without --watermark: the rows the ingester flagged late (the\n"
    "                   boolean column named by table property inlet.ingest.lateFlagColumn)\n"
    "  --event-time COL the event-time column for --watermark (default: the table's only\n"
    "                   timestamp column, else its only date column)\n"
    "  --explain        print the files, row groups and page-index row ranges considered,\n"
    "                   skipped and read (and why) instead of the rows\n"
    "  --threads N      threads reading and filtering row groups side by side, and formatting\n"
    "                   text output (not table) (default: the online CPUs; 1: one thread);\n"
    "                   rows come in the same order whatever N, the same bytes\n"
    "  --unordered      with --threads: rows in the order row groups finish (the same rows,\n"
    "                   any order; with --limit N, N of the matching rows)\n"
    "Partitions, files (add.stats min/max/nullCount), row groups (Parquet statistics) and\n"
    "pages (the Parquet page index) that cannot match --where are not read; only the\n"
    "needed columns are decoded.\n";

/* Appends @p text to @p buf (cap bytes) as a SQL literal or identifier:
 * @p quote doubled inside. Returns false when it does not fit. */
static bool append_quoted(char *buf, size_t cap, const char *text, char quote) {
  size_t n = strlen(buf);
  if (n + 1 >= cap) return false;
  buf[n++] = quote;
  for (const char *c = text; *c; c++) {
    if (n + 3 >= cap) return false;
    if (*c == quote) buf[n++] = quote;
    buf[n++] = *c;
  }
  buf[n++] = quote;
  buf[n] = '\0';
  return true;
}

/* The event-time column for the watermark split: the only timestamp column
 * of the schema, else the only date column, else NULL (--event-time decides). */
static const char *only_event_time_column(const inlet_schema *schema) {
  const inlet_type_id kinds[2] = {INLET_TYPE_TIMESTAMP, INLET_TYPE_DATE};
  for (int k = 0; k < 2; k++) {
    const char *found = NULL;
    int n = 0;
    for (int32_t i = 0; i < schema->n_fields; i++)
      if (schema->fields[i].type.id == kinds[k]) {
        found = schema->fields[i].name;
        n++;
      }
    if (n == 1) return found;
    if (n > 1) return NULL;
  }
  return NULL;
}

/*
 * The watermark-gated view (issue "Streaming ingestion", "Watermarks and late
 * data") as a predicate the scan can also use for pruning:
 *   --watermark TS --on-time   event_time >= TS OR event_time IS NULL
 *   --watermark TS --late      event_time < TS
 *   --late                     <late flag column> = true
 * combined with --where by AND. Returns the predicate in @p out, or an
 * error message in @p out and false.
 */
static bool watermark_predicate(char *out, size_t cap, const inlet_snapshot *s, const char *where,
                                const char *watermark, bool on_time, bool late,
                                const char *event_time) {
  char split[2048] = "";
  if (watermark) {
    const char *col = event_time ? event_time : only_event_time_column(inlet_snapshot_schema(s));
    if (!col) {
      snprintf(out, cap,
               "--watermark: the table has no single timestamp (or date) column; "
               "name it with --event-time COL");
      return false;
    }
    if (!append_quoted(split, sizeof split, col, '`')) goto too_long;
    size_t n = strlen(split);
    snprintf(split + n, sizeof split - n, on_time ? " >= " : " < ");
    if (!append_quoted(split, sizeof split, watermark, '\'')) goto too_long;
    if (on_time) {
      n = strlen(split);
      snprintf(split + n, sizeof split - n, " OR ");
      if (!append_quoted(split, sizeof split, col, '`')) goto too_long;
      n = strlen(split);
      snprintf(split + n, sizeof split - n, " IS NULL");
    }
  } else if (late) {
    const char *flag = inlet_snapshot_property(s, INLET_LATE_FLAG_PROPERTY);
    if (!flag || !*flag) {
      snprintf(out, cap,
               "--late: the table flags no late rows (no table property %s); "
               "use --watermark TS --late for the event-time split",
               INLET_LATE_FLAG_PROPERTY);
      return false;
    }
    if (!append_quoted(split, sizeof split, flag, '`')) goto too_long;
    size_t n = strlen(split);
    snprintf(split + n, sizeof split - n, " = true");
  }
  int w =
      where ? snprintf(out, cap, "(%s) AND (%s)", where, split) : snprintf(out, cap, "%s", split);
  if (w < 0 || (size_t)w >= cap) goto too_long;
  return true;
too_long:
  snprintf(out, cap, "--watermark/--late: expression too long");
  return false;
}

static const cli_opt opts[] = {
    CLI_OPT_INT("version", 0, INT64_MAX),
    CLI_OPT_STRING("as-of"),
    CLI_OPT_STRING("format"),
    CLI_OPT_STRING("arrow-compression"),
    CLI_OPT_INT("limit", 0, INT64_MAX),
    CLI_OPT_STRING("columns"),
    CLI_OPT_STRING("where"),
    CLI_OPT_STRING("output"),
    CLI_OPT_FLAG("force"),
    CLI_OPT_FLAG("all"),
    CLI_OPT_FLAG("explain"),
    CLI_OPT_THREADS,
    CLI_OPT_FLAG("unordered"),
    CLI_OPT_STRING("watermark"),
    CLI_OPT_FLAG("on-time"),
    CLI_OPT_FLAG("late"),
    CLI_OPT_STRING("event-time"),
};

static int cmd_scan(const cli_args *a) {
  const char *as_of = cli_string(a, "as-of"), *format = cli_string(a, "format");
  const char *columns = cli_string(a, "columns"), *where = cli_string(a, "where"),
             *output = cli_string(a, "output");
  const char *watermark = cli_string(a, "watermark"), *event_time = cli_string(a, "event-time");
  bool explain = cli_flag(a, "explain"), on_time = cli_flag(a, "on-time"),
       late = cli_flag(a, "late");
  const char *const *pos = a->pos;
  int rc;
  int64_t v = -1, ts = 0, limit = -1;
  bool version = cli_int(a, "version", &v);
  (void)cli_int(a, "limit", &limit);
  if (a->n_pos != 1) return cli_usage_error(usage, "scan: missing TABLE");
  if (version && as_of)
    return cli_usage_error(usage, "scan: --version and --as-of exclude each other");
  if (on_time && late)
    return cli_usage_error(usage, "scan: --on-time and --late exclude each other");
  if (limit >= 0 && cli_flag(a, "all"))
    return cli_usage_error(usage, "scan: --limit and --all exclude each other");
  if (watermark && !on_time && !late)
    return cli_usage_error(usage, "scan: --watermark needs --on-time or --late");
  if (on_time && !watermark) return cli_usage_error(usage, "scan: --on-time needs --watermark TS");
  if (event_time && !watermark)
    return cli_usage_error(usage, "scan: --event-time needs --watermark TS");
  inlet_error as_of_err = INLET_ERROR_INIT;
  if (as_of && cli_parse_as_of(as_of, &ts, &as_of_err) < 0)
    return cli_usage_error(usage, "--as-of: %s", inlet_errmsg(&as_of_err));
  inlet_error err = INLET_ERROR_INIT;
  cli_rows_out ro;
  rc = cli_rows_out_init(&ro, usage, format, output, cli_flag(a, "force"));
  if (rc == CLI_OK)
    rc = cli_rows_out_arrow_compression(&ro, usage, cli_string(a, "arrow-compression"));
  if (rc != CLI_OK) return rc;
  if (limit >= 0 || cli_flag(a, "all")) cli_rows_out_show_all(&ro);
  char **names = NULL;
  int32_t n_names = 0;
  if (columns && cli_split_columns(&names, &n_names, columns) < 0) {
    return cli_error("out of memory");
  }
  if (columns && n_names == 0) {
    free(names ? names[0] : NULL);
    free(names);
    return cli_usage_error(usage, "--columns: no column named");
  }

  inlet_table *t = NULL;
  inlet_snapshot *s = NULL;
  inlet_scan *sc = NULL;
  inlet_batch b;
  memset(&b, 0, sizeof b);
  if (cli_table_open(a, pos[0], &t, &err) < 0) goto fail;
  if (version ? inlet_table_snapshot_at_version(&s, t, v, &err)
      : as_of ? inlet_table_snapshot_at_timestamp(&s, t, ts, &err)
              : inlet_table_snapshot(&s, t, &err))
    goto fail;
  char split_where[4096];
  if (on_time || late) {
    if (!watermark_predicate(split_where, sizeof split_where, s, where, watermark, on_time, late,
                             event_time)) {
      rc = cli_usage_error(usage, "%s", split_where);
      goto done;
    }
    where = split_where;
  }
  inlet_scan_options so = INLET_SCAN_OPTIONS_INIT;
  so.n_columns = n_names;
  so.columns = (const char *const *)names;
  so.where = where;
  so.limit = limit;
  so.explain = explain;
  so.threads = cli_threads(a);
  so.unordered = cli_flag(a, "unordered");
  if (inlet_scan_open(&sc, s, &so, &err) < 0) {
    if (err.code == INLET_EINVAL || err.code == INLET_ENOTFOUND) {
      /* Predicate errors start with "column N:" (a position in --where). */
      bool in_where = where && strncmp(inlet_errmsg(&err), "column ", 7) == 0;
      rc = cli_usage_error(usage, "%s%s",
                           in_where ? "--where: " : "--columns: ", inlet_errmsg(&err));
      goto done;
    }
    goto fail;
  }
  if (explain) {
    for (;;) {
      int n = inlet_scan_next(sc, &b, &err);
      if (n < 0) goto fail;
      if (n == 0) break;
    }
    FILE *out;
    if ((rc = cli_rows_out_open_stream(&ro, &out)) != CLI_OK) goto done;
    fputs(inlet_scan_explain(sc), out);
    rc = CLI_OK;
    goto done;
  }
  /* Formatting text costs several times the decoding: it gets the threads too. */
  cli_rows_out_threads(&ro, so.threads, so.unordered);
  if ((rc = cli_rows_out_open(&ro, inlet_scan_schema(sc))) != CLI_OK) goto done;
  for (;;) {
    int n = inlet_scan_next(sc, &b, &err);
    if (n < 0) {
      /* The rows before the error are out first, as one thread writes them;
       * a failure writing them came first. */
      inlet_error werr = INLET_ERROR_INIT;
      if (cli_rows_out_flush(&ro, &werr) < 0) err = werr;
      goto fail;
    }
    if (n == 0) break;
    if (cli_rows_out_put(&ro, &b, &err)) goto fail;
  }
  if (cli_rows_out_finish(&ro, &err)) goto fail;
  rc = CLI_OK;
  goto done;
fail:
  rc = cli_fail(&err);
done:
  inlet_batch_reset(&b);
  rc = cli_rows_out_close(&ro, rc);
  inlet_scan_free(sc);
  inlet_snapshot_free(s);
  inlet_table_free(t);
  if (names) free(n_names ? names[0] : NULL);
  free(names);
  return rc;
}

const cli_command cli_cmd_scan = {
    "scan",
    cmd_scan,
    "TABLE [--version N | --as-of TS] [--columns A,B] [--where EXPR] [--limit N]\n"
    "             [--format table|csv|ndjson|json|markdown|parquet|arrow|arrow-file]\n"
    "             [--arrow-compression none|lz4|zstd] [--output FILE [--force]]\n"
    "             [--all] [--explain]",
    "query a snapshot, skipping what cannot match",
    usage,
    opts,
    (int)(sizeof opts / sizeof opts[0]),
    1};
