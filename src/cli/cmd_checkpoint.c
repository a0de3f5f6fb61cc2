/*
 * `inlet checkpoint TABLE`: forces a checkpoint of the latest version.
 */
#include "cli.h"
#include "cmd_table.h"

static const char usage[] =
    "usage: inlet checkpoint TABLE\n"
    "Writes a checkpoint of the latest version (Parquet) and updates _delta_log/_last_checkpoint,\n"
    "so readers replay the log from there.\n";

int cmd_checkpoint(int argc, char **argv) {
  const char *pos[1];
  int n_pos = 0;
  int rc = cli_parse(argc, argv, NULL, 0, pos, 1, &n_pos, usage);
  if (rc) return rc;
  if (n_pos != 1) return cli_usage_error(usage, "checkpoint: missing TABLE");
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  int64_t v = -1;
  if (inlet_table_open(&t, pos[0], &err) < 0 || inlet_table_checkpoint(t, &v, &err) < 0) {
    inlet_table_free(t);
    return cli_fail(&err);
  }
  printf("checkpoint written at version %lld\n", (long long)v);
  inlet_table_free(t);
  return CLI_OK;
}
