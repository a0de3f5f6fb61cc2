/*
 * Row tracking (delta_row_tracking.h).
 *
 * Spec: PROTOCOL.md "Row Tracking": "Row IDs" (default generated ids are
 * baseRowId + the row's physical position in the file; materialized ids,
 * stored in the column delta.rowTracking.materializedRowIdColumnName
 * names, win where not null), "Row Commit Versions" (likewise with
 * defaultRowCommitVersion), "Writer Requirements for Row Tracking"
 * (supported and not suspended: assign; enabled: preserve through
 * materialized columns; the high-water mark in the delta.rowTracking
 * domain).
 */
#include <jansson.h>
#include <stdio.h>
#include <strings.h>

#include "delta/delta_features.h"
#include "delta/delta_row_tracking.h"
#include "util/util.h"

static bool conf_is_true(const delta_metadata *m, const char *key) {
  const char *v = delta_metadata_conf(m, key);
  return v && strcasecmp(v, "true") == 0;
}

bool delta_rt_assigns(const delta_protocol *p, const delta_metadata *m) {
  return delta_protocol_supports(p, "rowTracking") && !conf_is_true(m, DELTA_RT_SUSPENDED);
}

bool delta_rt_enabled(const delta_protocol *p, const delta_metadata *m) {
  return delta_rt_assigns(p, m) && conf_is_true(m, DELTA_RT_ENABLE);
}

int delta_rt_parse_hwm(const char *configuration, int64_t *out, inlet_error *err) {
  json_error_t je;
  json_t *o = json_loads(configuration ? configuration : "", 0, &je);
  json_t *v = json_object_get(o, "rowIdHighWaterMark");
  bool ok = json_is_integer(v) && json_integer_value(v) >= -1;
  if (ok) *out = (int64_t)json_integer_value(v);
  json_decref(o);
  FAIL_IF(!ok, err, INLET_ECORRUPT,
          "domainMetadata %s: configuration has no integer rowIdHighWaterMark", DELTA_RT_DOMAIN);
  return 0;
}

int delta_rt_high_water_mark(const delta_domain *d, int64_t n, int64_t *out, inlet_error *err) {
  *out = -1;
  for (int64_t i = 0; i < n; i++)
    if (!d[i].removed && strcmp(d[i].domain, DELTA_RT_DOMAIN) == 0)
      return delta_rt_parse_hwm(d[i].configuration, out, err);
  return 0;
}

int delta_rt_schema_add(inlet_schema *s, const delta_protocol *p, const delta_metadata *m,
                        bool *added, inlet_error *err) {
  *added = false;
  const char *id = delta_metadata_conf(m, DELTA_RT_ID_COL);
  const char *ver = delta_metadata_conf(m, DELTA_RT_VER_COL);
  /* Without names (a table that turned row tracking on against the spec)
   * nothing can be preserved: rewritten rows get fresh ids. */
  if (!delta_rt_enabled(p, m) || !id || !ver || !*id || !*ver) return 0;
  const char *names[2] = {id, ver};
  for (int i = 0; i < 2; i++) {
    FAIL_IF(inlet_schema_find(s, names[i]) >= 0, err, INLET_ECORRUPT,
            "table property %s names \"%s\", which is a column of the table",
            i ? DELTA_RT_VER_COL : DELTA_RT_ID_COL, names[i]);
    inlet_field f;
    memset(&f, 0, sizeof f);
    f.name = (char *)names[i]; /* borrowed: add_field copies */
    f.type.id = INLET_TYPE_INT64;
    f.nullable = true;
    f.field_id = -1;
    TRY(inlet_schema_add_field(s, &f, err));
  }
  *added = true;
  return 0;
}

/* Replaces column @p c of @p b by one whose nulls are @p base + position
 * (@p step 1) or @p base (@p step 0). */
static int fill_column(inlet_batch *b, int32_t c, int64_t base, int64_t step, int64_t first_row,
                       inlet_error *err) {
  const inlet_field *f = &b->schema.fields[c];
  inlet_array *src = &b->columns[c];
  FAIL_IF(f->type.id != INLET_TYPE_INT64, err, INLET_ECORRUPT,
          "materialized row tracking column \"%s\" is not a long", f->name);
  if (src->length == b->num_rows && src->null_count == 0) return 0;
  inlet_array fresh;
  TRY(inlet_array_init(&fresh, f, err));
  int rc = inlet_array_reserve_rows(&fresh, f, b->num_rows, err);
  for (int64_t r = 0; r < b->num_rows && rc == 0; r++) {
    bool have = r < src->length && inlet_array_is_valid(src, r);
    int64_t v = have ? ((const int64_t *)src->values)[r] : base + step * (first_row + r);
    rc = inlet_array_append_int(&fresh, f, v, err);
  }
  if (rc < 0) {
    inlet_array_reset(&fresh);
    return rc;
  }
  inlet_array_reset(src);
  *src = fresh;
  return 0;
}

int delta_rt_fill(inlet_batch *b, const delta_metadata *m, const delta_add *a, int64_t first_row,
                  inlet_error *err) {
  const char *id = delta_metadata_conf(m, DELTA_RT_ID_COL);
  const char *ver = delta_metadata_conf(m, DELTA_RT_VER_COL);
  int ci = id ? inlet_schema_find(&b->schema, id) : -1;
  int cv = ver ? inlet_schema_find(&b->schema, ver) : -1;
  if (ci >= 0 && a->has_base_row_id) TRY(fill_column(b, ci, a->base_row_id, 1, first_row, err));
  if (cv >= 0 && a->has_default_row_commit_version)
    TRY(fill_column(b, cv, a->default_row_commit_version, 0, first_row, err));
  return 0;
}

int delta_rt_tag_preserved(delta_txn *t, const delta_protocol *p, const delta_metadata *m,
                           bool preserved, inlet_error *err) {
  if (!delta_rt_enabled(p, m)) return 0;
  return delta_txn_set_tag(t, DELTA_RT_PRESERVED_TAG, preserved ? "true" : "false", err);
}

static int conf_append(delta_metadata *m, const char *key, const char *value, inlet_error *err) {
  delta_kv *kv = inlet_realloc(m->configuration, ((size_t)m->n_configuration + 1) * sizeof *kv);
  FAIL_IF(!kv, err, INLET_ENOMEM, "out of memory creating a table");
  m->configuration = kv;
  kv[m->n_configuration].key = inlet_strdup(key);
  kv[m->n_configuration].value = inlet_strdup(value);
  m->n_configuration++;
  FAIL_IF(!kv[m->n_configuration - 1].key || !kv[m->n_configuration - 1].value, err, INLET_ENOMEM,
          "out of memory creating a table");
  return 0;
}

int delta_rt_assign_names(delta_metadata *m, inlet_error *err) {
  if (!conf_is_true(m, DELTA_RT_ENABLE)) return 0;
  char uuid[37], name[64];
  if (!delta_metadata_conf(m, DELTA_RT_ID_COL)) {
    delta_uuid4(uuid);
    snprintf(name, sizeof name, "_row-id-col-%s", uuid);
    TRY(conf_append(m, DELTA_RT_ID_COL, name, err));
  }
  if (!delta_metadata_conf(m, DELTA_RT_VER_COL)) {
    delta_uuid4(uuid);
    snprintf(name, sizeof name, "_row-commit-version-col-%s", uuid);
    TRY(conf_append(m, DELTA_RT_VER_COL, name, err));
  }
  return 0;
}

int delta_rt_enable(delta_metadata *m, inlet_error *err) {
  for (int32_t i = 0; i < m->n_configuration; i++) {
    if (strcmp(m->configuration[i].key, DELTA_RT_ENABLE) != 0) continue;
    char *v = inlet_strdup("true");
    FAIL_IF(!v, err, INLET_ENOMEM, "out of memory enabling row tracking");
    inlet_free(m->configuration[i].value);
    m->configuration[i].value = v;
    return delta_rt_assign_names(m, err);
  }
  TRY(conf_append(m, DELTA_RT_ENABLE, "true", err));
  return delta_rt_assign_names(m, err);
}
