/*
 * Parquet file metadata (see pq_meta.h). Stub: the implementation follows.
 */
#include "parquet/pq_meta.h"

void pq_file_metadata_init(pq_file_metadata *m) { memset(m, 0, sizeof *m); }
void pq_file_metadata_reset(pq_file_metadata *m) {
  if (m) pq_file_metadata_init(m);
}
int pq_file_metadata_parse(pq_file_metadata *out, const uint8_t *bytes, size_t len,
                           const char *file_name, inlet_error *err) {
  return inlet_fail(err, INLET_EINTERNAL, "not implemented");
}
int pq_file_metadata_serialize(const pq_file_metadata *m, inlet_buf *out, inlet_error *err) {
  return inlet_fail(err, INLET_EINTERNAL, "not implemented");
}
int pq_footer_serialize(const pq_file_metadata *m, inlet_buf *out, inlet_error *err) {
  return inlet_fail(err, INLET_EINTERNAL, "not implemented");
}
int pq_footer_read(pq_file_metadata *out, inlet_rfile *f, int64_t max_footer_bytes,
                   inlet_error *err) {
  return inlet_fail(err, INLET_EINTERNAL, "not implemented");
}
int pq_page_header_parse(pq_page_header *out, const uint8_t *bytes, size_t len,
                         size_t *consumed, inlet_error *err) {
  return inlet_fail(err, INLET_EINTERNAL, "not implemented");
}
int pq_page_header_serialize(const pq_page_header *h, inlet_buf *out, inlet_error *err) {
  return inlet_fail(err, INLET_EINTERNAL, "not implemented");
}
