/*
 * The Parquet reader (include/inlet/parquet.h, reading half): opens a file,
 * reads and validates its footer (Parquet README "File Format",
 * parquet.thrift FileMetaData), maps the schema to inlet types
 * (pq_schema.h for flat schemas, nested.h for groups, lists and maps) and
 * decodes one row group at a time, reading each projected column chunk
 * with one positioned read into a reused buffer, so memory is bounded by
 * the largest column chunk requested, never by the file size.
 *
 * Validation done here, before any page is touched: every column chunk's
 * byte range lies between the leading magic and the footer, chunks are
 * local (no file_path) and unencrypted, each chunk's num_values matches its
 * row group, and the sum of row group rows fits int64. Pages are validated
 * by column_reader.c.
 */
#include <stdio.h>

#include "parquet/pq_reader.h"
#include "parquet/reader_int.h"
#include "util/pool.h"
#include "util/util.h"

static int reader_fail(const inlet_parquet_reader *r, inlet_error *err, int code, int32_t rg,
                       int32_t col, const char *fmt, ...) INLET_PRINTF(6, 7);
static int reader_fail(const inlet_parquet_reader *r, inlet_error *err, int code, int32_t rg,
                       int32_t col, const char *fmt, ...) {
  char msg[INLET_ERROR_MESSAGE_SIZE];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (col >= 0)
    return inlet_fail(err, code, "%s column \"%s\" row group %d: %s", r->name,
                      r->sd.columns[col].path, rg, msg);
  return inlet_fail(err, code, "%s row group %d: %s", r->name, rg, msg);
}

/* Byte range of a column chunk: from its first page (the dictionary page
 * when there is one) for total_compressed_size bytes. A dictionary offset of
 * 0 is a known writer quirk meaning "absent"; such chunks start at
 * data_page_offset and any dictionary page is found by parsing from there. */
static void chunk_range(const pq_column_meta *cm, int64_t *start, int64_t *len) {
  int64_t s = cm->data_page_offset;
  if (cm->has_dictionary_page_offset && cm->dictionary_page_offset > 0 &&
      cm->dictionary_page_offset < s)
    s = cm->dictionary_page_offset;
  *start = s;
  *len = cm->total_compressed_size;
}

/* parquet-mr before 1.2.9 left the dictionary page header out of
 * total_compressed_size (PARQUET-816, IMPALA-694): such chunks may run up to
 * a header's size past their stated end. */
#define PARQUET_816_SLACK 100
static bool parquet_816_writer(const char *created_by) {
  if (!created_by || strncmp(created_by, "parquet-mr", 10) != 0) return false;
  const char *v = strstr(created_by, "version ");
  int a = 0, b = 0, c = 0;
  if (!v || sscanf(v + 8, "%d.%d.%d", &a, &b, &c) < 2) return true;
  return a < 1 || (a == 1 && (b < 2 || (b == 2 && c < 9)));
}

static int validate_row_groups(inlet_parquet_reader *r, inlet_error *err) {
  int64_t total = 0;
  for (int32_t g = 0; g < r->meta.n_row_groups; g++) {
    const pq_row_group *rg = &r->meta.row_groups[g];
    if (rg->num_rows < 0 || inlet_add_overflow_i64(total, rg->num_rows, &total))
      return reader_fail(r, err, INLET_ECORRUPT, g, -1, "bad row count %lld",
                         (long long)rg->num_rows);
    if (rg->n_columns != r->sd.n_columns)
      return reader_fail(r, err, INLET_ECORRUPT, g, -1, "%d column chunks for %d columns",
                         rg->n_columns, r->sd.n_columns);
    for (int32_t c = 0; c < rg->n_columns; c++) {
      const pq_column_chunk *cc = &rg->columns[c];
      const pq_column_meta *cm = &cc->meta_data;
      if (cc->has_crypto_metadata || cc->has_encrypted_column_metadata)
        return reader_fail(r, err, INLET_EUNSUPPORTED, g, c, "encrypted Parquet is not supported");
      if (cc->file_path)
        return reader_fail(r, err, INLET_EUNSUPPORTED, g, c,
                           "column chunk stored in another file (\"%s\") is not supported",
                           cc->file_path);
      if (!cc->has_meta_data)
        return reader_fail(r, err, INLET_ECORRUPT, g, c, "column chunk has no metadata");
      if (rg->num_rows == 0 && cm->num_values == 0) continue; /* never read */
      int64_t start, len, end;
      chunk_range(cm, &start, &len);
      if (start < 4 || len < 0 || inlet_add_overflow_i64(start, len, &end) || end > r->data_end)
        return reader_fail(r, err, INLET_ECORRUPT, g, c,
                           "column chunk bytes [%lld, +%lld) lie outside the data area "
                           "[4, %lld) of the file",
                           (long long)start, (long long)len, (long long)r->data_end);
      if (cm->has_dictionary_page_offset && cm->dictionary_page_offset > 0 &&
          (cm->dictionary_page_offset >= r->data_end || cm->dictionary_page_offset < 4))
        return reader_fail(r, err, INLET_ECORRUPT, g, c,
                           "dictionary page offset %lld outside the file",
                           (long long)cm->dictionary_page_offset);
    }
  }
  r->num_rows = total;
  return 0;
}

static int set_projection(inlet_parquet_reader *r, const int32_t *indices, int32_t n,
                          inlet_error *err) {
  int32_t nf = r->sd.schema.n_fields;
  bool all = n == 0;
  if (all) n = nf;
  int32_t *proj = inlet_calloc((size_t)(n > 0 ? n : 1), sizeof *proj);
  if (!proj) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  inlet_schema ps;
  inlet_schema_init(&ps);
  int rc = 0;
  for (int32_t i = 0; i < n; i++) {
    proj[i] = all ? i : indices[i];
    rc = inlet_schema_add_field(&ps, &r->sd.schema.fields[proj[i]], err);
    if (rc < 0) goto done;
  }
  inlet_free(r->proj);
  inlet_schema_reset(&r->proj_schema);
  r->proj = proj;
  r->n_proj = n;
  r->proj_schema = ps;
  return 0;
done:
  inlet_free(proj);
  inlet_schema_reset(&ps);
  return rc;
}

int inlet_parquet_reader_open(inlet_parquet_reader **out, const char *path,
                              const inlet_parquet_reader_options *options, inlet_error *err) {
  if (!out) return inlet_fail(err, INLET_EINVAL, "NULL reader out-parameter");
  *out = NULL;
  if (!path) return inlet_fail(err, INLET_EINVAL, "NULL path");
  inlet_rfile *f = NULL;
  TRY(inlet_rfile_open_path(&f, path, err));
  return pq_reader_open_rfile(out, f, path, options, err);
}

int pq_reader_open_file(inlet_parquet_reader **out, inlet_rfile *file, const char *name,
                        const inlet_parquet_reader_options *options, inlet_error *err) {
  return pq_reader_open_rfile(out, file, name, options, err);
}

int pq_reader_open_storage(inlet_parquet_reader **out, inlet_storage *st, const char *path,
                           int64_t size, const inlet_parquet_reader_options *options,
                           inlet_error *err) {
  if (!out) return inlet_fail(err, INLET_EINVAL, "NULL reader out-parameter");
  *out = NULL;
  if (!st || !path) return inlet_fail(err, INLET_EINVAL, "NULL storage or path");
  size_t rl = strlen(st->root), pl = strlen(path);
  char *name = inlet_malloc(rl + pl + 2);
  if (!name) return inlet_fail(err, INLET_ENOMEM, "out of memory opening %s", path);
  memcpy(name, st->root, rl);
  name[rl] = '/';
  memcpy(name + rl + 1, path, pl + 1);
  inlet_rfile *f = NULL;
  /* The size from the log spares object stores a HEAD request. */
  int rc = size >= 0 ? st->ops->open_read_sized(st, path, size, &f, err)
                     : st->ops->open_read(st, path, &f, err);
  if (rc == 0)
    rc = pq_reader_open_rfile(out, f, name, options, err);
  else
    inlet_error_prefix(err, "%s", name);
  inlet_free(name);
  return rc;
}

int pq_reader_open_rfile(inlet_parquet_reader **out, inlet_rfile *file, const char *path,
                         const inlet_parquet_reader_options *options, inlet_error *err) {
  int rc = 0;
  *out = NULL;
  inlet_parquet_reader_options defaults = INLET_PARQUET_READER_OPTIONS_INIT;
  if (options && options->version != INLET_PARQUET_READER_OPTIONS_VERSION) {
    inlet_rfile_close(file);
    return inlet_fail(err, INLET_EINVAL, "unknown reader options version %d", options->version);
  }
  inlet_parquet_reader *r = inlet_calloc(1, sizeof *r);
  if (!r) {
    inlet_rfile_close(file);
    return inlet_fail(err, INLET_ENOMEM, "out of memory opening %s", path);
  }
  r->file = file;
  r->opts = options ? *options : defaults;
  if (r->opts.max_column_chunk_bytes <= 0)
    r->opts.max_column_chunk_bytes = defaults.max_column_chunk_bytes;
  if (r->opts.max_footer_bytes <= 0) r->opts.max_footer_bytes = defaults.max_footer_bytes;
  if (r->opts.max_decoded_bytes <= 0) r->opts.max_decoded_bytes = defaults.max_decoded_bytes;
  pq_file_metadata_init(&r->meta);
  pq_schema_desc_init(&r->sd);
  inlet_schema_init(&r->proj_schema);
  pq_column_reader_init(&r->cr);
  pq_nested_init(&r->nested);
  r->name = inlet_strdup(path);
  FAIL_GOTO(!r->name, err, INLET_ENOMEM, "out of memory opening %s", path);

  TRY_GOTO(pq_footer_read_at(&r->meta, r->file, r->opts.max_footer_bytes, &r->data_end, err));
  FAIL_GOTO(r->data_end < 4, err, INLET_ECORRUPT, "%s: footer length %lld exceeds the file",
            r->name, (long long)(r->file->size - 8 - r->data_end));
  rc = pq_schema_from_parquet(&r->sd, r->meta.schema, r->meta.n_schema, r->name, err);
  if (rc == INLET_EUNSUPPORTED) {
    /* Not flat: map the nested schema (which reports anything it cannot
     * represent, including what made the flat mapping give up). */
    TRY_GOTO(pq_schema_build_tree(&r->sd, r->meta.schema, r->meta.n_schema, r->name, err));
    TRY_GOTO(pq_nested_build(&r->nested, &r->sd, r->meta.schema, r->meta.n_schema, r->name, err));
    r->nested_mode = true;
    rc = 0;
  }
  if (rc < 0) goto done;
  TRY_GOTO(validate_row_groups(r, err));
  r->parquet_816 = parquet_816_writer(r->meta.created_by);

  r->field_column = inlet_calloc((size_t)(r->sd.schema.n_fields > 0 ? r->sd.schema.n_fields : 1),
                                 sizeof *r->field_column);
  FAIL_GOTO(!r->field_column, err, INLET_ENOMEM, "out of memory opening %s", path);
  for (int32_t f = 0; f < r->sd.schema.n_fields; f++)
    r->field_column[f] = -1;
  for (int32_t c = 0; c < r->sd.n_columns && !r->nested_mode; c++) {
    int32_t f = r->sd.columns[c].field_index;
    FAIL_GOTO(f < 0 || f >= r->sd.schema.n_fields, err, INLET_EINTERNAL,
              "%s: leaf %d maps to field %d", r->name, c, f);
    FAIL_GOTO(r->field_column[f] >= 0, err, INLET_EUNSUPPORTED,
              "%s: nested column \"%s\" is not supported", r->name, r->sd.schema.fields[f].name);
    r->field_column[f] = c;
  }
  for (int32_t f = 0; f < r->sd.schema.n_fields && !r->nested_mode; f++)
    FAIL_GOTO(r->field_column[f] < 0, err, INLET_EUNSUPPORTED,
              "%s: column \"%s\" has no leaf (nested group) and is not supported", r->name,
              r->sd.schema.fields[f].name);
  TRY_GOTO(set_projection(r, NULL, 0, err));
  *out = r;
  return 0;
done:
  inlet_parquet_reader_free(r);
  return rc;
}

int pq_reader_clone(inlet_parquet_reader **out, const inlet_parquet_reader *src, inlet_rfile *file,
                    inlet_error *err) {
  *out = NULL;
  inlet_parquet_reader *r = inlet_calloc(1, sizeof *r);
  char *name = inlet_strdup(src->name);
  if (!r || !name) {
    inlet_free(r);
    inlet_free(name);
    inlet_rfile_close(file);
    return inlet_fail(err, INLET_ENOMEM, "out of memory opening %s", src->name);
  }
  r->file = file;
  r->name = name;
  r->opts = src->opts;
  r->data_end = src->data_end;
  r->num_rows = src->num_rows;
  r->parquet_816 = src->parquet_816;
  r->meta = src->meta;
  r->sd = src->sd;
  r->field_column = src->field_column;
  r->nested_mode = src->nested_mode;
  r->nested = src->nested;
  r->borrowed = true;
  inlet_schema_init(&r->proj_schema);
  pq_column_reader_init(&r->cr);
  int rc = set_projection(r, NULL, 0, err);
  if (rc < 0) {
    inlet_parquet_reader_free(r);
    return rc;
  }
  *out = r;
  return 0;
}

void inlet_parquet_reader_free(inlet_parquet_reader *r) {
  if (!r) return;
  inlet_rfile_close(r->file);
  if (!r->borrowed) {
    pq_file_metadata_reset(&r->meta);
    pq_schema_desc_reset(&r->sd);
    pq_nested_reset(&r->nested);
    inlet_free(r->field_column);
  }
  inlet_schema_reset(&r->proj_schema);
  pq_column_reader_reset(&r->cr);
  inlet_free(r->proj);
  inlet_free(r->chunk);
  for (int32_t c = 0; c < r->n_offsets; c++)
    pq_page_index_reset(&r->offsets[c]);
  inlet_free(r->offsets);
  inlet_free(r->offsets_rg);
  inlet_free(r->name);
  inlet_free(r);
}

void inlet_parquet_reader_get_stats(const inlet_parquet_reader *r, inlet_parquet_read_stats *out) {
  memset(out, 0, sizeof *out);
  if (!r) return;
  out->data_pages_decoded = r->cr.pages_decoded;
  out->data_pages_skipped = r->cr.pages_skipped;
  out->column_bytes_read = r->bytes_read;
}

const inlet_schema *inlet_parquet_reader_schema(const inlet_parquet_reader *r) {
  return &r->sd.schema;
}

int64_t inlet_parquet_reader_num_rows(const inlet_parquet_reader *r) {
  return r->num_rows;
}

bool pq_reader_nested(const inlet_parquet_reader *r) {
  return r && r->nested_mode;
}

int32_t inlet_parquet_reader_num_row_groups(const inlet_parquet_reader *r) {
  return r->meta.n_row_groups;
}

int64_t inlet_parquet_reader_row_group_rows(const inlet_parquet_reader *r, int32_t rg) {
  if (rg < 0 || rg >= r->meta.n_row_groups) return -1;
  return r->meta.row_groups[rg].num_rows;
}

int inlet_parquet_reader_project(inlet_parquet_reader *r, const int32_t *indices, int32_t n,
                                 inlet_error *err) {
  if (n < 0 || (n > 0 && !indices))
    return inlet_fail(err, INLET_EINVAL, "bad projection (%d indices)", n);
  for (int32_t i = 0; i < n; i++) {
    if (indices[i] < 0 || indices[i] >= r->sd.schema.n_fields)
      return inlet_fail(err, INLET_EINVAL, "%s: projected field %d out of range (%d fields)",
                        r->name, indices[i], r->sd.schema.n_fields);
    for (int32_t j = 0; j < i; j++)
      if (indices[j] == indices[i])
        return inlet_fail(err, INLET_EINVAL, "%s: field %d projected twice", r->name, indices[i]);
  }
  return set_projection(r, indices, n, err);
}

static int prepare_batch(inlet_parquet_reader *r, inlet_batch *out, inlet_error *err) {
  if (out->columns && inlet_schema_equal(&out->schema, &r->proj_schema)) {
    inlet_batch_clear(out);
    return 0;
  }
  inlet_batch_reset(out);
  return inlet_batch_init(out, &r->proj_schema, err);
}

/* Reads @p len bytes at @p start (inside column chunk @p c of row group
 * @p rg, checked at open or against its offset index) into r->chunk. */
static int read_span(inlet_parquet_reader *r, int32_t rg, int32_t c, int64_t start, int64_t len,
                     inlet_error *err) {
  if ((size_t)len > r->chunk_cap) {
    uint8_t *p = inlet_realloc(r->chunk, (size_t)len);
    if (!p)
      return inlet_fail(err, INLET_ENOMEM, "%s: out of memory for a %lld-byte column chunk",
                        r->name, (long long)len);
    r->chunk = p;
    r->chunk_cap = (size_t)len;
  }
  if (len > 0) {
    int rc = inlet_rfile_read_at(r->file, start, r->chunk, (size_t)len, err);
    if (rc < 0)
      return reader_fail(r, err, rc, rg, c, "reading %lld bytes at offset %lld: %s", (long long)len,
                         (long long)start, inlet_errmsg(err));
    r->bytes_read += len;
  }
  return 0;
}

/* Reads column chunk @p c of row group @p rg into r->chunk. */
static int load_chunk(inlet_parquet_reader *r, int32_t rg, int32_t c, bool flat, size_t *len_out,
                      size_t *slack_out, inlet_error *err) {
  const pq_row_group *g = &r->meta.row_groups[rg];
  const pq_column_meta *cm = &g->columns[c].meta_data;
  int64_t start, len, slack = 0;
  chunk_range(cm, &start, &len);
  if (r->parquet_816) {
    slack = r->data_end - (start + len);
    if (slack > PARQUET_816_SLACK) slack = PARQUET_816_SLACK;
    len += slack;
  }
  /* Flat columns have one value per row; nested ones one per level. */
  if (flat && cm->num_values != g->num_rows)
    return reader_fail(r, err, INLET_ECORRUPT, rg, c,
                       "column chunk has %lld values, the row group %lld rows",
                       (long long)cm->num_values, (long long)g->num_rows);
  if (len > r->opts.max_column_chunk_bytes)
    return reader_fail(r, err, INLET_ELIMIT, rg, c,
                       "column chunk of %lld bytes exceeds the %lld-byte limit", (long long)len,
                       (long long)r->opts.max_column_chunk_bytes);
  TRY(read_span(r, rg, c, start, len, err));
  *len_out = (size_t)len;
  *slack_out = (size_t)slack;
  return 0;
}

/* What decoding @p rows rows of row group @p rg (the projection) will
 * allocate, held against max_decoded_bytes before anything is allocated: a
 * footer may claim billions of rows that tiny RLE pages then "hold". */
static int check_decoded_size(const inlet_parquet_reader *r, int32_t rg, int64_t rows,
                              inlet_error *err) {
  const pq_row_group *g = &r->meta.row_groups[rg];
  __int128 total = 0;
  for (int32_t i = 0; i < r->n_proj; i++) {
    for (int32_t c = 0; c < r->sd.n_columns && c < g->n_columns; c++) {
      const pq_column_desc *d = &r->sd.columns[c];
      bool mine = r->nested_mode ? c < r->nested.n_plans && r->nested.plans[c].field == r->proj[i]
                                 : c == r->field_column[r->proj[i]];
      if (!mine) continue;
      int32_t w = inlet_type_value_width(&d->type);
      if (w <= 0) w = d->type.id == INLET_TYPE_BOOL ? 1 : 4; /* bits, or offsets */
      int64_t n = r->nested_mode ? g->columns[c].meta_data.num_values : rows;
      if (n < 0) n = 0;
      /* Values (or offsets) and validity bits; levels for nested leaves. */
      total += (__int128)n * (w + 1) + (r->nested_mode ? (__int128)n * 4 : 0);
    }
  }
  if (total > r->opts.max_decoded_bytes)
    return reader_fail(r, err, INLET_ELIMIT, rg, -1,
                       "decoding %lld rows would take over %lld bytes, more than the %lld-byte "
                       "limit (reader option max_decoded_bytes)",
                       (long long)rows, (long long)(total > INT64_MAX ? INT64_MAX : total),
                       (long long)r->opts.max_decoded_bytes);
  return 0;
}

/* The offset index of leaf @p c in row group @p rg, cached per leaf so that
 * successive row-range reads of one row group parse it once. */
static int offset_index(inlet_parquet_reader *r, int32_t rg, int32_t c, const pq_page_index **out,
                        inlet_error *err) {
  if (!r->offsets) {
    int32_t n = r->sd.n_columns > 0 ? r->sd.n_columns : 1;
    r->offsets = inlet_calloc((size_t)n, sizeof *r->offsets);
    r->offsets_rg = inlet_malloc((size_t)n * sizeof *r->offsets_rg);
    if (!r->offsets || !r->offsets_rg) {
      inlet_free(r->offsets);
      inlet_free(r->offsets_rg);
      r->offsets = NULL;
      r->offsets_rg = NULL;
      return inlet_fail(err, INLET_ENOMEM, "out of memory");
    }
    r->n_offsets = n;
    for (int32_t i = 0; i < n; i++)
      r->offsets_rg[i] = -1;
  }
  if (r->offsets_rg[c] != rg) {
    r->offsets_rg[c] = -1;
    TRY(pq_reader_offset_index(r, rg, c, &r->offsets[c], err));
    r->offsets_rg[c] = rg;
  }
  *out = &r->offsets[c];
  return 0;
}

/* Page runs of one column chunk for a row-range read: the dictionary region
 * (from the chunk's start to its first data page) when there is one, then
 * maximal runs of adjacent data pages holding selected rows. */
typedef struct page_runs {
  inlet_parquet_reader *r;
  int32_t rg, c;
  const pq_page_index *pi;
  int64_t dict_start, dict_len; /* dict_len 0: no dictionary region */
  int32_t *first, *last;        /* owned: page span of each data run */
  int32_t n;
} page_runs;

static int fetch_run(void *ctx, int32_t i, pq_page_run *run, inlet_error *err) {
  page_runs *pr = ctx;
  const pq_page_index *pi = pr->pi;
  memset(run, 0, sizeof *run);
  int32_t has_dict = pr->dict_len > 0;
  if (i < has_dict) {
    TRY(read_span(pr->r, pr->rg, pr->c, pr->dict_start, pr->dict_len, err));
    run->bytes = pr->r->chunk;
    run->len = (size_t)pr->dict_len;
    return 0;
  }
  int32_t k = i - has_dict, a = pr->first[k], b = pr->last[k];
  int64_t start = pi->offset[a], len = pi->offset[b] + pi->size[b] - start;
  TRY(read_span(pr->r, pr->rg, pr->c, start, len, err));
  run->bytes = pr->r->chunk;
  run->len = (size_t)len;
  run->first_row = pi->first_row[a];
  run->end_row = pi->first_row[b + 1];
  run->first_page = a + has_dict;
  run->pages_before = a - (k > 0 ? pr->last[k - 1] + 1 : 0);
  return 0;
}

/* Reads rows @p ranges of flat column @p c through its offset index: only
 * the dictionary and the pages holding selected rows are read from the
 * file, a run of adjacent pages at a time, so memory and I/O follow the
 * selection, not the column chunk. Sets *done = false (nothing read) when
 * the chunk has no offset index to go by. */
static int read_flat_paged(inlet_parquet_reader *r, int32_t rg, int32_t c, const int64_t *ranges,
                           int32_t n_ranges, inlet_array *out, bool *done, inlet_error *err) {
  *done = false;
  const pq_row_group *g = &r->meta.row_groups[rg];
  const pq_column_meta *cm = &g->columns[c].meta_data;
  const pq_page_index *pi = NULL;
  TRY(offset_index(r, rg, c, &pi, err));
  if (pi->n_pages == 0) return 0;
  if (cm->num_values != g->num_rows)
    return reader_fail(r, err, INLET_ECORRUPT, rg, c,
                       "column chunk has %lld values, the row group %lld rows",
                       (long long)cm->num_values, (long long)g->num_rows);
  page_runs pr;
  memset(&pr, 0, sizeof pr);
  pr.r = r;
  pr.rg = rg;
  pr.c = c;
  pr.pi = pi;
  int64_t chunk_start, chunk_len;
  chunk_range(cm, &chunk_start, &chunk_len);
  pr.dict_start = chunk_start;
  pr.dict_len = pi->offset[0] - chunk_start; /* >= 0: checked when the index was parsed */
  pr.first = inlet_malloc((size_t)pi->n_pages * sizeof *pr.first);
  pr.last = inlet_malloc((size_t)pi->n_pages * sizeof *pr.last);
  int rc = 0;
  FAIL_GOTO(!pr.first || !pr.last, err, INLET_ENOMEM, "out of memory");
  int32_t k = 0;
  for (int32_t p = 0; p < pi->n_pages; p++) {
    int64_t lo = pi->first_row[p], hi = pi->first_row[p + 1];
    while (k < n_ranges && ranges[2 * k + 1] <= lo)
      k++;
    if (k == n_ranges) break;
    if (ranges[2 * k] >= hi) continue;
    /* One run per stretch of pages that lie back to back in the file. */
    if (pr.n > 0 && pr.last[pr.n - 1] == p - 1 &&
        pi->offset[p] == pi->offset[p - 1] + pi->size[p - 1]) {
      pr.last[pr.n - 1] = p;
    } else {
      pr.first[pr.n] = pr.last[pr.n] = p;
      pr.n++;
    }
    int64_t span = pi->offset[pr.last[pr.n - 1]] + pi->size[pr.last[pr.n - 1]] -
                   pi->offset[pr.first[pr.n - 1]];
    FAIL_GOTO(span > r->opts.max_column_chunk_bytes, err, INLET_ELIMIT,
              "%s column \"%s\" row group %d: pages of %lld bytes exceed the %lld-byte limit",
              r->name, r->sd.columns[c].path, rg, (long long)span,
              (long long)r->opts.max_column_chunk_bytes);
  }
  pq_chunk_ctx ctx = {r->name, &r->sd.columns[c], rg, r->opts.verify_checksums, 0, NULL};
  int32_t n_runs = pr.n + (pr.dict_len > 0);
  rc = pq_column_read_runs(&r->cr, &ctx, cm, g->num_rows, ranges, n_ranges, n_runs, fetch_run, &pr,
                           out, err);
  if (rc == 0) {
    int32_t after = pr.n ? pi->n_pages - 1 - pr.last[pr.n - 1] : pi->n_pages;
    r->cr.pages_skipped += after; /* pages past the last run */
    *done = true;
  }
done:
  inlet_free(pr.first);
  inlet_free(pr.last);
  return rc;
}

static int read_flat_rows(inlet_parquet_reader *r, int32_t rg, int32_t c, const int64_t *ranges,
                          int32_t n_ranges, inlet_array *out, pq_raw_chunk *raw, inlet_error *err) {
  const pq_row_group *g = &r->meta.row_groups[rg];
  const pq_column_meta *cm = &g->columns[c].meta_data;
  if (g->num_rows == 0 && cm->num_values == 0) return 0;
  if (ranges && !r->parquet_816) {
    bool done = false;
    TRY(read_flat_paged(r, rg, c, ranges, n_ranges, out, &done, err));
    if (done) return 0;
  }
  size_t len = 0, slack = 0;
  TRY(load_chunk(r, rg, c, true, &len, &slack, err));
  pq_chunk_ctx ctx = {r->name, &r->sd.columns[c], rg, r->opts.verify_checksums, slack, NULL};
  bool keep_idx = raw && !ranges && r->sd.columns[c].physical_type == PQ_BYTE_ARRAY;
  if (keep_idx) {
    inlet_buf_clear(&raw->dict_idx);
    ctx.dict_idx = &raw->dict_idx;
  }
  TRY(pq_column_read_chunk_rows(&r->cr, &ctx, cm, r->chunk, len, g->num_rows, ranges, n_ranges, out,
                                err));
  /* Only what was just decoded whole, up to the declared size. */
  if (raw && !ranges)
    TRY(pq_raw_chunk_capture(raw, &r->sd.columns[c], cm, r->chunk, len - slack, g->num_rows, err));
  /* Indices of every value: no page was PLAIN (a dictionary's fallback). */
  if (keep_idx && r->cr.has_dict &&
      (int64_t)(raw->dict_idx.len / sizeof(uint32_t)) == out->length - out->null_count) {
    raw->dict_valid = true;
    raw->dict_n = r->cr.dict_n;
    raw->dict_rows = out->length;
  }
  return 0;
}

static int read_flat(inlet_parquet_reader *r, int32_t rg, int32_t c, inlet_array *out,
                     pq_raw_chunk *raw, inlet_error *err) {
  return read_flat_rows(r, rg, c, NULL, 0, out, raw, err);
}

/* Where the pages of projected field @p i go, if anywhere. */
static pq_raw_chunk *capture_of(const inlet_parquet_reader *r, int32_t i) {
  return r->capture && !r->nested_mode ? &r->capture[i] : NULL;
}

void pq_reader_capture_pages(inlet_parquet_reader *r, pq_raw_chunk *raw) {
  if (r) r->capture = raw;
}

/* Every leaf of nested top-level field @p f into @p out. */
static int read_nested(inlet_parquet_reader *r, int32_t rg, int32_t f, inlet_array *out,
                       const inlet_field *field, inlet_error *err) {
  const pq_row_group *g = &r->meta.row_groups[rg];
  for (int32_t c = 0; c < r->nested.n_plans; c++) {
    const pq_leaf_plan *plan = &r->nested.plans[c];
    if (plan->field != f) continue;
    const pq_column_desc *desc = &r->sd.columns[c];
    if (plan->n_steps == 1 && desc->max_rep_level == 0) return read_flat(r, rg, c, out, NULL, err);
    const pq_column_meta *cm = &g->columns[c].meta_data;
    if (g->num_rows == 0 && cm->num_values == 0) continue;
    size_t len = 0, slack = 0;
    TRY(load_chunk(r, rg, c, false, &len, &slack, err));
    inlet_array *leaf = out;
    for (int32_t k = 1; k < plan->n_steps; k++)
      leaf = &leaf->children[plan->steps[k].child];
    pq_chunk_ctx ctx = {r->name, desc, rg, r->opts.verify_checksums, slack, NULL};
    TRY(pq_column_read_levels(&r->cr, &ctx, cm, r->chunk, len, g->num_rows, leaf, err));
    if ((int64_t)r->cr.n_levels != cm->num_values)
      return reader_fail(r, err, INLET_ECORRUPT, rg, c,
                         "column chunk says %lld values, its pages hold %zu levels",
                         (long long)cm->num_values, r->cr.n_levels);
    int rc = pq_nested_assemble(plan, desc, r->cr.rep_levels, r->cr.def_levels, r->cr.n_levels,
                                r->cr.n_dense, out, field, err);
    if (rc < 0)
      return inlet_error_prefix(err, "%s column \"%s\" row group %d", r->name, desc->path, rg);
  }
  int rc = pq_nested_finish(out, field, g->num_rows, err);
  if (rc < 0)
    return inlet_error_prefix(err, "%s field \"%s\" row group %d: columns disagree", r->name,
                              field->name, rg);
  return 0;
}

/* The checks and the empty batch a whole row group's read begins with. */
static int row_group_begin(inlet_parquet_reader *r, int32_t rg, inlet_batch *out,
                           inlet_error *err) {
  if (!r || !out) return inlet_fail(err, INLET_EINVAL, "NULL reader or batch");
  if (rg < 0 || rg >= r->meta.n_row_groups)
    return inlet_fail(err, INLET_EINVAL, "%s: row group %d out of range (%d row groups)", r->name,
                      rg, r->meta.n_row_groups);
  TRY(check_decoded_size(r, rg, r->meta.row_groups[rg].num_rows, err));
  for (int32_t i = 0; r->capture && i < r->n_proj; i++)
    r->capture[i].valid = r->capture[i].dict_valid = false;
  return prepare_batch(r, out, err);
}

int inlet_parquet_reader_read_row_group(inlet_parquet_reader *r, int32_t rg, inlet_batch *out,
                                        inlet_error *err) {
  TRY(row_group_begin(r, rg, out, err));
  const pq_row_group *g = &r->meta.row_groups[rg];
  int rc = 0;
  for (int32_t i = 0; i < r->n_proj; i++) {
    if (r->nested_mode)
      TRY_GOTO(read_nested(r, rg, r->proj[i], &out->columns[i], &out->schema.fields[i], err));
    else
      TRY_GOTO(
          read_flat(r, rg, r->field_column[r->proj[i]], &out->columns[i], capture_of(r, i), err));
  }
  out->num_rows = g->num_rows;
  return 0;
done:
  inlet_batch_clear(out);
  return rc;
}

/* One run of projected fields [lo, hi) of row group rg, read through a
 * clone into the caller's batch (each run its own columns). */
typedef struct fields_part {
  const inlet_parquet_reader *r; /* the original: projection */
  inlet_parquet_reader *part;    /* the clone that reads */
  int32_t rg, lo, hi;
  inlet_batch *out;
} fields_part;

static int read_fields_part(void *arg, inlet_error *err) {
  fields_part *t = arg;
  const inlet_parquet_reader *r = t->r;
  for (int32_t i = t->lo; i < t->hi; i++) {
    if (r->nested_mode)
      TRY(read_nested(t->part, t->rg, r->proj[i], &t->out->columns[i], &t->out->schema.fields[i],
                      err));
    else
      TRY(read_flat(t->part, t->rg, r->field_column[r->proj[i]], &t->out->columns[i],
                    capture_of(r, i), err));
  }
  return 0;
}

int pq_reader_read_row_group_parts(inlet_parquet_reader *r, inlet_parquet_reader *const *parts,
                                   int32_t n_parts, util_pool *pool, int32_t rg, inlet_batch *out,
                                   inlet_error *err) {
  int32_t k = r && n_parts > r->n_proj ? r->n_proj : n_parts;
  if (!r || k < 2 || !parts || util_pool_threads(pool) == 0)
    return inlet_parquet_reader_read_row_group(r, rg, out, err);
  for (int32_t j = 0; j < k; j++)
    FAIL_IF(!parts[j] || parts[j]->meta.row_groups != r->meta.row_groups, err, INLET_EINVAL,
            "%s: part %d is not a clone of the reader", r->name, (int)j);
  TRY(row_group_begin(r, rg, out, err));
  const pq_row_group *g = &r->meta.row_groups[rg];
  fields_part *t = inlet_calloc((size_t)k, sizeof *t);
  if (!t) return inlet_fail(err, INLET_ENOMEM, "%s: out of memory", r->name);
  util_group grp;
  util_group_init(&grp, pool);
  /* Contiguous runs in field order: the lowest failing run holds the
   * first failing field, which the group reports (lowest task index). */
  for (int32_t j = 0; j < k; j++) {
    t[j] = (fields_part){r,
                         parts[j],
                         rg,
                         (int32_t)((int64_t)r->n_proj * j / k),
                         (int32_t)((int64_t)r->n_proj * (j + 1) / k),
                         out};
    util_group_submit(&grp, read_fields_part, &t[j]);
  }
  int rc = util_group_wait(&grp, err);
  inlet_free(t);
  if (rc < 0) {
    inlet_batch_clear(out);
    return rc;
  }
  out->num_rows = g->num_rows;
  return 0;
}

int inlet_parquet_reader_read_rows(inlet_parquet_reader *r, int32_t rg, const int64_t *ranges,
                                   int32_t n_ranges, inlet_batch *out, inlet_error *err) {
  if (!r || !out || n_ranges < 0 || (n_ranges > 0 && !ranges))
    return inlet_fail(err, INLET_EINVAL, "NULL reader, batch or ranges");
  if (rg < 0 || rg >= r->meta.n_row_groups)
    return inlet_fail(err, INLET_EINVAL, "%s: row group %d out of range (%d row groups)", r->name,
                      rg, r->meta.n_row_groups);
  const pq_row_group *g = &r->meta.row_groups[rg];
  int64_t want = 0;
  for (int32_t i = 0; i < n_ranges; i++) {
    int64_t a = ranges[2 * i], b = ranges[2 * i + 1];
    if (a < (i ? ranges[2 * i - 1] : 0) || b <= a || b > g->num_rows)
      return inlet_fail(err, INLET_EINVAL,
                        "%s row group %d: row range %d [%lld, %lld) is empty, out of order or "
                        "past the %lld rows",
                        r->name, rg, i, (long long)a, (long long)b, (long long)g->num_rows);
    want += b - a;
  }
  if (r->nested_mode)
    return inlet_fail(err, INLET_EUNSUPPORTED,
                      "%s: reading row ranges of nested columns is "
                      "not supported",
                      r->name);
  TRY(check_decoded_size(r, rg, want, err));
  for (int32_t i = 0; r->capture && i < r->n_proj; i++)
    r->capture[i].valid = r->capture[i].dict_valid = false; /* ranges capture nothing */
  TRY(prepare_batch(r, out, err));
  if (n_ranges == 0) return 0; /* no rows asked for: an empty batch */
  int rc = 0;
  for (int32_t i = 0; i < r->n_proj; i++) {
    int32_t c = r->field_column[r->proj[i]];
    TRY_GOTO(read_flat_rows(r, rg, c, ranges, n_ranges, &out->columns[i], NULL, err));
    /* Every column must deliver the same rows, page boundaries or not. */
    FAIL_GOTO(g->num_rows > 0 && out->columns[i].length != want, err, INLET_ECORRUPT,
              "%s column \"%s\" row group %d: %lld of %lld selected rows decoded", r->name,
              r->sd.columns[c].path, rg, (long long)out->columns[i].length, (long long)want);
  }
  out->num_rows = want;
  return 0;
done:
  inlet_batch_clear(out);
  return rc;
}
