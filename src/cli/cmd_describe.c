/*
 * `inlet describe TABLE [--json]`: the latest snapshot summarised from the
 * log alone (no data file is opened): version, commits, compactions, last
 * commit time, files, bytes, rows, small files, partitions, checkpoint,
 * table id, schema, properties.
 */
#include <string.h>

#include <jansson.h>

#include "cli.h"

static const char usage[] =
    "usage: inlet describe TABLE [--json] [--threads N]\n"
    "Describes the latest snapshot from the log alone: version, commits, compactions, last\n"
    "commit time, files, bytes, rows, small files, partitions, schema, properties, protocol.\n"
    "Prints a short summary (sizes with units, times as ISO 8601 UTC).\n"
    "  --json       the whole description as one JSON object (docs/JSON.md)\n"
    "  --threads N  threads decoding the checkpoint's parts or sidecars and the commits after\n"
    "               it side by side (default: the online CPUs; 1: one thread); the same\n"
    "               description whatever N\n";

static const cli_opt opts[] = {CLI_OPT_FLAG("json"), CLI_OPT_THREADS};

/* "a, b, c" from a JSON array of strings, into @p buf. */
static const char *joined(char *buf, size_t cap, const json_t *arr) {
  size_t n = 0;
  buf[0] = '\0';
  size_t i;
  const json_t *v;
  json_array_foreach(arr, i, v) {
    if (n + 1 >= cap) break;
    n += (size_t)snprintf(buf + n, cap - n, "%s%s", i ? ", " : "",
                          json_is_string(v) ? json_string_value(v) : "?");
  }
  return buf;
}

static const char *plural(int64_t n, const char *one, const char *many) {
  return n == 1 ? one : many;
}

/* The short summary for people; the whole description is --json. */
static void print_summary(const inlet_table_description *d, const char *js) {
  json_t *j = json_loads(js, 0, NULL);
  const char *name = json_string_value(json_object_get(j, "name"));
  const char *id = json_string_value(json_object_get(j, "table_id"));
  char t[64], sz[32], small[32], list[2048];
  printf("table        %s%s%s%s\n", name ? name : "(no name)", id ? " (id " : "", id ? id : "",
         id ? ")" : "");
  const char *description = json_string_value(json_object_get(j, "description"));
  if (description) printf("description  %s\n", description);
  printf("version      %lld, committed %s\n", (long long)d->version,
         cli_format_time(t, sizeof t, d->last_commit_timestamp));
  printf("history      %lld %s, %lld %s; ", (long long)d->commits,
         plural(d->commits, "commit", "commits"), (long long)d->compactions,
         plural(d->compactions, "compaction", "compactions"));
  if (d->last_checkpoint >= 0)
    printf("last checkpoint at version %lld\n", (long long)d->last_checkpoint);
  else
    printf("no checkpoint\n");
  cli_format_bytes(sz, sizeof sz, d->bytes);
  if (d->rows >= 0)
    printf("data         %lld %s in %lld %s, %s", (long long)d->rows,
           plural(d->rows, "row", "rows"), (long long)d->files, plural(d->files, "file", "files"),
           sz);
  else
    printf("data         unknown rows (%lld of %lld files have no row count in add.stats), %s",
           (long long)d->files_without_stats, (long long)d->files, sz);
  printf("; %lld small %s (below %s)\n", (long long)d->small_files,
         plural(d->small_files, "file", "files"),
         cli_format_bytes(small, sizeof small, d->small_file_bytes));
  const json_t *pc = json_object_get(j, "partition_columns");
  if (json_array_size(pc))
    printf("partitions   %lld, by %s\n", (long long)d->partitions, joined(list, sizeof list, pc));
  else
    printf("partitions   none (not partitioned)\n");
  const char *ddl = json_string_value(json_object_get(j, "schema_ddl"));
  printf("schema       %s\n", ddl ? ddl : "(holds a type inlet cannot read; see --json)");
  const json_t *props = json_object_get(j, "properties");
  if (json_object_size(props)) {
    const char *k;
    const json_t *v;
    bool first = true;
    json_object_foreach((json_t *)props, k, v) {
      printf("%s%s=%s\n", first ? "properties   " : "             ", k,
             json_is_string(v) ? json_string_value(v) : "?");
      first = false;
    }
  }
  const json_t *proto = json_object_get(j, "protocol");
  printf("protocol     reader %lld, writer %lld",
         (long long)json_integer_value(json_object_get(proto, "min_reader_version")),
         (long long)json_integer_value(json_object_get(proto, "min_writer_version")));
  const json_t *wf = json_object_get(proto, "writer_features");
  if (json_array_size(wf)) printf("; features %s", joined(list, sizeof list, wf));
  printf("\n");
  const char *ck = json_string_value(json_object_get(j, "checksum"));
  if (ck) printf("checksum     %s\n", ck);
  json_decref(j);
}

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
  if (json)
    printf("%s\n", js);
  else
    print_summary(&d, js);
  inlet_string_free(js);
  inlet_table_free(t);
  return CLI_OK;
}

const cli_command cli_cmd_describe = {"describe",
                                      cmd_describe,
                                      "TABLE [--json] [--threads N]",
                                      "the latest snapshot's health, from the log alone",
                                      usage,
                                      opts,
                                      (int)(sizeof opts / sizeof opts[0]),
                                      1};
