// DuckDB side of the deletion vector benchmark (issue 16, "Proof"). DuckDB
// has no DELETE on a Delta table (its delta extension reads only), so the
// comparison is the copy-on-write a Parquet user would do: read the table's
// data files (the list bench/dv_bench.c wrote, the same rows inlet deletes
// from) and write every row the predicate does not make TRUE to one new
// Parquet file (SNAPPY, like inlet's default), with SET threads=1:
//
//   COPY (SELECT * FROM read_parquet([...]) WHERE (PRED) IS NOT TRUE)
//     TO 'out.parquet' (FORMAT parquet, COMPRESSION snappy)
//
// (IS NOT TRUE keeps the rows PRED makes NULL, as DELETE does.) Prints one
// JSON line: rows kept, wall and CPU seconds, peak RSS of this Node process
// (Node itself included, ~50 MiB).
//
//   BENCH_NODE_MODULES=<dir with node_modules> node dv_bench.mjs files.txt "<pred>" OUT
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const [listFile, pred, out] = process.argv.slice(2);
if (!out) {
  console.error('usage: node dv_bench.mjs files.txt "<pred>" OUT');
  process.exit(2);
}
const base = process.env.BENCH_NODE_MODULES || process.cwd();
const req = createRequire(path.join(path.resolve(base), 'package.json'));
const duck = await import(pathToFileURL(req.resolve('@duckdb/node-api')).href);
const inst = await duck.DuckDBInstance.create(':memory:');
const con = await inst.connect();
await con.run("SET threads=1; SET TimeZone='UTC'");
const files = fs.readFileSync(listFile, 'utf8').split('\n').filter(Boolean);
const list = '[' + files.map((f) => `'${f.replaceAll("'", "''")}'`).join(', ') + ']';
fs.rmSync(out, { force: true });
const c0 = process.cpuUsage();
const t0 = process.hrtime.bigint();
await con.run(`COPY (SELECT * FROM read_parquet(${list}) WHERE (${pred}) IS NOT TRUE)
               TO '${out.replaceAll("'", "''")}' (FORMAT parquet, COMPRESSION snappy)`);
const wall = Number(process.hrtime.bigint() - t0) / 1e9;
const cu = process.cpuUsage(c0);
const cpu = (cu.user + cu.system) / 1e6;
const r = await con.runAndReadAll(`SELECT count(*), sum(event_id) FROM read_parquet('${out.replaceAll("'", "''")}')`);
const [rows, sumId] = r.getRows()[0].map((v) => String(v));
process.stdout.write(JSON.stringify({
  engine: 'duckdb', files_in: files.length, rows_kept: Number(rows), sum_event_id: sumId,
  bytes_out: fs.statSync(out).size, wall_s: +wall.toFixed(4), cpu_s: +cpu.toFixed(4),
  peak_rss_mib: +(process.resourceUsage().maxRSS / 1024).toFixed(1),
}) + '\n');
