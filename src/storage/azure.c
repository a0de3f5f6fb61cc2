/*
 * The Azure Blob Storage backend (storage.h), also serving ADLS Gen2
 * accounts (abfss://) through the Blob API. Authorisation is Shared Key
 * (Azure Storage REST "Authorize with Shared Key": HMAC-SHA256 over the
 * verb, the standard headers, the canonicalised x-ms-* headers and the
 * canonicalised resource) or a SAS token appended to each URL.
 *
 * Objects: Put Blob (BlockBlob; If-None-Match: * for creates, where 409
 * BlobAlreadyExists / 412 ConditionNotMet is a lost race), Get Blob with
 * x-ms-range, Get Blob Properties, Put Block + Put Block List above the part
 * size (several blocks in flight; the list is committed with
 * If-None-Match: *), List Blobs (prefix, delimiter, marker), Delete Blob
 * (many in flight for batch removes). Uncommitted blocks of a failed upload
 * are dropped by committing an empty block list and deleting that blob;
 * blocks a killed process left behind expire in the service after 7 days.
 */
#include <inttypes.h>
#include <stdio.h>
#include <strings.h>
#include <time.h>

#include "storage/objstore_int.h"
#include "storage/sign.h"
#include "storage/xml.h"
#include "util/buf.h"
#include "util/util.h"

#define AZ_VERSION "2021-08-06"
#define MAX_HDRS 8
#define MAX_QUERY 8

typedef struct az_storage {
  inlet_storage base;
  inlet_azure_config cfg; /* owned */
  inlet_http *http;       /* owned */
  objstore_tuning tune;
  char *url_path; /* owned; path part of the endpoint ("" or "/devstoreaccount1") */
} az_storage;

typedef struct az_req {
  inlet_http_req http; /* first */
  az_storage *s;
  char *enc_path; /* owned; encoded URL path, for the canonicalised resource */
  inlet_kv query[MAX_QUERY];
  char *qval[MAX_QUERY];
  size_t n_query;
  inlet_kv hdr[MAX_HDRS]; /* x-ms-* and If-None-Match; values owned in hval */
  char *hval[MAX_HDRS];
  size_t n_hdr;
} az_req;

static void az_req_reset(az_req *q) {
  inlet_http_req_reset(&q->http);
  inlet_free(q->enc_path);
  for (size_t i = 0; i < q->n_hdr; i++)
    inlet_free(q->hval[i]);
  for (size_t i = 0; i < q->n_query; i++)
    inlet_free(q->qval[i]);
  memset(q, 0, sizeof *q);
}

static int add_header(az_req *q, const char *name, const char *value, inlet_error *err) {
  if (q->n_hdr == MAX_HDRS) return inlet_fail(err, INLET_EINTERNAL, "too many headers");
  char *v = inlet_strdup(value);
  if (!v) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  q->hval[q->n_hdr] = v;
  q->hdr[q->n_hdr++] = (inlet_kv){name, v};
  return 0;
}

static int add_query(az_req *q, const char *name, const char *value, inlet_error *err) {
  if (q->n_query == MAX_QUERY) return inlet_fail(err, INLET_EINTERNAL, "too many parameters");
  char *v = inlet_strdup(value ? value : "");
  if (!v) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  q->qval[q->n_query] = v;
  q->query[q->n_query++] = (inlet_kv){name, v};
  return 0;
}

static const char *find_hdr(const az_req *q, const char *name) {
  for (size_t i = 0; i < q->n_hdr; i++)
    if (!strcasecmp(q->hdr[i].key, name)) return q->hdr[i].value;
  return "";
}

static int cmp_kv(const void *a, const void *b) {
  return strcmp(((const inlet_kv *)a)->key, ((const inlet_kv *)b)->key);
}

static int push_line(struct curl_slist **h, inlet_buf *line, inlet_error *err) {
  if (inlet_buf_terminate(line) < 0) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  struct curl_slist *n = curl_slist_append(*h, (char *)line->data);
  if (!n) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  *h = n;
  return 0;
}

static int az_sign(void *ctx, inlet_http_req *r, struct curl_slist **headers, inlet_error *err) {
  (void)ctx;
  az_req *q = (az_req *)r;
  az_storage *s = q->s;
  char date[64];
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  inlet_kv ms[MAX_HDRS + 2];
  size_t nms = 0;
  ms[nms++] = (inlet_kv){"x-ms-date", date};
  ms[nms++] = (inlet_kv){"x-ms-version", AZ_VERSION};
  for (size_t i = 0; i < q->n_hdr; i++)
    if (!strncasecmp(q->hdr[i].key, "x-ms-", 5)) ms[nms++] = q->hdr[i];
  qsort(ms, nms, sizeof *ms, cmp_kv);
  inlet_buf line = INLET_BUF_INIT;
  int rc = 0;
  for (size_t i = 0; rc == 0 && i < nms; i++) {
    inlet_buf_clear(&line);
    inlet_buf_appendf(&line, "%s: %s", ms[i].key, ms[i].value);
    rc = push_line(headers, &line, err);
  }
  const char *inm = find_hdr(q, "If-None-Match");
  if (rc == 0 && inm[0]) {
    inlet_buf_clear(&line);
    inlet_buf_appendf(&line, "If-None-Match: %s", inm);
    rc = push_line(headers, &line, err);
  }
  if (rc == 0 && s->cfg.key) {
    /* Azure Storage "Shared Key" string to sign (version 2015-02-21+:
     * Content-Length is empty when zero). */
    inlet_buf sts = INLET_BUF_INIT;
    char clen[32] = "";
    if (r->body_len || (!strcmp(r->method, "PUT") && r->body_len))
      snprintf(clen, sizeof clen, "%zu", r->body_len);
    inlet_buf_appendf(&sts, "%s\n\n\n%s\n\n\n\n\n\n%s\n\n\n", r->method, clen, inm);
    for (size_t i = 0; i < nms; i++)
      inlet_buf_appendf(&sts, "%s:%s\n", ms[i].key, ms[i].value);
    inlet_buf_appendf(&sts, "/%s%s", s->cfg.account, q->enc_path);
    inlet_kv qs[MAX_QUERY];
    memcpy(qs, q->query, q->n_query * sizeof *qs);
    qsort(qs, q->n_query, sizeof *qs, cmp_kv);
    for (size_t i = 0; i < q->n_query; i++)
      inlet_buf_appendf(&sts, "\n%s:%s", qs[i].key, qs[i].value);
    if (inlet_buf_status(&sts)) {
      rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
    } else {
      uint8_t mac[32];
      inlet_hmac_sha256(s->cfg.key, s->cfg.key_len, sts.data, sts.len, mac);
      inlet_buf_clear(&line);
      inlet_buf_appendf(&line, "Authorization: SharedKey %s:", s->cfg.account);
      inlet_base64_encode(&line, mac, 32);
      rc = push_line(headers, &line, err);
    }
    inlet_buf_reset(&sts);
  }
  if (line.data) memset(line.data, 0, line.len);
  inlet_buf_reset(&line);
  return rc;
}

/* URL and resource for @p blob (NULL: the container) with the query added
 * so far. */
static int az_req_init(az_req *q, az_storage *s, const char *method, const char *blob,
                       inlet_error *err) {
  q->s = s;
  inlet_buf path = INLET_BUF_INIT, url = INLET_BUF_INIT, what = INLET_BUF_INIT;
  inlet_buf_puts(&path, s->url_path);
  inlet_buf_push(&path, '/');
  inlet_uri_encode(&path, s->cfg.container, strlen(s->cfg.container), false);
  if (blob) {
    inlet_buf_push(&path, '/');
    inlet_uri_encode(&path, blob, strlen(blob), true);
  }
  const char *ep = s->cfg.endpoint;
  size_t hostend = (size_t)(strstr(ep, "://") - ep) + 3;
  hostend += strcspn(ep + hostend, "/");
  inlet_buf_append(&url, ep, hostend);
  inlet_buf_append(&url, path.data, path.len);
  size_t k = 0;
  for (size_t i = 0; i < q->n_query; i++) {
    inlet_buf_push(&url, k++ ? '&' : '?');
    inlet_uri_encode(&url, q->query[i].key, strlen(q->query[i].key), false);
    inlet_buf_push(&url, '=');
    inlet_uri_encode(&url, q->query[i].value, strlen(q->query[i].value), false);
  }
  if (s->cfg.sas && !s->cfg.key) {
    inlet_buf_push(&url, k++ ? '&' : '?');
    inlet_buf_puts(&url, s->cfg.sas);
  }
  inlet_buf_appendf(&what, "%s az://%s/%s", method, s->cfg.container, blob ? blob : "");
  int rc = 0;
  if (inlet_buf_terminate(&path) < 0 || inlet_buf_terminate(&url) < 0 ||
      inlet_buf_terminate(&what) < 0)
    rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
  if (rc == 0) rc = inlet_http_req_init(&q->http, method, (char *)url.data, (char *)what.data, err);
  if (rc == 0) {
    q->enc_path = (char *)inlet_buf_detach(&path, NULL);
    if (!q->enc_path) rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
    q->http.sign = az_sign;
  }
  if (url.data) memset(url.data, 0, url.len); /* may hold the SAS */
  inlet_buf_reset(&path);
  inlet_buf_reset(&url);
  inlet_buf_reset(&what);
  return rc;
}

static int run1(az_storage *s, az_req *q, inlet_error *err) {
  inlet_http_req *r = &q->http;
  TRY(inlet_http_run(s->http, &r, 1, err));
  if (r->rc < 0) {
    if (err) *err = r->error;
    return r->rc;
  }
  return 0;
}

typedef struct err_body {
  char code[64];
  char message[200];
} err_body;

static int err_cb(void *ctx, const char *path, const char *text, size_t len, inlet_error *err) {
  (void)err;
  (void)len;
  err_body *e = ctx;
  if (!strcmp(path, "Error/Code")) snprintf(e->code, sizeof e->code, "%s", text);
  /* Only the first line: later lines carry request ids and times. */
  if (!strcmp(path, "Error/Message"))
    snprintf(e->message, sizeof e->message, "%.*s", (int)strcspn(text, "\r\n"), text);
  return 0;
}

/* Code and first message line only: AuthenticationErrorDetail echoes the
 * string to sign, which is not printed. */
static int http_fail(const az_req *q, inlet_error *err) {
  const inlet_http_req *r = &q->http;
  err_body e = {"", ""};
  if (r->resp && r->resp_len) {
    inlet_error ignore = INLET_ERROR_INIT;
    inlet_xml_walk((const char *)r->resp, r->resp_len, r->what, err_cb, &e, &ignore);
  }
  if (!e.code[0]) snprintf(e.code, sizeof e.code, "%.60s", r->ms_error);
  int code = r->status == 404 ? INLET_ENOTFOUND : INLET_EIO;
  if (r->status == 403 || r->status == 401)
    return inlet_fail(err, code, "%s: access denied (HTTP %ld %s): check the credentials", r->what,
                      r->status, e.code);
  return inlet_fail(err, code, "%s: HTTP %ld%s%s%s%s%s", r->what, r->status, e.code[0] ? " " : "",
                    e.code, e.message[0] ? ": " : "", e.message,
                    inlet_http_status_retryable(r->status) ? " (retries exhausted)" : "");
}

static char *blob_of(az_storage *s, const char *path, inlet_error *err) {
  char *k = inlet_objstore_join(s->cfg.prefix, path);
  if (!k) inlet_fail(err, INLET_ENOMEM, "out of memory");
  return k;
}

/* ---- reads --------------------------------------------------------------------- */

static int head_blob(az_storage *s, const char *blob, int64_t *size, int64_t *mtime,
                     inlet_error *err) {
  az_req q;
  memset(&q, 0, sizeof q);
  int rc = az_req_init(&q, s, "HEAD", blob, err);
  if (rc == 0) rc = run1(s, &q, err);
  if (rc == 0) {
    if (q.http.status == 200) {
      *size = q.http.content_length;
      if (mtime) *mtime = inlet_objstore_parse_time_ms(q.http.last_modified);
      if (*size < 0) rc = inlet_fail(err, INLET_EIO, "%s: no Content-Length", q.http.what);
    } else if (q.http.status == 404) {
      rc = inlet_fail(err, INLET_ENOTFOUND, "az://%s/%s: not found", s->cfg.container, blob);
    } else {
      rc = http_fail(&q, err);
    }
  }
  az_req_reset(&q);
  return rc;
}

typedef struct az_rfile {
  inlet_rfile base;
  az_storage *s;
  char *blob; /* owned */
} az_rfile;

static int range_req(az_req *q, az_rfile *f, int64_t off, void *buf, size_t n, inlet_error *err) {
  memset(q, 0, sizeof *q);
  char range[64];
  snprintf(range, sizeof range, "bytes=%" PRId64 "-%" PRId64, off, off + (int64_t)n - 1);
  TRY(add_header(q, "x-ms-range", range, err));
  TRY(az_req_init(q, f->s, "GET", f->blob, err));
  q->http.sink = buf;
  q->http.sink_cap = n;
  return 0;
}

static int range_check(az_req *q, az_rfile *f, int64_t off, size_t n, inlet_error *err) {
  inlet_http_req *r = &q->http;
  if (r->rc < 0) {
    if (err) *err = r->error;
    return r->rc;
  }
  if (r->status == 416 || ((r->status == 206 || r->status == 200) && r->resp_len < n))
    return inlet_fail(err, INLET_ECORRUPT,
                      "%s: truncated: read of %zu bytes at offset %" PRId64 " past the end",
                      f->base.name, n, off);
  if (r->status == 200 && off != 0)
    return inlet_fail(err, INLET_EIO, "%s: the store ignored the range", r->what);
  if (r->status != 206 && r->status != 200) return http_fail(q, err);
  return 0;
}

static bool out_of_range(const az_rfile *f, int64_t off, size_t n) {
  return off < 0 || (f->base.size >= 0 && (off > f->base.size || (int64_t)n > f->base.size - off));
}

static int az_read_at(inlet_rfile *rf, int64_t off, void *buf, size_t n, inlet_error *err) {
  az_rfile *f = (az_rfile *)rf;
  if (out_of_range(f, off, n))
    return inlet_fail(err, INLET_ECORRUPT,
                      "%s: truncated: read of %zu bytes at offset %" PRId64 " past the end",
                      rf->name, n, off);
  if (n == 0) return 0;
  az_req q;
  int rc = range_req(&q, f, off, buf, n, err);
  if (rc == 0) rc = run1(f->s, &q, err);
  if (rc == 0) rc = range_check(&q, f, off, n, err);
  az_req_reset(&q);
  return rc;
}

static int az_read_ranges(inlet_rfile *rf, inlet_read_range *rr, size_t n, inlet_error *err) {
  az_rfile *f = (az_rfile *)rf;
  az_req *qs = inlet_calloc(n ? n : 1, sizeof *qs);
  inlet_http_req **rs = inlet_calloc(n ? n : 1, sizeof *rs);
  int rc = 0;
  size_t built = 0;
  if (!qs || !rs) rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
  for (size_t i = 0; rc == 0 && i < n; i++) {
    if (out_of_range(f, rr[i].offset, rr[i].len)) {
      rc = inlet_fail(err, INLET_ECORRUPT,
                      "%s: truncated: read of %zu bytes at offset %" PRId64 " past the end",
                      rf->name, rr[i].len, rr[i].offset);
      break;
    }
    if (rr[i].len == 0) continue;
    rc = range_req(&qs[built], f, rr[i].offset, rr[i].buf, rr[i].len, err);
    rs[built] = &qs[built].http;
    built++;
  }
  if (rc == 0) rc = inlet_http_run(f->s->http, rs, built, err);
  for (size_t i = 0, k = 0; rc == 0 && i < n; i++) {
    if (rr[i].len == 0) continue;
    rc = range_check(&qs[k++], f, rr[i].offset, rr[i].len, err);
  }
  for (size_t i = 0; qs && i < n; i++)
    az_req_reset(&qs[i]);
  inlet_free(qs);
  inlet_free(rs);
  return rc;
}

/* read_files: ranges of several files of this handle, all in flight. */
static int az_read_files(inlet_storage *st, inlet_file_range *fr, size_t n, inlet_error *err) {
  az_req *qs = inlet_calloc(n ? n : 1, sizeof *qs);
  inlet_http_req **rs = inlet_calloc(n ? n : 1, sizeof *rs);
  int rc = 0;
  size_t built = 0;
  if (!qs || !rs) rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
  for (size_t i = 0; rc == 0 && i < n; i++) {
    az_rfile *f = (az_rfile *)fr[i].file;
    if (fr[i].file->ops->read_at != az_read_at || (inlet_storage *)f->s != st) {
      rc = inlet_fail(err, INLET_EINVAL, "%s: not a file of this storage", fr[i].file->name);
      break;
    }
    if (out_of_range(f, fr[i].offset, fr[i].len)) {
      rc = inlet_fail(err, INLET_ECORRUPT,
                      "%s: truncated: read of %zu bytes at offset %" PRId64 " past the end",
                      fr[i].file->name, fr[i].len, fr[i].offset);
      break;
    }
    if (fr[i].len == 0) continue;
    rc = range_req(&qs[built], f, fr[i].offset, fr[i].buf, fr[i].len, err);
    rs[built] = &qs[built].http;
    built++;
  }
  if (rc == 0) rc = inlet_http_run(((az_storage *)st)->http, rs, built, err);
  for (size_t i = 0, k = 0; rc == 0 && i < n; i++) {
    if (fr[i].len == 0) continue;
    rc = range_check(&qs[k++], (az_rfile *)fr[i].file, fr[i].offset, fr[i].len, err);
  }
  for (size_t i = 0; qs && i < n; i++)
    az_req_reset(&qs[i]);
  inlet_free(qs);
  inlet_free(rs);
  return rc;
}

/* Blob ranges have a start: a tail read of a blob of unknown size asks
 * for the size first (the log's add.size usually spares that). */
static int az_read_tail(inlet_rfile *rf, void *buf, size_t n, size_t *got, inlet_error *err) {
  az_rfile *f = (az_rfile *)rf;
  *got = 0;
  if (f->base.size < 0) {
    int64_t sz;
    TRY(head_blob(f->s, f->blob, &sz, NULL, err));
    f->base.size = sz;
  }
  size_t k = (uint64_t)n < (uint64_t)f->base.size ? n : (size_t)f->base.size;
  TRY(az_read_at(rf, f->base.size - (int64_t)k, buf, k, err));
  *got = k;
  return 0;
}

static void az_rclose(inlet_rfile *rf) {
  if (!rf) return;
  az_rfile *f = (az_rfile *)rf;
  inlet_free(f->blob);
  inlet_free(rf->name);
  inlet_free(f);
}

static const struct inlet_rfile_ops az_rfile_ops = {
    .read_at = az_read_at,
    .close = az_rclose,
    .read_ranges = az_read_ranges,
    .read_tail = az_read_tail,
};

static int az_open_read_sized(inlet_storage *st, const char *path, int64_t size, inlet_rfile **out,
                              inlet_error *err) {
  az_storage *s = (az_storage *)st;
  *out = NULL;
  TRY(inlet_path_check(path, err));
  char *blob = blob_of(s, path, err);
  if (!blob) return INLET_ENOMEM;
  if (size == -2) {
    int rc = head_blob(s, blob, &size, NULL, err);
    if (rc < 0) {
      inlet_free(blob);
      return rc;
    }
  }
  az_rfile *f = inlet_calloc(1, sizeof *f);
  char *name = inlet_strdup(path);
  if (!f || !name) {
    inlet_free(f);
    inlet_free(name);
    inlet_free(blob);
    return inlet_fail(err, INLET_ENOMEM, "out of memory");
  }
  f->base.ops = &az_rfile_ops;
  f->base.name = name;
  f->base.size = size < 0 ? -1 : size;
  f->s = s;
  f->blob = blob;
  *out = &f->base;
  return 0;
}

static int az_open_read(inlet_storage *st, const char *path, inlet_rfile **out, inlet_error *err) {
  return az_open_read_sized(st, path, -2, out, err);
}

static int get_blob(az_storage *s, const char *blob, size_t limit, uint8_t **out, size_t *len,
                    inlet_error *err) {
  az_req q;
  memset(&q, 0, sizeof q);
  int rc = az_req_init(&q, s, "GET", blob, err);
  /* Room for an error body even when the caller's limit is tiny. */
  q.http.resp_limit = limit > 65536 ? limit : 65536;
  if (rc == 0) {
    inlet_http_req *r = &q.http;
    rc = inlet_http_run(s->http, &r, 1, err);
  }
  if (rc == 0) {
    inlet_http_req *r = &q.http;
    if ((r->rc < 0 && r->overflow && r->status == 200) ||
        (r->rc == 0 && r->status == 200 && r->resp_len > limit)) {
      rc = inlet_fail(err, INLET_ELIMIT, "az://%s/%s: larger than the %zu-byte limit",
                      s->cfg.container, blob, limit);
    } else if (r->rc < 0) {
      if (err) *err = r->error;
      rc = r->rc;
    } else if (r->status == 200) {
      if (!r->resp) r->resp = inlet_calloc(1, 1);
      if (!r->resp) rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
      *out = r->resp;
      *len = r->resp_len;
      r->resp = NULL;
    } else if (r->status == 404) {
      rc = inlet_fail(err, INLET_ENOTFOUND, "az://%s/%s: not found", s->cfg.container, blob);
    } else {
      rc = http_fail(&q, err);
    }
  }
  az_req_reset(&q);
  return rc;
}

static int az_get_bytes(inlet_storage *st, const char *path, size_t limit, uint8_t **out,
                        size_t *len, inlet_error *err) {
  az_storage *s = (az_storage *)st;
  *out = NULL;
  *len = 0;
  TRY(inlet_path_check(path, err));
  char *blob = blob_of(s, path, err);
  if (!blob) return INLET_ENOMEM;
  int rc = get_blob(s, blob, limit, out, len, err);
  inlet_free(blob);
  return rc;
}

/* ---- writes -------------------------------------------------------------------- */

static bool exists_status(const az_req *q) {
  return q->http.status == 409 || q->http.status == 412;
}

static int put_blob(az_storage *s, const char *blob, const void *data, size_t n, bool conditional,
                    inlet_error *err) {
  az_req q;
  memset(&q, 0, sizeof q);
  int rc = add_header(&q, "x-ms-blob-type", "BlockBlob", err);
  if (rc == 0 && conditional) rc = add_header(&q, "If-None-Match", "*", err);
  if (rc == 0) rc = az_req_init(&q, s, "PUT", blob, err);
  q.http.body = data;
  q.http.body_len = n;
  q.http.fresh_connection = conditional;
  if (rc == 0) rc = run1(s, &q, err);
  if (rc == 0) {
    if (q.http.status == 201 || q.http.status == 200) {
      rc = 0;
    } else if (conditional && exists_status(&q)) {
      rc = inlet_fail(err, INLET_EEXISTS, "az://%s/%s: already exists", s->cfg.container, blob);
      if (q.http.maybe_applied) {
        /* See http.h: the lost answer may have been our own success. */
        uint8_t *cur = NULL;
        size_t cl = 0;
        inlet_error e2 = INLET_ERROR_INIT;
        if (get_blob(s, blob, n, &cur, &cl, &e2) == 0 && cl == n &&
            (n == 0 || memcmp(cur, data, n) == 0))
          rc = 0;
        inlet_free(cur);
      }
    } else {
      rc = http_fail(&q, err);
    }
  }
  az_req_reset(&q);
  return rc;
}

static int az_put_if_absent_bytes(inlet_storage *st, const char *path, const void *data, size_t n,
                                  inlet_error *err) {
  az_storage *s = (az_storage *)st;
  TRY(inlet_path_check(path, err));
  char *blob = blob_of(s, path, err);
  if (!blob) return INLET_ENOMEM;
  int rc = put_blob(s, blob, data, n, true, err);
  inlet_free(blob);
  return rc;
}

static int az_put_bytes(inlet_storage *st, const char *path, const void *data, size_t n,
                        inlet_error *err) {
  az_storage *s = (az_storage *)st;
  TRY(inlet_path_check(path, err));
  char *blob = blob_of(s, path, err);
  if (!blob) return INLET_ENOMEM;
  int rc = put_blob(s, blob, data, n, false, err);
  inlet_free(blob);
  return rc;
}

static int delete_req(az_req *q, az_storage *s, const char *blob, inlet_error *err) {
  memset(q, 0, sizeof *q);
  return az_req_init(q, s, "DELETE", blob, err);
}

static int delete_check(const az_req *q, inlet_error *err) {
  if (q->http.rc < 0) {
    if (err) *err = q->http.error;
    return q->http.rc;
  }
  if (q->http.status == 202 || q->http.status == 200 || q->http.status == 404) return 0;
  return http_fail(q, err);
}

static int az_remove(inlet_storage *st, const char *path, inlet_error *err) {
  az_storage *s = (az_storage *)st;
  TRY(inlet_path_check(path, err));
  char *blob = blob_of(s, path, err);
  if (!blob) return INLET_ENOMEM;
  az_req q;
  int rc = delete_req(&q, s, blob, err);
  if (rc == 0) {
    inlet_http_req *r = &q.http;
    rc = inlet_http_run(s->http, &r, 1, err);
  }
  if (rc == 0) rc = delete_check(&q, err);
  az_req_reset(&q);
  inlet_free(blob);
  return rc;
}

static int az_remove_many(inlet_storage *st, const char *const *paths, size_t n, int *results,
                          inlet_error *err) {
  az_storage *s = (az_storage *)st;
  const size_t BATCH = inlet_objstore_page_size(256);
  int first = 0;
  for (size_t lo = 0; lo < n; lo += BATCH) {
    size_t m = lo + BATCH < n ? BATCH : n - lo;
    az_req *qs = inlet_calloc(m, sizeof *qs);
    inlet_http_req **rs = inlet_calloc(m, sizeof *rs);
    size_t *slot = inlet_calloc(m, sizeof *slot); /* request index + 1, 0 if none */
    int rc = !qs || !rs || !slot ? inlet_fail(err, INLET_ENOMEM, "out of memory") : 0;
    size_t built = 0;
    for (size_t i = 0; rc == 0 && i < m; i++) {
      inlet_error pe = INLET_ERROR_INIT;
      char *blob = NULL;
      int prc = inlet_path_check(paths[lo + i], &pe);
      if (prc == 0 && !(blob = blob_of(s, paths[lo + i], &pe))) prc = INLET_ENOMEM;
      if (prc == 0) prc = delete_req(&qs[built], s, blob, &pe);
      inlet_free(blob);
      if (prc < 0) {
        if (results) results[lo + i] = prc;
        if (first == 0) {
          first = prc;
          if (err) *err = pe;
        }
        continue;
      }
      rs[built] = &qs[built].http;
      slot[i] = ++built;
    }
    if (rc == 0) rc = inlet_http_run(s->http, rs, built, err);
    for (size_t i = 0; rc == 0 && i < m; i++) {
      if (!slot[i]) continue;
      inlet_error de = INLET_ERROR_INIT;
      int drc = delete_check(&qs[slot[i] - 1], &de);
      if (results) results[lo + i] = drc;
      if (drc < 0 && first == 0) {
        first = drc;
        if (err) *err = de;
      }
    }
    for (size_t i = 0; qs && i < m; i++)
      az_req_reset(&qs[i]);
    inlet_free(qs);
    inlet_free(rs);
    inlet_free(slot);
    if (rc < 0) return rc;
  }
  return first;
}

static int az_put_if_absent(inlet_storage *st, const char *tmp, const char *final,
                            inlet_error *err) {
  return inlet_objstore_publish_tmp(st, tmp, final, true, err);
}

static int az_replace(inlet_storage *st, const char *tmp, const char *final, inlet_error *err) {
  return inlet_objstore_publish_tmp(st, tmp, final, false, err);
}

/* ---- block upload wfile ---------------------------------------------------------- */

typedef struct az_wfile {
  inlet_wfile base;
  az_storage *s;
  char *blob;     /* owned */
  uint8_t **bufs; /* owned; parts_in_flight buffers of part_size */
  size_t *lens;
  int n_full;
  int n_blocks;   /* blocks uploaded */
  uint64_t nonce; /* block ids are unique per upload */
  int error;
} az_wfile;

static void block_id(const az_wfile *w, int i, char out[64]) {
  char raw[40];
  snprintf(raw, sizeof raw, "%016" PRIx64 "-%08d", w->nonce, i);
  inlet_buf b = INLET_BUF_INIT;
  inlet_base64_encode(&b, raw, strlen(raw));
  inlet_buf_terminate(&b);
  snprintf(out, 64, "%s", b.data ? (char *)b.data : "");
  inlet_buf_reset(&b);
}

static int flush_blocks(az_wfile *w, inlet_error *err) {
  int n = w->n_full;
  if (n == 0) return 0;
  FAIL_IF(w->n_blocks + n > 50000, err, INLET_ELIMIT,
          "az://%s/%s: more than 50000 blocks: raise the part size", w->s->cfg.container, w->blob);
  az_req qs[64];
  inlet_http_req *rs[64];
  memset(qs, 0, sizeof qs);
  int rc = 0;
  for (int i = 0; rc == 0 && i < n; i++) {
    char id[64];
    block_id(w, w->n_blocks + i, id);
    rc = add_query(&qs[i], "comp", "block", err);
    if (rc == 0) rc = add_query(&qs[i], "blockid", id, err);
    if (rc == 0) rc = az_req_init(&qs[i], w->s, "PUT", w->blob, err);
    qs[i].http.body = w->bufs[i];
    qs[i].http.body_len = w->lens[i];
    rs[i] = &qs[i].http;
  }
  if (rc == 0) rc = inlet_http_run(w->s->http, rs, (size_t)n, err);
  for (int i = 0; rc == 0 && i < n; i++) {
    if (qs[i].http.rc < 0) {
      if (err) *err = qs[i].http.error;
      rc = qs[i].http.rc;
    } else if (qs[i].http.status != 201) {
      rc = http_fail(&qs[i], err);
    }
  }
  for (int i = 0; i < n; i++)
    az_req_reset(&qs[i]);
  if (rc == 0) {
    w->n_blocks += n;
    for (int i = 0; i < n; i++)
      w->lens[i] = 0;
    w->n_full = 0;
  }
  return rc;
}

static int az_append(inlet_wfile *f, const void *data, size_t n, inlet_error *err) {
  az_wfile *w = (az_wfile *)f;
  if (w->error)
    return inlet_fail(err, w->error, "az://%s/%s: an earlier write failed", w->s->cfg.container,
                      w->blob);
  const uint8_t *p = data;
  size_t ps = w->s->tune.part_size;
  while (n) {
    size_t *len = &w->lens[w->n_full];
    size_t k = ps - *len < n ? ps - *len : n;
    memcpy(w->bufs[w->n_full] + *len, p, k);
    *len += k;
    p += k;
    n -= k;
    f->written += (int64_t)k;
    if (*len == ps && ++w->n_full == w->s->tune.parts_in_flight) {
      int rc = flush_blocks(w, err);
      if (rc < 0) {
        w->error = rc == INLET_ENOMEM ? INLET_ENOMEM : INLET_EIO;
        return rc;
      }
    }
  }
  return 0;
}

static int az_wsync(inlet_wfile *f, inlet_error *err) {
  (void)f;
  (void)err;
  return 0;
}

/* Put Block List of blocks [0, n_blocks) (none: an empty blob). */
static int commit_blocks(az_wfile *w, int n_blocks, inlet_error *err) {
  inlet_buf body = INLET_BUF_INIT;
  inlet_buf_puts(&body, "<?xml version=\"1.0\" encoding=\"utf-8\"?><BlockList>");
  for (int i = 0; i < n_blocks; i++) {
    char id[64];
    block_id(w, i, id);
    inlet_buf_appendf(&body, "<Latest>%s</Latest>", id);
  }
  inlet_buf_puts(&body, "</BlockList>");
  if (inlet_buf_status(&body)) {
    inlet_buf_reset(&body);
    return inlet_fail(err, INLET_ENOMEM, "out of memory");
  }
  az_req q;
  memset(&q, 0, sizeof q);
  int rc = add_query(&q, "comp", "blocklist", err);
  if (rc == 0) rc = add_header(&q, "If-None-Match", "*", err);
  if (rc == 0) rc = az_req_init(&q, w->s, "PUT", w->blob, err);
  q.http.body = body.data;
  q.http.body_len = body.len;
  q.http.fresh_connection = true; /* conditional: see http.h */
  if (rc == 0) rc = run1(w->s, &q, err);
  if (rc == 0) {
    if (q.http.status == 201) {
      rc = 0;
    } else if (exists_status(&q)) {
      rc = INLET_EEXISTS;
      if (q.http.maybe_applied && n_blocks > 0) {
        /* The commit of our blocks may have been the lost answer. */
        int64_t size = -1;
        inlet_error e2 = INLET_ERROR_INIT;
        if (head_blob(w->s, w->blob, &size, NULL, &e2) == 0 && size == w->base.written) rc = 0;
      }
      if (rc < 0)
        rc = inlet_fail(err, INLET_EEXISTS, "az://%s/%s: already exists", w->s->cfg.container,
                        w->blob);
    } else {
      rc = http_fail(&q, err);
    }
  }
  az_req_reset(&q);
  inlet_buf_reset(&body);
  return rc;
}

/* Drops the uncommitted blocks: an empty committed list replaces them, then
 * that empty blob goes. If the name exists (someone else's blob) nothing is
 * touched and the service expires our blocks. */
static void drop_blocks(az_wfile *w) {
  if (w->n_blocks == 0) return;
  inlet_error ignore = INLET_ERROR_INIT;
  if (commit_blocks(w, 0, &ignore) == 0) {
    char *rel = w->base.name;
    az_remove(&w->s->base, rel, &ignore);
  }
}

static void free_wfile(az_wfile *w) {
  for (int i = 0; w->bufs && i < w->s->tune.parts_in_flight; i++)
    inlet_free(w->bufs[i]);
  inlet_free(w->bufs);
  inlet_free(w->lens);
  inlet_free(w->blob);
  inlet_free(w->base.name);
  inlet_free(w);
}

static int az_wclose(inlet_wfile *f, bool sync, inlet_error *err) {
  (void)sync;
  az_wfile *w = (az_wfile *)f;
  int rc;
  if (w->error) {
    rc = inlet_fail(err, w->error, "az://%s/%s: an earlier write failed", w->s->cfg.container,
                    w->blob);
  } else if (w->n_blocks == 0 && (w->n_full == 0 || (w->n_full == 1 && w->lens[1] == 0))) {
    rc = put_blob(w->s, w->blob, w->bufs[0], w->lens[0], true, err);
  } else {
    if (w->n_full < w->s->tune.parts_in_flight && w->lens[w->n_full]) w->n_full++;
    rc = flush_blocks(w, err);
    if (rc == 0) rc = commit_blocks(w, w->n_blocks, err);
  }
  if (rc < 0 && rc != INLET_EEXISTS) drop_blocks(w);
  free_wfile(w);
  return rc;
}

static void az_wabort(inlet_wfile *f) {
  az_wfile *w = (az_wfile *)f;
  drop_blocks(w);
  free_wfile(w);
}

static const struct inlet_wfile_ops az_wfile_ops = {
    .append = az_append, .sync = az_wsync, .close = az_wclose, .abort = az_wabort};

static int az_create(inlet_storage *st, const char *path, inlet_wfile **out, inlet_error *err) {
  az_storage *s = (az_storage *)st;
  *out = NULL;
  TRY(inlet_path_check(path, err));
  az_wfile *w = inlet_calloc(1, sizeof *w);
  if (!w) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  w->s = s;
  w->blob = blob_of(s, path, err);
  w->base.name = inlet_strdup(path);
  int np = s->tune.parts_in_flight;
  w->bufs = inlet_calloc((size_t)np, sizeof *w->bufs);
  w->lens = inlet_calloc((size_t)np + 1, sizeof *w->lens);
  bool ok = w->blob && w->base.name && w->bufs && w->lens;
  for (int i = 0; ok && i < np; i++)
    ok = (w->bufs[i] = inlet_malloc(s->tune.part_size)) != NULL;
  if (!ok) {
    free_wfile(w);
    return inlet_fail(err, INLET_ENOMEM, "out of memory creating %s", path);
  }
  uint64_t t = (uint64_t)inlet_http_now_ms();
  w->nonce = t * 0x9e3779b97f4a7c15u ^ (uint64_t)(uintptr_t)w;
  w->base.ops = &az_wfile_ops;
  *out = &w->base;
  return 0;
}

/* ---- listing ------------------------------------------------------------------- */

typedef struct list_ctx {
  inlet_dirent *v;
  size_t n, cap;
  size_t strip;
  char *cur_name;
  int64_t cur_size, cur_mtime;
  char marker[1024];
  bool attrs;
} list_ctx;

static int push_ent(list_ctx *l, const char *name, size_t len, bool is_dir, int64_t size,
                    int64_t mtime, inlet_error *err) {
  if (l->n == l->cap) {
    size_t ncap = l->cap ? l->cap * 2 : 64;
    inlet_dirent *nv = inlet_realloc(l->v, ncap * sizeof *nv);
    if (!nv) return inlet_fail(err, INLET_ENOMEM, "out of memory listing");
    l->v = nv;
    l->cap = ncap;
  }
  char *nm = inlet_strndup(name, len);
  if (!nm) return inlet_fail(err, INLET_ENOMEM, "out of memory listing");
  l->v[l->n++] = (inlet_dirent){nm, is_dir, false, l->attrs ? size : -1, l->attrs ? mtime : -1};
  return 0;
}

static int list_cb(void *ctx, const char *path, const char *text, size_t len, inlet_error *err) {
  list_ctx *l = ctx;
  if (!strcmp(path, "EnumerationResults/Blobs/Blob/Name")) {
    inlet_free(l->cur_name);
    l->cur_name = inlet_strndup(text, len);
    if (!l->cur_name) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  } else if (!strcmp(path, "EnumerationResults/Blobs/Blob/Properties/Content-Length")) {
    l->cur_size = strtoll(text, NULL, 10);
  } else if (!strcmp(path, "EnumerationResults/Blobs/Blob/Properties/Last-Modified")) {
    l->cur_mtime = inlet_objstore_parse_time_ms(text);
  } else if (!strcmp(path, "EnumerationResults/Blobs/Blob")) {
    if (l->cur_name) {
      size_t kl = strlen(l->cur_name);
      if (kl > l->strip && l->cur_name[kl - 1] != '/')
        TRY(push_ent(l, l->cur_name + l->strip, kl - l->strip, false, l->cur_size, l->cur_mtime,
                     err));
    }
    inlet_free(l->cur_name);
    l->cur_name = NULL;
    l->cur_size = l->cur_mtime = -1;
  } else if (!strcmp(path, "EnumerationResults/Blobs/BlobPrefix/Name")) {
    if (len > l->strip + 1)
      TRY(push_ent(l, text + l->strip, len - l->strip - 1, true, -1, -1, err));
  } else if (!strcmp(path, "EnumerationResults/NextMarker")) {
    snprintf(l->marker, sizeof l->marker, "%s", text);
  }
  return 0;
}

static int az_list_from(inlet_storage *st, const char *dir, const inlet_list_options *opts,
                        inlet_dirent **out, size_t *count, inlet_error *err) {
  az_storage *s = (az_storage *)st;
  static const inlet_list_options all = INLET_LIST_OPTIONS_INIT;
  if (!opts) opts = &all;
  *out = NULL;
  *count = 0;
  if (dir && dir[0]) TRY(inlet_path_check(dir, err));
  char *base = inlet_objstore_join(s->cfg.prefix, dir ? dir : "");
  if (!base) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  inlet_buf pfx = INLET_BUF_INIT;
  inlet_buf_puts(&pfx, base);
  if (base[0]) inlet_buf_push(&pfx, '/');
  size_t strip = pfx.len;
  if (opts->prefix) inlet_buf_puts(&pfx, opts->prefix);
  inlet_free(base);
  int rc = inlet_buf_terminate(&pfx) < 0 ? inlet_fail(err, INLET_ENOMEM, "out of memory") : 0;
  list_ctx l;
  memset(&l, 0, sizeof l);
  l.strip = strip;
  l.attrs = opts->attrs;
  l.cur_size = l.cur_mtime = -1;
  char marker[1024] = "";
  /* List Blobs has no start-after: the prefix narrows the listing and
   * entries up to start_after are dropped as they arrive. */
  while (rc == 0) {
    az_req q;
    memset(&q, 0, sizeof q);
    rc = add_query(&q, "restype", "container", err);
    if (rc == 0) rc = add_query(&q, "comp", "list", err);
    if (rc == 0 && pfx.len) rc = add_query(&q, "prefix", (char *)pfx.data, err);
    if (rc == 0 && !opts->recursive) rc = add_query(&q, "delimiter", "/", err);
    if (rc == 0 && marker[0]) rc = add_query(&q, "marker", marker, err);
    char maxr[24];
    snprintf(maxr, sizeof maxr, "%zu", inlet_objstore_page_size(5000));
    if (rc == 0) rc = add_query(&q, "maxresults", maxr, err);
    if (rc == 0) rc = az_req_init(&q, s, "GET", NULL, err);
    if (rc == 0) rc = run1(s, &q, err);
    if (rc == 0 && q.http.status != 200) rc = http_fail(&q, err);
    l.marker[0] = 0;
    if (rc == 0)
      rc =
          inlet_xml_walk((const char *)q.http.resp, q.http.resp_len, q.http.what, list_cb, &l, err);
    az_req_reset(&q);
    if (rc == 0 && (opts->start_after || opts->limit)) {
      inlet_objstore_sort_entries(l.v, &l.n);
      inlet_list_options f = *opts;
      f.prefix = NULL;
      inlet_dirents_filter(l.v, &l.n, &f);
    }
    if (rc < 0 || !l.marker[0]) break;
    if (opts->limit && l.n >= opts->limit) break;
    snprintf(marker, sizeof marker, "%s", l.marker);
  }
  inlet_free(l.cur_name);
  inlet_buf_reset(&pfx);
  if (rc < 0) {
    inlet_dirents_free(l.v, l.n);
    return rc;
  }
  inlet_objstore_sort_entries(l.v, &l.n);
  inlet_dirents_filter(l.v, &l.n, opts);
  *out = l.v;
  *count = l.n;
  return 0;
}

static int list_dir(inlet_storage *st, const char *dir, bool attrs, inlet_dirent **out,
                    size_t *count, inlet_error *err) {
  inlet_list_options o = INLET_LIST_OPTIONS_INIT;
  o.attrs = attrs;
  TRY(az_list_from(st, dir, &o, out, count, err));
  if (*count == 0 && dir && dir[0]) {
    inlet_dirents_free(*out, 0);
    *out = NULL;
    return inlet_fail(err, INLET_ENOTFOUND, "list %s/%s: no such directory", st->root, dir);
  }
  return 0;
}

static int az_list(inlet_storage *st, const char *dir, inlet_dirent **out, size_t *count,
                   inlet_error *err) {
  return list_dir(st, dir, true, out, count, err);
}

static int az_list_names(inlet_storage *st, const char *dir, inlet_dirent **out, size_t *count,
                         inlet_error *err) {
  return list_dir(st, dir, false, out, count, err);
}

static int az_stat(inlet_storage *st, const char *path, inlet_dirent *out, inlet_error *err) {
  az_storage *s = (az_storage *)st;
  memset(out, 0, sizeof *out);
  if (path && path[0]) TRY(inlet_path_check(path, err));
  const char *slash = path ? strrchr(path, '/') : NULL;
  out->name = inlet_strdup(slash ? slash + 1 : path ? path : "");
  if (!out->name) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  int rc = INLET_ENOTFOUND;
  if (path && path[0]) {
    char *blob = blob_of(s, path, err);
    inlet_error e = INLET_ERROR_INIT;
    rc = blob ? head_blob(s, blob, &out->size, &out->mtime_ms, &e) : INLET_ENOMEM;
    inlet_free(blob);
    if (rc != INLET_ENOTFOUND) {
      if (rc < 0) {
        if (err) *err = e;
        inlet_free(out->name);
        out->name = NULL;
      }
      return rc;
    }
  }
  inlet_list_options o = INLET_LIST_OPTIONS_INIT;
  o.limit = 1;
  inlet_dirent *e;
  size_t n;
  rc = az_list_from(st, path, &o, &e, &n, err);
  if (rc == 0) {
    inlet_dirents_free(e, n);
    if (n) {
      out->is_dir = true;
      out->size = 0;
      out->mtime_ms = -1;
      return 0;
    }
    rc = inlet_fail(err, INLET_ENOTFOUND, "stat %s/%s: not found", st->root, path);
  }
  inlet_free(out->name);
  out->name = NULL;
  return rc;
}

static int az_nothing(inlet_storage *st, const char *dir, inlet_error *err) {
  (void)st;
  (void)dir;
  (void)err;
  return 0;
}

static void az_free(inlet_storage *st) {
  if (!st) return;
  az_storage *s = (az_storage *)st;
  inlet_http_free(s->http);
  inlet_azure_config_reset(&s->cfg);
  inlet_free(s->url_path);
  inlet_free(st->root);
  inlet_free(s);
}

static const inlet_storage_ops az_ops = {
    .open_read = az_open_read,
    .create = az_create,
    .put_if_absent = az_put_if_absent,
    .list = az_list,
    .list_names = az_list_names,
    .remove = az_remove,
    .replace = az_replace,
    .stat = az_stat,
    .mkdirs = az_nothing,
    .sync_dir = az_nothing,
    .free = az_free,
    .put_if_absent_bytes = az_put_if_absent_bytes,
    .put_bytes = az_put_bytes,
    .get_bytes = az_get_bytes,
    .open_read_sized = az_open_read_sized,
    .list_from = az_list_from,
    .remove_many = az_remove_many,
    .read_files = az_read_files,
};

int inlet_storage_azure_open(inlet_storage **out, inlet_azure_config *c,
                             const inlet_storage_options *o, inlet_error *err) {
  *out = NULL;
  az_storage *s = inlet_calloc(1, sizeof *s);
  if (!s) {
    inlet_azure_config_reset(c);
    return inlet_fail(err, INLET_ENOMEM, "out of memory");
  }
  s->cfg = *c;
  memset(c, 0, sizeof *c);
  inlet_http_config hc;
  inlet_objstore_tuning(o, &hc, &s->tune);
  if (s->tune.parts_in_flight > 64) s->tune.parts_in_flight = 64;
  int rc = inlet_http_new(&s->http, &hc, err);
  if (rc < 0) {
    az_free(&s->base);
    return rc;
  }
  const char *ep = s->cfg.endpoint;
  const char *hostp = strstr(ep, "://") + 3;
  const char *path = hostp + strcspn(hostp, "/");
  s->url_path = inlet_strdup(path);
  inlet_buf root = INLET_BUF_INIT;
  inlet_buf_appendf(&root, "az://%s%s%s", s->cfg.container, s->cfg.prefix[0] ? "/" : "",
                    s->cfg.prefix);
  s->base.root = (char *)inlet_buf_detach(&root, NULL);
  inlet_buf_reset(&root);
  if (!s->url_path || !s->base.root) {
    az_free(&s->base);
    return inlet_fail(err, INLET_ENOMEM, "out of memory");
  }
  s->base.ops = &az_ops;
  s->base.flags = INLET_STORAGE_OBJECT_STORE;
  *out = &s->base;
  return 0;
}
