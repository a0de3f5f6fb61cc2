/*
 * The public-tables conformance driver (public_tables.h). Everything runs
 * through the shell: tar unpacks, `find` lists the tables, refcheck and the
 * inlet binary read them. Findings are collected and reported together, so
 * one run shows every table that differs.
 *
 * refcheck's answers can be replayed instead of asked for: loading DuckDB
 * costs each `refcheck` run about half a second of CPU, two thirds of what a
 * table version costs this test, and the answers are a function of the
 * archive, refcheck and its DuckDB alone. tests/data/public/<project>.
 * refcheck.tar.zst holds every answer refcheck gave (stdout, stderr, exit
 * status) and a key: the SHA-256 of the archive, refcheck.mjs, its
 * package-lock.json (which pins DuckDB), the versions of node and jq and the
 * commands below. The test replays the answers only when the key matches
 * the inputs in use; otherwise it asks refcheck, as before, and says why.
 * INLET_PUBLIC_TABLES_RECORD=<file> asks refcheck and writes such a file
 * (scripts/record-public-refcheck.sh).
 */
#include "public_tables.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

/* refcheck's two commands, with their outputs; part of the replay key. */
#define REFCHECK_DELTA_CMD "'%s' '%s' delta '%s' %s > '%s'"
#define REFCHECK_LOG_CMD "'%s' '%s' log '%s' | jq -c '{version, num_active_files}'"

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

typedef enum { REF_LIVE, REF_REPLAY, REF_RECORD } ref_mode;

/* Where refcheck's answers come from (see the top of this file). Recorded
 * answers are named by the table's path below @p base and by @p what
 * ("delta@3", "delta@latest", "log"). */
typedef struct refsrc {
  ref_mode mode;
  const char *base;
  char rec[4200]; /* replay and record: the recording's directory */
  char why[400];  /* live: why the recording is not used */
} refsrc;

static void rec_path(const refsrc *s, const char *table, const char *what, const char *ext,
                     char *out, size_t n) {
  size_t bl = strlen(s->base);
  const char *rel = strncmp(table, s->base, bl) == 0 && table[bl] == '/' ? table + bl + 1 : table;
  int w = snprintf(out, n, "%s/%s/%s.%s", s->rec, rel, what, ext);
  if (w < 0 || (size_t)w >= n) fail_msg("recording path too long for %s", table);
}

static void rec_save(const refsrc *s, const char *table, const char *what, const char *ext,
                     const char *data, size_t len) {
  char path[8400];
  rec_path(s, table, what, ext, path, sizeof path);
  tu_result r;
  run(&r, "mkdir -p \"$(dirname '%s')\"", path);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  if (tu_write_file(path, data ? data : "", data ? len : 0) != 0)
    fail_msg("cannot write the recording %s", path);
}

/* Answers larger than this are not recorded: the recording says to ask
 * refcheck live (delta-rs' COVID-19_NYT is 55 MB of rows). */
#define RECORD_MAX_ANSWER (1u << 20)

/* Runs one refcheck command (@p cmd, already formatted), or replays its
 * recorded answer. The answer's stdout goes to @p out_file when given (the
 * command redirects it there), else to r->out. */
static void refcheck_run(const refsrc *s, tu_result *r, const char *table, const char *what,
                         const char *cmd, const char *out_file) {
  char path[8400];
  rec_path(s, table, what, "live", path, sizeof path);
  if (s->mode != REF_REPLAY || access(path, F_OK) == 0) {
    run(r, "%s", cmd);
    if (s->mode == REF_RECORD) {
      size_t n = 0;
      char *o = out_file ? tu_read_file(out_file, &n) : NULL;
      const char *out = out_file ? o : r->out;
      n = out_file ? n : r->out_len;
      if (n > RECORD_MAX_ANSWER) {
        rec_save(s, table, what, "live", "", 0);
      } else {
        char st[16];
        snprintf(st, sizeof st, "%d\n", r->status);
        rec_save(s, table, what, "out", out, n);
        rec_save(s, table, what, "err", r->err, r->err_len);
        rec_save(s, table, what, "rc", st, strlen(st));
      }
      free(o);
    }
    return;
  }
  memset(r, 0, sizeof *r);
  rec_path(s, table, what, "rc", path, sizeof path);
  char *st = tu_read_file(path, NULL);
  rec_path(s, table, what, "out", path, sizeof path);
  size_t n = 0;
  char *o = tu_read_file(path, &n);
  rec_path(s, table, what, "err", path, sizeof path);
  r->err = tu_read_file(path, &r->err_len);
  if (!st || !o || !r->err) {
    free(r->err);
    r->err = NULL;
    assert_true(asprintf(&r->err,
                         "no recorded refcheck answer %s (re-record: "
                         "scripts/record-public-refcheck.sh)",
                         path) >= 0);
    r->err_len = strlen(r->err);
    r->status = -1;
  } else {
    r->status = atoi(st);
  }
  if (out_file) {
    if (tu_write_file(out_file, o ? o : "", o ? n : 0) != 0) fail_msg("cannot write %s", out_file);
    free(o);
    o = NULL;
    n = 0;
  }
  r->out = o ? o : strdup("");
  r->out_len = n;
  assert_non_null(r->out);
  free(st);
}

/* The replay key of @p project's archive with the refcheck, node and jq in
 * use and the commands above (64 hex digits and a NUL in @p key); @p dir is
 * a scratch directory. */
static void ref_key(const char *project, const char *dir, char key[65]) {
  char cmds[4200];
  snprintf(cmds, sizeof cmds, "%s/refcheck-commands.txt", dir);
  const char *text = REFCHECK_DELTA_CMD "\n" REFCHECK_LOG_CMD "\n";
  if (tu_write_file(cmds, text, strlen(text)) != 0) fail_msg("cannot write %s", cmds);
  tu_result r;
  run(&r,
      "cd '%s' && { '%s' --version && jq --version && for f in '%s' "
      "'%s/tests/data/public/%s.tar.zst' '%s' \"$(dirname '%s')/package-lock.json\"; do "
      "sha256sum < \"$f\" || exit 1; done; } > key-input && sha256sum < key-input | cut -c1-64",
      dir, INLET_NODE, cmds, INLET_SOURCE_DIR, project, INLET_REFCHECK, INLET_REFCHECK);
  if (r.status != 0 || r.out_len < 64) fail_msg("computing the replay key: %s", r.err);
  memcpy(key, r.out, 64);
  key[64] = '\0';
  tu_result_free(&r);
  char in[4200];
  snprintf(in, sizeof in, "%s/key-input", dir);
  unlink(in);
  unlink(cmds);
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

static void check_version(const refsrc *src, const char *dir, const char *table,
                          const char *version, const char *more_why, tally *t, findings *f) {
  char vopt[64] = "";
  if (version) snprintf(vopt, sizeof vopt, "--version %s", version);
  const char *at = version ? version : "latest";
  tu_result ref, got, cmp;
  char exp_path[4200], what[64], *cmd = NULL;
  snprintf(exp_path, sizeof exp_path, "%s/exp.json", dir);
  snprintf(what, sizeof what, "delta@%s", at);
  assert_true(
      asprintf(&cmd, REFCHECK_DELTA_CMD, INLET_NODE, INLET_REFCHECK, table, vopt, exp_path) >= 0);
  refcheck_run(src, &ref, table, what, cmd, exp_path);
  free(cmd);
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
static void check_log(const refsrc *src, const char *table, tally *t, findings *f) {
  tu_result ref, got;
  /* jq picks the two numbers: the summary's stats may hold integers beyond
   * what jansson parses (type widening's long maxima, printed as doubles). */
  char *cmd = NULL;
  assert_true(asprintf(&cmd, REFCHECK_LOG_CMD, INLET_NODE, INLET_REFCHECK, table) >= 0);
  refcheck_run(src, &ref, table, "log", cmd, NULL);
  free(cmd);
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

/* Chooses where refcheck's answers come from for @p project, whose tables
 * are unpacked below @p dir. */
static void ref_source(refsrc *s, const char *project, const char *dir) {
  memset(s, 0, sizeof *s);
  s->base = dir;
  snprintf(s->rec, sizeof s->rec, "%s/_refcheck", dir);
  const char *record_to = getenv("INLET_PUBLIC_TABLES_RECORD");
  if (record_to && *record_to) {
    s->mode = REF_RECORD;
    return;
  }
  char archive[4200];
  snprintf(archive, sizeof archive, "%s/tests/data/public/%s.refcheck.tar.zst", INLET_SOURCE_DIR,
           project);
  s->mode = REF_LIVE;
  if (access(archive, R_OK) != 0) {
    snprintf(s->why, sizeof s->why, "no recording %s", archive);
    return;
  }
  tu_result r;
  run(&r, "mkdir -p '%s' && tar --zstd -xf '%s' -C '%s'", s->rec, archive, s->rec);
  if (r.status != 0) fail_msg("unpacking %s: exit %d: %s", archive, r.status, r.err);
  tu_result_free(&r);
  char key[65], path[4300];
  ref_key(project, dir, key);
  snprintf(path, sizeof path, "%s/key", s->rec);
  char *recorded = tu_read_file(path, NULL);
  if (recorded && strncmp(recorded, key, 64) == 0 && recorded[64] == '\n')
    s->mode = REF_REPLAY;
  else
    snprintf(s->why, sizeof s->why,
             "%s was recorded with another archive, refcheck, DuckDB, node or jq (key %.64s, "
             "now %s)",
             archive, recorded ? recorded : "none", key);
  free(recorded);
}

/* Says where the answers came from; a recording run writes its file. */
static void ref_finish(const refsrc *s, const char *project, const char *dir) {
  if (s->mode == REF_REPLAY) {
    fprintf(stderr, "refcheck's answers replayed from tests/data/public/%s.refcheck.tar.zst\n",
            project);
    return;
  }
  if (s->mode == REF_LIVE) {
    fprintf(stderr, "refcheck asked live: %s\n", s->why);
    return;
  }
  char key[65], path[4300];
  ref_key(project, dir, key);
  snprintf(path, sizeof path, "%s/key", s->rec);
  char line[66];
  snprintf(line, sizeof line, "%s\n", key);
  if (tu_write_file(path, line, 65) != 0) fail_msg("cannot write %s", path);
  const char *to = getenv("INLET_PUBLIC_TABLES_RECORD");
  tu_result r;
  run(&r,
      "tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C '%s' -cf '%s.tar' . && "
      "zstd -q -19 -f '%s.tar' -o '%s'",
      s->rec, s->rec, s->rec, to);
  if (r.status != 0) fail_msg("writing %s: exit %d: %s", to, r.status, r.err);
  tu_result_free(&r);
  fprintf(stderr, "refcheck's answers recorded to %s\n", to);
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
  refsrc src;
  ref_source(&src, project, dir);
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
    if (n_versions == 0) check_version(&src, dir, table, NULL, why, &t, &f);
    for (int v = 0; v < n_versions; v++)
      check_version(&src, dir, table, versions[v], why, &t, &f);
    check_log(&src, table, &t, &f);
    free(versions);
    tu_result_free(&vr);
  }
  fprintf(stderr,
          "public tables (%s): %d tables, %d versions: %d read as refcheck reads them, %d refused "
          "by both, %d read by inlet only (refcheck lacks the feature); latest snapshot equal to "
          "refcheck's log on %d tables; %d findings\n",
          project, t.tables, t.versions, t.same, t.both_refuse, t.inlet_only, t.logs_equal, f.n);
  ref_finish(&src, project, dir);
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
