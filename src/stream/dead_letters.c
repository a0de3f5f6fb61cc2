/*
 * Dead-letter files through the table's storage (stream.h "dead letters"),
 * so they behave the same on a file system and on an object store and the
 * fault-injecting backend sees every operation.
 *
 * A batch's dead letters go to a temporary `<dir>/.tmp-<pid>-<random>.ndjson`
 * (created exclusively; an object store makes it visible only at close),
 * closed with sync, then published under the batch range's name with
 * put-if-absent. A replay of the same range rewrites the same name with the
 * same records: a name that already exists (an attempt that died after
 * publishing, or lost its commit) is replaced atomically, never appended to,
 * so a record is never listed twice. Temporaries are removed on every
 * failure; what a killed process leaves is removed by the next start
 * (posix: only debris of processes that are gone; object stores, where a
 * pid means nothing across machines: only temporaries older than an hour).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "delta/delta.h"
#include "stream/stream.h"
#include "util/util.h"

/* An object-store temporary older than this is debris (no batch takes an
 * hour between creating its dead-letter file and publishing it). */
#define STALE_TMP_MS ((int64_t)3600 * 1000)

int stream_dl_open(stream_dl_file *d, inlet_storage *st, const char *dir, inlet_error *err) {
  if (d->f) return 0;
  size_t n = strlen(dir) + 64;
  d->tmp = inlet_malloc(n);
  if (!d->tmp) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  snprintf(d->tmp, n, "%s/.tmp-%ld-%016llx.ndjson", dir, (long)getpid(),
           (unsigned long long)delta_random_u64());
  int rc = st->ops->create(st, d->tmp, &d->f, err);
  if (rc < 0) {
    d->f = NULL;
    inlet_free(d->tmp);
    d->tmp = NULL;
  }
  return rc;
}

int stream_dl_append(stream_dl_file *d, const void *buf, size_t n, inlet_error *err) {
  return inlet_wfile_append(d->f, buf, n, err);
}

void stream_dl_discard(stream_dl_file *d) {
  if (d->f) inlet_wfile_abort(d->f); /* removes the temporary */
  d->f = NULL;
  inlet_free(d->tmp);
  d->tmp = NULL;
}

int stream_dl_publish(stream_dl_file *d, inlet_storage *st, const char *final, inlet_error *err) {
  if (!d->f) return 0;
  inlet_wfile *f = d->f;
  d->f = NULL;
  /* A failed close may leave the file behind (posix): removed below. */
  bool have_tmp = true;
  int rc = inlet_wfile_close(f, true, err);
  if (rc == 0) rc = st->ops->put_if_absent(st, d->tmp, final, err);
  /* The range's file is already there (same range, same records): the
   * replay's copy replaces it whole. */
  if (rc == INLET_EEXISTS) rc = st->ops->replace(st, d->tmp, final, err);
  if (rc == 0) have_tmp = false;
  if (have_tmp) {
    inlet_error ignore = INLET_ERROR_INIT;
    (void)st->ops->remove(st, d->tmp, &ignore);
  }
  inlet_free(d->tmp);
  d->tmp = NULL;
  return rc;
}

/* A temporary of ours that nobody is writing any more. */
static bool tmp_is_debris(const inlet_storage *st, const inlet_dirent *e, int64_t now_ms) {
  if (st->flags & INLET_STORAGE_OBJECT_STORE)
    return e->mtime_ms >= 0 && now_ms - e->mtime_ms > STALE_TMP_MS;
  /* ".tmp-<pid>-...": only debris of dead processes is ours to remove. */
  long pid = strtol(e->name + 5, NULL, 10);
  return !(pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM));
}

void stream_dl_remove(inlet_storage *st, const char *dir, const char *prefix, const char *keep,
                      bool (*accept)(const char *rest)) {
  inlet_list_options lo = INLET_LIST_OPTIONS_INIT;
  lo.prefix = prefix;
  bool tmps = strncmp(prefix, ".tmp-", 5) == 0;
  lo.attrs = tmps && (st->flags & INLET_STORAGE_OBJECT_STORE);
  inlet_dirent *ents = NULL;
  size_t n = 0;
  inlet_error ignore = INLET_ERROR_INIT;
  if (st->ops->list_from(st, dir, &lo, &ents, &n, &ignore) < 0) return;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  int64_t now_ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
  size_t pl = strlen(prefix), dl = strlen(dir);
  for (size_t i = 0; i < n; i++) {
    const char *name = ents[i].name;
    if (ents[i].is_dir || strncmp(name, prefix, pl) != 0) continue;
    if (keep && strcmp(name, keep) == 0) continue;
    if (accept && !accept(name + pl)) continue;
    if (strncmp(name, ".tmp-", 5) == 0 && !(tmps && tmp_is_debris(st, &ents[i], now_ms))) continue;
    size_t len = dl + strlen(name) + 2;
    char *path = inlet_malloc(len);
    if (!path) break;
    snprintf(path, len, "%s/%s", dir, name);
    (void)st->ops->remove(st, path, &ignore);
    inlet_free(path);
  }
  inlet_dirents_free(ents, n);
}
