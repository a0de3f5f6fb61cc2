/*
 * Private to the object-store backends (s3.c, azure.c, url.c,
 * objstore.c): resolved settings and credentials, and helpers they share.
 * Secrets live only in these structs and in request signing; errors never
 * print them.
 */
#ifndef INLET_STORAGE_OBJSTORE_INT_H
#define INLET_STORAGE_OBJSTORE_INT_H

#include "storage/http.h"
#include "storage/storage.h"

typedef struct inlet_s3_config {
  char *access_key;    /* owned */
  char *secret_key;    /* owned; secret */
  char *session_token; /* owned or NULL; secret */
  char *region;        /* owned */
  char *endpoint;      /* owned; "scheme://host[:port]", no trailing '/' */
  bool path_style;
  char *bucket;            /* owned */
  char *prefix;            /* owned; "" or "a/b" (no leading or trailing '/') */
  char *credential_source; /* owned; "environment", "profile default in ~/.aws/credentials", ... */
} inlet_s3_config;

/* Resolves S3 settings for @p bucket / @p prefix: @p o first, then the
 * environment, then the profile files ($AWS_SHARED_CREDENTIALS_FILE or
 * ~/.aws/credentials, $AWS_CONFIG_FILE or ~/.aws/config). */
int inlet_s3_config_resolve(inlet_s3_config *c, const char *bucket, const char *prefix,
                            const inlet_storage_options *o, inlet_error *err);
void inlet_s3_config_reset(inlet_s3_config *c);

typedef struct inlet_azure_config {
  char *account; /* owned */
  uint8_t *key;  /* owned or NULL; decoded shared key; secret */
  size_t key_len;
  char *sas;       /* owned or NULL; SAS query without '?'; secret */
  char *endpoint;  /* owned; blob endpoint "scheme://host[:port][/account]", no trailing '/' */
  char *container; /* owned */
  char *prefix;    /* owned; "" or "a/b" */
} inlet_azure_config;

/* Resolves Azure settings: @p o, then AZURE_STORAGE_CONNECTION_STRING,
 * AZURE_STORAGE_ACCOUNT, AZURE_STORAGE_KEY, AZURE_STORAGE_SAS_TOKEN.
 * @p account_hint comes from an abfss:// host (NULL otherwise). */
int inlet_azure_config_resolve(inlet_azure_config *c, const char *container, const char *prefix,
                               const char *account_hint, const inlet_storage_options *o,
                               inlet_error *err);
void inlet_azure_config_reset(inlet_azure_config *c);

/* The backends; they take over @p c's contents (reset on return). */
int inlet_storage_s3_open(inlet_storage **out, inlet_s3_config *c, const inlet_storage_options *o,
                          inlet_error *err);
int inlet_storage_azure_open(inlet_storage **out, inlet_azure_config *c,
                             const inlet_storage_options *o, inlet_error *err);

/* ---- shared helpers (objstore.c) ---- */

typedef struct objstore_tuning {
  size_t part_size;
  int parts_in_flight;
} objstore_tuning;
void inlet_objstore_tuning(const inlet_storage_options *o, inlet_http_config *hc,
                           objstore_tuning *t);

/* "prefix/path" (or "path" when prefix is ""); NULL on ENOMEM. */
char *inlet_objstore_join(const char *prefix, const char *path);
/* Milliseconds since the epoch of "2009-10-12T17:50:30.000Z" or of an HTTP
 * date "Sun, 06 Nov 1994 08:49:37 GMT"; -1 if neither. */
int64_t inlet_objstore_parse_time_ms(const char *s);
/* Looks @p key up in section @p section of the INI file @p path (AWS
 * profile files). 0 and *out (owned) when found, INLET_ENOTFOUND when the
 * file, section or key is absent. */
int inlet_ini_lookup(const char *path, const char *section, const char *key, char **out,
                     inlet_error *err);
/* The legacy two-step publish on a store without rename: reads @p tmp,
 * writes its bytes to @p final (put_if_absent_bytes when @p conditional,
 * else put_bytes) and removes @p tmp. */
int inlet_objstore_publish_tmp(inlet_storage *st, const char *tmp, const char *final,
                               bool conditional, inlet_error *err);
/* Test hook: entries per listing page and keys per batch delete (0: the
 * stores' own maxima), so tests reach page and batch boundaries with few
 * objects. Process-wide; tests only. */
void inlet_objstore_test_page_size(size_t n);
size_t inlet_objstore_page_size(size_t store_max);
/* Sorts entries by name and drops duplicates (a listing assembled from
 * pages and common prefixes). */
void inlet_objstore_sort_entries(inlet_dirent *e, size_t *n);

#endif /* INLET_STORAGE_OBJSTORE_INT_H */
