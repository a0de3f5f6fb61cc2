/*
 * Where the rows of `scan` and `changes` go: --format (table, csv, ndjson,
 * json, markdown, parquet, or Arrow IPC: arrow (stream) and arrow-file) and --output (stdout, a
 * local file, or an object-store URL written to a local temporary file and uploaded whole once
 * complete, so a failed command leaves no partial object behind).
 */
#ifndef INLET_CLI_ROWS_OUT_H
#define INLET_CLI_ROWS_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "inlet/inlet.h"
#include "text_par.h"

/* The help lines of --format, --output and --force. */
#define CLI_ROWS_OUT_HELP                                                                          \
  "  --format F       table (aligned; the default on a terminal), csv (RFC 4180),\n"               \
  "                   ndjson (the default otherwise), json (one array), markdown,\n"               \
  "                   parquet (needs --output), arrow (Arrow IPC stream), arrow-file\n"            \
  "                   (Arrow IPC file); without --format, the extension of --output\n"             \
  "                   decides (.csv .ndjson .jsonl .json .md .parquet, .arrows stream,\n"          \
  "                   .arrow file). Binary formats (parquet, arrow, arrow-file) are\n"             \
  "                   never written to a terminal: give --output or a pipe\n"                      \
  "  --arrow-compression C  arrow, arrow-file: none (default), lz4 (LZ4_FRAME) or zstd\n"          \
  "                   body compression\n"                                                          \
  "  --output FILE    write to FILE (or an s3:// or az:// URL) instead of standard output\n"       \
  "  --force          replace an existing --output FILE (refused otherwise)\n"                     \
  "  --all            on a terminal, print every row (default: the first 50 and a\n"               \
  "                   footer counting the rest); a pipe always gets every row. On a\n"             \
  "                   terminal the table fits its width (COLUMNS overrides), long\n"               \
  "                   values end in \xe2\x80\xa6 and null shows as \xe2\x88\x85\n"

typedef struct cli_rows_out {
  bool to_parquet;
  bool to_arrow;              /* --format arrow or arrow-file */
  inlet_arrow_ipc_options ao; /* format and compression of to_arrow */
  inlet_arrow_ipc_writer *aw; /* owned */
  inlet_text_writer_options wo;
  const char *output;         /* the local file written; NULL = stdout */
  const char *url_output;     /* object-store destination, uploaded by cli_rows_out_close */
  const char *replace_output; /* a local file --force replaces, renamed over on success */
  char tmp_output[4096];      /* the temporary file behind url_output or replace_output */
  bool force;
  FILE *out;
  inlet_text_writer *tw;
  inlet_parquet_writer *pw;
  /* A table on a terminal (or INLET_FORCE_TTY=1, for tests): widths fitted
   * to the terminal (COLUMNS, else TIOCGWINSZ, else 80) and at most cap rows
   * shown (-1: all); the rest are counted for the footer. */
  bool terminal;
  int64_t cap, shown_rows, more_rows;
  /* Text formatted on threads (cli_rows_out_threads): the threads asked for,
   * and the formatting threads when the output can use them. */
  int threads;
  bool any_order;
  cli_text_par *par; /* owned */
} cli_rows_out;

/* Checks --format, --output (NULL when absent) and --force: CLI_OK, or the
 * exit code of a usage error already printed with @p usage. Without
 * --format the extension of --output decides (.parquet, .csv, .ndjson,
 * .jsonl, .json, .md, .markdown, .arrows, .arrow), else a terminal gets a
 * table and anything else NDJSON. A binary format bound for a terminal is a
 * usage error. An existing local --output is replaced only with @p force. */
int cli_rows_out_init(cli_rows_out *o, const char *usage, const char *format, const char *output,
                      bool force);
/* --arrow-compression NAME (NULL when absent): CLI_OK, or the exit code of
 * a usage error (an unknown name, or a format that is not Arrow). */
int cli_rows_out_arrow_compression(cli_rows_out *o, const char *usage, const char *name);
/* --all, or a --limit of the command's own: no row cap on a terminal. */
void cli_rows_out_show_all(cli_rows_out *o);
/* Formats text rows on @p threads threads of their own when more than one
 * and the format allows (not TABLE, nor a terminal's capped rows): the same
 * bytes, in the order of the batches put or, with @p any_order, as they
 * are formatted. Before cli_rows_out_open. */
void cli_rows_out_threads(cli_rows_out *o, int threads, bool any_order);
/* Opens the destination for plain text (scan --explain): *f is stdout or
 * the output file. Returns CLI_OK or an exit code (the error is logged). */
int cli_rows_out_open_stream(cli_rows_out *o, FILE **f);
/* Opens the writer for rows of @p schema. Returns CLI_OK or an exit code
 * (the error is logged). */
int cli_rows_out_open(cli_rows_out *o, const inlet_schema *schema);
/* Writes one batch; < 0 with @p err set on failure. */
int cli_rows_out_write(cli_rows_out *o, const inlet_batch *b, inlet_error *err);
/* Writes one batch, taking its rows when they are formatted on threads (@p b
 * is then left zeroed; else as cli_rows_out_write). A failure may be that of
 * an earlier batch: < 0 with @p err set. */
int cli_rows_out_put(cli_rows_out *o, inlet_batch *b, inlet_error *err);
/* Writes every batch put so far (before reporting an error of the source,
 * so that the rows before it are out, as one thread writes them). */
int cli_rows_out_flush(cli_rows_out *o, inlet_error *err);
/* Completes the output (Parquet footer, text trailer); < 0 with @p err set. */
int cli_rows_out_finish(cli_rows_out *o, inlet_error *err);
/* Frees everything; closes the file and, when @p rc is CLI_OK, uploads an
 * object-store output. Returns @p rc or the exit code of a failure here. */
int cli_rows_out_close(cli_rows_out *o, int rc);

#endif /* INLET_CLI_ROWS_OUT_H */
