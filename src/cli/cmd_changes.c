/*
 * `inlet changes TABLE (--from V | --from-timestamp TS) [--to V | --to-timestamp TS]
 *  [--format table|csv|ndjson|json|markdown|parquet|arrow|arrow-file]
 *  [--arrow-compression none|lz4|zstd] [--output FILE [--force]]`: prints the change data feed of a
 * version range (include/inlet/changes.h), as Spark's table_changes(table, V, V2) (or with
 * timestamps: table_changes(table, 'TS', 'TS2')): the table's
 * columns plus _change_type, _commit_version and _commit_timestamp. Output formats are those of
 * `inlet scan`.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "log.h"
#include "rows_out.h"
#include "inlet/changes.h"

static const char usage[] =
    "usage: inlet changes TABLE (--from V | --from-timestamp TS)\n"
    "                     [--to V | --to-timestamp TS] [--columns A,B,...] [--all]\n"
    "                     [--format table|csv|ndjson|json|markdown|parquet|arrow|arrow-file]\n"
    "                     [--arrow-compression none|lz4|zstd] [--output FILE [--force]]\n"
    "Prints the change data feed of versions V..V2 (Spark's table_changes): every row\n"
    "the commits inserted, deleted or updated, with the table's columns then\n"
    "_change_type (insert, delete, update_preimage, update_postimage), _commit_version\n"
    "and _commit_timestamp (the commit's in-commit timestamp, else its log file time).\n"
    "  --from V         the first version (inclusive)\n"
    "  --to V2          the last version (inclusive; default: the latest)\n"
    "  --from-timestamp TS  from the first version committed at or after TS (after\n"
    "                   the latest commit: exit 3)\n"
    "  --to-timestamp TS    to the last version committed at or before TS (before the\n"
    "                   earliest version or after the latest commit: exit 3); TS is\n"
    "                   milliseconds since the epoch, or YYYY-MM-DD[THH:MM[:SS[.fff]]][Z]\n"
    "                   (UTC). Both between the same two commits: no rows\n"
    "  --columns A,B    output only these columns, in this order (table columns and\n"
    "                   _change_type, _commit_version, _commit_timestamp)\n" CLI_ROWS_OUT_HELP
    "Commits with cdc actions are read from their _change_data files; otherwise the\n"
    "rows of added files are inserts and those of removed files deletes (deletion\n"
    "vectors: only the rows whose deletion changed); compaction changes nothing.\n"
    "Every version of the range must have delta.enableChangeDataFeed=true (exit 6\n"
    "otherwise, as Spark refuses it). Rows are in the end version's schema: columns\n"
    "added inside the range read as null in earlier rows; a rename or drop (column\n"
    "mapping) or a type change inside the range is exit 6 naming the version. A\n"
    "version cleaned from the log or past the latest is exit 3.\n";

static const cli_opt opts[] = {
    CLI_OPT_INT("from", 0, INT64_MAX),
    CLI_OPT_INT("to", 0, INT64_MAX),
    CLI_OPT_STRING("from-timestamp"),
    CLI_OPT_STRING("to-timestamp"),
    CLI_OPT_STRING("columns"),
    CLI_OPT_STRING("format"),
    CLI_OPT_STRING("arrow-compression"),
    CLI_OPT_STRING("output"),
    CLI_OPT_FLAG("force"),
    CLI_OPT_FLAG("all"),
};

static int cmd_changes(const cli_args *a) {
  const char *format = cli_string(a, "format"), *output = cli_string(a, "output");
  const char *columns = cli_string(a, "columns");
  int64_t from = -1, to = -1;
  bool has_from = cli_int(a, "from", &from);
  bool has_to = cli_int(a, "to", &to);
  const char *from_ts = cli_string(a, "from-timestamp"), *to_ts = cli_string(a, "to-timestamp");
  if (a->n_pos != 1) return cli_usage_error(usage, "changes: missing TABLE");
  if (has_from && from_ts)
    return cli_usage_error(usage, "changes: --from and --from-timestamp exclude each other");
  if (has_to && to_ts)
    return cli_usage_error(usage, "changes: --to and --to-timestamp exclude each other");
  if (!has_from && !from_ts) return cli_usage_error(usage, "changes: missing --from V");
  if (has_from && has_to && to < from)
    return cli_usage_error(usage, "--to: version %lld is before --from %lld", (long long)to,
                           (long long)from);
  inlet_error err = INLET_ERROR_INIT;
  int64_t from_ms = INLET_CHANGES_NO_TIMESTAMP, to_ms = INLET_CHANGES_NO_TIMESTAMP;
  if (from_ts && cli_parse_as_of(from_ts, &from_ms, &err) < 0)
    return cli_usage_error(usage, "--from-timestamp: %s", inlet_errmsg(&err));
  if (to_ts && cli_parse_as_of(to_ts, &to_ms, &err) < 0)
    return cli_usage_error(usage, "--to-timestamp: %s", inlet_errmsg(&err));
  if (from_ts && to_ts && from_ms > to_ms)
    return cli_usage_error(usage, "--to-timestamp: %s is before --from-timestamp %s", to_ts,
                           from_ts);
  cli_rows_out ro;
  int rc = cli_rows_out_init(&ro, usage, format, output, cli_flag(a, "force"));
  if (rc == CLI_OK)
    rc = cli_rows_out_arrow_compression(&ro, usage, cli_string(a, "arrow-compression"));
  if (rc != CLI_OK) return rc;
  if (cli_flag(a, "all")) cli_rows_out_show_all(&ro);
  char **names = NULL;
  int32_t n_names = 0;
  if (columns && cli_split_columns(&names, &n_names, columns) < 0)
    return cli_error("out of memory");
  if (columns && n_names == 0) {
    free(names ? names[0] : NULL);
    free(names);
    return cli_usage_error(usage, "--columns: no column named");
  }
  inlet_table *t = NULL;
  inlet_changes *ch = NULL;
  inlet_batch b;
  memset(&b, 0, sizeof b);
  if (cli_table_open(a, a->pos[0], &t, &err) < 0) goto fail;
  inlet_changes_options co = INLET_CHANGES_OPTIONS_INIT;
  co.start_version = has_from ? from : 0;
  co.end_version = has_to ? to : -1;
  co.start_timestamp_ms = from_ms;
  co.end_timestamp_ms = to_ms;
  co.n_columns = n_names;
  co.columns = (const char *const *)names;
  if (inlet_changes_open(&ch, t, &co, &err) < 0) {
    /* As scan --columns: an unknown or repeated column is a usage error. */
    if (columns && (err.code == INLET_ENOTFOUND || err.code == INLET_EINVAL) &&
        strstr(inlet_errmsg(&err), "column")) {
      rc = cli_usage_error(usage, "--columns: %s", inlet_errmsg(&err));
      goto done;
    }
    /* A range that ends before it starts (known only once timestamps are
     * resolved) is a usage error, as --to before --from is. */
    if (err.code == INLET_EINVAL) {
      rc = cli_usage_error(usage, "%s", inlet_errmsg(&err));
      goto done;
    }
    goto fail;
  }
  if ((rc = cli_rows_out_open(&ro, inlet_changes_schema(ch))) != CLI_OK) goto done;
  for (;;) {
    int n = inlet_changes_next(ch, &b, &err);
    if (n < 0) goto fail;
    if (n == 0) break;
    if (cli_rows_out_write(&ro, &b, &err)) goto fail;
  }
  if (cli_rows_out_finish(&ro, &err)) goto fail;
  goto done;
fail:
  rc = cli_fail(&err);
done:
  inlet_batch_reset(&b);
  rc = cli_rows_out_close(&ro, rc);
  inlet_changes_free(ch);
  inlet_table_free(t);
  if (names) free(n_names ? names[0] : NULL);
  free(names);
  return rc;
}

const cli_command cli_cmd_changes = {
    "changes",
    cmd_changes,
    "TABLE (--from V | --from-timestamp TS) [--to V | --to-timestamp TS]\n"
    "             [--columns A,B]\n"
    "             [--format table|csv|ndjson|json|markdown|parquet|arrow|arrow-file]\n"
    "             [--arrow-compression none|lz4|zstd] [--output FILE [--force]] [--all]",
    "the change data feed of a version range (Spark's table_changes)",
    usage,
    opts,
    (int)(sizeof opts / sizeof opts[0]),
    1};
