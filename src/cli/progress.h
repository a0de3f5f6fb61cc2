/*
 * Progress bars on a terminal (issue 19): long compactions, vacuums,
 * checkpoints, conversions and `ingest --once` draw one line on stderr,
 * redrawn in place at most ten times a second, with the rate and, where the
 * total is known, a bar, the percentage and an ETA. Never on a pipe, with
 * --quiet or --json, or with JSON logs; the line is erased when the work ends
 * or before any other output.
 */
#ifndef INLET_CLI_PROGRESS_H
#define INLET_CLI_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inlet/common.h"

typedef struct cli_progress {
  bool on;                  /* drawing at all */
  bool shown;               /* a line is on the screen */
  int64_t last_draw_ms;     /* monotonic */
  int64_t last_done;        /* done of the line drawn */
  int64_t phase_start_ms;   /* when the current phase was first reported */
  int64_t phase_start_done; /* its done then */
  char operation[32], phase[32];
} cli_progress;

/* Draws only when @p enabled (not --quiet/--json), stderr is a terminal (or
 * INLET_FORCE_TTY=1, for tests) and logs are text. */
void cli_progress_init(cli_progress *p, bool enabled);
/* Redraws for @p ev when 100 ms have passed, the phase changed or it is done. */
void cli_progress_update(cli_progress *p, const inlet_progress *ev);
/* inlet_progress_fn over a cli_progress (ctx). */
void cli_progress_fn(void *ctx, const inlet_progress *ev);
/* Erases the line (before other output, and at the end); the next update
 * draws it again. */
void cli_progress_clear(cli_progress *p);

/* The text of one progress line for @p ev (no control characters), at most
 * @p width - 1 display columns: "compact rewriting [=====>    ]  45%  12 MiB /
 * 27 MiB  8.1 MiB/s  ETA 0:02". @p elapsed_ms and @p done_in_phase give the
 * rate (omitted when elapsed_ms < 200). Exposed for tests. */
void cli_progress_format(char *buf, size_t cap, const inlet_progress *ev, int64_t elapsed_ms,
                         int64_t done_in_phase, int32_t width);

/* The width of the terminal on @p fd: COLUMNS when set to a number, else the
 * terminal's, else 80. */
int32_t cli_terminal_width(int fd);

#endif /* INLET_CLI_PROGRESS_H */
