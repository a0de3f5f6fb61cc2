/*
 * Redis Streams source (hiredis, XREAD): entries after the position recorded
 * in the table, one record per entry. Position = entry id (milliseconds,
 * sequence); the source time of a record is its id's milliseconds, which
 * gives the source lag.
 *
 * Record text: the value of the entry's field "data" (or "json", "payload"),
 * else a JSON object built from all field/value pairs (values as strings).
 *
 * XREAD COUNT 1000 [BLOCK ms] STREAMS key <last id>; with --once the read
 * does not block and the first empty reply ends the source. Without --once a
 * lost connection is retried (the position is in memory; nothing is lost);
 * with --once it is an error. Redis commands:
 * https://redis.io/commands/xread/.
 */
#include <errno.h>
#include <hiredis/hiredis.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "stream/stream.h"
#include "util/util.h"

#define XREAD_COUNT 1000

typedef struct redis_src {
  stream_source base;
  stream_source_options o;
  redisContext *c;   /* owned */
  char host[256];
  int port;
  char key[512];
  uint64_t last_ms, last_seq; /* last id handed out */
  redisReply *reply; /* owned: the current XREAD reply */
  redisReply *entries; /* borrowed from reply */
  size_t next_entry;
  inlet_buf rec;     /* built record text */
} redis_src;

int stream_redis_parse_url(char *host, size_t host_cap, int *port, char *key, size_t key_cap,
                           const char *url, inlet_error *err) {
  FAIL_IF(strncmp(url, "redis://", 8) != 0, err, INLET_EINVAL, "not a redis URL: \"%s\"", url);
  const char *h = url + 8, *slash = strchr(h, '/');
  FAIL_IF(!slash || !slash[1], err, INLET_EINVAL,
          "redis source \"%s\" names no stream (redis://HOST:PORT/STREAM)", url);
  const char *colon = memchr(h, ':', (size_t)(slash - h));
  size_t hl = (size_t)((colon ? colon : slash) - h);
  FAIL_IF(hl == 0 || hl >= host_cap, err, INLET_EINVAL, "bad host in \"%s\"", url);
  memcpy(host, h, hl);
  host[hl] = '\0';
  *port = 6379;
  if (colon) {
    char *end;
    long p = strtol(colon + 1, &end, 10);
    FAIL_IF(end != slash || p <= 0 || p > 65535, err, INLET_EINVAL, "bad port in \"%s\"", url);
    *port = (int)p;
  }
  FAIL_IF(strlen(slash + 1) >= key_cap, err, INLET_EINVAL, "stream name too long in \"%s\"", url);
  snprintf(key, key_cap, "%s", slash + 1);
  return 0;
}

static void nap(int64_t ms) {
  if (ms > 1000) ms = 1000;
  if (ms < 10) ms = 10;
  struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static void drop_reply(redis_src *r) {
  if (r->reply) freeReplyObject(r->reply);
  r->reply = NULL;
  r->entries = NULL;
  r->next_entry = 0;
}

static int connect_redis(redis_src *r, inlet_error *err) {
  if (r->c && !r->c->err) return 0;
  if (r->c) redisFree(r->c);
  struct timeval tv = {5, 0};
  r->c = redisConnectWithTimeout(r->host, r->port, tv);
  if (!r->c || r->c->err) {
    int rc = inlet_fail(err, INLET_EIO, "cannot connect to redis %s:%d: %s", r->host, r->port,
                        r->c ? r->c->errstr : "out of memory");
    if (r->c) redisFree(r->c);
    r->c = NULL;
    return rc;
  }
  return 0;
}

static bool parse_id(const char *s, uint64_t *ms, uint64_t *seq) {
  char *end;
  errno = 0;
  unsigned long long a = strtoull(s, &end, 10);
  if (errno || *end != '-') return false;
  unsigned long long b = strtoull(end + 1, &end, 10);
  if (errno || *end) return false;
  *ms = a;
  *seq = b;
  return true;
}

static void json_str(inlet_buf *b, const char *s, size_t n) {
  inlet_buf_push(b, '"');
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') {
      inlet_buf_push(b, '\\');
      inlet_buf_push(b, c);
    } else if (c < 0x20) {
      inlet_buf_appendf(b, "\\u%04x", c);
    } else {
      inlet_buf_push(b, c);
    }
  }
  inlet_buf_push(b, '"');
}

/* Builds the record of entry [id, [f1, v1, ...]]. */
static int entry_record(redis_src *r, const redisReply *e, stream_record *rec, inlet_error *err) {
  FAIL_IF(e->type != REDIS_REPLY_ARRAY || e->elements != 2 ||
              e->element[0]->type != REDIS_REPLY_STRING,
          err, INLET_ECORRUPT, "redis stream %s: malformed XREAD entry", r->key);
  uint64_t ms, seq;
  FAIL_IF(!parse_id(e->element[0]->str, &ms, &seq), err, INLET_ECORRUPT,
          "redis stream %s: bad entry id \"%s\"", r->key, e->element[0]->str);
  const redisReply *kv = e->element[1];
  memset(rec, 0, sizeof *rec);
  const char *data = NULL;
  size_t len = 0;
  if (kv->type == REDIS_REPLY_ARRAY) {
    for (size_t i = 0; i + 1 < kv->elements; i += 2) {
      const redisReply *k = kv->element[i], *v = kv->element[i + 1];
      if (k->type != REDIS_REPLY_STRING || v->type != REDIS_REPLY_STRING) continue;
      if (!strcmp(k->str, "data") || !strcmp(k->str, "json") || !strcmp(k->str, "payload")) {
        data = v->str;
        len = v->len;
        break;
      }
    }
    if (!data) {
      inlet_buf_clear(&r->rec);
      inlet_buf_push(&r->rec, '{');
      for (size_t i = 0; i + 1 < kv->elements; i += 2) {
        const redisReply *k = kv->element[i], *v = kv->element[i + 1];
        if (k->type != REDIS_REPLY_STRING || v->type != REDIS_REPLY_STRING) continue;
        if (r->rec.len > 1) inlet_buf_push(&r->rec, ',');
        json_str(&r->rec, k->str, k->len);
        inlet_buf_push(&r->rec, ':');
        json_str(&r->rec, v->str, v->len);
      }
      inlet_buf_push(&r->rec, '}');
      if (inlet_buf_status(&r->rec)) return inlet_fail(err, INLET_ENOMEM, "out of memory");
      data = (const char *)r->rec.data;
      len = r->rec.len;
    }
  }
  rec->data = data ? data : "";
  rec->len = len;
  rec->bytes = (int64_t)len;
  rec->offset = -1;
  rec->time_ms = (int64_t)ms;
  rec->pos.valid = true;
  rec->pos.p[0] = (int64_t)(ms & INT64_MAX);
  rec->pos.p[1] = (int64_t)(seq & INT64_MAX);
  rec->oversize = (int64_t)len > r->o.max_record_bytes;
  if (rec->oversize) rec->len = 256;
  r->last_ms = ms;
  r->last_seq = seq;
  return STREAM_RECORD;
}

static int redis_next(stream_source *s, stream_record *rec, int64_t wait_ms, inlet_error *err) {
  redis_src *r = (redis_src *)s;
  for (;;) {
    if (r->entries && r->next_entry < r->entries->elements)
      return entry_record(r, r->entries->element[r->next_entry++], rec, err);
    drop_reply(r);
    int crc = connect_redis(r, err);
    if (crc < 0) {
      if (r->o.once) return crc;
      /* A long-running reader outlives a Redis restart: retry quietly. */
      nap(wait_ms);
      return STREAM_NONE;
    }
    char id[64];
    snprintf(id, sizeof id, "%llu-%llu", (unsigned long long)r->last_ms,
             (unsigned long long)r->last_seq);
    long long block = wait_ms < 1 ? 1 : wait_ms;
    redisReply *rep;
    if (r->o.once)
      rep = redisCommand(r->c, "XREAD COUNT %d STREAMS %s %s", XREAD_COUNT, r->key, id);
    else
      rep = redisCommand(r->c, "XREAD COUNT %d BLOCK %lld STREAMS %s %s", XREAD_COUNT, block,
                         r->key, id);
    if (!rep) {
      int rc = inlet_fail(err, INLET_EIO, "redis %s:%d: %s", r->host, r->port,
                          r->c->errstr[0] ? r->c->errstr : "connection lost");
      redisFree(r->c);
      r->c = NULL;
      if (r->o.once) return rc;
      inlet_error_clear(err);
      nap(wait_ms);
      return STREAM_NONE;
    }
    if (rep->type == REDIS_REPLY_ERROR) {
      int rc = inlet_fail(err, INLET_EIO, "redis XREAD on %s: %s", r->key, rep->str);
      freeReplyObject(rep);
      return rc;
    }
    if (rep->type == REDIS_REPLY_NIL ||
        (rep->type == REDIS_REPLY_ARRAY && rep->elements == 0)) {
      freeReplyObject(rep);
      return r->o.once ? STREAM_END : STREAM_NONE;
    }
    /* [[key, [entries...]]] (RESP2); RESP3 maps are not requested. */
    if (rep->type != REDIS_REPLY_ARRAY || rep->element[0]->type != REDIS_REPLY_ARRAY ||
        rep->element[0]->elements != 2 ||
        rep->element[0]->element[1]->type != REDIS_REPLY_ARRAY) {
      freeReplyObject(rep);
      return inlet_fail(err, INLET_ECORRUPT, "redis stream %s: unexpected XREAD reply", r->key);
    }
    r->reply = rep;
    r->entries = rep->element[0]->element[1];
    r->next_entry = 0;
    if (r->entries->elements == 0) {
      drop_reply(r);
      return r->o.once ? STREAM_END : STREAM_NONE;
    }
  }
}

static int redis_seek(stream_source *s, const stream_pos *pos, inlet_buf *warn,
                      inlet_error *err) {
  redis_src *r = (redis_src *)s;
  inlet_buf_clear(warn);
  drop_reply(r);
  r->last_ms = pos->valid ? (uint64_t)pos->p[0] : 0;
  r->last_seq = pos->valid ? (uint64_t)pos->p[1] : 0;
  return 0;
}

static int redis_finish_pos(stream_source *s, stream_pos *pos, inlet_error *err) { return 0; }

static void redis_free(stream_source *s) {
  redis_src *r = (redis_src *)s;
  if (!r) return;
  drop_reply(r);
  if (r->c) redisFree(r->c);
  inlet_buf_reset(&r->rec);
  inlet_free(r);
}

static int64_t redis_lag_bytes(stream_source *s) { return -1; }

static const stream_source_ops redis_ops = {.next = redis_next,
                                            .seek = redis_seek,
                                            .finish_pos = redis_finish_pos,
                                            .lag_bytes = redis_lag_bytes,
                                            .free = redis_free};

int stream_redis_open(stream_source **out, const char *url, const stream_source_options *o,
                      inlet_error *err) {
  redis_src *r = inlet_calloc(1, sizeof *r);
  if (!r) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  r->base.ops = &redis_ops;
  r->base.kind = STREAM_REDIS;
  r->base.can_seek = true;
  r->o = *o;
  int rc = stream_redis_parse_url(r->host, sizeof r->host, &r->port, r->key, sizeof r->key, url,
                                  err);
  if (rc == 0) rc = connect_redis(r, err);
  if (rc < 0) {
    redis_free(&r->base);
    return rc;
  }
  *out = &r->base;
  return 0;
}

int stream_source_open(stream_source **out, const char *spec, const stream_source_options *o,
                       inlet_error *err) {
  *out = NULL;
  FAIL_IF(!spec || !*spec, err, INLET_EINVAL, "no source given");
  if (strcmp(spec, "stdin") == 0 || strcmp(spec, "-") == 0)
    return stream_file_open(out, NULL, true, o, err);
  if (strncmp(spec, "file:", 5) == 0) {
    FAIL_IF(!spec[5], err, INLET_EINVAL, "file source names no path");
    return stream_file_open(out, spec + 5, false, o, err);
  }
  if (strncmp(spec, "redis://", 8) == 0) return stream_redis_open(out, spec, o, err);
  return inlet_fail(err, INLET_EINVAL, "unknown source \"%s\" (file:PATH, stdin, "
                    "redis://HOST:PORT/STREAM)", spec);
}
