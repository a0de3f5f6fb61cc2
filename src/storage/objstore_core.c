/*
 * The object-store core (objstore_int.h): requests, reads, whole-object
 * writes, deletes, listings and the storage vtable entries that S3 (s3.c)
 * and Azure Blob (azure.c) share. Each backend keeps what its protocol does
 * its own way: URL building and signing, error bodies, the listing request,
 * multi-part uploads and batch deletes.
 */
#include <inttypes.h>
#include <stdio.h>

#include "storage/objstore_int.h"
#include "util/util.h"

/* ---- requests ------------------------------------------------------------------ */

void objstore_req_reset(objstore_req *q) {
  inlet_http_req_reset(&q->http);
  inlet_free(q->path);
  for (size_t i = 0; i < q->n_hdr; i++)
    inlet_free(q->hval[i]);
  for (size_t i = 0; i < q->n_query; i++)
    inlet_free(q->qval[i]);
  memset(q, 0, sizeof *q);
}

int objstore_req_header(objstore_req *q, const char *name, const char *value, inlet_error *err) {
  if (q->n_hdr == OBJSTORE_MAX_HDRS) return inlet_fail(err, INLET_EINTERNAL, "too many headers");
  char *v = inlet_strdup(value);
  if (!v) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  q->hval[q->n_hdr] = v;
  q->hdr[q->n_hdr++] = (inlet_kv){name, v};
  return 0;
}

int objstore_req_query(objstore_req *q, const char *name, const char *value, inlet_error *err) {
  if (q->n_query == OBJSTORE_MAX_QUERY)
    return inlet_fail(err, INLET_EINTERNAL, "too many parameters");
  char *v = inlet_strdup(value ? value : "");
  if (!v) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  q->qval[q->n_query] = v;
  q->query[q->n_query++] = (inlet_kv){name, v};
  return 0;
}

int objstore_run1(objstore_req *q, inlet_error *err) {
  inlet_http_req *r = &q->http;
  TRY(inlet_http_run(q->s->http, &r, 1, err));
  if (r->rc < 0) {
    if (err) *err = r->error;
    return r->rc;
  }
  return 0;
}

char *objstore_key_of(objstore *s, const char *path, inlet_error *err) {
  char *k = inlet_objstore_join(s->prefix, path);
  if (!k) inlet_fail(err, INLET_ENOMEM, "out of memory");
  return k;
}

static int not_found(objstore *s, const char *key, inlet_error *err) {
  return inlet_fail(err, INLET_ENOTFOUND, "%s://%s/%s: not found", s->be->scheme, s->bucket, key);
}

/* ---- whole objects ------------------------------------------------------------- */

int objstore_head(objstore *s, const char *key, int64_t *size, int64_t *mtime, inlet_error *err) {
  objstore_req q;
  memset(&q, 0, sizeof q);
  int rc = s->be->req_init(&q, s, "HEAD", key, err);
  if (rc == 0) rc = objstore_run1(&q, err);
  if (rc == 0) {
    if (q.http.status == 200) {
      *size = q.http.content_length;
      if (mtime) *mtime = inlet_objstore_parse_time_ms(q.http.last_modified);
      if (*size < 0) rc = inlet_fail(err, INLET_EIO, "%s: no Content-Length", q.http.what);
    } else if (q.http.status == 404) {
      rc = not_found(s, key, err);
    } else {
      rc = s->be->fail(&q, err);
    }
  }
  objstore_req_reset(&q);
  return rc;
}

int objstore_get(objstore *s, const char *key, size_t limit, uint8_t **out, size_t *len,
                 inlet_error *err) {
  objstore_req q;
  memset(&q, 0, sizeof q);
  int rc = s->be->req_init(&q, s, "GET", key, err);
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
      rc = inlet_fail(err, INLET_ELIMIT, "%s://%s/%s: larger than the %zu-byte limit",
                      s->be->scheme, s->bucket, key, limit);
    } else if (r->rc < 0) {
      if (err) *err = r->error;
      rc = r->rc;
    } else if (r->status == 200) {
      if (!r->resp) r->resp = inlet_calloc(1, 1); /* an empty object is not NULL */
      if (!r->resp) rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
      *out = r->resp;
      *len = r->resp_len;
      r->resp = NULL;
    } else if (r->status == 404) {
      rc = not_found(s, key, err);
    } else {
      rc = s->be->fail(&q, err);
    }
  }
  objstore_req_reset(&q);
  return rc;
}

int objstore_put(objstore *s, const char *key, const void *data, size_t n, bool conditional,
                 inlet_error *err) {
  objstore_req q;
  memset(&q, 0, sizeof q);
  int rc = 0;
  if (s->be->put_header) rc = objstore_req_header(&q, s->be->put_header, s->be->put_value, err);
  if (rc == 0 && conditional) rc = objstore_req_header(&q, "if-none-match", "*", err);
  if (rc == 0) rc = s->be->req_init(&q, s, "PUT", key, err);
  q.http.body = data;
  q.http.body_len = n;
  q.http.fresh_connection = conditional;
  if (rc == 0) rc = objstore_run1(&q, err);
  if (rc == 0) {
    long st = q.http.status;
    if (st == 200 || st == 201 || st == 204) {
      rc = 0;
    } else if (conditional && (st == 412 || st == 409)) {
      /* A lost race (S3 answers 409 while another conditional write of the
       * key is in flight, Azure 409 BlobAlreadyExists), unless an attempt
       * whose answer we never saw was ours: then the object holds exactly
       * our bytes (http.h, maybe_applied). */
      rc = inlet_fail(err, INLET_EEXISTS, "%s://%s/%s: already exists", s->be->scheme, s->bucket,
                      key);
      if (q.http.maybe_applied) {
        uint8_t *cur = NULL;
        size_t cl = 0;
        inlet_error e2 = INLET_ERROR_INIT;
        if (objstore_get(s, key, n, &cur, &cl, &e2) == 0 && cl == n &&
            (n == 0 || memcmp(cur, data, n) == 0))
          rc = 0;
        inlet_free(cur);
      }
    } else {
      rc = s->be->fail(&q, err);
    }
  }
  objstore_req_reset(&q);
  return rc;
}

int objstore_delete_req(objstore_req *q, objstore *s, const char *key, inlet_error *err) {
  memset(q, 0, sizeof *q);
  return s->be->req_init(q, s, "DELETE", key, err);
}

int objstore_delete_check(const objstore_req *q, inlet_error *err) {
  if (q->http.rc < 0) {
    if (err) *err = q->http.error;
    return q->http.rc;
  }
  long st = q->http.status;
  if (st == 200 || st == 202 || st == 204 || st == 404) return 0;
  return q->s->be->fail(q, err);
}

/* ---- ranged reads -------------------------------------------------------------- */

static int past_end(const inlet_rfile *f, int64_t off, size_t n, inlet_error *err) {
  if (off >= 0 && (f->size < 0 || (off <= f->size && (int64_t)n <= f->size - off))) return 0;
  return inlet_fail(err, INLET_ECORRUPT,
                    "%s: truncated: read of %zu bytes at offset %" PRId64 " past the end", f->name,
                    n, off);
}

static int range_req(objstore_req *q, objstore_rfile *f, int64_t off, void *buf, size_t n,
                     inlet_error *err) {
  memset(q, 0, sizeof *q);
  char range[64];
  snprintf(range, sizeof range, "bytes=%" PRId64 "-%" PRId64, off, off + (int64_t)n - 1);
  TRY(objstore_req_header(q, f->s->be->range_header, range, err));
  TRY(f->s->be->req_init(q, f->s, "GET", f->key, err));
  q->http.sink = buf;
  q->http.sink_cap = n;
  return 0;
}

static int range_check(objstore_req *q, objstore_rfile *f, int64_t off, size_t n,
                       inlet_error *err) {
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
  if (r->status != 206 && r->status != 200) return f->s->be->fail(q, err);
  return 0;
}

int objstore_read_at(inlet_rfile *rf, int64_t off, void *buf, size_t n, inlet_error *err) {
  objstore_rfile *f = (objstore_rfile *)rf;
  TRY(past_end(rf, off, n, err));
  if (n == 0) return 0;
  objstore_req q;
  int rc = range_req(&q, f, off, buf, n, err);
  if (rc == 0) rc = objstore_run1(&q, err);
  if (rc == 0) rc = range_check(&q, f, off, n, err);
  objstore_req_reset(&q);
  return rc;
}

/* Ranges of files of one store, all in flight at once. */
static int read_many(objstore *s, inlet_file_range *fr, size_t n, inlet_error *err) {
  objstore_req *qs = inlet_calloc(n ? n : 1, sizeof *qs);
  inlet_http_req **rs = inlet_calloc(n ? n : 1, sizeof *rs);
  int rc = 0;
  size_t built = 0;
  if (!qs || !rs) rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
  for (size_t i = 0; rc == 0 && i < n; i++) {
    objstore_rfile *f = (objstore_rfile *)fr[i].file;
    if (fr[i].file->ops->read_at != objstore_read_at || f->s != s) {
      rc = inlet_fail(err, INLET_EINVAL, "%s: not a file of this storage", fr[i].file->name);
      break;
    }
    rc = past_end(fr[i].file, fr[i].offset, fr[i].len, err);
    if (rc < 0 || fr[i].len == 0) continue;
    rc = range_req(&qs[built], f, fr[i].offset, fr[i].buf, fr[i].len, err);
    rs[built] = &qs[built].http;
    built++;
  }
  if (rc == 0) rc = inlet_http_run(s->http, rs, built, err);
  for (size_t i = 0, k = 0; rc == 0 && i < n; i++) {
    if (fr[i].len == 0) continue;
    rc = range_check(&qs[k++], (objstore_rfile *)fr[i].file, fr[i].offset, fr[i].len, err);
  }
  for (size_t i = 0; qs && i < n; i++)
    objstore_req_reset(&qs[i]);
  inlet_free(qs);
  inlet_free(rs);
  return rc;
}

int objstore_read_ranges(inlet_rfile *rf, inlet_read_range *rr, size_t n, inlet_error *err) {
  inlet_file_range *fr = inlet_calloc(n ? n : 1, sizeof *fr);
  if (!fr) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  for (size_t i = 0; i < n; i++)
    fr[i] = (inlet_file_range){rf, rr[i].offset, rr[i].len, rr[i].buf};
  int rc = read_many(((objstore_rfile *)rf)->s, fr, n, err);
  inlet_free(fr);
  return rc;
}

int objstore_read_files(inlet_storage *st, inlet_file_range *fr, size_t n, inlet_error *err) {
  return read_many((objstore *)st, fr, n, err);
}

int objstore_read_tail(inlet_rfile *rf, void *buf, size_t n, size_t *got, inlet_error *err) {
  objstore_rfile *f = (objstore_rfile *)rf;
  *got = 0;
  if (f->base.size < 0) {
    int64_t sz;
    TRY(objstore_head(f->s, f->key, &sz, NULL, err));
    f->base.size = sz;
  }
  size_t k = (uint64_t)n < (uint64_t)f->base.size ? n : (size_t)f->base.size;
  TRY(objstore_read_at(rf, f->base.size - (int64_t)k, buf, k, err));
  *got = k;
  return 0;
}

void objstore_rclose(inlet_rfile *rf) {
  if (!rf) return;
  objstore_rfile *f = (objstore_rfile *)rf;
  inlet_free(f->key);
  inlet_free(rf->name);
  inlet_free(f);
}

/* ---- listings ------------------------------------------------------------------ */

int objstore_list_prefix(objstore *s, const char *dir, const inlet_list_options *opts,
                         inlet_buf *pfx, size_t *strip, inlet_error *err) {
  if (dir && dir[0]) TRY(inlet_path_check(dir, err));
  char *base = inlet_objstore_join(s->prefix, dir ? dir : "");
  if (!base) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  inlet_buf_puts(pfx, base);
  if (base[0]) inlet_buf_push(pfx, '/');
  inlet_free(base);
  *strip = pfx->len;
  if (opts->prefix) inlet_buf_puts(pfx, opts->prefix);
  if (inlet_buf_terminate(pfx) < 0) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  return 0;
}

int objstore_listing_push(objstore_listing *l, const char *name, size_t len, bool is_dir,
                          int64_t size, int64_t mtime, inlet_error *err) {
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

int objstore_listing_object(objstore_listing *l, inlet_error *err) {
  int rc = 0;
  if (l->cur_name) {
    size_t kl = strlen(l->cur_name);
    if (kl > l->strip && l->cur_name[kl - 1] != '/')
      rc = objstore_listing_push(l, l->cur_name + l->strip, kl - l->strip, false, l->cur_size,
                                 l->cur_mtime, err);
  }
  inlet_free(l->cur_name);
  l->cur_name = NULL;
  l->cur_size = l->cur_mtime = -1;
  return rc;
}

int objstore_listing_finish(objstore_listing *l, int rc, const inlet_list_options *opts,
                            inlet_dirent **out, size_t *count) {
  inlet_free(l->cur_name);
  l->cur_name = NULL;
  if (rc < 0) {
    inlet_dirents_free(l->v, l->n);
    return rc;
  }
  inlet_objstore_sort_entries(l->v, &l->n);
  inlet_dirents_filter(l->v, &l->n, opts);
  *out = l->v;
  *count = l->n;
  return 0;
}

static int list_dir(inlet_storage *st, const char *dir, bool attrs, inlet_dirent **out,
                    size_t *count, inlet_error *err) {
  inlet_list_options o = INLET_LIST_OPTIONS_INIT;
  o.attrs = attrs;
  TRY(st->ops->list_from(st, dir, &o, out, count, err));
  if (*count == 0 && dir && dir[0]) {
    inlet_dirents_free(*out, 0);
    *out = NULL;
    return inlet_fail(err, INLET_ENOTFOUND, "list %s/%s: no such directory", st->root, dir);
  }
  return 0;
}

int objstore_list(inlet_storage *st, const char *dir, inlet_dirent **out, size_t *count,
                  inlet_error *err) {
  return list_dir(st, dir, true, out, count, err);
}

int objstore_list_names(inlet_storage *st, const char *dir, inlet_dirent **out, size_t *count,
                        inlet_error *err) {
  return list_dir(st, dir, false, out, count, err);
}

/* ---- storage vtable entries ---------------------------------------------------- */

int objstore_open_read_sized(inlet_storage *st, const char *path, int64_t size, inlet_rfile **out,
                             inlet_error *err) {
  objstore *s = (objstore *)st;
  *out = NULL;
  TRY(inlet_path_check(path, err));
  char *key = objstore_key_of(s, path, err);
  if (!key) return INLET_ENOMEM;
  if (size == -2) { /* unknown: ask (open_read) */
    int rc = objstore_head(s, key, &size, NULL, err);
    if (rc < 0) {
      inlet_free(key);
      return rc;
    }
  }
  objstore_rfile *f = inlet_calloc(1, sizeof *f);
  char *name = inlet_strdup(path);
  if (!f || !name) {
    inlet_free(f);
    inlet_free(name);
    inlet_free(key);
    return inlet_fail(err, INLET_ENOMEM, "out of memory");
  }
  f->base.ops = s->be->rfile_ops;
  f->base.name = name;
  f->base.size = size < 0 ? -1 : size;
  f->s = s;
  f->key = key;
  *out = &f->base;
  return 0;
}

int objstore_open_read(inlet_storage *st, const char *path, inlet_rfile **out, inlet_error *err) {
  return objstore_open_read_sized(st, path, -2, out, err);
}

int objstore_get_bytes(inlet_storage *st, const char *path, size_t limit, uint8_t **out,
                       size_t *len, inlet_error *err) {
  objstore *s = (objstore *)st;
  *out = NULL;
  *len = 0;
  TRY(inlet_path_check(path, err));
  char *key = objstore_key_of(s, path, err);
  if (!key) return INLET_ENOMEM;
  int rc = objstore_get(s, key, limit, out, len, err);
  inlet_free(key);
  return rc;
}

static int put_path(inlet_storage *st, const char *path, const void *data, size_t n,
                    bool conditional, inlet_error *err) {
  objstore *s = (objstore *)st;
  TRY(inlet_path_check(path, err));
  char *key = objstore_key_of(s, path, err);
  if (!key) return INLET_ENOMEM;
  int rc = objstore_put(s, key, data, n, conditional, err);
  inlet_free(key);
  return rc;
}

int objstore_put_bytes(inlet_storage *st, const char *path, const void *data, size_t n,
                       inlet_error *err) {
  return put_path(st, path, data, n, false, err);
}

int objstore_put_if_absent_bytes(inlet_storage *st, const char *path, const void *data, size_t n,
                                 inlet_error *err) {
  return put_path(st, path, data, n, true, err);
}

int objstore_remove(inlet_storage *st, const char *path, inlet_error *err) {
  objstore *s = (objstore *)st;
  TRY(inlet_path_check(path, err));
  char *key = objstore_key_of(s, path, err);
  if (!key) return INLET_ENOMEM;
  objstore_req q;
  int rc = objstore_delete_req(&q, s, key, err);
  if (rc == 0) {
    inlet_http_req *r = &q.http;
    rc = inlet_http_run(s->http, &r, 1, err);
  }
  if (rc == 0) rc = objstore_delete_check(&q, err);
  objstore_req_reset(&q);
  inlet_free(key);
  return rc;
}

int objstore_put_if_absent(inlet_storage *st, const char *tmp, const char *final,
                           inlet_error *err) {
  TRY(inlet_path_check(final, err));
  return inlet_objstore_publish_tmp(st, tmp, final, true, err);
}

int objstore_replace(inlet_storage *st, const char *tmp, const char *final, inlet_error *err) {
  TRY(inlet_path_check(final, err));
  return inlet_objstore_publish_tmp(st, tmp, final, false, err);
}

int objstore_stat(inlet_storage *st, const char *path, inlet_dirent *out, inlet_error *err) {
  objstore *s = (objstore *)st;
  memset(out, 0, sizeof *out);
  if (path && path[0]) TRY(inlet_path_check(path, err));
  const char *slash = path ? strrchr(path, '/') : NULL;
  out->name = inlet_strdup(slash ? slash + 1 : path ? path : "");
  if (!out->name) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  int rc = INLET_ENOTFOUND;
  if (path && path[0]) {
    char *key = objstore_key_of(s, path, err);
    inlet_error e = INLET_ERROR_INIT;
    bool have_key = key != NULL;
    rc = key ? objstore_head(s, key, &out->size, &out->mtime_ms, &e) : INLET_ENOMEM;
    inlet_free(key);
    if (rc != INLET_ENOTFOUND) {
      if (rc < 0) {
        /* key_of reported its own ENOMEM into err; the HEAD's errors are in e. */
        if (err && have_key) *err = e;
        inlet_free(out->name);
        out->name = NULL;
      }
      return rc;
    }
  }
  /* A "directory": some object below it. */
  inlet_list_options o = INLET_LIST_OPTIONS_INIT;
  o.limit = 1;
  inlet_dirent *e;
  size_t n;
  rc = st->ops->list_from(st, path, &o, &e, &n, err);
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

int objstore_nothing(inlet_storage *st, const char *dir, inlet_error *err) {
  (void)st;
  (void)dir;
  (void)err;
  return 0;
}
