/*
 * Shared plumbing of the inlet command-line tool: the command table every
 * subcommand is an entry of (name, handler, synopsis, summary, help text,
 * typed options), the one option parser that reads argv against it, and
 * error reporting with the tool's exit-code convention (0 success,
 * 1 failure, 2 usage error). The table drives dispatch, --help,
 * `inlet help CMD`, the overview and the man page (main.c). The CLI
 * uses only the public headers in include/inlet/.
 */
#ifndef INLET_CLI_H
#define INLET_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "inlet/inlet.h"

/* Exit codes (documented in `inlet --help` and the man page): scripts tell
 * a missing table from a conflict from a corrupt table without reading the
 * message. */
enum {
  CLI_OK = 0,
  CLI_FAIL = 1,        /* anything else */
  CLI_USAGE = 2,       /* bad command line */
  CLI_NOT_FOUND = 3,   /* a table, version, file or column does not exist */
  CLI_CONFLICT = 4,    /* concurrent commits won every retry */
  CLI_CORRUPT = 5,     /* a table or file violates its format, or input is invalid */
  CLI_UNSUPPORTED = 6, /* the table or file uses a feature inlet does not implement */
  CLI_IO = 7,          /* operating-system I/O or network failure */
  CLI_REJECTED = 8,    /* rejected records above --max-rejected (ingest, append) */
  CLI_HELP_SHOWN = -1
};

/* --max-rejected N|P%: a count (*pct = -1) or a percentage 0..100 (*n = -1).
 * Returns 0, or -1 when @p s is neither. */
int cli_parse_max_rejected(const char *s, int64_t *n, double *pct);

/* The exit code for an INLET_E* code (CLI_FAIL for 0 and the rest). */
int cli_exit_code(int inlet_code);

/* Sets how the process's malloc keeps large blocks (malloc_tuning.c):
 * called by main before running ingest or append. */
void cli_tune_malloc(void);

/* What an option's value is; the parser checks it and reports a bad one
 * as a usage error naming the option. */
typedef enum cli_kind {
  CLI_FLAG,   /* a switch, no value */
  CLI_STRING, /* any text (the last one given counts) */
  CLI_INT,    /* a decimal integer within [min, max] */
  CLI_SIZE,   /* a byte count within [min, max]: digits with an optional K/M/G suffix
                 (binary; KB/KiB forms too) */
  CLI_LIST    /* repeatable text: every occurrence counts, in order */
} cli_kind;

typedef struct cli_opt {
  const char *name; /* without the leading "--" */
  cli_kind kind;
  int64_t min, max; /* CLI_INT, CLI_SIZE */
  unsigned flags;   /* CLI_MERGE */
} cli_opt;

/* A CLI_LIST whose values from the file, the environment and the command
 * line all count, in that order (KEY=VALUE settings where a later one wins),
 * instead of the command line's replacing the others'. */
#define CLI_MERGE 1u

#define CLI_OPT_FLAG(n)                                                                            \
  { n, CLI_FLAG, 0, 0, 0 }
#define CLI_OPT_STRING(n)                                                                          \
  { n, CLI_STRING, 0, 0, 0 }
#define CLI_OPT_LIST(n)                                                                            \
  { n, CLI_LIST, 0, 0, 0 }
#define CLI_OPT_SETTINGS(n)                                                                        \
  { n, CLI_LIST, 0, 0, CLI_MERGE }
#define CLI_OPT_INT(n, lo, hi)                                                                     \
  { n, CLI_INT, lo, hi, 0 }
#define CLI_OPT_SIZE(n, lo, hi)                                                                    \
  { n, CLI_SIZE, lo, hi, 0 }

typedef struct cli_args cli_args;

typedef struct cli_command {
  const char *name; /* "scan", "parquet cat" */
  int (*run)(const cli_args *a);
  const char *synopsis; /* arguments after the name, for the overview */
  const char *summary;  /* one line, for the overview */
  const char *help;     /* the --help text, starting "usage: inlet NAME ..." */
  const cli_opt *opts;
  int n_opts;
  int max_pos; /* positional arguments accepted */
} cli_command;

/* Every command, in the order of the overview and the man page. */
extern const cli_command *const cli_commands[];
extern const int cli_n_commands;

/* The command entries (one per cmd_*.c). */
extern const cli_command cli_cmd_delete, cli_cmd_changes, cli_cmd_alter;
extern const cli_command cli_cmd_create, cli_cmd_append, cli_cmd_ingest, cli_cmd_scan,
    cli_cmd_history, cli_cmd_describe, cli_cmd_report, cli_cmd_checkpoint, cli_cmd_compact,
    cli_cmd_vacuum, cli_cmd_restore, cli_cmd_maintain, cli_cmd_demo, cli_cmd_parquet_schema,
    cli_cmd_parquet_meta, cli_cmd_parquet_cat, cli_cmd_parquet_convert;

/* Parsed arguments of one command run. Options are read by name; asking
 * for an option the command does not declare (or as another kind) is a
 * programming error and aborts. */
struct cli_args {
  const cli_command *cmd;
  const char **pos; /* positional arguments */
  int n_pos;
  struct cli_value *values; /* one per cmd->opts */
};

bool cli_flag(const cli_args *a, const char *name);
/* The value, or NULL when the option was not given. */
const char *cli_string(const cli_args *a, const char *name);
/* Sets *out and returns true when the option was given (CLI_INT, CLI_SIZE). */
bool cli_int(const cli_args *a, const char *name, int64_t *out);
/* Every value of a CLI_LIST option, in order (*n of them; NULL when none). */
const char *const *cli_list(const cli_args *a, const char *name, int *n);
/* Splits a --columns list "a,b, c" into trimmed names; *names owns one
 * buffer at [0] (free(names[0]) when n > 0, then free(names)). 0 or -1
 * (out of memory). */
int cli_split_columns(char ***names, int32_t *n, const char *list);

/*
 * Parses argv[1..argc) (argv[0] is the command's name) against cmd's
 * options into @p out (free with cli_args_reset). "-h"/"--help" prints the
 * help and returns CLI_HELP_SHOWN; "--" ends the options. Every option not
 * on the command line is then taken from the environment
 * (INLET_<COMMAND>_<OPTION>), else from the --config file (config.h).
 * Returns CLI_OK or CLI_USAGE (message and hint printed).
 */
int cli_parse(const cli_command *cmd, int argc, char **argv, cli_args *out);
void cli_args_reset(cli_args *a);

/* A command's help: its text plus where else its options come from. */
void cli_print_help(const cli_command *cmd, FILE *f);

/* Prints "inlet: <message>" to stderr; returns CLI_FAIL. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "inlet: <message>" and where to look ("see 'inlet scan --help'",
 * from the first line of @p usage when given) to stderr; returns CLI_USAGE.
 * The message names the one argument that is wrong. */
int cli_usage_error(const char *usage, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same with a hint after the message ("did you mean ..."). */
int cli_usage_hint(const char *usage, const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Prints "inlet: <err's message>"; returns cli_exit_code(err->code). */
int cli_fail(const inlet_error *err);
/* Prints "inlet: <fmt...>" (which should include err's message); returns
 * cli_exit_code(err->code). */
int cli_fail_fmt(const inlet_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The closest of @p n names to @p word (edit distance at most a third of
 * its length, at least 1; ties to the first), or NULL. */
const char *cli_nearest(const char *word, const char *const *names, int n);

/* Opens the table at @p location (a path or a URL: s3://, az://, abfss://,
 * file://; settings from the environment), in single-writer mode when the
 * command declares --single-writer and it was given. */
int cli_table_open(const cli_args *a, const char *location, inlet_table **out, inlet_error *err);
/* The same options for inlet_table_create_with. */
inlet_table_open_options cli_table_options(const cli_args *a);
/* The help line of --single-writer, shared by every writing command. */
#define CLI_SINGLE_WRITER_HELP                                                                     \
  "  --single-writer     promise that only this process writes TABLE: allows committing to an\n"   \
  "                      object store that ignores If-None-Match (found by a probe; refused\n"     \
  "                      otherwise)\n"
/* The help line about locations. */
#define CLI_TABLE_URL_HELP                                                                         \
  "  TABLE is a directory or a URL: s3://BUCKET/PREFIX, az://CONTAINER/PREFIX,\n"                  \
  "  abfss://CONTAINER@ACCOUNT.dfs.core.windows.net/PREFIX, file:///PATH\n"

/* A point in time for --as-of: milliseconds since the epoch, or an ISO-8601
 * timestamp (inlet_timestamp_parse: UTC unless a zone is given). */
int cli_parse_as_of(const char *s, int64_t *ms, inlet_error *err);
/* The help lines of --as-of. */
#define CLI_AS_OF_HELP                                                                             \
  "  --as-of TS       the newest version committed at or before TS: milliseconds since\n"          \
  "                   the epoch, or YYYY-MM-DD[THH:MM[:SS[.fff]]][Z] (UTC)\n"

/* --threads N of the commands that write data files: the value given, else
 * the online CPUs (sysconf), so the tool uses every core unless told not to
 * (the library itself starts no thread unless asked). */
int32_t cli_threads(const cli_args *a);
#define CLI_OPT_THREADS CLI_OPT_INT("threads", 1, 1024)
#define CLI_THREADS_HELP                                                                           \
  "  --threads N         threads encoding and compressing data files (default: the online\n"       \
  "                      CPUs; 1: one thread). Files are the same bytes whatever N\n"

/* Parses a non-negative byte count with an optional K/M/G (binary) suffix. */
bool cli_parse_size(const char *s, int64_t *out);
/* A byte count for people: "812 B", "4.08 KiB", "1.50 GiB". Returns @p buf. */
const char *cli_format_bytes(char *buf, size_t cap, int64_t bytes);
/* Milliseconds since the epoch as ISO 8601 UTC, "2024-05-01T12:00:00.123Z".
 * Returns @p buf. */
const char *cli_format_time(char *buf, size_t cap, int64_t ms);

#endif /* INLET_CLI_H */
