/*
 * A per-thread cache of the large blocks libbrotli's encoder allocates.
 *
 * Brotli has no way to reset an encoder, so each page gets a new one, and
 * at the default quality it allocates ~28 MB of tables and ring buffer for
 * a 1 MiB page (a 16 MB hash table even for a 64-byte one). Where malloc
 * maps such blocks (the tool asks for blocks of 4 MiB or more to be mapped,
 * src/cli/malloc_tuning.c; ASan maps and poisons every large block) each
 * page faulted them in afresh: `inlet ingest --compression brotli` of 1M
 * seed events took 9.5 s of CPU and 664,000 page faults, 1.3 s and 11,400
 * with these blocks kept, and a fuzz input of tiny brotli pages took 37 s
 * under ASan, about 1 s kept. Where glibc's own sliding threshold keeps
 * them on its heap already, writes showed no measurable change.
 *
 * Blocks of BROTLI_BLOCKS_MIN bytes or more that an encoder frees are kept
 * for the calling thread, at most BROTLI_BLOCKS_MAX of them and
 * BROTLI_BLOCKS_MAX_BYTES in all (one encoder's, up to quality 9 with the
 * default window); smaller ones go straight back to malloc, which
 * serves them from its heap cheaply. A thread's blocks are freed when it
 * exits (codec.c's thread-exit hook calls brotli_blocks_release).
 */
#ifndef INLET_CODEC_BROTLI_BLOCKS_H
#define INLET_CODEC_BROTLI_BLOCKS_H

#include <stddef.h>

#define BROTLI_BLOCKS_MIN ((size_t)64 << 10)
#define BROTLI_BLOCKS_MAX 8
#define BROTLI_BLOCKS_MAX_BYTES ((size_t)64 << 20)

/* brotli_alloc_func and brotli_free_func: opaque is unused (NULL). */
void *brotli_blocks_alloc(void *opaque, size_t size);
void brotli_blocks_free(void *opaque, void *address);

/* Frees the calling thread's cached blocks. */
void brotli_blocks_release(void);

/* The calling thread's cache, for tests: blocks held, their bytes, and how
 * many large blocks were taken from malloc (not from the cache) so far. */
void brotli_blocks_stats(size_t *held, size_t *held_bytes, size_t *fresh);

#endif /* INLET_CODEC_BROTLI_BLOCKS_H */
