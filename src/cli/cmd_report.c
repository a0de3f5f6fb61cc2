/*
 * `inlet report TABLE [--output FILE.html [--force]]`: the table's health
 * as one self-contained HTML page (report.c), from the log alone.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "cli.h"
#include "report.h"

static const char usage[] =
    "usage: inlet report TABLE [--output FILE.html [--force]]\n"
    "Writes the table's health as one self-contained HTML page (inline CSS and SVG, no script,\n"
    "no network), read from the log alone: version timeline, commits over time with rows and\n"
    "bytes per commit, file-size histogram with the small-file threshold, files and bytes per\n"
    "partition, compactions and what they rewrote, late-event share per ingest batch and the\n"
    "watermark, schema and properties, the time-travel window after a vacuum. Each chart has a\n"
    "table of its numbers; light and dark mode, printable.\n"
    "  --output FILE  write the page to FILE (default: standard output)\n"
    "  --force        replace FILE when it exists\n" CLI_TABLE_URL_HELP;

static const cli_opt opts[] = {CLI_OPT_STRING("output"), CLI_OPT_FLAG("force")};

static int64_t now_ms(void) {
  struct timeval tv;
  gettimeofday(&tv, NULL);
  return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

static int cmd_report(const cli_args *a) {
  if (a->n_pos != 1) return cli_usage_error(usage, "report: missing TABLE");
  const char *output = cli_string(a, "output");
  bool force = cli_flag(a, "force");
  if (force && !output) return cli_usage_error(usage, "report: --force needs --output");
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  if (cli_table_open(a, a->pos[0], &t, &err) < 0) return cli_fail(&err);
  FILE *f = stdout;
  char *tmp = NULL;
  if (output) {
    /* Written beside FILE and renamed over it at the end, so a failed
     * report never leaves half a page (nor replaces a good one). */
    size_t n = strlen(output) + 16;
    tmp = malloc(n);
    if (!tmp) {
      inlet_table_free(t);
      return cli_error("report: out of memory");
    }
    snprintf(tmp, n, "%s.tmp-report", output);
    if (!force) {
      FILE *e = fopen(output, "r");
      if (e) {
        fclose(e);
        free(tmp);
        inlet_table_free(t);
        return cli_usage_error(usage, "report: %s exists (--force replaces it)", output);
      }
    }
    f = fopen(tmp, "w");
    if (!f) {
      int e = errno;
      free(tmp);
      inlet_table_free(t);
      fprintf(stderr, "inlet: report: cannot create %s: %s\n", output, strerror(e));
      return CLI_IO;
    }
  }
  int rc = report_write(f, t, a->pos[0], now_ms(), &err);
  inlet_table_free(t);
  if (output) {
    bool bad = fclose(f) != 0;
    if (rc == 0 && bad) {
      remove(tmp);
      free(tmp);
      fprintf(stderr, "inlet: report: cannot write %s: %s\n", output, strerror(errno));
      return CLI_IO;
    }
    if (rc == 0 && rename(tmp, output) != 0) {
      int e = errno;
      remove(tmp);
      free(tmp);
      fprintf(stderr, "inlet: report: cannot write %s: %s\n", output, strerror(e));
      return CLI_IO;
    }
    if (rc < 0) remove(tmp);
    free(tmp);
  } else if (fflush(stdout) != 0 && rc == 0) {
    return cli_error("report: cannot write standard output");
  }
  return rc < 0 ? cli_fail(&err) : CLI_OK;
}

const cli_command cli_cmd_report = {"report",
                                    cmd_report,
                                    "TABLE [--output FILE.html]",
                                    "the table's health as one self-contained HTML page",
                                    usage,
                                    opts,
                                    (int)(sizeof opts / sizeof opts[0]),
                                    1};
