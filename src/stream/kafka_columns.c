/*
 * The --kafka-columns of a Kafka ingester: table columns that receive a
 * message's topic, partition, offset, timestamp, key and headers next to
 * the fields of its value (docs/INGEST.md "Kafka").
 *
 * Headers go to a map column. Kafka allows a header name more than once; a
 * map holds each key once (Parquet's MAP keys are unique), so the last value
 * of a name wins, as rd_kafka_header_get_last reads it. A header without a
 * value is a null map value.
 */
#include <librdkafka/rdkafka.h>
#include <stdio.h>
#include <stdlib.h>

#include "batch/batch.h"
#include "stream/stream.h"
#include "util/util.h"

static const char *const kcol_names[KCOL_N] = {"topic",     "partition", "offset",
                                               "timestamp", "key",       "headers"};

static bool type_fits(int which, const inlet_field *f) {
  inlet_type_id t = f->type.id;
  switch (which) {
  case KCOL_TOPIC: return t == INLET_TYPE_STRING;
  case KCOL_PARTITION: return t == INLET_TYPE_INT32 || t == INLET_TYPE_INT64;
  case KCOL_OFFSET: return t == INLET_TYPE_INT64;
  case KCOL_TIMESTAMP: return t == INLET_TYPE_TIMESTAMP || t == INLET_TYPE_INT64;
  case KCOL_KEY: return t == INLET_TYPE_STRING || t == INLET_TYPE_BINARY;
  case KCOL_HEADERS: {
    if (t != INLET_TYPE_MAP || f->n_children != 1 || f->children[0].n_children != 2) return false;
    const inlet_field *kf = &f->children[0].children[0], *vf = &f->children[0].children[1];
    return kf->type.id == INLET_TYPE_STRING &&
           (vf->type.id == INLET_TYPE_STRING || vf->type.id == INLET_TYPE_BINARY);
  }
  default: return false;
  }
}

static const char *const kcol_types[KCOL_N] = {"string",
                                               "int or long",
                                               "long",
                                               "timestamp, timestamp_ntz or long (milliseconds)",
                                               "string or binary",
                                               "map<string,string> or map<string,binary>"};

int stream_kcols_parse(stream_kcols *c, const char *spec, inlet_schema *schema, inlet_error *err) {
  for (int i = 0; i < KCOL_N; i++)
    c->col[i] = -1;
  c->any = false;
  if (!spec || !*spec) return 0;
  char *copy = inlet_strdup(spec);
  if (!copy) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  int rc = 0;
  for (char *item = copy, *next; item && rc == 0; item = next) {
    next = strchr(item, ',');
    if (next) *next++ = '\0';
    while (*item == ' ')
      item++;
    char *eq = strchr(item, '=');
    if (!eq || eq == item || !eq[1]) {
      rc = inlet_fail(err, INLET_EINVAL,
                      "--kafka-columns: \"%s\" is not NAME=COLUMN (names: "
                      "topic, partition, offset, timestamp, key, headers)",
                      item);
      break;
    }
    *eq = '\0';
    int which = -1;
    for (int i = 0; i < KCOL_N; i++)
      if (strcmp(item, kcol_names[i]) == 0) which = i;
    if (which < 0) {
      rc = inlet_fail(err, INLET_EINVAL,
                      "--kafka-columns: unknown metadata \"%s\" (topic, "
                      "partition, offset, timestamp, key, headers)",
                      item);
      break;
    }
    int col = inlet_schema_find(schema, eq + 1);
    if (col < 0) {
      rc = inlet_fail(err, INLET_EINVAL, "--kafka-columns: %s column \"%s\" is not in the table",
                      item, eq + 1);
    } else if (c->col[which] >= 0) {
      rc = inlet_fail(err, INLET_EINVAL, "--kafka-columns: %s is named twice", item);
    } else if (!type_fits(which, &schema->fields[col])) {
      char tn[128];
      inlet_field_type_name(&schema->fields[col], tn, sizeof tn);
      rc = inlet_fail(err, INLET_EINVAL,
                      "--kafka-columns: %s column \"%s\" is %s; it must be "
                      "%s",
                      item, eq + 1, tn, kcol_types[which]);
    } else {
      for (int i = 0; i < KCOL_N; i++)
        if (c->col[i] == col) {
          rc = inlet_fail(err, INLET_EINVAL,
                          "--kafka-columns: column \"%s\" is named for both "
                          "%s and %s",
                          eq + 1, kcol_names[i], item);
        }
      c->col[which] = col;
      schema->fields[col].nullable = true;
      c->any = true;
    }
  }
  inlet_free(copy);
  return rc;
}

/* Header @p i is the last of its name (a map holds each name once). */
static bool last_of_name(rd_kafka_headers_t *h, size_t i, size_t n, const char *name) {
  for (size_t j = i + 1; j < n; j++) {
    const char *n2;
    const void *v2;
    size_t l2;
    if (rd_kafka_header_get_all(h, j, &n2, &v2, &l2) == 0 && strcmp(n2, name) == 0) return false;
  }
  return true;
}

/* Refuses headers a string map cannot hold. */
static int check_headers(const inlet_field *f, const stream_kmeta *m, inlet_error *err) {
  const inlet_field *vf = &f->children[0].children[1];
  rd_kafka_headers_t *h = m->headers;
  size_t n = h ? rd_kafka_header_cnt(h) : 0;
  for (size_t i = 0; i < n; i++) {
    const char *name;
    const void *val;
    size_t len;
    if (rd_kafka_header_get_all(h, i, &name, &val, &len)) break;
    if (!inlet_utf8_valid((const uint8_t *)name, strlen(name)))
      return inlet_fail(err, INLET_EINVAL, "a header name is not UTF-8");
    if (val && vf->type.id == INLET_TYPE_STRING && !inlet_utf8_valid(val, len))
      return inlet_fail(err, INLET_EINVAL,
                        "header \"%s\" is not UTF-8 (a map<string,binary> "
                        "headers column takes any bytes)",
                        name);
  }
  return 0;
}

static int fill_headers(inlet_array *a, const inlet_field *f, const stream_kmeta *m,
                        inlet_error *err) {
  inlet_array *entries = &a->children[0];
  const inlet_field *ef = &f->children[0];
  const inlet_field *kf = &ef->children[0], *vf = &ef->children[1];
  rd_kafka_headers_t *h = m->headers;
  size_t n = h ? rd_kafka_header_cnt(h) : 0;
  for (size_t i = 0; i < n; i++) {
    const char *name;
    const void *val;
    size_t len;
    if (rd_kafka_header_get_all(h, i, &name, &val, &len)) break;
    if (!last_of_name(h, i, n, name)) continue;
    TRY(inlet_array_append_bytes(&entries->children[0], kf, name, strlen(name), err));
    if (val)
      TRY(inlet_array_append_bytes(&entries->children[1], vf, val, len, err));
    else
      TRY(inlet_array_append_null(&entries->children[1], vf, err));
    TRY(inlet_array_append_struct_entry(entries, err));
  }
  return inlet_array_append_list_entry(a, err);
}

int stream_kcols_fill(const stream_kcols *c, inlet_batch *b, int64_t row, const stream_kmeta *m,
                      inlet_error *err) {
  if (!c->any) return 0;
  /* Refusals first, before any column changes. */
  int32_t kc = c->col[KCOL_KEY];
  if (kc >= 0 && m->key && b->schema.fields[kc].type.id == INLET_TYPE_STRING &&
      !inlet_utf8_valid(m->key, m->key_len))
    return inlet_fail(err, INLET_EINVAL,
                      "message key is not UTF-8 (a binary key column takes "
                      "any bytes)");
  if (c->col[KCOL_HEADERS] >= 0)
    TRY(check_headers(&b->schema.fields[c->col[KCOL_HEADERS]], m, err));
  for (int i = 0; i < KCOL_N; i++) {
    int32_t col = c->col[i];
    if (col < 0) continue;
    inlet_array *a = &b->columns[col];
    const inlet_field *f = &b->schema.fields[col];
    text_array_truncate(a, f, row);
    switch (i) {
    case KCOL_TOPIC: TRY(inlet_array_append_bytes(a, f, m->topic, strlen(m->topic), err)); break;
    case KCOL_PARTITION: TRY(inlet_array_append_int(a, f, m->partition, err)); break;
    case KCOL_OFFSET: TRY(inlet_array_append_int(a, f, m->offset, err)); break;
    case KCOL_TIMESTAMP: {
      if (m->timestamp_ms < 0) {
        TRY(inlet_array_append_null(a, f, err));
        break;
      }
      int64_t v = m->timestamp_ms;
      if (f->type.id == INLET_TYPE_TIMESTAMP) {
        if (f->type.unit == INLET_UNIT_SECOND)
          v /= 1000;
        else if (f->type.unit == INLET_UNIT_MICRO)
          v *= 1000;
        else if (f->type.unit == INLET_UNIT_NANO)
          v *= 1000000;
      }
      TRY(inlet_array_append_int(a, f, v, err));
      break;
    }
    case KCOL_KEY:
      if (m->key)
        TRY(inlet_array_append_bytes(a, f, m->key, m->key_len, err));
      else
        TRY(inlet_array_append_null(a, f, err));
      break;
    case KCOL_HEADERS: TRY(fill_headers(a, f, m, err)); break;
    }
  }
  return 0;
}
