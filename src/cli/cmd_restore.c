/*
 * `inlet restore TABLE (--version N | --as-of TS) [--dry-run] [--json]`:
 * one RESTORE commit returning the table to an earlier version's files and
 * metadata (include/inlet/maint.h inlet_table_restore).
 */
#include <stdio.h>

#include "cli.h"

static const char usage[] =
    "usage: inlet restore TABLE (--version N | --as-of TS) [--dry-run] [--json]\n"
    "Returns TABLE to the state of an earlier version with one RESTORE commit: that\n"
    "version's files that left the table are added back, files added since are removed,\n"
    "and its schema and properties come back. History stays: the restore is a new version,\n"
    "and every version before it can still be read. Refused when files of that version\n"
    "were vacuumed (the missing ones are named). A concurrent commit makes it start over.\n"
    "  --version N      the version to restore\n" CLI_AS_OF_HELP
    "  --dry-run        report what would change, commit nothing\n"
    "  --json           one JSON object: read_version, restored_version, version (null in\n"
    "                   dry-run), files_restored, bytes_restored, files_removed,\n"
    "                   bytes_removed, files_after, bytes_after, metadata_restored, dry_run,\n"
    "                   attempts\n"
    "  --max-attempts N commits lost to concurrent writers before giving up (exit 4;\n"
    "                   default 10)\n" CLI_SINGLE_WRITER_HELP CLI_TABLE_URL_HELP;

static const cli_opt opts[] = {CLI_OPT_INT("version", 0, INT64_MAX),
                               CLI_OPT_STRING("as-of"),
                               CLI_OPT_FLAG("dry-run"),
                               CLI_OPT_FLAG("json"),
                               CLI_OPT_INT("max-attempts", 1, 1000000),
                               CLI_OPT_FLAG("single-writer")};

static int cmd_restore(const cli_args *a) {
  inlet_restore_options o = INLET_RESTORE_OPTIONS_INIT;
  int64_t attempts = 0;
  bool has_version = cli_int(a, "version", &o.to_version);
  const char *as_of = cli_string(a, "as-of");
  bool json = cli_flag(a, "json");
  o.dry_run = cli_flag(a, "dry-run");
  if (cli_int(a, "max-attempts", &attempts)) o.max_attempts = (int32_t)attempts;
  if (a->n_pos != 1) return cli_usage_error(usage, "restore: missing TABLE");
  if (has_version == (as_of != NULL))
    return cli_usage_error(usage, "restore: give exactly one of --version and --as-of");
  inlet_error err = INLET_ERROR_INIT;
  if (as_of && cli_parse_as_of(as_of, &o.to_timestamp_ms, &err) < 0)
    return cli_usage_error(usage, "--as-of: %s", inlet_errmsg(&err));
  inlet_table *t = NULL;
  inlet_restore_result r;
  if (cli_table_open(a, a->pos[0], &t, &err) < 0 || inlet_table_restore(&r, t, &o, &err) < 0) {
    inlet_table_free(t);
    return cli_fail(&err);
  }
  inlet_table_free(t);
  if (json) {
    char version[24] = "null";
    if (!o.dry_run) snprintf(version, sizeof version, "%lld", (long long)r.version);
    printf("{\"format_version\":1,\"read_version\":%lld,\"restored_version\":%lld,\"version\":%s,"
           "\"files_restored\":%lld,\"bytes_restored\":%lld,\"files_removed\":%lld,"
           "\"bytes_removed\":%lld,\"files_after\":%lld,\"bytes_after\":%lld,"
           "\"metadata_restored\":%s,\"dry_run\":%s,\"attempts\":%d}\n",
           (long long)r.read_version, (long long)r.restored_version, version,
           (long long)r.files_restored, (long long)r.bytes_restored, (long long)r.files_removed,
           (long long)r.bytes_removed, (long long)r.files_after, (long long)r.bytes_after,
           r.metadata_restored ? "true" : "false", o.dry_run ? "true" : "false", (int)r.attempts);
    return CLI_OK;
  }
  if (o.dry_run)
    printf("would restore version %lld over version %lld: ", (long long)r.restored_version,
           (long long)r.read_version);
  else
    printf("restored version %lld as version %lld: ", (long long)r.restored_version,
           (long long)r.version);
  printf("%lld files added back (%lld bytes), %lld files removed (%lld bytes)%s; %lld files, "
         "%lld bytes live\n",
         (long long)r.files_restored, (long long)r.bytes_restored, (long long)r.files_removed,
         (long long)r.bytes_removed, r.metadata_restored ? ", schema and properties restored" : "",
         (long long)r.files_after, (long long)r.bytes_after);
  return CLI_OK;
}

const cli_command cli_cmd_restore = {"restore",
                                     cmd_restore,
                                     "TABLE (--version N | --as-of TS) [--dry-run]",
                                     "return the table to an earlier version (RESTORE)",
                                     usage,
                                     opts,
                                     (int)(sizeof opts / sizeof opts[0]),
                                     1};
