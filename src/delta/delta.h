/*
 * The delta module's face to other modules (stream, maint, scan): the Delta
 * Lake action model, log listing, snapshots (log replay) and transactions
 * (optimistic commits with the protocol's conflict rules).
 *
 * Spec: delta-io/delta PROTOCOL.md, sections "Actions", "Action
 * Reconciliation", "Delta Log Entries", "Checkpoints", "Last Checkpoint
 * File", "Per-file Statistics", "Partition Value Serialization", "Schema
 * Serialization Format", "Commit Provenance Information".
 *
 * Paths: every file path held here is the *decoded* path relative to the
 * table root ("a=1/part-0.parquet"), validated by inlet_path_check; the log
 * stores it percent-encoded and may use absolute URIs inside the table,
 * which parsing turns into relative paths (anything outside is refused).
 */
#ifndef INLET_DELTA_H
#define INLET_DELTA_H

#include <stdint.h>

#include "expr/expr.h"
#include "inlet/batch.h"
#include "inlet/error.h"
#include "inlet/parquet.h"
#include "storage/storage.h"
#include "util/buf.h"

/* ---- limits for untrusted logs ------------------------------------------ */

#define DELTA_MAX_LINE_BYTES ((size_t)64 << 20)        /* one action line */
#define DELTA_MAX_SCHEMA_DEPTH 64                      /* nesting of schemaString */
#define DELTA_MAX_VARIANT_JSON ((size_t)64 << 20)      /* JSON text of one variant value */
#define DELTA_MAX_VERSION ((int64_t)99999999999999999) /* keeps 20-digit names */
#define DELTA_ENGINE_INFO "inlet/0.1.0"

/* ---- actions ------------------------------------------------------------ */

typedef struct delta_kv {
  char *key;   /* owned */
  char *value; /* owned; NULL = JSON null */
} delta_kv;

typedef struct delta_protocol {
  int32_t min_reader;
  int32_t min_writer;
  int32_t n_reader_features;
  char **reader_features; /* owned; NULL when the field is absent */
  int32_t n_writer_features;
  char **writer_features; /* owned */
} delta_protocol;

typedef struct delta_metadata {
  char *id;            /* owned */
  char *name;          /* owned, may be NULL */
  char *description;   /* owned, may be NULL */
  char *format;        /* owned provider, "parquet" */
  char *schema_string; /* owned, may be NULL (log-only tables) */
  int32_t n_partition_columns;
  char **partition_columns; /* owned */
  int32_t n_configuration;
  delta_kv *configuration; /* owned */
  int64_t created_time;    /* ms, -1 when absent */
  int32_t n_format_options;
  delta_kv *format_options; /* owned: format.options */
} delta_metadata;

typedef struct delta_add {
  char *path; /* owned, decoded, relative */
  int32_t n_partition_values;
  delta_kv *partition_values; /* owned */
  int64_t size;
  int64_t modification_time;
  bool data_change;
  char *stats;   /* owned raw JSON string, may be NULL */
  char *tags;    /* owned raw JSON object text (string values), may be NULL */
  char *dv_id;   /* owned unique id of the deletion vector, NULL when none */
  char *dv_json; /* owned raw deletionVector object, NULL when none */
  /* Row tracking and clustering (PROTOCOL.md "Row Tracking", "Clustered
   * Table"): kept so checkpoints and rewrites carry them unchanged. */
  bool has_base_row_id;
  bool has_default_row_commit_version;
  int64_t base_row_id;
  int64_t default_row_commit_version;
  char *clustering_provider; /* owned, may be NULL */
} delta_add;

typedef struct delta_remove {
  char *path;                 /* owned, decoded, relative */
  int64_t deletion_timestamp; /* -1 when absent */
  bool data_change;
  bool extended_file_metadata;
  int32_t n_partition_values;
  delta_kv *partition_values; /* owned */
  int64_t size;               /* -1 when absent */
  char *stats;                /* owned, may be NULL */
  char *tags;                 /* owned raw JSON object text, may be NULL */
  char *dv_id;                /* owned, NULL when none */
  char *dv_json;              /* owned, NULL when none */
  bool has_base_row_id;
  bool has_default_row_commit_version;
  int64_t base_row_id;
  int64_t default_row_commit_version;
} delta_remove;

typedef struct delta_txn_action {
  char *app_id; /* owned */
  int64_t version;
  int64_t last_updated; /* -1 when absent */
} delta_txn_action;

typedef struct delta_domain {
  char *domain;        /* owned */
  char *configuration; /* owned */
  bool removed;
} delta_domain;

typedef enum delta_action_kind {
  DELTA_ACTION_NONE = 0, /* unknown or ignored (checkpointMetadata, sidecar, ...) */
  DELTA_ACTION_PROTOCOL,
  DELTA_ACTION_METADATA,
  DELTA_ACTION_ADD,
  DELTA_ACTION_REMOVE,
  DELTA_ACTION_TXN,
  DELTA_ACTION_COMMIT_INFO,
  DELTA_ACTION_DOMAIN,
  DELTA_ACTION_CDC /* PROTOCOL.md "Add CDC File": in u.add (path, partitionValues, size,
                    * dataChange, tags); only change data feed reads use it */
} delta_action_kind;

typedef struct delta_action {
  delta_action_kind kind;
  union {
    delta_protocol protocol;
    delta_metadata metadata;
    delta_add add; /* also DELTA_ACTION_CDC */
    delta_remove remove;
    delta_txn_action txn;
    delta_domain domain;
    char *commit_info; /* owned raw JSON object text */
  } u;
} delta_action;

/* Where a line came from, for error messages. */
typedef struct delta_line_ctx {
  const char *file;     /* e.g. "_delta_log/00000000000000000003.json" */
  int64_t line;         /* 1-based */
  const char *root_abs; /* absolute table root (for absolute paths), may be NULL */
} delta_line_ctx;

void delta_action_reset(delta_action *a);
void delta_protocol_reset(delta_protocol *p);
void delta_metadata_reset(delta_metadata *m);
void delta_add_reset(delta_add *a);
void delta_remove_reset(delta_remove *r);
int delta_protocol_copy(delta_protocol *dst, const delta_protocol *src, inlet_error *err);
int delta_metadata_copy(delta_metadata *dst, const delta_metadata *src, inlet_error *err);
int delta_add_copy(delta_add *dst, const delta_add *src, inlet_error *err);
int delta_remove_copy(delta_remove *dst, const delta_remove *src, inlet_error *err);
/* delta.deletedFileRetentionDuration of @p m in ms ("interval 1 week" when
 * absent or unparseable). */
int64_t delta_retention_ms(const delta_metadata *m);
/* Value of a duration table property ("interval 7 days", "7d": the grammar
 * of util/duration.h) in ms; @p dflt when the property is absent or
 * malformed. */
int64_t delta_interval_conf_ms(const delta_metadata *m, const char *key, int64_t dflt);
/* delta.logRetentionDuration when the table does not set it (30 days). */
#define DELTA_DEFAULT_LOG_RETAIN_MS (30LL * 24 * 3600 * 1000)

/*
 * Parses one log line into @p out. A line with an unknown action (or a
 * blank line) yields DELTA_ACTION_NONE. Returns 0, INLET_ECORRUPT (bad JSON,
 * wrong types, path escaping the table; the message names ctx file and
 * line), INLET_ELIMIT (line too long), INLET_ENOMEM.
 */
int delta_action_parse(delta_action *out, const char *line, size_t len, const delta_line_ctx *ctx,
                       inlet_error *err);

/* Appends @p a as one JSON line (with '\n') to @p out. 0, INLET_ENOMEM. */
int delta_action_write(inlet_buf *out, const delta_action *a, inlet_error *err);

/* Percent-decodes/encodes a URI path. Decoding fails (INLET_ECORRUPT) on a
 * malformed escape or a decoded NUL. Caller frees with inlet_free. */
int delta_path_decode(char **out, const char *s, inlet_error *err);
char *delta_path_encode(const char *s);

/* Turns a log path (percent-encoded relative URI, absolute path or file:
 * URI inside ctx->root_abs) into a decoded path relative to the table root;
 * anything outside is INLET_ECORRUPT, another URI scheme INLET_EUNSUPPORTED.
 * @p what names the action in messages. Caller frees *out. */
int delta_path_resolve(char **out, const char *raw, const delta_line_ctx *ctx, const char *what,
                       inlet_error *err);

/* Value of configuration key @p key, or NULL. */
const char *delta_metadata_conf(const delta_metadata *m, const char *key);

/* Applies the table properties that shape data files to @p po:
 * inlet.parquet.pageRows (rows per page) and inlet.parquet.encodings
 * (compatible, the default, or extended). INLET_EINVAL names a bad value. */
struct inlet_parquet_writer_options;
int delta_data_file_options(struct inlet_parquet_writer_options *po, const delta_metadata *m,
                            inlet_error *err);

/* ---- schema (schemaString) ------------------------------------------------ */

/* Parses Delta's JSON schema. 0, INLET_ECORRUPT, INLET_EUNSUPPORTED (a type
 * inlet does not know, named; variant is read as STRING with
 * INLET_EXT_VARIANT), INLET_ENOMEM. */
int delta_schema_parse(inlet_schema *out, const char *json, inlet_error *err);

/* ---- variant columns in data files (delta_variant.c) ----------------------
 * A variant is STRING + INLET_EXT_VARIANT (its JSON text) in table schemas
 * and batches, and a STRUCT + INLET_EXT_VARIANT of BINARY NOT NULL `value`
 * and `metadata` (Spark's group, unannotated) in data files. */

/* Whether field @p f is a variant (JSON text form) or holds one. */
bool delta_variant_in(const inlet_field *f);
bool delta_variant_schema_has(const inlet_schema *s);
/* Rewrites every variant field of @p s, at any depth, into the data-file
 * form. 0 or INLET_ENOMEM. */
int delta_variant_physical(inlet_schema *s, inlet_error *err);
/* A view of batch @p in as the data-file schema @p phys (its physical
 * form, borrowed): each variant value encoded from its JSON text
 * (batch_variant_from_json), every other column borrowed from @p in.
 * Release with delta_variant_release_batch(out, in). 0; INLET_EINVAL (a
 * value that is not JSON a variant can hold: the message names the column
 * and row), INLET_ELIMIT, INLET_ENOMEM, INLET_EINTERNAL. */
int delta_variant_encode_batch(inlet_batch *out, const inlet_batch *in, const inlet_schema *phys,
                               inlet_error *err);
void delta_variant_release_batch(inlet_batch *out, const inlet_batch *in);

/* Column mapping modes (PROTOCOL.md "Column Mapping", table property
 * delta.columnMapping.mode). */
enum { DELTA_CM_NONE = 0, DELTA_CM_NAME = 1, DELTA_CM_ID = 2 };
/* The mode @p m's configuration sets: DELTA_CM_*, or -1 for a value that is
 * none of none/name/id. */
int delta_column_mapping_mode(const delta_metadata *m);
/* The physical schema of a column-mapping table: the same tree as
 * delta_schema_parse's, each field named by its
 * delta.columnMapping.physicalName and, with @p mode DELTA_CM_ID, carrying
 * its delta.columnMapping.id as field_id (-1 otherwise). Every field needs a
 * physical name (and an id in id mode), unique among its siblings; ids are
 * unique and at most @p max_id (-1: unchecked). INLET_ECORRUPT otherwise. */
int delta_schema_parse_physical(inlet_schema *out, const char *json, int mode, int64_t max_id,
                                inlet_error *err);
/* The field of @p file (a data file's top-level fields or a struct's
 * children, @p n of them) that holds physical field @p pf: by field id when
 * pf has one and the file carries it, else by name (exact, then ignoring
 * case). -1 when the file lacks it. */
int32_t delta_cm_find_field(const inlet_field *file, int32_t n, const inlet_field *pf);
/* A new mapping table's schema (PROTOCOL.md "Writer Requirements for Column
 * Mapping"): @p schema_json (a struct type, inlet_malloc'd, replaced in
 * place) with every field at every depth (struct fields inside structs,
 * arrays and maps too) given delta.columnMapping.id 1..n in schema order
 * and delta.columnMapping.physicalName "col-<uuid>" as Spark names them,
 * other field metadata kept; *max_id = n. 0, INLET_ECORRUPT (not a struct
 * type), INLET_ENOMEM. */
int delta_column_mapping_assign(char **schema_json, int64_t *max_id, inlet_error *err);
/* Schema evolution on a mapping table (Spark's assignColumnIdAndPhysicalName
 * for new fields): the fields of @p schema_json (replaced in place) without
 * an id and physical name, at any depth (new columns, their nested fields,
 * new fields of existing structs), get ids above max(*max_id, every id in
 * the schema) and "col-<uuid>" physical names; the others keep theirs.
 * *max_id becomes the largest id. 0, INLET_ECORRUPT, INLET_ENOMEM. */
int delta_column_mapping_assign_new(char **schema_json, int64_t *max_id, inlet_error *err);
/* Shapes column @p src (data file field @p sf, @p n rows, consumed) as table
 * field @p tf (its physical twin @p pf) into @p dst (empty, initialised for
 * tf), as scans read it: struct fields matched by physical name or id
 * (missing ones null), widened leaf types converted. @p path names the file
 * in errors. 0, INLET_EUNSUPPORTED (a type that does not convert),
 * INLET_ENOMEM. (delta_scan.c) */
int delta_conform_column(inlet_array *dst, const inlet_field *tf, const inlet_field *pf,
                         inlet_array *src, const inlet_field *sf, int64_t n, const char *path,
                         inlet_error *err);
/* The name of a void column (at any depth) of @p schema, or NULL. */
const char *delta_schema_void_column(const inlet_schema *schema);
/* The name of a void field below a top-level column (in a struct, array
 * or map) of @p schema, or NULL. */
const char *delta_schema_nested_void(const inlet_schema *schema);
/* Writers leave void columns out of data files (PROTOCOL.md "Void Type"),
 * as Spark does (dropNullTypeColumns): top-level ones, and fields of
 * structs, through structs at any depth (delta_schema_drop_struct_voids;
 * readers fill them with null). Spark refuses a void inside an array or
 * map, and Parquet has no empty group: the name of such a void field, or of
 * a struct whose fields are all void, in @p schema, or NULL. */
const char *delta_schema_unwritable_void(const inlet_schema *schema);
/* Takes the void fields out of the structs of @p schema, through structs
 * (the shape a data file holds; top-level void columns are the caller's). */
void delta_schema_drop_struct_voids(inlet_schema *schema);
/* Schema evolution from a record (src/delta/delta_schema_evolve.c): the
 * fields of the JSON object @p record that @p schema_json lacks, at the top
 * level and inside struct columns, with inferred types, appended as nullable
 * fields. *@p added counts them; when > 0, *@p out is the new schemaString
 * (caller frees with inlet_free), else NULL. INLET_EINVAL (message names the
 * field) when the record's new fields cannot become columns: a name Delta
 * refuses, a case-insensitive clash with a column; INLET_ECORRUPT when the
 * record is not a JSON object (jansson: also a duplicate key). */
int delta_schema_evolve(char **out, int32_t *added, const char *schema_json, const char *record,
                        size_t len, inlet_error *err);
/* Type widening from a record (src/delta/delta_schema_evolve.c): the
 * byte/short/integer columns and fields (in structs, array elements, map keys
 * and values) whose value in @p record is an integer out of their range, and
 * float ones whose value is beyond a float's range, widened
 * (short/integer/long, double), each change in delta.typeChanges of the
 * nearest struct field (with fieldPath for array and map parts). *@p widened
 * counts them; when > 0, *@p out is the new schemaString (caller frees with
 * inlet_free). The caller checks that the table allows it
 * (delta_type_widening_enabled). 0, INLET_ECORRUPT (schemaString),
 * INLET_ELIMIT (more than 64 changes from one record), INLET_ENOMEM. */
int delta_schema_widen(char **out, int32_t *widened, const char *schema_json, const char *record,
                       size_t len, inlet_error *err);
/* Serialises @p schema as a schemaString; caller frees with inlet_free.
 * INLET_EUNSUPPORTED for types Delta lacks (unsigned, time...). */
int delta_schema_to_json(char **out, const inlet_schema *schema, inlet_error *err);
/* The Delta type name of @p field's type as schemaString would nest it. */

/* ---- partition values and names ------------------------------------------ */

/* Serialises value @p row of @p arr (of @p field's type) as a Delta partition
 * value string (NULL pointer stored for a null). 0, INLET_EUNSUPPORTED,
 * INLET_ENOMEM. */
int delta_partition_value_format(char **out, const inlet_field *field, const inlet_array *arr,
                                 int64_t row, inlet_error *err);
/* Appends @p n copies of partition value @p value (NULL = null) to @p arr.
 * 0, INLET_ECORRUPT (unparseable value; names the column), INLET_ENOMEM. */
int delta_partition_value_append(inlet_array *arr, const inlet_field *field, const char *value,
                                 int64_t n, inlet_error *err);
/* Hive-style escaping of a directory name component (Spark's escapePathName).
 * Caller frees. */
char *delta_hive_escape(const char *s);

/* Partition directories a data file can live in (delta_partition_path.c has
 * the rule): NUL bytes, invalid UTF-8, directory names over
 * DELTA_PART_NAME_MAX bytes and data file paths of DELTA_DATA_PATH_MAX bytes
 * or more are refused with INLET_EINVAL naming the column. */
#define DELTA_PART_NAME_MAX 255     /* NAME_MAX of Linux filesystems */
#define DELTA_DATA_PATH_MAX 4096    /* PATH_MAX, the terminating NUL included */
#define DELTA_DATA_FILE_NAME_MAX 80 /* part-NNNNN-<uuid>-c000<codec>.parquet */
/* True for the bytes delta_hive_escape writes as %XX. */
bool delta_hive_needs_escape(unsigned char c);
/* Length of @p s[0..n) once escaped by delta_hive_escape. */
size_t delta_hive_escaped_len(const char *s, size_t n);
/* Every row's directory is NAME=VALUE, one path component: a partition
 * column whose escaped name leaves no room for the null value's
 * NAME=__HIVE_DEFAULT_PARTITION__ could never hold a null row, so create
 * refuses it (INLET_EINVAL naming the limit) rather than its rows. */
int delta_partition_column_name_check(const char *column, inlet_error *err);
/* Checks the directory name of partition column @p column holding value
 * @p value[0..n) (NULL: null); *len gets its escaped length. */
int delta_partition_component_check(const char *column, const char *value, size_t n, size_t *len,
                                    inlet_error *err);
/* Checks that partition directories of @p dir_len bytes under a table root
 * of @p root_len bytes leave room for a data file name. */
int delta_partition_path_check(size_t root_len, size_t dir_len, inlet_error *err);
/* Checks the partition directory of row @p row of @p batch (table schema):
 * @p cols are the table columns of the partition columns to check. */
int delta_partition_row_check(const inlet_batch *batch, int64_t row, const int32_t *cols,
                              int32_t n_cols, size_t root_len, inlet_error *err);

/* ---- statistics ---------------------------------------------------------- */

/* Column types that get minValues/maxValues (and a stats_parsed min/max
 * field): the ones Delta data skipping orders. One rule for add.stats and
 * checkpoints' stats_parsed, which must list the same columns. */
bool delta_stats_type_has_bounds(const inlet_type *t);
/* add.stats numRecords without parsing the whole object (the stats of a
 * wide table are long, and a 10,000-commit walk reads every one); -1 when
 * absent or unreadable. */
int64_t delta_stats_num_records(const char *stats);
typedef struct delta_stats_acc delta_stats_acc;
/* Accumulates per-column stats over batches of @p schema (data columns
 * only). @p max_indexed_cols limits the leaf columns with stats (Delta's
 * delta.dataSkippingNumIndexedCols, default 32; <0 = all). */
int delta_stats_new(delta_stats_acc **out, const inlet_schema *schema, int32_t max_indexed_cols,
                    inlet_error *err);
/* Adds rows @p rows[0..n_rows) of @p batch (all rows when @p rows is NULL):
 * every stat computed from the batches alone, a second pass over the data.
 * Writers do not use it (see below); it is the tests' independent
 * reference for the one-pass stats. */
int delta_stats_add(delta_stats_acc *acc, const inlet_batch *batch, const int64_t *rows,
                    int64_t n_rows, inlet_error *err);
/*
 * One pass (what writers use): delta_stats_count() for each batch written
 * to the data file (rows, and the nullCount of list and map columns, the
 * only stats not taken from Parquet), then, after
 * inlet_parquet_writer_close(), delta_stats_take_parquet() with the file's
 * writer (whose schema is the accumulator's): every other nullCount and
 * bound comes from the statistics the writer gathered while encoding. The
 * JSON is byte-identical to what delta_stats_add() over the same batches
 * gives; that function stays as the reference the tests compare with.
 * @return 0; INLET_ENOMEM; INLET_EINTERNAL when the writer's columns or row
 * count do not match the accumulator's: the data file then fails rather
 * than carry another column's bounds.
 */
int delta_stats_count(delta_stats_acc *acc, const inlet_batch *batch, inlet_error *err);
int delta_stats_take_parquet(delta_stats_acc *acc, const inlet_parquet_writer *pw,
                             inlet_error *err);
/* The stats JSON string (numRecords, minValues, maxValues, nullCount). */
int delta_stats_json(delta_stats_acc *acc, char **out, inlet_error *err);
int64_t delta_stats_rows(const delta_stats_acc *acc);
void delta_stats_free(delta_stats_acc *acc);

/* Typed statistics in checkpoints (delta_stats_struct.c). The
 * `stats_parsed` field of a table with schema @p table (Spark's stats
 * schema: numRecords, minValues, maxValues, nullCount over the indexed data
 * columns, tightBounds with deletion vectors). 0, INLET_ENOMEM, INLET_EINVAL
 * (malformed delta.dataSkippingStatsColumns). */
int delta_stats_struct_field(inlet_field *out, const inlet_schema *table, const delta_metadata *m,
                             const delta_protocol *p, inlet_error *err);
/* The `partitionValues_parsed` field (partition columns, typed); an empty
 * field (no name) for an unpartitioned table. */
int delta_partition_struct_field(inlet_field *out, const inlet_schema *table,
                                 const delta_metadata *m, inlet_error *err);
/* Appends add.stats JSON text (NULL = no stats) to a stats_parsed array as
 * Spark's from_json would: values of the wrong type, out of range or not
 * exact at the column's precision become null. Reuses its scratch memory
 * across calls. */
typedef struct delta_stats_struct_writer delta_stats_struct_writer;
int delta_stats_struct_writer_new(delta_stats_struct_writer **out, inlet_error *err);
void delta_stats_struct_writer_free(delta_stats_struct_writer *w);
int delta_stats_struct_append(delta_stats_struct_writer *w, inlet_array *a, const inlet_field *f,
                              const char *stats_json, inlet_error *err);
/* Row @p r of a stats_parsed column as add.stats JSON text (*out NULL when
 * the row is null); caller frees. */
int delta_stats_struct_to_json(char **out, const inlet_field *f, const inlet_array *a, int64_t r,
                               inlet_error *err);

/* ---- log files ----------------------------------------------------------- */

typedef struct delta_checkpoint_ref {
  int64_t version;
  int32_t parts; /* 1 for classic single-file */
  bool v2;       /* UUID-named (v2) checkpoint */
  /* v2: the file's name inside `_delta_log`
   * ("n.checkpoint.<uuid>.{json,parquet}"); "" otherwise. */
  char name[96];
} delta_checkpoint_ref;

/* A log compaction file `x.y.compacted.json` (PROTOCOL.md "Log Compaction
 * Files"): the reconciled actions of commits x..y. */
typedef struct delta_log_range {
  int64_t from, to; /* from <= to */
} delta_log_range;

typedef struct delta_log_listing {
  int64_t n_commits;
  int64_t *commit_versions; /* owned, ascending */
  int64_t *commit_mtimes;   /* owned, ms, monotonized: each > the one before */
  int64_t n_checkpoints;
  delta_checkpoint_ref *checkpoints; /* owned, ascending, complete ones only */
  int64_t n_compactions;
  delta_log_range *compactions; /* owned, in name order (by from, then to) */
} delta_log_listing;

/* Lists _delta_log. INLET_ENOTFOUND if the directory is missing. */
int delta_log_list(delta_log_listing *out, inlet_storage *st, inlet_error *err);
/* The same from entries already listed (sorted by name); commit mtimes are
 * the entries' (-1 from a list_names listing). 0 or INLET_ENOMEM. */
int delta_log_listing_from(delta_log_listing *out, const inlet_dirent *ents, size_t n,
                           inlet_error *err);
void delta_log_listing_reset(delta_log_listing *l);
/* Index of the first commit in @p l with version >= @p version (n_commits
 * when none). */
int64_t delta_log_listing_find(const delta_log_listing *l, int64_t version);

/* Name of the commit file of @p version: "_delta_log/%020lld.json". */
void delta_commit_name(char out[64], int64_t version);

/* Streams the actions of commit file @p version to @p cb (which takes
 * ownership of nothing; the action is reset after the callback). A callback
 * returning nonzero stops with that code. */
typedef int (*delta_action_cb)(void *ctx, const delta_action *a, inlet_error *err);
int delta_log_read_commit(inlet_storage *st, const char *root_abs, int64_t version,
                          delta_action_cb cb, void *ctx, inlet_error *err);
/* Reads the commits that landed after *@p seen, probing names from the
 * next version on (writers never skip one), so a writer's rebase costs the
 * new commits, not a listing of the whole log; @p cb gets each action with
 * its version, and *@p seen advances past each commit read whole. */
typedef int (*delta_versioned_action_cb)(void *ctx, int64_t version, const delta_action *a,
                                         inlet_error *err);
int delta_log_read_commits_after(inlet_storage *st, const char *root_abs, int64_t *seen,
                                 delta_versioned_action_cb cb, void *ctx, inlet_error *err);
/* Name of the log compaction file of commits @p from..@p to. */
void delta_compaction_name(char out[96], int64_t from, int64_t to);
/* The same streaming for any JSON log file @p name (below the table root),
 * e.g. a log compaction file. */
int delta_log_read_file(inlet_storage *st, const char *root_abs, const char *name,
                        delta_action_cb cb, void *ctx, inlet_error *err);

/* The inCommitTimestamp of commit @p version (its commitInfo must be the
 * first action, PROTOCOL.md "In-Commit Timestamps"), or -1 when it has none.
 * 0 or delta_log_read_commit's codes. */
int delta_commit_ict(inlet_storage *st, const char *root_abs, int64_t version, int64_t *ict,
                     inlet_error *err);

/* ---- table scans (for src/scan and the change data feed) ------------------- */

/* The rows of a snapshot, file by file and row group by row group, shaped
 * to the snapshot schema (partition columns filled from the log, columns a
 * file lacks filled with nulls). The engine behind inlet_scan_open
 * (include/inlet/scan.h); borrows the snapshot. delta_scan_open returns 0,
 * INLET_EUNSUPPORTED (a table without schema), INLET_ENOMEM;
 * delta_scan_next 1 with rows, 0 at the end, DELTA_SCAN_ROW_GROUP (see
 * delta_scan_select) or the codes of inlet_scan_next. */
typedef struct delta_scan delta_scan;
struct inlet_snapshot;
int delta_scan_open(delta_scan **out, const struct inlet_snapshot *s, inlet_error *err);
int delta_scan_next(delta_scan *sc, inlet_batch *out, inlet_error *err);
void delta_scan_free(delta_scan *sc);

#define DELTA_SCAN_ROW_GROUP 2
/* Narrows a scan before its first delta_scan_next: files with
 * keep_file[i] == 0 (snapshot file order) are never opened; table columns
 * with keep_col[i] == 0 are not decoded and come back as empty (length 0)
 * arrays (either may be NULL: keep everything; both borrowed, they must
 * outlive the scan). With @p decide, delta_scan_next stops before each row
 * group of a kept file and returns DELTA_SCAN_ROW_GROUP without reading
 * it: the caller looks at it (delta_scan_row_group) and says how much of
 * it to read (delta_scan_choose) before calling delta_scan_next again. */
void delta_scan_select(delta_scan *sc, const uint8_t *keep_file, const uint8_t *keep_col,
                       bool decide);
/* Narrows a scan before its first delta_scan_next to the files
 * [@p first, @p end) of the snapshot (clamped), e.g. one file for a worker
 * of a parallel scan. */
void delta_scan_range(delta_scan *sc, int64_t first, int64_t end);
/* The row group delta_scan_next stopped at: the snapshot file index, its
 * open reader (lent until the next delta_scan_next) and the row group. */
struct inlet_parquet_reader;
void delta_scan_row_group(const delta_scan *sc, int64_t *file,
                          const struct inlet_parquet_reader **reader, int32_t *rg);
/* Reads the row group delta_scan_next stopped at (@p keep), only its
 * @p n_ranges row ranges (2 per range, borrowed until the next
 * delta_scan_next; NULL: every row; inlet_parquet_reader_read_rows), or
 * skips it (!@p keep). */
void delta_scan_choose(delta_scan *sc, bool keep, const int64_t *ranges, int32_t n_ranges);
/* One data file of a snapshot opened once for the scans of its row groups
 * (a parallel scan's tasks, src/scan): the parsed footer, the deletion
 * vector and the file position of each row group's first row, read-only
 * while scans use it, so tasks on several threads may share it. The scans
 * open their own files on it, each through its own storage handle
 * (delta_scan_set_storage), or read it from memory when @p opener
 * prefetched it: delta_scan_file_open opens file @p file of @p opener's
 * snapshot through @p opener's handle, with its prefetching (object
 * stores: the small kept files, many at once, each kept whole with its
 * delta_scan_file; none while a window is set). It returns 0, INLET_ENOMEM
 * or the codes of opening the file and its deletion vector (with the
 * messages a scan gives). */
typedef struct delta_scan_file delta_scan_file;
int delta_scan_file_open(delta_scan_file **out, delta_scan *opener, int64_t file, inlet_error *err);
int64_t delta_scan_file_index(const delta_scan_file *f);
int32_t delta_scan_file_num_row_groups(const delta_scan_file *f);
int64_t delta_scan_file_row_group_rows(const delta_scan_file *f, int32_t rg);
void delta_scan_file_free(delta_scan_file *f);
/* Narrows a scan before its first delta_scan_next to row groups
 * [@p first_rg, @p end_rg) of the file @p f (borrowed: it must outlive the
 * scan), read through a reader of its own sharing @p f's footer. */
void delta_scan_use_file(delta_scan *sc, const delta_scan_file *f, int32_t first_rg,
                         int32_t end_rg);
/* Reads the scan's files through @p st (borrowed: it must outlive the scan)
 * instead of the table's handle: a pool thread's own (storage.h
 * inlet_storage_thread_handle). Before the first delta_scan_next. */
void delta_scan_set_storage(delta_scan *sc, inlet_storage *st);
/* Bounds the rows of the next batches (a scan with a limit): with
 * @p rows > 0 each row group is read in slices of its selected rows, at
 * least @p rows per slice (fewer only at its end), so that reading stops
 * within a page or so of the limit and memory follows the slice, not the
 * row group (inlet_parquet_reader_read_rows reads only the pages a slice
 * needs). With @p by_pages the slices end on page boundaries, for
 * filtered scans that go on page by page until enough rows match. May be
 * changed between batches; 0 restores whole row groups. */
void delta_scan_set_window(delta_scan *sc, int64_t rows, bool by_pages);
/* The Parquet readers' counters so far (pages decoded and skipped, column
 * bytes read), over every file the scan opened. */
void delta_scan_read_stats(const delta_scan *sc, inlet_parquet_read_stats *out);
/* Row tracking (PROTOCOL.md "Reader Requirements for Row Tracking"): from
 * now on batches carry two more columns after the table's, the stable row
 * id and row commit version (DELTA_SCAN_ROW_ID, DELTA_SCAN_ROW_COMMIT_VERSION,
 * long, not null), each the file's materialized value where not null, else
 * baseRowId + the row's position in the file / defaultRowCommitVersion.
 * INLET_EUNSUPPORTED when the snapshot does not have row tracking enabled. */
#define DELTA_SCAN_ROW_ID "_metadata.row_id"
#define DELTA_SCAN_ROW_COMMIT_VERSION "_metadata.row_commit_version"
int delta_scan_row_tracking(delta_scan *sc, inlet_error *err);
/* The schema of the batches: the table's, then the row tracking columns
 * when asked for. */
const inlet_schema *delta_scan_schema(const delta_scan *sc);

/* ---- scan plans (for src/scan) ---------------------------------------------- */

/*
 * What the log says about each live file of a snapshot for skipping,
 * parsed once per snapshot (delta_scan_plan.c): per top-level column the
 * add.stats bounds and null count, and the typed partition values. Owned
 * by the snapshot handle, which builds it on the first request and frees
 * it with itself; memory is proportional to files x columns.
 * delta_snapshot_scan_plan returns 0, INLET_ENOMEM, or the codes of
 * delta_partition_value_append for a partition value (except
 * INLET_ECORRUPT: such a value is just unknown to skipping).
 */
typedef struct delta_scan_plan delta_scan_plan;
int delta_snapshot_scan_plan(const delta_scan_plan **out, const struct inlet_snapshot *s,
                             inlet_error *err);
/* The plan of @p s itself, owned by the caller (tests, one-file views). */
struct delta_snapshot;
int delta_scan_plan_build(delta_scan_plan **out, const struct delta_snapshot *s, inlet_error *err);
void delta_scan_plan_free(delta_scan_plan *p);
int64_t delta_scan_plan_num_files(const delta_scan_plan *p);
/* The file's row count as replay found it (delta_file.num_records). */
int64_t delta_scan_plan_log_rows(const delta_scan_plan *p, int64_t file);
/* Fills @p cols (one per column of the physical schema) with what
 * add.stats of @p file says: bounds (bytes lent by the plan), null counts
 * (-1 unknown) and the rows (numRecords, -1 unknown). */
void delta_scan_plan_stats(const delta_scan_plan *p, int64_t file, expr_colstats *cols);
/* Overwrites the partition columns of @p cols with @p file's values: a
 * value is min = max with no nulls, a null value makes every row of
 * cols[c].rows null (1 row when unknown), a value the type cannot hold
 * leaves the bounds unknown. */
void delta_scan_plan_partitions(const delta_scan_plan *p, int64_t file, expr_colstats *cols);
/* Plans built by this process so far (tests: a plan is built once per
 * snapshot, not per scan). */
int64_t delta_scan_plan_builds(void);

/* ---- snapshots ----------------------------------------------------------- */

typedef struct delta_file {
  delta_add add;       /* owned */
  int64_t num_records; /* from stats, -1 when unknown */
} delta_file;

typedef struct delta_txn_entry {
  char *app_id; /* owned */
  int64_t version;
  int64_t last_updated;
} delta_txn_entry;

typedef struct delta_snapshot {
  int64_t version;
  int64_t timestamp_ms;    /* commit timestamp of version */
  delta_protocol protocol; /* owned */
  delta_metadata metadata; /* owned */
  inlet_schema schema;     /* owned; parsed schemaString (empty if none) */
  bool has_schema;
  /* Column mapping (DELTA_CM_*): with a mode, phys_schema is schema's
   * physical twin (delta_schema_parse_physical), the names data files,
   * partitionValues and stats use; without one it is empty. */
  int cm_mode;
  inlet_schema phys_schema; /* owned */
  int64_t n_files;
  delta_file *files; /* owned, sorted by path */
  int64_t n_txns;
  delta_txn_entry *txns; /* owned */
  int64_t n_domains;
  delta_domain *domains; /* owned, non-removed only */
  int64_t n_tombstones;
  delta_remove *tombstones;   /* owned: removes not yet past delta.deletedFileRetentionDuration */
  int64_t checkpoint_version; /* checkpoint the replay started from, -1 none */
  int64_t n_commits_on_disk;
  int64_t n_dv_files; /* live files with a deletion vector (head and full snapshot) */
} delta_snapshot;

typedef enum delta_snap_mode {
  DELTA_SNAP_LATEST = 0,
  DELTA_SNAP_VERSION,
  DELTA_SNAP_TIMESTAMP
} delta_snap_mode;

/*
 * Loads the snapshot of the table in @p st (root absolute path @p root_abs).
 * @p mode/@p arg select latest, version arg, or the newest version whose
 * commit timestamp is <= arg (ms; delta_version_at_timestamp). Checks reader
 * version and features.
 * Returns 0, INLET_ENOTFOUND (no table / no such version), INLET_ECORRUPT
 * (gap, bad log, no protocol/metaData), INLET_EUNSUPPORTED (names the
 * feature), INLET_EIO, INLET_ENOMEM.
 */
int delta_snapshot_load(delta_snapshot *out, inlet_storage *st, const char *root_abs,
                        delta_snap_mode mode, int64_t arg, inlet_error *err);
/* The latest snapshot for what reads only the log (describe): no reader
 * version or feature check, deletion vectors allowed, and a schema with
 * types inlet cannot read leaves has_schema false instead of failing. Never
 * use it to read or write data files. */
/* The names data files, partitionValues and stats use for @p s's columns:
 * its phys_schema under column mapping, else its schema. */
const inlet_schema *delta_snapshot_physical(const delta_snapshot *s);
/* An exact key of @p add's partition values under @p s's partition columns
 * (looked up by physical name): two adds' keys are equal only when each
 * value is, byte for byte, a null (or an absent value) distinct from any
 * string. For grouping and counting partitions. Caller frees. 0,
 * INLET_ENOMEM. */
int delta_partition_key(char **key, const delta_add *add, const delta_snapshot *s,
                        inlet_error *err);
struct inlet_snapshot;
/* The same for a snapshot handle (scans in src/scan). */
const inlet_schema *delta_snapshot_handle_physical(const struct inlet_snapshot *s);
/* The storage of @p s's table (borrowed), e.g. to make the handles other
 * threads read through (storage.h "Threads"). */
inlet_storage *delta_snapshot_handle_storage(const struct inlet_snapshot *s);
/* Derives cm_mode and phys_schema of @p s from its metaData (after schema
 * is set). INLET_ECORRUPT for bad mapping metadata. */
int delta_snapshot_set_mapping(delta_snapshot *s, inlet_error *err);
int delta_snapshot_load_log(delta_snapshot *out, inlet_storage *st, const char *root_abs,
                            inlet_error *err);
/* delta_snapshot_load and delta_snapshot_load_log with the checkpoint's
 * files and the commits after it decoded on up to @p threads threads
 * (issue 18), applied in log order on the caller's thread: the same
 * snapshot and the same errors whatever @p threads. No thread is made for
 * @p threads < 2, or on an object store (its handle is one thread's). */
int delta_snapshot_load_threads(delta_snapshot *out, inlet_storage *st, const char *root_abs,
                                delta_snap_mode mode, int64_t arg, int threads, inlet_error *err);
int delta_snapshot_load_log_threads(delta_snapshot *out, inlet_storage *st, const char *root_abs,
                                    int threads, inlet_error *err);
/* Like delta_snapshot_load, but starts from @p base (a snapshot of the same
 * table loaded earlier) when base->version <= the target, replaying only the
 * commits after it: the cost of a reload is then the live files plus the new
 * commits, not the history. */
int delta_snapshot_load_from(delta_snapshot *out, const delta_snapshot *base, inlet_storage *st,
                             const char *root_abs, delta_snap_mode mode, int64_t arg,
                             inlet_error *err);
/* The version time travel to @p ts (ms) selects, given the table's latest
 * snapshot (delta_timestamps.c: monotonized commit file times, in-commit
 * timestamps from their enablement version on). 0, INLET_ENOTFOUND (no
 * version that old), INLET_ECORRUPT, INLET_EIO, INLET_ENOMEM. */
int delta_version_at_timestamp(inlet_storage *st, const char *root_abs,
                               const delta_snapshot *latest, int64_t ts, int64_t *version,
                               inlet_error *err);
/* The newest version at most @p latest's whose commit timestamp (as
 * delta_version_at_timestamp times it) is <= @p ts: *@p version and its
 * *@p version_ts (ms), or -1 for both when every candidate is later.
 * Candidates start at *@p first: the earliest version that can be rebuilt
 * when @p recreatable, else the oldest commit in the log. 0,
 * INLET_ENOTFOUND (no commit), INLET_ECORRUPT, INLET_EIO, INLET_ENOMEM. */
int delta_commit_at_timestamp(inlet_storage *st, const char *root_abs, const delta_snapshot *latest,
                              int64_t ts, bool recreatable, int64_t *version, int64_t *version_ts,
                              int64_t *first, inlet_error *err);
/* Deep copy. 0, INLET_ENOMEM. */
int delta_snapshot_copy(delta_snapshot *dst, const delta_snapshot *src, inlet_error *err);
void delta_snapshot_reset(delta_snapshot *s);
/* Txn version of @p app_id in the snapshot, or -1. */
int64_t delta_snapshot_txn_version(const delta_snapshot *s, const char *app_id);

/* Streams the actions of a checkpoint to @p fn, every field kept
 * (delta_checkpoint.c): classic, multi-part, and UUID-named v2 ones (JSON
 * or Parquet, with the file actions of their sidecars). A missing or
 * unreadable sidecar is INLET_ECORRUPT naming it. */
typedef int (*delta_replay_fn)(void *ctx, const delta_action *a, inlet_error *err);
int delta_checkpoint_read(inlet_storage *st, const char *root_abs, const delta_checkpoint_ref *cp,
                          delta_replay_fn fn, void *ctx, inlet_error *err);
/* The same with the checkpoint's files (the parts of a multi-part one, the
 * sidecars of a v2 one) decoded side by side on @p pool (NULL or inline:
 * delta_checkpoint_read), their actions passed to @p fn on the caller's
 * thread in the order delta_checkpoint_read passes them, and the same
 * errors. The pool's tasks read through handles of their own
 * (storage.h inlet_storage_handles); storage whose reads cannot be spread
 * over threads (inlet_storage_threads_ok) is read on the caller's. */
struct util_pool;
int delta_checkpoint_read_par(inlet_storage *st, const char *root_abs,
                              const delta_checkpoint_ref *cp, struct util_pool *pool,
                              delta_replay_fn fn, void *ctx, inlet_error *err);
/* The sidecar files checkpoint @p cp names (file names inside
 * `_delta_log/_sidecars`), read from its own file(s) only: *@p names is an
 * owned array of *@p n owned strings (inlet_free each, then the array).
 * INLET_ENOTFOUND, INLET_ECORRUPT, INLET_EIO, INLET_ENOMEM. */
int delta_checkpoint_sidecars(char ***names, int64_t *n, inlet_storage *st,
                              const delta_checkpoint_ref *cp, inlet_error *err);
/* Writes the classic checkpoint of @p snap (delta_checkpoint_write.c) with
 * put-if-absent. INLET_EEXISTS (nothing written) when a checkpoint of that
 * version exists: the classic one, or one `_last_checkpoint` names (the
 * writers' automatic checkpoints look no further: no listing);
 * storage errors. @p progress (may be NULL) hears "checkpoint"/"writing" in
 * actions. */
int delta_checkpoint_write(inlet_storage *st, const delta_snapshot *snap,
                           inlet_progress_fn progress, void *progress_ctx, inlet_error *err);
/* The same after listing `_delta_log`: INLET_EEXISTS when a complete
 * checkpoint of the version exists in any form (classic, multi-part,
 * UUID-named v2), whoever wrote it (`inlet checkpoint`). */
int delta_checkpoint_write_checked(inlet_storage *st, const delta_snapshot *snap,
                                   inlet_progress_fn progress, void *progress_ctx,
                                   inlet_error *err);
/* delta_checkpoint_write (@p checked: _checked) on up to @p threads threads:
 * each file's column chunks encoded and compressed side by side, and a v2
 * checkpoint's sidecars written side by side (not on an object store, whose
 * handle is one thread's). The files' bytes are the same whatever
 * @p threads; no thread is made for @p threads < 2. */
int delta_checkpoint_write_threads(inlet_storage *st, const delta_snapshot *snap, bool checked,
                                   int threads, inlet_progress_fn progress, void *progress_ctx,
                                   inlet_error *err);

/* ---- transactions --------------------------------------------------------- */

typedef struct delta_txn delta_txn;

/* Starts a transaction reading version @p read_version (-1 = table creation,
 * the commit will be version 0). */
int delta_txn_begin(delta_txn **out, inlet_storage *st, const char *root_abs, int64_t read_version,
                    const char *operation, inlet_error *err);
void delta_txn_free(delta_txn *t);
/* Adds an action (deep-copied). Protocol/metaData/add/remove/txn/domain. */
int delta_txn_add_action(delta_txn *t, const delta_action *a, inlet_error *err);
/* Adds the remove action that retires live file @p a at @p now_ms. The
 * remove carries what identifies and describes the file (partition values,
 * size, stats, tags, its deletion vector, row tracking fields), as Spark's
 * do; @p data_change is false only for rewrites that keep the rows
 * (compaction). */
int delta_txn_remove_file(delta_txn *t, const delta_add *a, bool data_change, int64_t now_ms,
                          inlet_error *err);
/* An operation metric or parameter as Delta writes it in commitInfo: the
 * integer as a string, in @p buf (returned). */
const char *delta_metric_text(char buf[24], int64_t v);
/* operationParameters as raw JSON object text (copied). */
int delta_txn_set_params(delta_txn *t, const char *params_json, inlet_error *err);
/* operationParameters of one parameter @p name whose value is the JSON
 * object or array @p value (taken, even on failure) written as text, as
 * Spark writes "properties" and "newProtocol". */
struct json_t;
int delta_txn_set_json_param(delta_txn *t, const char *name, struct json_t *value,
                             inlet_error *err);
/* Adds (or replaces) the operationParameters entry @p name holding the
 * string @p text, beside those set before. */
int delta_txn_add_text_param(delta_txn *t, const char *name, const char *text, inlet_error *err);
/* The table the transaction commits to, from the metaData of the snapshot
 * it read: with delta.enableInCommitTimestamps=true every commit carries
 * commitInfo.inCommitTimestamp (monotonic across versions), with
 * delta.appendOnly=true a remove with dataChange=true is refused. Every
 * writer of an existing table calls it; a transaction holding a metaData
 * action (table creation) takes these from that action. */
void delta_txn_set_table(delta_txn *t, const delta_metadata *m);
/* Sets commitInfo.tags[@p key] = @p value (both copied), a string map as
 * Delta Spark writes it (e.g. "delta.rowTracking.preserved": "true").
 * 0, INLET_ENOMEM. */
int delta_txn_set_tag(delta_txn *t, const char *key, const char *value, inlet_error *err);
/* Require the commit to land exactly at read_version + 1 (strict mode). */
void delta_txn_set_strict(delta_txn *t, bool strict);
void delta_txn_set_max_attempts(delta_txn *t, int attempts);
/* Adds to operationMetrics.numOutputRows. */
void delta_txn_add_rows(delta_txn *t, int64_t rows);
/* The snapshot this transaction read (borrowed until commit): the version
 * checksum of the commit is derived from it when nothing landed between.
 * Only a full snapshot counts (its files: numFiles and tableSizeBytes come
 * from them); one without its file array (files == NULL) is not used, and
 * the previous version's checksum is used instead. */
void delta_txn_set_base(delta_txn *t, const delta_snapshot *base);
/* Extra operationMetrics: a JSON object (copied) merged into commitInfo's.
 * 0, INLET_EINVAL (not a JSON object), INLET_ENOMEM. */
int delta_txn_set_extra_metrics(delta_txn *t, const char *metrics_json, inlet_error *err);
/*
 * Commits: writes a temp file, publishes it with put_if_absent, retries
 * non-conflicting losses at the next version. *version receives the
 * committed version. Returns 0, INLET_ECONFLICT (kind in the message, strict
 * mode lost, or every attempt lost: "gave up committing after N attempts"),
 * INLET_EEXISTS (creating a table that exists), INLET_EIO, INLET_ECORRUPT,
 * INLET_ENOMEM, INLET_ELIMIT (the version limit).
 */
int delta_txn_commit(delta_txn *t, int64_t *version, inlet_error *err);
/* After a failed delta_txn_commit: true when publishing failed in a way
 * that may have left the entry in the log (an I/O error that could not be
 * told apart from success). The data files it references must then stay;
 * vacuum removes them if the log never names them. */
bool delta_txn_maybe_published(const delta_txn *t);
/* After a successful delta_txn_commit: feeds @p cb the actions of the
 * commit file in its order (commitInfo first), as a replay of it would see
 * them, without reading it back. A callback returning nonzero stops with
 * that code; INLET_EINVAL before a commit. */
int delta_txn_replay(const delta_txn *t, delta_action_cb cb, void *ctx, inlet_error *err);

/* ---- small helpers --------------------------------------------------------- */

void delta_uuid4(char out[37]);
int64_t delta_now_ms(void);
uint64_t delta_random_u64(void);
/* Formats microseconds since the epoch as "YYYY-MM-DDTHH:MM:SS.ffffff" into
 * out (no zone suffix). */
void delta_format_micros(char out[40], int64_t micros, int frac_digits);
void delta_format_date(char out[24], int32_t days);
/* Delta's date and timestamp strings ("YYYY-MM-DD[ T]HH:MM[:SS[.f{1,9}]]
 * [Z|±HH:MM]") in the grammar of util/datetime.h; timestamps into micros
 * (UTC when a zone is given, else as-is). Return false when malformed. */
bool delta_parse_timestamp(const char *s, int64_t *micros);
bool delta_parse_date(const char *s, int32_t *days);
/* Decimal128 (16 bytes little-endian) as plain text with @p scale digits. */
void delta_format_decimal(char *buf, size_t cap, const uint8_t *le, int scale);
/* Shortest text that reads back as the same value ("NaN", "Infinity" too). */
void delta_format_double(char *buf, size_t cap, double v, bool is_float);

/* Metadata cleanup (delta_log_cleanup.c): removes commits, checksums,
 * classic/multi-part checkpoints and log compactions older than the
 * retention (retain_ms < 0: delta.logRetentionDuration of @p s, default 30
 * days) that lie below the newest readable checkpoint needed to rebuild
 * every version inside the window (UUID-named v2 checkpoints among them),
 * then the sidecar files no remaining checkpoint names once they are older
 * than the retention and a day; never files it does not know. now_ms 0 =
 * the clock. */
typedef struct delta_log_cleanup_result {
  int64_t commits_removed;
  int64_t checkpoints_removed;
  int64_t oldest_kept;      /* the boundary checkpoint's version, -1 when none */
  int64_t oldest_left;      /* oldest commit/checkpoint/crc version left, -1 when none */
  int64_t sidecars_removed; /* files of _delta_log/_sidecars no checkpoint names */
} delta_log_cleanup_result;
int delta_log_cleanup(delta_log_cleanup_result *out, inlet_storage *st, const delta_snapshot *s,
                      int64_t retain_ms, int64_t now_ms, bool dry_run, inlet_error *err);
/* The same knowing only the latest version and its metadata (retention). */
int delta_log_cleanup_at(delta_log_cleanup_result *out, inlet_storage *st, const delta_protocol *p,
                         const delta_metadata *m, int64_t version, int64_t retain_ms,
                         int64_t now_ms, bool dry_run, inlet_error *err);
/* The cleanup a writer runs after each checkpoint. @p *oldest is a version
 * below which the log holds no commit, checkpoint or crc file (0 when
 * nothing is known); when the commit at *oldest exists and is inside the
 * window, nothing can be cleaned and the directory is not listed. Otherwise
 * delta_log_cleanup runs and *oldest becomes the oldest version it left.
 * 0 or its codes. */
int delta_log_cleanup_if_due(inlet_storage *st, const delta_snapshot *s, int64_t *oldest,
                             inlet_error *err);

#endif /* INLET_DELTA_H */
