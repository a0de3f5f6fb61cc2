/*
 * Table scans (delta.h "table scans"; the engine of include/inlet/scan.h):
 * the rows of a snapshot, file by file
 * and row group by row group, shaped to the table schema.
 *
 * Spec: PROTOCOL.md "Data Files" and "Consistency Between Table Metadata
 * and Data Files" (partition column values come from the log, not the
 * file; a column a file lacks reads as null), "Partition Value
 * Serialization", "Type Widening" (older files may hold narrower types:
 * integers widen, float widens to double, dates to timestamp_ntz, decimals
 * gain precision/scale) and the Parquet timestamp variants Delta writers
 * left behind (INT96 and millisecond timestamps are converted to the
 * table's microseconds), "Column Mapping" (files, partitionValues and nested
 * struct fields use physical names, matched by field id in id mode: the
 * snapshot's phys_schema, a twin of its schema, says which).
 */
#include <stdio.h>
#include <strings.h>

#include "batch/batch.h"
#include "delta/delta_dv.h"
#include "delta/delta_row_tracking.h"
#include "delta/delta_table_int.h"
#include "parquet/page_index.h"
#include "parquet/pq_reader.h"
#include "util/util.h"

/* Prefetch on object stores: files of at most PREFETCH_FILE_MAX bytes are
 * read whole, up to PREFETCH_FILES of them (PREFETCH_BYTES at most) per
 * round of concurrent GETs. Larger files are read by ranges (footer, then
 * only the column chunks and pages the scan needs). */
#define PREFETCH_FILES 16
#define PREFETCH_FILE_MAX ((int64_t)1 << 20)
#define PREFETCH_BYTES ((int64_t)16 << 20)
/* How far ahead (in files, pruned ones included) a round looks. */
#define PREFETCH_LOOKAHEAD 256

struct delta_scan {
  const inlet_snapshot *snap; /* borrowed */
  /* The handle files are read through: the table's, or a pool thread's own
   * (delta_scan_set_storage; object-store handles are one thread's). */
  inlet_storage *st;            /* borrowed */
  int64_t file;                 /* next file index when reader is NULL */
  int64_t end_file;             /* files from here on are not read (delta_scan_range) */
  inlet_parquet_reader *reader; /* owned, the current file */
  int32_t rg, n_rg;
  int32_t *file_col;        /* owned: per table column, index in the projection or -1 */
  int32_t *part_of;         /* owned: per table column, partition column index or -1 */
  inlet_batch tmp;          /* owned: projected row group */
  const uint8_t *keep_file; /* borrowed (delta_scan_select), NULL = all */
  const uint8_t *keep_col;  /* borrowed (delta_scan_select), NULL = all */
  /* Row groups decided by the caller (delta_scan_select): delta_scan_next
   * stops at each (asked), then reads what delta_scan_choose said. */
  bool decide, asked, chosen_keep;
  const int64_t *chosen; /* borrowed ranges, NULL = every row */
  int32_t n_chosen;
  int32_t *proj; /* owned: file field of each projected column (current file) */
  int32_t n_proj;
  inlet_parquet_read_stats closed; /* counters of the readers already freed */
  /* Windowed reading (delta_scan_set_window): the current row group is read
   * in slices of its selected rows. */
  int64_t window;    /* rows per slice at least; 0 = whole row groups */
  bool window_pages; /* slices end on a page boundary of the lead column */
  int32_t slice_rg;  /* row group being sliced, -1 none */
  int64_t *sel;      /* owned: its selected ranges, 2 per range */
  int32_t n_sel, cap_sel, sel_i;
  int64_t pos;     /* first row not yet read */
  int64_t *bounds; /* owned: page starts of the lead column, then the row count */
  int32_t n_bounds, cap_bounds;
  int64_t *slice; /* owned: ranges of the current slice */
  int32_t cap_slice;
  /* Object stores: small files fetched whole ahead of the scan, many in
   * flight at once (one round trip for PREFETCH_FILES files instead of a
   * few per file). pf_idx[i] is the file index of pf_buf[i], -1 if none. */
  int64_t pf_idx[PREFETCH_FILES];
  uint8_t *pf_buf[PREFETCH_FILES]; /* owned */
  size_t pf_len[PREFETCH_FILES];
  /* The current file's deletion vector (NULL: none) and the index of each
   * row group's first row in the file: DV row indexes count from the
   * file's first row, whatever row groups and pages the scan skips. */
  delta_dv *dv;      /* owned */
  int64_t *rg_first; /* owned, n_rg + 1 entries while dv is set */
  int32_t cap_rg_first;
  uint8_t *keep; /* owned: per row of a batch being filtered, 1 = not deleted */
  int64_t cap_keep;
  /* Row tracking (delta_scan_row_tracking): the table schema and the two
   * metadata columns; the materialized columns' names (borrowed from the
   * snapshot's metaData) and their place in the current file's projection
   * (-1: the file lacks it); the file position of each row read. */
  bool rt;
  inlet_schema xs; /* owned */
  const char *mat_id, *mat_ver;
  int32_t mat_id_col, mat_ver_col;
  int64_t *rpos; /* owned, n_pos of cap_pos */
  int64_t n_pos, cap_pos;
  /* Row groups [first_rg, end_rg) of a file opened once for several scans
   * (delta_scan_use_file): the reader is a clone of its reader, and dv and
   * rg_first are its own (borrowed). */
  const delta_scan_file *shared;
  int32_t first_rg, end_rg;
};

struct delta_scan_file {
  int64_t file;
  inlet_parquet_reader *reader; /* owned: parsed footer; never reads rows */
  delta_dv *dv;                 /* owned, NULL: none */
  int64_t *rg_first;            /* owned, n_rg + 1 entries */
  int32_t n_rg, cap_rg_first;
  /* The whole file when it was prefetched (object stores, small files):
   * the scans of its row groups read it from here, on any thread. */
  uint8_t *whole; /* owned, NULL: read through storage */
  size_t whole_len;
  char *name; /* owned with whole: "<root>/<path>", for messages */
};

void delta_scan_select(delta_scan *sc, const uint8_t *keep_file, const uint8_t *keep_col,
                       bool decide) {
  sc->keep_file = keep_file;
  sc->keep_col = keep_col;
  sc->decide = decide;
}

void delta_scan_range(delta_scan *sc, int64_t first, int64_t end) {
  const delta_snapshot *s = &sc->snap->snap;
  sc->file = first < 0 ? 0 : first > s->n_files ? s->n_files : first;
  sc->end_file = end < sc->file ? sc->file : end > s->n_files ? s->n_files : end;
}

void delta_scan_row_group(const delta_scan *sc, int64_t *file,
                          const struct inlet_parquet_reader **reader, int32_t *rg) {
  *file = sc->file - 1;
  *reader = sc->reader;
  *rg = sc->rg;
}

void delta_scan_choose(delta_scan *sc, bool keep, const int64_t *ranges, int32_t n_ranges) {
  sc->chosen_keep = keep;
  sc->chosen = ranges;
  sc->n_chosen = ranges ? n_ranges : 0;
}

void delta_scan_set_window(delta_scan *sc, int64_t rows, bool by_pages) {
  sc->window = rows > 0 ? rows : 0;
  sc->window_pages = by_pages;
}

static void add_stats(inlet_parquet_read_stats *to, const inlet_parquet_reader *r) {
  inlet_parquet_read_stats s;
  inlet_parquet_reader_get_stats(r, &s);
  to->data_pages_decoded += s.data_pages_decoded;
  to->data_pages_skipped += s.data_pages_skipped;
  to->column_bytes_read += s.column_bytes_read;
}

void delta_scan_read_stats(const delta_scan *sc, inlet_parquet_read_stats *out) {
  *out = sc->closed;
  if (sc->reader) add_stats(out, sc->reader);
}

static void close_reader(delta_scan *sc) {
  if (sc->reader) add_stats(&sc->closed, sc->reader);
  inlet_parquet_reader_free(sc->reader);
  sc->reader = NULL;
  sc->slice_rg = -1;
  if (!sc->shared) delta_dv_free(sc->dv);
  sc->dv = NULL;
}

int delta_scan_open(delta_scan **out, const inlet_snapshot *s, inlet_error *err) {
  *out = NULL;
  FAIL_IF(!s->snap.has_schema, err, INLET_EUNSUPPORTED,
          "table metaData has no schemaString: the table cannot be scanned");
  delta_scan *sc = inlet_calloc(1, sizeof *sc);
  if (!sc) return inlet_fail(err, INLET_ENOMEM, "out of memory opening a scan");
  sc->snap = s;
  sc->st = s->table->st;
  sc->end_file = s->snap.n_files;
  sc->slice_rg = -1;
  for (int i = 0; i < PREFETCH_FILES; i++)
    sc->pf_idx[i] = -1;
  int32_t n = s->snap.schema.n_fields;
  sc->file_col = inlet_calloc((size_t)n + 1, sizeof(int32_t));
  sc->part_of = inlet_calloc((size_t)n + 1, sizeof(int32_t));
  if (!sc->file_col || !sc->part_of) {
    delta_scan_free(sc);
    return inlet_fail(err, INLET_ENOMEM, "out of memory opening a scan");
  }
  for (int32_t i = 0; i < n; i++) {
    sc->part_of[i] = -1;
    for (int32_t p = 0; p < s->snap.metadata.n_partition_columns; p++)
      if (strcasecmp(s->snap.metadata.partition_columns[p], s->snap.schema.fields[i].name) == 0)
        sc->part_of[i] = p;
  }
  *out = sc;
  return 0;
}

void delta_scan_free(delta_scan *sc) {
  if (!sc) return;
  for (int i = 0; i < PREFETCH_FILES; i++)
    inlet_free(sc->pf_buf[i]);
  inlet_parquet_reader_free(sc->reader);
  inlet_batch_reset(&sc->tmp);
  inlet_free(sc->file_col);
  inlet_free(sc->part_of);
  inlet_free(sc->proj);
  inlet_free(sc->sel);
  inlet_free(sc->bounds);
  inlet_free(sc->slice);
  if (!sc->shared) {
    delta_dv_free(sc->dv);
    inlet_free(sc->rg_first);
  }
  inlet_free(sc->keep);
  inlet_schema_reset(&sc->xs);
  inlet_free(sc->rpos);
  inlet_free(sc);
}

int delta_scan_row_tracking(delta_scan *sc, inlet_error *err) {
  if (sc->rt) return 0;
  const delta_snapshot *s = &sc->snap->snap;
  FAIL_IF(!delta_rt_enabled(&s->protocol, &s->metadata), err, INLET_EUNSUPPORTED,
          "%s and %s need row tracking, which version %lld of the table does not have enabled "
          "(writer feature rowTracking and table property delta.enableRowTracking=true)",
          DELTA_SCAN_ROW_ID, DELTA_SCAN_ROW_COMMIT_VERSION, (long long)s->version);
  TRY(inlet_schema_copy(&sc->xs, &s->schema, err));
  const char *names[2] = {DELTA_SCAN_ROW_ID, DELTA_SCAN_ROW_COMMIT_VERSION};
  for (int i = 0; i < 2; i++) {
    inlet_field f;
    memset(&f, 0, sizeof f);
    f.name = (char *)names[i]; /* borrowed: add_field copies */
    f.type.id = INLET_TYPE_INT64;
    f.field_id = -1;
    TRY(inlet_schema_add_field(&sc->xs, &f, err));
  }
  sc->mat_id = delta_metadata_conf(&s->metadata, DELTA_RT_ID_COL);
  sc->mat_ver = delta_metadata_conf(&s->metadata, DELTA_RT_VER_COL);
  sc->rt = true;
  return 0;
}

const inlet_schema *delta_scan_schema(const delta_scan *sc) {
  return sc->rt ? &sc->xs : &sc->snap->snap.schema;
}

static bool prefetchable(const delta_scan *sc, int64_t i) {
  const delta_file *f = &sc->snap->snap.files[i];
  return (!sc->keep_file || sc->keep_file[i]) && f->add.size > 0 &&
         f->add.size <= PREFETCH_FILE_MAX;
}

/* Fetches the small files from @p first on (the ones the scan keeps) whole,
 * in one round of concurrent reads. Best effort: on any failure nothing is
 * kept and each file is opened the ordinary way, which reports the problem. */
static void prefetch(delta_scan *sc, int64_t first) {
  const delta_snapshot *s = &sc->snap->snap;
  inlet_storage *st = sc->st;
  inlet_file_range fr[PREFETCH_FILES];
  int64_t idx[PREFETCH_FILES];
  size_t n = 0;
  int64_t bytes = 0;
  for (int i = 0; i < PREFETCH_FILES; i++) {
    inlet_free(sc->pf_buf[i]);
    sc->pf_buf[i] = NULL;
    sc->pf_idx[i] = -1;
  }
  inlet_error ignore = INLET_ERROR_INIT;
  int rc = 0;
  for (int64_t i = first;
       rc == 0 && n < PREFETCH_FILES && i < sc->end_file && i < first + PREFETCH_LOOKAHEAD; i++) {
    if (!prefetchable(sc, i)) continue;
    const delta_add *a = &s->files[i].add;
    if (n > 0 && bytes + a->size > PREFETCH_BYTES) break;
    memset(&fr[n], 0, sizeof fr[n]);
    fr[n].buf = inlet_malloc((size_t)a->size);
    if (!fr[n].buf) break;
    rc = st->ops->open_read_sized(st, a->path, a->size, &fr[n].file, &ignore);
    if (rc < 0) {
      inlet_free(fr[n].buf);
      break;
    }
    fr[n].len = (size_t)a->size;
    idx[n++] = i;
    bytes += a->size;
  }
  if (rc == 0 && n > 0) rc = inlet_storage_read_files(st, fr, n, &ignore);
  for (size_t k = 0; k < n; k++) {
    inlet_rfile_close(fr[k].file);
    if (rc == 0) {
      sc->pf_idx[k] = idx[k];
      sc->pf_buf[k] = fr[k].buf;
      sc->pf_len[k] = fr[k].len;
    } else {
      inlet_free(fr[k].buf);
    }
  }
}

/* The prefetched bytes of file @p i (taken over by the caller), or NULL. */
static uint8_t *take_prefetched(delta_scan *sc, int64_t i, size_t *len) {
  for (int k = 0; k < PREFETCH_FILES; k++)
    if (sc->pf_idx[k] == i) {
      uint8_t *b = sc->pf_buf[k];
      *len = sc->pf_len[k];
      sc->pf_buf[k] = NULL;
      sc->pf_idx[k] = -1;
      return b;
    }
  return NULL;
}

/* Loads the deletion vector of @p f (if it has one; read through @p st),
 * whose file @p r has just been opened, into *@p dv, and the first row
 * index of each of its @p n_rg row groups into *@p rg_first (grown to
 * n_rg + 1 entries; *@p cap its capacity). */
static int load_dv_positions(inlet_storage *st, const inlet_table *t, const delta_file *f,
                             const inlet_parquet_reader *r, int32_t n_rg, delta_dv **dv,
                             int64_t **rg_first, int32_t *cap, inlet_error *err) {
  if (f->add.dv_json) TRY(delta_dv_load(st, t->root_abs, f->add.path, f->add.dv_json, dv, err));
  if (n_rg + 1 > *cap) {
    int64_t *p = inlet_realloc(*rg_first, ((size_t)n_rg + 1) * sizeof *p);
    if (!p) return inlet_fail(err, INLET_ENOMEM, "out of memory");
    *rg_first = p;
    *cap = n_rg + 1;
  }
  (*rg_first)[0] = 0;
  for (int32_t i = 0; i < n_rg; i++)
    (*rg_first)[i + 1] = (*rg_first)[i] + inlet_parquet_reader_row_group_rows(r, i);
  return 0;
}

/* "<root>/<path>" of @p f (owned by the caller), the name messages give a
 * file read from memory; NULL on ENOMEM. */
static char *file_name(const inlet_storage *st, const delta_file *f) {
  size_t rl = strlen(st->root), pl = strlen(f->add.path);
  char *name = inlet_malloc(rl + pl + 2);
  if (name) snprintf(name, rl + pl + 2, "%s/%s", st->root, f->add.path);
  return name;
}

/* The prefetched bytes of small file @p fi of an object store, fetching the
 * next round first when they are not there yet; NULL when the file is read
 * by ranges instead (large, local, or a scan with a limit). */
static uint8_t *whole_file(delta_scan *sc, int64_t fi, size_t *len) {
  /* A scan with a row limit (window) reads on demand: no prefetch. */
  if (!(sc->st->flags & INLET_STORAGE_OBJECT_STORE) || sc->window != 0 || !prefetchable(sc, fi))
    return NULL;
  uint8_t *whole = take_prefetched(sc, fi, len);
  if (!whole) {
    prefetch(sc, fi);
    whole = take_prefetched(sc, fi, len);
  }
  return whole;
}

static int open_next_file(delta_scan *sc, inlet_error *err) {
  const delta_snapshot *s = &sc->snap->snap;
  int64_t fi = sc->file;
  const delta_file *f = &s->files[sc->file++];
  inlet_parquet_reader_options ro = INLET_PARQUET_READER_OPTIONS_INIT;
  inlet_storage *st = sc->st;
  int rc;
  size_t whole_len = 0;
  /* A shared file was prefetched (or not) by its opener. */
  uint8_t *whole = sc->shared ? NULL : whole_file(sc, fi, &whole_len);
  if (sc->shared) {
    const delta_scan_file *df = sc->shared;
    inlet_rfile *rf = NULL;
    if (df->whole)
      rc = inlet_rfile_open_memory_view(&rf, df->name, df->whole, df->whole_len, err);
    else if (f->add.size >= 0)
      rc = st->ops->open_read_sized(st, f->add.path, f->add.size, &rf, err);
    else
      rc = st->ops->open_read(st, f->add.path, &rf, err);
    if (rc == 0)
      rc = pq_reader_clone(&sc->reader, df->reader, rf, err);
    else
      inlet_error_prefix(err, "%s/%s", st->root, f->add.path);
  } else if (whole) {
    char *name = file_name(st, f);
    if (!name) {
      inlet_free(whole);
      return inlet_fail(err, INLET_ENOMEM, "out of memory");
    }
    inlet_rfile *mf = NULL;
    rc = inlet_rfile_open_memory(&mf, name, whole, whole_len, err);
    if (rc == 0) rc = pq_reader_open_file(&sc->reader, mf, name, &ro, err);
    inlet_free(name);
  } else {
    rc = pq_reader_open_storage(&sc->reader, st, f->add.path, f->add.size, &ro, err);
  }
  if (rc < 0) return rc; /* the reader's message names the file */
  const inlet_schema *fs = inlet_parquet_reader_schema(sc->reader);
  int32_t np = 0;
  const inlet_schema *ts = &s->schema, *ps = delta_snapshot_physical(s);
  if (!sc->proj) {
    sc->proj = inlet_calloc((size_t)ts->n_fields + 3, sizeof *sc->proj);
    if (!sc->proj) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  }
  int32_t *proj = sc->proj;
  for (int32_t i = 0; i < ts->n_fields; i++) {
    sc->file_col[i] = -1;
    if (sc->part_of[i] >= 0 || (sc->keep_col && !sc->keep_col[i])) continue;
    /* A void column is never in a data file (PROTOCOL.md "Void Type"). */
    if (ts->fields[i].type.id == INLET_TYPE_NULL) continue;
    int32_t j = delta_cm_find_field(fs->fields, fs->n_fields, &ps->fields[i]);
    if (j < 0) continue;
    sc->file_col[i] = np;
    proj[np++] = j;
  }
  if (sc->rt) {
    /* PROTOCOL.md "Reader Requirements for Row Tracking": the default
     * generated values need the add's fields; materialized columns are
     * found by their (physical) name. */
    FAIL_IF(!f->add.has_base_row_id || !f->add.has_default_row_commit_version, err, INLET_ECORRUPT,
            "data file \"%s\": its add has no baseRowId or defaultRowCommitVersion, but the "
            "table has row tracking enabled",
            f->add.path);
    sc->mat_id_col = sc->mat_ver_col = -1;
    for (int32_t j = 0; j < fs->n_fields; j++) {
      if (sc->mat_id && strcmp(fs->fields[j].name, sc->mat_id) == 0 && sc->mat_id_col < 0) {
        sc->mat_id_col = np;
        proj[np++] = j;
      } else if (sc->mat_ver && strcmp(fs->fields[j].name, sc->mat_ver) == 0 &&
                 sc->mat_ver_col < 0) {
        sc->mat_ver_col = np;
        proj[np++] = j;
      }
    }
  }
  sc->n_proj = np;
  if (np == 0) {
    /* Only partition columns (or none present): still need the row count,
     * read via an unprojected row group count below. */
  } else {
    rc = inlet_parquet_reader_project(sc->reader, proj, np, err);
    if (rc < 0) return inlet_error_prefix(err, "data file \"%s\"", f->add.path);
  }
  sc->rg = 0;
  sc->n_rg = inlet_parquet_reader_num_row_groups(sc->reader);
  if (sc->shared) {
    sc->dv = sc->shared->dv;
    sc->rg_first = sc->shared->rg_first;
    sc->rg = sc->first_rg < sc->n_rg ? sc->first_rg : sc->n_rg;
    if (sc->end_rg < sc->n_rg) sc->n_rg = sc->end_rg < sc->rg ? sc->rg : sc->end_rg;
  } else if (f->add.dv_json || sc->rt) {
    TRY(load_dv_positions(st, sc->snap->table, f, sc->reader, sc->n_rg, &sc->dv, &sc->rg_first,
                          &sc->cap_rg_first, err));
  }
  return 0;
}

void delta_scan_set_storage(delta_scan *sc, inlet_storage *st) {
  sc->st = st;
}

int delta_scan_file_open(delta_scan_file **out, delta_scan *opener, int64_t file,
                         inlet_error *err) {
  *out = NULL;
  const inlet_snapshot *s = opener->snap;
  FAIL_IF(file < 0 || file >= s->snap.n_files, err, INLET_EINVAL, "no file %lld in the snapshot",
          (long long)file);
  const delta_file *f = &s->snap.files[file];
  inlet_storage *st = opener->st;
  delta_scan_file *df = inlet_calloc(1, sizeof *df);
  if (!df) return inlet_fail(err, INLET_ENOMEM, "out of memory opening a scan");
  df->file = file;
  inlet_parquet_reader_options ro = INLET_PARQUET_READER_OPTIONS_INIT;
  int rc;
  df->whole = whole_file(opener, file, &df->whole_len);
  if (df->whole) {
    df->name = file_name(st, f);
    inlet_rfile *mf = NULL;
    rc = df->name ? inlet_rfile_open_memory_view(&mf, df->name, df->whole, df->whole_len, err)
                  : inlet_fail(err, INLET_ENOMEM, "out of memory opening a scan");
    if (rc == 0) rc = pq_reader_open_file(&df->reader, mf, df->name, &ro, err);
  } else {
    rc = pq_reader_open_storage(&df->reader, st, f->add.path, f->add.size, &ro, err);
  }
  if (rc == 0) {
    df->n_rg = inlet_parquet_reader_num_row_groups(df->reader);
    rc = load_dv_positions(st, s->table, f, df->reader, df->n_rg, &df->dv, &df->rg_first,
                           &df->cap_rg_first, err);
  }
  if (rc < 0) {
    delta_scan_file_free(df);
    return rc;
  }
  *out = df;
  return 0;
}

int64_t delta_scan_file_index(const delta_scan_file *f) {
  return f->file;
}

int32_t delta_scan_file_num_row_groups(const delta_scan_file *f) {
  return f->n_rg;
}

int64_t delta_scan_file_row_group_rows(const delta_scan_file *f, int32_t rg) {
  return rg >= 0 && rg < f->n_rg ? f->rg_first[rg + 1] - f->rg_first[rg] : 0;
}

void delta_scan_file_free(delta_scan_file *f) {
  if (!f) return;
  inlet_parquet_reader_free(f->reader);
  delta_dv_free(f->dv);
  inlet_free(f->rg_first);
  inlet_free(f->whole);
  inlet_free(f->name);
  inlet_free(f);
}

void delta_scan_use_file(delta_scan *sc, const delta_scan_file *f, int32_t first_rg,
                         int32_t end_rg) {
  sc->shared = f;
  sc->first_rg = first_rg;
  sc->end_rg = end_rg;
  delta_scan_range(sc, f->file, f->file + 1);
}

static bool same_shape(const inlet_field *a, const inlet_field *b) {
  const inlet_type *x = &a->type, *y = &b->type;
  if (x->id != y->id || a->n_children != b->n_children) return false;
  if (x->id == INLET_TYPE_TIMESTAMP && x->unit != y->unit) return false;
  if (x->id == INLET_TYPE_DECIMAL && (x->precision != y->precision || x->scale != y->scale))
    return false;
  if (x->id == INLET_TYPE_FIXED_BINARY && x->byte_width != y->byte_width) return false;
  if (x->id == INLET_TYPE_STRUCT) {
    for (int32_t i = 0; i < a->n_children; i++)
      if (strcasecmp(a->children[i].name, b->children[i].name) != 0) return false;
  }
  for (int32_t i = 0; i < a->n_children; i++)
    if (!same_shape(&a->children[i], &b->children[i])) return false;
  return true;
}

static bool is_int(inlet_type_id id) {
  return id == INLET_TYPE_INT8 || id == INLET_TYPE_INT16 || id == INLET_TYPE_INT32 ||
         id == INLET_TYPE_INT64 || id == INLET_TYPE_UINT8 || id == INLET_TYPE_UINT16 ||
         id == INLET_TYPE_UINT32;
}

static int64_t read_int(const inlet_type *t, const inlet_array *a, int64_t r) {
  switch (t->id) {
  case INLET_TYPE_INT8: return ((const int8_t *)a->values)[r];
  case INLET_TYPE_UINT8: return ((const uint8_t *)a->values)[r];
  case INLET_TYPE_INT16: return ((const int16_t *)a->values)[r];
  case INLET_TYPE_UINT16: return ((const uint16_t *)a->values)[r];
  case INLET_TYPE_INT32:
  case INLET_TYPE_DATE: return ((const int32_t *)a->values)[r];
  case INLET_TYPE_UINT32: return ((const uint32_t *)a->values)[r];
  default: return ((const int64_t *)a->values)[r];
  }
}

static int64_t ts_to_unit(int64_t v, inlet_time_unit from, inlet_time_unit to) {
  static const int64_t per_s[] = {1, 1000, 1000000, 1000000000};
  int64_t f = per_s[from], t = per_s[to];
  if (f == t) return v;
  if (f < t) return v * (t / f);
  int64_t d = f / t;
  return v >= 0 ? v / d : -((-v + d - 1) / d);
}

/* Converts column @p src (file field @p sf) to the table field @p tf. */
static int convert(inlet_array *dst, const inlet_field *tf, const inlet_array *src,
                   const inlet_field *sf, int64_t n, const char *path, inlet_error *err) {
  const inlet_type *tt = &tf->type, *st = &sf->type;
  bool ok =
      (tt->id == INLET_TYPE_TIMESTAMP && st->id == INLET_TYPE_TIMESTAMP) ||
      (is_int(tt->id) && is_int(st->id)) ||
      (tt->id == INLET_TYPE_DOUBLE && (st->id == INLET_TYPE_FLOAT || is_int(st->id))) ||
      (tt->id == INLET_TYPE_TIMESTAMP && st->id == INLET_TYPE_DATE) ||
      (tt->id == INLET_TYPE_DECIMAL && st->id == INLET_TYPE_DECIMAL && tt->scale >= st->scale) ||
      (tt->id == INLET_TYPE_DECIMAL && (is_int(st->id) || st->id == INLET_TYPE_INT64)) ||
      (tt->id == INLET_TYPE_STRING && st->id == INLET_TYPE_BINARY) ||
      (tt->id == INLET_TYPE_BINARY && st->id == INLET_TYPE_STRING);
  if (!ok) {
    char a[128], b[128];
    inlet_type_name(tt, a, sizeof a);
    inlet_type_name(st, b, sizeof b);
    return inlet_fail(err, INLET_EUNSUPPORTED,
                      "data file \"%s\" column \"%s\": stored type %s "
                      "cannot be read as table type %s",
                      path, tf->name, b, a);
  }
  TRY(inlet_array_reserve_rows(dst, tf, n, err));
  for (int64_t r = 0; r < n; r++) {
    if (!inlet_array_is_valid(src, r)) {
      TRY(inlet_array_append_null(dst, tf, err));
      continue;
    }
    switch (tt->id) {
    case INLET_TYPE_TIMESTAMP: {
      int64_t v = st->id == INLET_TYPE_DATE
                      ? read_int(st, src, r) * 86400000000LL
                      : ts_to_unit(read_int(st, src, r), st->unit, INLET_UNIT_MICRO);
      TRY(inlet_array_append_int(dst, tf, ts_to_unit(v, INLET_UNIT_MICRO, tt->unit), err));
      break;
    }
    case INLET_TYPE_DOUBLE:
      TRY(inlet_array_append_double(dst,
                                    st->id == INLET_TYPE_FLOAT ? ((const float *)src->values)[r]
                                                               : (double)read_int(st, src, r),
                                    err));
      break;
    case INLET_TYPE_DECIMAL: {
      __int128 v;
      int from_scale = 0;
      if (st->id == INLET_TYPE_DECIMAL) {
        unsigned __int128 u = 0;
        for (int i = 15; i >= 0; i--)
          u = (u << 8) | src->values[r * 16 + i];
        v = (__int128)u;
        from_scale = st->scale;
      } else {
        v = read_int(st, src, r);
      }
      for (int i = from_scale; i < tt->scale; i++)
        v *= 10;
      uint8_t le[16];
      for (int i = 0; i < 16; i++)
        le[i] = (uint8_t)((unsigned __int128)v >> (8 * i));
      TRY(inlet_array_append_decimal(dst, le, err));
      break;
    }
    case INLET_TYPE_STRING:
    case INLET_TYPE_BINARY:
      TRY(inlet_array_append_bytes(dst, tf, src->values + src->offsets[r],
                                   (size_t)(src->offsets[r + 1] - src->offsets[r]), err));
      break;
    default: TRY(inlet_array_append_int(dst, tf, read_int(st, src, r), err)); break;
    }
  }
  return 0;
}

/* Takes @p src's validity (and offsets) into @p dst, which holds none yet. */
static int take_buffers(inlet_array *dst, inlet_array *src, bool offsets, inlet_error *err) {
  batch_builder *db = batch_array_builder(dst, err);
  if (!db) return INLET_ENOMEM;
  inlet_free(dst->validity);
  dst->validity = src->validity;
  db->validity_cap = batch_validity_cap(src);
  src->validity = NULL;
  if (src->builder) src->builder->validity_cap = 0;
  if (offsets) {
    inlet_free(dst->offsets);
    dst->offsets = src->offsets;
    db->offsets_cap = batch_offsets_cap(src);
    src->offsets = NULL;
    if (src->builder) src->builder->offsets_cap = 0;
  }
  dst->length = src->length;
  dst->null_count = src->null_count;
  return 0;
}

/* A variant column (PROTOCOL.md "Variant Data Type"; Parquet
 * VariantEncoding.md "Variant in Parquet"): file field @p sf is a group of
 * binary `metadata` and `value`, read into @p dst as each value's JSON text.
 * A `typed_value` field is shredding (VariantShredding.md): each value is
 * rebuilt unshredded (batch_variant_unshred), then printed. */
static int conform_variant(inlet_array *dst, const inlet_field *tf, const inlet_array *src,
                           const inlet_field *sf, int64_t n, const char *path, inlet_error *err) {
  int32_t vi = -1, mi = -1;
  bool shredded = false;
  for (int32_t i = 0; sf->type.id == INLET_TYPE_STRUCT && i < sf->n_children; i++) {
    const char *cn = sf->children[i].name;
    if (strcmp(cn, "typed_value") == 0) shredded = true;
    inlet_type_id id = sf->children[i].type.id;
    if (id != INLET_TYPE_BINARY && id != INLET_TYPE_STRING) continue;
    if (strcmp(cn, "value") == 0) vi = i;
    if (strcmp(cn, "metadata") == 0) mi = i;
  }
  if (mi < 0 || (vi < 0 && !shredded)) {
    char b[128];
    inlet_type_name(&sf->type, b, sizeof b);
    return inlet_fail(err, INLET_ECORRUPT,
                      "data file \"%s\" column \"%s\": a variant must be stored as a group of "
                      "binary value and metadata, found %s",
                      path, tf->name, b);
  }
  const inlet_array *va = vi >= 0 ? &src->children[vi] : NULL, *ma = &src->children[mi];
  inlet_buf json = INLET_BUF_INIT, bin = INLET_BUF_INIT;
  int rc = inlet_array_reserve_rows(dst, tf, n, err);
  for (int64_t r = 0; r < n && rc == 0; r++) {
    if (!inlet_array_is_valid(src, r)) {
      rc = inlet_array_append_null(dst, tf, err);
      continue;
    }
    if (shredded) {
      if (!inlet_array_is_valid(ma, r)) {
        rc = inlet_fail(err, INLET_ECORRUPT,
                        "data file \"%s\" column \"%s\" row %lld: variant without metadata", path,
                        tf->name, (long long)r);
        break;
      }
      inlet_buf_clear(&json);
      inlet_buf_clear(&bin);
      size_t ml = (size_t)(ma->offsets[r + 1] - ma->offsets[r]);
      const uint8_t *mb = ml ? ma->values + ma->offsets[r] : (const uint8_t *)"";
      bool miss = false;
      rc = batch_variant_unshred(&bin, mb, ml, sf, src, r, &miss, err);
      if (rc == 0 && miss)
        inlet_buf_puts(&json, "null");
      else if (rc == 0)
        rc = batch_variant_to_json(&json, mb, ml, bin.data, bin.len, DELTA_MAX_VARIANT_JSON, err);
      if (rc == 0 && inlet_buf_status(&json) < 0)
        rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
      if (rc < 0) {
        inlet_error_prefix(err, "data file \"%s\" column \"%s\" row %lld", path, tf->name,
                           (long long)r);
        break;
      }
      rc = inlet_array_append_bytes(dst, tf, json.data ? (const void *)json.data : "", json.len,
                                    err);
      continue;
    }
    if (!inlet_array_is_valid(va, r) || !inlet_array_is_valid(ma, r)) {
      rc = inlet_fail(err, INLET_ECORRUPT,
                      "data file \"%s\" column \"%s\" row %lld: variant without a value or "
                      "metadata",
                      path, tf->name, (long long)r);
      break;
    }
    inlet_buf_clear(&json);
    size_t ml = (size_t)(ma->offsets[r + 1] - ma->offsets[r]);
    size_t vl = (size_t)(va->offsets[r + 1] - va->offsets[r]);
    /* values is NULL when every entry is empty (and NULL + 0 is undefined) */
    rc = batch_variant_to_json(&json, ml ? ma->values + ma->offsets[r] : NULL, ml,
                               vl ? va->values + va->offsets[r] : NULL, vl, DELTA_MAX_VARIANT_JSON,
                               err);
    if (rc < 0) {
      inlet_error_prefix(err, "data file \"%s\" column \"%s\" row %lld", path, tf->name,
                         (long long)r);
      break;
    }
    rc = inlet_array_append_bytes(dst, tf, json.data ? (const void *)json.data : "", json.len, err);
  }
  inlet_buf_reset(&json);
  inlet_buf_reset(&bin);
  return rc;
}

/* A shredded variant (file field @p sf, arrays @p src) in the data-file
 * form @p tf (a group of binary value and metadata, delta_variant.c) that
 * maintenance copies: each value rebuilt unshredded with its metadata as
 * stored. VariantShredding.md lets writers write unshredded values where
 * shredding is enabled, and a missing value where one is required reads
 * as a Variant null. */
static int unshred_variant(inlet_array *dst, const inlet_field *tf, const inlet_array *src,
                           const inlet_field *sf, int64_t n, const char *path, inlet_error *err) {
  int32_t mi = -1, tv = -1, tm = -1;
  for (int32_t i = 0; i < sf->n_children; i++)
    if (strcmp(sf->children[i].name, "metadata") == 0 &&
        (sf->children[i].type.id == INLET_TYPE_BINARY ||
         sf->children[i].type.id == INLET_TYPE_STRING))
      mi = i;
  for (int32_t i = 0; i < tf->n_children; i++) {
    if (strcmp(tf->children[i].name, "value") == 0) tv = i;
    if (strcmp(tf->children[i].name, "metadata") == 0) tm = i;
  }
  if (mi < 0 || tv < 0 || tm < 0)
    return inlet_fail(err, INLET_ECORRUPT,
                      "data file \"%s\" column \"%s\": a shredded variant without binary "
                      "metadata",
                      path, tf->name);
  const inlet_array *ma = &src->children[mi];
  inlet_buf bin = INLET_BUF_INIT;
  int rc = inlet_array_reserve_rows(dst, tf, n, err);
  for (int64_t r = 0; r < n && rc == 0; r++) {
    if (!inlet_array_is_valid(src, r)) {
      rc = inlet_array_append_null(dst, tf, err);
      continue;
    }
    if (!inlet_array_is_valid(ma, r)) {
      rc = inlet_fail(err, INLET_ECORRUPT,
                      "data file \"%s\" column \"%s\" row %lld: variant without metadata", path,
                      tf->name, (long long)r);
      break;
    }
    size_t ml = (size_t)(ma->offsets[r + 1] - ma->offsets[r]);
    const uint8_t *mb = ml ? ma->values + ma->offsets[r] : (const uint8_t *)"";
    bool miss = false;
    inlet_buf_clear(&bin);
    rc = batch_variant_unshred(&bin, mb, ml, sf, src, r, &miss, err);
    if (rc == 0 && miss) inlet_buf_push(&bin, 0); /* Variant null */
    if (rc == 0 && inlet_buf_status(&bin) < 0) rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
    if (rc < 0) {
      inlet_error_prefix(err, "data file \"%s\" column \"%s\" row %lld", path, tf->name,
                         (long long)r);
      break;
    }
    rc = inlet_array_append_bytes(&dst->children[tv], &tf->children[tv], bin.data, bin.len, err);
    if (rc == 0) rc = inlet_array_append_bytes(&dst->children[tm], &tf->children[tm], mb, ml, err);
    if (rc == 0) rc = inlet_array_append_struct_entry(dst, err);
  }
  inlet_buf_reset(&bin);
  return rc;
}

/* Shapes column @p src (file field @p sf, @p n rows, consumed) as table field
 * @p tf (its physical twin @p pf) into @p dst (empty, initialised for tf):
 * moves it when the shapes agree, matches struct fields by physical name or
 * id (missing ones read as null) and converts widened leaf types. */
int delta_conform_column(inlet_array *dst, const inlet_field *tf, const inlet_field *pf,
                         inlet_array *src, const inlet_field *sf, int64_t n, const char *path,
                         inlet_error *err) {
  if (tf->type.id == INLET_TYPE_NULL) {
    /* void: all null, whatever a writer put in the file under that name. */
    TRY(inlet_array_reserve_rows(dst, tf, n, err));
    for (int64_t r = 0; r < n; r++)
      TRY(inlet_array_append_null(dst, tf, err));
    return 0;
  }
  if (tf->type.id == INLET_TYPE_STRING && tf->type.ext == INLET_EXT_VARIANT)
    return conform_variant(dst, tf, src, sf, n, path, err);
  /* Maintenance copies variants in their data-file form, matched by name
   * below; a shredded one is rebuilt unshredded, as inlet writes them. */
  if (tf->type.id == INLET_TYPE_STRUCT && tf->type.ext == INLET_EXT_VARIANT &&
      sf->type.id == INLET_TYPE_STRUCT)
    for (int32_t i = 0; i < sf->n_children; i++)
      if (strcmp(sf->children[i].name, "typed_value") == 0)
        return unshred_variant(dst, tf, src, sf, n, path, err);
  if (same_shape(pf, sf)) {
    inlet_array_reset(dst);
    *dst = *src; /* move the decoded buffers */
    memset(src, 0, sizeof *src);
    return 0;
  }
  if (tf->type.id == INLET_TYPE_STRUCT && sf->type.id == INLET_TYPE_STRUCT) {
    for (int32_t c = 0; c < tf->n_children; c++) {
      const inlet_field *tc = &tf->children[c];
      int32_t k = delta_cm_find_field(sf->children, sf->n_children, &pf->children[c]);
      if (k >= 0) {
        TRY(delta_conform_column(&dst->children[c], tc, &pf->children[c], &src->children[k],
                                 &sf->children[k], n, path, err));
      } else {
        TRY(inlet_array_reserve_rows(&dst->children[c], tc, n, err));
        for (int64_t r = 0; r < n; r++)
          TRY(inlet_array_append_null(&dst->children[c], tc, err));
      }
    }
    return take_buffers(dst, src, false, err);
  }
  if ((tf->type.id == INLET_TYPE_LIST || tf->type.id == INLET_TYPE_MAP) &&
      tf->type.id == sf->type.id) {
    int64_t child_n = n > 0 && src->offsets ? src->offsets[n] : 0;
    TRY(delta_conform_column(&dst->children[0], &tf->children[0], &pf->children[0],
                             &src->children[0], &sf->children[0], child_n, path, err));
    return take_buffers(dst, src, true, err);
  }
  return convert(dst, tf, src, sf, n, path, err);
}

/* Grows an int64 array to hold @p n entries. */
static int reserve_i64(int64_t **a, int32_t *cap, int32_t n, inlet_error *err) {
  if (n <= *cap) return 0;
  int32_t nc = *cap ? *cap : 16;
  while (nc < n)
    nc *= 2;
  int64_t *p = inlet_realloc(*a, (size_t)nc * sizeof *p);
  if (!p) return inlet_fail(err, INLET_ENOMEM, "out of memory reading a row group");
  *a = p;
  *cap = nc;
  return 0;
}

/* Starts slicing row group @p rg: its selected rows (@p ranges, or all
 * @p rows), and with window_pages the page starts of the lead column, the
 * projected column with the fewest pages (more than one): a slice ending on
 * its boundaries decodes each of its pages once, and a finer column's page
 * at most twice. */
static int slice_begin(delta_scan *sc, int32_t rg, const int64_t *ranges, int32_t n_ranges,
                       int64_t rows, inlet_error *err) {
  if (!ranges) {
    TRY(reserve_i64(&sc->sel, &sc->cap_sel, 2, err));
    sc->sel[0] = 0;
    sc->sel[1] = rows;
    sc->n_sel = rows > 0;
  } else {
    TRY(reserve_i64(&sc->sel, &sc->cap_sel, 2 * n_ranges, err));
    memcpy(sc->sel, ranges, (size_t)n_ranges * 2 * sizeof *ranges);
    sc->n_sel = n_ranges;
  }
  sc->sel_i = 0;
  sc->pos = sc->n_sel ? sc->sel[0] : 0;
  sc->n_bounds = 0;
  if (sc->window_pages) {
    pq_page_index pi, best;
    pq_page_index_init(&pi);
    pq_page_index_init(&best);
    int rc = 0;
    for (int32_t i = 0; i < sc->n_proj && rc == 0; i++) {
      rc = pq_reader_page_index(sc->reader, rg, sc->proj[i], &pi, err);
      if (rc == 0 && pi.n_pages > 1 && (best.n_pages == 0 || pi.n_pages < best.n_pages)) {
        pq_page_index t = best;
        best = pi;
        pi = t;
      }
    }
    if (rc == 0 && best.n_pages > 1) {
      rc = reserve_i64(&sc->bounds, &sc->cap_bounds, best.n_pages + 1, err);
      if (rc == 0) {
        memcpy(sc->bounds, best.first_row, (size_t)(best.n_pages + 1) * sizeof *sc->bounds);
        sc->n_bounds = best.n_pages + 1;
      }
    }
    pq_page_index_reset(&pi);
    pq_page_index_reset(&best);
    TRY(rc);
  }
  sc->slice_rg = rg;
  return 0;
}

/* The next slice of the row group being sliced, into sc->slice: its
 * selected rows from sc->pos on, at least sc->window of them (or all that
 * are left), the end moved to the next lead-column page boundary. Returns
 * the number of ranges, 0 when the row group is done. */
static int slice_next(delta_scan *sc, int32_t *n_out, inlet_error *err) {
  *n_out = 0;
  while (sc->sel_i < sc->n_sel && sc->sel[2 * sc->sel_i + 1] <= sc->pos)
    sc->sel_i++;
  if (sc->sel_i >= sc->n_sel) return 0;
  int64_t got = 0, end = sc->pos;
  for (int32_t i = sc->sel_i; i < sc->n_sel; i++) {
    int64_t a = sc->sel[2 * i] > sc->pos ? sc->sel[2 * i] : sc->pos, b = sc->sel[2 * i + 1];
    if (got + (b - a) >= sc->window) {
      end = a + (sc->window - got);
      break;
    }
    got += b - a;
    end = b;
  }
  if (sc->n_bounds > 0) {
    int32_t lo = 0, hi = sc->n_bounds - 1; /* first bound >= end; the last is the row count */
    while (lo < hi) {
      int32_t mid = lo + (hi - lo) / 2;
      if (sc->bounds[mid] < end)
        lo = mid + 1;
      else
        hi = mid;
    }
    end = sc->bounds[lo];
  }
  int32_t n = 0;
  for (int32_t i = sc->sel_i; i < sc->n_sel && sc->sel[2 * i] < end; i++) {
    int64_t a = sc->sel[2 * i] > sc->pos ? sc->sel[2 * i] : sc->pos;
    int64_t b = sc->sel[2 * i + 1] < end ? sc->sel[2 * i + 1] : end;
    if (b <= a) continue;
    TRY(reserve_i64(&sc->slice, &sc->cap_slice, 2 * (n + 1), err));
    sc->slice[2 * n] = a;
    sc->slice[2 * n + 1] = b;
    n++;
  }
  sc->pos = end;
  *n_out = n;
  return 0;
}

/* Fills output column @p c with the stable value of each row: the
 * materialized one (projected column @p mat, -1 none) where not null, else
 * @p base + @p step * the row's position. */
static int rt_column(delta_scan *sc, inlet_batch *out, int32_t c, int32_t mat, int64_t base,
                     int64_t step, const delta_file *f, int64_t n, inlet_error *err) {
  const inlet_field *of = &out->schema.fields[c];
  inlet_array *dst = &out->columns[c];
  const inlet_array *m = mat >= 0 ? &sc->tmp.columns[mat] : NULL;
  const inlet_type *mt = mat >= 0 ? &sc->tmp.schema.fields[mat].type : NULL;
  FAIL_IF(m && !is_int(mt->id), err, INLET_ECORRUPT,
          "data file \"%s\": materialized row tracking column \"%s\" is not an integer column",
          f->add.path, sc->tmp.schema.fields[mat].name);
  TRY(inlet_array_reserve_rows(dst, of, n, err));
  for (int64_t r = 0; r < n; r++) {
    int64_t v;
    if (m && inlet_array_is_valid(m, r))
      v = read_int(mt, m, r);
    else if (inlet_mul_overflow_i64(step, sc->rpos[r], &v) || inlet_add_overflow_i64(base, v, &v))
      return inlet_fail(err, INLET_ECORRUPT, "data file \"%s\": baseRowId %lld overflows",
                        f->add.path, (long long)base);
    TRY(inlet_array_append_int(dst, of, v, err));
  }
  return 0;
}

/* Shapes the rows just read into sc->tmp (@p n of them; tmp unused when no
 * column comes from the file) as the table's batch @p out. */
static int shape_batch(delta_scan *sc, const delta_file *f, int64_t n, inlet_batch *out,
                       inlet_error *err) {
  const inlet_schema *ts = &sc->snap->snap.schema, *ps = delta_snapshot_physical(&sc->snap->snap);
  inlet_batch_reset(out);
  TRY(inlet_batch_init(out, delta_scan_schema(sc), err));
  const inlet_schema *fs = &sc->tmp.schema;
  for (int32_t i = 0; i < ts->n_fields; i++) {
    const inlet_field *tf = &ts->fields[i];
    inlet_array *dst = &out->columns[i];
    if (sc->keep_col && !sc->keep_col[i]) continue;
    if (sc->part_of[i] >= 0) {
      const char *v = NULL;
      for (int32_t k = 0; k < f->add.n_partition_values; k++)
        if (strcasecmp(f->add.partition_values[k].key, ps->fields[i].name) == 0)
          v = f->add.partition_values[k].value;
      TRY(inlet_array_reserve_rows(dst, tf, n, err));
      int rc = delta_partition_value_append(dst, tf, v, n, err);
      if (rc < 0) return inlet_error_prefix(err, "file \"%s\"", f->add.path);
    } else if (sc->file_col[i] < 0) {
      TRY(inlet_array_reserve_rows(dst, tf, n, err));
      for (int64_t r = 0; r < n; r++)
        TRY(inlet_array_append_null(dst, tf, err));
    } else {
      int32_t j = sc->file_col[i];
      inlet_array *src = &sc->tmp.columns[j];
      TRY(delta_conform_column(dst, tf, &ps->fields[i], src, &fs->fields[j], n, f->add.path, err));
    }
  }
  if (sc->rt) {
    FAIL_IF(sc->n_pos != n, err, INLET_EINTERNAL, "file \"%s\": %lld row positions for %lld rows",
            f->add.path, (long long)sc->n_pos, (long long)n);
    TRY(rt_column(sc, out, ts->n_fields, sc->mat_id_col, f->add.base_row_id, 1, f, n, err));
    TRY(rt_column(sc, out, ts->n_fields + 1, sc->mat_ver_col, f->add.default_row_commit_version, 0,
                  f, n, err));
  }
  out->num_rows = n;
  return 0;
}

/* Reads @p ranges (NULL: all) of row group @p rg into sc->tmp; *n gets the
 * rows (their count alone when no column comes from the file). */
static int read_rows(delta_scan *sc, int32_t rg, const int64_t *ranges, int32_t n_ranges,
                     int64_t *n, inlet_error *err) {
  *n = inlet_parquet_reader_row_group_rows(sc->reader, rg);
  if (ranges) {
    *n = 0;
    for (int32_t k = 0; k < n_ranges; k++)
      *n += ranges[2 * k + 1] - ranges[2 * k];
  }
  if (sc->rt) {
    /* Each row's position in the file, counted before deletion vectors
     * drop rows ("Row IDs": the physical index). */
    if (*n > sc->cap_pos) {
      int64_t *p = inlet_realloc(sc->rpos, (size_t)*n * sizeof *p);
      if (!p) return inlet_fail(err, INLET_ENOMEM, "out of memory reading a row group");
      sc->rpos = p;
      sc->cap_pos = *n;
    }
    int64_t whole[2] = {0, inlet_parquet_reader_row_group_rows(sc->reader, rg)};
    const int64_t *rr = ranges ? ranges : whole;
    int32_t nr = ranges ? n_ranges : 1;
    sc->n_pos = 0;
    for (int32_t k = 0; k < nr; k++)
      for (int64_t i = rr[2 * k]; i < rr[2 * k + 1] && sc->n_pos < *n; i++)
        sc->rpos[sc->n_pos++] = sc->rg_first[rg] + i;
  }
  if (sc->n_proj == 0) return 0;
  /* Columns moved out of tmp last time are empty shells: start afresh. */
  inlet_batch_reset(&sc->tmp);
  memset(&sc->tmp, 0, sizeof sc->tmp);
  if (ranges && pq_reader_nested(sc->reader)) {
    /* Nested columns (structs, lists, maps, variants) are read a whole row
     * group at a time: read it and keep the rows of the ranges. */
    TRY(inlet_parquet_reader_read_row_group(sc->reader, rg, &sc->tmp, err));
    uint8_t *keep = inlet_calloc((size_t)sc->tmp.num_rows + 1, 1);
    if (!keep) return inlet_fail(err, INLET_ENOMEM, "out of memory reading a row group");
    for (int32_t k = 0; k < n_ranges; k++)
      for (int64_t i = ranges[2 * k]; i < ranges[2 * k + 1] && i < sc->tmp.num_rows; i++)
        keep[i] = 1;
    int rc = batch_keep_rows(&sc->tmp, keep, err);
    inlet_free(keep);
    TRY(rc);
  } else {
    TRY(ranges ? inlet_parquet_reader_read_rows(sc->reader, rg, ranges, n_ranges, &sc->tmp, err)
               : inlet_parquet_reader_read_row_group(sc->reader, rg, &sc->tmp, err));
  }
  *n = sc->tmp.num_rows;
  return 0;
}

/* Drops from the rows just read (@p ranges of row group @p rg, NULL: all
 * of it; *n of them) those the file's deletion vector deletes. */
static int drop_deleted(delta_scan *sc, int32_t rg, const int64_t *ranges, int32_t n_ranges,
                        int64_t *n, inlet_error *err) {
  int64_t whole[2] = {0, inlet_parquet_reader_row_group_rows(sc->reader, rg)};
  if (!ranges) {
    ranges = whole;
    n_ranges = 1;
  }
  uint64_t base = (uint64_t)sc->rg_first[rg], deleted = 0;
  for (int32_t k = 0; k < n_ranges; k++)
    deleted += delta_dv_count_range(sc->dv, base + (uint64_t)ranges[2 * k],
                                    base + (uint64_t)ranges[2 * k + 1]);
  if (deleted == 0) return 0;
  if (sc->rt) {
    int64_t k = 0;
    for (int64_t i = 0; i < sc->n_pos; i++)
      if (!delta_dv_contains(sc->dv, (uint64_t)sc->rpos[i])) sc->rpos[k++] = sc->rpos[i];
    sc->n_pos = k;
  }
  if (sc->n_proj == 0) {
    *n -= (int64_t)deleted;
    return 0;
  }
  int64_t rows = sc->tmp.num_rows;
  if (rows > sc->cap_keep) {
    uint8_t *p = inlet_realloc(sc->keep, (size_t)rows);
    if (!p) return inlet_fail(err, INLET_ENOMEM, "out of memory applying a deletion vector");
    sc->keep = p;
    sc->cap_keep = rows;
  }
  int64_t r = 0, kept = 0;
  for (int32_t k = 0; k < n_ranges; k++)
    for (int64_t i = ranges[2 * k]; i < ranges[2 * k + 1] && r < rows; i++, r++) {
      sc->keep[r] = !delta_dv_contains(sc->dv, base + (uint64_t)i);
      kept += sc->keep[r];
    }
  FAIL_IF(r != rows, err, INLET_ECORRUPT, "row group %d: read %lld rows where %lld were asked for",
          (int)rg, (long long)rows, (long long)r);
  TRY(batch_keep_rows(&sc->tmp, sc->keep, err));
  FAIL_IF(sc->tmp.num_rows != kept, err, INLET_EINTERNAL,
          "row group %d: %lld rows kept where the deletion vector leaves %lld", (int)rg,
          (long long)sc->tmp.num_rows, (long long)kept);
  *n = kept;
  return 0;
}

int delta_scan_next(delta_scan *sc, inlet_batch *out, inlet_error *err) {
  const delta_snapshot *s = &sc->snap->snap;
  for (;;) {
    if (!sc->reader) {
      if (sc->file >= sc->end_file) return 0;
      if (sc->keep_file && !sc->keep_file[sc->file]) {
        sc->file++;
        continue;
      }
      TRY(open_next_file(sc, err));
    }
    const delta_file *f = &s->files[sc->file - 1];
    int64_t n = 0;
    if (sc->slice_rg >= 0) {
      int32_t n_slice = 0;
      TRY(slice_next(sc, &n_slice, err));
      if (n_slice == 0) {
        sc->slice_rg = -1;
        continue;
      }
      TRY(read_rows(sc, sc->slice_rg, sc->slice, n_slice, &n, err));
      if (sc->dv) TRY(drop_deleted(sc, sc->slice_rg, sc->slice, n_slice, &n, err));
    } else {
      if (sc->rg >= sc->n_rg) {
        close_reader(sc);
        continue;
      }
      const int64_t *ranges = NULL;
      int32_t n_ranges = 0;
      if (sc->decide) {
        if (!sc->asked) {
          /* The caller judges the row group before anything is read. */
          sc->asked = true;
          sc->chosen_keep = true;
          sc->chosen = NULL;
          sc->n_chosen = 0;
          return DELTA_SCAN_ROW_GROUP;
        }
        sc->asked = false;
        if (!sc->chosen_keep) {
          sc->rg++;
          continue;
        }
        ranges = sc->chosen;
        n_ranges = sc->n_chosen;
      }
      int32_t rg = sc->rg++;
      if (sc->window > 0) {
        /* A limit bounds the work: read the row group slice by slice. */
        TRY(slice_begin(sc, rg, ranges, n_ranges,
                        inlet_parquet_reader_row_group_rows(sc->reader, rg), err));
        continue;
      }
      TRY(read_rows(sc, rg, ranges, n_ranges, &n, err));
      if (sc->dv) TRY(drop_deleted(sc, rg, ranges, n_ranges, &n, err));
    }
    if (n == 0) continue;
    TRY(shape_batch(sc, f, n, out, err));
    return 1;
  }
}
