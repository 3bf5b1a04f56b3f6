// One word for how an App's rollout stands, the same in `kubectl skiff list`, the dashboard and
// the controller's skiff_app_phase metric: Degraded needs a person, Paused waits for one,
// Progressing is moving (or not yet looked at by the controller), Healthy is done. Pure.
import type { App } from './app-types.js';

export const APP_HEALTH = ['Healthy', 'Progressing', 'Paused', 'Degraded'] as const;
export type AppHealth = (typeof APP_HEALTH)[number];

type Rollout = { paused?: boolean };

export function appHealth(app: Pick<App, 'metadata' | 'status'> & { spec?: App['spec'] }): AppHealth {
  const status = app.status ?? {};
  const condition = (type: string) => status.conditions?.find((c) => c.type === type);
  if (condition('Degraded')?.status === 'True') return 'Degraded';
  if ((app.spec?.rollout as Rollout | undefined)?.paused === true) return 'Paused';
  const observed = status.observedGeneration ?? 0;
  const generation = app.metadata.generation ?? 0;
  const moving = observed < generation
    || condition('Progressing')?.status === 'True'
    || condition('Ready')?.status !== 'True'
    || status.canary !== undefined
    || (status as { blueGreen?: unknown }).blueGreen !== undefined;
  return moving ? 'Progressing' : 'Healthy';
}
