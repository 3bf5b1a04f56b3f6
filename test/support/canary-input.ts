// The step engine's input and observations as the canary unit tests build them: a fixed clock,
// four steps, stable on web:1 and a canary of web:2. Revisions are named after the image here;
// any change of the pod template makes one.
import type { CanaryInput, CanaryObserved } from '../../controller/canary/plan.js';
import type { CanaryStatus } from '../../shared/app-types.js';

export const NOW = new Date('2026-11-22T10:00:00Z');
export const ago = (s: number) => new Date(NOW.getTime() - s * 1000).toISOString();
export const STEPS = [{ setWeight: 20 }, { pause: { duration: '60s' } }, { setWeight: 50 }, { pause: {} }];

export function input(over: Partial<CanaryInput> = {}, status: CanaryInput['status'] = {}): CanaryInput {
  const image = over.image ?? 'web:2';
  return { steps: STEPS, replicas: 4, progressDeadlineSeconds: 600, scaleDownDelaySeconds: 0, annotations: {}, ...over, image, revision: over.revision ?? image, status: { stableRevision: 'web:1', stableImage: 'web:1', ...status } };
}
export const canary = (c: Partial<CanaryStatus>): CanaryStatus => ({ image: 'web:2', revision: 'web:2', weight: 0, stepIndex: 0, stepStartedAt: ago(0), ...c });
export const none: CanaryObserved = { canaryObjectsExist: false, stableDeployment: { revision: 'web:1', available: true } };
export const withCanary = (replicas: number, available: boolean, routerWeight: number, revision = 'web:2'): CanaryObserved => ({
  canaryObjectsExist: true, canaryDeployment: { revision, replicas, available }, routerWeight, stableDeployment: { revision: 'web:1', available: true },
});
