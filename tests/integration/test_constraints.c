/*
 * Issue 11 §3, "Invariants and constraints hold": column invariants
 * (PROTOCOL.md "Column Invariants", schema metadata delta.invariants) and
 * CHECK constraints (PROTOCOL.md "CHECK Constraints", delta.constraints.*)
 * are enforced on every row that `inlet append`, `inlet ingest` and
 * `inlet compact` commit, with the semantics of the spec and Spark: a row
 * violates a constraint when its expression is FALSE or NULL.
 *
 * The tables are written here the way Spark stores them (a commit 0 with
 * protocol and metaData), since inlet's own `create` cannot attach
 * invariants to columns; the expression texts include Spark's stored form
 * (tokens joined by spaces: "concat ( num , text ) != '9i'", from
 * delta-io/delta CheckConstraintsSuite). No table in the shared golden data,
 * delta-rs's crates/test/tests/data or delta-kernel-rs's test data carries
 * delta.invariants metadata or a delta.constraints.* property (searched).
 */
#include "testutil.h"

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "inlet/inlet.h"

typedef struct fx {
  char dir[400];
  char table[512];
  char in[512];
} fx;

static int setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  snprintf(f->dir, sizeof f->dir, "%s", tu_mkdtemp("constraints"));
  snprintf(f->table, sizeof f->table, "%s/t", f->dir);
  snprintf(f->in, sizeof f->in, "%s/in.ndjson", f->dir);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fx *f = *state;
  tu_rmtree(f->dir);
  free(f);
  return 0;
}

/* A field of a schemaString, with a delta.invariants rule when @p inv. */
static json_t *field(const char *name, json_t *type, bool nullable, const char *inv) {
  json_t *md = json_object();
  if (inv) {
    json_t *rule = json_pack("{s:{s:s}}", "expression", "expression", inv);
    char *s = json_dumps(rule, JSON_COMPACT);
    json_object_set_new(md, "delta.invariants", json_string(s));
    free(s);
    json_decref(rule);
  }
  return json_pack("{s:s,s:o,s:b,s:o}", "name", name, "type", type, "nullable", nullable,
                   "metadata", md);
}

/* Writes commit @p version of @p table: protocol (1, @p writer) and
 * metaData with schema @p fields (consumed), partition columns @p parts
 * (NULL-terminated, may be NULL) and configuration pairs @p conf (key,
 * value, ..., NULL). */
static void write_meta(const char *table, int64_t version, int writer, json_t *fields,
                       const char *const *parts, const char *const *conf) {
  char dir[700], path[800];
  snprintf(dir, sizeof dir, "%s/_delta_log", table);
  mkdir(table, 0777);
  mkdir(dir, 0777);
  snprintf(path, sizeof path, "%s/%020lld.json", dir, (long long)version);
  json_t *schema = json_pack("{s:s,s:o}", "type", "struct", "fields", fields);
  char *schema_s = json_dumps(schema, JSON_COMPACT);
  json_decref(schema);
  json_t *pc = json_array();
  for (int i = 0; parts && parts[i]; i++)
    json_array_append_new(pc, json_string(parts[i]));
  json_t *cf = json_object();
  for (int i = 0; conf && conf[i]; i += 2)
    json_object_set_new(cf, conf[i], json_string(conf[i + 1]));
  json_t *meta = json_pack("{s:{s:s,s:{s:s,s:{}},s:s,s:o,s:o,s:I}}", "metaData", "id",
                           "8b6a3d6e-2b4f-4c55-9f3e-0c3f7f1e2a10", "format", "provider", "parquet",
                           "options", "schemaString", schema_s, "partitionColumns", pc,
                           "configuration", cf, "createdTime", (json_int_t)1700000000000);
  free(schema_s);
  FILE *fp = fopen(path, "w");
  assert_non_null(fp);
  if (version == 0)
    fprintf(fp, "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":%d}}\n", writer);
  char *m = json_dumps(meta, JSON_COMPACT);
  fprintf(fp, "%s\n", m);
  fprintf(fp, "{\"commitInfo\":{\"timestamp\":1700000000000,\"operation\":\"%s\"}}\n",
          version == 0 ? "CREATE TABLE" : "ADD CONSTRAINT");
  free(m);
  json_decref(meta);
  fclose(fp);
}

static void write_text(const char *path, const char *text) {
  assert_int_equal(tu_write_file(path, text, strlen(text)), 0);
}

static int64_t latest_version(const char *table) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  inlet_snapshot *s = NULL;
  assert_int_equal(inlet_table_open(&t, table, &err), 0);
  assert_int_equal(inlet_table_snapshot(&s, t, &err), 0);
  int64_t v = inlet_snapshot_version(s);
  inlet_snapshot_free(s);
  inlet_table_free(t);
  return v;
}

/* The table's rows as canonical NDJSON, sorted. */
static char *rows_of(const char *table) {
  tu_result r;
  tu_sh(&r, "'%s' scan '%s' --format ndjson | sort", INLET_BIN, table);
  assert_int_equal(r.status, 0);
  char *out = r.out;
  r.out = NULL;
  tu_result_free(&r);
  return out;
}

/* Data files (.parquet) anywhere under the table directory. */
static int count_parquet(const char *dir) {
  tu_result r;
  tu_sh(&r, "find '%s' -name '*.parquet' | wc -l", dir);
  int n = atoi(r.out ? r.out : "-1");
  tu_result_free(&r);
  return n;
}

static tu_result append(const fx *f, const char *rows) {
  write_text(f->in, rows);
  tu_result r;
  tu_sh(&r, "'%s' append '%s' '%s'", INLET_BIN, f->table, f->in);
  return r;
}

/* ---- invariants ----------------------------------------------------------------- */

/* The reproduction: a delta.invariants `id > 3` table refused
 * {"id":1} from `inlet append`. */
static void test_invariants__append_refuses_a_violating_row(void **state) {
  fx *f = *state;
  write_meta(f->table, 0, 2,
             json_pack("[o,o]", field("id", json_string("long"), true, "id > 3"),
                       field("v", json_string("string"), true, NULL)),
             NULL, NULL);
  tu_result r = append(f, "{\"id\":1,\"v\":\"a\"}\n");
  assert_int_equal(r.status, 1);
  char want[1200];
  snprintf(want, sizeof want,
           "inlet: %s: invariant of column id (id > 3) violated by row 1 (false): {\"id\":1}\n",
           f->in);
  assert_string_equal(r.err, want);
  tu_result_free(&r);
  /* Nothing committed, no data file left behind. */
  assert_int_equal(latest_version(f->table), 0);
  assert_int_equal(count_parquet(f->table), 0);
  /* NULL violates an invariant too (PROTOCOL.md: "false or null"); the row
   * number counts the rows of the write. */
  r = append(f, "{\"id\":4}\n{\"id\":null}\n");
  assert_int_equal(r.status, 1);
  assert_non_null(strstr(r.err, "invariant of column id (id > 3) violated by row 2 (NULL): "
                                "{\"id\":null}"));
  tu_result_free(&r);
  assert_int_equal(latest_version(f->table), 0);
  /* Valid rows go in. */
  r = append(f, "{\"id\":4,\"v\":\"x\"}\n{\"id\":5}\n");
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  assert_int_equal(latest_version(f->table), 1);
  char *rows = rows_of(f->table);
  assert_string_equal(rows, "{\"id\":4,\"v\":\"x\"}\n{\"id\":5,\"v\":null}\n");
  free(rows);
}

/* An invariant on a field inside a struct reads the full path. */
static void test_invariants__nested_field(void **state) {
  fx *f = *state;
  json_t *inner = json_pack("{s:s,s:[o]}", "type", "struct", "fields",
                            field("a", json_string("integer"), true, "st.a >= 0"));
  write_meta(f->table, 0, 2,
             json_pack("[o,o]", field("id", json_string("long"), true, NULL),
                       field("st", inner, true, NULL)),
             NULL, NULL);
  tu_result r = append(f, "{\"id\":1,\"st\":{\"a\":2}}\n{\"id\":2,\"st\":{\"a\":-1}}\n");
  assert_int_equal(r.status, 1);
  assert_non_null(strstr(r.err, "invariant of column st.a (st.a >= 0) violated by row 2 (false)"));
  tu_result_free(&r);
  /* A null struct makes st.a NULL: a violation, as in Spark. */
  r = append(f, "{\"id\":3,\"st\":null}\n");
  assert_int_equal(r.status, 1);
  assert_non_null(strstr(r.err, "(NULL)"));
  tu_result_free(&r);
  r = append(f, "{\"id\":1,\"st\":{\"a\":0}}\n");
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
}

/* NOT NULL below the top level (part of the invariants feature: Spark's
 * NotNull constraints through struct nesting): a Parquet input whose
 * struct field holds a null the table declares NOT NULL is refused. */
static void test_invariants__nested_not_null(void **state) {
  fx *f = *state;
  json_t *inner = json_pack("{s:s,s:[o]}", "type", "struct", "fields",
                            field("a", json_string("long"), false, NULL));
  write_meta(f->table, 0, 2,
             json_pack("[o,o]", field("id", json_string("long"), true, NULL),
                       field("st", inner, true, NULL)),
             NULL, NULL);
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, "id long, st struct<a:long>", &err), 0);
  const char *rows = "{\"id\":1,\"st\":{\"a\":1}}\n{\"id\":2,\"st\":null}\n"
                     "{\"id\":3,\"st\":{\"a\":null}}\n";
  inlet_text_reader *r = NULL;
  inlet_text_reader_options o = INLET_TEXT_READER_OPTIONS_INIT;
  assert_int_equal(inlet_text_reader_open_memory(&r, rows, strlen(rows), &s, &o, &err), 0);
  inlet_batch b;
  memset(&b, 0, sizeof b);
  assert_int_equal(inlet_text_reader_next(r, &b, &err), 0);
  inlet_text_reader_free(r);
  char pq[600];
  snprintf(pq, sizeof pq, "%s/in.parquet", f->dir);
  inlet_parquet_writer_options wo = INLET_PARQUET_WRITER_OPTIONS_INIT;
  inlet_parquet_writer *w = NULL;
  assert_int_equal(inlet_parquet_writer_open(&w, pq, &s, &wo, &err), 0);
  assert_int_equal(inlet_parquet_writer_write(w, &b, &err), 0);
  assert_int_equal(inlet_parquet_writer_close(w, &err), 0);
  inlet_parquet_writer_free(w);
  inlet_batch_reset(&b);
  inlet_schema_reset(&s);
  tu_result res;
  tu_sh(&res, "'%s' append '%s' '%s'", INLET_BIN, f->table, pq);
  assert_int_equal(res.status, 1);
  assert_non_null(strstr(res.err, "NOT NULL constraint violated for column st.a by row 3"));
  tu_result_free(&res);
  assert_int_equal(latest_version(f->table), 0);
  /* A null struct is fine: its NOT NULL field exists only inside a value. */
  res = append(f, "{\"id\":2,\"st\":null}\n");
  assert_int_equal(res.status, 0);
  tu_result_free(&res);
}

/* ---- CHECK constraints ------------------------------------------------------------ */

static const char *const CHECKS[] = {
    "delta.constraints.positive",
    "amount > 0", /* comparison */
    "delta.constraints.kinds",
    "kind IN ('a', 'b', 'c')", /* IN */
    "delta.constraints.haskind",
    "kind IS NOT NULL", /* IS NOT NULL */
    "delta.constraints.total",
    "qty * price <= 1000 AND qty % 2 = 0", /* arithmetic */
    "delta.constraints.window",
    "NOT (day < '2024-01-01' OR day > '2024-12-31')", /* NOT, OR */
    "delta.constraints.combo",
    "concat ( qty , kind ) != '4c'", /* Spark's stored form */
    "delta.constraints.note",
    "note IS NULL OR length(note) <= 5", /* NULL allowed explicitly */
    NULL};

static void make_checks_table(const fx *f) {
  write_meta(f->table, 0, 3,
             json_pack("[o,o,o,o,o,o]", field("kind", json_string("string"), true, NULL),
                       field("amount", json_string("double"), true, NULL),
                       field("qty", json_string("integer"), true, NULL),
                       field("price", json_string("decimal(10,2)"), true, NULL),
                       field("day", json_string("date"), true, NULL),
                       field("note", json_string("string"), true, NULL)),
             NULL, CHECKS);
}

static void expect_refused(const fx *f, const char *row, const char *part) {
  tu_result r = append(f, row);
  if (r.status != 1 || !strstr(r.err, part))
    fail_msg("row %s: expected a refusal naming <%s>, got status %d: %s", row, part, r.status,
             r.err);
  tu_result_free(&r);
}

static void test_check_constraints__each_operator_class(void **state) {
  fx *f = *state;
  make_checks_table(f);
  const char *good = "{\"kind\":\"a\",\"amount\":1.5,\"qty\":2,\"price\":\"10.00\","
                     "\"day\":\"2024-05-01\",\"note\":\"hi\"}\n";
  tu_result r = append(f, good);
  if (r.status != 0) fail_msg("good row refused: %s", r.err);
  tu_result_free(&r);
  expect_refused(
      f, "{\"kind\":\"a\",\"amount\":-1,\"qty\":2,\"price\":\"1\",\"day\":\"2024-05-01\"}\n",
      "CHECK constraint positive (amount > 0) violated by row 1 (false): "
      "{\"amount\":-1}");
  expect_refused(f,
                 "{\"kind\":\"z\",\"amount\":1,\"qty\":2,\"price\":\"1\",\"day\":\"2024-05-01\"}\n",
                 "CHECK constraint kinds (kind IN ('a', 'b', 'c')) violated by row 1 (false): "
                 "{\"kind\":\"z\"}");
  /* kind NULL: `kinds` is NULL (violated), `haskind` FALSE; the first found names. */
  expect_refused(f, "{\"amount\":1,\"qty\":2,\"price\":\"1\",\"day\":\"2024-05-01\"}\n",
                 "violated by row 1 (");
  expect_refused(
      f, "{\"kind\":\"a\",\"amount\":1,\"qty\":2,\"price\":\"600\",\"day\":\"2024-05-01\"}\n",
      "CHECK constraint total (qty * price <= 1000 AND qty % 2 = 0) violated by row 1 "
      "(false): {\"qty\":2,\"price\":\"600.00\"}");
  expect_refused(f,
                 "{\"kind\":\"a\",\"amount\":1,\"qty\":3,\"price\":\"1\",\"day\":\"2024-05-01\"}\n",
                 "CHECK constraint total");
  expect_refused(f,
                 "{\"kind\":\"a\",\"amount\":1,\"qty\":2,\"price\":\"1\",\"day\":\"2025-01-01\"}\n",
                 "CHECK constraint window (NOT (day < '2024-01-01' OR day > '2024-12-31')) "
                 "violated by row 1 (false): {\"day\":\"2025-01-01\"}");
  expect_refused(f,
                 "{\"kind\":\"c\",\"amount\":1,\"qty\":4,\"price\":\"1\",\"day\":\"2024-05-01\"}\n",
                 "CHECK constraint combo (concat ( qty , kind ) != '4c') violated by row 1 "
                 "(false): {\"kind\":\"c\",\"qty\":4}");
  expect_refused(f,
                 "{\"kind\":\"a\",\"amount\":1,\"qty\":2,\"price\":\"1\",\"day\":\"2024-05-01\","
                 "\"note\":\"toolong\"}\n",
                 "CHECK constraint note (note IS NULL OR length(note) <= 5) violated");
  /* One bad row among good ones refuses the whole commit. */
  expect_refused(f,
                 "{\"kind\":\"b\",\"amount\":2,\"qty\":2,\"price\":\"1\",\"day\":\"2024-05-01\"}\n"
                 "{\"kind\":\"b\",\"amount\":0,\"qty\":2,\"price\":\"1\",\"day\":\"2024-05-01\"}\n",
                 "CHECK constraint positive (amount > 0) violated by row 2 (false)");
  assert_int_equal(latest_version(f->table), 1);
  char *rows = rows_of(f->table);
  assert_non_null(strstr(rows, "\"kind\":\"a\""));
  assert_null(strstr(rows, "\"kind\":\"b\""));
  free(rows);
}

/* SQL's CHECK lets NULL pass; Delta's does not (PROTOCOL.md: "must return
 * true for each row"; Spark's CheckDeltaInvariant throws on null or false). */
static void test_check_constraints__null_violates(void **state) {
  fx *f = *state;
  const char *conf[] = {"delta.constraints.pos", "amount > 0", "delta.constraints.nullok",
                        "amount IS NULL OR amount < 100", NULL};
  write_meta(f->table, 0, 3,
             json_pack("[o,o]", field("id", json_string("long"), true, NULL),
                       field("amount", json_string("double"), true, NULL)),
             NULL, conf);
  expect_refused(f, "{\"id\":1,\"amount\":null}\n",
                 "CHECK constraint pos (amount > 0) violated by row 1 (NULL): {\"amount\":null}");
  expect_refused(f, "{\"id\":1}\n", "(NULL)");
  expect_refused(f, "{\"id\":1,\"amount\":100}\n", "CHECK constraint nullok");
  tu_result r = append(f, "{\"id\":1,\"amount\":99}\n");
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  /* Constraint keys are matched ignoring case, as Spark does. */
  const char *conf2[] = {"Delta.Constraints.Upper", "id < 10", NULL};
  write_meta(f->table, 2, 3,
             json_pack("[o,o]", field("id", json_string("long"), true, NULL),
                       field("amount", json_string("double"), true, NULL)),
             NULL, conf2);
  expect_refused(f, "{\"id\":10,\"amount\":1}\n", "CHECK constraint Upper (id < 10)");
}

/* A table whose constraint inlet cannot evaluate is not written, by any
 * command, and its log stays as it was. */
static void test_check_constraints__unparseable_refuses_the_table(void **state) {
  fx *f = *state;
  const char *conf[] = {"delta.constraints.odd", "frob(id) > 1", NULL};
  write_meta(f->table, 0, 3, json_pack("[o]", field("id", json_string("long"), true, NULL)), NULL,
             conf);
  tu_result r = append(f, "{\"id\":1}\n");
  assert_int_equal(r.status, 6);
  assert_non_null(strstr(r.err, "cannot write: CHECK constraint odd (frob(id) > 1) cannot be "
                                "evaluated by inlet: column 1: unknown function frob()"));
  tu_result_free(&r);
  tu_sh(&r, "'%s' ingest '%s' --source 'file:%s' --once", INLET_BIN, f->table, f->in);
  assert_int_equal(r.status, 6);
  assert_non_null(strstr(r.err, "CHECK constraint odd (frob(id) > 1)"));
  tu_result_free(&r);
  tu_sh(&r, "'%s' compact '%s' --min-files 2", INLET_BIN, f->table);
  assert_int_equal(r.status, 6);
  assert_non_null(strstr(r.err, "CHECK constraint odd"));
  tu_result_free(&r);
  /* An invariant rule that is not an expression is refused too. */
  char path[800];
  snprintf(path, sizeof path, "%s/_delta_log/00000000000000000000.json", f->table);
  json_t *fl = json_pack("[{s:s,s:s,s:b,s:{s:s}}]", "name", "id", "type", "long", "nullable", 1,
                         "metadata", "delta.invariants", "{\"rule\":\"x\"}");
  char t2[600];
  snprintf(t2, sizeof t2, "%s/t2", f->dir);
  write_meta(t2, 0, 2, fl, NULL, NULL);
  tu_sh(&r, "'%s' append '%s' '%s'", INLET_BIN, t2, f->in);
  assert_int_equal(r.status, 6);
  assert_non_null(strstr(r.err, "column \"id\" has a delta.invariants rule inlet does not "
                                "understand"));
  tu_result_free(&r);
  assert_int_equal(latest_version(f->table), 0);
  assert_int_equal(latest_version(t2), 0);
  assert_int_equal(count_parquet(f->dir), 0);
}

/* ---- ingest ------------------------------------------------------------------------- */

static void test_ingest__violating_rows_go_to_dead_letters(void **state) {
  fx *f = *state;
  const char *conf[] = {"delta.constraints.positive_amount", "amount > 0", NULL};
  write_meta(f->table, 0, 3,
             json_pack("[o,o]", field("id", json_string("long"), true, "id < 100"),
                       field("amount", json_string("double"), true, NULL)),
             NULL, conf);
  write_text(f->in, "{\"id\":1,\"amount\":5}\n"
                    "{\"id\":2,\"amount\":-5}\n"
                    "{\"id\":3,\"amount\":7}\n"
                    "{\"id\":4}\n"
                    "{\"id\":500,\"amount\":1}\n"
                    "{\"id\":6,\"amount\":0.5}\n");
  tu_result r;
  tu_sh(&r, "'%s' ingest '%s' --source 'file:%s' --once --app-id C --json", INLET_BIN, f->table,
        f->in);
  if (r.status != 0) fail_msg("ingest: %s", r.err);
  assert_non_null(strstr(r.out, "\"rejected\":3"));
  tu_result_free(&r);
  char *rows = rows_of(f->table);
  assert_string_equal(rows, "{\"id\":1,\"amount\":5}\n{\"id\":3,\"amount\":7}\n"
                            "{\"id\":6,\"amount\":0.5}\n");
  free(rows);
  /* One dead-letter file, one line per violating record, naming the constraint. */
  char dl[800];
  snprintf(dl, sizeof dl, "%s/_errors/C", f->table);
  DIR *d = opendir(dl);
  assert_non_null(d);
  struct dirent *de;
  char name[300] = "";
  while ((de = readdir(d)) != NULL)
    if (de->d_name[0] != '.') snprintf(name, sizeof name, "%s", de->d_name);
  closedir(d);
  char path[1200];
  snprintf(path, sizeof path, "%s/%s", dl, name);
  char *text = tu_read_file(path, NULL);
  assert_non_null(text);
  const char *want[3][3] = {
      {"{\"id\":2,\"amount\":-5}", "positive_amount",
       "CHECK constraint positive_amount (amount > 0) violated (false): {\"amount\":-5}"},
      {"{\"id\":4}", "positive_amount",
       "CHECK constraint positive_amount (amount > 0) violated (NULL): {\"amount\":null}"},
      {"{\"id\":500,\"amount\":1}", "id",
       "invariant of column id (id < 100) violated (false): {\"id\":500}"}};
  int lines = 0;
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"), lines++) {
    json_error_t je;
    json_t *j = json_loads(line, 0, &je);
    if (!j) fail_msg("dead letter line is not JSON: %s", je.text);
    assert_true(lines < 3);
    assert_string_equal(json_string_value(json_object_get(j, "record")), want[lines][0]);
    assert_string_equal(json_string_value(json_object_get(j, "constraint")), want[lines][1]);
    assert_string_equal(json_string_value(json_object_get(j, "reason")), want[lines][2]);
    json_decref(j);
  }
  assert_int_equal(lines, 3);
  free(text);
}

/* ---- compaction ----------------------------------------------------------------------- */

static void test_compaction__rechecks_rows_it_rewrites(void **state) {
  fx *f = *state;
  const char *parts[] = {"day", NULL};
  const char *conf[] = {"delta.constraints.small", "id < 100 AND day >= '2024-01-01'", NULL};
  json_t *fields = json_pack("[o,o]", field("id", json_string("long"), true, NULL),
                             field("day", json_string("date"), true, NULL));
  write_meta(f->table, 0, 3, fields, parts, conf);
  for (int i = 0; i < 4; i++) {
    char row[100];
    snprintf(row, sizeof row, "{\"id\":%d,\"day\":\"2024-05-01\"}\n", i);
    tu_result r = append(f, row);
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
  }
  tu_result r;
  tu_sh(&r, "'%s' compact '%s' --min-files 2", INLET_BIN, f->table);
  if (r.status != 0) fail_msg("compact: %s", r.err);
  tu_result_free(&r);
  assert_int_equal(latest_version(f->table), 5);
  char *rows = rows_of(f->table);
  assert_string_equal(rows,
                      "{\"id\":0,\"day\":\"2024-05-01\"}\n{\"id\":1,\"day\":\"2024-05-01\"}\n"
                      "{\"id\":2,\"day\":\"2024-05-01\"}\n{\"id\":3,\"day\":\"2024-05-01\"}\n");
  free(rows);
  /* A row another writer committed before a stricter constraint came:
   * compaction does not rewrite it into a new file (the group fails, the
   * table stays as it was). */
  for (int i = 0; i < 2; i++) {
    char row[100];
    snprintf(row, sizeof row, "{\"id\":%d,\"day\":\"2024-06-01\"}\n", 50 + i);
    r = append(f, row);
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
  }
  const char *stricter[] = {"delta.constraints.small", "id < 50", NULL};
  write_meta(f->table, 8, 3,
             json_pack("[o,o]", field("id", json_string("long"), true, NULL),
                       field("day", json_string("date"), true, NULL)),
             parts, stricter);
  tu_sh(&r, "'%s' compact '%s' --min-files 2", INLET_BIN, f->table);
  char all[4096];
  snprintf(all, sizeof all, "%s%s", r.out ? r.out : "", r.err ? r.err : "");
  if (!strstr(all, "breaks a table constraint") ||
      !strstr(all, "CHECK constraint small (id < 50) violated (false): {\"id\":50}"))
    fail_msg("compaction did not name the violation: %s", all);
  tu_result_free(&r);
  assert_int_equal(latest_version(f->table), 8);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_invariants__append_refuses_a_violating_row, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_invariants__nested_field, setup, teardown),
      cmocka_unit_test_setup_teardown(test_invariants__nested_not_null, setup, teardown),
      cmocka_unit_test_setup_teardown(test_check_constraints__each_operator_class, setup, teardown),
      cmocka_unit_test_setup_teardown(test_check_constraints__null_violates, setup, teardown),
      cmocka_unit_test_setup_teardown(test_check_constraints__unparseable_refuses_the_table, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_ingest__violating_rows_go_to_dead_letters, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_compaction__rechecks_rows_it_rewrites, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
