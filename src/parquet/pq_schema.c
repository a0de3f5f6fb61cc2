/*
 * Parquet schema <-> inlet_schema mapping (see pq_schema.h). Stub: the
 * implementation follows.
 */
#include "parquet/pq_schema.h"

void pq_schema_desc_init(pq_schema_desc *d) { memset(d, 0, sizeof *d); }
void pq_schema_desc_reset(pq_schema_desc *d) {
  if (d) pq_schema_desc_init(d);
}
int pq_schema_from_parquet(pq_schema_desc *out, const pq_schema_element *elems, int32_t n,
                           const char *file_name, inlet_error *err) {
  return inlet_fail(err, INLET_EINTERNAL, "not implemented");
}
int pq_schema_to_parquet(pq_file_metadata *meta, pq_schema_desc *out,
                         const inlet_schema *schema, inlet_error *err) {
  return inlet_fail(err, INLET_EINTERNAL, "not implemented");
}
