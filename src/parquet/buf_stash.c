/*
 * Column chunk buffers handed from one Parquet writer to the next (see
 * pq_writer.h).
 *
 * A writer holds each column's compressed chunk in one buffer that grows by
 * doubling while the row group fills, and frees it with the writer. An
 * ingester or a compaction writes file after file, so each file grew its
 * buffers from nothing again: every doubling copied the chunk into fresh
 * pages, and malloc handed the freed megabytes back to the kernel, which
 * zeroed and faulted them in again for the next file (4M seed events, one
 * thread: 36,000 page faults, about 6% of the run). Buffers kept here keep
 * their pages; only their length is reset, so nothing read from them
 * depends on what an earlier file left in them.
 */
#include <pthread.h>

#include "parquet/buf_stash.h"
#include "util/util.h"

struct pq_buf_stash {
  pthread_mutex_t lock; /* writers on different threads share a stash */
  inlet_buf *slots;     /* cap 0 when empty */
  int64_t n_slots;
  size_t kept; /* bytes of capacity held by the slots */
  size_t max_kept;
};

int pq_buf_stash_new(pq_buf_stash **out, size_t max_bytes, inlet_error *err) {
  *out = NULL;
  pq_buf_stash *s = inlet_calloc(1, sizeof *s);
  if (!s) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  if (pthread_mutex_init(&s->lock, NULL) != 0) {
    inlet_free(s);
    return inlet_fail(err, INLET_ENOMEM, "cannot create a mutex");
  }
  s->max_kept = max_bytes;
  *out = s;
  return 0;
}

void pq_buf_stash_free(pq_buf_stash *s) {
  if (!s) return;
  for (int64_t i = 0; i < s->n_slots; i++)
    inlet_buf_reset(&s->slots[i]);
  inlet_free(s->slots);
  pthread_mutex_destroy(&s->lock);
  inlet_free(s);
}

size_t pq_buf_stash_bytes(pq_buf_stash *s) {
  if (!s) return 0;
  pthread_mutex_lock(&s->lock);
  size_t n = s->kept;
  pthread_mutex_unlock(&s->lock);
  return n;
}

void pq_buf_stash_take(pq_buf_stash *s, int64_t slot, inlet_buf *into) {
  if (!s || slot < 0 || into->cap > 0) return;
  pthread_mutex_lock(&s->lock);
  if (slot < s->n_slots && s->slots[slot].cap > 0) {
    *into = s->slots[slot];
    inlet_buf_clear(into);
    s->kept -= s->slots[slot].cap;
    inlet_buf_init(&s->slots[slot]);
  }
  pthread_mutex_unlock(&s->lock);
}

void pq_buf_stash_give(pq_buf_stash *s, int64_t slot, inlet_buf *from) {
  if (!s || slot < 0 || from->cap == 0) {
    inlet_buf_reset(from);
    return;
  }
  inlet_buf drop;
  inlet_buf_init(&drop);
  pthread_mutex_lock(&s->lock);
  if (slot >= s->n_slots) {
    int64_t n = s->n_slots ? s->n_slots : 16;
    while (n <= slot)
      n *= 2;
    inlet_buf *p = inlet_realloc(s->slots, (size_t)n * sizeof *p);
    if (p) { /* else the buffer is freed: a stash is only a saving */
      for (int64_t i = s->n_slots; i < n; i++)
        inlet_buf_init(&p[i]);
      s->slots = p;
      s->n_slots = n;
    }
  }
  /* The larger buffer of the two stays, within the stash's bound: a
   * column's chunks, and its pages, are about the same size from one file
   * or row group to the next. */
  if (slot < s->n_slots && from->cap > s->slots[slot].cap &&
      s->kept - s->slots[slot].cap + from->cap <= s->max_kept) {
    drop = s->slots[slot];
    s->kept = s->kept - drop.cap + from->cap;
    s->slots[slot] = *from;
    inlet_buf_clear(&s->slots[slot]);
    inlet_buf_init(from);
  }
  pthread_mutex_unlock(&s->lock);
  /* Outside the lock: freeing megabytes is a system call. */
  inlet_buf_reset(&drop);
  inlet_buf_reset(from);
}
