/*
 * Raw snappy decompression (format: google/snappy's format_description.txt).
 *
 * A stream is a varint32 length followed by tags. A tag's low two bits say
 * what follows: 00 a literal (length in the tag, or in 1-4 little-endian
 * bytes after it), 01 a copy of 4-11 bytes at an 11-bit offset, 10 a copy of
 * 1-64 bytes at a 16-bit offset, 11 the same at a 32-bit offset. A copy may
 * overlap its own output (offset < length repeats a pattern).
 *
 * Speed comes from copying in fixed-size steps that may write past the end
 * of the current element, which is safe while the output has that much room
 * left (the bytes are overwritten by what follows); near the end of the
 * output every copy is exact.
 */
#include "codec/snappy_decode.h"

#include <string.h>

/* The longest copy a tag can ask for, and so the room the fast paths need. */
#define SLACK 64

static inline uint32_t load_le(const uint8_t *p, unsigned n) {
  uint32_t v = 0;
  for (unsigned i = 0; i < n; i++)
    v |= (uint32_t)p[i] << (8 * i);
  return v;
}

static const uint8_t *parse_length(const uint8_t *p, const uint8_t *end, uint32_t *len) {
  uint32_t v = 0;
  for (unsigned shift = 0; shift < 35; shift += 7) {
    if (p >= end) return NULL;
    uint8_t b = *p++;
    /* The fifth byte holds the top four bits of 32 and nothing more. */
    if (shift == 28 && b > 15) return NULL;
    v |= (uint32_t)(b & 127) << shift;
    if (b < 128) {
      *len = v;
      return p;
    }
  }
  return NULL;
}

inlet_snappy_status inlet_snappy_length(const uint8_t *src, size_t src_len, size_t *len) {
  uint32_t n;
  if (!parse_length(src, src + src_len, &n)) return INLET_SNAPPY_BAD_HEADER;
  *len = n;
  return INLET_SNAPPY_OK;
}

/* Copies a match of @p len bytes from @p off bytes back; the caller checked
 * that both lie inside the output. */
static inline void copy_match(uint8_t *op, size_t off, size_t len, size_t room) {
  const uint8_t *from = op - off;
  if (room >= SLACK && off >= 16) {
    for (size_t i = 0; i < len; i += 16)
      memcpy(op + i, from + i, 16);
  } else if (room >= SLACK && off >= 8) {
    for (size_t i = 0; i < len; i += 8)
      memcpy(op + i, from + i, 8);
  } else {
    /* A short pattern repeated, or the last bytes of the output. */
    for (size_t i = 0; i < len; i++)
      op[i] = from[i];
  }
}

inlet_snappy_status inlet_snappy_decode(const uint8_t *src, size_t src_len, uint8_t *dst,
                                        size_t dst_len) {
  const uint8_t *ip_end = src + src_len;
  uint32_t declared;
  const uint8_t *ip = parse_length(src, ip_end, &declared);
  if (!ip) return INLET_SNAPPY_BAD_HEADER;
  if ((uint64_t)declared != (uint64_t)dst_len) return INLET_SNAPPY_BAD_LENGTH;
  uint8_t *op = dst;
  uint8_t *const op_end = dst + dst_len;

  while (ip < ip_end) {
    const uint8_t tag = *ip++;
    const size_t room = (size_t)(op_end - op);
    if ((tag & 3) == 0) {
      uint64_t len = (uint64_t)(tag >> 2) + 1;
      if (len > 60) {
        unsigned nb = (unsigned)len - 60;
        if ((size_t)(ip_end - ip) < nb) return INLET_SNAPPY_CORRUPT;
        /* In 32 bits, as libsnappy computes it: a 4-byte length of
         * 0xffffffff is an empty literal there, and the two decoders must
         * give one verdict (the differential fuzzer found this). */
        len = (uint32_t)(load_le(ip, nb) + 1u);
        ip += nb;
      }
      const size_t avail = (size_t)(ip_end - ip);
      if (len <= 16 && avail >= 16 && room >= 16) {
        memcpy(op, ip, 16);
      } else if (len <= SLACK && avail >= SLACK && room >= SLACK) {
        memcpy(op, ip, SLACK);
      } else {
        if (len > avail || len > room) return INLET_SNAPPY_CORRUPT;
        memcpy(op, ip, (size_t)len);
      }
      ip += len;
      op += len;
      continue;
    }
    size_t len, off;
    switch (tag & 3) {
    case 1:
      if (ip >= ip_end) return INLET_SNAPPY_CORRUPT;
      len = 4 + ((tag >> 2) & 7);
      off = ((size_t)(tag >> 5) << 8) | *ip++;
      break;
    case 2:
      if (ip_end - ip < 2) return INLET_SNAPPY_CORRUPT;
      len = 1 + (size_t)(tag >> 2);
      off = load_le(ip, 2);
      ip += 2;
      break;
    default:
      if (ip_end - ip < 4) return INLET_SNAPPY_CORRUPT;
      len = 1 + (size_t)(tag >> 2);
      off = load_le(ip, 4);
      ip += 4;
      break;
    }
    if (off == 0 || off > (size_t)(op - dst) || len > room) return INLET_SNAPPY_CORRUPT;
    copy_match(op, off, len, room);
    op += len;
  }
  return op == op_end ? INLET_SNAPPY_OK : INLET_SNAPPY_CORRUPT;
}
