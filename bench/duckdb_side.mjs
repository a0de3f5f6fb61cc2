// DuckDB side of the Parquet benchmark (issue 2, section 5 "Proof", bench).
//
// Builds the same seed-shaped events as bench/parquet_bench.c (same formulas,
// so identical values) in a DuckDB temp table, untimed; then, single-threaded
// (SET threads=1), times COPY ... TO parquet with ZSTD and SNAPPY at the given
// ROW_GROUP_SIZE, and with DuckDB's default writer settings (for the size
// comparison), and times a full scan of each file with a query that touches
// every column. It can also just scan other files (--scan), which
// scripts/bench.sh uses to check inlet's files hold the same values.
//
// Prints one JSON object per line. DuckDB's COPY does not fsync the file.
//
//   node duckdb_side.mjs --rows N --row-group-rows R --dir D [--repeat K]
//                        [--threads N|default] [--threads-list "1 2 default"]
//   node duckdb_side.mjs --scan F...
//
// --threads: DuckDB's threads for the runs above (default 1, what the
// single-thread table compares); "default" is DuckDB's own default, no SET.
//
// --threads-list (issue 18, the thread dimension): after the single-threaded
// runs above, which print what they always printed (plus "threads":1), the
// ZSTD and SNAPPY writes and the scans of the threads=1 files are timed again
// at each listed thread count; "default" is DuckDB's own default (RESET
// threads: all cores), not a SET. Those lines carry "dim":"threads" (a count
// of 1 reuses the single-threaded runs), the setting, the threads DuckDB
// actually used and the load average read just before the measurement.
//
// @duckdb/node-api is loaded from $BENCH_NODE_MODULES (a directory holding
// node_modules/, e.g. an `npm ci` copy of ../shared/tools/refcheck), else from
// beside this script or the working directory.
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

function parseArgs(argv) {
  const o = { rows: 10000000, rowGroupRows: 122880, dir: null, repeat: 1, scan: null, threads: 1, threadsList: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--scan') { o.scan = argv.slice(i + 1); break; }
    const v = argv[++i];
    if (v === undefined) throw new Error(`${a} needs a value`);
    if (a === '--rows') o.rows = Number(v);
    else if (a === '--row-group-rows') o.rowGroupRows = Number(v);
    else if (a === '--dir') o.dir = v;
    else if (a === '--repeat') o.repeat = Number(v);
    else if (a === '--threads') {
      o.threads = v === 'default' ? v : Number(v);
      if (o.threads !== 'default' && !(Number.isInteger(o.threads) && o.threads >= 1)) {
        throw new Error(`bad --threads ${v}`);
      }
    } else if (a === '--threads-list') {
      o.threadsList = v.split(/[\s,]+/).filter(Boolean).map(t => (t === 'default' ? t : Number(t)));
      if (o.threadsList.some(t => t !== 'default' && !(Number.isInteger(t) && t >= 1))) {
        throw new Error(`bad --threads-list ${v}`);
      }
    }
    else throw new Error(`unknown option ${a}`);
  }
  for (const k of ['rows', 'rowGroupRows', 'repeat']) {
    if (!Number.isInteger(o[k]) || o[k] < 1) throw new Error(`bad --${k}`);
  }
  if (!o.scan && !o.dir) throw new Error('--dir is required');
  return o;
}

const sqlStr = s => "'" + String(s).replace(/'/g, "''") + "'";
const seconds = t0 => Number(process.hrtime.bigint() - t0) / 1e9;
// Process CPU time (user + system) since @p c0, in seconds: less sensitive to
// other jobs on a shared machine than wall time. It is getrusage(RUSAGE_SELF):
// every thread of the process, so DuckDB's own worker threads (threads > 1)
// are counted beside the libuv thread the query runs on.
const cpuSeconds = c0 => { const d = process.cpuUsage(c0); return (d.user + d.system) / 1e6; };
const maxRssKb = () => process.resourceUsage().maxRSS;
const emit = o => process.stdout.write(JSON.stringify(o) + '\n');
const loadAvg = () => {
  try { return fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '); } catch { return '?'; }
};

// Row i, with h = (i * 2654435761) mod 2^32 — the formulas of parquet_bench.c.
function genSql(rows) {
  return `CREATE OR REPLACE TEMP TABLE ev AS
    SELECT i AS event_id,
           'user_' || ((h >> 8) % 1000)::VARCHAR AS "user",
           ((h >> 4) % 1000000)::DOUBLE / 100::DOUBLE AS amount,
           make_timestamp(1700000000000000 + i * 1000 + h % 1000) AS event_time
    FROM (SELECT i, (i * 2654435761) % 4294967296 AS h FROM range(${rows}) t(i))
    ORDER BY event_id`;
}

// Touches every column; strlen forces every string to be decoded.
const scanSql = f => `SELECT count(*)::BIGINT, sum(amount), sum(event_id)::BIGINT,
  sum(strlen("user"))::BIGINT, epoch_us(max(event_time))::BIGINT
  FROM read_parquet(${sqlStr(f)})`;

async function scan(con, file, repeat, extra = {}) {
  const load_before = loadAvg();
  let best = Infinity, bestCpu = Infinity, row = null;
  for (let k = 0; k < repeat; k++) {
    const t0 = process.hrtime.bigint(), c0 = process.cpuUsage();
    const r = await con.runAndReadAll(scanSql(file));
    best = Math.min(best, seconds(t0));
    bestCpu = Math.min(bestCpu, cpuSeconds(c0));
    row = r.getRows()[0];
  }
  const rec = { side: 'duckdb', op: 'scan', file, threads: 1, ...extra, rows: Number(row[0]), seconds: best,
    cpu_seconds: bestCpu, sum_amount: Number(row[1]).toFixed(2), sum_event_id: String(row[2]),
    sum_user_len: String(row[3]), max_event_time: String(row[4]), max_rss_kb: maxRssKb(), load_before };
  emit(rec);
  return rec;
}

// The threads DuckDB runs with now.
const currentThreads = async con =>
  Number((await con.runAndReadAll("SELECT current_setting('threads')")).getRows()[0][0]);

// COPY ev TO file, best of repeat; returns { seconds, cpu_seconds, load_before }.
async function timedCopy(con, file, opts, repeat) {
  const load_before = loadAvg();
  let best = Infinity, bestCpu = Infinity;
  for (let k = 0; k < repeat; k++) {
    fs.rmSync(file, { force: true });
    const t0 = process.hrtime.bigint(), c0 = process.cpuUsage();
    await con.run(`COPY ev TO ${sqlStr(file)} (FORMAT parquet${opts ? ', ' + opts : ''})`);
    best = Math.min(best, seconds(t0));
    bestCpu = Math.min(bestCpu, cpuSeconds(c0));
  }
  return { seconds: best, cpu_seconds: bestCpu, load_before };
}

async function fileInfo(con, file) {
  const r = await con.runAndReadAll(`SELECT count(DISTINCT row_group_id)::BIGINT,
    string_agg(DISTINCT compression, ',') FROM parquet_metadata(${sqlStr(file)})`);
  const [rg, codecs] = r.getRows()[0];
  return { row_groups: Number(rg), codecs };
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const req = createRequire(path.join(findDuckDB(), 'package.json'));
  const duckdb = await import(pathToFileURL(req.resolve(PKG)).href);
  const inst = await duckdb.DuckDBInstance.create(':memory:');
  const con = await inst.connect();
  const defaultThreads = await currentThreads(con);
  if (o.threads !== 'default') await con.run(`SET threads=${o.threads}`);
  const version = (await con.runAndReadAll('SELECT version()')).getRows()[0][0];

  if (o.scan) {
    for (const f of o.scan) await scan(con, f, 1, { threads: o.threads });
    return;
  }
  fs.mkdirSync(o.dir, { recursive: true });
  let t0 = process.hrtime.bigint();
  await con.run(genSql(o.rows));
  emit({ side: 'duckdb', op: 'generate', version, rows: o.rows, seconds: seconds(t0),
    default_threads: defaultThreads });

  const runs = [
    { codec: 'zstd', opts: `COMPRESSION zstd, ROW_GROUP_SIZE ${o.rowGroupRows}`, defaults: false },
    { codec: 'snappy', opts: `COMPRESSION snappy, ROW_GROUP_SIZE ${o.rowGroupRows}`, defaults: false },
    { codec: 'default', opts: '', defaults: true },
  ];
  const dim = { dim: 'threads', side: 'duckdb', version, default_threads: defaultThreads };
  // A list with 1 reuses the single-threaded runs.
  const one = o.threads === 1 && o.threadsList.includes(1);
  for (const run of runs) {
    const file = path.join(o.dir, `duckdb_${run.codec}.parquet`);
    const t = await timedCopy(con, file, run.opts, o.repeat);
    emit({ side: 'duckdb', op: 'write', codec: run.codec, defaults: run.defaults, threads: o.threads, rows: o.rows,
      seconds: t.seconds, cpu_seconds: t.cpu_seconds, bytes: fs.statSync(file).size,
      ...(await fileInfo(con, file)), max_rss_kb: maxRssKb(), load_before: t.load_before });
    if (run.defaults) continue;
    if (one) emit({ ...dim, op: 'write', codec: run.codec, threads: 1, threads_used: 1, rows: o.rows, ...t });
    const s = await scan(con, file, o.repeat, { threads: o.threads });
    if (one) {
      emit({ ...dim, op: 'scan', codec: run.codec, file, threads: 1, threads_used: 1, rows: s.rows,
        seconds: s.seconds, cpu_seconds: s.cpu_seconds, load_before: s.load_before, sum_amount: s.sum_amount,
        sum_event_id: s.sum_event_id, sum_user_len: s.sum_user_len, max_event_time: s.max_event_time });
    }
  }
  // The thread dimension: the same writes at each other setting, and scans of
  // the threads=1 files (the same bytes to read at every setting).
  for (const threads of o.threadsList) {
    if (threads === 1 && one) continue;
    await con.run(threads === 'default' ? 'RESET threads' : `SET threads=${threads}`);
    const used = await currentThreads(con);
    for (const run of runs.filter(r => !r.defaults)) {
      const file = path.join(o.dir, `duckdb_${run.codec}_t${threads}.parquet`);
      const t = await timedCopy(con, file, run.opts, o.repeat);
      emit({ ...dim, op: 'write', codec: run.codec, threads, threads_used: used, rows: o.rows, ...t,
        bytes: fs.statSync(file).size });
      fs.rmSync(file, { force: true });
      await scan(con, path.join(o.dir, `duckdb_${run.codec}.parquet`), o.repeat,
        { ...dim, codec: run.codec, threads, threads_used: used });
    }
  }
}

main().catch(e => {
  process.stderr.write(`duckdb_side: ${e.message}\n`);
  process.exit(1);
});
