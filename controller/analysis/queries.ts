// The PromQL of canary analysis: the built-in checks over ingress-nginx's metrics (as Flagger
// writes them) and the placeholders of custom queries. Pure string building.
//
// ingress-nginx labels every request it proxies with the main Ingress's name (`ingress`) and, when
// the canary Ingress's upstream served it, `canary="<ns>-<service>-<port>"`; `canary=""` otherwise.

import { escapeLabelValue } from '../../shared/placeholders.js';

export { escapeLabelValue, fillPlaceholders, knownPlaceholders, unknownPlaceholders, type Placeholder, type PlaceholderValues } from '../../shared/placeholders.js';

export const REQUESTS_METRIC = 'nginx_ingress_controller_requests';
export const DURATION_METRIC = 'nginx_ingress_controller_response_duration_seconds';
/** ingress-nginx's histogram of the whole request's time, which percentiles are read from. */
export const REQUEST_DURATION_METRIC = 'nginx_ingress_controller_request_duration_seconds';

export type Track = 'canary' | 'stable';

/** Which Ingress's requests a built-in query reads. */
export interface IngressRef {
  namespace: string;
  /** The main Ingress's name (not the canary Ingress's). */
  ingress: string;
}

function selector(metric: string, ref: IngressRef, track: Track, extra = ''): string {
  const canary = track === 'canary' ? 'canary!=""' : 'canary=""';
  return `${metric}{namespace="${escapeLabelValue(ref.namespace)}",ingress="${escapeLabelValue(ref.ingress)}",${canary}${extra}}`;
}

/**
 * Percent of `track`'s requests in the last `window` that were not 5xx (0..100).
 *
 * Flagger's query, with one guard: `or vector(0)` on the numerator. Without it a canary that
 * answered nothing but 5xx in the window has no non-5xx series at all, the numerator is an empty
 * vector, and the whole query is empty: "no data" instead of 0%, which `noData: Pass` would pass.
 * No traffic at all still comes out empty (empty denominator) or NaN (0/0 over stale series).
 */
export function successRateQuery(ref: IngressRef, window: string, track: Track = 'canary'): string {
  const ok = `sum(rate(${selector(REQUESTS_METRIC, ref, track, ',status!~"5.*"')}[${window}]))`;
  const all = `sum(rate(${selector(REQUESTS_METRIC, ref, track)}[${window}]))`;
  return `(${ok} or vector(0)) / ${all} * 100`;
}

/**
 * Mean response time of `track`'s requests in the last `window`, in milliseconds. A blue-green
 * check reads the main backend (`stable`) of the preview's Ingress, or of the App's after the switch.
 */
export function latencyQuery(ref: IngressRef, window: string, track: Track = 'canary'): string {
  const sum = `sum(rate(${selector(`${DURATION_METRIC}_sum`, ref, track)}[${window}]))`;
  const count = `sum(rate(${selector(`${DURATION_METRIC}_count`, ref, track)}[${window}]))`;
  return `${sum} / ${count} * 1000`;
}

/**
 * The `percentile` (50..99) of `track`'s request durations in the last `window`, in
 * milliseconds: histogram_quantile over ingress-nginx's buckets, summed over its pods and
 * statuses but kept apart by `le`. Interpolated within a bucket, as Prometheus does: with the
 * default buckets a p99 of 2 s reads somewhere between 1000 and 2500.
 */
export function latencyPercentileQuery(ref: IngressRef, window: string, percentile: number, track: Track = 'canary'): string {
  const buckets = `sum by (le) (rate(${selector(`${REQUEST_DURATION_METRIC}_bucket`, ref, track)}[${window}]))`;
  return `histogram_quantile(${percentile / 100}, ${buckets}) * 1000`;
}

/** How many requests `track` served in the last `window` (extrapolated, so not always whole). */
export function requestCountQuery(ref: IngressRef, window: string, track: Track = 'canary'): string {
  return `sum(increase(${selector(REQUESTS_METRIC, ref, track)}[${window}]))`;
}
