/*
 * XML response walking over expat (xml.h).
 */
#include "storage/xml.h"

#include <expat.h>

#include "util/util.h"

#define MAX_DEPTH 32

typedef struct walk {
  XML_Parser p;
  inlet_xml_fn fn;
  void *ctx;
  inlet_error *err;
  int rc;
  inlet_buf path; /* "a/b/c" */
  size_t path_len[MAX_DEPTH + 1];
  inlet_buf text[MAX_DEPTH + 1];
  int depth;
} walk;

static void stop(walk *w, int rc) {
  if (w->rc == 0) w->rc = rc;
  XML_StopParser(w->p, XML_FALSE);
}

static void on_start(void *ud, const XML_Char *name, const XML_Char **atts) {
  (void)atts;
  walk *w = ud;
  if (w->rc) return;
  if (w->depth >= MAX_DEPTH) {
    stop(w, inlet_fail(w->err, INLET_ECORRUPT, "XML nested deeper than %d levels", MAX_DEPTH));
    return;
  }
  w->path_len[w->depth] = w->path.len;
  if (w->depth) inlet_buf_push(&w->path, '/');
  /* Namespaced documents (Azure) keep plain names: strip any "ns:" part. */
  const char *colon = strrchr(name, ':');
  inlet_buf_puts(&w->path, colon ? colon + 1 : name);
  w->depth++;
  inlet_buf_clear(&w->text[w->depth]);
  if (inlet_buf_terminate(&w->path) < 0) stop(w, inlet_fail(w->err, INLET_ENOMEM, "out of memory"));
}

static void on_end(void *ud, const XML_Char *name) {
  (void)name;
  walk *w = ud;
  if (w->rc) return;
  inlet_buf *t = &w->text[w->depth];
  if (inlet_buf_terminate(t) < 0 || inlet_buf_terminate(&w->path) < 0) {
    stop(w, inlet_fail(w->err, INLET_ENOMEM, "out of memory"));
    return;
  }
  int rc = w->fn(w->ctx, (const char *)w->path.data, (const char *)t->data, t->len, w->err);
  if (rc < 0) {
    stop(w, rc);
    return;
  }
  w->depth--;
  w->path.len = w->path_len[w->depth];
}

static void on_text(void *ud, const XML_Char *s, int len) {
  walk *w = ud;
  if (w->rc || w->depth == 0) return;
  if (inlet_buf_append(&w->text[w->depth], s, (size_t)len) < 0)
    stop(w, inlet_fail(w->err, INLET_ENOMEM, "out of memory"));
}

int inlet_xml_walk(const char *data, size_t len, const char *what, inlet_xml_fn fn, void *ctx,
                   inlet_error *err) {
  walk w;
  memset(&w, 0, sizeof w);
  w.p = XML_ParserCreate("UTF-8");
  if (!w.p) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  w.fn = fn;
  w.ctx = ctx;
  w.err = err;
  XML_SetUserData(w.p, &w);
  XML_SetElementHandler(w.p, on_start, on_end);
  XML_SetCharacterDataHandler(w.p, on_text);
  enum XML_Status st = XML_Parse(w.p, data, (int)len, XML_TRUE);
  int rc = w.rc;
  if (rc == 0 && st != XML_STATUS_OK)
    rc = inlet_fail(err, INLET_ECORRUPT, "%s: malformed XML response: %s at line %lu", what,
                    XML_ErrorString(XML_GetErrorCode(w.p)),
                    (unsigned long)XML_GetCurrentLineNumber(w.p));
  XML_ParserFree(w.p);
  inlet_buf_reset(&w.path);
  for (int i = 0; i <= MAX_DEPTH; i++)
    inlet_buf_reset(&w.text[i]);
  return rc;
}

int inlet_xml_escape(inlet_buf *b, const char *s) {
  for (; *s; s++) {
    switch (*s) {
    case '&': inlet_buf_puts(b, "&amp;"); break;
    case '<': inlet_buf_puts(b, "&lt;"); break;
    case '>': inlet_buf_puts(b, "&gt;"); break;
    case '"': inlet_buf_puts(b, "&quot;"); break;
    case '\'': inlet_buf_puts(b, "&apos;"); break;
    default: inlet_buf_push(b, (uint8_t)*s);
    }
  }
  return inlet_buf_status(b);
}
