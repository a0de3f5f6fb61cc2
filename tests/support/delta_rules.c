/*
 * The Delta protocol's rules, checked on a table's files (see delta_rules.h
 * for the list). Written from PROTOCOL.md (delta-io/delta), "Table
 * Features", each feature's "To support this feature" section, "Writer
 * Version Requirements" and "Additional Requirements for Writers"; it uses
 * nothing of src/delta. The feature names a metadata requires follow
 * delta-spark's TableFeature.scala where the spec is silent (NOT NULL
 * columns outside arrays and maps need `invariants`, as
 * Invariants.getFromSchema finds them).
 */
#include "delta_rules.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inlet/batch.h"
#include "inlet/parquet.h"
#include "inlet/text.h"

/* Rules reported but not failing yet, each with the fix it waits for. */
const char *const tu_rules_pending[] = {
    /* NOT NULL columns on writer 7 without `invariants` (issue 11 section 1):
     * the protocol derivation is being fixed on branch wt-proto; turn this
     * into a failing rule once that lands on main. */
    "feature-required:invariants",
    NULL,
};

/* ---- report --------------------------------------------------------------- */

typedef struct checker {
  const char *root;
  tu_rules_report *rep;
  int found;    /* failing findings for this table */
  int shown;    /* lines written for this table */
  json_t *seen; /* owned: findings already reported (a violation that
                   persists across versions is reported at the first) */
} checker;

static bool rule_pending(const char *rule, const char *sub) {
  for (size_t i = 0; tu_rules_pending[i]; i++) {
    const char *p = tu_rules_pending[i];
    size_t n = strlen(rule);
    if (strcmp(p, rule) == 0) return true;
    if (sub && strncmp(p, rule, n) == 0 && p[n] == ':' && strcmp(p + n + 1, sub) == 0) return true;
  }
  return false;
}

static void rep_append(tu_rules_report *rep, const char *s) {
  size_t n = strlen(s);
  if (rep->len + n + 1 > rep->cap) {
    size_t nc = rep->cap ? rep->cap * 2 : 4096;
    while (nc < rep->len + n + 1)
      nc *= 2;
    char *t = realloc(rep->text, nc);
    if (!t) return;
    rep->text = t;
    rep->cap = nc;
  }
  memcpy(rep->text + rep->len, s, n + 1);
  rep->len += n;
}

/* One finding: rule @p rule (with @p sub, the feature it concerns, or NULL)
 * at version @p version (-1: the table as a whole). */
static void finding(checker *c, const char *rule, const char *sub, int64_t version, const char *fmt,
                    ...) __attribute__((format(printf, 5, 6)));
static void finding(checker *c, const char *rule, const char *sub, int64_t version, const char *fmt,
                    ...) {
  char msg[2048], line[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  char key[2300];
  snprintf(key, sizeof key, "%s:%s|%s", rule, sub ? sub : "", msg);
  if (c->seen) {
    if (json_object_get(c->seen, key)) return;
    json_object_set_new(c->seen, key, json_true());
  }
  bool pending = rule_pending(rule, sub);
  if (pending)
    c->rep->pending++;
  else {
    c->rep->violations++;
    c->found++;
  }
  if (c->shown++ >= 40) {
    if (c->shown == 41) rep_append(c->rep, "  ... (more findings in this table not shown)\n");
    return;
  }
  char where[64] = "";
  if (version >= 0) snprintf(where, sizeof where, " v%" PRId64, version);
  snprintf(line, sizeof line, "%s[%s%s%s] %s%s: %s\n", pending ? "PENDING " : "", rule,
           sub ? ":" : "", sub ? sub : "", c->root, where, msg);
  rep_append(c->rep, line);
}

void tu_rules_report_free(tu_rules_report *rep) {
  free(rep->text);
  memset(rep, 0, sizeof *rep);
}

/* ---- exemptions ----------------------------------------------------------- */

/* One marker file per exempted path in test-scratch/.rules-exempt/, named
 * by a hash of the path and holding the path and the reason: test processes
 * running side by side never write the same file, and a marker goes with its
 * tree (tu_rmtree). */
static void marker_path(char *out, size_t cap, const char *path) {
  uint64_t h = 1469598103934665603ull;
  for (const char *p = path; *p; p++)
    h = (h ^ (unsigned char)*p) * 1099511628211ull;
  snprintf(out, cap, "%s/test-scratch/.rules-exempt/%016" PRIx64, INLET_BUILD_DIR, h);
}

static const char *real_or(const char *path, char *buf) {
  return realpath(path, buf) ? buf : path;
}

/* The path a marker file names (first line), in @p out. */
static bool marker_target(const char *marker, char *out, size_t cap) {
  FILE *fp = fopen(marker, "r");
  if (!fp) return false;
  bool ok = fgets(out, (int)cap, fp) != NULL;
  fclose(fp);
  if (ok) out[strcspn(out, "\n")] = '\0';
  return ok;
}

void tu_rules_exempt(const char *path, const char *why) {
  char dir[4096], m[4096], real[PATH_MAX];
  snprintf(dir, sizeof dir, "%s/test-scratch", INLET_BUILD_DIR);
  mkdir(dir, 0755);
  snprintf(dir, sizeof dir, "%s/test-scratch/.rules-exempt", INLET_BUILD_DIR);
  mkdir(dir, 0755);
  const char *p = real_or(path, real);
  marker_path(m, sizeof m, p);
  FILE *fp = fopen(m, "w");
  if (!fp) return;
  fprintf(fp, "%s\n%s\n", p, why ? why : "");
  fclose(fp);
}

bool tu_rules_is_exempt(const char *path) {
  char real[PATH_MAX], p[PATH_MAX], m[4096], t[PATH_MAX];
  snprintf(p, sizeof p, "%s", real_or(path, real));
  /* The path itself, then each ancestor. */
  for (;;) {
    marker_path(m, sizeof m, p);
    if (marker_target(m, t, sizeof t) && strcmp(t, p) == 0) return true;
    char *slash = strrchr(p, '/');
    if (!slash || slash == p) return false;
    *slash = '\0';
  }
}

void tu_rules_forget(const char *path) {
  char real[PATH_MAX], dir[4096], f[8192], t[PATH_MAX];
  const char *p = real_or(path, real);
  size_t n = strlen(p);
  snprintf(dir, sizeof dir, "%s/test-scratch/.rules-exempt", INLET_BUILD_DIR);
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    snprintf(f, sizeof f, "%s/%s", dir, e->d_name);
    if (marker_target(f, t, sizeof t) && strncmp(t, p, n) == 0 && (t[n] == '\0' || t[n] == '/'))
      unlink(f);
  }
  closedir(d);
}

/* ---- small helpers -------------------------------------------------------- */

static bool is_digits(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!isdigit((unsigned char)s[i])) return false;
  return true;
}

static bool json_is_int(const json_t *v) {
  return v && json_is_integer(v);
}

static bool conf_true(const json_t *conf, const char *key) {
  const char *v = json_string_value(json_object_get(conf, key));
  return v && strcasecmp(v, "true") == 0;
}

static bool str_in_array(const json_t *arr, const char *s) {
  size_t i;
  json_t *v;
  json_array_foreach(arr, i, v) {
    const char *t = json_string_value(v);
    if (t && strcmp(t, s) == 0) return true;
  }
  return false;
}

/* Percent-decodes @p s (RFC 2396) into a malloc'd string; NULL when an
 * escape is malformed. */
static char *uri_decode(const char *s) {
  size_t n = strlen(s);
  char *out = malloc(n + 1);
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '%') {
      if (i + 2 >= n) {
        free(out);
        return NULL;
      }
      if (!isxdigit((unsigned char)s[i + 1]) || !isxdigit((unsigned char)s[i + 2])) {
        free(out);
        return NULL;
      }
      char hex[3] = {s[i + 1], s[i + 2], 0};
      out[k++] = (char)strtol(hex, NULL, 16);
      i += 2;
    } else {
      out[k++] = s[i];
    }
  }
  out[k] = '\0';
  return out;
}

/* ---- features ------------------------------------------------------------- */

typedef enum { F_WRITER, F_READER_WRITER } feature_kind;

typedef struct feature {
  const char *name;
  feature_kind kind;
  int legacy_writer; /* minWriterVersion that implies it on writer 2..6, 0 = none */
  int legacy_reader; /* minReaderVersion that implies it on reader 1..2, 0 = none */
} feature;

/* The features of PROTOCOL.md's appendix, delta-spark's TableFeature.scala
 * and delta-kernel-rs's TableFeature (their preview and test-free names). */
static const feature FEATURES[] = {
    {"appendOnly", F_WRITER, 2, 0},
    {"invariants", F_WRITER, 2, 0},
    {"checkConstraints", F_WRITER, 3, 0},
    {"changeDataFeed", F_WRITER, 4, 0},
    {"generatedColumns", F_WRITER, 4, 0},
    {"columnMapping", F_READER_WRITER, 5, 2},
    {"identityColumns", F_WRITER, 6, 0},
    {"allowColumnDefaults", F_WRITER, 0, 0},
    {"deletionVectors", F_READER_WRITER, 0, 0},
    {"rowTracking", F_WRITER, 0, 0},
    {"timestampNtz", F_READER_WRITER, 0, 0},
    {"domainMetadata", F_WRITER, 0, 0},
    {"v2Checkpoint", F_READER_WRITER, 0, 0},
    {"catalogManaged", F_READER_WRITER, 0, 0},
    {"catalogOwned-preview", F_READER_WRITER, 0, 0},
    {"coordinatedCommits-preview", F_WRITER, 0, 0},
    {"icebergCompatV1", F_WRITER, 0, 0},
    {"icebergCompatV2", F_WRITER, 0, 0},
    {"icebergCompatV3", F_WRITER, 0, 0},
    {"clustering", F_WRITER, 0, 0},
    {"materializePartitionColumns", F_WRITER, 0, 0},
    {"vacuumProtocolCheck", F_READER_WRITER, 0, 0},
    {"inCommitTimestamp", F_WRITER, 0, 0},
    {"checkpointProtection", F_WRITER, 0, 0},
    {"typeWidening", F_READER_WRITER, 0, 0},
    {"typeWidening-preview", F_READER_WRITER, 0, 0},
    {"variantType", F_READER_WRITER, 0, 0},
    {"variantType-preview", F_READER_WRITER, 0, 0},
    {"variantShredding", F_READER_WRITER, 0, 0},
    {"variantShredding-preview", F_READER_WRITER, 0, 0},
    {"redirectReaderWriter-preview", F_READER_WRITER, 0, 0},
    {"redirectWriterOnly-preview", F_WRITER, 0, 0},
    {"geospatial", F_READER_WRITER, 0, 0},
    {"adaptiveMetadata-preview", F_READER_WRITER, 0, 0},
};

static const feature *feature_find(const char *name) {
  for (size_t i = 0; i < sizeof FEATURES / sizeof FEATURES[0]; i++)
    if (strcmp(FEATURES[i].name, name) == 0) return &FEATURES[i];
  return NULL;
}

typedef struct proto {
  int reader, writer;
  const json_t *rf, *wf; /* arrays or NULL */
} proto;

static proto proto_of(const json_t *p) {
  proto r = {0, 0, NULL, NULL};
  r.reader = (int)json_integer_value(json_object_get(p, "minReaderVersion"));
  r.writer = (int)json_integer_value(json_object_get(p, "minWriterVersion"));
  const json_t *rf = json_object_get(p, "readerFeatures");
  const json_t *wf = json_object_get(p, "writerFeatures");
  r.rf = json_is_array(rf) ? rf : NULL;
  r.wf = json_is_array(wf) ? wf : NULL;
  return r;
}

/* Does @p p let writers (and, for reader-writer features, readers) use
 * feature @p name? */
static bool supports(const proto *p, const char *name) {
  const feature *f = feature_find(name);
  bool w, r = true;
  if (p->writer >= 7)
    w = p->wf && str_in_array(p->wf, name);
  else
    w = f && f->legacy_writer && p->writer >= f->legacy_writer;
  if (f && f->kind == F_READER_WRITER) {
    if (p->reader >= 3)
      r = p->rf && str_in_array(p->rf, name);
    else
      r = f->legacy_reader && p->reader >= f->legacy_reader;
  }
  return w && r;
}

static bool supports_any(const proto *p, const char *a, const char *b) {
  return supports(p, a) || (b && supports(p, b));
}

static void describe_proto(const proto *p, char *out, size_t cap) {
  size_t k = (size_t)snprintf(out, cap, "(%d,%d", p->reader, p->writer);
  const json_t *lists[2] = {p->rf, p->wf};
  for (int l = 0; l < 2 && k < cap; l++) {
    if (!lists[l]) continue;
    k += (size_t)snprintf(out + k, cap - k, " %s[", l ? "writer" : "reader");
    size_t i;
    json_t *v;
    json_array_foreach(lists[l], i, v) {
      if (k >= cap) break;
      k += (size_t)snprintf(out + k, cap - k, "%s%s", i ? "," : "",
                            json_string_value(v) ? json_string_value(v) : "?");
    }
    if (k < cap) k += (size_t)snprintf(out + k, cap - k, "]");
  }
  if (k < cap) snprintf(out + k, cap - k, ")");
}

static void check_protocol_action(checker *c, int64_t v, const json_t *p) {
  const json_t *r = json_object_get(p, "minReaderVersion");
  const json_t *w = json_object_get(p, "minWriterVersion");
  if (!json_is_int(r) || !json_is_int(w)) {
    finding(c, "action-fields", NULL, v,
            "protocol lacks integer minReaderVersion/minWriterVersion");
    return;
  }
  proto pr = proto_of(p);
  if (pr.reader < 1 || pr.reader > 3 || pr.writer < 1 || pr.writer > 7)
    finding(c, "protocol-versions", NULL, v, "protocol (%d,%d) is outside reader 1-3 / writer 1-7",
            pr.reader, pr.writer);
  if (pr.reader == 3 && pr.writer != 7)
    finding(c, "protocol-versions", NULL, v, "reader version 3 needs writer version 7, not %d",
            pr.writer);
  const json_t *rf = json_object_get(p, "readerFeatures");
  const json_t *wf = json_object_get(p, "writerFeatures");
  bool has_rf = rf && !json_is_null(rf), has_wf = wf && !json_is_null(wf);
  if ((has_rf && !json_is_array(rf)) || (has_wf && !json_is_array(wf)))
    finding(c, "action-fields", NULL, v, "readerFeatures/writerFeatures must be arrays");
  if (has_rf != (pr.reader == 3))
    finding(c, "protocol-lists", NULL, v,
            "readerFeatures must exist exactly when minReaderVersion is 3 (reader %d, %s)",
            pr.reader, has_rf ? "present" : "absent");
  if (has_wf != (pr.writer == 7))
    finding(c, "protocol-lists", NULL, v,
            "writerFeatures must exist exactly when minWriterVersion is 7 (writer %d, %s)",
            pr.writer, has_wf ? "present" : "absent");
  size_t i;
  json_t *e;
  if (json_is_array(rf)) json_array_foreach(rf, i, e) {
      const char *n = json_string_value(e);
      if (!n) {
        finding(c, "action-fields", NULL, v, "readerFeatures holds a non-string");
        continue;
      }
      const feature *f = feature_find(n);
      if (!f)
        finding(c, "feature-known", n, v, "unknown reader feature \"%s\"", n);
      else if (f->kind == F_WRITER)
        finding(c, "feature-kind", n, v, "\"%s\" is a writer-only feature listed in readerFeatures",
                n);
      if (!json_is_array(wf) || !str_in_array(wf, n))
        finding(c, "feature-kind", n, v, "reader feature \"%s\" is not also in writerFeatures", n);
    }
  if (json_is_array(wf)) json_array_foreach(wf, i, e) {
      const char *n = json_string_value(e);
      if (!n) {
        finding(c, "action-fields", NULL, v, "writerFeatures holds a non-string");
        continue;
      }
      const feature *f = feature_find(n);
      if (!f) {
        finding(c, "feature-known", n, v, "unknown writer feature \"%s\"", n);
        continue;
      }
      if (f->kind != F_READER_WRITER) continue;
      if (pr.reader == 3 && !(json_is_array(rf) && str_in_array(rf, n)))
        finding(c, "feature-kind", n, v,
                "reader-writer feature \"%s\" is in writerFeatures but not readerFeatures", n);
      if (pr.reader < 3 && !(f->legacy_reader && pr.reader >= f->legacy_reader))
        finding(c, "feature-kind", n, v,
                "reader-writer feature \"%s\" needs reader version 3 (or a legacy reader version "
                "that implies it), not %d",
                n, pr.reader);
    }
}

/* ---- schema walking ------------------------------------------------------- */

typedef struct schema_use {
  bool not_null;     /* a non-nullable field outside arrays and maps */
  bool invariants;   /* delta.invariants */
  bool generated;    /* delta.generationExpression */
  bool identity;     /* delta.identity.* */
  bool defaults;     /* CURRENT_DEFAULT */
  bool type_changes; /* delta.typeChanges */
  bool ntz;          /* timestamp_ntz anywhere */
  bool variant;      /* variant anywhere */
  char not_null_name[256];
  bool bad; /* malformed */
  char bad_why[256];
} schema_use;

static void walk_type(const json_t *t, bool in_complex, schema_use *u);

static void walk_fields(const json_t *st, bool in_complex, schema_use *u) {
  const json_t *fields = json_object_get(st, "fields");
  if (!json_is_array(fields)) {
    u->bad = true;
    snprintf(u->bad_why, sizeof u->bad_why, "struct without a fields array");
    return;
  }
  size_t i;
  json_t *f;
  json_array_foreach(fields, i, f) {
    const char *name = json_string_value(json_object_get(f, "name"));
    const json_t *nullable = json_object_get(f, "nullable");
    const json_t *type = json_object_get(f, "type");
    if (!name || !json_is_boolean(nullable) || !type) {
      u->bad = true;
      snprintf(u->bad_why, sizeof u->bad_why, "field %s lacks name, type or boolean nullable",
               name ? name : "?");
      continue;
    }
    if (!in_complex && json_is_false(nullable) && !u->not_null) {
      u->not_null = true;
      snprintf(u->not_null_name, sizeof u->not_null_name, "%s", name);
    }
    const json_t *md = json_object_get(f, "metadata");
    if (json_is_object(md)) {
      const char *k;
      json_t *val;
      json_object_foreach((json_t *)md, k, val) {
        if (strcmp(k, "delta.invariants") == 0) u->invariants = true;
        if (strcmp(k, "delta.generationExpression") == 0) u->generated = true;
        if (strncmp(k, "delta.identity.", 15) == 0) u->identity = true;
        if (strcmp(k, "CURRENT_DEFAULT") == 0) u->defaults = true;
        if (strcmp(k, "delta.typeChanges") == 0) u->type_changes = true;
      }
    }
    walk_type(type, in_complex, u);
  }
}

static void walk_type(const json_t *t, bool in_complex, schema_use *u) {
  if (json_is_string(t)) {
    const char *s = json_string_value(t);
    if (strcmp(s, "timestamp_ntz") == 0) u->ntz = true;
    if (strcmp(s, "variant") == 0) u->variant = true;
    return;
  }
  const char *kind = json_string_value(json_object_get(t, "type"));
  if (!kind) {
    u->bad = true;
    snprintf(u->bad_why, sizeof u->bad_why, "a type that is neither a name nor an object");
    return;
  }
  if (strcmp(kind, "struct") == 0)
    walk_fields(t, in_complex, u);
  else if (strcmp(kind, "array") == 0)
    walk_type(json_object_get(t, "elementType"), true, u);
  else if (strcmp(kind, "map") == 0) {
    walk_type(json_object_get(t, "keyType"), true, u);
    walk_type(json_object_get(t, "valueType"), true, u);
  } else {
    u->bad = true;
    snprintf(u->bad_why, sizeof u->bad_why, "unknown complex type \"%s\"", kind);
  }
}

/* ---- table state ---------------------------------------------------------- */

typedef struct state {
  json_t *protocol; /* owned: the protocol action's value */
  json_t *metadata; /* owned: the metaData action's value */
  json_t *schema;   /* owned: metadata.schemaString parsed */
  json_t *files;    /* owned: object path -> add value (live files) */
  json_t *txns;     /* owned: appId -> version */
  json_t *domains;  /* owned: domain -> domainMetadata value (not removed) */
  bool known;       /* state is complete (replayed from 0 or a checkpoint) */
  bool has_domain_actions;
  bool v2_checkpoint_seen;
  int64_t last_ict;
  bool have_ict;
} state;

static void state_init(state *s) {
  memset(s, 0, sizeof *s);
  s->files = json_object();
  s->txns = json_object();
  s->domains = json_object();
}

static void state_free(state *s) {
  json_decref(s->protocol);
  json_decref(s->metadata);
  json_decref(s->schema);
  json_decref(s->files);
  json_decref(s->txns);
  json_decref(s->domains);
  memset(s, 0, sizeof *s);
}

/* The key of a logical file: path plus the deletion vector's unique id. */
static void file_key(const json_t *a, char *out, size_t cap) {
  const char *path = json_string_value(json_object_get(a, "path"));
  const json_t *dv = json_object_get(a, "deletionVector");
  char dvid[512] = "";
  if (json_is_object(dv)) {
    const char *st = json_string_value(json_object_get(dv, "storageType"));
    const char *pd = json_string_value(json_object_get(dv, "pathOrInlineDv"));
    const json_t *off = json_object_get(dv, "offset");
    snprintf(dvid, sizeof dvid, "%s%s@%" PRId64, st ? st : "", pd ? pd : "",
             json_is_integer(off) ? (int64_t)json_integer_value(off) : (int64_t)-1);
  }
  snprintf(out, cap, "%s\x01%s", path ? path : "", dvid);
}

static void set_metadata(checker *c, state *s, int64_t v, const json_t *m) {
  json_decref(s->metadata);
  s->metadata = json_deep_copy(m);
  json_decref(s->schema);
  s->schema = NULL;
  const char *ss = json_string_value(json_object_get(m, "schemaString"));
  if (ss) {
    json_error_t je;
    s->schema = json_loads(ss, 0, &je);
    if (!s->schema || !json_is_object(s->schema))
      finding(c, "action-fields", NULL, v, "metaData.schemaString is not a JSON struct: %s",
              s->schema ? "not an object" : je.text);
  }
}

/* ---- metadata and feature requirements ------------------------------------ */

static void check_metadata_action(checker *c, int64_t v, const json_t *m) {
  if (!json_is_string(json_object_get(m, "id")))
    finding(c, "action-fields", NULL, v, "metaData.id is missing or not a string");
  const json_t *fmt = json_object_get(m, "format");
  if (!json_is_object(fmt) || !json_is_string(json_object_get(fmt, "provider")))
    finding(c, "action-fields", NULL, v, "metaData.format.provider is missing");
  if (!json_is_string(json_object_get(m, "schemaString")))
    finding(c, "action-fields", NULL, v, "metaData.schemaString is missing");
  const json_t *pc = json_object_get(m, "partitionColumns");
  if (!json_is_array(pc))
    finding(c, "action-fields", NULL, v, "metaData.partitionColumns is missing or not an array");
  const json_t *conf = json_object_get(m, "configuration");
  if (!json_is_object(conf)) {
    finding(c, "action-fields", NULL, v, "metaData.configuration is missing or not an object");
  } else {
    const char *k;
    json_t *val;
    json_object_foreach((json_t *)conf, k, val) {
      if (!json_is_string(val))
        finding(c, "action-fields", NULL, v, "metaData.configuration[%s] is not a string", k);
    }
  }
  const json_t *ct = json_object_get(m, "createdTime");
  if (ct && !json_is_null(ct) && !json_is_integer(ct))
    finding(c, "action-fields", NULL, v, "metaData.createdTime is not a long");
}

/* Partition columns are top-level columns of the schema. */
static void check_partition_columns(checker *c, int64_t v, const state *s) {
  const json_t *pc = json_object_get(s->metadata, "partitionColumns");
  const json_t *fields = json_object_get(s->schema, "fields");
  if (!json_is_array(pc) || !json_is_array(fields)) return;
  size_t i, j;
  json_t *p, *f;
  json_array_foreach(pc, i, p) {
    const char *name = json_string_value(p);
    bool found = false;
    json_array_foreach(fields, j, f) {
      const char *fn = json_string_value(json_object_get(f, "name"));
      if (name && fn && strcmp(name, fn) == 0) found = true;
    }
    if (!found)
      finding(c, "partition-values", NULL, v, "partition column \"%s\" is not a schema column",
              name ? name : "?");
  }
}

static void need(checker *c, int64_t v, const proto *p, const char *feat, const char *alt,
                 const char *why) {
  if (supports_any(p, feat, alt)) return;
  char pd[1024];
  describe_proto(p, pd, sizeof pd);
  finding(c, "feature-required", feat, v, "%s needs feature %s, which protocol %s does not support",
          why, feat, pd);
}

/* What the metadata (and the log) uses must be supported by the protocol. */
static void check_requirements(checker *c, int64_t v, const state *s) {
  if (!s->protocol || !s->metadata) return;
  proto p = proto_of(s->protocol);
  const json_t *conf = json_object_get(s->metadata, "configuration");
  char why[512];

  schema_use u;
  memset(&u, 0, sizeof u);
  if (s->schema) walk_type(s->schema, false, &u);
  if (u.bad) finding(c, "action-fields", NULL, v, "schemaString: %s", u.bad_why);
  if (u.not_null) {
    snprintf(why, sizeof why, "NOT NULL column \"%s\"", u.not_null_name);
    need(c, v, &p, "invariants", NULL, why);
  }
  if (u.invariants) need(c, v, &p, "invariants", NULL, "a delta.invariants column");
  if (u.generated) need(c, v, &p, "generatedColumns", NULL, "a generated column");
  if (u.identity) need(c, v, &p, "identityColumns", NULL, "an identity column");
  if (u.defaults) need(c, v, &p, "allowColumnDefaults", NULL, "a column default");
  if (u.type_changes)
    need(c, v, &p, "typeWidening", "typeWidening-preview", "delta.typeChanges column metadata");
  if (u.ntz) need(c, v, &p, "timestampNtz", NULL, "a timestamp_ntz column");
  if (u.variant) need(c, v, &p, "variantType", "variantType-preview", "a variant column");

  if (conf_true(conf, "delta.appendOnly")) need(c, v, &p, "appendOnly", NULL, "delta.appendOnly");
  if (conf_true(conf, "delta.enableChangeDataFeed"))
    need(c, v, &p, "changeDataFeed", NULL, "delta.enableChangeDataFeed");
  if (conf_true(conf, "delta.enableDeletionVectors"))
    need(c, v, &p, "deletionVectors", NULL, "delta.enableDeletionVectors");
  if (conf_true(conf, "delta.enableInCommitTimestamps"))
    need(c, v, &p, "inCommitTimestamp", NULL, "delta.enableInCommitTimestamps");
  if (conf_true(conf, "delta.enableRowTracking"))
    need(c, v, &p, "rowTracking", NULL, "delta.enableRowTracking");
  if (conf_true(conf, "delta.enableTypeWidening"))
    need(c, v, &p, "typeWidening", "typeWidening-preview", "delta.enableTypeWidening");
  if (conf_true(conf, "delta.enableVariantShredding")) {
    need(c, v, &p, "variantShredding", "variantShredding-preview", "delta.enableVariantShredding");
    need(c, v, &p, "variantType", "variantType-preview", "delta.enableVariantShredding");
  }
  for (int n = 1; n <= 3; n++) {
    char key[64], feat[32];
    snprintf(key, sizeof key, "delta.enableIcebergCompatV%d", n);
    snprintf(feat, sizeof feat, "icebergCompatV%d", n);
    if (conf_true(conf, key)) {
      need(c, v, &p, feat, NULL, key);
      need(c, v, &p, "columnMapping", NULL, key);
    }
  }
  const char *cm = json_string_value(json_object_get(conf, "delta.columnMapping.mode"));
  if (cm && strcasecmp(cm, "none") != 0)
    need(c, v, &p, "columnMapping", NULL, "delta.columnMapping.mode");
  const char *cp = json_string_value(json_object_get(conf, "delta.checkpointPolicy"));
  if (cp && strcasecmp(cp, "v2") == 0)
    need(c, v, &p, "v2Checkpoint", NULL, "delta.checkpointPolicy=v2");
  const char *k;
  json_t *val;
  json_object_foreach((json_t *)conf, k, val) {
    if (strncmp(k, "delta.constraints.", 18) == 0) {
      snprintf(why, sizeof why, "CHECK constraint %s", k);
      need(c, v, &p, "checkConstraints", NULL, why);
    }
    if (strncmp(k, "delta.feature.", 14) == 0) {
      const char *x = json_string_value(val);
      if (x && (strcasecmp(x, "supported") == 0 || strcasecmp(x, "enabled") == 0)) {
        snprintf(why, sizeof why, "table property %s=%s", k, x);
        if (!feature_find(k + 14))
          finding(c, "feature-known", k + 14, v, "%s names an unknown feature", why);
        else
          need(c, v, &p, k + 14, NULL, why);
      }
    }
  }
  const char *mr = json_string_value(json_object_get(conf, "delta.minReaderVersion"));
  const char *mw = json_string_value(json_object_get(conf, "delta.minWriterVersion"));
  if (mr && atoi(mr) > p.reader)
    finding(c, "feature-required", "minReaderVersion", v,
            "table property delta.minReaderVersion=%s but the protocol's reader version is %d", mr,
            p.reader);
  if (mw && atoi(mw) > p.writer)
    finding(c, "feature-required", "minWriterVersion", v,
            "table property delta.minWriterVersion=%s but the protocol's writer version is %d", mw,
            p.writer);
  /* Features that depend on others. */
  if (supports(&p, "rowTracking")) need(c, v, &p, "domainMetadata", NULL, "feature rowTracking");
  if (supports(&p, "clustering")) need(c, v, &p, "domainMetadata", NULL, "feature clustering");
  if (s->has_domain_actions) need(c, v, &p, "domainMetadata", NULL, "a domainMetadata action");
  if (s->v2_checkpoint_seen) need(c, v, &p, "v2Checkpoint", NULL, "a v2 checkpoint");
}

/* ---- actions -------------------------------------------------------------- */

static bool is_long(const json_t *o, const char *k) {
  return json_is_integer(json_object_get(o, k));
}

static void check_data_path(checker *c, int64_t v, const char *what, const char *raw) {
  if (strstr(raw, "://") || raw[0] == '/') return; /* absolute: allowed, not ours to resolve */
  char *p = uri_decode(raw);
  if (!p) {
    finding(c, "data-path", NULL, v, "%s path \"%s\" has a malformed %%-escape", what, raw);
    return;
  }
  char *save = NULL, *dup = strdup(p);
  int depth = 0;
  for (char *seg = strtok_r(dup, "/", &save); seg; seg = strtok_r(NULL, "/", &save)) {
    bool last = save == NULL || *save == '\0';
    if (strcmp(seg, "..") == 0)
      depth--;
    else if (strcmp(seg, ".") != 0)
      depth++;
    if (depth < 0) {
      finding(c, "data-path", NULL, v, "%s path \"%s\" leaves the table", what, raw);
      break;
    }
    if (!last && (seg[0] == '_' || seg[0] == '.'))
      finding(c, "data-path", NULL, v, "%s path \"%s\" is in hidden directory \"%s\"", what, raw,
              seg);
  }
  free(dup);
  free(p);
}

/* The key partitionValues use for partition column @p name: its physical
 * name under column mapping (PROTOCOL.md "Column Mapping"), else the name. */
static const char *partition_key(const state *s, const char *name) {
  const json_t *conf = s->metadata ? json_object_get(s->metadata, "configuration") : NULL;
  const char *mode = json_string_value(json_object_get(conf, "delta.columnMapping.mode"));
  if (!mode || strcmp(mode, "none") == 0) return name;
  size_t i;
  json_t *fj;
  json_array_foreach(json_object_get(s->schema, "fields"), i, fj) {
    const char *n = json_string_value(json_object_get(fj, "name"));
    const char *ph = json_string_value(
        json_object_get(json_object_get(fj, "metadata"), "delta.columnMapping.physicalName"));
    if (n && ph && strcasecmp(n, name) == 0) return ph;
  }
  return name;
}

static bool is_partition_key(const state *s, const json_t *pc, const char *k) {
  size_t i;
  json_t *p;
  json_array_foreach(pc, i, p) {
    const char *name = json_string_value(p);
    if (name && strcmp(partition_key(s, name), k) == 0) return true;
  }
  return false;
}

static void check_partition_values(checker *c, int64_t v, const state *s, const char *what,
                                   const json_t *a) {
  const json_t *pv = json_object_get(a, "partitionValues");
  const json_t *pc = s->metadata ? json_object_get(s->metadata, "partitionColumns") : NULL;
  const char *path = json_string_value(json_object_get(a, "path"));
  if (!json_is_object(pv) || !json_is_array(pc)) return;
  const char *k;
  json_t *val;
  json_object_foreach((json_t *)pv, k, val) {
    if (!is_partition_key(s, pc, k))
      finding(c, "partition-values", NULL, v,
              "%s %s: partitionValues key \"%s\" is not a "
              "partition column",
              what, path ? path : "?", k);
    if (!json_is_string(val) && !json_is_null(val))
      finding(c, "partition-values", NULL, v, "%s %s: partitionValues[%s] is not a string or null",
              what, path ? path : "?", k);
  }
  size_t i;
  json_t *p;
  json_array_foreach(pc, i, p) {
    const char *name = json_string_value(p);
    if (name && !json_object_get(pv, partition_key(s, name)))
      finding(c, "partition-values", NULL, v,
              "%s %s: partitionValues lacks partition column "
              "\"%s\"",
              what, path ? path : "?", name);
  }
}

static void check_add(checker *c, int64_t v, const state *s, const json_t *a) {
  const char *path = json_string_value(json_object_get(a, "path"));
  if (!path) {
    finding(c, "action-fields", NULL, v, "add without a string path");
    return;
  }
  if (!json_is_object(json_object_get(a, "partitionValues")))
    finding(c, "action-fields", NULL, v, "add %s: partitionValues missing", path);
  const json_t *size = json_object_get(a, "size");
  if (!json_is_integer(size) || json_integer_value(size) < 0)
    finding(c, "action-fields", NULL, v, "add %s: size missing or negative", path);
  if (!is_long(a, "modificationTime"))
    finding(c, "action-fields", NULL, v, "add %s: modificationTime missing", path);
  if (!json_is_boolean(json_object_get(a, "dataChange")))
    finding(c, "action-fields", NULL, v, "add %s: dataChange missing", path);
  const json_t *stats = json_object_get(a, "stats");
  if (stats && !json_is_null(stats)) {
    if (!json_is_string(stats)) {
      finding(c, "action-fields", NULL, v, "add %s: stats is not a string", path);
    } else {
      json_error_t je;
      json_t *st = json_loads(json_string_value(stats), 0, &je);
      if (!json_is_object(st))
        finding(c, "action-fields", NULL, v, "add %s: stats is not a JSON object", path);
      else {
        const json_t *nr = json_object_get(st, "numRecords");
        if (nr && (!json_is_integer(nr) || json_integer_value(nr) < 0))
          finding(c, "action-fields", NULL, v, "add %s: stats.numRecords is not a count", path);
      }
      json_decref(st);
    }
  }
  for (const char *const *k = (const char *const[]){"baseRowId", "defaultRowCommitVersion", NULL};
       *k; k++) {
    const json_t *x = json_object_get(a, *k);
    if (x && !json_is_null(x) && !json_is_integer(x))
      finding(c, "action-fields", NULL, v, "add %s: %s is not a long", path, *k);
  }
  check_data_path(c, v, "add", path);
  if (s->metadata) check_partition_values(c, v, s, "add", a);
}

static void check_remove(checker *c, int64_t v, const state *s, const json_t *r) {
  const char *path = json_string_value(json_object_get(r, "path"));
  if (!path) {
    finding(c, "action-fields", NULL, v, "remove without a string path");
    return;
  }
  if (!json_is_boolean(json_object_get(r, "dataChange")))
    finding(c, "action-fields", NULL, v, "remove %s: dataChange missing", path);
  const json_t *dt = json_object_get(r, "deletionTimestamp");
  if (dt && !json_is_null(dt) && !json_is_integer(dt))
    finding(c, "action-fields", NULL, v, "remove %s: deletionTimestamp is not a long", path);
  if (json_is_true(json_object_get(r, "extendedFileMetadata"))) {
    if (!json_is_object(json_object_get(r, "partitionValues")) || !is_long(r, "size"))
      finding(c, "action-fields", NULL, v,
              "remove %s: extendedFileMetadata is true without partitionValues and size", path);
    else if (s->metadata)
      check_partition_values(c, v, s, "remove", r);
  }
}

/* Applies and checks one commit's actions (already parsed, one per entry
 * of @p actions). */
static void apply_commit(checker *c, state *s, int64_t v, json_t *actions) {
  int n_proto = 0, n_meta = 0;
  json_t *seen_add = json_object(), *seen_remove = json_object(), *seen_txn = json_object();
  json_t *commit_info = NULL;
  size_t commit_info_at = 0;
  bool has_dv = false;
  size_t i;
  json_t *line;
  /* Protocol and metadata first: the rest is checked against the commit's
   * resulting protocol and metadata. */
  json_array_foreach(actions, i, line) {
    json_t *p = json_object_get(line, "protocol");
    json_t *m = json_object_get(line, "metaData");
    if (p) {
      n_proto++;
      if (!json_is_object(p)) {
        finding(c, "action-fields", NULL, v, "protocol is not an object");
      } else {
        check_protocol_action(c, v, p);
        json_decref(s->protocol);
        s->protocol = json_deep_copy(p);
      }
    }
    if (m) {
      n_meta++;
      if (!json_is_object(m)) {
        finding(c, "action-fields", NULL, v, "metaData is not an object");
      } else {
        check_metadata_action(c, v, m);
        set_metadata(c, s, v, m);
        check_partition_columns(c, v, s);
      }
    }
  }
  if (n_proto > 1) finding(c, "commit-unique", NULL, v, "%d protocol actions", n_proto);
  if (n_meta > 1) finding(c, "commit-unique", NULL, v, "%d metaData actions", n_meta);
  if (v == 0 && (!n_proto || !n_meta))
    finding(c, "commit-first", NULL, v, "version 0 lacks %s", !n_proto ? "protocol" : "metaData");

  json_array_foreach(actions, i, line) {
    json_t *a;
    char key[8192];
    if ((a = json_object_get(line, "add"))) {
      if (!json_is_object(a)) {
        finding(c, "action-fields", NULL, v, "add is not an object");
        continue;
      }
      check_add(c, v, s, a);
      file_key(a, key, sizeof key);
      const char *path = json_string_value(json_object_get(a, "path"));
      if (path && json_object_get(seen_add, path))
        finding(c, "commit-unique", NULL, v, "two add actions for %s", path);
      if (path) json_object_set_new(seen_add, path, json_true());
      if (json_is_object(json_object_get(a, "deletionVector"))) has_dv = true;
      if (path) json_object_set(s->files, key, a);
    } else if ((a = json_object_get(line, "remove"))) {
      if (!json_is_object(a)) {
        finding(c, "action-fields", NULL, v, "remove is not an object");
        continue;
      }
      check_remove(c, v, s, a);
      const char *path = json_string_value(json_object_get(a, "path"));
      if (path && json_object_get(seen_remove, path))
        finding(c, "commit-unique", NULL, v, "two remove actions for %s", path);
      if (path) json_object_set_new(seen_remove, path, json_true());
      if (json_is_object(json_object_get(a, "deletionVector"))) has_dv = true;
      file_key(a, key, sizeof key);
      /* The add of the same logical file in this commit, if any, wins. */
      bool re_added = false;
      size_t j;
      json_t *l2;
      json_array_foreach(actions, j, l2) {
        json_t *a2 = json_object_get(l2, "add");
        char k2[8192];
        if (!json_is_object(a2)) continue;
        file_key(a2, k2, sizeof k2);
        if (strcmp(k2, key) == 0) re_added = true;
      }
      if (!re_added) json_object_del(s->files, key);
    } else if ((a = json_object_get(line, "txn"))) {
      const char *app = json_string_value(json_object_get(a, "appId"));
      if (!app || !is_long(a, "version")) {
        finding(c, "action-fields", NULL, v, "txn without string appId and long version");
        continue;
      }
      if (json_object_get(seen_txn, app))
        finding(c, "commit-unique", NULL, v, "two txn actions for appId %s", app);
      json_object_set_new(seen_txn, app, json_true());
      json_object_set(s->txns, app, json_object_get(a, "version"));
    } else if ((a = json_object_get(line, "domainMetadata"))) {
      const char *d = json_string_value(json_object_get(a, "domain"));
      if (!d || !json_is_string(json_object_get(a, "configuration")) ||
          !json_is_boolean(json_object_get(a, "removed"))) {
        finding(c, "action-fields", NULL, v,
                "domainMetadata without string domain, string configuration, boolean removed");
        continue;
      }
      s->has_domain_actions = true;
      if (json_is_true(json_object_get(a, "removed")))
        json_object_del(s->domains, d);
      else
        json_object_set(s->domains, d, a);
    } else if ((a = json_object_get(line, "cdc"))) {
      const char *path = json_string_value(json_object_get(a, "path"));
      if (!path || !json_is_object(json_object_get(a, "partitionValues")) || !is_long(a, "size"))
        finding(c, "action-fields", NULL, v, "cdc without path, partitionValues and size");
      else
        (void)path; /* change data lives in _change_data/, a hidden directory by design */
    } else if ((a = json_object_get(line, "commitInfo"))) {
      if (!commit_info) {
        commit_info = a;
        commit_info_at = i;
      }
    }
  }
  if (has_dv) {
    proto p = proto_of(s->protocol);
    need(c, v, &p, "deletionVectors", NULL, "a deletion vector on a file action");
  }
  /* In-commit timestamps, enabled by the commit's resulting metadata. */
  if (s->metadata &&
      conf_true(json_object_get(s->metadata, "configuration"), "delta.enableInCommitTimestamps")) {
    const json_t *ict = commit_info ? json_object_get(commit_info, "inCommitTimestamp") : NULL;
    if (!commit_info)
      finding(c, "ict", NULL, v,
              "in-commit timestamps are enabled but the commit has no commitInfo");
    else if (commit_info_at != 0)
      finding(c, "ict", NULL, v, "commitInfo is action %zu, not the first", commit_info_at + 1);
    if (commit_info && !json_is_integer(ict))
      finding(c, "ict", NULL, v, "commitInfo lacks a long inCommitTimestamp");
    if (json_is_integer(ict)) {
      int64_t t = json_integer_value(ict);
      if (s->have_ict && t <= s->last_ict)
        finding(c, "ict", NULL, v,
                "inCommitTimestamp %" PRId64 " is not after the previous %" PRId64, t, s->last_ict);
      s->last_ict = t;
      s->have_ict = true;
    }
  }
  json_decref(seen_add);
  json_decref(seen_remove);
  json_decref(seen_txn);
}

/* Parses commit file @p path into an array of action objects; findings for
 * lines that are not one-action JSON objects. NULL when unreadable. */
static json_t *read_commit(checker *c, int64_t v, const char *path) {
  FILE *fp = fopen(path, "rb");
  if (!fp) {
    finding(c, "commit-json", NULL, v, "cannot open %s: %s", path, strerror(errno));
    return NULL;
  }
  json_t *arr = json_array();
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  int lineno = 0;
  while ((n = getline(&line, &cap, fp)) >= 0) {
    lineno++;
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
      line[--n] = '\0';
    if (n == 0) continue;
    json_error_t je;
    json_t *o = json_loadb(line, (size_t)n, 0, &je);
    if (!o) {
      finding(c, "commit-json", NULL, v, "line %d is not JSON: %s", lineno, je.text);
      continue;
    }
    if (!json_is_object(o) || json_object_size(o) != 1) {
      finding(c, "commit-json", NULL, v, "line %d is not an object holding one action", lineno);
      json_decref(o);
      continue;
    }
    json_array_append_new(arr, o);
  }
  free(line);
  fclose(fp);
  if (json_array_size(arr) == 0) finding(c, "commit-json", NULL, v, "commit holds no action");
  return arr;
}

/* ---- checkpoints ---------------------------------------------------------- */

/* Turns [[k, v], ...] (how a Parquet map prints) into {k: v} at @p key. */
static void pairs_to_object(json_t *parent, const char *key) {
  json_t *a = json_object_get(parent, key);
  if (!json_is_array(a)) return;
  json_t *o = json_object();
  size_t i;
  json_t *kv;
  json_array_foreach(a, i, kv) {
    const char *k = json_string_value(json_array_get(kv, 0));
    if (k) json_object_set(o, k, json_array_get(kv, 1));
  }
  json_object_set_new(parent, key, o);
}

/* The canonical JSON prints longs beyond 2^53 as strings; turns the long
 * fields of a checkpoint action back into integers. */
static void longs_back(json_t *o) {
  static const char *const longs[] = {
      "size",        "modificationTime", "deletionTimestamp", "version",
      "lastUpdated", "createdTime",      "baseRowId",         "defaultRowCommitVersion",
      "offset",      "sizeInBytes",      "cardinality",       "sizeInBytes",
      NULL};
  if (!json_is_object(o)) return;
  for (int i = 0; longs[i]; i++) {
    json_t *v = json_object_get(o, longs[i]);
    const char *t = json_string_value(v);
    if (!t || !*t) continue;
    char *end = NULL;
    errno = 0;
    long long x = strtoll(t, &end, 10);
    if (*end == '\0' && errno == 0) json_object_set_new(o, longs[i], json_integer(x));
  }
  json_t *dv = json_object_get(o, "deletionVector");
  if (json_is_object(dv)) longs_back(dv);
}

static const char *const CP_ACTIONS[] = {
    "protocol",       "metaData",           "add",     "remove", "txn",
    "domainMetadata", "checkpointMetadata", "sidecar", NULL};

/* Appends the actions of Parquet checkpoint (or sidecar) @p path to @p out.
 * Returns 0, or -1 with a finding. */
static int read_parquet_actions(checker *c, int64_t v, const char *path, json_t *out) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_parquet_reader *r = NULL;
  if (inlet_parquet_reader_open(&r, path, NULL, &err) != 0) {
    finding(c, "checkpoint", NULL, v, "cannot read %s: %s", path, inlet_errmsg(&err));
    return -1;
  }
  const inlet_schema *sch = inlet_parquet_reader_schema(r);
  int32_t cols[16], names[16];
  int32_t nc = 0;
  for (int i = 0; CP_ACTIONS[i]; i++) {
    int idx = inlet_schema_find(sch, CP_ACTIONS[i]);
    if (idx >= 0) {
      cols[nc] = idx;
      names[nc++] = i;
    }
  }
  int rc = 0;
  if (nc > 0 && inlet_parquet_reader_project(r, cols, nc, &err) != 0) rc = -1;
  inlet_batch b;
  memset(&b, 0, sizeof b);
  size_t bufcap = 1 << 16;
  char *buf = malloc(bufcap);
  for (int32_t rg = 0; rc == 0 && rg < inlet_parquet_reader_num_row_groups(r); rg++) {
    if (inlet_parquet_reader_read_row_group(r, rg, &b, &err) != 0) {
      rc = -1;
      break;
    }
    for (int64_t row = 0; row < b.num_rows; row++) {
      for (int32_t k = 0; k < nc; k++) {
        const inlet_array *arr = &b.columns[k];
        if (!inlet_array_is_valid(arr, row)) continue;
        int64_t need_len;
        while ((need_len = inlet_text_format_value(buf, bufcap, arr, &b.schema.fields[k], row,
                                                   true)) >= (int64_t)bufcap) {
          bufcap = (size_t)need_len + 1;
          buf = realloc(buf, bufcap);
        }
        if (need_len < 0) {
          rc = -1;
          break;
        }
        json_error_t je;
        json_t *val = json_loads(buf, 0, &je);
        if (!val) {
          finding(c, "checkpoint", NULL, v, "%s: row %" PRId64 " %s does not print as JSON", path,
                  row, CP_ACTIONS[names[k]]);
          continue;
        }
        const char *an = CP_ACTIONS[names[k]];
        if (strcmp(an, "metaData") == 0) {
          pairs_to_object(val, "configuration");
          json_t *fmt = json_object_get(val, "format");
          if (fmt) pairs_to_object(fmt, "options");
        } else if (strcmp(an, "add") == 0 || strcmp(an, "remove") == 0) {
          pairs_to_object(val, "partitionValues");
          pairs_to_object(val, "tags");
        }
        longs_back(val);
        json_t *action = json_object();
        json_object_set_new(action, an, val);
        json_array_append_new(out, action);
      }
    }
  }
  if (rc != 0) finding(c, "checkpoint", NULL, v, "cannot read %s: %s", path, inlet_errmsg(&err));
  free(buf);
  inlet_batch_reset(&b);
  inlet_parquet_reader_free(r);
  return rc;
}

/* Drops the object members that are JSON null (a checkpoint's struct columns
 * print every absent field as null). */
static void drop_nulls(json_t *o) {
  const char *k;
  json_t *val;
  void *tmp;
  json_object_foreach_safe(o, tmp, k, val) {
    if (json_is_null(val)) json_object_del(o, k);
  }
}

/* ---- the log listing ------------------------------------------------------ */

typedef enum { CP_CLASSIC, CP_MULTI, CP_V2_PARQUET, CP_V2_JSON } cp_kind;

typedef struct cp_file {
  int64_t version;
  cp_kind kind;
  int part, parts;
  char name[512];
} cp_file;

typedef struct listing {
  int64_t *commits;
  size_t n_commits, cap_commits;
  cp_file *cps;
  size_t n_cps, cap_cps;
  bool has_last_checkpoint;
} listing;

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

static bool is_uuid(const char *s, size_t n) {
  if (n != 36) return false;
  for (size_t i = 0; i < n; i++) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (s[i] != '-') return false;
    } else if (!isxdigit((unsigned char)s[i])) {
      return false;
    }
  }
  return true;
}

static void list_log(checker *c, const char *logdir, listing *L) {
  memset(L, 0, sizeof *L);
  DIR *d = opendir(logdir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    const char *n = e->d_name;
    size_t len = strlen(n);
    if (n[0] == '.') continue; /* "." "..", and writers' temporary files */
    if (strcmp(n, "_last_checkpoint") == 0) {
      L->has_last_checkpoint = true;
      continue;
    }
    if (strcmp(n, "_sidecars") == 0 || strcmp(n, "_staged_commits") == 0 ||
        strcmp(n, "_commits") == 0)
      continue;
    if (len < 21 || !is_digits(n, 20) || n[20] != '.') {
      finding(c, "log-names", NULL, -1, "_delta_log/%s is no log file the spec names", n);
      continue;
    }
    int64_t ver = strtoll(n, NULL, 10);
    const char *rest = n + 21;
    if (strcmp(rest, "json") == 0) {
      if (L->n_commits == L->cap_commits) {
        L->cap_commits = L->cap_commits ? L->cap_commits * 2 : 64;
        L->commits = realloc(L->commits, L->cap_commits * sizeof *L->commits);
      }
      L->commits[L->n_commits++] = ver;
      continue;
    }
    if (strcmp(rest, "crc") == 0) continue;
    /* Log compaction: <v>.<v2>.compacted.json */
    if (strlen(rest) == 20 + 15 && is_digits(rest, 20) && strcmp(rest + 20, ".compacted.json") == 0)
      continue;
    cp_file cf;
    memset(&cf, 0, sizeof cf);
    cf.version = ver;
    snprintf(cf.name, sizeof cf.name, "%s", n);
    bool ok = false;
    if (strcmp(rest, "checkpoint.parquet") == 0) {
      cf.kind = CP_CLASSIC;
      ok = true;
    } else if (strncmp(rest, "checkpoint.", 11) == 0) {
      const char *t = rest + 11;
      size_t tl = strlen(t);
      if (tl == 10 + 1 + 10 + 8 && is_digits(t, 10) && t[10] == '.' && is_digits(t + 11, 10) &&
          strcmp(t + 21, ".parquet") == 0) {
        cf.kind = CP_MULTI;
        cf.part = atoi(t);
        cf.parts = atoi(t + 11);
        ok = cf.parts > 1 && cf.part >= 1 && cf.part <= cf.parts;
      } else if (tl > 37 && is_uuid(t, 36) && t[36] == '.') {
        if (strcmp(t + 37, "parquet") == 0) {
          cf.kind = CP_V2_PARQUET;
          ok = true;
        } else if (strcmp(t + 37, "json") == 0) {
          cf.kind = CP_V2_JSON;
          ok = true;
        }
      }
    }
    if (!ok) {
      finding(c, "log-names", NULL, -1, "_delta_log/%s is no log file the spec names", n);
      continue;
    }
    if (L->n_cps == L->cap_cps) {
      L->cap_cps = L->cap_cps ? L->cap_cps * 2 : 16;
      L->cps = realloc(L->cps, L->cap_cps * sizeof *L->cps);
    }
    L->cps[L->n_cps++] = cf;
  }
  closedir(d);
  if (L->n_commits) qsort(L->commits, L->n_commits, sizeof *L->commits, cmp_i64);
}

/* Size of file @p path, -1 when missing. */
static int64_t file_size(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0 ? (int64_t)sb.st_size : -1;
}

/* PROTOCOL.md "Last Checkpoint File Schema": a v2Checkpoint field names the
 * UUID-named checkpoint of the version with its size, and each sidecar file
 * it lists exists in _sidecars with the size given. */
static void check_last_v2(checker *c, const char *logdir, const listing *L, int64_t lv,
                          json_t *v2) {
  const char *path = json_string_value(json_object_get(v2, "path"));
  json_t *size = json_object_get(v2, "sizeInBytes");
  if (!path || !json_is_integer(size) ||
      !json_is_integer(json_object_get(v2, "modificationTime"))) {
    finding(c, "last-checkpoint", NULL, lv,
            "_last_checkpoint v2Checkpoint lacks path, sizeInBytes or modificationTime");
    return;
  }
  bool named = false;
  for (size_t i = 0; i < L->n_cps; i++)
    if (L->cps[i].version == lv && strcmp(L->cps[i].name, path) == 0 &&
        (L->cps[i].kind == CP_V2_PARQUET || L->cps[i].kind == CP_V2_JSON))
      named = true;
  if (!named)
    finding(c, "last-checkpoint", NULL, lv,
            "_last_checkpoint v2Checkpoint.path %s is no v2 checkpoint of version %" PRId64, path,
            lv);
  char p[8400];
  snprintf(p, sizeof p, "%s/%s", logdir, path);
  if (named && file_size(p) != (int64_t)json_integer_value(size))
    finding(c, "last-checkpoint", NULL, lv,
            "_last_checkpoint v2Checkpoint.sizeInBytes %" PRId64 " is not the size of %s",
            (int64_t)json_integer_value(size), path);
  json_t *files = json_object_get(v2, "sidecarFiles");
  size_t i;
  json_t *f;
  json_array_foreach(files, i, f) {
    const char *sp = json_string_value(json_object_get(f, "path"));
    json_t *ss = json_object_get(f, "sizeInBytes");
    if (!sp || !json_is_integer(ss)) {
      finding(c, "last-checkpoint", NULL, lv,
              "_last_checkpoint sidecarFiles entry lacks path or size");
      continue;
    }
    snprintf(p, sizeof p, "%s/_sidecars/%s", logdir, sp);
    if (file_size(p) != (int64_t)json_integer_value(ss))
      finding(c, "last-checkpoint", NULL, lv,
              "_last_checkpoint names sidecar %s of %" PRId64 " bytes: missing or another size", sp,
              (int64_t)json_integer_value(ss));
  }
}

/* Is there a complete checkpoint at @p v? */
static bool cp_complete(const listing *L, int64_t v) {
  int parts_needed = 0, parts_seen = 0;
  for (size_t i = 0; i < L->n_cps; i++) {
    const cp_file *f = &L->cps[i];
    if (f->version != v) continue;
    if (f->kind != CP_MULTI) return true;
    parts_needed = f->parts;
    parts_seen++;
  }
  return parts_needed && parts_seen == parts_needed;
}

/* Reads every action of the (complete) checkpoint at @p v. */
static json_t *read_checkpoint(checker *c, const char *logdir, const listing *L, int64_t v,
                               bool *v2) {
  json_t *out = json_array();
  *v2 = false;
  char path[8192];
  /* Prefer one kind: a classic or v2 file, else the multi-part set. */
  const cp_file *single = NULL;
  for (size_t i = 0; i < L->n_cps; i++)
    if (L->cps[i].version == v && L->cps[i].kind != CP_MULTI && !single) single = &L->cps[i];
  for (size_t i = 0; i < L->n_cps; i++) {
    const cp_file *f = &L->cps[i];
    if (f->version != v || (single && f != single)) continue;
    snprintf(path, sizeof path, "%s/%s", logdir, f->name);
    if (f->kind == CP_V2_JSON) {
      *v2 = true;
      json_t *acts = read_commit(c, v, path);
      if (acts) json_array_extend(out, acts);
      json_decref(acts);
    } else {
      if (f->kind == CP_V2_PARQUET) *v2 = true;
      read_parquet_actions(c, v, path, out);
    }
  }
  /* Sidecars of a v2 checkpoint hold its file actions. */
  size_t n = json_array_size(out);
  for (size_t i = 0; i < n; i++) {
    json_t *a = json_array_get(out, i);
    json_t *sc = json_object_get(a, "sidecar");
    if (json_object_get(a, "checkpointMetadata")) *v2 = true;
    if (!sc) continue;
    *v2 = true;
    const char *p = json_string_value(json_object_get(sc, "path"));
    if (!p) continue;
    snprintf(path, sizeof path, "%s/_sidecars/%s", logdir, p);
    read_parquet_actions(c, v, path, out);
  }
  return out;
}

/* Loads state from a checkpoint's actions. */
static void state_from_checkpoint(checker *c, state *s, int64_t v, json_t *acts) {
  size_t i;
  json_t *a;
  json_array_foreach(acts, i, a) {
    json_t *x;
    if ((x = json_object_get(a, "protocol"))) {
      drop_nulls(x);
      json_decref(s->protocol);
      s->protocol = json_deep_copy(x);
    } else if ((x = json_object_get(a, "metaData"))) {
      set_metadata(c, s, v, x);
    } else if ((x = json_object_get(a, "add"))) {
      char key[8192];
      file_key(x, key, sizeof key);
      json_object_set(s->files, key, x);
    } else if ((x = json_object_get(a, "txn"))) {
      const char *app = json_string_value(json_object_get(x, "appId"));
      if (app) json_object_set(s->txns, app, json_object_get(x, "version"));
    } else if ((x = json_object_get(a, "domainMetadata"))) {
      const char *d = json_string_value(json_object_get(x, "domain"));
      s->has_domain_actions = true;
      if (d && !json_is_true(json_object_get(x, "removed"))) json_object_set(s->domains, d, x);
    }
  }
}

static bool features_equal(const json_t *a, const json_t *b) {
  bool an = !a || json_is_null(a), bn = !b || json_is_null(b);
  if (an || bn) return an == bn;
  if (json_array_size(a) != json_array_size(b)) return false;
  size_t i;
  json_t *v;
  json_array_foreach(a, i, v) {
    if (!json_is_string(v) || !str_in_array(b, json_string_value(v))) return false;
  }
  return true;
}

/* A checkpoint must hold exactly the replayed state at its version. */
static void compare_checkpoint(checker *c, int64_t v, const state *replay, json_t *acts) {
  state cs;
  state_init(&cs);
  state_from_checkpoint(c, &cs, v, acts);
  if (!cs.protocol || !cs.metadata) {
    finding(c, "checkpoint", NULL, v, "checkpoint lacks %s",
            !cs.protocol ? "protocol" : "metaData");
  } else {
    proto a = proto_of(cs.protocol), b = proto_of(replay->protocol);
    if (a.reader != b.reader || a.writer != b.writer ||
        !features_equal(json_object_get(cs.protocol, "readerFeatures"),
                        json_object_get(replay->protocol, "readerFeatures")) ||
        !features_equal(json_object_get(cs.protocol, "writerFeatures"),
                        json_object_get(replay->protocol, "writerFeatures")))
      finding(c, "checkpoint", NULL, v, "checkpoint protocol differs from the log's");
    static const char *const mkeys[] = {"id", "schemaString", "partitionColumns", "configuration",
                                        NULL};
    for (int k = 0; mkeys[k]; k++) {
      if (!json_equal(json_object_get(cs.metadata, mkeys[k]),
                      json_object_get(replay->metadata, mkeys[k])))
        finding(c, "checkpoint", NULL, v, "checkpoint metaData.%s differs from the log's",
                mkeys[k]);
    }
  }
  const char *k;
  json_t *val;
  json_object_foreach(replay->files, k, val) {
    if (!json_object_get(cs.files, k))
      finding(c, "checkpoint", NULL, v, "checkpoint lacks live file %s",
              json_string_value(json_object_get(val, "path")));
  }
  /* Every field a writer put on a live add survives into the checkpoint
   * (issue 11 section 2: tags, deletion vectors, row tracking, clustering). */
  json_object_foreach(replay->files, k, val) {
    json_t *ca = json_object_get(cs.files, k);
    if (!ca) continue;
    if (!json_equal(json_object_get(ca, "size"), json_object_get(val, "size")) ||
        !json_equal(json_object_get(ca, "partitionValues"),
                    json_object_get(val, "partitionValues")))
      finding(c, "checkpoint", NULL, v, "checkpoint add %s differs in size or partitionValues",
              json_string_value(json_object_get(val, "path")));
    static const char *const keep[] = {
        "tags", "deletionVector", "baseRowId", "defaultRowCommitVersion", "clusteringProvider",
        NULL};
    for (int f = 0; keep[f]; f++) {
      json_t *lv = json_object_get(val, keep[f]);
      if (!lv || json_is_null(lv)) continue;
      json_t *cv = json_object_get(ca, keep[f]);
      bool same = cv && !json_is_null(cv);
      if (same && json_is_object(lv) && json_is_object(cv)) {
        /* Struct columns print absent optional members as null. */
        json_t *cc = json_deep_copy(cv);
        drop_nulls(cc);
        same = json_equal(cc, lv);
        json_decref(cc);
      } else if (same) {
        same = json_equal(cv, lv);
      }
      if (!same)
        finding(c, "checkpoint-fields", keep[f], v, "checkpoint add %s lost or changed its %s",
                json_string_value(json_object_get(val, "path")), keep[f]);
    }
  }
  json_object_foreach(cs.files, k, val) {
    if (!json_object_get(replay->files, k))
      finding(c, "checkpoint", NULL, v, "checkpoint adds %s, which is not live at this version",
              json_string_value(json_object_get(val, "path")));
  }
  json_object_foreach(replay->txns, k, val) {
    const json_t *cv = json_object_get(cs.txns, k);
    if (cv && !json_equal(cv, val))
      finding(c, "checkpoint", NULL, v,
              "checkpoint txn %s has version %" PRId64 ", the log %" PRId64, k,
              (int64_t)json_integer_value(cv), (int64_t)json_integer_value(val));
  }
  json_object_foreach(replay->domains, k, val) {
    if (!json_object_get(cs.domains, k))
      finding(c, "checkpoint", NULL, v, "checkpoint lacks domainMetadata %s", k);
  }
  state_free(&cs);
}

/* ---- files on disk -------------------------------------------------------- */

static bool safe_encoding(const char *e) {
  static const char *const ok[] = {"PLAIN", "PLAIN_DICTIONARY", "RLE_DICTIONARY",
                                   "RLE",   "BIT_PACKED",       NULL};
  for (int i = 0; ok[i]; i++)
    if (strcmp(e, ok[i]) == 0) return true;
  return false;
}

/* [encodings] for one Parquet file, when inlet wrote it. */
static void check_encodings(checker *c, int64_t v, const char *path, const char *what) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_parquet_reader *r = NULL;
  if (inlet_parquet_reader_open(&r, path, NULL, &err) != 0) return; /* [live-files] reports */
  char *js = NULL;
  if (inlet_parquet_reader_metadata_json(r, &js, &err) != 0) {
    inlet_parquet_reader_free(r);
    return;
  }
  json_t *m = json_loads(js, 0, NULL);
  inlet_string_free(js);
  inlet_parquet_reader_free(r);
  const char *cb = json_string_value(json_object_get(m, "created_by"));
  if (!cb || strncmp(cb, "inlet ", 6) != 0) {
    json_decref(m);
    return;
  }
  size_t i, j, k;
  json_t *rg, *col, *e;
  bool reported = false;
  json_array_foreach(json_object_get(m, "row_groups"), i, rg) {
    json_array_foreach(json_object_get(rg, "columns"), j, col) {
      const char *cpath = json_string_value(json_object_get(col, "path"));
      json_array_foreach(json_object_get(col, "encodings"), k, e) {
        const char *en = json_string_value(e);
        if (en && !safe_encoding(en) && !reported) {
          finding(c, "encodings", NULL, v, "%s %s column %s uses %s", what, path,
                  cpath ? cpath : "?", en);
          reported = true;
        }
      }
      json_array_foreach(json_object_get(col, "encoding_stats"), k, e) {
        const char *pt = json_string_value(json_object_get(e, "page_type"));
        if (pt && strcmp(pt, "DATA_PAGE_V2") == 0 && !reported) {
          finding(c, "encodings", NULL, v, "%s %s column %s has V2 data pages", what, path,
                  cpath ? cpath : "?");
          reported = true;
        }
      }
    }
  }
  json_decref(m);
}

static void check_live_files(checker *c, int64_t v, const char *root, const state *s) {
  const json_t *conf = s->metadata ? json_object_get(s->metadata, "configuration") : NULL;
  const char *enc = json_string_value(json_object_get(conf, "inlet.parquet.encodings"));
  bool extended = enc && strcasecmp(enc, "extended") == 0;
  const char *k;
  json_t *a;
  json_object_foreach(s->files, k, a) {
    const char *raw = json_string_value(json_object_get(a, "path"));
    if (!raw || strstr(raw, "://") || raw[0] == '/') continue;
    char *rel = uri_decode(raw);
    if (!rel) continue;
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    free(rel);
    struct stat st;
    if (stat(path, &st) != 0) {
      finding(c, "live-files", NULL, v, "live file %s does not exist", raw);
      continue;
    }
    const json_t *size = json_object_get(a, "size");
    if (json_is_integer(size) && (int64_t)st.st_size != json_integer_value(size))
      finding(c, "live-files", NULL, v, "live file %s has %lld bytes, its add says %" PRId64, raw,
              (long long)st.st_size, (int64_t)json_integer_value(size));
    if (!extended) check_encodings(c, v, path, "data file");
  }
}

/* ---- one table ------------------------------------------------------------ */

int tu_rules_check_table(const char *root, tu_rules_report *rep) {
  checker c = {root, rep, 0, 0, json_object()};
  rep->tables++;
  char logdir[8192];
  snprintf(logdir, sizeof logdir, "%s/_delta_log", root);
  listing L;
  list_log(&c, logdir, &L);
  if (L.n_commits == 0 && L.n_cps == 0) { /* an empty log directory: no table yet */
    free(L.commits);
    free(L.cps);
    json_decref(c.seen);
    return 0;
  }
  /* [log-contiguous] */
  for (size_t i = 1; i < L.n_commits; i++)
    if (L.commits[i] != L.commits[i - 1] + 1)
      finding(&c, "log-contiguous", NULL, L.commits[i],
              "commit %" PRId64 " follows %" PRId64 ": versions are missing", L.commits[i],
              L.commits[i - 1]);
  int64_t first = L.n_commits ? L.commits[0] : -1;
  int64_t last = L.n_commits ? L.commits[L.n_commits - 1] : -1;
  for (size_t i = 0; i < L.n_cps; i++)
    if (L.cps[i].version > last)
      finding(&c, "log-contiguous", NULL, L.cps[i].version,
              "checkpoint %s is newer than the newest commit", L.cps[i].name);
  /* Where replay starts: version 0, or the oldest complete checkpoint at
   * or after first - 1. */
  int64_t start_cp = -1;
  if (first != 0) {
    for (size_t i = 0; i < L.n_cps; i++) {
      int64_t cv = L.cps[i].version;
      if (cv >= first - 1 && cv <= last && cp_complete(&L, cv) && (start_cp < 0 || cv < start_cp))
        start_cp = cv;
    }
    if (start_cp < 0 && first < 0)
      finding(&c, "log-contiguous", NULL, -1, "the log holds checkpoints but no commit");
    else if (start_cp < 0)
      finding(&c, "log-contiguous", NULL, first,
              "the log starts at version %" PRId64 " without a complete checkpoint to start from",
              first);
  }
  /* Multi-part checkpoints must be complete to count; an incomplete set is
   * legal debris, but a table with v2 checkpoints must not have them. */
  state s;
  state_init(&s);
  for (size_t i = 0; i < L.n_cps; i++)
    if (L.cps[i].kind == CP_V2_JSON || L.cps[i].kind == CP_V2_PARQUET) s.v2_checkpoint_seen = true;

  if (start_cp >= 0) {
    bool v2 = false;
    json_t *acts = read_checkpoint(&c, logdir, &L, start_cp, &v2);
    state_from_checkpoint(&c, &s, start_cp, acts);
    if (v2) s.v2_checkpoint_seen = true;
    json_decref(acts);
    s.known = s.protocol && s.metadata;
    if (!s.known)
      finding(&c, "checkpoint", NULL, start_cp, "checkpoint lacks protocol or metaData");
    else {
      check_protocol_action(&c, start_cp, s.protocol);
      check_metadata_action(&c, start_cp, s.metadata);
      check_requirements(&c, start_cp, &s);
    }
  } else if (first == 0) {
    s.known = true;
  }

  for (size_t i = 0; i < L.n_commits; i++) {
    int64_t v = L.commits[i];
    char path[8300];
    snprintf(path, sizeof path, "%s/%020" PRId64 ".json", logdir, v);
    json_t *acts = read_commit(&c, v, path);
    if (!acts) continue;
    if (start_cp >= 0 && v <= start_cp) {
      /* Before the state we know: per-commit checks only. */
      state tmp;
      state_init(&tmp);
      if (s.metadata) set_metadata(&c, &tmp, v, s.metadata);
      apply_commit(&c, &tmp, v, acts);
      state_free(&tmp);
      json_decref(acts);
      continue;
    }
    apply_commit(&c, &s, v, acts);
    json_decref(acts);
    check_requirements(&c, v, &s);
    /* A checkpoint at v must match the replay. */
    if (s.known && cp_complete(&L, v) && v != start_cp) {
      bool v2 = false;
      json_t *cp = read_checkpoint(&c, logdir, &L, v, &v2);
      compare_checkpoint(&c, v, &s, cp);
      json_decref(cp);
    }
  }
  if (s.known && s.v2_checkpoint_seen) {
    for (size_t i = 0; i < L.n_cps; i++)
      if (L.cps[i].kind == CP_MULTI)
        finding(&c, "checkpoint", NULL, L.cps[i].version,
                "multi-part checkpoint %s in a table with v2 checkpoints", L.cps[i].name);
  }
  /* [last-checkpoint] */
  if (L.has_last_checkpoint) {
    char p[8300];
    snprintf(p, sizeof p, "%s/_last_checkpoint", logdir);
    json_error_t je;
    json_t *lc = json_load_file(p, 0, &je);
    if (!json_is_object(lc) || !json_is_integer(json_object_get(lc, "version")))
      finding(&c, "last-checkpoint", NULL, -1,
              "_last_checkpoint is not a JSON object with a "
              "long version");
    else {
      int64_t lv = json_integer_value(json_object_get(lc, "version"));
      if (!cp_complete(&L, lv))
        finding(&c, "last-checkpoint", NULL, lv,
                "_last_checkpoint names version %" PRId64 ", which has no complete checkpoint", lv);
      json_t *v2 = json_object_get(lc, "v2Checkpoint");
      if (v2) check_last_v2(&c, logdir, &L, lv, v2);
    }
    json_decref(lc);
  }
  /* Files: the newest snapshot's live files, and every checkpoint file. */
  if (s.known) check_live_files(&c, last, root, &s);
  for (size_t i = 0; i < L.n_cps; i++) {
    if (L.cps[i].kind == CP_V2_JSON) continue;
    char p[8300];
    snprintf(p, sizeof p, "%s/%s", logdir, L.cps[i].name);
    check_encodings(&c, L.cps[i].version, p, "checkpoint");
  }
  state_free(&s);
  free(L.commits);
  free(L.cps);
  json_decref(c.seen);
  return c.found;
}

/* ---- a directory tree ----------------------------------------------------- */

static int walk(const char *dir, tu_rules_report *rep, int depth) {
  if (depth > 24) return 0;
  int found = 0;
  char logdir[8192];
  snprintf(logdir, sizeof logdir, "%s/_delta_log", dir);
  struct stat st;
  if (lstat(logdir, &st) == 0 && S_ISDIR(st.st_mode) && !tu_rules_is_exempt(dir))
    found += tu_rules_check_table(dir, rep);
  DIR *d = opendir(dir);
  if (!d) return found;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
        strcmp(e->d_name, "_delta_log") == 0)
      continue;
    char sub[8192];
    snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
    if (lstat(sub, &st) != 0 || !S_ISDIR(st.st_mode)) continue; /* no symlinks followed */
    found += walk(sub, rep, depth + 1);
  }
  closedir(d);
  return found;
}

int tu_rules_check_tree(const char *dir, tu_rules_report *rep) {
  if (tu_rules_is_exempt(dir)) return 0;
  return walk(dir, rep, 0);
}
