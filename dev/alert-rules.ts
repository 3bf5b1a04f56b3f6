// The rollout alerts of config/prometheus as a plain Prometheus rule file: the PrometheusRule's
// groups, which is what Prometheus without the Operator (and promtool) reads.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const PROMETHEUS_RULE_FILE = join(root, 'config', 'prometheus', 'prometheus-rule.yaml');

/** Writes `rules.yaml` into `dir` from the PrometheusRule; returns its path. */
export function writeAlertRules(dir: string): string {
  const rule = parse(readFileSync(PROMETHEUS_RULE_FILE, 'utf8')) as { kind?: string; spec?: { groups?: unknown[] } };
  if (rule.kind !== 'PrometheusRule' || !Array.isArray(rule.spec?.groups)) throw new Error(`${PROMETHEUS_RULE_FILE} is not a PrometheusRule with spec.groups`);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'rules.yaml');
  writeFileSync(path, stringify({ groups: rule.spec.groups }));
  return path;
}
