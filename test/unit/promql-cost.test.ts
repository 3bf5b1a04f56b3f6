// What an analysis query may ask of the Prometheus every App shares: ranges of a week at most, and
// subqueries that evaluate their expression at most 11,000 times (nested ones multiplied).
import { strict as assert } from 'node:assert';
import { confineToNamespace } from '../../shared/promql.js';
import { durationSeconds } from '../../shared/promql-cost.js';
import { customQueryProblem } from '../../shared/custom-queries.js';

const refusal = (q: string) => {
  const r = confineToNamespace(q, 'shop');
  return r.ok ? undefined : r.error;
};

describe('the cost of an analysis query', () => {
  it('reads PromQL durations in seconds; anything else is not one', () => {
    assert.equal(durationSeconds('1h30m'), 5400);
    assert.equal(durationSeconds('500ms'), 0.5);
    assert.equal(durationSeconds('300'), 300);
    assert.equal(durationSeconds('1w'), 604_800);
    assert.equal(durationSeconds('5m+1m'), undefined);
  });

  it('reads a number where a duration goes as Prometheus 3 does: exponent, hexadecimal, _ between digits, Inf', () => {
    assert.equal(durationSeconds('1e7'), 10_000_000);
    assert.equal(durationSeconds('.5e8'), 50_000_000);
    assert.equal(durationSeconds('0x989680'), 10_000_000);
    assert.equal(durationSeconds('10_000_000'), 10_000_000);
    assert.equal(durationSeconds('1e-3'), 0.001);
    assert.equal(durationSeconds('2.5'), 2.5);
    assert.equal(durationSeconds('Inf'), Infinity);
    for (const not of ['1_', '_1', '1__0', '0x', '1e', 'NaN', '5 m']) assert.equal(durationSeconds(not), undefined, not);
  });

  it('refuses ranges and resolutions written as numbers past the bounds, and any it cannot measure', () => {
    for (const [query, at] of [['sum(rate(x[1e7]))', 12], ['sum(rate(x[0x989680]))', 12], ['sum(rate(x[10_000_000]))', 12], ['sum(rate(x[.5e8]))', 12]] as const) {
      assert.match(refusal(query) ?? 'admitted', new RegExp(`^asks too much of Prometheus: the range \\[.+\\] reads .+ of samples; at most 7d are allowed \\(at character ${at}\\)$`), query);
    }
    assert.match(refusal('sum(max_over_time(x[1d:1e-3]))')!, /evaluates its expression 86400000 times \(every 1e-3 over 1d\)/);
    assert.equal(refusal('rate(x[1w*52])'), 'asks too much of Prometheus: the duration 1w*52 is no length the webhook can measure: write it as a duration such as 5m or 1h30m, or a number of seconds, of at least 1ms (at character 8)');
    assert.match(refusal('rate(x[max_of(30d,1d)])')!, /the duration max_of\(30d,1d\) is no length/);
    assert.match(refusal('max_over_time(x[1h:(1m)])')!, /the duration \(1m\) is no length/);
    // Inf as a range, or as a resolution (which would count the subqueries inside as evaluated no
    // times at all), and a resolution below a millisecond.
    assert.match(refusal('rate(x[Inf])')!, /the duration Inf is no length the webhook can measure.*\(at character 8\)$/);
    assert.match(refusal('max_over_time(max_over_time(rate(x[7d])[7d:1ms])[5m:inf])')!, /the duration inf is no length/);
    assert.match(refusal('max_over_time(x[1s:1e-4])')!, /the duration 1e-4 is no length/);
    assert.equal(refusal('rate(x[300])'), undefined);
    assert.equal(refusal('max_over_time(rate(x[5m])[1h:30])'), undefined);
  });

  it('refuses a range read more than 11,000 hours in all by the subqueries around it', () => {
    assert.equal(refusal('max_over_time(sum(rate(x[7d]))[7d:1m])'), 'asks too much of Prometheus: the range [7d] is read 10080 times, once for each evaluation of the subqueries around it: 70560d of samples in all; at most 11000 hours are allowed: give the range or the subqueries less (at character 26)');
    for (const ok of ['max_over_time(rate(x[5m])[7d:1m])', 'max_over_time(rate(x[1h])[1d:10s])', 'avg_over_time(histogram_quantile(0.99, sum by (le) (rate(x[1h])))[7d:5m])', 'sum(rate(a[7d])) / sum(rate(b[7d]))']) assert.equal(refusal(ok), undefined, ok);
    // Added up over the query: five ranges of 2d read in each of a subquery's 168 evaluations, or 71 ranges of 7d.
    assert.match(refusal('max_over_time((rate(a[2d])+rate(b[2d])+rate(c[2d])+rate(d[2d])+rate(e[2d]))[7d:1h])')!, /^asks too much of Prometheus: with the range \[2d\] the query's ranges read 672d of samples in all \(each once for every evaluation of the subqueries around it\); at most 11000 hours are allowed: read fewer or shorter ranges \(at character 35\)$/);
    const many = Array.from({ length: 71 }, (_, i) => `rate(x${i}[7d])`).join(' + ');
    assert.match(refusal(many)!, /the query's ranges read 462d of samples in all/);
    assert.equal(refusal(Array.from({ length: 65 }, (_, i) => `rate(x${i}[7d])`).join(' + ')), undefined, '65 weeks: 10,920 hours');
  });

  it('refuses a range longer than a week, in a selector or a subquery, saying where', () => {
    assert.equal(refusal('sum(sum_over_time(x[999999h:1ms]))'), 'asks too much of Prometheus: the range [999999h] reads 999999h of samples; at most 7d are allowed (at character 21)');
    assert.equal(refusal('rate(x[8d])'), 'asks too much of Prometheus: the range [8d] reads 8d of samples; at most 7d are allowed (at character 8)');
    assert.equal(refusal('rate(x[7d])'), undefined);
    assert.equal(refusal('rate(x[1w])'), undefined);
  });

  it('refuses a subquery of more than 11,000 evaluations: its resolution (15s counted when none is given), nested ones multiplied', () => {
    assert.equal(refusal('sum_over_time(x[24h:1s])'), 'asks too much of Prometheus: a subquery evaluates its expression 86400 times (every 1s over 24h); at most 11000 are allowed: give it a coarser resolution or a shorter range (at character 15)');
    assert.match(refusal('max_over_time(rate(x[5m])[2d:])')!, /evaluates its expression 11520 times \(every 15s, counted for a subquery without a resolution over 2d\)/);
    assert.match(refusal('max_over_time(max_over_time(x[1h:1m])[1h:1s])')!, /216000 times \(every 1m over 1h, times 3600 for the subqueries around it\)/);
    for (const ok of ['max_over_time(rate(x[5m])[1h:])', 'avg_over_time(x[1h:1s])', 'max_over_time(max_over_time(x[10m:1m])[1h:1m])', 'max_over_time(rate(x[5m])[45h:])']) assert.equal(refusal(ok), undefined, ok);
  });

  it('refuses subqueries side by side that evaluate their expressions more than 44,000 times in all (four at the bound of one), each within it', () => {
    // Sixty of 10,910 evaluations each: one query of 654,600, which held a check's slot until its timeout.
    const sixty = Array.from({ length: 60 }, () => 'max_over_time(sum(x)[1h:330ms])').join(' + ');
    assert.equal(refusal(sixty), 'asks too much of Prometheus: with this subquery the query\'s subqueries evaluate their expressions 54550 times in all; at most 44000 are allowed: use fewer subqueries, coarser resolutions or shorter ranges (at character 151)');
    const five = Array.from({ length: 5 }, (_, i) => `max_over_time(x${i}[3h:1s])`).join(' + ');
    assert.match(refusal(five)!, /evaluate their expressions 54000 times in all/);
    // Four at 10,800; a z-score against the day before (two [1d:], 5,760 each at 15s); a nested one's 60 and the 600 it nests.
    for (const ok of [
      Array.from({ length: 4 }, (_, i) => `max_over_time(x${i}[3h:1s])`).join(' + '),
      '(sum(rate(x[5m])) - avg_over_time(sum(rate(x[5m]))[1d:])) / stddev_over_time(sum(rate(x[5m]))[1d:])',
      'max_over_time(max_over_time(x[10m:1m])[1h:1m])',
    ]) assert.equal(refusal(ok), undefined, ok);
  });

  it('an App\'s query is judged with its placeholders filled, at the position in the query as written', () => {
    assert.equal(customQueryProblem('sum_over_time(x{app="{{app}}"}[{{interval}}:1ms])', { namespace: 'shop', name: 'web', interval: '1m' }),
      'asks too much of Prometheus: a subquery evaluates its expression 60000 times (every 1ms over 1m); at most 11000 are allowed: give it a coarser resolution or a shorter range (at character 15)');
  });
});
