/*
 * Column statistics for skipping: what add.stats (PROTOCOL.md "Per-file
 * Statistics": numRecords, minValues, maxValues, nullCount) and a file's
 * partition values (PROTOCOL.md "Partition Value Serialization") say about
 * each top-level column of a file, as sc_colstats for sc_pred_possible.
 *
 * Bounds are only ever loosened, never guessed: a column without stats,
 * an unparseable or nested value, a float bound (NaN sorts above every
 * number yet writers leave it out of max) and a string max that may be a
 * truncated prefix all count as "unknown". Timestamp maxima are widened
 * by the sub-millisecond part writers cut off.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "delta/delta.h"
#include "scan/scan_stats.h"

void sc_file_stats_init(sc_file_stats *fs, const inlet_schema *schema) {
  memset(fs, 0, sizeof fs[0]);
  fs->schema = schema;
}

void sc_file_stats_reset(sc_file_stats *fs) {
  if (fs->mins) {
    for (int32_t i = 0; i < fs->n; i++) {
      inlet_array_reset(&fs->mins[i]);
      inlet_array_reset(&fs->maxs[i]);
    }
  }
  inlet_free(fs->mins);
  inlet_free(fs->maxs);
  inlet_free(fs->cols);
  inlet_buf_reset(&fs->scratch);
  memset(fs, 0, sizeof *fs);
}

/* Prepares for a new file: every column unknown. */
int sc_file_stats_begin(sc_file_stats *fs, int64_t rows, inlet_error *err) {
  int32_t n = fs->schema->n_fields;
  if (!fs->cols) {
    fs->cols = inlet_calloc((size_t)n + 1, sizeof *fs->cols);
    fs->mins = inlet_calloc((size_t)n + 1, sizeof *fs->mins);
    fs->maxs = inlet_calloc((size_t)n + 1, sizeof *fs->maxs);
    if (!fs->cols || !fs->mins || !fs->maxs)
      return inlet_fail(err, INLET_ENOMEM, "out of memory reading statistics");
    fs->n = n;
  }
  for (int32_t i = 0; i < n; i++) {
    inlet_array_reset(&fs->mins[i]);
    inlet_array_reset(&fs->maxs[i]);
    memset(&fs->mins[i], 0, sizeof fs->mins[i]);
    memset(&fs->maxs[i], 0, sizeof fs->maxs[i]);
    memset(&fs->cols[i], 0, sizeof fs->cols[i]);
    fs->cols[i].null_count = -1;
    fs->cols[i].rows = rows;
  }
  return 0;
}

static int find_col(const inlet_schema *s, const char *name, size_t n) {
  for (int32_t i = 0; i < s->n_fields; i++)
    if (strlen(s->fields[i].name) == n && strncasecmp(s->fields[i].name, name, n) == 0) return i;
  return -1;
}

/* Sets bound @p which (0 min, 1 max) of column @p c from text @p s. */
static void set_bound(sc_file_stats *fs, int32_t c, int which, const char *s, size_t n) {
  const inlet_field *f = &fs->schema->fields[c];
  sc_kind k = sc_kind_of(&f->type);
  /* Floats: NaN hides above max; booleans and binaries carry no order in
   * Delta stats. */
  if (k == SCK_NONE || f->type.id == INLET_TYPE_BOOL || f->type.id == INLET_TYPE_BINARY) return;
  if (k == SCK_F64 && which == 1) return;
  if (which == 1 && f->type.id == INLET_TYPE_STRING) {
    /* A max cut to Delta's 32-character prefix without the tie-breaker
     * character is not an upper bound. */
    size_t chars = 0;
    for (size_t i = 0; i < n; i++)
      chars += ((unsigned char)s[i] & 0xc0) != 0x80;
    if (chars == 32) return;
  }
  inlet_array *arr = which ? &fs->maxs[c] : &fs->mins[c];
  inlet_array_reset(arr);
  char reason[384];
  if (sc_literal_parse(arr, f, s, n, false, reason, sizeof reason) < 0 || arr->length != 1 ||
      !inlet_array_is_valid(arr, 0)) {
    inlet_array_reset(arr);
    memset(arr, 0, sizeof *arr);
    return;
  }
  sc_colstats *cs = &fs->cols[c];
  sc_value *v = which ? &cs->max : &cs->min;
  sc_value_get(v, k, &f->type, arr, 0);
  if (k == SCK_F64 && v->d != v->d) return; /* NaN bound: unknown */
  if (which == 1 && f->type.id == INLET_TYPE_TIMESTAMP) {
    /* Stats keep milliseconds; the column may hold finer ticks. */
    int64_t add = f->type.unit == INLET_UNIT_MICRO  ? 999
                  : f->type.unit == INLET_UNIT_NANO ? 999999
                                                    : 0;
    if (v->i <= INT64_MAX - add)
      v->i += add;
    else
      return;
  }
  if (which)
    cs->has_max = true;
  else
    cs->has_min = true;
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

/* Walks object @p j (at '{'), calling the handler for each top-level key
 * that names a schema column. which: 0 min, 1 max, 2 nullCount. */
static bool jcolumns(jw *j, sc_file_stats *fs, int which) {
  ws(j);
  if (j->p >= j->end || *j->p != '{') return jskip(j, 0);
  j->p++;
  ws(j);
  if (j->p < j->end && *j->p == '}') return j->p++, true;
  for (;;) {
    ws(j);
    if (!jstring(j)) return false;
    int c = find_col(fs->schema, j->scratch->data ? (const char *)j->scratch->data : "",
                     j->scratch->len);
    ws(j);
    if (j->p >= j->end || *j->p != ':') return false;
    j->p++;
    ws(j);
    if (j->p >= j->end) return false;
    const char *v = j->p;
    if (c >= 0 && *v == '"') {
      if (!jstring(j)) return false;
      if (which < 2)
        set_bound(fs, c, which, j->scratch->data ? (const char *)j->scratch->data : "",
                  j->scratch->len);
    } else {
      if (!jskip(j, 1)) return false;
      if (c >= 0 && *v != '{' && *v != '[' && *v != 'n') {
        size_t n = (size_t)(j->p - v);
        while (n && (v[n - 1] == ' ' || v[n - 1] == '\n'))
          n--;
        if (which < 2) {
          set_bound(fs, c, which, v, n);
        } else {
          char num[32];
          if (n < sizeof num) {
            memcpy(num, v, n);
            num[n] = 0;
            char *e;
            long long x = strtoll(num, &e, 10);
            if (!*e && x >= 0) fs->cols[c].null_count = x;
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

int sc_file_stats_from_json(sc_file_stats *fs, const char *json) {
  if (!json) return 0;
  jw j = {json, json + strlen(json), &fs->scratch};
  ws(&j);
  if (j.p >= j.end || *j.p != '{') return 0;
  j.p++;
  for (;;) {
    ws(&j);
    if (j.p < j.end && *j.p == '}') break;
    if (!jstring(&j)) goto bad;
    char key[16];
    snprintf(key, sizeof key, "%.*s", (int)(j.scratch->len < 15 ? j.scratch->len : 15),
             j.scratch->data ? (const char *)j.scratch->data : "");
    ws(&j);
    if (j.p >= j.end || *j.p != ':') goto bad;
    j.p++;
    ws(&j);
    bool ok;
    if (strcmp(key, "minValues") == 0)
      ok = jcolumns(&j, fs, 0);
    else if (strcmp(key, "maxValues") == 0)
      ok = jcolumns(&j, fs, 1);
    else if (strcmp(key, "nullCount") == 0)
      ok = jcolumns(&j, fs, 2);
    else if (strcmp(key, "numRecords") == 0) {
      const char *v = j.p;
      ok = jskip(&j, 0);
      char *e;
      long long x = strtoll(v, &e, 10);
      if (ok && e == j.p && x >= 0)
        for (int32_t c = 0; c < fs->n; c++)
          if (fs->cols[c].rows < 0) fs->cols[c].rows = x;
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
  return 0;
bad:
  /* Malformed stats only cost skipping: forget what was gathered. */
  for (int32_t c = 0; c < fs->n; c++) {
    int64_t rows = fs->cols[c].rows;
    memset(&fs->cols[c], 0, sizeof fs->cols[c]);
    fs->cols[c].null_count = -1;
    fs->cols[c].rows = rows;
  }
  return 0;
}

int sc_file_stats_partition(sc_file_stats *fs, int32_t c, const char *value, inlet_error *err) {
  const inlet_field *f = &fs->schema->fields[c];
  sc_colstats *cs = &fs->cols[c];
  if (value == NULL || value[0] == '\0') {
    /* A null partition value: every row of the file is null. */
    cs->has_min = cs->has_max = false;
    cs->null_count = cs->rows >= 0 ? cs->rows : 1;
    if (cs->rows < 0) cs->rows = 1;
    return 0;
  }
  inlet_array *arr = &fs->mins[c];
  inlet_array_reset(arr);
  int rc = inlet_array_init(arr, f, err);
  if (rc == 0) rc = delta_partition_value_append(arr, f, value, 1, err);
  sc_kind k = sc_kind_of(&f->type);
  if (rc == INLET_ECORRUPT || k == SCK_NONE) {
    /* The scan itself reports a bad value; skipping just stays unsure. */
    inlet_array_reset(arr);
    memset(arr, 0, sizeof *arr);
    cs->has_min = cs->has_max = false;
    return 0;
  }
  if (rc < 0) return rc;
  sc_value_get(&cs->min, k, &f->type, arr, 0);
  cs->max = cs->min;
  cs->has_min = cs->has_max = true;
  cs->null_count = 0;
  return 0;
}
