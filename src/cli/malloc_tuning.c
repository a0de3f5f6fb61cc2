/*
 * How the inlet process asks glibc's malloc to keep large blocks.
 *
 * Every data file an ingest, append or rewrite writes has its own Parquet
 * writer, whose column buffers (PLAIN and index pages, dictionaries, level
 * runs) are allocated when the file opens and freed when it closes. With
 * its defaults glibc maps a block above its mmap threshold (128 KiB at
 * first, raised as such blocks are freed) straight from the kernel and
 * unmaps it when freed, and hands the heap's free top back to the kernel
 * past its trim threshold, so each file faulted its buffers in afresh: a
 * one-thread ingest of 5M seed events took 16,000 page faults and spent
 * about a tenth of its CPU time on them on this project's virtual
 * machines. Serving blocks below 4 MiB from the heap and keeping up to
 * 64 MiB of its free top lets the next file reuse pages already mapped
 * (8,700 faults, 1.06-1.10 -> 0.98-1.00 CPU s at one thread; at two or
 * more the ingester's own thread bounds the speed and wall time did not
 * move). Blocks of 4 MiB or more (a large row group's chunks) are still
 * mapped and unmapped whole, so what the heap keeps stays small beside
 * them: an ingest's peak RSS moved 51-67 -> 53-73 MiB at 1-4 threads. A
 * 32 MiB threshold saved no more faults and cost more memory. Since then
 * the writers keep their page buffers and dictionary indices in their
 * stash from file to file (parquet/buf_stash.h), which took most of those
 * faults away with malloc's defaults too (8,400 for the same ingest); the
 * setting is kept for the buffers outside the writers.
 *
 * Only ingest and append ask for it (main.c). A compaction, which reads
 * many small files into one, gained no time and held 6-19 MiB more at its
 * peak (56-60 -> 62-79 MiB at 1-4 threads).
 *
 * This is a process setting, so the command-line tool makes it and the
 * library does not (a program embedding libinlet may do the same:
 * docs/ARCHITECTURE.md, "Memory"). A user's GLIBC_TUNABLES naming any
 * glibc.malloc setting is left to decide.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#define HEAP_BLOCKS_BELOW ((int)4 << 20)
#define HEAP_TOP_KEPT ((int)64 << 20)

void cli_tune_malloc(void) {
#if defined(__GLIBC__)
  const char *t = getenv("GLIBC_TUNABLES");
  if (t && strstr(t, "glibc.malloc.")) return;
  (void)mallopt(M_MMAP_THRESHOLD, HEAP_BLOCKS_BELOW);
  (void)mallopt(M_TRIM_THRESHOLD, HEAP_TOP_KEPT);
#endif
}
