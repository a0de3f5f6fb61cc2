/*
 * HTTP client for the object-store backends (http.h) on libcurl's multi
 * interface: one multi handle per client holds the connection cache, so
 * every request reuses open connections; easy handles are pooled.
 *
 * Backoff is capped exponential with full jitter (delay drawn uniformly
 * from [0, min(max, base * 2^(attempt-1))]), the scheme AWS recommends for
 * throttling, raised to a Retry-After the server sent.
 */
#include "storage/http.h"

#include <ctype.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"

struct inlet_http {
  inlet_http_config cfg;
  CURLM *multi; /* owned */
  CURL **pool;  /* owned; idle easy handles */
  size_t n_pool, cap_pool;
  uint64_t rng;
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc;
static void curl_init(void) {
  curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

int64_t inlet_http_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int inlet_http_new(inlet_http **out, const inlet_http_config *cfg, inlet_error *err) {
  *out = NULL;
  pthread_once(&curl_once, curl_init);
  if (curl_init_rc != CURLE_OK)
    return inlet_fail(err, INLET_EIO, "libcurl initialisation failed: %s",
                      curl_easy_strerror(curl_init_rc));
  inlet_http *c = inlet_calloc(1, sizeof *c);
  if (!c) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  static const inlet_http_config defaults = INLET_HTTP_CONFIG_INIT;
  c->cfg = cfg ? *cfg : defaults;
  if (c->cfg.max_attempts < 1) c->cfg.max_attempts = 1;
  if (c->cfg.max_in_flight < 1) c->cfg.max_in_flight = 1;
  c->multi = curl_multi_init();
  if (!c->multi) {
    inlet_free(c);
    return inlet_fail(err, INLET_ENOMEM, "out of memory creating an HTTP client");
  }
  curl_multi_setopt(c->multi, CURLMOPT_MAX_HOST_CONNECTIONS, (long)c->cfg.max_in_flight);
  if (getrandom(&c->rng, sizeof c->rng, 0) != (ssize_t)sizeof c->rng)
    c->rng = (uint64_t)inlet_http_now_ms() ^ (uint64_t)getpid() << 32;
  c->rng |= 1;
  *out = c;
  return 0;
}

void inlet_http_free(inlet_http *c) {
  if (!c) return;
  for (size_t i = 0; i < c->n_pool; i++)
    curl_easy_cleanup(c->pool[i]);
  inlet_free(c->pool);
  curl_multi_cleanup(c->multi);
  inlet_free(c);
}

int inlet_http_req_init(inlet_http_req *r, const char *method, const char *url, const char *what,
                        inlet_error *err) {
  memset(r, 0, sizeof *r);
  r->method = method;
  r->url = inlet_strdup(url);
  r->what = inlet_strdup(what);
  r->content_length = -1;
  r->range_total = -1;
  r->range_start = -1;
  if (!r->url || !r->what) {
    inlet_http_req_reset(r);
    return inlet_fail(err, INLET_ENOMEM, "out of memory");
  }
  return 0;
}

void inlet_http_req_reset(inlet_http_req *r) {
  if (!r) return;
  inlet_free(r->url);
  inlet_free(r->what);
  inlet_free(r->resp);
  if (r->hdrs) curl_slist_free_all(r->hdrs);
  memset(r, 0, sizeof *r);
}

bool inlet_http_status_retryable(long status) {
  return status == 408 || status == 429 ||
         (status >= 500 && status <= 599 && status != 501 && status != 505);
}

/* ---- callbacks ---------------------------------------------------------------- */

static size_t on_write(char *data, size_t size, size_t nmemb, void *ud) {
  inlet_http_req *r = ud;
  size_t n = size * nmemb;
  long status = 0;
  if (r->sink && r->easy) curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &status);
  /* An error answer (a 500 or 503 with its XML body, say) is not the data a
   * sink waits for: it goes to r->resp, so it is retried or reported, not
   * taken for an oversized response. */
  if (r->sink && status >= 200 && status < 300) {
    if (n > r->sink_cap - r->resp_len) {
      r->overflow = true;
      return 0; /* aborts the transfer */
    }
    memcpy(r->sink + r->resp_len, data, n);
    r->resp_len += n;
    return n;
  }
  size_t limit = r->sink ? (size_t)64 << 10 : r->resp_limit ? r->resp_limit : (size_t)16 << 20;
  if (n > limit - r->resp_len) {
    r->overflow = true;
    return 0;
  }
  uint8_t *nb = inlet_realloc(r->resp, r->resp_len + n + 1);
  if (!nb) return 0;
  r->resp = nb;
  memcpy(r->resp + r->resp_len, data, n);
  r->resp_len += n;
  r->resp[r->resp_len] = 0;
  return n;
}

static size_t on_read(char *buf, size_t size, size_t nmemb, void *ud) {
  inlet_http_req *r = ud;
  size_t n = size * nmemb, left = r->body_len - r->upload_pos;
  if (n > left) n = left;
  if (n) memcpy(buf, r->body + r->upload_pos, n);
  r->upload_pos += n;
  return n;
}

static int on_seek(void *ud, curl_off_t off, int origin) {
  inlet_http_req *r = ud;
  if (origin != SEEK_SET || off < 0 || (uint64_t)off > r->body_len) return CURL_SEEKFUNC_FAIL;
  r->upload_pos = (size_t)off;
  return CURL_SEEKFUNC_OK;
}

/* Copies header value (trimmed) into dst. */
static void header_value(const char *v, size_t len, char *dst, size_t cap) {
  while (len && (*v == ' ' || *v == '\t')) {
    v++;
    len--;
  }
  while (len && (v[len - 1] == '\r' || v[len - 1] == '\n' || v[len - 1] == ' '))
    len--;
  if (len >= cap) len = cap - 1;
  memcpy(dst, v, len);
  dst[len] = 0;
}

static bool header_is(const char *line, size_t len, const char *name, const char **val,
                      size_t *vlen) {
  size_t nl = strlen(name);
  if (len <= nl || line[nl] != ':' || strncasecmp(line, name, nl) != 0) return false;
  *val = line + nl + 1;
  *vlen = len - nl - 1;
  return true;
}

static size_t on_header(char *line, size_t size, size_t nmemb, void *ud) {
  inlet_http_req *r = ud;
  size_t n = size * nmemb;
  const char *v;
  size_t vl;
  char tmp[128];
  if (n >= 5 && memcmp(line, "HTTP/", 5) == 0) {
    /* A new response (after a 100 Continue, say): forget earlier headers. */
    r->etag[0] = r->ms_error[0] = r->last_modified[0] = 0;
    r->content_length = r->range_total = r->range_start = -1;
    r->retry_after_ms = 0;
  } else if (header_is(line, n, "etag", &v, &vl)) {
    header_value(v, vl, r->etag, sizeof r->etag);
  } else if (header_is(line, n, "x-ms-error-code", &v, &vl)) {
    header_value(v, vl, r->ms_error, sizeof r->ms_error);
  } else if (header_is(line, n, "last-modified", &v, &vl)) {
    header_value(v, vl, r->last_modified, sizeof r->last_modified);
  } else if (header_is(line, n, "content-length", &v, &vl)) {
    header_value(v, vl, tmp, sizeof tmp);
    char *end;
    long long x = strtoll(tmp, &end, 10);
    if (end != tmp && *end == 0 && x >= 0) r->content_length = x;
  } else if (header_is(line, n, "content-range", &v, &vl)) {
    header_value(v, vl, tmp, sizeof tmp);
    const char *sp = strchr(tmp, ' ');
    if (sp && sp[1] >= '0' && sp[1] <= '9') r->range_start = strtoll(sp + 1, NULL, 10);
    const char *slash = strrchr(tmp, '/');
    if (slash && slash[1] != '*') {
      char *end;
      long long x = strtoll(slash + 1, &end, 10);
      if (end != slash + 1 && *end == 0 && x >= 0) r->range_total = x;
    }
  } else if (header_is(line, n, "retry-after", &v, &vl)) {
    header_value(v, vl, tmp, sizeof tmp);
    char *end;
    long s = strtol(tmp, &end, 10);
    if (end != tmp && *end == 0 && s > 0 && s < 3600) r->retry_after_ms = s * 1000;
  }
  return n;
}

/* ---- one attempt -------------------------------------------------------------- */

static CURL *take_easy(inlet_http *c) {
  if (c->n_pool) {
    CURL *e = c->pool[--c->n_pool];
    curl_easy_reset(e);
    return e;
  }
  return curl_easy_init();
}

static void give_easy(inlet_http *c, CURL *e) {
  if (c->n_pool == c->cap_pool) {
    size_t ncap = c->cap_pool ? c->cap_pool * 2 : 16;
    CURL **np = inlet_realloc(c->pool, ncap * sizeof *np);
    if (!np) {
      curl_easy_cleanup(e);
      return;
    }
    c->pool = np;
    c->cap_pool = ncap;
  }
  c->pool[c->n_pool++] = e;
}

static void clear_response(inlet_http_req *r) {
  inlet_free(r->resp);
  r->resp = NULL;
  r->resp_len = 0;
  r->status = 0;
  r->overflow = false;
  r->upload_pos = 0;
  r->etag[0] = r->ms_error[0] = r->last_modified[0] = 0;
  r->content_length = r->range_total = r->range_start = -1;
  r->retry_after_ms = 0;
  r->curl_err[0] = 0;
  if (r->hdrs) {
    curl_slist_free_all(r->hdrs);
    r->hdrs = NULL;
  }
}

static int append_header(struct curl_slist **list, const char *line, inlet_error *err) {
  struct curl_slist *n = curl_slist_append(*list, line);
  if (!n) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  *list = n;
  return 0;
}

static int start_attempt(inlet_http *c, inlet_http_req *r, inlet_error *err) {
  clear_response(r);
  r->attempts++;
  if (r->sign) TRY(r->sign(r->sign_ctx, r, &r->hdrs, err));
  if (r->extra_headers)
    for (const char *const *h = r->extra_headers; *h; h++)
      TRY(append_header(&r->hdrs, *h, err));
  /* No 100-continue round trip; no default content type on POST. */
  TRY(append_header(&r->hdrs, "Expect:", err));
  CURL *e = take_easy(c);
  if (!e) return inlet_fail(err, INLET_ENOMEM, "out of memory creating an HTTP request");
  r->easy = e;
  curl_easy_setopt(e, CURLOPT_URL, r->url);
  curl_easy_setopt(e, CURLOPT_PRIVATE, r);
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, r->curl_err);
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, r->hdrs);
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, r);
  curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(e, CURLOPT_HEADERDATA, r);
  curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, c->cfg.connect_timeout_ms);
  long stall_s = c->cfg.stall_timeout_ms / 1000;
  curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, stall_s < 1 ? 1L : stall_s);
  /* Large bodies get time in proportion: at least 1 MB/s. */
  long timeout = c->cfg.request_timeout_ms + (long)((r->body_len + r->sink_cap) / 1000);
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, timeout);
  curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
  if (r->fresh_connection) curl_easy_setopt(e, CURLOPT_FRESH_CONNECT, 1L);
  if (!strcmp(r->method, "GET")) {
    curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
  } else if (!strcmp(r->method, "HEAD")) {
    curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
  } else if (!strcmp(r->method, "PUT")) {
    curl_easy_setopt(e, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(e, CURLOPT_READFUNCTION, on_read);
    curl_easy_setopt(e, CURLOPT_READDATA, r);
    curl_easy_setopt(e, CURLOPT_SEEKFUNCTION, on_seek);
    curl_easy_setopt(e, CURLOPT_SEEKDATA, r);
    curl_easy_setopt(e, CURLOPT_INFILESIZE_LARGE, (curl_off_t)r->body_len);
  } else if (!strcmp(r->method, "POST")) {
    curl_easy_setopt(e, CURLOPT_POST, 1L);
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, r->body ? (const char *)r->body : "");
    curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->body_len);
  } else {
    curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, r->method);
  }
  CURLMcode mc = curl_multi_add_handle(c->multi, e);
  if (mc != CURLM_OK) {
    r->easy = NULL;
    give_easy(c, e);
    return inlet_fail(err, INLET_EIO, "%s: %s", r->what, curl_multi_strerror(mc));
  }
  return 0;
}

static bool curl_retryable(CURLcode rc) {
  switch (rc) {
  case CURLE_COULDNT_CONNECT:
  case CURLE_OPERATION_TIMEDOUT:
  case CURLE_SEND_ERROR:
  case CURLE_RECV_ERROR:
  case CURLE_GOT_NOTHING:
  case CURLE_PARTIAL_FILE:
  case CURLE_SSL_CONNECT_ERROR:
  case CURLE_HTTP2:
  case CURLE_HTTP2_STREAM:
  case CURLE_COULDNT_RESOLVE_HOST: return true;
  default: return false;
  }
}

static bool is_read_only(const inlet_http_req *r) {
  return !strcmp(r->method, "GET") || !strcmp(r->method, "HEAD");
}

static long backoff_ms(inlet_http *c, const inlet_http_req *r) {
  long cap = c->cfg.backoff_base_ms;
  for (int i = 1; i < r->attempts && cap < c->cfg.backoff_max_ms; i++)
    cap *= 2;
  if (cap > c->cfg.backoff_max_ms) cap = c->cfg.backoff_max_ms;
  c->rng ^= c->rng << 13;
  c->rng ^= c->rng >> 7;
  c->rng ^= c->rng << 17;
  long d = cap > 0 ? (long)(c->rng % (uint64_t)(cap + 1)) : 0;
  if (r->retry_after_ms > d)
    d = r->retry_after_ms < c->cfg.backoff_max_ms ? r->retry_after_ms : c->cfg.backoff_max_ms;
  return d < 1 ? 1 : d;
}

/* Decides after an attempt: returns true to retry. */
static bool finish_attempt(inlet_http *c, inlet_http_req *r, CURLcode res) {
  curl_multi_remove_handle(c->multi, r->easy);
  long status = 0;
  curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &status);
  give_easy(c, r->easy);
  r->easy = NULL;
  r->status = status;
  bool can_retry = r->attempts < c->cfg.max_attempts;
  if (res == CURLE_OK) {
    r->status = status;
    if (inlet_http_status_retryable(status) && can_retry) {
      if (!is_read_only(r) && status >= 500) r->maybe_applied = true;
      return true;
    }
    r->rc = 0;
    return false;
  }
  if (r->overflow) {
    r->rc = inlet_fail(&r->error, INLET_EIO, "%s: response larger than the %zu bytes expected",
                       r->what, r->sink ? r->sink_cap : r->resp_limit);
    return false;
  }
  if (curl_retryable(res) && can_retry) {
    if (!is_read_only(r) && res != CURLE_COULDNT_CONNECT && res != CURLE_COULDNT_RESOLVE_HOST)
      r->maybe_applied = true;
    return true;
  }
  r->rc = inlet_fail(&r->error, INLET_EIO, "%s: %s%s%s (after %d attempt%s)", r->what,
                     curl_easy_strerror(res), r->curl_err[0] ? ": " : "", r->curl_err, r->attempts,
                     r->attempts == 1 ? "" : "s");
  return false;
}

int inlet_http_run(inlet_http *c, inlet_http_req **reqs, size_t n, inlet_error *err) {
  enum { WAITING, ACTIVE, DONE };
  uint8_t *state = inlet_calloc(n ? n : 1, 1);
  if (!state) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  for (size_t i = 0; i < n; i++) {
    reqs[i]->attempts = 0;
    reqs[i]->maybe_applied = false;
    reqs[i]->not_before_ms = 0;
    reqs[i]->rc = 0;
  }
  size_t done = 0, active = 0;
  int rc = 0;
  while (done < n) {
    int64_t now = inlet_http_now_ms();
    int64_t next_wake = -1;
    for (size_t i = 0; i < n && active < (size_t)c->cfg.max_in_flight; i++) {
      inlet_http_req *r = reqs[i];
      if (state[i] != WAITING) continue;
      if (r->not_before_ms > now) {
        if (next_wake < 0 || r->not_before_ms < next_wake) next_wake = r->not_before_ms;
        continue;
      }
      inlet_error e = INLET_ERROR_INIT;
      int src = start_attempt(c, r, &e);
      if (src < 0) {
        if (src == INLET_ENOMEM) {
          rc = inlet_fail(err, src, "%s", e.message);
          goto done;
        }
        r->rc = src;
        r->error = e;
        state[i] = DONE;
        done++;
        continue;
      }
      state[i] = ACTIVE;
      active++;
    }
    if (active) {
      int running;
      curl_multi_perform(c->multi, &running);
      CURLMsg *m;
      int left;
      while ((m = curl_multi_info_read(c->multi, &left))) {
        if (m->msg != CURLMSG_DONE) continue;
        inlet_http_req *r = NULL;
        curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&r);
        CURLcode res = m->data.result;
        size_t i = 0;
        while (i < n && reqs[i] != r)
          i++;
        active--;
        if (finish_attempt(c, r, res)) {
          r->not_before_ms = inlet_http_now_ms() + backoff_ms(c, r);
          state[i] = WAITING;
        } else {
          state[i] = DONE;
          done++;
        }
      }
      if (done < n && active) {
        long wait = 1000;
        if (next_wake >= 0) {
          int64_t d = next_wake - inlet_http_now_ms();
          if (d < wait) wait = d < 0 ? 0 : (long)d;
        }
        curl_multi_poll(c->multi, NULL, 0, (int)wait, NULL);
      }
    } else if (done < n) {
      /* Every remaining request is backing off. */
      int64_t soonest = -1;
      for (size_t i = 0; i < n; i++)
        if (state[i] == WAITING && (soonest < 0 || reqs[i]->not_before_ms < soonest))
          soonest = reqs[i]->not_before_ms;
      int64_t d = soonest - inlet_http_now_ms();
      if (d > 0) {
        struct timespec ts = {(time_t)(d / 1000), (long)(d % 1000) * 1000000L};
        nanosleep(&ts, NULL);
      }
    }
  }
done:
  for (size_t i = 0; i < n; i++) {
    if (state[i] == ACTIVE && reqs[i]->easy) {
      curl_multi_remove_handle(c->multi, reqs[i]->easy);
      give_easy(c, reqs[i]->easy);
      reqs[i]->easy = NULL;
    }
  }
  inlet_free(state);
  return rc;
}
