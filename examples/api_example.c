/*
 * examples/api_example.c: the C API tour of README.md, compiled against the
 * public headers and the shared library only, and run by the test suite
 * (tests/integration/test_api_example.c).
 *
 * It creates a Delta table with its first rows in one commit (version 0),
 * appends a micro-batch exactly once (a txn action records "my-app" batch 1
 * in the same commit; replaying batch 1 is refused), reads the latest
 * snapshot back with a scan, travels to version 0 and describes the table
 * from its log.
 *
 *   cc api_example.c $(pkg-config --cflags --libs inlet) -o api_example
 *   ./api_example /tmp/events
 */
#include <inlet/inlet.h>
#include <stdio.h>
#include <string.h>

/* Fills @p b with @p n events, ids from @p first. Columns are Arrow-shaped
 * arrays appended to value by value. */
static int make_events(inlet_batch *b, const inlet_schema *schema, int64_t first, int n,
                       inlet_error *err) {
  int rc = inlet_batch_init(b, schema, err);
  for (int i = 0; rc == 0 && i < n; i++) {
    int64_t id = first + i;
    char user[16];
    snprintf(user, sizeof user, "user-%d", (int)(id % 3));
    const inlet_field *f = schema->fields;
    rc = inlet_array_append_int(&b->columns[0], &f[0], id, err);
    if (rc == 0) rc = inlet_array_append_bytes(&b->columns[1], &f[1], user, strlen(user), err);
    if (rc == 0) rc = inlet_array_append_double(&b->columns[2], 1.25 * (double)id, err);
    /* 2024-01-01T00:00:00Z plus id seconds, in microseconds. */
    if (rc == 0)
      rc = inlet_array_append_int(&b->columns[3], &f[3], (1704067200 + id) * 1000000LL, err);
    if (rc == 0) b->num_rows++;
  }
  return rc;
}

/* Rows and sum(amount) of a snapshot, read batch by batch. */
static int count_rows(const inlet_snapshot *s, int64_t *rows, double *sum, inlet_error *err) {
  inlet_table_scan *scan = NULL;
  int rc = inlet_table_scan_open(&scan, s, err);
  if (rc < 0) return rc;
  inlet_batch b;
  memset(&b, 0, sizeof b);
  *rows = 0;
  *sum = 0;
  while ((rc = inlet_table_scan_next(scan, &b, err)) == 1) {
    int amount = inlet_schema_find(&b.schema, "amount");
    const double *v = (const double *)b.columns[amount].values;
    for (int64_t i = 0; i < b.num_rows; i++)
      if (inlet_array_is_valid(&b.columns[amount], i)) *sum += v[i];
    *rows += b.num_rows;
  }
  inlet_batch_reset(&b);
  inlet_table_scan_free(scan);
  return rc;
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "example-table";
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema schema;
  inlet_batch first, more;
  inlet_table *table = NULL;
  inlet_snapshot *snap = NULL;
  int status = 1;
  inlet_schema_init(&schema);
  memset(&first, 0, sizeof first);
  memset(&more, 0, sizeof more);

  if (inlet_schema_parse(&schema, "event_id long not null, user string, amount double, "
                                  "event_time timestamp", &err) < 0)
    goto fail;

  /* 1. Create the table together with its first 3 rows: version 0. */
  if (make_events(&first, &schema, 1, 3, &err) < 0) goto fail;
  inlet_table_create_options co = INLET_TABLE_CREATE_OPTIONS_INIT;
  const char *keys[] = {"delta.checkpointInterval"}, *values[] = {"10"};
  co.n_properties = 1;
  co.property_keys = keys;
  co.property_values = values;
  co.n_batches = 1;
  co.batches = &first;
  if (inlet_table_create(&table, path, &schema, &co, &err) < 0) goto fail;
  printf("created %s at version 0 with 3 rows\n", inlet_table_path(table));

  /* 2. Append a micro-batch exactly once: the commit records my-app = 1. */
  if (make_events(&more, &schema, 4, 2, &err) < 0) goto fail;
  inlet_append_options ao = INLET_APPEND_OPTIONS_INIT;
  ao.app_id = "my-app";
  ao.app_version = 1;
  ao.app_version_must_increase = true;
  int64_t version = -1;
  if (inlet_table_append(table, &more, 1, &ao, &version, &err) < 0) goto fail;
  printf("appended batch 1 of my-app as version %lld\n", (long long)version);

  /* A replay of batch 1 (say, after a crash before we noted the commit) is refused. */
  int rc = inlet_table_append(table, &more, 1, &ao, &version, &err);
  if (rc != INLET_ECONFLICT) {
    fprintf(stderr, "api_example: the replay was not refused (%d)\n", rc);
    goto fail;
  }
  printf("replay of batch 1 refused: %s\n", inlet_strerror(rc));

  /* 3. Read the latest snapshot. */
  int64_t rows;
  double sum;
  if (inlet_table_snapshot(&snap, table, &err) < 0) goto fail;
  if (count_rows(snap, &rows, &sum, &err) < 0) goto fail;
  printf("version %lld: %lld rows in %lld files, sum(amount) = %.2f, my-app at batch %lld\n",
         (long long)inlet_snapshot_version(snap), (long long)rows,
         (long long)inlet_snapshot_num_files(snap), sum,
         (long long)inlet_snapshot_txn_version(snap, "my-app"));
  inlet_snapshot_free(snap);
  snap = NULL;

  /* 4. Time travel to version 0. */
  if (inlet_table_snapshot_at_version(&snap, table, 0, &err) < 0) goto fail;
  if (count_rows(snap, &rows, &sum, &err) < 0) goto fail;
  printf("version 0: %lld rows\n", (long long)rows);

  /* 5. Describe from the log alone. */
  inlet_table_description d;
  if (inlet_table_describe(table, &d, NULL, &err) < 0) goto fail;
  printf("describe: version %lld, %lld commits, %lld files, %lld rows\n", (long long)d.version,
         (long long)d.commits, (long long)d.files, (long long)d.rows);
  status = 0;
  goto done;
fail:
  fprintf(stderr, "api_example: %s\n", inlet_errmsg(&err));
done:
  inlet_snapshot_free(snap);
  inlet_table_free(table);
  inlet_batch_reset(&first);
  inlet_batch_reset(&more);
  inlet_schema_reset(&schema);
  return status;
}
