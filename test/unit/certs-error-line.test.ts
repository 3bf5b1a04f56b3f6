// What the certs tool prints when the API server refuses a request: its own message, once, on one
// line (client-node's error message carries the headers and the body, and the body came again).
import { strict as assert } from 'node:assert';
import { errorLine } from '../../certs/run.js';

describe('certs tool: the line of an error', () => {
  it('an API server refusal: the Status message and the HTTP code, nothing else', () => {
    const status = { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'secrets "x" is forbidden: User "u" cannot get resource "secrets"', reason: 'Forbidden', code: 403 };
    const err = Object.assign(new Error(`HTTP-Code: 403\nMessage: Unknown API Status Code!\nBody: ${JSON.stringify(JSON.stringify(status))}\nHeaders: {"audit-id":"a"}`), { code: 403, body: JSON.stringify(status) });
    assert.equal(errorLine(err), 'secrets "x" is forbidden: User "u" cannot get resource "secrets" (HTTP 403)');
    assert.equal(errorLine(Object.assign(new Error('x'), { code: 403, body: status })), `${status.message} (HTTP 403)`, 'a body already parsed');
  });

  it('a body that is not a Status: cut to a few hundred characters; no body: the message', () => {
    assert.equal(errorLine(Object.assign(new Error('x'), { code: 502, body: '<html>bad gateway</html>' })), '<html>bad gateway</html> (HTTP 502)');
    assert.equal(errorLine(Object.assign(new Error('x'), { code: 500, body: 'y'.repeat(1000) })).length, 300 + ' (HTTP 500)'.length);
    assert.equal(errorLine(new Error('connect ECONNREFUSED 127.0.0.1:6443')), 'connect ECONNREFUSED 127.0.0.1:6443');
    // No answer at all: the cause says where and why.
    assert.equal(errorLine(new Error('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:18799') })), 'fetch failed: connect ECONNREFUSED 127.0.0.1:18799');
  });
});
