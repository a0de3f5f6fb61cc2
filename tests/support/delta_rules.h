/*
 * The Delta protocol's consistency rules, checked on a table's files by code
 * that shares nothing with src/delta (issue 11, "Proof"): it reads the log
 * with jansson and checkpoints with the Parquet reader, and encodes
 * PROTOCOL.md (delta-io/delta) rule by rule, so a misreading of the spec in
 * src/delta cannot hide itself here.
 *
 * The rules (ids in brackets, as reports name them):
 *   log well-formedness
 *     [log-names]        _delta_log file names follow the spec's patterns
 *     [log-contiguous]   commit versions are contiguous; a log that does not
 *                        start at 0 starts at or before a complete checkpoint
 *     [commit-json]      every line of a commit is one JSON object holding
 *                        one action
 *     [commit-first]     version 0 holds protocol and metaData
 *     [commit-unique]    at most one protocol, one metaData, one txn per
 *                        appId, one add and one remove per path in a commit
 *     [action-fields]    add/remove/metaData/protocol/txn/domainMetadata
 *                        carry their required fields with the right types
 *                        (add: path, partitionValues, size, modificationTime,
 *                        dataChange; stats, when present, a JSON object)
 *     [partition-values] add.partitionValues keys == metaData.partitionColumns;
 *                        partition columns are top-level schema columns
 *     [data-path]        add paths are relative, decoded inside the table,
 *                        not in a hidden (`_`/`.`) directory
 *     [ict]              with in-commit timestamps enabled, commitInfo is the
 *                        first action and carries an increasing
 *                        inCommitTimestamp
 *     [last-checkpoint]  _last_checkpoint parses and names a checkpoint that
 *                        exists
 *     [checkpoint]       a checkpoint holds exactly the replayed state at its
 *                        version (protocol, metaData, live files)
 *     [live-files]       every live file of the newest version exists with
 *                        the size its add records
 *   protocol and metadata (checked at every version)
 *     [protocol-versions]   1 <= reader <= 3, 1 <= writer <= 7; reader 3
 *                           needs writer 7
 *     [protocol-lists]      readerFeatures present iff reader == 3,
 *                           writerFeatures iff writer == 7
 *     [feature-known]       every listed feature name is known
 *     [feature-kind]        reader features are also writer features; a
 *                           writer-only feature is not a reader feature;
 *                           a reader-writer feature on writer 7 is a reader
 *                           feature too (or, for columnMapping, reader 2)
 *     [feature-required]    what the metadata uses is supported by the
 *                           protocol: NOT NULL / delta.invariants ->
 *                           invariants, delta.appendOnly -> appendOnly,
 *                           delta.constraints.* -> checkConstraints,
 *                           generation expressions -> generatedColumns,
 *                           identity columns -> identityColumns, CDF ->
 *                           changeDataFeed, column mapping, timestamp_ntz,
 *                           deletion vectors, in-commit timestamps, row
 *                           tracking (+domainMetadata), clustering
 *                           (+domainMetadata), domainMetadata actions,
 *                           v2 checkpoints, type widening, variant,
 *                           variant shredding, column defaults, Iceberg
 *                           compatibility, delta.feature.X and
 *                           delta.minReader/WriterVersion requests; on
 *                           legacy protocols the version minimums
 *   files inlet wrote
 *     [encodings]        Parquet files whose footer says inlet wrote them use
 *                        only PLAIN, PLAIN_DICTIONARY, RLE_DICTIONARY, RLE and
 *                        BIT_PACKED in V1 data pages, unless the table sets
 *                        inlet.parquet.encodings=extended (checkpoints always)
 */
#ifndef INLET_TEST_DELTA_RULES_H
#define INLET_TEST_DELTA_RULES_H

#include <stdbool.h>
#include <stddef.h>

typedef struct tu_rules_report {
  int tables;     /* tables checked */
  int violations; /* rule violations that fail */
  int pending;    /* violations of rules not yet enforced (see tu_rules_pending) */
  char *text;     /* malloc'd, one line per finding; NULL when none */
  size_t len, cap;
} tu_rules_report;

/* Checks every Delta table (a directory holding `_delta_log`) below @p dir,
 * skipping those registered with tu_rules_exempt. Findings are appended to
 * @p rep. Returns the number of failing violations found by this call. */
int tu_rules_check_tree(const char *dir, tu_rules_report *rep);
/* Checks the one table at @p root. */
int tu_rules_check_table(const char *root, tu_rules_report *rep);
void tu_rules_report_free(tu_rules_report *rep);

/* Exempts the tables at or below @p path from the checks of tu_rmtree and
 * the leftover sweep, for tests that build corrupt or hostile logs on
 * purpose; @p why is recorded beside the path. */
void tu_rules_exempt(const char *path, const char *why);
/* True when @p path is at or below an exempted path. */
bool tu_rules_is_exempt(const char *path);
/* Drops the exemptions of @p path and of the paths below it (tu_rmtree
 * calls it once the tree is gone). */
void tu_rules_forget(const char *path);

/* The rules whose violations are reported but do not fail yet (a fix is in
 * flight on another branch); NULL-terminated. */
extern const char *const tu_rules_pending[];

#endif
