/*
 * The public-tables conformance driver (public_tables.h). Everything runs
 * through the shell: tar unpacks, `find` lists the tables, refcheck and the
 * inlet binary read them. Findings are collected and reported together, so
 * one run shows every table that differs.
 */
#include "public_tables.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

typedef struct findings {
  char *text;
  size_t len, cap;
  int n;
} findings;

static void finding(findings *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void finding(findings *f, const char *fmt, ...) {
  char line[1200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  size_t n = strlen(line);
  if (f->len + n + 2 > f->cap) {
    f->cap = (f->len + n + 2) * 2;
    f->text = realloc(f->text, f->cap);
    assert_non_null(f->text);
  }
  memcpy(f->text + f->len, line, n);
  f->len += n;
  f->text[f->len++] = '\n';
  f->text[f->len] = '\0';
  f->n++;
}

static void run(tu_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void run(tu_result *r, const char *fmt, ...) {
  char *cmd = NULL;
  va_list ap;
  va_start(ap, fmt);
  assert_true(vasprintf(&cmd, fmt, ap) >= 0);
  va_end(ap);
  assert_int_equal(tu_sh(r, "%s", cmd), 0);
  free(cmd);
}

/* The first line of @p s (at most 300 bytes), for messages. */
static const char *first_line(const char *s, char *buf, size_t n) {
  size_t i = 0;
  while (s && s[i] && s[i] != '\n' && i + 1 < n && i < 300) {
    buf[i] = s[i];
    i++;
  }
  buf[i] = '\0';
  return buf;
}

static const char *reads_more(const char *table, const pt_reads_more *more, int n_more) {
  size_t tl = strlen(table);
  for (int i = 0; i < n_more; i++) {
    size_t sl = strlen(more[i].suffix);
    if (tl >= sl && strcmp(table + tl - sl, more[i].suffix) == 0) return more[i].why;
  }
  return NULL;
}

/* Splits @p text into lines in place; returns the count. */
static int lines(char *text, char ***out) {
  int n = 0, cap = 16;
  char **v = malloc((size_t)cap * sizeof *v);
  assert_non_null(v);
  for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
    if (n == cap) {
      cap *= 2;
      v = realloc(v, (size_t)cap * sizeof *v);
      assert_non_null(v);
    }
    v[n++] = l;
  }
  *out = v;
  return n;
}

typedef struct tally {
  int tables, versions, same, both_refuse, inlet_only, logs_equal;
} tally;

static void check_version(const char *dir, const char *table, const char *version,
                          const char *more_why, tally *t, findings *f) {
  char vopt[64] = "";
  if (version) snprintf(vopt, sizeof vopt, "--version %s", version);
  const char *at = version ? version : "latest";
  tu_result ref, got, cmp;
  run(&ref, "'%s' '%s' delta '%s' %s > '%s/exp.json'", INLET_NODE, INLET_REFCHECK, table, vopt,
      dir);
  run(&got, "'%s' scan '%s' %s --format ndjson > '%s/act.ndjson'", INLET_BIN, table, vopt, dir);
  char a[320];
  t->versions++;
  if (ref.status != 0 && ref.status != 3) {
    finding(f, "%s @%s: refcheck failed (exit %d): %s", table, at, ref.status,
            first_line(ref.err, a, sizeof a));
  } else if (strstr(got.err, "Sanitizer") || strstr(got.err, "runtime error")) {
    finding(f, "%s @%s: inlet: %s", table, at, first_line(got.err, a, sizeof a));
  } else if (ref.status == 0 && got.status == 0) {
    run(&cmp, "'%s' '%s' compare '%s/exp.json' '%s/act.ndjson' --ndjson", INLET_NODE,
        INLET_REFCHECK, dir, dir);
    if (cmp.status == 0)
      t->same++;
    else
      finding(f, "%s @%s: rows differ from refcheck's:\n%s", table, at, cmp.out);
    tu_result_free(&cmp);
  } else if (ref.status == 0) {
    finding(f, "%s @%s: refcheck reads it, inlet refuses (exit %d): %s", table, at, got.status,
            first_line(got.err, a, sizeof a));
  } else if (got.status == 0) {
    char path[4200];
    snprintf(path, sizeof path, "%s/exp.json", dir);
    char *exp = tu_read_file(path, NULL);
    if (more_why)
      t->inlet_only++;
    else
      finding(f, "%s @%s: inlet reads it, refcheck refuses: %s", table, at,
              first_line(exp, a, sizeof a));
    free(exp);
  } else if (!more_why &&
             (got.status == 3 || got.status == 5 || got.status == 6 || got.status == 7) &&
             got.err[0]) {
    t->both_refuse++;
  } else {
    finding(f, "%s @%s: refused with exit %d (want 3, 5, 6 or 7 and a message%s): %s", table, at,
            got.status, more_why ? "; and inlet should read it" : "",
            first_line(got.err, a, sizeof a));
  }
  tu_result_free(&ref);
  tu_result_free(&got);
}

/* The latest snapshot's version and file count, refcheck's log summary
 * against `inlet describe --json`. */
static void check_log(const char *table, tally *t, findings *f) {
  tu_result ref, got;
  /* jq picks the two numbers: the summary's stats may hold integers beyond
   * what jansson parses (type widening's long maxima, printed as doubles). */
  run(&ref, "'%s' '%s' log '%s' | jq -c '{version, num_active_files}'", INLET_NODE, INLET_REFCHECK,
      table);
  /* A refusal prints {"error"}: jq then gives a null version. */
  if (ref.status != 0 || !strstr(ref.out, "\"version\":") || strstr(ref.out, "\"version\":null")) {
    tu_result_free(&ref);
    return;
  }
  run(&got, "'%s' describe '%s' --json", INLET_BIN, table);
  json_t *rj = json_loads(ref.out, 0, NULL), *gj = json_loads(got.out, 0, NULL);
  char a[320];
  if (!rj) {
    finding(f, "%s: refcheck log printed no JSON", table);
  } else if (got.status != 0 || !gj) {
    finding(f, "%s: refcheck summarises the log, inlet describe fails (exit %d): %s", table,
            got.status, first_line(got.err, a, sizeof a));
  } else {
    json_int_t rv = json_integer_value(json_object_get(rj, "version"));
    json_int_t rn = json_integer_value(json_object_get(rj, "num_active_files"));
    json_int_t gv = json_integer_value(json_object_get(gj, "version"));
    json_int_t gn = json_integer_value(json_object_get(gj, "files"));
    if (rv != gv || rn != gn)
      finding(f, "%s: describe says version %lld with %lld files, refcheck %lld with %lld", table,
              (long long)gv, (long long)gn, (long long)rv, (long long)rn);
    else
      t->logs_equal++;
  }
  json_decref(rj);
  json_decref(gj);
  tu_result_free(&ref);
  tu_result_free(&got);
}

void pt_check_project(const char *project, const pt_reads_more *more, int n_more, int min_tables,
                      int min_same) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("public-tables"));
  tu_rules_exempt(dir, "public tables of delta-rs and delta-kernel-rs: read only");
  tu_result r;
  /* Inner archives unpack beside the tables, under _archives/<name>/. */
  run(&r,
      "cd '%s' && tar --zstd -xf '%s/tests/data/public/%s.tar.zst' && cd '%s' && "
      "for a in *.tar.zst; do [ -e \"$a\" ] || continue; n=${a%%.tar.zst}; "
      "mkdir -p \"_archives/$n\" && tar --zstd -xf \"$a\" -C \"_archives/$n\" || exit 1; done",
      dir, INLET_SOURCE_DIR, project, project);
  if (r.status != 0) fail_msg("unpacking %s: exit %d: %s", project, r.status, r.err);
  tu_result_free(&r);
  run(&r, "find '%s/%s' -type d -name _delta_log | sed 's|/_delta_log$||' | sort", dir, project);
  assert_int_equal(r.status, 0);
  char **tables = NULL;
  int n_tables = lines(r.out, &tables);
  findings f = {0};
  tally t = {0};
  for (int i = 0; i < n_tables; i++) {
    const char *table = tables[i];
    const char *why = reads_more(table, more, n_more);
    tu_result vr;
    run(&vr,
        "ls '%s/_delta_log' | sed -n -E 's/^([0-9]{20})\\.(json|checkpoint\\..*)$/\\1/p' | "
        "sort -u | sed -E 's/^0+([0-9])/\\1/'",
        table);
    char **versions = NULL;
    int n_versions = lines(vr.out, &versions);
    t.tables++;
    if (n_versions == 0) check_version(dir, table, NULL, why, &t, &f);
    for (int v = 0; v < n_versions; v++)
      check_version(dir, table, versions[v], why, &t, &f);
    check_log(table, &t, &f);
    free(versions);
    tu_result_free(&vr);
  }
  fprintf(stderr,
          "public tables (%s): %d tables, %d versions: %d read as refcheck reads them, %d refused "
          "by both, %d read by inlet only (refcheck lacks the feature); latest snapshot equal to "
          "refcheck's log on %d tables; %d findings\n",
          project, t.tables, t.versions, t.same, t.both_refuse, t.inlet_only, t.logs_equal, f.n);
  free(tables);
  tu_result_free(&r);
  tu_rmtree(dir);
  if (f.n) fprintf(stderr, "%s", f.text);
  free(f.text);
  if (f.n) fail_msg("%s: %d findings (above)", project, f.n);
  if (t.tables < min_tables || t.same < min_same)
    fail_msg("%s: %d tables and %d identical reads, want at least %d and %d", project, t.tables,
             t.same, min_tables, min_same);
}
