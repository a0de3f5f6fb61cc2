/*
 * Backend-independent parts of storage.h: the serial fallbacks backends
 * share (vectored reads, batch removes, listing filters), the probe that
 * tells whether a store enforces conditional creates, the handles pool
 * threads read through ("Threads"), and files over bytes in memory.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/random.h>
#include <unistd.h>

#include "storage/storage.h"
#include "util/util.h"

int inlet_rfile_read_ranges_serial(inlet_rfile *f, inlet_read_range *ranges, size_t n,
                                   inlet_error *err) {
  for (size_t i = 0; i < n; i++)
    TRY(f->ops->read_at(f, ranges[i].offset, ranges[i].buf, ranges[i].len, err));
  return 0;
}

int inlet_rfile_read_tail_sized(inlet_rfile *f, void *buf, size_t n, size_t *got,
                                inlet_error *err) {
  *got = 0;
  if (f->size < 0) return inlet_fail(err, INLET_EINTERNAL, "%s: size unknown", f->name);
  size_t k = (uint64_t)n < (uint64_t)f->size ? n : (size_t)f->size;
  TRY(f->ops->read_at(f, f->size - (int64_t)k, buf, k, err));
  *got = k;
  return 0;
}

int inlet_storage_remove_many_serial(inlet_storage *s, const char *const *paths, size_t n,
                                     int *results, inlet_error *err) {
  int first = 0;
  for (size_t i = 0; i < n; i++) {
    inlet_error e = INLET_ERROR_INIT;
    int rc = s->ops->remove(s, paths[i], &e);
    if (rc == INLET_ENOTFOUND) rc = 0;
    if (results) results[i] = rc;
    if (rc < 0 && first == 0) {
      first = rc;
      if (err) *err = e;
    }
  }
  return first;
}

void inlet_dirents_filter(inlet_dirent *ents, size_t *count, const inlet_list_options *opts) {
  if (!opts || !ents) return;
  const char *prefix = opts->prefix && opts->prefix[0] ? opts->prefix : NULL;
  const char *after = opts->start_after && opts->start_after[0] ? opts->start_after : NULL;
  size_t plen = prefix ? strlen(prefix) : 0;
  size_t kept = 0;
  for (size_t i = 0; i < *count; i++) {
    bool keep = (!prefix || strncmp(ents[i].name, prefix, plen) == 0) &&
                (!after || strcmp(ents[i].name, after) > 0) &&
                (opts->limit == 0 || kept < opts->limit);
    if (keep)
      ents[kept++] = ents[i];
    else
      inlet_free(ents[i].name);
  }
  *count = kept;
}

int inlet_storage_probe_conditional(inlet_storage *s, const char *dir, inlet_error *err) {
  if (!(s->flags & INLET_STORAGE_OBJECT_STORE)) {
    s->flags |= INLET_STORAGE_CONDITIONAL_VERIFIED;
    return 0;
  }
  uint64_t r;
  if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r) r = (uint64_t)getpid();
  char key[INLET_PATH_MAX];
  snprintf(key, sizeof key, "%s%s.tmp-inlet-probe-%016" PRIx64, dir && dir[0] ? dir : "",
           dir && dir[0] ? "/" : "", r);
  static const char first[] = "inlet conditional-create probe 1\n";
  static const char second[] = "inlet conditional-create probe 2\n";
  int rc = s->ops->put_if_absent_bytes(s, key, first, sizeof first - 1, err);
  if (rc < 0) {
    inlet_error_prefix(err, "probing conditional creates in %s", s->root);
    return rc;
  }
  inlet_error e2 = INLET_ERROR_INIT;
  int rc2 = s->ops->put_if_absent_bytes(s, key, second, sizeof second - 1, &e2);
  inlet_error ignore = INLET_ERROR_INIT;
  s->ops->remove(s, key, &ignore);
  if (rc2 == INLET_EEXISTS) {
    s->flags |= INLET_STORAGE_CONDITIONAL_VERIFIED;
    return 0;
  }
  if (rc2 == 0)
    return inlet_fail(err, INLET_EUNSUPPORTED,
                      "%s does not enforce conditional creates (a second PUT with "
                      "If-None-Match: * of %s succeeded): concurrent writers could overwrite "
                      "each other's commits; commit there only in single-writer mode",
                      s->root, key);
  if (err) *err = e2;
  inlet_error_prefix(err, "probing conditional creates in %s", s->root);
  return rc2;
}

int inlet_storage_read_files(inlet_storage *s, inlet_file_range *r, size_t n, inlet_error *err) {
  if (s->ops->read_files) return s->ops->read_files(s, r, n, err);
  for (size_t i = 0; i < n; i++)
    TRY(inlet_rfile_read_at(r[i].file, r[i].offset, r[i].buf, r[i].len, err));
  return 0;
}

bool inlet_storage_threads_ok(const inlet_storage *s) {
  return !(s->flags & INLET_STORAGE_OBJECT_STORE) || s->ops->clone != NULL;
}

int inlet_storage_thread_handle(inlet_storage *s, inlet_storage **out, inlet_error *err) {
  *out = NULL;
  if (!(s->flags & INLET_STORAGE_OBJECT_STORE)) {
    *out = s;
    return 0;
  }
  if (!s->ops->clone)
    return inlet_fail(err, INLET_EUNSUPPORTED, "%s: this storage handle cannot be cloned", s->root);
  return s->ops->clone(s, out, err);
}

void inlet_storage_thread_handle_free(inlet_storage *s, inlet_storage *h) {
  if (h && h != s) h->ops->free(h);
}

struct inlet_storage_handles {
  inlet_storage *s;        /* borrowed */
  pthread_mutex_t lock;    /* guards free_st and n_free */
  inlet_storage **free_st; /* owned array of owned handles not taken */
  size_t n_free, cap;
};

int inlet_storage_handles_new(inlet_storage_handles **out, inlet_storage *s, inlet_error *err) {
  *out = inlet_calloc(1, sizeof **out);
  if (!*out) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  (*out)->s = s;
  pthread_mutex_init(&(*out)->lock, NULL);
  return 0;
}

int inlet_storage_handles_take(inlet_storage_handles *h, inlet_storage **out, inlet_error *err) {
  if (!(h->s->flags & INLET_STORAGE_OBJECT_STORE)) {
    *out = h->s;
    return 0;
  }
  pthread_mutex_lock(&h->lock);
  *out = h->n_free ? h->free_st[--h->n_free] : NULL;
  pthread_mutex_unlock(&h->lock);
  if (*out) return 0;
  return inlet_storage_thread_handle(h->s, out, err);
}

void inlet_storage_handles_give(inlet_storage_handles *h, inlet_storage *st) {
  if (!st || st == h->s) return;
  pthread_mutex_lock(&h->lock);
  if (h->n_free == h->cap) {
    size_t cap = h->cap ? h->cap * 2 : 8;
    inlet_storage **v = inlet_realloc(h->free_st, cap * sizeof *v);
    if (v) {
      h->free_st = v;
      h->cap = cap;
    }
  }
  bool kept = h->n_free < h->cap;
  if (kept) h->free_st[h->n_free++] = st;
  pthread_mutex_unlock(&h->lock);
  if (!kept) st->ops->free(st); /* out of memory to keep it: the next task makes another */
}

void inlet_storage_handles_free(inlet_storage_handles *h) {
  if (!h) return;
  for (size_t i = 0; i < h->n_free; i++)
    h->free_st[i]->ops->free(h->free_st[i]);
  inlet_free(h->free_st);
  pthread_mutex_destroy(&h->lock);
  inlet_free(h);
}

int inlet_storage_abort_uploads(inlet_storage *s, int64_t before_ms, bool dry_run,
                                void (*fn)(void *ctx, const char *path), void *ctx, int64_t *count,
                                inlet_error *err) {
  if (!s->ops->abort_uploads) return 0;
  return s->ops->abort_uploads(s, before_ms, dry_run, fn, ctx, count, err);
}

typedef struct mem_rfile {
  inlet_rfile base;
  uint8_t *data;
  bool owned; /* data is freed at close */
} mem_rfile;

static int mem_read_at(inlet_rfile *rf, int64_t off, void *buf, size_t n, inlet_error *err) {
  mem_rfile *f = (mem_rfile *)rf;
  if (off < 0 || off > f->base.size || (int64_t)n > f->base.size - off)
    return inlet_fail(err, INLET_ECORRUPT,
                      "%s: truncated: read of %zu bytes at offset %" PRId64 " past the end",
                      rf->name, n, off);
  if (n) memcpy(buf, f->data + off, n);
  return 0;
}

static void mem_close(inlet_rfile *rf) {
  mem_rfile *f = (mem_rfile *)rf;
  if (f->owned) inlet_free(f->data);
  inlet_free(f->base.name);
  inlet_free(f);
}

static const struct inlet_rfile_ops mem_rfile_ops = {.read_at = mem_read_at,
                                                     .close = mem_close,
                                                     .read_ranges = inlet_rfile_read_ranges_serial,
                                                     .read_tail = inlet_rfile_read_tail_sized};

static int open_memory(inlet_rfile **out, const char *name, void *data, size_t len, bool owned,
                       inlet_error *err) {
  *out = NULL;
  mem_rfile *f = inlet_calloc(1, sizeof *f);
  char *nm = inlet_strdup(name ? name : "(memory)");
  if (!f || !nm) {
    inlet_free(f);
    inlet_free(nm);
    if (owned) inlet_free(data);
    return inlet_fail(err, INLET_ENOMEM, "out of memory");
  }
  f->base.ops = &mem_rfile_ops;
  f->base.name = nm;
  f->base.size = (int64_t)len;
  f->data = data;
  f->owned = owned;
  *out = &f->base;
  return 0;
}

int inlet_rfile_open_memory(inlet_rfile **out, const char *name, void *data, size_t len,
                            inlet_error *err) {
  return open_memory(out, name, data, len, true, err);
}

int inlet_rfile_open_memory_view(inlet_rfile **out, const char *name, const void *data, size_t len,
                                 inlet_error *err) {
  /* Only read through (mem_read_at), never written or freed. */
  return open_memory(out, name, (void *)data, len, false, err);
}
