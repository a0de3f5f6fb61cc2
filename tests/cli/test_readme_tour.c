/*
 * README's "five-minute tour", executed command by command (issue 19): the
 * block between the readme-tour markers is split into commands (a line, its
 * backslash continuations and any here-document), each run with bash in one
 * scratch directory with `inlet` on PATH and a private redis-server standing
 * in for localhost:6379. Every command must succeed, and the output a
 * `#   ` line under it quotes must be what it printed: the quoted text (up
 * to a trailing "   (explanation)") split at "..." gives pieces that must
 * appear in order; a quote without "..." must be the whole output.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "testutil.h"

typedef struct tour_cmd {
  char *text;   /* the command, continuation lines and here-document included */
  char *quoted; /* the "#   " lines after it, joined by '\n'; NULL if none */
  int line;     /* its first line in README.md */
} tour_cmd;

static char dir[4096];
static int port;

static int free_port(void) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t n = sizeof a;
  if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) < 0 ||
      getsockname(s, (struct sockaddr *)&a, &n) < 0) {
    if (s >= 0) close(s);
    return -1;
  }
  close(s);
  return ntohs(a.sin_port);
}

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("readme-tour"));
  port = free_port();
  if (port < 0) return -1;
  tu_result r;
  tu_sh(&r,
        "cd '%s' && redis-server --port %d --bind 127.0.0.1 --save '' --appendonly no "
        "--daemonize yes --pidfile '%s/redis.pid' --dir '%s' >/dev/null && for i in $(seq 100); "
        "do redis-cli -p %d ping >/dev/null 2>&1 && exit 0; sleep 0.05; done; exit 1",
        dir, port, dir, dir, port);
  int rc = r.status;
  if (rc) fprintf(stderr, "redis-server did not start: %s%s\n", r.out, r.err);
  tu_result_free(&r);
  return rc ? -1 : 0;
}

static int teardown(void **state) {
  (void)state;
  tu_result r;
  tu_sh(&r, "kill $(cat '%s/redis.pid') 2>/dev/null; sleep 0.1", dir);
  tu_result_free(&r);
  tu_rmtree(dir);
  return 0;
}

static char *dup_range(const char *s, size_t n) {
  char *p = malloc(n + 1);
  assert_non_null(p);
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

/* Appends @p s (n bytes) and a newline to *buf. */
static void append_line(char **buf, const char *s, size_t n) {
  size_t have = *buf ? strlen(*buf) : 0;
  char *p = realloc(*buf, have + n + 2);
  assert_non_null(p);
  memcpy(p + have, s, n);
  p[have + n] = '\n';
  p[have + n + 1] = '\0';
  *buf = p;
}

/* Splits the tour block into commands. Returns how many. */
static int parse_tour(const char *readme, tour_cmd *cmds, int cap) {
  const char *begin = strstr(readme, "<!-- readme-tour: begin -->");
  const char *end = strstr(readme, "<!-- readme-tour: end -->");
  assert_non_null(begin);
  assert_non_null(end);
  begin = strstr(begin, "```sh\n");
  assert_true(begin && begin < end);
  begin += 6;
  int line = 1;
  for (const char *p = readme; p < begin; p++)
    line += *p == '\n';
  int n = 0;
  const char *heredoc_end = NULL; /* the terminator word, while inside a here-document */
  size_t heredoc_len = 0;
  bool continued = false;
  for (const char *p = begin; p < end && strncmp(p, "```", 3) != 0; line++) {
    const char *nl = strchr(p, '\n');
    size_t len = (size_t)(nl - p);
    bool in_cmd = true; /* this line belongs to a command */
    if (heredoc_end) {
      append_line(&cmds[n - 1].text, p, len);
      if (len == heredoc_len && strncmp(p, heredoc_end, len) == 0) heredoc_end = NULL;
    } else if (continued) {
      append_line(&cmds[n - 1].text, p, len);
    } else if (len >= 4 && strncmp(p, "#   ", 4) == 0) {
      assert_true(n > 0);
      append_line(&cmds[n - 1].quoted, p + 4, len - 4);
      in_cmd = false;
    } else if (len == 0 || p[0] == '#') {
      in_cmd = false; /* a blank line or a comment */
    } else {
      assert_true(n < cap);
      cmds[n].text = NULL;
      cmds[n].quoted = NULL;
      cmds[n].line = line;
      append_line(&cmds[n].text, p, len);
      n++;
    }
    if (!heredoc_end && in_cmd) {
      continued = len && p[len - 1] == '\\';
      const char *h = memmem(p, len, "<<'", 3);
      if (h && !continued) {
        heredoc_end = h + 3;
        heredoc_len = strcspn(heredoc_end, "'");
      }
    }
    p = nl + 1;
  }
  return n;
}

/* The quote up to a trailing "   (explanation)" on each line, then checked
 * against @p out as described at the top. */
static void check_quote(const tour_cmd *c, const char *out) {
  char *q = strdup(c->quoted);
  /* Cut each line's "   (...)" remark. */
  char *w = q;
  for (char *l = q; *l;) {
    char *nl = strchr(l, '\n');
    size_t len = nl ? (size_t)(nl - l) : strlen(l);
    char *remark = NULL;
    for (char *s = l; s + 4 <= l + len; s++)
      if (strncmp(s, "   (", 4) == 0) {
        remark = s;
        break;
      }
    size_t keep = remark ? (size_t)(remark - l) : len;
    while (keep && l[keep - 1] == ' ')
      keep--;
    memmove(w, l, keep);
    w += keep;
    *w++ = '\n';
    l += len + (nl ? 1 : 0);
  }
  *w = '\0';
  if (!strstr(q, "...")) {
    if (strcmp(q, out) != 0)
      fail_msg("README.md:%d: `%s` printed\n%s\nbut the README quotes\n%s", c->line, c->text, out,
               q);
    free(q);
    return;
  }
  const char *at = out;
  for (char *piece = q; *piece;) {
    char *dots = strstr(piece, "...");
    size_t len = dots ? (size_t)(dots - piece) : strlen(piece);
    while (len && (piece[len - 1] == ' ' || piece[len - 1] == '\n'))
      len--;
    char *want = dup_range(piece, len);
    char *lead = want;
    while (*lead == ' ' || *lead == '\n')
      lead++;
    const char *found = *lead ? strstr(at, lead) : at;
    if (!found)
      fail_msg("README.md:%d: `%s` printed\n%s\nwithout \"%s\" (the README quotes\n%s)", c->line,
               c->text, out, lead, c->quoted);
    at = found + strlen(lead);
    free(want);
    if (!dots) break;
    piece = dots + 3;
  }
  free(q);
}

static void test_readme_tour__every_command_runs_and_prints_what_is_quoted(void **state) {
  (void)state;
  char path[4200];
  snprintf(path, sizeof path, "%s/README.md", INLET_SOURCE_DIR);
  char *readme = tu_read_file(path, NULL);
  assert_non_null(readme);
  tour_cmd cmds[64];
  int n = parse_tour(readme, cmds, 64);
  assert_true(n >= 15); /* the tour is not lost */
  char bindir[4200];
  snprintf(bindir, sizeof bindir, "%s", INLET_BIN);
  *strrchr(bindir, '/') = '\0';
  int quoted = 0;
  for (int i = 0; i < n; i++) {
    /* The private Redis server stands in for localhost:6379. */
    char script[8192];
    char *cmd = cmds[i].text;
    snprintf(script, sizeof script,
             "redis-cli() { command redis-cli -p %d \"$@\"; }\n"
             "PATH='%s':$PATH\n",
             port, bindir);
    size_t used = strlen(script);
    for (const char *s = cmd; *s && used + 16 < sizeof script;) {
      if (strncmp(s, "localhost:6379", 14) == 0) {
        used += (size_t)snprintf(script + used, sizeof script - used, "127.0.0.1:%d", port);
        s += 14;
      } else {
        script[used++] = *s++;
      }
    }
    script[used] = '\0';
    char sp[4300];
    snprintf(sp, sizeof sp, "%s/step.sh", dir);
    assert_int_equal(tu_write_file(sp, script, strlen(script)), 0);
    tu_result r;
    tu_sh(&r, "cd '%s' && bash step.sh 2>&1", dir);
    if (r.status != 0)
      fail_msg("README.md:%d: `%s` exited %d:\n%s", cmds[i].line, cmd, r.status, r.out);
    if (cmds[i].quoted) {
      check_quote(&cmds[i], r.out);
      quoted++;
    }
    tu_result_free(&r);
  }
  assert_true(quoted >= 3);
  for (int i = 0; i < n; i++) {
    free(cmds[i].text);
    free(cmds[i].quoted);
  }
  free(readme);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(
          test_readme_tour__every_command_runs_and_prints_what_is_quoted, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
