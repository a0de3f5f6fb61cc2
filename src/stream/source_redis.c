/*
 * Redis Streams source (hiredis): entries after the position recorded in the
 * table, one record per entry. Position = entry id (milliseconds, sequence)
 * and, third, the stream's entries-added count up to and including that
 * entry (0: unknown); the source time of a record is its id's milliseconds,
 * which gives the source lag.
 *
 * Record text: the value of the entry's field "data" (or "json", "payload"),
 * else a JSON object built from all field/value pairs (values as strings).
 *
 * Reading: one round trip, MULTI / XINFO STREAM key / XREAD COUNT 1000
 * STREAMS key <last id> / EXEC, so that the stream's counters describe the
 * very state the entries were read from. With --once the first empty read
 * ends the source; otherwise an empty read waits in XREAD BLOCK (a wake-up
 * only) and reads again. https://redis.io/commands/xread/,
 * https://redis.io/commands/xinfo-stream/.
 *
 * Gaps (stream_redis_judge): a stream trimmed (XTRIM, XADD MAXLEN/MINID) or
 * with entries deleted (XDEL) past the position lost entries the table never
 * got. When the first entry is after the position, lost = entries-added -
 * count at the position - length, exactly. When it is not, trimming has not
 * reached the position, and a deletion after it shows in the count (a
 * complete read: lost = entries-added - count - entries read) or in
 * max-deleted-entry-id. Without a count (a position recorded by an older
 * inlet) or on Redis < 7 (no counters), a first entry after the position is
 * reported as a possible gap. A gap is returned as STREAM_GAP before the
 * entries after it. A count that went backwards means the stream was deleted
 * and created again (or Redis restarted without persistence): reported as a
 * notice, and reading goes on after the position.
 *
 * Errors: transient ones (connection refused, reset or closed, timeouts,
 * LOADING, BUSY, MASTERDOWN, TRYAGAIN, CLUSTERDOWN) are retried with
 * exponential backoff (0.1 s doubling to 2 s, with jitter), each retry and
 * the recovery reported through the notice; without --once for as long as it
 * takes, with --once for up to 60 s. Authentication errors (NOAUTH,
 * WRONGPASS, NOPERM), protocol errors and every other error reply are fatal.
 */
#include <errno.h>
#include <hiredis/hiredis.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "stream/stream.h"
#include "util/util.h"

#define XREAD_COUNT 1000
#define RETRY_MIN_MS 100
#define RETRY_MAX_MS 2000
#define ONCE_RETRY_MS 60000  /* --once gives up after failing this long */
#define COMMAND_TIMEOUT_S 15 /* longer than any XREAD BLOCK the ingester asks for */

typedef stream_redis_id rid;

typedef struct redis_src {
  stream_source base;
  stream_source_options o;
  redisContext *c; /* owned */
  char host[256];
  int port;
  char key[512];
  stream_redis_track t;
  redisReply *reply;   /* owned: the current EXEC reply */
  redisReply *entries; /* borrowed from reply */
  size_t next_entry;
  int64_t n_first; /* entries-added count of the reply's first entry, -1 unknown */
  int64_t n_end;   /* ... of its last entry, -1 unknown */
  inlet_buf rec;   /* built record text */
  /* transient-error retries */
  int failures; /* consecutive */
  int64_t failing_since, retry_at;
  unsigned rng;
  char last_error[400];
} redis_src;

static int id_cmp(rid a, rid b) {
  if (a.ms != b.ms) return a.ms < b.ms ? -1 : 1;
  if (a.seq != b.seq) return a.seq < b.seq ? -1 : 1;
  return 0;
}

static void id_fmt(char *out, size_t cap, rid id) {
  snprintf(out, cap, "%llu-%llu", (unsigned long long)id.ms, (unsigned long long)id.seq);
}

static bool parse_id(const char *s, rid *out) {
  char *end;
  errno = 0;
  unsigned long long a = strtoull(s, &end, 10);
  if (errno || *end != '-') return false;
  unsigned long long b = strtoull(end + 1, &end, 10);
  if (errno || *end) return false;
  out->ms = a;
  out->seq = b;
  return true;
}

void stream_redis_judge(const stream_redis_track *t, const stream_redis_view *v,
                        stream_redis_judgement *j) {
  memset(j, 0, sizeof *j);
  j->lost = j->n_first = j->n_end = -1;
  if (!v->exists) {
    j->n_end = t->n;
    return;
  }
  rid ref = id_cmp(t->acked, t->last) > 0 ? t->acked : t->last;
  /* Every entry the stream holds is after the position (or it holds none). */
  bool past = !t->have_pos || !v->has_first || id_cmp(v->first, t->last) > 0;
  bool deleted_after = v->counters && id_cmp(v->max_deleted, ref) > 0;
  int64_t n = t->n;
  if (t->have_pos) {
    /* Entries ever added after the position, minus those still there. */
    int64_t there = past ? (int64_t)v->length : v->complete ? v->k : -1;
    if (v->counters && n >= 0 && there >= 0) {
      int64_t lost = (int64_t)v->added - n - there;
      if (lost > 0) {
        j->gap = true;
        j->lost = lost;
      } else if (lost < 0) {
        j->recreated = true;
      }
    } else if (deleted_after) {
      j->gap = true;
    } else if (past && v->has_first && (!v->counters || n < 0)) {
      j->gap = j->possible = true;
    }
  }
  if (!v->counters) return;
  if (j->recreated) n = -1;
  /* Entries ever added before e1 (before whatever comes next when k = 0). */
  int64_t before = -1;
  bool no_holes =
      v->k == 0 ? id_cmp(v->max_deleted, t->last) <= 0 : id_cmp(v->max_deleted, v->e1) < 0;
  if (past) {
    if (!v->has_first)
      before = (int64_t)v->added;
    else if (id_cmp(v->max_deleted, v->first) < 0)
      before = (int64_t)v->added - (int64_t)v->length;
  } else if (v->complete && no_holes) {
    before = (int64_t)v->added - v->k;
  } else if (n >= 0 && !j->gap && id_cmp(v->max_deleted, t->last) <= 0) {
    before = n;
  }
  if (v->k == 0) {
    j->n_end = before >= 0 ? before : (j->gap || j->recreated) ? -1 : t->n;
    return;
  }
  if (before >= 0) {
    j->n_first = before + 1;
    j->n_end = before + v->k;
  } else if (v->complete && id_cmp(v->max_deleted, v->ek) <= 0) {
    j->n_end = (int64_t)v->added;
  }
}

int stream_redis_parse_url(char *host, size_t host_cap, int *port, char *key, size_t key_cap,
                           const char *url, inlet_error *err) {
  FAIL_IF(strncmp(url, "redis://", 8) != 0, err, INLET_EINVAL, "not a redis URL: \"%s\"", url);
  const char *h = url + 8, *hend, *p;
  if (*h == '[') { /* [IPv6]:port */
    h++;
    hend = strchr(h, ']');
    FAIL_IF(!hend, err, INLET_EINVAL, "bad host in \"%s\"", url);
    p = hend + 1;
  } else {
    hend = h + strcspn(h, ":/");
    p = hend;
  }
  size_t hl = (size_t)(hend - h);
  FAIL_IF(hl == 0 || hl >= host_cap, err, INLET_EINVAL, "bad host in \"%s\"", url);
  memcpy(host, h, hl);
  host[hl] = '\0';
  *port = 6379;
  if (*p == ':') {
    char *end;
    errno = 0;
    long v = strtol(p + 1, &end, 10);
    FAIL_IF(errno || end == p + 1 || (*end && *end != '/') || v <= 0 || v > 65535, err,
            INLET_EINVAL, "bad port in \"%s\"", url);
    *port = (int)v;
    p = end;
  }
  FAIL_IF(*p && *p != '/', err, INLET_EINVAL, "bad host in \"%s\"", url);
  /* The stream: what follows, without the slashes around it. */
  while (*p == '/')
    p++;
  size_t kl = strlen(p);
  while (kl > 0 && p[kl - 1] == '/')
    kl--;
  FAIL_IF(kl == 0, err, INLET_EINVAL,
          "redis source \"%s\" names no stream (redis://HOST:PORT/STREAM)", url);
  FAIL_IF(kl >= key_cap, err, INLET_EINVAL, "stream name too long in \"%s\"", url);
  memcpy(key, p, kl);
  key[kl] = '\0';
  return 0;
}

static void sleep_ms(int64_t ms) {
  if (ms <= 0) return;
  struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static void drop_reply(redis_src *r) {
  if (r->reply) freeReplyObject(r->reply);
  r->reply = NULL;
  r->entries = NULL;
  r->next_entry = 0;
}

static void disconnect(redis_src *r) {
  if (r->c) redisFree(r->c);
  r->c = NULL;
}

/* ---- errors -------------------------------------------------------------------- */

enum { FETCH_OK = 0, FETCH_RETRY = 2 }; /* 1: wait_for_entries saw an entry */

/* The connection failed (r->c->err set): transient (FETCH_RETRY, message in
 * last_error) unless it is a protocol error or out of memory. */
static int connection_error(redis_src *r, const char *doing, inlet_error *err) {
  int code = r->c ? r->c->err : REDIS_ERR_OOM;
  char what[300];
  snprintf(what, sizeof what, "%s", r->c && r->c->errstr[0] ? r->c->errstr : "connection lost");
  disconnect(r);
  if (code == REDIS_ERR_PROTOCOL)
    return inlet_fail(err, INLET_ECORRUPT, "redis %s:%d: protocol error %s: %s", r->host, r->port,
                      doing, what);
  if (code == REDIS_ERR_OOM)
    return inlet_fail(err, INLET_ENOMEM, "redis %s:%d: out of memory %s", r->host, r->port, doing);
  snprintf(r->last_error, sizeof r->last_error, "%s %s", doing, what);
  return FETCH_RETRY;
}

static bool word_is(const char *s, const char *w) {
  size_t n = strlen(w);
  return strncmp(s, w, n) == 0 && (s[n] == ' ' || s[n] == '\0');
}

/* An error reply: transient (FETCH_RETRY) or fatal. */
static int reply_error(redis_src *r, const char *msg, const char *doing, inlet_error *err) {
  static const char *const transient[] = {"LOADING", "BUSY", "MASTERDOWN", "TRYAGAIN",
                                          "CLUSTERDOWN"};
  for (size_t i = 0; i < sizeof transient / sizeof transient[0]; i++)
    if (word_is(msg, transient[i])) {
      snprintf(r->last_error, sizeof r->last_error, "%s: %s", doing, msg);
      return FETCH_RETRY;
    }
  if (word_is(msg, "NOAUTH") || word_is(msg, "WRONGPASS") || word_is(msg, "NOPERM"))
    return inlet_fail(err, INLET_EINVAL,
                      "redis %s:%d refused access (%s): the redis source "
                      "sends no credentials (redis://HOST:PORT/STREAM)",
                      r->host, r->port, msg);
  return inlet_fail(err, INLET_EIO, "redis %s:%d: %s on stream \"%s\": %s", r->host, r->port, doing,
                    r->key, msg);
}

/* A transient failure: schedules the next attempt and reports it. --once
 * gives up after ONCE_RETRY_MS. */
static int retry_later(redis_src *r, inlet_error *err) {
  int64_t now = stream_now_ms();
  if (r->failures == 0) r->failing_since = now;
  r->failures++;
  int shift = r->failures - 1 < 10 ? r->failures - 1 : 10;
  int64_t delay = (int64_t)RETRY_MIN_MS << shift;
  if (delay > RETRY_MAX_MS) delay = RETRY_MAX_MS;
  delay = delay / 2 + (int64_t)(rand_r(&r->rng) % (unsigned)(delay / 2 + 1)); /* jitter */
  double failing = (double)(now - r->failing_since) / 1000.0;
  if (r->o.once && now + delay - r->failing_since > ONCE_RETRY_MS)
    return inlet_fail(err, INLET_EIO,
                      "redis %s:%d: %s (still failing after %d attempts in "
                      "%.1fs: --once gives up)",
                      r->host, r->port, r->last_error, r->failures, failing);
  r->retry_at = now + delay;
  stream_notice(&r->base, "redis %s:%d: %s; retry %d in %.1fs", r->host, r->port, r->last_error,
                r->failures, (double)delay / 1000.0);
  return 0;
}

static void recovered(redis_src *r) {
  if (r->failures == 0) return;
  stream_notice(&r->base, "redis %s:%d: reading again after %d failed attempt%s (%.1fs)", r->host,
                r->port, r->failures, r->failures == 1 ? "" : "s",
                (double)(stream_now_ms() - r->failing_since) / 1000.0);
  r->failures = 0;
  r->retry_at = 0;
}

static int connect_redis(redis_src *r, inlet_error *err) {
  if (r->c && !r->c->err) return FETCH_OK;
  disconnect(r);
  struct timeval tv = {5, 0};
  r->c = redisConnectWithTimeout(r->host, r->port, tv);
  if (!r->c) return inlet_fail(err, INLET_ENOMEM, "out of memory connecting to redis");
  if (r->c->err) return connection_error(r, "connecting:", err);
  struct timeval cmd = {COMMAND_TIMEOUT_S, 0};
  if (redisSetTimeout(r->c, cmd) != REDIS_OK) return connection_error(r, "connecting:", err);
  return FETCH_OK;
}

/* ---- reading ---------------------------------------------------------------------- */

/* Reads XINFO STREAM's fields into @p v. */
static void read_xinfo(const redisReply *x, stream_redis_view *v) {
  bool added = false, deleted = false;
  for (size_t i = 0; i + 1 < x->elements; i += 2) {
    const redisReply *k = x->element[i], *val = x->element[i + 1];
    if (k->type != REDIS_REPLY_STRING && k->type != REDIS_REPLY_STATUS) continue;
    if (strcmp(k->str, "length") == 0 && val->type == REDIS_REPLY_INTEGER) {
      v->length = (uint64_t)val->integer;
    } else if (strcmp(k->str, "entries-added") == 0 && val->type == REDIS_REPLY_INTEGER) {
      v->added = (uint64_t)val->integer;
      added = true;
    } else if (strcmp(k->str, "max-deleted-entry-id") == 0 && val->type == REDIS_REPLY_STRING) {
      deleted = parse_id(val->str, &v->max_deleted);
    } else if (strcmp(k->str, "first-entry") == 0 && val->type == REDIS_REPLY_ARRAY &&
               val->elements >= 1 && val->element[0]->type == REDIS_REPLY_STRING) {
      v->has_first = parse_id(val->element[0]->str, &v->first);
    }
  }
  v->counters = added && deleted;
}

/* One atomic read after the last id: sets r->reply / r->entries and fills
 * @p v. FETCH_OK, FETCH_RETRY or a negative error. */
static int fetch(redis_src *r, stream_redis_view *v, inlet_error *err) {
  memset(v, 0, sizeof *v);
  int rc = connect_redis(r, err);
  if (rc != FETCH_OK) return rc;
  char id[64];
  id_fmt(id, sizeof id, r->t.last);
  size_t kl = strlen(r->key);
  if (redisAppendCommand(r->c, "MULTI") != REDIS_OK ||
      redisAppendCommand(r->c, "XINFO STREAM %b", r->key, kl) != REDIS_OK ||
      redisAppendCommand(r->c, "XREAD COUNT %d STREAMS %b %s", XREAD_COUNT, r->key, kl, id) !=
          REDIS_OK ||
      redisAppendCommand(r->c, "EXEC") != REDIS_OK)
    return connection_error(r, "sending XREAD:", err);
  redisReply *rep[4] = {NULL, NULL, NULL, NULL};
  for (int i = 0; i < 4; i++) {
    void *p = NULL;
    if (redisGetReply(r->c, &p) != REDIS_OK) {
      for (int k = 0; k < i; k++)
        freeReplyObject(rep[k]);
      return connection_error(r, "reading XREAD:", err);
    }
    rep[i] = p;
  }
  /* The first error that is not EXECABORT says why (LOADING is refused per
   * queued command, and EXEC then aborts). */
  const char *e = NULL;
  for (int i = 0; i < 4 && !e; i++)
    if (rep[i]->type == REDIS_REPLY_ERROR && !word_is(rep[i]->str, "EXECABORT")) e = rep[i]->str;
  if (!e && rep[3]->type == REDIS_REPLY_ERROR) e = rep[3]->str;
  char msg[300] = "";
  if (e) snprintf(msg, sizeof msg, "%s", e);
  redisReply *exec = rep[3];
  for (int i = 0; i < 3; i++)
    freeReplyObject(rep[i]);
  if (e) {
    freeReplyObject(exec);
    return reply_error(r, msg, "XREAD", err);
  }
  if (exec->type != REDIS_REPLY_ARRAY || exec->elements != 2) {
    freeReplyObject(exec);
    return inlet_fail(err, INLET_ECORRUPT, "redis %s:%d: unexpected EXEC reply", r->host, r->port);
  }
  const redisReply *xi = exec->element[0], *xr = exec->element[1];
  if (xi->type == REDIS_REPLY_ERROR) {
    if (strstr(xi->str, "no such key") == NULL) {
      snprintf(msg, sizeof msg, "%s", xi->str);
      freeReplyObject(exec);
      return reply_error(r, msg, "XINFO STREAM", err);
    }
  } else if (xi->type == REDIS_REPLY_ARRAY) {
    v->exists = true;
    read_xinfo(xi, v);
  }
  r->reply = exec;
  if (xr->type == REDIS_REPLY_NIL || (xr->type == REDIS_REPLY_ARRAY && xr->elements == 0))
    return FETCH_OK;
  if (xr->type == REDIS_REPLY_ERROR) {
    snprintf(msg, sizeof msg, "%s", xr->str);
    drop_reply(r);
    return reply_error(r, msg, "XREAD", err);
  }
  /* [[key, [entries...]]] (RESP2) */
  if (xr->type != REDIS_REPLY_ARRAY || xr->element[0]->type != REDIS_REPLY_ARRAY ||
      xr->element[0]->elements != 2 || xr->element[0]->element[1]->type != REDIS_REPLY_ARRAY) {
    drop_reply(r);
    return inlet_fail(err, INLET_ECORRUPT, "redis stream %s: unexpected XREAD reply", r->key);
  }
  r->entries = xr->element[0]->element[1];
  r->next_entry = 0;
  v->k = (int64_t)r->entries->elements;
  v->complete = v->k < XREAD_COUNT;
  if (v->k > 0) {
    const redisReply *a = r->entries->element[0], *b = r->entries->element[v->k - 1];
    if (a->type != REDIS_REPLY_ARRAY || a->elements < 1 ||
        a->element[0]->type != REDIS_REPLY_STRING || b->type != REDIS_REPLY_ARRAY ||
        b->elements < 1 || b->element[0]->type != REDIS_REPLY_STRING ||
        !parse_id(a->element[0]->str, &v->e1) || !parse_id(b->element[0]->str, &v->ek)) {
      drop_reply(r);
      return inlet_fail(err, INLET_ECORRUPT, "redis stream %s: malformed XREAD entry", r->key);
    }
  }
  return FETCH_OK;
}

/* Waits up to @p wait_ms for an entry after the last id (XREAD BLOCK, a
 * wake-up only). 1 something arrived, 0 not, FETCH_RETRY, or an error. */
static int wait_for_entries(redis_src *r, int64_t wait_ms, inlet_error *err) {
  int rc = connect_redis(r, err);
  if (rc != FETCH_OK) return rc;
  char id[64];
  id_fmt(id, sizeof id, r->t.last);
  long long block = wait_ms < 1 ? 1 : wait_ms;
  redisReply *rep = redisCommand(r->c, "XREAD COUNT 1 BLOCK %lld STREAMS %b %s", block, r->key,
                                 strlen(r->key), id);
  if (!rep) return connection_error(r, "waiting in XREAD BLOCK:", err);
  if (rep->type == REDIS_REPLY_ERROR) {
    char msg[300];
    snprintf(msg, sizeof msg, "%s", rep->str);
    freeReplyObject(rep);
    return reply_error(r, msg, "XREAD BLOCK", err);
  }
  int got = rep->type == REDIS_REPLY_ARRAY && rep->elements > 0;
  freeReplyObject(rep);
  return got;
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

/* Builds the record of entry @p idx [id, [f1, v1, ...]] of the reply. */
static int entry_record(redis_src *r, size_t idx, stream_record *rec, inlet_error *err) {
  const redisReply *e = r->entries->element[idx];
  FAIL_IF(e->type != REDIS_REPLY_ARRAY || e->elements != 2 ||
              e->element[0]->type != REDIS_REPLY_STRING,
          err, INLET_ECORRUPT, "redis stream %s: malformed XREAD entry", r->key);
  rid id;
  FAIL_IF(!parse_id(e->element[0]->str, &id), err, INLET_ECORRUPT,
          "redis stream %s: bad entry id \"%s\"", r->key, e->element[0]->str);
  const redisReply *kv = e->element[1];
  stream_record_clear(rec);
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
  /* The entries-added count of this entry, when the read told it. */
  int64_t n = -1;
  if (r->n_first >= 0)
    n = r->n_first + (int64_t)idx;
  else if (idx + 1 == r->entries->elements)
    n = r->n_end;
  rec->data = data ? data : "";
  rec->len = len;
  rec->text_fields = data && data == (const char *)r->rec.data;
  rec->bytes = (int64_t)len;
  rec->offset = -1;
  rec->time_ms = (int64_t)(id.ms & INT64_MAX);
  rec->pos.valid = true;
  rec->pos.p[0] = (int64_t)(id.ms & INT64_MAX);
  rec->pos.p[1] = (int64_t)(id.seq & INT64_MAX);
  rec->pos.p[2] = n > 0 ? n : 0;
  rec->oversize = (int64_t)len > r->o.max_record_bytes;
  if (rec->oversize) rec->len = 256;
  r->t.last = id;
  r->t.have_pos = true;
  r->t.n = n;
  return STREAM_RECORD;
}

/* Describes the gap @p j found after the last id into r->base.gap. */
static void describe_gap(redis_src *r, const stream_redis_view *v,
                         const stream_redis_judgement *j) {
  stream_gap *g = &r->base.gap;
  char after[48], next[48] = "", deleted[48];
  id_fmt(after, sizeof after, r->t.last);
  id_fmt(deleted, sizeof deleted, v->max_deleted);
  if (v->k > 0) id_fmt(next, sizeof next, v->e1);
  g->lost = j->lost;
  char count[48];
  if (j->lost > 0)
    snprintf(count, sizeof count, "%lld", (long long)j->lost);
  else
    snprintf(count, sizeof count, "?");
  snprintf(g->range, sizeof g->range, "%s..%s:%s", after, v->k > 0 ? next : "end", count);
  char where[120];
  if (v->k > 0)
    snprintf(where, sizeof where, "; the next entry is %s", next);
  else
    snprintf(where, sizeof where, "; the stream holds no entry after it");
  if (j->possible)
    snprintf(g->message, sizeof g->message,
             "redis stream \"%s\" (%s:%d): the first entry is "
             "after position %s: entries between may have been trimmed before they were read "
             "(how many cannot be told: %s)%s",
             r->key, r->host, r->port, after,
             v->counters ? "the position was recorded by an older inlet"
                         : "Redis < 7 reports no entries-added",
             where);
  else if (j->lost > 0)
    snprintf(g->message, sizeof g->message,
             "redis stream \"%s\" (%s:%d): %lld entr%s after "
             "position %s %s deleted before %s read (XTRIM, XADD MAXLEN/MINID or XDEL)%s",
             r->key, r->host, r->port, (long long)j->lost, j->lost == 1 ? "y" : "ies", after,
             j->lost == 1 ? "was" : "were", j->lost == 1 ? "it was" : "they were", where);
  else
    snprintf(g->message, sizeof g->message,
             "redis stream \"%s\" (%s:%d): entries after position "
             "%s, up to %s, were deleted (XDEL) before they were read%s",
             r->key, r->host, r->port, after, deleted, where);
}

static int redis_next(stream_source *s, stream_record *rec, int64_t wait_ms, inlet_error *err) {
  redis_src *r = (redis_src *)s;
  for (;;) {
    if (r->entries && r->next_entry < r->entries->elements)
      return entry_record(r, r->next_entry++, rec, err);
    drop_reply(r);
    int64_t now = stream_now_ms();
    if (r->retry_at > now) {
      int64_t nap = r->retry_at - now;
      sleep_ms(nap < wait_ms ? nap : wait_ms < 1 ? 1 : wait_ms);
      if (stream_now_ms() < r->retry_at) return STREAM_NONE;
    }
    stream_redis_view v;
    int rc = fetch(r, &v, err);
    if (rc < 0) return rc;
    if (rc == FETCH_RETRY) {
      TRY(retry_later(r, err));
      return STREAM_NONE;
    }
    recovered(r);
    stream_redis_judgement j;
    stream_redis_judge(&r->t, &v, &j);
    r->n_first = j.n_first;
    r->n_end = j.n_end;
    if (j.recreated) {
      char at[48];
      id_fmt(at, sizeof at, r->t.last);
      stream_notice(&r->base,
                    "redis stream \"%s\" (%s:%d) counts %llu entries added, fewer than "
                    "at the position %s (%lld): it was deleted and created again (or Redis "
                    "restarted without persistence); reading its entries after %s",
                    r->key, r->host, r->port, (unsigned long long)v.added, at, (long long)r->t.n,
                    at);
    }
    if (j.gap) {
      describe_gap(r, &v, &j);
      /* Accounted for from here on (if the caller goes on). */
      if (v.counters && id_cmp(v.max_deleted, r->t.acked) > 0) r->t.acked = v.max_deleted;
      if (v.k == 0) r->t.n = j.n_end;
      return STREAM_GAP; /* the reply's entries follow */
    }
    if (v.counters && id_cmp(v.max_deleted, r->t.acked) > 0 && !r->t.have_pos)
      r->t.acked = v.max_deleted; /* deleted before this ingester began: not a gap */
    if (v.k > 0) continue;
    if (v.exists) r->t.n = j.n_end;
    drop_reply(r);
    if (r->o.once) return STREAM_END;
    rc = wait_for_entries(r, wait_ms, err);
    if (rc < 0) return rc;
    if (rc == FETCH_RETRY) {
      TRY(retry_later(r, err));
      return STREAM_NONE;
    }
    if (rc == 0) return STREAM_NONE;
  }
}

/* Whether entry @p e carries its record in one field (data, json, payload):
 * the record is then the reply's bytes, which stay until the next read. An
 * entry of plain fields is built into r->rec, which the entry after it
 * would overwrite. */
static bool entry_has_record_field(const redisReply *e) {
  if (e->type != REDIS_REPLY_ARRAY || e->elements != 2) return false;
  const redisReply *kv = e->element[1];
  if (kv->type != REDIS_REPLY_ARRAY) return false;
  for (size_t i = 0; i + 1 < kv->elements; i += 2) {
    const redisReply *k = kv->element[i], *v = kv->element[i + 1];
    if (k->type != REDIS_REPLY_STRING || v->type != REDIS_REPLY_STRING) continue;
    if (!strcmp(k->str, "data") || !strcmp(k->str, "json") || !strcmp(k->str, "payload"))
      return true;
  }
  return false;
}

/* stream_source_ops.next_buffered: the entries left in the last XREAD
 * reply, up to one whose record would be built (see above) or is
 * malformed (next() reports it). */
static int redis_next_buffered(stream_source *s, stream_record *rec) {
  redis_src *r = (redis_src *)s;
  if (!r->entries || r->next_entry >= r->entries->elements ||
      !entry_has_record_field(r->entries->element[r->next_entry]))
    return STREAM_NONE;
  inlet_error ignored;
  if (entry_record(r, r->next_entry, rec, &ignored) != STREAM_RECORD) return STREAM_NONE;
  r->next_entry++;
  return STREAM_RECORD;
}

static int redis_seek(stream_source *s, const stream_pos *pos, inlet_buf *warn, inlet_error *err) {
  (void)err;
  redis_src *r = (redis_src *)s;
  inlet_buf_clear(warn);
  drop_reply(r);
  memset(&r->t, 0, sizeof r->t);
  r->t.have_pos = pos->valid;
  r->t.last.ms = pos->valid ? (uint64_t)pos->p[0] : 0;
  r->t.last.seq = pos->valid ? (uint64_t)pos->p[1] : 0;
  r->t.n = pos->valid && pos->p[2] > 0 ? pos->p[2] : -1;
  r->t.acked = r->t.last;
  return 0;
}

static int redis_finish_pos(stream_source *s, stream_pos *pos, inlet_error *err) {
  (void)s;
  (void)pos;
  (void)err;
  return 0;
}

static void redis_free(stream_source *s) {
  redis_src *r = (redis_src *)s;
  if (!r) return;
  drop_reply(r);
  disconnect(r);
  inlet_buf_reset(&r->rec);
  inlet_buf_reset(&r->base.notice);
  inlet_free(r);
}

static int64_t redis_lag_bytes(stream_source *s) {
  (void)s;
  return -1;
}

static const stream_source_ops redis_ops = {.next = redis_next,
                                            .next_buffered = redis_next_buffered,
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
  r->t.n = -1;
  r->rng = (unsigned)getpid() ^ (unsigned)stream_now_ms();
  int rc =
      stream_redis_parse_url(r->host, sizeof r->host, &r->port, r->key, sizeof r->key, url, err);
  if (rc < 0) {
    redis_free(&r->base);
    return rc;
  }
  /* Not connected yet: the first read connects, and retries while Redis is
   * down or loading. */
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
  if (strncmp(spec, "kafka://", 8) == 0) return stream_kafka_open(out, spec, o, err);
  return inlet_fail(err, INLET_EINVAL,
                    "unknown source \"%s\" (file:PATH, stdin, "
                    "redis://HOST:PORT/STREAM, kafka://HOST:PORT[,...]/TOPIC[,...])",
                    spec);
}
