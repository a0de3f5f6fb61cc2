/*
 * The stream module's internal face: source positions and their txn
 * encoding, the record source interface (file, stdin, Redis Streams), the
 * watermark state and helpers shared by ingest.c and its unit tests.
 *
 * Spec: Delta PROTOCOL.md "Transaction Identifiers" (positions live in txn
 * actions; see include/inlet/ingest.h for the encoding and why).
 */
#ifndef INLET_STREAM_H
#define INLET_STREAM_H

#include <stdint.h>

#include "inlet/ingest.h"
#include "inlet/text.h"
#include "storage/storage.h"
#include "util/buf.h"
#include "util/pool.h"
#include "util/util.h"

/* ---- positions ------------------------------------------------------------- */

/* A source position: up to three non-negative numbers whose meaning belongs
 * to the source kind (file: inode, offset, fingerprint; redis: ms, seq). */
typedef struct stream_pos {
  bool valid; /* false: "from the beginning" */
  int64_t p[3];
} stream_pos;

#define STREAM_POS_PARTS 3

/* "APP#p0".. into @p out; the suffixes are part of the on-table format. */
void stream_txn_name(char *out, size_t cap, const char *app_id, const char *suffix);

/* Human-readable and file-name-safe text of @p pos for source kind @p kind
 * ("i<inode>-o<offset>" for files, "<ms>-<seq>" for redis, "o<offset>" for
 * stdin, "start" when invalid). */
typedef enum stream_kind { STREAM_FILE = 0, STREAM_STDIN, STREAM_REDIS, STREAM_KAFKA } stream_kind;
void stream_pos_format(char *out, size_t cap, stream_kind kind, const stream_pos *pos);

/* 62-bit FNV-1a of @p n bytes (non-negative, fits a txn version). */
int64_t stream_fingerprint(const void *data, size_t n);
#define STREAM_FP_BYTES 1024

/* An event-time watermark (see "watermark" below; also kept per Kafka part). */
typedef struct stream_watermark {
  int64_t lateness_us;
  int64_t max_event_us; /* INT64_MIN: nothing seen */
  int64_t value;        /* INT64_MIN: none */
} stream_watermark;

/* ---- partitioned sources (Kafka) ------------------------------------------------ */

/* One independently positioned part of a source: a Kafka topic-partition.
 * Its progress record in the table is txn appId `txn` = the next offset to
 * read, written by every commit that advanced it (with `txn_wm` = its
 * watermark when there is an event-time column; `txn_late` in the late
 * table). Owned by the source, at a stable address for the whole run (a
 * revoked part stays, inactive); the ingester keeps its batch state here. */
/* ---- dead letters (dead_letters.c) ------------------------------------------ */

/* A dead-letter file being written: a temporary in the table's storage
 * (paths relative to its root), published under its range's name. */
typedef struct stream_dl_file {
  inlet_wfile *f; /* open temporary, NULL none */
  char *tmp;      /* owned: its path */
} stream_dl_file;

/* Creates the temporary in @p dir unless one is open. */
int stream_dl_open(stream_dl_file *d, inlet_storage *st, const char *dir, inlet_error *err);
int stream_dl_append(stream_dl_file *d, const void *buf, size_t n, inlet_error *err);
/* Drops the temporary (nothing published). */
void stream_dl_discard(stream_dl_file *d);
/* Syncs the temporary and publishes it as @p final (put-if-absent; an
 * existing file of that name, the same range written by an earlier
 * attempt, is replaced atomically). The temporary is gone either way;
 * nothing to publish is 0. */
int stream_dl_publish(stream_dl_file *d, inlet_storage *st, const char *final, inlet_error *err);
/* Best effort: removes the files of @p dir whose names start with
 * @p prefix, except @p keep (may be NULL) and names whose rest after the
 * prefix @p accept (may be NULL) refuses. Temporaries (".tmp-") only when
 * @p prefix asks for them, and only when no live writer can own them. */
void stream_dl_remove(inlet_storage *st, const char *dir, const char *prefix, const char *keep,
                      bool (*accept)(const char *rest));

typedef struct stream_part {
  char topic[256];
  int32_t partition;
  char label[300];    /* "topic/partition" (messages, commitInfo positions) */
  char txn[800];      /* APP#topic#partition */
  char txn_wm[820];   /* APP#topic#partition#wm */
  char txn_late[820]; /* APP#topic#partition#late */
  bool active;        /* assigned to this ingester now */
  bool dl_swept;      /* since this assignment (or the last lost commit), a
                         commit swept its start's dead-letter debris */
  /* Filled by stream_parts_load_fn from the table: */
  int64_t table;       /* txn version (next offset), -1 none: what a commit expects */
  int64_t resume;      /* with table -1: where another progress record (a
                          kafka-delta-ingest txn) says to start, -1 none */
  int64_t wm_table;    /* txn_wm version, -1 none */
  int64_t late_routed; /* late table's txn_late version, -1 none */
  /* The current batch covers offsets [start, next) of this part. */
  int64_t start, next;
  bool record; /* commit the position even without records (a start
                  resolved from --kafka-start latest) */
  /* Ingester state. */
  stream_watermark wm;
  stream_dl_file dl;  /* open dead-letter temporary */
  char *dl_published; /* owned: this batch's published file, NULL none */
  /* Monitoring (inlet_ingest_part_progress): */
  int64_t high_watermark;    /* the broker's, from the source's statistics; -1 unknown */
  int64_t batch_records;     /* records of the current batch */
  int64_t committed_records; /* records committed by this run */
  int64_t batch_rejected, committed_rejected; /* of those, sent to the dead letters */
  int64_t batch_late, committed_late;         /* of those, late */
} stream_part;

/* Reads the progress of @p n parts (table, resume, wm_table, late_routed)
 * from the newest table state. */
typedef int (*stream_parts_load_fn)(void *ctx, stream_part *const *parts, int n, inlet_error *err);

/* The Kafka metadata of a record, for the --kafka-columns. */
typedef struct stream_kmeta {
  const char *topic;
  int32_t partition;
  int64_t offset;
  int64_t timestamp_ms; /* -1 none */
  const void *key;      /* NULL: no key */
  size_t key_len;
  void *headers;  /* rd_kafka_headers_t *, NULL none */
  bool tombstone; /* the message has no value (null, not empty) */
} stream_kmeta;

/* The --kafka-columns: which table column receives each piece of a
 * message's metadata (src/stream/kafka_columns.c). */
enum {
  KCOL_TOPIC = 0,
  KCOL_PARTITION,
  KCOL_OFFSET,
  KCOL_TIMESTAMP,
  KCOL_KEY,
  KCOL_HEADERS,
  KCOL_N
};
typedef struct stream_kcols {
  int32_t col[KCOL_N]; /* table column index, -1 none */
  bool any;
} stream_kcols;

/* Parses "topic=COL,partition=COL,offset=COL,timestamp=COL,key=COL,headers=COL"
 * (any subset, any order) against @p schema, checking each column's type
 * (topic: string; partition: int or long; offset: long; timestamp:
 * timestamp, timestamp_ntz or long milliseconds; key: string or binary;
 * headers: map<string,string> or map<string,binary>), and makes those
 * columns nullable in @p schema (the record need not carry them). */
int stream_kcols_parse(stream_kcols *c, const char *spec, inlet_schema *schema, inlet_error *err);
/* Replaces row @p row's metadata columns with @p m's values. INLET_EINVAL
 * (a key or header value that is not UTF-8 for a string column): the
 * record is to be rejected with the message in @p err. */
int stream_kcols_fill(const stream_kcols *c, inlet_batch *b, int64_t row, const stream_kmeta *m,
                      inlet_error *err);

/* ---- the ingester's side of partitioned sources (ingest_parts.c) --------------- */

struct stream_source;

typedef struct ingest_parts {
  const char **names; /* the commit's txns (borrowed from the parts) */
  int64_t *ver, *exp;
  int n, cap;
  char *metrics;   /* owned: commitInfo operationMetrics */
  char *from, *to; /* owned: position text */
} ingest_parts;

/* Records were read from @p p in this batch, or its position must be recorded. */
bool ingest_part_advanced(const stream_part *p);
/* The batch's txns: every advanced part's txn (and txn_wm with @p watermark). */
int ingest_parts_txns(ingest_parts *ip, const struct stream_source *s, bool watermark,
                      inlet_error *err);
/* The late table's txns: txn_late of every advanced part. */
int ingest_parts_late_txns(ingest_parts *ip, const struct stream_source *s, inlet_error *err);
/* Allocates the metrics and position buffers (ip->metrics stays at one
 * address: the table writer reads it at commit). */
int ingest_parts_init(ingest_parts *ip, inlet_error *err);
/* ip->metrics: "{" @p common ",sourceStartPosition,sourcePosition,ingestAppId}". */
void ingest_parts_metrics(ingest_parts *ip, const struct stream_source *s, const char *common,
                          const char *app_json);
/* After the commit: advanced parts' table positions (and watermarks) move on. */
void ingest_parts_committed(const struct stream_source *s, bool watermark);
void ingest_parts_late_committed(const struct stream_source *s);
/* The lowest watermark of the active parts, INT64_MIN none. */
int64_t ingest_parts_watermark(const struct stream_source *s);
/* "t/p:offset,..." of the active parts, for progress events. */
void ingest_parts_summary(char *out, size_t cap, const struct stream_source *s);
void ingest_parts_free(ingest_parts *ip);
int ingest_part_dl_publish(stream_part *p, inlet_storage *st, const char *dir, inlet_error *err);
void ingest_part_dl_cleanup(const stream_part *p, inlet_storage *st, const char *dir, int64_t from,
                            int64_t to);

/* ---- sources ---------------------------------------------------------------- */

typedef struct stream_record {
  const char *data; /* lent until the next call */
  size_t len;
  stream_pos pos;           /* position just after this record */
  int64_t offset;           /* start offset in its file, -1 when none */
  int64_t bytes;            /* source bytes this record consumed */
  int64_t time_ms;          /* source time of the record (redis id), -1 unknown */
  bool oversize;            /* longer than max_record_bytes: data holds a prefix */
  bool header;              /* a CSV header line, not a record */
  bool text_fields;         /* a JSON object the source built of text values (a Redis
                               entry's fields): converted as text, like CSV cells, never
                               held to the strict JSON type rules */
  stream_part *part;        /* partitioned sources: the record's part, else NULL */
  const stream_kmeta *meta; /* Kafka: the message's metadata, else NULL */
} stream_record;

/* An empty record (time_ms -1, everything else 0), set field by field: GCC
 * makes a memset or struct copy of it a `rep stos`, whose start-up cost per
 * record was 2-3% of a one-thread NDJSON ingest. A new field must be set
 * here too (the size check below trips on 64-bit builds when one is added). */
static inline void stream_record_clear(stream_record *rec) {
#if UINTPTR_MAX == 0xffffffffffffffffu
  _Static_assert(sizeof(stream_record) == 96, "stream_record_clear must set every field");
#endif
  rec->data = NULL;
  rec->len = 0;
  rec->pos.valid = false;
  rec->pos.p[0] = rec->pos.p[1] = rec->pos.p[2] = 0;
  rec->offset = 0;
  rec->bytes = 0;
  rec->time_ms = -1;
  rec->oversize = rec->header = rec->text_fields = false;
  rec->part = NULL;
  rec->meta = NULL;
}

/* Results of next(). STREAM_GAP: records were lost in the source before the
 * next one (a Redis stream trimmed past the position, Kafka offsets deleted
 * by retention); stream_source.gap says what and where, and the next call
 * goes on after the gap. STREAM_REBALANCE (partitioned sources): the set of
 * parts is about to change; the ingester commits its batch, and the next
 * call makes the change (revoked parts become inactive, new ones are read
 * from their table positions). */
enum { STREAM_NONE = 0, STREAM_RECORD = 1, STREAM_END = 2, STREAM_GAP = 3, STREAM_REBALANCE = 4 };

typedef struct stream_gap {
  char message[1600]; /* for the user: what was lost and where */
  char range[200];    /* compact, for commitInfo: "<after>..<before>:<lost|?>" */
  int64_t lost;       /* records lost, -1 when unknown */
} stream_gap;

typedef struct stream_source stream_source;
typedef struct stream_source_ops {
  /* Next record: STREAM_RECORD, STREAM_NONE (nothing before @p wait_ms
   * elapsed), STREAM_END, or a negative code. */
  int (*next)(stream_source *s, stream_record *rec, int64_t wait_ms, inlet_error *err);
  /* Repositions right after @p pos (invalid pos: the beginning). A message
   * for the user goes to @p warn (cleared first). */
  int (*seek)(stream_source *s, const stream_pos *pos, inlet_buf *warn, inlet_error *err);
  /* Completes @p pos (e.g. the file fingerprint) before it is committed. */
  int (*finish_pos)(stream_source *s, stream_pos *pos, inlet_error *err);
  /* Source bytes not yet read (file: size - position), -1 when unknown. */
  int64_t (*lag_bytes)(stream_source *s);
  void (*free)(stream_source *s);
  /* Partitioned sources, after a commit of the parts' [start, next): tells
   * the source (Kafka: commits the offsets to the group, for monitoring).
   * NULL for others. */
  void (*committed)(stream_source *s);
  /* Optional (NULL when the source has none): the next record if it is
   * already in memory, else STREAM_NONE — never I/O, a wait or a change of
   * file, and no state but the read cursor moves, so positions finished
   * later (finish_pos) are what next() would have given. The records it
   * returns and the one next() returned before them stay valid until the
   * next call of next() or seek(): the parallel ingest converts them
   * together. */
  int (*next_buffered)(stream_source *s, stream_record *rec);
} stream_source_ops;

struct stream_source {
  const stream_source_ops *ops;
  stream_kind kind;
  bool can_seek; /* stdin cannot */
  /* Set by seek/next when positions start again lower in the same file (a
   * truncation or copy-truncate): records from here on compare with no
   * earlier position. The ingester clears it. */
  bool pos_reset;
  /* When valid: reading moved to this position without a record (a file
   * truncated in place goes on at its new end). It must be committed even if
   * no record follows, because a later run could not find it again. The
   * ingester takes it and clears it. */
  stream_pos moved_to;
  /* Messages for the user that seek/next produced (one per line: a rotation,
   * a truncation, a retried Redis error); the ingester reports and clears it. */
  inlet_buf notice;
  stream_gap gap; /* valid after next() returned STREAM_GAP */
  /* Partitioned sources (Kafka): every part seen, active or not; NULL for
   * others. seek(NULL) rereads every active part's table position and
   * repositions it there. */
  stream_part **parts;
  int n_parts;
  /* What the source waits for, for the status line ("broker 2 down: ..."),
   * NULL while it flows. */
  const char *status;
  /* Bytes a file source read ahead on the pool and handed out (tests). */
  int64_t bytes_read_ahead;
};

/* Adds one line to s->notice. */
void stream_notice(stream_source *s, const char *fmt, ...) INLET_PRINTF(2, 3);

typedef struct stream_source_options {
  inlet_text_format format;
  bool follow;
  bool once;
  int64_t max_record_bytes;
  int64_t poll_ms;
  /* The input is complete: a file's unterminated last record is read as a
   * record (otherwise it is left for a later run, its writer may be mid-line). */
  bool final;
  /* Borrowed, may be NULL: the ingester's pool. With workers, a file source
   * reads the next piece of a regular file on it while the ingester parses
   * the records of the piece before. Must outlive the source. */
  util_pool *pool;
  /* Kafka. */
  const char *app_id;            /* the progress record's name (txn prefix) */
  const char *group;             /* consumer group */
  const char *const *properties; /* "KEY=VALUE" for librdkafka */
  int32_t n_properties;
  bool start_latest; /* parts the table never saw: from their end */
  bool want_headers; /* records carry their headers (a headers column) */
  stream_parts_load_fn load_parts;
  void *load_ctx;
} stream_source_options;

/* Opens the source named by @p spec ("file:PATH", "stdin", "redis://..."). */
int stream_source_open(stream_source **out, const char *spec, const stream_source_options *o,
                       inlet_error *err);
int stream_file_open(stream_source **out, const char *path, bool is_stdin,
                     const stream_source_options *o, inlet_error *err);
int stream_redis_open(stream_source **out, const char *url, const stream_source_options *o,
                      inlet_error *err);
int stream_kafka_open(stream_source **out, const char *url, const stream_source_options *o,
                      inlet_error *err);
/* Splits "kafka://HOST:PORT[,HOST:PORT...]/TOPIC[,TOPIC...]" into the
 * bootstrap servers and the topics (sorted, without repeats; @p topics
 * receives up to @p cap pointers into @p buf). Returns the number of topics. */
int stream_kafka_parse_url(char *brokers, size_t brokers_cap, char *buf, size_t buf_cap,
                           const char **topics, int cap, const char *url, inlet_error *err);
/* Splits "redis://HOST:PORT/STREAM" (port default 6379; HOST may be an IPv6
 * address in brackets; slashes around STREAM are not part of its name). */
int stream_redis_parse_url(char *host, size_t host_cap, int *port, char *key, size_t key_cap,
                           const char *url, inlet_error *err);

/* ---- Redis gap accounting (source_redis.c; pure, for unit tests) ---------------- */

typedef struct stream_redis_id {
  uint64_t ms, seq;
} stream_redis_id;

/* What one atomic read (MULTI, XINFO STREAM, XREAD, EXEC) saw. */
typedef struct stream_redis_view {
  bool exists;                 /* the stream key exists */
  bool counters;               /* entries-added and max-deleted-entry-id (Redis >= 7) */
  uint64_t length, added;      /* XINFO length, entries-added */
  stream_redis_id max_deleted; /* XINFO max-deleted-entry-id (XDEL; trimming leaves it) */
  bool has_first;
  stream_redis_id first;  /* XINFO first-entry */
  int64_t k;              /* entries XREAD returned after the position */
  bool complete;          /* k is all there are (fewer than asked for) */
  stream_redis_id e1, ek; /* first and last of them (k > 0) */
} stream_redis_view;

/* The reader's state. */
typedef struct stream_redis_track {
  bool have_pos;         /* false: reading from the stream's start */
  stream_redis_id last;  /* last entry handed out, or the recorded position */
  int64_t n;             /* entries-added count up to and including last; -1 unknown */
  stream_redis_id acked; /* deletions up to here are accounted for */
} stream_redis_track;

typedef struct stream_redis_judgement {
  bool gap;        /* entries after last were lost before they were read */
  bool possible;   /* ... may have been: cannot be told (no count, or Redis < 7) */
  bool recreated;  /* the stream's count went backwards: deleted and created again */
  int64_t lost;    /* entries lost, -1 unknown */
  int64_t n_first; /* entries-added count of e1 (e_i: n_first + i - 1), -1 unknown */
  int64_t n_end;   /* count at ek (at last when k = 0), -1 unknown */
} stream_redis_judgement;

void stream_redis_judge(const stream_redis_track *t, const stream_redis_view *v,
                        stream_redis_judgement *j);

/* ---- application ids ------------------------------------------------------------ */

struct delta_snapshot;

/* The default app id of older versions ("inlet-ingest:" + the source as
 * spelt, a file path made absolute): progress recorded under it is found. */
int64_t stream_legacy_app_id(char *out, size_t cap, const char *source);
/* What APP#src records: for a Redis source a 62-bit hash of "redis:" + its
 * stream name (never 0), so that the table knows which stream a progress
 * record follows whatever its app id; 0 for other sources. */
int64_t stream_source_tag(const char *source);
/* The app id an ingester of @p source uses on a table in state @p s (NULL:
 * the table is being created): @p given when not NULL; otherwise the
 * canonical default id, or the one id under which progress for this source
 * is already recorded with another spelling. Refuses (INLET_EEXISTS) to
 * start a new default progress record while the table tracks the same Redis
 * stream name or the same file under another id. Notes for the user go to
 * @p warn. */
int stream_choose_app_id(char *out, size_t cap, const struct delta_snapshot *s, const char *source,
                         const char *given, inlet_buf *warn, inlet_error *err);

/* ---- batching triggers --------------------------------------------------------- */

typedef struct stream_trigger {
  int64_t max_rows, max_bytes, max_latency_ms;
  int64_t rows, bytes; /* accumulated */
  int64_t first_ms;    /* arrival of the batch's first record, -1 when empty */
} stream_trigger;

void stream_trigger_reset(stream_trigger *t);
/* Records one record of @p bytes bytes (@p rows 0 or 1) arriving at @p now_ms. */
void stream_trigger_add(stream_trigger *t, int64_t rows, int64_t bytes, int64_t now_ms);
/* True when the batch must be committed now. */
bool stream_trigger_due(const stream_trigger *t, int64_t now_ms);
/* Milliseconds until the latency trigger fires (max_latency when empty). */
int64_t stream_trigger_wait_ms(const stream_trigger *t, int64_t now_ms);

/* ---- watermark ---------------------------------------------------------------- */

void stream_watermark_init(stream_watermark *w, int64_t lateness_us, int64_t restored);
/* Classifies one event (late when before the watermark in force), then
 * advances the watermark. */
bool stream_watermark_observe(stream_watermark *w, int64_t event_us);

/* ---- generated columns ----------------------------------------------------- */

enum { GEN_DATE = 1, GEN_DAY_STRING, GEN_HOUR_STRING, GEN_HOUR_TS };

/* Recognises the delta.generationExpression forms ingest computes:
 * CAST(c AS DATE) / to_date(c) → GEN_DATE, date_format(c, 'yyyy-MM-dd') →
 * GEN_DAY_STRING, date_format(c, 'yyyy-MM-dd-HH') → GEN_HOUR_STRING,
 * date_trunc('HOUR', c) → GEN_HOUR_TS (function names any case, spaces
 * free, c optionally `quoted`). Copies c into @p col; 0 when unsupported. */
int stream_generation_kind(const char *expr, char *col, size_t cap);

/* Monotonic clock, ms. */
int64_t stream_now_ms(void);
/* The same clock read coarsely (CLOCK_MONOTONIC_COARSE where there is one:
 * a few ms of resolution for a fifth of the cost), for per-record use. */
int64_t stream_now_coarse_ms(void);
/* Wall clock, ms. */
int64_t stream_wall_ms(void);

/* ---- converting records ahead on several threads (ingest_ahead.c) ---------- */

/* The ingester asks the source for the records it holds in memory (next()
 * once, then next_buffered), converts them into rows on the pool's threads,
 * a share of the records each into its own scratch batch, and then takes
 * them one by one in source order: its batch cuts, watermark, dead letters,
 * constraints and commits decide exactly as for records converted one at a
 * time, and the rows move into its chunk in bulk (batch_append_range). */

/* Fills the derived columns of the row a worker just appended (the last of
 * @p b): must be safe on several threads at once. */
typedef int (*stream_ahead_derive_fn)(void *ctx, inlet_batch *b, int64_t row, inlet_error *err);

typedef struct stream_ahead_item {
  stream_record rec;
  int32_t part; /* scratch batch */
  int64_t row;  /* the record's row in it; -1: the ingester converts the record itself */
  int64_t ignored;
} stream_ahead_item;

struct stream_ahead;
/* A share of the records, converted by one task into one scratch batch. */
typedef struct stream_ahead_share {
  struct stream_ahead *a;
  int part;
  int64_t from, to; /* items */
  util_group group;
  bool running; /* submitted, not yet waited for */
} stream_ahead_share;

typedef struct stream_ahead {
  util_pool *pool; /* borrowed */
  int n_parts;     /* scratch batches, one per share of the records */
  stream_ahead_share *shares;
  int n_shares;           /* shares of the records read last */
  inlet_text_reader **rd; /* owned, per part; NULL until the schema is set */
  inlet_batch *scratch;   /* per part */
  uint8_t **keep;         /* per part and row: 0 when the ingester dropped the row */
  int64_t *keep_cap;
  const inlet_schema *schema; /* borrowed (the ingester's) */
  const inlet_text_reader_options *ropt;
  /* Borrowed: where the ingester keeps the CSV header its records map
   * through (a line ending in '\n'; NULL: none, cells in schema order), or
   * NULL for NDJSON. Read when the readers are remade. */
  char *const *csv_header;
  stream_ahead_derive_fn derive;
  void *derive_ctx;
  bool stale; /* the schema changed: readers and scratch batches are remade */
  stream_ahead_item *items;
  int64_t n, at, cap;
} stream_ahead;

/* Records converted together: at most this many, of at most this many bytes. */
#define STREAM_AHEAD_RECORDS 32768
#define STREAM_AHEAD_BYTES ((size_t)8 << 20)
/* Shares the records read at once are split into: the ingester takes the
 * first while the pool converts the rest. */
#define STREAM_AHEAD_SHARES 4
/* Fewer records than this are left to the ingester (not worth the threads). */
#define STREAM_AHEAD_MIN 64

int stream_ahead_init(stream_ahead *a, util_pool *pool, const inlet_schema *schema,
                      const inlet_text_reader_options *ropt, char *const *csv_header,
                      stream_ahead_derive_fn derive, void *ctx, inlet_error *err);
void stream_ahead_free(stream_ahead *a);
/* The schema, the reader options or the CSV header changed: converted
 * records not taken yet are converted by the ingester, and the next ones
 * with the new readers. */
void stream_ahead_schema_changed(stream_ahead *a);
/* Forgets the records not taken yet (the source was repositioned). */
void stream_ahead_drop(stream_ahead *a);
/* Whether records converted ahead are waiting. */
static inline bool stream_ahead_pending(const stream_ahead *a) {
  return a->at < a->n;
}
/* Source bytes read ahead past @p last (the position of the last record
 * taken): what lag_bytes, which counts from the source's cursor, misses. */
int64_t stream_ahead_unread_bytes(const stream_ahead *a, const stream_pos *last);
/* The next record, as @p s's next() (same results and waits); *@p item is
 * its conversion, or NULL (the ingester converts it). Only when no record
 * is waiting does it read the source: the scratch batches are then cleared,
 * so rows the ingester still needs from them must have been moved first. */
int stream_ahead_next(stream_ahead *a, stream_source *s, stream_record *rec,
                      const stream_ahead_item **item, int64_t wait_ms, inlet_error *err);

/* A reader of single records (inlet_text_reader_append) in @p schema; for
 * CSV with @p csv_header (a line ending in '\n', NULL: cells in schema
 * order) read, so that cells map through it. *@p out is the caller's to
 * free even when reading the header failed. */
int stream_text_reader_open(inlet_text_reader **out, const char *csv_header,
                            const inlet_schema *schema, const inlet_text_reader_options *ropt,
                            inlet_error *err);

#endif /* INLET_STREAM_H */
