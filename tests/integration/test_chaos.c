/*
 * The chaos suite (issue 12, "Proof"): one table on a small tmpfs fed at the
 * same time by three ingesters — a file, a Redis stream and stdin — and by
 * `inlet append` of batch files (retried after a failure with the same
 * --app-id/--app-version until the table's txn shows the batch), whose
 * records are corrupted at random (random bytes, truncated lines, invalid
 * UTF-8, wrong types, huge and oversized values, partition values of random
 * bytes and lengths), while compaction, vacuum (short retention, so it
 * deletes), checkpoints and `maintain` (compaction, vacuum, log cleanup)
 * run beside them; every one of these processes (every writing command),
 * and Redis itself, is SIGKILLed at random moments; the tmpfs fills up and
 * goes read-only now and then. Then:
 *
 *   - every event is accounted for exactly once: the table's rows (read by
 *     `inlet scan`, by the library and by refcheck, the independent
 *     DuckDB-based reader) and the dead letters under _errors/ together are
 *     the input, each record once (append: what --skip-bad skipped is in
 *     neither). The one documented exception is stdin,
 *     which cannot be replayed: per ingester process, what it read but had
 *     not committed when it died is lost — so the records accounted for are
 *     a prefix of what that process was sent (nothing duplicated, no hole),
 *     and all of them when it saw the end of its input;
 *   - a record that is valid JSON of the right types is a row whose values
 *     are exactly the input's (jansson is the oracle); one that is not is a
 *     dead letter, with the offset (file) or entry id (Redis) it came from;
 *   - the table as the chaos left it passes the protocol rules checker
 *     (tests/support/delta_rules.h);
 *   - every version is readable (`inlet scan --version V` for all V the log
 *     can still reconstruct), holds no duplicate and no unknown id, and holds
 *     every id of the version before it (nothing is ever deleted); versions
 *     whose files a vacuum may legitimately have deleted, or that log
 *     cleanup removed, fail cleanly; refcheck reads the latest and a few
 *     earlier versions with the same rows as inlet;
 *   - no process ever dies of a signal we did not send, no sanitizer
 *     report, and a process exits with an error only while the disk was
 *     full or read-only (or, for Redis, the server was down), or, for a
 *     compactor, on a conflict with the other compactor.
 *
 * Knobs (environment): INLET_CHAOS_SEED (default: time-based, printed),
 * INLET_CHAOS_SECONDS (chaos phase; default 20, the short form ctest runs;
 * `make chaos` runs scripts/chaos.sh, 1800 s by default), INLET_CHAOS_CLI_EVERY
 * (`inlet scan --version` for every Nth version; default 16, 4 from 300 s
 * on; the library reads every version), INLET_CHAOS_VERBOSE=1 (log every action),
 * INLET_CHAOS_KEEP=1 (keep the work directory). A failure prints the seed and the work directory.
 *
 * The disk faults need a private mount namespace: as root (CI) the test
 * unshares one and mounts a tmpfs there; otherwise it tries a user
 * namespace. Where neither is allowed it fails, naming the cause (set
 * INLET_CHAOS_NO_DISK=1 to run the rest without the disk faults).
 */
#include "testutil.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <jansson.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "inlet/inlet.h"

/* ---- small utilities ------------------------------------------------------ */

static uint64_t rng_s;
static uint64_t rnd64(void) {
  uint64_t z = (rng_s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
static int64_t rnd(int64_t n) {
  return n > 0 ? (int64_t)(rnd64() % (uint64_t)n) : 0;
}
static int64_t rnd_in(int64_t lo, int64_t hi) {
  return lo + rnd(hi - lo + 1);
}
static bool chance(double p) {
  return (double)(rnd64() >> 11) * 0x1.0p-53 < p;
}

static int64_t mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
static int64_t wall_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
static void sleep_ms(int64_t ms) {
  struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static uint64_t fnv(const void *data, size_t n) {
  const uint8_t *p = data;
  uint64_t h = 14695981039346656037ULL;
  for (size_t i = 0; i < n; i++)
    h = (h ^ p[i]) * 1099511628211ULL;
  return h;
}

typedef struct sbuf {
  char *p;
  size_t n, cap;
} sbuf;
static void sb_need(sbuf *b, size_t more) {
  if (b->n + more + 1 <= b->cap) return;
  size_t c = b->cap ? b->cap : 256;
  while (c < b->n + more + 1)
    c *= 2;
  b->p = realloc(b->p, c);
  assert_non_null(b->p);
  b->cap = c;
}
static void sb_add(sbuf *b, const void *d, size_t n) {
  sb_need(b, n);
  memcpy(b->p + b->n, d, n);
  b->n += n;
  b->p[b->n] = '\0';
}
static void sb_puts(sbuf *b, const char *s) {
  sb_add(b, s, strlen(s));
}
static void sb_putc(sbuf *b, char c) {
  sb_add(b, &c, 1);
}
static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char tmp[512];
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  sb_add(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}
/* Drops the first @p n bytes. */
static void sb_consume(sbuf *b, size_t n) {
  memmove(b->p, b->p + n, b->n - n);
  b->n -= n;
}

static bool verbose;
#define LOG(...)                                                                                   \
  do {                                                                                             \
    if (verbose) {                                                                                 \
      fprintf(stderr, "[chaos %7.3f] ", (double)(mono_ms() - g_t0) / 1000.0);                      \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
    }                                                                                              \
  } while (0)
static int64_t g_t0;

/* ---- the records ------------------------------------------------------------ */

/* SRC_APPEND: batch files committed by `inlet append --skip-bad --app-id
 * chaos-append --app-version N`, retried after a kill or an error until the
 * table's txn action shows batch N (so each batch is in once). */
enum { SRC_FILE, SRC_REDIS, SRC_STDIN, SRC_APPEND, N_SRC };
static const char *const src_name[N_SRC] = {"file", "redis", "stdin", "append"};
static const char *const src_tag[N_SRC] = {"f", "r", "s", "a"};
static const char *const src_app[N_SRC] = {"chaos-file", "chaos-redis", "chaos-stdin",
                                           "chaos-append"};

enum kind {
  K_VALID,
  K_PART,     /* partition value of random bytes and length */
  K_TYPE,     /* a value of the wrong type */
  K_TRUNC,    /* the line cut short */
  K_GARBAGE,  /* random bytes */
  K_BYTES,    /* random bytes inserted into a string */
  K_UTF8,     /* invalid UTF-8 inserted into a string */
  K_HUGE,     /* a 0.5-3 MB value */
  K_OVERSIZE, /* past the 16 MiB record limit */
  K_SPACED,   /* valid JSON spread over lines (Redis) or ending in CRLF (lines) */
  K_RANGE,    /* an integer past the long range */
  N_KIND
};
static const char *const kind_name[N_KIND] = {"valid",    "partition", "type", "truncated",
                                              "garbage",  "bytes",     "utf8", "huge",
                                              "oversize", "spaced",    "range"};

enum expect { E_ROW, E_REJECT, E_EITHER };

typedef struct rec {
  uint8_t src, kind, expect;
  bool oracle; /* jansson decoded it: values below hold */
  bool k_null;
  int32_t instance; /* stdin: the ingester process it was sent to; append: its batch */
  int64_t off;      /* file: byte offset of the line; stdin: within its instance */
  int64_t len;      /* bytes including the newline */
  int64_t v;
  bool v_null;
  uint64_t k_hash, body_hash;
  int64_t k_len, body_len;
  uint8_t k_head[8]; /* the partition value's first bytes, for a finding's message */
  int64_t redis_ms;  /* entry id <redis_ms>-0 */
  /* results */
  int32_t rows_cli, rows_api, rows_ref, dead;
  bool value_mismatch;
} rec;

static rec *recs;
static int64_t n_recs, cap_recs;

static int64_t new_rec(int src) {
  if (n_recs == cap_recs) {
    cap_recs = cap_recs ? cap_recs * 2 : 4096;
    recs = realloc(recs, (size_t)cap_recs * sizeof *recs);
    assert_non_null(recs);
  }
  memset(&recs[n_recs], 0, sizeof recs[n_recs]);
  recs[n_recs].src = (uint8_t)src;
  recs[n_recs].instance = -1;
  return n_recs++;
}

/* A JSON string of @p n bytes; bytes >= 0x80 raw (so possibly invalid UTF-8)
 * or as \u00XX escapes. */
static void json_bytes(sbuf *b, const uint8_t *s, size_t n, bool raw_high) {
  sb_putc(b, '"');
  for (size_t i = 0; i < n; i++) {
    uint8_t c = s[i];
    if (c == '"' || c == '\\') {
      sb_putc(b, '\\');
      sb_putc(b, (char)c);
    } else if (c < 0x20 || c == 0x7f || (c >= 0x80 && !raw_high)) {
      sb_printf(b, "\\u%04x", c);
    } else {
      sb_putc(b, (char)c);
    }
  }
  sb_putc(b, '"');
}

static const char *const valid_utf8[] = {"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\\n",
                                         "\\\"",     "\\u00e9",      "\\ud83d\\ude00",   "/",
                                         " "};
static const char *const bad_utf8[] = {"\xc3",         "\xff",     "\xfe\xfe",
                                       "\xed\xa0\x80", "\xc0\xaf", "\xf8\x88\x80\x80\x80",
                                       "\xe2\x82",     "\x80",     "\xf4\x90\x80\x80"};

static void gen_body(sbuf *b, int64_t len) {
  for (int64_t i = 0; i < len; i++) {
    if (rnd(16) == 0)
      sb_puts(b, valid_utf8[rnd(9)]);
    else
      sb_putc(b, (char)('a' + rnd(26)));
  }
}

/* A partition value of random bytes, with lengths around the 255-byte
 * limits of a path component. */
static void gen_partition(sbuf *b) {
  /* Values that look like a null, or like a marker or separator byte, to
   * some key or directory name: each must stay its own partition. */
  static const char *const alike[] = {"__HIVE_DEFAULT_PARTITION__",
                                      "\x1e",
                                      "\x1f",
                                      "\x01null",
                                      "null",
                                      "\x02",
                                      "%",
                                      "%25",
                                      "N",
                                      "V1:"};
  if (chance(0.15)) {
    const char *a = alike[rnd(10)];
    json_bytes(b, (const uint8_t *)a, strlen(a), chance(0.5));
    return;
  }
  static const int64_t lens[] = {0, 1, 2, 84, 85, 86, 127, 128, 254, 255, 256, 300, 1000};
  int64_t n = chance(0.5) ? lens[rnd(13)] : rnd(320);
  uint8_t *v = malloc((size_t)n + 1);
  for (int64_t i = 0; i < n; i++) {
    int64_t c = rnd(10);
    if (c < 5)
      v[i] = (uint8_t)rnd_in(0x20, 0x7e);
    else if (c == 5)
      v[i] = "/.%=\\\"# :"[rnd(9)];
    else
      v[i] = (uint8_t)rnd(256);
  }
  if (n >= 1 && chance(0.1)) v[0] = '.', n = n > 2 ? 2 : n, v[n - 1] = '.';
  json_bytes(b, v, (size_t)n, chance(0.5));
  free(v);
}

/* Inserts @p n bytes of @p ins at a random place inside the body's value,
 * i.e. after @p from in @p line. */
static void insert_at(sbuf *line, size_t from, size_t to, const char *ins, size_t n) {
  size_t at = to > from ? from + (size_t)rnd((int64_t)(to - from)) : from;
  sb_need(line, n);
  memmove(line->p + at + n, line->p + at, line->n - at);
  memcpy(line->p + at, ins, n);
  line->n += n;
  line->p[line->n] = '\0';
}

static int64_t oversize_left; /* oversize records still allowed in this run */
static void judge(rec *r, const char *line, size_t len);

/* Generates record @p i's bytes (without the newline) into @p line. */
static void gen_line(sbuf *line, rec *r, int64_t id) {
  line->n = 0;
  int64_t d = rnd(1000);
  int kind = d < 700   ? K_VALID
             : d < 760 ? K_PART
             : d < 790 ? K_TYPE
             : d < 820 ? K_TRUNC
             : d < 850 ? K_GARBAGE
             : d < 890 ? K_BYTES
             : d < 920 ? K_UTF8
             : d < 940 ? K_SPACED
             : d < 955 ? K_RANGE
             : d < 957 ? K_HUGE
             : d < 958 ? K_OVERSIZE
                       : K_VALID;
  /* (append reads a whole file: past the record limit is its error, not a
   * skipped record) */
  if (kind == K_OVERSIZE && (oversize_left <= 0 || r->src == SRC_APPEND)) kind = K_HUGE;
  if (kind == K_OVERSIZE) oversize_left--;
  r->kind = (uint8_t)kind;
  bool lines = r->src != SRC_REDIS;
  if (kind == K_GARBAGE) {
    sb_printf(line, "~G%lld~", (long long)id);
    int64_t n = rnd(120);
    for (int64_t i = 0; i < n; i++) {
      char c = (char)rnd(256);
      if (lines && (c == '\n' || c == '\r')) c = 'x';
      sb_putc(line, c);
    }
    judge(r, line->p, line->n);
    return;
  }
  const char *sep = kind == K_SPACED && !lines ? ",\n  " : ",";
  sb_printf(line, "{\"id\":%lld%s\"src\":\"%s\"%s\"k\":", (long long)id, sep, src_tag[r->src], sep);
  if (kind == K_PART)
    gen_partition(line);
  else if (chance(0.03))
    sb_puts(line, "null");
  else
    sb_printf(line, "\"p%d\"", (int)rnd(4));
  sb_printf(line, "%s\"v\":", sep);
  if (kind == K_TYPE) {
    static const char *const bad[] = {"\"12x\"", "1.5", "true", "[1]", "{\"a\":1}", "\"\""};
    sb_puts(line, bad[rnd(6)]);
  } else if (kind == K_RANGE) {
    sb_puts(line, chance(0.5) ? "9223372036854775808" : "-9223372036854775809");
  } else if (chance(0.02)) {
    sb_puts(line, "null");
  } else if (chance(0.05)) {
    sb_printf(line, "%lld", chance(0.5) ? (long long)INT64_MAX : (long long)INT64_MIN);
  } else {
    sb_printf(line, "%lld", (long long)(rnd(2000001) - 1000000));
  }
  sb_printf(line, "%s\"body\":\"", sep);
  size_t body_from = line->n;
  int64_t blen = kind == K_HUGE       ? rnd_in(300000, 2000000)
                 : kind == K_OVERSIZE ? (16 << 20) + rnd_in(1, 100000)
                                      : rnd(160);
  if (kind == K_HUGE || kind == K_OVERSIZE) {
    char pat[4096];
    for (size_t i = 0; i < sizeof pat; i++)
      pat[i] = (char)('a' + (i * 7 + (size_t)id) % 26);
    sb_need(line, (size_t)blen);
    for (int64_t i = 0; i < blen; i += (int64_t)sizeof pat)
      memcpy(line->p + line->n + i, pat,
             (size_t)(blen - i < (int64_t)sizeof pat ? blen - i : (int64_t)sizeof pat));
    line->n += (size_t)blen;
    line->p[line->n] = '\0';
  } else {
    gen_body(line, blen);
  }
  size_t body_to = line->n;
  sb_puts(line, "\"}");
  if (kind == K_BYTES) {
    int64_t n = rnd_in(1, 6);
    char ins[8];
    for (int64_t i = 0; i < n; i++) {
      ins[i] = (char)rnd(256);
      if (lines && (ins[i] == '\n' || ins[i] == '\r')) ins[i] = '\t';
    }
    insert_at(line, body_from, body_to, ins, (size_t)n);
  } else if (kind == K_UTF8) {
    const char *bad = bad_utf8[rnd(9)];
    insert_at(line, body_from, body_to, bad, strlen(bad));
  } else if (kind == K_TRUNC) {
    /* Cut after the id's comma, before the closing brace. */
    size_t keep = (size_t)rnd_in((int64_t)strlen("{\"id\":") + 1, (int64_t)line->n - 2);
    const char *comma = strchr(line->p, ',');
    if (comma && keep <= (size_t)(comma - line->p)) keep = (size_t)(comma - line->p) + 1;
    line->n = keep;
    line->p[keep] = '\0';
  }
  if (kind == K_HUGE) {
    /* jansson judges the record without its huge (plain ASCII) body, which
     * is then hashed as is: parsing megabytes under ASan stalls the test. */
    sbuf small = {0};
    sb_add(&small, line->p, body_from);
    sb_add(&small, line->p + body_to, line->n - body_to);
    judge(r, small.p, small.n);
    free(small.p);
    r->body_len = blen;
    r->body_hash = fnv(line->p + body_from, (size_t)blen);
  } else {
    judge(r, line->p, line->n);
  }
}

/* jansson decides what the record is: a row with these values, or a reject. */
static void judge(rec *r, const char *line, size_t len) {
  if (len > (16u << 20)) {
    r->expect = E_REJECT;
    return;
  }
  json_error_t je;
  json_t *j = json_loadb(line, len, JSON_ALLOW_NUL | JSON_REJECT_DUPLICATES, &je);
  r->expect = E_REJECT;
  if (!j || !json_is_object(j)) goto done;
  json_t *id = json_object_get(j, "id"), *src = json_object_get(j, "src");
  json_t *k = json_object_get(j, "k"), *v = json_object_get(j, "v"),
         *body = json_object_get(j, "body");
  if (!json_is_integer(id) || !json_is_string(src)) goto done;
  if (json_object_size(j) != (size_t)(2 + !!k + !!v + !!body)) goto done;
  if (k && !json_is_string(k) && !json_is_null(k)) goto done;
  if (v && !json_is_integer(v) && !json_is_null(v)) goto done;
  if (body && !json_is_string(body) && !json_is_null(body)) goto done;
  r->oracle = true;
  r->k_null = !k || json_is_null(k);
  if (!r->k_null) {
    r->k_len = (int64_t)json_string_length(k);
    r->k_hash = fnv(json_string_value(k), json_string_length(k));
    memcpy(r->k_head, json_string_value(k),
           json_string_length(k) < sizeof r->k_head ? json_string_length(k) : sizeof r->k_head);
  }
  r->v_null = !v || json_is_null(v);
  r->v = r->v_null ? 0 : (int64_t)json_integer_value(v);
  r->body_len = body && json_is_string(body) ? (int64_t)json_string_length(body) : -1;
  r->body_hash = r->body_len >= 0 ? fnv(json_string_value(body), (size_t)r->body_len) : 0;
  /* A partition value that cannot name a directory is rejected; which ones
   * those are is the writer's rule, so the test accepts either outcome for
   * random partition values (and checks the value when it is a row). */
  r->expect = r->kind == K_PART || (!r->k_null && r->k_len == 0) ? E_EITHER : E_ROW;
done:
  json_decref(j);
}

/* ---- processes --------------------------------------------------------------- */

static char g_dir[600];   /* work directory (regular disk) */
static char g_mnt[700];   /* tmpfs mount point */
static char g_table[800]; /* the table, on the tmpfs */
static char g_file[700];  /* the file source */
static char g_logs[700];
static int g_redis_port;
static bool g_disk; /* disk faults on */

enum role_kind {
  R_FILE,
  R_REDIS,
  R_STDIN,
  R_COMPACT,
  R_VACUUM,
  R_CKPT,
  R_MAINTAIN,
  R_APPEND,
  R_REDIS_SERVER,
  N_ROLES
};
static const char *const role_name[N_ROLES] = {"ingest-file", "ingest-redis", "ingest-stdin",
                                               "compact",     "vacuum",       "checkpoint",
                                               "maintain",    "append",       "redis-server"};

typedef struct role {
  int kind;
  pid_t pid;
  int64_t t_start, t_kill, t_term, t_next;
  int sig_sent;
  bool fault_seen; /* a disk fault (or Redis outage) overlapped this run */
  bool once;
  int run_no;
  char log[800];
  int stdin_fd;         /* write end of the stdin ingester's pipe */
  int64_t wall_end_max; /* vacuum roles: the latest end (wall ms) of a run */
  /* stats */
  int runs, kills, terms, ok, err_explained, conflicts;
} role;

static role roles[N_ROLES];
static int64_t retain_ms = 20000;

typedef struct finding {
  char what[1200];
} finding;
static finding findings[64];
static int n_findings;

static void add_finding(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void add_finding(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char buf[1200];
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  fprintf(stderr, "chaos: FINDING: %s\n", buf);
  if (n_findings < 64) snprintf(findings[n_findings++].what, sizeof findings[0].what, "%s", buf);
}

/* A value's first bytes in hex for a finding ("null" for a null value), so a
 * finding names the value even when it is not printable. */
static void hex_head(char out[40], const uint8_t *p, int64_t len) {
  if (len < 0) {
    snprintf(out, 40, "null");
    return;
  }
  size_t n = 0;
  out[n++] = '[';
  for (int64_t i = 0; i < len && i < 8; i++)
    n += (size_t)snprintf(out + n, 40 - n, "%s%02x", i ? " " : "", p[i]);
  snprintf(out + n, 40 - n, "%s]", len > 8 ? " ..." : "");
}

/* posix_spawn, not fork: forking this ASan process costs ~100 ms a time. */
static pid_t spawn_io(const char *out, const char *err, int in_fd, const char *const *argv) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (in_fd >= 0)
    posix_spawn_file_actions_adddup2(&fa, in_fd, 0);
  else
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_APPEND, 0666);
  if (err)
    posix_spawn_file_actions_addopen(&fa, 2, err, O_WRONLY | O_CREAT | O_APPEND, 0666);
  else
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
  posix_spawn_file_actions_addclosefrom_np(&fa, 3);
  posix_spawnattr_t at;
  posix_spawnattr_init(&at);
  sigset_t def;
  sigemptyset(&def);
  sigaddset(&def, SIGPIPE);
  posix_spawnattr_setsigdefault(&at, &def);
  posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, argv[0], &fa, &at, (char *const *)argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
  if (rc != 0) fail_msg("spawn %s: %s", argv[0], strerror(rc));
  return pid;
}

static pid_t spawn(const char *log, int in_fd, const char *const *argv) {
  return spawn_io(log, NULL, in_fd, argv);
}

static char *slurp(const char *path, size_t *len) {
  size_t l = 0;
  char *s = tu_read_file(path, &l);
  if (len) *len = l;
  return s;
}

/* True when @p log holds @p what. */
static bool log_has(const char *log, const char *what) {
  char *s = slurp(log, NULL);
  bool has = s && strstr(s, what);
  free(s);
  return has;
}

/* True when @p log holds a sanitizer or crash report. */
static bool log_has_crash(const char *log) {
  char *s = slurp(log, NULL);
  bool bad = s && (strstr(s, "Sanitizer") || strstr(s, "runtime error:") ||
                   strstr(s, "Segmentation fault") || strstr(s, "Assertion"));
  free(s);
  return bad;
}

/* The last @p n bytes of @p log, for a report. */
static void log_tail(const char *log, char *out, size_t cap) {
  size_t len = 0;
  char *s = slurp(log, &len);
  out[0] = '\0';
  if (!s) return;
  size_t from = len > cap - 1 ? len - (cap - 1) : 0;
  snprintf(out, cap, "%s", s + from);
  for (char *p = out; *p; p++)
    if (*p == '\n') *p = '|';
  free(s);
}

/* ---- the disk ------------------------------------------------------------------ */

enum { DISK_OK, DISK_FULL, DISK_RO };
static int disk_state = DISK_OK;
static int64_t disk_until, disk_next;
static int64_t disk_fault_end; /* mono ms of the end of the last fault */
static int64_t tmpfs_mb = 256;
static int n_full, n_ro, n_ro_busy;
static int64_t ro_wanted_until = -1;
static char g_ballast[800];

static bool enter_mount_namespace(char *why, size_t cap) {
  if (unshare(CLONE_NEWNS) == 0) {
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
      snprintf(why, cap, "mount --make-rprivate /: %s", strerror(errno));
      return false;
    }
    return true;
  }
  int e1 = errno;
  uid_t uid = getuid();
  gid_t gid = getgid();
  if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
    snprintf(why, cap, "unshare(CLONE_NEWNS): %s; unshare(CLONE_NEWUSER): %s", strerror(e1),
             strerror(errno));
    return false;
  }
  char m[64];
  tu_write_file("/proc/self/setgroups", "deny", 4);
  snprintf(m, sizeof m, "0 %u 1", (unsigned)uid);
  tu_write_file("/proc/self/uid_map", m, strlen(m));
  snprintf(m, sizeof m, "0 %u 1", (unsigned)gid);
  tu_write_file("/proc/self/gid_map", m, strlen(m));
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
    snprintf(why, cap, "user namespace: mount --make-rprivate /: %s", strerror(errno));
    return false;
  }
  return true;
}

static int tmpfs_remount(bool ro) {
  char opts[64];
  snprintf(opts, sizeof opts, "size=%lldm", (long long)tmpfs_mb);
  return mount("tmpfs", g_mnt, "tmpfs", MS_REMOUNT | (ro ? MS_RDONLY : 0), opts);
}

static void mark_fault(void) {
  for (int i = 0; i < N_ROLES; i++)
    if (roles[i].pid > 0) roles[i].fault_seen = true;
}

/* Fills the tmpfs but for a few KiB (so some writes get through and fail
 * halfway). */
static void disk_fill(void) {
  int fd = open(g_ballast, O_WRONLY | O_CREAT | O_TRUNC, 0666);
  if (fd < 0) return;
  struct statvfs sv;
  if (fstatvfs(fd, &sv) == 0) {
    int64_t avail = (int64_t)sv.f_bavail * (int64_t)sv.f_frsize;
    int64_t leave = rnd(64) * 1024;
    static char chunk[1 << 20];
    memset(chunk, 'B', sizeof chunk);
    int64_t want = avail - leave;
    while (want > 0) {
      ssize_t w = write(fd, chunk, want < (int64_t)sizeof chunk ? (size_t)want : sizeof chunk);
      if (w <= 0) break;
      want -= w;
    }
  }
  close(fd);
}

static void disk_tick(int64_t now) {
  if (!g_disk) return;
  if (disk_state == DISK_OK && now >= disk_next) {
    /* Read-only, once chosen, is tried again until it takes (a remount fails
     * with EBUSY while a file is open for writing) or for 3 s at most. */
    if (ro_wanted_until < now) ro_wanted_until = chance(0.5) ? now + 3000 : -1;
    if (ro_wanted_until < 0) {
      mark_fault();
      disk_fill();
      disk_state = DISK_FULL;
      n_full++;
      LOG("disk: full");
    } else {
      if (tmpfs_remount(true) != 0) {
        n_ro_busy++;
        disk_next = now + 5;
        if (now + 5 > ro_wanted_until) disk_next = now + rnd_in(3000, 9000);
        return;
      }
      mark_fault();
      ro_wanted_until = -1;
      disk_state = DISK_RO;
      n_ro++;
      LOG("disk: read-only");
    }
    disk_until = now + rnd_in(500, 3000);
    return;
  }
  if (disk_state != DISK_OK) mark_fault();
  if (disk_state != DISK_OK && now >= disk_until) {
    if (disk_state == DISK_FULL)
      unlink(g_ballast);
    else if (tmpfs_remount(false) != 0)
      fail_msg("remount rw: %s", strerror(errno));
    LOG("disk: back");
    disk_state = DISK_OK;
    disk_fault_end = now;
    disk_next = now + rnd_in(3000, 9000);
  }
  if (disk_state == DISK_OK) {
    /* Keep headroom: the table grows (compaction doubles files until vacuum). */
    struct statvfs sv;
    if (statvfs(g_mnt, &sv) == 0 &&
        (int64_t)sv.f_bavail * (int64_t)sv.f_frsize < ((int64_t)96 << 20)) {
      tmpfs_mb += 128;
      if (tmpfs_remount(false) != 0) fail_msg("grow tmpfs: %s", strerror(errno));
      LOG("disk: grown to %lld MiB", (long long)tmpfs_mb);
    }
  }
}

static void disk_restore(void) {
  if (disk_state == DISK_FULL) unlink(g_ballast);
  if (disk_state == DISK_RO && tmpfs_remount(false) != 0)
    fail_msg("remount rw: %s", strerror(errno));
  disk_state = DISK_OK;
  disk_fault_end = mono_ms();
}

/* ---- Redis -------------------------------------------------------------------- */

static redisContext *rc_conn;
static int64_t redis_base_ms, redis_next_seq;
static int redis_kills;
static int64_t redis_down_until; /* restart at */
static int64_t redis_kill_next;
static int64_t redis_up_since;
/* Redis records generated and not yet acknowledged, in order. */
static int64_t *rq;
static int64_t rq_n, rq_cap;
static char **rq_lines;
static size_t *rq_lens;

static void redis_start(void) {
  role *r = &roles[R_REDIS_SERVER];
  char port[16];
  snprintf(port, sizeof port, "%d", g_redis_port);
  snprintf(r->log, sizeof r->log, "%s/redis-%d.log", g_logs, ++r->run_no);
  const char *argv[] = {"redis-server",
                        "--port",
                        port,
                        "--bind",
                        "127.0.0.1",
                        "--save",
                        "",
                        "--appendonly",
                        "yes",
                        "--appendfsync",
                        "always",
                        "--dir",
                        g_dir,
                        "--daemonize",
                        "no",
                        "--protected-mode",
                        "no",
                        NULL};
  r->pid = spawn(r->log, -1, argv);
  r->t_start = mono_ms();
  r->runs++;
  redis_up_since = r->t_start;
  LOG("redis: started pid %d", (int)r->pid);
}

static void redis_disconnect(void) {
  if (rc_conn) redisFree(rc_conn);
  rc_conn = NULL;
}

static bool redis_connect(void) {
  if (rc_conn) return true;
  struct timeval tv = {0, 200000};
  rc_conn = redisConnectWithTimeout("127.0.0.1", g_redis_port, tv);
  if (!rc_conn || rc_conn->err) {
    redis_disconnect();
    return false;
  }
  struct timeval ctv = {1, 0};
  redisSetTimeout(rc_conn, ctv);
  return true;
}

/* Sends the queued entries (pipelined); an entry whose id is already in the
 * stream was added by an attempt whose reply was lost. */
static void redis_flush(void) {
  if (rq_n == 0 || !redis_connect()) return;
  int64_t n = rq_n < 32 ? rq_n : 32;
  for (int64_t i = 0; i < n; i++) {
    char id[48];
    snprintf(id, sizeof id, "%lld-0", (long long)recs[rq[i]].redis_ms);
    redisAppendCommand(rc_conn, "XADD events %s data %b", id, rq_lines[i], rq_lens[i]);
  }
  int64_t done = 0;
  for (int64_t i = 0; i < n; i++) {
    redisReply *rep = NULL;
    if (redisGetReply(rc_conn, (void **)&rep) != REDIS_OK || !rep) {
      redis_disconnect();
      break;
    }
    bool ok = rep->type == REDIS_REPLY_STRING ||
              (rep->type == REDIS_REPLY_ERROR && strstr(rep->str, "equal or smaller"));
    if (rep->type == REDIS_REPLY_ERROR && !ok && !strstr(rep->str, "LOADING"))
      add_finding("XADD failed: %s", rep->str);
    freeReplyObject(rep);
    if (!ok) {
      redis_disconnect();
      break;
    }
    done = i + 1;
  }
  for (int64_t i = 0; i < done; i++)
    free(rq_lines[i]);
  memmove(rq, rq + done, (size_t)(rq_n - done) * sizeof *rq);
  memmove(rq_lines, rq_lines + done, (size_t)(rq_n - done) * sizeof *rq_lines);
  memmove(rq_lens, rq_lens + done, (size_t)(rq_n - done) * sizeof *rq_lens);
  rq_n -= done;
}

static void redis_queue(int64_t i, const char *line, size_t len) {
  if (rq_n == rq_cap) {
    rq_cap = rq_cap ? rq_cap * 2 : 1024;
    rq = realloc(rq, (size_t)rq_cap * sizeof *rq);
    rq_lines = realloc(rq_lines, (size_t)rq_cap * sizeof *rq_lines);
    rq_lens = realloc(rq_lens, (size_t)rq_cap * sizeof *rq_lens);
  }
  rq[rq_n] = i;
  rq_lines[rq_n] = malloc(len + 1);
  memcpy(rq_lines[rq_n], line, len);
  rq_lens[rq_n] = len;
  rq_n++;
}

/* ---- producers ------------------------------------------------------------------- */

static int g_file_fd = -1;
static int64_t g_file_off; /* bytes written to the file */
static sbuf file_pending;  /* generated, not yet written (a half line waits here) */
static int32_t stdin_instance = -1;
/* stdin ingester processes that read their input to its end and exited 0. */
static uint8_t inst_complete[1 << 16];
static int64_t stdin_off; /* bytes sent to the current instance */
static sbuf stdin_pending;
static sbuf line;
/* append: the batch being committed (its --app-version; 0: none), its file */
static int64_t append_batch, append_batches, append_done;
static char append_path[800];
static sbuf append_pending;
static double rate[N_SRC] = {120, 120, 80, 0}; /* append: batches made per run */
static double owed[N_SRC];
static int64_t n_by_src[N_SRC], n_by_kind[N_KIND];

static void produce_one(int src) {
  int64_t i = new_rec(src);
  rec *r = &recs[i];
  gen_line(&line, r, i);
  n_by_src[src]++;
  n_by_kind[r->kind]++;
  if (src == SRC_REDIS) {
    r->redis_ms = redis_base_ms + redis_next_seq++;
    redis_queue(i, line.p, line.n);
    return;
  }
  bool crlf = r->kind == K_SPACED;
  if (crlf) sb_puts(&line, "\r");
  sb_putc(&line, '\n');
  if (chance(0.01)) sb_putc(&line, '\n'); /* a blank line: no record */
  r->len = (int64_t)line.n;
  if (src == SRC_FILE) {
    r->off = g_file_off + (int64_t)file_pending.n;
    sb_add(&file_pending, line.p, line.n);
  } else if (src == SRC_APPEND) {
    r->instance = (int32_t)append_batch;
    sb_add(&append_pending, line.p, line.n);
  } else {
    r->instance = stdin_instance;
    r->off = stdin_off + (int64_t)stdin_pending.n;
    sb_add(&stdin_pending, line.p, line.n);
  }
}

/* Writes what is pending to the file, sometimes stopping inside a line (the
 * rest follows on a later tick, as a writer mid-line would). */
static void file_write(bool all) {
  if (file_pending.n == 0) return;
  size_t n = file_pending.n;
  if (!all && chance(0.3)) n = (size_t)rnd((int64_t)n) + 1;
  size_t done = 0;
  while (done < n) {
    ssize_t w = write(g_file_fd, file_pending.p + done, n - done);
    if (w < 0) fail_msg("write %s: %s", g_file, strerror(errno));
    done += (size_t)w;
  }
  g_file_off += (int64_t)n;
  sb_consume(&file_pending, n);
}

static void stdin_write(bool all) {
  role *r = &roles[R_STDIN];
  if (r->stdin_fd < 0 || stdin_pending.n == 0) return;
  if (all) {
    int fl = fcntl(r->stdin_fd, F_GETFL);
    fcntl(r->stdin_fd, F_SETFL, fl & ~O_NONBLOCK);
  }
  while (stdin_pending.n) {
    ssize_t w = write(r->stdin_fd, stdin_pending.p, stdin_pending.n);
    if (w < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) return;
      /* EPIPE: the ingester died; what it did not read is lost with it. */
      return;
    }
    stdin_off += w;
    sb_consume(&stdin_pending, (size_t)w);
  }
}

static void produce(int64_t dt_ms, bool stdin_open) {
  for (int s = 0; s < N_SRC; s++) {
    if (s == SRC_STDIN && !stdin_open) continue;
    /* A target rate, not a debt: a stalled tick does not make a burst. */
    owed[s] += rate[s] * (double)(dt_ms < 100 ? dt_ms : 100) / 1000.0;
    while (owed[s] >= 1) {
      int64_t t = mono_ms();
      produce_one(s);
      if (mono_ms() - t > 100)
        LOG("slow record %lld (%s, %lld ms)", (long long)n_recs - 1,
            kind_name[recs[n_recs - 1].kind], (long long)(mono_ms() - t));
      owed[s] -= 1;
    }
  }
  int64_t t = mono_ms();
  file_write(false);
  if (stdin_open) stdin_write(false);
  int64_t t2 = mono_ms();
  redis_flush();
  if (mono_ms() - t > 100)
    LOG("slow writes: file+stdin %lld ms, redis %lld ms", (long long)(t2 - t),
        (long long)(mono_ms() - t2));
}

/* ---- process roles --------------------------------------------------------------- */

static char redis_src[128], file_src[800];

/* The version the table's txn action records for @p app_id (-1: none), or
 * -2 when the table cannot be read now. */
static int64_t table_txn_version(const char *app_id) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  inlet_snapshot *s = NULL;
  int64_t v = -2;
  if (inlet_table_open(&t, g_table, &err) == 0 && inlet_table_snapshot(&s, t, &err) == 0)
    v = inlet_snapshot_txn_version(s, app_id);
  inlet_snapshot_free(s);
  inlet_table_free(t);
  return v;
}

/* Before an append run: the batch a killed or failed run left is done when
 * the table records its txn (the run committed before it died), else it is
 * retried as it is; with none pending, a new batch of 1-300 records.
 * False when the table cannot tell now (try later). */
static bool append_settle(void) {
  if (append_batch == 0) return true;
  int64_t tv = table_txn_version(src_app[SRC_APPEND]);
  if (tv == -2) return false;
  if (tv > append_batch)
    add_finding("the table records append batch %lld, only %lld were made", (long long)tv,
                (long long)append_batch);
  if (tv >= append_batch) {
    append_done = append_batch;
    append_batch = 0;
  }
  return true;
}

static bool append_prepare(void) {
  if (!append_settle()) return false;
  if (append_batch > 0) return true;
  append_batch = ++append_batches;
  append_pending.n = 0;
  int64_t n = rnd_in(1, 300);
  for (int64_t i = 0; i < n; i++) {
    produce_one(SRC_APPEND);
  }
  snprintf(append_path, sizeof append_path, "%s/append-%lld.ndjson", g_dir,
           (long long)append_batch);
  if (tu_write_file(append_path, append_pending.p, append_pending.n) != 0)
    fail_msg("write %s", append_path);
  return true;
}

static void start_role(role *r, int64_t now, bool force_once) {
  char retain[32];
  snprintf(retain, sizeof retain, "%llds", (long long)(retain_ms / 1000));
  char maxrows[24], latency[24];
  snprintf(maxrows, sizeof maxrows, "%lld", (long long)rnd_in(20, 3000));
  snprintf(latency, sizeof latency, "%lldms", (long long)rnd_in(200, 1200));
  const char *argv[32];
  int n = 0;
  argv[n++] = INLET_BIN;
  int in_fd = -1, pfd[2] = {-1, -1};
  r->once = false;
  switch (r->kind) {
  case R_FILE:
  case R_REDIS:
  case R_STDIN:
    argv[n++] = "ingest";
    argv[n++] = g_table;
    argv[n++] = "--source";
    argv[n++] = r->kind == R_FILE ? file_src : r->kind == R_REDIS ? redis_src : "stdin";
    argv[n++] = "--app-id";
    argv[n++] = src_app[r->kind];
    argv[n++] = "--max-rows";
    argv[n++] = maxrows;
    argv[n++] = "--max-latency";
    argv[n++] = latency;
    argv[n++] = "--json";
    if (r->kind != R_STDIN) {
      r->once = force_once || chance(0.3);
      argv[n++] = r->once ? "--once" : "--follow";
    }
    if (r->kind == R_STDIN) {
      if (pipe2(pfd, O_CLOEXEC) != 0) fail_msg("pipe: %s", strerror(errno));
      in_fd = pfd[0];
    }
    break;
  case R_COMPACT:
    argv[n++] = "compact";
    argv[n++] = g_table;
    argv[n++] = "--min-files";
    argv[n++] = chance(0.5) ? "2" : "4";
    if (chance(0.3)) {
      argv[n++] = "--target-size";
      argv[n++] = "64KiB";
    }
    break;
  case R_VACUUM:
    argv[n++] = "vacuum";
    argv[n++] = g_table;
    argv[n++] = "--retain";
    argv[n++] = retain;
    argv[n++] = "--force";
    break;
  case R_CKPT:
    argv[n++] = "checkpoint";
    argv[n++] = g_table;
    break;
  case R_APPEND: {
    static char version[24];
    snprintf(version, sizeof version, "%lld", (long long)append_batch);
    argv[n++] = "append";
    argv[n++] = g_table;
    argv[n++] = append_path;
    argv[n++] = "--format";
    argv[n++] = "ndjson";
    argv[n++] = "--skip-bad";
    argv[n++] = "--app-id";
    argv[n++] = src_app[SRC_APPEND];
    argv[n++] = "--app-version";
    argv[n++] = version;
    r->once = true;
    break;
  }
  case R_MAINTAIN:
    argv[n++] = "maintain";
    argv[n++] = g_table;
    argv[n++] = "--compact";
    argv[n++] = "--vacuum";
    argv[n++] = "--min-files";
    argv[n++] = "3";
    break;
  }
  argv[n] = NULL;
  snprintf(r->log, sizeof r->log, "%s/%s-%d.log", g_logs, role_name[r->kind], ++r->run_no);
  r->pid = spawn(r->log, in_fd, argv);
  if (pfd[0] >= 0) {
    close(pfd[0]);
    r->stdin_fd = pfd[1];
    fcntl(r->stdin_fd, F_SETFL, fcntl(r->stdin_fd, F_GETFL) | O_NONBLOCK);
    stdin_instance++;
    stdin_off = 0;
  }
  r->t_start = now;
  r->sig_sent = 0;
  r->fault_seen = disk_state != DISK_OK;
  r->runs++;
  /* When to kill it: ingesters mostly, maintenance half of the time. */
  bool ingester = r->kind <= R_STDIN;
  r->t_kill = chance(0.5) ? now + rnd_in(ingester ? 300 : 0, ingester ? 6000 : 1500) : -1;
  /* Followers that are not killed are stopped with SIGTERM (stdin: its input
   * is closed), which must commit what they read and exit 0. */
  r->t_term = r->t_kill < 0 && !r->once ? now + rnd_in(1000, 6000) : -1;
  LOG("%s: started pid %d (run %d)%s", role_name[r->kind], (int)r->pid, r->run_no,
      r->once ? " --once" : "");
}

static void close_stdin(role *r) {
  if (r->stdin_fd >= 0) close(r->stdin_fd);
  r->stdin_fd = -1;
  /* What was not sent is not this instance's: it was never written. */
  for (int64_t i = n_recs - 1; i >= 0 && stdin_pending.n; i--) {
    if (recs[i].src != SRC_STDIN || recs[i].instance != stdin_instance) continue;
    if (recs[i].off >= stdin_off)
      recs[i].instance = -2; /* never sent */
    else
      break;
  }
  stdin_pending.n = 0;
}

static bool run_started(const role *r) {
  char *s = slurp(r->log, NULL);
  bool ok = s && strstr(s, "\"event\":\"started\"");
  free(s);
  return ok;
}

/* An exit: judged by how it ended. */
static void on_exit_status(role *r, int st, int64_t now) {
  r->pid = 0;
  bool by_us = WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL && r->sig_sent == SIGKILL;
  char tail[700];
  if (log_has_crash(r->log)) {
    log_tail(r->log, tail, sizeof tail);
    add_finding("%s run %d: sanitizer/crash report (log %s): %s", role_name[r->kind], r->run_no,
                r->log, tail);
  } else if (WIFSIGNALED(st) && !by_us) {
    log_tail(r->log, tail, sizeof tail);
    add_finding("%s run %d died of signal %d (log %s): %s", role_name[r->kind], r->run_no,
                WTERMSIG(st), r->log, tail);
  } else if (by_us) {
    r->kills++;
  } else if (WEXITSTATUS(st) == 0) {
    r->ok++;
    if (r->kind == R_STDIN && stdin_instance >= 0 && stdin_instance < (1 << 16))
      inst_complete[stdin_instance] = 1;
    if (r->sig_sent == SIGTERM) r->terms++;
    if (r->kind == R_APPEND) {
      append_done = append_batch;
      append_batch = 0;
    }
  } else {
    /* An error exit is expected only when the disk was full or read-only
     * (or Redis down) while it ran. */
    bool redis_outage = r->kind == R_REDIS && roles[R_REDIS_SERVER].pid <= 0;
    /* Two compactors (compact, maintain --compact) race for the same files:
     * the loser's bin fails with a conflict, the table unchanged for it, and
     * compact exits 1 for it (cmd_compact.c). */
    if ((r->kind == R_COMPACT || r->kind == R_MAINTAIN) && log_has(r->log, "conflict (")) {
      r->conflicts++;
    } else if (r->fault_seen || redis_outage || now - disk_fault_end < 300) {
      r->err_explained++;
      if (verbose) {
        log_tail(r->log, tail, 300);
        LOG("%s run %d: error exit during a fault: %s", role_name[r->kind], r->run_no, tail);
      }
    } else {
      log_tail(r->log, tail, sizeof tail);
      add_finding("%s run %d exited %d with no disk fault during its run (log %s): %s",
                  role_name[r->kind], r->run_no, WEXITSTATUS(st), r->log, tail);
    }
  }
  if (r->kind == R_VACUUM || r->kind == R_MAINTAIN) r->wall_end_max = wall_ms();
  if (r->kind == R_STDIN) close_stdin(r);
  LOG("%s: run %d ended (%s %d)", role_name[r->kind], r->run_no,
      WIFSIGNALED(st) ? "signal" : "exit", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
  int64_t pause = r->kind <= R_STDIN ? rnd_in(0, 800) : rnd_in(300, 3000);
  r->t_next = now + pause;
}

static void reap(int64_t now) {
  for (;;) {
    int st;
    pid_t p = waitpid(-1, &st, WNOHANG);
    if (p <= 0) return;
    for (int i = 0; i < N_ROLES; i++) {
      if (roles[i].pid != p) continue;
      if (i == R_REDIS_SERVER) {
        roles[i].pid = 0;
        if (!(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)) {
          char tail[600];
          log_tail(roles[i].log, tail, sizeof tail);
          add_finding("redis-server exited on its own (status %d): %s", st, tail);
        }
        break;
      }
      on_exit_status(&roles[i], st, now);
    }
  }
}

static void roles_tick(int64_t now, bool chaos) {
  for (int i = 0; i < R_REDIS_SERVER; i++) {
    role *r = &roles[i];
    if (r->pid > 0) {
      if (r->t_kill >= 0 && now >= r->t_kill && !r->sig_sent) {
        kill(r->pid, SIGKILL);
        r->sig_sent = SIGKILL;
        LOG("%s: SIGKILL", role_name[i]);
      } else if (r->t_term >= 0 && now >= r->t_term && !r->sig_sent) {
        if (i == R_STDIN) {
          stdin_write(true);
          close_stdin(r);
          r->t_term = -1; /* it exits at the end of its input */
        } else if (run_started(r)) {
          kill(r->pid, SIGTERM);
          r->sig_sent = SIGTERM;
          LOG("%s: SIGTERM", role_name[i]);
        }
      }
      continue;
    }
    if (chaos && now >= r->t_next) {
      if (i == R_APPEND && !append_prepare()) {
        r->t_next = now + 200;
        continue;
      }
      start_role(r, now, false);
    }
  }
  /* Redis itself: killed, reaped at once, started again after a pause. */
  role *rs = &roles[R_REDIS_SERVER];
  if (chaos && rs->pid > 0 && now >= redis_kill_next) {
    kill(rs->pid, SIGKILL);
    waitpid(rs->pid, NULL, 0);
    rs->pid = 0;
    redis_kills++;
    redis_disconnect();
    if (roles[R_REDIS].pid > 0) roles[R_REDIS].fault_seen = true;
    redis_down_until = now + rnd_in(200, 2000);
    LOG("redis: SIGKILL");
  }
  if (chaos && rs->pid <= 0 && now >= redis_down_until) {
    redis_start();
    redis_kill_next = now + rnd_in(4000, 12000);
  }
}

/* Waits for role @p r's process to end, up to @p ms; SIGKILLs it after. */
static void wait_role(role *r, int64_t ms) {
  int64_t end = mono_ms() + ms;
  while (r->pid > 0 && mono_ms() < end) {
    reap(mono_ms());
    sleep_ms(10);
  }
  if (r->pid > 0) {
    add_finding("%s run %d did not finish within %lld ms (log %s)", role_name[r->kind], r->run_no,
                (long long)ms, r->log);
    kill(r->pid, SIGKILL);
    r->sig_sent = SIGKILL;
    while (r->pid > 0) {
      reap(mono_ms());
      sleep_ms(10);
    }
  }
}

/* After the chaos: the append batch a killed or failed run left is
 * committed. */
static void drain_append(void) {
  role *r = &roles[R_APPEND];
  for (int attempt = 0; attempt < 4; attempt++) {
    if (!append_settle()) fail_msg("the table cannot be read after the chaos");
    if (append_batch == 0) return;
    if (attempt == 3) break;
    start_role(r, mono_ms(), true);
    r->t_kill = r->t_term = -1;
    wait_role(r, 120000);
  }
  add_finding("the final append of batch %lld failed three times (log %s)", (long long)append_batch,
              r->log);
}

/* stdin's drain: one more run that reads a few records to the end of its
 * input. Its first commit sweeps the dead letters a killed or failed
 * predecessor published for a batch it never committed (their records are
 * lost with it, as the rest of its input). */
static void drain_stdin(void) {
  role *r = &roles[R_STDIN];
  start_role(r, mono_ms(), true);
  r->t_kill = r->t_term = -1;
  for (int i = 0; i < 20; i++)
    produce_one(SRC_STDIN);
  stdin_write(true);
  close_stdin(r);
  int ok_before = r->ok;
  wait_role(r, 120000);
  if (r->ok == ok_before) add_finding("the final stdin run failed (log %s)", r->log);
}

/* Runs one drain: `ingest --once` for the file or Redis source. */
static void drain(int kind) {
  role *r = &roles[kind];
  for (int attempt = 0; attempt < 3; attempt++) {
    start_role(r, mono_ms(), true);
    r->t_kill = r->t_term = -1;
    int ok_before = r->ok;
    wait_role(r, 120000);
    if (r->ok > ok_before) return;
  }
  add_finding("the final drain of %s failed three times (log %s)", role_name[kind], r->log);
}

static void kill_all(void) {
  for (int i = 0; i < N_ROLES; i++) {
    if (roles[i].pid > 0) {
      kill(roles[i].pid, SIGKILL);
      waitpid(roles[i].pid, NULL, 0);
      roles[i].pid = 0;
    }
  }
}

/* ---- verification ------------------------------------------------------------------ */

static int64_t parse_id_token(const char *s, size_t n) {
  const char *p = NULL;
  if (n > 6 && memcmp(s, "{\"id\":", 6) == 0)
    p = s + 6;
  else if (n > 2 && memcmp(s, "~G", 2) == 0)
    p = s + 2;
  if (!p) return -1;
  int64_t v = 0;
  bool any = false;
  while (p < s + n && *p >= '0' && *p <= '9') {
    v = v * 10 + (*p++ - '0');
    any = true;
  }
  return any && v < n_recs ? v : -1;
}

static uint8_t hexval(char c) {
  return (uint8_t)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
}

/* Reads every dead letter under _errors/ and counts it against its record. */
static int64_t check_dead_letters(void) {
  int64_t total = 0;
  for (int s = 0; s < N_SRC; s++) {
    char dir[1000];
    snprintf(dir, sizeof dir, "%s/_errors/%s", g_table, src_app[s]);
    DIR *d = opendir(dir);
    if (!d) continue;
    struct dirent *e;
    while ((e = readdir(d))) {
      if (e->d_name[0] == '.') continue;
      char p[1400];
      snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
      size_t len = 0;
      char *text = slurp(p, &len);
      assert_non_null(text);
      for (char *ln = text, *nl; ln < text + len; ln = nl + 1) {
        nl = memchr(ln, '\n', (size_t)(text + len - ln));
        if (!nl) nl = text + len;
        json_error_t je;
        json_t *j = json_loadb(ln, (size_t)(nl - ln), JSON_ALLOW_NUL, &je);
        if (!j) {
          add_finding("dead letter file %s: a line is not JSON: %s", p, je.text);
          continue;
        }
        total++;
        json_t *recj = json_object_get(j, "record"), *hex = json_object_get(j, "record_hex");
        char *bytes = NULL;
        size_t bn = 0;
        if (json_is_string(recj)) {
          bn = json_string_length(recj);
          bytes = malloc(bn + 1);
          memcpy(bytes, json_string_value(recj), bn);
        } else if (json_is_string(hex)) {
          const char *h = json_string_value(hex);
          bn = strlen(h) / 2;
          bytes = malloc(bn + 1);
          for (size_t i = 0; i < bn; i++)
            bytes[i] = (char)(hexval(h[2 * i]) << 4 | hexval(h[2 * i + 1]));
        }
        int64_t id = bytes ? parse_id_token(bytes, bn) : -1;
        if (id < 0 || recs[id].src != s) {
          add_finding("dead letter in %s names no record of this source: %.200s", p, ln);
        } else {
          rec *r = &recs[id];
          r->dead++;
          json_t *off = json_object_get(j, "offset"), *pos = json_object_get(j, "position");
          if (s == SRC_FILE && json_integer_value(off) != r->off)
            add_finding("dead letter of record %lld: offset %lld, the record is at %lld",
                        (long long)id, (long long)json_integer_value(off), (long long)r->off);
          if (s == SRC_REDIS) {
            char want[48];
            snprintf(want, sizeof want, "%lld-0", (long long)r->redis_ms);
            if (!json_is_string(pos) || strcmp(json_string_value(pos), want) != 0)
              add_finding("dead letter of record %lld: position %s, the entry is %s", (long long)id,
                          json_string_value(pos), want);
          }
        }
        free(bytes);
        json_decref(j);
      }
      free(text);
    }
    closedir(d);
  }
  return total;
}

/* The next `"id":N` in [*@p p, @p end); moves *@p p past it. (memmem, not
 * strstr: ASan's strstr measures the whole rest of the text on every call,
 * which made reading scan outputs quadratic.) */
static bool next_id(const char **p, const char *end, int64_t *id) {
  const char *q = *p && *p < end ? memmem(*p, (size_t)(end - *p), "\"id\":", 5) : NULL;
  if (!q) return false;
  *id = strtoll(q + 5, (char **)p, 10);
  return true;
}

/* Ids printed by `inlet scan --format ndjson --columns id` (or refcheck's
 * rows), counted into the field at @p field_off of each record. */
static void count_ids(const char *out, size_t len, size_t field_off, int64_t *unknown) {
  int64_t id;
  for (const char *p = out; next_id(&p, out + len, &id);) {
    if (id < 0 || id >= n_recs) {
      (*unknown)++;
      continue;
    }
    (*(int32_t *)((char *)&recs[id] + field_off))++;
  }
}

/* Reads the latest snapshot through the library and checks each row's
 * values against the oracle. */
static void check_rows_api(void) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  inlet_snapshot *s = NULL;
  inlet_table_scan *sc = NULL;
  if (inlet_table_open(&t, g_table, &err) || inlet_table_snapshot(&s, t, &err) ||
      inlet_table_scan_open(&sc, s, &err))
    fail_msg("open %s: %s", g_table, inlet_errmsg(&err));
  const inlet_schema *sch = inlet_snapshot_schema(s);
  int ci = inlet_schema_find(sch, "id"), si = inlet_schema_find(sch, "src"),
      ki = inlet_schema_find(sch, "k"), vi = inlet_schema_find(sch, "v"),
      bi = inlet_schema_find(sch, "body");
  inlet_batch b;
  memset(&b, 0, sizeof b);
  int rc;
  int64_t bad = 0;
  while ((rc = inlet_table_scan_next(sc, &b, &err)) == 1) {
    for (int64_t row = 0; row < b.num_rows; row++) {
      int64_t id = ((const int64_t *)b.columns[ci].values)[row];
      if (id < 0 || id >= n_recs) {
        add_finding("library scan: unknown id %lld", (long long)id);
        continue;
      }
      rec *r = &recs[id];
      r->rows_api++;
      const inlet_array *ka = &b.columns[ki], *sa = &b.columns[si], *va = &b.columns[vi],
                        *ba = &b.columns[bi];
      bool k_valid = inlet_array_is_valid(ka, row);
      const char *kp = (const char *)ka->values + (k_valid ? ka->offsets[row] : 0);
      int64_t kl = k_valid ? ka->offsets[row + 1] - ka->offsets[row] : 0;
      bool mism = !r->oracle;
      if (r->oracle) {
        /* Delta stores an empty partition value as null. */
        bool want_null = r->k_null || r->k_len == 0;
        if (want_null != !k_valid ||
            (k_valid && (kl != r->k_len || fnv(kp, (size_t)kl) != r->k_hash)))
          mism = true;
        if (r->v_null != !inlet_array_is_valid(va, row) ||
            (!r->v_null && ((const int64_t *)va->values)[row] != r->v))
          mism = true;
        bool b_valid = inlet_array_is_valid(ba, row);
        int64_t bl = b_valid ? ba->offsets[row + 1] - ba->offsets[row] : -1;
        if (bl != r->body_len || (b_valid && fnv((const char *)ba->values + ba->offsets[row],
                                                 (size_t)bl) != r->body_hash))
          mism = true;
        int64_t sl = inlet_array_is_valid(sa, row) ? sa->offsets[row + 1] - sa->offsets[row] : -1;
        if (sl != 1 || ((const char *)sa->values)[sa->offsets[row]] != src_tag[r->src][0])
          mism = true;
      }
      if (mism && !r->value_mismatch) {
        r->value_mismatch = true;
        if (bad++ < 5) {
          char want_k[40], got_k[40];
          hex_head(want_k, r->k_head, r->k_null ? -1 : r->k_len);
          hex_head(got_k, (const uint8_t *)kp, k_valid ? kl : -1);
          bool v_valid = inlet_array_is_valid(va, row);
          add_finding("record %lld (%s, %s): the row's values differ from the input's: input k "
                      "%s (%lld bytes), v %s%lld, body %lld bytes; row k %s (%lld bytes), v "
                      "%s%lld, body %lld bytes",
                      (long long)id, src_name[r->src], kind_name[r->kind], want_k,
                      (long long)r->k_len, r->v_null ? "null " : "", (long long)r->v,
                      (long long)r->body_len, got_k, (long long)kl, v_valid ? "" : "null ",
                      v_valid ? (long long)((const int64_t *)va->values)[row] : 0LL,
                      inlet_array_is_valid(ba, row)
                          ? (long long)(ba->offsets[row + 1] - ba->offsets[row])
                          : -1LL);
        }
      }
    }
  }
  if (rc < 0) add_finding("library scan failed: %s", inlet_errmsg(&err));
  inlet_batch_reset(&b);
  inlet_table_scan_free(sc);
  inlet_snapshot_free(s);
  inlet_table_free(t);
}

static int run_capture(const char *out_path, const char *const *argv) {
  char errp[1100];
  snprintf(errp, sizeof errp, "%s.err", out_path);
  unlink(out_path);
  unlink(errp);
  pid_t p = spawn_io(out_path, errp, -1, argv);
  int st = 0;
  while (waitpid(p, &st, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Versions: what the log holds. */
typedef struct vinfo {
  int64_t latest, oldest; /* oldest reconstructible */
  int64_t *ts;            /* commit timestamp per version, -1 unknown */
} vinfo;

static int64_t commit_ts(int64_t v) {
  char p[1000];
  snprintf(p, sizeof p, "%s/_delta_log/%020lld.json", g_table, (long long)v);
  size_t len = 0;
  char *s = slurp(p, &len);
  if (!s) return -1;
  int64_t ts = -1;
  for (char *ln = s, *nl; ln < s + len; ln = nl + 1) {
    nl = memchr(ln, '\n', (size_t)(s + len - ln));
    if (!nl) nl = s + len;
    if (!memmem(ln, (size_t)(nl - ln), "\"commitInfo\"", 12)) continue;
    json_t *j = json_loadb(ln, (size_t)(nl - ln), 0, NULL);
    json_t *t = json_object_get(json_object_get(j, "commitInfo"), "timestamp");
    if (json_is_integer(t)) ts = json_integer_value(t);
    json_decref(j);
  }
  free(s);
  return ts;
}

static void log_versions(vinfo *vi) {
  char dir[1000];
  snprintf(dir, sizeof dir, "%s/_delta_log", g_table);
  DIR *d = opendir(dir);
  assert_non_null(d);
  int64_t latest = -1, min_commit = INT64_MAX, best_ckpt = -1;
  uint8_t *have = calloc(1 << 20, 1);
  struct dirent *e;
  int64_t ckpts[4096];
  int n_ck = 0;
  while ((e = readdir(d))) {
    char *end;
    long long v = strtoll(e->d_name, &end, 10);
    if (end - e->d_name != 20) continue;
    if (strcmp(end, ".json") == 0) {
      if (v > latest) latest = v;
      if (v < min_commit) min_commit = v;
      if (v < (1 << 20)) have[v] = 1;
    } else if (strcmp(end, ".checkpoint.parquet") == 0 && n_ck < 4096) {
      ckpts[n_ck++] = v;
    }
  }
  closedir(d);
  /* The oldest version V such that a base (commit 0, or a checkpoint c <= V)
   * and every commit after the base up to V are present. */
  int64_t oldest = INT64_MAX;
  if (min_commit == 0) oldest = 0;
  for (int i = 0; i < n_ck; i++)
    if (ckpts[i] < oldest) best_ckpt = ckpts[i], oldest = ckpts[i];
  (void)best_ckpt;
  /* No gap from oldest to latest. */
  for (int64_t v = latest; v > oldest && v >= 0; v--)
    if (v < (1 << 20) && !have[v]) {
      bool ck = false;
      for (int i = 0; i < n_ck; i++)
        ck |= ckpts[i] == v;
      if (!ck) {
        oldest = v + 1;
        break;
      }
    }
  vi->latest = latest;
  vi->oldest = oldest == INT64_MAX ? latest : oldest;
  vi->ts = calloc((size_t)latest + 2, sizeof *vi->ts);
  for (int64_t v = 0; v <= latest; v++)
    vi->ts[v] = have[v] ? commit_ts(v) : -1;
  free(have);
}

/* The ids of version @p v read through the library into @p set (a bitmap;
 * duplicates and unknown ids counted). Returns 0, or the error code with
 * the message in @p msg. */
static int library_version(int64_t v, uint8_t *set, int64_t *rows, int64_t *dups, int64_t *unknown,
                           char *msg, size_t cap) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  inlet_snapshot *s = NULL;
  inlet_scan *sc = NULL;
  /* Only the id column: the huge bodies, decoded again for every version,
   * made this the slowest part of the test. */
  static const char *const id_only[] = {"id"};
  inlet_scan_options so = INLET_SCAN_OPTIONS_INIT;
  so.n_columns = 1;
  so.columns = id_only;
  int rc = inlet_table_open(&t, g_table, &err);
  if (!rc) rc = inlet_table_snapshot_at_version(&s, t, v, &err);
  if (!rc) rc = inlet_scan_open(&sc, s, &so, &err);
  *rows = *dups = *unknown = 0;
  if (!rc) {
    inlet_batch b;
    memset(&b, 0, sizeof b);
    while ((rc = inlet_scan_next(sc, &b, &err)) == 1) {
      for (int64_t r = 0; r < b.num_rows; r++) {
        int64_t id = ((const int64_t *)b.columns[0].values)[r];
        (*rows)++;
        if (id < 0 || id >= n_recs || recs[id].rows_cli == 0) {
          (*unknown)++;
          continue;
        }
        if (set[id / 8] & (1u << (id % 8))) (*dups)++;
        set[id / 8] |= (uint8_t)(1u << (id % 8));
      }
    }
    inlet_batch_reset(&b);
  }
  if (rc < 0) snprintf(msg, cap, "%s", inlet_errmsg(&err));
  inlet_scan_free(sc);
  inlet_snapshot_free(s);
  inlet_table_free(t);
  return rc < 0 ? rc : 0;
}

/* `inlet scan --version V --columns id`: exit status, ids into @p set. */
static int cli_version(int64_t v, uint8_t *set, int64_t *rows, char *msg, size_t cap) {
  char out[1000], vs[24];
  snprintf(out, sizeof out, "%s/version.ndjson", g_dir);
  snprintf(vs, sizeof vs, "%lld", (long long)v);
  const char *argv[] = {INLET_BIN,   "scan", g_table,    "--version", vs,
                        "--columns", "id",   "--format", "ndjson",    NULL};
  int st = run_capture(out, argv);
  char errp[1100];
  snprintf(errp, sizeof errp, "%s.err", out);
  *rows = 0;
  if (st != 0) {
    log_tail(errp, msg, cap);
    if (log_has_crash(errp)) st = 200;
    return st;
  }
  size_t len = 0;
  char *s = slurp(out, &len);
  int64_t id;
  for (const char *p = s; next_id(&p, s + len, &id);) {
    (*rows)++;
    if (id >= 0 && id < n_recs) set[id / 8] |= (uint8_t)(1u << (id % 8));
  }
  free(s);
  return 0;
}

/* Versions the library read (refcheck reads some of them again). */
static int64_t readable[1 << 16], n_readable;

/* Every version V the log can reconstruct (and a few below, which must fail
 * cleanly): read through the library, and through `inlet scan --version V`
 * for @p cli_every-th version (1: all) plus the first and the last. */
static void check_versions(const vinfo *vi, int64_t cli_every, int64_t *n_read,
                           int64_t *n_clean_fail, int64_t *n_cli) {
  int64_t vac_end = -1;
  if (roles[R_VACUUM].wall_end_max > vac_end) vac_end = roles[R_VACUUM].wall_end_max;
  if (roles[R_MAINTAIN].wall_end_max > vac_end) vac_end = roles[R_MAINTAIN].wall_end_max;
  /* Files removed before this may have been vacuumed. */
  int64_t horizon = vac_end < 0 ? INT64_MIN : vac_end - retain_ms + 5000;
  size_t nb = (size_t)n_recs / 8 + 1;
  uint8_t *prev = calloc(nb, 1), *cur = calloc(nb, 1), *cli = calloc(nb, 1);
  bool have_prev = false;
  int64_t from = vi->oldest > 3 ? vi->oldest - 3 : 0;
  for (int64_t v = from; v <= vi->latest; v++) {
    bool guaranteed =
        v >= vi->oldest && (v == vi->latest || vi->ts[v + 1] < 0 || vi->ts[v + 1] > horizon);
    memset(cur, 0, nb);
    int64_t rows = 0, dups = 0, unknown = 0;
    char msg[600] = "";
    int rc = library_version(v, cur, &rows, &dups, &unknown, msg, sizeof msg);
    bool by_cli = v == from || v == vi->latest || v == vi->oldest || (v - from) % cli_every == 0;
    if (by_cli) {
      (*n_cli)++;
      memset(cli, 0, nb);
      int64_t cli_rows = 0;
      char cmsg[600] = "";
      int st = cli_version(v, cli, &cli_rows, cmsg, sizeof cmsg);
      /* A clean failure is one of the CLI's failure codes (1-8, cli.h). */
      if (st != 0 && (st < 1 || st > 8 || rc == 0))
        add_finding("scan --version %lld: exit %d (the library: %s): %s", (long long)v, st,
                    rc ? msg : "read it", cmsg);
      else if (st == 0 && (rc != 0 || cli_rows != rows || memcmp(cli, cur, nb) != 0))
        add_finding("version %lld: scan --version reads %lld rows, the library %lld%s",
                    (long long)v, (long long)cli_rows, (long long)rows,
                    rc ? " (it failed)" : " (other ids)");
    }
    if (rc != 0) {
      if (guaranteed)
        add_finding("version %lld cannot be read (it must be): %s", (long long)v, msg);
      else
        (*n_clean_fail)++;
      have_prev = false;
      continue;
    }
    (*n_read)++;
    if (n_readable < (int64_t)(sizeof readable / sizeof *readable)) readable[n_readable++] = v;
    if (dups || unknown)
      add_finding("version %lld: %lld duplicate ids, %lld ids not in the final table", (long long)v,
                  (long long)dups, (long long)unknown);
    if (have_prev) {
      int64_t lost = 0;
      for (size_t i = 0; i < nb; i++)
        lost += __builtin_popcount(prev[i] & ~cur[i]);
      if (lost)
        add_finding("version %lld lacks %lld ids that version %lld holds", (long long)v,
                    (long long)lost, (long long)v - 1);
    }
    memcpy(prev, cur, nb);
    have_prev = true;
  }
  free(prev);
  free(cur);
  free(cli);
}

/* refcheck at version @p v (-1 latest): counts ids into rows_ref when
 * @p count, else compares its id set with inlet's `scan --version`. */
static void refcheck_version(int64_t v, bool count) {
  char out[1000], vs[24];
  snprintf(out, sizeof out, "%s/refcheck-%lld.json", g_dir, (long long)v);
  snprintf(vs, sizeof vs, "%lld", (long long)v);
  const char *argv[] = {INLET_NODE, INLET_REFCHECK, "delta", g_table, "--version", vs, NULL};
  if (v < 0) argv[4] = NULL;
  int st = run_capture(out, argv);
  if (st != 0) {
    char tail[400], errp[1100];
    snprintf(errp, sizeof errp, "%s.err", out);
    log_tail(out, tail, sizeof tail);
    add_finding("refcheck delta --version %lld: exit %d: %s", (long long)v, st, tail);
    return;
  }
  json_error_t je;
  json_t *j = json_load_file(out, 0, &je);
  if (!j) fail_msg("refcheck output: %s", je.text);
  json_t *cols = json_object_get(j, "columns"), *rows = json_object_get(j, "rows");
  size_t idc = 0, i;
  json_t *c;
  json_array_foreach(cols, i, c) if (strcmp(json_string_value(c), "id") == 0) idc = i;
  json_t *row;
  int64_t unknown = 0;
  uint8_t *seen = count ? NULL : calloc((size_t)n_recs, 1);
  int64_t n = 0;
  json_array_foreach(rows, i, row) {
    int64_t id = json_integer_value(json_array_get(row, idc));
    if (id < 0 || id >= n_recs) {
      unknown++;
      continue;
    }
    n++;
    if (count)
      recs[id].rows_ref++;
    else
      seen[id]++;
  }
  json_decref(j);
  if (unknown) add_finding("refcheck at %lld: %lld unknown ids", (long long)v, (long long)unknown);
  if (count) return;
  /* Compare with inlet's scan of the same version. */
  char out2[1000];
  snprintf(out2, sizeof out2, "%s/version.ndjson", g_dir);
  const char *argv2[] = {INLET_BIN,   "scan", g_table,    "--version", vs,
                         "--columns", "id",   "--format", "ndjson",    NULL};
  if (run_capture(out2, argv2) != 0) {
    add_finding("scan --version %lld failed where refcheck read it", (long long)v);
    free(seen);
    return;
  }
  size_t len = 0;
  char *s = slurp(out2, &len);
  int64_t m = 0, diff = 0;
  int64_t id;
  for (const char *p = s; next_id(&p, s + len, &id);) {
    m++;
    if (id < 0 || id >= n_recs || seen[id] != 1) diff++;
  }
  free(s);
  if (m != n || diff)
    add_finding("version %lld: refcheck reads %lld rows, inlet %lld (%lld differ)", (long long)v,
                (long long)n, (long long)m, (long long)diff);
  free(seen);
}

/* Marks the Redis records whose entries the stream no longer holds
 * (instance -3); returns how many. */
static int64_t redis_mark_lost(void) {
  /* The drain reconnects only to flush queued entries: Redis killed in the
   * chaos's last tick with nothing queued left no connection (hiredis
   * crashed on the NULL context, once in ~100 runs). */
  for (int i = 0; i < 400 && !redis_connect(); i++)
    sleep_ms(25);
  if (!rc_conn) fail_msg("cannot connect to redis-server (log %s)", roles[R_REDIS_SERVER].log);
  uint8_t *present = calloc((size_t)redis_next_seq + 1, 1);
  assert_non_null(present);
  char start[64] = "-";
  for (;;) {
    redisReply *rep = redisCommand(rc_conn, "XRANGE events %s + COUNT 200", start);
    if (!rep || rep->type != REDIS_REPLY_ARRAY)
      fail_msg("XRANGE events: %s", rep && rep->str ? rep->str : "no reply");
    size_t n = rep->elements;
    for (size_t i = 0; i < n; i++) {
      const redisReply *e = rep->element[i];
      if (e->type != REDIS_REPLY_ARRAY || e->elements < 1 || !e->element[0]->str) continue;
      const char *id = e->element[0]->str;
      long long ms = strtoll(id, NULL, 10);
      if (ms >= redis_base_ms && ms - redis_base_ms < redis_next_seq && strstr(id, "-0"))
        present[ms - redis_base_ms] = 1;
      if (i == n - 1) snprintf(start, sizeof start, "(%s", id);
    }
    freeReplyObject(rep);
    if (n == 0) break;
  }
  int64_t lost = 0;
  for (int64_t i = 0; i < n_recs; i++) {
    rec *r = &recs[i];
    if (r->src != SRC_REDIS || present[r->redis_ms - redis_base_ms]) continue;
    r->instance = -3;
    lost++;
  }
  free(present);
  return lost;
}

/* ---- the test ------------------------------------------------------------------------ */

static int free_port(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  int port = -1;
  if (bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
      getsockname(fd, (struct sockaddr *)&a, &len) == 0)
    port = ntohs(a.sin_port);
  close(fd);
  return port;
}

static void create_table(void) {
  tu_result r;
  tu_sh(&r,
        "'%s' create '%s' --schema 'id long not null, src string, k string, v long, body string' "
        "--partition-by k --property delta.checkpointInterval=7 "
        "--property 'delta.deletedFileRetentionDuration=interval 20 seconds' "
        "--property 'delta.logRetentionDuration=interval 30 seconds'",
        INLET_BIN, g_table);
  if (r.status != 0) fail_msg("create: %s", r.err);
  tu_result_free(&r);
}

/* cmocka's own SIGSEGV handler reports "Segmentation fault" and nothing
 * else, in place of the sanitizer's report: a crash of this process (one
 * was seen once in ~100 runs, never reproduced) gets a stack here instead.
 * The sanitizer runtime's stack printer is there in sanitizer builds only.
 * (The crash seen was hiredis given no connection: redis_mark_lost.) */
extern void __sanitizer_print_stack_trace(void) __attribute__((weak));
static void on_segv(int sig) {
  static const char msg[] = "chaos: SIGSEGV in the test process; stack:\n";
  ssize_t w = write(2, msg, sizeof msg - 1);
  (void)w;
  if (__sanitizer_print_stack_trace) __sanitizer_print_stack_trace();
  signal(sig, SIG_DFL);
  raise(sig);
}

static void test_chaos__every_event_once_every_version_readable(void **state) {
  (void)state;
  /* on the sanitizer's alternate stack, so a stack overflow is reported too */
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_segv;
  sa.sa_flags = SA_ONSTACK;
  sigaction(SIGSEGV, &sa, NULL);
  const char *e = getenv("INLET_CHAOS_SEED");
  uint64_t seed = e ? strtoull(e, NULL, 0) : ((uint64_t)time(NULL) << 20 ^ (uint64_t)getpid());
  e = getenv("INLET_CHAOS_SECONDS");
  int64_t seconds = e ? strtoll(e, NULL, 10) : 20;
  verbose = getenv("INLET_CHAOS_VERBOSE") && *getenv("INLET_CHAOS_VERBOSE") == '1';
  bool keep = getenv("INLET_CHAOS_KEEP") && *getenv("INLET_CHAOS_KEEP") == '1';
  rng_s = seed;
  g_t0 = mono_ms();
  fprintf(stderr, "chaos: seed %llu, %lld s of chaos (INLET_CHAOS_SEED, INLET_CHAOS_SECONDS)\n",
          (unsigned long long)seed, (long long)seconds);
  signal(SIGPIPE, SIG_IGN);
  for (int i = 0; i < N_ROLES; i++) {
    roles[i].kind = i;
    roles[i].stdin_fd = -1;
    roles[i].wall_end_max = -1;
  }

  snprintf(g_dir, sizeof g_dir, "%s", tu_mkdtemp("chaos"));
  snprintf(g_mnt, sizeof g_mnt, "%s/disk", g_dir);
  snprintf(g_table, sizeof g_table, "%s/t", g_mnt);
  snprintf(g_ballast, sizeof g_ballast, "%s/ballast", g_mnt);
  snprintf(g_file, sizeof g_file, "%s/events.ndjson", g_dir);
  snprintf(g_logs, sizeof g_logs, "%s/logs", g_dir);
  mkdir(g_mnt, 0777);
  mkdir(g_logs, 0777);
  fprintf(stderr, "chaos: work directory %s\n", g_dir);

  g_disk = !(getenv("INLET_CHAOS_NO_DISK") && *getenv("INLET_CHAOS_NO_DISK") == '1');
  if (g_disk) {
    char why[400];
    if (!enter_mount_namespace(why, sizeof why))
      fail_msg("the disk faults need a private mount namespace (root, or user namespaces): %s; "
               "INLET_CHAOS_NO_DISK=1 runs the rest without them",
               why);
    if (mount("tmpfs", g_mnt, "tmpfs", 0, "size=256m") != 0)
      fail_msg("mount tmpfs on %s: %s", g_mnt, strerror(errno));
  }
  create_table();

  g_file_fd = open(g_file, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0666);
  assert_true(g_file_fd >= 0);
  snprintf(file_src, sizeof file_src, "file:%s", g_file);
  g_redis_port = free_port();
  snprintf(redis_src, sizeof redis_src, "redis://127.0.0.1:%d/events", g_redis_port);
  redis_base_ms = wall_ms();
  redis_start();
  for (int i = 0; i < 200 && !redis_connect(); i++)
    sleep_ms(25);
  if (!rc_conn) fail_msg("redis-server did not start (log %s)", roles[R_REDIS_SERVER].log);
  oversize_left = 1 + seconds / 300;

  int64_t now = mono_ms(), last = now, end = now + seconds * 1000;
  redis_kill_next = now + rnd_in(3000, 8000);
  disk_next = now + rnd_in(2000, 6000);
  for (int i = 0; i < R_REDIS_SERVER; i++)
    roles[i].t_next = now + rnd(500);
  int64_t t_chaos = now;
  while ((now = mono_ms()) < end) {
    reap(now);
    int64_t a = mono_ms();
    produce(now - last, roles[R_STDIN].stdin_fd >= 0);
    int64_t b = mono_ms();
    last = now;
    roles_tick(now, true);
    int64_t c = mono_ms();
    disk_tick(now);
    int64_t d = mono_ms();
    if (d - now > 300)
      LOG("slow tick: reap %lld, produce %lld, roles %lld, disk %lld ms", (long long)(a - now),
          (long long)(b - a), (long long)(c - b), (long long)(d - c));
    sleep_ms(10);
  }
  int64_t t_drain = mono_ms();

  /* The end: everything back to normal, every source read to its end. */
  disk_restore();
  if (roles[R_REDIS_SERVER].pid <= 0) redis_start();
  for (int64_t until = mono_ms() + 60000; rq_n && mono_ms() < until;) {
    redis_flush();
    if (rq_n) sleep_ms(25);
  }
  if (rq_n) fail_msg("Redis does not take the last %lld entries", (long long)rq_n);
  file_write(true);
  for (int i = 0; i < R_REDIS_SERVER; i++) {
    role *r = &roles[i];
    r->t_kill = -1;
    if (r->pid <= 0) continue;
    if (i == R_STDIN) {
      stdin_write(true);
      close_stdin(r);
    } else if (i == R_FILE || i == R_REDIS) {
      if (!r->once) {
        while (r->pid > 0 && !run_started(r)) {
          reap(mono_ms());
          sleep_ms(10);
        }
        if (r->pid > 0) {
          kill(r->pid, SIGTERM);
          r->sig_sent = SIGTERM;
        }
      }
    }
    wait_role(r, 120000);
  }
  reap(mono_ms());
  drain_stdin();
  drain(R_FILE);
  drain(R_REDIS);
  drain_append();
  int64_t t_verify = mono_ms();

  /* Input truth for Redis: the stream as it is now. A SIGKILLed Redis
   * 7.0 lost entries it had acknowledged (21 of 13,748 in a 180 s run with
   * appendfsync no, 69 of 16,210 in a 600 s run with appendfsync always; no
   * error in its log; the cause is not established here); such an entry is
   * the input only if an ingester read it before it was lost: in the table
   * once, or not at all. The count is printed. */
  int64_t redis_lost = redis_mark_lost();

  int64_t dead = check_dead_letters();
  int64_t t_dl = mono_ms();
  char out[1000];
  snprintf(out, sizeof out, "%s/latest.ndjson", g_dir);
  const char *argv[] = {INLET_BIN, "scan", g_table, "--columns", "id", "--format", "ndjson", NULL};
  int st = run_capture(out, argv);
  if (st != 0) fail_msg("inlet scan of the final table: exit %d", st);
  size_t len = 0;
  char *s = slurp(out, &len);
  int64_t unknown = 0;
  count_ids(s, len, offsetof(rec, rows_cli), &unknown);
  free(s);
  if (unknown) add_finding("inlet scan: %lld rows with unknown ids", (long long)unknown);
  int64_t t_scan = mono_ms();
  check_rows_api();
  int64_t t_api = mono_ms();
  refcheck_version(-1, true);
  int64_t t_ref = mono_ms();
  LOG("verify: dead letters %lld ms, scan %lld ms, library %lld ms, refcheck %lld ms",
      (long long)(t_dl - t_verify), (long long)(t_scan - t_dl), (long long)(t_api - t_scan),
      (long long)(t_ref - t_api));

  int64_t rows = 0, lost_stdin = 0, rejected = 0, either_rows = 0, either_rej = 0;
  int64_t bad_count = 0, never_sent = 0, skipped = 0;
  /* stdin: per instance, the records accounted for form a prefix. */
  int32_t cur_inst = -1;
  bool gap_seen = false;
  int64_t gap_first = -1;
  for (int64_t i = 0; i < n_recs; i++) {
    rec *r = &recs[i];
    if (r->src == SRC_STDIN && r->instance == -2) { /* never sent */
      never_sent++;
      continue;
    }
    if (r->src == SRC_REDIS && r->instance == -3 && r->rows_cli + r->dead <= 1 &&
        r->rows_cli == r->rows_api && r->rows_cli == r->rows_ref) {
      continue; /* lost by Redis (counted in redis_lost) */
    }
    int64_t here = r->rows_cli;
    if (r->rows_cli != r->rows_api || r->rows_cli != r->rows_ref) {
      if (bad_count++ < 10)
        add_finding("record %lld (%s): inlet scan %d rows, library %d, refcheck %d", (long long)i,
                    src_name[r->src], r->rows_cli, r->rows_api, r->rows_ref);
    }
    int64_t acc = here + r->dead;
    rows += here;
    rejected += r->dead;
    if (acc > 1) {
      if (bad_count++ < 10)
        add_finding("record %lld (%s, %s) is there %lld times (%lld rows, %d dead letters)",
                    (long long)i, src_name[r->src], kind_name[r->kind], (long long)acc,
                    (long long)here, r->dead);
      continue;
    }
    if (r->src == SRC_STDIN) {
      if (r->instance != cur_inst) {
        cur_inst = r->instance;
        gap_seen = false;
      }
      if (acc == 0 && inst_complete[r->instance]) {
        if (bad_count++ < 10)
          add_finding("stdin record %lld (%s) is lost though its ingester read its input to the "
                      "end and exited 0",
                      (long long)i, kind_name[r->kind]);
        continue;
      }
      if (acc == 0) {
        if (!gap_seen) gap_first = i;
        gap_seen = true;
        lost_stdin++;
        continue;
      }
      if (gap_seen) {
        if (bad_count++ < 10)
          add_finding("stdin instance %d: record %lld is lost but record %lld after it is there "
                      "(a hole, not a lost tail)",
                      (int)cur_inst, (long long)gap_first, (long long)i);
        gap_seen = false;
      }
    } else if (r->src == SRC_APPEND && r->dead) {
      if (bad_count++ < 10) add_finding("append record %lld has a dead letter", (long long)i);
      continue;
    } else if (r->src == SRC_APPEND && acc == 0 && r->expect != E_ROW) {
      /* skipped by --skip-bad (it reports, it keeps no dead letter) */
      if (r->expect == E_EITHER)
        either_rej++;
      else
        skipped++;
      continue;
    } else if (acc == 0) {
      if (bad_count++ < 10)
        add_finding("record %lld (%s, %s, %s) is lost", (long long)i, src_name[r->src],
                    kind_name[r->kind], r->expect == E_ROW ? "valid" : "invalid");
      continue;
    }
    if (r->expect == E_ROW && here == 0) {
      if (bad_count++ < 10)
        add_finding("record %lld (%s, %s) is valid but was rejected", (long long)i,
                    src_name[r->src], kind_name[r->kind]);
    } else if (r->expect == E_REJECT && here == 1) {
      if (bad_count++ < 10)
        add_finding("record %lld (%s, %s) is invalid but became a row", (long long)i,
                    src_name[r->src], kind_name[r->kind]);
    } else if (r->expect == E_EITHER) {
      if (here)
        either_rows++;
      else
        either_rej++;
    }
  }

  /* Every version. */
  vinfo vi;
  memset(&vi, 0, sizeof vi);
  log_versions(&vi);
  int64_t n_read = 0, n_clean_fail = 0, n_cli = 0;
  int64_t t_v = mono_ms();
  /* `inlet scan --version` for every version in the long form, every
   * 8th in the short one (a process per version; the library reads all). */
  e = getenv("INLET_CHAOS_CLI_EVERY");
  int64_t cli_every = e ? strtoll(e, NULL, 10) : seconds >= 300 ? 4 : 16;
  check_versions(&vi, cli_every < 1 ? 1 : cli_every, &n_read, &n_clean_fail, &n_cli);
  LOG("verify: %lld versions in %lld ms", (long long)(vi.latest - vi.oldest + 1),
      (long long)(mono_ms() - t_v));
  /* refcheck reads a few earlier versions too: among those the library
   * read (an older one may have lost files to a vacuum, legitimately). */
  for (int i = 0; i < (seconds >= 300 ? 2 : 1) && n_readable > 1; i++)
    refcheck_version(readable[rnd(n_readable - 1)], false);
  /* The protocol's own rules (tests/support/delta_rules.h) on the table as
   * the chaos left it (it lives on the tmpfs, gone before tu_rmtree). */
  tu_rules_report rr;
  memset(&rr, 0, sizeof rr);
  if (tu_rules_check_table(g_table, &rr) != 0 || rr.violations)
    add_finding("Delta protocol rule violations in the table: %.900s", rr.text ? rr.text : "");
  tu_rules_report_free(&rr);
  int64_t t_end = mono_ms();

  fprintf(stderr,
          "chaos: %lld records (file %lld, redis %lld, stdin %lld, append %lld in %lld batches; "
          "%lld stdin records never sent)\n"
          "chaos: %lld rows, %lld dead letters (%lld counted), %lld skipped by append --skip-bad, "
          "%lld stdin records lost with their killed ingester; random partition values: %lld rows, "
          "%lld rejected\n",
          (long long)n_recs, (long long)n_by_src[0], (long long)n_by_src[1], (long long)n_by_src[2],
          (long long)n_by_src[3], (long long)append_batches, (long long)never_sent, (long long)rows,
          (long long)dead, (long long)rejected, (long long)skipped, (long long)lost_stdin,
          (long long)either_rows, (long long)either_rej);
  fprintf(stderr, "chaos: Redis lost %lld entries it had acknowledged (killed server)\n",
          (long long)redis_lost);
  fprintf(stderr, "chaos: kinds:");
  for (int k = 0; k < N_KIND; k++)
    fprintf(stderr, " %s %lld", kind_name[k], (long long)n_by_kind[k]);
  fprintf(stderr, "\n");
  for (int i = 0; i < N_ROLES; i++)
    fprintf(stderr,
            "chaos: %-13s runs %3d, SIGKILLed %3d, ok %3d (SIGTERM %d), error exits "
            "during disk faults %d, on a conflict %d\n",
            role_name[i], roles[i].runs, i == R_REDIS_SERVER ? redis_kills : roles[i].kills,
            roles[i].ok, roles[i].terms, roles[i].err_explained, roles[i].conflicts);
  fprintf(stderr,
          "chaos: disk full %d times, read-only %d times (%d busy retries), tmpfs %lld MiB\n",
          n_full, n_ro, n_ro_busy, (long long)tmpfs_mb);
  fprintf(stderr,
          "chaos: versions %lld..%lld: %lld read, %lld failed cleanly (vacuumed or "
          "cleaned up); %lld also by inlet scan --version\n",
          (long long)vi.oldest, (long long)vi.latest, (long long)n_read, (long long)n_clean_fail,
          (long long)n_cli);
  fprintf(stderr, "chaos: time: chaos %.1f s, drain %.1f s, verify %.1f s\n",
          (double)(t_drain - t_chaos) / 1000, (double)(t_verify - t_drain) / 1000,
          (double)(t_end - t_verify) / 1000);
  free(vi.ts);

  kill_all();
  redis_disconnect();
  if (n_findings) {
    /* The table lives on the test's own tmpfs, gone when the test exits. */
    tu_result cp;
    tu_sh(&cp, "cp -a '%s' '%s/table-at-finding' 2>&1", g_table, g_dir);
    tu_result_free(&cp);
    fprintf(stderr,
            "chaos: %d findings; seed %llu; work directory kept (the table copied to "
            "table-at-finding): %s\n",
            n_findings, (unsigned long long)seed, g_dir);
    fail_msg("chaos: %d findings (first: %s)", n_findings, findings[0].what);
  }
  if (g_disk) umount2(g_mnt, MNT_DETACH);
  if (!keep) tu_rmtree(g_dir);
}

/* `inlet create` SIGKILLed at random moments (the one writing command the
 * main test does not kill): what it leaves is either no table (describe
 * fails cleanly, with exit 3: not found) or the whole table at version 0; in both cases
 * a second create ends in a table at version 0 that takes an append, and
 * nothing crashes. */
static void test_chaos__create_killed_at_random_moments(void **state) {
  (void)state;
  const char *e = getenv("INLET_CHAOS_SEED");
  rng_s = e ? strtoull(e, NULL, 0) : ((uint64_t)time(NULL) << 20 ^ (uint64_t)getpid()) + 1;
  e = getenv("INLET_CHAOS_SECONDS");
  int rounds = e && strtoll(e, NULL, 10) >= 300 ? 60 : 8;
  char dir[600], t[700], out[700], batch[700];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("chaos-create"));
  snprintf(out, sizeof out, "%s/out", dir);
  snprintf(batch, sizeof batch, "%s/b.ndjson", dir);
  assert_int_equal(tu_write_file(batch, "{\"id\":1,\"k\":\"a\"}\n", 17), 0);
  int complete = 0, none = 0;
  for (int round = 0; round < rounds; round++) {
    snprintf(t, sizeof t, "%s/t%d", dir, round);
    const char *create[] = {INLET_BIN,           "create",         t,   "--schema",
                            "id long, k string", "--partition-by", "k", NULL};
    pid_t p = spawn(out, -1, create);
    /* (an ASan create takes ~100 ms here idle, several times that under load) */
    sleep_ms(rnd_in(0, 300));
    kill(p, SIGKILL);
    int st = 0;
    waitpid(p, &st, 0);
    if (WIFSIGNALED(st) && WTERMSIG(st) != SIGKILL)
      fail_msg("create died of signal %d", WTERMSIG(st));
    const char *describe[] = {INLET_BIN, "describe", t, "--json", NULL};
    int d = run_capture(out, describe);
    char errp[800];
    snprintf(errp, sizeof errp, "%s.err", out);
    if (log_has_crash(errp)) fail_msg("describe after a killed create crashed (round %d)", round);
    if (d == 0) {
      complete++;
      if (!log_has(out, "\"version\": 0"))
        fail_msg("round %d: describe of the created table does not say version 0", round);
    } else if (d == 3) { /* not found: no table yet */
      none++;
    } else {
      fail_msg("round %d: describe after a killed create exited %d", round, d);
    }
    /* A second create: refused for a complete table, else it completes. */
    int c = run_capture(out, create);
    if (log_has_crash(errp)) fail_msg("create after a killed create crashed (round %d)", round);
    if (c != (d == 0 ? 1 : 0)) {
      char tail[400];
      log_tail(errp, tail, sizeof tail);
      fail_msg("round %d: create after a killed create (%s) exited %d: %s", round,
               d == 0 ? "complete" : "no table", c, tail);
    }
    const char *append[] = {INLET_BIN, "append", t, batch, NULL};
    if (run_capture(out, append) != 0) fail_msg("round %d: append to the table failed", round);
    const char *scan[] = {INLET_BIN, "scan", t, "--format", "ndjson", NULL};
    if (run_capture(out, scan) != 0 || !log_has(out, "\"id\":1"))
      fail_msg("round %d: the appended row is not there", round);
  }
  fprintf(stderr, "chaos: create killed %d times: %d left the whole table, %d none\n", rounds,
          complete, none);
  tu_rmtree(dir);
}

static int teardown(void **state) {
  (void)state;
  kill_all();
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_chaos__create_killed_at_random_moments),
      cmocka_unit_test_teardown(test_chaos__every_event_once_every_version_readable, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
