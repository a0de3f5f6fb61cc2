/*
 * Helpers for the fuzzers that work on whole tables (ingest_fuzzer.c,
 * table_ops_fuzzer.c): a scratch directory per input on tmpfs when there is
 * one (fsync is cheap there), removed afterwards; a reader of the input
 * bytes that yields zeros once they run out; a full scan of a table.
 * Header-only (static): fuzz/CMakeLists.txt builds every *_fuzzer.c alone.
 */
#ifndef INLET_FUZZ_TABLE_SUPPORT_H
#define INLET_FUZZ_TABLE_SUPPORT_H

#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inlet/inlet.h"

/* ---- input bytes ------------------------------------------------------------ */

typedef struct fz_in {
  const uint8_t *p;
  size_t n, at;
} fz_in;

static inline uint8_t fz_u8(fz_in *in) {
  return in->at < in->n ? in->p[in->at++] : 0;
}
static inline uint16_t fz_u16(fz_in *in) {
  uint16_t a = fz_u8(in);
  return (uint16_t)(a | (uint16_t)fz_u8(in) << 8);
}
static inline bool fz_left(const fz_in *in) {
  return in->at < in->n;
}
/* Up to @p want bytes of the input (fewer when it runs out). */
static inline const uint8_t *fz_bytes(fz_in *in, size_t want, size_t *got) {
  size_t left = in->n - in->at;
  *got = want < left ? want : left;
  const uint8_t *p = in->p + in->at;
  in->at += *got;
  return p;
}

/* ---- scratch directories ------------------------------------------------------ */

static inline int fz_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  return remove(path);
}

static inline void fz_rmtree(const char *path) {
  nftw(path, fz_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* A fresh directory for one input, in @p out. Aborts when none can be made:
 * a fuzzer that cannot work must not pass. */
static inline void fz_scratch(char *out, size_t cap, const char *tag) {
  struct stat st;
  const char *base = getenv("INLET_FUZZ_TMP");
  if (!base) base = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : "/tmp";
  snprintf(out, cap, "%s/inlet-%s-%ld-XXXXXX", base, tag, (long)getpid());
  if (!mkdtemp(out)) abort();
}

/* ---- reading a table back ------------------------------------------------------ */

/* Calls @p row_fn for every row of the latest snapshot of @p path; returns
 * the row count, or a negative code when the table cannot be read. */
typedef void (*fz_row_fn)(void *ctx, const inlet_batch *b, int64_t row);
static inline int64_t fz_scan(const char *path, fz_row_fn row_fn, void *ctx, inlet_error *err) {
  inlet_table *t = NULL;
  inlet_snapshot *s = NULL;
  inlet_table_scan *sc = NULL;
  inlet_batch b;
  memset(&b, 0, sizeof b);
  int64_t rows = 0;
  int rc = inlet_table_open(&t, path, err);
  if (rc == 0) rc = inlet_table_snapshot(&s, t, err);
  if (rc == 0) rc = inlet_table_scan_open(&sc, s, err);
  while (rc == 0) {
    rc = inlet_table_scan_next(sc, &b, err);
    if (rc != 1) break;
    rc = 0;
    if (inlet_batch_validate(&b, err) != 0) abort();
    for (int64_t r = 0; r < b.num_rows && row_fn; r++)
      row_fn(ctx, &b, r);
    rows += b.num_rows;
  }
  inlet_batch_reset(&b);
  inlet_table_scan_free(sc);
  inlet_snapshot_free(s);
  inlet_table_free(t);
  return rc < 0 ? rc : rows;
}

#endif /* INLET_FUZZ_TABLE_SUPPORT_H */
