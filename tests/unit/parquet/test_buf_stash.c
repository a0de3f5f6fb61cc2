/*
 * Unit tests for the buffer stash of the Parquet writers
 * (src/parquet/buf_stash.c): what a slot keeps and hands back, its bound,
 * and that files written through a stash — one writer after another, on
 * one thread or several, sharing it across threads — have exactly the
 * bytes of files written without one, and that a file leaves its page
 * buffers and dictionary indices for the next.
 */
#include <pthread.h>
#include <stdio.h>

#include "testutil.h"

#include "inlet/batch.h"
#include "inlet/parquet.h"
#include "parquet/column_writer.h"
#include "parquet/pq_writer.h"
#include "util/buf.h"
#include "util/pool.h"
#include "util/util.h"

static inlet_buf filled(size_t n, uint8_t byte) {
  inlet_buf b;
  inlet_buf_init(&b);
  assert_int_equal(inlet_buf_reserve(&b, n), 0);
  memset(b.data, byte, n);
  b.len = n;
  return b;
}

static void test_stash__a_slot_hands_back_its_buffer_empty(void **state) {
  (void)state;
  inlet_error err = INLET_ERROR_INIT;
  pq_buf_stash *s = NULL;
  assert_int_equal(pq_buf_stash_new(&s, 1 << 20, &err), 0);
  inlet_buf b = filled(1000, 0xab);
  uint8_t *data = b.data;
  size_t cap = b.cap;
  pq_buf_stash_give(s, 7, &b);
  assert_null(b.data);
  assert_int_equal(b.cap, 0);
  assert_int_equal(pq_buf_stash_bytes(s), cap);

  inlet_buf other;
  inlet_buf_init(&other);
  pq_buf_stash_take(s, 6, &other); /* another slot: nothing */
  assert_null(other.data);
  pq_buf_stash_take(s, 7, &other);
  assert_ptr_equal(other.data, data);
  assert_int_equal(other.cap, cap);
  assert_int_equal(other.len, 0);
  assert_int_equal(pq_buf_stash_bytes(s), 0);
  pq_buf_stash_take(s, 7, &other); /* taken once only */
  assert_ptr_equal(other.data, data);

  /* A buffer that already has memory takes nothing. */
  inlet_buf c = filled(10, 1);
  pq_buf_stash_give(s, 3, &other);
  uint8_t *c_data = c.data;
  pq_buf_stash_take(s, 3, &c);
  assert_ptr_equal(c.data, c_data);
  assert_int_equal(c.len, 10);
  assert_int_equal(pq_buf_stash_bytes(s), cap);
  inlet_buf_reset(&c);
  pq_buf_stash_free(s); /* frees what it holds: ASan's leak check */
}

static void test_stash__the_larger_buffer_stays_within_the_bound(void **state) {
  (void)state;
  inlet_error err = INLET_ERROR_INIT;
  pq_buf_stash *s = NULL;
  assert_int_equal(pq_buf_stash_new(&s, 10000, &err), 0);
  inlet_buf small = filled(1000, 1), large = filled(4000, 2), mid = filled(2000, 3);
  size_t small_cap = small.cap, large_cap = large.cap;
  uint8_t *large_data = large.data;
  pq_buf_stash_give(s, 0, &small);
  assert_int_equal(pq_buf_stash_bytes(s), small_cap);
  pq_buf_stash_give(s, 0, &large); /* replaces the smaller one (freed) */
  assert_int_equal(pq_buf_stash_bytes(s), large_cap);
  pq_buf_stash_give(s, 0, &mid); /* smaller than what is kept: freed */
  assert_null(mid.data);
  assert_int_equal(pq_buf_stash_bytes(s), large_cap);

  /* Over the bound in all: freed, and the bound holds. */
  inlet_buf big = filled(9000, 4);
  pq_buf_stash_give(s, 1, &big);
  assert_null(big.data);
  assert_int_equal(pq_buf_stash_bytes(s), large_cap);
  inlet_buf fits = filled(3000, 5);
  size_t fits_cap = fits.cap;
  pq_buf_stash_give(s, 1000, &fits); /* a far slot: the slots grow */
  assert_int_equal(pq_buf_stash_bytes(s), large_cap + fits_cap);
  assert_true(pq_buf_stash_bytes(s) <= 10000);

  inlet_buf got;
  inlet_buf_init(&got);
  pq_buf_stash_take(s, 0, &got);
  assert_ptr_equal(got.data, large_data);
  inlet_buf_reset(&got);

  /* No stash: the buffer is freed; an empty one is nothing to keep. */
  inlet_buf gone = filled(100, 6);
  pq_buf_stash_give(NULL, 0, &gone);
  assert_null(gone.data);
  inlet_buf empty;
  inlet_buf_init(&empty);
  pq_buf_stash_give(s, 5, &empty);
  assert_int_equal(pq_buf_stash_bytes(s), fits_cap);
  pq_buf_stash_take(NULL, 0, &empty);
  assert_null(empty.data);
  pq_buf_stash_free(s);
  pq_buf_stash_free(NULL);
}

/* ---- files through a stash ---------------------------------------------- */

static char *g_dir;

static int setup(void **state) {
  (void)state;
  const char *d = tu_mkdtemp("buf_stash"); /* its own static buffer */
  g_dir = d ? strdup(d) : NULL;
  return g_dir ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  tu_rmtree(g_dir);
  free(g_dir);
  return 0;
}

/* @p rows rows whose strings and numbers depend on @p seed, so that files
 * of different seeds and sizes leave different bytes in the buffers. */
static void make_batch(inlet_batch *b, int64_t rows, uint32_t seed) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  inlet_schema_init(&s);
  assert_int_equal(inlet_schema_parse(&s, "id long not null, name string, x double, k int", &err),
                   0);
  assert_int_equal(inlet_batch_init(b, &s, &err), 0);
  inlet_schema_reset(&s);
  uint32_t r = seed * 2654435761u + 1;
  char name[64];
  for (int64_t i = 0; i < rows; i++) {
    r = r * 1103515245u + 12345u;
    assert_int_equal(
        inlet_array_append_int(&b->columns[0], &b->schema.fields[0], i * 3 + seed, NULL), 0);
    int n =
        snprintf(name, sizeof name, "name-%u-%lld", (r >> 8) % (seed + 50), (long long)(i % 97));
    if (r % 11 == 0)
      assert_int_equal(inlet_array_append_null(&b->columns[1], &b->schema.fields[1], NULL), 0);
    else
      assert_int_equal(
          inlet_array_append_bytes(&b->columns[1], &b->schema.fields[1], name, (size_t)n, NULL), 0);
    assert_int_equal(inlet_array_append_double(&b->columns[2], (double)(r % 100000) / 7.0, NULL),
                     0);
    assert_int_equal(inlet_array_append_int(&b->columns[3], &b->schema.fields[3], r % 5, NULL), 0);
  }
  b->num_rows = rows;
}

/* Writes @p b to @p path, through @p stash when given, with @p threads
 * (a pool of the writer's own when > 1). */
static void write_with(const char *path, const inlet_batch *b, pq_buf_stash *stash, int threads,
                       inlet_compression codec) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_parquet_writer_options o = INLET_PARQUET_WRITER_OPTIONS_INIT;
  o.compression = codec;
  o.row_group_max_rows = 3000; /* several row groups: pages in flight come back */
  o.page_bytes = 8 * 1024;
  o.threads = threads;
  inlet_parquet_writer *w = NULL;
  int rc = inlet_parquet_writer_open(&w, path, &b->schema, &o, &err);
  if (rc) fprintf(stderr, "open: %s\n", inlet_errmsg(&err));
  assert_int_equal(rc, 0);
  if (stash) pq_writer_set_stash(w, stash);
  rc = inlet_parquet_writer_write(w, b, &err);
  if (rc == 0) rc = inlet_parquet_writer_close(w, &err);
  if (rc) fprintf(stderr, "write: %s\n", inlet_errmsg(&err));
  assert_int_equal(rc, 0);
  inlet_parquet_writer_free(w);
}

static void assert_same_file(const char *a, const char *b) {
  size_t la = 0, lb = 0;
  char *da = tu_read_file(a, &la), *db = tu_read_file(b, &lb);
  assert_non_null(da);
  assert_non_null(db);
  assert_int_equal(la, lb);
  assert_memory_equal(da, db, la);
  free(da);
  free(db);
}

static void test_stash__files_through_a_stash_have_the_bytes_of_files_without(void **state) {
  (void)state;
  /* Large, small, large: the small file reuses buffers holding a larger
   * file's bytes, the last one buffers a small file grew. */
  const int64_t rows[] = {20000, 700, 15000, 1};
  const inlet_compression codecs[] = {INLET_COMPRESSION_SNAPPY, INLET_COMPRESSION_ZSTD,
                                      INLET_COMPRESSION_UNCOMPRESSED};
  char ref[1200], got[1200];
  for (size_t c = 0; c < sizeof codecs / sizeof *codecs; c++) {
    for (int threads = 1; threads <= 3; threads += 2) {
      inlet_error err = INLET_ERROR_INIT;
      pq_buf_stash *stash = NULL;
      assert_int_equal(pq_buf_stash_new(&stash, PQ_BUF_STASH_MAX_BYTES, &err), 0);
      for (size_t f = 0; f < sizeof rows / sizeof *rows; f++) {
        inlet_batch b;
        make_batch(&b, rows[f], (uint32_t)(f * 7 + c + 1));
        snprintf(ref, sizeof ref, "%s/ref-%zu-%d-%zu.parquet", g_dir, c, threads, f);
        snprintf(got, sizeof got, "%s/got-%zu-%d-%zu.parquet", g_dir, c, threads, f);
        write_with(ref, &b, NULL, 1, codecs[c]);
        write_with(got, &b, stash, threads, codecs[c]);
        assert_same_file(ref, got);
        /* The writer gave its buffers back: the next one starts in them. */
        assert_true(pq_buf_stash_bytes(stash) > 0);
        inlet_batch_reset(&b);
      }
      pq_buf_stash_free(stash);
    }
  }
}

/* What a file's column writers leave in the stash for the next file: its
 * page buffers and its dictionary indices too, not only its chunk (a
 * library writing file after file otherwise had malloc hand them back to
 * the kernel and fault them in again for every file). */
static void test_stash__a_file_leaves_its_page_buffers_for_the_next(void **state) {
  (void)state;
  inlet_error err = INLET_ERROR_INIT;
  pq_buf_stash *stash = NULL;
  assert_int_equal(pq_buf_stash_new(&stash, PQ_BUF_STASH_MAX_BYTES, &err), 0);
  inlet_batch b;
  make_batch(&b, 20000, 3);
  char path[1200], ref[1200];
  snprintf(path, sizeof path, "%s/left.parquet", g_dir);
  snprintf(ref, sizeof ref, "%s/left-ref.parquet", g_dir);
  write_with(path, &b, stash, 1, INLET_COMPRESSION_SNAPPY);
  /* Column 0 (id, distinct: PLAIN pages of 8 KiB), column 1 (name,
   * dictionary-encoded: an index per value of a page). */
  inlet_buf plain = INLET_BUF_INIT, body = INLET_BUF_INIT, idx = INLET_BUF_INIT;
  pq_buf_stash_take(stash, 0 * PQ_COLUMN_STASH_SLOTS + PQ_COLUMN_SLOT_PAGE_PLAIN, &plain);
  pq_buf_stash_take(stash, 1 * PQ_COLUMN_STASH_SLOTS + PQ_COLUMN_SLOT_BODY, &body);
  pq_buf_stash_take(stash, 1 * PQ_COLUMN_STASH_SLOTS + PQ_COLUMN_SLOT_PAGE_IDX, &idx);
  assert_true(plain.cap >= 8 * 1024);
  assert_true(body.cap > 0);
  assert_true(idx.cap >= 1000 * sizeof(uint32_t));
  assert_int_equal(plain.len + body.len + idx.len, 0);
  inlet_buf_reset(&plain);
  inlet_buf_reset(&body);
  inlet_buf_reset(&idx);
  /* A file through the stash, with or without them, is still the same. */
  write_with(ref, &b, NULL, 1, INLET_COMPRESSION_SNAPPY);
  for (int threads = 1; threads <= 3; threads += 2) {
    snprintf(path, sizeof path, "%s/left-%d.parquet", g_dir, threads);
    write_with(path, &b, stash, threads, INLET_COMPRESSION_SNAPPY);
    assert_same_file(ref, path);
  }
  inlet_batch_reset(&b);
  pq_buf_stash_free(stash);
}

/* Writers on several threads sharing one stash (ThreadSanitizer runs this
 * test: the stash's lock). */
typedef struct writer_arg {
  pq_buf_stash *stash;
  int id;
  const inlet_batch *batch;
} writer_arg;

static void *write_files(void *p) {
  writer_arg *a = p;
  char path[1200];
  for (int f = 0; f < 6; f++) {
    snprintf(path, sizeof path, "%s/shared-%d-%d.parquet", g_dir, a->id, f);
    write_with(path, a->batch, a->stash, f % 2 ? 2 : 1, INLET_COMPRESSION_SNAPPY);
  }
  return NULL;
}

static void test_stash__writers_on_several_threads_share_one(void **state) {
  (void)state;
  inlet_error err = INLET_ERROR_INIT;
  pq_buf_stash *stash = NULL;
  assert_int_equal(pq_buf_stash_new(&stash, PQ_BUF_STASH_MAX_BYTES, &err), 0);
  inlet_batch b;
  make_batch(&b, 9000, 3);
  char ref[1200], path[1200];
  snprintf(ref, sizeof ref, "%s/shared-ref.parquet", g_dir);
  write_with(ref, &b, NULL, 1, INLET_COMPRESSION_SNAPPY);
  enum { N = 3 };
  pthread_t th[N];
  writer_arg args[N];
  for (int i = 0; i < N; i++) {
    args[i] = (writer_arg){stash, i, &b};
    assert_int_equal(pthread_create(&th[i], NULL, write_files, &args[i]), 0);
  }
  for (int i = 0; i < N; i++)
    assert_int_equal(pthread_join(th[i], NULL), 0);
  for (int i = 0; i < N; i++)
    for (int f = 0; f < 6; f++) {
      snprintf(path, sizeof path, "%s/shared-%d-%d.parquet", g_dir, i, f);
      assert_same_file(ref, path);
    }
  assert_true(pq_buf_stash_bytes(stash) <= PQ_BUF_STASH_MAX_BYTES);
  inlet_batch_reset(&b);
  pq_buf_stash_free(stash);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_stash__a_slot_hands_back_its_buffer_empty),
      cmocka_unit_test(test_stash__the_larger_buffer_stays_within_the_bound),
      cmocka_unit_test(test_stash__files_through_a_stash_have_the_bytes_of_files_without),
      cmocka_unit_test(test_stash__a_file_leaves_its_page_buffers_for_the_next),
      cmocka_unit_test(test_stash__writers_on_several_threads_share_one),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
