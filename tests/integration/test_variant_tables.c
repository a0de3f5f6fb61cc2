/*
 * Variant columns (PROTOCOL.md "Variant Data Type", Parquet
 * VariantEncoding.md) through the real binary:
 *   - Spark's spark-variant-checkpoint table (delta-rs test data; variants
 *     at the top level and in arrays, structs and maps; a checkpoint) reads
 *     as refcheck (DuckDB) reads it at every version, and its v column holds
 *     {"key": id} as Spark wrote it (delta-rs's variant.rs checks the same);
 *   - a table built here whose data file holds variant bytes encoded by hand
 *     from the spec (the object example {"c":3,"b":2,"a":1} and a nested
 *     array) reads as the JSON text written here, in NDJSON and CSV;
 *   - a value that breaks the encoding is a clear error naming the file,
 *     column and row (exit 5);
 *   - tables with variantShredding take unshredded writes: Spark's
 *     shredding table gets an append, compaction, delete and a checkpoint;
 *     tables whose files are shredded (parquet-testing case-045 and
 *     case-083) take copy-on-write delete and compaction, which rebuild
 *     each value unshredded: the case's bytes, no typed_value, the same
 *     rows, read by refcheck as by inlet; an inlet table with
 *     delta.enableVariantShredding=true goes through appends, compaction,
 *     delete and a checkpoint with unshredded files only, read as refcheck
 *     reads them (on a copy without the feature, which refcheck refuses).
 * The foreign tables are copies of tests/data/foreign (see its README).
 */
#include "testutil.h"

#include "util/buf.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fixture {
  char dir[4096];
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  snprintf(f->dir, sizeof f->dir, "%s", tu_mkdtemp("variant"));
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  tu_rmtree(f->dir);
  free(f);
  return 0;
}

static void sh(tu_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sh(tu_result *r, const char *fmt, ...) {
  char *cmd = NULL;
  va_list ap;
  va_start(ap, fmt);
  assert_true(vasprintf(&cmd, fmt, ap) >= 0);
  va_end(ap);
  assert_int_equal(tu_sh(r, "%s", cmd), 0);
  free(cmd);
}

static void sh_ok(tu_result *r, const char *what) {
  if (r->status != 0)
    fail_msg("%s: exit %d\nstdout: %s\nstderr: %s", what, r->status, r->out, r->err);
}

/* Copies foreign table @p rel into the fixture (read-only use: exempt from
 * the rules checker, as the upstream fixtures break some rules). */
static const char *foreign(fixture *f, const char *rel) {
  static char path[4300];
  const char *base = strrchr(rel, '/') + 1;
  snprintf(path, sizeof path, "%s/%s", f->dir, base);
  tu_result r;
  sh(&r, "cp -R '%s/tests/data/foreign/%s' '%s'", INLET_SOURCE_DIR, rel, path);
  sh_ok(&r, "copy foreign table");
  tu_result_free(&r);
  tu_rules_exempt(path, "test_variant_tables: upstream fixture, read only");
  return path;
}

/* inlet's rows of @p table at version @p v equal refcheck's. */
static void same_as_refcheck(fixture *f, const char *table, long v) {
  tu_result r;
  sh(&r, "'%s' scan '%s' --version %ld --format ndjson > '%s/i.ndjson'", INLET_BIN, table, v,
     f->dir);
  sh_ok(&r, "scan");
  tu_result_free(&r);
  sh(&r,
     "'%s' '%s' delta '%s' --version %ld > '%s/r.json' && '%s' '%s' compare '%s/r.json' "
     "'%s/i.ndjson' --ndjson",
     INLET_NODE, INLET_REFCHECK, table, v, f->dir, INLET_NODE, INLET_REFCHECK, f->dir, f->dir);
  if (r.status != 0) fail_msg("%s @%ld: inlet and refcheck differ: %s%s", table, v, r.out, r.err);
  tu_result_free(&r);
}

static void test_variant__spark_table_reads_as_refcheck(void **state) {
  fixture *f = *state;
  const char *t = foreign(f, "delta-rs/spark-variant-checkpoint");
  for (long v = 0; v <= 2; v++)
    same_as_refcheck(f, t, v);
  /* Row 7 as Spark wrote it: every variant is {"key": 7}; the map has a
   * second entry with a null variant, the arrays nulls in fixed places. */
  tu_result r;
  sh(&r, "'%s' scan '%s' --where 'id = 7' --format ndjson", INLET_BIN, t);
  sh_ok(&r, "scan id = 7");
  assert_string_equal(
      r.out, "{\"id\":7,\"v\":\"{\\\"key\\\":7}\",\"array_of_variants\":[\"{\\\"key\\\":7}\",null,"
             "\"{\\\"key\\\":7}\",null,\"{\\\"key\\\":7}\"],\"struct_of_variants\":{\"v\":"
             "\"{\\\"key\\\":7}\"},\"map_of_variants\":[[\"7\",\"{\\\"key\\\":7}\"],[\"nullKey\","
             "null]],\"array_of_struct_of_variants\":[{\"v\":\"{\\\"key\\\":7}\"},{\"v\":null},"
             "null,{\"v\":\"{\\\"key\\\":7}\"},null,{\"v\":\"{\\\"key\\\":7}\"}],"
             "\"struct_of_array_of_variants\":{\"v\":[null,\"{\\\"key\\\":7}\"]}}\n");
  tu_result_free(&r);
  /* A predicate on the variant's text. */
  sh(&r, "'%s' scan '%s' --columns id --where \"v = '{\\\"key\\\":12}'\" --format csv", INLET_BIN,
     t);
  sh_ok(&r, "scan where v =");
  assert_string_equal(r.out, "id\n12\n");
  tu_result_free(&r);
  /* A limit reads row groups of nested columns in slices (whole row group,
   * then the slice's rows): 5 rows, each v {"key": id}. */
  sh(&r, "'%s' scan '%s' --columns id,v --limit 5 --format ndjson", INLET_BIN, t);
  sh_ok(&r, "scan --limit 5");
  int lines = 0;
  for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n"), lines++) {
    json_t *row = json_loads(line, 0, NULL);
    assert_non_null(row);
    char want[64];
    snprintf(want, sizeof want, "{\"key\":%lld}",
             (long long)json_integer_value(json_object_get(row, "id")));
    assert_string_equal(json_string_value(json_object_get(row, "v")), want);
    json_decref(row);
  }
  assert_int_equal(lines, 5);
  tu_result_free(&r);
  sh(&r, "'%s' describe '%s' --json", INLET_BIN, t);
  sh_ok(&r, "describe");
  json_t *d = json_loads(r.out, 0, NULL);
  assert_non_null(d);
  const char *ddl = json_string_value(json_object_get(d, "schema_ddl"));
  assert_non_null(ddl);
  assert_non_null(strstr(ddl, "id long, v variant, "));
  json_decref(d);
  tu_result_free(&r);
}

/* Writes a one-file table at @p dir whose column v (variant) holds, per
 * line of @p ndjson, the hex metadata and value given there. */
static void hand_table(const char *dir, const char *ndjson) {
  char p[4200];
  tu_result r;
  sh(&r, "mkdir -p '%s/_delta_log'", dir);
  tu_result_free(&r);
  snprintf(p, sizeof p, "%s/in.ndjson", dir);
  assert_int_equal(tu_write_file(p, ndjson, strlen(ndjson)), 0);
  sh(&r,
     "cd '%s' && '%s' parquet convert in.ndjson part-0.parquet --schema 'id long, v "
     "struct<metadata: binary not null, value: binary not null>' && rm in.ndjson",
     dir, INLET_BIN);
  sh_ok(&r, "parquet convert");
  tu_result_free(&r);
  sh(&r,
     "cd '%s' && s=$(stat -c %%s part-0.parquet) && printf '%%s\\n' "
     "'{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,\"readerFeatures\":"
     "[\"variantType\"],\"writerFeatures\":[\"variantType\"]}}' "
     "'{\"metaData\":{\"id\":\"6b0c5d1e-0000-4000-8000-000000000001\",\"format\":{\"provider\":"
     "\"parquet\",\"options\":{}},\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":"
     "[{\\\"name\\\":\\\"id\\\",\\\"type\\\":\\\"long\\\",\\\"nullable\\\":true,\\\"metadata\\\":"
     "{}},{\\\"name\\\":\\\"v\\\",\\\"type\\\":\\\"variant\\\",\\\"nullable\\\":true,"
     "\\\"metadata\\\":{}}]}\",\"partitionColumns\":[],\"configuration\":{},\"createdTime\":1}}' "
     "> _delta_log/00000000000000000000.json && printf "
     "'{\"add\":{\"path\":\"part-0.parquet\",\"partitionValues\":{},\"size\":%%s,"
     "\"modificationTime\":1,\"dataChange\":true}}\\n' \"$s\" >> "
     "_delta_log/00000000000000000000.json",
     dir);
  sh_ok(&r, "hand-written log");
  tu_result_free(&r);
}

static void test_variant__hand_encoded_values_from_the_spec(void **state) {
  fixture *f = *state;
  char t[4200];
  snprintf(t, sizeof t, "%s/hand", f->dir);
  /* Row 1: the spec's object example (dictionary "c","b","a"; field ids in
   * key order; values stored c, b, a). Row 3: [1,"x",[null],{}] with the
   * empty dictionary. Row 4: binary DE AD (base64 3q0=); row 5: decimal4
   * 12345 at scale 2; row 6: date 19000 (2022-01-08); row 7: timestamp
   * 1641663147228992 us. (No float or uuid here: DuckDB prints floats widened
   * and cannot read uuids; test_variant covers them.) */
  hand_table(t, "{\"id\":1,\"v\":{\"metadata\":\"010300010203636261\","
                "\"value\":\"0203020100040200060c030c020c01\"}}\n"
                "{\"id\":2,\"v\":null}\n"
                "{\"id\":3,\"v\":{\"metadata\":\"010000\","
                "\"value\":\"0304000204090c0c0105780301000100020000\"}}\n"
                "{\"id\":4,\"v\":{\"metadata\":\"010000\",\"value\":\"3c02000000dead\"}}\n"
                "{\"id\":5,\"v\":{\"metadata\":\"010000\",\"value\":\"200239300000\"}}\n"
                "{\"id\":6,\"v\":{\"metadata\":\"010000\",\"value\":\"2c384a0000\"}}\n"
                "{\"id\":7,\"v\":{\"metadata\":\"010000\",\"value\":\"30403fbb7c15d50500\"}}\n");
  tu_result r;
  sh(&r, "'%s' scan '%s' --format ndjson", INLET_BIN, t);
  sh_ok(&r, "scan");
  assert_string_equal(r.out, "{\"id\":1,\"v\":\"{\\\"a\\\":1,\\\"b\\\":2,\\\"c\\\":3}\"}\n"
                             "{\"id\":2,\"v\":null}\n"
                             "{\"id\":3,\"v\":\"[1,\\\"x\\\",[null],{}]\"}\n"
                             "{\"id\":4,\"v\":\"\\\"3q0=\\\"\"}\n"
                             "{\"id\":5,\"v\":\"123.45\"}\n"
                             "{\"id\":6,\"v\":\"\\\"2022-01-08\\\"\"}\n"
                             "{\"id\":7,\"v\":\"\\\"2022-01-08T17:32:27.228992Z\\\"\"}\n");
  tu_result_free(&r);
  sh(&r, "'%s' scan '%s' --format csv --where 'id <= 3'", INLET_BIN, t);
  sh_ok(&r, "scan csv");
  assert_string_equal(r.out,
                      "id,v\n1,\"{\"\"a\"\":1,\"\"b\"\":2,\"\"c\"\":3}\"\n2,\n3,\"[1,\"\"x\"\","
                      "[null],{}]\"\n");
  tu_result_free(&r);
  same_as_refcheck(f, t, 0);
}

static void test_variant__corrupt_value_names_file_column_and_row(void **state) {
  fixture *f = *state;
  char t[4200];
  snprintf(t, sizeof t, "%s/bad", f->dir);
  /* Row 1 fine; row 2 an int32 with two of its four bytes. */
  hand_table(t, "{\"id\":1,\"v\":{\"metadata\":\"010000\",\"value\":\"0c07\"}}\n"
                "{\"id\":2,\"v\":{\"metadata\":\"010000\",\"value\":\"140102\"}}\n");
  tu_result r;
  sh(&r, "'%s' scan '%s' --format ndjson", INLET_BIN, t);
  assert_int_equal(r.status, 5);
  assert_non_null(strstr(r.err, "part-0.parquet"));
  assert_non_null(strstr(r.err, "column \"v\" row 1"));
  assert_non_null(strstr(r.err, "truncated"));
  tu_result_free(&r);
  /* Metadata of a version inlet does not know: unsupported, not corrupt. */
  snprintf(t, sizeof t, "%s/v2", f->dir);
  hand_table(t, "{\"id\":1,\"v\":{\"metadata\":\"020000\",\"value\":\"00\"}}\n");
  sh(&r, "'%s' scan '%s' --format ndjson", INLET_BIN, t);
  assert_int_equal(r.status, 6);
  assert_non_null(strstr(r.err, "metadata version 2"));
  tu_result_free(&r);
}

/* The rows (id and v's stored value and metadata bytes) of the data files
 * @p files_glob of @p table, one NDJSON line each, sorted. */
static char *cat_files(const char *table, const char *files_glob) {
  tu_result r;
  sh(&r,
     "cd '%s' && for f in %s; do '%s' parquet cat \"$f\" --columns id,v --format ndjson; done | "
     "sort",
     table, files_glob, INLET_BIN);
  sh_ok(&r, "parquet cat");
  char *out = strdup(r.out);
  tu_result_free(&r);
  return out;
}

/* Spark's table takes appends now; compaction moves Spark's variant bytes
 * into the new file unchanged (Spark's dictionaries are unsorted, without
 * the sorted flag: a re-encoding would set it), and every row reads as
 * before. */
static void test_variant__spark_table_append_and_compact_keep_bytes(void **state) {
  fixture *f = *state;
  const char *t = foreign(f, "delta-rs/spark-variant-checkpoint");
  char ev[4200];
  snprintf(ev, sizeof ev, "%s/ev.ndjson", f->dir);
  const char *rows = "{\"id\":100,\"v\":{\"b\":[1,2.50,\"x\"],\"a\":null}}\n"
                     "{\"id\":101,\"v\":\"just a string\"}\n";
  assert_int_equal(tu_write_file(ev, rows, strlen(rows)), 0);
  tu_result r;
  sh(&r, "'%s' scan '%s' --format ndjson --columns id,v | sort > '%s/before.ndjson'", INLET_BIN, t,
     f->dir);
  sh_ok(&r, "scan before");
  tu_result_free(&r);
  sh(&r, "'%s' append '%s' '%s'", INLET_BIN, t, ev);
  sh_ok(&r, "append");
  tu_result_free(&r);
  sh(&r, "'%s' scan '%s' --where 'id >= 100' --columns id,v --format ndjson", INLET_BIN, t);
  sh_ok(&r, "scan appended");
  assert_string_equal(r.out,
                      "{\"id\":100,\"v\":\"{\\\"a\\\":null,\\\"b\\\":[1,2.50,\\\"x\\\"]}\"}\n"
                      "{\"id\":101,\"v\":\"\\\"just a string\\\"\"}\n");
  tu_result_free(&r);
  /* The stored bytes of every row before compaction, from the files. */
  char *before = cat_files(t, "*.parquet");
  assert_non_null(strstr(before, "\"id\":7,"));
  sh(&r, "'%s' compact '%s' --min-files 2", INLET_BIN, t);
  sh_ok(&r, "compact");
  tu_result_free(&r);
  /* The files compaction wrote: the newest data file(s) not in the
   * earlier listing. */
  sh(&r, "cd '%s' && ls -t *.parquet | head -1", t);
  sh_ok(&r, "newest file");
  char newest[512];
  snprintf(newest, sizeof newest, "%.*s", (int)strcspn(r.out, "\n"), r.out);
  tu_result_free(&r);
  char *after = cat_files(t, newest);
  /* Every line of the new file was a line of the old ones, byte for byte
   * (v's value and metadata included), and the Spark row kept its
   * unsorted-dictionary metadata. */
  int n = 0;
  for (char *line = strtok(after, "\n"); line; line = strtok(NULL, "\n"), n++)
    if (!strstr(before, line)) fail_msg("compacted row not among the old rows: %s", line);
  assert_true(n >= 50);
  free(before);
  free(after);
  sh(&r,
     "'%s' scan '%s' --format ndjson --columns id,v --where 'id < 100' | sort | cmp - "
     "'%s/before.ndjson' "
     "&& echo same",
     INLET_BIN, t, f->dir);
  assert_string_equal(r.out, "same\n");
  tu_result_free(&r);
}

/* A table Spark wrote with variantShredding-preview (its files happen to
 * hold unshredded variants) takes appends, compaction, delete and
 * checkpoints (PROTOCOL.md "Writer Requirements for Variant Shredding":
 * writers may write unshredded values); the rows stay what they were. */
static void test_variant__shredding_table_takes_unshredded_writes(void **state) {
  fixture *f = *state;
  const char *t = foreign(f, "delta-rs/spark-shredded-variant-preview-delta");
  tu_result r;
  sh(&r, "'%s' scan '%s' --where 'id = 7' --columns id,v --format ndjson", INLET_BIN, t);
  sh_ok(&r, "scan");
  assert_string_equal(r.out, "{\"id\":7,\"v\":\"{\\\"key\\\":7}\"}\n");
  tu_result_free(&r);
  sh(&r, "'%s' scan '%s' --format ndjson --where 'id <> 7' | sort > '%s/shred.before'", INLET_BIN,
     t, f->dir);
  sh_ok(&r, "scan all");
  tu_result_free(&r);
  char ev[4200];
  snprintf(ev, sizeof ev, "%s/ev.ndjson", f->dir);
  const char *row = "{\"id\":100,\"v\":{\"b\":[1,\"x\"],\"a\":2.5}}\n";
  assert_int_equal(tu_write_file(ev, row, strlen(row)), 0);
  sh(&r, "'%s' append '%s' '%s'", INLET_BIN, t, ev);
  sh_ok(&r, "append to a shredding table");
  tu_result_free(&r);
  sh(&r, "'%s' scan '%s' --where 'id = 100' --columns id,v --format ndjson", INLET_BIN, t);
  sh_ok(&r, "scan the new row");
  assert_string_equal(r.out, "{\"id\":100,\"v\":\"{\\\"a\\\":2.5,\\\"b\\\":[1,\\\"x\\\"]}\"}\n");
  tu_result_free(&r);
  /* The new file's variant is the unshredded group: no typed_value. */
  sh(&r,
     "cd '%s' && f=$(ls -t $(find . -name '*.parquet' -newer '%s') | head -n 1) && '%s' parquet "
     "schema \"$f\"",
     t, ev, INLET_BIN);
  sh_ok(&r, "schema of the new file");
  assert_non_null(strstr(r.out, "metadata"));
  assert_null(strstr(r.out, "typed_value"));
  tu_result_free(&r);
  sh(&r,
     "'%s' compact '%s' --min-files 2 && '%s' delete '%s' --where 'id = 7' && '%s' checkpoint "
     "'%s'",
     INLET_BIN, t, INLET_BIN, t, INLET_BIN, t);
  sh_ok(&r, "compact, delete, checkpoint a shredding table");
  tu_result_free(&r);
  sh(&r, "'%s' history '%s' --json | grep -c OPTIMIZE", INLET_BIN, t);
  assert_string_equal(r.out, "1\n");
  tu_result_free(&r);
  /* From the checkpoint: the rows as before without 7, and the new one. */
  sh(&r,
     "'%s' scan '%s' --format ndjson --where 'id <> 100' | sort | cmp - '%s/shred.before' && '%s' "
     "scan '%s' --columns id --format ndjson --where 'id = 100 OR id = 7'",
     INLET_BIN, t, f->dir, INLET_BIN, t);
  sh_ok(&r, "scan after checkpoint");
  assert_string_equal(r.out, "{\"id\":100}\n");
  tu_result_free(&r);
}

static void shredded_table(const char *dir, const char *pq);

static void split_variant_bin(const char *path, char **meta_hex, char **val_hex);

/* Copies table @p name (under the fixture's directory) to @p copy, its
 * path into @p out, with variantShredding taken out of its protocol and
 * configuration, and without checkpoints or checksums, for refcheck, which
 * refuses the feature (valid while no file read is shredded). */
static void copy_without_shredding(fixture *f, const char *name, const char *copy, char *out,
                                   size_t cap) {
  tu_result r;
  sh(&r,
     "cd '%s' && rm -rf '%s' && cp -R '%s' '%s' && cd '%s/_delta_log' && rm -f "
     "*.checkpoint.* _last_checkpoint *.crc && sed -i "
     "-e 's/,\"variantShredding\"//g' -e 's/\\\"delta.enableVariantShredding\\\":\\\"true\\\"//' "
     "00000000000000000000.json && grep -c variantShredding 00000000000000000000.json",
     f->dir, copy, name, copy, copy);
  assert_string_equal(r.out, "0\n");
  tu_result_free(&r);
  snprintf(out, cap, "%s/%s", f->dir, copy);
  tu_rules_exempt(out, "test_variant_tables: a copy with the protocol edited for refcheck");
}

/* For each data file of table @p t but part-0.parquet (the shredded file
 * the table was built over), into r->out: how many typed_value fields its
 * schema has, then its rows as `parquet cat` prints them in NDJSON (a
 * variant's value and metadata as hex). */
static void cat_new_files(tu_result *r, const char *t) {
  sh(r,
     "cd '%s' && for f in $(ls *.parquet | grep -v '^part-0.parquet$'); do '%s' parquet schema "
     "\"$f\" | grep -c typed_value; '%s' parquet cat \"$f\" --format ndjson; done",
     t, INLET_BIN, INLET_BIN);
  sh_ok(r, "parquet cat");
}

/* Shredded files rewritten (apache/parquet-testing case-045: four rows,
 * arrays of strings shredded as lists and a partially shredded object;
 * case-083: nested shredded objects and a null variant): copy-on-write
 * delete and compaction, which write variants unshredded, rebuild each
 * value from value and typed_value. The new files hold no typed_value and
 * the bytes the case gives for the value (its *.variant.bin), the table
 * reads as before, and refcheck (DuckDB) reads the rewritten table, once
 * no shredded file is left in it, as inlet does. */
static void test_variant__shredded_files_rewritten_unshredded(void **state) {
  fixture *f = *state;
  char t[4200], pq[4300], ev[4300], bin[4300];
  const char *dir = "tests/data/foreign/parquet-testing/shredded_variant";
  tu_result r;
  /* 1: delete on case-045 rewrites its file without row 0. */
  snprintf(t, sizeof t, "%s/shreddel", f->dir);
  snprintf(pq, sizeof pq, "%s/%s/case-045.parquet", INLET_SOURCE_DIR, dir);
  shredded_table(t, pq);
  sh(&r, "'%s' scan '%s' --format ndjson --where 'id <> 0' | sort > '%s/shreddel.before'",
     INLET_BIN, t, f->dir);
  sh_ok(&r, "scan");
  tu_result_free(&r);
  sh(&r, "'%s' delete '%s' --where 'id = 0'", INLET_BIN, t);
  sh_ok(&r, "delete on a shredded file");
  tu_result_free(&r);
  sh(&r, "'%s' scan '%s' --format ndjson | sort | cmp - '%s/shreddel.before' && echo same",
     INLET_BIN, t, f->dir);
  assert_string_equal(r.out, "same\n");
  tu_result_free(&r);
  cat_new_files(&r, t);
  /* One new file, no typed_value in it, and row 2 (the partially shredded
   * object {"a": null, "d": "iceberg"}) as the case's bytes. */
  assert_true(strncmp(r.out, "0\n", 2) == 0);
  char *mh, *vh;
  snprintf(bin, sizeof bin, "%s/%s/case-045_row-2.variant.bin", INLET_SOURCE_DIR, dir);
  split_variant_bin(bin, &mh, &vh);
  char want[1024];
  snprintf(want, sizeof want, "{\"id\":2,\"var\":{\"value\":\"%s\",\"metadata\":\"%s\"}}", vh, mh);
  if (!strstr(r.out, want)) fail_msg("want %s in:\n%s", want, r.out);
  free(mh);
  free(vh);
  tu_result_free(&r);

  /* 2: compaction of case-083's file and an appended one. */
  snprintf(t, sizeof t, "%s/shredcomp", f->dir);
  snprintf(pq, sizeof pq, "%s/%s/case-083.parquet", INLET_SOURCE_DIR, dir);
  snprintf(ev, sizeof ev, "%s/shredcomp.ndjson", f->dir);
  shredded_table(t, pq);
  const char *row = "{\"id\":500,\"var\":{\"a\":1}}\n";
  assert_int_equal(tu_write_file(ev, row, strlen(row)), 0);
  sh(&r, "'%s' append '%s' '%s'", INLET_BIN, t, ev);
  sh_ok(&r, "append");
  tu_result_free(&r);
  sh(&r, "'%s' scan '%s' --format ndjson | sort > '%s/shredcomp.before'", INLET_BIN, t, f->dir);
  sh_ok(&r, "scan");
  tu_result_free(&r);
  sh(&r, "'%s' compact '%s' --min-files 2 --json", INLET_BIN, t);
  sh_ok(&r, "compact a shredded file");
  assert_non_null(strstr(r.out, "\"files_removed\":2"));
  tu_result_free(&r);
  sh(&r,
     "grep -c '\"remove\":{\"path\":\"part-0.parquet\"' '%s/_delta_log/00000000000000000002.json'",
     t);
  assert_string_equal(r.out, "1\n");
  tu_result_free(&r);
  sh(&r, "'%s' scan '%s' --format ndjson | sort | cmp - '%s/shredcomp.before' && echo same",
     INLET_BIN, t, f->dir);
  assert_string_equal(r.out, "same\n");
  tu_result_free(&r);
  /* The compacted file holds no typed_value (the appended file had none). */
  sh(&r,
     "cd '%s' && for f in $(ls *.parquet | grep -v '^part-0.parquet$'); do '%s' parquet schema "
     "\"$f\" | grep -c typed_value; done | sort -u",
     t, INLET_BIN);
  assert_string_equal(r.out, "0\n");
  tu_result_free(&r);
  /* refcheck reads the compacted table (a copy without the shredding
   * feature, which refcheck refuses) as inlet does. */
  char plain[4300];
  copy_without_shredding(f, "shredcomp", "plaincomp", plain, sizeof plain);
  same_as_refcheck(f, plain, 2);
}

/* An inlet table with delta.enableVariantShredding=true: the protocol lists
 * variantShredding (reader and writer), and appends, compaction, delete and
 * a checkpoint write unshredded values. refcheck does not read shredding
 * tables, so it reads a copy whose protocol drops the feature (valid: every
 * file inlet wrote is unshredded) and must agree with inlet at each version. */
static void test_variant__shredding_enabled_table_written_unshredded(void **state) {
  fixture *f = *state;
  char t[4200], in[4300];
  snprintf(t, sizeof t, "%s/shredon", f->dir);
  snprintf(in, sizeof in, "%s/shredon.ndjson", f->dir);
  tu_result r;
  sh(&r,
     "'%s' create '%s' --schema 'id long, v variant' --property delta.enableVariantShredding=true",
     INLET_BIN, t);
  sh_ok(&r, "create");
  tu_result_free(&r);
  sh(&r, "cat '%s/_delta_log/00000000000000000000.json'", t);
  assert_non_null(strstr(r.out, "\"readerFeatures\":[\"variantType\",\"variantShredding\"]"));
  assert_non_null(strstr(r.out, "\"variantShredding\"]}"));
  assert_non_null(strstr(r.out, "\"delta.enableVariantShredding\":\"true\""));
  tu_result_free(&r);
  for (int b = 0; b < 3; b++) {
    char rows[512];
    snprintf(rows, sizeof rows,
             "{\"id\":%d,\"v\":{\"k\":%d,\"arr\":[%d,\"s\"]}}\n{\"id\":%d,\"v\":%d.25}\n"
             "{\"id\":%d}\n",
             3 * b, b, b, 3 * b + 1, b, 3 * b + 2);
    assert_int_equal(tu_write_file(in, rows, strlen(rows)), 0);
    sh(&r, "'%s' append '%s' '%s'", INLET_BIN, t, in);
    sh_ok(&r, "append");
    tu_result_free(&r);
  }
  sh(&r,
     "'%s' compact '%s' --min-files 2 && '%s' delete '%s' --where 'id = 4' && '%s' checkpoint '%s'",
     INLET_BIN, t, INLET_BIN, t, INLET_BIN, t);
  sh_ok(&r, "compact, delete, checkpoint");
  tu_result_free(&r);
  sh(&r, "'%s' scan '%s' --where 'id = 3' --format ndjson", INLET_BIN, t);
  assert_string_equal(r.out, "{\"id\":3,\"v\":\"{\\\"arr\\\":[1,\\\"s\\\"],\\\"k\\\":1}\"}\n");
  tu_result_free(&r);
  sh(&r,
     "cd '%s' && find . -name '*.parquet' ! -path './_delta_log/*' | xargs -n1 '%s' parquet "
     "schema | grep -c typed_value",
     t, INLET_BIN);
  assert_string_equal(r.out, "0\n");
  tu_result_free(&r);
  /* The copy without the feature, for refcheck. */
  char plain[4300];
  copy_without_shredding(f, "shredon", "plain", plain, sizeof plain);
  for (long v = 1; v <= 5; v++) {
    sh(&r, "'%s' scan '%s' --version %ld --format ndjson > '%s/i.ndjson'", INLET_BIN, t, v, f->dir);
    sh_ok(&r, "scan");
    tu_result_free(&r);
    sh(&r,
       "'%s' '%s' delta '%s' --version %ld > '%s/r.json' && '%s' '%s' compare '%s/r.json' "
       "'%s/i.ndjson' --ndjson",
       INLET_NODE, INLET_REFCHECK, plain, v, f->dir, INLET_NODE, INLET_REFCHECK, f->dir, f->dir);
    if (r.status != 0) fail_msg("@%ld: inlet and refcheck differ: %s%s", v, r.out, r.err);
    tu_result_free(&r);
  }
}

/* The canonical text of JSON value @p j as the variant text prints it,
 * computed here independently: jansson's compact form with sorted keys,
 * reals as the tests write them (only values whose text has no fraction
 * zeros or exponent are generated). */
static char *canon(json_t *j) {
  return json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(15));
}

static unsigned long rng = 12345;
static unsigned next(void) {
  rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned)(rng >> 33);
}

/* A random JSON document: nested objects and arrays, unicode strings, and
 * integers of every width. */
static json_t *gen(int depth) {
  static const char *const words[] = {"a",       "b",     "Zürich", "雪", "😀 emoji",
                                      "q\"uote", "tab\t", "",       "k1", "longer key name here",
                                      "Ä",       "z"};
  unsigned k = next() % (depth > 3 ? 4 : 7);
  switch (k) {
  case 0: return json_integer((json_int_t)(next() % 200) - 100);
  case 1: return json_integer((json_int_t)next() * 1000003LL - 2000000000000LL);
  case 2: return json_string(words[next() % 12]);
  case 3: return next() % 2 ? json_true() : json_null();
  case 4:
  case 5: {
    json_t *o = json_object();
    unsigned n = next() % 5;
    for (unsigned i = 0; i < n; i++)
      json_object_set_new(o, words[next() % 12], gen(depth + 1));
    return o;
  }
  default: {
    json_t *a = json_array();
    unsigned n = next() % 5;
    for (unsigned i = 0; i < n; i++)
      json_array_append_new(a, gen(depth + 1));
    return a;
  }
  }
}

/* A table inlet creates with a variant column: the protocol Spark gives it,
 * appends of NDJSON and CSV read back as the canonical JSON of their input,
 * refcheck reads the same, stats carry a nullCount and no bounds for v,
 * compaction keeps the stored bytes, delete rewrites, and a value that is
 * not a variant is a bad record naming its field. */
static void test_variant__inlet_table_round_trip(void **state) {
  fixture *f = *state;
  char t[4200], in[4300], exp[4300];
  snprintf(t, sizeof t, "%s/mine", f->dir);
  tu_result r;
  sh(&r, "'%s' create '%s' --schema 'id long, v variant'", INLET_BIN, t);
  sh_ok(&r, "create");
  tu_result_free(&r);
  sh(&r, "cat '%s/_delta_log/00000000000000000000.json'", t);
  assert_non_null(strstr(r.out, "\"readerFeatures\":[\"variantType\"]"));
  /* Spark's defaults (1, 2) carry over as appendOnly and invariants. */
  assert_non_null(
      strstr(r.out, "\"writerFeatures\":[\"appendOnly\",\"invariants\",\"variantType\"]"));
  assert_non_null(strstr(r.out, "\"minReaderVersion\":3,\"minWriterVersion\":7"));
  assert_non_null(strstr(r.out, "\\\"type\\\":\\\"variant\\\""));
  tu_result_free(&r);

  /* 1: values whose canonical text is written here by hand (numbers as
   * Spark types them: decimals keep their digits, big integers stay exact,
   * exponents are doubles). */
  const char *hand = "{\"id\":1,\"v\":{\"z\":1,\"a\":{\"y\":[true,null,\"s\"],\"x\":-0.50}}}\n"
                     "{\"id\":2,\"v\":123456789012345678901234567890}\n"
                     "{\"id\":3,\"v\":[1.10, 9223372036854775807, -9223372036854775808, 0.000]}\n"
                     "{\"id\":4,\"v\":\"\\u00e9t\\u00e9 \\ud83d\\ude00\"}\n"
                     "{\"id\":5,\"v\":null}\n"
                     "{\"id\":6}\n"
                     "{\"id\":7,\"v\":{}}\n";
  snprintf(in, sizeof in, "%s/hand.ndjson", f->dir);
  assert_int_equal(tu_write_file(in, hand, strlen(hand)), 0);
  sh(&r, "'%s' append '%s' '%s'", INLET_BIN, t, in);
  sh_ok(&r, "append hand");
  tu_result_free(&r);
  sh(&r, "'%s' scan '%s' --format ndjson", INLET_BIN, t);
  sh_ok(&r, "scan hand");
  assert_string_equal(
      r.out, "{\"id\":1,\"v\":\"{\\\"a\\\":{\\\"x\\\":-0.50,\\\"y\\\":[true,null,\\\"s\\\"]},"
             "\\\"z\\\":1}\"}\n"
             "{\"id\":2,\"v\":\"123456789012345678901234567890\"}\n"
             "{\"id\":3,\"v\":\"[1.10,9223372036854775807,-9223372036854775808,0.000]\"}\n"
             "{\"id\":4,\"v\":\"\\\"été 😀\\\"\"}\n"
             "{\"id\":5,\"v\":null}\n"
             "{\"id\":6,\"v\":null}\n"
             "{\"id\":7,\"v\":\"{}\"}\n");
  tu_result_free(&r);

  /* 2: 300 generated documents, expected text from jansson. */
  json_t *want = json_object();
  FILE *fp;
  snprintf(in, sizeof in, "%s/gen.ndjson", f->dir);
  fp = fopen(in, "w");
  assert_non_null(fp);
  for (int i = 0; i < 300; i++) {
    json_t *doc = gen(0);
    json_t *row = json_pack("{s:i,s:O}", "id", 1000 + i, "v", doc);
    char *line = json_dumps(row, JSON_COMPACT);
    fprintf(fp, "%s\n", line);
    free(line);
    char key[32];
    snprintf(key, sizeof key, "%d", 1000 + i);
    char *c = canon(doc);
    /* A top-level JSON null is a null variant (as a missing field). */
    json_object_set_new(want, key, json_is_null(doc) ? json_null() : json_string(c));
    free(c);
    json_decref(row);
    json_decref(doc);
  }
  fclose(fp);
  sh(&r, "'%s' append '%s' '%s'", INLET_BIN, t, in);
  sh_ok(&r, "append generated");
  tu_result_free(&r);
  sh(&r, "'%s' scan '%s' --where 'id >= 1000' --format ndjson", INLET_BIN, t);
  sh_ok(&r, "scan generated");
  int n = 0;
  for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n"), n++) {
    json_t *row = json_loads(line, 0, NULL);
    assert_non_null(row);
    char key[32];
    snprintf(key, sizeof key, "%lld", (long long)json_integer_value(json_object_get(row, "id")));
    json_t *w = json_object_get(want, key), *g = json_object_get(row, "v");
    if (!json_equal(w, g)) {
      char *ws = json_dumps(w, JSON_ENCODE_ANY), *gs = json_dumps(g, JSON_ENCODE_ANY);
      fail_msg("row %s: want %s, got %s", key, ws, gs);
    }
    json_decref(row);
  }
  assert_int_equal(n, 300);
  tu_result_free(&r);
  json_decref(want);

  /* 3: a CSV cell holds the variant's JSON text. */
  snprintf(in, sizeof in, "%s/c.csv", f->dir);
  const char *csv = "id,v\n2000,\"{\"\"k\"\":[1,\"\"two\"\"]}\"\n2001,\"\"\"text\"\"\"\n2002,\n";
  assert_int_equal(tu_write_file(in, csv, strlen(csv)), 0);
  sh(&r, "'%s' append '%s' '%s'", INLET_BIN, t, in);
  sh_ok(&r, "append csv");
  tu_result_free(&r);
  sh(&r, "'%s' scan '%s' --where 'id >= 2000' --format csv", INLET_BIN, t);
  sh_ok(&r, "scan csv");
  assert_string_equal(r.out,
                      "id,v\n2000,\"{\"\"k\"\":[1,\"\"two\"\"]}\"\n2001,\"\"\"text\"\"\"\n2002,\n");
  tu_result_free(&r);

  /* 4: a repeated key is a bad record naming the field; nothing written. */
  snprintf(in, sizeof in, "%s/bad.ndjson", f->dir);
  const char *badr = "{\"id\":3000,\"v\":{\"a\":1,\"a\":2}}\n";
  assert_int_equal(tu_write_file(in, badr, strlen(badr)), 0);
  sh(&r, "'%s' append '%s' '%s'", INLET_BIN, t, in);
  assert_int_not_equal(r.status, 0);
  assert_non_null(strstr(r.err, "duplicate object key \"a\""));
  assert_non_null(strstr(r.err, "field \"v\""));
  tu_result_free(&r);

  /* The files: Spark's group, stats with a nullCount for v and no bounds. */
  sh(&r, "cd '%s' && '%s' parquet schema $(ls *.parquet | head -1)", t, INLET_BIN);
  sh_ok(&r, "parquet schema");
  assert_string_equal(r.out, "id long\nv struct<value:binary not null,metadata:binary not null>\n");
  tu_result_free(&r);
  sh(&r, "cat '%s/_delta_log/00000000000000000001.json'", t);
  assert_non_null(strstr(r.out, "\\\"nullCount\\\":{\\\"id\\\":0,\\\"v\\\":2}"));
  assert_non_null(strstr(r.out, "\\\"minValues\\\":{\\\"id\\\":1}"));
  tu_result_free(&r);
  for (long v = 1; v <= 3; v++)
    same_as_refcheck(f, t, v);

  /* Compaction keeps every stored byte; delete rewrites the rest. */
  snprintf(exp, sizeof exp, "%s/all.ndjson", f->dir);
  sh(&r, "'%s' scan '%s' --format ndjson > '%s'", INLET_BIN, t, exp);
  sh_ok(&r, "scan all");
  tu_result_free(&r);
  char *before = cat_files(t, "*.parquet");
  sh(&r, "'%s' compact '%s' --min-files 2", INLET_BIN, t);
  sh_ok(&r, "compact");
  tu_result_free(&r);
  sh(&r, "cd '%s' && ls -t *.parquet | head -1", t);
  char newest[512];
  snprintf(newest, sizeof newest, "%.*s", (int)strcspn(r.out, "\n"), r.out);
  tu_result_free(&r);
  char *after = cat_files(t, newest);
  assert_string_equal(after, before);
  free(before);
  free(after);
  sh(&r, "sort '%s' > '%s.s' && '%s' scan '%s' --format ndjson | sort | cmp - '%s.s' && echo same",
     exp, exp, INLET_BIN, t, exp);
  assert_string_equal(r.out, "same\n");
  tu_result_free(&r);
  sh(&r, "'%s' delete '%s' --where 'id = 2 or id = 1001'", INLET_BIN, t);
  sh_ok(&r, "delete");
  tu_result_free(&r);
  sh(&r,
     "grep -v -e '\"id\":2,' -e '\"id\":1001,' '%s' | sort > '%s.d' && '%s' scan '%s' "
     "--format ndjson | sort | cmp - '%s.d' && echo same",
     exp, exp, INLET_BIN, t, exp);
  assert_string_equal(r.out, "same\n");
  tu_result_free(&r);
  sh(&r, "'%s' checkpoint '%s'", INLET_BIN, t);
  sh_ok(&r, "checkpoint");
  tu_result_free(&r);
  same_as_refcheck(f, t, 5); /* after compaction (4) and delete (5) */
}

/* A one-file Delta table at @p dir over Parquet file @p pq (column `var`
 * a shredded variant, `id` an int), with variantShredding on. */
static void shredded_table(const char *dir, const char *pq) {
  tu_result r;
  sh(&r,
     "mkdir -p '%s/_delta_log' && cp '%s' '%s/part-0.parquet' && cd '%s' && s=$(stat -c %%s "
     "part-0.parquet) && printf '%%s\\n' "
     "'{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,\"readerFeatures\":"
     "[\"variantType\",\"variantShredding\"],\"writerFeatures\":[\"variantType\","
     "\"variantShredding\"]}}' "
     "'{\"metaData\":{\"id\":\"6b0c5d1e-0000-4000-8000-000000000002\",\"format\":{\"provider\":"
     "\"parquet\",\"options\":{}},\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":"
     "[{\\\"name\\\":\\\"id\\\",\\\"type\\\":\\\"integer\\\",\\\"nullable\\\":true,"
     "\\\"metadata\\\":{}},{\\\"name\\\":\\\"var\\\",\\\"type\\\":\\\"variant\\\",\\\"nullable\\\":"
     "true,\\\"metadata\\\":{}}]}\",\"partitionColumns\":[],\"configuration\":"
     "{\"delta.enableVariantShredding\":\"true\"},\"createdTime\":1}}' "
     "> _delta_log/00000000000000000000.json && printf "
     "'{\"add\":{\"path\":\"part-0.parquet\",\"partitionValues\":{},\"size\":%%s,"
     "\"modificationTime\":1,\"dataChange\":true}}\\n' \"$s\" >> "
     "_delta_log/00000000000000000000.json",
     dir, pq, dir, dir);
  sh_ok(&r, "shredded table");
  tu_result_free(&r);
}

/* Hex of the metadata and value of a *.variant.bin file (the two
 * concatenated; the metadata's length follows from its header). */
static void split_variant_bin(const char *path, char **meta_hex, char **val_hex) {
  size_t n = 0;
  uint8_t *b = (uint8_t *)tu_read_file(path, &n);
  assert_non_null(b);
  assert_true(n >= 3);
  size_t osz = (size_t)(b[0] >> 6) + 1, dict = 0, last = 0;
  for (size_t i = 0; i < osz; i++)
    dict |= (size_t)b[1 + i] << (8 * i);
  for (size_t i = 0; i < osz; i++)
    last |= (size_t)b[1 + osz + dict * osz + i] << (8 * i);
  size_t ml = 1 + osz + (dict + 1) * osz + last;
  assert_true(ml < n);
  *meta_hex = malloc(2 * ml + 1);
  *val_hex = malloc(2 * (n - ml) + 1);
  for (size_t i = 0; i < ml; i++)
    sprintf(*meta_hex + 2 * i, "%02x", b[i]);
  for (size_t i = ml; i < n; i++)
    sprintf(*val_hex + 2 * (i - ml), "%02x", b[i]);
  (*meta_hex)[2 * ml] = (*val_hex)[2 * (n - ml)] = 0;
  free(b);
}

/* apache/parquet-testing's shredded_variant cases (tests/data/foreign):
 * each shredded file reads as the unshredded variant the case gives (its
 * *.variant.bin), which inlet reads through the unshredded path from a
 * table built here; the error cases are refused with a clear error. */
static void test_variant__parquet_testing_shredded_cases(void **state) {
  fixture *f = *state;
  char dir[4300], path[4400];
  snprintf(dir, sizeof dir, "%s/tests/data/foreign/parquet-testing/shredded_variant",
           INLET_SOURCE_DIR);
  snprintf(path, sizeof path, "%s/cases.json", dir);
  json_error_t je;
  json_t *cases = json_load_file(path, 0, &je);
  assert_non_null(cases);
  /* 1: the expected values, unshredded, in one table (id = case * 10 + row). */
  inlet_buf nd = INLET_BUF_INIT;
  size_t ci;
  json_t *c;
  int n_values = 0, n_errors = 0, n_ok = 0;
  json_array_foreach(cases, ci, c) {
    json_int_t num = json_integer_value(json_object_get(c, "case_number"));
    json_t *files = json_object_get(c, "variant_files");
    json_t *one = json_object_get(c, "variant_file");
    size_t rows = files ? json_array_size(files) : one ? 1 : 0;
    for (size_t k = 0; k < rows; k++) {
      json_t *vf = files ? json_array_get(files, k) : one;
      if (json_is_null(vf)) {
        inlet_buf_appendf(&nd, "{\"id\":%lld,\"v\":null}\n", (long long)(num * 10 + (int)k));
        continue;
      }
      char *mh, *vh;
      snprintf(path, sizeof path, "%s/%s", dir, json_string_value(vf));
      split_variant_bin(path, &mh, &vh);
      inlet_buf_appendf(&nd, "{\"id\":%lld,\"v\":{\"metadata\":\"%s\",\"value\":\"%s\"}}\n",
                        (long long)(num * 10 + (int)k), mh, vh);
      free(mh);
      free(vh);
      n_values++;
    }
  }
  char exp[4300];
  snprintf(exp, sizeof exp, "%s/expected", f->dir);
  inlet_buf_push(&nd, 0);
  hand_table(exp, (const char *)nd.data);
  inlet_buf_reset(&nd);
  tu_result r;
  sh(&r, "'%s' scan '%s' --format ndjson", INLET_BIN, exp);
  sh_ok(&r, "scan expected");
  json_t *want = json_object();
  for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
    json_t *row = json_loads(line, 0, NULL);
    assert_non_null(row);
    char key[32];
    snprintf(key, sizeof key, "%lld", (long long)json_integer_value(json_object_get(row, "id")));
    json_object_set(want, key, json_object_get(row, "v"));
    json_decref(row);
  }
  tu_result_free(&r);
  /* 2: each case's shredded file. */
  json_array_foreach(cases, ci, c) {
    json_int_t num = json_integer_value(json_object_get(c, "case_number"));
    const char *pq = json_string_value(json_object_get(c, "parquet_file"));
    if (!pq) continue; /* a numbered gap */
    char t[4400];
    snprintf(t, sizeof t, "%s/case-%lld", f->dir, (long long)num);
    snprintf(path, sizeof path, "%s/%s", dir, pq);
    shredded_table(t, path);
    sh(&r, "'%s' scan '%s' --format ndjson", INLET_BIN, t);
    const char *err = json_string_value(json_object_get(c, "error_message"));
    if (err) {
      /* Refused: corrupt (5) or an unsupported typed_value (6), never a crash. */
      if (r.status != 5 && r.status != 6)
        fail_msg("case %lld (%s): exit %d, want a refusal: %s", (long long)num, err, r.status,
                 r.err);
      assert_non_null(strstr(r.err, "variant"));
      n_errors++;
      tu_result_free(&r);
      continue;
    }
    bool invalid = strstr(pq, "INVALID") != NULL;
    if (invalid && r.status != 0) { /* the notes allow an error */
      tu_result_free(&r);
      continue;
    }
    sh_ok(&r, pq);
    int k = 0;
    for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n"), k++) {
      json_t *row = json_loads(line, 0, NULL);
      assert_non_null(row);
      char key[32];
      snprintf(key, sizeof key, "%lld", (long long)(num * 10 + k));
      json_t *w = json_object_get(want, key), *g = json_object_get(row, "var");
      if (!w || !json_equal(w, g)) {
        char *ws = json_dumps(w, JSON_ENCODE_ANY), *gs = json_dumps(g, JSON_ENCODE_ANY);
        fail_msg("case %lld (%s) row %d: want %s, got %s", (long long)num, pq, k, ws, gs);
      }
      json_decref(row);
    }
    tu_result_free(&r);
    n_ok++;
  }
  json_decref(want);
  json_decref(cases);
  /* Every case ran (a file or an error each). */
  assert_true(n_values >= 125);
  assert_int_equal(n_errors, 6);
  assert_true(n_ok >= 128);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_variant__spark_table_reads_as_refcheck, setup, teardown),
      cmocka_unit_test_setup_teardown(test_variant__hand_encoded_values_from_the_spec, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_variant__corrupt_value_names_file_column_and_row, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_variant__shredding_enabled_table_written_unshredded,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_variant__shredded_files_rewritten_unshredded, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_variant__shredding_table_takes_unshredded_writes, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_variant__spark_table_append_and_compact_keep_bytes,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_variant__inlet_table_round_trip, setup, teardown),
      cmocka_unit_test_setup_teardown(test_variant__parquet_testing_shredded_cases, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
