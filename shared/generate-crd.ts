// npm run generate: writes config/crd/bases/skiff.dev_apps.yaml from the one schema.
import { writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { appCRDYaml } from './crd.js';

export const CRD_PATH = 'config/crd/bases/skiff.dev_apps.yaml';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const target = join(root, CRD_PATH);
mkdirSync(dirname(target), { recursive: true });
writeFileSync(target, appCRDYaml());
console.log(`wrote ${CRD_PATH}`);
