/*
 * `inlet create TABLE --schema 'DDL' [--partition-by COLS] [--property K=V ...]
 *  [--name NAME] [--description TEXT]`: creates a Delta table (version 0).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: inlet create TABLE --schema 'DDL' [--partition-by COL[,COL...]]\n"
    "                    [--property KEY=VALUE ...] [--name NAME] [--description TEXT]\n"
    "                    [--single-writer]\n"
    "Creates an empty Delta table (version 0) at TABLE (a directory or an object-store URL).\n"
    "  --schema DDL        columns as Spark/Delta DDL, e.g. 'id long not null, user string,\n"
    "                      amount decimal(10,2), event_time timestamp, day date'; a\n"
    "                      variant column ('v variant') holds any JSON value\n"
    "  --partition-by C,D  partition columns (top-level schema columns); repeatable; quote a\n"
    "                      name with a comma or space as in the DDL: '`my col`,day'\n"
    "  --property K=V      a table property (metaData.configuration), repeatable, e.g.\n"
    "                      delta.checkpointInterval=10, delta.appendOnly=true,\n"
    "                      delta.enableInCommitTimestamps=true, inlet.autoCompact=true,\n"
    "                      delta.enableRowTracking=true (row ids: scan --columns\n"
    "                      _metadata.row_id,_metadata.row_commit_version).\n"
    "                      The protocol follows from schema and properties as in Spark;\n"
    "                      delta.minWriterVersion=N and delta.feature.NAME=supported request\n"
    "                      more. Unknown delta.* keys and features inlet cannot honour are\n"
    "                      refused. comment=TEXT is the description (as in Spark's\n"
    "                      catalog); location and provider are refused\n"
    "  --name, --description  metaData.name and metaData.description\n" CLI_SINGLE_WRITER_HELP
        CLI_TABLE_URL_HELP;

static const cli_opt opts[] = {
    CLI_OPT_STRING("schema"), CLI_OPT_LIST("partition-by"),  CLI_OPT_LIST("property"),
    CLI_OPT_STRING("name"),   CLI_OPT_STRING("description"), CLI_OPT_FLAG("single-writer"),
};

/* Splits every --partition-by value at commas and spaces into @p parts,
 * which borrow from @p buf (the names, unquoted). A name holding a comma, a
 * space or a backtick is quoted as in the DDL: `my col`, with `` for a
 * backtick inside. */
static int split_partitions(const char *const *values, int n, char **buf, const char ***parts,
                            int32_t *n_parts) {
  size_t total = 1;
  for (int i = 0; i < n; i++)
    total += strlen(values[i]) + 1;
  *buf = malloc(total);
  *parts = calloc(total, sizeof **parts);
  if (!*buf || !*parts) return cli_error("out of memory");
  char *out = *buf;
  *n_parts = 0;
  for (int i = 0; i < n; i++) {
    const char *p = values[i];
    for (;;) {
      while (*p == ',' || *p == ' ')
        p++;
      if (!*p) break;
      (*parts)[(*n_parts)++] = out;
      if (*p == '`') {
        for (p++;; p++) {
          if (!*p)
            return cli_usage_error(usage, "create: --partition-by '%s': unterminated `", values[i]);
          if (*p == '`' && p[1] != '`') break;
          if (*p == '`') p++; /* `` is one backtick */
          *out++ = *p;
        }
        p++;
        if (*p && *p != ',' && *p != ' ')
          return cli_usage_error(usage, "create: --partition-by '%s': text after a quoted name",
                                 values[i]);
      } else {
        while (*p && *p != ',' && *p != ' ')
          *out++ = *p++;
      }
      *out++ = '\0';
    }
  }
  return CLI_OK;
}

static int cmd_create(const cli_args *a) {
  if (a->n_pos != 1) return cli_usage_error(usage, "create: missing TABLE");
  const char *schema_ddl = cli_string(a, "schema");
  if (!schema_ddl) return cli_usage_error(usage, "create: --schema is required");
  int n_props = 0, n_part_opts = 0;
  const char *const *props = cli_list(a, "property", &n_props);
  const char *const *part_opts = cli_list(a, "partition-by", &n_part_opts);
  const char **keys = calloc((size_t)n_props + 1, sizeof *keys);
  const char **vals = calloc((size_t)n_props + 1, sizeof *vals);
  char **kv_store = calloc((size_t)n_props + 1, sizeof *kv_store);
  char *part_buf = NULL;
  const char **parts = NULL;
  int32_t n_parts = 0;
  int rc = CLI_OK;
  if (!keys || !vals || !kv_store) {
    rc = cli_error("out of memory");
    goto out;
  }
  for (int i = 0; i < n_props; i++) {
    const char *eq = strchr(props[i], '=');
    if (!eq || eq == props[i]) {
      rc = cli_usage_error(usage, "--property expects KEY=VALUE, got '%s'", props[i]);
      goto out;
    }
    kv_store[i] = strdup(props[i]);
    if (!kv_store[i]) {
      rc = cli_error("out of memory");
      goto out;
    }
    kv_store[i][eq - props[i]] = '\0';
    keys[i] = kv_store[i];
    vals[i] = kv_store[i] + (eq - props[i]) + 1;
  }
  if ((rc = split_partitions(part_opts, n_part_opts, &part_buf, &parts, &n_parts)) != CLI_OK)
    goto out;
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema schema;
  if (inlet_schema_parse(&schema, schema_ddl, &err) < 0) {
    rc = cli_fail_fmt(&err, "--schema: %s", inlet_errmsg(&err));
    goto out;
  }
  inlet_table_create_options co = INLET_TABLE_CREATE_OPTIONS_INIT;
  co.n_partition_columns = n_parts;
  co.partition_columns = parts;
  co.n_properties = n_props;
  co.property_keys = keys;
  co.property_values = vals;
  co.name = cli_string(a, "name");
  co.description = cli_string(a, "description");
  inlet_table *t = NULL;
  inlet_table_open_options oo = cli_table_options(a);
  if (inlet_table_create_with(&t, a->pos[0], &schema, &co, &oo, &err) < 0)
    rc = cli_fail(&err);
  else
    printf("created table %s (version 0)\n", a->pos[0]);
  inlet_table_free(t);
  inlet_schema_reset(&schema);
out:
  for (int i = 0; kv_store && i < n_props; i++)
    free(kv_store[i]);
  free(kv_store);
  free(keys);
  free(vals);
  free(part_buf);
  free(parts);
  return rc;
}

const cli_command cli_cmd_create = {
    "create",
    cmd_create,
    "TABLE --schema 'DDL' [--partition-by COLS] [--property K=V ...]",
    "create an empty Delta table (version 0)",
    usage,
    opts,
    (int)(sizeof opts / sizeof opts[0]),
    1};
