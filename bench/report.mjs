// Prints the benchmark table (issue 2, section 5 "Proof", bench targets).
//
// Reads the JSON lines written by bench/parquet_bench.c and
// bench/duckdb_side.mjs (as collected by scripts/bench.sh), prints rows/s of
// each side, inlet/DuckDB ratios against the targets, file sizes, peak RSS,
// and checks that every scan of the same rows produced the same checksums.
// Exits 1 when a checksum disagrees, or, with BENCH_STRICT=1, when a target
// is missed.
//
//   node report.mjs results.jsonl
//   node report.mjs --threads results.jsonl   the thread dimension (issue 18):
//        the "dim":"threads" lines of the same file, see threads_report below
import fs from 'node:fs';

if (process.argv[2] === '--threads') {
  await import('./threads_report.mjs').then(m => m.report(process.argv[3]));
  process.exit(process.exitCode || 0);
}

const TARGET = { write: 1.5, scan: 1.0, size: 1.05 };
const lines = fs.readFileSync(process.argv[2], 'utf8').split('\n').filter(l => l.trim());
const all = lines.map(l => JSON.parse(l));
// The single-thread table reads the one-thread records only; the thread
// dimension's scans still count for the checksums below.
const recs = all.filter(r => !r.dim);
const find = (side, op, codec, extra = {}) => recs.find(r => r.side === side && r.op === op &&
  (codec === undefined || r.codec === codec) &&
  Object.entries(extra).every(([k, v]) => r[k] === v));
const scanOf = (side, file) => recs.find(r => r.side === side && r.op === 'scan' && r.file === file);

const fmtInt = n => Math.round(n).toLocaleString('en-US');
const fmtMiB = kb => (kb / 1024).toFixed(0) + ' MiB';
const pad = (s, n) => String(s).padStart(n);
const padr = (s, n) => String(s).padEnd(n);

let missed = 0, bad = 0;
const gen = find('duckdb', 'generate');
const anyWrite = find('inlet', 'write');
const rows = anyWrite ? anyWrite.rows : gen ? gen.rows : 0;
const meta = JSON.parse(process.env.BENCH_META || '{}');

console.log(`Parquet benchmark: ${fmtInt(rows)} seed-shaped events, single thread, ` +
  `row group ${fmtInt(meta.rowGroupRows || 0)} rows, best of ${meta.repeat || 1}; ` +
  `DuckDB ${gen ? gen.version : '?'}`);
console.log('');
console.log(`${padr('codec', 8)}${padr('op', 7)}${pad('inlet rows/s', 14)}${pad('DuckDB rows/s', 15)}` +
  `${pad('inlet/DuckDB', 14)}${pad('target', 8)}  verdict${pad('CPU-time ratio', 17)}`);
for (const codec of ['zstd', 'snappy']) {
  for (const op of ['write', 'scan']) {
    const i = op === 'write' ? find('inlet', 'write', codec, { defaults: false, encodings: 'compatible' })
      : find('inlet', 'scan', undefined, { codec });
    const d = op === 'write' ? find('duckdb', 'write', codec)
      : recs.find(r => r.side === 'duckdb' && r.op === 'scan' && r.file.endsWith(`duckdb_${codec}.parquet`));
    const ir = i ? i.rows / i.seconds : NaN, dr = d ? d.rows / d.seconds : NaN;
    const ratio = ir / dr;
    const ok = ratio >= TARGET[op];
    if (!ok) missed++;
    const cpuRatio = i && d && i.cpu_seconds > 0 ? d.cpu_seconds / i.cpu_seconds : NaN;
    console.log(`${padr(codec, 8)}${padr(op, 7)}${pad(i ? fmtInt(ir) : 'failed', 14)}` +
      `${pad(d ? fmtInt(dr) : 'failed', 15)}${pad(Number.isFinite(ratio) ? ratio.toFixed(2) + 'x' : '-', 14)}` +
      `${pad('>=' + TARGET[op].toFixed(2), 8)}  ${ok ? 'met   ' : 'MISSED'}` +
      `${pad(Number.isFinite(cpuRatio) ? cpuRatio.toFixed(2) + 'x' : '-', 17)}`);
  }
}

console.log('');
console.log(`${padr('file', 34)}${pad('inlet bytes', 14)}${pad('DuckDB bytes', 14)}${pad('ratio', 8)}` +
  `${pad('target', 8)}  verdict`);
const sizeRows = [
  ['zstd, same row groups', find('inlet', 'write', 'zstd', { defaults: false, encodings: 'compatible' }), find('duckdb', 'write', 'zstd')],
  ['snappy, same row groups', find('inlet', 'write', 'snappy', { defaults: false, encodings: 'compatible' }), find('duckdb', 'write', 'snappy')],
  ['both default settings', find('inlet', 'write', undefined, { defaults: true }), find('duckdb', 'write', 'default')],
];
for (const [label, i, d] of sizeRows) {
  const ratio = i && d ? i.bytes / d.bytes : NaN;
  const ok = ratio <= TARGET.size;
  if (!ok) missed++;
  console.log(`${padr(label, 34)}${pad(i ? fmtInt(i.bytes) : 'failed', 14)}${pad(d ? fmtInt(d.bytes) : 'failed', 14)}` +
    `${pad(Number.isFinite(ratio) ? ratio.toFixed(3) : '-', 8)}${pad('<=' + TARGET.size, 8)}  ${ok ? 'met' : 'MISSED'}`);
}
// The opt-in extended encodings: what they save against the default
// compatible set (no target: the default is what the ratio rows measure).
for (const codec of ['zstd', 'snappy']) {
  const x = find('inlet', 'write', codec, { defaults: false, encodings: 'extended' });
  const c = find('inlet', 'write', codec, { defaults: false, encodings: 'compatible' });
  const d = find('duckdb', 'write', codec);
  if (!x) continue;
  console.log(`${padr(codec + ', extended encodings', 34)}${pad(fmtInt(x.bytes), 14)}` +
    `${pad(d ? fmtInt(d.bytes) : 'failed', 14)}${pad(d ? (x.bytes / d.bytes).toFixed(3) : '-', 8)}` +
    `${pad('-', 8)}  (compatible is ${c ? ((c.bytes / x.bytes - 1) * 100).toFixed(1) + '% larger' : '?'})`);
}
const dd = find('duckdb', 'write', 'default');
const id = find('inlet', 'write', undefined, { defaults: true });
if (dd) console.log(`  DuckDB defaults: ${dd.codecs}, ${dd.row_groups} row groups` +
  (id ? `; inlet defaults: ${id.codec}, 128 MiB row groups` : ''));

console.log('');
if (meta.loadStart) {
  console.log(`machine: ${meta.cpus} CPUs, load average (1/5/15 min) ${meta.loadStart} at start, ` +
    `${meta.loadEnd} at end`);
}
const rss = recs.filter(r => r.side === 'inlet' && r.max_rss_kb > 0);
// A write's process holds the rows it was handed (generated before the clock
// starts); writer_rss_kb is its peak less those.
const rssW = Math.max(0, ...rss.filter(r => r.op === 'write')
  .map(r => r.writer_rss_kb !== undefined ? r.writer_rss_kb : r.max_rss_kb));
const rssS = Math.max(0, ...rss.filter(r => r.op === 'scan').map(r => r.max_rss_kb));
const rssD = Math.max(0, ...recs.filter(r => r.side === 'duckdb').map(r => r.max_rss_kb || 0));
console.log(`peak RSS: inlet writer ${fmtMiB(rssW)} (the process's peak less the rows generated before it), ` +
  `inlet scan ${fmtMiB(rssS)}, DuckDB process ${fmtMiB(rssD)} (holds the in-memory source table)`);
console.log("note: inlet's write times include fsync of the written file; DuckDB's COPY does not fsync.");
console.log('note: verdicts use wall time; the CPU-time ratio (DuckDB CPU s / inlet CPU s, fsync waits');
console.log('      excluded) is shown because other jobs on a shared machine move wall times a lot.');
console.log("note: row generation is not timed on either side (DuckDB reads from a temp table).");

// Checksums: every scan of these rows, by either engine, at any thread count, must agree.
const scans = all.filter(r => r.op === 'scan');
const key = r => `${r.rows}|${r.sum_event_id}|${r.sum_user_len}|${r.max_event_time}`;
const ref = scans.find(r => r.side === 'duckdb' && r.file.includes('duckdb_'));
for (const s of scans) {
  const amountOk = ref && Math.abs(Number(s.sum_amount) - Number(ref.sum_amount)) <=
    1e-9 * Math.abs(Number(ref.sum_amount)) + 0.01;
  if (!ref || key(s) !== key(ref) || !amountOk || (s.nulls || 0) !== 0) {
    bad++;
    console.log(`CHECKSUM MISMATCH: ${s.side} scan of ${s.file}: ${key(s)} amount ${s.sum_amount}` +
      (ref ? ` (DuckDB on its own file: ${key(ref)} amount ${ref.sum_amount})` : ''));
  }
}
if (!bad) console.log(`checksums: all ${scans.length} scans (inlet and DuckDB, of both engines' files) agree.`);
const cross = scans.filter(s => s.side === 'duckdb' && !s.file.includes('duckdb_'));
for (const c of cross) {
  console.log(`  DuckDB scanning inlet's ${c.file.split('/').pop()}: ${fmtInt(c.rows / c.seconds)} rows/s`);
}
if (missed) console.log(`\n${missed} target(s) missed.`);
process.exit(bad || (missed && process.env.BENCH_STRICT === '1') ? 1 : 0);
