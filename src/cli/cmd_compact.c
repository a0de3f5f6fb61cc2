/*
 * `inlet compact TABLE [--min-files N] [--target-size SIZE] [--where PRED]
 * [--sort-by COLS] [--bins-per-commit N] [--dry-run]`: rewrites the small
 * files of each partition into files near the target size, one OPTIMIZE
 * commit per bin (include/inlet/maint.h). One line per bin on stdout, a
 * summary at the end; exit 1 when some bin failed (conflict, bad file).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd_maint.h"

static const char usage[] =
    "usage: inlet compact TABLE [--min-files N] [--target-size SIZE] [--where PREDICATE]\n"
    "                     [--sort-by COL[,COL...]] [--bins-per-commit N] [--dry-run]\n"
    "  PREDICATE: partition columns only, e.g. \"day >= '2024-01-01' AND kind = 'click'\"\n";

static void on_group(void *ctx, const inlet_compact_group *g) {
  bool dry = *(bool *)ctx;
  const char *part = *g->partition ? g->partition : "(table)";
  if (dry)
    printf("would compact %s: %lld files, %lld bytes\n", part, (long long)g->n_inputs,
           (long long)g->input_bytes);
  else if (g->status)
    fprintf(stderr, "inlet: compaction of %s (%lld files) failed: %s\n", part,
            (long long)g->n_inputs, g->message ? g->message : inlet_strerror(g->status));
  else
    printf("compacted %s: %lld files (%lld bytes) -> %lld files (%lld bytes), %lld rows, "
           "version %lld\n", part, (long long)g->n_inputs, (long long)g->input_bytes,
           (long long)g->n_outputs, (long long)g->output_bytes, (long long)g->rows,
           (long long)g->version);
}

static bool parse_count(const char *s, int64_t *out) {
  char *end;
  if (!s || !*s) return false;
  long long v = strtoll(s, &end, 10);
  if (*end || v < 1 || v > 1000000000) return false;
  *out = v;
  return true;
}

int cmd_compact(int argc, char **argv) {
  const char *min_files = NULL, *target = NULL, *where = NULL, *sort_by = NULL, *per = NULL;
  bool dry = false;
  cli_opt opts[] = {{"min-files", &min_files, NULL},       {"target-size", &target, NULL},
                    {"where", &where, NULL},               {"sort-by", &sort_by, NULL},
                    {"bins-per-commit", &per, NULL},       {"dry-run", NULL, &dry}};
  const char *pos[1];
  int n_pos = 0;
  int rc = cli_parse(argc, argv, opts, 6, pos, 1, &n_pos, usage);
  if (rc) return rc;
  if (n_pos != 1) return cli_usage_error(usage, "compact: missing TABLE");
  inlet_compact_options o = INLET_COMPACT_OPTIONS_INIT;
  int64_t v;
  if (min_files) {
    if (!parse_count(min_files, &v)) return cli_usage_error(usage, "bad --min-files '%s'", min_files);
    o.min_files = (int32_t)v;
  }
  if (per) {
    if (!parse_count(per, &v)) return cli_usage_error(usage, "bad --bins-per-commit '%s'", per);
    o.bins_per_commit = (int32_t)v;
  }
  if (target && (!cli_parse_size(target, &o.target_size) || o.target_size == 0))
    return cli_usage_error(usage, "bad --target-size '%s'", target);
  o.where = where;
  o.dry_run = dry;
  o.on_group = on_group;
  o.ctx = &dry;
  char *cols = NULL;
  const char *names[64];
  if (sort_by) {
    cols = strdup(sort_by);
    if (!cols) return cli_error("out of memory");
    int32_t n = 0;
    for (char *save = NULL, *t = strtok_r(cols, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
      while (*t == ' ') t++;
      if (n == 64) {
        free(cols);
        return cli_usage_error(usage, "too many --sort-by columns");
      }
      names[n++] = t;
    }
    o.n_sort_by = n;
    o.sort_by = names;
  }
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  inlet_compact_result res;
  if (inlet_table_open(&t, pos[0], &err) < 0 || inlet_table_compact(&res, t, &o, &err) < 0) {
    inlet_table_free(t);
    free(cols);
    return cli_fail(&err);
  }
  inlet_table_free(t);
  free(cols);
  if (dry)
    printf("dry run at version %lld: %lld bins in %lld partitions, %lld files, %lld bytes\n",
           (long long)res.read_version, (long long)res.bins, (long long)res.partitions,
           (long long)res.files_removed, (long long)res.bytes_removed);
  else
    printf("compaction of version %lld: %lld commits, removed %lld files (%lld bytes), added "
           "%lld files (%lld bytes), %lld rows%s\n", (long long)res.read_version,
           (long long)res.commits, (long long)res.files_removed, (long long)res.bytes_removed,
           (long long)res.files_added, (long long)res.bytes_added, (long long)res.rows,
           res.bins == 0 ? " (nothing to compact)" : "");
  if (res.failed_groups)
    return cli_error("%lld of %lld bins failed (table unchanged for them)",
                     (long long)res.failed_groups, (long long)res.bins);
  return CLI_OK;
}
