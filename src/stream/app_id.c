/*
 * Which progress record (application id, the txn appId prefix) an ingester
 * uses (include/inlet/ingest.h, "Application ids"; docs/INGEST.md).
 *
 * The default id names the source canonically, so that spelling does not
 * matter: a file by its real path (relative or absolute, symlinks, "..",
 * doubled slashes), a Redis stream by lower-case host (every loopback
 * spelling is "localhost"), explicit port and stream name without the
 * slashes around it.
 *
 * Spelling is not identity, though: "redis-a" and "10.0.0.5" may be one
 * server, and two servers may both have a stream "clicks". A Redis server
 * has no identity that survives a restart, so an ingester without --app-id
 * refuses to start a new progress record while the table already tracks a
 * source of the same kind and stream name under another id (a file: the
 * same inode with the same first bytes), and asks for --app-id. Every Redis
 * progress record carries APP#src (a hash of its stream name) so that a
 * record under any id can be recognised.
 *
 * Compatibility: older versions used "inlet-ingest:" + the source as spelt
 * (files made absolute). A table whose progress is recorded under such an id
 * keeps it: when the canonical id has no progress, a recorded default-form id
 * whose source is the same one canonically is continued (several of them:
 * refused, the user chooses with --app-id).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "delta/delta.h"
#include "stream/stream.h"
#include "util/util.h"

#define ID_PREFIX "inlet-ingest:"
#define SHOW_MAX 4 /* ids named in a message */

/* ---- canonical source text --------------------------------------------------- */

static bool is_loopback(const char *host) {
  if (strcmp(host, "localhost") == 0 || strcmp(host, "localhost.") == 0) return true;
  struct in_addr a4;
  if (inet_pton(AF_INET, host, &a4) == 1) return (ntohl(a4.s_addr) >> 24) == 127;
  struct in6_addr a6;
  if (inet_pton(AF_INET6, host, &a6) == 1) {
    if (IN6_IS_ADDR_LOOPBACK(&a6)) return true;
    return IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127;
  }
  return false;
}

/* "redis://HOST:PORT/STREAM" canonically; -1 when @p url does not parse. */
static int canon_redis(char *out, size_t cap, const char *url) {
  char host[256], key[512];
  int port;
  inlet_error e = INLET_ERROR_INIT;
  if (stream_redis_parse_url(host, sizeof host, &port, key, sizeof key, url, &e) < 0) return -1;
  for (char *p = host; *p; p++)
    *p = (char)tolower((unsigned char)*p);
  if (is_loopback(host)) snprintf(host, sizeof host, "localhost");
  bool v6 = strchr(host, ':') != NULL;
  return snprintf(out, cap, "redis://%s%s%s:%d/%s", v6 ? "[" : "", host, v6 ? "]" : "", port, key);
}

/* Absolute @p path with ".", ".." and repeated slashes resolved textually. */
static void lexical_path(char *out, size_t cap, const char *path) {
  char joined[PATH_MAX * 2];
  char cwd[PATH_MAX] = "";
  if (path[0] != '/' && !getcwd(cwd, sizeof cwd)) cwd[0] = '\0';
  snprintf(joined, sizeof joined, "%s/%s", cwd, path);
  size_t n = 0;
  out[0] = '\0';
  for (char *seg = joined, *next; seg && *seg; seg = next) {
    next = strchr(seg, '/');
    size_t len = next ? (size_t)(next - seg) : strlen(seg);
    if (next) next++;
    if (len == 0 || (len == 1 && seg[0] == '.')) continue;
    if (len == 2 && seg[0] == '.' && seg[1] == '.') {
      while (n > 0 && out[n - 1] != '/')
        n--;
      if (n > 0) n--; /* the slash */
      out[n] = '\0';
      continue;
    }
    if (n + 1 + len + 1 > cap) break;
    out[n++] = '/';
    memcpy(out + n, seg, len);
    n += len;
    out[n] = '\0';
  }
  if (n == 0 && cap > 1) snprintf(out, cap, "/");
}

/* The real path of @p path; for a file that does not exist (yet), its real
 * directory and its name; else the path made absolute textually. */
static void canon_file(char *out, size_t cap, const char *path) {
  char *abs = realpath(path, NULL);
  if (abs) {
    snprintf(out, cap, "%s", abs);
    free(abs);
    return;
  }
  const char *slash = strrchr(path, '/');
  if (slash && slash[1]) {
    char dir[PATH_MAX];
    size_t dl = (size_t)(slash - path);
    if (dl == 0) dl = 1; /* "/name" */
    if (dl < sizeof dir) {
      memcpy(dir, path, dl);
      dir[dl] = '\0';
      char *rdir = realpath(dir, NULL);
      if (rdir) {
        snprintf(out, cap, "%s%s%s", rdir, strcmp(rdir, "/") == 0 ? "" : "/", slash + 1);
        free(rdir);
        return;
      }
    }
  } else if (!slash) {
    char *rdir = realpath(".", NULL);
    if (rdir) {
      snprintf(out, cap, "%s%s%s", rdir, strcmp(rdir, "/") == 0 ? "" : "/", path);
      free(rdir);
      return;
    }
  }
  lexical_path(out, cap, path);
}

int64_t inlet_ingest_default_app_id(char *out, size_t cap, const char *source) {
  if (!source || !*source || (cap > 0 && !out)) return INLET_EINVAL;
  if (strcmp(source, "stdin") == 0 || strcmp(source, "-") == 0)
    return snprintf(out, cap, ID_PREFIX "stdin");
  if (strncmp(source, "file:", 5) == 0 && source[5]) {
    char path[PATH_MAX * 2];
    canon_file(path, sizeof path, source + 5);
    return snprintf(out, cap, ID_PREFIX "file:%s", path);
  }
  if (strncmp(source, "redis://", 8) == 0) {
    char url[1024];
    int n = canon_redis(url, sizeof url, source);
    if (n > 0 && (size_t)n < sizeof url) return snprintf(out, cap, ID_PREFIX "%s", url);
  }
  if (strncmp(source, "kafka://", 8) == 0) {
    /* The topics, sorted: the brokers' spelling is not the cluster's identity. */
    char brokers[2048], buf[4096], list[4200] = "";
    const char *topics[64];
    inlet_error e = INLET_ERROR_INIT;
    int n =
        stream_kafka_parse_url(brokers, sizeof brokers, buf, sizeof buf, topics, 64, source, &e);
    if (n <= 0) return INLET_EINVAL;
    for (int i = 0; i < n; i++)
      snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? "," : "", topics[i]);
    return snprintf(out, cap, ID_PREFIX "kafka:%s", list);
  }
  return snprintf(out, cap, ID_PREFIX "%s", source);
}

int64_t stream_legacy_app_id(char *out, size_t cap, const char *source) {
  if (!source || !*source) return INLET_EINVAL;
  if (strncmp(source, "file:", 5) == 0) {
    char *abs = realpath(source + 5, NULL), cwd[PATH_MAX] = "";
    if (!abs && source[5] != '/' && !getcwd(cwd, sizeof cwd)) cwd[0] = '\0';
    int n = abs ? snprintf(out, cap, ID_PREFIX "file:%s", abs)
                : snprintf(out, cap, ID_PREFIX "file:%s%s%s", cwd, *cwd ? "/" : "", source + 5);
    free(abs);
    return n;
  }
  if (strcmp(source, "-") == 0) source = "stdin";
  return snprintf(out, cap, ID_PREFIX "%s", source);
}

int64_t stream_source_tag(const char *source) {
  char host[256], key[512], text[600];
  int port;
  inlet_error e = INLET_ERROR_INIT;
  if (!source || strncmp(source, "redis://", 8) != 0 ||
      stream_redis_parse_url(host, sizeof host, &port, key, sizeof key, source, &e) < 0)
    return 0;
  int n = snprintf(text, sizeof text, "redis:%s", key);
  int64_t tag = stream_fingerprint(text, (size_t)n);
  return tag == 0 ? 1 : tag;
}

/* ---- progress records in a snapshot ------------------------------------------ */

static int64_t txn_of(const delta_snapshot *s, const char *app, const char *suffix) {
  char name[1200];
  if ((size_t)snprintf(name, sizeof name, "%s%s", app, suffix) >= sizeof name) return -1;
  return delta_snapshot_txn_version(s, name);
}

static bool has_progress(const delta_snapshot *s, const char *app) {
  return txn_of(s, app, "") >= 0 && txn_of(s, app, "#p1") >= 0;
}

/* Calls @p fn for the app id of every progress record in @p s (every APP
 * with APP and APP#p1; late-table records APP#late are not ingest progress). */
typedef void (*record_fn)(void *ctx, const char *app);
static void each_record(const delta_snapshot *s, record_fn fn, void *ctx) {
  char app[1200];
  for (int64_t i = 0; i < s->n_txns; i++) {
    const char *id = s->txns[i].app_id;
    size_t n = id ? strlen(id) : 0;
    if (n < 4 || strcmp(id + n - 3, "#p1") != 0 || n - 3 >= sizeof app) continue;
    memcpy(app, id, n - 3);
    app[n - 3] = '\0';
    size_t an = n - 3;
    if (an >= 5 && strcmp(app + an - 5, "#late") == 0) continue;
    if (delta_snapshot_txn_version(s, app) < 0) continue;
    fn(ctx, app);
  }
}

typedef struct matches {
  const delta_snapshot *s;
  const char *self;   /* excluded */
  const char *canon;  /* same_spelling: the canonical default id */
  const char *source; /* same_source: the source */
  int64_t tag;        /* redis: stream tag */
  char key[512];      /* redis: stream name */
  int64_t ino;        /* file: inode of what the path names, -1 none */
  int fd;             /* file: open on it, -1 none */
  int count;
  char first[800]; /* the first match */
  char list[2400]; /* up to SHOW_MAX matches, quoted, comma-separated */
} matches;

static void add_match(matches *m, const char *app) {
  if (m->count == 0) snprintf(m->first, sizeof m->first, "%.*s", (int)sizeof m->first - 1, app);
  if (m->count < SHOW_MAX) {
    size_t l = strlen(m->list);
    snprintf(m->list + l, sizeof m->list - l, "%s\"%s\"", l ? ", " : "", app);
  }
  m->count++;
}

/* A record under a default-form id whose source is ours, spelt differently. */
static void same_spelling(void *ctx, const char *app) {
  matches *m = ctx;
  if (strcmp(app, m->self) == 0 || strncmp(app, ID_PREFIX, strlen(ID_PREFIX)) != 0) return;
  char canon[PATH_MAX * 2 + 64];
  int64_t n = inlet_ingest_default_app_id(canon, sizeof canon, app + strlen(ID_PREFIX));
  if (n > 0 && (size_t)n < sizeof canon && strcmp(canon, m->canon) == 0) add_match(m, app);
}

/* A record of the same Redis stream name, or of the same file. */
static void same_source(void *ctx, const char *app) {
  matches *m = ctx;
  if (strcmp(app, m->self) == 0) return;
  if (m->tag) {
    int64_t tag = txn_of(m->s, app, "#src");
    if (tag >= 0) {
      if (tag == m->tag) add_match(m, app);
      return;
    }
    /* A record from before APP#src: known by its default-form id only. */
    char host[256], key[512];
    int port;
    inlet_error e = INLET_ERROR_INIT;
    size_t pl = strlen(ID_PREFIX);
    if (strncmp(app, ID_PREFIX "redis://", pl + 8) == 0 &&
        stream_redis_parse_url(host, sizeof host, &port, key, sizeof key, app + pl, &e) == 0 &&
        strcmp(key, m->key) == 0)
      add_match(m, app);
    return;
  }
  if (m->fd < 0 || txn_of(m->s, app, "#p0") != m->ino) return;
  int64_t off = txn_of(m->s, app, "#p1"), fp = txn_of(m->s, app, "#p2");
  if (off < 0 || fp <= 0) return;
  char b[STREAM_FP_BYTES];
  size_t want = off < (int64_t)sizeof b ? (size_t)off : sizeof b, got = 0;
  while (got < want) {
    ssize_t r = pread(m->fd, b + got, want - got, (off_t)got);
    if (r <= 0) break;
    got += (size_t)r;
  }
  if (got == want && stream_fingerprint(b, want) == fp) add_match(m, app);
}

static void find_same_source(matches *m, const delta_snapshot *s, const char *source,
                             const char *self) {
  memset(m, 0, sizeof *m);
  m->s = s;
  m->self = self;
  m->source = source;
  m->fd = -1;
  m->ino = -1;
  m->tag = stream_source_tag(source);
  if (m->tag) {
    char host[256];
    int port;
    inlet_error e = INLET_ERROR_INIT;
    if (stream_redis_parse_url(host, sizeof host, &port, m->key, sizeof m->key, source, &e) < 0)
      return;
  } else if (strncmp(source, "file:", 5) == 0) {
    m->fd = open(source + 5, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (m->fd >= 0 && (fstat(m->fd, &st) < 0 || !S_ISREG(st.st_mode))) {
      close(m->fd);
      m->fd = -1;
    }
    if (m->fd >= 0) m->ino = (int64_t)st.st_ino;
    if (m->fd < 0) return;
  } else {
    return; /* stdin: no identity to compare */
  }
  each_record(s, same_source, m);
  if (m->fd >= 0) close(m->fd);
  m->fd = -1;
}

static const char *what(const matches *m) {
  return m->tag ? "Redis stream" : "file";
}

/* ---- Kafka ---------------------------------------------------------------------- */

/* Kafka progress records are per partition: "APP#topic#partition". Calls @p fn
 * for each distinct APP recording one of @p topics. */
typedef struct kafka_records {
  const char *self;
  bool self_found;
  int count;
  char first[800];
  char list[2400];
  char topic[256]; /* of the first other record */
} kafka_records;

static void find_kafka_records(kafka_records *r, const delta_snapshot *s, const char *const *topics,
                               int n_topics, const char *self) {
  memset(r, 0, sizeof *r);
  r->self = self;
  for (int64_t i = 0; i < s->n_txns; i++) {
    const char *id = s->txns[i].app_id;
    const char *h2 = id ? strrchr(id, '#') : NULL;
    if (!h2 || !h2[1] || h2 == id) continue;
    bool digits = true;
    for (const char *c = h2 + 1; *c && digits; c++)
      digits = isdigit((unsigned char)*c);
    if (!digits) continue;
    const char *h1 = h2 - 1;
    while (h1 > id && *h1 != '#')
      h1--;
    if (*h1 != '#' || h1 == id) continue;
    size_t tl = (size_t)(h2 - h1 - 1), al = (size_t)(h1 - id);
    bool ours = false;
    for (int t = 0; t < n_topics && !ours; t++)
      ours = strlen(topics[t]) == tl && strncmp(topics[t], h1 + 1, tl) == 0;
    if (!ours || al >= 800) continue;
    char app[800];
    memcpy(app, id, al);
    app[al] = '\0';
    if (strcmp(app, self) == 0) {
      r->self_found = true;
      continue;
    }
    char quoted[820];
    snprintf(quoted, sizeof quoted, "\"%s\"", app);
    if (strstr(r->list, quoted)) continue;
    if (r->count == 0) {
      snprintf(r->first, sizeof r->first, "%s", app);
      snprintf(r->topic, sizeof r->topic, "%.*s", (int)tl, h1 + 1);
    }
    if (r->count < SHOW_MAX) {
      size_t l = strlen(r->list);
      snprintf(r->list + l, sizeof r->list - l, "%s%s", l ? ", " : "", quoted);
    }
    r->count++;
  }
}

/* A new Kafka progress record is refused (no app id given) or announced
 * (given) while the table records one of the topics under another id: the
 * topic would be read again from --kafka-start, duplicating it. */
static int choose_kafka(char *out, size_t cap, const delta_snapshot *s, const char *source,
                        const char *given, inlet_buf *warn, inlet_error *err) {
  char brokers[2048], buf[4096];
  const char *topics[64];
  /* A malformed URL is reported as such, not as "cannot derive an app id". */
  int nt =
      stream_kafka_parse_url(brokers, sizeof brokers, buf, sizeof buf, topics, 64, source, err);
  TRY(nt);
  if (given) {
    FAIL_IF(!*given || strlen(given) >= cap, err, INLET_EINVAL, "bad app id");
    snprintf(out, cap, "%s", given);
  } else {
    int64_t n = inlet_ingest_default_app_id(out, cap, source);
    FAIL_IF(n < 0 || n >= (int64_t)cap, err, INLET_EINVAL,
            "cannot derive an app id from source \"%s\" (give --app-id)", source);
  }
  if (!s) return 0;
  kafka_records r;
  find_kafka_records(&r, s, topics, nt, out);
  if (r.count == 0 || r.self_found) return 0;
  if (given) {
    inlet_buf_appendf(warn,
                      "starting a new progress record under app id \"%s\" for Kafka topic "
                      "\"%s\", which the table already tracks under %s: partitions without a "
                      "record under \"%s\" are read from --kafka-start",
                      given, r.topic, r.list, given);
    return 0;
  }
  return inlet_fail(err, INLET_EEXISTS,
                    "the table already records progress for Kafka topic \"%s\" under app id "
                    "%s; %s would start a new progress record and read the topic again from "
                    "--kafka-start. If it is the same topic, run with --app-id '%s' (or the "
                    "--group that named it); to ingest it again on purpose, give a new --app-id",
                    r.topic, r.list, source, r.first);
}

int stream_choose_app_id(char *out, size_t cap, const struct delta_snapshot *s, const char *source,
                         const char *given, inlet_buf *warn, inlet_error *err) {
  if (source && strncmp(source, "kafka://", 8) == 0)
    return choose_kafka(out, cap, s, source, given, warn, err);
  if (given) {
    FAIL_IF(!*given || strlen(given) >= cap, err, INLET_EINVAL, "bad app id");
    snprintf(out, cap, "%s", given);
    if (s && !has_progress(s, given)) {
      matches m;
      find_same_source(&m, s, source, given);
      if (m.count)
        inlet_buf_appendf(warn,
                          "starting a new progress record under app id \"%s\" for a %s "
                          "the table already tracks under %s: it is read from its start",
                          given, what(&m), m.list);
    }
    return 0;
  }
  int64_t n = inlet_ingest_default_app_id(out, cap, source);
  FAIL_IF(n < 0 || n >= (int64_t)cap, err, INLET_EINVAL,
          "cannot derive an app id from source \"%s\" (give --app-id)", source);
  if (!s || has_progress(s, out)) return 0;
  /* Progress recorded under another spelling of this source (older versions
   * used the spelling itself as the id). */
  matches m;
  memset(&m, 0, sizeof m);
  m.s = s;
  m.self = out;
  m.canon = out;
  each_record(s, same_spelling, &m);
  if (m.count > 1)
    return inlet_fail(err, INLET_EEXISTS,
                      "the table records progress for source %s under "
                      "several app ids (%s): say which one to continue with --app-id",
                      source, m.list);
  if (m.count == 1) {
    char legacy[1200];
    int64_t ln = stream_legacy_app_id(legacy, sizeof legacy, source);
    if (ln < 0 || (size_t)ln >= sizeof legacy || strcmp(legacy, m.first) != 0)
      inlet_buf_appendf(warn,
                        "continuing the progress recorded under app id \"%s\" (this "
                        "source, spelt differently)",
                        m.first);
    FAIL_IF(strlen(m.first) >= cap, err, INLET_EINVAL, "app id too long");
    snprintf(out, cap, "%s", m.first);
    return 0;
  }
  /* A new progress record: not while the table tracks this source (or
   * another of the same stream name) under another id. */
  find_same_source(&m, s, source, out);
  if (m.count == 0) return 0;
  if (m.tag)
    return inlet_fail(err, INLET_EEXISTS,
                      "the table already records progress for Redis stream "
                      "\"%s\" under app id %s; %s would start a new progress record and read the "
                      "stream from its start. A Redis server has no identity inlet can check: if "
                      "this is the same stream, run with --app-id '%s'; if it is another "
                      "server's stream, give it its own --app-id (recommended in production)",
                      m.key, m.list, source, m.first);
  return inlet_fail(err, INLET_EEXISTS,
                    "the table already records progress for this file "
                    "(inode %lld, same first bytes) under app id %s; %s would start a new "
                    "progress record and read it again from its start. If it is the same file "
                    "reached by another path, run with --app-id '%s'; to ingest it again on "
                    "purpose, give a new --app-id",
                    (long long)m.ino, m.list, source, m.first);
}
