/*
 * The writer-feature gate (delta_features.h).
 *
 * Spec: PROTOCOL.md "Table Features" (writers must implement and respect
 * every feature in writerFeatures, and the reader features too), "Writer
 * Version Requirements" (legacy writer versions 2..6 imply appendOnly and
 * invariants, checkConstraints, changeDataFeed and generatedColumns,
 * columnMapping, identityColumns), "Active Features" (a supported feature
 * constrains writers once the metadata turns it on), and each feature's
 * "Writer Requirements" section. Which feature the metadata turns on follows
 * Spark's TableFeature.metadataRequiresFeatureToBeEnabled.
 *
 * Each known feature says for which operations inlet meets its obligations
 * (`honoured`), and, for features whose obligations only bite when the
 * metadata uses them (an invariant on a column, a CHECK constraint, a
 * generation expression...), what that use is (`burden`): a table whose
 * feature is supported but unused is written like any other.
 */
#include <jansson.h>
#include <stdio.h>
#include <strings.h>

#include "codec/codec.h"
#include "delta/delta_features.h"
#include "util/duration.h"
#include "util/util.h"

/* Flip each to true when the constraint evaluator enforces delta.invariants
 * (column metadata) / delta.constraints.* (table properties) on every row
 * that append, ingest and compaction commit. */
#define INLET_ENFORCES_INVARIANTS true
#define INLET_ENFORCES_CHECK_CONSTRAINTS true

enum {
  OP_APPEND = 1u << DELTA_OP_APPEND,
  OP_COMPACT = 1u << DELTA_OP_COMPACT,
  OP_CHECKPOINT = 1u << DELTA_OP_CHECKPOINT,
  OP_LOG_CLEANUP = 1u << DELTA_OP_LOG_CLEANUP,
  OP_VACUUM = 1u << DELTA_OP_VACUUM,
  /* Restore commits files and a metaData that an earlier version already
   * had: a feature is honoured when that earlier state met its duties and
   * carrying the actions over unchanged keeps meeting them. Not part of
   * ALL_OPS: a new table need not be restorable. */
  OP_RESTORE = 1u << DELTA_OP_RESTORE,
  /* Create needs every operation of ALL_OPS honoured, and a feature whose
   * table inlet can create: a row that lists the operations one by one
   * instead of ALL_OPS (clustering: no commit tracks clustering columns)
   * keeps create refused. */
  OP_CREATE = 1u << DELTA_OP_CREATE,
  /* operations that commit no rows and rewrite no data file */
  NO_ROWS = OP_CHECKPOINT | OP_LOG_CLEANUP | OP_VACUUM,
  ALL_OPS = OP_APPEND | OP_COMPACT | NO_ROWS | OP_CREATE
};

/* What the schemaString uses, found once per check. */
typedef struct schema_traits {
  json_t *root;          /* owns the strings below */
  const char *not_null;  /* a NOT NULL column (struct nesting included) */
  const char *invariant; /* a column with delta.invariants */
  const char *generated; /* a column with delta.generationExpression */
  const char *identity;  /* a column with delta.identity.* */
  const char *defaulted; /* a column with CURRENT_DEFAULT */
  const char *ntz;       /* a timestamp_ntz column */
  const char *variant;   /* a variant column */
} schema_traits;

typedef struct feat_ctx {
  const delta_protocol *p;
  const delta_metadata *m;
  unsigned flags;
  schema_traits t;
} feat_ctx;

/* Writes what turns the feature on (or what burdens writers) into @p why
 * and returns true; false when the metadata does not. */
typedef bool (*feat_use_fn)(const feat_ctx *c, char *why, size_t cap);

typedef struct feature {
  const char *name;
  bool reader_writer;
  int legacy_reader, legacy_writer; /* legacy features: the versions implying them; else 0 */
  const char *requires;             /* a feature this one depends on, or NULL */
  feat_use_fn enabled;              /* the metadata turns it on (Spark), NULL: only by request */
  feat_use_fn burden; /* obligations inlet may not meet apply; NULL: whenever supported */
  unsigned honoured;  /* OP_* bits whose obligations inlet meets even under burden */
  const char *duty;   /* what writers must do, for messages */
} feature;

/* ---- metadata tests -------------------------------------------------------- */

static bool conf_true(const delta_metadata *m, const char *key) {
  const char *v = delta_metadata_conf(m, key);
  return v && strcasecmp(v, "true") == 0;
}

static bool prop_true(const feat_ctx *c, const char *key, char *why, size_t cap) {
  if (!conf_true(c->m, key)) return false;
  snprintf(why, cap, "table property %s=true", key);
  return true;
}

static bool column(const char *col, const char *what, char *why, size_t cap) {
  if (!col) return false;
  snprintf(why, cap, "column \"%s\" %s", col, what);
  return true;
}

static bool use_append_only(const feat_ctx *c, char *why, size_t cap) {
  return prop_true(c, "delta.appendOnly", why, cap);
}
static bool use_invariants(const feat_ctx *c, char *why, size_t cap) {
  return column(c->t.invariant, "has a delta.invariants expression", why, cap) ||
         column(c->t.not_null, "is NOT NULL", why, cap);
}
static bool burden_invariants(const feat_ctx *c, char *why, size_t cap) {
  /* NOT NULL is enforced by every writer (a batch with a null there is
   * refused); expressions need the evaluator. */
  return column(c->t.invariant, "has a delta.invariants expression", why, cap);
}
static bool use_constraints(const feat_ctx *c, char *why, size_t cap) {
  for (int32_t i = 0; i < c->m->n_configuration; i++)
    if (strncmp(c->m->configuration[i].key, "delta.constraints.", 18) == 0) {
      snprintf(why, cap, "CHECK constraint %s", c->m->configuration[i].key);
      return true;
    }
  return false;
}
static bool use_cdf(const feat_ctx *c, char *why, size_t cap) {
  return prop_true(c, "delta.enableChangeDataFeed", why, cap) ||
         prop_true(c, "delta.enableChangeDataCapture", why, cap);
}
static bool use_generated(const feat_ctx *c, char *why, size_t cap) {
  return column(c->t.generated, "has a generation expression", why, cap);
}
static bool burden_generated(const feat_ctx *c, char *why, size_t cap) {
  return !(c->flags & DELTA_WRITE_COMPUTES_GENERATED) && use_generated(c, why, cap);
}
static bool use_column_mapping(const feat_ctx *c, char *why, size_t cap) {
  const char *v = delta_metadata_conf(c->m, "delta.columnMapping.mode");
  if (!v || strcasecmp(v, "none") == 0) return false;
  snprintf(why, cap, "table property delta.columnMapping.mode=%s", v);
  return true;
}
static bool use_identity(const feat_ctx *c, char *why, size_t cap) {
  return column(c->t.identity, "is an identity column", why, cap);
}
static bool use_defaults(const feat_ctx *c, char *why, size_t cap) {
  return column(c->t.defaulted, "has a default value (CURRENT_DEFAULT)", why, cap);
}
static bool use_ntz(const feat_ctx *c, char *why, size_t cap) {
  return column(c->t.ntz, "is a timestamp_ntz", why, cap);
}
static bool use_dv(const feat_ctx *c, char *why, size_t cap) {
  return prop_true(c, "delta.enableDeletionVectors", why, cap);
}
static bool use_row_tracking(const feat_ctx *c, char *why, size_t cap) {
  return prop_true(c, "delta.enableRowTracking", why, cap);
}
static bool use_v2_checkpoint(const feat_ctx *c, char *why, size_t cap) {
  const char *v = delta_metadata_conf(c->m, "delta.checkpointPolicy");
  if (!v || strcasecmp(v, "v2") != 0) return false;
  snprintf(why, cap, "table property delta.checkpointPolicy=%s", v);
  return true;
}
static bool use_ict(const feat_ctx *c, char *why, size_t cap) {
  return prop_true(c, "delta.enableInCommitTimestamps", why, cap);
}
static bool use_type_widening(const feat_ctx *c, char *why, size_t cap) {
  return !delta_protocol_supports(c->p, "typeWidening-preview") &&
         prop_true(c, "delta.enableTypeWidening", why, cap);
}
static bool use_iceberg_v1(const feat_ctx *c, char *why, size_t cap) {
  return prop_true(c, "delta.enableIcebergCompatV1", why, cap);
}
static bool use_iceberg_v2(const feat_ctx *c, char *why, size_t cap) {
  return prop_true(c, "delta.enableIcebergCompatV2", why, cap);
}
static bool use_iceberg_v3(const feat_ctx *c, char *why, size_t cap) {
  return prop_true(c, "delta.enableIcebergCompatV3", why, cap);
}
static bool use_variant(const feat_ctx *c, char *why, size_t cap) {
  return !delta_protocol_supports(c->p, "variantType-preview") &&
         column(c->t.variant, "is a variant", why, cap);
}
static bool use_shredding(const feat_ctx *c, char *why, size_t cap) {
  return !delta_protocol_supports(c->p, "variantShredding-preview") &&
         prop_true(c, "delta.enableVariantShredding", why, cap);
}
static bool use_materialize(const feat_ctx *c, char *why, size_t cap) {
  return prop_true(c, "delta.enableMaterializePartitionColumnsFeature", why, cap);
}
static bool use_coordinated(const feat_ctx *c, char *why, size_t cap) {
  const char *k = "delta.coordinatedCommits.commitCoordinator-preview";
  if (!delta_metadata_conf(c->m, k)) return false;
  snprintf(why, cap, "table property %s", k);
  return true;
}

/* ---- the features inlet knows ------------------------------------------------ */

static const feature FEATURES[] = {
    /* legacy writer features (writer versions 2..6) */
    {"appendOnly", false, 0, 2, NULL, use_append_only, NULL, ALL_OPS | OP_RESTORE,
     "no commit may change or remove data"},
    {"invariants", false, 0, 2, NULL, use_invariants, burden_invariants,
     INLET_ENFORCES_INVARIANTS ? ALL_OPS | OP_RESTORE : NO_ROWS,
     "writers must reject rows that violate a column's delta.invariants expression"},
    {"checkConstraints", false, 0, 3, NULL, use_constraints, use_constraints,
     INLET_ENFORCES_CHECK_CONSTRAINTS ? ALL_OPS | OP_RESTORE : NO_ROWS,
     "writers must reject rows that violate a CHECK constraint"},
    /* Appends and dataChange=false rewrites need no change data files
     * ("Change Data Files": add-only operations may skip them). */
    {"changeDataFeed", false, 0, 4, NULL, use_cdf, NULL, ALL_OPS | OP_RESTORE,
     "writers must write change data files for updates and deletes"},
    {"generatedColumns", false, 0, 4, NULL, use_generated, burden_generated,
     NO_ROWS | OP_COMPACT | OP_RESTORE, "writers must compute or check generated column values"},
    /* Create assigns ids and physical names (delta_column_mapping_assign);
     * appends, ingest, compaction and delete (gated as compaction) write
     * physical names, field ids and physical partitionValues/stats keys
     * (delta_write.c; compact.c and delete.c read input columns by physical
     * field); checkpoints keep the mapping (stats as JSON only); restore
     * keeps maxColumnId from going down and the mode from changing
     * (restore.c). */
    {"columnMapping", true, 2, 5, NULL, use_column_mapping, use_column_mapping,
     ALL_OPS | OP_RESTORE, "writers must write physical column names and field ids"},
    {"identityColumns", false, 0, 6, NULL, use_identity, use_identity, NO_ROWS | OP_COMPACT,
     "writers must generate identity values and track their high water mark"},
    /* table features (writer version 7) */
    {"timestampNtz", true, 0, 0, NULL, use_ntz, NULL, ALL_OPS | OP_RESTORE, ""},
    /* Scans and compaction apply deletion vectors, delete writes them with
     * numRecords in stats, vacuum judges their files like data files. */
    {"deletionVectors", true, 0, 0, NULL, use_dv, NULL, ALL_OPS | OP_RESTORE,
     "files with deletion vectors need numRecords"},
    {"domainMetadata", false, 0, 0, NULL, NULL, NULL, ALL_OPS | OP_RESTORE,
     "writers must preserve every metadata domain"},
    {"vacuumProtocolCheck", true, 0, 0, NULL, NULL, NULL, ALL_OPS | OP_RESTORE,
     "vacuum must check the writer protocol"},
    {"inCommitTimestamp", false, 0, 0, NULL, use_ict, NULL, ALL_OPS | OP_RESTORE,
     "every commit must carry a monotonic inCommitTimestamp"},
    /* inlet never changes a column's type, and reads widened columns. */
    {"typeWidening", true, 0, 0, NULL, use_type_widening, NULL, ALL_OPS | OP_RESTORE, ""},
    {"typeWidening-preview", true, 0, 0, NULL, NULL, NULL, ALL_OPS | OP_RESTORE, ""},
    /* Checkpoints follow delta.checkpointPolicy (UUID-named v2 ones with
     * sidecars: delta_checkpoint_v2.c); log cleanup removes expired v2
     * checkpoints and only the sidecars no remaining checkpoint names. */
    {"v2Checkpoint", true, 0, 0, NULL, use_v2_checkpoint, NULL, ALL_OPS | OP_RESTORE,
     "checkpoints must follow the v2 spec and log cleanup must keep their sidecars"},
    {"checkpointProtection", false, 0, 0, NULL, NULL, NULL,
     OP_APPEND | OP_COMPACT | OP_CHECKPOINT | OP_VACUUM | OP_RESTORE,
     "log cleanup must truncate history up to delta.requireCheckpointProtectionBeforeVersion "
     "in one go"},
    {"allowColumnDefaults", false, 0, 0, NULL, NULL, use_defaults,
     NO_ROWS | OP_COMPACT | OP_RESTORE, "writers must fill in column default values"},
    /* Every commit assigns baseRowId and defaultRowCommitVersion to the adds
     * that lack them and keeps the delta.rowTracking high-water mark
     * (delta_commit.c, per attempt); recommitted adds (deletion vectors,
     * restore) keep theirs; compaction and copy-on-write delete write the
     * materialized row id and row commit version columns
     * (delta_row_tracking.c); checkpoints keep the fields and every domain
     * (delta_checkpoint_write.c); create names the materialized columns. */
    {"rowTracking", false, 0, 0, "domainMetadata", use_row_tracking, NULL, ALL_OPS | OP_RESTORE,
     "writers must assign row ids and row commit versions"},
    {"clustering", false, 0, 0, "domainMetadata", NULL, NULL, NO_ROWS,
     "writers must track clustering columns and clusteringProvider"},
    {"materializePartitionColumns", false, 0, 0, NULL, use_materialize, NULL, NO_ROWS,
     "writers must store partition columns in the data files"},
    {"icebergCompatV1", false, 0, 0, "columnMapping", use_iceberg_v1, NULL, 0,
     "writers must keep the table Iceberg-compatible"},
    {"icebergCompatV2", false, 0, 0, "columnMapping", use_iceberg_v2, NULL, 0,
     "writers must keep the table Iceberg-compatible"},
    {"icebergCompatV3", false, 0, 0, "columnMapping", use_iceberg_v3, NULL, 0,
     "writers must keep the table Iceberg-compatible"},
    /* Writers encode each variant's JSON text (variant_encode.c) into the
     * group of value and metadata Spark writes, with a nullCount and no
     * min/max (delta_variant.c, delta_stats.c); compaction and delete copy
     * the stored bytes unchanged. */
    {"variantType", true, 0, 0, NULL, use_variant, NULL, ALL_OPS | OP_RESTORE,
     "writers must write variant values"},
    {"variantType-preview", true, 0, 0, NULL, NULL, NULL, ALL_OPS | OP_RESTORE,
     "writers must write variant values"},
    /* PROTOCOL.md "Writer Requirements for Variant Shredding": writers "can
     * choose to shred" where it is enabled and "are free to write variant
     * columns in the unshredded format"; where it is only supported they
     * must not shred. inlet never shreds, so both hold. Reads, compaction
     * and copy-on-write delete rebuild shredded values unshredded
     * (variant_unshred.c; delta_scan.c conform_variant, unshred_variant). */
    {"variantShredding", true, 0, 0, "variantType", use_shredding, NULL, ALL_OPS | OP_RESTORE,
     "writers may shred variant values, or write them unshredded"},
    {"variantShredding-preview", true, 0, 0, "variantType-preview", NULL, NULL,
     ALL_OPS | OP_RESTORE, "writers may shred variant values, or write them unshredded"},
    {"catalogManaged", true, 0, 0, NULL, NULL, NULL, 0, "commits must go through the catalog"},
    {"catalogOwned-preview", true, 0, 0, NULL, NULL, NULL, 0,
     "commits must go through the catalog"},
    {"coordinatedCommits-preview", false, 0, 0, NULL, use_coordinated, NULL, 0,
     "commits must go through the commit coordinator"},
    {"redirectReaderWriter-preview", true, 0, 0, NULL, NULL, NULL, 0,
     "the table is redirected elsewhere"},
    {"redirectWriterOnly-preview", false, 0, 0, NULL, NULL, NULL, 0,
     "the table is redirected elsewhere"},
    {"geospatial", true, 0, 0, NULL, NULL, NULL, 0, "writers must write geospatial values"},
    {"geospatial-dev", true, 0, 0, NULL, NULL, NULL, 0, "writers must write geospatial values"},
};
#define N_FEATURES (sizeof FEATURES / sizeof FEATURES[0])

static const feature *find_feature(const char *name) {
  for (size_t i = 0; i < N_FEATURES; i++)
    if (strcasecmp(FEATURES[i].name, name) == 0) return &FEATURES[i];
  return NULL;
}

/* ---- schema traits ------------------------------------------------------------- */

static void note(const char **slot, const char *name) {
  if (!*slot) *slot = name;
}

static void walk_type(schema_traits *t, json_t *type, const char *name, bool in_struct_path);

/* Spark looks for NOT NULL and invariants through struct nesting only
 * (SchemaUtils.filterRecursively with checkComplexTypes = false), for
 * generation, identity and default expressions at the top level only. */
static void walk_fields(schema_traits *t, json_t *st, bool top, bool in_struct_path) {
  json_t *fields = json_object_get(st, "fields");
  size_t i;
  json_t *f;
  json_array_foreach(fields, i, f) {
    const char *name = json_string_value(json_object_get(f, "name"));
    if (!name) continue;
    json_t *md = json_object_get(f, "metadata");
    if (in_struct_path) {
      if (json_is_false(json_object_get(f, "nullable"))) note(&t->not_null, name);
      if (json_object_get(md, "delta.invariants")) note(&t->invariant, name);
    }
    if (top) {
      if (json_object_get(md, "delta.generationExpression")) note(&t->generated, name);
      if (json_object_get(md, "CURRENT_DEFAULT")) note(&t->defaulted, name);
      const char *k;
      json_t *v;
      json_object_foreach(md, k, v) {
        if (strncmp(k, "delta.identity.", 15) == 0) note(&t->identity, name);
      }
    }
    walk_type(t, json_object_get(f, "type"), name, in_struct_path);
  }
}

static void walk_type(schema_traits *t, json_t *type, const char *name, bool in_struct_path) {
  if (json_is_string(type)) {
    const char *s = json_string_value(type);
    if (strcmp(s, "timestamp_ntz") == 0) note(&t->ntz, name);
    if (strcmp(s, "variant") == 0) note(&t->variant, name);
    return;
  }
  const char *kind = json_string_value(json_object_get(type, "type"));
  if (!kind) return;
  if (strcmp(kind, "struct") == 0) {
    walk_fields(t, type, false, in_struct_path);
  } else if (strcmp(kind, "array") == 0) {
    walk_type(t, json_object_get(type, "elementType"), name, false);
  } else if (strcmp(kind, "map") == 0) {
    walk_type(t, json_object_get(type, "keyType"), name, false);
    walk_type(t, json_object_get(type, "valueType"), name, false);
  }
}

static void traits_init(schema_traits *t, const delta_metadata *m) {
  memset(t, 0, sizeof *t);
  if (!m->schema_string) return;
  t->root = json_loads(m->schema_string, 0, NULL);
  if (json_is_object(t->root)) walk_fields(t, t->root, true, true);
}

static void traits_reset(schema_traits *t) {
  json_decref(t->root);
  memset(t, 0, sizeof *t);
}

/* ---- support ---------------------------------------------------------------------- */

static bool listed(char *const *names, int32_t n, const char *name) {
  for (int32_t i = 0; i < n; i++)
    if (strcmp(names[i], name) == 0) return true;
  return false;
}

/* A legacy protocol implies its legacy features (Spark's
 * implicitlySupportedFeatures: both versions must reach the feature's). */
static bool implied(const delta_protocol *p, const feature *f) {
  return f->legacy_writer > 0 && p->min_writer < 7 && p->min_writer >= f->legacy_writer &&
         p->min_reader >= (f->legacy_reader ? f->legacy_reader : 1);
}

bool delta_protocol_supports(const delta_protocol *p, const char *name) {
  if (p->min_writer >= 7 && listed(p->writer_features, p->n_writer_features, name)) return true;
  if (p->min_reader >= 3 && listed(p->reader_features, p->n_reader_features, name)) return true;
  const feature *f = find_feature(name);
  return f && implied(p, f);
}

static int list_writer_feature(delta_protocol *p, const char *name, inlet_error *err) {
  if (listed(p->writer_features, p->n_writer_features, name)) return 0;
  char **nf = inlet_realloc(p->writer_features, ((size_t)p->n_writer_features + 1) * sizeof *nf);
  FAIL_IF(!nf, err, INLET_ENOMEM, "out of memory upgrading the protocol");
  p->writer_features = nf;
  nf[p->n_writer_features] = inlet_strdup(name);
  FAIL_IF(!nf[p->n_writer_features], err, INLET_ENOMEM, "out of memory upgrading the protocol");
  p->n_writer_features++;
  return 0;
}

int delta_protocol_with_writer_feature(delta_protocol *out, const delta_protocol *in,
                                       const char *name, inlet_error *err) {
  const feature *f = find_feature(name);
  FAIL_IF(!f || f->reader_writer || f->legacy_writer > 0, err, INLET_EINVAL,
          "\"%s\" is not a writer-only table feature", name);
  TRY(delta_protocol_copy(out, in, err));
  int rc = 0;
  if (out->min_writer < 7) {
    /* The features the legacy versions implied stay supported by name. */
    for (size_t i = 0; i < N_FEATURES && rc == 0; i++)
      if (implied(in, &FEATURES[i])) rc = list_writer_feature(out, FEATURES[i].name, err);
    out->min_writer = 7;
  }
  if (rc == 0 && f->requires) rc = list_writer_feature(out, f->requires, err);
  if (rc == 0) rc = list_writer_feature(out, name, err);
  if (rc < 0) delta_protocol_reset(out);
  return rc;
}

bool delta_ict_enabled(const delta_metadata *m) {
  return conf_true(m, "delta.enableInCommitTimestamps");
}

bool delta_type_widening_enabled(const delta_protocol *p, const delta_metadata *m) {
  return delta_protocol_supports(p, "typeWidening") && conf_true(m, "delta.enableTypeWidening");
}

/* ---- the gate ------------------------------------------------------------------------ */

static const char *op_verb(delta_write_op op) {
  switch (op) {
  case DELTA_OP_APPEND: return "append to";
  case DELTA_OP_COMPACT: return "compact";
  case DELTA_OP_CHECKPOINT: return "checkpoint";
  case DELTA_OP_LOG_CLEANUP: return "clean up the log of";
  case DELTA_OP_VACUUM: return "vacuum";
  case DELTA_OP_CREATE: return "create";
  case DELTA_OP_RESTORE: return "restore";
  }
  return "write";
}

static unsigned op_bits(delta_write_op op) {
  return op == DELTA_OP_CREATE ? ALL_OPS : 1u << op; /* ALL_OPS holds OP_CREATE */
}

/* Refuses @p f when the table supports it and inlet cannot meet what it
 * demands of @p op. */
static int check_feature(const feat_ctx *c, const feature *f, delta_write_op op, inlet_error *err) {
  unsigned need = op_bits(op);
  if ((f->honoured & need) == need) return 0;
  char why[512] = "";
  if (f->burden && !f->burden(c, why, sizeof why)) return 0;
  if (!f->burden && f->enabled && !f->enabled(c, why, sizeof why)) why[0] = '\0';
  if (*why)
    return inlet_fail(err, INLET_EUNSUPPORTED,
                      "cannot %s this table: %s, which needs writer feature \"%s\" (%s); inlet "
                      "does not implement that",
                      op_verb(op), why, f->name, f->duty);
  return inlet_fail(err, INLET_EUNSUPPORTED,
                    "cannot %s this table: it requires writer feature \"%s\" (%s), which inlet "
                    "does not implement",
                    op_verb(op), f->name, f->duty);
}

static int check_named(const feat_ctx *c, const char *name, delta_write_op op, inlet_error *err) {
  const feature *f = find_feature(name);
  if (!f)
    return inlet_fail(err, INLET_EUNSUPPORTED,
                      "cannot %s this table: it requires writer feature \"%s\", which inlet does "
                      "not know",
                      op_verb(op), name);
  return check_feature(c, f, op, err);
}

static int check_write(feat_ctx *c, delta_write_op op, inlet_error *err) {
  const delta_protocol *p = c->p;
  if (p->min_writer < 1 || p->min_writer > 7)
    return inlet_fail(err, INLET_EUNSUPPORTED,
                      "cannot %s this table: it requires writer version %d (inlet knows writer "
                      "versions 1 to 7)",
                      op_verb(op), (int)p->min_writer);
  if (p->min_reader < 1 || p->min_reader > 3)
    return inlet_fail(err, INLET_EUNSUPPORTED,
                      "cannot %s this table: it requires reader version %d (inlet knows reader "
                      "versions 1 to 3)",
                      op_verb(op), (int)p->min_reader);
  /* Writers must respect reader features as well as writer features. */
  if (p->min_writer == 7)
    for (int32_t i = 0; i < p->n_writer_features; i++)
      TRY(check_named(c, p->writer_features[i], op, err));
  if (p->min_reader == 3)
    for (int32_t i = 0; i < p->n_reader_features; i++)
      TRY(check_named(c, p->reader_features[i], op, err));
  for (size_t i = 0; i < N_FEATURES; i++)
    if (implied(p, &FEATURES[i])) TRY(check_feature(c, &FEATURES[i], op, err));
  /* Metadata that turns on a feature the protocol lacks. */
  for (size_t i = 0; i < N_FEATURES; i++) {
    const feature *f = &FEATURES[i];
    char why[512];
    if (!f->enabled || !f->enabled(c, why, sizeof why) || delta_protocol_supports(p, f->name))
      continue;
    return inlet_fail(err, INLET_EUNSUPPORTED,
                      "cannot %s this table: %s, which needs writer feature \"%s\", but the "
                      "protocol (minReaderVersion %d, minWriterVersion %d) does not support it "
                      "(Spark refuses such a table: DELTA_FEATURES_PROTOCOL_METADATA_MISMATCH)",
                      op_verb(op), why, f->name, (int)p->min_reader, (int)p->min_writer);
  }
  return 0;
}

int delta_features_check_write(const delta_protocol *p, const delta_metadata *m, delta_write_op op,
                               unsigned flags, inlet_error *err) {
  feat_ctx c = {p, m, flags, {0}};
  traits_init(&c.t, m);
  int rc = check_write(&c, op, err);
  traits_reset(&c.t);
  return rc;
}

/* ---- new tables ---------------------------------------------------------------- */

typedef enum prop_kind { P_ANY, P_BOOL, P_INT, P_ENUM, P_DURATION, P_CODEC } prop_kind;

/* Table properties Delta defines (Spark's DeltaConfigs, PROTOCOL.md "Table
 * Properties", and Databricks keys other engines honour). A non-NULL
 * `refused` says why inlet refuses to set it on a new table. */
typedef struct known_prop {
  const char *key;
  prop_kind kind;
  const char *values; /* P_ENUM: "|a|b|", matched case-insensitively */
  const char *refused;
} known_prop;

static const known_prop PROPS[] = {
    {"delta.appendOnly", P_BOOL, NULL, NULL},
    {"delta.autoOptimize", P_BOOL, NULL, NULL},
    {"delta.autoOptimize.autoCompact", P_ANY, NULL, NULL},
    {"delta.autoOptimize.optimizeWrite", P_BOOL, NULL, NULL},
    {"delta.castIcebergTimeType", P_BOOL, NULL, NULL},
    {"delta.checkpoint.writeStatsAsJson", P_BOOL, NULL, NULL},
    {"delta.checkpoint.writeStatsAsStruct", P_BOOL, NULL, NULL},
    {"delta.checkpointInterval", P_INT, NULL, NULL},
    {"delta.checkpointPolicy", P_ENUM, "|classic|v2|", NULL},
    {"delta.checkpointRetentionDuration", P_DURATION, NULL, NULL},
    {"delta.columnMapping.maxColumnId", P_ANY, NULL,
     "it is kept by column mapping writers, not set by users"},
    {"delta.columnMapping.mode", P_ENUM, "|none|name|id|", NULL},
    {"delta.dataSkippingNumIndexedCols", P_INT, NULL, NULL},
    {"delta.dataSkippingStatsColumns", P_ANY, NULL, NULL},
    {"delta.dataSkippingStringPrefixLength", P_INT, NULL, NULL},
    {"delta.deletedFileRetentionDuration", P_DURATION, NULL, NULL},
    {"delta.dropFeatureTruncateHistory.retentionDuration", P_DURATION, NULL, NULL},
    {"delta.enableChangeDataCapture", P_BOOL, NULL, NULL},
    {"delta.enableChangeDataFeed", P_BOOL, NULL, NULL},
    {"delta.enableDeletionVectors", P_BOOL, NULL, NULL},
    {"delta.enableExpiredLogCleanup", P_BOOL, NULL, NULL},
    {"delta.enableFullRetentionRollback", P_BOOL, NULL, NULL},
    {"delta.enableIcebergCompatV1", P_BOOL, NULL, NULL},
    {"delta.enableIcebergCompatV2", P_BOOL, NULL, NULL},
    {"delta.enableIcebergCompatV3", P_BOOL, NULL, NULL},
    {"delta.enableInCommitTimestamps", P_BOOL, NULL, NULL},
    {"delta.enableMaterializePartitionColumnsFeature", P_BOOL, NULL, NULL},
    {"delta.enableRowTracking", P_BOOL, NULL, NULL},
    {"delta.enableTypeWidening", P_BOOL, NULL, NULL},
    {"delta.enableVariantShredding", P_BOOL, NULL, NULL},
    {"delta.ignoreIcebergBucketPartition", P_BOOL, NULL, NULL},
    {"delta.inCommitTimestampEnablementTimestamp", P_ANY, NULL,
     "the writer that turns in-commit timestamps on for an existing table sets it"},
    {"delta.inCommitTimestampEnablementVersion", P_ANY, NULL,
     "the writer that turns in-commit timestamps on for an existing table sets it"},
    {"delta.isolationLevel", P_ENUM, "|Serializable|WriteSerializable|SnapshotIsolation|", NULL},
    {"delta.logRetentionDuration", P_DURATION, NULL, NULL},
    {"delta.parquet.compression.codec", P_CODEC, NULL, NULL},
    {"delta.parquet.format.version", P_ANY, NULL, NULL},
    {"delta.randomPrefixLength", P_INT, NULL, NULL},
    {"delta.randomizeFilePrefixes", P_BOOL, NULL, NULL},
    {"delta.requireCheckpointProtectionBeforeVersion", P_ANY, NULL,
     "it is kept by writers that drop table features"},
    {"delta.rowTracking.materializedRowCommitVersionColumnName", P_ANY, NULL,
     "writers assign it when delta.enableRowTracking=true"},
    {"delta.rowTracking.materializedRowIdColumnName", P_ANY, NULL,
     "writers assign it when delta.enableRowTracking=true"},
    {"delta.rowTrackingSuspended", P_BOOL, NULL, NULL},
    {"delta.sampleRetentionDuration", P_DURATION, NULL, NULL},
    {"delta.setTransactionRetentionDuration", P_DURATION, NULL, NULL},
    {"delta.targetFileSize", P_ANY, NULL, NULL},
    {"delta.tuneFileSizesForRewrites", P_BOOL, NULL, NULL},
    {"delta.universalFormat.enabledFormats", P_ANY, NULL,
     "UniForm (Iceberg/Hudi metadata) needs writer feature \"icebergCompatV2\", which inlet does "
     "not implement"},
    {"delta.writePartitionColumnsToParquet", P_BOOL, NULL, NULL},
};
#define N_PROPS (sizeof PROPS / sizeof PROPS[0])

static const known_prop *find_prop(const char *key) {
  for (size_t i = 0; i < N_PROPS; i++)
    if (strcasecmp(PROPS[i].key, key) == 0) return &PROPS[i];
  return NULL;
}

static bool parse_bool(const char *v, bool *out) {
  if (strcasecmp(v, "true") == 0)
    *out = true;
  else if (strcasecmp(v, "false") == 0)
    *out = false;
  else
    return false;
  return true;
}

static bool parse_int(const char *v, long long lo, long long hi, long long *out) {
  char *end = NULL;
  long long x = strtoll(v, &end, 10);
  if (end == v || *end || x < lo || x > hi) return false;
  *out = x;
  return true;
}

static bool enum_has(const char *values, const char *v) {
  size_t n = strlen(v);
  for (const char *p = values; (p = strchr(p, '|')) && p[1]; p++)
    if (strncasecmp(p + 1, v, n) == 0 && p[1 + n] == '|') return true;
  return false;
}

/* `1.0.0` or `2.MINOR.PATCH` (PROTOCOL.md delta.parquet.format.version). */
static bool parquet_version_ok(const char *v) {
  if (strcmp(v, "1.0.0") == 0) return true;
  int a, b, c, used = 0;
  return sscanf(v, "%d.%d.%d%n", &a, &b, &c, &used) == 3 && v[used] == '\0' && a == 2 && b >= 0 &&
         c >= 0;
}

static int check_value(const known_prop *k, const char *v, inlet_error *err) {
  bool b = false;
  long long x = 0;
  switch (k->kind) {
  case P_BOOL:
    FAIL_IF(!parse_bool(v, &b), err, INLET_EINVAL,
            "table property %s must be true or false, not \"%s\"", k->key, v);
    break;
  case P_INT:
    FAIL_IF(!parse_int(v, INT32_MIN, INT32_MAX, &x), err, INLET_EINVAL,
            "table property %s must be an integer, not \"%s\"", k->key, v);
    break;
  case P_ENUM:
    FAIL_IF(!enum_has(k->values, v), err, INLET_EINVAL,
            "table property %s must be one of %s, not \"%s\"", k->key, k->values, v);
    break;
  case P_DURATION: {
    int64_t us;
    inlet_error why = INLET_ERROR_INIT;
    if (inlet_duration_parse_us(&us, v, &why) < 0)
      return inlet_fail(err, INLET_EINVAL, "table property %s: %s", k->key, why.message);
    break;
  }
  case P_CODEC:
    FAIL_IF(inlet_codec_parse(v) < 0, err, INLET_EINVAL,
            "table property %s must be a compression codec (%s), not \"%s\"", k->key,
            inlet_codec_writable_names(), v);
    break;
  case P_ANY: break;
  }
  if (strcmp(k->key, "delta.parquet.format.version") == 0)
    FAIL_IF(!parquet_version_ok(v), err, INLET_EINVAL,
            "table property delta.parquet.format.version must be 1.0.0 or 2.MINOR.PATCH, not "
            "\"%s\"",
            v);
  if (strcmp(k->key, "delta.checkpointInterval") == 0)
    FAIL_IF(x <= 0, err, INLET_EINVAL, "table property delta.checkpointInterval must be positive");
  if (strcmp(k->key, "delta.writePartitionColumnsToParquet") == 0)
    FAIL_IF(b, err, INLET_EUNSUPPORTED,
            "table property delta.writePartitionColumnsToParquet=true: inlet does not write "
            "partition columns into data files");
  return 0;
}

/* The request a new table's properties make of its protocol. */
typedef struct proto_request {
  int reader, writer;   /* delta.minReaderVersion / delta.minWriterVersion, 0 = absent */
  bool ignore_defaults; /* delta.ignoreProtocolDefaults */
  bool features[N_FEATURES];
} proto_request;

/* Sorts one property: a protocol request (not stored, as Spark stores none),
 * a known key (stored under its canonical spelling), a CHECK constraint, or
 * another engine's namespace; refuses unknown delta.* keys. @p *store gets
 * the key to store, or NULL. */
static int classify_prop(const char *key, const char *value, proto_request *rq, const char **store,
                         inlet_error *err) {
  *store = NULL;
  FAIL_IF(!value, err, INLET_EINVAL, "table property %s has no value", key);
  /* The log is JSON: a key or value that is not UTF-8 cannot be stored
   * (the serializer would drop it without a word). */
  FAIL_IF(!inlet_utf8_valid((const uint8_t *)key, strlen(key)), err, INLET_EINVAL,
          "a table property key is not UTF-8 text");
  FAIL_IF(!inlet_utf8_valid((const uint8_t *)value, strlen(value)), err, INLET_EINVAL,
          "table property %s: the value is not UTF-8 text", key);
  if (strncasecmp(key, "delta.", 6) != 0) {
    *store = key;
    return 0;
  }
  if (strncasecmp(key, "delta.constraints.", 18) == 0) {
    FAIL_IF(!key[18], err, INLET_EINVAL, "CHECK constraint property %s has no name", key);
    *store = key;
    return 0;
  }
  if (strncasecmp(key, "delta.feature.", 14) == 0) {
    const feature *f = find_feature(key + 14);
    FAIL_IF(!f, err, INLET_EUNSUPPORTED,
            "table property %s names table feature \"%s\", which inlet does not know", key,
            key + 14);
    FAIL_IF(strcasecmp(value, "supported") != 0 && strcasecmp(value, "enabled") != 0, err,
            INLET_EINVAL, "table property %s must be \"supported\", not \"%s\"", key, value);
    rq->features[f - FEATURES] = true;
    return 0;
  }
  long long v;
  if (strcasecmp(key, "delta.minReaderVersion") == 0) {
    FAIL_IF(!parse_int(value, 1, 3, &v), err, INLET_EINVAL,
            "table property delta.minReaderVersion must be 1, 2 or 3, not \"%s\"", value);
    rq->reader = (int)v;
    return 0;
  }
  if (strcasecmp(key, "delta.minWriterVersion") == 0) {
    FAIL_IF(!parse_int(value, 1, 7, &v), err, INLET_EINVAL,
            "table property delta.minWriterVersion must be 1 to 7, not \"%s\"", value);
    rq->writer = (int)v;
    return 0;
  }
  if (strcasecmp(key, "delta.ignoreProtocolDefaults") == 0) {
    FAIL_IF(!parse_bool(value, &rq->ignore_defaults), err, INLET_EINVAL,
            "table property delta.ignoreProtocolDefaults must be true or false, not \"%s\"", value);
    return 0;
  }
  const known_prop *k = find_prop(key);
  FAIL_IF(!k, err, INLET_EINVAL,
          "unknown table property %s: Delta defines no such delta.* property (for your own "
          "settings use a key outside the delta. namespace)",
          key);
  FAIL_IF(k->refused, err, INLET_EUNSUPPORTED, "table property %s cannot be set: %s", k->key,
          k->refused);
  TRY(check_value(k, value, err));
  *store = k->key;
  return 0;
}

static int min_reader_of(const feature *f) {
  if (f->legacy_writer) return f->legacy_reader ? f->legacy_reader : 1;
  return f->reader_writer ? 3 : 1;
}

static int min_writer_of(const feature *f) {
  return f->legacy_writer ? f->legacy_writer : 7;
}

/* Adds to @p on the features those in it require, transitively. */
static void with_dependencies(bool on[N_FEATURES]) {
  for (bool grew = true; grew;) {
    grew = false;
    for (size_t i = 0; i < N_FEATURES; i++) {
      const feature *dep =
          on[i] && FEATURES[i].requires ? find_feature(FEATURES[i].requires) : NULL;
      if (dep && !on[dep - FEATURES]) grew = on[dep - FEATURES] = true;
    }
  }
}

/* The weakest protocol supporting exactly the features @p on, with at
 * least reader version @p floor_r and writer version @p floor_w: legacy
 * versions when their implied set is that set, else writer version 7 with
 * every feature listed (and the reader-writer ones in readerFeatures too on
 * reader version 3). */
static int protocol_of(delta_protocol *out, const bool on[N_FEATURES], int floor_r, int floor_w,
                       inlet_error *err) {
  int r = floor_r, w = floor_w;
  for (size_t i = 0; i < N_FEATURES; i++) {
    if (!on[i]) continue;
    if (min_reader_of(&FEATURES[i]) > r) r = min_reader_of(&FEATURES[i]);
    if (min_writer_of(&FEATURES[i]) > w) w = min_writer_of(&FEATURES[i]);
  }
  memset(out, 0, sizeof *out);
  out->min_reader = r;
  out->min_writer = w;
  if (w < 7) {
    bool same = true;
    for (size_t i = 0; i < N_FEATURES; i++)
      same &= implied(out, &FEATURES[i]) == on[i];
    if (same) return 0;
    out->min_writer = 7;
  }
  out->writer_features = inlet_calloc(N_FEATURES, sizeof(char *));
  out->reader_features = r >= 3 ? inlet_calloc(N_FEATURES, sizeof(char *)) : NULL;
  bool oom = !out->writer_features || (r >= 3 && !out->reader_features);
  for (size_t i = 0; i < N_FEATURES && !oom; i++) {
    if (!on[i]) continue;
    char *wn = inlet_strdup(FEATURES[i].name);
    oom |= !wn;
    if (wn) out->writer_features[out->n_writer_features++] = wn;
    if (r >= 3 && FEATURES[i].reader_writer) {
      char *rn = inlet_strdup(FEATURES[i].name);
      oom |= !rn;
      if (rn) out->reader_features[out->n_reader_features++] = rn;
    }
  }
  if (oom) {
    delta_protocol_reset(out);
    return inlet_fail(err, INLET_ENOMEM, "out of memory deriving the protocol");
  }
  return 0;
}

/* Spark's Protocol.forNewTable: the features a legacy (reader, writer)
 * request implies, the features requested by delta.feature.*, those the
 * metadata turns on, and their dependencies; then the weakest protocol
 * that lists exactly those: legacy versions when their implied set is that
 * set, else writer version 7 with every feature listed (and the
 * reader-writer ones in readerFeatures too on reader version 3). */
static int derive_protocol(delta_protocol *out, bool primary[N_FEATURES], const proto_request *rq,
                           const delta_metadata *m, inlet_error *err) {
  bool on[N_FEATURES];
  memcpy(on, rq->features, sizeof on);
  int rr = 1, rw = rq->ignore_defaults ? 1 : 2; /* Spark's defaults: (1, 2) */
  if (rq->reader) rr = rq->reader;
  if (rq->writer) rw = rq->writer;
  delta_protocol req = {rw >= 7 ? rr : (rr < 2 ? rr : 2), rw, 0, NULL, 0, NULL};
  for (size_t i = 0; i < N_FEATURES; i++)
    if (implied(&req, &FEATURES[i])) on[i] = true;
  /* What the metadata turns on, judged against the requested features (a
   * preview feature already there keeps its stable twin off, as in Spark). */
  char *names[N_FEATURES];
  delta_protocol asked = {3, 7, 0, names, 0, names};
  for (size_t i = 0; i < N_FEATURES; i++)
    if (rq->features[i]) names[asked.n_writer_features++] = (char *)FEATURES[i].name;
  asked.n_reader_features = asked.n_writer_features;
  feat_ctx c = {&asked, m, 0, {0}};
  traits_init(&c.t, m);
  char why[512];
  for (size_t i = 0; i < N_FEATURES; i++)
    if (FEATURES[i].enabled && FEATURES[i].enabled(&c, why, sizeof why)) on[i] = true;
  traits_reset(&c.t);
  memcpy(primary, on, sizeof on);
  with_dependencies(on);
  return protocol_of(out, on, 1, 1, err);
}

/* "location" and "provider" are keys Spark's catalog reserves
 * (TableCatalog): not table properties, and not set through them. */
static int catalog_refusal(const char *key, inlet_error *err) {
  if (strcmp(key, "location") != 0 && strcmp(key, "provider") != 0) return 0;
  return inlet_fail(err, INLET_EINVAL,
                    "\"%s\" is not a table property: the table's %s cannot be set or changed "
                    "this way",
                    key, key);
}

int delta_features_new_table(delta_protocol *proto, delta_kv **conf, int32_t *n_conf,
                             const char *schema_json, const char *const *keys,
                             const char *const *values, int32_t n, inlet_error *err) {
  memset(proto, 0, sizeof *proto);
  *conf = NULL;
  *n_conf = 0;
  proto_request rq;
  memset(&rq, 0, sizeof rq);
  delta_kv *kv = inlet_calloc((size_t)n + 1, sizeof *kv);
  if (!kv) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  int rc = 0;
  int32_t nk = 0;
  for (int32_t i = 0; i < n && rc == 0; i++) {
    for (int32_t j = 0; j < i && rc == 0; j++)
      if (strcasecmp(keys[i], keys[j]) == 0)
        rc = inlet_fail(err, INLET_EINVAL, "table property %s given twice", keys[i]);
    /* Spark's catalog keys: "comment" is the description (delta_new_table
     * takes it), "location" and "provider" are no properties. */
    if (rc == 0) rc = catalog_refusal(keys[i], err);
    if (rc < 0 || strcmp(keys[i], "comment") == 0) continue;
    const char *store = NULL;
    rc = classify_prop(keys[i], values[i], &rq, &store, err);
    if (rc < 0 || !store) continue;
    kv[nk].key = inlet_strdup(store);
    kv[nk].value = inlet_strdup(values[i]);
    nk++;
    if (!kv[nk - 1].key || !kv[nk - 1].value) rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
  }
  if (rc == 0) {
    delta_metadata m;
    memset(&m, 0, sizeof m);
    m.schema_string = (char *)schema_json;
    m.configuration = kv;
    m.n_configuration = nk;
    bool primary[N_FEATURES];
    rc = derive_protocol(proto, primary, &rq, &m, err);
    /* The features asked for first, so that a refusal names the one the
     * properties turn on rather than a dependency of it. */
    feat_ctx c = {proto, &m, 0, {0}};
    traits_init(&c.t, &m);
    for (size_t i = 0; rc == 0 && i < N_FEATURES; i++)
      if (primary[i]) rc = check_feature(&c, &FEATURES[i], DELTA_OP_CREATE, err);
    traits_reset(&c.t);
    if (rc == 0) rc = delta_features_check_write(proto, &m, DELTA_OP_CREATE, 0, err);
    if (rc < 0) delta_protocol_reset(proto);
  }
  if (rc < 0) {
    for (int32_t i = 0; i < nk; i++) {
      inlet_free(kv[i].key);
      inlet_free(kv[i].value);
    }
    inlet_free(kv);
    return rc;
  }
  *conf = kv;
  *n_conf = nk;
  return 0;
}

/* Characters Spark accepts in a column name only under column mapping
 * (SchemaUtils.checkFieldNames). */
static const char *bad_char_name(char ch) {
  switch (ch) {
  case ' ': return "a space";
  case ',': return "','";
  case ';': return "';'";
  case '{': return "'{'";
  case '}': return "'}'";
  case '(': return "'('";
  case ')': return "')'";
  case '\n': return "a newline";
  case '\t': return "a tab";
  case '=': return "'='";
  default: return NULL;
  }
}

const char *delta_name_needs_mapping(const char *name) {
  for (const char *p = name; *p; p++) {
    const char *what = bad_char_name(*p);
    if (what) return what;
  }
  return NULL;
}

static int check_names(const inlet_field *f, int32_t n, bool synthetic, inlet_error *err) {
  for (int32_t i = 0; i < n; i++) {
    /* The element and key/value fields of lists and maps are inlet's layout,
     * not column names. */
    const char *what = synthetic ? NULL : delta_name_needs_mapping(f[i].name);
    FAIL_IF(what, err, INLET_EUNSUPPORTED,
            "column name \"%s\" contains %s, which Delta allows only with column mapping "
            "(create the table with delta.columnMapping.mode=name or id)",
            f[i].name, what);
    bool kids_synthetic =
        f[i].type.id == INLET_TYPE_LIST || f[i].type.id == INLET_TYPE_MAP ||
        (synthetic && f[i].type.id == INLET_TYPE_STRUCT && strcmp(f[i].name, "entries") == 0);
    TRY(check_names(f[i].children, f[i].n_children, kids_synthetic, err));
  }
  return 0;
}

int delta_features_check_column_names(const inlet_schema *schema, bool mapped, inlet_error *err) {
  /* Data files, partition directories and stats use physical names. */
  if (mapped) return 0;
  return check_names(schema->fields, schema->n_fields, false, err);
}

/* Why inlet alter will not set @p key (=@p value) on an existing table, or
 * NULL: properties whose enablement needs more than a metaData (and
 * protocol) commit, which inlet does not do. */
static const char *alter_refusal(const char *key, const char *value) {
  if (strncasecmp(key, "delta.constraints.", 18) == 0)
    return "a CHECK constraint on an existing table needs every row checked first, which inlet "
           "does not do";
  if (strcasecmp(key, "delta.minReaderVersion") == 0 ||
      strcasecmp(key, "delta.minWriterVersion") == 0 ||
      strcasecmp(key, "delta.ignoreProtocolDefaults") == 0)
    return "protocol versions are chosen when a table is created; add a feature with "
           "delta.feature.NAME=supported";
  if (strcasecmp(key, "delta.columnMapping.mode") == 0)
    return "changing the column mapping mode needs a physical name and id given to every "
           "column, which inlet does not do";
  if (strcasecmp(key, "delta.enableInCommitTimestamps") == 0)
    return "turning in-commit timestamps on for an existing table needs the enablement version "
           "and timestamp recorded, which inlet does not do";
  if (strncasecmp(key, "delta.enableIcebergCompat", 25) == 0)
    return "Iceberg compatibility needs Iceberg metadata kept in step, which inlet does not write";
  if (strcasecmp(key, "delta.enableRowTracking") == 0 && strcasecmp(value, "true") == 0)
    return "turning row tracking on needs row ids backfilled first: set it on its own";
  return NULL;
}

static int conf_set(delta_metadata *m, const char *key, const char *value, bool *changed,
                    inlet_error *err) {
  for (int32_t i = 0; i < m->n_configuration; i++) {
    if (strcasecmp(m->configuration[i].key, key) != 0) continue;
    if (m->configuration[i].value && strcmp(m->configuration[i].value, value) == 0) return 0;
    char *v = inlet_strdup(value);
    FAIL_IF(!v, err, INLET_ENOMEM, "out of memory");
    inlet_free(m->configuration[i].value);
    m->configuration[i].value = v;
    *changed = true;
    return 0;
  }
  delta_kv *nc = inlet_realloc(m->configuration, ((size_t)m->n_configuration + 1) * sizeof *nc);
  FAIL_IF(!nc, err, INLET_ENOMEM, "out of memory");
  m->configuration = nc;
  nc[m->n_configuration].key = inlet_strdup(key);
  nc[m->n_configuration].value = inlet_strdup(value);
  m->n_configuration++;
  FAIL_IF(!nc[m->n_configuration - 1].key || !nc[m->n_configuration - 1].value, err, INLET_ENOMEM,
          "out of memory");
  *changed = true;
  return 0;
}

/* Keys Spark's catalog reserves (TableCatalog): "comment" is the table's
 * description (metaData.description), not a property; "location" and
 * "provider" cannot be changed this way. 1 when @p key is one of them and
 * was handled (@p value NULL: unset), 0 when it is a property, or an
 * error. */
static int catalog_key(delta_metadata *nm, const char *key, const char *value, bool *changed,
                       inlet_error *err) {
  TRY(catalog_refusal(key, err));
  if (strcmp(key, "comment") != 0) return 0;
  if (value && !inlet_utf8_valid((const uint8_t *)value, strlen(value)))
    return inlet_fail(err, INLET_EINVAL, "the comment is not UTF-8 text");
  bool same = value ? nm->description && strcmp(nm->description, value) == 0 : !nm->description;
  if (same) return 1;
  char *d = NULL;
  if (value && !(d = inlet_strdup(value))) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  inlet_free(nm->description);
  nm->description = d;
  *changed = true;
  return 1;
}

int delta_features_alter(delta_protocol *np, bool *protocol_changed, bool *conf_changed,
                         delta_metadata *nm, const delta_protocol *p, const char *const *keys,
                         const char *const *values, int32_t n, inlet_error *err) {
  memset(np, 0, sizeof *np);
  *protocol_changed = *conf_changed = false;
  proto_request rq;
  memset(&rq, 0, sizeof rq);
  for (int32_t i = 0; i < n; i++) {
    for (int32_t j = 0; j < i; j++)
      FAIL_IF(strcasecmp(keys[i], keys[j]) == 0, err, INLET_EINVAL, "table property %s given twice",
              keys[i]);
    FAIL_IF(!values[i], err, INLET_EINVAL, "table property %s has no value", keys[i]);
    int reserved = catalog_key(nm, keys[i], values[i], conf_changed, err);
    if (reserved < 0) return reserved;
    if (reserved) continue;
    const char *why = alter_refusal(keys[i], values[i]);
    FAIL_IF(why, err, INLET_EUNSUPPORTED,
            "table property %s cannot be set on an existing table: %s", keys[i], why);
    const char *store = NULL;
    TRY(classify_prop(keys[i], values[i], &rq, &store, err));
    if (store) TRY(conf_set(nm, store, values[i], conf_changed, err));
  }
  /* The features the table supports now, those asked for by
   * delta.feature.*, those the new configuration turns on, and their
   * dependencies: protocols only grow (PROTOCOL.md "Protocol Evolution"). */
  bool on[N_FEATURES];
  feat_ctx c = {p, nm, 0, {0}};
  traits_init(&c.t, nm);
  char why[512];
  for (size_t i = 0; i < N_FEATURES; i++)
    on[i] = rq.features[i] || delta_protocol_supports(p, FEATURES[i].name) ||
            (FEATURES[i].enabled && FEATURES[i].enabled(&c, why, sizeof why));
  traits_reset(&c.t);
  with_dependencies(on);
  TRY(protocol_of(np, on, p->min_reader, p->min_writer, err));
  *protocol_changed = np->min_reader != p->min_reader || np->min_writer != p->min_writer;
  for (size_t i = 0; i < N_FEATURES; i++)
    if (delta_protocol_supports(np, FEATURES[i].name) !=
        delta_protocol_supports(p, FEATURES[i].name))
      *protocol_changed = true;
  /* A feature turned on must be one inlet honours on every operation. */
  int rc = 0;
  feat_ctx nc = {np, nm, 0, {0}};
  traits_init(&nc.t, nm);
  for (size_t i = 0; rc == 0 && i < N_FEATURES; i++)
    if (on[i] && !delta_protocol_supports(p, FEATURES[i].name))
      rc = check_feature(&nc, &FEATURES[i], DELTA_OP_CREATE, err);
  traits_reset(&nc.t);
  if (rc == 0) rc = delta_features_check_write(np, nm, DELTA_OP_COMPACT, 0, err);
  if (rc < 0) delta_protocol_reset(np);
  return rc;
}

/* Why removing @p key from an existing table is refused: it needs work
 * inlet does not do, or writers rely on it; NULL when removing it is one
 * metaData commit. */
static const char *unset_refusal(const char *key) {
  if (strcasecmp(key, "delta.columnMapping.mode") == 0)
    return "turning column mapping off needs every data file rewritten under the logical names, "
           "which inlet does not do";
  if (strcasecmp(key, "delta.columnMapping.maxColumnId") == 0)
    return "column mapping writers give new columns ids above it";
  if (strcasecmp(key, "delta.enableInCommitTimestamps") == 0 ||
      strcasecmp(key, "delta.inCommitTimestampEnablementVersion") == 0 ||
      strcasecmp(key, "delta.inCommitTimestampEnablementTimestamp") == 0)
    return "turning in-commit timestamps off changes how every version's time is read, which "
           "inlet does not do";
  if (strncasecmp(key, "delta.rowTracking.materialized", 30) == 0)
    return "the materialized row id and row commit version columns of existing files are found "
           "by these names";
  if (strcasecmp(key, "delta.requireCheckpointProtectionBeforeVersion") == 0)
    return "it is kept by writers that drop table features";
  if (strncasecmp(key, "delta.enableIcebergCompat", 25) == 0)
    return "Iceberg compatibility needs Iceberg metadata kept in step, which inlet does not write";
  if (strncasecmp(key, "delta.feature.", 14) == 0)
    return "delta.feature.* keys are not stored; taking a feature out of the protocol is DROP "
           "FEATURE, which inlet does not do";
  if (strcasecmp(key, "delta.minReaderVersion") == 0 ||
      strcasecmp(key, "delta.minWriterVersion") == 0 ||
      strcasecmp(key, "delta.ignoreProtocolDefaults") == 0)
    return "protocol versions are not stored as properties and never go down";
  return NULL;
}

/* Delta's own keys are matched whatever their case (Spark normalizes
 * them), other namespaces exactly, as Spark's UNSET TBLPROPERTIES does. */
static bool same_key(const char *stored, const char *asked) {
  if (strncasecmp(asked, "delta.", 6) == 0) return strcasecmp(stored, asked) == 0;
  return strcmp(stored, asked) == 0;
}

int delta_features_unset(delta_metadata *nm, bool *conf_changed, const delta_protocol *p,
                         const char *const *keys, int32_t n, bool if_exists, inlet_error *err) {
  *conf_changed = false;
  for (int32_t i = 0; i < n; i++) {
    FAIL_IF(!keys[i] || !keys[i][0], err, INLET_EINVAL, "an empty table property key");
    FAIL_IF(!inlet_utf8_valid((const uint8_t *)keys[i], strlen(keys[i])), err, INLET_EINVAL,
            "a table property key is not UTF-8 text");
    for (int32_t j = 0; j < i; j++)
      FAIL_IF(same_key(keys[i], keys[j]), err, INLET_EINVAL, "table property %s given twice",
              keys[i]);
    const char *why = unset_refusal(keys[i]);
    FAIL_IF(why, err, INLET_EUNSUPPORTED, "table property %s cannot be unset: %s", keys[i], why);
    TRY(catalog_refusal(keys[i], err));
  }
  for (int32_t i = 0; i < n; i++) {
    bool found = false;
    if (strcmp(keys[i], "comment") == 0) {
      /* The description; and a "comment" key an older writer stored as a
       * property goes too. */
      found = nm->description != NULL;
      TRY(catalog_key(nm, keys[i], NULL, conf_changed, err));
    }
    for (int32_t c = 0; c < nm->n_configuration;) {
      if (!same_key(nm->configuration[c].key, keys[i])) {
        c++;
        continue;
      }
      inlet_free(nm->configuration[c].key);
      inlet_free(nm->configuration[c].value);
      memmove(&nm->configuration[c], &nm->configuration[c + 1],
              (size_t)(nm->n_configuration - c - 1) * sizeof *nm->configuration);
      nm->n_configuration--;
      found = *conf_changed = true;
    }
    FAIL_IF(!found && !if_exists, err, INLET_ENOTFOUND,
            "table property %s is not set on this table (nothing was unset)", keys[i]);
  }
  /* What stays must still be a table inlet honours on every operation. */
  return delta_features_check_write(p, nm, DELTA_OP_COMPACT, 0, err);
}
