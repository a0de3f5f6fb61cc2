/*
 * Row tracking (PROTOCOL.md "Row Tracking"): which tables assign row ids,
 * the delta.rowTracking high-water mark, the materialized row id and row
 * commit version columns that rewrites write and scans read.
 */
#ifndef INLET_DELTA_ROW_TRACKING_H
#define INLET_DELTA_ROW_TRACKING_H

#include "delta/delta.h"

#define DELTA_RT_DOMAIN "delta.rowTracking"
#define DELTA_RT_ENABLE "delta.enableRowTracking"
#define DELTA_RT_SUSPENDED "delta.rowTrackingSuspended"
#define DELTA_RT_ID_COL "delta.rowTracking.materializedRowIdColumnName"
#define DELTA_RT_VER_COL "delta.rowTracking.materializedRowCommitVersionColumnName"

/* "Writer Requirements for Row Tracking": rowTracking in writerFeatures and
 * delta.rowTrackingSuspended not true: every add gets baseRowId and
 * defaultRowCommitVersion. */
bool delta_rt_assigns(const delta_protocol *p, const delta_metadata *m);
/* delta.enableRowTracking=true (and supported): rows have ids readers may
 * rely on, and rewrites preserve them. */
bool delta_rt_enabled(const delta_protocol *p, const delta_metadata *m);
/* The rowIdHighWaterMark of the delta.rowTracking domain among @p d, -1
 * when there is none. INLET_ECORRUPT for a configuration without one. */
int delta_rt_high_water_mark(const delta_domain *d, int64_t n, int64_t *out, inlet_error *err);
/* The same for one configuration text (a commit's domainMetadata). */
int delta_rt_parse_hwm(const char *configuration, int64_t *out, inlet_error *err);

/* With row tracking enabled and both materialized column names in the
 * metaData: appends the two materialized columns (nullable long, no field
 * id) to @p s, the columns a rewritten data file stores. *@p added tells
 * whether it did. */
int delta_rt_schema_add(inlet_schema *s, const delta_protocol *p, const delta_metadata *m,
                        bool *added, inlet_error *err);
/*
 * Fills the materialized columns of @p b (rows @p first_row.. of the file
 * of @p a, in physical order, before any deletion vector drops a row): a
 * null row id becomes baseRowId + position, a null row commit version the
 * add's defaultRowCommitVersion, so a rewritten row keeps its stable id and
 * version. Columns absent from @p b are left alone; so are the nulls of a
 * file without baseRowId (its rows get fresh ids).
 */
int delta_rt_fill(inlet_batch *b, const delta_metadata *m, const delta_add *a, int64_t first_row,
                  inlet_error *err);

/* The commitInfo tag Delta Spark's DELETE, UPDATE, MERGE and OPTIMIZE set
 * on tables with row tracking enabled: "true" when the commit kept every
 * surviving row's id and commit version; absent means not preserved. */
#define DELTA_RT_PRESERVED_TAG "delta.rowTracking.preserved"
/* Tags @p t (a rewrite: delete or compaction) as Spark does: on a table with
 * row tracking enabled, "true" when @p preserved, else "false"; on other
 * tables no tag. 0, INLET_ENOMEM. */
int delta_rt_tag_preserved(delta_txn *t, const delta_protocol *p, const delta_metadata *m,
                           bool preserved, inlet_error *err);

/* Sets delta.enableRowTracking=true in @p m (replacing another value) and
 * names the materialized columns when it lacks them: the metaData of a
 * table whose row tracking is switched on. 0, INLET_ENOMEM. */
int delta_rt_enable(delta_metadata *m, inlet_error *err);

/* New tables with delta.enableRowTracking=true: names the materialized
 * columns as Spark does (_row-id-col-<uuid>, _row-commit-version-col-<uuid>)
 * in the configuration when it lacks them. */
int delta_rt_assign_names(delta_metadata *m, inlet_error *err);

#endif /* INLET_DELTA_ROW_TRACKING_H */
