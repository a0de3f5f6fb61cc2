/*
 * Private layout of inlet_parquet_reader (include/inlet/parquet.h), shared
 * by reader.c (open, projection, row groups) and meta_json.c (metadata as
 * JSON). Not for use outside src/parquet/.
 */
#ifndef INLET_PARQUET_READER_INT_H
#define INLET_PARQUET_READER_INT_H

#include "inlet/parquet.h"
#include "parquet/column_reader.h"
#include "parquet/nested.h"
#include "parquet/page_index.h"
#include "parquet/pq_meta.h"
#include "parquet/pq_schema.h"
#include "parquet/raw_pages.h"
#include "storage/storage.h"

struct inlet_parquet_reader {
  inlet_rfile *file; /* owned */
  char *name;        /* owned: path as given, for messages */
  inlet_parquet_reader_options opts;
  int64_t data_end;      /* first byte of the footer (metadata) */
  int64_t num_rows;      /* sum of row group rows */
  bool parquet_816;      /* writer under-reports chunk sizes */
  pq_file_metadata meta; /* owned */
  pq_schema_desc sd;     /* owned: inlet schema + leaf descriptors */
  int32_t *field_column; /* owned: per top-level field, its leaf column */
  int32_t *proj;         /* owned: projected top-level fields */
  int32_t n_proj;
  inlet_schema proj_schema; /* owned: the schema of read batches */
  pq_raw_chunk *capture;    /* borrowed, n_proj entries or NULL: pq_reader_capture_pages */
  uint8_t *chunk;           /* owned: the current column chunk's bytes */
  size_t chunk_cap;
  int64_t bytes_read;     /* of column chunks, over the reader's life */
  pq_page_index *offsets; /* owned, per leaf: offset index of row group offsets_rg[leaf],
                             kept for row-range reads of the same row group */
  int32_t *offsets_rg;    /* owned, per leaf: -1 = none cached */
  int32_t n_offsets;      /* leaves in offsets and offsets_rg */
  pq_column_reader cr;    /* owned scratch */
  bool nested_mode;       /* schema has groups or repeated fields */
  pq_nested nested;       /* owned: leaf plans (nested_mode only) */
  /* A clone (pq_reader_clone): meta, sd, field_column and nested are the
   * original's, borrowed read-only; the rest is the clone's own. */
  bool borrowed;
};

/* inlet_parquet_reader_open over an already open file (e.g. an in-memory
 * one in tests and fuzzers), which the reader owns from here on, also on
 * failure. @p path names the file in messages. */
int pq_reader_open_rfile(inlet_parquet_reader **out, inlet_rfile *file, const char *path,
                         const inlet_parquet_reader_options *options, inlet_error *err);

#endif /* INLET_PARQUET_READER_INT_H */
