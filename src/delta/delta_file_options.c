/*
 * Table properties that shape the Parquet data files every inlet writer of a
 * table produces (append, ingest, compaction), read in one place so that
 * they all agree.
 */
#include <stdlib.h>

#include "delta/delta.h"
#include "inlet/parquet.h"
#include "util/util.h"

int delta_data_file_options(inlet_parquet_writer_options *po, const delta_metadata *m,
                            inlet_error *err) {
  /* Smaller pages let the page index skip more finely inside a row group,
   * at some cost in compression and per-page overhead. */
  const char *pr = delta_metadata_conf(m, "inlet.parquet.pageRows");
  if (pr) {
    char *end = NULL;
    long long v = strtoll(pr, &end, 10);
    FAIL_IF(end == pr || *end || v <= 0 || v > INT32_MAX, err, INLET_EINVAL,
            "table property inlet.parquet.pageRows must be a positive row count, not \"%s\"", pr);
    po->page_max_rows = v;
  }
  /* Spark's vectorized reader before 3.3 cannot decode DELTA_BINARY_PACKED,
   * nor before 4.3 BYTE_STREAM_SPLIT: a table gets them only by asking. */
  const char *enc = delta_metadata_conf(m, "inlet.parquet.encodings");
  po->encodings = INLET_PARQUET_ENCODINGS_COMPATIBLE;
  if (enc && inlet_parquet_encodings_parse(&po->encodings, enc, NULL) < 0)
    return inlet_fail(err, INLET_EINVAL,
                      "table property inlet.parquet.encodings must be compatible or extended, "
                      "not \"%s\"",
                      enc);
  return 0;
}
