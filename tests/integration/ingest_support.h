/*
 * Helpers shared by the ingest integration tests (header-only, static):
 * spawning `inlet ingest` as a child process, killing it, and checking a
 * table holds every event exactly once (count, distinct ids, checksum).
 */
#ifndef INLET_TEST_INGEST_SUPPORT_H
#define INLET_TEST_INGEST_SUPPORT_H

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "inlet/inlet.h"

/* Starts INLET_BIN with args (NULL-terminated, argv[0] excluded), output to
 * /dev/null (or to @p out_path). */
static inline pid_t ing_spawn(const char *out_path, const char *const *args) {
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open(out_path ? out_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    int in = open("/dev/null", O_RDONLY);
    if (in >= 0) dup2(in, 0);
    const char *argv[40];
    int n = 0;
    argv[n++] = INLET_BIN;
    for (; args[n - 1] && n < 39; n++)
      argv[n] = args[n - 1];
    argv[n] = NULL;
    execv(INLET_BIN, (char *const *)argv);
    _exit(127);
  }
  return pid;
}

static inline int ing_wait(pid_t pid) {
  int st = 0;
  while (waitpid(pid, &st, 0) < 0) {
  }
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  return 128 + WTERMSIG(st);
}

static inline void ing_sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* Kills @p pid with SIGKILL after @p ms unless it exits first. Returns true
 * when the kill landed on a running process. */
static inline bool ing_kill_after(pid_t pid, long ms) {
  for (long t = 0; t < ms; t += 5) {
    int st;
    pid_t r = waitpid(pid, &st, WNOHANG);
    if (r == pid) return false;
    ing_sleep_ms(5);
  }
  kill(pid, SIGKILL);
  ing_wait(pid);
  return true;
}

typedef struct ing_check {
  int64_t rows;
  int64_t distinct;
  uint64_t checksum; /* sum over rows of mix(id, v) */
  int64_t dups;
} ing_check;

static inline uint64_t ing_mix(int64_t id, int64_t v) {
  uint64_t x = (uint64_t)id * 0x9E3779B97F4A7C15ULL ^ (uint64_t)v * 0xC2B2AE3D27D4EB4FULL;
  x ^= x >> 29;
  return x * 0xBF58476D1CE4E5B9ULL;
}

/* Scans @p path: columns "id" (long) and "v" (long); ids in [0, max_id). */
static inline void ing_check_table(ing_check *c, const char *path, int64_t max_id) {
  memset(c, 0, sizeof *c);
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  assert_int_equal(inlet_table_open(&t, path, &err), 0);
  inlet_snapshot *s = NULL;
  assert_int_equal(inlet_table_snapshot(&s, t, &err), 0);
  int ci = inlet_schema_find(inlet_snapshot_schema(s), "id");
  int vi = inlet_schema_find(inlet_snapshot_schema(s), "v");
  assert_true(ci >= 0 && vi >= 0);
  uint8_t *seen = calloc((size_t)max_id / 8 + 1, 1);
  inlet_table_scan *sc = NULL;
  assert_int_equal(inlet_table_scan_open(&sc, s, &err), 0);
  inlet_batch b;
  memset(&b, 0, sizeof b);
  int rc;
  while ((rc = inlet_table_scan_next(sc, &b, &err)) == 1) {
    const int64_t *ids = (const int64_t *)b.columns[ci].values;
    const int64_t *vs = (const int64_t *)b.columns[vi].values;
    for (int64_t r = 0; r < b.num_rows; r++) {
      int64_t id = ids[r];
      assert_true(id >= 0 && id < max_id);
      c->rows++;
      c->checksum += ing_mix(id, vs[r]);
      if (seen[id / 8] & (1u << (id % 8)))
        c->dups++;
      else {
        seen[id / 8] |= (uint8_t)(1u << (id % 8));
        c->distinct++;
      }
    }
  }
  if (rc < 0) fail_msg("scan failed: %s", inlet_errmsg(&err));
  inlet_batch_reset(&b);
  inlet_table_scan_free(sc);
  inlet_snapshot_free(s);
  inlet_table_free(t);
  free(seen);
}

/* Counts the lines of every file under @p dir (dead letters). */
static inline int64_t ing_count_lines(const char *dir) {
  tu_result r;
  tu_sh(&r, "cat %s/*/*.ndjson 2>/dev/null | wc -l", dir);
  int64_t n = r.out ? strtoll(r.out, NULL, 10) : -1;
  tu_result_free(&r);
  return n;
}

static inline void ing_create_table(const char *path, const char *ddl, const char *extra) {
  tu_result r;
  tu_sh(&r, "'%s' create '%s' --schema '%s' %s", INLET_BIN, path, ddl, extra ? extra : "");
  if (r.status != 0) fail_msg("create failed: %s", r.err);
  tu_result_free(&r);
}

#endif
