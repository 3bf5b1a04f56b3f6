// The ingress-nginx stand-in of `npm run dev`: shares of errors and slow requests come out exact
// over time even though the simulator sets every App's traffic again each second.
import { strict as assert } from 'node:assert';
import { startTrafficExporter, type TrafficExporter } from '../../dev/nginx-traffic.js';

const key = { namespace: 'shop', ingress: 'web' };

async function counts(exporter: TrafficExporter): Promise<{ errors: number; all: number; slow: number }> {
  const text = await (await fetch(`${exporter.url}/metrics`)).text();
  const canary = text.split('\n').filter((l) => l.includes('canary="shop-web-canary-80"'));
  const sum = (name: string, ...parts: string[]) =>
    canary.filter((l) => l.startsWith(`${name}{`) && parts.every((p) => l.includes(p))).reduce((n, l) => n + Number(l.split(' ').pop()), 0);
  const bucket = (le: string) => sum('nginx_ingress_controller_response_duration_seconds_bucket', `le="${le}"`);
  return {
    errors: sum('nginx_ingress_controller_requests', 'status="500"'),
    all: sum('nginx_ingress_controller_requests'),
    // Requests slower than 1 s: the +Inf bucket less the 1 s one.
    slow: bucket('+Inf') - bucket('1'),
  };
}

describe('dev ingress-nginx traffic', () => {
  it('keeps a 5 % error share and a 3 % slow tail exact when the same traffic is set again every second', async () => {
    let now = 1_000_000;
    const exporter = await startTrafficExporter({ tickMs: 3_600_000, now: () => now });
    try {
      const traffic = { rps: 4, errorRatio: 0.05, latencyMs: 40, slow: { ratio: 0.03, ms: 2000 } };
      for (let second = 0; second < 100; second++) {
        exporter.setTraffic(key, 'canary', traffic);
        now += 1000;
      }
      const c = await counts(exporter);
      assert.equal(c.all, 400);
      assert.equal(c.errors, 20, 'a 5 % share of 400 requests');
      assert.equal(c.slow, 12, 'a 3 % slow tail of 400 requests');
    } finally {
      await exporter.stop();
    }
  });

  it('labels the requests with the Service set last, even when the traffic stays the same', async () => {
    let now = 1_000_000;
    const exporter = await startTrafficExporter({ tickMs: 3_600_000, now: () => now });
    try {
      const traffic = { rps: 10, errorRatio: 0, latencyMs: 40 };
      exporter.setTraffic(key, 'stable', traffic);
      now += 10_000;
      exporter.setTraffic({ ...key, service: 'web-green' }, 'stable', traffic);
      now += 10_000;
      exporter.setTraffic({ ...key, service: 'web-green' }, 'stable', traffic);
      const text = await (await fetch(`${exporter.url}/metrics`)).text();
      const requests = (service: string) => text.split('\n')
        .filter((l) => l.startsWith('nginx_ingress_controller_requests{') && l.includes(`service="${service}"`))
        .reduce((n, l) => n + Number(l.split(' ').pop()), 0);
      assert.equal(requests('web'), 100, 'the 10 s before the Service changed');
      assert.equal(requests('web-green'), 100, 'the 10 s after it, under the new Service');
    } finally {
      await exporter.stop();
    }
  });

  it('counts a changed setting afresh from the moment it was set', async () => {
    let now = 1_000_000;
    const exporter = await startTrafficExporter({ tickMs: 3_600_000, now: () => now });
    try {
      exporter.setTraffic(key, 'canary', { rps: 10, errorRatio: 0, latencyMs: 40 });
      now += 10_000;
      exporter.setTraffic(key, 'canary', { rps: 10, errorRatio: 0.5, latencyMs: 40 });
      now += 10_000;
      const c = await counts(exporter);
      assert.equal(c.all, 200);
      assert.equal(c.errors, 50, 'half of the 100 requests after the change, none of the 100 before');
    } finally {
      await exporter.stop();
    }
  });
});
