/*
 * The S3 backend (storage.h): Amazon S3 and S3-compatible stores (MinIO,
 * Cloudflare R2, Ceph RGW) over the REST API, signed with AWS Signature
 * Version 4 (sign.c), through the shared HTTP client (http.c).
 *
 * Objects: GetObject with Range (bytes=a-b, suffix bytes=-n), HeadObject,
 * PutObject (If-None-Match: * for creates: a 412 PreconditionFailed, or a
 * 409 ConditionalRequestConflict while another conditional write of the key
 * is in flight, is a lost race), multipart upload above the part size
 * (CreateMultipartUpload, UploadPart with several parts in flight,
 * CompleteMultipartUpload with If-None-Match: *, AbortMultipartUpload on
 * any failure), ListObjectsV2 (prefix, delimiter, start-after,
 * continuation-token), DeleteObject, DeleteObjects (up to 1000 keys per
 * request, Content-MD5 as S3 requires). Spec: Amazon S3 API Reference.
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

typedef struct s3_storage {
  objstore os;         /* first: the core's part */
  inlet_s3_config cfg; /* owned */
  char *host;          /* owned; Host header value */
  char *url_base;      /* owned; "scheme://host[:port]" (bucket host when virtual-hosted) */
} s3_storage;

static int s3_sign(void *ctx, inlet_http_req *r, struct curl_slist **headers, inlet_error *err) {
  objstore_req *q = (objstore_req *)r;
  (void)ctx;
  s3_storage *s = (s3_storage *)q->s;
  char amz_date[17], payload[65];
  inlet_amz_date((int64_t)time(NULL), amz_date);
  inlet_sha256_hex(r->body ? (const void *)r->body : "", r->body_len, payload);
  inlet_kv h[OBJSTORE_MAX_HDRS + 4];
  size_t n = 0;
  h[n++] = (inlet_kv){"host", s->host};
  h[n++] = (inlet_kv){"x-amz-date", amz_date};
  h[n++] = (inlet_kv){"x-amz-content-sha256", payload};
  if (s->cfg.session_token) h[n++] = (inlet_kv){"x-amz-security-token", s->cfg.session_token};
  for (size_t i = 0; i < q->n_hdr; i++)
    h[n++] = q->hdr[i];
  inlet_sigv4_request sr = {
      r->method,     q->path, q->query,          q->n_query,       h, n, payload, amz_date,
      s->cfg.region, "s3",    s->cfg.access_key, s->cfg.secret_key};
  inlet_buf auth = INLET_BUF_INIT, line = INLET_BUF_INIT;
  int rc = inlet_sigv4_authorization(&sr, &auth, NULL, err);
  for (size_t i = 0; rc == 0 && i < n; i++) {
    inlet_buf_clear(&line);
    inlet_buf_appendf(&line, "%s: %s", h[i].key, h[i].value);
    if (inlet_buf_terminate(&line) < 0) {
      rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
      break;
    }
    struct curl_slist *nl = curl_slist_append(*headers, (char *)line.data);
    if (!nl)
      rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
    else
      *headers = nl;
  }
  if (rc == 0) {
    inlet_buf_clear(&line);
    inlet_buf_appendf(&line, "Authorization: %s", (char *)auth.data);
    if (inlet_buf_terminate(&line) < 0) rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
    struct curl_slist *nl = rc ? NULL : curl_slist_append(*headers, (char *)line.data);
    if (!rc && !nl) rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
    if (nl) *headers = nl;
  }
  if (auth.data) memset(auth.data, 0, auth.len);
  if (line.data) memset(line.data, 0, line.len);
  inlet_buf_reset(&auth);
  inlet_buf_reset(&line);
  return rc;
}

/* Builds the URL from key and query (encoded exactly as signed) and
 * initialises the HTTP request. Call after add_query. @p key NULL: the
 * bucket itself. */
static int s3_req_init(objstore_req *q, s3_storage *s, const char *method, const char *key,
                       inlet_error *err) {
  q->s = &s->os;
  inlet_buf path = INLET_BUF_INIT, url = INLET_BUF_INIT, what = INLET_BUF_INIT;
  if (s->cfg.path_style) inlet_buf_appendf(&path, "/%s", s->cfg.bucket);
  inlet_buf_push(&path, '/');
  if (key) inlet_buf_puts(&path, key);
  int rc = inlet_buf_terminate(&path);
  if (rc == 0) {
    inlet_buf_puts(&url, s->url_base);
    inlet_uri_encode(&url, (char *)path.data, path.len, true);
    for (size_t i = 0; i < q->n_query; i++) {
      inlet_buf_push(&url, i ? '&' : '?');
      inlet_uri_encode(&url, q->query[i].key, strlen(q->query[i].key), false);
      inlet_buf_push(&url, '=');
      inlet_uri_encode(&url, q->query[i].value, strlen(q->query[i].value), false);
    }
    inlet_buf_appendf(&what, "%s s3://%s/%s", method, s->cfg.bucket, key ? key : "");
    rc = inlet_buf_terminate(&url) < 0 || inlet_buf_terminate(&what) < 0 ? INLET_ENOMEM : 0;
  }
  if (rc == 0)
    rc = inlet_http_req_init(&q->http, method, (char *)url.data, (char *)what.data, err);
  else
    rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
  if (rc == 0) {
    q->path = (char *)inlet_buf_detach(&path, NULL);
    if (!q->path) rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
    q->http.sign = s3_sign;
  }
  inlet_buf_reset(&path);
  inlet_buf_reset(&url);
  inlet_buf_reset(&what);
  return rc;
}

/* S3's <Error><Code>..</Code><Message>..</Message></Error>. */
typedef struct err_body {
  char code[64];
  char message[200];
} err_body;

static int err_cb(void *ctx, const char *path, const char *text, size_t len, inlet_error *err) {
  (void)err;
  (void)len;
  err_body *e = ctx;
  if (!strcmp(path, "Error/Code")) snprintf(e->code, sizeof e->code, "%s", text);
  if (!strcmp(path, "Error/Message")) snprintf(e->message, sizeof e->message, "%s", text);
  return 0;
}

/* The error for an unexpected status: Code and Message of the body, never
 * the rest of it (SignatureDoesNotMatch bodies echo the string to sign). */
static int http_fail(const objstore_req *q, inlet_error *err) {
  const inlet_http_req *r = &q->http;
  err_body e = {"", ""};
  if (r->resp && r->resp_len) {
    inlet_error ignore = INLET_ERROR_INIT;
    inlet_xml_walk((const char *)r->resp, r->resp_len, r->what, err_cb, &e, &ignore);
  }
  int code = r->status == 404 ? INLET_ENOTFOUND : INLET_EIO;
  if (r->status == 403 || r->status == 401)
    return inlet_fail(err, code, "%s: access denied (HTTP %ld%s%s%s%s): check the credentials",
                      r->what, r->status, e.code[0] ? " " : "", e.code, e.message[0] ? ": " : "",
                      e.message);
  return inlet_fail(err, code, "%s: HTTP %ld%s%s%s%s%s", r->what, r->status, e.code[0] ? " " : "",
                    e.code, e.message[0] ? ": " : "", e.message,
                    inlet_http_status_retryable(r->status) ? " (retries exhausted)" : "");
}

/* ---- reads --------------------------------------------------------------------- */

static int be_req_init(objstore_req *q, objstore *s, const char *method, const char *key,
                       inlet_error *err) {
  return s3_req_init(q, (s3_storage *)s, method, key, err);
}

static int s3_read_tail(inlet_rfile *rf, void *buf, size_t n, size_t *got, inlet_error *err) {
  objstore_rfile *f = (objstore_rfile *)rf;
  *got = 0;
  if (n == 0 || f->base.size == 0) {
    if (f->base.size < 0) {
      int64_t sz;
      TRY(objstore_head(f->s, f->key, &sz, NULL, err));
      f->base.size = sz;
    }
    return 0;
  }
  objstore_req q;
  memset(&q, 0, sizeof q);
  char range[64];
  snprintf(range, sizeof range, "bytes=-%zu", n);
  int rc = objstore_req_header(&q, "range", range, err);
  if (rc == 0) rc = be_req_init(&q, f->s, "GET", f->key, err);
  q.http.sink = buf;
  q.http.sink_cap = n;
  inlet_http_req *r = &q.http;
  if (rc == 0) rc = inlet_http_run(f->s->http, &r, 1, err);
  long st = r->status;
  bool got_body = (st == 206 || st == 200) && (r->rc == 0 || r->overflow);
  if (rc < 0) {
    /* the request could not be made */
  } else if (got_body && r->rc == 0 &&
             ((st == 206 && r->range_total >= 0 &&
               r->range_start == r->range_total - (int64_t)r->resp_len) ||
              st == 200)) {
    *got = r->resp_len;
    f->base.size = st == 206 ? r->range_total : (int64_t)r->resp_len;
  } else if (got_body) {
    /* The store answered with the object's start, not its end (s3rver reads
     * "bytes=-n" as "bytes=0-n"): read the tail by offset instead. */
    int64_t total = st == 206 ? r->range_total : r->content_length;
    if (total < 0) rc = objstore_head(f->s, f->key, &total, NULL, err);
    if (rc == 0) {
      f->base.size = total;
      size_t k = (uint64_t)n < (uint64_t)total ? n : (size_t)total;
      rc = objstore_read_at(rf, total - (int64_t)k, buf, k, err);
      if (rc == 0) *got = k;
    }
  } else if (r->rc < 0) {
    if (err) *err = r->error;
    rc = r->rc;
  } else if (st == 416) {
    /* An empty object has no suffix to return. */
    int64_t sz;
    rc = objstore_head(f->s, f->key, &sz, NULL, err);
    if (rc == 0) {
      f->base.size = sz;
      if (sz != 0) rc = inlet_fail(err, INLET_EIO, "%s: unexpected 416", r->what);
    }
  } else if (st == 404) {
    rc = inlet_fail(err, INLET_ENOTFOUND, "%s: not found", rf->name);
  } else {
    rc = http_fail(&q, err);
  }
  objstore_req_reset(&q);
  return rc;
}

static const struct inlet_rfile_ops s3_rfile_ops = {
    .read_at = objstore_read_at,
    .close = objstore_rclose,
    .read_ranges = objstore_read_ranges,
    .read_tail = s3_read_tail,
};

static const objstore_backend s3_backend = {
    .scheme = "s3",
    .range_header = "range",
    .req_init = be_req_init,
    .fail = http_fail,
    .rfile_ops = &s3_rfile_ops,
};

/* ---- multipart wfile --------------------------------------------------------- */

typedef struct s3_part {
  uint8_t *data; /* owned; part_size bytes */
  size_t len;
} s3_part;

typedef struct s3_wfile {
  inlet_wfile base;
  s3_storage *s;
  char *key;       /* owned */
  char *upload_id; /* owned; NULL until multipart starts */
  s3_part *bufs;   /* owned; parts_in_flight buffers */
  int n_full;      /* buffers filled, not yet uploaded */
  char **etags;    /* owned; per uploaded part */
  int n_parts, cap_parts;
  int error; /* sticky */
} s3_wfile;

typedef struct upload_cb {
  char upload_id[1024];
} upload_cb;

static int upload_id_cb(void *ctx, const char *path, const char *text, size_t len,
                        inlet_error *err) {
  (void)err;
  (void)len;
  upload_cb *u = ctx;
  if (!strcmp(path, "InitiateMultipartUploadResult/UploadId"))
    snprintf(u->upload_id, sizeof u->upload_id, "%s", text);
  return 0;
}

static int start_multipart(s3_wfile *w, inlet_error *err) {
  objstore_req q;
  memset(&q, 0, sizeof q);
  int rc = objstore_req_query(&q, "uploads", "", err);
  if (rc == 0) rc = s3_req_init(&q, w->s, "POST", w->key, err);
  if (rc == 0) rc = objstore_run1(&q, err);
  if (rc == 0 && q.http.status != 200) rc = http_fail(&q, err);
  if (rc == 0) {
    upload_cb u = {""};
    rc = inlet_xml_walk((const char *)q.http.resp, q.http.resp_len, q.http.what, upload_id_cb, &u,
                        err);
    if (rc == 0 && !u.upload_id[0])
      rc = inlet_fail(err, INLET_EIO, "%s: no UploadId in the response", q.http.what);
    if (rc == 0 && !(w->upload_id = inlet_strdup(u.upload_id)))
      rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
  }
  objstore_req_reset(&q);
  return rc;
}

/* Uploads the filled buffers as the next parts, all in flight at once. */
static int flush_parts(s3_wfile *w, inlet_error *err) {
  if (w->n_full == 0) return 0;
  if (!w->upload_id) TRY(start_multipart(w, err));
  int n = w->n_full;
  if (w->n_parts + n > w->cap_parts) {
    int ncap = (w->n_parts + n) * 2;
    char **ne = inlet_realloc(w->etags, (size_t)ncap * sizeof *ne);
    if (!ne) return inlet_fail(err, INLET_ENOMEM, "out of memory");
    w->etags = ne;
    w->cap_parts = ncap;
  }
  FAIL_IF(w->n_parts + n > 10000, err, INLET_ELIMIT,
          "s3://%s/%s: more than 10000 parts: raise the part size", w->s->cfg.bucket, w->key);
  objstore_req qs[64];
  inlet_http_req *rs[64];
  int rc = 0;
  memset(qs, 0, sizeof qs);
  for (int i = 0; rc == 0 && i < n; i++) {
    char num[16];
    snprintf(num, sizeof num, "%d", w->n_parts + i + 1);
    rc = objstore_req_query(&qs[i], "partNumber", num, err);
    if (rc == 0) rc = objstore_req_query(&qs[i], "uploadId", w->upload_id, err);
    if (rc == 0) rc = s3_req_init(&qs[i], w->s, "PUT", w->key, err);
    qs[i].http.body = w->bufs[i].data;
    qs[i].http.body_len = w->bufs[i].len;
    rs[i] = &qs[i].http;
  }
  if (rc == 0) rc = inlet_http_run(w->s->os.http, rs, (size_t)n, err);
  for (int i = 0; rc == 0 && i < n; i++) {
    if (qs[i].http.rc < 0) {
      if (err) *err = qs[i].http.error;
      rc = qs[i].http.rc;
    } else if (qs[i].http.status != 200) {
      rc = http_fail(&qs[i], err);
    } else if (!qs[i].http.etag[0]) {
      rc = inlet_fail(err, INLET_EIO, "%s: no ETag for part %d", qs[i].http.what,
                      w->n_parts + i + 1);
    }
  }
  for (int i = 0; rc == 0 && i < n; i++) {
    w->etags[w->n_parts + i] = inlet_strdup(qs[i].http.etag);
    if (!w->etags[w->n_parts + i]) {
      rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
      for (int j = 0; j < i; j++)
        inlet_free(w->etags[w->n_parts + j]);
    }
  }
  if (rc == 0) {
    w->n_parts += n;
    for (int i = 0; i < n; i++)
      w->bufs[i].len = 0;
    w->n_full = 0;
  }
  for (int i = 0; i < n; i++)
    objstore_req_reset(&qs[i]);
  return rc;
}

static int s3_append(inlet_wfile *f, const void *data, size_t n, inlet_error *err) {
  s3_wfile *w = (s3_wfile *)f;
  if (w->error)
    return inlet_fail(err, w->error, "s3://%s/%s: an earlier write failed", w->s->cfg.bucket,
                      w->key);
  const uint8_t *p = data;
  size_t ps = w->s->os.tune.part_size;
  while (n) {
    s3_part *b = &w->bufs[w->n_full];
    size_t k = ps - b->len < n ? ps - b->len : n;
    memcpy(b->data + b->len, p, k);
    b->len += k;
    p += k;
    n -= k;
    f->written += (int64_t)k;
    if (b->len == ps) {
      w->n_full++;
      if (w->n_full == w->s->os.tune.parts_in_flight) {
        int rc = flush_parts(w, err);
        if (rc < 0) {
          w->error = rc == INLET_ENOMEM ? INLET_ENOMEM : INLET_EIO;
          return rc;
        }
      }
    }
  }
  return 0;
}

static int s3_wsync(inlet_wfile *f, inlet_error *err) {
  (void)f;
  (void)err;
  return 0; /* nothing is visible or durable before close publishes it */
}

static void abort_upload(s3_wfile *w) {
  if (!w->upload_id) return;
  objstore_req q;
  memset(&q, 0, sizeof q);
  inlet_error ignore = INLET_ERROR_INIT;
  if (objstore_req_query(&q, "uploadId", w->upload_id, &ignore) == 0 &&
      s3_req_init(&q, w->s, "DELETE", w->key, &ignore) == 0)
    objstore_run1(&q, &ignore);
  objstore_req_reset(&q);
}

static void free_wfile(s3_wfile *w) {
  for (int i = 0; i < w->s->os.tune.parts_in_flight; i++)
    inlet_free(w->bufs[i].data);
  inlet_free(w->bufs);
  for (int i = 0; i < w->n_parts; i++)
    inlet_free(w->etags[i]);
  inlet_free(w->etags);
  inlet_free(w->upload_id);
  inlet_free(w->key);
  inlet_free(w->base.name);
  inlet_free(w);
}

static int complete_upload(s3_wfile *w, inlet_error *err) {
  inlet_buf body = INLET_BUF_INIT;
  inlet_buf_puts(&body, "<CompleteMultipartUpload>");
  for (int i = 0; i < w->n_parts; i++) {
    inlet_buf_appendf(&body, "<Part><PartNumber>%d</PartNumber><ETag>", i + 1);
    inlet_xml_escape(&body, w->etags[i]);
    inlet_buf_puts(&body, "</ETag></Part>");
  }
  inlet_buf_puts(&body, "</CompleteMultipartUpload>");
  if (inlet_buf_status(&body)) {
    inlet_buf_reset(&body);
    return inlet_fail(err, INLET_ENOMEM, "out of memory");
  }
  objstore_req q;
  memset(&q, 0, sizeof q);
  int rc = objstore_req_query(&q, "uploadId", w->upload_id, err);
  if (rc == 0) rc = objstore_req_header(&q, "if-none-match", "*", err);
  if (rc == 0) rc = objstore_req_header(&q, "content-type", "application/xml", err);
  if (rc == 0) rc = s3_req_init(&q, w->s, "POST", w->key, err);
  q.http.body = body.data;
  q.http.body_len = body.len;
  q.http.fresh_connection = true; /* conditional: see http.h */
  if (rc == 0) rc = objstore_run1(&q, err);
  if (rc == 0) {
    long st = q.http.status;
    err_body e = {"", ""};
    if (q.http.resp_len) {
      inlet_error ignore = INLET_ERROR_INIT;
      inlet_xml_walk((const char *)q.http.resp, q.http.resp_len, q.http.what, err_cb, &e, &ignore);
    }
    if (st == 200 && !e.code[0]) {
      rc = 0;
    } else if (st == 412 || st == 409) {
      rc = inlet_fail(err, INLET_EEXISTS, "s3://%s/%s: already exists", w->s->cfg.bucket, w->key);
    } else if (st == 404 && q.http.maybe_applied) {
      /* NoSuchUpload after a lost answer: the first attempt completed it
       * if the object now has our size. */
      int64_t size = -1;
      inlet_error e2 = INLET_ERROR_INIT;
      if (objstore_head(&w->s->os, w->key, &size, NULL, &e2) == 0 && size == w->base.written) {
        rc = 0;
        inlet_free(w->upload_id);
        w->upload_id = NULL;
      } else {
        rc = http_fail(&q, err);
      }
    } else {
      /* S3 can answer 200 with an <Error> body on a failed complete. */
      rc = st == 200 ? inlet_fail(err, INLET_EIO, "%s: %s: %s", q.http.what, e.code, e.message)
                     : http_fail(&q, err);
    }
  }
  if (rc == 0) {
    inlet_free(w->upload_id);
    w->upload_id = NULL;
  }
  objstore_req_reset(&q);
  inlet_buf_reset(&body);
  return rc;
}

static int s3_wclose(inlet_wfile *f, bool sync, inlet_error *err) {
  (void)sync; /* a completed PUT is durable */
  s3_wfile *w = (s3_wfile *)f;
  int rc = 0;
  if (w->error) {
    rc = inlet_fail(err, w->error, "s3://%s/%s: an earlier write failed", w->s->cfg.bucket, w->key);
  } else if (!w->upload_id && (w->n_full == 0 || (w->n_full == 1 && w->bufs[1].len == 0))) {
    /* Everything fits one part: a single conditional PUT. */
    s3_part *b = &w->bufs[0];
    rc = objstore_put(&w->s->os, w->key, b->data, b->len, true, err);
  } else {
    /* Count the partly filled buffer as a part too. */
    if (w->n_full < w->s->os.tune.parts_in_flight && w->bufs[w->n_full].len) w->n_full++;
    rc = flush_parts(w, err);
    if (rc == 0) rc = complete_upload(w, err);
  }
  if (rc < 0) abort_upload(w);
  free_wfile(w);
  return rc;
}

static void s3_wabort(inlet_wfile *f) {
  s3_wfile *w = (s3_wfile *)f;
  abort_upload(w);
  free_wfile(w);
}

static const struct inlet_wfile_ops s3_wfile_ops = {
    .append = s3_append, .sync = s3_wsync, .close = s3_wclose, .abort = s3_wabort};

static int s3_create(inlet_storage *st, const char *path, inlet_wfile **out, inlet_error *err) {
  s3_storage *s = (s3_storage *)st;
  *out = NULL;
  TRY(inlet_path_check(path, err));
  s3_wfile *w = inlet_calloc(1, sizeof *w);
  if (!w) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  w->s = s;
  w->key = objstore_key_of(&s->os, path, err);
  w->base.name = inlet_strdup(path);
  w->bufs = inlet_calloc((size_t)s->os.tune.parts_in_flight, sizeof *w->bufs);
  bool ok = w->key && w->base.name && w->bufs;
  for (int i = 0; ok && i < s->os.tune.parts_in_flight; i++)
    ok = (w->bufs[i].data = inlet_malloc(s->os.tune.part_size)) != NULL;
  if (!ok) {
    if (w->bufs) {
      for (int i = 0; i < s->os.tune.parts_in_flight; i++)
        inlet_free(w->bufs[i].data);
    }
    inlet_free(w->bufs);
    inlet_free(w->key);
    inlet_free(w->base.name);
    inlet_free(w);
    return inlet_fail(err, INLET_ENOMEM, "out of memory creating %s", path);
  }
  w->base.ops = &s3_wfile_ops;
  *out = &w->base;
  return 0;
}

/* ---- listing ------------------------------------------------------------------- */

typedef struct list_ctx {
  objstore_listing l; /* first */
  char next_token[1024];
  bool truncated;
} list_ctx;

static int list_cb(void *ctx, const char *path, const char *text, size_t len, inlet_error *err) {
  list_ctx *c = ctx;
  objstore_listing *l = &c->l;
  if (!strcmp(path, "ListBucketResult/Contents/Key")) {
    inlet_free(l->cur_name);
    l->cur_name = inlet_strndup(text, len);
    if (!l->cur_name) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  } else if (!strcmp(path, "ListBucketResult/Contents/Size")) {
    l->cur_size = strtoll(text, NULL, 10);
  } else if (!strcmp(path, "ListBucketResult/Contents/LastModified")) {
    l->cur_mtime = inlet_objstore_parse_time_ms(text);
  } else if (!strcmp(path, "ListBucketResult/Contents")) {
    TRY(objstore_listing_object(l, err));
  } else if (!strcmp(path, "ListBucketResult/CommonPrefixes/Prefix")) {
    if (len > l->strip + 1) /* drop the trailing '/' */
      TRY(objstore_listing_push(l, text + l->strip, len - l->strip - 1, true, -1, -1, err));
  } else if (!strcmp(path, "ListBucketResult/NextContinuationToken")) {
    snprintf(c->next_token, sizeof c->next_token, "%s", text);
  } else if (!strcmp(path, "ListBucketResult/IsTruncated")) {
    c->truncated = !strcmp(text, "true");
  }
  return 0;
}

/* ListObjectsV2 pages; start-after makes the store skip what comes before. */
static int s3_list_from(inlet_storage *st, const char *dir, const inlet_list_options *opts,
                        inlet_dirent **out, size_t *count, inlet_error *err) {
  s3_storage *s = (s3_storage *)st;
  static const inlet_list_options all = INLET_LIST_OPTIONS_INIT;
  if (!opts) opts = &all;
  *out = NULL;
  *count = 0;
  inlet_buf pfx = INLET_BUF_INIT, after = INLET_BUF_INIT;
  list_ctx c;
  memset(&c, 0, sizeof c);
  c.l.attrs = opts->attrs;
  c.l.cur_size = c.l.cur_mtime = -1;
  int rc = objstore_list_prefix(&s->os, dir, opts, &pfx, &c.l.strip, err);
  if (rc == 0 && opts->start_after && opts->start_after[0]) {
    inlet_buf_append(&after, pfx.data, c.l.strip);
    inlet_buf_puts(&after, opts->start_after);
    if (inlet_buf_terminate(&after) < 0) rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
  }
  char token[1024] = "";
  while (rc == 0) {
    objstore_req q;
    memset(&q, 0, sizeof q);
    char maxk[24];
    size_t page = inlet_objstore_page_size(1000), n = c.l.n;
    size_t want = opts->limit ? opts->limit - (n < opts->limit ? n : opts->limit) : page;
    snprintf(maxk, sizeof maxk, "%zu", want > page || want == 0 ? page : want);
    rc = objstore_req_query(&q, "list-type", "2", err);
    if (rc == 0) rc = objstore_req_query(&q, "prefix", (char *)pfx.data, err);
    if (rc == 0) rc = objstore_req_query(&q, "max-keys", maxk, err);
    if (rc == 0 && !opts->recursive) rc = objstore_req_query(&q, "delimiter", "/", err);
    if (rc == 0 && after.len && !token[0])
      rc = objstore_req_query(&q, "start-after", (char *)after.data, err);
    if (rc == 0 && token[0]) rc = objstore_req_query(&q, "continuation-token", token, err);
    if (rc == 0) rc = s3_req_init(&q, s, "GET", NULL, err);
    if (rc == 0) rc = objstore_run1(&q, err);
    if (rc == 0 && q.http.status != 200) rc = http_fail(&q, err);
    c.next_token[0] = 0;
    c.truncated = false;
    if (rc == 0)
      rc =
          inlet_xml_walk((const char *)q.http.resp, q.http.resp_len, q.http.what, list_cb, &c, err);
    objstore_req_reset(&q);
    if (rc < 0 || !c.truncated || !c.next_token[0]) break;
    if (opts->limit && c.l.n >= opts->limit) break;
    snprintf(token, sizeof token, "%s", c.next_token);
  }
  inlet_buf_reset(&pfx);
  inlet_buf_reset(&after);
  return objstore_listing_finish(&c.l, rc, opts, out, count);
}

/* ---- batch delete -------------------------------------------------------------- */

typedef struct del_ctx {
  const char *const *keys; /* full keys of this batch */
  size_t n;
  int *results;
  char cur_key[2048];
  char cur_code[64];
  char cur_msg[160];
  int first_rc;
  inlet_error *err;
  const char *bucket;
} del_ctx;

static int del_cb(void *ctx, const char *path, const char *text, size_t len, inlet_error *err) {
  (void)len;
  (void)err;
  del_ctx *d = ctx;
  if (!strcmp(path, "DeleteResult/Error/Key"))
    snprintf(d->cur_key, sizeof d->cur_key, "%s", text);
  else if (!strcmp(path, "DeleteResult/Error/Code"))
    snprintf(d->cur_code, sizeof d->cur_code, "%s", text);
  else if (!strcmp(path, "DeleteResult/Error/Message"))
    snprintf(d->cur_msg, sizeof d->cur_msg, "%s", text);
  else if (!strcmp(path, "DeleteResult/Error")) {
    if (!strcmp(d->cur_code, "NoSuchKey")) return 0;
    for (size_t i = 0; i < d->n; i++)
      if (!strcmp(d->keys[i], d->cur_key) && d->results) d->results[i] = INLET_EIO;
    if (d->first_rc == 0)
      d->first_rc = inlet_fail(d->err, INLET_EIO, "delete s3://%s/%s: %s: %s", d->bucket,
                               d->cur_key, d->cur_code, d->cur_msg);
    d->cur_key[0] = d->cur_code[0] = d->cur_msg[0] = 0;
  }
  return 0;
}

static int s3_remove_many(inlet_storage *st, const char *const *paths, size_t n, int *results,
                          inlet_error *err) {
  s3_storage *s = (s3_storage *)st;
  if (n == 0) return 0;
  const size_t BATCH = inlet_objstore_page_size(1000);
  size_t nb = (n + BATCH - 1) / BATCH;
  char **keys = inlet_calloc(n, sizeof *keys);
  objstore_req *qs = inlet_calloc(nb, sizeof *qs);
  inlet_http_req **rs = inlet_calloc(nb, sizeof *rs);
  inlet_buf *bodies = inlet_calloc(nb, sizeof *bodies);
  int rc = 0;
  if (!keys || !qs || !rs || !bodies) rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
  for (size_t i = 0; rc == 0 && i < n; i++) {
    if (results) results[i] = 0;
    inlet_error pe = INLET_ERROR_INIT;
    if (inlet_path_check(paths[i], &pe) < 0) {
      if (results) results[i] = INLET_EINVAL;
      if (err) *err = pe;
      rc = INLET_EINVAL;
      break;
    }
    keys[i] = objstore_key_of(&s->os, paths[i], err);
    if (!keys[i]) rc = INLET_ENOMEM;
  }
  for (size_t b = 0; rc == 0 && b < nb; b++) {
    size_t lo = b * BATCH, hi = lo + BATCH < n ? lo + BATCH : n;
    inlet_buf *body = &bodies[b];
    inlet_buf_puts(body, "<Delete><Quiet>true</Quiet>");
    for (size_t i = lo; i < hi; i++) {
      inlet_buf_puts(body, "<Object><Key>");
      inlet_xml_escape(body, keys[i]);
      inlet_buf_puts(body, "</Key></Object>");
    }
    inlet_buf_puts(body, "</Delete>");
    if (inlet_buf_status(body)) {
      rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
      break;
    }
    uint8_t md5[16];
    inlet_md5(body->data, body->len, md5);
    inlet_buf b64 = INLET_BUF_INIT;
    inlet_base64_encode(&b64, md5, 16);
    if (inlet_buf_terminate(&b64) < 0) rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
    if (rc == 0) rc = objstore_req_query(&qs[b], "delete", "", err);
    if (rc == 0) rc = objstore_req_header(&qs[b], "content-md5", (char *)b64.data, err);
    if (rc == 0) rc = objstore_req_header(&qs[b], "content-type", "application/xml", err);
    inlet_buf_reset(&b64);
    if (rc == 0) rc = s3_req_init(&qs[b], s, "POST", NULL, err);
    qs[b].http.body = body->data;
    qs[b].http.body_len = body->len;
    rs[b] = &qs[b].http;
  }
  if (rc == 0) rc = inlet_http_run(s->os.http, rs, nb, err);
  for (size_t b = 0; rc >= 0 && b < nb; b++) {
    size_t lo = b * BATCH, hi = lo + BATCH < n ? lo + BATCH : n;
    inlet_http_req *r = &qs[b].http;
    int brc = 0;
    inlet_error be = INLET_ERROR_INIT;
    if (r->rc < 0) {
      brc = r->rc;
      be = r->error;
    } else if (r->status != 200) {
      brc = http_fail(&qs[b], &be);
    } else {
      del_ctx d = {(const char *const *)keys + lo,
                   hi - lo,
                   results ? results + lo : NULL,
                   "",
                   "",
                   "",
                   0,
                   &be,
                   s->cfg.bucket};
      brc = inlet_xml_walk((const char *)r->resp, r->resp_len, r->what, del_cb, &d, &be);
      if (brc == 0) brc = d.first_rc;
      if (brc < 0 && results) {
        /* results already say which keys failed */
      }
    }
    if (brc < 0) {
      if (r->status != 200 && results)
        for (size_t i = lo; i < hi; i++)
          results[i] = brc;
      if (rc == 0) {
        rc = brc;
        if (err) *err = be;
      }
    }
  }
  for (size_t i = 0; keys && i < n; i++)
    inlet_free(keys[i]);
  for (size_t b = 0; qs && b < nb; b++) {
    objstore_req_reset(&qs[b]);
    inlet_buf_reset(&bodies[b]);
  }
  inlet_free(keys);
  inlet_free(qs);
  inlet_free(rs);
  inlet_free(bodies);
  return rc;
}

/* ---- the backend --------------------------------------------------------------- */

static void s3_free(inlet_storage *st) {
  if (!st) return;
  s3_storage *s = (s3_storage *)st;
  inlet_http_free(s->os.http);
  inlet_s3_config_reset(&s->cfg);
  inlet_free(s->host);
  inlet_free(s->url_base);
  inlet_free(st->root);
  inlet_free(s);
}

/* ---- incomplete multipart uploads --------------------------------------------- */

typedef struct mpu_ctx {
  char key[1024], id[1024];
  int64_t initiated;
  bool key_ok; /* the key fitted in `key` */
  struct mpu_item {
    char *key, *id;
  } * v; /* uploads of this page initiated before the cutoff */
  size_t n, cap;
  int64_t before_ms;
  char next_key[1024], next_id[1024];
  bool truncated;
} mpu_ctx;

static int mpu_cb(void *ctx, const char *path, const char *text, size_t len, inlet_error *err) {
  mpu_ctx *m = ctx;
  if (!strcmp(path, "ListMultipartUploadsResult/Upload/Key")) {
    m->key_ok = len < sizeof m->key;
    snprintf(m->key, sizeof m->key, "%s", m->key_ok ? text : "");
  } else if (!strcmp(path, "ListMultipartUploadsResult/Upload/UploadId")) {
    snprintf(m->id, sizeof m->id, "%s", len < sizeof m->id ? text : "");
  } else if (!strcmp(path, "ListMultipartUploadsResult/Upload/Initiated")) {
    m->initiated = inlet_objstore_parse_time_ms(text);
  } else if (!strcmp(path, "ListMultipartUploadsResult/Upload")) {
    if (m->key_ok && m->key[0] && m->id[0] && m->initiated >= 0 && m->initiated < m->before_ms) {
      if (m->n == m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 16;
        struct mpu_item *nv = inlet_realloc(m->v, nc * sizeof *nv);
        if (!nv) return inlet_fail(err, INLET_ENOMEM, "out of memory listing uploads");
        m->v = nv;
        m->cap = nc;
      }
      m->v[m->n].key = inlet_strdup(m->key);
      m->v[m->n].id = inlet_strdup(m->id);
      if (!m->v[m->n].key || !m->v[m->n].id) {
        inlet_free(m->v[m->n].key);
        inlet_free(m->v[m->n].id);
        return inlet_fail(err, INLET_ENOMEM, "out of memory listing uploads");
      }
      m->n++;
    }
    m->key[0] = m->id[0] = '\0';
    m->key_ok = false;
    m->initiated = -1;
  } else if (!strcmp(path, "ListMultipartUploadsResult/NextKeyMarker")) {
    snprintf(m->next_key, sizeof m->next_key, "%s", len < sizeof m->next_key ? text : "");
  } else if (!strcmp(path, "ListMultipartUploadsResult/NextUploadIdMarker")) {
    snprintf(m->next_id, sizeof m->next_id, "%s", len < sizeof m->next_id ? text : "");
  } else if (!strcmp(path, "ListMultipartUploadsResult/IsTruncated")) {
    m->truncated = !strcmp(text, "true");
  }
  return 0;
}

static void mpu_clear(mpu_ctx *m) {
  for (size_t i = 0; i < m->n; i++) {
    inlet_free(m->v[i].key);
    inlet_free(m->v[i].id);
  }
  m->n = 0;
}

static int abort_key_upload(s3_storage *s, const char *key, const char *id, inlet_error *err) {
  objstore_req q;
  memset(&q, 0, sizeof q);
  int rc = objstore_req_query(&q, "uploadId", id, err);
  if (rc == 0) rc = s3_req_init(&q, s, "DELETE", key, err);
  if (rc == 0) rc = objstore_run1(&q, err);
  /* 404 NoSuchUpload: completed or aborted meanwhile, by someone else. */
  if (rc == 0 && q.http.status != 204 && q.http.status != 200 && q.http.status != 404)
    rc = http_fail(&q, err);
  objstore_req_reset(&q);
  return rc;
}

static int s3_abort_uploads(inlet_storage *st, int64_t before_ms, bool dry_run,
                            void (*fn)(void *ctx, const char *path), void *ctx, int64_t *count,
                            inlet_error *err) {
  s3_storage *s = (s3_storage *)st;
  /* The root's own keys only: "prefix/" (a table at "t" is not "t2"). */
  inlet_buf pfx = INLET_BUF_INIT;
  inlet_buf_puts(&pfx, s->cfg.prefix);
  if (s->cfg.prefix[0]) inlet_buf_push(&pfx, '/');
  if (inlet_buf_terminate(&pfx) < 0) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  const char *prefix = (const char *)pfx.data;
  mpu_ctx m;
  memset(&m, 0, sizeof m);
  m.before_ms = before_ms;
  m.initiated = -1;
  char key_marker[1024] = "", id_marker[1024] = "";
  int rc = 0;
  for (int pages = 0; rc == 0 && pages < 100000; pages++) {
    objstore_req q;
    memset(&q, 0, sizeof q);
    char maxu[24];
    snprintf(maxu, sizeof maxu, "%zu", inlet_objstore_page_size(1000));
    rc = objstore_req_query(&q, "uploads", "", err);
    if (rc == 0) rc = objstore_req_query(&q, "prefix", prefix, err);
    if (rc == 0) rc = objstore_req_query(&q, "max-uploads", maxu, err);
    if (rc == 0 && key_marker[0]) rc = objstore_req_query(&q, "key-marker", key_marker, err);
    if (rc == 0 && id_marker[0]) rc = objstore_req_query(&q, "upload-id-marker", id_marker, err);
    if (rc == 0) rc = s3_req_init(&q, s, "GET", NULL, err);
    if (rc == 0) rc = objstore_run1(&q, err);
    if (rc == 0 && (q.http.status == 501 || q.http.status == 403 || q.http.status == 405)) {
      /* A store without the listing (s3rver: 501 NotImplemented), or
       * credentials without s3:ListBucketMultipartUploads: nothing can be
       * found here; a bucket lifecycle rule has to do it. */
      rc = inlet_fail(err, INLET_EUNSUPPORTED,
                      "%s: listing multipart uploads is not available (HTTP %ld)", q.http.what,
                      q.http.status);
    } else if (rc == 0 && q.http.status != 200) {
      rc = http_fail(&q, err);
    }
    m.truncated = false;
    m.next_key[0] = m.next_id[0] = '\0';
    if (rc == 0)
      rc = inlet_xml_walk((const char *)q.http.resp, q.http.resp_len, q.http.what, mpu_cb, &m, err);
    objstore_req_reset(&q);
    size_t plen = strlen(prefix);
    for (size_t i = 0; rc == 0 && i < m.n; i++) {
      /* The store filtered by prefix; a key outside it is never touched. */
      if (strncmp(m.v[i].key, prefix, plen) != 0 || !m.v[i].key[plen]) continue;
      if (!dry_run) rc = abort_key_upload(s, m.v[i].key, m.v[i].id, err);
      if (rc < 0) break;
      if (fn) fn(ctx, m.v[i].key + plen);
      if (count) (*count)++;
    }
    mpu_clear(&m);
    if (rc < 0 || !m.truncated || !m.next_key[0]) break;
    /* A marker that does not move would loop forever. */
    if (!strcmp(m.next_key, key_marker) && !strcmp(m.next_id, id_marker)) break;
    snprintf(key_marker, sizeof key_marker, "%s", m.next_key);
    snprintf(id_marker, sizeof id_marker, "%s", m.next_id);
  }
  inlet_free(m.v);
  inlet_buf_reset(&pfx);
  return rc;
}

static int s3_clone(inlet_storage *st, inlet_storage **out, inlet_error *err);

static const inlet_storage_ops s3_ops = {
    .open_read = objstore_open_read,
    .create = s3_create,
    .put_if_absent = objstore_put_if_absent,
    .list = objstore_list,
    .list_names = objstore_list_names,
    .remove = objstore_remove,
    .replace = objstore_replace,
    .stat = objstore_stat,
    .mkdirs = objstore_nothing,
    .sync_dir = objstore_nothing,
    .free = s3_free,
    .put_if_absent_bytes = objstore_put_if_absent_bytes,
    .put_bytes = objstore_put_bytes,
    .get_bytes = objstore_get_bytes,
    .open_read_sized = objstore_open_read_sized,
    .list_from = s3_list_from,
    .remove_many = s3_remove_many,
    .read_files = objstore_read_files,
    .abort_uploads = s3_abort_uploads,
    .clone = s3_clone,
};

/* The handle for @p c (taken over) with a client made of @p hc and @p tune. */
static int s3_open_tuned(inlet_storage **out, inlet_s3_config *c, const inlet_http_config *hc,
                         const objstore_tuning *tune, inlet_error *err) {
  *out = NULL;
  s3_storage *s = inlet_calloc(1, sizeof *s);
  if (!s) {
    inlet_s3_config_reset(c);
    return inlet_fail(err, INLET_ENOMEM, "out of memory");
  }
  s->cfg = *c;
  memset(c, 0, sizeof *c);
  s->os.be = &s3_backend;
  s->os.bucket = s->cfg.bucket;
  s->os.prefix = s->cfg.prefix;
  s->os.http_cfg = *hc;
  s->os.tune = *tune;
  int rc = inlet_http_new(&s->os.http, hc, err);
  if (rc < 0) {
    s3_free(&s->os.base);
    return rc;
  }
  const char *ep = s->cfg.endpoint;
  const char *scheme_end = strstr(ep, "://");
  const char *hostp = scheme_end + 3;
  size_t hl = strcspn(hostp, "/");
  size_t sl = (size_t)(scheme_end - ep);
  inlet_buf host = INLET_BUF_INIT, base = INLET_BUF_INIT, root = INLET_BUF_INIT;
  if (s->cfg.path_style) {
    inlet_buf_append(&host, hostp, hl);
  } else {
    inlet_buf_appendf(&host, "%s.", s->cfg.bucket);
    inlet_buf_append(&host, hostp, hl);
  }
  inlet_buf_append(&base, ep, sl + 3);
  inlet_buf_append(&base, host.data, host.len);
  inlet_buf_appendf(&root, "s3://%s%s%s", s->cfg.bucket, s->cfg.prefix[0] ? "/" : "",
                    s->cfg.prefix);
  s->host = (char *)inlet_buf_detach(&host, NULL);
  s->url_base = (char *)inlet_buf_detach(&base, NULL);
  s->os.base.root = (char *)inlet_buf_detach(&root, NULL);
  inlet_buf_reset(&host);
  inlet_buf_reset(&base);
  inlet_buf_reset(&root);
  if (!s->host || !s->url_base || !s->os.base.root) {
    s3_free(&s->os.base);
    return inlet_fail(err, INLET_ENOMEM, "out of memory");
  }
  s->os.base.ops = &s3_ops;
  s->os.base.flags = INLET_STORAGE_OBJECT_STORE;
  *out = &s->os.base;
  return 0;
}

int inlet_storage_s3_open(inlet_storage **out, inlet_s3_config *c, const inlet_storage_options *o,
                          inlet_error *err) {
  inlet_http_config hc;
  objstore_tuning tune;
  inlet_objstore_tuning(o, &hc, &tune);
  return s3_open_tuned(out, c, &hc, &tune, err);
}

static int s3_clone(inlet_storage *st, inlet_storage **out, inlet_error *err) {
  *out = NULL;
  s3_storage *s = (s3_storage *)st;
  inlet_s3_config c;
  TRY(inlet_s3_config_copy(&c, &s->cfg, err));
  TRY(s3_open_tuned(out, &c, &s->os.http_cfg, &s->os.tune, err));
  (*out)->flags = st->flags;
  return 0;
}
