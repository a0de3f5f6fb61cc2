/*
 * Unit tests for deletion vectors (src/delta/delta_dv.c): Z85 against the
 * ZeroMQ RFC 32 test vector, descriptors and paths against PROTOCOL.md's
 * own examples, DV files built here byte by byte (bitmaps serialized by
 * CRoaring, checksums by zlib) through the POSIX storage backend, and every
 * corruption a DV file or descriptor can carry: a clear error naming the
 * data file and the problem.
 */
#include "testutil.h"

#include <roaring/roaring.h>
#include <stdio.h>
#include <sys/stat.h>
#include <zlib.h>

#include "delta/delta_dv.h"
#include "util/util.h"

/* PROTOCOL.md "JSON Example 1": this pathOrInlineDv names
 * ab/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin. */
#define SPEC_U "ab^-aqEH.-t@S}K{vb[*k^"
#define SPEC_U_FILE "ab/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin"

typedef struct fixture {
  char dir[4096];
  inlet_storage *st;
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  snprintf(f->dir, sizeof f->dir, "%s", tu_mkdtemp("delta-dv"));
  tu_rules_exempt(f->dir, "test_delta_dv: DV files only, no table");
  char sub[4200];
  snprintf(sub, sizeof sub, "%s/ab", f->dir);
  mkdir(sub, 0755);
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_storage_posix_open(&f->st, f->dir, false, &err), 0);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  f->st->ops->free(f->st);
  tu_rmtree(f->dir);
  free(f);
  return 0;
}

static void put_le32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}
static void put_be32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++)
    p[i] = (uint8_t)(v >> (24 - 8 * i));
}

/* The RoaringBitmapArray of @p rows (ascending) into @p out; its length. */
static size_t serialize(const uint64_t *rows, size_t n, uint8_t *out) {
  put_le32(out, 1681511377u);
  size_t pos = 12;
  uint64_t buckets = 0;
  size_t i = 0;
  while (i < n) {
    uint32_t key = (uint32_t)(rows[i] >> 32);
    roaring_bitmap_t *bm = roaring_bitmap_create();
    for (; i < n && (uint32_t)(rows[i] >> 32) == key; i++)
      roaring_bitmap_add(bm, (uint32_t)rows[i]);
    put_le32(out + pos, key);
    pos += 4;
    pos += roaring_bitmap_portable_serialize(bm, (char *)out + pos);
    roaring_bitmap_free(bm);
    buckets++;
  }
  put_le32(out + 4, (uint32_t)buckets);
  put_le32(out + 8, (uint32_t)(buckets >> 32));
  return pos;
}

/* A DV file: version byte, then each bitmap framed by size and CRC-32. */
typedef struct dv_file {
  uint8_t bytes[4096];
  size_t len;
} dv_file;

static int64_t file_add(dv_file *df, const uint8_t *bitmap, size_t n) {
  if (df->len == 0) df->bytes[df->len++] = 1;
  int64_t off = (int64_t)df->len;
  put_be32(df->bytes + df->len, (uint32_t)n);
  memcpy(df->bytes + df->len + 4, bitmap, n);
  put_be32(df->bytes + df->len + 4 + n, (uint32_t)crc32(0L, bitmap, (uInt)n));
  df->len += n + 8;
  return off;
}

static void write_rel(fixture *f, const char *rel, const void *data, size_t n) {
  char path[4300];
  snprintf(path, sizeof path, "%s/%s", f->dir, rel);
  assert_int_equal(tu_write_file(path, data, n), 0);
}

static char *desc_json(const char *type, const char *pi, long long off, long long size,
                       long long card) {
  static char buf[1024];
  if (off < 0)
    snprintf(buf, sizeof buf,
             "{\"storageType\":\"%s\",\"pathOrInlineDv\":\"%s\",\"sizeInBytes\":%lld,"
             "\"cardinality\":%lld}",
             type, pi, size, card);
  else
    snprintf(buf, sizeof buf,
             "{\"storageType\":\"%s\",\"pathOrInlineDv\":\"%s\",\"offset\":%lld,"
             "\"sizeInBytes\":%lld,\"cardinality\":%lld}",
             type, pi, off, size, card);
  return buf;
}

/* Loading fails with @p code and a message naming the data file and
 * containing @p what. */
static void expect_fail(fixture *f, const char *json, int code, const char *what) {
  inlet_error err = INLET_ERROR_INIT;
  delta_dv *dv = NULL;
  int rc = delta_dv_load(f->st, f->dir, "part-0.parquet", json, &dv, &err);
  if (rc != code || !strstr(err.message, "part-0.parquet") || !strstr(err.message, what))
    fail_msg("expected %d naming \"%s\", got %d: %s", code, what, rc, err.message);
  assert_null(dv);
}

static void test_dv__z85_rfc32_vector_and_bad_text(void **state) {
  (void)state;
  uint8_t out[8];
  inlet_error err = INLET_ERROR_INIT;
  static const uint8_t want[8] = {0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B};
  assert_int_equal(delta_z85_decode("HelloWorld", 10, out, &err), 0);
  assert_memory_equal(out, want, 8);
  assert_int_equal(delta_z85_decode("Hello\"orld", 10, out, &err), INLET_ECORRUPT);
  assert_non_null(strstr(err.message, "Z85"));
  assert_int_equal(delta_z85_decode("Hell", 4, out, &err), INLET_ECORRUPT);
  assert_non_null(strstr(err.message, "multiple of 5"));
  /* "#####" is 85^5 - 1 = 0x1_0878_0EC4, above 2^32 - 1: Delta's decoder
   * keeps the low 32 bits (Spark wrote such groups in inline DVs). */
  static const uint8_t low[4] = {0x08, 0x78, 0x0E, 0xC4};
  assert_int_equal(delta_z85_decode("#####", 5, out, &err), 0);
  assert_memory_equal(out, low, 4);
}

static void test_dv__spec_inline_example(void **state) {
  fixture *f = *state;
  /* PROTOCOL.md "JSON Example 3": rows 3, 4, 7, 11, 18, 29 (its bytes are
   * Spark's native RoaringBitmapArray serialization, magic 1681511376). */
  const char *json = "{\"storageType\":\"i\",\"pathOrInlineDv\":"
                     "\"wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L\","
                     "\"sizeInBytes\":40,\"cardinality\":6}";
  inlet_error err = INLET_ERROR_INIT;
  delta_dv *dv = NULL;
  assert_int_equal(delta_dv_load(f->st, f->dir, "x.parquet", json, &dv, &err), 0);
  static const uint64_t rows[] = {3, 4, 7, 11, 18, 29};
  assert_int_equal(delta_dv_cardinality(dv), 6);
  for (uint64_t r = 0; r < 40; r++) {
    bool want = false;
    for (size_t k = 0; k < 6; k++)
      want |= rows[k] == r;
    assert_int_equal(delta_dv_contains(dv, r), want);
  }
  assert_int_equal(delta_dv_count_range(dv, 0, 100), 6);
  assert_int_equal(delta_dv_count_range(dv, 4, 12), 3);
  assert_int_equal(delta_dv_count_range(dv, 30, 1000), 0);
  delta_dv_free(dv);
}

static void test_dv__spec_uuid_paths(void **state) {
  (void)state;
  inlet_error err = INLET_ERROR_INIT;
  delta_dv_desc d;
  char *p = NULL;
  assert_int_equal(delta_dv_desc_parse(&d, desc_json("u", SPEC_U, 4, 40, 6), &err), 0);
  assert_int_equal(d.storage_type, 'u');
  assert_true(d.has_offset);
  assert_int_equal(d.offset, 4);
  assert_int_equal(delta_dv_file_path(&d, "/t", &p, &err), 0);
  assert_string_equal(p, SPEC_U_FILE);
  free(p);
  delta_dv_desc_reset(&d);
  /* Without a prefix the file sits in the table root. */
  assert_int_equal(delta_dv_desc_parse(&d, desc_json("u", SPEC_U + 2, -1, 40, 6), &err), 0);
  assert_false(d.has_offset);
  assert_int_equal(delta_dv_file_path(&d, "/t", &p, &err), 0);
  assert_string_equal(p, SPEC_U_FILE + 3);
  free(p);
  delta_dv_desc_reset(&d);
  /* A prefix that could leave the table directory is refused. */
  assert_int_equal(delta_dv_desc_parse(&d, desc_json("u", "../" SPEC_U, 1, 40, 6), &err), 0);
  assert_int_equal(delta_dv_file_path(&d, "/t", &p, &err), INLET_ECORRUPT);
  assert_non_null(strstr(err.message, "random prefix"));
  delta_dv_desc_reset(&d);
  /* 'p': an absolute path inside the table, as add.path. */
  assert_int_equal(delta_dv_desc_parse(&d, desc_json("p", "file:///t/dv%20x.bin", 1, 40, 6), &err),
                   0);
  assert_int_equal(delta_dv_file_path(&d, "/t", &p, &err), 0);
  assert_string_equal(p, "dv x.bin");
  free(p);
  delta_dv_desc_reset(&d);
  assert_int_equal(delta_dv_desc_parse(&d, desc_json("p", "/elsewhere/dv.bin", 1, 40, 6), &err), 0);
  assert_int_equal(delta_dv_file_path(&d, "/t", &p, &err), INLET_ECORRUPT);
  assert_non_null(strstr(err.message, "escapes the table"));
  delta_dv_desc_reset(&d);
  /* Malformed descriptors. */
  assert_int_equal(delta_dv_desc_parse(&d, desc_json("x", SPEC_U, 1, 40, 6), &err), INLET_ECORRUPT);
  assert_non_null(strstr(err.message, "storageType"));
  assert_int_equal(delta_dv_desc_parse(&d, desc_json("u", SPEC_U, -1, -3, 6), &err),
                   INLET_ECORRUPT);
  assert_non_null(strstr(err.message, "sizeInBytes"));
  assert_int_equal(delta_dv_desc_parse(&d, "{\"storageType\":\"u\"}", &err), INLET_ECORRUPT);
  assert_int_equal(delta_dv_desc_parse(&d, "[1]", &err), INLET_ECORRUPT);
}

/* Two DVs in one file (the second at an offset), 64-bit row indexes. */
static void test_dv__file_with_two_dvs(void **state) {
  fixture *f = *state;
  uint8_t b1[512], b2[512];
  /* The first bitmap is big enough to put the second DV past the range
   * read together with the version byte (offset > 64). */
  uint64_t r1[44] = {0, 5};
  for (int i = 0; i < 40; i++)
    r1[2 + i] = 100 + (uint64_t)i * 3;
  r1[42] = 70000;
  r1[43] = 70001;
  static const uint64_t r2[] = {2, ((uint64_t)1 << 32) + 9, ((uint64_t)3 << 32)};
  size_t n1 = serialize(r1, 44, b1), n2 = serialize(r2, 3, b2);
  dv_file df = {{0}, 0};
  int64_t o1 = file_add(&df, b1, n1), o2 = file_add(&df, b2, n2);
  write_rel(f, SPEC_U_FILE, df.bytes, df.len);
  inlet_error err = INLET_ERROR_INIT;
  delta_dv *dv = NULL;
  assert_int_equal(delta_dv_load(f->st, f->dir, "a.parquet",
                                 desc_json("u", SPEC_U, o1, (long long)n1, 44), &dv, &err),
                   0);
  assert_true(delta_dv_contains(dv, 70001));
  assert_true(delta_dv_contains(dv, 103));
  assert_false(delta_dv_contains(dv, 2));
  assert_int_equal(delta_dv_count_range(dv, 1, 70001), 42);
  assert_true(o2 > 64);
  delta_dv_free(dv);
  assert_int_equal(delta_dv_load(f->st, f->dir, "a.parquet",
                                 desc_json("u", SPEC_U, o2, (long long)n2, 3), &dv, &err),
                   0);
  assert_true(delta_dv_contains(dv, ((uint64_t)1 << 32) + 9));
  assert_false(delta_dv_contains(dv, 9));
  assert_int_equal(delta_dv_count_range(dv, 0, ((uint64_t)4 << 32)), 3);
  assert_int_equal(delta_dv_count_range(dv, 3, ((uint64_t)3 << 32)), 1);
  delta_dv_free(dv);
}

static void test_dv__corrupt_files_are_clear_errors(void **state) {
  fixture *f = *state;
  uint8_t bm[512];
  static const uint64_t rows[] = {1, 2, 3};
  size_t n = serialize(rows, 3, bm);
  dv_file good = {{0}, 0};
  int64_t off = file_add(&good, bm, n);
  const char *json = desc_json("u", SPEC_U, off, (long long)n, 3);
  char saved[1024];
  snprintf(saved, sizeof saved, "%s", json);

  /* Missing file. */
  expect_fail(f, saved, INLET_ENOTFOUND, "deletion_vector_d2c639aa");
  /* Bad magic (checksum recomputed, so the magic is what is wrong). */
  dv_file df = good;
  df.bytes[off + 4] ^= 0x01;
  put_be32(df.bytes + off + 4 + n, (uint32_t)crc32(0L, df.bytes + off + 4, (uInt)n));
  write_rel(f, SPEC_U_FILE, df.bytes, df.len);
  expect_fail(f, saved, INLET_ECORRUPT, "bad magic number");
  /* Bad checksum. */
  df = good;
  df.bytes[df.len - 1] ^= 0xff;
  write_rel(f, SPEC_U_FILE, df.bytes, df.len);
  expect_fail(f, saved, INLET_ECORRUPT, "checksum mismatch");
  /* A flipped data byte: the checksum catches it. */
  df = good;
  df.bytes[off + 14] ^= 0x40;
  write_rel(f, SPEC_U_FILE, df.bytes, df.len);
  expect_fail(f, saved, INLET_ECORRUPT, "checksum mismatch");
  /* Truncated file. */
  write_rel(f, SPEC_U_FILE, good.bytes, good.len - 3);
  expect_fail(f, saved, INLET_ECORRUPT, "out of range");
  write_rel(f, SPEC_U_FILE, good.bytes, good.len);
  /* Offset out of range, and offset 0 (the version byte). */
  expect_fail(f, desc_json("u", SPEC_U, 4000, (long long)n, 3), INLET_ECORRUPT, "out of range");
  expect_fail(f, desc_json("u", SPEC_U, 0, (long long)n, 3), INLET_ECORRUPT, "offset 0");
  /* sizeInBytes that disagrees with the file's size field. */
  expect_fail(f, desc_json("u", SPEC_U, off, (long long)n - 1, 3), INLET_ECORRUPT, "size field");
  /* Cardinality that disagrees with the bitmap. */
  expect_fail(f, desc_json("u", SPEC_U, off, (long long)n, 4), INLET_ECORRUPT, "cardinality");
  /* Wrong format version byte. */
  df = good;
  df.bytes[0] = 2;
  write_rel(f, SPEC_U_FILE, df.bytes, df.len);
  expect_fail(f, saved, INLET_ECORRUPT, "format version 2");
  write_rel(f, SPEC_U_FILE, good.bytes, good.len);
  /* The good file still loads. */
  inlet_error err = INLET_ERROR_INIT;
  delta_dv *dv = NULL;
  assert_int_equal(delta_dv_load(f->st, f->dir, "part-0.parquet", saved, &dv, &err), 0);
  assert_int_equal(delta_dv_cardinality(dv), 3);
  delta_dv_free(dv);
}

static void test_dv__corrupt_inline_and_bitmaps(void **state) {
  fixture *f = *state;
  /* Bad Z85 in an inline DV (a quote is not in the alphabet; '~' neither). */
  expect_fail(f, desc_json("i", "wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{~", -1, 40, 6),
              INLET_ECORRUPT, "Z85");
  /* Length that does not fit sizeInBytes. */
  expect_fail(f, desc_json("i", "wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5", -1, 40, 6),
              INLET_ECORRUPT, "sizeInBytes 40");
  /* Bitmaps that are not RoaringBitmapArrays. */
  inlet_error err = INLET_ERROR_INIT;
  delta_dv *dv = NULL;
  uint8_t buf[512];
  static const uint64_t rows[] = {1, 2, 3};
  size_t n = serialize(rows, 3, buf);
  assert_int_equal(delta_dv_decode(buf, n, &dv, &err), 0);
  delta_dv_free(dv);
  for (size_t cut = 0; cut < n; cut++) {
    assert_int_equal(delta_dv_decode(buf, cut, &dv, &err), INLET_ECORRUPT);
    assert_null(dv);
  }
  uint8_t more[520];
  memcpy(more, buf, n);
  more[n] = 0;
  assert_int_equal(delta_dv_decode(more, n + 1, &dv, &err), INLET_ECORRUPT);
  assert_non_null(strstr(err.message, "after its last bucket"));
  /* A bucket count the bytes cannot hold. */
  memcpy(more, buf, n);
  put_le32(more + 4, 0xffffffffu);
  assert_int_equal(delta_dv_decode(more, n, &dv, &err), INLET_ECORRUPT);
  assert_non_null(strstr(err.message, "buckets cannot fit"));
  /* A well-framed array container whose values repeat (0, 0, 0, 0, 0, 2),
   * in Spark's native format: the sizes add up, the contents do not
   * (dv_fuzzer found CRoaring accepts it). */
  static const uint8_t dup[] = {0x64, 0x39, 0xd3, 0xd0, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
                                0x00, 0x1c, 0x3a, 0x30, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
                                0x00, 0x00, 0x05, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00,
                                0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00};
  assert_int_equal(delta_dv_decode(dup, sizeof dup, &dv, &err), INLET_ECORRUPT);
  assert_non_null(strstr(err.message, "not a valid roaring bitmap"));
  /* A run container with no runs (dv_fuzzer: CRoaring's deserializer takes
   * it and its iterator then reads through a NULL pointer). */
  static const uint8_t no_runs[] = {0xd1, 0xd3, 0x39, 0x64, 0x01, 0x00, 0x00, 0x00, 0x00,
                                    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x3b, 0x30,
                                    0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
                                    0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00};
  assert_int_equal(delta_dv_decode(no_runs, sizeof no_runs, &dv, &err), INLET_ECORRUPT);
  assert_non_null(strstr(err.message, "not a valid roaring bitmap"));
  /* A key with its top bit set. */
  memcpy(more, buf, n);
  put_le32(more + 12, 0x80000000u);
  assert_int_equal(delta_dv_decode(more, n, &dv, &err), INLET_ECORRUPT);
  assert_non_null(strstr(err.message, "top bit"));
}

/* What delete writes (delta_dv_add, delta_dv_file_append, a 'u' name and
 * descriptor) reads back through the reader, two DVs in one file, rows in
 * several 2^32 buckets added out of order; Z85 encoding is RFC 32's. */
static void test_dv__written_dvs_read_back(void **state) {
  fixture *f = *state;
  inlet_error err = INLET_ERROR_INIT;
  char z[11];
  static const uint8_t hello[8] = {0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B};
  delta_z85_encode(hello, 8, z);
  assert_string_equal(z, "HelloWorld");
  delta_dv *a = NULL, *b = NULL;
  static const uint64_t ra[] = {9, 3, ((uint64_t)2 << 32) + 7, 3, 100000, 4};
  for (size_t i = 0; i < sizeof ra / sizeof ra[0]; i++)
    assert_int_equal(delta_dv_add(&a, ra[i], &err), 0);
  for (uint64_t r = 1000; r < 5000; r++) /* a run */
    assert_int_equal(delta_dv_add(&b, r, &err), 0);
  assert_int_equal(delta_dv_cardinality(a), 5);
  assert_int_equal(delta_dv_add(&b, (uint64_t)1 << 63, &err), INLET_ELIMIT);
  inlet_buf file;
  memset(&file, 0, sizeof file);
  int64_t oa, sa, ob, sb;
  assert_int_equal(delta_dv_file_append(&file, a, &oa, &sa, &err), 0);
  assert_int_equal(delta_dv_file_append(&file, b, &ob, &sb, &err), 0);
  assert_int_equal(oa, 1);
  assert_int_equal(ob, 1 + 4 + sa + 4);
  char z85[21], *rel = NULL;
  assert_int_equal(delta_dv_new_file_name(z85, &rel, &err), 0);
  assert_int_equal(strncmp(rel, "deletion_vector_", 16), 0);
  write_rel(f, rel, file.data, file.len);
  char *ja = delta_dv_desc_json(z85, oa, sa, delta_dv_cardinality(a));
  char *jb = delta_dv_desc_json(z85, ob, sb, delta_dv_cardinality(b));
  delta_dv *ga = NULL, *gb = NULL;
  assert_int_equal(delta_dv_load(f->st, f->dir, "a.parquet", ja, &ga, &err), 0);
  assert_int_equal(delta_dv_load(f->st, f->dir, "b.parquet", jb, &gb, &err), 0);
  assert_int_equal(delta_dv_cardinality(ga), 5);
  assert_true(delta_dv_contains(ga, ((uint64_t)2 << 32) + 7));
  assert_true(delta_dv_contains(ga, 100000));
  assert_false(delta_dv_contains(ga, 7));
  assert_int_equal(delta_dv_count_range(gb, 0, 10000), 4000);
  assert_false(delta_dv_contains(gb, 5000));
  delta_dv_free(a);
  delta_dv_free(b);
  delta_dv_free(ga);
  delta_dv_free(gb);
  inlet_free(ja);
  inlet_free(jb);
  inlet_free(rel);
  inlet_buf_reset(&file);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dv__z85_rfc32_vector_and_bad_text),
      cmocka_unit_test_setup_teardown(test_dv__spec_inline_example, setup, teardown),
      cmocka_unit_test(test_dv__spec_uuid_paths),
      cmocka_unit_test_setup_teardown(test_dv__file_with_two_dvs, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dv__corrupt_files_are_clear_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dv__corrupt_inline_and_bitmaps, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dv__written_dvs_read_back, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
