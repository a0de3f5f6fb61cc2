/*
 * The CLI's standard-error lines (log.h). One line per call, written with
 * one fputs of the whole line so that lines of the ingest thread and the
 * metrics thread never interleave mid-line.
 */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static cli_log_format format = CLI_LOG_TEXT;
static const char *command, *table;

bool cli_log_set_format(const char *name) {
  if (strcmp(name, "text") == 0)
    format = CLI_LOG_TEXT;
  else if (strcmp(name, "json") == 0)
    format = CLI_LOG_JSON;
  else
    return false;
  return true;
}

cli_log_format cli_log_get_format(void) {
  return format;
}

void cli_log_set_command(const char *c) {
  command = c;
}

void cli_log_set_table(const char *t) {
  table = t;
}

void cli_json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c; c++) {
    if (*c == '"' || *c == '\\')
      fprintf(f, "\\%c", *c);
    else if (*c == '\n')
      fputs("\\n", f);
    else if (*c == '\t')
      fputs("\\t", f);
    else if (*c < 0x20 || *c == 0x7f)
      fprintf(f, "\\u%04x", *c);
    else
      fputc(*c, f);
  }
  fputc('"', f);
}

static void timestamp(char *out, size_t cap) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  struct tm tm;
  gmtime_r(&ts.tv_sec, &tm);
  size_t n = strftime(out, cap, "%Y-%m-%dT%H:%M:%S", &tm);
  snprintf(out + n, cap - n, ".%03ldZ", ts.tv_nsec / 1000000);
}

void cli_log(const char *level, const char *event, const char *fields, const char *fmt, ...) {
  char msg[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  char *line = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&line, &len);
  if (!f) return;
  if (format == CLI_LOG_JSON) {
    char ts[40];
    timestamp(ts, sizeof ts);
    fprintf(f, "{\"ts\":\"%s\",\"level\":", ts);
    cli_json_string(f, level);
    fputs(",\"event\":", f);
    cli_json_string(f, event);
    fputs(",\"command\":", f);
    if (command)
      cli_json_string(f, command);
    else
      fputs("null", f);
    fputs(",\"table\":", f);
    if (table)
      cli_json_string(f, table);
    else
      fputs("null", f);
    fputs(",\"message\":", f);
    cli_json_string(f, msg);
    if (fields && *fields) fprintf(f, ",%s", fields);
    fputs("}\n", f);
  } else {
    fprintf(f, "inlet: %s%s\n", strcmp(level, "warning") == 0 ? "warning: " : "", msg);
  }
  if (fclose(f) == 0) {
    fputs(line, stderr);
    fflush(stderr);
  }
  free(line);
}
