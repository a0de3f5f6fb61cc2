/*
 * `inlet compact TABLE [--min-files N] [--target-size SIZE] [--where PRED]
 * [--sort-by COLS] [--bins-per-commit N] [--row-group-size SIZE]
 * [--dry-run]`: rewrites the small files of each partition into files near
 * the target size, one OPTIMIZE commit per bin (include/inlet/maint.h). One
 * line per bin on stdout, a summary at the end; exit 1 when some bin failed
 * (conflict, bad file).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "progress.h"
#include "log.h"

static const char usage[] =
    "usage: inlet compact TABLE [--min-files N] [--target-size SIZE] [--where PREDICATE]\n"
    "                     [--sort-by COL[,COL...]] [--bins-per-commit N] [--dry-run]\n"
    "                     [--row-group-size SIZE] [--single-writer] [--json] [--threads N]\n"
    "  --row-group-size SIZE  output row groups near SIZE bytes (uncompressed; default:\n"
    "              the target size, at most 64 MiB)\n"
    "  --json      one JSON object: read_version, dry_run, partitions, bins, commits,\n"
    "              failed_groups, files_removed, files_added, bytes_removed, bytes_added, rows,\n"
    "              last_version (null when nothing was committed), groups (partition,\n"
    "              input_files, input_bytes, output_files, output_bytes, rows, version, error)\n"
    "  PREDICATE: partition columns only, e.g. \"day >= '2024-01-01' AND kind = "
    "'click'\"\n" CLI_THREADS_HELP CLI_SINGLE_WRITER_HELP CLI_TABLE_URL_HELP;

/* What on_group reports to: text lines, or (--json) the groups array. */
typedef struct report {
  bool dry;
  FILE *json; /* NULL: text */
  int n;
  cli_progress prog;
} report;

static void json_group(report *r, const inlet_compact_group *g) {
  FILE *f = r->json;
  fprintf(f, "%s{\"partition\":", r->n++ ? "," : "");
  cli_json_string(f, g->partition);
  fprintf(f,
          ",\"input_files\":%lld,\"input_bytes\":%lld,\"output_files\":%lld,"
          "\"output_bytes\":%lld,\"rows\":%lld,\"version\":",
          (long long)g->n_inputs, (long long)g->input_bytes, (long long)g->n_outputs,
          (long long)g->output_bytes, (long long)g->rows);
  if (g->version >= 0)
    fprintf(f, "%lld", (long long)g->version);
  else
    fputs("null", f);
  fputs(",\"error\":", f);
  if (g->status)
    cli_json_string(f, g->message ? g->message : inlet_strerror(g->status));
  else
    fputs("null", f);
  fputc('}', f);
}

static void on_group(void *ctx, const inlet_compact_group *g) {
  report *r = ctx;
  bool dry = r->dry;
  cli_progress_clear(&r->prog);
  if (r->json) {
    json_group(r, g);
    if (!g->status) return;
  }
  const char *part = *g->partition ? g->partition : "(table)";
  if (dry)
    printf("would compact %s: %lld files, %lld bytes\n", part, (long long)g->n_inputs,
           (long long)g->input_bytes);
  else if (g->status)
    cli_log("warning", "compaction_group_failed", NULL, "compaction of %s (%lld files) failed: %s",
            part, (long long)g->n_inputs, g->message ? g->message : inlet_strerror(g->status));
  else if (!r->json)
    printf("compacted %s: %lld files (%lld bytes) -> %lld files (%lld bytes), %lld rows, "
           "version %lld\n",
           part, (long long)g->n_inputs, (long long)g->input_bytes, (long long)g->n_outputs,
           (long long)g->output_bytes, (long long)g->rows, (long long)g->version);
}

static const cli_opt opts[] = {
    CLI_OPT_INT("min-files", 1, 1000000000),
    CLI_OPT_SIZE("target-size", 1, INT64_MAX),
    CLI_OPT_SIZE("row-group-size", 4096, INT64_MAX),
    CLI_OPT_STRING("where"),
    CLI_OPT_LIST("sort-by"),
    CLI_OPT_INT("bins-per-commit", 1, 1000000000),
    CLI_OPT_FLAG("dry-run"),
    CLI_OPT_FLAG("single-writer"),
    CLI_OPT_FLAG("json"),
    CLI_OPT_THREADS,
};

static int cmd_compact(const cli_args *a) {
  const char *where = cli_string(a, "where");
  bool dry = cli_flag(a, "dry-run");
  const char *const *pos = a->pos;
  if (a->n_pos != 1) return cli_usage_error(usage, "compact: missing TABLE");
  inlet_compact_options o = INLET_COMPACT_OPTIONS_INIT;
  o.threads = cli_threads(a);
  int64_t v;
  if (cli_int(a, "min-files", &v)) o.min_files = (int32_t)v;
  if (cli_int(a, "bins-per-commit", &v)) o.bins_per_commit = (int32_t)v;
  (void)cli_int(a, "target-size", &o.target_size);
  (void)cli_int(a, "row-group-size", &o.row_group_bytes);
  o.where = where;
  o.dry_run = dry;
  char *groups = NULL;
  size_t groups_len = 0;
  report rep = {dry, NULL, 0, {0}};
  if (cli_flag(a, "json") && !(rep.json = open_memstream(&groups, &groups_len)))
    return cli_error("out of memory");
  o.on_group = on_group;
  o.ctx = &rep;
  /* --sort-by A,B and --sort-by A --sort-by B alike. */
  int n_sort = 0;
  const char *const *sort_by = cli_list(a, "sort-by", &n_sort);
  size_t total = 1;
  for (int i = 0; i < n_sort; i++)
    total += strlen(sort_by[i]) + 1;
  char *cols = malloc(total);
  const char **names = calloc(total, sizeof *names);
  if (!cols || !names) {
    free(cols);
    free(names);
    return cli_error("out of memory");
  }
  int32_t n = 0;
  char *p = cols;
  for (int i = 0; i < n_sort; i++) {
    size_t len = strlen(sort_by[i]);
    memcpy(p, sort_by[i], len + 1);
    for (char *save = NULL, *t = strtok_r(p, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
      while (*t == ' ')
        t++;
      names[n++] = t;
    }
    p += len + 1;
  }
  o.n_sort_by = n;
  o.sort_by = n ? names : NULL;
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  inlet_compact_result res;
  int rc = cli_table_open(a, pos[0], &t, &err);
  cli_progress_init(&rep.prog, !rep.json && !dry);
  if (rc == 0) rc = inlet_table_set_progress(t, cli_progress_fn, &rep.prog, &err);
  if (rc == 0) rc = inlet_table_compact(&res, t, &o, &err);
  cli_progress_clear(&rep.prog);
  inlet_table_free(t);
  free(cols);
  free(names);
  if (rep.json && fclose(rep.json) != 0 && rc == 0) rc = INLET_ENOMEM;
  if (rc < 0) {
    free(groups);
    return cli_fail(&err);
  }
  if (rep.json) {
    printf("{\"format_version\":1,\"read_version\":%lld,\"dry_run\":%s,\"partitions\":%lld,"
           "\"bins\":%lld,"
           "\"commits\":%lld,\"failed_groups\":%lld,\"files_removed\":%lld,"
           "\"files_added\":%lld,\"bytes_removed\":%lld,\"bytes_added\":%lld,\"rows\":%lld,"
           "\"last_version\":",
           (long long)res.read_version, dry ? "true" : "false", (long long)res.partitions,
           (long long)res.bins, (long long)res.commits, (long long)res.failed_groups,
           (long long)res.files_removed, (long long)res.files_added, (long long)res.bytes_removed,
           (long long)res.bytes_added, (long long)res.rows);
    if (res.last_version >= 0)
      printf("%lld", (long long)res.last_version);
    else
      fputs("null", stdout);
    printf(",\"groups\":[%.*s]}\n", (int)groups_len, groups ? groups : "");
    free(groups);
  } else if (dry)
    printf("dry run at version %lld: %lld bins in %lld partitions, %lld files, %lld bytes\n",
           (long long)res.read_version, (long long)res.bins, (long long)res.partitions,
           (long long)res.files_removed, (long long)res.bytes_removed);
  else
    printf("compaction of version %lld: %lld commits, removed %lld files (%lld bytes), added "
           "%lld files (%lld bytes), %lld rows%s\n",
           (long long)res.read_version, (long long)res.commits, (long long)res.files_removed,
           (long long)res.bytes_removed, (long long)res.files_added, (long long)res.bytes_added,
           (long long)res.rows, res.bins == 0 ? " (nothing to compact)" : "");
  if (res.failed_groups)
    return cli_error("%lld of %lld bins failed (table unchanged for them)",
                     (long long)res.failed_groups, (long long)res.bins);
  return CLI_OK;
}

const cli_command cli_cmd_compact = {
    "compact",
    cmd_compact,
    "TABLE [--min-files N] [--target-size SIZE] [--where PRED] [--sort-by COLS]\n"
    "                [--bins-per-commit N] [--dry-run]",
    "rewrite small files into target-size files (OPTIMIZE)",
    usage,
    opts,
    (int)(sizeof opts / sizeof opts[0]),
    1};
