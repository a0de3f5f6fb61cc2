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

typedef struct az_storage {
  objstore os;            /* first: the core's part */
  inlet_azure_config cfg; /* owned */
  char *url_path;         /* owned; path part of the endpoint ("" or "/devstoreaccount1") */
} az_storage;

static const char *find_hdr(const objstore_req *q, const char *name) {
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
  objstore_req *q = (objstore_req *)r;
  az_storage *s = (az_storage *)q->s;
  char date[64];
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  inlet_kv ms[OBJSTORE_MAX_HDRS + 2];
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
    inlet_buf_appendf(&sts, "/%s%s", s->cfg.account, q->path);
    inlet_kv qs[OBJSTORE_MAX_QUERY];
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
static int az_req_init(objstore_req *q, az_storage *s, const char *method, const char *blob,
                       inlet_error *err) {
  q->s = &s->os;
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
    q->path = (char *)inlet_buf_detach(&path, NULL);
    if (!q->path) rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
    q->http.sign = az_sign;
  }
  if (url.data) memset(url.data, 0, url.len); /* may hold the SAS */
  inlet_buf_reset(&path);
  inlet_buf_reset(&url);
  inlet_buf_reset(&what);
  return rc;
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
static int http_fail(const objstore_req *q, inlet_error *err) {
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

static int be_req_init(objstore_req *q, objstore *s, const char *method, const char *key,
                       inlet_error *err) {
  return az_req_init(q, (az_storage *)s, method, key, err);
}

static const struct inlet_rfile_ops az_rfile_ops = {
    .read_at = objstore_read_at,
    .close = objstore_rclose,
    .read_ranges = objstore_read_ranges,
    /* Blob ranges have a start: a tail read of a blob of unknown size asks
     * for the size first (the log's add.size usually spares that). */
    .read_tail = objstore_read_tail,
};

static const objstore_backend az_backend = {
    .scheme = "az",
    .range_header = "x-ms-range",
    .put_header = "x-ms-blob-type",
    .put_value = "BlockBlob",
    .req_init = be_req_init,
    .fail = http_fail,
    .rfile_ops = &az_rfile_ops,
};

/* ---- writes -------------------------------------------------------------------- */

static int az_remove_many(inlet_storage *st, const char *const *paths, size_t n, int *results,
                          inlet_error *err) {
  az_storage *s = (az_storage *)st;
  const size_t BATCH = inlet_objstore_page_size(256);
  int first = 0;
  for (size_t lo = 0; lo < n; lo += BATCH) {
    size_t m = lo + BATCH < n ? BATCH : n - lo;
    objstore_req *qs = inlet_calloc(m, sizeof *qs);
    inlet_http_req **rs = inlet_calloc(m, sizeof *rs);
    size_t *slot = inlet_calloc(m, sizeof *slot); /* request index + 1, 0 if none */
    int rc = !qs || !rs || !slot ? inlet_fail(err, INLET_ENOMEM, "out of memory") : 0;
    size_t built = 0;
    for (size_t i = 0; rc == 0 && i < m; i++) {
      inlet_error pe = INLET_ERROR_INIT;
      char *blob = NULL;
      int prc = inlet_path_check(paths[lo + i], &pe);
      if (prc == 0 && !(blob = objstore_key_of(&s->os, paths[lo + i], &pe))) prc = INLET_ENOMEM;
      if (prc == 0) prc = objstore_delete_req(&qs[built], &s->os, blob, &pe);
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
    if (rc == 0) rc = inlet_http_run(s->os.http, rs, built, err);
    for (size_t i = 0; rc == 0 && i < m; i++) {
      if (!slot[i]) continue;
      inlet_error de = INLET_ERROR_INIT;
      int drc = objstore_delete_check(&qs[slot[i] - 1], &de);
      if (results) results[lo + i] = drc;
      if (drc < 0 && first == 0) {
        first = drc;
        if (err) *err = de;
      }
    }
    for (size_t i = 0; qs && i < m; i++)
      objstore_req_reset(&qs[i]);
    inlet_free(qs);
    inlet_free(rs);
    inlet_free(slot);
    if (rc < 0) return rc;
  }
  return first;
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
  objstore_req qs[64];
  inlet_http_req *rs[64];
  memset(qs, 0, sizeof qs);
  int rc = 0;
  for (int i = 0; rc == 0 && i < n; i++) {
    char id[64];
    block_id(w, w->n_blocks + i, id);
    rc = objstore_req_query(&qs[i], "comp", "block", err);
    if (rc == 0) rc = objstore_req_query(&qs[i], "blockid", id, err);
    if (rc == 0) rc = az_req_init(&qs[i], w->s, "PUT", w->blob, err);
    qs[i].http.body = w->bufs[i];
    qs[i].http.body_len = w->lens[i];
    rs[i] = &qs[i].http;
  }
  if (rc == 0) rc = inlet_http_run(w->s->os.http, rs, (size_t)n, err);
  for (int i = 0; rc == 0 && i < n; i++) {
    if (qs[i].http.rc < 0) {
      if (err) *err = qs[i].http.error;
      rc = qs[i].http.rc;
    } else if (qs[i].http.status != 201) {
      rc = http_fail(&qs[i], err);
    }
  }
  for (int i = 0; i < n; i++)
    objstore_req_reset(&qs[i]);
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
  size_t ps = w->s->os.tune.part_size;
  while (n) {
    size_t *len = &w->lens[w->n_full];
    size_t k = ps - *len < n ? ps - *len : n;
    memcpy(w->bufs[w->n_full] + *len, p, k);
    *len += k;
    p += k;
    n -= k;
    f->written += (int64_t)k;
    if (*len == ps && ++w->n_full == w->s->os.tune.parts_in_flight) {
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
  objstore_req q;
  memset(&q, 0, sizeof q);
  int rc = objstore_req_query(&q, "comp", "blocklist", err);
  if (rc == 0) rc = objstore_req_header(&q, "If-None-Match", "*", err);
  if (rc == 0) rc = az_req_init(&q, w->s, "PUT", w->blob, err);
  q.http.body = body.data;
  q.http.body_len = body.len;
  q.http.fresh_connection = true; /* conditional: see http.h */
  if (rc == 0) rc = objstore_run1(&q, err);
  if (rc == 0) {
    if (q.http.status == 201) {
      rc = 0;
    } else if (q.http.status == 409 || q.http.status == 412) {
      rc = INLET_EEXISTS;
      if (q.http.maybe_applied && n_blocks > 0) {
        /* The commit of our blocks may have been the lost answer. */
        int64_t size = -1;
        inlet_error e2 = INLET_ERROR_INIT;
        if (objstore_head(&w->s->os, w->blob, &size, NULL, &e2) == 0 && size == w->base.written)
          rc = 0;
      }
      if (rc < 0)
        rc = inlet_fail(err, INLET_EEXISTS, "az://%s/%s: already exists", w->s->cfg.container,
                        w->blob);
    } else {
      rc = http_fail(&q, err);
    }
  }
  objstore_req_reset(&q);
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
    objstore_remove(&w->s->os.base, rel, &ignore);
  }
}

static void free_wfile(az_wfile *w) {
  for (int i = 0; w->bufs && i < w->s->os.tune.parts_in_flight; i++)
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
    rc = objstore_put(&w->s->os, w->blob, w->bufs[0], w->lens[0], true, err);
  } else {
    if (w->n_full < w->s->os.tune.parts_in_flight && w->lens[w->n_full]) w->n_full++;
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
  w->blob = objstore_key_of(&s->os, path, err);
  w->base.name = inlet_strdup(path);
  int np = s->os.tune.parts_in_flight;
  w->bufs = inlet_calloc((size_t)np, sizeof *w->bufs);
  w->lens = inlet_calloc((size_t)np + 1, sizeof *w->lens);
  bool ok = w->blob && w->base.name && w->bufs && w->lens;
  for (int i = 0; ok && i < np; i++)
    ok = (w->bufs[i] = inlet_malloc(s->os.tune.part_size)) != NULL;
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
  objstore_listing l; /* first */
  char marker[1024];
} list_ctx;

static int list_cb(void *ctx, const char *path, const char *text, size_t len, inlet_error *err) {
  list_ctx *c = ctx;
  objstore_listing *l = &c->l;
  if (!strcmp(path, "EnumerationResults/Blobs/Blob/Name")) {
    inlet_free(l->cur_name);
    l->cur_name = inlet_strndup(text, len);
    if (!l->cur_name) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  } else if (!strcmp(path, "EnumerationResults/Blobs/Blob/Properties/Content-Length")) {
    l->cur_size = strtoll(text, NULL, 10);
  } else if (!strcmp(path, "EnumerationResults/Blobs/Blob/Properties/Last-Modified")) {
    l->cur_mtime = inlet_objstore_parse_time_ms(text);
  } else if (!strcmp(path, "EnumerationResults/Blobs/Blob")) {
    TRY(objstore_listing_object(l, err));
  } else if (!strcmp(path, "EnumerationResults/Blobs/BlobPrefix/Name")) {
    if (len > l->strip + 1)
      TRY(objstore_listing_push(l, text + l->strip, len - l->strip - 1, true, -1, -1, err));
  } else if (!strcmp(path, "EnumerationResults/NextMarker")) {
    snprintf(c->marker, sizeof c->marker, "%s", text);
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
  inlet_buf pfx = INLET_BUF_INIT;
  list_ctx c;
  memset(&c, 0, sizeof c);
  c.l.attrs = opts->attrs;
  c.l.cur_size = c.l.cur_mtime = -1;
  int rc = objstore_list_prefix(&s->os, dir, opts, &pfx, &c.l.strip, err);
  char marker[1024] = "";
  /* List Blobs has no start-after: the prefix narrows the listing and
   * entries up to start_after are dropped as they arrive. */
  while (rc == 0) {
    objstore_req q;
    memset(&q, 0, sizeof q);
    rc = objstore_req_query(&q, "restype", "container", err);
    if (rc == 0) rc = objstore_req_query(&q, "comp", "list", err);
    if (rc == 0 && pfx.len) rc = objstore_req_query(&q, "prefix", (char *)pfx.data, err);
    if (rc == 0 && !opts->recursive) rc = objstore_req_query(&q, "delimiter", "/", err);
    if (rc == 0 && marker[0]) rc = objstore_req_query(&q, "marker", marker, err);
    char maxr[24];
    snprintf(maxr, sizeof maxr, "%zu", inlet_objstore_page_size(5000));
    if (rc == 0) rc = objstore_req_query(&q, "maxresults", maxr, err);
    if (rc == 0) rc = az_req_init(&q, s, "GET", NULL, err);
    if (rc == 0) rc = objstore_run1(&q, err);
    if (rc == 0 && q.http.status != 200) rc = http_fail(&q, err);
    c.marker[0] = 0;
    if (rc == 0)
      rc =
          inlet_xml_walk((const char *)q.http.resp, q.http.resp_len, q.http.what, list_cb, &c, err);
    objstore_req_reset(&q);
    if (rc == 0 && (opts->start_after || opts->limit)) {
      inlet_objstore_sort_entries(c.l.v, &c.l.n);
      inlet_list_options f = *opts;
      f.prefix = NULL;
      inlet_dirents_filter(c.l.v, &c.l.n, &f);
    }
    if (rc < 0 || !c.marker[0]) break;
    if (opts->limit && c.l.n >= opts->limit) break;
    snprintf(marker, sizeof marker, "%s", c.marker);
  }
  inlet_buf_reset(&pfx);
  return objstore_listing_finish(&c.l, rc, opts, out, count);
}

static void az_free(inlet_storage *st) {
  if (!st) return;
  az_storage *s = (az_storage *)st;
  inlet_http_free(s->os.http);
  inlet_azure_config_reset(&s->cfg);
  inlet_free(s->url_path);
  inlet_free(st->root);
  inlet_free(s);
}

static int az_clone(inlet_storage *st, inlet_storage **out, inlet_error *err);

static const inlet_storage_ops az_ops = {
    .open_read = objstore_open_read,
    .create = az_create,
    .put_if_absent = objstore_put_if_absent,
    .list = objstore_list,
    .list_names = objstore_list_names,
    .remove = objstore_remove,
    .replace = objstore_replace,
    .stat = objstore_stat,
    .mkdirs = objstore_nothing,
    .sync_dir = objstore_nothing,
    .free = az_free,
    .put_if_absent_bytes = objstore_put_if_absent_bytes,
    .put_bytes = objstore_put_bytes,
    .get_bytes = objstore_get_bytes,
    .open_read_sized = objstore_open_read_sized,
    .list_from = az_list_from,
    .remove_many = az_remove_many,
    .read_files = objstore_read_files,
    .clone = az_clone,
};

/* The handle for @p c (taken over) with a client made of @p hc and @p tune. */
static int az_open_tuned(inlet_storage **out, inlet_azure_config *c, const inlet_http_config *hc,
                         const objstore_tuning *tune, inlet_error *err) {
  *out = NULL;
  az_storage *s = inlet_calloc(1, sizeof *s);
  if (!s) {
    inlet_azure_config_reset(c);
    return inlet_fail(err, INLET_ENOMEM, "out of memory");
  }
  s->cfg = *c;
  memset(c, 0, sizeof *c);
  s->os.be = &az_backend;
  s->os.bucket = s->cfg.container;
  s->os.prefix = s->cfg.prefix;
  s->os.http_cfg = *hc;
  s->os.tune = *tune;
  if (s->os.tune.parts_in_flight > 64) s->os.tune.parts_in_flight = 64;
  int rc = inlet_http_new(&s->os.http, hc, err);
  if (rc < 0) {
    az_free(&s->os.base);
    return rc;
  }
  const char *ep = s->cfg.endpoint;
  const char *hostp = strstr(ep, "://") + 3;
  const char *path = hostp + strcspn(hostp, "/");
  s->url_path = inlet_strdup(path);
  inlet_buf root = INLET_BUF_INIT;
  inlet_buf_appendf(&root, "az://%s%s%s", s->cfg.container, s->cfg.prefix[0] ? "/" : "",
                    s->cfg.prefix);
  s->os.base.root = (char *)inlet_buf_detach(&root, NULL);
  inlet_buf_reset(&root);
  if (!s->url_path || !s->os.base.root) {
    az_free(&s->os.base);
    return inlet_fail(err, INLET_ENOMEM, "out of memory");
  }
  s->os.base.ops = &az_ops;
  s->os.base.flags = INLET_STORAGE_OBJECT_STORE;
  *out = &s->os.base;
  return 0;
}

int inlet_storage_azure_open(inlet_storage **out, inlet_azure_config *c,
                             const inlet_storage_options *o, inlet_error *err) {
  inlet_http_config hc;
  objstore_tuning tune;
  inlet_objstore_tuning(o, &hc, &tune);
  return az_open_tuned(out, c, &hc, &tune, err);
}

static int az_clone(inlet_storage *st, inlet_storage **out, inlet_error *err) {
  *out = NULL;
  az_storage *s = (az_storage *)st;
  inlet_azure_config c;
  TRY(inlet_azure_config_copy(&c, &s->cfg, err));
  TRY(az_open_tuned(out, &c, &s->os.http_cfg, &s->os.tune, err));
  (*out)->flags = st->flags;
  return 0;
}
