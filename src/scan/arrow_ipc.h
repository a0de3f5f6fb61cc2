/*
 * Arrow IPC inside the library (scan module): the flatbuffer constants both the writer
 * (arrow_ipc.c) and the verifying reader (arrow_ipc_read.c) use, and the
 * reader itself, which exists to check inlet's own output in tests and
 * fuzzers (it reads what the writer writes: no dictionaries, no big-endian,
 * no view or large types).
 *
 * Field and union numbers come from the Arrow format's Schema.fbs,
 * Message.fbs and File.fbs (metadata version V5).
 */
#ifndef INLET_ARROW_IPC_INT_H
#define INLET_ARROW_IPC_INT_H

#include "inlet/arrow.h"
#include "inlet/batch.h"

/* union Type */
enum {
  AIPC_T_NULL = 1,
  AIPC_T_INT = 2,
  AIPC_T_FLOAT = 3,
  AIPC_T_BINARY = 4,
  AIPC_T_UTF8 = 5,
  AIPC_T_BOOL = 6,
  AIPC_T_DECIMAL = 7,
  AIPC_T_DATE = 8,
  AIPC_T_TIME = 9,
  AIPC_T_TIMESTAMP = 10,
  AIPC_T_LIST = 12,
  AIPC_T_STRUCT = 13,
  AIPC_T_FIXED_BINARY = 15,
  AIPC_T_MAP = 17
};
/* union MessageHeader */
enum { AIPC_H_SCHEMA = 1, AIPC_H_RECORD_BATCH = 3 };
/* enum MetadataVersion: V5 */
#define AIPC_VERSION_V5 4
/* enum CompressionType (BodyCompression.codec) */
enum { AIPC_C_LZ4_FRAME = 0, AIPC_C_ZSTD = 1 };

/* Limits the reader holds untrusted input to. */
#define AIPC_MAX_DEPTH 64
#define AIPC_MAX_FIELDS 10000 /* fields of a schema, nested ones included */
#define AIPC_MAX_BATCHES 1000000
#define AIPC_MAX_BUFFER ((int64_t)1 << 26) /* bytes of one (decompressed) buffer */
#define AIPC_MAX_ROWS ((int64_t)1 << 24)   /* rows of one array */

/* What the reader found. Owned by the caller; inlet_arrow_ipc_read_reset. */
typedef struct inlet_arrow_ipc_read {
  bool file;             /* the file format (magic, footer) */
  int compression;       /* -1 none, else AIPC_C_* of the last compressed batch */
  inlet_schema schema;   /* owned */
  int32_t n_batches;     /* record batches, in order */
  inlet_batch *batches;  /* owned array of n_batches */
  int32_t footer_blocks; /* file: record batch blocks in the footer */
} inlet_arrow_ipc_read;

/* Reads a whole stream or file (told apart by the magic) from memory,
 * checking every offset, length and count before use; the file's footer
 * must list exactly the record batches of its stream, and its schema must
 * equal the stream's. @return 0, INLET_ECORRUPT (naming the message and the
 * problem), INLET_EUNSUPPORTED (valid Arrow the reader does not take:
 * dictionaries, other types), INLET_ELIMIT, INLET_ENOMEM. */
int inlet_arrow_ipc_read_all(inlet_arrow_ipc_read *out, const uint8_t *data, size_t len,
                             inlet_error *err);
void inlet_arrow_ipc_read_reset(inlet_arrow_ipc_read *r);

#endif /* INLET_ARROW_IPC_INT_H */
