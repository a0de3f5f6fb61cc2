/*
 * Test helpers (see testutil.h).
 */
#include "testutil.h"

#include "delta_rules.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The scratch directories this process made, checked once more at exit in
 * case a test left one behind (tu_rmtree checks the others). */
static char **g_dirs;
static size_t g_n_dirs;
static pid_t g_owner;

/* Runs the Delta rules over every table below @p dir; prints the findings.
 * Returns the number of failing violations. */
static int check_tables(const char *dir) {
  tu_rules_report rep;
  memset(&rep, 0, sizeof rep);
  int bad = tu_rules_check_tree(dir, &rep);
  if (rep.text)
    fprintf(stderr, "Delta protocol rules (tests/support/delta_rules.h) below %s:\n%s", dir,
            rep.text);
  tu_rules_report_free(&rep);
  return bad;
}

static void check_leftovers(void) {
  if (getpid() != g_owner) return; /* a forked child exiting */
  int bad = 0;
  for (size_t i = 0; i < g_n_dirs; i++) {
    struct stat st;
    if (stat(g_dirs[i], &st) == 0) bad += check_tables(g_dirs[i]);
    free(g_dirs[i]);
  }
  free(g_dirs);
  g_dirs = NULL;
  g_n_dirs = 0;
  if (bad) {
    fprintf(stderr, "%d Delta protocol rule violation(s) in tables this test left behind\n", bad);
    fflush(stderr);
    _exit(1);
  }
}

char *tu_mkdtemp(const char *tag) {
  static char path[4096];
  char base[4096];
  snprintf(base, sizeof base, "%s/test-scratch", INLET_BUILD_DIR);
  mkdir(base, 0755);
  snprintf(path, sizeof path, "%s/%s-XXXXXX", base, tag ? tag : "t");
  if (!mkdtemp(path)) return NULL;
  if (!g_owner) {
    g_owner = getpid();
    atexit(check_leftovers);
  }
  char **d = realloc(g_dirs, (g_n_dirs + 1) * sizeof *g_dirs);
  if (d) {
    g_dirs = d;
    g_dirs[g_n_dirs] = strdup(path);
    if (g_dirs[g_n_dirs]) g_n_dirs++;
  }
  return path;
}

void tu_rmtree(const char *path) {
  int bad = check_tables(path);
  tu_rules_forget(path);
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
  if (system(cmd) != 0) fprintf(stderr, "tu_rmtree: could not remove %s\n", path);
  if (bad)
    fail_msg("%d Delta protocol rule violation(s) in the tables below %s (listed above)", bad,
             path);
}

static void append(char **buf, size_t *len, size_t *cap, const char *p, size_t n) {
  if (*len + n + 1 > *cap) {
    size_t nc = *cap ? *cap * 2 : 4096;
    while (nc < *len + n + 1)
      nc *= 2;
    *buf = realloc(*buf, nc);
    *cap = nc;
  }
  memcpy(*buf + *len, p, n);
  *len += n;
  (*buf)[*len] = '\0';
}

int tu_run(tu_result *res, const char *stdin_text, char *const argv[]) {
  memset(res, 0, sizeof *res);
  int in[2], out[2], err[2];
  if (pipe(in) || pipe(out) || pipe(err)) return -1;
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    dup2(err[1], 2);
    close(in[0]);
    close(in[1]);
    close(out[0]);
    close(out[1]);
    close(err[0]);
    close(err[1]);
    execvp(argv[0], argv);
    fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  close(err[1]);
  size_t in_len = stdin_text ? strlen(stdin_text) : 0, in_off = 0;
  if (in_len == 0) {
    close(in[1]);
    in[1] = -1;
  } else
    fcntl(in[1], F_SETFL, O_NONBLOCK);
  size_t ocap = 0, ecap = 0;
  append(&res->out, &res->out_len, &ocap, "", 0);
  append(&res->err, &res->err_len, &ecap, "", 0);
  int open_fds = 2;
  char buf[65536];
  while (open_fds > 0 || in[1] >= 0) {
    struct pollfd p[3];
    int np = 0;
    if (out[0] >= 0) p[np++] = (struct pollfd){out[0], POLLIN, 0};
    if (err[0] >= 0) p[np++] = (struct pollfd){err[0], POLLIN, 0};
    if (in[1] >= 0) p[np++] = (struct pollfd){in[1], POLLOUT, 0};
    if (np == 0) break;
    if (poll(p, (nfds_t)np, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < np; i++) {
      if (!p[i].revents) continue;
      if (p[i].fd == in[1]) {
        ssize_t w = write(in[1], stdin_text + in_off, in_len - in_off);
        if (w > 0) in_off += (size_t)w;
        if (w < 0 && errno != EAGAIN) in_off = in_len;
        if (in_off >= in_len) {
          close(in[1]);
          in[1] = -1;
        }
        continue;
      }
      ssize_t r = read(p[i].fd, buf, sizeof buf);
      if (r <= 0) {
        if (p[i].fd == out[0])
          out[0] = -1;
        else
          err[0] = -1;
        close(p[i].fd);
        open_fds--;
        continue;
      }
      if (p[i].fd == out[0])
        append(&res->out, &res->out_len, &ocap, buf, (size_t)r);
      else
        append(&res->err, &res->err_len, &ecap, buf, (size_t)r);
    }
  }
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  res->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return 0;
}

int tu_sh(tu_result *res, const char *fmt, ...) {
  char *cmd = NULL;
  va_list ap;
  va_start(ap, fmt);
  if (vasprintf(&cmd, fmt, ap) < 0) cmd = NULL;
  va_end(ap);
  if (!cmd) return -1;
  char *argv[] = {"/bin/sh", "-c", cmd, NULL};
  int rc = tu_run(res, NULL, argv);
  free(cmd);
  return rc;
}

/* One shard of tu_run_sharded: takes test indices from @p queue (4 bytes
 * each, all written before the shards started, so a read gets a whole one)
 * until it is empty, and runs each as a group of one. */
static int run_shard(const char *group, const struct CMUnitTest *tests, size_t n, int queue) {
  int failed = 0;
  uint32_t i;
  while (read(queue, &i, sizeof i) == (ssize_t)sizeof i) {
    if (i >= n) break;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    failed += _cmocka_run_group_tests(group, &tests[i], 1, NULL, NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("[ TOOK     ] %s: %.1f s\n", tests[i].name,
           (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
  }
  return failed;
}

int tu_run_sharded(const char *group, const struct CMUnitTest *tests, size_t n, int shards) {
  const char *env = getenv("INLET_TEST_SHARDS");
  if (env && *env) shards = atoi(env);
  if (shards > (int)n) shards = (int)n;
  if (shards <= 1) return _cmocka_run_group_tests(group, tests, n, NULL, NULL);
  int queue[2];
  if (pipe(queue) < 0) return (int)n;
  for (uint32_t i = 0; i < n; i++)
    if (write(queue[1], &i, sizeof i) != (ssize_t)sizeof i) return (int)n;
  close(queue[1]);
  pid_t pids[64];
  FILE *outs[64];
  if (shards > 64) shards = 64;
  fflush(stdout);
  fflush(stderr);
  int started = 0;
  for (int s = 0; s < shards; s++) {
    outs[s] = tmpfile();
    if (!outs[s]) break;
    pids[s] = fork();
    if (pids[s] < 0) {
      fclose(outs[s]);
      break; /* the shards started take every test */
    }
    started++;
    if (pids[s] == 0) {
      dup2(fileno(outs[s]), 1);
      dup2(fileno(outs[s]), 2);
      setvbuf(stdout, NULL, _IOLBF, 0);
      int failed = run_shard(group, tests, n, queue[0]);
      fflush(stdout);
      fflush(stderr);
      /* exit, not _exit: LeakSanitizer and the scratch checks run at exit. */
      exit(failed > 250 ? 250 : failed);
    }
  }
  if (started == 0) { /* no child: this process takes them all */
    int failed = run_shard(group, tests, n, queue[0]);
    close(queue[0]);
    return failed;
  }
  close(queue[0]);
  shards = started;
  int failed = 0;
  for (int s = 0; s < shards; s++) {
    int st;
    while (waitpid(pids[s], &st, 0) < 0 && errno == EINTR) {
    }
    printf("[ SHARD %d/%d ]\n", s + 1, shards);
    fflush(stdout);
    rewind(outs[s]);
    char buf[65536];
    size_t r;
    while ((r = fread(buf, 1, sizeof buf, outs[s])) > 0)
      fwrite(buf, 1, r, stdout);
    fclose(outs[s]);
    if (WIFEXITED(st)) {
      failed += WEXITSTATUS(st);
    } else {
      printf("[ SHARD %d/%d ] killed by signal %d\n", s + 1, shards, WTERMSIG(st));
      failed++;
    }
  }
  fflush(stdout);
  return failed;
}

void tu_result_free(tu_result *res) {
  free(res->out);
  free(res->err);
  memset(res, 0, sizeof *res);
}

char *tu_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *buf = NULL;
  size_t n = 0, cap = 0;
  char tmp[65536];
  size_t r;
  append(&buf, &n, &cap, "", 0);
  while ((r = fread(tmp, 1, sizeof tmp, f)) > 0)
    append(&buf, &n, &cap, tmp, r);
  fclose(f);
  if (len) *len = n;
  return buf;
}

int tu_write_file(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  size_t w = fwrite(data, 1, len, f);
  return (fclose(f) == 0 && w == len) ? 0 : -1;
}

bool tu_tmux_wait(const char *sock, const char *marker, tu_result *screen) {
  bool done = false;
  for (int i = 0; i < 600 && !done; i++) {
    tu_sh(screen, "tmux -L %s capture-pane -p", sock);
    done = screen->status == 0 && strstr(screen->out, marker);
    if (!done) {
      tu_result_free(screen);
      usleep(50 * 1000);
    }
  }
  if (!done) memset(screen, 0, sizeof *screen);
  tu_result kill;
  tu_sh(&kill, "tmux -L %s kill-server", sock);
  tu_result_free(&kill);
  return done;
}
