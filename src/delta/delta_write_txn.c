/*
 * The data-file sink and the commit of the one internal write transaction
 * (delta_write_txn.h): what table writers, table creation, ingestion and
 * compaction share, so that file naming, the table's file options, stats,
 * durability and the after-commit hooks exist once.
 *
 * Spec: PROTOCOL.md "Data Files" (names unique per writer, here as Spark
 * names them), "Add File and Remove File", "Per-file Statistics"
 * (delta.dataSkippingNumIndexedCols), "Checkpoints" (the writer's hook).
 * Durability (docs/ARCHITECTURE.md): each data file is fsynced on close and
 * its directory synced before the commit that references it is published.
 */
#include <stdio.h>

#include "delta/delta_table_int.h"
#include "parquet/pq_writer.h"
#include "util/util.h"

static const char *codec_suffix(inlet_compression c) {
  switch (c) {
  case INLET_COMPRESSION_SNAPPY: return ".snappy";
  case INLET_COMPRESSION_GZIP: return ".gz";
  case INLET_COMPRESSION_ZSTD: return ".zstd";
  case INLET_COMPRESSION_LZ4_RAW: return ".lz4";
  case INLET_COMPRESSION_BROTLI: return ".br";
  default: return "";
  }
}

void delta_file_sink_init(delta_file_sink *s, inlet_storage *st, const delta_metadata *metadata,
                          const inlet_schema *data_schema, inlet_compression compression,
                          int64_t row_group_bytes) {
  memset(s, 0, sizeof *s);
  s->st = st;
  s->metadata = metadata;
  s->data_schema = data_schema;
  s->compression = compression;
  s->row_group_bytes = row_group_bytes;
  const char *nic = delta_metadata_conf(metadata, "delta.dataSkippingNumIndexedCols");
  s->max_indexed = nic ? (int32_t)strtol(nic, NULL, 10) : 32;
}

int delta_data_file_open(delta_file_sink *s, delta_data_file *f, const char *dir,
                         inlet_error *err) {
  memset(f, 0, sizeof *f);
  char uuid[37], name[160];
  delta_uuid4(uuid);
  snprintf(name, sizeof name, "part-%05d-%s-c000%s.parquet", (int)(s->counter++ % 100000), uuid,
           codec_suffix(s->compression));
  size_t n = strlen(dir) + strlen(name) + 2;
  f->rel_path = inlet_malloc(n);
  if (!f->rel_path) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  snprintf(f->rel_path, n, "%s%s%s", dir, *dir ? "/" : "", name);
  inlet_parquet_writer_options po = INLET_PARQUET_WRITER_OPTIONS_INIT;
  po.compression = s->compression;
  if (s->row_group_bytes > 0) po.row_group_bytes = s->row_group_bytes;
  po.sync_on_close = true;
  TRY(delta_data_file_options(&po, s->metadata, err));
  /* Through the table's storage: its directories are made on the way, and
   * never through a symbolic link, so a symlinked partition directory
   * cannot send a file outside the table. */
  /* Void fields of structs are left out of the file (delta_schema.c), and
   * variant columns are groups of value and metadata there. */
  const char *uv = delta_schema_unwritable_void(s->data_schema);
  FAIL_IF(uv, err, INLET_EUNSUPPORTED,
          "field \"%s\": a void inside an array or map, or a struct of void fields only, "
          "cannot be written to a data file",
          uv);
  f->voids = delta_schema_nested_void(s->data_schema) != NULL;
  TRY(inlet_schema_copy(&f->phys, s->data_schema, err));
  if (f->voids) {
    delta_schema_drop_struct_voids(&f->phys);
    TRY(inlet_schema_copy(&f->shape, &f->phys, err));
  }
  TRY(delta_variant_physical(&f->phys, err));
  TRY(pq_writer_open_storage(&f->pw, s->st, f->rel_path, &f->phys, &po, err));
  pq_writer_set_pool(f->pw, s->pool);
  pq_writer_set_stash(f->pw, s->stash);
  f->created = true;
  return delta_stats_new(&f->stats, &f->phys, s->max_indexed, err);
}

static bool has_struct_void(const inlet_field *f) {
  if (f->type.id != INLET_TYPE_STRUCT) return false;
  for (int32_t i = 0; i < f->n_children; i++)
    if (f->children[i].type.id == INLET_TYPE_NULL || has_struct_void(&f->children[i])) return true;
  return false;
}

/* Column @p src (field @p f) without the void fields of its structs: a
 * shallow view sharing src's buffers, with its own children arrays where a
 * struct loses fields. */
static int cut_voids(inlet_array *dst, const inlet_field *f, const inlet_array *src,
                     inlet_error *err) {
  *dst = *src;
  if (!has_struct_void(f)) return 0;
  dst->children = inlet_calloc((size_t)f->n_children + 1, sizeof *dst->children);
  if (!dst->children) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  int32_t kept = 0;
  for (int32_t i = 0; i < f->n_children; i++) {
    if (f->children[i].type.id == INLET_TYPE_NULL) continue;
    dst->n_children = kept + 1; /* what release_cut frees if this one fails */
    TRY(cut_voids(&dst->children[kept], &f->children[i], &src->children[i], err));
    kept++;
  }
  dst->n_children = kept;
  return 0;
}

static void release_cut(inlet_array *a, const inlet_field *f) {
  if (!has_struct_void(f) || !a->children) return;
  int32_t kept = 0;
  for (int32_t i = 0; i < f->n_children && kept < a->n_children; i++)
    if (f->children[i].type.id != INLET_TYPE_NULL)
      release_cut(&a->children[kept++], &f->children[i]);
  inlet_free(a->children);
  a->children = NULL;
}

int delta_data_file_write(delta_data_file *f, const inlet_batch *b, inlet_error *err) {
  inlet_batch cut, enc;
  const inlet_batch *in = b, *w = b;
  int rc = 0;
  if (f->voids) {
    memset(&cut, 0, sizeof cut);
    cut.schema = f->shape; /* borrowed */
    cut.num_rows = b->num_rows;
    cut.columns = inlet_calloc((size_t)b->schema.n_fields + 1, sizeof *cut.columns);
    if (!cut.columns) return inlet_fail(err, INLET_ENOMEM, "out of memory");
    for (int32_t i = 0; i < b->schema.n_fields && rc == 0; i++)
      rc = cut_voids(&cut.columns[i], &b->schema.fields[i], &b->columns[i], err);
    in = w = &cut;
  }
  if (rc == 0 && delta_variant_schema_has(&in->schema)) {
    rc = delta_variant_encode_batch(&enc, in, &f->phys, err);
    if (rc == 0) w = &enc;
  }
  if (rc == 0) rc = inlet_parquet_writer_write(f->pw, w, err);
  /* Rows and list/map/variant null counts only: the rest of the stats come
   * from the writer's own column statistics at close (one pass over the
   * data). */
  if (rc == 0) rc = delta_stats_count(f->stats, w, err);
  if (w == &enc) delta_variant_release_batch(&enc, in);
  if (in == &cut) {
    for (int32_t i = 0; i < b->schema.n_fields; i++)
      release_cut(&cut.columns[i], &b->schema.fields[i]);
    inlet_free(cut.columns);
  }
  return rc;
}

int delta_data_file_write_pages(delta_data_file *f, const inlet_batch *b, const pq_raw_chunk *raw,
                                inlet_error *err) {
  /* Variant columns are re-encoded for the file, and a batch with struct
   * voids is not the file's shape: nothing there to copy. */
  if (!raw || f->voids || delta_variant_schema_has(&b->schema))
    return delta_data_file_write(f, b, err);
  int rc = pq_writer_write_pages(f->pw, b, raw, err);
  if (rc == 0) rc = delta_stats_count(f->stats, b, err);
  return rc;
}

int delta_data_file_close(delta_file_sink *s, delta_data_file *f, const char *dir,
                          inlet_error *err) {
  if (!f->pw) return 0;
  TRY(inlet_parquet_writer_close(f->pw, err));
  f->size = inlet_parquet_writer_bytes(f->pw);
  f->rows = inlet_parquet_writer_rows(f->pw);
  /* The writer's statistics are final now; the accumulator keeps what the
   * stats JSON needs, so the writer can go. */
  int rc = delta_stats_take_parquet(f->stats, f->pw, err);
  inlet_parquet_writer_free(f->pw);
  f->pw = NULL;
  if (rc < 0) return rc;
  if (*dir) TRY(s->st->ops->sync_dir(s->st, dir, err));
  return 0;
}

void delta_data_file_reset(delta_file_sink *s, delta_data_file *f, bool remove) {
  if (f->pw) {
    /* Never closed: the writer removes (aborts) its partial file. */
    inlet_parquet_writer_free(f->pw);
  } else if (remove && f->created) {
    inlet_error ignore = INLET_ERROR_INIT;
    (void)s->st->ops->remove(s->st, f->rel_path, &ignore);
  }
  inlet_free(f->rel_path);
  delta_stats_free(f->stats);
  inlet_schema_reset(&f->phys);
  inlet_schema_reset(&f->shape);
  memset(f, 0, sizeof *f);
}

int delta_data_file_add(delta_txn *txn, delta_data_file *f, const delta_kv *pv, int32_t n_pv,
                        bool data_change, int64_t now, inlet_error *err) {
  delta_action aa;
  memset(&aa, 0, sizeof aa);
  aa.kind = DELTA_ACTION_ADD;
  delta_add *a = &aa.u.add;
  a->path = f->rel_path; /* borrowed: add_action copies */
  a->partition_values = (delta_kv *)pv;
  a->n_partition_values = pv ? n_pv : 0;
  a->size = f->size;
  a->modification_time = now;
  a->data_change = data_change;
  char *stats = NULL;
  TRY(delta_stats_json(f->stats, &stats, err));
  a->stats = stats;
  int rc = delta_txn_add_action(txn, &aa, err);
  inlet_free(stats);
  return rc;
}

int delta_write_commit(inlet_table *t, delta_txn *txn, const delta_metadata *metadata,
                       int64_t *version, bool *maybe_published, inlet_error *err) {
  int64_t v = -1;
  if (maybe_published) *maybe_published = false;
  int rc = delta_txn_commit(txn, &v, err);
  if (rc < 0) {
    if (maybe_published) *maybe_published = delta_txn_maybe_published(txn);
    return rc;
  }
  if (version) *version = v;
  delta_table_note_commit(t, txn, v);
  /* Checkpoint hook: every delta.checkpointInterval commits (default 10),
   * then the log entries that expired below it go. */
  delta_table_checkpoint_if_due(t, metadata, v);
  return 0;
}
