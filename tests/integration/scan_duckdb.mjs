// scan_duckdb.mjs -- DuckDB's answer to `inlet scan --where` predicates, for
// test_scan_duckdb.c. Loads the rows `refcheck delta` printed for a table
// into an in-memory DuckDB table (typed from column_types) and prints, for
// each predicate line, the sorted `id` values of the matching rows
// ("ids: 1,5,9") or "error: <message>".
//
//   REFCHECK_NODE_MODULES=<dir with node_modules> node scan_duckdb.mjs rows.json preds.txt
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const [rowsFile, predsFile] = process.argv.slice(2);
const base = process.env.REFCHECK_NODE_MODULES;
const req = createRequire(path.join(path.resolve(base), 'package.json'));
const duck = await import(pathToFileURL(req.resolve('@duckdb/node-api')).href);
const inst = await duck.DuckDBInstance.create(':memory:');
const con = await inst.connect();
await con.run("SET threads=1; SET TimeZone='UTC'");

const doc = JSON.parse(fs.readFileSync(rowsFile, 'utf8'));
const typeMap = (t) => {
  if (t === 'long') return 'BIGINT';
  if (t === 'integer') return 'INTEGER';
  if (t === 'string') return 'VARCHAR';
  if (t === 'double') return 'DOUBLE';
  if (t === 'boolean') return 'BOOLEAN';
  if (t === 'date') return 'DATE';
  if (t === 'timestamp') return 'TIMESTAMPTZ';
  if (t.startsWith('decimal')) return t.toUpperCase();
  throw new Error(`unexpected column type ${t}`);
};
const quote = (s) => `'${String(s).replaceAll("'", "''")}'`;
const cols = doc.columns.map((c, i) => `"${c}" ${typeMap(doc.column_types[i])}`);
await con.run(`CREATE TABLE t (${cols.join(', ')})`);
const lit = (v, t) => (v === null ? 'NULL' : `CAST(${quote(typeof v === 'string' ? v : JSON.stringify(v))} AS ${typeMap(t)})`);
for (let i = 0; i < doc.rows.length; i += 500) {
  const chunk = doc.rows.slice(i, i + 500)
    .map((r) => `(${r.map((v, k) => lit(v, doc.column_types[k])).join(', ')})`);
  await con.run(`INSERT INTO t VALUES ${chunk.join(', ')}`);
}
const out = [];
for (const p of fs.readFileSync(predsFile, 'utf8').split('\n')) {
  if (!p) continue;
  try {
    const r = await con.runAndReadAll(`SELECT id FROM t WHERE ${p} ORDER BY id`);
    out.push('ids: ' + r.getRows().map((x) => String(x[0])).join(','));
  } catch (e) {
    out.push('error: ' + String(e.message).split('\n')[0]);
  }
}
process.stdout.write(out.join('\n') + '\n');
