/*
 * `inlet alter TABLE --property delta.enableRowTracking=true [--json]`:
 * changes a table property of an existing table. Only turning row tracking
 * on is implemented (include/inlet/maint.h inlet_table_enable_row_tracking,
 * the commits Spark's ALTER TABLE ... SET TBLPROPERTIES makes); any other
 * property is refused as unsupported rather than written without the work
 * Delta requires for it.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

static const char usage[] =
    "usage: inlet alter TABLE --property KEY=VALUE [--json]\n"
    "Changes a property of an existing table, with the commits Delta requires for it.\n"
    "Supported: delta.enableRowTracking=true: adds the rowTracking table feature to the\n"
    "protocol (UPGRADE PROTOCOL), gives every file without row ids a baseRowId and\n"
    "defaultRowCommitVersion (ROW TRACKING BACKFILL), then sets the property\n"
    "(SET TBLPROPERTIES). A table that has it already is left alone.\n"
    "  --property K=V   the property to set\n"
    "  --json           one JSON object: protocol_version, backfill_version,\n"
    "                   files_backfilled, version (null when each step was not needed),\n"
    "                   attempts\n" CLI_SINGLE_WRITER_HELP CLI_TABLE_URL_HELP;

static const cli_opt opts[] = {CLI_OPT_LIST("property"), CLI_OPT_FLAG("json"),
                               CLI_OPT_FLAG("single-writer")};

static void json_version(char buf[24], int64_t v) {
  if (v < 0)
    snprintf(buf, 24, "null");
  else
    snprintf(buf, 24, "%lld", (long long)v);
}

static int cmd_alter(const cli_args *a) {
  int n_props = 0;
  const char *const *props = cli_list(a, "property", &n_props);
  if (a->n_pos != 1) return cli_usage_error(usage, "alter: missing TABLE");
  if (n_props != 1) return cli_usage_error(usage, "alter: give exactly one --property KEY=VALUE");
  const char *eq = strchr(props[0], '=');
  if (!eq || eq == props[0])
    return cli_usage_error(usage, "--property expects KEY=VALUE, got '%s'", props[0]);
  inlet_error err = INLET_ERROR_INIT;
  size_t klen = (size_t)(eq - props[0]);
  if (klen != strlen("delta.enableRowTracking") ||
      strncmp(props[0], "delta.enableRowTracking", klen) != 0 || strcasecmp(eq + 1, "true") != 0) {
    err.code = INLET_EUNSUPPORTED; /* exit 6: a known gap, not a usage error */
    return cli_fail_fmt(&err,
                        "alter: setting %s is not supported (only delta.enableRowTracking=true is)",
                        props[0]);
  }
  inlet_table *t = NULL;
  inlet_row_tracking_result r;
  if (cli_table_open(a, a->pos[0], &t, &err) < 0 ||
      inlet_table_enable_row_tracking(&r, t, &err) < 0) {
    inlet_table_free(t);
    return cli_fail(&err);
  }
  inlet_table_free(t);
  if (cli_flag(a, "json")) {
    char pv[24], bv[24], v[24];
    json_version(pv, r.protocol_version);
    json_version(bv, r.backfill_version);
    json_version(v, r.version);
    printf("{\"format_version\":1,\"protocol_version\":%s,\"backfill_version\":%s,"
           "\"files_backfilled\":%lld,\"version\":%s,\"attempts\":%d}\n",
           pv, bv, (long long)r.files_backfilled, v, (int)r.attempts);
    return CLI_OK;
  }
  if (r.version < 0) {
    printf("row tracking is already enabled\n");
    return CLI_OK;
  }
  printf("row tracking enabled at version %lld (%lld files backfilled)\n", (long long)r.version,
         (long long)r.files_backfilled);
  return CLI_OK;
}

const cli_command cli_cmd_alter = {"alter",
                                   cmd_alter,
                                   "TABLE --property KEY=VALUE",
                                   "change a table property (delta.enableRowTracking=true)",
                                   usage,
                                   opts,
                                   (int)(sizeof opts / sizeof opts[0]),
                                   1};
