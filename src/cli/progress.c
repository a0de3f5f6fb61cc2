/*
 * Progress bars (progress.h). The library reports progress through the
 * table handle's callback (inlet_table_set_progress); this file only draws.
 */
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "log.h"

#define REDRAW_MS 100

static int64_t monotonic_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int32_t cli_terminal_width(int fd) {
  const char *env = getenv("COLUMNS");
  char *end;
  long n = env && *env ? strtol(env, &end, 10) : 0;
  if (n > 0 && n < 100000 && *end == '\0') return (int32_t)n;
  struct winsize ws;
  if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

void cli_progress_init(cli_progress *p, bool enabled) {
  memset(p, 0, sizeof *p);
  const char *force = getenv("INLET_FORCE_TTY");
  bool tty = isatty(2) || (force && strcmp(force, "1") == 0);
  p->on = enabled && tty && cli_log_get_format() == CLI_LOG_TEXT;
}

/* An amount of @p unit: sizes with units, counts with thousands separators. */
static void amount(char *buf, size_t cap, const char *unit, int64_t n) {
  if (strcmp(unit, "bytes") == 0) {
    cli_format_bytes(buf, cap, n);
    return;
  }
  char digits[32];
  snprintf(digits, sizeof digits, "%lld", (long long)(n < 0 ? 0 : n));
  size_t len = strlen(digits), o = 0;
  for (size_t i = 0; i < len && o + 2 < cap; i++) {
    if (i > 0 && (len - i) % 3 == 0) buf[o++] = ',';
    buf[o++] = digits[i];
  }
  buf[o] = '\0';
}

static void duration(char *buf, size_t cap, double secs) {
  long long s = (long long)(secs + 0.5);
  if (s >= 3600)
    snprintf(buf, cap, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
  else
    snprintf(buf, cap, "%lld:%02lld", s / 60, s % 60);
}

void cli_progress_format(char *buf, size_t cap, const inlet_progress *ev, int64_t elapsed_ms,
                         int64_t done_in_phase, int32_t width) {
  const char *unit = ev->unit ? ev->unit : "";
  bool bytes = strcmp(unit, "bytes") == 0;
  bool known = ev->total >= 0;
  int64_t done = ev->done < 0 ? 0 : ev->done;
  if (known && done > ev->total) done = ev->total;
  char head[80], counts[96], rate[48] = "", eta[32] = "", d[32], t[32];
  snprintf(head, sizeof head, "%s %s", ev->operation ? ev->operation : "",
           ev->phase ? ev->phase : "");
  amount(d, sizeof d, unit, done);
  if (known) {
    amount(t, sizeof t, unit, ev->total);
    snprintf(counts, sizeof counts, "%s / %s%s%s", d, t, bytes ? "" : " ", bytes ? "" : unit);
  } else {
    snprintf(counts, sizeof counts, "%s%s%s", d, bytes ? "" : " ", bytes ? "" : unit);
  }
  if (elapsed_ms >= 200 && done_in_phase > 0) {
    double per_s = (double)done_in_phase * 1000.0 / (double)elapsed_ms;
    char r[32];
    amount(r, sizeof r, unit, (int64_t)per_s);
    snprintf(rate, sizeof rate, "  %s%s%s/s", r, bytes || !*unit ? "" : " ", bytes ? "" : unit);
    if (known && done < ev->total && per_s > 0) {
      char e[24];
      duration(e, sizeof e, (double)(ev->total - done) / per_s);
      snprintf(eta, sizeof eta, "  ETA %s", e);
    }
  }
  int pct = known ? (ev->total > 0 ? (int)(100.0 * (double)done / (double)ev->total) : 100) : -1;
  char tail[200];
  if (known)
    snprintf(tail, sizeof tail, " %3d%%  %s%s%s", pct, counts, rate, eta);
  else
    snprintf(tail, sizeof tail, "  %s%s", counts, rate);
  /* The bar takes what the line leaves, 10 to 40 cells; on a narrow
   * terminal it goes, then the tail is cut: a line that wraps cannot be
   * redrawn in place. */
  int32_t room = width - 1 - (int32_t)strlen(head) - (int32_t)strlen(tail) - 3;
  int32_t cells = room > 40 ? 40 : room;
  if (known && cells >= 10) {
    char bar[48];
    int32_t full =
        ev->total > 0 ? (int32_t)((double)cells * (double)done / (double)ev->total) : cells;
    for (int32_t i = 0; i < cells; i++)
      bar[i] = i < full ? '=' : (i == full ? '>' : ' ');
    bar[cells] = '\0';
    snprintf(buf, cap, "%s [%s]%s", head, bar, tail);
  } else {
    snprintf(buf, cap, "%s%s", head, tail);
  }
  size_t limit = width > 1 ? (size_t)width - 1 : 0;
  if (strlen(buf) > limit) buf[limit] = '\0'; /* ASCII only: bytes are columns */
}

void cli_progress_update(cli_progress *p, const inlet_progress *ev) {
  if (!p->on || !ev) return;
  int64_t now = monotonic_ms();
  bool new_phase =
      strncmp(p->operation, ev->operation ? ev->operation : "", sizeof p->operation - 1) != 0 ||
      strncmp(p->phase, ev->phase ? ev->phase : "", sizeof p->phase - 1) != 0;
  if (new_phase) {
    snprintf(p->operation, sizeof p->operation, "%s", ev->operation ? ev->operation : "");
    snprintf(p->phase, sizeof p->phase, "%s", ev->phase ? ev->phase : "");
    p->phase_start_ms = now;
    p->phase_start_done = ev->done;
  }
  bool finished = ev->total >= 0 && ev->done >= ev->total;
  if (!new_phase && p->shown &&
      (finished ? ev->done == p->last_done : now - p->last_draw_ms < REDRAW_MS))
    return; /* drawn already, or drawn a moment ago */
  char line[512];
  cli_progress_format(line, sizeof line, ev, now - p->phase_start_ms,
                      ev->done - p->phase_start_done, cli_terminal_width(2));
  fprintf(stderr, "\r\033[K%s", line);
  fflush(stderr);
  p->shown = true;
  p->last_draw_ms = now;
  p->last_done = ev->done;
}

void cli_progress_fn(void *ctx, const inlet_progress *ev) {
  cli_progress_update(ctx, ev);
}

void cli_progress_clear(cli_progress *p) {
  if (!p->on || !p->shown) return;
  fputs("\r\033[K", stderr);
  fflush(stderr);
  p->shown = false;
}
