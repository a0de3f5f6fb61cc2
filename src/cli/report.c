/*
 * The HTML table health report (report.h). Two reads of the log, each
 * through the public API: one snapshot (the live files, for the size
 * histogram and the partitions) and inlet_snapshot_describe of it (the
 * numbers of the summary, schema, properties, protocol: the same as
 * `inlet describe --json`), whose walk over the commits hands each one's
 * summary to collect_cb, kept as one small record for the time charts.
 * Then the page is written top to bottom.
 *
 * Every string that comes from the table (location, column names and
 * types, property keys and values, partition values, operations) goes
 * through html_text(): the page must stay inert whatever a table holds.
 * The page carries a Content-Security-Policy that allows only its own
 * inline style, so even a mistake here could neither run a script nor
 * make a network request.
 */
#include "report.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "cli.h"

/* ---- the per-commit records -------------------------------------------------------- */

enum { RC_COMPACTION = 1, RC_INGEST = 2, RC_WATERMARK = 4 };

typedef struct rcommit {
  int64_t version, ts;
  int64_t rows, bytes; /* added; rows -1 when an add lacks numRecords */
  int64_t files_added, files_removed, bytes_removed;
  int64_t source, late; /* ingest metrics numSourceRecords, numLateRows */
  int64_t wm_us;        /* ingest metric watermark, µs */
  int64_t oldest_del;   /* oldest remove.deletionTimestamp, -1 none */
  unsigned flags;       /* RC_* */
} rcommit;

typedef struct collect {
  rcommit *c; /* owned */
  size_t n, cap;
} collect;

/* An operation metric as Delta writes them (a string of digits), or -1. */
static int64_t metric_int(json_t *m, const char *key) {
  json_t *v = json_object_get(m, key);
  if (json_is_integer(v)) return (int64_t)json_integer_value(v);
  const char *s = json_string_value(v);
  if (!s || !*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 18) return -1;
  return (int64_t)strtoll(s, NULL, 10);
}

static int collect_cb(void *ctx, const inlet_commit_summary *s, inlet_error *err) {
  collect *k = ctx;
  if (k->n == k->cap) {
    size_t nc = k->cap ? k->cap * 2 : 256;
    rcommit *p = realloc(k->c, nc * sizeof *p);
    if (!p) {
      err->code = INLET_ENOMEM;
      snprintf(err->message, sizeof err->message, "out of memory reading commits for the report");
      return INLET_ENOMEM;
    }
    k->c = p;
    k->cap = nc;
  }
  rcommit *r = &k->c[k->n++];
  memset(r, 0, sizeof *r);
  r->version = s->version;
  r->ts = s->timestamp_ms;
  r->rows = s->rows_added;
  r->bytes = s->bytes_added;
  r->files_added = s->files_added;
  r->files_removed = s->files_removed;
  r->bytes_removed = s->bytes_removed;
  r->oldest_del = s->oldest_deletion_ms;
  r->source = r->late = -1;
  if (s->compaction) r->flags |= RC_COMPACTION;
  if (s->metrics_json) {
    json_t *m = json_loads(s->metrics_json, 0, NULL);
    int64_t src = metric_int(m, "numSourceRecords");
    if (src >= 0) {
      r->flags |= RC_INGEST;
      r->source = src;
      r->late = metric_int(m, "numLateRows");
      if (r->late < 0) r->late = 0;
      const char *wm = json_string_value(json_object_get(m, "watermark"));
      inlet_error e = INLET_ERROR_INIT;
      if (wm && *wm && inlet_timestamp_parse(&r->wm_us, wm, &e) == 0) r->flags |= RC_WATERMARK;
    }
    json_decref(m);
  }
  return 0;
}

/* ---- output helpers ------------------------------------------------------------------ */

/* Table-supplied text, escaped for element content and quoted attributes. */
static void html_text(FILE *o, const char *s) {
  if (!s) return;
  for (; *s; s++) {
    switch (*s) {
    case '&': fputs("&amp;", o); break;
    case '<': fputs("&lt;", o); break;
    case '>': fputs("&gt;", o); break;
    case '"': fputs("&quot;", o); break;
    case '\'': fputs("&#39;", o); break;
    default: fputc(*s, o);
    }
  }
}

static const char *iso_time(char *buf, size_t cap, int64_t ms) {
  return cli_format_time(buf, cap, ms);
}

static const char *bytes_h(char *buf, size_t cap, int64_t b) {
  return cli_format_bytes(buf, cap, b);
}

/* The opening of a chart: an SVG image whose title and description name it
 * for screen readers, and a frame. */
#define W 720
#define H 230
#define ML 70 /* left margin: the y labels */
#define MR 14
#define MT 14
#define MB 34 /* bottom margin: the x labels */
#define PW (W - ML - MR)
#define PH (H - MT - MB)

static void svg_open(FILE *o, const char *id, const char *title, const char *desc) {
  fprintf(o,
          "<figure><svg id=\"%s\" class=\"chart\" viewBox=\"0 0 %d %d\" role=\"img\" "
          "aria-labelledby=\"%s-t %s-d\" preserveAspectRatio=\"xMinYMin meet\">\n"
          "<title id=\"%s-t\">",
          id, W, H, id, id, id);
  html_text(o, title);
  fprintf(o, "</title><desc id=\"%s-d\">", id);
  html_text(o, desc);
  fprintf(o,
          "</desc>\n<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>"
          "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n",
          ML, MT, ML, MT + PH, ML, MT + PH, ML + PW, MT + PH);
}

static void svg_close(FILE *o, const char *caption) {
  fputs("</svg><figcaption>", o);
  html_text(o, caption);
  fputs("</figcaption></figure>\n", o);
}

/* y axis labels: 0 and the maximum, already formatted. */
static void y_labels(FILE *o, const char *top) {
  fprintf(o, "<text class=\"lbl\" x=\"%d\" y=\"%d\" text-anchor=\"end\">", ML - 6, MT + 10);
  html_text(o, top);
  fprintf(o, "</text><text class=\"lbl\" x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>\n", ML - 6,
          MT + PH);
}

static void x_labels(FILE *o, const char *left, const char *right) {
  fprintf(o, "<text class=\"lbl\" x=\"%d\" y=\"%d\">", ML, H - 10);
  html_text(o, left);
  fprintf(o, "</text><text class=\"lbl\" x=\"%d\" y=\"%d\" text-anchor=\"end\">", ML + PW, H - 10);
  html_text(o, right);
  fputs("</text>\n", o);
}

/* One bar per value (n > 0), heights relative to the largest; each bar a
 * mark with its label and value as a tooltip. @p cls picks the colour. */
static void bars(FILE *o, int n, int slot, int slots, const double *vals, double vmax,
                 const char *const *tips, const char *cls) {
  double bw = (double)PW / (double)n;
  for (int i = 0; i < n; i++) {
    double v = vals[i] > 0 ? vals[i] : 0;
    double h = vmax > 0 ? v / vmax * PH : 0;
    double x = ML + bw * i + bw * 0.1 + bw * 0.8 * slot / slots;
    fprintf(o,
            "<rect class=\"mark %s\" x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\">"
            "<title>",
            cls, x, MT + PH - h, bw * 0.8 / slots, h);
    html_text(o, tips[i]);
    fputs("</title></rect>\n", o);
  }
}

static double dmax(const double *v, int n) {
  double m = 0;
  for (int i = 0; i < n; i++)
    if (v[i] > m) m = v[i];
  return m;
}

static void table_open(FILE *o, const char *id, const char *caption, const char *const *cols,
                       int n) {
  /* Long tables scroll on screen (never in print); the short ones never do. */
  bool full = strcmp(id, "summary") == 0 || strcmp(id, "table-timetravel") == 0;
  fprintf(o, "<div class=\"tw%s\"><table id=\"%s\"><caption>", full ? " full" : "", id);
  html_text(o, caption);
  fputs("</caption><thead><tr>", o);
  for (int i = 0; i < n; i++) {
    fputs("<th scope=\"col\">", o);
    html_text(o, cols[i]);
    fputs("</th>", o);
  }
  fputs("</tr></thead><tbody>\n", o);
}

static void table_close(FILE *o) {
  fputs("</tbody></table></div>\n", o);
}

/* ---- the page ------------------------------------------------------------------------ */

static const char css[] =
    ":root{color-scheme:light dark;--bg:#fff;--fg:#1b1f24;--mut:#57606a;--ln:#d0d7de;"
    "--a:#0969da;--b:#bf8700;--c:#cf222e;--card:#f6f8fa}"
    "@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--mut:#9198a1;"
    "--ln:#30363d;--a:#4493f8;--b:#d29922;--c:#f85149;--card:#161b22}}"
    "body{background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,sans-serif;"
    "margin:0 auto;max-width:960px;padding:1em 1.5em}"
    "h1{font-size:1.6em;margin:.2em 0}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid "
    "var(--ln)}"
    "p.mut,figcaption{color:var(--mut)}figure{margin:.5em 0}"
    "svg.chart{width:100%;height:auto;background:var(--card);border:1px solid var(--ln)}"
    ".axis{stroke:var(--mut);stroke-width:1}.lbl{fill:var(--mut);font-size:11px}"
    ".a{fill:var(--a)}.b{fill:var(--b)}.line{fill:none;stroke:var(--a);stroke-width:1.5}"
    "circle.mark{fill:var(--a)}.thr{stroke:var(--c);stroke-width:2;stroke-dasharray:4 3}"
    ".thrl{fill:var(--c);font-size:11px}"
    ".tw{max-height:30em;overflow:auto;margin:.5em 0 1em}.tw.full{max-height:none}"
    "table{border-collapse:collapse;font-variant-numeric:tabular-nums}"
    "caption{text-align:left;font-weight:600;padding:.3em 0}"
    "th,td{border:1px solid var(--ln);padding:.2em .5em;text-align:right}"
    "th[scope=row],td.t{text-align:left}code{word-break:break-all}"
    "@media print{:root{--bg:#fff;--fg:#000;--mut:#333;--card:#fff}body{max-width:none}"
    ".tw{max-height:none;overflow:visible}section{break-inside:avoid-page}"
    "figure{break-inside:avoid}}";

typedef struct ctx {
  FILE *o;
  inlet_table_description d;
  json_t *dj; /* owned describe JSON */
  rcommit *c; /* ascending version */
  size_t n;
  int64_t now_ms;
  int64_t retention_ms; /* -1 unknown (no snapshot) */
  inlet_snapshot *snap; /* owned, NULL when the snapshot cannot be loaded */
  char snap_error[INLET_ERROR_MESSAGE_SIZE];
} ctx;

static void section(FILE *o, const char *id, const char *title) {
  fprintf(o, "<section id=\"%s\"><h2>", id);
  html_text(o, title);
  fputs("</h2>\n", o);
}

static void summary(ctx *x) {
  FILE *o = x->o;
  char b[64];
  section(o, "s-summary", "Summary");
  static const char *const cols[] = {"measure", "value", "for people"};
  table_open(o, "summary", "The latest snapshot (as inlet describe --json)", cols, 3);
  struct {
    const char *key, *label;
    int64_t v;
    int kind; /* 0 count, 1 bytes, 2 time, 3 version */
  } rows[] = {
      {"version", "version", x->d.version, 3},
      {"commits", "commits", x->d.commits, 0},
      {"compactions", "compactions", x->d.compactions, 0},
      {"last_commit_timestamp", "last commit", x->d.last_commit_timestamp, 2},
      {"files", "live files", x->d.files, 0},
      {"bytes", "bytes", x->d.bytes, 1},
      {"rows", "rows", x->d.rows, 0},
      {"files_without_stats", "files without row counts", x->d.files_without_stats, 0},
      {"small_files", "small files", x->d.small_files, 0},
      {"small_file_bytes", "small-file threshold", x->d.small_file_bytes, 1},
      {"partitions", "partitions", x->d.partitions, 0},
      {"last_checkpoint", "last checkpoint", x->d.last_checkpoint, 3},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    fprintf(o, "<tr><th scope=\"row\">%s</th><td data-key=\"%s\">", rows[i].label, rows[i].key);
    if (rows[i].v < 0 && (strcmp(rows[i].key, "rows") == 0 || rows[i].kind == 3))
      fputs("null", o);
    else
      fprintf(o, "%lld", (long long)rows[i].v);
    fputs("</td><td class=\"t\">", o);
    if (rows[i].kind == 1)
      fputs(bytes_h(b, sizeof b, rows[i].v), o);
    else if (rows[i].kind == 2)
      fputs(iso_time(b, sizeof b, rows[i].v), o);
    else if (rows[i].kind == 3 && rows[i].v < 0)
      fputs("none", o);
    fputs("</td></tr>\n", o);
  }
  table_close(o);
  fputs("</section>\n", o);
}

/* The time buckets of the commit charts: min(commits, REPORT_MAX_BUCKETS)
 * equal spans from the first commit's time to the last's. */
typedef struct tbucket {
  int64_t start_ms, end_ms;
  int64_t commits, data_commits, rows, bytes, first_v, last_v; /* data: not compactions */
  bool rows_unknown;
} tbucket;

static int bucket_of(int64_t t, int64_t t0, int64_t span, int nb) {
  if (span <= 0) return 0;
  int b = (int)((double)(t - t0) / (double)span * nb);
  return b < 0 ? 0 : b >= nb ? nb - 1 : b;
}

static void time_charts(ctx *x) {
  FILE *o = x->o;
  char t1[64], t2[64], tip[256];
  if (x->n == 0) return;
  int nb = x->n < REPORT_MAX_BUCKETS ? (int)x->n : REPORT_MAX_BUCKETS;
  int64_t t0 = x->c[0].ts, tn = x->c[0].ts;
  for (size_t i = 0; i < x->n; i++) {
    if (x->c[i].ts < t0) t0 = x->c[i].ts;
    if (x->c[i].ts > tn) tn = x->c[i].ts;
  }
  int64_t span = tn - t0;
  tbucket *b = calloc((size_t)nb, sizeof *b);
  double *v = calloc((size_t)nb, sizeof *v);
  char(*tips)[160] = calloc((size_t)nb, sizeof *tips);
  const char **tp = calloc((size_t)nb, sizeof *tp);
  if (!b || !v || !tips || !tp) goto done;
  for (int i = 0; i < nb; i++) {
    b[i].start_ms = t0 + (int64_t)((double)span * i / nb);
    b[i].end_ms = t0 + (int64_t)((double)span * (i + 1) / nb);
    b[i].first_v = b[i].last_v = -1;
    tp[i] = tips[i];
  }
  for (size_t i = 0; i < x->n; i++) {
    tbucket *k = &b[bucket_of(x->c[i].ts, t0, span, nb)];
    k->commits++;
    if (k->first_v < 0 || x->c[i].version < k->first_v) k->first_v = x->c[i].version;
    if (x->c[i].version > k->last_v) k->last_v = x->c[i].version;
    /* A compaction rewrites rows already counted: its own section shows it. */
    if (x->c[i].flags & RC_COMPACTION) continue;
    k->data_commits++;
    if (x->c[i].rows < 0)
      k->rows_unknown = true;
    else
      k->rows += x->c[i].rows;
    k->bytes += x->c[i].bytes;
  }
  iso_time(t1, sizeof t1, t0);
  iso_time(t2, sizeof t2, tn);

  /* Version timeline: a point per bucket that holds commits, at its newest version. */
  section(o, "s-timeline", "Version timeline");
  int64_t vmax = x->c[x->n - 1].version;
  snprintf(tip, sizeof tip,
           "Newest version committed in each of %d time spans from %s to %s; %zu commits, "
           "versions %lld to %lld.",
           nb, t1, t2, x->n, (long long)x->c[0].version, (long long)vmax);
  svg_open(o, "chart-timeline", "Version timeline", tip);
  char top[32];
  snprintf(top, sizeof top, "v%lld", (long long)vmax);
  y_labels(o, top);
  x_labels(o, t1, t2);
  fputs("<polyline class=\"line\" points=\"", o);
  double bw = (double)PW / nb;
  for (int i = 0; i < nb; i++)
    if (b[i].commits)
      fprintf(o, "%.1f,%.1f ", ML + bw * (i + 0.5),
              MT + PH - (vmax > 0 ? (double)b[i].last_v / (double)vmax * PH : 0));
  fputs("\"/>\n", o);
  for (int i = 0; i < nb; i++) {
    if (!b[i].commits) continue;
    fprintf(o, "<circle class=\"mark\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\"><title>",
            ML + bw * (i + 0.5),
            MT + PH - (vmax > 0 ? (double)b[i].last_v / (double)vmax * PH : 0));
    fprintf(o, "%s: versions %lld to %lld", iso_time(t1, sizeof t1, b[i].start_ms),
            (long long)b[i].first_v, (long long)b[i].last_v);
    fputs("</title></circle>\n", o);
  }
  svg_close(o, tip);
  static const char *const tcols[] = {"from", "to", "commits", "first version", "last version"};
  table_open(o, "table-timeline", "Versions per time span", tcols, 5);
  for (int i = 0; i < nb; i++) {
    if (!b[i].commits) continue;
    fprintf(o,
            "<tr><td class=\"t\">%s</td><td class=\"t\">%s</td><td>%lld</td><td>%lld</td>"
            "<td>%lld</td></tr>\n",
            iso_time(t1, sizeof t1, b[i].start_ms), iso_time(t2, sizeof t2, b[i].end_ms),
            (long long)b[i].commits, (long long)b[i].first_v, (long long)b[i].last_v);
  }
  table_close(o);
  fputs("</section>\n", o);

  /* Commits over time, and rows and bytes per commit in each span. */
  section(o, "s-commits", "Commits over time");
  for (int i = 0; i < nb; i++) {
    v[i] = (double)b[i].commits;
    snprintf(tips[i], sizeof tips[i], "%s: %lld commits", iso_time(t1, sizeof t1, b[i].start_ms),
             (long long)b[i].commits);
  }
  snprintf(tip, sizeof tip, "Commits in each of %d equal time spans from %s to %s.", nb,
           iso_time(t1, sizeof t1, t0), iso_time(t2, sizeof t2, tn));
  svg_open(o, "chart-commits", "Commits over time", tip);
  snprintf(top, sizeof top, "%.0f", dmax(v, nb));
  y_labels(o, top);
  x_labels(o, t1, t2);
  bars(o, nb, 0, 1, v, dmax(v, nb), tp, "a");
  svg_close(o, tip);

  for (int i = 0; i < nb; i++) {
    v[i] =
        b[i].data_commits && !b[i].rows_unknown ? (double)b[i].rows / (double)b[i].data_commits : 0;
    snprintf(tips[i], sizeof tips[i], "%s: %.1f rows per commit",
             iso_time(t1, sizeof t1, b[i].start_ms), v[i]);
  }
  snprintf(tip, sizeof tip,
           "Rows added per commit (mean, compactions excluded) in each of %d time spans.", nb);
  svg_open(o, "chart-rows", "Rows per commit", tip);
  snprintf(top, sizeof top, "%.0f", dmax(v, nb));
  y_labels(o, top);
  x_labels(o, iso_time(t1, sizeof t1, t0), iso_time(t2, sizeof t2, tn));
  bars(o, nb, 0, 1, v, dmax(v, nb), tp, "a");
  svg_close(o, tip);

  for (int i = 0; i < nb; i++) {
    v[i] = b[i].data_commits ? (double)b[i].bytes / (double)b[i].data_commits : 0;
    snprintf(tips[i], sizeof tips[i], "%s: %s per commit", iso_time(t1, sizeof t1, b[i].start_ms),
             bytes_h(t2, sizeof t2, (int64_t)v[i]));
  }
  snprintf(tip, sizeof tip,
           "Bytes added per commit (mean, compactions excluded) in each of %d time spans.", nb);
  svg_open(o, "chart-bytes", "Bytes per commit", tip);
  y_labels(o, bytes_h(top, sizeof top, (int64_t)dmax(v, nb)));
  x_labels(o, iso_time(t1, sizeof t1, t0), iso_time(t2, sizeof t2, tn));
  bars(o, nb, 0, 1, v, dmax(v, nb), tp, "b");
  svg_close(o, tip);

  static const char *const ccols[] = {"from",        "commits",         "rows added",
                                      "bytes added", "rows per commit", "bytes per commit"};
  table_open(o, "table-commits", "Commits, rows and bytes per time span", ccols, 6);
  for (int i = 0; i < nb; i++) {
    fprintf(o, "<tr><td class=\"t\">%s</td><td>%lld</td>", iso_time(t1, sizeof t1, b[i].start_ms),
            (long long)b[i].commits);
    if (b[i].rows_unknown)
      fputs("<td>unknown</td>", o);
    else
      fprintf(o, "<td>%lld</td>", (long long)b[i].rows);
    fprintf(o, "<td>%lld</td>", (long long)b[i].bytes);
    if (b[i].rows_unknown || !b[i].data_commits)
      fputs("<td>-</td>", o);
    else
      fprintf(o, "<td>%.1f</td>", (double)b[i].rows / (double)b[i].data_commits);
    if (!b[i].data_commits)
      fputs("<td>-</td>", o);
    else
      fprintf(o, "<td>%.0f</td>", (double)b[i].bytes / (double)b[i].data_commits);
    fputs("</tr>\n", o);
  }
  table_close(o);
  fputs("</section>\n", o);
done:
  free(b);
  free(v);
  free(tips);
  free(tp);
}

/* File sizes: a bar per power of two from the smallest file's to the
 * largest's (bin k holds sizes in [2^k, 2^(k+1)); empty files in bin 0). */
static int size_bin(int64_t size) {
  int k = 0;
  while (size > 1) {
    size >>= 1;
    k++;
  }
  return k;
}

static void size_chart(ctx *x) {
  FILE *o = x->o;
  section(o, "s-sizes", "File sizes");
  int64_t n = x->snap ? inlet_snapshot_num_files(x->snap) : 0;
  if (n == 0) {
    fprintf(o, "<p class=\"mut\">%s</p></section>\n",
            x->snap ? "No live files." : "The live files could not be read.");
    return;
  }
  int64_t files[64] = {0}, bytes[64] = {0};
  int lo = 63, hi = 0;
  for (int64_t i = 0; i < n; i++) {
    inlet_file_info f;
    inlet_snapshot_file(x->snap, i, &f);
    int k = size_bin(f.size);
    files[k]++;
    bytes[k] += f.size;
    if (k < lo) lo = k;
    if (k > hi) hi = k;
  }
  int nb = hi - lo + 1;
  double v[64];
  char tips[64][128], a[32], c[32], tip[512];
  const char *tp[64];
  for (int i = 0; i < nb; i++) {
    v[i] = (double)files[lo + i];
    snprintf(tips[i], sizeof tips[i], "%s to %s: %lld files",
             bytes_h(a, sizeof a, (int64_t)1 << (lo + i)),
             bytes_h(c, sizeof c, (int64_t)1 << (lo + i + 1)), (long long)files[lo + i]);
    tp[i] = tips[i];
  }
  char thrs[32];
  bytes_h(thrs, sizeof thrs, x->d.small_file_bytes);
  snprintf(tip, sizeof tip,
           "Live files by size, one bar per power of two from %s to %s; %lld of %lld files are "
           "below the small-file threshold of %s (dashed line).",
           bytes_h(a, sizeof a, (int64_t)1 << lo), bytes_h(c, sizeof c, (int64_t)1 << (hi + 1)),
           (long long)x->d.small_files, (long long)n, thrs);
  svg_open(o, "chart-sizes", "File-size histogram", tip);
  char top[32];
  snprintf(top, sizeof top, "%.0f", dmax(v, nb));
  y_labels(o, top);
  x_labels(o, bytes_h(a, sizeof a, (int64_t)1 << lo), bytes_h(c, sizeof c, (int64_t)1 << (hi + 1)));
  bars(o, nb, 0, 1, v, dmax(v, nb), tp, "a");
  /* The threshold where it falls on the log scale, clamped to the plot. */
  double pos = (log2((double)(x->d.small_file_bytes > 0 ? x->d.small_file_bytes : 1)) - lo) / nb;
  if (pos < 0) pos = 0;
  if (pos > 1) pos = 1;
  double tx = ML + pos * PW;
  fprintf(o,
          "<line class=\"thr\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
          "<text class=\"thrl\" x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">small &lt; %s</text>\n",
          tx, MT, tx, MT + PH, tx + (pos > 0.7 ? -4 : 4), MT + 12, pos > 0.7 ? "end" : "start",
          thrs);
  svg_close(o, tip);
  static const char *const cols[] = {"from (bytes)", "to (bytes)", "files", "bytes", "small"};
  table_open(o, "table-sizes", "Live files per size bin", cols, 5);
  for (int i = 0; i < nb; i++) {
    int k = lo + i;
    fprintf(o,
            "<tr><td>%lld</td><td>%lld</td><td>%lld</td><td>%lld</td><td class=\"t\">%s</td>"
            "</tr>\n",
            (long long)((int64_t)1 << k), (long long)((int64_t)1 << (k + 1)), (long long)files[k],
            (long long)bytes[k],
            ((int64_t)1 << (k + 1)) <= x->d.small_file_bytes ? "yes"
            : ((int64_t)1 << k) < x->d.small_file_bytes      ? "partly"
                                                             : "no");
  }
  table_close(o);
  fputs("</section>\n", o);
}

/* ---- partitions ---------------------------------------------------------------------- */

typedef struct pfile {
  char *key; /* owned "col=value/..." */
  int64_t size;
} pfile;

typedef struct part {
  const char *key; /* borrowed from a pfile */
  int64_t files, bytes;
} part;

static int cmp_pfile(const void *a, const void *b) {
  return strcmp(((const pfile *)a)->key, ((const pfile *)b)->key);
}

static int cmp_part_bytes(const void *a, const void *b) {
  const part *x = a, *y = b;
  if (x->bytes != y->bytes) return x->bytes > y->bytes ? -1 : 1;
  return strcmp(x->key, y->key);
}

static char *partition_key(const inlet_snapshot *s, int64_t i) {
  size_t cap = 64, len = 0;
  char *k = malloc(cap);
  if (!k) return NULL;
  k[0] = '\0';
  int32_t np = inlet_snapshot_num_partition_columns(s);
  for (int32_t c = 0; c < np; c++) {
    const char *col = inlet_snapshot_partition_column(s, c);
    const char *val = inlet_snapshot_file_partition_value(s, i, col);
    if (!val) val = "null";
    size_t need = len + strlen(col) + strlen(val) + 3;
    if (need > cap) {
      cap = need * 2;
      char *nk = realloc(k, cap);
      if (!nk) {
        free(k);
        return NULL;
      }
      k = nk;
    }
    len += (size_t)snprintf(k + len, cap - len, "%s%s=%s", c ? "/" : "", col, val);
  }
  return k;
}

static void partition_chart(ctx *x) {
  FILE *o = x->o;
  section(o, "s-partitions", "Partitions");
  int32_t np = x->snap ? inlet_snapshot_num_partition_columns(x->snap) : 0;
  int64_t n = x->snap ? inlet_snapshot_num_files(x->snap) : 0;
  if (np == 0 || n == 0) {
    fprintf(o, "<p class=\"mut\">%s</p></section>\n",
            np == 0 ? "The table is not partitioned." : "No live files.");
    return;
  }
  pfile *pf = calloc((size_t)n, sizeof *pf);
  part *p = calloc((size_t)n, sizeof *p);
  int64_t np_ = 0;
  if (!pf || !p) goto done;
  for (int64_t i = 0; i < n; i++) {
    inlet_file_info f;
    inlet_snapshot_file(x->snap, i, &f);
    pf[i].key = partition_key(x->snap, i);
    pf[i].size = f.size;
    if (!pf[i].key) goto done;
  }
  qsort(pf, (size_t)n, sizeof *pf, cmp_pfile);
  for (int64_t i = 0; i < n; i++) {
    if (np_ == 0 || strcmp(p[np_ - 1].key, pf[i].key) != 0) p[np_++].key = pf[i].key;
    p[np_ - 1].files++;
    p[np_ - 1].bytes += pf[i].size;
  }
  qsort(p, (size_t)np_, sizeof *p, cmp_part_bytes);
  int shown = np_ > REPORT_MAX_PARTITIONS ? REPORT_MAX_PARTITIONS : (int)np_;
  int nb = shown + (np_ > shown ? 1 : 0);
  int64_t other_files = 0, other_bytes = 0;
  for (int64_t i = shown; i < np_; i++) {
    other_files += p[i].files;
    other_bytes += p[i].bytes;
  }
  double v[REPORT_MAX_PARTITIONS + 1], fv[REPORT_MAX_PARTITIONS + 1];
  char tips[REPORT_MAX_PARTITIONS + 1][256], ftips[REPORT_MAX_PARTITIONS + 1][256], a[32];
  const char *tp[REPORT_MAX_PARTITIONS + 1], *ftp[REPORT_MAX_PARTITIONS + 1];
  for (int i = 0; i < nb; i++) {
    bool other = i == shown;
    v[i] = (double)(other ? other_bytes : p[i].bytes);
    fv[i] = (double)(other ? other_files : p[i].files);
    /* Tooltips hold partition values: html_text escapes them when written. */
    snprintf(tips[i], sizeof tips[i], "%s: %s", other ? "other partitions" : p[i].key,
             bytes_h(a, sizeof a, (int64_t)v[i]));
    snprintf(ftips[i], sizeof ftips[i], "%s: %.0f files", other ? "other partitions" : p[i].key,
             fv[i]);
    tp[i] = tips[i];
    ftp[i] = ftips[i];
  }
  /* Skew: the largest partition against the median one. */
  int64_t median = p[np_ / 2].bytes;
  char desc[512], b2[32];
  snprintf(desc, sizeof desc,
           "Bytes (left bar) and files (right bar) of the %d largest of %lld partitions%s; the "
           "largest holds %s, %.1f times the median partition.",
           shown, (long long)np_, np_ > shown ? ", the rest summed as the last pair" : "",
           bytes_h(b2, sizeof b2, p[0].bytes), median > 0 ? (double)p[0].bytes / median : 0.0);
  svg_open(o, "chart-partitions", "Files and bytes per partition", desc);
  y_labels(o, bytes_h(a, sizeof a, (int64_t)dmax(v, nb)));
  x_labels(o, "largest", np_ > shown ? "other" : "smallest");
  bars(o, nb, 0, 2, v, dmax(v, nb), tp, "a");
  bars(o, nb, 1, 2, fv, dmax(fv, nb), ftp, "b");
  svg_close(o, desc);
  static const char *const cols[] = {"partition", "files", "bytes", "share of bytes"};
  table_open(o, "table-partitions", "Files and bytes per partition, largest first", cols, 4);
  double total = 0;
  for (int64_t i = 0; i < np_; i++)
    total += (double)p[i].bytes;
  for (int i = 0; i < nb; i++) {
    bool other = i == shown;
    fputs("<tr><td class=\"t\"><code>", o);
    if (other)
      fprintf(o, "(%lld other partitions)", (long long)(np_ - shown));
    else
      html_text(o, p[i].key);
    fprintf(o, "</code></td><td>%.0f</td><td>%.0f</td><td>%.1f%%</td></tr>\n", fv[i], v[i],
            total > 0 ? v[i] / total * 100 : 0);
  }
  table_close(o);
done:
  fputs("</section>\n", o);
  if (pf)
    for (int64_t i = 0; i < n; i++)
      free(pf[i].key);
  free(pf);
  free(p);
}

/* ---- compactions ----------------------------------------------------------------------- */

static void compaction_chart(ctx *x) {
  FILE *o = x->o;
  section(o, "s-compactions", "Compactions");
  size_t total = 0;
  for (size_t i = 0; i < x->n; i++)
    total += (x->c[i].flags & RC_COMPACTION) != 0;
  if (total == 0) {
    fputs("<p class=\"mut\">No compactions in the log.</p></section>\n", o);
    return;
  }
  int shown = total > REPORT_MAX_COMPACTIONS ? REPORT_MAX_COMPACTIONS : (int)total;
  const rcommit *cc[REPORT_MAX_COMPACTIONS];
  int k = shown;
  for (size_t i = x->n; i-- > 0 && k > 0;)
    if (x->c[i].flags & RC_COMPACTION) cc[--k] = &x->c[i];
  double rm[REPORT_MAX_COMPACTIONS], ad[REPORT_MAX_COMPACTIONS];
  char rt[REPORT_MAX_COMPACTIONS][96], at[REPORT_MAX_COMPACTIONS][96];
  const char *rtp[REPORT_MAX_COMPACTIONS], *atp[REPORT_MAX_COMPACTIONS];
  for (int i = 0; i < shown; i++) {
    rm[i] = (double)cc[i]->files_removed;
    ad[i] = (double)cc[i]->files_added;
    snprintf(rt[i], sizeof rt[i], "version %lld: %lld files rewritten", (long long)cc[i]->version,
             (long long)cc[i]->files_removed);
    snprintf(at[i], sizeof at[i], "version %lld: into %lld files", (long long)cc[i]->version,
             (long long)cc[i]->files_added);
    rtp[i] = rt[i];
    atp[i] = at[i];
  }
  char desc[300];
  snprintf(desc, sizeof desc,
           "Files each compaction rewrote (left bar) and the files it wrote (right bar), for the "
           "%d newest of %zu compactions.",
           shown, total);
  double m = dmax(rm, shown) > dmax(ad, shown) ? dmax(rm, shown) : dmax(ad, shown);
  svg_open(o, "chart-compactions", "Compactions", desc);
  char top[32];
  snprintf(top, sizeof top, "%.0f files", m);
  y_labels(o, top);
  char l[32], r[32];
  snprintf(l, sizeof l, "v%lld", (long long)cc[0]->version);
  snprintf(r, sizeof r, "v%lld", (long long)cc[shown - 1]->version);
  x_labels(o, l, r);
  bars(o, shown, 0, 2, rm, m, rtp, "a");
  bars(o, shown, 1, 2, ad, m, atp, "b");
  svg_close(o, desc);
  static const char *const cols[] = {"version",       "time",        "files removed", "files added",
                                     "bytes removed", "bytes added", "rows"};
  table_open(o, "table-compactions", "What each compaction rewrote", cols, 7);
  char t[64];
  for (int i = 0; i < shown; i++) {
    fprintf(o,
            "<tr><td>%lld</td><td class=\"t\">%s</td><td>%lld</td><td>%lld</td><td>%lld</td>"
            "<td>%lld</td>",
            (long long)cc[i]->version, iso_time(t, sizeof t, cc[i]->ts),
            (long long)cc[i]->files_removed, (long long)cc[i]->files_added,
            (long long)cc[i]->bytes_removed, (long long)cc[i]->bytes);
    if (cc[i]->rows < 0)
      fputs("<td>unknown</td></tr>\n", o);
    else
      fprintf(o, "<td>%lld</td></tr>\n", (long long)cc[i]->rows);
  }
  table_close(o);
  fputs("</section>\n", o);
}

/* ---- late events and the watermark ---------------------------------------------------- */

typedef struct lbucket {
  int64_t first_v, last_v, batches, source, late;
  int64_t wm_us, wm_ts; /* the newest batch's watermark and time; wm_us INT64_MIN none */
} lbucket;

static void late_charts(ctx *x) {
  FILE *o = x->o;
  section(o, "s-late", "Late events and the watermark");
  size_t nbatch = 0;
  for (size_t i = 0; i < x->n; i++)
    nbatch += (x->c[i].flags & RC_INGEST) != 0;
  if (nbatch == 0) {
    fputs("<p class=\"mut\">No ingest batches in the log (no commit has numSourceRecords in its "
          "operationMetrics).</p></section>\n",
          o);
    return;
  }
  /* Batches in order, grouped evenly: batch j of N falls in bucket j * nb / N. */
  int nb = nbatch < REPORT_MAX_BUCKETS ? (int)nbatch : REPORT_MAX_BUCKETS;
  lbucket *b = calloc((size_t)nb, sizeof *b);
  double *v = calloc((size_t)nb, sizeof *v);
  char(*tips)[128] = calloc((size_t)nb, sizeof *tips);
  const char **tp = calloc((size_t)nb, sizeof *tp);
  if (!b || !v || !tips || !tp) goto done;
  for (int i = 0; i < nb; i++) {
    b[i].first_v = -1;
    b[i].wm_us = INT64_MIN;
    tp[i] = tips[i];
  }
  size_t j = 0;
  for (size_t i = 0; i < x->n; i++) {
    const rcommit *r = &x->c[i];
    if (!(r->flags & RC_INGEST)) continue;
    lbucket *k = &b[(size_t)((double)j * nb / (double)nbatch)];
    j++;
    if (k->first_v < 0) k->first_v = r->version;
    k->last_v = r->version;
    k->batches++;
    k->source += r->source;
    k->late += r->late;
    if (r->flags & RC_WATERMARK) {
      k->wm_us = r->wm_us;
      k->wm_ts = r->ts;
    }
  }
  int64_t tl = 0, ts = 0;
  for (int i = 0; i < nb; i++) {
    v[i] = b[i].source > 0 ? (double)b[i].late / (double)b[i].source * 100 : 0;
    tl += b[i].late;
    ts += b[i].source;
    snprintf(tips[i], sizeof tips[i], "versions %lld to %lld: %.2f%% late", (long long)b[i].first_v,
             (long long)b[i].last_v, v[i]);
  }
  char desc[300];
  snprintf(desc, sizeof desc,
           "Share of late events (numLateRows of numSourceRecords) in %zu ingest batches, grouped "
           "into %d bars; %lld of %lld events were late overall.",
           nbatch, nb, (long long)tl, (long long)ts);
  svg_open(o, "chart-late", "Late-event share per batch", desc);
  char top[32], l[32], r[32];
  snprintf(top, sizeof top, "%.1f%%", dmax(v, nb));
  y_labels(o, top);
  snprintf(l, sizeof l, "v%lld", (long long)b[0].first_v);
  snprintf(r, sizeof r, "v%lld", (long long)b[nb - 1].last_v);
  x_labels(o, l, r);
  bars(o, nb, 0, 1, v, dmax(v, nb), tp, "b");
  svg_close(o, desc);

  /* Watermark: a point per group whose batches recorded one. */
  int64_t wlo = INT64_MAX, whi = INT64_MIN;
  int nw = 0;
  for (int i = 0; i < nb; i++) {
    if (b[i].wm_us == INT64_MIN) continue;
    nw++;
    if (b[i].wm_us < wlo) wlo = b[i].wm_us;
    if (b[i].wm_us > whi) whi = b[i].wm_us;
  }
  char t1[64], t2[64];
  if (nw == 0) {
    fputs("<p class=\"mut\">No batch recorded a watermark (ingest without --event-time).</p>\n", o);
  } else {
    snprintf(desc, sizeof desc,
             "The watermark each group of batches ended with, from %s to %s (%d points).",
             iso_time(t1, sizeof t1, wlo / 1000), iso_time(t2, sizeof t2, whi / 1000), nw);
    svg_open(o, "chart-watermark", "Watermark over time", desc);
    y_labels(o, t2);
    x_labels(o, l, r);
    double bw = (double)PW / nb, span = (double)(whi - wlo);
    fputs("<polyline class=\"line\" points=\"", o);
    for (int i = 0; i < nb; i++)
      if (b[i].wm_us != INT64_MIN)
        fprintf(o, "%.1f,%.1f ", ML + bw * (i + 0.5),
                MT + PH - (span > 0 ? (double)(b[i].wm_us - wlo) / span * PH : PH / 2.0));
    fputs("\"/>\n", o);
    for (int i = 0; i < nb; i++) {
      if (b[i].wm_us == INT64_MIN) continue;
      fprintf(o,
              "<circle class=\"mark\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\"><title>v%lld: %s</title>"
              "</circle>\n",
              ML + bw * (i + 0.5),
              MT + PH - (span > 0 ? (double)(b[i].wm_us - wlo) / span * PH : PH / 2.0),
              (long long)b[i].last_v, iso_time(t1, sizeof t1, b[i].wm_us / 1000));
    }
    svg_close(o, desc);
  }
  static const char *const cols[] = {"first version", "last version", "batches",  "events",
                                     "late",          "late share",   "watermark"};
  table_open(o, "table-late", "Late events and watermark per group of batches", cols, 7);
  for (int i = 0; i < nb; i++) {
    fprintf(o,
            "<tr><td>%lld</td><td>%lld</td><td>%lld</td><td>%lld</td><td>%lld</td>"
            "<td>%.2f%%</td><td class=\"t\">%s</td></tr>\n",
            (long long)b[i].first_v, (long long)b[i].last_v, (long long)b[i].batches,
            (long long)b[i].source, (long long)b[i].late, v[i],
            b[i].wm_us == INT64_MIN ? "-" : iso_time(t1, sizeof t1, b[i].wm_us / 1000));
  }
  table_close(o);
done:
  fputs("</section>\n", o);
  free(b);
  free(v);
  free(tips);
  free(tp);
}

/* ---- schema, properties, time travel ------------------------------------------------- */

static void schema_fields(FILE *o, const json_t *fields) {
  size_t i;
  const json_t *f;
  json_array_foreach(fields, i, f) {
    const json_t *type = json_object_get(f, "type");
    char *ts = json_is_string(type) ? NULL : json_dumps(type, JSON_COMPACT | JSON_ENCODE_ANY);
    fputs("<tr><td class=\"t\"><code>", o);
    html_text(o, json_string_value(json_object_get(f, "name")));
    fputs("</code></td><td class=\"t\"><code>", o);
    html_text(o, ts ? ts : json_string_value(type));
    fprintf(o, "</code></td><td class=\"t\">%s</td></tr>\n",
            json_is_false(json_object_get(f, "nullable")) ? "no" : "yes");
    free(ts);
  }
}

static void schema_section(ctx *x) {
  FILE *o = x->o;
  section(o, "s-schema", "Schema and properties");
  const json_t *schema = json_object_get(x->dj, "schema");
  const json_t *fields = json_object_get(schema, "fields");
  static const char *const cols[] = {"column", "type", "nullable"};
  table_open(o, "table-schema", "Current schema", cols, 3);
  schema_fields(o, fields);
  table_close(o);
  const json_t *pc = json_object_get(x->dj, "partition_columns");
  fputs("<p>Partitioned by: ", o);
  if (json_array_size(pc)) {
    size_t i;
    const json_t *v;
    json_array_foreach(pc, i, v) {
      fputs(i ? ", <code>" : "<code>", o);
      html_text(o, json_string_value(v));
      fputs("</code>", o);
    }
  } else {
    fputs("nothing", o);
  }
  fputs("</p>\n", o);
  const json_t *props = json_object_get(x->dj, "properties");
  static const char *const pcols[] = {"property", "value"};
  table_open(o, "table-properties", "Table properties", pcols, 2);
  const char *k;
  const json_t *v;
  json_object_foreach((json_t *)props, k, v) {
    fputs("<tr><td class=\"t\"><code>", o);
    html_text(o, k);
    fputs("</code></td><td class=\"t\"><code>", o);
    html_text(o, json_is_string(v) ? json_string_value(v) : "?");
    fputs("</code></td></tr>\n", o);
  }
  table_close(o);
  const json_t *proto = json_object_get(x->dj, "protocol");
  fprintf(o, "<p>Protocol: reader version %lld, writer version %lld",
          (long long)json_integer_value(json_object_get(proto, "min_reader_version")),
          (long long)json_integer_value(json_object_get(proto, "min_writer_version")));
  const char *lists[] = {"reader_features", "writer_features"};
  for (int l = 0; l < 2; l++) {
    const json_t *a = json_object_get(proto, lists[l]);
    if (!json_array_size(a)) continue;
    fprintf(o, "; %s: ", l ? "writer features" : "reader features");
    size_t i;
    const json_t *f;
    json_array_foreach(a, i, f) {
      if (i) fputs(", ", o);
      html_text(o, json_string_value(f));
    }
  }
  fputs(".</p>\n</section>\n", o);
}

/* A retention for people: "7 days", "12 hours", "90 minutes", "500 ms". */
static const char *duration_h(char *buf, size_t cap, int64_t ms) {
  static const struct {
    int64_t ms;
    const char *unit;
  } u[] = {{86400000, "days"}, {3600000, "hours"}, {60000, "minutes"}, {1000, "seconds"}};
  for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
    if (ms >= u[i].ms && ms % u[i].ms == 0) {
      snprintf(buf, cap, "%lld %s", (long long)(ms / u[i].ms), u[i].unit);
      return buf;
    }
  snprintf(buf, cap, "%lld ms", (long long)ms);
  return buf;
}

static void time_travel(ctx *x) {
  FILE *o = x->o;
  section(o, "s-timetravel", "Time-travel window");
  int64_t oldest_log = x->n ? x->c[0].version : -1;
  /* Without version 0 the log starts at a checkpoint (log cleanup). */
  if (oldest_log > 0 && x->d.last_checkpoint >= 0 && x->d.last_checkpoint > oldest_log)
    oldest_log = x->d.last_checkpoint;
  int64_t cutoff = x->retention_ms >= 0 ? x->now_ms - x->retention_ms : INT64_MIN;
  /* A file removed by commit v was live at v - 1: once a vacuum may delete
   * it (its deletionTimestamp before the cutoff), versions before v cannot
   * be read. */
  int64_t oldest_vac = 0;
  for (size_t i = 0; i < x->n; i++)
    if (x->c[i].oldest_del >= 0 && x->c[i].oldest_del < cutoff && x->c[i].version > oldest_vac)
      oldest_vac = x->c[i].version;
  int64_t oldest = oldest_log > oldest_vac ? oldest_log : oldest_vac;
  char t[64], r[64];
  static const char *const cols[] = {"measure", "value"};
  table_open(o, "table-timetravel", "Versions that can still be read", cols, 2);
  fprintf(o, "<tr><th scope=\"row\">latest version</th><td data-key=\"version\">%lld</td></tr>\n",
          (long long)x->d.version);
  fprintf(o,
          "<tr><th scope=\"row\">oldest version in the log</th><td data-key=\"oldest_log\">%lld"
          "</td></tr>\n",
          (long long)oldest_log);
  if (x->retention_ms >= 0) {
    fprintf(o,
            "<tr><th scope=\"row\">deleted-file retention</th><td data-key=\"retention_ms\">%lld"
            "</td></tr>\n<tr><th scope=\"row\">a vacuum now deletes files removed before</th>"
            "<td class=\"t\">%s</td></tr>\n",
            (long long)x->retention_ms, iso_time(t, sizeof t, cutoff));
    fprintf(o,
            "<tr><th scope=\"row\">oldest version readable after a vacuum now</th>"
            "<td data-key=\"oldest_readable\">%lld</td></tr>\n",
            (long long)oldest);
  }
  table_close(o);
  if (x->retention_ms >= 0)
    fprintf(o,
            "<p>Time travel reaches versions %lld to %lld (%lld versions) once vacuum runs with "
            "the table's retention of %s.</p>\n",
            (long long)oldest, (long long)x->d.version, (long long)(x->d.version - oldest + 1),
            duration_h(r, sizeof r, x->retention_ms));
  fputs("</section>\n", o);
}

int report_write(FILE *o, inlet_table *t, const char *location, int64_t now_ms, inlet_error *err) {
  ctx x;
  memset(&x, 0, sizeof x);
  x.o = o;
  x.now_ms = now_ms;
  x.retention_ms = -1;
  char *js = NULL;
  collect k = {NULL, 0, 0};
  /* One replay and one pass over the commits: describe streams the
   * commits' summaries as it counts them. A table whose snapshot inlet
   * cannot load (a reader feature it lacks) is still described from the
   * log, without the file charts. */
  inlet_error se = INLET_ERROR_INIT;
  int rc;
  if (inlet_table_snapshot(&x.snap, t, &se) == 0) {
    x.retention_ms = inlet_snapshot_deleted_file_retention_ms(x.snap);
    rc = inlet_snapshot_describe(x.snap, &x.d, &js, collect_cb, &k, err);
  } else {
    snprintf(x.snap_error, sizeof x.snap_error, "%s", se.message);
    rc = inlet_table_describe(t, &x.d, &js, err);
    if (rc == 0) rc = inlet_table_commits(t, collect_cb, &k, NULL, err);
  }
  if (rc < 0) goto done;
  x.dj = json_loads(js, 0, NULL);
  /* Newest first from the walk; the charts read oldest first. */
  for (size_t i = 0; i < k.n / 2; i++) {
    rcommit tmp = k.c[i];
    k.c[i] = k.c[k.n - 1 - i];
    k.c[k.n - 1 - i] = tmp;
  }
  x.c = k.c;
  x.n = k.n;

  char ts[64];
  fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "style-src 'unsafe-inline'; img-src data:\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
        o);
  html_text(o, location);
  fprintf(o, " — inlet table report</title>\n<style>%s</style></head><body>\n<header><h1>", css);
  fputs("Table health: <code>", o);
  html_text(o, location);
  fprintf(o,
          "</code></h1><p class=\"mut\">Version %lld, read from the log at %s by inlet %s. "
          "No data file was opened.</p></header>\n<main>\n",
          (long long)x.d.version, iso_time(ts, sizeof ts, now_ms), INLET_VERSION_STRING);
  if (!x.snap) {
    fputs("<p class=\"mut\">The live files could not be listed: ", o);
    html_text(o, x.snap_error);
    fputs("</p>\n", o);
  }
  summary(&x);
  time_charts(&x);
  size_chart(&x);
  partition_chart(&x);
  compaction_chart(&x);
  late_charts(&x);
  schema_section(&x);
  time_travel(&x);
  fputs("</main></body></html>\n", o);
  if (ferror(o)) {
    err->code = INLET_EIO;
    snprintf(err->message, sizeof err->message, "report: write failed");
    rc = INLET_EIO;
  }
done:
  inlet_snapshot_free(x.snap);
  json_decref(x.dj);
  inlet_string_free(js);
  free(k.c);
  return rc;
}
