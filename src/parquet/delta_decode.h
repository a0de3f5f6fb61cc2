/*
 * Read-side decoders for the encodings Parquet added after PLAIN and
 * dictionaries (apache/parquet-format Encodings.md): DELTA_BINARY_PACKED,
 * DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY and BYTE_STREAM_SPLIT.
 *
 * Each one transcodes a page's values into their PLAIN form (fixed-size
 * little-endian values, or 4-byte length + bytes for byte arrays), so the
 * column reader's PLAIN path does the type conversion and validation once
 * for every encoding. These encodings are rare on the hot path (inlet's own
 * writer uses PLAIN and dictionaries), so the extra copy is cheap insurance.
 */
#ifndef INLET_PARQUET_DELTA_DECODE_H
#define INLET_PARQUET_DELTA_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "inlet/error.h"
#include "util/buf.h"

/*
 * Decodes a DELTA_BINARY_PACKED stream at @p p (at most @p len bytes) that
 * must hold exactly @p n values, into @p out (n entries; arithmetic wraps
 * modulo 2^64, so INT32 columns truncate the result). *consumed is the
 * number of bytes the stream used (DELTA_LENGTH_BYTE_ARRAY data follows it).
 * @return 0, INLET_ECORRUPT (message without file context).
 */
int pq_delta_decode(const uint8_t *p, size_t len, uint64_t *out, size_t n, size_t *consumed,
                    inlet_error *err);

/*
 * Transcoders to PLAIN, appending to @p plain (cleared first).
 * @p width is the value size for fixed-size physical types (4, 8, 12, or the
 * FIXED_LEN_BYTE_ARRAY width); 0 means BYTE_ARRAY (length-prefixed output).
 * @return 0, INLET_ECORRUPT, INLET_ENOMEM.
 */
int pq_delta_to_plain(const uint8_t *p, size_t len, size_t n, size_t width, inlet_buf *plain,
                      inlet_error *err);
int pq_delta_length_to_plain(const uint8_t *p, size_t len, size_t n, inlet_buf *plain,
                             inlet_error *err);
int pq_delta_byte_array_to_plain(const uint8_t *p, size_t len, size_t n, size_t width,
                                 inlet_buf *plain, inlet_error *err);
int pq_byte_stream_split_to_plain(const uint8_t *p, size_t len, size_t n, size_t width,
                                  inlet_buf *plain, inlet_error *err);

#endif /* INLET_PARQUET_DELTA_DECODE_H */
