// Writes fuzz/corpus/arrow_ipc_fuzzer/js-stream and js-file: a small table
// (int32, utf8 with a null, list<double>, struct<int64, bool> with a null)
// written by the Apache Arrow JavaScript implementation, which
// tests/unit/scan/test_arrow_ipc_roundtrip.c reads to known values.
//   node tests/tools/arrow_ipc_js_corpus.mjs BUILD/apachearrow fuzz/corpus/arrow_ipc_fuzzer
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
const require = createRequire(path.join(path.resolve(process.argv[2]), 'package.json'));
const A = require('apache-arrow');
const t = A.tableFromArrays({
  id: Int32Array.from([1, 2, 3]),
  s: A.vectorFromArray(['a', null, 'ccc'], new A.Utf8()),
  l: A.vectorFromArray([[0.5, 1.5], null, []], new A.List(new A.Field('item', new A.Float64(), true))),
  st: A.vectorFromArray([{ x: 1n, y: true }, { x: null, y: false }, null],
    new A.Struct([new A.Field('x', new A.Int64(), true), new A.Field('y', new A.Bool(), true)])),
});
const out = process.argv[3];
fs.writeFileSync(out + '/js-stream', A.tableToIPC(t, 'stream'));
fs.writeFileSync(out + '/js-file', A.tableToIPC(t, 'file'));
