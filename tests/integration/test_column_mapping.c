/*
 * Issue 16, column mapping (PROTOCOL.md "Column Mapping"), read side:
 * tables whose data files, partitionValues and stats use physical names
 * (name mode) or Parquet field ids (id mode) read as refcheck, an
 * independent reader that implements column mapping, reads them - at every
 * version; a rename and a drop written as metaData commits change only the
 * logical schema, so each version reads with its own names; bad mapping
 * metadata is a clear "corrupt" error (exit 5), never rows or a crash.
 * Write side: appends, ingest and checkpoints on mapping tables write
 * physical names (field ids in id mode) into data files, partitionValues
 * and stats, and every version reads back as refcheck reads it; compaction
 * reads its inputs by physical field (renamed columns, columns old files
 * lack, nested structs, deletion vectors) and writes physical names (field
 * ids in id mode): the table reads the same rows before and after it.
 * Schema evolution (`append --schema-evolution add`) on a mapping table
 * gives every new column and struct field, at any depth, a fresh id above
 * delta.columnMapping.maxColumnId and a "col-<uuid>" physical name (the
 * old fields keep theirs), writes them into the data files (field ids in
 * id mode), and refcheck reads every version as inlet does.
 *
 * The tables are public test tables of delta-rs and delta-kernel-rs
 * (tests/data/foreign, README there), copied to a scratch directory.
 */
#include "testutil.h"

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
  snprintf(f->dir, sizeof f->dir, "%s", tu_mkdtemp("colmap"));
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

/* A scratch copy of foreign table @p rel; @p exempt: not held to the
 * suite's rules checker (upstream fixtures may be trimmed, and the tests
 * below break some on purpose). Tables inlet writes to are checked. */
static const char *copy_table_as(fixture *f, const char *rel, const char *as, bool exempt) {
  static char path[4300];
  snprintf(path, sizeof path, "%s/%s", f->dir, as);
  tu_result r;
  sh(&r, "rm -rf '%s' && cp -R '%s/tests/data/foreign/%s' '%s' && chmod -R u+w '%s'", path,
     INLET_SOURCE_DIR, rel, path, path);
  sh_ok(&r, "copy foreign table");
  tu_result_free(&r);
  if (exempt)
    tu_rules_exempt(path, "test_column_mapping: upstream fixture or hand-written commits");
  return path;
}

static const char *copy_table(fixture *f, const char *rel, const char *as) {
  return copy_table_as(f, rel, as, true);
}

/* inlet's rows of @p table at version @p v equal refcheck's; returns
 * inlet's NDJSON (malloc'd). */
static char *same_as_refcheck(fixture *f, const char *table, long v) {
  tu_result r;
  sh(&r, "'%s' scan '%s' --version %ld --format ndjson > '%s/i.ndjson'", INLET_BIN, table, v,
     f->dir);
  if (r.status != 0) fail_msg("scan %s @%ld: exit %d: %s", table, v, r.status, r.err);
  tu_result_free(&r);
  sh(&r,
     "'%s' '%s' delta '%s' --version %ld > '%s/r.json' && '%s' '%s' compare '%s/r.json' "
     "'%s/i.ndjson' --ndjson",
     INLET_NODE, INLET_REFCHECK, table, v, f->dir, INLET_NODE, INLET_REFCHECK, f->dir, f->dir);
  if (r.status != 0) fail_msg("%s @%ld: inlet and refcheck differ: %s%s", table, v, r.out, r.err);
  tu_result_free(&r);
  char p[4200];
  snprintf(p, sizeof p, "%s/i.ndjson", f->dir);
  size_t n;
  char *out = tu_read_file(p, &n);
  assert_non_null(out);
  return out;
}

static int newest_version(const char *table) {
  tu_result r;
  sh(&r, "ls '%s/_delta_log' | grep -E '^[0-9]{20}\\.json$' | sort | tail -1", table);
  int v = atoi(r.out);
  tu_result_free(&r);
  return v;
}

/* Every version of every column-mapping table of delta-rs and
 * delta-kernel-rs reads as refcheck reads it; the data files really hold
 * physical names (so a reader ignoring the mapping would read nulls). */
static void test_cm__foreign_tables_read_as_refcheck_at_every_version(void **state) {
  fixture *f = *state;
  static const struct {
    const char *rel;
    int min_rows; /* at the newest version */
  } tables[] = {
      {"delta-rs/table_with_column_mapping", 5},               /* name, (2,5), nested */
      {"delta-rs/table_with_partitioning_mapping", 2},         /* name, partitioned */
      {"delta-kernel-rs/cdf-column-mapping-id-mode", 3},       /* id, DVs, CDF */
      {"delta-kernel-rs/cdf-column-mapping-name-mode-3-7", 3}, /* name, table features */
      {"delta-kernel-rs/partition_cm-id", 0},
      {"delta-kernel-rs/partition_cm-name", 0},
  };
  for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
    const char *t = copy_table(f, tables[i].rel, "t");
    int newest = newest_version(t);
    for (int v = 0; v <= newest; v++) {
      char *rows = same_as_refcheck(f, t, v);
      if (v == newest) {
        int n = 0;
        for (const char *p = rows; (p = strchr(p, '\n')); p++)
          n++;
        if (n < tables[i].min_rows)
          fail_msg("%s: %d rows, at least %d expected", tables[i].rel, n, tables[i].min_rows);
        /* Logical names out, never physical ones. */
        if (strstr(rows, "col-")) fail_msg("%s: physical name in output: %s", tables[i].rel, rows);
      }
      free(rows);
    }
  }
  /* The id-mode table's files carry the field ids the scan matches by. */
  const char *t = copy_table(f, "delta-kernel-rs/cdf-column-mapping-id-mode", "t");
  tu_result r;
  sh(&r, "'%s' parquet meta \"$(ls '%s'/part-*.parquet | head -1)\" | grep -c field_id", INLET_BIN,
     t);
  if (atoi(r.out) < 1) fail_msg("expected field ids in the id-mode data files: %s", r.out);
  tu_result_free(&r);
}

/* Commits @p schema_edit applied to the newest metaData as version @p v. */
typedef void (*schema_edit)(json_t *fields, json_t *conf);

static json_t *field_named(json_t *fields, const char *name) {
  size_t i;
  json_t *fj;
  json_array_foreach(fields, i, fj) {
    if (strcmp(json_string_value(json_object_get(fj, "name")), name) == 0) return fj;
  }
  fail_msg("no field %s", name);
  return NULL;
}

static void commit_schema(const char *table, int from, int v, schema_edit edit) {
  char p[4400];
  snprintf(p, sizeof p, "%s/_delta_log/%020d.json", table, from);
  size_t n;
  char *text = tu_read_file(p, &n);
  assert_non_null(text);
  json_t *md = NULL;
  for (char *line = strtok(text, "\n"); line && !md; line = strtok(NULL, "\n")) {
    json_t *o = json_loads(line, 0, NULL);
    if (o && json_object_get(o, "metaData")) md = json_incref(json_object_get(o, "metaData"));
    json_decref(o);
  }
  free(text);
  assert_non_null(md);
  json_t *schema = json_loads(json_string_value(json_object_get(md, "schemaString")), 0, NULL);
  assert_non_null(schema);
  edit(json_object_get(schema, "fields"), json_object_get(md, "configuration"));
  char *ss = json_dumps(schema, JSON_COMPACT);
  json_object_set_new(md, "schemaString", json_string(ss));
  free(ss);
  json_decref(schema);
  json_t *ci = json_pack("{s:{s:I,s:s}}", "commitInfo", "timestamp",
                         (json_int_t)1763675160000LL + v, "operation", "CHANGE COLUMN");
  json_t *mo = json_pack("{s:o}", "metaData", md);
  char *a = json_dumps(ci, JSON_COMPACT), *b = json_dumps(mo, JSON_COMPACT);
  char body[65536];
  snprintf(body, sizeof body, "%s\n%s\n", a, b);
  free(a);
  free(b);
  json_decref(ci);
  json_decref(mo);
  snprintf(p, sizeof p, "%s/_delta_log/%020d.json", table, v);
  assert_int_equal(tu_write_file(p, body, strlen(body)), 0);
}

/* RENAME COLUMN name TO `full name`: only the logical name changes. */
static void rename_name(json_t *fields, json_t *conf) {
  (void)conf;
  json_object_set_new(field_named(fields, "name"), "name", json_string("full name"));
}

/* DROP COLUMN value, ADD COLUMN score (a new id and physical name). */
static void drop_value_add_score(json_t *fields, json_t *conf) {
  size_t i;
  json_t *fj;
  json_array_foreach(fields, i, fj) {
    if (strcmp(json_string_value(json_object_get(fj, "name")), "value") == 0) {
      json_array_remove(fields, i);
      break;
    }
  }
  json_array_append_new(
      fields, json_pack("{s:s,s:s,s:b,s:{s:i,s:s}}", "name", "score", "type", "long", "nullable", 1,
                        "metadata", "delta.columnMapping.id", 4, "delta.columnMapping.physicalName",
                        "col-5c0e1d2a-0000-4000-8000-000000000004"));
  json_object_set_new(conf, "delta.columnMapping.maxColumnId", json_string("4"));
}

/* A rename and a drop + add, written as Spark writes them (a metaData
 * commit): each version reads with its own schema, as refcheck reads it;
 * predicates use logical names and data skipping still uses the stats,
 * which stay keyed by physical name. */
static void test_cm__rename_and_drop_read_with_each_versions_schema(void **state) {
  fixture *f = *state;
  const char *t = copy_table(f, "delta-kernel-rs/cdf-column-mapping-name-mode-3-7", "ren");
  assert_int_equal(newest_version(t), 4);
  commit_schema(t, 1, 5, rename_name);
  commit_schema(t, 5, 6, drop_value_add_score);
  char *v4 = same_as_refcheck(f, t, 4);
  char *v5 = same_as_refcheck(f, t, 5);
  char *v6 = same_as_refcheck(f, t, 6);
  assert_non_null(strstr(v4, "{\"id\":2,\"name\":\"Bob\",\"value\":250}"));
  assert_non_null(strstr(v5, "{\"id\":2,\"full name\":\"Bob\",\"value\":250}"));
  assert_null(strstr(v5, "\"name\""));
  assert_non_null(strstr(v6, "{\"id\":2,\"full name\":\"Bob\",\"score\":null}"));
  assert_null(strstr(v6, "value"));
  free(v4);
  free(v5);
  free(v6);
  tu_result r;
  /* Time travel back to before the rename still has the old name. */
  sh(&r, "'%s' scan '%s' --version 2 --columns name --format csv | sort", INLET_BIN, t);
  sh_ok(&r, "scan --version 2 --columns name");
  assert_string_equal(r.out, "Alice\nBob\nCharlie\nname\n");
  tu_result_free(&r);
  sh(&r, "'%s' scan '%s' --columns 'full name' --where 'id > 3' --format csv", INLET_BIN, t);
  sh_ok(&r, "scan with the new name");
  assert_string_equal(r.out, "full name\nDavid\n");
  tu_result_free(&r);
  /* --explain: every other file is skipped by add.stats (keyed by physical
   * name). */
  sh(&r, "'%s' scan '%s' --where 'id > 3' --explain", INLET_BIN, t);
  sh_ok(&r, "scan --explain");
  assert_non_null(strstr(r.out, " 0 pruned by partition values, 2 skipped by add.stats, 1 read"));
  tu_result_free(&r);
  sh(&r, "'%s' scan '%s' --where \"\\`full name\\` = 'Zed'\" --explain", INLET_BIN, t);
  sh_ok(&r, "scan where on the renamed column");
  assert_non_null(strstr(r.out, "3 skipped by add.stats, 0 read"));
  tu_result_free(&r);
  /* The dropped column is gone from the newest schema. */
  sh(&r, "'%s' scan '%s' --columns value", INLET_BIN, t);
  assert_int_equal(r.status, 2);
  tu_result_free(&r);
}

/* Replaces the first @p from in version 0's commit of @p table by @p to. */
static void break_schema(const char *table, const char *from, const char *to) {
  char p[4400];
  snprintf(p, sizeof p, "%s/_delta_log/00000000000000000000.json", table);
  size_t n;
  char *text = tu_read_file(p, &n);
  assert_non_null(text);
  char *at = strstr(text, from);
  if (!at) fail_msg("%s: no %s in version 0", table, from);
  size_t pre = (size_t)(at - text), fl = strlen(from), tl = strlen(to);
  char *out = malloc(n - fl + tl + 1);
  memcpy(out, text, pre);
  memcpy(out + pre, to, tl);
  memcpy(out + pre + tl, at + fl, n - pre - fl);
  assert_int_equal(tu_write_file(p, out, n - fl + tl), 0);
  free(out);
  free(text);
}

static void expect_corrupt(const char *table, const char *says) {
  tu_result r;
  sh(&r, "'%s' scan '%s' --version 0 --format ndjson", INLET_BIN, table);
  if (r.status != 5 || !strstr(r.err, says))
    fail_msg("%s: expected exit 5 naming \"%s\", got %d: %s", table, says, r.status, r.err);
  assert_string_equal(r.out, "");
  tu_result_free(&r);
}

/* Bad mapping metadata is corrupt (exit 5) with a message naming it. */
static void test_cm__bad_mapping_metadata_is_a_clear_error(void **state) {
  fixture *f = *state;
  const char *rel = "delta-kernel-rs/cdf-column-mapping-id-mode";
  const char *t = copy_table(f, rel, "nophys");
  /* the physical name of column "id" removed */
  break_schema(t, "columnMapping.physicalName", "columnMapping.physicalNam");
  expect_corrupt(t, "delta.columnMapping.physicalName");
  t = copy_table(f, rel, "dupid");
  break_schema(t, "columnMapping.id\\\":2", "columnMapping.id\\\":1");
  expect_corrupt(t, "share delta.columnMapping.id 1");
  t = copy_table(f, rel, "noid");
  break_schema(t, "columnMapping.id\\\":2", "columnMapping.idx\\\":2");
  expect_corrupt(t, "no valid delta.columnMapping.id");
  t = copy_table(f, rel, "maxid");
  break_schema(t, "maxColumnId\":\"3\"", "maxColumnId\":\"2\"");
  expect_corrupt(t, "maxColumnId");
  t = copy_table(f, "delta-kernel-rs/cdf-column-mapping-name-mode-3-7", "dupname");
  break_schema(t, "col-ed3e45cf-632b-4a07-bb22-d9f4693bbaa1",
               "col-80396d42-d765-483e-b86e-7ac1e13ef88c");
  expect_corrupt(t, "share the physical name");
  /* An unknown mode is refused as unsupported (6), naming it. */
  t = copy_table(f, "delta-kernel-rs/cdf-column-mapping-name-mode-3-7", "mode");
  break_schema(t, "columnMapping.mode\":\"name\"", "columnMapping.mode\":\"fancy\"");
  tu_result r;
  sh(&r, "'%s' scan '%s' --version 0 --format ndjson", INLET_BIN, t);
  assert_int_equal(r.status, 6);
  assert_non_null(strstr(r.err, "fancy"));
  tu_result_free(&r);
}

/* The actions of commit @p v of @p table, one JSON object each. */
static json_t *commit_actions(const char *table, int v) {
  char p[4400];
  snprintf(p, sizeof p, "%s/_delta_log/%020d.json", table, v);
  size_t n;
  char *text = tu_read_file(p, &n);
  assert_non_null(text);
  json_t *all = json_array();
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
    json_t *o = json_loads(line, 0, NULL);
    assert_non_null(o);
    json_array_append_new(all, o);
  }
  free(text);
  return all;
}

/* No logical column name of @p names appears as a key in the add actions
 * of commit @p v; every add's stats name physical columns. */
static void adds_use_physical_names(const char *table, int v, const char *const *names) {
  json_t *actions = commit_actions(table, v), *o;
  int adds = 0;
  size_t i;
  json_array_foreach(actions, i, o) {
    json_t *add = json_object_get(o, "add");
    if (add) {
      adds++;
      const char *stats = json_string_value(json_object_get(add, "stats"));
      assert_non_null(stats);
      assert_non_null(strstr(stats, "\"col-"));
      char *pv = json_dumps(json_object_get(add, "partitionValues"), JSON_COMPACT);
      for (const char *const *q = names; *q; q++) {
        char key[256];
        snprintf(key, sizeof key, "\"%s\":", *q);
        if (strstr(stats, key) || strstr(pv, key))
          fail_msg("commit %d: logical name %s used as a key: %s %s", v, *q, stats, pv);
      }
      free(pv);
    }
  }
  json_decref(actions);
  assert_true(adds > 0);
}

/* The data files commit @p v adds: every top-level column physical
 * ("col-..."), with a Parquet field id on each when @p id_mode; returns how
 * many files. */
static int new_files_physical(const char *table, int v, bool id_mode) {
  json_t *actions = commit_actions(table, v), *o;
  int files = 0;
  size_t i;
  json_array_foreach(actions, i, o) {
    const char *path = json_string_value(json_object_get(json_object_get(o, "add"), "path"));
    if (path) {
      /* the path is a URI path: percent-decoded */
      char dec[4096];
      size_t k = 0;
      for (const char *c = path; *c && k + 1 < sizeof dec; c++) {
        unsigned x;
        if (c[0] == '%' && sscanf(c + 1, "%2x", &x) == 1) {
          dec[k++] = (char)x;
          c += 2;
        } else {
          dec[k++] = *c;
        }
      }
      dec[k] = '\0';
      tu_result r;
      sh(&r,
         "f='%s/%s'; echo $('%s' parquet schema \"$f\" | wc -l) "
         "$('%s' parquet schema \"$f\" | grep -c '^`col-') "
         "$('%s' parquet meta \"$f\" | grep -c 'field_id: ')",
         table, dec, INLET_BIN, INLET_BIN, INLET_BIN);
      int cols = 0, phys = 0, ids = 0;
      assert_int_equal(sscanf(r.out, "%d %d %d", &cols, &phys, &ids), 3);
      if (cols == 0 || phys != cols || (id_mode ? ids < cols : ids != 0))
        fail_msg("commit %d: %s has %d columns, %d physical, %d field ids", v, dec, cols, phys,
                 ids);
      tu_result_free(&r);
      files++;
    }
  }
  json_decref(actions);
  return files;
}

/* Compacts @p table (`inlet compact TABLE ARGS`): one commit whose rows
 * equal the version before's (both as refcheck reads them), whose removes
 * and adds have dataChange=false, and whose new files hold only physical
 * top-level columns ("col-..."), with Parquet field ids when @p id_mode. */
static void compaction_keeps_rows(fixture *f, const char *table, const char *args, bool id_mode) {
  tu_result r;
  int v = newest_version(table);
  free(same_as_refcheck(f, table, v));
  sh(&r, "sort '%s/i.ndjson' > '%s/before.ndjson'", f->dir, f->dir);
  tu_result_free(&r);
  sh(&r, "'%s' compact '%s' %s", INLET_BIN, table, args);
  sh_ok(&r, "compact");
  tu_result_free(&r);
  assert_int_equal(newest_version(table), v + 1);
  free(same_as_refcheck(f, table, v + 1));
  sh(&r, "sort '%s/i.ndjson' | cmp - '%s/before.ndjson'", f->dir, f->dir);
  sh_ok(&r, "rows after compaction equal the rows before");
  tu_result_free(&r);
  json_t *actions = commit_actions(table, v + 1), *o;
  int adds = 0, removes = 0;
  size_t i;
  json_array_foreach(actions, i, o) {
    json_t *add = json_object_get(o, "add"), *rm = json_object_get(o, "remove");
    json_t *a = add ? add : rm;
    if (a) {
      assert_true(json_is_false(json_object_get(a, "dataChange")));
      removes += rm != NULL;
    }
    adds += add != NULL;
  }
  json_decref(actions);
  assert_true(adds >= 1);
  /* Every top-level column of the new files is physical. */
  assert_int_equal(new_files_physical(table, v + 1, id_mode), adds);
  assert_true(removes >= 2);
}

/* Appends (name mode, partitioned by a column whose name needs mapping;
 * nested structs, arrays and maps; id mode with Parquet field ids), ingest
 * and checkpoints on Spark's mapping tables: each version reads as refcheck
 * reads it, data files and the log use physical names. */
static void test_cm__append_ingest_checkpoint_write_physical_names(void **state) {
  fixture *f = *state;
  tu_result r;
  char ev[4200];
  snprintf(ev, sizeof ev, "%s/ev.ndjson", f->dir);
  /* name mode, partitioned by "Company Very Short" */
  const char *t = copy_table_as(f, "delta-rs/table_with_column_mapping", "name", false);
  const char *rows = "{\"Company Very Short\":\"NEW\",\"Super Name\":\"Ada L\"}\n"
                     "{\"Company Very Short\":null,\"Super Name\":\"Null Co\"}\n";
  assert_int_equal(tu_write_file(ev, rows, strlen(rows)), 0);
  sh(&r,
     "'%s' append '%s' '%s' && '%s' ingest '%s' --source 'file:%s' --once --quiet && "
     "'%s' checkpoint '%s'",
     INLET_BIN, t, ev, INLET_BIN, t, ev, INLET_BIN, t);
  sh_ok(&r, "append, ingest, checkpoint (name mode)");
  tu_result_free(&r);
  static const char *const names1[] = {"Company Very Short", "Super Name", NULL};
  adds_use_physical_names(t, 1, names1);
  adds_use_physical_names(t, 2, names1);
  sh(&r, "ls '%s' | grep -c '^col-173b4db9-b5ad-427f-9e75-516aae37fbbb='", t);
  assert_string_equal(r.out, "2\n"); /* NEW and __HIVE_DEFAULT_PARTITION__ */
  tu_result_free(&r);
  for (int v = 0; v <= 2; v++)
    free(same_as_refcheck(f, t, v));
  char *all = same_as_refcheck(f, t, 2);
  assert_non_null(strstr(all, "{\"Company Very Short\":null,\"Super Name\":\"Null Co\"}"));
  free(all);
  sh(&r, "'%s' scan '%s' --where \"\\`Super Name\\` = 'Ada L'\" --format csv | tail -n +2",
     INLET_BIN, t);
  sh_ok(&r, "scan where");
  assert_string_equal(r.out, "NEW,Ada L\nNEW,Ada L\n");
  tu_result_free(&r);
  /* Compaction of the partition the append and the ingest wrote to,
   * selected by its logical name, sorted by a logical name. */
  compaction_keeps_rows(
      f, t, "--min-files 2 --where \"\\`Company Very Short\\` = 'NEW'\" --sort-by 'Super Name'",
      false);
  adds_use_physical_names(t, 3, names1);
  sh(&r, "'%s' scan '%s' --where \"\\`Company Very Short\\` = 'NEW'\" --format csv | tail -n +2",
     INLET_BIN, t);
  sh_ok(&r, "scan the compacted partition");
  assert_string_equal(r.out, "NEW,Ada L\nNEW,Ada L\n");
  tu_result_free(&r);

  /* id mode, partitioned, no files yet: field ids in the data files. */
  t = copy_table_as(f, "delta-kernel-rs/partition_cm-id", "id", false);
  rows = "{\"value\":1,\"category\":\"a\"}\n{\"value\":2,\"category\":\"b\"}\n";
  assert_int_equal(tu_write_file(ev, rows, strlen(rows)), 0);
  sh(&r, "'%s' append '%s' '%s' && '%s' append '%s' '%s' && '%s' checkpoint '%s'", INLET_BIN, t, ev,
     INLET_BIN, t, ev, INLET_BIN, t);
  sh_ok(&r, "append twice, checkpoint (id mode)");
  tu_result_free(&r);
  static const char *const names2[] = {"value", "category", NULL};
  adds_use_physical_names(t, 1, names2);
  for (int v = 0; v <= 2; v++)
    free(same_as_refcheck(f, t, v));
  sh(&r,
     "for p in '%s'/col-*/*.parquet; do '%s' parquet meta \"$p\" | grep -A3 "
     "'name: col-e0571b78-2d49-4109-9add-f2c54d6ea29e' | grep -c 'field_id: 1'; done | sort -u",
     t, INLET_BIN);
  sh_ok(&r, "field ids");
  assert_string_equal(r.out, "1\n");
  tu_result_free(&r);
  sh(&r, "'%s' scan '%s' --where 'value > 1' --explain", INLET_BIN, t);
  sh_ok(&r, "skipping by physical stats");
  assert_non_null(strstr(r.out, "2 skipped by add.stats, 2 read"));
  tu_result_free(&r);

  /* Spark's golden tables: every type, nested structs, arrays and maps
   * (name mode) and id mode: their own rows appended again read as
   * refcheck reads them. */
  static const char *const golden[] = {"table-with-columnmapping-mode-name",
                                       "data-skipping-basic-stats-all-types-columnmapping-id"};
  for (size_t i = 0; i < 2; i++) {
    char g[4400];
    snprintf(g, sizeof g, "%s/%s", f->dir, golden[i]);
    sh(&r,
       "cp -R '%s/../shared/testdata/delta-golden/tables/%s' '%s' && chmod -R u+w '%s' && "
       "'%s' scan '%s' --format ndjson > '%s' && '%s' append '%s' '%s' && '%s' checkpoint '%s'",
       INLET_SOURCE_DIR, golden[i], g, g, INLET_BIN, g, ev, INLET_BIN, g, ev, INLET_BIN, g);
    sh_ok(&r, golden[i]);
    tu_result_free(&r);
    char *v0 = same_as_refcheck(f, g, 0), *v1 = same_as_refcheck(f, g, 1);
    assert_true(strlen(v1) == 2 * strlen(v0));
    free(v0);
    free(v1);
    /* Spark's files and inlet's: nested structs, arrays, maps, every type. */
    compaction_keeps_rows(f, g, "--min-files 2", i == 1);
  }
}

/* Compaction after a rename and a drop + add (Spark's metaData commits):
 * old files are read by physical name, the renamed column keeps its values,
 * the added one is null in old rows; id mode (Spark's files after an
 * UPDATE and a DELETE, and inlet's append): the new files carry field ids. */
static void test_cm__compaction_after_rename_and_in_id_mode(void **state) {
  fixture *f = *state;
  tu_result r;
  char ev[4200];
  snprintf(ev, sizeof ev, "%s/ev.ndjson", f->dir);
  const char *t = copy_table(f, "delta-kernel-rs/cdf-column-mapping-name-mode-3-7", "ren");
  commit_schema(t, 1, 5, rename_name);
  commit_schema(t, 5, 6, drop_value_add_score);
  const char *rows = "{\"id\":7,\"full name\":\"Grace\",\"score\":70}\n";
  assert_int_equal(tu_write_file(ev, rows, strlen(rows)), 0);
  sh(&r, "'%s' append '%s' '%s' && '%s' append '%s' '%s'", INLET_BIN, t, ev, INLET_BIN, t, ev);
  sh_ok(&r, "append after rename");
  tu_result_free(&r);
  compaction_keeps_rows(f, t, "--min-files 2 --sort-by 'full name'", false);
  static const char *const names[] = {"full name", "score", "id", NULL};
  adds_use_physical_names(t, 9, names);
  sh(&r, "'%s' scan '%s' --columns 'full name,score' --format csv | sort", INLET_BIN, t);
  sh_ok(&r, "scan after compaction");
  assert_non_null(strstr(r.out, "Bob,\n"));
  assert_non_null(strstr(r.out, "Grace,70\nGrace,70\n"));
  tu_result_free(&r);

  t = copy_table(f, "delta-kernel-rs/cdf-column-mapping-id-mode", "idm");
  sh(&r, "'%s' scan '%s' --format ndjson | head -1 > '%s'", INLET_BIN, t, ev);
  sh_ok(&r, "one row");
  tu_result_free(&r);
  sh(&r, "'%s' append '%s' '%s'", INLET_BIN, t, ev);
  sh_ok(&r, "append (id mode)");
  tu_result_free(&r);
  compaction_keeps_rows(f, t, "--min-files 2", true);
}

/* Appends the NDJSON @p rows to @p table with `inlet append`. */
static void append_rows(fixture *f, const char *table, const char *rows) {
  char ev[4200];
  snprintf(ev, sizeof ev, "%s/ev.ndjson", f->dir);
  assert_int_equal(tu_write_file(ev, rows, strlen(rows)), 0);
  tu_result r;
  sh(&r, "'%s' append '%s' '%s'", INLET_BIN, table, ev);
  sh_ok(&r, "append");
  tu_result_free(&r);
}

/* refcheck's reading of @p table at version @p v (columns, types, rows). */
static json_t *refcheck_json(fixture *f, const char *table, long v) {
  tu_result r;
  sh(&r, "'%s' '%s' delta '%s' --version %ld > '%s/ref.json'", INLET_NODE, INLET_REFCHECK, table, v,
     f->dir);
  if (r.status != 0) fail_msg("refcheck %s @%ld: %s%s", table, v, r.out, r.err);
  tu_result_free(&r);
  char p[4200];
  snprintf(p, sizeof p, "%s/ref.json", f->dir);
  json_error_t je;
  json_t *o = json_load_file(p, 0, &je);
  if (!o) fail_msg("refcheck output: %s", je.text);
  return o;
}

/* Deletes with `inlet delete @p table --where @p where`, which must remove
 * exactly the rows whose column @p col is one of @p gone (JSON values, NULL
 * ended): the newest version as refcheck reads it equals the version
 * before it as refcheck reads it minus those rows, and inlet reads it so
 * too. Returns the new version. */
static int delete_expecting(fixture *f, const char *table, const char *where, const char *col,
                            const char *const *gone) {
  int v = newest_version(table);
  json_t *exp = refcheck_json(f, table, v);
  json_t *cols = json_object_get(exp, "columns"), *rows = json_object_get(exp, "rows");
  size_t ci = SIZE_MAX, i;
  json_t *c;
  json_array_foreach(cols, i, c) {
    if (strcmp(json_string_value(c), col) == 0) ci = i;
  }
  if (ci == SIZE_MAX) fail_msg("%s: no column %s", table, col);
  size_t before = json_array_size(rows);
  for (i = json_array_size(rows); i-- > 0;) {
    json_t *val = json_array_get(json_array_get(rows, i), ci);
    for (const char *const *g = gone; *g; g++) {
      json_t *gv = json_loads(*g, JSON_DECODE_ANY, NULL);
      bool hit = json_equal(val, gv);
      json_decref(gv);
      if (hit) {
        json_array_remove(rows, i);
        break;
      }
    }
  }
  size_t after = json_array_size(rows);
  if (after == before || after == 0)
    fail_msg("%s: the test's predicate should delete some rows and keep some (%zu -> %zu)", table,
             before, after);
  json_object_set_new(exp, "version", json_integer(v + 1));
  char p[4200];
  snprintf(p, sizeof p, "%s/expected.json", f->dir);
  assert_int_equal(json_dump_file(exp, p, JSON_COMPACT), 0);
  json_decref(exp);
  tu_result r;
  sh(&r, "'%s' delete '%s' --where \"%s\"", INLET_BIN, table, where);
  sh_ok(&r, where);
  tu_result_free(&r);
  assert_int_equal(newest_version(table), v + 1);
  sh(&r,
     "'%s' '%s' delta '%s' > '%s/after.json' && '%s' '%s' compare '%s/expected.json' "
     "'%s/after.json'",
     INLET_NODE, INLET_REFCHECK, table, f->dir, INLET_NODE, INLET_REFCHECK, f->dir, f->dir);
  if (r.status != 0) fail_msg("%s: after delete %s: %s%s", table, where, r.out, r.err);
  tu_result_free(&r);
  free(same_as_refcheck(f, table, v + 1));
  return v + 1;
}

/* RENAME COLUMN IntegerType TO `int col` (golden table). */
static void rename_integer(json_t *fields, json_t *conf) {
  (void)conf;
  json_object_set_new(field_named(fields, "IntegerType"), "name", json_string("int col"));
}

/* delta.columnMapping.mode=none (a change Spark refuses; the restore must
 * not undo it either). */
static void mapping_off(json_t *fields, json_t *conf) {
  (void)fields;
  json_object_set_new(conf, "delta.columnMapping.mode", json_string("none"));
}

/* Delete on mapping tables: the predicate names logical columns (renamed
 * ones too); Spark's files are read by physical name or field id; the
 * copy-on-write rewrite (Spark's file with nested structs, arrays and maps)
 * and the change data files hold physical columns, with field ids in id
 * mode; with deletion vectors the files stay and get a DV; a partition-only
 * predicate removes whole files by their physical partition values. Each
 * time the rows left are the rows before (refcheck) minus the deleted
 * ones. */
static void test_cm__delete_by_logical_names(void **state) {
  fixture *f = *state;
  tu_result r;
  /* Name mode, copy-on-write of Spark's 3-row file, after a rename. */
  char g[4400];
  snprintf(g, sizeof g, "%s/golden-name", f->dir);
  sh(&r,
     "cp -R '%s/../shared/testdata/delta-golden/tables/table-with-columnmapping-mode-name' "
     "'%s' && chmod -R u+w '%s'",
     INLET_SOURCE_DIR, g, g);
  sh_ok(&r, "copy golden table");
  tu_result_free(&r);
  tu_rules_exempt(g, "test_column_mapping: hand-written rename commit");
  commit_schema(g, 0, 1, rename_integer);
  static const char *const four[] = {"4", NULL};
  int v = delete_expecting(f, g, "\\`int col\\` = 4", "int col", four);
  assert_int_equal(new_files_physical(g, v, false), 1);
  static const char *const names[] = {"int col", "IntegerType", "nested_struct", NULL};
  adds_use_physical_names(g, v, names);

  /* Name mode with change data feed, after a rename and a drop + add:
   * Spark's file removed whole, inlet's rewritten, cdc files physical. */
  const char *t = copy_table(f, "delta-kernel-rs/cdf-column-mapping-name-mode-3-7", "ren");
  commit_schema(t, 1, 5, rename_name);
  commit_schema(t, 5, 6, drop_value_add_score);
  const char *rows = "{\"id\":7,\"full name\":\"Grace\",\"score\":70}\n"
                     "{\"id\":8,\"full name\":\"Hank\",\"score\":80}\n";
  append_rows(f, t, rows);
  static const char *const bob_grace[] = {"\"Bob\"", "\"Grace\"", NULL};
  v = delete_expecting(f, t, "\\`full name\\` = 'Bob' OR score = 70", "full name", bob_grace);
  assert_int_equal(new_files_physical(t, v, false), 1);
  sh(&r, "grep -c '\"cdc\"' '%s/_delta_log/%020d.json'", t, v);
  assert_string_equal(r.out, "2\n");
  tu_result_free(&r);
  sh(&r, "for p in '%s'/_change_data/*.parquet; do '%s' parquet schema \"$p\"; done | sort -u", t,
     INLET_BIN);
  sh_ok(&r, "change data schema");
  assert_null(strstr(r.out, "full name"));
  assert_non_null(strstr(r.out, "_change_type"));
  tu_result_free(&r);
  /* The change feed of the commit: exactly the two deleted rows, by their
   * logical names. */
  sh(&r, "'%s' changes '%s' --from %d --format ndjson | sed 's/,\"_commit_timestamp.*//' | sort",
     INLET_BIN, t, v);
  sh_ok(&r, "changes");
  char want[512];
  snprintf(want, sizeof want,
           "{\"id\":2,\"full name\":\"Bob\",\"score\":null,\"_change_type\":\"delete\","
           "\"_commit_version\":%d\n"
           "{\"id\":7,\"full name\":\"Grace\",\"score\":70,\"_change_type\":\"delete\","
           "\"_commit_version\":%d\n",
           v, v);
  assert_string_equal(r.out, want);
  tu_result_free(&r);

  /* Id mode: the rewritten file carries the field ids. */
  t = copy_table(f, "delta-kernel-rs/cdf-column-mapping-id-mode", "idm");
  rows = "{\"id\":7,\"name\":\"Ivy\",\"value\":1}\n{\"id\":8,\"name\":\"Jo\",\"value\":2}\n";
  append_rows(f, t, rows);
  static const char *const ivy_emma[] = {"\"Ivy\"", "\"Emma\"", NULL};
  v = delete_expecting(f, t, "name = 'Ivy' OR name = 'Emma'", "name", ivy_emma);
  assert_int_equal(new_files_physical(t, v, true), 1);

  /* Deletion vectors, partitioned by a renamed column (physical "id"). */
  t = copy_table(f, "delta-rs/table_with_partitioning_mapping", "dv");
  rows = "{\"newid\":1,\"description\":\"x\"}\n{\"newid\":1,\"description\":\"y\"}\n"
         "{\"newid\":2,\"description\":\"z\"}\n";
  append_rows(f, t, rows);
  static const char *const x[] = {"\"x\"", NULL};
  v = delete_expecting(f, t, "description = 'x'", "description", x);
  sh(&r, "grep -c '\"deletionVector\":{' '%s/_delta_log/%020d.json'", t, v);
  assert_string_equal(r.out, "1\n"); /* the new add's (the file had none) */
  tu_result_free(&r);
  static const char *const two[] = {"2", NULL};
  v = delete_expecting(f, t, "newid = 2", "newid", two);
  sh(&r, "grep -c '\"remove\"' '%s/_delta_log/%020d.json'", t, v);
  assert_string_equal(r.out, "2\n"); /* Spark's file of partition 2 and inlet's */
  tu_result_free(&r);
}

/* Version @p v of @p table as refcheck reads it equals version @p was's
 * (rows, columns and types). */
static void reads_as_version(fixture *f, const char *table, long v, long was) {
  json_t *exp = refcheck_json(f, table, was);
  json_object_set_new(exp, "version", json_integer(v));
  char p[4200];
  snprintf(p, sizeof p, "%s/expected.json", f->dir);
  assert_int_equal(json_dump_file(exp, p, JSON_COMPACT), 0);
  json_decref(exp);
  tu_result r;
  sh(&r,
     "'%s' '%s' delta '%s' --version %ld > '%s/after.json' && '%s' '%s' compare "
     "'%s/expected.json' '%s/after.json'",
     INLET_NODE, INLET_REFCHECK, table, v, f->dir, INLET_NODE, INLET_REFCHECK, f->dir, f->dir);
  if (r.status != 0) fail_msg("%s @%ld differs from @%ld: %s%s", table, v, was, r.out, r.err);
  tu_result_free(&r);
  free(same_as_refcheck(f, table, v));
}

/* The newest metaData of @p table as refcheck's log summary has it. */
static json_t *newest_metadata(fixture *f, const char *table) {
  tu_result r;
  sh(&r, "'%s' '%s' log '%s' > '%s/log.json'", INLET_NODE, INLET_REFCHECK, table, f->dir);
  sh_ok(&r, "refcheck log");
  tu_result_free(&r);
  char p[4200];
  snprintf(p, sizeof p, "%s/log.json", f->dir);
  json_t *o = json_load_file(p, 0, NULL);
  assert_non_null(o);
  json_t *md = json_incref(json_object_get(o, "metaData"));
  json_decref(o);
  assert_non_null(md);
  return md;
}

static const char *conf_of(json_t *md, const char *key) {
  return json_string_value(json_object_get(json_object_get(md, "configuration"), key));
}

/* Restore on a mapping table (Delta's RESTORE brings back the target
 * version's metaData): back over a rename and a drop + add, the old
 * logical names and the dropped column's values return, while
 * delta.columnMapping.maxColumnId stays at the highest id ever handed out;
 * forward again, the added column and its rows return; a restore that
 * would change the mapping mode is refused. */
static void test_cm__restore_across_schema_changes(void **state) {
  fixture *f = *state;
  tu_result r;
  const char *t = copy_table(f, "delta-kernel-rs/cdf-column-mapping-name-mode-3-7", "rs");
  commit_schema(t, 1, 5, rename_name);
  commit_schema(t, 5, 6, drop_value_add_score); /* maxColumnId 4 */
  const char *rows = "{\"id\":7,\"full name\":\"Grace\",\"score\":70}\n";
  append_rows(f, t, rows);
  sh(&r, "'%s' restore '%s' --version 4", INLET_BIN, t);
  sh_ok(&r, "restore to version 4");
  tu_result_free(&r);
  assert_int_equal(newest_version(t), 8);
  reads_as_version(f, t, 8, 4);
  json_t *md = newest_metadata(f, t);
  assert_string_equal(conf_of(md, "delta.columnMapping.maxColumnId"), "4");
  assert_string_equal(conf_of(md, "delta.columnMapping.mode"), "name");
  char *schema = json_dumps(json_object_get(md, "schema"), JSON_COMPACT);
  assert_non_null(strstr(schema, "\"name\":\"value\""));
  assert_null(strstr(schema, "score"));
  free(schema);
  json_decref(md);
  /* An append after the restore writes the restored schema's columns. */
  rows = "{\"id\":9,\"name\":\"Ivy\",\"value\":900}\n";
  append_rows(f, t, rows);
  char *all = same_as_refcheck(f, t, 9);
  assert_non_null(strstr(all, "{\"id\":9,\"name\":\"Ivy\",\"value\":900}"));
  assert_non_null(strstr(all, "{\"id\":2,\"name\":\"Bob\",\"value\":250}"));
  free(all);
  /* Forward to version 7: renamed, score back with Grace's row. */
  sh(&r, "'%s' restore '%s' --version 7", INLET_BIN, t);
  sh_ok(&r, "restore to version 7");
  tu_result_free(&r);
  reads_as_version(f, t, 10, 7);
  md = newest_metadata(f, t);
  assert_string_equal(conf_of(md, "delta.columnMapping.maxColumnId"), "4");
  json_decref(md);

  /* A restore that would turn the mapping off is refused, changing nothing. */
  t = copy_table(f, "delta-kernel-rs/cdf-column-mapping-name-mode-3-7", "mode");
  commit_schema(t, 1, 5, mapping_off);
  sh(&r, "'%s' restore '%s' --version 4", INLET_BIN, t);
  if (r.status != 6 || !strstr(r.err, "column mapping mode"))
    fail_msg("expected exit 6 naming the mapping mode, got %d: %s", r.status, r.err);
  tu_result_free(&r);
  assert_int_equal(newest_version(t), 5);
}

/* Every field of @p fields (at every depth) carries an id and a physical
 * name col-<uuid>; marks ids seen in @p seen (ids 1..cap). Returns fields. */
static int check_mapping(json_t *type, bool *seen, int cap) {
  if (!json_is_object(type)) return 0;
  const char *kind = json_string_value(json_object_get(type, "type"));
  if (strcmp(kind, "array") == 0)
    return check_mapping(json_object_get(type, "elementType"), seen, cap);
  if (strcmp(kind, "map") == 0)
    return check_mapping(json_object_get(type, "keyType"), seen, cap) +
           check_mapping(json_object_get(type, "valueType"), seen, cap);
  int n = 0;
  size_t i;
  json_t *fj;
  json_array_foreach(json_object_get(type, "fields"), i, fj) {
    json_t *md = json_object_get(fj, "metadata");
    json_t *id = json_object_get(md, "delta.columnMapping.id");
    const char *pn = json_string_value(json_object_get(md, "delta.columnMapping.physicalName"));
    if (!json_is_integer(id) || !pn || strncmp(pn, "col-", 4) != 0 || strlen(pn) != 40)
      fail_msg("field %s: id or physical name missing or malformed",
               json_string_value(json_object_get(fj, "name")));
    json_int_t v = json_integer_value(id);
    if (v < 1 || v > cap || seen[v]) fail_msg("id %lld out of range or repeated", (long long)v);
    seen[v] = true;
    n += 1 + check_mapping(json_object_get(fj, "type"), seen, cap);
  }
  return n;
}

/* create with delta.columnMapping.mode=name|id: column names only mapping
 * allows, ids 1..n at every depth, physical names col-<uuid>, maxColumnId
 * n, a protocol with columnMapping; appends and ingest write physical
 * names (field ids in id mode) and refcheck reads exactly the rows put in;
 * delete (deletion vectors in id mode) and compaction keep it so; without
 * the property such names are refused. */
static void test_cm__create_with_mapping(void **state) {
  fixture *f = *state;
  static const char *ddl = "`a b` long, `c,d;{}()=` string, s struct<`x y`: int, "
                           "arr: array<struct<w: long>>>, m map<string,int>, `p(q)` string";
  static const char *in =
      "{\"a b\":1,\"c,d;{}()=\":\"one\",\"s\":{\"x y\":10,\"arr\":[{\"w\":100}]},"
      "\"m\":{\"k\":1},\"p(q)\":\"P 1\"}\n"
      "{\"a b\":2,\"c,d;{}()=\":null,\"s\":null,\"m\":null,\"p(q)\":null}\n"
      "{\"a b\":3,\"c,d;{}()=\":\"three\",\"s\":{\"x y\":null,\"arr\":[]},\"m\":{},"
      "\"p(q)\":\"P 1\"}\n";
  /* the same rows in refcheck's encoding (maps as pairs), twice */
  static const char *want =
      "[1,\"one\",{\"x y\":10,\"arr\":[{\"w\":100}]},[[\"k\",1]],\"P 1\"],"
      "[2,null,null,null,null],[3,\"three\",{\"x y\":null,\"arr\":[]},[],\"P 1\"]";
  tu_result r;
  char ev[4200], exp[4200];
  snprintf(ev, sizeof ev, "%s/in.ndjson", f->dir);
  snprintf(exp, sizeof exp, "%s/want.json", f->dir);
  assert_int_equal(tu_write_file(ev, in, strlen(in)), 0);
  char body[2048];
  snprintf(body, sizeof body, "{\"rows\":[%s,%s]}", want, want);
  assert_int_equal(tu_write_file(exp, body, strlen(body)), 0);
  static const char *const modes[] = {"name", "id"};
  for (int k = 0; k < 2; k++) {
    bool id = k == 1;
    char t[4300];
    snprintf(t, sizeof t, "%s/%s", f->dir, modes[k]);
    sh(&r,
       "'%s' create '%s' --schema '%s' --partition-by 'p(q)' --property "
       "delta.columnMapping.mode=%s %s",
       INLET_BIN, t, ddl, modes[k], id ? "--property delta.enableDeletionVectors=true" : "");
    sh_ok(&r, "create");
    tu_result_free(&r);
    json_t *md = newest_metadata(f, t);
    bool seen[16] = {false};
    assert_int_equal(check_mapping(json_object_get(md, "schema"), seen, 15), 8);
    for (int i = 1; i <= 8; i++)
      assert_true(seen[i]);
    assert_string_equal(conf_of(md, "delta.columnMapping.maxColumnId"), "8");
    json_decref(md);
    sh(&r, "grep -o '\"protocol\":{[^}]*}' '%s/_delta_log/%020d.json'", t, 0);
    assert_non_null(strstr(r.out, "\"columnMapping\""));
    assert_true(strstr(r.out, "\"minReaderVersion\":2") || strstr(r.out, "\"minReaderVersion\":3"));
    tu_result_free(&r);
    sh(&r, "'%s' append '%s' '%s' && '%s' ingest '%s' --source 'file:%s' --once --quiet", INLET_BIN,
       t, ev, INLET_BIN, t, ev);
    sh_ok(&r, "append and ingest");
    tu_result_free(&r);
    static const char *const names[] = {"a b", "c,d;{}()=", "s", "m", "p(q)", NULL};
    adds_use_physical_names(t, 1, names);
    adds_use_physical_names(t, 2, names);
    assert_true(new_files_physical(t, 1, id) >= 2);
    /* describe finds the partition values under their physical name: "P 1"
     * and null, two partitions (it once looked them up by logical name and
     * counted one). */
    sh(&r, "'%s' describe '%s' --json", INLET_BIN, t);
    sh_ok(&r, "describe");
    json_error_t je;
    json_t *d = json_loads(r.out, 0, &je);
    assert_non_null(d);
    assert_int_equal(json_integer_value(json_object_get(d, "partitions")), 2);
    json_decref(d);
    tu_result_free(&r);
    sh(&r, "'%s' '%s' delta '%s' > '%s/after.json' && '%s' '%s' compare '%s' '%s/after.json'",
       INLET_NODE, INLET_REFCHECK, t, f->dir, INLET_NODE, INLET_REFCHECK, exp, f->dir);
    if (r.status != 0) fail_msg("%s: refcheck reads other rows: %s%s", t, r.out, r.err);
    tu_result_free(&r);
    free(same_as_refcheck(f, t, 2));
    static const char *const three[] = {"3", NULL};
    int v = delete_expecting(f, t, "\\`a b\\` = 3", "a b", three);
    sh(&r, "grep -c '\"deletionVector\":{' '%s/_delta_log/%020d.json'", t, v);
    assert_string_equal(r.out, id ? "2\n" : "0\n");
    tu_result_free(&r);
    compaction_keeps_rows(f, t, "--min-files 2 --where \"\\`p(q)\\` = 'P 1'\"", id);
  }
  /* Without mapping those names stay refused. */
  sh(&r, "'%s' create '%s/plain' --schema '`a b` long'", INLET_BIN, f->dir);
  if (r.status == 0 || !strstr(r.err, "column mapping"))
    fail_msg("expected a refusal naming column mapping: %d %s", r.status, r.err);
  tu_result_free(&r);
}

/* create --partition-by quotes a name with a comma or space as the DDL does
 * (`a,b`, `` for a backtick); the table records exactly those names. */
static void test_cm__create_partition_by_quoted_names(void **state) {
  fixture *f = *state;
  tu_result r;
  char t[4300];
  snprintf(t, sizeof t, "%s/quoted", f->dir);
  sh(&r,
     "'%s' create '%s' --schema 'id long, `my col` string, `a,b` int, `x``y` string, day date' "
     "--partition-by '`my col`,`a,b`' --partition-by '`x``y` day' "
     "--property delta.columnMapping.mode=name",
     INLET_BIN, t);
  sh_ok(&r, "create");
  tu_result_free(&r);
  json_t *md = newest_metadata(f, t);
  json_t *pc = json_object_get(md, "partitionColumns");
  assert_int_equal(json_array_size(pc), 4);
  assert_string_equal(json_string_value(json_array_get(pc, 0)), "my col");
  assert_string_equal(json_string_value(json_array_get(pc, 1)), "a,b");
  assert_string_equal(json_string_value(json_array_get(pc, 2)), "x`y");
  assert_string_equal(json_string_value(json_array_get(pc, 3)), "day");
  json_decref(md);
  sh(&r,
     "cd '%s' && printf '%%s\\n' '{\"id\":1,\"my col\":\"v w\",\"a,b\":7,\"x`y\":\"q\","
     "\"day\":\"2024-05-01\"}' > quoted.ndjson && '%s' append '%s' quoted.ndjson >/dev/null && "
     "'%s' scan '%s' --format csv",
     f->dir, INLET_BIN, t, INLET_BIN, t);
  sh_ok(&r, "append + scan");
  assert_string_equal(r.out, "id,my col,\"a,b\",x`y,day\n1,v w,7,q,2024-05-01\n");
  tu_result_free(&r);
  /* An unterminated quote is a usage error naming the value. */
  sh(&r, "'%s' create '%s/bad' --schema 'id long' --partition-by '`id'", INLET_BIN, f->dir);
  assert_int_equal(r.status, 2);
  assert_non_null(strstr(r.err, "unterminated"));
  tu_result_free(&r);
}

/* Every field of struct-type JSON @p type (at any depth) into @p ids /
 * @p names (physical), counted in *n; each must carry both. */
static void collect_mapping(json_t *type, int64_t *ids, const char **names, int *n) {
  if (!json_is_object(type)) return;
  const char *kind = json_string_value(json_object_get(type, "type"));
  if (strcmp(kind, "array") == 0) {
    collect_mapping(json_object_get(type, "elementType"), ids, names, n);
    return;
  }
  if (strcmp(kind, "struct") != 0) return;
  size_t i;
  json_t *fld;
  json_array_foreach(json_object_get(type, "fields"), i, fld) {
    json_t *md = json_object_get(fld, "metadata");
    json_t *id = json_object_get(md, "delta.columnMapping.id");
    const char *pn = json_string_value(json_object_get(md, "delta.columnMapping.physicalName"));
    if (!json_is_integer(id) || !pn || strncmp(pn, "col-", 4) != 0 || strlen(pn) != 40)
      fail_msg("field %s lacks a mapping id or col-<uuid> physical name",
               json_string_value(json_object_get(fld, "name")));
    assert_true(*n < 32);
    ids[*n] = json_integer_value(id);
    names[*n] = pn;
    (*n)++;
    collect_mapping(json_object_get(fld, "type"), ids, names, n);
  }
}

/* The metaData of commit @p v (its schemaString parsed into *schema). */
static json_t *commit_metadata(const char *table, int v, json_t **schema) {
  json_t *actions = commit_actions(table, v), *o, *md = NULL;
  size_t i;
  json_array_foreach(actions, i, o) if (json_object_get(o, "metaData")) md =
      json_incref(json_object_get(o, "metaData"));
  json_decref(actions);
  assert_non_null(md);
  *schema = json_loads(json_string_value(json_object_get(md, "schemaString")), 0, NULL);
  assert_non_null(*schema);
  return md;
}

static void test_cm__schema_evolution_assigns_ids_and_physical_names(void **state) {
  fixture *f = *state;
  static const char *const modes[] = {"name", "id"};
  for (int m = 0; m < 2; m++) {
    char t[4300];
    snprintf(t, sizeof t, "%s/evolve-%s", f->dir, modes[m]);
    tu_result r;
    /* Version 2 adds s.b (a field of an existing struct) and extra, a
     * struct with a long, and an array of structs inside it: 5 fields. */
    sh(&r,
       "cd '%s' && printf '{\"id\":1,\"s\":{\"a\":1}}\\n' > e1.ndjson && "
       "printf "
       "'{\"id\":2,\"s\":{\"a\":2,\"b\":\"x\"},\"extra\":{\"p\":7,\"q\":[{\"r\":true}]}}\\n' "
       "> e2.ndjson && '%s' create '%s' --schema 'id INT, s STRUCT<a: INT>' "
       "--property delta.columnMapping.mode=%s && '%s' append '%s' e1.ndjson && "
       "'%s' append '%s' e2.ndjson --schema-evolution add",
       f->dir, INLET_BIN, t, modes[m], INLET_BIN, t, INLET_BIN, t);
    sh_ok(&r, "create, append, append with schema evolution");
    tu_result_free(&r);
    json_t *s0, *s2;
    json_t *md0 = commit_metadata(t, 0, &s0), *md2 = commit_metadata(t, 2, &s2);
    int64_t ids0[32], ids2[32];
    const char *pn0[32], *pn2[32];
    int n0 = 0, n2 = 0;
    collect_mapping(s0, ids0, pn0, &n0);
    collect_mapping(s2, ids2, pn2, &n2);
    assert_int_equal(n0, 3); /* id, s, s.a */
    assert_int_equal(n2, 8); /* + s.b, extra, extra.p, extra.q, extra.q.r */
    /* The old fields keep their ids and physical names (s.b comes after
     * s.a in the tree walk, so the first three line up). */
    for (int i = 0; i < n0; i++) {
      assert_int_equal(ids2[i], ids0[i]);
      assert_string_equal(pn2[i], pn0[i]);
    }
    /* New ids are fresh, distinct and above the old maxColumnId (3), which
     * becomes the largest (8); physical names are distinct. */
    assert_string_equal(json_string_value(json_object_get(json_object_get(md0, "configuration"),
                                                          "delta.columnMapping.maxColumnId")),
                        "3");
    assert_string_equal(json_string_value(json_object_get(json_object_get(md2, "configuration"),
                                                          "delta.columnMapping.maxColumnId")),
                        "8");
    for (int i = 0; i < n2; i++)
      for (int j = i + 1; j < n2; j++) {
        assert_int_not_equal(ids2[i], ids2[j]);
        assert_string_not_equal(pn2[i], pn2[j]);
      }
    for (int i = n0; i < n2; i++)
      assert_true(ids2[i] > 3 && ids2[i] <= 8);
    json_decref(s0);
    json_decref(s2);
    json_decref(md0);
    json_decref(md2);
    /* The data files hold physical names (and field ids in id mode), so do
     * the stats; refcheck reads each version as inlet does. */
    assert_true(new_files_physical(t, 2, m == 1) > 0);
    static const char *const logical[] = {"id", "s", "extra", NULL};
    adds_use_physical_names(t, 2, logical);
    free(same_as_refcheck(f, t, 1));
    char *got = same_as_refcheck(f, t, 2);
    sh(&r, "LC_ALL=C sort '%s/i.ndjson'", f->dir);
    assert_string_equal(r.out,
                        "{\"id\":1,\"s\":{\"a\":1,\"b\":null},\"extra\":null}\n"
                        "{\"id\":2,\"s\":{\"a\":2,\"b\":\"x\"},\"extra\":{\"p\":7,\"q\":[{\"r\":"
                        "true}]}}\n");
    tu_result_free(&r);
    free(got);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_cm__foreign_tables_read_as_refcheck_at_every_version,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_cm__rename_and_drop_read_with_each_versions_schema,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_cm__bad_mapping_metadata_is_a_clear_error, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_cm__append_ingest_checkpoint_write_physical_names, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_cm__compaction_after_rename_and_in_id_mode, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_cm__delete_by_logical_names, setup, teardown),
      cmocka_unit_test_setup_teardown(test_cm__restore_across_schema_changes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_cm__create_with_mapping, setup, teardown),
      cmocka_unit_test_setup_teardown(test_cm__schema_evolution_assigns_ids_and_physical_names,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_cm__create_partition_by_quoted_names, setup, teardown),
  };
  /* INLET_TEST_FILTER=test_cm__delete* runs some. */
  const char *filter = getenv("INLET_TEST_FILTER");
  if (filter && *filter) cmocka_set_test_filter(filter);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
