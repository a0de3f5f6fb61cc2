/*
 * Metrics, health and systemd notifications of a running ingester
 * (service.h).
 *
 * Prometheus text exposition format 0.0.4: counters end in _total, units
 * are base units (seconds, bytes), every series carries the table and
 * source labels. The values are the ingester's own cumulative counters
 * (inlet_ingest_progress), copied under a mutex by the progress callback
 * and formatted by the HTTP thread; the table's file counts come from
 * inlet_table_describe through a handle of the HTTP thread's own (handles
 * are one-thread objects), at most once per FILES_REFRESH_MS.
 *
 * Health: progress is a committed batch or source bytes consumed; a run
 * that has made none for stall_ms (a stalled source, a stuck commit) is
 * unhealthy, and so is a run that finished.
 *
 * systemd (sd_notify(3)): READY=1 once the ingester has restored its
 * position, STATUS= after each batch, WATCHDOG=1 on every progress event at
 * most four times per watchdog period (events come at least once a second
 * while the loop lives, so a hung loop misses the watchdog), STOPPING=1 at
 * the end.
 */
#include "service.h"
#include "log.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <systemd/sd-daemon.h>
#include <time.h>

#define FILES_REFRESH_MS 15000
#define N_ROW_BUCKETS 7
#define N_LATENCY_BUCKETS 11

static const double row_buckets[N_ROW_BUCKETS] = {1, 10, 100, 1000, 10000, 100000, 1000000};
static const double latency_buckets[N_LATENCY_BUCKETS] = {0.01, 0.05, 0.1, 0.25, 0.5, 1,
                                                          2.5,  5,    10,  30,   60};

typedef struct histogram {
  int64_t *counts; /* per bucket (not cumulative) */
  const double *bounds;
  int n;
  int64_t count;
  double sum;
} histogram;

/* One Kafka topic-partition's last progress (inlet_ingest_part_progress,
 * copied: the progress event only lends it). */
typedef struct part_metrics {
  char topic[256];
  int32_t partition;
  bool assigned;
  int64_t committed_records, rejected, late, offset, high_watermark, lag_records;
} part_metrics;

struct cli_service {
  pthread_mutex_t mu;
  struct MHD_Daemon *httpd;
  char *labels; /* table="...",source="..." */
  int64_t stall_ms;
  int64_t start_ms;
  /* under mu */
  inlet_ingest_progress last; /* counters only: lent strings cleared */
  bool started, finished;
  int64_t last_progress_ms;
  int64_t last_success_ms; /* last committed batch, 0 none */
  histogram rows_h, latency_h;
  int64_t row_counts[N_ROW_BUCKETS], latency_counts[N_LATENCY_BUCKETS];
  part_metrics *parts;
  int n_parts, cap_parts;
  /* the HTTP thread's */
  inlet_table *table;
  char *table_location;
  inlet_table_open_options open_options;
  int64_t files_at_ms;
  bool files_known;
  inlet_table_description desc;
  /* maintain --follow, under mu */
  bool maintain;
  int64_t passes, failed_passes, compaction_runs, checkpoints_seen;
  inlet_compact_result compact_sum;
  inlet_log_cleanup_result log_sum;
  inlet_vacuum_result vacuum_sum;
  /* systemd */
  bool notify;
  uint64_t watchdog_usec;
  int64_t watchdog_sent_ms;
};

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void histogram_add(histogram *h, double v) {
  for (int i = 0; i < h->n; i++)
    if (v <= h->bounds[i]) {
      h->counts[i]++;
      break;
    }
  h->count++;
  h->sum += v;
}

/* A label value with \, " and newline escaped (the exposition format's rules). */
static void put_label_value(FILE *f, const char *v) {
  for (const char *c = v ? v : ""; *c; c++) {
    if (*c == '\\' || *c == '"')
      fprintf(f, "\\%c", *c);
    else if (*c == '\n')
      fputs("\\n", f);
    else
      fputc(*c, f);
  }
}

static void metric_head(FILE *f, const char *name, const char *type, const char *help) {
  fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void sample(FILE *f, const cli_service *s, const char *name, double v) {
  fprintf(f, "%s{%s} %.17g\n", name, s->labels, v);
}

static void counter(FILE *f, const cli_service *s, const char *name, const char *help, int64_t v) {
  metric_head(f, name, "counter", help);
  sample(f, s, name, (double)v);
}

static void gauge(FILE *f, const cli_service *s, const char *name, const char *help, double v) {
  metric_head(f, name, "gauge", help);
  sample(f, s, name, v);
}

static void histogram_out(FILE *f, const cli_service *s, const char *name, const char *help,
                          const histogram *h) {
  metric_head(f, name, "histogram", help);
  int64_t cum = 0;
  for (int i = 0; i < h->n; i++) {
    cum += h->counts[i];
    fprintf(f, "%s_bucket{%s,le=\"%g\"} %lld\n", name, s->labels, h->bounds[i], (long long)cum);
  }
  fprintf(f, "%s_bucket{%s,le=\"+Inf\"} %lld\n", name, s->labels, (long long)h->count);
  fprintf(f, "%s_sum{%s} %.17g\n", name, s->labels, h->sum);
  fprintf(f, "%s_count{%s} %lld\n", name, s->labels, (long long)h->count);
}

static int64_t pm_committed(const part_metrics *p) {
  return p->committed_records;
}
static int64_t pm_rejected(const part_metrics *p) {
  return p->rejected;
}
static int64_t pm_late(const part_metrics *p) {
  return p->late;
}
static int64_t pm_assigned(const part_metrics *p) {
  return p->assigned ? 1 : 0;
}
static int64_t pm_offset(const part_metrics *p) {
  return p->offset;
}
static int64_t pm_high_watermark(const part_metrics *p) {
  return p->high_watermark;
}
static int64_t pm_lag(const part_metrics *p) {
  return p->lag_records;
}

/* One family of per-partition series: @p get of each partition (those whose
 * value is -1, unknown, are left out). */
static void part_family(FILE *f, const cli_service *s, const char *name, const char *type,
                        const char *help, int64_t (*get)(const part_metrics *)) {
  bool head = false;
  for (int i = 0; i < s->n_parts; i++) {
    const part_metrics *p = &s->parts[i];
    int64_t v = get(p);
    if (v < 0) continue;
    if (!head) metric_head(f, name, type, help);
    head = true;
    fprintf(f, "%s{%s,topic=\"", name, s->labels);
    put_label_value(f, p->topic);
    fprintf(f, "\",partition=\"%d\"} %lld\n", (int)p->partition, (long long)v);
  }
}

/* Kafka: records, positions and lag per topic-partition, and the lag summed
 * over the assigned ones. */
static void part_metrics_out(FILE *f, const cli_service *s) {
  if (s->n_parts == 0) return;
  part_family(f, s, "inlet_ingest_partition_records_committed_total", "counter",
              "Records of the topic-partition committed by this ingester (rows, rejected and "
              "late alike).",
              pm_committed);
  part_family(f, s, "inlet_ingest_partition_records_rejected_total", "counter",
              "Records of the topic-partition sent to the dead letters by this ingester.",
              pm_rejected);
  part_family(f, s, "inlet_ingest_partition_records_late_total", "counter",
              "Late records of the topic-partition (kept flagged, dropped or routed).", pm_late);
  part_family(f, s, "inlet_ingest_partition_assigned", "gauge",
              "1 while the topic-partition is assigned to this ingester.", pm_assigned);
  part_family(f, s, "inlet_ingest_partition_offset", "gauge",
              "Next offset of the topic-partition recorded in the table.", pm_offset);
  part_family(f, s, "inlet_ingest_partition_high_watermark", "gauge",
              "The broker's high watermark of the topic-partition, as last seen.",
              pm_high_watermark);
  part_family(f, s, "inlet_ingest_partition_lag_records", "gauge",
              "Records of the topic-partition not yet committed to the table (assigned ones).",
              pm_lag);
  int64_t lag = 0;
  bool known = false;
  for (int i = 0; i < s->n_parts; i++)
    if (s->parts[i].assigned && s->parts[i].lag_records >= 0) {
      lag += s->parts[i].lag_records;
      known = true;
    }
  if (known)
    gauge(f, s, "inlet_ingest_source_lag_records",
          "Records not yet committed to the table, over the assigned topic-partitions.",
          (double)lag);
}

/* The table's files, refreshed at most every FILES_REFRESH_MS (HTTP thread). */
static void refresh_files(cli_service *s, int64_t now) {
  if (!s->table_location || (s->files_known && now - s->files_at_ms < FILES_REFRESH_MS)) return;
  inlet_error err = INLET_ERROR_INIT;
  if (!s->table && inlet_table_open_with(&s->table, s->table_location, &s->open_options, &err) < 0)
    return;
  inlet_table_description d;
  if (inlet_table_describe(s->table, &d, NULL, &err) == 0) {
    s->desc = d;
    s->files_known = true;
    s->files_at_ms = now;
  }
}

/* Healthy: maintain passes succeed within the stall limit. */
static bool maintain_healthy(const cli_service *s, int64_t now) {
  return !s->finished &&
         now - (s->last_success_ms ? s->last_success_ms : s->start_ms) <= s->stall_ms;
}

static void render_maintain(FILE *f, cli_service *s, int64_t now) {
  counter(f, s, "inlet_maintain_passes_total", "Maintenance passes run.", s->passes);
  counter(f, s, "inlet_maintain_pass_failures_total",
          "Maintenance passes that failed (retried next interval).", s->failed_passes);
  counter(f, s, "inlet_maintain_compaction_runs_total", "Passes that ran compaction.",
          s->compaction_runs);
  counter(f, s, "inlet_maintain_compaction_commits_total", "OPTIMIZE commits made.",
          s->compact_sum.commits);
  counter(f, s, "inlet_maintain_compaction_failed_groups_total",
          "Compaction bins dropped after a conflict or an error.", s->compact_sum.failed_groups);
  counter(f, s, "inlet_maintain_compaction_files_removed_total", "Small files compaction replaced.",
          s->compact_sum.files_removed);
  counter(f, s, "inlet_maintain_compaction_files_added_total", "Files compaction wrote.",
          s->compact_sum.files_added);
  counter(f, s, "inlet_maintain_compaction_bytes_rewritten_total",
          "Bytes of the files compaction read and replaced.", s->compact_sum.bytes_removed);
  counter(f, s, "inlet_maintain_compaction_bytes_written_total",
          "Bytes of the files compaction wrote.", s->compact_sum.bytes_added);
  counter(f, s, "inlet_maintain_compaction_rows_total", "Rows compaction rewrote.",
          s->compact_sum.rows);
  counter(f, s, "inlet_maintain_checkpoints_total",
          "New checkpoints seen after a pass (written by its commits or another writer).",
          s->checkpoints_seen);
  counter(f, s, "inlet_maintain_log_commits_removed_total", "Commit files log cleanup removed.",
          s->log_sum.commits_removed);
  counter(f, s, "inlet_maintain_log_checkpoints_removed_total", "Checkpoints log cleanup removed.",
          s->log_sum.checkpoints_removed);
  counter(f, s, "inlet_maintain_vacuum_files_deleted_total", "Files vacuum deleted.",
          s->vacuum_sum.files);
  counter(f, s, "inlet_maintain_vacuum_bytes_deleted_total", "Bytes vacuum deleted.",
          s->vacuum_sum.bytes);
  if (s->files_known) {
    gauge(f, s, "inlet_table_version", "Table version after the last pass.",
          (double)s->desc.version);
    gauge(f, s, "inlet_table_files", "Live data files of the latest snapshot.",
          (double)s->desc.files);
    gauge(f, s, "inlet_table_small_files", "Live data files below delta.targetFileSize.",
          (double)s->desc.small_files);
    gauge(f, s, "inlet_table_bytes", "Bytes of the live data files.", (double)s->desc.bytes);
    if (s->desc.last_checkpoint >= 0)
      gauge(f, s, "inlet_table_last_checkpoint_version", "Version of the newest checkpoint.",
            (double)s->desc.last_checkpoint);
  }
  if (s->last_success_ms > 0)
    gauge(f, s, "inlet_maintain_last_success_timestamp_seconds",
          "When the last pass succeeded, seconds since the epoch.",
          (double)s->last_success_ms / 1000.0);
  gauge(f, s, "inlet_maintain_healthy", "1 while /healthz answers 200.",
        maintain_healthy(s, now) ? 1 : 0);
  gauge(f, s, "inlet_maintain_start_timestamp_seconds",
        "When this maintainer started, seconds since the epoch.", (double)s->start_ms / 1000.0);
}

static char *render_metrics(cli_service *s, size_t *len) {
  char *buf = NULL;
  FILE *f = open_memstream(&buf, len);
  if (!f) return NULL;
  int64_t now = now_ms();
  if (s->maintain) {
    pthread_mutex_lock(&s->mu);
    render_maintain(f, s, now);
    pthread_mutex_unlock(&s->mu);
    if (fclose(f) != 0) {
      free(buf);
      return NULL;
    }
    return buf;
  }
  refresh_files(s, now);
  pthread_mutex_lock(&s->mu);
  const inlet_ingest_progress *p = &s->last;
  counter(f, s, "inlet_ingest_records_committed_total", "Rows written to the table.", p->rows);
  counter(f, s, "inlet_ingest_records_late_total",
          "Late rows seen (kept flagged, dropped or routed).", p->late_rows);
  counter(f, s, "inlet_ingest_records_dropped_total", "Late rows dropped (late policy drop).",
          p->dropped_rows);
  counter(f, s, "inlet_ingest_records_routed_total", "Late rows routed to the late table.",
          p->routed_rows);
  counter(f, s, "inlet_ingest_records_rejected_total",
          "Bad records written to the dead letters (TABLE/_errors/).", p->rejected);
  counter(f, s, "inlet_ingest_source_bytes_total", "Source bytes consumed.", p->bytes);
  counter(f, s, "inlet_ingest_table_bytes_written_total",
          "Bytes of the data files committed to the table.", p->bytes_written);
  counter(f, s, "inlet_ingest_commits_total", "Batches committed.", p->batches);
  counter(f, s, "inlet_ingest_commit_conflicts_total",
          "Batch commits lost to a concurrent writer and redone.", p->conflicts);
  counter(f, s, "inlet_ingest_source_gaps_total", "Source gaps skipped (--allow-gaps).", p->gaps);
  histogram_out(f, s, "inlet_ingest_batch_rows", "Rows per committed batch.", &s->rows_h);
  histogram_out(f, s, "inlet_ingest_batch_latency_seconds",
                "Time from a batch's first record to its commit.", &s->latency_h);
  if (p->lag_ms >= 0)
    gauge(f, s, "inlet_ingest_source_lag_seconds",
          "Age of the last committed record at its commit (sources that can tell).",
          (double)p->lag_ms / 1000.0);
  if (p->lag_bytes >= 0)
    gauge(f, s, "inlet_ingest_source_lag_bytes", "Bytes of the source file not yet read.",
          (double)p->lag_bytes);
  part_metrics_out(f, s);
  if (p->watermark_us != INT64_MIN && s->started)
    gauge(f, s, "inlet_ingest_watermark_seconds", "Event-time watermark, seconds since the epoch.",
          (double)p->watermark_us / 1e6);
  if (p->last_version >= 0)
    gauge(f, s, "inlet_table_version", "Last table version this ingester committed.",
          (double)p->last_version);
  if (s->files_known) {
    gauge(f, s, "inlet_table_files", "Live data files of the latest snapshot.",
          (double)s->desc.files);
    gauge(f, s, "inlet_table_small_files", "Live data files below delta.targetFileSize.",
          (double)s->desc.small_files);
    gauge(f, s, "inlet_table_bytes", "Bytes of the live data files.", (double)s->desc.bytes);
  }
  if (s->last_success_ms > 0)
    gauge(f, s, "inlet_ingest_last_success_timestamp_seconds",
          "When the last batch was committed, seconds since the epoch.",
          (double)s->last_success_ms / 1000.0);
  bool healthy = s->started && !s->finished && now - s->last_progress_ms <= s->stall_ms;
  gauge(f, s, "inlet_ingest_healthy", "1 while /healthz answers 200.", healthy ? 1 : 0);
  gauge(f, s, "inlet_ingest_start_timestamp_seconds",
        "When this ingester started, seconds since the epoch.", (double)s->start_ms / 1000.0);
  pthread_mutex_unlock(&s->mu);
  if (fclose(f) != 0) {
    free(buf);
    return NULL;
  }
  return buf;
}

static char *render_health(cli_service *s, size_t *len, unsigned *status) {
  char msg[256];
  int64_t now = now_ms();
  pthread_mutex_lock(&s->mu);
  if (s->maintain) {
    int64_t since = now - (s->last_success_ms ? s->last_success_ms : s->start_ms);
    if (maintain_healthy(s, now))
      snprintf(msg, sizeof msg, "ok: %lld passes, table version %lld\n", (long long)s->passes,
               (long long)(s->files_known ? s->desc.version : -1));
    else
      snprintf(msg, sizeof msg, "stalled: no successful pass for %.1fs (limit %.1fs)\n",
               (double)since / 1000.0, (double)s->stall_ms / 1000.0);
  } else if (!s->started)
    snprintf(msg, sizeof msg, "starting: the ingester has not restored its position yet\n");
  else if (s->finished)
    snprintf(msg, sizeof msg, "finished: the ingest loop has ended\n");
  else if (now - s->last_progress_ms > s->stall_ms)
    snprintf(msg, sizeof msg, "stalled: no records and no commit for %.1fs (limit %.1fs)\n",
             (double)(now - s->last_progress_ms) / 1000.0, (double)s->stall_ms / 1000.0);
  else
    snprintf(msg, sizeof msg, "ok: version %lld, %lld rows committed\n",
             (long long)s->last.last_version, (long long)s->last.rows);
  *status = strncmp(msg, "ok", 2) == 0 ? MHD_HTTP_OK : MHD_HTTP_SERVICE_UNAVAILABLE;
  pthread_mutex_unlock(&s->mu);
  *len = strlen(msg);
  return strdup(msg);
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **con_cls) {
  (void)version;
  (void)upload;
  (void)upload_size;
  (void)con_cls;
  cli_service *s = cls;
  size_t len = 0;
  unsigned status = MHD_HTTP_OK;
  char *body = NULL;
  const char *type = "text/plain; charset=utf-8";
  if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
    status = MHD_HTTP_METHOD_NOT_ALLOWED;
    body = strdup("only GET and HEAD\n");
    len = body ? strlen(body) : 0;
  } else if (strcmp(url, "/metrics") == 0) {
    body = render_metrics(s, &len);
    type = "text/plain; version=0.0.4; charset=utf-8";
  } else if (strcmp(url, "/healthz") == 0) {
    body = render_health(s, &len, &status);
  } else {
    status = MHD_HTTP_NOT_FOUND;
    body = strdup("not found: /metrics, /healthz\n");
    len = body ? strlen(body) : 0;
  }
  if (!body) return MHD_NO;
  struct MHD_Response *r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
  if (!r) {
    free(body);
    return MHD_NO;
  }
  MHD_add_response_header(r, "Content-Type", type);
  enum MHD_Result ok = MHD_queue_response(c, status, r);
  MHD_destroy_response(r);
  return ok;
}

/* HOST:PORT, [V6]:PORT or :PORT into a socket address. */
static int resolve(const char *listen, struct sockaddr_storage *sa, socklen_t *sl, bool *v6,
                   char *errbuf, size_t cap) {
  const char *colon = strrchr(listen, ':');
  if (!colon || !colon[1]) {
    snprintf(errbuf, cap, "--metrics-listen: expected HOST:PORT, got '%s'", listen);
    return -1;
  }
  char host[256];
  size_t hl = (size_t)(colon - listen);
  if (hl >= sizeof host) {
    snprintf(errbuf, cap, "--metrics-listen: host too long");
    return -1;
  }
  memcpy(host, listen, hl);
  host[hl] = '\0';
  if (hl >= 2 && host[0] == '[' && host[hl - 1] == ']') {
    memmove(host, host + 1, hl - 2);
    host[hl - 2] = '\0';
  }
  char *end;
  long port = strtol(colon + 1, &end, 10);
  if (*end || port < 0 || port > 65535) {
    snprintf(errbuf, cap, "--metrics-listen: bad port '%s'", colon + 1);
    return -1;
  }
  struct addrinfo hints, *res = NULL;
  memset(&hints, 0, sizeof hints);
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  int rc = getaddrinfo(host[0] ? host : NULL, colon + 1, &hints, &res);
  if (rc != 0 || !res) {
    snprintf(errbuf, cap, "--metrics-listen: cannot resolve '%s': %s", host, gai_strerror(rc));
    return -1;
  }
  memcpy(sa, res->ai_addr, res->ai_addrlen);
  *sl = res->ai_addrlen;
  *v6 = res->ai_family == AF_INET6;
  freeaddrinfo(res);
  return 0;
}

static char *make_labels(const char *table, const char *source) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) return NULL;
  fputs("table=\"", f);
  put_label_value(f, table);
  fputc('"', f);
  if (source) {
    fputs(",source=\"", f);
    put_label_value(f, source);
    fputc('"', f);
  }
  if (fclose(f) != 0) {
    free(buf);
    return NULL;
  }
  return buf;
}

int cli_service_start(cli_service **out, const cli_service_options *o, char *errbuf, size_t cap) {
  *out = NULL;
  bool notify = o->notify || getenv("NOTIFY_SOCKET") != NULL;
  if (!o->listen && !notify) return 0;
  cli_service *s = calloc(1, sizeof *s);
  if (!s) {
    snprintf(errbuf, cap, "out of memory");
    return -1;
  }
  pthread_mutex_init(&s->mu, NULL);
  s->stall_ms = o->stall_ms;
  s->start_ms = s->last_progress_ms = now_ms();
  s->last.last_version = -1;
  s->last.lag_ms = s->last.lag_bytes = -1;
  s->last.watermark_us = INT64_MIN;
  s->rows_h = (histogram){s->row_counts, row_buckets, N_ROW_BUCKETS, 0, 0};
  s->latency_h = (histogram){s->latency_counts, latency_buckets, N_LATENCY_BUCKETS, 0, 0};
  s->labels = make_labels(o->table, o->source);
  s->maintain = o->maintain;
  static const inlet_table_open_options default_open = INLET_TABLE_OPEN_OPTIONS_INIT;
  s->open_options = o->open_options ? *o->open_options : default_open;
  s->notify = notify;
  if (o->open_table) s->table_location = strdup(o->open_table);
  if (!s->labels || (o->open_table && !s->table_location)) {
    snprintf(errbuf, cap, "out of memory");
    cli_service_stop(s);
    return -1;
  }
  if (notify) {
    uint64_t usec = 0;
    if (sd_watchdog_enabled(0, &usec) > 0) s->watchdog_usec = usec;
  }
  if (o->listen) {
    struct sockaddr_storage sa;
    socklen_t sl = 0;
    bool v6 = false;
    if (resolve(o->listen, &sa, &sl, &v6, errbuf, cap) < 0) {
      cli_service_stop(s);
      return -1;
    }
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL;
    if (v6) flags |= MHD_USE_IPv6;
    s->httpd = MHD_start_daemon(flags, 0, NULL, NULL, answer, s, MHD_OPTION_SOCK_ADDR,
                                (struct sockaddr *)&sa, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)10,
                                MHD_OPTION_END);
    if (!s->httpd) {
      snprintf(errbuf, cap, "--metrics-listen: cannot listen on %s (address in use?)", o->listen);
      cli_service_stop(s);
      return -1;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->httpd, MHD_DAEMON_INFO_BIND_PORT);
    char host[INET6_ADDRSTRLEN] = "";
    if (v6)
      inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&sa)->sin6_addr, host, sizeof host);
    else
      inet_ntop(AF_INET, &((struct sockaddr_in *)&sa)->sin_addr, host, sizeof host);
    char fields[128];
    snprintf(fields, sizeof fields, "\"port\":%u", info ? (unsigned)info->port : 0u);
    cli_log("info", "metrics_listening", fields,
            "metrics on http://%s%s%s:%u/metrics, health on /healthz", v6 ? "[" : "", host,
            v6 ? "]" : "", info ? (unsigned)info->port : 0u);
  }
  *out = s;
  return 0;
}

static void notify_progress(cli_service *s, const inlet_ingest_progress *p, int64_t now) {
  if (!s->notify) return;
  char msg[512];
  size_t n = 0;
  msg[0] = '\0';
  if (p->event == INLET_INGEST_STARTED)
    n += (size_t)snprintf(msg + n, sizeof msg - n, "READY=1\nSTATUS=ingesting\n");
  if (p->event == INLET_INGEST_BATCH)
    n += (size_t)snprintf(msg + n, sizeof msg - n,
                          "STATUS=%lld batches, %lld rows, %lld rejected, table version %lld\n",
                          (long long)p->batches, (long long)p->rows, (long long)p->rejected,
                          (long long)p->last_version);
  if (s->watchdog_usec > 0 && (s->watchdog_sent_ms == 0 || (now - s->watchdog_sent_ms) * 1000 >=
                                                               (int64_t)(s->watchdog_usec / 4))) {
    if (n < sizeof msg) n += (size_t)snprintf(msg + n, sizeof msg - n, "WATCHDOG=1\n");
    s->watchdog_sent_ms = now;
  }
  if (n > 0) sd_notify(0, msg);
}

/* Under mu. A partition count that cannot be stored keeps the last one. */
static void copy_parts(cli_service *s, const inlet_ingest_progress *p) {
  if (p->n_parts > s->cap_parts) {
    part_metrics *np = realloc(s->parts, (size_t)p->n_parts * 2 * sizeof *np);
    if (!np) return;
    s->parts = np;
    s->cap_parts = p->n_parts * 2;
  }
  for (int32_t i = 0; i < p->n_parts; i++) {
    const inlet_ingest_part_progress *q = &p->parts[i];
    part_metrics *m = &s->parts[i];
    snprintf(m->topic, sizeof m->topic, "%s", q->topic ? q->topic : "");
    m->partition = q->partition;
    m->assigned = q->assigned;
    m->committed_records = q->committed_records;
    m->rejected = q->rejected;
    m->late = q->late;
    m->offset = q->offset;
    m->high_watermark = q->high_watermark;
    m->lag_records = q->assigned ? q->lag_records : -1;
  }
  s->n_parts = p->n_parts;
}

void cli_service_progress(cli_service *s, const inlet_ingest_progress *p) {
  if (!s) return;
  int64_t now = now_ms();
  notify_progress(s, p, now);
  pthread_mutex_lock(&s->mu);
  if (p->event == INLET_INGEST_STARTED) s->started = true;
  if (p->event == INLET_INGEST_FINISHED) s->finished = true;
  if (p->event == INLET_INGEST_BATCH || p->bytes > s->last.bytes ||
      p->event == INLET_INGEST_STARTED)
    s->last_progress_ms = now;
  if (p->event == INLET_INGEST_BATCH) {
    s->last_success_ms = now;
    histogram_add(&s->rows_h, (double)p->batch_rows);
    if (p->batch_latency_ms >= 0) histogram_add(&s->latency_h, (double)p->batch_latency_ms / 1e3);
  }
  s->last = *p;
  s->last.app_id = s->last.position = s->last.message = s->last.status = NULL;
  s->last.parts = NULL;
  copy_parts(s, p);
  pthread_mutex_unlock(&s->mu);
}

void cli_service_pass(cli_service *s, const cli_maintain_pass *p) {
  if (!s) return;
  int64_t now = now_ms();
  if (s->notify) {
    char msg[256];
    snprintf(msg, sizeof msg, "%sSTATUS=%s, table version %lld\n%s", s->passes ? "" : "READY=1\n",
             p->ok ? "last pass ok" : "last pass failed",
             (long long)(p->described ? p->desc.version : -1), p->ok ? "WATCHDOG=1\n" : "");
    sd_notify(0, msg);
  }
  pthread_mutex_lock(&s->mu);
  s->passes++;
  if (!p->ok) s->failed_passes++;
  if (p->ok) s->last_success_ms = now;
  if (p->compacted) s->compaction_runs++;
  s->compact_sum.commits += p->compact.commits;
  s->compact_sum.failed_groups += p->compact.failed_groups;
  s->compact_sum.files_removed += p->compact.files_removed;
  s->compact_sum.files_added += p->compact.files_added;
  s->compact_sum.bytes_removed += p->compact.bytes_removed;
  s->compact_sum.bytes_added += p->compact.bytes_added;
  s->compact_sum.rows += p->compact.rows;
  s->log_sum.commits_removed += p->log.commits_removed;
  s->log_sum.checkpoints_removed += p->log.checkpoints_removed;
  s->vacuum_sum.files += p->vacuum.files;
  s->vacuum_sum.bytes += p->vacuum.bytes;
  s->checkpoints_seen += p->checkpoints;
  if (p->described) {
    s->desc = p->desc;
    s->files_known = true;
  }
  pthread_mutex_unlock(&s->mu);
}

void cli_service_stop(cli_service *s) {
  if (!s) return;
  if (s->notify) sd_notify(0, "STOPPING=1");
  if (s->httpd) MHD_stop_daemon(s->httpd);
  inlet_table_free(s->table);
  free(s->table_location);
  free(s->labels);
  free(s->parts);
  pthread_mutex_destroy(&s->mu);
  free(s);
}
