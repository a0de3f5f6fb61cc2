/*
 * Version checksum files (`_delta_log/NNN.crc`, PROTOCOL.md "Version
 * Checksum File"): the state summary of one version, written after each
 * commit and used, once checked against the log, to know a version's
 * protocol and metadata without replaying it (delta_crc.c).
 */
#ifndef INLET_DELTA_CRC_H
#define INLET_DELTA_CRC_H

#include "delta/delta.h"
#include "delta/delta_state_int.h"

#define DELTA_CRC_MAX_BYTES ((int64_t)64 << 20)

typedef struct delta_crc {
  int64_t version;
  char *txn_id; /* owned, may be NULL */
  int64_t table_size_bytes;
  int64_t num_files;
  int64_t num_metadata, num_protocol;
  int64_t ict; /* inCommitTimestampOpt, -1 when absent */
  delta_protocol protocol;
  delta_metadata metadata;
  bool has_txns; /* setTransactions present */
  int64_t n_txns;
  delta_txn_entry *txns; /* owned */
  bool has_domains;      /* domainMetadata present */
  int64_t n_domains;
  delta_domain *domains;                 /* owned, live ones */
  int32_t n_bins;                        /* fileSizeHistogram, 0 when absent */
  int64_t *bins, *bin_files, *bin_bytes; /* owned */
} delta_crc;

void delta_crc_init(delta_crc *c);
void delta_crc_reset(delta_crc *c);
/* "_delta_log/%020lld.crc". */
void delta_crc_name(char out[64], int64_t version);

/* The checksum of snapshot @p s (one pass over its files). */
int delta_crc_from_snapshot(delta_crc *out, const delta_snapshot *s, inlet_error *err);
/* Turns the checksum of version - 1 into that of @p version by applying its
 * actions. INLET_EUNSUPPORTED when a remove lacks its size, INLET_ECORRUPT
 * when the result is impossible (negative counts, no protocol). */
int delta_crc_apply(delta_crc *c, int64_t version, const delta_action *acts, size_t n,
                    inlet_error *err);

/* JSON text (caller frees) and back; parsing checks the required fields. */
int delta_crc_to_json(const delta_crc *c, char **out, inlet_error *err);
int delta_crc_parse(delta_crc *out, const char *text, size_t len, int64_t version, const char *file,
                    inlet_error *err);
/* Reads `NNN.crc`: INLET_ENOTFOUND, INLET_ECORRUPT (malformed), storage
 * errors. Nothing is checked against the log here. */
int delta_crc_read(delta_crc *out, inlet_storage *st, int64_t version, inlet_error *err);
/* Publishes @p c with put-if-absent (INLET_EEXISTS: one is there already). */
int delta_crc_write(inlet_storage *st, const delta_crc *c, inlet_error *err);

/* After commit @p version (actions @p acts, the commit file's text @p body,
 * whose first line is its commitInfo) was published: writes its checksum,
 * derived from @p base when that is the full snapshot (files != NULL) of
 * version - 1, else from version - 1's checksum, else (that checksum
 * missing or unreadable: another writer wrote none) from @p base_state when
 * it stands at version - 1 (one pass over its live files, so a long-lived
 * writer's chain starts again; the state is not const: its head is
 * computed lazily). Best effort: every failure only means no
 * checksum. */
void delta_crc_after_commit(inlet_storage *st, const delta_snapshot *base, delta_state *base_state,
                            int64_t version, const delta_action *acts, size_t n, const char *body,
                            size_t len);

/* Whether @p c agrees with its version's commit file (protocol, metaData,
 * txnId, in-commit timestamp where both have them): 0 or INLET_ECORRUPT
 * naming the difference, storage errors. */
int delta_crc_check_commit(const delta_crc *c, inlet_storage *st, const char *root_abs,
                           inlet_error *err);
/* State validation against a replayed snapshot of the same version: 0, or
 * INLET_ECORRUPT with the first difference in @p why. */
int delta_crc_check_snapshot(const delta_crc *c, const delta_snapshot *s, char *why, size_t cap);
/* The checksum of @p version when it exists, parses and agrees with the
 * commit (delta_crc_check_commit); otherwise an error and nothing to use. */
int delta_crc_load_meta(delta_crc *out, inlet_storage *st, const char *root_abs, int64_t version,
                        inlet_error *err);

bool delta_crc_same_protocol(const delta_protocol *a, const delta_protocol *b);
bool delta_crc_same_metadata(const delta_metadata *a, const delta_metadata *b);

#endif /* INLET_DELTA_CRC_H */
