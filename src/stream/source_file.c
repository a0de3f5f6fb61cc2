/*
 * File and standard-input sources for ingestion: NDJSON lines or CSV records
 * (RFC 4180 quoting: a newline inside quotes does not end a record) split out
 * of a growing file, with positions = (inode, byte offset just after the last
 * complete record, fingerprint of the first bytes).
 *
 * The first STREAM_FP_BYTES bytes of the file being read are kept ("head":
 * what was actually read, whatever the file holds later); the fingerprint of
 * a position is the head's first min(1 KiB, offset) bytes. A file is "the
 * same content" when those bytes match.
 *
 * An unterminated last record is left for a later run (its writer may be
 * mid-line): it is read only at a true end of input (stdin closed, the
 * `final` option) or when its file was rotated away (nobody appends to it).
 *
 * Following (--follow) polls at EOF and then looks at what the path names:
 *   - another inode: the old descriptor is drained (its unterminated tail is a
 *     last record) and the new file is read from 0, unless the old file was
 *     deleted and the new one holds the same bytes up to where reading
 *     stopped (an atomic replacement by a superset): then reading goes on
 *     there;
 *   - the same inode, now shorter than what was read: with its first bytes
 *     unchanged it was truncated in place, and reading goes on at its new
 *     end (nothing read is read again); with new first bytes it is a
 *     copy-truncate rotation: the copy beside it (same first bytes, long
 *     enough) is finished from where reading stopped, then the file is read
 *     from 0.
 * Every such event is reported through stream_source.notice.
 *
 * Resume (seek) applies the same rules to the recorded position: the same
 * inode and fingerprint → the offset (or the file's new end when it was
 * truncated below it); the recorded inode among the siblings → finish that
 * rotated file, then the path from 0; the path replaced by a file with the
 * recorded fingerprint → the offset; otherwise the path from 0, with a
 * warning. Records longer than max_record_bytes are skipped without being
 * held in memory and reported with a prefix.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "batch/batch.h"
#include "stream/stream.h"
#include "util/util.h"

#define CHUNK ((size_t)4 << 20)
#define PREFIX 256
/* Room kept before a read-ahead's bytes for the unfinished record the
 * buffer ends with, copied there when the buffers are swapped. */
#define RA_ROOM ((size_t)64 << 10)
/* What a pipe on stdin is asked to hold (widen_pipe). */
#define PIPE_ROOM (1 << 20)

/* The next piece of a regular file, read by a pool task at offset off into
 * buf + RA_ROOM while the ingester parses the records of the buffer before:
 * fill() then swaps buffers instead of reading, so the kernel's copy of the
 * file's bytes (a tenth of a one-thread NDJSON ingest) leaves the
 * ingester's thread. What it read is used only when the buffer still ends
 * at off on the same descriptor; otherwise fill() reads as without it. */
typedef struct read_ahead {
  util_group grp;
  bool pending; /* submitted, not yet waited for */
  char *buf;    /* owned */
  size_t cap;
  int fd;
  int64_t off;
  ssize_t got; /* bytes read at off; <= 0: nothing to use */
} read_ahead;

typedef struct file_src {
  stream_source base;
  stream_source_options o;
  char *path; /* owned; NULL for stdin */
  int fd;     /* -1 when none */
  int64_t inode;
  int64_t file_off; /* file offset of buf[0] (stdin: bytes consumed before it) */
  /* The descriptor's offset where file_off is 0: 0 for a path, where a
   * file redirected to stdin stood when the source opened. */
  int64_t fd_base;
  char *buf; /* owned */
  size_t cap, start, end, scan;
  text_csv_state csv_state; /* CSV record splitting state at scan */
  bool eof_seen;            /* read() returned 0 on this descriptor */
  bool skipping;            /* inside an oversize record */
  int64_t skip_off;         /* its start offset */
  char prefix[PREFIX];
  size_t prefix_len;
  bool switch_at_eof;         /* reading a rotated file found on resume: go to path at EOF */
  bool need_header;           /* CSV: the next complete record of this file is its header */
  bool header_pending;        /* CSV resume mid-file: header must be read from offset 0 first */
  int64_t consumed;           /* stdin: bytes consumed */
  char head[STREAM_FP_BYTES]; /* first bytes of the current file, as read */
  size_t head_len;
  bool tail_noted; /* the "unterminated last record left" notice was given */
  bool regular;    /* the descriptor is a regular file: it can be read ahead */
  read_ahead ra;
} file_src;

/* Waits for the read-ahead in flight (run here if no worker took it yet)
 * and forgets what it read unless @p keep. */
static void ra_wait(file_src *f, bool keep) {
  if (f->ra.pending) {
    util_group_wait_own(&f->ra.grp, NULL);
    f->ra.pending = false;
  }
  if (!keep) f->ra.got = 0;
}

static void close_fd(file_src *f) {
  ra_wait(f, false); /* its task reads this descriptor */
  if (f->fd >= 0 && f->path) close(f->fd);
  f->fd = -1;
}

static void reset_buf(file_src *f, int64_t off) {
  f->start = f->end = f->scan = 0;
  f->csv_state = TEXT_CSV_FIELD_START;
  f->file_off = off;
  f->eof_seen = false;
  f->skipping = false;
}

/* Reads up to @p n bytes at @p off of @p fd; returns the count, -1 on error. */
static ssize_t pread_full(int fd, void *buf, size_t n, int64_t off) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = pread(fd, (char *)buf + got, n - got, (off_t)(off + (int64_t)got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    if (r == 0) break;
    got += (size_t)r;
  }
  return (ssize_t)got;
}

/* Continues reading at @p off of the current descriptor (same file). */
static int move_to(file_src *f, int64_t off, inlet_error *err) {
  ra_wait(f, false);
  if (lseek(f->fd, (off_t)off, SEEK_SET) < 0)
    return inlet_fail(err, INLET_EIO, "cannot seek %s: %s", f->path, strerror(errno));
  reset_buf(f, off);
  f->need_header = f->o.format == INLET_TEXT_CSV && off == 0;
  f->header_pending = f->o.format == INLET_TEXT_CSV && off > 0;
  return 0;
}

static int open_path(file_src *f, const char *path, int64_t off, inlet_error *err) {
  close_fd(f);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return inlet_fail(err, errno == ENOENT ? INLET_ENOTFOUND : INLET_EIO, "cannot open %s: %s",
                      path, strerror(errno));
  struct stat st;
  ssize_t hn = -1;
  if (fstat(fd, &st) < 0 || (hn = pread_full(fd, f->head, sizeof f->head, 0)) < 0) {
    int e = errno;
    close(fd);
    return inlet_fail(err, INLET_EIO, "cannot read %s: %s", path, strerror(e));
  }
  f->fd = fd;
  f->inode = (int64_t)st.st_ino;
  f->regular = S_ISREG(st.st_mode);
  f->head_len = (size_t)hn;
  return move_to(f, off, err);
}

/* Extends the head with bytes the buffer holds right after it. */
static void grow_head(file_src *f) {
  if (!f->path || f->head_len >= sizeof f->head || f->file_off > (int64_t)f->head_len) return;
  size_t from = f->head_len - (size_t)f->file_off;
  if (from >= f->end) return;
  size_t n = f->end - from;
  if (n > sizeof f->head - f->head_len) n = sizeof f->head - f->head_len;
  memcpy(f->head + f->head_len, f->buf + from, n);
  f->head_len += n;
}

/* Fingerprint of the head's first @p n bytes, -1 when it is shorter. */
static int64_t head_fp(const file_src *f, int64_t n) {
  if (n > (int64_t)f->head_len) return -1;
  return stream_fingerprint(f->head, (size_t)n);
}

/* Bytes of the fingerprint of a position at offset @p off. */
static int64_t fp_len(int64_t off) {
  return off < STREAM_FP_BYTES ? off : STREAM_FP_BYTES;
}

static int ra_task(void *arg, inlet_error *err) {
  (void)err;
  read_ahead *ra = arg;
  ra->got = pread_full(ra->fd, ra->buf + RA_ROOM, ra->cap - RA_ROOM, ra->off);
  return 0; /* a failed read is read again by fill(), which reports it */
}

/* Starts reading the piece after the buffer's end on the pool. */
static void ra_start(file_src *f) {
  read_ahead *ra = &f->ra;
  if (ra->pending || !f->regular || f->fd < 0 || util_pool_threads(f->o.pool) == 0) return;
  if (ra->cap < f->cap) {
    char *nb = inlet_realloc(ra->buf, f->cap);
    if (!nb) return; /* fill() reads as without it */
    ra->buf = nb;
    ra->cap = f->cap;
  }
  ra->fd = f->fd;
  ra->off = f->fd_base + f->file_off + (int64_t)f->end;
  ra->got = 0;
  ra->pending = true;
  util_group_init(&ra->grp, f->o.pool);
  util_group_submit_first(&ra->grp, ra_task, ra);
}

/* Makes the read-ahead's bytes the buffer's, with the unfinished record
 * [start, end) moved before them; false when it holds nothing usable. The
 * descriptor's offset moves past them, where read() would have left it. */
static bool ra_take(file_src *f) {
  read_ahead *ra = &f->ra;
  ra_wait(f, true);
  size_t left = f->end - f->start;
  int64_t at = f->file_off + (int64_t)f->start; /* offset of the unfinished record */
  bool usable = ra->got > 0 && ra->fd == f->fd &&
                ra->off == f->fd_base + f->file_off + (int64_t)f->end && left <= RA_ROOM &&
                at >= (int64_t)(RA_ROOM - left);
  if (!usable) {
    ra->got = 0;
    return false;
  }
  int64_t next = ra->off + ra->got;
  if (lseek(f->fd, (off_t)next, SEEK_SET) != (off_t)next) {
    ra->got = 0;
    return false;
  }
  size_t ns = RA_ROOM - left;
  memcpy(ra->buf + ns, f->buf + f->start, left);
  size_t scanned = f->scan > f->start ? f->scan - f->start : 0;
  char *old = f->buf;
  size_t old_cap = f->cap;
  f->buf = ra->buf;
  f->cap = ra->cap;
  ra->buf = old;
  ra->cap = old_cap;
  f->file_off = at - (int64_t)ns;
  f->start = ns;
  f->scan = ns + scanned;
  f->end = RA_ROOM + (size_t)ra->got;
  f->eof_seen = false;
  f->base.bytes_read_ahead += ra->got;
  ra->got = 0;
  grow_head(f);
  return true;
}

/* Reads into the buffer. 1 bytes arrived, 0 EOF or no data within wait_ms. */
static int fill(file_src *f, int64_t wait_ms, inlet_error *err) {
  if (f->ra.pending && ra_take(f)) {
    if (f->end == f->cap) ra_start(f); /* a full piece: not at the end yet */
    return 1;
  }
  if (f->start > 0) {
    memmove(f->buf, f->buf + f->start, f->end - f->start);
    f->file_off += (int64_t)f->start;
    f->end -= f->start;
    f->scan = f->scan >= f->start ? f->scan - f->start : 0;
    f->start = 0;
  }
  if (f->cap - f->end < CHUNK / 2) {
    size_t nc = f->cap ? f->cap * 2 : CHUNK;
    char *nb = inlet_realloc(f->buf, nc);
    if (!nb) return inlet_fail(err, INLET_ENOMEM, "out of memory reading the source");
    f->buf = nb;
    f->cap = nc;
  }
  if (!f->path) {
    struct pollfd pfd = {f->fd, POLLIN, 0};
    int pr = poll(&pfd, 1, (int)(wait_ms > 1000 ? 1000 : wait_ms < 0 ? 0 : wait_ms));
    if (pr == 0 || (pr < 0 && errno == EINTR)) return 0;
  }
  for (;;) {
    size_t want = f->cap - f->end;
    ssize_t n = read(f->fd, f->buf + f->end, want);
    if (n > 0) {
      f->end += (size_t)n;
      f->eof_seen = false;
      grow_head(f);
      /* A short read of a regular file reached its end: reading ahead
       * there (a followed file's tail) would find nothing. */
      if ((size_t)n == want) ra_start(f);
      return 1;
    }
    if (n == 0) {
      f->eof_seen = true;
      return 0;
    }
    if (errno == EINTR) {
      if (!f->path) return 0;
      continue;
    }
    if (errno == EAGAIN) return 0;
    return inlet_fail(err, INLET_EIO, "read failed on %s: %s", f->path ? f->path : "stdin",
                      strerror(errno));
  }
}

/* Index of the end of the record starting at start (its '\n'), or end. */
static size_t find_eol(file_src *f) {
  size_t i = f->scan > f->start ? f->scan : f->start;
  if (f->o.format != INLET_TEXT_CSV) {
    const char *nl = i < f->end ? memchr(f->buf + i, '\n', f->end - i) : NULL;
    f->scan = nl ? (size_t)(nl - f->buf) : f->end;
    return f->scan;
  }
  /* The text reader's splitter: a quote opens a quoted field only at the
   * start of a field, so a stray quote inside a value does not swallow the
   * lines after it. */
  int64_t newlines = 0;
  i = text_csv_scan(f->buf, i, f->end, ',', &f->csv_state, &newlines);
  f->scan = i;
  return i;
}

static bool blank(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r') return false;
  return true;
}

static void set_pos(file_src *f, stream_record *rec, int64_t after) {
  rec->pos.valid = true;
  rec->pos.p[0] = f->path ? f->inode : 0;
  rec->pos.p[1] = after;
  rec->pos.p[2] = 0;
}

/* Emits the record [start, eol) (eol may be end at EOF); returns 1, or 0 for a
 * blank line that was skipped. */
static int emit(file_src *f, stream_record *rec, size_t eol, bool has_nl) {
  size_t next = eol + (has_nl ? 1 : 0);
  int64_t start_off = f->file_off + (int64_t)f->start;
  int64_t after = f->file_off + (int64_t)next;
  const char *s = f->buf + f->start;
  size_t n = eol - f->start;
  stream_record_clear(rec);
  rec->bytes = (int64_t)(next - f->start);
  f->start = f->scan = next;
  f->csv_state = TEXT_CSV_FIELD_START;
  f->consumed += rec->bytes;
  if (f->skipping) {
    f->skipping = false;
    rec->data = f->prefix;
    rec->len = f->prefix_len;
    rec->oversize = true;
    rec->offset = f->skip_off;
    rec->bytes = after - f->skip_off;
    set_pos(f, rec, f->path ? after : f->consumed);
    return 1;
  }
  if (n > 0 && s[n - 1] == '\r') n--;
  rec->data = s;
  rec->len = n;
  rec->offset = start_off;
  set_pos(f, rec, f->path ? after : f->consumed);
  if (f->need_header) {
    f->need_header = false;
    rec->header = true;
    return 1;
  }
  if (blank(s, n)) return 0;
  if ((int64_t)n > f->o.max_record_bytes) {
    rec->oversize = true;
    rec->len = n < PREFIX ? n : PREFIX;
  }
  return 1;
}

/* CSV resume mid-file: returns the header line read from offset 0. */
static int read_header(file_src *f, stream_record *rec, inlet_error *err) {
  f->header_pending = false;
  size_t cap = 65536, n = 0;
  char *tmp = inlet_malloc(cap);
  if (!tmp) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  for (;;) {
    ssize_t r = pread(f->fd, tmp + n, cap - n, (off_t)n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    n += (size_t)r;
    if (memchr(tmp, '\n', n) || n == cap) break;
  }
  char *nl = memchr(tmp, '\n', n);
  size_t len = nl ? (size_t)(nl - tmp) : n;
  if (len && tmp[len - 1] == '\r') len--;
  /* The header is returned from the prefix buffer's big sibling: the read
   * buffer, which is empty right after a seek. */
  if (f->cap < len + 1) {
    char *nb = inlet_realloc(f->buf, len + CHUNK);
    if (!nb) {
      inlet_free(tmp);
      return inlet_fail(err, INLET_ENOMEM, "out of memory");
    }
    f->buf = nb;
    f->cap = len + CHUNK;
  }
  memcpy(f->buf + f->cap - len, tmp, len); /* tail of the buffer, unused until the next fill */
  inlet_free(tmp);
  memset(rec, 0, sizeof *rec);
  rec->data = f->buf + f->cap - len;
  rec->len = len;
  rec->header = true;
  rec->offset = 0;
  rec->time_ms = -1;
  rec->pos.valid = false;
  return STREAM_RECORD;
}

static int rotate_check(file_src *f, stream_record *rec, bool *switched, inlet_error *err);

static int file_next(stream_source *s, stream_record *rec, int64_t wait_ms, inlet_error *err) {
  file_src *f = (file_src *)s;
  if (f->fd < 0) return STREAM_END;
  if (f->header_pending) return read_header(f, rec, err);
  int64_t deadline = -1; /* read the clock only when the buffer runs dry */
  for (;;) {
    size_t eol = find_eol(f);
    if (eol < f->end) {
      if (emit(f, rec, eol, true)) return STREAM_RECORD;
      continue;
    }
    if (deadline < 0) deadline = stream_now_ms() + (wait_ms < 0 ? 0 : wait_ms);
    /* No complete record in the buffer. */
    if (!f->skipping && (int64_t)(f->end - f->start) > f->o.max_record_bytes) {
      f->skipping = true;
      f->skip_off = f->file_off + (int64_t)f->start;
      f->prefix_len = f->end - f->start < PREFIX ? f->end - f->start : PREFIX;
      memcpy(f->prefix, f->buf + f->start, f->prefix_len);
    }
    if (f->skipping) {
      /* Drop what has been scanned; keep quote state. */
      f->consumed += (int64_t)(f->end - f->start);
      f->file_off += (int64_t)f->end;
      f->start = f->end = f->scan = 0;
    }
    int rc = fill(f, deadline - stream_now_ms(), err);
    if (rc < 0) return rc;
    if (rc > 0) continue;
    if (!f->eof_seen) { /* stdin: nothing yet */
      if (stream_now_ms() >= deadline) return STREAM_NONE;
      continue;
    }
    /* EOF on this descriptor. */
    bool more_expected = f->path && ((f->o.follow && !f->o.once) || f->switch_at_eof);
    if (more_expected) {
      bool switched = false;
      rc = rotate_check(f, rec, &switched, err);
      if (rc != 0) return rc; /* a final record of the old file, or an error */
      if (switched || find_eol(f) < f->end) continue;
      if (!f->o.follow || f->o.once) goto at_end;
      int64_t left = deadline - stream_now_ms();
      if (left <= 0) return STREAM_NONE;
      int64_t nap = f->o.poll_ms < left ? f->o.poll_ms : left;
      struct timespec ts = {(time_t)(nap / 1000), (long)(nap % 1000) * 1000000L};
      nanosleep(&ts, NULL);
      f->eof_seen = false;
      continue;
    }
  at_end:
    if (f->end > f->start || f->skipping) {
      /* An unterminated last record: a record only at a true end of input
       * (stdin closed, --final). A file's writer may be mid-line: the
       * position stays before it, and the next run reads it whole. */
      if (f->path && !f->o.final) {
        if (!f->tail_noted) {
          int64_t at = f->skipping ? f->skip_off : f->file_off + (int64_t)f->start;
          int64_t len = f->file_off + (int64_t)f->end - at;
          stream_notice(&f->base,
                        "%s ends with an unterminated record (%lld bytes at offset "
                        "%lld): left for the next run (--final reads it as the last record)",
                        f->path, (long long)len, (long long)at);
          f->tail_noted = true;
        }
        return STREAM_END;
      }
      if (f->skipping) f->end = f->start;
      if (emit(f, rec, f->end, false)) return STREAM_RECORD;
      continue;
    }
    return STREAM_END;
  }
}

/* stream_source_ops.next_buffered: complete records the buffer holds. The
 * buffer only moves in fill() and seeks, which this never reaches; a record
 * being skipped (oversize) or a header still to read stops it. */
static int file_next_buffered(stream_source *s, stream_record *rec) {
  file_src *f = (file_src *)s;
  if (f->fd < 0 || f->header_pending || f->skipping) return STREAM_NONE;
  for (;;) {
    size_t eol = find_eol(f);
    if (eol >= f->end) return STREAM_NONE;
    if (emit(f, rec, eol, true)) return STREAM_RECORD;
  }
}

/* Fingerprint of the first @p n bytes of @p fd (-1 when it is shorter). */
static int fp_of(int fd, int64_t n, int64_t *out, inlet_error *err) {
  char b[STREAM_FP_BYTES];
  size_t want = n < (int64_t)sizeof b ? (size_t)n : sizeof b;
  ssize_t got = pread_full(fd, b, want, 0);
  if (got < 0)
    return inlet_fail(err, INLET_EIO, "cannot read for fingerprint: %s", strerror(errno));
  *out = (size_t)got < want ? -1 : stream_fingerprint(b, want);
  return 0;
}

/* True when the byte before @p off of @p fd is a newline (a record ends
 * there), or @p off is 0. */
static bool record_boundary(int fd, int64_t off) {
  char c = 0;
  return off == 0 || (pread_full(fd, &c, 1, off - 1) == 1 && c == '\n');
}

/* Looks among the siblings of @p path whose names start with its own (the
 * names rotation gives: log.1, log-20240101) for a regular file other than
 * inode @p exclude whose first @p n bytes have fingerprint @p fp, at least
 * @p min_size bytes long with a record boundary there: a copy of the content
 * a position was recorded in. Returns its path (owned) or NULL. */
static char *find_copy(const char *path, int64_t exclude, int64_t n, int64_t fp, int64_t min_size) {
  if (fp <= 0) return NULL;
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  char *dir =
      slash ? inlet_strndup(path, (size_t)(slash - path) + (slash == path)) : inlet_strdup(".");
  if (!dir) return NULL;
  DIR *d = opendir(dir);
  char *found = NULL;
  size_t bl = strlen(base);
  if (d) {
    struct dirent *de;
    while (!found && (de = readdir(d)) != NULL) {
      if (strncmp(de->d_name, base, bl) != 0 || (int64_t)de->d_ino == exclude) continue;
      size_t pn = strlen(dir) + strlen(de->d_name) + 2;
      char *p = inlet_malloc(pn);
      if (!p) break;
      snprintf(p, pn, "%s/%s", dir, de->d_name);
      int fd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
      struct stat st;
      int64_t got = -1;
      inlet_error ignored = INLET_ERROR_INIT;
      if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (int64_t)st.st_ino != exclude &&
          (int64_t)st.st_size >= min_size && fp_of(fd, n, &got, &ignored) == 0 && got == fp &&
          record_boundary(fd, min_size))
        found = p;
      else
        inlet_free(p);
      if (fd >= 0) close(fd);
    }
    closedir(d);
  }
  inlet_free(dir);
  return found;
}

/* True when the file that replaced ours at path (@p st, opened as @p nfd)
 * holds the same bytes up to @p done: same first bytes, same bytes before
 * @p done, and ours was deleted (an atomic replacement by rename; a rotation
 * keeps the old file linked). */
static bool replaced_by_superset(file_src *f, int nfd, const struct stat *st, int64_t done) {
  struct stat old;
  if (done <= 0 || fstat(f->fd, &old) < 0 || old.st_nlink != 0 || (int64_t)st->st_size < done)
    return false;
  int64_t n = fp_len(done), got = -1;
  inlet_error ignored = INLET_ERROR_INIT;
  if (head_fp(f, n) < 0 || fp_of(nfd, n, &got, &ignored) < 0 || got != head_fp(f, n)) return false;
  char a[STREAM_FP_BYTES], b[STREAM_FP_BYTES];
  size_t k = (size_t)fp_len(done);
  return pread_full(f->fd, a, k, done - (int64_t)k) == (ssize_t)k &&
         pread_full(nfd, b, k, done - (int64_t)k) == (ssize_t)k && memcmp(a, b, k) == 0;
}

/* The current file (same inode) is now @p size bytes, less than what was
 * read; reading had handed out records up to @p done. */
static int on_shrink(file_src *f, int64_t size, int64_t done, bool *switched, inlet_error *err) {
  *switched = true;
  if (size >= done) {
    stream_notice(&f->base,
                  "%s shrank to %lld bytes, cutting its unterminated last record at "
                  "offset %lld: reading on from there",
                  f->path, (long long)size, (long long)done);
    return move_to(f, done, err);
  }
  f->base.pos_reset = true;
  int64_t n = fp_len(done), now = -1;
  TRY(fp_of(f->fd, n, &now, err));
  if (now >= 0 && now == head_fp(f, n)) {
    stream_notice(&f->base,
                  "%s was truncated in place to %lld bytes, below the %lld already "
                  "read (its first bytes are unchanged): nothing is read again; reading on at "
                  "its end, offset %lld (what was written after the truncation and before it "
                  "was seen, if anything, is not read)",
                  f->path, (long long)size, (long long)done, (long long)size);
    f->base.moved_to = (stream_pos){true, {f->inode, size, 0}};
    return move_to(f, size, err);
  }
  char *copy = find_copy(f->path, f->inode, n, head_fp(f, n), done);
  if (copy) {
    stream_notice(&f->base,
                  "%s was truncated and holds new data (copy-truncate rotation): "
                  "reading the rest of its copy %s from offset %lld, then %s from its start",
                  f->path, copy, (long long)done, f->path);
    int rc = open_path(f, copy, done, err);
    inlet_free(copy);
    f->switch_at_eof = rc == 0;
    return rc;
  }
  stream_notice(&f->base,
                "%s was truncated to %lld bytes, below the %lld already read, and %s "
                "(copy-truncate rotation): reading it from its start",
                f->path, (long long)size, (long long)done,
                now < 0 ? "is too short to compare with its first bytes"
                        : "its first bytes changed");
  return open_path(f, f->path, 0, err); /* new content: a new head */
}

/* At EOF while following: switches to the file now at path if it is a
 * different one, or handles the current file shrinking. Returns
 * STREAM_RECORD when the old file's unterminated tail is emitted first, 0
 * otherwise (*switched tells). */
static int rotate_check(file_src *f, stream_record *rec, bool *switched, inlet_error *err) {
  struct stat st;
  if (stat(f->path, &st) < 0) {
    if (errno == ENOENT) return 0; /* mid-rotation: the new file is not there yet */
    return inlet_fail(err, INLET_EIO, "cannot stat %s: %s", f->path, strerror(errno));
  }
  if ((int64_t)st.st_ino == f->inode && !f->switch_at_eof) {
    struct stat cur;
    if (fstat(f->fd, &cur) == 0 && (int64_t)cur.st_size < f->file_off + (int64_t)f->end)
      return on_shrink(f, (int64_t)cur.st_size, f->file_off + (int64_t)f->start, switched, err);
    return 0;
  }
  /* Another file at path: drain the old descriptor completely first. */
  for (;;) {
    int rc = fill(f, 0, err);
    if (rc < 0) return rc;
    if (rc == 0) break;
    size_t eol = find_eol(f);
    if (eol < f->end) return 0; /* complete records to hand out first; we come back */
  }
  int64_t done = f->file_off + (int64_t)f->start;
  if (!f->switch_at_eof && !f->skipping) {
    int nfd = open(f->path, O_RDONLY | O_CLOEXEC);
    struct stat nst;
    bool superset = nfd >= 0 && fstat(nfd, &nst) == 0 && replaced_by_superset(f, nfd, &nst, done);
    if (nfd >= 0) close(nfd);
    if (superset) {
      stream_notice(&f->base,
                    "%s was replaced (inode %lld -> %lld) by a file holding the same "
                    "bytes up to offset %lld: reading on there",
                    f->path, (long long)f->inode, (long long)nst.st_ino, (long long)done);
      TRY(open_path(f, f->path, done, err));
      *switched = true;
      return 0;
    }
  }
  if (f->end > f->start || f->skipping) {
    /* The rotated file is finished: its unterminated tail is a last record. */
    if (f->skipping) f->end = f->start;
    if (emit(f, rec, f->end, false)) return STREAM_RECORD;
  }
  f->switch_at_eof = false;
  TRY(open_path(f, f->path, 0, err));
  *switched = true;
  return 0;
}

static int file_finish_pos(stream_source *s, stream_pos *pos, inlet_error *err) {
  file_src *f = (file_src *)s;
  if (!f->path || !pos->valid) return 0;
  /* The position names the current descriptor's file (records are emitted
   * from one file at a time and a switch happens only between records); its
   * fingerprint is of the bytes read, whatever the file holds now. */
  int64_t fp = -1, n = fp_len(pos->p[1]);
  if (f->fd >= 0 && pos->p[0] == f->inode) {
    fp = head_fp(f, n);
    if (fp < 0) TRY(fp_of(f->fd, n, &fp, err));
  }
  pos->p[2] = fp < 0 ? 0 : fp;
  return 0;
}

/* Looks for a regular file with inode @p ino among the siblings of path. */
static char *find_inode(const char *path, int64_t ino) {
  const char *slash = strrchr(path, '/');
  char *dir =
      slash ? inlet_strndup(path, (size_t)(slash - path) + (slash == path)) : inlet_strdup(".");
  if (!dir) return NULL;
  DIR *d = opendir(dir);
  char *found = NULL;
  if (d) {
    struct dirent *de;
    while (!found && (de = readdir(d)) != NULL) {
      if ((int64_t)de->d_ino != ino) continue;
      size_t n = strlen(dir) + strlen(de->d_name) + 2;
      char *p = inlet_malloc(n);
      if (!p) break;
      snprintf(p, n, "%s/%s", dir, de->d_name);
      struct stat st;
      if (stat(p, &st) == 0 && S_ISREG(st.st_mode) && (int64_t)st.st_ino == ino)
        found = p;
      else
        inlet_free(p);
    }
    closedir(d);
  }
  inlet_free(dir);
  return found;
}

/* Resumes in @p copy (owned, freed) at @p off, then the path from 0. */
static int resume_in_copy(file_src *f, char *copy, int64_t off, inlet_error *err) {
  int rc = open_path(f, copy, off, err);
  inlet_free(copy);
  f->switch_at_eof = rc == 0;
  return rc;
}

/* Resume when the path still names the recorded inode. */
static int seek_same_inode(file_src *f, const stream_pos *pos, inlet_buf *warn, inlet_error *err) {
  int64_t off = pos->p[1], n = fp_len(off);
  TRY(open_path(f, f->path, 0, err));
  struct stat st;
  if (fstat(f->fd, &st) < 0)
    return inlet_fail(err, INLET_EIO, "cannot stat %s: %s", f->path, strerror(errno));
  int64_t size = (int64_t)st.st_size, fp = head_fp(f, n);
  bool same = pos->p[2] == 0 ? fp >= 0 : fp == pos->p[2];
  if (same && size >= off) return move_to(f, off, err);
  if (same && pos->p[2] != 0) {
    inlet_buf_appendf(warn,
                      "%s was truncated in place to %lld bytes, below the recorded offset "
                      "%lld (its first bytes are unchanged): nothing is ingested again; reading "
                      "on at its end, offset %lld (what was written after the truncation and "
                      "before this run, if anything, is not read)",
                      f->path, (long long)size, (long long)off, (long long)size);
    f->base.pos_reset = true;
    f->base.moved_to = (stream_pos){true, {f->inode, size, 0}};
    return move_to(f, size, err);
  }
  f->base.pos_reset = true;
  char *copy = find_copy(f->path, f->inode, n, pos->p[2], off);
  if (copy) {
    inlet_buf_appendf(warn,
                      "%s holds new data under the recorded inode (copy-truncate "
                      "rotation): finishing its copy %s from the recorded offset %lld, then "
                      "reading %s from its start",
                      f->path, copy, (long long)off, f->path);
    return resume_in_copy(f, copy, off, err);
  }
  if (size < off)
    inlet_buf_appendf(warn,
                      "%s is shorter (%lld bytes) than the recorded offset %lld and %s "
                      "(copy-truncate rotation): reading it from its start",
                      f->path, (long long)size, (long long)off,
                      fp < 0 ? "too short to compare with the recorded first bytes"
                             : "its first bytes changed");
  else
    inlet_buf_appendf(warn,
                      "%s has the recorded inode but other first bytes (copy-truncate "
                      "rotation, or the inode was reused): reading it from its start",
                      f->path);
  return move_to(f, 0, err);
}

static int file_seek(stream_source *s, const stream_pos *pos, inlet_buf *warn, inlet_error *err) {
  file_src *f = (file_src *)s;
  inlet_buf_clear(warn);
  if (!f->path) {
    if (pos->valid && pos->p[1] > 0)
      inlet_buf_appendf(warn,
                        "stdin cannot be replayed: the %lld bytes recorded as consumed by "
                        "an earlier run are not skipped",
                        (long long)pos->p[1]);
    return 0;
  }
  f->switch_at_eof = false;
  if (!pos->valid) return open_path(f, f->path, 0, err);
  int64_t ino = pos->p[0], off = pos->p[1], fp = pos->p[2], n = fp_len(off);
  struct stat st;
  bool here = stat(f->path, &st) == 0;
  if (here && (int64_t)st.st_ino == ino) return seek_same_inode(f, pos, warn, err);
  /* Rotated away by rename: the recorded inode beside the path. */
  char *old = find_inode(f->path, ino);
  if (old) {
    int rc = open_path(f, old, off, err);
    int64_t got = 0;
    if (rc == 0) rc = fp_of(f->fd, n, &got, err);
    if (rc == 0 && (fp == 0 || got == fp)) {
      inlet_buf_appendf(warn, "resuming in rotated file %s at offset %lld, then %s", old,
                        (long long)off, f->path);
      f->switch_at_eof = true;
      inlet_free(old);
      return 0;
    }
    inlet_free(old);
    if (rc < 0) return rc;
  }
  /* Replaced (new inode) by a file with the recorded first bytes. */
  if (here && fp != 0) {
    TRY(open_path(f, f->path, 0, err));
    int64_t size = (int64_t)st.st_size;
    if (head_fp(f, n) == fp) {
      if (size >= off && record_boundary(f->fd, off)) {
        inlet_buf_appendf(warn,
                          "%s was replaced (inode %lld -> %lld) by a file with the "
                          "recorded first bytes: resuming at the recorded offset %lld",
                          f->path, (long long)ino, (long long)st.st_ino, (long long)off);
        return move_to(f, off, err);
      }
      if (size < off) {
        inlet_buf_appendf(warn,
                          "%s was replaced (inode %lld -> %lld) by a shorter file (%lld "
                          "bytes) with the recorded first bytes: everything it holds was "
                          "already ingested; reading on at offset %lld",
                          f->path, (long long)ino, (long long)st.st_ino, (long long)size,
                          (long long)size);
        f->base.moved_to = (stream_pos){true, {f->inode, size, 0}};
        return move_to(f, size, err);
      }
    }
    /* A copy of the recorded content under another name (rotated by copy). */
    char *copy = find_copy(f->path, (int64_t)st.st_ino, n, fp, off);
    if (copy) {
      inlet_buf_appendf(warn,
                        "the recorded file (inode %lld) is gone; finishing its copy %s "
                        "from the recorded offset %lld, then reading %s from its start",
                        (long long)ino, copy, (long long)off, f->path);
      return resume_in_copy(f, copy, off, err);
    }
  }
  inlet_buf_appendf(warn,
                    "the recorded file (inode %lld, offset %lld) is gone: reading %s from "
                    "the start",
                    (long long)pos->p[0], (long long)pos->p[1], f->path);
  return open_path(f, f->path, 0, err);
}

static void file_free(stream_source *s) {
  file_src *f = (file_src *)s;
  if (!f) return;
  inlet_buf_reset(&f->base.notice);
  close_fd(f);
  inlet_free(f->path);
  inlet_free(f->buf);
  inlet_free(f->ra.buf);
  inlet_free(f);
}

static int64_t file_lag_bytes(stream_source *s) {
  file_src *f = (file_src *)s;
  struct stat st;
  if (!f->path || f->fd < 0 || fstat(f->fd, &st) < 0) return -1;
  int64_t lag = (int64_t)st.st_size - (f->file_off + (int64_t)f->start);
  return lag < 0 ? 0 : lag;
}

static const stream_source_ops file_ops = {.next = file_next,
                                           .next_buffered = file_next_buffered,
                                           .seek = file_seek,
                                           .finish_pos = file_finish_pos,
                                           .lag_bytes = file_lag_bytes,
                                           .free = file_free};

/* A pipe holds 64 KiB by default: its writer stops as soon as that much
 * waits, so reading and parsing here and producing there hardly overlap.
 * Asking for PIPE_ROOM lets the writer run that far ahead (the kernel caps
 * it at /proc/sys/fs/pipe-max-size; a refusal only leaves it as it was). */
static void widen_pipe(int fd) {
#ifdef F_SETPIPE_SZ
  int have = fcntl(fd, F_GETPIPE_SZ);
  if (have >= 0 && have < PIPE_ROOM) (void)fcntl(fd, F_SETPIPE_SZ, PIPE_ROOM);
#else
  (void)fd;
#endif
}

int stream_file_open(stream_source **out, const char *path, bool is_stdin,
                     const stream_source_options *o, inlet_error *err) {
  file_src *f = inlet_calloc(1, sizeof *f);
  if (!f) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  f->base.ops = &file_ops;
  f->base.kind = is_stdin ? STREAM_STDIN : STREAM_FILE;
  f->base.can_seek = !is_stdin;
  f->o = *o;
  f->fd = -1;
  if (is_stdin) {
    f->fd = 0;
    f->need_header = o->format == INLET_TEXT_CSV;
    /* A file redirected to stdin (`< events.ndjson`) is read ahead like a
     * path's, from where its offset stood: a shell may have read part of it
     * before. Pipes and terminals are read as they come. */
    struct stat st;
    off_t at = lseek(0, 0, SEEK_CUR);
    if (at >= 0 && fstat(0, &st) == 0 && S_ISREG(st.st_mode)) {
      f->regular = true;
      f->fd_base = (int64_t)at;
    } else if (fstat(0, &st) == 0 && S_ISFIFO(st.st_mode)) {
      widen_pipe(0);
    }
  } else {
    f->path = inlet_strdup(path);
    if (!f->path) {
      file_free(&f->base);
      return inlet_fail(err, INLET_ENOMEM, "out of memory");
    }
    struct stat st;
    if (stat(path, &st) < 0 && !o->follow) {
      int e = errno;
      file_free(&f->base);
      return inlet_fail(err, e == ENOENT ? INLET_ENOTFOUND : INLET_EIO, "cannot open %s: %s", path,
                        strerror(e));
    }
  }
  *out = &f->base;
  return 0;
}
