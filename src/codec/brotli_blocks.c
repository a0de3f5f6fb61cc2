/*
 * Per-thread cache of libbrotli encoder blocks: see brotli_blocks.h for why.
 *
 * Each block carries its size in a header (brotli's free function is not
 * told it), sized to keep malloc's alignment. Held blocks are in the order
 * they were freed, oldest first. The cache lives in
 * _Thread_local storage, so leak checkers see its blocks as reachable, and
 * no lock is needed: a block is only ever freed by the thread whose
 * encoder allocated it (an encoder is created, used and destroyed within
 * one inlet_compress call).
 */
#include "codec/brotli_blocks.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef union block_header {
  size_t size;
  max_align_t align;
} block_header;

static _Thread_local struct {
  block_header *held[BROTLI_BLOCKS_MAX];
  size_t n;
  size_t bytes;
  size_t fresh;
} tl_cache;

void *brotli_blocks_alloc(void *opaque, size_t size) {
  (void)opaque;
  if (size >= BROTLI_BLOCKS_MIN) {
    /* The smallest held block that fits and is at most twice the request,
     * so a small request does not tie up the block a larger one needs. */
    size_t best = tl_cache.n;
    for (size_t i = 0; i < tl_cache.n; i++) {
      size_t have = tl_cache.held[i]->size;
      if (have >= size && have / 2 <= size &&
          (best == tl_cache.n || have < tl_cache.held[best]->size))
        best = i;
    }
    if (best < tl_cache.n) {
      block_header *h = tl_cache.held[best];
      memmove(&tl_cache.held[best], &tl_cache.held[best + 1],
              (tl_cache.n - best - 1) * sizeof tl_cache.held[0]);
      tl_cache.n--;
      tl_cache.bytes -= h->size;
      return h + 1;
    }
    tl_cache.fresh++;
  }
  if (size > SIZE_MAX - sizeof(block_header)) return NULL;
  block_header *h = malloc(sizeof(block_header) + size);
  if (!h) return NULL;
  h->size = size;
  return h + 1;
}

void brotli_blocks_free(void *opaque, void *address) {
  (void)opaque;
  if (!address) return;
  block_header *h = (block_header *)address - 1;
  if (h->size < BROTLI_BLOCKS_MIN || h->size > BROTLI_BLOCKS_MAX_BYTES) {
    free(h);
    return;
  }
  /* The oldest blocks make room: an encoder frees its blocks together, and
   * the next page most likely wants the latest encoder's. */
  size_t drop = 0, bytes = tl_cache.bytes;
  while (tl_cache.n - drop == BROTLI_BLOCKS_MAX || h->size > BROTLI_BLOCKS_MAX_BYTES - bytes) {
    bytes -= tl_cache.held[drop]->size;
    free(tl_cache.held[drop++]);
  }
  memmove(&tl_cache.held[0], &tl_cache.held[drop], (tl_cache.n - drop) * sizeof tl_cache.held[0]);
  tl_cache.n -= drop;
  tl_cache.bytes = bytes;
  tl_cache.held[tl_cache.n++] = h;
  tl_cache.bytes += h->size;
}

void brotli_blocks_release(void) {
  for (size_t i = 0; i < tl_cache.n; i++)
    free(tl_cache.held[i]);
  tl_cache.n = 0;
  tl_cache.bytes = 0;
}

void brotli_blocks_stats(size_t *held, size_t *held_bytes, size_t *fresh) {
  if (held) *held = tl_cache.n;
  if (held_bytes) *held_bytes = tl_cache.bytes;
  if (fresh) *fresh = tl_cache.fresh;
}
