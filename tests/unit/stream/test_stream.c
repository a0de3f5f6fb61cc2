/*
 * White-box tests of src/stream: batching triggers, position text and txn
 * names, watermark classification and restore, durations, the watermark
 * split, redis URLs, and the file source (record splitting, positions,
 * oversize records, unterminated tails, CSV quoting, resume, rotation).
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stream/stream.h"
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
  for (int i = 0; i < 2; i++) stream_trigger_add(&t, 1, 10, 100);
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
  assert_false(stream_watermark_observe(&w, 90)); /* equal: on time */
  assert_true(stream_watermark_observe(&w, 89));  /* late */
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
  for (int i = 0; i < 5; i++) second[i] = stream_watermark_observe(&w, ev[i]);
  stream_watermark_init(&w, 120, saved); /* restart */
  for (int i = 5; i < 9; i++) second[i] = stream_watermark_observe(&w, ev[i]);
  for (int i = 0; i < 9; i++) assert_int_equal(first[i], second[i]);
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
  assert_int_equal(inlet_ingest_parse_duration(&us, "7", &err), 0);
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
  assert_int_equal(stream_generation_kind("date_trunc('HOUR', ts)", col, sizeof col),
                   GEN_HOUR_TS);
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
                                          "redis://127.0.0.1:7000/events", &err), 0);
  assert_string_equal(host, "127.0.0.1");
  assert_int_equal(port, 7000);
  assert_string_equal(key, "events");
  assert_int_equal(stream_redis_parse_url(host, sizeof host, &port, key, sizeof key,
                                          "redis://h/s", &err), 0);
  assert_int_equal(port, 6379);
  assert_int_equal(stream_redis_parse_url(host, sizeof host, &port, key, sizeof key,
                                          "redis://h:0/s", &err), INLET_EINVAL);
  assert_int_equal(stream_redis_parse_url(host, sizeof host, &port, key, sizeof key,
                                          "redis://h:1/", &err), INLET_EINVAL);
  assert_int_equal(stream_redis_parse_url(host, sizeof host, &port, key, sizeof key,
                                          "http://h/s", &err), INLET_EINVAL);
}

/* ---- file source ----------------------------------------------------------------- */

static stream_source *open_file(const char *path, inlet_text_format fmt, bool follow,
                                int64_t max_rec) {
  stream_source_options o = {fmt, follow, false, max_rec, 10};
  stream_source *s = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(stream_file_open(&s, path, false, &o, &err), 0);
  inlet_buf warn = INLET_BUF_INIT;
  stream_pos start = {false, {0, 0, 0}};
  assert_int_equal(s->ops->seek(s, &start, &warn, &err), 0);
  inlet_buf_reset(&warn);
  return s;
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
  stream_source *s = open_file("f1.ndjson", INLET_TEXT_NDJSON, false, 1000);
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
  assert_int_equal(next(s, &r), STREAM_RECORD); /* unterminated tail of a finished file */
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
  stream_source_options o = {INLET_TEXT_CSV, false, false, 1000, 10};
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
  stream_source_options o = {INLET_TEXT_NDJSON, false, false, 1000, 10};
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
  stream_source_options o = {INLET_TEXT_NDJSON, false, false, 1000, 10};
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
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
