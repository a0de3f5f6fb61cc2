/*
 * Streaming ingestion: a source of NDJSON/CSV records (a file read to its
 * end or followed, standard input, a Redis stream, Kafka topics) turned into a Delta table
 * one atomic commit per micro-batch, exactly once across crashes.
 *
 * Micro-batches. Records are converted to the table schema (text.h rules)
 * and accumulated; a batch ends when it holds max_rows rows, or max_bytes
 * input bytes, or max_latency_ms has passed since its first record arrived,
 * whichever comes first, or when the source ends. Rows are handed to the
 * table writer in chunks of at most 65,536 rows, so memory stays bounded by
 * the writer's row-group buffers, whatever the batch limits. A batch with
 * neither rows nor rejected/dropped records makes no commit.
 *
 * Exactly-once progress (Delta PROTOCOL.md "Transaction Identifiers"). Every
 * batch commit carries, next to its add actions, these txn actions (appId →
 * version), all with lastUpdated set:
 *
 *   APP          batch sequence number: 1, 2, 3, ... (monotonic, the value
 *                Spark's sink and kafka-delta-ingest keep in a txn)
 *   APP#p0       source position, first component  (file: inode;
 *                redis: entry id milliseconds)
 *   APP#p1       source position, second component (file: byte offset just
 *                after the last complete record; redis: entry id sequence)
 *   APP#p2       source position, third component  (file: fingerprint of the
 *                file's first bytes, against inode reuse; redis: the stream's
 *                entries-added count up to the entry, 0 when unknown, which
 *                makes trimmed-away entries countable)
 *   APP#wm       watermark, microseconds since the epoch (only with an
 *                event-time column; -1 until a watermark exists)
 *   APP#src      redis: a 62-bit hash of the stream name, so that the table
 *                knows which stream a progress record follows, whatever APP
 *
 * Kafka ("kafka://HOST:PORT[,HOST:PORT...]/TOPIC[,TOPIC...]", librdkafka
 * consumer in group kafka_group). Partitions are positioned independently
 * and shared by the group's members, so instead of the entries above every
 * commit carries, for each topic-partition the batch advanced,
 *   APP#TOPIC#PARTITION      the next offset to read
 *   APP#TOPIC#PARTITION#wm   that partition's watermark (event-time column)
 * each committed only if the table still records the version the ingester
 * started the partition from (a partition read by two members during a
 * rebalance is committed once; the loser rereads). There is no batch
 * sequence, so members' commits do not conflict. Partitions are read from
 * these versions when assigned; Kafka's committed offsets are written after
 * each commit for monitoring and never read. Dead letters are per partition
 * range. See docs/INGEST.md "Kafka".
 *
 * Application ids. options.app_id names the progress record (recommended in
 * production). The default is derived from the source canonically, so that
 * spelling does not matter (inlet_ingest_default_app_id). Spelling is not
 * identity, and a Redis server has none that survives a restart: without
 * app_id, a run refuses (INLET_EEXISTS) to start a new progress record while
 * the table already tracks a Redis stream of the same name, or the same file
 * (inode and first bytes), under another id. Progress recorded by older
 * versions under "inlet-ingest:" + the source as spelt is continued.
 *
 * Why txn actions and not a side store or commitInfo: txn actions are part of
 * the table state that checkpoints keep and log cleanup preserves (commitInfo
 * is not), they sit in the same atomic commit as the data they cover, and
 * Delta's conflict rules make two commits recording the same appId after one
 * read version conflict. The position needs three numbers, so it takes three
 * txn entries with derived appIds (a fixed set per ingester: the log state
 * does not grow with the number of batches). Domain metadata would need the
 * domainMetadata writer feature, which existing tables may lack.
 *
 * Tables whose delta.setTransactionRetentionDuration is set are refused: that
 * property lets checkpoints expire txn entries, i.e. forget positions.
 *
 * On start the ingester loads the latest snapshot, reads APP, APP#p0..2 and APP#wm
 * and resumes right after the recorded position (file: same inode and
 * fingerprint → seek to the offset; a rotated-away file is looked for by
 * inode among its directory's siblings, finished, then the new file is read
 * from its start; a file truncated in place goes on at its new end, a
 * copy-truncated one finishes its copy, a file replaced by a superset goes on
 * at the offset: docs/INGEST.md "Files"). The writer refuses to commit batch N when the table
 * already records N or more for APP (app_version_must_increase) and the log's
 * conflict check refuses it when a concurrent commit recorded APP after the
 * writer's read version; in both cases the ingester drops its batch, reloads
 * the position and carries on, so a batch is never committed twice.
 *
 * Bad records (invalid JSON, wrong type, overflow, missing NOT NULL field,
 * oversized line, unknown field unless schema_evolution IGNORE, a JSON value
 * outside the strict conversions unless coerce) never stop the stream (unless
 * max_rejected / max_rejected_pct is passed: INLET_EREJECTED) and are
 * never silently dropped: they go to `_errors/<app>/<from>_<to>.ndjson` in
 * the table directory (ignored by Delta readers; `_`-prefixed), one JSON
 * object per record {"position", "offset", "source", "reason", "record"
 * (or "record_hex" when not UTF-8), "truncated"}, written to a temporary
 * through the table's storage and published under its name (put-if-absent;
 * a replay's copy replaces the same name whole) before the batch commits.
 * The name is the batch's position range (<from> is "start" before the
 * first commit). A replay of
 * the same range rewrites the same name; after a commit of [from, to] every
 * other `<from>_*` file (an attempt that died or lost the commit race) is
 * removed, and on restart that cleanup is repeated for the last commit
 * (found through commitInfo's sourceStartPosition/sourcePosition/ingestAppId),
 * so dead letters are neither lost nor duplicated.
 *
 * Watermarks and late data. With an event-time column (timestamp or date)
 * and an allowed lateness L, the watermark is max(event time seen) - L,
 * advanced row by row in source order and restored from APP#wm on restart;
 * a row is late when its event time is before the watermark in force when it
 * arrived (rows with a null event time are never late). Late rows are kept
 * (counted, and flagged true in the boolean column named by the table
 * property "inlet.ingest.lateFlagColumn", which on-time rows get false),
 * dropped (counted), or routed to another table (committed there first,
 * with txn actions APP#late = batch sequence and APP#late#p0..2 = the source
 * position the routed rows reach; a replayed batch, whose boundaries may
 * differ from the first attempt's, routes only rows past that position, so
 * each late row lands in the late table once).
 * A partition column whose schemaString metadata has a
 * delta.generationExpression of CAST(c AS DATE), to_date(c), or
 * date_format(c, 'yyyy-MM-dd[-HH]') is computed from column c.
 *
 * Sources. file:PATH positions survive restarts (above); an unterminated
 * last line is left for a later run unless options.final. stdin cannot be
 * replayed: committed data is never duplicated within a run, but records a
 * process read and did not commit before it died are gone, and a restarted
 * process starts with whatever stdin now holds; its unterminated last line
 * is read at its end. Redis: XREAD after the recorded entry id; the record
 * is the entry's "data" (or "json", "payload") field, else a JSON object of
 * all its fields. Entries trimmed or deleted past the position are a gap
 * (options.allow_gaps); transient errors (connection refused or lost,
 * timeouts, LOADING, BUSY, ...) are retried with backoff and reported as
 * warnings (with once for up to 60 s), authentication and protocol errors
 * are fatal. What a source does (rotation, truncation, retries) is reported
 * through INLET_INGEST_WARNING events.
 *
 * Thread safety: one run per thread; the stop flag may be set from a signal
 * handler.
 */
#ifndef INLET_INGEST_H
#define INLET_INGEST_H

#include <signal.h>

#include "inlet/batch.h"
#include "inlet/common.h"
#include "inlet/error.h"
#include "inlet/table.h"
#include "inlet/text.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What an ingester does with a record's fields that the table schema lacks. */
typedef enum inlet_schema_evolution {
  INLET_SCHEMA_EVOLUTION_REJECT = 0, /* the record is rejected (dead letter naming the field) */
  INLET_SCHEMA_EVOLUTION_IGNORE,     /* the field is dropped and counted */
  INLET_SCHEMA_EVOLUTION_ADD         /* the table gains the column (a metaData action) */
} inlet_schema_evolution;

typedef enum inlet_late_policy {
  INLET_LATE_KEEP = 0, /* write with the other rows, flagged and counted */
  INLET_LATE_DROP,     /* count only */
  INLET_LATE_ROUTE     /* write to late_table instead */
} inlet_late_policy;

/** Kind of a progress event. */
typedef enum inlet_ingest_event {
  INLET_INGEST_STARTED = 0, /* position restored; batches = 0 */
  INLET_INGEST_BATCH,       /* a batch committed (or was found already committed) */
  INLET_INGEST_IDLE,        /* periodic while waiting for records */
  INLET_INGEST_WARNING,     /* message holds the warning */
  INLET_INGEST_FINISHED
} inlet_ingest_event;

/** Counters, cumulative over the run unless noted. */
/* One Kafka topic-partition in a progress event. */
typedef struct inlet_ingest_part_progress {
  const char *topic; /* lent */
  int32_t partition;
  bool assigned;             /* assigned to this ingester now */
  int64_t committed_records; /* records of this partition committed by this run (rows,
                                rejected and late ones alike) */
  int64_t rejected;          /* of those, sent to the dead letters */
  int64_t late;              /* of those, late (kept, dropped or routed) */
  int64_t offset;            /* next offset the table records for it; -1 none yet */
  int64_t high_watermark;    /* the broker's high watermark last seen; -1 unknown */
  int64_t lag_records;       /* high_watermark - offset while assigned; -1 unknown */
} inlet_ingest_part_progress;

typedef struct inlet_ingest_progress {
  inlet_ingest_event event;
  int64_t batches;      /* committed by this run */
  int64_t rows;         /* rows written to the table */
  int64_t late_rows;    /* late rows seen (kept, dropped or routed) */
  int64_t dropped_rows; /* late rows dropped */
  int64_t routed_rows;  /* late rows routed to the late table */
  int64_t rejected;     /* bad records sent to _errors/ */
  int64_t bytes;        /* source bytes consumed */
  int64_t last_version; /* last table version committed, -1 none */
  int64_t batch_rows;   /* this batch (BATCH events) */
  int64_t lag_ms;       /* source lag: now - the redis entry id time of the batch's
                           last record; -1 unknown (files) */
  int64_t lag_bytes;    /* file sources: bytes of the file not yet read; -1 unknown */
  int64_t watermark_us; /* INT64_MIN when none */
  int64_t sequence;     /* last batch sequence committed for the app id */
  int64_t elapsed_ms;   /* since the run started */
  const char *app_id;   /* lent */
  const char *position; /* lent, human-readable position ("inode:offset", "ms-seq") */
  const char *message;  /* lent, WARNING only */
  int64_t gaps;         /* source gaps skipped with allow_gaps (see there) */
  const char *status;   /* lent: what the source waits for ("waiting for Kafka: events/2
                           (leader ... is DOWN)"), NULL while it flows */
  /* Version 3 (options version 3 and up): */
  int64_t conflicts;        /* batch commits lost to a concurrent writer and redone */
  int64_t batch_latency_ms; /* BATCH: from the arrival of the batch's first record to its
                               commit; -1 in other events */
  /* Version 4: unknown fields dropped (schema_evolution IGNORE) from the records
   * committed by this run. */
  int64_t ignored_fields;
  /* Added: partitioned sources (Kafka): every topic-partition this run has seen,
   * assigned or not, in the order they were first assigned; 0 and NULL for other
   * sources (or when memory for them ran out). Lent for the call. */
  int32_t n_parts;
  const inlet_ingest_part_progress *parts;
  /* Added: bytes of the data files this run committed to the table. */
  int64_t bytes_written;
} inlet_ingest_progress;

typedef void (*inlet_ingest_progress_fn)(void *ctx, const inlet_ingest_progress *p);

typedef struct inlet_ingest_options {
  int version;                   /* INLET_INGEST_OPTIONS_VERSION */
  const char *source;            /* "file:PATH", "stdin" or "redis://HOST:PORT/STREAM" */
  inlet_text_format format;      /* NDJSON (default) or CSV (file and stdin sources) */
  int64_t max_rows;              /* default 1,000,000 */
  int64_t max_bytes;             /* source bytes per batch; default 64 MiB */
  int64_t max_latency_ms;        /* default 2000 */
  bool once;                     /* process what is available now, then return */
  bool follow;                   /* file: keep reading as the file grows / rotates */
  const char *app_id;            /* default: derived from the source identity */
  bool strict;                   /* unknown fields are bad records */
  const char *event_time_column; /* NULL: no watermark */
  int64_t allowed_lateness_us;
  inlet_late_policy late_policy;
  const char *late_table;               /* path of the table for INLET_LATE_ROUTE */
  inlet_compression compression;        /* data files; default SNAPPY */
  inlet_ingest_progress_fn on_progress; /* may be NULL */
  void *ctx;
  volatile sig_atomic_t *stop; /* when set non-zero: finish the current batch, return 0 */
  int64_t idle_event_ms;       /* IDLE event period; default 1000 */
  int64_t poll_ms;             /* file follow poll period; default 100 */
  /* Added: create the table with the first batch (all NULL = the table must exist).
   * When the table has no commit yet, the first batch's commit is version 0: protocol,
   * metaData (this schema, partition columns, properties) and the batch's data and txn
   * actions in one atomic commit. Ignored when the table already exists. */
  const char *create_path;           /* with table == NULL: directory or URL of the table (may not
                                        exist) */
  const inlet_schema *create_schema; /* borrowed for the run */
  const inlet_table_create_options *create_options; /* partitions, properties, name,
                                                       description (batches ignored); may be
                                                       NULL */
  /* Added: the input is complete (file sources): an unterminated last record is read as
   * a record. Without it, it is left for a later run, because its writer may be mid-line
   * (stdin's end is always final). */
  bool final;
  /* Added: records the source lost before they were read (a Redis stream trimmed past
   * the position) do not stop the run: the gap is reported, counted and recorded in the
   * commitInfo of the batch that follows it. Without it the run commits what came before
   * the gap and fails with INLET_ENOTFOUND naming it. */
  bool allow_gaps;
  /* Added: Kafka sources, "kafka://HOST:PORT[,HOST:PORT...]/TOPIC[,TOPIC...]" (see
   * "Kafka" above; followed unless once). */
  const char *kafka_group;             /* consumer group; default: the app id */
  const char *const *kafka_properties; /* "KEY=VALUE" librdkafka settings (security.protocol,
                                          sasl.*, ssl.*, client.id, fetch sizes, ...) */
  int32_t n_kafka_properties;
  bool kafka_start_latest;      /* partitions the table never saw start at their end
                                   (default: their earliest offset) */
  const char *kafka_columns;    /* "topic=COL,partition=COL,offset=COL,timestamp=COL,
                                   key=COL,headers=COL" (any subset) */
  const char *kafka_kdi_app_id; /* partitions without inlet progress start after
                                   kafka-delta-ingest's txn "<ID>-<partition>" */
  /* Added: how create_path is reached (storage settings, single-writer mode); NULL =
   * settings from the environment. create_path may be a URL (include/inlet/storage.h). */
  const inlet_table_open_options *create_open;
  /* Added: a record (a line, a Redis entry's record, a Kafka message value) longer than
   * this many bytes is a bad record ("record exceeds the N-byte limit", its first N bytes
   * in the dead letter, "truncated":true); 0: 16 MiB. */
  int64_t max_record_bytes;
  /* Version 4 (docs/INGEST.md "Unknown fields and types"): a record's fields that are not
   * in the table schema. REJECT (the default): the record is a bad record (dead letter
   * naming the field). IGNORE: the fields are dropped and counted (progress.ignored_fields,
   * commitInfo.operationMetrics.numIgnoredFields). ADD: typed fields become new nullable
   * columns (struct fields) in the commit of their batch (docs/INGEST.md "Schema
   * evolution"); INLET_EUNSUPPORTED for CSV sources and column-mapping tables. `strict`
   * set forces REJECT. */
  inlet_schema_evolution schema_evolution;
  /* The lenient conversions of include/inlet/text.h (a number or boolean into a string
   * column, "42" into an integer column, ...); default false: the strict table
   * (inlet_text_reader_options.strict_types). */
  bool coerce;
  /* Stop with INLET_EREJECTED when the run has rejected more than max_rejected records
   * (-1: no limit; 0: none allowed), at the record past the limit: the batch up to and
   * including it is committed first (its accepted rows in the table, its rejected records
   * in the dead letters), so a rerun goes on after it and nothing is lost or duplicated. */
  int64_t max_rejected;
  /* Stop with INLET_EREJECTED when, at the commit of a batch, the run's rejected records
   * are more than this percentage of the run's records (committed batches; -1: no limit).
   * Checked after each commit, so what was accepted is committed. */
  double max_rejected_pct;
  /* Version 5: threads encoding and compressing the data files' column chunks in
   * parallel (started once for the run); 0 or 1 (the default): none, everything on
   * the caller's thread. Files, commits and positions do not depend on it. */
  int32_t threads;
} inlet_ingest_options;

/* 2: the fields from kafka_group on (and inlet_ingest_progress.status); a version-1
 * struct, which ends before them, is still accepted, and its caller's progress struct is
 * filled only up to status. 3: the same options; the progress struct gained conflicts and
 * batch_latency_ms (a version-2 caller's is filled up to status). 4: the fields from
 * schema_evolution on (and inlet_ingest_progress.ignored_fields); a version-1 to -3 struct
 * gets IGNORE (REJECT with strict) and coerce, their earlier behaviour, and a version-3
 * caller's progress struct is filled up to ignored_fields. 5: threads (a version-4 struct,
 * which ends before it, runs on one thread). */
#define INLET_INGEST_OPTIONS_VERSION 5
#define INLET_INGEST_OPTIONS_INIT                                                                  \
  {                                                                                                \
    INLET_INGEST_OPTIONS_VERSION, NULL, INLET_TEXT_NDJSON, 0, 0, 0, false, false, NULL, false,     \
        NULL, 0, INLET_LATE_KEEP, NULL, INLET_COMPRESSION_SNAPPY, NULL, NULL, NULL, 0, 0, NULL,    \
        NULL, NULL, false, false, NULL, NULL, 0, false, NULL, NULL, NULL, 0,                       \
        INLET_SCHEMA_EVOLUTION_REJECT, false, -1, -1.0, 0                                          \
  }

/**
 * Runs an ingester on @p table (NULL with options->create_path and
 * create_schema: the table there is opened or created) until the source ends (file without follow,
 * stdin at EOF), @p once has drained what was available, or *stop is set.
 * @p out (may be NULL) receives the final counters.
 * @return 0, INLET_EINVAL (bad options or source, Redis refused access),
 *         INLET_EUNSUPPORTED (a table with delta.setTransactionRetentionDuration,
 *         an unsupported event-time type or generation expression),
 *         INLET_ENOTFOUND (source file or table missing; a gap in the source
 *         without allow_gaps), INLET_EEXISTS (no app_id, and the table tracks
 *         this source under another id), INLET_ECONFLICT (stdin: the batch was
 *         committed by another process with the same app id), INLET_EIO,
 *         INLET_ECORRUPT, INLET_ENOMEM, INLET_ELIMIT.
 */
INLET_API int inlet_ingest_run(inlet_ingest_progress *out, inlet_table *table,
                               const inlet_ingest_options *options, inlet_error *err);

/**
 * The default application id of @p source ("inlet-ingest:" + the canonical
 * source: "file:" + real path; "redis://host:port/stream" with the host in
 * lower case, loopback addresses as "localhost", the port explicit and no
 * slashes around the stream; "stdin") into @p out (NUL-terminated, truncated
 * to @p cap). Returns the length needed, or INLET_EINVAL.
 */
INLET_API int64_t inlet_ingest_default_app_id(char *out, size_t cap, const char *source);

/**
 * Parses a duration into microseconds: the grammar of inlet_duration_parse
 * (include/inlet/maint.h; "90s", "5m", "250ms", "1h30m", "interval 1 day").
 * A bare number is an error: units are required. @return 0, INLET_EINVAL.
 */
INLET_API int inlet_ingest_parse_duration(int64_t *out_us, const char *text, inlet_error *err);

/** Event time of row @p row of @p array (timestamp any unit, or date) in
 * microseconds; false for null or another type. */
INLET_API bool inlet_event_time_us(const inlet_array *array, const inlet_field *field, int64_t row,
                                   int64_t *out_us);

/**
 * The watermark-gated split for scans: sets bit i of @p selection (a bitmap of
 * batch->num_rows bits, caller-allocated, (num_rows + 7) / 8 bytes) when row i
 * of column @p column is on time (event time >= @p watermark_us) if @p late is
 * false, or late (event time < watermark) if @p late is true. Rows with a null
 * event time count as on time. Returns the number of rows selected, or
 * INLET_ENOTFOUND / INLET_EINVAL (no such column, not a timestamp or date).
 */
INLET_API int64_t inlet_watermark_split(uint8_t *selection, const inlet_batch *batch,
                                        const char *column, int64_t watermark_us, bool late,
                                        inlet_error *err);

/** Name of the table property naming the boolean late-flag column. */
#define INLET_LATE_FLAG_PROPERTY "inlet.ingest.lateFlagColumn"

#ifdef __cplusplus
}
#endif

#endif /* INLET_INGEST_H */
