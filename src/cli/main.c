/*
 * inlet command-line tool: dispatches to one cmd_<verb>.c per subcommand
 * and holds the shared error/option helpers declared in cli.h. Uses only
 * the public headers in include/inlet/.
 *
 * Exit codes: 0 success, 1 failure (message "inlet: ..." on stderr),
 * 2 usage error.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd_help.h"
#include "cmd_ingest.h"
#include "cmd_maint.h"
#include "cmd_table.h"

static const char usage_text[] =
    "usage: inlet <command> [options]\n"
    "\n"
    "Commands:\n"
    "  parquet schema FILE             print a Parquet file's schema as DDL\n"
    "  parquet meta FILE [--json]      row groups, column chunks, encodings, sizes, statistics\n"
    "  parquet cat FILE [--format ndjson|csv|table] [--columns a,b] [--limit N]\n"
    "                                  print rows\n"
    "  parquet convert IN OUT --schema 'DDL' [--input-format ndjson|csv]\n"
    "                  [--compression snappy|zstd|gzip|lz4_raw|none] [--compression-level N]\n"
    "                  [--row-group-size BYTES] [--page-size BYTES] [--no-dictionary]\n"
    "                  [--encodings compatible|extended] [--skip-bad] [--strict]\n"
    "                  [--epoch-unit s|ms|us|ns] [--force]\n"
    "                                  NDJSON or CSV to Parquet\n"
    "  create TABLE --schema 'DDL' [--partition-by COLS] [--property K=V ...]\n"
    "  append TABLE FILE... [--format ndjson|csv|parquet] [--skip-bad]\n"
    "  scan TABLE [--version N | --as-of TS] [--columns A,B] [--where EXPR] [--limit N]\n"
    "             [--format table|csv|ndjson|parquet] [--output FILE] [--explain]\n"
    "                                  query a snapshot, skipping what cannot match\n"
    "  history TABLE [--json] [--limit N]\n"
    "  describe TABLE [--json]\n"
    "  checkpoint TABLE\n"
    "  compact TABLE [--min-files N] [--target-size SIZE] [--where PRED] [--sort-by COLS]\n"
    "                [--bins-per-commit N] [--dry-run]\n"
    "                                  rewrite small files into target-size files (OPTIMIZE)\n"
    "  vacuum TABLE [--retain DURATION] [--dry-run] [--force]\n"
    "                                  delete files no snapshot in the window references\n"
    "  maintain TABLE [--follow] [--interval DURATION] [--compact] [--vacuum]\n"
    "                                  auto-compaction and log cleanup companion\n"
    "  ingest TABLE --source file:PATH|stdin|redis://HOST:PORT/STREAM|kafka://HOST:PORT/TOPIC\n"
    "                 [--once] [--follow] ...\n"
    "                                  stream records into the table, exactly once\n"
    "  demo [DIR] [--seed N]           the walkthrough: stream, watermark, compaction, time travel\n"
    "\n"
    "Options:\n"
    "  -h, --help                      show help (also after a command)\n"
    "  help COMMAND                    a command's help; help --man prints the man page\n"
    "  --version                       print the version\n";

int cli_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("inlet: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return CLI_FAIL;
}

int cli_usage_error(const char *usage, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("inlet: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  if (usage) fprintf(stderr, "%s", usage);
  return CLI_USAGE;
}

int cli_fail(const inlet_error *err) { return cli_error("%s", inlet_errmsg(err)); }

int cli_parse(int argc, char **argv, const cli_opt *opts, int n_opts, const char **pos,
              int max_pos, int *n_pos, const char *usage) {
  *n_pos = 0;
  bool only_pos = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!only_pos && (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)) {
      fputs(usage, stdout);
      return CLI_HELP_SHOWN;
    }
    if (!only_pos && strcmp(a, "--") == 0) {
      only_pos = true;
      continue;
    }
    if (only_pos || a[0] != '-' || a[1] == '\0') {
      if (*n_pos >= max_pos) return cli_usage_error(usage, "unexpected argument '%s'", a);
      pos[(*n_pos)++] = a;
      continue;
    }
    if (a[1] != '-') return cli_usage_error(usage, "unknown option '%s'", a);
    const char *name = a + 2, *eq = strchr(name, '=');
    size_t nlen = eq ? (size_t)(eq - name) : strlen(name);
    const cli_opt *o = NULL;
    for (int k = 0; k < n_opts; k++)
      if (strlen(opts[k].name) == nlen && strncmp(opts[k].name, name, nlen) == 0) o = &opts[k];
    if (!o) return cli_usage_error(usage, "unknown option '--%.*s'", (int)nlen, name);
    if (o->flag) {
      if (eq) return cli_usage_error(usage, "option '--%s' takes no value", o->name);
      *o->flag = true;
    } else if (eq) {
      *o->value = eq + 1;
    } else {
      if (i + 1 >= argc) return cli_usage_error(usage, "option '--%s' needs a value", o->name);
      *o->value = argv[++i];
    }
  }
  return CLI_OK;
}

bool cli_parse_size(const char *s, int64_t *out) {
  char *end;
  errno = 0;
  if (!s || !*s || *s == '-') return false;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || end == s) return false;
  unsigned shift = 0;
  if (*end) {
    switch (*end) {
    case 'k': case 'K': shift = 10; break;
    case 'm': case 'M': shift = 20; break;
    case 'g': case 'G': shift = 30; break;
    default: return false;
    }
    end++;
    if (*end == 'i' && end[1] == 'B') end += 2;
    else if (*end == 'B') end++;
    if (*end) return false;
  }
  if (v > ((unsigned long long)INT64_MAX >> shift)) return false;
  *out = (int64_t)(v << shift);
  return true;
}

static const char parquet_usage[] =
    "usage: inlet parquet <schema|meta|cat|convert> ...  (inlet --help for details)\n";

static int cmd_parquet(int argc, char **argv) {
  if (argc < 2) return cli_usage_error(parquet_usage, "parquet: missing subcommand");
  const char *sub = argv[1];
  if (strcmp(sub, "-h") == 0 || strcmp(sub, "--help") == 0) {
    fputs(usage_text, stdout);
    return CLI_OK;
  }
  if (strcmp(sub, "schema") == 0) return cmd_parquet_schema(argc - 1, argv + 1);
  if (strcmp(sub, "meta") == 0) return cmd_parquet_meta(argc - 1, argv + 1);
  if (strcmp(sub, "cat") == 0) return cmd_parquet_cat(argc - 1, argv + 1);
  if (strcmp(sub, "convert") == 0) return cmd_parquet_convert(argc - 1, argv + 1);
  return cli_usage_error(parquet_usage, "parquet: unknown subcommand '%s'", sub);
}

int main(int argc, char **argv) {
  int rc;
  if (argc < 2) return cli_usage_error(usage_text, "missing command");
  const char *cmd = argv[1];
  if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
    printf("inlet %s\n", INLET_VERSION_STRING);
    rc = CLI_OK;
  } else if (strcmp(cmd, "help") == 0 && argc > 2) {
    rc = cmd_help(argc - 1, argv + 1, usage_text);
  } else if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
    fputs(usage_text, stdout);
    rc = CLI_OK;
  } else if (strcmp(cmd, "parquet") == 0) {
    rc = cmd_parquet(argc - 1, argv + 1);
  } else if (strcmp(cmd, "create") == 0) {
    rc = cmd_create(argc - 1, argv + 1);
  } else if (strcmp(cmd, "append") == 0) {
    rc = cmd_append(argc - 1, argv + 1);
  } else if (strcmp(cmd, "scan") == 0) {
    rc = cmd_scan(argc - 1, argv + 1);
  } else if (strcmp(cmd, "history") == 0) {
    rc = cmd_history(argc - 1, argv + 1);
  } else if (strcmp(cmd, "describe") == 0) {
    rc = cmd_describe(argc - 1, argv + 1);
  } else if (strcmp(cmd, "checkpoint") == 0) {
    rc = cmd_checkpoint(argc - 1, argv + 1);
  } else if (strcmp(cmd, "compact") == 0) {
    rc = cmd_compact(argc - 1, argv + 1);
  } else if (strcmp(cmd, "vacuum") == 0) {
    rc = cmd_vacuum(argc - 1, argv + 1);
  } else if (strcmp(cmd, "maintain") == 0) {
    rc = cmd_maintain(argc - 1, argv + 1);
  } else if (strcmp(cmd, "ingest") == 0) {
    rc = cmd_ingest(argc - 1, argv + 1);
  } else if (strcmp(cmd, "demo") == 0) {
    rc = cmd_demo(argc - 1, argv + 1);
  } else {
    rc = cli_usage_error(usage_text, "unknown command '%s'", cmd);
  }
  if (rc == CLI_HELP_SHOWN) rc = CLI_OK;
  if (fflush(stdout) != 0 && rc == CLI_OK) rc = cli_error("cannot write to standard output");
  return rc;
}
