/*
 * Temp files of killed writers in `_delta_log/`: a commit or a checkpoint
 * is written to `_delta_log/.tmp-*` and published from there, so a writer
 * killed in between leaves the temp file behind for good. Vacuum and log
 * cleanup remove those older than INLET_LOG_TEMP_MAX_AGE_MS (a day): a live
 * writer's temp file exists for the seconds one commit or checkpoint takes,
 * so this age never touches one, whatever the clocks of other writers say
 * within reason. Nothing else in `_delta_log/` is considered.
 *
 * The object-store counterpart: a writer killed during a multipart upload
 * (S3) leaves an incomplete upload whose parts are stored (and billed) until
 * aborted. Vacuum and log cleanup abort the table prefix's uploads initiated
 * more than the same day ago (ListMultipartUploads + AbortMultipartUpload):
 * a live writer's upload lasts the seconds or minutes of one data file or
 * checkpoint.
 */
#include <stdio.h>

#include "maint/maint_int.h"
#include "util/util.h"

int maint_remove_log_temps(inlet_storage *st, int64_t now_ms, bool dry_run,
                           inlet_vacuum_file_fn on_file, void *ctx, int64_t *files, int64_t *bytes,
                           inlet_error *err) {
  inlet_dirent *ents = NULL;
  size_t n = 0;
  int rc = st->ops->list(st, "_delta_log", &ents, &n, err);
  if (rc == INLET_ENOTFOUND) return 0;
  TRY(rc);
  int64_t cutoff = now_ms - INLET_LOG_TEMP_MAX_AGE_MS;
  for (size_t i = 0; i < n && rc == 0; i++) {
    const inlet_dirent *d = &ents[i];
    if (strncmp(d->name, ".tmp-", 5) != 0 || d->is_dir || d->is_symlink || d->mtime_ms >= cutoff)
      continue;
    char path[600];
    if (snprintf(path, sizeof path, "_delta_log/%s", d->name) >= (int)sizeof path) continue;
    if (!dry_run) {
      inlet_error e = INLET_ERROR_INIT;
      int r = st->ops->remove(st, path, &e);
      if (r == INLET_ENOTFOUND) continue; /* another cleaner got there first */
      if (r < 0) {
        rc = inlet_fail(err, r, "removing old temp file: %s", e.message);
        break;
      }
    }
    if (on_file) on_file(ctx, path, d->size);
    if (files) (*files)++;
    if (bytes) *bytes += d->size;
  }
  inlet_dirents_free(ents, n);
  return rc;
}

typedef struct upload_report {
  inlet_vacuum_file_fn on_file;
  void *ctx;
} upload_report;

static void report_upload(void *ctx, const char *path) {
  upload_report *r = ctx;
  if (r->on_file) r->on_file(r->ctx, path, 0);
}

int maint_abort_stale_uploads(inlet_storage *st, int64_t now_ms, bool dry_run,
                              inlet_vacuum_file_fn on_file, void *ctx, int64_t *files,
                              inlet_error *err) {
  upload_report r = {on_file, ctx};
  int rc = inlet_storage_abort_uploads(st, now_ms - INLET_LOG_TEMP_MAX_AGE_MS, dry_run,
                                       report_upload, &r, files, err);
  /* A store that cannot list them (or credentials that may not) leaves the
   * job to a bucket lifecycle rule: not a reason to fail the maintenance. */
  if (rc == INLET_EUNSUPPORTED) {
    inlet_error_clear(err);
    return 0;
  }
  if (rc < 0) return inlet_error_prefix(err, "aborting stale multipart uploads");
  return 0;
}
