// Test tooling only: starts the object-store emulators the storage tests run
// against, all on 127.0.0.1, and prints "READY" once every one listens.
//
//   node emulators.mjs --dir DIR [--s3rver-port P] [--proxy-port P] [--azurite-port P]
//
// - s3rver (npm s3rver) serves the S3 API with buckets "inlet-test" and
//   "inlet-bare". It neither enforces If-None-Match on PUT nor verifies SigV4
//   signatures.
// - The S3 proxy in front of it adds exactly those two checks: every request's
//   SigV4 signature is recomputed with the AWS SDK's own signer
//   (@smithy/signature-v4) and a mismatch is 403 SignatureDoesNotMatch; a PUT
//   or CompleteMultipartUpload with If-None-Match: * of a key that exists is
//   412 PreconditionFailed, decided under a per-key lock so two racing
//   creates cannot both pass. It also emulates AbortMultipartUpload (which
//   s3rver lacks) and ListMultipartUploads (likewise: GET /bucket?uploads
//   answers from the uploads the proxy saw started and neither completed nor
//   aborted, filtered by prefix, in one page), tracks open multipart uploads, and injects faults and
//   latency on request (control API under /__proxy/, see below).
// - Azurite (npm azurite, Microsoft's emulator) serves the Blob API with the
//   container "inlet-test"; it enforces If-None-Match: * itself.
//
// Control API of the proxy (JSON):
//   POST /__proxy/faults  {"rules":[{"method":"PUT","path":"substring","query":"partNumber",
//                          "action":"503"|"500"|"429"|"reset"|"slow"|"503-after"|"reset-after",
//                          "skip":0,"count":1,"probability":1,"delayMs":0}],
//                          "latencyMs":0,"seed":1}
//       Installing rules zeroes the "injected" counter. "-after" actions forward the request to s3rver first (it takes effect) and then
//       answer 503 / reset the connection: a lost response.
//   GET  /__proxy/stats   {"requests":N,"byMethod":{...},"injected":N,"bytesOut":N,"lists":N,
//                          "openUploads":[...]}
//   POST /__proxy/reset   clears rules, latency and counters
//   POST /__proxy/backdate-uploads {"ms":N}  makes every open multipart upload N ms older
//                         (its Initiated time in ListMultipartUploads), for tests of the
//                         cleanup of uploads a killed writer left a day ago
//   GET  /__proxy/trace   the requests since the last trace read or reset, one
//                         "METHOD /path?query STATUS" per line (oldest first, at most
//                         the last 10000), and clears them: what a client sent, in order
import http from 'node:http';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import S3rver from 's3rver';
import { SignatureV4 } from '@smithy/signature-v4';
import { Sha256 } from '@aws-crypto/sha256-js';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, all) => {
    if (a.startsWith('--')) acc.push([a.slice(2), all[i + 1]]);
    return acc;
  }, []));
const dir = args.dir;
if (!dir) {
  console.error('usage: emulators.mjs --dir DIR [--s3rver-port P] [--proxy-port P] [--azurite-port P]');
  process.exit(2);
}
fs.mkdirSync(dir, { recursive: true });

// s3rver's built-in account.
const S3_KEYS = { S3RVER: 'S3RVER' };
const AZ_ACCOUNT = 'devstoreaccount1';
const AZ_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const children = [];
function shutdown() {
  for (const c of children) c.kill('SIGTERM');
  process.exit(0);
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);

// ---- s3rver and the proxy -------------------------------------------------------

let s3rverPort = 0;
if (args['s3rver-port']) {
  const s3 = new S3rver({
    address: '127.0.0.1',
    port: Number(args['s3rver-port']),
    silent: true,
    directory: path.join(dir, 's3rver'),
    configureBuckets: [{ name: 'inlet-test', configs: [] }, { name: 'inlet-bare', configs: [] }],
  });
  const addr = await s3.run();
  s3rverPort = addr.port;
}

const state = {
  rules: [],
  latencyMs: 0,
  rng: 1,
  requests: 0,
  byMethod: {},
  bytesOut: 0, // response body bytes sent to clients (GET payloads, listings, errors)
  lists: 0,    // GETs of a bucket (ListObjectsV2), also counted in byMethod.GET
  injected: 0,
  uploads: new Map(), // uploadId -> { key, initiated (ms) }
  trace: [],          // "METHOD url STATUS" per S3 request since the last /__proxy/trace
  locks: new Map(),   // key -> promise tail
};

function rand() {
  // xorshift32: deterministic per seed, so a failing run can be replayed.
  let x = state.rng;
  x ^= x << 13; x >>>= 0;
  x ^= x >>> 17;
  x ^= x << 5; x >>>= 0;
  state.rng = x || 1;
  return state.rng / 4294967296;
}

function s3error(res, status, code, message) {
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code>` +
    `<Message>${message}</Message></Error>`;
  res.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function parseQuery(raw) {
  const q = {};
  if (!raw) return q;
  for (const part of raw.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const k = decodeURIComponent(eq < 0 ? part : part.slice(0, eq));
    const v = eq < 0 ? '' : decodeURIComponent(part.slice(eq + 1));
    if (k in q) q[k] = [].concat(q[k], v);
    else q[k] = v;
  }
  return q;
}

async function verifySigV4(req, rawPath, query, body) {
  const auth = req.headers['authorization'];
  if (!auth) return 'the request carries no Authorization header';
  const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(auth);
  if (!m) return 'malformed Authorization header';
  const [, akid, , region, service, signedHeaders, signature] = m;
  const secret = S3_KEYS[akid];
  if (!secret) return 'unknown access key id';
  const amz = req.headers['x-amz-date'];
  const dm = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amz || '');
  if (!dm) return 'missing or malformed x-amz-date';
  const date = new Date(`${dm[1]}-${dm[2]}-${dm[3]}T${dm[4]}:${dm[5]}:${dm[6]}Z`);
  if (Math.abs(Date.now() - date.getTime()) > 15 * 60 * 1000) return 'request time too skewed';
  const claimed = req.headers['x-amz-content-sha256'];
  if (!claimed) return 'missing x-amz-content-sha256';
  if (claimed !== 'UNSIGNED-PAYLOAD' &&
      claimed !== crypto.createHash('sha256').update(body).digest('hex'))
    return 'x-amz-content-sha256 does not match the body';
  const headers = {};
  for (const h of signedHeaders.split(';')) {
    const v = req.headers[h];
    if (v === undefined) return `signed header ${h} is missing`;
    headers[h] = Array.isArray(v) ? v.join(',') : v;
  }
  const signer = new SignatureV4({
    credentials: { accessKeyId: akid, secretAccessKey: secret, sessionToken: headers['x-amz-security-token'] },
    region, service, sha256: Sha256, uriEscapePath: false, applyChecksum: false,
  });
  const signed = await signer.sign({
    method: req.method, protocol: 'http:', hostname: headers.host, path: rawPath, query, headers, body,
  }, { signingDate: date });
  const got = signed.headers.authorization || signed.headers.Authorization || '';
  const want = /Signature=([0-9a-f]{64})/.exec(got);
  if (!want || want[1] !== signature) return 'signature mismatch';
  return null;
}

function pickFault(method, rawPath, query) {
  for (const r of state.rules) {
    if (r.method && r.method !== method) continue;
    if (r.path && !rawPath.includes(r.path)) continue;
    if (r.query && !(r.query in query)) continue;
    if (r.notQuery && r.notQuery in query) continue;
    if ((r.count ?? Infinity) <= 0) continue;
    if ((r.skip ?? 0) > 0) { r.skip--; continue; }
    if (r.probability !== undefined && rand() >= r.probability) continue;
    if (r.count !== undefined) r.count--;
    state.injected++;
    return r;
  }
  return null;
}

async function withLock(key, fn) {
  const prev = state.locks.get(key) || Promise.resolve();
  let release;
  const mine = new Promise((r) => (release = r));
  const tail = prev.then(() => mine);
  state.locks.set(key, tail);
  await prev;
  try {
    return await fn();
  } finally {
    release();
    if (state.locks.get(key) === tail) state.locks.delete(key);
  }
}

function forward(req, rawUrl, body, extraHeaders = {}) {
  return new Promise((resolve, reject) => {
    const headers = { ...req.headers, ...extraHeaders, host: `127.0.0.1:${s3rverPort}` };
    const up = http.request({ host: '127.0.0.1', port: s3rverPort, method: req.method, path: rawUrl, headers }, (r) => {
      const chunks = [];
      r.on('data', (c) => chunks.push(c));
      r.on('end', () => resolve({ status: r.statusCode, headers: r.headers, body: Buffer.concat(chunks) }));
      r.on('error', reject);
    });
    up.on('error', reject);
    up.end(body);
  });
}

async function exists(rawPath) {
  return new Promise((resolve, reject) => {
    const up = http.request({ host: '127.0.0.1', port: s3rverPort, method: 'HEAD', path: rawPath }, (r) => {
      r.resume();
      r.on('end', () => resolve(r.statusCode === 200));
    });
    up.on('error', reject);
    up.end();
  });
}

async function control(req, res, rawPath, body) {
  const reply = (obj) => {
    const s = JSON.stringify(obj);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(s) });
    res.end(s);
  };
  if (rawPath === '/__proxy/faults' && req.method === 'POST') {
    const cfg = JSON.parse(body.toString() || '{}');
    state.rules = cfg.rules || [];
    state.latencyMs = cfg.latencyMs || 0;
    state.rng = cfg.seed || 1;
    state.injected = 0;
    return reply({ ok: true });
  }
  if (rawPath === '/__proxy/stats') {
    return reply({
      requests: state.requests, byMethod: state.byMethod, injected: state.injected,
      bytesOut: state.bytesOut, lists: state.lists,
      openUploads: [...state.uploads.entries()].map(([id, u]) => ({ id, key: u.key })),
    });
  }
  if (rawPath === '/__proxy/backdate-uploads' && req.method === 'POST') {
    const ms = Number(JSON.parse(body.toString() || '{}').ms || 0);
    for (const u of state.uploads.values()) u.initiated -= ms;
    return reply({ ok: true });
  }
  if (rawPath === '/__proxy/trace') {
    const s = state.trace.join('\n') + (state.trace.length ? '\n' : '');
    state.trace = [];
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(s) });
    return res.end(s);
  }
  if (rawPath === '/__proxy/reset' && req.method === 'POST') {
    state.rules = [];
    state.latencyMs = 0;
    state.requests = 0;
    state.byMethod = {};
    state.bytesOut = 0;
    state.lists = 0;
    state.injected = 0;
    state.trace = [];
    return reply({ ok: true });
  }
  res.writeHead(404);
  res.end();
}

async function handle(req, res) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const body = Buffer.concat(chunks);
  const qpos = req.url.indexOf('?');
  const rawPath = qpos < 0 ? req.url : req.url.slice(0, qpos);
  const query = parseQuery(qpos < 0 ? '' : req.url.slice(qpos + 1));
  if (rawPath.startsWith('/__proxy/')) return control(req, res, rawPath, body);
  res.on('finish', () => {
    state.trace.push(`${req.method} ${req.url} ${res.statusCode}`);
    if (state.trace.length > 10000) state.trace.shift();
  });
  state.requests++;
  state.byMethod[req.method] = (state.byMethod[req.method] || 0) + 1;
  if (req.method === 'GET' && rawPath.split('/').filter(Boolean).length === 1) state.lists++;
  if (state.latencyMs) await sleep(state.latencyMs);
  const bad = await verifySigV4(req, rawPath, query, body);
  if (bad) return s3error(res, 403, 'SignatureDoesNotMatch', `inlet test proxy: ${bad}`);
  const fault = pickFault(req.method, rawPath, query);
  if (fault) {
    switch (fault.action) {
      case 'reset': req.socket.destroy(); return;
      case '500': return s3error(res, 500, 'InternalError', 'injected');
      case '503': return s3error(res, 503, 'SlowDown', 'injected');
      case '429': return s3error(res, 429, 'TooManyRequests', 'injected');
      case 'slow': await sleep(fault.delayMs || 1000); break;
      default: break;
    }
  }
  // ListMultipartUploads, which s3rver does not implement: one page, keys in order.
  const segs = rawPath.split('/').filter(Boolean);
  if (req.method === 'GET' && segs.length === 1 && 'uploads' in query) {
    const bucket = decodeURIComponent(segs[0]);
    const prefix = query.prefix || '';
    const xmlEsc = (t) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    const ups = [...state.uploads.entries()]
      .map(([id, u]) => ({ id, initiated: u.initiated,
        key: decodeURIComponent(u.key).split('/').filter(Boolean) }))
      .filter((u) => u.key[0] === bucket)
      .map((u) => ({ ...u, key: u.key.slice(1).join('/') }))
      .filter((u) => u.key.startsWith(prefix))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.id < b.id ? -1 : 1));
    const xml = '<?xml version="1.0" encoding="UTF-8"?>\n<ListMultipartUploadsResult>' +
      `<Bucket>${xmlEsc(bucket)}</Bucket><Prefix>${xmlEsc(prefix)}</Prefix>` +
      '<MaxUploads>1000</MaxUploads><IsTruncated>false</IsTruncated>' +
      ups.map((u) => `<Upload><Key>${xmlEsc(u.key)}</Key><UploadId>${xmlEsc(u.id)}</UploadId>` +
        `<Initiated>${new Date(u.initiated).toISOString()}</Initiated>` +
        '<StorageClass>STANDARD</StorageClass></Upload>').join('') +
      '</ListMultipartUploadsResult>';
    res.writeHead(200, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(xml) });
    state.bytesOut += Buffer.byteLength(xml);
    return res.end(xml);
  }
  // AbortMultipartUpload, which s3rver does not implement.
  if (req.method === 'DELETE' && 'uploadId' in query) {
    state.uploads.delete(query.uploadId);
    res.writeHead(204);
    return res.end();
  }
  const isPart = 'partNumber' in query;
  const isComplete = req.method === 'POST' && 'uploadId' in query;
  const isPut = req.method === 'PUT' && !isPart && rawPath.split('/').filter(Boolean).length >= 2;
  const conditional = req.headers['if-none-match'] === '*' && (isPut || isComplete);
  const run = async () => {
    if (conditional && (await exists(rawPath)))
      return { status: 412, headers: { 'content-type': 'application/xml' },
        body: Buffer.from('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>PreconditionFailed</Code>' +
          '<Message>At least one of the pre-conditions you specified did not hold</Message>' +
          '<Condition>If-None-Match</Condition></Error>') };
    return forward(req, req.url, body);
  };
  let up;
  try {
    up = isPut || isComplete ? await withLock(rawPath, run) : await run();
  } catch (e) {
    return s3error(res, 502, 'BadGateway', 'inlet test proxy: s3rver unreachable');
  }
  if (req.method === 'POST' && 'uploads' in query && up.status === 200) {
    const id = /<UploadId>([^<]+)<\/UploadId>/.exec(up.body.toString());
    if (id) state.uploads.set(id[1], { key: rawPath, initiated: Date.now() });
  }
  if (isComplete && up.status === 200 && !/<Error>/.test(up.body.toString()))
    state.uploads.delete(query.uploadId);
  if (fault && fault.action === 'reset-after') { req.socket.destroy(); return; }
  if (fault && fault.action === '503-after') return s3error(res, 503, 'SlowDown', 'injected after the fact');
  const headers = { ...up.headers };
  delete headers['transfer-encoding'];
  delete headers['connection'];
  if (req.method !== 'HEAD') {
    headers['content-length'] = up.body.length;
    state.bytesOut += up.body.length;
  }
  res.writeHead(up.status, headers);
  res.end(req.method === 'HEAD' ? undefined : up.body);
}

let proxyPort = 0;
if (args['proxy-port'] && s3rverPort) {
  const server = http.createServer((req, res) => {
    handle(req, res).catch((e) => {
      try { s3error(res, 500, 'InternalError', `inlet test proxy: ${e.message}`); } catch { /* gone */ }
    });
  });
  server.keepAliveTimeout = 30000;
  await new Promise((r) => server.listen(Number(args['proxy-port']), '127.0.0.1', r));
  proxyPort = server.address().port;
}

// ---- Azurite ------------------------------------------------------------------------

async function azureCreateContainer(port, name) {
  const date = new Date().toUTCString();
  const version = '2021-08-06';
  const pathPart = `/${AZ_ACCOUNT}/${name}`;
  const sts = ['PUT', '', '', '', '', '', '', '', '', '', '', '',
    `x-ms-date:${date}`, `x-ms-version:${version}`,
    `/${AZ_ACCOUNT}${pathPart}\nrestype:container`].join('\n');
  const sig = crypto.createHmac('sha256', Buffer.from(AZ_KEY, 'base64')).update(sts).digest('base64');
  return new Promise((resolve, reject) => {
    const r = http.request({ host: '127.0.0.1', port, method: 'PUT', path: `${pathPart}?restype=container`,
      headers: { 'x-ms-date': date, 'x-ms-version': version, authorization: `SharedKey ${AZ_ACCOUNT}:${sig}`, 'content-length': 0 } },
    (res) => { res.resume(); res.on('end', () => resolve(res.statusCode)); });
    r.on('error', reject);
    r.end();
  });
}

let azuritePort = 0;
if (args['azurite-port']) {
  azuritePort = Number(args['azurite-port']);
  const bin = path.join(here, 'node_modules', 'azurite', 'dist', 'src', 'blob', 'main.js');
  const child = spawn(process.execPath, [bin, '--blobHost', '127.0.0.1', '--blobPort', String(azuritePort),
    '--location', path.join(dir, 'azurite'), '--silent', '--skipApiVersionCheck', '--disableProductStyleUrl'],
  { stdio: ['ignore', 'ignore', 'inherit'] });
  children.push(child);
  child.on('exit', (code) => { console.error(`azurite exited ${code}`); });
  // Azurite takes a while to start on a loaded machine: wait up to 4 minutes.
  let status = 0;
  const deadline = Date.now() + 240000;
  while (Date.now() < deadline && status !== 201 && status !== 409) {
    try { status = await azureCreateContainer(azuritePort, 'inlet-test'); } catch { await sleep(200); }
  }
  if (status !== 201 && status !== 409) {
    console.error(`could not create the Azurite container (status ${status})`);
    shutdown();
  }
}

console.log(`READY s3rver=${s3rverPort} proxy=${proxyPort} azurite=${azuritePort}`);
