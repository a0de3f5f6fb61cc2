/*
 * kafka_mock: a Kafka cluster for tests and for trying the Kafka source by
 * hand, built on librdkafka's mock cluster (rdkafka_mock.h: an in-process
 * broker speaking the Kafka protocol, with consumer groups, offset commits
 * and error injection).
 *
 *   kafka_mock [--brokers N] [--topic NAME[:PARTITIONS]]...
 *
 * Creates N brokers (default 3) and the topics (default events:6, each with
 * replication factor min(N, 3)), prints "bootstrap HOST:PORT,..." on stdout,
 * then reads commands from stdin, one a line, and answers each with one line
 * "ok ..." or "error ...". It runs until stdin closes, "quit", SIGINT or
 * SIGTERM. By hand:
 *
 *   $ kafka_mock
 *   bootstrap 127.0.0.1:39421,127.0.0.1:40127,127.0.0.1:35511
 *   produce events 0 1000
 *   ok produced 1000
 *   (elsewhere) kcat -b 127.0.0.1:39421 -C -t events -e
 *
 * Commands:
 *   produce TOPIC FIRST COUNT [PAD]  events FIRST .. FIRST+COUNT-1, event I being
 *                        {"id":I,"k":"key-I","v":V(I),"ts":"<2024-01-01 + I ms>"}
 *                        (V(I) = I * 7919 mod 1000003; PAD extra bytes in a "pad"
 *                        field), to partition I mod partitions, key "key-I",
 *                        header "seq" = I, message timestamp 2024-01-01 + I ms
 *   raw TOPIC PARTITION [key=K] [header=NAME:VALUE]... -- VALUE
 *                        one message whose value is the rest of the line (\n, \t,
 *                        \\ and \xHH are unescaped)
 *   big TOPIC PARTITION BYTES   one message of BYTES bytes ({"id":-1,"pad":"xxx..."})
 *   errors APIKEY COUNT ERR     the next COUNT requests of Kafka API APIKEY (1 Fetch,
 *                        2 ListOffsets, 3 Metadata, 8 OffsetCommit, 9 OffsetFetch,
 *                        10 FindCoordinator, 11 JoinGroup, 12 Heartbeat, 14 SyncGroup)
 *                        fail with error code ERR (-195 = transport: disconnect)
 *   down BROKER / up BROKER     a broker's listener goes down (connections closed) / up
 *   leader TOPIC PARTITION BROKER   moves a partition's leader
 *   coordinator group NAME BROKER   makes BROKER the coordinator of consumer group NAME
 *   ndjson PATH FIRST COUNT [PAD]   writes the values "produce" would send, one a line,
 *                        to file PATH (the same events for a file source)
 *   commit GROUP TOPIC PARTITION OFFSET   commits OFFSET for consumer group GROUP, as a
 *                        client outside the group would (a group with no members yet)
 *   committed GROUP TOPIC       "ok P:OFFSET ..." the group's committed offsets (-1: none)
 *   rtt BROKER MS               adds MS of latency to a broker's responses
 *   watermarks TOPIC            "ok P:LOW-HIGH ..." for each partition
 *   sleep MS
 *   quit
 *
 * Produced messages are acknowledged by every replica before "ok" (acks=all,
 * idempotent producer: an injected error never duplicates a message).
 *
 * Limits of librdkafka's (2.0.2) mock broker, which rdkafka_mock.h offers no
 * way to change: it keeps about 5 MB of message sets a partition and deletes
 * the oldest past that, read or not (with the events above, a partition
 * holding 50,000 lost nothing, one given 60,000 started at ~10,000): a test
 * must not produce further ahead of its consumer (see max_backlog in
 * tests/integration/test_ingest_kafka.c). And a group its last member left
 * stays "joining" for that member's session.timeout.ms less 1 s, so the
 * next member's join waits that long (a real broker empties the group).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BASE_MS 1704067200000LL /* 2024-01-01T00:00:00Z */
#define MAX_TOPICS 16

typedef struct topic {
  char name[250];
  int partitions;
} topic;

static rd_kafka_t *owner;    /* the handle the mock cluster belongs to */
static rd_kafka_t *producer; /* a client of the cluster */
static rd_kafka_mock_cluster_t *cluster;
static topic topics[MAX_TOPICS];
static int n_topics;
static long delivery_errors;
static char delivery_error[512];
static volatile sig_atomic_t stop;

static void on_signal(int sig) {
  (void)sig;
  stop = 1;
}

static void reply(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void reply(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  putchar('\n');
  fflush(stdout);
}

static void on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque) {
  (void)rk;
  (void)opaque;
  if (m->err) {
    delivery_errors++;
    snprintf(delivery_error, sizeof delivery_error, "%s", rd_kafka_err2str(m->err));
  }
}

static topic *find_topic(const char *name) {
  for (int i = 0; i < n_topics; i++)
    if (strcmp(topics[i].name, name) == 0) return &topics[i];
  return NULL;
}

static int64_t event_v(int64_t i) {
  return (i * 7919) % 1000003;
}

/* Sends one message, waiting while the local queue is full. */
static int send_one(const char *t, int32_t part, const void *val, size_t len, const char *key,
                    size_t key_len, const char *hname, const char *hval, int64_t ts_ms) {
  for (;;) {
    rd_kafka_resp_err_t e;
    if (hname)
      e = rd_kafka_producev(producer, RD_KAFKA_V_TOPIC(t), RD_KAFKA_V_PARTITION(part),
                            RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                            RD_KAFKA_V_VALUE((void *)val, len),
                            RD_KAFKA_V_KEY((void *)key, key ? key_len : 0),
                            RD_KAFKA_V_HEADER(hname, hval, hval ? (ssize_t)strlen(hval) : -1),
                            RD_KAFKA_V_TIMESTAMP(ts_ms), RD_KAFKA_V_END);
    else
      e = rd_kafka_producev(producer, RD_KAFKA_V_TOPIC(t), RD_KAFKA_V_PARTITION(part),
                            RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                            RD_KAFKA_V_VALUE((void *)val, len),
                            RD_KAFKA_V_KEY((void *)key, key ? key_len : 0),
                            RD_KAFKA_V_TIMESTAMP(ts_ms), RD_KAFKA_V_END);
    if (e == RD_KAFKA_RESP_ERR_NO_ERROR) return 0;
    if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL) {
      reply("error produce: %s", rd_kafka_err2str(e));
      return -1;
    }
    rd_kafka_poll(producer, 50);
  }
}

static int flush_all(void) {
  long before = delivery_errors;
  while (rd_kafka_flush(producer, 1000) == RD_KAFKA_RESP_ERR__TIMED_OUT) {
    if (stop) return -1;
  }
  if (delivery_errors != before) {
    reply("error delivery failed for %ld messages: %s", delivery_errors - before, delivery_error);
    return -1;
  }
  return 0;
}

/* Event @p i (see "produce") into @p buf (256 + pad bytes); returns its length. */
static int format_event(char *buf, long long i, long long pad) {
  int64_t ts = BASE_MS + i;
  time_t secs = (time_t)(ts / 1000);
  struct tm tm;
  gmtime_r(&secs, &tm);
  char when[40];
  strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
  int len = snprintf(buf, 256, "{\"id\":%lld,\"k\":\"key-%lld\",\"v\":%lld,\"ts\":\"%s.%03dZ\"", i,
                     i, (long long)event_v(i), when, (int)(ts % 1000));
  if (pad) {
    len += snprintf(buf + len, 32, ",\"pad\":\"");
    memset(buf + len, 'x', (size_t)pad);
    len += (int)pad;
    buf[len++] = '"';
  }
  buf[len++] = '}';
  return len;
}

static void cmd_ndjson(char *args) {
  char path[1024];
  long long first, count, pad = 0;
  int n = sscanf(args, "%1023s %lld %lld %lld", path, &first, &count, &pad);
  if (n < 3 || first < 0 || count < 0 || pad < 0 || pad > 10000000) {
    reply("error usage: ndjson PATH FIRST COUNT [PAD]");
    return;
  }
  FILE *out = fopen(path, "w");
  char *buf = malloc(256 + (size_t)pad);
  if (!out || !buf) {
    reply("error %s: %s", path, strerror(errno));
    if (out) fclose(out);
    free(buf);
    return;
  }
  for (long long i = first; i < first + count; i++) {
    int len = format_event(buf, i, pad);
    buf[len++] = '\n';
    fwrite(buf, 1, (size_t)len, out);
  }
  free(buf);
  if (fclose(out) != 0)
    reply("error %s: %s", path, strerror(errno));
  else
    reply("ok ndjson %lld", count);
}

static void cmd_produce(char *args) {
  char name[250];
  long long first, count, pad = 0;
  int n = sscanf(args, "%249s %lld %lld %lld", name, &first, &count, &pad);
  topic *t = n >= 3 ? find_topic(name) : NULL;
  if (!t || first < 0 || count < 0 || pad < 0 || pad > 10000000) {
    reply("error usage: produce TOPIC FIRST COUNT [PAD] (known topic)");
    return;
  }
  char *buf = malloc(256 + (size_t)pad);
  if (!buf) {
    reply("error out of memory");
    return;
  }
  for (long long i = first; i < first + count && !stop; i++) {
    int64_t ts = BASE_MS + i;
    char key[40], seq[32];
    int len = format_event(buf, i, pad);
    int kl = snprintf(key, sizeof key, "key-%lld", i);
    snprintf(seq, sizeof seq, "%lld", i);
    if (send_one(t->name, (int32_t)(i % t->partitions), buf, (size_t)len, key, (size_t)kl, "seq",
                 seq, ts) < 0) {
      free(buf);
      return;
    }
  }
  free(buf);
  if (flush_all() == 0) reply("ok produced %lld", count);
}

static int hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Unescapes \n \t \\ \xHH in place; returns the length. */
static size_t unescape(char *s) {
  size_t o = 0;
  for (size_t i = 0; s[i]; i++) {
    if (s[i] == '\\' && s[i + 1]) {
      char c = s[++i];
      if (c == 'n')
        s[o++] = '\n';
      else if (c == 't')
        s[o++] = '\t';
      else if (c == 'x' && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
        s[o++] = (char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
        i += 2;
      } else
        s[o++] = c;
    } else {
      s[o++] = s[i];
    }
  }
  s[o] = '\0';
  return o;
}

static void cmd_raw(char *args) {
  char *sep = strstr(args, " -- ");
  if (!sep) {
    reply("error usage: raw TOPIC PARTITION [key=K] [header=N:V]... -- VALUE");
    return;
  }
  *sep = '\0';
  char *value = sep + 4;
  char *save = NULL;
  char *name = strtok_r(args, " ", &save), *ps = strtok_r(NULL, " ", &save);
  topic *t = name ? find_topic(name) : NULL;
  if (!t || !ps) {
    reply("error usage: raw TOPIC PARTITION ... (known topic)");
    return;
  }
  int32_t part = (int32_t)atoi(ps);
  const char *key = NULL;
  char hname[256] = "", *hval = NULL;
  for (char *w; (w = strtok_r(NULL, " ", &save)) != NULL;) {
    if (strncmp(w, "key=", 4) == 0)
      key = w + 4;
    else if (strncmp(w, "header=", 7) == 0 && strchr(w + 7, ':')) {
      char *c = strchr(w + 7, ':');
      *c = '\0';
      snprintf(hname, sizeof hname, "%s", w + 7);
      hval = c + 1;
    }
  }
  size_t len = unescape(value);
  if (send_one(t->name, part, value, len, key, key ? strlen(key) : 0, hname[0] ? hname : NULL, hval,
               BASE_MS) == 0 &&
      flush_all() == 0)
    reply("ok raw %zu bytes", len);
}

static void cmd_big(char *args) {
  char name[250];
  int part;
  long long bytes;
  topic *t = sscanf(args, "%249s %d %lld", name, &part, &bytes) == 3 ? find_topic(name) : NULL;
  if (!t || bytes < 32 || bytes > 100000000) {
    reply("error usage: big TOPIC PARTITION BYTES (32 .. 100000000)");
    return;
  }
  char *buf = malloc((size_t)bytes);
  if (!buf) {
    reply("error out of memory");
    return;
  }
  int h = snprintf(buf, 32, "{\"id\":-1,\"pad\":\"");
  memset(buf + h, 'x', (size_t)bytes - (size_t)h - 2);
  buf[bytes - 2] = '"';
  buf[bytes - 1] = '}';
  if (send_one(t->name, part, buf, (size_t)bytes, NULL, 0, NULL, NULL, BASE_MS) == 0 &&
      flush_all() == 0)
    reply("ok big %lld bytes", bytes);
  free(buf);
}

static void cmd_errors(char *args) {
  int api, count, code;
  if (sscanf(args, "%d %d %d", &api, &count, &code) != 3 || count <= 0 || count > 10000) {
    reply("error usage: errors APIKEY COUNT ERR");
    return;
  }
  rd_kafka_resp_err_t *errs = calloc((size_t)count, sizeof *errs);
  for (int i = 0; i < count; i++)
    errs[i] = (rd_kafka_resp_err_t)code;
  rd_kafka_mock_push_request_errors_array(cluster, (int16_t)api, (size_t)count, errs);
  free(errs);
  reply("ok errors %d x %s", count, rd_kafka_err2str((rd_kafka_resp_err_t)code));
}

static void cmd_watermarks(char *args) {
  char name[250];
  topic *t = sscanf(args, "%249s", name) == 1 ? find_topic(name) : NULL;
  if (!t) {
    reply("error usage: watermarks TOPIC");
    return;
  }
  char out[4096] = "ok";
  for (int p = 0; p < t->partitions; p++) {
    int64_t lo = -1, hi = -1;
    rd_kafka_resp_err_t e = rd_kafka_query_watermark_offsets(producer, t->name, p, &lo, &hi, 10000);
    if (e) {
      reply("error watermarks %s/%d: %s", t->name, p, rd_kafka_err2str(e));
      return;
    }
    size_t l = strlen(out);
    snprintf(out + l, sizeof out - l, " %d:%lld-%lld", p, (long long)lo, (long long)hi);
  }
  reply("%s", out);
}

/* A consumer of group @p group that never subscribes: commits and reads the
 * group's offsets. */
static rd_kafka_t *group_client(const char *group) {
  char errstr[512];
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  const char *c[][2] = {{"bootstrap.servers", rd_kafka_mock_cluster_bootstraps(cluster)},
                        {"group.id", group},
                        {"enable.auto.commit", "false"},
                        {"log_level", "3"}};
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
    if (rd_kafka_conf_set(conf, c[i][0], c[i][1], errstr, sizeof errstr)) {
      rd_kafka_conf_destroy(conf);
      reply("error %s", errstr);
      return NULL;
    }
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof errstr);
  if (!rk) reply("error %s", errstr);
  return rk;
}

static void cmd_commit(char *args) {
  char group[250], name[250];
  int part;
  long long off;
  topic *t =
      sscanf(args, "%249s %249s %d %lld", group, name, &part, &off) == 4 ? find_topic(name) : NULL;
  if (!t || part < 0 || part >= t->partitions || off < 0) {
    reply("error usage: commit GROUP TOPIC PARTITION OFFSET");
    return;
  }
  rd_kafka_t *rk = group_client(group);
  if (!rk) return;
  rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(l, t->name, part)->offset = off;
  rd_kafka_resp_err_t e = rd_kafka_commit(rk, l, 0);
  if (!e && l->elems[0].err) e = l->elems[0].err;
  rd_kafka_topic_partition_list_destroy(l);
  rd_kafka_destroy(rk);
  if (e)
    reply("error commit: %s", rd_kafka_err2str(e));
  else
    reply("ok commit %s %s %d %lld", group, t->name, part, off);
}

static void cmd_committed(char *args) {
  char group[250], name[250];
  topic *t = sscanf(args, "%249s %249s", group, name) == 2 ? find_topic(name) : NULL;
  if (!t) {
    reply("error usage: committed GROUP TOPIC");
    return;
  }
  rd_kafka_t *rk = group_client(group);
  if (!rk) return;
  rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(t->partitions);
  for (int p = 0; p < t->partitions; p++)
    rd_kafka_topic_partition_list_add(l, t->name, p);
  rd_kafka_resp_err_t e = rd_kafka_committed(rk, l, 10000);
  char out[4096] = "ok";
  for (int p = 0; !e && p < l->cnt; p++) {
    size_t n = strlen(out);
    snprintf(out + n, sizeof out - n, " %d:%lld", (int)l->elems[p].partition,
             (long long)(l->elems[p].offset < 0 ? -1 : l->elems[p].offset));
  }
  rd_kafka_topic_partition_list_destroy(l);
  rd_kafka_destroy(rk);
  if (e)
    reply("error committed: %s", rd_kafka_err2str(e));
  else
    reply("%s", out);
}

static void command(char *line) {
  size_t l = strlen(line);
  while (l && (line[l - 1] == '\n' || line[l - 1] == '\r'))
    line[--l] = '\0';
  char *args = strchr(line, ' ');
  if (args)
    *args++ = '\0';
  else
    args = line + l;
  int a, b, c;
  char name[250];
  if (line[0] == '\0' || line[0] == '#') return;
  if (strcmp(line, "produce") == 0)
    cmd_produce(args);
  else if (strcmp(line, "raw") == 0)
    cmd_raw(args);
  else if (strcmp(line, "big") == 0)
    cmd_big(args);
  else if (strcmp(line, "errors") == 0)
    cmd_errors(args);
  else if (strcmp(line, "watermarks") == 0)
    cmd_watermarks(args);
  else if (strcmp(line, "ndjson") == 0)
    cmd_ndjson(args);
  else if (strcmp(line, "commit") == 0)
    cmd_commit(args);
  else if (strcmp(line, "committed") == 0)
    cmd_committed(args);
  else if (strcmp(line, "coordinator") == 0 && sscanf(args, "group %249s %d", name, &a) == 2) {
    rd_kafka_resp_err_t e = rd_kafka_mock_coordinator_set(cluster, "group", name, a);
    if (e)
      reply("error coordinator: %s", rd_kafka_err2str(e));
    else
      reply("ok coordinator group %s %d", name, a);
  } else if (strcmp(line, "down") == 0 && sscanf(args, "%d", &a) == 1) {
    rd_kafka_resp_err_t e = rd_kafka_mock_broker_set_down(cluster, a);
    if (e)
      reply("error down %d: %s", a, rd_kafka_err2str(e));
    else
      reply("ok down %d", a);
  } else if (strcmp(line, "up") == 0 && sscanf(args, "%d", &a) == 1) {
    rd_kafka_resp_err_t e = rd_kafka_mock_broker_set_up(cluster, a);
    if (e)
      reply("error up %d: %s", a, rd_kafka_err2str(e));
    else
      reply("ok up %d", a);
  } else if (strcmp(line, "rtt") == 0 && sscanf(args, "%d %d", &a, &b) == 2) {
    rd_kafka_resp_err_t e = rd_kafka_mock_broker_set_rtt(cluster, a, b);
    if (e)
      reply("error rtt: %s", rd_kafka_err2str(e));
    else
      reply("ok rtt %d %d", a, b);
  } else if (strcmp(line, "leader") == 0 && sscanf(args, "%249s %d %d", name, &b, &c) == 3) {
    rd_kafka_resp_err_t e = rd_kafka_mock_partition_set_leader(cluster, name, b, c);
    if (e)
      reply("error leader: %s", rd_kafka_err2str(e));
    else
      reply("ok leader %s %d %d", name, b, c);
  } else if (strcmp(line, "sleep") == 0 && sscanf(args, "%d", &a) == 1) {
    struct timespec ts = {a / 1000, (long)(a % 1000) * 1000000L};
    nanosleep(&ts, NULL);
    reply("ok sleep");
  } else if (strcmp(line, "quit") == 0) {
    stop = 1;
    reply("ok quit");
  } else {
    reply("error unknown command or bad arguments: %s", line);
  }
}

static void usage(void) {
  fprintf(stderr, "usage: kafka_mock [--brokers N] [--topic NAME[:PARTITIONS]]...\n"
                  "(commands on stdin: see the comment at the top of tests/tools/kafka_mock.c)\n");
  exit(2);
}

int main(int argc, char **argv) {
  int brokers = 3;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--brokers") == 0 && i + 1 < argc) {
      brokers = atoi(argv[++i]);
      if (brokers < 1 || brokers > 16) usage();
    } else if (strcmp(argv[i], "--topic") == 0 && i + 1 < argc && n_topics < MAX_TOPICS) {
      topic *t = &topics[n_topics++];
      snprintf(t->name, sizeof t->name, "%s", argv[++i]);
      char *c = strchr(t->name, ':');
      t->partitions = 6;
      if (c) {
        *c = '\0';
        t->partitions = atoi(c + 1);
      }
      if (!t->name[0] || t->partitions < 1 || t->partitions > 1000) usage();
    } else {
      usage();
    }
  }
  if (n_topics == 0) {
    snprintf(topics[0].name, sizeof topics[0].name, "events");
    topics[0].partitions = 6;
    n_topics = 1;
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);

  char errstr[512];
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "log_level", "3", errstr, sizeof errstr);
  owner = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
  if (!owner) {
    fprintf(stderr, "kafka_mock: %s\n", errstr);
    return 1;
  }
  cluster = rd_kafka_mock_cluster_new(owner, brokers);
  if (!cluster) {
    fprintf(stderr, "kafka_mock: cannot create the mock cluster\n");
    return 1;
  }
  for (int i = 0; i < n_topics; i++) {
    rd_kafka_resp_err_t e = rd_kafka_mock_topic_create(
        cluster, topics[i].name, topics[i].partitions, brokers < 3 ? brokers : 3);
    if (e) {
      fprintf(stderr, "kafka_mock: topic %s: %s\n", topics[i].name, rd_kafka_err2str(e));
      return 1;
    }
  }
  const char *bootstraps = rd_kafka_mock_cluster_bootstraps(cluster);

  conf = rd_kafka_conf_new();
  const char *pconf[][2] = {{"bootstrap.servers", bootstraps},
                            {"enable.idempotence", "true"},
                            {"acks", "all"},
                            {"linger.ms", "5"},
                            {"batch.num.messages", "10000"},
                            {"log_level", "3"},
                            {"message.max.bytes", "200000000"},
                            {"queue.buffering.max.kbytes", "262144"}};
  for (size_t i = 0; i < sizeof pconf / sizeof pconf[0]; i++)
    if (rd_kafka_conf_set(conf, pconf[i][0], pconf[i][1], errstr, sizeof errstr)) {
      fprintf(stderr, "kafka_mock: %s\n", errstr);
      return 1;
    }
  rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
  producer = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
  if (!producer) {
    fprintf(stderr, "kafka_mock: %s\n", errstr);
    return 1;
  }
  reply("bootstrap %s", bootstraps);

  char *line = NULL;
  size_t cap = 0;
  while (!stop) {
    errno = 0;
    ssize_t n = getline(&line, &cap, stdin);
    if (n < 0) {
      if (errno == EINTR && !stop) {
        clearerr(stdin);
        continue;
      }
      break;
    }
    command(line);
  }
  free(line);
  rd_kafka_flush(producer, 2000);
  rd_kafka_destroy(producer);
  rd_kafka_mock_cluster_destroy(cluster);
  rd_kafka_destroy(owner);
  return 0;
}
