/*
 * Settings and credentials of the object-store backends
 * (src/storage/objstore.c, url.c): the AWS CLI's order (options,
 * environment, ~/.aws/credentials, ~/.aws/config under a temporary HOME),
 * endpoints and path-style addressing, Azure connection strings (Azurite's),
 * shared keys and SAS tokens, URL forms and their errors, time parsing,
 * and that no secret reaches an error message.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "storage/objstore_int.h"
#include "storage/storage.h"
#include "util/util.h"

static char home[4096];

static const char *const vars[] = {"AWS_ACCESS_KEY_ID",
                                   "AWS_SECRET_ACCESS_KEY",
                                   "AWS_SESSION_TOKEN",
                                   "AWS_REGION",
                                   "AWS_DEFAULT_REGION",
                                   "AWS_PROFILE",
                                   "AWS_ENDPOINT_URL",
                                   "AWS_ENDPOINT_URL_S3",
                                   "AWS_SHARED_CREDENTIALS_FILE",
                                   "AWS_CONFIG_FILE",
                                   "AZURE_STORAGE_CONNECTION_STRING",
                                   "AZURE_STORAGE_ACCOUNT",
                                   "AZURE_STORAGE_KEY",
                                   "AZURE_STORAGE_SAS_TOKEN"};

static int setup(void **state) {
  (void)state;
  snprintf(home, sizeof home, "%s", tu_mkdtemp("home"));
  setenv("HOME", home, 1);
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
    unsetenv(vars[i]);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  tu_rmtree(home);
  return 0;
}

static void write_aws(const char *name, const char *text) {
  char p[4200];
  snprintf(p, sizeof p, "%s/.aws", home);
  mkdir(p, 0700);
  snprintf(p, sizeof p, "%s/.aws/%s", home, name);
  assert_int_equal(tu_write_file(p, text, strlen(text)), 0);
}

static void resolve(inlet_s3_config *c, const inlet_storage_options *o) {
  inlet_error err = INLET_ERROR_INIT;
  int rc = inlet_s3_config_resolve(c, "bkt", "pre/fix", o, &err);
  if (rc) fail_msg("resolve: %s", err.message);
}

static void test_s3_config__environment(void **state) {
  (void)state;
  setenv("AWS_ACCESS_KEY_ID", "AKIAENV", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "env-secret", 1);
  setenv("AWS_SESSION_TOKEN", "env-token", 1);
  setenv("AWS_DEFAULT_REGION", "eu-west-1", 1);
  inlet_s3_config c;
  resolve(&c, NULL);
  assert_string_equal(c.access_key, "AKIAENV");
  assert_string_equal(c.secret_key, "env-secret");
  assert_string_equal(c.session_token, "env-token");
  assert_string_equal(c.region, "eu-west-1");
  assert_string_equal(c.endpoint, "https://s3.eu-west-1.amazonaws.com");
  assert_false(c.path_style);
  assert_string_equal(c.credential_source, "environment");
  inlet_s3_config_reset(&c);
  /* AWS_REGION wins over AWS_DEFAULT_REGION; a custom endpoint means path
   * style; AWS_ENDPOINT_URL_S3 wins over AWS_ENDPOINT_URL. */
  setenv("AWS_REGION", "us-west-2", 1);
  setenv("AWS_ENDPOINT_URL", "http://generic:1", 1);
  setenv("AWS_ENDPOINT_URL_S3", "http://127.0.0.1:9000/", 1);
  resolve(&c, NULL);
  assert_string_equal(c.region, "us-west-2");
  assert_string_equal(c.endpoint, "http://127.0.0.1:9000");
  assert_true(c.path_style);
  inlet_s3_config_reset(&c);
  unsetenv("AWS_ENDPOINT_URL_S3");
  resolve(&c, NULL);
  assert_string_equal(c.endpoint, "http://generic:1");
  inlet_s3_config_reset(&c);
  /* Options override everything; path style can be turned off. */
  inlet_storage_options o = INLET_STORAGE_OPTIONS_INIT;
  o.aws_access_key_id = "AKIAOPT";
  o.aws_secret_access_key = "opt-secret";
  o.aws_region = "ap-south-1";
  o.aws_endpoint_url = "https://minio.example:9000";
  o.s3_path_style = 0;
  resolve(&c, &o);
  assert_string_equal(c.access_key, "AKIAOPT");
  assert_null(c.session_token);
  assert_string_equal(c.region, "ap-south-1");
  assert_false(c.path_style);
  assert_string_equal(c.bucket, "bkt");
  assert_string_equal(c.prefix, "pre/fix");
  inlet_s3_config_reset(&c);
}

static void test_s3_config__profiles(void **state) {
  (void)state;
  write_aws("credentials", "[default]\naws_access_key_id = AKIADEF\naws_secret_access_key = "
                           "def-secret\n\n[dev]\n# comment\naws_access_key_id=AKIADEV\n"
                           "aws_secret_access_key=dev-secret\naws_session_token = dev-token\n");
  write_aws("config", "[default]\nregion = ca-central-1\n[profile dev]\nregion = eu-north-1\n"
                      "endpoint_url = http://127.0.0.1:4568\ns3 =\n  addressing_style = path\n"
                      "[profile cfgonly]\naws_access_key_id = AKIACFG\n"
                      "aws_secret_access_key = cfg-secret\n");
  inlet_s3_config c;
  resolve(&c, NULL);
  assert_string_equal(c.access_key, "AKIADEF");
  assert_string_equal(c.secret_key, "def-secret");
  assert_null(c.session_token);
  assert_string_equal(c.region, "ca-central-1");
  assert_non_null(strstr(c.credential_source, "profile default"));
  inlet_s3_config_reset(&c);
  setenv("AWS_PROFILE", "dev", 1);
  resolve(&c, NULL);
  assert_string_equal(c.access_key, "AKIADEV");
  assert_string_equal(c.session_token, "dev-token");
  assert_string_equal(c.region, "eu-north-1");
  assert_string_equal(c.endpoint, "http://127.0.0.1:4568");
  assert_true(c.path_style);
  inlet_s3_config_reset(&c);
  /* Keys only in the config file, as `aws configure set` can leave them. */
  setenv("AWS_PROFILE", "cfgonly", 1);
  resolve(&c, NULL);
  assert_string_equal(c.access_key, "AKIACFG");
  assert_string_equal(c.region, "us-east-1"); /* no region anywhere */
  inlet_s3_config_reset(&c);
  /* Environment keys win over AWS_PROFILE (as in the AWS CLI)... */
  setenv("AWS_PROFILE", "dev", 1);
  setenv("AWS_ACCESS_KEY_ID", "AKIAENV", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "env-secret", 1);
  resolve(&c, NULL);
  assert_string_equal(c.access_key, "AKIAENV");
  inlet_s3_config_reset(&c);
  /* ...but a profile named in the options wins over the environment. */
  inlet_storage_options o = INLET_STORAGE_OPTIONS_INIT;
  o.aws_profile = "dev";
  resolve(&c, &o);
  assert_string_equal(c.access_key, "AKIADEV");
  inlet_s3_config_reset(&c);
  /* Files named by AWS_SHARED_CREDENTIALS_FILE / AWS_CONFIG_FILE. */
  unsetenv("AWS_ACCESS_KEY_ID");
  unsetenv("AWS_SECRET_ACCESS_KEY");
  char p[4200];
  snprintf(p, sizeof p, "%s/other-creds", home);
  const char *t = "[dev]\naws_access_key_id = AKIAOTHER\naws_secret_access_key = o\n";
  assert_int_equal(tu_write_file(p, t, strlen(t)), 0);
  setenv("AWS_SHARED_CREDENTIALS_FILE", p, 1);
  resolve(&c, NULL);
  assert_string_equal(c.access_key, "AKIAOTHER");
  inlet_s3_config_reset(&c);
}

static void test_s3_config__missing_credentials_name_the_fix(void **state) {
  (void)state;
  inlet_s3_config c;
  inlet_error err = INLET_ERROR_INIT;
  setenv("AWS_PROFILE", "nope", 1);
  assert_int_equal(inlet_s3_config_resolve(&c, "bkt", "", NULL, &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "AWS_ACCESS_KEY_ID"));
  assert_non_null(strstr(err.message, "\"nope\""));
  write_aws("credentials", "[half]\naws_access_key_id = AKIAHALF\n");
  setenv("AWS_PROFILE", "half", 1);
  assert_int_equal(inlet_s3_config_resolve(&c, "bkt", "", NULL, &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "aws_secret_access_key"));
  inlet_storage_options o = INLET_STORAGE_OPTIONS_INIT;
  o.aws_secret_access_key = "only-a-secret-value";
  assert_int_equal(inlet_s3_config_resolve(&c, "bkt", "", &o, &err), INLET_EINVAL);
  assert_null(strstr(err.message, "only-a-secret-value"));
  o.aws_access_key_id = "AKIA";
  o.aws_endpoint_url = "ftp://nowhere";
  assert_int_equal(inlet_s3_config_resolve(&c, "bkt", "", &o, &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "ftp://nowhere"));
  assert_null(strstr(err.message, "only-a-secret-value"));
}

static void test_azure_config__forms(void **state) {
  (void)state;
  inlet_azure_config c;
  inlet_error err = INLET_ERROR_INIT;
  setenv("AZURE_STORAGE_CONNECTION_STRING",
         "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey="
         "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/"
         "KBHBeksoGMGw==;BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;",
         1);
  assert_int_equal(inlet_azure_config_resolve(&c, "ctr", "a/b", NULL, NULL, &err), 0);
  assert_string_equal(c.account, "devstoreaccount1");
  assert_int_equal(c.key_len, 64);
  assert_null(c.sas);
  assert_string_equal(c.endpoint, "http://127.0.0.1:10000/devstoreaccount1");
  inlet_azure_config_reset(&c);
  /* UseDevelopmentStorage=true is Azurite's default account. */
  setenv("AZURE_STORAGE_CONNECTION_STRING", "UseDevelopmentStorage=true", 1);
  assert_int_equal(inlet_azure_config_resolve(&c, "ctr", "", NULL, NULL, &err), 0);
  assert_string_equal(c.account, "devstoreaccount1");
  assert_string_equal(c.endpoint, "http://127.0.0.1:10000/devstoreaccount1");
  inlet_azure_config_reset(&c);
  /* Account + key from the environment, endpoint derived. */
  unsetenv("AZURE_STORAGE_CONNECTION_STRING");
  setenv("AZURE_STORAGE_ACCOUNT", "myacct", 1);
  setenv("AZURE_STORAGE_KEY", "a2V5", 1);
  assert_int_equal(inlet_azure_config_resolve(&c, "ctr", "", NULL, NULL, &err), 0);
  assert_string_equal(c.endpoint, "https://myacct.blob.core.windows.net");
  assert_int_equal(c.key_len, 3);
  inlet_azure_config_reset(&c);
  /* A SAS token, with or without '?'; the abfss host names the account. */
  unsetenv("AZURE_STORAGE_KEY");
  setenv("AZURE_STORAGE_SAS_TOKEN", "?sv=1&sig=abc", 1);
  assert_int_equal(inlet_azure_config_resolve(&c, "ctr", "", "hostacct", NULL, &err), 0);
  assert_string_equal(c.sas, "sv=1&sig=abc");
  assert_null(c.key);
  assert_string_equal(c.account, "hostacct");
  assert_string_equal(c.endpoint, "https://hostacct.blob.core.windows.net");
  inlet_azure_config_reset(&c);
  /* Errors name the variable to set and never the key. */
  unsetenv("AZURE_STORAGE_SAS_TOKEN");
  assert_int_equal(inlet_azure_config_resolve(&c, "ctr", "", NULL, NULL, &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "AZURE_STORAGE_KEY"));
  unsetenv("AZURE_STORAGE_ACCOUNT");
  assert_int_equal(inlet_azure_config_resolve(&c, "ctr", "", NULL, NULL, &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "AZURE_STORAGE_ACCOUNT"));
  inlet_storage_options o = INLET_STORAGE_OPTIONS_INIT;
  o.azure_account = "a";
  o.azure_key = "not base64 secret!";
  assert_int_equal(inlet_azure_config_resolve(&c, "ctr", "", NULL, &o, &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "base64"));
  assert_null(strstr(err.message, "not base64 secret!"));
}

static void test_url__forms_and_errors(void **state) {
  (void)state;
  setenv("AWS_ACCESS_KEY_ID", "AKIA", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "s", 1);
  setenv("AZURE_STORAGE_ACCOUNT", "acct", 1);
  setenv("AZURE_STORAGE_KEY", "a2V5", 1);
  inlet_storage *s = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_storage_open_url(&s, "s3://bucket/a/b/", NULL, &err), 0);
  assert_string_equal(s->root, "s3://bucket/a/b");
  assert_true(s->flags & INLET_STORAGE_OBJECT_STORE);
  s->ops->free(s);
  assert_int_equal(inlet_storage_open_url(&s, "s3://bucket", NULL, &err), 0);
  assert_string_equal(s->root, "s3://bucket");
  s->ops->free(s);
  assert_int_equal(inlet_storage_open_url(&s, "az://ctr/tables/t1", NULL, &err), 0);
  assert_string_equal(s->root, "az://ctr/tables/t1");
  s->ops->free(s);
  assert_int_equal(
      inlet_storage_open_url(&s, "abfss://ctr@other.dfs.core.windows.net/x/y", NULL, &err), 0);
  assert_string_equal(s->root, "az://ctr/x/y");
  s->ops->free(s);
  char url[4200];
  snprintf(url, sizeof url, "file://%s", home);
  assert_int_equal(inlet_storage_open_url(&s, url, NULL, &err), 0);
  assert_false(s->flags & INLET_STORAGE_OBJECT_STORE);
  s->ops->free(s);
  assert_int_equal(inlet_storage_open_url(&s, home, NULL, &err), 0);
  s->ops->free(s);
  assert_true(inlet_storage_is_object_url("s3://b"));
  assert_true(inlet_storage_is_object_url("abfss://c@a.dfs.core.windows.net"));
  assert_false(inlet_storage_is_object_url("/tmp/t"));
  assert_false(inlet_storage_is_object_url("file:///tmp/t"));
  static const struct {
    const char *url;
    int code;
    const char *says;
  } bad[] = {
      {"s3://", INLET_EINVAL, "no bucket"},
      {"s3:///prefix", INLET_EINVAL, "no bucket"},
      {"s3://b/../etc", INLET_EINVAL, "bad prefix"},
      {"s3://b/a//c", INLET_EINVAL, "bad prefix"},
      {"s3://b/p?x=1", INLET_EINVAL, "query"},
      {"abfss://ctr/prefix", INLET_EINVAL, "abfss://container@account"},
      {"abfss://ctr@/p", INLET_EINVAL, "no storage account"},
      {"file://relative/path", INLET_EINVAL, "absolute path"},
      {"gs://bucket/t", INLET_EUNSUPPORTED, "designed"},
      {"ftp://host/t", INLET_EINVAL, "unknown scheme"},
      {"", INLET_EINVAL, "empty"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int rc = inlet_storage_open_url(&s, bad[i].url, NULL, &err);
    if (rc != bad[i].code || !strstr(err.message, bad[i].says))
      fail_msg("%s: %d %s", bad[i].url, rc, err.message);
    assert_null(s);
  }
  inlet_storage_options o = INLET_STORAGE_OPTIONS_INIT;
  o.version = 99;
  assert_int_equal(inlet_storage_open_url(&s, "s3://b", &o, &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "version"));
}

static void test_objstore__times_and_joins(void **state) {
  (void)state;
  assert_int_equal(inlet_objstore_parse_time_ms("2009-10-12T17:50:30.000Z"), 1255369830000LL);
  assert_int_equal(inlet_objstore_parse_time_ms("2009-10-12T17:50:30.5Z"), 1255369830500LL);
  assert_int_equal(inlet_objstore_parse_time_ms("Sun, 06 Nov 1994 08:49:37 GMT"), 784111777000LL);
  assert_int_equal(inlet_objstore_parse_time_ms("yesterday"), -1);
  assert_int_equal(inlet_objstore_parse_time_ms(""), -1);
  char *j = inlet_objstore_join("a/b", "c");
  assert_string_equal(j, "a/b/c");
  inlet_free(j);
  j = inlet_objstore_join("", "c");
  assert_string_equal(j, "c");
  inlet_free(j);
  j = inlet_objstore_join("p", "");
  assert_string_equal(j, "p");
  inlet_free(j);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_s3_config__environment, setup, teardown),
      cmocka_unit_test_setup_teardown(test_s3_config__profiles, setup, teardown),
      cmocka_unit_test_setup_teardown(test_s3_config__missing_credentials_name_the_fix, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_azure_config__forms, setup, teardown),
      cmocka_unit_test_setup_teardown(test_url__forms_and_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_objstore__times_and_joins, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
