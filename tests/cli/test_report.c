/*
 * `inlet report` (issue 19 §2): the real binary writes the HTML health
 * report of two tables, and headless Chromium renders it.
 *
 *   - a demo-like table built with the CLI (create partitioned, four ingest
 *     runs with late events and a watermark, compact, vacuum with a zero
 *     retention) and hostile strings in a column name and a property;
 *   - a synthetic log of 10,000 commits and 50,000 live files written here
 *     directly (add/remove actions whose sizes, partitions, stats and
 *     metrics this file chooses; no data file exists: the report reads only
 *     the log).
 *
 * Asserted for each: Chromium logs no console message (a Content-Security-
 * Policy violation, i.e. any attempted network request or script, is one;
 * a negative control proves the check sees them) and the HTML has no URL,
 * src or href at all; every chart is present with the number of marks this
 * file expects from its own knowledge of the table (commits' timestamps
 * from `history --json`, live files on disk, the generator's bookkeeping);
 * the screenshot is a PNG that is not one colour; the summary table's
 * numbers equal `describe --json`; hostile names appear escaped, never as
 * markup. The 10k report must be under 2 MB; its build time is a benchmark
 * (bench/report_bench.sh), not asserted here.
 *
 * The Chromium cases are skipped, with a message, only when no chromium is
 * installed (INLET_CHROMIUM overrides /usr/bin/chromium).
 *
 * `test_report --generate DIR` writes the synthetic table and exits (the
 * benchmark uses it).
 */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <zlib.h>

#include "testutil.h"

/* ---- chromium ---------------------------------------------------------------------- */

static const char *chromium(void) {
  const char *c = getenv("INLET_CHROMIUM");
  if (c && *c) return access(c, X_OK) == 0 ? c : NULL;
  return access("/usr/bin/chromium", X_OK) == 0 ? "/usr/bin/chromium" : NULL;
}

#define NEED_CHROMIUM()                                                                            \
  do {                                                                                             \
    if (!chromium()) {                                                                             \
      print_message("[  SKIPPED ] chromium not installed (scripts/install-deps.sh test); "         \
                    "set INLET_CHROMIUM to its path\n");                                           \
      skip();                                                                                      \
    }                                                                                              \
  } while (0)

/* Runs headless Chromium on @p html with @p what ("--dump-dom" or
 * "--screenshot=PATH"); stdout and stderr (its log) in @p r. */
static void chromium_run(tu_result *r, const char *html, const char *what, const char *profile) {
  tu_sh(r,
        "DBUS_SESSION_BUS_ADDRESS=disabled: timeout 300 '%s' --headless --no-sandbox --disable-gpu "
        "--disable-dev-shm-usage --no-first-run --disable-extensions "
        "--disable-background-networking --user-data-dir='%s' --enable-logging=stderr --v=0 "
        "--window-size=1000,4000 %s 'file://%s'",
        chromium(), profile, what, html);
  if (r->status != 0) fail_msg("chromium exited %d: %s", r->status, r->err);
}

/* Console messages in Chromium's log: script errors, console calls, and the
 * Content-Security-Policy's report of every blocked load. */
static int console_lines(const char *log) {
  int n = 0;
  for (const char *p = log; (p = strstr(p, ":CONSOLE")) != NULL; p++) {
    const char *eol = strchr(p, '\n');
    fprintf(stderr, "chromium console: %.*s\n", eol ? (int)(eol - p) : 200, p);
    n++;
  }
  return n;
}

/* The SVG element id="@p id" in @p dom, its marks counted; -1 when absent. */
static int marks(const char *dom, const char *id) {
  char pat[128];
  snprintf(pat, sizeof pat, "<svg id=\"%s\"", id);
  const char *s = strstr(dom, pat);
  if (!s) return -1;
  const char *e = strstr(s, "</svg>");
  assert_non_null(e);
  int n = 0;
  for (const char *p = s; (p = strstr(p, "class=\"mark")) != NULL && p < e; p++)
    n++;
  return n;
}

/* The number in <td data-key="KEY">N</td> of table @p table_id; INT64_MIN
 * for "null", fails when absent. */
static int64_t cell(const char *dom, const char *table_id, const char *key) {
  char pat[128];
  snprintf(pat, sizeof pat, "<table id=\"%s\"", table_id);
  const char *t = strstr(dom, pat);
  if (!t) fail_msg("no table %s", table_id);
  snprintf(pat, sizeof pat, "data-key=\"%s\">", key);
  const char *c = strstr(t, pat);
  if (!c) fail_msg("no cell %s in %s", key, table_id);
  c += strlen(pat);
  if (strncmp(c, "null", 4) == 0) return INT64_MIN;
  return strtoll(c, NULL, 10);
}

/* Rows of the body of table @p id. */
static int table_rows(const char *dom, const char *id) {
  char pat[128];
  snprintf(pat, sizeof pat, "<table id=\"%s\"", id);
  const char *t = strstr(dom, pat);
  if (!t) return -1;
  const char *b = strstr(t, "<tbody>"), *e = strstr(t, "</tbody>");
  int n = 0;
  for (const char *p = b; (p = strstr(p, "<tr>")) != NULL && p < e; p++)
    n++;
  return n;
}

/* ---- PNG: decoded far enough to tell a picture from a blank ----------------------- */

static uint32_t be32(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int paeth(int a, int b, int c) {
  int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* Decodes an 8-bit RGB/RGBA PNG; sets the width, height and the share of
 * pixels that differ from the top-left one, and the distinct colours seen
 * (counted up to 64). */
static void png_check(const char *path, uint32_t *w, uint32_t *h, double *ink, int *colours) {
  size_t len;
  unsigned char *f = (unsigned char *)tu_read_file(path, &len);
  assert_non_null(f);
  assert_true(len > 33 && memcmp(f, "\x89PNG\r\n\x1a\n", 8) == 0);
  *w = be32(f + 16);
  *h = be32(f + 20);
  int depth = f[24], ctype = f[25];
  assert_int_equal(depth, 8);
  assert_true(ctype == 2 || ctype == 6);
  int bpp = ctype == 6 ? 4 : 3;
  size_t idat_len = 0, pos = 8;
  unsigned char *idat = malloc(len);
  while (pos + 12 <= len) {
    uint32_t n = be32(f + pos);
    if (memcmp(f + pos + 4, "IDAT", 4) == 0) {
      memcpy(idat + idat_len, f + pos + 8, n);
      idat_len += n;
    }
    pos += 12 + n;
  }
  size_t stride = (size_t)*w * bpp, raw_len = (stride + 1) * *h;
  unsigned char *raw = malloc(raw_len);
  uLongf out = raw_len;
  assert_int_equal(uncompress(raw, &out, idat, idat_len), Z_OK);
  assert_int_equal(out, raw_len);
  unsigned char *img = calloc(stride * *h, 1);
  for (uint32_t y = 0; y < *h; y++) {
    unsigned char *src = raw + y * (stride + 1) + 1, *dst = img + y * stride;
    const unsigned char *up = y ? img + (y - 1) * stride : NULL;
    int ft = raw[y * (stride + 1)];
    for (size_t x = 0; x < stride; x++) {
      int a = x >= (size_t)bpp ? dst[x - bpp] : 0, b = up ? up[x] : 0,
          c = up && x >= (size_t)bpp ? up[x - bpp] : 0;
      int v = src[x];
      switch (ft) {
      case 1: v += a; break;
      case 2: v += b; break;
      case 3: v += (a + b) / 2; break;
      case 4: v += paeth(a, b, c); break;
      default: break;
      }
      dst[x] = (unsigned char)v;
    }
  }
  uint32_t seen[64];
  int ns = 0;
  size_t differ = 0;
  for (size_t i = 0; i < (size_t)*w * *h; i++) {
    const unsigned char *px = img + i * bpp;
    uint32_t c = (uint32_t)px[0] << 16 | (uint32_t)px[1] << 8 | px[2];
    if (memcmp(px, img, 3) != 0) differ++;
    bool found = false;
    for (int k = 0; k < ns && !found; k++)
      found = seen[k] == c;
    if (!found && ns < 64) seen[ns++] = c;
  }
  *ink = (double)differ / ((double)*w * *h);
  *colours = ns;
  free(img);
  free(raw);
  free(idat);
  free(f);
}

/* Renders @p html: no console message, the DOM (returned, owned) and a
 * screenshot that is a picture. */
static char *render(const char *html, const char *work) {
  char profile[4200], png[4200], what[4300];
  snprintf(profile, sizeof profile, "%s/chromium-profile", work);
  tu_result r;
  chromium_run(&r, html, "--dump-dom", profile);
  assert_int_equal(console_lines(r.err), 0);
  char *dom = r.out;
  r.out = NULL;
  tu_result_free(&r);
  snprintf(png, sizeof png, "%s/shot.png", work);
  snprintf(what, sizeof what, "--screenshot='%s'", png);
  chromium_run(&r, html, what, profile);
  assert_int_equal(console_lines(r.err), 0);
  tu_result_free(&r);
  uint32_t w, h;
  double ink;
  int colours;
  png_check(png, &w, &h, &ink, &colours);
  print_message("screenshot %ux%u: %.1f%% of pixels differ from the background, %d+ colours\n", w,
                h, ink * 100, colours);
  assert_int_equal(w, 1000);
  assert_true(ink > 0.02);
  assert_true(colours >= 4);
  return dom;
}

/* Static checks of the page itself: nothing that could load anything. */
static void assert_inert(const char *html) {
  assert_null(strstr(html, "http:"));
  assert_null(strstr(html, "https:"));
  /* Markup only: escaped table strings may spell "src=" but never as an attribute. */
  static const char *const never[] = {"src=\"",
                                      "href=\"",
                                      "url(",
                                      "<script",
                                      "<img",
                                      "<link",
                                      "<iframe",
                                      "<object",
                                      "<embed",
                                      "<a ",
                                      "<meta http-equiv=\"refresh"};
  for (size_t i = 0; i < sizeof never / sizeof never[0]; i++)
    if (strstr(html, never[i])) fail_msg("the page holds %s", never[i]);
  assert_null(strstr(html, "@import"));
  assert_non_null(strstr(html, "default-src 'none'"));
  assert_non_null(strstr(html, "prefers-color-scheme:dark"));
  assert_non_null(strstr(html, "@media print"));
}

/* Every summary cell equals describe --json. */
static void assert_summary_is_describe(const char *dom, const char *table) {
  tu_result r;
  tu_sh(&r, "'%s' describe '%s' --json", INLET_BIN, table);
  assert_int_equal(r.status, 0);
  json_t *d = json_loads(r.out, 0, NULL);
  assert_non_null(d);
  static const char *const keys[] = {
      "version",     "commits",    "compactions",    "last_commit_timestamp",
      "files",       "bytes",      "rows",           "files_without_stats",
      "small_files", "partitions", "last_checkpoint"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
    json_t *v = json_object_get(d, keys[i]);
    int64_t want = json_is_null(v) ? INT64_MIN : (int64_t)json_integer_value(v);
    if (json_is_integer(v) && json_integer_value(v) < 0 && strcmp(keys[i], "last_checkpoint") == 0)
      want = INT64_MIN;
    if (!json_is_null(v) && !json_is_integer(v)) fail_msg("describe %s is not a number", keys[i]);
    int64_t got = cell(dom, "summary", keys[i]);
    if (got != want)
      fail_msg("summary %s: report %lld, describe %lld", keys[i], (long long)got, (long long)want);
  }
  json_decref(d);
  tu_result_free(&r);
}

/* ---- the negative control ----------------------------------------------------------- */

/* The console check sees a blocked network request: without this, a
 * Chromium that logs nothing would pass every render. */
static void test_report__console_check_sees_a_network_request(void **state) {
  (void)state;
  NEED_CHROMIUM();
  char *dir = tu_mkdtemp("report-control");
  char html[4200], profile[4200];
  snprintf(html, sizeof html, "%s/bad.html", dir);
  snprintf(profile, sizeof profile, "%s/profile", dir);
  const char *bad = "<!DOCTYPE html><html><head><meta http-equiv=\"Content-Security-Policy\" "
                    "content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">"
                    "<title>x</title></head><body><img src=\"http://example.invalid/x.png\">"
                    "</body></html>";
  assert_int_equal(tu_write_file(html, bad, strlen(bad)), 0);
  tu_result r;
  chromium_run(&r, html, "--dump-dom", profile);
  assert_true(console_lines(r.err) >= 1);
  assert_non_null(strstr(r.err, "example.invalid"));
  tu_result_free(&r);
  tu_rmtree(dir);
}

/* ---- the demo-like table -------------------------------------------------------------- */

static void run_ok(const char *what, tu_result *r) {
  if (r->status != 0) fail_msg("%s exited %d: %s\n%s", what, r->status, r->out, r->err);
}

static int size_bin(int64_t s) {
  int k = 0;
  while (s > 1) {
    s >>= 1;
    k++;
  }
  return k;
}

/* Live data files on disk below @p dir (after a vacuum with no retention
 * the only ones): their size bins and partition directories. */
static void scan_files(const char *dir, const char *rel, int *lo, int *hi, char parts[][256],
                       int *n_parts, int64_t *n_files) {
  DIR *d = opendir(dir);
  assert_non_null(d);
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.' || e->d_name[0] == '_') continue;
    char p[4096], r[1024];
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    snprintf(r, sizeof r, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    if (S_ISDIR(st.st_mode)) {
      scan_files(p, r, lo, hi, parts, n_parts, n_files);
      continue;
    }
    if (!strstr(e->d_name, ".parquet")) continue;
    (*n_files)++;
    int k = size_bin(st.st_size);
    if (k < *lo) *lo = k;
    if (k > *hi) *hi = k;
    bool found = false;
    for (int i = 0; i < *n_parts && !found; i++)
      found = strcmp(parts[i], rel) == 0;
    if (!found) snprintf(parts[(*n_parts)++], 256, "%s", rel);
  }
  closedir(d);
}

static void test_report__demo_table(void **state) {
  (void)state;
  char *base = tu_mkdtemp("report-demo");
  char table[4200], events[4200], html[4200];
  snprintf(table, sizeof table, "%s/t", base);
  snprintf(events, sizeof events, "%s/events.ndjson", base);
  snprintf(html, sizeof html, "%s/report.html", base);
  tu_result r;
  tu_sh(&r,
        "'%s' create '%s' --schema 'id long not null, `<b>col</b>&x` string, ts timestamp, "
        "day string, late boolean' --partition-by day --property inlet.ingest.lateFlagColumn=late "
        "--property 'delta.deletedFileRetentionDuration=interval 0 seconds' "
        "--property 'inlet.note=</code><script>alert(1)</script><img src=x onerror=alert(2)>'",
        INLET_BIN, table);
  run_ok("create", &r);
  tu_result_free(&r);
  /* Four ingest runs; each brings events of two days, the third run some
   * more than 5 minutes behind the watermark (late). */
  int id = 0;
  for (int run = 0; run < 4; run++) {
    FILE *f = fopen(events, "a");
    assert_non_null(f);
    for (int i = 0; i < 30; i++, id++) {
      int minute = run * 60 + i * 2;
      if (run == 2 && i % 5 == 0) minute -= 90; /* late */
      fprintf(f,
              "{\"id\":%d,\"<b>col</b>&x\":\"u%d\",\"ts\":\"2024-03-0%dT%02d:%02d:00Z\","
              "\"day\":\"2024-03-0%d\"}\n",
              id, id % 7, 1 + i % 2, 10 + minute / 60, minute % 60, 1 + i % 2);
    }
    fclose(f);
    tu_sh(&r,
          "'%s' ingest '%s' --source 'file:%s' --once --event-time ts --allowed-lateness 5m "
          "--app-id demo",
          INLET_BIN, table, events);
    run_ok("ingest", &r);
    tu_result_free(&r);
  }
  tu_sh(&r, "'%s' compact '%s' --min-files 2", INLET_BIN, table);
  run_ok("compact", &r);
  tu_result_free(&r);
  tu_sh(&r, "'%s' vacuum '%s'", INLET_BIN, table);
  run_ok("vacuum", &r);
  tu_result_free(&r);

  tu_sh(&r, "'%s' report '%s' --output '%s'", INLET_BIN, table, html);
  run_ok("report", &r);
  tu_result_free(&r);
  /* An existing output is kept without --force. */
  tu_sh(&r, "'%s' report '%s' --output '%s'", INLET_BIN, table, html);
  assert_int_equal(r.status, 2);
  assert_non_null(strstr(r.err, "--force"));
  tu_result_free(&r);

  char *page = tu_read_file(html, NULL);
  assert_non_null(page);
  assert_inert(page);
  /* Hostile strings are text, not markup. */
  assert_null(strstr(page, "<b>col"));
  assert_non_null(strstr(page, "&lt;b&gt;col&lt;/b&gt;&amp;x"));
  assert_null(strstr(page, "<img"));
  assert_non_null(strstr(page, "&lt;/code&gt;&lt;script&gt;alert(1)&lt;/script&gt;"));

  /* What this test knows: the commits (history), the files left on disk. */
  tu_sh(&r, "'%s' history '%s' --json", INLET_BIN, table);
  run_ok("history", &r);
  json_t *h = json_loads(r.out, 0, NULL);
  tu_result_free(&r);
  json_t *commits = json_object_get(h, "commits");
  size_t n = json_array_size(commits);
  int64_t t0 = INT64_MAX, tn = INT64_MIN, batches = 0, late = 0, compaction_v = -1,
          n_compactions = 0;
  for (size_t i = 0; i < n; i++) {
    json_t *c = json_array_get(commits, i);
    int64_t ts = json_integer_value(json_object_get(c, "timestamp"));
    if (ts < t0) t0 = ts;
    if (ts > tn) tn = ts;
    const char *op = json_string_value(json_object_get(c, "operation"));
    if (op && strcmp(op, "OPTIMIZE") == 0) {
      n_compactions++;
      int64_t v = json_integer_value(json_object_get(c, "version"));
      if (v > compaction_v) compaction_v = v;
    }
    json_t *m = json_object_get(c, "operation_metrics");
    if (json_object_get(m, "numSourceRecords")) {
      batches++;
      late += json_integer_value(json_object_get(m, "numLateRows"));
    }
  }
  /* Compaction commits one partition at a time: one each. */
  assert_int_equal(n_compactions, 2);
  assert_int_equal(n, 1 + 4 + n_compactions);
  assert_int_equal(batches, 4);
  assert_true(late > 0);
  assert_true(compaction_v > 0);
  int nb = (int)n, used[16] = {0}, n_used = 0;
  for (size_t i = 0; i < n; i++) {
    int64_t ts = json_integer_value(json_object_get(json_array_get(commits, i), "timestamp"));
    int b = tn > t0 ? (int)((double)(ts - t0) / (double)(tn - t0) * nb) : 0;
    if (b >= nb) b = nb - 1;
    if (!used[b]++) n_used++;
  }
  json_decref(h);
  int lo = 99, hi = -1, n_parts = 0;
  int64_t n_files = 0;
  char parts[64][256];
  scan_files(table, "", &lo, &hi, parts, &n_parts, &n_files);
  assert_int_equal(n_parts, 2);

  /* The time-travel window: the versions before the last compaction lost files. */
  tu_sh(&r, "'%s' scan '%s' --version %lld --format ndjson", INLET_BIN, table,
        (long long)compaction_v - 1);
  assert_int_not_equal(r.status, 0);
  tu_result_free(&r);
  tu_sh(&r, "'%s' scan '%s' --version %lld --format ndjson", INLET_BIN, table,
        (long long)compaction_v);
  run_ok("scan at the compaction", &r);
  tu_result_free(&r);

  if (!chromium()) { /* skip() leaves the test: clean up first */
    free(page);
    tu_rmtree(base);
  }
  NEED_CHROMIUM();
  char *dom = render(html, base);
  assert_int_equal(marks(dom, "chart-timeline"), n_used);
  assert_int_equal(marks(dom, "chart-commits"), nb);
  assert_int_equal(marks(dom, "chart-rows"), nb);
  assert_int_equal(marks(dom, "chart-bytes"), nb);
  assert_int_equal(marks(dom, "chart-sizes"), hi - lo + 1);
  assert_int_equal(marks(dom, "chart-partitions"), 2 * n_parts);
  assert_int_equal(marks(dom, "chart-compactions"), 2 * n_compactions);
  assert_int_equal(marks(dom, "chart-late"), batches);
  assert_int_equal(marks(dom, "chart-watermark"), batches);
  assert_summary_is_describe(dom, table);
  assert_int_equal(cell(dom, "table-timetravel", "oldest_readable"), compaction_v);
  assert_int_equal(cell(dom, "table-timetravel", "retention_ms"), 0);
  assert_int_equal(table_rows(dom, "table-partitions"), n_parts);
  assert_int_equal(table_rows(dom, "table-late"), batches);
  /* Chromium parsed no element out of the hostile strings. */
  assert_null(strstr(dom, "<b>col"));
  assert_null(strstr(dom, "<img"));
  assert_null(strstr(dom, "<script"));
  /* Accessible: each chart is an image with a title and a description. */
  for (const char *p = dom; (p = strstr(p, "<svg ")) != NULL; p++) {
    assert_true(strncmp(strstr(p, "role="), "role=\"img\"", 10) == 0);
    assert_non_null(strstr(p, "<title id="));
    assert_non_null(strstr(p, "<desc id="));
  }
  free(dom);
  free(page);
  tu_rmtree(base);
}

/* ---- the synthetic 10,000-commit table ------------------------------------------------ */

#define SYN_COMMITS 10000
#define SYN_T0 1704067200000LL /* 2024-01-01T00:00:00Z */
#define SYN_PARTS 37

typedef struct syn {
  int64_t files_live, files_ever, bytes_live, rows_live, compactions, last_compaction;
  int size_lo, size_hi, n_parts, batches;
  int64_t *size; /* per file ever added */
  int *part;     /* -1: the hostile partition */
  bool *live;
} syn;

static int64_t syn_ts(int64_t v) {
  return SYN_T0 + v * 60000;
}

static void syn_add(FILE *f, syn *s, int part, int64_t size, int64_t rows, bool data_change) {
  int64_t i = s->files_ever++;
  s->size[i] = size;
  s->part[i] = part;
  s->live[i] = true;
  char pv[64];
  if (part < 0)
    snprintf(pv, sizeof pv, "\\\"><i>x</i>");
  else
    snprintf(pv, sizeof pv, "p%02d", part);
  fprintf(f,
          "{\"add\":{\"path\":\"p=%s/part-%08lld.parquet\",\"partitionValues\":{\"p\":\"%s\"},"
          "\"size\":%lld,\"modificationTime\":%lld,\"dataChange\":%s,"
          "\"stats\":\"{\\\"numRecords\\\":%lld}\"}}\n",
          part < 0 ? "hostile" : pv, (long long)i, pv, (long long)size, (long long)SYN_T0,
          data_change ? "true" : "false", (long long)rows);
}

static void syn_write(const char *table, syn *s) {
  memset(s, 0, sizeof *s);
  size_t cap = 60000;
  s->size = calloc(cap, sizeof *s->size);
  s->part = calloc(cap, sizeof *s->part);
  s->live = calloc(cap, sizeof *s->live);
  char log[4200], path[4300];
  snprintf(log, sizeof log, "%s/_delta_log", table);
  assert_int_equal(mkdir(table, 0755), 0);
  assert_int_equal(mkdir(log, 0755), 0);
  json_t *schema =
      json_pack("{s:s, s:[{s:s,s:s,s:b,s:{}}, {s:s,s:s,s:b,s:{}}, {s:s,s:s,s:b,s:{}}]}", "type",
                "struct", "fields", "name", "id", "type", "long", "nullable", 1, "metadata", "name",
                "<b>col</b>&x", "type", "string", "nullable", 1, "metadata", "name", "p", "type",
                "string", "nullable", 1, "metadata");
  char *schema_s = json_dumps(schema, JSON_COMPACT);
  json_t *md =
      json_pack("{s:{s:s, s:{s:s, s:{}}, s:s, s:[s], s:{s:s, s:s}, s:I}}", "metaData", "id",
                "00000000-0000-4000-8000-000000000019", "format", "provider", "parquet", "options",
                "schemaString", schema_s, "partitionColumns", "p", "configuration",
                "delta.deletedFileRetentionDuration", "interval 1 days", "inlet.note",
                "</code><script>alert(1)</script>", "createdTime", (json_int_t)SYN_T0);
  char *md_s = json_dumps(md, JSON_COMPACT);
  int64_t prev_first = 0, prev_n = 0;
  for (int64_t v = 0; v < SYN_COMMITS; v++) {
    snprintf(path, sizeof path, "%s/%020lld.json", log, (long long)v);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    int64_t first = s->files_ever;
    if (v == 0) {
      fprintf(f, "{\"commitInfo\":{\"timestamp\":%lld,\"operation\":\"CREATE TABLE\"}}\n",
              (long long)syn_ts(v));
      fprintf(f, "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}\n%s\n", md_s);
      for (int i = 0; i < 896; i++)
        syn_add(f, s, i % 2 ? -1 : i % SYN_PARTS, 4096 + i, 10, true);
    } else if (v % 100 == 0) {
      /* A compaction: the previous commit's files into one. */
      s->compactions++;
      s->last_compaction = v;
      fprintf(f,
              "{\"commitInfo\":{\"timestamp\":%lld,\"operation\":\"OPTIMIZE\","
              "\"operationMetrics\":{\"numRemovedFiles\":\"%lld\",\"numAddedFiles\":\"1\"}}}\n",
              (long long)syn_ts(v), (long long)prev_n);
      int64_t rows = 0;
      for (int64_t i = prev_first; i < prev_first + prev_n; i++) {
        fprintf(f,
                "{\"remove\":{\"path\":\"p=p%02d/part-%08lld.parquet\",\"deletionTimestamp\":%lld,"
                "\"dataChange\":false,\"size\":%lld}}\n",
                s->part[i], (long long)i, (long long)syn_ts(v), (long long)s->size[i]);
        s->live[i] = false;
        rows += 100;
      }
      syn_add(f, s, 0, ((int64_t)1 << 28) + 5, rows, false);
    } else {
      s->batches++;
      char wm[64];
      time_t sec = (time_t)(syn_ts(v) / 1000 - 300);
      struct tm tm;
      gmtime_r(&sec, &tm);
      strftime(wm, sizeof wm, "%Y-%m-%dT%H:%M:%S.000000Z", &tm);
      fprintf(f,
              "{\"commitInfo\":{\"timestamp\":%lld,\"operation\":\"STREAMING UPDATE\","
              "\"operationMetrics\":{\"numSourceRecords\":\"500\",\"numLateRows\":\"%lld\","
              "\"watermark\":\"%s\"}}}\n",
              (long long)syn_ts(v), (long long)(v % 11), wm);
      for (int i = 0; i < 5; i++)
        syn_add(f, s, (int)((s->files_ever) % SYN_PARTS),
                ((int64_t)1024 << (s->files_ever % 18)) + s->files_ever % 100, 100, true);
    }
    prev_first = first;
    prev_n = s->files_ever - first;
    fclose(f);
    /* The commit's time: its file's modification time. */
    struct timespec ts[2];
    ts[0].tv_sec = ts[1].tv_sec = (time_t)(syn_ts(v) / 1000);
    ts[0].tv_nsec = ts[1].tv_nsec = (long)(syn_ts(v) % 1000) * 1000000;
    assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
  }
  bool seen[SYN_PARTS + 1] = {false};
  s->size_lo = 99;
  s->size_hi = -1;
  for (int64_t i = 0; i < s->files_ever; i++) {
    if (!s->live[i]) continue;
    s->files_live++;
    s->bytes_live += s->size[i];
    int k = size_bin(s->size[i]);
    if (k < s->size_lo) s->size_lo = k;
    if (k > s->size_hi) s->size_hi = k;
    int p = s->part[i] < 0 ? SYN_PARTS : s->part[i];
    if (!seen[p]) s->n_parts++;
    seen[p] = true;
  }
  free(schema_s);
  free(md_s);
  json_decref(schema);
  json_decref(md);
}

static void syn_free(syn *s) {
  free(s->size);
  free(s->part);
  free(s->live);
}

static void test_report__synthetic_10k_commits(void **state) {
  (void)state;
  char *base = tu_mkdtemp("report-10k");
  char table[4200], html[4200];
  snprintf(table, sizeof table, "%s/t", base);
  snprintf(html, sizeof html, "%s/report.html", base);
  syn s;
  syn_write(table, &s);
  tu_rules_exempt(table, "a log-only table: its data files are never written");
  assert_int_equal(s.files_live, 50000);

  tu_result r;
  tu_sh(&r, "'%s' report '%s' --output '%s'", INLET_BIN, table, html);
  run_ok("report", &r);
  tu_result_free(&r);
  struct stat st;
  assert_int_equal(stat(html, &st), 0);
  print_message("10k-commit report: %lld bytes\n", (long long)st.st_size);
  assert_true(st.st_size < 2 * 1024 * 1024);
  char *page = tu_read_file(html, NULL);
  assert_inert(page);
  assert_null(strstr(page, "<i>x"));
  assert_non_null(strstr(page, "&quot;&gt;&lt;i&gt;x&lt;/i&gt;"));

  if (!chromium()) { /* skip() leaves the test: clean up first */
    free(page);
    syn_free(&s);
    tu_rmtree(base);
  }
  NEED_CHROMIUM();
  char *dom = render(html, base);
  assert_int_equal(marks(dom, "chart-timeline"), 120);
  assert_int_equal(marks(dom, "chart-commits"), 120);
  assert_int_equal(marks(dom, "chart-rows"), 120);
  assert_int_equal(marks(dom, "chart-bytes"), 120);
  assert_int_equal(marks(dom, "chart-sizes"), s.size_hi - s.size_lo + 1);
  assert_int_equal(marks(dom, "chart-partitions"), 2 * s.n_parts);
  assert_int_equal(marks(dom, "chart-compactions"), 2 * 60);
  assert_int_equal(marks(dom, "chart-late"), 120);
  assert_int_equal(marks(dom, "chart-watermark"), 120);
  assert_summary_is_describe(dom, table);
  /* And describe agrees with what was written. */
  assert_int_equal(cell(dom, "summary", "files"), s.files_live);
  assert_int_equal(cell(dom, "summary", "bytes"), s.bytes_live);
  assert_int_equal(cell(dom, "summary", "commits"), SYN_COMMITS);
  assert_int_equal(cell(dom, "summary", "compactions"), s.compactions);
  assert_int_equal(cell(dom, "summary", "partitions"), s.n_parts);
  /* Every deletion is from 2024, older than now minus a day. */
  assert_int_equal(cell(dom, "table-timetravel", "oldest_readable"), s.last_compaction);
  assert_int_equal(cell(dom, "table-timetravel", "retention_ms"), 86400000);
  assert_int_equal(table_rows(dom, "table-compactions"), 60);
  assert_null(strstr(dom, "<i>x"));
  free(dom);
  free(page);
  syn_free(&s);
  tu_rmtree(base);
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--generate") == 0) {
    syn s;
    syn_write(argv[2], &s);
    printf("%s: %d commits, %lld live files\n", argv[2], SYN_COMMITS, (long long)s.files_live);
    syn_free(&s);
    return 0;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_report__console_check_sees_a_network_request),
      cmocka_unit_test(test_report__demo_table),
      cmocka_unit_test(test_report__synthetic_10k_commits),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
