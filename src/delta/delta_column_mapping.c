/*
 * Column mapping: which names and ids data files use for a table's columns.
 *
 * Spec: PROTOCOL.md "Column Mapping" (modes none, name and id; every field
 * of a mapping table carries delta.columnMapping.physicalName and
 * delta.columnMapping.id in its metadata; data files, partitionValues and
 * stats use the physical names at every nesting level; in id mode readers
 * match Parquet columns by field id; delta.columnMapping.maxColumnId is at
 * least every id) and "Reader Requirements for Column Mapping" (the mode is
 * in force only on a protocol that supports the feature: reader version 2,
 * or 3 listing columnMapping).
 *
 * The logical schema (delta_snapshot.schema) names the columns users see;
 * its physical twin (phys_schema, the same tree) names what is stored. A
 * rename or drop changes only the logical schema, so each version is read
 * with its own mapping and a column a file lacks reads as null.
 */
#include <stdlib.h>
#include <strings.h>

#include "delta/delta.h"
#include "delta/delta_features.h"
#include "util/util.h"

int delta_column_mapping_mode(const delta_metadata *m) {
  const char *v = delta_metadata_conf(m, "delta.columnMapping.mode");
  if (!v || strcasecmp(v, "none") == 0) return DELTA_CM_NONE;
  if (strcasecmp(v, "name") == 0) return DELTA_CM_NAME;
  if (strcasecmp(v, "id") == 0) return DELTA_CM_ID;
  return -1;
}

const inlet_schema *delta_snapshot_physical(const delta_snapshot *s) {
  return s->cm_mode != DELTA_CM_NONE ? &s->phys_schema : &s->schema;
}

int delta_snapshot_set_mapping(delta_snapshot *s, inlet_error *err) {
  inlet_schema_reset(&s->phys_schema);
  s->cm_mode = DELTA_CM_NONE;
  int mode = delta_column_mapping_mode(&s->metadata);
  FAIL_IF(mode < 0, err, INLET_EUNSUPPORTED,
          "table property delta.columnMapping.mode=%.100s is not a column mapping mode inlet "
          "knows (none, name, id)",
          delta_metadata_conf(&s->metadata, "delta.columnMapping.mode"));
  /* The property alone, on a protocol without the feature, maps nothing. */
  if (mode == DELTA_CM_NONE || !delta_protocol_supports(&s->protocol, "columnMapping")) return 0;
  if (!s->has_schema || !s->metadata.schema_string) return 0;
  int64_t max_id = -1;
  const char *mx = delta_metadata_conf(&s->metadata, "delta.columnMapping.maxColumnId");
  if (mx) {
    char *end = NULL;
    long long v = strtoll(mx, &end, 10);
    FAIL_IF(end == mx || *end != '\0' || v < 0, err, INLET_ECORRUPT,
            "table property delta.columnMapping.maxColumnId=%.100s is not a non-negative integer",
            mx);
    max_id = v;
  }
  TRY(delta_schema_parse_physical(&s->phys_schema, s->metadata.schema_string, mode, max_id, err));
  s->cm_mode = mode;
  return 0;
}

int32_t delta_cm_find_field(const inlet_field *file, int32_t n, const inlet_field *pf) {
  if (pf->field_id >= 0)
    for (int32_t i = 0; i < n; i++)
      if (file[i].field_id == pf->field_id) return i;
  for (int32_t i = 0; i < n; i++)
    if (strcmp(file[i].name, pf->name) == 0) return i;
  for (int32_t i = 0; i < n; i++)
    if (strcasecmp(file[i].name, pf->name) == 0) return i;
  return -1;
}
