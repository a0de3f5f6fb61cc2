/*
 * `inlet vacuum TABLE [--retain DURATION] [--dry-run] [--force]`: deletes
 * data files that no snapshot inside the retention window references
 * (include/inlet/maint.h). Dry-run lists each file and its size. Symbolic
 * links are listed as left alone.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "log.h"
#include "progress.h"

static const char usage[] =
    "usage: inlet vacuum TABLE [--retain DURATION] [--dry-run] [--force] [--single-writer]\n"
    "                    [--json]\n"
    "  --json      one JSON object: dry_run, files, bytes, tombstoned, debris, kept, symlinks,\n"
    "              deleted (path, size; the files deleted, or that would be), symlinks_left\n"
    "  DURATION: e.g. 168h, 7d, 30m (default: delta.deletedFileRetentionDuration, 7 days;\n"
    "            shorter needs --force)\n" CLI_SINGLE_WRITER_HELP CLI_TABLE_URL_HELP;

typedef struct report {
  bool dry;
  FILE *files, *links; /* --json: the arrays' members; NULL: text */
  int n_files, n_links;
  cli_progress prog;
} report;

static void on_file(void *ctx, const char *path, int64_t size) {
  report *r = ctx;
  if (r->files) {
    fprintf(r->files, "%s{\"path\":", r->n_files++ ? "," : "");
    cli_json_string(r->files, path);
    fprintf(r->files, ",\"size\":%lld}", (long long)size);
    return;
  }
  cli_progress_clear(&r->prog);
  printf("%s%s\t%lld\n", r->dry ? "would delete " : "deleted ", path, (long long)size);
}

static void on_symlink(void *ctx, const char *path, int64_t size) {
  report *r = ctx;
  (void)size;
  if (r->links) {
    fputs(r->n_links++ ? "," : "", r->links);
    cli_json_string(r->links, path);
    return;
  }
  cli_progress_clear(&r->prog);
  printf("left symbolic link %s alone (vacuum neither follows nor deletes links)\n", path);
}

static const cli_opt opts[] = {CLI_OPT_STRING("retain"), CLI_OPT_FLAG("dry-run"),
                               CLI_OPT_FLAG("force"), CLI_OPT_FLAG("single-writer"),
                               CLI_OPT_FLAG("json")};

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
  char *files = NULL, *links = NULL;
  size_t files_len = 0, links_len = 0;
  report rep = {dry, NULL, NULL, 0, 0, {0}};
  if (cli_flag(a, "json")) {
    rep.files = open_memstream(&files, &files_len);
    rep.links = open_memstream(&links, &links_len);
    if (!rep.files || !rep.links) return cli_error("out of memory");
  }
  o.on_file = on_file;
  o.on_symlink = on_symlink;
  o.ctx = &rep;
  inlet_table *t = NULL;
  inlet_vacuum_result res;
  int rc = cli_table_open(a, pos[0], &t, &err);
  cli_progress_init(&rep.prog, !rep.files);
  if (rc == 0) rc = inlet_table_set_progress(t, cli_progress_fn, &rep.prog, &err);
  if (rc == 0) rc = inlet_table_vacuum(&res, t, &o, &err);
  cli_progress_clear(&rep.prog);
  inlet_table_free(t);
  if (rep.files) {
    fclose(rep.files);
    fclose(rep.links);
  }
  if (rc < 0) {
    free(files);
    free(links);
    return cli_fail(&err);
  }
  if (rep.files) {
    printf("{\"format_version\":1,\"dry_run\":%s,\"files\":%lld,\"bytes\":%lld,"
           "\"tombstoned\":%lld,\"debris\":%lld,"
           "\"kept\":%lld,\"symlinks\":%lld,\"deleted\":[%.*s],\"symlinks_left\":[%.*s]}\n",
           dry ? "true" : "false", (long long)res.files, (long long)res.bytes,
           (long long)res.tombstoned, (long long)res.debris, (long long)res.kept,
           (long long)res.symlinks, (int)files_len, files ? files : "", (int)links_len,
           links ? links : "");
    free(files);
    free(links);
    return CLI_OK;
  }
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
