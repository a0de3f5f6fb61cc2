/*
 * `inlet parquet convert IN OUT --schema 'DDL' ...`: NDJSON or CSV text to
 * a Parquet file, batch by batch (memory bounded by the text reader's batch
 * limits and the writer's row group size). Bad records are reported on
 * stderr as "inlet: IN:LINE: reason"; any bad record fails the command and
 * leaves no output unless --skip-bad is given.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "log.h"
#include "progress.h"

static const char usage[] =
    "usage: inlet parquet convert IN OUT --schema 'DDL' [--input-format ndjson|csv]\n"
    "         [--compression snappy|zstd|gzip|lz4_raw|none] [--compression-level N]\n"
    "         [--row-group-size BYTES] [--page-size BYTES] [--no-dictionary]\n"
    "         [--encodings compatible|extended] [--skip-bad] [--strict]\n"
    "         [--epoch-unit s|ms|us|ns] [--force] [--threads N]\n"
    "IN may be '-' for standard input (then --input-format is required).\n"
    "--encodings: compatible (default) writes PLAIN, dictionary and RLE only, which every\n"
    "reader decodes; extended adds DELTA_BINARY_PACKED and BYTE_STREAM_SPLIT where they\n"
    "make the file smaller (Spark's vectorized reader needs 3.3 and 4.3 for "
    "them).\n" CLI_THREADS_HELP;

/* Bad records beyond this many are counted but not printed. */
#define MAX_SHOWN 100

typedef struct bad_ctx {
  const char *path;
  int64_t count;
  cli_progress *prog; /* erased before a warning */
} bad_ctx;

static int on_bad(void *ctx, const inlet_text_bad_record *b) {
  bad_ctx *c = ctx;
  if (c->count++ < MAX_SHOWN) {
    cli_progress_clear(c->prog);
    cli_log("warning", "bad_record", NULL, "%s:%lld: %s", c->path, (long long)b->line, b->reason);
  }
  return 0;
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcasecmp(s + n - k, suffix) == 0;
}

static const cli_opt opts[] = {
    CLI_OPT_STRING("schema"),
    CLI_OPT_STRING("input-format"),
    CLI_OPT_STRING("compression"),
    CLI_OPT_INT("compression-level", -131072, 100),
    CLI_OPT_SIZE("row-group-size", 1, INT64_MAX),
    CLI_OPT_SIZE("page-size", 1, INT64_MAX),
    CLI_OPT_STRING("epoch-unit"),
    CLI_OPT_FLAG("no-dictionary"),
    CLI_OPT_FLAG("skip-bad"),
    CLI_OPT_FLAG("strict"),
    CLI_OPT_FLAG("force"),
    CLI_OPT_STRING("encodings"),
    CLI_OPT_THREADS,
};

static int cmd_parquet_convert(const cli_args *a) {
  const char *ddl = cli_string(a, "schema"), *in_fmt = cli_string(a, "input-format"),
             *codec = cli_string(a, "compression"), *epoch_s = cli_string(a, "epoch-unit"),
             *enc_s = cli_string(a, "encodings");
  bool no_dict = cli_flag(a, "no-dictionary"), skip_bad = cli_flag(a, "skip-bad"),
       strict = cli_flag(a, "strict"), force = cli_flag(a, "force");
  const char *const *pos = a->pos;
  int rc;
  if (a->n_pos != 2) return cli_usage_error(usage, "parquet convert: needs IN and OUT");
  if (!ddl) return cli_usage_error(usage, "parquet convert: --schema is required");
  const char *in = pos[0], *out = pos[1];
  inlet_error err = INLET_ERROR_INIT;

  inlet_text_reader_options ro = INLET_TEXT_READER_OPTIONS_INIT;
  if (in_fmt) {
    if (inlet_text_format_parse(&ro.format, in_fmt, &err) < 0 || ro.format == INLET_TEXT_TABLE)
      return cli_usage_error(usage, "--input-format must be ndjson or csv, not '%s'", in_fmt);
  } else if (ends_with(in, ".csv")) {
    ro.format = INLET_TEXT_CSV;
  } else if (ends_with(in, ".ndjson") || ends_with(in, ".jsonl") || ends_with(in, ".json")) {
    ro.format = INLET_TEXT_NDJSON;
  } else {
    return cli_usage_error(usage,
                           "cannot tell the format of '%s' from its name; use --input-format", in);
  }
  ro.strict = strict;
  if (epoch_s) {
    static const struct {
      const char *n;
      inlet_epoch_unit u;
    } units[] = {{"s", INLET_EPOCH_SECONDS},
                 {"ms", INLET_EPOCH_MILLIS},
                 {"us", INLET_EPOCH_MICROS},
                 {"ns", INLET_EPOCH_NANOS},
                 {"auto", INLET_EPOCH_AUTO}};
    bool found = false;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
      if (strcmp(epoch_s, units[i].n) == 0) ro.epoch_unit = units[i].u, found = true;
    if (!found) return cli_usage_error(usage, "--epoch-unit must be s, ms, us, ns or auto");
  }

  inlet_parquet_writer_options wo = INLET_PARQUET_WRITER_OPTIONS_INIT;
  if (codec && inlet_compression_parse(&wo.compression, codec, &err) < 0)
    return cli_usage_error(usage, "%s", inlet_errmsg(&err));
  int64_t level;
  if (cli_int(a, "compression-level", &level)) wo.compression_level = (int)level;
  (void)cli_int(a, "row-group-size", &wo.row_group_bytes);
  (void)cli_int(a, "page-size", &wo.page_bytes);
  if (no_dict) wo.dictionary = false;
  wo.threads = cli_threads(a);
  if (enc_s && inlet_parquet_encodings_parse(&wo.encodings, enc_s, &err) < 0)
    return cli_usage_error(usage, "--encodings: %s", inlet_errmsg(&err));

  inlet_schema schema;
  if (inlet_schema_parse(&schema, ddl, &err) < 0)
    return cli_usage_error(NULL, "--schema: %s", inlet_errmsg(&err));

  cli_progress prog;
  cli_progress_init(&prog, false);
  bad_ctx bad = {in, 0, &prog};
  ro.on_bad_record = on_bad;
  ro.ctx = &bad;
  inlet_text_reader *r = NULL;
  inlet_parquet_writer *w = NULL;
  inlet_batch batch;
  memset(&batch, 0, sizeof batch);
  rc = CLI_FAIL;
  if (inlet_text_reader_open_path(&r, in, &schema, &ro, &err) < 0) {
    rc = cli_fail(&err);
    goto done;
  }
  if (force && strcmp(out, in) != 0) unlink(out);
  if (inlet_parquet_writer_open(&w, out, &schema, &wo, &err) < 0) {
    if (err.code == INLET_EEXISTS)
      cli_error("%s already exists (use --force to replace it)", out);
    else
      rc = cli_fail(&err);
    goto done;
  }
  /* The bar's total is the input's size when it has one (not a pipe). */
  struct stat in_st;
  int64_t in_size = stat(in, &in_st) == 0 && S_ISREG(in_st.st_mode) ? (int64_t)in_st.st_size : -1;
  cli_progress_init(&prog, true);
  inlet_progress start = {"convert", "reading", "bytes", 0, in_size};
  cli_progress_update(&prog, &start);
  for (;;) {
    if (inlet_text_reader_next(r, &batch, &err) < 0) {
      cli_progress_clear(&prog);
      rc = cli_fail_fmt(&err, "%s: %s", in, inlet_errmsg(&err));
      goto done;
    }
    inlet_text_reader_stats now;
    inlet_text_reader_get_stats(r, &now);
    inlet_progress ev = {"convert", "reading", "bytes", now.bytes,
                         in_size >= now.bytes ? in_size : -1};
    if (batch.num_rows == 0 && in_size >= now.bytes) ev.done = in_size;
    cli_progress_update(&prog, &ev);
    if (batch.num_rows == 0) break;
    if (bad.count > 0 && !skip_bad) continue; /* keep reading to report every bad record */
    if (inlet_parquet_writer_write(w, &batch, &err) < 0) {
      cli_progress_clear(&prog);
      rc = cli_fail(&err);
      goto done;
    }
  }
  cli_progress_clear(&prog);
  inlet_text_reader_stats st;
  inlet_text_reader_get_stats(r, &st);
  if (bad.count > MAX_SHOWN)
    cli_log("warning", "bad_records_not_shown", NULL, "%s: %lld more bad records not shown", in,
            (long long)(bad.count - MAX_SHOWN));
  if (bad.count > 0 && !skip_bad) {
    cli_error("%s: %lld bad record%s; %s not written (--skip-bad writes the good rows)", in,
              (long long)bad.count, bad.count == 1 ? "" : "s", out);
    goto done; /* freeing the unclosed writer removes the partial file */
  }
  if (inlet_parquet_writer_close(w, &err) < 0) {
    rc = cli_fail(&err);
    goto done;
  }
  printf("%s: %lld rows, %lld bytes", out, (long long)inlet_parquet_writer_rows(w),
         (long long)inlet_parquet_writer_bytes(w));
  if (bad.count) printf(", %lld bad records skipped", (long long)bad.count);
  printf("\n");
  rc = CLI_OK;
done:
  inlet_parquet_writer_free(w);
  inlet_batch_reset(&batch);
  inlet_text_reader_free(r);
  inlet_schema_reset(&schema);
  return rc;
}

const cli_command cli_cmd_parquet_convert = {
    "parquet convert",
    cmd_parquet_convert,
    "IN OUT --schema 'DDL' [--input-format ndjson|csv]\n"
    "                  [--compression snappy|zstd|gzip|lz4_raw|none] [--compression-level N]\n"
    "                  [--row-group-size BYTES] [--page-size BYTES] [--no-dictionary]\n"
    "                  [--encodings compatible|extended] [--skip-bad] [--strict]\n"
    "                  [--epoch-unit s|ms|us|ns] [--force]",
    "NDJSON or CSV to Parquet",
    usage,
    opts,
    (int)(sizeof opts / sizeof opts[0]),
    2};
