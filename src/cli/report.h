/*
 * The table health report of `inlet report` (cmd_report.c): one
 * self-contained HTML page (inline CSS and SVG, no script, no network) drawn
 * from the log alone — one snapshot's live files, and describe's numbers of
 * it (inlet_snapshot_describe), whose one read of the commits also streams
 * a summary of each to the report. Every chart is an
 * SVG with a title and a description plus a real table of the numbers
 * behind it; every mark of a chart carries class "mark", so tests and
 * people can count them. Charts aggregate: at most REPORT_MAX_BUCKETS bars
 * or points each, whatever the length of the log.
 *
 * Memory: the snapshot's (per live file), plus about 100 bytes per commit
 * for the time charts (whose buckets need the whole time range); never a
 * commit's actions beyond the one being read.
 */
#ifndef INLET_CLI_REPORT_H
#define INLET_CLI_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "inlet/inlet.h"

/* Bars or points per time chart; a log with fewer commits gets one per commit. */
#define REPORT_MAX_BUCKETS 120
/* Partitions drawn (the largest by bytes); the rest are summed into one "other" bar. */
#define REPORT_MAX_PARTITIONS 50
/* Compactions drawn (the newest); all are counted in the summary. */
#define REPORT_MAX_COMPACTIONS 60

/*
 * Writes the report of @p table's latest version to @p out. @p location
 * names the table in the page; @p now_ms is the time the time-travel window
 * is judged at (a vacuum run now with the table's retention).
 * @return 0 or a negative INLET_E* code with @p err filled.
 */
int report_write(FILE *out, inlet_table *table, const char *location, int64_t now_ms,
                 inlet_error *err);

#endif /* INLET_CLI_REPORT_H */
