/*
 * The ingester in-process (inlet_ingest_run): batch triggers end to end,
 * progress events, the stop flag (finish the batch, return 0), idle events
 * while following, empty sources making no commit, strict mode, event-time
 * and option validation.
 */
#include "testutil.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inlet/inlet.h"

typedef struct counts {
  int started, batches, idle, finished, warnings;
  int64_t batch_rows[64];
  int stop_after_batches; /* 0: never */
  int stop_after_idle;
  volatile sig_atomic_t stop;
} counts;

static void on_progress(void *ctx, const inlet_ingest_progress *p) {
  counts *c = ctx;
  switch (p->event) {
  case INLET_INGEST_STARTED: c->started++; break;
  case INLET_INGEST_BATCH:
    if (c->batches < 64) c->batch_rows[c->batches] = p->batch_rows;
    c->batches++;
    if (c->stop_after_batches && c->batches >= c->stop_after_batches) c->stop = 1;
    break;
  case INLET_INGEST_IDLE:
    c->idle++;
    if (c->stop_after_idle && c->idle >= c->stop_after_idle) c->stop = 1;
    break;
  case INLET_INGEST_WARNING: c->warnings++; break;
  case INLET_INGEST_FINISHED: c->finished++; break;
  }
}

typedef struct fx {
  char dir[400];
  char src[512];
  char source[600];
  inlet_table *t;
} fx;

static int setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  snprintf(f->dir, sizeof f->dir, "%s", tu_mkdtemp("ingest_core"));
  snprintf(f->src, sizeof f->src, "%s/in.ndjson", f->dir);
  snprintf(f->source, sizeof f->source, "file:%s", f->src);
  char path[600];
  snprintf(path, sizeof path, "%s/t", f->dir);
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  if (inlet_schema_parse(&s, "id long not null, ts timestamp", &err) < 0) return -1;
  int rc = inlet_table_create(&f->t, path, &s, NULL, &err);
  inlet_schema_reset(&s);
  if (rc < 0) return -1;
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fx *f = *state;
  inlet_table_free(f->t);
  tu_rmtree(f->dir);
  free(f);
  return 0;
}

static void write_rows(const char *path, int n) {
  FILE *fp = fopen(path, "w");
  for (int i = 0; i < n; i++)
    fprintf(fp, "{\"id\":%d,\"ts\":\"2024-01-01T00:00:%02dZ\"}\n", i, i % 60);
  fclose(fp);
}

static int64_t table_version(inlet_table *t) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_snapshot *s = NULL;
  assert_int_equal(inlet_table_snapshot(&s, t, &err), 0);
  int64_t v = inlet_snapshot_version(s);
  inlet_snapshot_free(s);
  return v;
}

static void test_core__max_rows_splits_batches(void **state) {
  fx *f = *state;
  write_rows(f->src, 1000);
  counts c;
  memset(&c, 0, sizeof c);
  inlet_ingest_options o = INLET_INGEST_OPTIONS_INIT;
  o.source = f->source;
  o.max_rows = 300;
  o.on_progress = on_progress;
  o.ctx = &c;
  inlet_ingest_progress p;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_ingest_run(&p, f->t, &o, &err), 0);
  assert_int_equal(c.started, 1);
  assert_int_equal(c.finished, 1);
  assert_int_equal(c.batches, 4);
  assert_int_equal(c.batch_rows[0], 300);
  assert_int_equal(c.batch_rows[2], 300);
  assert_int_equal(c.batch_rows[3], 100); /* the source ended */
  assert_int_equal(p.rows, 1000);
  assert_int_equal(p.last_version, 4);
  assert_int_equal(p.sequence, 4);
  assert_int_equal(table_version(f->t), 4);
}

static void test_core__max_bytes_counts_source_bytes(void **state) {
  fx *f = *state;
  FILE *fp = fopen(f->src, "w");
  for (int i = 100; i < 200; i++)
    fprintf(fp, "{\"id\":%d}\n", i); /* 11 bytes a line */
  fclose(fp);
  counts c;
  memset(&c, 0, sizeof c);
  inlet_ingest_options o = INLET_INGEST_OPTIONS_INIT;
  o.source = f->source;
  o.max_bytes = 11 * 10;
  o.on_progress = on_progress;
  o.ctx = &c;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_ingest_run(NULL, f->t, &o, &err), 0);
  assert_int_equal(c.batches, 10);
  assert_int_equal(c.batch_rows[0], 10);
}

static void test_core__stop_flag_finishes_the_batch_and_returns_zero(void **state) {
  fx *f = *state;
  write_rows(f->src, 1000);
  counts c;
  memset(&c, 0, sizeof c);
  c.stop_after_batches = 2;
  inlet_ingest_options o = INLET_INGEST_OPTIONS_INIT;
  o.source = f->source;
  o.max_rows = 100;
  o.on_progress = on_progress;
  o.ctx = &c;
  o.stop = &c.stop;
  inlet_ingest_progress p;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_ingest_run(&p, f->t, &o, &err), 0);
  assert_int_equal(c.batches, 2);
  assert_int_equal(p.rows, 200);
  /* The next run resumes after row 200. */
  memset(&c, 0, sizeof c);
  o.stop = NULL;
  assert_int_equal(inlet_ingest_run(&p, f->t, &o, &err), 0);
  assert_int_equal(p.rows, 800);
  assert_int_equal(c.batches, 8);
}

static void test_core__follow_idles_then_stops(void **state) {
  fx *f = *state;
  write_rows(f->src, 5);
  counts c;
  memset(&c, 0, sizeof c);
  c.stop_after_idle = 2;
  inlet_ingest_options o = INLET_INGEST_OPTIONS_INIT;
  o.source = f->source;
  o.follow = true;
  o.max_latency_ms = 50;
  o.idle_event_ms = 50;
  o.poll_ms = 10;
  o.on_progress = on_progress;
  o.ctx = &c;
  o.stop = &c.stop;
  inlet_ingest_progress p;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_ingest_run(&p, f->t, &o, &err), 0);
  assert_int_equal(c.batches, 1); /* the latency trigger committed the 5 rows */
  assert_true(c.idle >= 2);
  assert_int_equal(p.rows, 5);
  assert_int_equal(p.lag_bytes, 0);
}

static void test_core__empty_source_makes_no_commit(void **state) {
  fx *f = *state;
  tu_write_file(f->src, "\n\n  \n", 5);
  inlet_ingest_options o = INLET_INGEST_OPTIONS_INIT;
  o.source = f->source;
  inlet_ingest_progress p;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_ingest_run(&p, f->t, &o, &err), 0);
  assert_int_equal(p.batches, 0);
  assert_int_equal(table_version(f->t), 0);
}

static void test_core__strict_rejects_unknown_fields(void **state) {
  fx *f = *state;
  const char *text = "{\"id\":1,\"extra\":2}\n{\"id\":2}\n";
  tu_write_file(f->src, text, strlen(text));
  inlet_ingest_options o = INLET_INGEST_OPTIONS_INIT;
  o.source = f->source;
  o.strict = true;
  inlet_ingest_progress p;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_ingest_run(&p, f->t, &o, &err), 0);
  assert_int_equal(p.rows, 1);
  assert_int_equal(p.rejected, 1);
}

static void test_core__option_and_column_errors(void **state) {
  fx *f = *state;
  write_rows(f->src, 1);
  inlet_error err = INLET_ERROR_INIT;
  inlet_ingest_options o = INLET_INGEST_OPTIONS_INIT;
  assert_int_equal(inlet_ingest_run(NULL, f->t, &o, &err), INLET_EINVAL); /* no source */
  o.source = f->source;
  o.event_time_column = "nope";
  assert_int_equal(inlet_ingest_run(NULL, f->t, &o, &err), INLET_EINVAL);
  o.event_time_column = "id";
  assert_int_equal(inlet_ingest_run(NULL, f->t, &o, &err), INLET_EUNSUPPORTED);
  o.event_time_column = NULL;
  o.late_policy = INLET_LATE_DROP;
  assert_int_equal(inlet_ingest_run(NULL, f->t, &o, &err), INLET_EINVAL);
  o.late_policy = INLET_LATE_KEEP;
  o.source = "file:/nonexistent/x.ndjson";
  assert_int_equal(inlet_ingest_run(NULL, f->t, &o, &err), INLET_ENOTFOUND);
  o.version = 99;
  assert_int_equal(inlet_ingest_run(NULL, f->t, &o, &err), INLET_EINVAL);
  assert_int_equal(table_version(f->t), 0);
}

/* A caller built against version 1 of the options has a struct that ends
 * before kafka_group and a progress struct that ends before status: both are
 * allocated to exactly that size here, so ASan reports any access past them. */
static void test_core__version_1_options_are_read_only_to_their_end(void **state) {
  fx *f = *state;
  write_rows(f->src, 3);
  size_t o_size = offsetof(inlet_ingest_options, kafka_group);
  size_t p_size = offsetof(inlet_ingest_progress, status);
  inlet_ingest_options full = INLET_INGEST_OPTIONS_INIT;
  full.version = 1;
  full.source = f->source;
  full.max_rows = 2;
  inlet_ingest_options *o = malloc(o_size);
  memcpy(o, &full, o_size);
  inlet_ingest_progress *p = malloc(p_size);
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_ingest_run(p, f->t, o, &err), 0);
  assert_int_equal(p->rows, 3);
  assert_int_equal(p->batches, 2);
  assert_int_equal(table_version(f->t), 2);
  free(o);
  free(p);
}

/* Version 4 options: unknown fields rejected by default, IGNORE counts them in
 * the progress, ADD is refused for CSV, and max_rejected stops the run with
 * INLET_EREJECTED after committing the batch that passed the limit. */
static void test_core__schema_evolution_and_rejected_limit(void **state) {
  fx *f = *state;
  const char *text = "{\"id\":1,\"x\":1,\"y\":2}\n{\"id\":2}\n{\"id\":\"3\"}\n{\"id\":4}\n";
  tu_write_file(f->src, text, strlen(text));
  inlet_ingest_options o = INLET_INGEST_OPTIONS_INIT;
  o.source = f->source;
  o.schema_evolution = INLET_SCHEMA_EVOLUTION_ADD;
  o.format = INLET_TEXT_CSV; /* types are inferred from JSON values only */
  inlet_ingest_progress p;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_ingest_run(&p, f->t, &o, &err), INLET_EUNSUPPORTED);
  assert_non_null(strstr(err.message, "NDJSON"));
  o.format = INLET_TEXT_NDJSON;
  /* At most 1 rejected: the second ("3" is a string) passes it, after record 3. */
  o.schema_evolution = INLET_SCHEMA_EVOLUTION_REJECT;
  o.max_rejected = 1;
  assert_int_equal(inlet_ingest_run(&p, f->t, &o, &err), INLET_EREJECTED);
  assert_non_null(strstr(err.message, "2 records rejected"));
  assert_int_equal(p.rows, 1);
  assert_int_equal(p.rejected, 2);
  assert_int_equal(table_version(f->t), 1);
  /* The rest, then a fresh app id with IGNORE and coerce: every record, 2 fields. */
  o.max_rejected = -1;
  assert_int_equal(inlet_ingest_run(&p, f->t, &o, &err), 0);
  assert_int_equal(p.rows, 1);
  o.app_id = "again";
  o.schema_evolution = INLET_SCHEMA_EVOLUTION_IGNORE;
  o.coerce = true;
  assert_int_equal(inlet_ingest_run(&p, f->t, &o, &err), 0);
  assert_int_equal(p.rows, 4);
  assert_int_equal(p.rejected, 0);
  assert_int_equal(p.ignored_fields, 2);
}

/* A version-3 caller: its options end before schema_evolution and its progress
 * before ignored_fields (exact-size allocations, so ASan sees any overread);
 * it keeps what versions up to 3 did: unknown fields dropped, lenient
 * conversions. */
static void test_core__version_3_options_keep_their_behaviour(void **state) {
  fx *f = *state;
  const char *text = "{\"id\":1,\"x\":1}\n{\"id\":\"2\"}\n";
  tu_write_file(f->src, text, strlen(text));
  size_t o_size = offsetof(inlet_ingest_options, schema_evolution);
  size_t p_size = offsetof(inlet_ingest_progress, ignored_fields);
  inlet_ingest_options full = INLET_INGEST_OPTIONS_INIT;
  full.version = 3;
  full.source = f->source;
  inlet_ingest_options *o = malloc(o_size);
  memcpy(o, &full, o_size);
  inlet_ingest_progress *p = malloc(p_size);
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_ingest_run(p, f->t, o, &err), 0);
  assert_int_equal(p->rows, 2);
  assert_int_equal(p->rejected, 0);
  free(o);
  free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_core__version_1_options_are_read_only_to_their_end,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_core__max_rows_splits_batches, setup, teardown),
      cmocka_unit_test_setup_teardown(test_core__max_bytes_counts_source_bytes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_core__stop_flag_finishes_the_batch_and_returns_zero,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_core__follow_idles_then_stops, setup, teardown),
      cmocka_unit_test_setup_teardown(test_core__empty_source_makes_no_commit, setup, teardown),
      cmocka_unit_test_setup_teardown(test_core__strict_rejects_unknown_fields, setup, teardown),
      cmocka_unit_test_setup_teardown(test_core__option_and_column_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_core__schema_evolution_and_rejected_limit, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_core__version_3_options_keep_their_behaviour, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
