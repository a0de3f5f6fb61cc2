/*
 * The one internal write transaction every writer of a table uses (table
 * writers and table creation in delta_write.c, ingestion in src/stream,
 * compaction in src/maint): the data-file sink (file naming, the table's
 * file options, per-file stats, creation and sync through the table's
 * storage), the add actions for its files, and the commit with the
 * after-commit hooks (the handle's state cache, checkpoint and log
 * cleanup). Offered to maint and stream through delta/delta_table.h.
 */
#ifndef INLET_DELTA_WRITE_TXN_H
#define INLET_DELTA_WRITE_TXN_H

#include "delta/delta.h"
#include "inlet/table.h"
#include "parquet/pq_writer.h"
#include "util/pool.h"

/* How a transaction's data files are made. Borrowed pointers must outlive
 * the files. */
typedef struct delta_file_sink {
  inlet_storage *st;               /* borrowed: the table's storage */
  const delta_metadata *metadata;  /* borrowed: file options and stats settings */
  const inlet_schema *data_schema; /* borrowed: the columns stored in files */
  inlet_compression compression;
  int64_t row_group_bytes; /* 0: the writer's default */
  int32_t max_indexed;     /* delta.dataSkippingNumIndexedCols (default 32) */
  int32_t counter;         /* part-NNNNN of the next file */
  util_pool *pool;         /* borrowed, or NULL: column chunks encoded on this pool */
  pq_buf_stash *stash;     /* borrowed, or NULL: the files' chunk buffers, file to file */
} delta_file_sink;

/* One data file of a transaction. Zeroed = none. */
typedef struct delta_data_file {
  char *rel_path;           /* owned: path relative to the table root */
  inlet_parquet_writer *pw; /* owned; NULL once closed */
  delta_stats_acc *stats;   /* owned */
  int64_t size, rows;       /* set by delta_data_file_close */
  bool created;             /* the file exists in the storage */
  /* owned: the sink's data schema with variants in their data-file form
   * (delta_variant_physical): the Parquet schema and the stats columns */
  inlet_schema phys;
  /* owned when voids: the sink's data schema without the void fields of
   * its structs (delta_schema_drop_struct_voids), the shape of the batches
   * delta_data_file_write hands on */
  inlet_schema shape;
  bool voids;
} delta_data_file;

void delta_file_sink_init(delta_file_sink *s, inlet_storage *st, const delta_metadata *metadata,
                          const inlet_schema *data_schema, inlet_compression compression,
                          int64_t row_group_bytes);

/* Creates the next data file of @p s in partition directory @p dir ("" for
 * the root), named as Spark names them
 * (part-<n>-<uuid>-c000.<codec>.parquet), synced on close. */
int delta_data_file_open(delta_file_sink *s, delta_data_file *f, const char *dir, inlet_error *err);
/* Writes the rows of @p b, whose columns are the sink's data schema, and
 * counts them in the file's stats (the values' stats are the Parquet
 * writer's, taken at close). A variant column may come as JSON text
 * (encoded here) or already in its data-file form (copied as it is). */
int delta_data_file_write(delta_data_file *f, const inlet_batch *b, inlet_error *err);
/* delta_data_file_write with the pages a rewrite read its rows from
 * (pq_writer_write_pages: @p raw per field of @p b, or NULL),
 * copied where they fit. */
int delta_data_file_write_pages(delta_data_file *f, const inlet_batch *b, const pq_raw_chunk *raw,
                                inlet_error *err);
/* Completes the file (fsynced), takes its stats from the Parquet writer,
 * and syncs its directory @p dir into the table (the root itself is synced
 * by delta_write_commit's caller once). */
int delta_data_file_close(delta_file_sink *s, delta_data_file *f, const char *dir,
                          inlet_error *err);
/* Frees @p f; with @p remove, a file it created is removed (an open one is
 * aborted). */
void delta_data_file_reset(delta_file_sink *s, delta_data_file *f, bool remove);
/* Adds the add action of the closed file @p f (stats JSON, size,
 * modification time @p now) with the partition values @p pv. */
int delta_data_file_add(delta_txn *txn, delta_data_file *f, const delta_kv *pv, int32_t n_pv,
                        bool data_change, int64_t now, inlet_error *err);

/*
 * Commits @p txn, written by a writer of @p t whose table metadata is
 * @p metadata: delta_txn_commit (conflict checks and retries), then the
 * hooks every writer runs: the handle's cache learns the commit, and a
 * checkpoint (with log cleanup) is written when one is due. On failure
 * *@p maybe_published (may be NULL) tells whether the entry may be in the
 * log (the data files must stay). Codes of delta_txn_commit.
 */
int delta_write_commit(inlet_table *t, delta_txn *txn, const delta_metadata *metadata,
                       int64_t *version, bool *maybe_published, inlet_error *err);

/*
 * What a stream adds to an append transaction, outside the public
 * inlet_append_options: extra txn actions, operationMetrics, and the checks
 * that make a batch exactly-once. Pointers are read at commit: keep them
 * valid (and update them) until then.
 */
typedef struct delta_write_extras {
  /* writer_open fails with INLET_ECONFLICT when the snapshot already
   * records app_version (or more) for app_id: the batch was committed. */
  bool app_version_must_increase;
  int32_t n_txns; /* more txn actions in the same commit */
  const char *const *txn_app_ids;
  const int64_t *txn_versions;
  const char *metrics_json; /* JSON object merged into commitInfo.operationMetrics */
  /* The caller fills generated columns itself: tables with the
   * generatedColumns writer feature are accepted. */
  bool computes_generated_columns;
  /* Borrowed (outlives the writer): the pool the data files are encoded on,
   * instead of one the writer would make from the options' threads. */
  util_pool *pool;
  /* Borrowed (outlives the writer): where the data files' chunk buffers
   * are kept from one file to the next, shared with the caller's other
   * writers, instead of a stash of the writer's own. */
  pq_buf_stash *stash;
} delta_write_extras;
#define DELTA_WRITE_EXTRAS_INIT                                                                    \
  { false, 0, NULL, NULL, NULL, false, NULL, NULL }

/* inlet_table_writer_open with @p extras (may be NULL; they replace the
 * public options' fields of the same meaning). */
int delta_writer_open_ext(inlet_table_writer **out, inlet_table *table,
                          const inlet_append_options *options, const delta_write_extras *extras,
                          inlet_error *err);

/*
 * Schema evolution: from now on the writer's table schema is @p schema_json
 * (the old columns, in order, then new ones; new struct fields inside old
 * columns), and the commit carries a metaData action with it. Open data
 * files are closed with the old columns (readers fill the new ones with
 * NULL). INLET_EUNSUPPORTED on column-mapping tables; INLET_EINVAL when the
 * schema drops or reorders columns.
 */
int delta_writer_set_schema(inlet_table_writer *w, const char *schema_json, inlet_error *err);
/* The writer's table schemaString. */
const char *delta_writer_schema_json(const inlet_table_writer *w);

#endif /* INLET_DELTA_WRITE_TXN_H */
