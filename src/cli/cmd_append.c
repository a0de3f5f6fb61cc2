/*
 * `inlet append TABLE FILE... [--format ndjson|csv|parquet] [--skip-bad]
 *  [--max-rejected N|P%] [--schema-evolution reject|ignore|add] [--coerce]
 *  [--compression C] [--expected-version N] [--app-id ID --app-version N]`:
 * converts the input files to the table schema and commits their rows as
 * one transaction. The format defaults from each file's extension (.csv,
 * .parquet, anything else NDJSON; "-" is standard input as NDJSON).
 * Unknown fields and type conversions follow ingest's rules (docs/INGEST.md
 * "Unknown fields and types"); since the append is one transaction, a
 * rejected-records limit exceeded commits nothing (exit 8).
 *
 * --schema-evolution add (NDJSON files): a first pass over the records lets
 * the writer take the fields the table lacks (inlet_table_writer_evolve:
 * types from their first values), the second converts the records into the
 * evolved schema; the one commit carries the metaData action and the rows.
 * On a table that allows type widening the first pass also widens the types
 * of columns and fields whose values do not fit (inlet_table_writer_widen,
 * ingest's rules). A
 * concurrent metaData change (another writer evolving the schema) makes the
 * commit conflict: the whole append starts again on the new schema.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "log.h"

static const char usage[] =
    "usage: inlet append TABLE FILE... [--format ndjson|csv|parquet] [--skip-bad]\n"
    "                    [--compression snappy|zstd|gzip|lz4_raw|brotli|none]\n"
    "                    [--expected-version N] [--app-id ID --app-version N] [--single-writer]\n"
    "                    [--schema-evolution reject|ignore|add] [--coerce] [--max-rejected N|P%]\n"
    "                    [--threads N]\n"
    "Appends the rows of FILEs (converted to the table schema) as one atomic commit.\n"
    "  --format F          input format (default: by extension, else ndjson)\n"
    "  --skip-bad          skip records that do not convert (default: fail)\n"
    "  --max-rejected N|P% skip bad records while at most N of them (or P% of all the\n"
    "                      records) are bad; above that nothing is committed (exit 8)\n"
    "  --schema-evolution reject|ignore  a field the table lacks makes the record bad\n"
    "                      (reject, default) or is dropped and counted (ignore)\n"
    "  --schema-evolution add  such fields become new nullable columns typed from their\n"
    "                      first values, committed with the rows (NDJSON files only; a\n"
    "                      field that cannot become a column fails the append); on a\n"
    "                      table with delta.enableTypeWidening=true, values beyond a\n"
    "                      column's integer or float range widen its type\n"
    "  --coerce            numbers/booleans into string columns, numeric strings into\n"
    "                      number, boolean and epoch columns (default: bad records)\n"
    "  --compression C     data file codec (default snappy)\n"
    "  --expected-version N  commit only if the table is still at version N (else a conflict)\n"
    "  --app-id ID --app-version N  record a txn action (exactly-once "
    "progress)\n" CLI_THREADS_HELP CLI_SINGLE_WRITER_HELP CLI_TABLE_URL_HELP;

typedef struct bad_ctx {
  bool skip;
  const char *file;
  int64_t count;
  int64_t before;       /* bad records of the files before this one */
  int64_t max_rejected; /* -1: none */
} bad_ctx;

static int on_bad(void *ctx, const inlet_text_bad_record *bad) {
  bad_ctx *b = ctx;
  b->count++;
  if (b->max_rejected >= 0 && b->before + b->count > b->max_rejected) {
    cli_log("error", "bad_record", NULL, "%s line %lld: %s", b->file, (long long)bad->line,
            bad->reason);
    return 1;
  }
  if (b->skip) {
    if (b->count <= 10)
      cli_log("warning", "bad_record_skipped", NULL, "%s line %lld: skipped bad record: %s",
              b->file, (long long)bad->line, bad->reason);
    return 0;
  }
  return 1;
}

/* Records whose partition values cannot name a directory are bad records
 * (reported with their line; skipped with --skip-bad). */
static int check_row(void *ctx, const inlet_batch *batch, int64_t row, inlet_error *err) {
  return inlet_table_writer_check_row(ctx, batch, row, err);
}

static bool ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcasecmp(s + a - b, suffix) == 0;
}

static bool same_type(const inlet_field *a, const inlet_field *b) {
  if (a->type.id != b->type.id || a->n_children != b->n_children) return false;
  if (a->type.id == INLET_TYPE_TIMESTAMP &&
      (a->type.unit != b->type.unit || a->type.utc != b->type.utc))
    return false;
  if (a->type.id == INLET_TYPE_DECIMAL &&
      (a->type.precision != b->type.precision || a->type.scale != b->type.scale))
    return false;
  for (int32_t i = 0; i < a->n_children; i++)
    if (!same_type(&a->children[i], &b->children[i])) return false;
  return true;
}

/* --schema-evolution add, first pass: every record of NDJSON file @p path
 * offers its new fields and the values that need a wider type (on a table
 * that allows type widening) to the writer. Records that are not JSON
 * objects are left to the second pass (the text reader judges them). */
static int evolve_from_file(inlet_table_writer *w, const char *path, int64_t *added,
                            int64_t *widened, inlet_error *err) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    cli_log("error", "open_failed", NULL, "%s: %s", path, strerror(errno));
    return errno == ENOENT ? INLET_ENOTFOUND : INLET_EIO;
  }
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  int64_t lineno = 0;
  int rc = 0;
  while (rc == 0 && (n = getline(&line, &cap, f)) >= 0) {
    lineno++;
    size_t len = (size_t)n;
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
      len--;
    bool blank = true;
    for (size_t i = 0; i < len && blank; i++)
      blank = line[i] == ' ' || line[i] == '\t';
    if (blank) continue;
    int32_t k = 0, wk = 0;
    inlet_error e = INLET_ERROR_INIT;
    rc = inlet_table_writer_evolve(w, line, len, &k, &e);
    if (rc == INLET_ECORRUPT) rc = 0;
    if (rc == 0) rc = inlet_table_writer_widen(w, line, len, &wk, &e);
    /* Too many changes at once: the second pass rejects the record. */
    if (rc == INLET_ELIMIT) rc = 0;
    *widened += wk;
    if (rc < 0) {
      if (err) *err = e;
      cli_log("error", "schema_evolution", NULL, "%s line %lld: %s; nothing committed", path,
              (long long)lineno, inlet_errmsg(&e));
      err->message[0] = '\0';
    }
    *added += k;
  }
  if (rc == 0 && ferror(f)) {
    cli_log("error", "read_failed", NULL, "%s: %s", path, strerror(errno));
    rc = INLET_EIO;
  }
  free(line);
  fclose(f);
  return rc;
}

/* Parquet input: columns matched by name, missing nullable columns null. */
static int append_parquet(inlet_table_writer *w, const inlet_schema *ts, const char *path,
                          int64_t *rows, inlet_error *err) {
  inlet_parquet_reader *r = NULL;
  int rc = inlet_parquet_reader_open(&r, path, NULL, err);
  if (rc < 0) return rc;
  const inlet_schema *fs = inlet_parquet_reader_schema(r);
  int32_t *map = calloc((size_t)ts->n_fields + 1, sizeof *map);
  inlet_batch in, out;
  memset(&in, 0, sizeof in);
  memset(&out, 0, sizeof out);
  if (!map) {
    rc = INLET_ENOMEM;
    goto done;
  }
  for (int32_t i = 0; i < ts->n_fields; i++) {
    map[i] = inlet_schema_find(fs, ts->fields[i].name);
    if (map[i] >= 0 && !same_type(&ts->fields[i], &fs->fields[map[i]])) {
      char a[256], b[256];
      inlet_field_type_name(&ts->fields[i], a, sizeof a);
      inlet_field_type_name(&fs->fields[map[i]], b, sizeof b);
      cli_log("error", "type_mismatch", NULL,
              "%s: column \"%s\" is %s in the file but %s in the table", path, ts->fields[i].name,
              b, a);
      rc = INLET_EINVAL;
      goto done;
    }
  }
  for (int32_t g = 0; g < inlet_parquet_reader_num_row_groups(r); g++) {
    rc = inlet_parquet_reader_read_row_group(r, g, &in, err);
    if (rc < 0) goto done;
    inlet_batch_reset(&out);
    rc = inlet_batch_init(&out, ts, err);
    if (rc < 0) goto done;
    for (int32_t i = 0; i < ts->n_fields; i++) {
      if (map[i] >= 0) {
        inlet_array_reset(&out.columns[i]);
        out.columns[i] = in.columns[map[i]];
        memset(&in.columns[map[i]], 0, sizeof in.columns[map[i]]);
      } else {
        for (int64_t k = 0; k < in.num_rows && rc == 0; k++)
          rc = inlet_array_append_null(&out.columns[i], &ts->fields[i], err);
        if (rc < 0) goto done;
      }
    }
    out.num_rows = in.num_rows;
    rc = inlet_table_writer_write(w, &out, err);
    if (rc < 0) {
      char msg[sizeof err->message];
      snprintf(msg, sizeof msg, "row group %d: %s", (int)g, inlet_errmsg(err));
      snprintf(err->message, sizeof err->message, "%s", msg);
      goto done;
    }
    *rows += out.num_rows;
  }
done:
  if (rc == INLET_EINVAL && err && !err->message[0]) err->code = rc;
  inlet_batch_reset(&in);
  inlet_batch_reset(&out);
  free(map);
  inlet_parquet_reader_free(r);
  return rc;
}

static const cli_opt opts[] = {
    CLI_OPT_STRING("format"),
    CLI_OPT_STRING("compression"),
    CLI_OPT_INT("expected-version", 0, INT64_MAX),
    CLI_OPT_STRING("app-id"),
    CLI_OPT_INT("app-version", INT64_MIN, INT64_MAX),
    CLI_OPT_FLAG("skip-bad"),
    CLI_OPT_FLAG("single-writer"),
    CLI_OPT_STRING("schema-evolution"),
    CLI_OPT_FLAG("coerce"),
    CLI_OPT_STRING("max-rejected"),
    CLI_OPT_THREADS,
};

static int cmd_append(const cli_args *a) {
  const char *format = cli_string(a, "format"), *compression = cli_string(a, "compression"),
             *app_id = cli_string(a, "app-id");
  bool skip_bad = cli_flag(a, "skip-bad");
  int64_t app_version = 0;
  bool has_app_version = cli_int(a, "app-version", &app_version);
  const char *const *pos = a->pos;
  int n_pos = a->n_pos, rc = CLI_OK;
  if (n_pos < 2) return cli_usage_error(usage, "append: need TABLE and at least one FILE");
  if ((app_id == NULL) != !has_app_version)
    return cli_usage_error(usage, "append: --app-id and --app-version go together");
  const char *evolution = cli_string(a, "schema-evolution"),
             *max_rejected = cli_string(a, "max-rejected");
  bool ignore_unknown = false, evolve = false, coerce = cli_flag(a, "coerce");
  if (evolution) {
    if (strcmp(evolution, "ignore") == 0)
      ignore_unknown = true;
    else if (strcmp(evolution, "add") == 0)
      ignore_unknown = evolve = true; /* what the first pass did not add has no type yet */
    else if (strcmp(evolution, "reject") != 0)
      return cli_usage_error(usage, "append: bad --schema-evolution '%s' (reject, ignore, add)",
                             evolution);
  }
  for (int i = 1; evolve && i < n_pos; i++) {
    const char *path = pos[i];
    bool ndjson = format ? strcasecmp(format, "ndjson") == 0 || strcasecmp(format, "jsonl") == 0
                         : !ends_with(path, ".parquet") && !ends_with(path, ".csv");
    if (!ndjson || strcmp(path, "-") == 0) {
      cli_error("append: --schema-evolution add reads NDJSON files twice (types from JSON "
                "values): '%s' is %s; use reject or ignore",
                path, ndjson ? "standard input" : "not NDJSON");
      return CLI_UNSUPPORTED;
    }
  }
  int64_t max_n = -1;
  double max_pct = -1;
  if (max_rejected && cli_parse_max_rejected(max_rejected, &max_n, &max_pct) < 0)
    return cli_usage_error(usage, "append: bad --max-rejected '%s' (a count N or a percentage P%%)",
                           max_rejected);
  if (max_rejected && skip_bad)
    return cli_usage_error(usage, "append: --skip-bad skips every bad record; --max-rejected "
                                  "bounds them: not both");
  inlet_append_options ao = INLET_APPEND_OPTIONS_INIT;
  inlet_error err = INLET_ERROR_INIT;
  if (compression && inlet_compression_parse(&ao.compression, compression, &err) < 0)
    return cli_usage_error(usage, "%s", inlet_errmsg(&err));
  (void)cli_int(a, "expected-version", &ao.expected_version);
  ao.threads = cli_threads(a);
  if (app_id) {
    ao.app_id = app_id;
    ao.app_version = app_version;
  }
  if (format && strcasecmp(format, "ndjson") != 0 && strcasecmp(format, "csv") != 0 &&
      strcasecmp(format, "parquet") != 0 && strcasecmp(format, "jsonl") != 0)
    return cli_usage_error(usage, "--format: expected ndjson, csv or parquet, got '%s'", format);

  inlet_table *t = NULL;
  inlet_snapshot *s = NULL;
  inlet_table_writer *w = NULL;
  inlet_schema ts;
  inlet_schema_init(&ts);
  int64_t rows = 0, version = -1, bad = 0, ignored = 0, records = 0, added = 0, widened = 0;
  int attempts = 0;
  char metrics[160] = "{}";
  ao.extra_metrics_json = metrics; /* read at commit */
  if (cli_table_open(a, pos[0], &t, &err) < 0) {
    rc = cli_fail(&err);
    goto done;
  }
again:
  if (inlet_table_snapshot(&s, t, &err) < 0 || inlet_table_writer_open(&w, t, &ao, &err) < 0) {
    rc = cli_fail(&err);
    goto done;
  }
  for (int i = 1; evolve && i < n_pos; i++) {
    if ((rc = evolve_from_file(w, pos[i], &added, &widened, &err)) < 0) {
      rc = err.message[0] ? cli_fail_fmt(&err, "%s: %s", pos[i], inlet_errmsg(&err))
                          : cli_exit_code(rc);
      goto done;
    }
  }
  if (inlet_schema_copy(&ts, inlet_table_writer_schema(w), &err) < 0) {
    rc = cli_fail(&err);
    goto done;
  }
  for (int i = 1; i < n_pos; i++) {
    const char *path = pos[i];
    bool is_parquet = format ? strcasecmp(format, "parquet") == 0 : ends_with(path, ".parquet");
    bool is_csv = format ? strcasecmp(format, "csv") == 0 : ends_with(path, ".csv");
    if (is_parquet) {
      if (append_parquet(w, &ts, path, &rows, &err) < 0) {
        rc = err.message[0] ? cli_fail_fmt(&err, "%s: %s", path, inlet_errmsg(&err)) : CLI_FAIL;
        goto done;
      }
      continue;
    }
    /* A percentage is judged over all the records at the end: skip meanwhile. */
    bad_ctx bc = {skip_bad || max_pct >= 0 || max_n >= 0, path, 0, bad, max_n};
    inlet_text_reader_options ro = INLET_TEXT_READER_OPTIONS_INIT;
    ro.format = is_csv ? INLET_TEXT_CSV : INLET_TEXT_NDJSON;
    ro.strict = !ignore_unknown;
    ro.strict_types = !coerce;
    ro.on_bad_record = on_bad;
    ro.ctx = &bc;
    if (inlet_snapshot_num_partition_columns(s) > 0) {
      ro.row_check = check_row;
      ro.row_check_ctx = w;
    }
    inlet_text_reader *r = NULL;
    if (inlet_text_reader_open_path(&r, path, &ts, &ro, &err) < 0) {
      rc = cli_fail_fmt(&err, "%s: %s", path, inlet_errmsg(&err));
      goto done;
    }
    inlet_batch b;
    memset(&b, 0, sizeof b);
    for (;;) {
      if (inlet_text_reader_next(r, &b, &err) < 0) {
        if (max_n >= 0 && bad + bc.count > max_n) {
          cli_error("append: %lld records rejected, more than --max-rejected %lld; nothing "
                    "committed",
                    (long long)(bad + bc.count), (long long)max_n);
          rc = CLI_REJECTED;
          break;
        }
        rc = cli_fail_fmt(&err, "%s: %s%s", path, inlet_errmsg(&err),
                          skip_bad || max_rejected ? ""
                                                   : " (use --skip-bad or --max-rejected to "
                                                     "skip bad records)");
        break;
      }
      if (b.num_rows == 0) break;
      if (inlet_table_writer_write(w, &b, &err) < 0) {
        rc = cli_fail_fmt(&err, "%s: %s", path, inlet_errmsg(&err));
        break;
      }
      rows += b.num_rows;
    }
    bad += bc.count;
    ignored += inlet_text_reader_ignored_fields(r);
    inlet_text_reader_stats st;
    inlet_text_reader_get_stats(r, &st);
    records += st.records;
    inlet_batch_reset(&b);
    inlet_text_reader_free(r);
    if (rc) goto done;
  }
  if (max_pct >= 0 && records > 0 && (double)bad * 100.0 > max_pct * (double)records) {
    cli_error("append: %lld of %lld records rejected, more than --max-rejected %g%%; nothing "
              "committed",
              (long long)bad, (long long)records, max_pct);
    rc = CLI_REJECTED;
    goto done;
  }
  snprintf(
      metrics, sizeof metrics,
      "{\"numRejectedRows\":\"%lld\",\"numIgnoredFields\":\"%lld\",\"numAddedFields\":\"%lld\"}",
      (long long)bad, (long long)ignored, (long long)added);
  if (inlet_table_writer_commit(w, &version, &err) < 0) {
    if (err.code == INLET_ECONFLICT && evolve && ++attempts < 10) {
      /* A concurrent metaData change (another writer's new columns): all
       * again on the table as it is now. */
      cli_log("warning", "conflict_retry", NULL, "append: %s; appending again", inlet_errmsg(&err));
      inlet_table_writer_free(w);
      w = NULL;
      inlet_snapshot_free(s);
      s = NULL;
      inlet_schema_reset(&ts);
      inlet_schema_init(&ts);
      rows = bad = ignored = records = added = widened = 0;
      inlet_error_clear(&err);
      goto again;
    }
    rc = cli_fail(&err);
    goto done;
  }
  printf("appended %lld rows to %s as version %lld", (long long)rows, pos[0], (long long)version);
  if (bad) printf(" (%lld bad records skipped)", (long long)bad);
  if (added) printf(" (%lld new field%s)", (long long)added, added == 1 ? "" : "s");
  if (widened) printf(" (%lld type%s widened)", (long long)widened, widened == 1 ? "" : "s");
  if (ignored)
    printf(" (%lld unknown field%s ignored)", (long long)ignored, ignored == 1 ? "" : "s");
  printf("\n");
done:
  inlet_table_writer_free(w);
  inlet_schema_reset(&ts);
  inlet_snapshot_free(s);
  inlet_table_free(t);
  return rc;
}

const cli_command cli_cmd_append = {"append",
                                    cmd_append,
                                    "TABLE FILE... [--format ndjson|csv|parquet] [--skip-bad]",
                                    "append the rows of files as one atomic commit",
                                    usage,
                                    opts,
                                    (int)(sizeof opts / sizeof opts[0]),
                                    1 << 20};
