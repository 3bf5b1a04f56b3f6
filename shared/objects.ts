// JSON-ish value checks shared by the webhook, the controller and the CLI.

/** A plain object (not an array, not null, not a Date as the typed API clients produce). */
export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
