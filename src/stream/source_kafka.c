/*
 * Kafka source (librdkafka high-level consumer): one record per message
 * value, from the topics of kafka://HOST:PORT[,HOST:PORT...]/TOPIC[,TOPIC...],
 * with the partitions shared by the members of a consumer group
 * (cooperative-sticky assignment where the broker supports it, else what
 * partition.assignment.strategy says).
 *
 * Positions live in the table, never in Kafka: each topic-partition is a
 * stream_part whose txn (APP#topic#partition) records the next offset to
 * read. On assignment the ingester reads those versions from the newest
 * table state (stream_parts_load_fn) and the partitions are assigned at
 * exactly those offsets; a partition the table never saw starts at its
 * earliest offset (or its end with start_latest: that offset is resolved
 * at once and recorded by the next commit, so a restart does not skip what
 * arrived in between). Kafka's committed offsets are written after each
 * table commit (asynchronously, for monitoring tools) and never read.
 *
 * Rebalances: the rebalance callback only queues the change. next() then
 * returns STREAM_REBALANCE, the ingester commits its batch (the revoked
 * partitions' rows included, while they are still ours), and the next
 * call applies it: incremental_unassign / incremental_assign (assign for
 * eager protocols). A partition that another member also got in a race is
 * settled by the table: the commit that finds its txn version moved fails
 * (delta_writer_set_txns) and the loser rereads every position.
 *
 * Retention: auto.offset.reset is "error", so offsets deleted before they
 * were read are a gap (STREAM_GAP, docs/INGEST.md "Kafka"), not a silent
 * jump. Brokers that fail are librdkafka's to reconnect; what the consumer
 * waits for is reported through the notice and the status (from the
 * statistics librdkafka emits every second: partition leaders and broker
 * states; and its error callback). Authentication and fatal client errors
 * stop the run.
 *
 * once: the high watermarks of every partition of the topics are read at
 * start; a partition is finished at its watermark (later messages are not
 * read), and the source ends when every assigned partition is finished.
 */
#include <ctype.h>
#include <jansson.h>
#include <librdkafka/rdkafka.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <time.h>

#include "stream/stream.h"
#include "util/util.h"

#define MAX_TOPICS 64
#define POLL_SLICE_MS 100
#define QUERY_TIMEOUT_MS 15000
#define STALL_REPORT_MS 2000 /* a stall shorter than this is not reported */
#define ONCE_STALL_MS 60000  /* --once gives up after waiting this long */
#define PENDING_MAX 8
#define IDLE_CHECK_MS 5000 /* no message this long: check the positions are still there */

typedef struct kpart {
  stream_part p;               /* first: parts[] point here */
  int64_t target;              /* once: the high watermark at start, -1 unknown */
  bool done;                   /* once: reached target */
  int64_t kafka_committed;     /* last offset committed to the group */
  const rd_kafka_topic_t *rkt; /* the consumer's topic handle, for lookups */
} kpart;

typedef struct pending_op {
  rd_kafka_resp_err_t kind;              /* ASSIGN or REVOKE (anything else: unassign all) */
  rd_kafka_topic_partition_list_t *list; /* owned copy */
  bool lost;
} pending_op;

typedef struct kafka_src {
  stream_source base;
  stream_source_options o;
  rd_kafka_t *rk;
  char brokers[2048];
  char topic_buf[4096];
  const char *topics[MAX_TOPICS];
  int n_topics;
  bool cooperative;
  bool closing;
  bool fatal;
  char fatal_msg[1024];
  /* rebalances queued by the callback */
  pending_op pending[PENDING_MAX];
  int n_pending;
  bool signalled; /* STREAM_REBALANCE returned for the queued ops */
  bool ever_assigned;
  /* parts */
  kpart **kp;
  int cap_parts;
  kpart *last_hit;
  /* the message lent to the ingester */
  rd_kafka_message_t *held;
  stream_kmeta meta;
  /* a gap to skip on the next call (allow_gaps) */
  kpart *gap_part;
  int64_t gap_resume;
  /* status */
  char status[1024 + 32];
  char stall[1024];    /* the stall seen by the last statistics */
  int64_t stall_since; /* ms, -1 none */
  bool stall_reported;
  bool all_down;
  int64_t once_wait_since;
  int64_t last_message_ms; /* when a message last arrived (or the idle check ran) */
} kafka_src;

static kafka_src *of(stream_source *s) {
  return (kafka_src *)s;
}

/* ---- URL ---------------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool topic_name_ok(const char *t) {
  size_t n = strlen(t);
  if (n == 0 || n > 249 || strcmp(t, ".") == 0 || strcmp(t, "..") == 0) return false;
  for (; *t; t++)
    if (!isalnum((unsigned char)*t) && *t != '.' && *t != '_' && *t != '-') return false;
  return true;
}

int stream_kafka_parse_url(char *brokers, size_t brokers_cap, char *buf, size_t buf_cap,
                           const char **topics, int cap, const char *url, inlet_error *err) {
  FAIL_IF(strncmp(url, "kafka://", 8) != 0, err, INLET_EINVAL, "not a kafka:// source: %s", url);
  const char *b = url + 8, *slash = strchr(b, '/');
  FAIL_IF(!slash || slash == b, err, INLET_EINVAL,
          "Kafka source %s: expected kafka://HOST:PORT[,HOST:PORT...]/TOPIC[,TOPIC...]", url);
  FAIL_IF((size_t)(slash - b) >= brokers_cap, err, INLET_EINVAL,
          "Kafka source: broker list too long");
  memcpy(brokers, b, (size_t)(slash - b));
  brokers[slash - b] = '\0';
  for (char *h = brokers, *next; h; h = next) {
    next = strchr(h, ',');
    if (next) *next++ = '\0';
    char *colon = strrchr(h, ':');
    char *end = NULL;
    long port = colon ? strtol(colon + 1, &end, 10) : 0;
    FAIL_IF(!colon || colon == h || !end || *end || port <= 0 || port > 65535, err, INLET_EINVAL,
            "Kafka source %s: broker \"%s\" is not HOST:PORT", url, h);
    if (next) next[-1] = ',';
  }
  const char *t = slash + 1;
  size_t tl = strlen(t);
  while (tl && t[tl - 1] == '/')
    tl--;
  FAIL_IF(tl == 0, err, INLET_EINVAL, "Kafka source %s names no topic", url);
  FAIL_IF(tl >= buf_cap, err, INLET_EINVAL, "Kafka source: topic list too long");
  memcpy(buf, t, tl);
  buf[tl] = '\0';
  int n = 0;
  for (char *p = buf, *next; p; p = next) {
    next = strchr(p, ',');
    if (next) *next++ = '\0';
    FAIL_IF(!topic_name_ok(p), err, INLET_EINVAL,
            "Kafka source %s: \"%s\" is not a topic name (letters, digits, '.', '_', '-'; at "
            "most 249)",
            url, p);
    FAIL_IF(n >= cap, err, INLET_EINVAL, "Kafka source: more than %d topics", cap);
    topics[n++] = p;
  }
  qsort(topics, (size_t)n, sizeof *topics, cmp_str);
  int k = 0;
  for (int i = 0; i < n; i++)
    if (k == 0 || strcmp(topics[k - 1], topics[i]) != 0) topics[k++] = topics[i];
  return k;
}

/* ---- parts -------------------------------------------------------------------- */

static kpart *find_part(kafka_src *k, const char *topic, int32_t partition, bool create) {
  for (int i = 0; i < k->base.n_parts; i++) {
    kpart *p = k->kp[i];
    if (p->p.partition == partition && strcmp(p->p.topic, topic) == 0) return p;
  }
  if (!create) return NULL;
  if (k->base.n_parts == k->cap_parts) {
    int nc = k->cap_parts ? k->cap_parts * 2 : 16;
    kpart **nk = inlet_realloc(k->kp, (size_t)nc * sizeof *nk);
    stream_part **np = inlet_realloc(k->base.parts, (size_t)nc * sizeof *np);
    if (nk) k->kp = nk;
    if (np) k->base.parts = np;
    if (!nk || !np) return NULL;
    k->cap_parts = nc;
  }
  kpart *p = inlet_calloc(1, sizeof *p);
  if (!p) return NULL;
  snprintf(p->p.topic, sizeof p->p.topic, "%s", topic);
  p->p.partition = partition;
  snprintf(p->p.label, sizeof p->p.label, "%s/%d", topic, (int)partition);
  snprintf(p->p.txn, sizeof p->p.txn, "%s#%s#%d", k->o.app_id, topic, (int)partition);
  snprintf(p->p.txn_wm, sizeof p->p.txn_wm, "%s#wm", p->p.txn);
  snprintf(p->p.txn_late, sizeof p->p.txn_late, "%s#late", p->p.txn);
  p->p.table = p->p.resume = p->p.wm_table = p->p.late_routed = -1;
  p->p.start = p->p.next = -1;
  p->p.high_watermark = -1;
  p->target = -1;
  p->kafka_committed = -1;
  k->kp[k->base.n_parts] = p;
  k->base.parts[k->base.n_parts++] = &p->p;
  return p;
}

static kpart *part_of(kafka_src *k, const rd_kafka_message_t *m) {
  kpart *h = k->last_hit;
  if (h && h->rkt == m->rkt && h->p.partition == m->partition) return h;
  kpart *p = find_part(k, rd_kafka_topic_name(m->rkt), m->partition, false);
  if (p) {
    p->rkt = m->rkt;
    k->last_hit = p;
  }
  return p;
}

static bool is_cooperative(kafka_src *k) {
  const char *proto = rd_kafka_rebalance_protocol(k->rk);
  return proto && strcmp(proto, "COOPERATIVE") == 0;
}

/* ---- callbacks (from rd_kafka_consumer_poll, on this thread) ------------------- */

static void apply_now(kafka_src *k, rd_kafka_resp_err_t kind,
                      rd_kafka_topic_partition_list_t *list) {
  rd_kafka_error_t *e = NULL;
  if (kind == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
    if (is_cooperative(k))
      e = rd_kafka_incremental_assign(k->rk, list);
    else
      rd_kafka_assign(k->rk, list);
  } else if (kind == RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS && is_cooperative(k)) {
    e = rd_kafka_incremental_unassign(k->rk, list);
  } else {
    rd_kafka_assign(k->rk, NULL);
  }
  if (e) rd_kafka_error_destroy(e);
}

static void on_rebalance(rd_kafka_t *rk, rd_kafka_resp_err_t err,
                         rd_kafka_topic_partition_list_t *list, void *opaque) {
  (void)rk;
  kafka_src *k = opaque;
  if (k->closing) {
    /* Leaving the group: nothing more is committed. */
    for (int i = 0; list && i < list->cnt; i++) {
      kpart *p = find_part(k, list->elems[i].topic, list->elems[i].partition, false);
      if (p) p->p.active = false;
    }
    apply_now(k, err, list);
    return;
  }
  if (k->n_pending == PENDING_MAX) {
    /* Cannot happen (the group waits for each call); stay in sync anyway. */
    apply_now(k, err, list);
    return;
  }
  pending_op *op = &k->pending[k->n_pending++];
  op->kind = err;
  op->list = list ? rd_kafka_topic_partition_list_copy(list) : NULL;
  op->lost = err == RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS && rd_kafka_assignment_lost(k->rk);
  k->signalled = false;
}

static void on_error(rd_kafka_t *rk, int code, const char *reason, void *opaque) {
  kafka_src *k = opaque;
  rd_kafka_resp_err_t err = (rd_kafka_resp_err_t)code;
  if (err == RD_KAFKA_RESP_ERR__FATAL) {
    char why[512];
    rd_kafka_resp_err_t orig = rd_kafka_fatal_error(rk, why, sizeof why);
    snprintf(k->fatal_msg, sizeof k->fatal_msg, "Kafka client failed: %s (%s)", why,
             rd_kafka_err2name(orig));
    k->fatal = true;
    return;
  }
  if (err == RD_KAFKA_RESP_ERR__AUTHENTICATION ||
      err == RD_KAFKA_RESP_ERR_SASL_AUTHENTICATION_FAILED ||
      err == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED ||
      err == RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED ||
      err == RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED) {
    snprintf(k->fatal_msg, sizeof k->fatal_msg,
             "Kafka refused access: %s (check the "
             "security.protocol, sasl.* and ssl.* --kafka-property settings and the ACLs)",
             reason);
    k->fatal = true;
    return;
  }
  if (err == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN) {
    if (!k->all_down) stream_notice(&k->base, "kafka: all brokers are down (%s); waiting", reason);
    k->all_down = true;
    snprintf(k->status, sizeof k->status, "all Kafka brokers down");
    k->base.status = k->status;
    if (k->stall_since < 0) k->stall_since = stream_now_ms();
    return;
  }
  stream_notice(&k->base, "kafka: %s: %s", rd_kafka_err2name(err), reason);
}

static void on_log(const rd_kafka_t *rk, int level, const char *fac, const char *buf) {
  (void)rk;
  fprintf(stderr, "inlet: kafka log %d %s: %s\n", level, fac, buf);
}

/* The statistics librdkafka emits every second: which active partitions
 * cannot be fetched now (no leader, or their leader broker is not up). */
static int on_stats(rd_kafka_t *rk, char *json, size_t len, void *opaque) {
  (void)rk;
  kafka_src *k = opaque;
  json_t *root = json_loadb(json, len, 0, NULL);
  if (!root) return 0;
  json_t *brokers = json_object_get(root, "brokers"), *topics = json_object_get(root, "topics");
  char stall[sizeof k->stall] = "";
  size_t sl = 0;
  int n_stalled = 0;
  for (int i = 0; i < k->base.n_parts; i++) {
    kpart *p = k->kp[i];
    if (!p->p.active || p->done) continue;
    char pk[16];
    snprintf(pk, sizeof pk, "%d", (int)p->p.partition);
    json_t *tp = json_object_get(json_object_get(topics, p->p.topic), "partitions");
    json_t *ps = json_object_get(tp, pk);
    if (!ps) continue;
    /* The high watermark, for the per-partition lag of the metrics. */
    json_t *hi = json_object_get(ps, "hi_offset");
    if (json_is_integer(hi) && json_integer_value(hi) >= 0)
      p->p.high_watermark = (int64_t)json_integer_value(hi);
    json_int_t leader = json_integer_value(json_object_get(ps, "leader"));
    const char *why = NULL;
    char whybuf[400];
    if (leader < 0) {
      why = "no leader";
    } else {
      const char *key;
      json_t *b;
      json_object_foreach(brokers, key, b) {
        if (json_integer_value(json_object_get(b, "nodeid")) != leader) continue;
        const char *st = json_string_value(json_object_get(b, "state"));
        if (st && strcmp(st, "UP") != 0 && strcmp(st, "UPDATE") != 0) {
          const char *name = json_string_value(json_object_get(b, "name"));
          snprintf(whybuf, sizeof whybuf, "leader %s is %s", name ? name : key, st);
          why = whybuf;
        }
        break;
      }
    }
    if (!why) continue;
    n_stalled++;
    if (sl + 8 < sizeof stall) {
      int w = snprintf(stall + sl, sizeof stall - sl, "%s%s (%s)", sl ? ", " : "", p->p.label, why);
      sl += w > 0 ? (size_t)w : 0;
      if (sl >= sizeof stall) sl = sizeof stall - 1;
    }
  }
  json_decref(root);
  int64_t now = stream_now_ms();
  if (n_stalled) {
    k->all_down = false;
    if (k->stall_since < 0) k->stall_since = now;
    snprintf(k->stall, sizeof k->stall, "%s", stall);
    snprintf(k->status, sizeof k->status, "waiting for Kafka: %s", stall);
    k->base.status = k->status;
    if (!k->stall_reported && now - k->stall_since >= STALL_REPORT_MS) {
      k->stall_reported = true;
      stream_notice(&k->base, "kafka: fetching paused: %s", stall);
    }
  } else if (k->stall_since >= 0) {
    /* Every active partition's leader is up again. */
    if (k->stall_reported || k->all_down)
      stream_notice(&k->base, "kafka: fetching resumed after %.1f s",
                    (double)(now - k->stall_since) / 1000.0);
    k->stall_since = -1;
    k->stall_reported = false;
    k->all_down = false;
    k->stall[0] = '\0';
    k->base.status = NULL;
  }
  return 0;
}

/* ---- assignment ------------------------------------------------------------------ */

static int query_bounds(kafka_src *k, const stream_part *p, int64_t *lo, int64_t *hi,
                        inlet_error *err) {
  rd_kafka_resp_err_t e =
      rd_kafka_query_watermark_offsets(k->rk, p->topic, p->partition, lo, hi, QUERY_TIMEOUT_MS);
  FAIL_IF(e, err, INLET_EIO, "Kafka: cannot read the offsets of %s: %s", p->label,
          rd_kafka_err2str(e));
  return 0;
}

/* Where part @p p starts when its table position is (re)read: the table's
 * offset, another record's (resume), or --kafka-start resolved to a number. */
static int start_offset(kafka_src *k, kpart *p, bool *resolved, inlet_error *err) {
  *resolved = false;
  if (p->p.table >= 0) return (p->p.start = p->p.next = p->p.table), 0;
  if (p->p.resume >= 0) {
    p->p.start = p->p.next = p->p.resume;
    p->p.record = true;
    return 0;
  }
  int64_t lo, hi;
  TRY(query_bounds(k, &p->p, &lo, &hi, err));
  p->p.start = p->p.next = k->o.start_latest ? hi : lo;
  /* latest: recorded by the next commit, or a restart would skip what
   * arrives meanwhile. */
  p->p.record = k->o.start_latest;
  *resolved = true;
  return 0;
}

static void describe_start(kafka_src *k, inlet_buf *b, const kpart *p, bool resolved) {
  if (b->len) inlet_buf_puts(b, ", ");
  if (!resolved && p->p.table >= 0)
    inlet_buf_appendf(b, "%s at %lld", p->p.label, (long long)p->p.start);
  else if (!resolved)
    inlet_buf_appendf(b, "%s at %lld (from another progress record)", p->p.label,
                      (long long)p->p.start);
  else
    inlet_buf_appendf(b, "%s at %lld (new: %s)", p->p.label, (long long)p->p.start,
                      k->o.start_latest ? "latest" : "earliest");
}

static int apply_assign(kafka_src *k, pending_op *op, inlet_error *err) {
  rd_kafka_topic_partition_list_t *l = op->list;
  int n = l ? l->cnt : 0;
  stream_part **load = inlet_calloc((size_t)n + 1, sizeof *load);
  if (!load) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  int rc = 0;
  for (int i = 0; i < n; i++) {
    kpart *p = find_part(k, l->elems[i].topic, l->elems[i].partition, true);
    if (!p) {
      rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
      goto done;
    }
    load[i] = &p->p;
  }
  if (n && (rc = k->o.load_parts(k->o.load_ctx, load, n, err)) < 0) goto done;
  inlet_buf msg = INLET_BUF_INIT;
  for (int i = 0; i < n; i++) {
    kpart *p = (kpart *)load[i];
    bool resolved;
    if ((rc = start_offset(k, p, &resolved, err)) < 0) {
      inlet_buf_reset(&msg);
      goto done;
    }
    if (p->p.record) k->base.moved_to.valid = true; /* commit even without records */
    p->p.active = true;
    p->p.dl_swept = false; /* a previous owner may have died mid-batch */
    p->done = k->o.once && (p->target < 0 || p->p.start >= p->target);
    l->elems[i].offset = p->p.start;
    describe_start(k, &msg, p, resolved);
  }
  apply_now(k, RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS, l);
  if (!is_cooperative(k)) {
    /* Eager: the list is the whole assignment. */
    for (int i = 0; i < k->base.n_parts; i++) {
      bool in = false;
      for (int j = 0; j < n; j++)
        in |= load[j] == &k->kp[i]->p;
      if (!in) k->kp[i]->p.active = false;
    }
  }
  k->ever_assigned = true;
  if (n && inlet_buf_terminate(&msg) == 0)
    stream_notice(&k->base, "kafka: assigned %s", (const char *)msg.data);
  inlet_buf_reset(&msg);
done:
  inlet_free(load);
  return rc;
}

static void apply_revoke(kafka_src *k, pending_op *op) {
  rd_kafka_topic_partition_list_t *l = op->list;
  inlet_buf msg = INLET_BUF_INIT;
  for (int i = 0; l && i < l->cnt; i++) {
    kpart *p = find_part(k, l->elems[i].topic, l->elems[i].partition, false);
    if (!p || !p->p.active) continue;
    p->p.active = false;
    p->p.record = false;
    inlet_buf_appendf(&msg, "%s%s", msg.len ? ", " : "", p->p.label);
  }
  if (op->kind != RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS &&
      op->kind != RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
    for (int i = 0; i < k->base.n_parts; i++)
      k->kp[i]->p.active = false;
    stream_notice(&k->base, "kafka: rebalance failed (%s); every partition unassigned",
                  rd_kafka_err2str(op->kind));
  }
  apply_now(k, op->kind, l);
  if (msg.len && inlet_buf_terminate(&msg) == 0)
    stream_notice(&k->base, "kafka: %s %s",
                  op->lost ? "lost (the group moved on without us)" : "revoked",
                  (const char *)msg.data);
  inlet_buf_reset(&msg);
  k->last_hit = NULL;
}

static int apply_pending(kafka_src *k, inlet_error *err) {
  int rc = 0;
  for (int i = 0; i < k->n_pending; i++) {
    pending_op *op = &k->pending[i];
    if (rc == 0) {
      if (op->kind == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS)
        rc = apply_assign(k, op, err);
      else
        apply_revoke(k, op);
    }
    if (op->list) rd_kafka_topic_partition_list_destroy(op->list);
    op->list = NULL;
  }
  k->n_pending = 0;
  k->signalled = false;
  return rc;
}

/* ---- reading ---------------------------------------------------------------------- */

static void release_held(kafka_src *k) {
  if (k->held) rd_kafka_message_destroy(k->held);
  k->held = NULL;
}

static int seek_part(kafka_src *k, kpart *p, int64_t offset, inlet_error *err) {
  rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(l, p->p.topic, p->p.partition)->offset = offset;
  rd_kafka_error_t *e = rd_kafka_seek_partitions(k->rk, l, QUERY_TIMEOUT_MS);
  rd_kafka_topic_partition_list_destroy(l);
  if (!e) return 0;
  int rc = inlet_fail(err, INLET_EIO, "Kafka: cannot seek %s to %lld: %s", p->p.label,
                      (long long)offset, rd_kafka_error_string(e));
  rd_kafka_error_destroy(e);
  return rc;
}

/* Offsets of an assigned partition are no longer there (retention, or the
 * topic deleted and made again): a gap unless the position was never
 * recorded. Returns STREAM_GAP, STREAM_NONE (handled) or < 0. */
static int out_of_range(kafka_src *k, kpart *p, inlet_error *err) {
  int64_t lo, hi;
  TRY(query_bounds(k, &p->p, &lo, &hi, err));
  int64_t want = p->p.next;
  if (p->p.table < 0 && p->p.resume < 0 && p->p.start == p->p.next) {
    /* Nothing recorded, nothing read: start again where --kafka-start says. */
    p->p.start = p->p.next = k->o.start_latest ? hi : lo;
    TRY(seek_part(k, p, p->p.next, err));
    stream_notice(&k->base, "kafka: %s: offset %lld is no longer available; starting at %lld",
                  p->p.label, (long long)want, (long long)p->p.next);
    return STREAM_NONE;
  }
  stream_gap *g = &k->base.gap;
  if (want < lo) {
    g->lost = lo - want;
    snprintf(g->message, sizeof g->message,
             "Kafka %s: offsets %lld..%lld (%lld messages) were "
             "deleted (retention) before they were read",
             p->p.label, (long long)want, (long long)(lo - 1), (long long)g->lost);
    snprintf(g->range, sizeof g->range, "%.120s:%lld..%lld:%lld", p->p.label, (long long)want,
             (long long)lo, (long long)g->lost);
  } else {
    g->lost = -1;
    snprintf(g->message, sizeof g->message,
             "Kafka %s: the recorded offset %lld is past the "
             "partition's end %lld (the topic was deleted and made again, or its log was "
             "truncated); what was lost cannot be told",
             p->p.label, (long long)want, (long long)hi);
    snprintf(g->range, sizeof g->range, "%.120s:%lld..%lld:?", p->p.label, (long long)want,
             (long long)lo);
  }
  k->gap_part = p;
  k->gap_resume = lo;
  return STREAM_GAP;
}

static bool once_finished(kafka_src *k) {
  if (!k->o.once || !k->ever_assigned || k->n_pending) return false;
  for (int i = 0; i < k->base.n_parts; i++)
    if (k->kp[i]->p.active && !k->kp[i]->done) return false;
  return true;
}

static void pause_part(kafka_src *k, kpart *p) {
  rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(l, p->p.topic, p->p.partition);
  rd_kafka_pause_partitions(k->rk, l);
  rd_kafka_topic_partition_list_destroy(l);
}

static int consumer_error(kafka_src *k, rd_kafka_message_t *m, inlet_error *err) {
  rd_kafka_resp_err_t e = m->err;
  kpart *p = m->rkt ? part_of(k, m) : NULL;
  if (e == RD_KAFKA_RESP_ERR__PARTITION_EOF) return STREAM_NONE;
  if ((e == RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET || e == RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE) &&
      p && p->p.active)
    return out_of_range(k, p, err);
  if (e == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART || e == RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC ||
      e == RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION) {
    const char *t = m->rkt ? rd_kafka_topic_name(m->rkt) : "?";
    if (k->o.once)
      return inlet_fail(err, INLET_ENOTFOUND, "Kafka topic \"%s\" does not exist (%s)", t,
                        rd_kafka_message_errstr(m));
    stream_notice(&k->base, "kafka: topic \"%s\" does not exist yet; waiting for it", t);
    return STREAM_NONE;
  }
  if (e == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED ||
      e == RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED || e == RD_KAFKA_RESP_ERR__AUTHENTICATION)
    return inlet_fail(err, INLET_EINVAL, "Kafka refused access: %s", rd_kafka_message_errstr(m));
  if (e == RD_KAFKA_RESP_ERR__FATAL || k->fatal)
    return inlet_fail(err, INLET_EIO, "%s", k->fatal ? k->fatal_msg : rd_kafka_message_errstr(m));
  stream_notice(&k->base, "kafka: %s%s%s", p ? p->p.label : "", p ? ": " : "",
                rd_kafka_message_errstr(m));
  return STREAM_NONE;
}

/* Nothing arrived for a while: a partition whose position is before its
 * first offset is a gap even when the fetch error that says so was missed
 * (librdkafka reports it once; the partition then stays stopped). */
static int idle_check(kafka_src *k, inlet_error *err) {
  k->last_message_ms = stream_now_ms();
  for (int i = 0; i < k->base.n_parts; i++) {
    kpart *p = k->kp[i];
    if (!p->p.active || p->done) continue;
    int64_t lo, hi;
    if (query_bounds(k, &p->p, &lo, &hi, NULL) < 0) continue; /* a broker down: reported */
    if (p->p.next < lo || p->p.next > hi) return out_of_range(k, p, err);
  }
  return STREAM_NONE;
}

static int kafka_next(stream_source *s, stream_record *rec, int64_t wait_ms, inlet_error *err) {
  kafka_src *k = of(s);
  release_held(k);
  if (k->gap_part) {
    kpart *p = k->gap_part;
    k->gap_part = NULL;
    p->p.next = k->gap_resume;
    p->p.record = true; /* the jump is committed even without records after it */
    s->moved_to.valid = true;
    TRY(seek_part(k, p, p->p.next, err));
    if (k->o.once && p->target >= 0 && p->p.next >= p->target) {
      p->done = true; /* the gap ran to the end seen at start */
      pause_part(k, p);
    }
  }
  if (k->n_pending) {
    if (!k->signalled) {
      k->signalled = true;
      return STREAM_REBALANCE;
    }
    TRY(apply_pending(k, err));
  }
  int64_t deadline = stream_now_ms() + (wait_ms > 0 ? wait_ms : 0);
  for (;;) {
    FAIL_IF(k->fatal, err, INLET_EIO, "%s", k->fatal_msg);
    if (once_finished(k)) return STREAM_END;
    if (k->o.once) {
      int64_t now = stream_now_ms();
      if (!s->status && k->ever_assigned)
        k->once_wait_since = -1;
      else if (k->once_wait_since < 0)
        k->once_wait_since = now;
      else if (now - k->once_wait_since > ONCE_STALL_MS)
        return inlet_fail(err, INLET_EIO, "Kafka: gave up (--once) after %d s: %s",
                          ONCE_STALL_MS / 1000, s->status ? s->status : "no partition assigned");
    }
    int64_t left = deadline - stream_now_ms();
    int slice = left > POLL_SLICE_MS ? POLL_SLICE_MS : left > 0 ? (int)left : 0;
    rd_kafka_message_t *m = rd_kafka_consumer_poll(k->rk, slice);
    if (!m) {
      if (k->n_pending && !k->signalled) {
        k->signalled = true;
        return STREAM_REBALANCE;
      }
      if (!s->status && stream_now_ms() - k->last_message_ms >= IDLE_CHECK_MS) {
        int rc = idle_check(k, err);
        if (rc != STREAM_NONE) return rc;
      }
      if (stream_now_ms() >= deadline) return STREAM_NONE;
      continue;
    }
    k->last_message_ms = stream_now_ms();
    if (m->err) {
      int rc = consumer_error(k, m, err);
      rd_kafka_message_destroy(m);
      if (rc != STREAM_NONE) return rc;
      continue;
    }
    kpart *p = part_of(k, m);
    if (!p || !p->p.active || p->done) {
      rd_kafka_message_destroy(m); /* a partition no longer ours, or finished */
      continue;
    }
    if (k->o.once && p->target >= 0 && m->offset >= p->target) {
      p->done = true; /* produced after the start: left for the next run */
      pause_part(k, p);
      rd_kafka_message_destroy(m);
      continue;
    }
    if (s->status && !k->all_down && k->stall_since >= 0 && !k->stall_reported) {
      /* A stall too short to report. */
      k->stall_since = -1;
      s->status = NULL;
    }
    k->held = m;
    p->p.next = m->offset + 1;
    if (k->o.once && p->target >= 0 && p->p.next >= p->target) {
      p->done = true;
      pause_part(k, p);
    }
    stream_record_clear(rec);
    rec->data = m->payload ? (const char *)m->payload : "";
    rec->len = m->len;
    rec->oversize = (int64_t)m->len > k->o.max_record_bytes;
    if (rec->oversize) rec->len = (size_t)k->o.max_record_bytes;
    rec->offset = m->offset;
    rec->bytes = (int64_t)m->len + (int64_t)m->key_len;
    rd_kafka_timestamp_type_t tt;
    int64_t ts = rd_kafka_message_timestamp(m, &tt);
    rec->time_ms = tt == RD_KAFKA_TIMESTAMP_NOT_AVAILABLE ? -1 : ts;
    rec->part = &p->p;
    k->meta.topic = p->p.topic;
    k->meta.partition = p->p.partition;
    k->meta.offset = m->offset;
    k->meta.timestamp_ms = rec->time_ms;
    k->meta.key = m->key;
    k->meta.key_len = m->key_len;
    k->meta.headers = NULL;
    k->meta.tombstone = m->payload == NULL;
    if (k->o.want_headers) {
      rd_kafka_headers_t *h = NULL;
      if (rd_kafka_message_headers(m, &h) == RD_KAFKA_RESP_ERR_NO_ERROR) k->meta.headers = h;
    }
    rec->meta = &k->meta;
    return STREAM_RECORD;
  }
}

/* Rereads every active part's table position and repositions it there (the
 * ingester dropped its batch: a commit conflict). */
static int kafka_seek(stream_source *s, const stream_pos *pos, inlet_buf *warn, inlet_error *err) {
  (void)pos;
  (void)warn;
  kafka_src *k = of(s);
  release_held(k);
  int n = 0;
  stream_part **load = inlet_calloc((size_t)s->n_parts + 1, sizeof *load);
  if (!load) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  for (int i = 0; i < s->n_parts; i++)
    if (k->kp[i]->p.active) load[n++] = &k->kp[i]->p;
  int rc = n ? k->o.load_parts(k->o.load_ctx, load, n, err) : 0;
  for (int i = 0; rc == 0 && i < n; i++) {
    kpart *p = (kpart *)load[i];
    int64_t before = p->p.start;
    bool resolved = false;
    if (p->p.table < 0 && p->p.resume < 0)
      p->p.next = p->p.start; /* keep the resolved start */
    else
      rc = start_offset(k, p, &resolved, err);
    if (rc == 0) rc = seek_part(k, p, p->p.next, err);
    p->done = k->o.once && (p->target < 0 || p->p.next >= p->target);
    if (p->p.record) s->moved_to.valid = true;
    if (rc == 0 && p->p.next != before)
      stream_notice(s,
                    "kafka: %s: the table records %lld (another ingester committed it); "
                    "reading from there",
                    p->p.label, (long long)p->p.next);
  }
  inlet_free(load);
  return rc;
}

static int kafka_finish_pos(stream_source *s, stream_pos *pos, inlet_error *err) {
  (void)s;
  (void)pos;
  (void)err;
  return 0;
}

static int64_t kafka_lag_bytes(stream_source *s) {
  (void)s;
  return -1;
}

/* After a table commit: the group's committed offsets follow, for
 * monitoring (asynchronously; never read back). */
static void kafka_committed(stream_source *s) {
  kafka_src *k = of(s);
  rd_kafka_topic_partition_list_t *l = NULL;
  for (int i = 0; i < s->n_parts; i++) {
    kpart *p = k->kp[i];
    if (!p->p.active || p->p.table < 0 || p->p.table == p->kafka_committed) continue;
    if (!l) l = rd_kafka_topic_partition_list_new(8);
    rd_kafka_topic_partition_list_add(l, p->p.topic, p->p.partition)->offset = p->p.table;
    p->kafka_committed = p->p.table;
  }
  if (!l) return;
  (void)rd_kafka_commit(k->rk, l, 1);
  rd_kafka_topic_partition_list_destroy(l);
}

static void kafka_free(stream_source *s) {
  kafka_src *k = of(s);
  release_held(k);
  if (k->rk) {
    k->closing = true;
    for (int i = 0; i < k->n_pending; i++)
      if (k->pending[i].list) rd_kafka_topic_partition_list_destroy(k->pending[i].list);
    k->n_pending = 0;
    rd_kafka_consumer_close(k->rk);
    rd_kafka_destroy(k->rk);
  }
  for (int i = 0; i < s->n_parts; i++)
    inlet_free(k->kp[i]);
  inlet_free(k->kp);
  inlet_free(s->parts);
  inlet_buf_reset(&s->notice);
  inlet_free(k);
}

static const stream_source_ops kafka_ops = {.next = kafka_next,
                                            .seek = kafka_seek,
                                            .finish_pos = kafka_finish_pos,
                                            .lag_bytes = kafka_lag_bytes,
                                            .free = kafka_free,
                                            .committed = kafka_committed};

/* ---- opening ------------------------------------------------------------------------ */

/* A property whose value may be a secret (sasl.password, ssl.key.pem,
 * sasl.oauthbearer.client.secret, ...): never put in a message. */
static bool secret_key(const char *key) {
  static const char *const words[] = {
      "password", "secret", "key", "token", "jaas", "credential", "sasl.oauthbearer.config"};
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
    if (strstr(key, words[i])) return true;
  return false;
}

static int set_conf(rd_kafka_conf_t *c, const char *key, const char *value, inlet_error *err) {
  char why[512];
  rd_kafka_conf_res_t r = rd_kafka_conf_set(c, key, value, why, sizeof why);
  if (r == RD_KAFKA_CONF_OK) return 0;
  /* An unknown key may be a misspelled secret one: its value stays out too. */
  if (r == RD_KAFKA_CONF_UNKNOWN || secret_key(key))
    return inlet_fail(err, INLET_EINVAL, "Kafka property %s (value not shown): %s", key,
                      r == RD_KAFKA_CONF_UNKNOWN ? "no such property" : "invalid value");
  return inlet_fail(err, INLET_EINVAL, "Kafka property %s=%s: %s", key, value, why);
}

/* Properties inlet owns: a user value would break exactly-once or the
 * rebalance handling. */
static bool reserved(const char *key) {
  static const char *const keys[] = {"group.id",
                                     "enable.auto.commit",
                                     "enable.auto.offset.store",
                                     "auto.offset.reset",
                                     "bootstrap.servers",
                                     "enable.partition.eof",
                                     NULL};
  for (const char *const *k = keys; *k; k++)
    if (strcmp(key, *k) == 0) return true;
  return false;
}

static int build_conf(kafka_src *k, rd_kafka_conf_t *c, inlet_error *err) {
  /* Defaults, which --kafka-property may change. */
  static const char *const dflt[][2] = {
      {"partition.assignment.strategy", "cooperative-sticky"},
      {"statistics.interval.ms", "1000"},
      /* Memory: the prefetch queue is bounded whatever the partition count. */
      {"queued.max.messages.kbytes", "32768"},
      {"fetch.max.bytes", "16777216"},
      {"client.id", "inlet"},
      {"log_level", "3"}};
  for (size_t i = 0; i < sizeof dflt / sizeof dflt[0]; i++)
    TRY(set_conf(c, dflt[i][0], dflt[i][1], err));
  bool logging = false;
  for (int32_t i = 0; i < k->o.n_properties; i++) {
    const char *kv = k->o.properties[i], *eq = strchr(kv, '=');
    /* Its text is not shown: it may be a secret given without its key. */
    FAIL_IF(!eq || eq == kv, err, INLET_EINVAL,
            "Kafka property %d of %d is not KEY=VALUE (text not shown)", (int)i + 1,
            (int)k->o.n_properties);
    char key[256];
    FAIL_IF((size_t)(eq - kv) >= sizeof key, err, INLET_EINVAL, "Kafka property name too long");
    memcpy(key, kv, (size_t)(eq - kv));
    key[eq - kv] = '\0';
    FAIL_IF(reserved(key), err, INLET_EINVAL, "Kafka property %s is set by inlet (%s)", key,
            strcmp(key, "group.id") == 0 ? "use --group"
            : strcmp(key, "bootstrap.servers") == 0
                ? "give the brokers in the source URL"
                : "offsets live in the table; see docs/INGEST.md \"Kafka\"");
    TRY(set_conf(c, key, eq + 1, err));
    logging |= strcmp(key, "debug") == 0 || strcmp(key, "log_level") == 0;
  }
  TRY(set_conf(c, "bootstrap.servers", k->brokers, err));
  TRY(set_conf(c, "group.id", k->o.group, err));
  TRY(set_conf(c, "enable.auto.commit", "false", err));
  TRY(set_conf(c, "enable.auto.offset.store", "false", err));
  TRY(set_conf(c, "auto.offset.reset", "error", err));
  TRY(set_conf(c, "enable.partition.eof", "false", err));
  rd_kafka_conf_set_opaque(c, k);
  rd_kafka_conf_set_rebalance_cb(c, on_rebalance);
  rd_kafka_conf_set_error_cb(c, on_error);
  rd_kafka_conf_set_stats_cb(c, on_stats);
  if (logging)
    rd_kafka_conf_set_log_cb(c, on_log);
  else
    rd_kafka_conf_set_log_cb(c, NULL);
  return 0;
}

/* once: the high watermark of every partition of the topics, now. */
static int read_targets(kafka_src *k, inlet_error *err) {
  for (int t = 0; t < k->n_topics; t++) {
    rd_kafka_topic_t *rkt = rd_kafka_topic_new(k->rk, k->topics[t], NULL);
    FAIL_IF(!rkt, err, INLET_EIO, "Kafka: topic %s: %s", k->topics[t],
            rd_kafka_err2str(rd_kafka_last_error()));
    const struct rd_kafka_metadata *md = NULL;
    rd_kafka_resp_err_t e = rd_kafka_metadata(k->rk, 0, rkt, &md, QUERY_TIMEOUT_MS);
    rd_kafka_topic_destroy(rkt);
    FAIL_IF(e, err, INLET_EIO, "Kafka: cannot read the metadata of topic %s from %s: %s",
            k->topics[t], k->brokers, rd_kafka_err2str(e));
    int rc = 0;
    if (md->topic_cnt != 1 || md->topics[0].err) {
      rc = inlet_fail(err, INLET_ENOTFOUND, "Kafka topic \"%s\" does not exist at %s (%s)",
                      k->topics[t], k->brokers,
                      rd_kafka_err2str(md->topic_cnt ? md->topics[0].err
                                                     : RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART));
    }
    for (int i = 0; rc == 0 && i < md->topics[0].partition_cnt; i++) {
      kpart *p = find_part(k, k->topics[t], md->topics[0].partitions[i].id, true);
      if (!p) rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
      int64_t lo, hi;
      if (rc == 0) rc = query_bounds(k, &p->p, &lo, &hi, err);
      if (rc == 0) p->target = hi;
    }
    rd_kafka_metadata_destroy(md);
    TRY(rc);
  }
  return 0;
}

int stream_kafka_open(stream_source **out, const char *url, const stream_source_options *o,
                      inlet_error *err) {
  *out = NULL;
  FAIL_IF(!o->app_id || !o->group || !o->load_parts, err, INLET_EINVAL,
          "Kafka source: no app id, group or table");
  kafka_src *k = inlet_calloc(1, sizeof *k);
  if (!k) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  k->base.ops = &kafka_ops;
  k->base.kind = STREAM_KAFKA;
  k->base.can_seek = true;
  k->o = *o;
  k->stall_since = -1;
  k->once_wait_since = -1;
  int rc = stream_kafka_parse_url(k->brokers, sizeof k->brokers, k->topic_buf, sizeof k->topic_buf,
                                  k->topics, MAX_TOPICS, url, err);
  if (rc < 0) goto fail;
  k->n_topics = rc;
  if (o->format != INLET_TEXT_NDJSON && o->format != INLET_TEXT_CSV) {
    rc = inlet_fail(err, INLET_EINVAL, "Kafka source: records are NDJSON or CSV");
    goto fail;
  }
  rd_kafka_conf_t *c = rd_kafka_conf_new();
  if ((rc = build_conf(k, c, err)) < 0) {
    rd_kafka_conf_destroy(c);
    goto fail;
  }
  char why[512];
  k->rk = rd_kafka_new(RD_KAFKA_CONSUMER, c, why, sizeof why);
  if (!k->rk) {
    rd_kafka_conf_destroy(c);
    rc = inlet_fail(err, INLET_EINVAL, "Kafka consumer: %s", why);
    goto fail;
  }
  rd_kafka_poll_set_consumer(k->rk);
  if (o->once && (rc = read_targets(k, err)) < 0) goto fail;
  rd_kafka_topic_partition_list_t *sub = rd_kafka_topic_partition_list_new(k->n_topics);
  for (int i = 0; i < k->n_topics; i++)
    rd_kafka_topic_partition_list_add(sub, k->topics[i], RD_KAFKA_PARTITION_UA);
  rd_kafka_resp_err_t e = rd_kafka_subscribe(k->rk, sub);
  rd_kafka_topic_partition_list_destroy(sub);
  if (e) {
    rc = inlet_fail(err, INLET_EINVAL, "Kafka: cannot subscribe: %s", rd_kafka_err2str(e));
    goto fail;
  }
  *out = &k->base;
  return 0;
fail:
  kafka_free(&k->base);
  return rc;
}
