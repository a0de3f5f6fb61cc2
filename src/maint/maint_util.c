/*
 * Helpers of the maintenance module: size-valued table properties,
 * partition predicates for `inlet compact --where`, and partition keys and
 * labels. (Durations are read by util/duration.c.)
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

int64_t maint_conf_size(const delta_metadata *meta, const char *key, int64_t dflt) {
  const char *v = delta_metadata_conf(meta, key);
  if (!v || !isdigit((unsigned char)*v)) return dflt;
  errno = 0;
  char *end;
  long long n = strtoll(v, &end, 10);
  if (errno || n <= 0) return dflt;
  int shift = 0;
  switch (*end) {
  case 'k':
  case 'K':
    shift = 10;
    end++;
    break;
  case 'm':
  case 'M':
    shift = 20;
    end++;
    break;
  case 'g':
  case 'G':
    shift = 30;
    end++;
    break;
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

const char *maint_physical_name(const delta_snapshot *s, const char *logical) {
  const inlet_schema *ps = delta_snapshot_physical(s);
  if (ps == &s->schema) return logical;
  int k = inlet_schema_find(&s->schema, logical);
  return k >= 0 && k < ps->n_fields ? ps->fields[k].name : logical;
}

bool maint_same_type(const inlet_field *a, const inlet_field *b) {
  char x[256], y[256];
  inlet_field_type_name(a, x, sizeof x);
  inlet_field_type_name(b, y, sizeof y);
  return strcmp(x, y) == 0;
}

int maint_take_pages(pq_raw_chunk **raw, pq_raw_chunk *cap, const int32_t *idx,
                     const inlet_schema *table, const inlet_schema *read, inlet_error *err) {
  for (int32_t i = 0; i < table->n_fields; i++) {
    if (idx[i] < 0 || !(cap[idx[i]].valid || cap[idx[i]].dict_valid) ||
        !maint_same_type(&table->fields[i], &read->fields[idx[i]]))
      continue;
    if (!*raw) {
      *raw = inlet_calloc((size_t)table->n_fields, sizeof **raw);
      FAIL_IF(!*raw, err, INLET_ENOMEM, "out of memory");
    }
    (*raw)[i] = cap[idx[i]]; /* moved */
    memset(&cap[idx[i]], 0, sizeof cap[idx[i]]);
  }
  return 0;
}

int maint_take_column(inlet_array *dst, const inlet_field *tf, const inlet_field *pf,
                      inlet_array *src, const inlet_field *sf, int64_t n, const char *path,
                      int32_t rg, inlet_error *err) {
  if (maint_same_type(pf, sf)) {
    inlet_array t = *dst;
    *dst = *src;
    *src = t;
  } else {
    TRY(delta_conform_column(dst, tf, pf, src, sf, n, path, err));
  }
  FAIL_IF(!tf->nullable && dst->null_count > 0, err, INLET_ECORRUPT,
          "\"%s\" row group %d: nulls in NOT NULL column \"%s\"", path, (int)rg, tf->name);
  return 0;
}

int maint_partition_names(char **label, char **key, const delta_add *add, const delta_snapshot *s,
                          inlet_error *err) {
  const delta_metadata *meta = &s->metadata;
  inlet_buf l = INLET_BUF_INIT;
  for (int32_t i = 0; i < meta->n_partition_columns; i++) {
    const char *col = meta->partition_columns[i];
    bool found;
    const char *v = maint_partition_value(add, maint_physical_name(s, col), &found);
    if (i) inlet_buf_push(&l, '/');
    inlet_buf_appendf(&l, "%s=%s", col, v ? v : "__HIVE_DEFAULT_PARTITION__");
  }
  inlet_buf_terminate(&l);
  if (inlet_buf_status(&l)) {
    inlet_buf_reset(&l);
    return inlet_fail(err, INLET_ENOMEM, "out of memory");
  }
  *label = l.data ? (char *)inlet_buf_detach(&l, NULL) : inlet_strdup("");
  if (!*label) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  int rc = delta_partition_key(key, add, s, err);
  if (rc < 0) {
    inlet_free(*label);
    *label = NULL;
  }
  return rc;
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

int maint_where_match(const inlet_predicate *p, const inlet_schema *phys,
                      const delta_add *const *adds, int64_t n, uint8_t *keep, inlet_error *err) {
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
        const char *key =
            phys && p->cols[i] < phys->n_fields ? phys->fields[p->cols[i]].name : f->name;
        const char *v = maint_partition_value(adds[s + k], key, &found);
        rc = delta_partition_value_append(a, f, v, 1, err);
        if (rc < 0) {
          inlet_error_prefix(err, "file \"%s\"", adds[s + k]->path);
          goto done;
        }
      }
    }
    b.num_rows = m;
    TRY_GOTO(expr_eval(p, &b, 0, m, keep + s, err));
    for (int64_t k = 0; k < m; k++)
      keep[s + k] = keep[s + k] == EXPR_TRUE;
  }
done:
  inlet_batch_reset(&b);
  return rc;
}
