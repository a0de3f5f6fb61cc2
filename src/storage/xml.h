/*
 * Just enough XML for object-store responses (xml.c, on expat): a walk that
 * reports each element's end with its path from the root ("ListBucketResult/
 * Contents/Key") and its own text, plus escaping for request bodies.
 */
#ifndef INLET_STORAGE_XML_H
#define INLET_STORAGE_XML_H

#include <stddef.h>

#include "inlet/error.h"
#include "util/buf.h"

/* Called at each element's end; @p text is the character data directly
 * inside it (NUL-terminated, @p len bytes). Return < 0 to stop the walk. */
typedef int (*inlet_xml_fn)(void *ctx, const char *path, const char *text, size_t len,
                            inlet_error *err);

/* Parses @p data; INLET_ECORRUPT (naming @p what) if it is not well-formed
 * XML, or deeper than 32 levels. */
int inlet_xml_walk(const char *data, size_t len, const char *what, inlet_xml_fn fn, void *ctx,
                   inlet_error *err);

/* Appends @p s with &, <, >, " and ' escaped. */
int inlet_xml_escape(inlet_buf *b, const char *s);

#endif /* INLET_STORAGE_XML_H */
