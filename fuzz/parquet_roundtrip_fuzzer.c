/*
 * libFuzzer harness: Parquet write -> read round trip (issue 2, section 5
 * "Proof"; zstd-style round-trip fuzzing).
 *
 * The input bytes are the choices of tests/unit/parquet/roundtrip_engine.h:
 * they pick a flat schema (every writable type), rows with boundary values and
 * null patterns, and writer options (codecs, dictionary on/off, tiny page, row
 * group and dictionary limits). The harness writes the rows through the public
 * API, reads them back, compares bit for bit and aborts on any difference or
 * on any error from the writer or reader, since every derived case is valid.
 *
 * The file goes to $INLET_FUZZ_TMPDIR, else /dev/shm, else /tmp.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../tests/unit/parquet/roundtrip_engine.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *scratch_path(void) {
  static char path[4096];
  if (path[0]) return path;
  const char *dir = getenv("INLET_FUZZ_TMPDIR");
  if (!dir || !*dir) dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  snprintf(path, sizeof path, "%s/inlet_rt_fuzz_%ld.parquet", dir, (long)getpid());
  return path;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rt_src s;
  rt_src_bytes(&s, data, size);
  /* Small enough that each input runs in milliseconds; the property test
   * covers bigger shapes. */
  rt_limits lim = {.max_cols = 4, .max_rows = 800, .max_batches = 3, .huge_strings = 0};
  rt_case c;
  inlet_error err = INLET_ERROR_INIT;
  if (rt_gen_case(&s, &lim, &c, &err) != 0) { /* only out of memory */
    rt_case_reset(&c);
    return 0;
  }
  const char *path = scratch_path();
  char msg[2048];
  int rc = rt_roundtrip(&s, &c, path, msg, sizeof msg);
  rt_case_reset(&c);
  remove(path);
  if (rc) {
    fprintf(stderr, "parquet round trip failed: %s\n", msg);
    abort();
  }
  return 0;
}
