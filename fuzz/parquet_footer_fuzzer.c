/*
 * libFuzzer harness for the Parquet metadata layer (issue 2, section 5
 * "Proof"): the Thrift compact protocol reader, FileMetaData and PageHeader
 * parsing and validation (parquet.thrift), the footer framing of
 * pq_footer_read, and the schema mapping of pq_schema.c.
 *
 * Every input is tried as (1) a serialized FileMetaData, (2) a PageHeader
 * and (3) when it starts with "PAR1", a whole file read through an
 * in-memory inlet_rfile. Beyond "no crash, no overread, no leak", it checks
 * properties that must hold for any input the parsers accept:
 *  - serialize(parse(x)) parses again and re-serializes to the same bytes;
 *  - the nested tree builder accepts every schema the footer validator
 *    accepts (VECTOR repetition aside);
 *  - a flat schema mapped to inlet types, written back as Parquet
 *    SchemaElements and mapped again, gives the same inlet schema.
 * A property failure aborts, which libFuzzer reports as a crash.
 *
 * The same file builds a replay executable (fuzz/CMakeLists.txt) that runs
 * the seed corpus fuzz/corpus/parquet_footer/ as an ordinary ctest test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parquet/pq_meta.h"
#include "parquet/pq_schema.h"
#include "util/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "parquet_footer_fuzzer: property failed at %s:%d: %s\n", __FILE__, __LINE__, \
              #cond);                                                                              \
      abort();                                                                                     \
    }                                                                                              \
  } while (0)

/* ---- in-memory rfile ----------------------------------------------------- */

typedef struct mem_rfile {
  inlet_rfile base;
  const uint8_t *data;
} mem_rfile;

static int mem_read_at(inlet_rfile *f, int64_t off, void *buf, size_t n, inlet_error *err) {
  const mem_rfile *m = (const mem_rfile *)f;
  if (off < 0 || off > f->size || (int64_t)n > f->size - off)
    return inlet_fail(err, INLET_ECORRUPT, "%s: truncated read", f->name);
  if (n) memcpy(buf, m->data + off, n);
  return 0;
}

static void mem_close(inlet_rfile *f) {
  (void)f;
}

static const struct inlet_rfile_ops mem_ops = {.read_at = mem_read_at,
                                               .close = mem_close,
                                               .read_ranges = inlet_rfile_read_ranges_serial,
                                               .read_tail = inlet_rfile_read_tail_sized};

/* ---- properties ---------------------------------------------------------- */

static void check_metadata_roundtrip(const pq_file_metadata *m) {
  inlet_buf a = INLET_BUF_INIT, b = INLET_BUF_INIT;
  inlet_error err = INLET_ERROR_INIT;
  pq_file_metadata m2;
  pq_file_metadata_init(&m2);
  if (pq_file_metadata_serialize(m, &a, &err) == 0) {
    CHECK(pq_file_metadata_parse(&m2, a.data, a.len, "roundtrip", &err) == 0);
    CHECK(pq_file_metadata_serialize(&m2, &b, &err) == 0);
    CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
  } else {
    CHECK(err.code == INLET_ENOMEM);
  }
  pq_file_metadata_reset(&m2);
  inlet_buf_reset(&a);
  inlet_buf_reset(&b);
}

static bool has_vector_repetition(const pq_file_metadata *m) {
  for (int32_t i = 0; i < m->n_schema; i++)
    if (m->schema[i].has_repetition && m->schema[i].repetition > PQ_REPEATED) return true;
  return false;
}

static void check_schema(const pq_file_metadata *m) {
  inlet_error err = INLET_ERROR_INIT;
  pq_schema_desc tree;
  pq_schema_desc_init(&tree);
  int rc = pq_schema_build_tree(&tree, m->schema, m->n_schema, "fuzz", &err);
  CHECK(rc == 0 || rc == INLET_ENOMEM || (rc == INLET_EUNSUPPORTED && has_vector_repetition(m)));
  if (rc == 0) {
    for (int32_t k = 0; k < tree.n_columns; k++) {
      const pq_column_desc *c = &tree.columns[k];
      CHECK(c->max_rep_level <= c->max_def_level);
      CHECK(c->n_path >= 1 && c->element > 0 && c->element < m->n_schema);
    }
  }
  pq_schema_desc_reset(&tree);

  pq_schema_desc d;
  pq_schema_desc_init(&d);
  if (pq_schema_from_parquet(&d, m->schema, m->n_schema, "fuzz", &err) == 0) {
    bool named = true;
    for (int32_t i = 0; i < d.schema.n_fields; i++)
      if (!d.schema.fields[i].name[0]) named = false;
    pq_file_metadata w;
    pq_file_metadata_init(&w);
    pq_schema_desc wd, back;
    pq_schema_desc_init(&wd);
    pq_schema_desc_init(&back);
    rc = pq_schema_to_parquet(&w, &wd, &d.schema, &err);
    CHECK(rc == 0 || rc == INLET_ENOMEM || (rc == INLET_EINVAL && !named));
    if (rc == 0) {
      rc = pq_schema_from_parquet(&back, w.schema, w.n_schema, "fuzz", &err);
      CHECK(rc == 0 || rc == INLET_ENOMEM);
      if (rc == 0) CHECK(inlet_schema_equal(&back.schema, &d.schema));
    }
    pq_schema_desc_reset(&back);
    pq_schema_desc_reset(&wd);
    pq_file_metadata_reset(&w);
  }
  pq_schema_desc_reset(&d);
}

static void check_page_header(const uint8_t *data, size_t size) {
  pq_page_header h, h2;
  size_t used = 0, used2 = 0;
  inlet_error err = INLET_ERROR_INIT;
  if (pq_page_header_parse(&h, data, size, &used, &err) != 0) return;
  CHECK(used <= size);
  inlet_buf a = INLET_BUF_INIT, b = INLET_BUF_INIT;
  if (pq_page_header_serialize(&h, &a, &err) == 0) {
    CHECK(pq_page_header_parse(&h2, a.data, a.len, &used2, &err) == 0);
    CHECK(used2 == a.len);
    CHECK(pq_page_header_serialize(&h2, &b, &err) == 0);
    CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
  }
  inlet_buf_reset(&a);
  inlet_buf_reset(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  inlet_error err = INLET_ERROR_INIT;
  pq_file_metadata m;
  pq_file_metadata_init(&m);
  int rc = pq_file_metadata_parse(&m, data, size, "fuzz.parquet", &err);
  CHECK(rc == 0 || rc == INLET_ECORRUPT || rc == INLET_EUNSUPPORTED || rc == INLET_ENOMEM);
  CHECK(rc == 0 || err.message[0] != '\0');
  if (rc == 0) {
    check_metadata_roundtrip(&m);
    check_schema(&m);
  }
  pq_file_metadata_reset(&m);

  check_page_header(data, size);

  if (size >= 4 && memcmp(data, "PAR1", 4) == 0) {
    char name[] = "fuzz.parquet";
    mem_rfile f = {{&mem_ops, name, (int64_t)size}, data};
    rc = pq_footer_read(&m, &f.base, 1 << 20, &err);
    CHECK(rc == 0 || rc == INLET_ECORRUPT || rc == INLET_EUNSUPPORTED || rc == INLET_ELIMIT ||
          rc == INLET_ENOMEM);
    if (rc == 0) check_schema(&m);
    pq_file_metadata_reset(&m);
  }
  return 0;
}
