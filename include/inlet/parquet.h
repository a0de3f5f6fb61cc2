/*
 * Parquet files: a streaming writer and a row-group-at-a-time reader.
 *
 * The codec is inlet's own (Debian ships no Parquet library for C); it
 * follows apache/parquet-format's parquet.thrift and Encodings.md.
 * Schemas and data travel as inlet_schema / inlet_batch (inlet/batch.h).
 *
 * Thread safety: a writer or reader is used by one thread at a time;
 * distinct handles are independent. A writer given threads > 1 runs its
 * own worker threads internally; its calls still come from one thread.
 */
#ifndef INLET_PARQUET_H
#define INLET_PARQUET_H

#include "inlet/batch.h"
#include "inlet/common.h"
#include "inlet/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Compression codecs (values are parquet.thrift CompressionCodec). */
typedef enum inlet_compression {
  INLET_COMPRESSION_UNCOMPRESSED = 0,
  INLET_COMPRESSION_SNAPPY = 1,
  INLET_COMPRESSION_GZIP = 2,
  INLET_COMPRESSION_BROTLI = 4,
  INLET_COMPRESSION_ZSTD = 6,
  INLET_COMPRESSION_LZ4_RAW = 7
} inlet_compression;

/** Parses "uncompressed|none|snappy|gzip|zstd|lz4_raw|brotli" (any case).
 * @return 0, INLET_EINVAL. */
INLET_API int inlet_compression_parse(inlet_compression *out, const char *name, inlet_error *err);

/* Which value encodings the writer may choose from.
 *
 * COMPATIBLE (the default): PLAIN, dictionary (a PLAIN dictionary page and
 * RLE_DICTIONARY data pages) and RLE/bit-packed levels, in V1 data pages:
 * what parquet-mr (Spark), arrow-rs (delta-rs) and DuckDB write by default
 * and every Parquet reader decodes, including Spark's vectorized reader in
 * every release.
 *
 * EXTENDED: also DELTA_BINARY_PACKED for INT32/INT64 pages that did not keep
 * a dictionary, where a sampled estimate says it is clearly smaller (sorted
 * ids, event times), and, with a codec, BYTE_STREAM_SPLIT for
 * high-cardinality FLOAT/DOUBLE pages. Smaller files, but Spark's vectorized
 * reader (its default) decodes DELTA_BINARY_PACKED only from Spark 3.3
 * (SPARK-36879) and BYTE_STREAM_SPLIT only from Spark 4.3 (SPARK-56894);
 * older releases fail with "Unsupported encoding". DuckDB and arrow-rs
 * (delta-rs, Polars) read both. */
typedef enum inlet_parquet_encodings {
  INLET_PARQUET_ENCODINGS_COMPATIBLE = 0,
  INLET_PARQUET_ENCODINGS_EXTENDED
} inlet_parquet_encodings;

/** Parses "compatible" or "extended" (any case).
 * @return 0, INLET_EINVAL. */
INLET_API int inlet_parquet_encodings_parse(inlet_parquet_encodings *out, const char *name,
                                            inlet_error *err);

/* Integer column encoding. AUTO: whatever `encodings` allows (PLAIN under
 * COMPATIBLE; DELTA_BINARY_PACKED where it pays under EXTENDED). PLAIN and
 * DELTA force integer pages that did not keep a dictionary to that encoding
 * (DELTA is an explicit request and needs no EXTENDED) and keep floats
 * PLAIN. */
typedef enum inlet_int_encoding {
  INLET_INT_ENCODING_AUTO = 0,
  INLET_INT_ENCODING_PLAIN,
  INLET_INT_ENCODING_DELTA
} inlet_int_encoding;

typedef struct inlet_parquet_writer_options {
  int version;                     /* INLET_PARQUET_WRITER_OPTIONS_VERSION */
  inlet_compression compression;   /* default SNAPPY */
  int compression_level;           /* codec level, 0 = codec default */
  int64_t row_group_bytes;         /* target uncompressed row group size; default 128 MiB */
  int64_t row_group_max_rows;      /* 0 = no row limit; default 0 */
  int64_t page_bytes;              /* target uncompressed page size; default 1 MiB */
  bool dictionary;                 /* try dictionary encoding; default true */
  int64_t dictionary_page_bytes;   /* dictionary size limit before PLAIN fallback; 1 MiB */
  int32_t statistics_truncate;     /* max bytes of binary min/max; default 64 */
  inlet_int_encoding int_encoding; /* default AUTO */
  bool sync_on_close;              /* fsync before close returns; default true */
  const char *created_by;          /* NULL = "inlet version X (build ...)" */
  int32_t n_metadata;              /* key/value metadata for the footer */
  const char *const *metadata_keys;
  const char *const *metadata_values;
  int64_t page_max_rows;             /* rows per data page at most (flat columns); 0 = the
                                        default, 20,000 (as parquet-mr and parquet-rs),
                                        except that a dictionary-encoded page whose last
                                        20,000 rows added no new value runs on to
                                        page_bytes (a page index skips little there; a
                                        value set here is kept exactly) */
  bool page_index;                   /* write the page index (ColumnIndex + OffsetIndex per
                                        column chunk), for page skipping; default true */
  inlet_parquet_encodings encodings; /* default COMPATIBLE */
  /* Version 2: threads that encode and compress the column chunks of a row
   * group in parallel (the writer starts them at open and joins them at
   * free); 0 or 1 (the default): none, everything on the caller's thread.
   * The file's bytes are the same whatever the number. */
  int32_t threads;
} inlet_parquet_writer_options;

/* 2: threads; a version-1 struct, which ends before it, is still accepted
 * (one thread). */
#define INLET_PARQUET_WRITER_OPTIONS_VERSION 2
#define INLET_PARQUET_WRITER_OPTIONS_INIT                                                          \
  {                                                                                                \
    INLET_PARQUET_WRITER_OPTIONS_VERSION, INLET_COMPRESSION_SNAPPY, 0, 128 * 1024 * 1024, 0,       \
        1024 * 1024, true, 1024 * 1024, 64, INLET_INT_ENCODING_AUTO, true, NULL, 0, NULL, NULL, 0, \
        true, INLET_PARQUET_ENCODINGS_COMPATIBLE, 0                                                \
  }

typedef struct inlet_parquet_writer inlet_parquet_writer;

/**
 * Creates @p path (it must not exist) and prepares to write @p schema.
 * @return 0, INLET_EINVAL (schema not writable), INLET_EEXISTS, INLET_EIO,
 *         INLET_ENOMEM. On failure *out is NULL.
 */
INLET_API int inlet_parquet_writer_open(inlet_parquet_writer **out, const char *path,
                                        const inlet_schema *schema,
                                        const inlet_parquet_writer_options *options,
                                        inlet_error *err);

/**
 * Appends the rows of @p batch (whose schema must equal the writer's).
 * Pages and row groups are flushed as their size targets are reached, so
 * memory stays bounded by the row group size.
 * @return 0, INLET_EINVAL, INLET_EIO, INLET_ENOMEM, INLET_ELIMIT.
 */
INLET_API int inlet_parquet_writer_write(inlet_parquet_writer *w, const inlet_batch *batch,
                                         inlet_error *err);

/**
 * Flushes the last row group, writes the footer and (by default) fsyncs.
 * The writer stays allocated for the statistics getters; free it after.
 * @return 0, INLET_EIO, INLET_ENOMEM.
 */
INLET_API int inlet_parquet_writer_close(inlet_parquet_writer *w, inlet_error *err);

/** Rows and bytes written so far (bytes final after close). */
INLET_API int64_t inlet_parquet_writer_rows(const inlet_parquet_writer *w);
INLET_API int64_t inlet_parquet_writer_bytes(const inlet_parquet_writer *w);

/** Frees the writer; if it was not closed, the partial file is removed. NULL-safe. */
INLET_API void inlet_parquet_writer_free(inlet_parquet_writer *w);

/* ---- reading --------------------------------------------------------- */

typedef struct inlet_parquet_reader_options {
  int version;                    /* INLET_PARQUET_READER_OPTIONS_VERSION */
  int64_t max_column_chunk_bytes; /* refuse larger chunks (INLET_ELIMIT); default 2 GiB */
  int64_t max_footer_bytes;       /* default 256 MiB */
  bool verify_checksums;          /* verify page CRCs when present; default true */
  int64_t max_decoded_bytes;      /* refuse (INLET_ELIMIT) a row group read whose decoded
                                     values, levels and offsets would exceed this, before
                                     allocating; string bytes are not counted; default 4 GiB */
} inlet_parquet_reader_options;

#define INLET_PARQUET_READER_OPTIONS_VERSION 1
#define INLET_PARQUET_READER_OPTIONS_INIT                                                          \
  {                                                                                                \
    INLET_PARQUET_READER_OPTIONS_VERSION, (int64_t)2 << 30, 256 * 1024 * 1024, true,               \
        (int64_t)4 << 30                                                                           \
  }

typedef struct inlet_parquet_reader inlet_parquet_reader;

/**
 * Opens @p path and reads and validates its footer.
 * @return 0, INLET_ENOTFOUND, INLET_EIO, INLET_ECORRUPT (names the file and
 *         the problem), INLET_EUNSUPPORTED (names the feature), INLET_ENOMEM.
 */
INLET_API int inlet_parquet_reader_open(inlet_parquet_reader **out, const char *path,
                                        const inlet_parquet_reader_options *options,
                                        inlet_error *err);
INLET_API void inlet_parquet_reader_free(inlet_parquet_reader *r);

/** The file's schema as inlet types (lives as long as the reader). */
INLET_API const inlet_schema *inlet_parquet_reader_schema(const inlet_parquet_reader *r);
INLET_API int64_t inlet_parquet_reader_num_rows(const inlet_parquet_reader *r);
INLET_API int32_t inlet_parquet_reader_num_row_groups(const inlet_parquet_reader *r);
INLET_API int64_t inlet_parquet_reader_row_group_rows(const inlet_parquet_reader *r, int32_t rg);

/**
 * Restricts later reads to the top-level fields @p indices (in that order).
 * n == 0 restores all columns. @return 0, INLET_EINVAL.
 */
INLET_API int inlet_parquet_reader_project(inlet_parquet_reader *r, const int32_t *indices,
                                           int32_t n, inlet_error *err);

/**
 * Decodes row group @p rg into @p out, which is (re)initialised with the
 * projected schema. Memory is bounded by the projected column chunks.
 * @return 0, INLET_EINVAL (bad index), INLET_ECORRUPT, INLET_EUNSUPPORTED,
 *         INLET_EIO, INLET_ENOMEM, INLET_ELIMIT.
 */
INLET_API int inlet_parquet_reader_read_row_group(inlet_parquet_reader *r, int32_t rg,
                                                  inlet_batch *out, inlet_error *err);

/**
 * Like inlet_parquet_reader_read_row_group, but only the rows of @p rg in
 * the @p n_ranges row ranges [ranges[2i], ranges[2i+1]) (sorted, disjoint,
 * non-empty, within the row group); data pages holding none of them are
 * skipped without being decompressed and, when the file has an offset index
 * (PageIndex.md), without being read: memory and I/O are then bounded by
 * the pages that hold the ranges. Flat schemas only.
 * @return 0, INLET_EINVAL (bad ranges), INLET_EUNSUPPORTED (nested
 *         schema), and the codes of inlet_parquet_reader_read_row_group.
 */
INLET_API int inlet_parquet_reader_read_rows(inlet_parquet_reader *r, int32_t rg,
                                             const int64_t *ranges, int32_t n_ranges,
                                             inlet_batch *out, inlet_error *err);

/** What a reader has done so far, over all its reads. */
typedef struct inlet_parquet_read_stats {
  int64_t data_pages_decoded; /**< data pages inflated and decoded */
  int64_t data_pages_skipped; /**< data pages a row-range read passed over (mostly unread) */
  int64_t column_bytes_read;  /**< bytes of column chunks read from the file */
} inlet_parquet_read_stats;

/** Fills @p out with @p r's counters (zeros for NULL). */
INLET_API void inlet_parquet_reader_get_stats(const inlet_parquet_reader *r,
                                              inlet_parquet_read_stats *out);

/**
 * Writes a JSON description of the file's metadata (schema elements, row
 * groups, column chunks with encodings, codec, sizes, statistics) to @p json
 * as a NUL-terminated string the caller frees with inlet_string_free.
 */
INLET_API int inlet_parquet_reader_metadata_json(const inlet_parquet_reader *r, char **json,
                                                 inlet_error *err);

/** Frees strings returned by inlet functions. NULL-safe. */
INLET_API void inlet_string_free(char *s);

#ifdef __cplusplus
}
#endif

#endif /* INLET_PARQUET_H */
