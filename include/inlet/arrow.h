/*
 * Arrow export: batches through the Arrow C Data Interface, scans through
 * the Arrow C Stream Interface (https://arrow.apache.org/docs/format/
 * CDataInterface.html, CStreamInterface.html).
 *
 * inlet's arrays already have Arrow's layout (inlet/batch.h), so exporting
 * copies no values: the exported ArrowArray takes ownership of the batch's
 * buffers and frees them when the consumer releases the last array that
 * points into them (the root or any child it moved out).
 *
 * Type mapping (format strings of the C Data Interface):
 *   BOOL b, INT8..INT64 c s i l, UINT8..UINT64 C S I L, FLOAT f, DOUBLE g,
 *   STRING u, BINARY z, FIXED_BINARY w:N, DATE tdD (date32),
 *   TIME tts/ttm/ttu/ttn, TIMESTAMP ts{s,m,u,n}:UTC when adjusted to UTC
 *   (Delta timestamp) and ts{s,m,u,n}: without zone (timestamp_ntz),
 *   DECIMAL d:P,S (decimal128), STRUCT +s, LIST +l (child "element" as
 *   named in the schema), MAP +m (non-nullable "entries" struct with a
 *   non-nullable "key" and a "value"), NULL n.
 *   STRING with the JSON annotation carries the extension metadata
 *   ARROW:extension:name=arrow.json, FIXED_BINARY(16) UUID arrow.uuid.
 * A batch or a scan batch is exported as a struct array ("+s", no nulls)
 * with one child per column; its schema is the matching "+s" schema.
 *
 * The struct definitions below are the ABI of the Arrow specification, with
 * its include guards, so this header coexists with arrow's and nanoarrow's.
 */
#ifndef INLET_ARROW_H
#define INLET_ARROW_H

#include "inlet/batch.h"
#include "inlet/common.h"
#include "inlet/error.h"
#include "inlet/scan.h"
#include "inlet/text.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
  // Array type description
  const char *format;
  const char *name;
  const char *metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema **children;
  struct ArrowSchema *dictionary;

  // Release callback
  void (*release)(struct ArrowSchema *);
  // Opaque producer-specific data
  void *private_data;
};

struct ArrowArray {
  // Array data description
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void **buffers;
  struct ArrowArray **children;
  struct ArrowArray *dictionary;

  // Release callback
  void (*release)(struct ArrowArray *);
  // Opaque producer-specific data
  void *private_data;
};

#endif // ARROW_C_DATA_INTERFACE

#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE

struct ArrowArrayStream {
  // Callbacks providing stream functionality
  int (*get_schema)(struct ArrowArrayStream *, struct ArrowSchema *out);
  int (*get_next)(struct ArrowArrayStream *, struct ArrowArray *out);
  const char *(*get_last_error)(struct ArrowArrayStream *);

  // Release callback
  void (*release)(struct ArrowArrayStream *);

  // Opaque producer-specific data
  void *private_data;
};

#endif // ARROW_C_STREAM_INTERFACE

/**
 * Exports @p schema as a struct-typed ArrowSchema ("+s", name "", one child
 * per field). @p out is overwritten; on success the caller (consumer) owns it
 * and calls out->release. On failure @p out->release is NULL.
 * @return 0, INLET_EUNSUPPORTED (a type Arrow cannot express), INLET_ENOMEM.
 */
INLET_API int inlet_schema_export(const inlet_schema *schema, struct ArrowSchema *out,
                                  inlet_error *err);

/**
 * Moves the rows of @p batch into @p array_out, a struct array ("+s",
 * length num_rows, no nulls) with one child per column, without copying
 * values. @p batch is left empty (as after inlet_batch_reset; it may be
 * reset again or re-initialised). Each exported node is released on its
 * own: children moved out of the root stay valid after the root's release,
 * and the buffers are freed with the last of them.
 * The batch is trusted to be consistent (as inlet's own batches are); one
 * from an untrusted producer is checked with inlet_batch_validate first.
 * On failure @p array_out->release is NULL and @p batch is unchanged.
 * @return 0, INLET_EINVAL (a column missing, shorter than num_rows, or
 *         without a buffer its rows need), INLET_ENOMEM.
 */
INLET_API int inlet_batch_export_array(inlet_batch *batch, struct ArrowArray *array_out,
                                       inlet_error *err);

/**
 * inlet_schema_export of the batch's schema plus inlet_batch_export_array.
 * @p schema_out may be NULL (array only). On failure both outputs have
 * release NULL and @p batch is unchanged.
 * @return 0, INLET_EINVAL, INLET_EUNSUPPORTED, INLET_ENOMEM.
 */
INLET_API int inlet_batch_export(inlet_batch *batch, struct ArrowSchema *schema_out,
                                 struct ArrowArray *array_out, inlet_error *err);

/**
 * Wraps @p scan in an ArrowArrayStream: get_schema gives the scan's output
 * schema (as inlet_schema_export), get_next one struct array per scan batch
 * (release NULL at the end), get_last_error the inlet error message of the
 * failed call, release frees the scan. get_next returns errno codes:
 * ENOENT (data file missing), ENOMEM, EINVAL, ENOSYS (unsupported), EIO
 * (I/O, corrupt data, anything else); after an error the stream stays
 * failed (every get_next returns the same code).
 * On success the stream owns @p scan; the snapshot the scan reads must
 * outlive the stream. On failure @p out->release is NULL and the caller
 * still owns @p scan.
 * @return 0, INLET_ENOMEM.
 */
INLET_API int inlet_scan_export_stream(inlet_scan *scan, struct ArrowArrayStream *out,
                                       inlet_error *err);

/* ---- Arrow IPC (https://arrow.apache.org/docs/format/Columnar.html
 * "Serialization and Interprocess Communication") -------------------------
 *
 * Writes batches as an Arrow IPC stream (a Schema message, one RecordBatch
 * message per non-empty batch, the end-of-stream marker) or as the IPC file
 * format (the "ARROW1" magic, the same stream, then a Footer listing the
 * record batches). Metadata version V5, little-endian, no dictionaries;
 * types as in the C Data mapping above (JSON strings and UUIDs carry the
 * ARROW:extension:name field metadata). With compression, every body buffer
 * is LZ4_FRAME or ZSTD compressed after its uncompressed length (int64),
 * or left as it is (length -1) when compressing would not make it smaller.
 * Uncompressed bodies are written straight from the batch's buffers.
 */

typedef enum inlet_arrow_ipc_format {
  INLET_ARROW_IPC_STREAM = 0, /* IPC streaming format (.arrows) */
  INLET_ARROW_IPC_FILE        /* IPC file format (.arrow, "Feather v2") */
} inlet_arrow_ipc_format;

typedef enum inlet_arrow_compression {
  INLET_ARROW_COMPRESSION_NONE = 0,
  INLET_ARROW_COMPRESSION_LZ4_FRAME,
  INLET_ARROW_COMPRESSION_ZSTD
} inlet_arrow_compression;

typedef struct inlet_arrow_ipc_options {
  int version;                         /* INLET_ARROW_IPC_OPTIONS_VERSION */
  inlet_arrow_ipc_format format;       /* default STREAM */
  inlet_arrow_compression compression; /* default NONE */
  int compression_level;               /* 0: the codec's default */
} inlet_arrow_ipc_options;

#define INLET_ARROW_IPC_OPTIONS_VERSION 1
#define INLET_ARROW_IPC_OPTIONS_INIT                                                               \
  { INLET_ARROW_IPC_OPTIONS_VERSION, INLET_ARROW_IPC_STREAM, INLET_ARROW_COMPRESSION_NONE, 0 }

/** Parses "none|uncompressed", "lz4|lz4_frame", "zstd" (any case).
 * @return 0, INLET_EINVAL. */
INLET_API int inlet_arrow_compression_parse(inlet_arrow_compression *out, const char *name,
                                            inlet_error *err);

typedef struct inlet_arrow_ipc_writer inlet_arrow_ipc_writer;

/**
 * Creates a writer of @p schema's rows to @p write_fn and writes the
 * leading bytes (file magic, Schema message) at once.
 * @return 0, INLET_EINVAL (bad options), INLET_EUNSUPPORTED (a type Arrow
 *         IPC cannot carry), INLET_ENOMEM, or the code of @p write_fn.
 */
INLET_API int inlet_arrow_ipc_writer_new(inlet_arrow_ipc_writer **out, const inlet_schema *schema,
                                         const inlet_arrow_ipc_options *options,
                                         inlet_write_fn write_fn, void *ctx, inlet_error *err);
/** Writer to a stdio stream (not closed by the writer). */
INLET_API int inlet_arrow_ipc_writer_new_file(inlet_arrow_ipc_writer **out,
                                              const inlet_schema *schema,
                                              const inlet_arrow_ipc_options *options, FILE *f,
                                              inlet_error *err);
/** Writes rows 0..num_rows-1 of @p batch (schema equal to the writer's) as
 * one RecordBatch message; an empty batch writes nothing.
 * @return 0, INLET_EINVAL, INLET_ELIMIT, INLET_ENOMEM, INLET_EIO (or the
 *         code of the write callback). */
INLET_API int inlet_arrow_ipc_writer_write(inlet_arrow_ipc_writer *w, const inlet_batch *batch,
                                           inlet_error *err);
/** Writes the end-of-stream marker (and the file footer). Once only.
 * @return 0, INLET_EINVAL (finished already), INLET_ENOMEM, INLET_EIO. */
INLET_API int inlet_arrow_ipc_writer_finish(inlet_arrow_ipc_writer *w, inlet_error *err);
/** Frees the writer. NULL-safe. */
INLET_API void inlet_arrow_ipc_writer_free(inlet_arrow_ipc_writer *w);

#ifdef __cplusplus
}
#endif

#endif /* INLET_ARROW_H */
