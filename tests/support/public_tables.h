/*
 * Issue 16, "Proof": every public test table of delta-rs
 * (crates/test/tests/data) and delta-kernel-rs (kernel/tests/data, with its
 * .tar.zst archives) reads in inlet as refcheck reads it, at every version.
 * The tables are tests/data/public/<project>.tar.zst (see its README).
 */
#ifndef INLET_PUBLIC_TABLES_H
#define INLET_PUBLIC_TABLES_H

/* A table refcheck cannot read that inlet must read (refcheck lacks the
 * feature), and why; @p suffix ends the table's path. */
typedef struct pt_reads_more {
  const char *suffix;
  const char *why;
} pt_reads_more;

/* Unpacks tests/data/public/@p project.tar.zst (and the .tar.zst archives
 * at its top level) into a scratch directory, then for every Delta table in
 * it and every version its log lists (commits and checkpoints):
 *   - when refcheck reads rows, `inlet scan --version V --format ndjson`
 *     must read the same rows (refcheck compare);
 *   - when refcheck refuses (missing data files, unsupported features, a
 *     version the log cannot rebuild), inlet must refuse too, with a message
 *     and exit 3, 5, 6 or 7 - unless the table is in @p more (n_more
 *     entries), where inlet must read it;
 *   - at the latest version, when refcheck summarises the log, `inlet
 *     describe --json` must report the same version and number of files.
 * Fails the test with every finding; at least @p min_tables tables and
 * @p min_same versions read identically, so an empty unpack cannot pass. */
void pt_check_project(const char *project, const pt_reads_more *more, int n_more, int min_tables,
                      int min_same);

#endif
