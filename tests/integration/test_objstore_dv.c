/*
 * Deletion vectors on object stores (issue 16 §1): the DV files are read
 * through the table's storage, so a table with deletion vectors scans the
 * same on s3:// (through the SigV4-checking proxy) and az:// (Azurite) as on
 * local disk: the golden table dv-partitioned-with-checkpoint (DVs in
 * deletion_vector_<uuid>.bin files, a checkpoint at v10) and delta-rs's
 * table-with-dv-small, uploaded with inlet's own storage layer, at every
 * version the golden expectations list; a scan there equals the local
 * scan line for line.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "objstore_env.h"

static tu_emulators emu;

static int group_setup(void **state) {
  (void)state;
  tu_emulators_start(&emu, true, true);
  tu_emulators_env(&emu);
  return 0;
}

static int group_teardown(void **state) {
  (void)state;
  tu_emulators_stop(&emu);
  return 0;
}

static char *scan(const char *where, const char *version) {
  tu_result r;
  assert_int_equal(tu_sh(&r, "'%s' scan '%s' %s --format ndjson > '%s/out' && sort '%s/out'",
                         INLET_BIN, where, version, emu.dir, emu.dir),
                   0);
  if (r.status != 0) fail_msg("scan %s %s: %s", where, version, r.err);
  char *out = strdup(r.out);
  tu_result_free(&r);
  return out;
}

static void same_as_local(const char *kind) {
  static const struct {
    const char *local;
    const char *name;
    const char *versions[4];
    const char *rows[4]; /* expected row counts */
  } tables[] = {
      {INLET_SOURCE_DIR "/../shared/testdata/delta-golden/tables/dv-partitioned-with-checkpoint",
       "golden-dv",
       {"", "--version 0", "--version 10", NULL},
       {"35", "50", "40", NULL}},
      {INLET_SOURCE_DIR "/tests/data/foreign/delta-rs/table-with-dv-small",
       "dv-small",
       {"", "--version 0", NULL, NULL},
       {"8", "10", NULL, NULL}},
  };
  for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
    char url[256];
    snprintf(url, sizeof url, "%s://inlet-test/dv/%s", kind, tables[t].name);
    tu_upload_dir(tables[t].local, url);
    for (int v = 0; v < 4 && tables[t].versions[v]; v++) {
      char *local = scan(tables[t].local, tables[t].versions[v]);
      char *remote = scan(url, tables[t].versions[v]);
      if (strcmp(local, remote) != 0) {
        size_t i = 0, line = 1;
        for (; local[i] && local[i] == remote[i]; i++)
          line += local[i] == '\n';
        fail_msg("%s %s: the store's scan differs from the local one at line %zu: \"%.80s\" vs "
                 "local \"%.80s\" (%zu vs %zu bytes)",
                 url, tables[t].versions[v], line, remote + i, local + i, strlen(remote),
                 strlen(local));
      }
      int lines = 0;
      for (const char *p = remote; *p; p++)
        lines += *p == '\n';
      assert_int_equal(lines, atoi(tables[t].rows[v]));
      free(local);
      free(remote);
    }
  }
}

static void test_objstore_dv__s3_same_as_local(void **state) {
  (void)state;
  same_as_local("s3");
}

static void test_objstore_dv__azure_same_as_local(void **state) {
  (void)state;
  same_as_local("az");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_objstore_dv__s3_same_as_local),
      cmocka_unit_test(test_objstore_dv__azure_same_as_local),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
