/*
 * Round-trip property tests for the Parquet writer and reader (issue 2,
 * section 5 "Proof": round trip and property tests with random data and
 * boundary values), through the public API only.
 *
 * The engine (roundtrip_engine.h, shared with fuzz/parquet_roundtrip_fuzzer.c)
 * draws schemas, rows and writer options, writes, reads back and compares bit
 * for bit. Seeds are fixed, so a failure names the case that reproduces it:
 *   INLET_RT_SEED=<seed> INLET_RT_CASES=1 ./test_roundtrip_property
 * INLET_RT_CASES raises or lowers the random case count (default 150); the
 * random test also stops early after a time budget so the suite stays fast
 * under ASan.
 */
#include "testutil.h"

#include <time.h>

#include "roundtrip_engine.h"

static char g_dir[4096];
static char g_path[4200];

static int setup(void **state) {
  (void)state;
  snprintf(g_dir, sizeof g_dir, "%s", tu_mkdtemp("roundtrip"));
  snprintf(g_path, sizeof g_path, "%s/rt.parquet", g_dir);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  tu_rmtree(g_dir);
  return 0;
}

static uint64_t env_u64(const char *name, uint64_t dflt) {
  const char *v = getenv(name);
  return v && *v ? strtoull(v, NULL, 0) : dflt;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Round-trips @p c and fails the test with the case description on a
 * mismatch; frees the case. */
static void check_case(rt_src *s, rt_case *c, const char *what) {
  char msg[2048];
  rt_describe(c);
  /* A sanitizer abort skips fail_msg: name the case first when asked. */
  if (getenv("INLET_RT_VERBOSE")) fprintf(stderr, "case %s: %s\n", what, c->desc);
  int rc = rt_roundtrip(s, c, g_path, msg, sizeof msg);
  rt_case_reset(c);
  if (rc) fail_msg("%s: %s", what, msg);
}

/* A one-column-kind case: @p k nullable with @p plan_nulls, next to the same
 * kind not null, with boundary-heavy values. */
static void kind_case_split(rt_src *s, rt_case *c, int k, int nulls, int values, int64_t rows,
                            int n_batches, const inlet_parquet_writer_options *opts) {
  inlet_error err = INLET_ERROR_INIT;
  memset(c, 0, sizeof *c);
  inlet_schema_init(&c->schema);
  for (int col = 0; col < 2; col++) {
    inlet_field f;
    snprintf(c->names.name[col], sizeof c->names.name[col], "k%d_%s", k, col ? "req" : "opt");
    rt_field_of_kind(s, &f, k, c->names.name[col]);
    if (col == 1) f.type = c->schema.fields[0].type; /* same parameters */
    f.nullable = col == 0;
    assert_int_equal(inlet_schema_add_field(&c->schema, &f, &err), 0);
  }
  c->opts = *opts;
  c->n_batches = n_batches;
  c->rows = rows;
  rt_colplan plans[2];
  for (int col = 0; col < 2; col++) {
    rt_plan_column(s, &c->schema.fields[col], &plans[col]);
    plans[col].nulls = col == 0 ? nulls : 0;
    plans[col].values = values;
  }
  for (int b = 0; b < n_batches; b++) {
    int64_t n = rows / n_batches + (b < rows % n_batches);
    assert_int_equal(inlet_batch_init(&c->batches[b], &c->schema, &err), 0);
    for (int col = 0; col < 2; col++)
      for (int64_t r = 0; r < n; r++)
        assert_int_equal(rt_gen_cell(s, &c->batches[b].columns[col], &c->schema.fields[col],
                                     &plans[col], NULL, 0, NULL, &err),
                         0);
    c->batches[b].num_rows = n;
  }
}

static void kind_case(rt_src *s, rt_case *c, int k, int nulls, int values, int64_t rows,
                      const inlet_parquet_writer_options *opts) {
  kind_case_split(s, c, k, nulls, values, rows, 1, opts);
}

static void test_roundtrip__random_cases_read_back_bit_exact(void **state) {
  (void)state;
  uint64_t base = env_u64("INLET_RT_SEED", 0x1e7);
  uint64_t cases = env_u64("INLET_RT_CASES", 150);
  rt_limits lim = {.max_cols = 6, .max_rows = 3000, .max_batches = 4, .huge_strings = 0};
  double t0 = now_s();
  uint64_t done = 0;
  for (uint64_t i = 0; i < cases; i++) {
    uint64_t seed = base + i;
    rt_src s;
    rt_src_seed(&s, seed);
    rt_case c;
    inlet_error err = INLET_ERROR_INIT;
    int rc = rt_gen_case(&s, &lim, &c, &err);
    if (rc != 0) {
      rt_case_reset(&c);
      fail_msg("seed %" PRIu64 ": generating the case: %s", seed, inlet_errmsg(&err));
    }
    char what[64];
    snprintf(what, sizeof what, "INLET_RT_SEED=%" PRIu64, seed);
    check_case(&s, &c, what);
    done++;
    if (now_s() - t0 > 15.0) break; /* keep the suite fast under ASan */
  }
  print_message("%" PRIu64 " random cases round-tripped\n", done);
  assert_true(done > 0);
}

/* Every type, boundary values, with and without nulls and dictionary, in a
 * few codecs. TIME/TIMESTAMP units, decimal widths and fixed widths vary per
 * seed, so the loop over seeds covers them all. */
static void test_roundtrip__boundary_values_of_every_type(void **state) {
  (void)state;
  rt_src s;
  rt_src_seed(&s, 42);
  for (int k = 0; k < RT_K_COUNT; k++) {
    for (int variant = 0; variant < 8; variant++) {
      inlet_parquet_writer_options o = INLET_PARQUET_WRITER_OPTIONS_INIT;
      o.sync_on_close = false;
      o.dictionary = variant & 1;
      o.compression = rt_codecs[variant % RT_N_CODECS];
      if (variant >= 6) o.page_bytes = 64;
      rt_case c;
      kind_case(&s, &c, k, 2 + variant % 2, 1, 300, &o);
      char what[64];
      snprintf(what, sizeof what, "kind %d variant %d", k, variant);
      check_case(&s, &c, what);
    }
  }
}

static void test_roundtrip__decimals_on_each_physical_width(void **state) {
  (void)state;
  rt_src s;
  rt_src_seed(&s, 7);
  /* Precision at both ends of INT32, INT64 and FIXED_LEN_BYTE_ARRAY storage. */
  static const int32_t precisions[] = {1, 9, 10, 18, 19, 20, 28, 37, 38};
  for (size_t p = 0; p < sizeof precisions / sizeof precisions[0]; p++) {
    for (int dict = 0; dict < 2; dict++) {
      inlet_parquet_writer_options o = INLET_PARQUET_WRITER_OPTIONS_INIT;
      o.sync_on_close = false;
      o.dictionary = dict;
      rt_case c;
      kind_case(&s, &c, RT_K_DEC32, 2, 1, 200, &o);
      for (int col = 0; col < 2; col++) {
        c.schema.fields[col].type.precision = precisions[p];
        c.schema.fields[col].type.scale = precisions[p] / 2;
      }
      /* Regenerate values for the new precision (the batch keeps its schema
       * copy, so replace the batch too). */
      inlet_batch_reset(&c.batches[0]);
      inlet_error err = INLET_ERROR_INIT;
      assert_int_equal(inlet_batch_init(&c.batches[0], &c.schema, &err), 0);
      for (int col = 0; col < 2; col++) {
        rt_colplan plan;
        rt_plan_column(&s, &c.schema.fields[col], &plan);
        plan.nulls = col == 0 ? 2 : 0;
        plan.values = (int)(p % 2);
        for (int r = 0; r < 200; r++)
          assert_int_equal(rt_gen_cell(&s, &c.batches[0].columns[col], &c.schema.fields[col], &plan,
                                       NULL, 0, NULL, &err),
                           0);
      }
      c.batches[0].num_rows = 200;
      char what[64];
      snprintf(what, sizeof what, "decimal(%d,%d) dict=%d", precisions[p], precisions[p] / 2, dict);
      check_case(&s, &c, what);
    }
  }
}

static void test_roundtrip__tiny_limits_force_many_pages_row_groups_and_fallback(void **state) {
  (void)state;
  rt_src s;
  rt_src_seed(&s, 99);
  static const int kinds[] = {RT_K_INT64, RT_K_DOUBLE, RT_K_STRING, RT_K_BOOL,
                              RT_K_FIXED, RT_K_DEC64,  RT_K_INT8};
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    inlet_parquet_writer_options o = INLET_PARQUET_WRITER_OPTIONS_INIT;
    o.sync_on_close = false;
    o.page_bytes = 100;
    o.row_group_bytes = 8192;
    o.dictionary = true;
    o.dictionary_page_bytes = 64; /* random values overflow it: PLAIN fallback */
    o.compression = rt_codecs[k % RT_N_CODECS];
    rt_case c;
    /* Several writes: the writer measures row group size between slices of
     * what it is given, and sizes its first slice before it can measure. */
    kind_case_split(&s, &c, kinds[k], 3, 0, 4000, 8, &o);
    rt_describe(&c);
    char msg[2048];
    int rc = rt_write(&c, g_path, msg, sizeof msg);
    if (rc) {
      rt_case_reset(&c);
      fail_msg("kind %d: %s", kinds[k], msg);
    }
    inlet_parquet_reader *r = NULL;
    inlet_parquet_reader_options ro = INLET_PARQUET_READER_OPTIONS_INIT;
    inlet_error err = INLET_ERROR_INIT;
    assert_int_equal(inlet_parquet_reader_open(&r, g_path, &ro, &err), 0);
    int32_t n_rg = inlet_parquet_reader_num_row_groups(r);
    inlet_parquet_reader_free(r);
    if (kinds[k] != RT_K_BOOL && kinds[k] != RT_K_INT8 && n_rg < 2) {
      rt_case_reset(&c);
      fail_msg("kind %d: %d row group(s) for 4000 rows with 8 KiB row groups", kinds[k], n_rg);
    }
    rc = rt_verify(&c, g_path, NULL, 0, msg, sizeof msg);
    rt_case_reset(&c);
    if (rc) fail_msg("kind %d: %s", kinds[k], msg);
  }
}

static void test_roundtrip__row_count_limit_splits_row_groups_exactly(void **state) {
  (void)state;
  rt_src s;
  rt_src_seed(&s, 5);
  inlet_parquet_writer_options o = INLET_PARQUET_WRITER_OPTIONS_INIT;
  o.sync_on_close = false;
  o.row_group_max_rows = 100;
  rt_case c;
  kind_case(&s, &c, RT_K_INT32, 2, 0, 1050, &o);
  char msg[2048];
  rt_describe(&c);
  if (rt_write(&c, g_path, msg, sizeof msg) != 0) {
    rt_case_reset(&c);
    fail_msg("%s", msg);
  }
  inlet_parquet_reader *r = NULL;
  inlet_parquet_reader_options ro = INLET_PARQUET_READER_OPTIONS_INIT;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_parquet_reader_open(&r, g_path, &ro, &err), 0);
  assert_int_equal(inlet_parquet_reader_num_row_groups(r), 11);
  for (int32_t g = 0; g < 10; g++)
    assert_int_equal(inlet_parquet_reader_row_group_rows(r, g), 100);
  assert_int_equal(inlet_parquet_reader_row_group_rows(r, 10), 50);
  inlet_parquet_reader_free(r);
  int rc = rt_verify(&c, g_path, NULL, 0, msg, sizeof msg);
  rt_case_reset(&c);
  if (rc) fail_msg("%s", msg);
}

static void test_roundtrip__one_mib_strings(void **state) {
  (void)state;
  rt_src s;
  rt_src_seed(&s, 1234);
  rt_limits lim = {.max_cols = 1, .max_rows = 12, .max_batches = 3, .huge_strings = 3};
  for (int variant = 0; variant < 4; variant++) {
    rt_case c;
    memset(&c, 0, sizeof c);
    inlet_schema_init(&c.schema);
    inlet_field f;
    snprintf(c.names.name[0], sizeof c.names.name[0], "s");
    rt_field_of_kind(&s, &f, variant % 2 ? RT_K_BINARY : RT_K_STRING, c.names.name[0]);
    f.nullable = true;
    inlet_error err = INLET_ERROR_INIT;
    assert_int_equal(inlet_schema_add_field(&c.schema, &f, &err), 0);
    inlet_parquet_writer_options o = INLET_PARQUET_WRITER_OPTIONS_INIT;
    o.sync_on_close = false;
    o.dictionary = variant < 2;
    o.page_bytes = variant == 3 ? 1024 : o.page_bytes;
    o.compression = variant == 2 ? INLET_COMPRESSION_ZSTD : INLET_COMPRESSION_SNAPPY;
    c.opts = o;
    assert_int_equal(rt_gen_rows(&s, &lim, &c, 12, &err), 0);
    char what[32];
    snprintf(what, sizeof what, "variant %d", variant);
    check_case(&s, &c, what);
  }
}

/* Dictionary encoding must key values by their bits: 0.0 and -0.0 compare
 * equal and NaN compares unequal to itself, yet each must come back as
 * written. */
static void test_roundtrip__dictionary_keeps_nan_payloads_and_negative_zero(void **state) {
  (void)state;
  rt_src s;
  rt_src_seed(&s, 3);
  for (int kind = 0; kind < 2; kind++) {
    for (int dict = 0; dict < 2; dict++) {
      rt_case c;
      memset(&c, 0, sizeof c);
      inlet_schema_init(&c.schema);
      inlet_field f;
      snprintf(c.names.name[0], sizeof c.names.name[0], "x");
      rt_field_of_kind(&s, &f, kind ? RT_K_FLOAT : RT_K_DOUBLE, c.names.name[0]);
      f.nullable = true;
      inlet_error err = INLET_ERROR_INIT;
      assert_int_equal(inlet_schema_add_field(&c.schema, &f, &err), 0);
      c.opts = (inlet_parquet_writer_options)INLET_PARQUET_WRITER_OPTIONS_INIT;
      c.opts.sync_on_close = false;
      c.opts.dictionary = dict;
      c.n_batches = 1;
      assert_int_equal(inlet_batch_init(&c.batches[0], &c.schema, &err), 0);
      inlet_array *a = &c.batches[0].columns[0];
      for (int r = 0; r < 240; r++) {
        if (r % 13 == 12) {
          assert_int_equal(inlet_array_append_null(a, &c.schema.fields[0], &err), 0);
          continue;
        }
        if (kind) {
          float x;
          memcpy(&x, &rt_float_specials[r % 12], 4);
          assert_int_equal(inlet_array_append_float(a, x, &err), 0);
        } else {
          double x;
          memcpy(&x, &rt_double_specials[r % 12], 8);
          assert_int_equal(inlet_array_append_double(a, x, &err), 0);
        }
      }
      c.batches[0].num_rows = 240;
      c.rows = 240;
      check_case(&s, &c, kind ? "float specials" : "double specials");
    }
  }
}

/* Bigger than the random cases: default page and row group sizes, so pages
 * reach their 1 MiB target and dictionaries their limits. */
static void test_roundtrip__large_file_with_default_options(void **state) {
  (void)state;
  rt_src s;
  rt_src_seed(&s, 77);
  rt_limits lim = {.max_cols = RT_K_COUNT, .max_rows = 0, .max_batches = 3, .huge_strings = 0};
  for (int round = 0; round < 2; round++) {
    rt_case c;
    memset(&c, 0, sizeof c);
    inlet_error err = INLET_ERROR_INIT;
    inlet_schema_init(&c.schema);
    for (int k = 0; k < RT_K_COUNT; k++) { /* one column of every kind */
      inlet_field f;
      snprintf(c.names.name[k], sizeof c.names.name[k], "k%d", k);
      rt_field_of_kind(&s, &f, k, c.names.name[k]);
      f.nullable = rt_chance(&s, 2);
      assert_int_equal(inlet_schema_add_field(&c.schema, &f, &err), 0);
    }
    c.opts = (inlet_parquet_writer_options)INLET_PARQUET_WRITER_OPTIONS_INIT;
    c.opts.sync_on_close = false;
    c.opts.compression = round ? INLET_COMPRESSION_ZSTD : INLET_COMPRESSION_SNAPPY;
    assert_int_equal(rt_gen_rows(&s, &lim, &c, 60000, &err), 0);
    check_case(&s, &c, round ? "large zstd" : "large snappy");
  }
}

static void test_roundtrip__empty_and_all_null_files(void **state) {
  (void)state;
  rt_src s;
  rt_src_seed(&s, 11);
  for (int k = 0; k < RT_K_COUNT; k++) {
    inlet_parquet_writer_options o = INLET_PARQUET_WRITER_OPTIONS_INIT;
    o.sync_on_close = false;
    o.compression = rt_codecs[k % RT_N_CODECS];
    rt_case c;
    kind_case(&s, &c, k, 1, 0, k % 2 ? 0 : 77, &o); /* all null, or no rows at all */
    char what[48];
    snprintf(what, sizeof what, "kind %d %s", k, k % 2 ? "empty" : "all null");
    check_case(&s, &c, what);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_roundtrip__random_cases_read_back_bit_exact),
      cmocka_unit_test(test_roundtrip__boundary_values_of_every_type),
      cmocka_unit_test(test_roundtrip__decimals_on_each_physical_width),
      cmocka_unit_test(test_roundtrip__tiny_limits_force_many_pages_row_groups_and_fallback),
      cmocka_unit_test(test_roundtrip__row_count_limit_splits_row_groups_exactly),
      cmocka_unit_test(test_roundtrip__one_mib_strings),
      cmocka_unit_test(test_roundtrip__dictionary_keeps_nan_payloads_and_negative_zero),
      cmocka_unit_test(test_roundtrip__large_file_with_default_options),
      cmocka_unit_test(test_roundtrip__empty_and_all_null_files),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
