/*
 * The Arrow IPC writer (inlet/arrow.h) against the verifying reader
 * (scan/arrow_ipc.h): a fixed batch of every type in every format and
 * codec, a few hundred random schemas and batches (arrow_ipc_engine.h, the
 * fuzzer's engine), every truncation of a stream and of a file, and the
 * writer's own errors. Files the Apache Arrow JavaScript implementation
 * wrote (fuzz/corpus/arrow_ipc_fuzzer/js-*) are read to the values it was
 * given, so the reader is not only a mirror of the writer.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow_ipc_engine.h"

static const char *DDL =
    "b boolean, i8 byte, i16 short, i32 int, i64 long not null, u8 uint8, u64 uint64, f float, "
    "d double, s string, bin binary, day date, t time, ts timestamp, tsn timestamp_ntz, "
    "tms timestamp_ms, tns timestamp_ns, dec decimal(38,10), st struct<a:int,t:string>, "
    "l array<array<long>>, m map<string,struct<x:double>>, j json, u uuid, fx fixed(3)";

static const char *ROWS =
    "{\"b\":true,\"i8\":-8,\"i16\":-16,\"i32\":32,\"i64\":-64000000000,\"u8\":255,"
    "\"u64\":18446744073709551615,\"f\":1.5,\"d\":-2.25,\"s\":\"h\xc3\xa9llo\",\"bin\":\"00ff10\","
    "\"day\":\"2024-05-01\",\"t\":\"12:34:56.789\",\"ts\":\"2024-05-01T10:00:00.123456Z\","
    "\"tsn\":\"2024-05-01T10:00:00\",\"tms\":\"2024-05-01T10:00:00.123Z\","
    "\"tns\":\"2024-05-01T10:00:00.123456789Z\",\"dec\":\"-1234567890123456789012345.6789012345\","
    "\"st\":{\"a\":7,\"t\":\"x\"},\"l\":[[1,null],[],null],\"m\":{\"k1\":{\"x\":0.5},\"k2\":null},"
    "\"j\":{\"a\":1},\"u\":\"00112233-4455-6677-8899-aabbccddeeff\",\"fx\":\"abcdef\"}\n"
    "{\"i64\":2}\n"
    "{\"b\":false,\"i8\":127,\"i16\":0,\"i32\":-1,\"i64\":0,\"u8\":0,\"u64\":0,\"f\":\"NaN\","
    "\"d\":\"Infinity\",\"s\":\"\",\"bin\":\"\",\"day\":\"1969-12-31\",\"t\":\"00:00\","
    "\"ts\":\"1969-12-31T23:59:59.999999Z\",\"tsn\":\"1970-01-01T00:00:01\",\"tms\":null,"
    "\"tns\":null,\"dec\":\"0\",\"st\":{\"a\":null,\"t\":null},\"l\":[],\"m\":{},\"j\":[],"
    "\"u\":\"ffffffff-ffff-ffff-ffff-ffffffffffff\",\"fx\":\"000000\"}\n";

static void load_batch(inlet_batch *b, inlet_schema *schema) {
  inlet_error err = INLET_ERROR_INIT;
  if (inlet_schema_parse(schema, DDL, &err) != 0) fail_msg("ddl: %s", err.message);
  inlet_text_reader *r = NULL;
  inlet_text_reader_options o = INLET_TEXT_READER_OPTIONS_INIT;
  assert_int_equal(inlet_text_reader_open_memory(&r, ROWS, strlen(ROWS), schema, &o, &err), 0);
  memset(b, 0, sizeof *b);
  if (inlet_text_reader_next(r, b, &err) < 0) fail_msg("read: %s", err.message);
  assert_int_equal(b->num_rows, 3);
  inlet_text_reader_stats st;
  inlet_text_reader_get_stats(r, &st);
  assert_int_equal(st.bad_records, 0);
  inlet_text_reader_free(r);
}

static void write_all(inlet_buf *out, const inlet_batch *b, int n_copies,
                      inlet_arrow_ipc_format format, inlet_arrow_compression comp) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_arrow_ipc_options o = INLET_ARROW_IPC_OPTIONS_INIT;
  o.format = format;
  o.compression = comp;
  inlet_arrow_ipc_writer *w = NULL;
  if (inlet_arrow_ipc_writer_new(&w, &b->schema, &o, aie_sink, out, &err) != 0)
    fail_msg("new: %s", err.message);
  for (int i = 0; i < n_copies; i++)
    if (inlet_arrow_ipc_writer_write(w, b, &err) != 0) fail_msg("write: %s", err.message);
  if (inlet_arrow_ipc_writer_finish(w, &err) != 0) fail_msg("finish: %s", err.message);
  inlet_arrow_ipc_writer_free(w);
}

/* Reads a copy of exactly @p len bytes, so that an overread is an ASan error. */
static int read_exact(inlet_arrow_ipc_read *rd, const uint8_t *data, size_t len, inlet_error *err) {
  uint8_t *copy = malloc(len ? len : 1);
  assert_non_null(copy);
  memcpy(copy, data, len);
  int rc = inlet_arrow_ipc_read_all(rd, copy, len, err);
  free(copy);
  return rc;
}

static void test_arrow_ipc_roundtrip__every_type_every_format_and_codec(void **state) {
  (void)state;
  inlet_schema schema;
  inlet_batch b;
  load_batch(&b, &schema);
  for (int format = 0; format < 2; format++)
    for (int comp = 0; comp < 3; comp++) {
      inlet_buf out = INLET_BUF_INIT;
      write_all(&out, &b, 2, (inlet_arrow_ipc_format)format, (inlet_arrow_compression)comp);
      inlet_arrow_ipc_read rd;
      inlet_error err = INLET_ERROR_INIT;
      if (read_exact(&rd, out.data, out.len, &err) != 0)
        fail_msg("format %d codec %d: %s", format, comp, err.message);
      assert_int_equal(rd.file, format == 1);
      assert_int_equal(rd.compression, comp == 0 ? -1 : comp == 1 ? AIPC_C_LZ4_FRAME : AIPC_C_ZSTD);
      assert_true(inlet_schema_equal(&rd.schema, &schema));
      /* Annotations and units survive. */
      assert_int_equal(rd.schema.fields[inlet_schema_find(&schema, "j")].type.ext, INLET_EXT_JSON);
      assert_int_equal(rd.schema.fields[inlet_schema_find(&schema, "u")].type.ext, INLET_EXT_UUID);
      assert_int_equal(rd.schema.fields[inlet_schema_find(&schema, "tns")].type.unit,
                       INLET_UNIT_NANO);
      assert_false(rd.schema.fields[inlet_schema_find(&schema, "tsn")].type.utc);
      assert_true(rd.schema.fields[inlet_schema_find(&schema, "ts")].type.utc);
      assert_false(rd.schema.fields[inlet_schema_find(&schema, "i64")].nullable);
      assert_int_equal(rd.n_batches, 2);
      assert_int_equal(rd.footer_blocks, format == 1 ? 2 : 0);
      char msg[1024];
      for (int k = 0; k < 2; k++)
        if (aie_compare(&b, &rd.batches[k], msg, sizeof msg) != 0)
          fail_msg("format %d codec %d batch %d: %s", format, comp, k, msg);
      inlet_arrow_ipc_read_reset(&rd);
      inlet_buf_reset(&out);
    }
  inlet_batch_reset(&b);
  inlet_schema_reset(&schema);
}

static void test_arrow_ipc_roundtrip__random_schemas_and_batches(void **state) {
  (void)state;
  for (uint64_t seed = 1; seed <= 400; seed++) {
    aie_src s;
    aie_src_init(&s, NULL, 0, seed);
    char msg[1024];
    if (aie_roundtrip(&s, msg, sizeof msg) != 0)
      fail_msg("seed %llu: %s", (unsigned long long)seed, msg);
  }
}

static void test_arrow_ipc_roundtrip__every_truncation_fails_cleanly(void **state) {
  (void)state;
  inlet_schema schema;
  inlet_batch b;
  load_batch(&b, &schema);
  for (int format = 0; format < 2; format++) {
    inlet_buf out = INLET_BUF_INIT;
    write_all(&out, &b, 2, (inlet_arrow_ipc_format)format,
              format ? INLET_ARROW_COMPRESSION_ZSTD : INLET_ARROW_COMPRESSION_LZ4_FRAME);
    int accepted = 0;
    for (size_t len = 0; len < out.len; len++) {
      inlet_arrow_ipc_read rd;
      inlet_error err = INLET_ERROR_INIT;
      int rc = read_exact(&rd, out.data, len, &err);
      if (rc == 0) {
        /* Only a stream cut right after a whole message reads, to fewer batches. */
        assert_int_equal(format, 0);
        assert_true(rd.n_batches < 2 || len == out.len - 8);
        accepted++;
      } else {
        assert_true(rc == INLET_ECORRUPT);
        assert_true(strlen(err.message) > 0);
      }
      inlet_arrow_ipc_read_reset(&rd);
    }
    assert_true(format == 1 ? accepted == 0
                            : accepted == 3); /* after the schema, batch 1, batch 2 */
    inlet_buf_reset(&out);
  }
  inlet_batch_reset(&b);
  inlet_schema_reset(&schema);
}

static void test_arrow_ipc_roundtrip__reads_files_apache_arrow_wrote(void **state) {
  (void)state;
  const char *names[] = {"js-stream", "js-file"};
  for (int k = 0; k < 2; k++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/fuzz/corpus/arrow_ipc_fuzzer/%s", INLET_SOURCE_DIR, names[k]);
    size_t len;
    char *data = tu_read_file(path, &len);
    assert_non_null(data);
    inlet_arrow_ipc_read rd;
    inlet_error err = INLET_ERROR_INIT;
    if (read_exact(&rd, (const uint8_t *)data, len, &err) != 0)
      fail_msg("%s: %s", path, err.message);
    free(data);
    assert_int_equal(rd.file, k == 1);
    char ddl[256];
    inlet_schema want;
    snprintf(ddl, sizeof ddl,
             "id int not null, s string, l array<double>, st struct<x:long,y:boolean>");
    assert_int_equal(inlet_schema_parse(&want, ddl, &err), 0);
    /* apache-arrow names the list child "item" and marks id nullable. */
    assert_int_equal(rd.schema.n_fields, 4);
    for (int c = 0; c < 4; c++) {
      assert_string_equal(rd.schema.fields[c].name, want.fields[c].name);
      assert_int_equal(rd.schema.fields[c].type.id, want.fields[c].type.id);
    }
    assert_int_equal(rd.schema.fields[2].children[0].type.id, INLET_TYPE_DOUBLE);
    assert_int_equal(rd.schema.fields[3].children[0].type.id, INLET_TYPE_INT64);
    assert_int_equal(rd.schema.fields[3].children[1].type.id, INLET_TYPE_BOOL);
    inlet_schema_reset(&want);
    int64_t rows = 0;
    for (int32_t i = 0; i < rd.n_batches; i++)
      rows += rd.batches[i].num_rows;
    assert_int_equal(rd.n_batches, 1);
    assert_int_equal(rows, 3);
    const char *expect[3][4] = {
        {"1", "\"a\"", "[0.5,1.5]", "{\"x\":1,\"y\":true}"},
        {"2", "null", "null", "{\"x\":null,\"y\":false}"},
        {"3", "\"ccc\"", "[]", "null"},
    };
    char v[256];
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 4; c++) {
        inlet_text_format_value(v, sizeof v, &rd.batches[0].columns[c], &rd.schema.fields[c], r,
                                true);
        if (strcmp(v, expect[r][c]) != 0)
          fail_msg("%s row %d column %d: %s, want %s", names[k], r, c, v, expect[r][c]);
      }
    inlet_arrow_ipc_read_reset(&rd);
  }
}

static int failing_sink(void *ctx, const void *data, size_t len, inlet_error *err) {
  (void)data;
  int *budget = ctx;
  if ((*budget)-- <= 0) return inlet_fail(err, INLET_EIO, "disk full");
  (void)len;
  return 0;
}

static void test_arrow_ipc_roundtrip__writer_errors(void **state) {
  (void)state;
  inlet_schema schema, other;
  inlet_batch b;
  load_batch(&b, &schema);
  inlet_error err = INLET_ERROR_INIT;
  inlet_arrow_compression c;
  assert_int_equal(inlet_arrow_compression_parse(&c, "LZ4", &err), 0);
  assert_int_equal(c, INLET_ARROW_COMPRESSION_LZ4_FRAME);
  assert_int_equal(inlet_arrow_compression_parse(&c, "zstd", &err), 0);
  assert_int_equal(c, INLET_ARROW_COMPRESSION_ZSTD);
  assert_int_equal(inlet_arrow_compression_parse(&c, "none", &err), 0);
  assert_int_equal(c, INLET_ARROW_COMPRESSION_NONE);
  assert_int_equal(inlet_arrow_compression_parse(&c, "gzip", &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "\"gzip\""));

  inlet_buf out = INLET_BUF_INIT;
  inlet_arrow_ipc_writer *w = NULL;
  inlet_arrow_ipc_options o = INLET_ARROW_IPC_OPTIONS_INIT;
  o.version = 99;
  assert_int_equal(inlet_arrow_ipc_writer_new(&w, &schema, &o, aie_sink, &out, &err), INLET_EINVAL);
  assert_null(w);
  o = (inlet_arrow_ipc_options)INLET_ARROW_IPC_OPTIONS_INIT;
  assert_int_equal(inlet_arrow_ipc_writer_new(&w, &schema, &o, aie_sink, &out, &err), 0);
  assert_int_equal(inlet_schema_parse(&other, "x long", &err), 0);
  inlet_batch ob;
  assert_int_equal(inlet_batch_init(&ob, &other, &err), 0);
  assert_int_equal(inlet_arrow_ipc_writer_write(w, &ob, &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "schema"));
  assert_int_equal(inlet_arrow_ipc_writer_write(w, &b, &err), 0);
  assert_int_equal(inlet_arrow_ipc_writer_finish(w, &err), 0);
  assert_int_equal(inlet_arrow_ipc_writer_write(w, &b, &err), INLET_EINVAL);
  assert_int_equal(inlet_arrow_ipc_writer_finish(w, &err), INLET_EINVAL);
  inlet_arrow_ipc_writer_free(w);
  inlet_arrow_ipc_writer_free(NULL);

  /* A failing sink: its error comes back, and the writer stays failed. */
  for (int budget0 = 0; budget0 < 12; budget0++) {
    int budget = budget0;
    w = NULL;
    int rc = inlet_arrow_ipc_writer_new(&w, &schema, &o, failing_sink, &budget, &err);
    if (rc == 0) rc = inlet_arrow_ipc_writer_write(w, &b, &err);
    if (rc == 0) rc = inlet_arrow_ipc_writer_finish(w, &err);
    if (budget0 < 4) assert_int_equal(rc, INLET_EIO);
    if (rc != 0 && w) assert_int_equal(inlet_arrow_ipc_writer_write(w, &b, &err), INLET_EIO);
    inlet_arrow_ipc_writer_free(w);
  }
  inlet_batch_reset(&ob);
  inlet_schema_reset(&other);
  inlet_buf_reset(&out);
  inlet_batch_reset(&b);
  inlet_schema_reset(&schema);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_arrow_ipc_roundtrip__every_type_every_format_and_codec),
      cmocka_unit_test(test_arrow_ipc_roundtrip__random_schemas_and_batches),
      cmocka_unit_test(test_arrow_ipc_roundtrip__every_truncation_fails_cleanly),
      cmocka_unit_test(test_arrow_ipc_roundtrip__reads_files_apache_arrow_wrote),
      cmocka_unit_test(test_arrow_ipc_roundtrip__writer_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
