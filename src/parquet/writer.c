/*
 * The Parquet file writer (inlet/parquet.h, writing half): splits incoming
 * batches into row groups bounded by rows and estimated bytes, drives one
 * column writer per leaf (column_writer.c; nested leaves get their levels
 * from the record shredder in shred.c), writes each row group's column
 * chunks contiguously, then the page index (every ColumnIndex, then every
 * OffsetIndex; page_index.h) and ends the file with the FileMetaData
 * footer, its length and "PAR1" (parquet-format README "File Format").
 * Data pages hold at most page_max_rows rows, so the page index can skip
 * within a row group; under the default limit, a dictionary-encoded page
 * whose last 20,000 rows only repeated known values runs on to the byte
 * limit (column_writer.c).
 *
 * Footer choices: FileMetaData.version 2 (the file uses 2.x features:
 * logical types and RLE_DICTIONARY; only data page v1), column_orders
 * TypeDefinedOrder for every leaf, created_by in parquet-mr's
 * "<name> version <x> (build <y>)" form, which readers parse to decide
 * which statistics to trust. A file with no rows has no row groups.
 *
 * Durability: bytes go through inlet_wfile; close() fsyncs when asked; a
 * writer freed without a successful close removes its partial file. Table
 * data files are created through the table's storage (pq_writer.h), so the
 * backend's rules (no symbolic links on the way) and its fault injection
 * apply to them.
 */
#include <stddef.h>
#include <stdio.h>
#include <strings.h>

#include "batch/batch.h"
#include "codec/codec.h"
#include "inlet/parquet.h"
#include "inlet/version.h"
#include "parquet/column_writer.h"
#include "parquet/pq_meta.h"
#include "parquet/pq_schema.h"
#include "parquet/pq_writer.h"
#include "parquet/shred.h"
#include "parquet/stats.h"
#include "storage/storage.h"
#include "util/buf.h"
#include "util/pool.h"
#include "util/util.h"

#define DEFAULT_CREATED_BY "inlet version " INLET_VERSION_STRING " (build inlet)"
/* Rows per slice before the writer has seen any data to estimate row width
 * (small, so that a small row_group_bytes is not overshot by much). */
#define FIRST_SLICE_ROWS 4096
#define MAX_SLICE_ROWS (1 << 20)
/* Rows shredded per call for nested columns. */
#define NESTED_STEP_ROWS 1024

struct inlet_parquet_writer {
  char *path;            /* owned; relative to st's root when st is set */
  inlet_storage *st;     /* borrowed, or NULL: the file was created by path */
  inlet_wfile *file;     /* owned; NULL after close */
  bool closed;           /* close() succeeded */
  bool failed;           /* an error left the writer unusable */
  inlet_schema schema;   /* owned copy, for inlet_schema_equal */
  pq_file_metadata meta; /* owned; the footer being built */
  pq_schema_desc desc;   /* owned */
  pq_column_config cfg;
  int32_t n_cols;
  pq_column_writer *cols; /* owned, n_cols */
  pq_shredder *shred;     /* owned, n_cols; used by nested leaves (level_mode) */
  pq_row_group *rgs;      /* owned array (contents in meta's arena) */
  int32_t n_rgs, cap_rgs;
  int64_t rg_rows; /* rows in the open row group */
  int64_t total_rows;
  int64_t row_group_bytes, row_group_max_rows;
  bool sync_on_close;
  int64_t final_bytes;
  /* The page index, written before the footer: every chunk's ColumnIndex,
   * then every OffsetIndex, located by (offset, length) pairs relative to
   * the start of each buffer, per row group and column. */
  inlet_buf column_index, offset_index; /* owned */
  int64_t *index_locs;                  /* owned: 4 per chunk (ci off, ci len, oi off, oi len),
                                           -1 when absent */
  size_t index_locs_cap;                /* entries */
  inlet_buf footer;                     /* owned */
  /* Column chunks are encoded on this pool, one task per column per
   * slice, and each data page is compressed by a task of its own that may
   * outlive the slice (column_writer.c); NULL or inline: on the caller's
   * thread. Each column writer owns all its state, pages are placed in
   * page order and chunks written to the file in column order by the
   * caller, so the bytes do not depend on it. */
  util_pool *pool; /* owned when own_pool, else borrowed (pq_writer_set_pool) */
  bool own_pool;
  pq_buf_stash *own_stash; /* owned, until a stash is lent (pq_writer_set_stash) */
  struct col_task *tasks;  /* owned, n_cols: the arguments of the column tasks */
};

/* One column's share of a slice (or of finishing a chunk). */
typedef struct col_task {
  inlet_parquet_writer *w;
  int32_t col;
  const inlet_batch *batch; /* NULL: finish the chunk */
  int64_t start, n;
  const pq_raw_chunk *raw; /* NULL, or per batch field: pages to copy (whole batch) */
} col_task;

int inlet_compression_parse(inlet_compression *out, const char *name, inlet_error *err) {
  /* inlet_compression's values are Parquet's codec ids (codec/codec.c). */
  int c = inlet_codec_parse(name);
  if (c >= 0 && inlet_codec_can_write(c)) {
    if (out) *out = (inlet_compression)c;
    return 0;
  }
  return inlet_fail(err, INLET_EINVAL, "unknown compression \"%s\" (expected %s)",
                    name ? name : "(null)", inlet_codec_writable_names());
}

int inlet_parquet_encodings_parse(inlet_parquet_encodings *out, const char *name,
                                  inlet_error *err) {
  if (name && strcasecmp(name, "compatible") == 0) {
    if (out) *out = INLET_PARQUET_ENCODINGS_COMPATIBLE;
    return 0;
  }
  if (name && strcasecmp(name, "extended") == 0) {
    if (out) *out = INLET_PARQUET_ENCODINGS_EXTENDED;
    return 0;
  }
  return inlet_fail(err, INLET_EINVAL,
                    "unknown Parquet encodings \"%s\" (expected compatible or extended)",
                    name ? name : "(null)");
}

static int check_options(const inlet_parquet_writer_options *o, inlet_error *err) {
  FAIL_IF(o->version != 1 && o->version != INLET_PARQUET_WRITER_OPTIONS_VERSION, err, INLET_EINVAL,
          "parquet writer options: unknown version %d", o->version);
  FAIL_IF(o->threads < 0, err, INLET_EINVAL,
          "parquet writer options: threads must not be negative");
  switch (o->compression) {
  case INLET_COMPRESSION_UNCOMPRESSED:
  case INLET_COMPRESSION_SNAPPY:
  case INLET_COMPRESSION_GZIP:
  case INLET_COMPRESSION_BROTLI:
  case INLET_COMPRESSION_ZSTD:
  case INLET_COMPRESSION_LZ4_RAW: break;
  default:
    return inlet_fail(err, INLET_EINVAL, "parquet writer options: unknown compression %d",
                      (int)o->compression);
  }
  FAIL_IF(!inlet_codec_can_write((int)o->compression), err, INLET_EINVAL,
          "parquet writer options: cannot write compression %s",
          inlet_codec_name((int)o->compression));
  FAIL_IF(o->row_group_bytes <= 0, err, INLET_EINVAL,
          "parquet writer options: row_group_bytes must be positive");
  FAIL_IF(o->row_group_max_rows < 0, err, INLET_EINVAL,
          "parquet writer options: row_group_max_rows must not be negative");
  FAIL_IF(o->page_bytes <= 0 || o->page_bytes > (int64_t)1 << 30, err, INLET_EINVAL,
          "parquet writer options: page_bytes must be in 1..1 GiB");
  FAIL_IF(o->page_max_rows < 0, err, INLET_EINVAL,
          "parquet writer options: page_max_rows must not be negative");
  FAIL_IF(o->dictionary_page_bytes <= 0 || o->dictionary_page_bytes > (int64_t)1 << 30, err,
          INLET_EINVAL, "parquet writer options: dictionary_page_bytes must be in 1..1 GiB");
  FAIL_IF(
      o->int_encoding != INLET_INT_ENCODING_AUTO && o->int_encoding != INLET_INT_ENCODING_PLAIN &&
          o->int_encoding != INLET_INT_ENCODING_DELTA,
      err, INLET_EINVAL, "parquet writer options: unknown int_encoding %d", (int)o->int_encoding);
  FAIL_IF(o->encodings != INLET_PARQUET_ENCODINGS_COMPATIBLE &&
              o->encodings != INLET_PARQUET_ENCODINGS_EXTENDED,
          err, INLET_EINVAL, "parquet writer options: unknown encodings %d", (int)o->encodings);
  FAIL_IF(o->statistics_truncate < 0, err, INLET_EINVAL,
          "parquet writer options: statistics_truncate must not be negative");
  FAIL_IF(o->n_metadata < 0 || (o->n_metadata > 0 && !o->metadata_keys), err, INLET_EINVAL,
          "parquet writer options: bad key/value metadata");
  for (int32_t i = 0; i < o->n_metadata; i++)
    FAIL_IF(!o->metadata_keys[i], err, INLET_EINVAL,
            "parquet writer options: metadata key %d is NULL", (int)i);
  return 0;
}

static void writer_destroy(inlet_parquet_writer *w) {
  if (w->cols)
    for (int32_t i = 0; i < w->n_cols; i++)
      pq_column_writer_reset(&w->cols[i]);
  if (w->shred)
    for (int32_t i = 0; i < w->n_cols; i++)
      pq_shredder_reset(&w->shred[i]);
  inlet_free(w->cols);
  inlet_free(w->shred);
  inlet_free(w->rgs);
  pq_schema_desc_reset(&w->desc);
  pq_file_metadata_reset(&w->meta);
  inlet_schema_reset(&w->schema);
  inlet_buf_reset(&w->footer);
  inlet_buf_reset(&w->column_index);
  inlet_buf_reset(&w->offset_index);
  inlet_free(w->index_locs);
  inlet_free(w->tasks);
  if (w->own_pool) util_pool_free(w->pool);
  pq_buf_stash_free(w->own_stash); /* after the columns: they gave their buffers back */
  inlet_free(w->path);
  inlet_free(w);
}

/* Discards the file of a writer that did not close successfully: a file
 * still open is aborted (object stores drop the upload). One whose close
 * failed is removed on POSIX (the O_EXCL file is ours), never on an object
 * store: a close failing there published nothing, and the key may hold a
 * concurrent writer's object (a lost If-None-Match race). */
static void remove_partial(inlet_parquet_writer *w) {
  if (w->file) {
    inlet_wfile_abort(w->file);
    w->file = NULL;
    return;
  }
  if (w->st && (w->st->flags & INLET_STORAGE_OBJECT_STORE)) return;
  inlet_error ignore = INLET_ERROR_INIT;
  if (w->st)
    (void)w->st->ops->remove(w->st, w->path, &ignore);
  else
    (void)inlet_path_remove(w->path, &ignore);
}

static int writer_open(inlet_parquet_writer **out, inlet_storage *st, const char *path,
                       const inlet_schema *schema, const inlet_parquet_writer_options *options,
                       inlet_error *err);

int inlet_parquet_writer_open(inlet_parquet_writer **out, const char *path,
                              const inlet_schema *schema,
                              const inlet_parquet_writer_options *options, inlet_error *err) {
  return writer_open(out, NULL, path, schema, options, err);
}

int pq_writer_open_storage(inlet_parquet_writer **out, inlet_storage *st, const char *path,
                           const inlet_schema *schema, const inlet_parquet_writer_options *options,
                           inlet_error *err) {
  if (out) *out = NULL;
  FAIL_IF(!st, err, INLET_EINVAL, "parquet writer: NULL storage");
  return writer_open(out, st, path, schema, options, err);
}

static int writer_open(inlet_parquet_writer **out, inlet_storage *st, const char *path,
                       const inlet_schema *schema, const inlet_parquet_writer_options *options,
                       inlet_error *err) {
  if (out) *out = NULL;
  FAIL_IF(!out || !path || !schema, err, INLET_EINVAL, "parquet writer: NULL argument");
  inlet_parquet_writer_options defaults = INLET_PARQUET_WRITER_OPTIONS_INIT;
  const inlet_parquet_writer_options *o = options ? options : &defaults;
  FAIL_IF(o->version != 1 && o->version != INLET_PARQUET_WRITER_OPTIONS_VERSION, err, INLET_EINVAL,
          "parquet writer options: unknown version %d", o->version);
  inlet_parquet_writer_options v1 = defaults;
  if (o->version == 1) { /* a version-1 struct ends before threads */
    memcpy(&v1, o, offsetof(inlet_parquet_writer_options, threads));
    v1.version = INLET_PARQUET_WRITER_OPTIONS_VERSION;
    o = &v1;
  }
  TRY(check_options(o, err));
  FAIL_IF(schema->n_fields <= 0, err, INLET_EINVAL, "%s: schema has no columns", path);

  int rc = 0;
  inlet_parquet_writer *w = inlet_calloc(1, sizeof *w);
  if (!w) return inlet_fail(err, INLET_ENOMEM, "%s: out of memory", path);
  inlet_schema_init(&w->schema);
  pq_file_metadata_init(&w->meta);
  pq_schema_desc_init(&w->desc);
  inlet_buf_init(&w->footer);
  inlet_buf_init(&w->column_index);
  inlet_buf_init(&w->offset_index);
  w->path = inlet_strdup(path);
  FAIL_GOTO(!w->path, err, INLET_ENOMEM, "%s: out of memory", path);
  TRY_GOTO(inlet_schema_copy(&w->schema, schema, err));
  /* Descriptors point into w->schema (our copy), which outlives them. */
  rc = pq_writer_schema(&w->meta, &w->desc, &w->schema, err);
  if (rc < 0) {
    inlet_error_prefix(err, "%s", path);
    goto done;
  }

  w->cfg.codec = (int32_t)o->compression;
  w->cfg.compression_level = o->compression_level;
  w->cfg.page_bytes = o->page_bytes;
  w->cfg.dictionary = o->dictionary;
  w->cfg.dictionary_page_bytes = o->dictionary_page_bytes;
  w->cfg.statistics_truncate = o->statistics_truncate;
  w->cfg.file_name = w->path;
  w->cfg.page_max_rows = o->page_max_rows > 0 ? o->page_max_rows : 20000;
  w->cfg.page_rows_adaptive = o->page_max_rows == 0;
  w->cfg.page_index = o->page_index;
  /* Dictionary encoding is kept where it pays, whatever the encodings. AUTO
   * under EXTENDED turns PLAIN integer pages into DELTA_BINARY_PACKED when a
   * sample of the page says DELTA is clearly smaller (sorted ids, event
   * times); DELTA forces it. COMPATIBLE stays with what every reader decodes
   * (Spark's vectorized reader before 3.3 has no DELTA_BINARY_PACKED). */
  w->cfg.int_delta = o->int_encoding == INLET_INT_ENCODING_DELTA;
  w->cfg.int_auto = o->int_encoding == INLET_INT_ENCODING_AUTO &&
                    o->encodings == INLET_PARQUET_ENCODINGS_EXTENDED;
  /* AUTO also writes high-cardinality floats BYTE_STREAM_SPLIT when a codec
   * follows (as DuckDB's PARQUET_VERSION V2 does): the same bytes, grouped
   * so that the codec finds the repeating exponents. Uncompressed, it
   * would only cost decoding time. */
  w->cfg.float_split = w->cfg.int_auto && o->compression != INLET_COMPRESSION_UNCOMPRESSED;
  w->row_group_bytes = o->row_group_bytes;
  w->row_group_max_rows = o->row_group_max_rows;
  w->sync_on_close = o->sync_on_close;

  w->meta.version = 2;
  w->meta.created_by =
      pq_meta_strdup(&w->meta, o->created_by ? o->created_by : DEFAULT_CREATED_BY, err);
  FAIL_GOTO(!w->meta.created_by, err, INLET_ENOMEM, "%s: out of memory", path);
  if (o->n_metadata > 0) {
    w->meta.key_value =
        pq_meta_alloc_array(&w->meta, (size_t)o->n_metadata, sizeof(pq_key_value), err);
    FAIL_GOTO(!w->meta.key_value, err, INLET_ENOMEM, "%s: out of memory", path);
    for (int32_t i = 0; i < o->n_metadata; i++)
      TRY_GOTO(pq_meta_set_kv(&w->meta, &w->meta.key_value[i], o->metadata_keys[i],
                              o->metadata_values ? o->metadata_values[i] : NULL, err));
    w->meta.n_key_value = o->n_metadata;
  }

  w->n_cols = w->desc.n_columns;
  w->cols = inlet_calloc((size_t)w->n_cols, sizeof *w->cols);
  FAIL_GOTO(!w->cols, err, INLET_ENOMEM, "%s: out of memory", path);
  w->tasks = inlet_calloc((size_t)w->n_cols, sizeof *w->tasks);
  FAIL_GOTO(!w->tasks, err, INLET_ENOMEM, "%s: out of memory", path);
  /* A pool only when asked for more than one thread: columns are encoded
   * side by side and their pages compressed side by side, so even one
   * column has work for it. */
  if (o->threads > 1) {
    TRY_GOTO(util_pool_new(&w->pool, o->threads, err));
    w->own_pool = true;
    w->cfg.pool = w->pool;
  }
  w->shred = inlet_calloc((size_t)w->n_cols, sizeof *w->shred);
  FAIL_GOTO(!w->shred, err, INLET_ENOMEM, "%s: out of memory", path);
  /* The pages in flight of one row group keep their buffers for the next
   * (a stash lent by pq_writer_set_stash replaces it). */
  TRY_GOTO(pq_buf_stash_new(&w->own_stash, PQ_BUF_STASH_MAX_BYTES, err));
  w->cfg.stash = w->own_stash;
  for (int32_t i = 0; i < w->n_cols; i++) {
    TRY_GOTO(pq_column_writer_init(&w->cols[i], &w->desc.columns[i], &w->cfg, err));
    w->cols[i].stash_slot = (int64_t)i * PQ_COLUMN_STASH_SLOTS;
    if (w->cols[i].level_mode)
      TRY_GOTO(pq_shredder_init(&w->shred[i], &w->schema, i, w->desc.columns[i].max_def_level,
                                w->desc.columns[i].path, err));
  }

  w->st = st;
  if (st)
    TRY_GOTO(st->ops->create(st, path, &w->file, err));
  else
    TRY_GOTO(inlet_wfile_create_path(&w->file, path, err));
  rc = inlet_wfile_append(w->file, PQ_FOOTER_MAGIC, 4, err);
  if (rc < 0) goto done;
  *out = w;
  return 0;
done:
  if (w->file) remove_partial(w);
  writer_destroy(w);
  return rc;
}

static int64_t estimate_rg_bytes(const inlet_parquet_writer *w) {
  int64_t total = 0;
  for (int32_t i = 0; i < w->n_cols; i++)
    total += pq_column_writer_estimate(&w->cols[i]);
  return total;
}

/* Serializes the page index of the chunk @p cw just wrote at @p off into
 * the writer's index buffers and remembers where it went. */
static int record_page_index(inlet_parquet_writer *w, const pq_column_writer *cw, int64_t off,
                             inlet_error *err) {
  size_t need = ((size_t)w->n_rgs * (size_t)w->n_cols + (size_t)(cw - w->cols) + 1) * 4;
  if (need > w->index_locs_cap) {
    size_t cap = w->index_locs_cap ? w->index_locs_cap * 2 : 64;
    while (cap < need)
      cap *= 2;
    int64_t *p = inlet_realloc(w->index_locs, cap * sizeof *p);
    if (!p) return inlet_fail(err, INLET_ENOMEM, "%s: out of memory", w->path);
    w->index_locs = p;
    w->index_locs_cap = cap;
  }
  int64_t *loc = w->index_locs + need - 4;
  size_t ci0 = w->column_index.len, oi0 = w->offset_index.len;
  bool has_ci, has_oi;
  int rc = pq_column_writer_page_index(cw, off, &w->column_index, &has_ci, &w->offset_index,
                                       &has_oi, err);
  if (rc < 0) return inlet_error_prefix(err, "%s column \"%s\"", w->path, cw->desc->path);
  loc[0] = has_ci ? (int64_t)ci0 : -1;
  loc[1] = (int64_t)(w->column_index.len - ci0);
  loc[2] = has_oi ? (int64_t)oi0 : -1;
  loc[3] = (int64_t)(w->offset_index.len - oi0);
  /* ColumnChunk stores both lengths as i32. */
  if (loc[1] > INT32_MAX || loc[3] > INT32_MAX)
    return inlet_fail(err, INLET_ELIMIT,
                      "%s column \"%s\": page index of a column chunk "
                      "exceeds 2 GiB (too many pages: raise page_max_rows)",
                      w->path, cw->desc->path);
  return 0;
}

/* Writes the collected page index and points each column chunk at it. */
static int write_page_index(inlet_parquet_writer *w, inlet_error *err) {
  if (w->column_index.len == 0 && w->offset_index.len == 0) return 0;
  int64_t ci_base = w->file->written;
  if (w->column_index.len)
    TRY(inlet_wfile_append(w->file, w->column_index.data, w->column_index.len, err));
  int64_t oi_base = w->file->written;
  if (w->offset_index.len)
    TRY(inlet_wfile_append(w->file, w->offset_index.data, w->offset_index.len, err));
  for (int32_t g = 0; g < w->n_rgs; g++) {
    for (int32_t c = 0; c < w->n_cols; c++) {
      const int64_t *loc = w->index_locs + ((size_t)g * (size_t)w->n_cols + (size_t)c) * 4;
      pq_column_chunk *cc = &w->rgs[g].columns[c];
      if (loc[0] >= 0) {
        cc->has_column_index = true;
        cc->column_index_offset = ci_base + loc[0];
        cc->column_index_length = (int32_t)loc[1];
      }
      if (loc[2] >= 0) {
        cc->has_offset_index = true;
        cc->offset_index_offset = oi_base + loc[2];
        cc->offset_index_length = (int32_t)loc[3];
      }
    }
  }
  return 0;
}

/* Appends rows [start, start + n) of @p batch to column @p i, or with a
 * NULL batch ends its chunk (the last page is encoded and compressed). */
static int column_step(inlet_parquet_writer *w, int32_t i, const inlet_batch *batch, int64_t start,
                       int64_t n, const pq_raw_chunk *raw, inlet_error *err) {
  if (!batch) return pq_column_writer_finish_chunk(&w->cols[i], err);
  const inlet_array *top = &batch->columns[w->desc.columns[i].field_index];
  const pq_raw_chunk *pages = raw ? &raw[w->desc.columns[i].field_index] : NULL;
  if (pages && pq_column_writer_can_copy(&w->cols[i], pages, n)) {
    int r = pq_column_writer_copy_pages(&w->cols[i], top, start, pages, err);
    if (r < 0) inlet_error_prefix(err, "%s", w->path);
    return r;
  }
  if (pages && start == 0 && pq_column_writer_can_hint(&w->cols[i], pages, top, n)) {
    int r = pq_column_writer_write_hinted(&w->cols[i], top, n, pages, err);
    if (r < 0) inlet_error_prefix(err, "%s", w->path);
    return r;
  }
  if (!w->cols[i].level_mode) return pq_column_writer_write(&w->cols[i], top, start, n, err);
  /* Pages of nested columns end between calls: keep calls small so
   * that pages stay near page_bytes. */
  pq_shredder *sh = &w->shred[i];
  int rc = 0;
  for (int64_t off = 0; rc == 0 && off < n; off += NESTED_STEP_ROWS) {
    int64_t m = n - off < NESTED_STEP_ROWS ? n - off : NESTED_STEP_ROWS;
    rc = pq_shred(sh, top, start + off, m, err);
    if (rc == 0)
      rc = pq_column_writer_write_levels(&w->cols[i], sh->def, sh->rep, sh->n_levels, &sh->values,
                                         0, sh->values.length, err);
  }
  if (rc < 0) inlet_error_prefix(err, "%s", w->path);
  return rc;
}

static int column_task(void *arg, inlet_error *err) {
  col_task *t = arg;
  return column_step(t->w, t->col, t->batch, t->start, t->n, t->raw, err);
}

/* column_step for every column: on the pool, one task per column, or in
 * column order here. Either way the failure reported is the lowest
 * column's, as the serial loop would report it. */
static int columns_step(inlet_parquet_writer *w, const inlet_batch *batch, int64_t start, int64_t n,
                        const pq_raw_chunk *raw, inlet_error *err) {
  if (util_pool_threads(w->pool) == 0 || w->n_cols < 2) {
    for (int32_t i = 0; i < w->n_cols; i++)
      TRY(column_step(w, i, batch, start, n, raw, err));
    return 0;
  }
  util_group g;
  util_group_init(&g, w->pool);
  for (int32_t i = 0; i < w->n_cols; i++) {
    col_task *t = &w->tasks[i];
    t->w = w;
    t->col = i;
    t->batch = batch;
    t->start = start;
    t->n = n;
    t->raw = raw;
    util_group_submit(&g, column_task, t);
  }
  return util_group_wait(&g, err);
}

static int flush_row_group(inlet_parquet_writer *w, inlet_error *err) {
  if (w->rg_rows == 0) return 0;
  TRY(columns_step(w, NULL, 0, 0, NULL, err));
  if (w->n_rgs == w->cap_rgs) {
    int32_t cap = w->cap_rgs ? w->cap_rgs * 2 : 8;
    pq_row_group *p = inlet_realloc(w->rgs, (size_t)cap * sizeof *p);
    if (!p) return inlet_fail(err, INLET_ENOMEM, "%s: out of memory", w->path);
    w->rgs = p;
    w->cap_rgs = cap;
  }
  pq_row_group *rg = &w->rgs[w->n_rgs];
  memset(rg, 0, sizeof *rg);
  rg->columns = pq_meta_alloc_array(&w->meta, (size_t)w->n_cols, sizeof(pq_column_chunk), err);
  if (!rg->columns) return INLET_ENOMEM;
  rg->n_columns = w->n_cols;
  rg->has_file_offset = true;
  rg->file_offset = w->file->written;
  for (int32_t i = 0; i < w->n_cols; i++) {
    pq_column_writer *cw = &w->cols[i];
    int64_t off = w->file->written;
    TRY(pq_column_writer_write_chunk(cw, w->file, err));
    TRY(record_page_index(w, cw, off, err));
    TRY(pq_column_writer_chunk_meta(cw, off, &w->meta, &rg->columns[i], err));
    rg->total_byte_size += rg->columns[i].meta_data.total_uncompressed_size;
  }
  rg->num_rows = w->rg_rows;
  rg->has_total_compressed_size = true;
  rg->total_compressed_size = w->file->written - rg->file_offset;
  if (w->n_rgs <= INT16_MAX) {
    rg->has_ordinal = true;
    rg->ordinal = (int16_t)w->n_rgs;
  }
  w->n_rgs++;
  w->rg_rows = 0;
  return 0;
}

/* Light checks of a caller's batch: shape only (values are trusted to match
 * the layout, as inlet_batch_validate would check). */
static int check_batch(const inlet_parquet_writer *w, const inlet_batch *b, inlet_error *err) {
  FAIL_IF(!inlet_schema_equal(&b->schema, &w->schema), err, INLET_EINVAL,
          "%s: batch schema differs from the writer's", w->path);
  FAIL_IF(b->num_rows < 0, err, INLET_EINVAL, "%s: negative row count", w->path);
  if (b->num_rows == 0) return 0;
  for (int32_t i = 0; i < w->schema.n_fields; i++) {
    const inlet_array *a = &b->columns[i];
    const inlet_field *f = &w->schema.fields[i];
    FAIL_IF(a->length != b->num_rows, err, INLET_EINVAL,
            "%s: column \"%s\" has %lld rows, batch %lld", w->path, f->name, (long long)a->length,
            (long long)b->num_rows);
    bool var = f->type.id == INLET_TYPE_STRING || f->type.id == INLET_TYPE_BINARY;
    FAIL_IF(var && !a->offsets, err, INLET_EINVAL, "%s: column \"%s\" has no offsets", w->path,
            f->name);
    if (var) {
      /* Offsets decide how many bytes the encoders copy: a decreasing or
       * out-of-buffer offset would make them read wild memory. */
      const int32_t *off = a->offsets;
      bool ok = off[0] >= 0;
      for (int64_t r = 0; ok && r < a->length; r++)
        ok = off[r] <= off[r + 1];
      FAIL_IF(!ok, err, INLET_EINVAL, "%s: column \"%s\" has invalid offsets", w->path, f->name);
      FAIL_IF(batch_values_cap(a) > 0 && off[a->length] > batch_values_cap(a), err, INLET_EINVAL,
              "%s: column \"%s\" offsets pass its data buffer", w->path, f->name);
      FAIL_IF(!a->values && off[a->length] > off[0], err, INLET_EINVAL,
              "%s: column \"%s\" has no data buffer", w->path, f->name);
    }
    /* Builders leave values NULL for all-null columns (and strings for
     * all-empty ones); anything else needs its values. */
    bool nested = f->type.id == INLET_TYPE_STRUCT || f->type.id == INLET_TYPE_LIST ||
                  f->type.id == INLET_TYPE_MAP; /* shapes checked while shredding */
    FAIL_IF(!var && !nested && !a->values && a->null_count != a->length, err, INLET_EINVAL,
            "%s: column \"%s\" has no values buffer", w->path, f->name);
  }
  return 0;
}

static int64_t slice_rows(const inlet_parquet_writer *w, int64_t left) {
  int64_t rows = FIRST_SLICE_ROWS;
  if (w->rg_rows > 0) {
    int64_t est = estimate_rg_bytes(w);
    int64_t per_row = est / w->rg_rows;
    if (per_row < 1) per_row = 1;
    int64_t room = (w->row_group_bytes - est) / per_row;
    rows = room < 8 ? 8 : room > MAX_SLICE_ROWS ? MAX_SLICE_ROWS : (room + 7) & ~(int64_t)7;
  }
  if (w->row_group_max_rows > 0 && rows > w->row_group_max_rows - w->rg_rows)
    rows = w->row_group_max_rows - w->rg_rows;
  return rows < left ? rows : left;
}

/* The checks every write begins with. */
static int write_begin(inlet_parquet_writer *w, const inlet_batch *batch, inlet_error *err) {
  FAIL_IF(!w || !batch, err, INLET_EINVAL, "parquet writer: NULL argument");
  FAIL_IF(w->closed || !w->file, err, INLET_EINVAL, "%s: writer is closed", w->path);
  FAIL_IF(w->failed, err, INLET_EINVAL, "%s: writer failed earlier", w->path);
  return check_batch(w, batch, err);
}

/* Writes a checked batch in slices, cutting row groups between them. */
static int write_sliced(inlet_parquet_writer *w, const inlet_batch *batch, inlet_error *err) {
  int64_t done = 0;
  while (done < batch->num_rows) {
    int64_t n = slice_rows(w, batch->num_rows - done);
    int rc = columns_step(w, batch, done, n, NULL, err);
    if (rc < 0) {
      /* Columns now disagree on their row counts: the file cannot be
       * finished consistently. */
      w->failed = true;
      return rc;
    }
    done += n;
    w->rg_rows += n;
    w->total_rows += n;
    if ((w->row_group_max_rows > 0 && w->rg_rows >= w->row_group_max_rows) ||
        estimate_rg_bytes(w) >= w->row_group_bytes) {
      rc = flush_row_group(w, err);
      if (rc < 0) {
        w->failed = true;
        return rc;
      }
    }
  }
  return 0;
}

int inlet_parquet_writer_write(inlet_parquet_writer *w, const inlet_batch *batch,
                               inlet_error *err) {
  TRY(write_begin(w, batch, err));
  return write_sliced(w, batch, err);
}

/* What @p batch would add to a row group, as far as the writer can tell
 * before encoding it: a column whose pages it copies, their uncompressed
 * sizes (what the row group's estimate counts for them); any other column,
 * its buffers in memory (an upper bound of what its slices would add). */
static int64_t batch_fit_bytes(const inlet_parquet_writer *w, const inlet_batch *batch,
                               const pq_raw_chunk *raw) {
  int64_t total = inlet_batch_memory(batch);
  for (int32_t i = 0; i < w->n_cols; i++) {
    const pq_column_desc *d = &w->desc.columns[i];
    const pq_raw_chunk *rc = &raw[d->field_index];
    if (!pq_column_writer_can_copy(&w->cols[i], rc, batch->num_rows)) continue;
    /* Copied columns are flat: one column of the writer per field. */
    const inlet_array *a = &batch->columns[d->field_index];
    total -= batch_validity_cap(a) + batch_offsets_cap(a) + batch_values_cap(a);
    for (int32_t k = 0; k < rc->n_pages; k++)
      total += rc->pages[k].uncompressed;
  }
  return total;
}

int pq_writer_write_pages(inlet_parquet_writer *w, const inlet_batch *batch,
                          const pq_raw_chunk *raw, inlet_error *err) {
  TRY(write_begin(w, batch, err));
  bool any = false;
  for (int32_t i = 0; raw && i < w->n_cols && !any; i++) {
    const pq_column_desc *d = &w->desc.columns[i];
    const pq_raw_chunk *rc = &raw[d->field_index];
    any = pq_column_writer_can_copy(&w->cols[i], rc, batch->num_rows) ||
          pq_column_writer_can_hint(&w->cols[i], rc, &batch->columns[d->field_index],
                                    batch->num_rows);
  }
  /* Pages go whole into one row group: only where the batch fits, as far
   * as the writer can tell before encoding it: within the row limit, and
   * within the byte target as the slices would fill it (a row group's
   * first batch: batch_fit_bytes). Otherwise it is written as usual. */
  const int64_t fit_bytes = any ? batch_fit_bytes(w, batch, raw) : 0;
  bool fits =
      batch->num_rows > 0 &&
      (w->row_group_max_rows == 0 || w->rg_rows + batch->num_rows <= w->row_group_max_rows) &&
      (w->rg_rows == 0 ? fit_bytes <= w->row_group_bytes
                       : slice_rows(w, batch->num_rows) == batch->num_rows);
  /* A batch that does not fit the rest of a row group at least half full
   * starts the next one, where it fits whole: its pages are copied, and
   * row groups keep at least half the target (a copy-on-write delete's
   * untouched row groups, behind one it encoded, were all encoded). */
  int rc = 0;
  if (any && !fits && w->rg_rows > 0 && batch->num_rows > 0 &&
      estimate_rg_bytes(w) >= w->row_group_bytes / 2 && fit_bytes <= w->row_group_bytes &&
      (w->row_group_max_rows == 0 || batch->num_rows <= w->row_group_max_rows)) {
    rc = flush_row_group(w, err);
    if (rc < 0) {
      w->failed = true;
      return rc;
    }
    fits = true;
  }
  if (!any || !fits) return write_sliced(w, batch, err);
  rc = columns_step(w, batch, 0, batch->num_rows, raw, err);
  if (rc == 0) {
    w->rg_rows += batch->num_rows;
    w->total_rows += batch->num_rows;
    if ((w->row_group_max_rows > 0 && w->rg_rows >= w->row_group_max_rows) ||
        estimate_rg_bytes(w) >= w->row_group_bytes)
      rc = flush_row_group(w, err);
  }
  if (rc < 0) w->failed = true;
  return rc;
}

int64_t pq_writer_values_hinted(const inlet_parquet_writer *w) {
  int64_t n = 0;
  for (int32_t i = 0; w && i < w->n_cols; i++)
    n += w->cols[i].values_hinted;
  return n;
}

int64_t pq_writer_pages_copied(const inlet_parquet_writer *w) {
  int64_t n = 0;
  for (int32_t i = 0; w && i < w->n_cols; i++)
    n += w->cols[i].pages_copied;
  return n;
}

int inlet_parquet_writer_close(inlet_parquet_writer *w, inlet_error *err) {
  FAIL_IF(!w, err, INLET_EINVAL, "parquet writer: NULL argument");
  if (w->closed) return 0;
  FAIL_IF(w->failed || !w->file, err, INLET_EINVAL, "%s: writer failed earlier", w->path);
  int rc = flush_row_group(w, err);
  if (rc < 0) goto fail;
  rc = write_page_index(w, err);
  if (rc < 0) goto fail;
  w->meta.num_rows = w->total_rows;
  w->meta.row_groups = w->rgs;
  w->meta.n_row_groups = w->n_rgs;
  inlet_buf_clear(&w->footer);
  rc = pq_footer_serialize(&w->meta, &w->footer, err);
  if (rc < 0) goto fail;
  rc = inlet_wfile_append(w->file, w->footer.data, w->footer.len, err);
  if (rc < 0) goto fail;
  w->final_bytes = w->file->written;
  inlet_wfile *f = w->file;
  w->file = NULL;
  rc = inlet_wfile_close(f, w->sync_on_close, err);
  if (rc < 0) goto fail;
  w->closed = true;
  return 0;
fail:
  w->failed = true;
  return rc;
}

int64_t inlet_parquet_writer_rows(const inlet_parquet_writer *w) {
  return w ? w->total_rows : 0;
}

int64_t inlet_parquet_writer_bytes(const inlet_parquet_writer *w) {
  if (!w) return 0;
  if (w->file) return w->file->written;
  return w->final_bytes;
}

void inlet_parquet_writer_free(inlet_parquet_writer *w) {
  if (!w) return;
  if (!w->closed) remove_partial(w);
  writer_destroy(w);
}

/* ---- per-file statistics (stats.h) ------------------------------------ */

int32_t pq_writer_num_leaves(const inlet_parquet_writer *w) {
  return w ? w->n_cols : 0;
}

const pq_column_desc *pq_writer_leaf_desc(const inlet_parquet_writer *w, int32_t leaf) {
  if (!w || leaf < 0 || leaf >= w->n_cols) return NULL;
  return &w->desc.columns[leaf];
}

void pq_writer_set_pool(inlet_parquet_writer *w, util_pool *pool) {
  if (!w || w->own_pool) return;
  w->pool = pool;
  w->cfg.pool = pool;
}

void pq_writer_set_stash(inlet_parquet_writer *w, pq_buf_stash *stash) {
  if (!w || !stash) return;
  /* Right after opening, nothing has gone into the writer's own stash. */
  w->cfg.stash = stash;
  pq_buf_stash_free(w->own_stash);
  w->own_stash = NULL;
  if (w->cols)
    for (int32_t i = 0; i < w->n_cols; i++)
      pq_column_writer_take_buffers(&w->cols[i]);
}

const pq_stats *pq_writer_leaf_stats(const inlet_parquet_writer *w, int32_t leaf) {
  if (!w || leaf < 0 || leaf >= w->n_cols) return NULL;
  return &w->cols[leaf].file_stats;
}
