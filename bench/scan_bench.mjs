// DuckDB side of the scan benchmark (issue 7, "Proof"): the same selective
// event-time range query as bench/scan_bench.c, single-threaded
// (SET threads=1), over read_parquet of the table's live files (the list
// scan_bench wrote), folding the same columns into the same checksum.
// Best of K runs; prints one JSON line.
//
//   BENCH_NODE_MODULES=<dir with node_modules> node scan_bench.mjs files.txt "<where>" [K]
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const [listFile, where, repeatArg] = process.argv.slice(2);
const base = process.env.BENCH_NODE_MODULES;
const req = createRequire(path.join(path.resolve(base), 'package.json'));
const duck = await import(pathToFileURL(req.resolve('@duckdb/node-api')).href);
const inst = await duck.DuckDBInstance.create(':memory:');
const con = await inst.connect();
await con.run("SET threads=1; SET TimeZone='UTC'");
const files = fs.readFileSync(listFile, 'utf8').split('\n').filter(Boolean);
const list = files.map((f) => `'${f.replaceAll("'", "''")}'`).join(', ');
const sql = `SELECT count(*), sum(event_id), round(sum(amount), 2), sum(length("user"))
             FROM read_parquet([${list}]) WHERE ${where}`;
const repeat = Number(repeatArg || 3);
let best = Infinity, bestCpu = Infinity, row = null;
for (let k = 0; k < repeat; k++) {
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const r = await con.runAndReadAll(sql);
  const dt = Number(process.hrtime.bigint() - t0) / 1e9;
  const c = process.cpuUsage(c0);
  best = Math.min(best, dt);
  bestCpu = Math.min(bestCpu, (c.user + c.system) / 1e6);
  row = r.getRows()[0].map((v) => String(v));
}
process.stdout.write(JSON.stringify({
  engine: 'duckdb', files: files.length, seconds: best, cpu_seconds: bestCpu,
  count: row[0], sum_event_id: row[1], sum_amount: row[2], sum_user_len: row[3],
}) + '\n');
