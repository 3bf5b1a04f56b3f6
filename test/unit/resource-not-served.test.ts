// Which refusals of a write mean that the API server does not serve the kind now (a CRD removed,
// before discovery says so), and which are about the object, its namespace, or someone's own 404.
import { strict as assert } from 'node:assert';
import { resourceNotServed } from '../../controller/runtime/api-errors.js';

const refusal = (code: number, body: unknown) => Object.assign(new Error(`HTTP ${code}`), { code, body: typeof body === 'string' ? body : JSON.stringify(body) });

describe('resourceNotServed', () => {
  it('the path not served: text before 1.38, a Status naming nothing from 1.38; a create while the CRD is being deleted', () => {
    assert.equal(resourceNotServed(refusal(404, '404 page not found\n')), 'its path answers 404 page not found');
    assert.equal(resourceNotServed(refusal(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', message: 'the server could not find the requested resource', code: 404 })),
      'its path answers 404: the server could not find the requested resource');
    assert.match(resourceNotServed(refusal(405, { kind: 'Status', reason: 'MethodNotAllowed', message: 'create not allowed while custom resource definition is terminating', code: 405 }))!, /^its CRD is being deleted/);
  });

  it('not: an object or a namespace not found (named in details), an admission webhook\'s or a proxy\'s own 404, other errors', () => {
    for (const err of [
      refusal(404, { kind: 'Status', reason: 'NotFound', message: 'httproutes.gateway.networking.k8s.io "web" not found', details: { name: 'web', group: 'gateway.networking.k8s.io', kind: 'httproutes' }, code: 404 }),
      refusal(404, { kind: 'Status', reason: 'NotFound', message: 'namespaces "shop" not found', details: { name: 'shop', kind: 'namespaces' }, code: 404 }),
      refusal(404, { kind: 'Status', status: 'Failure', message: 'admission webhook "routes.example.com" denied the request: no such listener', code: 404 }),
      refusal(404, { error: 'not found' }),
      refusal(404, '<html>Not Found</html>'),
      refusal(404, ''),
      refusal(409, { kind: 'Status', reason: 'Conflict', message: 'the object has been modified', code: 409 }),
      new Error('connect ECONNREFUSED'),
    ]) assert.equal(resourceNotServed(err), undefined, String((err as { body?: string }).body ?? err.message));
  });
});
