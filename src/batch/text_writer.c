/*
 * The text writer (include/inlet/text.h): batches out as NDJSON (one object
 * per row keyed by column name, canonical values), JSON (the same objects in
 * one array, for tools that read a whole document), CSV (RFC 4180: header
 * row, CR-free LF line ends, quoting of cells holding the delimiter, quotes
 * or line breaks, and of empty strings so they differ from null), a
 * Markdown table (GitHub's pipe tables: '|' escaped, numbers right-aligned,
 * null as NULL and an empty string as "") or an aligned table for humans.
 * The aligned table buffers at most table_align_rows rows to measure column
 * widths; later rows reuse those widths. Widths are display columns
 * (wcwidth(3) under C.UTF-8: CJK and emoji 2, combining marks 0), so cells
 * line up on a terminal; a cell is never cut inside a UTF-8 sequence.
 */
#include <locale.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <strings.h>
#include <wchar.h>

#include "batch/text_int.h"

#define FLUSH_AT (64 * 1024)

struct inlet_text_writer {
  inlet_schema schema; /* owned */
  inlet_text_writer_options opt;
  inlet_write_fn write_fn;
  void *ctx;
  inlet_buf out;  /* pending output */
  inlet_buf cell; /* scratch for one value */
  bool started;   /* header written */
  bool finished;  /* JSON: the closing bracket written */
  int64_t rows;   /* rows written so far */
  /* TABLE: buffered cells until widths are fixed. */
  inlet_buf cells;  /* cell texts back to back */
  size_t *cell_end; /* owned: end offset of each buffered cell */
  int64_t n_cells, cap_cells;
  int64_t buffered_rows;
  int32_t *width; /* owned, per column */
  bool *right;    /* owned: right-align numbers */
  bool widths_fixed;
  char **names; /* borrowed from schema */
};

int inlet_text_output_format_parse(inlet_text_format *out, const char *name, inlet_error *err) {
  if (!strcasecmp(name, "json"))
    *out = INLET_TEXT_JSON;
  else if (!strcasecmp(name, "markdown") || !strcasecmp(name, "md"))
    *out = INLET_TEXT_MARKDOWN;
  else if (!strcasecmp(name, "ndjson") || !strcasecmp(name, "jsonl") || !strcasecmp(name, "csv") ||
           !strcasecmp(name, "table"))
    return inlet_text_format_parse(out, name, err);
  else
    return inlet_fail(err, INLET_EINVAL,
                      "unknown format \"%s\" (table, csv, ndjson, json or markdown)", name);
  return 0;
}

static int file_write(void *ctx, const void *data, size_t len, inlet_error *err) {
  FILE *f = ctx;
  if (len && fwrite(data, 1, len, f) != len) return inlet_fail(err, INLET_EIO, "write failed");
  return 0;
}

int inlet_text_writer_new(inlet_text_writer **out, const inlet_schema *schema,
                          const inlet_text_writer_options *options, inlet_write_fn write_fn,
                          void *ctx, inlet_error *err) {
  *out = NULL;
  inlet_text_writer_options def = INLET_TEXT_WRITER_OPTIONS_INIT;
  const inlet_text_writer_options *o = options ? options : &def;
  FAIL_IF(o->version < 1 || o->version > INLET_TEXT_WRITER_OPTIONS_VERSION, err, INLET_EINVAL,
          "text writer: unknown options version %d", o->version);
  FAIL_IF(o->format != INLET_TEXT_NDJSON && o->format != INLET_TEXT_CSV &&
              o->format != INLET_TEXT_TABLE && o->format != INLET_TEXT_JSON &&
              o->format != INLET_TEXT_MARKDOWN,
          err, INLET_EINVAL, "text writer: unknown format");
  inlet_text_writer *w = inlet_calloc(1, sizeof *w);
  if (!w) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  if (o->version == 1) /* a version-1 struct ends before table_terminal_width */
    memcpy(&w->opt, o, offsetof(inlet_text_writer_options, table_terminal_width));
  else if (o->version == 2) /* and a version-2 one before rows_only */
    memcpy(&w->opt, o, offsetof(inlet_text_writer_options, rows_only));
  else
    w->opt = *o;
  if (w->opt.rows_only && w->opt.format == INLET_TEXT_TABLE) {
    inlet_free(w);
    return inlet_fail(
        err, INLET_EINVAL,
        "text writer: rows_only is not for TABLE (its widths come from earlier rows)");
  }
  if (w->opt.table_align_rows <= 0) w->opt.table_align_rows = 1000;
  if (w->opt.table_max_width < 4) w->opt.table_max_width = 48;
  w->write_fn = write_fn;
  w->ctx = ctx;
  int rc = inlet_schema_copy(&w->schema, schema, err);
  if (rc == 0) {
    size_t n = (size_t)(schema->n_fields ? schema->n_fields : 1);
    w->width = inlet_calloc(n, sizeof *w->width);
    w->right = inlet_calloc(n, sizeof *w->right);
    if (!w->width || !w->right) rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
  }
  if (rc < 0) {
    inlet_text_writer_free(w);
    return rc;
  }
  for (int32_t i = 0; i < schema->n_fields; i++) {
    inlet_type_id id = schema->fields[i].type.id;
    w->right[i] = (id >= INLET_TYPE_INT8 && id <= INLET_TYPE_DOUBLE) || id == INLET_TYPE_DECIMAL;
  }
  *out = w;
  return 0;
}

int inlet_text_writer_new_file(inlet_text_writer **out, const inlet_schema *schema,
                               const inlet_text_writer_options *options, FILE *f,
                               inlet_error *err) {
  return inlet_text_writer_new(out, schema, options, file_write, f, err);
}

void inlet_text_writer_free(inlet_text_writer *w) {
  if (!w) return;
  inlet_schema_reset(&w->schema);
  inlet_buf_reset(&w->out);
  inlet_buf_reset(&w->cell);
  inlet_buf_reset(&w->cells);
  inlet_free(w->cell_end);
  inlet_free(w->width);
  inlet_free(w->right);
  inlet_free(w);
}

static int flush(inlet_text_writer *w, inlet_error *err) {
  if (inlet_buf_status(&w->out) < 0) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  if (w->out.len == 0) return 0;
  int rc = w->write_fn(w->ctx, w->out.data, w->out.len, err);
  inlet_buf_clear(&w->out);
  return rc;
}

static void csv_cell(inlet_buf *b, const char *s, size_t n, bool is_null) {
  if (is_null) return;
  bool quote = n == 0;
  for (size_t i = 0; i < n && !quote; i++)
    quote = s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r';
  if (!quote) {
    inlet_buf_append(b, s, n);
    return;
  }
  inlet_buf_push(b, '"');
  size_t run = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] != '"') continue;
    inlet_buf_append(b, s + run, i + 1 - run);
    inlet_buf_push(b, '"');
    run = i + 1;
  }
  inlet_buf_append(b, s + run, n - run);
  inlet_buf_push(b, '"');
}

/* ---- markdown ------------------------------------------------------------- */

/* A pipe-table cell: '|' and '\\' escaped, line breaks and other control
 * characters as spaces (a cell cannot span lines). */
static void md_cell(inlet_buf *b, const char *s, size_t n) {
  inlet_buf_push(b, ' ');
  for (size_t i = 0; i < n; i++) {
    unsigned char ch = (unsigned char)s[i];
    if (ch == '|' || ch == '\\') inlet_buf_push(b, '\\');
    inlet_buf_push(b, ch < 0x20 ? ' ' : ch);
  }
  inlet_buf_append(b, " |", 2);
}

static void md_header(inlet_text_writer *w) {
  inlet_buf_push(&w->out, '|');
  for (int32_t i = 0; i < w->schema.n_fields; i++) {
    const char *nm = w->schema.fields[i].name;
    md_cell(&w->out, nm, strlen(nm));
  }
  inlet_buf_append(&w->out, "\n|", 2);
  for (int32_t i = 0; i < w->schema.n_fields; i++)
    inlet_buf_puts(&w->out, w->right[i] ? " ---: |" : " --- |");
  inlet_buf_push(&w->out, '\n');
}

/* ---- table ---------------------------------------------------------------- */

/* The C.UTF-8 locale, made once: widths must not depend on the locale the
 * calling program did or did not set. */
static pthread_once_t utf8_once = PTHREAD_ONCE_INIT;
static locale_t utf8_locale;
static void utf8_locale_init(void) {
  utf8_locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}

/* Terminal columns of code point @p cp: glibc's wcwidth follows Unicode
 * (EastAsianWidth W/F and emoji presentation 2, combining marks and
 * zero-width characters 0). Control characters are printed as spaces and
 * what wcwidth does not know (or a system without C.UTF-8) counts 1. */
static int cp_width(uint32_t cp) {
  if (cp < 0x300) return 1; /* nothing below the combining marks is wide or zero */
  pthread_once(&utf8_once, utf8_locale_init);
  if (utf8_locale == (locale_t)0) return 1;
  locale_t old = uselocale(utf8_locale);
  int w = wcwidth((wchar_t)cp);
  uselocale(old);
  return w < 0 ? 1 : w;
}

/* The length of the UTF-8 sequence at s[i] and its code point; a malformed
 * or cut sequence is one byte of width 1 (U+FFFD). */
static size_t utf8_next(const char *s, size_t n, size_t i, uint32_t *cp) {
  unsigned char c = (unsigned char)s[i];
  size_t len = c < 0x80             ? 1
               : (c & 0xe0) == 0xc0 ? 2
               : (c & 0xf0) == 0xe0 ? 3
               : (c & 0xf8) == 0xf0 ? 4
                                    : 0;
  if (len == 1) {
    *cp = c;
    return 1;
  }
  if (len == 0 || i + len > n) {
    *cp = 0xfffd;
    return 1;
  }
  uint32_t v = c & (0x7fu >> len);
  for (size_t k = 1; k < len; k++) {
    unsigned char d = (unsigned char)s[i + k];
    if ((d & 0xc0) != 0x80) {
      *cp = 0xfffd;
      return 1;
    }
    v = v << 6 | (d & 0x3fu);
  }
  *cp = v;
  return len;
}

/* Display width in terminal columns. */
static int32_t display_width(const char *s, size_t n) {
  int32_t w = 0;
  for (size_t i = 0; i < n;) {
    uint32_t cp;
    i += utf8_next(s, n, i, &cp);
    w += cp_width(cp);
  }
  return w;
}

/* Appends @p s cut to @p maxw columns (@p mark, "..." or "…", shows the cut;
 * whole code points only, with the combining marks that follow them) and
 * padded to @p width; control characters are shown as spaces so rows stay on
 * one line. */
static void table_cell(inlet_buf *b, const char *s, size_t n, int32_t width, int32_t maxw,
                       bool right, const char *mark) {
  int32_t dw = display_width(s, n);
  size_t take = n;
  bool cut = false;
  if (dw > maxw) {
    int32_t markw = display_width(mark, strlen(mark)), acc = 0;
    uint32_t cp;
    for (take = 0; take < n;) {
      size_t len = utf8_next(s, n, take, &cp);
      int cw = cp_width(cp);
      if (acc + cw > maxw - markw) break;
      acc += cw;
      take += len;
    }
    dw = acc + markw;
    cut = true;
  }
  if (right)
    for (int32_t i = dw; i < width; i++)
      inlet_buf_push(b, ' ');
  for (size_t i = 0; i < take; i++) {
    unsigned char ch = (unsigned char)s[i];
    inlet_buf_push(b, ch < 0x20 ? ' ' : ch);
  }
  if (cut) inlet_buf_puts(b, mark);
  if (!right)
    for (int32_t i = dw; i < width; i++)
      inlet_buf_push(b, ' ');
}

/* The widest a cell of column @p i may be. */
static int32_t cell_max(const inlet_text_writer *w, int32_t i) {
  return w->opt.table_terminal_width > 0 ? w->width[i] : w->opt.table_max_width;
}

static const char *cut_mark(const inlet_text_writer *w) {
  return w->opt.table_terminal_width > 0 ? "\xe2\x80\xa6" : "...";
}

static void table_rule(inlet_text_writer *w) {
  for (int32_t i = 0; i < w->schema.n_fields; i++) {
    inlet_buf_puts(&w->out, i ? "-+-" : "");
    for (int32_t k = 0; k < w->width[i]; k++)
      inlet_buf_push(&w->out, '-');
  }
  inlet_buf_push(&w->out, '\n');
}

static void table_row(inlet_text_writer *w, const char *const *s, const size_t *n, bool header) {
  for (int32_t i = 0; i < w->schema.n_fields; i++) {
    if (i) inlet_buf_append(&w->out, " | ", 3);
    table_cell(&w->out, s[i], n[i], w->width[i], cell_max(w, i), !header && w->right[i],
               cut_mark(w));
  }
  /* Trailing spaces carry no information. */
  while (w->out.len && w->out.data[w->out.len - 1] == ' ')
    w->out.len--;
  inlet_buf_push(&w->out, '\n');
}

/* Terminal: while a row is wider than the terminal, the widest column that
 * is still above its floor (6 columns, or its header if wider, or its
 * natural width if narrower) loses a column. If every column is at its floor
 * the row wraps. */
static void fit_widths(inlet_text_writer *w) {
  int32_t nf = w->schema.n_fields;
  int64_t total = 3 * (int64_t)(nf - 1);
  for (int32_t i = 0; i < nf; i++)
    total += w->width[i];
  while (total > w->opt.table_terminal_width) {
    int32_t best = -1;
    for (int32_t i = 0; i < nf; i++) {
      const char *nm = w->schema.fields[i].name;
      int32_t floor = display_width(nm, strlen(nm));
      if (floor < 6) floor = 6;
      if (w->width[i] > floor && (best < 0 || w->width[i] > w->width[best])) best = i;
    }
    if (best < 0) break;
    w->width[best]--;
    total--;
  }
}

static int fix_widths(inlet_text_writer *w, inlet_error *err) {
  int32_t nf = w->schema.n_fields;
  int32_t cap =
      w->opt.table_terminal_width > 0 ? w->opt.table_terminal_width : w->opt.table_max_width;
  for (int32_t i = 0; i < nf; i++) {
    const char *nm = w->schema.fields[i].name;
    int32_t dw = display_width(nm, strlen(nm));
    w->width[i] = dw < cap ? dw : cap;
  }
  for (int64_t c = 0; c < w->n_cells; c++) {
    size_t lo = c ? w->cell_end[c - 1] : 0;
    int32_t dw = display_width((const char *)w->cells.data + lo, w->cell_end[c] - lo);
    if (dw > cap) dw = cap;
    if (dw > w->width[c % nf]) w->width[c % nf] = dw;
  }
  if (w->opt.table_terminal_width > 0) fit_widths(w);
  w->widths_fixed = true;
  if (w->opt.header) {
    const char **s = inlet_malloc(sizeof *s * (size_t)nf);
    size_t *n = inlet_malloc(sizeof *n * (size_t)nf);
    if (!s || !n) {
      inlet_free(s);
      inlet_free(n);
      return inlet_fail(err, INLET_ENOMEM, "out of memory");
    }
    for (int32_t i = 0; i < nf; i++) {
      s[i] = w->schema.fields[i].name;
      n[i] = strlen(s[i]);
    }
    table_row(w, s, n, true);
    table_rule(w);
    inlet_free(s);
    inlet_free(n);
  }
  /* Replay the buffered rows. */
  const char **s = inlet_malloc(sizeof *s * (size_t)nf);
  size_t *n = inlet_malloc(sizeof *n * (size_t)nf);
  if (!s || !n) {
    inlet_free(s);
    inlet_free(n);
    return inlet_fail(err, INLET_ENOMEM, "out of memory");
  }
  for (int64_t r = 0; r < w->buffered_rows; r++) {
    for (int32_t i = 0; i < nf; i++) {
      int64_t c = r * nf + i;
      size_t lo = c ? w->cell_end[c - 1] : 0;
      s[i] = (const char *)w->cells.data + lo;
      n[i] = w->cell_end[c] - lo;
    }
    table_row(w, s, n, false);
    if (w->out.len >= FLUSH_AT) {
      int rc = flush(w, err);
      if (rc < 0) {
        inlet_free(s);
        inlet_free(n);
        return rc;
      }
    }
  }
  inlet_free(s);
  inlet_free(n);
  inlet_buf_reset(&w->cells);
  inlet_free(w->cell_end);
  w->cell_end = NULL;
  w->n_cells = w->cap_cells = w->buffered_rows = 0;
  return flush(w, err);
}

static int table_add_cell(inlet_text_writer *w, const char *s, size_t n, inlet_error *err) {
  if (w->n_cells == w->cap_cells) {
    int64_t nc = w->cap_cells ? w->cap_cells * 2 : 256;
    size_t *p = inlet_realloc(w->cell_end, sizeof *p * (size_t)nc);
    if (!p) return inlet_fail(err, INLET_ENOMEM, "out of memory");
    w->cell_end = p;
    w->cap_cells = nc;
  }
  /* Only the displayed prefix is kept, bounding the buffer per cell. */
  size_t keep = n;
  int32_t cap =
      w->opt.table_terminal_width > 0 ? w->opt.table_terminal_width : w->opt.table_max_width;
  size_t limit = (size_t)cap * 8 + 16;
  if (keep > limit) keep = limit;
  inlet_buf_append(&w->cells, s, keep);
  if (inlet_buf_status(&w->cells) < 0) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  w->cell_end[w->n_cells++] = w->cells.len;
  return 0;
}

/* ---- rows ------------------------------------------------------------------ */

static int write_header(inlet_text_writer *w, inlet_error *err) {
  w->started = true;
  if (w->opt.format == INLET_TEXT_JSON) inlet_buf_push(&w->out, '[');
  if (w->opt.format == INLET_TEXT_MARKDOWN) md_header(w);
  if (w->opt.format != INLET_TEXT_CSV || !w->opt.header)
    return inlet_buf_status(&w->out) < 0 ? inlet_fail(err, INLET_ENOMEM, "out of memory") : 0;
  for (int32_t i = 0; i < w->schema.n_fields; i++) {
    if (i) inlet_buf_push(&w->out, ',');
    const char *nm = w->schema.fields[i].name;
    csv_cell(&w->out, nm, strlen(nm), false);
  }
  inlet_buf_push(&w->out, '\n');
  return inlet_buf_status(&w->out) < 0 ? inlet_fail(err, INLET_ENOMEM, "out of memory") : 0;
}

int inlet_text_writer_write(inlet_text_writer *w, const inlet_batch *batch, inlet_error *err) {
  return inlet_text_writer_write_rows(w, batch, 0, batch->num_rows, err);
}

int inlet_text_writer_write_rows(inlet_text_writer *w, const inlet_batch *batch, int64_t first,
                                 int64_t count, inlet_error *err) {
  FAIL_IF(batch->schema.n_fields != w->schema.n_fields, err, INLET_EINVAL,
          "text writer: batch has %d columns, writer %d", (int)batch->schema.n_fields,
          (int)w->schema.n_fields);
  FAIL_IF(first < 0 || count < 0 || first > batch->num_rows || count > batch->num_rows - first, err,
          INLET_EINVAL, "text writer: rows %lld..%lld outside the batch's %lld", (long long)first,
          (long long)(first + count), (long long)batch->num_rows);
  if (!w->started && !w->opt.rows_only) TRY(write_header(w, err));
  /* A part's rows are joined among themselves only: write_part adds the separator before it. */
  if (w->opt.rows_only) w->rows = 0;
  int32_t nf = w->schema.n_fields;
  for (int64_t r = first; r < first + count; r++) {
    if (w->opt.format == INLET_TEXT_JSON) inlet_buf_puts(&w->out, w->rows ? ",\n" : "\n");
    if (w->opt.format == INLET_TEXT_NDJSON || w->opt.format == INLET_TEXT_JSON)
      inlet_buf_push(&w->out, '{');
    if (w->opt.format == INLET_TEXT_MARKDOWN) inlet_buf_push(&w->out, '|');
    w->rows++;
    for (int32_t i = 0; i < nf; i++) {
      const inlet_field *f = &batch->schema.fields[i];
      const inlet_array *a = &batch->columns[i];
      switch (w->opt.format) {
      case INLET_TEXT_NDJSON:
      case INLET_TEXT_JSON:
        if (i) inlet_buf_push(&w->out, ',');
        text_json_quote(&w->out, f->name, strlen(f->name));
        inlet_buf_push(&w->out, ':');
        if (text_format_value(&w->out, a, f, r, true, 0) < 0)
          return inlet_fail(err, INLET_ENOMEM, "cannot format column \"%s\"", f->name);
        break;
      case INLET_TEXT_CSV:
        if (i) inlet_buf_push(&w->out, ',');
        inlet_buf_clear(&w->cell);
        if (text_format_value(&w->cell, a, f, r, false, 0) < 0)
          return inlet_fail(err, INLET_ENOMEM, "cannot format column \"%s\"", f->name);
        csv_cell(&w->out, (const char *)w->cell.data, w->cell.len, !inlet_array_is_valid(a, r));
        break;
      case INLET_TEXT_MARKDOWN:
        inlet_buf_clear(&w->cell);
        if (!inlet_array_is_valid(a, r))
          inlet_buf_puts(&w->cell, "NULL");
        else if (text_format_value(&w->cell, a, f, r, false, 0) < 0)
          return inlet_fail(err, INLET_ENOMEM, "cannot format column \"%s\"", f->name);
        else if (w->cell.len == 0)
          inlet_buf_puts(&w->cell, "\"\"");
        md_cell(&w->out, (const char *)w->cell.data, w->cell.len);
        break;
      default: {
        inlet_buf_clear(&w->cell);
        bool valid = inlet_array_is_valid(a, r);
        if (valid && text_format_value(&w->cell, a, f, r, false, 0) < 0)
          return inlet_fail(err, INLET_ENOMEM, "cannot format column \"%s\"", f->name);
        /* On a terminal null is U+2205, so that it differs from the string "NULL". */
        const char *null = w->opt.table_terminal_width > 0 ? "\xe2\x88\x85" : "NULL";
        const char *s = valid ? (const char *)w->cell.data : null;
        size_t n = valid ? w->cell.len : strlen(null);
        if (!s) s = "";
        if (!w->widths_fixed) {
          TRY(table_add_cell(w, s, n, err));
        } else {
          if (i) inlet_buf_append(&w->out, " | ", 3);
          table_cell(&w->out, s, n, w->width[i], cell_max(w, i), w->right[i], cut_mark(w));
        }
      }
      }
    }
    if (w->opt.format == INLET_TEXT_NDJSON) {
      inlet_buf_append(&w->out, "}\n", 2);
    } else if (w->opt.format == INLET_TEXT_JSON) {
      inlet_buf_push(&w->out, '}');
    } else if (w->opt.format == INLET_TEXT_CSV || w->opt.format == INLET_TEXT_MARKDOWN) {
      inlet_buf_push(&w->out, '\n');
    } else if (w->widths_fixed) {
      while (w->out.len && w->out.data[w->out.len - 1] == ' ')
        w->out.len--;
      inlet_buf_push(&w->out, '\n');
    } else if (++w->buffered_rows >= w->opt.table_align_rows) {
      TRY(fix_widths(w, err));
    }
    if (w->out.len >= FLUSH_AT) TRY(flush(w, err));
  }
  return flush(w, err);
}

int inlet_text_writer_write_part(inlet_text_writer *w, const void *data, size_t len, int64_t rows,
                                 inlet_error *err) {
  FAIL_IF(w->opt.rows_only || w->opt.format == INLET_TEXT_TABLE || rows < 0, err, INLET_EINVAL,
          "text writer: parts are written by a whole-output writer, not TABLE");
  if (!w->started) TRY(write_header(w, err));
  if (rows == 0) return flush(w, err);
  /* A part starts as if its rows were the first ("\n{"): the rows before it need the comma. */
  if (w->opt.format == INLET_TEXT_JSON && w->rows) inlet_buf_push(&w->out, ',');
  TRY(flush(w, err));
  w->rows += rows;
  return len ? w->write_fn(w->ctx, data, len, err) : 0;
}

int inlet_text_writer_finish(inlet_text_writer *w, inlet_error *err) {
  if (w->opt.rows_only) return flush(w, err);
  if (!w->started) TRY(write_header(w, err));
  if (w->opt.format == INLET_TEXT_TABLE && !w->widths_fixed) TRY(fix_widths(w, err));
  if (w->opt.format == INLET_TEXT_JSON && !w->finished)
    inlet_buf_puts(&w->out, w->rows ? "\n]\n" : "]\n");
  w->finished = true;
  return flush(w, err);
}
