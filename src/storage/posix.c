/*
 * The POSIX storage backend (storage.h): a directory tree on a local
 * filesystem, addressed through a directory descriptor on the root so every
 * call is an *at() call and relative paths cannot be re-rooted by a later
 * chdir.
 *
 * Durability (storage.h, docs/ARCHITECTURE.md): wfile appends are buffered and
 * written with write(2); sync and close(sync) fsync the file and, because a
 * newly created file is only durable once its directory entry is, also the
 * parent directory; directories created on the way (mkdir -p) are synced
 * into their own parents as they are made. put_if_absent publishes with link(2), which fails with
 * EEXIST rather than replacing a concurrent winner, falling back to
 * renameat2(RENAME_NOREPLACE) on filesystems without hard links, then
 * fsyncs the directory. Every error names the path and the errno text.
 *
 * Files are created, directories made and files removed only at real paths
 * inside the root: those calls walk the path one component at a time with
 * O_NOFOLLOW and refuse a symbolic link on the way (issue 12: a symlinked
 * partition directory must not make compaction write, or a cleanup delete,
 * outside the table). Reads follow links.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "storage/posix_int.h"
#include "storage/storage.h"
#include "util/util.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

#define WBUF_SIZE (256 * 1024)

/* Bytes written between two writeback hints (start_writeback). */
#define WRITEBACK_STEP ((int64_t)8 << 20)

typedef struct posix_storage {
  inlet_storage base;
  int root_fd; /* owned; O_DIRECTORY descriptor of the root */
} posix_storage;

static int errno_code(int e) {
  switch (e) {
  case ENOENT:
  case ENOTDIR: return INLET_ENOTFOUND;
  case EEXIST: return INLET_EEXISTS;
  case ENOMEM: return INLET_ENOMEM;
  case ENAMETOOLONG:
  case EINVAL: return INLET_EINVAL;
  default: return INLET_EIO;
  }
}

static int os_fail(inlet_error *err, int e, const char *op, const char *root, const char *path) {
  if (root && path)
    return inlet_fail(err, errno_code(e), "%s %s/%s: %s", op, root, path, strerror(e));
  return inlet_fail(err, errno_code(e), "%s %s: %s", op, path ? path : root, strerror(e));
}

/* Paths naming a directory may be "" (the root). */
static int check_dir_path(const char *dir, inlet_error *err) {
  if (dir && dir[0] == '\0') return 0;
  return inlet_path_check(dir, err);
}
static const char *at_path(const char *p) {
  return p && p[0] ? p : ".";
}

/* ---- files -------------------------------------------------------------- */

typedef struct fd_rfile {
  inlet_rfile base;
  int fd;
} fd_rfile;

static int fd_read_at(inlet_rfile *f, int64_t offset, void *buf, size_t n, inlet_error *err) {
  fd_rfile *r = (fd_rfile *)f;
  int64_t end;
  if (offset < 0 || n > INT64_MAX || inlet_add_overflow_i64(offset, (int64_t)n, &end))
    return inlet_fail(err, INLET_ECORRUPT,
                      "%s: read of %zu bytes at offset %" PRId64 " is out of range", f->name, n,
                      offset);
  uint8_t *p = buf;
  while (n) {
    ssize_t k = pread(r->fd, p, n, (off_t)offset);
    if (k < 0) {
      if (errno == EINTR) continue;
      return os_fail(err, errno, "read", NULL, f->name);
    }
    if (k == 0)
      return inlet_fail(err, INLET_ECORRUPT, "%s: truncated: read past the end at offset %" PRId64,
                        f->name, offset);
    p += k;
    n -= (size_t)k;
    offset += k;
  }
  return 0;
}

static void fd_rclose(inlet_rfile *f) {
  if (!f) return;
  fd_rfile *r = (fd_rfile *)f;
  close(r->fd);
  inlet_free(f->name);
  inlet_free(f);
}

static const struct inlet_rfile_ops fd_rfile_ops = {
    .read_at = fd_read_at,
    .close = fd_rclose,
    .read_ranges = inlet_rfile_read_ranges_serial,
    .read_tail = inlet_rfile_read_tail_sized,
};

typedef struct fd_wfile {
  inlet_wfile base;
  int fd;
  int base_fd;  /* not owned: directory the path below is relative to */
  char *path;   /* owned; path relative to base_fd, for abort */
  int dir_fd;   /* owned (or -1): parent directory, fsynced with the file */
  uint8_t *buf; /* owned; WBUF_SIZE bytes */
  size_t len;
  int64_t at_fd;         /* bytes written to fd */
  int64_t writeback_end; /* bytes handed to the kernel's writeback so far */
  int error;             /* sticky: after a failed write the file is unusable */
} fd_wfile;

/* Every WRITEBACK_STEP bytes, asks the kernel to start writing the new
 * bytes out (not to wait for them), so that the fsync before the commit
 * waits for the last few MiB instead of the whole file: writing 10M seed
 * rows to a 159 MB Parquet file on this machine's disk spent 0.09 of 0.65 s
 * in that fsync, 0.006 s with the hints. Only a hint: a failure here is
 * left for fsync to report, and where sync_file_range does not exist
 * nothing is done. */
static void start_writeback(fd_wfile *w) {
  if (w->at_fd - w->writeback_end < WRITEBACK_STEP) return;
#if defined(__linux__) && defined(SYNC_FILE_RANGE_WRITE)
  (void)sync_file_range(w->fd, w->writeback_end, w->at_fd - w->writeback_end,
                        SYNC_FILE_RANGE_WRITE);
#endif
  w->writeback_end = w->at_fd;
}

static int write_all(fd_wfile *w, const uint8_t *p, size_t n, inlet_error *err) {
  const int64_t total = (int64_t)n;
  while (n) {
    ssize_t k = write(w->fd, p, n);
    if (k < 0) {
      if (errno == EINTR) continue;
      w->error = errno_code(errno) == INLET_ENOMEM ? INLET_ENOMEM : INLET_EIO;
      return os_fail(err, errno, "write", NULL, w->base.name);
    }
    p += k;
    n -= (size_t)k;
  }
  w->at_fd += total;
  start_writeback(w);
  return 0;
}

static int flush_buf(fd_wfile *w, inlet_error *err) {
  if (!w->len) return 0;
  int rc = write_all(w, w->buf, w->len, err);
  w->len = 0;
  return rc;
}

static int sticky(fd_wfile *w, inlet_error *err) {
  return inlet_fail(err, w->error, "%s: an earlier write failed", w->base.name);
}

static int fd_append(inlet_wfile *f, const void *data, size_t n, inlet_error *err) {
  fd_wfile *w = (fd_wfile *)f;
  if (w->error) return sticky(w, err);
  if (n <= WBUF_SIZE - w->len) {
    memcpy(w->buf + w->len, data, n);
    w->len += n;
  } else {
    TRY(flush_buf(w, err));
    if (n >= WBUF_SIZE) {
      TRY(write_all(w, data, n, err));
    } else {
      memcpy(w->buf, data, n);
      w->len = n;
    }
  }
  f->written += (int64_t)n;
  return 0;
}

static int fd_sync(inlet_wfile *f, inlet_error *err) {
  fd_wfile *w = (fd_wfile *)f;
  if (w->error) return sticky(w, err);
  TRY(flush_buf(w, err));
  if (fsync(w->fd) < 0) {
    w->error = INLET_EIO;
    return os_fail(err, errno, "fsync", NULL, f->name);
  }
  if (w->dir_fd >= 0) {
    if (fsync(w->dir_fd) < 0 && errno != EINVAL)
      return os_fail(err, errno, "fsync directory of", NULL, f->name);
    close(w->dir_fd);
    w->dir_fd = -1; /* the entry is durable; later syncs need the file only */
  }
  return 0;
}

static int fd_wclose(inlet_wfile *f, bool sync, inlet_error *err) {
  fd_wfile *w = (fd_wfile *)f;
  int rc = 0;
  if (w->error)
    rc = sticky(w, err);
  else if (sync)
    rc = fd_sync(f, err);
  else
    rc = flush_buf(w, err);
  if (close(w->fd) < 0 && rc == 0) rc = os_fail(err, errno, "close", NULL, f->name);
  if (w->dir_fd >= 0) close(w->dir_fd);
  inlet_free(w->path);
  inlet_free(w->buf);
  inlet_free(f->name);
  inlet_free(w);
  return rc;
}

static void fd_wabort(inlet_wfile *f) {
  fd_wfile *w = (fd_wfile *)f;
  inlet_error ignore = INLET_ERROR_INIT;
  w->error = 0;
  w->len = 0;
  if (w->path) unlinkat(w->base_fd, w->path, 0);
  inlet_free(w->path);
  w->path = NULL;
  fd_wclose(f, false, &ignore);
}

static const struct inlet_wfile_ops fd_wfile_ops = {
    .append = fd_append, .sync = fd_sync, .close = fd_wclose, .abort = fd_wabort};

static int make_rfile(inlet_rfile **out, int fd, const char *name, inlet_error *err) {
  struct stat st;
  if (fstat(fd, &st) < 0) {
    int e = errno;
    close(fd);
    return os_fail(err, e, "stat", NULL, name);
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return inlet_fail(err, INLET_EINVAL, "%s: not a regular file", name);
  }
  fd_rfile *r = inlet_calloc(1, sizeof *r);
  char *nm = inlet_strdup(name);
  if (!r || !nm) {
    inlet_free(r);
    inlet_free(nm);
    close(fd);
    return inlet_fail(err, INLET_ENOMEM, "out of memory opening %s", name);
  }
  r->base.ops = &fd_rfile_ops;
  r->base.name = nm;
  r->base.size = st.st_size;
  r->fd = fd;
  *out = &r->base;
  return 0;
}

static int make_wfile(inlet_wfile **out, int fd, int dir_fd, int base_fd, const char *path,
                      const char *name, inlet_error *err) {
  fd_wfile *w = inlet_calloc(1, sizeof *w);
  char *nm = inlet_strdup(name);
  char *pth = inlet_strdup(path);
  uint8_t *buf = inlet_malloc(WBUF_SIZE);
  if (!w || !nm || !pth || !buf) {
    inlet_free(w);
    inlet_free(nm);
    inlet_free(pth);
    inlet_free(buf);
    close(fd);
    if (dir_fd >= 0) close(dir_fd);
    return inlet_fail(err, INLET_ENOMEM, "out of memory creating %s", name);
  }
  w->base.ops = &fd_wfile_ops;
  w->base.name = nm;
  w->fd = fd;
  w->dir_fd = dir_fd;
  w->base_fd = base_fd;
  w->path = pth;
  w->buf = buf;
  *out = &w->base;
  return 0;
}

/* ---- directory helpers --------------------------------------------------- */

/* fsyncs the directory holding the entry @p path (relative to base_fd), so
 * a directory just created there survives a crash with its contents. */
static int fsync_parent_at(int base_fd, char *path, const char *root, inlet_error *err) {
  char *slash = strrchr(path, '/');
  int fd;
  if (!slash) {
    fd = openat(base_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  } else if (slash == path) {
    fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  } else {
    *slash = '\0';
    fd = openat(base_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    *slash = '/';
  }
  if (fd < 0) return os_fail(err, errno, "open parent directory of", root, path);
  int rc = 0;
  if (fsync(fd) < 0 && errno != EINVAL)
    rc = os_fail(err, errno, "fsync parent directory of", root, path);
  close(fd);
  return rc;
}

/* mkdir -p of @p dir relative to @p base_fd (AT_FDCWD for plain paths).
 * Each directory it creates is made durable by syncing its parent. */
static int mkdirs_at(int base_fd, const char *dir, const char *root, inlet_error *err) {
  size_t len = strlen(dir);
  if (len == 0) return 0;
  char *p = inlet_strdup(dir);
  if (!p) return inlet_fail(err, INLET_ENOMEM, "out of memory creating %s", dir);
  int rc = 0;
  for (size_t i = 1; i <= len; i++) {
    if (i < len && p[i] != '/') continue;
    char saved = p[i];
    p[i] = '\0';
    if (mkdirat(base_fd, p, 0777) == 0) {
      rc = fsync_parent_at(base_fd, p, root, err);
      if (rc < 0) break;
    } else if (errno != EEXIST) {
      rc = os_fail(err, errno, "mkdir", root, p);
      break;
    }
    p[i] = saved;
  }
  if (rc == 0) {
    struct stat st;
    if (fstatat(base_fd, dir, &st, 0) < 0)
      rc = os_fail(err, errno, "stat", root, dir);
    else if (!S_ISDIR(st.st_mode))
      rc = inlet_fail(err, INLET_EEXISTS, "mkdir %s%s%s: exists and is not a directory",
                      root ? root : "", root ? "/" : "", dir);
  }
  inlet_free(p);
  return rc;
}

/* Parent directory of @p path ("" for a top-level name), into @p out. */
static int parent_of(const char *path, char **out, inlet_error *err) {
  const char *slash = strrchr(path, '/');
  if (slash == path)
    *out = inlet_strdup("/");
  else
    *out = slash ? inlet_strndup(path, (size_t)(slash - path)) : inlet_strdup("");
  if (!*out) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  return 0;
}

static int open_dir_at(int base_fd, const char *dir) {
  return openat(base_fd, at_path(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static int fsync_dir_at(int base_fd, const char *dir, const char *root, inlet_error *err) {
  int fd = open_dir_at(base_fd, dir);
  if (fd < 0) return os_fail(err, errno, "open directory", root, at_path(dir));
  int rc = 0;
  if (fsync(fd) < 0 && errno != EINVAL)
    rc = os_fail(err, errno, "fsync directory", root, at_path(dir));
  close(fd);
  return rc;
}

/* Creates @p path exclusively (making parents) relative to base_fd. */
static int create_at(int base_fd, const char *root, const char *path, const char *name,
                     inlet_wfile **out, inlet_error *err) {
  *out = NULL;
  const int flags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC;
  int fd = openat(base_fd, path, flags, 0666);
  char *parent = NULL;
  if (fd < 0 && errno == ENOENT) {
    TRY(parent_of(path, &parent, err));
    int rc = mkdirs_at(base_fd, parent, root, err);
    if (rc < 0) {
      inlet_free(parent);
      return rc;
    }
    fd = openat(base_fd, path, flags, 0666);
  }
  if (fd < 0) {
    int e = errno;
    inlet_free(parent);
    if (e == EEXIST) return inlet_fail(err, INLET_EEXISTS, "create %s: file exists", name);
    return os_fail(err, e, "create", NULL, name);
  }
  if (!parent && parent_of(path, &parent, err) < 0) {
    close(fd);
    return INLET_ENOMEM;
  }
  int dir_fd = open_dir_at(base_fd, parent);
  inlet_free(parent);
  if (dir_fd < 0) {
    int e = errno;
    close(fd);
    return os_fail(err, e, "open parent directory of", NULL, name);
  }
  return make_wfile(out, fd, dir_fd, base_fd, path, name, err);
}

/* Opens directory @p dir (relative to @p base_fd, "" for base_fd itself) one
 * component at a time, never following a symbolic link: files are created
 * and removed only at real paths inside the root, so a link planted in the
 * tree cannot send a write or a delete elsewhere. With @p create, missing
 * components are made, each synced into its parent. Returns the descriptor
 * or a negative code (a link on the way is INLET_EINVAL). */
static int open_dir_nofollow(int base_fd, const char *dir, bool create, const char *root,
                             inlet_error *err) {
  int fd = openat(base_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return os_fail(err, errno, "open", root, ".");
  if (!dir || !*dir) return fd;
  char *p = inlet_strdup(dir);
  if (!p) {
    close(fd);
    return inlet_fail(err, INLET_ENOMEM, "out of memory opening %s", dir);
  }
  const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
  int rc = 0;
  char *save = NULL;
  for (char *c = strtok_r(p, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
    int upto = (int)(c - p + (ptrdiff_t)strlen(c)); /* dir's prefix ending at c */
    int nfd = openat(fd, c, flags);
    if (nfd < 0 && errno == ENOENT && create) {
      if (mkdirat(fd, c, 0777) == 0) {
        if (fsync(fd) < 0 && errno != EINVAL) {
          rc = inlet_fail(err, INLET_EIO, "fsync parent directory of %s/%.*s: %s", root, upto, dir,
                          strerror(errno));
          break;
        }
      } else if (errno != EEXIST) {
        rc = inlet_fail(err, errno_code(errno), "mkdir %s/%.*s: %s", root, upto, dir,
                        strerror(errno));
        break;
      }
      nfd = openat(fd, c, flags);
    }
    if (nfd < 0) {
      int e = errno;
      struct stat st;
      bool there = (e == ENOTDIR || e == ELOOP) && fstatat(fd, c, &st, AT_SYMLINK_NOFOLLOW) == 0;
      if (there && S_ISLNK(st.st_mode))
        rc = inlet_fail(err, INLET_EINVAL,
                        "%s/%.*s is a symbolic link: inlet creates and removes files only at "
                        "real paths inside the table",
                        root, upto, dir);
      else if (there && create)
        rc = inlet_fail(err, INLET_EEXISTS, "mkdir %s/%.*s: exists and is not a directory", root,
                        upto, dir);
      else
        rc = inlet_fail(err, errno_code(e), "open directory %s/%.*s: %s", root, upto, dir,
                        strerror(e));
      break;
    }
    close(fd);
    fd = nfd;
  }
  inlet_free(p);
  if (rc < 0) {
    close(fd);
    return rc;
  }
  return fd;
}

/* Splits @p path into its parent directory (owned, "" at the top) and its
 * last component (pointing into @p path). */
static int split_path(const char *path, char **parent, const char **base, inlet_error *err) {
  const char *slash = strrchr(path, '/');
  *base = slash ? slash + 1 : path;
  *parent = slash ? inlet_strndup(path, (size_t)(slash - path)) : inlet_strdup("");
  if (!*parent) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  return 0;
}

/* ---- the backend ----------------------------------------------------------- */

static int px_open_read(inlet_storage *s, const char *path, inlet_rfile **out, inlet_error *err) {
  posix_storage *ps = (posix_storage *)s;
  *out = NULL;
  TRY(inlet_path_check(path, err));
  int fd = openat(ps->root_fd, path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return os_fail(err, errno, "open", s->root, path);
  return make_rfile(out, fd, path, err);
}

static int px_create(inlet_storage *s, const char *path, inlet_wfile **out, inlet_error *err) {
  posix_storage *ps = (posix_storage *)s;
  *out = NULL;
  TRY(inlet_path_check(path, err));
  char *parent;
  const char *base;
  TRY(split_path(path, &parent, &base, err));
  int dfd = open_dir_nofollow(ps->root_fd, parent, true, s->root, err);
  inlet_free(parent);
  if (dfd < 0) return dfd;
  /* O_EXCL never follows a link in the last component either. */
  int fd = openat(dfd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) {
    int e = errno;
    close(dfd);
    if (e == EEXIST) return inlet_fail(err, INLET_EEXISTS, "create %s: file exists", path);
    return os_fail(err, e, "create", NULL, path);
  }
  /* An abort unlinks by the path from the root: the file is ours (O_EXCL). */
  return make_wfile(out, fd, dfd, ps->root_fd, path, path, err);
}

static bool force_rename; /* test hook, see posix_int.h */
void inlet_posix_test_force_rename(bool on) {
  force_rename = on;
}

static bool link_unsupported(int e) {
  return e == EPERM || e == ENOTSUP || e == EOPNOTSUPP || e == ENOSYS || e == EMLINK;
}

/* One attempt at publishing: link(2), or renameat2(RENAME_NOREPLACE) where
 * hard links are unsupported. Returns 0 or an errno value; *renamed tells
 * which call succeeded (a rename leaves no temporary to remove). */
static int publish_once(int fd, const char *tmp_path, const char *final_path, bool *renamed) {
  *renamed = false;
  int e = force_rename ? EPERM : (linkat(fd, tmp_path, fd, final_path, 0) < 0 ? errno : 0);
  if (e == 0 || !link_unsupported(e)) return e;
  if (renameat2(fd, tmp_path, fd, final_path, RENAME_NOREPLACE) < 0) return errno;
  *renamed = true;
  return 0;
}

static int px_put_if_absent(inlet_storage *s, const char *tmp_path, const char *final_path,
                            inlet_error *err) {
  posix_storage *ps = (posix_storage *)s;
  TRY(inlet_path_check(tmp_path, err));
  TRY(inlet_path_check(final_path, err));
  int fd = ps->root_fd;
  bool renamed;
  int e = publish_once(fd, tmp_path, final_path, &renamed);
  if (e == ENOENT && faccessat(fd, tmp_path, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
    /* The destination's directory is missing: create it and retry. */
    char *parent;
    TRY(parent_of(final_path, &parent, err));
    int mrc = mkdirs_at(fd, parent, s->root, err);
    inlet_free(parent);
    TRY(mrc);
    e = publish_once(fd, tmp_path, final_path, &renamed);
  }
  if (e == EINVAL || e == ENOSYS)
    return inlet_fail(err, INLET_EUNSUPPORTED,
                      "put-if-absent %s/%s: the filesystem supports neither link(2) nor "
                      "renameat2(RENAME_NOREPLACE)",
                      s->root, final_path);
  if (e == EEXIST)
    return inlet_fail(err, INLET_EEXISTS, "put-if-absent %s/%s: already exists", s->root,
                      final_path);
  if (e) return os_fail(err, e, "put-if-absent", s->root, final_path);
  int rc;
  if (!renamed && unlinkat(fd, tmp_path, 0) < 0 && errno != ENOENT)
    return os_fail(err, errno, "remove temporary", s->root, tmp_path);
  char *parent;
  TRY(parent_of(final_path, &parent, err));
  rc = fsync_dir_at(fd, parent, s->root, err);
  if (rc == 0 && renamed) {
    /* A rename across directories also changed the temporary's directory;
     * after link + unlink a lost unlink merely leaves a stray temporary. */
    char *tparent;
    if (parent_of(tmp_path, &tparent, err) < 0) {
      inlet_free(parent);
      return INLET_ENOMEM;
    }
    if (strcmp(tparent, parent) != 0) rc = fsync_dir_at(fd, tparent, s->root, err);
    inlet_free(tparent);
  }
  inlet_free(parent);
  return rc;
}

static int cmp_dirent(const void *a, const void *b) {
  return strcmp(((const inlet_dirent *)a)->name, ((const inlet_dirent *)b)->name);
}

static void fill_dirent(inlet_dirent *d, const struct stat *st) {
  d->is_dir = S_ISDIR(st->st_mode);
  d->is_symlink = S_ISLNK(st->st_mode);
  d->size = st->st_size;
  d->mtime_ms = (int64_t)st->st_mtim.tv_sec * 1000 + st->st_mtim.tv_nsec / 1000000;
}

/* Lists @p dir; with @p attrs each entry is stat'ed for size and mtime,
 * without it only entries whose type readdir cannot tell are. */
static int list_dir(inlet_storage *s, const char *dir, bool attrs, inlet_dirent **out,
                    size_t *count, inlet_error *err) {
  posix_storage *ps = (posix_storage *)s;
  *out = NULL;
  *count = 0;
  TRY(check_dir_path(dir, err));
  int dfd = open_dir_at(ps->root_fd, dir);
  if (dfd < 0) return os_fail(err, errno, "list", s->root, at_path(dir));
  DIR *dh = fdopendir(dfd);
  if (!dh) {
    int e = errno;
    close(dfd);
    return os_fail(err, e, "list", s->root, at_path(dir));
  }
  inlet_dirent *ents = NULL;
  size_t n = 0, cap = 0;
  int rc = 0;
  for (;;) {
    errno = 0;
    struct dirent *de = readdir(dh);
    if (!de) {
      if (errno) rc = os_fail(err, errno, "list", s->root, at_path(dir));
      break;
    }
    if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
    struct stat st;
    bool need_stat = attrs || de->d_type == DT_UNKNOWN;
    if (need_stat && fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
      if (errno == ENOENT) continue; /* removed while listing */
      rc = os_fail(err, errno, "stat", s->root, de->d_name);
      break;
    }
    if (n == cap) {
      size_t ncap = cap ? cap * 2 : 64;
      inlet_dirent *ne = inlet_realloc(ents, ncap * sizeof *ne);
      FAIL_GOTO(!ne, err, INLET_ENOMEM, "out of memory listing %s", at_path(dir));
      ents = ne;
      cap = ncap;
    }
    ents[n].name = inlet_strdup(de->d_name);
    FAIL_GOTO(!ents[n].name, err, INLET_ENOMEM, "out of memory listing %s", at_path(dir));
    if (attrs) {
      fill_dirent(&ents[n], &st);
    } else {
      ents[n].is_dir = need_stat ? S_ISDIR(st.st_mode) : de->d_type == DT_DIR;
      ents[n].is_symlink = need_stat ? S_ISLNK(st.st_mode) : de->d_type == DT_LNK;
      ents[n].size = -1;
      ents[n].mtime_ms = -1;
    }
    n++;
  }
done:
  closedir(dh);
  if (rc < 0) {
    inlet_dirents_free(ents, n);
    return rc;
  }
  if (n > 1) qsort(ents, n, sizeof *ents, cmp_dirent);
  *out = ents;
  *count = n;
  return 0;
}

static int px_list(inlet_storage *s, const char *dir, inlet_dirent **out, size_t *count,
                   inlet_error *err) {
  return list_dir(s, dir, true, out, count, err);
}

static int px_list_names(inlet_storage *s, const char *dir, inlet_dirent **out, size_t *count,
                         inlet_error *err) {
  return list_dir(s, dir, false, out, count, err);
}

static int px_remove(inlet_storage *s, const char *path, inlet_error *err) {
  posix_storage *ps = (posix_storage *)s;
  TRY(inlet_path_check(path, err));
  /* Through real directories only: a link on the way would make this delete
   * a file outside the root. A link as the last component is removed
   * itself, never its target. */
  char *parent;
  const char *base;
  TRY(split_path(path, &parent, &base, err));
  int dfd = open_dir_nofollow(ps->root_fd, parent, false, s->root, err);
  inlet_free(parent);
  if (dfd < 0) return dfd;
  int rc = 0;
  if (unlinkat(dfd, base, 0) < 0 &&
      !((errno == EISDIR || errno == EPERM) && unlinkat(dfd, base, AT_REMOVEDIR) == 0))
    rc = os_fail(err, errno, "remove", s->root, path);
  close(dfd);
  return rc;
}

static int px_replace(inlet_storage *s, const char *tmp_path, const char *final_path,
                      inlet_error *err) {
  posix_storage *ps = (posix_storage *)s;
  TRY(inlet_path_check(tmp_path, err));
  TRY(inlet_path_check(final_path, err));
  if (renameat(ps->root_fd, tmp_path, ps->root_fd, final_path) < 0)
    return os_fail(err, errno, "rename", s->root, final_path);
  char *parent;
  TRY(parent_of(final_path, &parent, err));
  int rc = fsync_dir_at(ps->root_fd, parent, s->root, err);
  inlet_free(parent);
  return rc;
}

static int px_stat(inlet_storage *s, const char *path, inlet_dirent *out, inlet_error *err) {
  posix_storage *ps = (posix_storage *)s;
  memset(out, 0, sizeof *out);
  TRY(check_dir_path(path, err));
  struct stat st;
  if (fstatat(ps->root_fd, at_path(path), &st, 0) < 0)
    return os_fail(err, errno, "stat", s->root, at_path(path));
  const char *slash = strrchr(path, '/');
  out->name = inlet_strdup(slash ? slash + 1 : path);
  if (!out->name) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  fill_dirent(out, &st);
  return 0;
}

static int px_mkdirs(inlet_storage *s, const char *dir, inlet_error *err) {
  posix_storage *ps = (posix_storage *)s;
  TRY(check_dir_path(dir, err));
  int fd = open_dir_nofollow(ps->root_fd, dir, true, s->root, err);
  if (fd < 0) return fd;
  close(fd);
  return 0;
}

static int px_sync_dir(inlet_storage *s, const char *dir, inlet_error *err) {
  posix_storage *ps = (posix_storage *)s;
  TRY(check_dir_path(dir, err));
  return fsync_dir_at(ps->root_fd, dir, s->root, err);
}

static void px_free(inlet_storage *s) {
  if (!s) return;
  posix_storage *ps = (posix_storage *)s;
  close(ps->root_fd);
  inlet_free(s->root);
  inlet_free(ps);
}

/* ---- object-store-shaped operations ---------------------------------------- */

/* A temporary beside @p path: "<dir>/.tmp-<name>-<random>", in the same
 * directory so link(2) and rename stay within one filesystem. */
static int tmp_name_for(const char *path, char **out, inlet_error *err) {
  const char *slash = strrchr(path, '/');
  size_t dlen = slash ? (size_t)(slash - path) + 1 : 0;
  const char *base = path + dlen;
  uint64_t r;
  if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r) r = (uint64_t)getpid() * 0x9e3779b97f4a7c15u;
  size_t cap = strlen(path) + 32;
  char *t = inlet_malloc(cap);
  if (!t) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  snprintf(t, cap, "%.*s.tmp-%s-%016" PRIx64, (int)dlen, path, base, r);
  *out = t;
  return 0;
}

/* Writes @p data to a new synced temporary beside @p path. */
static int write_tmp(inlet_storage *s, const char *path, const void *data, size_t n, char **tmp,
                     inlet_error *err) {
  TRY(tmp_name_for(path, tmp, err));
  inlet_wfile *w = NULL;
  int rc = px_create(s, *tmp, &w, err);
  if (rc == 0) rc = fd_append(w, data, n, err);
  if (rc == 0) {
    rc = fd_wclose(w, true, err);
    w = NULL;
  }
  if (rc < 0) {
    if (w)
      fd_wabort(w);
    else
      unlinkat(((posix_storage *)s)->root_fd, *tmp, 0);
    inlet_free(*tmp);
    *tmp = NULL;
  }
  return rc;
}

static int px_put_if_absent_bytes(inlet_storage *s, const char *path, const void *data, size_t n,
                                  inlet_error *err) {
  TRY(inlet_path_check(path, err));
  char *tmp;
  TRY(write_tmp(s, path, data, n, &tmp, err));
  int rc = px_put_if_absent(s, tmp, path, err);
  if (rc < 0) unlinkat(((posix_storage *)s)->root_fd, tmp, 0);
  inlet_free(tmp);
  return rc;
}

static int px_put_bytes(inlet_storage *s, const char *path, const void *data, size_t n,
                        inlet_error *err) {
  TRY(inlet_path_check(path, err));
  char *tmp;
  TRY(write_tmp(s, path, data, n, &tmp, err));
  int rc = px_replace(s, tmp, path, err);
  if (rc < 0) unlinkat(((posix_storage *)s)->root_fd, tmp, 0);
  inlet_free(tmp);
  return rc;
}

static int px_get_bytes(inlet_storage *s, const char *path, size_t limit, uint8_t **out,
                        size_t *len, inlet_error *err) {
  *out = NULL;
  *len = 0;
  inlet_rfile *f;
  TRY(px_open_read(s, path, &f, err));
  int rc = 0;
  uint8_t *buf = NULL;
  if ((uint64_t)f->size > (uint64_t)limit || (uint64_t)f->size >= SIZE_MAX) {
    rc = inlet_fail(err, INLET_ELIMIT, "%s/%s: %" PRId64 " bytes exceed the %zu-byte limit",
                    s->root, path, f->size, limit);
  } else {
    size_t n = (size_t)f->size;
    buf = inlet_malloc(n + 1);
    if (!buf)
      rc = inlet_fail(err, INLET_ENOMEM, "out of memory reading %s", path);
    else
      rc = fd_read_at(f, 0, buf, n, err);
    if (rc == 0) {
      buf[n] = 0;
      *out = buf;
      *len = n;
      buf = NULL;
    }
  }
  inlet_free(buf);
  fd_rclose(f);
  return rc;
}

static int px_open_read_sized(inlet_storage *s, const char *path, int64_t size, inlet_rfile **out,
                              inlet_error *err) {
  (void)size; /* fstat is free here and cannot be stale */
  return px_open_read(s, path, out, err);
}

typedef struct dirent_vec {
  inlet_dirent *v;
  size_t n, cap;
} dirent_vec;

static int vec_push(dirent_vec *d, char *name, const struct stat *st, bool attrs,
                    inlet_error *err) {
  if (d->n == d->cap) {
    size_t ncap = d->cap ? d->cap * 2 : 64;
    inlet_dirent *nv = inlet_realloc(d->v, ncap * sizeof *nv);
    if (!nv) {
      inlet_free(name);
      return inlet_fail(err, INLET_ENOMEM, "out of memory listing");
    }
    d->v = nv;
    d->cap = ncap;
  }
  inlet_dirent *e = &d->v[d->n++];
  e->name = name;
  if (attrs) {
    fill_dirent(e, st);
  } else {
    e->is_dir = S_ISDIR(st->st_mode);
    e->size = -1;
    e->mtime_ms = -1;
  }
  return 0;
}

/* Files below @p rel ("" = the listed directory itself), names relative to
 * the listed directory. Symbolic links are not followed: a link to a
 * directory would let a listing leave the table. */
static int walk_files(inlet_storage *s, int dir_fd, const char *rel, bool attrs, dirent_vec *out,
                      inlet_error *err) {
  int fd = openat(dir_fd, at_path(rel), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return 0;
    return os_fail(err, errno, "list", s->root, at_path(rel));
  }
  DIR *dh = fdopendir(fd);
  if (!dh) {
    int e = errno;
    close(fd);
    return os_fail(err, e, "list", s->root, at_path(rel));
  }
  int rc = 0;
  for (;;) {
    errno = 0;
    struct dirent *de = readdir(dh);
    if (!de) {
      if (errno) rc = os_fail(err, errno, "list", s->root, at_path(rel));
      break;
    }
    if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
    size_t cap = strlen(rel) + strlen(de->d_name) + 2;
    char *name = inlet_malloc(cap);
    if (!name) {
      rc = inlet_fail(err, INLET_ENOMEM, "out of memory listing %s", at_path(rel));
      break;
    }
    snprintf(name, cap, "%s%s%s", rel, rel[0] ? "/" : "", de->d_name);
    struct stat st;
    if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
      int e = errno;
      inlet_free(name);
      if (e == ENOENT) continue; /* removed while listing */
      rc = os_fail(err, e, "stat", s->root, de->d_name);
      break;
    }
    if (S_ISDIR(st.st_mode)) {
      rc = walk_files(s, dir_fd, name, attrs, out, err);
      inlet_free(name);
      if (rc < 0) break;
    } else if ((rc = vec_push(out, name, &st, attrs, err)) < 0) {
      break;
    }
  }
  closedir(dh);
  return rc;
}

static int px_list_from(inlet_storage *s, const char *dir, const inlet_list_options *opts,
                        inlet_dirent **out, size_t *count, inlet_error *err) {
  posix_storage *ps = (posix_storage *)s;
  static const inlet_list_options all = INLET_LIST_OPTIONS_INIT;
  if (!opts) opts = &all;
  *out = NULL;
  *count = 0;
  TRY(check_dir_path(dir, err));
  if (!opts->recursive) {
    inlet_error lerr = INLET_ERROR_INIT;
    int rc = list_dir(s, dir, opts->attrs, out, count, &lerr);
    if (rc == INLET_ENOTFOUND) return 0;
    if (rc < 0) {
      if (err) *err = lerr;
      return rc;
    }
  } else {
    int dfd = open_dir_at(ps->root_fd, dir);
    if (dfd < 0) {
      if (errno == ENOENT || errno == ENOTDIR) return 0;
      return os_fail(err, errno, "list", s->root, at_path(dir));
    }
    dirent_vec v = {0};
    int rc = walk_files(s, dfd, "", opts->attrs, &v, err);
    close(dfd);
    if (rc < 0) {
      inlet_dirents_free(v.v, v.n);
      return rc;
    }
    if (v.n > 1) qsort(v.v, v.n, sizeof *v.v, cmp_dirent);
    *out = v.v;
    *count = v.n;
  }
  inlet_dirents_filter(*out, count, opts);
  return 0;
}

static int px_remove_many(inlet_storage *s, const char *const *paths, size_t n, int *results,
                          inlet_error *err) {
  return inlet_storage_remove_many_serial(s, paths, n, results, err);
}

static const inlet_storage_ops posix_ops = {
    .open_read = px_open_read,
    .create = px_create,
    .put_if_absent = px_put_if_absent,
    .list = px_list,
    .list_names = px_list_names,
    .remove = px_remove,
    .replace = px_replace,
    .stat = px_stat,
    .mkdirs = px_mkdirs,
    .sync_dir = px_sync_dir,
    .free = px_free,
    .put_if_absent_bytes = px_put_if_absent_bytes,
    .put_bytes = px_put_bytes,
    .get_bytes = px_get_bytes,
    .open_read_sized = px_open_read_sized,
    .list_from = px_list_from,
    .remove_many = px_remove_many,
};

int inlet_storage_posix_open(inlet_storage **out, const char *root, bool create, inlet_error *err) {
  *out = NULL;
  if (!root || !root[0]) return inlet_fail(err, INLET_EINVAL, "empty storage root");
  if (create) TRY(mkdirs_at(AT_FDCWD, root, NULL, err));
  int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return os_fail(err, errno, "open", NULL, root);
  posix_storage *ps = inlet_calloc(1, sizeof *ps);
  char *r = inlet_strdup(root);
  if (!ps || !r) {
    inlet_free(ps);
    inlet_free(r);
    close(fd);
    return inlet_fail(err, INLET_ENOMEM, "out of memory opening %s", root);
  }
  ps->base.ops = &posix_ops;
  ps->base.root = r;
  ps->base.flags = INLET_STORAGE_CONDITIONAL_VERIFIED;
  ps->root_fd = fd;
  *out = &ps->base;
  return 0;
}

/* ---- plain paths ----------------------------------------------------------- */

int inlet_rfile_open_path(inlet_rfile **out, const char *path, inlet_error *err) {
  *out = NULL;
  if (!path || !path[0]) return inlet_fail(err, INLET_EINVAL, "empty path");
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return os_fail(err, errno, "open", NULL, path);
  return make_rfile(out, fd, path, err);
}

int inlet_wfile_create_path(inlet_wfile **out, const char *path, inlet_error *err) {
  *out = NULL;
  if (!path || !path[0]) return inlet_fail(err, INLET_EINVAL, "empty path");
  return create_at(AT_FDCWD, NULL, path, path, out, err);
}

int inlet_path_remove(const char *path, inlet_error *err) {
  if (!path || !path[0]) return inlet_fail(err, INLET_EINVAL, "empty path");
  if (unlink(path) < 0) return os_fail(err, errno, "remove", NULL, path);
  return 0;
}

void inlet_dirents_free(inlet_dirent *ents, size_t count) {
  if (!ents) return;
  for (size_t i = 0; i < count; i++)
    inlet_free(ents[i].name);
  inlet_free(ents);
}
