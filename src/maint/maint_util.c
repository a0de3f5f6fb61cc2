/*
 * Helpers of the maintenance module: duration parsing (Delta's "interval N
 * unit" table property form, PROTOCOL.md "Table Properties" such as
 * delta.logRetentionDuration, plus CLI forms like "7d" or "12h"), partition
 * predicates for `inlet compact --where`, and partition keys and labels.
 *
 * Partition values are compared as the strings the log stores (PROTOCOL.md
 * "Partition Value Serialization"): numerically when both sides parse as
 * numbers, otherwise byte-wise, which orders ISO dates and timestamps
 * correctly.
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

/* ---- predicates ------------------------------------------------------------------ */

void maint_pred_reset(maint_pred *p) {
  for (int32_t i = 0; i < p->n_terms; i++) {
    inlet_free(p->terms[i].column);
    inlet_free(p->terms[i].value);
  }
  inlet_free(p->terms);
  memset(p, 0, sizeof *p);
}

/* Reads one token at *s: an identifier/bare literal, a quoted literal or an
 * operator. Quoted tokens report *quoted. Returns a malloc'd copy, or NULL
 * at the end (*oom on allocation failure, *bad on an unterminated quote). */
static char *next_token(const char **s, bool *quoted, bool *oom, bool *bad) {
  const char *p = *s;
  *quoted = false;
  while (isspace((unsigned char)*p)) p++;
  if (!*p) {
    *s = p;
    return NULL;
  }
  const char *start = p;
  char *tok;
  if (*p == '\'' || *p == '"' || *p == '`') {
    char q = *p++;
    inlet_buf b = INLET_BUF_INIT;
    for (;;) {
      if (!*p) {
        *bad = true;
        inlet_buf_reset(&b);
        return NULL;
      }
      if (*p == q) {
        if (p[1] == q) { /* doubled quote = literal quote */
          inlet_buf_push(&b, (uint8_t)q);
          p += 2;
          continue;
        }
        p++;
        break;
      }
      inlet_buf_push(&b, (uint8_t)*p++);
    }
    inlet_buf_terminate(&b);
    if (inlet_buf_status(&b)) {
      *oom = true;
      inlet_buf_reset(&b);
      return NULL;
    }
    tok = b.data ? (char *)inlet_buf_detach(&b, NULL) : inlet_strdup("");
    *quoted = q != '`';
  } else if (strchr("=!<>", *p)) {
    p++;
    if (*p == '=' || (*start == '<' && *p == '>')) p++;
    tok = inlet_strndup(start, (size_t)(p - start));
  } else {
    while (*p && !isspace((unsigned char)*p) && !strchr("=!<>'\"`", *p)) p++;
    tok = inlet_strndup(start, (size_t)(p - start));
  }
  if (!tok) *oom = true;
  *s = p;
  return tok;
}

static bool is_kw(const char *tok, bool quoted, const char *kw) {
  return tok && !quoted && ieq(tok, strlen(tok), kw);
}

int maint_pred_parse(maint_pred *out, const char *text, const delta_metadata *meta,
                     inlet_error *err) {
  memset(out, 0, sizeof *out);
  if (!text) return 0;
  const char *s = text;
  int rc = 0;
  char *col = NULL, *op = NULL, *val = NULL;
  bool q, oom = false, bad = false;
  for (;;) {
    col = next_token(&s, &q, &oom, &bad);
    if (!col) {
      if (oom) rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
      else if (bad) rc = inlet_fail(err, INLET_EINVAL, "predicate \"%s\": unterminated quote", text);
      else if (out->n_terms == 0)
        rc = inlet_fail(err, INLET_EINVAL, "empty partition predicate");
      else rc = inlet_fail(err, INLET_EINVAL, "predicate \"%s\": dangling AND", text);
      goto done;
    }
    bool known = false;
    for (int32_t i = 0; i < meta->n_partition_columns; i++)
      known |= strcmp(meta->partition_columns[i], col) == 0;
    FAIL_GOTO(!known, err, INLET_EINVAL, "predicate \"%s\": \"%s\" is not a partition column "
              "(compaction selects whole partitions)", text, col);
    op = next_token(&s, &q, &oom, &bad);
    FAIL_GOTO(oom, err, INLET_ENOMEM, "out of memory");
    FAIL_GOTO(!op || q, err, INLET_EINVAL, "predicate \"%s\": expected an operator after \"%s\"",
              text, col);
    maint_op mop;
    if (is_kw(op, q, "is")) {
      inlet_free(op);
      op = next_token(&s, &q, &oom, &bad);
      mop = MAINT_OP_IS_NULL;
      if (is_kw(op, q, "not")) {
        inlet_free(op);
        op = next_token(&s, &q, &oom, &bad);
        mop = MAINT_OP_NOT_NULL;
      }
      FAIL_GOTO(!is_kw(op, q, "null"), err, INLET_EINVAL,
                "predicate \"%s\": expected IS [NOT] NULL", text);
    } else {
      if (strcmp(op, "=") == 0 || strcmp(op, "==") == 0) mop = MAINT_OP_EQ;
      else if (strcmp(op, "!=") == 0 || strcmp(op, "<>") == 0) mop = MAINT_OP_NE;
      else if (strcmp(op, "<") == 0) mop = MAINT_OP_LT;
      else if (strcmp(op, "<=") == 0) mop = MAINT_OP_LE;
      else if (strcmp(op, ">") == 0) mop = MAINT_OP_GT;
      else if (strcmp(op, ">=") == 0) mop = MAINT_OP_GE;
      else {
        rc = inlet_fail(err, INLET_EINVAL, "predicate \"%s\": unknown operator \"%s\"", text, op);
        goto done;
      }
      val = next_token(&s, &q, &oom, &bad);
      FAIL_GOTO(oom, err, INLET_ENOMEM, "out of memory");
      FAIL_GOTO(bad, err, INLET_EINVAL, "predicate \"%s\": unterminated quote", text);
      FAIL_GOTO(!val, err, INLET_EINVAL, "predicate \"%s\": missing value after \"%s %s\"", text,
                col, op);
    }
    inlet_free(op);
    op = NULL;
    maint_term *nt = inlet_realloc(out->terms, ((size_t)out->n_terms + 1) * sizeof *nt);
    FAIL_GOTO(!nt, err, INLET_ENOMEM, "out of memory");
    out->terms = nt;
    out->terms[out->n_terms++] = (maint_term){col, mop, val};
    col = val = NULL;
    char *conj = next_token(&s, &q, &oom, &bad);
    if (!conj) {
      FAIL_GOTO(oom || bad, err, oom ? INLET_ENOMEM : INLET_EINVAL, "bad predicate \"%s\"", text);
      break;
    }
    bool is_and = is_kw(conj, q, "and");
    inlet_free(conj);
    FAIL_GOTO(!is_and, err, INLET_EINVAL, "predicate \"%s\": only AND joins comparisons", text);
  }
done:
  inlet_free(col);
  inlet_free(op);
  inlet_free(val);
  if (rc < 0) maint_pred_reset(out);
  return rc;
}

static bool as_number(const char *s, double *out) {
  if (!*s) return false;
  char *end;
  errno = 0;
  *out = strtod(s, &end);
  return errno == 0 && *end == '\0';
}

bool maint_pred_match(const maint_pred *p, const delta_add *add) {
  for (int32_t i = 0; i < p->n_terms; i++) {
    const maint_term *t = &p->terms[i];
    bool found;
    const char *v = maint_partition_value(add, t->column, &found);
    if (t->op == MAINT_OP_IS_NULL) {
      if (v) return false;
      continue;
    }
    if (t->op == MAINT_OP_NOT_NULL) {
      if (!v) return false;
      continue;
    }
    if (!v) return false; /* SQL: a comparison with null is not true */
    double a, b;
    int c;
    if (as_number(v, &a) && as_number(t->value, &b)) c = a < b ? -1 : a > b;
    else c = strcmp(v, t->value);
    bool ok;
    switch (t->op) {
    case MAINT_OP_EQ: ok = c == 0; break;
    case MAINT_OP_NE: ok = c != 0; break;
    case MAINT_OP_LT: ok = c < 0; break;
    case MAINT_OP_LE: ok = c <= 0; break;
    case MAINT_OP_GT: ok = c > 0; break;
    default: ok = c >= 0; break;
    }
    if (!ok) return false;
  }
  return true;
}
