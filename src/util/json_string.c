/*
 * JSON string bodies (RFC 8259 section 7) decoded into bytes, for the code
 * that scans JSON text without building a tree (typed statistics of
 * checkpoints, add.stats for data skipping).
 */
#include "util/buf.h"
#include "util/util.h"

/* Four hex digits at p, or -1. */
static int hex4(const char *p) {
  int v = 0;
  for (int i = 0; i < 4; i++) {
    int h = inlet_hex_digit((unsigned char)p[i]);
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  return v;
}

bool inlet_json_unescape(inlet_buf *out, const char *p, size_t n) {
  const char *e = p + n;
  while (p < e) {
    if (*p != '\\') {
      inlet_buf_push(out, (uint8_t)*p++);
      continue;
    }
    if (++p == e) return false;
    char c = *p++;
    switch (c) {
    case '"':
    case '\\':
    case '/': inlet_buf_push(out, (uint8_t)c); break;
    case 'b': inlet_buf_push(out, '\b'); break;
    case 'f': inlet_buf_push(out, '\f'); break;
    case 'n': inlet_buf_push(out, '\n'); break;
    case 'r': inlet_buf_push(out, '\r'); break;
    case 't': inlet_buf_push(out, '\t'); break;
    case 'u': {
      if (e - p < 4) return false;
      int cp = hex4(p);
      p += 4;
      if (cp < 0) return false;
      if (cp >= 0xD800 && cp < 0xDC00) {
        if (e - p < 6 || p[0] != '\\' || p[1] != 'u') return false;
        int lo = hex4(p + 2);
        if (lo < 0xDC00 || lo > 0xDFFF) return false;
        p += 6;
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
      } else if (cp >= 0xDC00 && cp < 0xE000) {
        return false;
      }
      if (cp == 0) return false;
      inlet_buf_put_utf8(out, (uint32_t)cp);
      break;
    }
    default: return false;
    }
  }
  return true;
}
