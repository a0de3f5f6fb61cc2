/*
 * White-box tests of src/stream: batching triggers, position text and txn
 * names, watermark classification and restore, durations, the watermark
 * split, redis URLs, and the file source (record splitting, positions,
 * oversize records, unterminated tails, CSV quoting, resume, rotation).
 */
#include "testutil.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stream/stream.h"
#include "util/pool.h"
#include "util/util.h"

/* ---- triggers ------------------------------------------------------------- */

static stream_trigger trig(int64_t rows, int64_t bytes, int64_t lat) {
  stream_trigger t;
  memset(&t, 0, sizeof t);
  t.max_rows = rows;
  t.max_bytes = bytes;
  t.max_latency_ms = lat;
  stream_trigger_reset(&t);
  return t;
}

static void test_trigger__empty_batch_never_due(void **state) {
  (void)state;
  stream_trigger t = trig(10, 100, 50);
  assert_false(stream_trigger_due(&t, 1000000));
  assert_int_equal(stream_trigger_wait_ms(&t, 5), 50);
}

static void test_trigger__rows_limit_fires_first(void **state) {
  (void)state;
  stream_trigger t = trig(3, 1 << 20, 10000);
  for (int i = 0; i < 2; i++)
    stream_trigger_add(&t, 1, 10, 100);
  assert_false(stream_trigger_due(&t, 100));
  stream_trigger_add(&t, 1, 10, 100);
  assert_true(stream_trigger_due(&t, 100));
}

static void test_trigger__bytes_count_rejected_records_too(void **state) {
  (void)state;
  stream_trigger t = trig(1000, 100, 10000);
  stream_trigger_add(&t, 0, 60, 0); /* a bad record: bytes, no row */
  assert_false(stream_trigger_due(&t, 0));
  stream_trigger_add(&t, 1, 40, 0);
  assert_true(stream_trigger_due(&t, 0));
  assert_int_equal(t.rows, 1);
}

static void test_trigger__latency_counts_from_first_record(void **state) {
  (void)state;
  stream_trigger t = trig(1000, 1 << 20, 200);
  stream_trigger_add(&t, 1, 1, 1000);
  stream_trigger_add(&t, 1, 1, 1150);
  assert_false(stream_trigger_due(&t, 1199));
  assert_int_equal(stream_trigger_wait_ms(&t, 1150), 50);
  assert_true(stream_trigger_due(&t, 1200));
  stream_trigger_reset(&t);
  assert_false(stream_trigger_due(&t, 5000));
}

/* ---- positions -------------------------------------------------------------- */

static void test_pos__format_per_kind(void **state) {
  (void)state;
  char b[96];
  stream_pos p = {true, {42, 1234, 99}};
  stream_pos_format(b, sizeof b, STREAM_FILE, &p);
  assert_string_equal(b, "i42-o1234");
  stream_pos_format(b, sizeof b, STREAM_REDIS, &p);
  assert_string_equal(b, "42-1234");
  stream_pos_format(b, sizeof b, STREAM_STDIN, &p);
  assert_string_equal(b, "o1234");
  stream_pos none = {false, {0, 0, 0}};
  stream_pos_format(b, sizeof b, STREAM_FILE, &none);
  assert_string_equal(b, "start");
}

static void test_pos__txn_names_and_fingerprint(void **state) {
  (void)state;
  char b[64];
  stream_txn_name(b, sizeof b, "app", "#p1");
  assert_string_equal(b, "app#p1");
  int64_t a = stream_fingerprint("hello", 5), c = stream_fingerprint("hellp", 5);
  assert_true(a >= 0 && c >= 0);
  assert_true(a != c);
  assert_true(a == stream_fingerprint("hello", 5));
}

static void test_pos__default_app_id_is_absolute(void **state) {
  (void)state;
  char b[512];
  assert_true(inlet_ingest_default_app_id(b, sizeof b, "stdin") > 0);
  assert_string_equal(b, "inlet-ingest:stdin");
  inlet_ingest_default_app_id(b, sizeof b, "redis://h:1/s");
  assert_string_equal(b, "inlet-ingest:redis://h:1/s");
  char cwd[400];
  assert_non_null(getcwd(cwd, sizeof cwd));
  tu_write_file("appid.ndjson", "", 0);
  inlet_ingest_default_app_id(b, sizeof b, "file:appid.ndjson");
  char want[512];
  snprintf(want, sizeof want, "inlet-ingest:file:%s/appid.ndjson", cwd);
  assert_string_equal(b, want);
  unlink("appid.ndjson");
}

/* ---- watermark ---------------------------------------------------------------- */

static void test_watermark__late_is_before_watermark_in_force(void **state) {
  (void)state;
  stream_watermark w;
  stream_watermark_init(&w, 10, INT64_MIN);
  assert_false(stream_watermark_observe(&w, 100)); /* wm -> 90 */
  assert_int_equal(w.value, 90);
  assert_false(stream_watermark_observe(&w, 95)); /* >= 90: on time; wm stays */
  assert_int_equal(w.value, 90);
  assert_false(stream_watermark_observe(&w, 90));  /* equal: on time */
  assert_true(stream_watermark_observe(&w, 89));   /* late */
  assert_false(stream_watermark_observe(&w, 200)); /* wm -> 190 */
  assert_true(stream_watermark_observe(&w, 150));
}

static void test_watermark__restore_classifies_like_first_run(void **state) {
  (void)state;
  const int64_t ev[] = {1000, 1200, 900, 1100, 1500, 1390, 1380, 2000, 1000};
  bool first[9], second[9];
  stream_watermark w;
  stream_watermark_init(&w, 120, INT64_MIN);
  int64_t saved = 0;
  for (int i = 0; i < 9; i++) {
    first[i] = stream_watermark_observe(&w, ev[i]);
    if (i == 4) saved = w.value; /* "committed" after row 4 */
  }
  stream_watermark_init(&w, 120, INT64_MIN);
  for (int i = 0; i < 5; i++)
    second[i] = stream_watermark_observe(&w, ev[i]);
  stream_watermark_init(&w, 120, saved); /* restart */
  for (int i = 5; i < 9; i++)
    second[i] = stream_watermark_observe(&w, ev[i]);
  for (int i = 0; i < 9; i++)
    assert_int_equal(first[i], second[i]);
  assert_true(first[2]);  /* 900 < 1080 */
  assert_false(first[6]); /* 1380 == wm (1500 - 120): on time */
  assert_true(first[8]);  /* 1000 < 1880 */
}

static void test_duration__units_and_errors(void **state) {
  (void)state;
  int64_t us;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_ingest_parse_duration(&us, "250ms", &err), 0);
  assert_int_equal(us, 250000);
  assert_int_equal(inlet_ingest_parse_duration(&us, "1h30m", &err), 0);
  assert_int_equal(us, 5400000000LL);
  /* A bare number is ambiguous (it meant s here, ms for vacuum): refused. */
  assert_int_equal(inlet_ingest_parse_duration(&us, "7", &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "no unit"));
  assert_int_equal(inlet_ingest_parse_duration(&us, "7s", &err), 0);
  assert_int_equal(us, 7000000);
  assert_int_equal(inlet_ingest_parse_duration(&us, "2d", &err), 0);
  assert_int_equal(us, 172800000000LL);
  assert_int_equal(inlet_ingest_parse_duration(&us, "5x", &err), INLET_EINVAL);
  assert_int_equal(inlet_ingest_parse_duration(&us, "", &err), INLET_EINVAL);
  assert_int_equal(inlet_ingest_parse_duration(&us, "-5s", &err), INLET_EINVAL);
  assert_int_equal(inlet_ingest_parse_duration(&us, "99999999999999999999s", &err), INLET_EINVAL);
}

static void test_split__on_time_and_late_partition_rows(void **state) {
  (void)state;
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, "id long, t timestamp", &err), 0);
  inlet_batch b;
  assert_int_equal(inlet_batch_init(&b, &s, &err), 0);
  const int64_t ts[] = {100, 50, 200, 99};
  for (int i = 0; i < 4; i++) {
    inlet_array_append_int(&b.columns[0], &s.fields[0], i, &err);
    inlet_array_append_int(&b.columns[1], &s.fields[1], ts[i], &err);
  }
  inlet_array_append_int(&b.columns[0], &s.fields[0], 4, &err);
  inlet_array_append_null(&b.columns[1], &s.fields[1], &err);
  b.num_rows = 5;
  uint8_t on[1], late[1];
  assert_int_equal(inlet_watermark_split(on, &b, "t", 100, false, &err), 3);
  assert_int_equal(inlet_watermark_split(late, &b, "t", 100, true, &err), 2);
  assert_int_equal(on[0], 0x01 | 0x04 | 0x10);
  assert_int_equal(late[0], 0x02 | 0x08);
  assert_int_equal(inlet_watermark_split(on, &b, "nope", 0, false, &err), INLET_ENOTFOUND);
  assert_int_equal(inlet_watermark_split(on, &b, "id", 0, false, &err), INLET_EINVAL);
  inlet_batch_reset(&b);
  inlet_schema_reset(&s);
}

static void test_generated__expressions_ingest_computes(void **state) {
  (void)state;
  char col[64];
  assert_int_equal(stream_generation_kind("CAST(eventTime AS DATE)", col, sizeof col), GEN_DATE);
  assert_string_equal(col, "eventTime");
  assert_int_equal(stream_generation_kind("cast( `event time` as date )", col, sizeof col),
                   GEN_DATE);
  assert_string_equal(col, "event time");
  assert_int_equal(stream_generation_kind("to_date(ts)", col, sizeof col), GEN_DATE);
  assert_int_equal(stream_generation_kind("date_format(ts, 'yyyy-MM-dd')", col, sizeof col),
                   GEN_DAY_STRING);
  assert_int_equal(stream_generation_kind("DATE_FORMAT(ts,'yyyy-MM-dd-HH')", col, sizeof col),
                   GEN_HOUR_STRING);
  assert_int_equal(stream_generation_kind("date_trunc('HOUR', ts)", col, sizeof col), GEN_HOUR_TS);
  assert_string_equal(col, "ts");
  assert_int_equal(stream_generation_kind("date_format(ts, 'MM/dd')", col, sizeof col), 0);
  assert_int_equal(stream_generation_kind("CAST(ts AS STRING)", col, sizeof col), 0);
  assert_int_equal(stream_generation_kind("year(ts)", col, sizeof col), 0);
  assert_int_equal(stream_generation_kind("to_date()", col, sizeof col), 0);
  assert_int_equal(stream_generation_kind("to_date(ts) + 1", col, sizeof col), 0);
}

static void test_redis__url_parsing(void **state) {
  (void)state;
  char host[64], key[64];
  int port;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(stream_redis_parse_url(host, sizeof host, &port, key, sizeof key,
                                          "redis://127.0.0.1:7000/events", &err),
                   0);
  assert_string_equal(host, "127.0.0.1");
  assert_int_equal(port, 7000);
  assert_string_equal(key, "events");
  assert_int_equal(
      stream_redis_parse_url(host, sizeof host, &port, key, sizeof key, "redis://h/s", &err), 0);
  assert_int_equal(port, 6379);
  assert_int_equal(
      stream_redis_parse_url(host, sizeof host, &port, key, sizeof key, "redis://h:0/s", &err),
      INLET_EINVAL);
  assert_int_equal(
      stream_redis_parse_url(host, sizeof host, &port, key, sizeof key, "redis://h:1/", &err),
      INLET_EINVAL);
  assert_int_equal(
      stream_redis_parse_url(host, sizeof host, &port, key, sizeof key, "http://h/s", &err),
      INLET_EINVAL);
  /* IPv6 in brackets; the slashes around the stream are not part of its name. */
  assert_int_equal(stream_redis_parse_url(host, sizeof host, &port, key, sizeof key,
                                          "redis://[::1]:7001//a/b/", &err),
                   0);
  assert_string_equal(host, "::1");
  assert_int_equal(port, 7001);
  assert_string_equal(key, "a/b");
  assert_int_equal(
      stream_redis_parse_url(host, sizeof host, &port, key, sizeof key, "redis://h:12x/s", &err),
      INLET_EINVAL);
  assert_int_equal(
      stream_redis_parse_url(host, sizeof host, &port, key, sizeof key, "redis://[::1/s", &err),
      INLET_EINVAL);
  assert_int_equal(
      stream_redis_parse_url(host, sizeof host, &port, key, sizeof key, "redis://h///", &err),
      INLET_EINVAL);
}

/* ---- file source ----------------------------------------------------------------- */

/* A file source from offset 0; @p pool: it reads ahead there (NULL: not). */
static stream_source *open_file_pool(const char *path, inlet_text_format fmt, bool follow,
                                     int64_t max_rec, bool final, util_pool *pool) {
  stream_source_options o = {.format = fmt,
                             .follow = follow,
                             .once = false,
                             .max_record_bytes = max_rec,
                             .poll_ms = 10,
                             .final = final,
                             .pool = pool};
  stream_source *s = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(stream_file_open(&s, path, false, &o, &err), 0);
  inlet_buf warn = INLET_BUF_INIT;
  stream_pos start = {false, {0, 0, 0}};
  assert_int_equal(s->ops->seek(s, &start, &warn, &err), 0);
  inlet_buf_reset(&warn);
  return s;
}

static stream_source *open_file_opts(const char *path, inlet_text_format fmt, bool follow,
                                     int64_t max_rec, bool final) {
  return open_file_pool(path, fmt, follow, max_rec, final, NULL);
}

static stream_source *open_file(const char *path, inlet_text_format fmt, bool follow,
                                int64_t max_rec) {
  return open_file_opts(path, fmt, follow, max_rec, false);
}

static int next(stream_source *s, stream_record *r) {
  inlet_error err = INLET_ERROR_INIT;
  return s->ops->next(s, r, 0, &err);
}

static void test_file__records_positions_and_blank_lines(void **state) {
  (void)state;
  const char *text = "{\"a\":1}\n\n{\"a\":2}\r\n{\"a\":3}";
  tu_write_file("f1.ndjson", text, strlen(text));
  struct stat st;
  stat("f1.ndjson", &st);
  stream_source *s = open_file_opts("f1.ndjson", INLET_TEXT_NDJSON, false, 1000, true);
  stream_record r;
  assert_int_equal(next(s, &r), STREAM_RECORD);
  assert_int_equal(r.len, 7);
  assert_memory_equal(r.data, "{\"a\":1}", 7);
  assert_int_equal(r.pos.p[0], (int64_t)st.st_ino);
  assert_int_equal(r.pos.p[1], 8);
  assert_int_equal(r.offset, 0);
  assert_int_equal(next(s, &r), STREAM_RECORD); /* blank line skipped */
  assert_memory_equal(r.data, "{\"a\":2}", 7);
  assert_int_equal(r.len, 7); /* CR stripped */
  assert_int_equal(r.offset, 9);
  assert_int_equal(r.pos.p[1], 18);
  assert_int_equal(next(s, &r), STREAM_RECORD); /* unterminated tail, final input */
  assert_int_equal(r.len, 7);
  assert_int_equal(r.pos.p[1], (int64_t)strlen(text));
  assert_int_equal(next(s, &r), STREAM_END);
  s->ops->free(s);
  unlink("f1.ndjson");
}

static void test_file__follow_waits_for_the_newline(void **state) {
  (void)state;
  tu_write_file("f2.ndjson", "{\"a\":1}\n{\"a\"", 12);
  stream_source *s = open_file("f2.ndjson", INLET_TEXT_NDJSON, true, 1000);
  stream_record r;
  assert_int_equal(next(s, &r), STREAM_RECORD);
  assert_int_equal(next(s, &r), STREAM_NONE); /* partial line is not a record yet */
  FILE *f = fopen("f2.ndjson", "a");
  fputs(":2}\n", f);
  fclose(f);
  assert_int_equal(next(s, &r), STREAM_RECORD);
  assert_int_equal(r.len, 7);
  assert_int_equal(r.pos.p[1], 16);
  s->ops->free(s);
  unlink("f2.ndjson");
}

static void test_file__oversize_record_is_reported_not_held(void **state) {
  (void)state;
  char *big = malloc(3 << 20);
  memset(big, 'x', 3 << 20);
  big[0] = '{';
  FILE *f = fopen("f3.ndjson", "w");
  fputs("{\"a\":1}\n", f);
  fwrite(big, 1, 3 << 20, f);
  fputs("\n{\"a\":2}\n", f);
  fclose(f);
  free(big);
  stream_source *s = open_file("f3.ndjson", INLET_TEXT_NDJSON, false, 1000);
  stream_record r;
  assert_int_equal(next(s, &r), STREAM_RECORD);
  assert_false(r.oversize);
  assert_int_equal(next(s, &r), STREAM_RECORD);
  assert_true(r.oversize);
  assert_true(r.len <= 256);
  assert_int_equal(r.offset, 8);
  assert_int_equal(r.pos.p[1], 8 + (3 << 20) + 1);
  assert_int_equal(next(s, &r), STREAM_RECORD);
  assert_false(r.oversize);
  assert_memory_equal(r.data, "{\"a\":2}", 7);
  assert_int_equal(next(s, &r), STREAM_END);
  s->ops->free(s);
  unlink("f3.ndjson");
}

static void test_file__csv_header_and_quoted_newline(void **state) {
  (void)state;
  const char *text = "a,b\n1,\"x\ny\"\n2,z\n";
  tu_write_file("f4.csv", text, strlen(text));
  stream_source *s = open_file("f4.csv", INLET_TEXT_CSV, false, 1000);
  stream_record r;
  assert_int_equal(next(s, &r), STREAM_RECORD);
  assert_true(r.header);
  assert_memory_equal(r.data, "a,b", 3);
  assert_int_equal(next(s, &r), STREAM_RECORD);
  assert_false(r.header);
  assert_int_equal(r.len, 7);
  assert_int_equal(r.pos.p[1], 12);
  /* Resume after the first record: the header comes first again. */
  inlet_buf warn = INLET_BUF_INIT;
  inlet_error err = INLET_ERROR_INIT;
  stream_pos p = r.pos;
  assert_int_equal(s->ops->finish_pos(s, &p, &err), 0);
  stream_source *s2 = NULL;
  stream_source_options o = {.format = INLET_TEXT_CSV,
                             .follow = false,
                             .once = false,
                             .max_record_bytes = 1000,
                             .poll_ms = 10,
                             .final = false};
  assert_int_equal(stream_file_open(&s2, "f4.csv", false, &o, &err), 0);
  assert_int_equal(s2->ops->seek(s2, &p, &warn, &err), 0);
  assert_int_equal(warn.len, 0);
  assert_int_equal(next(s2, &r), STREAM_RECORD);
  assert_true(r.header);
  assert_memory_equal(r.data, "a,b", 3);
  assert_int_equal(next(s2, &r), STREAM_RECORD);
  assert_memory_equal(r.data, "2,z", 3);
  s->ops->free(s);
  s2->ops->free(s2);
  inlet_buf_reset(&warn);
  unlink("f4.csv");
}

static void test_file__resume_finishes_rotated_file_then_new_one(void **state) {
  (void)state;
  mkdir("rot", 0777);
  tu_write_file("rot/log", "{\"n\":1}\n{\"n\":2}\n", 16);
  stream_source *s = open_file("rot/log", INLET_TEXT_NDJSON, false, 1000);
  stream_record r;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(next(s, &r), STREAM_RECORD);
  stream_pos p = r.pos;
  assert_int_equal(s->ops->finish_pos(s, &p, &err), 0);
  assert_true(p.p[2] != 0);
  s->ops->free(s);
  /* Rotation while the ingester was down. */
  assert_int_equal(rename("rot/log", "rot/log.1"), 0);
  tu_write_file("rot/log", "{\"n\":3}\n", 8);
  stream_source_options o = {.format = INLET_TEXT_NDJSON,
                             .follow = false,
                             .once = false,
                             .max_record_bytes = 1000,
                             .poll_ms = 10,
                             .final = false};
  assert_int_equal(stream_file_open(&s, "rot/log", false, &o, &err), 0);
  inlet_buf warn = INLET_BUF_INIT;
  assert_int_equal(s->ops->seek(s, &p, &warn, &err), 0);
  assert_true(warn.len > 0); /* says where it resumes */
  assert_int_equal(next(s, &r), STREAM_RECORD);
  assert_memory_equal(r.data, "{\"n\":2}", 7);
  assert_int_equal(next(s, &r), STREAM_RECORD);
  assert_memory_equal(r.data, "{\"n\":3}", 7);
  assert_int_equal(next(s, &r), STREAM_END);
  s->ops->free(s);
  inlet_buf_reset(&warn);
  unlink("rot/log");
  unlink("rot/log.1");
  rmdir("rot");
}

static void test_file__follow_survives_rotation_by_rename(void **state) {
  (void)state;
  mkdir("rot2", 0777);
  tu_write_file("rot2/log", "{\"n\":1}\n", 8);
  stream_source *s = open_file("rot2/log", INLET_TEXT_NDJSON, true, 1000);
  stream_record r;
  assert_int_equal(next(s, &r), STREAM_RECORD);
  FILE *f = fopen("rot2/log", "a");
  fputs("{\"n\":2}", f); /* unterminated when rotated: still a record */
  fclose(f);
  assert_int_equal(rename("rot2/log", "rot2/log.1"), 0);
  tu_write_file("rot2/log", "{\"n\":3}\n", 8);
  assert_int_equal(next(s, &r), STREAM_RECORD);
  assert_memory_equal(r.data, "{\"n\":2}", 7);
  assert_int_equal(next(s, &r), STREAM_RECORD);
  assert_memory_equal(r.data, "{\"n\":3}", 7);
  assert_int_equal(r.pos.p[1], 8);
  assert_int_equal(next(s, &r), STREAM_NONE);
  s->ops->free(s);
  unlink("rot2/log");
  unlink("rot2/log.1");
  rmdir("rot2");
}

static void test_file__reused_inode_with_other_content_restarts(void **state) {
  (void)state;
  tu_write_file("f5.ndjson", "{\"n\":1}\n{\"n\":2}\n", 16);
  struct stat st;
  stat("f5.ndjson", &st);
  stream_pos p = {true, {(int64_t)st.st_ino, 8, 12345}}; /* wrong fingerprint */
  stream_source_options o = {.format = INLET_TEXT_NDJSON,
                             .follow = false,
                             .once = false,
                             .max_record_bytes = 1000,
                             .poll_ms = 10,
                             .final = false};
  stream_source *s = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(stream_file_open(&s, "f5.ndjson", false, &o, &err), 0);
  inlet_buf warn = INLET_BUF_INIT;
  assert_int_equal(s->ops->seek(s, &p, &warn, &err), 0);
  assert_true(warn.len > 0);
  stream_record r;
  assert_int_equal(next(s, &r), STREAM_RECORD);
  assert_memory_equal(r.data, "{\"n\":1}", 7);
  s->ops->free(s);
  inlet_buf_reset(&warn);
  unlink("f5.ndjson");
}

/* ---- file source: truncation, replacement, half lines (issue 12) ------------------ */

/* Writes lines {"n":from}..{"n":to-1} (each 16 bytes: {"n":1000000}\n style
 * padded) to @p path, appending when @p append. Returns the bytes written. */
static int64_t write_lines(const char *path, int from, int to, bool append) {
  FILE *f = fopen(path, append ? "a" : "w");
  assert_non_null(f);
  int64_t n = 0;
  for (int i = from; i < to; i++)
    n += fprintf(f, "{\"n\":%09d}\n", i);
  fclose(f);
  return n;
}

/* Reads every record available now; returns how many, the last position in
 * *@p last (finished), and the first record's number in *@p first. */
static int drain(stream_source *s, stream_pos *last, int *first) {
  stream_record r;
  inlet_error err = INLET_ERROR_INIT;
  int n = 0, rc;
  while ((rc = s->ops->next(s, &r, 0, &err)) == STREAM_RECORD) {
    if (n == 0 && first) *first = atoi(r.data + 5);
    n++;
    if (last) *last = r.pos;
  }
  assert_true(rc == STREAM_END || rc == STREAM_NONE);
  if (last && n) assert_int_equal(s->ops->finish_pos(s, last, &err), 0);
  return n;
}

static stream_source *resume_at(const char *path, const stream_pos *p, bool follow,
                                inlet_buf *warn) {
  stream_source_options o = {.format = INLET_TEXT_NDJSON,
                             .follow = follow,
                             .once = false,
                             .max_record_bytes = 1000,
                             .poll_ms = 10,
                             .final = false};
  stream_source *s = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(stream_file_open(&s, path, false, &o, &err), 0);
  assert_int_equal(s->ops->seek(s, p, warn, &err), 0);
  inlet_buf_terminate(warn);
  return s;
}

static const char *notice_text(stream_source *s) {
  inlet_buf_terminate(&s->notice);
  return s->notice.data ? (const char *)s->notice.data : "";
}

/* ---- read-ahead on the pool ------------------------------------------------ */

/* A file of @p mib MiB (about) of records of every length class, in @p fmt:
 * short records, records longer than the read-ahead's 64 KiB room (so a
 * swap is refused and the buffer is read as without it), oversize records
 * (over @p max_rec), blank lines, CRLF ends, CSV quoted newlines; seeded so
 * that runs are alike. Appends when @p append. Returns the bytes written. */
static int64_t write_varied(const char *path, inlet_text_format fmt, int mib, uint32_t seed,
                            bool append, int64_t max_rec) {
  FILE *f = fopen(path, append ? "a" : "w");
  assert_non_null(f);
  uint32_t x = seed;
  int64_t n = 0, i = 0;
  char *pad = malloc((size_t)max_rec * 2);
  assert_non_null(pad);
  memset(pad, 'p', (size_t)max_rec * 2);
  if (fmt == INLET_TEXT_CSV && !append) n += fprintf(f, "id,text\n");
  while (n < (int64_t)mib << 20) {
    x = x * 1103515245u + 12345u;
    uint32_t r = (x >> 8) % 3000;
    int len = r < 6    ? (int)(max_rec + max_rec / 2) /* oversize */
              : r < 7  ? 70000 + (int)(x % 5000)      /* longer than the room */
              : r < 45 ? 0                            /* blank line */
                       : (int)(x % 400);
    const char *end = r % 7 == 0 ? "\r\n" : "\n";
    if (len == 0) {
      n += fprintf(f, "%s", end);
    } else if (fmt == INLET_TEXT_CSV) {
      /* A quoted field with a newline inside: one record over two lines. */
      n += fprintf(f, "%lld,\"%.*s\n%.*s\"%s", (long long)i, len / 2, pad, len - len / 2, pad, end);
    } else {
      n += fprintf(f, "{\"id\":%lld,\"t\":\"%.*s\"}%s", (long long)i, len, pad, end);
    }
    i++;
  }
  free(pad);
  fclose(f);
  return n;
}

/* Two sources over one file, one reading ahead on @p pool: next() in step,
 * the same result, record bytes, offsets, positions and flags each time,
 * until both say STREAM_END or STREAM_NONE. Returns the records read. */
static int64_t in_step(stream_source *a, stream_source *b) {
  inlet_error ea = INLET_ERROR_INIT, eb = INLET_ERROR_INIT;
  int64_t n = 0;
  for (;;) {
    stream_record ra, rb;
    int rca = a->ops->next(a, &ra, 0, &ea), rcb = b->ops->next(b, &rb, 0, &eb);
    assert_int_equal(rca, rcb);
    if (rca != STREAM_RECORD) {
      assert_true(rca == STREAM_END || rca == STREAM_NONE);
      return n;
    }
    assert_int_equal(ra.len, rb.len);
    assert_memory_equal(ra.data, rb.data, ra.len);
    assert_int_equal(ra.offset, rb.offset);
    assert_int_equal(ra.bytes, rb.bytes);
    assert_int_equal(ra.oversize, rb.oversize);
    assert_int_equal(ra.header, rb.header);
    assert_int_equal(ra.pos.valid, rb.pos.valid);
    for (int k = 0; k < STREAM_POS_PARTS; k++)
      assert_int_equal(ra.pos.p[k], rb.pos.p[k]);
    n++;
  }
}

static stream_source *open_pooled(const char *path, inlet_text_format fmt, bool follow,
                                  int64_t max_rec, util_pool *pool) {
  return open_file_pool(path, fmt, follow, max_rec, !follow, pool);
}

/* What a stdin source reads: each record's bytes (a checksum), offset,
 * byte count, flags and position, in order. */
typedef struct rec_digest {
  uint64_t sum;
  int64_t len, offset, bytes, pos1;
  bool oversize, valid;
} rec_digest;

static int64_t read_stdin_digests(util_pool *pool, rec_digest *out, int64_t cap,
                                  int64_t *read_ahead) {
  stream_source_options o = {.format = INLET_TEXT_NDJSON,
                             .max_record_bytes = 20000,
                             .poll_ms = 10,
                             .final = true,
                             .pool = pool};
  stream_source *s = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(stream_file_open(&s, NULL, true, &o, &err), 0);
  inlet_buf warn = INLET_BUF_INIT;
  stream_pos start = {false, {0, 0, 0}};
  assert_int_equal(s->ops->seek(s, &start, &warn, &err), 0);
  inlet_buf_reset(&warn);
  int64_t n = 0;
  stream_record r;
  int rc;
  while ((rc = s->ops->next(s, &r, 0, &err)) == STREAM_RECORD) {
    assert_true(n < cap);
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < r.len; i++)
      h = (h ^ (uint8_t)r.data[i]) * 1099511628211u;
    out[n++] =
        (rec_digest){h, (int64_t)r.len, r.offset, r.bytes, r.pos.p[1], r.oversize, r.pos.valid};
  }
  assert_true(rc == STREAM_END || rc == STREAM_NONE);
  *read_ahead = s->bytes_read_ahead;
  s->ops->free(s);
  return n;
}

/* A pipe on stdin is widened so that its writer can run ahead of the
 * ingester (64 KiB by default; asked for 1 MiB, the default cap of
 * /proc/sys/fs/pipe-max-size), and reads as before. */
static void test_file__stdin_pipe_is_widened(void **state) {
  (void)state;
  int p[2];
  assert_int_equal(pipe(p), 0);
  int saved = dup(0);
  assert_true(saved >= 0);
  assert_int_equal(dup2(p[0], 0), 0);
  close(p[0]);
  int before = fcntl(p[1], F_GETPIPE_SZ);
  assert_true(before > 0);
  long cap = 1 << 20;
  FILE *mf = fopen("/proc/sys/fs/pipe-max-size", "r");
  if (mf) {
    long m = 0;
    if (fscanf(mf, "%ld", &m) == 1 && m < cap) cap = m;
    fclose(mf);
  }
  stream_source_options o = {
      .format = INLET_TEXT_NDJSON, .max_record_bytes = 1000, .poll_ms = 10, .final = true};
  stream_source *s = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(stream_file_open(&s, NULL, true, &o, &err), 0);
  int after = fcntl(p[1], F_GETPIPE_SZ);
  print_message("pipe: %d -> %d bytes (cap %ld)\n", before, after, cap);
  assert_true(after >= cap && after >= before);
  /* More than the default 64 KiB fits before anyone reads (within what
   * the pipe now holds, or the writes would wait for a reader). */
  const size_t fill = (size_t)after - 1024 < 200000 ? (size_t)after - 1024 : 200000;
  char line[64];
  int n_lines = 0;
  for (size_t w = 0; w < fill; n_lines++) {
    int len = snprintf(line, sizeof line, "{\"i\":%d}\n", n_lines);
    assert_int_equal(write(p[1], line, (size_t)len), len);
    w += (size_t)len;
  }
  close(p[1]);
  inlet_buf warn = INLET_BUF_INIT;
  stream_pos start = {false, {0, 0, 0}};
  assert_int_equal(s->ops->seek(s, &start, &warn, &err), 0);
  inlet_buf_reset(&warn);
  stream_record r;
  int rc, got = 0;
  while ((rc = s->ops->next(s, &r, 0, &err)) == STREAM_RECORD) {
    int len = snprintf(line, sizeof line, "{\"i\":%d}", got++);
    assert_int_equal((int)r.len, len);
    assert_memory_equal(r.data, line, (size_t)len);
  }
  assert_true(rc == STREAM_END || rc == STREAM_NONE);
  assert_int_equal(got, n_lines);
  s->ops->free(s);
  assert_int_equal(dup2(saved, 0), 0);
  close(saved);
}

/* A file redirected to stdin is read ahead on a pool like a path, from
 * where its offset stood (here mid-record, as after a shell read part of
 * it): the records, offsets and positions are those read without a pool. */
static void test_file__stdin_from_a_file_reads_ahead_alike(void **state) {
  (void)state;
  util_pool *pool = NULL;
  assert_int_equal(util_pool_new(&pool, 2, NULL), 0);
  int64_t size = write_varied("stdin.ndjson", INLET_TEXT_NDJSON, 14, 11u, false, 20000);
  int saved = dup(0);
  assert_true(saved >= 0);
  int fd = open("stdin.ndjson", O_RDONLY);
  assert_true(fd >= 0);
  assert_int_equal(dup2(fd, 0), 0);
  close(fd);
  enum { CAP = 200000 };
  rec_digest *a = calloc(CAP, sizeof *a), *b = calloc(CAP, sizeof *b);
  assert_non_null(a);
  assert_non_null(b);
  const off_t base = 123457;
  int64_t ra_a = 0, ra_b = 0;
  assert_int_equal(lseek(0, base, SEEK_SET), base);
  int64_t na = read_stdin_digests(NULL, a, CAP, &ra_a);
  assert_int_equal(lseek(0, 0, SEEK_CUR), size); /* read to the end */
  assert_int_equal(lseek(0, base, SEEK_SET), base);
  int64_t nb = read_stdin_digests(pool, b, CAP, &ra_b);
  assert_int_equal(lseek(0, 0, SEEK_CUR), size); /* where read() would have left it */
  assert_int_equal(dup2(saved, 0), 0);
  close(saved);
  assert_true(na > 5000);
  assert_int_equal(na, nb);
  for (int64_t i = 0; i < na; i++) {
    assert_int_equal(a[i].sum, b[i].sum);
    assert_int_equal(a[i].len, b[i].len);
    assert_int_equal(a[i].offset, b[i].offset);
    assert_int_equal(a[i].bytes, b[i].bytes);
    assert_int_equal(a[i].pos1, b[i].pos1);
    assert_int_equal(a[i].oversize, b[i].oversize);
    assert_int_equal(a[i].valid, b[i].valid);
  }
  assert_int_equal(ra_a, 0);
  print_message("stdin: %lld of %lld bytes read ahead\n", (long long)ra_b, (long long)size);
  assert_true(ra_b > (size - base) / 3);
  free(a);
  free(b);
  unlink("stdin.ndjson");
  util_pool_free(pool);
}

/* With a pool, a regular file's next piece is read on it while the records
 * before are handed out: the records, offsets, positions, oversize and
 * blank-line handling, CSV records over several lines, what a followed file
 * gains (a record half written at a swap), a truncation while following and
 * a resume mid-file are exactly those of the source without a pool. */
static void test_file__read_ahead_reads_what_one_thread_reads(void **state) {
  (void)state;
  util_pool *pool = NULL;
  assert_int_equal(util_pool_new(&pool, 2, NULL), 0);
  const int64_t max_rec = 20000;
  inlet_text_format fmts[] = {INLET_TEXT_NDJSON, INLET_TEXT_CSV};
  for (int fi = 0; fi < 2; fi++) {
    const char *path = fi == 0 ? "ra.ndjson" : "ra.csv";
    int64_t size = write_varied(path, fmts[fi], 20, 7u + (uint32_t)fi, false, max_rec);
    stream_source *a = open_pooled(path, fmts[fi], false, max_rec, NULL);
    stream_source *b = open_pooled(path, fmts[fi], false, max_rec, pool);
    assert_true(in_step(a, b) > 5000);
    assert_int_equal(a->bytes_read_ahead, 0);
    /* All but the first 4 MiB come from read-aheads, but for the pieces
     * refused because a long record straddled them. */
    print_message("%s: %lld of %lld bytes read ahead\n", path, (long long)b->bytes_read_ahead,
                  (long long)size);
    assert_true(b->bytes_read_ahead > size / 3);
    a->ops->free(a);
    b->ops->free(b);

    /* Following: the file grows by whole records and by a half record. */
    a = open_pooled(path, fmts[fi], true, max_rec, NULL);
    b = open_pooled(path, fmts[fi], true, max_rec, pool);
    assert_true(in_step(a, b) > 5000);
    int64_t before = b->bytes_read_ahead;
    write_varied(path, fmts[fi], 6, 99u, true, max_rec);
    FILE *f = fopen(path, "a");
    fputs(fi == 0 ? "{\"id\":-1,\"t\":\"half" : "-1,\"half", f);
    fclose(f);
    assert_true(in_step(a, b) > 2000);
    assert_true(b->bytes_read_ahead > before);
    f = fopen(path, "a");
    fputs(fi == 0 ? " done\"}\n" : "\ndone\"\n", f);
    fclose(f);
    assert_int_equal(in_step(a, b), 1);
    /* Truncated in place below what was read: both go on at the new end. */
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(truncate(path, st.st_size / 2), 0);
    assert_int_equal(in_step(a, b), 0);
    assert_string_equal(notice_text(a), notice_text(b));
    assert_non_null(strstr(notice_text(b), "truncated in place"));
    write_varied(path, fmts[fi], 5, 5u, true, max_rec);
    assert_true(in_step(a, b) > 1000);
    a->ops->free(a);
    b->ops->free(b);
    unlink(path);
  }
  /* A record of 100,000 bytes that begins 80,000 bytes before the end of
   * the first 4 MiB read: more than the room before a read-ahead's bytes,
   * so that piece is refused and read again as without a pool. */
  {
    FILE *f = fopen("ra3.ndjson", "w");
    assert_non_null(f);
    int64_t n = 0, i = 0;
    while (n < (4 << 20) - 80000 - 100)
      n += fprintf(f, "{\"id\":%lld}\n", (long long)i++);
    char *big = malloc(100000);
    assert_non_null(big);
    memset(big, 'b', 100000);
    big[0] = '[';
    big[99999] = ']';
    int64_t big_at = n;
    n += (int64_t)fwrite(big, 1, 100000, f);
    n += fprintf(f, "\n");
    free(big);
    while (n < (14 << 20))
      n += fprintf(f, "{\"id\":%lld}\n", (long long)i++);
    fclose(f);
    assert_true(big_at < (4 << 20) - 65536);
    stream_source *a = open_pooled("ra3.ndjson", INLET_TEXT_NDJSON, false, 200000, NULL);
    stream_source *b = open_pooled("ra3.ndjson", INLET_TEXT_NDJSON, false, 200000, pool);
    assert_int_equal(in_step(a, b), i + 1);
    assert_true(b->bytes_read_ahead > 0);
    assert_true(b->bytes_read_ahead <= n - (8 << 20) + 100000); /* one piece read again */
    a->ops->free(a);
    b->ops->free(b);
    unlink("ra3.ndjson");
  }
  /* A resume mid-file (a seek) reads on from the position alike. */
  write_varied("ra2.ndjson", INLET_TEXT_NDJSON, 10, 3u, false, max_rec);
  stream_source *a = open_pooled("ra2.ndjson", INLET_TEXT_NDJSON, false, max_rec, NULL);
  stream_record r;
  inlet_error err = INLET_ERROR_INIT;
  stream_pos mid = {false, {0, 0, 0}};
  while (mid.p[1] < (5 << 20) && a->ops->next(a, &r, 0, &err) == STREAM_RECORD)
    mid = r.pos;
  assert_true(mid.valid && mid.p[1] >= (5 << 20));
  a->ops->free(a);
  inlet_buf warn = INLET_BUF_INIT;
  a = resume_at("ra2.ndjson", &mid, false, &warn);
  stream_source *b = NULL;
  stream_source_options o = {
      .format = INLET_TEXT_NDJSON, .max_record_bytes = 1000, .poll_ms = 10, .pool = pool};
  assert_int_equal(stream_file_open(&b, "ra2.ndjson", false, &o, &err), 0);
  assert_int_equal(b->ops->seek(b, &mid, &warn, &err), 0);
  assert_true(in_step(a, b) > 2000);
  assert_true(b->bytes_read_ahead > 0);
  a->ops->free(a);
  b->ops->free(b);
  inlet_buf_reset(&warn);
  unlink("ra2.ndjson");
  util_pool_free(pool);
}

static void test_file__once_leaves_unterminated_last_line(void **state) {
  (void)state;
  tu_write_file("u1.ndjson", "{\"a\":1}\n{\"a\"", 12);
  stream_source *s = open_file("u1.ndjson", INLET_TEXT_NDJSON, false, 1000);
  stream_record r;
  assert_int_equal(next(s, &r), STREAM_RECORD);
  stream_pos p = r.pos;
  assert_int_equal(next(s, &r), STREAM_END); /* the half line is not a record */
  assert_non_null(strstr(notice_text(s), "unterminated record (4 bytes at offset 8)"));
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(s->ops->finish_pos(s, &p, &err), 0);
  s->ops->free(s);
  assert_int_equal(p.p[1], 8);
  /* The writer finishes the line: the next run reads it whole. */
  FILE *f = fopen("u1.ndjson", "a");
  fputs(":2}\n", f);
  fclose(f);
  inlet_buf warn = INLET_BUF_INIT;
  s = resume_at("u1.ndjson", &p, false, &warn);
  assert_int_equal(warn.len, 0);
  assert_int_equal(next(s, &r), STREAM_RECORD);
  assert_int_equal(r.len, 7);
  assert_memory_equal(r.data, "{\"a\":2}", 7);
  assert_int_equal(next(s, &r), STREAM_END);
  s->ops->free(s);
  inlet_buf_reset(&warn);
  /* CSV too: an open quote at EOF is not a record either. */
  tu_write_file("u1.csv", "a,b\n1,x\n2,\"y", 12);
  s = open_file("u1.csv", INLET_TEXT_CSV, false, 1000);
  assert_int_equal(next(s, &r), STREAM_RECORD);
  assert_true(r.header);
  assert_int_equal(next(s, &r), STREAM_RECORD);
  assert_memory_equal(r.data, "1,x", 3);
  assert_int_equal(next(s, &r), STREAM_END);
  s->ops->free(s);
  unlink("u1.ndjson");
  unlink("u1.csv");
}

static void test_file__truncated_in_place_resumes_at_new_end(void **state) {
  (void)state;
  const char *path = "tr1.ndjson";
  write_lines(path, 0, 100, false); /* 1600 bytes: more than the fingerprint */
  stream_source *s = open_file(path, INLET_TEXT_NDJSON, false, 1000);
  stream_pos p;
  assert_int_equal(drain(s, &p, NULL), 100);
  s->ops->free(s);
  assert_int_equal(p.p[1], 1600);
  /* Shrinks in place to 75 records: the same file (first KiB unchanged), cut. */
  assert_int_equal(truncate(path, 1200), 0);
  inlet_buf warn = INLET_BUF_INIT;
  s = resume_at(path, &p, false, &warn);
  assert_non_null(strstr((const char *)warn.data, "truncated in place to 1200 bytes"));
  assert_null(strstr((const char *)warn.data, "rotated"));
  assert_true(s->pos_reset);
  write_lines(path, 100, 103, true); /* written after the run started */
  int first = -1;
  stream_pos q;
  assert_int_equal(drain(s, &q, &first), 3); /* nothing read again */
  assert_int_equal(first, 100);
  assert_int_equal(q.p[0], p.p[0]);
  assert_int_equal(q.p[2], p.p[2]); /* same first bytes, same fingerprint */
  s->ops->free(s);
  inlet_buf_reset(&warn);
  /* Cut shorter than the fingerprinted first KiB: a truncation cannot be told
   * from a copy-truncate; it is read from the start, and the warning says so. */
  assert_int_equal(truncate(path, 480), 0);
  s = resume_at(path, &q, false, &warn);
  assert_non_null(strstr((const char *)warn.data, "too short to compare"));
  assert_int_equal(drain(s, NULL, &first), 30);
  assert_int_equal(first, 0);
  s->ops->free(s);
  inlet_buf_reset(&warn);
  /* A copy-truncate rotation (new first bytes) is still read from the start. */
  tu_write_file(path, "", 0);
  write_lines(path, 500, 505, false);
  s = resume_at(path, &q, false, &warn);
  assert_non_null(strstr((const char *)warn.data, "copy-truncate"));
  assert_int_equal(drain(s, NULL, &first), 5);
  assert_int_equal(first, 500);
  s->ops->free(s);
  inlet_buf_reset(&warn);
  unlink(path);
}

static void test_file__truncated_in_place_while_following(void **state) {
  (void)state;
  const char *path = "tr2.ndjson";
  write_lines(path, 0, 100, false);
  stream_source *s = open_file(path, INLET_TEXT_NDJSON, true, 1000);
  assert_int_equal(drain(s, NULL, NULL), 100);
  assert_int_equal(truncate(path, 1280), 0);
  stream_record r;
  assert_int_equal(next(s, &r), STREAM_NONE);
  assert_non_null(strstr(notice_text(s), "truncated in place to 1280 bytes"));
  assert_true(s->pos_reset);
  write_lines(path, 100, 102, true);
  int first = -1;
  assert_int_equal(drain(s, NULL, &first), 2);
  assert_int_equal(first, 100);
  s->ops->free(s);
  unlink(path);
}

static void test_file__copy_truncate_finishes_the_copy_then_new_data(void **state) {
  (void)state;
  mkdir("ct", 0777);
  write_lines("ct/log", 0, 100, false);
  /* Resume: the table's position is after record 79; the copy has the rest. */
  stream_source *s = open_file("ct/log", INLET_TEXT_NDJSON, false, 1000);
  stream_record r;
  for (int i = 0; i < 80; i++)
    assert_int_equal(next(s, &r), STREAM_RECORD);
  stream_pos p = r.pos;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(s->ops->finish_pos(s, &p, &err), 0);
  s->ops->free(s);
  tu_result sh;
  tu_sh(&sh, "cp ct/log ct/log.1 && : > ct/log");
  tu_result_free(&sh);
  write_lines("ct/log", 1000, 1005, true);
  inlet_buf warn = INLET_BUF_INIT;
  s = resume_at("ct/log", &p, false, &warn);
  assert_non_null(strstr((const char *)warn.data, "copy-truncate"));
  assert_non_null(strstr((const char *)warn.data, "ct/log.1"));
  int first = -1;
  assert_int_equal(drain(s, NULL, &first), 25); /* 80..99 from the copy, then 1000..1004 */
  assert_int_equal(first, 80);
  s->ops->free(s);
  inlet_buf_reset(&warn);
  /* Following: the writer got 10 records ahead before the copy-truncate. */
  unlink("ct/log.1");
  write_lines("ct/log", 0, 100, false);
  s = open_file("ct/log", INLET_TEXT_NDJSON, true, 1000);
  assert_int_equal(drain(s, NULL, NULL), 100);
  write_lines("ct/log", 100, 110, true);
  tu_sh(&sh, "cp ct/log ct/log.1 && : > ct/log");
  tu_result_free(&sh);
  write_lines("ct/log", 2000, 2003, true);
  assert_int_equal(drain(s, NULL, &first), 13);
  assert_int_equal(first, 100);
  assert_non_null(strstr(notice_text(s), "copy-truncate"));
  s->ops->free(s);
  unlink("ct/log");
  unlink("ct/log.1");
  rmdir("ct");
}

static void test_file__replaced_by_superset_resumes_at_offset(void **state) {
  (void)state;
  mkdir("rp", 0777);
  write_lines("rp/log", 0, 100, false);
  stream_source *s = open_file("rp/log", INLET_TEXT_NDJSON, false, 1000);
  stream_pos p;
  assert_int_equal(drain(s, &p, NULL), 100);
  s->ops->free(s);
  /* Atomically replaced by a superset: new inode, same first bytes. */
  write_lines("rp/tmp", 0, 110, false);
  assert_int_equal(rename("rp/tmp", "rp/log"), 0);
  inlet_buf warn = INLET_BUF_INIT;
  s = resume_at("rp/log", &p, false, &warn);
  assert_non_null(strstr((const char *)warn.data, "was replaced"));
  int first = -1;
  assert_int_equal(drain(s, &p, &first), 10);
  assert_int_equal(first, 100);
  s->ops->free(s);
  inlet_buf_reset(&warn);
  /* Replaced by a file with other first bytes: a new file, read whole. */
  write_lines("rp/tmp", 5000, 5120, false);
  assert_int_equal(rename("rp/tmp", "rp/log"), 0);
  s = resume_at("rp/log", &p, false, &warn);
  assert_non_null(strstr((const char *)warn.data, "is gone"));
  assert_int_equal(drain(s, NULL, &first), 120);
  assert_int_equal(first, 5000);
  s->ops->free(s);
  inlet_buf_reset(&warn);
  unlink("rp/log");
  rmdir("rp");
}

static void test_file__replaced_by_superset_while_following(void **state) {
  (void)state;
  mkdir("rf", 0777);
  write_lines("rf/log", 0, 100, false);
  FILE *f = fopen("rf/log", "a");
  fputs("{\"n\":0", f); /* the writer is mid-line */
  fclose(f);
  stream_source *s = open_file("rf/log", INLET_TEXT_NDJSON, true, 1000);
  assert_int_equal(drain(s, NULL, NULL), 100);
  write_lines("rf/tmp", 0, 105, false);
  assert_int_equal(rename("rf/tmp", "rf/log"), 0);
  int first = -1;
  assert_int_equal(drain(s, NULL, &first), 5); /* not 105, and no half record */
  assert_int_equal(first, 100);
  assert_non_null(strstr(notice_text(s), "was replaced"));
  s->ops->free(s);
  /* A rotation by rename (the old file stays linked) still reads the new file whole,
   * even when it starts with the same bytes. */
  write_lines("rf/log", 0, 100, false);
  s = open_file("rf/log", INLET_TEXT_NDJSON, true, 1000);
  assert_int_equal(drain(s, NULL, NULL), 100);
  assert_int_equal(rename("rf/log", "rf/log.1"), 0);
  write_lines("rf/log", 0, 105, false);
  assert_int_equal(drain(s, NULL, &first), 105);
  assert_int_equal(first, 0);
  s->ops->free(s);
  unlink("rf/log");
  unlink("rf/log.1");
  rmdir("rf");
}

/* ---- Redis gap accounting (issue 12) --------------------------------------------- */

static stream_redis_id rid(uint64_t ms, uint64_t seq) {
  stream_redis_id id = {ms, seq};
  return id;
}

/* The reader at entry @p last_ms-0 with entries-added count @p n (-1 unknown). */
static stream_redis_track at(uint64_t last_ms, int64_t n) {
  stream_redis_track t;
  memset(&t, 0, sizeof t);
  t.have_pos = true;
  t.last = rid(last_ms, 0);
  t.n = n;
  t.acked = t.last;
  return t;
}

/* A Redis 7 stream holding entries first_ms..last_ms (one per ms, seq 0),
 * @p added ever added, max deleted @p del_ms; the read after @p t returned
 * the entries after it (up to @p count). */
static stream_redis_view view(const stream_redis_track *t, uint64_t first_ms, uint64_t last_ms,
                              uint64_t added, uint64_t del_ms, int64_t count) {
  stream_redis_view v;
  memset(&v, 0, sizeof v);
  v.exists = true;
  v.counters = true;
  v.added = added;
  v.max_deleted = rid(del_ms, 0);
  if (last_ms >= first_ms && first_ms > 0) {
    v.length = last_ms - first_ms + 1;
    v.has_first = true;
    v.first = rid(first_ms, 0);
    uint64_t from = t->have_pos && t->last.ms >= first_ms ? t->last.ms + 1 : first_ms;
    if (from <= last_ms) {
      v.k = (int64_t)(last_ms - from + 1);
      if (v.k > count) v.k = count;
      v.e1 = rid(from, 0);
      v.ek = rid(from + (uint64_t)v.k - 1, 0);
    }
  }
  v.complete = v.k < count;
  return v;
}

static void test_redis__gap_judgement(void **state) {
  (void)state;
  stream_redis_judgement j;
  /* Entries 1..10 added; read up to 5 (count 5); nothing trimmed: no gap,
   * counts follow (entry 6 is the 6th added). */
  stream_redis_track t = at(5, 5);
  stream_redis_view v = view(&t, 1, 10, 10, 0, 1000);
  stream_redis_judge(&t, &v, &j);
  assert_false(j.gap);
  assert_int_equal(j.n_first, 6);
  assert_int_equal(j.n_end, 10);
  /* MAXLEN 2 trimmed 1..8 while the reader was at 5: 6, 7, 8 are lost. */
  v = view(&t, 9, 10, 10, 0, 1000);
  stream_redis_judge(&t, &v, &j);
  assert_true(j.gap);
  assert_false(j.possible);
  assert_int_equal(j.lost, 3);
  assert_int_equal(j.n_first, 9);
  /* Trimmed exactly up to the position (MINID on a quiet stream), then new
   * entries: the first entry is after the position, yet nothing was lost. */
  t = at(10, 10);
  v = view(&t, 11, 12, 12, 0, 1000);
  stream_redis_judge(&t, &v, &j);
  assert_false(j.gap);
  assert_int_equal(j.n_first, 11);
  /* ... and everything trimmed, nothing new: empty, no gap. */
  v = view(&t, 0, 0, 10, 0, 1000);
  v.has_first = false;
  stream_redis_judge(&t, &v, &j);
  assert_false(j.gap);
  assert_int_equal(j.n_end, 10);
  /* Everything after the position trimmed and nothing left. */
  t = at(5, 5);
  v = view(&t, 0, 0, 10, 0, 1000);
  stream_redis_judge(&t, &v, &j);
  assert_true(j.gap);
  assert_int_equal(j.lost, 5);
  assert_int_equal(j.n_end, 10);
  /* XDEL of entry 7 while the reader was at 5 (trimming not involved): the
   * complete read returns 4 entries of the 5 added after the position. */
  t = at(5, 5);
  v = view(&t, 1, 10, 10, 7, 1000);
  v.k = 4;
  v.length = 9;
  stream_redis_judge(&t, &v, &j);
  assert_true(j.gap);
  assert_int_equal(j.lost, 1);
  /* Not a complete read: max-deleted-entry-id after the position tells. */
  v.complete = false;
  stream_redis_judge(&t, &v, &j);
  assert_true(j.gap);
  assert_int_equal(j.lost, -1);
  /* ... once accounted for (acked), it is not reported again. */
  t.acked = rid(7, 0);
  stream_redis_judge(&t, &v, &j);
  assert_false(j.gap);
  /* A deletion before the position is not a gap. */
  t = at(5, 5);
  v = view(&t, 1, 10, 10, 3, 1000);
  v.length = 9;
  v.complete = false;
  stream_redis_judge(&t, &v, &j);
  assert_false(j.gap);
  /* A position recorded without a count (older inlet): a first entry after
   * it is a possible gap; the stream's count is learned from a complete read. */
  t = at(5, -1);
  v = view(&t, 9, 10, 10, 0, 1000);
  stream_redis_judge(&t, &v, &j);
  assert_true(j.gap);
  assert_true(j.possible);
  assert_int_equal(j.n_first, 9);
  v = view(&t, 1, 10, 10, 0, 1000);
  stream_redis_judge(&t, &v, &j);
  assert_false(j.gap);
  assert_int_equal(j.n_first, 6);
  assert_int_equal(j.n_end, 10);
  /* Redis < 7 (no counters): the first entry after the position is a
   * possible gap; one at or before it is not. */
  t = at(5, 5);
  v = view(&t, 9, 10, 10, 0, 1000);
  v.counters = false;
  stream_redis_judge(&t, &v, &j);
  assert_true(j.gap && j.possible);
  v = view(&t, 4, 10, 10, 0, 1000);
  v.counters = false;
  stream_redis_judge(&t, &v, &j);
  assert_false(j.gap);
  assert_int_equal(j.n_first, -1);
  /* The stream deleted and created again (Redis restarted empty): its count
   * is below the position's; not a gap, reported as recreated. */
  t = at(5, 5);
  v = view(&t, 20, 22, 3, 0, 1000);
  stream_redis_judge(&t, &v, &j);
  assert_false(j.gap);
  assert_true(j.recreated);
  assert_int_equal(j.n_first, 1);
  /* No stream at all: nothing to judge. */
  memset(&v, 0, sizeof v);
  stream_redis_judge(&t, &v, &j);
  assert_false(j.gap);
  assert_int_equal(j.n_end, 5);
  /* Reading from the start: deletions before the reader began are not gaps. */
  memset(&t, 0, sizeof t);
  t.n = -1;
  v = view(&t, 9, 10, 10, 4, 1000);
  stream_redis_judge(&t, &v, &j);
  assert_false(j.gap);
  assert_int_equal(j.n_first, 9);
  /* Many entries after the position (an incomplete read): counts carry on. */
  t = at(5, 5);
  v = view(&t, 1, 5000, 5000, 0, 1000);
  stream_redis_judge(&t, &v, &j);
  assert_false(j.gap);
  assert_int_equal(j.n_first, 6);
  assert_int_equal(j.n_end, 1005);
}

/* ---- application ids (issue 11 §5) -------------------------------------------------- */

static void test_pos__default_app_id_ignores_spelling(void **state) {
  (void)state;
  char a[600], b[600];
  static const char *const same[] = {
      "redis://localhost:6379/clicks", "redis://127.0.0.1:6379/clicks",
      "redis://LOCALHOST/clicks",      "redis://localhost:6379/clicks/",
      "redis://[::1]:6379/clicks",     "redis://127.0.0.2//clicks",
  };
  inlet_ingest_default_app_id(a, sizeof a, same[0]);
  assert_string_equal(a, "inlet-ingest:redis://localhost:6379/clicks");
  for (size_t i = 1; i < sizeof same / sizeof same[0]; i++) {
    inlet_ingest_default_app_id(b, sizeof b, same[i]);
    assert_string_equal(b, a);
  }
  /* Other servers, ports or streams are other ids. */
  inlet_ingest_default_app_id(b, sizeof b, "redis://10.0.0.5:6379/clicks");
  assert_string_equal(b, "inlet-ingest:redis://10.0.0.5:6379/clicks");
  inlet_ingest_default_app_id(b, sizeof b, "redis://localhost:6380/clicks");
  assert_string_not_equal(b, a);
  inlet_ingest_default_app_id(b, sizeof b, "redis://[2001:DB8::1]:7000/clicks");
  assert_string_equal(b, "inlet-ingest:redis://[2001:db8::1]:7000/clicks");
  /* Files: relative, absolute, ./ and .. spellings, and a file not there yet. */
  char cwd[400];
  assert_non_null(getcwd(cwd, sizeof cwd));
  mkdir("appdir", 0777);
  tu_write_file("appdir/x.ndjson", "", 0);
  char want[600], abs[600];
  snprintf(want, sizeof want, "inlet-ingest:file:%s/appdir/x.ndjson", cwd);
  snprintf(abs, sizeof abs, "file:%s/appdir/x.ndjson", cwd);
  static const char *const files[] = {"file:appdir/x.ndjson", "file:./appdir//x.ndjson",
                                      "file:appdir/../appdir/x.ndjson"};
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    inlet_ingest_default_app_id(b, sizeof b, files[i]);
    assert_string_equal(b, want);
  }
  inlet_ingest_default_app_id(b, sizeof b, abs);
  assert_string_equal(b, want);
  snprintf(want, sizeof want, "inlet-ingest:file:%s/appdir/later.ndjson", cwd);
  inlet_ingest_default_app_id(b, sizeof b, "file:./appdir/later.ndjson");
  assert_string_equal(b, want);
  snprintf(want, sizeof want, "inlet-ingest:file:%s/nodir/later.ndjson", cwd);
  inlet_ingest_default_app_id(b, sizeof b, "file:nodir/./x/../later.ndjson");
  assert_string_equal(b, want);
  /* The ids older versions used stay computable (to find their progress). */
  stream_legacy_app_id(b, sizeof b, "redis://127.0.0.1:6379/clicks");
  assert_string_equal(b, "inlet-ingest:redis://127.0.0.1:6379/clicks");
  /* The stream tag knows the stream name only. */
  assert_true(stream_source_tag("redis://a:1/clicks") == stream_source_tag("redis://b/clicks/"));
  assert_true(stream_source_tag("redis://a:1/clicks") != stream_source_tag("redis://a:1/views"));
  assert_int_equal(stream_source_tag("file:appdir/x.ndjson"), 0);
  unlink("appdir/x.ndjson");
  rmdir("appdir");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_trigger__empty_batch_never_due),
      cmocka_unit_test(test_trigger__rows_limit_fires_first),
      cmocka_unit_test(test_trigger__bytes_count_rejected_records_too),
      cmocka_unit_test(test_trigger__latency_counts_from_first_record),
      cmocka_unit_test(test_pos__format_per_kind),
      cmocka_unit_test(test_pos__txn_names_and_fingerprint),
      cmocka_unit_test(test_pos__default_app_id_is_absolute),
      cmocka_unit_test(test_watermark__late_is_before_watermark_in_force),
      cmocka_unit_test(test_watermark__restore_classifies_like_first_run),
      cmocka_unit_test(test_duration__units_and_errors),
      cmocka_unit_test(test_split__on_time_and_late_partition_rows),
      cmocka_unit_test(test_generated__expressions_ingest_computes),
      cmocka_unit_test(test_redis__url_parsing),
      cmocka_unit_test(test_file__records_positions_and_blank_lines),
      cmocka_unit_test(test_file__follow_waits_for_the_newline),
      cmocka_unit_test(test_file__oversize_record_is_reported_not_held),
      cmocka_unit_test(test_file__csv_header_and_quoted_newline),
      cmocka_unit_test(test_file__resume_finishes_rotated_file_then_new_one),
      cmocka_unit_test(test_file__follow_survives_rotation_by_rename),
      cmocka_unit_test(test_file__reused_inode_with_other_content_restarts),
      cmocka_unit_test(test_file__once_leaves_unterminated_last_line),
      cmocka_unit_test(test_file__truncated_in_place_resumes_at_new_end),
      cmocka_unit_test(test_file__truncated_in_place_while_following),
      cmocka_unit_test(test_file__copy_truncate_finishes_the_copy_then_new_data),
      cmocka_unit_test(test_file__replaced_by_superset_resumes_at_offset),
      cmocka_unit_test(test_file__replaced_by_superset_while_following),
      cmocka_unit_test(test_file__read_ahead_reads_what_one_thread_reads),
      cmocka_unit_test(test_file__stdin_from_a_file_reads_ahead_alike),
      cmocka_unit_test(test_file__stdin_pipe_is_widened),
      cmocka_unit_test(test_redis__gap_judgement),
      cmocka_unit_test(test_pos__default_app_id_ignores_spelling),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
