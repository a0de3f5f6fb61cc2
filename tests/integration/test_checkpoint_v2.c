/*
 * Issue 16 §2: checkpoints in the table's policy. A table with
 * delta.checkpointPolicy=v2 gets UUID-named v2 checkpoints
 * (`n.checkpoint.<uuid>.parquet`) with their file actions inline or, beyond
 * inlet.checkpoint.sidecarActions, in sidecar files under
 * `_delta_log/_sidecars/` (PROTOCOL.md "V2 Spec", "Sidecar Files", "Last
 * Checkpoint File Schema", "Metadata Cleanup").
 *   - inline, then sidecars: the files on disk are what `_last_checkpoint`
 *     names (path, sizes), refcheck (DuckDB reading every Parquet file) reads
 *     the checkpoint and its sidecars, and every version reads the same rows
 *     by inlet and refcheck, also with the commits before the checkpoint gone;
 *   - automatic checkpoints (delta.checkpointInterval) follow the policy;
 *   - log cleanup deletes the expired checkpoint and the sidecars only it
 *     named, keeps the boundary checkpoint's sidecars and a young orphan;
 *   - a truncated or missing sidecar is exit 5 naming the file;
 *   - with inlet.checkpoint.topLevelFileFormat=json the UUID-named file is
 *     `n.checkpoint.<uuid>.json` (one action per line), inline and with
 *     sidecars, read by inlet and refcheck at every version.
 */
#include "log_support.h"

#include <limits.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include "delta/delta.h"
#include "util/util.h"

static void sh_ok(const char *what, tu_result *r) {
  ls_sh_ok(r, what);
}

/* A v2 table in a fresh directory: <dir>/t. */
static const char *make_table(const char *tag, const char *props, char dir[4096]) {
  static char t[4200];
  snprintf(dir, 4096, "%s", tu_mkdtemp(tag));
  snprintf(t, sizeof t, "%s/t", dir);
  tu_result r;
  tu_sh(&r,
        "cd '%s' && '%s' create t --schema 'id long, s string' "
        "--property delta.checkpointPolicy=v2 %s",
        dir, INLET_BIN, props);
  sh_ok("create", &r);
  tu_result_free(&r);
  return t;
}

static void append_id(const char *dir, int id) {
  tu_result r;
  tu_sh(&r,
        "cd '%s' && printf '{\"id\":%d,\"s\":\"v%d\"}\\n' > in.ndjson && '%s' append t in.ndjson",
        dir, id, id, INLET_BIN);
  sh_ok("append", &r);
  tu_result_free(&r);
}

static char *sh_out(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *sh_out(const char *what, const char *fmt, ...) {
  char *cmd = NULL;
  va_list ap;
  va_start(ap, fmt);
  assert_true(vasprintf(&cmd, fmt, ap) >= 0);
  va_end(ap);
  tu_result r;
  tu_sh(&r, "%s", cmd);
  free(cmd);
  sh_ok(what, &r);
  char *o = strdup(r.out);
  tu_result_free(&r);
  return o;
}

/* inlet's rows at @p v (-1 latest) equal refcheck's, and number @p rows. */
static void same_rows(const char *dir, int v, int rows) {
  tu_result r;
  char vopt[32] = "";
  if (v >= 0) snprintf(vopt, sizeof vopt, "--version %d", v);
  tu_sh(&r,
        "cd '%s' && '%s' scan t %s --format ndjson > o.ndjson && '%s' '%s' delta t %s > ref.json "
        "&& '%s' '%s' compare ref.json o.ndjson --ndjson >&2 && wc -l < o.ndjson",
        dir, INLET_BIN, vopt, INLET_NODE, INLET_REFCHECK, vopt, INLET_NODE, INLET_REFCHECK);
  sh_ok("inlet scan vs refcheck delta", &r);
  assert_int_equal(atoi(r.out), rows);
  tu_result_free(&r);
}

static json_t *last_checkpoint(const char *t) {
  char p[4400];
  snprintf(p, sizeof p, "%s/_delta_log/_last_checkpoint", t);
  json_error_t je;
  json_t *j = json_load_file(p, 0, &je);
  if (!j) fail_msg("_last_checkpoint: %s", je.text);
  return j;
}

static int64_t fsize(const char *t, const char *sub, const char *name) {
  char p[4600];
  snprintf(p, sizeof p, "%s/_delta_log/%s%s", t, sub, name);
  struct stat sb;
  if (stat(p, &sb) != 0) fail_msg("%s is missing", p);
  return (int64_t)sb.st_size;
}

/* `_last_checkpoint` names checkpoint version @p v, a UUID-named file that
 * exists with its size, and exactly the sidecars in `_sidecars` (sorted
 * names, space-separated, @p want_sidecars of them). */
static void check_hint_ext(const char *t, int v, int want_sidecars, const char *ext) {
  json_t *h = last_checkpoint(t);
  assert_int_equal(json_integer_value(json_object_get(h, "version")), v);
  json_t *v2 = json_object_get(h, "v2Checkpoint");
  assert_non_null(v2);
  const char *path = json_string_value(json_object_get(v2, "path"));
  assert_non_null(path);
  char prefix[64];
  snprintf(prefix, sizeof prefix, "%020d.checkpoint.", v);
  assert_int_equal(strncmp(path, prefix, strlen(prefix)), 0);
  assert_int_equal(strlen(path), strlen(prefix) + 36 + strlen(ext));
  assert_string_equal(path + strlen(path) - strlen(ext), ext);
  assert_int_equal(json_integer_value(json_object_get(v2, "sizeInBytes")), fsize(t, "", path));
  json_t *files = json_object_get(v2, "sidecarFiles");
  assert_int_equal(json_array_size(files), want_sidecars);
  int64_t total = fsize(t, "", path);
  size_t i;
  json_t *f;
  json_array_foreach(files, i, f) {
    const char *sp = json_string_value(json_object_get(f, "path"));
    assert_int_equal(json_integer_value(json_object_get(f, "sizeInBytes")),
                     fsize(t, "_sidecars/", sp));
    total += fsize(t, "_sidecars/", sp);
  }
  assert_int_equal(json_integer_value(json_object_get(h, "sizeInBytes")), total);
  json_t *nfa = json_object_get(v2, "nonFileActions");
  assert_true(json_array_size(nfa) >= 3); /* protocol, metaData, checkpointMetadata */
  json_decref(h);
}

static void check_hint(const char *t, int v, int want_sidecars) {
  check_hint_ext(t, v, want_sidecars, ".parquet");
}

/* refcheck's view of the latest snapshot's checkpoint: "<kind> <n sidecars>". */
static char *ref_checkpoint(const char *t) {
  tu_result r;
  tu_sh(&r,
        "'%s' '%s' log '%s' | '%s' -e 'let s=\"\";process.stdin.on(\"data\",d=>s+=d);"
        "process.stdin.on(\"end\",()=>{const c=JSON.parse(s).checkpoint;"
        "console.log(c.version+\" \"+c.kind+\" \"+c.sidecars.length)})'",
        INLET_NODE, INLET_REFCHECK, t, INLET_NODE);
  sh_ok("refcheck log", &r);
  char *o = strdup(r.out);
  tu_result_free(&r);
  return o;
}

static void test_checkpoint_v2__inline_then_sidecars(void **state) {
  (void)state;
  char dir[4096];
  const char *t = make_table("v2ckpt", "--property inlet.checkpoint.sidecarActions=3", dir);
  append_id(dir, 1);
  append_id(dir, 2);
  /* Two file actions <= 3: inline, no sidecar. */
  char *o = sh_out("checkpoint", "'" INLET_BIN "' checkpoint '%s'", t);
  assert_string_equal(o, "checkpoint written at version 2\n");
  free(o);
  check_hint(t, 2, 0);
  o = ref_checkpoint(t);
  assert_string_equal(o, "2 v2-parquet 0\n");
  free(o);
  for (int i = 3; i <= 7; i++)
    append_id(dir, i);
  /* Seven adds > 3: three sidecars of at most three actions. */
  o = sh_out("checkpoint", "'" INLET_BIN "' checkpoint '%s'", t);
  assert_string_equal(o, "checkpoint written at version 7\n");
  free(o);
  check_hint(t, 7, 3);
  o = ref_checkpoint(t);
  assert_string_equal(o, "7 v2-parquet 3\n");
  free(o);
  o = sh_out("sidecars", "ls '%s/_delta_log/_sidecars' | wc -l", t);
  assert_string_equal(o, "3\n");
  free(o);
  /* Each sidecar as DuckDB reads it: only add (and remove) rows. */
  o = sh_out("sidecar rows",
             "cd '%s/_delta_log/_sidecars' && for f in *.parquet; do '" INLET_NODE
             "' '" INLET_REFCHECK "' parquet $f | grep -c '\"path\"'; done | sort | tr '\\n' ' '",
             t);
  assert_string_equal(o, "1 3 3 ");
  free(o);
  append_id(dir, 8);
  /* A second checkpoint of the same version is not written. */
  o = sh_out("checkpoint", "'" INLET_BIN "' checkpoint '%s'", t);
  assert_string_equal(o, "checkpoint written at version 8\n");
  free(o);
  o = sh_out("checkpoint again", "'" INLET_BIN "' checkpoint '%s'", t);
  assert_non_null(strstr(o, "UUID-named v2 checkpoint"));
  free(o);
  append_id(dir, 9);
  for (int v = 0; v <= 9; v++)
    same_rows(dir, v, v);
  /* The commits before the checkpoint at 8 gone: inlet reads from it (with
   * and without the hint), so does refcheck. */
  tu_rules_exempt(t, "commits deleted by hand to prove the checkpoint is read");
  tu_result r;
  tu_sh(&r, "cd '%s/_delta_log' && rm 0000000000000000000[0-7].json", t);
  sh_ok("drop commits", &r);
  tu_result_free(&r);
  same_rows(dir, -1, 9);
  same_rows(dir, 8, 8);
  tu_sh(&r, "rm '%s/_delta_log/_last_checkpoint'", t);
  sh_ok("drop hint", &r);
  tu_result_free(&r);
  same_rows(dir, -1, 9);
}

/* inlet.checkpoint.topLevelFileFormat=json: the UUID-named file is JSON
 * lines (PROTOCOL.md "UUID-named checkpoint": json or parquet), inline and
 * with (Parquet) sidecars; inlet and refcheck read every version from it. */
static void test_checkpoint_v2__json_top_level_inline_then_sidecars(void **state) {
  (void)state;
  char dir[4096];
  const char *t = make_table("v2ckpt-json",
                             "--property inlet.checkpoint.sidecarActions=3 "
                             "--property inlet.checkpoint.topLevelFileFormat=json",
                             dir);
  append_id(dir, 1);
  append_id(dir, 2);
  char *o = sh_out("checkpoint", "'" INLET_BIN "' checkpoint '%s'", t);
  assert_string_equal(o, "checkpoint written at version 2\n");
  free(o);
  check_hint_ext(t, 2, 0, ".json");
  o = ref_checkpoint(t);
  assert_string_equal(o, "2 v2-json 0\n");
  free(o);
  /* Each line one action: checkpointMetadata, protocol, metaData, two adds
   * with dataChange=false. */
  o = sh_out("checkpoint lines",
             "cd '%s/_delta_log' && cat 00000000000000000002.checkpoint.*.json | "
             "'%s' -e 'let s=\"\";process.stdin.on(\"data\",d=>s+=d);process.stdin.on(\"end\","
             "()=>{const k=s.trim().split(\"\\n\").map(l=>{const o=JSON.parse(l);"
             "const n=Object.keys(o);if(n.length!==1)throw 1;"
             "return n[0]+(o.add?\":\"+o.add.dataChange:\"\")});"
             "console.log(k.sort().join(\" \"))})'",
             t, INLET_NODE);
  assert_string_equal(o, "add:false add:false checkpointMetadata metaData protocol\n");
  free(o);
  for (int i = 3; i <= 7; i++)
    append_id(dir, i);
  o = sh_out("checkpoint", "'" INLET_BIN "' checkpoint '%s'", t);
  assert_string_equal(o, "checkpoint written at version 7\n");
  free(o);
  check_hint_ext(t, 7, 3, ".json");
  o = ref_checkpoint(t);
  assert_string_equal(o, "7 v2-json 3\n");
  free(o);
  o = sh_out("sidecar actions",
             "grep -c '\"sidecar\"' '%s'/_delta_log/00000000000000000007.checkpoint.*.json", t);
  assert_string_equal(o, "3\n");
  free(o);
  append_id(dir, 8);
  for (int v = 0; v <= 8; v++)
    same_rows(dir, v, v);
  /* Without the commits before it and without the hint, the JSON
   * checkpoint alone gives version 7. */
  tu_rules_exempt(t, "commits deleted by hand to prove the checkpoint is read");
  tu_result r;
  tu_sh(&r, "cd '%s/_delta_log' && rm 0000000000000000000[0-6].json _last_checkpoint", t);
  sh_ok("drop commits", &r);
  tu_result_free(&r);
  same_rows(dir, -1, 8);
  same_rows(dir, 7, 7);
  /* A value that is neither json nor parquet is refused by name. */
  const char *t2 =
      make_table("v2ckpt-bad", "--property inlet.checkpoint.topLevelFileFormat=avro", dir);
  tu_sh(&r, "'%s' checkpoint '%s'", INLET_BIN, t2);
  assert_int_not_equal(r.status, 0);
  assert_non_null(strstr(r.err, "inlet.checkpoint.topLevelFileFormat"));
  tu_result_free(&r);
}

static void test_checkpoint_v2__automatic_and_classic_policy(void **state) {
  (void)state;
  char dir[4096];
  const char *t = make_table(
      "v2auto",
      "--property delta.checkpointInterval=2 --property inlet.checkpoint.sidecarActions=1", dir);
  for (int i = 1; i <= 4; i++)
    append_id(dir, i);
  char *o = sh_out(
      "list",
      "cd '%s/_delta_log' && ls | grep -c '^0*[24]\\.checkpoint\\.[-0-9a-f]\\{36\\}\\.parquet$'",
      t);
  assert_string_equal(o, "2\n");
  free(o);
  o = sh_out("classic", "ls '%s/_delta_log' | grep -c 'checkpoint.parquet$' || true", t);
  assert_string_equal(o, "0\n");
  free(o);
  check_hint(t, 4, 4);
  same_rows(dir, -1, 4);
  /* The feature with checkpointPolicy=classic: classic checkpoints. */
  char dir2[4096];
  snprintf(dir2, sizeof dir2, "%s", tu_mkdtemp("v2classic"));
  tu_result r;
  tu_sh(&r,
        "cd '%s' && '%s' create t --schema 'id long, s string' --property "
        "delta.feature.v2Checkpoint=supported --property delta.checkpointPolicy=classic",
        dir2, INLET_BIN);
  sh_ok("create classic", &r);
  tu_result_free(&r);
  append_id(dir2, 1);
  tu_sh(&r, "cd '%s' && '%s' checkpoint t && ls t/_delta_log | grep checkpoint", dir2, INLET_BIN);
  sh_ok("classic checkpoint", &r);
  assert_non_null(strstr(r.out, "00000000000000000001.checkpoint.parquet"));
  assert_null(strstr(r.out, "_sidecars"));
  tu_result_free(&r);
  same_rows(dir2, -1, 1);
}

static void test_checkpoint_v2__log_cleanup_keeps_what_checkpoints_name(void **state) {
  (void)state;
  char dir[4096];
  const char *t = make_table("v2clean", "--property inlet.checkpoint.sidecarActions=2", dir);
  for (int i = 1; i <= 3; i++)
    append_id(dir, i);
  tu_result r;
  tu_sh(&r, "'%s' checkpoint '%s'", INLET_BIN, t);
  sh_ok("checkpoint 3", &r);
  tu_result_free(&r);
  append_id(dir, 4);
  append_id(dir, 5);
  tu_sh(&r, "'%s' checkpoint '%s'", INLET_BIN, t);
  sh_ok("checkpoint 5", &r);
  tu_result_free(&r);
  append_id(dir, 6);
  char *old_sc = sh_out("sidecars of 3",
                        "cd '%s/_delta_log' && '" INLET_NODE "' '" INLET_REFCHECK
                        "' parquet 00000000000000000003.checkpoint.*.parquet | grep -o "
                        "'[-0-9a-f]\\{36\\}\\.parquet' | sort | tr '\\n' ' '",
                        t);
  char *new_sc = sh_out("sidecars of 5",
                        "cd '%s/_delta_log' && '" INLET_NODE "' '" INLET_REFCHECK
                        "' parquet 00000000000000000005.checkpoint.*.parquet | grep -o "
                        "'[-0-9a-f]\\{36\\}\\.parquet' | sort | tr '\\n' ' '",
                        t);
  assert_int_equal(strlen(old_sc), 2 * 45); /* 3 adds in sidecars of 2 */
  assert_int_equal(strlen(new_sc), 3 * 45); /* 5 adds */
  ls_age(t, 60);
  /* Orphans: an old one goes, a young one (a checkpoint being written)
   * stays. */
  tu_sh(&r,
        "cd '%s/_delta_log/_sidecars' && echo x > 11111111-1111-4111-8111-111111111111.parquet && "
        "touch -d @%lld 11111111-1111-4111-8111-111111111111.parquet && "
        "echo x > 22222222-2222-4222-8222-222222222222.parquet",
        t, (long long)time(NULL) - 60LL * 86400);
  sh_ok("orphans", &r);
  tu_result_free(&r);
  char root[PATH_MAX];
  assert_non_null(realpath(t, root));
  inlet_storage *st = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_storage_posix_open(&st, root, false, &err), 0);
  delta_snapshot s;
  assert_int_equal(delta_snapshot_load(&s, st, root, DELTA_SNAP_LATEST, 0, &err), 0);
  delta_log_cleanup_result res;
  if (delta_log_cleanup(&res, st, &s, -1, 0, false, &err) != 0)
    fail_msg("cleanup: %s", inlet_errmsg(&err));
  delta_snapshot_reset(&s);
  st->ops->free(st);
  assert_int_equal(res.oldest_kept, 5);
  assert_int_equal(res.commits_removed, 5);
  assert_int_equal(res.checkpoints_removed, 1);
  assert_int_equal(res.sidecars_removed, 3); /* two of checkpoint 3, the old orphan */
  /* What the spec leaves: checkpoint 5 and the commits from it on, its
   * sidecars and the young orphan. */
  char *ls = sh_out(
      "list",
      "cd '%s/_delta_log' && ls | grep -v crc | sed 's/[-0-9a-f]\\{36\\}/U/' | tr '\\n' ' '", t);
  assert_string_equal(ls, "00000000000000000005.checkpoint.U.parquet 00000000000000000005.json "
                          "00000000000000000006.json _last_checkpoint _sidecars ");
  free(ls);
  char want[512];
  snprintf(want, sizeof want, "%s22222222-2222-4222-8222-222222222222.parquet ", new_sc);
  /* sort order: the random UUIDs of checkpoint 5 may sort either side */
  ls = sh_out("sidecars", "ls '%s/_delta_log/_sidecars' | sort | tr '\\n' ' '", t);
  char *sorted = sh_out("want", "echo '%s' | tr ' ' '\\n' | grep . | sort | tr '\\n' ' '", want);
  assert_string_equal(ls, sorted);
  free(ls);
  free(sorted);
  free(old_sc);
  free(new_sc);
  same_rows(dir, -1, 6);
  same_rows(dir, 5, 5);
}

static void test_checkpoint_v2__bad_sidecar_is_corrupt(void **state) {
  (void)state;
  char dir[4096];
  const char *t = make_table("v2bad", "--property inlet.checkpoint.sidecarActions=1", dir);
  append_id(dir, 1);
  append_id(dir, 2);
  tu_result r;
  tu_sh(&r, "'%s' checkpoint '%s' && rm '%s'/_delta_log/0000000000000000000[01].json", INLET_BIN, t,
        t);
  sh_ok("checkpoint, drop commits", &r);
  tu_result_free(&r);
  tu_rules_exempt(t, "sidecars broken on purpose");
  char *sc = sh_out("a sidecar", "ls '%s/_delta_log/_sidecars' | head -1 | tr -d '\\n'", t);
  tu_sh(&r, "truncate -s 10 '%s/_delta_log/_sidecars/%s' && '%s' scan '%s'", t, sc, INLET_BIN, t);
  assert_int_equal(r.status, 5);
  assert_non_null(strstr(r.err, sc));
  tu_result_free(&r);
  tu_sh(&r, "rm '%s/_delta_log/_sidecars/%s' && '%s' scan '%s'", t, sc, INLET_BIN, t);
  assert_int_equal(r.status, 5);
  assert_non_null(strstr(r.err, sc));
  assert_non_null(strstr(r.err, "missing"));
  tu_result_free(&r);
  free(sc);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_checkpoint_v2__inline_then_sidecars),
      cmocka_unit_test(test_checkpoint_v2__automatic_and_classic_policy),
      cmocka_unit_test(test_checkpoint_v2__log_cleanup_keeps_what_checkpoints_name),
      cmocka_unit_test(test_checkpoint_v2__bad_sidecar_is_corrupt),
      cmocka_unit_test(test_checkpoint_v2__json_top_level_inline_then_sidecars),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
