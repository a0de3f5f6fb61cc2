/*
 * libFuzzer harness: Arrow IPC (issue 19: the hand-written flatbuffers must
 * be fuzzed). Each input is used twice:
 *   1. as Arrow IPC bytes, handed to the verifying reader (scan/arrow_ipc.h),
 *      which must fail cleanly or return batches whose every value formats;
 *      the seed corpus holds streams and files inlet wrote and ones the
 *      Apache Arrow JavaScript implementation wrote
 *      (tests/tools/arrow_ipc_js_corpus.mjs);
 *   2. as the choices of tests/unit/scan/arrow_ipc_engine.h: a random
 *      schema (every type, nesting, nullability) and batches go through the
 *      writer (stream or file, none/LZ4_FRAME/ZSTD) and must read back
 *      equal; mutated copies of that output go to the reader again.
 * Any difference aborts.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../tests/unit/scan/arrow_ipc_engine.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  inlet_arrow_ipc_read rd;
  inlet_error err = INLET_ERROR_INIT;
  if (inlet_arrow_ipc_read_all(&rd, data, size, &err) == 0) aie_touch(&rd);
  inlet_arrow_ipc_read_reset(&rd);

  aie_src s;
  aie_src_init(&s, data, size, size);
  char msg[2048];
  if (aie_roundtrip(&s, msg, sizeof msg) != 0) {
    fprintf(stderr, "arrow ipc round trip failed: %s\n", msg);
    abort();
  }
  return 0;
}
