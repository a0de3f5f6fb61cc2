/*
 * Arrow C Data / C Stream Interface export (inlet/arrow.h), consumed the way
 * an Arrow consumer reads it: only through the exported structs (format
 * strings, flags, buffers, children, release callbacks), never through
 * inlet's own arrays. Covers every type's format and values with nulls and
 * nesting, releases in several orders (children moved out and released
 * after their parent, schema children likewise, columns released on other
 * threads while the root is), empty batches, a stream over a table of
 * several data files (rows equal what was written), a projected and
 * filtered stream, a table without files, and a stream whose data file was
 * deleted (errno code and get_last_error naming the file).
 */
#include "testutil.h"

#include <dirent.h>
#include <pthread.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inlet/inlet.h"

static const char *DDL = "b boolean, i8 byte, i16 short, i32 int, i64 long, f float, d double, "
                         "s string, bin binary, day date, ts timestamp, tsn timestamp_ntz, "
                         "dec decimal(10,2), st struct<a:int,t:string>, l array<long>, "
                         "m map<string,int>, j json, u uuid, tms timestamp_ms, nn long not null";

/* Row 0 has values everywhere, row 1 nulls everywhere nullable, row 2 edge
 * values (empty string, empty list, empty map, negative decimal). */
static const char *ROWS =
    "{\"b\":true,\"i8\":-8,\"i16\":-16,\"i32\":32,\"i64\":-64000000000,\"f\":1.5,\"d\":-2.25,"
    "\"s\":\"héllo\",\"bin\":\"00ff10\",\"day\":\"2024-05-01\",\"ts\":\"2024-05-01T10:00:00Z\","
    "\"tsn\":\"2024-05-01T10:00:00\",\"dec\":\"12.34\",\"st\":{\"a\":7,\"t\":\"x\"},"
    "\"l\":[1,null,3],\"m\":{\"k1\":1,\"k2\":null},\"j\":{\"a\":1},"
    "\"u\":\"00112233-4455-6677-8899-aabbccddeeff\",\"tms\":\"2024-05-01T10:00:00.123Z\","
    "\"nn\":1}\n"
    "{\"b\":null,\"i8\":null,\"i16\":null,\"i32\":null,\"i64\":null,\"f\":null,\"d\":null,"
    "\"s\":null,\"bin\":null,\"day\":null,\"ts\":null,\"tsn\":null,\"dec\":null,\"st\":null,"
    "\"l\":null,\"m\":null,\"j\":null,\"u\":null,\"tms\":null,\"nn\":2}\n"
    "{\"b\":false,\"i8\":127,\"i16\":0,\"i32\":-1,\"i64\":0,\"f\":0,\"d\":0,\"s\":\"\",\"bin\":"
    "\"\","
    "\"day\":\"1969-12-31\",\"ts\":\"1970-01-01T00:00:00Z\",\"tsn\":\"1970-01-01T00:00:01\","
    "\"dec\":\"-0.05\",\"st\":{\"a\":null,\"t\":null},\"l\":[],\"m\":{},\"j\":[],"
    "\"u\":\"ffffffff-ffff-ffff-ffff-ffffffffffff\",\"tms\":\"1970-01-01T00:00:00Z\",\"nn\":3}\n";

static void load_batch(inlet_batch *b, inlet_schema *schema) {
  inlet_error err = INLET_ERROR_INIT;
  if (inlet_schema_parse(schema, DDL, &err) != 0) fail_msg("ddl: %s", err.message);
  inlet_text_reader *r = NULL;
  inlet_text_reader_options o = INLET_TEXT_READER_OPTIONS_INIT;
  assert_int_equal(inlet_text_reader_open_memory(&r, ROWS, strlen(ROWS), schema, &o, &err), 0);
  memset(b, 0, sizeof *b);
  if (inlet_text_reader_next(r, b, &err) < 0) fail_msg("read: %s", err.message);
  assert_int_equal(b->num_rows, 3);
  inlet_text_reader_free(r);
}

/* ---- consumer-side readers (the Arrow layout, nothing inlet-specific) ---- */

static bool valid(const struct ArrowArray *a, int64_t i) {
  const uint8_t *v = a->buffers[0];
  return v == NULL || ((v[(a->offset + i) >> 3] >> ((a->offset + i) & 7)) & 1);
}
static const void *buf(const struct ArrowArray *a, int k) {
  return a->buffers[k];
}
static void str_at(const struct ArrowArray *a, int64_t i, const char **p, int32_t *n) {
  const int32_t *off = buf(a, 1);
  *p = (const char *)buf(a, 2) + off[i];
  *n = off[i + 1] - off[i];
}
static void assert_str(const struct ArrowArray *a, int64_t i, const char *want) {
  const char *p;
  int32_t n;
  str_at(a, i, &p, &n);
  if (n != (int32_t)strlen(want)) fail_msg("got \"%.*s\", want \"%s\"", (int)n, p, want);
  assert_memory_equal(p, want, (size_t)n);
}

static const struct ArrowSchema *child_named(const struct ArrowSchema *s, const char *name,
                                             int64_t *index) {
  for (int64_t i = 0; i < s->n_children; i++)
    if (strcmp(s->children[i]->name, name) == 0) {
      *index = i;
      return s->children[i];
    }
  fail_msg("no child %s", name);
  return NULL;
}

static void test_arrow_export__schema_formats_names_flags(void **state) {
  (void)state;
  inlet_schema schema;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_schema_parse(&schema, DDL, &err), 0);
  struct ArrowSchema s;
  assert_int_equal(inlet_schema_export(&schema, &s, &err), 0);
  inlet_schema_reset(&schema); /* the export owns its strings */
  assert_string_equal(s.format, "+s");
  assert_string_equal(s.name, "");
  assert_int_equal(s.n_children, 20);
  static const struct {
    const char *name, *format;
  } want[] = {{"b", "b"},        {"i8", "c"},    {"i16", "s"},       {"i32", "i"},
              {"i64", "l"},      {"f", "f"},     {"d", "g"},         {"s", "u"},
              {"bin", "z"},      {"day", "tdD"}, {"ts", "tsu:UTC"},  {"tsn", "tsu:"},
              {"dec", "d:10,2"}, {"st", "+s"},   {"l", "+l"},        {"m", "+m"},
              {"j", "u"},        {"u", "w:16"},  {"tms", "tsm:UTC"}, {"nn", "l"}};
  for (int i = 0; i < 20; i++) {
    const struct ArrowSchema *c = s.children[i];
    assert_string_equal(c->name, want[i].name);
    assert_string_equal(c->format, want[i].format);
    assert_int_equal(c->flags, strcmp(want[i].name, "nn") == 0 ? 0 : ARROW_FLAG_NULLABLE);
    assert_null(c->dictionary);
    assert_non_null(c->release);
  }
  int64_t k;
  const struct ArrowSchema *st = child_named(&s, "st", &k);
  assert_int_equal(st->n_children, 2);
  assert_string_equal(st->children[0]->name, "a");
  assert_string_equal(st->children[0]->format, "i");
  assert_string_equal(st->children[1]->format, "u");
  const struct ArrowSchema *l = child_named(&s, "l", &k);
  assert_int_equal(l->n_children, 1);
  assert_string_equal(l->children[0]->format, "l");
  /* Map: a non-nullable "entries" struct, non-nullable key, nullable value. */
  const struct ArrowSchema *m = child_named(&s, "m", &k);
  assert_int_equal(m->n_children, 1);
  const struct ArrowSchema *e = m->children[0];
  assert_string_equal(e->format, "+s");
  assert_int_equal(e->flags & ARROW_FLAG_NULLABLE, 0);
  assert_int_equal(e->n_children, 2);
  assert_string_equal(e->children[0]->name, "key");
  assert_string_equal(e->children[0]->format, "u");
  assert_int_equal(e->children[0]->flags, 0);
  assert_string_equal(e->children[1]->name, "value");
  assert_string_equal(e->children[1]->format, "i");
  assert_int_equal(e->children[1]->flags, ARROW_FLAG_NULLABLE);
  /* Extension metadata: int32 count, then length-prefixed key and value. */
  const struct ArrowSchema *j = child_named(&s, "j", &k);
  assert_non_null(j->metadata);
  int32_t n, kl, vl;
  memcpy(&n, j->metadata, 4);
  memcpy(&kl, j->metadata + 4, 4);
  assert_int_equal(n, 1);
  assert_int_equal(kl, 20);
  assert_memory_equal(j->metadata + 8, "ARROW:extension:name", 20);
  memcpy(&vl, j->metadata + 28, 4);
  assert_int_equal(vl, 10);
  assert_memory_equal(j->metadata + 32, "arrow.json", 10);
  assert_null(child_named(&s, "s", &k)->metadata);

  /* Move a child out, release the parent, then the child: still readable. */
  struct ArrowSchema moved = *s.children[15];
  s.children[15]->release = NULL;
  s.release(&s);
  assert_null(s.release);
  assert_string_equal(moved.format, "+m");
  assert_string_equal(moved.children[0]->children[0]->name, "key");
  moved.release(&moved);
  assert_null(moved.release);
}

static void test_arrow_export__values_nulls_nested(void **state) {
  (void)state;
  inlet_schema schema;
  inlet_batch b;
  load_batch(&b, &schema);
  inlet_schema_reset(&schema);
  inlet_error err = INLET_ERROR_INIT;
  struct ArrowSchema s;
  struct ArrowArray a;
  const void *first_values = b.columns[4].values;
  assert_int_equal(inlet_batch_export(&b, &s, &a, &err), 0);
  assert_null(b.columns); /* moved out */
  assert_int_equal(b.num_rows, 0);
  inlet_batch_reset(&b); /* harmless on the emptied batch */

  assert_int_equal(a.length, 3);
  assert_int_equal(a.null_count, 0);
  assert_int_equal(a.offset, 0);
  assert_int_equal(a.n_buffers, 1);
  assert_int_equal(a.n_children, 20);
  /* Zero-copy: the int64 column's values buffer is the batch's. */
  assert_ptr_equal(a.children[4]->buffers[1], first_values);

  struct ArrowArray *const *c = a.children;
  for (int i = 0; i < 19; i++) { /* every nullable column: row 1 null */
    assert_int_equal(c[i]->length, 3);
    assert_true(valid(c[i], 0));
    assert_false(valid(c[i], 1));
    assert_int_equal(c[i]->null_count, 1);
  }
  assert_int_equal(c[19]->null_count, 0);
  /* bool: bitmap */
  assert_int_equal(c[0]->n_buffers, 2);
  const uint8_t *bits = buf(c[0], 1);
  assert_int_equal(bits[0] & 1, 1);
  assert_int_equal((bits[0] >> 2) & 1, 0);
  assert_int_equal(((const int8_t *)buf(c[1], 1))[0], -8);
  assert_int_equal(((const int8_t *)buf(c[1], 1))[2], 127);
  assert_int_equal(((const int16_t *)buf(c[2], 1))[0], -16);
  assert_int_equal(((const int32_t *)buf(c[3], 1))[2], -1);
  assert_int_equal(((const int64_t *)buf(c[4], 1))[0], -64000000000LL);
  assert_true(((const float *)buf(c[5], 1))[0] == 1.5f);
  assert_true(((const double *)buf(c[6], 1))[0] == -2.25);
  /* utf8 / binary: validity, int32 offsets, data */
  assert_int_equal(c[7]->n_buffers, 3);
  assert_str(c[7], 0, "héllo");
  assert_str(c[7], 2, "");
  const char *p;
  int32_t n;
  str_at(c[8], 0, &p, &n);
  assert_int_equal(n, 3);
  assert_memory_equal(p, "\x00\xff\x10", 3);
  str_at(c[8], 2, &p, &n);
  assert_int_equal(n, 0);
  /* date32 days; timestamps in their units */
  assert_int_equal(((const int32_t *)buf(c[9], 1))[0], 19844);
  assert_int_equal(((const int32_t *)buf(c[9], 1))[2], -1);
  assert_int_equal(((const int64_t *)buf(c[10], 1))[0], 1714557600000000LL);
  assert_int_equal(((const int64_t *)buf(c[11], 1))[0], 1714557600000000LL);
  assert_int_equal(((const int64_t *)buf(c[11], 1))[2], 1000000LL);
  assert_int_equal(((const int64_t *)buf(c[18], 1))[0], 1714557600123LL);
  /* decimal128: 16-byte little-endian two's complement unscaled values */
  const uint8_t *dec = buf(c[12], 1);
  int64_t lo, hi;
  memcpy(&lo, dec, 8);
  memcpy(&hi, dec + 8, 8);
  assert_int_equal(lo, 1234);
  assert_int_equal(hi, 0);
  memcpy(&lo, dec + 32, 8);
  memcpy(&hi, dec + 40, 8);
  assert_int_equal(lo, -5);
  assert_int_equal(hi, -1);
  /* struct: validity only, children as long as the struct */
  const struct ArrowArray *st = c[13];
  assert_int_equal(st->n_buffers, 1);
  assert_int_equal(st->n_children, 2);
  assert_int_equal(st->children[0]->length, 3);
  assert_int_equal(((const int32_t *)buf(st->children[0], 1))[0], 7);
  assert_str(st->children[1], 0, "x");
  assert_false(valid(st->children[0], 2));
  assert_false(valid(st->children[1], 2));
  assert_true(valid(st, 2));
  /* list<long>: offsets into the child */
  const struct ArrowArray *l = c[14];
  assert_int_equal(l->n_buffers, 2);
  const int32_t *lo_off = buf(l, 1);
  assert_int_equal(lo_off[0], 0);
  assert_int_equal(lo_off[1], 3);
  assert_int_equal(lo_off[2], 3);
  assert_int_equal(lo_off[3], 3); /* empty list */
  assert_true(valid(l, 2));
  const struct ArrowArray *le = l->children[0];
  assert_int_equal(le->length, 3);
  assert_int_equal(((const int64_t *)buf(le, 1))[0], 1);
  assert_false(valid(le, 1));
  assert_int_equal(((const int64_t *)buf(le, 1))[2], 3);
  /* map<string,int>: offsets into an entries struct of key/value */
  const struct ArrowArray *m = c[15];
  const int32_t *mo = buf(m, 1);
  assert_int_equal(mo[1] - mo[0], 2);
  assert_int_equal(mo[3] - mo[2], 0);
  const struct ArrowArray *ent = m->children[0];
  assert_int_equal(ent->n_children, 2);
  assert_int_equal(ent->null_count, 0);
  bool seen_k1 = false, seen_k2 = false;
  for (int32_t i = mo[0]; i < mo[1]; i++) {
    str_at(ent->children[0], i, &p, &n);
    if (n == 2 && memcmp(p, "k1", 2) == 0) {
      seen_k1 = true;
      assert_true(valid(ent->children[1], i));
      assert_int_equal(((const int32_t *)buf(ent->children[1], 1))[i], 1);
    } else if (n == 2 && memcmp(p, "k2", 2) == 0) {
      seen_k2 = true;
      assert_false(valid(ent->children[1], i));
    }
  }
  assert_true(seen_k1 && seen_k2);
  /* json is utf8 text; uuid 16 fixed bytes */
  assert_str(c[16], 0, "{\"a\":1}");
  assert_str(c[16], 2, "[]");
  const uint8_t *u = buf(c[17], 1);
  assert_int_equal(u[0], 0x00);
  assert_int_equal(u[15], 0xff);
  assert_int_equal(u[32], 0xff); /* row 2 (row 1 is null) */
  assert_int_equal(u[47], 0xff);
  assert_int_equal(((const int64_t *)buf(c[19], 1))[2], 3);

  /* Release order: move the map column and the list's child out, release
   * the root, then read and release them. */
  struct ArrowArray map_col = *a.children[15];
  a.children[15]->release = NULL;
  struct ArrowArray list_child = *a.children[14]->children[0];
  a.children[14]->children[0]->release = NULL;
  a.release(&a);
  assert_null(a.release);
  assert_int_equal(((const int64_t *)buf(&list_child, 1))[2], 3);
  list_child.release(&list_child);
  assert_null(list_child.release);
  str_at(map_col.children[0]->children[0], 0, &p, &n);
  assert_int_equal(n, 2);
  map_col.release(&map_col);
  assert_null(map_col.release);
  s.release(&s);
}

static void test_arrow_export__child_released_before_parent(void **state) {
  (void)state;
  inlet_schema schema;
  inlet_batch b;
  load_batch(&b, &schema);
  inlet_schema_reset(&schema);
  inlet_error err = INLET_ERROR_INIT;
  struct ArrowArray a;
  assert_int_equal(inlet_batch_export(&b, NULL, &a, &err), 0);
  /* Consumer takes column 13 (struct), releases it first, then the root. */
  struct ArrowArray st = *a.children[13];
  a.children[13]->release = NULL;
  st.release(&st);
  assert_null(st.release);
  assert_str(a.children[7], 0, "héllo"); /* the rest still alive */
  a.release(&a);
  assert_null(a.release);
}

static void test_arrow_export__bad_batch_leaves_it_unchanged(void **state) {
  (void)state;
  inlet_schema schema;
  inlet_batch b;
  load_batch(&b, &schema);
  inlet_schema_reset(&schema);
  b.columns[3].length = 2; /* inconsistent with num_rows */
  inlet_error err = INLET_ERROR_INIT;
  struct ArrowSchema s;
  struct ArrowArray a;
  assert_int_equal(inlet_batch_export(&b, &s, &a, &err), INLET_EINVAL);
  assert_null(s.release);
  assert_null(a.release);
  assert_non_null(strstr(err.message, "i32"));
  assert_non_null(b.columns); /* still the caller's */
  b.columns[3].length = 3;
  /* A hand-assembled column with rows but no values buffer. */
  uint8_t *values = b.columns[4].values;
  b.columns[4].values = NULL;
  assert_int_equal(inlet_batch_export(&b, &s, &a, &err), INLET_EINVAL);
  assert_null(s.release);
  assert_null(a.release);
  assert_non_null(strstr(err.message, "i64"));
  b.columns[4].values = values;
  assert_int_equal(inlet_batch_validate(&b, &err), 0);
  inlet_batch_reset(&b);
}

static void *release_on_thread(void *arg) {
  struct ArrowArray *a = arg;
  a->release(a);
  return NULL;
}

/* Columns moved out and released on other threads at the same time as the
 * root: the shared buffers are freed exactly once, after the last one. */
static void test_arrow_export__children_released_on_threads(void **state) {
  (void)state;
  inlet_schema schema;
  inlet_batch b;
  load_batch(&b, &schema);
  inlet_schema_reset(&schema);
  inlet_error err = INLET_ERROR_INIT;
  struct ArrowArray a;
  assert_int_equal(inlet_batch_export(&b, NULL, &a, &err), 0);
  enum { T = 4 };
  struct ArrowArray cols[T];
  pthread_t th[T];
  for (int i = 0; i < T; i++) {
    cols[i] = *a.children[12 + i];
    a.children[12 + i]->release = NULL;
  }
  for (int i = 0; i < T; i++)
    assert_int_equal(pthread_create(&th[i], NULL, release_on_thread, &cols[i]), 0);
  a.release(&a);
  for (int i = 0; i < T; i++) {
    assert_int_equal(pthread_join(th[i], NULL), 0);
    assert_null(cols[i].release);
  }
}

/* An empty batch: length 0, and the offsets a consumer reads for a string
 * column are there (offset[0] == 0) even though inlet allocated none. */
static void test_arrow_export__empty_batch(void **state) {
  (void)state;
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema schema;
  assert_int_equal(inlet_schema_parse(&schema, "s string, l array<int>, d decimal(38,0)", &err), 0);
  inlet_batch b;
  assert_int_equal(inlet_batch_init(&b, &schema, &err), 0);
  inlet_schema_reset(&schema);
  struct ArrowSchema s;
  struct ArrowArray a;
  assert_int_equal(inlet_batch_export(&b, &s, &a, &err), 0);
  assert_string_equal(s.children[2]->format, "d:38,0");
  assert_int_equal(a.length, 0);
  for (int i = 0; i < 3; i++) {
    assert_int_equal(a.children[i]->length, 0);
    assert_int_equal(a.children[i]->null_count, 0);
    for (int64_t k = 1; k < a.children[i]->n_buffers; k++)
      assert_non_null(a.children[i]->buffers[k]);
  }
  assert_int_equal(((const int32_t *)buf(a.children[0], 1))[0], 0);
  assert_int_equal(((const int32_t *)buf(a.children[1], 1))[0], 0);
  s.release(&s);
  a.release(&a);
  inlet_batch_reset(&b);
}

/* ---- streams over a table ------------------------------------------------ */

#define FILES 3
#define ROWS_PER_FILE 1000

static void make_table(const char *path) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, "id long, name string, tags array<string>", &err), 0);
  inlet_table *t = NULL;
  if (inlet_table_create(&t, path, &s, NULL, &err) != 0) fail_msg("create: %s", err.message);
  for (int f = 0; f < FILES; f++) {
    inlet_batch b;
    assert_int_equal(inlet_batch_init(&b, &s, &err), 0);
    for (int64_t i = f * ROWS_PER_FILE; i < (f + 1) * ROWS_PER_FILE; i++) {
      char nm[32];
      int n = snprintf(nm, sizeof nm, "n%lld", (long long)i);
      assert_int_equal(inlet_array_append_int(&b.columns[0], &s.fields[0], i, &err), 0);
      if (i % 7 == 0)
        assert_int_equal(inlet_array_append_null(&b.columns[1], &s.fields[1], &err), 0);
      else
        assert_int_equal(inlet_array_append_bytes(&b.columns[1], &s.fields[1], nm, (size_t)n, &err),
                         0);
      for (int64_t k = 0; k < i % 3; k++)
        assert_int_equal(inlet_array_append_bytes(&b.columns[2].children[0],
                                                  &s.fields[2].children[0], nm, (size_t)n, &err),
                         0);
      assert_int_equal(inlet_array_append_list_entry(&b.columns[2], &err), 0);
    }
    b.num_rows = ROWS_PER_FILE;
    if (inlet_table_append(t, &b, 1, NULL, NULL, &err) != 0) fail_msg("append: %s", err.message);
    inlet_batch_reset(&b);
  }
  inlet_table_free(t);
  inlet_schema_reset(&s);
}

typedef struct opened {
  inlet_table *t;
  inlet_snapshot *snap;
} opened;

static void open_stream(const char *path, opened *o, struct ArrowArrayStream *st) {
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_table_open(&o->t, path, &err), 0);
  assert_int_equal(inlet_table_snapshot(&o->snap, o->t, &err), 0);
  inlet_scan *sc = NULL;
  assert_int_equal(inlet_scan_open(&sc, o->snap, NULL, &err), 0);
  assert_int_equal(inlet_scan_export_stream(sc, st, &err), 0);
}

static void close_opened(opened *o) {
  inlet_snapshot_free(o->snap);
  inlet_table_free(o->t);
}

static void test_arrow_export__stream_multi_file_table(void **state) {
  (void)state;
  char dir[4096], path[4200];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("arrow-stream"));
  snprintf(path, sizeof path, "%s/t", dir);
  make_table(path);
  opened o;
  struct ArrowArrayStream st;
  open_stream(path, &o, &st);

  struct ArrowSchema s;
  assert_int_equal(st.get_schema(&st, &s), 0);
  assert_string_equal(s.format, "+s");
  assert_int_equal(s.n_children, 3);
  assert_string_equal(s.children[0]->name, "id");
  assert_string_equal(s.children[0]->format, "l");
  assert_string_equal(s.children[1]->format, "u");
  assert_string_equal(s.children[2]->format, "+l");
  assert_string_equal(s.children[2]->children[0]->format, "u");
  s.release(&s);

  static uint8_t seen[FILES * ROWS_PER_FILE];
  memset(seen, 0, sizeof seen);
  int64_t rows = 0, batches = 0;
  struct ArrowArray kept; /* the first batch, released after the stream */
  memset(&kept, 0, sizeof kept);
  for (;;) {
    struct ArrowArray a;
    assert_int_equal(st.get_next(&st, &a), 0);
    if (a.release == NULL) break;
    batches++;
    assert_int_equal(a.n_children, 3);
    const struct ArrowArray *id = a.children[0], *name = a.children[1], *tags = a.children[2];
    for (int64_t r = 0; r < a.length; r++) {
      assert_true(valid(id, r));
      int64_t v = ((const int64_t *)buf(id, 1))[r];
      assert_true(v >= 0 && v < FILES * ROWS_PER_FILE);
      assert_int_equal(seen[v], 0);
      seen[v] = 1;
      char nm[32];
      snprintf(nm, sizeof nm, "n%lld", (long long)v);
      if (v % 7 == 0) {
        assert_false(valid(name, r));
      } else {
        assert_true(valid(name, r));
        assert_str(name, r, nm);
      }
      const int32_t *off = buf(tags, 1);
      assert_int_equal(off[r + 1] - off[r], v % 3);
      for (int32_t k = off[r]; k < off[r + 1]; k++)
        assert_str(tags->children[0], k, nm);
    }
    rows += a.length;
    if (kept.release == NULL)
      kept = a;
    else
      a.release(&a);
  }
  assert_int_equal(rows, FILES * ROWS_PER_FILE);
  assert_true(batches >= FILES);
  /* After the end, get_next keeps answering "end". */
  struct ArrowArray again;
  assert_int_equal(st.get_next(&st, &again), 0);
  assert_null(again.release);
  st.release(&st);
  assert_null(st.release);
  /* A batch outlives its stream. */
  assert_true(kept.length > 0);
  assert_true(valid(kept.children[0], 0));
  kept.release(&kept);
  close_opened(&o);
  tu_rmtree(dir);
}

/* A variant column (Spark's spark-variant-checkpoint table of delta-rs,
 * read in place) is exported as plain utf8 holding each value's JSON text:
 * the table's v is parse_json('{"key": id}'), as refcheck also reads it. */
static void test_arrow_export__variant_column_is_utf8_json(void **state) {
  (void)state;
  opened o;
  struct ArrowArrayStream st;
  open_stream(INLET_SOURCE_DIR "/tests/data/foreign/delta-rs/spark-variant-checkpoint", &o, &st);
  struct ArrowSchema s;
  assert_int_equal(st.get_schema(&st, &s), 0);
  int64_t vi = -1, ii = -1;
  const struct ArrowSchema *v = child_named(&s, "v", &vi);
  child_named(&s, "id", &ii);
  assert_string_equal(v->format, "u");
  assert_null(v->metadata);
  s.release(&s);
  int64_t rows = 0;
  for (;;) {
    struct ArrowArray a;
    assert_int_equal(st.get_next(&st, &a), 0);
    if (a.release == NULL) break;
    for (int64_t r = 0; r < a.length; r++) {
      assert_true(valid(a.children[vi], r));
      char want[64];
      snprintf(want, sizeof want, "{\"key\":%lld}",
               (long long)((const int64_t *)buf(a.children[ii], 1))[r]);
      assert_str(a.children[vi], r, want);
    }
    rows += a.length;
    a.release(&a);
  }
  assert_int_equal(rows, 102); /* 50 + 50 + 1 + 1 rows in its four files */
  st.release(&st);
  close_opened(&o);
}

/* A projected, filtered scan: get_schema is the output schema, rows match;
 * a table without data files: the stream ends at once. */
static void test_arrow_export__stream_projection_and_empty_table(void **state) {
  (void)state;
  char dir[4096], path[4200], empty[4200];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("arrow-stream-proj"));
  snprintf(path, sizeof path, "%s/t", dir);
  snprintf(empty, sizeof empty, "%s/e", dir);
  make_table(path);
  inlet_error err = INLET_ERROR_INIT;
  opened o;
  assert_int_equal(inlet_table_open(&o.t, path, &err), 0);
  assert_int_equal(inlet_table_snapshot(&o.snap, o.t, &err), 0);
  inlet_scan_options so = INLET_SCAN_OPTIONS_INIT;
  const char *cols[] = {"name", "id"};
  so.n_columns = 2;
  so.columns = cols;
  so.where = "id >= 1990 AND id < 2010";
  inlet_scan *sc = NULL;
  assert_int_equal(inlet_scan_open(&sc, o.snap, &so, &err), 0);
  struct ArrowArrayStream st;
  assert_int_equal(inlet_scan_export_stream(sc, &st, &err), 0);
  struct ArrowSchema s;
  assert_int_equal(st.get_schema(&st, &s), 0);
  assert_int_equal(s.n_children, 2);
  assert_string_equal(s.children[0]->name, "name");
  assert_string_equal(s.children[1]->name, "id");
  s.release(&s);
  int64_t rows = 0;
  for (;;) {
    struct ArrowArray a;
    assert_int_equal(st.get_next(&st, &a), 0);
    if (a.release == NULL) break;
    assert_int_equal(a.n_children, 2);
    for (int64_t r = 0; r < a.length; r++) {
      int64_t v = ((const int64_t *)buf(a.children[1], 1))[r];
      assert_true(v >= 1990 && v < 2010);
    }
    rows += a.length;
    a.release(&a);
  }
  assert_int_equal(rows, 20);
  st.release(&st);
  close_opened(&o);

  inlet_schema es;
  assert_int_equal(inlet_schema_parse(&es, "x int", &err), 0);
  inlet_table *t = NULL;
  assert_int_equal(inlet_table_create(&t, empty, &es, NULL, &err), 0);
  inlet_table_free(t);
  inlet_schema_reset(&es);
  opened e;
  open_stream(empty, &e, &st);
  assert_int_equal(st.get_schema(&st, &s), 0);
  assert_string_equal(s.children[0]->format, "i");
  s.release(&s);
  struct ArrowArray a;
  assert_int_equal(st.get_next(&st, &a), 0);
  assert_null(a.release);
  assert_null(st.get_last_error(&st));
  st.release(&st);
  close_opened(&e);
  tu_rmtree(dir);
}

static void test_arrow_export__stream_error_missing_file(void **state) {
  (void)state;
  char dir[4096], path[4200];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("arrow-stream-err"));
  snprintf(path, sizeof path, "%s/t", dir);
  make_table(path);
  /* Delete one data file (the table then violates its own log: exempt). */
  DIR *d = opendir(path);
  assert_non_null(d);
  struct dirent *e;
  char victim[4600] = "";
  while ((e = readdir(d)) != NULL)
    if (victim[0] == '\0' && strstr(e->d_name, ".parquet") != NULL)
      snprintf(victim, sizeof victim, "%s/%s", path, e->d_name);
  closedir(d);
  assert_true(victim[0] != '\0');
  assert_int_equal(unlink(victim), 0);
  tu_rules_exempt(path, "a data file deleted on purpose to make the scan fail");

  opened o;
  struct ArrowArrayStream st;
  open_stream(path, &o, &st);
  int rc = 0;
  int64_t rows = 0;
  for (int i = 0; i < 100; i++) {
    struct ArrowArray a;
    rc = st.get_next(&st, &a);
    if (rc != 0) {
      assert_null(a.release);
      break;
    }
    assert_non_null(a.release); /* the end never comes before the error */
    rows += a.length;
    a.release(&a);
  }
  assert_int_equal(rc, ENOENT);
  assert_true(rows < FILES * ROWS_PER_FILE);
  const char *msg = st.get_last_error(&st);
  assert_non_null(msg);
  const char *base = strrchr(victim, '/') + 1;
  if (strstr(msg, base) == NULL) fail_msg("last error does not name %s: %s", base, msg);
  /* The stream stays failed. */
  struct ArrowArray a;
  assert_int_equal(st.get_next(&st, &a), ENOENT);
  assert_null(a.release);
  st.release(&st);
  close_opened(&o);
  tu_rmtree(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_arrow_export__schema_formats_names_flags),
      cmocka_unit_test(test_arrow_export__values_nulls_nested),
      cmocka_unit_test(test_arrow_export__child_released_before_parent),
      cmocka_unit_test(test_arrow_export__bad_batch_leaves_it_unchanged),
      cmocka_unit_test(test_arrow_export__children_released_on_threads),
      cmocka_unit_test(test_arrow_export__empty_batch),
      cmocka_unit_test(test_arrow_export__stream_projection_and_empty_table),
      cmocka_unit_test(test_arrow_export__stream_multi_file_table),
      cmocka_unit_test(test_arrow_export__stream_error_missing_file),
      cmocka_unit_test(test_arrow_export__variant_column_is_utf8_json),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
