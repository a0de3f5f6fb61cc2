/*
 * Compression adapters: one interface over the Parquet codecs, backed by
 * Debian's libraries (libsnappy, zlib, libzstd, liblz4, libbrotli).
 * Codec ids are parquet.thrift's CompressionCodec values.
 */
#ifndef INLET_CODEC_H
#define INLET_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "inlet/error.h"
#include "util/buf.h"

typedef enum inlet_codec_id {
  INLET_CODEC_UNCOMPRESSED = 0,
  INLET_CODEC_SNAPPY = 1,
  INLET_CODEC_GZIP = 2,
  INLET_CODEC_LZO = 3,
  INLET_CODEC_BROTLI = 4,
  INLET_CODEC_LZ4 = 5, /* deprecated: Hadoop framing, raw fallback */
  INLET_CODEC_ZSTD = 6,
  INLET_CODEC_LZ4_RAW = 7
} inlet_codec_id;

/* "UNCOMPRESSED", "SNAPPY", ... or "UNKNOWN(n)" into a static/thread buffer. */
const char *inlet_codec_name(int codec);
/* Parses a codec name (case-insensitive: none|uncompressed, snappy, gzip,
 * zstd, lz4_raw|lz4raw|lz4, brotli): the one table of compression names,
 * behind inlet_compression_parse and delta.parquet.compression.codec; -1 if
 * unknown. */
int inlet_codec_parse(const char *name);
/* The names inlet_codec_parse accepts for writable codecs, for messages. */
const char *inlet_codec_writable_names(void);
/* True when inlet can write this codec. */
bool inlet_codec_can_write(int codec);

/* Appends the compressed form of src to @p out. level: codec-specific,
 * 0 = the codec's default. */
int inlet_compress(int codec, int level, const void *src, size_t src_len, inlet_buf *out,
                   inlet_error *err);

/* Decompresses into @p dst, which has exactly @p dst_len bytes (the page's
 * uncompressed_page_size); output of any other length is INLET_ECORRUPT.
 * Unsupported codecs give INLET_EUNSUPPORTED naming the codec. */
int inlet_decompress(int codec, const void *src, size_t src_len, void *dst, size_t dst_len,
                     inlet_error *err);

#endif /* INLET_CODEC_H */
