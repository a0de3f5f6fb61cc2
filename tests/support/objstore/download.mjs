// Test tooling only: copies every object below a prefix of an emulated store
// to a local directory, with the stores' own SDKs (@aws-sdk/client-s3,
// @azure/storage-blob), so tests can check a table inlet wrote to an object
// store with local readers (refcheck, the Delta rules checker) without going
// through inlet's own storage code.
//
//   node download.mjs s3 ENDPOINT BUCKET PREFIX DESTDIR   (key S3RVER/S3RVER)
//   node download.mjs az CONNECTION_STRING CONTAINER PREFIX DESTDIR
//
// Prints the number of objects copied. Keys become paths relative to PREFIX.
import fs from 'node:fs';
import path from 'node:path';

const [kind, where, bucket, prefixArg, dest] = process.argv.slice(2);
if (!kind || !where || !bucket || prefixArg === undefined || !dest) {
  console.error('usage: download.mjs s3|az ENDPOINT|CONNSTR BUCKET PREFIX DESTDIR');
  process.exit(2);
}
const prefix = prefixArg && !prefixArg.endsWith('/') ? prefixArg + '/' : prefixArg;

function target(key) {
  const rel = key.slice(prefix.length);
  if (!rel || rel.split('/').some((c) => c === '..' || c === '')) throw new Error(`bad key ${key}`);
  const file = path.join(dest, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  return file;
}

let n = 0;
if (kind === 's3') {
  const { S3Client, ListObjectsV2Command, GetObjectCommand } = await import('@aws-sdk/client-s3');
  const s3 = new S3Client({
    endpoint: where, region: 'us-east-1', forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  let token;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
    for (const o of page.Contents ?? []) {
      const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: o.Key }));
      fs.writeFileSync(target(o.Key), Buffer.from(await got.Body.transformToByteArray()));
      n++;
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
} else if (kind === 'az') {
  const { BlobServiceClient } = await import('@azure/storage-blob');
  const container = BlobServiceClient.fromConnectionString(where).getContainerClient(bucket);
  for await (const b of container.listBlobsFlat({ prefix })) {
    const buf = await container.getBlobClient(b.name).downloadToBuffer();
    fs.writeFileSync(target(b.name), buf);
    n++;
  }
} else {
  console.error(`unknown store ${kind}`);
  process.exit(2);
}
console.log(n);
