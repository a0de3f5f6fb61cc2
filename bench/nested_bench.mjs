// DuckDB side of bench/nested_bench.c (issue 3, "Proof", bench), SET threads=1.
//
// --nested: builds the checkpoint-shaped `add` rows of nested_bench.c from the
// same formulas in SQL, times COPY ... TO parquet (zstd, given ROW_GROUP_SIZE)
// and a full scan of that file that decodes every leaf.
// --flat: builds the seed-shaped events of parquet_bench.c and writes them
// with PARQUET_VERSION V1 and V2 (zstd and snappy) for the size comparison,
// reporting each file's bytes and its integer columns' encodings.
// --scan F...: scans inlet's nested files with the same checksum query, so
// the checksums prove both engines hold and read the same rows.
//
//   node nested_bench.mjs --nested --rows N --row-group-rows R --dir D [--repeat K]
//   node nested_bench.mjs --flat --rows N --row-group-rows R --dir D
//   node nested_bench.mjs --scan F...
//
// @duckdb/node-api comes from $BENCH_NODE_MODULES as in duckdb_side.mjs.
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

const sqlStr = s => "'" + String(s).replace(/'/g, "''") + "'";
const seconds = t0 => Number(process.hrtime.bigint() - t0) / 1e9;
const cpuSeconds = c0 => { const d = process.cpuUsage(c0); return (d.user + d.system) / 1e6; };
const emit = o => process.stdout.write(JSON.stringify(o) + '\n');

function parseArgs(argv) {
  const o = { rows: 1000000, rowGroupRows: 122880, repeat: 1, mode: null, dir: null, scan: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--scan') { o.mode = 'scan'; o.scan = argv.slice(i + 1); break; }
    if (a === '--nested' || a === '--flat') { o.mode = a.slice(2); continue; }
    const v = argv[++i];
    if (a === '--rows') o.rows = Number(v);
    else if (a === '--row-group-rows') o.rowGroupRows = Number(v);
    else if (a === '--dir') o.dir = v;
    else if (a === '--repeat') o.repeat = Number(v);
    else throw new Error(`unknown option ${a}`);
  }
  if (!o.mode) throw new Error('--nested, --flat or --scan is required');
  if (o.mode !== 'scan' && !o.dir) throw new Error('--dir is required');
  return o;
}

// Row i of nested_bench.c's add_gen, h = (i * 2654435761) mod 2^32.
const nestedSql = rows => `CREATE OR REPLACE TEMP TABLE cp AS
  SELECT struct_pack(
    path := 'part-' || i::VARCHAR || '-c000.snappy.parquet',
    partitionValues := CASE WHEN i % 10 = 9 THEN MAP([]::VARCHAR[], []::VARCHAR[])
                       ELSE MAP(['date'], ['2024-01-' || (1 + i % 28)::VARCHAR]) END,
    size := (1000000 + h % 100000)::BIGINT,
    modificationTime := (1700000000000 + i * 1000)::BIGINT,
    dataChange := i % 2 = 0,
    stats := '{"numRecords":' || (h % 1000)::VARCHAR || ',"minValues":{"id":' || i::VARCHAR ||
             '},"maxValues":{"id":' || (i + h % 1000)::VARCHAR || '},"nullCount":{"id":0}}',
    tags := CASE WHEN i % 4 = 0 THEN MAP(['INSERTION_TIME', 'ZORDER_BY'],
                   [(1700000000000 + i * 1000)::VARCHAR, NULL::VARCHAR]) ELSE NULL END) AS "add"
  FROM (SELECT i, (i * 2654435761) % 4294967296 AS h FROM range(${rows}) t(i)) ORDER BY i`;

// Same figures as nested_bench.c's scan "check", in the same order.
const nestedScanSql = f => `SELECT count(*)::BIGINT, sum(add.size)::BIGINT,
  sum(add.modificationTime)::BIGINT, sum(strlen(add.path))::BIGINT,
  sum(cardinality(add.partitionValues))::BIGINT,
  sum(list_sum(list_transform(map_values(add.partitionValues), x -> coalesce(strlen(x), 0))))::BIGINT,
  sum(add.dataChange::INT)::BIGINT, sum(strlen(add.stats))::BIGINT, count(add.tags)::BIGINT,
  sum(cardinality(add.tags))::BIGINT,
  sum(list_sum(list_transform(map_values(add.tags), x -> coalesce(strlen(x), 0))))::BIGINT
  FROM read_parquet(${sqlStr(f)})`;

async function scanNested(con, file, repeat) {
  let best = Infinity, bestCpu = Infinity, row = null;
  for (let k = 0; k < repeat; k++) {
    const t0 = process.hrtime.bigint(), c0 = process.cpuUsage();
    const r = await con.runAndReadAll(nestedScanSql(file));
    best = Math.min(best, seconds(t0));
    bestCpu = Math.min(bestCpu, cpuSeconds(c0));
    row = r.getRows()[0];
  }
  const n = row.map(v => String(v ?? 0));
  emit({ side: 'duckdb', op: 'scan', file, rows: Number(row[0]), seconds: best,
    cpu_seconds: bestCpu, check: n.slice(1).join(',') });
}

// Row i of parquet_bench.c's event_gen.
const flatSql = rows => `CREATE OR REPLACE TEMP TABLE ev AS
  SELECT i AS event_id, 'user_' || ((h >> 8) % 1000)::VARCHAR AS "user",
         ((h >> 4) % 1000000)::DOUBLE / 100::DOUBLE AS amount,
         make_timestamp(1700000000000000 + i * 1000 + h % 1000) AS event_time
  FROM (SELECT i, (i * 2654435761) % 4294967296 AS h FROM range(${rows}) t(i)) ORDER BY event_id`;

async function encodings(con, file) {
  const r = await con.runAndReadAll(`SELECT path_in_schema, string_agg(DISTINCT encodings, ';')
    FROM parquet_metadata(${sqlStr(file)}) GROUP BY 1 ORDER BY 1`);
  return Object.fromEntries(r.getRows().map(([p, e]) => [p, e]));
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const req = createRequire(path.join(findDuckDB(), 'package.json'));
  const duckdb = await import(pathToFileURL(req.resolve(PKG)).href);
  const inst = await duckdb.DuckDBInstance.create(':memory:');
  const con = await inst.connect();
  await con.run('SET threads=1');
  const version = (await con.runAndReadAll('SELECT version()')).getRows()[0][0];
  if (o.mode === 'scan') {
    for (const f of o.scan) await scanNested(con, f, 1);
    return;
  }
  fs.mkdirSync(o.dir, { recursive: true });
  if (o.mode === 'nested') {
    await con.run(nestedSql(o.rows));
    const file = path.join(o.dir, 'duckdb_nested.parquet');
    let best = Infinity, bestCpu = Infinity;
    for (let k = 0; k < o.repeat; k++) {
      fs.rmSync(file, { force: true });
      const t0 = process.hrtime.bigint(), c0 = process.cpuUsage();
      await con.run(`COPY cp TO ${sqlStr(file)} (FORMAT parquet, COMPRESSION zstd,
        ROW_GROUP_SIZE ${o.rowGroupRows})`);
      best = Math.min(best, seconds(t0));
      bestCpu = Math.min(bestCpu, cpuSeconds(c0));
    }
    emit({ side: 'duckdb', op: 'write', shape: 'nested', version, codec: 'zstd', rows: o.rows,
      seconds: best, cpu_seconds: bestCpu, bytes: fs.statSync(file).size });
    await scanNested(con, file, o.repeat);
    // Lighter DuckDB queries, so the ratio does not rest on the cost of
    // list_transform in the checksum query: scalar leaves, lengths and map
    // sizes only; and the whole struct materialised with a filter on it.
    const light = {
      scan_light: `SELECT count(*), sum(add.size), sum(add.modificationTime), sum(strlen(add.path)),
        sum(strlen(add.stats)), sum(cardinality(add.partitionValues)), sum(cardinality(add.tags)),
        sum(add.dataChange::INT) FROM read_parquet(${sqlStr(file)})`,
      scan_struct: `SELECT count(*) FROM (SELECT add FROM read_parquet(${sqlStr(file)}))
        WHERE add IS NOT NULL`,
    };
    for (const [op, q] of Object.entries(light)) {
      let best = Infinity, bestCpu = Infinity;
      for (let k = 0; k < o.repeat; k++) {
        const t0 = process.hrtime.bigint(), c0 = process.cpuUsage();
        await con.runAndReadAll(q);
        best = Math.min(best, seconds(t0));
        bestCpu = Math.min(bestCpu, cpuSeconds(c0));
      }
      emit({ side: 'duckdb', op, file, rows: o.rows, seconds: best, cpu_seconds: bestCpu });
    }
    return;
  }
  await con.run(flatSql(o.rows));
  for (const codec of ['zstd', 'snappy']) {
    for (const v of ['V1', 'V2']) {
      const file = path.join(o.dir, `duckdb_flat_${codec}_${v}.parquet`);
      fs.rmSync(file, { force: true });
      const t0 = process.hrtime.bigint(), c0 = process.cpuUsage();
      await con.run(`COPY ev TO ${sqlStr(file)} (FORMAT parquet, COMPRESSION ${codec},
        ROW_GROUP_SIZE ${o.rowGroupRows}, PARQUET_VERSION ${v})`);
      emit({ side: 'duckdb', op: 'write', shape: 'flat', version, codec, parquet_version: v,
        rows: o.rows, seconds: seconds(t0), cpu_seconds: cpuSeconds(c0),
        bytes: fs.statSync(file).size, encodings: await encodings(con, file) });
    }
  }
}

main().catch(e => {
  process.stderr.write(`nested_bench.mjs: ${e.message}\n`);
  process.exit(1);
});
