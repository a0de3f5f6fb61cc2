/*
 * The fault-injecting test backend (fault.h): counts operations on a
 * wrapped backend and turns the armed one into INLET_EIO, alone or as a
 * simulated crash. STYLE.md "Fault injection"; modelled on the idea of
 * SQLite's I/O error countdown, not its code.
 */
#include "storage/fault.h"

#include <pthread.h>

#include "util/util.h"

typedef struct fault_storage {
  inlet_storage base;
  inlet_storage *inner; /* owned when own_inner */
  bool own_inner;
  int64_t counts[INLET_FAULT_N_OPS];
  int64_t bytes_read, bytes_written; /* by operations that succeeded */
  bool armed;
  inlet_fault_op op;
  int64_t after; /* matching operations still let through */
  inlet_fault_mode mode;
  bool fired;
  bool stopped;
  /* Threads share a backend (a pipelined ingest writes data files on a pool
   * thread while dead letters go on from the main one): the counts and
   * the armed fault are one sequence of operations, taken under this. */
  pthread_mutex_t lock;
} fault_storage;

static fault_storage *locked(const inlet_storage *s) {
  fault_storage *fs = (fault_storage *)s;
  pthread_mutex_lock(&fs->lock);
  return fs;
}
static void unlock(fault_storage *fs) {
  pthread_mutex_unlock(&fs->lock);
}

static const char *const op_names[INLET_FAULT_N_OPS] = {
    "any",           "open_read", "read",   "create",  "append", "sync",   "close",
    "put_if_absent", "list",      "remove", "replace", "stat",   "mkdirs", "sync_dir"};

const char *inlet_fault_op_name(inlet_fault_op op) {
  return op >= 0 && op < INLET_FAULT_N_OPS ? op_names[op] : "unknown";
}

enum { PASS = 0, FAIL_NOW = 1, FAIL_AFTER = 2 };

/* Counts an operation and decides its fate (under the lock). */
static int decide_locked(fault_storage *fs, inlet_fault_op op) {
  fs->counts[op]++;
  fs->counts[INLET_FAULT_ANY]++;
  if (fs->stopped) return FAIL_NOW;
  if (!fs->armed || (fs->op != INLET_FAULT_ANY && fs->op != op)) return PASS;
  if (fs->after > 0) {
    fs->after--;
    return PASS;
  }
  fs->armed = false;
  fs->fired = true;
  switch (fs->mode) {
  case INLET_FAULT_STOP: fs->stopped = true; return FAIL_NOW;
  case INLET_FAULT_FAIL_AFTER: return FAIL_AFTER;
  case INLET_FAULT_STOP_AFTER: fs->stopped = true; return FAIL_AFTER;
  default: return FAIL_NOW;
  }
}

static int decide(fault_storage *fs, inlet_fault_op op) {
  pthread_mutex_lock(&fs->lock);
  int fate = decide_locked(fs, op);
  pthread_mutex_unlock(&fs->lock);
  return fate;
}

static int injected(inlet_error *err, inlet_fault_op op, const char *path, bool done) {
  return inlet_fail(err, INLET_EIO, "injected fault: %s %s%s", op_names[op], path ? path : "",
                    done ? " (performed, then failed)" : "");
}

/* Runs CALL unless the fault says otherwise. */
#define GUARD(fs, op, path, CALL)                                                                  \
  do {                                                                                             \
    int fate_ = decide((fs), (op));                                                                \
    if (fate_ == FAIL_NOW) return injected(err, (op), (path), false);                              \
    int rc_ = (CALL);                                                                              \
    if (rc_ < 0 || fate_ == PASS) return rc_;                                                      \
    return injected(err, (op), (path), true);                                                      \
  } while (0)

/* ---- files ---------------------------------------------------------------- */

typedef struct fault_rfile {
  inlet_rfile base;
  inlet_rfile *inner; /* owned */
  fault_storage *fs;
} fault_rfile;

static int fr_read_inner(fault_rfile *r, int64_t off, void *buf, size_t n, inlet_error *err) {
  int rc = inlet_rfile_read_at(r->inner, off, buf, n, err);
  if (rc == 0) {
    pthread_mutex_lock(&r->fs->lock);
    r->fs->bytes_read += (int64_t)n;
    pthread_mutex_unlock(&r->fs->lock);
  }
  return rc;
}

static int fr_read_at(inlet_rfile *f, int64_t off, void *buf, size_t n, inlet_error *err) {
  fault_rfile *r = (fault_rfile *)f;
  GUARD(r->fs, INLET_FAULT_READ, f->name, fr_read_inner(r, off, buf, n, err));
}

static void fr_close(inlet_rfile *f) {
  if (!f) return;
  fault_rfile *r = (fault_rfile *)f;
  inlet_rfile_close(r->inner);
  inlet_free(f->name);
  inlet_free(r);
}

static int fr_read_ranges(inlet_rfile *f, inlet_read_range *ranges, size_t n, inlet_error *err) {
  fault_rfile *r = (fault_rfile *)f;
  GUARD(r->fs, INLET_FAULT_READ, f->name, r->inner->ops->read_ranges(r->inner, ranges, n, err));
}

static int fr_read_tail_inner(fault_rfile *r, void *buf, size_t n, size_t *got, inlet_error *err) {
  int rc = r->inner->ops->read_tail(r->inner, buf, n, got, err);
  if (rc == 0) r->base.size = r->inner->size;
  return rc;
}

static int fr_read_tail(inlet_rfile *f, void *buf, size_t n, size_t *got, inlet_error *err) {
  fault_rfile *r = (fault_rfile *)f;
  *got = 0;
  GUARD(r->fs, INLET_FAULT_READ, f->name, fr_read_tail_inner(r, buf, n, got, err));
}

static const struct inlet_rfile_ops fault_rfile_ops = {
    .read_at = fr_read_at,
    .close = fr_close,
    .read_ranges = fr_read_ranges,
    .read_tail = fr_read_tail,
};

typedef struct fault_wfile {
  inlet_wfile base;
  inlet_wfile *inner; /* owned */
  fault_storage *fs;
} fault_wfile;

static int fw_append_inner(fault_wfile *w, const void *buf, size_t n, inlet_error *err) {
  int rc = inlet_wfile_append(w->inner, buf, n, err);
  if (rc == 0) {
    w->base.written = w->inner->written;
    pthread_mutex_lock(&w->fs->lock);
    w->fs->bytes_written += (int64_t)n;
    pthread_mutex_unlock(&w->fs->lock);
  }
  return rc;
}

static int fw_append(inlet_wfile *f, const void *buf, size_t n, inlet_error *err) {
  fault_wfile *w = (fault_wfile *)f;
  GUARD(w->fs, INLET_FAULT_APPEND, f->name, fw_append_inner(w, buf, n, err));
}

static int fw_sync(inlet_wfile *f, inlet_error *err) {
  fault_wfile *w = (fault_wfile *)f;
  GUARD(w->fs, INLET_FAULT_SYNC, f->name, w->inner->ops->sync(w->inner, err));
}

static int fw_close(inlet_wfile *f, bool sync, inlet_error *err) {
  fault_wfile *w = (fault_wfile *)f;
  fault_storage *fs = w->fs;
  int fate = decide(fs, INLET_FAULT_CLOSE);
  if (sync && fate == PASS) fate = decide(fs, INLET_FAULT_SYNC);
  int rc;
  if (fate == FAIL_NOW) {
    /* The process "died" before closing: release resources without the
     * sync the caller asked for, and report the failure. */
    inlet_wfile_close(w->inner, false, NULL);
    rc = injected(err, sync ? INLET_FAULT_SYNC : INLET_FAULT_CLOSE, f->name, false);
  } else {
    rc = inlet_wfile_close(w->inner, sync, err);
    if (rc == 0 && fate == FAIL_AFTER)
      rc = injected(err, sync ? INLET_FAULT_SYNC : INLET_FAULT_CLOSE, f->name, true);
  }
  inlet_free(f->name);
  inlet_free(w);
  return rc;
}

/* Not counted: abort is the cleanup of an operation that already failed. */
static void fw_abort(inlet_wfile *f) {
  fault_wfile *w = (fault_wfile *)f;
  inlet_wfile_abort(w->inner);
  inlet_free(f->name);
  inlet_free(w);
}

static const struct inlet_wfile_ops fault_wfile_ops = {
    .append = fw_append, .sync = fw_sync, .close = fw_close, .abort = fw_abort};

/* ---- storage --------------------------------------------------------------- */

static int wrap_rfile(fault_storage *fs, inlet_rfile *inner, inlet_rfile **out, inlet_error *err) {
  fault_rfile *r = inlet_calloc(1, sizeof *r);
  char *name = inlet_strdup(inner->name);
  if (!r || !name) {
    inlet_free(r);
    inlet_free(name);
    inlet_rfile_close(inner);
    return inlet_fail(err, INLET_ENOMEM, "out of memory");
  }
  r->base.ops = &fault_rfile_ops;
  r->base.name = name;
  r->base.size = inner->size;
  r->inner = inner;
  r->fs = fs;
  *out = &r->base;
  return 0;
}

static int open_read_inner(fault_storage *fs, const char *path, inlet_rfile **out,
                           inlet_error *err) {
  inlet_rfile *inner;
  TRY(fs->inner->ops->open_read(fs->inner, path, &inner, err));
  return wrap_rfile(fs, inner, out, err);
}

static int open_read_sized_inner(fault_storage *fs, const char *path, int64_t size,
                                 inlet_rfile **out, inlet_error *err) {
  inlet_rfile *inner;
  TRY(fs->inner->ops->open_read_sized(fs->inner, path, size, &inner, err));
  return wrap_rfile(fs, inner, out, err);
}

/* open_read and open_read_sized (size >= -1; -2 selects open_read) are one
 * kind of operation. */
static int open_guarded(fault_storage *fs, const char *path, int64_t size, inlet_rfile **out,
                        inlet_error *err) {
  *out = NULL;
  int fate = decide(fs, INLET_FAULT_OPEN_READ);
  if (fate == FAIL_NOW) return injected(err, INLET_FAULT_OPEN_READ, path, false);
  int rc = size == -2 ? open_read_inner(fs, path, out, err)
                      : open_read_sized_inner(fs, path, size, out, err);
  if (rc < 0 || fate == PASS) return rc;
  inlet_rfile_close(*out);
  *out = NULL;
  return injected(err, INLET_FAULT_OPEN_READ, path, true);
}

static int fs_open_read(inlet_storage *s, const char *path, inlet_rfile **out, inlet_error *err) {
  return open_guarded((fault_storage *)s, path, -2, out, err);
}

static int fs_open_read_sized(inlet_storage *s, const char *path, int64_t size, inlet_rfile **out,
                              inlet_error *err) {
  return open_guarded((fault_storage *)s, path, size < 0 ? -1 : size, out, err);
}

static int create_inner(fault_storage *fs, const char *path, inlet_wfile **out, inlet_error *err) {
  inlet_wfile *inner;
  TRY(fs->inner->ops->create(fs->inner, path, &inner, err));
  fault_wfile *w = inlet_calloc(1, sizeof *w);
  char *name = inlet_strdup(inner->name);
  if (!w || !name) {
    inlet_free(w);
    inlet_free(name);
    inlet_wfile_close(inner, false, NULL);
    return inlet_fail(err, INLET_ENOMEM, "out of memory");
  }
  w->base.ops = &fault_wfile_ops;
  w->base.name = name;
  w->inner = inner;
  w->fs = fs;
  *out = &w->base;
  return 0;
}

static int fs_create(inlet_storage *s, const char *path, inlet_wfile **out, inlet_error *err) {
  fault_storage *fs = (fault_storage *)s;
  *out = NULL;
  int fate = decide(fs, INLET_FAULT_CREATE);
  if (fate == FAIL_NOW) return injected(err, INLET_FAULT_CREATE, path, false);
  int rc = create_inner(fs, path, out, err);
  if (rc < 0 || fate == PASS) return rc;
  /* Created (an empty file now exists), but the caller sees a failure. */
  inlet_wfile_close(*out, false, NULL);
  *out = NULL;
  return injected(err, INLET_FAULT_CREATE, path, true);
}

static int fs_put_if_absent(inlet_storage *s, const char *tmp, const char *final,
                            inlet_error *err) {
  fault_storage *fs = (fault_storage *)s;
  GUARD(fs, INLET_FAULT_PUT_IF_ABSENT, final,
        fs->inner->ops->put_if_absent(fs->inner, tmp, final, err));
}

/* list and list_names are one kind of operation (INLET_FAULT_LIST). */
static int list_guarded(inlet_storage *s, const char *dir, bool names, inlet_dirent **out,
                        size_t *count, inlet_error *err) {
  fault_storage *fs = (fault_storage *)s;
  *out = NULL;
  *count = 0;
  int fate = decide(fs, INLET_FAULT_LIST);
  if (fate == FAIL_NOW) return injected(err, INLET_FAULT_LIST, dir, false);
  int rc = names ? fs->inner->ops->list_names(fs->inner, dir, out, count, err)
                 : fs->inner->ops->list(fs->inner, dir, out, count, err);
  if (rc < 0 || fate == PASS) return rc;
  inlet_dirents_free(*out, *count);
  *out = NULL;
  *count = 0;
  return injected(err, INLET_FAULT_LIST, dir, true);
}

static int fs_list(inlet_storage *s, const char *dir, inlet_dirent **out, size_t *count,
                   inlet_error *err) {
  return list_guarded(s, dir, false, out, count, err);
}

static int fs_list_names(inlet_storage *s, const char *dir, inlet_dirent **out, size_t *count,
                         inlet_error *err) {
  return list_guarded(s, dir, true, out, count, err);
}

static int fs_remove(inlet_storage *s, const char *path, inlet_error *err) {
  fault_storage *fs = (fault_storage *)s;
  GUARD(fs, INLET_FAULT_REMOVE, path, fs->inner->ops->remove(fs->inner, path, err));
}

static int fs_replace(inlet_storage *s, const char *tmp, const char *final, inlet_error *err) {
  fault_storage *fs = (fault_storage *)s;
  GUARD(fs, INLET_FAULT_REPLACE, final, fs->inner->ops->replace(fs->inner, tmp, final, err));
}

static int fs_stat(inlet_storage *s, const char *path, inlet_dirent *out, inlet_error *err) {
  fault_storage *fs = (fault_storage *)s;
  memset(out, 0, sizeof *out);
  int fate = decide(fs, INLET_FAULT_STAT);
  if (fate == FAIL_NOW) return injected(err, INLET_FAULT_STAT, path, false);
  int rc = fs->inner->ops->stat(fs->inner, path, out, err);
  if (rc < 0 || fate == PASS) return rc;
  inlet_free(out->name);
  out->name = NULL;
  return injected(err, INLET_FAULT_STAT, path, true);
}

static int fs_mkdirs(inlet_storage *s, const char *dir, inlet_error *err) {
  fault_storage *fs = (fault_storage *)s;
  GUARD(fs, INLET_FAULT_MKDIRS, dir, fs->inner->ops->mkdirs(fs->inner, dir, err));
}

static int fs_sync_dir(inlet_storage *s, const char *dir, inlet_error *err) {
  fault_storage *fs = (fault_storage *)s;
  GUARD(fs, INLET_FAULT_SYNC_DIR, dir, fs->inner->ops->sync_dir(fs->inner, dir, err));
}

static void fs_free(inlet_storage *s) {
  if (!s) return;
  fault_storage *fs = (fault_storage *)s;
  if (fs->own_inner) fs->inner->ops->free(fs->inner);
  inlet_free(s->root);
  pthread_mutex_destroy(&fs->lock);
  inlet_free(fs);
}

/* put_if_absent_bytes counts as a put_if_absent (the commit publish), put_bytes
 * as a replace, get_bytes as a read, list_from as a list, and remove_many as
 * one remove per path, so tests arming those kinds cover both forms. */
static int fs_put_if_absent_bytes(inlet_storage *s, const char *path, const void *data, size_t n,
                                  inlet_error *err) {
  fault_storage *fs = (fault_storage *)s;
  GUARD(fs, INLET_FAULT_PUT_IF_ABSENT, path,
        fs->inner->ops->put_if_absent_bytes(fs->inner, path, data, n, err));
}

static int fs_put_bytes(inlet_storage *s, const char *path, const void *data, size_t n,
                        inlet_error *err) {
  fault_storage *fs = (fault_storage *)s;
  GUARD(fs, INLET_FAULT_REPLACE, path, fs->inner->ops->put_bytes(fs->inner, path, data, n, err));
}

static int fs_get_bytes(inlet_storage *s, const char *path, size_t limit, uint8_t **out,
                        size_t *len, inlet_error *err) {
  fault_storage *fs = (fault_storage *)s;
  *out = NULL;
  *len = 0;
  int fate = decide(fs, INLET_FAULT_READ);
  if (fate == FAIL_NOW) return injected(err, INLET_FAULT_READ, path, false);
  int rc = fs->inner->ops->get_bytes(fs->inner, path, limit, out, len, err);
  if (rc < 0 || fate == PASS) return rc;
  inlet_free(*out);
  *out = NULL;
  *len = 0;
  return injected(err, INLET_FAULT_READ, path, true);
}

static int fs_list_from(inlet_storage *s, const char *dir, const inlet_list_options *opts,
                        inlet_dirent **out, size_t *count, inlet_error *err) {
  fault_storage *fs = (fault_storage *)s;
  *out = NULL;
  *count = 0;
  int fate = decide(fs, INLET_FAULT_LIST);
  if (fate == FAIL_NOW) return injected(err, INLET_FAULT_LIST, dir, false);
  int rc = fs->inner->ops->list_from(fs->inner, dir, opts, out, count, err);
  if (rc < 0 || fate == PASS) return rc;
  inlet_dirents_free(*out, *count);
  *out = NULL;
  *count = 0;
  return injected(err, INLET_FAULT_LIST, dir, true);
}

static int fs_remove_many(inlet_storage *s, const char *const *paths, size_t n, int *results,
                          inlet_error *err) {
  return inlet_storage_remove_many_serial(s, paths, n, results, err);
}

/* Not a fault point (maintenance of debris, never on a data path): passed
 * through to the wrapped store. */
static int fs_abort_uploads(inlet_storage *s, int64_t before_ms, bool dry_run,
                            void (*fn)(void *ctx, const char *path), void *ctx, int64_t *count,
                            inlet_error *err) {
  fault_storage *fs = (fault_storage *)s;
  return inlet_storage_abort_uploads(fs->inner, before_ms, dry_run, fn, ctx, count, err);
}

static const inlet_storage_ops fault_ops = {
    .open_read = fs_open_read,
    .create = fs_create,
    .put_if_absent = fs_put_if_absent,
    .list = fs_list,
    .list_names = fs_list_names,
    .remove = fs_remove,
    .replace = fs_replace,
    .stat = fs_stat,
    .mkdirs = fs_mkdirs,
    .sync_dir = fs_sync_dir,
    .free = fs_free,
    .put_if_absent_bytes = fs_put_if_absent_bytes,
    .put_bytes = fs_put_bytes,
    .get_bytes = fs_get_bytes,
    .open_read_sized = fs_open_read_sized,
    .list_from = fs_list_from,
    .remove_many = fs_remove_many,
    .abort_uploads = fs_abort_uploads,
};

int inlet_storage_fault_wrap(inlet_storage **out, inlet_storage *inner, bool own_inner,
                             inlet_error *err) {
  *out = NULL;
  fault_storage *fs = inlet_calloc(1, sizeof *fs);
  char *root = inlet_strdup(inner->root ? inner->root : "");
  if (!fs || !root) {
    inlet_free(fs);
    inlet_free(root);
    return inlet_fail(err, INLET_ENOMEM, "out of memory");
  }
  fs->base.ops = &fault_ops;
  fs->base.root = root;
  fs->base.flags = inner->flags;
  fs->inner = inner;
  fs->own_inner = own_inner;
  pthread_mutex_init(&fs->lock, NULL);
  *out = &fs->base;
  return 0;
}

void inlet_fault_arm(inlet_storage *s, inlet_fault_op op, int64_t after, inlet_fault_mode mode) {
  fault_storage *fs = locked(s);
  fs->armed = true;
  fs->op = op;
  fs->after = after < 0 ? 0 : after;
  fs->mode = mode;
  unlock(fs);
}

void inlet_fault_disarm(inlet_storage *s) {
  fault_storage *fs = locked(s);
  fs->armed = false;
  fs->stopped = false;
  fs->fired = false;
  unlock(fs);
}

int64_t inlet_fault_count(const inlet_storage *s, inlet_fault_op op) {
  fault_storage *fs = locked(s);
  int64_t n = op >= 0 && op < INLET_FAULT_N_OPS ? fs->counts[op] : 0;
  unlock(fs);
  return n;
}

void inlet_fault_reset_counts(inlet_storage *s) {
  fault_storage *fs = locked(s);
  memset(fs->counts, 0, sizeof fs->counts);
  fs->bytes_read = fs->bytes_written = 0;
  unlock(fs);
}

int64_t inlet_fault_bytes_read(const inlet_storage *s) {
  fault_storage *fs = locked(s);
  int64_t n = fs->bytes_read;
  unlock(fs);
  return n;
}

int64_t inlet_fault_bytes_written(const inlet_storage *s) {
  fault_storage *fs = locked(s);
  int64_t n = fs->bytes_written;
  unlock(fs);
  return n;
}

bool inlet_fault_fired(const inlet_storage *s) {
  fault_storage *fs = locked(s);
  bool b = fs->fired;
  unlock(fs);
  return b;
}
bool inlet_fault_stopped(const inlet_storage *s) {
  fault_storage *fs = locked(s);
  bool b = fs->stopped;
  unlock(fs);
  return b;
}
