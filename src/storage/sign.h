/*
 * Request signing for the object-store backends: SHA-256, HMAC-SHA256 and
 * base64 (OpenSSL libcrypto), RFC 3986 percent-encoding as AWS specifies it,
 * and AWS Signature Version 4 (sigv4.c; AWS General Reference "Signature
 * Version 4 signing process", checked against AWS's published test suite in
 * tests/unit/storage/test_objstore_sign.c). Azure Shared Key signing lives
 * with its backend (azure.c).
 */
#ifndef INLET_STORAGE_SIGN_H
#define INLET_STORAGE_SIGN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inlet/error.h"
#include "util/buf.h"

void inlet_sha256(const void *data, size_t n, uint8_t out[32]);
/* Lower-case hex SHA-256 of @p data into out (65 bytes with the NUL). */
void inlet_sha256_hex(const void *data, size_t n, char out[65]);
void inlet_hmac_sha256(const void *key, size_t klen, const void *data, size_t n, uint8_t out[32]);
void inlet_md5(const void *data, size_t n, uint8_t out[16]);
void inlet_hex(const uint8_t *in, size_t n, char *out); /* 2n + 1 bytes */
/* Standard base64 with padding into @p b. */
int inlet_base64_encode(inlet_buf *b, const void *data, size_t n);
/* Decodes standard base64 (padding required); INLET_EINVAL on bad input.
 * *out is owned by the caller (inlet_free). */
int inlet_base64_decode(const char *s, uint8_t **out, size_t *len, inlet_error *err);
/* Percent-encodes @p s (n bytes) into @p b, leaving A-Z a-z 0-9 - . _ ~
 * (and '/' when @p keep_slash) as they are; everything else is %XX with
 * upper-case hex (AWS SigV4 "UriEncode"; also right for Azure URLs). */
int inlet_uri_encode(inlet_buf *b, const char *s, size_t n, bool keep_slash);

/* A name/value pair (not owned). */
typedef struct inlet_kv {
  const char *key;
  const char *value;
} inlet_kv;

typedef struct inlet_sigv4_request {
  const char *method;
  const char *path;      /* decoded, starts with '/'; encoded once (S3 rules) */
  const inlet_kv *query; /* decoded names and values, any order */
  size_t n_query;
  const inlet_kv *headers; /* every header to sign, "host" included; any case/order */
  size_t n_headers;
  const char *payload_hash; /* hex SHA-256 of the body, or "UNSIGNED-PAYLOAD" */
  const char *amz_date;     /* "20150830T123600Z" */
  const char *region;
  const char *service;
  const char *access_key;
  const char *secret_key;
} inlet_sigv4_request;

/* Computes the Authorization header value ("AWS4-HMAC-SHA256 Credential=
 * ..., SignedHeaders=..., Signature=...") into @p out. When @p canonical is
 * non-NULL it receives the canonical request (for tests). */
int inlet_sigv4_authorization(const inlet_sigv4_request *r, inlet_buf *out, inlet_buf *canonical,
                              inlet_error *err);
/* Formats @p unix_seconds as "YYYYMMDDTHHMMSSZ". */
void inlet_amz_date(int64_t unix_seconds, char out[17]);

#endif /* INLET_STORAGE_SIGN_H */
