/*
 * Compression adapters for the Parquet codecs (parquet.thrift
 * CompressionCodec; framing per apache/parquet-format Compression.md):
 *   SNAPPY   raw snappy: libsnappy compresses, codec/snappy_decode.c decompresses
 *   GZIP     gzip members (RFC 1952); decompression also accepts zlib
 *            streams and several concatenated members, as other readers do
 *   BROTLI   raw brotli stream; a new encoder per page, its large blocks
 *            kept per thread (codec/brotli_blocks.h)
 *   ZSTD     zstd frames; one compression context per thread, reused,
 *            because the writer compresses every page
 *   LZ4_RAW  one raw LZ4 block
 *   LZ4      deprecated and read only: Hadoop framing (repeated
 *            [4-byte BE uncompressed size][4-byte BE compressed size][block])
 *            falling back to a raw block, then to the LZ4 frame format,
 *            since writers disagreed on what "LZ4" meant
 *   LZO      unsupported
 *
 * Decompression never writes past dst_len, and output of any other length
 * than the page declares is INLET_ECORRUPT.
 */
#include "codec/codec.h"
#include "codec/brotli_blocks.h"
#include "codec/snappy_decode.h"

#include <brotli/decode.h>
#include <brotli/encode.h>
#include <limits.h>
#include <lz4.h>
#include <lz4frame.h>
#include <pthread.h>
#include <snappy-c.h>
#include <stdio.h>
#include <strings.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

/* The one table of codec names: Parquet's name (what files and messages
 * show) and the names a user may write (case-insensitive). Like DuckDB and
 * recent Arrow, a plain "lz4" request means LZ4_RAW: the Hadoop-framed LZ4
 * codec is deprecated and never written. */
static const struct {
  const char *parquet_name;
  const char *names[3];
} codecs[] = {
    [INLET_CODEC_UNCOMPRESSED] = {"UNCOMPRESSED", {"uncompressed", "none", NULL}},
    [INLET_CODEC_SNAPPY] = {"SNAPPY", {"snappy", NULL, NULL}},
    [INLET_CODEC_GZIP] = {"GZIP", {"gzip", NULL, NULL}},
    [INLET_CODEC_LZO] = {"LZO", {NULL, NULL, NULL}},
    [INLET_CODEC_BROTLI] = {"BROTLI", {"brotli", NULL, NULL}},
    [INLET_CODEC_LZ4] = {"LZ4", {NULL, NULL, NULL}},
    [INLET_CODEC_ZSTD] = {"ZSTD", {"zstd", NULL, NULL}},
    [INLET_CODEC_LZ4_RAW] = {"LZ4_RAW", {"lz4_raw", "lz4raw", "lz4"}},
};
#define N_CODECS ((int)(sizeof codecs / sizeof codecs[0]))

const char *inlet_codec_name(int codec) {
  static _Thread_local char unknown[32];
  if (codec >= 0 && codec < N_CODECS) return codecs[codec].parquet_name;
  snprintf(unknown, sizeof unknown, "UNKNOWN(%d)", codec);
  return unknown;
}

int inlet_codec_parse(const char *name) {
  if (!name) return -1;
  for (int c = 0; c < N_CODECS; c++)
    for (size_t i = 0; i < 3 && codecs[c].names[i]; i++)
      if (strcasecmp(name, codecs[c].names[i]) == 0) return c;
  return -1;
}

const char *inlet_codec_writable_names(void) {
  return "uncompressed (or none), snappy, gzip, zstd, lz4_raw (or lz4), brotli";
}

bool inlet_codec_can_write(int codec) {
  switch (codec) {
  case INLET_CODEC_UNCOMPRESSED:
  case INLET_CODEC_SNAPPY:
  case INLET_CODEC_GZIP:
  case INLET_CODEC_BROTLI:
  case INLET_CODEC_ZSTD:
  case INLET_CODEC_LZ4_RAW: return true;
  default: return false;
  }
}

/* ---- per-thread codec state -------------------------------------------- */

/* zstd's contexts and brotli's cached blocks (codec/brotli_blocks.h) live in
 * _Thread_local variables (so leak checkers see them as reachable); a
 * pthread key frees them when a thread exits. */
static _Thread_local ZSTD_CCtx *tl_cctx;
static _Thread_local ZSTD_DCtx *tl_dctx;
static pthread_key_t codec_key;
static pthread_once_t codec_once = PTHREAD_ONCE_INIT;

static void codec_thread_exit(void *unused) {
  (void)unused;
  ZSTD_freeCCtx(tl_cctx);
  ZSTD_freeDCtx(tl_dctx);
  tl_cctx = NULL;
  tl_dctx = NULL;
  brotli_blocks_release();
}
static void codec_key_create(void) {
  (void)pthread_key_create(&codec_key, codec_thread_exit);
}
static void codec_register_thread(void) {
  pthread_once(&codec_once, codec_key_create);
  /* Any non-NULL value makes the destructor run at thread exit. */
  (void)pthread_setspecific(codec_key, (void *)1);
}

static ZSTD_CCtx *zstd_cctx(void) {
  if (!tl_cctx) {
    tl_cctx = ZSTD_createCCtx();
    codec_register_thread();
  }
  return tl_cctx;
}
static ZSTD_DCtx *zstd_dctx(void) {
  if (!tl_dctx) {
    tl_dctx = ZSTD_createDCtx();
    codec_register_thread();
  }
  return tl_dctx;
}

/* ---- compression -------------------------------------------------------- */

static int reserve_out(inlet_buf *out, size_t bound, const char *codec, inlet_error *err) {
  if (inlet_buf_reserve(out, bound) < 0)
    return inlet_fail(err, INLET_ENOMEM, "%s: out of memory reserving %zu bytes", codec, bound);
  return 0;
}

static int compress_gzip(int level, const void *src, size_t src_len, inlet_buf *out,
                         inlet_error *err) {
  if (level == 0) level = Z_DEFAULT_COMPRESSION;
  if (level < -1 || level > 9)
    return inlet_fail(err, INLET_EINVAL, "GZIP: compression level %d out of range 1..9", level);
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  /* windowBits 15 + 16: gzip framing. */
  if (deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return inlet_fail(err, INLET_ENOMEM, "GZIP: cannot initialise the compressor");
  int rc = 0;
  size_t bound = deflateBound(&zs, (uLong)src_len) + 32;
  TRY_GOTO(reserve_out(out, bound, "GZIP", err));
  zs.next_in = (Bytef *)(uintptr_t)src;
  zs.next_out = out->data + out->len;
  size_t in_left = src_len, out_left = out->cap - out->len;
  int zrc;
  do {
    uInt in_chunk = in_left > UINT_MAX ? UINT_MAX : (uInt)in_left;
    uInt out_chunk = out_left > UINT_MAX ? UINT_MAX : (uInt)out_left;
    zs.avail_in = in_chunk;
    zs.avail_out = out_chunk;
    zrc = deflate(&zs, in_chunk == in_left ? Z_FINISH : Z_NO_FLUSH);
    in_left -= in_chunk - zs.avail_in;
    out_left -= out_chunk - zs.avail_out;
    FAIL_GOTO(zrc == Z_STREAM_ERROR || (zrc == Z_BUF_ERROR && out_left == 0), err, INLET_EINTERNAL,
              "GZIP: compression failed (%d)", zrc);
  } while (zrc != Z_STREAM_END);
  out->len = out->cap - out_left;
done:
  deflateEnd(&zs);
  return rc;
}

/* An encoder of its own per page (brotli cannot reset one) whose blocks
 * come from the thread's cache (codec/brotli_blocks.h), with the parameters
 * BrotliEncoderCompress sets, so the bytes are the one-shot call's. That
 * call is kept for quality 10, which libbrotlienc 1.0.9 compresses by a
 * path of its own the streaming encoder does not reproduce, for empty
 * input, and as the fallback if the streaming encoder fails. */
static bool compress_brotli_cached(int quality, const uint8_t *src, size_t src_len, uint8_t *dst,
                                   size_t *dst_len) {
  if (quality == 10 || src_len == 0) return false;
  BrotliEncoderState *s =
      BrotliEncoderCreateInstance(brotli_blocks_alloc, brotli_blocks_free, NULL);
  if (!s) return false;
  codec_register_thread();
  uint32_t hint = src_len < ((size_t)1 << 30) ? (uint32_t)src_len : (uint32_t)1 << 30;
  BROTLI_BOOL ok = BrotliEncoderSetParameter(s, BROTLI_PARAM_QUALITY, (uint32_t)quality) &&
                   BrotliEncoderSetParameter(s, BROTLI_PARAM_LGWIN, BROTLI_DEFAULT_WINDOW) &&
                   BrotliEncoderSetParameter(s, BROTLI_PARAM_MODE, BROTLI_MODE_GENERIC) &&
                   BrotliEncoderSetParameter(s, BROTLI_PARAM_SIZE_HINT, hint);
  size_t avail_in = src_len, avail_out = *dst_len;
  const uint8_t *next_in = src;
  uint8_t *next_out = dst;
  ok = ok && BrotliEncoderCompressStream(s, BROTLI_OPERATION_FINISH, &avail_in, &next_in,
                                         &avail_out, &next_out, NULL);
  ok = ok && BrotliEncoderIsFinished(s);
  BrotliEncoderDestroyInstance(s);
  if (ok) *dst_len -= avail_out;
  return ok;
}

static int compress_brotli(int level, const void *src, size_t src_len, inlet_buf *out,
                           inlet_error *err) {
  /* Quality 11 (brotli's default) is far too slow per page; 8 matches Arrow. */
  int quality = level == 0 ? 8 : level;
  if (quality < BROTLI_MIN_QUALITY || quality > BROTLI_MAX_QUALITY)
    return inlet_fail(err, INLET_EINVAL, "BROTLI: compression level %d out of range 1..11", level);
  size_t bound = BrotliEncoderMaxCompressedSize(src_len);
  if (bound == 0) bound = src_len + 1024; /* 0 means "too large to bound" */
  TRY(reserve_out(out, bound, "BROTLI", err));
  size_t n = bound;
  if (!compress_brotli_cached(quality, src, src_len, out->data + out->len, &n)) {
    n = bound;
    if (!BrotliEncoderCompress(quality, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC, src_len, src,
                               &n, out->data + out->len))
      return inlet_fail(err, INLET_EINTERNAL, "BROTLI: compression failed");
  }
  out->len += n;
  return 0;
}

int inlet_compress(int codec, int level, const void *src, size_t src_len, inlet_buf *out,
                   inlet_error *err) {
  switch (codec) {
  case INLET_CODEC_UNCOMPRESSED:
    if (inlet_buf_append(out, src, src_len) < 0)
      return inlet_fail(err, INLET_ENOMEM, "out of memory copying %zu bytes", src_len);
    return 0;
  case INLET_CODEC_SNAPPY: {
    size_t bound = snappy_max_compressed_length(src_len);
    TRY(reserve_out(out, bound, "SNAPPY", err));
    size_t n = bound;
    if (snappy_compress(src, src_len, (char *)out->data + out->len, &n) != SNAPPY_OK)
      return inlet_fail(err, INLET_EINTERNAL, "SNAPPY: compression failed");
    out->len += n;
    return 0;
  }
  case INLET_CODEC_GZIP: return compress_gzip(level, src, src_len, out, err);
  case INLET_CODEC_ZSTD: {
    if (level == 0) level = ZSTD_CLEVEL_DEFAULT;
    if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel())
      return inlet_fail(err, INLET_EINVAL, "ZSTD: compression level %d out of range %d..%d", level,
                        ZSTD_minCLevel(), ZSTD_maxCLevel());
    ZSTD_CCtx *cctx = zstd_cctx();
    if (!cctx) return inlet_fail(err, INLET_ENOMEM, "ZSTD: cannot create a compression context");
    size_t bound = ZSTD_compressBound(src_len);
    TRY(reserve_out(out, bound, "ZSTD", err));
    size_t n = ZSTD_compressCCtx(cctx, out->data + out->len, bound, src, src_len, level);
    if (ZSTD_isError(n))
      return inlet_fail(err, INLET_EINTERNAL, "ZSTD: compression failed: %s", ZSTD_getErrorName(n));
    out->len += n;
    return 0;
  }
  case INLET_CODEC_LZ4_RAW: {
    if (src_len > LZ4_MAX_INPUT_SIZE)
      return inlet_fail(err, INLET_ELIMIT, "LZ4_RAW: input of %zu bytes exceeds LZ4's limit",
                        src_len);
    int bound = LZ4_compressBound((int)src_len);
    TRY(reserve_out(out, (size_t)bound, "LZ4_RAW", err));
    int n = LZ4_compress_default(src, (char *)out->data + out->len, (int)src_len, bound);
    if (n <= 0) return inlet_fail(err, INLET_EINTERNAL, "LZ4_RAW: compression failed");
    out->len += (size_t)n;
    return 0;
  }
  case INLET_CODEC_BROTLI: return compress_brotli(level, src, src_len, out, err);
  default:
    return inlet_fail(err, INLET_EUNSUPPORTED, "compression codec %s is not supported for writing",
                      inlet_codec_name(codec));
  }
}

/* ---- decompression ----------------------------------------------------- */

static int size_mismatch(inlet_error *err, const char *codec, size_t got, size_t want) {
  return inlet_fail(err, INLET_ECORRUPT, "%s: decompressed to %zu bytes, the page declares %zu",
                    codec, got, want);
}

static int decompress_gzip(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len,
                           inlet_error *err) {
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  /* windowBits 15 + 32: accept gzip and zlib headers. */
  if (inflateInit2(&zs, 15 + 32) != Z_OK)
    return inlet_fail(err, INLET_ENOMEM, "GZIP: cannot initialise the decompressor");
  int rc = 0;
  size_t in_pos = 0, out_pos = 0;
  for (;;) {
    size_t in_left = src_len - in_pos, out_left = dst_len - out_pos;
    uInt in_chunk = in_left > UINT_MAX ? UINT_MAX : (uInt)in_left;
    uInt out_chunk = out_left > UINT_MAX ? UINT_MAX : (uInt)out_left;
    zs.next_in = (Bytef *)(uintptr_t)(src + in_pos);
    zs.avail_in = in_chunk;
    zs.next_out = dst + out_pos;
    zs.avail_out = out_chunk;
    int zrc = inflate(&zs, Z_NO_FLUSH);
    in_pos += in_chunk - zs.avail_in;
    out_pos += out_chunk - zs.avail_out;
    if (zrc == Z_STREAM_END) {
      /* Another member may follow; trailing zero padding is tolerated. */
      size_t rest = src_len - in_pos;
      bool zeros = true;
      for (size_t i = 0; i < rest && zeros; i++)
        zeros = src[in_pos + i] == 0;
      if (zeros) break;
      FAIL_GOTO(inflateReset(&zs) != Z_OK, err, INLET_ECORRUPT, "GZIP: cannot reset the stream");
      continue;
    }
    if (zrc == Z_OK) continue;
    if (zrc == Z_BUF_ERROR && out_pos == dst_len && zs.avail_in > 0)
      FAIL_GOTO(true, err, INLET_ECORRUPT,
                "GZIP: data decompresses to more than the %zu bytes the page declares", dst_len);
    if (zrc == Z_BUF_ERROR && in_pos == src_len)
      FAIL_GOTO(true, err, INLET_ECORRUPT, "GZIP: truncated stream (%zu of %zu bytes produced)",
                out_pos, dst_len);
    FAIL_GOTO(true, err, INLET_ECORRUPT, "GZIP: corrupt stream: %s",
              zs.msg ? zs.msg : "inflate failed");
  }
  if (out_pos != dst_len) rc = size_mismatch(err, "GZIP", out_pos, dst_len);
done:
  inflateEnd(&zs);
  return rc;
}

static inline uint32_t load_be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/*
 * Hadoop framing; false unless it parses exactly and fills dst. Each block
 * is [4-byte BE uncompressed size] followed by one or more [4-byte BE
 * compressed size][raw LZ4 block] chunks that together decompress to that
 * size (parquet-mr writes one chunk per block; Hadoop's stream may split).
 */
static bool lz4_hadoop(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len) {
  size_t in = 0, out = 0;
  if (src_len < 8) return false;
  while (in < src_len) {
    if (src_len - in < 8) return false;
    uint32_t usize = load_be32(src + in);
    in += 4;
    if (usize > dst_len - out) return false;
    const size_t block_end = out + usize;
    do {
      if (src_len - in < 4) return false;
      uint32_t csize = load_be32(src + in);
      in += 4;
      if (csize > src_len - in || csize > LZ4_MAX_INPUT_SIZE || csize == 0) return false;
      size_t room = block_end - out;
      if (room > INT32_MAX) return false;
      int n = LZ4_decompress_safe((const char *)src + in, (char *)dst + out, (int)csize, (int)room);
      if (n < 0 || (n == 0 && room > 0)) return false;
      in += csize;
      out += (size_t)n;
    } while (out < block_end);
  }
  return out == dst_len;
}

static bool lz4_frame(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len) {
  LZ4F_dctx *dctx;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION))) return false;
  size_t in = 0, out = 0, hint = 1;
  bool ok = false;
  while (in < src_len) {
    size_t in_n = src_len - in, out_n = dst_len - out;
    hint = LZ4F_decompress(dctx, dst + out, &out_n, src + in, &in_n, NULL);
    if (LZ4F_isError(hint)) goto done;
    in += in_n;
    out += out_n;
    if (hint == 0) {
      if (in == src_len) break;
      continue; /* another frame follows */
    }
    if (in_n == 0 && out_n == 0) goto done; /* no progress: output full */
  }
  ok = hint == 0 && out == dst_len;
done:
  LZ4F_freeDecompressionContext(dctx);
  return ok;
}

int inlet_decompress(int codec, const void *src_v, size_t src_len, void *dst_v, size_t dst_len,
                     inlet_error *err) {
  const uint8_t *src = src_v;
  uint8_t *dst = dst_v;
  switch (codec) {
  case INLET_CODEC_UNCOMPRESSED:
    if (src_len != dst_len) return size_mismatch(err, "UNCOMPRESSED", src_len, dst_len);
    if (dst_len) memcpy(dst, src, dst_len);
    return 0;
  case INLET_CODEC_SNAPPY: {
    /* Our decoder, not libsnappy's: see codec/snappy_decode.h. */
    size_t n;
    if (inlet_snappy_length(src, src_len, &n) != INLET_SNAPPY_OK)
      return inlet_fail(err, INLET_ECORRUPT, "SNAPPY: corrupt length header");
    if (n != dst_len) return size_mismatch(err, "SNAPPY", n, dst_len);
    if (inlet_snappy_decode(src, src_len, dst, dst_len) != INLET_SNAPPY_OK)
      return inlet_fail(err, INLET_ECORRUPT, "SNAPPY: corrupt compressed data");
    return 0;
  }
  case INLET_CODEC_GZIP: return decompress_gzip(src, src_len, dst, dst_len, err);
  case INLET_CODEC_ZSTD: {
    ZSTD_DCtx *dctx = zstd_dctx();
    if (!dctx) return inlet_fail(err, INLET_ENOMEM, "ZSTD: cannot create a decompression context");
    size_t n = ZSTD_decompressDCtx(dctx, dst, dst_len, src, src_len);
    if (ZSTD_isError(n)) {
      if (ZSTD_getErrorCode(n) == ZSTD_error_dstSize_tooSmall)
        return inlet_fail(err, INLET_ECORRUPT,
                          "ZSTD: data decompresses to more than the %zu bytes the page declares",
                          dst_len);
      return inlet_fail(err, INLET_ECORRUPT, "ZSTD: corrupt data: %s", ZSTD_getErrorName(n));
    }
    if (n != dst_len) return size_mismatch(err, "ZSTD", n, dst_len);
    return 0;
  }
  case INLET_CODEC_LZ4_RAW: {
    if (src_len > LZ4_MAX_INPUT_SIZE || dst_len > INT32_MAX)
      return inlet_fail(err, INLET_ECORRUPT,
                        "LZ4_RAW: block of %zu -> %zu bytes exceeds LZ4's limits", src_len,
                        dst_len);
    int n = LZ4_decompress_safe((const char *)src, (char *)dst, (int)src_len, (int)dst_len);
    if (n < 0)
      return inlet_fail(err, INLET_ECORRUPT, "LZ4_RAW: corrupt block (or larger than declared)");
    if ((size_t)n != dst_len) return size_mismatch(err, "LZ4_RAW", (size_t)n, dst_len);
    return 0;
  }
  case INLET_CODEC_LZ4: {
    if (lz4_hadoop(src, src_len, dst, dst_len)) return 0;
    if (src_len <= LZ4_MAX_INPUT_SIZE && dst_len <= INT32_MAX) {
      int n = LZ4_decompress_safe((const char *)src, (char *)dst, (int)src_len, (int)dst_len);
      if (n >= 0 && (size_t)n == dst_len) return 0;
    }
    if (lz4_frame(src, src_len, dst, dst_len)) return 0;
    return inlet_fail(
        err, INLET_ECORRUPT,
        "LZ4: data is neither Hadoop-framed, a raw block nor an LZ4 frame of %zu bytes", dst_len);
  }
  case INLET_CODEC_BROTLI: {
    size_t n = dst_len;
    BrotliDecoderResult r = BrotliDecoderDecompress(src_len, src, &n, dst);
    if (r != BROTLI_DECODER_RESULT_SUCCESS)
      return inlet_fail(err, INLET_ECORRUPT,
                        "BROTLI: corrupt, truncated or larger than the %zu bytes declared",
                        dst_len);
    if (n != dst_len) return size_mismatch(err, "BROTLI", n, dst_len);
    return 0;
  }
  default:
    return inlet_fail(err, INLET_EUNSUPPORTED, "compression codec %s is not supported",
                      inlet_codec_name(codec));
  }
}
