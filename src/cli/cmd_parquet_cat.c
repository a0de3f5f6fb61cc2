/*
 * `inlet parquet cat FILE [--format ndjson|csv|table|json|markdown] [--columns a,b]
 * [--limit N]`: prints rows, reading one row group at a time so memory is
 * bounded by a row group's projected columns. NDJSON values use refcheck's
 * canonical encoding, so `refcheck compare --ndjson` checks them directly.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: inlet parquet cat FILE [--format ndjson|csv|table|json|markdown] [--columns a,b]\n"
    "                         [--limit N]\n"
    "Prints the rows of a Parquet file.\n"
    "  --format F   ndjson (default; refcheck's canonical values), csv (RFC 4180), table,\n"
    "               json (one array), markdown\n"
    "  --columns    only these top-level columns, in this order\n"
    "  --limit N    at most N rows\n";

static const cli_opt opts[] = {CLI_OPT_STRING("format"), CLI_OPT_STRING("columns"),
                               CLI_OPT_INT("limit", 0, INT64_MAX)};

static int cmd_parquet_cat(const cli_args *a) {
  const char *format = cli_string(a, "format"), *columns = cli_string(a, "columns");
  const char *const *pos = a->pos;
  int rc;
  if (!format) format = "ndjson";
  if (a->n_pos != 1) return cli_usage_error(usage, "parquet cat: missing FILE");
  inlet_error err = INLET_ERROR_INIT;
  inlet_text_writer_options wo = INLET_TEXT_WRITER_OPTIONS_INIT;
  if (inlet_text_output_format_parse(&wo.format, format, &err) < 0)
    return cli_usage_error(usage, "%s", inlet_errmsg(&err));
  int64_t limit = -1;
  (void)cli_int(a, "limit", &limit);

  inlet_parquet_reader *r = NULL;
  inlet_text_writer *w = NULL;
  int32_t *idx = NULL;
  inlet_schema proj;
  inlet_schema_init(&proj);
  inlet_batch batch;
  memset(&batch, 0, sizeof batch);
  rc = CLI_FAIL;
  if (inlet_parquet_reader_open(&r, pos[0], NULL, &err) < 0) {
    rc = cli_fail(&err);
    goto done;
  }
  const inlet_schema *s = inlet_parquet_reader_schema(r);
  int32_t n_idx = 0;
  if (columns) {
    idx = malloc(sizeof *idx * (strlen(columns) + 1));
    char *list = strdup(columns);
    if (!idx || !list) {
      free(list);
      cli_error("out of memory");
      goto done;
    }
    for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
      while (*tok == ' ')
        tok++;
      size_t tl = strlen(tok);
      while (tl && tok[tl - 1] == ' ')
        tok[--tl] = '\0';
      int f = inlet_schema_find(s, tok);
      if (f < 0) {
        rc = CLI_NOT_FOUND;
        cli_error("%s has no column \"%s\"", pos[0], tok);
        free(list);
        goto done;
      }
      idx[n_idx++] = f;
    }
    free(list);
    if (n_idx == 0) {
      rc = cli_usage_error(usage, "--columns names no column");
      goto done;
    }
    if (inlet_parquet_reader_project(r, idx, n_idx, &err) < 0) {
      rc = cli_fail(&err);
      goto done;
    }
    for (int32_t i = 0; i < n_idx; i++) {
      if (inlet_schema_add_field(&proj, &s->fields[idx[i]], &err) < 0) {
        rc = cli_fail(&err);
        goto done;
      }
    }
  } else if (inlet_schema_copy(&proj, s, &err) < 0) {
    rc = cli_fail(&err);
    goto done;
  }
  if (inlet_text_writer_new_file(&w, &proj, &wo, stdout, &err) < 0) {
    rc = cli_fail(&err);
    goto done;
  }
  int64_t left = limit;
  int32_t n_rg = inlet_parquet_reader_num_row_groups(r);
  for (int32_t rg = 0; rg < n_rg && left != 0; rg++) {
    if (inlet_parquet_reader_read_row_group(r, rg, &batch, &err) < 0) {
      rc = cli_fail(&err);
      goto done;
    }
    inlet_batch view = batch; /* shallow: writes only the first rows */
    if (left >= 0 && view.num_rows > left) view.num_rows = left;
    if (inlet_text_writer_write(w, &view, &err) < 0) {
      rc = cli_fail(&err);
      goto done;
    }
    if (left >= 0) left -= view.num_rows;
  }
  if (inlet_text_writer_finish(w, &err) < 0) {
    rc = cli_fail(&err);
    goto done;
  }
  rc = CLI_OK;
done:
  inlet_text_writer_free(w);
  inlet_batch_reset(&batch);
  inlet_schema_reset(&proj);
  inlet_parquet_reader_free(r);
  free(idx);
  return rc;
}

const cli_command cli_cmd_parquet_cat = {
    "parquet cat",
    cmd_parquet_cat,
    "FILE [--format ndjson|csv|table|json|markdown] [--columns a,b] [--limit N]",
    "print rows",
    usage,
    opts,
    (int)(sizeof opts / sizeof opts[0]),
    1};
