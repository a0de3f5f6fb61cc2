/*
 * Unit tests for src/parquet/thrift.c: the Thrift compact protocol reader
 * and writer. Expected bytes come from the compact protocol specification
 * (Apache Thrift doc/specs/thrift-compact-protocol.md), not from the writer;
 * hostile inputs must fail with INLET_ECORRUPT and never read out of bounds
 * (inputs are copied to exact-size heap blocks so ASan sees any overread).
 */
#include <math.h>

#include "testutil.h"

#include "parquet/thrift.h"
#include "util/buf.h"

/* Exact-size heap copy, so a one-byte overread is an ASan error. */
static uint8_t *dup_exact(const void *p, size_t n) {
  uint8_t *d = malloc(n ? n : 1);
  assert_non_null(d);
  if (n) memcpy(d, p, n);
  return d;
}

/* Skips one struct at the start of @p bytes; returns the rc. */
static int skip_struct(const uint8_t *bytes, size_t n, inlet_error *err) {
  uint8_t *d = dup_exact(bytes, n);
  inlet_thrift_reader r;
  inlet_thrift_reader_init(&r, d, n, err);
  int rc = inlet_thrift_skip(&r, INLET_THRIFT_STRUCT);
  free(d);
  return rc;
}

static void test_thrift__spec_bytes_for_small_fields(void **state) {
  (void)state;
  /* i32 field 1 = 150: short header 0x15, zigzag(150) = 300 = 0xAC 0x02;
   * bool field 2 = true: header 0x11; binary field 3 "hi"; STOP. */
  const uint8_t expect[] = {0x15, 0xAC, 0x02, 0x11, 0x18, 0x02, 'h', 'i', 0x00};
  inlet_buf b = INLET_BUF_INIT;
  inlet_thrift_writer w;
  inlet_thrift_writer_init(&w, &b);
  inlet_thrift_write_struct_begin(&w);
  inlet_thrift_write_field_i32(&w, 1, 150);
  inlet_thrift_write_field_bool(&w, 2, true);
  inlet_thrift_write_field_string(&w, 3, "hi");
  inlet_thrift_write_struct_end(&w);
  assert_int_equal(inlet_buf_status(&b), 0);
  assert_int_equal(b.len, sizeof expect);
  assert_memory_equal(b.data, expect, sizeof expect);

  inlet_error err = INLET_ERROR_INIT;
  inlet_thrift_reader r;
  inlet_thrift_reader_init(&r, expect, sizeof expect, &err);
  int16_t id;
  uint8_t t;
  int32_t v;
  bool bv;
  const uint8_t *s;
  uint32_t sl;
  assert_int_equal(inlet_thrift_read_struct_begin(&r), 0);
  assert_int_equal(inlet_thrift_read_field(&r, &id, &t), 0);
  assert_int_equal(id, 1);
  assert_int_equal(t, INLET_THRIFT_I32);
  assert_int_equal(inlet_thrift_read_i32(&r, &v), 0);
  assert_int_equal(v, 150);
  assert_int_equal(inlet_thrift_read_field(&r, &id, &t), 0);
  assert_int_equal(id, 2);
  assert_int_equal(t, INLET_THRIFT_BOOL_TRUE);
  assert_int_equal(inlet_thrift_read_bool(&r, &bv), 0);
  assert_true(bv);
  assert_int_equal(inlet_thrift_read_field(&r, &id, &t), 0);
  assert_int_equal(id, 3);
  assert_int_equal(t, INLET_THRIFT_BINARY);
  assert_int_equal(inlet_thrift_read_binary(&r, &s, &sl), 0);
  assert_int_equal(sl, 2);
  assert_memory_equal(s, "hi", 2);
  assert_int_equal(inlet_thrift_read_field(&r, &id, &t), 0);
  assert_int_equal(t, INLET_THRIFT_STOP);
  assert_int_equal(inlet_thrift_read_struct_end(&r), 0);
  assert_int_equal(inlet_thrift_reader_remaining(&r), 0);
  inlet_buf_reset(&b);
}

static void test_thrift__long_field_header_for_big_or_backward_ids(void **state) {
  (void)state;
  /* id 1 then id 17 (delta 16 > 15: long form: type byte, zigzag i16 17 =
   * 34 = 0x22), then id 3 (backwards: long form, zigzag 3 = 6). */
  const uint8_t expect[] = {0x15, 0x02, 0x05, 0x22, 0x04, 0x05, 0x06, 0x06, 0x00};
  inlet_buf b = INLET_BUF_INIT;
  inlet_thrift_writer w;
  inlet_thrift_writer_init(&w, &b);
  inlet_thrift_write_struct_begin(&w);
  inlet_thrift_write_field_i32(&w, 1, 1);
  inlet_thrift_write_field_i32(&w, 17, 2);
  inlet_thrift_write_field_i32(&w, 3, 3);
  inlet_thrift_write_struct_end(&w);
  assert_int_equal(b.len, sizeof expect);
  assert_memory_equal(b.data, expect, sizeof expect);

  inlet_thrift_reader r;
  inlet_thrift_reader_init(&r, b.data, b.len, NULL);
  int16_t id;
  uint8_t t;
  int32_t v;
  assert_int_equal(inlet_thrift_read_struct_begin(&r), 0);
  int16_t ids[3] = {1, 17, 3};
  for (int i = 0; i < 3; i++) {
    assert_int_equal(inlet_thrift_read_field(&r, &id, &t), 0);
    assert_int_equal(id, ids[i]);
    assert_int_equal(inlet_thrift_read_i32(&r, &v), 0);
    assert_int_equal(v, i + 1);
  }
  assert_int_equal(inlet_thrift_read_field(&r, &id, &t), 0);
  assert_int_equal(t, INLET_THRIFT_STOP);
  inlet_buf_reset(&b);
}

static void test_thrift__integers_roundtrip_at_boundaries(void **state) {
  (void)state;
  const int64_t i64s[] = {0,         1,         -1,           63,
                          -64,       64,        127,          128,
                          -129,      INT32_MAX, INT32_MIN,    (int64_t)INT32_MAX + 1,
                          INT64_MAX, INT64_MIN, INT64_MIN + 1};
  const int32_t i32s[] = {0, 1, -1, 300, -300, 1 << 20, INT32_MAX, INT32_MIN};
  const int16_t i16s[] = {0, 1, -1, 255, -256, INT16_MAX, INT16_MIN};
  const int8_t i8s[] = {0, 1, -1, INT8_MAX, INT8_MIN};
  inlet_buf b = INLET_BUF_INIT;
  inlet_thrift_writer w;
  inlet_thrift_writer_init(&w, &b);
  for (size_t i = 0; i < sizeof i64s / sizeof *i64s; i++)
    inlet_thrift_write_i64(&w, i64s[i]);
  for (size_t i = 0; i < sizeof i32s / sizeof *i32s; i++)
    inlet_thrift_write_i32(&w, i32s[i]);
  for (size_t i = 0; i < sizeof i16s / sizeof *i16s; i++)
    inlet_thrift_write_i16(&w, i16s[i]);
  for (size_t i = 0; i < sizeof i8s / sizeof *i8s; i++)
    inlet_thrift_write_i8(&w, i8s[i]);
  assert_int_equal(inlet_buf_status(&b), 0);

  uint8_t *d = dup_exact(b.data, b.len);
  inlet_thrift_reader r;
  inlet_thrift_reader_init(&r, d, b.len, NULL);
  for (size_t i = 0; i < sizeof i64s / sizeof *i64s; i++) {
    int64_t v;
    assert_int_equal(inlet_thrift_read_i64(&r, &v), 0);
    assert_true(v == i64s[i]);
  }
  for (size_t i = 0; i < sizeof i32s / sizeof *i32s; i++) {
    int32_t v;
    assert_int_equal(inlet_thrift_read_i32(&r, &v), 0);
    assert_int_equal(v, i32s[i]);
  }
  for (size_t i = 0; i < sizeof i16s / sizeof *i16s; i++) {
    int16_t v;
    assert_int_equal(inlet_thrift_read_i16(&r, &v), 0);
    assert_int_equal(v, i16s[i]);
  }
  for (size_t i = 0; i < sizeof i8s / sizeof *i8s; i++) {
    int8_t v;
    assert_int_equal(inlet_thrift_read_i8(&r, &v), 0);
    assert_int_equal(v, i8s[i]);
  }
  assert_int_equal(inlet_thrift_reader_remaining(&r), 0);
  free(d);
  inlet_buf_reset(&b);

  /* Spec encodings: zigzag(-1) = 1, zigzag(INT64_MIN) = 2^64-1 (10 bytes). */
  assert_true(inlet_zigzag_encode64(-1) == 1);
  assert_true(inlet_zigzag_encode64(INT64_MIN) == UINT64_MAX);
  assert_true(inlet_zigzag_decode64(UINT64_MAX - 1) == INT64_MAX);
}

static void test_thrift__doubles_uuid_and_binary_roundtrip(void **state) {
  (void)state;
  const double ds[] = {0.0, -0.0, 1.5, -2.25e300, INFINITY, -INFINITY, NAN, 5e-324};
  uint8_t uuid[16];
  for (int i = 0; i < 16; i++)
    uuid[i] = (uint8_t)(i * 17);
  uint8_t big[300];
  for (int i = 0; i < 300; i++)
    big[i] = (uint8_t)i;
  inlet_buf b = INLET_BUF_INIT;
  inlet_thrift_writer w;
  inlet_thrift_writer_init(&w, &b);
  for (size_t i = 0; i < 8; i++)
    inlet_thrift_write_double(&w, ds[i]);
  inlet_thrift_write_uuid(&w, uuid);
  inlet_thrift_write_binary(&w, big, sizeof big);
  inlet_thrift_write_binary(&w, "", 0);
  /* 1.5 is 0x3FF8000000000000, little-endian on the wire. */
  const uint8_t one_and_half[8] = {0, 0, 0, 0, 0, 0, 0xF8, 0x3F};
  assert_memory_equal(b.data + 16, one_and_half, 8);

  inlet_thrift_reader r;
  inlet_thrift_reader_init(&r, b.data, b.len, NULL);
  for (size_t i = 0; i < 8; i++) {
    double v;
    assert_int_equal(inlet_thrift_read_double(&r, &v), 0);
    assert_memory_equal(&v, &ds[i], sizeof v); /* bit-exact, NaN and -0.0 included */
  }
  const uint8_t *p;
  uint32_t n;
  assert_int_equal(inlet_thrift_read_uuid(&r, &p), 0);
  assert_memory_equal(p, uuid, 16);
  assert_int_equal(inlet_thrift_read_binary(&r, &p, &n), 0);
  assert_int_equal(n, 300);
  assert_memory_equal(p, big, 300);
  assert_int_equal(inlet_thrift_read_binary(&r, &p, &n), 0);
  assert_int_equal(n, 0);
  assert_int_equal(inlet_thrift_reader_remaining(&r), 0);
  inlet_buf_reset(&b);
}

static void test_thrift__lists_sets_maps_and_bool_elements(void **state) {
  (void)state;
  inlet_buf b = INLET_BUF_INIT;
  inlet_thrift_writer w;
  inlet_thrift_writer_init(&w, &b);
  /* Short list header: size 3 << 4 | I32. */
  inlet_thrift_write_list_begin(&w, INLET_THRIFT_I32, 3);
  for (int i = 0; i < 3; i++)
    inlet_thrift_write_i32(&w, i - 1);
  assert_int_equal(b.data[0], 0x35);
  /* Long form: 0xF0 | type, varint size 20. */
  size_t at = b.len;
  inlet_thrift_write_list_begin(&w, INLET_THRIFT_BOOL, 20);
  assert_int_equal(b.data[at], 0xF1);
  assert_int_equal(b.data[at + 1], 20);
  for (int i = 0; i < 20; i++)
    inlet_thrift_write_bool(&w, i % 3 == 0);
  inlet_thrift_write_map_begin(&w, INLET_THRIFT_BINARY, INLET_THRIFT_I64, 2);
  inlet_thrift_write_binary(&w, "a", 1);
  inlet_thrift_write_i64(&w, -5);
  inlet_thrift_write_binary(&w, "b", 1);
  inlet_thrift_write_i64(&w, 7);
  inlet_thrift_write_map_begin(&w, 0, 0, 0); /* empty map: a single 0 byte */
  assert_int_equal(b.data[b.len - 1], 0);

  inlet_thrift_reader r;
  inlet_thrift_reader_init(&r, b.data, b.len, NULL);
  uint8_t et, kt, vt;
  uint32_t n;
  assert_int_equal(inlet_thrift_read_list_begin(&r, &et, &n), 0);
  assert_int_equal(et, INLET_THRIFT_I32);
  assert_int_equal(n, 3);
  for (int i = 0; i < 3; i++) {
    int32_t v;
    assert_int_equal(inlet_thrift_read_i32(&r, &v), 0);
    assert_int_equal(v, i - 1);
  }
  assert_int_equal(inlet_thrift_read_list_end(&r), 0);
  assert_int_equal(inlet_thrift_read_list_begin(&r, &et, &n), 0);
  assert_int_equal(et, INLET_THRIFT_BOOL);
  assert_int_equal(n, 20);
  for (int i = 0; i < 20; i++) {
    bool v;
    assert_int_equal(inlet_thrift_read_bool(&r, &v), 0);
    assert_int_equal(v, i % 3 == 0);
  }
  assert_int_equal(inlet_thrift_read_list_end(&r), 0);
  assert_int_equal(inlet_thrift_read_map_begin(&r, &kt, &vt, &n), 0);
  assert_int_equal(kt, INLET_THRIFT_BINARY);
  assert_int_equal(vt, INLET_THRIFT_I64);
  assert_int_equal(n, 2);
  for (int i = 0; i < 2; i++) {
    const uint8_t *p;
    uint32_t l;
    int64_t v;
    assert_int_equal(inlet_thrift_read_binary(&r, &p, &l), 0);
    assert_int_equal(inlet_thrift_read_i64(&r, &v), 0);
    assert_true(v == (i == 0 ? -5 : 7));
  }
  assert_int_equal(inlet_thrift_read_map_end(&r), 0);
  assert_int_equal(inlet_thrift_read_map_begin(&r, &kt, &vt, &n), 0);
  assert_int_equal(n, 0);
  assert_int_equal(inlet_thrift_read_map_end(&r), 0);
  assert_int_equal(inlet_thrift_reader_remaining(&r), 0);
  inlet_buf_reset(&b);
}

/* A struct using every wire type, nested, for skip tests. */
static void write_everything(inlet_thrift_writer *w) {
  inlet_thrift_write_struct_begin(w);
  inlet_thrift_write_field_bool(w, 1, false);
  inlet_thrift_write_field_i8(w, 2, -3);
  inlet_thrift_write_field_i16(w, 3, -300);
  inlet_thrift_write_field_i32(w, 4, 1 << 30);
  inlet_thrift_write_field_i64(w, 5, INT64_MIN);
  inlet_thrift_write_field_double(w, 6, 3.25);
  inlet_thrift_write_field_binary(w, 7, "xyz", 3);
  inlet_thrift_write_field(w, 8, INLET_THRIFT_LIST);
  inlet_thrift_write_list_begin(w, INLET_THRIFT_STRUCT, 2);
  for (int i = 0; i < 2; i++) {
    inlet_thrift_write_struct_begin(w);
    inlet_thrift_write_field_i32(w, 1, i);
    inlet_thrift_write_field(w, 2, INLET_THRIFT_LIST);
    inlet_thrift_write_list_begin(w, INLET_THRIFT_LIST, 1);
    inlet_thrift_write_list_begin(w, INLET_THRIFT_DOUBLE, 1);
    inlet_thrift_write_double(w, 1.0);
    inlet_thrift_write_struct_end(w);
  }
  inlet_thrift_write_field(w, 9, INLET_THRIFT_SET);
  inlet_thrift_write_list_begin(w, INLET_THRIFT_BINARY, 16);
  for (int i = 0; i < 16; i++)
    inlet_thrift_write_binary(w, "s", 1);
  inlet_thrift_write_field(w, 10, INLET_THRIFT_MAP);
  inlet_thrift_write_map_begin(w, INLET_THRIFT_I32, INLET_THRIFT_STRUCT, 1);
  inlet_thrift_write_i32(w, 9);
  inlet_thrift_write_struct_begin(w);
  inlet_thrift_write_field_bool(w, 300, true);
  inlet_thrift_write_struct_end(w);
  uint8_t u[16] = {1, 2, 3};
  inlet_thrift_write_field(w, 11, INLET_THRIFT_UUID);
  inlet_thrift_write_uuid(w, u);
  inlet_thrift_write_field(w, 12, INLET_THRIFT_LIST);
  inlet_thrift_write_list_begin(w, INLET_THRIFT_BOOL, 2);
  inlet_thrift_write_bool(w, true);
  inlet_thrift_write_bool(w, false);
  inlet_thrift_write_struct_end(w);
}

static void test_thrift__skip_handles_every_type_and_stops_exactly(void **state) {
  (void)state;
  inlet_buf b = INLET_BUF_INIT;
  inlet_thrift_writer w;
  inlet_thrift_writer_init(&w, &b);
  write_everything(&w);
  size_t first = b.len;
  inlet_thrift_write_i32(&w, 4242); /* a sentinel after the struct */
  assert_int_equal(w.depth, 0);
  inlet_thrift_reader r;
  inlet_error err = INLET_ERROR_INIT;
  inlet_thrift_reader_init(&r, b.data, b.len, &err);
  assert_int_equal(inlet_thrift_skip(&r, INLET_THRIFT_STRUCT), 0);
  assert_int_equal(inlet_thrift_reader_offset(&r), first);
  assert_int_equal(r.depth, 0);
  int32_t v;
  assert_int_equal(inlet_thrift_read_i32(&r, &v), 0);
  assert_int_equal(v, 4242);
  inlet_buf_reset(&b);
}

static void test_thrift__every_truncation_is_corrupt(void **state) {
  (void)state;
  inlet_buf b = INLET_BUF_INIT;
  inlet_thrift_writer w;
  inlet_thrift_writer_init(&w, &b);
  write_everything(&w);
  for (size_t n = 0; n < b.len; n++) {
    inlet_error err = INLET_ERROR_INIT;
    assert_int_equal(skip_struct(b.data, n, &err), INLET_ECORRUPT);
    assert_int_equal(err.code, INLET_ECORRUPT);
    assert_non_null(strstr(err.message, "corrupt thrift data at byte"));
  }
  assert_int_equal(skip_struct(b.data, b.len, NULL), 0);
  inlet_buf_reset(&b);
}

static void test_thrift__varint_overflow_and_truncation_are_corrupt(void **state) {
  (void)state;
  inlet_error err = INLET_ERROR_INIT;
  inlet_thrift_reader r;
  int32_t v32;
  int64_t v64;
  int16_t v16;
  /* Truncated: continuation bit set on the last byte. */
  const uint8_t trunc[] = {0x80, 0x80};
  uint8_t *d = dup_exact(trunc, sizeof trunc);
  inlet_thrift_reader_init(&r, d, sizeof trunc, &err);
  assert_int_equal(inlet_thrift_read_i64(&r, &v64), INLET_ECORRUPT);
  assert_non_null(strstr(err.message, "truncated varint"));
  free(d);
  /* 2^32 does not fit an i32 varint (5th byte may hold 4 bits only). */
  const uint8_t big32[] = {0x80, 0x80, 0x80, 0x80, 0x10};
  inlet_thrift_reader_init(&r, big32, sizeof big32, &err);
  assert_int_equal(inlet_thrift_read_i32(&r, &v32), INLET_ECORRUPT);
  /* ... but 2^32 - 1 does. */
  const uint8_t max32[] = {0xFF, 0xFF, 0xFF, 0xFF, 0x0F};
  inlet_thrift_reader_init(&r, max32, sizeof max32, &err);
  assert_int_equal(inlet_thrift_read_i32(&r, &v32), 0);
  assert_int_equal(v32, INT32_MIN);
  /* 11-byte and over-long 10-byte varints for i64. */
  const uint8_t big64[] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02};
  inlet_thrift_reader_init(&r, big64, sizeof big64, &err);
  assert_int_equal(inlet_thrift_read_i64(&r, &v64), INLET_ECORRUPT);
  const uint8_t long64[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
  inlet_thrift_reader_init(&r, long64, sizeof long64, &err);
  assert_int_equal(inlet_thrift_read_i64(&r, &v64), INLET_ECORRUPT);
  /* i16 with a value of 2^16. */
  const uint8_t big16[] = {0x80, 0x80, 0x04};
  inlet_thrift_reader_init(&r, big16, sizeof big16, &err);
  assert_int_equal(inlet_thrift_read_i16(&r, &v16), INLET_ECORRUPT);
  /* Empty input. */
  inlet_thrift_reader_init(&r, big16, 0, &err);
  assert_int_equal(inlet_thrift_read_i32(&r, &v32), INLET_ECORRUPT);
  double dv;
  inlet_thrift_reader_init(&r, big64, 7, &err);
  assert_int_equal(inlet_thrift_read_double(&r, &dv), INLET_ECORRUPT);
}

static void test_thrift__lengths_and_sizes_are_held_to_remaining_bytes(void **state) {
  (void)state;
  inlet_error err = INLET_ERROR_INIT;
  inlet_thrift_reader r;
  const uint8_t *p;
  uint32_t n;
  uint8_t et;
  /* Binary length 5 with 3 bytes left. */
  const uint8_t shortbin[] = {0x05, 'a', 'b', 'c'};
  uint8_t *d = dup_exact(shortbin, sizeof shortbin);
  inlet_thrift_reader_init(&r, d, sizeof shortbin, &err);
  assert_int_equal(inlet_thrift_read_binary(&r, &p, &n), INLET_ECORRUPT);
  assert_non_null(strstr(err.message, "exceeds"));
  free(d);
  /* "Negative" length: the varint of 0xFFFFFFFF (-1 as i32). */
  const uint8_t neg[] = {0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 'x'};
  inlet_thrift_reader_init(&r, neg, sizeof neg, &err);
  assert_int_equal(inlet_thrift_read_binary(&r, &p, &n), INLET_ECORRUPT);
  /* List of 2^31-1 i32s in 6 bytes. */
  const uint8_t huge[] = {0xF5, 0xFF, 0xFF, 0xFF, 0xFF, 0x07};
  inlet_thrift_reader_init(&r, huge, sizeof huge, &err);
  assert_int_equal(inlet_thrift_read_list_begin(&r, &et, &n), INLET_ECORRUPT);
  assert_non_null(strstr(err.message, "cannot fit"));
  /* List of 3 doubles needs 24 bytes. */
  const uint8_t dbls[] = {0x37, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  inlet_thrift_reader_init(&r, dbls, sizeof dbls, &err);
  assert_int_equal(inlet_thrift_read_list_begin(&r, &et, &n), INLET_ECORRUPT);
  /* Map of 2^28 entries. */
  const uint8_t hmap[] = {0x80, 0x80, 0x80, 0x80, 0x01, 0x55, 0x00};
  inlet_thrift_reader_init(&r, hmap, sizeof hmap, &err);
  uint8_t kt, vt;
  assert_int_equal(inlet_thrift_read_map_begin(&r, &kt, &vt, &n), INLET_ECORRUPT);
  /* Unknown element / field types (14, 15). */
  const uint8_t badlist[] = {0x1E, 0x00};
  inlet_thrift_reader_init(&r, badlist, sizeof badlist, &err);
  assert_int_equal(inlet_thrift_read_list_begin(&r, &et, &n), INLET_ECORRUPT);
  const uint8_t badfield[] = {0x1F, 0x00};
  assert_int_equal(skip_struct(badfield, sizeof badfield, &err), INLET_ECORRUPT);
  /* Invalid bool element value. */
  const uint8_t badbool[] = {0x21, 0x01, 0x07};
  inlet_thrift_reader_init(&r, badbool, sizeof badbool, &err);
  assert_int_equal(inlet_thrift_skip(&r, INLET_THRIFT_LIST), INLET_ECORRUPT);
}

static void test_thrift__deep_nesting_is_corrupt_not_a_crash(void **state) {
  (void)state;
  /* 10,000 nested struct fields (0x1C = field 1, STRUCT), then stops. */
  enum { N = 10000 };
  uint8_t *d = malloc(2 * N);
  memset(d, 0x1C, N);
  memset(d + N, 0x00, N);
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(skip_struct(d, 2 * N, &err), INLET_ECORRUPT);
  assert_non_null(strstr(err.message, "nesting"));
  /* Lists of lists nest too (0x19 = list of 1 list). */
  memset(d, 0x19, N);
  inlet_thrift_reader r;
  inlet_thrift_reader_init(&r, d, N, &err);
  assert_int_equal(inlet_thrift_skip(&r, INLET_THRIFT_LIST), INLET_ECORRUPT);
  free(d);
  /* Within the limit it works: 20 levels. */
  uint8_t ok[41];
  memset(ok, 0x1C, 20);
  memset(ok + 20, 0x00, 21);
  assert_int_equal(skip_struct(ok, sizeof ok, NULL), 0);
}

static void test_thrift__field_id_delta_overflow_is_corrupt(void **state) {
  (void)state;
  /* Long-form id 32767, then a delta of 1: 32768 does not fit an i16. */
  const uint8_t d[] = {0x05, 0xFE, 0xFF, 0x03, 0x00, 0x15, 0x00, 0x00};
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(skip_struct(d, sizeof d, &err), INLET_ECORRUPT);
  assert_non_null(strstr(err.message, "field id"));
}

static void test_thrift__random_bytes_never_crash(void **state) {
  (void)state;
  uint64_t x = 0x9E3779B97F4A7C15ull;
  uint8_t buf[64];
  for (int iter = 0; iter < 20000; iter++) {
    size_t n = (size_t)(x % sizeof buf);
    for (size_t i = 0; i < n; i++) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      buf[i] = (uint8_t)x;
    }
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    inlet_error err = INLET_ERROR_INIT;
    int rc = skip_struct(buf, n, &err);
    assert_true(rc == 0 || (rc == INLET_ECORRUPT && err.code == INLET_ECORRUPT));
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_thrift__spec_bytes_for_small_fields),
      cmocka_unit_test(test_thrift__long_field_header_for_big_or_backward_ids),
      cmocka_unit_test(test_thrift__integers_roundtrip_at_boundaries),
      cmocka_unit_test(test_thrift__doubles_uuid_and_binary_roundtrip),
      cmocka_unit_test(test_thrift__lists_sets_maps_and_bool_elements),
      cmocka_unit_test(test_thrift__skip_handles_every_type_and_stops_exactly),
      cmocka_unit_test(test_thrift__every_truncation_is_corrupt),
      cmocka_unit_test(test_thrift__varint_overflow_and_truncation_are_corrupt),
      cmocka_unit_test(test_thrift__lengths_and_sizes_are_held_to_remaining_bytes),
      cmocka_unit_test(test_thrift__deep_nesting_is_corrupt_not_a_crash),
      cmocka_unit_test(test_thrift__field_id_delta_overflow_is_corrupt),
      cmocka_unit_test(test_thrift__random_bytes_never_crash),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
