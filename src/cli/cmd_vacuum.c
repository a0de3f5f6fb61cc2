/*
 * `inlet vacuum TABLE [--retain DURATION] [--dry-run] [--force]`: deletes
 * data files that no snapshot inside the retention window references
 * (include/inlet/maint.h). Dry-run lists each file and its size. Symbolic
 * links are listed as left alone.
 */
#include "cli.h"

static const char usage[] =
    "usage: inlet vacuum TABLE [--retain DURATION] [--dry-run] [--force] [--single-writer]\n"
    "  DURATION: e.g. 168h, 7d, 30m (default: delta.deletedFileRetentionDuration, 7 days;\n"
    "            shorter needs --force)\n" CLI_SINGLE_WRITER_HELP CLI_TABLE_URL_HELP;

static void on_file(void *ctx, const char *path, int64_t size) {
  bool dry = *(bool *)ctx;
  printf("%s%s\t%lld\n", dry ? "would delete " : "deleted ", path, (long long)size);
}

static void on_symlink(void *ctx, const char *path, int64_t size) {
  (void)ctx;
  (void)size;
  printf("left symbolic link %s alone (vacuum neither follows nor deletes links)\n", path);
}

static const cli_opt opts[] = {CLI_OPT_STRING("retain"), CLI_OPT_FLAG("dry-run"),
                               CLI_OPT_FLAG("force"), CLI_OPT_FLAG("single-writer")};

static int cmd_vacuum(const cli_args *a) {
  const char *retain = cli_string(a, "retain");
  bool dry = cli_flag(a, "dry-run"), force = cli_flag(a, "force");
  const char *const *pos = a->pos;
  if (a->n_pos != 1) return cli_usage_error(usage, "vacuum: missing TABLE");
  inlet_error err = INLET_ERROR_INIT;
  inlet_vacuum_options o = INLET_VACUUM_OPTIONS_INIT;
  if (retain && inlet_duration_parse(&o.retain_ms, retain, &err) < 0)
    return cli_usage_error(usage, "%s", inlet_errmsg(&err));
  o.force = force;
  o.dry_run = dry;
  o.on_file = on_file;
  o.on_symlink = on_symlink;
  o.ctx = &dry;
  inlet_table *t = NULL;
  inlet_vacuum_result res;
  if (cli_table_open(a, pos[0], &t, &err) < 0 || inlet_table_vacuum(&res, t, &o, &err) < 0) {
    inlet_table_free(t);
    return cli_fail(&err);
  }
  inlet_table_free(t);
  printf("%s %lld files, %lld bytes (%lld removed from the table before the window, %lld never "
         "committed); %lld files kept inside the window\n",
         dry ? "would delete" : "deleted", (long long)res.files, (long long)res.bytes,
         (long long)res.tombstoned, (long long)res.debris, (long long)res.kept);
  if (res.symlinks) printf("left %lld symbolic links alone\n", (long long)res.symlinks);
  return CLI_OK;
}

const cli_command cli_cmd_vacuum = {"vacuum",
                                    cmd_vacuum,
                                    "TABLE [--retain DURATION] [--dry-run] [--force]",
                                    "delete files no snapshot in the window references",
                                    usage,
                                    opts,
                                    (int)(sizeof opts / sizeof opts[0]),
                                    1};
