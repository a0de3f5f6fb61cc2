/*
 * The micro-batch ingester (include/inlet/ingest.h): source records →
 * converted rows (text.h) → table writer chunks → one commit per batch
 * carrying the batch sequence, source position and watermark as txn actions
 * (Delta PROTOCOL.md "Transaction Identifiers") and the batch's metrics in
 * commitInfo.operationMetrics ("Commit Provenance Information").
 *
 * Order of effects for one batch, chosen so that a crash anywhere is
 * harmless: data files written and fsynced (orphans if we die), late rows
 * committed to the route table under APP#late, dead letters published into
 * place under the batch's position range, then the one commit that makes the
 * batch and its position visible together. A restart reads the position back
 * and replays from there; replays rewrite dead-letter files of the same name
 * and the route table's txn refuses a second copy.
 */
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch/batch.h"
#include "delta/delta_constraints.h"
#include "delta/delta_features.h"
#include "delta/delta_table.h"
#include "stream/stream.h"
#include "util/util.h"

#define CHUNK_ROWS 65536
#define CHUNK_BYTES ((int64_t)32 << 20)
/* Records are converted ahead on the pool from this many threads on. */
#define AHEAD_MIN_THREADS 3

typedef struct gen_col {
  int32_t col, src;
  int kind;
} gen_col;

typedef struct ingester {
  inlet_table *table; /* borrowed */
  inlet_ingest_options o;
  char app[400];
  char n_pos[STREAM_POS_PARTS][420];
  char n_wm[420], n_late[420], n_src[420];
  const char *xnames[5];
  int64_t xver[5];
  int n_x;         /* extra txns per commit: positions, [watermark], [source tag] */
  int64_t src_tag; /* APP#src (Redis: the stream name's hash), 0 none */
  char metrics[4096];
  char app_json[900]; /* the app id as a JSON string */

  stream_source *src;        /* owned */
  inlet_schema schema;       /* owned: table schema, flag/generated columns made nullable */
  inlet_text_reader *reader; /* owned */
  inlet_text_reader_options ropt;
  char *header; /* owned copy of the CSV header the reader maps */
  inlet_batch chunk;
  /* The ingest pipeline (threads > 1): a full chunk is swapped into
   * write_chunk and written into the batch's data files on a pool thread
   * while the next chunk is converted; write_group waits for it. The writer
   * and write_chunk are the task's until wait_write() (every other use of
   * g->w comes after one). One chunk in flight bounds the memory. */
  inlet_batch write_chunk;
  util_group write_group;
  bool write_pending;
  bool *late; /* owned, per chunk row */
  int64_t late_cap;
  int32_t et_col, flag_col;
  gen_col gens[8];
  int n_gens;
  int32_t *pcheck; /* owned: partition columns whose values records give */
  int32_t n_pcheck;
  stream_watermark wm;
  int64_t wm_committed;

  /* current batch */
  inlet_table_writer *w; /* owned */
  stream_trigger trig;
  stream_pos committed, last;
  stream_pos moved; /* the source moved here without a record: commit it (moved_to) */
  bool b_force;     /* commit this batch even without records (a moved position) */
  int64_t seq;      /* last committed batch sequence */
  int64_t b_rows, b_late, b_rejected, b_dropped, b_routed, b_bytes, b_records, b_time_ms;
  int64_t b_ignored;   /* unknown fields dropped from this batch's rows (IGNORE) */
  int64_t run_records; /* source records of the batches this run committed */
  bool reject_stop;    /* the run rejected more than max_rejected: commit, then stop */
  bool abandoned;

  /* dead letters */
  const char *dl_constraint;   /* the next dead letter's violated constraint, or NULL */
  char *dl_dir;                /* owned: _errors/<app>, in the table's storage */
  inlet_storage *dl_st;        /* borrowed: the table's storage */
  stream_dl_file dl;           /* this batch's open dead-letter temporary */
  char dl_published[PATH_MAX]; /* this batch's published file, "" when none */

  /* late table */
  inlet_table *late_table; /* owned */
  inlet_text_reader *late_reader;
  inlet_batch late_chunk;
  stream_pos late_routed; /* late rows up to here are in the late table */
  char n_late_pos[STREAM_POS_PARTS][440];
  const char *late_xnames[STREAM_POS_PARTS];
  int64_t late_xver[STREAM_POS_PARTS];
  inlet_table_writer *lw;

  /* creating the table with the first batch (options create_schema) */
  bool creating;            /* the table has no commit yet: the next commit is version 0 */
  bool dl_swept;            /* since the start (or the last lost commit), a commit swept the
                               dead-letter debris of attempts on its start position */
  inlet_table *owned_table; /* owned: opened from create_path when no table was given */
  delta_snapshot cs;        /* owned: version -1 state of the table to create */

  /* source gaps skipped with allow_gaps, recorded by the next commit */
  int64_t gaps_pending, gap_lost_pending;
  char gap_ranges[1024];
  bool gap_stop; /* a gap without allow_gaps: commit what came before it, then fail */

  delta_constraints cons; /* owned: invariants and CHECK constraints of the table */

  /* schema evolution (schema_evolution ADD) */
  bool evolve;
  bool widen;  /* evolve on a table that allows type widening (typeWidening, enabled) */
  char *tjson; /* owned: the table's schemaString as read (and evolved by this batch) */

  /* partitioned sources (Kafka): src/stream/ingest_parts.c */
  stream_kcols kcols; /* --kafka-columns */
  ingest_parts parts; /* txn arrays, metrics, positions text */

  inlet_ingest_progress prog;
  int64_t now; /* monotonic ms, read once per record */
  char posbuf[400];
  inlet_ingest_part_progress *part_prog; /* owned: progress.parts */
  int part_prog_cap;
  int64_t t0;
  util_pool *pool;     /* owned: o.threads > 1, lent to every batch's writer */
  pq_buf_stash *stash; /* owned: lent to every batch's writer, so files reuse chunk buffers */

  /* Converting ahead (threads > 1, NDJSON or CSV, a source with next_buffered;
   * ingest_ahead.c): item is the conversion of the record being processed
   * (NULL: convert it here). Rows of scratch batch pend_part in
   * [pend_from, pend_to) are processed but not yet in the chunk (pend_kept
   * of them kept); they move at every 1024th chunk row, so the chunk is cut
   * where one thread cuts it. pend_part -1: none. */
  bool use_ahead;
  stream_ahead ahead;
  const stream_ahead_item *item;
  int32_t pend_part;
  int64_t pend_from, pend_to, pend_kept;
} ingester;

/* A source of independently positioned parts (Kafka partitions): progress,
 * watermarks and dead letters are per part (src/stream/ingest_parts.c). */
static bool partitioned(const ingester *g) {
  return g->src && g->src->kind == STREAM_KAFKA;
}

static bool is_kafka_source(const char *source) {
  return source && strncmp(source, "kafka://", 8) == 0;
}

/* progress.parts from the source's parts (none when memory runs out: the
 * counters are monitoring, not worth failing the ingest for). */
static void fill_part_progress(ingester *g) {
  g->prog.n_parts = 0;
  g->prog.parts = NULL;
  if (!partitioned(g) || g->src->n_parts == 0) return;
  if (g->src->n_parts > g->part_prog_cap) {
    int nc = g->src->n_parts * 2;
    inlet_ingest_part_progress *np = inlet_realloc(g->part_prog, (size_t)nc * sizeof *np);
    if (!np) return;
    g->part_prog = np;
    g->part_prog_cap = nc;
  }
  for (int i = 0; i < g->src->n_parts; i++) {
    const stream_part *p = g->src->parts[i];
    inlet_ingest_part_progress *o = &g->part_prog[i];
    o->topic = p->topic;
    o->partition = p->partition;
    o->assigned = p->active;
    o->committed_records = p->committed_records;
    o->rejected = p->committed_rejected;
    o->late = p->committed_late;
    o->offset = p->table;
    o->high_watermark = p->high_watermark;
    o->lag_records = -1;
    if (p->active && p->high_watermark >= 0 && p->table >= 0)
      o->lag_records = p->high_watermark > p->table ? p->high_watermark - p->table : 0;
  }
  g->prog.n_parts = g->src->n_parts;
  g->prog.parts = g->part_prog;
}

static void emit(ingester *g, inlet_ingest_event ev, const char *msg) {
  g->prog.event = ev;
  g->prog.message = msg;
  g->prog.elapsed_ms = stream_now_ms() - g->t0;
  g->prog.watermark_us = partitioned(g) ? ingest_parts_watermark(g->src) : g->wm.value;
  g->prog.sequence = g->seq;
  if (partitioned(g))
    ingest_parts_summary(g->posbuf, sizeof g->posbuf, g->src);
  else
    stream_pos_format(g->posbuf, sizeof g->posbuf, g->src ? g->src->kind : STREAM_FILE,
                      &g->committed);
  g->prog.position = g->posbuf;
  g->prog.status = g->src ? g->src->status : NULL;
  g->prog.app_id = g->app;
  fill_part_progress(g);
  if (g->o.on_progress) g->o.on_progress(g->o.ctx, &g->prog);
}

/* ---- state in the table ---------------------------------------------------- */

static int load_late_state(ingester *g, inlet_error *err);

static int load_state(ingester *g, inlet_error *err) {
  inlet_snapshot *s = NULL;
  g->moved.valid = false;
  if (partitioned(g)) {
    /* Each part's progress is read when it is assigned (load_parts). */
    if (g->creating) {
      inlet_error e = INLET_ERROR_INIT;
      int rc = inlet_table_snapshot(&s, g->table, &e);
      inlet_snapshot_free(s);
      if (rc == 0)
        g->creating = false; /* a concurrent creator won version 0 */
      else if (rc != INLET_ENOTFOUND) {
        if (err) *err = e;
        return rc;
      }
    }
    g->seq = 0;
    memset(&g->committed, 0, sizeof g->committed);
    g->last = g->committed;
    g->wm_committed = INT64_MIN;
    stream_watermark_init(&g->wm, g->o.allowed_lateness_us, INT64_MIN);
    return 0;
  }
  if (g->creating) {
    /* Still no commit: start from nothing. A table that appeared meanwhile
     * (a concurrent creator won version 0) is read like any other. */
    inlet_error e = INLET_ERROR_INIT;
    int rc = inlet_table_snapshot(&s, g->table, &e);
    if (rc == 0) {
      inlet_snapshot_free(s);
      s = NULL;
      g->creating = false;
    } else if (rc != INLET_ENOTFOUND) {
      if (err) *err = e;
      return rc;
    } else {
      g->seq = 0;
      memset(&g->committed, 0, sizeof g->committed);
      g->wm_committed = INT64_MIN;
      TRY(load_late_state(g, err));
      stream_watermark_init(&g->wm, g->o.allowed_lateness_us, g->wm_committed);
      g->last = g->committed;
      return 0;
    }
  }
  TRY(inlet_table_snapshot(&s, g->table, err));
  int64_t seq = inlet_snapshot_txn_version(s, g->app);
  g->seq = seq < 0 ? 0 : seq;
  memset(&g->committed, 0, sizeof g->committed);
  if (inlet_snapshot_txn_version(s, g->n_pos[1]) >= 0) {
    g->committed.valid = true;
    for (int i = 0; i < STREAM_POS_PARTS; i++) {
      int64_t v = inlet_snapshot_txn_version(s, g->n_pos[i]);
      g->committed.p[i] = v < 0 ? 0 : v;
    }
  }
  int64_t wm = inlet_snapshot_txn_version(s, g->n_wm);
  g->wm_committed = wm == -1 ? INT64_MIN : wm; /* -1: absent or none yet */
  g->prog.last_version =
      g->prog.last_version < 0 ? inlet_snapshot_version(s) : g->prog.last_version;
  inlet_snapshot_free(s);
  TRY(load_late_state(g, err));
  stream_watermark_init(&g->wm, g->o.allowed_lateness_us, g->wm_committed);
  g->last = g->committed;
  return 0;
}

/* Reports what the source noted (one warning per line) and forgets late
 * routing positions that a restart of the file's positions made meaningless. */
static void drain_notices(ingester *g) {
  if (g->src->pos_reset) {
    g->src->pos_reset = false;
    memset(&g->late_routed, 0, sizeof g->late_routed);
  }
  if (g->src->moved_to.valid) {
    g->moved = g->last = g->src->moved_to;
    g->src->moved_to.valid = false;
    if (!g->b_force) stream_trigger_add(&g->trig, 0, 0, stream_now_coarse_ms());
    g->b_force = true;
  }
  inlet_buf *n = &g->src->notice;
  if (n->len == 0) return;
  if (inlet_buf_terminate(n) == 0) {
    char *line = (char *)n->data;
    for (char *nl; line; line = nl) {
      nl = strchr(line, '\n');
      if (nl) *nl++ = '\0';
      emit(g, INLET_INGEST_WARNING, line);
    }
  }
  inlet_buf_clear(n);
}

/* stream_parts_load_fn: the progress of @p n parts in the newest table
 * state (and the late table's). */
static int load_parts(void *ctx, stream_part *const *parts, int n, inlet_error *err) {
  ingester *g = ctx;
  inlet_snapshot *s = NULL, *ls = NULL;
  inlet_error e = INLET_ERROR_INIT;
  int rc = inlet_table_snapshot(&s, g->table, &e);
  if (rc == INLET_ENOTFOUND && g->creating)
    rc = 0; /* created by the first commit */
  else if (rc == 0)
    g->creating = false;
  if (rc < 0) {
    if (err) *err = e;
    return rc;
  }
  if (g->late_table && (rc = inlet_table_snapshot(&ls, g->late_table, err)) < 0) {
    inlet_snapshot_free(s);
    return rc;
  }
  for (int i = 0; i < n; i++) {
    stream_part *p = parts[i];
    p->table = s ? inlet_snapshot_txn_version(s, p->txn) : -1;
    p->wm_table = s && g->o.event_time_column ? inlet_snapshot_txn_version(s, p->txn_wm) : -1;
    p->late_routed = ls ? inlet_snapshot_txn_version(ls, p->txn_late) : -1;
    p->resume = -1;
    if (p->table < 0 && s && g->o.kafka_kdi_app_id) {
      /* kafka-delta-ingest's record: "<app id>-<partition>" = last offset written. */
      char kdi[700];
      snprintf(kdi, sizeof kdi, "%s-%d", g->o.kafka_kdi_app_id, (int)p->partition);
      int64_t v = inlet_snapshot_txn_version(s, kdi);
      if (v >= 0) p->resume = v + 1;
    }
    stream_watermark_init(&p->wm, g->o.allowed_lateness_us,
                          p->wm_table == -1 ? INT64_MIN : p->wm_table);
  }
  inlet_snapshot_free(s);
  inlet_snapshot_free(ls);
  return 0;
}

static int reposition(ingester *g, inlet_error *err) {
  stream_ahead_drop(&g->ahead); /* read before the seek */
  inlet_buf warn = INLET_BUF_INIT;
  int rc = g->src->ops->seek(g->src, &g->committed, &warn, err);
  if (rc == 0 && warn.len) {
    inlet_buf_terminate(&warn);
    emit(g, INLET_INGEST_WARNING, (const char *)warn.data);
  }
  inlet_buf_reset(&warn);
  drain_notices(g);
  return rc;
}

/* ---- schema-derived setup --------------------------------------------------- */

static bool ieq_prefix(const char **p, const char *lit) {
  size_t n = strlen(lit);
  if (strncasecmp(*p, lit, n) != 0) return false;
  *p += n;
  return true;
}

int stream_generation_kind(const char *expr, char *col, size_t cap) {
  char e[512];
  size_t n = 0;
  bool q = false;
  for (const char *p = expr; *p && n + 1 < sizeof e; p++) {
    if (*p == '\'' || *p == '`') q = !q;
    if (!q && (*p == ' ' || *p == '\t')) continue;
    e[n++] = *p;
  }
  e[n] = '\0';
  const char *p = e;
  int kind = 0;
  const char *close = NULL;
  if (ieq_prefix(&p, "cast(")) {
    close = strstr(p, "AS");
    if (!close) close = strstr(p, "as");
    if (!close || strcasecmp(close, "asdate)") != 0) return 0;
    kind = GEN_DATE;
  } else if (ieq_prefix(&p, "to_date(")) {
    close = strchr(p, ')');
    if (!close || close[1]) return 0;
    kind = GEN_DATE;
  } else if (ieq_prefix(&p, "date_format(")) {
    close = strchr(p, ',');
    if (!close) return 0;
    if (strcmp(close, ",'yyyy-MM-dd')") == 0)
      kind = GEN_DAY_STRING;
    else if (strcmp(close, ",'yyyy-MM-dd-HH')") == 0)
      kind = GEN_HOUR_STRING;
    else
      return 0;
  } else if (ieq_prefix(&p, "date_trunc('hour',")) {
    close = strchr(p, ')');
    if (!close || close[1]) return 0;
    kind = GEN_HOUR_TS;
  } else {
    return 0;
  }
  size_t cl = (size_t)(close - p);
  if (cl >= 2 && p[0] == '`' && p[cl - 1] == '`') p++, cl -= 2;
  if (cl == 0 || cl >= cap) return 0;
  memcpy(col, p, cl);
  col[cl] = '\0';
  return kind;
}

static int setup_generated(ingester *g, const delta_snapshot *s, inlet_error *err) {
  const char *ss = s->metadata.schema_string;
  if (!ss) return 0;
  json_t *root = json_loads(ss, 0, NULL);
  json_t *fields = root ? json_object_get(root, "fields") : NULL;
  size_t i;
  json_t *f;
  int rc = 0;
  json_array_foreach(fields, i, f) {
    json_t *md = json_object_get(f, "metadata");
    const char *expr = json_string_value(json_object_get(md, "delta.generationExpression"));
    const char *name = json_string_value(json_object_get(f, "name"));
    if (!expr || !name) continue;
    char col[256];
    int kind = stream_generation_kind(expr, col, sizeof col);
    int ci = inlet_schema_find(&g->schema, name),
        si = kind ? inlet_schema_find(&g->schema, col) : -1;
    if (!kind || ci < 0 || si < 0 || g->n_gens == (int)(sizeof g->gens / sizeof g->gens[0])) {
      rc = inlet_fail(err, INLET_EUNSUPPORTED,
                      "generated column \"%s\": expression \"%s\" is "
                      "not one ingest computes (CAST(c AS DATE), to_date(c), date_format(c, "
                      "'yyyy-MM-dd[-HH]'), date_trunc('HOUR', c))",
                      name, expr);
      break;
    }
    inlet_type_id t = g->schema.fields[ci].type.id;
    bool ok = (kind == GEN_DATE && t == INLET_TYPE_DATE) ||
              ((kind == GEN_DAY_STRING || kind == GEN_HOUR_STRING) && t == INLET_TYPE_STRING) ||
              (kind == GEN_HOUR_TS && t == INLET_TYPE_TIMESTAMP);
    inlet_type_id st = g->schema.fields[si].type.id;
    if (!ok || (st != INLET_TYPE_TIMESTAMP && st != INLET_TYPE_DATE)) {
      rc = inlet_fail(err, INLET_EUNSUPPORTED,
                      "generated column \"%s\": type does not fit "
                      "\"%s\"",
                      name, expr);
      break;
    }
    g->gens[g->n_gens++] = (gen_col){ci, si, kind};
    g->schema.fields[ci].nullable = true;
  }
  json_decref(root);
  return rc;
}

static int setup_schema(ingester *g, inlet_error *err) {
  inlet_snapshot *snap = NULL;
  if (!g->creating) TRY(inlet_table_snapshot(&snap, g->table, err));
  /* The table to create stands in for the snapshot. */
  const delta_snapshot *s = snap ? delta_snapshot_of(snap) : &g->cs;
  int rc = 0;
  const char *ret = delta_metadata_conf(&s->metadata, "delta.setTransactionRetentionDuration");
  if (ret) {
    rc = inlet_fail(err, INLET_EUNSUPPORTED,
                    "table sets delta.setTransactionRetentionDuration "
                    "(%s): checkpoints could expire the stream positions kept in txn actions; "
                    "unset it to ingest exactly once",
                    ret);
    goto done;
  }
  if (s->schema.n_fields == 0) {
    rc = inlet_fail(err, INLET_EUNSUPPORTED, "table has no schema");
    goto done;
  }
  if ((rc = inlet_schema_copy(&g->schema, &s->schema, err)) < 0) goto done;
  g->widen = g->evolve && delta_type_widening_enabled(&s->protocol, &s->metadata);
  inlet_free(g->tjson);
  g->tjson = inlet_strdup(s->metadata.schema_string);
  if (!g->tjson) {
    rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
    goto done;
  }
  g->et_col = g->flag_col = -1;
  if (g->o.event_time_column) {
    g->et_col = inlet_schema_find(&g->schema, g->o.event_time_column);
    if (g->et_col < 0) {
      rc = inlet_fail(err, INLET_EINVAL, "event-time column \"%s\" is not in the table",
                      g->o.event_time_column);
      goto done;
    }
    inlet_type_id t = g->schema.fields[g->et_col].type.id;
    if (t != INLET_TYPE_TIMESTAMP && t != INLET_TYPE_DATE) {
      rc = inlet_fail(err, INLET_EUNSUPPORTED,
                      "event-time column \"%s\" must be a timestamp or "
                      "date",
                      g->o.event_time_column);
      goto done;
    }
  }
  const char *flag = delta_metadata_conf(&s->metadata, INLET_LATE_FLAG_PROPERTY);
  if (flag) {
    g->flag_col = inlet_schema_find(&g->schema, flag);
    if (g->flag_col < 0 || g->schema.fields[g->flag_col].type.id != INLET_TYPE_BOOL) {
      rc = inlet_fail(err, INLET_EINVAL,
                      "table property %s names \"%s\", which is not a "
                      "boolean column",
                      INLET_LATE_FLAG_PROPERTY, flag);
      goto done;
    }
    g->schema.fields[g->flag_col].nullable = true;
  }
  if ((rc = setup_generated(g, s, err)) < 0) goto done;
  /* Partition columns that records fill (generated ones are computed). */
  int32_t np = s->metadata.n_partition_columns;
  g->pcheck = inlet_calloc((size_t)np + 1, sizeof *g->pcheck);
  if (!g->pcheck) {
    rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
    goto done;
  }
  for (int32_t i = 0; i < np; i++) {
    int ci = inlet_schema_find(&g->schema, s->metadata.partition_columns[i]);
    bool generated = false;
    for (int k = 0; k < g->n_gens; k++)
      generated |= g->gens[k].col == ci;
    if (ci >= 0 && !generated) g->pcheck[g->n_pcheck++] = ci;
  }
  /* Rows are checked one record at a time, so that a violating record goes
   * to the dead letters (the table writer checks every row again). */
  rc = delta_constraints_load(&g->cons, s, err);
done:
  inlet_snapshot_free(snap);
  return rc;
}

/* The reader's row check: a record whose partition values cannot name a
 * directory is a rejected record (dead letter with the reason), not a
 * failed batch. */
static int partition_row_check(void *ctx, const inlet_batch *b, int64_t row, inlet_error *err) {
  ingester *g = ctx;
  return delta_partition_row_check(b, row, g->pcheck, g->n_pcheck,
                                   strlen(delta_table_root(g->table)), err);
}

static int new_reader(ingester *g, const char *header, size_t len, inlet_error *err) {
  inlet_text_reader_free(g->reader);
  g->reader = NULL;
  if (!header) return inlet_text_reader_open_memory(&g->reader, "", 0, &g->schema, &g->ropt, err);
  inlet_free(g->header);
  g->header = inlet_malloc(len + 2);
  if (!g->header) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  memcpy(g->header, header, len);
  g->header[len] = '\n';
  g->header[len + 1] = '\0';
  /* The records converted ahead map through the header they follow. */
  if (g->use_ahead) stream_ahead_schema_changed(&g->ahead);
  return stream_text_reader_open(&g->reader, g->header, &g->schema, &g->ropt, err);
}

/* ---- dead letters --------------------------------------------------------------- */

/* Length of the strict UTF-8 sequence at s[0..n) (no overlongs, surrogates
 * or code points past U+10FFFF), 0 when invalid. */
static size_t utf8_len(const unsigned char *s, size_t n) {
  unsigned c = s[0];
  size_t k;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF)
    k = 1;
  else if (c >= 0xE0 && c <= 0xEF)
    k = 2;
  else if (c >= 0xF0 && c <= 0xF4)
    k = 3;
  else
    return 0;
  if (k > n - 1) return 0;
  for (size_t j = 1; j <= k; j++)
    if ((s[j] & 0xC0) != 0x80) return 0;
  unsigned c1 = s[1];
  if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 >= 0xA0) || (c == 0xF0 && c1 < 0x90) ||
      (c == 0xF4 && c1 >= 0x90))
    return 0;
  return k + 1;
}

static bool utf8_ok(const unsigned char *s, size_t n) {
  for (size_t i = 0, k; i < n; i += k)
    if ((k = utf8_len(s + i, n - i)) == 0) return false;
  return true;
}

/* A JSON string; bytes that are not UTF-8 become \u00XX, so every line of a
 * dead-letter file is valid JSON (the raw record keeps its exact bytes in
 * "record_hex"). */
static void json_escape(inlet_buf *b, const char *str, size_t n) {
  const unsigned char *s = (const unsigned char *)str;
  inlet_buf_push(b, '"');
  for (size_t i = 0; i < n;) {
    unsigned char c = s[i];
    size_t k = utf8_len(s + i, n - i);
    if (k > 1) {
      inlet_buf_append(b, s + i, k);
      i += k;
      continue;
    }
    if (c == '"' || c == '\\') {
      inlet_buf_push(b, '\\');
      inlet_buf_push(b, c);
    } else if (c < 0x20 || c == 0x7f || k == 0) {
      inlet_buf_appendf(b, "\\u%04x", c);
    } else {
      inlet_buf_push(b, c);
    }
    i++;
  }
  inlet_buf_push(b, '"');
}

static int dead_letter(ingester *g, const stream_record *rec, const char *reason,
                       inlet_error *err) {
  stream_part *part = rec->part;
  if (part) part->batch_rejected++;
  stream_dl_file *dl = part ? &part->dl : &g->dl;
  TRY(stream_dl_open(dl, g->dl_st, g->dl_dir, err));
  inlet_buf b = INLET_BUF_INIT;
  char pos[400];
  if (part)
    snprintf(pos, sizeof pos, "%s@%lld", part->label, (long long)rec->offset);
  else
    stream_pos_format(pos, sizeof pos, g->src->kind, &rec->pos);
  inlet_buf_puts(&b, "{\"position\":");
  json_escape(&b, pos, strlen(pos));
  if (part) {
    inlet_buf_puts(&b, ",\"topic\":");
    json_escape(&b, part->topic, strlen(part->topic));
    inlet_buf_appendf(&b, ",\"partition\":%d", (int)part->partition);
  }
  if (rec->offset >= 0) inlet_buf_appendf(&b, ",\"offset\":%lld", (long long)rec->offset);
  inlet_buf_puts(&b, ",\"source\":");
  json_escape(&b, g->o.source, strlen(g->o.source));
  inlet_buf_puts(&b, ",\"reason\":");
  json_escape(&b, reason, strlen(reason));
  if (g->dl_constraint) {
    inlet_buf_puts(&b, ",\"constraint\":");
    json_escape(&b, g->dl_constraint, strlen(g->dl_constraint));
  }
  if (rec->oversize) inlet_buf_puts(&b, ",\"truncated\":true");
  if (utf8_ok((const unsigned char *)rec->data, rec->len)) {
    inlet_buf_puts(&b, ",\"record\":");
    json_escape(&b, rec->data, rec->len);
  } else {
    inlet_buf_puts(&b, ",\"record_hex\":\"");
    for (size_t i = 0; i < rec->len; i++)
      inlet_buf_appendf(&b, "%02x", (unsigned)(unsigned char)rec->data[i]);
    inlet_buf_push(&b, '"');
  }
  inlet_buf_puts(&b, "}\n");
  int rc = inlet_buf_status(&b) ? inlet_fail(err, INLET_ENOMEM, "out of memory") : 0;
  if (rc == 0) rc = stream_dl_append(dl, b.data, b.len, err);
  inlet_buf_reset(&b);
  return rc;
}

static void dl_discard(ingester *g) {
  for (int i = 0; partitioned(g) && i < g->src->n_parts; i++)
    stream_dl_discard(&g->src->parts[i]->dl);
  stream_dl_discard(&g->dl);
}

/* Removes files in dl_dir starting with @p prefix (temporaries of dead
 * writers when @p prefix is ".tmp-"), except the one named @p keep (may be
 * NULL). */
static void dl_remove_prefix_except(ingester *g, const char *prefix, const char *keep) {
  stream_dl_remove(g->dl_st, g->dl_dir, prefix, keep, NULL);
}

static void dl_remove_prefix(ingester *g, const char *prefix) {
  dl_remove_prefix_except(g, prefix, NULL);
}

/* Removes a dead-letter file this process published for a commit that failed. */
static void dl_unpublish(ingester *g, const char *path) {
  inlet_error ignore = INLET_ERROR_INIT;
  (void)g->dl_st->ops->remove(g->dl_st, path, &ignore);
}

/* After batch [from, to] committed: any other "<from>_*" file was written by
 * an attempt on the same start position that did not commit (it died, or lost
 * the commit race to us), so it goes. Race-free: only one commit per start
 * position can win (the txn conflict rule), and a loser that publishes after
 * this cleanup removes its own file when its commit fails. */
static void dl_cleanup_committed(ingester *g, const char *from, const char *to) {
  char prefix[100], keep[200];
  snprintf(prefix, sizeof prefix, "%s_", from);
  snprintf(keep, sizeof keep, "%s_%s.ndjson", from, to);
  dl_remove_prefix_except(g, prefix, keep);
}

static int dl_publish(ingester *g, inlet_error *err) {
  for (int i = 0; partitioned(g) && i < g->src->n_parts; i++)
    TRY(ingest_part_dl_publish(g->src->parts[i], g->dl_st, g->dl_dir, err));
  if (!g->dl.f) return 0;
  char from[96], to[96], name[PATH_MAX];
  stream_pos_format(from, sizeof from, g->src->kind, &g->committed);
  stream_pos_format(to, sizeof to, g->src->kind, &g->last);
  /* A replay of the same range rewrites the same name. */
  snprintf(name, sizeof name, "%s/%s_%s.ndjson", g->dl_dir, from, to);
  TRY(stream_dl_publish(&g->dl, g->dl_st, name, err));
  snprintf(g->dl_published, sizeof g->dl_published, "%s", name);
  return 0;
}

/* ---- rows -------------------------------------------------------------------------- */

/* The generated columns of row @p r of @p b, replacing whatever the record
 * gave them. Reads nothing of g but the column setup: converting threads
 * call it side by side (derive_ahead). */
static int fill_generated(const ingester *g, inlet_batch *b, int64_t r, inlet_error *err) {
  for (int i = 0; i < g->n_gens; i++) {
    const gen_col *gc = &g->gens[i];
    inlet_array *a = &b->columns[gc->col];
    const inlet_field *f = &b->schema.fields[gc->col];
    text_array_truncate(a, f, r);
    int64_t us;
    if (!inlet_event_time_us(&b->columns[gc->src], &b->schema.fields[gc->src], r, &us)) {
      TRY(inlet_array_append_null(a, f, err));
      continue;
    }
    int64_t day = us >= 0 ? us / 86400000000LL : -((-us - 1) / 86400000000LL) - 1;
    int64_t hour_us = us >= 0 ? us / 3600000000LL * 3600000000LL
                              : (-((-us - 1) / 3600000000LL) - 1) * 3600000000LL;
    if (gc->kind == GEN_DATE) {
      TRY(inlet_array_append_int(a, f, day, err));
    } else if (gc->kind == GEN_HOUR_TS) {
      int64_t v = hour_us;
      if (f->type.unit == INLET_UNIT_MILLI)
        v /= 1000;
      else if (f->type.unit == INLET_UNIT_SECOND)
        v /= 1000000;
      else if (f->type.unit == INLET_UNIT_NANO)
        v *= 1000;
      TRY(inlet_array_append_int(a, f, v, err));
    } else {
      char ts[40], out[24];
      delta_format_micros(ts, hour_us, 0);
      /* "YYYY-MM-DDTHH:..." → "YYYY-MM-DD" or "YYYY-MM-DD-HH" */
      size_t dl = strcspn(ts, "T");
      snprintf(out, sizeof out, "%.*s", (int)dl, ts);
      if (gc->kind == GEN_HOUR_STRING) snprintf(out + dl, sizeof out - dl, "-%.2s", ts + dl + 1);
      TRY(inlet_array_append_bytes(a, f, out, strlen(out), err));
    }
  }
  return 0;
}

/* The late flag of row @p r of @p b (the record's value replaced). */
static int fill_flag(const ingester *g, inlet_batch *b, int64_t r, bool late, inlet_error *err) {
  if (g->flag_col < 0) return 0;
  inlet_array *a = &b->columns[g->flag_col];
  text_array_truncate(a, &b->schema.fields[g->flag_col], r);
  return inlet_array_append_bool(a, late, err);
}

/* Derived columns of row @p r of @p b (the late flag, generated columns). */
static int fill_derived(ingester *g, inlet_batch *b, int64_t r, inlet_error *err) {
  TRY(fill_flag(g, b, r, g->late[r], err));
  return fill_generated(g, b, r, err);
}

/* stream_ahead_derive_fn: a row converted ahead gets its generated columns
 * and a flag of false (set when the record turns out late). */
static int derive_ahead(void *ctx, inlet_batch *b, int64_t row, inlet_error *err) {
  const ingester *g = ctx;
  TRY(fill_flag(g, b, row, false, err));
  return fill_generated(g, b, row, err);
}

/* A late row out of the chunk (policy drop or route): counted, or written
 * to the late table; @p ignored unknown fields are counted with a routed
 * row. */
static int route_late(ingester *g, const stream_record *rec, inlet_error *err);
static int leave_late(ingester *g, const stream_record *rec, int64_t bytes, int64_t ignored,
                      inlet_error *err) {
  stream_trigger_add(&g->trig, 0, bytes, g->now);
  if (g->o.late_policy == INLET_LATE_DROP) {
    g->b_dropped++;
    return 0;
  }
  int64_t routed = g->b_routed;
  TRY(route_late(g, rec, err));
  if (g->b_routed > routed) g->b_ignored += ignored; /* dropped from the routed row */
  return 0;
}

/* A row out of the chunk for breaking constraint @p which (-1: unknown),
 * @p why: a dead letter naming it. */
static int reject_constraint(ingester *g, const stream_record *rec, int64_t bytes, int32_t which,
                             const inlet_error *why, inlet_error *err) {
  g->b_rejected++;
  stream_trigger_add(&g->trig, 0, bytes, g->now);
  g->dl_constraint = which >= 0 ? g->cons.items[which].name : NULL;
  int rc = dead_letter(g, rec, inlet_errmsg(why), err);
  g->dl_constraint = NULL;
  return rc;
}

/* The table's constraints on row @p row (the record's, complete with its
 * derived columns): a violating row leaves the chunk for the dead letters,
 * with the constraint's name. *@p rejected tells. */
static int check_row(ingester *g, const stream_record *rec, int64_t bytes, int64_t row,
                     bool *rejected, inlet_error *err) {
  *rejected = false;
  if (!delta_constraints_any(&g->cons)) return 0;
  inlet_error e = INLET_ERROR_INIT;
  int32_t which = -1;
  int rc = delta_constraints_check(&g->cons, &g->chunk, row, 1, -1, NULL, &which, &e);
  if (rc != INLET_EINVAL) {
    if (rc < 0 && err) *err = e;
    return rc;
  }
  *rejected = true;
  for (int32_t i = 0; i < g->chunk.schema.n_fields; i++)
    text_array_truncate(&g->chunk.columns[i], &g->chunk.schema.fields[i], row);
  g->chunk.num_rows = row;
  return reject_constraint(g, rec, bytes, which, &e, err);
}

static void set_metrics_and_txns(ingester *g);
static int on_conflict(ingester *g, const inlet_error *why, inlet_error *err);
static int find_commit(ingester *g, const int64_t *seq, const char *from, const char *to,
                       bool *found, inlet_error *err);

static int open_writer(ingester *g, inlet_error *err) {
  if (g->w) return 0;
  inlet_append_options ao = INLET_APPEND_OPTIONS_INIT;
  ao.app_id = g->app;
  ao.app_version = g->seq + 1;
  ao.operation = "STREAMING UPDATE";
  ao.compression = g->o.compression;
  delta_write_extras x = DELTA_WRITE_EXTRAS_INIT;
  x.app_version_must_increase = true;
  x.txn_app_ids = g->xnames;
  x.txn_versions = g->xver;
  x.metrics_json = g->metrics;
  x.computes_generated_columns = true; /* fill_derived computes them */
  x.pool = g->pool;
  x.stash = g->stash;
  /* A fixed count: APP#wm is written as -1 ("none") until a watermark exists. */
  x.n_txns = g->n_x;
  if (partitioned(g)) {
    /* Per-part txns only, set at commit (delta_writer_set_txns). */
    ao.app_id = NULL;
    x.app_version_must_increase = false;
    x.n_txns = 0;
    x.metrics_json = g->parts.metrics;
  }
  if (g->creating)
    return delta_writer_open_create_with(&g->w, g->table, &g->cs, NULL, &ao, &x, err);
  TRY(delta_writer_open_ext(&g->w, g->table, &ao, &x, err));
  if (strcmp(delta_writer_schema_json(g->w), g->tjson) != 0) {
    /* Another writer changed the schema since we read it (schema evolution
     * elsewhere): replay the batch against the new one (on_conflict rereads
     * it) instead of failing on a batch of the old shape. */
    inlet_table_writer_free(g->w);
    g->w = NULL;
    return inlet_fail(err, INLET_ECONFLICT,
                      "conflict (metadata changed): the table's schema changed since this "
                      "ingester read it");
  }
  return 0;
}

static int init_chunks(ingester *g, inlet_error *err);

/* g->schema, the chunk and the reader for g->tjson (an evolved schema):
 * the new columns come after the old ones, so column indices stay. */
static int use_evolved_schema(ingester *g, inlet_error *err) {
  inlet_schema ns;
  inlet_schema_init(&ns);
  TRY(delta_schema_parse(&ns, g->tjson, err));
  if (g->flag_col >= 0) ns.fields[g->flag_col].nullable = true;
  for (int i = 0; i < g->n_gens; i++)
    ns.fields[g->gens[i].col].nullable = true;
  /* Shares still converting read the old schema (and g's column setup). */
  stream_ahead_schema_changed(&g->ahead);
  inlet_schema_reset(&g->schema);
  g->schema = ns;
  TRY(init_chunks(g, err));
  return new_reader(g, NULL, 0, err);
}

/* After a conflict: the schema of the table as it is now (a concurrent
 * writer may have added columns), our uncommitted additions forgotten. */
static int reload_schema(ingester *g, inlet_error *err) {
  stream_ahead_schema_changed(&g->ahead); /* before what the shares read changes */
  inlet_schema_reset(&g->schema);
  inlet_free(g->pcheck);
  g->pcheck = NULL;
  g->n_pcheck = 0;
  g->n_gens = 0;
  delta_constraints_reset(&g->cons);
  TRY(setup_schema(g, err));
  TRY(init_chunks(g, err));
  if (!g->header) return new_reader(g, NULL, 0, err);
  /* A CSV source: the header it gave maps the new schema's columns. */
  size_t len = strlen(g->header) - 1; /* without the '\n' new_reader added */
  char *h = inlet_malloc(len + 1);
  if (!h) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  memcpy(h, g->header, len + 1);
  int rc = new_reader(g, h, len, err);
  inlet_free(h);
  return rc;
}

static int write_chunk_task(void *arg, inlet_error *err) {
  ingester *g = arg;
  return inlet_table_writer_write(g->w, &g->write_chunk, err);
}

/* The chunk in flight written (its error, if any, is the batch's: the
 * callers treat it as they would the synchronous write's). */
static int wait_write(ingester *g, inlet_error *err) {
  if (!g->write_pending) return 0;
  g->write_pending = false;
  int rc = util_group_wait(&g->write_group, err);
  inlet_batch_clear(&g->write_chunk);
  return rc;
}

/* Hands the chunk to the batch's writer: on a pool thread when the ingester
 * has one (returns before it is written), else right here. Chunks reach the
 * writer in conversion order either way, so the data files are the same. */
static int flush_chunk_async(ingester *g, inlet_error *err) {
  if (g->chunk.num_rows == 0) return 0;
  TRY(wait_write(g, err));
  TRY(open_writer(g, err));
  if (!g->pool) {
    TRY(inlet_table_writer_write(g->w, &g->chunk, err));
    inlet_batch_clear(&g->chunk);
    return 0;
  }
  inlet_batch full = g->chunk;
  g->chunk = g->write_chunk; /* empty, same schema */
  g->write_chunk = full;
  util_group_init(&g->write_group, g->pool);
  g->write_pending = true;
  util_group_submit(&g->write_group, write_chunk_task, g);
  return 0;
}

/* Every converted row in the writer, nothing in flight. */
static int flush_chunk(ingester *g, inlet_error *err) {
  TRY(flush_chunk_async(g, err));
  return wait_write(g, err);
}

/* The chunk (and the one in flight's buffer) for g->schema. */
static int init_chunks(ingester *g, inlet_error *err) {
  inlet_batch_reset(&g->chunk);
  inlet_batch_reset(&g->write_chunk);
  TRY(inlet_batch_init(&g->chunk, &g->schema, err));
  return g->pool ? inlet_batch_init(&g->write_chunk, &g->schema, err) : 0;
}

/* Position order within one file (inode) or one redis stream; positions in
 * different files are unordered (false). */
static bool pos_le(stream_kind kind, const stream_pos *a, const stream_pos *b) {
  if (!a->valid || !b->valid) return false;
  if (kind == STREAM_FILE) return a->p[0] == b->p[0] && a->p[1] <= b->p[1];
  if (kind == STREAM_REDIS) return a->p[0] < b->p[0] || (a->p[0] == b->p[0] && a->p[1] <= b->p[1]);
  return false;
}

/* The late table records, next to APP#late = batch sequence, the source
 * position its routed rows reach (APP#late#p0..2): a replayed batch, whose
 * boundaries may differ from the first attempt's, routes only rows past it. */
static int open_late_writer(ingester *g, inlet_error *err) {
  if (g->lw) return 0;
  inlet_append_options ao = INLET_APPEND_OPTIONS_INIT;
  ao.app_id = g->n_late;
  ao.app_version = g->seq + 1;
  ao.operation = "STREAMING UPDATE";
  for (int i = 0; i < STREAM_POS_PARTS; i++)
    g->late_xnames[i] = g->n_late_pos[i];
  delta_write_extras x = DELTA_WRITE_EXTRAS_INIT;
  x.pool = g->pool;
  x.stash = g->stash;
  x.n_txns = STREAM_POS_PARTS;
  x.txn_app_ids = g->late_xnames;
  x.txn_versions = g->late_xver;
  if (partitioned(g)) {
    ao.app_id = NULL; /* txn_late of each part, set at commit */
    x.n_txns = 0;
  }
  return delta_writer_open_ext(&g->lw, g->late_table, &ao, &x, err);
}

static int load_late_state(ingester *g, inlet_error *err) {
  memset(&g->late_routed, 0, sizeof g->late_routed);
  if (!g->late_table) return 0;
  inlet_snapshot *s = NULL;
  TRY(inlet_table_snapshot(&s, g->late_table, err));
  if (inlet_snapshot_txn_version(s, g->n_late_pos[1]) >= 0) {
    g->late_routed.valid = true;
    for (int i = 0; i < STREAM_POS_PARTS; i++) {
      int64_t v = inlet_snapshot_txn_version(s, g->n_late_pos[i]);
      g->late_routed.p[i] = v < 0 ? 0 : v;
    }
  }
  inlet_snapshot_free(s);
  return 0;
}

static int route_late(ingester *g, const stream_record *rec, inlet_error *err) {
  if (rec->part ? rec->offset < rec->part->late_routed
                : pos_le(g->src->kind, &rec->pos, &g->late_routed)) {
    g->b_routed++; /* routed by an earlier attempt */
    return 0;
  }
  if (!g->late_chunk.columns)
    TRY(inlet_batch_init(&g->late_chunk, inlet_text_reader_schema(g->late_reader), err));
  inlet_error e = INLET_ERROR_INIT;
  int rc = inlet_text_reader_append(g->late_reader, &g->late_chunk, rec->data, rec->len, &e);
  if (rc == INLET_EINVAL || rc == INLET_ELIMIT) {
    char why[600];
    snprintf(why, sizeof why, "late row rejected by the late table: %s", inlet_errmsg(&e));
    g->b_rejected++;
    return dead_letter(g, rec, why, err);
  }
  if (rc < 0) {
    if (err) *err = e;
    return rc;
  }
  g->b_routed++;
  if (g->late_chunk.num_rows >= CHUNK_ROWS) {
    TRY(open_late_writer(g, err));
    TRY(inlet_table_writer_write(g->lw, &g->late_chunk, err));
    inlet_batch_clear(&g->late_chunk);
  }
  return 0;
}

static int convert_record(ingester *g, const stream_record *rec, int64_t bytes, inlet_error *err);

static int process(ingester *g, const stream_record *rec, inlet_error *err) {
  if (rec->header) {
    if (g->o.format == INLET_TEXT_CSV) return new_reader(g, rec->data, rec->len, err);
    return 0;
  }
  g->b_records++;
  if (rec->part) rec->part->batch_records++;
  g->b_bytes += rec->bytes;
  if (rec->time_ms >= 0) g->b_time_ms = rec->time_ms;
  if (rec->oversize) {
    char why[96];
    snprintf(why, sizeof why, "record exceeds the %lld-byte limit",
             (long long)g->ropt.max_record_bytes);
    g->b_rejected++;
    stream_trigger_add(&g->trig, 0, rec->bytes, g->now);
    return dead_letter(g, rec, why, err);
  }
  if (rec->meta && rec->meta->tombstone) {
    g->b_rejected++;
    stream_trigger_add(&g->trig, 0, rec->bytes, g->now);
    return dead_letter(g, rec, "message has no value (a tombstone)", err);
  }
  return convert_record(g, rec, rec->bytes, err);
}

/* A malformed CSV record over several lines (a stray quote folded the lines
 * after it in): its first line is rejected alone and the rest is split into
 * records again (the rule of the text reader, TEXT_CSV_CUT_REASON). */
static int split_csv_record(ingester *g, const stream_record *rec, int64_t bytes,
                            inlet_error *err) {
  const char *s = rec->data, *nl = memchr(s, '\n', rec->len);
  stream_record part = *rec;
  part.len = (size_t)(nl - s);
  if (part.len > 0 && s[part.len - 1] == '\r') part.len--;
  g->b_rejected++;
  stream_trigger_add(&g->trig, 0, bytes, g->now);
  TRY(dead_letter(g, &part, TEXT_CSV_CUT_REASON, err));
  size_t at = (size_t)(nl - s) + 1;
  while (at < rec->len && !g->abandoned) {
    text_csv_state st = TEXT_CSV_FIELD_START;
    int64_t lines = 0;
    size_t end = text_csv_scan(s, at, rec->len, g->ropt.csv_delimiter, &st, &lines);
    part.data = s + at;
    part.len = end - at;
    if (part.len > 0 && part.data[part.len - 1] == '\r') part.len--;
    part.offset = rec->offset >= 0 ? rec->offset + (int64_t)at : -1;
    at = end + 1;
    bool blank = true;
    for (size_t i = 0; i < part.len && blank; i++)
      blank = part.data[i] == ' ' || part.data[i] == '\t';
    if (blank) continue;
    g->b_records++;
    if (rec->part) rec->part->batch_records++;
    TRY(convert_record(g, &part, 0, err));
  }
  return 0;
}

static void drop_last_row(ingester *g) {
  int64_t r = g->chunk.num_rows - 1;
  for (int32_t i = 0; i < g->chunk.schema.n_fields; i++)
    text_array_truncate(&g->chunk.columns[i], &g->chunk.schema.fields[i], r);
  g->chunk.num_rows = r;
}

/* Schema evolution and type widening alike: the chunk so far is written
 * with the schema it was converted in (readers fill or widen those files),
 * then the writer takes the new schemaString @p ns (owned; the commit
 * carries it as a metaData action) and the chunk and reader follow it. A
 * conflict while writing abandons the batch (on_conflict). */
static int switch_schema(ingester *g, char *ns, inlet_error *err) {
  inlet_error e = INLET_ERROR_INIT;
  int rc = open_writer(g, &e);
  if (rc == 0) rc = flush_chunk(g, &e);
  if (rc == INLET_ECONFLICT) {
    inlet_free(ns);
    return on_conflict(g, &e, err);
  }
  if (rc == 0) rc = delta_writer_set_schema(g->w, ns, &e);
  inlet_free(ns);
  if (rc < 0) {
    if (err) *err = e;
    return rc;
  }
  /* The writer's schemaString, not ns: on a column-mapping table it gave
   * the new fields their ids and physical names, which later evolutions
   * must keep. */
  char *ws = inlet_strdup(delta_writer_schema_json(g->w));
  if (!ws) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  inlet_free(g->tjson);
  g->tjson = ws;
  return use_evolved_schema(g, err);
}

/* schema_evolution ADD: record @p rec, the chunk's last row, had fields the
 * schema lacks. Those with a type become new columns (struct fields): the
 * row goes, the chunk so far is written with the old columns, the writer
 * takes the new schema (its commit carries the metaData action) and
 * *@p evolved tells the caller to convert the record again. A record whose
 * new fields cannot become columns is rejected; fields without a type yet
 * (null, {}, []) leave the row as it is. */
static int evolve_schema(ingester *g, const stream_record *rec, int64_t bytes, bool *evolved,
                         inlet_error *err) {
  *evolved = false;
  inlet_error e = INLET_ERROR_INIT;
  char *ns = NULL;
  int32_t added = 0;
  int rc = delta_schema_evolve(&ns, &added, g->tjson, rec->data, rec->len, &e);
  if (rc == INLET_EINVAL || rc == INLET_ECORRUPT) {
    drop_last_row(g);
    g->b_rejected++;
    stream_trigger_add(&g->trig, 0, bytes, g->now);
    *evolved = false;
    return dead_letter(g, rec, inlet_errmsg(&e), err);
  }
  if (rc < 0) {
    if (err) *err = e;
    return rc;
  }
  if (added == 0) return 0;
  *evolved = true;
  drop_last_row(g);
  return switch_schema(g, ns, err);
}

/* Type widening (g->widen): record @p rec was refused by the chunk's types.
 * When a value only needs a wider type (delta_schema_widen), the chunk so far
 * is written in the narrow types (readers widen those files on read), the
 * writer takes the widened schema (metaData in this commit) and *@p widened
 * tells the caller to convert the record again. */
static int widen_schema(ingester *g, const stream_record *rec, bool *widened, inlet_error *err) {
  *widened = false;
  inlet_error e = INLET_ERROR_INIT;
  char *ns = NULL;
  int32_t n = 0;
  int rc = delta_schema_widen(&ns, &n, g->tjson, rec->data, rec->len, &e);
  /* Nothing to widen (or too much at once): rejected as before. */
  if (rc == INLET_ECORRUPT || rc == INLET_ELIMIT || (rc == 0 && n == 0)) return 0;
  if (rc < 0) {
    if (err) *err = e;
    return rc;
  }
  *widened = true;
  return switch_schema(g, ns, err);
}

/* ---- records converted ahead (ingest_ahead.c) ---------------------------------------- */

/* The processed rows of the scratch batch that are not in the chunk yet
 * move there (runs of kept rows at a time). */
static int move_pending(ingester *g, inlet_error *err) {
  if (g->pend_part < 0) return 0;
  const inlet_batch *sb = &g->ahead.scratch[g->pend_part];
  const uint8_t *keep = g->ahead.keep[g->pend_part];
  for (int64_t r = g->pend_from; r < g->pend_to;) {
    if (!keep[r]) {
      r++;
      continue;
    }
    int64_t e = r + 1;
    while (e < g->pend_to && keep[e])
      e++;
    TRY(batch_append_range(&g->chunk, sb, r, e - r, err));
    r = e;
  }
  g->pend_from = g->pend_to;
  g->pend_kept = 0;
  return 0;
}

static void forget_pending(ingester *g) {
  g->pend_part = -1;
  g->pend_from = g->pend_to = g->pend_kept = 0;
}

/* convert_record for a record converted ahead into row it->row of scratch
 * batch it->part: the same decisions on that row (lateness, the flag,
 * constraints, counters, the chunk cut), without converting again. */
static int take_converted(ingester *g, const stream_record *rec, const stream_ahead_item *it,
                          int64_t bytes, inlet_error *err) {
  inlet_batch *sb = &g->ahead.scratch[it->part];
  uint8_t *keep = g->ahead.keep[it->part];
  int64_t r = it->row;
  if (g->pend_part != it->part) {
    TRY(move_pending(g, err));
    g->pend_part = it->part;
    g->pend_from = g->pend_to = r;
  }
  for (int64_t k = g->pend_to; k < r; k++)
    keep[k] = 0; /* converted, then converted again by convert_record */
  g->pend_to = r + 1;
  bool late = false;
  int64_t et;
  if (g->et_col >= 0 &&
      inlet_event_time_us(&sb->columns[g->et_col], &sb->schema.fields[g->et_col], r, &et))
    late = stream_watermark_observe(&g->wm, et);
  if (late) {
    g->b_late++;
    if (g->o.late_policy != INLET_LATE_KEEP) {
      keep[r] = 0;
      return leave_late(g, rec, bytes, it->ignored, err);
    }
    if (g->flag_col >= 0) inlet_bit_set(sb->columns[g->flag_col].values, r, true);
  }
  if (delta_constraints_any(&g->cons)) {
    inlet_error e = INLET_ERROR_INIT;
    int32_t which = -1;
    int rc = delta_constraints_check(&g->cons, sb, r, 1, -1, NULL, &which, &e);
    if (rc != INLET_EINVAL && rc < 0 && err) *err = e;
    if (rc != INLET_EINVAL) {
      if (rc < 0) return rc;
    } else {
      keep[r] = 0;
      if (late) g->b_late--; /* counted with the dead letters, not the committed rows */
      return reject_constraint(g, rec, bytes, which, &e, err);
    }
  }
  g->b_rows++;
  g->b_ignored += it->ignored;
  stream_trigger_add(&g->trig, 1, bytes, g->now);
  g->pend_kept++;
  if (((g->chunk.num_rows + g->pend_kept) & 1023) != 0) return 0;
  TRY(move_pending(g, err));
  if (g->chunk.num_rows < CHUNK_ROWS && batch_used_bytes(&g->chunk) < CHUNK_BYTES) return 0;
  inlet_error e;
  e.code = 0;
  e.message[0] = '\0';
  int rc = flush_chunk_async(g, &e);
  if (rc == INLET_ECONFLICT) return on_conflict(g, &e, err);
  if (rc < 0 && err) *err = e;
  return rc;
}

/* The next record, converted ahead when the ingester does that. */
static int next_record(ingester *g, stream_record *rec, int64_t wait_ms, inlet_error *err) {
  g->item = NULL;
  if (!g->use_ahead) return g->src->ops->next(g->src, rec, wait_ms, err);
  /* Reading on clears the scratch batches. */
  if (!stream_ahead_pending(&g->ahead)) {
    TRY(move_pending(g, err));
    forget_pending(g);
  }
  return stream_ahead_next(&g->ahead, g->src, rec, &g->item, wait_ms, err);
}

/* Converts one record into the chunk (or the dead letters, or the late
 * table); @p bytes is its share of the batch's input bytes. */
static int convert_record(ingester *g, const stream_record *rec, int64_t bytes, inlet_error *err) {
  const stream_ahead_item *it = g->item;
  g->item = NULL;
  /* Unknown fields may evolve the schema; Kafka columns are filled here. */
  if (it && !(it->ignored > 0 && g->evolve) && !(rec->meta && g->kcols.any))
    return take_converted(g, rec, it, bytes, err);
  if (g->pend_part >= 0) {
    /* The rows before this record first: it goes after them. */
    TRY(move_pending(g, err));
    forget_pending(g);
  }
  /* Not INLET_ERROR_INIT: zeroing the whole message buffer for every record
   * showed in the ingest profile (bench/RESULTS-ingest.md). */
  inlet_error e;
  e.code = 0;
  e.message[0] = '\0';
  int64_t ignored = inlet_text_reader_ignored_fields(g->reader);
  bool text_only = rec->text_fields && !g->o.coerce;
  if (text_only) text_reader_set_strict_types(g->reader, false);
  int rc = inlet_text_reader_append(g->reader, &g->chunk, rec->data, rec->len, &e);
  if (text_only) text_reader_set_strict_types(g->reader, true);
  ignored = inlet_text_reader_ignored_fields(g->reader) - ignored;
  if (rc == INLET_EINVAL && text_reader_csv_syntax_failed(g->reader) &&
      memchr(rec->data, '\n', rec->len))
    return split_csv_record(g, rec, bytes, err);
  if (rc == INLET_EINVAL && g->widen) {
    bool widened = false;
    TRY(widen_schema(g, rec, &widened, err));
    if (widened) return g->abandoned ? 0 : convert_record(g, rec, bytes, err);
  }
  if (rc == INLET_EINVAL || rc == INLET_ELIMIT) {
    g->b_rejected++;
    stream_trigger_add(&g->trig, 0, bytes, g->now);
    return dead_letter(g, rec, inlet_errmsg(&e), err);
  }
  if (rc < 0) {
    if (err) *err = e;
    return rc;
  }
  if (ignored > 0 && g->evolve) {
    bool evolved = false;
    int64_t n_rows = g->chunk.num_rows;
    TRY(evolve_schema(g, rec, bytes, &evolved, err));
    /* The record again, into the new columns (unless the conflict abandoned
     * the batch). */
    if (evolved) return g->abandoned ? 0 : convert_record(g, rec, bytes, err);
    if (g->chunk.num_rows < n_rows) return 0; /* rejected: a dead letter */
  }
  if (rec->meta && g->kcols.any) {
    /* Kafka metadata columns (--kafka-columns) replace what the record gave. */
    rc = stream_kcols_fill(&g->kcols, &g->chunk, g->chunk.num_rows - 1, rec->meta, &e);
    if (rc == INLET_EINVAL) {
      int64_t r = g->chunk.num_rows - 1;
      for (int32_t i = 0; i < g->chunk.schema.n_fields; i++)
        text_array_truncate(&g->chunk.columns[i], &g->chunk.schema.fields[i], r);
      g->chunk.num_rows = r;
      g->b_rejected++;
      stream_trigger_add(&g->trig, 0, bytes, g->now);
      return dead_letter(g, rec, inlet_errmsg(&e), err);
    }
    if (rc < 0) {
      if (err) *err = e;
      return rc;
    }
  }
  int64_t row = g->chunk.num_rows - 1;
  bool late = false;
  int64_t et;
  if (g->et_col >= 0 && inlet_event_time_us(&g->chunk.columns[g->et_col],
                                            &g->chunk.schema.fields[g->et_col], row, &et))
    late = stream_watermark_observe(&g->wm, et);
  if (late) {
    g->b_late++;
    if (rec->part) rec->part->batch_late++;
    if (g->o.late_policy != INLET_LATE_KEEP) {
      for (int32_t i = 0; i < g->chunk.schema.n_fields; i++)
        text_array_truncate(&g->chunk.columns[i], &g->chunk.schema.fields[i], row);
      g->chunk.num_rows = row;
      return leave_late(g, rec, bytes, ignored, err);
    }
  }
  if (row >= g->late_cap) {
    int64_t nc = g->late_cap ? g->late_cap * 2 : 1024;
    bool *nl = inlet_realloc(g->late, (size_t)nc * sizeof *nl);
    if (!nl) return inlet_fail(err, INLET_ENOMEM, "out of memory");
    g->late = nl;
    g->late_cap = nc;
  }
  g->late[row] = late;
  if (g->flag_col >= 0 || g->n_gens > 0) TRY(fill_derived(g, &g->chunk, row, err));
  bool rejected;
  TRY(check_row(g, rec, bytes, row, &rejected, err));
  if (rejected) {
    if (late) g->b_late--; /* counted with the dead letters, not the committed rows */
    return 0;
  }
  g->b_rows++;
  g->b_ignored += ignored;
  stream_trigger_add(&g->trig, 1, bytes, g->now);
  if (g->chunk.num_rows >= CHUNK_ROWS ||
      ((g->chunk.num_rows & 1023) == 0 && batch_used_bytes(&g->chunk) >= CHUNK_BYTES)) {
    rc = flush_chunk_async(g, &e);
    if (rc == INLET_ECONFLICT) return on_conflict(g, &e, err);
    if (rc < 0 && err) *err = e;
    return rc;
  }
  return 0;
}

/* ---- batches ------------------------------------------------------------------------ */

static void reset_batch(ingester *g) {
  stream_trigger_reset(&g->trig);
  g->b_rows = g->b_late = g->b_rejected = g->b_dropped = g->b_routed = g->b_bytes = 0;
  g->b_records = g->b_ignored = 0;
  if (partitioned(g))
    for (int i = 0; i < g->src->n_parts; i++)
      g->src->parts[i]->batch_records = g->src->parts[i]->batch_rejected =
          g->src->parts[i]->batch_late = 0;
  g->b_time_ms = -1;
  g->abandoned = false;
  g->last = g->committed;
  g->b_force = g->moved.valid;
  if (g->b_force) {
    g->last = g->moved;
    stream_trigger_add(&g->trig, 0, 0, stream_now_coarse_ms());
  }
  g->dl_published[0] = '\0';
}

static void abandon(ingester *g) {
  inlet_error ignored = INLET_ERROR_INIT;
  (void)wait_write(g, &ignored); /* the batch is dropped: so is its error */
  inlet_table_writer_free(g->w);
  g->w = NULL;
  inlet_table_writer_free(g->lw);
  g->lw = NULL;
  if (g->chunk.columns) inlet_batch_clear(&g->chunk);
  if (g->late_chunk.columns) inlet_batch_clear(&g->late_chunk);
  forget_pending(g);
  g->item = NULL;
  stream_ahead_drop(&g->ahead); /* a replay reads them again */
  dl_discard(g);
}

/* Partitioned sources: the batch's per-part txns (g->parts) and metrics. */
static int set_part_metrics_and_txns(ingester *g, inlet_error *err) {
  TRY(ingest_parts_txns(&g->parts, g->src, g->o.event_time_column != NULL, err));
  int64_t wmv = ingest_parts_watermark(g->src);
  char wm[48] = "";
  if (wmv != INT64_MIN) {
    delta_format_micros(wm, wmv, 6);
    strcat(wm, "Z");
  }
  int64_t lag = g->b_time_ms >= 0 ? stream_wall_ms() - g->b_time_ms : -1;
  char common[2048];
  snprintf(common, sizeof common,
           "\"numSourceRecords\":\"%lld\",\"numLateRows\":\"%lld\","
           "\"numRejectedRows\":\"%lld\",\"numDroppedLateRows\":\"%lld\","
           "\"numRoutedLateRows\":\"%lld\",\"numSourceBytes\":\"%lld\","
           "\"sourceLagMs\":\"%lld\",\"watermark\":\"%s\",\"numSourceGaps\":\"%lld\","
           "\"numSourceRecordsLost\":\"%lld\",\"sourceGaps\":\"%s\",\"numIgnoredFields\":\"%lld\"",
           (long long)g->b_records, (long long)g->b_late, (long long)g->b_rejected,
           (long long)g->b_dropped, (long long)g->b_routed, (long long)g->b_bytes, (long long)lag,
           wm, (long long)g->gaps_pending, (long long)g->gap_lost_pending, g->gap_ranges,
           (long long)g->b_ignored);
  ingest_parts_metrics(&g->parts, g->src, common, g->app_json);
  g->prog.lag_ms = lag;
  g->prog.lag_bytes = -1;
  return delta_writer_set_txns(g->w, g->parts.n, g->parts.names, g->parts.ver, g->parts.exp, err);
}

static void set_metrics_and_txns(ingester *g) {
  int x = 0;
  for (int i = 0; i < STREAM_POS_PARTS; i++, x++) {
    g->xnames[x] = g->n_pos[i];
    g->xver[x] = g->last.valid ? g->last.p[i] : 0;
  }
  if (g->o.event_time_column) {
    g->xnames[x] = g->n_wm;
    g->xver[x++] = g->wm.value == INT64_MIN ? -1 : g->wm.value;
  }
  if (g->src_tag) {
    g->xnames[x] = g->n_src;
    g->xver[x++] = g->src_tag;
  }
  char wm[48] = "";
  if (g->wm.value != INT64_MIN) {
    delta_format_micros(wm, g->wm.value, 6);
    strcat(wm, "Z");
  }
  char pos[96], start[96];
  stream_pos_format(pos, sizeof pos, g->src->kind, &g->last);
  stream_pos_format(start, sizeof start, g->src->kind, &g->committed);
  int64_t lag = g->b_time_ms >= 0 ? stream_wall_ms() - g->b_time_ms : -1;
  int64_t lag_bytes = g->src->ops->lag_bytes(g->src);
  if (lag_bytes >= 0) lag_bytes += stream_ahead_unread_bytes(&g->ahead, &g->last);
  int n = snprintf(g->metrics, sizeof g->metrics,
                   "{\"numSourceRecords\":\"%lld\",\"numLateRows\":\"%lld\","
                   "\"numRejectedRows\":\"%lld\",\"numDroppedLateRows\":\"%lld\","
                   "\"numRoutedLateRows\":\"%lld\",\"numSourceBytes\":\"%lld\","
                   "\"sourceLagMs\":\"%lld\",\"sourceLagBytes\":\"%lld\","
                   "\"batchSequence\":\"%lld\","
                   "\"sourceStartPosition\":\"%s\",\"sourcePosition\":\"%s\","
                   "\"watermark\":\"%s\",\"numSourceGaps\":\"%lld\","
                   "\"numSourceRecordsLost\":\"%lld\",\"sourceGaps\":\"%s\","
                   "\"numIgnoredFields\":\"%lld\",\"ingestAppId\":%s}",
                   (long long)g->b_records, (long long)g->b_late, (long long)g->b_rejected,
                   (long long)g->b_dropped, (long long)g->b_routed, (long long)g->b_bytes,
                   (long long)lag, (long long)lag_bytes, (long long)(g->seq + 1), start, pos, wm,
                   (long long)g->gaps_pending, (long long)g->gap_lost_pending, g->gap_ranges,
                   (long long)g->b_ignored, g->app_json);
  (void)n;
  g->prog.lag_ms = lag;
  g->prog.lag_bytes = lag_bytes;
}

/* Whether a recent commit of ours recorded exactly the range [@p from, @p to)
 * of part @p label (commitInfo sourceStartPosition / sourcePosition). */
static bool part_range_committed(ingester *g, const char *label, int64_t from, int64_t to) {
  inlet_history_entry *h = NULL;
  size_t n = 0;
  inlet_error e = INLET_ERROR_INIT;
  if (inlet_table_history(&h, &n, g->table, 200, &e) < 0) return true; /* keep it: unknown */
  char a[400], b[400];
  snprintf(a, sizeof a, ",%s:%lld,", label, (long long)from);
  snprintf(b, sizeof b, ",%s:%lld,", label, (long long)to);
  bool found = false;
  for (size_t i = 0; i < n && !found; i++) {
    const char *m = h[i].metrics_json;
    if (!m || !strstr(m, "ingestAppId")) continue;
    json_t *j = json_loads(m, 0, NULL);
    const char *app = json_string_value(json_object_get(j, "ingestAppId"));
    const char *f = json_string_value(json_object_get(j, "sourceStartPosition"));
    const char *t = json_string_value(json_object_get(j, "sourcePosition"));
    if (app && f && t && strcmp(app, g->app) == 0) {
      size_t fl = strlen(f), tl = strlen(t);
      char *ff = inlet_malloc(fl + 3), *tt = inlet_malloc(tl + 3);
      if (ff && tt) {
        snprintf(ff, fl + 3, ",%s,", f);
        snprintf(tt, tl + 3, ",%s,", t);
        found = strstr(ff, a) && strstr(tt, b);
      }
      inlet_free(ff);
      inlet_free(tt);
    }
    json_decref(j);
  }
  inlet_history_free(h, n);
  return found;
}

/* on_conflict for partitioned sources: every active part is reread from the
 * table and read again from there. Dead letters published for the lost
 * commit go, unless a commit of ours recorded exactly their range (then the
 * file is that commit's: same name, same records). */
static int on_part_conflict(ingester *g, const char *msg, inlet_error *err) {
  int n = g->src->n_parts;
  int64_t *from = inlet_calloc((size_t)n + 1, sizeof *from);
  int64_t *to = inlet_calloc((size_t)n + 1, sizeof *to);
  if (!from || !to) {
    inlet_free(from);
    inlet_free(to);
    return inlet_fail(err, INLET_ENOMEM, "out of memory");
  }
  for (int i = 0; i < n; i++) {
    from[i] = g->src->parts[i]->start;
    to[i] = g->src->parts[i]->next;
  }
  int rc = load_state(g, err);
  if (rc == 0) rc = reposition(g, err);
  for (int i = 0; i < n; i++) {
    stream_part *p = g->src->parts[i];
    if (!p->dl_published) continue;
    if (!part_range_committed(g, p->label, from[i], to[i])) dl_unpublish(g, p->dl_published);
    inlet_free(p->dl_published);
    p->dl_published = NULL;
  }
  inlet_free(from);
  inlet_free(to);
  TRY(rc);
  emit(g, INLET_INGEST_WARNING, msg);
  g->abandoned = true;
  g->gaps_pending = g->gap_lost_pending = 0;
  g->gap_ranges[0] = '\0';
  g->gap_stop = false;
  return 0;
}

/* A concurrent commit recorded our app id, or the table changed under us:
 * drop the batch, read the position back and replay from there. */
static int on_conflict(ingester *g, const inlet_error *why, inlet_error *err) {
  g->prog.conflicts++;
  abandon(g);
  g->dl_swept = false;
  for (int i = 0; partitioned(g) && i < g->src->n_parts; i++)
    g->src->parts[i]->dl_swept = false;
  if (!g->src->can_seek) {
    /* The batch lost: its dead letters go with it (see commit_batch). */
    if (g->dl_published[0]) dl_unpublish(g, g->dl_published);
    g->dl_published[0] = '\0';
    return inlet_fail(err, INLET_ECONFLICT, "%s (stdin cannot be replayed; stopping)",
                      inlet_errmsg(why));
  }
  char msg[INLET_ERROR_MESSAGE_SIZE + 64];
  snprintf(msg, sizeof msg, "batch abandoned and replayed from the table's position: %s",
           inlet_errmsg(why));
  TRY(reload_schema(g, err));
  if (partitioned(g)) return on_part_conflict(g, msg, err);
  char from[96], to[96];
  stream_pos_format(from, sizeof from, g->src->kind, &g->committed);
  stream_pos_format(to, sizeof to, g->src->kind, &g->last);
  TRY(load_state(g, err));
  TRY(reposition(g, err));
  /* Our dead letters, published before the commit failed, go unless another
   * process with our app id committed exactly that range (then the file is
   * its, with the same name and the same records). */
  if (g->dl_published[0]) {
    bool exists = false;
    TRY(find_commit(g, NULL, from, to, &exists, err));
    if (!exists) dl_unpublish(g, g->dl_published);
  }
  g->dl_published[0] = '\0';
  emit(g, INLET_INGEST_WARNING, msg);
  g->abandoned = true;
  /* The replay meets the same gaps again. */
  g->gaps_pending = g->gap_lost_pending = 0;
  g->gap_ranges[0] = '\0';
  g->gap_stop = false;
  return 0;
}

static int commit_batch(ingester *g, inlet_error *err) {
  inlet_error e = INLET_ERROR_INIT;
  int rc = move_pending(g, &e);
  if (rc == 0) rc = flush_chunk(g, &e);
  if (rc == INLET_ECONFLICT) return on_conflict(g, &e, err);
  if (rc < 0) goto fail;
  /* Nothing to commit (only blank lines or a header), unless the position
   * moved on its own (a truncated file) and must be recorded. */
  if (g->b_records == 0 && !g->b_force) return 0;
  if ((rc = g->src->ops->finish_pos(g->src, &g->last, &e)) < 0) goto fail;
  if ((g->late_chunk.columns && g->late_chunk.num_rows > 0) || g->lw) {
    rc = open_late_writer(g, &e);
    if (rc == 0 && g->late_chunk.num_rows > 0)
      rc = inlet_table_writer_write(g->lw, &g->late_chunk, &e);
    for (int i = 0; i < STREAM_POS_PARTS; i++)
      g->late_xver[i] = g->last.p[i];
    if (rc == 0 && partitioned(g)) {
      rc = ingest_parts_late_txns(&g->parts, g->src, &e);
      if (rc == 0)
        rc = delta_writer_set_txns(g->lw, g->parts.n, g->parts.names, g->parts.ver, g->parts.exp,
                                   &e);
    }
    if (rc == 0) rc = inlet_table_writer_commit(g->lw, NULL, &e);
    /* ECONFLICT: a process with our app id routed concurrently. */
    if (rc == INLET_ECONFLICT) return on_conflict(g, &e, err);
    if (rc < 0) goto fail;
    inlet_table_writer_free(g->lw);
    g->lw = NULL;
    if (g->late_chunk.columns) inlet_batch_clear(&g->late_chunk);
    g->late_routed = g->last;
    if (partitioned(g)) ingest_parts_late_committed(g->src);
  }
  if ((rc = open_writer(g, &e)) < 0) {
    if (rc == INLET_ECONFLICT) return on_conflict(g, &e, err);
    goto fail;
  }
  if ((rc = dl_publish(g, &e)) < 0) goto fail;
  if (partitioned(g)) {
    if ((rc = set_part_metrics_and_txns(g, &e)) < 0) goto fail;
  } else {
    set_metrics_and_txns(g);
  }
  int64_t version = -1;
  rc = inlet_table_writer_commit(g->w, &version, &e);
  /* EEXISTS: another process created the table first; append to it instead. */
  if (rc == INLET_ECONFLICT || (rc == INLET_EEXISTS && g->creating)) return on_conflict(g, &e, err);
  if (rc < 0) goto fail;
  g->prog.bytes_written = inlet_add_sat_i64(g->prog.bytes_written, inlet_table_writer_bytes(g->w));
  inlet_table_writer_free(g->w);
  g->w = NULL;
  g->creating = false;
  if (partitioned(g)) {
    for (int i = 0; i < g->src->n_parts; i++) {
      stream_part *p = g->src->parts[i];
      /* Debris of another attempt on this start exists only after a crash
       * (ours or a previous owner's, before this assignment) or a lost
       * commit race (a loser removes its own file): one sweep per such
       * event, not a listing per batch. */
      if (ingest_part_advanced(p) && !p->dl_swept) {
        ingest_part_dl_cleanup(p, g->dl_st, g->dl_dir, p->start, p->next);
        p->dl_swept = true;
      }
    }
    ingest_parts_committed(g->src, g->o.event_time_column != NULL);
    g->src->ops->committed(g->src);
  } else if (!g->dl_swept) {
    char from[96], to[96];
    stream_pos_format(from, sizeof from, g->src->kind, &g->committed);
    stream_pos_format(to, sizeof to, g->src->kind, &g->last);
    dl_cleanup_committed(g, from, to);
    g->dl_swept = true;
  }
  g->seq++;
  g->committed = g->last;
  g->wm_committed = g->wm.value;
  g->gaps_pending = g->gap_lost_pending = 0;
  g->gap_ranges[0] = '\0';
  g->moved.valid = false;
  g->prog.batches++;
  g->prog.rows += g->b_rows;
  g->prog.late_rows += g->b_late;
  g->prog.dropped_rows += g->b_dropped;
  g->prog.routed_rows += g->b_routed;
  g->prog.rejected += g->b_rejected;
  g->prog.ignored_fields += g->b_ignored;
  g->run_records += g->b_records;
  g->prog.batch_rows = g->b_rows;
  g->prog.last_version = version;
  g->prog.batch_latency_ms = g->trig.first_ms >= 0 ? stream_now_ms() - g->trig.first_ms : 0;
  emit(g, INLET_INGEST_BATCH, NULL);
  g->prog.batch_latency_ms = -1;
  return 0;
fail:
  if (err) *err = e;
  /* A source that cannot replay (stdin) never writes this range again, so
   * the dead letters published for a batch that surely did not commit are
   * removed now: left behind, they would list records of a batch whose
   * other records are lost (a hole, where stdin promises a lost tail).
   * A replaying source rewrites the same name, or its next commit from
   * this start sweeps it (dl_cleanup_committed). */
  if (g->dl_published[0] && !g->src->can_seek && !(g->w && delta_writer_maybe_committed(g->w))) {
    dl_unpublish(g, g->dl_published);
    g->dl_published[0] = '\0';
  }
  abandon(g);
  return rc;
}

/* ---- run ---------------------------------------------------------------------------- */

/* Looks among the recent commits for ours with batch sequence *@p seq (then
 * repeats its dead-letter cleanup), or with the range [@p from, @p to] (then
 * sets *@p found). */
static int find_commit(ingester *g, const int64_t *seq, const char *from, const char *to,
                       bool *found, inlet_error *err) {
  inlet_history_entry *h = NULL;
  size_t n = 0;
  TRY(inlet_table_history(&h, &n, g->table, 200, err));
  char want[64] = "";
  if (seq) snprintf(want, sizeof want, "\"batchSequence\":\"%lld\"", (long long)*seq);
  for (size_t i = 0; i < n; i++) {
    const char *m = h[i].metrics_json;
    if (!m || !strstr(m, "ingestAppId") || (seq && !strstr(m, want))) continue;
    json_t *j = json_loads(m, 0, NULL);
    const char *app = json_string_value(json_object_get(j, "ingestAppId"));
    const char *f = json_string_value(json_object_get(j, "sourceStartPosition"));
    const char *t = json_string_value(json_object_get(j, "sourcePosition"));
    bool hit = app && f && t && strcmp(app, g->app) == 0 &&
               (seq || (strcmp(f, from) == 0 && strcmp(t, to) == 0));
    if (hit && seq) dl_cleanup_committed(g, f, t);
    if (hit && found) *found = true;
    json_decref(j);
    if (hit) break;
  }
  inlet_history_free(h, n);
  return 0;
}

/* Startup: repeats the post-commit dead-letter cleanup of our last commit,
 * in case we died between that commit and its cleanup. Its start and end
 * positions are in its commitInfo (found among the recent commits). */
static int cleanup_last_commit(ingester *g, inlet_error *err) {
  if (g->seq <= 0) return 0;
  return find_commit(g, &g->seq, NULL, NULL, NULL, err);
}

static void ingester_free(ingester *g) {
  abandon(g);
  for (int i = 0; partitioned(g) && i < g->src->n_parts; i++) {
    inlet_free(g->src->parts[i]->dl_published);
    g->src->parts[i]->dl_published = NULL;
  }
  ingest_parts_free(&g->parts);
  inlet_free(g->part_prog);
  g->part_prog = NULL;
  if (g->src) g->src->ops->free(g->src);
  inlet_text_reader_free(g->reader);
  inlet_text_reader_free(g->late_reader);
  stream_ahead_free(&g->ahead);
  inlet_batch_reset(&g->chunk);
  inlet_batch_reset(&g->write_chunk);
  inlet_batch_reset(&g->late_chunk);
  inlet_schema_reset(&g->schema);
  delta_constraints_reset(&g->cons);
  inlet_free(g->tjson);
  inlet_free(g->header);
  inlet_free(g->late);
  inlet_free(g->pcheck);
  inlet_free(g->dl_dir);
  inlet_table_free(g->late_table);
  delta_snapshot_reset(&g->cs);
  inlet_table_free(g->owned_table);
  util_pool_free(g->pool); /* after abandon(): no writer borrows it now */
  g->pool = NULL;
  pq_buf_stash_free(g->stash);
  g->stash = NULL;
}

/* The version -1 state whose commit creates the table, as inlet_table_create
 * builds it (delta_new_table: protocol from schema and properties, validated
 * names and properties, fresh table id). */
static int build_create(ingester *g, inlet_error *err) {
  return delta_new_table(&g->cs, g->o.create_schema, g->o.create_options, err);
}

/* With create options: opens the table at create_path when none was given,
 * and notes whether it has to be created. */
static int setup_create(ingester *g, inlet_table **table, inlet_error *err) {
  bool built = false;
  if (!*table) {
    FAIL_IF(!g->o.create_path || !g->o.create_schema, err, INLET_EINVAL,
            "ingest: no table (give one, or create_path and create_schema)");
    /* Bad create options are refused before any directory is made. */
    TRY(build_create(g, err));
    built = true;
    if (inlet_location_is_url(g->o.create_path)) {
      /* An object store has no directories: the first commit creates it. */
      TRY(delta_table_open_new(&g->owned_table, g->o.create_path, g->o.create_open, err));
      *table = g->owned_table;
      goto created;
    }
    /* A path or a file: URL, parsed as every command parses a location. */
    const char *local = NULL;
    TRY(delta_location_local_path(g->o.create_path, &local, err));
    inlet_storage *st = NULL;
    TRY(inlet_storage_posix_open(&st, local, true, err));
    int rc = st->ops->mkdirs(st, "_delta_log", err);
    st->ops->free(st);
    TRY(rc);
    TRY(inlet_table_open_with(&g->owned_table, g->o.create_path, g->o.create_open, err));
    *table = g->owned_table;
  }
created:
  if (!g->o.create_schema) return 0;
  inlet_snapshot *s = NULL;
  inlet_error e = INLET_ERROR_INIT;
  int rc = inlet_table_snapshot(&s, *table, &e);
  inlet_snapshot_free(s);
  if (rc == 0) return 0;
  if (rc != INLET_ENOTFOUND) {
    if (err) *err = e;
    return rc;
  }
  g->creating = true;
  return built ? 0 : build_create(g, err);
}

/* The progress record (app id) of this run: --app-id, else the source's
 * default one (src/stream/app_id.c), checked against the table's records. */
static int choose_app_id(ingester *g, inlet_error *err) {
  inlet_snapshot *s = NULL;
  if (!g->creating) TRY(inlet_table_snapshot(&s, g->table, err));
  inlet_buf warn = INLET_BUF_INIT;
  /* Kafka: the group names the progress record when no app id does. */
  const char *given = g->o.app_id;
  if (!given && is_kafka_source(g->o.source)) given = g->o.kafka_group;
  int rc = stream_choose_app_id(g->app, sizeof g->app - 16, s ? delta_snapshot_of(s) : NULL,
                                g->o.source, given, &warn, err);
  inlet_snapshot_free(s);
  if (rc == 0 && warn.len && inlet_buf_terminate(&warn) == 0)
    emit(g, INLET_INGEST_WARNING, (const char *)warn.data);
  inlet_buf_reset(&warn);
  return rc;
}

static int setup(ingester *g, inlet_table *table, const inlet_ingest_options *options,
                 inlet_error *err) {
  inlet_ingest_options dflt = INLET_INGEST_OPTIONS_INIT;
  g->o = dflt;
  if (options) {
    FAIL_IF(options->version < 1 || options->version > INLET_INGEST_OPTIONS_VERSION, err,
            INLET_EINVAL, "ingest: unknown options version %d", options->version);
    if (options->version == 1) /* a version-1 struct ends before kafka_group */
      memcpy(&g->o, options, offsetof(inlet_ingest_options, kafka_group));
    else if (options->version < 4) /* a version-2 or -3 struct ends before schema_evolution */
      memcpy(&g->o, options, offsetof(inlet_ingest_options, schema_evolution));
    else if (options->version == 4) /* a version-4 struct ends before threads */
      memcpy(&g->o, options, offsetof(inlet_ingest_options, threads));
    else
      g->o = *options;
    if (options->version < 4) { /* what they did before: unknown fields dropped, lenient */
      g->o.schema_evolution = INLET_SCHEMA_EVOLUTION_IGNORE;
      g->o.coerce = true;
    }
    g->o.version = INLET_INGEST_OPTIONS_VERSION;
  }
  FAIL_IF(!g->o.source, err, INLET_EINVAL, "ingest: no source");
  FAIL_IF(g->o.threads < 0, err, INLET_EINVAL, "ingest: threads must not be negative");
  /* The ingester's thread parses throughout: it is one of the threads. */
  if (g->o.threads > 1) TRY(util_pool_new_beside(&g->pool, g->o.threads, err));
  TRY(pq_buf_stash_new(&g->stash, PQ_BUF_STASH_MAX_BYTES, err));
  if (g->o.strict) g->o.schema_evolution = INLET_SCHEMA_EVOLUTION_REJECT;
  FAIL_IF(g->o.schema_evolution != INLET_SCHEMA_EVOLUTION_REJECT &&
              g->o.schema_evolution != INLET_SCHEMA_EVOLUTION_IGNORE &&
              g->o.schema_evolution != INLET_SCHEMA_EVOLUTION_ADD,
          err, INLET_EINVAL, "ingest: unknown schema evolution mode %d",
          (int)g->o.schema_evolution);
  g->evolve = g->o.schema_evolution == INLET_SCHEMA_EVOLUTION_ADD;
  FAIL_IF(g->evolve && g->o.format == INLET_TEXT_CSV, err, INLET_EUNSUPPORTED,
          "ingest: schema evolution 'add' infers column types from JSON values: it needs an "
          "NDJSON source (CSV: use reject or ignore)");
  FAIL_IF(g->o.max_rejected_pct > 100, err, INLET_EINVAL,
          "ingest: a rejected-records percentage above 100");
  if (g->o.max_rows <= 0) g->o.max_rows = 1000000;
  if (g->o.max_bytes <= 0) g->o.max_bytes = (int64_t)64 << 20;
  if (g->o.max_latency_ms <= 0) g->o.max_latency_ms = 2000;
  if (g->o.idle_event_ms <= 0) g->o.idle_event_ms = 1000;
  if (g->o.poll_ms <= 0) g->o.poll_ms = 100;
  FAIL_IF(g->o.late_policy == INLET_LATE_ROUTE && !g->o.late_table, err, INLET_EINVAL,
          "late policy route needs a table");
  FAIL_IF(g->o.late_policy != INLET_LATE_KEEP && !g->o.event_time_column, err, INLET_EINVAL,
          "a late policy needs an event-time column");
  bool kafka = is_kafka_source(g->o.source);
  FAIL_IF(!kafka && (g->o.kafka_group || g->o.n_kafka_properties || g->o.kafka_start_latest ||
                     g->o.kafka_columns || g->o.kafka_kdi_app_id),
          err, INLET_EINVAL, "Kafka options need a kafka:// source");
  FAIL_IF(kafka && g->o.final, err, INLET_EINVAL, "final applies to file and stdin sources");
  if (kafka && !g->o.once) g->o.follow = true; /* a Kafka source is followed by default */
  FAIL_IF(kafka && g->o.kafka_kdi_app_id && strchr(strrchr(g->o.source, '/'), ','), err,
          INLET_EINVAL,
          "continuing kafka-delta-ingest's progress needs a single topic (its "
          "records name partitions only)");
  g->table = table;
  g->t0 = stream_now_ms();
  g->prog.last_version = -1;
  g->prog.lag_ms = -1;
  g->prog.lag_bytes = -1;
  g->prog.batch_latency_ms = -1;
  g->wm.value = INT64_MIN;
  TRY(setup_create(g, &table, err));
  g->table = table;
  TRY(choose_app_id(g, err));
  for (int i = 0; i < STREAM_POS_PARTS; i++) {
    char suf[24];
    snprintf(suf, sizeof suf, "#p%d", i);
    stream_txn_name(g->n_pos[i], sizeof g->n_pos[i], g->app, suf);
  }
  stream_txn_name(g->n_wm, sizeof g->n_wm, g->app, "#wm");
  stream_txn_name(g->n_src, sizeof g->n_src, g->app, "#src");
  g->src_tag = stream_source_tag(g->o.source);
  g->n_x = STREAM_POS_PARTS + (g->o.event_time_column ? 1 : 0) + (g->src_tag ? 1 : 0);
  stream_txn_name(g->n_late, sizeof g->n_late, g->app, "#late");
  for (int i = 0; i < STREAM_POS_PARTS; i++) {
    char suf[24];
    snprintf(suf, sizeof suf, "#late#p%d", i);
    stream_txn_name(g->n_late_pos[i], sizeof g->n_late_pos[i], g->app, suf);
  }
  json_t *aj = json_string(g->app);
  char *ajs = aj ? json_dumps(aj, JSON_ENCODE_ANY) : NULL;
  json_decref(aj);
  FAIL_IF(!ajs || strlen(ajs) >= sizeof g->app_json, err, INLET_EINVAL,
          "app id must be UTF-8 and at most 300 bytes");
  snprintf(g->app_json, sizeof g->app_json, "%s", ajs);
  free(ajs);
  /* Dead-letter directory: the app id made file-name safe. */
  char safe[400];
  size_t k = 0;
  for (const char *p = g->app; *p && k + 1 < sizeof safe; p++)
    safe[k++] = (isalnum((unsigned char)*p) || *p == '-' || *p == '.') ? *p : '_';
  safe[k] = '\0';
  size_t n = strlen(safe) + 32;
  g->dl_dir = inlet_malloc(n);
  if (!g->dl_dir) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  snprintf(g->dl_dir, n, "_errors/%s", safe);
  g->dl_st = delta_table_storage(table);

  TRY(setup_schema(g, err));
  if (kafka) {
    TRY(stream_kcols_parse(&g->kcols, g->o.kafka_columns, &g->schema, err));
    TRY(ingest_parts_init(&g->parts, err));
  }
  inlet_text_reader_options ro = INLET_TEXT_READER_OPTIONS_INIT;
  ro.format = g->o.format;
  ro.strict = g->o.schema_evolution == INLET_SCHEMA_EVOLUTION_REJECT;
  ro.strict_types = !g->o.coerce;
  if (g->o.max_record_bytes > 0) ro.max_record_bytes = g->o.max_record_bytes;
  g->ropt = ro;
  if (g->n_pcheck) {
    g->ropt.row_check = partition_row_check;
    g->ropt.row_check_ctx = g;
  }
  TRY(new_reader(g, NULL, 0, err));
  TRY(init_chunks(g, err));
  if (g->o.late_policy == INLET_LATE_ROUTE) {
    /* The same storage settings and single-writer mode as the table. */
    TRY(delta_table_open_like(&g->late_table, g->o.late_table, g->table, true, err));
    inlet_snapshot *ls = NULL;
    TRY(inlet_table_snapshot(&ls, g->late_table, err));
    int rc =
        inlet_text_reader_open_memory(&g->late_reader, "", 0, inlet_snapshot_schema(ls), &ro, err);
    inlet_snapshot_free(ls);
    TRY(rc);
    FAIL_IF(g->o.format == INLET_TEXT_CSV, err, INLET_EUNSUPPORTED,
            "routing late rows is supported for NDJSON sources");
  }
  stream_source_options so = {.format = g->o.format,
                              .follow = g->o.follow,
                              .once = g->o.once,
                              .max_record_bytes = ro.max_record_bytes,
                              .poll_ms = g->o.poll_ms,
                              .final = g->o.final,
                              .pool = g->pool};
  if (kafka) {
    so.app_id = g->app;
    so.group = g->o.kafka_group ? g->o.kafka_group : g->app;
    so.properties = g->o.kafka_properties;
    so.n_properties = g->o.n_kafka_properties;
    so.start_latest = g->o.kafka_start_latest;
    so.want_headers = g->kcols.col[KCOL_HEADERS] >= 0;
    so.load_parts = load_parts;
    so.load_ctx = g;
  }
  TRY(stream_source_open(&g->src, g->o.source, &so, err));
  /* NDJSON and CSV (whose records map through the header before them:
   * ingest_ahead.c); Kafka messages carry per-partition state. From
   * AHEAD_MIN_THREADS on: at two threads the ingester's own work (reading,
   * splitting, per-record decisions) and the chunk writer already fill two
   * cores, and converting ahead added CPU but no speed
   * (bench/RESULTS-ingest.md, "Parsing on the pool"). */
  g->use_ahead = g->pool && g->o.threads >= AHEAD_MIN_THREADS &&
                 (g->o.format == INLET_TEXT_NDJSON || g->o.format == INLET_TEXT_CSV) &&
                 g->src->ops->next_buffered && !partitioned(g);
  if (g->use_ahead)
    TRY(stream_ahead_init(&g->ahead, g->pool, &g->schema, &g->ropt,
                          g->o.format == INLET_TEXT_CSV ? &g->header : NULL, derive_ahead, g, err));
  TRY(load_state(g, err));
  TRY(reposition(g, err));
  dl_remove_prefix(g, ".tmp-");
  TRY(cleanup_last_commit(g, err));
  g->trig.max_rows = g->o.max_rows;
  g->trig.max_bytes = g->o.max_bytes;
  g->trig.max_latency_ms = g->o.max_latency_ms;
  return 0;
}

/* The source lost records before the next one. With allow_gaps: reported,
 * counted, recorded by the next commit; true (go on). Otherwise false: the
 * run commits what it has and fails naming the gap. */
static bool on_gap(ingester *g) {
  const stream_gap *gap = &g->src->gap;
  if (!g->o.allow_gaps) {
    g->gap_stop = true;
    return false;
  }
  g->gaps_pending++;
  if (gap->lost > 0) g->gap_lost_pending += gap->lost;
  size_t l = strlen(g->gap_ranges);
  if (l + strlen(gap->range) + 8 < sizeof g->gap_ranges)
    snprintf(g->gap_ranges + l, sizeof g->gap_ranges - l, "%s%s", l ? ";" : "", gap->range);
  else if (l + 4 < sizeof g->gap_ranges && strcmp(g->gap_ranges + l - 3, "...") != 0)
    snprintf(g->gap_ranges + l, sizeof g->gap_ranges - l, ";...");
  g->prog.gaps++;
  char msg[sizeof gap->message + 96];
  snprintf(msg, sizeof msg, "%s; skipped (--allow-gaps), recorded in the next commit",
           gap->message);
  emit(g, INLET_INGEST_WARNING, msg);
  return true;
}

/* max_rejected_pct: the run's rejected records against its records, at a commit. */
static bool rejected_pct_exceeded(const ingester *g) {
  return g->o.max_rejected_pct >= 0 && g->run_records > 0 &&
         (double)g->prog.rejected * 100.0 > g->o.max_rejected_pct * (double)g->run_records;
}

static int rejected_limit_error(const ingester *g, inlet_error *err) {
  char limit[64];
  if (g->reject_stop)
    snprintf(limit, sizeof limit, "the limit of %lld (max-rejected)", (long long)g->o.max_rejected);
  else
    snprintf(limit, sizeof limit, "%g%% of the run's %lld records (max-rejected)",
             g->o.max_rejected_pct, (long long)g->run_records);
  return inlet_fail(err, INLET_EREJECTED,
                    "%lld records rejected in this run, more than %s; stopped after committing "
                    "the records accepted so far (table version %lld, dead letters in %s/)",
                    (long long)g->prog.rejected, limit, (long long)g->prog.last_version, g->dl_dir);
}

int inlet_ingest_run(inlet_ingest_progress *out, inlet_table *table,
                     const inlet_ingest_options *options, inlet_error *err) {
  ingester g;
  memset(&g, 0, sizeof g);
  g.pend_part = -1;
  int rc = setup(&g, table, options, err);
  if (rc < 0) goto done;
  emit(&g, INLET_INGEST_STARTED, NULL);
  bool ended = false;
  int64_t last_idle = stream_now_ms();
  while (!ended) {
    reset_batch(&g);
    while (!(g.o.stop && *g.o.stop)) {
      /* Once per record: the coarse clock (a few ms of resolution, a
       * fifth of the precise one's cost) is plenty for batch latency. */
      int64_t now = g.now = stream_now_coarse_ms();
      if (stream_trigger_due(&g.trig, now)) break;
      int64_t wait = g.trig.first_ms < 0 ? g.o.idle_event_ms : stream_trigger_wait_ms(&g.trig, now);
      if (wait > 500) wait = 500;
      stream_record rec;
      rc = next_record(&g, &rec, wait, err);
      if (g.src->pos_reset || g.src->moved_to.valid || g.src->notice.len)
        drain_notices(&g); /* rare: not a call per record */
      if (rc < 0) goto done;
      if (rc == STREAM_END) {
        ended = true;
        break;
      }
      if (rc == STREAM_REBALANCE) break; /* commit before the parts change */
      if (rc == STREAM_GAP) {
        if (!on_gap(&g)) {
          ended = true; /* commit what came before the gap, then stop */
          break;
        }
        continue;
      }
      if (rc == STREAM_NONE) {
        now = stream_now_ms();
        if (g.trig.first_ms < 0 && now - last_idle >= g.o.idle_event_ms) {
          last_idle = now;
          emit(&g, INLET_INGEST_IDLE, NULL);
        }
        continue;
      }
      /* The wait may have been long: the batch's clock starts at its first record. */
      if (g.trig.first_ms < 0) g.now = stream_now_coarse_ms();
      g.prog.bytes += rec.bytes;
      /* Partitioned sources keep a watermark per part. */
      bool part_wm = rec.part && g.et_col >= 0;
      if (part_wm) g.wm = rec.part->wm;
      rc = process(&g, &rec, err);
      if (rc < 0) goto done;
      if (g.abandoned) break;
      if (part_wm) rec.part->wm = g.wm;
      if (rec.pos.valid) g.last = rec.pos;
      if (g.o.max_rejected >= 0 && g.prog.rejected + g.b_rejected > g.o.max_rejected) {
        g.reject_stop = true; /* commit up to this record, then stop */
        break;
      }
    }
    if (!g.abandoned) {
      rc = commit_batch(&g, err);
      if (rc < 0) goto done;
    }
    if (g.abandoned) {
      g.reject_stop = false; /* the replay counts again */
      ended = false;
      continue;
    }
    if (g.reject_stop || rejected_pct_exceeded(&g)) {
      rc = rejected_limit_error(&g, err);
      goto done;
    }
    if (g.gap_stop) {
      rc = inlet_fail(err, INLET_ENOTFOUND,
                      "%s; nothing after it was committed (--allow-gaps "
                      "skips it, recorded in the commit)",
                      g.src->gap.message);
      goto done;
    }
    if (g.o.stop && *g.o.stop) break;
  }
  emit(&g, INLET_INGEST_FINISHED, NULL);
  rc = 0;
done:
  if (out) {
    inlet_ingest_progress p = g.prog;
    p.app_id = NULL;
    p.position = NULL;
    p.message = NULL;
    /* A version-1 caller's progress struct ends before status, a version-2 one before
     * conflicts, a version-3 one before ignored_fields. */
    if (options && options->version == 1)
      memcpy(out, &p, offsetof(inlet_ingest_progress, status));
    else if (options && options->version == 2)
      memcpy(out, &p, offsetof(inlet_ingest_progress, conflicts));
    else if (options && options->version == 3)
      memcpy(out, &p, offsetof(inlet_ingest_progress, ignored_fields));
    else
      *out = p;
  }
  ingester_free(&g);
  return rc;
}
