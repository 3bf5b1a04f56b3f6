// A blue-green App as the plugin reads it, its Service switched to the preview: stable web:1
// (revision aaaaaaaaaa), the preview web:2 (bbbbbbbbbb), switched at 12:00:00, the old pods going
// at 12:01:00 on the day given.
import type { CliApp } from '../../cli/model.js';

export function switchedBlueGreenApp(day = '2026-11-29'): CliApp {
  return {
    apiVersion: 'skiff.dev/v1alpha1', kind: 'App',
    metadata: { name: 'web', namespace: 'shop', uid: 'web-uid', generation: 2, creationTimestamp: `${day}T11:00:00Z` },
    spec: { image: 'web:2', rollout: { strategy: 'BlueGreen' } },
    status: {
      observedGeneration: 2, stableImage: 'web:1', stableRevision: 'aaaaaaaaaa', updateRevision: 'bbbbbbbbbb',
      blueGreen: { phase: 'Switched', previewRevision: 'bbbbbbbbbb', activeRevision: 'bbbbbbbbbb', image: 'web:2', switchedAt: `${day}T12:00:00.000Z`, scaleDownAt: `${day}T12:01:00.000Z` },
    },
  };
}
