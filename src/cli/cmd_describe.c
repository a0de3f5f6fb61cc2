/*
 * `inlet describe TABLE [--json]`: the latest snapshot summarised from the
 * log alone (no data file is opened): version, commits, compactions, last
 * commit time, files, bytes, rows, small files, partitions, checkpoint,
 * table id, schema, properties.
 */
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: inlet describe TABLE [--json]\n"
    "Describes the latest snapshot from the log alone: version, commits, compactions, last\n"
    "commit time, files, bytes, rows, small files, partitions, schema, properties, protocol.\n"
    "  --json  the same as one JSON object (docs/JSON.md)\n";

static const cli_opt opts[] = {CLI_OPT_FLAG("json")};

static int cmd_describe(const cli_args *a) {
  bool json = cli_flag(a, "json");
  const char *const *pos = a->pos;
  if (a->n_pos != 1) return cli_usage_error(usage, "describe: missing TABLE");
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  inlet_table_description d;
  char *js = NULL;
  if (cli_table_open(a, pos[0], &t, &err) < 0 || inlet_table_describe(t, &d, &js, &err) < 0) {
    inlet_table_free(t);
    return cli_fail(&err);
  }
  if (json) {
    printf("%s\n", js);
  } else {
    printf("version                %lld\n", (long long)d.version);
    printf("commits                %lld\n", (long long)d.commits);
    printf("compactions            %lld\n", (long long)d.compactions);
    printf("last_commit_timestamp  %lld\n", (long long)d.last_commit_timestamp);
    printf("files                  %lld\n", (long long)d.files);
    printf("bytes                  %lld\n", (long long)d.bytes);
    if (d.rows >= 0)
      printf("rows                   %lld\n", (long long)d.rows);
    else
      printf("rows                   unknown (%lld of %lld files have no row count in add.stats)\n",
             (long long)d.files_without_stats, (long long)d.files);
    printf("small_files            %lld (below %lld bytes)\n", (long long)d.small_files,
           (long long)d.small_file_bytes);
    printf("partitions             %lld\n", (long long)d.partitions);
    if (d.last_checkpoint >= 0)
      printf("last_checkpoint        %lld\n", (long long)d.last_checkpoint);
    else
      printf("last_checkpoint        none\n");
    printf("details (JSON):\n%s\n", js);
  }
  inlet_string_free(js);
  inlet_table_free(t);
  return CLI_OK;
}

const cli_command cli_cmd_describe = {"describe",
                                      cmd_describe,
                                      "TABLE [--json]",
                                      "the latest snapshot's health, from the log alone",
                                      usage,
                                      opts,
                                      (int)(sizeof opts / sizeof opts[0]),
                                      1};
