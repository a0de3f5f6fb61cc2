/*
 * Thrift compact protocol reader and writer (see thrift.h). Stub: the
 * implementation follows.
 */
#include "parquet/thrift.h"

void inlet_thrift_reader_init(inlet_thrift_reader *r, const void *data, size_t len,
                              inlet_error *err) {
  memset(r, 0, sizeof *r);
  r->start = r->p = data;
  r->end = r->start + len;
  r->bool_pending = -1;
  r->err = err;
}
