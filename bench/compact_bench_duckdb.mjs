// DuckDB side of the compaction benchmark (issue 6, bench): reads the small
// files listed in DIR/inputs.txt (the table's data files, written by inlet)
// and writes them as one Parquet file (SNAPPY, like inlet's default), with
// SET threads=1 (or --threads). Prints one JSON object: rows, wall and CPU seconds, rows/s,
// peak RSS of this Node process (it includes Node itself, ~50 MiB).
// CPU seconds are the process's (getrusage RUSAGE_SELF): every DuckDB thread.
//
//   node compact_bench_duckdb.mjs [--threads N|default] DIR
//        --threads (issue 18): DuckDB's threads, default 1; "default" leaves
//        DuckDB's own default (all cores), no SET
//   node compact_bench_duckdb.mjs --verify DIR   after inlet's compaction: the
//        table's new files (those not in inputs.txt) hold the same rows as
//        the inputs (count and sums of every column), checked by DuckDB
//
// @duckdb/node-api is loaded from $BENCH_NODE_MODULES (a directory holding
// node_modules/, e.g. the build tree's refcheck copy).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const args = process.argv.slice(2);
let threads = 1;
if (args[0] === '--threads') {
  threads = args[1] === 'default' ? 'default' : Number(args[1]);
  args.splice(0, 2);
  if (threads !== 'default' && !(Number.isInteger(threads) && threads >= 1)) {
    console.error('compact_bench_duckdb: bad --threads'); process.exit(2);
  }
}
const verify = args[0] === '--verify';
const dir = args[verify ? 1 : 0];
if (!dir) {
  console.error('usage: node compact_bench_duckdb.mjs [--threads N|default] [--verify] DIR'); process.exit(2);
}
const base = process.env.BENCH_NODE_MODULES || process.cwd();
const require = createRequire(path.join(path.resolve(base), 'package.json'));
const { DuckDBInstance } = await import(require.resolve('@duckdb/node-api'));

const files = fs.readFileSync(path.join(dir, 'inputs.txt'), 'utf8').split('\n').filter(Boolean);
const sqlList = fs_ => '[' + fs_.map(f => "'" + f.replace(/'/g, "''") + "'").join(',') + ']';
if (verify) {
  const inputs = new Set(files.map(f => path.resolve(f)));
  const tdir = path.join(dir, 't');
  const outs = fs.readdirSync(tdir).filter(f => f.endsWith('.parquet'))
    .map(f => path.resolve(tdir, f)).filter(f => !inputs.has(f));
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  const agg = async l => (await con.runAndReadAll(`SELECT count(*), sum(event_id), sum(strlen(user)),
    sum(amount)::DECIMAL(38,2), max(event_time)::VARCHAR FROM read_parquet(${sqlList(l)})`))
    .getRows()[0].map(String).join(',');
  const a = await agg(files), b = await agg(outs);
  console.log(JSON.stringify({ verify: a === b ? 'same rows' : 'MISMATCH', inputs: a, outputs: b,
    output_files: outs.length }));
  process.exit(a === b ? 0 : 1);
}
const out = path.join(dir, 'duckdb-out.parquet');
fs.rmSync(out, { force: true });
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
if (threads !== 'default') await con.run(`SET threads=${threads}`);
const threadsUsed = Number((await con.runAndReadAll("SELECT current_setting('threads')")).getRows()[0][0]);
const list = '[' + files.map(f => "'" + f.replace(/'/g, "''") + "'").join(',') + ']';
const t0 = process.hrtime.bigint();
const c0 = process.cpuUsage();
await con.run(`COPY (SELECT * FROM read_parquet(${list})) TO '${out}' (FORMAT parquet, COMPRESSION snappy)`);
const wall = Number(process.hrtime.bigint() - t0) / 1e9;
const cu = process.cpuUsage(c0);
const cpu = (cu.user + cu.system) / 1e6;
const r = await con.runAndReadAll(`SELECT count(*) AS n FROM read_parquet('${out}')`);
const rows = Number(r.getRows()[0][0]);
const rss = process.resourceUsage().maxRSS / 1024;
console.log(JSON.stringify({ engine: 'duckdb', threads, threads_used: threadsUsed, rows, files_in: files.length,
  bytes_out: fs.statSync(out).size, wall_s: +wall.toFixed(3), cpu_s: +cpu.toFixed(3),
  rows_per_s_wall: Math.round(rows / wall), rows_per_s_cpu: Math.round(rows / cpu),
  peak_rss_mib: +rss.toFixed(1) }));
