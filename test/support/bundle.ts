// The kustomize bundles as objects, built the way users build them (`kubectl kustomize`).
import { execFileSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  [key: string]: unknown;
}

export function kustomizeText(dir: string): string {
  return execFileSync('kubectl', ['kustomize', join(repoRoot, dir)], { encoding: 'utf8', maxBuffer: 64 << 20 });
}

export function kustomize(dir: string): K8sObject[] {
  return parseAllDocuments(kustomizeText(dir)).map((d) => d.toJS() as K8sObject).filter(Boolean);
}
