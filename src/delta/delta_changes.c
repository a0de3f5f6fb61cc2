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
 */
#include <stdio.h>
#include <strings.h>

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
  int64_t ict;        /* inCommitTimestamp, -1 none */
  int64_t version;    /* for messages */
  const char *schema; /* borrowed: the schemaString the range must keep */
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

static int collect_action(void *ctx, const delta_action *a, inlet_error *err) {
  commit_acts *c = ctx;
  switch (a->kind) {
  case DELTA_ACTION_METADATA:
    FAIL_IF(!cdf_enabled(&a->u.metadata), err, INLET_EUNSUPPORTED,
            "change data was not recorded for version %lld: its metaData does not set "
            "delta.enableChangeDataFeed=true",
            (long long)c->version);
    FAIL_IF(!a->u.metadata.schema_string || !c->schema ||
                strcmp(a->u.metadata.schema_string, c->schema) != 0,
            err, INLET_EUNSUPPORTED,
            "version %lld changes the table schema: the change data feed is read only over "
            "ranges with one schema (end the range before it or start after it)",
            (long long)c->version);
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
  c.schema = ch->end->snap.metadata.schema_string;
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

int inlet_changes_open(inlet_changes **out, inlet_table *t, const inlet_changes_options *o,
                       inlet_error *err) {
  *out = NULL;
  FAIL_IF(!o || o->version != INLET_CHANGES_OPTIONS_VERSION, err, INLET_EINVAL,
          "changes: unknown options version %d (this library has %d)", o ? o->version : -1,
          INLET_CHANGES_OPTIONS_VERSION);
  FAIL_IF(o->start_version < 0, err, INLET_EINVAL,
          "changes: the start version must be 0 or more, not %lld", (long long)o->start_version);
  FAIL_IF(o->end_version >= 0 && o->end_version < o->start_version, err, INLET_EINVAL,
          "changes: the end version %lld is before the start version %lld",
          (long long)o->end_version, (long long)o->start_version);
  inlet_changes *ch = inlet_calloc(1, sizeof *ch);
  if (!ch) return inlet_fail(err, INLET_ENOMEM, "out of memory opening a change data feed read");
  int rc = 0;
  inlet_snapshot *start = NULL;
  ch->table = t;
  inlet_schema_init(&ch->cdc_schema);
  inlet_schema_init(&ch->cdc_phys);
  inlet_schema_init(&ch->out_schema);
  inlet_schema_init(&ch->full_schema);
  ch->start = o->start_version;
  TRY_GOTO(o->end_version >= 0 ? inlet_table_snapshot_at_version(&ch->end, t, o->end_version, err)
                               : inlet_table_snapshot(&ch->end, t, err));
  ch->last = ch->end->snap.version;
  FAIL_GOTO(ch->last < ch->start, err, INLET_ENOTFOUND,
            "cannot read changes from version %lld: the latest version is %lld",
            (long long)ch->start, (long long)ch->last);
  FAIL_GOTO(!ch->end->snap.has_schema, err, INLET_EUNSUPPORTED,
            "table metaData has no schemaString: no change data feed to read");
  TRY_GOTO(delta_log_list(&ch->listing, t->st, err));
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
  }
  ch->next_version = ch->start;
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
