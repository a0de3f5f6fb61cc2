/*
 * Writing a classic checkpoint of a snapshot, and never over another one.
 *
 * Spec: PROTOCOL.md "Checkpoints" (the checkpoint holds the protocol, the
 * metadata, the live adds, the unexpired remove tombstones, the txn
 * identifiers and the live domain metadata, each with all its
 * information), "Checkpoint Schema", "Classic checkpoint", "Last
 * Checkpoint File", "Creation of New Log Entries" (never overwrite a log
 * entry), and Spark's checkpoint layout for the details the spec leaves
 * open: the add struct is path, partitionValues, size, modificationTime,
 * dataChange (false: a checkpoint is state, not change), tags,
 * deletionVector, baseRowId, defaultRowCommitVersion, clusteringProvider,
 * then stats (unless delta.checkpoint.writeStatsAsJson=false), then
 * partitionValues_parsed (partitioned tables) and stats_parsed when
 * delta.checkpoint.writeStatsAsStruct=true (the protocol's default is
 * false). Removes carry no stats or tags (the spec drops them from
 * checkpoints).
 *
 * A checkpoint is published with put-if-absent, so a checkpoint another
 * writer made for the same version (which may hold more than inlet knows
 * how to write) is never replaced. `inlet checkpoint` first lists the log
 * and writes nothing when any complete checkpoint of the version exists
 * (classic, multi-part or UUID-named v2); the writers' automatic
 * checkpoints only look at the classic name and `_last_checkpoint` (a log
 * of 100,000 entries is not listed every ten commits), so a multi-part or
 * v2 checkpoint the hint does not name may get a classic sibling, which the
 * protocol allows ("Multiple checkpoints could exist for the same table
 * version"). Either way INLET_EEXISTS says a checkpoint was there.
 * `_last_checkpoint` is a hint and is replaced, but never moved back to an
 * older version than it names.
 */
#include <jansson.h>
#include <stdio.h>
#include <strings.h>

#include "delta/delta_checkpoint_int.h"
#include "delta/delta_features.h"
#include "delta/delta_table_int.h"
#include "parquet/pq_writer.h"
#include "util/util.h"

/* The top-level columns of a checkpoint, one per action kind, in the order
 * they are written; a file holds those of its kind (delta_checkpoint_int.h:
 * a classic checkpoint the first six, a v2 one all eight, a sidecar add and
 * remove). */
static const char *const COL_DDL[] = {
    ("txn struct<appId:string,version:long,lastUpdated:long>"),
    ("add struct<path:string,partitionValues:map<string,string>,size:long,modificationTime:long,"
     "dataChange:boolean,tags:map<string,string>,"
     "deletionVector:struct<storageType:string,pathOrInlineDv:string,offset:int,"
     "sizeInBytes:int,cardinality:long,maxRowIndex:long>,"
     "baseRowId:long,defaultRowCommitVersion:long,clusteringProvider:string>"),
    ("remove struct<path:string,deletionTimestamp:long,dataChange:boolean,"
     "extendedFileMetadata:boolean,partitionValues:map<string,string>,size:long,"
     "deletionVector:struct<storageType:string,pathOrInlineDv:string,offset:int,"
     "sizeInBytes:int,cardinality:long,maxRowIndex:long>,"
     "baseRowId:long,defaultRowCommitVersion:long>"),
    ("metaData struct<id:string,name:string,description:string,"
     "format:struct<provider:string,options:map<string,string>>,schemaString:string,"
     "partitionColumns:array<string>,configuration:map<string,string>,createdTime:long>"),
    ("protocol struct<minReaderVersion:int,minWriterVersion:int,readerFeatures:array<string>,"
     "writerFeatures:array<string>>"),
    ("domainMetadata struct<domain:string,configuration:string,removed:boolean>"),
    ("checkpointMetadata struct<version:long,tags:map<string,string>>"),
    ("sidecar struct<path:string,sizeInBytes:long,modificationTime:long,tags:map<string,string>>")};

enum {
  COL_TXN,
  COL_ADD,
  COL_REMOVE,
  COL_META,
  COL_PROTOCOL,
  COL_DOMAIN,
  COL_CP_META,
  COL_SIDECAR,
  N_COLS
};
/* Children of the add struct (the fixed part, in COL_DDL order). */
enum {
  ADD_PATH,
  ADD_PV,
  ADD_SIZE,
  ADD_MTIME,
  ADD_DATA_CHANGE,
  ADD_TAGS,
  ADD_DV,
  ADD_BASE_ROW_ID,
  ADD_ROW_COMMIT_VERSION,
  ADD_CLUSTERING,
  ADD_FIXED
};
enum {
  RM_PATH,
  RM_DEL_TS,
  RM_DATA_CHANGE,
  RM_EXTENDED,
  RM_PV,
  RM_SIZE,
  RM_DV,
  RM_BASE_ROW_ID,
  RM_ROW_COMMIT_VERSION
};
#define CP_BATCH_ROWS 8192

struct cp_writer {
  int32_t col[N_COLS]; /* batch column of each kind, -1 when the file has none */
  inlet_schema schema;
  inlet_batch b;
  inlet_parquet_writer *pw;
  /* Optional children of the add struct: index, or -1 when not written. */
  int32_t add_stats, add_pv_parsed, add_stats_parsed;
  delta_stats_struct_writer *sw;
  int64_t rows, actions;
  int64_t total;              /* actions the checkpoint will hold, for progress */
  inlet_progress_fn progress; /* or NULL */
  void *progress_ctx;
};

static void report(const cp_writer *w) {
  if (!w->progress) return;
  inlet_progress p = {"checkpoint", "writing", "actions", w->actions, w->total};
  w->progress(w->progress_ctx, &p);
}

static bool conf_bool(const delta_metadata *m, const char *key, bool dflt) {
  const char *v = delta_metadata_conf(m, key);
  if (!v) return dflt;
  if (strcasecmp(v, "true") == 0) return true;
  if (strcasecmp(v, "false") == 0) return false;
  return dflt;
}

/* Moves @p f (reset afterwards) to the end of @p parent's children. */
static int append_child(inlet_field *parent, inlet_field *f, inlet_error *err) {
  inlet_field *c = inlet_realloc(parent->children, (size_t)(parent->n_children + 1) * sizeof *c);
  if (!c) {
    inlet_field_reset(f);
    return inlet_fail(err, INLET_ENOMEM, "out of memory building checkpoint schema");
  }
  parent->children = c;
  c[parent->n_children++] = *f;
  memset(f, 0, sizeof *f);
  return 0;
}

/* The checkpoint schema of @p snap: the columns of @p cols (DELTA_CPW_*)
 * plus the optional stats columns its table properties ask for. */
static int build_schema(cp_writer *w, const delta_snapshot *snap, unsigned cols, inlet_error *err) {
  static const unsigned col_set[N_COLS] = {DELTA_CPW_NONFILE, DELTA_CPW_FILES,   DELTA_CPW_FILES,
                                           DELTA_CPW_NONFILE, DELTA_CPW_NONFILE, DELTA_CPW_NONFILE,
                                           DELTA_CPW_V2,      DELTA_CPW_V2};
  inlet_buf ddl = INLET_BUF_INIT;
  int32_t n = 0;
  for (int c = 0; c < N_COLS; c++) {
    w->col[c] = -1;
    if (!(cols & col_set[c])) continue;
    if (n) inlet_buf_append(&ddl, ", ", 2);
    inlet_buf_append(&ddl, COL_DDL[c], strlen(COL_DDL[c]));
    w->col[c] = n++;
  }
  inlet_buf_terminate(&ddl);
  int rc = inlet_buf_status(&ddl) < 0
               ? inlet_fail(err, INLET_ENOMEM, "out of memory building checkpoint schema")
               : inlet_schema_parse(&w->schema, (const char *)ddl.data, err);
  inlet_buf_reset(&ddl);
  TRY(rc);
  w->add_stats = w->add_pv_parsed = w->add_stats_parsed = -1;
  if (w->col[COL_ADD] < 0) return 0;
  inlet_field *add = &w->schema.fields[w->col[COL_ADD]];
  if (conf_bool(&snap->metadata, "delta.checkpoint.writeStatsAsJson", true)) {
    inlet_field f;
    memset(&f, 0, sizeof f);
    f.name = inlet_strdup("stats");
    if (!f.name) return inlet_fail(err, INLET_ENOMEM, "out of memory");
    f.type.id = INLET_TYPE_STRING;
    f.nullable = true;
    f.field_id = -1;
    w->add_stats = add->n_children;
    TRY(append_child(add, &f, err));
  }
  /* Column mapping tables get stats as JSON only: typed structs would need
   * physical names at every level (the property is a hint writers may
   * leave unmet). */
  if (conf_bool(&snap->metadata, "delta.checkpoint.writeStatsAsStruct", false) &&
      snap->has_schema && snap->cm_mode == DELTA_CM_NONE) {
    inlet_field f;
    TRY(delta_partition_struct_field(&f, &snap->schema, &snap->metadata, err));
    if (f.name) {
      w->add_pv_parsed = add->n_children;
      TRY(append_child(add, &f, err));
    }
    TRY(delta_stats_struct_field(&f, &snap->schema, &snap->metadata, &snap->protocol, err));
    w->add_stats_parsed = add->n_children;
    TRY(append_child(add, &f, err));
    TRY(delta_stats_struct_writer_new(&w->sw, err));
  }
  return 0;
}

static int put_str(inlet_array *a, const inlet_field *f, const char *s, inlet_error *err) {
  if (!s) return inlet_array_append_null(a, f, err);
  return inlet_array_append_bytes(a, f, s, strlen(s), err);
}

static int put_i64(inlet_array *a, const inlet_field *f, int64_t v, bool valid, inlet_error *err) {
  return valid ? inlet_array_append_int(a, f, v, err) : inlet_array_append_null(a, f, err);
}

static int put_map(inlet_array *a, const inlet_field *f, const delta_kv *kv, int32_t n, bool valid,
                   inlet_error *err) {
  if (!valid) return inlet_array_append_null(a, f, err);
  inlet_array *ent = &a->children[0];
  const inlet_field *ef = &f->children[0];
  for (int32_t i = 0; i < n; i++) {
    TRY(put_str(&ent->children[0], &ef->children[0], kv[i].key, err));
    TRY(put_str(&ent->children[1], &ef->children[1], kv[i].value, err));
    TRY(inlet_array_append_struct_entry(ent, err));
  }
  return inlet_array_append_list_entry(a, err);
}

/* A map held as JSON object text (tags). */
static int put_json_map(inlet_array *a, const inlet_field *f, const char *json, inlet_error *err) {
  if (!json) return inlet_array_append_null(a, f, err);
  json_t *o = json_loads(json, 0, NULL);
  if (!json_is_object(o)) {
    json_decref(o);
    return inlet_fail(err, INLET_ECORRUPT, "tags \"%.100s\" are not a JSON object", json);
  }
  inlet_array *ent = &a->children[0];
  const inlet_field *ef = &f->children[0];
  const char *k;
  json_t *v;
  int rc = 0;
  json_object_foreach(o, k, v) {
    if (rc == 0) rc = put_str(&ent->children[0], &ef->children[0], k, err);
    if (rc == 0) rc = put_str(&ent->children[1], &ef->children[1], json_string_value(v), err);
    if (rc == 0) rc = inlet_array_append_struct_entry(ent, err);
  }
  json_decref(o);
  TRY(rc);
  return inlet_array_append_list_entry(a, err);
}

static int put_strv(inlet_array *a, const inlet_field *f, char *const *v, int32_t n, bool valid,
                    inlet_error *err) {
  if (!valid) return inlet_array_append_null(a, f, err);
  for (int32_t i = 0; i < n; i++)
    TRY(put_str(&a->children[0], &f->children[0], v[i], err));
  return inlet_array_append_list_entry(a, err);
}

/* A deletion vector descriptor held as JSON text, field by field. */
static int put_dv(inlet_array *a, const inlet_field *f, const char *json, inlet_error *err) {
  if (!json) return inlet_array_append_null(a, f, err);
  json_t *o = json_loads(json, 0, NULL);
  int rc = json_is_object(o) ? 0
                             : inlet_fail(err, INLET_ECORRUPT,
                                          "deletionVector \"%.100s\" "
                                          "is not a JSON object",
                                          json);
  for (int32_t i = 0; rc == 0 && i < f->n_children; i++) {
    const inlet_field *cf = &f->children[i];
    json_t *v = json_object_get(o, cf->name);
    if (cf->type.id == INLET_TYPE_STRING)
      rc = put_str(&a->children[i], cf, json_is_string(v) ? json_string_value(v) : NULL, err);
    else
      rc = put_i64(&a->children[i], cf, json_is_integer(v) ? json_integer_value(v) : 0,
                   json_is_integer(v), err);
  }
  json_decref(o);
  TRY(rc);
  return inlet_array_append_struct_entry(a, err);
}

/* Appends one row: column @p col gets the action, the others null. */
typedef int (*fill_fn)(cp_writer *w, inlet_array *a, const inlet_field *f, const void *x,
                       inlet_error *err);

static int put_row(cp_writer *w, int col, fill_fn fill, const void *x, inlet_error *err) {
  inlet_batch *b = &w->b;
  if (w->col[col] < 0)
    return inlet_fail(err, INLET_EINVAL, "internal: checkpoint file has no column for this action");
  for (int32_t c = 0; c < b->schema.n_fields; c++) {
    inlet_array *a = &b->columns[c];
    const inlet_field *f = &b->schema.fields[c];
    if (c != w->col[col]) {
      TRY(inlet_array_append_null(a, f, err));
      continue;
    }
    TRY(fill(w, a, f, x, err));
    TRY(inlet_array_append_struct_entry(a, err));
  }
  b->num_rows++;
  w->actions++;
  if (b->num_rows >= CP_BATCH_ROWS) {
    TRY(inlet_parquet_writer_write(w->pw, b, err));
    inlet_batch_clear(b);
    report(w);
  }
  return 0;
}

static int fill_protocol(cp_writer *w, inlet_array *a, const inlet_field *f, const void *x,
                         inlet_error *err) {
  (void)w;
  const delta_protocol *p = x;
  TRY(inlet_array_append_int(&a->children[0], &f->children[0], p->min_reader, err));
  TRY(inlet_array_append_int(&a->children[1], &f->children[1], p->min_writer, err));
  TRY(put_strv(&a->children[2], &f->children[2], p->reader_features, p->n_reader_features,
               p->reader_features != NULL, err));
  return put_strv(&a->children[3], &f->children[3], p->writer_features, p->n_writer_features,
                  p->writer_features != NULL, err);
}

static int fill_metadata(cp_writer *w, inlet_array *a, const inlet_field *f, const void *x,
                         inlet_error *err) {
  (void)w;
  const delta_metadata *m = x;
  TRY(put_str(&a->children[0], &f->children[0], m->id, err));
  TRY(put_str(&a->children[1], &f->children[1], m->name, err));
  TRY(put_str(&a->children[2], &f->children[2], m->description, err));
  inlet_array *fmt = &a->children[3];
  const inlet_field *ff = &f->children[3];
  TRY(put_str(&fmt->children[0], &ff->children[0], m->format ? m->format : "parquet", err));
  TRY(put_map(&fmt->children[1], &ff->children[1], m->format_options, m->n_format_options, true,
              err));
  TRY(inlet_array_append_struct_entry(fmt, err));
  TRY(put_str(&a->children[4], &f->children[4], m->schema_string, err));
  TRY(put_strv(&a->children[5], &f->children[5], m->partition_columns, m->n_partition_columns, true,
               err));
  TRY(put_map(&a->children[6], &f->children[6], m->configuration, m->n_configuration, true, err));
  return put_i64(&a->children[7], &f->children[7], m->created_time, m->created_time >= 0, err);
}

static int fill_txn(cp_writer *w, inlet_array *a, const inlet_field *f, const void *x,
                    inlet_error *err) {
  (void)w;
  const delta_txn_entry *t = x;
  TRY(put_str(&a->children[0], &f->children[0], t->app_id, err));
  TRY(inlet_array_append_int(&a->children[1], &f->children[1], t->version, err));
  return put_i64(&a->children[2], &f->children[2], t->last_updated, t->last_updated >= 0, err);
}

static int fill_domain(cp_writer *w, inlet_array *a, const inlet_field *f, const void *x,
                       inlet_error *err) {
  (void)w;
  const delta_domain *d = x;
  TRY(put_str(&a->children[0], &f->children[0], d->domain, err));
  TRY(put_str(&a->children[1], &f->children[1], d->configuration, err));
  return inlet_array_append_bool(&a->children[2], d->removed, err);
}

static int put_path(inlet_array *a, const inlet_field *f, const char *path, inlet_error *err) {
  char *enc = delta_path_encode(path);
  if (!enc) return inlet_fail(err, INLET_ENOMEM, "out of memory writing checkpoint");
  int rc = put_str(a, f, enc, err);
  inlet_free(enc);
  return rc;
}

/* partitionValues_parsed: each value cast to its column's type; an empty
 * string or one that does not parse is null, as Spark's cast makes it. */
static int put_pv_parsed(inlet_array *a, const inlet_field *f, const delta_add *ad,
                         inlet_error *err) {
  for (int32_t i = 0; i < f->n_children; i++) {
    const inlet_field *cf = &f->children[i];
    const char *v = NULL;
    for (int32_t k = 0; k < ad->n_partition_values; k++)
      if (strcmp(ad->partition_values[k].key, cf->name) == 0) v = ad->partition_values[k].value;
    if (v && !*v) v = NULL; /* "" is a null partition value for every type */
    inlet_array *ca = &a->children[i];
    int64_t len = ca->length;
    inlet_error e1 = INLET_ERROR_INIT;
    int rc = delta_partition_value_append(ca, cf, v, 1, &e1);
    if (rc == INLET_ENOMEM) return inlet_fail(err, rc, "%s", inlet_errmsg(&e1));
    if (rc < 0 || ca->length != len + 1) {
      if (ca->length != len)
        return inlet_fail(err, INLET_ECORRUPT,
                          "partition value \"%s\" of "
                          "\"%s\" left a partial value",
                          v, cf->name);
      TRY(inlet_array_append_null(ca, cf, err));
    }
  }
  return inlet_array_append_struct_entry(a, err);
}

static int fill_add(cp_writer *w, inlet_array *a, const inlet_field *f, const void *x,
                    inlet_error *err) {
  const delta_add *ad = x;
  inlet_array *c = a->children;
  const inlet_field *cf = f->children;
  TRY(put_path(&c[ADD_PATH], &cf[ADD_PATH], ad->path, err));
  TRY(put_map(&c[ADD_PV], &cf[ADD_PV], ad->partition_values, ad->n_partition_values, true, err));
  TRY(inlet_array_append_int(&c[ADD_SIZE], &cf[ADD_SIZE], ad->size, err));
  TRY(inlet_array_append_int(&c[ADD_MTIME], &cf[ADD_MTIME], ad->modification_time, err));
  TRY(inlet_array_append_bool(&c[ADD_DATA_CHANGE], false, err));
  TRY(put_json_map(&c[ADD_TAGS], &cf[ADD_TAGS], ad->tags, err));
  TRY(put_dv(&c[ADD_DV], &cf[ADD_DV], ad->dv_json, err));
  TRY(put_i64(&c[ADD_BASE_ROW_ID], &cf[ADD_BASE_ROW_ID], ad->base_row_id, ad->has_base_row_id,
              err));
  TRY(put_i64(&c[ADD_ROW_COMMIT_VERSION], &cf[ADD_ROW_COMMIT_VERSION],
              ad->default_row_commit_version, ad->has_default_row_commit_version, err));
  TRY(put_str(&c[ADD_CLUSTERING], &cf[ADD_CLUSTERING], ad->clustering_provider, err));
  if (w->add_stats >= 0) TRY(put_str(&c[w->add_stats], &cf[w->add_stats], ad->stats, err));
  if (w->add_pv_parsed >= 0)
    TRY(put_pv_parsed(&c[w->add_pv_parsed], &cf[w->add_pv_parsed], ad, err));
  if (w->add_stats_parsed >= 0)
    TRY(delta_stats_struct_append(w->sw, &c[w->add_stats_parsed], &cf[w->add_stats_parsed],
                                  ad->stats, err));
  return 0;
}

static int fill_remove(cp_writer *w, inlet_array *a, const inlet_field *f, const void *x,
                       inlet_error *err) {
  (void)w;
  const delta_remove *rm = x;
  inlet_array *c = a->children;
  const inlet_field *cf = f->children;
  TRY(put_path(&c[RM_PATH], &cf[RM_PATH], rm->path, err));
  TRY(put_i64(&c[RM_DEL_TS], &cf[RM_DEL_TS], rm->deletion_timestamp, rm->deletion_timestamp >= 0,
              err));
  TRY(inlet_array_append_bool(&c[RM_DATA_CHANGE], false, err));
  TRY(inlet_array_append_bool(&c[RM_EXTENDED], rm->extended_file_metadata, err));
  TRY(put_map(&c[RM_PV], &cf[RM_PV], rm->partition_values, rm->n_partition_values,
              rm->n_partition_values > 0 || rm->extended_file_metadata, err));
  TRY(put_i64(&c[RM_SIZE], &cf[RM_SIZE], rm->size, rm->size >= 0, err));
  TRY(put_dv(&c[RM_DV], &cf[RM_DV], rm->dv_json, err));
  TRY(put_i64(&c[RM_BASE_ROW_ID], &cf[RM_BASE_ROW_ID], rm->base_row_id, rm->has_base_row_id, err));
  return put_i64(&c[RM_ROW_COMMIT_VERSION], &cf[RM_ROW_COMMIT_VERSION],
                 rm->default_row_commit_version, rm->has_default_row_commit_version, err);
}

static int fill_cp_meta(cp_writer *w, inlet_array *a, const inlet_field *f, const void *x,
                        inlet_error *err) {
  (void)w;
  TRY(inlet_array_append_int(&a->children[0], &f->children[0], *(const int64_t *)x, err));
  return inlet_array_append_null(&a->children[1], &f->children[1], err);
}

typedef struct sidecar_row {
  const char *name;
  int64_t size, mtime;
} sidecar_row;

static int fill_sidecar(cp_writer *w, inlet_array *a, const inlet_field *f, const void *x,
                        inlet_error *err) {
  (void)w;
  const sidecar_row *r = x;
  TRY(put_str(&a->children[0], &f->children[0], r->name, err));
  TRY(inlet_array_append_int(&a->children[1], &f->children[1], r->size, err));
  TRY(inlet_array_append_int(&a->children[2], &f->children[2], r->mtime, err));
  return inlet_array_append_null(&a->children[3], &f->children[3], err);
}

int delta_cpw_open(cp_writer **out, inlet_storage *st, const char *rel, const delta_snapshot *snap,
                   unsigned cols, int64_t total, inlet_progress_fn progress, void *progress_ctx,
                   util_pool *pool, inlet_error *err) {
  *out = NULL;
  cp_writer *w = inlet_calloc(1, sizeof *w);
  if (!w) return inlet_fail(err, INLET_ENOMEM, "out of memory writing checkpoint");
  w->progress = progress;
  w->progress_ctx = progress_ctx;
  w->total = total;
  inlet_schema_init(&w->schema);
  int rc = build_schema(w, snap, cols, err);
  if (rc == 0) rc = inlet_batch_init(&w->b, &w->schema, err);
  inlet_parquet_writer_options po = INLET_PARQUET_WRITER_OPTIONS_INIT;
  po.sync_on_close = true;
  if (rc == 0) rc = pq_writer_open_storage(&w->pw, st, rel, &w->schema, &po, err);
  if (rc == 0 && pool) pq_writer_set_pool(w->pw, pool);
  if (rc < 0) {
    delta_cpw_free(w);
    return rc;
  }
  report(w);
  *out = w;
  return 0;
}

int delta_cpw_put_nonfile(cp_writer *w, const delta_snapshot *snap, inlet_error *err) {
  if (w->col[COL_CP_META] >= 0) TRY(put_row(w, COL_CP_META, fill_cp_meta, &snap->version, err));
  TRY(put_row(w, COL_PROTOCOL, fill_protocol, &snap->protocol, err));
  TRY(put_row(w, COL_META, fill_metadata, &snap->metadata, err));
  for (int64_t i = 0; i < snap->n_txns; i++)
    TRY(put_row(w, COL_TXN, fill_txn, &snap->txns[i], err));
  for (int64_t i = 0; i < snap->n_domains; i++)
    TRY(put_row(w, COL_DOMAIN, fill_domain, &snap->domains[i], err));
  return 0;
}

int delta_cpw_put_files(cp_writer *w, const delta_snapshot *snap, int64_t from, int64_t to,
                        inlet_error *err) {
  for (int64_t i = from; i < to && i < snap->n_files; i++)
    TRY(put_row(w, COL_ADD, fill_add, &snap->files[i].add, err));
  /* Tombstones within the retention period, so VACUUM by any engine keeps
   * files that time travel may still need. */
  for (int64_t i = from > snap->n_files ? from : snap->n_files; i < to; i++)
    TRY(put_row(w, COL_REMOVE, fill_remove, &snap->tombstones[i - snap->n_files], err));
  return 0;
}

int delta_cpw_put_sidecar(cp_writer *w, const char *name, int64_t size, int64_t mtime,
                          inlet_error *err) {
  sidecar_row r = {name, size, mtime};
  return put_row(w, COL_SIDECAR, fill_sidecar, &r, err);
}

int delta_cpw_close(cp_writer *w, int64_t *bytes, int64_t *actions, inlet_error *err) {
  if (w->b.num_rows > 0) {
    TRY(inlet_parquet_writer_write(w->pw, &w->b, err));
    inlet_batch_clear(&w->b);
  }
  report(w);
  TRY(inlet_parquet_writer_close(w->pw, err));
  if (bytes) *bytes = inlet_parquet_writer_bytes(w->pw);
  if (actions) *actions = w->actions;
  inlet_parquet_writer_free(w->pw);
  w->pw = NULL;
  return 0;
}

void delta_cpw_free(cp_writer *w) {
  if (!w) return;
  inlet_parquet_writer_free(w->pw); /* removes a partial file */
  delta_stats_struct_writer_free(w->sw);
  inlet_batch_reset(&w->b);
  inlet_schema_reset(&w->schema);
  inlet_free(w);
}

int64_t delta_cpw_hint_version(inlet_storage *st) {
  inlet_error e = INLET_ERROR_INIT;
  uint8_t *buf = NULL;
  size_t len = 0;
  int64_t v = -1;
  if (st->ops->get_bytes(st, "_delta_log/_last_checkpoint", (size_t)1 << 24, &buf, &len, &e) == 0) {
    json_t *o = json_loadb((const char *)buf, len, 0, NULL);
    json_t *jv = json_object_get(o, "version");
    if (json_is_integer(jv)) v = (int64_t)json_integer_value(jv);
    json_decref(o);
  }
  inlet_free(buf);
  return v;
}

/* The cheap look the writers' automatic checkpoints take: the classic
 * name, and `_last_checkpoint` naming this version (which writers of
 * multi-part and v2 checkpoints update too); no listing of a log that may
 * hold 100,000 entries. put-if-absent still protects the classic name. */
static int find_existing_cheap(inlet_storage *st, int64_t version, char *what, size_t cap,
                               bool *found, inlet_error *err) {
  char name[128];
  snprintf(name, sizeof name, "_delta_log/%020lld.checkpoint.parquet", (long long)version);
  inlet_dirent de;
  memset(&de, 0, sizeof de);
  int rc = st->ops->stat(st, name, &de, err);
  inlet_free(de.name);
  *found = rc == 0;
  if (rc < 0 && rc != INLET_ENOTFOUND) return rc;
  if (*found) {
    snprintf(what, cap, "%.60s", name + 11); /* 39 characters */
  } else if (delta_cpw_hint_version(st) == version) {
    *found = true;
    snprintf(what, cap, "_last_checkpoint names one");
  }
  return 0;
}

/* Describes a complete checkpoint of @p version of any kind already in the
 * log (*found), by listing `_delta_log`. */
static int find_existing(inlet_storage *st, int64_t version, char *what, size_t cap, bool *found,
                         inlet_error *err) {
  *found = false;
  inlet_dirent *ents = NULL;
  size_t n = 0;
  TRY(st->ops->list_names(st, "_delta_log", &ents, &n, err));
  delta_log_listing l;
  int rc = delta_log_listing_from(&l, ents, n, err);
  inlet_dirents_free(ents, n);
  TRY(rc);
  for (int64_t i = 0; i < l.n_checkpoints; i++) {
    const delta_checkpoint_ref *cp = &l.checkpoints[i];
    if (cp->version != version) continue;
    *found = true;
    if (cp->v2)
      snprintf(what, cap, "a UUID-named v2 checkpoint");
    else if (cp->parts > 1)
      snprintf(what, cap, "a %d-part checkpoint", (int)cp->parts);
    else
      snprintf(what, cap, "%020lld.checkpoint.parquet", (long long)version);
    break;
  }
  delta_log_listing_reset(&l);
  return 0;
}

static int write_hint(inlet_storage *st, const delta_snapshot *snap, int64_t actions, int64_t bytes,
                      inlet_error *err) {
  if (delta_cpw_hint_version(st) > snap->version)
    return 0; /* a newer checkpoint is already named */
  char hint[256];
  int n = snprintf(hint, sizeof hint,
                   "{\"version\":%lld,\"size\":%lld,\"sizeInBytes\":%lld,\"numOfAddFiles\":%lld}\n",
                   (long long)snap->version, (long long)actions, (long long)bytes,
                   (long long)snap->n_files);
  return st->ops->put_bytes(st, "_delta_log/_last_checkpoint", hint, (size_t)n, err);
}

int delta_cpw_publish(inlet_storage *st, const char *tmp_rel, const char *final_rel,
                      inlet_error *err) {
  if (st->flags & INLET_STORAGE_OBJECT_STORE) return 0; /* written under its final name */
  int rc = st->ops->put_if_absent(st, tmp_rel, final_rel, err);
  inlet_error ignore = INLET_ERROR_INIT;
  if (rc < 0) st->ops->remove(st, tmp_rel, &ignore);
  return rc;
}

static int checkpoint_write(inlet_storage *st, const delta_snapshot *snap, bool list,
                            util_pool *pool, inlet_progress_fn progress, void *progress_ctx,
                            inlet_error *err) {
  TRY(delta_features_check_write(&snap->protocol, &snap->metadata, DELTA_OP_CHECKPOINT, 0, err));
  char what[96];
  bool found = false;
  if (list)
    TRY(find_existing(st, snap->version, what, sizeof what, &found, err));
  else
    TRY(find_existing_cheap(st, snap->version, what, sizeof what, &found, err));
  FAIL_IF(found, err, INLET_EEXISTS,
          "a checkpoint of version %lld already exists (%s); nothing "
          "written",
          (long long)snap->version, what);
  /* The table's policy (PROTOCOL.md "V2 Checkpoint Table Feature"): v2
   * tables get UUID-named v2 checkpoints (delta_checkpoint_v2.c). */
  if (delta_checkpoint_policy_v2(snap))
    return delta_checkpoint_write_v2(st, snap, pool, progress, progress_ctx, err);
  char tmp_rel[128], final_rel[128];
  snprintf(tmp_rel, sizeof tmp_rel, "_delta_log/.tmp-%020lld-%016llx.checkpoint.parquet",
           (long long)snap->version, (unsigned long long)delta_random_u64());
  snprintf(final_rel, sizeof final_rel, "_delta_log/%020lld.checkpoint.parquet",
           (long long)snap->version);
  /* An object store publishes an object whole at close, refusing an
   * existing name (If-None-Match): the checkpoint is written under its
   * final name. A file system shows a file while it is written, so there
   * it is a synced temporary published with put-if-absent. */
  bool direct = (st->flags & INLET_STORAGE_OBJECT_STORE) != 0;
  cp_writer *w = NULL;
  int64_t bytes = 0, actions = 0;
  int rc = delta_cpw_open(&w, st, direct ? final_rel : tmp_rel, snap, DELTA_CPW_CLASSIC,
                          2 + snap->n_txns + snap->n_domains + snap->n_files + snap->n_tombstones,
                          progress, progress_ctx, pool, err);
  if (rc == 0) rc = delta_cpw_put_nonfile(w, snap, err);
  if (rc == 0) rc = delta_cpw_put_files(w, snap, 0, snap->n_files + snap->n_tombstones, err);
  if (rc == 0) rc = delta_cpw_close(w, &bytes, &actions, err);
  delta_cpw_free(w); /* removes a partial file */
  if (rc == 0) {
    rc = delta_cpw_publish(st, tmp_rel, final_rel, err);
    if (rc == INLET_EEXISTS)
      rc = inlet_fail(err, INLET_EEXISTS,
                      "a checkpoint of version %lld was written concurrently "
                      "by another writer; it was kept and nothing written",
                      (long long)snap->version);
  } else if (!direct) {
    inlet_error ignore = INLET_ERROR_INIT;
    st->ops->remove(st, tmp_rel, &ignore);
  }
  /* _last_checkpoint is a hint: written after the checkpoint is complete;
   * failing to update it loses nothing. */
  if (rc == 0) {
    inlet_error ignore = INLET_ERROR_INIT;
    (void)write_hint(st, snap, actions, bytes, &ignore);
  }
  return rc;
}

int delta_checkpoint_write(inlet_storage *st, const delta_snapshot *snap,
                           inlet_progress_fn progress, void *progress_ctx, inlet_error *err) {
  return checkpoint_write(st, snap, false, NULL, progress, progress_ctx, err);
}

int delta_checkpoint_write_checked(inlet_storage *st, const delta_snapshot *snap,
                                   inlet_progress_fn progress, void *progress_ctx,
                                   inlet_error *err) {
  return checkpoint_write(st, snap, true, NULL, progress, progress_ctx, err);
}

int delta_checkpoint_write_threads(inlet_storage *st, const delta_snapshot *snap, bool checked,
                                   int threads, inlet_progress_fn progress, void *progress_ctx,
                                   inlet_error *err) {
  util_pool *pool = NULL;
  if (threads > 1) TRY(util_pool_new(&pool, threads, err));
  int rc = checkpoint_write(st, snap, checked, pool, progress, progress_ctx, err);
  util_pool_free(pool);
  return rc;
}
