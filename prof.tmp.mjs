import { customQuery, placeholderValues } from '/work/main/dist/shared/custom-queries.js';
const v = placeholderValues('ns', 'web', '1m');
const qs = ['sum(rate(http_requests_total{job="x",code=~"5.."}[{{interval}}])) / sum(rate(http_requests_total{job="x"}[{{interval}}]))', 'sum('.repeat(10) + 'a' + ')'.repeat(10), 'sum('.repeat(819) + 'a' + ')'.repeat(819)];
for (const q of qs) {
  for (let i = 0; i < 20; i++) customQuery(q, v);
  const t = performance.now();
  for (let i = 0; i < 50; i++) customQuery(q, v);
  console.log(q.length, ((performance.now() - t) / 50).toFixed(3), 'ms');
}
