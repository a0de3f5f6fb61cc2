/*
 * libFuzzer harness driving ingestion end to end, in process (issue 12):
 * the input picks a schema (column types, partition columns among them,
 * column name lengths), records (values of every kind, partition values of
 * random bytes and lengths, nulls, missing fields, hostile numbers) in NDJSON
 * or CSV — or takes its own bytes as the source file — and batch sizes; the
 * table is created by the first batch or beforehand, in a scratch directory;
 * raw NDJSON sources half the time ingest with schema evolution 'add'; a
 * quarter of the inputs ingest on 3 threads (records converted ahead on the
 * pool, a chunk written while the next is converted).
 * `inlet_ingest_run(--once)` must then
 *   - succeed (raw input may fail only with INLET_EINVAL: a CSV header that
 *     lacks a NOT NULL column);
 *   - leave a table that reads back with exactly the rows it reports, each
 *     generated record's id at most once, its string partition values
 *     exactly as written;
 *   - account for every generated record: rows + rejected = records;
 *   - leave one valid JSON dead letter with a reason per rejected record.
 * Any violation aborts; ASan/UBSan and the leak checker do the rest.
 */
#include <dirent.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delta/delta.h"
#include "fuzz_table_support.h"
#include "util/buf.h"

#define MAX_COLS 6
#define MAX_RECORDS 160

enum kind { K_LONG, K_INT, K_STRING, K_DOUBLE, K_BOOL, K_DATE, K_TS, K_DECIMAL, K_N };
static const char *const type_ddl[K_N] = {"long",    "int",  "string",    "double",
                                          "boolean", "date", "timestamp", "decimal(10,2)"};

typedef struct spec {
  int n_cols;
  int kinds[MAX_COLS];
  char names[MAX_COLS][300];
  int n_part;
  int part[2]; /* column indexes */
  bool csv;
} spec;

/* The string partition values written per record (NULL: none/null). */
typedef struct expect {
  char *pval[MAX_RECORDS][2];
  size_t plen[MAX_RECORDS][2];
  int n_records;
  uint8_t seen[MAX_RECORDS];
  int pcol[2]; /* column index in the scanned batch of each partition column */
  bool pstring[2];
  bool bad;
} expect;

static void put_json_string(inlet_buf *b, const uint8_t *s, size_t n) {
  inlet_buf_push(b, '"');
  for (size_t i = 0; i < n; i++) {
    uint8_t c = s[i];
    if (c == '"' || c == '\\') {
      inlet_buf_push(b, '\\');
      inlet_buf_push(b, c);
    } else if (c < 0x20) {
      inlet_buf_appendf(b, "\\u%04x", c); /* \u0000 too: a NUL inside the value */
    } else {
      inlet_buf_push(b, c); /* bytes >= 0x80 raw: invalid UTF-8 must be refused */
    }
  }
  inlet_buf_push(b, '"');
}

static void put_csv_string(inlet_buf *b, const uint8_t *s, size_t n) {
  inlet_buf_push(b, '"');
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '"') inlet_buf_push(b, '"');
    inlet_buf_push(b, s[i]); /* line breaks stay: a quoted field may hold them */
  }
  inlet_buf_push(b, '"');
}

/* A value for a column of kind @p k; *str and *len get a string value's bytes
 * (for the expectations) when it is one. Returns false for a null. */
static bool put_value(inlet_buf *b, fz_in *in, int k, bool csv, const uint8_t **str, size_t *len) {
  uint8_t how = fz_u8(in);
  *str = NULL;
  *len = 0;
  if (how % 16 == 0) {
    if (!csv) inlet_buf_puts(b, "null");
    return false;
  }
  if (how % 16 == 1) { /* text of the input, whatever the type */
    size_t n;
    const uint8_t *p = fz_bytes(in, fz_u8(in) % 24, &n);
    if (csv)
      put_csv_string(b, p, n);
    else
      put_json_string(b, p, n);
    if (k == K_STRING) *str = p, *len = n;
    return true;
  }
  switch (k) {
  case K_LONG:
    inlet_buf_appendf(b, "%lld", (long long)(int64_t)((uint64_t)fz_u16(in) << 48 | fz_u16(in)));
    break;
  case K_INT:
    inlet_buf_appendf(b, "%lld", (long long)(int16_t)fz_u16(in) * (how & 0x80 ? 70000 : 1));
    break;
  case K_DOUBLE: {
    static const char *const odd[] = {"1e999",        "-1e999", "1e-999", "\"NaN\"",
                                      "\"Infinity\"", "0.1",    "-0",     "1.7976931348623157e308"};
    if (how & 0x40)
      inlet_buf_puts(b, odd[fz_u8(in) % 8]);
    else
      inlet_buf_appendf(b, "%d.%d", (int16_t)fz_u16(in), fz_u8(in));
    break;
  }
  case K_BOOL: inlet_buf_puts(b, how & 0x20 ? "true" : "false"); break;
  case K_DATE:
    inlet_buf_appendf(b, "\"%04d-%02d-%02d\"", 1900 + fz_u8(in), 1 + fz_u8(in) % 13,
                      1 + fz_u8(in) % 31);
    break;
  case K_TS:
    inlet_buf_appendf(b, "\"2024-%02d-%02dT%02d:%02d:00Z\"", 1 + fz_u8(in) % 12, 1 + fz_u8(in) % 28,
                      fz_u8(in) % 25, fz_u8(in) % 60);
    break;
  case K_DECIMAL:
    inlet_buf_appendf(b, "%lld.%02d", (long long)(int16_t)fz_u16(in) * (how & 0x80 ? 100000 : 1),
                      fz_u8(in) % 100);
    break;
  default: { /* K_STRING: random bytes, random length, up to ~770 */
    size_t want = (size_t)fz_u8(in) * (how & 0x80 ? 3 : 1) + (how & 0x40 ? 5 : 0);
    size_t n;
    const uint8_t *p = fz_bytes(in, want, &n);
    if (csv)
      put_csv_string(b, p, n);
    else
      put_json_string(b, p, n);
    *str = p;
    *len = n;
  }
  }
  return true;
}

static void on_row(void *ctx, const inlet_batch *b, int64_t row) {
  expect *x = ctx;
  const inlet_array *ids = &b->columns[0];
  if (!inlet_array_is_valid(ids, row)) abort(); /* id is NOT NULL */
  int64_t id = ((const int64_t *)ids->values)[row];
  if (id < 0 || id >= x->n_records || x->seen[id]) abort(); /* unknown or twice */
  x->seen[id] = 1;
  for (int p = 0; p < 2; p++) {
    if (!x->pstring[p] || !x->pval[id][p]) continue;
    const inlet_array *a = &b->columns[x->pcol[p]];
    if (!inlet_array_is_valid(a, row)) abort(); /* a value came back null */
    int32_t lo = a->offsets[row], hi = a->offsets[row + 1];
    if ((size_t)(hi - lo) != x->plen[id][p] ||
        memcmp(a->values + lo, x->pval[id][p], x->plen[id][p]) != 0)
      abort(); /* the partition value did not round-trip */
  }
}

/* Dead letters: one valid JSON object with a reason per line. */
static int64_t count_dead_letters(const char *table) {
  char dir[4300];
  snprintf(dir, sizeof dir, "%s/_errors/fz", table);
  DIR *d = opendir(dir);
  if (!d) return 0;
  int64_t n = 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    if (de->d_name[0] == '.') {
      if (strncmp(de->d_name, ".tmp-", 5) == 0) abort(); /* a run that returned left one */
      continue;
    }
    char p[4600];
    snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
    FILE *f = fopen(p, "r");
    if (!f) abort();
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) > 0) {
      json_error_t je;
      json_t *j = json_loadb(line, (size_t)len, JSON_ALLOW_NUL, &je); /* \\u0000 is valid JSON */
      if (!j || !json_is_string(json_object_get(j, "reason"))) {
        fprintf(stderr, "bad dead letter (%s): %.*s\n", je.text, (int)len, line);
        abort();
      }
      json_decref(j);
      n++;
    }
    free(line);
    fclose(f);
  }
  closedir(d);
  return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 4) return 0;
  fz_in in = {data, size, 0};
  uint8_t flags = fz_u8(&in);
  spec sp;
  memset(&sp, 0, sizeof sp);
  sp.csv = flags & 1;
  bool raw = (flags & 0x0E) == 0x0E; /* 1 in 8: the input itself is the source file */
  bool precreate = flags & 0x10;
  /* Schema: id long not null, then up to 5 columns. */
  sp.n_cols = 2 + fz_u8(&in) % (MAX_COLS - 1);
  sp.kinds[0] = K_LONG;
  snprintf(sp.names[0], sizeof sp.names[0], "id");
  for (int i = 1; i < sp.n_cols; i++) {
    uint8_t t = fz_u8(&in);
    sp.kinds[i] = t % K_N;
    /* Mostly short names; sometimes long ones (a long partition column
     * name alone can make every directory name too long). */
    int len = t & 0x80 ? 1 + fz_u8(&in) : 1;
    snprintf(sp.names[i], sizeof sp.names[i], "c%d", i);
    for (int k = 1; k < len && k < 280; k++)
      strcat(sp.names[i], "x");
  }
  /* Partition columns: 0-2, keeping at least one data column. */
  int want_part = fz_u8(&in) % 3;
  for (int i = 1; i < sp.n_cols && sp.n_part < want_part && sp.n_part < sp.n_cols - 1; i++) {
    int k = sp.kinds[i];
    if (k == K_STRING || k == K_LONG || k == K_INT || k == K_DATE || k == K_BOOL ||
        (k == K_TS && flags & 0x20))
      sp.part[sp.n_part++] = i;
  }
  /* A partition column whose name leaves no room for NAME=__HIVE_DEFAULT_PARTITION__
   * in one directory name is refused by create (test_ingest_partition_values
   * checks that): such a schema tests nothing further here. */
  for (int p = 0; p < sp.n_part; p++) {
    inlet_error perr = INLET_ERROR_INIT;
    if (delta_partition_column_name_check(sp.names[sp.part[p]], &perr) < 0) return 0;
  }
  inlet_buf ddl = INLET_BUF_INIT;
  for (int i = 0; i < sp.n_cols; i++)
    inlet_buf_appendf(&ddl, "%s%s %s%s", i ? ", " : "", sp.names[i], type_ddl[sp.kinds[i]],
                      i == 0 ? " not null" : "");
  inlet_buf_terminate(&ddl);
  inlet_schema schema;
  if (inlet_buf_status(&ddl) || inlet_schema_parse(&schema, (const char *)ddl.data, NULL) != 0)
    abort();
  inlet_buf_reset(&ddl);

  /* The source file. */
  expect *x = calloc(1, sizeof *x);
  if (!x) abort();
  inlet_buf src = INLET_BUF_INIT;
  if (sp.csv) {
    for (int i = 0; i < sp.n_cols; i++)
      inlet_buf_appendf(&src, "%s%s", i ? "," : "", sp.names[i]);
    inlet_buf_push(&src, '\n');
  }
  if (raw) {
    size_t n;
    const uint8_t *p = fz_bytes(&in, size, &n);
    inlet_buf_append(&src, p, n);
  } else {
    while (fz_left(&in) && x->n_records < MAX_RECORDS) {
      int id = x->n_records++;
      uint8_t rf = fz_u8(&in);
      if (!sp.csv)
        inlet_buf_appendf(&src, "{\"id\":%d", id);
      else
        inlet_buf_appendf(&src, "%d", id);
      for (int i = 1; i < sp.n_cols; i++) {
        bool missing = !sp.csv && (rf >> (i % 8) & 1) && (rf & 0x80);
        if (sp.csv) inlet_buf_push(&src, ',');
        if (missing) continue;
        if (!sp.csv) inlet_buf_appendf(&src, ",\"%s\":", sp.names[i]);
        const uint8_t *str;
        size_t len;
        bool valid = put_value(&src, &in, sp.kinds[i], sp.csv, &str, &len);
        for (int p = 0; p < sp.n_part; p++)
          if (sp.part[p] == i && valid && str && len > 0) {
            x->pval[id][p] = malloc(len);
            if (!x->pval[id][p]) abort();
            memcpy(x->pval[id][p], str, len);
            x->plen[id][p] = len;
          }
      }
      if (!sp.csv) inlet_buf_push(&src, '}');
      inlet_buf_push(&src, '\n');
    }
  }
  if (inlet_buf_status(&src)) abort();

  char dir[4096], path[4200], table[4200], source[4300];
  fz_scratch(dir, sizeof dir, "ingest");
  snprintf(path, sizeof path, "%s/in.%s", dir, sp.csv ? "csv" : "ndjson");
  snprintf(table, sizeof table, "%s/t", dir);
  snprintf(source, sizeof source, "file:%s", path);
  FILE *f = fopen(path, "wb");
  if (!f) abort();
  if (src.len && fwrite(src.data, 1, src.len, f) != src.len) abort();
  fclose(f);
  inlet_buf_reset(&src);

  const char *pcols[2];
  for (int p = 0; p < sp.n_part; p++)
    pcols[p] = sp.names[sp.part[p]];
  inlet_table_create_options co = INLET_TABLE_CREATE_OPTIONS_INIT;
  co.n_partition_columns = sp.n_part;
  co.partition_columns = pcols;
  inlet_error err = INLET_ERROR_INIT;
  inlet_ingest_options o = INLET_INGEST_OPTIONS_INIT;
  o.source = source;
  o.format = sp.csv ? INLET_TEXT_CSV : INLET_TEXT_NDJSON;
  o.once = true;
  o.app_id = "fz";
  o.max_rows = 8 + (flags >> 6) * 40; /* several batches */
  o.threads = (flags & 0x42) == 0x42 ? 3 : 1;
  /* Raw NDJSON: half the time the unknown fields evolve the schema
   * (--schema-evolution add: types inferred from arbitrary JSON). */
  if (raw && !sp.csv && (flags & 0x20)) o.schema_evolution = INLET_SCHEMA_EVOLUTION_ADD;
  inlet_table *t = NULL;
  if (precreate) {
    if (inlet_table_create(&t, table, &schema, &co, &err) != 0) abort();
  } else {
    o.create_path = table;
    o.create_schema = &schema;
    o.create_options = &co;
  }
  inlet_ingest_progress prog;
  int rc = inlet_ingest_run(&prog, t, &o, &err);
  inlet_table_free(t);
  if (rc != 0 && !(raw && rc == INLET_EINVAL)) {
    fprintf(stderr, "ingest failed: %d %s\n", rc, err.message);
    abort();
  }
  if (rc == 0) {
    for (int p = 0; p < sp.n_part; p++) {
      x->pcol[p] = sp.part[p];
      x->pstring[p] = sp.kinds[sp.part[p]] == K_STRING;
    }
    struct stat st;
    bool exists = stat(table, &st) == 0;
    int64_t rows = 0;
    if (exists && prog.batches + (precreate ? 1 : 0) > 0) {
      rows = fz_scan(table, raw ? NULL : on_row, x, &err);
      if (rows < 0) {
        fprintf(stderr, "table unreadable: %s\n", err.message);
        abort();
      }
    }
    if (rows != prog.rows) abort();                                 /* rows reported = rows read */
    if (count_dead_letters(table) != prog.rejected) abort();        /* one dead letter each */
    if (!raw && prog.rows + prog.rejected != x->n_records) abort(); /* nothing lost */
  }
  for (int i = 0; i < x->n_records; i++)
    for (int p = 0; p < 2; p++)
      free(x->pval[i][p]);
  free(x);
  inlet_schema_reset(&schema);
  fz_rmtree(dir);
  return 0;
}
