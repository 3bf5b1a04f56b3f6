// Builds the CustomResourceDefinition from the one schema (pure; see generate-crd.ts).
import { stringify } from 'yaml';
import { API_VERSION, GROUP, KIND, PLURAL, VERSION } from './app-types.js';
import { appSchema, type JSONSchema } from './app-schema.js';

/** The schema as the API server wants it: structural, with no webhook-only keywords. */
export function toStructural(schema: JSONSchema): JSONSchema {
  const out: JSONSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'x-skiff-message') continue;
    if (key === 'additionalProperties' && value === false) {
      // Keep unknown fields so the validating webhook sees and rejects them (pruning would
      // drop them silently before admission).
      out['x-kubernetes-preserve-unknown-fields'] = true;
      continue;
    }
    if (key === 'properties' && value && typeof value === 'object') {
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, JSONSchema>).map(([k, v]) => [k, toStructural(v)]),
      );
    } else if ((key === 'items' || key === 'additionalProperties') && value && typeof value === 'object') {
      out[key] = toStructural(value as JSONSchema);
    } else if (key === 'anyOf' && Array.isArray(value)) {
      out.anyOf = value.map((v) => toStructural(v as JSONSchema));
    } else {
      out[key] = value;
    }
  }
  return out;
}

export function appCRD(): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${PLURAL}.${GROUP}` },
    spec: {
      group: GROUP,
      names: { kind: KIND, listKind: `${KIND}List`, plural: PLURAL, singular: 'app', categories: ['skiff'] },
      scope: 'Namespaced',
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [
            { name: 'Image', type: 'string', jsonPath: '.spec.image' },
            { name: 'Ready', type: 'string', jsonPath: '.status.ready', description: 'readyReplicas/replicas' },
            { name: 'Canary Weight', type: 'integer', jsonPath: '.status.canary.weight', description: 'Canary weight (percent)' },
            { name: 'BlueGreen', type: 'string', jsonPath: '.status.blueGreen.phase', description: 'Blue-green phase: Preview, Switched or ScalingDown' },
            { name: 'Status', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].reason' },
            { name: 'URL', type: 'string', jsonPath: '.status.url' },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
          schema: { openAPIV3Schema: toStructural(appSchema) },
        },
      ],
    },
  };
}

export const CRD_HEADER = `# Generated from shared/app-schema.ts by \`npm run generate\`. Do not edit by hand.\n`;

export function appCRDYaml(): string {
  return CRD_HEADER + `# ${API_VERSION} ${KIND}\n---\n` + stringify(appCRD(), { lineWidth: 0 });
}
