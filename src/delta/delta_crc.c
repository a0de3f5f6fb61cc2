/*
 * Version checksum files (`_delta_log/NNN.crc`): written after each commit
 * inlet makes, read back to load a version's protocol and metadata without
 * replaying the log.
 *
 * Spec: PROTOCOL.md "Version Checksum File" (tableSizeBytes, numFiles,
 * numMetadata = numProtocol = 1, metadata, protocol required; txnId,
 * inCommitTimestampOpt, setTransactions, domainMetadata, fileSizeHistogram
 * optional; written only after the commit it describes, never
 * overwritten, a hint readers must be able to do without), "State
 * Validation". Field order and the histogram's bins follow Spark, whose
 * files other engines know best; the histogram is written under the spec's
 * name, `fileSizeHistogram` (Spark also reads it; its older `histogramOpt`
 * is read too).
 *
 * Computing: the state after commit v is the state at v-1 plus the commit's
 * actions. That state comes from the writer's own snapshot when it read
 * version v-1 (one pass over its files, no log I/O), else from v-1's
 * checksum file (a commit that lost races and landed later), else from
 * nothing for version 0; without any of them no checksum is written (an add
 * is counted as a new file and a remove needs its size, as in Spark). The
 * file is published with put-if-absent, and any failure only means no
 * checksum: the commit has already succeeded.
 *
 * Reading: a checksum is used only when it is well formed and agrees with
 * the commit file of its version: the commit's protocol or metaData (if it
 * has one) must equal the checksum's, and its commitInfo's txnId and
 * inCommitTimestamp must match where both sides have them. Anything else is
 * ignored and the log is replayed: the log, not the hint, is the truth.
 */
#include <jansson.h>
#include <stdio.h>

#include "delta/delta_crc.h"
#include "util/util.h"

/* Spark's default file-size histogram bins (FileSizeHistogram): 0, 8 KiB,
 * powers of two to 4 MiB, then 4 MiB steps to 40 MiB, 8 MiB steps to 144
 * MiB, ... up to 256 GiB. */
static const int64_t DEFAULT_BINS[] = {
    0LL,           8192LL,        16384LL,       32768LL,        65536LL,       131072LL,
    262144LL,      524288LL,      1048576LL,     2097152LL,      4194304LL,     8388608LL,
    12582912LL,    16777216LL,    20971520LL,    25165824LL,     29360128LL,    33554432LL,
    37748736LL,    41943040LL,    50331648LL,    58720256LL,     67108864LL,    75497472LL,
    83886080LL,    92274688LL,    100663296LL,   109051904LL,    117440512LL,   125829120LL,
    130023424LL,   134217728LL,   138412032LL,   142606336LL,    146800640LL,   150994944LL,
    167772160LL,   184549376LL,   201326592LL,   218103808LL,    234881024LL,   251658240LL,
    268435456LL,   285212672LL,   301989888LL,   318767104LL,    335544320LL,   352321536LL,
    369098752LL,   385875968LL,   402653184LL,   419430400LL,    436207616LL,   452984832LL,
    469762048LL,   486539264LL,   503316480LL,   520093696LL,    536870912LL,   553648128LL,
    570425344LL,   587202560LL,   603979776LL,   671088640LL,    738197504LL,   805306368LL,
    872415232LL,   939524096LL,   1006632960LL,  1073741824LL,   1140850688LL,  1207959552LL,
    1275068416LL,  1342177280LL,  1409286144LL,  1476395008LL,   1610612736LL,  1744830464LL,
    1879048192LL,  2013265920LL,  2147483648LL,  2415919104LL,   2684354560LL,  2952790016LL,
    3221225472LL,  3489660928LL,  3758096384LL,  4026531840LL,   4294967296LL,  8589934592LL,
    17179869184LL, 34359738368LL, 68719476736LL, 137438953472LL, 274877906944LL};
#define N_DEFAULT_BINS ((int32_t)(sizeof DEFAULT_BINS / sizeof DEFAULT_BINS[0]))
#define MAX_BINS 4096

void delta_crc_init(delta_crc *c) {
  memset(c, 0, sizeof *c);
  c->version = -1;
  c->ict = -1;
  c->metadata.created_time = -1;
}

static void txns_free(delta_txn_entry *t, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    inlet_free(t[i].app_id);
  inlet_free(t);
}

static void domains_free(delta_domain *d, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    inlet_free(d[i].domain);
    inlet_free(d[i].configuration);
  }
  inlet_free(d);
}

void delta_crc_reset(delta_crc *c) {
  inlet_free(c->txn_id);
  delta_protocol_reset(&c->protocol);
  delta_metadata_reset(&c->metadata);
  txns_free(c->txns, c->n_txns);
  domains_free(c->domains, c->n_domains);
  inlet_free(c->bins);
  inlet_free(c->bin_files);
  inlet_free(c->bin_bytes);
  delta_crc_init(c);
}

static int oom(inlet_error *err) {
  return inlet_fail(err, INLET_ENOMEM, "out of memory computing a version checksum");
}

static int hist_alloc(delta_crc *c, int32_t n, inlet_error *err) {
  c->bins = inlet_calloc((size_t)n, sizeof *c->bins);
  c->bin_files = inlet_calloc((size_t)n, sizeof *c->bin_files);
  c->bin_bytes = inlet_calloc((size_t)n, sizeof *c->bin_bytes);
  if (!c->bins || !c->bin_files || !c->bin_bytes) return oom(err);
  c->n_bins = n;
  return 0;
}

/* Bin of a file of @p size: the last boundary <= size. */
static int32_t bin_of(const delta_crc *c, int64_t size) {
  int32_t lo = 0, hi = c->n_bins - 1;
  while (lo < hi) {
    int32_t mid = lo + (hi - lo + 1) / 2;
    if (c->bins[mid] <= size)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

static void hist_add(delta_crc *c, int64_t size, int sign) {
  if (c->n_bins == 0) return;
  int32_t b = bin_of(c, size);
  c->bin_files[b] += sign;
  c->bin_bytes[b] += sign * size;
  if (c->bin_files[b] < 0 || c->bin_bytes[b] < 0) {
    /* The histogram no longer describes the table: leave it out. */
    inlet_free(c->bins);
    inlet_free(c->bin_files);
    inlet_free(c->bin_bytes);
    c->bins = c->bin_files = c->bin_bytes = NULL;
    c->n_bins = 0;
  }
}

static int txn_set(delta_crc *c, const char *app_id, int64_t version, int64_t last_updated,
                   inlet_error *err) {
  for (int64_t i = 0; i < c->n_txns; i++) {
    if (strcmp(c->txns[i].app_id, app_id) == 0) {
      c->txns[i].version = version;
      c->txns[i].last_updated = last_updated;
      return 0;
    }
  }
  delta_txn_entry *t = inlet_realloc(c->txns, (size_t)(c->n_txns + 1) * sizeof *t);
  if (!t) return oom(err);
  c->txns = t;
  char *id = inlet_strdup(app_id);
  if (!id) return oom(err);
  c->txns[c->n_txns++] = (delta_txn_entry){id, version, last_updated};
  return 0;
}

static int domain_set(delta_crc *c, const delta_domain *d, inlet_error *err) {
  for (int64_t i = 0; i < c->n_domains; i++) {
    if (strcmp(c->domains[i].domain, d->domain) == 0) {
      inlet_free(c->domains[i].domain);
      inlet_free(c->domains[i].configuration);
      c->domains[i] = c->domains[--c->n_domains];
      break;
    }
  }
  if (d->removed) return 0;
  delta_domain *n = inlet_realloc(c->domains, (size_t)(c->n_domains + 1) * sizeof *n);
  if (!n) return oom(err);
  c->domains = n;
  delta_domain x = {inlet_strdup(d->domain), inlet_strdup(d->configuration), false};
  if (!x.domain || !x.configuration) {
    inlet_free(x.domain);
    inlet_free(x.configuration);
    return oom(err);
  }
  c->domains[c->n_domains++] = x;
  return 0;
}

int delta_crc_from_snapshot(delta_crc *out, const delta_snapshot *s, inlet_error *err) {
  delta_crc_init(out);
  int rc = delta_protocol_copy(&out->protocol, &s->protocol, err);
  if (rc == 0) rc = delta_metadata_copy(&out->metadata, &s->metadata, err);
  if (rc == 0) rc = hist_alloc(out, N_DEFAULT_BINS, err);
  if (rc < 0) goto fail;
  memcpy(out->bins, DEFAULT_BINS, sizeof DEFAULT_BINS);
  out->version = s->version;
  out->num_metadata = out->num_protocol = 1;
  for (int64_t i = 0; i < s->n_files; i++) {
    out->num_files++;
    out->table_size_bytes += s->files[i].add.size;
    hist_add(out, s->files[i].add.size, 1);
  }
  out->has_txns = out->has_domains = true;
  for (int64_t i = 0; i < s->n_txns && rc == 0; i++)
    rc = txn_set(out, s->txns[i].app_id, s->txns[i].version, s->txns[i].last_updated, err);
  for (int64_t i = 0; i < s->n_domains && rc == 0; i++)
    rc = domain_set(out, &s->domains[i], err);
  if (rc == 0) return 0;
fail:
  delta_crc_reset(out);
  return rc;
}

/* The state before version 0: nothing, not even a protocol yet. */
static int crc_empty(delta_crc *out, inlet_error *err) {
  delta_crc_init(out);
  TRY(hist_alloc(out, N_DEFAULT_BINS, err));
  memcpy(out->bins, DEFAULT_BINS, sizeof DEFAULT_BINS);
  out->has_txns = out->has_domains = true;
  return 0;
}

/* txnId and inCommitTimestamp of a commitInfo (raw JSON object text). */
static void commit_info_ids(const char *ci, char **txn_id, int64_t *ict) {
  *txn_id = NULL;
  *ict = -1;
  if (!ci) return;
  json_t *o = json_loads(ci, 0, NULL);
  json_t *t = json_object_get(o, "txnId"), *i = json_object_get(o, "inCommitTimestamp");
  if (json_is_string(t)) *txn_id = inlet_strdup(json_string_value(t));
  if (json_is_integer(i)) *ict = (int64_t)json_integer_value(i);
  json_decref(o);
}

int delta_crc_apply(delta_crc *c, int64_t version, const delta_action *acts, size_t n,
                    inlet_error *err) {
  inlet_free(c->txn_id);
  c->txn_id = NULL;
  c->ict = -1;
  c->version = version;
  for (size_t i = 0; i < n; i++) {
    const delta_action *a = &acts[i];
    switch (a->kind) {
    case DELTA_ACTION_ADD:
      c->num_files++;
      c->table_size_bytes += a->u.add.size;
      hist_add(c, a->u.add.size, 1);
      break;
    case DELTA_ACTION_REMOVE:
      FAIL_IF(a->u.remove.size < 0, err, INLET_EUNSUPPORTED,
              "version %lld removes \"%s\" "
              "without its size: its checksum cannot be derived",
              (long long)version, a->u.remove.path);
      c->num_files--;
      c->table_size_bytes -= a->u.remove.size;
      hist_add(c, a->u.remove.size, -1);
      break;
    case DELTA_ACTION_PROTOCOL:
      delta_protocol_reset(&c->protocol);
      TRY(delta_protocol_copy(&c->protocol, &a->u.protocol, err));
      c->num_protocol = 1;
      break;
    case DELTA_ACTION_METADATA:
      delta_metadata_reset(&c->metadata);
      TRY(delta_metadata_copy(&c->metadata, &a->u.metadata, err));
      c->num_metadata = 1;
      break;
    case DELTA_ACTION_TXN:
      if (c->has_txns)
        TRY(txn_set(c, a->u.txn.app_id, a->u.txn.version, a->u.txn.last_updated, err));
      break;
    case DELTA_ACTION_DOMAIN:
      if (c->has_domains) TRY(domain_set(c, &a->u.domain, err));
      break;
    case DELTA_ACTION_COMMIT_INFO:
      inlet_free(c->txn_id);
      commit_info_ids(a->u.commit_info, &c->txn_id, &c->ict);
      break;
    case DELTA_ACTION_CDC:
    case DELTA_ACTION_NONE: break;
    }
  }
  FAIL_IF(c->num_files < 0 || c->table_size_bytes < 0 || c->num_protocol != 1 ||
              c->num_metadata != 1,
          err, INLET_ECORRUPT,
          "version %lld: the derived checksum is inconsistent "
          "(%lld files, %lld bytes)",
          (long long)version, (long long)c->num_files, (long long)c->table_size_bytes);
  return 0;
}

/* ---- JSON ---------------------------------------------------------------------- */

/* The body of @p a as delta_action_write serialises it. */
static json_t *action_body(const delta_action *a, const char *key) {
  inlet_buf b = INLET_BUF_INIT;
  inlet_error e = INLET_ERROR_INIT;
  json_t *body = NULL;
  if (delta_action_write(&b, a, &e) == 0) {
    json_t *line = json_loadb((const char *)b.data, b.len, 0, NULL);
    body = json_incref(json_object_get(line, key));
    json_decref(line);
  }
  inlet_buf_reset(&b);
  return body;
}

static json_t *i64_array(const int64_t *v, int32_t n) {
  json_t *a = json_array();
  for (int32_t i = 0; a && i < n; i++)
    json_array_append_new(a, json_integer(v[i]));
  return a;
}

int delta_crc_to_json(const delta_crc *c, char **out, inlet_error *err) {
  *out = NULL;
  json_t *o = json_object();
  if (!o) return oom(err);
  if (c->txn_id) json_object_set_new(o, "txnId", json_string(c->txn_id));
  json_object_set_new(o, "tableSizeBytes", json_integer(c->table_size_bytes));
  json_object_set_new(o, "numFiles", json_integer(c->num_files));
  json_object_set_new(o, "numMetadata", json_integer(c->num_metadata));
  json_object_set_new(o, "numProtocol", json_integer(c->num_protocol));
  if (c->ict >= 0) json_object_set_new(o, "inCommitTimestampOpt", json_integer(c->ict));
  if (c->has_txns) {
    json_t *a = json_array();
    for (int64_t i = 0; a && i < c->n_txns; i++) {
      delta_action t;
      memset(&t, 0, sizeof t);
      t.kind = DELTA_ACTION_TXN;
      t.u.txn = (delta_txn_action){c->txns[i].app_id, c->txns[i].version, c->txns[i].last_updated};
      json_array_append_new(a, action_body(&t, "txn"));
    }
    json_object_set_new(o, "setTransactions", a);
  }
  if (c->has_domains) {
    json_t *a = json_array();
    for (int64_t i = 0; a && i < c->n_domains; i++) {
      delta_action d;
      memset(&d, 0, sizeof d);
      d.kind = DELTA_ACTION_DOMAIN;
      d.u.domain = c->domains[i];
      json_array_append_new(a, action_body(&d, "domainMetadata"));
    }
    json_object_set_new(o, "domainMetadata", a);
  }
  delta_action m, p;
  memset(&m, 0, sizeof m);
  memset(&p, 0, sizeof p);
  m.kind = DELTA_ACTION_METADATA;
  m.u.metadata = c->metadata;
  p.kind = DELTA_ACTION_PROTOCOL;
  p.u.protocol = c->protocol;
  json_object_set_new(o, "metadata", action_body(&m, "metaData"));
  json_object_set_new(o, "protocol", action_body(&p, "protocol"));
  if (c->n_bins > 0) {
    json_t *h = json_object();
    json_object_set_new(h, "sortedBinBoundaries", i64_array(c->bins, c->n_bins));
    json_object_set_new(h, "fileCounts", i64_array(c->bin_files, c->n_bins));
    json_object_set_new(h, "totalBytes", i64_array(c->bin_bytes, c->n_bins));
    json_object_set_new(o, "fileSizeHistogram", h);
  }
  char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
  json_decref(o);
  if (!s) return oom(err);
  *out = inlet_strdup(s);
  free(s);
  return *out ? 0 : oom(err);
}

/* Parses {"<key>": body} through the log's action parser. */
static int parse_body(const char *key, json_t *body, delta_action *out, const char *file,
                      inlet_error *err) {
  memset(out, 0, sizeof *out);
  json_t *line = json_pack("{sO}", key, body);
  char *s = line ? json_dumps(line, JSON_COMPACT) : NULL;
  json_decref(line);
  if (!s) return oom(err);
  delta_line_ctx ctx = {file, 1, NULL};
  int rc = delta_action_parse(out, s, strlen(s), &ctx, err);
  free(s);
  return rc;
}

static bool get_count(json_t *o, const char *key, int64_t *out) {
  json_t *v = json_object_get(o, key);
  if (!json_is_integer(v) || json_integer_value(v) < 0) return false;
  *out = (int64_t)json_integer_value(v);
  return true;
}

static int bad(const char *file, const char *what, inlet_error *err) {
  return inlet_fail(err, INLET_ECORRUPT, "version checksum %s: %s", file, what);
}

/* The histogram under either name; left out when malformed. */
static int parse_hist(delta_crc *c, json_t *o, inlet_error *err) {
  json_t *h = json_object_get(o, "fileSizeHistogram");
  if (!json_is_object(h)) h = json_object_get(o, "histogramOpt");
  if (!json_is_object(h)) return 0;
  json_t *b = json_object_get(h, "sortedBinBoundaries"), *f = json_object_get(h, "fileCounts"),
         *t = json_object_get(h, "totalBytes");
  size_t n = json_array_size(b);
  if (n == 0 || n > MAX_BINS || json_array_size(f) != n || json_array_size(t) != n) return 0;
  for (size_t i = 0; i < n; i++) {
    json_t *x = json_array_get(b, i), *y = json_array_get(f, i), *z = json_array_get(t, i);
    if (!json_is_integer(x) || !json_is_integer(y) || !json_is_integer(z) ||
        json_integer_value(y) < 0 || json_integer_value(z) < 0 ||
        (i == 0 ? json_integer_value(x) != 0
                : json_integer_value(x) <= json_integer_value(json_array_get(b, i - 1))))
      return 0;
  }
  TRY(hist_alloc(c, (int32_t)n, err));
  for (size_t i = 0; i < n; i++) {
    c->bins[i] = (int64_t)json_integer_value(json_array_get(b, i));
    c->bin_files[i] = (int64_t)json_integer_value(json_array_get(f, i));
    c->bin_bytes[i] = (int64_t)json_integer_value(json_array_get(t, i));
  }
  return 0;
}

int delta_crc_parse(delta_crc *out, const char *text, size_t len, int64_t version, const char *file,
                    inlet_error *err) {
  delta_crc_init(out);
  json_error_t je;
  json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
  int rc = 0;
  delta_action a;
  memset(&a, 0, sizeof a);
  if (!json_is_object(o)) {
    rc = bad(file, "not a JSON object", err);
    goto done;
  }
  out->version = version;
  if (!get_count(o, "tableSizeBytes", &out->table_size_bytes) ||
      !get_count(o, "numFiles", &out->num_files) ||
      !get_count(o, "numMetadata", &out->num_metadata) ||
      !get_count(o, "numProtocol", &out->num_protocol)) {
    rc = bad(file, "tableSizeBytes, numFiles, numMetadata or numProtocol missing or negative", err);
    goto done;
  }
  if (out->num_metadata != 1 || out->num_protocol != 1) {
    rc = bad(file, "numMetadata and numProtocol must be 1", err);
    goto done;
  }
  json_t *m = json_object_get(o, "metadata"), *p = json_object_get(o, "protocol");
  if (!json_is_object(m) || !json_is_object(p)) {
    rc = bad(file, "metadata or protocol missing", err);
    goto done;
  }
  if ((rc = parse_body("metaData", m, &a, file, err)) < 0) goto done;
  out->metadata = a.u.metadata;
  memset(&a, 0, sizeof a);
  if ((rc = parse_body("protocol", p, &a, file, err)) < 0) goto done;
  out->protocol = a.u.protocol;
  memset(&a, 0, sizeof a);
  json_t *t = json_object_get(o, "txnId");
  if (json_is_string(t)) {
    out->txn_id = inlet_strdup(json_string_value(t));
    if (!out->txn_id) {
      rc = oom(err);
      goto done;
    }
  }
  json_t *ict = json_object_get(o, "inCommitTimestampOpt");
  if (json_is_integer(ict)) out->ict = (int64_t)json_integer_value(ict);
  json_t *txns = json_object_get(o, "setTransactions");
  if (json_is_array(txns)) {
    out->has_txns = true;
    size_t i;
    json_t *x;
    json_array_foreach(txns, i, x) {
      if ((rc = parse_body("txn", x, &a, file, err)) < 0) goto done;
      rc = txn_set(out, a.u.txn.app_id, a.u.txn.version, a.u.txn.last_updated, err);
      delta_action_reset(&a);
      if (rc < 0) goto done;
    }
  }
  json_t *doms = json_object_get(o, "domainMetadata");
  if (json_is_array(doms)) {
    out->has_domains = true;
    size_t i;
    json_t *x;
    json_array_foreach(doms, i, x) {
      if ((rc = parse_body("domainMetadata", x, &a, file, err)) < 0) goto done;
      rc = domain_set(out, &a.u.domain, err);
      delta_action_reset(&a);
      if (rc < 0) goto done;
    }
  }
  rc = parse_hist(out, o, err);
done:
  json_decref(o);
  delta_action_reset(&a);
  if (rc < 0) delta_crc_reset(out);
  return rc;
}

void delta_crc_name(char out[64], int64_t version) {
  snprintf(out, 64, "_delta_log/%020lld.crc", (long long)version);
}

int delta_crc_read(delta_crc *out, inlet_storage *st, int64_t version, inlet_error *err) {
  delta_crc_init(out);
  char name[64];
  delta_crc_name(name, version);
  uint8_t *buf = NULL;
  size_t len = 0;
  int rc = st->ops->get_bytes(st, name, (size_t)DELTA_CRC_MAX_BYTES, &buf, &len, err);
  if (rc == INLET_ELIMIT) rc = bad(name, "too large", err);
  if (rc == 0 && len == 0) rc = bad(name, "empty", err);
  if (rc == 0) rc = delta_crc_parse(out, (const char *)buf, len, version, name, err);
  inlet_free(buf);
  return rc;
}

int delta_crc_write(inlet_storage *st, const delta_crc *c, inlet_error *err) {
  char *text = NULL;
  TRY(delta_crc_to_json(c, &text, err));
  char name[64];
  delta_crc_name(name, c->version);
  /* Created under its own name with create's put-if-absent (posix: O_EXCL;
   * object stores: one PUT with If-None-Match: * at close), never synced:
   * on posix a reader racing the write, or a crash, can at worst find an
   * empty or cut-off file, which is not a JSON object, and every reader
   * (inlet, Spark, Delta Kernel) ignores a checksum it cannot parse; a wrong
   * one cannot appear. A synced temporary + link would double the fsyncs of
   * every commit for a hint. Nothing is removed on failure: the name may
   * be a concurrent writer's. */
  inlet_wfile *wf = NULL;
  int rc = st->ops->create(st, name, &wf, err);
  if (rc == 0) {
    rc = inlet_wfile_append(wf, text, strlen(text), err);
    int rc2 = inlet_wfile_close(wf, false, err);
    if (rc == 0) rc = rc2;
  }
  inlet_free(text);
  return rc;
}

/* ---- after a commit ------------------------------------------------------------- */

/* Spark checks a checksum's setTransactions and domainMetadata, when
 * present, against its own replay, which drops transactions past
 * delta.setTransactionRetentionDuration; it also keeps at most 100
 * transactions and 10 domains in a checksum. Present only what its replay
 * agrees with (all or nothing, so presence stays meaningful). */
#define CRC_MAX_TXNS 100
#define CRC_MAX_DOMAINS 10
static void limit_lists(delta_crc *c, const delta_snapshot *base) {
  bool retention =
      delta_metadata_conf(&c->metadata, "delta.setTransactionRetentionDuration") ||
      (base && delta_metadata_conf(&base->metadata, "delta.setTransactionRetentionDuration"));
  if (c->has_txns && (retention || c->n_txns > CRC_MAX_TXNS)) {
    txns_free(c->txns, c->n_txns);
    c->txns = NULL;
    c->n_txns = 0;
    c->has_txns = false;
  }
  if (c->has_domains && c->n_domains > CRC_MAX_DOMAINS) {
    domains_free(c->domains, c->n_domains);
    c->domains = NULL;
    c->n_domains = 0;
    c->has_domains = false;
  }
}

static int crc_add_file(void *ctx, const delta_add *a, inlet_error *err) {
  (void)err;
  delta_crc *c = ctx;
  c->num_files++;
  c->table_size_bytes = inlet_add_sat_i64(c->table_size_bytes, a->size);
  hist_add(c, a->size, 1);
  return 0;
}

/* The checksum of the version @p s stands at: its head (protocol,
 * metaData, txns, domains) plus one pass over its live files. */
static int crc_from_state(delta_crc *out, delta_state *s, inlet_error *err) {
  delta_snapshot head;
  TRY(delta_state_head(s, &head, err));
  int rc = delta_crc_from_snapshot(out, &head, err); /* no files: counts start at 0 */
  delta_snapshot_reset(&head);
  if (rc == 0) rc = delta_state_for_each_file(s, crc_add_file, out, err);
  if (rc < 0) delta_crc_reset(out);
  return rc;
}

void delta_crc_after_commit(inlet_storage *st, const delta_snapshot *base, delta_state *base_state,
                            int64_t version, const delta_action *acts, size_t n, const char *body,
                            size_t len) {
  inlet_error err = INLET_ERROR_INIT;
  /* The commitInfo is the body's first line (delta_commit.c writes it). */
  const char *nl = body ? memchr(body, '\n', len) : NULL;
  delta_action ci;
  delta_line_ctx ctx = {"commit", 1, NULL};
  if (!nl || delta_action_parse(&ci, body, (size_t)(nl - body), &ctx, &err) < 0)
    memset(&ci, 0, sizeof ci);
  const char *commit_info = ci.kind == DELTA_ACTION_COMMIT_INFO ? ci.u.commit_info : NULL;
  delta_crc c;
  delta_crc_init(&c);
  int rc;
  if (version == 0)
    rc = crc_empty(&c, &err);
  else if (base && base->version == version - 1 && base->files)
    rc = delta_crc_from_snapshot(&c, base, &err); /* files == NULL: a head without files */
  else {
    rc = delta_crc_read(&c, st, version - 1, &err);
    if (rc < 0 && rc != INLET_ENOMEM && base_state &&
        delta_state_version(base_state) == version - 1) {
      delta_crc_reset(&c);
      rc = crc_from_state(&c, base_state, &err);
    }
  }
  if (rc == 0) rc = delta_crc_apply(&c, version, acts, n, &err);
  if (rc == 0 && commit_info) {
    /* The commitInfo is written by the transaction, not held in @p acts. */
    inlet_free(c.txn_id);
    commit_info_ids(commit_info, &c.txn_id, &c.ict);
  }
  if (rc == 0) limit_lists(&c, base);
  /* With in-commit timestamps the checksum must carry the commit's. */
  const char *ict = delta_metadata_conf(&c.metadata, "delta.enableInCommitTimestamps");
  if (rc == 0 && ict && strcmp(ict, "true") == 0 && c.ict < 0) rc = INLET_EUNSUPPORTED;
  if (rc == 0) (void)delta_crc_write(st, &c, &err);
  delta_crc_reset(&c);
  delta_action_reset(&ci);
}

/* ---- validation and use ------------------------------------------------------------ */

/* Equal as the log would write them. */
static bool same_action(const delta_action *a, const delta_action *b) {
  inlet_buf x = INLET_BUF_INIT, y = INLET_BUF_INIT;
  inlet_error e = INLET_ERROR_INIT;
  bool eq = delta_action_write(&x, a, &e) == 0 && delta_action_write(&y, b, &e) == 0 &&
            x.len == y.len && memcmp(x.data, y.data, x.len) == 0;
  inlet_buf_reset(&x);
  inlet_buf_reset(&y);
  return eq;
}

bool delta_crc_same_protocol(const delta_protocol *a, const delta_protocol *b) {
  delta_action x, y;
  memset(&x, 0, sizeof x);
  memset(&y, 0, sizeof y);
  x.kind = y.kind = DELTA_ACTION_PROTOCOL;
  x.u.protocol = *a;
  y.u.protocol = *b;
  return same_action(&x, &y);
}

bool delta_crc_same_metadata(const delta_metadata *a, const delta_metadata *b) {
  delta_action x, y;
  memset(&x, 0, sizeof x);
  memset(&y, 0, sizeof y);
  x.kind = y.kind = DELTA_ACTION_METADATA;
  x.u.metadata = *a;
  y.u.metadata = *b;
  return same_action(&x, &y);
}

typedef struct commit_view {
  const delta_crc *c;
  bool mismatch;
  const char *why;
} commit_view;

static int check_cb(void *ctx, const delta_action *a, inlet_error *err) {
  (void)err;
  commit_view *v = ctx;
  if (a->kind == DELTA_ACTION_PROTOCOL &&
      !delta_crc_same_protocol(&a->u.protocol, &v->c->protocol)) {
    v->mismatch = true;
    v->why = "its protocol differs from the commit's";
  } else if (a->kind == DELTA_ACTION_METADATA &&
             !delta_crc_same_metadata(&a->u.metadata, &v->c->metadata)) {
    v->mismatch = true;
    v->why = "its metadata differs from the commit's";
  } else if (a->kind == DELTA_ACTION_COMMIT_INFO) {
    char *txn_id = NULL;
    int64_t ict = -1;
    commit_info_ids(a->u.commit_info, &txn_id, &ict);
    if (txn_id && v->c->txn_id && strcmp(txn_id, v->c->txn_id) != 0) {
      v->mismatch = true;
      v->why = "its txnId is not the commit's";
    } else if (ict >= 0 && v->c->ict >= 0 && ict != v->c->ict) {
      v->mismatch = true;
      v->why = "its inCommitTimestampOpt is not the commit's";
    }
    inlet_free(txn_id);
  }
  return v->mismatch ? 1 : 0;
}

int delta_crc_check_commit(const delta_crc *c, inlet_storage *st, const char *root_abs,
                           inlet_error *err) {
  commit_view v = {c, false, NULL};
  int rc = delta_log_read_commit(st, root_abs, c->version, check_cb, &v, err);
  if (rc < 0) return rc;
  if (v.mismatch)
    return inlet_fail(err, INLET_ECORRUPT,
                      "version checksum of version %lld disagrees with the "
                      "log: %s",
                      (long long)c->version, v.why);
  return 0;
}

int delta_crc_check_snapshot(const delta_crc *c, const delta_snapshot *s, char *why, size_t cap) {
  delta_crc x;
  inlet_error e = INLET_ERROR_INIT;
  if (delta_crc_from_snapshot(&x, s, &e) < 0) {
    snprintf(why, cap, "%s", inlet_errmsg(&e));
    return INLET_ENOMEM;
  }
  int rc = 0;
  if (c->version != s->version) {
    snprintf(why, cap, "describes version %lld, not %lld", (long long)c->version,
             (long long)s->version);
    rc = INLET_ECORRUPT;
  } else if (c->num_files != x.num_files) {
    snprintf(why, cap, "numFiles %lld, the log has %lld", (long long)c->num_files,
             (long long)x.num_files);
    rc = INLET_ECORRUPT;
  } else if (c->table_size_bytes != x.table_size_bytes) {
    snprintf(why, cap, "tableSizeBytes %lld, the log has %lld", (long long)c->table_size_bytes,
             (long long)x.table_size_bytes);
    rc = INLET_ECORRUPT;
  } else if (!delta_crc_same_protocol(&c->protocol, &x.protocol)) {
    snprintf(why, cap, "its protocol differs from the log's");
    rc = INLET_ECORRUPT;
  } else if (!delta_crc_same_metadata(&c->metadata, &x.metadata)) {
    snprintf(why, cap, "its metadata differs from the log's");
    rc = INLET_ECORRUPT;
  } else if (c->has_txns) {
    bool ok = c->n_txns == x.n_txns;
    for (int64_t i = 0; ok && i < c->n_txns; i++) {
      bool found = false;
      for (int64_t j = 0; j < x.n_txns && !found; j++)
        found = strcmp(c->txns[i].app_id, x.txns[j].app_id) == 0 &&
                c->txns[i].version == x.txns[j].version;
      ok = found;
    }
    if (!ok) {
      snprintf(why, cap, "its setTransactions differ from the log's");
      rc = INLET_ECORRUPT;
    }
  }
  if (rc == 0 && c->has_domains) {
    bool ok = c->n_domains == x.n_domains;
    for (int64_t i = 0; ok && i < c->n_domains; i++) {
      bool found = false;
      for (int64_t j = 0; j < x.n_domains && !found; j++)
        found = strcmp(c->domains[i].domain, x.domains[j].domain) == 0 &&
                strcmp(c->domains[i].configuration, x.domains[j].configuration) == 0;
      ok = found;
    }
    if (!ok) {
      snprintf(why, cap, "its domainMetadata differ from the log's");
      rc = INLET_ECORRUPT;
    }
  }
  if (rc == 0 && c->n_bins > 0) {
    int64_t files = 0, bytes = 0;
    for (int32_t i = 0; i < c->n_bins; i++) {
      files += c->bin_files[i];
      bytes += c->bin_bytes[i];
    }
    if (files != x.num_files || bytes != x.table_size_bytes) {
      snprintf(why, cap, "its fileSizeHistogram does not add up to the log's files");
      rc = INLET_ECORRUPT;
    }
  }
  delta_crc_reset(&x);
  return rc;
}

int delta_crc_load_meta(delta_crc *out, inlet_storage *st, const char *root_abs, int64_t version,
                        inlet_error *err) {
  TRY(delta_crc_read(out, st, version, err));
  int rc = delta_crc_check_commit(out, st, root_abs, err);
  if (rc < 0) delta_crc_reset(out);
  return rc;
}
