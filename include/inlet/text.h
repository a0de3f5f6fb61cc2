/*
 * Text import and export: NDJSON and CSV into inlet_batch rows of a target
 * schema, and batches out as NDJSON, CSV or an aligned table.
 *
 * Import converts each record to the target schema and never aborts the
 * stream on bad data: a record that cannot be converted is skipped and
 * reported (record number, line, byte offset, the field and the reason) to
 * a callback, so ingestion can route it to a dead-letter file.
 *
 * Value conversions (import). With options.strict_types (what `inlet ingest`
 * and `inlet append` use unless --coerce) JSON values are held to the strict
 * subset of docs/INGEST.md "Unknown fields and types": no strings into
 * integer, floating (but the three names), boolean or epoch forms, and no
 * numbers, booleans, objects or arrays into string columns. Without it:
 *   integers   JSON integer or a string holding one; range-checked per width
 *              (overflow is a bad record). CSV: the cell text.
 *   float/double  any JSON number in the type's range (rounded to the nearest
 *              value; 1e999, or 1e39 for a float, is a bad record, not an
 *              infinity), or "NaN", "Infinity", "-Infinity".
 *   boolean    true/false; in CSV and strings also 1/0, t/f, yes/no (any case).
 *   string     JSON string (invalid UTF-8 is a bad record); a number, boolean,
 *              object or array is kept as its JSON text; json columns keep
 *              any value (strings included) as its raw JSON text.
 *   binary     hex string (either case, even length); uuid also 8-4-4-4-12.
 *   date       "YYYY-MM-DD" (or an expanded year), or an integer count of days
 *              since 1970-01-01.
 *   time       "HH:MM[:SS[.fraction]]", or an integer in the column's unit.
 *   timestamp  ISO-8601 "YYYY-MM-DD[(T| )HH:MM[:SS[.f{1,9}]]][Z|+hh[:mm]|-hh[:mm]]"
 *              (also +hhmm offsets and ISO expanded years such as
 *              "+10000-01-01" or "-0001-12-31", which export prints for years
 *              outside 0000-9999; a missing zone means UTC; timestamp_ntz columns reject a
 *              non-zero offset rather than silently shift the wall clock);
 *              or an epoch number: with INLET_EPOCH_AUTO its magnitude picks
 *              the unit (|v| < 1e11 seconds, < 1e14 milliseconds, < 1e17
 *              microseconds, else nanoseconds; seconds may carry a fraction),
 *              or exactly the unit set in options.epoch_unit. Precision finer
 *              than the column's unit is truncated toward negative infinity.
 *   decimal    JSON number or string, parsed digit by digit (no binary
 *              floating point): more integer digits than precision - scale,
 *              or non-zero digits beyond the scale, make a bad record.
 *   struct     JSON object (CSV: a cell holding JSON); list: JSON array;
 *              map: JSON object (keys converted from their text) or an
 *              array of [key, value] pairs.
 *   null       JSON null, a missing field, or (CSV) an empty unquoted cell;
 *              a null or missing NOT NULL field is a bad record.
 *
 * CSV records (RFC 4180): a field starting with a quote may hold line breaks
 * and ends at its closing quote ("" inside it is a quote); a quote elsewhere
 * opens nothing (the record is bad, and ends at its line). A malformed record
 * spanning several lines (a stray quote) is not reported whole: its first
 * line is a bad record alone and the following lines are read again, also
 * when the quote is still open at the end of the input or past
 * max_record_bytes.
 *
 * Thread safety: a reader or writer is used by one thread at a time.
 */
#ifndef INLET_TEXT_H
#define INLET_TEXT_H

#include <stdio.h>

#include "inlet/batch.h"
#include "inlet/common.h"
#include "inlet/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum inlet_text_format {
  INLET_TEXT_NDJSON = 0,
  INLET_TEXT_CSV,
  INLET_TEXT_TABLE,   /* export only: aligned columns for a terminal */
  INLET_TEXT_JSON,    /* export only: one JSON array of row objects */
  INLET_TEXT_MARKDOWN /* export only: a GitHub-flavoured Markdown table */
} inlet_text_format;

/** Parses an input format, "ndjson|jsonl|json|csv|table" (any case; "json"
 * means NDJSON records). @return 0, INLET_EINVAL. */
INLET_API int inlet_text_format_parse(inlet_text_format *out, const char *name, inlet_error *err);
/** Parses an output format: "ndjson|jsonl|csv|table", "json" (one array) and
 * "markdown|md" (any case). @return 0, INLET_EINVAL. */
INLET_API int inlet_text_output_format_parse(inlet_text_format *out, const char *name,
                                             inlet_error *err);

/** Unit of epoch numbers given for timestamp columns. */
typedef enum inlet_epoch_unit {
  INLET_EPOCH_AUTO = 0, /* by magnitude, see above */
  INLET_EPOCH_SECONDS,
  INLET_EPOCH_MILLIS,
  INLET_EPOCH_MICROS,
  INLET_EPOCH_NANOS
} inlet_epoch_unit;

/** One skipped record, lent to the callback for the duration of the call. */
typedef struct inlet_text_bad_record {
  int64_t record;      /**< 1-based record number (CSV: data records, header excluded) */
  int64_t line;        /**< 1-based line where the record starts */
  int64_t byte_offset; /**< offset of the record's first byte in the input */
  const char *field;   /**< offending field name, or NULL (syntax, size) */
  const char *reason;  /**< one line: `field "amount": expected a number, found "abc"` */
  const char *text;    /**< the raw record bytes (not NUL-terminated), maybe truncated */
  size_t text_len;
} inlet_text_bad_record;

/** Return non-zero from the callback to stop reading (the read then fails
 * with INLET_EINVAL carrying the record's reason). */
typedef int (*inlet_text_bad_record_fn)(void *ctx, const inlet_text_bad_record *bad);

/** Checks a converted record, row @p row of @p batch, against rules beyond
 * its types (e.g. inlet_table_writer_check_row: partition values that can
 * name a directory). Return 0 to keep it; INLET_EINVAL (reason in @p err)
 * makes it a bad record, rolled back and reported like a conversion failure;
 * any other negative code fails the read. */
typedef int (*inlet_text_row_check_fn)(void *ctx, const inlet_batch *batch, int64_t row,
                                       inlet_error *err);

typedef struct inlet_text_reader_options {
  int version;                            /* INLET_TEXT_READER_OPTIONS_VERSION */
  inlet_text_format format;               /* NDJSON (default) or CSV */
  int64_t max_batch_rows;                 /* rows per batch; default 65536 */
  int64_t max_batch_bytes;                /* stop a batch past this much memory; default 64 MiB */
  int64_t max_record_bytes;               /* longer records are bad records; default 16 MiB */
  bool strict;                            /* unknown fields (NDJSON keys, CSV header
                                             columns) are errors; default false */
  inlet_epoch_unit epoch_unit;            /* default AUTO */
  char csv_delimiter;                     /* default ',' */
  bool csv_header;                        /* first record names the columns; default true.
                                             Without it, cells map to schema fields in order. */
  inlet_text_bad_record_fn on_bad_record; /* NULL: bad records are only counted */
  void *ctx;
  /* Version 2: */
  inlet_text_row_check_fn row_check; /* NULL: no check */
  void *row_check_ctx;
  /* Version 3: JSON scalars only in the strict forms of "Value conversions" above
   * (what `inlet ingest` and `inlet append` do unless --coerce): no number or
   * boolean into a string column (nor an object or array into a non-json one), no
   * string into an integer, floating (but "NaN", "Infinity", "-Infinity"),
   * boolean column, no numeric string into a date, time or timestamp column.
   * Default false: every conversion listed above. CSV cells are text either way. */
  bool strict_types;
} inlet_text_reader_options;

/* Versions 1 (without row_check) and 2 (without strict_types) are still accepted. */
#define INLET_TEXT_READER_OPTIONS_VERSION 3
#define INLET_TEXT_READER_OPTIONS_INIT                                                             \
  {                                                                                                \
    INLET_TEXT_READER_OPTIONS_VERSION, INLET_TEXT_NDJSON, 65536, 64 * 1024 * 1024,                 \
        16 * 1024 * 1024, false, INLET_EPOCH_AUTO, ',', true, NULL, NULL, NULL, NULL, false        \
  }

typedef struct inlet_text_reader inlet_text_reader;

/** Pull source: reads up to @p cap bytes into @p buf; returns the count,
 * 0 at end of input, or a negative INLET_E* code (detail in @p err). */
typedef int64_t (*inlet_read_fn)(void *ctx, void *buf, size_t cap, inlet_error *err);

/**
 * Creates a reader converting records from @p read_fn to @p schema (copied).
 * @return 0, INLET_EINVAL (bad options or schema), INLET_ENOMEM.
 */
INLET_API int inlet_text_reader_new(inlet_text_reader **out, const inlet_schema *schema,
                                    const inlet_text_reader_options *options, inlet_read_fn read_fn,
                                    void *ctx, inlet_error *err);
/** Reader over a file ("-" is standard input). @return as above, INLET_ENOTFOUND, INLET_EIO. */
INLET_API int inlet_text_reader_open_path(inlet_text_reader **out, const char *path,
                                          const inlet_schema *schema,
                                          const inlet_text_reader_options *options,
                                          inlet_error *err);
/** Reader over memory the caller keeps alive until the reader is freed. */
INLET_API int inlet_text_reader_open_memory(inlet_text_reader **out, const void *data, size_t len,
                                            const inlet_schema *schema,
                                            const inlet_text_reader_options *options,
                                            inlet_error *err);
/** Frees the reader (and closes a file it opened). NULL-safe. */
INLET_API void inlet_text_reader_free(inlet_text_reader *r);

/** The reader's target schema (lives as long as the reader). */
INLET_API const inlet_schema *inlet_text_reader_schema(const inlet_text_reader *r);

/**
 * Fills @p batch with the next rows. @p batch must be zeroed or a batch a
 * previous call filled: it is (re)initialised with the reader's schema and
 * cleared first. Returns 0 with batch->num_rows == 0 at end of input.
 * @return 0, INLET_EIO, INLET_ENOMEM, INLET_EINVAL (a fatal input problem,
 *         e.g. a CSV header naming no schema column in strict mode, or the
 *         bad-record callback asked to stop).
 */
INLET_API int inlet_text_reader_next(inlet_text_reader *r, inlet_batch *batch, inlet_error *err);

/**
 * Converts one record (a JSON object, or a CSV line of cells in schema order
 * or in the order of a header this reader has read) and appends it to
 * @p batch, whose schema must be the reader's. For message-based sources.
 * A bad record leaves @p batch unchanged and returns INLET_EINVAL with the
 * reason in @p err (the callback is not called).
 * @return 0, INLET_EINVAL, INLET_ENOMEM, INLET_ELIMIT.
 */
INLET_API int inlet_text_reader_append(inlet_text_reader *r, inlet_batch *batch, const void *record,
                                       size_t len, inlet_error *err);

typedef struct inlet_text_reader_stats {
  int64_t records;     /**< records seen (good + bad) */
  int64_t rows;        /**< rows produced */
  int64_t bad_records; /**< records skipped */
  int64_t bytes;       /**< input bytes consumed */
} inlet_text_reader_stats;

INLET_API void inlet_text_reader_get_stats(const inlet_text_reader *r,
                                           inlet_text_reader_stats *out);

/** Unknown fields (NDJSON keys, and CSV cells under a header column not in the
 * schema) skipped without strict in the records that became rows, over the
 * reader's life. Records rejected for another reason do not count. */
INLET_API int64_t inlet_text_reader_ignored_fields(const inlet_text_reader *r);

/* ---- export ------------------------------------------------------------ */

/** Sink: writes all @p len bytes; returns 0 or a negative INLET_E* code. */
typedef int (*inlet_write_fn)(void *ctx, const void *data, size_t len, inlet_error *err);

typedef struct inlet_text_writer_options {
  int version;              /* INLET_TEXT_WRITER_OPTIONS_VERSION */
  inlet_text_format format; /* NDJSON (default), CSV, TABLE, JSON or MARKDOWN */
  bool header;              /* CSV/TABLE header row; default true */
  int64_t table_align_rows; /* TABLE: widths come from the first N rows; default 1000 */
  int32_t table_max_width;  /* TABLE: longer cells are cut with "..."; default 48 */
  /* Version 2. TABLE for a terminal this many columns wide (0: not a
   * terminal). Column widths then come from the data and shrink, widest
   * first but not below 6 or the header, so that a row fits; table_max_width
   * does not apply; a cut is marked with U+2026 and null is shown as U+2205
   * so that it differs from the string "NULL". */
  int32_t table_terminal_width;
  /* Version 3. A writer of parts (not TABLE, whose widths depend on earlier
   * rows): each inlet_text_writer_write or _write_rows formats its rows alone,
   * for a whole-output writer of the same schema and options to place with
   * inlet_text_writer_write_part. It writes no CSV or Markdown header and no
   * JSON bracket, and finish writes nothing. So rows can be formatted on
   * several threads (a writer each) and written in any order by one writer. */
  bool rows_only;
} inlet_text_writer_options;

/* Versions 1 (without table_terminal_width) and 2 (without rows_only) are still accepted. */
#define INLET_TEXT_WRITER_OPTIONS_VERSION 3
#define INLET_TEXT_WRITER_OPTIONS_INIT                                                             \
  { INLET_TEXT_WRITER_OPTIONS_VERSION, INLET_TEXT_NDJSON, true, 1000, 48, 0, false }

typedef struct inlet_text_writer inlet_text_writer;

/**
 * Creates a writer of @p schema's rows to @p write_fn. NDJSON values use the
 * canonical encoding of refcheck (int64 beyond 2^53 as strings, floats as
 * the float32 value widened to double, doubles shortest round-trip, NaN and
 * infinities as strings, decimals with exactly scale digits, binary as hex,
 * timestamps with 6 fraction digits and 'Z' when UTC (9 digits for
 * wall-clock nanoseconds; UTC nanoseconds are cut to microseconds),
 * UUIDs 8-4-4-4-12, maps as [key, value] pairs sorted by the key's JSON).
 * CSV uses the same text without JSON quoting (nested values as JSON); an
 * empty string is written "" so that it differs from null (empty).
 * @return 0, INLET_EINVAL, INLET_ENOMEM.
 */
INLET_API int inlet_text_writer_new(inlet_text_writer **out, const inlet_schema *schema,
                                    const inlet_text_writer_options *options,
                                    inlet_write_fn write_fn, void *ctx, inlet_error *err);
/** Writer to a stdio stream (not closed by the writer). */
INLET_API int inlet_text_writer_new_file(inlet_text_writer **out, const inlet_schema *schema,
                                         const inlet_text_writer_options *options, FILE *f,
                                         inlet_error *err);
/** Writes the rows of @p batch (its schema must equal the writer's).
 * @return 0, INLET_EINVAL, INLET_EIO, INLET_ENOMEM. */
INLET_API int inlet_text_writer_write(inlet_text_writer *w, const inlet_batch *batch,
                                      inlet_error *err);
/** Writes rows [@p first, @p first + @p count) of @p batch, as inlet_text_writer_write
 * of a batch of those rows would. @return as above. */
INLET_API int inlet_text_writer_write_rows(inlet_text_writer *w, const inlet_batch *batch,
                                           int64_t first, int64_t count, inlet_error *err);
/**
 * Writes a part: the @p len bytes a rows_only writer of the same schema and
 * format wrote in one call, for @p rows rows, placed after the rows written
 * so far (the header first if none were; a JSON separator), so that writing
 * the parts in order gives the bytes writing their rows here gives. Not for
 * TABLE or a rows_only writer.
 * @return 0, INLET_EINVAL, INLET_EIO, INLET_ENOMEM.
 */
INLET_API int inlet_text_writer_write_part(inlet_text_writer *w, const void *data, size_t len,
                                           int64_t rows, inlet_error *err);
/** Flushes buffered rows (TABLE alignment buffer, header of an empty output).
 * @return 0, INLET_EIO, INLET_ENOMEM. */
INLET_API int inlet_text_writer_finish(inlet_text_writer *w, inlet_error *err);
INLET_API void inlet_text_writer_free(inlet_text_writer *w);

/**
 * Formats one value (row @p row of @p array, described by @p field) as
 * canonical JSON (@p json true) or as CSV/table text into @p out,
 * NUL-terminated, truncated to @p cap. Returns the length it needed, or a
 * negative INLET_E* code.
 */
INLET_API int64_t inlet_text_format_value(char *out, size_t cap, const inlet_array *array,
                                          const inlet_field *field, int64_t row, bool json);

#ifdef __cplusplus
}
#endif

#endif /* INLET_TEXT_H */
