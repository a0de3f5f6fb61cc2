/*
 * libFuzzer harness for the whole Parquet read path (issue 2 section 5 and
 * issue 3 "Fuzzing"): footer, schema mapping (flat and nested), page
 * headers, decompression, every value decoder, level decoding and nested
 * assembly, through the public reader API over an in-memory file.
 *
 * Properties beyond "no crash, no overread, no leak, no hang":
 *  - every batch the reader returns passes inlet_batch_validate (offsets
 *    monotonic and in range, null counts matching bitmaps, lengths equal);
 *  - each error is a documented code with a message naming the file;
 *  - the metadata JSON of any file that opens is produced;
 *  - reading a projection (fields in reverse order) gives the same row
 *    counts as reading everything;
 *  - the file written again with its pages captured and copied where they
 *    fit (src/parquet/raw_pages.h) reads back to the same rows, as NDJSON;
 *  - the page index of every flat column loads or fails with a documented
 *    code, and reading the rows of every other page it lists (row ranges,
 *    inlet_parquet_reader_read_rows) gives valid batches of exactly those
 *    rows.
 * The seed corpus (fuzz/corpus/parquet_reader_fuzzer/) holds small files
 * from parquet-testing covering each encoding, page version and nesting.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inlet/parquet.h"
#include "inlet/text.h"
#include "parquet/page_index.h"
#include "parquet/pq_reader.h"
#include "parquet/pq_writer.h"
#include "parquet/reader_int.h"
#include "util/buf.h"
#include "util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "parquet_reader_fuzzer: property failed at %s:%d: %s\n", __FILE__, __LINE__, \
              #cond);                                                                              \
      abort();                                                                                     \
    }                                                                                              \
  } while (0)

#define NAME "fuzz.parquet"

typedef struct mem_rfile {
  inlet_rfile base;
  const uint8_t *data;
} mem_rfile;

static int mem_read_at(inlet_rfile *f, int64_t off, void *buf, size_t n, inlet_error *err) {
  const mem_rfile *m = (const mem_rfile *)f;
  if (off < 0 || off > f->size || (int64_t)n > f->size - off)
    return inlet_fail(err, INLET_ECORRUPT, "%s: truncated read", f->name);
  if (n) memcpy(buf, m->data + off, n);
  return 0;
}

static void mem_close(inlet_rfile *f) {
  free(f);
}

static const struct inlet_rfile_ops mem_ops = {.read_at = mem_read_at,
                                               .close = mem_close,
                                               .read_ranges = inlet_rfile_read_ranges_serial,
                                               .read_tail = inlet_rfile_read_tail_sized};

static bool known_error(int rc) {
  return rc == INLET_ECORRUPT || rc == INLET_EUNSUPPORTED || rc == INLET_ELIMIT ||
         rc == INLET_ENOMEM;
}

static int open_mem(inlet_parquet_reader **r, const uint8_t *data, size_t size, inlet_error *err) {
  mem_rfile *f = calloc(1, sizeof *f);
  CHECK(f);
  f->base.ops = &mem_ops;
  f->base.name = (char *)NAME;
  f->base.size = (int64_t)size;
  f->data = data;
  inlet_parquet_reader_options opts = INLET_PARQUET_READER_OPTIONS_INIT;
  /* Keep hostile size claims from eating the fuzzer's memory budget. */
  opts.max_column_chunk_bytes = 64 << 20;
  opts.max_decoded_bytes = 256 << 20;
  return pq_reader_open_rfile(r, &f->base, NAME, &opts, err);
}

/* Reads every row group; returns the total rows, or -1 after an error. */
static int64_t read_all(inlet_parquet_reader *r) {
  inlet_batch b;
  memset(&b, 0, sizeof b);
  int64_t rows = 0;
  for (int32_t g = 0; g < inlet_parquet_reader_num_row_groups(r); g++) {
    inlet_error err = INLET_ERROR_INIT;
    int rc = inlet_parquet_reader_read_row_group(r, g, &b, &err);
    if (rc < 0) {
      CHECK(known_error(rc));
      CHECK(strstr(err.message, NAME) != NULL || rc == INLET_ENOMEM);
      rows = -1;
      break;
    }
    inlet_error verr = INLET_ERROR_INIT;
    if (inlet_batch_validate(&b, &verr) != 0) {
      fprintf(stderr, "invalid batch: %s\n", verr.message);
      CHECK(0);
    }
    CHECK(b.num_rows == inlet_parquet_reader_row_group_rows(r, g));
    rows += b.num_rows;
  }
  inlet_batch_reset(&b);
  return rows;
}

/* Loads each flat column's page index and reads the rows of its even pages. */
static void page_ranges(inlet_parquet_reader *r) {
  int32_t nf = inlet_parquet_reader_schema(r)->n_fields;
  pq_page_index pi;
  pq_page_index_init(&pi);
  inlet_batch b;
  memset(&b, 0, sizeof b);
  int64_t ranges[2 * 64];
  for (int32_t g = 0; g < inlet_parquet_reader_num_row_groups(r); g++) {
    for (int32_t f = 0; f < nf && f < 8; f++) {
      inlet_error err = INLET_ERROR_INIT;
      int rc = pq_reader_page_index(r, g, f, &pi, &err);
      if (rc < 0) {
        CHECK(known_error(rc) || rc == INLET_EIO);
        CHECK(strstr(err.message, NAME) != NULL || rc == INLET_ENOMEM);
        continue;
      }
      int32_t k = 0;
      int64_t want = 0;
      for (int32_t p = 0; p < pi.n_pages && k < 64; p += 2) {
        ranges[2 * k] = pi.first_row[p];
        ranges[2 * k + 1] = pi.first_row[p + 1];
        want += ranges[2 * k + 1] - ranges[2 * k];
        k++;
      }
      if (k == 0) continue;
      rc = inlet_parquet_reader_read_rows(r, g, ranges, k, &b, &err);
      if (rc < 0) {
        CHECK(known_error(rc));
        continue;
      }
      inlet_error verr = INLET_ERROR_INIT;
      if (inlet_batch_validate(&b, &verr) != 0) {
        fprintf(stderr, "invalid batch: %s\n", verr.message);
        CHECK(0);
      }
      CHECK(b.num_rows == want);
    }
  }
  inlet_batch_reset(&b);
  pq_page_index_reset(&pi);
}

/* ---- pages copied ---------------------------------------------------------- */

static int buf_write(void *ctx, const void *data, size_t len, inlet_error *err) {
  (void)err;
  return inlet_buf_append(ctx, data, len) < 0 ? INLET_ENOMEM : 0;
}

/* Appends row group @p g of @p r as NDJSON to @p out (the reader's whole
 * projection); false when it cannot be read. */
static bool rows_text(inlet_parquet_reader *r, int32_t g, inlet_batch *b, inlet_buf *out) {
  inlet_error err = INLET_ERROR_INIT;
  if (inlet_parquet_reader_read_row_group(r, g, b, &err) < 0) return false;
  inlet_text_writer_options o = INLET_TEXT_WRITER_OPTIONS_INIT;
  inlet_text_writer *tw = NULL;
  if (inlet_text_writer_new(&tw, &b->schema, &o, buf_write, out, &err) < 0) return false;
  int rc = inlet_text_writer_write(tw, b, &err);
  if (rc == 0) rc = inlet_text_writer_finish(tw, &err);
  inlet_text_writer_free(tw);
  return rc == 0;
}

static const char *scratch_path(void) {
  static char path[4096];
  if (path[0]) return path;
  const char *dir = getenv("INLET_FUZZ_TMPDIR");
  if (!dir || !*dir) dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  snprintf(path, sizeof path, "%s/inlet_reader_fuzz_%ld.parquet", dir, (long)getpid());
  return path;
}

/* The file written again with its pages captured (raw_pages.h), in the
 * codec of its first column chunk, reads back to the same rows: a page
 * copied from a hostile file holds exactly the values read from it. A
 * schema or value the writer refuses ends the check. */
static void copy_pages_alike(inlet_parquet_reader *r) {
  int32_t nrg = inlet_parquet_reader_num_row_groups(r);
  const inlet_schema *s = inlet_parquet_reader_schema(r);
  if (nrg == 0 || r->meta.row_groups[0].n_columns == 0) return;
  inlet_error err = INLET_ERROR_INIT;
  CHECK(inlet_parquet_reader_project(r, NULL, 0, &err) == 0);
  inlet_parquet_writer_options o = INLET_PARQUET_WRITER_OPTIONS_INIT;
  o.compression = (inlet_compression)r->meta.row_groups[0].columns[0].meta_data.codec;
  o.encodings = INLET_PARQUET_ENCODINGS_EXTENDED;
  o.sync_on_close = false;
  const char *path = scratch_path();
  remove(path);
  inlet_parquet_writer *w = NULL;
  if (inlet_parquet_writer_open(&w, path, s, &o, &err) < 0) return;
  pq_raw_chunk *raw = calloc((size_t)s->n_fields + 1, sizeof *raw);
  CHECK(raw);
  pq_reader_capture_pages(r, raw);
  inlet_buf want = INLET_BUF_INIT, got = INLET_BUF_INIT;
  inlet_batch b;
  memset(&b, 0, sizeof b);
  bool ok = true;
  for (int32_t g = 0; ok && g < nrg; g++) {
    ok = rows_text(r, g, &b, &want);
    if (ok && pq_writer_write_pages(w, &b, raw, &err) < 0) ok = false;
  }
  pq_reader_capture_pages(r, NULL);
  pq_raw_chunks_free(raw, s->n_fields + 1);
  if (ok && inlet_parquet_writer_close(w, &err) < 0) ok = false;
  inlet_parquet_writer_free(w);
  if (ok) {
    inlet_parquet_reader *c = NULL;
    CHECK(inlet_parquet_reader_open(&c, path, NULL, &err) == 0);
    for (int32_t g = 0; g < inlet_parquet_reader_num_row_groups(c); g++)
      CHECK(rows_text(c, g, &b, &got));
    inlet_parquet_reader_free(c);
    CHECK(inlet_buf_status(&want) == 0 && inlet_buf_status(&got) == 0);
    if (want.len != got.len || (want.len && memcmp(want.data, got.data, want.len) != 0)) {
      fprintf(stderr, "copied pages read back otherwise:\n%.*s\n---\n%.*s\n",
              (int)(want.len < 2000 ? want.len : 2000), (const char *)want.data,
              (int)(got.len < 2000 ? got.len : 2000), (const char *)got.data);
      CHECK(0);
    }
  }
  inlet_batch_reset(&b);
  inlet_buf_reset(&want);
  inlet_buf_reset(&got);
  remove(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  inlet_parquet_reader *r = NULL;
  inlet_error err = INLET_ERROR_INIT;
  int rc = open_mem(&r, data, size, &err);
  if (rc < 0) {
    CHECK(r == NULL);
    CHECK(known_error(rc));
    return 0;
  }
  char *json = NULL;
  rc = inlet_parquet_reader_metadata_json(r, &json, &err);
  CHECK(rc == 0 || rc == INLET_ENOMEM);
  inlet_string_free(json);

  int64_t rows = read_all(r);
  if (rows >= 0) copy_pages_alike(r);
  int32_t nf = inlet_parquet_reader_schema(r)->n_fields;
  if (rows >= 0 && nf > 1 && nf <= 64) {
    int32_t proj[64];
    for (int32_t i = 0; i < nf; i++)
      proj[i] = nf - 1 - i;
    CHECK(inlet_parquet_reader_project(r, proj, nf, &err) == 0);
    int64_t again = read_all(r);
    CHECK(again == rows);
  }
  if (rows >= 0) page_ranges(r);
  inlet_parquet_reader_free(r);
  return 0;
}
