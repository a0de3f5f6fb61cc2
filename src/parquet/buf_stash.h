/*
 * Buffers kept from one use to the next by Parquet writers (buf_stash.c).
 */
#ifndef INLET_PQ_BUF_STASH_H
#define INLET_PQ_BUF_STASH_H

#include <stddef.h>
#include <stdint.h>

#include "inlet/error.h"
#include "util/buf.h"

/*
 * Buffers a Parquet writer's columns keep for their next use (buf_stash.c):
 * a column chunk's buffer for the next file, a page in flight's buffers
 * for the next row group. Whoever writes file after file (a table writer,
 * an ingester, a compaction) lends its writers one stash, so each file's
 * chunks start in the previous file's buffers instead of growing fresh
 * ones; a writer without one keeps a stash of its own for its row groups.
 * One buffer per slot (a column writer's slots: column_writer.h), at most
 * @p max_bytes of capacity in all; writers on several threads may share
 * one.
 */
typedef struct pq_buf_stash pq_buf_stash;
/* What the table writers, ingesters and compactions keep at most: about a
 * file's worth of chunks at the default batch size. */
#define PQ_BUF_STASH_MAX_BYTES ((size_t)64 << 20)
int pq_buf_stash_new(pq_buf_stash **out, size_t max_bytes, inlet_error *err);
void pq_buf_stash_free(pq_buf_stash *s);
/* Capacity held now, in bytes (tests). */
size_t pq_buf_stash_bytes(pq_buf_stash *s);
/* Moves the buffer kept in @p slot into the empty @p into (left empty when
 * there is none; nothing happens when @p into already has capacity or
 * @p s is NULL). The buffer comes back empty (length 0). */
void pq_buf_stash_take(pq_buf_stash *s, int64_t slot, inlet_buf *into);
/* Keeps @p from in @p slot when it is larger than the buffer kept there and
 * fits the bound, and frees it otherwise; @p from is left empty. A NULL
 * @p s frees it. */
void pq_buf_stash_give(pq_buf_stash *s, int64_t slot, inlet_buf *from);

#endif /* INLET_PQ_BUF_STASH_H */
