/*
 * Golden Delta tables written by Delta/Spark ($INLET_TESTDATA/delta-golden):
 * for every entry, the claim listed in delta_golden_claims.txt holds.
 *   rows              `inlet scan --format ndjson` reads exactly the expected
 *                     rows (refcheck compare --ndjson);
 *   fail              a must-fail entry: the scan fails (non-zero exit,
 *                     message on stderr) and refcheck accepts the error;
 *   log-only          the scan fails, and the snapshot inlet loads has the
 *                     expected version and (decoded) active file paths;
 *   log-only-refused  the scan fails and so does loading the snapshot
 *                     (the log names files outside the table directory);
 *   unsupported TEXT  the scan fails with TEXT (the feature) in its message.
 * Every expectation file must have a claim, so the list is complete.
 */
#include "testutil.h"

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inlet/table.h"

#define GOLDEN INLET_TESTDATA "/delta-golden"
#define CLAIMS INLET_SOURCE_DIR "/tests/integration/delta_golden_claims.txt"

typedef struct claim {
  char entry[256];
  char kind[32];
  char text[256];
} claim;

static int load_claims(claim *out, int cap) {
  FILE *f = fopen(CLAIMS, "r");
  assert_non_null(f);
  char line[1024];
  int n = 0;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = '\0';
    if (!line[0] || line[0] == '#') continue;
    assert_true(n < cap);
    claim *c = &out[n];
    memset(c, 0, sizeof *c);
    int used = 0;
    assert_int_equal(sscanf(line, "%255s %31s %n", c->entry, c->kind, &used), 2);
    snprintf(c->text, sizeof c->text, "%s", line + used);
    n++;
  }
  fclose(f);
  return n;
}

static const claim *find_claim(const claim *cl, int n, const char *entry) {
  for (int i = 0; i < n; i++)
    if (strcmp(cl[i].entry, entry) == 0) return &cl[i];
  return NULL;
}

/* Runs the scan of @p entry; returns its exit status, output in dir. */
static int run_scan(const char *dir, json_t *exp, tu_result *r) {
  const char *tp = json_string_value(json_object_get(exp, "table_path"));
  if (!tp) tp = json_string_value(json_object_get(exp, "table"));
  json_t *ver = json_object_get(exp, "version");
  char vopt[64] = "";
  if (json_is_integer(ver))
    snprintf(vopt, sizeof vopt, "--version %lld", (long long)json_integer_value(ver));
  tu_sh(r, "'%s' scan '%s/tables/%s' %s --format ndjson > '%s/out.ndjson'", INLET_BIN, GOLDEN, tp,
        vopt, dir);
  return r->status;
}

static bool refcheck_ok(const char *dir, const char *expected_path, bool error_actual,
                        const char *errtext) {
  char act[4200];
  if (error_actual) {
    snprintf(act, sizeof act, "%s/err.json", dir);
    json_t *o = json_pack("{s:s}", "error", errtext);
    json_dump_file(o, act, 0);
    json_decref(o);
  } else {
    snprintf(act, sizeof act, "%s/out.ndjson", dir);
  }
  tu_result r;
  tu_sh(&r, "'%s' '%s' compare '%s' '%s' %s", INLET_NODE, INLET_REFCHECK, expected_path, act,
        error_actual ? "" : "--ndjson");
  bool ok = r.status == 0;
  if (!ok) fprintf(stderr, "  refcheck: %s%s\n", r.out, r.err);
  tu_result_free(&r);
  return ok;
}

/* Library snapshot vs expected_snapshot {version, active_file_paths}. */
static bool snapshot_matches(json_t *exp) {
  json_t *es = json_object_get(exp, "expected_snapshot");
  const char *tp = json_string_value(json_object_get(exp, "table_path"));
  char path[4096];
  snprintf(path, sizeof path, "%s/tables/%s", GOLDEN, tp);
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  inlet_snapshot *s = NULL;
  bool ok = false;
  if (inlet_table_open(&t, path, &err) < 0 || inlet_table_snapshot(&s, t, &err) < 0) {
    fprintf(stderr, "  snapshot: %s\n", inlet_errmsg(&err));
    goto done;
  }
  json_t *paths = json_object_get(es, "active_file_paths");
  if (inlet_snapshot_version(s) != json_integer_value(json_object_get(es, "version")) ||
      inlet_snapshot_num_files(s) != (int64_t)json_array_size(paths)) {
    fprintf(stderr, "  snapshot: version %lld with %lld files\n",
            (long long)inlet_snapshot_version(s), (long long)inlet_snapshot_num_files(s));
    goto done;
  }
  ok = true;
  for (int64_t i = 0; i < inlet_snapshot_num_files(s); i++) {
    inlet_file_info fi;
    inlet_snapshot_file(s, i, &fi);
    /* Both sides are sorted by the decoded path. */
    const char *want = json_string_value(json_array_get(paths, (size_t)i));
    if (!want || strcmp(want, fi.path) != 0) {
      fprintf(stderr, "  snapshot: file %lld is \"%s\", expected \"%s\"\n", (long long)i, fi.path,
              want ? want : "?");
      ok = false;
    }
  }
done:
  inlet_snapshot_free(s);
  inlet_table_free(t);
  return ok;
}

/* A clean failure: one of the CLI's failure exit codes (1-8, cli.h), not a
 * signal or a sanitizer's exit. */
static bool failed_cleanly(int status) {
  return status >= 1 && status <= 8;
}

static bool check_entry(const char *dir, const char *entry, const claim *c) {
  char epath[4096];
  snprintf(epath, sizeof epath, "%s/expected/%s.json", GOLDEN, entry);
  json_error_t jerr;
  json_t *exp = json_load_file(epath, 0, &jerr);
  assert_non_null(exp);
  tu_result r;
  int status = run_scan(dir, exp, &r);
  bool ok = false;
  if (strcmp(c->kind, "rows") == 0) {
    ok = status == 0 && refcheck_ok(dir, epath, false, NULL);
    if (status != 0) fprintf(stderr, "  scan failed: %s\n", r.err);
  } else if (strcmp(c->kind, "fail") == 0) {
    ok = failed_cleanly(status) && r.err_len > 0 && refcheck_ok(dir, epath, true, r.err);
  } else if (strcmp(c->kind, "log-only") == 0) {
    ok = failed_cleanly(status) && refcheck_ok(dir, epath, true, r.err) && snapshot_matches(exp);
  } else if (strcmp(c->kind, "log-only-refused") == 0) {
    ok = failed_cleanly(status) && refcheck_ok(dir, epath, true, r.err) &&
         strstr(r.err, "escapes the table");
  } else if (strcmp(c->kind, "unsupported") == 0) {
    ok = status == 6 && strstr(r.err, c->text) != NULL; /* 6: unsupported */
    if (!ok)
      fprintf(stderr, "  expected failure naming \"%s\", got status %d: %s\n", c->text, status,
              r.err);
  } else {
    fprintf(stderr, "  unknown claim kind \"%s\"\n", c->kind);
  }
  if (status > 8) fprintf(stderr, "  scan crashed or misbehaved (status %d): %s\n", status, r.err);
  tu_result_free(&r);
  json_decref(exp);
  return ok;
}

static void test_golden__every_entry_meets_its_claim(void **state) {
  (void)state;
  static claim claims[512];
  int n = load_claims(claims, 512);
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("delta-golden"));
  DIR *d = opendir(GOLDEN "/expected");
  assert_non_null(d);
  struct dirent *de;
  int failures = 0, checked = 0, rows_claims = 0;
  while ((de = readdir(d))) {
    size_t len = strlen(de->d_name);
    if (len < 6 || strcmp(de->d_name + len - 5, ".json") != 0) continue;
    char entry[256];
    snprintf(entry, sizeof entry, "%.*s", (int)(len - 5), de->d_name);
    const claim *c = find_claim(claims, n, entry);
    if (!c) {
      fprintf(stderr, "golden entry %s has no claim in %s\n", entry, CLAIMS);
      failures++;
      continue;
    }
    checked++;
    rows_claims += strcmp(c->kind, "rows") == 0;
    if (!check_entry(dir, entry, c)) {
      fprintf(stderr, "golden entry %s: claim \"%s %s\" does not hold\n", entry, c->kind, c->text);
      failures++;
    }
  }
  closedir(d);
  tu_rmtree(dir);
  fprintf(stderr, "golden: %d entries checked, %d read to the expected rows, %d failures\n",
          checked, rows_claims, failures);
  assert_true(checked >= n);
  assert_int_equal(failures, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_golden__every_entry_meets_its_claim),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
