/*
 * Deletion vectors (delta_dv.h).
 *
 * Spec: PROTOCOL.md "Deletion Vector Descriptor Schema" (storageType 'u':
 * optional random prefix + 20 Z85 characters of a UUID, the file being
 * <prefix>/deletion_vector_<uuid>.bin under the table root; 'i': the
 * serialized bitmap Z85-encoded in the log, sizeInBytes being its raw size;
 * 'p': an absolute path; offset absent = 0), "Deletion Vector Format"
 * (little endian: magic 1681511377, 64-bit bucket count, then per bucket a
 * 32-bit key whose top bit is 0 and a portable 32-bit roaring bitmap) and
 * "Deletion Vector File Storage Format" (big endian: a version byte 1, then
 * per DV its 4-byte size, the bitmap, and the CRC-32 of the bitmap).
 */
#include <jansson.h>
#include <roaring/roaring.h>
#include <stdio.h>
#include <zlib.h>

#include "delta/delta_dv.h"
#include "util/util.h"

#define DV_MAGIC 1681511377u        /* the portable format, little endian */
#define DV_MAGIC_NATIVE 1681511376u /* Spark's native format, big endian */
#define UUID_Z85_LEN 20

typedef struct dv_bucket {
  uint32_t key; /* the most significant 32 bits of the row indexes */
  roaring_bitmap_t *bm;
} dv_bucket;

struct delta_dv {
  uint64_t n_buckets;
  dv_bucket *buckets; /* ascending keys */
  uint64_t cardinality;
};

/* ---- descriptor --------------------------------------------------------- */

void delta_dv_desc_reset(delta_dv_desc *d) {
  inlet_free(d->path_or_inline);
  memset(d, 0, sizeof *d);
}

static int desc_bad(inlet_error *err, const char *what) {
  return inlet_fail(err, INLET_ECORRUPT, "corrupt deletionVector descriptor: %s", what);
}

static int desc_int(json_t *o, const char *key, bool required, int64_t max, bool *has, int64_t *out,
                    inlet_error *err) {
  json_t *v = json_object_get(o, key);
  *out = 0;
  if (has) *has = false;
  if (!v || json_is_null(v)) {
    if (!required) return 0;
    return inlet_fail(err, INLET_ECORRUPT, "corrupt deletionVector descriptor: %s is missing", key);
  }
  if (!json_is_integer(v))
    return inlet_fail(err, INLET_ECORRUPT,
                      "corrupt deletionVector descriptor: %s is not an integer", key);
  json_int_t x = json_integer_value(v);
  if (x < 0 || x > max)
    return inlet_fail(err, INLET_ECORRUPT,
                      "corrupt deletionVector descriptor: %s %lld is out of range", key,
                      (long long)x);
  *out = (int64_t)x;
  if (has) *has = true;
  return 0;
}

int delta_dv_desc_parse(delta_dv_desc *out, const char *json, inlet_error *err) {
  memset(out, 0, sizeof *out);
  json_error_t je;
  json_t *o = json_loads(json, 0, &je);
  if (!json_is_object(o)) {
    json_decref(o);
    return desc_bad(err, "not a JSON object");
  }
  int rc = 0;
  json_t *st = json_object_get(o, "storageType");
  json_t *pi = json_object_get(o, "pathOrInlineDv");
  const char *s = json_string_value(st);
  if (!s || strlen(s) != 1 || (s[0] != 'u' && s[0] != 'i' && s[0] != 'p')) {
    rc = desc_bad(err, "storageType is not one of \"u\", \"i\", \"p\"");
  } else if (!json_is_string(pi) || json_string_length(pi) == 0 ||
             strlen(json_string_value(pi)) != json_string_length(pi)) {
    rc = desc_bad(err, "pathOrInlineDv is missing, empty or holds a NUL character");
  }
  if (rc == 0) {
    out->storage_type = s[0];
    out->path_or_inline = inlet_strdup(json_string_value(pi));
    if (!out->path_or_inline) rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
  }
  if (rc == 0) rc = desc_int(o, "offset", false, INT32_MAX, &out->has_offset, &out->offset, err);
  if (rc == 0) rc = desc_int(o, "sizeInBytes", true, INT32_MAX, NULL, &out->size_in_bytes, err);
  if (rc == 0) rc = desc_int(o, "cardinality", true, INT64_MAX, NULL, &out->cardinality, err);
  if (rc == 0 && out->size_in_bytes > DELTA_DV_MAX_BYTES)
    rc = inlet_fail(err, INLET_ELIMIT,
                    "deletionVector sizeInBytes %lld exceeds the limit of %lld bytes",
                    (long long)out->size_in_bytes, (long long)DELTA_DV_MAX_BYTES);
  json_decref(o);
  if (rc < 0) delta_dv_desc_reset(out);
  return rc;
}

/* ---- Z85 ----------------------------------------------------------------- */

static const char Z85_CHARS[] =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

/* A search, not a lazily filled table: scans load deletion vectors on
 * several threads at once (a shared table filled on first use would race). */
static int z85_value(unsigned char c) {
  const char *p = c ? memchr(Z85_CHARS, c, 85) : NULL;
  return p ? (int)(p - Z85_CHARS) : -1;
}

int delta_z85_decode(const char *s, size_t n, uint8_t *out, inlet_error *err) {
  FAIL_IF(n % 5 != 0, err, INLET_ECORRUPT, "bad Z85 text: length %zu is not a multiple of 5", n);
  for (size_t i = 0; i < n; i += 5) {
    uint64_t v = 0;
    for (size_t k = 0; k < 5; k++) {
      int d = z85_value((unsigned char)s[i + k]);
      FAIL_IF(d < 0, err, INLET_ECORRUPT,
              "bad Z85 text: character 0x%02x at position %zu is not in the Z85 alphabet",
              (unsigned)(unsigned char)s[i + k], i + k);
      v = v * 85 + (uint64_t)d;
    }
    /* A group above 2^32 - 1 keeps its low 32 bits, as Delta's own decoder
     * (Base85Codec: `(int) sum`) and every reader that follows it do:
     * Spark wrote inline DVs whose padding group overflows (delta-kernel-rs'
     * cdf-table-with-dv, version 5), and they read. */
    uint8_t *o = out + i / 5 * 4;
    o[0] = (uint8_t)(v >> 24);
    o[1] = (uint8_t)(v >> 16);
    o[2] = (uint8_t)(v >> 8);
    o[3] = (uint8_t)v;
  }
  return 0;
}

/* ---- DV file location ---------------------------------------------------- */

static bool prefix_ok(const char *p, size_t n) {
  /* Writers use random alphanumeric prefixes (delta.randomPrefixLength);
   * anything that could leave the table directory is refused. */
  for (size_t i = 0; i < n; i++) {
    char c = p[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
          c == '-'))
      return false;
  }
  return true;
}

int delta_dv_file_path(const delta_dv_desc *d, const char *root_abs, char **out, inlet_error *err) {
  *out = NULL;
  const char *p = d->path_or_inline;
  size_t n = strlen(p);
  if (d->storage_type == 'p') {
    delta_line_ctx ctx = {"deletionVector descriptor", 1, root_abs};
    return delta_path_resolve(out, p, &ctx, "deletionVector", err);
  }
  FAIL_IF(d->storage_type != 'u', err, INLET_EINVAL, "an inline deletion vector has no file");
  FAIL_IF(n < UUID_Z85_LEN, err, INLET_ECORRUPT,
          "corrupt deletionVector descriptor: pathOrInlineDv \"%.100s\" is shorter than a "
          "Z85-encoded UUID (20 characters)",
          p);
  size_t plen = n - UUID_Z85_LEN;
  FAIL_IF(!prefix_ok(p, plen), err, INLET_ECORRUPT,
          "corrupt deletionVector descriptor: random prefix \"%.*s\" holds characters other than "
          "letters, digits, '_' and '-'",
          (int)(plen > 100 ? 100 : plen), p);
  uint8_t u[16];
  int rc = delta_z85_decode(p + plen, UUID_Z85_LEN, u, err);
  if (rc < 0) return inlet_error_prefix(err, "deletionVector pathOrInlineDv \"%.100s\" (UUID)", p);
  char uuid[37];
  snprintf(uuid, sizeof uuid,
           "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2],
           u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
  size_t cap = plen + 64;
  *out = inlet_malloc(cap);
  if (!*out) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  if (plen)
    snprintf(*out, cap, "%.*s/deletion_vector_%s.bin", (int)plen, p, uuid);
  else
    snprintf(*out, cap, "deletion_vector_%s.bin", uuid);
  return 0;
}

/* ---- bitmap -------------------------------------------------------------- */

void delta_dv_free(delta_dv *dv) {
  if (!dv) return;
  for (uint64_t i = 0; i < dv->n_buckets; i++)
    roaring_bitmap_free(dv->buckets[i].bm);
  inlet_free(dv->buckets);
  inlet_free(dv);
}

static uint32_t le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint32_t be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* One 32-bit roaring bitmap in the portable format at @p p, exactly @p exact
 * bytes long unless @p exact is 0; *used gets its length. NULL when the
 * bytes are not one. */
static uint16_t le16(const uint8_t *p) {
  return (uint16_t)(p[0] | p[1] << 8);
}

/*
 * Checks one 32-bit roaring bitmap in the portable format (RoaringFormatSpec)
 * at @p p, at most @p avail bytes, byte for byte before CRoaring sees it:
 * the deserializer of Debian's CRoaring checks lengths, not contents, and
 * takes containers of unsorted or repeated values, overlapping or empty run
 * lists and miscounted bitsets (one of which crashes its iterator). Keys
 * must ascend; array values and runs must ascend without overlap; each
 * container must hold exactly its declared cardinality. Returns the
 * bitmap's length, 0 when it is not one.
 */
static size_t portable_checked_size(const uint8_t *p, size_t avail) {
  enum { PORTABLE_COOKIE_NO_RUN = 12346, PORTABLE_COOKIE = 12347, PORTABLE_NO_OFFSET_MIN = 4 };
  if (avail < 4) return 0;
  uint32_t cookie = le32(p);
  size_t pos = 4, n;
  const uint8_t *runs = NULL;
  bool offsets;
  if ((cookie & 0xFFFF) == PORTABLE_COOKIE) {
    n = (cookie >> 16) + 1;
    size_t rb = (n + 7) / 8;
    if (avail - pos < rb) return 0;
    runs = p + pos;
    pos += rb;
    offsets = n >= PORTABLE_NO_OFFSET_MIN;
  } else if (cookie == PORTABLE_COOKIE_NO_RUN) {
    if (avail - pos < 4) return 0;
    n = le32(p + pos);
    pos += 4;
    if (n > 65536) return 0;
    offsets = true;
  } else {
    return 0;
  }
  const uint8_t *hdr = p + pos;
  if (avail - pos < 4 * n) return 0;
  pos += 4 * n;
  if (offsets) {
    if (avail - pos < 4 * n) return 0;
    pos += 4 * n;
  }
  for (size_t i = 0; i < n; i++) {
    uint32_t key = le16(hdr + 4 * i), card = (uint32_t)le16(hdr + 4 * i + 2) + 1;
    if (i > 0 && key <= le16(hdr + 4 * (i - 1))) return 0;
    if (runs && (runs[i / 8] >> (i % 8) & 1)) {
      if (avail - pos < 2) return 0;
      size_t nr = le16(p + pos);
      pos += 2;
      if (nr == 0 || avail - pos < 4 * nr) return 0;
      uint32_t total = 0, next = 0;
      for (size_t r = 0; r < nr; r++) {
        uint32_t start = le16(p + pos + 4 * r), len = le16(p + pos + 4 * r + 2);
        if ((r > 0 && start < next) || start + len > 65535) return 0;
        next = start + len + 1;
        total += len + 1;
      }
      if (total != card) return 0;
      pos += 4 * nr;
    } else if (card > 4096) {
      if (avail - pos < 8192) return 0;
      uint32_t bits = 0;
      for (size_t w = 0; w < 8192; w++)
        bits += (uint32_t)__builtin_popcount(p[pos + w]);
      if (bits != card) return 0;
      pos += 8192;
    } else {
      if (avail - pos < 2 * (size_t)card) return 0;
      for (uint32_t k = 1; k < card; k++)
        if (le16(p + pos + 2 * k) <= le16(p + pos + 2 * (k - 1))) return 0;
      pos += 2 * (size_t)card;
    }
  }
  return pos;
}

/* One 32-bit roaring bitmap in the portable format at @p p, exactly @p exact
 * bytes long unless @p exact is 0; *used gets its length. NULL when the
 * bytes are not one. */
static roaring_bitmap_t *read_bucket(const uint8_t *p, size_t avail, size_t exact, size_t *used) {
  *used = portable_checked_size(p, avail);
  if (*used == 0 || (exact && *used != exact)) return NULL;
  return roaring_bitmap_portable_deserialize_safe((const char *)p, *used);
}

static delta_dv *dv_alloc(uint64_t nb) {
  delta_dv *dv = inlet_calloc(1, sizeof *dv);
  if (dv && nb) dv->buckets = inlet_calloc((size_t)nb, sizeof *dv->buckets);
  if (dv && nb && !dv->buckets) {
    inlet_free(dv);
    return NULL;
  }
  return dv;
}

/* Spark's "native" RoaringBitmapArray serialization (magic 1681511376,
 * big endian: bucket count, then per bucket its byte size and a 32-bit
 * roaring bitmap, the keys being 0, 1, 2...): what the inline example of
 * PROTOCOL.md holds, and what Spark still reads. */
static int decode_native(const uint8_t *buf, size_t len, delta_dv **out, inlet_error *err) {
  FAIL_IF(len < 8, err, INLET_ECORRUPT,
          "corrupt deletion vector: %zu bytes, fewer than the 8 of its header", len);
  uint32_t nb = be32(buf + 4);
  FAIL_IF(nb > (len - 8) / 12 || nb > 0x80000000u, err, INLET_ECORRUPT,
          "corrupt deletion vector: %u buckets cannot fit in %zu bytes", nb, len);
  delta_dv *dv = dv_alloc(nb);
  if (!dv) return inlet_fail(err, INLET_ENOMEM, "out of memory decoding a deletion vector");
  size_t pos = 8;
  int rc = 0;
  for (uint32_t i = 0; i < nb && rc == 0; i++) {
    size_t size = len - pos >= 4 ? be32(buf + pos) : SIZE_MAX, used = 0;
    roaring_bitmap_t *bm = NULL;
    if (size != SIZE_MAX && size <= len - pos - 4)
      bm = read_bucket(buf + pos + 4, size, size, &used);
    if (!bm) {
      rc = inlet_fail(err, INLET_ECORRUPT,
                      "corrupt deletion vector: bucket %u is not a valid roaring bitmap", i);
      break;
    }
    dv->buckets[i].key = i;
    dv->buckets[i].bm = bm;
    dv->n_buckets = i + 1;
    dv->cardinality += roaring_bitmap_get_cardinality(bm);
    pos += 4 + used;
  }
  if (rc == 0 && pos != len)
    rc = inlet_fail(err, INLET_ECORRUPT, "corrupt deletion vector: %zu bytes after its last bucket",
                    len - pos);
  if (rc < 0) {
    delta_dv_free(dv);
    return rc;
  }
  *out = dv;
  return 0;
}

int delta_dv_decode(const uint8_t *buf, size_t len, delta_dv **out, inlet_error *err) {
  *out = NULL;
  if (len >= 4 && be32(buf) == DV_MAGIC_NATIVE) return decode_native(buf, len, out, err);
  FAIL_IF(len < 12, err, INLET_ECORRUPT,
          "corrupt deletion vector: %zu bytes, fewer than the 12 of its header", len);
  uint32_t magic = le32(buf);
  FAIL_IF(magic != DV_MAGIC, err, INLET_ECORRUPT,
          "corrupt deletion vector: bad magic number %u (expected %u)", magic, DV_MAGIC);
  uint64_t nb = (uint64_t)le32(buf + 4) | (uint64_t)le32(buf + 8) << 32;
  /* Each bucket takes at least its key and a roaring cookie: 8 bytes. */
  FAIL_IF(nb > (len - 12) / 8, err, INLET_ECORRUPT,
          "corrupt deletion vector: %llu buckets cannot fit in %zu bytes", (unsigned long long)nb,
          len);
  delta_dv *dv = dv_alloc(nb);
  if (!dv) return inlet_fail(err, INLET_ENOMEM, "out of memory decoding a deletion vector");
  size_t pos = 12;
  int rc = 0;
  for (uint64_t i = 0; i < nb && rc == 0; i++) {
    if (len - pos < 4) {
      rc = inlet_fail(err, INLET_ECORRUPT, "corrupt deletion vector: bucket %llu is truncated",
                      (unsigned long long)i);
      break;
    }
    uint32_t key = le32(buf + pos);
    pos += 4;
    if (key & 0x80000000u) {
      rc = inlet_fail(err, INLET_ECORRUPT,
                      "corrupt deletion vector: bucket key %u has its top bit set", key);
      break;
    }
    if (i > 0 && key <= dv->buckets[i - 1].key) {
      rc = inlet_fail(err, INLET_ECORRUPT,
                      "corrupt deletion vector: bucket keys are not ascending (%u after %u)", key,
                      dv->buckets[i - 1].key);
      break;
    }
    size_t used = 0;
    roaring_bitmap_t *bm = read_bucket(buf + pos, len - pos, 0, &used);
    if (!bm) {
      rc = inlet_fail(err, INLET_ECORRUPT,
                      "corrupt deletion vector: bucket %llu (key %u) is not a valid roaring bitmap",
                      (unsigned long long)i, key);
      break;
    }
    dv->buckets[i].key = key;
    dv->buckets[i].bm = bm;
    dv->n_buckets = i + 1;
    dv->cardinality += roaring_bitmap_get_cardinality(bm);
    pos += used;
  }
  if (rc == 0 && pos != len)
    rc = inlet_fail(err, INLET_ECORRUPT, "corrupt deletion vector: %zu bytes after its last bucket",
                    len - pos);
  if (rc < 0) {
    delta_dv_free(dv);
    return rc;
  }
  *out = dv;
  return 0;
}

uint64_t delta_dv_cardinality(const delta_dv *dv) {
  return dv->cardinality;
}

/* Index of the first bucket whose key is >= @p key. */
static uint64_t lower_bucket(const delta_dv *dv, uint32_t key) {
  uint64_t lo = 0, hi = dv->n_buckets;
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2;
    if (dv->buckets[mid].key < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

bool delta_dv_contains(const delta_dv *dv, uint64_t row) {
  if (row >> 32 > UINT32_MAX) return false;
  uint64_t b = lower_bucket(dv, (uint32_t)(row >> 32));
  return b < dv->n_buckets && dv->buckets[b].key == (uint32_t)(row >> 32) &&
         roaring_bitmap_contains(dv->buckets[b].bm, (uint32_t)row);
}

uint64_t delta_dv_count_range(const delta_dv *dv, uint64_t lo, uint64_t hi) {
  uint64_t total = 0;
  if (hi <= lo) return 0;
  for (uint64_t b = lower_bucket(dv, (uint32_t)(lo >> 32)); b < dv->n_buckets; b++) {
    uint64_t base = (uint64_t)dv->buckets[b].key << 32;
    if (base >= hi) break;
    uint64_t a = lo > base ? lo - base : 0;
    uint64_t e = hi - base < ((uint64_t)1 << 32) ? hi - base : (uint64_t)1 << 32;
    if (a < e) total += roaring_bitmap_range_cardinality(dv->buckets[b].bm, a, e);
  }
  return total;
}

/* ---- loading ------------------------------------------------------------- */

static int load_inline(const delta_dv_desc *d, delta_dv **out, inlet_error *err) {
  size_t n = strlen(d->path_or_inline);
  size_t need = ((size_t)d->size_in_bytes + 3) / 4 * 5;
  FAIL_IF(n != need, err, INLET_ECORRUPT,
          "inline deletion vector has %zu Z85 characters, but sizeInBytes %lld needs %zu", n,
          (long long)d->size_in_bytes, need);
  uint8_t *raw = inlet_malloc(n / 5 * 4 + 1);
  if (!raw) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  int rc = delta_z85_decode(d->path_or_inline, n, raw, err);
  if (rc < 0)
    inlet_error_prefix(err, "inline deletion vector");
  else
    rc = delta_dv_decode(raw, (size_t)d->size_in_bytes, out, err);
  inlet_free(raw);
  return rc;
}

static int load_file(inlet_storage *st, const delta_dv_desc *d, const char *path, delta_dv **out,
                     inlet_error *err) {
  int64_t off = d->offset, size = d->size_in_bytes;
  FAIL_IF(off < 1, err, INLET_ECORRUPT,
          "deletion vector file \"%s\": offset %lld is out of range (the first DV starts at 1, "
          "after the version byte)",
          path, (long long)off);
  inlet_rfile *f = NULL;
  TRY(st->ops->open_read(st, path, &f, err));
  int rc = 0;
  int64_t end = off + 4 + size + 4; /* no overflow: both are at most INT32_MAX */
  if (f->size >= 0 && end > f->size)
    rc = inlet_fail(err, INLET_ECORRUPT,
                    "deletion vector file \"%s\": offset %lld with sizeInBytes %lld is out of "
                    "range (the file has %lld bytes)",
                    path, (long long)off, (long long)size, (long long)f->size);
  /* The version byte and the DV in one request when the DV is near the
   * start (the first DV of a file is at offset 1), else two ranges read
   * together; never a one-byte range (some S3 emulators answer "bytes=0-0"
   * with the whole object). */
  bool joined = off <= 64;
  size_t span = (size_t)(joined ? end : 4 + size + 4);
  uint8_t *whole = rc == 0 ? inlet_malloc(span) : NULL;
  uint8_t *buf = whole && joined ? whole + off : whole;
  uint8_t head[4] = {0};
  uint8_t version = 0;
  if (rc == 0 && !whole) rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
  if (rc == 0 && joined) {
    rc = f->ops->read_at(f, 0, whole, span, err);
    version = whole[0];
  } else if (rc == 0) {
    inlet_read_range r[2];
    memset(r, 0, sizeof r);
    r[0].offset = 0;
    r[0].len = sizeof head;
    r[0].buf = head;
    r[1].offset = off;
    r[1].len = span;
    r[1].buf = whole;
    rc = f->ops->read_ranges(f, r, 2, err);
    version = head[0];
  }
  inlet_rfile_close(f);
  if (rc == 0 && version != 1)
    rc = inlet_fail(err, INLET_ECORRUPT,
                    "deletion vector file \"%s\": format version %u (inlet reads version 1)", path,
                    (unsigned)version);
  if (rc == 0 && be32(buf) != (uint32_t)size)
    rc = inlet_fail(err, INLET_ECORRUPT,
                    "deletion vector file \"%s\" at offset %lld: size field %u does not match "
                    "sizeInBytes %lld",
                    path, (long long)off, be32(buf), (long long)size);
  if (rc == 0) {
    uint32_t want = be32(buf + 4 + size);
    uint32_t got = (uint32_t)crc32(crc32(0L, Z_NULL, 0), buf + 4, (uInt)size);
    if (want != got)
      rc = inlet_fail(err, INLET_ECORRUPT,
                      "deletion vector file \"%s\" at offset %lld: checksum mismatch (stored "
                      "%08x, computed %08x)",
                      path, (long long)off, want, got);
  }
  if (rc == 0) {
    rc = delta_dv_decode(buf + 4, (size_t)size, out, err);
    if (rc < 0)
      inlet_error_prefix(err, "deletion vector file \"%s\" at offset %lld", path, (long long)off);
  }
  inlet_free(whole);
  return rc;
}

int delta_dv_load(inlet_storage *st, const char *root_abs, const char *data_path, const char *json,
                  delta_dv **out, inlet_error *err) {
  *out = NULL;
  delta_dv_desc d;
  int rc = delta_dv_desc_parse(&d, json, err);
  if (rc == 0) {
    if (d.storage_type == 'i') {
      rc = load_inline(&d, out, err);
    } else {
      char *path = NULL;
      rc = delta_dv_file_path(&d, root_abs, &path, err);
      if (rc == 0) rc = load_file(st, &d, path, out, err);
      inlet_free(path);
    }
  }
  if (rc == 0 && delta_dv_cardinality(*out) != (uint64_t)d.cardinality) {
    rc = inlet_fail(err, INLET_ECORRUPT,
                    "deletion vector holds %llu row indexes, but its descriptor's cardinality "
                    "is %lld",
                    (unsigned long long)delta_dv_cardinality(*out), (long long)d.cardinality);
    delta_dv_free(*out);
    *out = NULL;
  }
  delta_dv_desc_reset(&d);
  if (rc < 0) return inlet_error_prefix(err, "data file \"%s\"", data_path);
  return 0;
}

/* ---- writing ------------------------------------------------------------- */

void delta_z85_encode(const uint8_t *in, size_t n, char *out) {
  for (size_t i = 0; i + 4 <= n; i += 4) {
    uint32_t v = (uint32_t)in[i] << 24 | (uint32_t)in[i + 1] << 16 | (uint32_t)in[i + 2] << 8 |
                 (uint32_t)in[i + 3];
    for (int k = 4; k >= 0; k--) {
      out[i / 4 * 5 + (size_t)k] = Z85_CHARS[v % 85];
      v /= 85;
    }
  }
  out[n / 4 * 5] = '\0';
}

int delta_dv_new_file_name(char z85[21], char **rel_path, inlet_error *err) {
  uint8_t u[16];
  uint64_t a = delta_random_u64(), c = delta_random_u64();
  memcpy(u, &a, 8);
  memcpy(u + 8, &c, 8);
  u[6] = (uint8_t)((u[6] & 0x0F) | 0x40); /* version 4 */
  u[8] = (uint8_t)((u[8] & 0x3F) | 0x80);
  delta_z85_encode(u, 16, z85);
  delta_dv_desc d = {'u', z85, false, 0, 0, 0};
  return delta_dv_file_path(&d, "", rel_path, err);
}

int delta_dv_add(delta_dv **dvp, uint64_t row, inlet_error *err) {
  FAIL_IF(row >> 32 > 0x7FFFFFFFu, err, INLET_ELIMIT,
          "row index %llu is beyond what a deletion vector holds", (unsigned long long)row);
  if (!*dvp) {
    *dvp = dv_alloc(0);
    if (!*dvp) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  }
  delta_dv *dv = *dvp;
  uint32_t key = (uint32_t)(row >> 32);
  uint64_t b = lower_bucket(dv, key);
  if (b == dv->n_buckets || dv->buckets[b].key != key) {
    dv_bucket *nb = inlet_realloc(dv->buckets, (size_t)(dv->n_buckets + 1) * sizeof *nb);
    if (!nb) return inlet_fail(err, INLET_ENOMEM, "out of memory");
    dv->buckets = nb;
    roaring_bitmap_t *bm = roaring_bitmap_create();
    if (!bm) return inlet_fail(err, INLET_ENOMEM, "out of memory");
    memmove(&nb[b + 1], &nb[b], (size_t)(dv->n_buckets - b) * sizeof *nb);
    nb[b] = (dv_bucket){key, bm};
    dv->n_buckets++;
  }
  if (roaring_bitmap_add_checked(dv->buckets[b].bm, (uint32_t)row)) dv->cardinality++;
  return 0;
}

static void put_le32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}
static void put_be32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++)
    p[i] = (uint8_t)(v >> (24 - 8 * i));
}

int delta_dv_serialize(delta_dv *dv, uint8_t **out, size_t *len, inlet_error *err) {
  *out = NULL;
  *len = 0;
  size_t n = 4 + 8;
  for (uint64_t b = 0; b < dv->n_buckets; b++) {
    roaring_bitmap_run_optimize(dv->buckets[b].bm);
    n += 4 + roaring_bitmap_portable_size_in_bytes(dv->buckets[b].bm);
  }
  FAIL_IF(n > (size_t)DELTA_DV_MAX_BYTES, err, INLET_ELIMIT,
          "a deletion vector of %zu bytes is above the %lld-byte limit", n,
          (long long)DELTA_DV_MAX_BYTES);
  uint8_t *p = inlet_malloc(n);
  if (!p) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  put_le32(p, DV_MAGIC);
  put_le32(p + 4, (uint32_t)dv->n_buckets);
  put_le32(p + 8, (uint32_t)((uint64_t)dv->n_buckets >> 32));
  size_t at = 12;
  for (uint64_t b = 0; b < dv->n_buckets; b++) {
    put_le32(p + at, dv->buckets[b].key);
    at += 4;
    at += roaring_bitmap_portable_serialize(dv->buckets[b].bm, (char *)p + at);
  }
  if (at != n) {
    inlet_free(p);
    return inlet_fail(err, INLET_EINTERNAL, "deletion vector serialized to %zu bytes, not %zu", at,
                      n);
  }
  *out = p;
  *len = n;
  return 0;
}

int delta_dv_file_append(inlet_buf *file, delta_dv *dv, int64_t *offset, int64_t *size,
                         inlet_error *err) {
  uint8_t *bytes = NULL;
  size_t n = 0;
  TRY(delta_dv_serialize(dv, &bytes, &n, err));
  if (file->len == 0) inlet_buf_append(file, "\x01", 1); /* format version */
  *offset = (int64_t)file->len;
  *size = (int64_t)n;
  uint8_t hdr[4], crc[4];
  put_be32(hdr, (uint32_t)n);
  put_be32(crc, (uint32_t)crc32(0L, bytes, (uInt)n));
  inlet_buf_append(file, hdr, 4);
  inlet_buf_append(file, bytes, n);
  inlet_buf_append(file, crc, 4);
  inlet_free(bytes);
  return inlet_buf_status(file) ? inlet_fail(err, INLET_ENOMEM, "out of memory") : 0;
}

char *delta_dv_desc_json(const char *z85, int64_t offset, int64_t size, uint64_t cardinality) {
  char buf[256];
  int n = snprintf(buf, sizeof buf,
                   "{\"storageType\":\"u\",\"pathOrInlineDv\":\"%s\",\"offset\":%lld,"
                   "\"sizeInBytes\":%lld,\"cardinality\":%llu}",
                   z85, (long long)offset, (long long)size, (unsigned long long)cardinality);
  return n > 0 && (size_t)n < sizeof buf ? inlet_strdup(buf) : NULL;
}
