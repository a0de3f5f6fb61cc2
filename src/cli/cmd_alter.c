/*
 * `inlet alter TABLE --property KEY=VALUE... [--json]`: sets table
 * properties of an existing table with the commits Spark's ALTER TABLE ...
 * SET TBLPROPERTIES makes: delta.enableRowTracking=true (on its own) through
 * include/inlet/maint.h inlet_table_enable_row_tracking (protocol upgrade,
 * backfill, property), any other through inlet_table_set_properties (one
 * commit, the protocol grown for the features the properties turn on).
 * `--unset KEY... [--if-exists]` removes properties as ALTER TABLE ... UNSET
 * TBLPROPERTIES does (inlet_table_unset_properties). Properties that need
 * more work than that are refused as unsupported rather than written
 * without it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

static const char usage[] =
    "usage: inlet alter TABLE --property KEY=VALUE... [--json]\n"
    "       inlet alter TABLE --unset KEY... [--if-exists] [--json]\n"
    "Sets properties of an existing table, with the commits Delta requires for them.\n"
    "One SET TBLPROPERTIES commit holds the new metaData and, when a property turns on\n"
    "a table feature the protocol lacks, the grown protocol: delta.appendOnly,\n"
    "delta.enableChangeDataFeed, delta.enableDeletionVectors, delta.enableTypeWidening,\n"
    "delta.checkpointInterval, delta.logRetentionDuration,\n"
    "delta.deletedFileRetentionDuration, delta.dataSkippingNumIndexedCols,\n"
    "delta.feature.NAME=supported, keys outside the delta. namespace, ...\n"
    "delta.enableRowTracking=true (given on its own) adds the rowTracking feature to the\n"
    "protocol (UPGRADE PROTOCOL), gives every file without row ids a baseRowId and\n"
    "defaultRowCommitVersion (ROW TRACKING BACKFILL), then sets the property\n"
    "(SET TBLPROPERTIES). Refused (exit 6): CHECK constraints, column mapping, in-commit\n"
    "timestamps, Iceberg compatibility, protocol versions. Properties already set as\n"
    "asked are left alone. comment=TEXT sets the table's description (as in Spark).\n"
    "--unset removes properties in one UNSET TBLPROPERTIES commit; the protocol keeps\n"
    "every feature (a removed delta.constraints.NAME drops that CHECK constraint).\n"
    "A key that is not set is an error (exit 3) unless --if-exists. Refused (exit 6):\n"
    "column mapping, in-commit timestamps, row tracking's materialized column names,\n"
    "Iceberg compatibility, delta.feature.*, protocol versions.\n"
    "  --property K=V   a property to set, repeatable\n"
    "  --unset K        a property to remove, repeatable\n"
    "  --if-exists      with --unset: skip keys that are not set\n"
    "  --json           one JSON object: protocol_version, backfill_version,\n"
    "                   files_backfilled, version (null when each step was not needed),\n"
    "                   attempts\n" CLI_SINGLE_WRITER_HELP CLI_TABLE_URL_HELP;

static const cli_opt opts[] = {CLI_OPT_LIST("property"), CLI_OPT_LIST("unset"),
                               CLI_OPT_FLAG("if-exists"), CLI_OPT_FLAG("json"),
                               CLI_OPT_FLAG("single-writer")};

static void json_version(char buf[24], int64_t v) {
  if (v < 0)
    snprintf(buf, 24, "null");
  else
    snprintf(buf, 24, "%lld", (long long)v);
}

static void print_json(int64_t protocol_version, int64_t backfill_version, int64_t backfilled,
                       int64_t version, int attempts) {
  char pv[24], bv[24], v[24];
  json_version(pv, protocol_version);
  json_version(bv, backfill_version);
  json_version(v, version);
  printf("{\"format_version\":1,\"protocol_version\":%s,\"backfill_version\":%s,"
         "\"files_backfilled\":%lld,\"version\":%s,\"attempts\":%d}\n",
         pv, bv, (long long)backfilled, v, attempts);
}

static int enable_row_tracking(const cli_args *a, inlet_table *t, inlet_error *err) {
  inlet_row_tracking_result r;
  if (inlet_table_enable_row_tracking(&r, t, err) < 0) return cli_fail(err);
  if (cli_flag(a, "json")) {
    print_json(r.protocol_version, r.backfill_version, r.files_backfilled, r.version,
               (int)r.attempts);
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

static int unset_properties(const cli_args *a, const char *const *keys, int n) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  inlet_set_properties_result r;
  int rc = CLI_OK;
  if (cli_table_open(a, a->pos[0], &t, &err) < 0 ||
      inlet_table_unset_properties(&r, t, keys, n, cli_flag(a, "if-exists"), &err) < 0)
    rc = cli_fail(&err);
  else if (cli_flag(a, "json"))
    print_json(-1, -1, 0, r.version, (int)r.attempts);
  else if (r.version < 0)
    printf("no property to unset\n");
  else
    printf("%d propert%s unset at version %lld\n", n, n == 1 ? "y" : "ies", (long long)r.version);
  inlet_table_free(t);
  return rc;
}

static int cmd_alter(const cli_args *a) {
  int n_props = 0, n_unset = 0;
  const char *const *props = cli_list(a, "property", &n_props);
  const char *const *unset = cli_list(a, "unset", &n_unset);
  if (a->n_pos != 1) return cli_usage_error(usage, "alter: missing TABLE");
  if (n_props > 0 && n_unset > 0)
    return cli_usage_error(usage, "alter: give --property or --unset, not both (two commits)");
  if (cli_flag(a, "if-exists") && n_unset < 1)
    return cli_usage_error(usage, "alter: --if-exists goes with --unset");
  if (n_unset > 0) return unset_properties(a, unset, n_unset);
  if (n_props < 1)
    return cli_usage_error(usage, "alter: give at least one --property KEY=VALUE or --unset KEY");
  char **keys = calloc((size_t)n_props, sizeof *keys);
  const char **vals = calloc((size_t)n_props, sizeof *vals);
  int rc = CLI_OK;
  if (!keys || !vals) rc = cli_usage_error(usage, "alter: out of memory");
  for (int i = 0; rc == CLI_OK && i < n_props; i++) {
    const char *eq = strchr(props[i], '=');
    if (!eq || eq == props[i]) {
      rc = cli_usage_error(usage, "--property expects KEY=VALUE, got '%s'", props[i]);
      break;
    }
    keys[i] = strndup(props[i], (size_t)(eq - props[i]));
    vals[i] = eq + 1;
    if (!keys[i]) rc = cli_usage_error(usage, "alter: out of memory");
  }
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  if (rc == CLI_OK && cli_table_open(a, a->pos[0], &t, &err) < 0) rc = cli_fail(&err);
  if (rc == CLI_OK && n_props == 1 && strcasecmp(keys[0], "delta.enableRowTracking") == 0 &&
      strcasecmp(vals[0], "true") == 0) {
    rc = enable_row_tracking(a, t, &err);
  } else if (rc == CLI_OK) {
    inlet_set_properties_result r;
    if (inlet_table_set_properties(&r, t, (const char *const *)keys, vals, n_props, &err) < 0) {
      rc = cli_fail(&err);
    } else if (cli_flag(a, "json")) {
      print_json(r.protocol_changed ? r.version : -1, -1, 0, r.version, (int)r.attempts);
    } else if (r.version < 0) {
      printf("every property is set as asked already\n");
    } else {
      printf("%d propert%s set at version %lld%s\n", n_props, n_props == 1 ? "y" : "ies",
             (long long)r.version, r.protocol_changed ? " (protocol upgraded)" : "");
    }
  }
  inlet_table_free(t);
  for (int i = 0; keys && i < n_props; i++)
    free(keys[i]);
  free(keys);
  free(vals);
  return rc;
}

const cli_command cli_cmd_alter = {
    "alter",
    cmd_alter,
    "TABLE --property KEY=VALUE | --unset KEY",
    "set or unset table properties (the protocol grows for the features they turn on)",
    usage,
    opts,
    (int)(sizeof opts / sizeof opts[0]),
    1};
