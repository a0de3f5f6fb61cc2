/*
 * Raw snappy decompression into a buffer of known size.
 *
 * libsnappy (1.1.9 in Debian 12) hands every literal longer than 16 bytes
 * to a libc memcpy call; Parquet pages of numbers are mostly such
 * literals, 20 to 60 bytes long, so a Parquet scan spent more time in the
 * call overhead than in moving bytes (bench/snappy_bench.c measures it).
 * This decoder copies short literals and matches in fixed 16-byte steps
 * while the output has room for the overshoot, and short matches that
 * repeat the last 8 to 15 bytes byte by byte, which the store buffer can
 * forward (snappy_decode.c says why). Compression stays with
 * libsnappy; fuzz/snappy_fuzzer.c checks this decoder against libsnappy's
 * on arbitrary input (same verdict, same bytes).
 */
#ifndef INLET_SNAPPY_DECODE_H
#define INLET_SNAPPY_DECODE_H

#include <stddef.h>
#include <stdint.h>

typedef enum inlet_snappy_status {
  INLET_SNAPPY_OK = 0,
  INLET_SNAPPY_BAD_HEADER = -1, /* the length preamble is not a valid varint32 */
  INLET_SNAPPY_BAD_LENGTH = -2, /* the preamble declares another length than dst_len */
  INLET_SNAPPY_CORRUPT = -3     /* a tag runs past the input, the output or its start */
} inlet_snappy_status;

/* Reads the uncompressed length from the preamble of @p src. */
inlet_snappy_status inlet_snappy_length(const uint8_t *src, size_t src_len, size_t *len);

/* Decompresses @p src into exactly @p dst_len bytes at @p dst. Succeeds only
 * when the whole input is consumed and fills the output exactly, as
 * libsnappy's snappy_uncompress does. */
inlet_snappy_status inlet_snappy_decode(const uint8_t *src, size_t src_len, uint8_t *dst,
                                        size_t dst_len);

#endif
