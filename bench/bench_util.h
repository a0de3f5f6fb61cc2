/*
 * Helpers shared by the benchmarks that time commits (delta_bench.c,
 * growth_bench.c): clocks, percentiles, and the floor of one commit on this
 * file system (temp write + fsync + link + directory fsync, what inlet's
 * put-if-absent publication costs at minimum).
 */
#ifndef INLET_BENCH_UTIL_H
#define INLET_BENCH_UTIL_H

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static inline double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* This process's CPU time (user + system), ms. */
static inline double cpu_ms(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
         (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

static inline int bench_cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Percentile of @p v (sorts it in place). */
static inline double pct(double *v, int n, double p) {
  if (n <= 0) return 0;
  qsort(v, (size_t)n, sizeof *v, bench_cmp_d);
  int i = (int)(p * (n - 1) + 0.5);
  return v[i];
}

static inline double mean(const double *v, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += v[i];
  return n ? s / n : 0;
}

/* One floor sample in directory @p dfd: a temp file of a one-file
 * append's commit size written, fsynced, linked to a fresh dot name
 * (ignored by Delta readers) and the directory fsynced. -1 on failure. */
static inline double floor_once(int dfd, int i) {
  char body[620], fin[64];
  memset(body, 'x', sizeof body);
  snprintf(fin, sizeof fin, ".floor-%06d.json", i);
  double t0 = now_ms();
  int fd = openat(dfd, ".floor-tmp", O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) return -1;
  bool ok = write(fd, body, sizeof body) == (ssize_t)sizeof body && fsync(fd) == 0;
  close(fd);
  if (!ok || linkat(dfd, ".floor-tmp", dfd, fin, 0) != 0 || unlinkat(dfd, ".floor-tmp", 0) != 0 ||
      fsync(dfd) != 0)
    return -1;
  return now_ms() - t0;
}

/* Removes the floor samples 0..n-1 of @p dfd. */
static inline void floor_cleanup(int dfd, int n) {
  for (int i = 0; i < n; i++) {
    char fin[64];
    snprintf(fin, sizeof fin, ".floor-%06d.json", i);
    unlinkat(dfd, fin, 0);
  }
  fsync(dfd);
}

#endif /* INLET_BENCH_UTIL_H */
