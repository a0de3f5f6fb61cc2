/*
 * `inlet help [COMMAND...]` prints a command's --help; `inlet help --man`
 * prints the inlet(1) man page (roff, man(7) macros) assembled from the
 * top-level usage text and every command's --help output, which it gets by
 * running this same executable (/proc/self/exe) with --help. CMake writes
 * man/inlet.1 this way at build time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmd_help.h"
#include "inlet/version.h"

static const char *const commands[] = {
    "create",   "append",         "ingest",       "scan",        "history",
    "describe", "checkpoint",     "compact",      "vacuum",      "maintain",
    "demo",     "parquet schema", "parquet meta", "parquet cat", "parquet convert"};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

/* Writes @p text as roff body text: backslashes escaped, lines that would
 * start a request (. or ') protected with \&. */
static void roff_text(const char *text) {
  bool bol = true;
  for (const char *p = text; *p; p++) {
    if (bol && (*p == '.' || *p == '\'')) fputs("\\&", stdout);
    if (*p == '\\')
      fputs("\\e", stdout);
    else if (*p == '-')
      fputs("\\-", stdout);
    else
      putchar(*p);
    bol = *p == '\n';
  }
  if (!bol) putchar('\n');
}

/* The --help output of `inlet <cmd>`, malloc'd, or NULL. */
static char *command_help(const char *self, const char *cmd) {
  char line[4200];
  snprintf(line, sizeof line, "'%s' %s --help 2>/dev/null", self, cmd);
  FILE *p = popen(line, "r");
  if (!p) return NULL;
  size_t cap = 8192, len = 0, n;
  char *buf = malloc(cap);
  while (buf && (n = fread(buf + len, 1, cap - len - 1, p)) > 0) {
    len += n;
    if (len + 1 == cap) {
      char *b = realloc(buf, cap * 2);
      if (!b) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = b;
      cap *= 2;
    }
  }
  if (pclose(p) != 0 || !buf) {
    free(buf);
    return NULL;
  }
  buf[len] = 0;
  return buf;
}

static const char *self_path(char *buf, size_t cap, const char *argv0) {
  ssize_t n = readlink("/proc/self/exe", buf, cap - 1);
  if (n > 0) {
    buf[n] = 0;
    return buf;
  }
  return argv0;
}

static int man_page(const char *overview, const char *self) {
  printf(".TH INLET 1 \"\" \"inlet %s\" \"User Commands\"\n", INLET_VERSION_STRING);
  puts(".SH NAME\ninlet \\- keep Delta Lake tables fed by event streams, and query them");
  puts(".SH SYNOPSIS\n.B inlet\n.I command\n[\n.I options\n]");
  puts(".SH DESCRIPTION\n"
       "inlet turns a live event stream into a Delta Lake table (Parquet data files plus a\n"
       "transaction log in\n.IR _delta_log/ )\n"
       "that Spark, DuckDB, Trino and delta\\-rs read, and reads what they write. Every commit is\n"
       "atomic; streams are ingested exactly once; tables can be compacted, vacuumed, described,\n"
       "queried with predicates and read as of an earlier version or time.");
  puts(".SH OVERVIEW\n.nf");
  roff_text(overview);
  puts(".fi\n.SH COMMANDS");
  int rc = CLI_OK;
  for (size_t i = 0; i < N_COMMANDS; i++) {
    char *h = command_help(self, commands[i]);
    if (!h) {
      fprintf(stderr, "inlet: help --man: cannot get the help of '%s'\n", commands[i]);
      rc = CLI_FAIL;
      continue;
    }
    printf(".SS %s\n.nf\n", commands[i]);
    roff_text(h);
    puts(".fi");
    free(h);
  }
  puts(".SH EXIT STATUS\n0 on success, 1 on failure (a message starting with\n.B inlet:\n"
       "on standard error), 2 on a usage error.");
  puts(".SH FILES\n.TP\n.I TABLE/_delta_log/\nthe Delta transaction log: one JSON commit per "
       "version, Parquet checkpoints\n.TP\n.I TABLE/_errors/\ndead\\-lettered records of "
       ".B inlet ingest");
  puts(".SH SEE ALSO\nThe README of the inlet sources; the Delta Lake protocol (PROTOCOL.md of "
       "delta\\-io/delta); the Parquet format (apache/parquet\\-format).");
  return rc;
}

int cmd_help(int argc, char **argv, const char *overview) {
  char buf[4096];
  const char *self = self_path(buf, sizeof buf, "inlet");
  if (argc >= 2 && strcmp(argv[1], "--man") == 0) return man_page(overview, self);
  if (argc < 2) {
    fputs(overview, stdout);
    return CLI_OK;
  }
  char cmd[512] = "";
  for (int i = 1; i < argc && i < 3; i++) {
    if (strlen(cmd) + strlen(argv[i]) + 2 > sizeof cmd || strchr(argv[i], '\'')) break;
    if (i > 1) strcat(cmd, " ");
    strcat(cmd, argv[i]);
  }
  for (size_t i = 0; i < N_COMMANDS; i++) {
    if (strcmp(commands[i], cmd) != 0) continue;
    char *h = command_help(self, cmd);
    if (!h) return cli_error("help: cannot get the help of '%s'", cmd);
    fputs(h, stdout);
    free(h);
    return CLI_OK;
  }
  return cli_usage_error(overview, "help: unknown command '%s'", cmd);
}
