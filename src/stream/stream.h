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
#include "util/buf.h"

/* ---- positions ------------------------------------------------------------- */

/* A source position: up to three non-negative numbers whose meaning belongs
 * to the source kind (file: inode, offset, fingerprint; redis: ms, seq). */
typedef struct stream_pos {
  bool valid;   /* false: "from the beginning" */
  int64_t p[3];
} stream_pos;

#define STREAM_POS_PARTS 3

/* "APP#p0".. into @p out; the suffixes are part of the on-table format. */
void stream_txn_name(char *out, size_t cap, const char *app_id, const char *suffix);

/* Human-readable and file-name-safe text of @p pos for source kind @p kind
 * ("i<inode>-o<offset>" for files, "<ms>-<seq>" for redis, "o<offset>" for
 * stdin, "start" when invalid). */
typedef enum stream_kind { STREAM_FILE = 0, STREAM_STDIN, STREAM_REDIS } stream_kind;
void stream_pos_format(char *out, size_t cap, stream_kind kind, const stream_pos *pos);

/* 62-bit FNV-1a of @p n bytes (non-negative, fits a txn version). */
int64_t stream_fingerprint(const void *data, size_t n);
#define STREAM_FP_BYTES 1024

/* ---- sources ---------------------------------------------------------------- */

typedef struct stream_record {
  const char *data;  /* lent until the next call */
  size_t len;
  stream_pos pos;    /* position just after this record */
  int64_t offset;    /* start offset in its file, -1 when none */
  int64_t bytes;     /* source bytes this record consumed */
  int64_t time_ms;   /* source time of the record (redis id), -1 unknown */
  bool oversize;     /* longer than max_record_bytes: data holds a prefix */
  bool header;       /* a CSV header line, not a record */
} stream_record;

enum { STREAM_NONE = 0, STREAM_RECORD = 1, STREAM_END = 2 };

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
} stream_source_ops;

struct stream_source {
  const stream_source_ops *ops;
  stream_kind kind;
  bool can_seek; /* stdin cannot */
};

typedef struct stream_source_options {
  inlet_text_format format;
  bool follow;
  bool once;
  int64_t max_record_bytes;
  int64_t poll_ms;
} stream_source_options;

/* Opens the source named by @p spec ("file:PATH", "stdin", "redis://..."). */
int stream_source_open(stream_source **out, const char *spec, const stream_source_options *o,
                       inlet_error *err);
int stream_file_open(stream_source **out, const char *path, bool is_stdin,
                     const stream_source_options *o, inlet_error *err);
int stream_redis_open(stream_source **out, const char *url, const stream_source_options *o,
                      inlet_error *err);
/* Splits "redis://HOST:PORT/STREAM" (port default 6379). */
int stream_redis_parse_url(char *host, size_t host_cap, int *port, char *key, size_t key_cap,
                           const char *url, inlet_error *err);

/* ---- batching triggers --------------------------------------------------------- */

typedef struct stream_trigger {
  int64_t max_rows, max_bytes, max_latency_ms;
  int64_t rows, bytes;     /* accumulated */
  int64_t first_ms;        /* arrival of the batch's first record, -1 when empty */
} stream_trigger;

void stream_trigger_reset(stream_trigger *t);
/* Records one record of @p bytes bytes (@p rows 0 or 1) arriving at @p now_ms. */
void stream_trigger_add(stream_trigger *t, int64_t rows, int64_t bytes, int64_t now_ms);
/* True when the batch must be committed now. */
bool stream_trigger_due(const stream_trigger *t, int64_t now_ms);
/* Milliseconds until the latency trigger fires (max_latency when empty). */
int64_t stream_trigger_wait_ms(const stream_trigger *t, int64_t now_ms);

/* ---- watermark ---------------------------------------------------------------- */

typedef struct stream_watermark {
  int64_t lateness_us;
  int64_t max_event_us; /* INT64_MIN: nothing seen */
  int64_t value;        /* INT64_MIN: none */
} stream_watermark;

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

#endif /* INLET_STREAM_H */
