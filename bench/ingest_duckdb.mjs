// DuckDB side of the ingest benchmark (issue 5, "Operability", bench/):
// single-threaded (SET threads=1) read_ndjson of the same NDJSON file with the
// table's column types -> COPY TO parquet (snappy, inlet ingest's default
// codec), best of --repeat runs; then counts the rows of the written file.
// Prints one JSON line. DuckDB's COPY does not fsync and writes no log.
//
//   node ingest_duckdb.mjs --file F --out O [--repeat K] [--threads N]
// (--threads: DuckDB's threads, default 1; "default" leaves DuckDB's own default, all
//  cores (no SET); the process CPU time counts every thread)
//   node ingest_duckdb.mjs --verify TABLE O
//
// --verify compares inlet's table (its Parquet data files) with DuckDB's file O:
// row count, distinct event ids and sums of every column must agree; exit 1
// otherwise.
//
// @duckdb/node-api is loaded from $BENCH_NODE_MODULES (a directory holding
// node_modules/), else from beside this script or the working directory.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const PKG = '@duckdb/node-api';

function findDuckDB() {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const dirs = [process.env.BENCH_NODE_MODULES, here, process.cwd()].filter(Boolean);
  for (const d of dirs) {
    if (fs.existsSync(path.join(d, 'node_modules', PKG))) return path.resolve(d);
  }
  throw new Error(`cannot find node_modules/${PKG} in ${dirs.join(', ')}; set BENCH_NODE_MODULES`);
}

const o = { file: null, out: null, repeat: 1, verify: null, threads: 1 };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) {
  const [a, v] = [argv[i], argv[i + 1]];
  if (v === undefined) throw new Error(`${a} needs a value`);
  if (a === '--verify') { o.verify = v; o.out = argv[i + 2]; i++; continue; }
  if (a === '--file') o.file = v;
  else if (a === '--out') o.out = v;
  else if (a === '--repeat') o.repeat = Number(v);
  else if (a === '--threads') o.threads = v === 'default' ? v : Number(v); // issue 18: the thread dimension
  else throw new Error(`unknown option ${a}`);
}
if ((!o.file && !o.verify) || !o.out) throw new Error('--file and --out (or --verify TABLE O) are required');

const sqlStr = s => "'" + String(s).replace(/'/g, "''") + "'";
const seconds = t0 => Number(process.hrtime.bigint() - t0) / 1e9;
// The process CPU time (getrusage RUSAGE_SELF): the libuv thread the query
// runs on and every DuckDB worker thread (threads > 1).
const cpuSeconds = c0 => { const d = process.cpuUsage(c0); return (d.user + d.system) / 1e6; };

async function main() {
  const req = createRequire(path.join(findDuckDB(), 'package.json'));
  const duckdb = await import(pathToFileURL(req.resolve(PKG)).href);
  const inst = await duckdb.DuckDBInstance.create(':memory:');
  const con = await inst.connect();
  if (o.threads !== 'default') await con.run(`SET threads=${o.threads | 0 || 1}`);
  const threadsUsed = Number((await con.runAndReadAll("SELECT current_setting('threads')")).getRows()[0][0]);
  const version = (await con.runAndReadAll('SELECT version()')).getRows()[0][0];
  if (o.verify) {
    const agg = async src => (await con.runAndReadAll(`SELECT count(*)::BIGINT,
      count(DISTINCT event_id)::BIGINT, sum(event_id)::BIGINT,
      sum(round(amount * 100)::BIGINT)::HUGEINT::VARCHAR,
      sum(strlen("user"))::BIGINT, sum(epoch_us(event_time))::HUGEINT::VARCHAR FROM ${src}`))
      .getRows()[0].map(String);
    const inlet = await agg(`read_parquet(${sqlStr(path.join(o.verify, '*.parquet'))})`);
    const duck = await agg(`read_parquet(${sqlStr(o.out)})`);
    const same = JSON.stringify(inlet) === JSON.stringify(duck);
    process.stdout.write(JSON.stringify({ side: 'verify', same_rows: same, inlet, duckdb: duck }) + '\n');
    if (!same) process.exit(1);
    return;
  }
  const cols = `{'event_id': 'BIGINT', 'user': 'VARCHAR', 'amount': 'DOUBLE', 'event_time': 'TIMESTAMP'}`;
  const sql = `COPY (SELECT * FROM read_ndjson(${sqlStr(o.file)}, columns = ${cols}))
    TO ${sqlStr(o.out)} (FORMAT parquet, COMPRESSION snappy)`;
  let best = Infinity, bestCpu = Infinity;
  for (let k = 0; k < o.repeat; k++) {
    fs.rmSync(o.out, { force: true });
    const t0 = process.hrtime.bigint(), c0 = process.cpuUsage();
    await con.run(sql);
    best = Math.min(best, seconds(t0));
    bestCpu = Math.min(bestCpu, cpuSeconds(c0));
  }
  const rows = Number((await con.runAndReadAll(
    `SELECT count(*)::BIGINT FROM read_parquet(${sqlStr(o.out)})`)).getRows()[0][0]);
  const bytes = fs.statSync(o.file).size;
  process.stdout.write(JSON.stringify({ side: 'duckdb', op: 'read_ndjson_copy', version,
    threads: o.threads === 'default' ? 'default' : o.threads | 0 || 1, threads_used: threadsUsed, rows, bytes,
    seconds: +best.toFixed(3), cpu_seconds: +bestCpu.toFixed(3),
    rows_per_s_wall: Math.round(rows / best), rows_per_s_cpu: Math.round(rows / bestCpu),
    mb_per_s_wall: +(bytes / 1e6 / best).toFixed(1), mb_per_s_cpu: +(bytes / 1e6 / bestCpu).toFixed(1),
    out_bytes: fs.statSync(o.out).size, max_rss_kb: process.resourceUsage().maxRSS }) + '\n');
}

main().catch(e => {
  process.stderr.write(`ingest_duckdb: ${e.message}\n`);
  process.exit(1);
});
