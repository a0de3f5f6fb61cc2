/*
 * Formatting threads for the text output of a parallel scan (text_par.h).
 *
 * A batch put is cut into ranges of rows, each a part of its own, so that
 * one big batch (a row group of a million rows) is formatted on every thread
 * and the parts held stay small. A slot holds one range from put until its
 * part is written: queued for a formatting thread, formatted, then written
 * by the caller's thread and free again. The batch is freed by the thread
 * that formats its last range. The slots' states, the batches' counts and the
 * first error are under the lock; a slot's part belongs to the thread its
 * state names (queued and done: the caller's; running: its worker's), and a
 * batch is read-only while its ranges are formatted.
 */
#include "text_par.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Ranges held per formatting thread: one being formatted, one waiting or
 * waiting to be written, so no thread idles while the caller writes. */
#define SLOTS_PER_THREAD 2
/* Values per range (rows times columns): a few milliseconds of formatting,
 * a part of a megabyte or two for narrow rows. */
#define RANGE_VALUES 65536
#define RANGE_MIN_ROWS 256

typedef enum { SLOT_FREE, SLOT_QUEUED, SLOT_RUNNING, SLOT_DONE } slot_state;

/* A batch put, shared read-only by the slots of its ranges. */
typedef struct held_batch {
  inlet_batch b;
  int64_t ranges_left; /* lock: ranges not yet formatted */
} held_batch;

typedef struct text_slot {
  slot_state state;  /* lock */
  int64_t seq;       /* put order of the range */
  held_batch *batch; /* queued and running: its batch */
  int64_t first, rows;
  char *text; /* owned part, kept between uses to spare the allocations */
  size_t len, cap;
  int rc;
  inlet_error err;
} text_slot;

typedef struct text_worker {
  cli_text_par *par;
  pthread_t thread;
  bool started;
  inlet_text_writer *w; /* owned, rows_only; writes into cur */
  text_slot *cur;
} text_worker;

struct cli_text_par {
  pthread_mutex_t lock;
  pthread_cond_t queued;   /* a slot was queued, or stop */
  pthread_cond_t finished; /* a slot was formatted */
  bool stop;               /* lock */
  bool any_order;
  inlet_text_writer *whole; /* borrowed */
  int64_t range_rows;
  text_slot *slots;
  int n_slots;
  text_worker *workers;
  int n_workers;
  int64_t next_seq;     /* of the next range put */
  int64_t next_written; /* the seq the ordered output writes next */
  int rc;               /* the first error, returned again */
  inlet_error err;
};

static int set_error(inlet_error *err, int code, const char *msg) {
  if (err) {
    err->code = code;
    snprintf(err->message, sizeof err->message, "%s", msg);
  }
  return code;
}

/* The rows_only writer's sink: the part of the slot being formatted. */
static int part_write(void *ctx, const void *data, size_t len, inlet_error *err) {
  text_worker *wk = ctx;
  text_slot *s = wk->cur;
  if (len > s->cap - s->len) {
    size_t cap = s->cap ? s->cap : 64 * 1024;
    while (cap - s->len < len)
      cap *= 2;
    char *t = realloc(s->text, cap);
    if (!t) return set_error(err, INLET_ENOMEM, "out of memory formatting rows");
    s->text = t;
    s->cap = cap;
  }
  memcpy(s->text + s->len, data, len);
  s->len += len;
  return 0;
}

/* The queued slot put first, or NULL. Under the lock. */
static text_slot *oldest_queued(cli_text_par *p) {
  text_slot *best = NULL;
  for (int i = 0; i < p->n_slots; i++)
    if (p->slots[i].state == SLOT_QUEUED && (!best || p->slots[i].seq < best->seq))
      best = &p->slots[i];
  return best;
}

/* Lets go of one range of @p h; the last one frees the batch. Under the
 * lock, which is let go while freeing. */
static void release_range(cli_text_par *p, held_batch *h) {
  if (--h->ranges_left > 0) return;
  pthread_mutex_unlock(&p->lock);
  inlet_batch_reset(&h->b);
  free(h);
  pthread_mutex_lock(&p->lock);
}

static void *worker_main(void *arg) {
  text_worker *wk = arg;
  cli_text_par *p = wk->par;
  pthread_mutex_lock(&p->lock);
  for (;;) {
    text_slot *s = NULL;
    while (!p->stop && !(s = oldest_queued(p)))
      pthread_cond_wait(&p->queued, &p->lock);
    if (p->stop) break;
    s->state = SLOT_RUNNING;
    pthread_mutex_unlock(&p->lock);
    wk->cur = s;
    s->len = 0;
    inlet_error e = INLET_ERROR_INIT;
    int rc = inlet_text_writer_write_rows(wk->w, &s->batch->b, s->first, s->rows, &e);
    wk->cur = NULL;
    pthread_mutex_lock(&p->lock);
    held_batch *h = s->batch;
    s->batch = NULL;
    s->rc = rc < 0 ? rc : 0;
    s->err = e;
    s->state = SLOT_DONE;
    pthread_cond_broadcast(&p->finished);
    release_range(p, h);
  }
  pthread_mutex_unlock(&p->lock);
  return NULL;
}

void cli_text_par_free(cli_text_par *p) {
  if (!p) return;
  pthread_mutex_lock(&p->lock);
  p->stop = true;
  pthread_cond_broadcast(&p->queued);
  pthread_mutex_unlock(&p->lock);
  for (int i = 0; i < p->n_workers; i++) {
    if (p->workers[i].started) pthread_join(p->workers[i].thread, NULL);
    inlet_text_writer_free(p->workers[i].w);
  }
  /* The workers are gone: what is still queued is dropped here, alone. */
  pthread_mutex_lock(&p->lock);
  for (int i = 0; i < p->n_slots; i++) {
    if (p->slots[i].batch) release_range(p, p->slots[i].batch);
    free(p->slots[i].text);
  }
  pthread_mutex_unlock(&p->lock);
  free(p->workers);
  free(p->slots);
  pthread_cond_destroy(&p->finished);
  pthread_cond_destroy(&p->queued);
  pthread_mutex_destroy(&p->lock);
  free(p);
}

int cli_text_par_new(cli_text_par **out, int threads, const inlet_schema *schema,
                     const inlet_text_writer_options *wo, inlet_text_writer *whole, bool any_order,
                     inlet_error *err) {
  *out = NULL;
  if (threads < 1 || wo->format == INLET_TEXT_TABLE)
    return set_error(err, INLET_EINVAL, "parallel text output: not for this format");
  cli_text_par *p = calloc(1, sizeof *p);
  if (!p) return set_error(err, INLET_ENOMEM, "out of memory");
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->queued, NULL);
  pthread_cond_init(&p->finished, NULL);
  p->any_order = any_order;
  p->whole = whole;
  p->range_rows = RANGE_VALUES / (schema->n_fields > 0 ? schema->n_fields : 1);
  if (p->range_rows < RANGE_MIN_ROWS) p->range_rows = RANGE_MIN_ROWS;
  p->n_slots = threads * SLOTS_PER_THREAD;
  p->slots = calloc((size_t)p->n_slots, sizeof *p->slots);
  p->workers = calloc((size_t)threads, sizeof *p->workers);
  if (!p->slots || !p->workers) {
    cli_text_par_free(p);
    return set_error(err, INLET_ENOMEM, "out of memory");
  }
  p->n_workers = threads;
  inlet_text_writer_options part = *wo;
  part.version = INLET_TEXT_WRITER_OPTIONS_VERSION;
  part.rows_only = true;
  for (int i = 0; i < threads; i++) {
    text_worker *wk = &p->workers[i];
    wk->par = p;
    int rc = inlet_text_writer_new(&wk->w, schema, &part, part_write, wk, err);
    if (rc < 0) {
      cli_text_par_free(p);
      return rc;
    }
  }
  /* A thread the system refuses is one fewer formatting thread; with none at
   * all the caller writes through the whole writer itself (an error here). */
  int started = 0;
  for (int i = 0; i < threads; i++) {
    text_worker *wk = &p->workers[i];
    wk->started = pthread_create(&wk->thread, NULL, worker_main, wk) == 0;
    started += wk->started;
  }
  if (started == 0) {
    cli_text_par_free(p);
    return set_error(err, INLET_ENOMEM, "cannot start a formatting thread");
  }
  *out = p;
  return 0;
}

/* A formatted slot the output may take now: in order, the next one; in any
 * order, the oldest formatted one. NULL if none. Under the lock. */
static text_slot *ready(cli_text_par *p) {
  text_slot *best = NULL;
  for (int i = 0; i < p->n_slots; i++) {
    text_slot *s = &p->slots[i];
    if (s->state != SLOT_DONE) continue;
    if (!p->any_order && s->seq == p->next_written) return s;
    if (p->any_order && (!best || s->seq < best->seq)) best = s;
  }
  return best;
}

static bool any_in_flight(const cli_text_par *p) {
  for (int i = 0; i < p->n_slots; i++)
    if (p->slots[i].state != SLOT_FREE) return true;
  return false;
}

/* Writes the slots that are ready (waiting for one while @p wait_for_one,
 * or for all while @p wait_for_all). Under the lock; the lock is let go
 * while writing. */
static int write_ready(cli_text_par *p, bool wait_for_one, bool wait_for_all, inlet_error *err) {
  int written = 0;
  for (;;) {
    if (p->rc < 0) break;
    text_slot *s = ready(p);
    if (!s) {
      bool more = wait_for_all ? any_in_flight(p) : wait_for_one && written == 0;
      if (!more) break;
      pthread_cond_wait(&p->finished, &p->lock);
      continue;
    }
    pthread_mutex_unlock(&p->lock);
    inlet_error e = INLET_ERROR_INIT;
    int rc = s->rc;
    if (rc < 0)
      e = s->err;
    else
      rc = inlet_text_writer_write_part(p->whole, s->text, s->len, s->rows, &e);
    pthread_mutex_lock(&p->lock);
    s->state = SLOT_FREE;
    p->next_written++;
    written++;
    if (rc < 0) {
      p->rc = rc;
      p->err = e;
    }
  }
  if (p->rc < 0 && err) *err = p->err;
  return p->rc;
}

/* A free slot, writing ready parts (and waiting for one) while there is
 * none. NULL after an error. Under the lock. */
static text_slot *free_slot(cli_text_par *p, inlet_error *err) {
  for (;;) {
    for (int i = 0; i < p->n_slots; i++)
      if (p->slots[i].state == SLOT_FREE) return &p->slots[i];
    if (write_ready(p, true, false, err) < 0) return NULL;
  }
}

int cli_text_par_put(cli_text_par *p, inlet_batch *b, inlet_error *err) {
  pthread_mutex_lock(&p->lock);
  int rc = write_ready(p, false, false, err);
  if (rc < 0 || b->num_rows == 0) {
    pthread_mutex_unlock(&p->lock);
    return rc;
  }
  held_batch *h = calloc(1, sizeof *h);
  if (!h) {
    pthread_mutex_unlock(&p->lock);
    return set_error(err, INLET_ENOMEM, "out of memory");
  }
  h->b = *b; /* moved */
  memset(b, 0, sizeof *b);
  int64_t rows = h->b.num_rows;
  /* Held by put itself until every range is queued, so that a failure
   * midway frees the batch once its queued ranges are done. */
  h->ranges_left = 1;
  for (int64_t first = 0; first < rows; first += p->range_rows) {
    text_slot *s = free_slot(p, err);
    if (!s) {
      rc = p->rc;
      break;
    }
    s->batch = h;
    h->ranges_left++;
    s->first = first;
    s->rows = rows - first < p->range_rows ? rows - first : p->range_rows;
    s->seq = p->next_seq++;
    s->state = SLOT_QUEUED;
    pthread_cond_signal(&p->queued);
  }
  release_range(p, h);
  pthread_mutex_unlock(&p->lock);
  return rc;
}

int cli_text_par_flush(cli_text_par *p, inlet_error *err) {
  pthread_mutex_lock(&p->lock);
  int rc = write_ready(p, false, true, err);
  pthread_mutex_unlock(&p->lock);
  return rc;
}
