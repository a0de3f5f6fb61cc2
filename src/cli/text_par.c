/*
 * Formatting threads for the text output of a parallel scan (text_par.h).
 *
 * A slot holds one batch from put until its part is written: queued for a
 * formatting thread, formatted (the batch freed, its part kept), then written
 * by the caller's thread and free again. The slots' states and the first
 * error are under the lock; a slot's batch and part belong to the thread its
 * state names (queued and written: the caller's; running: its worker's).
 */
#include "text_par.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Batches held per formatting thread: one being formatted, one waiting or
 * waiting to be written, so no thread idles while the caller writes. */
#define SLOTS_PER_THREAD 2

typedef enum { SLOT_FREE, SLOT_QUEUED, SLOT_RUNNING, SLOT_DONE } slot_state;

typedef struct text_slot {
  slot_state state; /* lock */
  int64_t seq;      /* put order */
  inlet_batch batch;
  char *text; /* owned part, kept between uses to spare the allocations */
  size_t len, cap;
  int64_t rows;
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
  text_slot *slots;
  int n_slots;
  text_worker *workers;
  int n_workers;
  int64_t next_seq;     /* of the next batch put */
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
    s->rows = s->batch.num_rows;
    inlet_error e = INLET_ERROR_INIT;
    int rc = inlet_text_writer_write(wk->w, &s->batch, &e);
    inlet_batch_reset(&s->batch);
    wk->cur = NULL;
    pthread_mutex_lock(&p->lock);
    s->rc = rc < 0 ? rc : 0;
    s->err = e;
    s->state = SLOT_DONE;
    pthread_cond_broadcast(&p->finished);
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
  for (int i = 0; i < p->n_slots; i++) {
    inlet_batch_reset(&p->slots[i].batch);
    free(p->slots[i].text);
  }
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

int cli_text_par_put(cli_text_par *p, inlet_batch *b, inlet_error *err) {
  pthread_mutex_lock(&p->lock);
  int rc = write_ready(p, false, false, err);
  text_slot *free_slot = NULL;
  while (rc == 0) {
    for (int i = 0; i < p->n_slots && !free_slot; i++)
      if (p->slots[i].state == SLOT_FREE) free_slot = &p->slots[i];
    if (free_slot) break;
    rc = write_ready(p, true, false, err);
  }
  if (rc == 0) {
    free_slot->batch = *b; /* moved */
    memset(b, 0, sizeof *b);
    free_slot->seq = p->next_seq++;
    free_slot->state = SLOT_QUEUED;
    pthread_cond_signal(&p->queued);
  }
  pthread_mutex_unlock(&p->lock);
  return rc;
}

int cli_text_par_flush(cli_text_par *p, inlet_error *err) {
  pthread_mutex_lock(&p->lock);
  int rc = write_ready(p, false, true, err);
  pthread_mutex_unlock(&p->lock);
  return rc;
}
