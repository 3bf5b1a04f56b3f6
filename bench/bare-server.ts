// The baseline of the webhook benchmark: node:https with the same certificate, answering every
// request with a fixed AdmissionReview after reading the body. Whatever the webhook costs on top
// of this (express, JSON parsing, ajv, defaults) is what the ratio shows.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { join } from 'node:path';

const [certDir, port] = [process.argv[2], Number(process.argv[3])];
const answer = JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'bench', allowed: true } });
createServer({ cert: readFileSync(join(certDir, 'tls.crt')), key: readFileSync(join(certDir, 'tls.key')), minVersion: 'TLSv1.2' }, (req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(answer);
  });
}).listen(port, '127.0.0.1', () => console.log('listening'));
