/*
 * The HTTP client object-store backends share (http.c): libcurl's multi
 * interface with one connection cache, many requests in flight, timeouts,
 * and retries with capped exponential backoff and full jitter.
 *
 * Retries. A request is retried on transport failures (connect/send/receive
 * errors, resets, timeouts, stalled transfers) and on 5xx, 429 and 408
 * responses (S3 503 SlowDown, Azure 503 ServerBusy / 500 OperationTimedOut),
 * honouring Retry-After. Every request the backends send is safe to repeat:
 * reads, deletes and plain PUTs are idempotent, and a conditional create
 * (If-None-Match: *) can never overwrite on a retry because the condition
 * travels with every attempt. What a retry CAN do is report a lost race that
 * this very call won: the first attempt created the object but its response
 * was lost, and the retry sees 412. So a request records whether an earlier
 * attempt may have taken effect (inlet_http_req.maybe_applied), and the
 * backend must then check whether the object present is its own before it
 * reports INLET_EEXISTS (s3.c / azure.c compare the stored bytes).
 *
 * Secrets: requests are named in errors by method and path only, never by
 * the full URL (a SAS token lives in the query) or headers (signatures,
 * session tokens); nothing is logged.
 */
#ifndef INLET_STORAGE_HTTP_H
#define INLET_STORAGE_HTTP_H

#include <curl/curl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inlet/error.h"

typedef struct inlet_http inlet_http;
typedef struct inlet_http_req inlet_http_req;

typedef struct inlet_http_config {
  long connect_timeout_ms; /* TCP + TLS connect, per attempt */
  long stall_timeout_ms;   /* an attempt moving no byte for this long fails */
  long request_timeout_ms; /* one attempt of a request without a large body */
  int max_attempts;        /* attempts per request, >= 1 */
  long backoff_base_ms;    /* first retry waits up to this (full jitter) */
  long backoff_max_ms;     /* cap of the exponential backoff */
  int max_in_flight;       /* concurrent transfers */
} inlet_http_config;
#define INLET_HTTP_CONFIG_INIT                                                                     \
  { 10000, 30000, 120000, 8, 100, 10000, 16 }

/* Fills a request's headers for one attempt (called again before each
 * retry: signatures carry the time). Append to *headers with
 * curl_slist_append. */
typedef int (*inlet_http_sign_fn)(void *ctx, inlet_http_req *r, struct curl_slist **headers,
                                  inlet_error *err);

struct inlet_http_req {
  /* ---- set by the caller ---- */
  const char *method;  /* "GET", "PUT", "POST", "DELETE", "HEAD" */
  char *url;           /* owned; full URL (may hold a SAS query: never printed) */
  char *what;          /* owned; "PUT bucket/key" for messages: no query, no secrets */
  const uint8_t *body; /* not owned; request payload */
  size_t body_len;
  const char *const *extra_headers; /* not owned; "Name: value" lines, NULL-terminated */
  inlet_http_sign_fn sign;
  void *sign_ctx;
  /* Response body: into @p sink (exactly sink_cap bytes expected at most;
   * more is a failure) when set, else into resp (growing up to resp_limit). */
  uint8_t *sink;
  size_t sink_cap;
  size_t resp_limit; /* 0: 16 MiB */
  /* Send on a new connection. For conditional creates: libcurl silently
   * re-sends a request whose reused connection turned out dead, and such a
   * hidden second attempt would hide that the first may have taken effect
   * (see maybe_applied); on a fresh connection it never does that. */
  bool fresh_connection;

  /* ---- results ---- */
  long status;       /* last HTTP status, 0 if no response */
  uint8_t *resp;     /* owned; response body when no sink (NUL-terminated) */
  size_t resp_len;   /* bytes received (into sink or resp) */
  char etag[128];    /* ETag header, quotes kept */
  char ms_error[96]; /* x-ms-error-code header (Azure) */
  char last_modified[64];
  int64_t content_length; /* -1 if absent */
  int64_t range_total;    /* total size from Content-Range "bytes a-b/total", -1 */
  int64_t range_start;    /* a from Content-Range, -1 */
  int attempts;
  /* An attempt before the last may have taken effect at the store (its
   * response was lost, or it failed with a 5xx after being sent). */
  bool maybe_applied;
  int rc;            /* 0: got a final HTTP response (any status); < 0: gave up */
  inlet_error error; /* detail when rc < 0 */

  /* ---- private to http.c ---- */
  CURL *easy;
  struct curl_slist *hdrs;
  size_t upload_pos;
  int64_t not_before_ms; /* backoff: do not start before this time */
  long retry_after_ms;
  bool overflow;
  char curl_err[CURL_ERROR_SIZE];
};

/* Creates a client. @p cfg NULL: INLET_HTTP_CONFIG_INIT. */
int inlet_http_new(inlet_http **out, const inlet_http_config *cfg, inlet_error *err);
void inlet_http_free(inlet_http *c);

/* Initialises @p r for @p method on @p url (copied) named @p what (copied). */
int inlet_http_req_init(inlet_http_req *r, const char *method, const char *url, const char *what,
                        inlet_error *err);
/* Frees what the request owns; the struct itself is the caller's. */
void inlet_http_req_reset(inlet_http_req *r);

/* Runs @p n requests to completion, up to max_in_flight at a time, each
 * retried as the file comment says. Each request's rc/status tell its
 * outcome; the return is 0 unless the client itself failed (ENOMEM). */
int inlet_http_run(inlet_http *c, inlet_http_req **reqs, size_t n, inlet_error *err);

/* Milliseconds from a monotonic clock. */
int64_t inlet_http_now_ms(void);

/* True for statuses a request is retried on. */
bool inlet_http_status_retryable(long status);

#endif /* INLET_STORAGE_HTTP_H */
