/*
 * `inlet parquet meta FILE [--json]`: the file's footer (schema elements,
 * row groups, column chunks, encodings, codecs, sizes, statistics) from
 * inlet_parquet_reader_metadata_json. --json prints that document as is;
 * otherwise it is shown as indented "key: value" lines, arrays of scalars
 * on one line, for people. The renderer reads any JSON, so it follows
 * whatever fields the library adds.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: inlet parquet meta FILE [--json]\n"
    "Prints the footer: row groups, column chunks, encodings, codecs, sizes, statistics.\n"
    "  --json  as one JSON object\n";

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } jkind;

typedef struct jnode {
  jkind kind;
  const char *text; /* J_BOOL/J_NUM: raw token; J_STR: raw inside the quotes */
  size_t len;
  int n;              /* children */
  struct jnode *kids; /* owned */
  const char **keys;  /* J_OBJ: raw key texts (owned array) */
  size_t *key_lens;   /* owned */
} jnode;

static void jfree(jnode *j) {
  for (int i = 0; i < j->n; i++)
    jfree(&j->kids[i]);
  free(j->kids);
  free(j->keys);
  free(j->key_lens);
}

static void ws(const char **p) {
  while (**p == ' ' || **p == '\n' || **p == '\r' || **p == '\t')
    (*p)++;
}

static bool jstring(const char **p, const char **s, size_t *n) {
  if (**p != '"') return false;
  const char *q = *p + 1;
  while (*q && *q != '"')
    q += (*q == '\\' && q[1]) ? 2 : 1;
  if (*q != '"') return false;
  *s = *p + 1;
  *n = (size_t)(q - *s);
  *p = q + 1;
  return true;
}

static bool jparse(const char **p, jnode *out, int depth) {
  memset(out, 0, sizeof *out);
  if (depth > 100) return false;
  ws(p);
  char c = **p;
  if (c == '{' || c == '[') {
    out->kind = c == '{' ? J_OBJ : J_ARR;
    (*p)++;
    ws(p);
    char close = c == '{' ? '}' : ']';
    if (**p == close) {
      (*p)++;
      return true;
    }
    for (;;) {
      jnode *k = realloc(out->kids, sizeof *k * (size_t)(out->n + 1));
      if (!k) return false;
      out->kids = k;
      if (out->kind == J_OBJ) {
        const char **ks = realloc(out->keys, sizeof *ks * (size_t)(out->n + 1));
        if (!ks) return false;
        out->keys = ks;
        size_t *kl = realloc(out->key_lens, sizeof *kl * (size_t)(out->n + 1));
        if (!kl) return false;
        out->key_lens = kl;
        ws(p);
        if (!jstring(p, &out->keys[out->n], &out->key_lens[out->n])) return false;
        ws(p);
        if (**p != ':') return false;
        (*p)++;
      }
      bool ok = jparse(p, &out->kids[out->n], depth + 1);
      out->n++;
      if (!ok) return false;
      ws(p);
      if (**p == ',') {
        (*p)++;
        continue;
      }
      if (**p == close) {
        (*p)++;
        return true;
      }
      return false;
    }
  }
  if (c == '"') {
    out->kind = J_STR;
    return jstring(p, &out->text, &out->len);
  }
  const char *s = *p;
  while (**p && !strchr(",]} \n\r\t", **p))
    (*p)++;
  if (*p == s) return false;
  out->text = s;
  out->len = (size_t)(*p - s);
  out->kind = (out->len == 4 && !memcmp(s, "null", 4)) ? J_NULL
              : (s[0] == 't' || s[0] == 'f')           ? J_BOOL
                                                       : J_NUM;
  return true;
}

/* Prints a JSON string's content with the common escapes undone. */
static void put_raw_string(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '\\' && i + 1 < n) {
      char e = s[++i];
      putchar(e == 'n' ? ' ' : e == 't' ? ' ' : e == 'u' ? '?' : e);
      if (e == 'u') i += 4 < n - i ? 4 : n - i - 1;
    } else {
      putchar(s[i]);
    }
  }
}

static bool scalar(const jnode *j) {
  return j->kind != J_ARR && j->kind != J_OBJ;
}

static void put_scalar(const jnode *j) {
  if (j->kind == J_STR) {
    if (j->len == 0)
      fputs("\"\"", stdout);
    else
      put_raw_string(j->text, j->len);
  } else {
    fwrite(j->text, 1, j->len, stdout);
  }
}

static bool inline_array(const jnode *j) {
  for (int i = 0; i < j->n; i++)
    if (!scalar(&j->kids[i])) return false;
  return true;
}

static void indent(int d) {
  for (int i = 0; i < d; i++)
    fputs("  ", stdout);
}

static void render(const jnode *j, int d);

static void render_value_after_key(const jnode *v, int d) {
  if (scalar(v)) {
    putchar(' ');
    put_scalar(v);
    putchar('\n');
  } else if (v->kind == J_ARR && inline_array(v)) {
    fputs(" [", stdout);
    for (int i = 0; i < v->n; i++) {
      if (i) fputs(", ", stdout);
      put_scalar(&v->kids[i]);
    }
    fputs("]\n", stdout);
  } else if (v->n == 0) {
    fputs(v->kind == J_ARR ? " []\n" : " {}\n", stdout);
  } else {
    putchar('\n');
    render(v, d + 1);
  }
}

static void render(const jnode *j, int d) {
  if (j->kind == J_OBJ) {
    for (int i = 0; i < j->n; i++) {
      indent(d);
      put_raw_string(j->keys[i], j->key_lens[i]);
      putchar(':');
      render_value_after_key(&j->kids[i], d);
    }
  } else if (j->kind == J_ARR) {
    for (int i = 0; i < j->n; i++) {
      const jnode *k = &j->kids[i];
      indent(d);
      fputs("-", stdout);
      if (k->kind == J_OBJ && k->n > 0) {
        /* First key on the dash line, the rest aligned under it. */
        putchar(' ');
        put_raw_string(k->keys[0], k->key_lens[0]);
        putchar(':');
        render_value_after_key(&k->kids[0], d + 1);
        jnode rest = *k;
        rest.n = k->n - 1;
        rest.kids = k->kids + 1;
        rest.keys = k->keys + 1;
        rest.key_lens = k->key_lens + 1;
        render(&rest, d + 1);
      } else {
        render_value_after_key(k, d);
      }
    }
  } else {
    indent(d);
    put_scalar(j);
    putchar('\n');
  }
}

static const cli_opt opts[] = {CLI_OPT_FLAG("json")};

static int cmd_parquet_meta(const cli_args *a) {
  bool json = cli_flag(a, "json");
  const char *const *pos = a->pos;
  int rc;
  if (a->n_pos != 1) return cli_usage_error(usage, "parquet meta: missing FILE");
  inlet_error err = INLET_ERROR_INIT;
  inlet_parquet_reader *r = NULL;
  if (inlet_parquet_reader_open(&r, pos[0], NULL, &err) < 0) return cli_fail(&err);
  char *text = NULL;
  rc = inlet_parquet_reader_metadata_json(r, &text, &err);
  inlet_parquet_reader_free(r);
  if (rc < 0) return cli_fail(&err);
  if (json) {
    fputs(text, stdout);
    if (!*text || text[strlen(text) - 1] != '\n') putchar('\n');
    inlet_string_free(text);
    return CLI_OK;
  }
  jnode root;
  const char *p = text;
  bool ok = jparse(&p, &root, 0);
  if (ok) render(&root, 0);
  jfree(&root);
  inlet_string_free(text);
  if (!ok) return cli_error("%s: the library returned malformed metadata JSON", pos[0]);
  return CLI_OK;
}

const cli_command cli_cmd_parquet_meta = {"parquet meta",
                                          cmd_parquet_meta,
                                          "FILE [--json]",
                                          "row groups, column chunks, encodings, sizes, statistics",
                                          usage,
                                          opts,
                                          (int)(sizeof opts / sizeof opts[0]),
                                          1};
