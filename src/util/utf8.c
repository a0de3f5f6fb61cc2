/*
 * UTF-8 validation shared by the text reader (strings must be UTF-8) and the
 * table writer (partition values become JSON strings and directory names):
 * strict RFC 3629, so overlong forms, surrogates (U+D800..U+DFFF) and code
 * points past U+10FFFF are invalid. Eight ASCII bytes are checked at a time.
 * And the one UTF-8 encoder (string escapes of JSON, SQL literals).
 */
#include "util/buf.h"
#include "util/util.h"

void inlet_buf_put_utf8(inlet_buf *b, uint32_t cp) {
  if (cp < 0x80) {
    inlet_buf_push(b, (uint8_t)cp);
  } else if (cp < 0x800) {
    inlet_buf_push(b, (uint8_t)(0xc0 | (cp >> 6)));
    inlet_buf_push(b, (uint8_t)(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    inlet_buf_push(b, (uint8_t)(0xe0 | (cp >> 12)));
    inlet_buf_push(b, (uint8_t)(0x80 | ((cp >> 6) & 0x3f)));
    inlet_buf_push(b, (uint8_t)(0x80 | (cp & 0x3f)));
  } else {
    inlet_buf_push(b, (uint8_t)(0xf0 | (cp >> 18)));
    inlet_buf_push(b, (uint8_t)(0x80 | ((cp >> 12) & 0x3f)));
    inlet_buf_push(b, (uint8_t)(0x80 | ((cp >> 6) & 0x3f)));
    inlet_buf_push(b, (uint8_t)(0x80 | (cp & 0x3f)));
  }
}

bool inlet_utf8_valid(const uint8_t *s, size_t n) {
  size_t i = 0;
  while (i < n) {
    if (i + 8 <= n) {
      uint64_t w;
      memcpy(&w, s + i, 8);
      if (!(w & 0x8080808080808080ull)) {
        i += 8;
        continue;
      }
    }
    uint8_t c = s[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    size_t len;
    uint32_t cp;
    if (c >= 0xc2 && c <= 0xdf)
      len = 2, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef)
      len = 3, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4)
      len = 4, cp = c & 0x07;
    else
      return false;
    if (i + len > n) return false;
    for (size_t k = 1; k < len; k++) {
      if ((s[i + k] & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (s[i + k] & 0x3f);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
      return false;
    i += len;
  }
  return true;
}
