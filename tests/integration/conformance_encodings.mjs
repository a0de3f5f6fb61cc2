// conformance_encodings.mjs -- DuckDB's reading of the encodings of every column
// chunk of the Parquet files named on the command line (for
// test_conformance_encodings.c). Prints one line per file and column chunk:
//   <file>\t<row group>\t<column path>\t<ENC,ENC,...>
// from parquet_metadata(), then "rows\t<file>\t<n>" from a full read of the
// file (every column), so a file DuckDB cannot decode fails the script.
//
//   REFCHECK_NODE_MODULES=<dir with node_modules> node conformance_encodings.mjs F...
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const files = process.argv.slice(2);
const base = process.env.REFCHECK_NODE_MODULES;
const req = createRequire(path.join(path.resolve(base), 'package.json'));
const duck = await import(pathToFileURL(req.resolve('@duckdb/node-api')).href);
const inst = await duck.DuckDBInstance.create(':memory:');
const con = await inst.connect();
await con.run('SET threads=1');
const quote = (s) => `'${String(s).replaceAll("'", "''")}'`;
const out = [];
for (const f of files) {
  const r = await con.runAndReadAll(
    `SELECT row_group_id, path_in_schema, encodings FROM parquet_metadata(${quote(f)}) ` +
    'ORDER BY row_group_id, column_id');
  for (const [rg, col, encs] of r.getRows()) {
    const list = String(encs).split(',').map((e) => e.trim()).filter((e) => e);
    out.push(`${f}\t${rg}\t${col}\t${list.join(',')}`);
  }
  // Decode every value: a hash over all columns cast to text.
  const n = await con.runAndReadAll(
    `SELECT count(*), sum(hash(t::VARCHAR)) FROM read_parquet(${quote(f)}) t`);
  out.push(`rows\t${f}\t${String(n.getRows()[0][0])}`);
}
process.stdout.write(out.join('\n') + '\n');
