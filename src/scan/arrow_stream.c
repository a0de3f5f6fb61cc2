/*
 * Arrow C Stream Interface over a scan (inlet/arrow.h): one exported struct
 * array per scan batch, moved out of the batch without copying values.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "inlet/arrow.h"
#include "util/util.h"

typedef struct stream_private {
  inlet_scan *scan;
  inlet_error err;
  int failed; /* errno code of the failed call, sticky; 0 while healthy */
  bool done;
} stream_private;

/* errno-compatible code for an INLET_E* code, as the interface asks. */
static int errno_of(int code) {
  switch (code) {
  case INLET_ENOMEM: return ENOMEM;
  case INLET_EINVAL: return EINVAL;
  case INLET_ENOTFOUND: return ENOENT;
  case INLET_EUNSUPPORTED: return ENOSYS;
  default: return EIO;
  }
}

static int stream_fail(stream_private *p, int rc) {
  p->failed = errno_of(rc);
  return p->failed;
}

static int stream_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
  stream_private *p = s->private_data;
  inlet_error_clear(&p->err);
  int rc = inlet_schema_export(inlet_scan_schema(p->scan), out, &p->err);
  /* A schema failure does not poison get_next: the scan is intact. */
  return rc < 0 ? errno_of(rc) : 0;
}

static int stream_get_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
  stream_private *p = s->private_data;
  memset(out, 0, sizeof *out);
  if (p->failed) return p->failed;
  if (p->done) return 0; /* released array marks the end */
  inlet_error_clear(&p->err);
  inlet_batch batch;
  memset(&batch, 0, sizeof batch);
  int rc = inlet_scan_next(p->scan, &batch, &p->err);
  if (rc < 0) {
    inlet_batch_reset(&batch);
    return stream_fail(p, rc);
  }
  if (rc == 0) {
    inlet_batch_reset(&batch);
    p->done = true;
    return 0;
  }
  rc = inlet_batch_export_array(&batch, out, &p->err);
  inlet_batch_reset(&batch); /* empty after a successful move */
  return rc < 0 ? stream_fail(p, rc) : 0;
}

static const char *stream_get_last_error(struct ArrowArrayStream *s) {
  stream_private *p = s->private_data;
  return p->err.code != 0 ? inlet_errmsg(&p->err) : NULL;
}

static void stream_release(struct ArrowArrayStream *s) {
  if (s == NULL || s->release == NULL) return;
  stream_private *p = s->private_data;
  inlet_scan_free(p->scan);
  free(p);
  s->release = NULL;
  s->private_data = NULL;
}

int inlet_scan_export_stream(inlet_scan *scan, struct ArrowArrayStream *out, inlet_error *err) {
  if (out == NULL) return inlet_fail(err, INLET_EINVAL, "arrow stream: no output stream");
  memset(out, 0, sizeof *out);
  FAIL_IF(scan == NULL, err, INLET_EINVAL, "arrow stream: no scan");
  stream_private *p = calloc(1, sizeof *p);
  if (p == NULL) return inlet_fail(err, INLET_ENOMEM, "arrow stream: out of memory");
  p->scan = scan;
  out->get_schema = stream_get_schema;
  out->get_next = stream_get_next;
  out->get_last_error = stream_get_last_error;
  out->release = stream_release;
  out->private_data = p;
  return 0;
}
