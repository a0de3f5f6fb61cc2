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
 *
 * A table created with a mapping mode gets its ids and physical names here
 * (delta_column_mapping_assign), and so do the fields a schema evolution
 * adds (delta_column_mapping_assign_new, above maxColumnId), written into the schemaString's field
 * metadata: inlet_schema carries no metadata, so they are added to the JSON
 * delta_schema_to_json made, never lost by a round trip through it.
 */
#include <jansson.h>
#include <stdio.h>
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

static bool assign_type(json_t *type, int64_t *next, bool only_new);

/* Gives the fields of struct @p st ids and physical names: every field, or
 * with @p only_new those without an id yet (a field a schema evolution
 * added), at any depth. */
static bool assign_fields(json_t *st, int64_t *next, bool only_new) {
  json_t *fields = json_object_get(st, "fields");
  if (!json_is_array(fields)) return false;
  size_t i;
  json_t *f;
  json_array_foreach(fields, i, f) {
    json_t *md = json_object_get(f, "metadata");
    if (!json_is_object(md)) {
      md = json_object();
      if (json_object_set_new(f, "metadata", md) < 0) return false;
    }
    bool has = json_is_integer(json_object_get(md, "delta.columnMapping.id")) &&
               json_is_string(json_object_get(md, "delta.columnMapping.physicalName"));
    if (!only_new || !has) {
      char uuid[37], pn[48];
      delta_uuid4(uuid);
      snprintf(pn, sizeof pn, "col-%s", uuid);
      if (json_object_set_new(md, "delta.columnMapping.id", json_integer(++*next)) < 0 ||
          json_object_set_new(md, "delta.columnMapping.physicalName", json_string(pn)) < 0)
        return false;
    }
    if (!assign_type(json_object_get(f, "type"), next, only_new)) return false;
  }
  return true;
}

/* Fields nested in @p type; a primitive type (a string) has none. */
static bool assign_type(json_t *type, int64_t *next, bool only_new) {
  if (json_is_string(type)) return true;
  const char *kind = json_string_value(json_object_get(type, "type"));
  if (!kind) return false;
  if (strcmp(kind, "struct") == 0) return assign_fields(type, next, only_new);
  if (strcmp(kind, "array") == 0)
    return assign_type(json_object_get(type, "elementType"), next, only_new);
  if (strcmp(kind, "map") == 0)
    return assign_type(json_object_get(type, "keyType"), next, only_new) &&
           assign_type(json_object_get(type, "valueType"), next, only_new);
  return true;
}

/* The largest delta.columnMapping.id in @p type's fields, at any depth. */
static int64_t max_type_id(json_t *type);

static int64_t max_fields_id(json_t *st) {
  int64_t m = 0;
  size_t i;
  json_t *f;
  json_array_foreach(json_object_get(st, "fields"), i, f) {
    json_t *id = json_object_get(json_object_get(f, "metadata"), "delta.columnMapping.id");
    if (json_is_integer(id) && json_integer_value(id) > m) m = json_integer_value(id);
    int64_t sub = max_type_id(json_object_get(f, "type"));
    if (sub > m) m = sub;
  }
  return m;
}

static int64_t max_type_id(json_t *type) {
  if (!json_is_object(type)) return 0;
  const char *kind = json_string_value(json_object_get(type, "type"));
  if (!kind) return 0;
  if (strcmp(kind, "struct") == 0) return max_fields_id(type);
  if (strcmp(kind, "array") == 0) return max_type_id(json_object_get(type, "elementType"));
  if (strcmp(kind, "map") == 0) {
    int64_t k = max_type_id(json_object_get(type, "keyType"));
    int64_t v = max_type_id(json_object_get(type, "valueType"));
    return k > v ? k : v;
  }
  return 0;
}

static int assign(char **schema_json, int64_t *max_id, bool only_new, inlet_error *err) {
  json_error_t je;
  json_t *root = json_loads(*schema_json, 0, &je);
  FAIL_IF(!json_is_object(root), err, INLET_ECORRUPT, "schemaString is not a struct type: %s",
          je.text);
  int64_t next = only_new ? *max_id : 0;
  if (only_new) {
    /* Never reuse an id: the property may lag the schema it covers. */
    int64_t seen = max_fields_id(root);
    if (seen > next) next = seen;
  }
  bool ok = assign_fields(root, &next, only_new);
  char *s = ok ? json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
  json_decref(root);
  char *dup = s ? inlet_strdup(s) : NULL;
  free(s);
  FAIL_IF(!dup, err, INLET_ENOMEM, "out of memory assigning column mapping ids");
  inlet_free(*schema_json);
  *schema_json = dup;
  *max_id = next;
  return 0;
}

int delta_column_mapping_assign(char **schema_json, int64_t *max_id, inlet_error *err) {
  return assign(schema_json, max_id, false, err);
}

int delta_column_mapping_assign_new(char **schema_json, int64_t *max_id, inlet_error *err) {
  return assign(schema_json, max_id, true, err);
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
