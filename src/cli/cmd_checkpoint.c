/*
 * `inlet checkpoint TABLE`: forces a checkpoint of the latest version. A
 * version that already has a checkpoint (whoever wrote it, in whatever
 * form) keeps it: nothing is written and the command says so.
 */
#include "cli.h"
#include "progress.h"

static const char usage[] =
    "usage: inlet checkpoint TABLE [--single-writer] [--threads N]\n"
    "Writes a checkpoint of the latest version (Parquet) and updates _delta_log/_last_checkpoint,\n"
    "so readers replay the log from there. An existing checkpoint of that version is left "
    "alone.\n"
    "  --threads N  threads reading the log, and writing a v2 checkpoint's sidecars side by\n"
    "               side (default: the online CPUs; 1: one thread); the same bytes whatever "
    "N\n" CLI_SINGLE_WRITER_HELP CLI_TABLE_URL_HELP;

static const cli_opt opts[] = {CLI_OPT_FLAG("single-writer"), CLI_OPT_THREADS};

static int cmd_checkpoint(const cli_args *a) {
  const char *const *pos = a->pos;
  int rc;
  if (a->n_pos != 1) return cli_usage_error(usage, "checkpoint: missing TABLE");
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  int64_t v = -1;
  if (cli_table_open(a, pos[0], &t, &err) < 0) return cli_fail(&err);
  cli_progress prog;
  cli_progress_init(&prog, true);
  rc = inlet_table_set_progress(t, cli_progress_fn, &prog, &err);
  if (rc == 0) rc = inlet_table_checkpoint(t, &v, &err);
  cli_progress_clear(&prog);
  inlet_table_free(t);
  if (rc == INLET_EEXISTS) {
    /* Not a failure: the version is checkpointed, by us or another writer. */
    printf("checkpoint not written: %s\n", inlet_errmsg(&err));
    return CLI_OK;
  }
  if (rc < 0) return cli_fail(&err);
  printf("checkpoint written at version %lld\n", (long long)v);
  return CLI_OK;
}

const cli_command cli_cmd_checkpoint = {"checkpoint",
                                        cmd_checkpoint,
                                        "TABLE [--single-writer] [--threads N]",
                                        "checkpoint the latest version",
                                        usage,
                                        opts,
                                        (int)(sizeof opts / sizeof opts[0]),
                                        1};
