/*
 * The _delta_log directory: listing its files by kind and version, and
 * streaming the actions of one commit file line by line.
 *
 * Spec: PROTOCOL.md "Delta Log Entries" (20-digit zero-padded versions,
 * newline-delimited JSON), "Checkpoints" / "Checkpoint Naming Scheme"
 * (classic `n.checkpoint.parquet`, multi-part
 * `n.checkpoint.o.p.parquet`, UUID-named v2 `n.checkpoint.u.{json,parquet}`),
 * "Log Compaction Files" (`x.y.compacted.json`, listed for the replay).
 * Anything else in the directory (.crc files, temp debris of our own
 * commits, `_last_checkpoint`) is ignored here. Memory is bounded by the
 * longest line, never by the commit file's size.
 */
#include <jansson.h>
#include <stdio.h>

#include "delta/delta.h"
#include "util/util.h"

void delta_commit_name(char out[64], int64_t version) {
  snprintf(out, 64, "_delta_log/%020lld.json", (long long)version);
}

static bool parse_digits(const char *s, size_t n, int64_t *out) {
  int64_t v = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
    if (v > DELTA_MAX_VERSION * 10) return false;
  }
  *out = v;
  return true;
}

typedef struct part_ent {
  int64_t version, part, parts;
} part_ent;

static int cmp_part(const void *a, const void *b) {
  const part_ent *x = a, *y = b;
  if (x->version != y->version) return x->version < y->version ? -1 : 1;
  if (x->parts != y->parts) return x->parts < y->parts ? -1 : 1;
  return (x->part > y->part) - (x->part < y->part);
}

int64_t delta_log_listing_find(const delta_log_listing *l, int64_t version) {
  int64_t lo = 0, hi = l->n_commits;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (l->commit_versions[mid] < version)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

void delta_compaction_name(char out[96], int64_t from, int64_t to) {
  snprintf(out, 96, "_delta_log/%020lld.%020lld.compacted.json", (long long)from, (long long)to);
}

void delta_log_listing_reset(delta_log_listing *l) {
  inlet_free(l->compactions);
  inlet_free(l->commit_versions);
  inlet_free(l->commit_mtimes);
  inlet_free(l->checkpoints);
  memset(l, 0, sizeof *l);
}

int delta_log_list(delta_log_listing *out, inlet_storage *st, inlet_error *err) {
  memset(out, 0, sizeof *out);
  inlet_dirent *ents = NULL;
  size_t n = 0;
  int rc = st->ops->list(st, "_delta_log", &ents, &n, err);
  if (rc == INLET_ENOTFOUND)
    return inlet_fail(err, INLET_ENOTFOUND, "not a Delta table: %s has no _delta_log directory",
                      st->root);
  if (rc < 0) return rc;
  rc = delta_log_listing_from(out, ents, n, err);
  inlet_dirents_free(ents, n);
  return rc;
}

int delta_log_listing_from(delta_log_listing *out, const inlet_dirent *ents, size_t n,
                           inlet_error *err) {
  memset(out, 0, sizeof *out);
  int rc = 0;
  part_ent *parts = NULL;
  size_t n_parts = 0;
  out->commit_versions = inlet_calloc(n + 1, sizeof(int64_t));
  out->commit_mtimes = inlet_calloc(n + 1, sizeof(int64_t));
  out->checkpoints = inlet_calloc(n + 1, sizeof(delta_checkpoint_ref));
  out->compactions = inlet_calloc(n + 1, sizeof(delta_log_range));
  parts = inlet_calloc(n + 1, sizeof *parts);
  if (!out->commit_versions || !out->commit_mtimes || !out->checkpoints || !out->compactions ||
      !parts) {
    rc = inlet_fail(err, INLET_ENOMEM, "out of memory listing _delta_log");
    goto done;
  }
  for (size_t i = 0; i < n; i++) {
    const char *nm = ents[i].name;
    size_t len = strlen(nm);
    int64_t v;
    if (ents[i].is_dir || len < 25 || !parse_digits(nm, 20, &v) || nm[20] != '.') continue;
    const char *rest = nm + 21;
    int64_t to;
    if (strcmp(rest, "json") == 0) {
      out->commit_versions[out->n_commits] = v;
      out->commit_mtimes[out->n_commits] = ents[i].mtime_ms;
      out->n_commits++;
    } else if (strlen(rest) == 35 && parse_digits(rest, 20, &to) &&
               strcmp(rest + 20, ".compacted.json") == 0) {
      if (v <= to) out->compactions[out->n_compactions++] = (delta_log_range){v, to};
    } else if (strcmp(rest, "checkpoint.parquet") == 0) {
      parts[n_parts++] = (part_ent){v, 1, 1};
    } else if (strncmp(rest, "checkpoint.", 11) == 0) {
      const char *q = rest + 11;
      int64_t o, p;
      if (strlen(q) == 29 && parse_digits(q, 10, &o) && q[10] == '.' &&
          parse_digits(q + 11, 10, &p) && strcmp(q + 21, ".parquet") == 0 && o >= 1 && o <= p) {
        parts[n_parts++] = (part_ent){v, o, p};
      } else if (strlen(q) > 36 && q[36] == '.' &&
                 (strcmp(q + 37, "json") == 0 || strcmp(q + 37, "parquet") == 0)) {
        delta_checkpoint_ref *cp = &out->checkpoints[out->n_checkpoints];
        if (len < sizeof cp->name) {
          *cp = (delta_checkpoint_ref){v, 1, true, ""};
          memcpy(cp->name, nm, len + 1);
          out->n_checkpoints++;
        }
      }
    }
  }
  /* Multi-part checkpoints count only when every part is present. */
  qsort(parts, n_parts, sizeof *parts, cmp_part);
  for (size_t i = 0; i < n_parts;) {
    size_t j = i;
    while (j < n_parts && parts[j].version == parts[i].version && parts[j].parts == parts[i].parts)
      j++;
    bool complete = (int64_t)(j - i) == parts[i].parts;
    for (size_t k = i; complete && k < j; k++)
      if (parts[k].part != (int64_t)(k - i) + 1) complete = false;
    if (complete)
      out->checkpoints[out->n_checkpoints++] =
          (delta_checkpoint_ref){parts[i].version, (int32_t)parts[i].parts, false, ""};
    i = j;
  }
  /* Commit timestamps as Spark monotonizes them (DeltaHistoryManager
   * monotonizeCommitTimestamps): a commit whose file time is not after its
   * predecessor's counts as one millisecond after it, so time travel,
   * history and retention never see time go backwards. */
  for (int64_t i = 1; i < out->n_commits; i++)
    if (out->commit_mtimes[i] >= 0 && out->commit_mtimes[i - 1] >= 0 &&
        out->commit_mtimes[i] <= out->commit_mtimes[i - 1])
      out->commit_mtimes[i] = out->commit_mtimes[i - 1] + 1;
  /* Listing is sorted by name, and checkpoints were appended in two passes:
   * restore version order (stable enough: ties keep the first kind). */
  for (int64_t a = 1; a < out->n_checkpoints; a++) {
    delta_checkpoint_ref x = out->checkpoints[a];
    int64_t b = a - 1;
    while (b >= 0 && out->checkpoints[b].version > x.version) {
      out->checkpoints[b + 1] = out->checkpoints[b];
      b--;
    }
    out->checkpoints[b + 1] = x;
  }
done:
  inlet_free(parts);
  if (rc < 0) delta_log_listing_reset(out);
  return rc;
}

int delta_log_read_commit(inlet_storage *st, const char *root_abs, int64_t version,
                          delta_action_cb cb, void *ctx, inlet_error *err) {
  char name[64];
  delta_commit_name(name, version);
  return delta_log_read_file(st, root_abs, name, cb, ctx, err);
}

typedef struct versioned {
  delta_versioned_action_cb cb;
  void *ctx;
  int64_t version;
} versioned;

static int versioned_cb(void *ctx, const delta_action *a, inlet_error *err) {
  versioned *v = ctx;
  return v->cb(v->ctx, v->version, a, err);
}

int delta_log_read_commits_after(inlet_storage *st, const char *root_abs, int64_t *seen,
                                 delta_versioned_action_cb cb, void *ctx, inlet_error *err) {
  for (int64_t v = *seen + 1;; v++) {
    versioned vc = {cb, ctx, v};
    inlet_error e1 = INLET_ERROR_INIT;
    int rc = delta_log_read_commit(st, root_abs, v, versioned_cb, &vc, &e1);
    if (rc == INLET_ENOTFOUND) return 0;
    if (rc < 0) {
      if (err) *err = e1;
      return rc;
    }
    *seen = v;
  }
}

int delta_log_read_file(inlet_storage *st, const char *root_abs, const char *name,
                        delta_action_cb cb, void *ctx, inlet_error *err) {
  inlet_rfile *f = NULL;
  int rc = st->ops->open_read(st, name, &f, err);
  if (rc < 0) return rc;
  inlet_buf line = INLET_BUF_INIT;
  enum { CHUNK = 1 << 16 };
  char *chunk = inlet_malloc(CHUNK);
  int64_t off = 0, lineno = 1, actions = 0;
  delta_line_ctx lc = {name, 0, root_abs};
  if (!chunk) {
    rc = inlet_fail(err, INLET_ENOMEM, "out of memory reading %s", name);
    goto done;
  }
  for (;;) {
    size_t want = f->size - off < CHUNK ? (size_t)(f->size - off) : CHUNK;
    bool eof = want == 0;
    if (!eof) {
      rc = inlet_rfile_read_at(f, off, chunk, want, err);
      if (rc < 0) goto done;
      off += (int64_t)want;
    }
    size_t start = 0;
    for (size_t i = 0; i <= want; i++) {
      bool at_end = i == want;
      if (!at_end && chunk[i] != '\n') continue;
      if (at_end && !eof) {
        /* Carry the partial line over to the next chunk. */
        inlet_buf_append(&line, chunk + start, want - start);
        if (line.len > DELTA_MAX_LINE_BYTES) {
          rc = inlet_fail(err, INLET_ELIMIT, "%s line %lld exceeds the %zu-byte line limit", name,
                          (long long)lineno, DELTA_MAX_LINE_BYTES);
          goto done;
        }
        break;
      }
      if (!at_end) inlet_buf_append(&line, chunk + start, i - start);
      if (inlet_buf_status(&line)) {
        rc = inlet_fail(err, INLET_ENOMEM, "out of memory reading %s", name);
        goto done;
      }
      if (line.len > 0 || !at_end) {
        delta_action a;
        lc.line = lineno;
        rc = delta_action_parse(&a, line.len ? (const char *)line.data : "", line.len, &lc, err);
        if (rc < 0) goto done;
        actions += line.len > 0;
        if (a.kind != DELTA_ACTION_NONE) rc = cb(ctx, &a, err);
        delta_action_reset(&a);
        if (rc != 0) goto done;
      }
      lineno++;
      inlet_buf_clear(&line);
      start = i + 1;
      if (at_end) break;
    }
    if (eof) break;
  }
  /* Every writer puts at least one action in a commit: an empty file is a
   * torn write (a crash before the data reached the disk, or a broken
   * writer), not an empty commit to skip. */
  if (actions == 0)
    rc = inlet_fail(err, INLET_ECORRUPT,
                    "%s holds no action (%lld bytes): a torn write, not a "
                    "commit",
                    name, (long long)f->size);
done:
  inlet_free(chunk);
  inlet_buf_reset(&line);
  inlet_rfile_close(f);
  return rc;
}

static int first_ict_cb(void *ctx, const delta_action *a, inlet_error *err) {
  (void)err;
  if (a->kind == DELTA_ACTION_COMMIT_INFO) {
    json_t *o = json_loads(a->u.commit_info, 0, NULL);
    json_t *x = json_object_get(o, "inCommitTimestamp");
    if (json_is_integer(x) && json_integer_value(x) >= 0)
      *(int64_t *)ctx = (int64_t)json_integer_value(x);
    json_decref(o);
  }
  return 1; /* the commitInfo of an in-commit-timestamp commit comes first */
}

int delta_commit_ict(inlet_storage *st, const char *root_abs, int64_t version, int64_t *ict,
                     inlet_error *err) {
  *ict = -1;
  int rc = delta_log_read_commit(st, root_abs, version, first_ict_cb, ict, err);
  return rc < 0 ? rc : 0;
}
