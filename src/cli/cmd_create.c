/*
 * `inlet create TABLE --schema 'DDL' [--partition-by COLS] [--property K=V ...]
 *  [--name NAME] [--description TEXT]`: creates a Delta table (version 0).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd_table.h"

static const char usage[] =
    "usage: inlet create TABLE --schema 'DDL' [--partition-by COL[,COL...]]\n"
    "                    [--property KEY=VALUE ...] [--name NAME] [--description TEXT]\n"
    "Creates an empty Delta table (version 0) at directory TABLE.\n"
    "  --schema DDL        columns as Spark/Delta DDL, e.g. 'id long not null, user string,\n"
    "                      amount decimal(10,2), event_time timestamp, day date'\n"
    "  --partition-by C,D  partition columns (top-level schema columns)\n"
    "  --property K=V      a table property (metaData.configuration), repeatable, e.g.\n"
    "                      delta.checkpointInterval=10, delta.appendOnly=true,\n"
    "                      delta.enableInCommitTimestamps=true, inlet.autoCompact=true.\n"
    "                      The protocol follows from schema and properties as in Spark;\n"
    "                      delta.minWriterVersion=N and delta.feature.NAME=supported request\n"
    "                      more. Unknown delta.* keys and features inlet cannot honour are\n"
    "                      refused\n"
    "  --name, --description  metaData.name and metaData.description\n";

#define MAX_PROPS 256
#define MAX_PARTS 64

int cmd_create(int argc, char **argv) {
  /* --property may repeat; cli_parse keeps one value per option, so collect
   * them first and hand the rest on. */
  const char *keys[MAX_PROPS], *vals[MAX_PROPS];
  char *kv_store[MAX_PROPS];
  int n_props = 0;
  char **rest = calloc((size_t)argc + 1, sizeof *rest);
  if (!rest) return cli_error("out of memory");
  int n_rest = 0, rc = CLI_OK;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    const char *v = NULL;
    if (i > 0 && strcmp(a, "--property") == 0) {
      if (i + 1 >= argc) {
        rc = cli_usage_error(usage, "option '--property' needs a value");
        goto out;
      }
      v = argv[++i];
    } else if (i > 0 && strncmp(a, "--property=", 11) == 0) {
      v = a + 11;
    } else {
      rest[n_rest++] = argv[i];
      continue;
    }
    const char *eq = strchr(v, '=');
    if (!eq || eq == v) {
      rc = cli_usage_error(usage, "--property expects KEY=VALUE, got '%s'", v);
      goto out;
    }
    if (n_props >= MAX_PROPS) {
      rc = cli_usage_error(usage, "too many --property options");
      goto out;
    }
    kv_store[n_props] = strdup(v);
    if (!kv_store[n_props]) {
      rc = cli_error("out of memory");
      goto out;
    }
    kv_store[n_props][eq - v] = '\0';
    keys[n_props] = kv_store[n_props];
    vals[n_props] = kv_store[n_props] + (eq - v) + 1;
    n_props++;
  }
  const char *schema_ddl = NULL, *part_by = NULL, *name = NULL, *desc = NULL;
  cli_opt opts[] = {{"schema", &schema_ddl, NULL},
                    {"partition-by", &part_by, NULL},
                    {"name", &name, NULL},
                    {"description", &desc, NULL}};
  const char *pos[1];
  int n_pos = 0;
  rc = cli_parse(n_rest, rest, opts, 4, pos, 1, &n_pos, usage);
  if (rc) goto out;
  if (n_pos != 1) {
    rc = cli_usage_error(usage, "create: missing TABLE");
    goto out;
  }
  if (!schema_ddl) {
    rc = cli_usage_error(usage, "create: --schema is required");
    goto out;
  }
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema schema;
  if (inlet_schema_parse(&schema, schema_ddl, &err) < 0) {
    rc = cli_error("--schema: %s", inlet_errmsg(&err));
    goto out;
  }
  char part_buf[4096] = "";
  const char *parts[MAX_PARTS];
  int n_parts = 0;
  if (part_by) {
    if (strlen(part_by) >= sizeof part_buf) {
      inlet_schema_reset(&schema);
      rc = cli_usage_error(usage, "--partition-by is too long");
      goto out;
    }
    strcpy(part_buf, part_by);
    for (char *tok = strtok(part_buf, ", "); tok && n_parts < MAX_PARTS; tok = strtok(NULL, ", "))
      parts[n_parts++] = tok;
  }
  inlet_table_create_options co = INLET_TABLE_CREATE_OPTIONS_INIT;
  co.n_partition_columns = n_parts;
  co.partition_columns = parts;
  co.n_properties = n_props;
  co.property_keys = keys;
  co.property_values = vals;
  co.name = name;
  co.description = desc;
  inlet_table *t = NULL;
  if (inlet_table_create(&t, pos[0], &schema, &co, &err) < 0) rc = cli_fail(&err);
  else printf("created table %s (version 0)\n", pos[0]);
  inlet_table_free(t);
  inlet_schema_reset(&schema);
out:
  for (int i = 0; i < n_props; i++) free(kv_store[i]);
  free(rest);
  return rc;
}
