// Independent check of the Parquet page index inlet writes, with hyparquet
// (a pure-JavaScript reader sharing no code with inlet): for every column
// chunk of every file given, the OffsetIndex must locate the chunk's data
// pages back to back (the first at data_page_offset, the last ending at the
// chunk's end), start at row 0 and rise; the ColumnIndex, when present,
// must have one entry per page, and every value hyparquet decodes from a
// page's rows must lie within that page's bounds, with its null count and
// null-page flag exact. Flat schemas only.
//
//   node page_index_hyparquet.mjs <dir with node_modules/hyparquet> FILE...
// Prints one JSON line ({files, chunks, pages, column_indexes, problems});
// exits 1 when anything is wrong.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const [base, ...files] = process.argv.slice(2);
const req = createRequire(path.join(path.resolve(base), 'package.json'));
const hp = await import(pathToFileURL(req.resolve('hyparquet')).href);

const problems = [];
let chunks = 0, pages = 0, columnIndexes = 0;

function key(v) {
  if (v instanceof Date) return v.getTime();
  if (typeof v === 'boolean') return v ? 1 : 0;
  return v;
}
function cmp(a, b) {
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    for (let i = 0; i < a.length && i < b.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
    return a.length - b.length;
  }
  const x = key(a), y = key(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

for (const file of files) {
  const buf = fs.readFileSync(file);
  const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  const md = hp.parquetMetadata(ab);
  const rows = await hp.parquetReadObjects({ file: ab });
  const where = (rg, name) => `${path.basename(file)} row group ${rg} column ${name}`;
  let rowBase = 0;
  md.row_groups.forEach((rg, g) => {
    const nRows = Number(rg.num_rows);
    for (const cc of rg.columns) {
      chunks++;
      const m = cc.meta_data;
      const name = m.path_in_schema.join('.');
      const se = md.schema.find((s) => s.name === name);
      if (cc.offset_index_offset === undefined) {
        problems.push(`${where(g, name)}: no offset index`);
        continue;
      }
      const oi = hp.readOffsetIndex({
        view: new DataView(ab, Number(cc.offset_index_offset), cc.offset_index_length),
        offset: 0,
      });
      const locs = oi.page_locations;
      const start = Number(m.dictionary_page_offset ?? m.data_page_offset);
      const end = start + Number(m.total_compressed_size);
      if (Number(locs[0].offset) !== Number(m.data_page_offset))
        problems.push(`${where(g, name)}: first page at ${locs[0].offset}, data_page_offset ${m.data_page_offset}`);
      const last = locs[locs.length - 1];
      if (Number(last.offset) + last.compressed_page_size !== end)
        problems.push(`${where(g, name)}: last page ends at ${Number(last.offset) + last.compressed_page_size}, chunk at ${end}`);
      locs.forEach((l, i) => {
        if (i === 0 && Number(l.first_row_index) !== 0) problems.push(`${where(g, name)}: first page starts at row ${l.first_row_index}`);
        if (i > 0) {
          const p = locs[i - 1];
          if (Number(p.offset) + p.compressed_page_size !== Number(l.offset))
            problems.push(`${where(g, name)}: page ${i} not right after page ${i - 1}`);
          if (!(Number(l.first_row_index) > Number(p.first_row_index)))
            problems.push(`${where(g, name)}: page ${i} first row does not rise`);
        }
      });
      pages += locs.length;
      if (cc.column_index_offset === undefined) continue;
      columnIndexes++;
      const ci = hp.readColumnIndex(
        { view: new DataView(ab, Number(cc.column_index_offset), cc.column_index_length), offset: 0 },
        se,
      );
      if (ci.null_pages.length !== locs.length || ci.min_values.length !== locs.length ||
          ci.max_values.length !== locs.length || (ci.null_counts && ci.null_counts.length !== locs.length)) {
        problems.push(`${where(g, name)}: column index lists do not match ${locs.length} pages`);
        continue;
      }
      if (!ci.null_counts) problems.push(`${where(g, name)}: no null_counts`);
      locs.forEach((l, i) => {
        const lo = Number(l.first_row_index);
        const hi = i + 1 < locs.length ? Number(locs[i + 1].first_row_index) : nRows;
        let nulls = 0, bad = 0;
        for (let r = rowBase + lo; r < rowBase + hi; r++) {
          const v = rows[r][name];
          if (v === null || v === undefined) { nulls++; continue; }
          if (ci.null_pages[i] || cmp(v, ci.min_values[i]) < 0 || cmp(v, ci.max_values[i]) > 0) bad++;
        }
        if (bad) problems.push(`${where(g, name)}: page ${i}: ${bad} values outside [${ci.min_values[i]}, ${ci.max_values[i]}]`);
        if (ci.null_counts && Number(ci.null_counts[i]) !== nulls)
          problems.push(`${where(g, name)}: page ${i}: null count ${ci.null_counts[i]}, rows hold ${nulls}`);
        if (ci.null_pages[i] !== (nulls === hi - lo))
          problems.push(`${where(g, name)}: page ${i}: null_pages ${ci.null_pages[i]} but ${nulls} of ${hi - lo} null`);
      });
    }
    rowBase += nRows;
  });
}
console.log(JSON.stringify({ files: files.length, chunks, pages, column_indexes: columnIndexes, problems: problems.slice(0, 20) }));
process.exit(problems.length ? 1 : 0);
