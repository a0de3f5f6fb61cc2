/*
 * Dictionary encoding support (Encodings.md "Dictionary Encoding
 * (PLAIN_DICTIONARY = 2 and RLE_DICTIONARY = 8)"): the writer's hash table
 * that assigns indices to distinct values in first-seen order and tracks
 * the size of the PLAIN dictionary page, and the reader's gather for byte
 * arrays (the fixed-width gathers live in rle.c next to the fused decoder).
 *
 * The table is open addressing with linear probing over a power-of-two
 * slot array kept at most half full. 32- and 64-bit values live in the
 * slots themselves so a probe touches one cache line; byte arrays keep a
 * 32-bit hash in the slot and compare bytes only on a hash match.
 * Floats are keyed by bit pattern: NaNs with different payloads and
 * 0.0 / -0.0 are distinct entries, which is harmless for encoding.
 */
#include <inttypes.h>

#include "parquet/encoding.h"

typedef struct slot32 {
  uint32_t value;
  uint32_t idx1; /* index + 1; 0 = empty */
} slot32;

typedef struct slot64 {
  uint64_t value;
  uint32_t idx1;
  uint32_t pad;
} slot64;

typedef struct slotb {
  uint32_t hash;
  uint32_t idx1;
} slotb;

#define INITIAL_SLOTS 1024
#define GOLDEN 0x9E3779B97F4A7C15ull

static size_t slot_size(pq_dict_kind k) {
  return k == PQ_DICT_32 ? sizeof(slot32) : k == PQ_DICT_64 ? sizeof(slot64) : sizeof(slotb);
}

static inline size_t hash_int(uint64_t x, int shift) {
  return (size_t)((x * GOLDEN) >> shift);
}

static inline uint64_t load64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

static inline uint32_t load32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

static inline uint64_t mix(uint64_t h, uint64_t w) {
  h ^= w * 0xff51afd7ed558ccdull;
  return (h << 29 | h >> 35) * GOLDEN;
}

/* A small multiply-rotate hash over 8-byte words. Tails are read with
 * overlapping loads instead of a variable-length copy (the length is mixed
 * in first, so overlaps cannot make different strings collide more).
 * Quality is checked by the collision tests; speed matters more than
 * strength here. */
static inline uint32_t hash_bytes(const uint8_t *p, size_t len) {
  uint64_t h = (uint64_t)len * GOLDEN + 0x2545F4914F6CDD1Dull;
  if (len >= 8) {
    const uint8_t *end = p + len;
    while (end - p > 8) {
      h = mix(h, load64(p));
      p += 8;
    }
    h = mix(h, load64(end - 8));
  } else if (len >= 4) {
    h = mix(h, (uint64_t)load32(p) | (uint64_t)load32(p + len - 4) << 32);
  } else if (len) {
    h = mix(h, (uint64_t)p[0] | (uint64_t)p[len >> 1] << 8 | (uint64_t)p[len - 1] << 16);
  }
  h ^= h >> 32;
  h *= 0xd6e8feb86659fd93ull;
  h ^= h >> 32;
  return (uint32_t)h;
}

/* Equality of two byte strings of the same length, inline for short ones. */
static inline bool bytes_equal(const uint8_t *a, const uint8_t *b, size_t len) {
  if (len >= 8 && len <= 16)
    return load64(a) == load64(b) && load64(a + len - 8) == load64(b + len - 8);
  if (len >= 4 && len < 8)
    return load32(a) == load32(b) && load32(a + len - 4) == load32(b + len - 4);
  return memcmp(a, b, len) == 0;
}

static int alloc_slots(pq_dict *d, size_t n_slots, inlet_error *err) {
  void *s = inlet_calloc(n_slots, slot_size(d->kind));
  if (!s)
    return inlet_fail(err, INLET_ENOMEM, "out of memory growing a dictionary to %zu slots",
                      n_slots);
  inlet_free(d->slots);
  d->slots = s;
  d->n_slots = n_slots;
  d->shift = 64 - __builtin_ctzll((unsigned long long)n_slots);
  return 0;
}

int pq_dict_init(pq_dict *d, pq_dict_kind kind, int32_t fixed_width, inlet_error *err) {
  memset(d, 0, sizeof *d);
  if (kind < PQ_DICT_32 || kind > PQ_DICT_FIXED || (kind == PQ_DICT_FIXED && fixed_width <= 0))
    return inlet_fail(err, INLET_EINVAL, "invalid dictionary kind %d / width %" PRId32, (int)kind,
                      fixed_width);
  d->kind = kind;
  d->fixed_width = fixed_width;
  inlet_buf_init(&d->values);
  TRY(alloc_slots(d, INITIAL_SLOTS, err));
  if (kind == PQ_DICT_BINARY) {
    d->offsets = inlet_malloc(INITIAL_SLOTS * sizeof *d->offsets);
    if (!d->offsets) {
      pq_dict_reset(d);
      return inlet_fail(err, INLET_ENOMEM, "out of memory creating a dictionary");
    }
    d->offsets_cap = INITIAL_SLOTS;
    d->offsets[0] = 0;
  }
  return 0;
}

void pq_dict_reset(pq_dict *d) {
  if (!d) return;
  inlet_buf_reset(&d->values);
  inlet_free(d->offsets);
  inlet_free(d->slots);
  d->offsets = NULL;
  d->slots = NULL;
  d->offsets_cap = 0;
  d->n_slots = 0;
  d->count = 0;
  d->plain_bytes = 0;
}

void pq_dict_clear(pq_dict *d) {
  if (d->slots) memset(d->slots, 0, d->n_slots * slot_size(d->kind));
  inlet_buf_clear(&d->values);
  d->count = 0;
  d->plain_bytes = 0;
  if (d->offsets) d->offsets[0] = 0;
}

/* Doubles the slot array and reinserts every value. */
static int grow(pq_dict *d, inlet_error *err) {
  size_t old_n = d->n_slots;
  if (old_n >= ((size_t)1 << 31))
    return inlet_fail(err, INLET_ELIMIT, "dictionary hash table limit reached");
  void *old = d->slots;
  d->slots = NULL;
  int rc = alloc_slots(d, old_n * 2, err);
  if (rc < 0) {
    d->slots = old;
    return rc;
  }
  const size_t mask = d->n_slots - 1;
  switch (d->kind) {
  case PQ_DICT_32: {
    slot32 *o = old, *s = d->slots;
    for (size_t i = 0; i < old_n; i++) {
      if (!o[i].idx1) continue;
      size_t h = hash_int(o[i].value, d->shift);
      while (s[h].idx1)
        h = (h + 1) & mask;
      s[h] = o[i];
    }
  } break;
  case PQ_DICT_64: {
    slot64 *o = old, *s = d->slots;
    for (size_t i = 0; i < old_n; i++) {
      if (!o[i].idx1) continue;
      size_t h = hash_int(o[i].value, d->shift);
      while (s[h].idx1)
        h = (h + 1) & mask;
      s[h] = o[i];
    }
  } break;
  default: {
    slotb *o = old, *s = d->slots;
    for (size_t i = 0; i < old_n; i++) {
      if (!o[i].idx1) continue;
      size_t h = o[i].hash & mask;
      while (s[h].idx1)
        h = (h + 1) & mask;
      s[h] = o[i];
    }
  } break;
  }
  inlet_free(old);
  return 0;
}

static int too_many(inlet_error *err) {
  return inlet_fail(err, INLET_ELIMIT, "dictionary exceeds %d distinct values", INT32_MAX);
}

/* Grows before an insertion would pass half occupancy. */
#define NEED_GROW(d) ((size_t)(d)->count + 1 > (d)->n_slots / 2)

int pq_dict_put32(pq_dict *d, const uint32_t *values, const uint8_t *validity, int64_t start,
                  size_t n, uint32_t *idx_out, size_t *n_out, inlet_error *err) {
  size_t o = 0;
  int rc = 0;
  for (size_t i = 0; i < n; i++) {
    int64_t r = start + (int64_t)i;
    if (validity && !inlet_bit_get(validity, r)) continue;
    const uint32_t v = values[r];
    slot32 *s = d->slots;
    size_t mask = d->n_slots - 1, h = hash_int(v, d->shift);
    while (s[h].idx1 && s[h].value != v)
      h = (h + 1) & mask;
    if (s[h].idx1) {
      idx_out[o++] = s[h].idx1 - 1;
      continue;
    }
    if (d->count >= INT32_MAX) FAIL_GOTO(true, err, INLET_ELIMIT, "dictionary too large");
    if (inlet_buf_append(&d->values, &v, 4) < 0) {
      d->values.error = 0; /* the content is intact; let a later put retry */
      FAIL_GOTO(true, err, INLET_ENOMEM, "out of memory growing a dictionary");
    }
    s[h].value = v;
    s[h].idx1 = ++d->count;
    d->plain_bytes += 4;
    idx_out[o++] = d->count - 1;
    if (NEED_GROW(d)) TRY_GOTO(grow(d, err));
  }
done:
  *n_out = o;
  return rc;
}

int pq_dict_put64(pq_dict *d, const uint64_t *values, const uint8_t *validity, int64_t start,
                  size_t n, uint32_t *idx_out, size_t *n_out, inlet_error *err) {
  size_t o = 0;
  int rc = 0;
  for (size_t i = 0; i < n; i++) {
    int64_t r = start + (int64_t)i;
    if (validity && !inlet_bit_get(validity, r)) continue;
    const uint64_t v = values[r];
    slot64 *s = d->slots;
    size_t mask = d->n_slots - 1, h = hash_int(v, d->shift);
    while (s[h].idx1 && s[h].value != v)
      h = (h + 1) & mask;
    if (s[h].idx1) {
      idx_out[o++] = s[h].idx1 - 1;
      continue;
    }
    if (d->count >= INT32_MAX) FAIL_GOTO(true, err, INLET_ELIMIT, "dictionary too large");
    if (inlet_buf_append(&d->values, &v, 8) < 0) {
      d->values.error = 0; /* the content is intact; let a later put retry */
      FAIL_GOTO(true, err, INLET_ENOMEM, "out of memory growing a dictionary");
    }
    s[h].value = v;
    s[h].idx1 = ++d->count;
    d->plain_bytes += 8;
    idx_out[o++] = d->count - 1;
    if (NEED_GROW(d)) TRY_GOTO(grow(d, err));
  }
done:
  *n_out = o;
  return rc;
}

#if defined(__GNUC__)
#define DICT_INLINE inline __attribute__((always_inline))
#define DICT_NOINLINE __attribute__((noinline))
#else
#define DICT_INLINE inline
#define DICT_NOINLINE
#endif

/* Adds a byte string known to be absent, at empty slot @p h. Out of line:
 * distinct values are rare next to lookups. */
static DICT_NOINLINE int64_t insert_bytes(pq_dict *d, const uint8_t *p, size_t len, uint32_t hv,
                                          size_t h, inlet_error *err) {
  const bool fixed = d->kind == PQ_DICT_FIXED;
  if (d->count >= INT32_MAX) return too_many(err);
  if (!fixed) {
    if (len > (size_t)INT32_MAX - d->values.len)
      return inlet_fail(err, INLET_ELIMIT, "dictionary exceeds 2 GiB of byte array data");
    if ((size_t)d->count + 2 > d->offsets_cap) {
      size_t cap = d->offsets_cap * 2;
      int32_t *no = inlet_realloc(d->offsets, cap * sizeof *no);
      if (!no) return inlet_fail(err, INLET_ENOMEM, "out of memory growing a dictionary");
      d->offsets = no;
      d->offsets_cap = cap;
    }
  }
  if (inlet_buf_append(&d->values, p, len) < 0) {
    d->values.error = 0; /* the content is intact; let a later put retry */
    return inlet_fail(err, INLET_ENOMEM, "out of memory growing a dictionary");
  }
  uint32_t ix = d->count++;
  if (!fixed) {
    d->offsets[ix + 1] = (int32_t)d->values.len;
    d->plain_bytes += 4;
  }
  d->plain_bytes += len;
  slotb *s = d->slots;
  s[h].hash = hv;
  s[h].idx1 = ix + 1;
  if (NEED_GROW(d)) TRY(grow(d, err));
  return ix;
}

/* Looks up or inserts one byte string; returns its index or a negative
 * code. @p fixed is a constant at each call site, so the binary and fixed
 * loops each get their own specialised probe. */
static DICT_INLINE int64_t put_bytes(pq_dict *d, const uint8_t *p, size_t len, const bool fixed,
                                     inlet_error *err) {
  const uint32_t hv = hash_bytes(p, len);
  const slotb *s = d->slots;
  const size_t mask = d->n_slots - 1;
  const uint8_t *vals = d->values.data;
  size_t h = hv & mask;
  for (; s[h].idx1; h = (h + 1) & mask) {
    if (s[h].hash != hv) continue;
    uint32_t ix = s[h].idx1 - 1;
    if (fixed) {
      if (bytes_equal(p, vals + (size_t)ix * len, len)) return ix;
    } else {
      const int32_t a = d->offsets[ix];
      if ((size_t)(d->offsets[ix + 1] - a) == len && bytes_equal(p, vals + a, len)) return ix;
    }
  }
  return insert_bytes(d, p, len, hv, h, err);
}

int pq_dict_put_binary(pq_dict *d, const int32_t *offsets, const uint8_t *data,
                       const uint8_t *validity, int64_t start, size_t n, uint32_t *idx_out,
                       size_t *n_out, inlet_error *err) {
  size_t o = 0;
  int rc = 0;
  for (size_t i = 0; i < n; i++) {
    int64_t r = start + (int64_t)i;
    if (validity && !inlet_bit_get(validity, r)) continue;
    int64_t ix = put_bytes(d, data + offsets[r], (size_t)(offsets[r + 1] - offsets[r]), false, err);
    if (ix < 0) {
      rc = (int)ix;
      break;
    }
    idx_out[o++] = (uint32_t)ix;
  }
  *n_out = o;
  return rc;
}

int pq_dict_put_fixed(pq_dict *d, const uint8_t *values, const uint8_t *validity, int64_t start,
                      size_t n, uint32_t *idx_out, size_t *n_out, inlet_error *err) {
  size_t o = 0;
  int rc = 0;
  const size_t w = (size_t)d->fixed_width;
  for (size_t i = 0; i < n; i++) {
    int64_t r = start + (int64_t)i;
    if (validity && !inlet_bit_get(validity, r)) continue;
    int64_t ix = put_bytes(d, values + (size_t)r * w, w, true, err);
    if (ix < 0) {
      rc = (int)ix;
      break;
    }
    idx_out[o++] = (uint32_t)ix;
  }
  *n_out = o;
  return rc;
}

int pq_dict_write_plain(const pq_dict *d, inlet_buf *out) {
  if (d->kind != PQ_DICT_BINARY) return inlet_buf_append(out, d->values.data, d->values.len);
  if (inlet_buf_reserve(out, d->plain_bytes) < 0) return inlet_buf_status(out);
  uint8_t *p = out->data + out->len;
  for (uint32_t i = 0; i < d->count; i++) {
    uint32_t len = (uint32_t)(d->offsets[i + 1] - d->offsets[i]);
    memcpy(p, &len, 4);
    if (len) memcpy(p + 4, d->values.data + d->offsets[i], len);
    p += 4 + (size_t)len;
  }
  out->len += d->plain_bytes;
  return 0;
}

int pq_dict_gather_binary(int32_t *offsets, inlet_buf *data, const int32_t *dict_offsets,
                          const uint8_t *dict_data, uint32_t dict_n, const uint32_t *idx, size_t n,
                          inlet_error *err) {
  size_t total = 0;
  for (size_t i = 0; i < n; i++) {
    uint32_t ix = idx[i];
    if (ix >= dict_n)
      return inlet_fail(err, INLET_ECORRUPT,
                        "dictionary index %" PRIu32 " out of range (dictionary has %" PRIu32
                        " values)",
                        ix, dict_n);
    total += (size_t)(dict_offsets[ix + 1] - dict_offsets[ix]);
  }
  if (offsets[0] < 0 || total > (size_t)INT32_MAX - (size_t)offsets[0])
    return inlet_fail(err, INLET_ELIMIT,
                      "byte array data of %" PRId32 " + %zu bytes exceeds the 2 GiB offset limit",
                      offsets[0], total);
  /* 16 bytes of slack let short values be copied with two fixed 8-byte
   * moves (memcpy's dispatch costs more than the copy itself); values near
   * the end of the dictionary's bytes use memcpy so the source is never
   * over-read. */
  if (inlet_buf_reserve(data, total + 16) < 0)
    return inlet_fail(err, INLET_ENOMEM, "out of memory gathering %zu bytes of byte arrays", total);
  uint8_t *p = data->data + data->len;
  int32_t o = offsets[0];
  const int32_t dict_end = dict_n ? dict_offsets[dict_n] : 0;
  for (size_t i = 0; i < n; i++) {
    uint32_t ix = idx[i];
    int32_t a = dict_offsets[ix], len = dict_offsets[ix + 1] - a;
    if (len == 0) {
      /* nothing to copy; dict_data may be NULL when every value is empty */
    } else if (len <= 16 && a <= dict_end - 16) {
      uint64_t x, y;
      memcpy(&x, dict_data + a, 8);
      memcpy(&y, dict_data + a + 8, 8);
      memcpy(p, &x, 8);
      memcpy(p + 8, &y, 8);
    } else {
      memcpy(p, dict_data + a, (size_t)len);
    }
    p += len;
    o += len;
    offsets[i + 1] = o;
  }
  data->len += total;
  return 0;
}
