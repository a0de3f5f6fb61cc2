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

#ifdef __cplusplus
}
#endif

#endif /* INLET_ARROW_H */
