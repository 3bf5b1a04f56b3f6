// A paused App whose new pod template waits to start (spec.rollout.paused), over reconcile() and
// the in-memory cluster, and a command annotation sent to it that the controller consumes with a
// Warning Event instead of acting on it. Shared by the unit tests of skiff.dev/abort and
// skiff.dev/promote on such a change.
import { strict as assert } from 'node:assert';
import type { AppSpec } from '../../shared/app-types.js';
import { condition } from './apps.js';
import { markAvailable, setup } from './reconciler.js';

export type Reconciled = ReturnType<typeof setup>;

/** An App of the strategy, web:1 available; then web:2 with spec.rollout.paused, which waits to start. */
export async function heldChange(strategy: 'Canary' | 'BlueGreen'): Promise<Reconciled> {
  const spec: AppSpec = { image: 'registry.example/web:1', replicas: 2, ingress: { host: 'web.example.com' }, rollout: { strategy } };
  const t = setup(spec);
  await t.run();
  markAvailable(t.cluster, 'web');
  await t.run();
  t.setSpec((s) => ({ ...s, image: 'registry.example/web:2', rollout: { ...s.rollout, paused: true } }));
  await t.run();
  assert.equal(condition(t.app(), 'Progressing')?.reason, 'RolloutPaused', 'the change waits to start');
  return t;
}

/** Puts the annotation skiff.dev/<command> on the App. */
export const annotate = (t: Reconciled, command: 'abort' | 'promote') =>
  t.cluster.put({ ...t.app(), metadata: { ...t.app().metadata, annotations: { [`skiff.dev/${command}`]: 'true' } } });

/**
 * Puts skiff.dev/<command> on the App and runs one pass. Asserts that the pass consumed the
 * annotation and recorded exactly one Event, a Warning <reason>, whose message names the held
 * image and spec.rollout.paused; returns that message for the caller's own assertions.
 */
export async function ignoredCommand(t: Reconciled, command: 'abort' | 'promote', reason: string): Promise<string> {
  annotate(t, command);
  const events = t.cluster.events.length;
  await t.run();

  assert.equal(t.app().metadata.annotations?.[`skiff.dev/${command}`], undefined, 'the annotation is consumed');
  const said = t.cluster.events.slice(events);
  assert.deepEqual(said.map((e) => `${e.type} ${e.reason}`), [`Warning ${reason}`]);
  assert.match(said[0].message, /registry\.example\/web:2/);
  assert.match(said[0].message, /waits for spec\.rollout\.paused/);
  return said[0].message;
}

/** Said once: the next pass has no annotation and records no Event of the reason. */
export async function notSaidAgain(t: Reconciled, reason: string): Promise<void> {
  const after = t.cluster.events.length;
  await t.run();
  assert.deepEqual(t.cluster.events.slice(after).filter((e) => e.reason === reason), []);
}
