/*
 * inlet command-line tool: dispatches through the command table (cli.h)
 * and derives from the same table the overview (`inlet --help`), each
 * command's help (`inlet CMD --help`, `inlet help CMD`) and the inlet(1)
 * man page (`inlet help --man`, written to man/inlet.1 at build time), so
 * none of them can drift from what the commands accept. Uses only the
 * public headers in include/inlet/.
 *
 * Exit codes: cli.h's CLI_* list (0 success, 2 usage, 3-7 by the kind of
 * failure, 1 anything else), printed by exit_codes() in --help and the man
 * page.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "config.h"
#include "log.h"

const cli_command *const cli_commands[] = {
    &cli_cmd_parquet_schema, &cli_cmd_parquet_meta, &cli_cmd_parquet_cat, &cli_cmd_parquet_convert,
    &cli_cmd_create,         &cli_cmd_append,       &cli_cmd_scan,        &cli_cmd_changes,
    &cli_cmd_history,        &cli_cmd_describe,     &cli_cmd_report,      &cli_cmd_delete,
    &cli_cmd_checkpoint,     &cli_cmd_compact,      &cli_cmd_vacuum,      &cli_cmd_restore,
    &cli_cmd_maintain,       &cli_cmd_alter,        &cli_cmd_ingest,      &cli_cmd_demo,
};
const int cli_n_commands = (int)(sizeof cli_commands / sizeof cli_commands[0]);

/* For errors outside any command: their hint is "see 'inlet --help'". */
#define TOP_USAGE "usage: inlet <command>"

/* The exit codes, one per line, for --help and the man page. */
static const char *const exit_codes[] = {
    "0  success",
    "1  any other failure (message \"inlet: ...\" on standard error)",
    "2  usage error (the wrong argument is named)",
    "3  not found: a table, version, file or column does not exist",
    "4  conflict: concurrent commits won every retry, or the table moved past --expected-version",
    "5  corrupt or invalid: a table, file or input violates its format",
    "6  unsupported: the table or file uses a feature inlet does not implement",
    "7  I/O or network failure",
    "8  rejected: more records rejected than --max-rejected allows (ingest, append)",
};
#define N_EXIT_CODES (int)(sizeof exit_codes / sizeof exit_codes[0])

/* Column of the summaries in the overview. */
#define SUMMARY_COLUMN 34

/* Where options come from besides the command line (config.h). */
static const char config_help[] =
    "  Every option of every command can also come from the environment, as\n"
    "  INLET_<COMMAND>_<OPTION> (upper case, '-' and spaces as '_': INLET_INGEST_MAX_ROWS,\n"
    "  INLET_VACUUM_RETAIN, INLET_PARQUET_CAT_LIMIT), or from the --config FILE, an INI\n"
    "  file with a [COMMAND] section per command ([ingest], [parquet-cat]) and a [global]\n"
    "  section for options of every command that has them (log-format, json, ...).\n"
    "  The command line wins over the environment, the environment over the file.\n"
    "  Flags take true/false, 1/0 or yes/no; a repeatable option repeats its key in the\n"
    "  file and takes one value per line in the environment. Unknown keys in the file\n"
    "  are usage errors naming FILE:LINE; INLET_<COMMAND>_* variables that name no option\n"
    "  are ignored with a warning. Object-store secrets (keys, SAS tokens, connection\n"
    "  strings) come from the environment (AWS_*, AZURE_STORAGE_*) or the file's\n"
    "  [storage] section (aws-access-key-id, aws-secret-access-key, azure-key, ...),\n"
    "  never from the command line, and are never printed. docs/CONFIG.md has the details.\n";

static void overview(FILE *f) {
  fputs("usage: inlet <command> [options]\n\nCommands:\n", f);
  for (int i = 0; i < cli_n_commands; i++) {
    const cli_command *c = cli_commands[i];
    int n = fprintf(f, "  %s%s%s", c->name, *c->synopsis ? " " : "", c->synopsis);
    const char *nl = strrchr(c->synopsis, '\n');
    if (nl) n = (int)strlen(nl + 1);
    if (n + 1 < SUMMARY_COLUMN)
      fprintf(f, "%*s%s\n", SUMMARY_COLUMN - n, "", c->summary);
    else
      fprintf(f, "\n%*s%s\n", SUMMARY_COLUMN, "", c->summary);
  }
  fputs("\nOptions:\n"
        "  -h, --help                      show help (also after a command)\n"
        "  help COMMAND                    a command's help; help --man prints the man page\n"
        "  --version                       print the version\n"
        "  --log-format text|json          errors, warnings and service events on standard\n"
        "                                  error as text or JSON lines (any command; also\n"
        "                                  INLET_LOG_FORMAT)\n"
        "  --config FILE                   read options from an INI file (any command; also\n"
        "                                  INLET_CONFIG); see Configuration below\n",
        f);
  fputs("\nConfiguration:\n", f);
  fputs(config_help, f);
  fputs("\nExit codes:\n", f);
  for (int i = 0; i < N_EXIT_CODES; i++)
    fprintf(f, "  %s\n", exit_codes[i]);
}

/* The group of commands under a first word ("parquet"), or NULL. */
static bool is_group(const char *word) {
  size_t n = strlen(word);
  for (int i = 0; i < cli_n_commands; i++)
    if (strncmp(cli_commands[i]->name, word, n) == 0 && cli_commands[i]->name[n] == ' ')
      return true;
  return false;
}

/* The command named by argv[0] (and argv[1] for a group), or NULL;
 * *words is how many of argv name it. */
static const cli_command *find_command(int argc, char **argv, int *words) {
  for (int i = 0; i < cli_n_commands; i++) {
    const char *name = cli_commands[i]->name, *sp = strchr(name, ' ');
    if (!sp) {
      if (strcmp(name, argv[0]) == 0) {
        *words = 1;
        return cli_commands[i];
      }
    } else if (argc > 1 && strncmp(name, argv[0], (size_t)(sp - name)) == 0 &&
               argv[0][sp - name] == '\0' && strcmp(sp + 1, argv[1]) == 0) {
      *words = 2;
      return cli_commands[i];
    }
  }
  return NULL;
}

/* The help of a group ("inlet parquet --help"): its commands' help texts. */
static void group_help(FILE *f, const char *group) {
  size_t n = strlen(group);
  bool first = true;
  for (int i = 0; i < cli_n_commands; i++) {
    const cli_command *c = cli_commands[i];
    if (strncmp(c->name, group, n) != 0 || c->name[n] != ' ') continue;
    if (!first) fputc('\n', f);
    cli_print_help(c, f);
    first = false;
  }
}

/* A name for a hint: the closest command (or subcommand of @p group). */
static const char *nearest_command(const char *word, const char *group) {
  static char first_words[64][32];
  const char *names[65];
  int n = 0;
  size_t gl = group ? strlen(group) : 0;
  for (int i = 0; i < cli_n_commands && n < 64; i++) {
    const char *name = cli_commands[i]->name, *sp = strchr(name, ' ');
    if (group) {
      if (strncmp(name, group, gl) == 0 && name[gl] == ' ') names[n++] = name + gl + 1;
      continue;
    }
    size_t len = sp ? (size_t)(sp - name) : strlen(name);
    if (len >= sizeof first_words[0]) continue;
    bool seen = false;
    for (int k = 0; k < n; k++)
      seen |= strlen(names[k]) == len && !strncmp(names[k], name, len);
    if (seen) continue;
    memcpy(first_words[n], name, len);
    first_words[n][len] = '\0';
    names[n] = first_words[n];
    n++;
  }
  if (!group) names[n++] = "help";
  return cli_nearest(word, names, n);
}

static int unknown_command(const char *word, const char *group) {
  const char *near = nearest_command(word, group);
  char what[512], hint[512] = "";
  if (group)
    snprintf(what, sizeof what, "%s: unknown subcommand '%s'", group, word);
  else
    snprintf(what, sizeof what, "unknown command '%s'", word);
  if (near)
    snprintf(hint, sizeof hint, "did you mean '%s%s%s'?", group ? group : "", group ? " " : "",
             near);
  char usage[256];
  snprintf(usage, sizeof usage, "usage: inlet %s%s<command>", group ? group : "", group ? " " : "");
  return near ? cli_usage_hint(usage, hint, "%s", what) : cli_usage_error(usage, "%s", what);
}

/* roff body text: backslashes escaped, lines that would start a request
 * (. or ') protected with \&. */
static void roff_text(FILE *f, const char *text) {
  bool bol = true;
  for (const char *p = text; *p; p++) {
    if (bol && (*p == '.' || *p == '\'')) fputs("\\&", f);
    if (*p == '\\')
      fputs("\\e", f);
    else if (*p == '-')
      fputs("\\-", f);
    else
      fputc(*p, f);
    bol = *p == '\n';
  }
  if (!bol) fputc('\n', f);
}

static int man_page(void) {
  FILE *f = stdout;
  fprintf(f, ".TH INLET 1 \"\" \"inlet %s\" \"User Commands\"\n", inlet_version());
  fputs(".SH NAME\ninlet \\- keep Delta Lake tables fed by event streams, and query them\n", f);
  fputs(".SH SYNOPSIS\n.B inlet\n.I command\n[\n.I options\n]\n", f);
  fputs(
      ".SH DESCRIPTION\n"
      "inlet turns a live event stream into a Delta Lake table (Parquet data files plus a\n"
      "transaction log in\n.IR _delta_log/ )\n"
      "that Spark, DuckDB, Trino and delta\\-rs read, and reads what they write. Every commit is\n"
      "atomic; streams are ingested exactly once; tables can be compacted, vacuumed, described,\n"
      "queried with predicates and read as of an earlier version or time.\n",
      f);
  fputs(".SH OVERVIEW\n.nf\n", f);
  char *text = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  if (!m) return cli_error("out of memory");
  overview(m);
  fclose(m);
  roff_text(f, text);
  free(text);
  fputs(".fi\n.SH COMMANDS\n", f);
  for (int i = 0; i < cli_n_commands; i++) {
    fprintf(f, ".SS %s\n.nf\n", cli_commands[i]->name);
    char *h = NULL;
    size_t hl = 0;
    FILE *hm = open_memstream(&h, &hl);
    if (!hm) return cli_error("out of memory");
    cli_print_help(cli_commands[i], hm);
    fclose(hm);
    roff_text(f, h);
    free(h);
    fputs(".fi\n", f);
  }
  fputs(".SH CONFIGURATION\n", f);
  roff_text(f, config_help);
  fputs(".SH EXIT STATUS\n", f);
  for (int i = 0; i < N_EXIT_CODES; i++) {
    fputs(".TP\n", f);
    roff_text(f, exit_codes[i]);
  }
  fputs(".SH FILES\n.TP\n.I TABLE/_delta_log/\nthe Delta transaction log: one JSON commit per "
        "version, Parquet checkpoints\n.TP\n.I TABLE/_errors/\ndead\\-lettered records of "
        ".B inlet ingest\n",
        f);
  fputs(".SH SEE ALSO\nThe README of the inlet sources; the Delta Lake protocol (PROTOCOL.md of "
        "delta\\-io/delta); the Parquet format (apache/parquet\\-format).\n",
        f);
  return CLI_OK;
}

/* `inlet help [COMMAND...]`, `inlet help --man`. */
static int help(int argc, char **argv) {
  if (argc < 1) {
    overview(stdout);
    return CLI_OK;
  }
  if (strcmp(argv[0], "--man") == 0) return man_page();
  int words = 0;
  const cli_command *c = find_command(argc, argv, &words);
  if (c && words < argc)
    return cli_usage_error(c->help, "help: unexpected argument '%s'", argv[words]);
  if (c) {
    cli_print_help(c, stdout);
    return CLI_OK;
  }
  if (argc == 1 && is_group(argv[0])) {
    group_help(stdout, argv[0]);
    return CLI_OK;
  }
  if (is_group(argv[0])) return unknown_command(argc > 1 ? argv[1] : "", argv[0]);
  const char *near = nearest_command(argv[0], NULL);
  char hint[256];
  snprintf(hint, sizeof hint, "did you mean '%s'?", near ? near : "");
  return near ? cli_usage_hint(TOP_USAGE, hint, "help: unknown command '%s'", argv[0])
              : cli_usage_error(TOP_USAGE, "help: unknown command '%s'", argv[0]);
}

/* The global options, taken out of argv before the command parses its own. */
static const char *log_format_arg, *config_arg;

/* --log-format FORMAT and --config FILE (or =VALUE) anywhere on the line,
 * for every command. */
static int take_global_options(int *argc, char **argv) {
  int out = 1;
  for (int i = 1; i < *argc; i++) {
    if (strcmp(argv[i], "--") == 0) {
      while (i < *argc)
        argv[out++] = argv[i++];
      break;
    }
    static const char *const names[] = {"--log-format", "--config"};
    const char **dest[] = {&log_format_arg, &config_arg};
    bool taken = false;
    for (int k = 0; k < 2 && !taken; k++) {
      size_t n = strlen(names[k]);
      if (strcmp(argv[i], names[k]) == 0) {
        if (i + 1 >= *argc)
          return cli_usage_error(TOP_USAGE, "%s needs %s", names[k],
                                 k == 0 ? "text or json" : "a file");
        *dest[k] = argv[++i];
        taken = true;
      } else if (strncmp(argv[i], names[k], n) == 0 && argv[i][n] == '=') {
        *dest[k] = argv[i] + n + 1;
        taken = true;
      }
    }
    if (!taken) argv[out++] = argv[i];
  }
  *argc = out;
  argv[out] = NULL;
  if (log_format_arg && !cli_log_set_format(log_format_arg))
    return cli_usage_error(TOP_USAGE, "--log-format: '%s' is neither text nor json",
                           log_format_arg);
  if (log_format_arg) return CLI_OK;
  const char *env = getenv("INLET_LOG_FORMAT");
  if (env && *env && !cli_log_set_format(env))
    return cli_usage_error(TOP_USAGE, "INLET_LOG_FORMAT: '%s' is neither text nor json", env);
  return CLI_OK;
}

/* Once the command is known: its own INLET_<COMMAND>_LOG_FORMAT, the
 * --config file (or INLET_CONFIG), and the file's log-format when neither
 * the command line nor the environment chose one. */
static int configure(const cli_command *c) {
  char name[160];
  cli_env_name(name, sizeof name, c->name, "log-format");
  const char *env = getenv(name), *general = getenv("INLET_LOG_FORMAT");
  if (!log_format_arg && env && *env && !cli_log_set_format(env))
    return cli_usage_error(c->help, "%s: '%s' is neither text nor json", name, env);
  bool format_chosen = log_format_arg || (env && *env) || (general && *general);
  const char *path = config_arg ? config_arg : getenv("INLET_CONFIG");
  if (!path || !*path) return CLI_OK;
  int rc = cli_config_load(path);
  if (rc != CLI_OK || format_chosen) return rc;
  const cli_config_entry *e[1];
  if (cli_config_values(c->name, "log-format", e, 1) >= 1 && !cli_log_set_format(e[0]->value))
    return cli_usage_error(c->help, "%s:%d: log-format: '%s' is neither text nor json",
                           cli_config_path(), e[0]->line, e[0]->value);
  return CLI_OK;
}

static int run(int argc, char **argv) {
  const char *cmd = argv[0];
  if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
    printf("inlet %s\n", inlet_version());
    return CLI_OK;
  }
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
    overview(stdout);
    return CLI_OK;
  }
  if (strcmp(cmd, "help") == 0) return help(argc - 1, argv + 1);
  int words = 0;
  const cli_command *c = find_command(argc, argv, &words);
  if (!c) {
    if (!is_group(cmd)) return unknown_command(cmd, NULL);
    if (argc < 2) {
      char usage[128];
      snprintf(usage, sizeof usage, "usage: inlet %s <command>", cmd);
      return cli_usage_error(usage, "%s: missing subcommand", cmd);
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
      group_help(stdout, cmd);
      return CLI_OK;
    }
    return unknown_command(argv[1], cmd);
  }
  /* Commands that write data file after data file (malloc_tuning.c). */
  if (c == &cli_cmd_ingest || c == &cli_cmd_append) cli_tune_malloc();
  cli_log_set_command(c->name);
  int rc = configure(c);
  if (rc != CLI_OK) return rc;
  cli_args a;
  rc = cli_parse(c, argc - (words - 1), argv + (words - 1), &a);
  if (rc == CLI_OK) rc = c->run(&a);
  cli_args_reset(&a);
  return rc;
}

int main(int argc, char **argv) {
  int rc = take_global_options(&argc, argv);
  if (rc != CLI_OK) {
    /* reported */
  } else if (argc < 2) {
    rc = cli_usage_error(TOP_USAGE, "missing command");
  } else {
    rc = run(argc - 1, argv + 1);
  }
  cli_config_free();
  if (rc == CLI_HELP_SHOWN) rc = CLI_OK;
  if (fflush(stdout) != 0 && rc == CLI_OK) rc = cli_error("cannot write to standard output");
  return rc;
}
