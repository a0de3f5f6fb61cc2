/*
 * The spec's protocol/metadata consistency rules, written from PROTOCOL.md
 * independently of inlet's code (tests only): pr_check_table() replays the
 * JSON commits of a table and checks every version against
 *  - "Table Features": reader version 3 needs writer version 7 and a
 *    readerFeatures list, writer version 7 a writerFeatures list; every
 *    reader feature is also a writer feature;
 *  - "Writer Version Requirements" and each feature's enablement rules: a
 *    feature the metadata turns on is supported (listed on writer 7, implied
 *    by the legacy versions 2..6 otherwise);
 *  - "In-Commit Timestamps": while enabled, commitInfo is the first action
 *    and carries an inCommitTimestamp greater than the previous commit's;
 *  - protocol requests (delta.minReaderVersion, delta.minWriterVersion,
 *    delta.feature.*) are not stored in metaData.configuration.
 * On failure it returns a malloc'd message naming the version and rule.
 */
#ifndef INLET_TEST_PROTOCOL_RULES_H
#define INLET_TEST_PROTOCOL_RULES_H

#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "testutil.h"

typedef struct pr_state {
  json_t *protocol; /* owned */
  json_t *metadata; /* owned */
  bool have_ict;
  long long last_ict;
} pr_state;

static inline bool pr_listed(json_t *arr, const char *name) {
  size_t i;
  json_t *v;
  json_array_foreach(arr, i, v) {
    if (json_is_string(v) && strcmp(json_string_value(v), name) == 0) return true;
  }
  return false;
}

/* Legacy writer (and reader) versions implying a feature: "Writer Version
 * Requirements" table and the "Reader Version Requirements" for column
 * mapping. */
static inline bool pr_supported(json_t *proto, const char *name) {
  int r = (int)json_integer_value(json_object_get(proto, "minReaderVersion"));
  int w = (int)json_integer_value(json_object_get(proto, "minWriterVersion"));
  if (w >= 7) return pr_listed(json_object_get(proto, "writerFeatures"), name);
  static const struct {
    const char *name;
    int r, w;
  } legacy[] = {{"appendOnly", 1, 2},     {"invariants", 1, 2},       {"checkConstraints", 1, 3},
                {"changeDataFeed", 1, 4}, {"generatedColumns", 1, 4}, {"columnMapping", 2, 5},
                {"identityColumns", 1, 6}};
  for (size_t i = 0; i < sizeof legacy / sizeof legacy[0]; i++)
    if (strcmp(legacy[i].name, name) == 0) return w >= legacy[i].w && r >= legacy[i].r;
  return false;
}

static inline bool pr_conf_true(json_t *conf, const char *key) {
  const char *v = json_string_value(json_object_get(conf, key));
  return v && strcasecmp(v, "true") == 0;
}

/* Walks struct nesting for NOT NULL / invariants and every type for
 * timestamp_ntz. */
static inline void pr_walk(json_t *type, bool struct_path, bool top, bool *not_null, bool *inv,
                           bool *ntz, bool *gen, bool *ident) {
  if (json_is_string(type)) {
    if (strcmp(json_string_value(type), "timestamp_ntz") == 0) *ntz = true;
    return;
  }
  const char *kind = json_string_value(json_object_get(type, "type"));
  if (!kind) return;
  if (strcmp(kind, "struct") == 0) {
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(type, "fields"), i, f) {
      json_t *md = json_object_get(f, "metadata");
      if (struct_path && json_is_false(json_object_get(f, "nullable"))) *not_null = true;
      if (struct_path && json_object_get(md, "delta.invariants")) *inv = true;
      if (top && json_object_get(md, "delta.generationExpression")) *gen = true;
      if (top && json_object_get(md, "delta.identity.start")) *ident = true;
      pr_walk(json_object_get(f, "type"), struct_path, false, not_null, inv, ntz, gen, ident);
    }
  } else if (strcmp(kind, "array") == 0) {
    pr_walk(json_object_get(type, "elementType"), false, false, not_null, inv, ntz, gen, ident);
  } else if (strcmp(kind, "map") == 0) {
    pr_walk(json_object_get(type, "keyType"), false, false, not_null, inv, ntz, gen, ident);
    pr_walk(json_object_get(type, "valueType"), false, false, not_null, inv, ntz, gen, ident);
  }
}

static inline char *pr_fail(long long v, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline char *pr_fail(long long v, const char *fmt, ...) {
  char *m = malloc(1024);
  int n = snprintf(m, 1024, "version %lld: ", v);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(m + n, 1024 - (size_t)n, fmt, ap);
  va_end(ap);
  return m;
}

static inline char *pr_check_version(pr_state *s, long long v) {
  json_t *p = s->protocol, *m = s->metadata;
  if (!p || !m) return pr_fail(v, "%s", "no protocol or metaData yet");
  int r = (int)json_integer_value(json_object_get(p, "minReaderVersion"));
  int w = (int)json_integer_value(json_object_get(p, "minWriterVersion"));
  json_t *rf = json_object_get(p, "readerFeatures"), *wf = json_object_get(p, "writerFeatures");
  if (r == 3 && w != 7) return pr_fail(v, "%s", "reader version 3 without writer version 7");
  if (r == 3 && !json_is_array(rf))
    return pr_fail(v, "%s", "reader version 3 without readerFeatures");
  if (w == 7 && !json_is_array(wf))
    return pr_fail(v, "%s", "writer version 7 without writerFeatures");
  if (r < 3 && rf) return pr_fail(v, "%s", "readerFeatures below reader version 3");
  if (w < 7 && wf) return pr_fail(v, "%s", "writerFeatures below writer version 7");
  size_t i;
  json_t *x;
  json_array_foreach(rf, i, x) {
    if (!pr_listed(wf, json_string_value(x)))
      return pr_fail(v, "reader feature \"%s\" is not also a writer feature", json_string_value(x));
  }
  json_t *conf = json_object_get(m, "configuration");
  const char *k;
  json_object_foreach(conf, k, x) {
    if (strcasecmp(k, "delta.minReaderVersion") == 0 ||
        strcasecmp(k, "delta.minWriterVersion") == 0 || strncasecmp(k, "delta.feature.", 14) == 0)
      return pr_fail(v, "protocol request %s stored in metaData.configuration", k);
  }
  bool not_null = false, inv = false, ntz = false, gen = false, ident = false;
  json_t *schema = json_loads(json_string_value(json_object_get(m, "schemaString")), 0, NULL);
  pr_walk(schema, true, true, &not_null, &inv, &ntz, &gen, &ident);
  json_decref(schema);
  struct {
    bool on;
    const char *feature;
  } needs[] = {
      {not_null || inv, "invariants"},
      {pr_conf_true(conf, "delta.appendOnly"), "appendOnly"},
      {pr_conf_true(conf, "delta.enableChangeDataFeed"), "changeDataFeed"},
      {gen, "generatedColumns"},
      {ident, "identityColumns"},
      {ntz, "timestampNtz"},
      {pr_conf_true(conf, "delta.enableDeletionVectors"), "deletionVectors"},
      {pr_conf_true(conf, "delta.enableInCommitTimestamps"), "inCommitTimestamp"},
      {pr_conf_true(conf, "delta.enableRowTracking"), "rowTracking"},
      {json_object_get(conf, "delta.columnMapping.mode") &&
           strcmp(json_string_value(json_object_get(conf, "delta.columnMapping.mode")), "none"),
       "columnMapping"},
  };
  json_object_foreach(conf, k, x) {
    if (strncmp(k, "delta.constraints.", 18) == 0 && !pr_supported(p, "checkConstraints"))
      return pr_fail(v, "CHECK constraint %s without feature checkConstraints", k);
  }
  for (size_t n = 0; n < sizeof needs / sizeof needs[0]; n++)
    if (needs[n].on && !pr_supported(p, needs[n].feature))
      return pr_fail(v, "metadata needs feature \"%s\", which the protocol does not support",
                     needs[n].feature);
  /* Reader-writer features on reader version 3 are listed for readers too. */
  static const char *const rw[] = {"timestampNtz", "deletionVectors",     "columnMapping",
                                   "v2Checkpoint", "vacuumProtocolCheck", "typeWidening"};
  for (size_t n = 0; r == 3 && n < sizeof rw / sizeof rw[0]; n++)
    if (pr_listed(wf, rw[n]) && !pr_listed(rf, rw[n]))
      return pr_fail(v, "reader-writer feature \"%s\" missing from readerFeatures", rw[n]);
  return NULL;
}

/* Checks every version of the table at @p table; NULL when all rules hold. */
static inline char *pr_check_table(const char *table) {
  tu_result r;
  tu_sh(&r, "ls '%s/_delta_log' | grep -E '^[0-9]{20}\\.json$' | sort", table);
  char *list = r.out;
  r.out = NULL;
  tu_result_free(&r);
  pr_state s = {NULL, NULL, false, 0};
  char *msg = NULL;
  char *sv1 = NULL;
  for (char *line = strtok_r(list, "\n", &sv1); line && !msg; line = strtok_r(NULL, "\n", &sv1)) {
    long long v = atoll(line);
    char path[4300];
    if (snprintf(path, sizeof path, "%s/_delta_log/%s", table, line) >= (int)sizeof path)
      fail_msg("path too long: %s/_delta_log/%s", table, line);
    size_t len = 0;
    char *text = tu_read_file(path, &len);
    if (!text) {
      msg = pr_fail(v, "%s", "unreadable commit");
      break;
    }
    bool ict_enabled_before =
        s.metadata && pr_conf_true(json_object_get(s.metadata, "configuration"),
                                   "delta.enableInCommitTimestamps");
    long long ict = -1;
    bool first = true, ci_first = false;
    char *sv2 = NULL;
    for (char *l = strtok_r(text, "\n", &sv2); l; l = strtok_r(NULL, "\n", &sv2)) {
      json_t *a = json_loads(l, 0, NULL);
      if (!a) continue;
      json_t *ci = json_object_get(a, "commitInfo");
      if (ci && first) {
        ci_first = true;
        json_t *t = json_object_get(ci, "inCommitTimestamp");
        if (json_is_integer(t)) ict = (long long)json_integer_value(t);
      }
      json_t *pp = json_object_get(a, "protocol"), *mm = json_object_get(a, "metaData");
      if (pp) {
        json_decref(s.protocol);
        s.protocol = json_incref(pp);
      }
      if (mm) {
        json_decref(s.metadata);
        s.metadata = json_incref(mm);
      }
      json_decref(a);
      first = false;
    }
    free(text);
    msg = pr_check_version(&s, v);
    bool ict_enabled = pr_conf_true(json_object_get(s.metadata, "configuration"),
                                    "delta.enableInCommitTimestamps");
    if (!msg && ict_enabled) {
      if (!ci_first || ict < 0)
        msg = pr_fail(v, "%s",
                      "in-commit timestamps enabled but commitInfo is not first or "
                      "lacks inCommitTimestamp");
      else if (s.have_ict && ict_enabled_before && ict <= s.last_ict)
        msg = pr_fail(v, "%s", "inCommitTimestamp does not increase");
      s.have_ict = true;
      s.last_ict = ict;
    }
  }
  free(list);
  json_decref(s.protocol);
  json_decref(s.metadata);
  return msg;
}

#endif /* INLET_TEST_PROTOCOL_RULES_H */
