/*
 * Converting records ahead on several threads (issue 18: the ingest parse
 * split at record boundaries into chunks parsed in parallel).
 *
 * Conversion (JSON text into column values) is most of an ingester's work,
 * and one record's conversion depends on nothing but its bytes and the
 * schema. Everything else the ingester decides per record does depend on
 * the records before it: the batch cut (rows, bytes, latency), the
 * watermark and so lateness, dead letters, the per-batch counters, the
 * chunk boundaries the data files are cut at. So only the conversion runs
 * ahead: the records the source already holds in memory are split into
 * n_parts consecutive shares, each converted on its own thread into its
 * own scratch batch with its own reader, and the ingester then takes the
 * records one at a time in source order, deciding as it would have, and
 * moves the rows it keeps into its chunk in bulk.
 *
 * CSV records map their cells through the header before them: the shares'
 * readers have read the ingester's current header; when the ingester takes
 * a new one it marks the readers stale (records converted past it go back
 * to the ingester), and a header record ends the records read at once, so
 * the records after it are converted with readers remade over it.
 *
 * What the speculation cannot know is left to the ingester's own path,
 * which converts the record again itself: a record the conversion refused
 * (its error message, a type widening), one with unknown fields (schema
 * evolution may add them), and every record of a kind the ingester treats
 * specially (headers, oversize records, Kafka messages, text-valued Redis
 * entries). Since that path gives the same rows for the rest, the table is
 * the same whatever the thread count.
 *
 * Why only records in memory: the source's next() may wait, read, switch
 * to a rotated file or note a truncation, and the ingester must see those
 * between the records they come between. next_buffered never does any of
 * it, so reading ahead through it changes nothing but when records are
 * parsed.
 */
#include <string.h>

#include "batch/batch.h"
#include "stream/stream.h"
#include "util/util.h"

static void settle(stream_ahead *a);

int stream_ahead_init(stream_ahead *a, util_pool *pool, const inlet_schema *schema,
                      const inlet_text_reader_options *ropt, char *const *csv_header,
                      stream_ahead_derive_fn derive, void *ctx, inlet_error *err) {
  memset(a, 0, sizeof *a);
  a->pool = pool;
  a->n_parts = STREAM_AHEAD_SHARES;
  a->schema = schema;
  a->ropt = ropt;
  a->csv_header = csv_header;
  a->derive = derive;
  a->derive_ctx = ctx;
  a->stale = true;
  a->rd = inlet_calloc((size_t)a->n_parts, sizeof *a->rd);
  a->scratch = inlet_calloc((size_t)a->n_parts, sizeof *a->scratch);
  a->keep = inlet_calloc((size_t)a->n_parts, sizeof *a->keep);
  a->keep_cap = inlet_calloc((size_t)a->n_parts, sizeof *a->keep_cap);
  a->shares = inlet_calloc((size_t)a->n_parts, sizeof *a->shares);
  if (!a->rd || !a->scratch || !a->keep || !a->keep_cap || !a->shares) {
    stream_ahead_free(a);
    return inlet_fail(err, INLET_ENOMEM, "out of memory");
  }
  return 0;
}

static void free_parts(stream_ahead *a) {
  for (int p = 0; p < a->n_parts; p++) {
    inlet_text_reader_free(a->rd[p]);
    a->rd[p] = NULL;
    inlet_batch_reset(&a->scratch[p]);
  }
}

void stream_ahead_free(stream_ahead *a) {
  settle(a);
  if (a->rd && a->scratch) free_parts(a);
  if (a->keep)
    for (int p = 0; p < a->n_parts; p++)
      inlet_free(a->keep[p]);
  inlet_free(a->rd);
  inlet_free(a->scratch);
  inlet_free(a->keep);
  inlet_free(a->keep_cap);
  inlet_free(a->shares);
  inlet_free(a->items);
  memset(a, 0, sizeof *a);
}

void stream_ahead_schema_changed(stream_ahead *a) {
  settle(a);
  a->stale = true;
  for (int64_t i = a->at; i < a->n; i++)
    a->items[i].row = -1;
}

void stream_ahead_drop(stream_ahead *a) {
  settle(a);
  a->n = a->at = 0;
}

/* Readers and scratch batches for the current schema. */
static int refresh(stream_ahead *a, inlet_error *err) {
  if (!a->stale) {
    for (int p = 0; p < a->n_parts; p++)
      inlet_batch_clear(&a->scratch[p]);
    return 0;
  }
  free_parts(a);
  const char *header = a->csv_header ? *a->csv_header : NULL;
  for (int p = 0; p < a->n_parts; p++) {
    TRY(stream_text_reader_open(&a->rd[p], header, a->schema, a->ropt, err));
    TRY(inlet_batch_init(&a->scratch[p], a->schema, err));
  }
  a->stale = false;
  return 0;
}

/* Records whose conversion the ingester does itself (see the top). */
static bool special(const stream_record *r) {
  return r->header || r->oversize || r->text_fields || r->meta || r->part;
}

static int convert_share(void *arg, inlet_error *err) {
  (void)err;
  stream_ahead_share *sh = arg;
  stream_ahead *a = sh->a;
  inlet_text_reader *r = a->rd[sh->part];
  inlet_batch *b = &a->scratch[sh->part];
  inlet_error e;
  for (int64_t i = sh->from; i < sh->to; i++) {
    stream_ahead_item *it = &a->items[i];
    /* it->part was set by fill(): the ingester reads it to know which
     * share to wait for. */
    it->row = -1;
    it->ignored = 0;
    if (special(&it->rec)) continue;
    e.code = 0;
    e.message[0] = '\0';
    int64_t ignored = inlet_text_reader_ignored_fields(r);
    /* Any failure, even out of memory, is the ingester's to meet again
     * and report in order. */
    if (inlet_text_reader_append(r, b, it->rec.data, it->rec.len, &e) < 0) continue;
    int64_t row = b->num_rows - 1;
    if (a->derive && a->derive(a->derive_ctx, b, row, &e) < 0) {
      for (int32_t c = 0; c < b->schema.n_fields; c++)
        text_array_truncate(&b->columns[c], &b->schema.fields[c], row);
      b->num_rows = row;
      continue;
    }
    it->row = row;
    it->ignored = inlet_text_reader_ignored_fields(r) - ignored;
  }
  return 0;
}

static int keep_all(stream_ahead *a, int p, inlet_error *err) {
  int64_t rows = a->scratch[p].num_rows;
  if (rows > a->keep_cap[p]) {
    uint8_t *k = inlet_realloc(a->keep[p], (size_t)rows);
    if (!k) return inlet_fail(err, INLET_ENOMEM, "out of memory");
    a->keep[p] = k;
    a->keep_cap[p] = rows;
  }
  if (rows > 0) memset(a->keep[p], 1, (size_t)rows);
  return 0;
}

/* Room for the next item (not counted until the caller fills it). */
static int reserve(stream_ahead *a, inlet_error *err) {
  if (a->n < a->cap) return 0;
  int64_t nc = a->cap ? a->cap * 2 : 256;
  stream_ahead_item *ni = inlet_realloc(a->items, (size_t)nc * sizeof *ni);
  if (!ni) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  a->items = ni;
  a->cap = nc;
  return 0;
}

int64_t stream_ahead_unread_bytes(const stream_ahead *a, const stream_pos *last) {
  if (a->at >= a->n) return 0;
  const stream_pos *end = &a->items[a->n - 1].rec.pos;
  /* Positions count bytes (file offsets, stdin bytes), skipped blank lines
   * included; the records' own byte counts are the fallback. */
  if (end->valid && last->valid && end->p[0] == last->p[0] && end->p[1] >= last->p[1])
    return end->p[1] - last->p[1];
  int64_t n = 0;
  for (int64_t i = a->at; i < a->n; i++)
    n += a->items[i].rec.bytes;
  return n;
}

/* Waits for every share still converting (they write the items and the
 * scratch batches). */
static void settle(stream_ahead *a) {
  for (int p = 0; p < a->n_shares; p++)
    if (a->shares[p].running) {
      inlet_error ignored;
      (void)util_group_wait(&a->shares[p].group, &ignored);
      a->shares[p].running = false;
    }
}

/* Reads the records @p s holds after the one next() gave and hands them,
 * in shares of about equal bytes, to the pool; stream_ahead_next waits for
 * each share when its first record is taken, so the ingester works on the
 * first shares while the pool converts the later ones. */
static int fill(stream_ahead *a, stream_source *s, const stream_record *first, inlet_error *err) {
  a->n = a->at = 0;
  a->n_shares = 0;
  TRY(reserve(a, err));
  a->items[a->n++].rec = *first;
  size_t bytes = first->len;
  /* Straight into the items: this loop is the ingester's own share. A CSV
   * header (a rotated file's) ends the records read at once: those after
   * it map through it, which the readers learn only once the ingester has
   * taken it (stream_ahead_schema_changed, which would also send records
   * converted past it back to the ingester: converting them is in vain). */
  while (!a->items[a->n - 1].rec.header && a->n < STREAM_AHEAD_RECORDS &&
         bytes < STREAM_AHEAD_BYTES) {
    TRY(reserve(a, err));
    stream_ahead_item *it = &a->items[a->n];
    if (s->ops->next_buffered(s, &it->rec) != STREAM_RECORD) break;
    a->n++;
    bytes += it->rec.len;
  }
  if (a->n < STREAM_AHEAD_MIN) { /* converted one by one */
    for (int64_t i = 0; i < a->n; i++)
      a->items[i].row = -1;
    return 0;
  }
  TRY(refresh(a, err));
  int n = a->n_parts;
  size_t per = bytes / (size_t)n + 1, done = 0;
  int64_t at = 0;
  for (int p = 0; p < n && at < a->n; p++) {
    int64_t to = at;
    size_t goal = per * (size_t)(p + 1);
    if (p == n - 1) {
      to = a->n;
    } else {
      while (to < a->n && (to == at || done < goal))
        done += a->items[to++].rec.len;
    }
    for (int64_t i = at; i < to; i++)
      a->items[i].part = p;
    stream_ahead_share *sh = &a->shares[p];
    sh->a = a;
    sh->part = p;
    sh->from = at;
    sh->to = to;
    sh->running = true;
    util_group_init(&sh->group, a->pool);
    util_group_submit(&sh->group, convert_share, sh);
    a->n_shares = p + 1;
    at = to;
  }
  return 0;
}

int stream_ahead_next(stream_ahead *a, stream_source *s, stream_record *rec,
                      const stream_ahead_item **item, int64_t wait_ms, inlet_error *err) {
  *item = NULL;
  if (a->at < a->n) {
    stream_ahead_item *it = &a->items[a->at++];
    if (a->n_shares > 0) {
      stream_ahead_share *sh = &a->shares[it->part];
      if (sh->running) {
        inlet_error ignored;
        (void)util_group_wait(&sh->group, &ignored); /* tasks never fail */
        sh->running = false;
        TRY(keep_all(a, it->part, err));
      }
    }
    *rec = it->rec;
    if (it->row >= 0) *item = it;
    return STREAM_RECORD;
  }
  a->n = a->at = 0;
  int rc = s->ops->next(s, rec, wait_ms, err);
  if (rc != STREAM_RECORD || !s->ops->next_buffered) return rc;
  TRY(fill(a, s, rec, err));
  return stream_ahead_next(a, s, rec, item, wait_ms, err);
}
