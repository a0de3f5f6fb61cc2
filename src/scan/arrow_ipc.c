/*
 * Arrow IPC writer (include/inlet/arrow.h): the stream and file formats of
 * the Arrow columnar specification, with the flatbuffer metadata built by
 * hand because Debian packages no C flatbuffers builder that fits.
 *
 * The flatbuffers are laid out front to back: a table is written with
 * placeholder slots for the objects it refers to (strings, vectors, other
 * tables), those objects are written after it, and each slot is patched
 * with the forward distance to its object, which is what flatbuffers'
 * unsigned offsets require. Every vtable sits right before its table.
 * Scalars are placed at offsets aligned to their size from the buffer's
 * start, and every buffer starts at an 8-aligned position of the output, so
 * the alignment holds where readers map the bytes.
 *
 * A message is: 0xFFFFFFFF, the int32 length of the flatbuffer plus the
 * padding that makes prefix + flatbuffer a multiple of 8, the flatbuffer,
 * the padding, then the body: every buffer at an 8-aligned offset.
 */
#include "scan/arrow_ipc.h"

#include <lz4frame.h>
#include <strings.h>

#include "codec/codec.h"
#include "util/buf.h"
#include "util/util.h"

/* ---- flatbuffer building ------------------------------------------------ */

static void put_le(uint8_t *p, uint64_t v, int size) {
  for (int i = 0; i < size; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

static size_t fb_pad(inlet_buf *b, size_t align) {
  while (b->len % align && inlet_buf_push(b, 0) == 0) {
  }
  return b->len;
}

static size_t fb_zeros(inlet_buf *b, size_t n) {
  size_t at = b->len;
  if (inlet_buf_reserve(b, n) == 0) {
    memset(b->data + b->len, 0, n);
    b->len += n;
  }
  return at;
}

static void fb_set(inlet_buf *b, size_t at, uint64_t v, int size) {
  if (!b->error) put_le(b->data + at, v, size);
}

/* Points the uoffset slot at @p slot to @p target (written after it). */
static void fb_patch(inlet_buf *b, size_t slot, size_t target) {
  fb_set(b, slot, (uint32_t)(target - slot), 4);
}

/* A table field: size 0 leaves it absent; ref marks a uoffset slot that the
 * caller patches once it has written the object. */
typedef struct fb_field {
  uint8_t size;
  bool ref;
  uint64_t value;
} fb_field;

#define FB_ABSENT                                                                                  \
  { 0, false, 0 }
#define FB_U8(v)                                                                                   \
  { 1, false, (uint64_t)(v) }
#define FB_I16(v)                                                                                  \
  { 2, false, (uint64_t)(uint16_t)(v) }
#define FB_I32(v)                                                                                  \
  { 4, false, (uint64_t)(uint32_t)(v) }
#define FB_I64(v)                                                                                  \
  { 8, false, (uint64_t)(v) }
#define FB_REF                                                                                     \
  { 4, true, 0 }
#define FB_MAX_FIELDS 8

/* Writes a vtable and its table; slot[i] receives the position of field i
 * (refs are patched there). Returns the table's position. */
static size_t fb_table(inlet_buf *b, int n, const fb_field *f, size_t *slot) {
  fb_pad(b, 2);
  size_t vt = fb_zeros(b, 4 + 2 * (size_t)n);
  fb_pad(b, 4);
  size_t t = fb_zeros(b, 4);
  for (int size = 8; size >= 1; size /= 2)
    for (int i = 0; i < n; i++) {
      if (f[i].size != size) continue;
      slot[i] = fb_pad(b, (size_t)size);
      fb_zeros(b, (size_t)size);
      if (!f[i].ref) fb_set(b, slot[i], f[i].value, size);
    }
  fb_set(b, vt, 4 + 2 * (uint64_t)n, 2);
  fb_set(b, vt + 2, b->len - t, 2);
  for (int i = 0; i < n; i++)
    fb_set(b, vt + 4 + 2 * (size_t)i, f[i].size ? slot[i] - t : 0, 2);
  fb_set(b, t, (uint32_t)(int32_t)(t - vt), 4);
  return t;
}

static size_t fb_string(inlet_buf *b, const char *s) {
  size_t n = strlen(s);
  size_t at = fb_pad(b, 4);
  fb_zeros(b, 4);
  fb_set(b, at, n, 4);
  inlet_buf_append(b, s, n);
  inlet_buf_push(b, 0);
  return at;
}

/* Starts a vector of @p n elements aligned to @p align (4 or 8); returns
 * the position of its length word, the elements follow it. */
static size_t fb_vector(inlet_buf *b, size_t n, size_t align) {
  while ((b->len + 4) % align && inlet_buf_push(b, 0) == 0) {
  }
  size_t at = fb_zeros(b, 4);
  fb_set(b, at, n, 4);
  return at;
}

/* An empty table (Null, Bool, Utf8, Binary, Struct_, List). */
static size_t fb_empty(inlet_buf *b) {
  return fb_table(b, 0, NULL, NULL);
}

/* ---- schema ------------------------------------------------------------ */

static int type_of(const inlet_field *f, uint8_t *type, inlet_error *err) {
  switch (f->type.id) {
  case INLET_TYPE_NULL: *type = AIPC_T_NULL; return 0;
  case INLET_TYPE_BOOL: *type = AIPC_T_BOOL; return 0;
  case INLET_TYPE_INT8:
  case INLET_TYPE_INT16:
  case INLET_TYPE_INT32:
  case INLET_TYPE_INT64:
  case INLET_TYPE_UINT8:
  case INLET_TYPE_UINT16:
  case INLET_TYPE_UINT32:
  case INLET_TYPE_UINT64: *type = AIPC_T_INT; return 0;
  case INLET_TYPE_FLOAT:
  case INLET_TYPE_DOUBLE: *type = AIPC_T_FLOAT; return 0;
  case INLET_TYPE_STRING: *type = AIPC_T_UTF8; return 0;
  case INLET_TYPE_BINARY: *type = AIPC_T_BINARY; return 0;
  case INLET_TYPE_FIXED_BINARY: *type = AIPC_T_FIXED_BINARY; return 0;
  case INLET_TYPE_DATE: *type = AIPC_T_DATE; return 0;
  case INLET_TYPE_TIME: *type = AIPC_T_TIME; return 0;
  case INLET_TYPE_TIMESTAMP: *type = AIPC_T_TIMESTAMP; return 0;
  case INLET_TYPE_DECIMAL: *type = AIPC_T_DECIMAL; return 0;
  case INLET_TYPE_STRUCT: *type = AIPC_T_STRUCT; return 0;
  case INLET_TYPE_LIST:
    FAIL_IF(f->n_children != 1, err, INLET_EINVAL, "list column \"%s\" has %d children", f->name,
            (int)f->n_children);
    *type = AIPC_T_LIST;
    return 0;
  case INLET_TYPE_MAP:
    FAIL_IF(f->n_children != 1 || f->children[0].n_children != 2, err, INLET_EINVAL,
            "map column \"%s\" is not shaped entries<key, value>", f->name);
    *type = AIPC_T_MAP;
    return 0;
  default: break;
  }
  return inlet_fail(err, INLET_EUNSUPPORTED, "column \"%s\": type %d has no Arrow IPC form",
                    f->name, (int)f->type.id);
}

/* The type table of @p f (its union tag was chosen by type_of). */
static size_t write_type(inlet_buf *b, const inlet_field *f) {
  const inlet_type *t = &f->type;
  size_t slot[FB_MAX_FIELDS];
  switch (t->id) {
  case INLET_TYPE_INT8:
  case INLET_TYPE_INT16:
  case INLET_TYPE_INT32:
  case INLET_TYPE_INT64:
  case INLET_TYPE_UINT8:
  case INLET_TYPE_UINT16:
  case INLET_TYPE_UINT32:
  case INLET_TYPE_UINT64: {
    bool sign = t->id <= INLET_TYPE_INT64;
    fb_field fs[] = {FB_I32(8 * inlet_type_value_width(t)), FB_U8(sign)};
    return fb_table(b, 2, fs, slot);
  }
  case INLET_TYPE_FLOAT:
  case INLET_TYPE_DOUBLE: {
    fb_field fs[] = {FB_I16(t->id == INLET_TYPE_FLOAT ? 1 : 2)}; /* Precision SINGLE, DOUBLE */
    return fb_table(b, 1, fs, slot);
  }
  case INLET_TYPE_FIXED_BINARY: {
    fb_field fs[] = {FB_I32(t->byte_width)};
    return fb_table(b, 1, fs, slot);
  }
  case INLET_TYPE_DATE: {
    fb_field fs[] = {FB_I16(0)}; /* DateUnit DAY; the schema's default is MILLISECOND */
    return fb_table(b, 1, fs, slot);
  }
  case INLET_TYPE_TIME: {
    int width = t->unit <= INLET_UNIT_MILLI ? 32 : 64;
    fb_field fs[] = {FB_I16(t->unit), FB_I32(width)};
    return fb_table(b, 2, fs, slot);
  }
  case INLET_TYPE_TIMESTAMP: {
    fb_field fs[] = {FB_I16(t->unit), t->utc ? (fb_field)FB_REF : (fb_field)FB_ABSENT};
    size_t at = fb_table(b, 2, fs, slot);
    if (t->utc) fb_patch(b, slot[1], fb_string(b, "UTC"));
    return at;
  }
  case INLET_TYPE_DECIMAL: {
    fb_field fs[] = {FB_I32(t->precision), FB_I32(t->scale), FB_I32(128)};
    return fb_table(b, 3, fs, slot);
  }
  case INLET_TYPE_MAP: {
    fb_field fs[] = {FB_U8(0)}; /* keysSorted: false */
    return fb_table(b, 1, fs, slot);
  }
  default: return fb_empty(b);
  }
}

static const char *extension_name(const inlet_type *t) {
  if (t->id == INLET_TYPE_STRING && t->ext == INLET_EXT_JSON) return "arrow.json";
  if (t->id == INLET_TYPE_FIXED_BINARY && t->ext == INLET_EXT_UUID && t->byte_width == 16)
    return "arrow.uuid";
  return NULL;
}

static int write_fields(inlet_buf *b, size_t slot, const inlet_field *fields, int32_t n, int depth,
                        inlet_error *err);

/* table Field: name, nullable, type_type, type, dictionary, children,
 * custom_metadata. */
static int write_field(inlet_buf *b, size_t at_slot, const inlet_field *f, int depth,
                       inlet_error *err) {
  FAIL_IF(depth > AIPC_MAX_DEPTH, err, INLET_ELIMIT, "column \"%s\" nests deeper than %d levels",
          f->name, AIPC_MAX_DEPTH);
  uint8_t type;
  TRY(type_of(f, &type, err));
  const char *ext = extension_name(&f->type);
  fb_field fs[] = {FB_REF,
                   FB_U8(f->nullable),
                   FB_U8(type),
                   FB_REF,
                   FB_ABSENT,
                   FB_REF,
                   ext ? (fb_field)FB_REF : (fb_field)FB_ABSENT};
  size_t slot[7];
  size_t t = fb_table(b, 7, fs, slot);
  fb_patch(b, at_slot, t);
  fb_patch(b, slot[0], fb_string(b, f->name));
  fb_patch(b, slot[3], write_type(b, f));
  TRY(write_fields(b, slot[5], f->children, f->n_children, depth + 1, err));
  if (ext) {
    size_t v = fb_vector(b, 1, 4);
    fb_zeros(b, 4);
    fb_field kv[] = {FB_REF, FB_REF};
    size_t kslot[2];
    size_t kt = fb_table(b, 2, kv, kslot);
    fb_patch(b, v + 4, kt);
    fb_patch(b, kslot[0], fb_string(b, "ARROW:extension:name"));
    fb_patch(b, kslot[1], fb_string(b, ext));
    fb_patch(b, slot[6], v);
  }
  return 0;
}

static int write_fields(inlet_buf *b, size_t slot, const inlet_field *fields, int32_t n, int depth,
                        inlet_error *err) {
  size_t v = fb_vector(b, (size_t)n, 4);
  size_t first = fb_zeros(b, 4 * (size_t)n);
  fb_patch(b, slot, v);
  for (int32_t i = 0; i < n; i++)
    TRY(write_field(b, first + 4 * (size_t)i, &fields[i], depth, err));
  return 0;
}

/* table Schema: endianness (Little), fields. */
static int write_schema(inlet_buf *b, size_t at_slot, const inlet_schema *s, inlet_error *err) {
  fb_field fs[] = {FB_I16(0), FB_REF};
  size_t slot[2];
  size_t t = fb_table(b, 2, fs, slot);
  fb_patch(b, at_slot, t);
  return write_fields(b, slot[1], s->fields, s->n_fields, 0, err);
}

/* ---- writer ------------------------------------------------------------ */

typedef struct body_buffer {
  const uint8_t *data; /* lent by the batch; NULL when the bytes are in cbody */
  int64_t offset;      /* in cbody when data is NULL */
  int64_t len;         /* bytes in the body */
} body_buffer;

typedef struct ipc_block {
  int64_t offset;
  int32_t meta_len;
  int64_t body_len;
} ipc_block;

struct inlet_arrow_ipc_writer {
  inlet_schema schema; /* owned copy */
  inlet_arrow_ipc_options opts;
  inlet_write_fn write_fn;
  void *ctx;
  int64_t pos;     /* bytes written so far */
  inlet_buf meta;  /* owned: the flatbuffer being built */
  inlet_buf cbody; /* owned: compressed buffers of the current batch */
  int64_t *nodes;  /* owned: (length, null_count) pairs of the current batch */
  size_t n_nodes, cap_nodes;
  body_buffer *bufs; /* owned: the current batch's buffers */
  size_t n_bufs, cap_bufs;
  ipc_block *blocks; /* owned: file format, one per record batch */
  size_t n_blocks, cap_blocks;
  bool finished;
  bool failed;
};

static const uint8_t zeros8[8];

static int emit(inlet_arrow_ipc_writer *w, const void *data, size_t len, inlet_error *err) {
  if (len == 0) return 0;
  int rc = w->write_fn(w->ctx, data, len, err);
  if (rc < 0) {
    w->failed = true;
    return rc;
  }
  w->pos += (int64_t)len;
  return 0;
}

static int emit_pad(inlet_arrow_ipc_writer *w, inlet_error *err) {
  return emit(w, zeros8, (size_t)((8 - (w->pos & 7)) & 7), err);
}

/* Frames the flatbuffer in w->meta as a message; returns its prefixed,
 * padded metadata length through @p meta_len. The body follows. */
static int emit_message(inlet_arrow_ipc_writer *w, int32_t *meta_len, inlet_error *err) {
  fb_pad(&w->meta, 8);
  FAIL_IF(inlet_buf_status(&w->meta) < 0, err, INLET_ENOMEM,
          "out of memory building Arrow metadata");
  FAIL_IF(w->meta.len > INT32_MAX - 8, err, INLET_ELIMIT, "Arrow metadata of %zu bytes",
          w->meta.len);
  uint8_t prefix[8];
  put_le(prefix, 0xFFFFFFFFu, 4);
  put_le(prefix + 4, w->meta.len, 4);
  TRY(emit(w, prefix, 8, err));
  TRY(emit(w, w->meta.data, w->meta.len, err));
  *meta_len = (int32_t)(8 + w->meta.len);
  return 0;
}

/* table Message: version, header_type, header, bodyLength. Leaves the
 * header slot's position in @p header_slot. */
static void begin_message(inlet_buf *b, uint8_t header_type, int64_t body_len,
                          size_t *header_slot) {
  inlet_buf_clear(b);
  size_t root = fb_zeros(b, 4);
  fb_field fs[] = {FB_I16(AIPC_VERSION_V5), FB_U8(header_type), FB_REF, FB_I64(body_len)};
  size_t slot[4];
  size_t t = fb_table(b, 4, fs, slot);
  fb_patch(b, root, t);
  *header_slot = slot[2];
}

int inlet_arrow_compression_parse(inlet_arrow_compression *out, const char *name,
                                  inlet_error *err) {
  if (name && (strcasecmp(name, "none") == 0 || strcasecmp(name, "uncompressed") == 0))
    *out = INLET_ARROW_COMPRESSION_NONE;
  else if (name && (strcasecmp(name, "lz4") == 0 || strcasecmp(name, "lz4_frame") == 0))
    *out = INLET_ARROW_COMPRESSION_LZ4_FRAME;
  else if (name && strcasecmp(name, "zstd") == 0)
    *out = INLET_ARROW_COMPRESSION_ZSTD;
  else
    return inlet_fail(err, INLET_EINVAL, "unknown Arrow compression \"%s\" (none, lz4 or zstd)",
                      name ? name : "");
  return 0;
}

static int check_schema(const inlet_field *f, int32_t n, int depth, inlet_error *err) {
  for (int32_t i = 0; i < n; i++) {
    uint8_t type;
    TRY(type_of(&f[i], &type, err));
    FAIL_IF(depth > AIPC_MAX_DEPTH, err, INLET_ELIMIT, "column \"%s\" nests deeper than %d levels",
            f[i].name, AIPC_MAX_DEPTH);
    TRY(check_schema(f[i].children, f[i].n_children, depth + 1, err));
  }
  return 0;
}

int inlet_arrow_ipc_writer_new(inlet_arrow_ipc_writer **out, const inlet_schema *schema,
                               const inlet_arrow_ipc_options *options, inlet_write_fn write_fn,
                               void *ctx, inlet_error *err) {
  *out = NULL;
  inlet_arrow_ipc_options defaults = INLET_ARROW_IPC_OPTIONS_INIT;
  const inlet_arrow_ipc_options *o = options ? options : &defaults;
  FAIL_IF(o->version != INLET_ARROW_IPC_OPTIONS_VERSION, err, INLET_EINVAL,
          "Arrow IPC options version %d (expected %d)", o->version,
          INLET_ARROW_IPC_OPTIONS_VERSION);
  FAIL_IF(o->format != INLET_ARROW_IPC_STREAM && o->format != INLET_ARROW_IPC_FILE, err,
          INLET_EINVAL, "unknown Arrow IPC format %d", (int)o->format);
  FAIL_IF(o->compression < INLET_ARROW_COMPRESSION_NONE ||
              o->compression > INLET_ARROW_COMPRESSION_ZSTD,
          err, INLET_EINVAL, "unknown Arrow compression %d", (int)o->compression);
  FAIL_IF(!write_fn, err, INLET_EINVAL, "Arrow IPC writer without a write callback");
  TRY(check_schema(schema->fields, schema->n_fields, 0, err));
  inlet_arrow_ipc_writer *w = inlet_calloc(1, sizeof *w);
  FAIL_IF(!w, err, INLET_ENOMEM, "out of memory creating an Arrow IPC writer");
  w->opts = *o;
  w->write_fn = write_fn;
  w->ctx = ctx;
  int rc = inlet_schema_copy(&w->schema, schema, err);
  if (rc == 0 && o->format == INLET_ARROW_IPC_FILE) rc = emit(w, "ARROW1\0\0", 8, err);
  if (rc == 0) {
    size_t hslot;
    begin_message(&w->meta, AIPC_H_SCHEMA, 0, &hslot);
    rc = write_schema(&w->meta, hslot, &w->schema, err);
  }
  int32_t meta_len;
  if (rc == 0) rc = emit_message(w, &meta_len, err);
  if (rc < 0) {
    inlet_arrow_ipc_writer_free(w);
    return rc;
  }
  *out = w;
  return 0;
}

static int file_write(void *ctx, const void *data, size_t len, inlet_error *err) {
  FILE *f = ctx;
  if (len && fwrite(data, 1, len, f) != len) return inlet_fail(err, INLET_EIO, "write failed");
  return 0;
}

int inlet_arrow_ipc_writer_new_file(inlet_arrow_ipc_writer **out, const inlet_schema *schema,
                                    const inlet_arrow_ipc_options *options, FILE *f,
                                    inlet_error *err) {
  return inlet_arrow_ipc_writer_new(out, schema, options, file_write, f, err);
}

void inlet_arrow_ipc_writer_free(inlet_arrow_ipc_writer *w) {
  if (!w) return;
  inlet_schema_reset(&w->schema);
  inlet_buf_reset(&w->meta);
  inlet_buf_reset(&w->cbody);
  inlet_free(w->nodes);
  inlet_free(w->bufs);
  inlet_free(w->blocks);
  inlet_free(w);
}

static int grow(void **p, size_t *cap, size_t need, size_t elem, inlet_error *err) {
  if (need <= *cap) return 0;
  size_t n = *cap ? *cap * 2 : 64;
  while (n < need)
    n *= 2;
  void *q = inlet_realloc(*p, n * elem);
  FAIL_IF(!q, err, INLET_ENOMEM, "out of memory writing an Arrow record batch");
  *p = q;
  *cap = n;
  return 0;
}

/* Adds one body buffer: as it is, or compressed after its length. */
static int add_buffer(inlet_arrow_ipc_writer *w, const uint8_t *data, int64_t len,
                      inlet_error *err) {
  TRY(grow((void **)&w->bufs, &w->cap_bufs, w->n_bufs + 1, sizeof *w->bufs, err));
  body_buffer *bb = &w->bufs[w->n_bufs++];
  *bb = (body_buffer){data, 0, len};
  if (len == 0 || w->opts.compression == INLET_ARROW_COMPRESSION_NONE) return 0;
  /* Zero-length buffers stay empty, without a length prefix, as Arrow's
   * own writers leave them. */
  inlet_buf *c = &w->cbody;
  fb_pad(c, 8);
  size_t start = fb_zeros(c, 8);
  fb_set(c, start, (uint64_t)len, 8);
  if (w->opts.compression == INLET_ARROW_COMPRESSION_ZSTD) {
    TRY(inlet_compress(INLET_CODEC_ZSTD, w->opts.compression_level, data, (size_t)len, c, err));
  } else {
    LZ4F_preferences_t prefs;
    memset(&prefs, 0, sizeof prefs);
    prefs.frameInfo.contentSize = (unsigned long long)len;
    prefs.compressionLevel = w->opts.compression_level;
    size_t bound = LZ4F_compressFrameBound((size_t)len, &prefs);
    FAIL_IF(inlet_buf_reserve(c, bound) < 0, err, INLET_ENOMEM,
            "out of memory compressing an Arrow buffer");
    size_t n = LZ4F_compressFrame(c->data + c->len, bound, data, (size_t)len, &prefs);
    FAIL_IF(LZ4F_isError(n), err, INLET_EINTERNAL, "LZ4 frame compression failed: %s",
            LZ4F_getErrorName(n));
    c->len += n;
  }
  FAIL_IF(inlet_buf_status(c) < 0, err, INLET_ENOMEM, "out of memory compressing an Arrow buffer");
  int64_t clen = (int64_t)(c->len - start);
  if (clen >= len + 8) {
    /* Not worth it: the raw bytes after length -1. */
    c->len = start + 8;
    fb_set(c, start, UINT64_MAX, 8);
    inlet_buf_append(c, data, (size_t)len);
    FAIL_IF(inlet_buf_status(c) < 0, err, INLET_ENOMEM,
            "out of memory compressing an Arrow buffer");
    clen = len + 8;
  }
  *bb = (body_buffer){NULL, (int64_t)start, clen};
  return 0;
}

static int64_t bitmap_bytes(int64_t n) {
  return (n + 7) / 8;
}

/* Collects the field nodes and buffers of @p a (length @p len) in the
 * pre-order the RecordBatch message lists them. */
static int collect(inlet_arrow_ipc_writer *w, const inlet_field *f, const inlet_array *a,
                   int64_t len, inlet_error *err) {
  FAIL_IF(a->length < len, err, INLET_EINVAL, "column \"%s\" has %lld rows, fewer than %lld",
          f->name, (long long)a->length, (long long)len);
  TRY(grow((void **)&w->nodes, &w->cap_nodes, 2 * (w->n_nodes + 1), sizeof *w->nodes, err));
  int64_t nulls = a->null_count;
  if (f->type.id == INLET_TYPE_NULL)
    nulls = len;
  else if (!a->validity)
    nulls = 0;
  else if (len < a->length) { /* a prefix: count its nulls */
    nulls = 0;
    for (int64_t i = 0; i < len; i++)
      nulls += !inlet_bit_get(a->validity, i);
  }
  w->nodes[2 * w->n_nodes] = len;
  w->nodes[2 * w->n_nodes + 1] = nulls;
  w->n_nodes++;
  if (f->type.id == INLET_TYPE_NULL) return 0; /* V5: a null array has no buffers */
  TRY(add_buffer(w, a->validity, nulls > 0 ? bitmap_bytes(len) : 0, err));
  switch (f->type.id) {
  case INLET_TYPE_BOOL: return add_buffer(w, a->values, bitmap_bytes(len), err);
  case INLET_TYPE_STRING:
  case INLET_TYPE_BINARY: {
    static const int32_t zero = 0;
    const int32_t *off = a->offsets ? a->offsets : &zero;
    FAIL_IF(len > 0 && !a->offsets, err, INLET_EINVAL, "column \"%s\" has no offsets", f->name);
    TRY(add_buffer(w, (const uint8_t *)off, 4 * (len + 1), err));
    return add_buffer(w, a->values, off[len] - off[0], err);
  }
  case INLET_TYPE_LIST:
  case INLET_TYPE_MAP: {
    static const int32_t zero = 0;
    const int32_t *off = a->offsets ? a->offsets : &zero;
    FAIL_IF(len > 0 && !a->offsets, err, INLET_EINVAL, "column \"%s\" has no offsets", f->name);
    FAIL_IF(a->n_children != 1, err, INLET_EINVAL, "column \"%s\" has no child array", f->name);
    TRY(add_buffer(w, (const uint8_t *)off, 4 * (len + 1), err));
    return collect(w, &f->children[0], &a->children[0], off[len], err);
  }
  case INLET_TYPE_STRUCT:
    FAIL_IF(a->n_children != f->n_children, err, INLET_EINVAL,
            "column \"%s\" has %d child arrays for %d fields", f->name, (int)a->n_children,
            (int)f->n_children);
    for (int32_t i = 0; i < f->n_children; i++)
      TRY(collect(w, &f->children[i], &a->children[i], len, err));
    return 0;
  default: {
    int64_t width = inlet_type_value_width(&f->type);
    FAIL_IF(width <= 0, err, INLET_EUNSUPPORTED, "column \"%s\": no Arrow IPC layout", f->name);
    FAIL_IF(len > 0 && !a->values, err, INLET_EINVAL, "column \"%s\" has no values", f->name);
    return add_buffer(w, a->values, width * len, err);
  }
  }
}

/* table RecordBatch: length, nodes, buffers, compression. */
static void write_record_batch(inlet_arrow_ipc_writer *w, size_t at_slot, int64_t rows) {
  inlet_buf *b = &w->meta;
  bool compressed = w->opts.compression != INLET_ARROW_COMPRESSION_NONE;
  fb_field fs[] = {FB_I64(rows), FB_REF, FB_REF,
                   compressed ? (fb_field)FB_REF : (fb_field)FB_ABSENT};
  size_t slot[4];
  size_t t = fb_table(b, 4, fs, slot);
  fb_patch(b, at_slot, t);
  size_t v = fb_vector(b, w->n_nodes, 8);
  fb_patch(b, slot[1], v);
  for (size_t i = 0; i < 2 * w->n_nodes; i++)
    fb_set(b, fb_zeros(b, 8), (uint64_t)w->nodes[i], 8);
  v = fb_vector(b, w->n_bufs, 8);
  fb_patch(b, slot[2], v);
  int64_t off = 0;
  for (size_t i = 0; i < w->n_bufs; i++) {
    fb_set(b, fb_zeros(b, 8), (uint64_t)off, 8);
    fb_set(b, fb_zeros(b, 8), (uint64_t)w->bufs[i].len, 8);
    off += (w->bufs[i].len + 7) & ~(int64_t)7;
  }
  if (compressed) {
    uint8_t codec =
        w->opts.compression == INLET_ARROW_COMPRESSION_ZSTD ? AIPC_C_ZSTD : AIPC_C_LZ4_FRAME;
    fb_field cs[] = {FB_U8(codec), FB_U8(0)}; /* method BUFFER */
    size_t cslot[2];
    fb_patch(b, slot[3], fb_table(b, 2, cs, cslot));
  }
}

int inlet_arrow_ipc_writer_write(inlet_arrow_ipc_writer *w, const inlet_batch *batch,
                                 inlet_error *err) {
  FAIL_IF(w->finished, err, INLET_EINVAL, "Arrow IPC writer: write after finish");
  FAIL_IF(w->failed, err, INLET_EIO, "Arrow IPC writer: an earlier write failed");
  FAIL_IF(!inlet_schema_equal(&batch->schema, &w->schema), err, INLET_EINVAL,
          "Arrow IPC writer: the batch's schema differs from the writer's");
  if (batch->num_rows == 0) return 0;
  w->n_nodes = w->n_bufs = 0;
  inlet_buf_clear(&w->cbody);
  for (int32_t i = 0; i < w->schema.n_fields; i++)
    TRY(collect(w, &w->schema.fields[i], &batch->columns[i], batch->num_rows, err));
  int64_t body = 0;
  for (size_t i = 0; i < w->n_bufs; i++) {
    FAIL_IF(w->bufs[i].len < 0 || w->bufs[i].len > INT64_MAX / 2 - body, err, INLET_ELIMIT,
            "Arrow record batch body too large");
    body += (w->bufs[i].len + 7) & ~(int64_t)7;
  }
  size_t hslot;
  begin_message(&w->meta, AIPC_H_RECORD_BATCH, body, &hslot);
  write_record_batch(w, hslot, batch->num_rows);
  ipc_block blk = {w->pos, 0, body};
  TRY(emit_message(w, &blk.meta_len, err));
  for (size_t i = 0; i < w->n_bufs; i++) {
    const body_buffer *bb = &w->bufs[i];
    if (bb->len == 0) continue; /* its data may be NULL, and NULL + 0 is undefined */
    const uint8_t *p = bb->data ? bb->data : w->cbody.data + bb->offset;
    TRY(emit(w, p, (size_t)bb->len, err));
    TRY(emit_pad(w, err));
  }
  if (w->opts.format == INLET_ARROW_IPC_FILE) {
    TRY(grow((void **)&w->blocks, &w->cap_blocks, w->n_blocks + 1, sizeof *w->blocks, err));
    w->blocks[w->n_blocks++] = blk;
  }
  return 0;
}

int inlet_arrow_ipc_writer_finish(inlet_arrow_ipc_writer *w, inlet_error *err) {
  FAIL_IF(w->finished, err, INLET_EINVAL, "Arrow IPC writer: finished twice");
  FAIL_IF(w->failed, err, INLET_EIO, "Arrow IPC writer: an earlier write failed");
  w->finished = true;
  static const uint8_t eos[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0};
  TRY(emit(w, eos, 8, err));
  if (w->opts.format != INLET_ARROW_IPC_FILE) return 0;
  /* table Footer: version, schema, dictionaries, recordBatches. */
  inlet_buf *b = &w->meta;
  inlet_buf_clear(b);
  size_t root = fb_zeros(b, 4);
  fb_field fs[] = {FB_I16(AIPC_VERSION_V5), FB_REF, FB_REF, FB_REF};
  size_t slot[4];
  fb_patch(b, root, fb_table(b, 4, fs, slot));
  TRY(write_schema(b, slot[1], &w->schema, err));
  fb_patch(b, slot[2], fb_vector(b, 0, 8));
  fb_patch(b, slot[3], fb_vector(b, w->n_blocks, 8));
  for (size_t i = 0; i < w->n_blocks; i++) { /* struct Block: offset, metaDataLength, bodyLength */
    size_t at = fb_zeros(b, 24);
    fb_set(b, at, (uint64_t)w->blocks[i].offset, 8);
    fb_set(b, at + 8, (uint32_t)w->blocks[i].meta_len, 4);
    fb_set(b, at + 16, (uint64_t)w->blocks[i].body_len, 8);
  }
  fb_pad(b, 8);
  FAIL_IF(inlet_buf_status(b) < 0, err, INLET_ENOMEM, "out of memory building the Arrow footer");
  FAIL_IF(b->len > INT32_MAX, err, INLET_ELIMIT, "Arrow footer of %zu bytes", b->len);
  TRY(emit(w, b->data, b->len, err));
  uint8_t tail[10];
  put_le(tail, b->len, 4);
  memcpy(tail + 4, "ARROW1", 6);
  return emit(w, tail, 10, err);
}
