/*
 * Delta log actions: parsing one newline-delimited JSON line into the action
 * model of delta.h and serialising actions back, with jansson.
 *
 * Spec: PROTOCOL.md "Actions" (Change Metadata, Add File and Remove File,
 * Transaction Identifiers, Protocol Evolution, Commit Provenance
 * Information, Domain Metadata) and "Deletion Vector Descriptor Schema" (the
 * unique id used as replay key), "Add CDC File" (cdc, for change data feed
 * reads). Actions this reader does not model (checkpointMetadata, sidecar,
 * unknown future ones) are ignored, as the protocol requires. Log input is untrusted: wrong types
 * and paths that would escape the table directory are INLET_ECORRUPT naming file and line.
 */
#include <jansson.h>
#include <stdio.h>

#include "delta/delta.h"
#include "util/duration.h"
#include "util/util.h"

/* ---- lifecycle ----------------------------------------------------------- */

static void kv_free(delta_kv *kv, int32_t n) {
  for (int32_t i = 0; i < n; i++) {
    inlet_free(kv[i].key);
    inlet_free(kv[i].value);
  }
  inlet_free(kv);
}

static void strv_free(char **v, int32_t n) {
  for (int32_t i = 0; i < n; i++)
    inlet_free(v[i]);
  inlet_free(v);
}

void delta_protocol_reset(delta_protocol *p) {
  strv_free(p->reader_features, p->n_reader_features);
  strv_free(p->writer_features, p->n_writer_features);
  memset(p, 0, sizeof *p);
}

void delta_metadata_reset(delta_metadata *m) {
  inlet_free(m->id);
  inlet_free(m->name);
  inlet_free(m->description);
  inlet_free(m->format);
  inlet_free(m->schema_string);
  strv_free(m->partition_columns, m->n_partition_columns);
  kv_free(m->configuration, m->n_configuration);
  kv_free(m->format_options, m->n_format_options);
  memset(m, 0, sizeof *m);
  m->created_time = -1;
}

void delta_add_reset(delta_add *a) {
  inlet_free(a->path);
  kv_free(a->partition_values, a->n_partition_values);
  inlet_free(a->stats);
  inlet_free(a->tags);
  inlet_free(a->dv_id);
  inlet_free(a->dv_json);
  inlet_free(a->clustering_provider);
  memset(a, 0, sizeof *a);
}

void delta_remove_reset(delta_remove *r) {
  inlet_free(r->path);
  kv_free(r->partition_values, r->n_partition_values);
  inlet_free(r->stats);
  inlet_free(r->tags);
  inlet_free(r->dv_id);
  inlet_free(r->dv_json);
  memset(r, 0, sizeof *r);
}

void delta_action_reset(delta_action *a) {
  switch (a->kind) {
  case DELTA_ACTION_PROTOCOL: delta_protocol_reset(&a->u.protocol); break;
  case DELTA_ACTION_METADATA: delta_metadata_reset(&a->u.metadata); break;
  case DELTA_ACTION_ADD:
  case DELTA_ACTION_CDC: delta_add_reset(&a->u.add); break;
  case DELTA_ACTION_REMOVE: delta_remove_reset(&a->u.remove); break;
  case DELTA_ACTION_TXN: inlet_free(a->u.txn.app_id); break;
  case DELTA_ACTION_COMMIT_INFO: inlet_free(a->u.commit_info); break;
  case DELTA_ACTION_DOMAIN:
    inlet_free(a->u.domain.domain);
    inlet_free(a->u.domain.configuration);
    break;
  case DELTA_ACTION_NONE: break;
  }
  memset(a, 0, sizeof *a);
}

static char *dup_or_null(const char *s, bool *oom) {
  if (!s) return NULL;
  char *d = inlet_strdup(s);
  if (!d) *oom = true;
  return d;
}

static int strv_copy(char ***dst, const char *const *src, int32_t n, bool *oom) {
  *dst = NULL;
  if (!src) return 0;
  *dst = inlet_calloc((size_t)n + 1, sizeof **dst);
  if (!*dst) {
    *oom = true;
    return 0;
  }
  for (int32_t i = 0; i < n; i++)
    (*dst)[i] = dup_or_null(src[i], oom);
  return 0;
}

static void kv_copy(delta_kv **dst, const delta_kv *src, int32_t n, bool *oom) {
  *dst = NULL;
  if (n == 0) return;
  *dst = inlet_calloc((size_t)n, sizeof **dst);
  if (!*dst) {
    *oom = true;
    return;
  }
  for (int32_t i = 0; i < n; i++) {
    (*dst)[i].key = dup_or_null(src[i].key, oom);
    (*dst)[i].value = dup_or_null(src[i].value, oom);
  }
}

int delta_protocol_copy(delta_protocol *dst, const delta_protocol *src, inlet_error *err) {
  bool oom = false;
  *dst = *src;
  strv_copy(&dst->reader_features, (const char *const *)src->reader_features,
            src->n_reader_features, &oom);
  if (!dst->reader_features) dst->n_reader_features = 0;
  strv_copy(&dst->writer_features, (const char *const *)src->writer_features,
            src->n_writer_features, &oom);
  if (!dst->writer_features) dst->n_writer_features = 0;
  if (oom) {
    delta_protocol_reset(dst);
    return inlet_fail(err, INLET_ENOMEM, "out of memory copying protocol");
  }
  return 0;
}

int delta_metadata_copy(delta_metadata *dst, const delta_metadata *src, inlet_error *err) {
  bool oom = false;
  *dst = *src;
  dst->id = dup_or_null(src->id, &oom);
  dst->name = dup_or_null(src->name, &oom);
  dst->description = dup_or_null(src->description, &oom);
  dst->format = dup_or_null(src->format, &oom);
  dst->schema_string = dup_or_null(src->schema_string, &oom);
  strv_copy(&dst->partition_columns, (const char *const *)src->partition_columns,
            src->n_partition_columns, &oom);
  if (!dst->partition_columns) dst->n_partition_columns = 0;
  kv_copy(&dst->configuration, src->configuration, src->n_configuration, &oom);
  if (!dst->configuration) dst->n_configuration = 0;
  kv_copy(&dst->format_options, src->format_options, src->n_format_options, &oom);
  if (!dst->format_options) dst->n_format_options = 0;
  if (oom) {
    delta_metadata_reset(dst);
    return inlet_fail(err, INLET_ENOMEM, "out of memory copying metaData");
  }
  return 0;
}

int delta_add_copy(delta_add *dst, const delta_add *src, inlet_error *err) {
  bool oom = false;
  *dst = *src;
  dst->path = dup_or_null(src->path, &oom);
  kv_copy(&dst->partition_values, src->partition_values, src->n_partition_values, &oom);
  if (!dst->partition_values) dst->n_partition_values = 0;
  dst->stats = dup_or_null(src->stats, &oom);
  dst->tags = dup_or_null(src->tags, &oom);
  dst->dv_id = dup_or_null(src->dv_id, &oom);
  dst->dv_json = dup_or_null(src->dv_json, &oom);
  dst->clustering_provider = dup_or_null(src->clustering_provider, &oom);
  if (oom) {
    delta_add_reset(dst);
    return inlet_fail(err, INLET_ENOMEM, "out of memory copying add action");
  }
  return 0;
}

int delta_remove_copy(delta_remove *dst, const delta_remove *src, inlet_error *err) {
  bool oom = false;
  *dst = *src;
  dst->path = dup_or_null(src->path, &oom);
  kv_copy(&dst->partition_values, src->partition_values, src->n_partition_values, &oom);
  if (!dst->partition_values) dst->n_partition_values = 0;
  dst->stats = dup_or_null(src->stats, &oom);
  dst->tags = dup_or_null(src->tags, &oom);
  dst->dv_id = dup_or_null(src->dv_id, &oom);
  dst->dv_json = dup_or_null(src->dv_json, &oom);
  if (oom) {
    delta_remove_reset(dst);
    return inlet_fail(err, INLET_ENOMEM, "out of memory copying remove action");
  }
  return 0;
}

int64_t delta_interval_conf_ms(const delta_metadata *m, const char *key, int64_t dflt) {
  const char *v = delta_metadata_conf(m, key);
  int64_t us;
  /* A value that does not parse was written by someone else (create
   * refuses one): the default applies, as for an absent one. */
  if (!v || inlet_duration_parse_us(&us, v, NULL) < 0) return dflt;
  return us / 1000;
}

int64_t delta_retention_ms(const delta_metadata *m) {
  return delta_interval_conf_ms(m, "delta.deletedFileRetentionDuration", 7LL * 24 * 3600 * 1000);
}

const char *delta_metadata_conf(const delta_metadata *m, const char *key) {
  for (int32_t i = 0; i < m->n_configuration; i++)
    if (strcmp(m->configuration[i].key, key) == 0) return m->configuration[i].value;
  return NULL;
}

/* ---- paths --------------------------------------------------------------- */

int delta_path_decode(char **out, const char *s, inlet_error *err) {
  size_t n = strlen(s);
  char *d = inlet_malloc(n + 1);
  if (!d) return inlet_fail(err, INLET_ENOMEM, "out of memory decoding path");
  size_t j = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '%') {
      int hi = i + 2 < n ? inlet_hex_digit((unsigned char)s[i + 1]) : -1;
      int lo = i + 2 < n ? inlet_hex_digit((unsigned char)s[i + 2]) : -1;
      if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
        inlet_free(d);
        return inlet_fail(err, INLET_ECORRUPT, "malformed percent-escape in path \"%.200s\"", s);
      }
      d[j++] = (char)(hi * 16 + lo);
      i += 2;
    } else {
      d[j++] = s[i];
    }
  }
  d[j] = '\0';
  *out = d;
  return 0;
}

char *delta_path_encode(const char *s) {
  static const char hex[] = "0123456789ABCDEF";
  inlet_buf b = INLET_BUF_INIT;
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    unsigned c = *p;
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '-' || c == '_' || c == '.' || c == '~' || c == '/' || c == '=';
    if (plain) {
      inlet_buf_push(&b, (uint8_t)c);
    } else {
      char e[3] = {'%', hex[c >> 4], hex[c & 15]};
      inlet_buf_append(&b, e, 3);
    }
  }
  inlet_buf_terminate(&b);
  if (inlet_buf_status(&b)) {
    inlet_buf_reset(&b);
    return NULL;
  }
  return (char *)inlet_buf_detach(&b, NULL);
}

/* Relative, no empty/"."/".." components: the same rule as the storage
 * layer's inlet_path_check, restated so the log parser does not depend on a
 * backend being present. */
static bool rel_path_ok(const char *p) {
  if (!*p || *p == '/') return false;
  const char *c = p;
  while (*c) {
    const char *e = strchr(c, '/');
    size_t len = e ? (size_t)(e - c) : strlen(c);
    if (len == 0 || (len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
      return false;
    if (!e) break;
    c = e + 1;
  }
  return true;
}

/* An object-store URL as the store's family and "bucket/key": s3, s3a and
 * s3n name the same S3 object; az://container/key, and the
 * container@account forms of abfs(s):// and wasb(s)://, the same Azure
 * blob. *bucket and *key point into @p url (the key after the authority
 * and '/'); *bucket_len is the bucket / container length. 0 for a string
 * that is not such a URL. */
static int url_family(const char *url, const char **bucket, size_t *bucket_len, const char **key) {
  static const struct {
    const char *scheme;
    int family;
  } schemes[] = {{"s3://", 1},   {"s3a://", 1},   {"s3n://", 1},  {"az://", 2},
                 {"abfs://", 2}, {"abfss://", 2}, {"wasb://", 2}, {"wasbs://", 2}};
  for (size_t i = 0; i < sizeof schemes / sizeof schemes[0]; i++) {
    size_t n = strlen(schemes[i].scheme);
    if (strncmp(url, schemes[i].scheme, n) != 0) continue;
    const char *b = url + n, *slash = strchr(b, '/');
    const char *end = slash ? slash : b + strlen(b);
    const char *at = memchr(b, '@', (size_t)(end - b));
    *bucket = b;
    *bucket_len = (size_t)((at ? at : end) - b);
    *key = slash ? slash + 1 : end;
    return schemes[i].family;
  }
  return 0;
}

/* The part of @p url below object-store root @p root ("s3://bucket/prefix"),
 * or NULL when @p url names something else. */
static const char *url_below_root(const char *url, const char *root) {
  const char *ub, *uk, *rb, *rk;
  size_t ubl, rbl;
  int uf = url_family(url, &ub, &ubl, &uk), rf = url_family(root, &rb, &rbl, &rk);
  if (!uf || uf != rf || ubl != rbl || memcmp(ub, rb, ubl) != 0) return NULL;
  size_t rl = strlen(rk);
  while (rl > 0 && rk[rl - 1] == '/')
    rl--;
  if (rl == 0) return uk;
  if (strncmp(uk, rk, rl) != 0 || uk[rl] != '/') return NULL;
  return uk + rl + 1;
}

/* Turns a log path (relative URI, absolute path, file: URI, or a URL below
 * an object-store table's root) into a decoded path relative to the table
 * root, refusing anything outside it. */
int delta_path_resolve(char **out, const char *raw, const delta_line_ctx *ctx, const char *what,
                       inlet_error *err) {
  char *dec = NULL;
  int rc = delta_path_decode(&dec, raw, err);
  if (rc < 0)
    return inlet_error_prefix(err, "%s line %lld: %s", ctx->file, (long long)ctx->line, what);
  /* The form (scheme, authority) is read from the raw URI: "file%3Ax" is a
   * relative path naming the file "file:x", not a file: URI. A scheme holds
   * no '%', so the decoded string starts with the same bytes. */
  const char *p = dec;
  if (strncmp(raw, "file:", 5) == 0) {
    p += 5;
    if (strncmp(raw + 5, "//", 2) == 0) {
      p += 2; /* authority: only an empty host (file:///x) names a local file */
      if (*p != '/') goto escape;
    }
  } else {
    const char *colon = strchr(raw, ':');
    const char *slash = strchr(raw, '/');
    size_t scheme_len = colon ? (size_t)(colon - raw) : 0;
    if (colon && (!slash || colon < slash) && colon[1] == '/' && colon[2] == '/' &&
        !memchr(raw, '%', scheme_len)) {
      const char *below = ctx->root_abs ? url_below_root(p, ctx->root_abs) : NULL;
      if (below) {
        if (!rel_path_ok(below)) goto escape;
        char *r = inlet_strdup(below);
        inlet_free(dec);
        if (!r) return inlet_fail(err, INLET_ENOMEM, "out of memory");
        *out = r;
        return 0;
      }
      if (ctx->root_abs && url_below_root(ctx->root_abs, ctx->root_abs)) goto escape;
      rc = inlet_fail(err, INLET_EUNSUPPORTED,
                      "%s line %lld: %s path \"%.200s\" uses a URI scheme "
                      "inlet cannot read",
                      ctx->file, (long long)ctx->line, what, raw);
      inlet_free(dec);
      return rc;
    }
  }
  if (*p == '/') {
    size_t rl = ctx->root_abs ? strlen(ctx->root_abs) : 0;
    while (rl > 1 && ctx->root_abs[rl - 1] == '/')
      rl--;
    if (!ctx->root_abs || strncmp(p, ctx->root_abs, rl) != 0 || p[rl] != '/') goto escape;
    p += rl + 1;
  }
  if (!rel_path_ok(p)) goto escape;
  char *r = inlet_strdup(p);
  inlet_free(dec);
  if (!r) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  *out = r;
  return 0;
escape:
  rc = inlet_fail(err, INLET_ECORRUPT,
                  "%s line %lld: %s path \"%.200s\" escapes the table "
                  "directory",
                  ctx->file, (long long)ctx->line, what, raw);
  inlet_free(dec);
  return rc;
}

/* ---- parsing ------------------------------------------------------------- */

typedef struct pctx {
  const delta_line_ctx *ctx;
  inlet_error *err;
  const char *action;
} pctx;

static int bad(pctx *pc, const char *field, const char *problem) {
  return inlet_fail(pc->err, INLET_ECORRUPT, "corrupt log entry in %s line %lld: %s.%s %s",
                    pc->ctx->file, (long long)pc->ctx->line, pc->action, field, problem);
}

static int oom(pctx *pc) {
  return inlet_fail(pc->err, INLET_ENOMEM, "out of memory parsing %s line %lld", pc->ctx->file,
                    (long long)pc->ctx->line);
}

/* Optional string field: absent or null leaves *out NULL. */
static int get_str(pctx *pc, json_t *obj, const char *key, bool required, char **out) {
  json_t *v = json_object_get(obj, key);
  *out = NULL;
  if (!v || json_is_null(v)) return required ? bad(pc, key, "is missing") : 0;
  if (!json_is_string(v)) return bad(pc, key, "is not a string");
  const char *s = json_string_value(v);
  if (strlen(s) != json_string_length(v)) return bad(pc, key, "contains a NUL character");
  *out = inlet_strdup(s);
  return *out ? 0 : oom(pc);
}

static int get_i64(pctx *pc, json_t *obj, const char *key, bool required, int64_t dflt,
                   int64_t *out) {
  json_t *v = json_object_get(obj, key);
  *out = dflt;
  if (!v || json_is_null(v)) return required ? bad(pc, key, "is missing") : 0;
  if (!json_is_integer(v)) return bad(pc, key, "is not an integer");
  *out = (int64_t)json_integer_value(v);
  return 0;
}

static int get_bool(pctx *pc, json_t *obj, const char *key, bool required, bool dflt, bool *out) {
  json_t *v = json_object_get(obj, key);
  *out = dflt;
  if (!v || json_is_null(v)) return required ? bad(pc, key, "is missing") : 0;
  if (!json_is_boolean(v)) return bad(pc, key, "is not a boolean");
  *out = json_is_true(v);
  return 0;
}

static int get_strv(pctx *pc, json_t *obj, const char *key, char ***out, int32_t *n) {
  json_t *v = json_object_get(obj, key);
  *out = NULL;
  *n = 0;
  if (!v || json_is_null(v)) return 0;
  if (!json_is_array(v)) return bad(pc, key, "is not an array");
  size_t cnt = json_array_size(v);
  if (cnt > 100000) return bad(pc, key, "has too many entries");
  *out = inlet_calloc(cnt + 1, sizeof **out);
  if (!*out) return oom(pc);
  for (size_t i = 0; i < cnt; i++) {
    json_t *e = json_array_get(v, i);
    if (!json_is_string(e)) return bad(pc, key, "has a non-string entry");
    (*out)[i] = inlet_strdup(json_string_value(e));
    if (!(*out)[i]) return oom(pc);
    *n = (int32_t)(i + 1);
  }
  return 0;
}

/* A string->string map; JSON null values stay NULL (null partition value). */
static int get_map(pctx *pc, json_t *obj, const char *key, delta_kv **out, int32_t *n) {
  json_t *v = json_object_get(obj, key);
  *out = NULL;
  *n = 0;
  if (!v || json_is_null(v)) return 0;
  if (!json_is_object(v)) return bad(pc, key, "is not an object");
  size_t cnt = json_object_size(v);
  if (cnt > 100000) return bad(pc, key, "has too many entries");
  if (cnt == 0) return 0;
  *out = inlet_calloc(cnt, sizeof **out);
  if (!*out) return oom(pc);
  const char *k;
  json_t *e;
  json_object_foreach(v, k, e) {
    delta_kv *kv = &(*out)[*n];
    kv->key = inlet_strdup(k);
    if (!kv->key) return oom(pc);
    (*n)++;
    if (json_is_null(e)) continue;
    if (!json_is_string(e)) return bad(pc, key, "has a non-string value");
    kv->value = inlet_strdup(json_string_value(e));
    if (!kv->value) return oom(pc);
  }
  return 0;
}

static int get_raw(pctx *pc, json_t *v, char **out) {
  *out = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
  if (!*out) return oom(pc);
  /* jansson allocates with malloc; hand the caller an inlet_free-able copy. */
  char *c = inlet_strdup(*out);
  free(*out);
  *out = c;
  return c ? 0 : oom(pc);
}

/* tags: a string map, kept as its JSON object text (null values allowed). */
static int get_tags(pctx *pc, json_t *obj, char **out) {
  json_t *tags = json_object_get(obj, "tags");
  *out = NULL;
  if (!tags || json_is_null(tags)) return 0;
  if (!json_is_object(tags)) return bad(pc, "tags", "is not an object");
  const char *k;
  json_t *v;
  json_object_foreach(tags, k, v) {
    if (!json_is_string(v) && !json_is_null(v)) return bad(pc, "tags", "has a non-string value");
  }
  return get_raw(pc, tags, out);
}

/* An optional long whose absence is distinct from every value. */
static int get_opt_i64(pctx *pc, json_t *obj, const char *key, bool *has, int64_t *out) {
  json_t *v = json_object_get(obj, key);
  *has = false;
  *out = 0;
  if (!v || json_is_null(v)) return 0;
  if (!json_is_integer(v)) return bad(pc, key, "is not an integer");
  *has = true;
  *out = (int64_t)json_integer_value(v);
  return 0;
}

/* Deletion vector unique id: storageType + pathOrInlineDv (+ "@" offset). */
static int parse_dv(pctx *pc, json_t *obj, char **id, char **raw) {
  json_t *dv = json_object_get(obj, "deletionVector");
  *id = *raw = NULL;
  if (!dv || json_is_null(dv)) return 0;
  if (!json_is_object(dv)) return bad(pc, "deletionVector", "is not an object");
  json_t *st = json_object_get(dv, "storageType");
  json_t *pi = json_object_get(dv, "pathOrInlineDv");
  json_t *off = json_object_get(dv, "offset");
  if (!json_is_string(st) || !json_is_string(pi))
    return bad(pc, "deletionVector", "lacks storageType or pathOrInlineDv");
  char buf[64] = "";
  if (off && json_is_integer(off))
    snprintf(buf, sizeof buf, "@%lld", (long long)json_integer_value(off));
  size_t n = strlen(json_string_value(st)) + strlen(json_string_value(pi)) + strlen(buf) + 1;
  *id = inlet_malloc(n);
  if (!*id) return oom(pc);
  snprintf(*id, n, "%s%s%s", json_string_value(st), json_string_value(pi), buf);
  return get_raw(pc, dv, raw);
}

static int parse_protocol(pctx *pc, json_t *o, delta_protocol *p) {
  int64_t r, w;
  TRY(get_i64(pc, o, "minReaderVersion", true, 0, &r));
  TRY(get_i64(pc, o, "minWriterVersion", true, 0, &w));
  if (r < 0 || r > INT32_MAX) return bad(pc, "minReaderVersion", "is out of range");
  if (w < 0 || w > INT32_MAX) return bad(pc, "minWriterVersion", "is out of range");
  p->min_reader = (int32_t)r;
  p->min_writer = (int32_t)w;
  TRY(get_strv(pc, o, "readerFeatures", &p->reader_features, &p->n_reader_features));
  TRY(get_strv(pc, o, "writerFeatures", &p->writer_features, &p->n_writer_features));
  return 0;
}

static int parse_metadata(pctx *pc, json_t *o, delta_metadata *m) {
  m->created_time = -1;
  TRY(get_str(pc, o, "id", true, &m->id));
  TRY(get_str(pc, o, "name", false, &m->name));
  TRY(get_str(pc, o, "description", false, &m->description));
  TRY(get_str(pc, o, "schemaString", false, &m->schema_string));
  json_t *fmt = json_object_get(o, "format");
  if (fmt && !json_is_null(fmt)) {
    if (!json_is_object(fmt)) return bad(pc, "format", "is not an object");
    TRY(get_str(pc, fmt, "provider", false, &m->format));
    TRY(get_map(pc, fmt, "options", &m->format_options, &m->n_format_options));
  }
  TRY(get_strv(pc, o, "partitionColumns", &m->partition_columns, &m->n_partition_columns));
  TRY(get_map(pc, o, "configuration", &m->configuration, &m->n_configuration));
  TRY(get_i64(pc, o, "createdTime", false, -1, &m->created_time));
  return 0;
}

static int parse_add(pctx *pc, json_t *o, delta_add *a) {
  char *raw = NULL;
  TRY(get_str(pc, o, "path", true, &raw));
  int rc = delta_path_resolve(&a->path, raw, pc->ctx, "add", pc->err);
  inlet_free(raw);
  TRY(rc);
  TRY(get_map(pc, o, "partitionValues", &a->partition_values, &a->n_partition_values));
  TRY(get_i64(pc, o, "size", true, 0, &a->size));
  if (a->size < 0) return bad(pc, "size", "is negative");
  TRY(get_i64(pc, o, "modificationTime", false, 0, &a->modification_time));
  TRY(get_bool(pc, o, "dataChange", false, true, &a->data_change));
  TRY(get_str(pc, o, "stats", false, &a->stats));
  TRY(get_tags(pc, o, &a->tags));
  TRY(get_opt_i64(pc, o, "baseRowId", &a->has_base_row_id, &a->base_row_id));
  TRY(get_opt_i64(pc, o, "defaultRowCommitVersion", &a->has_default_row_commit_version,
                  &a->default_row_commit_version));
  TRY(get_str(pc, o, "clusteringProvider", false, &a->clustering_provider));
  return parse_dv(pc, o, &a->dv_id, &a->dv_json);
}

/* PROTOCOL.md "Add CDC File": a file of _change_data/ with the rows a
 * commit changed, read only by change data feed queries. */
static int parse_cdc(pctx *pc, json_t *o, delta_add *a) {
  char *raw = NULL;
  TRY(get_str(pc, o, "path", true, &raw));
  int rc = delta_path_resolve(&a->path, raw, pc->ctx, "cdc", pc->err);
  inlet_free(raw);
  TRY(rc);
  TRY(get_map(pc, o, "partitionValues", &a->partition_values, &a->n_partition_values));
  TRY(get_i64(pc, o, "size", true, 0, &a->size));
  if (a->size < 0) return bad(pc, "size", "is negative");
  TRY(get_bool(pc, o, "dataChange", false, false, &a->data_change));
  return get_tags(pc, o, &a->tags);
}

static int parse_remove(pctx *pc, json_t *o, delta_remove *r) {
  char *raw = NULL;
  TRY(get_str(pc, o, "path", true, &raw));
  int rc = delta_path_resolve(&r->path, raw, pc->ctx, "remove", pc->err);
  inlet_free(raw);
  TRY(rc);
  TRY(get_i64(pc, o, "deletionTimestamp", false, -1, &r->deletion_timestamp));
  TRY(get_bool(pc, o, "dataChange", false, true, &r->data_change));
  TRY(get_bool(pc, o, "extendedFileMetadata", false, false, &r->extended_file_metadata));
  TRY(get_map(pc, o, "partitionValues", &r->partition_values, &r->n_partition_values));
  TRY(get_i64(pc, o, "size", false, -1, &r->size));
  if (r->size < -1) return bad(pc, "size", "is negative");
  TRY(get_str(pc, o, "stats", false, &r->stats));
  TRY(get_tags(pc, o, &r->tags));
  TRY(get_opt_i64(pc, o, "baseRowId", &r->has_base_row_id, &r->base_row_id));
  TRY(get_opt_i64(pc, o, "defaultRowCommitVersion", &r->has_default_row_commit_version,
                  &r->default_row_commit_version));
  return parse_dv(pc, o, &r->dv_id, &r->dv_json);
}

static int parse_txn(pctx *pc, json_t *o, delta_txn_action *t) {
  TRY(get_str(pc, o, "appId", true, &t->app_id));
  TRY(get_i64(pc, o, "version", true, 0, &t->version));
  TRY(get_i64(pc, o, "lastUpdated", false, -1, &t->last_updated));
  return 0;
}

static int parse_domain(pctx *pc, json_t *o, delta_domain *d) {
  TRY(get_str(pc, o, "domain", true, &d->domain));
  TRY(get_str(pc, o, "configuration", true, &d->configuration));
  TRY(get_bool(pc, o, "removed", true, false, &d->removed));
  return 0;
}

int delta_action_parse(delta_action *out, const char *line, size_t len, const delta_line_ctx *ctx,
                       inlet_error *err) {
  memset(out, 0, sizeof *out);
  if (len > DELTA_MAX_LINE_BYTES)
    return inlet_fail(err, INLET_ELIMIT,
                      "%s line %lld: action line of %zu bytes exceeds the "
                      "%zu-byte limit",
                      ctx->file, (long long)ctx->line, len, DELTA_MAX_LINE_BYTES);
  size_t i = 0;
  while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
    i++;
  if (i == len) return 0;
  json_error_t jerr;
  json_t *root = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
  if (!root)
    return inlet_fail(err, INLET_ECORRUPT,
                      "corrupt log entry in %s line %lld: malformed JSON "
                      "(%s at column %d)",
                      ctx->file, (long long)ctx->line, jerr.text, jerr.column);
  pctx pc = {ctx, err, ""};
  int rc = 0;
  if (!json_is_object(root) || json_object_size(root) != 1) {
    rc = inlet_fail(err, INLET_ECORRUPT,
                    "corrupt log entry in %s line %lld: an action line must "
                    "be an object with exactly one key",
                    ctx->file, (long long)ctx->line);
    goto done;
  }
  const char *key = json_object_iter_key(json_object_iter(root));
  json_t *body = json_object_iter_value(json_object_iter(root));
  pc.action = key;
  static const struct {
    const char *name;
    delta_action_kind kind;
  } kinds[] = {{"protocol", DELTA_ACTION_PROTOCOL},
               {"metaData", DELTA_ACTION_METADATA},
               {"add", DELTA_ACTION_ADD},
               {"remove", DELTA_ACTION_REMOVE},
               {"txn", DELTA_ACTION_TXN},
               {"commitInfo", DELTA_ACTION_COMMIT_INFO},
               {"domainMetadata", DELTA_ACTION_DOMAIN},
               {"cdc", DELTA_ACTION_CDC}};
  delta_action_kind kind = DELTA_ACTION_NONE;
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
    if (strcmp(key, kinds[k].name) == 0) kind = kinds[k].kind;
  if (kind == DELTA_ACTION_NONE) goto done; /* unknown actions are ignored */
  if (!json_is_object(body)) {
    rc = inlet_fail(err, INLET_ECORRUPT, "corrupt log entry in %s line %lld: %s is not an object",
                    ctx->file, (long long)ctx->line, key);
    goto done;
  }
  out->kind = kind;
  switch (kind) {
  case DELTA_ACTION_PROTOCOL: rc = parse_protocol(&pc, body, &out->u.protocol); break;
  case DELTA_ACTION_METADATA: rc = parse_metadata(&pc, body, &out->u.metadata); break;
  case DELTA_ACTION_ADD: rc = parse_add(&pc, body, &out->u.add); break;
  case DELTA_ACTION_REMOVE: rc = parse_remove(&pc, body, &out->u.remove); break;
  case DELTA_ACTION_TXN: rc = parse_txn(&pc, body, &out->u.txn); break;
  case DELTA_ACTION_COMMIT_INFO: rc = get_raw(&pc, body, &out->u.commit_info); break;
  case DELTA_ACTION_DOMAIN: rc = parse_domain(&pc, body, &out->u.domain); break;
  case DELTA_ACTION_CDC: rc = parse_cdc(&pc, body, &out->u.add); break;
  case DELTA_ACTION_NONE: break;
  }
done:
  json_decref(root);
  if (rc < 0) delta_action_reset(out);
  return rc;
}

/* ---- serialising --------------------------------------------------------- */

static json_t *jstr_or_null(const char *s) {
  return s ? json_string(s) : json_null();
}

static json_t *kv_to_json(const delta_kv *kv, int32_t n) {
  json_t *o = json_object();
  for (int32_t i = 0; o && i < n; i++)
    json_object_set_new(o, kv[i].key, jstr_or_null(kv[i].value));
  return o;
}

static json_t *strv_to_json(char *const *v, int32_t n) {
  json_t *a = json_array();
  for (int32_t i = 0; a && i < n; i++)
    json_array_append_new(a, json_string(v[i]));
  return a;
}

static json_t *raw_to_json(const char *raw) {
  if (!raw) return json_null();
  json_t *v = json_loads(raw, JSON_DECODE_ANY, NULL);
  return v ? v : json_null();
}

static json_t *path_json(const char *path) {
  char *enc = delta_path_encode(path);
  json_t *j = enc ? json_string(enc) : NULL;
  inlet_free(enc);
  return j;
}

int delta_action_write(inlet_buf *out, const delta_action *a, inlet_error *err) {
  json_t *body = NULL;
  const char *key = NULL;
  switch (a->kind) {
  case DELTA_ACTION_PROTOCOL: {
    const delta_protocol *p = &a->u.protocol;
    key = "protocol";
    body = json_object();
    json_object_set_new(body, "minReaderVersion", json_integer(p->min_reader));
    json_object_set_new(body, "minWriterVersion", json_integer(p->min_writer));
    if (p->reader_features)
      json_object_set_new(body, "readerFeatures",
                          strv_to_json(p->reader_features, p->n_reader_features));
    if (p->writer_features)
      json_object_set_new(body, "writerFeatures",
                          strv_to_json(p->writer_features, p->n_writer_features));
    break;
  }
  case DELTA_ACTION_METADATA: {
    const delta_metadata *m = &a->u.metadata;
    key = "metaData";
    body = json_object();
    json_object_set_new(body, "id", jstr_or_null(m->id));
    if (m->name) json_object_set_new(body, "name", json_string(m->name));
    if (m->description) json_object_set_new(body, "description", json_string(m->description));
    json_t *fmt = json_object();
    json_object_set_new(fmt, "provider", json_string(m->format ? m->format : "parquet"));
    json_object_set_new(fmt, "options", kv_to_json(m->format_options, m->n_format_options));
    json_object_set_new(body, "format", fmt);
    json_object_set_new(body, "schemaString", jstr_or_null(m->schema_string));
    json_object_set_new(body, "partitionColumns",
                        strv_to_json(m->partition_columns, m->n_partition_columns));
    json_object_set_new(body, "configuration", kv_to_json(m->configuration, m->n_configuration));
    if (m->created_time >= 0)
      json_object_set_new(body, "createdTime", json_integer(m->created_time));
    break;
  }
  case DELTA_ACTION_ADD: {
    const delta_add *f = &a->u.add;
    key = "add";
    body = json_object();
    json_object_set_new(body, "path", path_json(f->path));
    json_object_set_new(body, "partitionValues",
                        kv_to_json(f->partition_values, f->n_partition_values));
    json_object_set_new(body, "size", json_integer(f->size));
    json_object_set_new(body, "modificationTime", json_integer(f->modification_time));
    json_object_set_new(body, "dataChange", json_boolean(f->data_change));
    if (f->stats) json_object_set_new(body, "stats", json_string(f->stats));
    if (f->tags) json_object_set_new(body, "tags", raw_to_json(f->tags));
    if (f->dv_json) json_object_set_new(body, "deletionVector", raw_to_json(f->dv_json));
    if (f->has_base_row_id) json_object_set_new(body, "baseRowId", json_integer(f->base_row_id));
    if (f->has_default_row_commit_version)
      json_object_set_new(body, "defaultRowCommitVersion",
                          json_integer(f->default_row_commit_version));
    if (f->clustering_provider)
      json_object_set_new(body, "clusteringProvider", json_string(f->clustering_provider));
    break;
  }
  case DELTA_ACTION_REMOVE: {
    const delta_remove *r = &a->u.remove;
    key = "remove";
    body = json_object();
    json_object_set_new(body, "path", path_json(r->path));
    if (r->deletion_timestamp >= 0)
      json_object_set_new(body, "deletionTimestamp", json_integer(r->deletion_timestamp));
    json_object_set_new(body, "dataChange", json_boolean(r->data_change));
    json_object_set_new(body, "extendedFileMetadata", json_boolean(r->extended_file_metadata));
    json_object_set_new(body, "partitionValues",
                        kv_to_json(r->partition_values, r->n_partition_values));
    if (r->size >= 0) json_object_set_new(body, "size", json_integer(r->size));
    if (r->stats) json_object_set_new(body, "stats", json_string(r->stats));
    if (r->tags) json_object_set_new(body, "tags", raw_to_json(r->tags));
    if (r->dv_json) json_object_set_new(body, "deletionVector", raw_to_json(r->dv_json));
    if (r->has_base_row_id) json_object_set_new(body, "baseRowId", json_integer(r->base_row_id));
    if (r->has_default_row_commit_version)
      json_object_set_new(body, "defaultRowCommitVersion",
                          json_integer(r->default_row_commit_version));
    break;
  }
  case DELTA_ACTION_TXN:
    key = "txn";
    body = json_object();
    json_object_set_new(body, "appId", json_string(a->u.txn.app_id));
    json_object_set_new(body, "version", json_integer(a->u.txn.version));
    if (a->u.txn.last_updated >= 0)
      json_object_set_new(body, "lastUpdated", json_integer(a->u.txn.last_updated));
    break;
  case DELTA_ACTION_COMMIT_INFO:
    key = "commitInfo";
    body = raw_to_json(a->u.commit_info);
    break;
  case DELTA_ACTION_DOMAIN:
    key = "domainMetadata";
    body = json_object();
    json_object_set_new(body, "domain", json_string(a->u.domain.domain));
    json_object_set_new(body, "configuration", json_string(a->u.domain.configuration));
    json_object_set_new(body, "removed", json_boolean(a->u.domain.removed));
    break;
  case DELTA_ACTION_CDC: {
    const delta_add *f = &a->u.add;
    key = "cdc";
    body = json_object();
    json_object_set_new(body, "path", path_json(f->path));
    json_object_set_new(body, "partitionValues",
                        kv_to_json(f->partition_values, f->n_partition_values));
    json_object_set_new(body, "size", json_integer(f->size));
    json_object_set_new(body, "dataChange", json_boolean(f->data_change));
    if (f->tags) json_object_set_new(body, "tags", raw_to_json(f->tags));
    break;
  }
  case DELTA_ACTION_NONE: return 0;
  }
  json_t *root = json_object();
  if (!root || !body) {
    json_decref(root);
    json_decref(body);
    return inlet_fail(err, INLET_ENOMEM, "out of memory serialising %s action", key);
  }
  json_object_set_new(root, key, body);
  char *s = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
  json_decref(root);
  if (!s) return inlet_fail(err, INLET_ENOMEM, "out of memory serialising %s action", key);
  inlet_buf_puts(out, s);
  inlet_buf_push(out, '\n');
  free(s);
  if (inlet_buf_status(out)) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  return 0;
}
