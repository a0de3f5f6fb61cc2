/*
 * The output side shared by `scan` and `changes` (rows_out.h).
 */
#include "rows_out.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "log.h"
#include "progress.h"

/* Rows a terminal shows without --all or --limit: a screenful or two. */
#define CLI_TERMINAL_ROWS 50

/* The format an --output name asks for by its extension; NULL if none. */
static const char *format_of_name(const char *name) {
  static const char *const map[][2] = {
      {".parquet", "parquet"},   {".csv", "csv"},      {".ndjson", "ndjson"},
      {".jsonl", "ndjson"},      {".json", "json"},    {".md", "markdown"},
      {".markdown", "markdown"}, {".arrows", "arrow"}, {".arrow", "arrow-file"},
  };
  size_t n = strlen(name);
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
    size_t k = strlen(map[i][0]);
    if (n > k && strcasecmp(name + n - k, map[i][0]) == 0) return map[i][1];
  }
  return NULL;
}

int cli_rows_out_init(cli_rows_out *o, const char *usage, const char *format, const char *output,
                      bool force) {
  memset(o, 0, sizeof *o);
  o->wo = (inlet_text_writer_options)INLET_TEXT_WRITER_OPTIONS_INIT;
  o->out = stdout;
  o->output = output;
  o->force = force;
  if (!format && output) format = format_of_name(output);
  o->to_parquet = format && strcasecmp(format, "parquet") == 0;
  o->ao = (inlet_arrow_ipc_options)INLET_ARROW_IPC_OPTIONS_INIT;
  if (format && strcasecmp(format, "arrow-file") == 0) {
    o->to_arrow = true;
    o->ao.format = INLET_ARROW_IPC_FILE;
  } else if (format && (strcasecmp(format, "arrow") == 0 || strcasecmp(format, "arrows") == 0)) {
    o->to_arrow = true;
  }
  if (o->to_parquet && !output)
    return cli_usage_error(usage, "--format parquet: needs --output FILE");
  /* INLET_FORCE_TTY=1 lets tests see what a terminal gets without one. */
  const char *force_tty = getenv("INLET_FORCE_TTY");
  bool tty = isatty(fileno(stdout)) || (force_tty && strcmp(force_tty, "1") == 0);
  /* Binary bytes on a terminal garble it and help nobody; the file format
   * needs no seeking, so a pipe takes it as well as a file does. */
  if (o->to_arrow && !output && tty)
    return cli_usage_error(usage,
                           "--format %s: refusing to write binary Arrow IPC to a terminal; "
                           "give --output FILE or redirect standard output",
                           format);
  if (!format) format = !output && tty ? "table" : "ndjson";
  inlet_error err = INLET_ERROR_INIT;
  if (!o->to_parquet && !o->to_arrow &&
      inlet_text_output_format_parse(&o->wo.format, format, &err) < 0)
    return cli_usage_error(usage, "--format: %s (or parquet, arrow, arrow-file)",
                           inlet_errmsg(&err));
  o->cap = -1;
  if (!o->to_parquet && !o->to_arrow && !output && tty && o->wo.format == INLET_TEXT_TABLE) {
    o->terminal = true;
    o->cap = CLI_TERMINAL_ROWS;
    o->wo.table_terminal_width = cli_terminal_width(fileno(stdout));
  }
  /* An object store is not asked: its upload replaces the object whole. */
  struct stat st;
  if (output && !force && !inlet_location_is_url(output) && stat(output, &st) == 0)
    return cli_usage_error(usage, "--output: %s exists (add --force to replace it)", output);
  return CLI_OK;
}

int cli_rows_out_arrow_compression(cli_rows_out *o, const char *usage, const char *name) {
  if (!name) return CLI_OK;
  if (!o->to_arrow)
    return cli_usage_error(usage, "--arrow-compression: only with --format arrow or arrow-file");
  inlet_error err = INLET_ERROR_INIT;
  if (inlet_arrow_compression_parse(&o->ao.compression, name, &err) < 0)
    return cli_usage_error(usage, "--arrow-compression: %s", inlet_errmsg(&err));
  return CLI_OK;
}

void cli_rows_out_show_all(cli_rows_out *o) {
  o->cap = -1;
}

/* The name the user gave, not a temporary file's. */
static const char *shown(const cli_rows_out *o) {
  return o->url_output ? o->url_output : o->replace_output ? o->replace_output : o->output;
}

static int io_error(const char *what, const char *path) {
  cli_log("error", "io_error", "\"exit_code\":7", "%s %s: %s", what, path, strerror(errno));
  return CLI_IO;
}

/* An object-store destination is written to a local temporary file first,
 * and so is a file --force replaces: it is renamed over the old one only
 * once complete, so a failed command leaves the old file as it was. */
static int local_output(cli_rows_out *o) {
  if (!o->output || o->url_output || o->replace_output) return CLI_OK;
  bool url = inlet_location_is_url(o->output);
  struct stat st;
  if (!url && !(o->force && stat(o->output, &st) == 0)) return CLI_OK;
  const char *tmpdir = getenv("TMPDIR");
  if (url)
    snprintf(o->tmp_output, sizeof o->tmp_output, "%s/inlet-out-XXXXXX",
             tmpdir && *tmpdir ? tmpdir : "/tmp");
  else if ((size_t)snprintf(o->tmp_output, sizeof o->tmp_output, "%s.inlet-XXXXXX", o->output) >=
           sizeof o->tmp_output)
    o->tmp_output[0] = '\0';
  int fd = o->tmp_output[0] ? mkstemp(o->tmp_output) : -1;
  if (fd < 0) {
    o->tmp_output[0] = '\0';
    return io_error("cannot create a temporary file for", o->output);
  }
  close(fd);
  if (url)
    o->url_output = o->output;
  else
    o->replace_output = o->output;
  o->output = o->tmp_output;
  return CLI_OK;
}

void cli_rows_out_threads(cli_rows_out *o, int threads, bool any_order) {
  o->threads = threads;
  o->any_order = any_order;
}

int cli_rows_out_open_stream(cli_rows_out *o, FILE **f) {
  int rc = local_output(o);
  if (rc != CLI_OK) return rc;
  if (o->output && !(o->out = fopen(o->output, "w"))) {
    o->out = NULL;
    return io_error("cannot write", shown(o));
  }
  *f = o->out;
  return CLI_OK;
}

int cli_rows_out_open(cli_rows_out *o, const inlet_schema *schema) {
  inlet_error err = INLET_ERROR_INIT;
  if (o->to_parquet) {
    int rc = local_output(o);
    if (rc != CLI_OK) return rc;
    if (o->tmp_output[0]) unlink(o->tmp_output); /* the Parquet writer creates its file */
    inlet_parquet_writer_options po = INLET_PARQUET_WRITER_OPTIONS_INIT;
    if (inlet_parquet_writer_open(&o->pw, o->output, schema, &po, &err) < 0) return cli_fail(&err);
    return CLI_OK;
  }
  FILE *f = NULL;
  int rc = cli_rows_out_open_stream(o, &f);
  if (rc != CLI_OK) return rc;
  if (o->to_arrow) {
    if (inlet_arrow_ipc_writer_new_file(&o->aw, schema, &o->ao, f, &err) < 0) return cli_fail(&err);
    return CLI_OK;
  }
  if (inlet_text_writer_new_file(&o->tw, schema, &o->wo, f, &err) < 0) return cli_fail(&err);
  if (o->threads > 1 && o->wo.format != INLET_TEXT_TABLE && o->cap < 0 &&
      cli_text_par_new(&o->par, o->threads, schema, &o->wo, o->tw, o->any_order, &err) < 0)
    return cli_fail(&err);
  return CLI_OK;
}

int cli_rows_out_write(cli_rows_out *o, const inlet_batch *b, inlet_error *err) {
  if (o->pw) return inlet_parquet_writer_write(o->pw, b, err);
  if (o->aw) return inlet_arrow_ipc_writer_write(o->aw, b, err);
  if (o->cap < 0) return inlet_text_writer_write(o->tw, b, err);
  /* Past the cap rows are only counted: the scan still runs to the end so
   * that the footer's count is exact. The writer reads rows 0..num_rows-1,
   * so a shorter num_rows shows a prefix of the batch. */
  int64_t room = o->cap - o->shown_rows;
  if (room > b->num_rows) room = b->num_rows;
  if (room < 0) room = 0;
  o->more_rows += b->num_rows - room;
  if (room == 0) return 0;
  inlet_batch head = *b;
  head.num_rows = room;
  o->shown_rows += room;
  return inlet_text_writer_write(o->tw, &head, err);
}

int cli_rows_out_put(cli_rows_out *o, inlet_batch *b, inlet_error *err) {
  if (o->par) return cli_text_par_put(o->par, b, err);
  return cli_rows_out_write(o, b, err);
}

int cli_rows_out_flush(cli_rows_out *o, inlet_error *err) {
  return o->par ? cli_text_par_flush(o->par, err) : 0;
}

/* @p n with a comma between thousands (650,775). */
static void thousands(char *buf, size_t cap, int64_t n) {
  char digits[32];
  int len = snprintf(digits, sizeof digits, "%lld", (long long)n);
  size_t k = 0;
  for (int i = 0; i < len && k + 2 < cap; i++) {
    if (i && (len - i) % 3 == 0) buf[k++] = ',';
    buf[k++] = digits[i];
  }
  buf[k] = '\0';
}

int cli_rows_out_finish(cli_rows_out *o, inlet_error *err) {
  if (o->pw) return inlet_parquet_writer_close(o->pw, err);
  if (o->aw) return inlet_arrow_ipc_writer_finish(o->aw, err);
  int rc = cli_rows_out_flush(o, err);
  if (rc < 0) return rc;
  rc = inlet_text_writer_finish(o->tw, err);
  if (rc < 0) return rc;
  if (o->more_rows > 0) {
    char n[40];
    thousands(n, sizeof n, o->more_rows);
    if (fprintf(o->out, "\xe2\x80\xa6 %s more row%s; --limit N or --all\n", n,
                o->more_rows == 1 ? "" : "s") < 0) {
      err->code = INLET_EIO;
      snprintf(err->message, sizeof err->message, "write failed");
      return INLET_EIO;
    }
  }
  return 0;
}

int cli_rows_out_close(cli_rows_out *o, int rc) {
  cli_text_par_free(o->par);
  o->par = NULL;
  inlet_text_writer_free(o->tw);
  o->tw = NULL;
  inlet_parquet_writer_free(o->pw);
  o->pw = NULL;
  inlet_arrow_ipc_writer_free(o->aw);
  o->aw = NULL;
  if (o->out && o->out != stdout && fclose(o->out) != 0 && rc == CLI_OK)
    rc = io_error("cannot write", shown(o));
  o->out = NULL;
  inlet_error err = INLET_ERROR_INIT;
  if (o->url_output && rc == CLI_OK &&
      inlet_location_upload(o->tmp_output, o->url_output, NULL, &err) < 0)
    rc = cli_fail(&err);
  if (o->replace_output && rc == CLI_OK) {
    if (rename(o->tmp_output, o->replace_output) == 0)
      o->tmp_output[0] = '\0';
    else
      rc = io_error("cannot replace", o->replace_output);
  }
  if (o->tmp_output[0]) unlink(o->tmp_output);
  o->tmp_output[0] = '\0';
  return rc;
}
