/*
 * The ingester's side of partitioned sources (Kafka; stream.h "partitioned
 * sources"): per-part progress txns for a commit, the position text of
 * commitInfo, and dead letters in one file per part range.
 *
 * Progress: a commit carries, for every part it advanced (records read, or
 * a position to record), txn part->txn = the next offset, and with an
 * event-time column part->txn_wm = its watermark; each with the version the
 * table recorded when the batch started as the precondition
 * (delta_writer_set_txns), so a part that another ingester advanced in a
 * rebalance race makes the commit fail instead of duplicating rows. There
 * is no batch-sequence txn: members of a consumer group commit to one table
 * at once, each with its own parts, and a shared txn would make every pair
 * of their commits conflict.
 *
 * Dead letters: `<topic>-<partition>-<from>_<to>.ndjson` for the batch's
 * range [from, to) of that partition. A replay of the same range rewrites
 * the same name; after a commit every other `<topic>-<partition>-<from>_*`
 * (an attempt that died or lost the race) goes, as for single sources.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "delta/delta.h"
#include "stream/stream.h"
#include "util/util.h"

#define METRICS_CAP ((size_t)1 << 16)

bool ingest_part_advanced(const stream_part *p) {
  return p->next > p->start || p->record;
}

static int grow(ingest_parts *ip, int need, inlet_error *err) {
  if (need <= ip->cap) return 0;
  int nc = ip->cap ? ip->cap : 16;
  while (nc < need)
    nc *= 2;
  const char **n = inlet_realloc(ip->names, (size_t)nc * sizeof *n);
  if (n) ip->names = n;
  int64_t *v = inlet_realloc(ip->ver, (size_t)nc * sizeof *v);
  if (v) ip->ver = v;
  int64_t *e = inlet_realloc(ip->exp, (size_t)nc * sizeof *e);
  if (e) ip->exp = e;
  if (!n || !v || !e) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  ip->cap = nc;
  return 0;
}

int ingest_parts_txns(ingest_parts *ip, const stream_source *s, bool watermark, inlet_error *err) {
  ip->n = 0;
  for (int i = 0; i < s->n_parts; i++) {
    const stream_part *p = s->parts[i];
    if (!ingest_part_advanced(p)) continue;
    TRY(grow(ip, ip->n + 2, err));
    ip->names[ip->n] = p->txn;
    ip->ver[ip->n] = p->next;
    ip->exp[ip->n++] = p->table;
    if (watermark) {
      ip->names[ip->n] = p->txn_wm;
      ip->ver[ip->n] = p->wm.value == INT64_MIN ? -1 : p->wm.value;
      ip->exp[ip->n++] = p->wm_table;
    }
  }
  return 0;
}

int ingest_parts_late_txns(ingest_parts *ip, const stream_source *s, inlet_error *err) {
  ip->n = 0;
  for (int i = 0; i < s->n_parts; i++) {
    const stream_part *p = s->parts[i];
    if (!ingest_part_advanced(p)) continue;
    TRY(grow(ip, ip->n + 1, err));
    ip->names[ip->n] = p->txn_late;
    ip->ver[ip->n] = p->next;
    ip->exp[ip->n++] = p->late_routed;
  }
  return 0;
}

/* "t/p:offset,..." of the advanced parts, at most @p cap bytes (a list cut
 * short ends in ",..."). */
static void positions(char *out, size_t cap, const stream_source *s, bool end) {
  size_t l = 0;
  out[0] = '\0';
  for (int i = 0; i < s->n_parts; i++) {
    const stream_part *p = s->parts[i];
    if (!ingest_part_advanced(p)) continue;
    char item[360];
    int n = snprintf(item, sizeof item, "%s%s:%lld", l ? "," : "", p->label,
                     (long long)(end ? p->next : p->start));
    if (n < 0 || l + (size_t)n + 5 >= cap) {
      if (l + 5 < cap) snprintf(out + l, cap - l, ",...");
      return;
    }
    memcpy(out + l, item, (size_t)n + 1);
    l += (size_t)n;
  }
}

int ingest_parts_init(ingest_parts *ip, inlet_error *err) {
  ip->metrics = inlet_malloc(METRICS_CAP);
  ip->from = inlet_malloc(METRICS_CAP / 4);
  ip->to = inlet_malloc(METRICS_CAP / 4);
  if (!ip->metrics || !ip->from || !ip->to) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  snprintf(ip->metrics, METRICS_CAP, "{}");
  return 0;
}

void ingest_parts_metrics(ingest_parts *ip, const stream_source *s, const char *common,
                          const char *app_json) {
  positions(ip->from, METRICS_CAP / 4, s, false);
  positions(ip->to, METRICS_CAP / 4, s, true);
  snprintf(ip->metrics, METRICS_CAP,
           "{%s,\"sourceStartPosition\":\"%s\",\"sourcePosition\":"
           "\"%s\",\"ingestAppId\":%s}",
           common, ip->from, ip->to, app_json);
}

void ingest_parts_committed(const stream_source *s, bool watermark) {
  for (int i = 0; i < s->n_parts; i++) {
    stream_part *p = s->parts[i];
    p->committed_records += p->batch_records;
    p->committed_rejected += p->batch_rejected;
    p->committed_late += p->batch_late;
    p->batch_records = p->batch_rejected = p->batch_late = 0;
    if (!ingest_part_advanced(p)) continue;
    p->table = p->next;
    p->start = p->next;
    p->record = false;
    if (watermark) p->wm_table = p->wm.value == INT64_MIN ? -1 : p->wm.value;
  }
}

void ingest_parts_late_committed(const stream_source *s) {
  for (int i = 0; i < s->n_parts; i++) {
    stream_part *p = s->parts[i];
    if (ingest_part_advanced(p)) p->late_routed = p->next;
  }
}

int64_t ingest_parts_watermark(const stream_source *s) {
  int64_t w = INT64_MIN;
  for (int i = 0; i < s->n_parts; i++) {
    const stream_part *p = s->parts[i];
    if (p->active && p->wm.value != INT64_MIN && (w == INT64_MIN || p->wm.value < w))
      w = p->wm.value;
  }
  return w;
}

void ingest_parts_summary(char *out, size_t cap, const stream_source *s) {
  size_t l = 0;
  int shown = 0, active = 0;
  out[0] = '\0';
  for (int i = 0; i < s->n_parts; i++) {
    const stream_part *p = s->parts[i];
    if (!p->active) continue;
    active++;
    char item[360];
    int n = snprintf(item, sizeof item, "%s%s:%lld", l ? "," : "", p->label,
                     (long long)(p->table >= 0 ? p->table : p->start));
    if (n > 0 && l + (size_t)n + 8 < cap) {
      memcpy(out + l, item, (size_t)n + 1);
      l += (size_t)n;
      shown++;
    }
  }
  if (shown < active && l + 5 < cap) snprintf(out + l, cap - l, ",...");
  if (active == 0) snprintf(out, cap, "no partition assigned");
}

void ingest_parts_free(ingest_parts *ip) {
  inlet_free(ip->names);
  inlet_free(ip->ver);
  inlet_free(ip->exp);
  inlet_free(ip->metrics);
  inlet_free(ip->from);
  inlet_free(ip->to);
  memset(ip, 0, sizeof *ip);
}

/* ---- dead letters ------------------------------------------------------------ */

static void file_prefix(char *out, size_t cap, const stream_part *p, int64_t from) {
  snprintf(out, cap, "%s-%d-%lld_", p->topic, (int)p->partition, (long long)from);
}

int ingest_part_dl_publish(stream_part *p, inlet_storage *st, const char *dir, inlet_error *err) {
  inlet_free(p->dl_published);
  p->dl_published = NULL;
  if (!p->dl.f) return 0;
  char prefix[400], name[PATH_MAX];
  file_prefix(prefix, sizeof prefix, p, p->start);
  if (snprintf(name, sizeof name, "%s/%s%lld.ndjson", dir, prefix, (long long)p->next) >=
      (int)sizeof name) {
    stream_dl_discard(&p->dl);
    return inlet_fail(err, INLET_ELIMIT, "dead-letter path too long in %s", dir);
  }
  /* A replay of the same range rewrites the same name. */
  TRY(stream_dl_publish(&p->dl, st, name, err));
  p->dl_published = inlet_strdup(name);
  return p->dl_published ? 0 : inlet_fail(err, INLET_ENOMEM, "out of memory");
}

/* "<offset>.ndjson" after the prefix, not another topic's file ("a-1-2_x-0-5_9"). */
static bool offset_file(const char *rest) {
  size_t digits = strspn(rest, "0123456789");
  return digits > 0 && strcmp(rest + digits, ".ndjson") == 0;
}

/* After the commit of [start, next): every other "<topic>-<partition>-<start>_*"
 * was written by an attempt on the same start that did not commit. */
void ingest_part_dl_cleanup(const stream_part *p, inlet_storage *st, const char *dir, int64_t from,
                            int64_t to) {
  char prefix[400], keep[440];
  file_prefix(prefix, sizeof prefix, p, from);
  snprintf(keep, sizeof keep, "%s%lld.ndjson", prefix, (long long)to);
  stream_dl_remove(st, dir, prefix, keep, offset_file);
}
