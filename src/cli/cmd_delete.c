/*
 * `inlet delete TABLE --where PRED [--json]`: deletes the rows matching a
 * predicate, with deletion vectors where the table enables them, else by
 * rewriting the files that hold such rows (include/inlet/delete.h).
 */
#include "cli.h"

static const char usage[] =
    "usage: inlet delete TABLE --where PRED [--json] [--single-writer]\n"
    "  PRED: a predicate in the language of scan --where (partition and data columns)\n"
    "  With delta.enableDeletionVectors=true the rows are marked in deletion vectors;\n"
    "  otherwise the files holding them are rewritten without them. Files whose\n"
    "  partition values satisfy PRED are removed whole; files whose stats (min/max,\n"
    "  null counts) show no row can match are not read.\n" CLI_SINGLE_WRITER_HELP
        CLI_TABLE_URL_HELP;

static const cli_opt opts[] = {CLI_OPT_STRING("where"), CLI_OPT_FLAG("json"),
                               CLI_OPT_FLAG("single-writer")};

static int cmd_delete(const cli_args *a) {
  const char *where = cli_string(a, "where");
  if (a->n_pos != 1) return cli_usage_error(usage, "delete: missing TABLE");
  if (!where || !*where) return cli_usage_error(usage, "delete: --where PRED is required");
  inlet_error err = INLET_ERROR_INIT;
  inlet_delete_options o = INLET_DELETE_OPTIONS_INIT;
  o.where = where;
  inlet_table *t = NULL;
  inlet_delete_result r;
  if (cli_table_open(a, a->pos[0], &t, &err) < 0 || inlet_table_delete(&r, t, &o, &err) < 0) {
    inlet_table_free(t);
    return cli_fail(&err);
  }
  inlet_table_free(t);
  if (cli_flag(a, "json")) {
    char version[24] = "null";
    if (r.version >= 0) snprintf(version, sizeof version, "%lld", (long long)r.version);
    printf("{\"format_version\":1,\"version\":%s,\"read_version\":%lld,\"attempts\":%lld,"
           "\"deletion_vectors\":%s,\"deleted_rows\":%lld,\"removed_files\":%lld,"
           "\"added_files\":%lld,\"deletion_vectors_added\":%lld,"
           "\"deletion_vectors_updated\":%lld,\"deletion_vectors_removed\":%lld,"
           "\"copied_rows\":%lld,\"files_read\":%lld,\"files_skipped\":%lld}\n",
           version, (long long)r.read_version, (long long)r.attempts, r.used_dvs ? "true" : "false",
           (long long)r.deleted_rows, (long long)r.removed_files, (long long)r.added_files,
           (long long)r.dvs_added, (long long)r.dvs_updated, (long long)r.dvs_removed,
           (long long)r.copied_rows, (long long)r.files_read, (long long)r.files_skipped);
  } else if (r.version < 0) {
    printf("no row matches: nothing committed (version %lld)\n", (long long)r.read_version);
  } else {
    printf("deleted %lld rows at version %lld (%s): %lld files removed, %lld added, %lld "
           "deletion vectors added, %lld updated, %lld rows copied; %lld files read, %lld "
           "skipped by stats or partition values\n",
           (long long)r.deleted_rows, (long long)r.version,
           r.used_dvs ? "deletion vectors" : "copy-on-write", (long long)r.removed_files,
           (long long)r.added_files, (long long)r.dvs_added, (long long)r.dvs_updated,
           (long long)r.copied_rows, (long long)r.files_read, (long long)r.files_skipped);
  }
  return CLI_OK;
}

const cli_command cli_cmd_delete = {"delete",
                                    cmd_delete,
                                    "TABLE --where PRED [--json]",
                                    "delete the rows matching a predicate",
                                    usage,
                                    opts,
                                    (int)(sizeof opts / sizeof opts[0]),
                                    1};
