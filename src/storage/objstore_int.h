/*
 * Private to the object-store backends (s3.c, azure.c, url.c,
 * objstore.c): resolved settings and credentials, and helpers they share.
 * Secrets live only in these structs and in request signing; errors never
 * print them.
 */
#ifndef INLET_STORAGE_OBJSTORE_INT_H
#define INLET_STORAGE_OBJSTORE_INT_H

#include "storage/http.h"
#include "storage/sign.h"
#include "storage/storage.h"
#include "util/buf.h"

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
/* A deep copy of @p src into @p dst (a handle's clone for another thread). */
int inlet_s3_config_copy(inlet_s3_config *dst, const inlet_s3_config *src, inlet_error *err);

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
int inlet_azure_config_copy(inlet_azure_config *dst, const inlet_azure_config *src,
                            inlet_error *err);

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

/* ---- the object-store core (objstore_core.c) ----
 * What S3 and Azure Blob do alike: a request with its extra headers and
 * query, ranged and whole-object reads, conditional and plain PUTs,
 * deletes, listings assembled page by page, and the storage vtable entries
 * built on them. A backend brings its URL building and signing (req_init),
 * its error-body reading (fail), its listing protocol and its multi-part
 * upload. */

#define OBJSTORE_MAX_HDRS 12
#define OBJSTORE_MAX_QUERY 8

typedef struct objstore objstore;

/* One request: the HTTP request plus what the backend signs. */
typedef struct objstore_req {
  inlet_http_req http; /* first: sign callbacks get &http */
  objstore *s;
  char *path; /* owned; the backend's signed path (S3: decoded, Azure: encoded) */
  inlet_kv query[OBJSTORE_MAX_QUERY];
  char *qval[OBJSTORE_MAX_QUERY]; /* owned query values */
  size_t n_query;
  inlet_kv hdr[OBJSTORE_MAX_HDRS]; /* extra signed headers; values owned in hval */
  char *hval[OBJSTORE_MAX_HDRS];
  size_t n_hdr;
} objstore_req;

typedef struct objstore_backend {
  const char *scheme;       /* "s3", "az": messages name objects scheme://bucket/key */
  const char *range_header; /* the ranged-GET header */
  /* A header every whole-object PUT carries (Azure's blob type), or NULL. */
  const char *put_header, *put_value;
  /* Builds the URL (with the query added so far) and the signing of @p q,
   * whose headers and query are set; @p key NULL: the bucket itself. */
  int (*req_init)(objstore_req *q, objstore *s, const char *method, const char *key,
                  inlet_error *err);
  /* The error for an unexpected status: the body's code and message, never
   * the rest of it (error bodies may echo the string to sign). */
  int (*fail)(const objstore_req *q, inlet_error *err);
  const struct inlet_rfile_ops *rfile_ops;
} objstore_backend;

/* The part of a backend's storage the core uses; first member of it. */
struct objstore {
  inlet_storage base;
  const objstore_backend *be;
  inlet_http *http;           /* owned */
  inlet_http_config http_cfg; /* what http was made with (clones get the same) */
  objstore_tuning tune;
  const char *bucket; /* borrowed from the backend's config: bucket or container */
  const char *prefix; /* borrowed; "" or "a/b" */
};

void objstore_req_reset(objstore_req *q);
int objstore_req_header(objstore_req *q, const char *name, const char *value, inlet_error *err);
int objstore_req_query(objstore_req *q, const char *name, const char *value, inlet_error *err);
/* Runs one request; a transport failure is returned, a status is not. */
int objstore_run1(objstore_req *q, inlet_error *err);
/* The store key of a table path (prefix joined); NULL on ENOMEM. */
char *objstore_key_of(objstore *s, const char *path, inlet_error *err);

/* HEAD: size and mtime (mtime may be NULL), INLET_ENOTFOUND if absent. */
int objstore_head(objstore *s, const char *key, int64_t *size, int64_t *mtime, inlet_error *err);
/* GET of a whole object of at most @p limit bytes (*out owned, never NULL on success). */
int objstore_get(objstore *s, const char *key, size_t limit, uint8_t **out, size_t *len,
                 inlet_error *err);
/* PUT of a whole object; @p conditional: If-None-Match: * (INLET_EEXISTS
 * when the key exists, unless a lost answer was our own success). */
int objstore_put(objstore *s, const char *key, const void *data, size_t n, bool conditional,
                 inlet_error *err);
/* Initialises a DELETE of @p key, and checks its answer (absent is fine). */
int objstore_delete_req(objstore_req *q, objstore *s, const char *key, inlet_error *err);
int objstore_delete_check(const objstore_req *q, inlet_error *err);

/* A readable object: ranged GETs of one key. */
typedef struct objstore_rfile {
  inlet_rfile base;
  objstore *s;
  char *key; /* owned */
} objstore_rfile;
int objstore_read_at(inlet_rfile *rf, int64_t off, void *buf, size_t n, inlet_error *err);
int objstore_read_ranges(inlet_rfile *rf, inlet_read_range *rr, size_t n, inlet_error *err);
/* read_tail by offset: the size first when unknown (a HEAD). */
int objstore_read_tail(inlet_rfile *rf, void *buf, size_t n, size_t *got, inlet_error *err);
void objstore_rclose(inlet_rfile *rf);

/* A listing assembled from pages: entries below the listed prefix. */
typedef struct objstore_listing {
  inlet_dirent *v;
  size_t n, cap;
  size_t strip;   /* bytes of the listed prefix to strip from keys */
  char *cur_name; /* owned; the object element being read */
  int64_t cur_size, cur_mtime;
  bool attrs;
} objstore_listing;
/* The full-key prefix of a listing of @p dir with @p opts (into @p pfx,
 * terminated) and the bytes of it that name @p dir (*strip). */
int objstore_list_prefix(objstore *s, const char *dir, const inlet_list_options *opts,
                         inlet_buf *pfx, size_t *strip, inlet_error *err);
int objstore_listing_push(objstore_listing *l, const char *name, size_t len, bool is_dir,
                          int64_t size, int64_t mtime, inlet_error *err);
/* The object element ended: its entry, unless it is a "directory marker"
 * ("a/b/", which some tools create). */
int objstore_listing_object(objstore_listing *l, inlet_error *err);
/* Sorted and filtered by @p opts into *out (or freed on @p rc < 0). */
int objstore_listing_finish(objstore_listing *l, int rc, const inlet_list_options *opts,
                            inlet_dirent **out, size_t *count);

/* Storage vtable entries (inlet_storage_ops) common to the backends. */
int objstore_open_read_sized(inlet_storage *st, const char *path, int64_t size, inlet_rfile **out,
                             inlet_error *err);
int objstore_open_read(inlet_storage *st, const char *path, inlet_rfile **out, inlet_error *err);
int objstore_read_files(inlet_storage *st, inlet_file_range *fr, size_t n, inlet_error *err);
int objstore_get_bytes(inlet_storage *st, const char *path, size_t limit, uint8_t **out,
                       size_t *len, inlet_error *err);
int objstore_put_bytes(inlet_storage *st, const char *path, const void *data, size_t n,
                       inlet_error *err);
int objstore_put_if_absent_bytes(inlet_storage *st, const char *path, const void *data, size_t n,
                                 inlet_error *err);
int objstore_remove(inlet_storage *st, const char *path, inlet_error *err);
int objstore_put_if_absent(inlet_storage *st, const char *tmp, const char *final, inlet_error *err);
int objstore_replace(inlet_storage *st, const char *tmp, const char *final, inlet_error *err);
int objstore_list(inlet_storage *st, const char *dir, inlet_dirent **out, size_t *count,
                  inlet_error *err);
int objstore_list_names(inlet_storage *st, const char *dir, inlet_dirent **out, size_t *count,
                        inlet_error *err);
int objstore_stat(inlet_storage *st, const char *path, inlet_dirent *out, inlet_error *err);
/* mkdirs and sync_dir: an object store has no directories. */
int objstore_nothing(inlet_storage *st, const char *dir, inlet_error *err);

#endif /* INLET_STORAGE_OBJSTORE_INT_H */
