/*
 * The text reader (include/inlet/text.h): splits NDJSON lines or CSV
 * records (RFC 4180: quoted fields, "" escapes, CR LF or LF line ends,
 * newlines inside quotes) out of a pull source, converts each to a row of
 * the target schema and fills bounded batches.
 *
 * Input is read in 1 MiB chunks into one buffer; a record is converted in
 * place (no copy) unless it straddles a refill, in which case the buffer is
 * compacted. A record longer than max_record_bytes is skipped as a bad
 * record without being held in memory. A failed row is rolled back by
 * truncating every column to the batch's row count.
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "batch/text_int.h"

#define READ_CHUNK (1 << 20)

struct inlet_text_reader {
  inlet_schema schema; /* owned copy */
  inlet_text_reader_options opt;
  text_field_index *idx; /* owned */
  text_conv conv;

  inlet_read_fn read_fn;
  void *ctx;
  int fd; /* owned when >= 0 (open_path) */
  bool owns_fd;
  const char *mem; /* open_memory: the caller's bytes */
  size_t mem_len, mem_pos;

  char *buf; /* owned, NULL for memory input */
  size_t cap, start, end;
  bool eof;
  const char *data; /* buf or mem */

  int64_t base_offset; /* input offset of data[0] */
  int64_t line;        /* lines consumed so far */
  int64_t records;
  int64_t rows;
  int64_t bad;
  int64_t ignored_fields;   /* unknown fields skipped in the records that became rows */
  bool skipping;            /* inside an oversize record, discarding up to its end */
  size_t scan;              /* CSV: how far the current record has been scanned */
  text_csv_state csv_state; /* CSV scan state at `scan` */
  int64_t scan_lines;

  bool header_done;
  int32_t n_map;   /* CSV: header cell -> field index (-1 ignored) */
  int32_t *map;    /* owned */
  inlet_buf cell;  /* CSV unquoted-cell scratch */
  bool *cell_seen; /* owned, per field */
  /* inlet_text_reader_append: the batch columns last checked against the
   * schema, so the per-record path skips the name-by-name comparison. */
  const inlet_array *checked_columns;
};

static int64_t fd_read(void *ctx, void *buf, size_t cap, inlet_error *err) {
  int fd = *(int *)ctx;
  for (;;) {
    ssize_t n = read(fd, buf, cap);
    if (n >= 0) return n;
    if (errno == EINTR) continue;
    return inlet_fail(err, INLET_EIO, "read failed: %s", strerror(errno));
  }
}

static int reader_new(inlet_text_reader **out, const inlet_schema *schema,
                      const inlet_text_reader_options *options, inlet_error *err) {
  *out = NULL;
  inlet_text_reader_options def = INLET_TEXT_READER_OPTIONS_INIT;
  const inlet_text_reader_options *o = options ? options : &def;
  FAIL_IF(o->version < 1 || o->version > INLET_TEXT_READER_OPTIONS_VERSION, err, INLET_EINVAL,
          "text reader: unknown options version %d", o->version);
  FAIL_IF(o->format != INLET_TEXT_NDJSON && o->format != INLET_TEXT_CSV, err, INLET_EINVAL,
          "text reader: format must be ndjson or csv");
  FAIL_IF(schema->n_fields <= 0, err, INLET_EINVAL, "text reader: empty schema");
  inlet_text_reader *r = inlet_calloc(1, sizeof *r);
  if (!r) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  r->fd = -1;
  if (o->version == 1) /* a version-1 struct ends before row_check */
    memcpy(&r->opt, o, offsetof(inlet_text_reader_options, row_check));
  else if (o->version == 2) /* a version-2 struct ends before strict_types */
    memcpy(&r->opt, o, offsetof(inlet_text_reader_options, strict_types));
  else
    r->opt = *o;
  if (r->opt.max_batch_rows <= 0) r->opt.max_batch_rows = 65536;
  if (r->opt.max_batch_bytes <= 0) r->opt.max_batch_bytes = 64 << 20;
  if (r->opt.max_record_bytes <= 0) r->opt.max_record_bytes = 16 << 20;
  if (!r->opt.csv_delimiter) r->opt.csv_delimiter = ',';
  r->conv.epoch_unit = r->opt.epoch_unit;
  r->conv.strict = r->opt.strict;
  r->conv.strict_types = r->opt.strict_types;
  int rc = inlet_schema_copy(&r->schema, schema, err);
  if (rc == 0 && text_field_index_new(&r->idx, &r->schema) < 0)
    rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
  if (rc == 0) {
    r->cell_seen = inlet_calloc((size_t)schema->n_fields, sizeof *r->cell_seen);
    if (!r->cell_seen) rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
  }
  if (rc < 0) {
    inlet_text_reader_free(r);
    return rc;
  }
  *out = r;
  return 0;
}

int inlet_text_reader_new(inlet_text_reader **out, const inlet_schema *schema,
                          const inlet_text_reader_options *options, inlet_read_fn read_fn,
                          void *ctx, inlet_error *err) {
  TRY(reader_new(out, schema, options, err));
  (*out)->read_fn = read_fn;
  (*out)->ctx = ctx;
  return 0;
}

int inlet_text_reader_open_path(inlet_text_reader **out, const char *path,
                                const inlet_schema *schema,
                                const inlet_text_reader_options *options, inlet_error *err) {
  int fd = 0;
  bool own = strcmp(path, "-") != 0;
  if (own) {
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      return inlet_fail(err, errno == ENOENT ? INLET_ENOTFOUND : INLET_EIO, "cannot open %s: %s",
                        path, strerror(errno));
  }
  int rc = reader_new(out, schema, options, err);
  if (rc < 0) {
    if (own) close(fd);
    return rc;
  }
  (*out)->fd = fd;
  (*out)->owns_fd = own;
  (*out)->read_fn = fd_read;
  (*out)->ctx = &(*out)->fd;
  return 0;
}

int inlet_text_reader_open_memory(inlet_text_reader **out, const void *data, size_t len,
                                  const inlet_schema *schema,
                                  const inlet_text_reader_options *options, inlet_error *err) {
  TRY(reader_new(out, schema, options, err));
  inlet_text_reader *r = *out;
  r->mem = data;
  r->mem_len = len;
  r->data = data;
  r->end = len;
  r->eof = true;
  return 0;
}

void inlet_text_reader_free(inlet_text_reader *r) {
  if (!r) return;
  if (r->owns_fd && r->fd >= 0) close(r->fd);
  text_field_index_free(r->idx);
  inlet_schema_reset(&r->schema);
  inlet_buf_reset(&r->conv.scratch);
  inlet_buf_reset(&r->cell);
  inlet_free(r->buf);
  inlet_free(r->map);
  inlet_free(r->cell_seen);
  inlet_free(r);
}

const inlet_schema *inlet_text_reader_schema(const inlet_text_reader *r) {
  return &r->schema;
}

void inlet_text_reader_get_stats(const inlet_text_reader *r, inlet_text_reader_stats *out) {
  out->records = r->records;
  out->rows = r->rows;
  out->bad_records = r->bad;
  out->bytes = r->base_offset + (int64_t)r->start;
}

void text_reader_set_strict_types(inlet_text_reader *r, bool on) {
  r->conv.strict_types = on;
}

int64_t inlet_text_reader_ignored_fields(const inlet_text_reader *r) {
  return r->ignored_fields;
}

/* Reads more input after data[end]. Returns 1 if bytes arrived, 0 at EOF. */
static int refill(inlet_text_reader *r, inlet_error *err) {
  if (r->eof) return 0;
  if (r->start > 0 && (r->start >= r->cap / 2 || r->end == r->cap)) {
    memmove(r->buf, r->buf + r->start, r->end - r->start);
    r->base_offset += (int64_t)r->start;
    r->end -= r->start;
    if (r->scan >= r->start)
      r->scan -= r->start;
    else
      r->scan = 0;
    r->start = 0;
  }
  if (r->cap - r->end < READ_CHUNK / 2) {
    size_t ncap = r->cap ? r->cap * 2 : READ_CHUNK;
    while (ncap - r->end < READ_CHUNK / 2)
      ncap *= 2;
    char *nb = inlet_realloc(r->buf, ncap);
    if (!nb) return inlet_fail(err, INLET_ENOMEM, "out of memory reading input");
    r->buf = nb;
    r->cap = ncap;
  }
  r->data = r->buf;
  int64_t n = r->read_fn(r->ctx, r->buf + r->end, r->cap - r->end, err);
  if (n < 0) return (int)n;
  if (n == 0) {
    r->eof = true;
    return 0;
  }
  r->end += (size_t)n;
  return 1;
}

/* Drops consumed bytes while skipping an oversize record (keeps memory bounded). */
static void discard(inlet_text_reader *r, size_t upto) {
  r->start = upto;
  r->scan = upto;
}

typedef struct record {
  const char *s;
  size_t n;
  int64_t line;
  int64_t offset;
  bool oversize;
} record;

size_t text_csv_scan(const char *s, size_t from, size_t n, char delim, text_csv_state *st,
                     int64_t *newlines) {
  text_csv_state q = *st;
  for (size_t i = from; i < n; i++) {
    char ch = s[i];
    switch (q) {
    case TEXT_CSV_QUOTED:
      if (ch == '"')
        q = TEXT_CSV_QUOTE_IN_QUOTED;
      else if (ch == '\n')
        (*newlines)++;
      continue;
    case TEXT_CSV_QUOTE_IN_QUOTED:
      if (ch == '"') {
        q = TEXT_CSV_QUOTED; /* "" */
        continue;
      }
      q = TEXT_CSV_UNQUOTED; /* closed; what follows up to the delimiter is bad text */
      break;
    case TEXT_CSV_FIELD_START:
      if (ch == '"') {
        q = TEXT_CSV_QUOTED;
        continue;
      }
      q = TEXT_CSV_UNQUOTED;
      break;
    case TEXT_CSV_UNQUOTED: break;
    }
    if (ch == delim)
      q = TEXT_CSV_FIELD_START;
    else if (ch == '\n') {
      *st = TEXT_CSV_FIELD_START;
      return i;
    }
  }
  *st = q;
  return n;
}

bool text_reader_csv_syntax_failed(const inlet_text_reader *r) {
  return r->opt.format == INLET_TEXT_CSV && r->conv.csv_syntax;
}

/* Finds the end of the CSV record starting at r->start: returns the index
 * of its terminating '\n' or r->end when none yet. Resumable via r->scan. */
static size_t csv_scan(inlet_text_reader *r) {
  size_t from = r->scan > r->start ? r->scan : r->start;
  size_t i =
      text_csv_scan(r->data, from, r->end, r->opt.csv_delimiter, &r->csv_state, &r->scan_lines);
  r->scan = i;
  return i;
}

/* A CSV record still open at a line break that has grown past
 * max_record_bytes: rather than skip it whole (and the records a stray
 * quote folded into it), its first line becomes a record of its own (bad:
 * its quote does not close) and scanning starts again after it. Returns 1
 * with *rec filled, 0 when the text holds no line break. */
static int csv_cut_first_line(inlet_text_reader *r, record *rec) {
  const char *base = r->data + r->start;
  const char *nl = memchr(base, '\n', r->end - r->start);
  if (!nl) return 0;
  size_t len = (size_t)(nl - base);
  rec->s = base;
  rec->n = len > 0 && base[len - 1] == '\r' ? len - 1 : len;
  rec->line = r->line + 1;
  rec->offset = r->base_offset + (int64_t)r->start;
  rec->oversize = (int64_t)rec->n > r->opt.max_record_bytes;
  r->line += 1;
  r->start = r->scan = r->start + len + 1;
  r->scan_lines = 0;
  r->csv_state = TEXT_CSV_FIELD_START;
  return 1;
}

/* Next raw record. Returns 1 with *rec filled, 0 at end, < 0 on error. */
static int next_record(inlet_text_reader *r, record *rec, inlet_error *err) {
  if (!r->data) {
    int rc = refill(r, err);
    if (rc <= 0) return rc;
  }
  for (;;) {
    size_t avail = r->end - r->start;
    const char *base = r->data + r->start;
    size_t eol;
    if (r->opt.format == INLET_TEXT_CSV) {
      eol = csv_scan(r) - r->start;
    } else {
      const char *nl = avail ? memchr(base + (r->scan > r->start ? r->scan - r->start : 0), '\n',
                                      avail - (r->scan > r->start ? r->scan - r->start : 0))
                             : NULL;
      eol = nl ? (size_t)(nl - base) : avail;
      if (!nl) r->scan = r->end;
    }
    bool complete = eol < avail || (r->eof && avail > 0);
    if (!complete && !r->eof && (int64_t)avail > r->opt.max_record_bytes && !r->skipping &&
        r->opt.format == INLET_TEXT_CSV && r->csv_state != TEXT_CSV_FIELD_START &&
        r->scan_lines > 0 && csv_cut_first_line(r, rec))
      return 1;
    if (!complete && !r->eof && (int64_t)avail > r->opt.max_record_bytes) {
      if (!r->skipping) {
        r->skipping = true;
        rec->s = base;
        rec->n = avail < 200 ? avail : 200;
        rec->line = r->line + 1;
        rec->offset = r->base_offset + (int64_t)r->start;
        rec->oversize = true;
        /* Report once now; the rest of the record is discarded below. */
        r->line += r->scan_lines;
        r->scan_lines = 0;
        discard(r, r->end);
        return 1;
      }
      r->line += r->scan_lines;
      r->scan_lines = 0;
      discard(r, r->end);
      continue;
    }
    if (!complete) {
      if (r->eof) return 0;
      if (r->mem) return 0;
      int rc = refill(r, err);
      if (rc < 0) return rc;
      continue;
    }
    size_t len = eol;
    size_t next = r->start + eol + (eol < avail ? 1 : 0);
    int64_t lines = 1 + r->scan_lines;
    r->scan_lines = 0;
    r->csv_state = TEXT_CSV_FIELD_START;
    if (r->skipping) {
      r->skipping = false;
      r->line += lines;
      r->start = r->scan = next;
      continue;
    }
    if (len > 0 && base[len - 1] == '\r') len--;
    rec->s = base;
    rec->n = len;
    rec->line = r->line + 1;
    rec->offset = r->base_offset + (int64_t)r->start;
    rec->oversize = (int64_t)len > r->opt.max_record_bytes;
    r->line += lines;
    r->start = r->scan = next;
    return 1;
  }
}

/* ---- CSV cells ------------------------------------------------------------ */

typedef struct cell {
  const char *s;
  size_t n;
  bool quoted;
} cell;

/* Splits the next cell off [*p, end). Quoted cells with "" escapes are
 * unescaped into @p scratch. Returns 1 with a cell, 0 past the last, or
 * INLET_EINVAL (reason in c) for a malformed quote. */
static int next_cell(text_conv *c, const char **p, const char *end, char delim, bool *more,
                     inlet_buf *scratch, cell *out) {
  const char *q = *p;
  if (!*more) return 0;
  if (q < end && *q == '"') {
    q++;
    inlet_buf_clear(scratch);
    const char *run = q;
    for (;;) {
      const char *nq = memchr(q, '"', (size_t)(end - q));
      if (!nq) {
        c->csv_syntax = true;
        return text_bad(c, "unterminated quoted CSV field");
      }
      if (nq + 1 < end && nq[1] == '"') {
        inlet_buf_append(scratch, run, (size_t)(nq + 1 - run));
        q = run = nq + 2;
        continue;
      }
      inlet_buf_append(scratch, run, (size_t)(nq - run));
      q = nq + 1;
      break;
    }
    if (inlet_buf_status(scratch) < 0) return inlet_fail(&c->err, INLET_ENOMEM, "out of memory");
    if (q < end && *q != delim) {
      c->csv_syntax = true;
      return text_bad(c, "text after a closing quote in a CSV field");
    }
    out->s = scratch->data ? (const char *)scratch->data : "";
    out->n = scratch->len;
    out->quoted = true;
  } else {
    const char *d = q < end ? memchr(q, delim, (size_t)(end - q)) : NULL;
    const char *e = d ? d : end;
    for (const char *x = q; x < e; x++)
      if (*x == '"') {
        c->csv_syntax = true;
        return text_bad(c, "quote inside an unquoted CSV field");
      }
    out->s = q;
    out->n = (size_t)(e - q);
    out->quoted = false;
    q = e;
  }
  if (q < end) {
    q++; /* delimiter */
    *more = true;
  } else {
    *more = false;
  }
  *p = q;
  return 1;
}

static int read_header(inlet_text_reader *r, const char *s, size_t n, inlet_error *err) {
  const char *p = s, *end = s + n;
  bool more = true;
  cell cl;
  int rc;
  int32_t count = 0;
  inlet_free(r->map);
  r->map = NULL;
  r->n_map = 0;
  memset(r->cell_seen, 0, sizeof *r->cell_seen * (size_t)r->schema.n_fields);
  r->conv.field = NULL;
  while ((rc = next_cell(&r->conv, &p, end, r->opt.csv_delimiter, &more, &r->cell, &cl)) == 1) {
    int32_t *m = inlet_realloc(r->map, sizeof *m * ((size_t)count + 1));
    if (!m) return inlet_fail(err, INLET_ENOMEM, "out of memory");
    r->map = m;
    const char *name = cl.s;
    size_t nn = cl.n;
    if (count == 0 && nn >= 3 && memcmp(name, "\xef\xbb\xbf", 3) == 0) name += 3, nn -= 3;
    int32_t fi = text_field_index_find(r->idx, name, nn);
    if (fi >= 0 && r->cell_seen[fi])
      return inlet_fail(err, INLET_EINVAL, "CSV header: column \"%s\" appears twice",
                        r->schema.fields[fi].name);
    if (fi < 0 && r->opt.strict)
      return inlet_fail(err, INLET_EINVAL, "CSV header: column \"%.*s\" is not in the schema",
                        (int)(nn < 100 ? nn : 100), name);
    if (fi >= 0) r->cell_seen[fi] = true;
    m[count++] = fi;
    r->n_map = count;
  }
  if (rc < 0) return inlet_fail(err, INLET_EINVAL, "CSV header: %s", r->conv.reason);
  for (int32_t i = 0; i < r->schema.n_fields; i++)
    if (!r->cell_seen[i] && !r->schema.fields[i].nullable)
      return inlet_fail(err, INLET_EINVAL, "CSV header lacks NOT NULL column \"%s\"",
                        r->schema.fields[i].name);
  r->header_done = true;
  return 0;
}

static bool is_nested(const inlet_field *f) {
  return f->type.id == INLET_TYPE_STRUCT || f->type.id == INLET_TYPE_LIST ||
         f->type.id == INLET_TYPE_MAP;
}

static int csv_row(inlet_text_reader *r, inlet_array *cols, int64_t row, const char *s, size_t n) {
  text_conv *c = &r->conv;
  const char *p = s, *end = s + n;
  bool more = true;
  cell cl;
  int rc;
  int32_t i = 0;
  c->field = NULL;
  c->rec_ignored = 0;
  while ((rc = next_cell(c, &p, end, r->opt.csv_delimiter, &more, &r->cell, &cl)) == 1) {
    int32_t fi = r->map ? (i < r->n_map ? r->map[i] : -2) : (i < r->schema.n_fields ? i : -2);
    i++;
    if (fi == -2) {
      c->csv_syntax = true;
      return text_bad(c, "record has more than %d fields",
                      (int)(r->map ? r->n_map : r->schema.n_fields));
    }
    if (fi < 0) {
      c->rec_ignored++;
      continue;
    }
    const inlet_field *f = &r->schema.fields[fi];
    c->field = f->name;
    if (cl.n == 0 &&
        (!cl.quoted || (f->type.id != INLET_TYPE_STRING && f->type.id != INLET_TYPE_BINARY))) {
      TRY(text_append_null(c, &cols[fi], f));
    } else if (is_nested(f) ||
               (f->type.id == INLET_TYPE_STRING &&
                (f->type.ext == INLET_EXT_JSON || f->type.ext == INLET_EXT_VARIANT))) {
      const char *q = cl.s, *qe = cl.s + cl.n;
      c->rec_start = cl.s; /* columns count within the cell */
      /* The cell may live in r->cell, which the JSON reader does not touch. */
      int jrc = text_json_value(c, &cols[fi], f, &q, qe, 1);
      c->rec_start = NULL;
      TRY(jrc);
      while (q < qe && (*q == ' ' || *q == '\t'))
        q++;
      if (q != qe) return text_bad(c, "text after the JSON value");
    } else {
      TRY(text_append_scalar(c, &cols[fi], f, TOK_TEXT, cl.s, cl.n, false));
    }
    c->field = NULL;
  }
  if (rc < 0) return rc;
  for (int32_t k = 0; k < r->schema.n_fields; k++) {
    if (cols[k].length == row + 1) continue;
    const inlet_field *f = &r->schema.fields[k];
    c->field = f->name;
    if (cols[k].length > row + 1) return text_bad(c, "column given twice");
    if (!f->nullable) return text_bad(c, "missing NOT NULL field");
    TRY(inlet_array_append_null(&cols[k], f, &c->err));
  }
  c->field = NULL;
  return 0;
}

/* Converts one record into batch row batch->num_rows and runs the row
 * check; rolls back on failure. */
static int convert(inlet_text_reader *r, inlet_batch *b, const char *s, size_t n) {
  int rc;
  r->conv.reason[0] = '\0';
  r->conv.csv_syntax = false;
  if (r->opt.format == INLET_TEXT_CSV)
    rc = csv_row(r, b->columns, b->num_rows, s, n);
  else
    rc = text_json_row(&r->conv, &r->schema, r->idx, b->columns, b->num_rows, s, n);
  if (rc == 0) {
    b->num_rows++;
    if (!r->opt.row_check) {
      r->ignored_fields += r->conv.rec_ignored;
      return 0;
    }
    inlet_error e = INLET_ERROR_INIT;
    rc = r->opt.row_check(r->opt.row_check_ctx, b, b->num_rows - 1, &e);
    if (rc == 0) {
      r->ignored_fields += r->conv.rec_ignored;
      return 0;
    }
    b->num_rows--;
    if (rc == INLET_EINVAL)
      snprintf(r->conv.reason, sizeof r->conv.reason, "%s", inlet_errmsg(&e));
    else
      r->conv.err = e;
  }
  for (int32_t i = 0; i < r->schema.n_fields; i++)
    text_array_truncate(&b->columns[i], &r->schema.fields[i], b->num_rows);
  return rc;
}

static bool blank(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r') return false;
  return true;
}

static int ensure_batch(inlet_text_reader *r, inlet_batch *batch, inlet_error *err) {
  if (batch->columns && inlet_schema_equal(&batch->schema, &r->schema)) {
    inlet_batch_clear(batch);
    return 0;
  }
  inlet_batch_reset(batch);
  return inlet_batch_init(batch, &r->schema, err);
}

static int report_bad(inlet_text_reader *r, const record *rec, const char *reason,
                      inlet_error *err) {
  r->bad++;
  if (!r->opt.on_bad_record) return 0;
  inlet_text_bad_record bad;
  bad.record = r->records;
  bad.line = rec->line;
  bad.byte_offset = rec->offset;
  bad.field = NULL;
  bad.reason = reason;
  bad.text = rec->s;
  bad.text_len = rec->n;
  /* Recover the field name from the "field \"x\": " prefix. */
  char fname[256];
  if (strncmp(reason, "field \"", 7) == 0) {
    const char *q = strstr(reason + 7, "\": ");
    if (q && (size_t)(q - reason - 7) < sizeof fname) {
      memcpy(fname, reason + 7, (size_t)(q - reason - 7));
      fname[q - reason - 7] = '\0';
      bad.field = fname;
    }
  }
  if (r->opt.on_bad_record(r->opt.ctx, &bad) != 0)
    return inlet_fail(err, INLET_EINVAL, "line %lld: %s (stopped by the bad-record handler)",
                      (long long)rec->line, reason);
  return 0;
}

int inlet_text_reader_next(inlet_text_reader *r, inlet_batch *batch, inlet_error *err) {
  TRY(ensure_batch(r, batch, err));
  int64_t bytes = 0;
  for (;;) {
    if (batch->num_rows >= r->opt.max_batch_rows) return 0;
    if (bytes >= r->opt.max_batch_bytes) return 0;
    if ((batch->num_rows & 63) == 63 && inlet_batch_memory(batch) >= r->opt.max_batch_bytes)
      return 0;
    record rec;
    int rc = next_record(r, &rec, err);
    if (rc < 0) return rc;
    if (rc == 0) return 0;
    if (rec.offset == 0 && rec.n >= 3 && memcmp(rec.s, "\xef\xbb\xbf", 3) == 0)
      rec.s += 3, rec.n -= 3; /* a UTF-8 byte order mark starts some exported files */
    if (!rec.oversize && blank(rec.s, rec.n)) continue;
    if (r->opt.format == INLET_TEXT_CSV && r->opt.csv_header && !r->header_done) {
      TRY(read_header(r, rec.s, rec.n, err));
      continue;
    }
    r->records++;
    bytes += (int64_t)rec.n;
    if (rec.oversize) {
      char why[96];
      snprintf(why, sizeof why, "record exceeds the %lld-byte limit",
               (long long)r->opt.max_record_bytes);
      rec.n = rec.n > 200 ? 200 : rec.n;
      TRY(report_bad(r, &rec, why, err));
      continue;
    }
    rc = convert(r, batch, rec.s, rec.n);
    const char *nl;
    if (rc == INLET_EINVAL && r->conv.csv_syntax && (nl = memchr(rec.s, '\n', rec.n)) != NULL) {
      /* A malformed record over several lines (typically a stray quote that
       * folded the next lines in): its first line is rejected alone and
       * the lines after it are read again. */
      size_t first = (size_t)(nl - rec.s);
      r->start = r->scan = (size_t)(rec.s - r->data) + first + 1;
      r->line = rec.line;
      r->csv_state = TEXT_CSV_FIELD_START;
      r->scan_lines = 0;
      rec.n = first > 0 && rec.s[first - 1] == '\r' ? first - 1 : first;
      TRY(report_bad(r, &rec, TEXT_CSV_CUT_REASON, err));
      continue;
    }
    if (rc == INLET_EINVAL) {
      TRY(report_bad(r, &rec, r->conv.reason, err));
      continue;
    }
    if (rc < 0) {
      inlet_error_clear(err);
      if (err) *err = r->conv.err;
      return rc;
    }
    r->rows++;
  }
}

int inlet_text_reader_append(inlet_text_reader *r, inlet_batch *batch, const void *record_data,
                             size_t len, inlet_error *err) {
  if (batch->columns != r->checked_columns || !batch->columns ||
      batch->schema.n_fields != r->schema.n_fields) {
    FAIL_IF(!batch->columns || !inlet_schema_equal(&batch->schema, &r->schema), err, INLET_EINVAL,
            "text reader: batch schema differs from the reader's");
    r->checked_columns = batch->columns;
  }
  FAIL_IF((int64_t)len > r->opt.max_record_bytes, err, INLET_ELIMIT,
          "record of %zu bytes exceeds the %lld-byte limit", len,
          (long long)r->opt.max_record_bytes);
  r->records++;
  int rc = convert(r, batch, record_data, len);
  if (rc == INLET_EINVAL) {
    r->bad++;
    return inlet_fail(err, INLET_EINVAL, "%s", r->conv.reason);
  }
  if (rc < 0) {
    if (err) *err = r->conv.err;
    return rc;
  }
  r->rows++;
  return 0;
}

int inlet_text_format_parse(inlet_text_format *out, const char *name, inlet_error *err) {
  if (!strcasecmp(name, "ndjson") || !strcasecmp(name, "jsonl") || !strcasecmp(name, "json"))
    *out = INLET_TEXT_NDJSON;
  else if (!strcasecmp(name, "csv"))
    *out = INLET_TEXT_CSV;
  else if (!strcasecmp(name, "table"))
    *out = INLET_TEXT_TABLE;
  else
    return inlet_fail(err, INLET_EINVAL, "unknown format \"%s\" (ndjson, csv or table)", name);
  return 0;
}
