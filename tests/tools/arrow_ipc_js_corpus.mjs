import { createRequire } from 'module';
import fs from 'fs';
const require = createRequire('/work/wt-arrowipc/build/test/apachearrow/package.json');
const A = require('apache-arrow');
const t = A.tableFromArrays({
  id: Int32Array.from([1, 2, 3]),
  s: A.vectorFromArray(['a', null, 'ccc'], new A.Utf8()),
  l: A.vectorFromArray([[0.5, 1.5], null, []], new A.List(new A.Field('item', new A.Float64(), true))),
  st: A.vectorFromArray([{ x: 1n, y: true }, { x: null, y: false }, null],
    new A.Struct([new A.Field('x', new A.Int64(), true), new A.Field('y', new A.Bool(), true)])),
});
const out = process.argv[2];
fs.writeFileSync(out + '/js-stream', A.tableToIPC(t, 'stream'));
fs.writeFileSync(out + '/js-file', A.tableToIPC(t, 'file'));
