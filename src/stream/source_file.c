/*
 * File and standard-input sources for ingestion: NDJSON lines or CSV records
 * (RFC 4180 quoting: a newline inside quotes does not end a record) split out
 * of a growing file, with positions = (inode, byte offset just after the last
 * complete record, fingerprint of the first bytes).
 *
 * Following (--follow) polls at EOF. Rotation by rename is detected by the
 * path naming a different inode: the old descriptor is drained to its end
 * (its unterminated tail, if any, counts as a last record: nobody appends to
 * a rotated file), then the new file is read from offset 0. A file that
 * shrinks under the same inode (copytruncate) is read again from 0 with a
 * warning. Without --follow an unterminated last line is a record at EOF.
 *
 * Resume: the same inode with a matching fingerprint → seek; otherwise the
 * recorded inode is looked up among the siblings in the file's directory
 * (the rotated file), finished from the recorded offset, then the current
 * file follows from its start. Records longer than max_record_bytes are
 * skipped without being held in memory and reported with a prefix.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "batch/text_int.h"
#include "stream/stream.h"
#include "util/util.h"

#define CHUNK ((size_t)1 << 20)
#define PREFIX 256

typedef struct file_src {
  stream_source base;
  stream_source_options o;
  char *path;       /* owned; NULL for stdin */
  int fd;           /* -1 when none */
  int64_t inode;
  int64_t file_off; /* file offset of buf[0] */
  char *buf;        /* owned */
  size_t cap, start, end, scan;
  text_csv_state csv_state; /* CSV record splitting state at scan */
  bool eof_seen;    /* read() returned 0 on this descriptor */
  bool skipping;    /* inside an oversize record */
  int64_t skip_off; /* its start offset */
  char prefix[PREFIX];
  size_t prefix_len;
  bool switch_at_eof; /* reading a rotated file found on resume: go to path at EOF */
  bool need_header;   /* CSV: the next complete record of this file is its header */
  bool header_pending; /* CSV resume mid-file: header must be read from offset 0 first */
  int64_t consumed;   /* stdin: bytes consumed */
} file_src;

static void close_fd(file_src *f) {
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

static int open_path(file_src *f, const char *path, int64_t off, inlet_error *err) {
  close_fd(f);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return inlet_fail(err, errno == ENOENT ? INLET_ENOTFOUND : INLET_EIO, "cannot open %s: %s",
                      path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) < 0 || lseek(fd, (off_t)off, SEEK_SET) < 0) {
    int e = errno;
    close(fd);
    return inlet_fail(err, INLET_EIO, "cannot read %s: %s", path, strerror(e));
  }
  f->fd = fd;
  f->inode = (int64_t)st.st_ino;
  reset_buf(f, off);
  f->need_header = f->o.format == INLET_TEXT_CSV && off == 0;
  f->header_pending = f->o.format == INLET_TEXT_CSV && off > 0;
  return 0;
}

/* Reads into the buffer. 1 bytes arrived, 0 EOF or no data within wait_ms. */
static int fill(file_src *f, int64_t wait_ms, inlet_error *err) {
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
    ssize_t n = read(f->fd, f->buf + f->end, f->cap - f->end);
    if (n > 0) {
      f->end += (size_t)n;
      f->eof_seen = false;
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
  memset(rec, 0, sizeof *rec);
  rec->time_ms = -1;
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
    if (f->end > f->start) {
      /* Unterminated last record of a finished file. */
      if (emit(f, rec, f->end, false)) return STREAM_RECORD;
      continue;
    }
    if (f->skipping) {
      f->end = f->start;
      if (emit(f, rec, f->end, false)) return STREAM_RECORD;
    }
    return STREAM_END;
  }
}

/* At EOF while following: switches to the file now at path if it is a
 * different one. Returns STREAM_RECORD when the old file's unterminated tail
 * is emitted first, 0 otherwise (*switched tells). */
static int rotate_check(file_src *f, stream_record *rec, bool *switched, inlet_error *err) {
  struct stat st;
  if (stat(f->path, &st) < 0) {
    if (errno == ENOENT) return 0; /* mid-rotation: the new file is not there yet */
    return inlet_fail(err, INLET_EIO, "cannot stat %s: %s", f->path, strerror(errno));
  }
  if ((int64_t)st.st_ino == f->inode && !f->switch_at_eof) {
    struct stat cur;
    if (fstat(f->fd, &cur) == 0 &&
        (int64_t)cur.st_size < f->file_off + (int64_t)f->end) {
      /* Truncated in place: start again from 0. */
      TRY(open_path(f, f->path, 0, err));
      *switched = true;
    }
    return 0;
  }
  /* Rotated: drain the old descriptor completely, then switch. */
  for (;;) {
    int rc = fill(f, 0, err);
    if (rc < 0) return rc;
    if (rc == 0) break;
    size_t eol = find_eol(f);
    if (eol < f->end) return 0; /* complete records to hand out first; we come back */
  }
  if (f->end > f->start) {
    if (emit(f, rec, f->end, false)) return STREAM_RECORD;
  }
  f->switch_at_eof = false;
  TRY(open_path(f, f->path, 0, err));
  *switched = true;
  return 0;
}

/* Fingerprint of the first min(STREAM_FP_BYTES, upto) bytes of @p fd. */
static int fp_of(int fd, int64_t upto, int64_t *out, inlet_error *err) {
  char b[STREAM_FP_BYTES];
  size_t want = upto < (int64_t)sizeof b ? (size_t)upto : sizeof b, n = 0;
  while (n < want) {
    ssize_t r = pread(fd, b + n, want - n, (off_t)n);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return inlet_fail(err, INLET_EIO, "cannot read for fingerprint: %s", strerror(errno));
    if (r == 0) break;
    n += (size_t)r;
  }
  *out = n < want ? -1 : stream_fingerprint(b, n);
  return 0;
}

static int file_finish_pos(stream_source *s, stream_pos *pos, inlet_error *err) {
  file_src *f = (file_src *)s;
  if (!f->path || !pos->valid) return 0;
  /* The position names the current descriptor's file (records are emitted
   * from one file at a time and a switch happens only between records). */
  int64_t fp = 0;
  if (f->fd >= 0 && pos->p[0] == f->inode) TRY(fp_of(f->fd, pos->p[1], &fp, err));
  pos->p[2] = fp < 0 ? 0 : fp;
  return 0;
}

/* Looks for a regular file with inode @p ino among the siblings of path. */
static char *find_inode(const char *path, int64_t ino) {
  const char *slash = strrchr(path, '/');
  char *dir = slash ? inlet_strndup(path, (size_t)(slash - path) + (slash == path)) : inlet_strdup(".");
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
      if (stat(p, &st) == 0 && S_ISREG(st.st_mode) && (int64_t)st.st_ino == ino) found = p;
      else inlet_free(p);
    }
    closedir(d);
  }
  inlet_free(dir);
  return found;
}

static int file_seek(stream_source *s, const stream_pos *pos, inlet_buf *warn, inlet_error *err) {
  file_src *f = (file_src *)s;
  inlet_buf_clear(warn);
  if (!f->path) {
    if (pos->valid && pos->p[1] > 0)
      inlet_buf_appendf(warn, "stdin cannot be replayed: the %lld bytes recorded as consumed by "
                        "an earlier run are not skipped", (long long)pos->p[1]);
    return 0;
  }
  f->switch_at_eof = false;
  if (!pos->valid) return open_path(f, f->path, 0, err);
  struct stat st;
  if (stat(f->path, &st) == 0 && (int64_t)st.st_ino == pos->p[0] &&
      (int64_t)st.st_size >= pos->p[1]) {
    TRY(open_path(f, f->path, pos->p[1], err));
    int64_t fp;
    TRY(fp_of(f->fd, pos->p[1], &fp, err));
    if (pos->p[2] == 0 || fp == pos->p[2]) return 0;
    inlet_buf_appendf(warn, "%s has the recorded inode but different content (inode reused?): "
                      "reading it from the start", f->path);
    return open_path(f, f->path, 0, err);
  }
  char *old = find_inode(f->path, pos->p[0]);
  if (old) {
    int rc = open_path(f, old, pos->p[1], err);
    int64_t fp = 0;
    if (rc == 0) rc = fp_of(f->fd, pos->p[1], &fp, err);
    if (rc == 0 && (pos->p[2] == 0 || fp == pos->p[2])) {
      inlet_buf_appendf(warn, "resuming in rotated file %s at offset %lld, then %s", old,
                        (long long)pos->p[1], f->path);
      f->switch_at_eof = true;
      inlet_free(old);
      return 0;
    }
    inlet_free(old);
    if (rc < 0) return rc;
  }
  inlet_buf_appendf(warn, "the recorded file (inode %lld, offset %lld) is gone: reading %s from "
                    "the start", (long long)pos->p[0], (long long)pos->p[1], f->path);
  return open_path(f, f->path, 0, err);
}

static void file_free(stream_source *s) {
  file_src *f = (file_src *)s;
  if (!f) return;
  close_fd(f);
  inlet_free(f->path);
  inlet_free(f->buf);
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
                                           .seek = file_seek,
                                           .finish_pos = file_finish_pos,
                                           .lag_bytes = file_lag_bytes,
                                           .free = file_free};

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
      return inlet_fail(err, e == ENOENT ? INLET_ENOTFOUND : INLET_EIO, "cannot open %s: %s",
                        path, strerror(e));
    }
  }
  *out = &f->base;
  return 0;
}
