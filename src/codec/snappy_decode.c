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
 * that both lie inside the output, and @p room is what the output has left
 * from @p op (steps may overshoot the match while it is SLACK or more). */
static inline void copy_match(uint8_t *op, size_t off, size_t len, size_t room) {
  const uint8_t *from = op - off;
  if (room >= SLACK && off >= 16) {
    /* Two steps whatever the length, then two more past 32 bytes: a loop
     * over the length mispredicted its exit on text, whose copy lengths
     * vary (steps stay in order, as a pattern at offset 16-31 needs). */
    memcpy(op, from, 16);
    memcpy(op + 16, from + 16, 16);
    if (len > 32) {
      memcpy(op + 32, from + 32, 16);
      memcpy(op + 48, from + 48, 16);
    }
  } else if (room >= SLACK && off >= 8 && len <= 16) {
    /* Byte by byte on purpose. The source is among the last bytes written,
     * by two or more recent stores (the literal before and the copy before
     * that); a wider load spanning them cannot be forwarded from the store
     * buffer and waits for them to reach the cache, which made pages of
     * ascending int64 values (a literal and a copy at offset 8 per value)
     * decode 1.3x slower. */
    if (len <= 8) {
      for (size_t i = 0; i < 8; i++)
        op[i] = from[i];
    } else {
      for (size_t i = 0; i < 16; i++)
        op[i] = from[i];
    }
  } else if (room >= SLACK && off >= 8) {
    /* A step may read what the one before wrote (offset 8..15): a pattern
     * repeated, as the format means it. */
    for (size_t i = 0; i < len; i += 8)
      memcpy(op + i, from + i, 8);
  } else {
    /* A short pattern repeated, or the last bytes of the output. */
    for (size_t i = 0; i < len; i++)
      op[i] = from[i];
  }
}

/* One tag at @p *ipp, every bound checked: the path for the last bytes of
 * the input or output and for long literals. */
static inlet_snappy_status decode_tag_checked(const uint8_t **ipp, const uint8_t *ip_end,
                                              uint8_t **opp, uint8_t *dst, uint8_t *op_end) {
  const uint8_t *ip = *ipp;
  uint8_t *op = *opp;
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
    if (len > avail || len > room) return INLET_SNAPPY_CORRUPT;
    memcpy(op, ip, (size_t)len);
    *ipp = ip + len;
    *opp = op + len;
    return INLET_SNAPPY_OK;
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
  *ipp = ip;
  *opp = op + len;
  return INLET_SNAPPY_OK;
}

/* Input the fast loop may read from a tag on without checking: the tag, a
 * short literal's 16-byte over-read (or a copy's 4 offset bytes). */
#define FAST_INPUT 17

inlet_snappy_status inlet_snappy_decode(const uint8_t *src, size_t src_len, uint8_t *dst,
                                        size_t dst_len) {
  const uint8_t *ip_end = src + src_len;
  uint32_t declared;
  const uint8_t *ip = parse_length(src, ip_end, &declared);
  if (!ip) return INLET_SNAPPY_BAD_HEADER;
  if ((uint64_t)declared != (uint64_t)dst_len) return INLET_SNAPPY_BAD_LENGTH;
  uint8_t *op = dst;
  uint8_t *const op_end = dst + dst_len;

  for (;;) {
    /* Parquet pages of numbers are mostly short literals and short copies
     * at offsets of 8 or more, alternating; while the input and output have
     * room, those take no bound checks and no loops (a copy's length is at
     * most 64, and so is a literal's here). The rest goes one tag at a time
     * through the checked path. */
    while ((size_t)(ip_end - ip) >= FAST_INPUT && (size_t)(op_end - op) >= SLACK) {
      const uint8_t tag = ip[0];
      size_t len, off;
      if ((tag & 3) == 0) {
        len = (size_t)(tag >> 2) + 1;
        if (len <= 16) {
          memcpy(op, ip + 1, 16);
        } else if (len <= 60 && (size_t)(ip_end - ip) >= 1 + SLACK) {
          memcpy(op, ip + 1, SLACK);
        } else {
          goto checked;
        }
        ip += 1 + len;
        op += len;
        continue;
      }
      if ((tag & 3) == 1) {
        len = 4 + ((tag >> 2) & 7);
        off = ((size_t)(tag >> 5) << 8) | ip[1];
        ip += 2;
      } else if ((tag & 3) == 2) {
        len = 1 + (size_t)(tag >> 2);
        off = load_le(ip + 1, 2);
        ip += 3;
      } else {
        len = 1 + (size_t)(tag >> 2);
        off = load_le(ip + 1, 4);
        ip += 5;
      }
      /* off == 0 wraps around and is refused with the rest. */
      if (off - 1 >= (size_t)(op - dst)) return INLET_SNAPPY_CORRUPT;
      copy_match(op, off, len, SLACK); /* the loop keeps SLACK of room */
      op += len;
    }
  checked:
    if (ip >= ip_end) break;
    inlet_snappy_status st = decode_tag_checked(&ip, ip_end, &op, dst, op_end);
    if (st != INLET_SNAPPY_OK) return st;
  }
  return op == op_end ? INLET_SNAPPY_OK : INLET_SNAPPY_CORRUPT;
}
