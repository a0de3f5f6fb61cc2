/*
 * Unit tests for rebuilding shredded variants (src/batch/variant_unshred.c)
 * against apache/parquet-testing's shredded_variant cases
 * (tests/data/foreign; written by Iceberg's Parquet writer, each with the
 * unshredded metadata and value its reader rebuilds, as *.variant.bin):
 *   - every row of every valid case rebuilds to those bytes exactly, its
 *     metadata as stored; a null variant stays null;
 *   - each error case (conflicting value and typed_value, a non-object
 *     value beside shredded fields, an unsigned or fixed-length
 *     typed_value) fails on some row with the error code and a message
 *     saying what is wrong, never a crash;
 *   - shredding broken by hand (a key both shredded and in value, a
 *     shredded key the metadata lacks, an empty value) is refused.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

#include "batch/batch.h"
#include "inlet/parquet.h"

static const char *cases_dir(void) {
  static char d[4200];
  snprintf(d, sizeof d, "%s/tests/data/foreign/parquet-testing/shredded_variant", INLET_SOURCE_DIR);
  return d;
}

/* The rows of @p pq's `var` column: *batch holds the file's one row group
 * (these files have one), *col the column's index. */
static int read_case(const char *pq, inlet_batch *batch, int32_t *col, inlet_error *err) {
  char path[4400];
  snprintf(path, sizeof path, "%s/%s", cases_dir(), pq);
  inlet_parquet_reader *r = NULL;
  int rc = inlet_parquet_reader_open(&r, path, NULL, err);
  if (rc < 0) return rc;
  assert_int_equal(inlet_parquet_reader_num_row_groups(r), 1);
  rc = inlet_parquet_reader_read_row_group(r, 0, batch, err);
  inlet_parquet_reader_free(r);
  if (rc < 0) return rc;
  *col = -1;
  for (int32_t i = 0; i < batch->schema.n_fields; i++)
    if (strcmp(batch->schema.fields[i].name, "var") == 0) *col = i;
  assert_true(*col >= 0);
  return 0;
}

static int32_t child(const inlet_field *g, const char *name) {
  for (int32_t i = 0; i < g->n_children; i++)
    if (strcmp(g->children[i].name, name) == 0) return i;
  return -1;
}

/* Row @p row of the case rebuilt: metadata then value, as the .bin files
 * hold them; *null when the variant itself is null. */
static int rebuild(const inlet_batch *b, int32_t col, int64_t row, inlet_buf *out, bool *null,
                   inlet_error *err) {
  const inlet_field *g = &b->schema.fields[col];
  const inlet_array *a = &b->columns[col];
  *null = !inlet_array_is_valid(a, row);
  if (*null) return 0;
  int32_t mi = child(g, "metadata");
  assert_true(mi >= 0);
  const inlet_array *ma = &a->children[mi];
  size_t ml = (size_t)(ma->offsets[row + 1] - ma->offsets[row]);
  const uint8_t *mb = ml ? ma->values + ma->offsets[row] : (const uint8_t *)"";
  inlet_buf_append(out, mb, ml);
  bool missing = false;
  int rc = batch_variant_unshred(out, mb, ml, g, a, row, &missing, err);
  if (rc == 0 && missing) inlet_buf_push(out, 0); /* a Variant null */
  return rc;
}

static void test_unshred__parquet_testing_cases_rebuild_byte_for_byte(void **state) {
  (void)state;
  char path[4400];
  snprintf(path, sizeof path, "%s/cases.json", cases_dir());
  json_error_t je;
  json_t *cases = json_load_file(path, 0, &je);
  assert_non_null(cases);
  size_t ci;
  json_t *c;
  int n_rows = 0, n_nulls = 0, n_errors = 0, n_invalid = 0;
  json_array_foreach(cases, ci, c) {
    const char *pq = json_string_value(json_object_get(c, "parquet_file"));
    if (!pq) continue; /* a numbered gap */
    const char *want_err = json_string_value(json_object_get(c, "error_message"));
    json_t *files = json_object_get(c, "variant_files");
    json_t *one = json_object_get(c, "variant_file");
    inlet_batch b;
    memset(&b, 0, sizeof b);
    inlet_error err = {0};
    int32_t col;
    int rc = read_case(pq, &b, &col, &err);
    if (rc < 0) {
      /* Only an error case may fail before the rows (an unsupported
       * typed_value the reader refuses). */
      if (!want_err) fail_msg("%s: %s", pq, err.message);
      n_errors++;
      continue;
    }
    int64_t rows = b.num_rows;
    bool failed = false;
    for (int64_t k = 0; k < rows && !failed; k++) {
      inlet_buf got = INLET_BUF_INIT;
      bool null = false;
      err.message[0] = '\0';
      rc = rebuild(&b, col, k, &got, &null, &err);
      if (rc < 0) {
        failed = true;
        if (want_err) {
          assert_true(rc == INLET_ECORRUPT || rc == INLET_EUNSUPPORTED);
          assert_non_null(strstr(err.message, "shredded variant"));
        } else if (strstr(pq, "INVALID")) {
          n_invalid++; /* the case's notes allow an error */
        } else {
          fail_msg("%s row %lld: %s", pq, (long long)k, err.message);
        }
        inlet_buf_reset(&got);
        break;
      }
      if (want_err) {
        inlet_buf_reset(&got);
        continue;
      }
      json_t *vf = files ? json_array_get(files, (size_t)k) : one;
      assert_non_null(vf);
      if (json_is_null(vf)) {
        assert_true(null);
        n_nulls++;
        inlet_buf_reset(&got);
        continue;
      }
      assert_false(null);
      snprintf(path, sizeof path, "%s/%s", cases_dir(), json_string_value(vf));
      size_t wn = 0;
      char *want = tu_read_file(path, &wn);
      assert_non_null(want);
      if (got.len != wn || memcmp(got.data, want, wn) != 0) {
        char gh[512] = "", wh[512] = "";
        for (size_t i = 0; i < got.len && 2 * i + 2 < sizeof gh; i++)
          snprintf(gh + 2 * i, 3, "%02x", got.data[i]);
        for (size_t i = 0; i < wn && 2 * i + 2 < sizeof wh; i++)
          snprintf(wh + 2 * i, 3, "%02x", (uint8_t)want[i]);
        fail_msg("%s row %lld: rebuilt %s, want %s", pq, (long long)k, gh, wh);
      }
      free(want);
      inlet_buf_reset(&got);
      n_rows++;
    }
    if (want_err) {
      if (!failed) fail_msg("%s: no row failed, want: %s", pq, want_err);
      n_errors++;
    }
    inlet_batch_reset(&b);
  }
  json_decref(cases);
  print_message("rows %d, nulls %d, errors %d, invalid %d\n", n_rows, n_nulls, n_errors, n_invalid);
  /* Every case ran: the counts of the cases file (138 entries, 6 errors). */
  assert_true(n_rows >= 120);
  assert_true(n_nulls >= 1);
  assert_int_equal(n_errors, 6);
  assert_true(n_invalid <= 3);
}

/* ---- shredding broken by hand ------------------------------------------ */

/* Metadata with the sorted dictionary ["a", "b"]. */
static const uint8_t META_AB[] = {0x11, 0x02, 0x00, 0x01, 0x02, 'a', 'b'};

/* A one-row group { value: binary, typed_value: { <key>: { value: binary } } }
 * with value @p val (NULL: null) and the field's value @p fval. */
typedef struct hand {
  inlet_field g;
  inlet_array a;
} hand;

static void hand_make(hand *h, const char *key, const uint8_t *val, size_t vn, const uint8_t *fval,
                      size_t fn) {
  inlet_error err;
  static inlet_field leaf_f[1], field_f[1], typed_f[2];
  leaf_f[0] = (inlet_field){.name = "value", .type = {.id = INLET_TYPE_BINARY}, .nullable = true};
  field_f[0] = (inlet_field){.name = (char *)key,
                             .type = {.id = INLET_TYPE_STRUCT},
                             .nullable = false,
                             .children = leaf_f,
                             .n_children = 1};
  typed_f[0] = (inlet_field){.name = "value", .type = {.id = INLET_TYPE_BINARY}, .nullable = true};
  typed_f[1] = (inlet_field){.name = "typed_value",
                             .type = {.id = INLET_TYPE_STRUCT},
                             .nullable = true,
                             .children = field_f,
                             .n_children = 1};
  h->g = (inlet_field){
      .name = "var", .type = {.id = INLET_TYPE_STRUCT}, .children = typed_f, .n_children = 2};
  memset(&h->a, 0, sizeof h->a);
  assert_int_equal(inlet_array_init(&h->a, &h->g, &err), 0);
  inlet_array *v = &h->a.children[0], *t = &h->a.children[1];
  inlet_array *fv = &t->children[0].children[0];
  if (val)
    assert_int_equal(inlet_array_append_bytes(v, &typed_f[0], val, vn, &err), 0);
  else
    assert_int_equal(inlet_array_append_null(v, &typed_f[0], &err), 0);
  assert_int_equal(inlet_array_append_bytes(fv, &leaf_f[0], fval, fn, &err), 0);
  assert_int_equal(inlet_array_append_struct_entry(&t->children[0], &err), 0);
  assert_int_equal(inlet_array_append_struct_entry(t, &err), 0);
  assert_int_equal(inlet_array_append_struct_entry(&h->a, &err), 0);
}

static int hand_run(hand *h, const uint8_t *meta, size_t ml, inlet_buf *out, inlet_error *err) {
  bool missing = false;
  int rc = batch_variant_unshred(out, meta, ml, &h->g, &h->a, 0, &missing, err);
  inlet_array_reset(&h->a);
  return rc;
}

static void test_unshred__partially_shredded_object_merges_in_key_order(void **state) {
  (void)state;
  /* value {"a": 1} beside shredded "b": true -> {"a": 1, "b": true}. */
  const uint8_t val[] = {0x02, 0x01, 0x00, 0x00, 0x02, 0x0c, 0x01};
  const uint8_t tru[] = {0x04};
  hand h;
  hand_make(&h, "b", val, sizeof val, tru, sizeof tru);
  inlet_buf out = INLET_BUF_INIT;
  inlet_error err = {0};
  assert_int_equal(hand_run(&h, META_AB, sizeof META_AB, &out, &err), 0);
  /* object, 2 fields, ids 0 ("a") and 1 ("b"), offsets 0, 2, 3. */
  const uint8_t want[] = {0x02, 0x02, 0x00, 0x01, 0x00, 0x02, 0x03, 0x0c, 0x01, 0x04};
  assert_int_equal(out.len, sizeof want);
  assert_memory_equal(out.data, want, sizeof want);
  inlet_buf_clear(&out);
  assert_int_equal(
      batch_variant_to_json(&out, META_AB, sizeof META_AB,
                            (const uint8_t *)"\x02\x02\x00\x01\x00\x02\x03\x0c\x01\x04", 10,
                            1 << 20, &err),
      0);
  assert_int_equal(out.len, strlen("{\"a\":1,\"b\":true}"));
  assert_memory_equal(out.data, "{\"a\":1,\"b\":true}", out.len);
  inlet_buf_reset(&out);
}

static void test_unshred__broken_shredding_is_refused(void **state) {
  (void)state;
  const uint8_t tru[] = {0x04};
  inlet_buf out = INLET_BUF_INIT;
  inlet_error err = {0};
  hand h;
  /* "a" shredded and in value {"a": 1}. */
  const uint8_t val_a[] = {0x02, 0x01, 0x00, 0x00, 0x02, 0x0c, 0x01};
  hand_make(&h, "a", val_a, sizeof val_a, tru, sizeof tru);
  assert_int_equal(hand_run(&h, META_AB, sizeof META_AB, &out, &err), INLET_ECORRUPT);
  assert_non_null(strstr(err.message, "a key both shredded and in value"));
  assert_int_equal(out.len, 0);
  /* Shredded "c", which the metadata does not name. */
  hand_make(&h, "c", NULL, 0, tru, sizeof tru);
  assert_int_equal(hand_run(&h, META_AB, sizeof META_AB, &out, &err), INLET_ECORRUPT);
  assert_non_null(strstr(err.message, "shredded key \"c\" is not in the metadata"));
  /* The same with an unsorted dictionary ["b", "a"]: "a" found by the
   * linear search. */
  const uint8_t meta_ba[] = {0x01, 0x02, 0x00, 0x01, 0x02, 'b', 'a'};
  hand_make(&h, "a", NULL, 0, tru, sizeof tru);
  assert_int_equal(hand_run(&h, meta_ba, sizeof meta_ba, &out, &err), 0);
  const uint8_t want[] = {0x02, 0x01, 0x01, 0x00, 0x01, 0x04};
  assert_int_equal(out.len, sizeof want);
  assert_memory_equal(out.data, want, sizeof want);
  inlet_buf_clear(&out);
  /* A field's value of no bytes. */
  hand_make(&h, "a", NULL, 0, tru, 0);
  assert_int_equal(hand_run(&h, META_AB, sizeof META_AB, &out, &err), INLET_ECORRUPT);
  assert_non_null(strstr(err.message, "an empty value"));
  /* value not an object beside shredded fields. */
  hand_make(&h, "a", (const uint8_t *)"\x0c\x01", 2, tru, sizeof tru);
  assert_int_equal(hand_run(&h, META_AB, sizeof META_AB, &out, &err), INLET_ECORRUPT);
  assert_non_null(strstr(err.message, "not an object"));
  /* An object value whose field offset runs past its values. */
  const uint8_t val_bad[] = {0x02, 0x01, 0x01, 0x05, 0x02, 0x0c, 0x01};
  hand_make(&h, "a", val_bad, sizeof val_bad, tru, sizeof tru);
  assert_int_equal(hand_run(&h, META_AB, sizeof META_AB, &out, &err), INLET_ECORRUPT);
  /* Metadata that is not version 1. */
  const uint8_t meta_v2[] = {0x02, 0x00, 0x00};
  hand_make(&h, "a", NULL, 0, tru, sizeof tru);
  assert_int_equal(hand_run(&h, meta_v2, sizeof meta_v2, &out, &err), INLET_EUNSUPPORTED);
  assert_int_equal(out.len, 0);
  inlet_buf_reset(&out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_unshred__parquet_testing_cases_rebuild_byte_for_byte),
      cmocka_unit_test(test_unshred__partially_shredded_object_merges_in_key_order),
      cmocka_unit_test(test_unshred__broken_shredding_is_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
