/*
 * A version's protocol and metadata without replaying the log: from the
 * version checksum file when it exists and agrees with its commit
 * (delta_crc.c), else from a full snapshot. For callers that need nothing
 * else (log cleanup: the retention and the protocol; a feature check).
 *
 * Spec: PROTOCOL.md "Version Checksum File" (an optional hint: readers
 * must work without it, and one that disagrees with the log is not used).
 */
#include "delta/delta_crc.h"
#include "delta/delta_table_int.h"
#include "util/util.h"

/* Latest commit version by a names-only listing, -1 when there is none. */
static int latest_commit(inlet_storage *st, int64_t *latest, inlet_error *err) {
  inlet_dirent *ents = NULL;
  size_t n = 0;
  *latest = -1;
  int rc = st->ops->list_names(st, "_delta_log", &ents, &n, err);
  if (rc < 0) return rc;
  delta_log_listing l;
  rc = delta_log_listing_from(&l, ents, n, err);
  inlet_dirents_free(ents, n);
  if (rc < 0) return rc;
  if (l.n_commits > 0) *latest = l.commit_versions[l.n_commits - 1];
  for (int64_t i = 0; i < l.n_checkpoints; i++)
    if (l.checkpoints[i].version > *latest) *latest = -1; /* only a checkpoint: replay decides */
  delta_log_listing_reset(&l);
  return 0;
}

int delta_table_load_meta(inlet_table *t, delta_table_meta *out, inlet_error *err) {
  memset(out, 0, sizeof *out);
  out->metadata.created_time = -1;
  int64_t latest = -1;
  inlet_error e1 = INLET_ERROR_INIT;
  if (latest_commit(t->st, &latest, &e1) == 0 && latest >= 0) {
    delta_crc c;
    if (delta_crc_load_meta(&c, t->st, t->root_abs, latest, &e1) == 0) {
      out->version = latest;
      out->protocol = c.protocol;
      out->metadata = c.metadata;
      memset(&c.protocol, 0, sizeof c.protocol);
      memset(&c.metadata, 0, sizeof c.metadata);
      c.metadata.created_time = -1;
      delta_crc_reset(&c);
      out->from_checksum = true;
      return 0;
    }
  }
  delta_snapshot s;
  TRY(delta_table_load(t, &s, DELTA_SNAP_LATEST, 0, err));
  out->version = s.version;
  out->protocol = s.protocol;
  out->metadata = s.metadata;
  memset(&s.protocol, 0, sizeof s.protocol);
  memset(&s.metadata, 0, sizeof s.metadata);
  delta_snapshot_reset(&s);
  return 0;
}

void delta_table_meta_reset(delta_table_meta *m) {
  delta_protocol_reset(&m->protocol);
  delta_metadata_reset(&m->metadata);
  memset(m, 0, sizeof *m);
  m->metadata.created_time = -1;
}
