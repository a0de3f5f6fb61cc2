// The thread dimension's table (issue 18, "Proof"), printed by
// `node report.mjs --threads results.jsonl` at the end of scripts/bench.sh.
//
// Reads the "dim":"threads" lines that scripts/bench.sh, bench/duckdb_side.mjs,
// bench/ingest_bench.sh and bench/compact_bench.sh write: one per side,
// operation and thread setting (a count, or "default" for DuckDB's own
// default), each with wall and process CPU seconds (all threads) and the load
// average read just before it. Prints, as markdown, one row per operation and
// thread count: inlet against DuckDB at the same threads and at its default,
// wall and CPU-time ratios (DuckDB seconds / inlet seconds: above 1 inlet is
// faster), the targets met or missed (on wall time, as the
// single-thread table); then each side's scaling from 1 thread to the others.
// With BENCH_STRICT=1 a missed target sets exit status 1.
import fs from 'node:fs';

const OPS = [
  { key: 'write/zstd', label: 'Parquet write, zstd', same: 2.5, dflt: 2 },
  { key: 'write/snappy', label: 'Parquet write, snappy', same: 2.5, dflt: 2 },
  { key: 'scan/zstd', label: 'Parquet full scan, zstd file', same: 1.5, dflt: 1.5 },
  { key: 'scan/snappy', label: 'Parquet full scan, snappy file', same: 1.5, dflt: 1.5 },
  { key: 'ingest/', label: 'NDJSON -> table ingest', same: 2.5, dflt: 2 },
  { key: 'compact/', label: 'compaction 1000 small files -> 1', same: 2, dflt: 2 },
];
const SCALING_TARGET = 1.7; // 1 -> 2 threads

const x = v => (Number.isFinite(v) ? v.toFixed(2) + 'x' : '-');
const mrows = r => (r ? (r.rows / r.seconds / 1e6).toFixed(2) : 'failed');
const verdict = (v, target) => (Number.isFinite(v) ? (v >= target ? 'met' : '**missed**') : '-');

export function report(file) {
  const recs = fs.readFileSync(file, 'utf8').split('\n').filter(l => l.trim()).map(l => JSON.parse(l))
    .filter(r => r.dim === 'threads');
  const keyOf = r => `${r.op}/${r.codec || ''}`;
  const get = (side, key, threads) => recs.find(r => r.side === side && keyOf(r) === key && r.threads === threads);
  const counts = [...new Set(recs.filter(r => r.side === 'inlet').map(r => r.threads))].sort((a, b) => a - b);
  const meta = JSON.parse(process.env.BENCH_META || '{}');
  const version = (recs.find(r => r.version) || {}).version || '?';
  const dflt = recs.find(r => r.side === 'duckdb' && r.threads === 'default');
  const dfltThreads = dflt ? dflt.threads_used : '?';
  let missed = 0;
  const check = (v, t) => { if (Number.isFinite(v) && v < t) missed++; return verdict(v, t); };

  console.log(`Thread dimension (issue 18): inlet at threads ${counts.join(', ')}; DuckDB ${version} at the same ` +
    `and at its default (${dfltThreads} threads here); ${(meta.rows || 0).toLocaleString('en-US')} rows, ` +
    `best of ${meta.repeat || 1} (ingest: of ${meta.ingestRepeat || meta.repeat || 1})`);
  console.log('');
  console.log('| operation | threads | inlet Mrows/s | DuckDB same Mrows/s | wall ratio | CPU ratio | target | verdict ' +
    `| DuckDB default (${dfltThreads}) Mrows/s | wall ratio | CPU ratio | target | verdict | load before (inlet; DuckDB same; default) |`);
  console.log('|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---|---|');
  for (const op of OPS) {
    for (const t of counts) {
      const i = get('inlet', op.key, t), d = get('duckdb', op.key, t), dd = get('duckdb', op.key, 'default');
      if (!i && !d) continue;
      const w = (a, b) => (a && b ? a.seconds / b.seconds : NaN);
      const c = (a, b) => (a && b && b.cpu_seconds > 0 ? a.cpu_seconds / b.cpu_seconds : NaN);
      const load = r => (r && r.load_before ? r.load_before.split(' ')[0] : '?');
      console.log(`| ${op.label} | ${t} | ${mrows(i)} | ${mrows(d)} | ${x(w(d, i))} | ${x(c(d, i))} | ` +
        `>=${op.same} | ${check(w(d, i), op.same)} | ${mrows(dd)} | ${x(w(dd, i))} | ${x(c(dd, i))} | ` +
        `>=${op.dflt} | ${check(w(dd, i), op.dflt)} | ${load(i)}; ${load(d)}; ${load(dd)} |`);
    }
  }
  console.log('');
  console.log('Scaling from 1 thread (wall seconds at 1 / wall seconds at N; CPU: CPU seconds at N / at 1):');
  console.log('');
  console.log('| operation | threads | inlet wall scaling | inlet CPU growth | DuckDB wall scaling | DuckDB CPU growth ' +
    '| target (inlet, 1 -> 2) | verdict |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---|');
  for (const op of OPS) {
    const i1 = get('inlet', op.key, 1), d1 = get('duckdb', op.key, 1);
    for (const t of counts.filter(n => n !== 1)) {
      const i = get('inlet', op.key, t), d = get('duckdb', op.key, t);
      if (!i && !d) continue;
      const sc = (a, b) => (a && b ? a.seconds / b.seconds : NaN);
      const cg = (a, b) => (a && b && a.cpu_seconds > 0 ? b.cpu_seconds / a.cpu_seconds : NaN);
      const v = t === 2 ? check(sc(i1, i), SCALING_TARGET) : '(target is for 2)';
      console.log(`| ${op.label} | 1 -> ${t} | ${x(sc(i1, i))} | ${x(cg(i1, i))} | ${x(sc(d1, d))} | ` +
        `${x(cg(d1, d))} | >=${SCALING_TARGET} | ${v} |`);
    }
  }
  console.log('');
  if (meta.loadStart) {
    console.log(`machine: ${meta.cpus} CPUs; load average (1/5/15 min) ${meta.loadStart} at the start of the run, ` +
      `${meta.loadEnd} at the end; the per-row load is the 1-minute figure read just before that measurement.`);
  }
  console.log('notes: ratios are DuckDB seconds / inlet seconds for the same rows (above 1: inlet faster); CPU is');
  console.log('       process CPU time (user + system, every thread). Verdicts use wall time. inlet writes,');
  console.log('       ingest and compaction fsync their files (and commit to the Delta log); DuckDB does not.');
  console.log('       Scans read the one-thread files of each engine; inlet scans a file with one reader per');
  console.log('       thread taking row groups in turn (bench/parquet_bench.c). A file inlet writes at N');
  console.log('       threads is checked byte for byte against the one-thread file (cmp).');
  if (missed) console.log(`\n${missed} thread-dimension target(s) missed.`);
  if (missed && process.env.BENCH_STRICT === '1') process.exitCode = 1;
}
