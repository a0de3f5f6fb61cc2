/*
 * `inlet demo [DIR]`: a short end-to-end round trip that `make demo` runs.
 * It generates 200 seed-shaped events as NDJSON (event_id long not null,
 * user string, amount double with 2 decimals, event_time timestamp),
 * imports them through the text reader, writes DIR/events.parquet with the
 * Parquet writer, reads the file back row group by row group and checks the
 * row count, the event_id sum, the amount sum (in cents, exactly) and the
 * time range. It prints the evidence and exits non-zero if anything differs.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static const char usage[] = "usage: inlet demo [DIR]   (default DIR: inlet-demo)\n";

#define N_EVENTS 200
#define T0_MICROS 1700000000000000LL /* 2023-11-14T22:13:20Z */

static int mkdirs(const char *path) {
  char tmp[4096];
  if (strlen(path) >= sizeof tmp) return -1;
  strcpy(tmp, path);
  for (char *p = tmp + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(tmp, 0777) < 0 && errno != EEXIST) return -1;
    *p = '/';
  }
  return mkdir(tmp, 0777) < 0 && errno != EEXIST ? -1 : 0;
}

static int check(bool ok, const char *what, long long want, long long got) {
  printf("  %-28s expected %-16lld got %-16lld %s\n", what, want, got, ok ? "ok" : "MISMATCH");
  return ok ? 0 : 1;
}

int cmd_demo(int argc, char **argv) {
  const char *pos[1] = {"inlet-demo"};
  int n_pos;
  int rc = cli_parse(argc, argv, NULL, 0, pos, 1, &n_pos, usage);
  if (rc) return rc;
  const char *dir = n_pos ? pos[0] : "inlet-demo";
  if (mkdirs(dir) < 0) return cli_error("cannot create directory %s: %s", dir, strerror(errno));
  char ndjson_path[4200], pq_path[4200];
  snprintf(ndjson_path, sizeof ndjson_path, "%s/events.ndjson", dir);
  snprintf(pq_path, sizeof pq_path, "%s/events.parquet", dir);
  unlink(pq_path); /* the writer refuses to overwrite */

  /* 1. Generate events; remember what must come back. The ISO timestamps
   * are built by hand (1.5 s apart from 22:13:20Z) rather than by the
   * library's formatter, so the check does not trust the code it tests. */
  FILE *f = fopen(ndjson_path, "w");
  if (!f) return cli_error("cannot write %s: %s", ndjson_path, strerror(errno));
  long long want_id_sum = 0, want_cents = 0, want_min_t = 0, want_max_t = 0;
  for (int i = 0; i < N_EVENTS; i++) {
    long long id = 1000 + i;
    long long cents = (i * 7919LL) % 100000; /* 0.00 .. 999.99 */
    int secs = (i * 3) / 2, half = (i * 3) % 2;
    int s_total = 20 + secs, m_total = 13 + s_total / 60, h = 22 + m_total / 60;
    fprintf(f,
            "{\"event_id\":%lld,\"user\":\"user-%03d\",\"amount\":%lld.%02lld,"
            "\"event_time\":\"2023-11-14T%02d:%02d:%02d.%s+00:00\"}\n",
            id, i % 37, cents / 100, cents % 100, h, m_total % 60, s_total % 60,
            half ? "5" : "0");
    long long t = T0_MICROS + (long long)i * 1500000;
    want_id_sum += id;
    want_cents += cents;
    if (i == 0) want_min_t = t;
    want_max_t = t;
  }
  if (fclose(f) != 0) return cli_error("cannot write %s", ndjson_path);
  printf("inlet demo: %d events -> %s\n", N_EVENTS, ndjson_path);

  /* 2. NDJSON -> batches -> Parquet. */
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema schema;
  inlet_text_reader *r = NULL;
  inlet_parquet_writer *w = NULL;
  inlet_parquet_reader *pr = NULL;
  inlet_batch batch;
  memset(&batch, 0, sizeof batch);
  rc = CLI_FAIL;
  const char *ddl = "event_id long not null, user string, amount double, event_time timestamp";
  if (inlet_schema_parse(&schema, ddl, &err) < 0) return cli_fail(&err);
  if (inlet_text_reader_open_path(&r, ndjson_path, &schema, NULL, &err) < 0) goto fail;
  inlet_parquet_writer_options wo = INLET_PARQUET_WRITER_OPTIONS_INIT;
  wo.compression = INLET_COMPRESSION_ZSTD;
  if (inlet_parquet_writer_open(&w, pq_path, &schema, &wo, &err) < 0) goto fail;
  for (;;) {
    if (inlet_text_reader_next(r, &batch, &err) < 0) goto fail;
    if (batch.num_rows == 0) break;
    if (inlet_parquet_writer_write(w, &batch, &err) < 0) goto fail;
  }
  inlet_text_reader_stats st;
  inlet_text_reader_get_stats(r, &st);
  if (st.bad_records) {
    cli_error("demo: %lld generated records were rejected", (long long)st.bad_records);
    goto done;
  }
  if (inlet_parquet_writer_close(w, &err) < 0) goto fail;
  printf("wrote %s: %lld rows, %lld bytes (zstd)\n", pq_path,
         (long long)inlet_parquet_writer_rows(w), (long long)inlet_parquet_writer_bytes(w));

  /* 3. Read back and verify. */
  if (inlet_parquet_reader_open(&pr, pq_path, NULL, &err) < 0) goto fail;
  if (!inlet_schema_equal(inlet_parquet_reader_schema(pr), &schema)) {
    cli_error("demo: the schema read back differs from the one written");
    goto done;
  }
  long long rows = 0, id_sum = 0, cents = 0, min_t = INT64_MAX, max_t = INT64_MIN, nulls = 0;
  int32_t n_rg = inlet_parquet_reader_num_row_groups(pr);
  for (int32_t rg = 0; rg < n_rg; rg++) {
    if (inlet_parquet_reader_read_row_group(pr, rg, &batch, &err) < 0) goto fail;
    const int64_t *ids = (const int64_t *)batch.columns[0].values;
    const double *amt = (const double *)batch.columns[2].values;
    const int64_t *ts = (const int64_t *)batch.columns[3].values;
    for (int64_t i = 0; i < batch.num_rows; i++) {
      id_sum += ids[i];
      for (int c = 1; c < 4; c++) nulls += !inlet_array_is_valid(&batch.columns[c], i);
      if (inlet_array_is_valid(&batch.columns[2], i)) cents += llround(amt[i] * 100);
      if (inlet_array_is_valid(&batch.columns[3], i)) {
        if (ts[i] < min_t) min_t = ts[i];
        if (ts[i] > max_t) max_t = ts[i];
      }
    }
    rows += batch.num_rows;
    if (rg == 0 && batch.num_rows > 0) {
      printf("first rows:\n");
      inlet_text_writer_options to = INLET_TEXT_WRITER_OPTIONS_INIT;
      to.format = INLET_TEXT_TABLE;
      inlet_text_writer *tw = NULL;
      inlet_batch view = batch;
      view.num_rows = batch.num_rows < 3 ? batch.num_rows : 3;
      if (inlet_text_writer_new_file(&tw, &batch.schema, &to, stdout, &err) < 0 ||
          inlet_text_writer_write(tw, &view, &err) < 0 || inlet_text_writer_finish(tw, &err) < 0) {
        inlet_text_writer_free(tw);
        goto fail;
      }
      inlet_text_writer_free(tw);
    }
  }
  printf("read back %s (%d row group%s):\n", pq_path, (int)n_rg, n_rg == 1 ? "" : "s");
  int bad = 0;
  bad += check(rows == N_EVENTS, "rows", N_EVENTS, rows);
  bad += check(nulls == 0, "nulls", 0, nulls);
  bad += check(id_sum == want_id_sum, "sum(event_id)", want_id_sum, id_sum);
  bad += check(cents == want_cents, "sum(amount) in cents", want_cents, cents);
  bad += check(min_t == want_min_t, "min(event_time) micros", want_min_t, min_t);
  bad += check(max_t == want_max_t, "max(event_time) micros", want_max_t, max_t);
  if (bad) {
    cli_error("demo: %d check%s failed", bad, bad == 1 ? "" : "s");
    goto done;
  }
  printf("demo OK: %s round-trips %d events\n", pq_path, N_EVENTS);
  rc = CLI_OK;
  goto done;
fail:
  cli_error("demo: %s", inlet_errmsg(&err));
done:
  inlet_parquet_reader_free(pr);
  inlet_parquet_writer_free(w);
  inlet_text_reader_free(r);
  inlet_batch_reset(&batch);
  inlet_schema_reset(&schema);
  return rc;
}
