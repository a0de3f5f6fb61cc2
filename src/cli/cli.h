/*
 * Shared plumbing of the inlet command-line tool: error reporting with the
 * tool's exit-code convention (0 success, 1 failure, 2 usage error), a small
 * long-option parser and the subcommand entry points. The CLI uses only the
 * public headers in include/inlet/.
 */
#ifndef INLET_CLI_H
#define INLET_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "inlet/inlet.h"

enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2, CLI_HELP_SHOWN = -1 };

/* Prints "inlet: <message>" to stderr; returns CLI_FAIL. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "inlet: <message>" and the usage line to stderr; returns CLI_USAGE. */
int cli_usage_error(const char *usage, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Prints "inlet: <err's message>"; returns CLI_FAIL. */
int cli_fail(const inlet_error *err);

/* One long option. Exactly one of value / flag is set. */
typedef struct cli_opt {
  const char *name;   /* without the leading "--" */
  const char **value; /* option takes a value: --name V or --name=V */
  bool *flag;         /* boolean switch */
} cli_opt;

/*
 * Parses argv[1..argc) (argv[0] is the subcommand name) into options and up
 * to @p max_pos positional arguments. "-h"/"--help" prints @p usage to
 * stdout and returns CLI_HELP_SHOWN. Returns CLI_OK or CLI_USAGE (message
 * printed).
 */
int cli_parse(int argc, char **argv, const cli_opt *opts, int n_opts, const char **pos,
              int max_pos, int *n_pos, const char *usage);

/* Parses a non-negative integer with an optional K/M/G (binary) suffix. */
bool cli_parse_size(const char *s, int64_t *out);

/* Subcommands: argv[0] is the subcommand's own name. */
int cmd_parquet_schema(int argc, char **argv);
int cmd_parquet_meta(int argc, char **argv);
int cmd_parquet_cat(int argc, char **argv);
int cmd_parquet_convert(int argc, char **argv);
int cmd_demo(int argc, char **argv);

#endif /* INLET_CLI_H */
