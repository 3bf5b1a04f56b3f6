// The baseline of the webhook benchmark: node:https with the same certificate, doing the least an
// admission webhook must: read the body, parse the AdmissionReview, and answer it with its
// request's uid (allowed). Whatever the webhook costs on top of this (express, ajv, defaults,
// the semantic checks) is what the ratio shows.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { join } from 'node:path';

const [certDir, port] = [process.argv[2], Number(process.argv[3])];
createServer({ cert: readFileSync(join(certDir, 'tls.crt')), key: readFileSync(join(certDir, 'tls.key')), minVersion: 'TLSv1.2' }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    let uid = '';
    try {
      uid = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { request?: { uid?: string } }).request?.uid ?? '';
    } catch {
      res.writeHead(400).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid, allowed: true } }));
  });
}).listen(port, '127.0.0.1', () => console.log('listening'));
