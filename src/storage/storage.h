/*
 * Storage: the filesystem and object-store primitives every other module
 * uses, behind a small vtable. Backends: POSIX (posix.c), S3 and
 * S3-compatible stores (s3.c), Azure Blob / ADLS Gen2 through the Blob API
 * (azure.c), and the fault-injecting test wrapper (fault.c). A URL picks the
 * backend: inlet_storage_open_url (url.c); docs/STORAGE.md describes the URL
 * forms, credentials and what each store guarantees.
 *
 * Paths are relative to the backend's root (a table directory, say) and use
 * '/' separators; every backend refuses absolute paths and ".." components,
 * so nothing read from a log can escape the root.
 *
 * Durability contract (docs/ARCHITECTURE.md "Durability"): data files are written with
 * inlet_wfile and synced (closed with sync) before any commit references
 * them; commit files are published with put_if_absent_bytes (POSIX: a
 * synced temporary + link(2) / renameat2(RENAME_NOREPLACE); S3/Azure: a PUT
 * with If-None-Match: *), which fails with INLET_EEXISTS instead of
 * replacing a concurrent winner.
 *
 * The contract of each operation is written beside it below in the form
 * "all backends: ..." and, where stores differ, "posix: ..." /
 * "object stores: ...". Object stores have no directories: a "directory" is
 * a key prefix ending in '/', it exists while an object lies below it, and
 * mkdirs / sync_dir do nothing. Objects appear whole or not at all.
 *
 * Threads: an object-store handle (and the files opened through it) is used
 * by one thread at a time; object-store backends run many requests in
 * flight inside one call (read_ranges, multipart parts) on their own. Work
 * spread over threads reads through a handle per thread
 * (inlet_storage_thread_handle: a clone with a client of its own). posix
 * handles may be read through (open_read*, get_bytes, the files' reads)
 * from several threads at once: there the thread handle is the handle.
 */
#ifndef INLET_STORAGE_H
#define INLET_STORAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "inlet/error.h"
#include "inlet/storage.h"

typedef struct inlet_storage inlet_storage;
typedef struct inlet_rfile inlet_rfile;
typedef struct inlet_wfile inlet_wfile;

/* One range of a vectored read (read_ranges). */
typedef struct inlet_read_range {
  int64_t offset;
  size_t len;
  void *buf; /* not owned; receives exactly len bytes */
} inlet_read_range;

/* One range of one file, for reads of several files at once (read_files). */
typedef struct inlet_file_range {
  inlet_rfile *file; /* opened through the storage handle the read goes to */
  int64_t offset;
  size_t len;
  void *buf; /* not owned; receives exactly len bytes */
} inlet_file_range;

/* A file opened for random-access reads. Opening reads no data: object
 * stores fetch only the ranges asked for. */
struct inlet_rfile {
  const struct inlet_rfile_ops *ops;
  char *name;   /* owned; path as given, for error messages */
  int64_t size; /* bytes at open time; -1 while unknown (open_read_sized with
                 * size -1 on an object store, until read_tail learns it) */
};
struct inlet_rfile_ops {
  /* all backends: reads exactly @p n bytes at @p offset (one ranged GET on
   * object stores). A read past the end is INLET_ECORRUPT ("truncated"), a
   * transport or OS error INLET_EIO. */
  int (*read_at)(inlet_rfile *f, int64_t offset, void *buf, size_t n, inlet_error *err);
  void (*close)(inlet_rfile *f);
  /* all backends: reads several ranges; object stores issue them as
   * concurrent ranged GETs (many requests in flight), posix reads them in
   * turn. Fails as read_at on the first range that fails. */
  int (*read_ranges)(inlet_rfile *f, inlet_read_range *ranges, size_t n, inlet_error *err);
  /* all backends: reads the last min(@p n, size) bytes into @p buf in one
   * request (an HTTP suffix range "bytes=-n", so a Parquet footer costs one
   * GET without knowing the size first); *got receives the byte count and
   * f->size is set if it was unknown. */
  int (*read_tail)(inlet_rfile *f, void *buf, size_t n, size_t *got, inlet_error *err);
};

/* A new file opened for sequential writing. */
struct inlet_wfile {
  const struct inlet_wfile_ops *ops;
  char *name;      /* owned */
  int64_t written; /* bytes appended so far */
};
struct inlet_wfile_ops {
  /* all backends: appends; object stores upload a part each time a part's
   * worth has been buffered (S3 multipart, Azure Put Block), several parts in
   * flight at once, so memory stays at parts-in-flight x part size. */
  int (*append)(inlet_wfile *f, const void *buf, size_t n, inlet_error *err);
  /* posix: flushes and fsyncs the file's data and its directory entry.
   * object stores: waits for the parts uploaded so far; the object is not
   * visible before close. */
  int (*sync)(inlet_wfile *f, inlet_error *err);
  /* Closes and always frees @p f. posix: the file is complete (and durable
   * if @p sync). object stores: publishes the object (a single PUT, or
   * CompleteMultipartUpload / Put Block List), durable once this returns 0
   * whatever @p sync says; on failure the upload is aborted, nothing
   * becomes visible and no uploaded part is left behind. */
  int (*close)(inlet_wfile *f, bool sync, inlet_error *err);
  /* Discards the file and frees @p f: posix removes it, object stores abort
   * the multipart upload / drop the uncommitted blocks, so a failed write
   * leaves nothing behind. Best effort (errors are not reported: the caller
   * is already failing; vacuum removes what a killed process left). */
  void (*abort)(inlet_wfile *f);
};

typedef struct inlet_dirent {
  char *name; /* owned; entry name relative to the listed directory */
  bool is_dir;
  bool is_symlink; /* list/list_names: a symbolic link (is_dir false: never followed) */
  int64_t size;
  int64_t mtime_ms; /* modification time, ms since the epoch (object stores:
                     * Last-Modified); -1 when not asked for */
} inlet_dirent;

/* Listing options for list_from; INLET_LIST_OPTIONS_INIT = everything. */
typedef struct inlet_list_options {
  /* Only entries whose name (relative to the listed directory) starts with
   * this; NULL or "" for all. */
  const char *prefix;
  /* Only entries whose name sorts strictly after this (byte order); NULL or
   * "" for all. S3 start-after; Azure marker-free prefix listing that skips
   * to it. With a Delta log this is "00000000000000000042.checkpoint.parquet"
   * and the listing costs O(entries after it) requests on object stores. */
  const char *start_after;
  /* Files anywhere below the directory, names relative to it
   * ("part=1/f.parquet"), no directory entries (object stores: one listing
   * without delimiter, the cheap form for vacuum). */
  bool recursive;
  /* Fill size and mtime_ms (posix: one stat per entry; object stores: free). */
  bool attrs;
  /* At most this many entries (0: no limit); continue with start_after =
   * the last name returned, so a caller can page through a huge prefix in
   * bounded memory. */
  size_t limit;
} inlet_list_options;
#define INLET_LIST_OPTIONS_INIT                                                                    \
  { NULL, NULL, false, false, 0 }

/* What a backend is, for callers whose behaviour must differ. */
enum {
  /* Flat namespace: no real directories, no rename, no fsync; objects
   * appear whole at close. */
  INLET_STORAGE_OBJECT_STORE = 1u << 0,
  /* put_if_absent_bytes is known to be enforced by the store (posix always;
   * object stores once inlet_storage_probe_conditional passed). */
  INLET_STORAGE_CONDITIONAL_VERIFIED = 1u << 1,
  /* The user accepted single-writer mode for this handle (a table opened
   * with single_writer): commits go ahead on a store that failed the
   * conditional-create probe. */
  INLET_STORAGE_SINGLE_WRITER = 1u << 2,
  /* inlet_storage_probe_conditional found the store ignoring
   * If-None-Match: * (remembered so the probe runs once per handle). */
  INLET_STORAGE_CONDITIONAL_IGNORED = 1u << 3,
};

typedef struct inlet_storage_ops {
  /* all backends: opens @p path for reads; r->size is known on return
   * (object stores: one HEAD request). A missing file is INLET_ENOTFOUND. */
  int (*open_read)(inlet_storage *s, const char *path, inlet_rfile **out, inlet_error *err);
  /* all backends: creates a new file, failing with INLET_EEXISTS if it
   * exists (posix: at once, O_EXCL; object stores: when close publishes,
   * with If-None-Match: *); posix creates parent directories as needed. */
  int (*create)(inlet_storage *s, const char *path, inlet_wfile **out, inlet_error *err);
  /* Legacy two-step publish (posix callers write a temporary first):
   * atomically makes @p tmp_path visible as @p final_path if and only if
   * final_path does not exist (INLET_EEXISTS otherwise); tmp_path is removed
   * on success. posix: link(2) / renameat2(RENAME_NOREPLACE) and a directory
   * fsync. object stores: reads the temporary and publishes its bytes with
   * put_if_absent_bytes (no rename exists there). New code uses
   * put_if_absent_bytes. */
  int (*put_if_absent)(inlet_storage *s, const char *tmp_path, const char *final_path,
                       inlet_error *err);
  /* all backends: lists a directory (not recursive), sorted by name; a
   * missing directory is INLET_ENOTFOUND (object stores: an empty prefix).
   * size and mtime_ms filled. */
  int (*list)(inlet_storage *s, const char *dir, inlet_dirent **out, size_t *count,
              inlet_error *err);
  /* Like list, but only names and is_dir: size and mtime_ms are -1. No
   * stat per entry where the directory reports entry types, so a listing of
   * a large `_delta_log` costs reading the directory, not one stat per file. */
  int (*list_names)(inlet_storage *s, const char *dir, inlet_dirent **out, size_t *count,
                    inlet_error *err);
  /* all backends: removes a file (posix: also an empty directory). posix:
   * a missing path is INLET_ENOTFOUND; object stores' deletes are idempotent
   * and report 0 for a missing object: callers treat both alike. */
  int (*remove)(inlet_storage *s, const char *path, inlet_error *err);
  /* Replaces final_path with tmp_path (for hints such as _last_checkpoint,
   * never for commits). object stores: read + PUT + delete of the
   * temporary; new code uses put_bytes. */
  int (*replace)(inlet_storage *s, const char *tmp_path, const char *final_path, inlet_error *err);
  /* all backends: size and mtime of a file, or is_dir of a directory
   * (object stores: a prefix with objects below it). INLET_ENOTFOUND if
   * neither. */
  int (*stat)(inlet_storage *s, const char *path, inlet_dirent *out, inlet_error *err);
  /* posix: mkdir -p, each new directory synced into its parent. object
   * stores: nothing (directories do not exist there). */
  int (*mkdirs)(inlet_storage *s, const char *dir, inlet_error *err);
  /* posix: fsyncs a directory. object stores: nothing (a completed PUT is
   * durable). */
  int (*sync_dir)(inlet_storage *s, const char *dir, inlet_error *err);
  void (*free)(inlet_storage *s);

  /* ---- operations that fit object stores (issue 13 routes every byte
   * through these) ---- */

  /* all backends: creates @p path holding exactly @p data if and only if it
   * does not exist, else INLET_EEXISTS; the object is complete and durable
   * when this returns 0, and it never replaces a concurrent writer's object.
   * posix: a synced temporary beside it, link(2) (renameat2 RENAME_NOREPLACE
   * without hard links), directory fsync. S3: PUT with If-None-Match: *
   * (412, and 409 ConditionalRequestConflict, are INLET_EEXISTS). Azure: Put
   * Blob with If-None-Match: * (409 BlobAlreadyExists / 412). A retry after
   * an attempt whose outcome was lost (timeout, reset, 5xx) that then finds
   * the object present reads it back: identical bytes mean the lost attempt
   * was ours and count as success; anything else is INLET_EEXISTS. Callers
   * whose payload could be byte-identical to a competitor's must make it
   * unique (commitInfo carries a random txnId). Stores that ignore the
   * condition are found by inlet_storage_probe_conditional. */
  int (*put_if_absent_bytes)(inlet_storage *s, const char *path, const void *data, size_t n,
                             inlet_error *err);
  /* all backends: creates or replaces @p path with @p data atomically:
   * readers see the old or the new content whole (posix: synced temporary
   * + rename + directory fsync; object stores: one PUT). For overwrites such
   * as _last_checkpoint; never for commits. */
  int (*put_bytes)(inlet_storage *s, const char *path, const void *data, size_t n,
                   inlet_error *err);
  /* all backends: reads a whole file of at most @p limit bytes (INLET_ELIMIT
   * if larger) into a new buffer *out (owned by the caller, inlet_free; one
   * extra NUL byte after *len for text). One GET on object stores: the way
   * to read commit files. A missing file is INLET_ENOTFOUND. */
  int (*get_bytes)(inlet_storage *s, const char *path, size_t limit, uint8_t **out, size_t *len,
                   inlet_error *err);
  /* all backends: like open_read; @p size >= 0 is the size the caller knows
   * (a Delta add action's size) and spares object stores the HEAD request;
   * -1 leaves it unknown on object stores (f->size -1) until read_tail.
   * posix ignores the hint and uses fstat. */
  int (*open_read_sized)(inlet_storage *s, const char *path, int64_t size, inlet_rfile **out,
                         inlet_error *err);
  /* all backends: lists @p dir ("" for the root) with @p opts (see
   * inlet_list_options), entries sorted by name in byte order. A missing
   * directory is an empty result, not an error (object stores cannot tell
   * the two apart). */
  int (*list_from)(inlet_storage *s, const char *dir, const inlet_list_options *opts,
                   inlet_dirent **out, size_t *count, inlet_error *err);
  /* all backends: removes @p n files, object stores in batches (S3
   * DeleteObjects of up to 1000 keys per request, Azure one DELETE per blob
   * with many in flight). A missing file counts as removed. @p results
   * (optional, n entries) receives 0 or a negative code per path; the return
   * is 0 if all succeeded, else the first failure's code (err says which
   * path), after every path was attempted. */
  int (*remove_many)(inlet_storage *s, const char *const *paths, size_t n, int *results,
                     inlet_error *err);
  /* Reads ranges of several files opened through @p s (read_ranges across
   * files): object stores issue them as concurrent ranged GETs, so a scan
   * fetches the next files while one round trip passes. NULL in a backend:
   * inlet_storage_read_files reads them in turn. Fails on the first range
   * that fails, as read_at. */
  int (*read_files)(inlet_storage *s, inlet_file_range *ranges, size_t n, inlet_error *err);
  /* S3: aborts the incomplete multipart uploads of keys below the root
   * (ListMultipartUploads by prefix, then AbortMultipartUpload each) that
   * were initiated before @p before_ms (ms since the epoch): what a process
   * killed mid-upload leaves. With @p dry_run only counts. Each one's path
   * (relative to the root) goes to @p fn (may be NULL); *count (may be
   * NULL) is incremented per upload. An upload whose initiation time cannot
   * be read is left alone. INLET_EUNSUPPORTED when the store does not list
   * uploads (501) or the credentials may not (403). NULL in backends
   * without such uploads: posix,
   * and Azure, whose uncommitted blocks the service discards after 7 days
   * (inlet_storage_abort_uploads then does nothing). */
  int (*abort_uploads)(inlet_storage *s, int64_t before_ms, bool dry_run,
                       void (*fn)(void *ctx, const char *path), void *ctx, int64_t *count,
                       inlet_error *err);
  /* object stores: a new handle on the same root with the same settings,
   * credentials and flags, and an HTTP client (connections) of its own, so
   * another thread can use it while @p s is in use. Sends no request. NULL
   * in posix (its handles are shared: see "Threads" above) and in the fault
   * wrapper (whose counters are one sequence: it stays on one thread). */
  int (*clone)(inlet_storage *s, inlet_storage **out, inlet_error *err);
} inlet_storage_ops;

struct inlet_storage {
  const inlet_storage_ops *ops;
  char *root;     /* owned; root directory, or the URL (without secrets) */
  uint32_t flags; /* INLET_STORAGE_* */
};

/* The POSIX backend rooted at @p root (which must exist unless @p create). */
int inlet_storage_posix_open(inlet_storage **out, const char *root, bool create, inlet_error *err);

/* inlet_storage_options (the settings of a location) is public:
 * include/inlet/storage.h. */

/*
 * Opens the storage a location names: "s3://bucket/prefix",
 * "az://container/prefix", "abfss://container@account.dfs.core.windows.net/
 * prefix" (served through the Blob API), "file:///path", or a plain local
 * path. The root is the prefix: paths given to the handle are below it.
 * Nothing is requested from a store at open. @p opts may be NULL.
 * @return 0, INLET_EINVAL (malformed URL, unknown scheme, missing
 * credentials or region), INLET_ENOMEM, or a posix open error.
 */
int inlet_storage_open_url(inlet_storage **out, const char *url, const inlet_storage_options *opts,
                           inlet_error *err);

/* True if @p location is a URL this module opens as an object store. */
bool inlet_storage_is_object_url(const char *location);

/* Opens a local file by absolute or relative path, outside any storage root
 * (for CLI inputs such as `inlet parquet cat FILE`). */
int inlet_rfile_open_path(inlet_rfile **out, const char *path, inlet_error *err);
int inlet_wfile_create_path(inlet_wfile **out, const char *path, inlet_error *err);
/* Removes such a local file (a CLI output whose writing failed after its
 * close). A missing file is INLET_ENOTFOUND. */
int inlet_path_remove(const char *path, inlet_error *err);

/* Checks that @p path is relative, has no "..", "." or empty components and
 * no NUL; INLET_EINVAL otherwise. Used on every path read from a log. */
int inlet_path_check(const char *path, inlet_error *err);
/* Same for a counted string (a path decoded from JSON may hold "\u0000"):
 * an embedded NUL is INLET_EINVAL. '\\' is an ordinary byte and allowed. */
int inlet_path_check_len(const char *path, size_t len, inlet_error *err);
/* Longest path accepted by inlet_path_check, in bytes. */
#define INLET_PATH_MAX 4096

void inlet_dirents_free(inlet_dirent *ents, size_t count);

/*
 * Checks once that the store enforces put_if_absent_bytes under @p dir
 * (a table's "_delta_log"): creates a temporary key there twice with
 * different bytes and removes it. A store that let the second create
 * through (s3rver, old S3-compatible servers) would let two writers both
 * "win" one version, so the answer is INLET_EUNSUPPORTED with the reason;
 * callers then refuse to commit unless single-writer mode was accepted. On
 * success sets INLET_STORAGE_CONDITIONAL_VERIFIED in s->flags (posix:
 * set at open, nothing is written). @return 0, INLET_EUNSUPPORTED, or the
 * store's error.
 */
int inlet_storage_probe_conditional(inlet_storage *s, const char *dir, inlet_error *err);

/* The backend's abort_uploads, or nothing (0) where it has none. */
int inlet_storage_abort_uploads(inlet_storage *s, int64_t before_ms, bool dry_run,
                                void (*fn)(void *ctx, const char *path), void *ctx, int64_t *count,
                                inlet_error *err);

/* Whether reads through @p s can be spread over threads: posix handles are
 * shared, object-store handles cloned (inlet_storage_thread_handle). */
bool inlet_storage_threads_ok(const inlet_storage *s);
/* A handle for reading @p s's files on another thread: @p s itself where
 * handles are shared (posix), else a clone (the backend's clone; the fault
 * wrapper over an object store has none: INLET_EUNSUPPORTED, so check
 * inlet_storage_threads_ok first). Release with
 * inlet_storage_thread_handle_free. */
int inlet_storage_thread_handle(inlet_storage *s, inlet_storage **out, inlet_error *err);
/* Frees @p h unless it is @p s itself. NULL-safe. */
void inlet_storage_thread_handle_free(inlet_storage *s, inlet_storage *h);

/* Handles of one storage for short tasks on a pool (a parallel snapshot
 * load's units): a task takes a handle, reads through it, and gives it back.
 * Taking gives a free handle or makes one (inlet_storage_thread_handle), so
 * there are never more handles than tasks that ran at once; posix tasks all
 * get the storage itself. May be used from several threads at once. */
typedef struct inlet_storage_handles inlet_storage_handles;
/* Handles of @p s (borrowed: it must outlive them). 0, INLET_ENOMEM. */
int inlet_storage_handles_new(inlet_storage_handles **out, inlet_storage *s, inlet_error *err);
int inlet_storage_handles_take(inlet_storage_handles *h, inlet_storage **out, inlet_error *err);
void inlet_storage_handles_give(inlet_storage_handles *h, inlet_storage *st);
/* Frees the handles made (all given back). NULL-safe. */
void inlet_storage_handles_free(inlet_storage_handles *h);

/* Reads @p n ranges of files of @p s: the backend's read_files, or one
 * read_at after another where it has none. */
int inlet_storage_read_files(inlet_storage *s, inlet_file_range *ranges, size_t n,
                             inlet_error *err);

/* A read-only file over @p len bytes at @p data (taken over: freed with
 * inlet_free when the file is closed, also on failure); @p name (copied)
 * names it in messages. */
int inlet_rfile_open_memory(inlet_rfile **out, const char *name, void *data, size_t len,
                            inlet_error *err);
/* The same over bytes that stay the caller's (never freed by the file; they
 * must outlive it). Several such files over one buffer may be read on
 * different threads at once. */
int inlet_rfile_open_memory_view(inlet_rfile **out, const char *name, const void *data, size_t len,
                                 inlet_error *err);

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
static inline void inlet_wfile_abort(inlet_wfile *f) {
  if (f) f->ops->abort(f);
}

/* Helpers for backends (storage.c). */

/* read_ranges as a loop over read_at. */
int inlet_rfile_read_ranges_serial(inlet_rfile *f, inlet_read_range *ranges, size_t n,
                                   inlet_error *err);
/* read_tail for files whose size is known at open, through read_at. */
int inlet_rfile_read_tail_sized(inlet_rfile *f, void *buf, size_t n, size_t *got, inlet_error *err);
/* remove_many as a loop over remove (ENOTFOUND counts as removed). */
int inlet_storage_remove_many_serial(inlet_storage *s, const char *const *paths, size_t n,
                                     int *results, inlet_error *err);
/* Keeps the entries of a sorted listing that match @p opts' prefix and
 * start_after and cuts it at opts->limit, in place (freeing the rest). */
void inlet_dirents_filter(inlet_dirent *ents, size_t *count, const inlet_list_options *opts);

#endif /* INLET_STORAGE_H */
