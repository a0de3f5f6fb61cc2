/*
 * Change data feed reads (include/inlet/changes.h): the changed rows of a
 * version range, commit by commit.
 *
 * Spec: PROTOCOL.md "Add CDC File", "Change Data Files", "Deletion
 * Vectors"; Spark's CDCReader (the start version's metaData and every
 * metaData inside the range must enable delta.enableChangeDataFeed) and
 * delta-kernel's table_changes (an add and a remove of one file in one
 * commit change the rows whose deletion state differs).
 *
 * Each commit is read whole from the log (its actions only; data stays on
 * disk) and turned into units: one data or change data file and which of
 * its rows are changes. A unit is read through an ordinary table scan of a
 * one-file view of the end snapshot (the file's partition values come from
 * its action), without applying deletion vectors: the reader counts row
 * indexes itself and keeps the rows the unit's deletion vectors select.
 * Memory follows one commit's actions and one row group, not the range.
 *
 * Timestamps resolve as Spark's CDCReader.getVersionForCDC does (start:
 * DeltaSource.getStartingVersionFromTimestamp, end: time travel's
 * getActiveCommitAtTime), schema changes are checked as its
 * checkBatchCdfReadSchemaIncompatibility checks them in the default batch
 * schema mode (DeltaColumnMapping.hasNoColumnMappingSchemaChanges, then
 * SchemaUtils.isReadCompatible with tightening nullability forbidden and
 * no type widening); include/inlet/changes.h says what that means.
 */
#include <stddef.h>
#include <stdio.h>
#include <strings.h>
#include <time.h>

#include "batch/batch.h"
#include "delta/delta_dv.h"
#include "delta/delta_table_int.h"
#include "inlet/changes.h"
#include "util/util.h"

#define CHANGE_TYPE_COLUMN "_change_type"

/* One file of a commit and the rows of it that are changes: row r is one
 * when (r in dv_new) == in_new and (r in dv_old) == in_old, a missing
 * deletion vector being the empty set. */
typedef struct change_unit {
  delta_add file;   /* owned: path and partition values (dv_json unset) */
  char *dv_old;     /* owned descriptor JSON, may be NULL */
  char *dv_new;     /* owned descriptor JSON, may be NULL */
  bool in_old;      /* the row must be in dv_old */
  bool in_new;      /* the row must be in dv_new */
  bool cdc;         /* a _change_data file: every row, typed by its column */
  const char *type; /* static change type when !cdc */
} change_unit;

/* The actions of the commit being read. */
typedef struct commit_acts {
  delta_add *adds; /* owned */
  size_t n_adds, cap_adds;
  delta_remove *removes; /* owned */
  size_t n_removes, cap_removes;
  delta_add *cdcs; /* owned */
  size_t n_cdcs, cap_cdcs;
  int64_t ict;                    /* inCommitTimestamp, -1 none */
  int64_t version;                /* for messages */
  const struct inlet_changes *ch; /* borrowed: the reader (end schema, range) */
} commit_acts;

struct inlet_changes {
  inlet_table *table;                /* borrowed */
  inlet_snapshot *end;               /* owned: the snapshot at the end version */
  inlet_snapshot view;               /* one-file view of end (shallow: never reset) */
  delta_file view_file;              /* the file of the view (borrowed from the unit) */
  inlet_schema cdc_schema, cdc_phys; /* owned: table (physical) schema + _change_type */
  inlet_schema full_schema;          /* owned: table columns + the three change columns */
  inlet_schema out_schema;           /* owned: the requested columns of full_schema */
  int32_t *proj;                     /* owned: full_schema column of each output column */
  inlet_batch full;                  /* owned: the rows being emitted, every column */
  delta_log_listing listing;         /* owned */
  int64_t start, last, next_version;
  bool empty;               /* timestamps between the same two commits: no versions */
  const char *start_schema; /* borrowed during open: the start version's schemaString */
  int64_t changed_at;       /* first version in the range that sets another schema, or -1 */
  /* The commit being read. */
  int64_t version, timestamp_us;
  change_unit *units; /* owned */
  size_t n_units, cap_units, unit;
  /* The unit being read. */
  delta_scan *scan; /* owned, NULL between units */
  delta_dv *dv_old, *dv_new;
  int64_t row; /* file row index of the next row the scan returns */
  inlet_batch in;
  uint8_t *keep; /* owned, cap_keep bytes */
  int64_t cap_keep;
};

static void unit_reset(change_unit *u) {
  delta_add_reset(&u->file);
  inlet_free(u->dv_old);
  inlet_free(u->dv_new);
  memset(u, 0, sizeof *u);
}

static void acts_reset(commit_acts *c) {
  for (size_t i = 0; i < c->n_adds; i++)
    delta_add_reset(&c->adds[i]);
  for (size_t i = 0; i < c->n_removes; i++)
    delta_remove_reset(&c->removes[i]);
  for (size_t i = 0; i < c->n_cdcs; i++)
    delta_add_reset(&c->cdcs[i]);
  inlet_free(c->adds);
  inlet_free(c->removes);
  inlet_free(c->cdcs);
  memset(c, 0, sizeof *c);
}

/* Grows *@p v (of @p size-byte elements) to hold one more than *@p n. */
static int grow(void **v, size_t *cap, size_t n, size_t size, inlet_error *err) {
  if (n < *cap) return 0;
  size_t nc = *cap ? *cap * 2 : 16;
  void *p = inlet_realloc(*v, nc * size);
  if (!p) return inlet_fail(err, INLET_ENOMEM, "out of memory reading the change data feed");
  memset((char *)p + *cap * size, 0, (nc - *cap) * size);
  *v = p;
  *cap = nc;
  return 0;
}

static bool cdf_enabled(const delta_metadata *m) {
  const char *v = delta_metadata_conf(m, "delta.enableChangeDataFeed");
  return v && strcasecmp(v, "true") == 0;
}

/* ---- schema changes inside the range ------------------------------------- */

/* Appends ".name" (or "name" at the top) to the path in @p path. */
static void path_push(char *path, size_t cap, size_t *len, const char *name) {
  int n = snprintf(path + *len, cap - *len, "%s%s", *len ? "." : "", name);
  if (n > 0) *len = *len + (size_t)n < cap ? *len + (size_t)n : cap - 1;
}

/* Column mapping: every field of @p pold/@p lold (a version's physical and
 * logical fields) is still in @p pend by physical name, under the same
 * logical name in @p lend. Else *why says which was renamed or dropped. */
static bool cm_same(const inlet_field *pold, const inlet_field *lold, int32_t n_old,
                    const inlet_field *pend, const inlet_field *lend, int32_t n_end, char *path,
                    size_t cap, size_t len, char *why, size_t why_cap) {
  for (int32_t i = 0; i < n_old; i++) {
    size_t l = len;
    path_push(path, cap, &l, lold[i].name);
    int32_t j = 0;
    while (j < n_end && strcmp(pend[j].name, pold[i].name) != 0)
      j++;
    if (j == n_end) {
      snprintf(why, why_cap, "column \"%s\" is dropped (column mapping)", path);
      return false;
    }
    if (strcmp(lend[j].name, lold[i].name) != 0) {
      snprintf(why, why_cap, "column \"%s\" is renamed to \"%s\" (column mapping)", path,
               lend[j].name);
      return false;
    }
    if (pold[i].n_children > 0 && pend[j].n_children > 0 &&
        !cm_same(pold[i].children, lold[i].children, pold[i].n_children, pend[j].children,
                 lend[j].children, pend[j].n_children, path, cap, l, why, why_cap))
      return false;
    path[len] = '\0';
  }
  return true;
}

static bool read_compat_struct(const inlet_field *old, int32_t n_old, const inlet_field *nw,
                               int32_t n_new, char *path, size_t cap, size_t len, char *why,
                               size_t why_cap);

/* Spark's isReadCompatible for one field: @p old's values can be read as
 * @p nw's (same type, nullability not tightened, structs by the struct
 * rule; a void field reads as anything). */
static bool read_compat_field(const inlet_field *old, const inlet_field *nw, char *path, size_t cap,
                              size_t len, char *why, size_t why_cap) {
  if (old->nullable && !nw->nullable) {
    snprintf(why, why_cap, "column \"%s\" turns from nullable to required", path);
    return false;
  }
  const inlet_type *a = &old->type, *b = &nw->type;
  if (a->id == INLET_TYPE_NULL) return true;
  if (a->id == INLET_TYPE_STRUCT && b->id == INLET_TYPE_STRUCT)
    return read_compat_struct(old->children, old->n_children, nw->children, nw->n_children, path,
                              cap, len, why, why_cap);
  bool same = a->id == b->id && a->unit == b->unit && a->utc == b->utc &&
              a->byte_width == b->byte_width && a->precision == b->precision &&
              a->scale == b->scale && a->ext == b->ext && old->n_children == nw->n_children;
  for (int32_t k = 0; same && k < old->n_children; k++) {
    /* List elements, map entries: the same rules one level down. */
    size_t l = len;
    path_push(path, cap, &l, old->children[k].name);
    if (!read_compat_field(&old->children[k], &nw->children[k], path, cap, l, why, why_cap))
      return false;
    path[len] = '\0';
  }
  if (!same) {
    char ta[128], tb[128];
    inlet_field_type_name(old, ta, sizeof ta);
    inlet_field_type_name(nw, tb, sizeof tb);
    snprintf(why, why_cap, "column \"%s\" changes type from %s to %s", path, ta, tb);
  }
  return same;
}

static bool read_compat_struct(const inlet_field *old, int32_t n_old, const inlet_field *nw,
                               int32_t n_new, char *path, size_t cap, size_t len, char *why,
                               size_t why_cap) {
  for (int32_t i = 0; i < n_old; i++) {
    int32_t j = 0;
    while (j < n_new && strcasecmp(nw[j].name, old[i].name) != 0)
      j++;
    size_t l = len;
    path_push(path, cap, &l, old[i].name);
    if (j == n_new) {
      snprintf(why, why_cap, "column \"%s\" is missing from the read schema", path);
      return false;
    }
    if (strcmp(nw[j].name, old[i].name) != 0) {
      snprintf(why, why_cap, "column \"%s\" is renamed to \"%s\"", path, nw[j].name);
      return false;
    }
    if (!read_compat_field(&old[i], &nw[j], path, cap, l, why, why_cap)) return false;
    path[len] = '\0';
  }
  return true;
}

static bool same_partitioning(const delta_metadata *a, const delta_metadata *b) {
  if (a->n_partition_columns != b->n_partition_columns) return false;
  for (int32_t i = 0; i < a->n_partition_columns; i++)
    if (strcmp(a->partition_columns[i], b->partition_columns[i]) != 0) return false;
  return true;
}

/* Refuses a range whose version @p v (the start version when @p at_start,
 * else a metaData committed inside the range) has a schema the end version's
 * cannot read (Spark's DELTA_CHANGE_DATA_FEED_INCOMPATIBLE_DATA_SCHEMA and
 * _SCHEMA_CHANGE). */
static int check_schema(const inlet_changes *ch, const delta_metadata *m, int64_t v, bool at_start,
                        inlet_error *err) {
  const delta_snapshot *end = &ch->end->snap;
  if (m->schema_string && end->metadata.schema_string &&
      strcmp(m->schema_string, end->metadata.schema_string) == 0 &&
      same_partitioning(m, &end->metadata))
    return 0;
  FAIL_IF(!m->schema_string, err, INLET_ECORRUPT,
          "the metaData of version %lld has no schemaString", (long long)v);
  inlet_schema lold, pold;
  inlet_schema_init(&lold);
  inlet_schema_init(&pold);
  char why[1024] = "", path[512] = "";
  int rc = delta_schema_parse(&lold, m->schema_string, err);
  int mode = rc == 0 ? delta_column_mapping_mode(m) : DELTA_CM_NONE;
  if (rc == 0 && end->cm_mode != DELTA_CM_NONE && mode > DELTA_CM_NONE)
    rc = delta_schema_parse_physical(&pold, m->schema_string, mode, -1, err);
  if (rc < 0) goto done;
  bool ok = true;
  if (end->cm_mode != DELTA_CM_NONE) {
    /* Before column mapping was turned on, physical names were the
     * logical ones (the upgrade keeps them). */
    const inlet_schema *po = mode > DELTA_CM_NONE ? &pold : &lold;
    ok = cm_same(po->fields, lold.fields, lold.n_fields, end->phys_schema.fields,
                 end->schema.fields, end->schema.n_fields, path, sizeof path, 0, why, sizeof why);
    if (ok && !same_partitioning(m, &end->metadata)) {
      snprintf(why, sizeof why, "the partition columns change");
      ok = false;
    }
  }
  if (ok)
    ok = read_compat_struct(lold.fields, lold.n_fields, end->schema.fields, end->schema.n_fields,
                            path, sizeof path, 0, why, sizeof why);
  if (!ok && at_start && ch->changed_at > v)
    rc =
        inlet_fail(err, INLET_EUNSUPPORTED,
                   "cannot read changes of versions %lld..%lld in the schema of version %lld: "
                   "version %lld changes the schema incompatibly for the data of version %lld "
                   "(%s); read versions %lld..%lld and %lld..%lld separately",
                   (long long)ch->start, (long long)ch->last, (long long)ch->last,
                   (long long)ch->changed_at, (long long)v, why, (long long)ch->start,
                   (long long)(ch->changed_at - 1), (long long)ch->changed_at, (long long)ch->last);
  else if (!ok && at_start)
    rc = inlet_fail(err, INLET_EUNSUPPORTED,
                    "cannot read changes of versions %lld..%lld in the schema of version %lld: "
                    "the data of version %lld has an incompatible schema (%s)",
                    (long long)ch->start, (long long)ch->last, (long long)ch->last, (long long)v,
                    why);
  else if (!ok)
    rc = inlet_fail(err, INLET_EUNSUPPORTED,
                    "cannot read changes of versions %lld..%lld in the schema of version %lld: "
                    "version %lld changes the schema incompatibly (%s); read versions "
                    "%lld..%lld and %lld..%lld separately",
                    (long long)ch->start, (long long)ch->last, (long long)ch->last, (long long)v,
                    why, (long long)ch->start, (long long)(v - 1), (long long)v,
                    (long long)ch->last);
done:
  inlet_schema_reset(&lold);
  inlet_schema_reset(&pold);
  return rc;
}

static int collect_action(void *ctx, const delta_action *a, inlet_error *err) {
  commit_acts *c = ctx;
  switch (a->kind) {
  case DELTA_ACTION_METADATA:
    FAIL_IF(!cdf_enabled(&a->u.metadata), err, INLET_EUNSUPPORTED,
            "change data was not recorded for version %lld: its metaData does not set "
            "delta.enableChangeDataFeed=true",
            (long long)c->version);
    /* A metaData at the start version starts the range's data; Spark
     * checks it as the start version's schema (check_range), not as a
     * change. */
    if (c->version > c->ch->start) TRY(check_schema(c->ch, &a->u.metadata, c->version, false, err));
    return 0;
  case DELTA_ACTION_COMMIT_INFO: c->ict = delta_commit_info_ict(a->u.commit_info); return 0;
  case DELTA_ACTION_ADD:
    if (!a->u.add.data_change) return 0;
    TRY(grow((void **)&c->adds, &c->cap_adds, c->n_adds, sizeof *c->adds, err));
    TRY(delta_add_copy(&c->adds[c->n_adds], &a->u.add, err));
    c->n_adds++;
    return 0;
  case DELTA_ACTION_REMOVE:
    if (!a->u.remove.data_change) return 0;
    TRY(grow((void **)&c->removes, &c->cap_removes, c->n_removes, sizeof *c->removes, err));
    TRY(delta_remove_copy(&c->removes[c->n_removes], &a->u.remove, err));
    c->n_removes++;
    return 0;
  case DELTA_ACTION_CDC:
    TRY(grow((void **)&c->cdcs, &c->cap_cdcs, c->n_cdcs, sizeof *c->cdcs, err));
    TRY(delta_add_copy(&c->cdcs[c->n_cdcs], &a->u.add, err));
    c->n_cdcs++;
    return 0;
  default: return 0;
  }
}

/* Appends a unit reading @p path with @p pv; takes nothing over. */
static int add_unit(inlet_changes *ch, const char *path, const delta_kv *pv, int32_t n_pv,
                    int64_t size, const char *dv_old, const char *dv_new, bool in_old, bool in_new,
                    bool cdc, const char *type, inlet_error *err) {
  TRY(grow((void **)&ch->units, &ch->cap_units, ch->n_units, sizeof *ch->units, err));
  change_unit *u = &ch->units[ch->n_units];
  delta_add tmp = {.path = (char *)path,
                   .partition_values = (delta_kv *)pv,
                   .n_partition_values = n_pv,
                   .size = size};
  int rc = delta_add_copy(&u->file, &tmp, err);
  bool oom = false;
  if (rc == 0 && dv_old && !(u->dv_old = inlet_strdup(dv_old))) oom = true;
  if (rc == 0 && dv_new && !(u->dv_new = inlet_strdup(dv_new))) oom = true;
  if (rc == 0 && oom) rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
  if (rc < 0) {
    unit_reset(u);
    return rc;
  }
  u->in_old = in_old;
  u->in_new = in_new;
  u->cdc = cdc;
  u->type = type;
  ch->n_units++;
  return 0;
}

/* The units of commit @p c (PROTOCOL.md "Change Data Files"). */
static int plan_commit(inlet_changes *ch, const commit_acts *c, inlet_error *err) {
  if (c->n_cdcs > 0) {
    for (size_t i = 0; i < c->n_cdcs; i++) {
      const delta_add *f = &c->cdcs[i];
      TRY(add_unit(ch, f->path, f->partition_values, f->n_partition_values, f->size, NULL, NULL,
                   false, false, true, NULL, err));
    }
    return 0;
  }
  for (size_t i = 0; i < c->n_adds; i++) {
    const delta_add *a = &c->adds[i];
    const delta_remove *pair = NULL;
    for (size_t j = 0; j < c->n_removes && !pair; j++)
      if (strcmp(c->removes[j].path, a->path) == 0) pair = &c->removes[j];
    if (!pair) {
      /* New rows: those the add's deletion vector (if any) keeps. */
      TRY(add_unit(ch, a->path, a->partition_values, a->n_partition_values, a->size, NULL,
                   a->dv_json, false, false, false, INLET_CHANGE_INSERT, err));
      continue;
    }
    /* The same file with another deletion vector: rows deleted now and not
     * before are deletes, rows deleted before and not now are inserts. */
    if (a->dv_json)
      TRY(add_unit(ch, a->path, a->partition_values, a->n_partition_values, a->size, pair->dv_json,
                   a->dv_json, false, true, false, INLET_CHANGE_DELETE, err));
    if (pair->dv_json)
      TRY(add_unit(ch, a->path, a->partition_values, a->n_partition_values, a->size, pair->dv_json,
                   a->dv_json, true, false, false, INLET_CHANGE_INSERT, err));
  }
  for (size_t j = 0; j < c->n_removes; j++) {
    const delta_remove *r = &c->removes[j];
    bool paired = false;
    for (size_t i = 0; i < c->n_adds && !paired; i++)
      paired = strcmp(c->adds[i].path, r->path) == 0;
    if (paired) continue;
    /* The rows the file still had: those its deletion vector keeps. */
    TRY(add_unit(ch, r->path, r->partition_values, r->n_partition_values, r->size, r->dv_json, NULL,
                 false, false, false, INLET_CHANGE_DELETE, err));
  }
  return 0;
}

static void clear_units(inlet_changes *ch) {
  for (size_t i = 0; i < ch->n_units; i++)
    unit_reset(&ch->units[i]);
  ch->n_units = 0;
  ch->unit = 0;
}

/* Reads the next commit of the range into units. 1 when one was read, 0
 * past the end. */
static int next_commit(inlet_changes *ch, inlet_error *err) {
  clear_units(ch);
  if (ch->next_version > ch->last) return 0;
  int64_t v = ch->next_version++;
  int64_t idx = delta_log_listing_find(&ch->listing, v);
  FAIL_IF(idx >= ch->listing.n_commits || ch->listing.commit_versions[idx] != v, err,
          INLET_ENOTFOUND, "the commit of version %lld is gone from _delta_log", (long long)v);
  commit_acts c;
  memset(&c, 0, sizeof c);
  c.ict = -1;
  c.version = v;
  c.ch = ch;
  int rc = delta_log_read_commit(ch->table->st, ch->table->root_abs, v, collect_action, &c, err);
  if (rc == 0) rc = plan_commit(ch, &c, err);
  int64_t ms = c.ict >= 0 ? c.ict : ch->listing.commit_mtimes[idx];
  acts_reset(&c);
  TRY(rc);
  ch->version = v;
  ch->timestamp_us = ms * 1000;
  return 1;
}

static int open_unit(inlet_changes *ch, const change_unit *u, inlet_error *err) {
  inlet_table *t = ch->table;
  ch->view.table = t;
  ch->view.snap = ch->end->snap;
  memset(&ch->view_file, 0, sizeof ch->view_file);
  ch->view_file.add = u->file;
  ch->view_file.num_records = -1;
  ch->view.snap.files = &ch->view_file;
  ch->view.snap.n_files = 1;
  if (u->cdc) {
    ch->view.snap.schema = ch->cdc_schema;
    if (ch->view.snap.cm_mode) ch->view.snap.phys_schema = ch->cdc_phys;
  }
  ch->row = 0;
  if (u->dv_old) TRY(delta_dv_load(t->st, t->root_abs, u->file.path, u->dv_old, &ch->dv_old, err));
  if (u->dv_new) TRY(delta_dv_load(t->st, t->root_abs, u->file.path, u->dv_new, &ch->dv_new, err));
  return delta_scan_open(&ch->scan, &ch->view, err);
}

static void close_unit(inlet_changes *ch) {
  delta_scan_free(ch->scan);
  ch->scan = NULL;
  delta_dv_free(ch->dv_old);
  delta_dv_free(ch->dv_new);
  ch->dv_old = ch->dv_new = NULL;
}

/* Keeps the rows of ch->in the unit selects; counts file row indexes. */
static int select_rows(inlet_changes *ch, const change_unit *u, inlet_error *err) {
  int64_t n = ch->in.num_rows;
  int64_t first = ch->row;
  ch->row += n;
  if (u->cdc) {
    /* Every row is a change; its type must be one the protocol names. */
    const inlet_array *a = &ch->in.columns[ch->in.schema.n_fields - 1];
    for (int64_t r = 0; r < n; r++) {
      bool valid = !a->validity || (a->validity[r / 8] >> (r % 8) & 1);
      const char *s = valid ? (const char *)a->values + a->offsets[r] : "";
      size_t len = valid ? (size_t)(a->offsets[r + 1] - a->offsets[r]) : 0;
      static const char *const types[] = {INLET_CHANGE_INSERT, INLET_CHANGE_DELETE,
                                          INLET_CHANGE_UPDATE_PREIMAGE,
                                          INLET_CHANGE_UPDATE_POSTIMAGE};
      bool ok = false;
      for (int k = 0; valid && k < 4 && !ok; k++)
        ok = strlen(types[k]) == len && memcmp(types[k], s, len) == 0;
      FAIL_IF(!ok, err, INLET_ECORRUPT,
              "change data file \"%s\" (version %lld) row %lld: %s is not a change type",
              u->file.path, (long long)ch->version, (long long)(first + r),
              valid ? "its _change_type" : "a null _change_type");
    }
    return 0;
  }
  if (!u->dv_old && !u->dv_new && !u->in_old && !u->in_new) return 0;
  if (n > ch->cap_keep) {
    uint8_t *k = inlet_realloc(ch->keep, (size_t)n);
    if (!k) return inlet_fail(err, INLET_ENOMEM, "out of memory");
    ch->keep = k;
    ch->cap_keep = n;
  }
  for (int64_t r = 0; r < n; r++) {
    uint64_t row = (uint64_t)(first + r);
    bool in_old = ch->dv_old && delta_dv_contains(ch->dv_old, row);
    bool in_new = ch->dv_new && delta_dv_contains(ch->dv_new, row);
    ch->keep[r] = in_old == u->in_old && in_new == u->in_new;
  }
  return batch_keep_rows(&ch->in, ch->keep, err);
}

/* Moves the selected rows of ch->in into @p out with the change columns. */
static int emit_full(inlet_changes *ch, const change_unit *u, inlet_batch *out, inlet_error *err) {
  inlet_batch_reset(out);
  TRY(inlet_batch_init(out, &ch->full_schema, err));
  int32_t nd = ch->end->snap.schema.n_fields;
  for (int32_t i = 0; i < nd; i++) {
    inlet_array tmp = out->columns[i];
    out->columns[i] = ch->in.columns[i];
    ch->in.columns[i] = tmp;
  }
  int64_t n = ch->in.num_rows;
  const inlet_field *f = ch->full_schema.fields;
  if (u->cdc) {
    /* The file's column (validated non-null by select_rows). */
    inlet_array tmp = out->columns[nd];
    out->columns[nd] = ch->in.columns[nd];
    ch->in.columns[nd] = tmp;
  } else {
    size_t len = strlen(u->type);
    for (int64_t r = 0; r < n; r++)
      TRY(inlet_array_append_bytes(&out->columns[nd], &f[nd], u->type, len, err));
  }
  for (int64_t r = 0; r < n; r++) {
    TRY(inlet_array_append_int(&out->columns[nd + 1], &f[nd + 1], ch->version, err));
    TRY(inlet_array_append_int(&out->columns[nd + 2], &f[nd + 2], ch->timestamp_us, err));
  }
  out->num_rows = n;
  return 0;
}

int inlet_changes_next(inlet_changes *ch, inlet_batch *out, inlet_error *err) {
  for (;;) {
    if (!ch->scan) {
      if (ch->unit >= ch->n_units) {
        int rc = next_commit(ch, err);
        if (rc <= 0) return rc;
        continue;
      }
      int rc = open_unit(ch, &ch->units[ch->unit], err);
      if (rc < 0) {
        close_unit(ch);
        return rc;
      }
    }
    const change_unit *u = &ch->units[ch->unit];
    int rc = delta_scan_next(ch->scan, &ch->in, err);
    if (rc < 0) return rc;
    if (rc == 0) {
      close_unit(ch);
      ch->unit++;
      continue;
    }
    TRY(select_rows(ch, u, err));
    if (ch->in.num_rows == 0) continue;
    TRY(emit_full(ch, u, &ch->full, err));
    /* The requested columns, in their order. */
    inlet_batch_reset(out);
    TRY(inlet_batch_init(out, &ch->out_schema, err));
    for (int32_t j = 0; j < ch->out_schema.n_fields; j++) {
      inlet_array tmp = out->columns[j];
      out->columns[j] = ch->full.columns[ch->proj[j]];
      ch->full.columns[ch->proj[j]] = tmp;
    }
    out->num_rows = ch->full.num_rows;
    return 1;
  }
}

static int add_field(inlet_schema *s, const char *name, inlet_type_id id, bool nullable,
                     inlet_error *err) {
  inlet_field f;
  memset(&f, 0, sizeof f);
  f.name = (char *)name;
  f.type.id = id;
  if (id == INLET_TYPE_TIMESTAMP) {
    f.type.unit = INLET_UNIT_MICRO;
    f.type.utc = true;
  }
  f.nullable = nullable;
  f.field_id = -1;
  return inlet_schema_add_field(s, &f, err);
}

/* The output columns: options->columns (exact name first, then
 * case-insensitive) or every column of full_schema. */
static int project(inlet_changes *ch, const inlet_changes_options *o, inlet_error *err) {
  const inlet_schema *s = &ch->full_schema;
  int32_t n = o->n_columns > 0 ? o->n_columns : s->n_fields;
  ch->proj = inlet_calloc((size_t)n + 1, sizeof *ch->proj);
  if (!ch->proj) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  for (int32_t j = 0; j < n; j++) {
    int32_t c = j;
    if (o->n_columns > 0) {
      const char *name = o->columns[j];
      c = -1;
      for (int32_t i = 0; i < s->n_fields && c < 0; i++)
        if (strcmp(s->fields[i].name, name) == 0) c = i;
      for (int32_t i = 0; i < s->n_fields && c < 0; i++)
        if (strcasecmp(s->fields[i].name, name) == 0) c = i;
      FAIL_IF(c < 0, err, INLET_ENOTFOUND, "no column named \"%s\" in the change data feed", name);
      for (int32_t k = 0; k < j; k++)
        FAIL_IF(ch->proj[k] == c, err, INLET_EINVAL, "column \"%s\" is requested twice", name);
    }
    ch->proj[j] = c;
    TRY(inlet_schema_add_field(&ch->out_schema, &s->fields[c], err));
  }
  return 0;
}

/* Refuses a range whose commits are not all in the log. */
static int check_range(inlet_changes *ch, inlet_error *err) {
  const delta_log_listing *l = &ch->listing;
  int64_t idx = delta_log_listing_find(l, ch->start);
  int64_t oldest = l->n_commits ? l->commit_versions[0] : -1;
  FAIL_IF(idx >= l->n_commits || l->commit_versions[idx] != ch->start, err, INLET_ENOTFOUND,
          "cannot read changes from version %lld: its commit is not in _delta_log (log cleanup "
          "removed it; the oldest commit there is version %lld)",
          (long long)ch->start, (long long)oldest);
  for (int64_t v = ch->start; v <= ch->last; v++, idx++)
    FAIL_IF(idx >= l->n_commits || l->commit_versions[idx] != v, err, INLET_ENOTFOUND,
            "cannot read changes of version %lld: its commit is not in _delta_log", (long long)v);
  /* The start version's metaData (is the feed enabled there?) needs its
   * snapshot: commit 0 or a checkpoint at or below it, with every commit
   * after it still there. */
  if (oldest == 0) return 0;
  for (int64_t i = 0; i < l->n_checkpoints; i++) {
    int64_t cv = l->checkpoints[i].version;
    if (cv >= oldest - 1 && cv <= ch->start) return 0;
  }
  return inlet_fail(err, INLET_ENOTFOUND,
                    "cannot read changes from version %lld: log cleanup removed the commits "
                    "before version %lld and no checkpoint at or below version %lld remains, "
                    "so whether change data was recorded there cannot be told; start at a "
                    "checkpoint version or later",
                    (long long)ch->start, (long long)oldest, (long long)ch->start);
}

/* Checks the metaData of each commit in (start, last] before any row is
 * read, so that a refusal names its version up front, as Spark's does. */
static int prescan_action(void *ctx, const delta_action *a, inlet_error *err) {
  commit_acts *c = ctx;
  if (a->kind != DELTA_ACTION_METADATA) return 0;
  inlet_changes *ch = (inlet_changes *)c->ch;
  const char *s = a->u.metadata.schema_string;
  if (ch->changed_at < 0 && (!s || !ch->start_schema || strcmp(s, ch->start_schema) != 0))
    ch->changed_at = c->version;
  return check_schema(ch, &a->u.metadata, c->version, false, err);
}

static int prescan_schemas(inlet_changes *ch, inlet_error *err) {
  commit_acts c;
  memset(&c, 0, sizeof c);
  c.ch = ch;
  for (int64_t v = ch->start + 1; v <= ch->last; v++) {
    c.version = v;
    TRY(delta_log_read_commit(ch->table->st, ch->table->root_abs, v, prescan_action, &c, err));
  }
  return 0;
}

static void format_ms(char out[96], int64_t ms) {
  time_t secs = (time_t)(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
  struct tm tm;
  if (!gmtime_r(&secs, &tm)) {
    snprintf(out, 96, "%lld ms", (long long)ms);
    return;
  }
  int64_t frac = ms - (int64_t)secs * 1000;
  snprintf(out, 96, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
           tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)frac);
}

/* The versions the options' timestamps select (Spark's getVersionForCDC);
 * *start and *end keep the options' versions where no timestamp is given. */
static int resolve_timestamps(inlet_table *t, const inlet_changes_options *o, int64_t *start,
                              int64_t *end, bool *empty, inlet_error *err) {
  *empty = false;
  bool by_start = o->start_timestamp_ms != INLET_CHANGES_NO_TIMESTAMP;
  bool by_end = o->end_timestamp_ms != INLET_CHANGES_NO_TIMESTAMP;
  if (!by_start && !by_end) return 0;
  char ts[96], last_ts[96];
  inlet_snapshot *latest = NULL;
  TRY(inlet_table_snapshot(&latest, t, err));
  const delta_snapshot *l = &latest->snap;
  format_ms(last_ts, l->timestamp_ms);
  int rc = 0;
  int64_t v, vts, first;
  if (by_start) {
    /* The first version committed at or after the timestamp: the newest
     * one at or before it when exactly at it, else the one after. */
    format_ms(ts, o->start_timestamp_ms);
    TRY_GOTO(delta_commit_at_timestamp(t->st, t->root_abs, l, o->start_timestamp_ms, false, &v,
                                       &vts, &first, err));
    *start = v < 0 ? first : vts >= o->start_timestamp_ms ? v : v + 1;
    FAIL_GOTO(*start > l->version, err, INLET_ENOTFOUND,
              "start timestamp %s is after the latest version %lld (committed at %s): use a "
              "timestamp at or before %s",
              ts, (long long)l->version, last_ts, last_ts);
  }
  if (by_end) {
    format_ms(ts, o->end_timestamp_ms);
    TRY_GOTO(delta_commit_at_timestamp(t->st, t->root_abs, l, o->end_timestamp_ms, true, &v, &vts,
                                       &first, err));
    FAIL_GOTO(v < 0, err, INLET_ENOTFOUND,
              "end timestamp %s is before the earliest version available (version %lld)", ts,
              (long long)first);
    FAIL_GOTO(v == l->version && vts < o->end_timestamp_ms, err, INLET_ENOTFOUND,
              "end timestamp %s is after the latest version %lld (committed at %s): use a "
              "timestamp at or before %s",
              ts, (long long)l->version, last_ts, last_ts);
    *end = v;
  }
  if (by_start && by_end) {
    char ts2[96];
    format_ms(ts, o->start_timestamp_ms);
    format_ms(ts2, o->end_timestamp_ms);
    FAIL_GOTO(o->start_timestamp_ms > o->end_timestamp_ms, err, INLET_EINVAL,
              "changes: the start timestamp %s is after the end timestamp %s", ts, ts2);
    /* Both between the same two commits: nothing changed in that time. */
    if (*end == *start - 1) *empty = true;
  }
  FAIL_GOTO(*end >= 0 && *end < *start && !*empty, err, INLET_EINVAL,
            "changes: the range from version %lld to version %lld ends before it starts",
            (long long)*start, (long long)*end);
done:
  inlet_snapshot_free(latest);
  return rc;
}

int inlet_changes_open(inlet_changes **out, inlet_table *t, const inlet_changes_options *o,
                       inlet_error *err) {
  *out = NULL;
  FAIL_IF(!o || (o->version != 1 && o->version != INLET_CHANGES_OPTIONS_VERSION), err, INLET_EINVAL,
          "changes: unknown options version %d (this library has %d)", o ? o->version : -1,
          INLET_CHANGES_OPTIONS_VERSION);
  inlet_changes_options opts = INLET_CHANGES_OPTIONS_INIT;
  if (o->version == 1) /* a version-1 struct ends before the timestamps */
    memcpy(&opts, o, offsetof(inlet_changes_options, start_timestamp_ms));
  else
    opts = *o;
  o = &opts;
  FAIL_IF(o->start_timestamp_ms == INLET_CHANGES_NO_TIMESTAMP && o->start_version < 0, err,
          INLET_EINVAL, "changes: the start version must be 0 or more, not %lld",
          (long long)o->start_version);
  FAIL_IF(o->start_timestamp_ms == INLET_CHANGES_NO_TIMESTAMP &&
              o->end_timestamp_ms == INLET_CHANGES_NO_TIMESTAMP && o->end_version >= 0 &&
              o->end_version < o->start_version,
          err, INLET_EINVAL, "changes: the end version %lld is before the start version %lld",
          (long long)o->end_version, (long long)o->start_version);
  int64_t start_v = o->start_version, end_v = o->end_version;
  bool empty = false;
  TRY(resolve_timestamps(t, o, &start_v, &end_v, &empty, err));
  inlet_changes *ch = inlet_calloc(1, sizeof *ch);
  if (!ch) return inlet_fail(err, INLET_ENOMEM, "out of memory opening a change data feed read");
  int rc = 0;
  inlet_snapshot *start = NULL;
  ch->table = t;
  inlet_schema_init(&ch->cdc_schema);
  inlet_schema_init(&ch->cdc_phys);
  inlet_schema_init(&ch->out_schema);
  inlet_schema_init(&ch->full_schema);
  ch->start = start_v;
  ch->empty = empty;
  ch->changed_at = -1;
  TRY_GOTO(end_v >= 0 ? inlet_table_snapshot_at_version(&ch->end, t, end_v, err)
                      : inlet_table_snapshot(&ch->end, t, err));
  ch->last = ch->end->snap.version;
  FAIL_GOTO(!empty && ch->last < ch->start, err, INLET_ENOTFOUND,
            "cannot read changes from version %lld: the latest version is %lld",
            (long long)ch->start, (long long)ch->last);
  FAIL_GOTO(!ch->end->snap.has_schema, err, INLET_EUNSUPPORTED,
            "table metaData has no schemaString: no change data feed to read");
  TRY_GOTO(delta_log_list(&ch->listing, t->st, err));
  ch->next_version = ch->start;
  if (empty) goto schema; /* Spark answers before any check */
  TRY_GOTO(check_range(ch, err));
  /* Spark's CDCReader: change data must have been recorded from the start
   * version on (later metaData actions are checked commit by commit). */
  if (ch->start == ch->last) {
    FAIL_GOTO(!cdf_enabled(&ch->end->snap.metadata), err, INLET_EUNSUPPORTED,
              "change data was not recorded for version %lld: the table does not set "
              "delta.enableChangeDataFeed=true",
              (long long)ch->start);
  } else {
    TRY_GOTO(inlet_table_snapshot_at_version(&start, t, ch->start, err));
    FAIL_GOTO(!cdf_enabled(&start->snap.metadata), err, INLET_EUNSUPPORTED,
              "change data was not recorded for version %lld: the table does not set "
              "delta.enableChangeDataFeed=true there",
              (long long)ch->start);
    /* A schema that differs at the end: find the version that changed it
     * incompatibly, then hold the start version's schema against the end's
     * (Spark checks both). Equal schemas leave the commit-by-commit check
     * (a rename and its undoing inside the range). */
    const char *s0 = start->snap.metadata.schema_string, *s1 = ch->end->snap.metadata.schema_string;
    if (!s0 || !s1 || strcmp(s0, s1) != 0 ||
        !same_partitioning(&start->snap.metadata, &ch->end->snap.metadata)) {
      ch->start_schema = s0;
      TRY_GOTO(prescan_schemas(ch, err));
      TRY_GOTO(check_schema(ch, &start->snap.metadata, ch->start, true, err));
      ch->start_schema = NULL;
    }
  }
schema:
  TRY_GOTO(inlet_schema_copy(&ch->cdc_schema, &ch->end->snap.schema, err));
  TRY_GOTO(add_field(&ch->cdc_schema, CHANGE_TYPE_COLUMN, INLET_TYPE_STRING, true, err));
  if (ch->end->snap.cm_mode) {
    TRY_GOTO(inlet_schema_copy(&ch->cdc_phys, &ch->end->snap.phys_schema, err));
    TRY_GOTO(add_field(&ch->cdc_phys, CHANGE_TYPE_COLUMN, INLET_TYPE_STRING, true, err));
  }
  TRY_GOTO(inlet_schema_copy(&ch->full_schema, &ch->end->snap.schema, err));
  TRY_GOTO(add_field(&ch->full_schema, CHANGE_TYPE_COLUMN, INLET_TYPE_STRING, false, err));
  TRY_GOTO(add_field(&ch->full_schema, "_commit_version", INLET_TYPE_INT64, false, err));
  TRY_GOTO(add_field(&ch->full_schema, "_commit_timestamp", INLET_TYPE_TIMESTAMP, false, err));
  TRY_GOTO(project(ch, o, err));
done:
  inlet_snapshot_free(start);
  if (rc < 0)
    inlet_changes_free(ch);
  else
    *out = ch;
  return rc;
}

const inlet_schema *inlet_changes_schema(const inlet_changes *ch) {
  return &ch->out_schema;
}

int64_t inlet_changes_end_version(const inlet_changes *ch) {
  return ch->last;
}

int64_t inlet_changes_start_version(const inlet_changes *ch) {
  return ch->start;
}

void inlet_changes_free(inlet_changes *ch) {
  if (!ch) return;
  close_unit(ch);
  clear_units(ch);
  inlet_free(ch->units);
  inlet_batch_reset(&ch->in);
  inlet_free(ch->keep);
  inlet_schema_reset(&ch->cdc_schema);
  inlet_schema_reset(&ch->cdc_phys);
  inlet_schema_reset(&ch->out_schema);
  inlet_schema_reset(&ch->full_schema);
  inlet_free(ch->proj);
  inlet_batch_reset(&ch->full);
  delta_log_listing_reset(&ch->listing);
  inlet_snapshot_free(ch->end);
  inlet_free(ch);
}
