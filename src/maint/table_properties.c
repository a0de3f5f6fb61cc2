/*
 * Setting and unsetting table properties of an existing table
 * (include/inlet/maint.h inlet_table_set_properties,
 * inlet_table_unset_properties).
 *
 * Spec: PROTOCOL.md "Change Metadata", "Protocol Evolution"; the commits are
 * Delta Spark's AlterTableSetPropertiesDeltaCommand and
 * AlterTableUnsetPropertiesDeltaCommand: one SET TBLPROPERTIES commit
 * holding the new metaData (the old one with the properties set) and, when
 * a property turns on a feature the protocol lacks, the grown protocol
 * (delta_features_alter says which properties and features are allowed);
 * or one UNSET TBLPROPERTIES commit holding the metaData without the keys
 * (delta_features_unset; the protocol never shrinks). The commit is strict:
 * it must land right after the version it read, so that nothing a
 * concurrent commit changed is overwritten by the metaData read before it;
 * a lost commit starts over from the new latest version.
 */
#include <string.h>

#include <jansson.h>

#include "delta/delta_features.h"
#include "delta/delta_table.h"
#include "delta/delta_write_txn.h"
#include "maint/maint_int.h"
#include "util/util.h"

#define ATTEMPTS 10

/* One request: keys to set to values, or keys to unset. */
typedef struct props_request {
  bool set;
  const char *const *keys;
  const char *const *values; /* set only */
  int32_t n;
  bool if_exists; /* unset: keys not set are skipped */
} props_request;

/* Spark's operation parameters: SET TBLPROPERTIES's properties as JSON
 * text; UNSET TBLPROPERTIES's keys as JSON text and ifExists. */
static int set_params(delta_txn *txn, const props_request *q, inlet_error *err) {
  if (q->set) {
    json_t *props = json_object();
    for (int32_t i = 0; props && i < q->n; i++)
      json_object_set_new(props, q->keys[i], json_string(q->values[i]));
    return delta_txn_set_json_param(txn, "properties", props, err);
  }
  json_t *keys = json_array();
  for (int32_t i = 0; keys && i < q->n; i++)
    json_array_append_new(keys, json_string(q->keys[i]));
  TRY(delta_txn_set_json_param(txn, "properties", keys, err));
  return delta_txn_add_text_param(txn, "ifExists", q->if_exists ? "true" : "false", err);
}

static int attempt(inlet_table *t, const props_request *q, inlet_set_properties_result *r,
                   inlet_error *err) {
  delta_snapshot latest;
  memset(&latest, 0, sizeof latest);
  delta_protocol np;
  memset(&np, 0, sizeof np);
  delta_metadata nm;
  memset(&nm, 0, sizeof nm);
  bool have_nm = false, protocol_changed = false, conf_changed = false;
  delta_txn *txn = NULL;
  int rc = delta_table_load(t, &latest, DELTA_SNAP_LATEST, 0, err);
  if (rc < 0) return rc;
  /* A table inlet cannot honour is not written to, this commit included. */
  TRY_GOTO(
      delta_features_check_write(&latest.protocol, &latest.metadata, DELTA_OP_COMPACT, 0, err));
  TRY_GOTO(delta_metadata_copy(&nm, &latest.metadata, err));
  have_nm = true;
  if (q->set)
    TRY_GOTO(delta_features_alter(&np, &protocol_changed, &conf_changed, &nm, &latest.protocol,
                                  q->keys, q->values, q->n, err));
  else
    TRY_GOTO(delta_features_unset(&nm, &conf_changed, &latest.protocol, q->keys, q->n, q->if_exists,
                                  err));
  r->protocol_changed = protocol_changed;
  if (!protocol_changed && !conf_changed) goto done; /* every property as asked already */
  TRY_GOTO(delta_txn_begin(&txn, delta_table_storage(t), delta_table_root(t), latest.version,
                           q->set ? "SET TBLPROPERTIES" : "UNSET TBLPROPERTIES", err));
  delta_txn_set_table(txn, &nm);
  delta_txn_set_base(txn, &latest);
  delta_txn_set_strict(txn, true);
  TRY_GOTO(set_params(txn, q, err));
  if (protocol_changed) {
    delta_action pa;
    memset(&pa, 0, sizeof pa);
    pa.kind = DELTA_ACTION_PROTOCOL;
    pa.u.protocol = np; /* borrowed: add_action copies */
    TRY_GOTO(delta_txn_add_action(txn, &pa, err));
  }
  delta_action ma;
  memset(&ma, 0, sizeof ma);
  ma.kind = DELTA_ACTION_METADATA;
  ma.u.metadata = nm; /* borrowed: add_action copies */
  TRY_GOTO(delta_txn_add_action(txn, &ma, err));
  TRY_GOTO(delta_write_commit(t, txn, &nm, &r->version, NULL, err));
done:
  delta_txn_free(txn);
  delta_protocol_reset(&np);
  if (have_nm) delta_metadata_reset(&nm);
  delta_snapshot_reset(&latest);
  return rc;
}

static int run(inlet_set_properties_result *out, inlet_table *table, const props_request *q,
               const char *what, inlet_error *err) {
  inlet_set_properties_result r;
  memset(&r, 0, sizeof r);
  r.version = -1;
  if (out) *out = r;
  FAIL_IF(!table, err, INLET_EINVAL, "%s table properties: no table", what);
  FAIL_IF(q->n <= 0 || !q->keys || (q->set && !q->values), err, INLET_EINVAL,
          "%s table properties: no property", what);
  int rc = INLET_ECONFLICT;
  while (rc == INLET_ECONFLICT && r.attempts < ATTEMPTS) {
    r.attempts++;
    r.version = -1;
    rc = attempt(table, q, &r, err);
  }
  if (rc == INLET_ECONFLICT)
    inlet_error_prefix(err, "%s table properties: gave up after %d lost commits", what, r.attempts);
  else if (rc < 0)
    inlet_error_prefix(err, "%s table properties", what);
  if (out) *out = r;
  return rc;
}

int inlet_table_set_properties(inlet_set_properties_result *out, inlet_table *table,
                               const char *const *keys, const char *const *values, int32_t n,
                               inlet_error *err) {
  props_request q = {true, keys, values, n, false};
  return run(out, table, &q, "set", err);
}

int inlet_table_unset_properties(inlet_set_properties_result *out, inlet_table *table,
                                 const char *const *keys, int32_t n, bool if_exists,
                                 inlet_error *err) {
  props_request q = {false, keys, NULL, n, if_exists};
  return run(out, table, &q, "unset", err);
}
