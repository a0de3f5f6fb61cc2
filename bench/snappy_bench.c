/*
 * Snappy decompression: inlet's decoder (src/codec/snappy_decode.c) beside
 * libsnappy's snappy_uncompress on the same compressed pages, in one run.
 * The reason the decoder exists is this ratio, so it is measured here rather
 * than assumed (issue 11: the snappy scan spent most of its time in
 * libsnappy).
 *
 *   snappy_bench [--reps K] [FILE...]
 *
 * Without files, the pages are PLAIN pages of parquet_bench's columns
 * (event_id, amount, event_time: 10M rows cut into 1 MiB pages). A FILE is
 * cut into 1 MiB pieces. Every page is compressed with libsnappy, then
 * decompressed K times (default 5) by each decoder, alternating, best time
 * kept; the outputs are compared byte for byte. Prints one JSON line.
 */
#include <inttypes.h>
#include <snappy-c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codec/snappy_decode.h"

#define PAGE (1 << 20)

typedef struct page {
  char *z;
  size_t z_len, len;
} page;

static page *pages;
static size_t n_pages, cap_pages, total_raw, total_z;

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void add_page(const void *raw, size_t len) {
  if (n_pages == cap_pages) {
    cap_pages = cap_pages ? cap_pages * 2 : 64;
    pages = realloc(pages, cap_pages * sizeof *pages);
    if (!pages) abort();
  }
  page *p = &pages[n_pages++];
  p->len = len;
  p->z_len = snappy_max_compressed_length(len);
  p->z = malloc(p->z_len);
  if (!p->z || snappy_compress(raw, len, p->z, &p->z_len) != SNAPPY_OK) abort();
  total_raw += len;
  total_z += p->z_len;
}

static void add_buffer(const uint8_t *b, size_t n) {
  for (size_t at = 0; at < n; at += PAGE)
    add_page(b + at, n - at < PAGE ? n - at : PAGE);
}

/* parquet_bench's generator, column by column, as PLAIN bytes. */
static void add_generated(void) {
  const int64_t rows = 10000000;
  uint8_t *col = malloc((size_t)rows * 8);
  if (!col) abort();
  for (int c = 0; c < 3; c++) {
    for (int64_t i = 0; i < rows; i++) {
      uint64_t h = ((uint64_t)i * 2654435761u) & UINT64_C(0xffffffff);
      int64_t v = c == 0 ? i : (int64_t)(1700000000000000 + i * 1000 + (int64_t)(h % 1000));
      if (c == 1) {
        double d = (double)((h >> 4) % 1000000) / 100.0;
        memcpy(col + i * 8, &d, 8);
      } else {
        memcpy(col + i * 8, &v, 8);
      }
    }
    add_buffer(col, (size_t)rows * 8);
  }
  free(col);
}

static int add_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    return -1;
  }
  uint8_t *b = malloc(PAGE);
  size_t n;
  while ((n = fread(b, 1, PAGE, f)) > 0)
    add_buffer(b, n);
  free(b);
  fclose(f);
  return 0;
}

int main(int argc, char **argv) {
  int reps = 5, files = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      reps = atoi(argv[++i]);
    } else {
      if (add_file(argv[i]) != 0) return 1;
      files++;
    }
  }
  if (!files) add_generated();
  uint8_t *out = malloc(PAGE), *ref = malloc(PAGE);
  if (!out || !ref) abort();
  double best_lib = 1e9, best_own = 1e9;
  for (int r = 0; r < reps; r++) {
    double t0 = now_seconds();
    for (size_t i = 0; i < n_pages; i++) {
      size_t n = pages[i].len;
      if (snappy_uncompress(pages[i].z, pages[i].z_len, (char *)ref, &n) != SNAPPY_OK) abort();
    }
    double t1 = now_seconds();
    for (size_t i = 0; i < n_pages; i++)
      if (inlet_snappy_decode((const uint8_t *)pages[i].z, pages[i].z_len, out, pages[i].len) !=
          INLET_SNAPPY_OK)
        abort();
    double t2 = now_seconds();
    if (t1 - t0 < best_lib) best_lib = t1 - t0;
    if (t2 - t1 < best_own) best_own = t2 - t1;
  }
  /* Same bytes: compare every page once, outside the timed loops. */
  for (size_t i = 0; i < n_pages; i++) {
    size_t n = pages[i].len;
    if (snappy_uncompress(pages[i].z, pages[i].z_len, (char *)ref, &n) != SNAPPY_OK ||
        inlet_snappy_decode((const uint8_t *)pages[i].z, pages[i].z_len, out, pages[i].len) !=
            INLET_SNAPPY_OK ||
        memcmp(ref, out, pages[i].len) != 0) {
      fprintf(stderr, "snappy_bench: page %zu decodes differently\n", i);
      return 1;
    }
  }
  printf("{\"op\":\"snappy_decompress\",\"pages\":%zu,\"raw_bytes\":%zu,\"compressed_bytes\":%zu,"
         "\"libsnappy_mb_s\":%.1f,\"inlet_mb_s\":%.1f,\"ratio\":%.3f}\n",
         n_pages, total_raw, total_z, (double)total_raw / best_lib / 1e6,
         (double)total_raw / best_own / 1e6, best_lib / best_own);
  for (size_t i = 0; i < n_pages; i++)
    free(pages[i].z);
  free(pages);
  free(out);
  free(ref);
  return 0;
}
