// The text of `kubectl skiff list` and `kubectl skiff history`. Pure: objects and `now` in, lines out.
import { age } from './age.js';
import { imageText, statusWord, stepText, strategyOf, type CliApp, type Revision } from './model.js';
import type { Style } from './style.js';
import { table } from './table.js';

export function formatList(apps: CliApp[], opts: { allNamespaces: boolean; now: Date; style: Style }): string[] {
  if (apps.length === 0) return [];
  const sorted = [...apps].sort((a, b) => `${a.metadata.namespace}/${a.metadata.name}`.localeCompare(`${b.metadata.namespace}/${b.metadata.name}`));
  const headers = [...(opts.allNamespaces ? ['NAMESPACE'] : []), 'NAME', 'STRATEGY', 'STATUS', 'STEP', 'WEIGHT', 'IMAGE', 'AGE'];
  const rows = sorted.map((app) => [
    ...(opts.allNamespaces ? [app.metadata.namespace ?? ''] : []),
    app.metadata.name ?? '',
    strategyOf(app),
    opts.style.status(statusWord(app)),
    stepText(app),
    app.status?.canary ? `${app.status.canary.weight}%` : '-',
    imageText(app),
    age(app.metadata.creationTimestamp, opts.now),
  ]);
  return table(headers, rows, opts.style);
}

export function formatHistory(app: CliApp, revisions: Revision[], opts: { now: Date; style: Style }): string[] {
  const rows = [...revisions].sort((a, b) => a.number - b.number).map((r) => {
    const role = r.hash === app.status?.stableRevision && r.outcome === 'Promoted' ? 'stable' : r.outcome === 'Running' ? 'canary' : undefined;
    return [
      String(r.number),
      r.hash || '-',
      r.images.join(',') || '-',
      r.changes.join(', ') || '-',
      opts.style.role(r.outcome, role),
      age(r.startedAt, opts.now),
    ];
  });
  return table(['REVISION', 'HASH', 'IMAGE', 'CHANGES', 'OUTCOME', 'AGE'], rows, opts.style);
}
