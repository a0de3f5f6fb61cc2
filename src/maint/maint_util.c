/*
 * Helpers of the maintenance module: duration parsing (Delta's "interval N
 * unit" table property form, PROTOCOL.md "Table Properties" such as
 * delta.logRetentionDuration, plus CLI forms like "7d" or "12h"), partition
 * predicates for `inlet compact --where`, and partition keys and labels.
 *
 * `compact --where` is the language of `scan --where` (src/expr): the
 * partition values the log stores (PROTOCOL.md "Partition Value
 * Serialization") are read as values of their columns' types, so numbers
 * compare as numbers and dates as dates.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>

#include "maint/maint_int.h"
#include "util/buf.h"
#include "util/util.h"

/* ---- durations ------------------------------------------------------------- */

static bool ieq(const char *a, size_t n, const char *b) {
  if (strlen(b) != n) return false;
  for (size_t i = 0; i < n; i++)
    if (tolower((unsigned char)a[i]) != b[i]) return false;
  return true;
}

static int64_t unit_ms(const char *u, size_t n) {
  static const struct { const char *name; int64_t ms; } units[] = {
      {"ms", 1},          {"millisecond", 1},     {"milliseconds", 1}, {"s", 1000},
      {"sec", 1000},      {"secs", 1000},         {"second", 1000},    {"seconds", 1000},
      {"m", 60000},       {"min", 60000},         {"mins", 60000},     {"minute", 60000},
      {"minutes", 60000}, {"h", 3600000},         {"hour", 3600000},   {"hours", 3600000},
      {"d", 86400000},    {"day", 86400000},      {"days", 86400000},  {"w", 604800000},
      {"week", 604800000},{"weeks", 604800000}};
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if (ieq(u, n, units[i].name)) return units[i].ms;
  return -1;
}

int inlet_duration_parse(int64_t *out_ms, const char *text, inlet_error *err) {
  FAIL_IF(!text, err, INLET_EINVAL, "missing duration");
  const char *p = text;
  while (isspace((unsigned char)*p)) p++;
  if (strncmp(p, "interval", 8) == 0 && isspace((unsigned char)p[8])) p += 8;
  while (isspace((unsigned char)*p)) p++;
  FAIL_IF(!isdigit((unsigned char)*p), err, INLET_EINVAL,
          "bad duration \"%s\" (expected e.g. 7d, 12h, 30m, \"interval 1 week\")", text);
  errno = 0;
  char *end;
  long long n = strtoll(p, &end, 10);
  FAIL_IF(errno != 0 || n < 0, err, INLET_EINVAL, "duration \"%s\" out of range", text);
  p = end;
  while (isspace((unsigned char)*p)) p++;
  const char *u = p;
  while (isalpha((unsigned char)*p)) p++;
  size_t ulen = (size_t)(p - u);
  while (isspace((unsigned char)*p)) p++;
  FAIL_IF(*p != '\0', err, INLET_EINVAL, "bad duration \"%s\": trailing text", text);
  int64_t ms = ulen ? unit_ms(u, ulen) : 1;
  FAIL_IF(ms < 0, err, INLET_EINVAL, "bad duration \"%s\": unknown unit \"%.*s\"", text,
          (int)ulen, u);
  int64_t r;
  FAIL_IF(inlet_mul_overflow_i64((int64_t)n, ms, &r), err, INLET_EINVAL,
          "duration \"%s\" out of range", text);
  *out_ms = r;
  return 0;
}

int64_t maint_conf_size(const delta_metadata *meta, const char *key, int64_t dflt) {
  const char *v = delta_metadata_conf(meta, key);
  if (!v || !isdigit((unsigned char)*v)) return dflt;
  errno = 0;
  char *end;
  long long n = strtoll(v, &end, 10);
  if (errno || n <= 0) return dflt;
  int shift = 0;
  switch (*end) {
  case 'k': case 'K': shift = 10; end++; break;
  case 'm': case 'M': shift = 20; end++; break;
  case 'g': case 'G': shift = 30; end++; break;
  default: break;
  }
  if (*end == 'i' || *end == 'I') end++;
  if (*end == 'b' || *end == 'B') end++;
  if (*end) return dflt;
  if (n > (INT64_MAX >> shift)) return dflt;
  return (int64_t)n << shift;
}

/* ---- partition values -------------------------------------------------------- */

const char *maint_partition_value(const delta_add *add, const char *col, bool *found) {
  for (int32_t i = 0; i < add->n_partition_values; i++)
    if (strcmp(add->partition_values[i].key, col) == 0) {
      *found = true;
      return add->partition_values[i].value;
    }
  *found = false;
  return NULL;
}

int maint_partition_names(char **label, char **key, const delta_add *add,
                          const delta_metadata *meta, inlet_error *err) {
  inlet_buf l = INLET_BUF_INIT, k = INLET_BUF_INIT;
  for (int32_t i = 0; i < meta->n_partition_columns; i++) {
    const char *col = meta->partition_columns[i];
    bool found;
    const char *v = maint_partition_value(add, col, &found);
    if (i) inlet_buf_push(&l, '/');
    inlet_buf_appendf(&l, "%s=%s", col, v ? v : "__HIVE_DEFAULT_PARTITION__");
    /* \x1e marks a null so it never equals the string "__HIVE_..." or "". */
    if (v) {
      inlet_buf_puts(&k, v);
    } else {
      inlet_buf_push(&k, 0x1e);
    }
    inlet_buf_push(&k, 0x1f);
  }
  inlet_buf_terminate(&l);
  inlet_buf_terminate(&k);
  if (inlet_buf_status(&l) || inlet_buf_status(&k)) {
    inlet_buf_reset(&l);
    inlet_buf_reset(&k);
    return inlet_fail(err, INLET_ENOMEM, "out of memory");
  }
  *label = l.data ? (char *)inlet_buf_detach(&l, NULL) : inlet_strdup("");
  *key = k.data ? (char *)inlet_buf_detach(&k, NULL) : inlet_strdup("");
  if (!*label || !*key) {
    inlet_free(*label);
    inlet_free(*key);
    return inlet_fail(err, INLET_ENOMEM, "out of memory");
  }
  return 0;
}

/* ---- partition predicates ------------------------------------------------------- */

int maint_where_parse(inlet_predicate **out, const char *text, const inlet_schema *schema,
                      const delta_metadata *meta, inlet_error *err) {
  *out = NULL;
  inlet_predicate *p = NULL;
  TRY(expr_parse(&p, text, schema, EXPR_WHERE, err));
  for (int32_t i = 0; i < p->n_cols; i++) {
    const char *col = schema->fields[p->cols[i]].name;
    bool known = false;
    for (int32_t k = 0; k < meta->n_partition_columns; k++)
      known |= strcmp(meta->partition_columns[k], col) == 0;
    if (!known) {
      int rc = inlet_fail(err, INLET_EINVAL,
                          "predicate \"%s\": \"%s\" is not a partition column (compaction "
                          "selects whole partitions)",
                          text, col);
      expr_free(p);
      return rc;
    }
  }
  *out = p;
  return 0;
}

int maint_where_match(const inlet_predicate *p, const delta_add *const *adds, int64_t n,
                      uint8_t *keep, inlet_error *err) {
  /* One row per file, in slices: the partition columns the predicate reads
   * hold each file's values, the other columns stay empty. */
  enum { SLICE = 4096 };
  inlet_batch b;
  memset(&b, 0, sizeof b);
  TRY(inlet_batch_init(&b, &p->schema, err));
  int rc = 0;
  for (int64_t s = 0; s < n; s += SLICE) {
    int64_t m = n - s < SLICE ? n - s : SLICE;
    for (int32_t i = 0; i < p->n_cols; i++) {
      const inlet_field *f = &p->schema.fields[p->cols[i]];
      inlet_array *a = &b.columns[p->cols[i]];
      inlet_array_clear(a);
      for (int64_t k = 0; k < m; k++) {
        bool found;
        const char *v = maint_partition_value(adds[s + k], f->name, &found);
        rc = delta_partition_value_append(a, f, v, 1, err);
        if (rc < 0) {
          inlet_error_prefix(err, "file \"%s\"", adds[s + k]->path);
          goto done;
        }
      }
    }
    b.num_rows = m;
    TRY_GOTO(expr_eval(p, &b, 0, m, keep + s, err));
    for (int64_t k = 0; k < m; k++) keep[s + k] = keep[s + k] == EXPR_TRUE;
  }
done:
  inlet_batch_reset(&b);
  return rc;
}
