import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { appSchema } from '../../shared/app-schema.js';
import { appCRD, appCRDYaml, toStructural } from '../../shared/crd.js';

const committed = readFileSync(new URL('../../../config/crd/bases/skiff.dev_apps.yaml', import.meta.url), 'utf8');

function walk(schema: Record<string, any>, path: string, visit: (s: Record<string, any>, path: string) => void) {
  visit(schema, path);
  for (const [k, v] of Object.entries(schema.properties ?? {})) walk(v as Record<string, any>, `${path}.${k}`, visit);
  if (schema.items) walk(schema.items, `${path}[]`, visit);
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') walk(schema.additionalProperties, `${path}{}`, visit);
}

describe('CRD', () => {
  it('the committed CRD is exactly what the generator produces (run `npm run generate`)', () => {
    assert.equal(committed, appCRDYaml());
  });

  it('follows api.md: names, scope, category, version, status subresource, printer columns', () => {
    const [doc] = parseAllDocuments(committed).map((d) => d.toJS());
    assert.equal(doc.metadata.name, 'apps.skiff.dev');
    assert.deepEqual(doc.spec.names, { kind: 'App', listKind: 'AppList', plural: 'apps', singular: 'app', categories: ['skiff'] });
    assert.equal(doc.spec.scope, 'Namespaced');
    const [v] = doc.spec.versions;
    assert.deepEqual([v.name, v.served, v.storage], ['v1alpha1', true, true]);
    assert.deepEqual(v.subresources, { status: {} });
    assert.deepEqual(v.additionalPrinterColumns.map((c: { name: string }) => c.name), ['Image', 'Ready', 'Canary Weight', 'BlueGreen', 'Status', 'URL', 'Age']);
  });

  it('describes every field and keeps no webhook-only keywords', () => {
    const schema = (appCRD() as any).spec.versions[0].schema.openAPIV3Schema;
    walk(schema.properties.spec, 'spec', (s, path) => {
      assert.ok(typeof s.description === 'string' && s.description.length > 10, `${path} has no description`);
      assert.equal(s['x-skiff-message'], undefined, path);
      assert.notEqual(s.additionalProperties, false, `${path}: additionalProperties false is not structural`);
    });
    walk(schema.properties.status, 'status', (s, path) => assert.ok(s.description, `${path} has no description`));
  });

  it('keeps unknown spec fields for the webhook to reject instead of pruning them', () => {
    const spec = (toStructural(appSchema) as Record<string, any>).properties;
    assert.equal(spec.spec['x-kubernetes-preserve-unknown-fields'], true);
    assert.equal(spec.spec.properties.ingress['x-kubernetes-preserve-unknown-fields'], true);
  });

  it('writes int-or-string fields as Kubernetes wants them: no type, anyOf integer|string, x-kubernetes-int-or-string', () => {
    const schema = (appCRD() as any).spec.versions[0].schema.openAPIV3Schema;
    const found: string[] = [];
    walk(schema.properties.spec, 'spec', (s, path) => {
      if (!s.anyOf) return;
      found.push(path);
      assert.equal(s.type, undefined, path);
      assert.equal(s['x-kubernetes-int-or-string'], true, path);
      assert.deepEqual(s.anyOf, [{ type: 'integer' }, { type: 'string' }], path);
    });
    for (const path of ['spec.probes.readiness.httpGet.port', 'spec.probes.startup.tcpSocket.port', 'spec.disruption.maxUnavailable',
      'spec.disruption.minAvailable', 'spec.volumes[].emptyDir.sizeLimit', 'spec.env[].valueFrom.resourceFieldRef.divisor'])
      assert.ok(found.includes(path), `${path} in ${found.join(', ')}`);
  });

  it('keys the env and volume lists by name, as a Deployment does', () => {
    const spec = (appCRD() as any).spec.versions[0].schema.openAPIV3Schema.properties.spec.properties;
    for (const list of ['env', 'volumes']) {
      assert.equal(spec[list]['x-kubernetes-list-type'], 'map', list);
      assert.deepEqual(spec[list]['x-kubernetes-list-map-keys'], ['name'], list);
      assert.ok(spec[list].items.required.includes('name'), list);
    }
  });

  it('carries the same constraints as the schema the webhook validates with', () => {
    const crdSpec = (appCRD() as any).spec.versions[0].schema.openAPIV3Schema.properties.spec;
    const source = appSchema.properties as Record<string, any>;
    assert.equal(crdSpec.properties.replicas.maximum, source.spec.properties.replicas.maximum);
    assert.equal(crdSpec.properties.image.pattern, source.spec.properties.image.pattern);
    assert.deepEqual(crdSpec.required, ['image']);
  });
});
