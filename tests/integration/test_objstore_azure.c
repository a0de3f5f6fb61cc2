/*
 * The Azure Blob backend (src/storage/azure.c) against Azurite, Microsoft's
 * emulator, which verifies Shared Key signatures and enforces
 * If-None-Match: * itself. Proves: the storage contract (puts, ranged and
 * tail reads, listings from a start key, batch deletes, block uploads),
 * exactly one winner among racing processes, the conditional-create probe
 * passing, an aborted block upload leaving no blob, the connection string,
 * shared key, SAS and abfss:// forms, and no secret in any error.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "objstore_env.h"
#include "storage/objstore_int.h"
#include "storage/sign.h"
#include "storage/storage.h"
#include "storage_contract.h"
#include "util/util.h"

#define RC(expr, want)                                                                             \
  do {                                                                                             \
    int rc_ = (expr);                                                                              \
    if (rc_ != (want))                                                                             \
      fail_msg("%s returned %d (%s), expected %d", #expr, rc_, err.message, (int)(want));          \
  } while (0)

#define AZ_KEY                                                                                     \
  "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

static tu_emulators emu;

static int group_setup(void **state) {
  (void)state;
  unsetenv("AZURE_STORAGE_CONNECTION_STRING");
  unsetenv("AZURE_STORAGE_ACCOUNT");
  unsetenv("AZURE_STORAGE_KEY");
  unsetenv("AZURE_STORAGE_SAS_TOKEN");
  tu_emulators_start(&emu, false, true);
  setenv("AZURE_STORAGE_CONNECTION_STRING", tu_azurite_connection_string(&emu), 1);
  return 0;
}

static int group_teardown(void **state) {
  (void)state;
  tu_emulators_stop(&emu);
  return 0;
}

static inlet_storage *open_url(const char *url, inlet_storage_options *o) {
  inlet_storage *s = NULL;
  inlet_error err = INLET_ERROR_INIT;
  if (inlet_storage_open_url(&s, url, o, &err)) fail_msg("open %s: %s", url, inlet_errmsg(&err));
  return s;
}

static inlet_storage *open_env(void *ctx) {
  (void)ctx;
  return open_url("az://inlet-test/race-table", NULL);
}

static void test_azure__contract(void **state) {
  (void)state;
  inlet_storage_options o = INLET_STORAGE_OPTIONS_INIT;
  o.part_size = 256 * 1024;
  o.parts_in_flight = 3;
  inlet_storage *s = open_url("az://inlet-test/contract/table", &o);
  assert_string_equal(s->root, "az://inlet-test/contract/table");
  assert_true(s->flags & INLET_STORAGE_OBJECT_STORE);
  sc_check_put_get_ranges(s, "a");
  sc_check_put_if_absent(s, "b");
  sc_check_listing(s, "c");
  sc_check_remove_many(s, "d");
  sc_check_wfile(s, "e", 2 << 20);
  sc_check_wfile(s, "f", 1000);
  s->ops->free(s);
}

static void test_azure__pages_and_start_key(void **state) {
  (void)state;
  inlet_storage *s = open_url("az://inlet-test/pages", NULL);
  inlet_error err = INLET_ERROR_INIT;
  inlet_objstore_test_page_size(4);
  enum { N = 11 };
  char *paths[N];
  for (int i = 0; i < N; i++) {
    paths[i] = malloc(64);
    snprintf(paths[i], 64, "_delta_log/%020d.json", i);
    RC(s->ops->put_bytes(s, paths[i], "{}", 2, &err), 0);
  }
  inlet_dirent *e;
  size_t n;
  RC(s->ops->list_names(s, "_delta_log", &e, &n, &err), 0);
  assert_int_equal(n, N);
  for (int i = 0; i < N; i++)
    assert_string_equal(e[i].name, paths[i] + strlen("_delta_log/"));
  inlet_dirents_free(e, n);
  inlet_list_options o = INLET_LIST_OPTIONS_INIT;
  o.start_after = "00000000000000000007.json";
  o.attrs = true;
  RC(s->ops->list_from(s, "_delta_log", &o, &e, &n, &err), 0);
  assert_int_equal(n, 3);
  assert_string_equal(e[0].name, "00000000000000000008.json");
  assert_int_equal(e[0].size, 2);
  assert_true(e[0].mtime_ms > 1600000000000LL);
  inlet_dirents_free(e, n);
  int res[N];
  RC(s->ops->remove_many(s, (const char *const *)paths, N, res, &err), 0);
  for (int i = 0; i < N; i++)
    assert_int_equal(res[i], 0);
  RC(s->ops->list_from(s, "_delta_log", NULL, &e, &n, &err), 0);
  assert_int_equal(n, 0);
  inlet_dirents_free(e, n);
  inlet_objstore_test_page_size(0);
  for (int i = 0; i < N; i++)
    free(paths[i]);
  s->ops->free(s);
}

static void test_azure__put_if_absent_race_one_winner(void **state) {
  (void)state;
  sc_check_put_if_absent_race(open_env, NULL, "t", 8);
}

static void test_azure__probe_passes(void **state) {
  (void)state;
  inlet_storage *s = open_url("az://inlet-test/probed", NULL);
  inlet_error err = INLET_ERROR_INIT;
  RC(inlet_storage_probe_conditional(s, "_delta_log", &err), 0);
  assert_true(s->flags & INLET_STORAGE_CONDITIONAL_VERIFIED);
  inlet_dirent *e;
  size_t n;
  RC(s->ops->list_from(s, "_delta_log", NULL, &e, &n, &err), 0);
  assert_int_equal(n, 0);
  inlet_dirents_free(e, n);
  s->ops->free(s);
}

static void test_azure__aborted_block_upload_leaves_nothing(void **state) {
  (void)state;
  inlet_storage_options o = INLET_STORAGE_OPTIONS_INIT;
  o.part_size = 64 * 1024;
  o.parts_in_flight = 2;
  inlet_storage *s = open_url("az://inlet-test/blocks", &o);
  inlet_error err = INLET_ERROR_INIT;
  uint8_t *buf = malloc(512 << 10);
  sc_fill(buf, 512 << 10, 5, 0);
  inlet_wfile *w;
  RC(s->ops->create(s, "data/a.parquet", &w, &err), 0);
  RC(inlet_wfile_append(w, buf, 512 << 10, &err), 0);
  inlet_wfile_abort(w);
  inlet_dirent de;
  RC(s->ops->stat(s, "data/a.parquet", &de, &err), INLET_ENOTFOUND);
  inlet_dirent *e;
  size_t n;
  RC(s->ops->list_from(s, "data", NULL, &e, &n, &err), 0);
  assert_int_equal(n, 0);
  inlet_dirents_free(e, n);
  /* A block upload onto an existing name loses and leaves the blob whole. */
  RC(s->ops->put_bytes(s, "data/b.parquet", "theirs", 6, &err), 0);
  RC(s->ops->create(s, "data/b.parquet", &w, &err), 0);
  RC(inlet_wfile_append(w, buf, 512 << 10, &err), 0);
  RC(inlet_wfile_close(w, true, &err), INLET_EEXISTS);
  uint8_t *got;
  RC(s->ops->get_bytes(s, "data/b.parquet", 100, &got, &n, &err), 0);
  assert_string_equal((char *)got, "theirs");
  inlet_free(got);
  free(buf);
  s->ops->free(s);
}

static void test_azure__credential_forms_and_secrets(void **state) {
  (void)state;
  inlet_error err = INLET_ERROR_INIT;
  char ep[128];
  snprintf(ep, sizeof ep, "http://127.0.0.1:%d/devstoreaccount1", emu.azurite_port);
  /* Account + key in the options (as AZURE_STORAGE_ACCOUNT/KEY would). */
  inlet_storage_options o = INLET_STORAGE_OPTIONS_INIT;
  o.azure_account = "devstoreaccount1";
  o.azure_key = AZ_KEY;
  o.azure_endpoint = ep;
  inlet_storage *s = open_url("az://inlet-test/forms", &o);
  RC(s->ops->put_if_absent_bytes(s, "k1", "v1", 2, &err), 0);
  s->ops->free(s);
  /* abfss:// names the account in the host and is served by the Blob API. */
  inlet_storage_options a = INLET_STORAGE_OPTIONS_INIT;
  a.azure_key = AZ_KEY;
  a.azure_endpoint = ep;
  s = open_url("abfss://inlet-test@devstoreaccount1.dfs.core.windows.net/forms", &a);
  uint8_t *got;
  size_t n;
  RC(s->ops->get_bytes(s, "k1", 100, &got, &n, &err), 0);
  assert_string_equal((char *)got, "v1");
  inlet_free(got);
  s->ops->free(s);
  /* A wrong key: Azurite refuses the signature; the error says so and
   * holds neither key. */
  inlet_storage_options bad = o;
  bad.azure_key = "QmFkS2V5VmFsdWVUaGF0SXNOb3RUaGVBenVyaXRlS2V5MTIzNDU2Nzg5MA==";
  bad.max_attempts = 2;
  s = open_url("az://inlet-test/forms", &bad);
  RC(s->ops->put_bytes(s, "k2", "v2", 2, &err), INLET_EIO);
  assert_non_null(strstr(err.message, "access denied"));
  assert_null(strstr(err.message, "QmFkS2V5"));
  assert_null(strstr(err.message, "Eby8vdM02"));
  s->ops->free(s);
  /* A SAS token that Azurite rejects (bad signature): the token never
   * appears in the error, the request is named by method and blob. */
  inlet_storage_options sas = INLET_STORAGE_OPTIONS_INIT;
  sas.azure_account = "devstoreaccount1";
  sas.azure_endpoint = ep;
  sas.azure_sas_token =
      "?sv=2021-08-06&ss=b&srt=sco&sp=rwdlc&se=2099-01-01T00:00:00Z&st=2020-01-01T00:00:00Z"
      "&spr=http,https&sig=SecretSasSignatureValue0123456789abcdefABCDEF%3D";
  sas.max_attempts = 2;
  s = open_url("az://inlet-test/forms", &sas);
  RC(s->ops->put_bytes(s, "k3", "v3", 2, &err), INLET_EIO);
  assert_non_null(strstr(err.message, "PUT az://inlet-test/forms/k3"));
  assert_null(strstr(err.message, "SecretSasSignatureValue"));
  assert_null(strstr(err.message, "sig="));
  s->ops->free(s);
  /* A valid account SAS (Azure Storage "Create an account SAS", version
   * 2021-08-06 string to sign) works on its own, without a key. */
  char sts[512], q[1024];
  snprintf(sts, sizeof sts,
           "devstoreaccount1\nrwdlc\nb\nsco\n2020-01-01T00:00:00Z\n"
           "2099-01-01T00:00:00Z\n\nhttp,https\n2021-08-06\n\n");
  uint8_t *key;
  size_t klen;
  RC(inlet_base64_decode(AZ_KEY, &key, &klen, &err), 0);
  uint8_t mac[32];
  inlet_hmac_sha256(key, klen, sts, strlen(sts), mac);
  inlet_free(key);
  inlet_buf b64 = INLET_BUF_INIT, sig = INLET_BUF_INIT;
  inlet_base64_encode(&b64, mac, 32);
  inlet_uri_encode(&sig, (char *)b64.data, b64.len, false);
  inlet_buf_terminate(&sig);
  snprintf(
      q, sizeof q,
      "sv=2021-08-06&ss=b&srt=sco&sp=rwdlc&se=2099-01-01T00%%3A00%%3A00Z&st=2020-01-01T00%%3A00"
      "%%3A00Z&spr=http,https&sig=%s",
      (char *)sig.data);
  inlet_buf_reset(&b64);
  inlet_buf_reset(&sig);
  sas.azure_sas_token = q;
  s = open_url("az://inlet-test/forms", &sas);
  RC(s->ops->put_if_absent_bytes(s, "k4", "v4", 2, &err), 0);
  RC(s->ops->put_if_absent_bytes(s, "k4", "v5", 2, &err), INLET_EEXISTS);
  RC(s->ops->get_bytes(s, "k4", 100, &got, &n, &err), 0);
  assert_string_equal((char *)got, "v4");
  inlet_free(got);
  inlet_dirent *e;
  RC(s->ops->list_from(s, "", NULL, &e, &n, &err), 0);
  assert_true(n >= 2);
  inlet_dirents_free(e, n);
  s->ops->free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_azure__contract),
      cmocka_unit_test(test_azure__pages_and_start_key),
      cmocka_unit_test(test_azure__put_if_absent_race_one_winner),
      cmocka_unit_test(test_azure__probe_passes),
      cmocka_unit_test(test_azure__aborted_block_upload_leaves_nothing),
      cmocka_unit_test(test_azure__credential_forms_and_secrets),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
