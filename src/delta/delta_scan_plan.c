/*
 * The scan plan of a snapshot (delta.h "scan plan"): what the log says
 * about each live file for skipping, parsed once per snapshot instead of
 * once per scan. Per file: add.stats (PROTOCOL.md "Per-file Statistics":
 * numRecords, minValues, maxValues, nullCount) for each top-level column,
 * and add.partitionValues typed by their column (PROTOCOL.md "Partition
 * Value Serialization").
 *
 * Bounds are only ever loosened, never guessed: a column without stats,
 * an unparseable or nested value, a float max (NaN sorts above every
 * number yet writers leave it out of max) and a string max that may be a
 * truncated prefix all count as "unknown". Timestamp maxima are widened
 * by the sub-millisecond part writers cut off.
 *
 * Memory: one plan_col (48 bytes) per file and top-level column plus the
 * bytes of string bounds, proportional to the files like the snapshot
 * itself, and built only when a filtered scan asks for it.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "delta/delta_table_int.h"
#include "util/util.h"

/* A bound or partition value in the form of its column's expr_kind; byte
 * values live in the plan's bytes buffer (offsets stay valid as it grows). */
typedef union plan_value {
  int64_t i;
  uint64_t u;
  double d;
  expr_i128 q;
  struct {
    uint64_t off, len;
  } b;
} plan_value;

enum { PC_MIN = 1, PC_MAX = 2 };
enum { PV_UNKNOWN = 0, PV_NULL, PV_VALUE };

typedef struct plan_col {
  plan_value min, max;
  int64_t null_count; /* -1 unknown */
  uint8_t has;        /* PC_MIN | PC_MAX */
} plan_col;

typedef struct plan_pv {
  plan_value v;
  uint8_t state; /* PV_* */
} plan_pv;

struct delta_scan_plan {
  const inlet_schema *schema; /* borrowed: the snapshot's physical schema */
  int32_t n_cols, n_part;
  int64_t n_files;
  int32_t *part_col; /* owned: schema column of each partition column (n_part), -1 none */
  int64_t *rows;     /* owned, per file: numRecords (stats), -1 unknown */
  int64_t *log_rows; /* owned, per file: delta_file.num_records */
  plan_col *cols;    /* owned, n_files * n_cols */
  plan_pv *pvs;      /* owned, n_files * n_part */
  inlet_buf bytes;   /* owned: string bounds and values */
};

static atomic_llong plan_builds;

int64_t delta_scan_plan_builds(void) {
  return (int64_t)atomic_load(&plan_builds);
}

/* ---- building ---------------------------------------------------------------- */

typedef struct builder {
  delta_scan_plan *p;
  plan_col *cols; /* of the file being parsed */
  int64_t rows;
  inlet_buf scratch;
  inlet_array arr; /* parse target of one value */
} builder;

static int find_col(const inlet_schema *s, const char *name, size_t n) {
  for (int32_t i = 0; i < s->n_fields; i++)
    if (strlen(s->fields[i].name) == n && strncasecmp(s->fields[i].name, name, n) == 0) return i;
  return -1;
}

/* Keeps value @p v (kind @p k, bytes borrowed) in @p out. False: out of
 * memory (the bound then stays unknown: skipping only reads more). */
static bool keep_value(delta_scan_plan *p, plan_value *out, expr_kind k, const expr_value *v) {
  memset(out, 0, sizeof *out);
  switch (k) {
  case EXK_I64: out->i = v->i; break;
  case EXK_U64: out->u = v->u; break;
  case EXK_F64: out->d = v->d; break;
  case EXK_I128: out->q = v->q; break;
  case EXK_BYTES:
    out->b.off = p->bytes.len;
    out->b.len = v->n;
    inlet_buf_append(&p->bytes, v->p, v->n);
    return inlet_buf_status(&p->bytes) == 0;
  default: return false;
  }
  return true;
}

/* Sets bound @p which (0 min, 1 max) of column @p c from text @p s. */
static void set_bound(builder *b, int32_t c, int which, const char *s, size_t n) {
  const inlet_field *f = &b->p->schema->fields[c];
  expr_kind k = expr_kind_of(&f->type);
  /* Floats: NaN hides above max; booleans and binaries carry no order in
   * Delta stats. */
  if (k == EXK_NONE || f->type.id == INLET_TYPE_BOOL || f->type.id == INLET_TYPE_BINARY) return;
  if (k == EXK_F64 && which == 1) return;
  if (which == 1 && f->type.id == INLET_TYPE_STRING) {
    /* A max cut to Delta's 32-character prefix without the tie-breaker
     * character is not an upper bound. */
    size_t chars = 0;
    for (size_t i = 0; i < n; i++)
      chars += ((unsigned char)s[i] & 0xc0) != 0x80;
    if (chars == 32) return;
  }
  inlet_array_reset(&b->arr);
  memset(&b->arr, 0, sizeof b->arr);
  char reason[384];
  if (expr_literal_parse(&b->arr, f, s, n, false, reason, sizeof reason) < 0 ||
      b->arr.length != 1 || !inlet_array_is_valid(&b->arr, 0))
    return;
  expr_value v;
  memset(&v, 0, sizeof v);
  expr_value_get(&v, k, &f->type, &b->arr, 0);
  if (k == EXK_F64 && v.d != v.d) return; /* NaN bound: unknown */
  if (which == 1 && f->type.id == INLET_TYPE_TIMESTAMP) {
    /* Stats keep milliseconds; the column may hold finer ticks. */
    int64_t add = f->type.unit == INLET_UNIT_MICRO  ? 999
                  : f->type.unit == INLET_UNIT_NANO ? 999999
                                                    : 0;
    if (v.i > INT64_MAX - add) return;
    v.i += add;
  }
  plan_col *pc = &b->cols[c];
  if (!keep_value(b->p, which ? &pc->max : &pc->min, k, &v)) return;
  pc->has |= which ? PC_MAX : PC_MIN;
}

/* ---- a minimal JSON walker over add.stats ------------------------------- */

typedef struct jw {
  const char *p, *end;
  inlet_buf *scratch;
} jw;

static void ws(jw *j) {
  while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
    j->p++;
}

/* Reads a JSON string (at '"') unescaped into j->scratch. */
static bool jstring(jw *j) {
  if (j->p >= j->end || *j->p != '"') return false;
  const char *start = ++j->p;
  while (j->p < j->end && *j->p != '"') {
    if (*j->p == '\\' && ++j->p == j->end) return false;
    j->p++;
  }
  if (j->p >= j->end) return false;
  inlet_buf_clear(j->scratch);
  if (!inlet_json_unescape(j->scratch, start, (size_t)(j->p - start))) return false;
  j->p++;
  return inlet_buf_status(j->scratch) == 0;
}

static const char *scratch_text(const jw *j) {
  return j->scratch->data ? (const char *)j->scratch->data : "";
}

/* Skips any JSON value. */
static bool jskip(jw *j, int depth) {
  ws(j);
  if (j->p >= j->end || depth > 64) return false;
  char c = *j->p;
  if (c == '"') return jstring(j);
  if (c == '{' || c == '[') {
    char close = c == '{' ? '}' : ']';
    j->p++;
    ws(j);
    if (j->p < j->end && *j->p == close) return j->p++, true;
    for (;;) {
      if (c == '{') {
        ws(j);
        if (!jstring(j)) return false;
        ws(j);
        if (j->p >= j->end || *j->p != ':') return false;
        j->p++;
      }
      if (!jskip(j, depth + 1)) return false;
      ws(j);
      if (j->p >= j->end) return false;
      if (*j->p == ',') {
        j->p++;
        continue;
      }
      if (*j->p == close) return j->p++, true;
      return false;
    }
  }
  while (j->p < j->end && *j->p != ',' && *j->p != '}' && *j->p != ']' && *j->p != ' ')
    j->p++;
  return true;
}

/* Walks object @p j (at '{'), taking each top-level key that names a
 * schema column. which: 0 min, 1 max, 2 nullCount. */
static bool jcolumns(jw *j, builder *b, int which) {
  ws(j);
  if (j->p >= j->end || *j->p != '{') return jskip(j, 0);
  j->p++;
  ws(j);
  if (j->p < j->end && *j->p == '}') return j->p++, true;
  for (;;) {
    ws(j);
    if (!jstring(j)) return false;
    int c = find_col(b->p->schema, scratch_text(j), j->scratch->len);
    ws(j);
    if (j->p >= j->end || *j->p != ':') return false;
    j->p++;
    ws(j);
    if (j->p >= j->end) return false;
    const char *v = j->p;
    if (c >= 0 && *v == '"') {
      if (!jstring(j)) return false;
      if (which < 2) set_bound(b, c, which, scratch_text(j), j->scratch->len);
    } else {
      if (!jskip(j, 1)) return false;
      if (c >= 0 && *v != '{' && *v != '[' && *v != 'n') {
        size_t n = (size_t)(j->p - v);
        while (n && (v[n - 1] == ' ' || v[n - 1] == '\n'))
          n--;
        if (which < 2) {
          set_bound(b, c, which, v, n);
        } else {
          char num[32];
          if (n < sizeof num) {
            memcpy(num, v, n);
            num[n] = 0;
            char *e;
            long long x = strtoll(num, &e, 10);
            if (!*e && x >= 0) b->cols[c].null_count = x;
          }
        }
      }
    }
    ws(j);
    if (j->p >= j->end) return false;
    if (*j->p == ',') {
      j->p++;
      continue;
    }
    if (*j->p == '}') return j->p++, true;
    return false;
  }
}

/* Parses add.stats @p json (NULL or malformed: nothing learnt) into
 * b->cols and b->rows. */
static void parse_stats(builder *b, const char *json) {
  if (!json) return;
  jw j = {json, json + strlen(json), &b->scratch};
  ws(&j);
  if (j.p >= j.end || *j.p != '{') return;
  j.p++;
  for (;;) {
    ws(&j);
    if (j.p < j.end && *j.p == '}') break;
    if (!jstring(&j)) goto bad;
    char key[16];
    snprintf(key, sizeof key, "%.*s", (int)(j.scratch->len < 15 ? j.scratch->len : 15),
             scratch_text(&j));
    ws(&j);
    if (j.p >= j.end || *j.p != ':') goto bad;
    j.p++;
    ws(&j);
    bool ok;
    if (strcmp(key, "minValues") == 0)
      ok = jcolumns(&j, b, 0);
    else if (strcmp(key, "maxValues") == 0)
      ok = jcolumns(&j, b, 1);
    else if (strcmp(key, "nullCount") == 0)
      ok = jcolumns(&j, b, 2);
    else if (strcmp(key, "numRecords") == 0) {
      const char *v = j.p;
      ok = jskip(&j, 0);
      char *e;
      long long x = strtoll(v, &e, 10);
      if (ok && e == j.p && x >= 0 && b->rows < 0) b->rows = x;
    } else
      ok = jskip(&j, 0);
    if (!ok) goto bad;
    ws(&j);
    if (j.p < j.end && *j.p == ',') {
      j.p++;
      continue;
    }
    break;
  }
  return;
bad:
  /* Malformed stats only cost skipping: forget what was gathered (the row
   * count read before the fault stays, as it is a fact about the file). */
  for (int32_t c = 0; c < b->p->n_cols; c++) {
    memset(&b->cols[c], 0, sizeof b->cols[c]);
    b->cols[c].null_count = -1;
  }
}

/* Types partition value @p value of column @p c into @p out. A value the
 * column's type cannot hold stays unknown: the scan itself reports it. */
static int parse_pv(builder *b, plan_pv *out, int32_t c, const char *value, inlet_error *err) {
  memset(out, 0, sizeof *out);
  if (c < 0) return 0;
  if (value == NULL || value[0] == '\0') {
    out->state = PV_NULL;
    return 0;
  }
  const inlet_field *f = &b->p->schema->fields[c];
  expr_kind k = expr_kind_of(&f->type);
  inlet_array_reset(&b->arr);
  int rc = inlet_array_init(&b->arr, f, err);
  if (rc == 0) rc = delta_partition_value_append(&b->arr, f, value, 1, err);
  if (rc == INLET_ECORRUPT || k == EXK_NONE) return 0;
  if (rc < 0) return rc;
  expr_value v;
  memset(&v, 0, sizeof v);
  expr_value_get(&v, k, &f->type, &b->arr, 0);
  if (!keep_value(b->p, &out->v, k, &v))
    return inlet_fail(err, INLET_ENOMEM, "out of memory planning a scan");
  out->state = PV_VALUE;
  return 0;
}

int delta_scan_plan_build(delta_scan_plan **out, const delta_snapshot *s, inlet_error *err) {
  *out = NULL;
  int rc = 0;
  builder b;
  memset(&b, 0, sizeof b);
  inlet_buf_init(&b.scratch);
  delta_scan_plan *p = inlet_calloc(1, sizeof *p);
  if (!p) return inlet_fail(err, INLET_ENOMEM, "out of memory planning a scan");
  b.p = p;
  inlet_buf_init(&p->bytes);
  /* Stats and partitionValues use physical names (column mapping). */
  p->schema = delta_snapshot_physical(s);
  p->n_cols = p->schema->n_fields;
  p->n_part = s->metadata.n_partition_columns;
  p->n_files = s->n_files;
  size_t nf = (size_t)s->n_files, nc = (size_t)p->n_cols, np = (size_t)p->n_part;
  p->part_col = inlet_calloc(np + 1, sizeof *p->part_col);
  p->rows = inlet_calloc(nf + 1, sizeof *p->rows);
  p->log_rows = inlet_calloc(nf + 1, sizeof *p->log_rows);
  p->cols = nc && nf > SIZE_MAX / sizeof *p->cols / nc ? NULL
                                                       : inlet_calloc(nf * nc + 1, sizeof *p->cols);
  p->pvs =
      np && nf > SIZE_MAX / sizeof *p->pvs / np ? NULL : inlet_calloc(nf * np + 1, sizeof *p->pvs);
  FAIL_GOTO(!p->part_col || !p->rows || !p->log_rows || !p->cols || !p->pvs, err, INLET_ENOMEM,
            "out of memory planning a scan of %lld files", (long long)s->n_files);
  /* A partition column is the table column of that name (exactly, else
   * case-insensitively); its value is the log's under the physical name. */
  for (int32_t k = 0; k < p->n_part; k++) {
    p->part_col[k] = inlet_schema_find(&s->schema, s->metadata.partition_columns[k]);
    for (int32_t c = 0; c < s->schema.n_fields && p->part_col[k] < 0; c++)
      if (strcasecmp(s->schema.fields[c].name, s->metadata.partition_columns[k]) == 0)
        p->part_col[k] = c;
  }
  for (int64_t i = 0; i < s->n_files; i++) {
    const delta_file *f = &s->files[i];
    b.cols = &p->cols[(size_t)i * nc];
    for (size_t c = 0; c < nc; c++)
      b.cols[c].null_count = -1;
    b.rows = f->num_records;
    parse_stats(&b, f->add.stats);
    p->rows[i] = b.rows;
    p->log_rows[i] = f->num_records;
    for (int32_t k = 0; k < p->n_part; k++) {
      int32_t c = p->part_col[k];
      const char *v = NULL;
      for (int32_t q = 0; c >= 0 && q < f->add.n_partition_values; q++)
        if (strcmp(f->add.partition_values[q].key, p->schema->fields[c].name) == 0)
          v = f->add.partition_values[q].value;
      TRY_GOTO(parse_pv(&b, &p->pvs[(size_t)i * np + (size_t)k], c, v, err));
    }
  }
  FAIL_GOTO(inlet_buf_status(&p->bytes) < 0, err, INLET_ENOMEM, "out of memory planning a scan");
  atomic_fetch_add(&plan_builds, 1);
done:
  inlet_array_reset(&b.arr);
  inlet_buf_reset(&b.scratch);
  if (rc < 0) {
    delta_scan_plan_free(p);
    return rc;
  }
  *out = p;
  return 0;
}

void delta_scan_plan_free(delta_scan_plan *p) {
  if (!p) return;
  inlet_free(p->part_col);
  inlet_free(p->rows);
  inlet_free(p->log_rows);
  inlet_free(p->cols);
  inlet_free(p->pvs);
  inlet_buf_reset(&p->bytes);
  inlet_free(p);
}

int delta_snapshot_scan_plan(const delta_scan_plan **out, const inlet_snapshot *s,
                             inlet_error *err) {
  /* The cache is the snapshot's own (a handle is used by one thread at a
   * time, include/inlet/table.h), built on the first filtered scan. */
  inlet_snapshot *m = (inlet_snapshot *)s;
  if (!m->plan) TRY(delta_scan_plan_build(&m->plan, &s->snap, err));
  *out = m->plan;
  return 0;
}

/* ---- reading ----------------------------------------------------------------- */

static void get_value(const delta_scan_plan *p, expr_value *v, expr_kind k, const plan_value *pv) {
  switch (k) {
  case EXK_I64: v->i = pv->i; break;
  case EXK_U64: v->u = pv->u; break;
  case EXK_F64: v->d = pv->d; break;
  case EXK_I128: v->q = pv->q; break;
  case EXK_BYTES:
    v->p = p->bytes.data ? p->bytes.data + pv->b.off : (const uint8_t *)"";
    v->n = (size_t)pv->b.len;
    break;
  default: break;
  }
}

int64_t delta_scan_plan_num_files(const delta_scan_plan *p) {
  return p->n_files;
}

int64_t delta_scan_plan_log_rows(const delta_scan_plan *p, int64_t file) {
  return p->log_rows[file];
}

void delta_scan_plan_stats(const delta_scan_plan *p, int64_t file, expr_colstats *cols) {
  const plan_col *pc = &p->cols[(size_t)file * (size_t)p->n_cols];
  for (int32_t c = 0; c < p->n_cols; c++) {
    expr_colstats *cs = &cols[c];
    memset(cs, 0, sizeof *cs);
    cs->null_count = pc[c].null_count;
    cs->rows = p->rows[file];
    expr_kind k = expr_kind_of(&p->schema->fields[c].type);
    if (pc[c].has & PC_MIN) {
      get_value(p, &cs->min, k, &pc[c].min);
      cs->has_min = true;
    }
    if (pc[c].has & PC_MAX) {
      get_value(p, &cs->max, k, &pc[c].max);
      cs->has_max = true;
    }
  }
}

void delta_scan_plan_partitions(const delta_scan_plan *p, int64_t file, expr_colstats *cols) {
  const plan_pv *pv = &p->pvs[(size_t)file * (size_t)p->n_part];
  for (int32_t k = 0; k < p->n_part; k++) {
    int32_t c = p->part_col[k];
    if (c < 0) continue;
    expr_colstats *cs = &cols[c];
    switch (pv[k].state) {
    case PV_NULL:
      /* A null partition value: every row of the file is null. */
      cs->has_min = cs->has_max = false;
      cs->null_count = cs->rows >= 0 ? cs->rows : 1;
      if (cs->rows < 0) cs->rows = 1;
      break;
    case PV_VALUE:
      get_value(p, &cs->min, expr_kind_of(&p->schema->fields[c].type), &pv[k].v);
      cs->max = cs->min;
      cs->has_min = cs->has_max = true;
      cs->null_count = 0;
      break;
    default: cs->has_min = cs->has_max = false; break;
    }
  }
}
