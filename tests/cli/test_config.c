/*
 * Options from the environment (INLET_<COMMAND>_<OPTION>) and from
 * --config FILE (INI): the command line wins over the environment, the
 * environment over the file, seen in what the commands do (the batches an
 * ingest commits, the entries history prints and in which format); flags
 * parse true/false, 1/0, yes/no; file errors name FILE:LINE and the key;
 * secrets given in the file or the environment never appear on stdout or
 * stderr, text or JSON, on success or error paths.
 */
#include "objstore_env.h"
#include "testutil.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[4096];
static tu_emulators emu; /* stopped by teardown, also after a failure */

static int setup(void **state) {
  (void)state;
  char *d = tu_mkdtemp("config");
  if (!d) return -1;
  snprintf(dir, sizeof dir, "%s", d);
  /* Six records to ingest; a table per precedence case. */
  tu_result r;
  tu_sh(&r,
        "cd '%s' && for i in 1 2 3 4 5 6; do echo \"{\\\"id\\\":$i}\"; done > in.ndjson && "
        "for t in a b c d; do '%s' create $t --schema 'id long' || exit 1; done",
        dir, INLET_BIN);
  int rc = r.status;
  if (rc != 0) fprintf(stderr, "setup: %s\n", r.err);
  tu_result_free(&r);
  return rc == 0 ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  if (emu.pid) tu_emulators_stop(&emu);
  tu_rmtree(dir);
  return 0;
}

static void write_config(const char *name, const char *text) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  assert_int_equal(tu_write_file(path, text, strlen(text)), 0);
}

/* The "batches" of ingest --json's finished event. */
static long long ingest_batches(const char *table, const char *env, const char *args) {
  tu_result r;
  tu_sh(&r, "cd '%s' && %s '%s' ingest %s --source file:in.ndjson --once --json %s", dir, env,
        INLET_BIN, table, args);
  if (r.status != 0) fail_msg("ingest %s: exit %d: %s", table, r.status, r.err);
  const char *fin = strstr(r.out, "\"event\":\"finished\"");
  if (!fin) fail_msg("no finished event: %s", r.out);
  while (fin > r.out && fin[-1] != '\n') /* the start of its line */
    fin--;
  json_error_t je;
  json_t *j = json_loadb(fin, strcspn(fin, "\n"), 0, &je);
  if (!j) fail_msg("finished event is not JSON: %s", fin);
  long long batches = (long long)json_integer_value(json_object_get(j, "batches"));
  assert_int_equal(json_integer_value(json_object_get(j, "rows")), 6);
  json_decref(j);
  tu_result_free(&r);
  return batches;
}

static void test_config__precedence_cli_env_file(void **state) {
  (void)state;
  write_config("p.ini", "; batches of three from the file\n"
                        "[ingest]\n"
                        "max_rows = 3\n");
  /* File only: 6 rows in batches of 3. */
  assert_int_equal(ingest_batches("a", "", "--config p.ini"), 2);
  /* The environment beats the file (INLET_CONFIG names the file here). */
  assert_int_equal(ingest_batches("b", "INLET_CONFIG=p.ini INLET_INGEST_MAX_ROWS=2", ""), 3);
  /* The command line beats both. */
  assert_int_equal(ingest_batches("c", "INLET_INGEST_MAX_ROWS=2", "--config=p.ini --max-rows 6"),
                   1);
  /* An empty variable is unset: the file's value counts. */
  assert_int_equal(ingest_batches("d", "INLET_INGEST_MAX_ROWS=", "--config p.ini"), 2);
}

/* history of table a (create + 2 ingest batches = 3 versions). */
static tu_result history(const char *env, const char *args) {
  tu_result r;
  tu_sh(&r, "cd '%s' && %s '%s' history a %s", dir, env, INLET_BIN, args);
  return r;
}

static size_t json_entries(const tu_result *r) {
  json_error_t je;
  json_t *j = json_loads(r->out, 0, &je);
  if (!j) fail_msg("history is not JSON (%s): %s", je.text, r->out);
  /* docs/JSON.md "history": {format_version, commits: [...]} */
  size_t n = json_array_size(json_object_get(j, "commits"));
  json_decref(j);
  return n;
}

static void test_config__global_section_flags_and_booleans(void **state) {
  (void)state;
  write_config("h.ini", "json = yes\n" /* before any section: [global] */
                        "[history]\n"
                        "limit = 1\n");
  tu_result r = history("", "--config h.ini");
  assert_int_equal(r.status, 0);
  assert_int_equal(json_entries(&r), 1);
  tu_result_free(&r);
  /* INLET_HISTORY_LIMIT beats [history]; a flag turned off in the
   * environment beats the file's yes: text, not JSON. */
  r = history("INLET_HISTORY_LIMIT=2", "--config h.ini");
  assert_int_equal(json_entries(&r), 2);
  tu_result_free(&r);
  r = history("INLET_HISTORY_JSON=false", "--config h.ini --limit 1");
  assert_int_equal(r.status, 0);
  assert_true(r.out[0] != '[' && r.out[0] != '{');
  tu_result_free(&r);
  /* Every spelling of true and false. */
  const char *trues[] = {"true", "1", "yes", "TRUE", "on"}, *falses[] = {"false", "0", "no", "No"};
  for (int i = 0; i < 5; i++) {
    char env[64];
    snprintf(env, sizeof env, "INLET_HISTORY_JSON=%s", trues[i]);
    r = history(env, "--limit 3");
    assert_int_equal(r.status, 0);
    assert_int_equal(json_entries(&r), 3);
    tu_result_free(&r);
  }
  for (int i = 0; i < 4; i++) {
    char env[64];
    snprintf(env, sizeof env, "INLET_HISTORY_JSON=%s", falses[i]);
    r = history(env, "--config h.ini");
    assert_int_equal(r.status, 0);
    assert_true(r.out[0] != '[' && r.out[0] != '{');
    tu_result_free(&r);
  }
  r = history("INLET_HISTORY_JSON=maybe", "");
  assert_int_equal(r.status, 2);
  assert_non_null(strstr(r.err, "INLET_HISTORY_JSON"));
  assert_non_null(strstr(r.err, "maybe"));
  tu_result_free(&r);
  /* A bad value in the environment is named by its variable. */
  r = history("INLET_HISTORY_LIMIT=zero", "");
  assert_int_equal(r.status, 2);
  assert_non_null(strstr(r.err, "INLET_HISTORY_LIMIT needs"));
  tu_result_free(&r);
  /* A misspelled variable of the command: ignored, with a warning naming it. */
  r = history("INLET_HISTORY_LIMT=1", "--limit 2 --json");
  assert_int_equal(r.status, 0);
  assert_int_equal(json_entries(&r), 2);
  assert_non_null(strstr(r.err, "INLET_HISTORY_LIMT"));
  assert_non_null(strstr(r.err, "--limit"));
  tu_result_free(&r);
  /* log-format from the file's [global]. */
  write_config("l.ini", "[global]\nlog-format = json\n");
  r = history("", "--config l.ini --limit 0");
  assert_int_equal(r.status, 2);
  json_error_t je;
  json_t *j = json_loadb(r.err, strcspn(r.err, "\n"), 0, &je);
  if (!j) fail_msg("not a JSON error line: %s", r.err);
  assert_string_equal(json_string_value(json_object_get(j, "event")), "usage_error");
  json_decref(j);
  tu_result_free(&r);
}

/* Runs history with a file of @p text; expects exit 2 and every needle in
 * stderr. */
static void bad_file(const char *text, const char *n1, const char *n2, const char *n3) {
  write_config("bad.ini", text);
  tu_result r = history("", "--config bad.ini");
  if (r.status != 2) fail_msg("exit %d for %s: %s", r.status, text, r.err);
  const char *needles[] = {n1, n2, n3};
  for (int i = 0; i < 3; i++)
    if (needles[i] && !strstr(r.err, needles[i]))
      fail_msg("'%s' not in: %s (file %s)", needles[i], r.err, text);
  tu_result_free(&r);
}

static void test_config__file_errors_name_file_and_line(void **state) {
  (void)state;
  bad_file("[ingest]\nmax-rows = 5\n\n# typo\nmax-row = 5\n", "bad.ini:5:", "'max-row'",
           "did you mean max-rows?");
  bad_file("[history]\nlimit = 1\n[injest]\nmax-rows = 1\n", "bad.ini:4:", "[injest]", "max-rows");
  bad_file("[global]\nno-such-option = 1\n", "bad.ini:2:", "'no-such-option'", NULL);
  bad_file("[storage]\naws-secret-acess-key = x\n", "bad.ini:2:", "'aws-secret-acess-key'",
           "aws-secret-access-key");
  bad_file("[history]\nlimit = 1\nlimit = 2\n", "bad.ini:3:", "'limit' given twice", "line 2");
  bad_file("[history]\nthis line has no equals sign\n", "bad.ini:2:", NULL, NULL);
  bad_file("[history]\nlimit = none\n", "bad.ini:2: limit needs", "'none'", NULL);
  bad_file("[history]\njson = sometimes\n", "bad.ini:2: json", "not a boolean", NULL);
  /* The keys of commands not run are checked too. */
  bad_file("[vacuum]\nretian = 7d\n", "bad.ini:2:", "'retian'", "did you mean retain?");
  /* With --log-format json the error is one JSON line naming the place. */
  tu_result r = history("", "--config bad.ini --log-format json");
  assert_int_equal(r.status, 2);
  json_error_t je;
  json_t *j = json_loadb(r.err, strcspn(r.err, "\n"), 0, &je);
  if (!j) fail_msg("not JSON: %s", r.err);
  assert_non_null(strstr(json_string_value(json_object_get(j, "message")), "bad.ini:2:"));
  assert_int_equal(json_integer_value(json_object_get(j, "exit_code")), 2);
  json_decref(j);
  tu_result_free(&r);
  /* A missing file is "not found". */
  r = history("", "--config nowhere.ini");
  assert_int_equal(r.status, 3);
  assert_non_null(strstr(r.err, "nowhere.ini"));
  tu_result_free(&r);
}

/* Fails when @p secret is anywhere in the output of @p r. */
static void no_secret(const tu_result *r, const char *secret, const char *what) {
  if (strstr(r->out, secret) || strstr(r->err, secret))
    fail_msg("%s printed the secret: out=%s err=%s", what, r->out, r->err);
}

static void test_config__secrets_never_printed(void **state) {
  (void)state;
  const char *s3 = "S3SECRET-8f2a91", *az = "QVpTRUNSRVQtNzcxYg==", *kafka = "KAFKASECRET-c0ffee",
             *typo = "KAFKATYPO-5e1f";
  char ini[1024];
  snprintf(ini, sizeof ini,
           "[storage]\n"
           "aws-access-key-id = AKIDCONFIGTEST\n"
           "aws-secret-access-key = %s\n"
           "aws-endpoint-url = http://127.0.0.1:9\n"
           "aws-region = us-east-1\n"
           "azure-account = devstoreaccount1\n"
           "azure-key = %s\n"
           "azure-endpoint = http://127.0.0.1:9/devstoreaccount1\n"
           "[ingest]\n"
           "kafka-property = sasl.password=%s\n",
           s3, az, kafka);
  write_config("s.ini", ini);
  /* Commands that reach a store retry for seconds: each runs once, in one
   * of the two log formats; the fast ones run in both. */
  static const struct {
    const char *args;
    int formats; /* 1 text, 2 json, 3 both */
    bool fails;
  } cmds[] = {
      /* (S3 with a wrong secret: test_config__storage_secrets_from_file_used) */
      {"create az://container/t --schema 'id long'", 1, true},
      {"ingest a --source kafka://127.0.0.1:9/topic --once --json --kafka-property "
       "sasl.pasword=KAFKATYPO-5e1f", /* misspelled: librdkafka refuses it */
       3, true},
      {"ingest a --source file:in.ndjson --once --json", 3, true}, /* kafka-property, no kafka */
      {"ingest --help", 1, false},
      {"help --man", 1, false},
  };
  for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
    for (int fmt = 1; fmt <= 2; fmt++) {
      if (!(cmds[i].formats & fmt)) continue;
      tu_result r;
      tu_sh(&r,
            "cd '%s' && AWS_ACCESS_KEY_ID= AWS_SECRET_ACCESS_KEY= AWS_PROFILE= "
            "AWS_ENDPOINT_URL= AWS_ENDPOINT_URL_S3= AZURE_STORAGE_CONNECTION_STRING= "
            "AZURE_STORAGE_ACCOUNT= AZURE_STORAGE_KEY= AZURE_STORAGE_SAS_TOKEN= timeout 120 '%s' "
            "%s --config s.ini%s",
            dir, INLET_BIN, cmds[i].args, fmt == 2 ? " --log-format json" : "");
      /* Nothing listens on port 9: the store commands fail, and say where
       * they went (the file's endpoint was used). */
      if (cmds[i].fails != (r.status != 0))
        fail_msg("%s: exit %d: %s", cmds[i].args, r.status, r.err);
      no_secret(&r, s3, cmds[i].args);
      no_secret(&r, az, cmds[i].args);
      no_secret(&r, kafka, cmds[i].args);
      no_secret(&r, typo, cmds[i].args);
      tu_result_free(&r);
    }
  /* Kafka secrets from the environment, one property per line. */
  tu_result r;
  tu_sh(&r,
        "cd '%s' && INLET_INGEST_KAFKA_PROPERTY='sasl.username=u\nsasl.password=%s\n"
        "sasl.pasword=%s' '%s' ingest a --source kafka://127.0.0.1:9/topic --once --json "
        "--log-format json",
        dir, kafka, typo, INLET_BIN);
  assert_int_not_equal(r.status, 0);
  assert_non_null(strstr(r.err, "sasl.pasword"));
  no_secret(&r, kafka, "environment");
  no_secret(&r, typo, "environment");
  tu_result_free(&r);
}

/* [storage] credentials reach a SigV4-checking S3 proxy: the table is
 * created and read with the file's keys alone; a wrong key in the
 * environment wins over the file's right one (refused), and neither key
 * is printed. */
static void test_config__storage_secrets_from_file_used(void **state) {
  (void)state;
  tu_emulators_start(&emu, true, false);
  const tu_emulators e = emu;
  char stored[4300];
  snprintf(stored, sizeof stored, "%s/s3rver/inlet-test/cfg-t", e.dir);
  tu_rules_exempt(stored, "s3rver's own metadata files sit beside the log's");
  char ini[1024];
  snprintf(ini, sizeof ini,
           "[storage]\n"
           "aws-access-key-id = S3RVER\n"
           "aws-secret-access-key = S3RVER\n"
           "aws-region = us-east-1\n"
           "aws-endpoint-url = http://127.0.0.1:%d\n",
           e.proxy_port);
  write_config("st.ini", ini);
  const char *clean = "AWS_ACCESS_KEY_ID= AWS_SECRET_ACCESS_KEY= AWS_PROFILE= AWS_ENDPOINT_URL= "
                      "AWS_ENDPOINT_URL_S3= AWS_REGION= AWS_DEFAULT_REGION= HOME=/nonexistent";
  tu_result r;
  tu_sh(&r,
        "cd '%s' && %s '%s' create s3://inlet-test/cfg-t --schema 'id long' --config st.ini && %s "
        "'%s' "
        "append s3://inlet-test/cfg-t in.ndjson --config st.ini && %s '%s' describe "
        "s3://inlet-test/cfg-t "
        "--json --config st.ini",
        dir, clean, INLET_BIN, clean, INLET_BIN, clean, INLET_BIN);
  if (r.status != 0) fail_msg("with the file's keys: exit %d: %s", r.status, r.err);
  /* create (0) and append (1): describe's JSON says version 1. */
  const char *v = strstr(r.out, "\"version\"");
  assert_non_null(v);
  v += strlen("\"version\"");
  while (*v == ' ' || *v == ':')
    v++;
  assert_int_equal(atoi(v), 1);
  tu_result_free(&r);
  /* The environment's (wrong) pair wins over the file's: refused. */
  tu_sh(&r,
        "cd '%s' && %s AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=WRONG-SECRET-4d2 '%s' "
        "describe s3://inlet-test/cfg-t --config st.ini --log-format json",
        dir, clean, INLET_BIN);
  assert_int_not_equal(r.status, 0);
  no_secret(&r, "WRONG-SECRET-4d2", "wrong key from the environment");
  tu_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_config__precedence_cli_env_file),
      cmocka_unit_test(test_config__global_section_flags_and_booleans),
      cmocka_unit_test(test_config__file_errors_name_file_and_line),
      cmocka_unit_test(test_config__secrets_never_printed),
      cmocka_unit_test(test_config__storage_secrets_from_file_used),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
