/*
 * Small pieces of streaming ingestion: position text and txn names, the
 * file fingerprint, micro-batch triggers, the watermark, event
 * times and the watermark-gated split used by scans
 * (include/inlet/ingest.h, "Watermarks and late data").
 */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "stream/stream.h"
#include "util/util.h"

void stream_notice(stream_source *s, const char *fmt, ...) {
  char line[1200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (s->notice.len) inlet_buf_push(&s->notice, '\n');
  inlet_buf_puts(&s->notice, line);
}

void stream_txn_name(char *out, size_t cap, const char *app_id, const char *suffix) {
  snprintf(out, cap, "%s%s", app_id, suffix ? suffix : "");
}

void stream_pos_format(char *out, size_t cap, stream_kind kind, const stream_pos *pos) {
  if (!pos->valid) {
    snprintf(out, cap, "start");
    return;
  }
  switch (kind) {
  case STREAM_FILE:
    snprintf(out, cap, "i%lld-o%lld", (long long)pos->p[0], (long long)pos->p[1]);
    break;
  case STREAM_REDIS:
    snprintf(out, cap, "%lld-%lld", (long long)pos->p[0], (long long)pos->p[1]);
    break;
  default: snprintf(out, cap, "o%lld", (long long)pos->p[1]); break;
  }
}

int64_t stream_fingerprint(const void *data, size_t n) {
  const uint8_t *p = data;
  uint64_t h = 14695981039346656037ULL;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 1099511628211ULL;
  }
  return (int64_t)(h >> 2);
}

void stream_trigger_reset(stream_trigger *t) {
  t->rows = 0;
  t->bytes = 0;
  t->first_ms = -1;
}

void stream_trigger_add(stream_trigger *t, int64_t rows, int64_t bytes, int64_t now_ms) {
  if (t->first_ms < 0) t->first_ms = now_ms;
  t->rows += rows;
  t->bytes += bytes;
}

bool stream_trigger_due(const stream_trigger *t, int64_t now_ms) {
  if (t->first_ms < 0) return false;
  if (t->max_rows > 0 && t->rows >= t->max_rows) return true;
  if (t->max_bytes > 0 && t->bytes >= t->max_bytes) return true;
  return now_ms - t->first_ms >= t->max_latency_ms;
}

int64_t stream_trigger_wait_ms(const stream_trigger *t, int64_t now_ms) {
  if (t->first_ms < 0) return t->max_latency_ms;
  int64_t left = t->first_ms + t->max_latency_ms - now_ms;
  return left < 0 ? 0 : left;
}

void stream_watermark_init(stream_watermark *w, int64_t lateness_us, int64_t restored) {
  w->lateness_us = lateness_us < 0 ? 0 : lateness_us;
  w->value = restored;
  /* The maximum seen is not stored; the watermark implies a lower bound. */
  w->max_event_us = restored == INT64_MIN ? INT64_MIN : restored + w->lateness_us;
}

bool stream_watermark_observe(stream_watermark *w, int64_t event_us) {
  bool late = w->value != INT64_MIN && event_us < w->value;
  if (w->max_event_us == INT64_MIN || event_us > w->max_event_us) {
    w->max_event_us = event_us;
    int64_t v = event_us >= INT64_MIN + w->lateness_us ? event_us - w->lateness_us : INT64_MIN + 1;
    if (w->value == INT64_MIN || v > w->value) w->value = v;
  }
  return late;
}

int64_t stream_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t stream_now_coarse_ms(void) {
  struct timespec ts;
#ifdef CLOCK_MONOTONIC_COARSE
  if (clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) == 0)
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
#endif
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t stream_wall_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

bool inlet_event_time_us(const inlet_array *a, const inlet_field *f, int64_t row, int64_t *out) {
  if (row < 0 || row >= a->length || !inlet_array_is_valid(a, row)) return false;
  if (f->type.id == INLET_TYPE_DATE) {
    *out = (int64_t)((const int32_t *)a->values)[row] * 86400000000LL;
    return true;
  }
  if (f->type.id != INLET_TYPE_TIMESTAMP) return false;
  int64_t v = ((const int64_t *)a->values)[row];
  switch (f->type.unit) {
  case INLET_UNIT_SECOND:
    v = v > INT64_MAX / 1000000 ? INT64_MAX : v < INT64_MIN / 1000000 ? INT64_MIN : v * 1000000;
    break;
  case INLET_UNIT_MILLI:
    v = v > INT64_MAX / 1000 ? INT64_MAX : v < INT64_MIN / 1000 ? INT64_MIN : v * 1000;
    break;
  case INLET_UNIT_MICRO: break;
  case INLET_UNIT_NANO: v = v >= 0 ? v / 1000 : -((-(v + 1)) / 1000) - 1; break;
  }
  *out = v;
  return true;
}

int64_t inlet_watermark_split(uint8_t *selection, const inlet_batch *batch, const char *column,
                              int64_t watermark_us, bool late, inlet_error *err) {
  int ci = inlet_schema_find(&batch->schema, column);
  FAIL_IF(ci < 0, err, INLET_ENOTFOUND, "no column \"%s\" for the watermark split", column);
  const inlet_field *f = &batch->schema.fields[ci];
  FAIL_IF(f->type.id != INLET_TYPE_TIMESTAMP && f->type.id != INLET_TYPE_DATE, err, INLET_EINVAL,
          "column \"%s\" is not a timestamp or date", column);
  const inlet_array *a = &batch->columns[ci];
  int64_t n = 0;
  memset(selection, 0, (size_t)(batch->num_rows + 7) / 8);
  for (int64_t r = 0; r < batch->num_rows; r++) {
    int64_t t;
    bool is_late = inlet_event_time_us(a, f, r, &t) && t < watermark_us;
    if (is_late == late) {
      inlet_bit_set(selection, r, true);
      n++;
    }
  }
  return n;
}

int stream_text_reader_open(inlet_text_reader **out, const char *csv_header,
                            const inlet_schema *schema, const inlet_text_reader_options *ropt,
                            inlet_error *err) {
  *out = NULL;
  if (!csv_header) return inlet_text_reader_open_memory(out, "", 0, schema, ropt, err);
  TRY(inlet_text_reader_open_memory(out, csv_header, strlen(csv_header), schema, ropt, err));
  /* Reading the header is what maps the cells of the records after it. */
  inlet_batch tmp;
  memset(&tmp, 0, sizeof tmp);
  int rc = inlet_text_reader_next(*out, &tmp, err);
  inlet_batch_reset(&tmp);
  return rc;
}
