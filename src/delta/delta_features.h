/*
 * Table features (PROTOCOL.md "Table Features", "Writer Version
 * Requirements", "Reader Version Requirements", "Valid Feature Names in
 * Table Features"): the one writer-feature gate every path that writes to a
 * table goes through, and the protocol a new table needs.
 *
 * A table is written only when inlet meets every obligation of every writer
 * feature the table supports (listed on writer version 7, implied by a legacy
 * writer version 2 to 6) for the operation at hand; otherwise the refusal
 * names the feature. Which operations honour which feature is one table in
 * delta_features.c.
 */
#ifndef INLET_DELTA_FEATURES_H
#define INLET_DELTA_FEATURES_H

#include "delta/delta.h"

/* What a writer is about to do to a table. */
typedef enum delta_write_op {
  DELTA_OP_APPEND = 0,  /* commit new rows: append, ingest */
  DELTA_OP_COMPACT,     /* rewrite files with dataChange=false */
  DELTA_OP_CHECKPOINT,  /* write a checkpoint */
  DELTA_OP_LOG_CLEANUP, /* delete expired commits and checkpoints */
  DELTA_OP_VACUUM,      /* delete data files the log no longer references */
  DELTA_OP_CREATE,      /* create the table: every later operation must be honoured */
  DELTA_OP_RESTORE      /* re-add and remove whole files, restore an earlier metaData */
} delta_write_op;

/* The caller computes the values of generated columns itself (ingest). */
#define DELTA_WRITE_COMPUTES_GENERATED 1u

/*
 * 0 when inlet may perform @p op on a table with protocol @p p and metaData
 * @p m; INLET_EUNSUPPORTED naming the feature (or writer version) otherwise,
 * also when the metadata turns on a feature the protocol does not support (a
 * table Spark refuses: DELTA_FEATURES_PROTOCOL_METADATA_MISMATCH).
 * @p flags: DELTA_WRITE_* bits.
 */
int delta_features_check_write(const delta_protocol *p, const delta_metadata *m, delta_write_op op,
                               unsigned flags, inlet_error *err);

/* True when @p p supports feature @p name: listed on writer version 7 (or
 * reader version 3), implied by a legacy version otherwise. */
bool delta_protocol_supports(const delta_protocol *p, const char *name);

/*
 * The protocol and stored configuration of a new table whose schemaString is
 * @p schema_json and whose properties are @p keys / @p values (Spark's
 * Protocol.forNewTable: legacy versions when they name exactly the features
 * in use, else writer version 7 listing them all). delta.minReaderVersion,
 * delta.minWriterVersion, delta.ignoreProtocolDefaults and delta.feature.*
 * are protocol requests and are not stored; known delta.* keys are stored
 * under their canonical spelling; unknown delta.* keys are refused, and so
 * is any feature inlet cannot honour on every operation (the message names
 * it). 0, INLET_EINVAL, INLET_EUNSUPPORTED, INLET_ENOMEM. The caller frees
 * *proto (delta_protocol_reset) and *conf (keys, values, array).
 */
int delta_features_new_table(delta_protocol *proto, delta_kv **conf, int32_t *n_conf,
                             const char *schema_json, const char *const *keys,
                             const char *const *values, int32_t n, inlet_error *err);

/*
 * The protocol @p np and configuration (in @p nm, a copy of the table's
 * metaData, changed in place) after setting properties @p keys / @p values
 * on a table with protocol @p p, as Spark's ALTER TABLE ... SET
 * TBLPROPERTIES: known delta.* keys are checked and stored under their
 * canonical spelling, other namespaces stored as given ("comment" sets
 * nm->description; "location", "provider" INLET_EINVAL), delta.feature.NAME
 * adds a feature; the protocol keeps every feature it supports and gains
 * those the properties turn on (a legacy protocol becomes writer version 7
 * listing them all when no legacy one fits). Refused (INLET_EUNSUPPORTED,
 * naming the key): properties whose enablement needs more than this commit
 * (CHECK constraints, column mapping, in-commit timestamps, Iceberg
 * compatibility, row tracking on: see alter_refusal), and any feature inlet
 * cannot honour on every operation. *protocol_changed / *conf_changed say
 * what differs. 0, INLET_EINVAL, INLET_EUNSUPPORTED, INLET_ENOMEM; the
 * caller frees *np (delta_protocol_reset).
 */
int delta_features_alter(delta_protocol *np, bool *protocol_changed, bool *conf_changed,
                         delta_metadata *nm, const delta_protocol *p, const char *const *keys,
                         const char *const *values, int32_t n, inlet_error *err);

/*
 * Removes the properties @p keys from @p nm (a copy of the table's metaData,
 * changed in place), as Spark's ALTER TABLE ... UNSET TBLPROPERTIES [IF
 * EXISTS]: delta.* keys matched whatever their case, others exactly; a key
 * not set is INLET_ENOTFOUND unless @p if_exists. The protocol @p p stays
 * as it is (features are never dropped here). Refused (INLET_EUNSUPPORTED,
 * naming the key): keys whose removal needs work inlet does not do or that
 * writers rely on (column mapping, in-commit timestamps, row tracking's
 * materialized column names, Iceberg compatibility, delta.feature.*,
 * protocol versions: see unset_refusal). *conf_changed says whether a key
 * was removed. 0, INLET_EINVAL, INLET_ENOTFOUND, INLET_EUNSUPPORTED.
 */
int delta_features_unset(delta_metadata *nm, bool *conf_changed, const delta_protocol *p,
                         const char *const *keys, int32_t n, bool if_exists, inlet_error *err);

/* Refuses column names (nested ones too) that Delta allows only with column
 * mapping: ' ', ',', ';', '{', '}', '(', ')', newline, tab, '='; with
 * @p mapped (the table maps names) they are fine. */
int delta_features_check_column_names(const inlet_schema *schema, bool mapped, inlet_error *err);
/* The first character of @p name that Delta allows in a column name only
 * under column mapping, described ("a space", "','"), or NULL if none. */
const char *delta_name_needs_mapping(const char *name);

/*
 * @p in with writer feature @p name (and the feature it requires) supported,
 * into *@p out (caller resets): a legacy writer version becomes 7 listing the
 * features the old versions implied (Spark's Protocol.merge with a
 * table-features protocol); the reader version stays. Writer-only features
 * only. 0, INLET_EINVAL (unknown or reader-writer feature), INLET_ENOMEM.
 */
int delta_protocol_with_writer_feature(delta_protocol *out, const delta_protocol *in,
                                       const char *name, inlet_error *err);

/* True when @p m turns in-commit timestamps on (delta.enableInCommitTimestamps). */
bool delta_ict_enabled(const delta_metadata *m);

/* True when writers may widen column types (PROTOCOL.md "Type Widening"):
 * @p p lists the typeWidening feature and @p m sets
 * delta.enableTypeWidening=true. The -preview feature is left alone: its
 * typeChanges carry a tableVersion inlet does not write. */
bool delta_type_widening_enabled(const delta_protocol *p, const delta_metadata *m);

#endif /* INLET_DELTA_FEATURES_H */
