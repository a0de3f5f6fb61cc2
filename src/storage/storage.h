/*
 * Storage: the filesystem primitives every other module uses, behind a small
 * vtable so object stores (and the fault-injecting test backend) can plug in.
 *
 * Paths are relative to the backend's root (a table directory, say) and use
 * '/' separators; the backend refuses absolute paths and ".." components, so
 * nothing read from a log can escape the root.
 *
 * Durability contract (DEVELOPERS.md): data files are written with
 * inlet_wfile and synced before any commit references them; commit files are
 * published with put_if_absent (link(2) / renameat2(RENAME_NOREPLACE)), which
 * fails with INLET_EEXISTS instead of replacing a concurrent winner, and then
 * the directory is synced.
 */
#ifndef INLET_STORAGE_H
#define INLET_STORAGE_H

#include <stdint.h>
#include <sys/types.h>

#include "inlet/error.h"

typedef struct inlet_storage inlet_storage;
typedef struct inlet_rfile inlet_rfile;
typedef struct inlet_wfile inlet_wfile;

/* A file opened for random-access reads. */
struct inlet_rfile {
  const struct inlet_rfile_ops *ops;
  char *name;   /* owned; path as given, for error messages */
  int64_t size; /* bytes at open time */
};
struct inlet_rfile_ops {
  /* Reads exactly @p n bytes at @p offset; a short read is INLET_ECORRUPT
   * ("truncated"), an OS error INLET_EIO. */
  int (*read_at)(inlet_rfile *f, int64_t offset, void *buf, size_t n, inlet_error *err);
  void (*close)(inlet_rfile *f);
};

/* A new file opened for sequential writing. */
struct inlet_wfile {
  const struct inlet_wfile_ops *ops;
  char *name;      /* owned */
  int64_t written; /* bytes appended so far */
};
struct inlet_wfile_ops {
  int (*append)(inlet_wfile *f, const void *buf, size_t n, inlet_error *err);
  /* Flushes and fsyncs the file's data. */
  int (*sync)(inlet_wfile *f, inlet_error *err);
  /* Closes (after a sync if @p sync). Always frees @p f. */
  int (*close)(inlet_wfile *f, bool sync, inlet_error *err);
};

typedef struct inlet_dirent {
  char *name; /* owned; entry name, no directory part */
  bool is_dir;
  bool is_symlink; /* list/list_names: a symbolic link (is_dir false: never followed) */
  int64_t size;
  int64_t mtime_ms; /* modification time, ms since the epoch */
} inlet_dirent;

typedef struct inlet_storage_ops {
  int (*open_read)(inlet_storage *s, const char *path, inlet_rfile **out, inlet_error *err);
  /* Creates a new file, failing with INLET_EEXISTS if it exists; parent
   * directories are created as needed. */
  int (*create)(inlet_storage *s, const char *path, inlet_wfile **out, inlet_error *err);
  /* Atomically makes @p tmp_path visible as @p final_path if and only if
   * final_path does not exist (INLET_EEXISTS otherwise), then syncs the
   * directory. tmp_path is removed on success. */
  int (*put_if_absent)(inlet_storage *s, const char *tmp_path, const char *final_path,
                       inlet_error *err);
  /* Lists a directory (not recursive), entries sorted by name. A missing
   * directory is INLET_ENOTFOUND. */
  int (*list)(inlet_storage *s, const char *dir, inlet_dirent **out, size_t *count,
              inlet_error *err);
  /* Like list, but only names and is_dir: size and mtime_ms are -1. No
   * stat per entry where the directory reports entry types, so a listing of
   * a large `_delta_log` costs reading the directory, not one stat per file. */
  int (*list_names)(inlet_storage *s, const char *dir, inlet_dirent **out, size_t *count,
                    inlet_error *err);
  int (*remove)(inlet_storage *s, const char *path, inlet_error *err);
  /* Replaces final_path with tmp_path (for hints such as _last_checkpoint,
   * never for commits). */
  int (*replace)(inlet_storage *s, const char *tmp_path, const char *final_path, inlet_error *err);
  int (*stat)(inlet_storage *s, const char *path, inlet_dirent *out, inlet_error *err);
  int (*mkdirs)(inlet_storage *s, const char *dir, inlet_error *err);
  int (*sync_dir)(inlet_storage *s, const char *dir, inlet_error *err);
  void (*free)(inlet_storage *s);
} inlet_storage_ops;

struct inlet_storage {
  const inlet_storage_ops *ops;
  char *root; /* owned; absolute or relative root directory */
};

/* The POSIX backend rooted at @p root (which must exist unless @p create). */
int inlet_storage_posix_open(inlet_storage **out, const char *root, bool create, inlet_error *err);

/* Opens a local file by absolute or relative path, outside any storage root
 * (for CLI inputs such as `inlet parquet cat FILE`). */
int inlet_rfile_open_path(inlet_rfile **out, const char *path, inlet_error *err);
int inlet_wfile_create_path(inlet_wfile **out, const char *path, inlet_error *err);

/* Checks that @p path is relative, has no "..", "." or empty components and
 * no NUL; INLET_EINVAL otherwise. Used on every path read from a log. */
int inlet_path_check(const char *path, inlet_error *err);
/* Same for a counted string (a path decoded from JSON may hold "\u0000"):
 * an embedded NUL is INLET_EINVAL. '\\' is an ordinary byte and allowed. */
int inlet_path_check_len(const char *path, size_t len, inlet_error *err);
/* Longest path accepted by inlet_path_check, in bytes. */
#define INLET_PATH_MAX 4096

void inlet_dirents_free(inlet_dirent *ents, size_t count);

/* Convenience wrappers over the vtable. */
static inline int inlet_rfile_read_at(inlet_rfile *f, int64_t off, void *buf, size_t n,
                                      inlet_error *err) {
  return f->ops->read_at(f, off, buf, n, err);
}
static inline void inlet_rfile_close(inlet_rfile *f) {
  if (f) f->ops->close(f);
}
static inline int inlet_wfile_append(inlet_wfile *f, const void *buf, size_t n, inlet_error *err) {
  return f->ops->append(f, buf, n, err);
}
static inline int inlet_wfile_close(inlet_wfile *f, bool sync, inlet_error *err) {
  return f->ops->close(f, sync, err);
}

#endif /* INLET_STORAGE_H */
