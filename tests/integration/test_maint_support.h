/*
 * Helpers shared by the maintenance integration tests (header-only,
 * static): building event batches, appending them, reading back the ids a
 * version holds, and listing the data files on disk.
 */
#ifndef INLET_TEST_MAINT_SUPPORT_H
#define INLET_TEST_MAINT_SUPPORT_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "inlet/inlet.h"

#define MS_SCHEMA "id long not null, day string, ts long, msg string"

/* Events ids [first, first+n): day from @p day_of(id), ts = a scrambled id
 * so that rows arrive out of ts order. */
static inline void ms_batch(inlet_batch *b, int64_t first, int64_t n,
                            const char *(*day_of)(int64_t)) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  if (inlet_schema_parse(&s, MS_SCHEMA, &err) != 0) fail_msg("schema: %s", err.message);
  if (inlet_batch_init(b, &s, &err) != 0) fail_msg("batch: %s", err.message);
  inlet_schema_reset(&s);
  for (int64_t i = first; i < first + n; i++) {
    char msg[48];
    snprintf(msg, sizeof msg, "event-%lld", (long long)i);
    const char *day = day_of(i);
    int rc = inlet_array_append_int(&b->columns[0], &b->schema.fields[0], i, &err);
    if (!rc)
      rc = inlet_array_append_bytes(&b->columns[1], &b->schema.fields[1], day, strlen(day), &err);
    if (!rc)
      rc = inlet_array_append_int(&b->columns[2], &b->schema.fields[2], (i * 7919) % 1000, &err);
    if (!rc)
      rc = inlet_array_append_bytes(&b->columns[3], &b->schema.fields[3], msg, strlen(msg), &err);
    if (rc) fail_msg("append value: %s", err.message);
  }
  b->num_rows = n;
}

static inline const char *ms_one_day(int64_t id) {
  (void)id;
  return "2024-01-01";
}

static inline int ms_cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* Ids of version @p version (-1 = latest), sorted; *n receives the count.
 * Returns NULL (and fails the test) on a read error. */
static inline int64_t *ms_ids(const char *table, int64_t version, int64_t *n) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  inlet_snapshot *s = NULL;
  inlet_table_scan *sc = NULL;
  if (inlet_table_open(&t, table, &err) != 0) fail_msg("open %s: %s", table, err.message);
  int rc = version < 0 ? inlet_table_snapshot(&s, t, &err)
                       : inlet_table_snapshot_at_version(&s, t, version, &err);
  if (rc != 0) fail_msg("snapshot %lld of %s: %s", (long long)version, table, err.message);
  if (inlet_table_scan_open(&sc, s, &err) != 0) fail_msg("scan: %s", err.message);
  size_t cap = 1024;
  int64_t *ids = malloc(cap * sizeof *ids);
  *n = 0;
  inlet_batch b;
  memset(&b, 0, sizeof b);
  while ((rc = inlet_table_scan_next(sc, &b, &err)) == 1) {
    int col = inlet_schema_find(&b.schema, "id");
    for (int64_t r = 0; r < b.num_rows; r++) {
      if ((size_t)*n == cap) ids = realloc(ids, (cap *= 2) * sizeof *ids);
      ids[(*n)++] = ((const int64_t *)b.columns[col].values)[r];
    }
  }
  if (rc != 0) fail_msg("scan of version %lld: %s", (long long)version, err.message);
  inlet_batch_reset(&b);
  inlet_table_scan_free(sc);
  inlet_snapshot_free(s);
  inlet_table_free(t);
  qsort(ids, (size_t)*n, sizeof *ids, ms_cmp_i64);
  return ids;
}

/* Checks that version @p version holds exactly ids [0, n). */
static inline void ms_expect_ids_0_to_n(const char *table, int64_t version, int64_t n) {
  int64_t got = 0;
  int64_t *ids = ms_ids(table, version, &got);
  if (got != n)
    fail_msg("version %lld: %lld rows, expected %lld", (long long)version, (long long)got,
             (long long)n);
  for (int64_t i = 0; i < n; i++)
    if (ids[i] != i)
      fail_msg("version %lld: row %lld has id %lld", (long long)version, (long long)i,
               (long long)ids[i]);
  free(ids);
}

/* Number of regular files under @p dir, skipping '_' and '.' names. */
static inline int64_t ms_count_data_files(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int64_t n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.' || e->d_name[0] == '_') continue;
    char p[4096];
    if (snprintf(p, sizeof p, "%s/%s", dir, e->d_name) >= (int)sizeof p)
      fail_msg("path too long: %s/%s", dir, e->d_name);
    struct stat st;
    if (stat(p, &st) != 0) continue;
    if (S_ISDIR(st.st_mode))
      n += ms_count_data_files(p);
    else
      n++;
  }
  closedir(d);
  return n;
}

/* Live files of the latest snapshot. */
static inline int64_t ms_live_files(const char *table) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  inlet_snapshot *s = NULL;
  if (inlet_table_open(&t, table, &err) != 0 || inlet_table_snapshot(&s, t, &err) != 0)
    fail_msg("%s: %s", table, err.message);
  int64_t n = inlet_snapshot_num_files(s);
  inlet_snapshot_free(s);
  inlet_table_free(t);
  return n;
}

/* Table @p dir/t made of @p n_batches appends of @p per events (ids from 0;
 * the first creates the table, in version 0), days from @p day_of,
 * partitioned by day when @p partitioned, with @p n_props key/value
 * properties (@p props: key, value, key, value, ...; at most 8). */
static inline void ms_seed(const char *dir, int n_batches, int per, const char *(*day_of)(int64_t),
                           bool partitioned, const char *const *props, int n_props) {
  char path[4096];
  if (snprintf(path, sizeof path, "%s/t", dir) >= (int)sizeof path)
    fail_msg("path too long: %s", dir);
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, MS_SCHEMA, &err), 0);
  inlet_batch b;
  ms_batch(&b, 0, per, day_of);
  inlet_table_create_options co = INLET_TABLE_CREATE_OPTIONS_INIT;
  const char *pcols[] = {"day"};
  if (partitioned) {
    co.n_partition_columns = 1;
    co.partition_columns = pcols;
  }
  const char *keys[8], *vals[8];
  assert_true(n_props <= 8);
  for (int i = 0; i < n_props; i++) {
    keys[i] = props[2 * i];
    vals[i] = props[2 * i + 1];
  }
  co.n_properties = n_props;
  co.property_keys = keys;
  co.property_values = vals;
  co.n_batches = 1;
  co.batches = &b;
  inlet_table *t = NULL;
  if (inlet_table_create(&t, path, &s, &co, &err) != 0) fail_msg("create: %s", err.message);
  inlet_batch_reset(&b);
  for (int i = 1; i < n_batches; i++) {
    ms_batch(&b, (int64_t)i * per, per, day_of);
    if (inlet_table_append(t, &b, 1, NULL, NULL, &err) != 0) fail_msg("append: %s", err.message);
    inlet_batch_reset(&b);
  }
  inlet_table_free(t);
  inlet_schema_reset(&s);
}

#endif /* INLET_TEST_MAINT_SUPPORT_H */
