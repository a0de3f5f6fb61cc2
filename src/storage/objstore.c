/*
 * Settings and credentials of the object-store backends (objstore_int.h),
 * resolved the way the AWS CLI and the Azure tools do:
 *
 * S3 credentials: explicit options; else (unless a profile was named in
 * the options) AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY (+
 * AWS_SESSION_TOKEN); else the profile (options, AWS_PROFILE, "default") in
 * the credentials file ([name]) and then the config file ([profile name],
 * [default]). Region: options, AWS_REGION, AWS_DEFAULT_REGION, the
 * profile's "region", "us-east-1". Endpoint: options, AWS_ENDPOINT_URL_S3,
 * AWS_ENDPOINT_URL, the profile's "endpoint_url", else AWS's regional
 * endpoint; a custom endpoint means path-style addressing unless the
 * options say otherwise.
 *
 * Azure: explicit options, then AZURE_STORAGE_CONNECTION_STRING (the keys
 * AccountName, AccountKey, SharedAccessSignature, BlobEndpoint,
 * DefaultEndpointsProtocol, EndpointSuffix, UseDevelopmentStorage), then
 * AZURE_STORAGE_ACCOUNT, AZURE_STORAGE_KEY, AZURE_STORAGE_SAS_TOKEN.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <time.h>

#include "storage/objstore_int.h"
#include "storage/sign.h"
#include "util/datetime.h"
#include "util/util.h"

void inlet_objstore_tuning(const inlet_storage_options *o, inlet_http_config *hc,
                           objstore_tuning *t) {
  static const inlet_http_config d = INLET_HTTP_CONFIG_INIT;
  *hc = d;
  t->part_size = (size_t)8 << 20;
  t->parts_in_flight = 4;
  if (!o) return;
  if (o->part_size) t->part_size = o->part_size < 1024 ? 1024 : o->part_size;
  if (o->parts_in_flight > 0)
    t->parts_in_flight = o->parts_in_flight > 64 ? 64 : o->parts_in_flight;
  if (o->max_in_flight > 0) hc->max_in_flight = o->max_in_flight;
  if (o->max_attempts > 0) hc->max_attempts = o->max_attempts;
  if (o->timeout_ms > 0) hc->request_timeout_ms = o->timeout_ms;
  if (o->stall_timeout_ms > 0) hc->stall_timeout_ms = o->stall_timeout_ms;
  if (o->connect_timeout_ms > 0) hc->connect_timeout_ms = o->connect_timeout_ms;
  if (o->backoff_base_ms > 0) hc->backoff_base_ms = o->backoff_base_ms;
  if (o->backoff_max_ms > 0) hc->backoff_max_ms = o->backoff_max_ms;
}

static size_t test_page_size;
void inlet_objstore_test_page_size(size_t n) {
  test_page_size = n;
}
size_t inlet_objstore_page_size(size_t store_max) {
  return test_page_size && test_page_size < store_max ? test_page_size : store_max;
}

char *inlet_objstore_join(const char *prefix, const char *path) {
  size_t pl = strlen(prefix), n = strlen(path);
  char *k = inlet_malloc(pl + n + 2);
  if (!k) return NULL;
  if (pl && n) {
    memcpy(k, prefix, pl);
    k[pl] = '/';
    memcpy(k + pl + 1, path, n + 1);
  } else if (pl) {
    memcpy(k, prefix, pl + 1);
  } else {
    memcpy(k, path, n + 1);
  }
  return k;
}

int64_t inlet_objstore_parse_time_ms(const char *s) {
  if (!s || !*s) return -1;
  /* Listings give ISO-8601 (the grammar of util/datetime.h); HEAD responses
   * an HTTP-date (RFC 9110 IMF-fixdate), which is not ISO. */
  int64_t us;
  if (inlet_iso_timestamp_micros(s, strlen(s), &us))
    return us >= 0 ? us / 1000 : -((-us + 999) / 1000);
  struct tm tm;
  memset(&tm, 0, sizeof tm);
  const char *end = strptime(s, "%a, %d %b %Y %H:%M:%S", &tm);
  if (!end) return -1;
  time_t t = timegm(&tm);
  if (t == (time_t)-1) return -1;
  return (int64_t)t * 1000;
}

static char *trim(char *s) {
  while (isspace((unsigned char)*s))
    s++;
  size_t n = strlen(s);
  while (n && isspace((unsigned char)s[n - 1]))
    s[--n] = 0;
  return s;
}

int inlet_ini_lookup(const char *path, const char *section, const char *key, char **out,
                     inlet_error *err) {
  *out = NULL;
  FILE *f = fopen(path, "r");
  if (!f) return INLET_ENOTFOUND;
  char line[4096];
  bool in = false;
  int rc = INLET_ENOTFOUND;
  while (fgets(line, sizeof line, f)) {
    bool indented = line[0] == ' ' || line[0] == '\t';
    char *t = trim(line);
    if (!*t || *t == '#' || *t == ';') continue;
    if (*t == '[') {
      char *close = strchr(t, ']');
      if (!close) continue;
      *close = 0;
      in = strcmp(trim(t + 1), section) == 0;
      continue;
    }
    if (!in || indented) continue; /* nested "s3 =" sub-keys are not top-level keys */
    char *eq = strchr(t, '=');
    if (!eq) continue;
    *eq = 0;
    if (strcmp(trim(t), key) != 0) continue;
    char *v = trim(eq + 1);
    *out = inlet_strdup(v);
    rc = *out ? 0 : inlet_fail(err, INLET_ENOMEM, "out of memory");
    break;
  }
  fclose(f);
  return rc;
}

static int cmp_ent(const void *a, const void *b) {
  return strcmp(((const inlet_dirent *)a)->name, ((const inlet_dirent *)b)->name);
}

void inlet_objstore_sort_entries(inlet_dirent *e, size_t *n) {
  if (*n < 2) return;
  qsort(e, *n, sizeof *e, cmp_ent);
  size_t k = 1;
  for (size_t i = 1; i < *n; i++) {
    if (strcmp(e[i].name, e[k - 1].name) == 0) {
      inlet_free(e[i].name);
      continue;
    }
    e[k++] = e[i];
  }
  *n = k;
}

int inlet_objstore_publish_tmp(inlet_storage *st, const char *tmp, const char *final,
                               bool conditional, inlet_error *err) {
  TRY(inlet_path_check(final, err));
  uint8_t *data = NULL;
  size_t n = 0;
  TRY(st->ops->get_bytes(st, tmp, (size_t)1 << 30, &data, &n, err));
  int rc = conditional ? st->ops->put_if_absent_bytes(st, final, data, n, err)
                       : st->ops->put_bytes(st, final, data, n, err);
  inlet_free(data);
  if (rc == 0) {
    inlet_error ignore = INLET_ERROR_INIT;
    st->ops->remove(st, tmp, &ignore);
  }
  return rc;
}

/* ---- S3 ----------------------------------------------------------------------- */

static const char *env(const char *name) {
  const char *v = getenv(name);
  return v && *v ? v : NULL;
}

static int dup_into(char **dst, const char *v, inlet_error *err) {
  *dst = inlet_strdup(v);
  return *dst ? 0 : inlet_fail(err, INLET_ENOMEM, "out of memory");
}

/* Path of an AWS file: the override variable, else ~/.aws/<name>. */
static char *aws_file(const char *override, const char *name) {
  const char *o = env(override);
  if (o) return inlet_strdup(o);
  const char *home = env("HOME");
  if (!home) return NULL;
  size_t n = strlen(home) + strlen(name) + 8;
  char *p = inlet_malloc(n);
  if (p) snprintf(p, n, "%s/.aws/%s", home, name);
  return p;
}

/* A profile's setting from the credentials file ([name]) or the config
 * file ([profile name], or [default]). */
static int profile_value(const char *profile, const char *key, bool credentials_file_too,
                         char **out, char **source, inlet_error *err) {
  *out = NULL;
  int rc = INLET_ENOTFOUND;
  if (credentials_file_too) {
    char *cf = aws_file("AWS_SHARED_CREDENTIALS_FILE", "credentials");
    if (cf) rc = inlet_ini_lookup(cf, profile, key, out, err);
    if (rc == 0 && source) {
      size_t n = strlen(profile) + strlen(cf) + 32;
      *source = inlet_malloc(n);
      if (*source) snprintf(*source, n, "profile %s in %s", profile, cf);
    }
    inlet_free(cf);
    if (rc != INLET_ENOTFOUND) return rc;
  }
  char *cfg = aws_file("AWS_CONFIG_FILE", "config");
  if (!cfg) return INLET_ENOTFOUND;
  char section[512];
  if (strcmp(profile, "default") == 0)
    snprintf(section, sizeof section, "default");
  else
    snprintf(section, sizeof section, "profile %s", profile);
  rc = inlet_ini_lookup(cfg, section, key, out, err);
  if (rc == INLET_ENOTFOUND && strcmp(profile, "default") == 0)
    rc = inlet_ini_lookup(cfg, "profile default", key, out, err);
  if (rc == 0 && source) {
    size_t n = strlen(profile) + strlen(cfg) + 32;
    *source = inlet_malloc(n);
    if (*source) snprintf(*source, n, "profile %s in %s", profile, cfg);
  }
  inlet_free(cfg);
  return rc;
}

void inlet_s3_config_reset(inlet_s3_config *c) {
  if (!c) return;
  if (c->secret_key) memset(c->secret_key, 0, strlen(c->secret_key));
  if (c->session_token) memset(c->session_token, 0, strlen(c->session_token));
  inlet_free(c->access_key);
  inlet_free(c->secret_key);
  inlet_free(c->session_token);
  inlet_free(c->region);
  inlet_free(c->endpoint);
  inlet_free(c->bucket);
  inlet_free(c->prefix);
  inlet_free(c->credential_source);
  memset(c, 0, sizeof *c);
}

/* Copies @p src (may be NULL) into *dst; false on ENOMEM. */
static bool dup_opt(char **dst, const char *src) {
  *dst = src ? inlet_strdup(src) : NULL;
  return !src || *dst;
}

int inlet_s3_config_copy(inlet_s3_config *dst, const inlet_s3_config *src, inlet_error *err) {
  memset(dst, 0, sizeof *dst);
  dst->path_style = src->path_style;
  bool ok = dup_opt(&dst->access_key, src->access_key) &&
            dup_opt(&dst->secret_key, src->secret_key) &&
            dup_opt(&dst->session_token, src->session_token) &&
            dup_opt(&dst->region, src->region) && dup_opt(&dst->endpoint, src->endpoint) &&
            dup_opt(&dst->bucket, src->bucket) && dup_opt(&dst->prefix, src->prefix) &&
            dup_opt(&dst->credential_source, src->credential_source);
  if (ok) return 0;
  inlet_s3_config_reset(dst);
  return inlet_fail(err, INLET_ENOMEM, "out of memory");
}

int inlet_s3_config_resolve(inlet_s3_config *c, const char *bucket, const char *prefix,
                            const inlet_storage_options *o, inlet_error *err) {
  static const inlet_storage_options none = INLET_STORAGE_OPTIONS_INIT;
  if (!o) o = &none;
  memset(c, 0, sizeof *c);
  int rc = 0;
  TRY_GOTO(dup_into(&c->bucket, bucket, err));
  TRY_GOTO(dup_into(&c->prefix, prefix, err));
  const char *profile = o->aws_profile ? o->aws_profile : env("AWS_PROFILE");
  if (!profile) profile = "default";
  /* Credentials. */
  if (o->aws_access_key_id || o->aws_secret_access_key) {
    FAIL_GOTO(!o->aws_access_key_id || !o->aws_secret_access_key, err, INLET_EINVAL,
              "S3 credentials in the options need both an access key id and a secret key");
    TRY_GOTO(dup_into(&c->access_key, o->aws_access_key_id, err));
    TRY_GOTO(dup_into(&c->secret_key, o->aws_secret_access_key, err));
    if (o->aws_session_token) TRY_GOTO(dup_into(&c->session_token, o->aws_session_token, err));
    TRY_GOTO(dup_into(&c->credential_source, "options", err));
  } else if (!o->aws_profile && env("AWS_ACCESS_KEY_ID") && env("AWS_SECRET_ACCESS_KEY")) {
    TRY_GOTO(dup_into(&c->access_key, env("AWS_ACCESS_KEY_ID"), err));
    TRY_GOTO(dup_into(&c->secret_key, env("AWS_SECRET_ACCESS_KEY"), err));
    if (env("AWS_SESSION_TOKEN"))
      TRY_GOTO(dup_into(&c->session_token, env("AWS_SESSION_TOKEN"), err));
    TRY_GOTO(dup_into(&c->credential_source, "environment", err));
  } else {
    rc = profile_value(profile, "aws_access_key_id", true, &c->access_key, &c->credential_source,
                       err);
    if (rc == INLET_ENOTFOUND)
      FAIL_GOTO(true, err, INLET_EINVAL,
                "no S3 credentials for s3://%s: set AWS_ACCESS_KEY_ID and "
                "AWS_SECRET_ACCESS_KEY, or AWS_PROFILE with ~/.aws/credentials (profile \"%s\" "
                "has no aws_access_key_id)",
                bucket, profile);
    TRY_GOTO(rc);
    rc = profile_value(profile, "aws_secret_access_key", true, &c->secret_key, NULL, err);
    FAIL_GOTO(rc == INLET_ENOTFOUND, err, INLET_EINVAL,
              "profile \"%s\" has aws_access_key_id but no aws_secret_access_key", profile);
    TRY_GOTO(rc);
    rc = profile_value(profile, "aws_session_token", true, &c->session_token, NULL, err);
    if (rc == INLET_ENOTFOUND) rc = 0;
    TRY_GOTO(rc);
  }
  /* Region. */
  const char *region = o->aws_region       ? o->aws_region
                       : env("AWS_REGION") ? env("AWS_REGION")
                                           : env("AWS_DEFAULT_REGION");
  if (region) {
    TRY_GOTO(dup_into(&c->region, region, err));
  } else {
    rc = profile_value(profile, "region", false, &c->region, NULL, err);
    if (rc == INLET_ENOTFOUND) rc = dup_into(&c->region, "us-east-1", err);
    TRY_GOTO(rc);
  }
  /* Endpoint. */
  const char *ep = o->aws_endpoint_url          ? o->aws_endpoint_url
                   : env("AWS_ENDPOINT_URL_S3") ? env("AWS_ENDPOINT_URL_S3")
                                                : env("AWS_ENDPOINT_URL");
  bool custom = true;
  if (ep) {
    TRY_GOTO(dup_into(&c->endpoint, ep, err));
  } else {
    rc = profile_value(profile, "endpoint_url", false, &c->endpoint, NULL, err);
    if (rc == INLET_ENOTFOUND) {
      custom = false;
      size_t n = strlen(c->region) + 40;
      c->endpoint = inlet_malloc(n);
      FAIL_GOTO(!c->endpoint, err, INLET_ENOMEM, "out of memory");
      snprintf(c->endpoint, n, "https://s3.%s.amazonaws.com", c->region);
      rc = 0;
    }
    TRY_GOTO(rc);
  }
  size_t el = strlen(c->endpoint);
  while (el && c->endpoint[el - 1] == '/')
    c->endpoint[--el] = 0;
  FAIL_GOTO(strncmp(c->endpoint, "http://", 7) != 0 && strncmp(c->endpoint, "https://", 8) != 0,
            err, INLET_EINVAL, "S3 endpoint \"%s\" is not an http:// or https:// URL", c->endpoint);
  c->path_style = o->s3_path_style >= 0 ? o->s3_path_style != 0 : custom;
  /* Virtual-hosted addressing needs a bucket name that is a DNS label. */
  if (!c->path_style && strchr(bucket, '.')) c->path_style = true;
done:
  if (rc < 0) inlet_s3_config_reset(c);
  return rc;
}

/* ---- Azure -------------------------------------------------------------------- */

/* Azurite's well-known development account (published in its README). */
#define AZURITE_ACCOUNT "devstoreaccount1"
#define AZURITE_KEY                                                                                \
  "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

void inlet_azure_config_reset(inlet_azure_config *c) {
  if (!c) return;
  if (c->key) memset(c->key, 0, c->key_len);
  if (c->sas) memset(c->sas, 0, strlen(c->sas));
  inlet_free(c->account);
  inlet_free(c->key);
  inlet_free(c->sas);
  inlet_free(c->endpoint);
  inlet_free(c->container);
  inlet_free(c->prefix);
  memset(c, 0, sizeof *c);
}

int inlet_azure_config_copy(inlet_azure_config *dst, const inlet_azure_config *src,
                            inlet_error *err) {
  memset(dst, 0, sizeof *dst);
  bool ok = dup_opt(&dst->account, src->account) && dup_opt(&dst->sas, src->sas) &&
            dup_opt(&dst->endpoint, src->endpoint) && dup_opt(&dst->container, src->container) &&
            dup_opt(&dst->prefix, src->prefix);
  if (ok && src->key) {
    dst->key = inlet_malloc(src->key_len ? src->key_len : 1);
    ok = dst->key != NULL;
    if (ok) {
      memcpy(dst->key, src->key, src->key_len);
      dst->key_len = src->key_len;
    }
  }
  if (ok) return 0;
  inlet_azure_config_reset(dst);
  return inlet_fail(err, INLET_ENOMEM, "out of memory");
}

/* Value of @p key in a "k=v;k=v" connection string (copied), or NULL. */
static char *conn_value(const char *cs, const char *key) {
  size_t kl = strlen(key);
  const char *p = cs;
  while (*p) {
    while (*p == ';' || *p == ' ')
      p++;
    const char *end = strchr(p, ';');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len > kl && p[kl] == '=' && strncasecmp(p, key, kl) == 0)
      return inlet_strndup(p + kl + 1, len - kl - 1);
    p += len;
  }
  return NULL;
}

static int set_key(inlet_azure_config *c, const char *b64, inlet_error *err) {
  inlet_free(c->key);
  c->key = NULL;
  inlet_error e = INLET_ERROR_INIT;
  int rc = inlet_base64_decode(b64, &c->key, &c->key_len, &e);
  /* Never echo the key itself. */
  if (rc == INLET_EINVAL) return inlet_fail(err, rc, "the Azure storage key is not valid base64");
  if (rc < 0 && err) *err = e;
  return rc;
}

static int set_sas(inlet_azure_config *c, const char *sas, inlet_error *err) {
  if (*sas == '?') sas++;
  inlet_free(c->sas);
  return dup_into(&c->sas, sas, err);
}

int inlet_azure_config_resolve(inlet_azure_config *c, const char *container, const char *prefix,
                               const char *account_hint, const inlet_storage_options *o,
                               inlet_error *err) {
  static const inlet_storage_options none = INLET_STORAGE_OPTIONS_INIT;
  if (!o) o = &none;
  memset(c, 0, sizeof *c);
  int rc = 0;
  char *cs_account = NULL, *cs_key = NULL, *cs_sas = NULL, *cs_ep = NULL, *cs_proto = NULL,
       *cs_suffix = NULL, *cs_dev = NULL;
  TRY_GOTO(dup_into(&c->container, container, err));
  TRY_GOTO(dup_into(&c->prefix, prefix, err));
  const char *cs = o->azure_connection_string ? o->azure_connection_string
                                              : env("AZURE_STORAGE_CONNECTION_STRING");
  if (cs) {
    cs_account = conn_value(cs, "AccountName");
    cs_key = conn_value(cs, "AccountKey");
    cs_sas = conn_value(cs, "SharedAccessSignature");
    cs_ep = conn_value(cs, "BlobEndpoint");
    cs_proto = conn_value(cs, "DefaultEndpointsProtocol");
    cs_suffix = conn_value(cs, "EndpointSuffix");
    cs_dev = conn_value(cs, "UseDevelopmentStorage");
    if (cs_dev && strcasecmp(cs_dev, "true") == 0) {
      if (!cs_account) cs_account = inlet_strdup(AZURITE_ACCOUNT);
      if (!cs_key) cs_key = inlet_strdup(AZURITE_KEY);
      if (!cs_ep) cs_ep = inlet_strdup("http://127.0.0.1:10000/" AZURITE_ACCOUNT);
    }
  }
  const char *account = account_hint       ? account_hint
                        : o->azure_account ? o->azure_account
                        : cs_account       ? cs_account
                                           : env("AZURE_STORAGE_ACCOUNT");
  FAIL_GOTO(!account, err, INLET_EINVAL,
            "no Azure storage account for container \"%s\": set AZURE_STORAGE_ACCOUNT or "
            "AZURE_STORAGE_CONNECTION_STRING",
            container);
  TRY_GOTO(dup_into(&c->account, account, err));
  /* Credentials given in the options replace the environment's whole: a
   * SAS in the options is not mixed with a key from a connection string. */
  const char *key, *sas;
  if (o->azure_key || o->azure_sas_token) {
    key = o->azure_key;
    sas = o->azure_sas_token;
  } else if (cs_key || cs_sas) {
    key = cs_key;
    sas = cs_sas;
  } else {
    key = env("AZURE_STORAGE_KEY");
    sas = env("AZURE_STORAGE_SAS_TOKEN");
  }
  if (key) TRY_GOTO(set_key(c, key, err));
  if (sas) TRY_GOTO(set_sas(c, sas, err));
  FAIL_GOTO(!c->key && !c->sas, err, INLET_EINVAL,
            "no Azure credentials for account \"%s\": set AZURE_STORAGE_KEY, "
            "AZURE_STORAGE_SAS_TOKEN or AZURE_STORAGE_CONNECTION_STRING",
            account);
  const char *ep = o->azure_endpoint ? o->azure_endpoint : cs_ep;
  if (ep) {
    TRY_GOTO(dup_into(&c->endpoint, ep, err));
  } else {
    const char *proto = cs_proto ? cs_proto : "https";
    const char *suffix = cs_suffix ? cs_suffix : "core.windows.net";
    size_t n = strlen(proto) + strlen(account) + strlen(suffix) + 16;
    c->endpoint = inlet_malloc(n);
    FAIL_GOTO(!c->endpoint, err, INLET_ENOMEM, "out of memory");
    snprintf(c->endpoint, n, "%s://%s.blob.%s", proto, account, suffix);
  }
  size_t el = strlen(c->endpoint);
  while (el && c->endpoint[el - 1] == '/')
    c->endpoint[--el] = 0;
  FAIL_GOTO(strncmp(c->endpoint, "http://", 7) != 0 && strncmp(c->endpoint, "https://", 8) != 0,
            err, INLET_EINVAL, "Azure blob endpoint \"%s\" is not an http:// or https:// URL",
            c->endpoint);
done:
  inlet_free(cs_account);
  if (cs_key) memset(cs_key, 0, strlen(cs_key));
  if (cs_sas) memset(cs_sas, 0, strlen(cs_sas));
  inlet_free(cs_key);
  inlet_free(cs_sas);
  inlet_free(cs_ep);
  inlet_free(cs_proto);
  inlet_free(cs_suffix);
  inlet_free(cs_dev);
  if (rc < 0) inlet_azure_config_reset(c);
  return rc;
}
