/*
 * Hashes, encodings and AWS Signature Version 4 (sign.h).
 *
 * SigV4 (AWS General Reference, "Create a canonical request"): the canonical
 * request is method, URI-encoded path, the query sorted by encoded name
 * then value, lower-case header names sorted with values trimmed and inner
 * runs of spaces collapsed, the signed header list, and the payload hash.
 * The string to sign hashes it under the credential scope
 * date/region/service/aws4_request, and the key is derived by HMAC chain
 * from "AWS4" + secret. S3 encodes the path once (other services twice).
 */
#include "storage/sign.h"

#include <ctype.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdio.h>
#include <time.h>

#include "util/util.h"

void inlet_sha256(const void *data, size_t n, uint8_t out[32]) {
  unsigned int len = 32;
  EVP_Digest(data, n, out, &len, EVP_sha256(), NULL);
}

void inlet_md5(const void *data, size_t n, uint8_t out[16]) {
  unsigned int len = 16;
  EVP_Digest(data, n, out, &len, EVP_md5(), NULL);
}

void inlet_hex(const uint8_t *in, size_t n, char *out) {
  static const char digits[] = "0123456789abcdef";
  for (size_t i = 0; i < n; i++) {
    out[2 * i] = digits[in[i] >> 4];
    out[2 * i + 1] = digits[in[i] & 15];
  }
  out[2 * n] = 0;
}

void inlet_sha256_hex(const void *data, size_t n, char out[65]) {
  uint8_t d[32];
  inlet_sha256(data, n, d);
  inlet_hex(d, 32, out);
}

void inlet_hmac_sha256(const void *key, size_t klen, const void *data, size_t n, uint8_t out[32]) {
  unsigned int len = 32;
  HMAC(EVP_sha256(), key, (int)klen, data, n, out, &len);
}

int inlet_base64_encode(inlet_buf *b, const void *data, size_t n) {
  size_t need = 4 * ((n + 2) / 3) + 1;
  TRY(inlet_buf_reserve(b, need));
  int k = EVP_EncodeBlock(b->data + b->len, data, (int)n);
  b->len += (size_t)k;
  return 0;
}

int inlet_base64_decode(const char *s, uint8_t **out, size_t *len, inlet_error *err) {
  *out = NULL;
  *len = 0;
  size_t n = strlen(s);
  if (n % 4) return inlet_fail(err, INLET_EINVAL, "invalid base64: length %zu", n);
  uint8_t *buf = inlet_malloc(n / 4 * 3 + 1);
  if (!buf) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  int k = n ? EVP_DecodeBlock(buf, (const unsigned char *)s, (int)n) : 0;
  if (k < 0) {
    inlet_free(buf);
    return inlet_fail(err, INLET_EINVAL, "invalid base64");
  }
  /* EVP_DecodeBlock counts padding bytes as output. */
  if (n >= 1 && s[n - 1] == '=') k--;
  if (n >= 2 && s[n - 2] == '=') k--;
  *out = buf;
  *len = (size_t)k;
  return 0;
}

int inlet_uri_encode(inlet_buf *b, const char *s, size_t n, bool keep_slash) {
  static const char hex[] = "0123456789ABCDEF";
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || (keep_slash && c == '/')) {
      inlet_buf_push(b, c);
    } else {
      char e[3] = {'%', hex[c >> 4], hex[c & 15]};
      inlet_buf_append(b, e, 3);
    }
  }
  return inlet_buf_status(b);
}

void inlet_amz_date(int64_t unix_seconds, char out[17]) {
  time_t t = (time_t)unix_seconds;
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(out, 17, "%Y%m%dT%H%M%SZ", &tm);
}

/* ---- SigV4 ---------------------------------------------------------------------- */

typedef struct enc_pair {
  char *k, *v; /* owned */
} enc_pair;

static int cmp_pair(const void *a, const void *b) {
  const enc_pair *x = a, *y = b;
  int c = strcmp(x->k, y->k);
  return c ? c : strcmp(x->v, y->v);
}

typedef struct hdr {
  char *name;  /* owned; lower case */
  char *value; /* owned; trimmed, inner spaces collapsed */
} hdr;

static int cmp_hdr(const void *a, const void *b) {
  return strcmp(((const hdr *)a)->name, ((const hdr *)b)->name);
}

static char *encode_dup(const char *s, bool keep_slash) {
  inlet_buf b = INLET_BUF_INIT;
  inlet_uri_encode(&b, s, strlen(s), keep_slash);
  if (inlet_buf_terminate(&b) < 0) {
    inlet_buf_reset(&b);
    return NULL;
  }
  return (char *)inlet_buf_detach(&b, NULL);
}

static char *canonical_value(const char *v) {
  size_t n = strlen(v);
  char *o = inlet_malloc(n + 1);
  if (!o) return NULL;
  while (*v == ' ' || *v == '\t')
    v++;
  size_t k = 0;
  bool space = false;
  for (; *v; v++) {
    if (*v == ' ' || *v == '\t') {
      space = true;
      continue;
    }
    if (space && k) o[k++] = ' ';
    space = false;
    o[k++] = *v;
  }
  o[k] = 0;
  return o;
}

int inlet_sigv4_authorization(const inlet_sigv4_request *r, inlet_buf *out, inlet_buf *canonical,
                              inlet_error *err) {
  int rc = 0;
  enc_pair *q = inlet_calloc(r->n_query + 1, sizeof *q);
  hdr *h = inlet_calloc(r->n_headers + 1, sizeof *h);
  inlet_buf c = INLET_BUF_INIT, sh = INLET_BUF_INIT, sts = INLET_BUF_INIT;
  FAIL_GOTO(!q || !h, err, INLET_ENOMEM, "out of memory signing a request");
  for (size_t i = 0; i < r->n_query; i++) {
    q[i].k = encode_dup(r->query[i].key, false);
    q[i].v = encode_dup(r->query[i].value ? r->query[i].value : "", false);
    FAIL_GOTO(!q[i].k || !q[i].v, err, INLET_ENOMEM, "out of memory signing a request");
  }
  qsort(q, r->n_query, sizeof *q, cmp_pair);
  for (size_t i = 0; i < r->n_headers; i++) {
    h[i].name = inlet_strdup(r->headers[i].key);
    h[i].value = canonical_value(r->headers[i].value);
    FAIL_GOTO(!h[i].name || !h[i].value, err, INLET_ENOMEM, "out of memory signing a request");
    for (char *p = h[i].name; *p; p++)
      *p = (char)tolower((unsigned char)*p);
  }
  qsort(h, r->n_headers, sizeof *h, cmp_hdr);

  inlet_buf_puts(&c, r->method);
  inlet_buf_push(&c, '\n');
  inlet_uri_encode(&c, r->path, strlen(r->path), true);
  inlet_buf_push(&c, '\n');
  for (size_t i = 0; i < r->n_query; i++)
    inlet_buf_appendf(&c, "%s%s=%s", i ? "&" : "", q[i].k, q[i].v);
  inlet_buf_push(&c, '\n');
  for (size_t i = 0; i < r->n_headers; i++) {
    inlet_buf_appendf(&c, "%s:%s\n", h[i].name, h[i].value);
    inlet_buf_appendf(&sh, "%s%s", i ? ";" : "", h[i].name);
  }
  inlet_buf_terminate(&sh);
  inlet_buf_appendf(&c, "\n%s\n%s", sh.data ? (char *)sh.data : "", r->payload_hash);
  FAIL_GOTO(inlet_buf_status(&c) || inlet_buf_status(&sh), err, INLET_ENOMEM,
            "out of memory signing a request");

  char date[9];
  snprintf(date, sizeof date, "%.8s", r->amz_date);
  char creq_hash[65];
  inlet_sha256_hex(c.data, c.len, creq_hash);
  inlet_buf_appendf(&sts, "AWS4-HMAC-SHA256\n%s\n%s/%s/%s/aws4_request\n%s", r->amz_date, date,
                    r->region, r->service, creq_hash);
  FAIL_GOTO(inlet_buf_status(&sts), err, INLET_ENOMEM, "out of memory signing a request");

  uint8_t k1[32], k2[32], k3[32], k4[32], sig[32];
  size_t slen = strlen(r->secret_key);
  char *kinit = inlet_malloc(slen + 5);
  FAIL_GOTO(!kinit, err, INLET_ENOMEM, "out of memory signing a request");
  memcpy(kinit, "AWS4", 4);
  memcpy(kinit + 4, r->secret_key, slen + 1);
  inlet_hmac_sha256(kinit, slen + 4, date, strlen(date), k1);
  memset(kinit, 0, slen + 4); /* the secret does not outlive its use */
  inlet_free(kinit);
  inlet_hmac_sha256(k1, 32, r->region, strlen(r->region), k2);
  inlet_hmac_sha256(k2, 32, r->service, strlen(r->service), k3);
  inlet_hmac_sha256(k3, 32, "aws4_request", 12, k4);
  inlet_hmac_sha256(k4, 32, sts.data, sts.len, sig);
  char sighex[65];
  inlet_hex(sig, 32, sighex);
  inlet_buf_appendf(out,
                    "AWS4-HMAC-SHA256 Credential=%s/%s/%s/%s/aws4_request, SignedHeaders=%s, "
                    "Signature=%s",
                    r->access_key, date, r->region, r->service, sh.data ? (char *)sh.data : "",
                    sighex);
  FAIL_GOTO(inlet_buf_status(out) || inlet_buf_terminate(out), err, INLET_ENOMEM,
            "out of memory signing a request");
  if (canonical) {
    inlet_buf_append(canonical, c.data, c.len);
    FAIL_GOTO(inlet_buf_terminate(canonical), err, INLET_ENOMEM, "out of memory");
  }
done:
  if (q)
    for (size_t i = 0; i < r->n_query; i++) {
      inlet_free(q[i].k);
      inlet_free(q[i].v);
    }
  if (h)
    for (size_t i = 0; i < r->n_headers; i++) {
      inlet_free(h[i].name);
      inlet_free(h[i].value);
    }
  inlet_free(q);
  inlet_free(h);
  inlet_buf_reset(&c);
  inlet_buf_reset(&sh);
  inlet_buf_reset(&sts);
  return rc;
}
