// Validates JSON documents against a schema of docs/JSON.md.
//
//   node validate.mjs JSON.md NAME FILE [--lines]
//
// NAME picks the fenced ```json block after "<!-- schema: NAME -->". FILE
// holds one JSON document, or with --lines one per non-empty line (JSON
// lines: ingest --json, --log-format json). Exit 0 when every document is
// valid; 1 with one line per error (document number, path, message);
// 2 when the schema or the file cannot be read.
import { readFileSync } from "node:fs";
import Ajv from "ajv";

const [doc, name, file, mode] = process.argv.slice(2);
if (!doc || !name || !file) {
  console.error("usage: validate.mjs JSON.md NAME FILE [--lines]");
  process.exit(2);
}
const md = readFileSync(doc, "utf8");
const marker = `<!-- schema: ${name} -->`;
const at = md.indexOf(marker);
const open = at < 0 ? -1 : md.indexOf("```json\n", at);
const close = open < 0 ? -1 : md.indexOf("\n```", open + 8);
if (close < 0) {
  console.error(`validate: no schema "${name}" in ${doc}`);
  process.exit(2);
}
let schema;
try {
  schema = JSON.parse(md.slice(open + 8, close));
} catch (e) {
  console.error(`validate: schema "${name}" in ${doc} is not JSON: ${e.message}`);
  process.exit(2);
}
const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
const check = ajv.compile(schema);

const text = readFileSync(file, "utf8");
const docs = mode === "--lines" ? text.split("\n").filter((l) => l.trim() !== "") : [text];
if (docs.length === 0) {
  console.error(`validate: ${file} holds no document`);
  process.exit(1);
}
let bad = 0;
docs.forEach((d, i) => {
  let v;
  try {
    v = JSON.parse(d);
  } catch (e) {
    console.log(`document ${i + 1}: not JSON: ${e.message}: ${d.slice(0, 200)}`);
    bad++;
    return;
  }
  if (!check(v)) {
    for (const e of check.errors)
      console.log(`document ${i + 1}: ${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`);
    bad++;
  }
});
console.log(`${docs.length - bad} of ${docs.length} documents valid against "${name}"`);
process.exit(bad ? 1 : 0);
