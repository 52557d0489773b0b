// A local S3 for the tests: s3rver (which checks no signature) behind a front
// that does what S3 does and s3rver does not. It checks each request's SigV4
// signature with aws4 (a mismatch: 403 SignatureDoesNotMatch; an unknown key:
// 403 InvalidAccessKeyId), keeps the bucket "private" closed to anonymous
// requests, answers a request signed for another region than the bucket's
// with 301 PermanentRedirect and x-amz-bucket-region, and injects failures set
// by POST /__faults (JSON): {"fail": N} the next N requests get 503 with
// Retry-After, {"forbid_missing": true} missing keys answer 403 AccessDenied,
// {"bad_range": N} the next N ranged answers carry a wrong Content-Range,
// {"list_error": N} the next N listings answer 200 with an <Error> document,
// {"list_loop": N} the next N listings answer a truncated page whose
// continuation token is always the same, {"long_part": N} the next N ranged
// answers carry 1 MiB more than the range asked.
// GET /__stats: requests seen. Prints its URL, then serves until killed.
// Usage: node front.js DIR [--region us-east-1] [--bucket-region NAME=REGION]...
'use strict';
const http = require('http');
const aws4 = require('aws4');
const S3rver = require('s3rver');

const KEY = 'AKIAIPFSRTTEST', SECRET = 'ipfsrt-test-secret', TOKEN = 'ipfsrt-session-token';
const args = process.argv.slice(2);
const dir = args[0];
const regionOf = { pub: 'us-east-1', private: 'us-east-1', data: 'us-east-1' };
for (let i = 1; i < args.length; i++) {
  if (args[i] === '--bucket-region') {
    const [b, r] = args[++i].split('=');
    regionOf[b] = r;
  }
}
const faults = { fail: 0, forbid_missing: false, bad_range: 0, list_error: 0, list_loop: 0, long_part: 0 };
const stats = { requests: 0, signed: 0, anonymous: 0, ranged: 0 };

function xmlError(res, status, code, message, extra) {
  res.writeHead(status, Object.assign({ 'Content-Type': 'application/xml' }, extra || {}));
  res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message>` +
    `${extra && extra['x-amz-bucket-region'] ? `<Region>${extra['x-amz-bucket-region']}</Region>` : ''}` +
    '<RequestId>ipfsrt-test</RequestId></Error>');
}

// The signature check: the request re-signed with the test secret over the
// headers it says it signed; null when it holds, else the error to answer.
function checkSignature(req) {
  const auth = req.headers.authorization;
  const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]+)$/.exec(auth);
  if (!m) return ['AccessDenied', 'Unsupported Authorization header'];
  const [, key, , region, signedHeaders, signature] = m;
  if (key !== KEY) return ['InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.'];
  const headers = {};
  for (const h of signedHeaders.split(';')) headers[h] = req.headers[h];
  if (!req.headers['x-amz-content-sha256']) return ['AccessDenied', 'x-amz-content-sha256 is missing'];
  const token = req.headers['x-amz-security-token'];
  if (token !== undefined && token !== TOKEN) return ['InvalidToken', 'The provided token is malformed or otherwise invalid.'];
  const opts = { host: req.headers.host, path: req.url, method: req.method, headers, service: 's3', region };
  aws4.sign(opts, { accessKeyId: KEY, secretAccessKey: SECRET });
  const again = /Signature=([0-9a-f]+)/.exec(opts.headers.Authorization)[1];
  if (again !== signature) return ['SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.'];
  return region;
}

function bucketOf(url) {
  return decodeURIComponent(url.split('?')[0].split('/')[1] || '');
}

function forward(req, res, body, port) {
  const headers = Object.assign({}, req.headers);
  delete headers.authorization;
  const up = http.request({ host: '127.0.0.1', port, path: req.url, method: req.method, headers }, (r) => {
    const h = Object.assign({}, r.headers);
    if (faults.forbid_missing && r.statusCode === 404 && req.method === 'GET' && req.url.indexOf('list-type') < 0) {
      r.resume();
      return xmlError(res, 403, 'AccessDenied', 'Access Denied');
    }
    if (r.statusCode === 206 && faults.long_part > 0) {
      faults.long_part--;
      delete h['content-length'];
      res.writeHead(206, h);
      r.on('end', () => res.end(Buffer.alloc(1 << 20)));
      return r.pipe(res, { end: false });
    }
    if (r.statusCode === 206 && faults.bad_range > 0) {
      faults.bad_range--;
      h['content-range'] = h['content-range'].replace(/^bytes (\d+)-/, (_, a) => `bytes ${Number(a) + 1}-`);
    }
    res.writeHead(r.statusCode, h);
    r.pipe(res);
  });
  up.on('error', (e) => xmlError(res, 502, 'BadGateway', String(e)));
  up.end(body);
}

function control(req, res, body) {
  if (req.method === 'POST' && req.url === '/__faults') {
    Object.assign(faults, JSON.parse(body.toString() || '{}'));
    res.end('ok');
  } else {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify(stats));
  }
}

function handle(req, res, body, port) {
  if (req.url.startsWith('/__')) return control(req, res, body);
  stats.requests++;
  const bucket = bucketOf(req.url);
  let region = null;
  if (req.headers.authorization) {
    stats.signed++;
    const r = checkSignature(req);
    if (Array.isArray(r)) return xmlError(res, 403, r[0], r[1]);
    region = r;
  } else {
    stats.anonymous++;
    if (bucket === 'private') return xmlError(res, 403, 'AccessDenied', 'Access Denied');
  }
  if (region && regionOf[bucket] && region !== regionOf[bucket])
    return xmlError(res, 301, 'PermanentRedirect', 'The bucket is in another region.',
      { 'x-amz-bucket-region': regionOf[bucket] });
  if (faults.fail > 0) {
    faults.fail--;
    return xmlError(res, 503, 'SlowDown', 'Please reduce your request rate.', { 'Retry-After': '0' });
  }
  if (req.headers.range) stats.ranged++;
  if (req.url.indexOf('list-type') >= 0 && faults.list_error > 0) {
    faults.list_error--;
    res.writeHead(200, { 'Content-Type': 'application/xml' });
    return res.end('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>InternalError</Code>' +
      '<Message>We encountered an internal error.</Message></Error>');
  }
  if (req.url.indexOf('list-type') >= 0 && faults.list_loop > 0) {
    faults.list_loop--;
    res.writeHead(200, { 'Content-Type': 'application/xml' });
    return res.end('<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult><Name>' + bucket + '</Name>' +
      '<IsTruncated>true</IsTruncated><NextContinuationToken>again</NextContinuationToken>' +
      '<Contents><Key>x</Key><Size>1</Size></Contents></ListBucketResult>');
  }
  forward(req, res, body, port);
}

async function main() {
  const s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir,
    configureBuckets: Object.keys(regionOf).map((name) => ({ name })) });
  const { port } = await s3.run();
  const front = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(chunks), port));
  });
  front.keepAliveTimeout = 30000;
  front.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${front.address().port}`));
}

main().catch((e) => { console.error(e); process.exit(1); });
