// Independent check of inlet's Arrow IPC output with the Apache Arrow
// JavaScript implementation (npm apache-arrow, which shares no code with
// inlet); compressed bodies are decoded by fzstd and lz4js, pure-JavaScript
// codecs registered with apache-arrow's compression registry.
//
//   node arrow_ipc_check.mjs MODULES compare EXPECTED.ndjson FILE...
//     Reads every FILE (IPC stream or file: apache-arrow tells them apart)
//     and turns each row into inlet's canonical NDJSON values (docs/VALUES.md)
//     from the raw Arrow buffers: int64 beyond 2^53 as strings, decimals with
//     exactly `scale` digits, dates as YYYY-MM-DD, timestamps with six
//     fraction digits and a Z only when the type's zone is UTC, binary as
//     hex, maps as [key, value] pairs sorted by the key's JSON. Each row must
//     equal the same line of EXPECTED (both parsed as JSON). Prints one JSON
//     line {files, rows, schema, problems}; exits 1 on any problem.
//   node arrow_ipc_check.mjs MODULES checksum FILE
//     Prints {rows, batches, id_sum, name_bytes, null_names, amount_sum} of a
//     table with columns id (int64), name (string), amount (double).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const [base, mode, ...args] = process.argv.slice(2);
const req = createRequire(path.join(path.resolve(base), 'package.json'));
const arrow = req('apache-arrow');
const fzstd = req('fzstd');
const lz4 = req('lz4js');
// apache-arrow views each decoded buffer in place: give it fresh,
// 8-aligned memory.
arrow.compressionRegistry.set(arrow.CompressionType.ZSTD, {
  decode: (b) => fzstd.decompress(b).slice(),
});
arrow.compressionRegistry.set(arrow.CompressionType.LZ4_FRAME, {
  decode: (b) => Uint8Array.from(lz4.decompress(b)),
});
const T = arrow.Type;
const utf8 = new TextDecoder('utf-8', { fatal: true });
const TWO53 = 2n ** 53n;

function bit(bytes, i) {
  return (bytes[i >> 3] >> (i & 7)) & 1;
}
function valid(d, i) {
  if (d.typeId === T.Null) return false;
  if (!d.nullBitmap || d.nullBitmap.length === 0 || d.nullCount === 0) return true;
  return bit(d.nullBitmap, d.offset + i) === 1;
}
function int64json(v) {
  return v > TWO53 || v < -TWO53 ? v.toString() : Number(v);
}
function floatjson(v) {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  return v;
}
function pad(n, w) {
  return String(n).padStart(w, '0');
}
function ymd(days) {
  return new Date(days * 86400000).toISOString().slice(0, 10);
}
function timestamp(v, unit, utc) {
  const per = [1n, 1000n, 1000000n, 1000000000n][unit];
  let secs = v / per, frac = v % per;
  if (frac < 0n) {
    secs -= 1n;
    frac += per;
  }
  const iso = new Date(Number(secs) * 1000).toISOString().slice(0, 19);
  // inlet prints microseconds, nanoseconds only for wall-clock (ntz) nanos.
  let digits = 6;
  let f = frac * 1000000n / per;
  if (unit === 3 && !utc) {
    digits = 9;
    f = frac;
  }
  return `${iso}.${pad(f, digits)}${utc ? 'Z' : ''}`;
}
function decimal(words, k, scale) {
  let v = 0n;
  for (let w = 3; w >= 0; w--) v = (v << 32n) | BigInt(words[4 * k + w]);
  if (v >= 1n << 127n) v -= 1n << 128n;
  const neg = v < 0n;
  let s = (neg ? -v : v).toString();
  if (scale > 0) {
    s = s.padStart(scale + 1, '0');
    s = `${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}`;
  }
  return (neg ? '-' : '') + s;
}
function hex(bytes) {
  return Array.from(bytes, (b) => pad(b.toString(16), 2)).join('');
}

// The canonical JSON value of row i of Data d.
function value(d, i) {
  if (!valid(d, i)) return null;
  const t = d.type;
  const j = d.offset + i;
  switch (d.typeId) {
    case T.Bool:
      return bit(d.values, j) === 1;
    case T.Int: {
      const v = d.values[j];
      return t.bitWidth === 64 ? int64json(BigInt(v)) : v;
    }
    case T.Float:
      return floatjson(d.values[j]);
    case T.Decimal:
      return decimal(d.values, j, t.scale);
    case T.Date:
      return ymd(d.values[j]);
    case T.Timestamp:
      return timestamp(BigInt(d.values[j]), t.unit, t.timezone === 'UTC');
    case T.Utf8:
      return utf8.decode(d.values.subarray(d.valueOffsets[j], d.valueOffsets[j + 1]));
    case T.Binary:
      return hex(d.values.subarray(d.valueOffsets[j], d.valueOffsets[j + 1]));
    case T.FixedSizeBinary:
      return hex(d.values.subarray(j * t.byteWidth, (j + 1) * t.byteWidth));
    case T.Struct: {
      const o = {};
      t.children.forEach((f, c) => {
        o[f.name] = value(d.children[c], j);
      });
      return o;
    }
    case T.List: {
      const out = [];
      for (let k = d.valueOffsets[j]; k < d.valueOffsets[j + 1]; k++)
        out.push(value(d.children[0], k));
      return out;
    }
    case T.Map: {
      const e = d.children[0];
      const out = [];
      for (let k = d.valueOffsets[j]; k < d.valueOffsets[j + 1]; k++)
        out.push([value(e.children[0], e.offset + k), value(e.children[1], e.offset + k)]);
      const key = (p) => JSON.stringify(p[0]);
      return out.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
    }
    default:
      throw new Error(`type ${t} not handled by the check`);
  }
}

function read(file) {
  return arrow.tableFromIPC(fs.readFileSync(file));
}

if (mode === 'compare') {
  const [expectedFile, ...files] = args;
  const expected = fs
    .readFileSync(expectedFile, 'utf8')
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.stringify(JSON.parse(l)));
  const problems = [];
  let rows = 0;
  let schema = null;
  for (const file of files) {
    let table;
    try {
      table = read(file);
    } catch (e) {
      problems.push(`${file}: ${e.message}`);
      continue;
    }
    const fields = table.schema.fields.map((f) => `${f.name}:${f.type}:${f.nullable}`);
    if (schema === null) schema = fields;
    else if (JSON.stringify(schema) !== JSON.stringify(fields)) problems.push(`${file}: schema differs`);
    let n = 0;
    for (const batch of table.batches) {
      for (let i = 0; i < batch.numRows; i++, n++) {
        const row = {};
        table.schema.fields.forEach((f, c) => {
          row[f.name] = value(batch.data.children[c], i);
        });
        const got = JSON.stringify(row);
        if (got !== expected[n] && problems.length < 20)
          problems.push(`${file} row ${n}: arrow ${got} ndjson ${expected[n]}`);
      }
    }
    if (n !== expected.length) problems.push(`${file}: ${n} rows, ndjson has ${expected.length}`);
    rows += n;
  }
  console.log(JSON.stringify({ files: files.length, rows, schema, problems }));
  process.exit(problems.length ? 1 : 0);
} else if (mode === 'checksum') {
  const table = read(args[0]);
  let rows = 0, idSum = 0n, nameBytes = 0, nullNames = 0, amountSum = 0;
  const ci = table.schema.fields.findIndex((f) => f.name === 'id');
  const cn = table.schema.fields.findIndex((f) => f.name === 'name');
  const ca = table.schema.fields.findIndex((f) => f.name === 'amount');
  for (const batch of table.batches) {
    const id = batch.data.children[ci], name = batch.data.children[cn], amt = batch.data.children[ca];
    for (let i = 0; i < batch.numRows; i++) {
      idSum += BigInt(id.values[id.offset + i]);
      if (valid(name, i))
        nameBytes += name.valueOffsets[name.offset + i + 1] - name.valueOffsets[name.offset + i];
      else nullNames++;
      amountSum += amt.values[amt.offset + i];
    }
    rows += batch.numRows;
  }
  console.log(JSON.stringify({
    rows, batches: table.batches.length, id_sum: idSum.toString(), name_bytes: nameBytes,
    null_names: nullNames, amount_sum: amountSum,
  }));
} else {
  console.error('usage: arrow_ipc_check.mjs MODULES compare|checksum ...');
  process.exit(2);
}
